/*
 * test_reversi.c — the `reversi` kind: hand-built positions (flips in each of
 * the 8 directions and several at once, runs that do not flip, a pass, the
 * end by a full board and by a wipe-out, scores and a draw), errors, options,
 * board sizes, random games on every size checked after every move against a
 * naive reference written here (legal moves, flips, turn order, disc count,
 * bitboards), and perft against the published table for 8x8.
 */
#include "games_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const game_kind *reversi(void)
{
    const game_kind *k = game_kind_find("reversi");
    assert_non_null(k);
    return k;
}

static void new_reversi(game_state *st, int size)
{
    game_options o;
    char err[GAME_ERR_LEN] = "";
    game_options_default(reversi(), &o);
    if (game_options_set(reversi(), &o, "size", size, err, sizeof err) != GAME_OK)
        fail_msg("size %d: %s", size, err);
    assert_int_equal(game_new(st, reversi(), &o, err, sizeof err), GAME_OK);
}

/* A position from rows of '.', 'X' (black, seat 0) and 'O' (white, seat 1);
 * rows[y][x] is cell y*size+x. */
static void load_rows(game_state *st, int size, const char *const *rows, int to_move)
{
    new_reversi(st, size);
    int cells[GAME_MAX_CELLS];
    for (int y = 0; y < size; y++) {
        assert_int_equal((int)strlen(rows[y]), size);
        for (int x = 0; x < size; x++)
            cells[y * size + x] = rows[y][x] == 'X' ? 1 : rows[y][x] == 'O' ? 2 : 0;
    }
    assert_int_equal(game_load(st, cells, size * size, to_move, false), GAME_OK);
}

static int discs(const game_state *st, int value)
{
    int n = 0;
    for (int i = 0; i < game_cell_count(st); i++)
        n += game_cell(st, i) == value;
    return n;
}

/* --- a naive reference: walk the rays cell by cell --- */

static const int DX[8] = {1, -1, 0, 0, 1, -1, -1, 1};
static const int DY[8] = {0, 0, 1, -1, 1, -1, 1, -1};

/* Cells seat would flip by playing m on cells[] (n x n); returns the count
 * and marks them in flip[] when flip is not NULL. */
static int naive_flips(const int *cells, int n, int m, int seat, bool *flip)
{
    if (cells[m] != 0)
        return 0;
    int total = 0, mx = m % n, my = m / n;
    for (int d = 0; d < 8; d++) {
        int x = mx + DX[d], y = my + DY[d], run = 0;
        while (x >= 0 && x < n && y >= 0 && y < n && cells[y * n + x] == 2 - seat) {
            x += DX[d];
            y += DY[d];
            run++;
        }
        if (run == 0 || x < 0 || x >= n || y < 0 || y >= n || cells[y * n + x] != seat + 1)
            continue;
        total += run;
        for (int k = 1; flip && k <= run; k++)
            flip[(my + k * DY[d]) * n + mx + k * DX[d]] = true;
    }
    return total;
}

static int naive_moves(const int *cells, int n, int seat, int *moves)
{
    int count = 0;
    for (int m = 0; m < n * n; m++)
        if (naive_flips(cells, n, m, seat, NULL) > 0)
            moves[count++] = m;
    return count;
}

static void cells_of(const game_state *st, int *cells)
{
    for (int i = 0; i < game_cell_count(st); i++)
        cells[i] = game_cell(st, i);
}

/* The bitboards in priv (black in priv[0..3], white in priv[4..7], bit i =
 * cell i, as reversi.c documents) agree with cells[], and rebuilding them
 * from cells (game_load's hook) gives the same words, the cached move set of
 * the seat to move (priv[8..11]) included. */
static void assert_bitboards(const game_state *st)
{
    int n = game_cell_count(st);
    for (int i = 0; i < n; i++) {
        bool black = (st->priv[i >> 6] >> (i & 63)) & 1;
        bool white = (st->priv[4 + (i >> 6)] >> (i & 63)) & 1;
        if (black != (game_cell(st, i) == 1) || white != (game_cell(st, i) == 2))
            fail_msg("cell %d holds %d but the bitboards say black %d white %d", i,
                     game_cell(st, i), black, white);
    }
    for (int i = n; i < 256; i++)
        if (((st->priv[i >> 6] | st->priv[4 + (i >> 6)]) >> (i & 63)) & 1)
            fail_msg("bit %d is set beyond the board of %d cells", i, n);
    static game_state copy;
    copy = *st;
    memset(copy.priv, 0xa5, sizeof copy.priv);
    int cells[GAME_MAX_CELLS];
    cells_of(st, cells);
    assert_int_equal(game_load(&copy, cells, n, game_to_move(st), game_is_over(st)), GAME_OK);
    assert_memory_equal(copy.priv, st->priv, 12 * sizeof st->priv[0]);
}

static void assert_moves(const game_state *st, const int *want, int n_want)
{
    int moves[GAME_MAX_MOVES];
    int n = game_legal_moves(st, moves, GAME_MAX_MOVES);
    if (n != n_want)
        fail_msg("%d legal moves, expected %d", n, n_want);
    for (int i = 0; i < n; i++)
        if (moves[i] != want[i])
            fail_msg("legal move %d is %d, expected %d", i, moves[i], want[i]);
}

static void play_ok(game_state *st, int seat, int move, game_result *r)
{
    char err[GAME_ERR_LEN] = "";
    int rc = game_play(st, seat, move, r, err, sizeof err);
    if (rc != GAME_OK)
        fail_msg("seat %d cell %d: %d %s", seat, move, rc, err);
    assert_bitboards(st);
}

/* --- start, sizes --- */

static void test_start(void **state)
{
    (void)state;
    game_state st;
    new_reversi(&st, 8);
    assert_int_equal(game_seats(&st), 2);
    assert_int_equal(game_cell_count(&st), 64);
    assert_int_equal(st.size, 8);
    assert_int_equal(st.layout, GAME_LAYOUT_GRID);
    assert_int_equal(game_to_move(&st), 0);
    /* Standard Othello: d4 = (3,3) and e5 = (4,4) white, d5 = (3,4) and
     * e4 = (4,3) black, as (x,y); black's first moves are d3, c4, f5, e6. */
    assert_int_equal(game_cell(&st, 27), 2);
    assert_int_equal(game_cell(&st, 36), 2);
    assert_int_equal(game_cell(&st, 35), 1);
    assert_int_equal(game_cell(&st, 28), 1);
    assert_int_equal(board_total(&st), 1 + 2 + 1 + 2);
    static const int four[] = {19, 26, 37, 44};
    assert_moves(&st, four, 4);
    int scores[GAME_MAX_SEATS], winners[GAME_MAX_SEATS];
    game_scores(&st, scores);
    assert_int_equal(scores[0], 2);
    assert_int_equal(scores[1], 2);
    assert_int_equal(game_winners(&st, winners), 0);
    assert_bitboards(&st);

    /* The default size is 8; NULL options are the defaults. */
    game_state st2;
    char err[GAME_ERR_LEN];
    assert_int_equal(game_new(&st2, reversi(), NULL, err, sizeof err), GAME_OK);
    assert_memory_equal(&st, &st2, sizeof st);

    /* Black d3 = 19 flips d4 = 27; white's one disc e5 then has three
     * moves: c3 = 18, e3 = 20, c5 = 34 (the openings' "perpendicular",
     * "diagonal" and "parallel"). */
    game_result r;
    play_ok(&st, 0, 19, &r);
    static const int steps[] = {19, 1, 27, 1};
    assert_steps(&r, steps, 2);
    assert_int_equal(r.captured, 1);
    assert_int_equal(r.next, 1);
    assert_int_equal(r.n_passed, 0);
    assert_false(r.extra_turn);
    static const int white[] = {18, 20, 34};
    assert_moves(&st, white, 3);
}

/* Every even size starts centred with the same four moves, and small and
 * large boards play through to the end. */
static void test_sizes(void **state)
{
    (void)state;
    for (int n = 4; n <= 16; n += 2) {
        game_state st;
        new_reversi(&st, n);
        int c = n / 2;
        assert_int_equal(game_cell_count(&st), n * n);
        assert_int_equal(game_cell(&st, (c - 1) * n + c - 1), 2);
        assert_int_equal(game_cell(&st, c * n + c - 1), 1);
        assert_int_equal(game_cell(&st, c * n + c), 2);
        assert_int_equal(game_cell(&st, (c - 1) * n + c), 1);
        assert_int_equal(discs(&st, 0), n * n - 4);
        int want[4] = {(c - 2) * n + c - 1, (c - 1) * n + c - 2, c * n + c + 1, (c + 1) * n + c};
        assert_moves(&st, want, 4);
        assert_bitboards(&st);
    }

    /* 16x16: the corners and the last cell are numbered y*16+x. */
    game_state st;
    new_reversi(&st, 16);
    static const int w16[] = {103, 118, 137, 152};
    assert_moves(&st, w16, 4);
    char err[GAME_ERR_LEN];
    assert_int_equal(game_check(&st, 0, 256, err, sizeof err), GAME_E_RANGE);
    assert_string_equal(err, "cell 256 is out of range 0..255");
    assert_int_equal(game_check(&st, 0, 255, err, sizeof err), GAME_E_ILLEGAL);
    assert_string_equal(err, "cell 255 flips nothing");

    /* A ray across the word boundaries of a 16x16 board: column 3 from
     * y=1 to y=14 (cells 19..227), black at both ends, white between. */
    static const char *const col[16] = {
        "................", "...X............", "...O............", "...O............",
        "...O............", "...O............", "...O............", "...O............",
        "...O............", "...O............", "...O............", "...O............",
        "...O............", "...O............", "...O............", ".........O......",
    };
    load_rows(&st, 16, col, 0);
    assert_bitboards(&st);
    game_result r;
    assert_int_equal(game_check(&st, 0, 15 * 16 + 3, err, sizeof err), GAME_OK);
    play_ok(&st, 0, 15 * 16 + 3, &r);
    assert_int_equal(r.captured, 13);
    for (int y = 1; y <= 15; y++)
        assert_int_equal(game_cell(&st, y * 16 + 3), 1);
    assert_int_equal(game_cell(&st, 15 * 16 + 9), 2);
    /* White has a disc but no move (nothing to bracket); black neither: over. */
    assert_true(game_is_over(&st));
    assert_int_equal(r.next, -1);
    assert_int_equal(r.n_passed, 0);
}

/* --- flips --- */

/* For each direction alone: black plays (3,3) with two white discs then a
 * black one along that direction; exactly those two flip. A white/black pair
 * in a corner keeps white able to move afterwards. */
static void test_each_direction(void **state)
{
    (void)state;
    const int n = 8, m = 3 * 8 + 3;
    for (int d = 0; d < 8; d++) {
        int cells[64] = {0};
        cells[7 * n + 0] = 2; /* (0,7) white, (1,7) black: white can play (2,7) */
        cells[7 * n + 1] = 1;
        int f1 = (3 + DY[d]) * n + 3 + DX[d];
        int f2 = (3 + 2 * DY[d]) * n + 3 + 2 * DX[d];
        int end = (3 + 3 * DY[d]) * n + 3 + 3 * DX[d];
        cells[f1] = 2;
        cells[f2] = 2;
        cells[end] = 1;
        game_state st;
        new_reversi(&st, n);
        assert_int_equal(game_load(&st, cells, 64, 0, false), GAME_OK);
        assert_bitboards(&st);
        int want_moves[1] = {m};
        assert_moves(&st, want_moves, 1);

        game_result r;
        play_ok(&st, 0, m, &r);
        cells[m] = 1;
        cells[f1] = 1;
        cells[f2] = 1;
        assert_board(&st, cells, 64);
        int steps[] = {m, 1, f1, 1, f2, 1};
        assert_steps(&r, steps, 3);
        assert_int_equal(r.captured, 2);
        assert_int_equal(r.next, 1);
        assert_int_equal(game_to_move(&st), 1);
        assert_int_equal(r.n_passed, 0);
        assert_int_equal(discs(&st, 1), 5);
        assert_int_equal(discs(&st, 2), 1);
    }
}

/* One move flipping in four directions at once, next to rays that do not
 * flip (white up to the edge, white up to an empty cell, a black neighbour).
 * Steps come in waves by distance: distance 1 in the order E W S N SE NW SW
 * NE, then distance 2, 3. */
static void test_several_directions(void **state)
{
    (void)state;
    static const char *const rows[8] = {
        "........", /* */
        ".X.X....", /* NW and N end on black */
        "..OOO...", /* NE (4,2) runs into the empty (5,1) */
        "OOO.OOOX", /* W runs to the edge; E ends on black at (7,3) */
        "..XOO...", /* SW (2,4) is black at once: nothing */
        "...O.X..", /* S runs into the empty (3,6); SE ends on (5,5) */
        "........", "........",
    };
    game_state st;
    load_rows(&st, 8, rows, 0);
    int before[64];
    cells_of(&st, before);
    game_result r;
    play_ok(&st, 0, 27, &r);
    static const int steps[] = {27, 1, 28, 1, 19, 1, 36, 1, 18, 1, 29, 1, 30, 1};
    assert_steps(&r, steps, 7);
    assert_int_equal(r.captured, 6);
    int want[64];
    memcpy(want, before, sizeof want);
    want[27] = want[28] = want[29] = want[30] = want[19] = want[18] = want[36] = 1;
    assert_board(&st, want, 64);
    assert_int_equal(r.next, 1);
    /* Unflipped runs stay white. */
    assert_int_equal(game_cell(&st, 24), 2);
    assert_int_equal(game_cell(&st, 26), 2);
    assert_int_equal(game_cell(&st, 20), 2);
    assert_int_equal(game_cell(&st, 35), 2);
    assert_int_equal(game_cell(&st, 43), 2);
}

/* --- passes and the end --- */

static void test_pass_then_wipeout(void **state)
{
    (void)state;
    static const char *const rows[8] = {
        "XOO.....", /* black (3,0) flips (1,0) (2,0) */
        "........", "........", "........", "........", "........", "........",
        ".OXXXXXX", /* white cannot move here; black can play (0,7) */
    };
    game_state st;
    load_rows(&st, 8, rows, 0);
    static const int black[] = {3, 56};
    assert_moves(&st, black, 2);
    game_result r;
    play_ok(&st, 0, 3, &r);
    static const int steps[] = {3, 1, 2, 1, 1, 1};
    assert_steps(&r, steps, 3);
    /* White has a disc but no move: black moves again, white passed. */
    assert_false(game_is_over(&st));
    assert_int_equal(r.next, 0);
    assert_int_equal(game_to_move(&st), 0);
    assert_false(r.extra_turn);
    assert_int_equal(r.n_passed, 1);
    assert_int_equal(r.passed[0], 1);
    char err[GAME_ERR_LEN];
    assert_int_equal(game_check(&st, 1, 56, err, sizeof err), GAME_E_TURN);
    assert_string_equal(err, "it is seat 0's turn");
    static const int again[] = {56};
    assert_moves(&st, again, 1);

    /* Black takes white's last disc: neither can move, the game is over and
     * nobody is reported as passing. */
    play_ok(&st, 0, 56, &r);
    assert_true(game_is_over(&st));
    assert_int_equal(game_to_move(&st), -1);
    assert_int_equal(r.next, -1);
    assert_int_equal(r.n_passed, 0);
    int scores[GAME_MAX_SEATS], winners[GAME_MAX_SEATS];
    game_scores(&st, scores);
    assert_int_equal(scores[0], 12);
    assert_int_equal(scores[1], 0);
    assert_int_equal(game_winners(&st, winners), 1);
    assert_int_equal(winners[0], 0);
    int moves[GAME_MAX_MOVES];
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 0);
    assert_int_equal(game_play(&st, 0, 4, &r, err, sizeof err), GAME_E_OVER);
    assert_string_equal(err, "the game is over");
    assert_int_equal(game_play(&st, 1, 4, &r, err, sizeof err), GAME_E_OVER);
}

/* The last empty cell is played: the board is full, the game is over. */
static void test_full_board(void **state)
{
    (void)state;
    static const char *const win[4] = {"OOOO", "XXXX", "XXXO", "XXO."};
    game_state st;
    load_rows(&st, 4, win, 0);
    game_result r;
    play_ok(&st, 0, 15, &r);
    static const int steps[] = {15, 1, 14, 1, 11, 1}; /* W then N */
    assert_steps(&r, steps, 3);
    assert_true(game_is_over(&st));
    assert_int_equal(r.next, -1);
    int scores[GAME_MAX_SEATS], winners[GAME_MAX_SEATS];
    game_scores(&st, scores);
    assert_int_equal(scores[0], 12);
    assert_int_equal(scores[1], 4);
    assert_int_equal(game_winners(&st, winners), 1);
    assert_int_equal(winners[0], 0);

    /* 8 discs each: a draw, no winner. */
    static const char *const draw[4] = {"OOOO", "OOOX", "OXXO", "XXO."};
    load_rows(&st, 4, draw, 0);
    play_ok(&st, 0, 15, &r);
    assert_true(game_is_over(&st));
    game_scores(&st, scores);
    assert_int_equal(scores[0], 8);
    assert_int_equal(scores[1], 8);
    assert_int_equal(game_winners(&st, winners), 0);

    /* White fills the board (W: 14 13, N: 11 7, NW: 10) and wins 14 to 2. */
    static const char *const white[4] = {"OOOO", "OOOX", "XXXX", "OXX."};
    load_rows(&st, 4, white, 1);
    play_ok(&st, 1, 15, &r);
    static const int wsteps[] = {15, 2, 14, 2, 11, 2, 10, 2, 13, 2, 7, 2};
    assert_steps(&r, wsteps, 6);
    assert_true(game_is_over(&st));
    game_scores(&st, scores);
    assert_int_equal(scores[0], 2);
    assert_int_equal(scores[1], 14);
    assert_int_equal(game_winners(&st, winners), 1);
    assert_int_equal(winners[0], 1);
}

/* Neither side can move with empty cells left: the game ends early. */
static void test_stuck_not_full(void **state)
{
    (void)state;
    static const char *const rows[4] = {"XO..", "....", "....", "OO.X"};
    game_state st;
    load_rows(&st, 4, rows, 0);
    static const int black[] = {2};
    assert_moves(&st, black, 1);
    game_result r;
    play_ok(&st, 0, 2, &r);
    /* Row 0 is XXX. and row 3 OO.X: white's (2,3) would need a black run
     * ending in white; there is none. Black's (2,3) flips nothing either. */
    assert_true(game_is_over(&st));
    assert_int_equal(r.n_passed, 0);
    int scores[GAME_MAX_SEATS], winners[GAME_MAX_SEATS];
    game_scores(&st, scores);
    assert_int_equal(scores[0], 4);
    assert_int_equal(scores[1], 2);
    assert_int_equal(game_winners(&st, winners), 1);
    assert_int_equal(winners[0], 0);
}

/* --- errors and options --- */

static void test_errors(void **state)
{
    (void)state;
    game_state st, copy;
    new_reversi(&st, 8);
    copy = st;
    char err[GAME_ERR_LEN];
    game_result r;
    static const struct {
        int seat, move, code;
        const char *text;
    } bad[] = {
        {0, 99, GAME_E_RANGE, "cell 99 is out of range 0..63"},
        {0, 64, GAME_E_RANGE, "cell 64 is out of range 0..63"},
        {0, -1, GAME_E_RANGE, "cell -1 is out of range 0..63"},
        {0, 27, GAME_E_OCCUPIED, "cell 27 is taken"},
        {0, 28, GAME_E_OCCUPIED, "cell 28 is taken"},
        {0, 0, GAME_E_ILLEGAL, "cell 0 flips nothing"},
        {0, 20, GAME_E_ILLEGAL, "cell 20 flips nothing"}, /* next to white, no bracket */
        {0, 45, GAME_E_ILLEGAL, "cell 45 flips nothing"}, /* diagonal to white only */
        {1, 20, GAME_E_TURN, "it is seat 0's turn"},
        {2, 20, GAME_E_TURN, "it is seat 0's turn"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        int rc = game_play(&st, bad[i].seat, bad[i].move, &r, err, sizeof err);
        if (rc != bad[i].code || strcmp(err, bad[i].text) != 0)
            fail_msg("seat %d cell %d gave %d '%s', expected %d '%s'", bad[i].seat, bad[i].move,
                     rc, err, bad[i].code, bad[i].text);
        assert_int_equal(game_check(&st, bad[i].seat, bad[i].move, NULL, 0), bad[i].code);
        assert_memory_equal(&st, &copy, sizeof st);
    }
    /* White's start moves are not black's. */
    assert_int_equal(game_check(&st, 0, 43, err, sizeof err), GAME_E_ILLEGAL);
}

static void test_options(void **state)
{
    (void)state;
    const game_kind *k = reversi();
    assert_int_equal(k->layout, GAME_LAYOUT_GRID);
    game_options o;
    char err[GAME_ERR_LEN];
    game_options_default(k, &o);
    assert_int_equal(o.n, 1);
    assert_int_equal(game_option(k, &o, "size", -1), 8);
    game_options before = o;
    static const struct {
        int value;
        const char *text;
    } bad[] = {
        {3, "size must be 4..16 in steps of 2, not 3"},
        {18, "size must be 4..16 in steps of 2, not 18"},
        {5, "size must be 4..16 in steps of 2, not 5"},
        {7, "size must be 4..16 in steps of 2, not 7"},
        {15, "size must be 4..16 in steps of 2, not 15"},
        {2, "size must be 4..16 in steps of 2, not 2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(game_options_set(k, &o, "size", bad[i].value, err, sizeof err),
                         GAME_E_OPTION);
        assert_string_equal(err, bad[i].text);
        assert_memory_equal(&o, &before, sizeof o);
        char text[32];
        snprintf(text, sizeof text, "size=%d", bad[i].value);
        err[0] = '\0';
        assert_int_equal(game_options_parse(k, &o, text, err, sizeof err), GAME_E_OPTION);
        assert_string_equal(err, bad[i].text);
        assert_memory_equal(&o, &before, sizeof o);
    }
    /* game_new checks options it did not build itself, evenness included. */
    game_state st;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o.value[0] = bad[i].value;
        err[0] = '\0';
        assert_int_equal(game_new(&st, k, &o, err, sizeof err), GAME_E_OPTION);
        assert_string_equal(err, bad[i].text);
    }
    for (int n = 4; n <= 16; n += 2) {
        game_options_default(k, &o);
        assert_int_equal(game_options_set(k, &o, "size", n, err, sizeof err), GAME_OK);
        assert_int_equal(game_new(&st, k, &o, err, sizeof err), GAME_OK);
        assert_int_equal(game_cell_count(&st), n * n);
    }
    assert_int_equal(game_options_parse(k, &o, "dims=2", err, sizeof err), GAME_E_OPTION);
    assert_string_equal(err, "reversi has no option 'dims' (options: size)");
    /* Zeroed options start from the defaults, and evenness is still checked. */
    game_options z;
    memset(&z, 0, sizeof z);
    assert_int_equal(game_options_set(k, &z, "size", 9, err, sizeof err), GAME_E_OPTION);
    assert_int_equal(z.n, 0);
    assert_int_equal(game_options_set(k, &z, "size", 10, err, sizeof err), GAME_OK);
    assert_int_equal(z.n, 1);
    assert_int_equal(z.value[0], 10);
}

/* game_load checks values against the seats and rebuilds the bitboards. */
static void test_load(void **state)
{
    (void)state;
    game_state st, copy;
    new_reversi(&st, 6);
    copy = st;
    int cells[36] = {0};
    cells[5] = 3;
    assert_int_equal(game_load(&st, cells, 36, 0, false), GAME_E_RANGE);
    assert_int_equal(game_load(&st, cells, 64, 0, false), GAME_E_RANGE);
    assert_memory_equal(&st, &copy, sizeof st);
    cells[5] = 2;
    cells[4] = 1;
    assert_int_equal(game_load(&st, cells, 36, 0, false), GAME_OK);
    assert_bitboards(&st);
    /* A position where the seat to move has no move is taken as given. */
    int moves[GAME_MAX_MOVES];
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 0);
    char err[GAME_ERR_LEN];
    assert_int_equal(game_check(&st, 0, 6, err, sizeof err), GAME_E_ILLEGAL);
    static const int white[] = {3};
    assert_int_equal(game_load(&st, cells, 36, 1, false), GAME_OK);
    assert_moves(&st, white, 1);
}

/* --- random games against the naive reference --- */

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint32_t next_rand(void)
{
    return test_rand(&rng);
}

static int chebyshev(int a, int b, int n)
{
    int dx = abs(a % n - b % n), dy = abs(a / n - b / n);
    return dx > dy ? dx : dy;
}

static void random_game(int n)
{
    game_state st;
    new_reversi(&st, n);
    int placed = 4, plies = 0;
    int cells[GAME_MAX_CELLS], want[GAME_MAX_MOVES];
    while (!game_is_over(&st)) {
        int mover = game_to_move(&st);
        cells_of(&st, cells);
        int count = naive_moves(cells, n, mover, want);
        assert_true(count > 0); /* the seat to move can always move */
        assert_moves(&st, want, count);
        int m = want[next_rand() % (unsigned)count];
        bool flip[GAME_MAX_CELLS] = {false};
        int nflips = naive_flips(cells, n, m, mover, flip);
        int expect[GAME_MAX_CELLS];
        for (int i = 0; i < n * n; i++)
            expect[i] = i == m || flip[i] ? mover + 1 : cells[i];

        game_result r;
        play_ok(&st, mover, m, &r);
        placed++;
        plies++;
        assert_int_equal(discs(&st, 1) + discs(&st, 2), placed);
        assert_int_equal(r.captured, nflips);
        assert_int_equal(r.n_steps, 1 + nflips);
        assert_int_equal(r.steps[0].cell, m);
        for (int i = 0; i < r.n_steps; i++) {
            assert_int_equal(r.steps[i].value, mover + 1);
            if (i > 0) {
                assert_true(flip[r.steps[i].cell]);
                flip[r.steps[i].cell] = false; /* each flipped disc once */
                if (i > 1)
                    assert_true(chebyshev(r.steps[i - 1].cell, m, n) <=
                                chebyshev(r.steps[i].cell, m, n));
            }
        }
        assert_board(&st, expect, n * n);
        memcpy(cells, expect, sizeof(int) * (size_t)(n * n));

        /* The turn rule: opponent if able, else the mover, else over. */
        int opp = 1 - mover;
        int o_moves = naive_moves(cells, n, opp, want);
        int m_moves = naive_moves(cells, n, mover, want);
        if (o_moves > 0) {
            assert_int_equal(r.next, opp);
            assert_int_equal(r.n_passed, 0);
        } else if (m_moves > 0) {
            assert_int_equal(r.next, mover);
            assert_int_equal(r.n_passed, 1);
            assert_int_equal(r.passed[0], opp);
        } else {
            assert_true(game_is_over(&st));
            assert_int_equal(r.next, -1);
            assert_int_equal(r.n_passed, 0);
        }
        assert_int_equal(r.next, game_to_move(&st));
        assert_true(plies <= n * n - 4);
    }
    int scores[GAME_MAX_SEATS], winners[GAME_MAX_SEATS];
    game_scores(&st, scores);
    assert_int_equal(scores[0], discs(&st, 1));
    assert_int_equal(scores[1], discs(&st, 2));
    int w = game_winners(&st, winners);
    if (scores[0] == scores[1])
        assert_int_equal(w, 0);
    else
        assert_true(w == 1 && winners[0] == (scores[1] > scores[0]));
}

static void test_random_games(void **state)
{
    (void)state;
    for (int n = 4; n <= 16; n += 2) {
        int games = n <= 8 ? 200 : 20;
        for (int g = 0; g < games; g++)
            random_game(n);
    }
}

/* --- perft --- */

/* Move sequences of exactly depth plies by brute force over copies; a
 * recorded pass is one ply of its own (as in the published tables). Games
 * that end at the last ply are counted into *ended when it is not NULL. */
static long long perft_ended(const game_state *st, int depth, long long *ended)
{
    if (depth == 0)
        return 1;
    int moves[GAME_MAX_MOVES];
    int count = game_legal_moves(st, moves, GAME_MAX_MOVES);
    long long total = 0;
    for (int i = 0; i < count; i++) {
        game_state child = *st;
        game_result r;
        if (game_play(&child, game_to_move(st), moves[i], &r, NULL, 0) != GAME_OK)
            fail_msg("legal move %d refused", moves[i]);
        int left = depth - 1 - r.n_passed;
        if (left <= 0 && ended && game_is_over(&child))
            (*ended)++;
        total += left <= 0 ? 1 : perft_ended(&child, left, ended);
    }
    return total;
}

static long long perft(const game_state *st, int depth)
{
    return perft_ended(st, depth, NULL);
}

/* Same count over the naive reference board, with its own pass rule. */
static long long naive_perft(const int *cells, int n, int seat, int depth)
{
    if (depth == 0)
        return 1;
    int moves[GAME_MAX_MOVES];
    int count = naive_moves(cells, n, seat, moves);
    if (count == 0) {
        int other[GAME_MAX_MOVES];
        if (naive_moves(cells, n, 1 - seat, other) == 0)
            return 0; /* neither can move: the game is over */
        return naive_perft(cells, n, 1 - seat, depth - 1);
    }
    long long total = 0;
    int next[GAME_MAX_CELLS];
    for (int i = 0; i < count; i++) {
        bool flip[GAME_MAX_CELLS] = {false};
        memcpy(next, cells, sizeof(int) * (size_t)(n * n));
        naive_flips(cells, n, moves[i], seat, flip);
        next[moves[i]] = seat + 1;
        for (int c = 0; c < n * n; c++)
            if (flip[c])
                next[c] = seat + 1;
        total += naive_perft(next, n, 1 - seat, depth - 1);
    }
    return total;
}

/* Aart Bik, "Perft for Reversi" (2009), confirmed by vivi.dyndns.org/d/5494:
 * passes first occur at depth 9. From depth 10 on the published counts also
 * count a pass by a seat when neither seat can move (228 games end at ply 9,
 * so the table says 24571284 where our rules, which end the game there,
 * give 24571056); depths 1..9 are the same under both. */
static void test_perft_8x8(void **state)
{
    (void)state;
    static const long long published[] = {1, 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288};
    game_state st;
    new_reversi(&st, 8);
    for (int d = 1; d <= 9; d++) {
        long long ended = 0;
        long long got = perft_ended(&st, d, &ended);
        if (got != published[d])
            fail_msg("perft(%d) = %lld, published %lld", d, got, published[d]);
        /* The shortest games (wipe-outs) take 9 plies; 228 of them. */
        assert_int_equal(ended, d < 9 ? 0 : 228);
    }
}

/* Other sizes have no published table: the engine and the naive board agree
 * (4x4 through the passes and game ends of its whole opening). */
static void test_perft_sizes(void **state)
{
    (void)state;
    static const struct {
        int n, depth;
    } cases[] = {{4, 10}, {6, 7}, {10, 5}, {12, 5}, {14, 4}, {16, 5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        game_state st;
        new_reversi(&st, cases[i].n);
        int cells[GAME_MAX_CELLS];
        cells_of(&st, cells);
        for (int d = 1; d <= cases[i].depth; d++) {
            long long a = perft(&st, d), b = naive_perft(cells, cases[i].n, 0, d);
            if (a != b)
                fail_msg("size %d perft(%d): engine %lld, naive %lld", cases[i].n, d, a, b);
        }
    }
    /* 4x4 is small enough to know by heart (computed by both counts). */
    game_state st;
    new_reversi(&st, 4);
    static const long long four[] = {1, 4, 12, 44, 128, 424, 1256, 3624, 9112, 20032, 36412};
    for (int d = 1; d <= 10; d++)
        assert_int_equal(perft(&st, d), four[d]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_each_direction),
        cmocka_unit_test(test_several_directions),
        cmocka_unit_test(test_pass_then_wipeout),
        cmocka_unit_test(test_full_board),
        cmocka_unit_test(test_stuck_not_full),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_random_games),
        cmocka_unit_test(test_perft_8x8),
        cmocka_unit_test(test_perft_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
