/*
 * bench_service.h — sungka-bench's measurements, which main()
 * (bench_service.c) runs section by section.
 *
 * Each takes the address(es) of servers already started (bench_children.h)
 * and runs its own clients (bench_clients.h), or, for memory, streams,
 * join, relays and cluster, starts and stops its own children and adds its
 * own rows and targets (bench_report.h). Latencies are in microseconds.
 * Where a cpu_meter is passed, its window spans the timed part: the caller
 * sets its server (and side) beforehand and reads the CPU afterwards.
 *
 * Threads: all are called on the main thread, after rpc_init() and
 * find_methods(); they wait for their clients' callbacks (bench_util.h) and
 * return once every client they opened is closed. Any failure is fatal.
 */
#ifndef SUNGKA_BENCH_SERVICE_H
#define SUNGKA_BENCH_SERVICE_H

#include <stdbool.h>

#include "bench_children.h"
#include "bench_util.h"

/* bench_move_fanout.c: the unary Say round trip (the floor of a move), and
 * the Move call to the mover's own MoveMade event and to the Move reply
 * over as many games as it takes. */
stats bench_echo_rtt(const char *target, int calls);
void bench_move_rtt(const char *target, int moves, stats *ev_out, stats *reply_out,
                    int *games_out);
/* The same game on Board.Play streams: each move sent on the mover's stream,
 * timed to its own MoveMade there (its acknowledgement). */
void bench_play_rtt(const char *target, int moves, stats *ev_out, int *games_out);
/* One Push to n open Watch streams, per_conn to a connection, to the last
 * one's message; and a Move to the last of n observers' MoveMade (many:
 * each connection's observers on one SubscribeMany stream; watch_at: where
 * they watch, as "a,b,c", NULL: at target). */
stats bench_echo_fanout(cpu_meter *m, const char *target, int n, int per_conn, int rounds);
stats bench_board_fanout(cpu_meter *m, const char *target, int n, int per_conn, bool many,
                         int rounds, int *games_out, int *rounds_out, const char *watch_at);

/* bench_throughput.c: moves per second over n_games games, each with one
 * Move in flight, for ms; Say calls per second with n_inflight in flight. */
double bench_throughput(cpu_meter *m, const char *target, int n_games, int ms,
                        int *started_out);
/* The same with each seat on a Board.Play stream (a move sent on it, its
 * MoveMade there the answer). */
double bench_play_throughput(cpu_meter *m, const char *target, int n_games, int ms,
                             int *started_out);
double bench_echo_throughput(cpu_meter *m, const char *target, int n_inflight, int ms);

/* bench_memory.c: each on a sungka-board child of its own. */
void bench_memory(int n_idle, int n_obs);
void bench_streams(int n, int per_game);
void bench_join(int n);

/* bench_cluster.c: n observers directly and through three relays; nodes
 * sharing the PostgreSQL server at pg_url, and the failover. */
void bench_relays(int n, int rounds);
/* A rate and the service's CPU per move (us) of one row; {0}: not measured. */
typedef struct bench_rate {
    double per_s, cpu_us;
} bench_rate;

/* sqlite: the same run's 100 games on the file store, which the one node
 * on PostgreSQL is held against ({0} when tput did not run). */
void bench_cluster(const char *pg_url, int tput_ms, bench_rate sqlite);
/* 0 when the PostgreSQL server at pg_url answers, or -1 with its sentence
 * in why: checked before any section runs, so that a wrong --pg costs
 * nothing already measured. */
int bench_pg_check(const char *pg_url, char *why, size_t len);

#endif
