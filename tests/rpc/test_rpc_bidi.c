/*
 * test_rpc_bidi.c — bidirectional streams (rpc.h: rpc_call_on_message on the
 * server, rpc_client_bidi and rpc_stream_send on the client): every message
 * after the first reaches the message callback once, in order, each answer
 * comes back in order, the call ends as the handler says, and the state
 * given with the callback is released exactly once, after the done callback.
 */
#include "rpc_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define N_MSGS 200

typedef struct talk_server {
    rpc_server *srv;
    char target[64];
    pthread_t thread;
    atomic_bool stop;
    atomic_int released;          /* release callbacks */
    atomic_int done;              /* done callbacks */
    atomic_int after_done;        /* releases that came after the done callback */
    atomic_int errors;
} talk_server;

typedef struct talk_state {
    talk_server *ts;
    int seq;                      /* messages answered */
} talk_state;

static void answer(talk_state *st, rpc_call *call, const char *text)
{
    Rpctest__Rep rep = RPCTEST__REP__INIT;
    rep.text = (char *)text;
    rep.seq = st->seq++;
    if (rpc_call_send(call, &rep.base) != 0)
        atomic_fetch_add(&st->ts->errors, 1);
    if (strcmp(text, "end") == 0)
        rpc_call_finish(call, RPC_OK, "");
}

static void on_message(rpc_call *call, const ProtobufCMessage *msg, void *user)
{
    if (msg)
        answer(user, call, ((const Rpctest__Req *)msg)->text);
}

static void release(void *user)
{
    talk_state *st = user;
    atomic_fetch_add(&st->ts->released, 1);
    if (atomic_load(&st->ts->done) > 0)
        atomic_fetch_add(&st->ts->after_done, 1);
    free(st);
}

static void talk_done(rpc_call *call, bool client_gone, void *user)
{
    (void)call;
    (void)client_gone;
    atomic_fetch_add(&((talk_server *)user)->done, 1);
}

static void talk(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    talk_server *ts = user;
    talk_state *st = calloc(1, sizeof *st);
    st->ts = ts;
    rpc_call_on_done(call, talk_done, ts);
    rpc_call_on_message(call, on_message, st, release);
    answer(st, call, ((const Rpctest__Req *)request)->text);
}

static const rpc_method_entry talk_methods[] = {{"Talk", talk, true, false, true}};

static void *poll_loop(void *arg)
{
    talk_server *ts = arg;
    while (!atomic_load(&ts->stop))
        rpc_server_poll(ts->srv, 50);
    return NULL;
}

/* Client side. */
typedef struct talk_client {
    pthread_mutex_t mu;
    char texts[N_MSGS + 2][16];
    int n;
    atomic_int bad_seq;
    atomic_int ended;
    rpc_code code;
} talk_client;

static void client_msg(ProtobufCMessage *msg, void *user)
{
    talk_client *tc = user;
    const Rpctest__Rep *rep = (const Rpctest__Rep *)msg;
    pthread_mutex_lock(&tc->mu);
    if (rep->seq != tc->n || tc->n >= N_MSGS + 2)
        atomic_fetch_add(&tc->bad_seq, 1);
    else
        snprintf(tc->texts[tc->n++], 16, "%s", rep->text);
    pthread_mutex_unlock(&tc->mu);
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void client_end(const rpc_status *st, void *user)
{
    talk_client *tc = user;
    tc->code = st->code;
    atomic_store(&tc->ended, 1);
}

static void test_talk(void **state)
{
    (void)state;
    talk_server ts;
    memset(&ts, 0, sizeof ts);
    int port;
    assert_int_equal(rpc_server_create("127.0.0.1:0", NULL, &ts.srv, &port), 0);
    assert_int_equal(rpc_server_add_methods(ts.srv, &rpctest__talk__descriptor, talk_methods, 1,
                                            &ts), 0);
    assert_int_equal(rpc_server_start(ts.srv), 0);
    snprintf(ts.target, sizeof ts.target, "127.0.0.1:%d", port);
    pthread_create(&ts.thread, NULL, poll_loop, &ts);

    rpc_client *cli;
    assert_int_equal(rpc_client_create(ts.target, NULL, &cli), 0);
    rpc_method m = rpc_method_named(&rpctest__talk__descriptor, "Talk", true);
    talk_client tc;
    memset(&tc, 0, sizeof tc);
    pthread_mutex_init(&tc.mu, NULL);
    Rpctest__Req req = RPCTEST__REQ__INIT;
    req.text = "first";
    rpc_stream *s;
    assert_int_equal(rpc_client_bidi(cli, &m, &req.base, NULL, client_msg, client_end, &tc, &s),
                     0);
    /* Sent at once, faster than the server answers: queued in order. */
    char text[16];
    for (int i = 0; i < N_MSGS; i++) {
        snprintf(text, sizeof text, "m%d", i);
        req.text = text;
        assert_int_equal(rpc_stream_send(s, &req.base), 0);
    }
    req.text = "end";
    assert_int_equal(rpc_stream_send(s, &req.base), 0);
    assert_true(wait_atomic_ge(&tc.ended, 1, WAIT_MS));
    assert_int_equal(tc.code, RPC_OK);
    assert_int_equal(atomic_load(&tc.bad_seq), 0);
    assert_int_equal(tc.n, N_MSGS + 2);
    assert_string_equal(tc.texts[0], "first");
    for (int i = 0; i < N_MSGS; i++) {
        snprintf(text, sizeof text, "m%d", i);
        assert_string_equal(tc.texts[i + 1], text);
    }
    assert_string_equal(tc.texts[N_MSGS + 1], "end");
    assert_true(wait_atomic_ge(&ts.released, 1, WAIT_MS));

    rpc_client_destroy(cli);
    atomic_store(&ts.stop, true);
    pthread_join(ts.thread, NULL);
    rpc_server_destroy(ts.srv);
    assert_int_equal(atomic_load(&ts.done), 1);
    assert_int_equal(atomic_load(&ts.released), 1);
    assert_int_equal(atomic_load(&ts.after_done), 1);
    assert_int_equal(atomic_load(&ts.errors), 0);
    pthread_mutex_destroy(&tc.mu);
}

int main(void)
{
    rpc_init();
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_talk)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rpc_shutdown();
    return rc;
}
