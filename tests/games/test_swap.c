/*
 * test_swap.c — the pie rule of congklak and kalah (docs/rules.md §9): the
 * second seat may swap instead of its first move, and only then; the swap
 * turns the board round (each seat's pits and store take the other's) and
 * the first seat moves next; its notation; a loaded position finds again
 * whether the swap is open; and the search treats it as a move (it swaps
 * into a position it judges won by far).
 * Layout: kalah 2x6, seat 0 pits = cells 0..5, store 6; seat 1 7..12, 13.
 */
#include "games_test.h"

#include <stdlib.h>
#include <string.h>

#include "search.h"

static void new_with(game_state *st, const char *kind, const char *const *opts)
{
    const game_kind *k = game_kind_find(kind);
    assert_non_null(k);
    game_options o;
    char err[GAME_ERR_LEN] = "";
    game_options_default(k, &o);
    for (int i = 0; opts && opts[i]; i++)
        if (game_options_parse(k, &o, opts[i], err, sizeof err) != GAME_OK)
            fail_msg("%s %s: %s", kind, opts[i], err);
    assert_int_equal(game_new(st, k, &o, err, sizeof err), GAME_OK);
}

static void play(game_state *st, int move, game_result *res)
{
    char err[GAME_ERR_LEN] = "";
    int seat = game_to_move(st);
    if (game_play(st, seat, move, res, err, sizeof err) != GAME_OK)
        fail_msg("seat %d's move %d refused: %s", seat, move, err);
}

static bool swap_legal(const game_state *st)
{
    int moves[GAME_MAX_MOVES];
    int n = game_legal_moves(st, moves, GAME_MAX_MOVES);
    bool listed = n > 0 && moves[0] == GAME_MOVE_SWAP;
    for (int i = 1; i < n; i++)
        assert_true(moves[i] >= 0);           /* listed first, once */
    bool checked = game_check(st, game_to_move(st), GAME_MOVE_SWAP, NULL, 0) == GAME_OK;
    assert_int_equal(listed, checked);
    return listed;
}

static const char *const kalah_swap[] = {"swap=1", NULL};

/* Seat 0 plays pit 0 (4 seeds to cells 1..4, the turn ends); seat 1 swaps:
 * seat 1 now has seat 0's row and store, seat 0 seat 1's untouched row. */
static void kalah_swap_turns_the_board(void **state)
{
    (void)state;
    game_state st;
    game_result res;
    new_with(&st, "kalah", kalah_swap);
    assert_false(swap_legal(&st));            /* the first seat has no swap */
    play(&st, 0, &res);
    assert_int_equal(game_to_move(&st), 1);
    assert_true(swap_legal(&st));
    play(&st, GAME_MOVE_SWAP, &res);
    const int want[14] = {4, 4, 4, 4, 4, 4, 0, 0, 5, 5, 5, 5, 4, 0};
    assert_board(&st, want, 14);
    assert_int_equal(game_to_move(&st), 0);
    assert_int_equal(res.next, 0);
    assert_false(res.extra_turn);
    /* Every changed cell is a step, with its new value. */
    assert_int_equal(res.n_steps, 10);
    for (int i = 0; i < res.n_steps; i++)
        assert_int_equal(res.steps[i].value, want[res.steps[i].cell]);
    /* Once only. */
    assert_false(swap_legal(&st));
    play(&st, 0, NULL);
    char err[GAME_ERR_LEN];
    assert_int_equal(game_check(&st, 1, GAME_MOVE_SWAP, err, sizeof err), GAME_E_ILLEGAL);
    assert_string_equal(err, "swap is only allowed instead of the second player's first move");
}

/* An extra turn keeps the first turn going: no swap until it ends. A move
 * of the second seat closes the offer for good. */
static void kalah_swap_after_extra_turns_only(void **state)
{
    (void)state;
    game_state st;
    new_with(&st, "kalah", kalah_swap);
    play(&st, 2, NULL);                       /* 3,4,5 and the store: again */
    assert_int_equal(game_to_move(&st), 0);
    assert_false(swap_legal(&st));
    play(&st, 0, NULL);
    assert_int_equal(game_to_move(&st), 1);
    assert_true(swap_legal(&st));
    play(&st, 0, NULL);                       /* seat 1 moves instead */
    assert_false(swap_legal(&st));
    while (!game_is_over(&st) && game_to_move(&st) != 1) {
        int moves[GAME_MAX_MOVES];
        assert_true(game_legal_moves(&st, moves, GAME_MAX_MOVES) > 0);
        play(&st, moves[0], NULL);
    }
    if (!game_is_over(&st))
        assert_false(swap_legal(&st));
}

static void no_swap_without_the_option(void **state)
{
    (void)state;
    game_state st;
    char err[GAME_ERR_LEN];
    new_with(&st, "kalah", NULL);
    play(&st, 0, NULL);
    assert_false(swap_legal(&st));
    assert_int_equal(game_check(&st, 1, GAME_MOVE_SWAP, err, sizeof err), GAME_E_ILLEGAL);
    assert_string_equal(err, "this game has no swap (create it with swap=1)");
    new_with(&st, "sungka", NULL);
    assert_int_equal(game_named_move_count(&st), 0);
    assert_int_not_equal(game_check(&st, 0, GAME_MOVE_SWAP, NULL, 0), GAME_OK);
}

/* Congklak with first=1: seat 1 begins, so the swap is seat 0's. */
static void congklak_swap_with_seat_one_first(void **state)
{
    (void)state;
    game_state st;
    static const char *const opts[] = {"first=1", "swap=1", "cups=5", "stones=3", NULL};
    new_with(&st, "congklak", opts);
    assert_int_equal(game_to_move(&st), 1);
    while (game_to_move(&st) == 1) {
        assert_false(swap_legal(&st));
        int moves[GAME_MAX_MOVES];
        assert_true(game_legal_moves(&st, moves, GAME_MAX_MOVES) > 0);
        play(&st, moves[0], NULL);
    }
    assert_false(game_is_over(&st));
    int before[GAME_MAX_CELLS];
    for (int i = 0; i < 12; i++)
        before[i] = game_cell(&st, i);
    assert_true(swap_legal(&st));
    play(&st, GAME_MOVE_SWAP, NULL);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(game_cell(&st, i), before[6 + i]);
        assert_int_equal(game_cell(&st, 6 + i), before[i]);
    }
    assert_int_equal(game_to_move(&st), 1);
    assert_false(swap_legal(&st));
}

static void notation(void **state)
{
    (void)state;
    game_state st;
    char buf[16];
    int move = 0;
    new_with(&st, "congklak", NULL);
    assert_int_equal(game_named_move_count(&st), 1);
    assert_int_equal(game_named_move_at(&st, 0)->move, GAME_MOVE_SWAP);
    assert_null(game_named_move_at(&st, 1));
    game_format_move(&st, GAME_MOVE_SWAP, buf, sizeof buf);
    assert_string_equal(buf, "swap");
    assert_int_equal(game_parse_move(&st, "swap", &move), 0);
    assert_int_equal(move, GAME_MOVE_SWAP);
    assert_int_equal(game_parse_move(&st, "Swap", &move), 0);
    assert_int_equal(game_parse_move(&st, "swapx", &move), -1);
    game_format_move(&st, 3, buf, sizeof buf);
    assert_string_equal(buf, "3");
    new_with(&st, "reversi", NULL);
    assert_int_equal(game_named_move_count(&st), 0);
    assert_int_equal(game_parse_move(&st, "swap", &move), -1);
}

/* The agent loads the service's snapshots: whether the swap is open is
 * found again from the board and the turn. */
static void loading_finds_the_offer(void **state)
{
    (void)state;
    game_state st, loaded;
    int cells[GAME_MAX_CELLS];
    new_with(&st, "kalah", kalah_swap);
    new_with(&loaded, "kalah", kalah_swap);
#define RELOAD()                                                                       \
    do {                                                                               \
        for (int i = 0; i < game_cell_count(&st); i++)                                 \
            cells[i] = game_cell(&st, i);                                              \
        assert_int_equal(game_load(&loaded, cells, game_cell_count(&st),               \
                                   game_to_move(&st), game_is_over(&st)),              \
                         GAME_OK);                                                     \
    } while (0)
    RELOAD();                                 /* the start */
    assert_memory_equal(loaded.priv, st.priv, sizeof st.priv);
    play(&st, 2, NULL);                       /* in the middle of the first turn */
    RELOAD();
    assert_memory_equal(loaded.priv, st.priv, sizeof st.priv);
    play(&st, 1, NULL);                       /* the second seat's turn */
    RELOAD();
    assert_true(swap_legal(&st));
    assert_true(swap_legal(&loaded));
    game_state swapped = st;
    play(&st, 3, NULL);                       /* closed by a move... */
    RELOAD();
    assert_false(swap_legal(&loaded));
    assert_memory_equal(loaded.priv, st.priv, sizeof st.priv);
    st = swapped;
    play(&st, GAME_MOVE_SWAP, NULL);          /* ... or by the swap */
    RELOAD();
    assert_memory_equal(loaded.priv, st.priv, sizeof st.priv);
    /* Without the option nothing is open. */
    new_with(&loaded, "kalah", NULL);
    RELOAD();
    assert_false(swap_legal(&loaded));
#undef RELOAD
}

/* Default congklak is a first-player win within a few plies (issue 19). A
 * first turn the search judges won by a wide margin (in a game without
 * swap) is one the second seat should take over: it swaps, expecting to
 * win. A depth cap, not the clock, ends each search, so the answer is the
 * same on a slow machine. */
static void search_swaps_into_a_won_position(void **state)
{
    (void)state;
    static const char *const with_swap[] = {"first=0", "swap=1", NULL};
    static const char *const without[] = {"first=0", NULL};
    game_state *st = malloc(sizeof *st), *plain = malloc(sizeof *plain);
    assert_non_null(st);
    assert_non_null(plain);
    new_with(st, "congklak", with_swap);
    new_with(plain, "congklak", without);
    game_search *s = game_search_new(1 << 22);
    assert_non_null(s);
    game_search_limits lim = {.level = 10, .time_ms = 600000, .max_depth = 10};
    game_search_result r;
    int first_turn = 0;
    while (game_to_move(st) == 0) {
        assert_int_equal(game_search_best(s, plain, &lim, &r), 0);
        first_turn = r.score;
        play(plain, r.move, NULL);
        play(st, r.move, NULL);
    }
    /* Ten seeds or more, or a proven win, on mancala's margin scale. */
    assert_true(first_turn > 10 * 256);
    assert_false(game_is_over(st));
    assert_true(swap_legal(st));
    assert_int_equal(game_search_best(s, st, &lim, &r), 0);
    assert_int_equal(r.move, GAME_MOVE_SWAP);
    assert_true(r.score > 0);
    game_search_free(s);
    free(plain);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kalah_swap_turns_the_board),
        cmocka_unit_test(kalah_swap_after_extra_turns_only),
        cmocka_unit_test(no_swap_without_the_option),
        cmocka_unit_test(congklak_swap_with_seat_one_first),
        cmocka_unit_test(notation),
        cmocka_unit_test(loading_finds_the_offer),
        cmocka_unit_test(search_swaps_into_a_won_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
