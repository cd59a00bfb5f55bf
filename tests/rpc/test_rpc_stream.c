/*
 * test_rpc_stream.c — server streams end to end: a long stream in order, an
 * error ending a stream, the client cancelling mid-stream (the server hears
 * client_gone), many concurrent streams from several clients, the outbox
 * limit, and replies the client cannot decode.
 */
#include "rpc_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static int setup_opts(void **state, const rpc_server_options *opts)
{
    test_server *ts = calloc(1, sizeof *ts);
    ts_start(ts, opts);
    *state = ts;
    atomic_store(&client_errors, 0);
    return 0;
}

static int setup(void **state)
{
    return setup_opts(state, NULL);
}

static int setup_small_outbox(void **state)
{
    rpc_server_options o = {.outbox_limit = 4};
    return setup_opts(state, &o);
}

static int teardown(void **state)
{
    test_server *ts = *state;
    ts_stop(ts);
    assert_int_equal(atomic_load(&ts->errors), 0);
    assert_int_equal(atomic_load(&client_errors), 0);
    free(ts);
    return 0;
}

static void test_thousand_in_order(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    sink s = {0};
    sink_open(&s, cli, 1000, 0);
    assert_true(wait_atomic_ge(&s.ended, 1, WAIT_MS));
    assert_int_equal(s.end.code, RPC_OK);
    assert_int_equal(atomic_load(&s.count), 1000);
    assert_int_equal(atomic_load(&s.out_of_order), 0);
    rpc_client_destroy(cli);
    assert_true(wait_atomic_ge(&ts->done_calls, 1, WAIT_MS));
    assert_int_equal(atomic_load(&ts->done_gone), 0);
}

static void test_error_ends_stream(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    sink s = {0};
    sink_open(&s, cli, -1, 0);
    assert_true(wait_atomic_ge(&s.ended, 1, WAIT_MS));
    assert_int_equal(s.end.code, RPC_OUT_OF_RANGE);
    assert_string_equal(s.end.message, "n must not be negative");
    assert_int_equal(atomic_load(&s.count), 0);
    rpc_client_destroy(cli);
}

static void test_client_cancels(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    sink s = {.cancel_after = 5};
    sink_open(&s, cli, 0, 0);   /* endless */
    assert_true(wait_atomic_ge(&s.ended, 1, WAIT_MS));
    assert_int_equal(s.end.code, RPC_CANCELLED);
    assert_true(atomic_load(&s.count) >= 5);
    assert_int_equal(atomic_load(&s.out_of_order), 0);
    /* The server's done callback hears that the client left. */
    assert_true(wait_atomic_ge(&ts->done_gone, 1, WAIT_MS));
    assert_int_equal(atomic_load(&ts->done_calls), 1);
    assert_int_equal(atomic_load(&ts->tickers_open), 0);
    rpc_client_destroy(cli);
}

static void test_cancel_from_other_thread(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    sink s = {0};
    sink_open(&s, cli, 0, 0);
    assert_true(wait_atomic_ge(&s.count, 3, WAIT_MS));
    /* Once: after this, end_cb may run (and free the stream) at any time,
     * so this thread must not touch s.stream again. */
    rpc_stream_cancel(s.stream);
    assert_true(wait_atomic_ge(&s.ended, 1, WAIT_MS));
    assert_int_equal(s.end.code, RPC_CANCELLED);
    assert_true(wait_atomic_ge(&ts->done_gone, 1, WAIT_MS));
    rpc_client_destroy(cli);
}

#define CLIENTS 5
#define STREAMS_PER_CLIENT 10
#define MSGS 200

static void test_many_streams(void **state)
{
    test_server *ts = *state;
    rpc_client *cli[CLIENTS];
    static sink s[CLIENTS][STREAMS_PER_CLIENT];
    memset(s, 0, sizeof s);
    for (int c = 0; c < CLIENTS; c++) {
        cli[c] = test_client(ts);
        for (int i = 0; i < STREAMS_PER_CLIENT; i++)
            sink_open(&s[c][i], cli[c], MSGS, 0);
    }
    for (int c = 0; c < CLIENTS; c++) {
        for (int i = 0; i < STREAMS_PER_CLIENT; i++) {
            assert_true(wait_atomic_ge(&s[c][i].ended, 1, WAIT_MS));
            assert_int_equal(s[c][i].end.code, RPC_OK);
            assert_int_equal(atomic_load(&s[c][i].count), MSGS);
            assert_int_equal(atomic_load(&s[c][i].out_of_order), 0);
        }
    }
    for (int c = 0; c < CLIENTS; c++)
        rpc_client_destroy(cli[c]);
    assert_true(wait_atomic_ge(&ts->done_calls, CLIENTS * STREAMS_PER_CLIENT, WAIT_MS));
    assert_int_equal(atomic_load(&ts->done_gone), 0);
}

static void test_outbox_limit(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    sink s = {0};
    /* The handler queues 10 messages in one go, without polling between, on
     * a server whose outbox holds 4: the first 4 are taken (one of them in
     * flight), the rest refused with -2; then it finishes OK. */
    sink_open(&s, cli, 0, 10);
    assert_true(wait_atomic_ge(&s.ended, 1, WAIT_MS));
    assert_int_equal(s.end.code, RPC_OK);
    assert_int_equal(atomic_load(&ts->burst_n), 10);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(ts->burst_rc[i], i < 4 ? 0 : -2);
        assert_int_equal(ts->burst_len[i], i < 4 ? (size_t)i + 1 : 4);
    }
    /* Exactly the accepted ones arrive, in order, before the status. */
    assert_int_equal(atomic_load(&s.count), 4);
    assert_int_equal(atomic_load(&s.out_of_order), 0);
    rpc_client_destroy(cli);
}

/* Echo as a confused client sees it: Say and Count "return" CountReq, whose
 * field 1 is a varint where Rep's is a string — Rep bytes do not parse. */
static ProtobufCMethodDescriptor wrong_methods[3];
static ProtobufCServiceDescriptor wrong_echo;

static void make_wrong_echo(void)
{
    wrong_echo = rpctest__echo__descriptor;
    memcpy(wrong_methods, rpctest__echo__descriptor.methods, sizeof wrong_methods);
    wrong_methods[ECHO_SAY].output = &rpctest__count_req__descriptor;
    wrong_methods[ECHO_COUNT].output = &rpctest__count_req__descriptor;
    wrong_echo.methods = wrong_methods;
}

static void test_undecodable_replies(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    make_wrong_echo();
    const rpc_method say = {&wrong_echo, ECHO_SAY, false};
    const rpc_method count = {&wrong_echo, ECHO_COUNT, true};

    Rpctest__Req req = RPCTEST__REQ__INIT;
    req.text = "x";
    ProtobufCMessage *reply = NULL;
    rpc_status st;
    assert_int_equal(rpc_client_call_sync(cli, &say, &req.base, NULL, WAIT_MS, &reply,
                                          &st), -1);
    assert_null(reply);
    assert_int_equal(st.code, RPC_INTERNAL);
    assert_string_equal(st.message, "undecodable reply");

    sink s = {0};
    Rpctest__CountReq creq = RPCTEST__COUNT_REQ__INIT;
    creq.n = 0;     /* endless: only our cancel can end it */
    assert_int_equal(rpc_client_stream(cli, &count, &creq.base, NULL, sink_msg,
                                       sink_end, &s, &s.stream), 0);
    assert_true(wait_atomic_ge(&s.ended, 1, WAIT_MS));
    assert_int_equal(s.end.code, RPC_INTERNAL);
    assert_string_equal(s.end.message, "undecodable stream message");
    assert_int_equal(atomic_load(&s.count), 0);
    /* The server hears the client go. */
    assert_true(wait_atomic_ge(&ts->done_gone, 1, WAIT_MS));
    rpc_client_destroy(cli);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_thousand_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_ends_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_cancels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel_from_other_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_streams, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outbox_limit, setup_small_outbox, teardown),
        cmocka_unit_test_setup_teardown(test_undecodable_replies, setup, teardown),
    };
    rpc_init();
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rpc_shutdown();
    return failed;
}
