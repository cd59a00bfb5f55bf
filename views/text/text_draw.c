/*
 * text_draw.c — drawing boards as text, always from the viewer's side, in
 * the columns the terminal has.
 *
 * Two-seat mancala boards are drawn as the real board lies on the table:
 * the viewer's cups along the bottom, left to right, their home on the right;
 * the opponent's cups along the top, right to left, their home on the left —
 * so sowing runs counter-clockwise on screen as on the board. With more seats
 * each row is a line, the viewer's row last (nearest the prompt).
 *
 * Every drawing is chosen for a width (text_terminal_width): the widest
 * layout that fits, then narrower cells, then the board turned a quarter
 * (the two rows as two columns, or each seat a column), so that at 40
 * columns no line wraps. Names are cut to the room left, by display
 * columns, never in the middle of a character. Lines of words (who sits
 * where, the colours' legend) wrap between words.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include "text_charset.h"
#include "text_draw.h"
#include "narrate.h"
#include "view_i18n.h"

/* The seats' colour names that games/ gives (game_seat_colour), marked here
 * for the catalogs: the rules engines know nothing of translation. */
static const char *const colour_words[] __attribute__((unused)) = {N_("black"), N_("white")};

int text_terminal_width(FILE *out)
{
    struct winsize ws;
    int fd = fileno(out);
    if (fd < 0)
        fd = text_charset_fd(out);     /* converting for the terminal's charset */
    if (fd >= 0 && isatty(fd) == 1 && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *env = getenv("COLUMNS");
    int cols = env ? atoi(env) : 0;
    return cols > 0 ? cols : TEXT_DEFAULT_WIDTH;
}

/* The length in bytes of the character at s and its display width (a byte
 * that starts no character of the locale's charset counts as one column). */
static size_t next_char(const char *s, int *cols)
{
    mbstate_t ps;
    memset(&ps, 0, sizeof ps);
    wchar_t wc;
    size_t n = mbrtowc(&wc, s, strlen(s), &ps);
    if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
        *cols = 1;
        return 1;
    }
    int w = wcwidth(wc);
    *cols = w < 0 ? 1 : w;
    return n;
}

int text_display_width(const char *s, size_t len)
{
    int total = 0, cols;
    for (size_t i = 0; i < len && s[i];) {
        i += next_char(s + i, &cols);
        total += cols;
    }
    return total;
}

/* s cut to at most max columns, then padded with spaces to pad columns;
 * returns the columns written. */
static int put_cut(FILE *out, const char *s, int max, int pad)
{
    int used = 0, cols;
    while (*s) {
        size_t n = next_char(s, &cols);
        if (used + cols > max)
            break;
        fwrite(s, 1, n, out);
        used += cols;
        s += n;
    }
    for (; used < pad; used++)
        fputc(' ', out);
    return used;
}

static void spaces(FILE *out, int n)
{
    for (int i = 0; i < n; i++)
        fputc(' ', out);
}

void text_put_wrapped(FILE *out, const char *line, int width, int indent)
{
    int col = 0, lead = 0;
    const char *p = line;
    while (*p == ' ')
        p++, lead++;
    if (lead >= width)
        lead = 0;
    spaces(out, lead);
    col = lead;
    bool first = true;
    while (*p) {
        const char *gap = p;
        while (*p == ' ')
            p++;
        if (!*p) {             /* trailing padding: kept while it fits */
            int gw = (int)(p - gap);
            if (col + gw <= width)
                fwrite(gap, 1, (size_t)gw, out);
            break;
        }
        const char *word = p;
        while (*p && *p != ' ')
            p++;
        int gw = (int)(word - gap), ww = text_display_width(word, (size_t)(p - word));
        if (!first && col + gw + ww > width) {
            fputc('\n', out);
            spaces(out, indent);
            col = indent;
            gw = 0;
        }
        fwrite(gap, 1, (size_t)gw, out);
        col += gw;
        if (col + ww > width) {            /* a word wider than the line */
            char cut[AGENT_TEXT_BYTES];
            snprintf(cut, sizeof cut, "%.*s", (int)(p - word), word);
            col += put_cut(out, cut, width - col, 0);
        } else {
            fwrite(word, 1, (size_t)(p - word), out);
            col += ww;
        }
        first = false;
    }
    fputc('\n', out);
}

static int digits(int v)
{
    int d = 1;
    for (; v >= 10; v /= 10)
        d++;
    return d;
}

/* The digits the largest possible count needs: every stone in one home. */
static int count_digits(const game_state *st, int at_least)
{
    int total = 0;
    for (int i = 0; i < game_cell_count(st); i++)
        total += game_cell(st, i);
    int d = digits(total);
    return d < at_least ? at_least : d;
}

/* "[  7]" in cw columns. */
static void cell(FILE *out, int cw, int value)
{
    fprintf(out, "[%*d]", cw - 2, value);
}

/* A cup number centred under a cell of cw columns. */
static void cup_number(FILE *out, int cw, int c)
{
    int left = (cw - 2) / 2;
    spaces(out, left);
    fprintf(out, "%2d", c);
    spaces(out, cw - left - 2);
}

/* "bob" or "alice (you)", cut to max columns, after `lead`; on a line of its
 * own when fewer than min columns are left on this one (col used so far). */
static void seat_label(FILE *out, const agent_model *m, int seat, const char *lead, int col,
                       int width)
{
    char buf[40], label[AGENT_NAME_BYTES + 32];
    snprintf(label, sizeof label, "%s%s", view_seat_name(m, seat, buf, sizeof buf),
             seat == m->my_seat ? _(" (you)") : "");
    int lw = (int)strlen(lead);
    if (col + lw + 8 > width) {        /* no room for a name worth reading */
        fputc('\n', out);
        col = 0;
        lead += strspn(lead, " ");
        lw = (int)strlen(lead);
    }
    fputs(lead, out);
    put_cut(out, label, width - col - lw, 0);
    fputc('\n', out);
}

/* Two seats across, as the board lies on the table, in cells of cw columns. */
static void draw_two_across(FILE *out, const agent_model *m, int me, int cw, int width)
{
    const game_state *st = &m->state;
    int cups = st->cups, them = (me + 1) % 2;

    spaces(out, cw);
    for (int c = cups - 1; c >= 0; c--)
        cup_number(out, cw, c);
    seat_label(out, m, them, "   <- ", cw * (cups + 1), width);
    spaces(out, cw);
    for (int c = cups - 1; c >= 0; c--)
        cell(out, cw, game_cell(st, game_mancala_cup(st, them, c)));
    fputc('\n', out);
    cell(out, cw, game_cell(st, game_mancala_home(st, them)));
    spaces(out, cw * cups);
    cell(out, cw, game_cell(st, game_mancala_home(st, me)));
    fputc('\n', out);
    spaces(out, cw);
    for (int c = 0; c < cups; c++)
        cell(out, cw, game_cell(st, game_mancala_cup(st, me, c)));
    fputc('\n', out);
    spaces(out, cw);
    for (int c = 0; c < cups; c++)
        cup_number(out, cw, c);
    seat_label(out, m, me, "   -> ", cw * (cups + 1), width);
}

/* Two seats turned a quarter clockwise, for a narrow terminal: the viewer's
 * cups down the left column (0 at the top), their home below; the
 * opponent's cups up the right column, their home above — sowing still
 * runs counter-clockwise. At most 9 + 2 * cw columns. */
static void draw_two_down(FILE *out, const agent_model *m, int me, int cw, int width)
{
    const game_state *st = &m->state;
    int cups = st->cups, them = (me + 1) % 2;
    int home_at = 3 + (cw + 3) / 2;

    spaces(out, home_at);
    cell(out, cw, game_cell(st, game_mancala_home(st, them)));
    seat_label(out, m, them, " ", home_at + cw, width);
    for (int c = 0; c < cups; c++) {
        fprintf(out, "%2d ", c);
        cell(out, cw, game_cell(st, game_mancala_cup(st, me, c)));
        spaces(out, 3);
        cell(out, cw, game_cell(st, game_mancala_cup(st, them, cups - 1 - c)));
        fprintf(out, " %2d\n", cups - 1 - c);
    }
    spaces(out, home_at);
    cell(out, cw, game_cell(st, game_mancala_home(st, me)));
    seat_label(out, m, me, " ", home_at + cw, width);
}

static void draw_two_seats(FILE *out, const agent_model *m, int me, int width)
{
    int cups = m->state.cups, d = count_digits(&m->state, 2);
    /* The roomy cells when they fit (room for a name beside the numbers or
     * under them), else cells just wide enough, else turned. */
    if (d <= 4 && 6 * (cups + 2) <= width)
        draw_two_across(out, m, me, 6, width);
    else if ((d + 2) * (cups + 2) <= width)
        draw_two_across(out, m, me, d + 2, width);
    else
        draw_two_down(out, m, me, d + 2, width);
}

/* More seats, one row each, when 18 + (cups + 1) * cw + 2 columns fit. */
static void draw_rows_across(FILE *out, const agent_model *m, int me, int cw)
{
    const game_state *st = &m->state;
    int seats = game_seats(st), cups = st->cups;
    char buf[40];
    fprintf(out, "%-18s", "");
    for (int c = 0; c < cups; c++)
        fprintf(out, " %*d ", cw - 2, c);
    fprintf(out, _("  home\n"));
    /* The seat after the viewer first, around the ring, the viewer last. */
    for (int k = 1; k <= seats; k++) {
        int s = (me + k) % seats;
        char label[AGENT_NAME_BYTES + 32];
        snprintf(label, sizeof label, "%s%s", view_seat_name(m, s, buf, sizeof buf),
                 s == m->my_seat ? _(" (you)") : "");
        fprintf(out, "%c ", s == game_to_move(st) ? '>' : ' ');
        put_cut(out, label, 16, 16);
        for (int c = 0; c < cups; c++)
            cell(out, cw, game_cell(st, game_mancala_cup(st, s, c)));
        fputs("  ", out);
        cell(out, cw, game_cell(st, game_mancala_home(st, s)));
        fputc('\n', out);
    }
}

/* More seats turned: a column per seat ("#2", the viewer's last), a line
 * per cup, the homes under a line that says so, then who sits in each column. At most
 * 4 + seats * cw columns (40 for six seats of four-digit counts). */
static void draw_rows_down(FILE *out, const agent_model *m, int me, int cw, int width)
{
    const game_state *st = &m->state;
    int seats = game_seats(st), cups = st->cups;
    char buf[40], head[16];
    spaces(out, 4);
    for (int k = 1; k <= seats; k++) {
        snprintf(head, sizeof head, "#%d", (me + k) % seats);
        fprintf(out, "%*s", cw, head);
    }
    fputc('\n', out);
    for (int c = 0; c <= cups; c++) {
        if (c < cups)
            fprintf(out, "%3d ", c);
        else {                 /* the homes under a line of their own */
            fputs(_("  home\n"), out);
            spaces(out, 4);
        }
        for (int k = 1; k <= seats; k++) {
            int s = (me + k) % seats;
            cell(out, cw, game_cell(st, c < cups ? game_mancala_cup(st, s, c)
                                                 : game_mancala_home(st, s)));
        }
        fputc('\n', out);
    }
    for (int k = 1; k <= seats; k++) {
        int s = (me + k) % seats;
        char line[AGENT_NAME_BYTES + 64];
        snprintf(line, sizeof line, "%c #%d %s%s", s == game_to_move(st) ? '>' : ' ', s,
                 view_seat_name(m, s, buf, sizeof buf), s == m->my_seat ? _(" (you)") : "");
        text_put_wrapped(out, line, width, 5);
    }
}

static void draw_rows(FILE *out, const agent_model *m, int me, int width)
{
    int cups = m->state.cups, cw = count_digits(&m->state, 3) + 2;
    if (18 + (cups + 1) * cw + 2 <= width)
        draw_rows_across(out, m, me, cw);
    else
        draw_rows_down(out, m, me, cw, width);
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
 * cells marked '*'; then each seat's mark, colour and count (at most
 * 8 + 2 * 16 = 40 columns for the largest board). */
static void draw_discs(FILE *out, const agent_model *m, const int *legal, int n_legal,
                       int width)
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
    char buf[40], line[GAME_MAX_SEATS * (AGENT_NAME_BYTES + 48) + 128];
    size_t at = 0;
    for (int s = 0; s < game_seats(st); s++) {
        const char *colour = game_seat_colour(st, s);
        char part[AGENT_NAME_BYTES + 48];
        snprintf(part, sizeof part, "%s%c %s%s%s%s %d", s ? ", " : "  ", game_seat_mark(st, s),
                 view_seat_name(m, s, buf, sizeof buf), colour ? " (" : "",
                 colour ? _(colour) : "", colour ? ")" : "", scores[s]);
        at += (size_t)snprintf(line + at, sizeof line - at, "%s", part);
    }
    snprintf(line + at, sizeof line - at, "%s", _("; * marks a legal move\n"));
    line[strcspn(line, "\n")] = '\0';
    text_put_wrapped(out, line, width, 4);
}

/* A grid in d dimensions (tic-tac-toe) as 2D slices: x across, y down;
 * slices for z side by side, as many as the width takes; rows of slices
 * for w. Empty cells show their number, which is what the player types. */
static void draw_slices(FILE *out, const agent_model *m, int width)
{
    const game_state *st = &m->state;
    int n = st->size, d = st->dims;
    int cw = digits(game_cell_count(st) - 1) + 1;     /* " 12" */
    int zs = d >= 3 ? n : 1, ws = d >= 4 ? n : 1;
    int slice = n * cw, per_row = (width + 2) / (slice + 2);
    if (per_row < 1)
        per_row = 1;
    for (int w = 0; w < ws; w++) {
        for (int z0 = 0; z0 < zs; z0 += per_row) {
            int z1 = z0 + per_row < zs ? z0 + per_row : zs;
            if (d >= 3) {
                for (int z = z0; z < z1; z++) {
                    char label[32];
                    if (d == 4)
                        snprintf(label, sizeof label, "z=%d w=%d", z, w);
                    else
                        snprintf(label, sizeof label, "z=%d", z);
                    fprintf(out, "%s %-*s", z > z0 ? " " : "", slice - 1, label);
                }
                fputc('\n', out);
            }
            for (int y = 0; y < n; y++) {
                for (int z = z0; z < z1; z++) {
                    if (z > z0)
                        fputs("  ", out);
                    for (int x = 0; x < n; x++) {
                        int cell = x + n * (y + n * (z + n * w));
                        int v = game_cell(st, cell);
                        if (v)
                            fprintf(out, "%*c", cw, cell_symbol(st, v));
                        else
                            fprintf(out, "%*d", cw, cell);
                    }
                }
                fputc('\n', out);
            }
            fputc('\n', out);
        }
    }
}

void text_draw_board(FILE *out, const agent_model *m, const int *legal, int n_legal, int width)
{
    if (!m->have_state) {
        fprintf(out, _("(no board yet)\n"));
        return;
    }
    const game_state *st = &m->state;
    int me = m->my_seat >= 0 ? m->my_seat : 0;   /* observers see seat 0's side */
    if (width < TEXT_MIN_WIDTH)
        width = TEXT_MIN_WIDTH;
    fputc('\n', out);
    switch (game_draw_style(st)) {
    case GAME_DRAW_MANCALA:
        if (game_seats(st) == 2)
            draw_two_seats(out, m, me, width);
        else
            draw_rows(out, m, me, width);
        break;
    case GAME_DRAW_DISCS:
        draw_discs(out, m, legal, n_legal, width);
        break;
    case GAME_DRAW_SLICES:
        draw_slices(out, m, width);
        break;
    }
}

void text_draw_people(FILE *out, const agent_model *m, int width)
{
    char buf[40], line[AGENT_NAME_BYTES + 256];
    int seats = m->have_state ? game_seats(&m->state) : 0;
    if (width < TEXT_MIN_WIDTH)
        width = TEXT_MIN_WIDTH;
    for (int s = 0; s < seats; s++) {
        const agent_person *p = NULL;
        for (int i = 0; i < m->n_people; i++)
            if (m->people[i].seat == s)
                p = &m->people[i];
        FILE *f = fmemopen(line, sizeof line, "w");
        if (!f)
            return;
        /* the name whole: a line too wide wraps, and a name too wide for a
         * line is cut there */
        fprintf(f, _("  seat %d: %-16s"), s, view_seat_name(m, s, buf, sizeof buf));
        char rating[16];
        agent_format_rating(p ? &p->rating : NULL, rating, sizeof rating);
        if (rating[0])
            fprintf(f, " %6s", rating);
        /* We are here, whatever a snapshot taken as we came back says. */
        bool gone = p && p->departed && s != m->my_seat && s != m->hot_seat;
        int away = gone ? agent_away_seconds(p) : -1;
        if (!m->seat_name[s][0])
            fprintf(f, _(" (open)"));
        else if (!p)
            fprintf(f, _(" (gone)"));
        else if (away >= 0)     /* a round trip of someone gone means nothing */
            fprintf(f, _(" away \u2014 seat kept %d s"), away);
        else if (gone)
            fprintf(f, _(" away"));
        else if (p->rtt_ms >= 0)
            fprintf(f, " %d ms", p->rtt_ms);
        if (s == m->my_seat)
            fprintf(f, _(" (you)"));
        if (p && p->guest && agent_marks_guests(m))
            fprintf(f, _(" (guest)"));
        if (p && p->out)
            fprintf(f, _(" (out)"));
        if (m->status == AGENT_GAME_RUNNING && s == game_to_move(&m->state))
            fprintf(f, _("  <- to move"));
        fclose(f);
        text_put_wrapped(out, line, width, 4);
    }
    /* A crowd is counted, and only its first few named: a list, not a
     * drawing, left for the terminal to wrap. */
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
