/*
 * gtk_view.c — the GTK 4 view: a window with the board (a GtkDrawingArea
 * drawn by gtk_board.c), a status line, the players with scores and ping
 * times, an event and chat log with an entry, and the Ready / Sit / Stand /
 * Leave / Games buttons.
 *
 * The agent's queue fd is a GLib source (g_unix_fd_add), so agent messages
 * and the user's input are served by the one main loop on this thread; the
 * agent has already applied each message to its model when we see it, and
 * we draw from the model — except while a move is animated, when the board
 * shows `shown`, a copy of the cells the move's steps are applied to one by
 * one.
 *
 * run() gets an agent already connected (the command line said where);
 * run_connect() starts with none, shows the connect dialog (gtk_connect.c)
 * over the window, and takes the agent it starts; until then v->ag is NULL
 * and the window shows an empty, idle board. Either way the games dialog
 * (gtk_lobby.c) opens when there is no game yet.
 *
 * A departed player's seat is kept for a grace the service announces; the
 * players pane and the status line count it down once a second, from the
 * agent's model (agent_away_seconds), as the text view does.
 */
#include <glib-unix.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtk_board.h"
#include "gtk_view.h"
#include "gtk_view_internal.h"

#define STEP_MS 40             /* one sowing step */
#define ANIM_MAX_MS 1500       /* the longest a move's animation may take */

const agent_model *gview_model(const gview *v)
{
    /* before connecting: nobody seated, nothing on the board */
    static const agent_model no_agent = {.my_seat = -1, .hot_seat = -1,
                                         .status = AGENT_GAME_WAITING};
    return v->ag ? agent_model_get(v->ag) : &no_agent;
}

bool gview_in_game(const gview *v)
{
    return v->ag && agent_in_game(v->ag);
}

static const char *seat_name(const gview *v, int seat, char *buf, size_t len)
{
    return agent_seat_name(gview_model(v), seat, buf, len);
}

static const agent_person *find_person(const agent_model *m, const char *name)
{
    for (int i = 0; i < m->n_people; i++)
        if (strcmp(m->people[i].name, name) == 0)
            return &m->people[i];
    return NULL;
}

static const agent_person *seat_person(const agent_model *m, int seat)
{
    for (int i = 0; i < m->n_people; i++)
        if (m->people[i].seat == seat)
            return &m->people[i];
    return NULL;
}

static bool game_over(const agent_model *m)
{
    return m->status == AGENT_GAME_FINISHED || m->status == AGENT_GAME_ABANDONED;
}

static bool playing_running_game(const gview *v)
{
    const agent_model *m = gview_model(v);
    return gview_in_game(v) && m->my_seat >= 0 && m->status == AGENT_GAME_RUNNING;
}

bool gview_animating(const gview *v)
{
    return v->anim_src != 0;
}

bool gview_my_turn(const gview *v)
{
    const agent_model *m = gview_model(v);
    if (!gview_in_game(v) || m->status != AGENT_GAME_RUNNING || !m->have_state)
        return false;
    int to_move = game_to_move(&m->state);
    return to_move >= 0 && agent_holds_seat(v->ag, to_move);
}

int gview_legal(const gview *v, int *moves, int max)
{
    if (!gview_my_turn(v) || v->move_pending)
        return 0;
    return agent_legal_moves(v->ag, moves, max);
}

/* The legal moves as cells of the board. */
static int legal_cells(const gview *v, int *cells, int max)
{
    const agent_model *m = gview_model(v);
    int moves[GAME_MAX_MOVES];
    int n = gview_legal(v, moves, GAME_MAX_MOVES), k = 0;
    int to_move = game_to_move(&m->state);
    for (int i = 0; i < n && k < max; i++) {
        int c = geo_move_cell(&m->state, to_move, moves[i]);
        if (c >= 0)
            cells[k++] = c;
    }
    return k;
}

static bool cell_is_legal(const gview *v, int cell)
{
    int cells[GAME_MAX_MOVES];
    int n = legal_cells(v, cells, GAME_MAX_MOVES);
    for (int i = 0; i < n; i++)
        if (cells[i] == cell)
            return true;
    return false;
}

/* The seat drawn nearest: ours, or seat 0 for observers. In hot seat the
 * board turns to whichever of our seats is to move. */
static int viewer_seat(const gview *v)
{
    const agent_model *m = gview_model(v);
    if (m->hot_seat >= 0 && m->have_state && game_to_move(&m->state) == m->hot_seat)
        return m->hot_seat;
    return m->my_seat >= 0 ? m->my_seat : 0;
}

void gview_layout(const gview *v, geo_layout *L)
{
    const agent_model *m = gview_model(v);
    geo_layout_init(L, m->have_state ? &m->state : NULL, viewer_seat(v),
                    gtk_widget_get_width(v->area), gtk_widget_get_height(v->area));
}

/* --------------------------------------------------------- small parts */

GtkWidget *gview_dialog(gview *v, const char *title)
{
    GtkWidget *w = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(w), title);
    gtk_window_set_transient_for(GTK_WINDOW(w), GTK_WINDOW(v->window));
    return w;
}

GtkWidget *gview_padded_column(int spacing, int margin)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, spacing);
    gtk_widget_set_margin_start(box, margin);
    gtk_widget_set_margin_end(box, margin);
    gtk_widget_set_margin_top(box, margin);
    gtk_widget_set_margin_bottom(box, margin);
    return box;
}

/* ------------------------------------------------------------ the log */

void gview_log(gview *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    GtkTextBuffer *buf = gtk_text_view_get_buffer(GTK_TEXT_VIEW(v->log));
    GtkTextIter end;
    gtk_text_buffer_get_end_iter(buf, &end);
    if (gtk_text_buffer_get_char_count(buf) > 0)
        gtk_text_buffer_insert(buf, &end, "\n", 1);
    gtk_text_buffer_insert(buf, &end, line, -1);
    g_free(line);
    /* keep the newest line in sight */
    GtkTextMark *mark = gtk_text_buffer_get_mark(buf, "end");
    gtk_text_buffer_get_end_iter(buf, &end);
    gtk_text_buffer_move_mark(buf, mark, &end);
    gtk_text_view_scroll_mark_onscreen(GTK_TEXT_VIEW(v->log), mark);
}

/* ------------------------------------------------------------ animation */

static void sync_shown(gview *v)
{
    const agent_model *m = gview_model(v);
    v->n_shown = m->have_state ? game_cell_count(&m->state) : 0;
    for (int i = 0; i < v->n_shown; i++)
        v->shown[i] = (int16_t)game_cell(&m->state, i);
}

static void apply_step(gview *v, const game_step *s)
{
    if (s->cell >= 0 && s->cell < v->n_shown) {
        v->shown[s->cell] = s->value;
        v->last_cell = s->cell;
    }
}

/* Stop the animation with every remaining step applied (the cells as after
 * that move: a later move may already be in the model). */
static void anim_jump(gview *v)
{
    if (!v->anim_steps)
        return;
    while (v->anim_i < v->anim_n)
        apply_step(v, &v->anim_steps[v->anim_i++]);
    if (v->anim_src)
        g_source_remove(v->anim_src);
    v->anim_src = 0;
    v->anims_done++;
    g_free(v->anim_steps);
    v->anim_steps = NULL;
    v->anim_n = v->anim_i = 0;
}

/* Skip to the end: the board as the model has it. */
static void anim_skip(gview *v)
{
    anim_jump(v);
    sync_shown(v);
    gtk_widget_queue_draw(v->area);
}

static gboolean anim_tick(gpointer data)
{
    gview *v = data;
    v->anim_frames++;
    for (int k = 0; k < v->anim_per_tick && v->anim_i < v->anim_n; k++)
        apply_step(v, &v->anim_steps[v->anim_i++]);
    if (v->anim_i >= v->anim_n) {
        v->anim_src = 0;          /* returning REMOVE drops the source */
        anim_jump(v);
        sync_shown(v);
        gview_refresh(v);
        return G_SOURCE_REMOVE;
    }
    gtk_widget_queue_draw(v->area);
    return G_SOURCE_CONTINUE;
}

static void anim_start(gview *v, const agent_msg *msg)
{
    const agent_model *m = gview_model(v);
    anim_jump(v);               /* `shown` is now the board before this move */
    int cell = m->have_state ? geo_move_cell(&m->state, msg->seat, msg->move) : -1;
    if (msg->n_steps <= 0 || !msg->steps || v->n_shown != game_cell_count(&m->state)) {
        sync_shown(v);
        v->last_cell = cell;
        return;
    }
    v->anim_steps = g_memdup2(msg->steps, sizeof *msg->steps * (gsize)msg->n_steps);
    v->anim_n = msg->n_steps;
    v->anim_i = 0;
    /* STEP_MS a step, but never longer than ANIM_MAX_MS in all */
    int ticks = ANIM_MAX_MS / STEP_MS;
    v->anim_per_tick = (v->anim_n + ticks - 1) / ticks;
    if (v->anim_per_tick < 1)
        v->anim_per_tick = 1;
    v->last_cell = cell;
    v->anim_src = g_timeout_add(STEP_MS, anim_tick, v);
}

/* ------------------------------------------------------------ drawing */

static void draw_board(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
    (void)area;
    gview *v = data;
    const agent_model *m = gview_model(v);
    geo_layout L;
    geo_layout_init(&L, m->have_state ? &m->state : NULL, viewer_seat(v), width, height);
    int hints[GAME_MAX_MOVES];
    int n_hints = gview_animating(v) ? 0 : legal_cells(v, hints, GAME_MAX_MOVES);
    bool cells_ok = m->have_state && v->n_shown == game_cell_count(&m->state);
    board_look look = {
        .m = m,
        .cells = cells_ok ? v->shown : NULL,
        .hover = gview_animating(v) ? -1 : v->hover,
        .cursor = gview_animating(v) || !gview_my_turn(v) ? -1 : v->cursor,
        .last = v->last_cell,
        .hints = hints,
        .n_hints = n_hints,
        .to_move = m->have_state && m->status == AGENT_GAME_RUNNING ? game_to_move(&m->state)
                                                                     : -1,
    };
    if (!cells_ok)
        L.kind = GEO_NONE;
    board_draw(cr, &L, &look, width, height);
}

/* ------------------------------------------------------------ away */

/* Seconds left of a departed player's kept seat, or -1 when we are not
 * counting for them (not departed, or departed for good). */
static int away_seconds(const gview *v, const char *name)
{
    const agent_person *p = find_person(gview_model(v), name);
    return p ? agent_away_seconds(p) : -1;
}

static bool anyone_away(const gview *v)
{
    const agent_model *m = gview_model(v);
    for (int i = 0; i < m->n_people; i++)
        if (agent_away_seconds(&m->people[i]) > 0)
            return true;
    return false;
}

static void update_status(gview *v);
static void update_people(gview *v);

static gboolean away_tick(gpointer data)
{
    gview *v = data;
    update_status(v);
    update_people(v);
    if (anyone_away(v))
        return G_SOURCE_CONTINUE;
    v->away_tick = 0;
    return G_SOURCE_REMOVE;
}

/* Tick once a second while anyone's seat is being kept. */
static void away_watch(gview *v)
{
    if (!v->away_tick && anyone_away(v))
        v->away_tick = g_timeout_add(1000, away_tick, v);
}

/* ------------------------------------------------------------ panes */

static void append_winners(const gview *v, GString *s)
{
    const agent_model *m = gview_model(v);
    char buf[64];
    if (m->n_winners == 0) {
        g_string_append(s, _("nobody wins: a draw"));
        return;
    }
    g_string_append(s, m->n_winners > 1 ? _("winners: ") : _("winner: "));
    for (int i = 0; i < m->n_winners; i++) {
        if (i)
            g_string_append(s, ", ");
        g_string_append(s, seat_name(v, m->winners[i], buf, sizeof buf));
    }
}

static void update_status(gview *v)
{
    const agent_model *m = gview_model(v);
    char buf[64];
    GString *s = g_string_new(NULL);
    if (!v->ag) {
        g_string_append(s, _("Not connected yet: say where to play in the connect dialog."));
    } else if (!agent_in_game(v->ag)) {
        g_string_append(s, _("Not at a game. Press Games\u2026 to list, create or join one."));
    } else if (m->status == AGENT_GAME_FINISHED) {
        g_string_append(s, _("Game over: "));
        append_winners(v, s);
        g_string_append(s, ".");
    } else if (m->status == AGENT_GAME_ABANDONED) {
        g_string_append_printf(s, _("Game abandoned: %s."), m->end_reason);
    } else if (m->status != AGENT_GAME_RUNNING || !m->have_state) {
        g_string_append(s, _("Waiting for every seat to be taken and every player ready."));
        if (m->my_seat >= 0)
            g_string_append(s, _(" Press Ready when you are."));
    } else {
        int to_move = game_to_move(&m->state);
        if (gview_my_turn(v)) {
            if (m->hot_seat >= 0)
                g_string_append_printf(s, _("%s's turn: "), seat_name(v, to_move, buf, sizeof buf));
            else
                g_string_append(s, _("Your turn: "));
            if (m->state.layout == GAME_LAYOUT_MANCALA)
                g_string_append(s, _("click one of your cups (or arrows and Enter)."));
            else
                g_string_append(s, _("click a highlighted cell (or arrows and Enter)."));
        } else {
            const char *name = seat_name(v, to_move, buf, sizeof buf);
            int left = away_seconds(v, name);
            if (left >= 0)
                g_string_append_printf(s, _("Waiting for %s, who is away \u2014 seat kept %d s."),
                                       name, left);
            else
                g_string_append_printf(s, _("Waiting for %s to move."), name);
        }
    }
    if (v->connection[0])
        g_string_append_printf(s, "\n%s", v->connection);
    if (v->flash[0])
        g_string_append_printf(s, "\n%s", v->flash);
    gtk_label_set_text(GTK_LABEL(v->status), s->str);
    g_string_free(s, TRUE);

    /* the banner: prominent while the game is over */
    if (gview_in_game(v) && game_over(m)) {
        GString *b = g_string_new(NULL);
        if (m->status == AGENT_GAME_FINISHED) {
            g_string_append(b, _("Game over \u2014 "));
            append_winners(v, b);
        } else {
            g_string_append(b, _("Game abandoned"));
        }
        char *markup = g_markup_printf_escaped("<span size='x-large' weight='bold'>%s</span>",
                                               b->str);
        gtk_label_set_markup(GTK_LABEL(v->banner), markup);
        g_free(markup);
        g_string_free(b, TRUE);
        gtk_widget_set_visible(v->banner, TRUE);
    } else {
        gtk_widget_set_visible(v->banner, FALSE);
    }
}

static void update_people(gview *v)
{
    const agent_model *m = gview_model(v);
    GString *s = g_string_new(NULL);
    char buf[64];
    int seats = m->have_state ? game_seats(&m->state) : 0;
    int scores[GAME_MAX_SEATS] = {0};
    if (m->status == AGENT_GAME_FINISHED)
        memcpy(scores, m->scores, sizeof scores);
    else if (m->have_state)
        game_scores(&m->state, scores);
    g_string_append_printf(s, "<b>%s</b>\n", _("Players"));
    for (int seat = 0; seat < seats; seat++) {
        const agent_person *p = seat_person(m, seat);
        bool to_move = m->status == AGENT_GAME_RUNNING && seat == game_to_move(&m->state);
        char *name = g_markup_escape_text(seat_name(v, seat, buf, sizeof buf), -1);
        g_string_append_printf(s, "%s%s%s", to_move ? "\u25B6 <b>" : "", name,
                               to_move ? "</b>" : "");
        if (seat == m->my_seat || seat == m->hot_seat)
            g_string_append_printf(s, " %s", _("(you)"));
        g_free(name);
        if (m->status != AGENT_GAME_WAITING)
            g_string_append_printf(s, _(" \u2014 score %d"), scores[seat]);
        if (!m->seat_name[seat][0])
            g_string_append_printf(s, " <i>%s</i>", _("open"));
        else if (!p)
            g_string_append_printf(s, " <i>%s</i>", _("gone"));
        else {
            /* we are here, whatever a snapshot taken as we came back says */
            bool gone = p->departed && seat != m->my_seat && seat != m->hot_seat;
            int left = gone ? away_seconds(v, p->name) : -1;
            if (left >= 0) {
                char *away = g_strdup_printf(_("away \u2014 seat kept %d s"), left);
                g_string_append_printf(s, " <span foreground='#b00000'>%s</span>", away);
                g_free(away);
            } else if (gone) {
                g_string_append_printf(s, " <span foreground='#b00000'>%s</span>",
                                       _("departed, may return"));
            } else if (p->rtt_ms >= 0) {
                g_string_append_printf(s, _(" \u00B7 %d ms"), p->rtt_ms);
            }
            if (m->status == AGENT_GAME_WAITING)
                g_string_append_printf(s, " \u00B7 %s", p->ready ? _("ready") : _("not ready"));
        }
        g_string_append_c(s, '\n');
    }
    /* A crowd is counted, and only its first few named. */
    if (m->n_observers > 0) {
        GString *names = g_string_new(NULL);
        int named = 0;
        for (int i = 0; i < m->n_people; i++) {
            if (m->people[i].seat >= 0)
                continue;
            char *name = g_markup_escape_text(m->people[i].name, -1);
            g_string_append_printf(names, "%s%s", named++ ? ", " : "", name);
            g_free(name);
        }
        if (named < m->n_observers)
            g_string_append(names, named ? ", \u2026" : "\u2026");
        g_string_append_printf(s, _("%d watching: %s"), m->n_observers, names->str);
        g_string_append_c(s, '\n');
        g_string_free(names, TRUE);
    }
    if (s->len && s->str[s->len - 1] == '\n')
        g_string_truncate(s, s->len - 1);
    gtk_label_set_markup(GTK_LABEL(v->people), s->str);
    g_string_free(s, TRUE);
}

/* Everyone but us, for private messages; the list is only rebuilt when it
 * changes, and the chosen name is kept. */
static void update_recipients(gview *v)
{
    const agent_model *m = gview_model(v);
    GPtrArray *want = g_ptr_array_new();
    g_ptr_array_add(want, (gpointer)_("Everyone"));
    for (int i = 0; i < m->n_people; i++)
        if (strcmp(m->people[i].name, m->my_name) != 0)
            g_ptr_array_add(want, (gpointer)m->people[i].name);
    guint n = g_list_model_get_n_items(G_LIST_MODEL(v->recipients));
    bool same = n == want->len;
    for (guint i = 0; same && i < n; i++)
        same = strcmp(gtk_string_list_get_string(v->recipients, i), want->pdata[i]) == 0;
    if (!same) {
        guint sel = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->recipient));
        char *chosen = sel != GTK_INVALID_LIST_POSITION && sel < n
                           ? g_strdup(gtk_string_list_get_string(v->recipients, sel))
                           : NULL;
        g_ptr_array_add(want, NULL);
        gtk_string_list_splice(v->recipients, 0, n, (const char *const *)want->pdata);
        guint pick = 0;
        for (guint i = 0; chosen && i + 1 < want->len; i++)
            if (strcmp(want->pdata[i], chosen) == 0)
                pick = i;
        gtk_drop_down_set_selected(GTK_DROP_DOWN(v->recipient), pick);
        g_free(chosen);
    }
    g_ptr_array_free(want, TRUE);
}

static void update_buttons(gview *v)
{
    const agent_model *m = gview_model(v);
    bool in = gview_in_game(v);
    bool waiting = in && m->status == AGENT_GAME_WAITING;
    const agent_person *me = find_person(m, m->my_name);
    bool ready = me && me->ready;
    gtk_button_set_label(GTK_BUTTON(v->btn_ready),
                         waiting && ready ? _("Not ready") : _("Ready"));
    gtk_widget_set_sensitive(v->btn_ready, waiting && m->my_seat >= 0);
    gtk_widget_set_sensitive(v->btn_sit, waiting && m->my_seat < 0);
    gtk_widget_set_sensitive(v->btn_stand, waiting && m->my_seat >= 0);
    gtk_widget_set_sensitive(v->btn_leave, in);
    gtk_widget_set_sensitive(v->btn_games, v->ag && !playing_running_game(v));
    gtk_widget_set_sensitive(v->btn_history, v->ag != NULL);
    gtk_widget_set_sensitive(v->entry, in);
    gtk_widget_set_sensitive(v->recipient, in);
}

/* A sentence for screen readers: what the board holds now. */
static void update_accessible(gview *v)
{
    const agent_model *m = gview_model(v);
    GString *s = g_string_new(NULL);
    if (m->have_state && m->state.layout == GAME_LAYOUT_MANCALA) {
        char buf[64];
        for (int seat = 0; seat < game_seats(&m->state); seat++) {
            g_string_append_printf(s, _("%s: cups"), seat_name(v, seat, buf, sizeof buf));
            for (int c = 0; c < m->state.cups; c++)
                g_string_append_printf(s, " %d",
                                       game_cell(&m->state, game_mancala_cup(&m->state, seat, c)));
            g_string_append_printf(s, _(", home %d. "),
                                   game_cell(&m->state, game_mancala_home(&m->state, seat)));
        }
    } else if (m->have_state) {
        int scores[GAME_MAX_SEATS];
        char buf[64];
        game_scores(&m->state, scores);
        for (int seat = 0; seat < game_seats(&m->state); seat++)
            g_string_append_printf(s, _("%s has %d. "), seat_name(v, seat, buf, sizeof buf),
                                   scores[seat]);
    }
    g_string_append(s, gtk_label_get_text(GTK_LABEL(v->status)));
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->area), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                   s->str, -1);
    g_string_free(s, TRUE);
}

static void update_title(gview *v)
{
    const agent_model *m = gview_model(v);
    char *t;
    if (gview_in_game(v) && m->kind)
        t = g_strdup_printf(_("Sungka \u2014 game %s: %s (%s)"), m->game_id, m->title,
                            m->kind->name);
    else
        t = g_strdup(_("Sungka"));
    gtk_window_set_title(GTK_WINDOW(v->window), t);
    g_free(t);
}

void gview_refresh(gview *v)
{
    if (!cell_is_legal(v, v->hover))
        v->hover = -1;
    update_status(v);
    update_people(v);
    update_recipients(v);
    update_buttons(v);
    update_title(v);
    update_accessible(v);
    gtk_widget_queue_draw(v->area);
}

/* ------------------------------------------------------------ game over */

static void close_over_dialog(gview *v)
{
    if (v->over_dialog) {
        GtkWidget *d = v->over_dialog;
        v->over_dialog = NULL;
        gtk_window_destroy(GTK_WINDOW(d));
    }
}

static void on_over_ok(GtkButton *b, gpointer data)
{
    (void)b;
    close_over_dialog(data);
}

static gboolean on_over_close(GtkWindow *w, gpointer data)
{
    (void)w;
    gview *v = data;
    v->over_dialog = NULL;      /* it is being destroyed */
    return FALSE;
}

static void show_game_over(gview *v, const agent_msg *msg)
{
    const agent_model *m = gview_model(v);
    GString *s = g_string_new(NULL);
    char buf[64];
    if (msg->abandoned) {
        g_string_append_printf(s, _("The game was abandoned: %s."), msg->text);
    } else {
        g_string_append_printf(s, _("Game over: %s.\n"), msg->text);
        append_winners(v, s);
        g_string_append(s, ".\n");
        for (int i = 0; i < msg->n_scores; i++)
            g_string_append_printf(s, "%s %s %d", i ? "," : _("Scores:"),
                                   seat_name(v, i, buf, sizeof buf), msg->scores[i]);
    }
    gview_log(v, "%s", s->str);

    close_over_dialog(v);
    GtkWidget *d = gview_dialog(v, _("Game over"));
    gtk_window_set_default_size(GTK_WINDOW(d), 320, -1);
    GtkWidget *box = gview_padded_column(12, 18);
    GtkWidget *head = gtk_label_new(NULL);
    GString *h = g_string_new(NULL);
    if (m->status == AGENT_GAME_FINISHED)
        append_winners(v, h);
    else
        g_string_append(h, _("Game abandoned"));
    char *markup = g_markup_printf_escaped("<span size='x-large' weight='bold'>%s</span>", h->str);
    gtk_label_set_markup(GTK_LABEL(head), markup);
    g_free(markup);
    g_string_free(h, TRUE);
    GtkWidget *body = gtk_label_new(s->str);
    gtk_label_set_wrap(GTK_LABEL(body), TRUE);
    GtkWidget *ok = gtk_button_new_with_label(_("OK"));
    gtk_widget_set_halign(ok, GTK_ALIGN_END);
    g_signal_connect(ok, "clicked", G_CALLBACK(on_over_ok), v);
    g_signal_connect(d, "close-request", G_CALLBACK(on_over_close), v);
    gtk_box_append(GTK_BOX(box), head);
    gtk_box_append(GTK_BOX(box), body);
    gtk_box_append(GTK_BOX(box), ok);
    gtk_window_set_child(GTK_WINDOW(d), box);
    v->over_dialog = d;
    gtk_window_present(GTK_WINDOW(d));
    g_string_free(s, TRUE);
}

/* ------------------------------------------------------------ messages */

/* An agent's sentence fragment ("lost the connection to ...") with a
 * capital and an ending, into buf. */
static void sentence(char *buf, size_t len, const char *text, const char *end)
{
    g_strlcpy(buf, text, len);
    g_strlcat(buf, end, len);
    if (buf[0] >= 'a' && buf[0] <= 'z')
        buf[0] = (char)(buf[0] - 'a' + 'A');
}

static void handle(gview *v, const agent_msg *msg)
{
    char buf[64];
    switch (msg->kind) {
    case AGENT_MSG_SNAPSHOT: {
        const agent_model *m = gview_model(v);
        anim_jump(v);
        v->last_cell = -1;
        v->cursor = -1;
        v->move_pending = false;
        gview_log(v, _("Game %s: %s (%s)."), m->game_id, m->title,
                  m->kind ? m->kind->name : "?");
        if (m->my_seat >= 0)
            gview_log(v, _("You are %s, seat %d."), m->seat_name[m->my_seat], m->my_seat);
        else
            gview_log(v, _("You are watching."));
        if (game_over(m))
            gview_log(v, _("This game is over: %s."), m->end_reason);
        break;
    }
    case AGENT_MSG_JOINED:
        /* observers are counted, not named (see the end of this function) */
        if (msg->seat >= 0)
            gview_log(v, _("%s joined, seat %d."), msg->name, msg->seat);
        break;
    case AGENT_MSG_LEFT:
        if (msg->seat >= 0)
            gview_log(v, _("%s left."), msg->name);
        break;
    case AGENT_MSG_DEPARTED:
        if (msg->grace_s > 0)
            gview_log(v, _("%s departed: %s. The seat is kept for %d s."), msg->name, msg->text,
                      msg->grace_s);
        else if (msg->seat >= 0)
            gview_log(v, _("%s departed: %s."), msg->name, msg->text);
        break;
    case AGENT_MSG_RETURNED:
        gview_log(v, _("%s is back."), msg->name);
        break;
    case AGENT_MSG_READY:
        gview_log(v, msg->ready ? _("%s is ready.") : _("%s is not ready."), msg->name);
        break;
    case AGENT_MSG_SEAT:
        if (msg->seat >= 0)
            gview_log(v, _("%s sits down at seat %d."), msg->name, msg->seat);
        else
            gview_log(v, _("%s stands up and watches."), msg->name);
        break;
    case AGENT_MSG_STARTED:
        gview_log(v, _("The game starts; %s moves first."), seat_name(v, msg->seat, buf, sizeof buf));
        anim_jump(v);
        v->last_cell = -1;
        break;
    case AGENT_MSG_TURN:
        for (int i = 0; i < msg->n_passed; i++)
            gview_log(v, _("%s passes: no move."), seat_name(v, msg->passed[i], buf, sizeof buf));
        v->move_pending = false;
        break;
    case AGENT_MSG_MOVED: {
        const agent_model *m = gview_model(v);
        char mv[16];
        agent_format_move(m, msg->move, mv, sizeof mv);
        gview_log(v, _("%s played %s %s."), seat_name(v, msg->seat, buf, sizeof buf),
                  m->state.layout == GAME_LAYOUT_MANCALA ? _("cup") : _("cell"), mv);
        if (msg->mismatch)
            gview_log(v, _("WARNING: %s"), msg->text);
        if (msg->extra_turn)
            gview_log(v, _("%s moves again."), seat_name(v, msg->seat, buf, sizeof buf));
        v->move_pending = false;
        v->flash[0] = '\0';
        anim_start(v, msg);
        break;
    }
    case AGENT_MSG_CHAT:
        if (msg->to[0])
            gview_log(v, _("[%s to %s] %s"), msg->name, msg->to, msg->text);
        else
            gview_log(v, "%s: %s", msg->name, msg->text);
        break;
    case AGENT_MSG_GAME_OVER:
        show_game_over(v, msg);
        break;
    case AGENT_MSG_NOTICE:
        gview_log(v, _("Notice: %s"), msg->text);
        break;
    case AGENT_MSG_PINGS:
        break;
    case AGENT_MSG_REFUSED:
        v->move_pending = false;
        snprintf(v->flash, sizeof v->flash, _("Refused: %s"), msg->text);
        gview_log(v, _("Refused: %s"), msg->text);
        break;
    case AGENT_MSG_DISCONNECTED:
        gview_log(v, _("Disconnected from the board service (%s)."), msg->text);
        v->connection[0] = '\0';
        snprintf(v->flash, sizeof v->flash, _("Disconnected: %s"), msg->text);
        v->exit_status = game_over(gview_model(v)) ? 0 : 1;
        break;
    case AGENT_MSG_RECONNECTING:   /* the agent's words, once and then every 10 s */
        sentence(v->connection, sizeof v->connection, msg->text, "");
        gview_log(v, "%s", v->connection);
        break;
    case AGENT_MSG_RECONNECTED:
        v->connection[0] = '\0';
        sentence(v->flash, sizeof v->flash, msg->text, ".");
        gview_log(v, "%s", v->flash);
        break;
    }
    /* Observers come and go without a line each; one line says how many
     * watch whenever that changes. */
    int watching = gview_model(v)->n_observers;
    if (msg->kind == AGENT_MSG_SNAPSHOT)
        v->watching = watching;
    else if (v->watching >= 0 && watching != v->watching && gview_in_game(v)) {
        if (watching <= 0)
            gview_log(v, _("Nobody is watching."));
        else
            gview_log(v, ngettext("%d person is watching.", "%d people are watching.",
                                  (unsigned long)watching),
                      watching);
        v->watching = watching;
    }
    if (!gview_animating(v))
        sync_shown(v);
}

static gboolean on_agent(gint fd, GIOCondition cond, gpointer data)
{
    (void)fd;
    (void)cond;
    gview *v = data;
    agent_msg *msg;
    while ((msg = agent_next(v->ag)) != NULL) {
        handle(v, msg);
        agent_msg_free(msg);
    }
    away_watch(v);
    gview_refresh(v);
    return G_SOURCE_CONTINUE;
}

/* ------------------------------------------------------------ input */

static void play(gview *v, int move)
{
    char why[GAME_ERR_LEN];
    if (agent_check_move(v->ag, move, why, sizeof why) != 0) {
        snprintf(v->flash, sizeof v->flash, _("Not allowed: %s"), why);
    } else if (agent_move(v->ag, move) != 0) {
        snprintf(v->flash, sizeof v->flash, _("Could not send the move."));
    } else {
        v->flash[0] = '\0';
        v->move_pending = true;
        v->hover = -1;
    }
    gview_refresh(v);
}

void gview_motion(gview *v, double x, double y)
{
    geo_layout L;
    gview_layout(v, &L);
    int cell = geo_hit(&L, x, y);
    int hover = !gview_animating(v) && cell_is_legal(v, cell) ? cell : -1;
    if (hover != v->hover) {
        v->hover = hover;
        gtk_widget_set_cursor_from_name(v->area, hover >= 0 ? "pointer" : NULL);
        gtk_widget_queue_draw(v->area);
    }
}

void gview_click(gview *v, double x, double y)
{
    if (gview_animating(v)) {   /* a click skips the animation */
        anim_skip(v);
        gview_refresh(v);
        return;
    }
    const agent_model *m = gview_model(v);
    geo_layout L;
    gview_layout(v, &L);
    int cell = geo_hit(&L, x, y);
    if (cell < 0 || !gview_my_turn(v) || v->move_pending)
        return;
    int move = geo_cell_move(&m->state, game_to_move(&m->state), cell);
    if (move < 0) {
        snprintf(v->flash, sizeof v->flash, "%s",
                 m->state.layout == GAME_LAYOUT_MANCALA ? _("Choose one of your own cups.")
                                                        : _("That cell cannot be played."));
        gview_refresh(v);
        return;
    }
    v->cursor = cell;
    play(v, move);
}

bool gview_key(gview *v, guint keyval)
{
    int dx = 0, dy = 0;
    switch (keyval) {
    case GDK_KEY_Left: case GDK_KEY_KP_Left: dx = -1; break;
    case GDK_KEY_Right: case GDK_KEY_KP_Right: dx = 1; break;
    case GDK_KEY_Up: case GDK_KEY_KP_Up: dy = -1; break;
    case GDK_KEY_Down: case GDK_KEY_KP_Down: dy = 1; break;
    case GDK_KEY_Return: case GDK_KEY_KP_Enter: case GDK_KEY_space: case GDK_KEY_KP_Space:
        break;
    case GDK_KEY_Escape:
        if (gview_animating(v))
            anim_skip(v);
        v->cursor = -1;
        gview_refresh(v);
        return true;
    default:
        return false;
    }
    if (gview_animating(v)) {   /* a key skips the animation */
        anim_skip(v);
        gview_refresh(v);
        return true;
    }
    int cells[GAME_MAX_MOVES];
    int n = legal_cells(v, cells, GAME_MAX_MOVES);
    if (n == 0)
        return true;
    bool on_legal = false;
    for (int i = 0; i < n; i++)
        on_legal |= cells[i] == v->cursor;
    geo_layout L;
    gview_layout(v, &L);
    if (dx || dy) {
        if (!on_legal)
            v->cursor = v->hover >= 0 ? v->hover : cells[0];
        else {
            int next = geo_step(&L, v->cursor, dx, dy, cells, n);
            if (next >= 0)
                v->cursor = next;
        }
        gtk_widget_queue_draw(v->area);
        return true;
    }
    if (!on_legal) {            /* Enter with no cursor yet: show it first */
        v->cursor = cells[0];
        gtk_widget_queue_draw(v->area);
        return true;
    }
    const agent_model *m = gview_model(v);
    play(v, geo_cell_move(&m->state, game_to_move(&m->state), v->cursor));
    return true;
}

static void on_motion(GtkEventControllerMotion *c, double x, double y, gpointer data)
{
    (void)c;
    gview_motion(data, x, y);
}

static void on_leave(GtkEventControllerMotion *c, gpointer data)
{
    (void)c;
    gview *v = data;
    if (v->hover >= 0) {
        v->hover = -1;
        gtk_widget_set_cursor_from_name(v->area, NULL);
        gtk_widget_queue_draw(v->area);
    }
}

static void on_pressed(GtkGestureClick *g, int n_press, double x, double y, gpointer data)
{
    (void)g;
    (void)n_press;
    gview *v = data;
    gtk_widget_grab_focus(v->area);
    gview_click(v, x, y);
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint keycode,
                       GdkModifierType state, gpointer data)
{
    (void)c;
    (void)keycode;
    (void)state;
    return gview_key(data, keyval);
}

/* ------------------------------------------------------------ chat */

static void on_chat(GtkEntry *entry, gpointer data)
{
    gview *v = data;
    GtkEntryBuffer *eb = gtk_entry_get_buffer(entry);
    char *line = g_strstrip(g_strdup(gtk_entry_buffer_get_text(eb)));
    int rc = 0;
    if (!*line) {
        g_free(line);
        return;
    }
    if (g_str_has_prefix(line, "/tell ")) {   /* /tell NAME text */
        char *name = g_strchug(line + 6);
        char *text = name;
        while (*text && !g_ascii_isspace(*text))
            text++;
        if (*text)
            *text++ = '\0';
        g_strchug(text);
        if (!*name || !*text) {
            snprintf(v->flash, sizeof v->flash, _("Usage: /tell NAME text"));
            gview_refresh(v);
            g_free(line);
            return;
        }
        rc = agent_tell(v->ag, name, text);
    } else {
        guint sel = gtk_drop_down_get_selected(GTK_DROP_DOWN(v->recipient));
        if (sel != GTK_INVALID_LIST_POSITION && sel > 0)
            rc = agent_tell(v->ag, gtk_string_list_get_string(v->recipients, sel), line);
        else
            rc = agent_chat(v->ag, line);
    }
    if (rc != 0)
        gview_log(v, _("You are not in a game."));
    gtk_entry_buffer_set_text(eb, "", 0);
    g_free(line);
}

/* ------------------------------------------------------------ buttons */

static void on_ready(GtkButton *b, gpointer data)
{
    (void)b;
    gview *v = data;
    const agent_model *m = gview_model(v);
    const agent_person *me = find_person(m, m->my_name);
    agent_ready(v->ag, !(me && me->ready));
}

static void on_sit(GtkButton *b, gpointer data)
{
    (void)b;
    gview *v = data;
    agent_sit(v->ag, -1);
}

static void on_stand(GtkButton *b, gpointer data)
{
    (void)b;
    gview *v = data;
    agent_stand(v->ag);
}

/* A small yes/no question (GtkAlertDialog is newer than GTK 4.8). */
typedef void (*answer_fn)(gview *v);

static void on_ask_yes(GtkButton *b, gpointer data)
{
    GtkWidget *d = gtk_widget_get_ancestor(GTK_WIDGET(b), GTK_TYPE_WINDOW);
    answer_fn fn = (answer_fn)g_object_get_data(G_OBJECT(d), "answer");
    gview *v = data;
    gtk_window_destroy(GTK_WINDOW(d));
    fn(v);
}

static void on_ask_no(GtkButton *b, gpointer data)
{
    (void)data;
    gtk_window_destroy(GTK_WINDOW(gtk_widget_get_ancestor(GTK_WIDGET(b), GTK_TYPE_WINDOW)));
}

static void ask(gview *v, const char *question, const char *yes, answer_fn fn)
{
    GtkWidget *d = gview_dialog(v, _("Sungka"));
    gtk_window_set_modal(GTK_WINDOW(d), TRUE);
    g_object_set_data(G_OBJECT(d), "answer", (gpointer)fn);
    GtkWidget *box = gview_padded_column(12, 18);
    GtkWidget *label = gtk_label_new(question);
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_halign(row, GTK_ALIGN_END);
    GtkWidget *no = gtk_button_new_with_label(_("Cancel"));
    GtkWidget *ok = gtk_button_new_with_label(yes);
    gtk_widget_add_css_class(ok, "destructive-action");
    g_signal_connect(no, "clicked", G_CALLBACK(on_ask_no), v);
    g_signal_connect(ok, "clicked", G_CALLBACK(on_ask_yes), v);
    gtk_box_append(GTK_BOX(row), no);
    gtk_box_append(GTK_BOX(row), ok);
    gtk_box_append(GTK_BOX(box), label);
    gtk_box_append(GTK_BOX(box), row);
    gtk_window_set_child(GTK_WINDOW(d), box);
    gtk_window_present(GTK_WINDOW(d));
}

static void do_leave(gview *v)
{
    char id[32];
    snprintf(id, sizeof id, "%s", agent_game_id(v->ag));
    anim_jump(v);
    close_over_dialog(v);
    if (agent_leave(v->ag) == 0)
        gview_log(v, _("You left game %s."), id);
    else
        gview_log(v, _("Could not tell the service that you left."));
    v->flash[0] = '\0';
    v->connection[0] = '\0';      /* that game's stream is over */
    sync_shown(v);
    gview_refresh(v);
    globby_show(v->lobby);
}

static void on_leave_clicked(GtkButton *b, gpointer data)
{
    (void)b;
    gview *v = data;
    if (playing_running_game(v))
        ask(v, _("Leaving now ends the game for everyone, with no winner. Leave?"), _("Leave"),
            do_leave);
    else
        do_leave(v);
}

static void on_games(GtkButton *b, gpointer data)
{
    (void)b;
    gview *v = data;
    globby_show(v->lobby);
}

static void on_history(GtkButton *b, gpointer data)
{
    (void)b;
    gview *v = data;
    if (!v->history)
        v->history = ghistory_new(v);
    ghistory_show(v->history);
}

void gview_quit(gview *v)
{
    v->quitting = true;
    g_main_loop_quit(v->loop);
}

static gboolean on_close_request(GtkWindow *w, gpointer data)
{
    (void)w;
    gview *v = data;
    if (playing_running_game(v) && !v->quitting) {
        ask(v, _("Closing now ends the game for everyone, with no winner. Quit?"), _("Quit"),
            gview_quit);
        return TRUE;            /* keep the window until answered */
    }
    gview_quit(v);
    return TRUE;                /* run() destroys it */
}

void gview_joined(gview *v)
{
    anim_jump(v);
    v->last_cell = v->hover = v->cursor = -1;
    v->move_pending = false;
    v->flash[0] = '\0';
    v->connection[0] = '\0';
    sync_shown(v);
    gview_refresh(v);
}

/* ------------------------------------------------------------ building */

static GtkWidget *labelled_button(const char *label, const char *tip)
{
    GtkWidget *b = gtk_button_new_with_mnemonic(label);
    gtk_widget_set_tooltip_text(b, tip);
    gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL, tip, -1);
    return b;
}

static void build(gview *v)
{
    v->window = gtk_window_new();
    gtk_window_set_default_size(GTK_WINDOW(v->window), 960, 640);
    g_signal_connect(v->window, "close-request", G_CALLBACK(on_close_request), v);

    GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_HORIZONTAL);
    gtk_window_set_child(GTK_WINDOW(v->window), paned);

    /* left: banner, status, board, buttons */
    GtkWidget *left = gview_padded_column(6, 8);
    v->banner = gtk_label_new(NULL);
    gtk_widget_set_visible(v->banner, FALSE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->banner), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Result"), -1);
    v->status = gtk_label_new(NULL);
    gtk_label_set_wrap(GTK_LABEL(v->status), TRUE);
    gtk_label_set_xalign(GTK_LABEL(v->status), 0);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->status), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Status"), -1);
    v->area = gtk_drawing_area_new();
    gtk_widget_set_hexpand(v->area, TRUE);
    gtk_widget_set_vexpand(v->area, TRUE);
    gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(v->area), 240);
    gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(v->area), 160);
    gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(v->area), draw_board, v, NULL);
    gtk_widget_set_focusable(v->area, TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->area), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Game board: click a highlighted cup or cell to play, "
                                     "or use the arrow keys and Enter"),
                                   -1);
    GtkEventController *motion = gtk_event_controller_motion_new();
    g_signal_connect(motion, "motion", G_CALLBACK(on_motion), v);
    g_signal_connect(motion, "leave", G_CALLBACK(on_leave), v);
    gtk_widget_add_controller(v->area, motion);
    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "pressed", G_CALLBACK(on_pressed), v);
    gtk_widget_add_controller(v->area, GTK_EVENT_CONTROLLER(click));
    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(on_key), v);
    gtk_widget_add_controller(v->area, keys);

    GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    v->btn_ready = labelled_button(_("_Ready"), _("Say you are ready to start"));
    v->btn_sit = labelled_button(_("_Sit"), _("Take an open seat"));
    v->btn_stand = labelled_button(_("S_tand"), _("Give up your seat and watch"));
    v->btn_leave = labelled_button(_("_Leave"), _("Leave this game"));
    v->btn_games = labelled_button(_("_Games\u2026"), _("List, create or join games"));
    v->btn_history = labelled_button(_("_History\u2026"), _("Past matches and their replays"));
    g_signal_connect(v->btn_ready, "clicked", G_CALLBACK(on_ready), v);
    g_signal_connect(v->btn_sit, "clicked", G_CALLBACK(on_sit), v);
    g_signal_connect(v->btn_stand, "clicked", G_CALLBACK(on_stand), v);
    g_signal_connect(v->btn_leave, "clicked", G_CALLBACK(on_leave_clicked), v);
    g_signal_connect(v->btn_games, "clicked", G_CALLBACK(on_games), v);
    g_signal_connect(v->btn_history, "clicked", G_CALLBACK(on_history), v);
    gtk_box_append(GTK_BOX(buttons), v->btn_ready);
    gtk_box_append(GTK_BOX(buttons), v->btn_sit);
    gtk_box_append(GTK_BOX(buttons), v->btn_stand);
    gtk_box_append(GTK_BOX(buttons), v->btn_leave);
    gtk_box_append(GTK_BOX(buttons), v->btn_games);
    gtk_box_append(GTK_BOX(buttons), v->btn_history);

    gtk_box_append(GTK_BOX(left), v->banner);
    gtk_box_append(GTK_BOX(left), v->status);
    gtk_box_append(GTK_BOX(left), v->area);
    gtk_box_append(GTK_BOX(left), buttons);

    /* right: players, log, chat entry */
    GtkWidget *right = gview_padded_column(6, 8);
    gtk_widget_set_size_request(right, 260, -1);
    v->people = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(v->people), 0);
    gtk_label_set_wrap(GTK_LABEL(v->people), TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->people), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Players"), -1);
    v->log = gtk_text_view_new();
    gtk_text_view_set_editable(GTK_TEXT_VIEW(v->log), FALSE);
    gtk_text_view_set_cursor_visible(GTK_TEXT_VIEW(v->log), FALSE);
    gtk_text_view_set_wrap_mode(GTK_TEXT_VIEW(v->log), GTK_WRAP_WORD_CHAR);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->log), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Game events and chat"), -1);
    GtkTextBuffer *tb = gtk_text_view_get_buffer(GTK_TEXT_VIEW(v->log));
    GtkTextIter end;
    gtk_text_buffer_get_end_iter(tb, &end);
    gtk_text_buffer_create_mark(tb, "end", &end, FALSE);
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), v->log);
    gtk_widget_set_vexpand(scroll, TRUE);

    GtkWidget *chat = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
    const char *none[] = {NULL};
    v->recipients = gtk_string_list_new(none);
    v->recipient = gtk_drop_down_new(G_LIST_MODEL(v->recipients), NULL);
    gtk_widget_set_tooltip_text(v->recipient, _("Send to everyone, or privately to one person"));
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->recipient), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Chat recipient"), -1);
    v->entry = gtk_entry_new();
    gtk_widget_set_hexpand(v->entry, TRUE);
    gtk_entry_set_placeholder_text(GTK_ENTRY(v->entry), _("Chat (/tell NAME text: private)"));
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Chat message"), -1);
    g_signal_connect(v->entry, "activate", G_CALLBACK(on_chat), v);
    gtk_box_append(GTK_BOX(chat), v->recipient);
    gtk_box_append(GTK_BOX(chat), v->entry);

    gtk_box_append(GTK_BOX(right), v->people);
    gtk_box_append(GTK_BOX(right), scroll);
    gtk_box_append(GTK_BOX(right), chat);

    gtk_paned_set_start_child(GTK_PANED(paned), left);
    gtk_paned_set_end_child(GTK_PANED(paned), right);
    gtk_paned_set_resize_end_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_shrink_end_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_position(GTK_PANED(paned), 640);
}

/* GTK up and the window shown, with no agent yet; NULL without a display. */
static gview *open_window(void)
{
    setlocale(LC_ALL, "");
    textdomain("sungka");
    if (!gtk_init_check()) {
        fprintf(stderr, "sungka-player: the GTK view cannot open a display (is DISPLAY set?)\n");
        return NULL;
    }
    gtk_window_set_default_icon_name("sungka");   /* installed by packaging/ */
    gview *v = g_new0(gview, 1);
    v->last_cell = v->hover = v->cursor = -1;
    v->watching = -1;
    v->loop = g_main_loop_new(NULL, FALSE);
    build(v);
    sync_shown(v);
    gview_refresh(v);
    gtk_window_present(GTK_WINDOW(v->window));
    gtk_widget_grab_focus(v->area);
    return v;
}

void gview_connected(gview *v, agent *ag)
{
    v->ag = ag;
    v->agent_watch = g_unix_fd_add(agent_fd(ag), G_IO_IN, on_agent, v);
    v->lobby = globby_new(v);
    sync_shown(v);
    gview_refresh(v);
    if (!agent_in_game(ag))     /* nothing said on the command line: the lobby */
        globby_show(v->lobby);
}

/* Follow the test script, if any, run until the user quits, and take
 * everything down; the exit status. */
static int run_window(gview *v)
{
    const char *script = getenv("SUNGKA_GTK_SCRIPT");
    if (script && *script)
        v->script = gscript_start(v, script);

    g_main_loop_run(v->loop);

    gscript_free(v->script);
    if (v->exit_status == 0 && v->ag)
        agent_leave(v->ag);     /* as the text view does on quit */
    anim_jump(v);
    if (v->agent_watch)
        g_source_remove(v->agent_watch);
    if (v->away_tick)
        g_source_remove(v->away_tick);
    greplay_free(v->replay);
    ghistory_free(v->history);
    globby_free(v->lobby);
    gconnect_free(v->connect);
    close_over_dialog(v);
    gtk_window_destroy(GTK_WINDOW(v->window));
    while (g_main_context_iteration(NULL, FALSE))
        ;
    g_main_loop_unref(v->loop);
    int status = v->exit_status;
    g_free(v);
    return status;
}

static int run(agent *ag, const view_io *io)
{
    (void)io;
    gview *v = open_window();
    if (!v)
        return 1;
    gview_connected(v, ag);
    return run_window(v);
}

static int run_connect(view_launcher *l, const view_io *io)
{
    (void)io;
    gview *v = open_window();
    if (!v)
        return 1;
    v->launcher = l;
    v->connect = gconnect_new(v);
    return run_window(v);
}

const view_ops view_gtk = {
    .name = "gtk",
    .summary = "a GTK 4 window: click to move, chat, games, history and replays",
    .run = run,
    .run_connect = run_connect,
};
