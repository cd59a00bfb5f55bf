/*
 * test_rpc_pool.c — a pool of channels to a cluster's nodes (rpc.h,
 * "Pools"): a call answered with an endpoint moves the pool there, with
 * the reason and the endpoint read from the trailing metadata; a node that
 * does not answer moves it to the next address given; and from a node a
 * call named, back to the first given.
 */
#include "rpc_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static int say(rpc_pool *p, const char *text, rpc_status *st)
{
    Rpctest__Req req = RPCTEST__REQ__INIT;
    req.text = (char *)text;
    ProtobufCMessage *reply = NULL;
    int rc = rpc_client_call_sync(rpc_pool_client(p), &m_say, &req.base, NULL, WAIT_MS, &reply,
                                  st);
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
    return rc;
}

static void follows_the_endpoint(void **state)
{
    (void)state;
    test_server a = {0}, b = {0};
    ts_start(&a, NULL);
    ts_start(&b, NULL);
    rpc_pool *p;
    assert_int_equal(rpc_pool_create(a.target, NULL, &p), 0);
    char at[RPC_ADDRESS_BYTES], go[96];
    assert_string_equal(rpc_pool_address(p, at, sizeof at), a.target);

    snprintf(go, sizeof go, "go %s", b.target);
    rpc_status st;
    assert_int_equal(say(p, go, &st), -1);
    assert_int_equal(st.code, RPC_UNAVAILABLE);
    assert_string_equal(st.reason, "ELSEWHERE");
    assert_string_equal(st.endpoint, b.target);
    assert_true(rpc_pool_follow(p, &st));
    assert_string_equal(rpc_pool_address(p, at, sizeof at), b.target);
    assert_int_equal(say(p, "bob", &st), 0);
    assert_int_equal(atomic_load(&b.say_calls), 1);
    assert_string_equal(st.reason, "");             /* a plain answer has none */

    /* b dies: from a node a call named, the pool goes back to the first given. */
    ts_stop(&b);
    assert_int_equal(say(p, "anyone", &st), -1);
    assert_int_equal(st.code, RPC_UNAVAILABLE);
    assert_true(rpc_pool_follow(p, &st));
    assert_string_equal(rpc_pool_address(p, at, sizeof at), a.target);
    assert_int_equal(say(p, "ann", &st), 0);
    /* a refusal that is no redirect moves nothing */
    assert_int_equal(say(p, "fail", &st), -1);
    assert_false(rpc_pool_follow(p, &st));
    rpc_pool_destroy(p);
    ts_stop(&a);
}

static void next_address_when_one_is_down(void **state)
{
    (void)state;
    test_server a = {0}, b = {0};
    ts_start(&a, NULL);
    ts_start(&b, NULL);
    char list[200];
    snprintf(list, sizeof list, "%s,%s", a.target, b.target);
    rpc_pool *p;
    assert_int_equal(rpc_pool_create(list, NULL, &p), 0);
    ts_stop(&a);
    rpc_status st;
    assert_int_equal(say(p, "x", &st), -1);
    assert_true(rpc_pool_follow(p, &st));
    assert_int_equal(say(p, "x", &st), 0);
    assert_int_equal(atomic_load(&b.say_calls), 1);
    rpc_pool_go_to_first(p);
    char at[RPC_ADDRESS_BYTES];
    assert_string_equal(rpc_pool_address(p, at, sizeof at), a.target);
    rpc_pool_destroy(p);
    ts_stop(&b);
}

/* A channel to another node for one caller's game, the pool staying where
 * it is for the rest (a relay's feeds on several nodes: each follows its
 * own game, and none moves the others). */
static void a_channel_elsewhere_moves_nothing(void **state)
{
    (void)state;
    test_server a = {0}, b = {0};
    ts_start(&a, NULL);
    ts_start(&b, NULL);
    rpc_pool *p;
    assert_int_equal(rpc_pool_create(a.target, NULL, &p), 0);
    rpc_client *at_b = rpc_pool_client_at(p, b.target);
    assert_non_null(at_b);
    assert_ptr_equal(rpc_pool_client_at(p, b.target), at_b);      /* made once */
    char at[RPC_ADDRESS_BYTES];
    assert_string_equal(rpc_pool_address(p, at, sizeof at), a.target);
    Rpctest__Req req = RPCTEST__REQ__INIT;
    req.text = "bob";
    ProtobufCMessage *reply = NULL;
    rpc_status st;
    assert_int_equal(rpc_client_call_sync(at_b, &m_say, &req.base, NULL, WAIT_MS, &reply, &st),
                     0);
    protobuf_c_message_free_unpacked(reply, NULL);
    assert_int_equal(atomic_load(&b.say_calls), 1);
    assert_int_equal(say(p, "ann", &st), 0);                       /* still at a */
    assert_int_equal(atomic_load(&a.say_calls), 1);
    /* the pool going there later uses the same channel */
    assert_int_equal(rpc_pool_go_to(p, b.target), 0);
    assert_ptr_equal(rpc_pool_client(p), at_b);
    assert_null(rpc_pool_client_at(p, ""));
    rpc_pool_destroy(p);
    ts_stop(&a);
    ts_stop(&b);
}

static void bad_lists_refused(void **state)
{
    (void)state;
    rpc_pool *p = (rpc_pool *)1;
    assert_int_equal(rpc_pool_create("", NULL, &p), -1);
    assert_null(p);
    assert_int_equal(rpc_pool_create("127.0.0.1:7070,bad", NULL, &p), -1);
    assert_int_equal(rpc_pool_create("127.0.0.1:99999", NULL, &p), -1);
    assert_true(rpc_target_ok("[::1]:7070") && rpc_target_ok("unix:/tmp/s") &&
                !rpc_target_ok("host:") && !rpc_target_ok(":7070"));
    char long_one[300];
    memset(long_one, 'a', sizeof long_one - 1);
    long_one[sizeof long_one - 1] = '\0';
    assert_int_equal(rpc_pool_create(long_one, NULL, &p), -1);
}

int main(void)
{
    rpc_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(follows_the_endpoint),
        cmocka_unit_test(next_address_when_one_is_down),
        cmocka_unit_test(a_channel_elsewhere_moves_nothing),
        cmocka_unit_test(bad_lists_refused),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rpc_shutdown();
    return rc;
}
