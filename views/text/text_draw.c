/*
 * text_draw.c — drawing boards as text, always from the viewer's side.
 *
 * Two-seat mancala boards are drawn as the real board lies on the table:
 * the viewer's cups along the bottom, left to right, their home on the right;
 * the opponent's cups along the top, right to left, their home on the left —
 * so sowing runs counter-clockwise on screen as on the board. With more seats
 * each row is a line, the viewer's row last (nearest the prompt).
 */
#include <stdio.h>

#include "text_draw.h"

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
            me == m->my_seat ? " (you)" : "");
}

static void draw_rows(FILE *out, const agent_model *m, int me)
{
    const game_state *st = &m->state;
    int seats = game_seats(st), cups = st->cups;
    char buf[40];
    fprintf(out, "%-18s", "");
    for (int c = 0; c < cups; c++)
        fprintf(out, " %3d ", c);
    fprintf(out, "  home\n");
    /* The seat after the viewer first, around the ring, the viewer last. */
    for (int k = 1; k <= seats; k++) {
        int s = (me + k) % seats;
        char label[40];
        snprintf(label, sizeof label, "%s%s", agent_seat_name(m, s, buf, sizeof buf),
                 s == m->my_seat ? " (you)" : "");
        fprintf(out, "%c %-16.16s", s == game_to_move(st) ? '>' : ' ', label);
        for (int c = 0; c < cups; c++)
            fprintf(out, "[%3d]", game_cell(st, game_mancala_cup(st, s, c)));
        fprintf(out, "  [%3d]\n", game_cell(st, game_mancala_home(st, s)));
    }
}

static void draw_grid(FILE *out, const agent_model *m)
{
    const game_state *st = &m->state;
    static const char symbols[] = ".XO#@*+";
    int n = game_cell_count(st);
    int side = st->size ? st->size : 1;
    for (int i = 0; i < n; i++) {
        int v = game_cell(st, i);
        fprintf(out, " %c", v >= 0 && v < (int)sizeof symbols - 1 ? symbols[v] : '?');
        if ((i + 1) % side == 0)
            fputc('\n', out);
    }
}

void text_draw_board(FILE *out, const agent_model *m)
{
    if (!m->have_state) {
        fprintf(out, "(no board yet)\n");
        return;
    }
    const game_state *st = &m->state;
    int me = m->my_seat >= 0 ? m->my_seat : 0;   /* observers see seat 0's side */
    fputc('\n', out);
    if (st->layout == GAME_LAYOUT_MANCALA && game_seats(st) == 2)
        draw_two_seats(out, m, me);
    else if (st->layout == GAME_LAYOUT_MANCALA)
        draw_rows(out, m, me);
    else
        draw_grid(out, m);
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
        fprintf(out, "  seat %d: %-16s", s, agent_seat_name(m, s, buf, sizeof buf));
        if (!m->seat_name[s][0])
            fprintf(out, " (open)");
        else if (!p)
            fprintf(out, " (gone)");
        else if (p->rtt_ms >= 0)
            fprintf(out, " %d ms", p->rtt_ms);
        if (s == m->my_seat)
            fprintf(out, " (you)");
        if (m->status == AGENT_GAME_RUNNING && s == game_to_move(&m->state))
            fprintf(out, "  <- to move");
        fputc('\n', out);
    }
    for (int i = 0; i < m->n_people; i++) {
        const agent_person *p = &m->people[i];
        if (p->seat >= 0)
            continue;
        fprintf(out, "  observer: %s", p->name);
        if (p->rtt_ms >= 0)
            fprintf(out, " %d ms", p->rtt_ms);
        fputc('\n', out);
    }
}
