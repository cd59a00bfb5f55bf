/*
 * rpc_mux.c — legs: many logical streams on one server-streaming call (see
 * rpc.h, "Multiplexed streams"). A leg is an rpc_call with a parent; what it
 * sends becomes an envelope on the parent's outbox. The same payload sent
 * to several legs in one poll turn is held as the parent's pending envelope
 * and queued once, naming them all, when a different payload comes, the
 * parent queues anything else, or the turn ends (rpc__mux_flush_all): a
 * crowd's event costs one message on the connection, not one per person.
 * Polling thread only.
 */
#include "rpc_server_internal.h"

#include <stdlib.h>
#include <string.h>

/* Envelope fields (rpc.h): legs = 1 (packed uint32), payload = 2, ended = 3;
 * LegEnded: leg = 1, code = 2, reason = 3, message = 4. */
enum {
    KEY_LEGS = 1 << 3 | 2,
    KEY_PAYLOAD = 2 << 3 | 2,
    KEY_ENDED = 3 << 3 | 2,
    KEY_END_LEG = 1 << 3 | 0,
    KEY_END_CODE = 2 << 3 | 0,
    KEY_END_REASON = 3 << 3 | 2,
    KEY_END_MESSAGE = 4 << 3 | 2,
};

static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static uint8_t *put_bytes(uint8_t *p, unsigned key, const void *data, size_t len)
{
    p = put_varint(p, key);
    p = put_varint(p, len);
    memcpy(p, data, len);
    return p + len;
}

rpc_call *rpc_call_open_leg(rpc_call *call, uint32_t id)
{
    if (call->parent || call->finishing || call->over || call->gone)
        return NULL;
    rpc_call *leg = calloc(1, sizeof *leg);
    if (!leg)
        return NULL;
    leg->srv = call->srv;
    leg->parent = call;
    leg->leg_id = id;
    leg->next_leg = call->legs;
    call->legs = leg;
    call->open_legs++;
    call->multiplexed = true;
    return leg;
}

/* The parent is gone or finishing: its legs can send nothing more. */
static bool parent_closed(const rpc_call *call)
{
    return call->finishing || call->over || call->gone;
}

void rpc__mux_flush(rpc_call *call)
{
    if (!call->pending)
        return;
    call->pending = false;   /* first: enqueue below calls back here */
    size_t legs_len = 0;
    for (size_t i = 0; i < call->n_pending; i++)
        legs_len += varint_len(call->pending_legs[i]);
    size_t payload_len = GRPC_SLICE_LENGTH(call->pending_payload);
    size_t len = 1 + varint_len(legs_len) + legs_len + 1 + varint_len(payload_len) +
                 payload_len;
    grpc_slice env = grpc_slice_malloc(len);
    uint8_t *p = GRPC_SLICE_START_PTR(env);
    p = put_varint(p, KEY_LEGS);
    p = put_varint(p, legs_len);
    for (size_t i = 0; i < call->n_pending; i++)
        p = put_varint(p, call->pending_legs[i]);
    put_bytes(p, KEY_PAYLOAD, GRPC_SLICE_START_PTR(call->pending_payload), payload_len);
    grpc_slice_unref(call->pending_payload);
    call->n_pending = 0;
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&env, 1);
    grpc_slice_unref(env);
    if (parent_closed(call))
        grpc_byte_buffer_destroy(bb);
    else if (rpc__call_enqueue(call, bb) == 0)   /* destroys bb when it fails */
        rpc__call_pump(call);
}

void rpc__mux_flush_all(rpc_server *srv)
{
    while (srv->dirty) {
        rpc_call *c = srv->dirty;
        srv->dirty = c->next_dirty;
        c->next_dirty = NULL;
        c->in_dirty = false;
        rpc__mux_flush(c);
    }
}

static void forget_dirty(rpc_call *call)
{
    if (!call->in_dirty)
        return;
    call->in_dirty = false;
    for (rpc_call **at = &call->srv->dirty; *at; at = &(*at)->next_dirty) {
        if (*at == call) {
            *at = call->next_dirty;
            call->next_dirty = NULL;
            return;
        }
    }
}

int rpc__leg_send(rpc_call *leg, const void *data, size_t len)
{
    rpc_call *call = leg->parent;
    if (leg->finishing || parent_closed(call))
        return -1;
    if (rpc_call_outbox_len(call) >= call->srv->outbox_limit)
        return -2;
    /* The same bytes as the pending envelope's: one more leg for it. */
    bool same = call->pending && GRPC_SLICE_LENGTH(call->pending_payload) == len &&
                memcmp(GRPC_SLICE_START_PTR(call->pending_payload), data, len) == 0;
    if (!same) {
        rpc__mux_flush(call);
        call->pending_payload = rpc__shared_slice(call->srv, data, len);
        call->pending = true;
        if (!call->in_dirty) {
            call->in_dirty = true;
            call->next_dirty = call->srv->dirty;
            call->srv->dirty = call;
        }
    }
    if (call->n_pending == call->cap_pending) {
        size_t cap = call->cap_pending ? call->cap_pending * 2 : 16;
        uint32_t *grown = realloc(call->pending_legs, cap * sizeof *grown);
        if (!grown)
            return -1;
        call->pending_legs = grown;
        call->cap_pending = cap;
    }
    call->pending_legs[call->n_pending++] = leg->leg_id;
    return 0;
}

int rpc__leg_finish(rpc_call *leg, rpc_code code, const char *reason, const char *message)
{
    rpc_call *call = leg->parent;
    if (leg->finishing)
        return -1;
    leg->finishing = true;
    leg->done = NULL;       /* a finished leg's owner has let it go */
    call->open_legs--;
    if (parent_closed(call))
        return -1;
    rpc__mux_flush(call);   /* what it was sent goes before its end */
    if (!reason)
        reason = "";
    if (!message)
        message = "";
    size_t rl = strlen(reason), ml = strlen(message);
    size_t inner = 1 + varint_len(leg->leg_id) + 1 + varint_len((uint64_t)(int64_t)code) +
                   1 + varint_len(rl) + rl + 1 + varint_len(ml) + ml;
    size_t len = 1 + varint_len(inner) + inner;
    grpc_slice env = grpc_slice_malloc(len);
    uint8_t *p = GRPC_SLICE_START_PTR(env);
    p = put_varint(p, KEY_ENDED);
    p = put_varint(p, inner);
    p = put_varint(p, KEY_END_LEG);
    p = put_varint(p, leg->leg_id);
    p = put_varint(p, KEY_END_CODE);
    p = put_varint(p, (uint64_t)(int64_t)code);
    p = put_bytes(p, KEY_END_REASON, reason, rl);
    put_bytes(p, KEY_END_MESSAGE, message, ml);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&env, 1);
    grpc_slice_unref(env);
    /* An end is queued past the outbox limit: it is what a client that
     * fell behind needs to hear, and there is one per leg at most. */
    if (rpc__call_enqueue(call, bb) != 0)
        return -1;
    rpc__call_pump(call);
    if (call->open_legs == 0)
        rpc_call_finish(call, RPC_OK, "every stream on this call has ended");
    return 0;
}

void rpc__mux_release(rpc_call *call, bool client_gone)
{
    if (call->pending) {
        grpc_slice_unref(call->pending_payload);
        call->pending = false;
    }
    forget_dirty(call);
    free(call->pending_legs);
    call->pending_legs = NULL;
    while (call->legs) {
        rpc_call *leg = call->legs;
        call->legs = leg->next_leg;
        leg->over = true;
        if (!leg->finishing && leg->done)
            leg->done(leg, client_gone, leg->done_user);
        free(leg);
    }
    call->open_legs = 0;
}
