/*
 * test_reversi_endgame.c — the bot's exact reversi endgames (search.h: level
 * 10 solves boards up to 8x8 from 20 empties with games/search/
 * endgame_reversi.c) against a brute-force minimax written here over the
 * rules (game_legal_moves and game_play on copies, no pruning, no ordering):
 * the margin it reports and the margin its move leads to, on positions from
 * random playouts of 4x4, 6x6 and 8x8 with up to 9 empties (and with passes
 * and early ends among them), the whole 4x4 game, and a stopped solve that
 * still answers with a legal move.
 */
#include "games_test.h"
#include "search.h"

#include <stdlib.h>
#include <string.h>

static void new_reversi(game_state *st, int size)
{
    const game_kind *k = game_kind_find("reversi");
    game_options o;
    char err[GAME_ERR_LEN] = "";
    assert_non_null(k);
    game_options_default(k, &o);
    assert_int_equal(game_options_set(k, &o, "size", size, err, sizeof err), GAME_OK);
    assert_int_equal(game_new(st, k, &o, err, sizeof err), GAME_OK);
}

static int empties_of(const game_state *st)
{
    int e = 0;
    for (int c = 0; c < game_cell_count(st); c++)
        e += game_cell(st, c) == 0;
    return e;
}

/* The final margin for `seat` (its discs minus the other's) under perfect
 * play by both, by trying every line. */
static int brute(const game_state *st, int seat)
{
    if (game_is_over(st)) {
        int sc[GAME_MAX_SEATS];
        game_scores(st, sc);
        return sc[seat] - sc[1 - seat];
    }
    const int mover = game_to_move(st);
    int moves[GAME_MAX_MOVES];
    const int n = game_legal_moves(st, moves, GAME_MAX_MOVES);
    assert_true(n > 0);
    int best = -1000;
    game_state *child = malloc(sizeof *child);
    assert_non_null(child);
    for (int i = 0; i < n; i++) {
        *child = *st;
        assert_int_equal(game_play(child, mover, moves[i], NULL, NULL, 0), GAME_OK);
        int v = brute(child, mover);
        if (v > best)
            best = v;
    }
    free(child);
    return mover == seat ? best : -best;
}

/* The margin a level-10 result claims: -WIN + 256 * margin + ply for a
 * loss, WIN + 256 * margin - ply for a win (search_internal.h), ply < 128. */
static int claimed_margin(const game_search_result *r)
{
    if (r->score == 0)
        return 0;
    if (r->score > 0)
        return (r->score - GAME_SEARCH_WIN + 255) / 256;
    return (r->score + GAME_SEARCH_WIN) >> 8;
}

static void check_solved(game_search *s, const game_state *st)
{
    const int mover = game_to_move(st);
    game_search_limits lim = {.level = 10, .time_ms = 60000};
    game_search_result r;
    assert_int_equal(game_search_best(s, st, &lim, &r), 0);
    const int want = brute(st, mover);
    if (!r.exact || claimed_margin(&r) != want)
        fail_msg("size %d, %d empties: solver says %d (exact %d), brute force %d", st->size,
                 empties_of(st), claimed_margin(&r), r.exact, want);
    /* Its move reaches that margin. */
    game_state *child = malloc(sizeof *child);
    assert_non_null(child);
    *child = *st;
    assert_int_equal(game_play(child, mover, r.move, NULL, NULL, 0), GAME_OK);
    assert_int_equal(brute(child, mover), want);
    free(child);
}

static void test_random_endgames(void **state)
{
    (void)state;
    game_search *s = game_search_new(1 << 20);
    assert_non_null(s);
    game_state *st = malloc(sizeof *st);
    assert_non_null(st);
    uint64_t rng = 0x1234567890abcdefull;
    static const struct {
        int n, min_e, max_e, positions;
    } cases[] = {{4, 1, 11, 40}, {6, 1, 9, 30}, {8, 1, 9, 30}};
    int passes_seen = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int p = 0; p < cases[c].positions; p++) {
            const int n = cases[c].n;
            const int e = cases[c].min_e + p % (cases[c].max_e - cases[c].min_e + 1);
            new_reversi(st, n);
            while (!game_is_over(st) && empties_of(st) > e) {
                int moves[GAME_MAX_MOVES];
                int count = game_legal_moves(st, moves, GAME_MAX_MOVES);
                game_result r;
                game_play(st, game_to_move(st), moves[test_rand(&rng) % (unsigned)count], &r,
                          NULL, 0);
                passes_seen += r.n_passed;
            }
            if (!game_is_over(st))
                check_solved(s, st);
        }
    assert_true(passes_seen > 0); /* the positions include passes */
    free(st);
    game_search_free(s);
}

/* 4x4 from the start (12 empties): white wins 11-3 under these rules. */
static void test_whole_4x4(void **state)
{
    (void)state;
    game_search *s = game_search_new(0);
    game_state *st = malloc(sizeof *st);
    assert_non_null(s);
    assert_non_null(st);
    new_reversi(st, 4);
    check_solved(s, st);
    game_search_limits lim = {.level = 10, .time_ms = 60000};
    game_search_result r;
    assert_int_equal(game_search_best(s, st, &lim, &r), 0);
    assert_int_equal(claimed_margin(&r), -8);
    assert_int_equal(r.depth, 12);
    free(st);
    game_search_free(s);
}

/* A solve stopped before it starts still answers with a legal move (from
 * the search after it), and does not claim to be exact. */
static void test_stopped(void **state)
{
    (void)state;
    game_search *s = game_search_new(0);
    game_state *st = malloc(sizeof *st);
    assert_non_null(s);
    assert_non_null(st);
    new_reversi(st, 8);
    uint64_t rng = 99;
    while (empties_of(st) > 20 && !game_is_over(st)) {
        int moves[GAME_MAX_MOVES];
        int count = game_legal_moves(st, moves, GAME_MAX_MOVES);
        game_play(st, game_to_move(st), moves[test_rand(&rng) % (unsigned)count], NULL, NULL,
                  0);
    }
    assert_false(game_is_over(st));
    volatile int stop = 1;
    game_search_limits lim = {.level = 10, .time_ms = 60000, .stop = &stop};
    game_search_result r;
    assert_int_equal(game_search_best(s, st, &lim, &r), 0);
    assert_false(r.exact);
    assert_int_equal(game_check(st, game_to_move(st), r.move, NULL, 0), GAME_OK);
    free(st);
    game_search_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_4x4),
        cmocka_unit_test(test_random_endgames),
        cmocka_unit_test(test_stopped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
