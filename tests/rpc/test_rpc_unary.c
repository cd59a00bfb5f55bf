/*
 * test_rpc_unary.c — unary calls end to end over loopback: round trip with
 * the bearer token, error statuses, unknown methods, malformed requests,
 * deadlines, the blocking helper (and its refusal on the client thread),
 * a dead target, cancelling on client destroy, and calls from many threads.
 */
#include "rpc_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static int setup(void **state)
{
    test_server *ts = calloc(1, sizeof *ts);
    ts_start(ts, NULL);
    *state = ts;
    atomic_store(&client_errors, 0);
    return 0;
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

static Rpctest__Rep *say_sync(rpc_client *cli, const char *text, const char *token,
                              rpc_status *st)
{
    Rpctest__Req req = RPCTEST__REQ__INIT;
    req.text = (char *)text;
    ProtobufCMessage *reply = NULL;
    int rc = rpc_client_call_sync(cli, &m_say, &req.base, token, WAIT_MS, &reply, st);
    assert_int_equal(rc, st->code == RPC_OK ? 0 : -1);
    if (st->code != RPC_OK)
        assert_null(reply);
    return (Rpctest__Rep *)reply;
}

static void test_roundtrip_with_token(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    rpc_status st;

    Rpctest__Rep *rep = say_sync(cli, "alice", "0123abcd", &st);
    assert_int_equal(st.code, RPC_OK);
    assert_non_null(rep);
    assert_non_null(strstr(rep->text, "hello alice|"));
    assert_non_null(strstr(rep->text, "|token=0123abcd|trc=8|"));
    assert_non_null(strstr(rep->text, "|auth=Bearer 0123abcd|arc=15|"));
    assert_non_null(strstr(rep->text, "|peer=ipv4:127.0.0.1:"));
    protobuf_c_message_free_unpacked(&rep->base, NULL);

    /* No token: the handler sees none. Async this time. */
    reply_box box = {0};
    Rpctest__Req req = RPCTEST__REQ__INIT;
    req.text = "bob";
    assert_int_equal(rpc_client_call(cli, &m_say, &req.base, NULL, WAIT_MS,
                                     reply_box_cb, &box), 0);
    assert_true(wait_atomic_ge(&box.done, 1, WAIT_MS));
    assert_int_equal(box.status.code, RPC_OK);
    assert_non_null(strstr(box.reply->text, "hello bob|token=-|trc=-1|auth=|arc=-1|"));
    reply_box_clear(&box);

    /* An empty token is sent as "Bearer " — not a bearer credential. */
    rep = say_sync(cli, "carol", "", &st);
    assert_int_equal(st.code, RPC_OK);
    assert_non_null(strstr(rep->text, "|token=-|trc=-1|auth=Bearer |"));
    protobuf_c_message_free_unpacked(&rep->base, NULL);

    /* A token metadata cannot carry is refused up front, no callback. */
    reply_box never = {0};
    assert_int_equal(rpc_client_call(cli, &m_say, &req.base, "bad\ntoken", WAIT_MS,
                                     reply_box_cb, &never), -1);
    rpc_client_destroy(cli);
    assert_int_equal(atomic_load(&never.done), 0);
    assert_int_equal(atomic_load(&ts->say_calls), 3);
}

static void test_error_status(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    rpc_status st;
    Rpctest__Rep *rep = say_sync(cli, "fail", NULL, &st);
    assert_null(rep);
    assert_int_equal(st.code, RPC_FAILED_PRECONDITION);
    assert_string_equal(st.message, "it is bob's turn");
    rpc_client_destroy(cli);
}

static void test_unknown_method(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    Rpctest__Req req = RPCTEST__REQ__INIT;
    ProtobufCMessage *reply = NULL;
    rpc_status st;
    assert_int_equal(rpc_client_call_sync(cli, &m_nope, &req.base, NULL, WAIT_MS,
                                          &reply, &st), -1);
    assert_null(reply);
    assert_int_equal(st.code, RPC_UNIMPLEMENTED);
    assert_non_null(strstr(st.message, "/rpctest.Other/Nope"));
    rpc_client_destroy(cli);
    assert_int_equal(atomic_load(&ts->say_calls), 0);
    assert_int_equal(atomic_load(&ts->hang_calls), 0);
}

static void test_malformed_request(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    /* Field 1, length-delimited, claims 5 bytes but only 2 follow. */
    static const unsigned char bad[] = {0x0a, 0x05, 'a', 'b'};
    reply_box box = {0};
    assert_int_equal(rpc__client_call_raw(cli, &m_say, bad, sizeof bad, NULL, WAIT_MS,
                                          reply_box_cb, &box), 0);
    assert_true(wait_atomic_ge(&box.done, 1, WAIT_MS));
    assert_int_equal(box.status.code, RPC_INVALID_ARGUMENT);
    assert_string_equal(box.status.message, "malformed request for /rpctest.Echo/Say");
    assert_null(box.reply);

    /* A well-formed raw request still works: the path is not what failed. */
    reply_box ok = {0};
    static const unsigned char good[] = {0x0a, 0x02, 'h', 'i'};
    assert_int_equal(rpc__client_call_raw(cli, &m_say, good, sizeof good, NULL, WAIT_MS,
                                          reply_box_cb, &ok), 0);
    assert_true(wait_atomic_ge(&ok.done, 1, WAIT_MS));
    assert_int_equal(ok.status.code, RPC_OK);
    assert_non_null(strstr(ok.reply->text, "hello hi|"));
    reply_box_clear(&ok);
    rpc_client_destroy(cli);
    /* The handler ran for the good one only. */
    assert_int_equal(atomic_load(&ts->say_calls), 1);
}

static void test_deadline_exceeded(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    Rpctest__Req req = RPCTEST__REQ__INIT;
    rpc_status st;
    ProtobufCMessage *reply = NULL;
    assert_int_equal(rpc_client_call_sync(cli, &m_hang, &req.base, NULL, 300, &reply,
                                          &st), -1);
    assert_int_equal(st.code, RPC_DEADLINE_EXCEEDED);
    assert_null(reply);
    /* The server's handler never finished; the done callback still came,
     * and says the client is gone. */
    assert_true(wait_atomic_ge(&ts->done_calls, 1, WAIT_MS));
    assert_int_equal(atomic_load(&ts->done_gone), 1);
    assert_int_equal(atomic_load(&ts->hang_calls), 1);
    rpc_client_destroy(cli);
}

struct nested {
    rpc_client *cli;
    atomic_int done;
    int rc;
    rpc_status st;
};

static void nested_cb(const rpc_status *status, ProtobufCMessage *reply, void *user)
{
    struct nested *n = user;
    (void)status;
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
    Rpctest__Req req = RPCTEST__REQ__INIT;
    ProtobufCMessage *r2 = NULL;
    n->rc = rpc_client_call_sync(n->cli, &m_say, &req.base, NULL, WAIT_MS, &r2, &n->st);
    if (r2)
        atomic_fetch_add(&client_errors, 1);
    atomic_store(&n->done, 1);
}

static void test_sync_refused_on_client_thread(void **state)
{
    test_server *ts = *state;
    struct nested n = {.cli = test_client(ts)};
    Rpctest__Req req = RPCTEST__REQ__INIT;
    assert_int_equal(rpc_client_call(n.cli, &m_say, &req.base, NULL, WAIT_MS,
                                     nested_cb, &n), 0);
    assert_true(wait_atomic_ge(&n.done, 1, WAIT_MS));
    assert_int_equal(n.rc, -1);
    assert_int_equal(n.st.code, RPC_INTERNAL);
    rpc_client_destroy(n.cli);
}

static void test_dead_target_unavailable(void **state)
{
    (void)state;
    /* A port that was just ours and now has no listener. */
    rpc_server *srv;
    int port;
    assert_int_equal(rpc_server_create("127.0.0.1:0", NULL, &srv, &port), 0);
    rpc_server_destroy(srv);
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%d", port);
    rpc_client *cli;
    assert_int_equal(rpc_client_create(target, NULL, &cli), 0);
    Rpctest__Req req = RPCTEST__REQ__INIT;
    rpc_status st;
    ProtobufCMessage *reply = NULL;
    assert_int_equal(rpc_client_call_sync(cli, &m_say, &req.base, NULL, WAIT_MS, &reply,
                                          &st), -1);
    assert_int_equal(st.code, RPC_UNAVAILABLE);
    rpc_client_destroy(cli);
}

static void test_destroy_cancels_outstanding(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    Rpctest__Req req = RPCTEST__REQ__INIT;
    reply_box box = {0};
    /* No deadline: only destroy can end it. */
    assert_int_equal(rpc_client_call(cli, &m_hang, &req.base, NULL, 0,
                                     reply_box_cb, &box), 0);
    assert_true(wait_atomic_ge(&ts->hang_calls, 1, WAIT_MS));
    rpc_client_destroy(cli);
    /* The callback ran before destroy returned. */
    assert_int_equal(atomic_load(&box.done), 1);
    assert_int_equal(box.status.code, RPC_CANCELLED);
    assert_true(wait_atomic_ge(&ts->done_gone, 1, WAIT_MS));
}

#define THREADS 4
#define CALLS_PER_THREAD 50

struct worker {
    rpc_client *cli;
    int ok;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < CALLS_PER_THREAD; i++) {
        char text[32];
        snprintf(text, sizeof text, "w%d", i);
        Rpctest__Req req = RPCTEST__REQ__INIT;
        req.text = text;
        ProtobufCMessage *reply = NULL;
        rpc_status st;
        if (rpc_client_call_sync(w->cli, &m_say, &req.base, "t", WAIT_MS, &reply, &st) == 0) {
            char want[40];
            snprintf(want, sizeof want, "hello %s|", text);
            if (strncmp(((Rpctest__Rep *)reply)->text, want, strlen(want)) == 0)
                w->ok++;
            protobuf_c_message_free_unpacked(reply, NULL);
        }
    }
    return NULL;
}

static void test_many_threads(void **state)
{
    test_server *ts = *state;
    rpc_client *cli = test_client(ts);
    pthread_t th[THREADS];
    struct worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (struct worker){cli, 0};
        assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(w[i].ok, CALLS_PER_THREAD);
    }
    rpc_client_destroy(cli);
    assert_int_equal(atomic_load(&ts->say_calls), THREADS * CALLS_PER_THREAD);
    assert_true(wait_atomic_ge(&ts->done_calls, THREADS * CALLS_PER_THREAD, WAIT_MS));
    assert_int_equal(atomic_load(&ts->done_gone), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_roundtrip_with_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_status, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_method, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deadline_exceeded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sync_refused_on_client_thread, setup, teardown),
        cmocka_unit_test(test_dead_target_unavailable),
        cmocka_unit_test_setup_teardown(test_destroy_cancels_outstanding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_threads, setup, teardown),
    };
    rpc_init();
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rpc_shutdown();
    return failed;
}
