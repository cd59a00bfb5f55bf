/*
 * test_sungka.c — hand-worked sungka positions (docs/rules.md §1): every cup of
 * the board and every step of the result is worked out in the comments and
 * asserted. Layouts used below:
 *   2 players, 6 cups: seat 0 cups = cells 0..5, home 6; seat 1 cups 7..12, home 13.
 *   2 players, 3 cups: seat 0 cups 0..2, home 3; seat 1 cups 4..6, home 7.
 *   3 players, 3 cups: seat 0 cups 0..2 home 3; seat 1 cups 4..6 home 7;
 *                      seat 2 cups 8..10 home 11.
 */
#include "games_test.h"

#include <string.h>

/* Opening, 2x6x7. Seat 0 plays cup 0: 7 stones into cells 1..5, own home 6,
 * then cell 7 (seat 1's cup 0): the other row, the turn ends.
 * Seat 1 then plays cup 5 (cell 12): 7 stones into home 13, cells 0..5 of
 * seat 0's row; last in seat 0's row, turn ends. */
static void test_plain_sow(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    new_sungka(&st, 2, 6, 7);
    const int start[] = {7, 7, 7, 7, 7, 7, 0, 7, 7, 7, 7, 7, 7, 0};
    assert_board(&st, start, 14);
    assert_int_equal(game_to_move(&st), 0);

    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int b1[] = {0, 8, 8, 8, 8, 8, 1, 8, 7, 7, 7, 7, 7, 0};
    assert_board(&st, b1, 14);
    const int s1[] = {0, 0, 1, 8, 2, 8, 3, 8, 4, 8, 5, 8, 6, 1, 7, 8};
    assert_steps(&r, s1, 8);
    assert_int_equal(r.next, 1);
    assert_false(r.extra_turn);
    assert_int_equal(r.n_passed, 0);
    assert_int_equal(r.captured, 0);
    assert_false(r.relay_limit_hit);
    assert_int_equal(game_to_move(&st), 1);

    assert_int_equal(game_play(&st, 1, 5, &r, err, sizeof err), GAME_OK);
    const int b2[] = {1, 9, 9, 9, 9, 9, 1, 8, 7, 7, 7, 7, 0, 1};
    assert_board(&st, b2, 14);
    const int s2[] = {12, 0, 13, 1, 0, 1, 1, 9, 2, 9, 3, 9, 4, 9, 5, 9};
    assert_steps(&r, s2, 8);
    assert_int_equal(r.next, 0);
    assert_int_equal(game_to_move(&st), 0);
}

/* 2x7x7: cup 0's 7 stones fill cells 1..6 and the last lands in home 7: extra
 * turn. Seat 0 then plays cup 6 (8 stones): home 7 -> 2, cells 8..14 -> 8,
 * last in seat 1's row. */
static void test_extra_turn(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    new_sungka(&st, 2, 7, 7);
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int b1[] = {0, 8, 8, 8, 8, 8, 8, 1, 7, 7, 7, 7, 7, 7, 7, 0};
    assert_board(&st, b1, 16);
    assert_true(r.extra_turn);
    assert_int_equal(r.next, 0);
    assert_int_equal(game_to_move(&st), 0);
    assert_int_equal(game_check(&st, 1, 0, err, sizeof err), GAME_E_TURN);
    assert_string_equal(err, "it is seat 0's turn");

    assert_int_equal(game_play(&st, 0, 6, &r, err, sizeof err), GAME_OK);
    const int b2[] = {0, 8, 8, 8, 8, 8, 0, 2, 8, 8, 8, 8, 8, 8, 8, 0};
    assert_board(&st, b2, 16);
    assert_false(r.extra_turn);
    assert_int_equal(r.next, 1);
}

/* Relay twice. Seat 0 = [2,0,1,0,3,0] home 5; seat 1 = [1,2,3,4,5,6] home 4.
 * Cup 0 (2 stones): cell 1 0->1, cell 2 1->2 (was not empty: relay).
 * Pick up cell 2 (2): cell 3 0->1, cell 4 3->4 (not empty: relay).
 * Pick up cell 4 (4): cell 5 0->1, home 6 5->6, cell 7 1->2, cell 8 2->3:
 * seat 1's row, the turn ends. */
static const int relay_pos[] = {2, 0, 1, 0, 3, 0, 5, 1, 2, 3, 4, 5, 6, 4};
static const int relay_end[] = {0, 1, 0, 1, 0, 1, 6, 2, 3, 3, 4, 5, 6, 4};

static void test_relay(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    load_sungka(&st, 2, 6, relay_pos, 0);
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    assert_board(&st, relay_end, 14);
    const int steps[] = {0, 0, 1, 1, 2, 2, 2, 0, 3, 1, 4, 4, 4, 0, 5, 1, 6, 6, 7, 2, 8, 3};
    assert_steps(&r, steps, 11);
    assert_int_equal(r.next, 1);
    assert_false(r.extra_turn);
    assert_false(r.relay_limit_hit);
    assert_int_equal(board_total(&st), 36);
}

/* Capture, 2 players. Seat 0 = [0,0,1,0,0,5] home 2; seat 1 = [1,2,3,4,5,6].
 * Cup 2 (1 stone) lands in cell 3, which was empty: capture it and the cup
 * across, seat 1's cup 6-1-3 = 2 (cell 9, 3 stones): home 2+1+3 = 6. */
static void test_capture_two_players(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {0, 0, 1, 0, 0, 5, 2, 1, 2, 3, 4, 5, 6, 0};
    load_sungka(&st, 2, 6, pos, 0);
    assert_int_equal(game_play(&st, 0, 2, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 0, 0, 0, 0, 5, 6, 1, 2, 0, 4, 5, 6, 0};
    assert_board(&st, want, 14);
    const int steps[] = {2, 0, 3, 1, 3, 0, 9, 0, 6, 6};
    assert_steps(&r, steps, 5);
    assert_int_equal(r.captured, 3);
    assert_int_equal(r.next, 1);
}

/* Capture, 3 players: from the NEXT seat. Seat 0 = [2,1,0]; seat 1 = [4,5,6];
 * seat 2 = [7,8,9]; homes 0. Cup 1 (1 stone) lands in cup 2 (cell 2), empty:
 * the opposing cup is seat 1's cup 3-1-2 = 0 (cell 4, 4 stones) -> home 3 = 5.
 * (The previous seat's cup 0 would be cell 8 = 7; seat 1's cup 2 = 6.) */
static void test_capture_three_players_next_seat(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {2, 1, 0, 0, 4, 5, 6, 0, 7, 8, 9, 0};
    load_sungka(&st, 3, 3, pos, 0);
    assert_int_equal(game_play(&st, 0, 1, &r, err, sizeof err), GAME_OK);
    const int want[] = {2, 0, 0, 5, 0, 5, 6, 0, 7, 8, 9, 0};
    assert_board(&st, want, 12);
    const int steps[] = {1, 0, 2, 1, 2, 0, 4, 0, 3, 5};
    assert_steps(&r, steps, 5);
    assert_int_equal(r.captured, 4);
    assert_int_equal(r.next, 1);
}

/* Seat 2's next seat is seat 0 (wrap). Seat 0 = [5,6,7]; seat 1 = [2,3,4];
 * seat 2 = [0,1,0]. Seat 2's cup 1 (cell 9) lands in cup 2 (cell 10), empty:
 * opposing = seat 0's cup 3-1-2 = 0 (cell 0, 5 stones) -> home 11 = 6. */
static void test_capture_three_players_wraps(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {5, 6, 7, 0, 2, 3, 4, 0, 0, 1, 0, 0};
    load_sungka(&st, 3, 3, pos, 2);
    assert_int_equal(game_play(&st, 2, 1, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 6, 7, 0, 2, 3, 4, 0, 0, 0, 0, 6};
    assert_board(&st, want, 12);
    const int steps[] = {9, 0, 10, 1, 10, 0, 0, 0, 11, 6};
    assert_steps(&r, steps, 5);
    assert_int_equal(r.captured, 5);
    assert_int_equal(r.next, 0);
}

/* Capture with an empty opposing cup: seat 0 = [1,0,0,0,0,4]; seat 1's cup
 * 6-1-1 = 4 (cell 11) is empty. Cup 0 lands in empty cell 1: the single stone
 * goes home (home 6 = 1), captured 0, the turn ends. */
static void test_capture_empty_opposite(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {1, 0, 0, 0, 0, 4, 0, 3, 3, 3, 3, 0, 3, 0};
    load_sungka(&st, 2, 6, pos, 0);
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 0, 0, 0, 0, 4, 1, 3, 3, 3, 3, 0, 3, 0};
    assert_board(&st, want, 14);
    const int steps[] = {0, 0, 1, 1, 1, 0, 11, 0, 6, 1};
    assert_steps(&r, steps, 5);
    assert_int_equal(r.captured, 0);
    assert_int_equal(r.next, 1);
}

/* Skipping another home, and sowing the origin cup on a later lap, 2x3:
 * seat 0 = [1,2,9] home 0; seat 1 = [1,1,1] home 5. Cup 2 (9 stones):
 * home 3 0->1, cells 4,5,6 -> 2, (home 7 skipped), cell 0 1->2, cell 1 2->3,
 * cell 2 (origin) 0->1, home 3 1->2, cell 4 2->3: seat 1's row, turn ends. */
static void test_skip_other_home(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {1, 2, 9, 0, 1, 1, 1, 5};
    load_sungka(&st, 2, 3, pos, 0);
    assert_int_equal(game_play(&st, 0, 2, &r, err, sizeof err), GAME_OK);
    const int want[] = {2, 3, 1, 2, 3, 2, 2, 5};
    assert_board(&st, want, 8);
    const int steps[] = {2, 0, 3, 1, 4, 2, 5, 2, 6, 2, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3};
    assert_steps(&r, steps, 10);
    assert_int_equal(r.next, 1);
}

/* Seat 1 of 3 skips both other homes (3 and 11): seat 1's cup 2 (cell 6, 6
 * stones): own home 7 3->4, cells 8,9,10 -> 2, (11 skipped), cells 0,1 -> 2;
 * last in seat 0's row: the turn ends and seat 2 moves. */
static void test_skip_homes_three_players(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {1, 1, 1, 2, 0, 0, 6, 3, 1, 1, 1, 4};
    load_sungka(&st, 3, 3, pos, 1);
    assert_int_equal(game_play(&st, 1, 2, &r, err, sizeof err), GAME_OK);
    const int want[] = {2, 2, 1, 2, 0, 0, 0, 4, 2, 2, 2, 4};
    assert_board(&st, want, 12);
    const int steps[] = {6, 0, 7, 4, 8, 2, 9, 2, 10, 2, 0, 2, 1, 2};
    assert_steps(&r, steps, 7);
    assert_int_equal(r.next, 2);
}

/* Passing, then game end with two winners tied at the top (3 players).
 * Seat 0 = [0,1,0] home 0; seat 1 = [0,0,0] home 3; seat 2 = [1,0,0] home 2.
 * Seat 0's cup 1 lands in empty cup 2: capture with seat 1's cup 0 (empty):
 * home 3 = 1. Seat 1 has no stones: it passes; seat 2 moves.
 * Seat 2's cup 0 lands in empty cup 1 (cell 9): capture with seat 0's cup 1
 * (cell 1, empty): home 11 = 3. Every stone is home: scores 1, 3, 3. */
static void test_pass_and_tied_winners(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {0, 1, 0, 0, 0, 0, 0, 3, 1, 0, 0, 2};
    load_sungka(&st, 3, 3, pos, 0);
    assert_int_equal(game_play(&st, 0, 1, &r, err, sizeof err), GAME_OK);
    const int b1[] = {0, 0, 0, 1, 0, 0, 0, 3, 1, 0, 0, 2};
    assert_board(&st, b1, 12);
    const int s1[] = {1, 0, 2, 1, 2, 0, 4, 0, 3, 1};
    assert_steps(&r, s1, 5);
    assert_int_equal(r.n_passed, 1);
    assert_int_equal(r.passed[0], 1);
    assert_int_equal(r.next, 2);
    assert_int_equal(game_to_move(&st), 2);
    assert_false(game_is_over(&st));
    int w[GAME_MAX_SEATS];
    assert_int_equal(game_winners(&st, w), 0); /* still running */

    assert_int_equal(game_play(&st, 2, 0, &r, err, sizeof err), GAME_OK);
    const int b2[] = {0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 3};
    assert_board(&st, b2, 12);
    const int s2[] = {8, 0, 9, 1, 9, 0, 1, 0, 11, 3};
    assert_steps(&r, s2, 5);
    assert_true(game_is_over(&st));
    assert_int_equal(game_to_move(&st), -1);
    assert_int_equal(r.next, -1);
    assert_int_equal(r.n_passed, 0);

    int sc[GAME_MAX_SEATS];
    game_scores(&st, sc);
    assert_int_equal(sc[0], 1);
    assert_int_equal(sc[1], 3);
    assert_int_equal(sc[2], 3);
    assert_int_equal(game_winners(&st, w), 2);
    assert_int_equal(w[0], 1);
    assert_int_equal(w[1], 2);

    int moves[GAME_MAX_MOVES];
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 0);
    assert_int_equal(game_check(&st, 0, 0, err, sizeof err), GAME_E_OVER);
    assert_string_equal(err, "the game is over");
    game_state copy = st;
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_E_OVER);
    assert_memory_equal(&copy, &st, sizeof st);
}

/* Two seats pass in order and the mover moves again (no extra turn), then an
 * extra turn is earned with nothing left: the game ends in a 3-way draw.
 * Seat 0 = [1,0,1] home 0; seats 1 and 2 empty with homes 2 and 2.
 * Cup 0 lands in empty cup 1: capture with seat 1's cup 1 (empty): home 3 = 1.
 * Seats 1, 2 pass; seat 0 again. Cup 2 lands in home 3 = 2: no stones left
 * anywhere: over, scores 2,2,2: a draw, no winner. */
static void test_passes_in_order_and_draw(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {1, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 2};
    load_sungka(&st, 3, 3, pos, 0);
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int b1[] = {0, 0, 1, 1, 0, 0, 0, 2, 0, 0, 0, 2};
    assert_board(&st, b1, 12);
    const int s1[] = {0, 0, 1, 1, 1, 0, 5, 0, 3, 1};
    assert_steps(&r, s1, 5);
    assert_int_equal(r.n_passed, 2);
    assert_int_equal(r.passed[0], 1);
    assert_int_equal(r.passed[1], 2);
    assert_int_equal(r.next, 0);
    assert_false(r.extra_turn);

    assert_int_equal(game_play(&st, 0, 2, &r, err, sizeof err), GAME_OK);
    const int b2[] = {0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2};
    assert_board(&st, b2, 12);
    assert_true(game_is_over(&st));
    assert_false(r.extra_turn);
    assert_int_equal(r.n_passed, 0);
    assert_int_equal(r.next, -1);
    int w[GAME_MAX_SEATS];
    assert_int_equal(game_winners(&st, w), 0);
}

/* An extra turn earned with an empty row: the mover passes, seat 1 moves.
 * Seat 0 = [0,0,0,0,0,1] home 3; cup 5 lands in home 6 = 4; seat 0's row is
 * empty, seat 1 still has a stone. */
static void test_extra_turn_with_empty_row(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {0, 0, 0, 0, 0, 1, 3, 1, 0, 0, 0, 0, 0, 2};
    load_sungka(&st, 2, 6, pos, 0);
    assert_int_equal(game_play(&st, 0, 5, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0, 0, 0, 2};
    assert_board(&st, want, 14);
    const int steps[] = {5, 0, 6, 4};
    assert_steps(&r, steps, 2);
    assert_false(r.extra_turn);
    assert_int_equal(r.n_passed, 1);
    assert_int_equal(r.passed[0], 0);
    assert_int_equal(r.next, 1);
    assert_int_equal(game_to_move(&st), 1);
    assert_false(game_is_over(&st));
}

/* Two players ending level: no winner. Ending 12 to 11: one winner. */
static void test_two_player_draw_and_win(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    int w[GAME_MAX_SEATS];
    const int draw[] = {0, 0, 0, 0, 0, 1, 10, 0, 0, 0, 0, 0, 0, 11};
    load_sungka(&st, 2, 6, draw, 0);
    assert_int_equal(game_play(&st, 0, 5, &r, err, sizeof err), GAME_OK);
    assert_true(game_is_over(&st));
    assert_int_equal(game_cell(&st, 6), 11);
    assert_int_equal(game_winners(&st, w), 0);

    const int win[] = {0, 0, 0, 0, 0, 1, 11, 0, 0, 0, 0, 0, 0, 11};
    load_sungka(&st, 2, 6, win, 0);
    assert_int_equal(game_play(&st, 0, 5, &r, err, sizeof err), GAME_OK);
    assert_true(game_is_over(&st));
    assert_int_equal(game_winners(&st, w), 1);
    assert_int_equal(w[0], 0);
}

/* The relay guard with small limits on the relay position above: the relay
 * starts only while no more than `limit` stones were sown this turn.
 * limit 1: 2 sown after the first sowing > 1: stop with cell 2 = 2.
 * limit 2: the first relay starts (2 <= 2), 4 sown > 2: stop with cell 4 = 4.
 * limit 4: both relays start: the normal result, 8 stones sown. */
static void test_relay_guard_small_limits(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    load_sungka(&st, 2, 6, relay_pos, 0);
    assert_int_equal(game__sungka_apply(&st, 0, &r, 1), 2);
    const int b1[] = {0, 1, 2, 0, 3, 0, 5, 1, 2, 3, 4, 5, 6, 4};
    assert_board(&st, b1, 14);
    assert_true(r.relay_limit_hit);
    assert_int_equal(r.next, 1);
    assert_int_equal(game_to_move(&st), 1);

    load_sungka(&st, 2, 6, relay_pos, 0);
    assert_int_equal(game__sungka_apply(&st, 0, &r, 2), 4);
    const int b2[] = {0, 1, 0, 1, 4, 0, 5, 1, 2, 3, 4, 5, 6, 4};
    assert_board(&st, b2, 14);
    assert_true(r.relay_limit_hit);
    assert_int_equal(r.next, 1);

    load_sungka(&st, 2, 6, relay_pos, 0);
    assert_int_equal(game__sungka_apply(&st, 0, &r, 4), 8);
    assert_board(&st, relay_end, 14);
    assert_false(r.relay_limit_hit);
}

/* A big loaded position (2 players, 3 cups, 31,602 stones; found by a
 * search) whose first move relays through 49,873 sown stones: the real limit
 * (100,000) leaves it alone, a limit of 40,000 stops it at the first relay
 * after 40,000, and both keep every stone. The real limit cannot be reached
 * in sungka at all: every lap of a relay passes the mover's home, which keeps
 * a stone, and loads are capped at 32,767 stones; searches of random
 * positions found at most about 1.6 sown stones per stone on the board. */
static const int big_pos[] = {15905, 15585, 39, 44, 3, 16, 3, 7};

static void test_relay_guard_big_position(void **state)
{
    (void)state;
    game_state st, limited, via_internal;
    game_result r;
    char err[GAME_ERR_LEN];
    load_sungka(&st, 2, 3, big_pos, 0);
    limited = via_internal = st;
    int total = board_total(&st);
    assert_int_equal(total, 31602);

    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    assert_false(r.relay_limit_hit);
    assert_true(r.truncated);
    assert_int_equal(r.n_steps, GAME_MAX_STEPS);
    assert_int_equal(board_total(&st), total);

    assert_int_equal(game__sungka_apply(&via_internal, 0, NULL, GAME_RELAY_LIMIT), 49873);
    assert_memory_equal(&via_internal, &st, sizeof st);

    long sown = game__sungka_apply(&limited, 0, &r, 40000);
    assert_true(r.relay_limit_hit);
    assert_true(sown > 40000 && sown < 49873);
    assert_int_equal(board_total(&limited), total);
    assert_int_equal(r.next, 1);
    assert_int_equal(game_to_move(&limited), 1);
    assert_memory_not_equal(&limited.cells, &st.cells, sizeof st.cells);
}

/* Errors: each one has its code and sentence, and changes nothing. */
static void test_errors(void **state)
{
    (void)state;
    game_state st, copy;
    game_result r;
    char err[GAME_ERR_LEN];
    new_sungka(&st, 2, 6, 7);
    copy = st;

    assert_int_equal(game_play(&st, 0, 9, &r, err, sizeof err), GAME_E_RANGE);
    assert_string_equal(err, "cup 9 is out of range 0..5");
    assert_int_equal(game_play(&st, 0, -1, &r, err, sizeof err), GAME_E_RANGE);
    assert_string_equal(err, "cup -1 is out of range 0..5");
    assert_int_equal(game_play(&st, 0, 6, &r, err, sizeof err), GAME_E_HOME);
    assert_string_equal(err, "the home cannot be played; choose a cup 0..5");
    assert_int_equal(game_play(&st, 1, 0, &r, err, sizeof err), GAME_E_TURN);
    assert_string_equal(err, "it is seat 0's turn");
    assert_int_equal(game_play(&st, 7, 0, &r, err, sizeof err), GAME_E_TURN);
    assert_int_equal(game_play(&st, -1, 0, &r, err, sizeof err), GAME_E_TURN);
    assert_memory_equal(&copy, &st, sizeof st);

    /* err may be NULL. */
    assert_int_equal(game_check(&st, 0, 9, NULL, 0), GAME_E_RANGE);

    const int pos[] = {1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0};
    load_sungka(&st, 2, 6, pos, 0);
    copy = st;
    assert_int_equal(game_play(&st, 0, 3, &r, err, sizeof err), GAME_E_EMPTY);
    assert_string_equal(err, "cup 3 is empty");
    assert_memory_equal(&copy, &st, sizeof st);
    /* Unchecked calls through the table do nothing instead of looping. */
    st.kind->apply(&st, 3, &r);
    st.kind->apply(&st, 6, NULL);
    st.kind->apply(&st, -5, NULL);
    assert_memory_equal(&copy, &st, sizeof st);

    /* After seat 0 moves it is seat 1's turn. */
    new_sungka(&st, 2, 6, 7);
    assert_int_equal(game_play(&st, 0, 0, NULL, err, sizeof err), GAME_OK);
    assert_int_equal(game_check(&st, 0, 1, err, sizeof err), GAME_E_TURN);
    assert_string_equal(err, "it is seat 1's turn");

    /* Cup numbers follow the cups option. */
    new_sungka(&st, 4, 12, 1);
    assert_int_equal(game_check(&st, 0, 12, err, sizeof err), GAME_E_HOME);
    assert_string_equal(err, "the home cannot be played; choose a cup 0..11");
    assert_int_equal(game_check(&st, 0, 13, err, sizeof err), GAME_E_RANGE);
    assert_string_equal(err, "cup 13 is out of range 0..11");
    assert_int_equal(game_check(&st, 0, 11, err, sizeof err), GAME_OK);
}

static void test_legal_moves(void **state)
{
    (void)state;
    game_state st;
    int moves[GAME_MAX_MOVES];
    load_sungka(&st, 2, 6, relay_pos, 0);
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 3);
    assert_int_equal(moves[0], 0);
    assert_int_equal(moves[1], 2);
    assert_int_equal(moves[2], 4);
    assert_int_equal(game_legal_moves(&st, moves, 2), 2);
    assert_int_equal(game_legal_moves(&st, moves, 0), 0);
    load_sungka(&st, 2, 6, relay_pos, 1);
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(moves[i], i);
}

/* More than GAME_MAX_STEPS drops: steps stop at the limit, the board is whole.
 * 2x3: cup 0 holds 2000, everything else empty. Each lap of seat 0 visits
 * 7 cells (home 7 skipped): 2000 = 285*7 + 5, so cells 1,2,home 3,4,5 get
 * 286 and cells 6,0 get 285; the last stone lands in cell 5 (seat 1). */
static void test_steps_truncated(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {2000, 0, 0, 0, 0, 0, 0, 0};
    load_sungka(&st, 2, 3, pos, 0);
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int want[] = {285, 286, 286, 286, 286, 286, 285, 0};
    assert_board(&st, want, 8);
    assert_true(r.truncated);
    assert_int_equal(r.n_steps, GAME_MAX_STEPS);
    assert_int_equal(r.next, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_sow),
        cmocka_unit_test(test_extra_turn),
        cmocka_unit_test(test_relay),
        cmocka_unit_test(test_capture_two_players),
        cmocka_unit_test(test_capture_three_players_next_seat),
        cmocka_unit_test(test_capture_three_players_wraps),
        cmocka_unit_test(test_capture_empty_opposite),
        cmocka_unit_test(test_skip_other_home),
        cmocka_unit_test(test_skip_homes_three_players),
        cmocka_unit_test(test_pass_and_tied_winners),
        cmocka_unit_test(test_passes_in_order_and_draw),
        cmocka_unit_test(test_extra_turn_with_empty_row),
        cmocka_unit_test(test_two_player_draw_and_win),
        cmocka_unit_test(test_relay_guard_small_limits),
        cmocka_unit_test(test_relay_guard_big_position),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_legal_moves),
        cmocka_unit_test(test_steps_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
