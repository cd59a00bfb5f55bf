/*
 * rpc_client.c — the client half of rpc.h: one channel, one completion queue
 * and one internal thread that waits on the queue and runs every callback.
 * Calls can be started from any thread; the bookkeeping they share with the
 * client thread (the list of live calls, each call's count of batches in
 * flight, and starting batches on a call, which gRPC requires to be
 * serialized per call) is guarded by the client's mutex. A call is freed by
 * the client thread once every batch it started has come back.
 *
 * Connecting: gRPC connects lazily and, by default, calls "fail fast" — a call
 * made while the channel cannot connect ends UNAVAILABLE instead of waiting.
 * connect_timeout_ms becomes GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, which in gRPC
 * core is the least time one connection attempt is given. The first retry
 * after a failure waits at most a second (INITIAL_RECONNECT_BACKOFF), and the
 * backoff is capped at MAX_BACKOFF_MS rather than gRPC's two minutes, so an
 * agent that lost the network notices the board service's return quickly.
 */
#include "rpc_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/grpc_security.h>
#include <grpc/support/log.h>

#define MAX_BACKOFF_MS 10000

enum tag_kind {
    TAG_UNARY,      /* the single batch of a unary call */
    TAG_START,      /* stream: send request + close, receive initial metadata */
    TAG_MSG,        /* stream: one RECV_MESSAGE */
    TAG_STATUS,     /* stream: RECV_STATUS_ON_CLIENT */
    TAG_SEND,       /* bidirectional stream: one later SEND_MESSAGE */
};

/* A message queued on a bidirectional stream (rpc_stream_send). */
struct outmsg {
    struct outmsg *next;
    grpc_byte_buffer *bb;
};

/* One outgoing call; for streams this is the rpc_stream handed out. */
struct rpc_stream {
    rpc_client *cli;
    struct rpc_stream *prev, *next;     /* in cli->calls */
    grpc_call *call;
    const ProtobufCMessageDescriptor *output;
    bool stream;
    rpc__tag t_main, t_msg, t_status, t_send;
    unsigned tags_out;                  /* guarded by cli->mu */

    /* A bidirectional stream: messages after the first, one send in
     * flight (gRPC's rule), the rest queued in order. Guarded by cli->mu. */
    bool bidi;
    bool send_busy;                     /* the first message's batch, or a later one */
    bool status_seen;                   /* over: nothing more is sent */
    struct outmsg *out_head, *out_tail;
    grpc_byte_buffer *sending;          /* the later message in flight */

    grpc_metadata md[1 + RPC_MAX_HEADERS];   /* "authorization: Bearer ...", then
                                        * the caller's headers */
    size_t n_md;
    grpc_byte_buffer *send_bb;
    grpc_byte_buffer *recv_bb;
    grpc_metadata_array init_md;
    grpc_metadata_array trailing_md;
    grpc_status_code status;
    grpc_slice details;

    bool failed;                        /* our own error overrides gRPC's status */
    rpc_status fail_status;

    rpc_reply_cb reply_cb;
    rpc_stream_msg_cb msg_cb;
    rpc_stream_end_cb end_cb;
    void *user;
};

struct rpc_client {
    grpc_channel *ch;
    grpc_completion_queue *cq;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;                  /* signalled when a call is freed */
    struct rpc_stream *calls;
    size_t live;
    bool closing;
    /* rpc_client_options.headers, copied; read-only after create */
    char hkey[RPC_CLIENT_HEADERS][RPC_CLIENT_HEADER_KEY];
    char hvalue[RPC_CLIENT_HEADERS][RPC_CLIENT_HEADER_VALUE];
    size_t n_headers;
};


/* ------------------------------------------------------------------------ */
/* Completion handling (client thread)                                      */
/* ------------------------------------------------------------------------ */

static void free_call(struct rpc_stream *c)
{
    while (c->out_head) {
        struct outmsg *m = c->out_head;
        c->out_head = m->next;
        grpc_byte_buffer_destroy(m->bb);
        free(m);
    }
    if (c->sending)
        grpc_byte_buffer_destroy(c->sending);
    if (c->send_bb)
        grpc_byte_buffer_destroy(c->send_bb);
    if (c->recv_bb)
        grpc_byte_buffer_destroy(c->recv_bb);
    grpc_metadata_array_destroy(&c->init_md);
    grpc_metadata_array_destroy(&c->trailing_md);
    grpc_slice_unref(c->details);
    for (size_t i = 0; i < c->n_md; i++) {
        grpc_slice_unref(c->md[i].key);
        grpc_slice_unref(c->md[i].value);
    }
    if (c->call)
        grpc_call_unref(c->call);
    free(c);
}

/* Take the call off the live list (so destroy stops waiting for it), then
 * free it. Called without cli->mu held. */
static void retire(struct rpc_stream *c)
{
    rpc_client *cli = c->cli;
    pthread_mutex_lock(&cli->mu);
    if (c->prev)
        c->prev->next = c->next;
    else
        cli->calls = c->next;
    if (c->next)
        c->next->prev = c->prev;
    cli->live--;
    pthread_cond_broadcast(&cli->cv);
    pthread_mutex_unlock(&cli->mu);
    free_call(c);
}

static void final_status(const struct rpc_stream *c, rpc_status *st)
{
    if (c->failed) {
        *st = c->fail_status;
        return;
    }
    rpc__status_set(st, c->status, c->details);
    for (size_t i = 0; i < c->trailing_md.count; i++) {
        const grpc_metadata *md = &c->trailing_md.metadata[i];
        if (grpc_slice_str_cmp(md->key, RPC_REASON_KEY) == 0)
            rpc__slice_to_buf(md->value, st->reason, sizeof st->reason);
        else if (grpc_slice_str_cmp(md->key, RPC_ENDPOINT_KEY) == 0)
            rpc__slice_to_buf(md->value, st->endpoint, sizeof st->endpoint);
    }
}

static void on_unary(struct rpc_stream *c)
{
    rpc_status st;
    final_status(c, &st);
    ProtobufCMessage *reply = NULL;
    if (st.code == RPC_OK) {
        if (!c->recv_bb)
            rpc__status_setf(&st, RPC_INTERNAL, "server sent no reply message");
        else if (!(reply = rpc__unpack(c->output, c->recv_bb)))
            rpc__status_setf(&st, RPC_INTERNAL, "undecodable reply");
    }
    c->reply_cb(&st, reply, c->user);
    retire(c);
}

/* Post the next RECV_MESSAGE of a stream. Called with cli->mu held. */
static void post_recv(struct rpc_stream *c)
{
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &c->recv_bb;
    c->tags_out++;
    if (grpc_call_start_batch(c->call, &op, 1, &c->t_msg, NULL) != GRPC_CALL_OK) {
        c->tags_out--;
        if (!c->failed) {
            c->failed = true;
            rpc__status_setf(&c->fail_status, RPC_INTERNAL, "cannot receive stream message");
        }
        grpc_call_cancel(c->call, NULL);
    }
}

/* Start the next queued send of a bidirectional stream, if none is in
 * flight. Called with cli->mu held. */
static void pump_sends(struct rpc_stream *c)
{
    if (c->send_busy || c->status_seen || !c->out_head)
        return;
    struct outmsg *m = c->out_head;
    c->out_head = m->next;
    if (!c->out_head)
        c->out_tail = NULL;
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_SEND_MESSAGE;
    op.data.send_message.send_message = m->bb;
    c->tags_out++;
    c->send_busy = true;
    c->sending = m->bb;
    free(m);
    if (grpc_call_start_batch(c->call, &op, 1, &c->t_send, NULL) != GRPC_CALL_OK) {
        c->tags_out--;
        c->send_busy = false;
        grpc_byte_buffer_destroy(c->sending);
        c->sending = NULL;
        if (!c->failed) {
            c->failed = true;
            rpc__status_setf(&c->fail_status, RPC_INTERNAL, "cannot send a stream message");
        }
        grpc_call_cancel(c->call, NULL);
    }
}

static void on_stream_event(struct rpc_stream *c, int kind, bool success)
{
    rpc_client *cli = c->cli;
    bool got_msg = false;
    /* Wait out start_call if it still holds the lock for this call. */
    pthread_mutex_lock(&cli->mu);
    pthread_mutex_unlock(&cli->mu);
    if (kind == TAG_MSG) {
        grpc_byte_buffer *bb = c->recv_bb;
        c->recv_bb = NULL;
        if (success && bb) {
            ProtobufCMessage *msg = rpc__unpack(c->output, bb);
            if (msg) {
                got_msg = true;
                c->msg_cb(msg, c->user);
            } else {
                pthread_mutex_lock(&cli->mu);
                if (!c->failed) {
                    c->failed = true;
                    rpc__status_setf(&c->fail_status, RPC_INTERNAL,
                                     "undecodable stream message");
                }
                pthread_mutex_unlock(&cli->mu);
                grpc_call_cancel(c->call, NULL);
            }
        }
        /* A NULL message (success or not) is the end of the stream. */
        if (bb)
            grpc_byte_buffer_destroy(bb);
    }
    pthread_mutex_lock(&cli->mu);
    c->tags_out--;
    if (got_msg && !c->failed)
        post_recv(c);       /* one RECV_MESSAGE at a time */
    if (kind == TAG_STATUS)
        c->status_seen = true;
    if (c->bidi && (kind == TAG_SEND || kind == TAG_START)) {
        c->send_busy = false;
        if (c->sending) {
            grpc_byte_buffer_destroy(c->sending);
            c->sending = NULL;
        }
        (void)success;      /* a failed send: the status says why */
        pump_sends(c);
    }
    bool over = c->tags_out == 0;
    pthread_mutex_unlock(&cli->mu);
    if (over) {
        /* Every batch is back: no other thread can reach the call now except
         * rpc_stream_cancel, which the contract allows until end_cb returns. */
        rpc_status st;
        final_status(c, &st);
        c->end_cb(&st, c->user);
        retire(c);
    }
}

static void *client_thread(void *arg)
{
    rpc_client *cli = arg;
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(
            cli->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN)
            break;
        if (ev.type != GRPC_OP_COMPLETE)
            continue;
        rpc__tag *t = ev.tag;
        struct rpc_stream *c = t->obj;
        if (t->kind == TAG_UNARY) {
            /* Unary calls have a single batch: it is back, so the call is
             * over. Taking the lock waits out start_call if it is still
             * finishing its bookkeeping on another thread. */
            pthread_mutex_lock(&cli->mu);
            c->tags_out--;
            pthread_mutex_unlock(&cli->mu);
            on_unary(c);
        } else {
            on_stream_event(c, t->kind, ev.success);
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Client lifetime                                                          */
/* ------------------------------------------------------------------------ */

/* Plaintext, or TLS verifying the server against the roots given as text,
 * the CA file, or the system's roots, optionally with our own certificate.
 * NULL when a file cannot be read. */
static grpc_channel_credentials *tls_credentials(const rpc_client_options *o)
{
    if (!o->use_tls)
        return grpc_insecure_credentials_create();
    char *ca = o->tls_roots_pem ? strdup(o->tls_roots_pem)
               : o->tls.ca  ? rpc__read_file(o->tls.ca)
                            : NULL;
    char *cert = o->tls.cert ? rpc__read_file(o->tls.cert) : NULL;
    char *key = o->tls.key ? rpc__read_file(o->tls.key) : NULL;
    grpc_channel_credentials *creds = NULL;
    if ((ca || (!o->tls.ca && !o->tls_roots_pem)) && (cert || !o->tls.cert) && (key || !o->tls.key)) {
        grpc_ssl_pem_key_cert_pair pair = {key, cert};
        creds = grpc_ssl_credentials_create(ca, cert && key ? &pair : NULL, NULL, NULL);
    } else {
        gpr_log(GPR_ERROR, "rpc: cannot read the TLS CA, certificate or key file");
    }
    free(ca);
    free(cert);
    free(key);
    return creds;
}

int rpc_client_create(const char *target, const rpc_client_options *opts,
                      rpc_client **out)
{
    rpc_client_options o;
    memset(&o, 0, sizeof o);
    if (opts)
        o = *opts;
    *out = NULL;

    int max_msg = rpc__or_default(o.max_message_bytes, RPC__DEFAULT_MAX_MESSAGE_BYTES);
    int connect_ms = rpc__or_default(o.connect_timeout_ms, RPC__DEFAULT_CONNECT_TIMEOUT_MS);
    /*
     * Keepalive: ping after time_ms without activity while a call is open
     * (a long-lived event stream counts), and keep pinging even when no data
     * flows (MAX_PINGS_WITHOUT_DATA 0), so a dead server behind a half-open
     * connection ends our streams UNAVAILABLE within time_ms + timeout_ms.
     * No pings without calls: an idle client has nothing to lose. time_ms
     * must stay at or above the server's min_recv_ping_ms or the server
     * answers with GOAWAY "too many pings".
     */
    grpc_arg args[] = {
        rpc__int_arg(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, max_msg),
        rpc__int_arg(GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, max_msg),
        rpc__int_arg(GRPC_ARG_KEEPALIVE_TIME_MS,
                rpc__or_default(o.keepalive.time_ms, RPC__DEFAULT_KEEPALIVE_TIME_MS)),
        rpc__int_arg(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                rpc__or_default(o.keepalive.timeout_ms, RPC__DEFAULT_KEEPALIVE_TIMEOUT_MS)),
        rpc__int_arg(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0),
        rpc__int_arg(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0),
        rpc__int_arg(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, connect_ms),
        rpc__int_arg(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, connect_ms < 1000 ? connect_ms : 1000),
        rpc__int_arg(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
                connect_ms > MAX_BACKOFF_MS ? connect_ms : MAX_BACKOFF_MS),
        /* Our own connection per client, not one shared process-wide with
         * every channel to the same target: clients stay independent. */
        rpc__int_arg(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1),
        /* Only when a name is given: the last entry is dropped otherwise. */
        {GRPC_ARG_STRING, GRPC_SSL_TARGET_NAME_OVERRIDE_ARG,
         {.string = (char *)o.tls_server_name}},
    };
    size_t n_args = sizeof args / sizeof args[0] - (o.tls_server_name ? 0 : 1);
    grpc_channel_args cargs = {n_args, args};

    grpc_channel_credentials *creds = tls_credentials(&o);
    if (!creds)
        return -1;
    rpc_client *cli = calloc(1, sizeof *cli);
    if (!cli) {
        grpc_channel_credentials_release(creds);
        return -1;
    }
    if (o.n_headers > RPC_CLIENT_HEADERS) {
        grpc_channel_credentials_release(creds);
        goto fail_cli;
    }
    for (size_t i = 0; i < o.n_headers; i++) {
        int k = snprintf(cli->hkey[i], sizeof cli->hkey[i], "%s", o.headers[i].key);
        int v = snprintf(cli->hvalue[i], sizeof cli->hvalue[i], "%s", o.headers[i].value);
        if (k < 0 || (size_t)k >= sizeof cli->hkey[i] || v < 0 ||
            (size_t)v >= sizeof cli->hvalue[i]) {
            grpc_channel_credentials_release(creds);
            goto fail_cli;
        }
    }
    cli->n_headers = o.n_headers;
    cli->ch = grpc_channel_create(target, creds, &cargs);
    grpc_channel_credentials_release(creds);
    if (!cli->ch)
        goto fail_cli;
    cli->cq = grpc_completion_queue_create_for_next(NULL);
    if (!cli->cq)
        goto fail_ch;
    if (pthread_mutex_init(&cli->mu, NULL) != 0)
        goto fail_cq;
    if (pthread_cond_init(&cli->cv, NULL) != 0)
        goto fail_mu;
    if (pthread_create(&cli->thread, NULL, client_thread, cli) != 0)
        goto fail_cv;
    *out = cli;
    return 0;

fail_cv:
    pthread_cond_destroy(&cli->cv);
fail_mu:
    pthread_mutex_destroy(&cli->mu);
fail_cq:
    grpc_completion_queue_shutdown(cli->cq);
    while (grpc_completion_queue_next(cli->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC),
                                      NULL).type != GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(cli->cq);
fail_ch:
    grpc_channel_destroy(cli->ch);
fail_cli:
    free(cli);
    return -1;
}

void rpc_client_destroy(rpc_client *cli)
{
    if (!cli)
        return;
    if (pthread_equal(pthread_self(), cli->thread)) {
        /* Waiting for our own thread to finish would hang forever. */
        gpr_log(GPR_ERROR, "rpc_client_destroy called from a client callback; ignored");
        return;
    }
    pthread_mutex_lock(&cli->mu);
    cli->closing = true;
    for (struct rpc_stream *c = cli->calls; c; c = c->next)
        grpc_call_cancel(c->call, NULL);
    while (cli->live > 0)
        pthread_cond_wait(&cli->cv, &cli->mu);
    pthread_mutex_unlock(&cli->mu);

    grpc_completion_queue_shutdown(cli->cq);
    pthread_join(cli->thread, NULL);   /* it drains the queue to SHUTDOWN */
    grpc_completion_queue_destroy(cli->cq);
    grpc_channel_destroy(cli->ch);
    pthread_cond_destroy(&cli->cv);
    pthread_mutex_destroy(&cli->mu);
    free(cli);
}

/* ------------------------------------------------------------------------ */
/* Starting calls (any thread)                                              */
/* ------------------------------------------------------------------------ */

/*
 * Create the call and start its batches. Takes ownership of `bb` in every
 * case. Returns the call, or NULL (then no callback will run).
 */
static struct rpc_stream *start_call(rpc_client *cli, const rpc_method *method,
                                     grpc_byte_buffer *bb, const char *token,
                                     const rpc_header *headers, size_t n_headers,
                                     int timeout_ms, bool stream, bool bidi,
                                     rpc_reply_cb reply_cb, rpc_stream_msg_cb msg_cb,
                                     rpc_stream_end_cb end_cb, void *user,
                                     rpc_stream **out)
{
    char *path = n_headers + cli->n_headers <= RPC_MAX_HEADERS ? rpc__method_path(method) : NULL;
    if (!path || !bb)
        goto fail_bb;
    struct rpc_stream *c = calloc(1, sizeof *c);
    if (!c)
        goto fail_path;
    c->cli = cli;
    c->stream = stream;
    c->bidi = bidi;
    c->send_busy = bidi;          /* the first message goes with the start */
    c->output = method->service->methods[method->index].output;
    c->send_bb = bb;
    c->reply_cb = reply_cb;
    c->msg_cb = msg_cb;
    c->end_cb = end_cb;
    c->user = user;
    c->details = grpc_empty_slice();
    grpc_metadata_array_init(&c->init_md);
    grpc_metadata_array_init(&c->trailing_md);
    c->t_main = (rpc__tag){stream ? TAG_START : TAG_UNARY, c};
    c->t_msg = (rpc__tag){TAG_MSG, c};
    c->t_status = (rpc__tag){TAG_STATUS, c};
    c->t_send = (rpc__tag){TAG_SEND, c};
    if (token) {
        size_t tl = strlen(token);
        c->md[0].key = grpc_slice_from_static_string("authorization");
        c->md[0].value = grpc_slice_malloc(7 + tl);
        memcpy(GRPC_SLICE_START_PTR(c->md[0].value), "Bearer ", 7);
        memcpy(GRPC_SLICE_START_PTR(c->md[0].value) + 7, token, tl);
        c->n_md = 1;
    }
    for (size_t i = 0; i < n_headers; i++, c->n_md++) {
        c->md[c->n_md].key = grpc_slice_from_copied_string(headers[i].key);
        c->md[c->n_md].value = grpc_slice_from_copied_string(headers[i].value);
    }
    for (size_t i = 0; i < cli->n_headers; i++, c->n_md++) {
        c->md[c->n_md].key = grpc_slice_from_copied_string(cli->hkey[i]);
        c->md[c->n_md].value = grpc_slice_from_copied_string(cli->hvalue[i]);
    }

    pthread_mutex_lock(&cli->mu);
    if (cli->closing)
        goto fail_locked;
    grpc_slice mslice = grpc_slice_from_copied_string(path);
    c->call = grpc_channel_create_call(
        cli->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cli->cq, mslice, NULL,
        stream ? gpr_inf_future(GPR_CLOCK_MONOTONIC) : rpc__deadline_ms(timeout_ms),
        NULL);
    grpc_slice_unref(mslice);
    if (!c->call)
        goto fail_locked;

    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[n].data.send_initial_metadata.count = c->n_md;
    ops[n].data.send_initial_metadata.metadata = c->n_md ? c->md : NULL;
    n++;
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n].data.send_message.send_message = c->send_bb;
    n++;
    if (!bidi) {
        ops[n].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
        n++;
        /* A bidirectional stream's start completes when its first message
         * is sent, so that the next may go: its initial metadata is
         * received with its status instead. */
        ops[n].op = GRPC_OP_RECV_INITIAL_METADATA;
        ops[n].data.recv_initial_metadata.recv_initial_metadata = &c->init_md;
        n++;
    }
    if (!stream) {
        ops[n].op = GRPC_OP_RECV_MESSAGE;
        ops[n].data.recv_message.recv_message = &c->recv_bb;
        n++;
        ops[n].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
        ops[n].data.recv_status_on_client.trailing_metadata = &c->trailing_md;
        ops[n].data.recv_status_on_client.status = &c->status;
        ops[n].data.recv_status_on_client.status_details = &c->details;
        n++;
    }
    /* Refused here (e.g. a token with characters metadata cannot carry):
     * nothing started, so we can still say -1 and run no callback. */
    if (grpc_call_start_batch(c->call, ops, n, &c->t_main, NULL) != GRPC_CALL_OK)
        goto fail_locked;
    c->tags_out++;

    if (stream) {
        grpc_op sops[2];
        memset(sops, 0, sizeof sops);
        size_t ns = 0;
        if (bidi) {
            sops[ns].op = GRPC_OP_RECV_INITIAL_METADATA;
            sops[ns].data.recv_initial_metadata.recv_initial_metadata = &c->init_md;
            ns++;
        }
        sops[ns].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
        sops[ns].data.recv_status_on_client.trailing_metadata = &c->trailing_md;
        sops[ns].data.recv_status_on_client.status = &c->status;
        sops[ns].data.recv_status_on_client.status_details = &c->details;
        ns++;
        c->tags_out++;
        if (grpc_call_start_batch(c->call, sops, ns, &c->t_status, NULL) != GRPC_CALL_OK) {
            /* Too late for -1: the call has begun. End it with our status. */
            c->tags_out--;
            c->failed = true;
            rpc__status_setf(&c->fail_status, RPC_INTERNAL, "cannot receive stream status");
            grpc_call_cancel(c->call, NULL);
        } else {
            post_recv(c);
        }
    }

    c->next = cli->calls;
    if (cli->calls)
        cli->calls->prev = c;
    cli->calls = c;
    cli->live++;
    /* Under the lock, so the handle is stored before any callback runs. */
    if (out)
        *out = c;
    pthread_mutex_unlock(&cli->mu);
    free(path);
    return c;

fail_locked:
    pthread_mutex_unlock(&cli->mu);
    free_call(c);   /* also destroys bb (c->send_bb) */
    free(path);
    return NULL;
fail_path:
    free(path);
fail_bb:
    if (bb)
        grpc_byte_buffer_destroy(bb);
    return NULL;
}

int rpc_client_call(rpc_client *cli, const rpc_method *method,
                    const ProtobufCMessage *request, const char *token,
                    int timeout_ms, rpc_reply_cb cb, void *user)
{
    if (!cli || !method || !request || !cb)
        return -1;
    return rpc_client_call_headers(cli, method, request, token, NULL, 0, timeout_ms, cb, user);
}

int rpc_client_call_headers(rpc_client *cli, const rpc_method *method,
                            const ProtobufCMessage *request, const char *token,
                            const rpc_header *headers, size_t n_headers, int timeout_ms,
                            rpc_reply_cb cb, void *user)
{
    if (!cli || !method || !request || !cb)
        return -1;
    return start_call(cli, method, rpc__pack(request), token, headers, n_headers, timeout_ms,
                      false, false, cb, NULL, NULL, user, NULL) ? 0 : -1;
}

int rpc__client_call_raw(rpc_client *cli, const rpc_method *method,
                         const void *data, size_t len, const char *token,
                         int timeout_ms, rpc_reply_cb cb, void *user)
{
    if (!cli || !method || !cb)
        return -1;
    return start_call(cli, method, rpc__pack_raw(data, len), token, NULL, 0, timeout_ms,
                      false, false, cb, NULL, NULL, user, NULL) ? 0 : -1;
}

int rpc_client_stream(rpc_client *cli, const rpc_method *method,
                      const ProtobufCMessage *request, const char *token,
                      rpc_stream_msg_cb on_msg, rpc_stream_end_cb on_end,
                      void *user, rpc_stream **out)
{
    return rpc_client_stream_headers(cli, method, request, token, NULL, 0, on_msg, on_end,
                                     user, out);
}

int rpc_client_stream_headers(rpc_client *cli, const rpc_method *method,
                              const ProtobufCMessage *request, const char *token,
                              const rpc_header *headers, size_t n_headers,
                              rpc_stream_msg_cb on_msg, rpc_stream_end_cb on_end, void *user,
                              rpc_stream **out)
{
    if (out)
        *out = NULL;
    if (!cli || !method || !request || !on_msg || !on_end)
        return -1;
    return start_call(cli, method, rpc__pack(request), token, headers, n_headers, 0, true,
                      false, NULL, on_msg, on_end, user, out) ? 0 : -1;
}

int rpc_client_bidi(rpc_client *cli, const rpc_method *method, const ProtobufCMessage *first,
                    const char *token, rpc_stream_msg_cb on_msg, rpc_stream_end_cb on_end,
                    void *user, rpc_stream **out)
{
    if (out)
        *out = NULL;
    if (!cli || !method || !first || !on_msg || !on_end)
        return -1;
    return start_call(cli, method, rpc__pack(first), token, NULL, 0, 0, true, true, NULL,
                      on_msg, on_end, user, out) ? 0 : -1;
}

int rpc_stream_send(rpc_stream *stream, const ProtobufCMessage *msg)
{
    struct outmsg *m = malloc(sizeof *m);
    grpc_byte_buffer *bb = m ? rpc__pack(msg) : NULL;
    if (!bb) {
        free(m);
        return -1;
    }
    m->bb = bb;
    m->next = NULL;
    rpc_client *cli = stream->cli;
    pthread_mutex_lock(&cli->mu);
    if (!stream->bidi || stream->status_seen) {
        pthread_mutex_unlock(&cli->mu);
        grpc_byte_buffer_destroy(bb);
        free(m);
        return -1;
    }
    if (stream->out_tail)
        stream->out_tail->next = m;
    else
        stream->out_head = m;
    stream->out_tail = m;
    pump_sends(stream);
    pthread_mutex_unlock(&cli->mu);
    return 0;
}

void rpc_stream_cancel(rpc_stream *stream)
{
    /* Thread-safe in gRPC until the call is unref'ed, which happens only
     * after end_cb has returned. */
    grpc_call_cancel(stream->call, NULL);
}

struct sync_wait {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    rpc_status status;
    ProtobufCMessage *reply;
};

void rpc_reply_drop(const rpc_status *status, ProtobufCMessage *reply, void *user)
{
    (void)status;
    (void)user;
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
}

static void sync_done(const rpc_status *status, ProtobufCMessage *reply, void *user)
{
    struct sync_wait *w = user;
    pthread_mutex_lock(&w->mu);
    w->status = *status;
    w->reply = reply;
    w->done = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

int rpc_client_call_sync(rpc_client *cli, const rpc_method *method,
                         const ProtobufCMessage *request, const char *token,
                         int timeout_ms, ProtobufCMessage **reply,
                         rpc_status *status)
{
    rpc_status local;
    if (!status)
        status = &local;
    if (reply)
        *reply = NULL;
    if (!cli) {
        rpc__status_setf(status, RPC_INTERNAL, "no client");
        return -1;
    }
    if (pthread_equal(pthread_self(), cli->thread)) {
        /* The reply could only ever be delivered by this very thread. */
        rpc__status_setf(status, RPC_INTERNAL,
                         "rpc_client_call_sync called on the client thread");
        return -1;
    }
    struct sync_wait w;
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    int rc = -1;
    if (rpc_client_call(cli, method, request, token, timeout_ms, sync_done, &w) != 0) {
        rpc__status_setf(status, RPC_INTERNAL, "could not start the call");
        goto out;
    }
    /* No timeout of our own: the call's deadline (if any) ends it, and
     * rpc_client_destroy cancels it. */
    pthread_mutex_lock(&w.mu);
    while (!w.done)
        pthread_cond_wait(&w.cv, &w.mu);
    pthread_mutex_unlock(&w.mu);
    *status = w.status;
    if (w.status.code == RPC_OK) {
        rc = 0;
        if (reply)
            *reply = w.reply;
        else
            protobuf_c_message_free_unpacked(w.reply, NULL);
    }
out:
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    return rc;
}
