/*
 * test_rpc_server.c — the server's lifetime and the small helpers: waking a
 * blocked poll from another thread, poll timeouts, destroying a server with
 * streams and unanswered calls open, creation and registration errors, the
 * bearer parser, code names, and safe truncation of status messages.
 */
#include "rpc_test_util.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void *waker(void *arg)
{
    struct timespec d = {0, 200 * 1000 * 1000};
    nanosleep(&d, NULL);
    rpc_server_wake(arg);
    return NULL;
}

static void test_wake(void **state)
{
    (void)state;
    rpc_server *srv;
    int port;
    assert_int_equal(rpc_server_create("127.0.0.1:0", NULL, &srv, &port), 0);
    assert_int_equal(rpc_server_start(srv), 0);
    /* Nothing will ever complete: only the wake can end a poll(-1). A broken
     * wake hangs here, and ctest's timeout fails the test. */
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, waker, srv), 0);
    long long t0 = now_ms();
    assert_int_equal(rpc_server_poll(srv, -1), 0);
    long long took = now_ms() - t0;
    pthread_join(th, NULL);
    assert_true(took < WAIT_MS);
    rpc_server_destroy(srv);
}

static void test_poll_timeout(void **state)
{
    (void)state;
    rpc_server *srv;
    int port;
    assert_int_equal(rpc_server_create("127.0.0.1:0", NULL, &srv, &port), 0);
    /* Not started yet: nothing to poll. */
    assert_int_equal(rpc_server_poll(srv, 0), -1);
    assert_int_equal(rpc_server_start(srv), 0);
    assert_int_equal(rpc_server_poll(srv, 0), 0);
    long long t0 = now_ms();
    assert_int_equal(rpc_server_poll(srv, 250), 0);
    /* A lower bound only: it waited, it did not spin back at once. */
    assert_true(now_ms() - t0 >= 200);
    rpc_server_destroy(srv);
}

static void test_destroy_with_streams_open(void **state)
{
    (void)state;
    test_server *ts = calloc(1, sizeof *ts);
    ts_start(ts, NULL);
    atomic_store(&client_errors, 0);
    rpc_client *a = test_client(ts), *b = test_client(ts);
    static sink s[3];
    memset(s, 0, sizeof s);
    sink_open(&s[0], a, 0, 0);
    sink_open(&s[1], a, 0, 0);
    sink_open(&s[2], b, 0, 0);
    reply_box hang = {0};
    Rpctest__Req req = RPCTEST__REQ__INIT;
    assert_int_equal(rpc_client_call(b, &m_hang, &req.base, NULL, 0, reply_box_cb, &hang), 0);
    for (int i = 0; i < 3; i++)
        assert_true(wait_atomic_ge(&s[i].count, 2, WAIT_MS));
    assert_true(wait_atomic_ge(&ts->hang_calls, 1, WAIT_MS));

    ts_stop(ts);   /* rpc_server_destroy on the poll thread */

    /* Every open call's done callback ran, none with client_gone. */
    assert_int_equal(atomic_load(&ts->done_calls), 4);
    assert_int_equal(atomic_load(&ts->done_gone), 0);
    assert_int_equal(atomic_load(&ts->tickers_open), 0);
    assert_int_equal(atomic_load(&ts->errors), 0);
    /* And every client learns, with a status that is not OK. */
    for (int i = 0; i < 3; i++) {
        assert_true(wait_atomic_ge(&s[i].ended, 1, WAIT_MS));
        assert_int_not_equal(s[i].end.code, RPC_OK);
        print_message("stream %d ended %s: %s\n", i, rpc_code_name(s[i].end.code),
                      s[i].end.message);
    }
    assert_true(wait_atomic_ge(&hang.done, 1, WAIT_MS));
    assert_int_not_equal(hang.status.code, RPC_OK);
    rpc_client_destroy(a);
    rpc_client_destroy(b);
    assert_int_equal(atomic_load(&client_errors), 0);
    free(ts);
}

static void dummy_handler(rpc_call *call, unsigned method_index,
                          const ProtobufCMessage *request, void *user)
{
    (void)method_index;
    (void)request;
    (void)user;
    rpc_call_finish(call, RPC_INTERNAL, "unused");
}

static void test_create_and_register_errors(void **state)
{
    (void)state;
    rpc_server *srv = (rpc_server *)&srv;   /* junk, to see it is reset */
    int port = 0;
    /* An address no interface here has. */
    assert_int_equal(rpc_server_create("192.0.2.1:0", NULL, &srv, &port), -1);
    assert_null(srv);

    assert_int_equal(rpc_server_create("127.0.0.1:0", NULL, &srv, &port), 0);
    static const char *const typo[] = {"Cuont", NULL};
    assert_int_equal(rpc_server_add_service(srv, &rpctest__echo__descriptor, typo,
                                            dummy_handler, NULL), -1);
    assert_int_equal(rpc_server_add_service(srv, &rpctest__echo__descriptor, NULL,
                                            NULL, NULL), -1);
    assert_int_equal(rpc_server_add_service(srv, &rpctest__echo__descriptor, NULL,
                                            dummy_handler, NULL), 0);
    /* Destroying a server that was never started is fine. */
    rpc_server_destroy(srv);
}

/* Methods by name: the handlers follow the names, whatever their order in
 * the table; a table that misses a method or names one the service lacks is
 * refused; the turn hook runs before unbatched handlers and after a poll. */
static int hook_runs, hook_runs_seen_by_say, said;

static void count_hook(void *user)
{
    (void)user;
    hook_runs++;
}

static void say_by_name(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)user;
    const Rpctest__Req *req = (const Rpctest__Req *)request;
    hook_runs_seen_by_say = hook_runs;
    said++;
    Rpctest__Rep rep = RPCTEST__REP__INIT;
    rep.text = req->text;
    rep.seq = 42;
    rpc_call_reply(call, &rep.base);
}

static void never(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    (void)user;
    rpc_call_finish(call, RPC_INTERNAL, "the wrong handler ran");
}

struct say_thread {
    const char *target;
    rpc_code code;
    int seq;
    atomic_bool done;
};

static void *say_once(void *arg)
{
    struct say_thread *t = arg;
    rpc_client *cli = NULL;
    assert_int_equal(rpc_client_create(t->target, NULL, &cli), 0);
    Rpctest__Req req = RPCTEST__REQ__INIT;
    req.text = "hello";
    ProtobufCMessage *reply = NULL;
    rpc_status st;
    rpc_client_call_sync(cli, &m_say, &req.base, NULL, 5000, &reply, &st);
    t->code = st.code;
    if (reply) {
        t->seq = ((Rpctest__Rep *)reply)->seq;
        protobuf_c_message_free_unpacked(reply, NULL);
    }
    rpc_client_destroy(cli);
    atomic_store(&t->done, true);
    return NULL;
}

static void test_methods_by_name(void **state)
{
    (void)state;
    rpc_server *srv = NULL;
    int port = 0;
    assert_int_equal(rpc_server_create("127.0.0.1:0", NULL, &srv, &port), 0);
    const rpc_method_entry missing[] = {{"Say", say_by_name, false, false, false},
                                        {"Count", never, true, false, false}};
    assert_int_equal(rpc_server_add_methods(srv, &rpctest__echo__descriptor, missing, 2, NULL),
                     -1);
    const rpc_method_entry unknown[] = {{"Say", say_by_name, false, false, false},
                                        {"Count", never, true, false, false},
                                        {"Hang", never, false, false, false},
                                        {"Cuont", never, true, false, false}};
    assert_int_equal(rpc_server_add_methods(srv, &rpctest__echo__descriptor, unknown, 4, NULL),
                     -1);
    const rpc_method_entry twice[] = {{"Say", say_by_name, false, false, false},
                                      {"Say", never, false, false, false},
                                      {"Hang", never, false, false, false}};
    assert_int_equal(rpc_server_add_methods(srv, &rpctest__echo__descriptor, twice, 3, NULL),
                     -1);
    /* Not in the .proto's order. */
    static const rpc_method_entry reordered[] = {{"Hang", never, false, true, false},
                                                 {"Count", never, true, false, false},
                                                 {"Say", say_by_name, false, false, false}};
    assert_int_equal(rpc_server_add_methods(srv, &rpctest__echo__descriptor, reordered, 3,
                                            NULL), 0);
    rpc_server_set_turn_hook(srv, count_hook, NULL);
    assert_int_equal(rpc_server_start(srv), 0);

    char target[32];
    snprintf(target, sizeof target, "127.0.0.1:%d", port);
    struct say_thread t = {.target = target};
    atomic_init(&t.done, false);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, say_once, &t), 0);
    for (int i = 0; i < 1000 && !atomic_load(&t.done); i++)
        rpc_server_poll(srv, 10);
    pthread_join(thread, NULL);
    assert_int_equal(t.code, RPC_OK);
    assert_int_equal(t.seq, 42);
    assert_int_equal(said, 1);
    assert_true(hook_runs_seen_by_say >= 1);     /* before the handler */
    assert_true(hook_runs > hook_runs_seen_by_say);   /* and at the end of the turn */
    rpc_server_destroy(srv);
}

static void test_bearer_parser(void **state)
{
    (void)state;
    char buf[16];
    struct { const char *in; int rc; const char *tok; } cases[] = {
        {"Bearer abc", 3, "abc"},
        {"bearer abc", 3, "abc"},
        {"BEARER   abc", 3, "abc"},
        {"Bearer 0123456789abcdef0123", 20, "0123456789abcde"},  /* truncated */
        {"Bearer", -1, ""},
        {"Bearer ", -1, ""},
        {"Bearer    ", -1, ""},
        {"Bearerabc", -1, ""},
        {"Basic abc", -1, ""},
        {"Bearer a b", -1, ""},
        {"Bearer a\tb", -1, ""},
        {" Bearer abc", -1, ""},
        {"", -1, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(buf, 'x', sizeof buf);
        int rc = rpc__parse_bearer(cases[i].in, strlen(cases[i].in), buf, sizeof buf);
        assert_int_equal(rc, cases[i].rc);
        assert_string_equal(buf, cases[i].tok);
    }
    /* Not NUL-terminated input: only n bytes are read. */
    assert_int_equal(rpc__parse_bearer("Bearer abcdef", 9, buf, sizeof buf), 2);
    assert_string_equal(buf, "ab");
}

static void test_code_names_and_status(void **state)
{
    (void)state;
    assert_string_equal(rpc_code_name(RPC_OK), "OK");
    assert_string_equal(rpc_code_name(RPC_FAILED_PRECONDITION), "FAILED_PRECONDITION");
    assert_string_equal(rpc_code_name(RPC_UNAUTHENTICATED), "UNAUTHENTICATED");
    assert_non_null(rpc_code_name((rpc_code)99));
    assert_non_null(rpc_code_name((rpc_code)-1));

    /* 300 bytes of "é" (2 bytes each): cut to fit, never mid-character. */
    char big[601];
    for (int i = 0; i < 300; i++)
        memcpy(big + 2 * i, "\xc3\xa9", 2);
    big[600] = '\0';
    rpc_status st;
    rpc__status_set(&st, GRPC_STATUS_ABORTED, grpc_slice_from_static_string(big));
    assert_int_equal(st.code, RPC_ABORTED);
    assert_int_equal(strlen(st.message), 254);
    assert_memory_equal(st.message, big, 254);
    rpc__status_set(&st, (grpc_status_code)42, grpc_slice_from_static_string("odd"));
    assert_int_equal(st.code, RPC_UNKNOWN);
    assert_string_equal(st.message, "odd");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wake),
        cmocka_unit_test(test_poll_timeout),
        cmocka_unit_test(test_destroy_with_streams_open),
        cmocka_unit_test(test_create_and_register_errors),
        cmocka_unit_test(test_methods_by_name),
        cmocka_unit_test(test_bearer_parser),
        cmocka_unit_test(test_code_names_and_status),
    };
    rpc_init();
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rpc_shutdown();
    return failed;
}
