/*
 * test_congklak.c — hand-worked congklak positions (docs/rules.md §2), every cell
 * and step worked out in the comments and asserted; the error contract of
 * the seed; the options; the relay guard with small limits and with a big
 * loaded position; and random games (seeded) checking after every move that
 * pebbles are conserved, the steps replay to the new board, and the turn and
 * end rules hold.
 * Layouts used below:
 *   2x7 (default): seat 0 pits = cells 0..6, store 7; seat 1 pits 8..14, store 15.
 *   2x4: seat 0 pits 0..3, store 4; seat 1 pits 5..8, store 9. The opposite
 *        of seat 0's pit i (cell i) is seat 1's pit 3-i (cell 8-i).
 *   2x3: seat 0 pits 0..2, store 3; seat 1 pits 4..6, store 7.
 */
#include "games_test.h"

#include <string.h>

static const game_kind *congklak(void)
{
    const game_kind *k = game_kind_find("congklak");
    assert_non_null(k);
    return k;
}

static void new_congklak(game_state *st, int cups, int stones, int first)
{
    game_options o;
    char err[GAME_ERR_LEN] = "";
    game_options_default(congklak(), &o);
    assert_int_equal(game_options_set(congklak(), &o, "cups", cups, err, sizeof err), GAME_OK);
    assert_int_equal(game_options_set(congklak(), &o, "stones", stones, err, sizeof err), GAME_OK);
    assert_int_equal(game_options_set(congklak(), &o, "first", first, err, sizeof err), GAME_OK);
    assert_int_equal(game_new(st, congklak(), &o, err, sizeof err), GAME_OK);
}

static void load_congklak(game_state *st, int cups, const int *cells, int to_move)
{
    new_congklak(st, cups, 1, 0);
    assert_int_equal(game_load(st, cells, 2 * (cups + 1), to_move, false), GAME_OK);
}

/* Default 2x7x7, seat 0 plays pit 0: 7 pebbles into cells 1..6 and the store
 * (7): the last one is home, seat 0 moves again. */
static void test_opening_extra_turn(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    assert_int_equal(game_new(&st, congklak(), NULL, err, sizeof err), GAME_OK);
    const int start[] = {7, 7, 7, 7, 7, 7, 7, 0, 7, 7, 7, 7, 7, 7, 7, 0};
    assert_board(&st, start, 16);
    assert_int_equal(game_seats(&st), 2);
    assert_int_equal(game_to_move(&st), 0); /* first = -1: the engine starts with seat 0 */

    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int b1[] = {0, 8, 8, 8, 8, 8, 8, 1, 7, 7, 7, 7, 7, 7, 7, 0};
    assert_board(&st, b1, 16);
    const int s1[] = {0, 0, 1, 8, 2, 8, 3, 8, 4, 8, 5, 8, 6, 8, 7, 1};
    assert_steps(&r, s1, 8);
    assert_true(r.extra_turn);
    assert_int_equal(r.next, 0);
    assert_int_equal(r.n_passed, 0);
    assert_int_equal(game_to_move(&st), 0);
    assert_int_equal(game_check(&st, 1, 0, err, sizeof err), GAME_E_TURN);
    assert_string_equal(err, "it is seat 0's turn");
}

/* Relay on the own side, then the last pebble in the opponent's empty pit.
 * 2x4: seat 0 = [2,0,2,0] store 0; seat 1 = [0,1,1,1] store 0.
 * Pit 0 (2): cell 1 0->1, cell 2 2->3 (not empty: relay).
 * Pick up cell 2 (3): cell 3 0->1, store 4 0->1, cell 5 0->1: the opponent's
 * pit, empty before the drop: the turn ends. */
static const int relay_pos[] = {2, 0, 2, 0, 0, 0, 1, 1, 1, 0};

static void test_relay_own_side_then_opponent_empty(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    load_congklak(&st, 4, relay_pos, 0);
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 1, 0, 1, 1, 1, 1, 1, 1, 0};
    assert_board(&st, want, 10);
    const int steps[] = {0, 0, 1, 1, 2, 3, 2, 0, 3, 1, 4, 1, 5, 1};
    assert_steps(&r, steps, 7);
    assert_false(r.extra_turn);
    assert_int_equal(r.captured, 0);
    assert_false(r.relay_limit_hit);
    assert_int_equal(r.next, 1);
    assert_int_equal(game_to_move(&st), 1);
    assert_false(game_is_over(&st));
}

/* The last pebble in the opponent's empty pit straight away: the turn ends.
 * 2x4: seat 0 = [0,0,1,2]; seat 1 = [0,4,4,4]. Pit 3 (2): store 4 0->1,
 * cell 5 0->1. */
static void test_opponent_empty_pit_ends_turn(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {0, 0, 1, 2, 0, 0, 4, 4, 4, 0};
    load_congklak(&st, 4, pos, 0);
    assert_int_equal(game_play(&st, 0, 3, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 0, 1, 0, 1, 1, 4, 4, 4, 0};
    assert_board(&st, want, 10);
    const int steps[] = {3, 0, 4, 1, 5, 1};
    assert_steps(&r, steps, 3);
    assert_false(r.extra_turn);
    assert_int_equal(r.next, 1);
}

/* Relay from the opponent's side, skipping the opponent's store, then a
 * capture with a non-empty opposite pit.
 * 2x4: seat 0 = [0,1,0,2] store 0; seat 1 = [3,0,0,1] store 5.
 * Pit 3 (2): store 4 0->1, cell 5 3->4 (the opponent's pit, not empty: relay).
 * Pick up cell 5 (4): cell 6 0->1, cell 7 0->1, cell 8 1->2, (store 9
 * skipped), cell 0 0->1: own pit, empty before: capture it with the opposite
 * pit, cell 8-0 = 8 (2 pebbles): store 4 = 1+1+2 = 4. */
static const int opp_relay_pos[] = {0, 1, 0, 2, 0, 3, 0, 0, 1, 5};
static const int opp_relay_end[] = {0, 1, 0, 0, 4, 0, 1, 1, 0, 5};

static void test_relay_opponent_side_and_capture(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    load_congklak(&st, 4, opp_relay_pos, 0);
    assert_int_equal(game_play(&st, 0, 3, &r, err, sizeof err), GAME_OK);
    assert_board(&st, opp_relay_end, 10);
    const int steps[] = {3, 0, 4, 1, 5, 4, 5, 0, 6, 1, 7, 1, 8, 2, 0, 1, 0, 0, 8, 0, 4, 4};
    assert_steps(&r, steps, 11);
    assert_int_equal(r.captured, 2);
    assert_false(r.extra_turn);
    assert_false(r.relay_limit_hit);
    assert_int_equal(r.next, 1);
    assert_int_equal(board_total(&st), 12);
}

/* Capture with an empty opposite pit: only the pebble goes to the store.
 * 2x4: seat 0 = [1,0,0,3] store 2; seat 1 = [1,1,0,1] store 0. Pit 0 (1):
 * cell 1 0->1, own and empty; the opposite cell 8-1 = 7 is empty: store 4 =
 * 2+1 = 3, captured 0. */
static void test_capture_empty_opposite(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {1, 0, 0, 3, 2, 1, 1, 0, 1, 0};
    load_congklak(&st, 4, pos, 0);
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 0, 0, 3, 3, 1, 1, 0, 1, 0};
    assert_board(&st, want, 10);
    const int steps[] = {0, 0, 1, 1, 1, 0, 7, 0, 4, 3};
    assert_steps(&r, steps, 5);
    assert_int_equal(r.captured, 0);
    assert_int_equal(r.next, 1);
}

/* Seat 1 moving: its store is 9, seat 0's store 4 is skipped, and the
 * opposite of seat 1's pit j (cell 5+j) is seat 0's pit 3-j (cell 3-j).
 * 2x4: seat 0 = [2,1,1,1] store 0; seat 1 = [0,0,0,3] store 0.
 * Pit 3 (cell 8, 3): store 9 0->1, cell 0 2->3, cell 1 1->2 (relay: pick up
 * 2), cell 2 1->2, cell 3 1->2 (relay: pick up 2), (store 4 skipped), cell 5
 * 0->1, cell 6 0->1: seat 1's own empty pit j = 1: capture with cell 3-1 = 2
 * (2 pebbles): store 9 = 1+1+2 = 4. */
static void test_seat_one_skips_store_and_captures(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {2, 1, 1, 1, 0, 0, 0, 0, 3, 0};
    load_congklak(&st, 4, pos, 1);
    assert_int_equal(game_play(&st, 1, 3, &r, err, sizeof err), GAME_OK);
    const int want[] = {3, 0, 0, 0, 0, 1, 0, 0, 0, 4};
    assert_board(&st, want, 10);
    const int steps[] = {8, 0, 9, 1, 0, 3, 1, 2, 1, 0, 2, 2, 3, 2,
                         3, 0, 5, 1, 6, 1, 6, 0, 2, 0, 9, 4};
    assert_steps(&r, steps, 13);
    assert_int_equal(r.captured, 2);
    assert_int_equal(r.next, 0);
    assert_int_equal(board_total(&st), 8);
}

/* The mover's row empties with the last pebble in the store: the extra turn
 * is void, the game ends, and seat 1's pebbles go to seat 1's store.
 * 2x4: seat 0 = [0,0,0,1] store 5; seat 1 = [2,0,3,1] store 4.
 * Pit 3: store 4 5->6. Sweep: cells 5, 7, 8 -> 0, store 9 = 4+6 = 10. */
static void test_end_sweep_mover_empty(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {0, 0, 0, 1, 5, 2, 0, 3, 1, 4};
    load_congklak(&st, 4, pos, 0);
    assert_int_equal(game_play(&st, 0, 3, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 0, 0, 0, 6, 0, 0, 0, 0, 10};
    assert_board(&st, want, 10);
    const int steps[] = {3, 0, 4, 6, 5, 0, 7, 0, 8, 0, 9, 10};
    assert_steps(&r, steps, 6);
    assert_true(game_is_over(&st));
    assert_false(r.extra_turn);
    assert_int_equal(r.next, -1);
    assert_int_equal(r.n_passed, 0);
    assert_int_equal(game_to_move(&st), -1);
    int sc[GAME_MAX_SEATS], w[GAME_MAX_SEATS];
    game_scores(&st, sc);
    assert_int_equal(sc[0], 6);
    assert_int_equal(sc[1], 10);
    assert_int_equal(game_winners(&st, w), 1);
    assert_int_equal(w[0], 1);
    int moves[GAME_MAX_MOVES];
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 0);
    assert_int_equal(game_check(&st, 0, 0, err, sizeof err), GAME_E_OVER);
    assert_string_equal(err, "the game is over");
}

/* A capture empties the opponent's row: the game ends at once and the
 * mover's own remaining pebbles go to the mover's store.
 * 2x4: seat 0 = [1,0,2,0] store 0; seat 1 = [0,0,3,0] store 1.
 * Pit 0: cell 1 0->1, own empty: capture with cell 7 (3): store 4 = 4. Seat
 * 1's row is empty: sweep cell 2 (2) -> store 4 = 6. 6 to 1: seat 0 wins. */
static void test_end_sweep_opponent_empty(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {1, 0, 2, 0, 0, 0, 0, 3, 0, 1};
    load_congklak(&st, 4, pos, 0);
    assert_int_equal(game_play(&st, 0, 0, &r, err, sizeof err), GAME_OK);
    const int want[] = {0, 0, 0, 0, 6, 0, 0, 0, 0, 1};
    assert_board(&st, want, 10);
    const int steps[] = {0, 0, 1, 1, 1, 0, 7, 0, 4, 4, 2, 0, 4, 6};
    assert_steps(&r, steps, 7);
    assert_int_equal(r.captured, 3);
    assert_true(game_is_over(&st));
    assert_int_equal(r.next, -1);
    int w[GAME_MAX_SEATS];
    assert_int_equal(game_winners(&st, w), 1);
    assert_int_equal(w[0], 0);
}

/* Equal stores at the end: a draw, no winner.
 * 2x4: seat 0 = [0,0,0,1] store 4; seat 1 = [1,0,0,0] store 4. Pit 3: store
 * 4 -> 5; seat 0's row is empty: cell 5 -> store 9 = 5. */
static void test_end_draw(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    char err[GAME_ERR_LEN];
    const int pos[] = {0, 0, 0, 1, 4, 1, 0, 0, 0, 4};
    load_congklak(&st, 4, pos, 0);
    assert_int_equal(game_play(&st, 0, 3, &r, err, sizeof err), GAME_OK);
    assert_true(game_is_over(&st));
    const int want[] = {0, 0, 0, 0, 5, 0, 0, 0, 0, 5};
    assert_board(&st, want, 10);
    int w[GAME_MAX_SEATS];
    assert_int_equal(game_winners(&st, w), 0);
}

/* The relay guard with small limits: a relay starts only while no more than
 * `limit` pebbles were sown this turn.
 * relay_pos: 2 sown, then a relay of 3 (5 in all). limit 1: 2 > 1, the relay
 * does not start: cell 2 keeps its 3 pebbles, the turn ends. limit 2: the
 * relay starts (2 <= 2): the normal result.
 * opp_relay_pos: 2 sown, then a relay from the opponent's cell 5. limit 1
 * stops it there: cell 5 keeps 4. */
static void test_relay_guard_small_limits(void **state)
{
    (void)state;
    game_state st;
    game_result r;
    load_congklak(&st, 4, relay_pos, 0);
    assert_int_equal(game__congklak_apply(&st, 0, &r, 1), 2);
    const int b1[] = {0, 1, 3, 0, 0, 0, 1, 1, 1, 0};
    assert_board(&st, b1, 10);
    const int s1[] = {0, 0, 1, 1, 2, 3};
    assert_steps(&r, s1, 3);
    assert_true(r.relay_limit_hit);
    assert_false(r.extra_turn);
    assert_int_equal(r.next, 1);
    assert_int_equal(game_to_move(&st), 1);

    load_congklak(&st, 4, relay_pos, 0);
    assert_int_equal(game__congklak_apply(&st, 0, &r, 2), 5);
    const int b2[] = {0, 1, 0, 1, 1, 1, 1, 1, 1, 0};
    assert_board(&st, b2, 10);
    assert_false(r.relay_limit_hit);

    load_congklak(&st, 4, opp_relay_pos, 0);
    assert_int_equal(game__congklak_apply(&st, 3, &r, 1), 2);
    const int b3[] = {0, 1, 0, 0, 1, 4, 0, 0, 1, 5};
    assert_board(&st, b3, 10);
    assert_true(r.relay_limit_hit);
    assert_int_equal(r.captured, 0);
    assert_int_equal(r.next, 1);

    load_congklak(&st, 4, opp_relay_pos, 0);
    assert_int_equal(game__congklak_apply(&st, 3, &r, 2), 6);
    assert_board(&st, opp_relay_end, 10);
    assert_false(r.relay_limit_hit);
}

/* A big loaded position (2x3, 32,767 pebbles; found by a search of random
 * positions) whose pit 0 relays around the board for 202,583 pebbles, more
 * than GAME_RELAY_LIMIT: the real guard stops it through the kind's own
 * apply (game_play), just after 100,000 pebbles sown, and no pebble is lost.
 * A larger limit lets the turn run to its natural end. */
static const int big_pos[] = {6, 1105, 31179, 91, 304, 1, 41, 40};
enum { BIG_MOVE = 0 };

static void test_relay_guard_real_limit(void **state)
{
    (void)state;
    game_state st, unlimited;
    game_result r;
    char err[GAME_ERR_LEN];
    load_congklak(&st, 3, big_pos, 0);
    unlimited = st;
    int total = board_total(&st);

    game_state via_internal = st;
    long sown = game__congklak_apply(&via_internal, BIG_MOVE, NULL, GAME_RELAY_LIMIT);
    assert_true(sown > GAME_RELAY_LIMIT);
    assert_true(sown <= GAME_RELAY_LIMIT + total);

    assert_int_equal(game_play(&st, 0, BIG_MOVE, &r, err, sizeof err), GAME_OK);
    assert_true(r.relay_limit_hit);
    assert_true(r.truncated);
    assert_int_equal(board_total(&st), total);
    assert_memory_equal(&via_internal, &st, sizeof st);

    long natural = game__congklak_apply(&unlimited, BIG_MOVE, &r, 10L * 1000 * 1000);
    assert_false(r.relay_limit_hit);
    assert_int_equal(natural, 202583);
    assert_int_equal(board_total(&unlimited), total);
}

/* Errors: the seed's contract, each with its code and sentence; nothing
 * changes. */
static void test_errors(void **state)
{
    (void)state;
    game_state st, copy;
    game_result r;
    char err[GAME_ERR_LEN];
    assert_int_equal(game_new(&st, congklak(), NULL, err, sizeof err), GAME_OK);
    copy = st;
    assert_int_equal(game_play(&st, 0, 9, &r, err, sizeof err), GAME_E_RANGE);
    assert_string_equal(err, "pit 9 is out of range 0..6");
    assert_int_equal(game_play(&st, 0, 8, &r, err, sizeof err), GAME_E_RANGE);
    assert_string_equal(err, "pit 8 is out of range 0..6");
    assert_int_equal(game_play(&st, 0, -1, &r, err, sizeof err), GAME_E_RANGE);
    assert_string_equal(err, "pit -1 is out of range 0..6");
    assert_int_equal(game_play(&st, 0, 7, &r, err, sizeof err), GAME_E_HOME);
    assert_string_equal(err, "the home pot cannot be played; choose a pit 0..6");
    assert_int_equal(game_play(&st, 1, 0, &r, err, sizeof err), GAME_E_TURN);
    assert_string_equal(err, "it is seat 0's turn");
    assert_int_equal(game_play(&st, 2, 0, &r, err, sizeof err), GAME_E_TURN);
    assert_memory_equal(&copy, &st, sizeof st);
    assert_int_equal(game_check(&st, 0, 9, NULL, 0), GAME_E_RANGE);

    load_congklak(&st, 4, relay_pos, 0);
    copy = st;
    assert_int_equal(game_play(&st, 0, 3, &r, err, sizeof err), GAME_E_EMPTY);
    assert_string_equal(err, "pit 3 is empty");
    assert_int_equal(game_play(&st, 0, 1, &r, err, sizeof err), GAME_E_EMPTY);
    assert_string_equal(err, "pit 1 is empty");
    assert_int_equal(game_check(&st, 0, 4, err, sizeof err), GAME_E_HOME);
    assert_string_equal(err, "the home pot cannot be played; choose a pit 0..3");
    assert_int_equal(game_check(&st, 0, 5, err, sizeof err), GAME_E_RANGE);
    assert_string_equal(err, "pit 5 is out of range 0..3");
    assert_memory_equal(&copy, &st, sizeof st);
    /* Unchecked calls through the table do nothing instead of looping. */
    st.kind->apply(&st, 3, &r);
    st.kind->apply(&st, 4, NULL);
    st.kind->apply(&st, -5, NULL);
    assert_memory_equal(&copy, &st, sizeof st);

    /* After seat 0's turn ends it is seat 1's. */
    assert_int_equal(game_play(&st, 0, 0, NULL, err, sizeof err), GAME_OK);
    assert_int_equal(game_check(&st, 0, 1, err, sizeof err), GAME_E_TURN);
    assert_string_equal(err, "it is seat 1's turn");
}

/* The first option: 0 and 1 fix the first seat, -1 (the board service's
 * "at random", resolved before the game is created) starts with seat 0. */
static void test_first_option(void **state)
{
    (void)state;
    game_state st;
    new_congklak(&st, 7, 7, 1);
    assert_int_equal(game_to_move(&st), 1);
    int moves[GAME_MAX_MOVES];
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 7);
    new_congklak(&st, 7, 7, 0);
    assert_int_equal(game_to_move(&st), 0);
    new_congklak(&st, 7, 7, -1);
    assert_int_equal(game_to_move(&st), 0);
    new_congklak(&st, 12, 20, 0);
    assert_int_equal(game_cell_count(&st), 26);
    assert_int_equal(board_total(&st), 480);
    assert_int_equal(game_mancala_home(&st, 1), 25);
}

static void test_options(void **state)
{
    (void)state;
    const game_kind *k = congklak();
    game_options o;
    char err[GAME_ERR_LEN];
    game_options_default(k, &o);
    assert_int_equal(o.n, 4);
    assert_int_equal(game_option(k, &o, "cups", 0), 7);
    assert_int_equal(game_option(k, &o, "stones", 0), 7);
    assert_int_equal(game_option(k, &o, "first", 0), -1);
    assert_int_equal(k->layout, GAME_LAYOUT_MANCALA);
    static const option_bounds cases[] = {
        {"cups", 3, 12, "cups must be 3..12, not 2", "cups must be 3..12, not 13"},
        {"stones", 1, 20, "stones must be 1..20, not 0", "stones must be 1..20, not 21"},
        {"first", -1, 1, "first must be -1..1, not -2", "first must be -1..1, not 2"},
        {"swap", 0, 1, "swap must be 0..1, not -1", "swap must be 0..1, not 2"},
    };
    assert_option_bounds(k, cases, sizeof cases / sizeof cases[0]);
    game_options_default(k, &o);
    assert_int_equal(game_options_parse(k, &o, "players=3", err, sizeof err), GAME_E_OPTION);
    assert_string_equal(err, "congklak has no option 'players' (options: cups, stones, first, swap)");
    /* game_new validates values it did not set itself. */
    game_state st;
    o.value[2] = 5;
    assert_int_equal(game_new(&st, k, &o, err, sizeof err), GAME_E_OPTION);
    assert_string_equal(err, "first must be -1..1, not 5");
}

/* --- random games --- */

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint32_t next_rand(void)
{
    return test_rand(&rng);
}

/* Every game in normal play so far ends well within this many moves (the
 * longest seen in these tests is printed); a game that does not is a bug in
 * the turn or end rules. */
#define MAX_GAME_MOVES 2000

static long truncated_moves; /* moves whose steps passed GAME_MAX_STEPS */

static int play_random_game(int cups, int stones, int first)
{
    game_state st, before;
    game_result r;
    char err[GAME_ERR_LEN];
    int moves[GAME_MAX_MOVES];
    new_congklak(&st, cups, stones, first);
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

        /* Conservation, and the steps replayed on the old board (a long
         * relay on a big board can pass GAME_MAX_STEPS: then the steps stop
         * at the limit and only the board counts). */
        assert_int_equal(board_total(&st), total);
        int cells[GAME_MAX_CELLS];
        for (int i = 0; i < game_cell_count(&st); i++)
            cells[i] = game_cell(&before, i);
        for (int i = 0; i < r.n_steps; i++)
            cells[r.steps[i].cell] = r.steps[i].value;
        if (r.truncated) {
            assert_int_equal(r.n_steps, GAME_MAX_STEPS);
            truncated_moves++;
        }
        for (int i = 0; i < game_cell_count(&st); i++) {
            assert_true(game_cell(&st, i) >= 0);
            if (!r.truncated && cells[i] != game_cell(&st, i))
                fail_msg("steps give cell %d = %d, board has %d", i, cells[i], game_cell(&st, i));
        }
        /* Stores never shrink; turn flow. */
        for (int s = 0; s < 2; s++)
            assert_true(game_cell(&st, game_mancala_home(&st, s)) >=
                        game_cell(&before, game_mancala_home(&before, s)));
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
    for (int g = 0; g < 1500; g++) {
        int cups = 3 + (int)(next_rand() % 10);
        int stones = 1 + (int)(next_rand() % 20);
        int first = (int)(next_rand() % 3) - 1;
        int n = play_random_game(cups, stones, first);
        moves += n;
        if (n > longest)
            longest = n;
    }
    for (int g = 0; g < 30; g++) {
        moves += play_random_game(12, 20, 0);
        moves += play_random_game(3, 1, 1);
    }
    print_message("1560 games, %ld moves, longest %d, %ld with truncated steps\n", moves,
                  longest, truncated_moves);
    /* Truncation is rare: most moves must replay step by step. */
    assert_true(truncated_moves * 100 < moves);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opening_extra_turn),
        cmocka_unit_test(test_relay_own_side_then_opponent_empty),
        cmocka_unit_test(test_opponent_empty_pit_ends_turn),
        cmocka_unit_test(test_relay_opponent_side_and_capture),
        cmocka_unit_test(test_capture_empty_opposite),
        cmocka_unit_test(test_seat_one_skips_store_and_captures),
        cmocka_unit_test(test_end_sweep_mover_empty),
        cmocka_unit_test(test_end_sweep_opponent_empty),
        cmocka_unit_test(test_end_draw),
        cmocka_unit_test(test_relay_guard_small_limits),
        cmocka_unit_test(test_relay_guard_real_limit),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_first_option),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
