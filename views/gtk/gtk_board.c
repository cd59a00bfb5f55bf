/*
 * gtk_board.c — the board drawn with cairo (text with Pango), every kind
 * from the layout in gtk_geometry.c so that what is drawn is what the
 * pointer hits.
 *
 * Mancala cups show their pebbles (up to a handful) under a large count, so
 * the number stays readable at any size; grids show discs or marks. Only the
 * cell under the pointer that is a legal move is highlighted (the view
 * decides that and passes it in `hover`).
 */
#include <libintl.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <string.h>

#include "gtk_board.h"

typedef board_rgb rgb;

const board_palette board_palette_light = {
    .background = {0.90, 0.88, 0.83},
    .wood = {0.62, 0.42, 0.22},
    .wood_dark = {0.40, 0.25, 0.12},
    .wood_to_move = {0.70, 0.50, 0.28},
    .cup = {0.33, 0.20, 0.09},
    .felt = {0.10, 0.45, 0.25},
    .felt_lines = {0.02, 0.20, 0.10},
    .paper = {0.97, 0.96, 0.92},
    .paper_lines = {0.45, 0.45, 0.45},
    .paper_last = {1.00, 0.93, 0.75},
    .hover = {1.00, 0.85, 0.20},
    .cursor = {0.20, 0.55, 1.00},
    .ink = {0.10, 0.10, 0.10},
    .dim_ink = {0.25, 0.25, 0.25},
    .on_wood = {0.10, 0.10, 0.10},
    .cup_numbers = {0.95, 0.90, 0.80},
    .last_disc = {0.90, 0.20, 0.20},
    .seat = {{0.80, 0.15, 0.15}, {0.15, 0.35, 0.80}, {0.15, 0.60, 0.20},
             {0.55, 0.25, 0.65}, {0.85, 0.50, 0.10}, {0.20, 0.60, 0.65}},
};

/* Darker wood and felt on a charcoal ground, light ink: the board keeps its
 * materials but no longer glares in a dark window. */
const board_palette board_palette_dark = {
    .background = {0.14, 0.14, 0.15},
    .wood = {0.42, 0.27, 0.14},
    .wood_dark = {0.25, 0.15, 0.07},
    .wood_to_move = {0.52, 0.35, 0.19},
    .cup = {0.20, 0.12, 0.05},
    .felt = {0.06, 0.30, 0.17},
    .felt_lines = {0.01, 0.12, 0.06},
    .paper = {0.24, 0.24, 0.26},
    .paper_lines = {0.50, 0.50, 0.52},
    .paper_last = {0.40, 0.34, 0.20},
    .hover = {0.95, 0.78, 0.15},
    .cursor = {0.35, 0.65, 1.00},
    .ink = {0.92, 0.92, 0.90},
    .dim_ink = {0.72, 0.72, 0.70},
    .on_wood = {0.96, 0.92, 0.85},
    .cup_numbers = {0.90, 0.84, 0.72},
    .last_disc = {1.00, 0.35, 0.35},
    .seat = {{0.95, 0.40, 0.40}, {0.45, 0.62, 1.00}, {0.40, 0.82, 0.45},
             {0.78, 0.52, 0.90}, {1.00, 0.68, 0.30}, {0.40, 0.82, 0.85}},
};

static void set(cairo_t *cr, rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

static void set_a(cairo_t *cr, rgb c, double a)
{
    cairo_set_source_rgba(cr, c.r, c.g, c.b, a);
}

static void rounded(cairo_t *cr, double x, double y, double w, double h, double r)
{
    if (r > w / 2)
        r = w / 2;
    if (r > h / 2)
        r = h / 2;
    cairo_new_sub_path(cr);
    cairo_arc(cr, x + w - r, y + r, r, -M_PI / 2, 0);
    cairo_arc(cr, x + w - r, y + h - r, r, 0, M_PI / 2);
    cairo_arc(cr, x + r, y + h - r, r, M_PI / 2, M_PI);
    cairo_arc(cr, x + r, y + r, r, M_PI, 3 * M_PI / 2);
    cairo_close_path(cr);
}

/* Text centred in a box, `px` pixels high; align -1 left, 0 centre. */
static void text(cairo_t *cr, const char *s, const geo_rect *box, double px, bool bold,
                 int align, rgb colour)
{
    if (px < 4)
        return;                 /* too small to read: leave it out */
    PangoLayout *lay = pango_cairo_create_layout(cr);
    PangoFontDescription *fd = pango_font_description_from_string("Sans");
    pango_font_description_set_absolute_size(fd, px * PANGO_SCALE);
    if (bold)
        pango_font_description_set_weight(fd, PANGO_WEIGHT_BOLD);
    pango_layout_set_font_description(lay, fd);
    pango_layout_set_text(lay, s, -1);
    pango_layout_set_width(lay, (int)(box->w * PANGO_SCALE));
    pango_layout_set_ellipsize(lay, PANGO_ELLIPSIZE_END);
    pango_layout_set_alignment(lay, align < 0 ? PANGO_ALIGN_LEFT : PANGO_ALIGN_CENTER);
    int tw, th;
    pango_layout_get_pixel_size(lay, &tw, &th);
    set(cr, colour);
    cairo_move_to(cr, box->x, box->y + (box->h - th) / 2);
    pango_cairo_show_layout(cr, lay);
    pango_font_description_free(fd);
    g_object_unref(lay);
}

static void ring(cairo_t *cr, double cx, double cy, double r, rgb c, double width, bool dashed)
{
    cairo_save(cr);
    cairo_new_path(cr);
    cairo_arc(cr, cx, cy, r, 0, 2 * M_PI);
    set(cr, c);
    cairo_set_line_width(cr, width);
    if (dashed) {
        double d[] = {width * 2, width * 1.5};
        cairo_set_dash(cr, d, 2, 0);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

static void outline_rect(cairo_t *cr, const geo_rect *r, rgb c, double width, bool dashed)
{
    cairo_save(cr);
    cairo_new_path(cr);
    cairo_rectangle(cr, r->x + width / 2, r->y + width / 2, r->w - width, r->h - width);
    set(cr, c);
    cairo_set_line_width(cr, width);
    if (dashed) {
        double d[] = {width * 2, width * 1.5};
        cairo_set_dash(cr, d, 2, 0);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

static const char *seat_label(const board_look *look, int seat, char *buf, size_t len)
{
    char tmp[32];
    const char *name = agent_seat_name(look->m, seat, tmp, sizeof tmp);
    bool you = seat == look->m->my_seat || seat == look->m->hot_seat;
    snprintf(buf, len, "%s%s%s%s", seat == look->to_move ? "\u25B6 " : "", name,
             you ? " " : "", you ? gettext("(you)") : "");
    return buf;
}

/* ------------------------------------------------------------- mancala */

/* Pebbles in a cup or home: a few small stones on a sunflower spiral, so a
 * count can be seen at a glance as well as read. */
static void pebbles(cairo_t *cr, double cx, double cy, double rx, double ry, int count)
{
    int shown = count < 30 ? count : 30;
    double pr = fmin(rx, ry) * (shown <= 8 ? 0.2 : shown <= 16 ? 0.16 : 0.12);
    for (int i = 0; i < shown; i++) {
        double a = i * 2.39996, d = sqrt((i + 0.5) / (shown > 1 ? shown : 1)) * 0.85;
        double px = cx + cos(a) * d * (rx - pr), py = cy + sin(a) * d * (ry - pr);
        cairo_new_path(cr);
        cairo_arc(cr, px, py, pr, 0, 2 * M_PI);
        cairo_set_source_rgba(cr, 0.85 - 0.03 * (i % 5), 0.82, 0.74 + 0.04 * (i % 3), 0.9);
        cairo_fill(cr);
    }
}

/* The count in white with a dark outline, readable over the pebbles. */
static void count_label(cairo_t *cr, int count, double cx, double cy, double px)
{
    char s[16];
    snprintf(s, sizeof s, "%d", count);
    if (px < 4)
        return;
    PangoLayout *lay = pango_cairo_create_layout(cr);
    PangoFontDescription *fd = pango_font_description_from_string("Sans Bold");
    pango_font_description_set_absolute_size(fd, px * PANGO_SCALE);
    pango_layout_set_font_description(lay, fd);
    pango_layout_set_text(lay, s, -1);
    int tw, th;
    pango_layout_get_pixel_size(lay, &tw, &th);
    cairo_save(cr);
    cairo_new_path(cr);
    cairo_move_to(cr, cx - tw / 2.0, cy - th / 2.0);
    pango_cairo_layout_path(cr, lay);
    cairo_set_source_rgba(cr, 0.1, 0.05, 0.0, 0.9);
    cairo_set_line_width(cr, fmax(2, px * 0.22));
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_stroke_preserve(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill(cr);
    cairo_restore(cr);
    pango_font_description_free(fd);
    g_object_unref(lay);
}

static void draw_mancala(cairo_t *cr, const geo_layout *L, const board_look *look)
{
    double u = L->unit;
    int seats = L->seats, cups = L->cups;
    /* the wooden board under the cups */
    geo_rect a, b;
    if (L->kind == GEO_MANCALA_TWO) {
        geo_cell_rect(L, game_mancala_home(&look->m->state, (L->viewer + 1) % 2), &a);
        geo_cell_rect(L, game_mancala_home(&look->m->state, L->viewer), &b);
        cairo_new_path(cr);
        rounded(cr, a.x, a.y, b.x + b.w - a.x, a.h, u * 0.5);
        set(cr, look->pal->wood);
        cairo_fill_preserve(cr);
        set(cr, look->pal->wood_dark);
        cairo_set_line_width(cr, fmax(1, u * 0.04));
        cairo_stroke(cr);
    } else {
        for (int s = 0; s < seats; s++) {
            geo_cell_rect(L, game_mancala_cup(&look->m->state, s, 0), &a);
            geo_cell_rect(L, game_mancala_home(&look->m->state, s), &b);
            cairo_new_path(cr);
            rounded(cr, a.x, a.y + u * 0.04, b.x + b.w - a.x, a.h - u * 0.08, u * 0.45);
            set(cr, s == look->to_move ? look->pal->wood_to_move : look->pal->wood);
            cairo_fill(cr);
        }
    }
    /* the names of the rows' owners */
    for (int s = 0; s < seats; s++) {
        char buf[160];
        geo_rect lr;
        if (geo_seat_label_rect(L, s, &lr) != 0)
            continue;
        seat_label(look, s, buf, sizeof buf);
        if (L->kind == GEO_MANCALA_TWO)
            text(cr, buf, &lr, lr.h * 0.55, s == look->to_move, 0, look->pal->ink);
        else {
            geo_rect in = {lr.x + u * 0.1, lr.y, lr.w - u * 0.2, lr.h};
            text(cr, buf, &in, u * 0.28, s == look->to_move, -1, look->pal->on_wood);
        }
    }
    for (int s = 0; s < seats; s++) {
        for (int c = 0; c <= cups; c++) {
            int cell = game_mancala_cup(&look->m->state, s, c);
            geo_rect r;
            if (geo_cell_rect(L, cell, &r) != 0)
                continue;
            double cx = r.x + r.w / 2, cy = r.y + r.h / 2;
            double rx = r.w * 0.42, ry = r.h * 0.42;
            if (c == cups && L->kind == GEO_MANCALA_TWO)
                ry = r.h * 0.46;
            cairo_new_path(cr);
            if (rx == ry)
                cairo_arc(cr, cx, cy, rx, 0, 2 * M_PI);
            else
                rounded(cr, cx - rx, cy - ry, 2 * rx, 2 * ry, rx);
            set(cr, look->pal->cup);
            cairo_fill(cr);
            if (cell == look->last) {
                cairo_new_path(cr);
                cairo_arc(cr, cx, cy, fmin(rx, ry) * 1.05, 0, 2 * M_PI);
                cairo_set_source_rgba(cr, 1, 1, 1, 0.25);
                cairo_fill(cr);
            }
            int count = look->cells[cell];
            pebbles(cr, cx, cy, rx, ry, count);
            count_label(cr, count, cx, cy, u * 0.30);
            if (cell == look->hover)
                ring(cr, cx, cy, fmin(rx, ry) + u * 0.03, look->pal->hover, fmax(2, u * 0.07), false);
            if (cell == look->cursor)
                ring(cr, cx, cy, fmin(rx, ry) + u * 0.06, look->pal->cursor, fmax(2, u * 0.05), true);
        }
    }
    /* cup numbers along the viewer's row, as the text view and the
     * announcements ("alice played cup 2") count them */
    if (L->kind == GEO_MANCALA_TWO) {
        for (int c = 0; c < cups; c++) {
            geo_rect r;
            geo_cell_rect(L, game_mancala_cup(&look->m->state, L->viewer, c), &r);
            geo_rect nb = {r.x, r.y + r.h * 0.86, r.w, r.h * 0.16};
            char num[16];
            snprintf(num, sizeof num, "%d", c);
            text(cr, num, &nb, u * 0.12, false, 0, look->pal->cup_numbers);
        }
    }
}

/* -------------------------------------------------------------- reversi */

static void draw_squares(cairo_t *cr, const geo_layout *L, const board_look *look)
{
    double u = L->unit;
    int n = L->size;
    double bx = L->x0 + 0.5 * u, by = L->y0 + 0.5 * u;
    cairo_new_path(cr);
    cairo_rectangle(cr, bx, by, n * u, n * u);
    set(cr, look->pal->felt);
    cairo_fill(cr);
    cairo_set_line_width(cr, fmax(1, u * 0.03));
    set(cr, look->pal->felt_lines);
    for (int i = 0; i <= n; i++) {
        cairo_move_to(cr, bx + i * u, by);
        cairo_line_to(cr, bx + i * u, by + n * u);
        cairo_move_to(cr, bx, by + i * u);
        cairo_line_to(cr, bx + n * u, by + i * u);
    }
    cairo_stroke(cr);
    for (int i = 0; i < n; i++) {   /* a..  across, 1.. down, as the text view */
        char s[16];
        geo_rect top = {bx + i * u, L->y0, u, 0.5 * u};
        snprintf(s, sizeof s, "%c", 'a' + i);
        text(cr, s, &top, u * 0.3, false, 0, look->pal->dim_ink);
        geo_rect left = {L->x0, by + i * u, 0.5 * u, u};
        snprintf(s, sizeof s, "%d", i + 1);
        text(cr, s, &left, u * 0.3, false, 0, look->pal->dim_ink);
    }
    for (int i = 0; i < look->n_hints; i++) {
        geo_rect r;
        if (geo_cell_rect(L, look->hints[i], &r) != 0)
            continue;
        cairo_new_path(cr);
        cairo_arc(cr, r.x + r.w / 2, r.y + r.h / 2, u * 0.08, 0, 2 * M_PI);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.35);
        cairo_fill(cr);
    }
    for (int cell = 0; cell < L->n_cells; cell++) {
        geo_rect r;
        geo_cell_rect(L, cell, &r);
        double cx = r.x + r.w / 2, cy = r.y + r.h / 2;
        int v = look->cells[cell];
        if (cell == look->hover) {
            cairo_new_path(cr);
            cairo_rectangle(cr, r.x, r.y, r.w, r.h);
            set_a(cr, look->pal->hover, 0.45);
            cairo_fill(cr);
            /* a ghost of the disc the mover would place */
            cairo_new_path(cr);
            cairo_arc(cr, cx, cy, u * 0.38, 0, 2 * M_PI);
            double g = look->to_move == 0 ? 0.05 : 0.95;
            cairo_set_source_rgba(cr, g, g, g, 0.45);
            cairo_fill(cr);
        }
        if (v) {
            cairo_new_path(cr);
            cairo_arc(cr, cx, cy, u * 0.40, 0, 2 * M_PI);
            double g = v == 1 ? 0.08 : 0.96;     /* 1 black (seat 0), 2 white */
            cairo_set_source_rgb(cr, g, g, g);
            cairo_fill_preserve(cr);
            cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
            cairo_set_line_width(cr, fmax(1, u * 0.03));
            cairo_stroke(cr);
        }
        if (cell == look->last)
            ring(cr, cx, cy, u * 0.12, look->pal->last_disc, fmax(1.5, u * 0.05), false);
        if (cell == look->cursor)
            outline_rect(cr, &r, look->pal->cursor, fmax(2, u * 0.07), true);
    }
}

/* ----------------------------------------------------------- tic-tac-toe */

static void mark(cairo_t *cr, const board_palette *pal, int seat, double cx, double cy, double r)
{
    rgb c = pal->seat[seat % GAME_MAX_SEATS];
    cairo_save(cr);
    cairo_new_path(cr);
    set(cr, c);
    cairo_set_line_width(cr, fmax(1.5, r * 0.28));
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    switch (seat) {
    case 0:                     /* X */
        cairo_move_to(cr, cx - r, cy - r);
        cairo_line_to(cr, cx + r, cy + r);
        cairo_move_to(cr, cx + r, cy - r);
        cairo_line_to(cr, cx - r, cy + r);
        break;
    case 1:                     /* O */
        cairo_arc(cr, cx, cy, r, 0, 2 * M_PI);
        break;
    case 2:                     /* triangle */
        cairo_move_to(cr, cx, cy - r);
        cairo_line_to(cr, cx + r, cy + r * 0.8);
        cairo_line_to(cr, cx - r, cy + r * 0.8);
        cairo_close_path(cr);
        break;
    default:                    /* square */
        cairo_rectangle(cr, cx - r * 0.85, cy - r * 0.85, r * 1.7, r * 1.7);
        break;
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

static void draw_slices(cairo_t *cr, const geo_layout *L, const board_look *look)
{
    double u = L->unit;
    int n = L->size, d = L->dims;
    int zs = d >= 3 ? n : 1, ws = d >= 4 ? n : 1;
    for (int w = 0; w < ws; w++)
        for (int z = 0; z < zs; z++) {
            geo_rect lr;
            if (geo_slice_label_rect(L, z, w, &lr) != 0)
                continue;
            char s[32];
            if (d == 4)
                snprintf(s, sizeof s, "z=%d w=%d", z, w);
            else
                snprintf(s, sizeof s, "z=%d", z);
            text(cr, s, &lr, lr.h * 0.6, false, 0, look->pal->dim_ink);
        }
    for (int cell = 0; cell < L->n_cells; cell++) {
        geo_rect r;
        geo_cell_rect(L, cell, &r);
        cairo_new_path(cr);
        cairo_rectangle(cr, r.x, r.y, r.w, r.h);
        set(cr, cell == look->hover  ? look->pal->hover
                : cell == look->last ? look->pal->paper_last
                                     : look->pal->paper);
        cairo_fill_preserve(cr);
        set(cr, look->pal->paper_lines);
        cairo_set_line_width(cr, fmax(0.5, u * 0.03));
        cairo_stroke(cr);
        int v = look->cells[cell];
        if (v > 0)
            mark(cr, look->pal, v - 1, r.x + r.w / 2, r.y + r.h / 2, u * 0.3);
        if (cell == look->cursor)
            outline_rect(cr, &r, look->pal->cursor, fmax(1.5, u * 0.08), false);
    }
}

void board_draw(cairo_t *cr, const geo_layout *L, const board_look *look, double width,
                double height)
{
    cairo_save(cr);
    set(cr, look->pal->background);
    cairo_paint(cr);
    if (L->kind == GEO_NONE || !look->m || !look->m->have_state) {
        geo_rect all = {0, 0, width, height};
        text(cr, look->m && !look->m->have_state ? "\u2026" : "", &all, 24, false, 0,
             look->pal->dim_ink);
        cairo_restore(cr);
        return;
    }
    switch (L->kind) {
    case GEO_MANCALA_TWO:
    case GEO_MANCALA_ROWS:
        draw_mancala(cr, L, look);
        break;
    case GEO_SQUARES:
        draw_squares(cr, L, look);
        break;
    case GEO_SLICES:
        draw_slices(cr, L, look);
        break;
    case GEO_NONE:
        break;
    }
    cairo_restore(cr);
}
