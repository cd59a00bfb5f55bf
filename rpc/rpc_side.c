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
 * Threads: rpc__side_* run on the thread that owns the server (create, start,
 * destroy); everything else runs on the side thread.
 */
#include "rpc_server_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/support/log.h>

#define SIDE_METHODS_MAX 4
#define SIDE_WAIT_MS 100

enum { SIDE_REQUEST, SIDE_ANSWERED };

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
        srv->server, m->registered, &m->call, &m->deadline, &m->md, &m->payload,
        m->side->cq, m->side->cq, &m->tag);
    m->armed = err == GRPC_CALL_OK;
    if (!m->armed)
        gpr_log(GPR_ERROR, "rpc: cannot wait for %s calls: %d", m->desc->name, (int)err);
}

/* The reply the method's answer filled, or why there is none. */
static grpc_status_code answer_call(struct side_method *m, grpc_byte_buffer **reply,
                                    char *why, size_t whylen)
{
    *reply = NULL;
    ProtobufCMessage *request = NULL;
    char where[128];
    int unpacked = m->payload ? rpc__unpack_checked(m->desc->input, m->payload, &request, where,
                                                    sizeof where)
                              : -1;
    if (unpacked == -2) {
        snprintf(why, whylen, "%s holds a NUL byte (U+0000), which no text may hold", where);
        return GRPC_STATUS_INVALID_ARGUMENT;
    }
    if (!request) {
        snprintf(why, whylen, "the request cannot be decoded");
        return GRPC_STATUS_INVALID_ARGUMENT;
    }
    if (rpc_message_check_utf8(request, where, sizeof where) != 0) {
        protobuf_c_message_free_unpacked(request, NULL);
        snprintf(why, whylen, "the request holds text that is not valid UTF-8 (in %s)", where);
        return GRPC_STATUS_INVALID_ARGUMENT;
    }
    const ProtobufCMessageDescriptor *out = m->desc->output;
    ProtobufCMessage *msg = calloc(1, out->sizeof_message);
    if (!msg) {
        protobuf_c_message_free_unpacked(request, NULL);
        snprintf(why, whylen, "out of memory");
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    }
    out->message_init(msg);
    rpc_code code = m->answer(request, msg, why, whylen, m->user);
    protobuf_c_message_free_unpacked(request, NULL);
    if (code == RPC_OK)
        *reply = rpc__pack(msg);
    free(msg);                       /* its strings are the answer's, not ours */
    if (code != RPC_OK)
        return (grpc_status_code)code;
    if (!*reply) {
        snprintf(why, whylen, "out of memory");
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    }
    return GRPC_STATUS_OK;
}

/* One batch: metadata, the reply (if any), the status, and the close. */
static void on_request(struct rpc_server *srv, struct side_method *m)
{
    grpc_call *gc = m->call;
    m->call = NULL;
    struct side_call *sc = calloc(1, sizeof *sc);
    if (!sc) {
        grpc_call_unref(gc);          /* no batch started: this cancels it */
        grpc_byte_buffer_destroy(m->payload);
        arm(srv, m);
        return;
    }
    sc->tag.kind = SIDE_ANSWERED;
    sc->tag.obj = sc;
    sc->call = gc;
    char why[256] = "";
    grpc_status_code status = answer_call(m, &sc->reply, why, sizeof why);
    grpc_byte_buffer_destroy(m->payload);
    arm(srv, m);                      /* the next caller waits on gRPC, not on us */

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

static void on_answered(struct side_call *sc)
{
    grpc_call_unref(sc->call);
    grpc_byte_buffer_destroy(sc->reply);
    grpc_slice_unref(sc->details);
    free(sc);
}

/* Until the queue is shut down (rpc__side_stop), after the server's. */
static void *side_main(void *arg)
{
    struct rpc_server *srv = arg;
    struct rpc_side *side = srv->side;
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
        if (ev.type != GRPC_OP_COMPLETE)
            continue;
        rpc__tag *t = ev.tag;
        if (t->kind == SIDE_ANSWERED) {
            on_answered(t->obj);
            continue;
        }
        struct side_method *m = t->obj;
        m->armed = false;
        if (ev.success)
            on_request(srv, m);       /* else the server is shutting down */
    }
}

int rpc_server_add_side_method(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                               const char *method, rpc_side_answer answer, void *user)
{
    const ProtobufCMethodDescriptor *desc = protobuf_c_service_descriptor_get_method_by_name(
        svc, method);
    if (!desc || srv->started || !answer) {
        gpr_log(GPR_ERROR, "rpc: cannot answer %s.%s on the side", svc->name, method);
        return -1;
    }
    if (!srv->side) {
        srv->side = calloc(1, sizeof *srv->side);
        if (!srv->side)
            return -1;
        atomic_init(&srv->side->stopping, false);
        srv->side->cq = grpc_completion_queue_create_for_next(NULL);
        if (!srv->side->cq) {
            free(srv->side);
            srv->side = NULL;
            return -1;
        }
        grpc_server_register_completion_queue(srv->server, srv->side->cq, NULL);
    }
    struct rpc_side *side = srv->side;
    if (side->n_methods == SIDE_METHODS_MAX)
        return -1;
    char path[256];
    snprintf(path, sizeof path, "/%s/%s", svc->name, method);
    void *registered = grpc_server_register_method(
        srv->server, path, NULL, GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
    if (!registered)
        return -1;
    struct side_method *m = &side->methods[side->n_methods++];
    m->tag.kind = SIDE_REQUEST;
    m->tag.obj = m;
    m->side = side;
    m->desc = desc;
    m->answer = answer;
    m->user = user;
    m->registered = registered;
    grpc_metadata_array_init(&m->md);
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
