/*
 * test_perft.c — the perft counts (perft.h) of sungka, congklak and kalah
 * checked against an independent count written here in the most naive way:
 * recursion over every move number through game_check and game_play on
 * whole copies, with the conventions of perft.h spelled out once more
 * (extra turns and forced passes are plies; a finished game has no moves).
 * Plus a few values fixed by hand, and the pass convention on a hand-worked
 * sungka position.
 */
#include "games_test.h"
#include "perft.h"

#include <stdlib.h>
#include <string.h>

#define NAIVE_MAX_DEPTH 16

static game_result naive_res[NAIVE_MAX_DEPTH + 1];

/* Sequences of exactly `depth` plies from st. */
static long long naive(const game_state *st, int depth)
{
    assert_true(depth >= 0 && depth <= NAIVE_MAX_DEPTH);
    if (depth == 0)
        return 1;
    if (game_is_over(st))
        return 0;
    long long total = 0;
    int seat = game_to_move(st);
    /* Every number a mancala player could send, legal or not. */
    for (int m = -2; m <= st->cups + 2; m++) {
        if (game_check(st, seat, m, NULL, 0) != GAME_OK)
            continue;
        game_state child = *st;
        game_result *r = &naive_res[depth];
        assert_int_equal(game_play(&child, seat, m, r, NULL, 0), GAME_OK);
        int left = depth - 1;
        if (left == 0)
            total += 1;             /* this move is the last ply */
        else if (game_is_over(&child))
            total += 0;             /* the game ended before the depth */
        else if (left <= r->n_passed)
            total += 1;             /* the depth runs out among the passes */
        else
            total += naive(&child, left - r->n_passed);
    }
    return total;
}

static void new_game(game_state *st, const char *kind, const char *const *opts)
{
    const game_kind *k = game_kind_find(kind);
    assert_non_null(k);
    game_options o;
    char err[GAME_ERR_LEN] = "";
    game_options_default(k, &o);
    for (; opts && *opts; opts++)
        if (game_options_parse(k, &o, *opts, err, sizeof err) != GAME_OK)
            fail_msg("%s: %s", *opts, err);
    assert_int_equal(game_new(st, k, &o, err, sizeof err), GAME_OK);
}

/* Fast counts of every depth 1..depth from one walk against the naive count
 * of each depth, and against game_perft one depth at a time. */
static void check_against_naive(const game_state *st, int depth)
{
    long long counts[GAME_PERFT_MAX_DEPTH + 1];
    game_perft_level *levels = calloc((size_t)depth, sizeof *levels);
    assert_non_null(levels);
    assert_int_equal(game_perft_counts(st, depth, counts, levels), 0);
    free(levels);
    assert_int_equal(counts[0], 1);
    for (int d = 1; d <= depth; d++) {
        long long want = naive(st, d);
        if (counts[d] != want)
            fail_msg("%s depth %d: perft %lld, naive %lld", st->kind->name, d, counts[d], want);
        assert_int_equal(game_perft(st, d), want);
    }
}

static void test_sungka_matches_naive(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "sungka", NULL);
    check_against_naive(&st, 6);
    /* Small boards end within the depth and pass often (3 seats). */
    const char *three[] = {"players=3", "cups=3", "stones=1", NULL};
    new_game(&st, "sungka", three);
    check_against_naive(&st, 12);
    const char *two_small[] = {"cups=3", "stones=2", NULL};
    new_game(&st, "sungka", two_small);
    check_against_naive(&st, 10);
}

static void test_congklak_matches_naive(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "congklak", NULL);
    check_against_naive(&st, 6);
    const char *small[] = {"cups=3", "stones=1", "first=1", NULL};
    new_game(&st, "congklak", small);
    check_against_naive(&st, 12);
    const char *mid[] = {"cups=4", "stones=2", NULL};
    new_game(&st, "congklak", mid);
    check_against_naive(&st, 9);
}

static void test_kalah_matches_naive(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "kalah", NULL);
    check_against_naive(&st, 7);
    const char *small[] = {"cups=3", "stones=1", NULL};
    new_game(&st, "kalah", small);
    check_against_naive(&st, 12);
    const char *mid[] = {"cups=4", "stones=2", NULL};
    new_game(&st, "kalah", mid);
    check_against_naive(&st, 9);
}

/* Values fixed by hand. Kalah 6x4: 6 first moves; pit 2 ends in the store
 * (extra turn: 5 more moves by seat 0), the other 5 give seat 1 six moves
 * each: 5*6 + 5 = 35. Congklak 7x7: 7 first moves. Sungka 6x7: 6. The
 * deeper kalah values are the ones the ctest of the tool checks too. */
static void test_fixed_values(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "kalah", NULL);
    assert_int_equal(game_perft(&st, 0), 1);
    assert_int_equal(game_perft(&st, 1), 6);
    assert_int_equal(game_perft(&st, 2), 35);
    assert_int_equal(game_perft(&st, 3), 185);
    assert_int_equal(game_perft(&st, 4), 942);
    new_game(&st, "congklak", NULL);
    assert_int_equal(game_perft(&st, 1), 7);
    new_game(&st, "sungka", NULL);
    assert_int_equal(game_perft(&st, 1), 6);
}

/* Passes are plies. Sungka 2x3: seat 0 = [0,0,1] home 0; seat 1 = [1,1,0]
 * home 0 (cells 4..6, home 7).
 * Ply 1: seat 0's pit 2 ends in its home: an extra turn with an empty row,
 *        so seat 0 passes (ply 2) and seat 1 moves: 1 and 1.
 * Ply 3: seat 1's pits 0 and 1: 2.
 * Ply 4: pit 0 relayed from cell 5 through cell 6 into home 7: an extra
 *         turn, and seat 1's pit 2 is its only move; it ends in the home
 *         with every stone home: the game is over.
 *         pit 1 landed in empty cell 6: a capture (nothing opposite), and
 *         seat 0, with no stones, passes. 2 at ply 4.
 * Ply 5: only after that pass: seat 1's pit 0 lands in empty cell 5, a
 *         capture, and every stone is home: 1.
 * Ply 6 and deeper: every game is over: 0. */
static void test_passes_count_as_plies(void **state)
{
    (void)state;
    game_state st;
    const int pos[] = {0, 0, 1, 0, 1, 1, 0, 0};
    load_sungka(&st, 2, 3, pos, 0);
    long long counts[GAME_PERFT_MAX_DEPTH + 1];
    game_perft_level *levels = calloc(8, sizeof *levels);
    assert_non_null(levels);
    assert_int_equal(game_perft_counts(&st, 8, counts, levels), 0);
    free(levels);
    const long long want[] = {1, 1, 1, 2, 2, 1, 0, 0, 0};
    for (int d = 0; d <= 8; d++) {
        if (counts[d] != want[d])
            fail_msg("depth %d: %lld, expected %lld", d, counts[d], want[d]);
        assert_int_equal(naive(&st, d), want[d]);
    }
}

/* A finished game has no sequences; bad depths and states are refused. */
static void test_edges(void **state)
{
    (void)state;
    game_state st;
    const int pos[] = {0, 0, 0, 1, 5, 2, 0, 3, 1, 4};
    new_game(&st, "kalah", (const char *[]){"cups=4", NULL});
    assert_int_equal(game_load(&st, pos, 10, 0, false), GAME_OK);
    assert_int_equal(game_perft(&st, 1), 1); /* the only move ends the game */
    assert_int_equal(game_perft(&st, 2), 0);
    assert_int_equal(game_play(&st, 0, 3, NULL, NULL, 0), GAME_OK);
    assert_true(game_is_over(&st));
    assert_int_equal(game_perft(&st, 0), 1);
    assert_int_equal(game_perft(&st, 1), 0);
    assert_int_equal(game_perft(&st, 5), 0);

    assert_int_equal(game_perft(&st, -1), -1);
    assert_int_equal(game_perft(&st, GAME_PERFT_MAX_DEPTH + 1), -1);
    assert_int_equal(game_perft(NULL, 1), -1);
    long long counts[4];
    game_perft_level *levels = calloc(1, sizeof *levels);
    assert_non_null(levels);
    assert_int_equal(game_perft_counts(&st, 0, counts, levels), -1);
    assert_int_equal(game_perft_counts(&st, 1, NULL, levels), -1);
    assert_int_equal(game_perft_counts(&st, 1, counts, NULL), -1);
    free(levels);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sungka_matches_naive),
        cmocka_unit_test(test_congklak_matches_naive),
        cmocka_unit_test(test_kalah_matches_naive),
        cmocka_unit_test(test_fixed_values),
        cmocka_unit_test(test_passes_count_as_plies),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
