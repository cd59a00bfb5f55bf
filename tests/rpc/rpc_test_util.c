/*
 * rpc_test_util.c — the Echo test server (handlers and poll thread) and the
 * client-side collectors shared by the rpc test programs.
 */
#include "rpc_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

const rpc_method m_say = {&rpctest__echo__descriptor, ECHO_SAY, false};
const rpc_method m_count = {&rpctest__echo__descriptor, ECHO_COUNT, true};
const rpc_method m_hang = {&rpctest__echo__descriptor, ECHO_HANG, false};
const rpc_method m_nope = {&rpctest__other__descriptor, 0, false};

atomic_int client_errors;

/* ------------------------------------------------------------------------ */
/* Server side (poll thread)                                                */
/* ------------------------------------------------------------------------ */

static void on_done(rpc_call *call, bool client_gone, void *user)
{
    test_server *ts = user;
    for (size_t i = 0; i < TICKERS_MAX; i++) {
        if (ts->tickers[i] == call) {
            ts->tickers[i] = NULL;
            atomic_fetch_sub(&ts->tickers_open, 1);
        }
    }
    if (client_gone)
        atomic_fetch_add(&ts->done_gone, 1);
    atomic_fetch_add(&ts->done_calls, 1);
}

static void send_seq(rpc_call *call, int seq, int *rc, size_t *len)
{
    Rpctest__Rep rep = RPCTEST__REP__INIT;
    rep.seq = seq;
    rep.text = "tick";
    *rc = rpc_call_send(call, &rep.base);
    if (len)
        *len = rpc_call_outbox_len(call);
}

static void do_say(test_server *ts, rpc_call *call, const Rpctest__Req *req)
{
    atomic_fetch_add(&ts->say_calls, 1);
    if (strcmp(req->text, "fail") == 0) {
        rpc_call_finish(call, RPC_FAILED_PRECONDITION, "it is bob's turn");
        return;
    }
    /* "go HOST:PORT": this call belongs at another server (rpc_pool). */
    if (strncmp(req->text, "go ", 3) == 0) {
        rpc_call_finish_elsewhere(call, RPC_UNAVAILABLE, "ELSEWHERE", req->text + 3,
                                  "ask the other one");
        return;
    }
    char token[64], auth[128], text[512];
    int trc = rpc_call_bearer(call, token, sizeof token);
    int arc = rpc_call_metadata(call, "authorization", auth, sizeof auth);
    /* Everything the handler saw goes back in the reply, for the test to
     * check on its own thread. */
    snprintf(text, sizeof text, "hello %s|token=%s|trc=%d|auth=%s|arc=%d|peer=%s",
             req->text, trc >= 0 ? token : "-", trc, auth, arc, rpc_call_peer(call));
    Rpctest__Rep rep = RPCTEST__REP__INIT;
    rep.text = text;
    if (rpc_call_reply(call, &rep.base) != 0)
        atomic_fetch_add(&ts->errors, 1);
    /* A second finish, or a send after the reply, is refused. */
    if (rpc_call_finish(call, RPC_OK, NULL) != -1 || rpc_call_send(call, &rep.base) != -1)
        atomic_fetch_add(&ts->errors, 1);
}

static void do_count(test_server *ts, rpc_call *call, const Rpctest__CountReq *req)
{
    if (req->burst > 0) {
        int n = req->burst < BURST_MAX ? req->burst : BURST_MAX;
        for (int i = 0; i < n; i++)
            send_seq(call, i, &ts->burst_rc[i], &ts->burst_len[i]);
        atomic_store(&ts->burst_n, n);
        rpc_call_finish(call, RPC_OK, NULL);
    } else if (req->n > 0) {
        for (int i = 0; i < req->n; i++) {
            int rc;
            send_seq(call, i, &rc, NULL);
            if (rc != 0)
                atomic_fetch_add(&ts->errors, 1);
        }
        rpc_call_finish(call, RPC_OK, NULL);
    } else if (req->n < 0) {
        rpc_call_finish(call, RPC_OUT_OF_RANGE, "n must not be negative");
    } else {
        /* Endless: fed from the poll loop until the client goes. */
        for (size_t i = 0; i < TICKERS_MAX; i++) {
            if (!ts->tickers[i]) {
                ts->tickers[i] = call;
                ts->ticker_seq[i] = 0;
                atomic_fetch_add(&ts->tickers_open, 1);
                return;
            }
        }
        rpc_call_finish(call, RPC_RESOURCE_EXHAUSTED, "too many tickers");
    }
}

static void echo_handler(rpc_call *call, unsigned method_index,
                         const ProtobufCMessage *request, void *user)
{
    test_server *ts = user;
    rpc_call_on_done(call, on_done, ts);
    switch (method_index) {
    case ECHO_SAY:
        do_say(ts, call, (const Rpctest__Req *)request);
        break;
    case ECHO_COUNT:
        do_count(ts, call, (const Rpctest__CountReq *)request);
        break;
    case ECHO_HANG:
        /* Never answered: the done callback is all we will hear. */
        atomic_fetch_add(&ts->hang_calls, 1);
        break;
    default:
        atomic_fetch_add(&ts->errors, 1);
        rpc_call_finish(call, RPC_INTERNAL, "unexpected method");
    }
}

static void feed_tickers(test_server *ts)
{
    for (size_t i = 0; i < TICKERS_MAX; i++) {
        rpc_call *c = ts->tickers[i];
        /* Keep a few in the outbox, no more: a ticker is a slow trickle. */
        while (c && rpc_call_outbox_len(c) < 4) {
            int rc;
            send_seq(c, ts->ticker_seq[i], &rc, NULL);
            if (rc != 0)
                break;
            ts->ticker_seq[i]++;
        }
    }
}

static void *poll_thread(void *arg)
{
    test_server *ts = arg;
    while (!atomic_load(&ts->stop)) {
        if (rpc_server_poll(ts->srv, 1000) != 0)
            break;
        feed_tickers(ts);
    }
    /* ts_stop may still be inside rpc_server_wake: keep the server (and
     * serving) until it is out. */
    while (!atomic_load(&ts->wake_sent))
        rpc_server_poll(ts->srv, 10);
    rpc_server_destroy(ts->srv);
    return NULL;
}

void ts_start(test_server *ts, const rpc_server_options *opts)
{
    static const char *const streaming[] = {"Count", NULL};
    memset(ts, 0, sizeof *ts);
    assert_int_equal(rpc_server_create("127.0.0.1:0", opts, &ts->srv, &ts->port), 0);
    assert_true(ts->port > 0);
    snprintf(ts->target, sizeof ts->target, "127.0.0.1:%d", ts->port);
    assert_int_equal(rpc_server_add_service(ts->srv, &rpctest__echo__descriptor,
                                            streaming, echo_handler, ts), 0);
    assert_int_equal(rpc_server_start(ts->srv), 0);
    assert_int_equal(pthread_create(&ts->thread, NULL, poll_thread, ts), 0);
}

void ts_stop(test_server *ts)
{
    /* The 1 s poll slices above end on the flag alone; the wake makes it
     * prompt (and tests rpc_server_wake from another thread every time). */
    atomic_store(&ts->stop, true);
    rpc_server_wake(ts->srv);
    atomic_store(&ts->wake_sent, true);
    pthread_join(ts->thread, NULL);
    ts->srv = NULL;
}

rpc_client *test_client(const test_server *ts)
{
    rpc_client *cli = NULL;
    assert_int_equal(rpc_client_create(ts->target, NULL, &cli), 0);
    assert_non_null(cli);
    return cli;
}

/* ------------------------------------------------------------------------ */
/* Waiting                                                                  */
/* ------------------------------------------------------------------------ */

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

bool wait_until(bool (*pred)(void *), void *arg, int ms)
{
    long long end = now_ms() + ms;
    for (;;) {
        if (pred(arg))
            return true;
        if (now_ms() >= end)
            return false;
        struct timespec d = {0, 2 * 1000 * 1000};
        nanosleep(&d, NULL);
    }
}

struct ge { atomic_int *v; int target; };

static bool ge_pred(void *arg)
{
    struct ge *g = arg;
    return atomic_load(g->v) >= g->target;
}

bool wait_atomic_ge(atomic_int *v, int target, int ms)
{
    struct ge g = {v, target};
    return wait_until(ge_pred, &g, ms);
}

/* ------------------------------------------------------------------------ */
/* Client-side collectors (client thread)                                   */
/* ------------------------------------------------------------------------ */

void reply_box_cb(const rpc_status *status, ProtobufCMessage *reply, void *user)
{
    reply_box *b = user;
    b->status = *status;
    b->reply = (Rpctest__Rep *)reply;
    /* No cmocka asserts off the test thread: record, let the test check. */
    if (reply ? reply->descriptor != &rpctest__rep__descriptor : status->code == RPC_OK)
        atomic_fetch_add(&client_errors, 1);
    atomic_store(&b->done, 1);
}

void reply_box_clear(reply_box *b)
{
    if (b->reply)
        protobuf_c_message_free_unpacked(&b->reply->base, NULL);
    b->reply = NULL;
}

void sink_msg(ProtobufCMessage *msg, void *user)
{
    sink *s = user;
    Rpctest__Rep *rep = (Rpctest__Rep *)msg;
    int n = atomic_load(&s->count);
    if (rep->seq != n)
        atomic_store(&s->out_of_order, 1);
    protobuf_c_message_free_unpacked(msg, NULL);
    atomic_store(&s->count, n + 1);
    if (s->cancel_after > 0 && n + 1 == s->cancel_after) {
        /* On the client thread end_cb cannot have run yet, so a second
         * cancel is legal here: it must be harmless (idempotent). */
        rpc_stream_cancel(s->stream);
        rpc_stream_cancel(s->stream);
    }
}

void sink_end(const rpc_status *status, void *user)
{
    sink *s = user;
    s->end = *status;
    atomic_store(&s->ended, 1);
}

void sink_open(sink *s, rpc_client *cli, int n, int burst)
{
    Rpctest__CountReq req = RPCTEST__COUNT_REQ__INIT;
    req.n = n;
    req.burst = burst;
    assert_int_equal(rpc_client_stream(cli, &m_count, &req.base, NULL, sink_msg,
                                       sink_end, s, &s->stream), 0);
}
