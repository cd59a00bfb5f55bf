/*
 * rpc_side.c — unary methods answered on a thread of their own, not by
 * rpc_server_poll(): what must be answered while the polling thread is busy
 * or stuck (health: "is this service's loop alive?" cannot be asked of the
 * loop). See rpc_server_add_side_method in rpc.h.
 *
 * Each side method is registered with gRPC (grpc_server_register_method), so
 * its calls never reach the server's generic requests: they are matched on
 * the side completion queue, which only the side thread polls. The request
 * comes with the call (GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER), and one
 * batch sends the whole answer, so a call costs two completions and no state
 * between them but itself.
 *
 * A side stream (rpc_server_add_side_stream) is a server-streaming method
 * answered the same way, again and again: its answer is asked for at once
 * and at every turn of the side thread (each SIDE_WAIT_MS), and sent when
 * its bytes differ from the last ones sent. A stream has one send in flight
 * at most (gRPC's rule) and one RECV_CLOSE_ON_SERVER, which comes back when
 * the client leaves (or the server cancels the call at shutdown); it is
 * freed once both are back. The cost of asking instead of being told: a
 * change is seen up to SIDE_WAIT_MS late, and each open stream's answer is
 * computed ten times a second (from atomics: nothing). Streams are capped
 * in all and per client address (rpc_side_stream_limits), since each holds
 * a call on a thread that answers everyone's health checks.
 *
 * A side bidi stream (rpc_server_add_side_bidi) answers each request the
 * client sends with one reply, in order: it receives one request, sends its
 * answer, and only then receives the next, so it too has one send (and one
 * receive) in flight. When the client is done sending, the status is OK.
 *
 * Threads: rpc__side_* run on the thread that owns the server (create, start,
 * destroy); everything else runs on the side thread.
 */
#include "rpc_server_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/support/alloc.h>
#include <grpc/support/log.h>

#include "address.h"

#define SIDE_METHODS_MAX 8
#define SIDE_WAIT_MS 100

enum { SIDE_REQUEST, SIDE_ANSWERED, SIDE_SENT, SIDE_CLOSED, SIDE_RECEIVED };

struct side_method {
    rpc__tag tag;                    /* SIDE_REQUEST: a call matched */
    struct rpc_side *side;
    const ProtobufCMethodDescriptor *desc;
    rpc_side_answer answer;
    void *user;
    void *registered;                /* grpc_server_register_method's handle */
    grpc_call *call;                 /* the one request outstanding */
    gpr_timespec deadline;
    grpc_metadata_array md;
    grpc_byte_buffer *payload;
    bool armed;
    bool streaming;                  /* rpc_server_add_side_stream or _bidi */
    bool bidi;                       /* rpc_server_add_side_bidi */
    rpc_side_stream_limits limits;   /* ...and its caps */
    size_t n_streams;                /* its streams open */
};

/* An open side stream: freed when its close and its last send are back. */
struct side_stream {
    rpc__tag t_send;                 /* SIDE_SENT */
    rpc__tag t_close;                /* SIDE_CLOSED */
    rpc__tag t_recv;                 /* SIDE_RECEIVED (bidi) */
    struct side_stream *next;        /* in rpc_side.streams */
    struct side_method *m;
    grpc_call *call;
    ProtobufCMessage *request;       /* asked again at every turn (NULL: bidi) */
    grpc_byte_buffer *received;      /* bidi: RECV_MESSAGE's */
    char host[ADDRESS_HOST_BYTES];   /* the client's address, for its cap */
    grpc_byte_buffer *in_flight;     /* the send batch's message */
    uint8_t *last;                   /* the bytes last sent (NULL: nothing yet) */
    size_t last_len;
    grpc_slice details;              /* of the status, once one is sent */
    int cancelled;                   /* RECV_CLOSE_ON_SERVER's */
    bool md_sent, send_busy, close_seen, finished;
    bool recv_busy;                  /* bidi: a RECV_MESSAGE in flight */
};

/* A call being answered: freed when its batch comes back. */
struct side_call {
    rpc__tag tag;                    /* SIDE_ANSWERED */
    grpc_call *call;
    grpc_byte_buffer *reply;
    grpc_slice details;
    int cancelled;
};

struct rpc_side {
    grpc_completion_queue *cq;
    struct side_method methods[SIDE_METHODS_MAX];
    size_t n_methods;
    struct side_stream *streams;     /* open side streams */
    pthread_t thread;
    bool running;
    atomic_bool stopping;            /* set by the owner before shutdown */
};

static void arm(struct rpc_server *srv, struct side_method *m)
{
    if (atomic_load(&m->side->stopping))
        return;
    grpc_metadata_array_destroy(&m->md);
    grpc_metadata_array_init(&m->md);
    m->payload = NULL;
    grpc_call_error err = grpc_server_request_registered_call(
        srv->server, m->registered, &m->call, &m->deadline, &m->md,
        m->bidi ? NULL : &m->payload,      /* a bidi stream reads its own requests */
        m->side->cq, m->side->cq, &m->tag);
    m->armed = err == GRPC_CALL_OK;
    if (!m->armed)
        gpr_log(GPR_ERROR, "rpc: cannot wait for %s calls: %d", m->desc->name, (int)err);
}

/* A request of m's (payload: its bytes, NULL when none came), decoded and
 * checked; NULL with a status and a sentence when it cannot be. Freed with
 * protobuf_c_message_free_unpacked. */
static ProtobufCMessage *decode_request(struct side_method *m, grpc_byte_buffer *payload,
                                        grpc_status_code *status, char *why, size_t whylen)
{
    ProtobufCMessage *request = NULL;
    char where[128];
    int unpacked = payload ? rpc__unpack_checked(m->desc->input, payload, &request, where,
                                                 sizeof where)
                           : -1;
    *status = GRPC_STATUS_INVALID_ARGUMENT;
    if (unpacked == -2) {
        snprintf(why, whylen, "%s holds a NUL byte (U+0000), which no text may hold", where);
        return NULL;
    }
    if (!request) {
        snprintf(why, whylen, "the request cannot be decoded");
        return NULL;
    }
    if (rpc_message_check_utf8(request, where, sizeof where) != 0) {
        protobuf_c_message_free_unpacked(request, NULL);
        snprintf(why, whylen, "the request holds text that is not valid UTF-8 (in %s)", where);
        return NULL;
    }
    return request;
}

/* The method's answer to request, packed into bytes (malloc'ed, *len long),
 * or why there is none. */
static grpc_status_code answer_request(struct side_method *m, const ProtobufCMessage *request,
                                       uint8_t **bytes, size_t *len, char *why, size_t whylen)
{
    *bytes = NULL;
    *len = 0;
    const ProtobufCMessageDescriptor *out = m->desc->output;
    ProtobufCMessage *msg = calloc(1, out->sizeof_message);
    if (!msg) {
        snprintf(why, whylen, "out of memory");
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    }
    out->message_init(msg);
    rpc_code code = m->answer(request, msg, why, whylen, m->user);
    if (code == RPC_OK) {
        *len = protobuf_c_message_get_packed_size(msg);
        *bytes = malloc(*len ? *len : 1);
        if (*bytes)
            protobuf_c_message_pack(msg, *bytes);
    }
    free(msg);                       /* its strings are the answer's, not ours */
    if (code != RPC_OK)
        return (grpc_status_code)code;
    if (!*bytes) {
        snprintf(why, whylen, "out of memory");
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    }
    return GRPC_STATUS_OK;
}

/* The reply the method's answer filled, or why there is none. */
static grpc_status_code answer_call(struct side_method *m, grpc_byte_buffer **reply,
                                    char *why, size_t whylen)
{
    *reply = NULL;
    grpc_status_code status;
    ProtobufCMessage *request = decode_request(m, m->payload, &status, why, whylen);
    if (!request)
        return status;
    uint8_t *bytes;
    size_t len;
    status = answer_request(m, request, &bytes, &len, why, whylen);
    protobuf_c_message_free_unpacked(request, NULL);
    if (status != GRPC_STATUS_OK)
        return status;
    *reply = rpc__pack_raw(bytes, len);
    free(bytes);
    if (!*reply) {
        snprintf(why, whylen, "out of memory");
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    }
    return GRPC_STATUS_OK;
}

/* One batch: metadata, the reply (if any), the status, and the close.
 * Takes gc and reply. */
static void answer_once(struct side_method *m, grpc_call *gc, grpc_byte_buffer *reply,
                        grpc_status_code status, const char *why)
{
    struct side_call *sc = calloc(1, sizeof *sc);
    if (!sc) {
        grpc_call_unref(gc);          /* no batch started: this cancels it */
        grpc_byte_buffer_destroy(reply);
        return;
    }
    sc->tag.kind = SIDE_ANSWERED;
    sc->tag.obj = sc;
    sc->call = gc;
    sc->reply = reply;
    sc->details = grpc_slice_from_copied_string(status == GRPC_STATUS_OK ? "" : why);
    grpc_op ops[4];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (sc->reply) {
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = sc->reply;
    }
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = status;
    ops[n++].data.send_status_from_server.status_details = &sc->details;
    ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    ops[n++].data.recv_close_on_server.cancelled = &sc->cancelled;
    if (grpc_call_start_batch(gc, ops, n, &sc->tag, NULL) != GRPC_CALL_OK) {
        gpr_log(GPR_ERROR, "rpc: cannot answer a %s call", m->desc->name);
        grpc_call_cancel(gc, NULL);
        grpc_call_unref(gc);
        grpc_byte_buffer_destroy(sc->reply);
        grpc_slice_unref(sc->details);
        free(sc);
    }
}

/* A stream is freed once its close and its last send are back. */
static void stream_maybe_free(struct side_stream *st)
{
    if (!st->close_seen || st->send_busy || st->recv_busy)
        return;
    struct rpc_side *side = st->m->side;
    for (struct side_stream **p = &side->streams; *p; p = &(*p)->next) {
        if (*p == st) {
            *p = st->next;
            break;
        }
    }
    st->m->n_streams--;
    grpc_call_unref(st->call);
    if (st->request)
        protobuf_c_message_free_unpacked(st->request, NULL);
    free(st->last);
    grpc_slice_unref(st->details);
    free(st);
}

/* Start st's one send: a message (msg non-NULL; taken) or its status. */
static void stream_send(struct side_stream *st, grpc_byte_buffer *msg, grpc_status_code status,
                        const char *why)
{
    grpc_op ops[2];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    if (!st->md_sent)
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (msg) {
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = msg;
    } else {
        grpc_slice_unref(st->details);
        st->details = grpc_slice_from_copied_string(why);
        ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
        ops[n].data.send_status_from_server.status = status;
        ops[n++].data.send_status_from_server.status_details = &st->details;
        st->finished = true;
    }
    if (grpc_call_start_batch(st->call, ops, n, &st->t_send, NULL) != GRPC_CALL_OK) {
        /* The call is broken: cancelled, its close comes back and frees it. */
        gpr_log(GPR_ERROR, "rpc: cannot send on a %s stream", st->m->desc->name);
        grpc_byte_buffer_destroy(msg);
        st->finished = true;
        grpc_call_cancel(st->call, NULL);
        return;
    }
    st->md_sent = true;
    st->in_flight = msg;
    st->send_busy = true;
}

/* Ask st's answer again; send it when it changed (or end the stream when
 * the answer is a refusal). Nothing while a send is in flight: the next
 * turn asks again. */
static void stream_turn(struct side_stream *st)
{
    if (st->m->bidi)
        return;                       /* answers what it receives, not turns */
    if (st->send_busy || st->close_seen || st->finished || atomic_load(&st->m->side->stopping))
        return;
    char why[256] = "";
    uint8_t *bytes;
    size_t len;
    grpc_status_code status = answer_request(st->m, st->request, &bytes, &len, why, sizeof why);
    if (status != GRPC_STATUS_OK) {
        stream_send(st, NULL, status, why);
        return;
    }
    if (st->last && len == st->last_len && memcmp(bytes, st->last, len) == 0) {
        free(bytes);                  /* nothing new */
        return;
    }
    grpc_byte_buffer *msg = rpc__pack_raw(bytes, len);
    if (!msg) {
        free(bytes);                  /* asked again at the next turn */
        return;
    }
    free(st->last);
    st->last = bytes;
    st->last_len = len;
    stream_send(st, msg, GRPC_STATUS_OK, NULL);
}

/* bidi: wait for the client's next request (one at a time: it is answered
 * before the next is read, so one send and one receive at most). */
static void stream_receive(struct side_stream *st)
{
    if (st->finished || st->close_seen || st->recv_busy)
        return;
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &st->received;
    if (grpc_call_start_batch(st->call, &op, 1, &st->t_recv, NULL) != GRPC_CALL_OK) {
        gpr_log(GPR_ERROR, "rpc: cannot receive on a %s stream", st->m->desc->name);
        st->finished = true;
        grpc_call_cancel(st->call, NULL);
        return;
    }
    st->recv_busy = true;
}

static void on_stream_sent(struct side_stream *st, bool success)
{
    st->send_busy = false;
    grpc_byte_buffer_destroy(st->in_flight);
    st->in_flight = NULL;
    if (!success)
        st->finished = true;          /* the call is over: its close comes back */
    if (st->m->bidi)
        stream_receive(st);
    stream_maybe_free(st);
}

/* bidi: a request came (answered at once), or the client is done sending
 * (then the status, OK). */
static void on_stream_received(struct side_stream *st, bool success)
{
    st->recv_busy = false;
    grpc_byte_buffer *bb = st->received;
    st->received = NULL;
    if (!success || st->finished || st->close_seen || atomic_load(&st->m->side->stopping)) {
        grpc_byte_buffer_destroy(bb);
        stream_maybe_free(st);
        return;
    }
    if (!bb) {                        /* half-closed: every request was answered */
        stream_send(st, NULL, GRPC_STATUS_OK, "");
        return;
    }
    struct side_method *m = st->m;
    char why[256] = "";
    grpc_status_code status;
    ProtobufCMessage *request = decode_request(m, bb, &status, why, sizeof why);
    grpc_byte_buffer_destroy(bb);
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (request) {
        status = answer_request(m, request, &bytes, &len, why, sizeof why);
        protobuf_c_message_free_unpacked(request, NULL);
    }
    grpc_byte_buffer *msg = status == GRPC_STATUS_OK ? rpc__pack_raw(bytes, len) : NULL;
    free(bytes);
    if (status == GRPC_STATUS_OK && !msg) {
        status = GRPC_STATUS_RESOURCE_EXHAUSTED;
        snprintf(why, sizeof why, "out of memory");
    }
    stream_send(st, msg, status, why);
}

static void on_stream_closed(struct side_stream *st)
{
    st->close_seen = true;
    stream_maybe_free(st);
}

/* A call of a side stream: within the caps, a stream that starts with its
 * first answer; else refused with a status. */
static void open_stream(struct side_method *m, grpc_call *gc)
{
    struct rpc_side *side = m->side;
    char why[256] = "";
    grpc_status_code status;
    ProtobufCMessage *request = NULL;
    if (!m->bidi && !(request = decode_request(m, m->payload, &status, why, sizeof why))) {
        answer_once(m, gc, NULL, status, why);
        return;
    }
    char host[ADDRESS_HOST_BYTES] = "";
    char *peer = grpc_call_get_peer(gc);
    address_host(peer ? peer : "", m->limits.ipv6_prefix, host, sizeof host);
    gpr_free(peer);
    int from_host = 0;
    for (struct side_stream *o = side->streams; o; o = o->next)
        from_host += o->m == m && strcmp(o->host, host) == 0;
    struct side_stream *st = NULL;
    if (m->n_streams >= (size_t)m->limits.max_streams)
        snprintf(why, sizeof why, "the service has %d %s streams open, the most it keeps "
                 "(%s): try again later", m->limits.max_streams, m->desc->name,
                 m->limits.flag ? m->limits.flag : "a limit of the service");
    else if (from_host >= m->limits.max_per_address)
        snprintf(why, sizeof why, "your address has %d %s streams open, the most one address "
                 "may have: close one first", from_host, m->desc->name);
    else if (!(st = calloc(1, sizeof *st)))
        snprintf(why, sizeof why, "out of memory");
    if (!st) {
        if (request)
            protobuf_c_message_free_unpacked(request, NULL);
        answer_once(m, gc, NULL, GRPC_STATUS_RESOURCE_EXHAUSTED, why);
        return;
    }
    st->t_send = (rpc__tag){SIDE_SENT, st};
    st->t_close = (rpc__tag){SIDE_CLOSED, st};
    st->t_recv = (rpc__tag){SIDE_RECEIVED, st};
    st->m = m;
    st->call = gc;
    st->request = request;
    snprintf(st->host, sizeof st->host, "%s", host);
    st->details = grpc_empty_slice();
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &st->cancelled;
    if (grpc_call_start_batch(gc, &op, 1, &st->t_close, NULL) != GRPC_CALL_OK) {
        gpr_log(GPR_ERROR, "rpc: cannot open a %s stream", m->desc->name);
        grpc_call_cancel(gc, NULL);
        grpc_call_unref(gc);
        if (request)
            protobuf_c_message_free_unpacked(request, NULL);
        free(st);
        return;
    }
    st->next = side->streams;
    side->streams = st;
    m->n_streams++;
    if (m->bidi)
        stream_receive(st);           /* the first request */
    else
        stream_turn(st);              /* the first answer at once */
}

static void on_request(struct rpc_server *srv, struct side_method *m)
{
    grpc_call *gc = m->call;
    m->call = NULL;
    if (m->streaming) {
        open_stream(m, gc);
        grpc_byte_buffer_destroy(m->payload);
        arm(srv, m);
        return;
    }
    char why[256] = "";
    grpc_byte_buffer *reply;
    grpc_status_code status = answer_call(m, &reply, why, sizeof why);
    grpc_byte_buffer_destroy(m->payload);
    arm(srv, m);                      /* the next caller waits on gRPC, not on us */
    answer_once(m, gc, reply, status, why);
}

static void on_answered(struct side_call *sc)
{
    grpc_call_unref(sc->call);
    grpc_byte_buffer_destroy(sc->reply);
    grpc_slice_unref(sc->details);
    free(sc);
}

/* Every open stream asked again, once per SIDE_WAIT_MS at most. */
static void turn_streams(struct rpc_side *side, gpr_timespec *next_turn)
{
    gpr_timespec now = gpr_now(GPR_CLOCK_MONOTONIC);
    if (gpr_time_cmp(now, *next_turn) < 0)
        return;
    *next_turn = gpr_time_add(now, gpr_time_from_millis(SIDE_WAIT_MS, GPR_TIMESPAN));
    for (struct side_stream *st = side->streams; st; st = st->next)
        stream_turn(st);              /* frees nothing: only completions do */
}

/* Until the queue is shut down (rpc__side_stop), after the server's. */
static void *side_main(void *arg)
{
    struct rpc_server *srv = arg;
    struct rpc_side *side = srv->side;
    gpr_timespec next_turn = gpr_now(GPR_CLOCK_MONOTONIC);
    for (;;) {
        /* Short waits, as rpc_server_poll's: a thread waiting on a queue
         * while another polls the network sleeps on a condition whose
         * deadline gRPC takes from the wall clock. Under a faked wall clock
         * (libfaketime, used to test clocks that are off) such a wait never
         * ended, and the loop only turned when a call came. */
        grpc_event ev = grpc_completion_queue_next(side->cq, rpc__deadline_ms(SIDE_WAIT_MS),
                                                   NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN)
            return NULL;
        if (ev.type == GRPC_OP_COMPLETE) {
            rpc__tag *t = ev.tag;
            if (t->kind == SIDE_ANSWERED) {
                on_answered(t->obj);
            } else if (t->kind == SIDE_SENT) {
                on_stream_sent(t->obj, ev.success);
            } else if (t->kind == SIDE_CLOSED) {
                on_stream_closed(t->obj);
            } else if (t->kind == SIDE_RECEIVED) {
                on_stream_received(t->obj, ev.success);
            } else {
                struct side_method *m = t->obj;
                m->armed = false;
                if (ev.success)
                    on_request(srv, m);   /* else the server is shutting down */
            }
        }
        turn_streams(side, &next_turn);
    }
}

/* m registered with gRPC, or NULL. */
static struct side_method *add_method(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                                      const char *method, const char *service_name,
                                      bool bidi, rpc_side_answer answer, void *user)
{
    const ProtobufCMethodDescriptor *desc = protobuf_c_service_descriptor_get_method_by_name(
        svc, method);
    if (!desc || srv->started || !answer) {
        gpr_log(GPR_ERROR, "rpc: cannot answer %s.%s on the side", svc->name, method);
        return NULL;
    }
    if (!srv->side) {
        srv->side = calloc(1, sizeof *srv->side);
        if (!srv->side)
            return NULL;
        atomic_init(&srv->side->stopping, false);
        srv->side->cq = grpc_completion_queue_create_for_next(NULL);
        if (!srv->side->cq) {
            free(srv->side);
            srv->side = NULL;
            return NULL;
        }
        grpc_server_register_completion_queue(srv->server, srv->side->cq, NULL);
    }
    struct rpc_side *side = srv->side;
    if (side->n_methods == SIDE_METHODS_MAX)
        return NULL;
    char path[256];
    snprintf(path, sizeof path, "/%s/%s", service_name ? service_name : svc->name, method);
    void *registered = grpc_server_register_method(
        srv->server, path, NULL,
        bidi ? GRPC_SRM_PAYLOAD_NONE : GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
    if (!registered)
        return NULL;
    struct side_method *m = &side->methods[side->n_methods++];
    m->tag.kind = SIDE_REQUEST;
    m->tag.obj = m;
    m->side = side;
    m->desc = desc;
    m->answer = answer;
    m->user = user;
    m->registered = registered;
    grpc_metadata_array_init(&m->md);
    return m;
}

int rpc_server_add_side_method(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                               const char *method, rpc_side_answer answer, void *user)
{
    return add_method(srv, svc, method, NULL, false, answer, user) ? 0 : -1;
}

int rpc_server_add_side_stream(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                               const char *method, rpc_side_answer answer,
                               const rpc_side_stream_limits *limits, void *user)
{
    if (!limits || limits->max_streams < 1 || limits->max_per_address < 1 ||
        limits->ipv6_prefix < 1 || limits->ipv6_prefix > 128)
        return -1;
    struct side_method *m = add_method(srv, svc, method, NULL, false, answer, user);
    if (!m)
        return -1;
    m->streaming = true;
    m->limits = *limits;
    return 0;
}

int rpc_server_add_side_bidi(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                             const char *method, const char *service_name,
                             rpc_side_answer answer, const rpc_side_stream_limits *limits,
                             void *user)
{
    if (!limits || limits->max_streams < 1 || limits->max_per_address < 1 ||
        limits->ipv6_prefix < 1 || limits->ipv6_prefix > 128)
        return -1;
    struct side_method *m = add_method(srv, svc, method, service_name, true, answer, user);
    if (!m)
        return -1;
    m->streaming = true;
    m->bidi = true;
    m->limits = *limits;
    return 0;
}

int rpc__side_start(rpc_server *srv)
{
    struct rpc_side *side = srv->side;
    if (!side)
        return 0;
    for (size_t i = 0; i < side->n_methods; i++)
        arm(srv, &side->methods[i]);
    if (pthread_create(&side->thread, NULL, side_main, srv) != 0)
        return -1;
    side->running = true;
    return 0;
}

void rpc__side_stopping(rpc_server *srv)
{
    if (srv->side)
        atomic_store(&srv->side->stopping, true);
}

/* After grpc_server_destroy: no call can match any more, and those under
 * way were cancelled, so the queue drains and the thread ends. */
void rpc__side_stop(rpc_server *srv)
{
    struct rpc_side *side = srv->side;
    if (!side)
        return;
    grpc_completion_queue_shutdown(side->cq);
    if (side->running) {
        pthread_join(side->thread, NULL);
    } else {
        while (grpc_completion_queue_next(side->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC),
                                          NULL).type != GRPC_QUEUE_SHUTDOWN) {
        }
    }
    grpc_completion_queue_destroy(side->cq);
    for (size_t i = 0; i < side->n_methods; i++)
        grpc_metadata_array_destroy(&side->methods[i].md);
    free(side);
    srv->side = NULL;
}
