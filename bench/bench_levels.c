/*
 * bench_levels.c — what the bot's levels are worth (not a test): a
 * tournament of the levels against each other and against a uniform-random
 * player, for every kind, in-process on games/search directly, rated with
 * Glicko-2 (common/glicko2.h); and, on request, Kalah self-play at the top
 * level against the known perfect-play results.
 *
 * Tournament. Players: "random" (a uniform-random legal move) and levels
 * 1..10. Pairings: each level against random and against the level below
 * (--all-pairs: every pair). Each round plays every pairing twice, once with
 * each player starting, after two random opening plies drawn from the round
 * (so deterministic levels do not replay one game); a round is one Glicko-2
 * rating period, per kind and over all kinds. Budget per move: --nodes
 * positions (default, reproducible whatever the machine's load) or --ms
 * milliseconds.
 *
 * Self-play (--selfplay): level 10 against itself from the start of
 * Kalah(6,3) and Kalah(6,4), --selfplay-ms a move, with Kalah's endgame
 * table from the XDG cache (built there on first use; its size and time are
 * reported). Perfect play gives the first player +2 and +8.
 *
 * Usage: sungka-bench-levels [--kinds LIST] [--rounds N] [--nodes N | --ms MS]
 *          [--all-pairs] [--swap] [--selfplay] [--selfplay-ms MS] [--seed S]
 *          [--no-tables] [--expect-beats-random LEVEL]
 * --swap plays congklak and kalah with the pie rule (docs/rules.md §9) after
 * one random ply, so that the second player, a level, decides whether to swap.
 * The levels that solve endgames get Kalah's endgame table from the XDG
 * cache, as the bot does (built there on first use); --no-tables: without.
 * --expect-beats-random makes the exit status 1 unless that level won every
 * game against random (a smoke check for ctest; it never times anything).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "endgame_cache.h"
#include "games.h"
#include "glicko2.h"
#include "search.h"

#define LEVELS 10
#define PLAYERS (LEVELS + 1)   /* 0: random, 1..10: levels */

typedef struct bench_kind {
    const char *label;
    const char *kind;
    const char *opts[4];
    bool has_swap;             /* takes the swap option (--swap) */
} bench_kind;

static const bench_kind all_kinds[] = {
    {"sungka", "sungka", {NULL}, false},
    {"congklak", "congklak", {"first=0", NULL}, true},
    {"kalah", "kalah", {NULL}, true},
    {"reversi", "reversi", {NULL}, false},
    {"qubic", "tictactoe", {"size=4", "dims=3", NULL}, false},
};
#define N_KINDS (sizeof all_kinds / sizeof all_kinds[0])

typedef struct config {
    bool use_kind[N_KINDS];
    int rounds;
    long long nodes;
    int ms;
    bool all_pairs;
    bool selfplay;
    int selfplay_ms;
    uint64_t seed;
    int expect_level;
    bool no_tables;
    bool swap;
} config;

typedef struct tally {
    int win, draw, loss;       /* of the first player of the pairing */
} tally;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545f4914f6cdd1dull;
}

static int new_game(game_state *st, const char *kind, const char *const *opts, bool swap)
{
    const game_kind *k = game_kind_find(kind);
    game_options o;
    char err[GAME_ERR_LEN];
    if (!k)
        return -1;
    game_options_default(k, &o);
    for (int i = 0; opts[i]; i++)
        if (game_options_parse(k, &o, opts[i], err, sizeof err) != GAME_OK) {
            fprintf(stderr, "%s: %s\n", kind, err);
            return -1;
        }
    if (swap && game_options_parse(k, &o, "swap=1", err, sizeof err) != GAME_OK) {
        fprintf(stderr, "%s: %s\n", kind, err);
        return -1;
    }
    if (game_new(st, k, &o, err, sizeof err) != GAME_OK) {
        fprintf(stderr, "%s: %s\n", kind, err);
        return -1;
    }
    return 0;
}

static const char *player_name(int p, char *buf, size_t len)
{
    if (p == 0)
        return "random";
    snprintf(buf, len, "level %d", p);
    return buf;
}

/* One move of player p (0: random) in st. */
static int player_move(const config *cf, game_search *const *searches, int p, game_state *st,
                       uint64_t *rng)
{
    int move;
    if (p == 0) {
        int moves[GAME_MAX_MOVES];
        int n = game_legal_moves(st, moves, GAME_MAX_MOVES);
        if (n <= 0)
            return -1;
        move = moves[rng_next(rng) % (uint64_t)n];
    } else {
        game_search_limits lim = {
            .level = p,
            .time_ms = cf->ms > 0 ? cf->ms : 3600 * 1000,
            .max_nodes = cf->ms > 0 ? 0 : cf->nodes,
            .seed = rng_next(rng),
        };
        game_search_result r;
        if (game_search_best(searches[p], st, &lim, &r) != 0)
            return -1;
        move = r.move;
    }
    char err[GAME_ERR_LEN];
    if (game_play(st, game_to_move(st), move, NULL, err, sizeof err) != GAME_OK) {
        fprintf(stderr, "illegal move %d: %s\n", move, err);
        return -1;
    }
    return 0;
}

/* A game of a (seat a_seat) against b: 1 a wins, 0 a draw, -1 a loses;
 * -2 when something failed. */
static int play_game(const config *cf, game_search *const *searches, const bench_kind *k, int a,
                     int b, int a_seat, uint64_t opening, uint64_t seed)
{
    game_state *st = malloc(sizeof *st);
    const bool swap = cf->swap && k->has_swap;
    if (!st || new_game(st, k->kind, k->opts, swap) != 0) {
        free(st);
        return -2;
    }
    /* With the swap, one random ply, so that the second player decides. */
    uint64_t x = opening * 0x9e3779b97f4a7c15ull + 1, rng = seed | 1;
    for (int p = 0; p < (swap ? 1 : 2) && !game_is_over(st); p++)
        if (player_move(cf, searches, 0, st, &x) != 0)
            break;
    while (!game_is_over(st)) {
        int p = game_to_move(st) == a_seat ? a : b;
        if (player_move(cf, searches, p, st, &rng) != 0) {
            free(st);
            return -2;
        }
    }
    int w[GAME_MAX_SEATS], nw = game_winners(st, w), res = nw == 0 ? 0 : -1;
    for (int i = 0; i < nw; i++)
        if (w[i] == a_seat)
            res = nw == 1 ? 1 : 0;
    free(st);
    return res;
}

/* The pairings: (level, random) and (level, level - 1), or every pair. */
static int pairings(const config *cf, int pairs[][2])
{
    int n = 0;
    for (int a = 1; a <= LEVELS; a++)
        for (int b = 0; b < a; b++)
            if (cf->all_pairs || b == 0 || b == a - 1) {
                pairs[n][0] = a;
                pairs[n][1] = b;
                n++;
            }
    return n;
}

typedef struct period {
    glicko2_game games[PLAYERS][64 * 2];
    int n[PLAYERS];
} period;

static void period_add(period *pd, const glicko2_rating *r, int a, int b, double score_a)
{
    if (pd->n[a] < 128)
        pd->games[a][pd->n[a]++] = (glicko2_game){r[b].rating, r[b].rd, score_a};
    if (pd->n[b] < 128)
        pd->games[b][pd->n[b]++] = (glicko2_game){r[a].rating, r[a].rd, 1.0 - score_a};
}

static void period_close(period *pd, glicko2_rating *r)
{
    glicko2_rating next[PLAYERS];
    for (int p = 0; p < PLAYERS; p++)
        if (glicko2_update(&r[p], pd->games[p], pd->n[p], GLICKO2_TAU, &next[p]) != 0)
            next[p] = r[p];
    memcpy(r, next, sizeof next);
    memset(pd->n, 0, sizeof pd->n);
}

static int tournament(const config *cf)
{
    static int pairs[PLAYERS * PLAYERS][2];
    int n_pairs = pairings(cf, pairs);
    game_search *searches[PLAYERS] = {NULL};
    for (int p = 1; p < PLAYERS; p++)
        if (!(searches[p] = game_search_new(4 << 20)))
            return 1;
    /* Kalah's endgame table, as the bot view has it (the levels that solve
     * endgames use it). */
    game_kalah_db db = {0};
    if (cf->use_kind[2] && !cf->no_tables) {
        char err[160];
        endgame_cache_info info;
        if (endgame_cache_kalah(6, ENDGAME_CACHE_KALAH_SEEDS, NULL, NULL, &db, &info, err,
                                sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        fprintf(stderr, "Kalah endgame table %s in %.1f s\n", info.built ? "built" : "loaded",
                info.seconds);
        for (int p = 1; p < PLAYERS; p++)
            game_search_set_kalah_db(searches[p], &db);
    }

    static glicko2_rating per_kind[N_KINDS][PLAYERS], overall[PLAYERS];
    static tally tallies[N_KINDS][PLAYERS * PLAYERS];
    static period pd_kind, pd_all;
    for (int p = 0; p < PLAYERS; p++) {
        overall[p] = GLICKO2_NEWCOMER;
        for (size_t k = 0; k < N_KINDS; k++)
            per_kind[k][p] = GLICKO2_NEWCOMER;
    }
    char budget[64];
    if (cf->ms > 0)
        snprintf(budget, sizeof budget, "%d ms a move", cf->ms);
    else
        snprintf(budget, sizeof budget, "%lld nodes a move", cf->nodes);
    printf("Levels tournament: %d round(s) of %d pairings, 2 games each (each side starts "
           "once, after 2 random plies%s); %s\n", cf->rounds, n_pairs,
           cf->swap ? "; congklak and kalah with the swap, after 1" : "", budget);

    int failures = 0, expect_lost = 0;
    for (size_t k = 0; k < N_KINDS; k++) {
        if (!cf->use_kind[k])
            continue;
        double t0 = now_s();
        for (int round = 0; round < cf->rounds; round++) {
            for (int i = 0; i < n_pairs; i++) {
                int a = pairs[i][0], b = pairs[i][1];
                for (int side = 0; side < 2; side++) {
                    uint64_t seed = cf->seed ^ ((uint64_t)k << 40) ^ ((uint64_t)round << 20) ^
                                    (uint64_t)(i * 2 + side);
                    int r = play_game(cf, searches, &all_kinds[k], a, b, side,
                                      cf->seed + (uint64_t)round * 7919 + (uint64_t)i, seed);
                    if (r == -2) {
                        failures++;
                        continue;
                    }
                    tally *t = &tallies[k][i];
                    t->win += r > 0;
                    t->draw += r == 0;
                    t->loss += r < 0;
                    if (b == 0 && a == cf->expect_level && r <= 0)
                        expect_lost++;
                    double score = r > 0 ? 1.0 : r == 0 ? 0.5 : 0.0;
                    period_add(&pd_kind, per_kind[k], a, b, score);
                    period_add(&pd_all, overall, a, b, score);
                }
            }
            period_close(&pd_kind, per_kind[k]);
        }
        /* Over all kinds, one period per kind's rounds. */
        period_close(&pd_all, overall);
        fprintf(stderr, "%s: %.0f s\n", all_kinds[k].label, now_s() - t0);
    }

    char a_name[16], b_name[16];
    printf("\nGames (wins-draws-losses of the first player named)\n%-20s", "pairing");
    for (size_t k = 0; k < N_KINDS; k++)
        if (cf->use_kind[k])
            printf(" %10s", all_kinds[k].label);
    printf("\n");
    for (int i = 0; i < n_pairs; i++) {
        char pair[40];
        snprintf(pair, sizeof pair, "%s v %s", player_name(pairs[i][0], a_name, sizeof a_name),
                 player_name(pairs[i][1], b_name, sizeof b_name));
        printf("%-20s", pair);
        for (size_t k = 0; k < N_KINDS; k++)
            if (cf->use_kind[k]) {
                char cell[24];
                snprintf(cell, sizeof cell, "%d-%d-%d", tallies[k][i].win, tallies[k][i].draw,
                         tallies[k][i].loss);
                printf(" %10s", cell);
            }
        printf("\n");
    }
    printf("\nGlicko-2 ratings (everyone starts at 1500 +- 350, tau %.1f; rating +- RD)\n%-10s",
           GLICKO2_TAU, "player");
    for (size_t k = 0; k < N_KINDS; k++)
        if (cf->use_kind[k])
            printf(" %11s", all_kinds[k].label);
    printf(" %11s\n", "all");
    for (int p = 0; p < PLAYERS; p++) {
        printf("%-10s", player_name(p, a_name, sizeof a_name));
        for (size_t k = 0; k < N_KINDS; k++)
            if (cf->use_kind[k])
                printf("  %4.0f +-%3.0f", per_kind[k][p].rating, per_kind[k][p].rd);
        printf("  %4.0f +-%3.0f\n", overall[p].rating, overall[p].rd);
    }
    for (int p = 1; p < PLAYERS; p++)
        game_search_free(searches[p]);
    endgame_cache_free(&db);
    if (failures)
        fprintf(stderr, "%d game(s) failed\n", failures);
    if (cf->expect_level > 0 && expect_lost > 0) {
        fprintf(stderr, "level %d did not win %d game(s) against random\n", cf->expect_level,
                expect_lost);
        return 1;
    }
    return failures ? 1 : 0;
}

/* Level 10 against itself from the start; the first player's margin. */
static int selfplay(const config *cf)
{
    static const struct {
        const char *stones;
        int perfect;
    } boards[] = {{"stones=3", 2}, {"stones=4", 8}};
    game_kalah_db db;
    endgame_cache_info info;
    char err[160];
    if (endgame_cache_kalah(6, ENDGAME_CACHE_KALAH_SEEDS, NULL, NULL, &db, &info, err,
                            sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("\nKalah endgame table: 6 pits, up to %d seeds, %zu entries (%.1f MB), %s in %.2f s%s%s\n",
           db.max_seeds, db.entries, db.entries / 1e6, info.built ? "built" : "loaded",
           info.seconds, info.path[0] ? ", " : "", info.path);
    printf("Kalah self-play, level 10 both sides, %d ms a move\n", cf->selfplay_ms);
    game_search *s = game_search_new(0);   /* 16 MiB, as the bot view has */
    if (!s)
        return 1;
    game_search_set_kalah_db(s, &db);
    for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++) {
        const char *opts[] = {"cups=6", boards[i].stones, NULL};
        game_state *st = malloc(sizeof *st);
        if (!st || new_game(st, "kalah", opts, false) != 0)
            return 1;
        double t0 = now_s();
        int plies = 0;
        while (!game_is_over(st)) {
            game_search_limits lim = {.level = 10, .time_ms = cf->selfplay_ms};
            game_search_result r;
            if (game_search_best(s, st, &lim, &r) != 0 ||
                game_play(st, game_to_move(st), r.move, NULL, NULL, 0) != GAME_OK)
                return 1;
            plies++;
        }
        int sc[GAME_MAX_SEATS];
        game_scores(st, sc);
        printf("Kalah(6,%s): %d-%d, first player %+d (perfect play %+d), %d moves, %.0f s\n",
               boards[i].stones + 7, sc[0], sc[1], sc[0] - sc[1], boards[i].perfect, plies,
               now_s() - t0);
        fflush(stdout);
        free(st);
    }
    game_search_free(s);
    endgame_cache_free(&db);
    return 0;
}

static int usage(FILE *to, int status)
{
    fprintf(to,
            "usage: sungka-bench-levels [--kinds LIST] [--rounds N] [--nodes N | --ms MS]\n"
            "         [--all-pairs] [--swap] [--selfplay] [--selfplay-ms MS] [--seed S]\n"
            "         [--no-tables] [--expect-beats-random LEVEL]\n"
            "kinds: sungka,congklak,kalah,reversi,qubic (default: all); rounds 1; nodes 20000\n"
            "--swap: congklak and kalah with the pie rule, after one random ply\n");
    return status;
}

int main(int argc, char **argv)
{
    config cf = {.rounds = 1, .nodes = 20000, .selfplay_ms = 1000, .seed = 19};
    bool any_kind = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            return usage(stdout, 0);
        } else if (strcmp(a, "--all-pairs") == 0) {
            cf.all_pairs = true;
        } else if (strcmp(a, "--selfplay") == 0) {
            cf.selfplay = true;
        } else if (strcmp(a, "--no-tables") == 0) {
            cf.no_tables = true;
        } else if (strcmp(a, "--swap") == 0) {
            cf.swap = true;
        } else if (!v) {
            return usage(stderr, 2);
        } else if (strcmp(a, "--kinds") == 0) {
            char list[128];
            snprintf(list, sizeof list, "%s", v);
            for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
                size_t k = 0;
                while (k < N_KINDS && strcmp(all_kinds[k].label, tok) != 0)
                    k++;
                if (k == N_KINDS)
                    return usage(stderr, 2);
                cf.use_kind[k] = any_kind = true;
            }
            i++;
        } else if (strcmp(a, "--rounds") == 0) {
            cf.rounds = atoi(v), i++;
        } else if (strcmp(a, "--nodes") == 0) {
            cf.nodes = atoll(v), i++;
        } else if (strcmp(a, "--ms") == 0) {
            cf.ms = atoi(v), i++;
        } else if (strcmp(a, "--selfplay-ms") == 0) {
            cf.selfplay_ms = atoi(v), i++;
        } else if (strcmp(a, "--seed") == 0) {
            cf.seed = strtoull(v, NULL, 10), i++;
        } else if (strcmp(a, "--expect-beats-random") == 0) {
            cf.expect_level = atoi(v), i++;
        } else {
            return usage(stderr, 2);
        }
    }
    if (cf.rounds < 1 || cf.rounds > 64 || cf.nodes < 1 || cf.ms < 0 || cf.selfplay_ms < 1 ||
        cf.expect_level < 0 || cf.expect_level > LEVELS)
        return usage(stderr, 2);
    if (!any_kind)
        for (size_t k = 0; k < N_KINDS; k++)
            cf.use_kind[k] = true;
    int rc = tournament(&cf);
    if (rc == 0 && cf.selfplay)
        rc = selfplay(&cf);
    return rc;
}
