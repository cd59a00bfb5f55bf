/*
 * bench_clients.h — sungka-bench's side of the wire: the methods it calls,
 * pools of clients, the board service's lobby calls, the sinks its streams
 * and async replies land in, and the moves its scripted players choose.
 *
 * Threads
 *   find_methods(), the pools, the blocking calls (call_sync and the lobby
 *   calls over it), pick_lasting() (its scratch game is static) and
 *   new_local_game() run on the main thread; pick_move() on any. The sinks
 *   (board_msg, multi_msg, echo_msg, stream_end, reply_cb) are rpc/
 *   callbacks: they run on the clients' threads, count in sinks() and wake
 *   the main thread (bench_util.h), which waits on those counts.
 *
 * Ownership
 *   A pool owns its clients; pool_close() destroys them, after which their
 *   streams' end callbacks have run. A sub passed as a stream's user pointer
 *   must outlive the stream (until pool_close of its client). call_sync's
 *   reply is the caller's (protobuf_c_message_free_unpacked). The method
 *   table and the sink state live in this module until exit.
 */
#ifndef SUNGKA_BENCH_CLIENTS_H
#define SUNGKA_BENCH_CLIENTS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "games.h"
#include "rpc.h"

#define STREAMS_PER_CLIENT 50     /* the server allows 64 streams per connection */
#define CALLS_PER_CLIENT   50     /* outstanding unary calls per connection */

/* ---------------------------------------------------------------- methods */

typedef struct bench_methods {
    rpc_method create, join, subscribe, subscribe_many, move, ready, play;   /* the board service */
    rpc_method health;                            /* grpc.health.v1 Check */
    rpc_method say, watch, push;                  /* the echo (bench_echo.proto) */
} bench_methods;

/* Once, after rpc_init(), before methods() is used. */
void find_methods(void);
const bench_methods *methods(void);

/* ----------------------------------------------------------------- clients */

typedef struct pool {
    rpc_client **c;
    int n;
} pool;

void pool_open(pool *p, const char *servers, int n);
void pool_close(pool *p);
/* A unary call; fatal unless it succeeds within WAIT_MS. */
ProtobufCMessage *call_sync(rpc_client *cli, const rpc_method *m,
                            const ProtobufCMessage *req, const char *token,
                            const char *what);
void create_game(rpc_client *cli, char id[32]);
void join_game(rpc_client *cli, const char *id, const char *name, bool observe,
               char token[64]);
void set_ready(rpc_client *cli, const char *token);

/* ------------------------------------------------- stream and reply sinks */

/* A board stream's user pointer: whose events they are. */
enum { SUB_OBSERVER, SUB_PLAYER };
typedef struct sub {
    int kind;
    int seat;
    rpc_stream *stream;
    bool ended;                   /* under sinks()->mu: end_cb ran, the stream is gone */
} sub;

/* What the sinks have seen, for the main thread to wait on and read. */
typedef struct sink_state {
    pthread_mutex_t mu;           /* guards every sub's stream and ended */
    atomic_int hello;             /* snapshots (board) or hellos (echo) seen */
    atomic_int recv;              /* fan-out: this round's messages seen */
    atomic_int expect;            /* fan-out: how many make the round complete */
    atomic_llong t_last;          /* when the last of them arrived */
    atomic_int own;               /* move: the mover saw its own MoveMade */
    atomic_llong t_own;
    atomic_int replies;           /* unary replies */
    atomic_llong t_reply;
    atomic_int errors;
    atomic_ullong seq;            /* echo fan-out: this round's sequence number */
    atomic_size_t event_bytes;
} sink_state;

sink_state *sinks(void);

/* Stream callbacks: user is the stream's sub (board_msg; stream_end: or NULL). */
void board_msg(ProtobufCMessage *msg, void *user);
void multi_msg(ProtobufCMessage *msg, void *user);
void echo_msg(ProtobufCMessage *msg, void *user);
void stream_end(const rpc_status *status, void *user);
/* A unary reply callback for any call (user unused): counts it, or the error. */
void reply_cb(const rpc_status *st, ProtobufCMessage *reply, void *user);
/* Before a measurement: hello, recv, own, replies and errors to 0, expect to
 * INT_MAX. */
void reset_counters(void);
/* fatal if any call has failed since reset_counters(). */
void check_errors(const char *what);

/* ------------------------------------------------------------ move choice */

int pick_move(const game_state *g, int salt);
int pick_lasting(const game_state *g, int salt);
/* A fresh local game of sungka, to follow the service's. */
void new_local_game(game_state *g);

#endif
