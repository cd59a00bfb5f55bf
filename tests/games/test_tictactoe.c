/*
 * test_tictactoe.c — the `tictactoe` kind: the line table (exact counts, the
 * formula for every size and dimension, every line a real line and none
 * twice), wins along every kind of line in 2, 3 and 4 dimensions, every line
 * of every table winning when completed, a drawn 3x3 game, 3 and 4 seats,
 * errors, options, random games checked after every move against a naive
 * win test written here (by coordinates, not the table), and perft of 3x3
 * against the known counts.
 */
#include "games_test.h"

#include <stdlib.h>
#include <string.h>

static const game_kind *tictactoe(void)
{
    const game_kind *k = game_kind_find("tictactoe");
    assert_non_null(k);
    return k;
}

static void new_ttt(game_state *st, int n, int d, int players)
{
    const game_kind *k = tictactoe();
    game_options o;
    char err[GAME_ERR_LEN] = "";
    game_options_default(k, &o);
    assert_int_equal(game_options_set(k, &o, "size", n, err, sizeof err), GAME_OK);
    assert_int_equal(game_options_set(k, &o, "dims", d, err, sizeof err), GAME_OK);
    assert_int_equal(game_options_set(k, &o, "players", players, err, sizeof err), GAME_OK);
    assert_int_equal(game_new(st, k, &o, err, sizeof err), GAME_OK);
}

static int ipow(int b, int e)
{
    int r = 1;
    while (e-- > 0)
        r *= b;
    return r;
}

static void coords(int cell, int n, int d, int *c)
{
    for (int i = 0; i < d; i++, cell /= n)
        c[i] = cell % n;
}

static int cell_at(const int *c, int n, int d)
{
    int cell = 0;
    for (int i = d - 1; i >= 0; i--)
        cell = cell * n + c[i];
    return cell;
}

/* Does `value` fill a line through `cell`? By coordinates alone: for each
 * direction v (first non-zero +1) the line through cell exists when every
 * moving coordinate sits at the same step k along it. */
static bool naive_win_at(const game_state *st, int cell, int value)
{
    int n = st->size, d = st->dims, c[4], dirs = ipow(3, d);
    coords(cell, n, d, c);
    for (int code = 0; code < dirs; code++) {
        int v[4], first = 0;
        for (int i = 0, x = code; i < d; i++, x /= 3) {
            v[i] = x % 3 - 1;
            if (!first && v[i])
                first = v[i];
        }
        if (first != 1)
            continue;
        int k = -1;
        bool on = true;
        for (int i = 0; i < d && on; i++) {
            if (v[i] == 0)
                continue;
            int step = v[i] > 0 ? c[i] : n - 1 - c[i];
            if (k < 0)
                k = step;
            else if (k != step)
                on = false;
        }
        if (!on)
            continue;
        bool full = true;
        for (int j = 0; j < n && full; j++) {
            int p[4];
            for (int i = 0; i < d; i++)
                p[i] = v[i] == 0 ? c[i] : v[i] > 0 ? j : n - 1 - j;
            full = game_cell(st, cell_at(p, n, d)) == value;
        }
        if (full)
            return true;
    }
    return false;
}

static void play_ok(game_state *st, int seat, int cell, game_result *r)
{
    char err[GAME_ERR_LEN] = "";
    int rc = game_play(st, seat, cell, r, err, sizeof err);
    if (rc != GAME_OK)
        fail_msg("seat %d cell %d: %d %s", seat, cell, rc, err);
}

/* --- the line table --- */

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static int cmp_line8(const void *a, const void *b)
{
    return memcmp(a, b, 8 * sizeof(int));
}

static void test_line_counts(void **state)
{
    (void)state;
    assert_int_equal(game__tictactoe_line_count(3, 2), 8);
    assert_int_equal(game__tictactoe_line_count(4, 3), 76);
    /* docs/rules.md §5: ((n+2)^d - n^d)/2, so 520 for 4^4 (the seed's 272
     * is 3^4's count, (5^4 - 3^4)/2). */
    assert_int_equal(game__tictactoe_line_count(4, 4), 520);
    assert_int_equal(game__tictactoe_line_count(3, 4), 272);
    assert_int_equal(game__tictactoe_line_count(3, 3), 49);
    assert_int_equal(game__tictactoe_line_count(8, 4), 2952);
    assert_int_equal(game__tictactoe_line_count(2, 2), -1);
    assert_int_equal(game__tictactoe_line_count(9, 2), -1);
    assert_int_equal(game__tictactoe_line_count(3, 5), -1);
    int cells[8];
    assert_int_equal(game__tictactoe_line(3, 2, 8, cells), GAME_E_RANGE);
    assert_int_equal(game__tictactoe_line(3, 2, -1, cells), GAME_E_RANGE);

    static int lines[3000][8];
    for (int n = 3; n <= 8; n++)
        for (int d = 2; d <= 4; d++) {
            int count = game__tictactoe_line_count(n, d);
            assert_int_equal(count, (ipow(n + 2, d) - ipow(n, d)) / 2);
            assert_true(count <= 3000);
            for (int l = 0; l < count; l++) {
                assert_int_equal(game__tictactoe_line(n, d, l, cells), GAME_OK);
                /* n cells on the board, one constant step in {-1,0,1}^d. */
                int a[4], b[4], step[4];
                for (int k = 0; k < n; k++)
                    assert_true(cells[k] >= 0 && cells[k] < ipow(n, d));
                coords(cells[0], n, d, a);
                coords(cells[1], n, d, b);
                bool moving = false;
                for (int i = 0; i < d; i++) {
                    step[i] = b[i] - a[i];
                    assert_true(step[i] >= -1 && step[i] <= 1);
                    moving |= step[i] != 0;
                }
                assert_true(moving);
                for (int k = 1; k < n; k++) {
                    coords(cells[k], n, d, b);
                    for (int i = 0; i < d; i++)
                        assert_int_equal(b[i], a[i] + k * step[i]);
                }
                /* Sorted, padded: a key to find duplicates. */
                memset(lines[l], 0xff, sizeof lines[l]);
                memcpy(lines[l], cells, sizeof(int) * (size_t)n);
                qsort(lines[l], (size_t)n, sizeof(int), cmp_int);
            }
            qsort(lines, (size_t)count, sizeof lines[0], cmp_line8);
            for (int l = 1; l < count; l++)
                if (memcmp(lines[l - 1], lines[l], sizeof lines[l]) == 0)
                    fail_msg("n=%d d=%d: a line appears twice", n, d);
        }
}

/* Every line of every table wins for the seat that completes it, whichever
 * of its cells comes last (that cell cycles with the line number), and a
 * line one short does not. */
static void test_every_line_wins(void **state)
{
    (void)state;
    static int cells[GAME_MAX_CELLS];
    for (int n = 3; n <= 8; n++)
        for (int d = 2; d <= 4; d++) {
            game_state st, start;
            new_ttt(&start, n, d, 2);
            int count = game__tictactoe_line_count(n, d), total = ipow(n, d);
            for (int l = 0; l < count; l++) {
                int line[8];
                assert_int_equal(game__tictactoe_line(n, d, l, line), GAME_OK);
                memset(cells, 0, sizeof(int) * (size_t)total);
                int last = line[l % n];
                for (int k = 0; k < n; k++)
                    if (line[k] != last)
                        cells[line[k]] = 2; /* seat 1 */
                st = start;
                assert_int_equal(game_load(&st, cells, total, 1, false), GAME_OK);
                int scores[GAME_MAX_SEATS];
                game_scores(&st, scores);
                assert_int_equal(scores[1], 0);
                game_result r;
                play_ok(&st, 1, last, &r);
                if (!game_is_over(&st))
                    fail_msg("n=%d d=%d line %d: cell %d did not win", n, d, l, last);
                int winners[GAME_MAX_SEATS];
                assert_int_equal(game_winners(&st, winners), 1);
                assert_int_equal(winners[0], 1);
            }
        }
}

/* --- wins by kind of line --- */

/* Seat `winner` plays `line` (n cells, in that order); the other seats play
 * the lowest free cells off the line that do not give them a line. The game
 * must end exactly at the winner's last cell. */
static void win_along(int n, int d, int players, int winner, const int *line)
{
    game_state st;
    new_ttt(&st, n, d, players);
    bool on_line[GAME_MAX_CELLS] = {false};
    for (int k = 0; k < n; k++)
        on_line[line[k]] = true;
    int next_line = 0;
    game_result r;
    for (int turn = 0; !game_is_over(&st); turn++) {
        int seat = game_to_move(&st);
        assert_int_equal(seat, turn % players);
        int cell = -1;
        if (seat == winner) {
            cell = line[next_line++];
        } else {
            for (int c = 0; c < game_cell_count(&st) && cell < 0; c++) {
                if (on_line[c] || game_cell(&st, c) != 0)
                    continue;
                game_state probe = st;
                probe.cells[c] = (int16_t)(seat + 1);
                if (!naive_win_at(&probe, c, seat + 1))
                    cell = c;
            }
            assert_true(cell >= 0);
        }
        play_ok(&st, seat, cell, &r);
        assert_int_equal(r.n_steps, 1);
        assert_int_equal(r.steps[0].cell, cell);
        assert_int_equal(r.steps[0].value, seat + 1);
        assert_int_equal(r.captured, 0);
        if (next_line < n || seat != winner) {
            if (game_is_over(&st))
                fail_msg("over early at cell %d (seat %d)", cell, seat);
            assert_int_equal(r.next, (seat + 1) % players);
        }
    }
    assert_int_equal(next_line, n);
    assert_int_equal(r.next, -1);
    assert_int_equal(game_to_move(&st), -1);
    int winners[GAME_MAX_SEATS], scores[GAME_MAX_SEATS];
    assert_int_equal(game_winners(&st, winners), 1);
    assert_int_equal(winners[0], winner);
    game_scores(&st, scores);
    for (int s = 0; s < players; s++)
        assert_int_equal(scores[s], s == winner);
    char err[GAME_ERR_LEN];
    assert_int_equal(game_check(&st, 0, line[0], err, sizeof err), GAME_E_OVER);
}

static void test_wins_2d(void **state)
{
    (void)state;
    static const int row[] = {3, 4, 5}, col[] = {1, 4, 7}, diag[] = {0, 4, 8},
                     anti[] = {6, 4, 2}, row0[] = {2, 0, 1};
    win_along(3, 2, 2, 0, row);
    win_along(3, 2, 2, 0, col);
    win_along(3, 2, 2, 0, diag);
    win_along(3, 2, 2, 0, anti);
    win_along(3, 2, 2, 1, row0);
    win_along(3, 2, 2, 1, diag);
    /* 8x8: the anti-diagonal (7,0)..(0,7) = 7, 14, ..., 56. */
    static const int anti8[] = {7, 14, 21, 28, 35, 42, 49, 56};
    win_along(8, 2, 2, 0, anti8);
    static const int col8[] = {5, 13, 21, 29, 37, 45, 53, 61};
    win_along(8, 2, 2, 1, col8);
}

static void test_wins_3d(void **state)
{
    (void)state;
    /* 4x4x4 (Qubic): index x + 4y + 16z. */
    static const int space[] = {0, 21, 42, 63};       /* (k,k,k) */
    static const int space2[] = {3, 22, 41, 60};      /* (3-k,k,k) */
    static const int space3[] = {48, 37, 26, 15};     /* (k,k,3-k) */
    static const int pillar[] = {5, 21, 37, 53};      /* (1,1,k) */
    static const int plane_diag[] = {2, 22, 42, 62};  /* (2,k,k) */
    static const int plane_anti[] = {12, 24, 36, 48}; /* (0,3-k,k) */
    win_along(4, 3, 2, 0, space);
    win_along(4, 3, 2, 1, space2);
    win_along(4, 3, 2, 0, space3);
    win_along(4, 3, 2, 0, pillar);
    win_along(4, 3, 2, 1, plane_diag);
    win_along(4, 3, 2, 0, plane_anti);
    /* 3x3x3: the centre space diagonal (0,0,0),(1,1,1),(2,2,2). */
    static const int centre[] = {0, 13, 26};
    win_along(3, 3, 2, 0, centre);
}

static void test_wins_4d(void **state)
{
    (void)state;
    /* 4^4: index x0 + 4 x1 + 16 x2 + 64 x3. */
    static const int hyper[] = {0, 85, 170, 255};      /* (k,k,k,k) */
    static const int hyper2[] = {192, 149, 106, 63};   /* (k,k,k,3-k) */
    static const int plane[] = {128, 145, 162, 179};   /* (k,0,k,2): a 2D diagonal */
    static const int row[] = {228, 229, 230, 231};     /* (k,1,2,3) */
    static const int axis3[] = {57, 121, 185, 249};    /* (1,2,3,k) */
    win_along(4, 4, 2, 0, hyper);
    win_along(4, 4, 2, 1, hyper2);
    win_along(4, 4, 2, 0, plane);
    win_along(4, 4, 2, 0, row);
    win_along(4, 4, 2, 1, axis3);
    /* A 3D diagonal inside a 4D board: (k, 3-k, 1, k) = k + 4(3-k) + 16 + 64k. */
    int d3[4];
    for (int k = 0; k < 4; k++)
        d3[k] = k + 4 * (3 - k) + 16 + 64 * k;
    win_along(4, 4, 2, 0, d3);
    /* 3^4: the hyper-diagonal through the centre (k,k,k,k) = 40k. */
    static const int h3[] = {0, 40, 80};
    win_along(3, 4, 2, 0, h3);
}

/* --- draws and seats --- */

static void test_draw_3x3(void **state)
{
    (void)state;
    /* X 4, O 0, X 2, O 6, X 3, O 5, X 7, O 1, X 8:
     *   O O X
     *   X X O
     *   O X X   no line: a draw. */
    static const int game[] = {4, 0, 2, 6, 3, 5, 7, 1, 8};
    game_state st;
    new_ttt(&st, 3, 2, 2);
    game_result r;
    for (int i = 0; i < 9; i++) {
        assert_false(game_is_over(&st));
        play_ok(&st, i % 2, game[i], &r);
    }
    assert_true(game_is_over(&st));
    assert_int_equal(r.next, -1);
    int winners[GAME_MAX_SEATS], scores[GAME_MAX_SEATS];
    assert_int_equal(game_winners(&st, winners), 0);
    game_scores(&st, scores);
    assert_int_equal(scores[0], 0);
    assert_int_equal(scores[1], 0);
    int moves[GAME_MAX_MOVES];
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 0);

    /* A last move that fills the board and completes a line is a win:
     *   X O X
     *   O X O
     *   O X X   (X's 8 closes the diagonal 0 4 8) */
    static const int win9[] = {0, 1, 2, 3, 4, 5, 7, 6, 8};
    new_ttt(&st, 3, 2, 2);
    for (int i = 0; i < 9; i++) {
        assert_false(game_is_over(&st));
        play_ok(&st, i % 2, win9[i], &r);
    }
    assert_true(game_is_over(&st));
    assert_int_equal(game_winners(&st, winners), 1);
    assert_int_equal(winners[0], 0);
    game_scores(&st, scores);
    assert_int_equal(scores[0], 1);
    assert_int_equal(scores[1], 0);
}

static void test_seats(void **state)
{
    (void)state;
    game_state st;
    new_ttt(&st, 3, 2, 3);
    assert_int_equal(game_seats(&st), 3);
    game_result r;
    play_ok(&st, 0, 0, &r);
    assert_int_equal(r.next, 1);
    play_ok(&st, 1, 1, &r);
    assert_int_equal(r.next, 2);
    play_ok(&st, 2, 2, &r);
    assert_int_equal(r.next, 0);
    assert_int_equal(game_cell(&st, 0), 1);
    assert_int_equal(game_cell(&st, 1), 2);
    assert_int_equal(game_cell(&st, 2), 3);
    char err[GAME_ERR_LEN];
    assert_int_equal(game_check(&st, 2, 3, err, sizeof err), GAME_E_TURN);
    assert_string_equal(err, "it is seat 0's turn");

    /* Three seats on 4x4x4: seat 2 wins the space diagonal. */
    static const int space[] = {0, 21, 42, 63};
    win_along(4, 3, 3, 2, space);
    /* Four seats: seat 3 wins a 4D row, seat 1 a hyper-diagonal. */
    static const int row[] = {228, 229, 230, 231};
    win_along(4, 4, 4, 3, row);
    static const int hyper[] = {0, 85, 170, 255};
    win_along(4, 4, 4, 1, hyper);
    win_along(5, 3, 4, 2, (const int[]){0, 31, 62, 93, 124});

    /* Four seats on 3x3 fill it without a line: O and the others block. */
    static const int fill[] = {0, 1, 2, 3, 5, 4, 6, 8, 7};
    new_ttt(&st, 3, 2, 4);
    for (int i = 0; i < 9; i++) {
        assert_false(game_is_over(&st));
        play_ok(&st, i % 4, fill[i], &r);
    }
    /* Seat 0 holds 0, 5, 7; seat 1: 1, 6; seat 2: 2, 8; seat 3: 3, 4. */
    assert_true(game_is_over(&st));
    int winners[GAME_MAX_SEATS];
    assert_int_equal(game_winners(&st, winners), 0);
}

/* --- errors and options --- */

static void test_errors(void **state)
{
    (void)state;
    game_state st, copy;
    new_ttt(&st, 3, 4, 2);
    assert_int_equal(game_cell_count(&st), 81);
    game_result r;
    play_ok(&st, 0, 40, &r);
    copy = st;
    char err[GAME_ERR_LEN];
    static const struct {
        int seat, cell, code;
        const char *text;
    } bad[] = {
        {1, 81, GAME_E_RANGE, "cell 81 is out of range 0..80"},
        {1, -1, GAME_E_RANGE, "cell -1 is out of range 0..80"},
        {1, 40, GAME_E_OCCUPIED, "cell 40 is taken"},
        {0, 3, GAME_E_TURN, "it is seat 1's turn"},
        {2, 3, GAME_E_TURN, "it is seat 1's turn"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        int rc = game_play(&st, bad[i].seat, bad[i].cell, &r, err, sizeof err);
        if (rc != bad[i].code || strcmp(err, bad[i].text) != 0)
            fail_msg("seat %d cell %d gave %d '%s', expected %d '%s'", bad[i].seat, bad[i].cell,
                     rc, err, bad[i].code, bad[i].text);
        assert_memory_equal(&st, &copy, sizeof st);
    }
    /* After the end every move is refused. */
    new_ttt(&st, 3, 2, 2);
    static const int quick[] = {0, 3, 1, 4, 2};
    for (int i = 0; i < 5; i++)
        play_ok(&st, i % 2, quick[i], &r);
    assert_true(game_is_over(&st));
    assert_int_equal(game_play(&st, 1, 8, &r, err, sizeof err), GAME_E_OVER);
    assert_string_equal(err, "the game is over");
}

static void test_options(void **state)
{
    (void)state;
    const game_kind *k = tictactoe();
    assert_int_equal(k->layout, GAME_LAYOUT_GRID);
    game_options o;
    char err[GAME_ERR_LEN];
    game_options_default(k, &o);
    assert_int_equal(o.n, 3);
    assert_int_equal(game_option(k, &o, "size", -1), 4);
    assert_int_equal(game_option(k, &o, "dims", -1), 4);
    assert_int_equal(game_option(k, &o, "players", -1), 2);
    game_state st;
    assert_int_equal(game_new(&st, k, NULL, err, sizeof err), GAME_OK);
    assert_int_equal(game_cell_count(&st), 256);
    assert_int_equal(game_seats(&st), 2);
    assert_int_equal(st.size, 4);
    assert_int_equal(st.dims, 4);
    int moves[GAME_MAX_MOVES];
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 256);
    assert_int_equal(game_legal_moves(&st, moves, 10), 10);
    assert_int_equal(moves[9], 9);

    game_options before = o;
    static const struct {
        const char *text, *error;
    } bad[] = {
        {"size=2", "size must be 3..8, not 2"},       {"size=9", "size must be 3..8, not 9"},
        {"dims=1", "dims must be 2..4, not 1"},       {"dims=5", "dims must be 2..4, not 5"},
        {"players=1", "players must be 2..4, not 1"}, {"players=5", "players must be 2..4, not 5"},
        {"cups=3", "tictactoe has no option 'cups' (options: size, dims, players)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(game_options_parse(k, &o, bad[i].text, err, sizeof err), GAME_E_OPTION);
        assert_string_equal(err, bad[i].error);
        assert_memory_equal(&o, &before, sizeof o);
    }
    o.value[1] = 5;
    assert_int_equal(game_new(&st, k, &o, err, sizeof err), GAME_E_OPTION);
    assert_string_equal(err, "dims must be 2..4, not 5");

    /* The largest board: 8^4 = 4096 cells, its last cell playable. */
    new_ttt(&st, 8, 4, 4);
    assert_int_equal(game_cell_count(&st), GAME_MAX_CELLS);
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 4096);
    game_result r;
    play_ok(&st, 0, 4095, &r);
    assert_int_equal(game_cell(&st, 4095), 1);
    assert_int_equal(r.next, 1);
}

/* game_load rebuilds the counters: the fill count (a draw when the board
 * fills) and the winner. */
static void test_load(void **state)
{
    (void)state;
    game_state st;
    new_ttt(&st, 3, 2, 2);
    int cells[9] = {1, 2, 1, 1, 2, 2, 2, 1, 0};
    assert_int_equal(game_load(&st, cells, 9, 0, false), GAME_OK);
    game_result r;
    play_ok(&st, 0, 8, &r); /* fills the board: X 0 2 3 7 8 makes no line */
    assert_true(game_is_over(&st));
    int winners[GAME_MAX_SEATS];
    assert_int_equal(game_winners(&st, winners), 0);

    int won[9] = {2, 2, 2, 1, 1, 0, 1, 0, 0};
    assert_int_equal(game_load(&st, won, 9, -1, true), GAME_OK);
    assert_int_equal(game_winners(&st, winners), 1);
    assert_int_equal(winners[0], 1);
    int cells3[9] = {3, 0, 0, 0, 0, 0, 0, 0, 0};
    assert_int_equal(game_load(&st, cells3, 9, 0, false), GAME_E_RANGE);
}

/* --- random games against the naive win test --- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t next_rand(void)
{
    return test_rand(&rng);
}

static void random_game(int n, int d, int players)
{
    game_state st;
    new_ttt(&st, n, d, players);
    int total = ipow(n, d), plies = 0;
    static int moves[GAME_MAX_MOVES];
    while (!game_is_over(&st)) {
        int seat = game_to_move(&st);
        assert_int_equal(seat, plies % players);
        int count = game_legal_moves(&st, moves, GAME_MAX_MOVES);
        assert_int_equal(count, total - plies);
        for (int i = 1; i < count; i++)
            assert_true(moves[i - 1] < moves[i]);
        int cell = moves[next_rand() % (unsigned)count];
        assert_int_equal(game_cell(&st, cell), 0);
        game_result r;
        play_ok(&st, seat, cell, &r);
        plies++;
        bool win = naive_win_at(&st, cell, seat + 1);
        int winners[GAME_MAX_SEATS];
        if (win) {
            assert_true(game_is_over(&st));
            assert_int_equal(game_winners(&st, winners), 1);
            assert_int_equal(winners[0], seat);
        } else if (plies == total) {
            assert_true(game_is_over(&st));
            assert_int_equal(game_winners(&st, winners), 0);
        } else {
            assert_false(game_is_over(&st));
            assert_int_equal(r.next, (seat + 1) % players);
        }
        assert_true(plies <= total);
    }
}

static void test_random_games(void **state)
{
    (void)state;
    for (int n = 3; n <= 8; n++)
        for (int d = 2; d <= 4; d++)
            for (int p = 2; p <= 4; p++) {
                int games = ipow(n, d) <= 100 ? 50 : ipow(n, d) <= 1000 ? 5 : 1;
                for (int g = 0; g < games; g++)
                    random_game(n, d, p);
            }
}

/* --- perft --- */

static long long perft(const game_state *st, int depth)
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
        total += left <= 0 ? 1 : perft(&child, left);
    }
    return total;
}

/* Games that ended before depth k stop: the known counts for 3x3 (games
 * ending at moves 5..9: 1440, 5328, 47952, 72576, 127872; 255168 in all). */
static void test_perft_3x3(void **state)
{
    (void)state;
    static const long long known[] = {1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872};
    game_state st;
    new_ttt(&st, 3, 2, 2);
    for (int d = 1; d <= 9; d++)
        assert_int_equal(perft(&st, d), known[d]);
    assert_int_equal(perft(&st, 10), 0);

    /* Qubic: nobody can win before move 7, so perft(k) = 64!/(64-k)! */
    new_ttt(&st, 4, 3, 2);
    long long want = 1;
    for (int d = 1; d <= 3; d++) {
        want *= 64 - (d - 1);
        assert_int_equal(perft(&st, d), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_counts),
        cmocka_unit_test(test_every_line_wins),
        cmocka_unit_test(test_wins_2d),
        cmocka_unit_test(test_wins_3d),
        cmocka_unit_test(test_wins_4d),
        cmocka_unit_test(test_draw_3x3),
        cmocka_unit_test(test_seats),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_random_games),
        cmocka_unit_test(test_perft_3x3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
