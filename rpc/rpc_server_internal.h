/*
 * rpc_server_internal.h — the server's call and server structures, shared by
 * rpc_server.c (calls on the wire) and rpc_mux.c (legs multiplexed on one
 * call). Nothing outside rpc/ includes this file. Polling thread only.
 */
#ifndef SUNGKA_RPC_SERVER_INTERNAL_H
#define SUNGKA_RPC_SERVER_INTERNAL_H

#include "rpc_internal.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* How many grpc_server_request_call are kept outstanding: enough that a burst
 * of arriving calls does not wait for us to re-arm between them (gRPC queues
 * calls that find no request anyway, so this is about latency, not loss). */
#define REQUEST_SLOTS 16

struct service {
    const ProtobufCServiceDescriptor *desc;
    bool *streaming;              /* one flag per method, by index */
    rpc_handler handler;          /* one handler for every method, or... */
    const rpc_method_entry **by_index;   /* ...one entry per method, by index */
    void *user;
};

struct request_slot {
    rpc__tag tag;
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    bool armed;
};

struct outmsg {
    struct outmsg *next;
    grpc_byte_buffer *bb;
};

struct rpc_server {
    grpc_server *server;
    grpc_completion_queue *cq;
    size_t outbox_limit;
    struct service *services;
    size_t n_services;
    struct request_slot slots[REQUEST_SLOTS];
    rpc__tag shutdown_tag;
    bool started;
    bool shutting_down;
    bool shutdown_seen;
    void (*turn_hook)(void *);    /* rpc_server_set_turn_hook */
    void *turn_user;
    void (*turn_end_hook)(void *);  /* rpc_server_set_turn_end_hook; NULL: turn_hook */
    void *turn_end_user;
    void (*refusal_hook)(void *, rpc_code, const char *);   /* rpc_server_set_refusal_hook */
    bool (*admit_hook)(void *, rpc_call *);   /* rpc_server_set_admit_hook */
    void *admit_user;
    void *refusal_user;
    double turn_started;          /* rpc_server_turn_started */
    rpc_call *calls;              /* every live call, for shutdown */
    rpc_call *dirty;              /* multiplexed calls with a pending envelope */
    grpc_slice last_sent;         /* the last bytes sent, shared (rpc__shared_slice) */
    bool has_last_sent;
    size_t live_calls;
    size_t lost_requests;         /* rpc_server_take_lost_requests */
    atomic_bool wake;             /* the only field other threads touch */
    struct rpc_side *side;        /* rpc_side.c: methods answered off the loop */
    struct rpc_tls_source *tls;   /* TLS: the certificate gRPC takes at its next
                                   * handshake (rpc_server_reload_tls); NULL: plaintext */
};

struct rpc_call {
    rpc_server *srv;
    rpc_call *prev, *next;        /* in srv->calls */
    grpc_call *call;
    grpc_call_details details;    /* method path and host (slices we own) */
    grpc_metadata_array md;       /* request metadata (slices owned by call) */
    char *peer;                   /* gpr_malloc'ed by gRPC */
    const struct service *svc;    /* NULL: unknown method */
    unsigned method_index;
    ProtobufCMessage *request;
    grpc_byte_buffer *recv_bb;
    int cancelled;                /* out-param of RECV_CLOSE_ON_SERVER */

    rpc__tag t_recv, t_close, t_send;
    unsigned tags_out;            /* batches started and not yet back */

    struct outmsg *head, *tail;   /* queued, not yet handed to gRPC */
    size_t queued;
    grpc_byte_buffer *in_flight;  /* the message of the send batch in flight */
    bool send_busy;               /* a send batch is in flight */
    bool md_sent;                 /* initial metadata went out */

    bool finishing;               /* finish requested (by handler or us) */
    bool status_sent;             /* the status batch was started */
    bool status_ok;               /* ... and completed successfully */
    bool gone;                    /* the call is dead: no more sends */
    bool close_seen;
    bool over;                    /* done callback running or ran */
    rpc_code fin_code;
    grpc_slice fin_details;
    grpc_metadata fin_md[2];      /* RPC_REASON_KEY, then RPC_ENDPOINT_KEY */
    int n_fin_md;

    rpc_done_cb done;
    void *done_user;

    /* A bidirectional stream (rpc_call_on_message): the messages after the
     * first, one read in flight at most, and only with room in the outbox. */
    bool client_streaming;        /* its entry says the client streams */
    bool first_read;              /* the first message came (it is `request`) */
    bool recv_busy;               /* a RECV_MESSAGE batch for a later one is out */
    bool half_closed;             /* the client sends nothing more */
    rpc_message_cb on_msg;
    void *msg_user;
    void (*msg_release)(void *); /* frees msg_user when the call is freed */

    /* Multiplexing (rpc_mux.c). A leg: its call, and its number there. */
    rpc_call *parent;
    uint32_t leg_id;
    rpc_call *next_leg;           /* in the parent's legs */
    /* A multiplexed call: its legs (finished ones too, until it is freed),
     * how many are open, and the payload sent to some of them this turn and
     * not yet queued (one envelope names them all). */
    rpc_call *legs;
    size_t open_legs;
    bool multiplexed;
    bool pending;
    grpc_slice pending_payload;
    uint32_t *pending_legs;
    size_t n_pending, cap_pending;
    rpc_call *next_dirty;         /* in srv->dirty (in_dirty) since a leg's send */
    bool in_dirty;
};

/* rpc_side.c: start the side thread (after grpc_server_start); mark it
 * stopping (before the server's shutdown); end it (after grpc_server_destroy). */
int rpc__side_start(rpc_server *srv);
void rpc__side_stopping(rpc_server *srv);
void rpc__side_stop(rpc_server *srv);

/* rpc_server.c: a reference to a slice of these bytes, shared with the last
 * packed send when the bytes are the same: the service sends one event to a
 * crowd in a row, so every outbox (and every multiplexed call's envelope)
 * holds the one slice instead of a copy of its own. Equal bytes are the same
 * message, whoever they were packed for. The caller unrefs it. */
grpc_slice rpc__shared_slice(rpc_server *srv, const void *data, size_t len);

/* rpc_server.c: queue a serialized message (takes bb; destroyed on failure)
 * and start sending if nothing is in flight. */
int rpc__call_enqueue(rpc_call *c, grpc_byte_buffer *bb);
void rpc__call_pump(rpc_call *c);

/* rpc_mux.c: what a leg does instead of what a call does. */
int rpc__leg_send(rpc_call *leg, const void *data, size_t len);
int rpc__leg_finish(rpc_call *leg, rpc_code code, const char *reason, const char *message);
/* Queue the call's pending envelope, if any / every multiplexed call's
 * (end of a poll turn). */
void rpc__mux_flush(rpc_call *call);
void rpc__mux_flush_all(rpc_server *srv);
/* The multiplexed call is over: run its open legs' done callbacks
 * (client_gone as the call's), then free every leg. */
void rpc__mux_release(rpc_call *call, bool client_gone);

#endif /* SUNGKA_RPC_SERVER_INTERNAL_H */
