/*
 * test_kalah.c — hand-worked Kalah positions (docs/rules.md §3), every cell and
 * step worked out in the comments and asserted; errors; options; and random
 * games (seeded) checking after every move that seeds are conserved, the
 * steps replay to the new board, and the turn and end rules hold.
 * Layouts used below:
 *   2x6 (default): seat 0 pits = cells 0..5, store 6; seat 1 pits 7..12, store 13.
 *   2x4: seat 0 pits 0..3, store 4; seat 1 pits 5..8, store 9. The opposite
 *        of seat 0's pit i (cell i) is seat 1's pit 3-i (cell 8-i).
 */
#include "games_test.h"

#include <string.h>

static const game_kind *kalah(void)
{
    const game_kind *k = game_kind_find("kalah");
    assert_non_null(k);
    return k;
}

static void new_kalah(game_state *st, int cups, int stones)
{
    game_options o;
    char err[GAME_ERR_LEN] = "";
    game_options_default(kalah(), &o);
    assert_int_equal(game_options_set(kalah(), &o, "cups", cups, err, sizeof err), GAME_OK);
    assert_int_equal(game_options_set(kalah(), &o, "stones", stones, err, sizeof err), GAME_OK);
    assert_int_equal(game_new(st, kalah(), &o, err, sizeof err), GAME_OK);
}

static void load_kalah(game_state *st, int cups, const int *cells, int to_move)
{
    new_kalah(st, cups, 1);
    assert_int_equal(game_load(st, cells, 2 * (cups + 1), to_move, false), GAME_OK);
}

/* Default 2x6x4. Seat 0 plays pit 2: cells 3,4,5 and the store 6: extra turn.
 * Then pit 0 (4): cells 1, 2 (0->1), 3, 4 (5->6): the last seed lands in an
 * own pit that was not empty: no relay in Kalah, the turn ends. */
static void test_opening_extra_turn_no_relay(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    assert_int_equal(game_new(&st, kalah(), NULL, err, sizeof err), GAME_OK);
    const int start[] = {4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0};
    assert_board(&st, start, 14);
    assert_int_equal(game_to_move(&st), 0);

    assert_int_equal(game_play(&st, 0, 2, &r, err, sizeof err), GAME_OK);
    const int b1[] = {4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0};
    assert_board(&st, b1, 14);
    const int s1[] = {2, 0, 3, 5, 4, 5, 5, 5, 6, 1};
    assert_steps(&r, s1, 5);
    assert_true(r.extra_turn);
    assert_int_equal(r.next, 0);
    assert_int_equal(game_to_move(&st), 0);

    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int b2[] = {0, 5, 1, 6, 6, 5, 1, 4, 4, 4, 4, 4, 4, 0};
    assert_board(&st, b2, 14);
    const int s2[] = {0, 0, 1, 5, 2, 1, 3, 6, 4, 6};
    assert_steps(&r, s2, 5);
    assert_false(r.extra_turn);
    assert_int_equal(r.captured, 0);
    assert_int_equal(r.next, 1);
    assert_int_equal(game_check(&st, 0, 1, err, sizeof err), GAME_E_TURN);
    assert_string_equal(err, "it is seat 1's turn");
}

/* Capture: the last seed in an own empty pit with seeds opposite.
 * 2x4: seat 0 = [1,0,2,0] store 0; seat 1 = [1,1,3,1] store 0. Pit 0: cell
 * 1 0->1; the opposite cell 8-1 = 7 holds 3: store 4 = 1+3 = 4. */
static void test_capture(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {1, 0, 2, 0, 0, 1, 1, 3, 1, 0};
    load_kalah(&st, 4, pos, 0);
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 0, 2, 0, 4, 1, 1, 0, 1, 0};
    assert_board(&st, want, 10);
    const int steps[] = {0, 0, 1, 1, 1, 0, 7, 0, 4, 4};
    assert_steps(&r, steps, 5);
    assert_int_equal(r.captured, 3);
    assert_false(r.extra_turn);
    assert_int_equal(r.next, 1);
}

/* No capture when the opposite pit is empty: the seed stays in its pit.
 * Same as above with cell 7 empty. */
static void test_no_capture_empty_opposite(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {1, 0, 2, 0, 0, 1, 1, 0, 1, 0};
    load_kalah(&st, 4, pos, 0);
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 1, 2, 0, 0, 1, 1, 0, 1, 0};
    assert_board(&st, want, 10);
    const int steps[] = {0, 0, 1, 1};
    assert_steps(&r, steps, 2);
    assert_int_equal(r.captured, 0);
    assert_int_equal(r.next, 1);
}

/* Skipping the opponent's store, then a capture after wrapping around.
 * 2x4: seat 0 = [0,0,0,7] store 0; seat 1 = [1,1,1,1] store 2.
 * Pit 3 (7): store 4 0->1, cells 5..8 -> 2, (store 9 skipped), cell 0 0->1,
 * cell 1 0->1: own and empty, opposite cell 7 holds 2: store 4 = 1+1+2 = 4. */
static void test_skip_opponent_store(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {0, 0, 0, 7, 0, 1, 1, 1, 1, 2};
    load_kalah(&st, 4, pos, 0);
    assert_int_equal(game_play(&st, 0, 3, &r, err, sizeof err), GAME_OK);
    const int want[] = {1, 0, 0, 0, 4, 2, 2, 0, 2, 2};
    assert_board(&st, want, 10);
    const int steps[] = {3, 0, 4, 1, 5, 2, 6, 2, 7, 2, 8, 2, 0, 1, 1, 1, 1, 0, 7, 0, 4, 4};
    assert_steps(&r, steps, 11);
    assert_int_equal(r.captured, 2);
    assert_int_equal(r.next, 1);
    assert_int_equal(board_total(&st), 13);
}

/* Seat 1 skips seat 0's store (4) and captures from seat 0's side: the
 * opposite of seat 1's pit j (cell 5+j) is cell 3-j.
 * 2x4: seat 0 = [1,1,1,1] store 0; seat 1 = [0,0,0,6] store 0.
 * Pit 3 (cell 8, 6): store 9 0->1, cells 0..3 -> 2, (store 4 skipped), cell 5
 * 0->1: own empty pit j = 0, opposite cell 3 holds 2: store 9 = 1+1+2 = 4. */
static void test_seat_one_skips_store(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {1, 1, 1, 1, 0, 0, 0, 0, 6, 0};
    load_kalah(&st, 4, pos, 1);
    assert_int_equal(game_play(&st, 1, 3, &r, err, sizeof err), GAME_OK);
    /* That leaves seat 0 = [2,2,2,0] and seat 1's row empty: the game ends
     * and seat 0's 6 seeds go to store 4. */
    const int want[] = {0, 0, 0, 0, 6, 0, 0, 0, 0, 4};
    assert_board(&st, want, 10);
    const int steps[] = {8, 0, 9, 1, 0, 2, 1, 2, 2, 2, 3, 2, 5, 1, 5, 0, 3, 0, 9, 4,
                         0, 0, 1, 0, 2, 0, 4, 6};
    assert_steps(&r, steps, 14);
    assert_int_equal(r.captured, 2);
    assert_true(game_is_over(&st));
    assert_int_equal(r.next, -1);
    int w[GAME_MAX_SEATS];
    assert_int_equal(game_winners(&st, w), 1);
    assert_int_equal(w[0], 0);
}

/* A sowing of 9 seeds on 2x4 laps the board and ends in its own origin pit,
 * emptied when it was picked up: that counts as an empty pit.
 * seat 0 = [0,0,9,0] store 0; seat 1 = [1,1,1,1] store 0. Pit 2 (9): cell 3
 * 0->1, store 4 0->1, cells 5..8 -> 2, (9 skipped), cell 0 0->1, cell 1 0->1,
 * cell 2 0->1: opposite cell 6 holds 2: store 4 = 1+1+2 = 4. */
static void test_lap_into_origin_pit(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {0, 0, 9, 0, 0, 1, 1, 1, 1, 0};
    load_kalah(&st, 4, pos, 0);
    assert_int_equal(game_play(&st, 0, 2, &r, err, sizeof err), GAME_OK);
    const int want[] = {1, 1, 0, 1, 4, 2, 0, 2, 2, 0};
    assert_board(&st, want, 10);
    assert_int_equal(r.captured, 2);
    assert_int_equal(r.next, 1);
}

/* The mover's row empties with the last seed in the store: the extra turn is
 * void, the game ends and seat 1's seeds go to seat 1's store.
 * 2x4: seat 0 = [0,0,0,1] store 5; seat 1 = [2,0,3,1] store 4. Pit 3: store
 * 4 -> 6. Sweep: cells 5, 7, 8 -> 0, store 9 = 4+6 = 10. */
static void test_end_sweep(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {0, 0, 0, 1, 5, 2, 0, 3, 1, 4};
    load_kalah(&st, 4, pos, 0);
    assert_int_equal(game_play(&st, 0, 3, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 0, 0, 0, 6, 0, 0, 0, 0, 10};
    assert_board(&st, want, 10);
    const int steps[] = {3, 0, 4, 6, 5, 0, 7, 0, 8, 0, 9, 10};
    assert_steps(&r, steps, 6);
    assert_true(game_is_over(&st));
    assert_false(r.extra_turn);
    assert_int_equal(r.next, -1);
    assert_int_equal(r.n_passed, 0);
    int sc[GAME_MAX_SEATS], w[GAME_MAX_SEATS];
    game_scores(&st, sc);
    assert_int_equal(sc[0], 6);
    assert_int_equal(sc[1], 10);
    assert_int_equal(game_winners(&st, w), 1);
    assert_int_equal(w[0], 1);
    int moves[GAME_MAX_MOVES];
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 0);
    assert_int_equal(game_check(&st, 0, 0, err, sizeof err), GAME_E_OVER);

    /* A capture empties the opponent's row: the game ends at once and the
     * mover's remaining seeds go to the mover's store. seat 0 = [1,0,2,0]
     * store 0; seat 1 = [0,0,3,0] store 1. Pit 0: cell 1 0->1, opposite
     * cell 7 holds 3: store 4 = 4; seat 1's row is empty: cell 2 (2) ->
     * store 4 = 6. */
    const int capture_end[] = {1, 0, 2, 0, 0, 0, 0, 3, 0, 1};
    load_kalah(&st, 4, capture_end, 0);
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int want2[] = {0, 0, 0, 0, 6, 0, 0, 0, 0, 1};
    assert_board(&st, want2, 10);
    const int steps2[] = {0, 0, 1, 1, 1, 0, 7, 0, 4, 4, 2, 0, 4, 6};
    assert_steps(&r, steps2, 7);
    assert_int_equal(r.captured, 3);
    assert_true(game_is_over(&st));
    assert_int_equal(r.next, -1);
    assert_int_equal(game_winners(&st, w), 1);
    assert_int_equal(w[0], 0);

    /* Ending level: a draw, no winner. seat 0 = [0,0,0,1] store 4; seat 1 =
     * [1,0,0,0] store 4: 5 to 5. */
    const int draw[] = {0, 0, 0, 1, 4, 1, 0, 0, 0, 4};
    load_kalah(&st, 4, draw, 0);
    assert_int_equal(game_play(&st, 0, 3, &r, err, sizeof err), GAME_OK);
    assert_true(game_is_over(&st));
    assert_int_equal(game_cell(&st, 4), 5);
    assert_int_equal(game_cell(&st, 9), 5);
    assert_int_equal(game_winners(&st, w), 0);
}

static void test_errors(void **state)
{
    (void)state;
    game_state st, copy;
    game_result r;
    char err[GAME_ERR_LEN];
    assert_int_equal(game_new(&st, kalah(), NULL, err, sizeof err), GAME_OK);
    copy = st;
    assert_int_equal(game_play(&st, 0, 9, &r, err, sizeof err), GAME_E_RANGE);
    assert_string_equal(err, "pit 9 is out of range 0..5");
    assert_int_equal(game_play(&st, 0, 7, &r, err, sizeof err), GAME_E_RANGE);
    assert_string_equal(err, "pit 7 is out of range 0..5");
    assert_int_equal(game_play(&st, 0, -1, &r, err, sizeof err), GAME_E_RANGE);
    assert_string_equal(err, "pit -1 is out of range 0..5");
    assert_int_equal(game_play(&st, 0, 6, &r, err, sizeof err), GAME_E_HOME);
    assert_string_equal(err, "the store cannot be played; choose a pit 0..5");
    assert_int_equal(game_play(&st, 1, 0, &r, err, sizeof err), GAME_E_TURN);
    assert_string_equal(err, "it is seat 0's turn");
    assert_memory_equal(&copy, &st, sizeof st);

    const int pos[] = {1, 0, 2, 0, 0, 1, 1, 3, 1, 0};
    load_kalah(&st, 4, pos, 0);
    copy = st;
    assert_int_equal(game_play(&st, 0, 1, &r, err, sizeof err), GAME_E_EMPTY);
    assert_string_equal(err, "pit 1 is empty");
    assert_int_equal(game_check(&st, 0, 4, err, sizeof err), GAME_E_HOME);
    assert_string_equal(err, "the store cannot be played; choose a pit 0..3");
    assert_memory_equal(&copy, &st, sizeof st);
    st.kind->apply(&st, 1, &r);
    st.kind->apply(&st, 4, NULL);
    st.kind->apply(&st, -3, NULL);
    assert_memory_equal(&copy, &st, sizeof st);
}

static void test_options(void **state)
{
    (void)state;
    const game_kind *k = kalah();
    game_options o;
    char err[GAME_ERR_LEN];
    game_options_default(k, &o);
    assert_int_equal(o.n, 3);
    assert_int_equal(game_option(k, &o, "cups", 0), 6);
    assert_int_equal(game_option(k, &o, "swap", -1), 0);
    assert_int_equal(game_option(k, &o, "stones", 0), 4);
    static const option_bounds cases[] = {
        {"cups", 3, 8, "cups must be 3..8, not 2", "cups must be 3..8, not 9"},
        {"stones", 1, 10, "stones must be 1..10, not 0", "stones must be 1..10, not 11"},
        {"swap", 0, 1, "swap must be 0..1, not -1", "swap must be 0..1, not 2"},
    };
    assert_option_bounds(k, cases, sizeof cases / sizeof cases[0]);
    assert_int_equal(game_options_parse(k, &o, "first=1", err, sizeof err), GAME_E_OPTION);
    assert_string_equal(err, "kalah has no option 'first' (options: cups, stones, swap)");
    game_state st;
    new_kalah(&st, 8, 10);
    assert_int_equal(game_cell_count(&st), 18);
    assert_int_equal(board_total(&st), 160);
}

/* --- random games --- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t next_rand(void)
{
    return test_rand(&rng);
}

/* Every game in normal play so far ends well within this many moves (the
 * longest seen is printed); a game that does not is a bug in the turn or
 * end rules. */
#define MAX_GAME_MOVES 1000

static int play_random_game(int cups, int stones)
{
    game_state st, before;
    game_result r;
    char err[GAME_ERR_LEN];
    int moves[GAME_MAX_MOVES];
    new_kalah(&st, cups, stones);
    int total = 2 * cups * stones;
    int n_moves = 0;
    while (!game_is_over(&st)) {
        assert_true(n_moves < MAX_GAME_MOVES);
        int seat = game_to_move(&st);
        assert_false(test_row_empty(&st, 0));
        assert_false(test_row_empty(&st, 1));
        int n = game_legal_moves(&st, moves, GAME_MAX_MOVES);
        assert_true(n > 0);
        int move = moves[next_rand() % (uint32_t)n];
        before = st;
        if (game_play(&st, seat, move, &r, err, sizeof err) != GAME_OK)
            fail_msg("legal move %d by seat %d refused: %s", move, seat, err);
        n_moves++;

        assert_int_equal(board_total(&st), total);
        assert_false(r.truncated);
        int cells[GAME_MAX_CELLS];
        for (int i = 0; i < game_cell_count(&st); i++)
            cells[i] = game_cell(&before, i);
        for (int i = 0; i < r.n_steps; i++)
            cells[r.steps[i].cell] = r.steps[i].value;
        for (int i = 0; i < game_cell_count(&st); i++) {
            assert_true(game_cell(&st, i) >= 0);
            if (cells[i] != game_cell(&st, i))
                fail_msg("steps give cell %d = %d, board has %d", i, cells[i], game_cell(&st, i));
        }
        for (int s = 0; s < 2; s++)
            assert_true(game_cell(&st, game_mancala_home(&st, s)) >=
                        game_cell(&before, game_mancala_home(&before, s)));
        /* The opponent's store never grows by the mover's sowing, except in
         * the end sweep. */
        if (!game_is_over(&st))
            assert_int_equal(game_cell(&st, game_mancala_home(&st, 1 - seat)),
                             game_cell(&before, game_mancala_home(&before, 1 - seat)));
        assert_two_seat_turn(&st, &r, seat);
    }
    assert_two_seat_end(&st, total);
    return n_moves;
}

static void test_random_games(void **state)
{
    (void)state;
    int longest = 0;
    long moves = 0;
    for (int g = 0; g < 2000; g++) {
        int cups = 3 + (int)(next_rand() % 6);
        int stones = 1 + (int)(next_rand() % 10);
        int n = play_random_game(cups, stones);
        moves += n;
        if (n > longest)
            longest = n;
    }
    for (int g = 0; g < 50; g++) {
        moves += play_random_game(8, 10);
        moves += play_random_game(3, 1);
    }
    print_message("2100 games, %ld moves, longest %d\n", moves, longest);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opening_extra_turn_no_relay),
        cmocka_unit_test(test_capture),
        cmocka_unit_test(test_no_capture_empty_opposite),
        cmocka_unit_test(test_skip_opponent_store),
        cmocka_unit_test(test_seat_one_skips_store),
        cmocka_unit_test(test_lap_into_origin_pit),
        cmocka_unit_test(test_end_sweep),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
