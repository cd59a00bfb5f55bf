/*
 * gtk_geometry.h — where each cup or cell of a board lies in a window of a
 * given size, and which one a point falls in. Pure arithmetic on a
 * game_state: no GTK or cairo types, so it is tested without a display
 * (tests/gtk/test_gtk_geometry.c) and the drawing code (gtk_board.c), the
 * pointer and the keyboard all agree on one layout.
 *
 * Layouts, always from the viewer's side (the viewer is a seat; observers
 * see seat 0's side):
 *   - mancala, 2 seats: as the board lies on the table — the viewer's cups
 *     along the bottom left to right, their home on the right; the
 *     opponent's cups along the top right to left, their home on the left;
 *     a strip above and below for the row's owner.
 *   - mancala, more seats: one row per seat, the seat after the viewer
 *     first and the viewer last (nearest); a name column on the left and
 *     each row's home on the right.
 *   - reversi: size x size squares, cell = y*size + x, with a margin for the
 *     column letters and row numbers.
 *   - tic-tac-toe: 2D slices of n x n (x across, y down); the z slices side
 *     by side, one row of slices for each w; a label strip above each row.
 * Everything is scaled to fit and centred; cells are squares of side `unit`.
 */
#ifndef SUNGKA_GTK_GEOMETRY_H
#define SUNGKA_GTK_GEOMETRY_H

#include <stdbool.h>

#include "games.h"

typedef struct geo_rect {
    double x, y, w, h;
} geo_rect;

typedef enum geo_kind {
    GEO_NONE = 0,              /* nothing to lay out (no state, no room) */
    GEO_MANCALA_TWO,
    GEO_MANCALA_ROWS,
    GEO_SQUARES,               /* reversi */
    GEO_SLICES,                /* tic-tac-toe in 2..4 dimensions */
} geo_kind;

typedef struct geo_layout {
    geo_kind kind;
    int viewer;                /* the seat drawn nearest */
    int seats, cups;           /* mancala */
    int size, dims;            /* grids */
    int n_cells;
    double unit;               /* side of a cup or cell square, pixels */
    double x0, y0;             /* top left of the laid-out board */
    double width, height;      /* its extent */
    double label;              /* mancala rows: width of the name column;
                                * slices: height of a label strip */
    double gap;                /* slices: space between two slices */
} geo_layout;

/* Lay out st's board from `viewer`'s side (out of range: seat 0) in a
 * width x height area. A layout with no room (or st NULL) has kind GEO_NONE
 * and every hit is -1. */
void geo_layout_init(geo_layout *L, const game_state *st, int viewer, double width,
                     double height);

/* The rectangle of cell `cell` (0..n_cells-1): 0 and *out, or -1. */
int geo_cell_rect(const geo_layout *L, int cell, geo_rect *out);

/* The cell a point falls in, or -1 (outside every cell, or between them). */
int geo_hit(const geo_layout *L, double x, double y);

/* Mancala rows only: the strip where a seat's name goes (the band above or
 * below the row with two seats, the name column with more). -1 otherwise. */
int geo_seat_label_rect(const geo_layout *L, int seat, geo_rect *out);

/* Slices only: the label strip above the slice (z, w). -1 otherwise. */
int geo_slice_label_rect(const geo_layout *L, int z, int w, geo_rect *out);

/* The move that playing `cell` means for `seat`: a cup number of the seat's
 * own row for mancala (never a home), the cell itself for grids; -1 when
 * the cell is not one the seat could choose. */
int geo_cell_move(const game_state *st, int seat, int cell);

/* The inverse: the cell a move of `seat` is played at, or -1. */
int geo_move_cell(const game_state *st, int seat, int move);

/* Keyboard navigation: of `cells` (n of them), the one nearest to `from`
 * in the direction (dx, dy) (one of them ±1, the other 0), judged by the
 * centres of their rectangles; -1 when none lies that way. from < 0 picks
 * the first of `cells`. */
int geo_step(const geo_layout *L, int from, int dx, int dy, const int *cells, int n);

#endif /* SUNGKA_GTK_GEOMETRY_H */
