/*
 * bench_memory.c — a sungka-board child's resident memory per idle game and
 * per observer, whether it comes back when streams close, and how long a
 * crowd takes to join one game (bench_service.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "bench_children.h"
#include "bench_clients.h"
#include "bench_report.h"
#include "bench_service.h"
#include "bench_util.h"
#include "grpc/health/v1/health.pb-c.h"
#include "rpc.h"
#include "sungka/v1/sungka.pb-c.h"

#define OBSERVERS_PER_GAME 60     /* the memory section's crowds (fan-out: one game) */

/* ----------------------------------------------------------------- memory */

/* n observers, per_game to each of the games ids, each with its Subscribe
 * stream open on the pool's connections (50 to one); subs[n] are theirs. */
static void watch_games(rpc_client *lobby, pool *obs, char (*ids)[32], int n, int per_game,
                        sub *subs)
{
    char token[64];
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "obs%d", i % per_game);
        join_game(lobby, ids[i / per_game], name, true, token);
        subs[i] = (sub){SUB_OBSERVER, -1, NULL, false};
        Sungka__V1__SubscribeRequest sr = SUNGKA__V1__SUBSCRIBE_REQUEST__INIT;
        rpc_stream *st;
        if (rpc_client_stream(obs->c[i / STREAMS_PER_CLIENT], &methods()->subscribe, &sr.base,
                              token, board_msg, stream_end, &subs[i], &st) != 0)
            fatal("Subscribe: cannot start");
    }
}

static long rss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

/* The memory, streams and join sections' sungka-board child. */
static child mem_child;

static long settled_rss(pid_t pid)
{
    sleep_ms(300);
    return rss_kib(pid);
}

void bench_memory(int n_idle, int n_obs)
{
    board_start(&mem_child, ":memory:");
    const char *target = mem_child.target;
    pool lobby, obs;
    pool_open(&lobby, target, 1);
    Grpc__Health__V1__HealthCheckRequest hr = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
    protobuf_c_message_free_unpacked(
        call_sync(lobby.c[0], &methods()->health, &hr.base, NULL, "Health"), NULL);
    char id[32], token[64];
    for (int i = 0; i < 20; i++) {   /* warm the allocator and the store */
        create_game(lobby.c[0], id);
        join_game(lobby.c[0], id, "alice", false, token);
        join_game(lobby.c[0], id, "bob", false, token);
    }
    long base = settled_rss(mem_child.pid);

    for (int i = 0; i < n_idle; i++) {
        create_game(lobby.c[0], id);
        join_game(lobby.c[0], id, "alice", false, token);
        join_game(lobby.c[0], id, "bob", false, token);
    }
    long with_games = settled_rss(mem_child.pid);

    int k = (n_obs + OBSERVERS_PER_GAME - 1) / OBSERVERS_PER_GAME;
    char (*ids)[32] = calloc((size_t)k, sizeof *ids);
    for (int i = 0; i < k; i++)
        create_game(lobby.c[0], ids[i]);
    pool_open(&obs, target, (n_obs + STREAMS_PER_CLIENT - 1) / STREAMS_PER_CLIENT);
    reset_counters();
    /* The observers' connections (one per 50 streams) count as theirs. */
    long before_obs = settled_rss(mem_child.pid);
    sub *subs = calloc((size_t)n_obs, sizeof *subs);
    watch_games(lobby.c[0], &obs, ids, n_obs, OBSERVERS_PER_GAME, subs);
    wait_counts(&sinks()->hello, n_obs, NULL, 0, "observer snapshots (memory)");
    long with_obs = settled_rss(mem_child.pid);
    pool_close(&obs);
    pool_close(&lobby);
    child_stop(&mem_child);
    free(subs);
    free(ids);

    char param[24];
    snprintf(param, sizeof param, "%d games", n_idle);
    row *r = add_row("memory", "service RSS per idle game", param);
    r->value = (double)(with_games - base) * 1024.0 / n_idle;
    r->unit = "B";
    snprintf(r->note, sizeof r->note,
             "child sungka-board --db :memory:; game created, both seats joined, no streams "
             "(VmRSS %ld -> %ld KiB)", base, with_games);
    snprintf(param, sizeof param, "%d observers", n_obs);
    r = add_row("memory", "service RSS per connected observer", param);
    r->value = (double)(with_obs - before_obs) * 1024.0 / n_obs;
    r->unit = "B";
    snprintf(r->note, sizeof r->note,
             "joined + Subscribe stream open, %d per connection, %d per game "
             "(VmRSS %ld -> %ld KiB)", STREAMS_PER_CLIENT, OBSERVERS_PER_GAME, before_obs,
             with_obs);
    add_target("service memory per connected observer (KiB)", r->value / 1024.0, 64, "KiB",
               false);
}

/* Open n observers' streams on the service at target, `per_game` observers
 * to a game, 50 streams to a connection; returns the service's RSS with all
 * open, then closes every connection at once and returns when a health
 * check got through the departures (*close_ms after the close). */
static long crowd_round(const char *target, rpc_client *lobby, int n, int per_game,
                        double *close_ms)
{
    int k = (n + per_game - 1) / per_game;
    char (*ids)[32] = calloc((size_t)k, sizeof *ids);
    sub *subs = calloc((size_t)n, sizeof *subs);
    for (int i = 0; i < k; i++)
        create_game(lobby, ids[i]);
    pool obs;
    pool_open(&obs, target, (n + STREAMS_PER_CLIENT - 1) / STREAMS_PER_CLIENT);
    reset_counters();
    watch_games(lobby, &obs, ids, n, per_game, subs);
    wait_counts(&sinks()->hello, n, NULL, 0, "observer snapshots (streams)");
    long during = settled_rss(mem_child.pid);
    int64_t t_close = now_ns();
    pool_close(&obs);
    Grpc__Health__V1__HealthCheckRequest hr = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
    protobuf_c_message_free_unpacked(
        call_sync(lobby, &methods()->health, &hr.base, NULL, "Health"), NULL);
    *close_ms = (double)(now_ns() - t_close) / 1e6;
    free(subs);
    free(ids);
    return during;
}

/* The service's memory before, during and after n streams, all closed at
 * once: what the departures cost, and whether the memory comes back.
 * "Before" follows one round of the same size, so what a service pays once
 * and keeps bounded (SQLite's page cache, 2 MiB of 1 KiB pages and their
 * headers; gRPC's threads) is not counted as kept; the ratio to the RSS at
 * start is shown too. */
void bench_streams(int n, int per_game)
{
    /* A file store, as a service keeps: in ":memory:" the participants'
     * rows would stay in this process as the database's free pages. */
    remove_db(db_file());
    board_start(&mem_child, db_file());
    const char *target = mem_child.target;
    pool lobby;
    pool_open(&lobby, target, 1);
    double warm_ms, close_ms;
    long cold = rss_kib(mem_child.pid);
    crowd_round(target, lobby.c[0], n, per_game, &warm_ms);
    sleep_ms(2500);     /* past a ping tick: the sweep and the trim run there */
    long before = rss_kib(mem_child.pid);
    long during = crowd_round(target, lobby.c[0], n, per_game, &close_ms);
    sleep_ms(2500);
    long after = rss_kib(mem_child.pid);
    pool_close(&lobby);
    child_stop(&mem_child);
    remove_db(db_file());

    char param[32];
    snprintf(param, sizeof param, "%d streams", n);
    row *r = add_row("streams", "service RSS after they all closed / at start", param);
    r->value = (double)after / (double)cold;
    r->unit = "x";
    snprintf(r->note, sizeof r->note, "the first round fills SQLite's page cache (bounded)");
    r = add_row("streams", "service RSS after they all closed / before", param);
    r->value = (double)after / (double)before;
    r->unit = "x";
    snprintf(r->note, sizeof r->note,
             "VmRSS at start %ld KiB, before %ld KiB, with %d streams open %ld KiB, after "
             "%ld KiB; file store; %d observers to a game, %d streams to a connection; health answered "
             "%.0f ms after the close",
             cold, before, n, during, after, per_game, STREAMS_PER_CLIENT, close_ms);
    static char what[2][64];      /* targets keep the pointer */
    static int n_what;
    char *w = what[n_what++ % 2];
    snprintf(w, sizeof what[0], "RSS after %d streams closed / before", n);
    add_target(w, r->value, 1.10, "x", false);
}

/* One popular game: n observers join it and open their streams, one after
 * another from one client (50 streams to a connection), on a file store as a
 * service keeps. Reports the time until the last has its snapshot and the
 * service's memory per observer (the connections count as theirs). */
void bench_join(int n)
{
    remove_db(db_file());
    board_start(&mem_child, db_file());
    const char *target = mem_child.target;
    pool lobby, obs;
    pool_open(&lobby, target, 1);
    char id[32];
    create_game(lobby.c[0], id);
    pool_open(&obs, target, (n + STREAMS_PER_CLIENT - 1) / STREAMS_PER_CLIENT);
    reset_counters();
    long before = settled_rss(mem_child.pid);
    sub *subs = calloc((size_t)n, sizeof *subs);
    int64_t t0 = now_ns();
    watch_games(lobby.c[0], &obs, (char (*)[32])id, n, n, subs);
    wait_counts(&sinks()->hello, n, NULL, 0, "observer snapshots (join)");
    double secs = (double)(now_ns() - t0) / 1e9;
    long after = settled_rss(mem_child.pid);
    pool_close(&obs);
    pool_close(&lobby);
    child_stop(&mem_child);
    remove_db(db_file());
    free(subs);

    char param[32];
    snprintf(param, sizeof param, "%d observers", n);
    row *r = add_row("join", "observers of one game join (all)", param);
    r->value = secs;
    r->unit = "s";
    snprintf(r->note, sizeof r->note,
             "JoinGame(observe) then Subscribe, one after another from one client, %d streams "
             "to a connection, until the last snapshot; file store",
             STREAMS_PER_CLIENT);
    r = add_row("join", "service RSS per joined observer", param);
    r->value = (double)(after - before) * 1024.0 / n;
    r->unit = "B";
    snprintf(r->note, sizeof r->note, "VmRSS %ld -> %ld KiB with every stream open", before,
             after);
    static char what[64];         /* the target keeps the pointer */
    snprintf(what, sizeof what, "%d observers of one game join (s)", n);
    add_target(what, secs, 10, "s", false);
    add_target("service memory per joined observer (KiB)", r->value / 1024.0, 16, "KiB", false);
}
