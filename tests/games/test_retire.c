/*
 * test_retire.c — seats leaving a running game (resigning, a clock run
 * out): with two seats the other wins at once; with more the others play
 * on, the seat's turns are skipped, its stones or marks stay, and those left
 * beat it whatever the scores (docs/rules.md, "Leaving a game").
 */
#include "games_test.h"

#include <string.h>

static void new_game(game_state *st, const char *kind, const char *option)
{
    const game_kind *k = game_kind_find(kind);
    assert_non_null(k);
    game_options opts;
    game_options_default(k, &opts);
    if (option)
        assert_int_equal(game_options_parse(k, &opts, option, NULL, 0), GAME_OK);
    assert_int_equal(game_new(st, k, &opts, NULL, 0), GAME_OK);
}

static void play_first_legal(game_state *st)
{
    int moves[GAME_MAX_MOVES];
    assert_true(game_legal_moves(st, moves, GAME_MAX_MOVES) > 0);
    assert_int_equal(game_play(st, game_to_move(st), moves[0], NULL, NULL, 0), GAME_OK);
}

/* Two seats, every kind: the one left wins at once, even when behind. */
static void test_two_seats_other_wins(void **state)
{
    (void)state;
    for (int i = 0; i < game_kind_count(); i++) {
        game_state st;
        assert_int_equal(game_new(&st, game_kind_at(i), NULL, NULL, 0), GAME_OK);
        if (game_seats(&st) != 2)
            continue;
        play_first_legal(&st);
        int leaver = game_to_move(&st);
        game_result res;
        assert_int_equal(game_retire(&st, leaver, &res), GAME_OK);
        assert_true(game_is_over(&st));
        assert_int_equal(game_to_move(&st), -1);
        assert_int_equal(res.next, -1);
        int winners[GAME_MAX_SEATS];
        assert_int_equal(game_winners(&st, winners), 1);
        assert_int_equal(winners[0], 1 - leaver);
        /* Over: nobody else can leave, and nobody can move. */
        assert_int_equal(game_retire(&st, 1 - leaver, NULL), GAME_E_OVER);
        int moves[GAME_MAX_MOVES];
        assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 0);
    }
}

/* Three-seat sungka: seat 1 resigns while seat 0 is to move; its turns
 * are skipped from then on, its cups keep their stones (others sow into
 * them as before), and it cannot move. */
static void test_three_seats_play_on(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "sungka", "players=3");
    assert_int_equal(game_to_move(&st), 0);
    int before[GAME_MAX_CELLS];
    for (int c = 0; c < game_cell_count(&st); c++)
        before[c] = game_cell(&st, c);
    game_result res;
    assert_int_equal(game_retire(&st, 1, &res), GAME_OK);
    assert_false(game_is_over(&st));
    assert_true(game_is_out(&st, 1));
    assert_int_equal(game_to_move(&st), 0);            /* not its turn: nothing passes */
    for (int c = 0; c < game_cell_count(&st); c++)
        assert_int_equal(game_cell(&st, c), before[c]);
    assert_int_equal(game_retire(&st, 1, NULL), GAME_E_RANGE);   /* already out */
    assert_int_equal(game_retire(&st, 3, NULL), GAME_E_RANGE);
    for (int ply = 0; ply < 40 && !game_is_over(&st); ply++) {
        assert_int_not_equal(game_to_move(&st), 1);
        char err[GAME_ERR_LEN];
        assert_int_equal(game_check(&st, 1, 0, err, sizeof err), GAME_E_TURN);
        assert_string_equal(err, "seat 1 is out of the game");
        play_first_legal(&st);
    }
}

/* Three-seat tic-tac-toe: the seat to move resigns; the turn goes on to
 * the next seat in; its marks stay on the board. */
static void test_turn_passes_on(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "tictactoe", "players=3");
    play_first_legal(&st);                                /* seat 0 marks a cell */
    assert_int_equal(game_to_move(&st), 1);
    game_result res;
    assert_int_equal(game_retire(&st, 0, &res), GAME_OK);
    assert_int_equal(game_to_move(&st), 1);               /* not 0's turn */
    assert_int_equal(game_retire(&st, 1, &res), GAME_OK); /* 1's turn: to 2 */
    assert_true(game_is_over(&st));                       /* one seat left */
    int winners[GAME_MAX_SEATS];
    assert_int_equal(game_winners(&st, winners), 1);
    assert_int_equal(winners[0], 2);
    int marks = 0;
    for (int c = 0; c < game_cell_count(&st); c++)
        marks += game_cell(&st, c) == 1;
    assert_int_equal(marks, 1);                           /* seat 0's mark stayed */
}

/* Four seats: the seat to move leaves and the turn skips it to the next
 * seat in; after a second leaves, the last two play on; the winners are
 * among them. */
static void test_winners_among_those_left(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "tictactoe", "players=4");
    int to_move = game_to_move(&st);
    game_result res;
    assert_int_equal(game_retire(&st, to_move, &res), GAME_OK);
    assert_int_equal(res.next, (to_move + 1) % 4);
    assert_int_equal(game_to_move(&st), (to_move + 1) % 4);
    assert_int_equal(game_retire(&st, (to_move + 2) % 4, NULL), GAME_OK);
    while (!game_is_over(&st)) {
        int s = game_to_move(&st);
        assert_false(game_is_out(&st, s));
        play_first_legal(&st);
    }
    int winners[GAME_MAX_SEATS];
    int n = game_winners(&st, winners);
    for (int i = 0; i < n; i++)
        assert_false(game_is_out(&st, winners[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_seats_other_wins),
        cmocka_unit_test(test_three_seats_play_on),
        cmocka_unit_test(test_turn_passes_on),
        cmocka_unit_test(test_winners_among_those_left),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
