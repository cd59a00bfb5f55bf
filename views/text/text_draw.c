/*
 * text_draw.c — drawing boards as text, always from the viewer's side.
 *
 * Two-seat mancala boards are drawn as the real board lies on the table:
 * the viewer's cups along the bottom, left to right, their home on the right;
 * the opponent's cups along the top, right to left, their home on the left —
 * so sowing runs counter-clockwise on screen as on the board. With more seats
 * each row is a line, the viewer's row last (nearest the prompt).
 */
#include <stdbool.h>
#include <stdio.h>

#include "text_draw.h"
#include "view_i18n.h"

/* The seats' colour names that games/ gives (game_seat_colour), marked here
 * for the catalogs: the rules engines know nothing of translation. */
static const char *const colour_words[] __attribute__((unused)) = {N_("black"), N_("white")};

static void draw_two_seats(FILE *out, const agent_model *m, int me)
{
    const game_state *st = &m->state;
    int cups = st->cups, them = (me + 1) % 2;
    char buf[40];

    fprintf(out, "      ");
    for (int c = cups - 1; c >= 0; c--)
        fprintf(out, "  %2d  ", c);
    fprintf(out, "   <- %s\n", agent_seat_name(m, them, buf, sizeof buf));
    fprintf(out, "      ");
    for (int c = cups - 1; c >= 0; c--)
        fprintf(out, "[%4d]", game_cell(st, game_mancala_cup(st, them, c)));
    fprintf(out, "\n[%4d]", game_cell(st, game_mancala_home(st, them)));
    for (int c = 0; c < cups; c++)
        fprintf(out, "      ");
    fprintf(out, "[%4d]\n      ", game_cell(st, game_mancala_home(st, me)));
    for (int c = 0; c < cups; c++)
        fprintf(out, "[%4d]", game_cell(st, game_mancala_cup(st, me, c)));
    fprintf(out, "\n      ");
    for (int c = 0; c < cups; c++)
        fprintf(out, "  %2d  ", c);
    fprintf(out, "   -> %s%s\n", agent_seat_name(m, me, buf, sizeof buf),
            me == m->my_seat ? _(" (you)") : "");
}

static void draw_rows(FILE *out, const agent_model *m, int me)
{
    const game_state *st = &m->state;
    int seats = game_seats(st), cups = st->cups;
    char buf[40];
    fprintf(out, "%-18s", "");
    for (int c = 0; c < cups; c++)
        fprintf(out, " %3d ", c);
    fprintf(out, _("  home\n"));
    /* The seat after the viewer first, around the ring, the viewer last. */
    for (int k = 1; k <= seats; k++) {
        int s = (me + k) % seats;
        char label[40];
        snprintf(label, sizeof label, "%s%s", agent_seat_name(m, s, buf, sizeof buf),
                 s == m->my_seat ? _(" (you)") : "");
        fprintf(out, "%c %-16.16s", s == game_to_move(st) ? '>' : ' ', label);
        for (int c = 0; c < cups; c++)
            fprintf(out, "[%3d]", game_cell(st, game_mancala_cup(st, s, c)));
        fprintf(out, "  [%3d]\n", game_cell(st, game_mancala_home(st, s)));
    }
}

/* A grid cell: its seat's mark (value seat+1), or '.' when empty. */
static char cell_symbol(const game_state *st, int value)
{
    return value > 0 ? game_seat_mark(st, value - 1) : '.';
}

static bool is_legal(const int *legal, int n, int cell)
{
    for (int i = 0; i < n; i++)
        if (legal[i] == cell)
            return true;
    return false;
}

/* Discs on a square board: letters for columns, numbers for rows, legal
 * cells marked '*'; then each seat's mark, colour and count. */
static void draw_discs(FILE *out, const agent_model *m, const int *legal, int n_legal)
{
    const game_state *st = &m->state;
    int size = st->size;
    fprintf(out, "    ");
    for (int x = 0; x < size; x++)
        fprintf(out, " %c", 'a' + x);
    fputc('\n', out);
    for (int y = 0; y < size; y++) {
        fprintf(out, "  %2d", y + 1);
        for (int x = 0; x < size; x++) {
            int cell = y * size + x;
            int v = game_cell(st, cell);
            fprintf(out, " %c",
                    v ? cell_symbol(st, v) : is_legal(legal, n_legal, cell) ? '*' : '.');
        }
        fprintf(out, "  %2d\n", y + 1);
    }
    int scores[GAME_MAX_SEATS];
    game_scores(st, scores);
    char buf[40];
    for (int s = 0; s < game_seats(st); s++) {
        const char *colour = game_seat_colour(st, s);
        fprintf(out, "%s%c %s", s ? ", " : "  ", game_seat_mark(st, s),
                agent_seat_name(m, s, buf, sizeof buf));
        if (colour)
            fprintf(out, " (%s)", _(colour));
        fprintf(out, " %d", scores[s]);
    }
    fputs(_("; * marks a legal move\n"), out);
}

/* A grid in d dimensions (tic-tac-toe) as 2D slices: x across, y down;
 * slices for z side by side; rows of slices for w. Empty cells show their
 * number, which is what the player types. */
static void draw_slices(FILE *out, const agent_model *m)
{
    const game_state *st = &m->state;
    int n = st->size, d = st->dims;
    int width = 1;
    for (int top = game_cell_count(st) - 1; top >= 10; top /= 10)
        width++;
    int zs = d >= 3 ? n : 1, ws = d >= 4 ? n : 1;
    for (int w = 0; w < ws; w++) {
        if (d >= 3) {
            for (int z = 0; z < zs; z++) {
                char label[32];
                if (d == 4)
                    snprintf(label, sizeof label, "z=%d w=%d", z, w);
                else
                    snprintf(label, sizeof label, "z=%d", z);
                fprintf(out, "  %-*s", n * (width + 1), label);
            }
            fputc('\n', out);
        }
        for (int y = 0; y < n; y++) {
            for (int z = 0; z < zs; z++) {
                fprintf(out, " ");
                for (int x = 0; x < n; x++) {
                    int cell = x + n * (y + n * (z + n * w));
                    int v = game_cell(st, cell);
                    if (v)
                        fprintf(out, " %*c", width, cell_symbol(st, v));
                    else
                        fprintf(out, " %*d", width, cell);
                }
                fprintf(out, " ");
            }
            fputc('\n', out);
        }
        fputc('\n', out);
    }
}

void text_draw_board(FILE *out, const agent_model *m, const int *legal, int n_legal)
{
    if (!m->have_state) {
        fprintf(out, _("(no board yet)\n"));
        return;
    }
    const game_state *st = &m->state;
    int me = m->my_seat >= 0 ? m->my_seat : 0;   /* observers see seat 0's side */
    fputc('\n', out);
    switch (game_draw_style(st)) {
    case GAME_DRAW_MANCALA:
        if (game_seats(st) == 2)
            draw_two_seats(out, m, me);
        else
            draw_rows(out, m, me);
        break;
    case GAME_DRAW_DISCS:
        draw_discs(out, m, legal, n_legal);
        break;
    case GAME_DRAW_SLICES:
        draw_slices(out, m);
        break;
    }
}

void text_draw_people(FILE *out, const agent_model *m)
{
    char buf[40];
    int seats = m->have_state ? game_seats(&m->state) : 0;
    for (int s = 0; s < seats; s++) {
        const agent_person *p = NULL;
        for (int i = 0; i < m->n_people; i++)
            if (m->people[i].seat == s)
                p = &m->people[i];
        fprintf(out, _("  seat %d: %-16s"), s, agent_seat_name(m, s, buf, sizeof buf));
        char rating[16];
        agent_format_rating(p ? &p->rating : NULL, rating, sizeof rating);
        if (rating[0])
            fprintf(out, " %6s", rating);
        /* We are here, whatever a snapshot taken as we came back says. */
        bool gone = p && p->departed && s != m->my_seat && s != m->hot_seat;
        int away = gone ? agent_away_seconds(p) : -1;
        if (!m->seat_name[s][0])
            fprintf(out, _(" (open)"));
        else if (!p)
            fprintf(out, _(" (gone)"));
        else if (away >= 0)     /* a round trip of someone gone means nothing */
            fprintf(out, _(" away \u2014 seat kept %d s"), away);
        else if (gone)
            fprintf(out, _(" away"));
        else if (p->rtt_ms >= 0)
            fprintf(out, " %d ms", p->rtt_ms);
        if (s == m->my_seat)
            fprintf(out, _(" (you)"));
        if (p && p->guest && agent_marks_guests(m))
            fprintf(out, _(" (guest)"));
        if (p && p->out)
            fprintf(out, _(" (out)"));
        if (m->status == AGENT_GAME_RUNNING && s == game_to_move(&m->state))
            fprintf(out, _("  <- to move"));
        fputc('\n', out);
    }
    /* A crowd is counted, and only its first few named. */
    if (m->n_observers > 0) {
        int named = 0;
        fprintf(out, _("  %d watching:"), m->n_observers);
        for (int i = 0; i < m->n_people; i++)
            if (m->people[i].seat < 0)
                fprintf(out, "%s %s", named++ ? "," : "", m->people[i].name);
        if (named < m->n_observers)
            fprintf(out, "%s \u2026", named ? "," : "");
        fputc('\n', out);
    }
}

void text_say_watching(FILE *out, int n)
{
    if (n <= 0)
        fprintf(out, _("Nobody is watching.\n"));
    else
        fprintf(out, ngettext("%d person is watching.\n", "%d people are watching.\n",
                              (unsigned long)n), n);
}
