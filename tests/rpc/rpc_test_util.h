/*
 * rpc_test_util.h — the rpc tests' harness: an Echo test server whose poll
 * loop runs on a thread of its own (the only thread that touches its calls),
 * client-side collectors for replies and streams, and bounded waits so a bug
 * fails a test instead of hanging it.
 */
#ifndef RPC_TEST_UTIL_H
#define RPC_TEST_UTIL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "echo.pb-c.h"
#include "rpc.h"
#include "rpc_internal.h"

/* Longest any test waits for one thing. */
#define WAIT_MS 10000

/* Method indices, in .proto order (protoc-c keeps declaration order). */
enum { ECHO_SAY, ECHO_COUNT, ECHO_HANG };

extern const rpc_method m_say, m_count, m_hang, m_nope;

/* Contract breaches seen in client callbacks (cmocka asserts only work on the
 * test's own thread, so the threads count and the test checks). */
extern atomic_int client_errors;

/* How many burst sends the server records (see CountReq.burst). */
#define BURST_MAX 32
/* How many "count until cancelled" streams the server feeds at once. */
#define TICKERS_MAX 256

typedef struct test_server {
    rpc_server *srv;
    int port;
    char target[64];              /* "127.0.0.1:<port>" */
    pthread_t thread;
    atomic_bool stop;
    atomic_bool wake_sent;        /* ts_stop is done with the server */

    /* Observations, written by the poll thread, read by tests. */
    atomic_int errors;            /* contract breaches seen on the poll thread */
    atomic_int say_calls;         /* Say handler invocations */
    atomic_int hang_calls;        /* Hang handler invocations */
    atomic_int done_calls;        /* done callbacks, every method */
    atomic_int done_gone;         /* ... of which with client_gone */
    atomic_int tickers_open;      /* endless streams currently fed */
    atomic_int burst_n;           /* entries in burst_rc / burst_len */
    int burst_rc[BURST_MAX];      /* rpc_call_send results, in order */
    size_t burst_len[BURST_MAX];  /* rpc_call_outbox_len after each */

    /* Poll-thread only. */
    rpc_call *tickers[TICKERS_MAX];
    int ticker_seq[TICKERS_MAX];
} test_server;

/* Create, register Echo (Count streaming), start, run the poll thread. */
void ts_start(test_server *ts, const rpc_server_options *opts);
/* Ask the poll thread to destroy the server and exit; join it. */
void ts_stop(test_server *ts);

rpc_client *test_client(const test_server *ts);

/* Poll `pred(arg)` until true or ms elapse. */
bool wait_until(bool (*pred)(void *), void *arg, int ms);
/* Wait until *v >= target. */
bool wait_atomic_ge(atomic_int *v, int target, int ms);

/* A unary reply, collected on the client thread. */
typedef struct reply_box {
    atomic_int done;
    rpc_status status;
    Rpctest__Rep *reply;          /* freed by reply_box_clear */
} reply_box;

void reply_box_cb(const rpc_status *status, ProtobufCMessage *reply, void *user);
void reply_box_clear(reply_box *b);

/* A stream's messages, checked for order (seq 0, 1, 2, ...). */
typedef struct sink {
    atomic_int count;
    atomic_int out_of_order;
    atomic_int ended;
    int cancel_after;             /* > 0: cancel the stream at this count */
    rpc_stream *stream;
    rpc_status end;
} sink;

void sink_msg(ProtobufCMessage *msg, void *user);
void sink_end(const rpc_status *status, void *user);
/* Open Count(n) into `s`; asserts it started. */
void sink_open(sink *s, rpc_client *cli, int n, int burst);

#endif /* RPC_TEST_UTIL_H */
