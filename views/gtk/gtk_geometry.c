/*
 * gtk_geometry.c — board layout and hit testing for the GTK view (see
 * gtk_geometry.h). Every function is pure; rectangles are half-open
 * ([x, x+w) × [y, y+h)), so a point on the line between two cells belongs to
 * one of them, not both (floating point may shift the line by an ulp).
 */
#include <math.h>
#include <string.h>

#include "gtk_geometry.h"

/* The room left around the board, as a share of the smaller side. */
#define MARGIN_SHARE 0.03

static double min2(double a, double b)
{
    return a < b ? a : b;
}

/* Fit a board of cols x rows units into the area, centred. */
static void fit(geo_layout *L, double width, double height, double cols, double rows)
{
    double m = min2(width, height) * MARGIN_SHARE;
    double u = min2((width - 2 * m) / cols, (height - 2 * m) / rows);
    if (!(u > 0)) {
        L->kind = GEO_NONE;
        return;
    }
    L->unit = u;
    L->width = cols * u;
    L->height = rows * u;
    L->x0 = (width - L->width) / 2;
    L->y0 = (height - L->height) / 2;
}

void geo_layout_init(geo_layout *L, const game_state *st, int viewer, double width,
                     double height)
{
    memset(L, 0, sizeof *L);
    if (!st || !st->kind || !(width > 0) || !(height > 0))
        return;
    L->seats = game_seats(st);
    L->viewer = viewer >= 0 && viewer < L->seats ? viewer : 0;
    L->n_cells = game_cell_count(st);
    game_drawing drawing = game_draw_style(st);
    if (drawing == GAME_DRAW_MANCALA) {
        L->cups = st->cups;
        if (L->seats == 2) {
            L->kind = GEO_MANCALA_TWO;
            /* homes at both ends; a half-unit name strip above and below */
            fit(L, width, height, L->cups + 2, 3);
        } else {
            L->kind = GEO_MANCALA_ROWS;
            /* a 3-unit name column, the cups, a quarter-unit gap, the home */
            fit(L, width, height, L->cups + 4.25, L->seats);
            L->label = 3 * L->unit;
        }
    } else if (drawing == GAME_DRAW_DISCS) {
        L->kind = GEO_SQUARES;
        L->size = st->size;
        fit(L, width, height, L->size + 1, L->size + 1);   /* half-unit margins */
    } else {
        L->kind = GEO_SLICES;
        L->size = st->size;
        L->dims = st->dims;
        int n = L->size;
        int zs = L->dims >= 3 ? n : 1, ws = L->dims >= 4 ? n : 1;
        double lab = L->dims >= 3 ? 0.5 : 0;
        fit(L, width, height, zs * n + (zs - 1) * 0.5, ws * (n + lab) + (ws - 1) * 0.5);
        L->label = lab * L->unit;
        L->gap = 0.5 * L->unit;
    }
}

/* Mancala: the row (0 top .. seats-1 bottom) of a seat. */
static int mancala_row(const geo_layout *L, int seat)
{
    if (L->kind == GEO_MANCALA_TWO)
        return seat == L->viewer ? 1 : 0;
    return (seat - L->viewer - 1 + 2 * L->seats) % L->seats;
}

int geo_cell_rect(const geo_layout *L, int cell, geo_rect *out)
{
    if (L->kind == GEO_NONE || cell < 0 || cell >= L->n_cells)
        return -1;
    double u = L->unit;
    switch (L->kind) {
    case GEO_MANCALA_TWO: {
        int seat = cell / (L->cups + 1), cup = cell % (L->cups + 1);
        bool mine = seat == L->viewer;
        if (cup == L->cups) {      /* a home spans both rows */
            *out = (geo_rect){L->x0 + (mine ? L->cups + 1 : 0) * u, L->y0 + 0.5 * u, u, 2 * u};
            return 0;
        }
        int col = mine ? 1 + cup : L->cups - cup;
        *out = (geo_rect){L->x0 + col * u, L->y0 + (0.5 + mancala_row(L, seat)) * u, u, u};
        return 0;
    }
    case GEO_MANCALA_ROWS: {
        int seat = cell / (L->cups + 1), cup = cell % (L->cups + 1);
        double x = L->x0 + L->label + (cup == L->cups ? L->cups + 0.25 : cup) * u;
        *out = (geo_rect){x, L->y0 + mancala_row(L, seat) * u, u, u};
        return 0;
    }
    case GEO_SQUARES: {
        int x = cell % L->size, y = cell / L->size;
        *out = (geo_rect){L->x0 + (0.5 + x) * u, L->y0 + (0.5 + y) * u, u, u};
        return 0;
    }
    case GEO_SLICES: {
        int n = L->size;
        int x = cell % n, y = cell / n % n;
        int z = L->dims >= 3 ? cell / (n * n) % n : 0;
        int w = L->dims >= 4 ? cell / (n * n * n) : 0;
        *out = (geo_rect){L->x0 + z * (n * u + L->gap) + x * u,
                          L->y0 + w * (L->label + n * u + L->gap) + L->label + y * u, u, u};
        return 0;
    }
    case GEO_NONE:
        break;
    }
    return -1;
}

static bool inside(const geo_rect *r, double x, double y)
{
    return x >= r->x && x < r->x + r->w && y >= r->y && y < r->y + r->h;
}

int geo_hit(const geo_layout *L, double x, double y)
{
    if (L->kind == GEO_NONE || !isfinite(x) || !isfinite(y))
        return -1;
    /* A scan is cheap (4096 cells at most) and cannot disagree with the
     * rectangles the board is drawn from. */
    for (int c = 0; c < L->n_cells; c++) {
        geo_rect r;
        if (geo_cell_rect(L, c, &r) == 0 && inside(&r, x, y))
            return c;
    }
    return -1;
}

int geo_seat_label_rect(const geo_layout *L, int seat, geo_rect *out)
{
    if (seat < 0 || seat >= L->seats)
        return -1;
    double u = L->unit;
    if (L->kind == GEO_MANCALA_TWO) {
        double y = seat == L->viewer ? L->y0 + 2.5 * u : L->y0;
        *out = (geo_rect){L->x0, y, L->width, 0.5 * u};
        return 0;
    }
    if (L->kind == GEO_MANCALA_ROWS) {
        *out = (geo_rect){L->x0, L->y0 + mancala_row(L, seat) * u, L->label, u};
        return 0;
    }
    return -1;
}

int geo_slice_label_rect(const geo_layout *L, int z, int w, geo_rect *out)
{
    if (L->kind != GEO_SLICES || L->dims < 3)
        return -1;
    int n = L->size;
    int zs = n, ws = L->dims >= 4 ? n : 1;
    if (z < 0 || z >= zs || w < 0 || w >= ws)
        return -1;
    double u = L->unit;
    *out = (geo_rect){L->x0 + z * (n * u + L->gap), L->y0 + w * (L->label + n * u + L->gap),
                      n * u, L->label};
    return 0;
}

int geo_cell_move(const game_state *st, int seat, int cell)
{
    if (!st || cell < 0 || cell >= game_cell_count(st))
        return -1;
    game_drawing drawing = game_draw_style(st);
    if (drawing == GAME_DRAW_MANCALA) {
        int s = cell / (st->cups + 1), c = cell % (st->cups + 1);
        return s == seat && c < st->cups ? c : -1;
    }
    return cell;
}

int geo_move_cell(const game_state *st, int seat, int move)
{
    if (!st)
        return -1;
    game_drawing drawing = game_draw_style(st);
    if (drawing == GAME_DRAW_MANCALA) {
        if (seat < 0 || seat >= game_seats(st) || move < 0 || move >= st->cups)
            return -1;
        return game_mancala_cup(st, seat, move);
    }
    return move >= 0 && move < game_cell_count(st) ? move : -1;
}

int geo_step(const geo_layout *L, int from, int dx, int dy, const int *cells, int n)
{
    if (n <= 0)
        return -1;
    geo_rect fr;
    if (from < 0 || geo_cell_rect(L, from, &fr) != 0)
        return cells[0];
    double fx = fr.x + fr.w / 2, fy = fr.y + fr.h / 2;
    double eps = L->unit * 1e-3;
    int best = -1;
    double best_score = 0;
    for (int i = 0; i < n; i++) {
        geo_rect r;
        if (cells[i] == from || geo_cell_rect(L, cells[i], &r) != 0)
            continue;
        double ddx = r.x + r.w / 2 - fx, ddy = r.y + r.h / 2 - fy;
        double along = ddx * dx + ddy * dy;          /* how far the right way */
        double across = fabs(ddx * dy) + fabs(ddy * dx);   /* how far off the line */
        if (along <= eps)
            continue;
        double score = along + 2 * across;   /* prefer staying in line */
        if (best < 0 || score < best_score) {
            best = cells[i];
            best_score = score;
        }
    }
    return best;
}
