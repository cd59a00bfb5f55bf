/*
 * test_gtk_geometry.c — the GTK view's board layout and hit testing
 * (views/gtk/gtk_geometry.c), without a display: for every kind and many
 * window sizes (tiny and lopsided ones too), each cell's rectangle lies in
 * the window, its centre hits that cell, points outside every cell hit
 * nothing, and the layouts put things where the view promises (the viewer's
 * row nearest, sowing counter-clockwise, slices side by side).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "games.h"
#include "gtk_geometry.h"

static void new_game(game_state *st, const char *kind, const char *const *opts, int n)
{
    const game_kind *k = game_kind_find(kind);
    assert_non_null(k);
    game_options o;
    game_options_default(k, &o);
    char err[GAME_ERR_LEN];
    for (int i = 0; i < n; i++)
        assert_int_equal(game_options_parse(k, &o, opts[i], err, sizeof err), GAME_OK);
    assert_int_equal(game_new(st, k, &o, err, sizeof err), GAME_OK);
}

static const double sizes[][2] = {
    {640, 480}, {1024, 300}, {200, 900}, {333.3, 333.3}, {40, 30}, {7, 5}, {1, 1}, {3000, 17},
};
#define N_SIZES (int)(sizeof sizes / sizeof sizes[0])

/* Every cell: inside the window, its centre hits it; a few points outside
 * every cell hit nothing. */
static void check_layout(const game_state *st, int viewer, double w, double h)
{
    geo_layout L;
    geo_layout_init(&L, st, viewer, w, h);
    assert_int_not_equal(L.kind, GEO_NONE);
    assert_int_equal(L.n_cells, game_cell_count(st));
    assert_true(L.unit > 0);
    double eps = 1e-9 * (w + h);
    for (int c = 0; c < L.n_cells; c++) {
        geo_rect r;
        assert_int_equal(geo_cell_rect(&L, c, &r), 0);
        assert_true(r.w > 0 && r.h > 0);
        assert_true(r.x >= -eps && r.y >= -eps);
        assert_true(r.x + r.w <= w + eps && r.y + r.h <= h + eps);
        if (geo_hit(&L, r.x + r.w / 2, r.y + r.h / 2) != c)
            fail_msg("%s %gx%g viewer %d: the centre of cell %d hits %d", st->kind->name, w, h,
                     viewer, c, geo_hit(&L, r.x + r.w / 2, r.y + r.h / 2));
        /* just inside the top left corner: still the cell */
        assert_int_equal(geo_hit(&L, r.x + r.w * 0.01, r.y + r.h * 0.01), c);
    }
    assert_int_equal(geo_hit(&L, -1, -1), -1);
    assert_int_equal(geo_hit(&L, w + 1, h / 2), -1);
    assert_int_equal(geo_hit(&L, w / 2, -5), -1);
    assert_int_equal(geo_hit(&L, w / 2, h + 5), -1);
    assert_int_equal(geo_hit(&L, NAN, h / 2), -1);
    assert_int_equal(geo_hit(&L, L.x0 - L.unit * 0.01, L.y0 - L.unit * 0.01), -1);
    assert_int_equal(geo_hit(&L, L.x0 + L.width + L.unit * 0.01, L.y0 + L.height / 2), -1);
    geo_rect r;
    assert_int_equal(geo_cell_rect(&L, -1, &r), -1);
    assert_int_equal(geo_cell_rect(&L, L.n_cells, &r), -1);
}

static void check_all_sizes(const game_state *st)
{
    for (int v = 0; v < game_seats(st); v++)
        for (int i = 0; i < N_SIZES; i++)
            check_layout(st, v, sizes[i][0], sizes[i][1]);
}

static void test_round_trip_every_kind(void **state)
{
    (void)state;
    static const struct {
        const char *kind;
        const char *opts[3];
        int n;
    } cases[] = {
        {"sungka", {NULL}, 0},
        {"sungka", {"players=3", "cups=3"}, 2},
        {"sungka", {"players=6", "cups=12"}, 2},
        {"congklak", {NULL}, 0},
        {"kalah", {"cups=3"}, 1},
        {"kalah", {NULL}, 0},
        {"reversi", {NULL}, 0},
        {"reversi", {"size=4"}, 1},
        {"reversi", {"size=16"}, 1},
        {"tictactoe", {"size=3", "dims=2"}, 2},
        {"tictactoe", {"size=4", "dims=3", "players=3"}, 3},
        {"tictactoe", {"size=3", "dims=4", "players=4"}, 3},
        {"tictactoe", {"size=8", "dims=4"}, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        game_state st;
        new_game(&st, cases[i].kind, cases[i].opts, cases[i].n);
        check_all_sizes(&st);
    }
}

static void test_no_room_no_state(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "kalah", NULL, 0);
    geo_layout L;
    geo_rect r;
    const double bad[][2] = {{0, 0}, {0, 100}, {100, 0}, {-5, 100}, {NAN, 10}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        geo_layout_init(&L, &st, 0, bad[i][0], bad[i][1]);
        assert_int_equal(L.kind, GEO_NONE);
        assert_int_equal(geo_hit(&L, 0, 0), -1);
        assert_int_equal(geo_cell_rect(&L, 0, &r), -1);
    }
    geo_layout_init(&L, NULL, 0, 640, 480);
    assert_int_equal(L.kind, GEO_NONE);
    assert_int_equal(geo_hit(&L, 320, 240), -1);
}

static void centre(const geo_layout *L, int cell, double *x, double *y)
{
    geo_rect r;
    assert_int_equal(geo_cell_rect(L, cell, &r), 0);
    *x = r.x + r.w / 2;
    *y = r.y + r.h / 2;
}

/* Two seats as on the table: the viewer's cups along the bottom left to
 * right, home on the right; the other's along the top right to left, home
 * on the left. Seen from either seat. */
static void test_mancala_two_seats_viewer_nearest(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "sungka", NULL, 0);
    int cups = st.cups;
    for (int me = 0; me < 2; me++) {
        int them = 1 - me;
        geo_layout L;
        geo_layout_init(&L, &st, me, 800, 400);
        assert_int_equal(L.kind, GEO_MANCALA_TWO);
        double x0, y0, x1, y1, tx, ty, hx, hy, ohx, ohy;
        centre(&L, game_mancala_cup(&st, me, 0), &x0, &y0);
        centre(&L, game_mancala_home(&st, me), &hx, &hy);
        centre(&L, game_mancala_home(&st, them), &ohx, &ohy);
        for (int c = 1; c < cups; c++) {
            centre(&L, game_mancala_cup(&st, me, c), &x1, &y1);
            assert_true(x1 > x0);                     /* left to right */
            assert_true(fabs(y1 - y0) < 1e-9);
            centre(&L, game_mancala_cup(&st, them, c), &tx, &ty);
            assert_true(ty < y1);                     /* theirs above ours */
            x0 = x1;
        }
        assert_true(hx > x0);                         /* our home on the right */
        centre(&L, game_mancala_cup(&st, them, 0), &tx, &ty);
        assert_true(fabs(tx - x0) < 1e-9);            /* their cup 0 above our last */
        assert_true(ohx < tx);                        /* their home on the left */
        /* the homes span both rows: a point at the height of either row hits */
        geo_rect hr;
        assert_int_equal(geo_cell_rect(&L, game_mancala_home(&st, me), &hr), 0);
        assert_int_equal(geo_hit(&L, hx, y0), game_mancala_home(&st, me));
        assert_int_equal(geo_hit(&L, hx, ty), game_mancala_home(&st, me));
        /* the name strips hold no cell */
        geo_rect lr;
        assert_int_equal(geo_seat_label_rect(&L, me, &lr), 0);
        assert_true(lr.y > y0);
        assert_int_equal(geo_hit(&L, lr.x + lr.w / 2, lr.y + lr.h / 2), -1);
        assert_int_equal(geo_seat_label_rect(&L, them, &lr), 0);
        assert_true(lr.y + lr.h <= ty);
        assert_int_equal(geo_hit(&L, lr.x + lr.w / 2, lr.y + lr.h / 2), -1);
    }
}

/* More seats: one row each, the seat after the viewer at the top, the
 * viewer at the bottom; names on the left, homes on the right. */
static void test_mancala_rows(void **state)
{
    (void)state;
    game_state st;
    const char *opts[] = {"players=4"};
    new_game(&st, "sungka", opts, 1);
    for (int me = 0; me < 4; me++) {
        geo_layout L;
        geo_layout_init(&L, &st, me, 900, 500);
        assert_int_equal(L.kind, GEO_MANCALA_ROWS);
        double prev_y = -1;
        for (int k = 1; k <= 4; k++) {
            int s = (me + k) % 4;
            double x, y, hx, hy, x1, y1;
            centre(&L, game_mancala_cup(&st, s, 0), &x, &y);
            centre(&L, game_mancala_cup(&st, s, 1), &x1, &y1);
            centre(&L, game_mancala_home(&st, s), &hx, &hy);
            assert_true(y > prev_y);
            assert_true(x1 > x && hx > x1);
            geo_rect lr;
            assert_int_equal(geo_seat_label_rect(&L, s, &lr), 0);
            assert_true(lr.x + lr.w <= x);
            assert_int_equal(geo_hit(&L, lr.x + lr.w / 2, y), -1);
            prev_y = y;
        }
        double x, y;
        centre(&L, game_mancala_cup(&st, me, 0), &x, &y);
        assert_true(fabs(y - prev_y) < 1e-9);        /* the viewer last */
    }
}

static void test_reversi_grid(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "reversi", NULL, 0);
    geo_layout L;
    geo_layout_init(&L, &st, 1, 500, 700);        /* tall: squares stay square */
    assert_int_equal(L.kind, GEO_SQUARES);
    geo_rect r0, r1, r8;
    assert_int_equal(geo_cell_rect(&L, 0, &r0), 0);
    assert_int_equal(geo_cell_rect(&L, 1, &r1), 0);
    assert_int_equal(geo_cell_rect(&L, 8, &r8), 0);
    assert_true(fabs(r0.w - r0.h) < 1e-9);
    assert_true(fabs(r1.x - (r0.x + r0.w)) < 1e-9 && fabs(r1.y - r0.y) < 1e-9);
    assert_true(fabs(r8.y - (r0.y + r0.h)) < 1e-9 && fabs(r8.x - r0.x) < 1e-9);
    /* on the line between two cells: one of them; just either side: each */
    int on = geo_hit(&L, r1.x, r1.y + r1.h / 2);
    assert_true(on == 0 || on == 1);
    assert_int_equal(geo_hit(&L, r1.x + 1e-6, r1.y + r1.h / 2), 1);
    assert_int_equal(geo_hit(&L, r1.x - 1e-6, r1.y + r1.h / 2), 0);
    /* the coordinate margins hold no cell */
    assert_int_equal(geo_hit(&L, r0.x + r0.w / 2, r0.y - r0.h / 4), -1);
    assert_int_equal(geo_hit(&L, r0.x - r0.w / 4, r0.y + r0.h / 2), -1);
    /* centred in the free direction */
    assert_true(fabs(L.x0 - (500 - L.width) / 2) < 1e-9);
    assert_true(fabs(L.y0 - (700 - L.height) / 2) < 1e-9);
}

/* Tic-tac-toe: x across, y down inside a slice; z slices side by side; a
 * row of slices for each w; nothing between slices or in their labels. */
static void test_tictactoe_slices(void **state)
{
    (void)state;
    game_state st;
    const char *opts[] = {"size=3", "dims=4"};
    new_game(&st, "tictactoe", opts, 2);
    geo_layout L;
    geo_layout_init(&L, &st, 0, 1000, 800);
    assert_int_equal(L.kind, GEO_SLICES);
    int n = 3;
    geo_rect a, b;
    /* cell = x + n*y + n²*z + n³*w */
    assert_int_equal(geo_cell_rect(&L, 1, &b), 0);
    assert_int_equal(geo_cell_rect(&L, 0, &a), 0);
    assert_true(b.x > a.x && fabs(b.y - a.y) < 1e-9);
    assert_int_equal(geo_cell_rect(&L, n, &b), 0);
    assert_true(b.y > a.y && fabs(b.x - a.x) < 1e-9);
    geo_rect z1, w1;
    assert_int_equal(geo_cell_rect(&L, n * n, &z1), 0);
    assert_true(z1.x > a.x + n * a.w && fabs(z1.y - a.y) < 1e-9);   /* beside, past a gap */
    assert_int_equal(geo_hit(&L, (a.x + n * a.w + z1.x) / 2, a.y + a.h / 2), -1);
    assert_int_equal(geo_cell_rect(&L, n * n * n, &w1), 0);
    assert_true(w1.y > a.y + n * a.h && fabs(w1.x - a.x) < 1e-9);   /* below */
    geo_rect lr;
    assert_int_equal(geo_slice_label_rect(&L, 1, 2, &lr), 0);
    assert_int_equal(geo_hit(&L, lr.x + lr.w / 2, lr.y + lr.h / 2), -1);
    assert_int_equal(geo_slice_label_rect(&L, 3, 0, &lr), -1);
    /* 2D has no labels and no gaps */
    const char *flat[] = {"size=3", "dims=2"};
    new_game(&st, "tictactoe", flat, 2);
    geo_layout_init(&L, &st, 0, 300, 300);
    assert_int_equal(geo_slice_label_rect(&L, 0, 0, &lr), -1);
    assert_int_equal(L.label, 0);
}

static void test_moves_and_cells(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "kalah", NULL, 0);
    int cups = st.cups;
    for (int seat = 0; seat < 2; seat++) {
        for (int c = 0; c < cups; c++) {
            int cell = geo_move_cell(&st, seat, c);
            assert_int_equal(cell, game_mancala_cup(&st, seat, c));
            assert_int_equal(geo_cell_move(&st, seat, cell), c);
            assert_int_equal(geo_cell_move(&st, 1 - seat, cell), -1);   /* not your cup */
        }
        assert_int_equal(geo_cell_move(&st, seat, game_mancala_home(&st, seat)), -1);
        assert_int_equal(geo_move_cell(&st, seat, cups), -1);
        assert_int_equal(geo_move_cell(&st, seat, -1), -1);
    }
    assert_int_equal(geo_move_cell(&st, 2, 0), -1);
    assert_int_equal(geo_cell_move(&st, 0, -1), -1);
    assert_int_equal(geo_cell_move(&st, 0, game_cell_count(&st)), -1);
    new_game(&st, "reversi", NULL, 0);
    assert_int_equal(geo_cell_move(&st, 1, 27), 27);
    assert_int_equal(geo_move_cell(&st, 0, 63), 63);
    assert_int_equal(geo_move_cell(&st, 0, 64), -1);
}

static void test_keyboard_steps(void **state)
{
    (void)state;
    game_state st;
    new_game(&st, "kalah", NULL, 0);
    geo_layout L;
    geo_layout_init(&L, &st, 1, 800, 400);
    /* seat 1's legal cups 0, 2, 5 */
    int cells[] = {game_mancala_cup(&st, 1, 0), game_mancala_cup(&st, 1, 2),
                   game_mancala_cup(&st, 1, 5)};
    assert_int_equal(geo_step(&L, -1, 1, 0, cells, 3), cells[0]);
    assert_int_equal(geo_step(&L, cells[0], 1, 0, cells, 3), cells[1]);
    assert_int_equal(geo_step(&L, cells[1], 1, 0, cells, 3), cells[2]);
    assert_int_equal(geo_step(&L, cells[2], 1, 0, cells, 3), -1);
    assert_int_equal(geo_step(&L, cells[2], -1, 0, cells, 3), cells[1]);
    assert_int_equal(geo_step(&L, cells[0], -1, 0, cells, 3), -1);
    assert_int_equal(geo_step(&L, cells[0], 0, -1, cells, 3), -1);   /* one row only */
    assert_int_equal(geo_step(&L, cells[0], 1, 0, cells, 0), -1);
    /* a grid: down stays in the column when it can */
    new_game(&st, "reversi", NULL, 0);
    geo_layout_init(&L, &st, 0, 600, 600);
    /* d3 (19), c4 (26), f5 (37), e6 (44), e3 (20) */
    int grid[] = {19, 26, 37, 44, 20};
    assert_int_equal(geo_step(&L, 19, 0, 1, grid, 5), 26);   /* nearest below, one off */
    assert_int_equal(geo_step(&L, 20, 0, 1, grid, 5), 44);   /* straight down beats nearer */
    assert_int_equal(geo_step(&L, 19, 1, 0, grid, 5), 20);
    assert_int_equal(geo_step(&L, 44, -1, 0, grid, 5), 26);
    assert_int_equal(geo_step(&L, 26, -1, 0, grid, 5), -1);  /* nothing further left */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_kind),
        cmocka_unit_test(test_no_room_no_state),
        cmocka_unit_test(test_mancala_two_seats_viewer_nearest),
        cmocka_unit_test(test_mancala_rows),
        cmocka_unit_test(test_reversi_grid),
        cmocka_unit_test(test_tictactoe_slices),
        cmocka_unit_test(test_moves_and_cells),
        cmocka_unit_test(test_keyboard_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
