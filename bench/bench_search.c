/*
 * bench_search.c — how fast and how strong the bot's search is (not a test).
 *
 * Part 1: for each kind, a level-10 search of SECONDS (default 1) from the
 * start position and from a mid-game position (reached by a seeded game of
 * level-3 bots), with a fresh table: nodes, nodes per second, the deepest
 * completed iteration, the score and whether it was proven.
 * Part 2: bot against bot — levels 3, 6 and 9 in pairs, GAMES games per pair
 * and kind (default 10; each opening of two random plies is played with the
 * seats swapped), MS milliseconds a move (default
 * 20): wins, draws and losses of the first-named level (with three seats
 * the second level plays both other seats).
 *
 * Usage: sungka-bench-search [GAMES] [MS] [SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "games.h"
#include "search.h"

typedef struct bench_kind {
    const char *label;
    const char *kind;
    const char *opts[4];
    int mid_plies;     /* plies of level-3 play to reach the mid-game position */
} bench_kind;

static const bench_kind kinds[] = {
    {"sungka 2x6x7", "sungka", {NULL}, 12},
    {"sungka 3 seats", "sungka", {"players=3", NULL}, 12},
    {"congklak 7x7", "congklak", {NULL}, 8},
    {"kalah 6x4", "kalah", {NULL}, 14},
    {"reversi 8x8", "reversi", {NULL}, 24},
    {"reversi 6x6", "reversi", {"size=6", NULL}, 12},
    {"tictactoe 3x3", "tictactoe", {"size=3", "dims=2", NULL}, 3},
    {"tictactoe 4x4x4", "tictactoe", {"size=4", "dims=3", NULL}, 8},
    {"tictactoe 4^4", "tictactoe", {"size=4", "dims=4", NULL}, 8},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int new_game(game_state *st, const bench_kind *b)
{
    const game_kind *k = game_kind_find(b->kind);
    game_options o;
    char err[GAME_ERR_LEN];
    if (!k)
        return -1;
    game_options_default(k, &o);
    for (int i = 0; b->opts[i]; i++)
        if (game_options_parse(k, &o, b->opts[i], err, sizeof err) != GAME_OK) {
            fprintf(stderr, "%s: %s\n", b->label, err);
            return -1;
        }
    if (game_new(st, k, &o, err, sizeof err) != GAME_OK) {
        fprintf(stderr, "%s: %s\n", b->label, err);
        return -1;
    }
    return 0;
}

static int bot_play(game_search *s, game_state *st, int level, int ms, uint64_t seed)
{
    game_search_limits lim = {.level = level, .time_ms = ms, .seed = seed};
    game_search_result r;
    if (game_search_best(s, st, &lim, &r) != 0)
        return -1;
    char err[GAME_ERR_LEN];
    if (game_play(st, game_to_move(st), r.move, NULL, err, sizeof err) != GAME_OK) {
        fprintf(stderr, "illegal move %d: %s\n", r.move, err);
        return -1;
    }
    return 0;
}

static void speed_row(const char *label, const char *where, const game_state *st, int seconds)
{
    game_search *s = game_search_new(0);
    if (!s) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    game_search_limits lim = {.level = 10, .time_ms = seconds * 1000};
    game_search_result r;
    double t0 = now_s();
    int rc = game_search_best(s, st, &lim, &r);
    double t = now_s() - t0;
    if (rc != 0) {
        printf("%-16s %-6s  (no move)\n", label, where);
    } else {
        char score[32];
        if (r.score > GAME_SEARCH_WIN / 2)
            snprintf(score, sizeof score, "win");
        else if (r.score < -GAME_SEARCH_WIN / 2)
            snprintf(score, sizeof score, "loss");
        else
            snprintf(score, sizeof score, "%d", r.score);
        printf("%-16s %-6s %6d %12lld %10.0f %6.2f %8s %6s\n", label, where, r.depth, r.nodes,
               r.nodes / t / 1e3, t, score, r.exact ? "yes" : "no");
    }
    game_search_free(s);
}

/* One game between two levels after two random opening plies (from
 * `opening`, so that deterministic levels do not replay one game); 1 if `a`
 * (seat a_seat) wins, 0 on a draw or shared win, -1 on a loss. */
static int duel(const bench_kind *b, int level_a, int level_b, int a_seat, int ms,
                uint64_t opening, uint64_t seed, game_search *sa, game_search *sb)
{
    game_state *st = malloc(sizeof *st);
    if (!st || new_game(st, b) != 0) {
        free(st);
        return 0;
    }
    uint64_t x = opening * 0x9e3779b97f4a7c15ull + 1;
    for (int p = 0; p < 2 && !game_is_over(st); p++) {
        int moves[GAME_MAX_MOVES];
        int n = game_legal_moves(st, moves, GAME_MAX_MOVES);
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        game_play(st, game_to_move(st), moves[(x * 0x2545f4914f6cdd1dull >> 33) % (uint64_t)n],
                  NULL, NULL, 0);
    }
    uint64_t n = 0;
    while (!game_is_over(st)) {
        bool a = game_to_move(st) == a_seat;
        if (bot_play(a ? sa : sb, st, a ? level_a : level_b, ms, seed + n++) != 0)
            break;
    }
    int w[GAME_MAX_SEATS], nw = game_winners(st, w), res = nw == 0 ? 0 : -1;
    for (int i = 0; i < nw; i++)
        if (w[i] == a_seat)
            res = nw == 1 ? 1 : 0;
    free(st);
    return res;
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : 10;
    int ms = argc > 2 ? atoi(argv[2]) : 20;
    int seconds = argc > 3 ? atoi(argv[3]) : 1;
    if (games < 1 || ms < 1 || seconds < 1) {
        fprintf(stderr, "usage: sungka-bench-search [GAMES] [MS] [SECONDS]\n");
        return 2;
    }

    printf("Search speed: level 10, %d s, fresh 16 MiB table\n", seconds);
    printf("%-16s %-6s %6s %12s %10s %6s %8s %6s\n", "kind", "from", "depth", "nodes",
           "knodes/s", "secs", "score", "exact");
    game_state *st = malloc(sizeof *st);
    game_search *warm = game_search_new(1 << 20);
    if (!st || !warm)
        return 1;
    for (size_t i = 0; i < N_KINDS; i++) {
        if (new_game(st, &kinds[i]) != 0)
            return 1;
        speed_row(kinds[i].label, "start", st, seconds);
        for (int p = 0; p < kinds[i].mid_plies && !game_is_over(st); p++)
            if (bot_play(warm, st, 3, 5, 1000 + (uint64_t)p) != 0)
                return 1;
        if (!game_is_over(st))
            speed_row(kinds[i].label, "mid", st, seconds);
    }
    game_search_free(warm);
    free(st);

    static const int pairs[3][2] = {{3, 6}, {3, 9}, {6, 9}};
    printf("\nLevels: %d games per pair (seats alternating), %d ms a move; "
           "wins-draws-losses of the first level\n", games, ms);
    printf("%-16s", "kind");
    for (int p = 0; p < 3; p++)
        printf("  %2d vs %-2d   ", pairs[p][0], pairs[p][1]);
    printf("\n");
    game_search *sa = game_search_new(4 << 20), *sb = game_search_new(4 << 20);
    if (!sa || !sb)
        return 1;
    for (size_t i = 0; i < N_KINDS; i++) {
        if (strcmp(kinds[i].label, "tictactoe 4^4") == 0 ||
            strcmp(kinds[i].label, "reversi 6x6") == 0)
            continue; /* slow or redundant for this table */
        double t0 = now_s();
        printf("%-16s", kinds[i].label);
        fflush(stdout);
        for (int p = 0; p < 3; p++) {
            int w = 0, d = 0, l = 0;
            for (int g = 0; g < games; g++) {
                int seats = strstr(kinds[i].label, "3 seats") ? 3 : 2;
                int r = duel(&kinds[i], pairs[p][0], pairs[p][1], g % seats, ms,
                             (uint64_t)(g / seats), (uint64_t)(g * 1000 + p), sa, sb);
                w += r > 0;
                d += r == 0;
                l += r < 0;
            }
            printf("  %3d-%d-%-3d   ", w, d, l);
            fflush(stdout);
        }
        printf(" (%.0f s)\n", now_s() - t0);
    }
    game_search_free(sa);
    game_search_free(sb);
    return 0;
}
