/*
 * test_sungka_random.c — thousands of random sungka games (seeded, so a
 * failure reproduces) checking what must hold after every move: stones are
 * conserved, no cell goes negative, the steps replayed on the old board give
 * the new one, the mover's home grows (every turn passes or ends in it),
 * passed seats really are empty, the seat to move can move, and every game
 * ends within as many moves as there are stones.
 */
#include "games_test.h"

#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t next_rand(void)
{
    return test_rand(&rng);
}

static void check_move(const game_state *before, const game_state *after, int mover,
                       const game_result *r, int total)
{
    int n = game_cell_count(after);
    assert_int_equal(board_total(after), total);
    for (int i = 0; i < n; i++)
        assert_true(game_cell(after, i) >= 0);

    /* Replaying the steps on the old board gives the new board. */
    if (!r->truncated) {
        int cells[GAME_MAX_CELLS];
        for (int i = 0; i < n; i++)
            cells[i] = game_cell(before, i);
        for (int i = 0; i < r->n_steps; i++) {
            assert_true(r->steps[i].cell >= 0 && r->steps[i].cell < n);
            cells[r->steps[i].cell] = r->steps[i].value;
        }
        for (int i = 0; i < n; i++)
            if (cells[i] != game_cell(after, i))
                fail_msg("steps give cell %d = %d, board has %d", i, cells[i], game_cell(after, i));
    }

    /* Homes never shrink; the mover's grows by at least one stone. */
    for (int s = 0; s < game_seats(after); s++)
        assert_true(game_cell(after, game_mancala_home(after, s)) >=
                    game_cell(before, game_mancala_home(before, s)));
    assert_false(r->relay_limit_hit);
    assert_true(game_cell(after, game_mancala_home(after, mover)) >
                game_cell(before, game_mancala_home(before, mover)));

    assert_int_equal(r->next, game_to_move(after));
    for (int i = 0; i < r->n_passed; i++)
        assert_true(test_row_empty(after, r->passed[i]));
    if (game_is_over(after)) {
        assert_int_equal(r->next, -1);
        for (int s = 0; s < game_seats(after); s++)
            assert_true(test_row_empty(after, s));
    } else {
        assert_false(test_row_empty(after, r->next));
        if (r->extra_turn)
            assert_int_equal(r->next, mover);
        /* Seats strictly between the mover and the next seat all passed. */
        int expect = 0;
        if (!r->extra_turn) {
            int s = mover;
            if (r->n_passed > 0 && r->passed[0] == mover)
                expect++;
            for (s = (mover + 1) % game_seats(after); s != r->next;
                 s = (s + 1) % game_seats(after))
                assert_int_equal(r->passed[expect++], s);
        }
        assert_int_equal(r->n_passed, expect);
    }
}

static void play_random_game(int players, int cups, int stones, long *moves_played)
{
    game_state st, before;
    game_result r;
    char err[GAME_ERR_LEN];
    int moves[GAME_MAX_MOVES];
    new_sungka(&st, players, cups, stones);
    int total = players * cups * stones;
    assert_int_equal(board_total(&st), total);
    int n_moves = 0;
    while (!game_is_over(&st)) {
        /* Each move puts at least one stone home, so the game is bounded. */
        assert_true(n_moves < total);
        int seat = game_to_move(&st);
        int n = game_legal_moves(&st, moves, GAME_MAX_MOVES);
        assert_true(n > 0);
        int move = moves[next_rand() % (uint32_t)n];
        before = st;
        if (game_play(&st, seat, move, &r, err, sizeof err) != GAME_OK)
            fail_msg("legal move %d by seat %d refused: %s", move, seat, err);
        check_move(&before, &st, seat, &r, total);
        n_moves++;
    }
    int w[GAME_MAX_SEATS], sc[GAME_MAX_SEATS];
    game_scores(&st, sc);
    int sum = 0;
    for (int s = 0; s < players; s++)
        sum += sc[s];
    assert_int_equal(sum, total);
    int nw = game_winners(&st, w);
    assert_true(nw >= 0 && nw < players);
    for (int i = 1; i < nw; i++)
        assert_int_equal(sc[w[i]], sc[w[0]]);
    *moves_played += n_moves;
}

static void test_random_games(void **state)
{
    (void)state;
    long moves = 0;
    int games = 0;
    for (int players = 2; players <= 6; players++) {
        for (int g = 0; g < 400; g++) {
            int cups = 3 + (int)(next_rand() % 10);   /* 3..12 */
            int stones = 1 + (int)(next_rand() % 20); /* 1..20 */
            play_random_game(players, cups, stones, &moves);
            games++;
        }
    }
    assert_int_equal(games, 2000);
    print_message("%d games, %ld moves\n", games, moves);
}

/* The largest and smallest boards, many times each. */
static void test_random_extremes(void **state)
{
    (void)state;
    long moves = 0;
    for (int g = 0; g < 50; g++) {
        play_random_game(6, 12, 20, &moves);
        play_random_game(2, 3, 1, &moves);
        play_random_game(2, 12, 20, &moves);
        play_random_game(6, 3, 1, &moves);
    }
    assert_true(moves > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_games),
        cmocka_unit_test(test_random_extremes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
