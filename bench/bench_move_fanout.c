/*
 * bench_move_fanout.c — the move round trip and the fan-out to observers,
 * each beside the floor's call of the same shape (bench_service.h).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_children.h"
#include "bench_clients.h"
#include "bench_echo.pb-c.h"
#include "bench_service.h"
#include "bench_util.h"
#include "games.h"
#include "rpc.h"
#include "sungka/v1/sungka.pb-c.h"

/* ---------------------------------------------------------- move round trip */

/* Unary echo: async call, the main thread waits for the callback (the same
 * hand-off as the move measurement below). */
stats bench_echo_rtt(const char *target, int calls)
{
    pool p;
    pool_open(&p, target, 1);
    int warm = calls / 10 + 10;
    double *us = calloc((size_t)calls, sizeof *us);
    Sungkabench__Msg req = SUNGKABENCH__MSG__INIT;
    req.text = "ping";
    reset_counters();
    for (int i = 0; i < warm + calls; i++) {
        int64_t t0 = now_ns();
        if (rpc_client_call(p.c[0], &methods()->say, &req.base, NULL, WAIT_MS, reply_cb,
                            NULL) != 0)
            fatal("Say: cannot start");
        wait_counts(&sinks()->replies, i + 1, NULL, 0, "Say reply");
        if (i >= warm)
            us[i - warm] = (double)(atomic_load(&sinks()->t_reply) - t0) / 1e3;
    }
    check_errors("Say");
    pool_close(&p);
    stats s = summarize(us, calls);
    free(us);
    return s;
}

/* Two players, each its own client (connection) and subscription; moves
 * alternate as the rules say; each move is timed from the call to the
 * mover's own MoveMade event (and, separately, to the Move reply). */
void bench_move_rtt(const char *target, int moves, stats *ev_out, stats *reply_out,
                    int *games_out)
{
    pool p;
    pool_open(&p, target, 2);
    int warm = moves / 10 + 10, played = 0, games = 0;
    double *ev_us = calloc((size_t)moves, sizeof *ev_us);
    double *rep_us = calloc((size_t)moves, sizeof *rep_us);
    sub **keep = NULL;   /* every game's two sinks: streams of finished games stay open */
    game_state *g = malloc(sizeof *g);
    reset_counters();
    while (played < warm + moves) {
        char id[32], token[2][64];
        create_game(p.c[0], id);
        games++;
        join_game(p.c[0], id, "alice", false, token[0]);
        join_game(p.c[1], id, "bob", false, token[1]);
        sub *s = calloc(2, sizeof *s);
        keep = realloc(keep, (size_t)games * sizeof *keep);
        keep[games - 1] = s;
        int hello = atomic_load(&sinks()->hello);
        for (int i = 0; i < 2; i++) {
            s[i] = (sub){SUB_PLAYER, i, NULL, false};
            Sungka__V1__SubscribeRequest sr = SUNGKA__V1__SUBSCRIBE_REQUEST__INIT;
            pthread_mutex_lock(&sinks()->mu);   /* s[i].stream is set before end_cb can look */
            if (rpc_client_stream(p.c[i], &methods()->subscribe, &sr.base, token[i], board_msg,
                                  stream_end, &s[i], &s[i].stream) != 0)
                fatal("Subscribe: cannot start");
            pthread_mutex_unlock(&sinks()->mu);
        }
        wait_counts(&sinks()->hello, hello + 2, NULL, 0, "snapshots");
        set_ready(p.c[0], token[0]);
        set_ready(p.c[1], token[1]);
        new_local_game(g);
        while (!game_is_over(g) && played < warm + moves) {
            int seat = game_to_move(g);
            int cup = pick_move(g, played * 7);
            Sungka__V1__MoveRequest mr = SUNGKA__V1__MOVE_REQUEST__INIT;
            mr.move = cup;
            atomic_store(&sinks()->own, 0);
            int replies = atomic_load(&sinks()->replies);
            int64_t t0 = now_ns();
            if (rpc_client_call(p.c[seat], &methods()->move, &mr.base, token[seat], WAIT_MS,
                                reply_cb, NULL) != 0)
                fatal("Move: cannot start");
            wait_counts(&sinks()->own, 1, &sinks()->replies, replies + 1, "the mover's event");
            check_errors("Move");
            if (played >= warm) {
                ev_us[played - warm] = (double)(atomic_load(&sinks()->t_own) - t0) / 1e3;
                rep_us[played - warm] = (double)(atomic_load(&sinks()->t_reply) - t0) / 1e3;
            }
            played++;
            game_play(g, seat, cup, NULL, NULL, 0);
        }
        /* A connection carries at most 64 streams: close this game's. */
        pthread_mutex_lock(&sinks()->mu);
        for (int i = 0; i < 2; i++)
            if (!s[i].ended)
                rpc_stream_cancel(s[i].stream);
        pthread_mutex_unlock(&sinks()->mu);
    }
    pool_close(&p);   /* end callbacks have run: the sinks may go */
    for (int i = 0; i < games; i++)
        free(keep[i]);
    free(keep);
    free(g);
    *ev_out = summarize(ev_us, moves);
    *reply_out = summarize(rep_us, moves);
    *games_out = games;
    free(ev_us);
    free(rep_us);
}

void bench_play_rtt(const char *target, int moves, stats *ev_out, int *games_out)
{
    pool p;
    pool_open(&p, target, 2);
    int warm = moves / 10 + 10, played = 0, games = 0;
    double *ev_us = calloc((size_t)moves, sizeof *ev_us);
    sub **keep = NULL;   /* every game's two sinks: streams of finished games stay open */
    game_state *g = malloc(sizeof *g);
    reset_counters();
    while (played < warm + moves) {
        char id[32], token[2][64];
        create_game(p.c[0], id);
        games++;
        join_game(p.c[0], id, "alice", false, token[0]);
        join_game(p.c[1], id, "bob", false, token[1]);
        sub *s = calloc(2, sizeof *s);
        keep = realloc(keep, (size_t)games * sizeof *keep);
        keep[games - 1] = s;
        int hello = atomic_load(&sinks()->hello);
        for (int i = 0; i < 2; i++) {
            s[i] = (sub){SUB_PLAYER, i, NULL, false};
            Sungka__V1__PlayStart start = SUNGKA__V1__PLAY_START__INIT;
            start.token = token[i];
            Sungka__V1__PlayRequest pr = SUNGKA__V1__PLAY_REQUEST__INIT;
            pr.command_case = SUNGKA__V1__PLAY_REQUEST__COMMAND_START;
            pr.start = &start;
            pthread_mutex_lock(&sinks()->mu);   /* s[i].stream is set before end_cb can look */
            if (rpc_client_bidi(p.c[i], &methods()->play, &pr.base, NULL, board_msg,
                                stream_end, &s[i], &s[i].stream) != 0)
                fatal("Play: cannot start");
            pthread_mutex_unlock(&sinks()->mu);
        }
        wait_counts(&sinks()->hello, hello + 2, NULL, 0, "snapshots");
        set_ready(p.c[0], token[0]);
        set_ready(p.c[1], token[1]);
        new_local_game(g);
        while (!game_is_over(g) && played < warm + moves) {
            int seat = game_to_move(g);
            int cup = pick_move(g, played * 7);
            Sungka__V1__MoveRequest mr = SUNGKA__V1__MOVE_REQUEST__INIT;
            mr.move = cup;
            Sungka__V1__PlayRequest pr = SUNGKA__V1__PLAY_REQUEST__INIT;
            pr.id = (uint64_t)played + 1;
            pr.command_case = SUNGKA__V1__PLAY_REQUEST__COMMAND_MOVE;
            pr.move = &mr;
            atomic_store(&sinks()->own, 0);
            int64_t t0 = now_ns();
            if (rpc_stream_send(s[seat].stream, &pr.base) != 0)
                fatal("Play: cannot send a move");
            wait_counts(&sinks()->own, 1, NULL, 0, "the mover's event on Play");
            check_errors("Play");
            if (played >= warm)
                ev_us[played - warm] = (double)(atomic_load(&sinks()->t_own) - t0) / 1e3;
            played++;
            game_play(g, seat, cup, NULL, NULL, 0);
        }
        pthread_mutex_lock(&sinks()->mu);
        for (int i = 0; i < 2; i++)
            if (!s[i].ended)
                rpc_stream_cancel(s[i].stream);
        pthread_mutex_unlock(&sinks()->mu);
    }
    pool_close(&p);
    for (int i = 0; i < games; i++)
        free(keep[i]);
    free(keep);
    free(g);
    *ev_out = summarize(ev_us, moves);
    *games_out = games;
    free(ev_us);
}

/* ---------------------------------------------------------------- fan-out */

stats bench_echo_fanout(cpu_meter *m, const char *target, int n, int per_conn, int rounds)
{
    pool obs, pusher;
    pool_open(&obs, target, (n + per_conn - 1) / per_conn);
    pool_open(&pusher, target, 1);
    reset_counters();
    atomic_store(&sinks()->seq, 0);
    Sungkabench__Msg req = SUNGKABENCH__MSG__INIT;
    for (int i = 0; i < n; i++) {
        rpc_stream *st;
        if (rpc_client_stream(obs.c[i / per_conn], &methods()->watch, &req.base, NULL,
                              echo_msg, stream_end, NULL, &st) != 0)
            fatal("Watch: cannot start");
    }
    wait_counts(&sinks()->hello, n, NULL, 0, "echo watchers");
    double *us = calloc((size_t)rounds, sizeof *us);
    double cpu0 = 0;
    for (int r = 0; r < rounds + 1; r++) {   /* round 0 warms up */
        if (r == 1)
            cpu0 = cpu_begin(m);
        atomic_store(&sinks()->recv, 0);
        atomic_store(&sinks()->expect, n);
        atomic_store(&sinks()->seq, (unsigned long long)r + 1);
        req.seq = (uint64_t)r + 1;
        int replies = atomic_load(&sinks()->replies);
        int64_t t0 = now_ns();
        if (rpc_client_call(pusher.c[0], &methods()->push, &req.base, NULL, WAIT_MS, reply_cb,
                            NULL) != 0)
            fatal("Push: cannot start");
        wait_counts(&sinks()->recv, n, &sinks()->replies, replies + 1, "echo fan-out");
        if (r > 0)
            us[r - 1] = (double)(atomic_load(&sinks()->t_last) - t0) / 1e3;
    }
    cpu_end(m, cpu0);
    check_errors("Push");
    pool_close(&pusher);
    pool_close(&obs);
    stats s = summarize(us, rounds);
    free(us);
    return s;
}

typedef struct fgame {
    char id[32];
    char token[2][64];
    rpc_client *cli;
    game_state st;
    int move;
} fgame;

/* N observers of one game; each round makes one move and lasts until the
 * last observer has its MoveMade. (The code can spread N over k games, one
 * move in each per round, back to back; k is 1.) */
/* watch_at: where the observers join and watch (relays: "a,b,c"); NULL:
 * the game's own service. */
stats bench_board_fanout(cpu_meter *m, const char *target, int n, int per_conn, bool many,
                         int rounds, int *games_out, int *rounds_out, const char *watch_at)
{
    int k = 1;
    pool movers, obs;
    pool_open(&movers, target, (k + CALLS_PER_CLIENT - 1) / CALLS_PER_CLIENT);
    pool_open(&obs, watch_at ? watch_at : target, (n + per_conn - 1) / per_conn);
    fgame *gs = calloc((size_t)k, sizeof *gs);
    sub *subs = calloc((size_t)n, sizeof *subs);
    reset_counters();
    int o = 0;
    for (int gi = 0; gi < k; gi++) {
        fgame *g = &gs[gi];
        g->cli = movers.c[gi % movers.n];
        create_game(g->cli, g->id);
        join_game(g->cli, g->id, "alice", false, g->token[0]);
        join_game(g->cli, g->id, "bob", false, g->token[1]);
        int here = n / k + (gi < n % k);
        /* many: each connection's observers on one SubscribeMany stream */
        char (*tokens)[64] = calloc((size_t)per_conn, sizeof *tokens);
        Sungka__V1__Subscription *legs = calloc((size_t)per_conn, sizeof *legs);
        Sungka__V1__Subscription **legp = calloc((size_t)per_conn, sizeof *legp);
        for (int j = 0; j < here; j++, o++) {
            char name[16];
            char *token = tokens[o % per_conn];
            snprintf(name, sizeof name, "obs%d", j);
            join_game(obs.c[o / per_conn], g->id, name, true, token);
            subs[o] = (sub){SUB_OBSERVER, -1, NULL, false};
            rpc_stream *st;
            if (!many) {
                Sungka__V1__SubscribeRequest sr = SUNGKA__V1__SUBSCRIBE_REQUEST__INIT;
                if (rpc_client_stream(obs.c[o / per_conn], &methods()->subscribe, &sr.base, token,
                                      board_msg, stream_end, &subs[o], &st) != 0)
                    fatal("Subscribe: cannot start");
                continue;
            }
            sungka__v1__subscription__init(&legs[o % per_conn]);
            legs[o % per_conn].token = token;
            legp[o % per_conn] = &legs[o % per_conn];
            if ((o + 1) % per_conn != 0 && j + 1 < here)
                continue;
            Sungka__V1__SubscribeManyRequest mr = SUNGKA__V1__SUBSCRIBE_MANY_REQUEST__INIT;
            mr.n_subscriptions = (size_t)(o % per_conn + 1);
            mr.subscriptions = legp;
            if (rpc_client_stream(obs.c[o / per_conn], &methods()->subscribe_many, &mr.base, NULL,
                                  multi_msg, stream_end, NULL, &st) != 0)
                fatal("SubscribeMany: cannot start");
        }
        free(tokens);
        free(legs);
        free(legp);
    }
    wait_counts(&sinks()->hello, n, NULL, 0, "observer snapshots");
    for (int gi = 0; gi < k; gi++) {
        set_ready(gs[gi].cli, gs[gi].token[0]);
        set_ready(gs[gi].cli, gs[gi].token[1]);
        new_local_game(&gs[gi].st);
    }
    sleep_ms(100);   /* let the start events drain */
    double *us = calloc((size_t)rounds, sizeof *us);
    int done = 0;
    double cpu0 = 0;
    for (int r = 0; r < rounds + 1; r++) {   /* round 0 warms up */
        if (r == 1)
            cpu0 = cpu_begin(m);
        bool over = false;
        for (int gi = 0; gi < k; gi++) {
            if (game_is_over(&gs[gi].st))
                over = true;
            else
                gs[gi].move = pick_lasting(&gs[gi].st, r + gi);
        }
        if (over)
            break;   /* a game ended: report the rounds made so far */
        atomic_store(&sinks()->recv, 0);
        atomic_store(&sinks()->expect, n);
        int replies = atomic_load(&sinks()->replies);
        int64_t t0 = now_ns();
        for (int gi = 0; gi < k; gi++) {
            fgame *g = &gs[gi];
            Sungka__V1__MoveRequest mr = SUNGKA__V1__MOVE_REQUEST__INIT;
            mr.move = g->move;
            if (rpc_client_call(g->cli, &methods()->move, &mr.base, g->token[game_to_move(&g->st)],
                                WAIT_MS, reply_cb, NULL) != 0)
                fatal("Move: cannot start");
        }
        wait_counts(&sinks()->recv, n, &sinks()->replies, replies + k, "observer events");
        check_errors("Move (fan-out)");
        if (r > 0)
            us[done++] = (double)(atomic_load(&sinks()->t_last) - t0) / 1e3;
        for (int gi = 0; gi < k; gi++)
            game_play(&gs[gi].st, game_to_move(&gs[gi].st), gs[gi].move, NULL, NULL, 0);
    }
    cpu_end(m, cpu0);
    pool_close(&obs);
    pool_close(&movers);
    free(subs);
    free(gs);
    stats s = summarize(us, done);
    free(us);
    *games_out = k;
    *rounds_out = done;
    return s;
}
