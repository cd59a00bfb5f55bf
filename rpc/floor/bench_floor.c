/*
 * bench_floor.c — the Echo service straight on gRPC core (see bench_floor.h).
 *
 * Every operation posted to the completion queue carries an op_tag naming
 * what finished and whose it is. The loop thread counts the tags the queue
 * still owes it (`outstanding`), so that at shutdown it can keep draining
 * until every call has been released.
 *
 * A call lives in a floor_call from the moment grpc_server_request_call hands
 * it over until its last batch completes; RECV_CLOSE_ON_SERVER is always one
 * of them, so a call is never freed before the client has gone.
 */
#include "bench_floor.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>

#include "bench_echo.pb-c.h"

#define N_SLOTS   64    /* request_call slots kept armed: clients arriving at once */
#define PUSH_BODY 128   /* as the rpc-layer echo: about a MoveMade event */

typedef enum tag_kind {
    TAG_NEW_CALL,   /* a request_call slot was filled */
    TAG_RECEIVED,   /* the request message arrived */
    TAG_REPLIED,    /* a unary reply (or error status) went out */
    TAG_SENT,       /* a Watch stream's message (hello or push) went out */
    TAG_CLOSED,     /* RECV_CLOSE_ON_SERVER: the call is over for the client */
    TAG_SHUTDOWN,   /* grpc_server_shutdown_and_notify */
} tag_kind;

typedef struct op_tag {
    tag_kind kind;
    void *owner;    /* call_slot, floor_call or bench_floor, by kind */
} op_tag;

typedef enum method { M_UNKNOWN, M_SAY, M_WATCH, M_PUSH } method;

typedef struct floor_call {
    struct bench_floor *floor;
    grpc_call *call;
    method method;
    int batches;                  /* started, not yet completed; freed at 0 */
    op_tag received, replied, sent, closed;
    grpc_byte_buffer *request;    /* filled by RECV_MESSAGE; NULL if none */
    grpc_byte_buffer *reply;      /* the unary reply in flight */
    grpc_slice status_details;
    int client_cancelled;         /* filled by RECV_CLOSE_ON_SERVER */
    bool over;                    /* RECV_CLOSE_ON_SERVER has completed */
    /* Watch only: one send in flight, at most one waiting behind it. */
    grpc_byte_buffer *in_flight;
    grpc_byte_buffer *pending;
    bool watching;                /* in floor->watchers at watch_index */
    size_t watch_index;
} floor_call;

typedef struct call_slot {
    op_tag tag;
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array metadata;
} call_slot;

struct bench_floor {
    grpc_server *server;
    grpc_completion_queue *cq;
    pthread_t loop;
    char target[32];
    int outstanding;              /* tags the queue owes us; loop thread only */
    op_tag shutdown_tag;
    call_slot slots[N_SLOTS];
    floor_call **watchers;        /* open Watch streams; loop thread only */
    size_t n_watchers, cap_watchers;
    uint8_t body[PUSH_BODY];
};

/* ------------------------------------------------------------- batches */

/* gRPC rejects a batch only when it is malformed (two sends in flight, a
 * closed call...), which would be a bug in this file: say so and stop. */
static void start_batch(floor_call *c, const grpc_op *ops, size_t n, op_tag *tag)
{
    grpc_call_error err = grpc_call_start_batch(c->call, ops, n, tag, NULL);
    if (err != GRPC_CALL_OK) {
        fprintf(stderr, "bench_floor: grpc_call_start_batch failed (%d)\n", (int)err);
        abort();
    }
    c->batches++;
    c->floor->outstanding++;
}

static void post_receive(floor_call *c)
{
    grpc_op op = {.op = GRPC_OP_RECV_MESSAGE};
    op.data.recv_message.recv_message = &c->request;
    start_batch(c, &op, 1, &c->received);
}

static void post_recv_close(floor_call *c)
{
    grpc_op op = {.op = GRPC_OP_RECV_CLOSE_ON_SERVER};
    op.data.recv_close_on_server.cancelled = &c->client_cancelled;
    start_batch(c, &op, 1, &c->closed);
}

/* Ends a unary call: headers, the message (if any; owned by c until the
 * batch completes) and the status, in one batch. */
static void reply(floor_call *c, grpc_byte_buffer *msg, grpc_status_code code,
                  const char *details)
{
    grpc_op ops[3];
    size_t n = 0;
    memset(ops, 0, sizeof ops);
    ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (msg) {
        c->reply = msg;
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = msg;
    }
    c->status_details = grpc_slice_from_static_string(details);
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = code;
    ops[n++].data.send_status_from_server.status_details = &c->status_details;
    start_batch(c, ops, n, &c->replied);
}

/* One message on a Watch stream; the hello also carries the headers. */
static void watch_send(floor_call *c, grpc_byte_buffer *msg, bool with_headers)
{
    grpc_op ops[2];
    size_t n = 0;
    memset(ops, 0, sizeof ops);
    if (with_headers)
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n++].data.send_message.send_message = msg;
    c->in_flight = msg;
    start_batch(c, ops, n, &c->sent);
}

/* --------------------------------------------------------------- calls */

static void free_call(floor_call *c)
{
    grpc_byte_buffer *buffers[] = {c->request, c->reply, c->in_flight, c->pending};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        if (buffers[i])
            grpc_byte_buffer_destroy(buffers[i]);
    grpc_call_unref(c->call);
    free(c);
}

static void batch_done(floor_call *c)
{
    if (--c->batches == 0)
        free_call(c);
}

static bool add_watcher(bench_floor *f, floor_call *c)
{
    if (f->n_watchers == f->cap_watchers) {
        size_t cap = f->cap_watchers ? f->cap_watchers * 2 : 256;
        floor_call **grown = realloc(f->watchers, cap * sizeof *grown);
        if (!grown)
            return false;
        f->watchers = grown;
        f->cap_watchers = cap;
    }
    c->watch_index = f->n_watchers;
    c->watching = true;
    f->watchers[f->n_watchers++] = c;
    return true;
}

static void drop_watcher(bench_floor *f, floor_call *c)
{
    if (!c->watching)
        return;
    floor_call *last = f->watchers[--f->n_watchers];
    f->watchers[c->watch_index] = last;
    last->watch_index = c->watch_index;
    c->watching = false;
    if (c->pending) {   /* nobody will read it now */
        grpc_byte_buffer_destroy(c->pending);
        c->pending = NULL;
    }
}

/* Push's message to one watcher: now, or after the send in flight (the newest
 * replaces an older pending one, so a slow reader costs at most two). */
static void offer(floor_call *w, grpc_byte_buffer *msg)
{
    if (!w->in_flight) {
        watch_send(w, msg, false);
        return;
    }
    if (w->pending)
        grpc_byte_buffer_destroy(w->pending);
    w->pending = msg;
}

/* The request's seq (field 2), or -1 if it is not a Msg. No message at all
 * is an empty Msg. */
static int request_seq(grpc_byte_buffer *request, uint64_t *seq)
{
    *seq = 0;
    if (!request)
        return 0;
    grpc_byte_buffer_reader reader;
    if (!grpc_byte_buffer_reader_init(&reader, request))
        return -1;
    grpc_slice bytes = grpc_byte_buffer_reader_readall(&reader);
    grpc_byte_buffer_reader_destroy(&reader);
    Sungkabench__Msg *msg = sungkabench__msg__unpack(NULL, GRPC_SLICE_LENGTH(bytes),
                                                     GRPC_SLICE_START_PTR(bytes));
    grpc_slice_unref(bytes);
    if (!msg)
        return -1;
    *seq = msg->seq;
    sungkabench__msg__free_unpacked(msg, NULL);
    return 0;
}

static void handle_push(bench_floor *f, floor_call *c)
{
    uint64_t seq;
    if (request_seq(c->request, &seq) != 0) {
        reply(c, NULL, GRPC_STATUS_INVALID_ARGUMENT, "not a Msg");
        return;
    }
    /* Encode once into one slice; grpc_raw_byte_buffer_create takes a
     * reference on it per watcher, so every stream sends the same bytes. */
    Sungkabench__Msg out = SUNGKABENCH__MSG__INIT;
    out.seq = seq;
    out.body.data = f->body;
    out.body.len = sizeof f->body;
    grpc_slice shared = grpc_slice_malloc(sungkabench__msg__get_packed_size(&out));
    sungkabench__msg__pack(&out, GRPC_SLICE_START_PTR(shared));
    for (size_t i = 0; i < f->n_watchers; i++)
        offer(f->watchers[i], grpc_raw_byte_buffer_create(&shared, 1));
    grpc_slice_unref(shared);
    reply(c, grpc_raw_byte_buffer_create(NULL, 0), GRPC_STATUS_OK, "");   /* empty Msg */
}

/* The request message is in (or the client half-closed without one). */
static void on_received(bench_floor *f, floor_call *c, bool ok)
{
    if (!ok || c->over)
        return;   /* cancelled before we could answer: nothing to do */
    switch (c->method) {
    case M_SAY: {   /* the request itself is the reply, now owned as c->reply */
        grpc_byte_buffer *echo = c->request ? c->request : grpc_raw_byte_buffer_create(NULL, 0);
        c->request = NULL;
        reply(c, echo, GRPC_STATUS_OK, "");
        break;
    }
    case M_WATCH:
        if (!add_watcher(f, c)) {
            reply(c, NULL, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
            break;
        }
        watch_send(c, grpc_raw_byte_buffer_create(NULL, 0), true);   /* hello: seq 0 */
        break;
    case M_PUSH:
        handle_push(f, c);
        break;
    case M_UNKNOWN:
        break;   /* answered on arrival */
    }
}

static void on_sent(bench_floor *f, floor_call *c, bool ok)
{
    grpc_byte_buffer_destroy(c->in_flight);
    c->in_flight = NULL;
    if (!ok) {   /* the stream is broken; RECV_CLOSE will follow */
        drop_watcher(f, c);
        return;
    }
    if (c->pending) {
        grpc_byte_buffer *next = c->pending;
        c->pending = NULL;
        watch_send(c, next, false);
    }
}

/* ---------------------------------------------------------------- slots */

static void arm_slot(bench_floor *f, call_slot *s)
{
    grpc_call_details_init(&s->details);
    grpc_metadata_array_init(&s->metadata);
    s->call = NULL;
    grpc_call_error err = grpc_server_request_call(f->server, &s->call, &s->details,
                                                   &s->metadata, f->cq, f->cq, &s->tag);
    if (err == GRPC_CALL_OK)
        f->outstanding++;
    else
        fprintf(stderr, "bench_floor: grpc_server_request_call failed (%d)\n", (int)err);
}

static method method_of(grpc_slice path)
{
    if (grpc_slice_str_cmp(path, "/sungkabench.Echo/Say") == 0)
        return M_SAY;
    if (grpc_slice_str_cmp(path, "/sungkabench.Echo/Watch") == 0)
        return M_WATCH;
    if (grpc_slice_str_cmp(path, "/sungkabench.Echo/Push") == 0)
        return M_PUSH;
    return M_UNKNOWN;
}

static void accept_call(bench_floor *f, call_slot *s)
{
    floor_call *c = calloc(1, sizeof *c);
    if (!c) {   /* cannot even track it: refuse it */
        grpc_call_cancel_with_status(s->call, GRPC_STATUS_RESOURCE_EXHAUSTED,
                                     "out of memory", NULL);
        grpc_call_unref(s->call);
        return;
    }
    c->floor = f;
    c->call = s->call;
    c->method = method_of(s->details.method);
    c->received = (op_tag){TAG_RECEIVED, c};
    c->replied = (op_tag){TAG_REPLIED, c};
    c->sent = (op_tag){TAG_SENT, c};
    c->closed = (op_tag){TAG_CLOSED, c};
    post_recv_close(c);
    if (c->method == M_UNKNOWN)
        reply(c, NULL, GRPC_STATUS_UNIMPLEMENTED, "no such method");
    else
        post_receive(c);
}

/* A slot was filled (ok) or failed because the server is shutting down. */
static void on_new_call(bench_floor *f, call_slot *s, bool ok)
{
    if (ok)
        accept_call(f, s);
    grpc_call_details_destroy(&s->details);
    grpc_metadata_array_destroy(&s->metadata);
    if (ok)   /* after shutdown gRPC fails the request at once: still counted */
        arm_slot(f, s);
}

/* ----------------------------------------------------------------- loop */

static void handle(bench_floor *f, op_tag *tag, bool ok)
{
    floor_call *c = tag->owner;
    switch (tag->kind) {
    case TAG_NEW_CALL:
        on_new_call(f, tag->owner, ok);
        return;
    case TAG_RECEIVED:
        on_received(f, c, ok);
        break;
    case TAG_SENT:
        on_sent(f, c, ok);
        break;
    case TAG_CLOSED:
        c->over = true;
        drop_watcher(f, c);
        break;
    case TAG_REPLIED:
        break;
    case TAG_SHUTDOWN:
        return;   /* the loop handles it; no call owns it */
    }
    batch_done(c);
}

/* Runs until the server has shut down and the queue owes nothing more. */
static void *floor_loop(void *arg)
{
    bench_floor *f = arg;
    bool shut_down = false;
    while (!shut_down || f->outstanding > 0) {
        grpc_event ev = grpc_completion_queue_next(f->cq, gpr_inf_future(GPR_CLOCK_REALTIME),
                                                   NULL);
        if (ev.type != GRPC_OP_COMPLETE)
            continue;
        op_tag *tag = ev.tag;
        if (tag->kind == TAG_SHUTDOWN) {
            shut_down = true;
            continue;
        }
        f->outstanding--;
        handle(f, tag, ev.success != 0);
    }
    return NULL;
}

/* ------------------------------------------------------------ lifecycle */

static void destroy_queue(grpc_completion_queue *cq)
{
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN)
        ;
    grpc_completion_queue_destroy(cq);
}

bench_floor *bench_floor_start(void)
{
    bench_floor *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    grpc_init();
    memset(f->body, 'x', sizeof f->body);
    f->shutdown_tag = (op_tag){TAG_SHUTDOWN, f};
    f->cq = grpc_completion_queue_create_for_next(NULL);
    f->server = grpc_server_create(NULL, NULL);
    grpc_server_register_completion_queue(f->server, f->cq, NULL);
    grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
    int port = grpc_server_add_http2_port(f->server, "127.0.0.1:0", creds);
    grpc_server_credentials_release(creds);
    if (port <= 0) {   /* never started: destroy needs no shutdown first */
        fprintf(stderr, "bench_floor: cannot bind 127.0.0.1:0\n");
        grpc_server_destroy(f->server);
        destroy_queue(f->cq);
        grpc_shutdown();
        free(f);
        return NULL;
    }
    snprintf(f->target, sizeof f->target, "127.0.0.1:%d", port);
    grpc_server_start(f->server);
    for (int i = 0; i < N_SLOTS; i++) {
        f->slots[i].tag = (op_tag){TAG_NEW_CALL, &f->slots[i]};
        arm_slot(f, &f->slots[i]);   /* before the thread exists: no race */
    }
    if (pthread_create(&f->loop, NULL, floor_loop, f) != 0) {
        fprintf(stderr, "bench_floor: cannot start its thread\n");
        abort();   /* armed slots cannot be taken back without the loop */
    }
    pthread_setname_np(f->loop, "floor-loop");
    return f;
}

const char *bench_floor_target(const bench_floor *f)
{
    return f->target;
}

void bench_floor_stop(bench_floor *f)
{
    if (!f)
        return;
    /* Both are thread-safe; the loop drains what they complete. The order
     * matters: gRPC aborts if the server is destroyed with calls in flight. */
    grpc_server_shutdown_and_notify(f->server, f->cq, &f->shutdown_tag);
    grpc_server_cancel_all_calls(f->server);
    pthread_join(f->loop, NULL);
    grpc_server_destroy(f->server);
    destroy_queue(f->cq);
    free(f->watchers);
    free(f);
    grpc_shutdown();
}
