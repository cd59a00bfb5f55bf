/*
 * test_notation.c — what views ask of a kind: how its moves are written and
 * read (every legal move of every kind comes back from its own notation),
 * and which picture draws it, so no view has to compare a kind's name.
 */
#include "games_test.h"

#include <string.h>

static void new_game(game_state *st, const char *kind, const char *const *options)
{
    const game_kind *k = game_kind_find(kind);
    assert_non_null(k);
    game_options opts;
    game_options_default(k, &opts);
    for (; options && *options; options++)
        assert_int_equal(game_options_parse(k, &opts, *options, NULL, 0), GAME_OK);
    assert_int_equal(game_new(st, k, &opts, NULL, 0), GAME_OK);
}

/* Every legal move of every kind, written and read back, through a few
 * moves of a game so that more than the start is covered. */
static void test_round_trip(void **state)
{
    (void)state;
    for (int i = 0; i < game_kind_count(); i++) {
        game_state st;
        char err[GAME_ERR_LEN];
        assert_int_equal(game_new(&st, game_kind_at(i), NULL, err, sizeof err), GAME_OK);
        for (int ply = 0; ply < 6 && !game_is_over(&st); ply++) {
            int moves[GAME_MAX_MOVES];
            int n = game_legal_moves(&st, moves, GAME_MAX_MOVES);
            for (int m = 0; m < n; m++) {
                char text[32];
                int back = -1;
                game_format_move(&st, moves[m], text, sizeof text);
                assert_int_equal(game_parse_move(&st, text, &back), 0);
                assert_int_equal(back, moves[m]);
            }
            assert_int_equal(game_play(&st, game_to_move(&st), moves[n / 2], NULL, NULL, 0),
                             GAME_OK);
        }
    }
}

static void test_reversi_notation(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "reversi", NULL);
    char text[16];
    game_format_move(&st, 19, text, sizeof text);
    assert_string_equal(text, "d3");
    game_format_move(&st, 63, text, sizeof text);
    assert_string_equal(text, "h8");
    game_format_move(&st, 64, text, sizeof text);      /* off the board: a number */
    assert_string_equal(text, "64");
    int move = -1;
    assert_int_equal(game_parse_move(&st, "D3", &move), 0);
    assert_int_equal(move, 19);
    assert_int_equal(game_parse_move(&st, "19", &move), 0);
    assert_int_equal(move, 19);
    assert_int_equal(game_parse_move(&st, "i1", &move), -1);   /* no column i on 8x8 */
    assert_int_equal(game_parse_move(&st, "a9", &move), -1);
    assert_int_equal(game_parse_move(&st, "a0", &move), -1);
    assert_int_equal(game_parse_move(&st, "d3x", &move), -1);
    assert_int_equal(game_parse_move(&st, "", &move), -1);
    assert_int_equal(game_draw_style(&st), GAME_DRAW_DISCS);
    assert_int_equal(game_seat_mark(&st, 0), 'X');
    assert_string_equal(game_seat_colour(&st, 0), "black");
    assert_string_equal(game_seat_colour(&st, 1), "white");
    assert_null(game_seat_colour(&st, 2));
}

static void test_tictactoe_notation(void **state)
{
    (void)state;
    static const char *const three_d[] = {"dims=3", "size=3", NULL};
    game_state st;
    new_game(&st, "tictactoe", three_d);
    int move = -1;
    assert_int_equal(game_parse_move(&st, "1,2,0", &move), 0);     /* x + 3y + 9z */
    assert_int_equal(move, 7);
    assert_int_equal(game_parse_move(&st, "0,0,2", &move), 0);
    assert_int_equal(move, 18);
    assert_int_equal(game_parse_move(&st, "1,2", &move), -1);      /* one per dimension */
    assert_int_equal(game_parse_move(&st, "1,2,3", &move), -1);    /* 3 is off the board */
    assert_int_equal(game_parse_move(&st, "1,,2", &move), -1);
    char text[16];
    game_format_move(&st, 7, text, sizeof text);
    assert_string_equal(text, "7");
    assert_int_equal(game_draw_style(&st), GAME_DRAW_SLICES);
    assert_int_equal(game_seat_mark(&st, 1), 'O');
    assert_null(game_seat_colour(&st, 0));
}

static void test_mancala_notation(void **state)
{
    (void)state;
    static const char *const kinds[] = {"sungka", "congklak", "kalah"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        game_state st;
        new_game(&st, kinds[i], NULL);
        assert_int_equal(game_draw_style(&st), GAME_DRAW_MANCALA);
        int move = -1;
        assert_int_equal(game_parse_move(&st, "3", &move), 0);
        assert_int_equal(move, 3);
        assert_int_equal(game_parse_move(&st, "d3", &move), -1);
        assert_int_equal(game_seat_mark(&st, 0), '?');
    }
}

/* Reversi exports the standard Othello transcript; other kinds a line per
 * move; an illegal move is found, not written. */
static void test_transcripts(void **state)
{
    (void)state;
    const game_kind *reversi = game_kind_find("reversi");
    game_state st;
    new_game(&st, "reversi", NULL);
    const char *opening[] = {"f5", "d6", "c3", "d3", "c4"};
    int seats[5], moves[5];
    for (int i = 0; i < 5; i++) {
        seats[i] = game_to_move(&st);
        assert_int_equal(game_parse_move(&st, opening[i], &moves[i]), 0);
        assert_int_equal(game_play(&st, seats[i], moves[i], NULL, NULL, 0), GAME_OK);
    }
    char buf[256];
    int bad = -1;
    assert_int_equal(game_transcript(reversi, &st.opts, seats, moves, 5, buf, sizeof buf, &bad),
                     11);
    assert_string_equal(buf, "f5d6c3d3c4\n");

    const game_kind *kalah = game_kind_find("kalah");
    new_game(&st, "kalah", NULL);
    int kseats[2] = {0, 0}, kmoves[2] = {2, 5};   /* 4 stones from cup 2 end in the home */
    assert_int_equal(game_transcript(kalah, &st.opts, kseats, kmoves, 2, buf, sizeof buf, &bad),
                     12);
    assert_string_equal(buf, "1 0 2\n2 0 5\n");
    int wrong[2] = {2, 2};                            /* cup 2 is empty by then */
    assert_int_equal(game_transcript(kalah, &st.opts, kseats, wrong, 2, buf, sizeof buf, &bad),
                     -1);
    assert_int_equal(bad, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transcripts),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_reversi_notation),
        cmocka_unit_test(test_tictactoe_notation),
        cmocka_unit_test(test_mancala_notation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
