/*
 * bench_reversi.c — how fast reversi's engine is (not a test; PERFORMANCE.md,
 * "Engines / Reversi", says how its figures were taken).
 *
 * Part 1, perft: sequences of 1..DEPTH plies from the 8x8 start
 * (game_perft_counts, the walk sungka-perft times), leaves per second of the
 * deepest ply. Edax's hash-free `perft` is the yardstick, run beside it by
 * hand: it is not part of the project.
 * Part 2, exact endgames: positions with E empties (E = 10..MAX_E) from
 * games of level-4 bots (seeded, so every run solves the same positions),
 * each solved by the bot's endgame solver (search_internal.h:
 * search_eval.solve) with a 60 s budget: median and worst CPU time (the
 * solve is single-threaded, so on a quiet machine that is its wall time)
 * and nodes per E.
 * Part 3, the first move of a fresh searcher: game_search_new, then one
 * level-10 search of 50 ms from the 8x8 start: how long each took.
 *
 * Usage: sungka-bench-reversi [DEPTH [MAX_E [POSITIONS]]]  (11, 22, 5)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "perft.h"
#include "search_internal.h" /* the solver itself, beside the public search */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time of this process: what a solve costs on a quiet machine, even
 * when other jobs share this one (the solve is single-threaded). */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void new_reversi(game_state *st)
{
    char err[GAME_ERR_LEN];
    if (game_new(st, game_kind_find("reversi"), NULL, err, sizeof err) != GAME_OK) {
        fprintf(stderr, "reversi: %s\n", err);
        exit(1);
    }
}

static void perft_row(int depth)
{
    game_state *st = malloc(sizeof *st);
    game_perft_level *levels = calloc((size_t)depth, sizeof *levels);
    long long counts[GAME_PERFT_MAX_DEPTH + 1];
    if (!st || !levels)
        exit(1);
    new_reversi(st);
    double t0 = now_s(), c0 = cpu_s();
    game_perft_counts(st, depth, counts, levels);
    double t = now_s() - t0, c = cpu_s() - c0;
    printf("perft 8x8 depth %d: %lld leaves in %.3f s (%.3f s CPU) = %.1f M leaves/s of CPU\n",
           depth, counts[depth], t, c, counts[depth] / c / 1e6);
    free(levels);
    free(st);
}

/* A position with `empties` empty cells from a game of level-4 bots (seed
 * picks the game), or -1 when that game ended first. */
static int endgame_position(game_search *bot, game_state *st, int empties, uint64_t seed)
{
    new_reversi(st);
    for (int ply = 0; !game_is_over(st); ply++) {
        int scores[GAME_MAX_SEATS];
        game_scores(st, scores);
        if (64 - scores[0] - scores[1] == empties)
            return 0;
        game_search_limits lim = {.level = 4, .time_ms = 50, .seed = seed * 1000 + (uint64_t)ply};
        game_search_result r;
        if (game_search_best(bot, st, &lim, &r) != 0 ||
            game_play(st, game_to_move(st), r.move, NULL, NULL, 0) != GAME_OK)
            return -1;
    }
    return -1;
}

static void endgame_rows(int max_e, int positions)
{
    game_search *bot = game_search_new(1 << 20), *s = game_search_new(0);
    game_state *st = malloc(sizeof *st);
    double *times = calloc((size_t)positions, sizeof *times);
    if (!bot || !s || !st || !times)
        exit(1);
    printf("\nExact endgames (8x8, positions from level-4 games, %d per row)\n", positions);
    printf("%8s %12s %12s %14s %12s\n", "empties", "median cpu", "worst cpu", "nodes (sum)",
           "Mnodes/s");
    for (int e = 10; e <= max_e; e += 2) {
        long long nodes = 0;
        double total = 0;
        int done = 0;
        for (uint64_t seed = 1; done < positions && seed < 1000; seed++) {
            if (endgame_position(bot, st, e, seed) != 0)
                continue;
            s->root = st->to_move;
            s->nodes = 0;
            s->stop = NULL;
            double t0 = cpu_s();
            s->deadline_ns = (int64_t)((now_s() + 60) * 1e9);
            int move, margin;
            if (search_solve_reversi(s, st, &move, &margin) != 0) {
                printf("%8d  (not solved in 60 s)\n", e);
                break;
            }
            times[done] = cpu_s() - t0;
            total += times[done];
            nodes += s->nodes;
            done++;
        }
        if (done == 0)
            break;
        qsort(times, (size_t)done, sizeof *times, cmp_double);
        printf("%8d %12.4f %12.4f %14lld %12.2f\n", e, times[done / 2], times[done - 1], nodes,
               nodes / total / 1e6);
        fflush(stdout);
        if (times[done / 2] > 10)
            break;
    }
    free(times);
    free(st);
    game_search_free(bot);
    game_search_free(s);
}

static void fresh_searcher_row(void)
{
    game_state *st = malloc(sizeof *st);
    if (!st)
        exit(1);
    new_reversi(st);
    double t0 = now_s();
    game_search *s = game_search_new(0);
    double t1 = now_s();
    game_search_limits lim = {.level = 10, .time_ms = 50};
    game_search_result r;
    game_search_best(s, st, &lim, &r);
    double t2 = now_s();
    printf("\nFresh searcher: game_search_new %.1f ms, first 50 ms search took %.1f ms\n",
           (t1 - t0) * 1e3, (t2 - t1) * 1e3);
    game_search_free(s);
    free(st);
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 11;
    int max_e = argc > 2 ? atoi(argv[2]) : 22;
    int positions = argc > 3 ? atoi(argv[3]) : 5;
    if (depth < 1 || depth > GAME_PERFT_MAX_DEPTH || max_e < 10 || max_e > 60 || positions < 1) {
        fprintf(stderr, "usage: sungka-bench-reversi [DEPTH [MAX_E [POSITIONS]]]\n");
        return 2;
    }
    perft_row(depth);
    endgame_rows(max_e, positions);
    fresh_searcher_row();
    return 0;
}
