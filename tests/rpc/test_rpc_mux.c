/*
 * test_rpc_mux.c — legs multiplexed on one server stream (rpc.h): the same
 * payload for several legs goes out once naming them all, a different one
 * flushes it first, a leg's end follows what it was sent, the call ends OK
 * when its last leg does, the client leaving runs the open legs' done
 * callbacks (not the finished ones'), and the outbox limit holds for legs.
 */
#include "rpc_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

enum { MODE_ORDER, MODE_ALL_END, MODE_LIMIT };
#define MAX_LEGS 8

typedef struct mux_server {
    rpc_server *srv;
    char target[64];
    pthread_t thread;
    atomic_bool stop;
    atomic_int leg_done;          /* done callbacks of legs */
    atomic_int leg_done_gone;     /* ... with client_gone */
    atomic_int limit_rc[4];       /* MODE_LIMIT: the sends' results */
    atomic_int errors;            /* contract breaches seen on the poll thread */
} mux_server;

/* cmocka's asserts belong to the test's thread: the poll thread counts. */
#define EXPECT(ms, cond)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            atomic_fetch_add(&(ms)->errors, 1);                                 \
        }                                                                       \
    } while (0)

static void leg_done(rpc_call *leg, bool client_gone, void *user)
{
    (void)leg;
    mux_server *ms = user;
    atomic_fetch_add(&ms->leg_done, 1);
    if (client_gone)
        atomic_fetch_add(&ms->leg_done_gone, 1);
}

static void send_text(mux_server *ms, rpc_call *leg, const char *text)
{
    Rpctest__Rep rep = RPCTEST__REP__INIT;
    rep.text = (char *)text;
    EXPECT(ms, rpc_call_send(leg, &rep.base) == 0);
}

static void fan(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    mux_server *ms = user;
    const Rpctest__FanReq *req = (const Rpctest__FanReq *)request;
    rpc_call *legs[MAX_LEGS] = {NULL};
    int n = req->legs < 2 ? 2 : req->legs < MAX_LEGS ? req->legs : MAX_LEGS;
    for (int i = 0; i < n; i++) {
        legs[i] = rpc_call_open_leg(call, (uint32_t)i);
        EXPECT(ms, legs[i] != NULL);
        if (!legs[i])
            return;
        rpc_call_on_done(legs[i], leg_done, ms);
    }
    EXPECT(ms, rpc_call_open_leg(legs[0], 9) == NULL);   /* a leg has no legs */
    switch (req->mode) {
    case MODE_ORDER:   /* a, a, a | b | a | leg 1 ends */
        send_text(ms, legs[0], "a");
        send_text(ms, legs[1], "a");
        send_text(ms, legs[2], "a");
        send_text(ms, legs[3], "b");
        send_text(ms, legs[0], "a");
        EXPECT(ms, rpc_call_finish_reason(legs[1], RPC_NOT_FOUND, "GONE", "leg one") == 0);
        EXPECT(ms, rpc_call_finish(legs[1], RPC_OK, "twice") == -1);
        break;
    case MODE_ALL_END:
        for (int i = 0; i < n; i++) {
            send_text(ms, legs[i], i % 2 ? "odd" : "even");
            EXPECT(ms, rpc_call_finish(legs[i], RPC_OK, "") == 0);
        }
        break;
    case MODE_LIMIT:   /* outbox 2: envelopes a, b go; c is refused */
        for (int i = 0; i < 3; i++) {
            Rpctest__Rep rep = RPCTEST__REP__INIT;
            char text[2] = {(char)('a' + i), 0};
            rep.text = text;
            rpc_call_send(legs[0], &rep.base);   /* pending: flushed by the next */
            atomic_store(&ms->limit_rc[i], rpc_call_send(legs[1], &rep.base));
        }
        atomic_store(&ms->limit_rc[3], (int)rpc_call_outbox_len(legs[0]));
        break;
    }
}

static const rpc_method_entry mux_methods[] = {{"Fan", fan, true, false, false}};

static void *poll_loop(void *arg)
{
    mux_server *ms = arg;
    while (!atomic_load(&ms->stop))
        rpc_server_poll(ms->srv, 50);
    rpc_server_destroy(ms->srv);
    return NULL;
}

static int setup_limit(void **state, size_t outbox)
{
    mux_server *ms = calloc(1, sizeof *ms);
    rpc_server_options o = {.outbox_limit = outbox};
    int port;
    assert_int_equal(rpc_server_create("127.0.0.1:0", &o, &ms->srv, &port), 0);
    snprintf(ms->target, sizeof ms->target, "127.0.0.1:%d", port);
    assert_int_equal(rpc_server_add_methods(ms->srv, &rpctest__mux__descriptor, mux_methods, 1,
                                            ms), 0);
    assert_int_equal(rpc_server_start(ms->srv), 0);
    assert_int_equal(pthread_create(&ms->thread, NULL, poll_loop, ms), 0);
    *state = ms;
    return 0;
}

static int setup(void **state)
{
    return setup_limit(state, 64);
}

static int setup_small(void **state)
{
    return setup_limit(state, 2);
}

static int teardown(void **state)
{
    mux_server *ms = *state;
    atomic_store(&ms->stop, true);
    pthread_join(ms->thread, NULL);
    assert_int_equal(atomic_load(&ms->errors), 0);
    free(ms);
    return 0;
}

/* What the client read: each envelope as "legs:payload" or "end leg code reason". */
typedef struct reader {
    pthread_mutex_t mu;
    char lines[16][64];
    atomic_int n;
    atomic_int ended;
    rpc_status end;
    rpc_stream *stream;
} reader;

static void read_msg(ProtobufCMessage *msg, void *user)
{
    reader *r = user;
    const Rpctest__Envelope *e = (const Rpctest__Envelope *)msg;
    pthread_mutex_lock(&r->mu);
    int n = atomic_load(&r->n);
    if (n < 16) {
        char *line = r->lines[n];
        size_t len = 0;
        line[0] = 0;
        if (e->ended) {
            snprintf(line, 64, "end %u %d %s %s", e->ended->leg, e->ended->code,
                     e->ended->reason, e->ended->message);
        } else {
            for (size_t i = 0; i < e->n_legs && len < 40; i++)
                len += (size_t)snprintf(line + len, 64 - len, "%s%u", i ? "," : "", e->legs[i]);
            snprintf(line + len, 64 - len, ":%s", e->payload ? e->payload->text : "?");
        }
        atomic_store(&r->n, n + 1);
    }
    pthread_mutex_unlock(&r->mu);
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void read_end(const rpc_status *status, void *user)
{
    reader *r = user;
    r->end = *status;
    atomic_store(&r->ended, 1);
}

static const rpc_method m_fan = {&rpctest__mux__descriptor, 0, true};

static void open_fan(reader *r, rpc_client *cli, int legs, int mode)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    Rpctest__FanReq req = RPCTEST__FAN_REQ__INIT;
    req.legs = legs;
    req.mode = mode;
    assert_int_equal(rpc_client_stream(cli, &m_fan, &req.base, NULL, read_msg, read_end, r,
                                       &r->stream), 0);
}

static void order_and_ends(void **state)
{
    mux_server *ms = *state;
    rpc_client *cli;
    assert_int_equal(rpc_client_create(ms->target, NULL, &cli), 0);
    reader r;
    open_fan(&r, cli, 4, MODE_ORDER);
    assert_true(wait_atomic_ge(&r.n, 4, WAIT_MS));
    assert_string_equal(r.lines[0], "0,1,2:a");
    assert_string_equal(r.lines[1], "3:b");
    assert_string_equal(r.lines[2], "0:a");
    assert_string_equal(r.lines[3], "end 1 5 GONE leg one");
    assert_int_equal(atomic_load(&r.ended), 0);   /* three legs are open */
    rpc_stream_cancel(r.stream);
    assert_true(wait_atomic_ge(&r.ended, 1, WAIT_MS));
    /* the open legs hear the client go; the finished one does not */
    assert_true(wait_atomic_ge(&ms->leg_done, 3, WAIT_MS));
    assert_int_equal(atomic_load(&ms->leg_done_gone), 3);
    rpc_client_destroy(cli);
    assert_int_equal(atomic_load(&ms->leg_done), 3);
    pthread_mutex_destroy(&r.mu);
}

static void last_leg_ends_the_call(void **state)
{
    mux_server *ms = *state;
    rpc_client *cli;
    assert_int_equal(rpc_client_create(ms->target, NULL, &cli), 0);
    reader r;
    open_fan(&r, cli, 3, MODE_ALL_END);
    assert_true(wait_atomic_ge(&r.ended, 1, WAIT_MS));
    assert_int_equal(r.end.code, RPC_OK);
    assert_int_equal(atomic_load(&r.n), 6);
    assert_string_equal(r.lines[0], "0:even");
    assert_string_equal(r.lines[1], "end 0 0  ");
    assert_string_equal(r.lines[4], "2:even");
    assert_string_equal(r.lines[5], "end 2 0  ");
    rpc_client_destroy(cli);
    assert_int_equal(atomic_load(&ms->leg_done), 0);
    pthread_mutex_destroy(&r.mu);
}

static void outbox_limit(void **state)
{
    mux_server *ms = *state;
    rpc_client *cli;
    assert_int_equal(rpc_client_create(ms->target, NULL, &cli), 0);
    reader r;
    open_fan(&r, cli, 2, MODE_LIMIT);
    /* a for 0,1 is pending; b flushes it (outbox 1) and pends; c flushes b
     * (outbox 2: full) and is refused for leg 1 */
    assert_true(wait_atomic_ge(&r.n, 2, WAIT_MS));
    assert_int_equal(atomic_load(&ms->limit_rc[0]), 0);
    assert_int_equal(atomic_load(&ms->limit_rc[1]), 0);
    assert_int_equal(atomic_load(&ms->limit_rc[2]), -2);
    assert_string_equal(r.lines[0], "0,1:a");
    assert_string_equal(r.lines[1], "0,1:b");
    rpc_stream_cancel(r.stream);
    assert_true(wait_atomic_ge(&r.ended, 1, WAIT_MS));
    rpc_client_destroy(cli);
    pthread_mutex_destroy(&r.mu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(order_and_ends, setup, teardown),
        cmocka_unit_test_setup_teardown(last_leg_ends_the_call, setup, teardown),
        cmocka_unit_test_setup_teardown(outbox_limit, setup_small, teardown),
    };
    rpc_init();
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rpc_shutdown();
    return failed;
}
