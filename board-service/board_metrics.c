/*
 * board_metrics.c — the board service's metrics (--metrics HOST:PORT, GET
 * /metrics; the list with its meaning is docs/operating.md, "Monitoring").
 *
 * Counters are counted where things happen (room_moves.c, room_log.c,
 * accounts_rpc.c, cluster.c, refusals through the RPC server's hook);
 * gauges are counted here by walking the games, at most once a second,
 * since that costs one look at every participant. Everything runs on the
 * loop thread; the listener's thread (metrics.c) only formats what
 * board_metrics_turn published.
 */
#include <stdio.h>

#include "accounts_pool.h"
#include "log_line.h"
#include "board_rpc.h"

#define GAUGES_EVERY_S 1.0

/* Upper bounds, in seconds: a commit on a local disk takes about a
 * millisecond, on a synchronous PostgreSQL standby tens of them. */
static const double latency_bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                        0.1, 0.25, 0.5, 1, 2.5, 5, 10};
#define N_BOUNDS ((int)(sizeof latency_bounds / sizeof latency_bounds[0]))

/* A quick pairing's wait, in seconds: ranges widen every 5 s, any after 60. */
static const double wait_bounds[] = {0.1, 0.5, 1, 2.5, 5, 10, 15, 20, 30, 45, 60, 90, 120};

static const char *const state_names[] = {
    [ROOM_WAITING] = "waiting", [ROOM_RUNNING] = "running",
    [ROOM_FINISHED] = "finished", [ROOM_ABANDONED] = "abandoned",
};

int board_metrics_start(board_service *svc, char *err, size_t errlen)
{
    if (!svc->cfg.metrics)
        return 0;
    metrics *set = metrics_create();
    if (!set) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    board_metrics *m = &svc->m;
    for (int s = ROOM_WAITING; s <= ROOM_ABANDONED; s++)
        m->games[s] = metrics_gauge(set, "sungka_games", "Games hosted here, by state.",
                                    "state", state_names[s]);
    m->participants = metrics_gauge(set, "sungka_participants",
                                    "Players and observers in the games hosted here.", NULL,
                                    NULL);
    m->streams = metrics_gauge(set, "sungka_streams",
                               "Open event streams (each SubscribeMany subscription one).",
                               NULL, NULL);
    m->password_jobs = metrics_gauge(set, "sungka_password_jobs",
                                     "Password checks waiting for a hashing thread or hashing.",
                                     NULL, NULL);
    m->moves = metrics_counter(set, "sungka_moves_total", "Moves stored and acknowledged.",
                               NULL, NULL);
    m->move_commit = metrics_histogram(set, "sungka_move_commit_seconds",
                                       "From a move's arrival to its transaction's commit.",
                                       latency_bounds, N_BOUNDS);
    m->events_sent = metrics_counter(set, "sungka_events_sent_total",
                                     "Events queued on subscribers' streams.", NULL, NULL);
    m->limits_hit = metrics_counter(set, "sungka_limits_hit_total",
                                    "Calls refused RESOURCE_EXHAUSTED: a limit was reached.",
                                    NULL, NULL);
    m->signins = metrics_counter(set, "sungka_signins_total", "Sign-ins that succeeded.", NULL,
                                 NULL);
    m->signin_failures = metrics_counter(set, "sungka_signin_failures_total",
                                         "Sign-ins refused for a wrong name or password.", NULL,
                                         NULL);
    m->store_errors = metrics_counter(set, "sungka_store_errors_total",
                                      "Calls to the store (SQLite or PostgreSQL) that failed.",
                                      NULL, NULL);
    m->store_round_trips = metrics_counter(set, "sungka_store_round_trips_total",
                                           "Waits of the loop for its database server "
                                           "(PostgreSQL; each one round trip or more).",
                                           NULL, NULL);
    m->store_waited = metrics_counter(set, "sungka_store_wait_seconds_total",
                                      "Seconds the loop spent blocked waiting for its database "
                                      "server (PostgreSQL): time it served no one.",
                                      NULL, NULL);
    m->store_commit = metrics_histogram(set, "sungka_store_commit_seconds",
                                        "Commits of a loop turn's moves, in the store.",
                                        latency_bounds, N_BOUNDS);
    m->lease_renewals = metrics_counter(set, "sungka_lease_renewals_total",
                                        "A cluster node's renewals of its lease.", NULL, NULL);
    m->lease_failures = metrics_counter(set, "sungka_lease_renewal_failures_total",
                                        "A cluster node's renewals that failed.", NULL, NULL);
    m->adoptions = metrics_counter(set, "sungka_games_adopted_total",
                                   "Games a cluster node took over from nodes whose lease ran out.",
                                   NULL, NULL);
    m->loop_turn = metrics_histogram(set, "sungka_loop_turn_seconds",
                                     "The loop's work in one turn, without its wait.",
                                     latency_bounds, N_BOUNDS);
    for (int k = 0; k < game_kind_count() && k < BOARD_METRIC_KINDS; k++)
        m->pool_players[k] = metrics_gauge(set, "sungka_pool_players",
                                           "Players waiting for a quick pairing, by kind.",
                                           "kind", game_kind_at(k)->name);
    m->pool_wait = metrics_histogram(set, "sungka_pool_wait_seconds",
                                     "From a quick-pairing request to its seat.", wait_bounds,
                                     (int)(sizeof wait_bounds / sizeof wait_bounds[0]));
    static const char *const tour_states[] = {NULL, "waiting", "running", "finished"};
    for (int st = 1; st <= 3; st++)
        m->tournaments[st] = metrics_gauge(set, "sungka_tournaments",
                                           "Tournaments kept here, by state.", "state",
                                           tour_states[st]);
    m->tournament_players = metrics_gauge(set, "sungka_tournament_players",
                                          "Players in the tournaments not yet finished.", NULL,
                                          NULL);
    m->tournament_games = metrics_counter(set, "sungka_tournament_games_total",
                                          "Games the tournaments made.", NULL, NULL);
    int port;
    if (metrics_serve(set, svc->cfg.metrics, &port, err, errlen) != 0) {
        metrics_free(set);
        *m = (board_metrics){0};
        return -1;
    }
    m->set = set;
    m->next_gauges = 0;
    metrics_publish(set);
    log_line_say(LOG_NOTICE, "sungka-board: metrics on port %d (GET /metrics)\n", port);
    return 0;
}

void board_metrics_refusal(void *user, rpc_code code, const char *reason)
{
    board_service *svc = user;
    if (!svc->m.set)
        return;
    if (code == RPC_RESOURCE_EXHAUSTED)
        metric_add(svc->m.limits_hit, 1);
    /* The reasons are the program's own words (proto: ErrorReason), a few
     * dozen: one counter each, made the first time one is met, and found
     * through the set's index (metrics.c) after that. */
    metric_add(metrics_counter(svc->m.set, "sungka_refusals_total",
                               "Calls refused, by the reason sent with the status.", "reason",
                               reason ? reason : rpc_code_name(code)),
               1);
}

void board_metrics_play_command(board_service *svc, const char *command)
{
    if (svc->m.set)   /* a dozen commands: found through the set's index after the first */
        metric_add(metrics_counter(svc->m.set, "sungka_play_commands_total",
                                   "Commands read from Board.Play streams, by command.",
                                   "command", command),
                   1);
}

static void count_gauges(board_service *svc)
{
    int games[ROOM_ABANDONED + 1] = {0}, people = 0, streams = 0;
    for (int i = 0; i < svc->n_rooms; i++) {
        room *r = svc->rooms[i];
        room_status st = room_status_of(r);
        if (st >= ROOM_WAITING && st <= ROOM_ABANDONED)
            games[st]++;
        int n;
        participant *const *p = room_people(r, &n, NULL);
        people += n;
        for (int k = 0; k < n; k++)
            streams += p[k]->stream != NULL;
    }
    for (int s = ROOM_WAITING; s <= ROOM_ABANDONED; s++)
        metric_set(svc->m.games[s], games[s]);
    metric_set(svc->m.participants, people);
    metric_set(svc->m.streams, streams);
    metric_set(svc->m.password_jobs, svc->pool ? accounts_pool_busy(svc->pool) : 0);
    metric_set(svc->m.store_errors, (double)store_errors(svc->store));
    uint64_t trips;
    double waited;
    store_waits(svc->store, &trips, &waited);
    metric_set(svc->m.store_round_trips, (double)trips);
    metric_set(svc->m.store_waited, waited);
    int pools[BOARD_METRIC_KINDS];
    board_pairing_count(svc, pools, BOARD_METRIC_KINDS);
    for (int k = 0; k < BOARD_METRIC_KINDS; k++)
        metric_set(svc->m.pool_players[k], pools[k]);
    int tours[4], tour_players;
    board_tournaments_count(svc, tours, &tour_players);
    for (int st = 1; st <= 3; st++)
        metric_set(svc->m.tournaments[st], tours[st]);
    metric_set(svc->m.tournament_players, tour_players);
}

void board_metrics_turn(board_service *svc, double started)
{
    if (!svc->m.set)
        return;
    double now = metrics_now();
    metric_observe(svc->m.loop_turn, now - started);
    if (now >= svc->m.next_gauges) {
        count_gauges(svc);
        svc->m.next_gauges = now + GAUGES_EVERY_S;
    }
    metrics_publish(svc->m.set);
}

void board_metrics_free(board_service *svc)
{
    metrics_free(svc->m.set);
    svc->m = (board_metrics){0};
}
