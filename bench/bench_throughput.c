/*
 * bench_throughput.c — moves per second across concurrent games played by
 * scripted agents, and the floor's unary calls per second with as many in
 * flight (bench_service.h).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_children.h"
#include "bench_clients.h"
#include "bench_echo.pb-c.h"
#include "bench_service.h"
#include "bench_util.h"
#include "games.h"
#include "rpc.h"
#include "sungka/v1/sungka.pb-c.h"

/* ------------------------------------------------------------- throughput */

typedef struct tgame {
    int idx;
    rpc_client *cli;
    char token[2][64];
    int pending, seat, moves;
    bool failed;
    game_state st;
} tgame;

static atomic_long tp_moves;
static atomic_int tp_stop;
static atomic_int tp_busy;         /* games with a Move in flight */
static tgame **tp_idle;            /* games that stopped, for the main thread (main_wait_lock) */
static int tp_n_idle;

static void tp_next(tgame *g);

static void tp_park(tgame *g)
{
    atomic_fetch_sub(&tp_busy, 1);
    main_wait_lock();
    tp_idle[tp_n_idle++] = g;
    wake_main_locked();
    main_wait_unlock();
}

static void tp_reply(const rpc_status *st, ProtobufCMessage *reply, void *user)
{
    tgame *g = user;
    if (st->code != RPC_OK) {
        fprintf(stderr, "sungka-bench: Move failed: %s %s\n", rpc_code_name(st->code),
                st->message);
        g->failed = true;
        tp_park(g);
        return;
    }
    protobuf_c_message_free_unpacked(reply, NULL);
    game_play(&g->st, g->seat, g->pending, NULL, NULL, 0);
    g->moves++;
    atomic_fetch_add(&tp_moves, 1);
    if (game_is_over(&g->st) || atomic_load(&tp_stop))
        tp_park(g);
    else
        tp_next(g);
}

/* On the main thread for a game's first move, then on its client's thread. */
static void tp_next(tgame *g)
{
    g->seat = game_to_move(&g->st);
    g->pending = pick_move(&g->st, g->moves * 7 + g->idx);
    Sungka__V1__MoveRequest mr = SUNGKA__V1__MOVE_REQUEST__INIT;
    mr.move = g->pending;
    if (rpc_client_call(g->cli, &methods()->move, &mr.base, g->token[g->seat], WAIT_MS,
                        tp_reply, g) != 0) {
        g->failed = true;
        tp_park(g);
    }
}

static void tp_setup(tgame *g)
{
    char id[32];
    create_game(g->cli, id);
    join_game(g->cli, id, "alice", false, g->token[0]);
    join_game(g->cli, id, "bob", false, g->token[1]);
    set_ready(g->cli, g->token[0]);
    set_ready(g->cli, g->token[1]);
    new_local_game(&g->st);
    g->moves = 0;
}

/* ------------------------------------------------- throughput on Board.Play */

/* The same games with each seat on a Play stream: a move goes out on the
 * mover's stream and its MoveMade there sends the next (on the client
 * thread). A finished game's streams are cancelled before the game is
 * replaced (a connection carries at most 64 streams). */
typedef struct pgame pgame;
typedef struct pseat {
    pgame *g;
    int seat;
    rpc_stream *stream;
    atomic_int ended;
} pseat;

struct pgame {
    tgame t;
    pseat seats[2];
    atomic_int parked;
};

static void pp_next(pgame *g);

static void pp_park(pgame *g)
{
    if (atomic_exchange(&g->parked, 1))
        return;
    tp_park(&g->t);
}

static void pp_msg(ProtobufCMessage *msg, void *user)
{
    pseat *ps = user;
    pgame *g = ps->g;
    const Sungka__V1__Event *ev = (const Sungka__V1__Event *)msg;
    if (ev->body_case == SUNGKA__V1__EVENT__BODY_COMMAND_REFUSED) {
        fprintf(stderr, "sungka-bench: Play move refused: %s\n", ev->command_refused->message);
        g->t.failed = true;
        pp_park(g);
    } else if (ev->body_case == SUNGKA__V1__EVENT__BODY_MOVE_MADE &&
               ev->move_made->seat == ps->seat && !atomic_load(&g->parked)) {
        game_play(&g->t.st, g->t.seat, g->t.pending, NULL, NULL, 0);
        g->t.moves++;
        atomic_fetch_add(&tp_moves, 1);
        if (game_is_over(&g->t.st) || atomic_load(&tp_stop))
            pp_park(g);
        else
            pp_next(g);
    }
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void pp_end(const rpc_status *st, void *user)
{
    (void)st;
    atomic_store(&((pseat *)user)->ended, 1);
}

static void pp_next(pgame *g)
{
    g->t.seat = game_to_move(&g->t.st);
    g->t.pending = pick_move(&g->t.st, g->t.moves * 7 + g->t.idx);
    Sungka__V1__MoveRequest mr = SUNGKA__V1__MOVE_REQUEST__INIT;
    mr.move = g->t.pending;
    Sungka__V1__PlayRequest pr = SUNGKA__V1__PLAY_REQUEST__INIT;
    pr.id = (uint64_t)g->t.moves + 1;
    pr.command_case = SUNGKA__V1__PLAY_REQUEST__COMMAND_MOVE;
    pr.move = &mr;
    if (rpc_stream_send(g->seats[g->t.seat].stream, &pr.base) != 0) {
        g->t.failed = true;
        pp_park(g);
    }
}

/* Cancel a game's streams and wait for their ends (main thread). */
static void pp_close(pgame *g)
{
    for (int i = 0; i < 2; i++)
        if (g->seats[i].stream) {
            rpc_stream_cancel(g->seats[i].stream);
            for (int spins = 0; !atomic_load(&g->seats[i].ended); spins++) {
                if (spins > WAIT_MS)
                    fatal("throughput on Play: a stream never ended");
                sleep_ms(1);
            }
            g->seats[i].stream = NULL;
        }
}

static void pp_setup(pgame *g)
{
    pp_close(g);
    tp_setup(&g->t);
    atomic_store(&g->parked, 0);
    for (int i = 0; i < 2; i++) {
        g->seats[i].g = g;
        g->seats[i].seat = i;
        atomic_store(&g->seats[i].ended, 0);
        Sungka__V1__PlayStart start = SUNGKA__V1__PLAY_START__INIT;
        start.token = g->t.token[i];
        Sungka__V1__PlayRequest pr = SUNGKA__V1__PLAY_REQUEST__INIT;
        pr.command_case = SUNGKA__V1__PLAY_REQUEST__COMMAND_START;
        pr.start = &start;
        if (rpc_client_bidi(g->t.cli, &methods()->play, &pr.base, NULL, pp_msg, pp_end,
                            &g->seats[i], &g->seats[i].stream) != 0)
            fatal("Play: cannot start");
    }
}

/* ------------------------------------------------- the measuring loop */

/* How the games of a throughput run move: with Move calls (tgame), or on
 * Play streams (pgame, which begins with its tgame). */
typedef struct tp_kind {
    const char *what;              /* for messages: "throughput", "throughput on Play" */
    size_t game_size;
    int calls_per_game;            /* calls a game holds open: connections are shared */
    void (*setup)(tgame *g);       /* main thread: a new game, ready to move */
    void (*next)(tgame *g);        /* its next move */
    void (*close)(tgame *g);       /* NULL: nothing stays open */
} tp_kind;

static tgame *game_at(void *gs, const tp_kind *k, int i)
{
    return (tgame *)((char *)gs + (size_t)i * k->game_size);
}

/* G games with one move in flight each; a finished game is replaced by a
 * new one (set up by the main thread, inside the measured time). */
static double run_throughput(const tp_kind *k, cpu_meter *m, const char *target, int n_games,
                             int ms, int *started_out)
{
    pool p;
    pool_open(&p, target, (k->calls_per_game * n_games + CALLS_PER_CLIENT - 1) /
                              CALLS_PER_CLIENT);
    void *gs = calloc((size_t)n_games, k->game_size);
    tp_idle = calloc((size_t)n_games, sizeof *tp_idle);
    tp_n_idle = 0;
    atomic_store(&tp_moves, 0);
    atomic_store(&tp_stop, 0);
    atomic_store(&tp_busy, 0);
    int started = n_games;
    for (int i = 0; i < n_games; i++) {
        game_at(gs, k, i)->idx = i;
        game_at(gs, k, i)->cli = p.c[i % p.n];
        k->setup(game_at(gs, k, i));
    }
    double cpu0 = cpu_begin(m);
    int64_t t0 = now_ns(), end = t0 + (int64_t)ms * 1000000;
    for (int i = 0; i < n_games; i++) {
        atomic_fetch_add(&tp_busy, 1);
        k->next(game_at(gs, k, i));
    }
    tgame **todo = calloc((size_t)n_games, sizeof *todo);
    int failed = 0;
    while (now_ns() < end) {
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_nsec += 20 * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        main_wait_lock();
        if (tp_n_idle == 0)
            main_wait_timed(&dl);
        int n = tp_n_idle;
        memcpy(todo, tp_idle, (size_t)n * sizeof *todo);
        tp_n_idle = 0;
        main_wait_unlock();
        for (int i = 0; i < n; i++) {
            tgame *g = todo[i];
            if (g->failed) {
                failed++;
                continue;
            }
            k->setup(g);
            started++;
            atomic_fetch_add(&tp_busy, 1);
            k->next(g);
        }
    }
    long moves = atomic_load(&tp_moves);
    double secs = (double)(now_ns() - t0) / 1e9;
    cpu_end(m, cpu0);
    atomic_store(&tp_stop, 1);
    /* Wait for the moves in flight to land (each game parks itself). */
    for (int spins = 0; atomic_load(&tp_busy) > 0; spins++) {
        if (spins > WAIT_MS / 10)
            fatal("%s: %d games never finished their last move", k->what,
                  atomic_load(&tp_busy));
        sleep_ms(10);
    }
    for (int i = 0; k->close && i < n_games; i++)
        k->close(game_at(gs, k, i));
    pool_close(&p);
    free(todo);
    free(tp_idle);
    tp_idle = NULL;
    free(gs);
    if (failed)
        fatal("%s: %d games failed a move", k->what, failed);
    *started_out = started;
    return moves / secs;
}

double bench_throughput(cpu_meter *m, const char *target, int n_games, int ms,
                        int *started_out)
{
    static const tp_kind unary = {"throughput", sizeof(tgame), 1, tp_setup, tp_next, NULL};
    return run_throughput(&unary, m, target, n_games, ms, started_out);
}

/* pgame's functions as tgame's (its tgame is its first member). */
static void pp_setup_t(tgame *g)
{
    pp_setup((pgame *)g);
}

static void pp_next_t(tgame *g)
{
    pp_next((pgame *)g);
}

static void pp_close_t(tgame *g)
{
    pp_close((pgame *)g);
}

double bench_play_throughput(cpu_meter *m, const char *target, int n_games, int ms,
                             int *started_out)
{
    static const tp_kind play = {"throughput on Play", sizeof(pgame), 2, pp_setup_t,
                                 pp_next_t, pp_close_t};
    return run_throughput(&play, m, target, n_games, ms, started_out);
}

/* The floor for throughput: the same number of echo Say calls kept in
 * flight over the same number of connections, each reply sending the next. */
static atomic_long et_calls;
static atomic_int et_stop, et_busy;

typedef struct et_slot {
    rpc_client *cli;
} et_slot;

static void et_next(et_slot *e);

static void et_reply(const rpc_status *st, ProtobufCMessage *reply, void *user)
{
    et_slot *e = user;
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
    if (st->code != RPC_OK)
        fatal("Say (throughput): %s %s", rpc_code_name(st->code), st->message);
    atomic_fetch_add(&et_calls, 1);
    if (atomic_load(&et_stop))
        atomic_fetch_sub(&et_busy, 1);
    else
        et_next(e);
}

static void et_next(et_slot *e)
{
    Sungkabench__Msg req = SUNGKABENCH__MSG__INIT;
    req.text = "move";
    if (rpc_client_call(e->cli, &methods()->say, &req.base, NULL, WAIT_MS, et_reply, e) != 0)
        fatal("Say (throughput): cannot start");
}

double bench_echo_throughput(cpu_meter *m, const char *target, int n_inflight, int ms)
{
    pool p;
    pool_open(&p, target, (n_inflight + CALLS_PER_CLIENT - 1) / CALLS_PER_CLIENT);
    et_slot *slots = calloc((size_t)n_inflight, sizeof *slots);
    atomic_store(&et_calls, 0);
    atomic_store(&et_stop, 0);
    atomic_store(&et_busy, n_inflight);
    double cpu0 = cpu_begin(m);
    int64_t t0 = now_ns();
    for (int i = 0; i < n_inflight; i++) {
        slots[i].cli = p.c[i % p.n];
        et_next(&slots[i]);
    }
    sleep_ms(ms);
    long calls = atomic_load(&et_calls);
    double secs = (double)(now_ns() - t0) / 1e9;
    cpu_end(m, cpu0);
    atomic_store(&et_stop, 1);
    for (int spins = 0; atomic_load(&et_busy) > 0; spins++) {
        if (spins > WAIT_MS / 10)
            fatal("echo throughput: calls never finished");
        sleep_ms(10);
    }
    pool_close(&p);
    free(slots);
    return calls / secs;
}
