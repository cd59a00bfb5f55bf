/*
 * rpc_server.c — the server half of rpc.h: one gRPC server and one completion
 * queue, polled only from the thread that calls rpc_server_poll(); unregistered
 * calls are matched to protobuf-c service descriptors by their path, decoded,
 * and handed to the service's handler. Each call is a small state machine
 * whose batches carry tags embedded in the call (rpc__tag), so the call is
 * freed only when every batch it started has come back.
 *
 * Choices worth knowing:
 *  - Waking: gRPC 1.51's C API has no public way to post an arbitrary tag to a
 *    completion queue (grpc_alarm is C++ only, grpc_cq_end_op is internal), so
 *    rpc_server_poll() waits in slices of at most POLL_SLICE_MS and checks an
 *    atomic flag between them; rpc_server_wake() sets the flag. A wake is
 *    therefore noticed within POLL_SLICE_MS. The cost is one idle wake-up per
 *    slice, which is nothing next to gRPC's own timers.
 *  - A handler that never finishes its call: the call stays open until the
 *    client leaves (cancel, deadline, lost connection — keepalive notices a
 *    half-open TCP connection) or the server is destroyed. Either way the
 *    RECV_CLOSE_ON_SERVER batch, which is posted as soon as the call arrives,
 *    comes back; once the call's other batches are back too, the done callback
 *    runs (client_gone = true if the client left, false on server shutdown)
 *    and the call is freed. The handler's owner must forget the rpc_call in
 *    its done callback.
 *  - Streams: an outbox of serialized byte buffers, at most one SEND_MESSAGE
 *    batch in flight (a gRPC rule); rpc_call_finish() queues the status behind
 *    the outbox and it goes out with (or after) the last message.
 */
#include "rpc_server_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>


/* Longest single wait inside rpc_server_poll(): bounds how late a wake is. */
#define POLL_SLICE_MS 100

/* After one completion, handle at most this many more that are already ready
 * before returning, so a flood cannot starve the caller's own timers. */
#define POLL_BATCH 256

enum tag_kind {
    TAG_REQUEST,    /* a grpc_server_request_call matched a new call */
    TAG_RECV,       /* the request message arrived (or not) */
    TAG_CLOSE,      /* RECV_CLOSE_ON_SERVER: the call is over on the wire */
    TAG_SEND,       /* a send batch (message and/or status) completed */
    TAG_SHUTDOWN,   /* grpc_server_shutdown_and_notify finished */
};

static void tag_init(rpc__tag *t, int kind, void *obj)
{
    t->kind = kind;
    t->obj = obj;
}


/* ------------------------------------------------------------------------ */
/* TLS whose certificate can be replaced                                    */
/* ------------------------------------------------------------------------ */

/* gRPC calls the fetcher (fetch_tls) on its own threads at the start of
 * every TLS handshake, and once when the listener is made; a configuration
 * waiting in `pending` is handed over then (gRPC frees it), otherwise the
 * last one stays. The cost is a mutex taken per handshake. */
struct rpc_tls_source {
    pthread_mutex_t lock;
    grpc_ssl_server_certificate_config *pending;   /* locked */
};

static grpc_ssl_certificate_config_reload_status fetch_tls(
    void *user, grpc_ssl_server_certificate_config **config)
{
    struct rpc_tls_source *src = user;
    pthread_mutex_lock(&src->lock);
    grpc_ssl_server_certificate_config *c = src->pending;
    src->pending = NULL;
    pthread_mutex_unlock(&src->lock);
    if (!c)
        return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED;
    *config = c;
    return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW;
}

/* tls's files as a configuration gRPC can take, or NULL. */
static grpc_ssl_server_certificate_config *load_tls(const rpc_tls_files *tls)
{
    char *cert = tls->cert ? rpc__read_file(tls->cert) : NULL;
    char *key = tls->key ? rpc__read_file(tls->key) : NULL;
    char *ca = tls->ca ? rpc__read_file(tls->ca) : NULL;
    grpc_ssl_server_certificate_config *config = NULL;
    if (cert && key && (ca || !tls->ca)) {
        grpc_ssl_pem_key_cert_pair pair = {key, cert};
        /* gRPC asserts that a fetched configuration has roots, even when no
         * client certificate is asked for: our own certificate then, which
         * is never used (no client is asked for one). */
        config = grpc_ssl_server_certificate_config_create(ca ? ca : cert, &pair, 1);
    }
    free(cert);
    free(key);
    free(ca);
    return config;
}

static void tls_source_free(struct rpc_tls_source *src)
{
    if (!src)
        return;
    if (src->pending)
        grpc_ssl_server_certificate_config_destroy(src->pending);
    pthread_mutex_destroy(&src->lock);
    free(src);
}

int rpc_server_reload_tls(rpc_server *srv, const rpc_tls_files *tls)
{
    if (!srv->tls)
        return -1;
    grpc_ssl_server_certificate_config *config = load_tls(tls);
    if (!config)
        return -1;
    pthread_mutex_lock(&srv->tls->lock);
    grpc_ssl_server_certificate_config *old = srv->tls->pending;
    srv->tls->pending = config;
    pthread_mutex_unlock(&srv->tls->lock);
    if (old)                   /* never handed over: no handshake since */
        grpc_ssl_server_certificate_config_destroy(old);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Creation                                                                 */
/* ------------------------------------------------------------------------ */

int rpc_server_create(const char *addr, const rpc_server_options *opts,
                      rpc_server **out, int *port)
{
    rpc_server_options o;
    memset(&o, 0, sizeof o);
    if (opts)
        o = *opts;
    *out = NULL;

    rpc_server *srv = calloc(1, sizeof *srv);
    if (!srv)
        return -1;
    srv->outbox_limit = o.outbox_limit ? o.outbox_limit : RPC__DEFAULT_OUTBOX_LIMIT;
    atomic_init(&srv->wake, false);
    tag_init(&srv->shutdown_tag, TAG_SHUTDOWN, srv);
    for (size_t i = 0; i < REQUEST_SLOTS; i++) {
        tag_init(&srv->slots[i].tag, TAG_REQUEST, &srv->slots[i]);
        grpc_call_details_init(&srv->slots[i].details);
        grpc_metadata_array_init(&srv->slots[i].md);
    }

    int max_msg = rpc__or_default(o.max_message_bytes, RPC__DEFAULT_MAX_MESSAGE_BYTES);
    /*
     * Keepalive: the server pings every connection that has been idle for
     * time_ms, even with no call open, and never stops pinging for lack of
     * data (MAX_PINGS_WITHOUT_DATA 0), so a subscriber behind a half-open TCP
     * connection is noticed within time_ms + timeout_ms. Clients may ping
     * too, no faster than min_recv_ping_ms; two pings faster than that
     * (the gRPC default strike count, made explicit) and the connection is
     * closed with "too many pings".
     */
    grpc_arg args[] = {
        rpc__int_arg(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
                rpc__or_default(o.max_receive_bytes, max_msg)),
        rpc__int_arg(GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, max_msg),
        rpc__int_arg(GRPC_ARG_MAX_CONCURRENT_STREAMS,
                rpc__or_default(o.max_streams_per_conn, RPC__DEFAULT_MAX_STREAMS)),
        rpc__int_arg(GRPC_ARG_KEEPALIVE_TIME_MS,
                rpc__or_default(o.keepalive.time_ms, RPC__DEFAULT_KEEPALIVE_TIME_MS)),
        rpc__int_arg(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                rpc__or_default(o.keepalive.timeout_ms, RPC__DEFAULT_KEEPALIVE_TIMEOUT_MS)),
        rpc__int_arg(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1),
        rpc__int_arg(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                rpc__or_default(o.keepalive.min_recv_ping_ms, RPC__DEFAULT_MIN_RECV_PING_MS)),
        rpc__int_arg(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0),
        rpc__int_arg(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 2),
        /* One server per port: with SO_REUSEPORT (gRPC's default) a second
         * one on a port in use starts, and the kernel splits clients. */
        rpc__int_arg(GRPC_ARG_ALLOW_REUSEPORT, 0),
    };
    grpc_channel_args cargs = {sizeof args / sizeof args[0], args};

    srv->cq = grpc_completion_queue_create_for_next(NULL);
    if (!srv->cq)
        goto fail_srv;
    srv->server = grpc_server_create(&cargs, NULL);
    if (!srv->server)
        goto fail_cq;
    grpc_server_register_completion_queue(srv->server, srv->cq, NULL);

    grpc_server_credentials *creds = NULL;
    if (o.tls.cert) {
        /* Through a fetcher rather than fixed: rpc_server_reload_tls. */
        srv->tls = calloc(1, sizeof *srv->tls);
        grpc_ssl_server_certificate_config *config = srv->tls ? load_tls(&o.tls) : NULL;
        if (config) {
            pthread_mutex_init(&srv->tls->lock, NULL);
            srv->tls->pending = config;          /* taken when the port is added */
            /* With a client CA, clients must present a certificate it signed. */
            grpc_ssl_server_credentials_options *copts =
                grpc_ssl_server_credentials_create_options_using_config_fetcher(
                    o.tls.ca ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                             : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
                    fetch_tls, srv->tls);
            creds = copts ? grpc_ssl_server_credentials_create_with_options(copts) : NULL;
        } else {
            free(srv->tls);
            srv->tls = NULL;
        }
        if (!creds) {
            gpr_log(GPR_ERROR, "rpc: cannot use the TLS certificate, key or CA files");
            goto fail_server;
        }
    } else {
        creds = grpc_insecure_server_credentials_create();
    }
    int bound = grpc_server_add_http2_port(srv->server, addr, creds);
    grpc_server_credentials_release(creds);
    if (bound == 0) {
        gpr_log(GPR_ERROR, "rpc: cannot listen on %s", addr);
        goto fail_server;
    }
    if (port)
        *port = bound;
    *out = srv;
    return 0;

fail_server:
    /* No listener was added, so the server can be destroyed unstarted. */
    grpc_server_destroy(srv->server);
    tls_source_free(srv->tls);
fail_cq:
    grpc_completion_queue_shutdown(srv->cq);
    while (grpc_completion_queue_next(srv->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC),
                                      NULL).type != GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(srv->cq);
fail_srv:
    for (size_t i = 0; i < REQUEST_SLOTS; i++) {
        grpc_call_details_destroy(&srv->slots[i].details);
        grpc_metadata_array_destroy(&srv->slots[i].md);
    }
    free(srv);
    return -1;
}

/* Takes `added`'s arrays when it returns 0. */
static int add_service(rpc_server *srv, struct service added)
{
    struct service *grown = realloc(srv->services,
                                    (srv->n_services + 1) * sizeof *grown);
    if (!grown)
        return -1;
    srv->services = grown;
    srv->services[srv->n_services++] = added;
    return 0;
}

int rpc_server_add_service(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                           const char *const *streaming, rpc_handler handler,
                           void *user)
{
    if (!srv || !svc || !handler || srv->started)
        return -1;
    bool *flags = calloc(svc->n_methods ? svc->n_methods : 1, sizeof *flags);
    if (!flags)
        return -1;
    for (const char *const *s = streaming; s && *s; s++) {
        unsigned i;
        for (i = 0; i < svc->n_methods; i++)
            if (strcmp(svc->methods[i].name, *s) == 0)
                break;
        if (i == svc->n_methods) {
            /* A typo here would silently turn a stream into a unary call. */
            gpr_log(GPR_ERROR, "rpc: %s has no method %s", svc->name, *s);
            free(flags);
            return -1;
        }
        flags[i] = true;
    }
    if (add_service(srv, (struct service){svc, flags, handler, NULL, user}) == 0)
        return 0;
    free(flags);
    return -1;
}

int rpc_server_add_methods(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                           const rpc_method_entry *entries, size_t n_entries, void *user)
{
    if (!srv || !svc || srv->started)
        return -1;
    size_t n = svc->n_methods ? svc->n_methods : 1;
    bool *flags = calloc(n, sizeof *flags);
    const rpc_method_entry **by_index = calloc(n, sizeof *by_index);
    if (!flags || !by_index)
        goto fail;
    for (size_t e = 0; e < n_entries; e++) {
        const ProtobufCMethodDescriptor *m =
            protobuf_c_service_descriptor_get_method_by_name(svc, entries[e].name);
        if (!m || by_index[m - svc->methods] || !entries[e].handler) {
            gpr_log(GPR_ERROR, "rpc: %s has no method %s (or it is given twice)", svc->name,
                    entries[e].name);
            goto fail;
        }
        by_index[m - svc->methods] = &entries[e];
        flags[m - svc->methods] = entries[e].server_streaming;
    }
    for (unsigned i = 0; i < svc->n_methods; i++) {
        if (!by_index[i]) {
            gpr_log(GPR_ERROR, "rpc: no handler for %s.%s", svc->name, svc->methods[i].name);
            goto fail;
        }
    }
    if (add_service(srv, (struct service){svc, flags, NULL, by_index, user}) == 0)
        return 0;
fail:
    free(flags);
    free(by_index);
    return -1;
}

static void arm_slot(rpc_server *srv, struct request_slot *slot)
{
    grpc_call_error err = grpc_server_request_call(
        srv->server, &slot->call, &slot->details, &slot->md, srv->cq, srv->cq,
        &slot->tag);
    if (err == GRPC_CALL_OK)
        slot->armed = true;
    else
        gpr_log(GPR_ERROR, "rpc: grpc_server_request_call: %d", (int)err);
}

int rpc_server_start(rpc_server *srv)
{
    if (!srv || srv->started)
        return -1;
    grpc_server_start(srv->server);
    srv->started = true;
    for (size_t i = 0; i < REQUEST_SLOTS; i++)
        arm_slot(srv, &srv->slots[i]);
    return rpc__side_start(srv);
}

/* ------------------------------------------------------------------------ */
/* Calls                                                                    */
/* ------------------------------------------------------------------------ */

static void drop_outbox(rpc_call *c)
{
    while (c->head) {
        struct outmsg *m = c->head;
        c->head = m->next;
        grpc_byte_buffer_destroy(m->bb);
        free(m);
    }
    c->tail = NULL;
    c->queued = 0;
}

/* The call is dead for sending: the client left, or gRPC refused a batch. */
static void mark_gone(rpc_call *c)
{
    c->gone = true;
    drop_outbox(c);
}

/* Start the next send batch if none is in flight: the head of the outbox,
 * with the status too when it is the last thing to go. */
static void pump(rpc_call *c)
{
    if (c->send_busy || c->gone || c->status_sent)
        return;
    grpc_op ops[3];
    size_t n = 0;
    memset(ops, 0, sizeof ops);
    if (!c->md_sent) {
        ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
        ops[n].data.send_initial_metadata.count = 0;
        n++;
    }
    grpc_byte_buffer *bb = NULL;
    if (c->head) {
        struct outmsg *m = c->head;
        c->head = m->next;
        if (!c->head)
            c->tail = NULL;
        c->queued--;
        bb = m->bb;
        free(m);
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n].data.send_message.send_message = bb;
        n++;
    }
    bool with_status = c->finishing && !c->head;
    if (with_status) {
        ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
        ops[n].data.send_status_from_server.trailing_metadata_count = (size_t)c->n_fin_md;
        ops[n].data.send_status_from_server.trailing_metadata = c->fin_md;
        ops[n].data.send_status_from_server.status = (grpc_status_code)c->fin_code;
        ops[n].data.send_status_from_server.status_details = &c->fin_details;
        n++;
    }
    if (!bb && !with_status)
        return;

    c->tags_out++;
    c->send_busy = true;
    c->in_flight = bb;
    grpc_call_error err = grpc_call_start_batch(c->call, ops, n, &c->t_send, NULL);
    if (err != GRPC_CALL_OK) {
        /* Our bug, not the network's; make sure RECV_CLOSE still returns. */
        gpr_log(GPR_ERROR, "rpc: send batch refused: %d", (int)err);
        c->tags_out--;
        c->send_busy = false;
        c->in_flight = NULL;
        if (bb)
            grpc_byte_buffer_destroy(bb);
        mark_gone(c);
        grpc_call_cancel(c->call, NULL);
        return;
    }
    c->md_sent = true;
    if (with_status)
        c->status_sent = true;
}

static void add_trailer(rpc_call *c, const char *key, grpc_slice value)
{
    c->fin_md[c->n_fin_md].key = grpc_slice_from_static_string(key);
    c->fin_md[c->n_fin_md].value = value;
    c->n_fin_md++;
}

static void finish_internal(rpc_call *c, rpc_code code, const char *message)
{
    if (c->multiplexed)
        rpc__mux_flush(c);    /* its legs' last envelope goes before the status */
    c->finishing = true;
    c->fin_code = code;
    c->fin_details = grpc_slice_from_copied_string(message ? message : "");
    pump(c);
}

/* Our own refusals say why in words and, for programs, in a reason. */
static void refuse(rpc_call *c, rpc_code code, const char *reason, const char *message)
{
    add_trailer(c, RPC_REASON_KEY, grpc_slice_from_static_string(reason));
    finish_internal(c, code, message);
}

static void free_call(rpc_call *c)
{
    rpc_server *srv = c->srv;
    if (c->prev)
        c->prev->next = c->next;
    else
        srv->calls = c->next;
    if (c->next)
        c->next->prev = c->prev;
    srv->live_calls--;

    drop_outbox(c);
    if (c->msg_release)
        c->msg_release(c->msg_user);
    if (c->recv_bb)
        grpc_byte_buffer_destroy(c->recv_bb);
    if (c->request)
        protobuf_c_message_free_unpacked(c->request, NULL);
    if (c->finishing)
        grpc_slice_unref(c->fin_details);
    for (int i = 0; i < c->n_fin_md; i++) {
        grpc_slice_unref(c->fin_md[i].key);
        grpc_slice_unref(c->fin_md[i].value);
    }
    grpc_metadata_array_destroy(&c->md);
    grpc_call_details_destroy(&c->details);
    gpr_free(c->peer);
    grpc_call_unref(c->call);
    free(c);
}

static void run_turn_hook(rpc_server *srv)
{
    if (srv->turn_hook)
        srv->turn_hook(srv->turn_user);
}

double rpc_server_turn_started(const rpc_server *srv)
{
    return srv->turn_started;
}

void rpc_server_set_refusal_hook(rpc_server *srv,
                                 void (*hook)(void *user, rpc_code code, const char *reason),
                                 void *user)
{
    srv->refusal_hook = hook;
    srv->refusal_user = user;
}

void rpc_server_set_admit_hook(rpc_server *srv, bool (*hook)(void *user, rpc_call *call),
                               void *user)
{
    srv->admit_hook = hook;
    srv->admit_user = user;
}

void rpc_server_set_turn_hook(rpc_server *srv, void (*hook)(void *user), void *user)
{
    srv->turn_hook = hook;
    srv->turn_user = user;
}

void rpc_server_set_turn_end_hook(rpc_server *srv, void (*hook)(void *user), void *user)
{
    srv->turn_end_hook = hook;
    srv->turn_end_user = user;
}

void rpc_server_flush(rpc_server *srv)
{
    rpc__mux_flush_all(srv);
}

/* Release the call once it is over on the wire and every batch is back. */
static void maybe_release(rpc_call *c)
{
    if (!c->close_seen || c->tags_out > 0 || c->over)
        return;
    c->over = true;
    bool client_gone = c->cancelled && !c->status_ok && !c->srv->shutting_down;
    if (c->multiplexed)
        rpc__mux_release(c, client_gone);
    /* The turn hook first: what it commits may answer this very call and
     * unhook its done callback (a Move handled and cancelled in one poll
     * turn, as a stalled store makes happen). */
    if (c->done)
        run_turn_hook(c->srv);
    if (c->done)
        c->done(c, client_gone, c->done_user);
    free_call(c);
}

static const struct service *find_method(const rpc_server *srv, grpc_slice path,
                                         unsigned *index)
{
    const char *p = (const char *)GRPC_SLICE_START_PTR(path);
    size_t n = GRPC_SLICE_LENGTH(path);
    if (n < 1 || p[0] != '/')
        return NULL;
    for (size_t s = 0; s < srv->n_services; s++) {
        const ProtobufCServiceDescriptor *d = srv->services[s].desc;
        size_t sl = strlen(d->name);
        if (n < sl + 2 || memcmp(p + 1, d->name, sl) != 0 || p[sl + 1] != '/')
            continue;
        const char *m = p + sl + 2;
        size_t ml = n - sl - 2;
        for (unsigned i = 0; i < d->n_methods; i++) {
            if (strlen(d->methods[i].name) == ml && memcmp(m, d->methods[i].name, ml) == 0) {
                *index = i;
                return &srv->services[s];
            }
        }
    }
    return NULL;
}

/* "<prefix> /pkg.Svc/Method", for status messages. */
static void path_message(const rpc_call *c, const char *prefix, char *buf, size_t len)
{
    char path[200];
    rpc__slice_to_buf(c->details.method, path, sizeof path);
    snprintf(buf, len, "%s %s", prefix, path);
}

static void on_new_call(rpc_server *srv, struct request_slot *slot)
{
    grpc_call *gc = slot->call;
    rpc_call *c = calloc(1, sizeof *c);
    if (!c) {
        /* Unref of a call with no batches cancels it. */
        grpc_call_unref(gc);
        grpc_call_details_destroy(&slot->details);
        grpc_metadata_array_destroy(&slot->md);
        grpc_call_details_init(&slot->details);
        grpc_metadata_array_init(&slot->md);
        slot->call = NULL;
        if (!srv->shutting_down)
            arm_slot(srv, slot);
        return;
    }
    c->srv = srv;
    c->call = gc;
    c->details = slot->details;
    c->md = slot->md;
    grpc_call_details_init(&slot->details);
    grpc_metadata_array_init(&slot->md);
    slot->call = NULL;
    if (!srv->shutting_down)
        arm_slot(srv, slot);

    tag_init(&c->t_recv, TAG_RECV, c);
    tag_init(&c->t_close, TAG_CLOSE, c);
    tag_init(&c->t_send, TAG_SEND, c);
    c->peer = grpc_call_get_peer(gc);
    c->next = srv->calls;
    if (srv->calls)
        srv->calls->prev = c;
    srv->calls = c;
    srv->live_calls++;

    /* First, learn when the call ends, whatever else happens. */
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->cancelled;
    c->tags_out++;
    if (grpc_call_start_batch(gc, &op, 1, &c->t_close, NULL) != GRPC_CALL_OK) {
        gpr_log(GPR_ERROR, "rpc: cannot watch call close");
        c->tags_out--;
        c->over = true;     /* never handed out: nobody to tell */
        free_call(c);
        return;
    }
    if (srv->shutting_down) {
        /* Arrived while we are closing: refuse it; RECV_CLOSE will follow. */
        mark_gone(c);
        grpc_call_cancel(gc, NULL);
        return;
    }

    c->svc = find_method(srv, c->details.method, &c->method_index);
    if (!c->svc) {
        char msg[256];
        path_message(c, "unknown method", msg, sizeof msg);
        refuse(c, RPC_UNIMPLEMENTED, "UNKNOWN_METHOD", msg);
        return;
    }
    c->client_streaming = c->svc->by_index && c->svc->by_index[c->method_index]->client_streaming;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &c->recv_bb;
    c->tags_out++;
    if (grpc_call_start_batch(gc, &op, 1, &c->t_recv, NULL) != GRPC_CALL_OK) {
        gpr_log(GPR_ERROR, "rpc: cannot receive request");
        c->tags_out--;
        mark_gone(c);
        grpc_call_cancel(gc, NULL);
    }
}

/* A bidirectional stream: read the client's next message, if the last was
 * handled and the outbox has room (rpc.h: the client is pushed back by its
 * transport otherwise). Called again when a send completes. */
static void read_more(rpc_call *c)
{
    if (!c->on_msg || c->recv_busy || c->gone || c->finishing || c->over || c->half_closed ||
        c->close_seen || rpc_call_outbox_len(c) >= RPC_INBOX_OUTBOX_ROOM)
        return;
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &c->recv_bb;
    c->tags_out++;
    c->recv_busy = true;
    if (grpc_call_start_batch(c->call, &op, 1, &c->t_recv, NULL) != GRPC_CALL_OK) {
        gpr_log(GPR_ERROR, "rpc: cannot receive the next message");
        c->tags_out--;
        c->recv_busy = false;
        mark_gone(c);
        grpc_call_cancel(c->call, NULL);
    }
}

/* A message after the first of a bidirectional stream: checked as a
 * request is, then handed to the message callback. */
static void on_recv_more(rpc_call *c, bool success)
{
    c->tags_out--;
    c->recv_busy = false;
    grpc_byte_buffer *bb = c->recv_bb;
    c->recv_bb = NULL;
    if (success && !c->gone && !c->finishing && !c->over) {
        if (!bb) {
            c->half_closed = true;
            if (c->on_msg)
                c->on_msg(c, NULL, c->msg_user);
        } else {
            char msg[256], field[128];
            const rpc_method_entry *e = c->svc->by_index[c->method_index];
            const ProtobufCMethodDescriptor *m = &c->svc->desc->methods[c->method_index];
            ProtobufCMessage *in = NULL;
            int unpacked = rpc__unpack_checked(m->input, bb, &in, field, sizeof field);
            if (unpacked == -2) {
                snprintf(msg, sizeof msg,
                         "%s holds a NUL byte (U+0000), which no text may hold", field);
                refuse(c, RPC_INVALID_ARGUMENT, "BAD_REQUEST", msg);
            } else if (unpacked != 0) {
                path_message(c, "malformed message on", msg, sizeof msg);
                refuse(c, RPC_INVALID_ARGUMENT, "BAD_REQUEST", msg);
            } else if (rpc_message_check_utf8(in, field, sizeof field) != 0) {
                snprintf(msg, sizeof msg, "%s is not valid UTF-8", field);
                refuse(c, RPC_INVALID_ARGUMENT, "NOT_UTF8", msg);
            } else {
                if (!e->batched)
                    run_turn_hook(c->srv);
                /* The hook may have ended the call (a stream cut off). */
                if (c->on_msg && !c->finishing && !c->gone)
                    c->on_msg(c, in, c->msg_user);
            }
            if (in)
                protobuf_c_message_free_unpacked(in, NULL);
        }
    }
    if (bb)
        grpc_byte_buffer_destroy(bb);
    read_more(c);
    maybe_release(c);
}

static void on_recv(rpc_call *c, bool success)
{
    if (c->first_read) {
        on_recv_more(c, success);
        return;
    }
    c->first_read = true;
    c->tags_out--;
    grpc_byte_buffer *bb = c->recv_bb;
    c->recv_bb = NULL;
    if (!success)
        c->srv->lost_requests++;
    if (success && !c->gone) {
        char msg[256], field[128];
        const ProtobufCMethodDescriptor *m = &c->svc->desc->methods[c->method_index];
        int unpacked = bb ? rpc__unpack_checked(m->input, bb, &c->request, field, sizeof field)
                          : -1;
        if (!bb) {
            path_message(c, "missing request for", msg, sizeof msg);
            refuse(c, RPC_INVALID_ARGUMENT, "BAD_REQUEST", msg);
        } else if (unpacked == -2) {
            /* Never echoed: the field may be a password. */
            snprintf(msg, sizeof msg, "%s holds a NUL byte (U+0000), which no text may hold",
                     field);
            refuse(c, RPC_INVALID_ARGUMENT, "BAD_REQUEST", msg);
        } else if (unpacked != 0) {
            path_message(c, "malformed request for", msg, sizeof msg);
            refuse(c, RPC_INVALID_ARGUMENT, "BAD_REQUEST", msg);
        } else if (rpc_message_check_utf8(c->request, field, sizeof field) != 0) {
            snprintf(msg, sizeof msg, "%s is not valid UTF-8", field);
            refuse(c, RPC_INVALID_ARGUMENT, "NOT_UTF8", msg);
        } else if (c->srv->admit_hook && !c->srv->admit_hook(c->srv->admit_user, c)) {
            /* refused and finished by the hook */
        } else if (c->svc->by_index) {
            const rpc_method_entry *e = c->svc->by_index[c->method_index];
            if (!e->batched)
                run_turn_hook(c->srv);
            e->handler(c, c->request, c->svc->user);
        } else {
            run_turn_hook(c->srv);
            c->svc->handler(c, c->method_index, c->request, c->svc->user);
        }
    }
    if (bb)
        grpc_byte_buffer_destroy(bb);
    read_more(c);
    maybe_release(c);
}

static void on_send(rpc_call *c, bool success)
{
    c->tags_out--;
    c->send_busy = false;
    if (c->in_flight) {
        grpc_byte_buffer_destroy(c->in_flight);
        c->in_flight = NULL;
    }
    if (!success)
        mark_gone(c);
    else if (c->status_sent)
        c->status_ok = true;      /* one batch at a time: this was it */
    pump(c);
    read_more(c);                 /* the outbox may have room again */
    maybe_release(c);
}

static void on_close(rpc_call *c)
{
    c->tags_out--;
    c->close_seen = true;
    if (c->cancelled)
        mark_gone(c);
    maybe_release(c);
}

static void handle_event(rpc_server *srv, const grpc_event *ev)
{
    rpc__tag *t = ev->tag;
    switch (t->kind) {
    case TAG_REQUEST: {
        struct request_slot *slot = t->obj;
        slot->armed = false;
        if (ev->success)
            on_new_call(srv, slot);
        break;
    }
    case TAG_RECV:
        on_recv(t->obj, ev->success);
        break;
    case TAG_SEND:
        on_send(t->obj, ev->success);
        break;
    case TAG_CLOSE:
        on_close(t->obj);
        break;
    case TAG_SHUTDOWN:
        srv->shutdown_seen = true;
        break;
    }
}

/* ------------------------------------------------------------------------ */
/* Polling and shutdown                                                     */
/* ------------------------------------------------------------------------ */

int rpc_server_poll(rpc_server *srv, int timeout_ms)
{
    if (!srv->started || srv->shutting_down)
        return -1;
    gpr_timespec deadline = timeout_ms < 0
        ? gpr_inf_future(GPR_CLOCK_MONOTONIC)
        : gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                       gpr_time_from_millis(timeout_ms, GPR_TIMESPAN));
    for (;;) {
        if (atomic_exchange(&srv->wake, false))
            return 0;
        gpr_timespec until;
        if (timeout_ms == 0) {
            until = gpr_inf_past(GPR_CLOCK_MONOTONIC);
        } else {
            until = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                 gpr_time_from_millis(POLL_SLICE_MS, GPR_TIMESPAN));
            if (gpr_time_cmp(deadline, until) < 0)
                until = deadline;
        }
        srv->turn_started = 0;
        grpc_event ev = grpc_completion_queue_next(srv->cq, until, NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN)
            return -1;
        if (ev.type == GRPC_OP_COMPLETE) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            srv->turn_started = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
            handle_event(srv, &ev);
            for (int i = 0; i < POLL_BATCH; i++) {
                ev = grpc_completion_queue_next(srv->cq,
                                                gpr_inf_past(GPR_CLOCK_MONOTONIC), NULL);
                if (ev.type != GRPC_OP_COMPLETE)
                    break;
                handle_event(srv, &ev);
            }
            if (srv->turn_end_hook)
                srv->turn_end_hook(srv->turn_end_user);
            else
                run_turn_hook(srv);
            rpc__mux_flush_all(srv);
            return 0;
        }
        if (timeout_ms == 0 ||
            gpr_time_cmp(gpr_now(GPR_CLOCK_MONOTONIC), deadline) >= 0)
            return 0;
    }
}

size_t rpc_server_take_lost_requests(rpc_server *srv)
{
    size_t n = srv->lost_requests;
    srv->lost_requests = 0;
    return n;
}

void rpc_server_wake(rpc_server *srv)
{
    atomic_store(&srv->wake, true);
}

static bool slots_armed(const rpc_server *srv)
{
    for (size_t i = 0; i < REQUEST_SLOTS; i++)
        if (srv->slots[i].armed)
            return true;
    return false;
}

void rpc_server_destroy(rpc_server *srv)
{
    if (!srv)
        return;
    /* Shutdown is needed even unstarted: the listener exists since create. */
    srv->shutting_down = true;
    rpc__side_stopping(srv);
    grpc_server_shutdown_and_notify(srv->server, srv->cq, &srv->shutdown_tag);
    grpc_server_cancel_all_calls(srv->server);
    for (rpc_call *c = srv->calls; c; c = c->next)
        grpc_call_cancel(c->call, NULL);   /* belt and braces */
    /* Every call's batches come back (failed) after the cancel, so their done
     * callbacks run here with client_gone = false, and the pending
     * request_calls come back unsuccessful. */
    while (!srv->shutdown_seen || srv->live_calls > 0 || slots_armed(srv)) {
        grpc_event ev = grpc_completion_queue_next(
            srv->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
        if (ev.type != GRPC_OP_COMPLETE)
            break;
        handle_event(srv, &ev);
    }
    grpc_server_destroy(srv->server);
    rpc__side_stop(srv);
    tls_source_free(srv->tls);     /* after the listener: its fetcher reads it */
    grpc_completion_queue_shutdown(srv->cq);
    while (grpc_completion_queue_next(srv->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC),
                                      NULL).type != GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(srv->cq);
    for (size_t i = 0; i < REQUEST_SLOTS; i++) {
        grpc_call_details_destroy(&srv->slots[i].details);
        grpc_metadata_array_destroy(&srv->slots[i].md);
    }
    if (srv->has_last_sent)
        grpc_slice_unref(srv->last_sent);
    for (size_t s = 0; s < srv->n_services; s++) {
        free(srv->services[s].streaming);
        free(srv->services[s].by_index);
    }
    free(srv->services);
    free(srv);
}

size_t rpc__server_live_calls(const rpc_server *srv)
{
    return srv->live_calls;
}

/* ------------------------------------------------------------------------ */
/* Call API (polling thread only)                                           */
/* ------------------------------------------------------------------------ */

void rpc_call_on_done(rpc_call *call, rpc_done_cb cb, void *user)
{
    call->done = cb;
    call->done_user = user;
}

void rpc_call_on_message(rpc_call *call, rpc_message_cb cb, void *user,
                         void (*release)(void *user))
{
    if (call->msg_release && (call->msg_user != user || call->msg_release != release))
        call->msg_release(call->msg_user);
    call->on_msg = call->client_streaming ? cb : NULL;
    call->msg_user = user;
    call->msg_release = release;
}

static const grpc_metadata *find_md(const rpc_call *call, const char *key)
{
    for (size_t i = 0; i < call->md.count; i++)
        if (grpc_slice_str_cmp(call->md.metadata[i].key, key) == 0)
            return &call->md.metadata[i];
    return NULL;
}

int rpc_call_metadata(const rpc_call *call, const char *key, char *buf, size_t len)
{
    if (call->parent)
        call = call->parent;
    const grpc_metadata *md = find_md(call, key);
    if (!md) {
        if (len > 0)
            buf[0] = '\0';
        return -1;
    }
    size_t n = rpc__slice_to_buf(md->value, buf, len);
    return n > (size_t)INT32_MAX ? INT32_MAX : (int)n;
}

int rpc_call_bearer(const rpc_call *call, char *buf, size_t len)
{
    if (call->parent)
        call = call->parent;
    const grpc_metadata *md = find_md(call, "authorization");
    if (!md) {
        if (len > 0)
            buf[0] = '\0';
        return -1;
    }
    return rpc__parse_bearer((const char *)GRPC_SLICE_START_PTR(md->value),
                             GRPC_SLICE_LENGTH(md->value), buf, len);
}

const char *rpc_call_peer(const rpc_call *call)
{
    if (call->parent)
        call = call->parent;
    return call->peer ? call->peer : "";
}

/* Queue a serialized message; takes the byte buffer (destroyed on failure). */
static int enqueue(rpc_call *c, grpc_byte_buffer *bb)
{
    if (c->multiplexed)
        rpc__mux_flush(c);    /* whatever its legs were sent goes first */
    if (!bb)
        return -1;
    struct outmsg *m = malloc(sizeof *m);
    if (!m) {
        grpc_byte_buffer_destroy(bb);
        return -1;
    }
    m->bb = bb;
    m->next = NULL;
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    c->queued++;
    return 0;
}

int rpc__call_enqueue(rpc_call *c, grpc_byte_buffer *bb)
{
    return enqueue(c, bb);
}

void rpc__call_pump(rpc_call *c)
{
    pump(c);
}

int rpc_call_reply(rpc_call *call, const ProtobufCMessage *reply)
{
    if (call->parent) {   /* a leg: its last message, then its end */
        int rc = rpc_call_send(call, reply);
        return rpc__leg_finish(call, RPC_OK, NULL, "") == 0 ? rc : -1;
    }
    if (call->finishing || call->over)
        return -1;
    if (call->gone) {
        call->finishing = true;
        call->fin_details = grpc_slice_from_static_string("");
        return -1;
    }
    if (enqueue(call, rpc__pack(reply)) != 0) {
        finish_internal(call, RPC_INTERNAL, "out of memory");
        return -1;
    }
    finish_internal(call, RPC_OK, "");
    return 0;
}

int rpc_call_send(rpc_call *call, const ProtobufCMessage *msg)
{
    if (call->parent) {
        size_t len = protobuf_c_message_get_packed_size(msg);
        uint8_t *data = malloc(len ? len : 1);
        if (!data)
            return -1;
        protobuf_c_message_pack(msg, data);
        int rc = rpc__leg_send(call, data, len);
        free(data);
        return rc;
    }
    if (call->finishing || call->over || call->gone)
        return -1;
    if (rpc_call_outbox_len(call) >= call->srv->outbox_limit)
        return -2;
    if (enqueue(call, rpc__pack(msg)) != 0)
        return -1;
    pump(call);
    return 0;
}

grpc_slice rpc__shared_slice(rpc_server *srv, const void *data, size_t len)
{
    if (!srv->has_last_sent || GRPC_SLICE_LENGTH(srv->last_sent) != len ||
        memcmp(GRPC_SLICE_START_PTR(srv->last_sent), data, len) != 0) {
        if (srv->has_last_sent)
            grpc_slice_unref(srv->last_sent);
        srv->last_sent = grpc_slice_from_copied_buffer(data, len);
        srv->has_last_sent = true;
    }
    return grpc_slice_ref(srv->last_sent);
}

static grpc_byte_buffer *shared_bytes(rpc_server *srv, const void *data, size_t len)
{
    grpc_slice s = rpc__shared_slice(srv, data, len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);   /* takes its own reference */
    grpc_slice_unref(s);
    return bb;
}

int rpc_call_send_packed(rpc_call *call, const void *data, size_t len)
{
    if (call->parent)
        return rpc__leg_send(call, data, len);
    if (call->finishing || call->over || call->gone)
        return -1;
    if (rpc_call_outbox_len(call) >= call->srv->outbox_limit)
        return -2;
    if (enqueue(call, shared_bytes(call->srv, data, len)) != 0)
        return -1;
    pump(call);
    return 0;
}

size_t rpc_call_outbox_len(const rpc_call *call)
{
    if (call->parent)
        call = call->parent;
    return call->queued + (call->in_flight ? 1 : 0);
}

int rpc_call_finish_elsewhere(rpc_call *call, rpc_code code, const char *reason,
                              const char *endpoint, const char *message)
{
    rpc_server *srv = call->srv;
    if (code != RPC_OK && srv && srv->refusal_hook && !call->finishing && !call->over)
        srv->refusal_hook(srv->refusal_user, code, reason);
    if (call->parent)
        return rpc__leg_finish(call, code, reason, message);
    if (call->finishing || call->over)
        return -1;
    if (reason && !call->gone)
        add_trailer(call, RPC_REASON_KEY, grpc_slice_from_copied_string(reason));
    if (endpoint && !call->gone)
        add_trailer(call, RPC_ENDPOINT_KEY, grpc_slice_from_copied_string(endpoint));
    return rpc_call_finish(call, code, message);
}

int rpc_call_finish_reason(rpc_call *call, rpc_code code, const char *reason,
                           const char *message)
{
    return rpc_call_finish_elsewhere(call, code, reason, NULL, message);
}

int rpc_call_finish(rpc_call *call, rpc_code code, const char *message)
{
    if (call->parent)
        return rpc__leg_finish(call, code, NULL, message);
    if (call->finishing || call->over)
        return -1;
    if (call->gone) {
        /* Nothing can be sent; remember it was finished all the same. */
        call->finishing = true;
        call->fin_details = grpc_slice_from_static_string("");
        return -1;
    }
    finish_internal(call, code, message);
    return 0;
}
