/*
 * games_test.h — small helpers shared by the cmocka tests of games/: build a
 * sungka game, load a hand-made position, and compare whole boards and step
 * lists so that a failure names the cell that differs.
 */
#ifndef SUNGKA_GAMES_TEST_H
#define SUNGKA_GAMES_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "games_internal.h"

/* xorshift64*: a small, fast generator that gives the same games everywhere;
 * each test keeps its own state (and seed). */
static inline uint32_t test_rand(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (uint32_t)((*state * 0x2545f4914f6cdd1dULL) >> 32);
}

/* A mancala seat's row is empty (written here, not taken from the engine,
 * so the tests check the engine against their own reading of the board). */
static inline bool test_row_empty(const game_state *st, int seat)
{
    for (int c = 0; c < st->cups; c++)
        if (game_cell(st, game_mancala_cup(st, seat, c)) != 0)
            return false;
    return true;
}

/* The end of a two-seat mancala game: every stone home, and the winner (or
 * draw) follows from the stores. */
static inline void assert_two_seat_end(const game_state *st, int total)
{
    int sc[GAME_MAX_SEATS], w[GAME_MAX_SEATS];
    game_scores(st, sc);
    assert_int_equal(sc[0] + sc[1], total);
    int nw = game_winners(st, w);
    assert_int_equal(nw, sc[0] == sc[1] ? 0 : 1);
    if (nw == 1)
        assert_int_equal(w[0], sc[0] > sc[1] ? 0 : 1);
}

/* After seat `seat` moved in a two-seat mancala game (no relay limit, no
 * passes): the result's turn agrees with the state, a finished game has
 * both rows empty, and the turn passes unless the move earned another. */
static inline void assert_two_seat_turn(const game_state *st, const game_result *r, int seat)
{
    assert_false(r->relay_limit_hit);
    assert_int_equal(r->n_passed, 0);
    assert_int_equal(r->next, game_to_move(st));
    if (game_is_over(st)) {
        assert_true(test_row_empty(st, 0) && test_row_empty(st, 1));
        assert_false(r->extra_turn);
    } else {
        assert_int_equal(r->next, r->extra_turn ? seat : 1 - seat);
    }
}

/* One option's range and the sentences for just below and just above it. */
typedef struct option_bounds {
    const char *name;
    int min, max;
    const char *below, *above;
} option_bounds;

/* Each option refuses min - 1 and max + 1 with its sentence, leaving the
 * options as they were, and takes min and max (read back as set). */
static inline void assert_option_bounds(const game_kind *k, const option_bounds *cases,
                                        size_t n)
{
    char err[GAME_ERR_LEN];
    for (size_t i = 0; i < n; i++) {
        game_options o;
        game_options_default(k, &o);
        game_options before = o;
        assert_int_equal(game_options_set(k, &o, cases[i].name, cases[i].min - 1, err, sizeof err),
                         GAME_E_OPTION);
        assert_string_equal(err, cases[i].below);
        assert_int_equal(game_options_set(k, &o, cases[i].name, cases[i].max + 1, err, sizeof err),
                         GAME_E_OPTION);
        assert_string_equal(err, cases[i].above);
        assert_memory_equal(&before, &o, sizeof o);
        assert_int_equal(game_options_set(k, &o, cases[i].name, cases[i].min, err, sizeof err),
                         GAME_OK);
        assert_int_equal(game_option(k, &o, cases[i].name, -1), cases[i].min);
        assert_int_equal(game_options_set(k, &o, cases[i].name, cases[i].max, err, sizeof err),
                         GAME_OK);
        assert_int_equal(game_option(k, &o, cases[i].name, -1), cases[i].max);
    }
}

static inline void new_sungka(game_state *st, int players, int cups, int stones)
{
    const game_kind *k = game_kind_find("sungka");
    assert_non_null(k);
    game_options o;
    char err[GAME_ERR_LEN] = "";
    game_options_default(k, &o);
    assert_int_equal(game_options_set(k, &o, "players", players, err, sizeof err), GAME_OK);
    assert_int_equal(game_options_set(k, &o, "cups", cups, err, sizeof err), GAME_OK);
    assert_int_equal(game_options_set(k, &o, "stones", stones, err, sizeof err), GAME_OK);
    assert_int_equal(game_new(st, k, &o, err, sizeof err), GAME_OK);
}

/* A sungka position of `players` x `cups` from cells[] (home included in
 * each row of cups+1 values) with `to_move` to play. */
static inline void load_sungka(game_state *st, int players, int cups, const int *cells,
                               int to_move)
{
    new_sungka(st, players, cups, 1);
    assert_int_equal(game_load(st, cells, players * (cups + 1), to_move, false), GAME_OK);
}

static inline void assert_board(const game_state *st, const int *want, int n)
{
    assert_int_equal(game_cell_count(st), n);
    for (int i = 0; i < n; i++)
        if (game_cell(st, i) != want[i])
            fail_msg("cell %d holds %d, expected %d", i, game_cell(st, i), want[i]);
}

/* want is a flat list of (cell, value) pairs. */
static inline void assert_steps(const game_result *r, const int *want, int n_pairs)
{
    assert_false(r->truncated);
    if (r->n_steps != n_pairs)
        fail_msg("%d steps, expected %d", r->n_steps, n_pairs);
    for (int i = 0; i < n_pairs; i++)
        if (r->steps[i].cell != want[2 * i] || r->steps[i].value != want[2 * i + 1])
            fail_msg("step %d is (%d,%d), expected (%d,%d)", i, r->steps[i].cell,
                     r->steps[i].value, want[2 * i], want[2 * i + 1]);
}

static inline int board_total(const game_state *st)
{
    int t = 0;
    for (int i = 0; i < game_cell_count(st); i++)
        t += game_cell(st, i);
    return t;
}

#endif /* SUNGKA_GAMES_TEST_H */
