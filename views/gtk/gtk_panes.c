/*
 * gtk_panes.c — what surrounds the board, drawn from the agent's model: the
 * status line (whose turn, what we wait for, how the connection is) and the
 * game-over banner above the board; beside it the players pane (seats,
 * scores, pings, who is away and for how long, how many watch), the event
 * and chat log, and the chat entry with its choice of recipient. Also the
 * window's title and the board's description for screen readers.
 * gview_refresh redraws all of it after anything changed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gtk_view_internal.h"
#include "narrate.h"

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

/* ------------------------------------------------------------ status */

void gview_append_winners(const gview *v, GString *s)
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
        g_string_append(s, gview_seat_name(v, m->winners[i], buf, sizeof buf));
    }
}

void gview_update_status(gview *v)
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
        gview_append_winners(v, s);
        g_string_append(s, ".");
    } else if (m->status == AGENT_GAME_ABANDONED) {
        char why[AGENT_TEXT_BYTES];
        g_string_append_printf(s, _("Game abandoned: %s."), view_end_reason(m, why, sizeof why));
    } else if (m->status != AGENT_GAME_RUNNING || !m->have_state) {
        g_string_append(s, _("Waiting for every seat to be taken and every player ready."));
        if (m->my_seat >= 0)
            g_string_append(s, _(" Press Ready when you are."));
    } else {
        int to_move = game_to_move(&m->state);
        if (gview_my_turn(v)) {
            if (m->hot_seat >= 0)
                g_string_append_printf(s, _("%s's turn: "), gview_seat_name(v, to_move, buf, sizeof buf));
            else
                g_string_append(s, _("Your turn: "));
            if (m->state.layout == GAME_LAYOUT_MANCALA)
                g_string_append(s, _("click one of your cups (or arrows and Enter)."));
            else
                g_string_append(s, _("click a highlighted cell (or arrows and Enter)."));
        } else {
            const char *name = gview_seat_name(v, to_move, buf, sizeof buf);
            int left = gview_away_seconds(v, name);
            if (left >= 0)
                g_string_append_printf(s, _("Waiting for %s, who is away \u2014 seat kept %d s."),
                                       name, left);
            else
                g_string_append_printf(s, _("Waiting for %s to move."), name);
        }
    }
    if (v->viewing == 0 && v->ag && agent_in_game(v->ag))
        g_string_append_printf(s, "\n%s", _("The board shows the start of the game; Back to "
                                             "the Game returns to it."));
    else if (v->viewing > 0 && v->ag && agent_in_game(v->ag))
        g_string_append_printf(s, _("\nThe board shows the position after move %d of %d; "
                                    "Back to the Game returns to it."),
                               v->viewing, v->n_listed_moves);
    if (v->connection[0])
        g_string_append_printf(s, "\n%s", v->connection);
    if (v->flash[0])
        g_string_append_printf(s, "\n%s", v->flash);
    gtk_label_set_text(GTK_LABEL(v->status), s->str);
    g_string_free(s, TRUE);

    /* the banner: prominent while the game is over */
    if (gview_in_game(v) && gview_game_over(m)) {
        GString *b = g_string_new(NULL);
        if (m->status == AGENT_GAME_FINISHED) {
            g_string_append(b, _("Game over \u2014 "));
            gview_append_winners(v, b);
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

void gview_update_people(gview *v)
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
        const agent_person *p = gview_seat_person(m, seat);
        bool to_move = m->status == AGENT_GAME_RUNNING && seat == game_to_move(&m->state);
        char *name = g_markup_escape_text(gview_seat_name(v, seat, buf, sizeof buf), -1);
        g_string_append_printf(s, "%s%s%s", to_move ? "\u25B6 <b>" : "", name,
                               to_move ? "</b>" : "");
        if (seat == m->my_seat || seat == m->hot_seat)
            g_string_append_printf(s, " %s", _("(you)"));
        g_free(name);
        if (m->status != AGENT_GAME_WAITING)
            g_string_append_printf(s, _(" \u2014 score %d"), scores[seat]);
        int64_t clock = agent_clock_left(m, seat);
        if (clock >= 0) {
            char left[16];
            agent_format_clock(clock, left, sizeof left);
            bool running = seat == m->clock_running && m->status == AGENT_GAME_RUNNING;
            /* TRANSLATORS: the time left on a player's clock ("4:59 left") */
            char *text = g_strdup_printf(_("%s left"), left);
            g_string_append_printf(s, running ? " \u00B7 <b>%s</b>" : " \u00B7 %s", text);
            g_free(text);
        }
        if (!m->seat_name[seat][0])
            g_string_append_printf(s, " <i>%s</i>", _("open"));
        else if (!p)
            g_string_append_printf(s, " <i>%s</i>", _("gone"));
        else {
            /* we are here, whatever a snapshot taken as we came back says */
            bool gone = p->departed && seat != m->my_seat && seat != m->hot_seat;
            int left = gone ? gview_away_seconds(v, p->name) : -1;
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
            if (p->out)
                g_string_append_printf(s, " <i>%s</i>", _("out of the game"));
            if (p->guest && agent_marks_guests(m))
                g_string_append_printf(s, " <i>%s</i>", _("guest"));
            char rating[16];
            agent_format_rating(&p->rating, rating, sizeof rating);
            if (rating[0])
                g_string_append_printf(s, " \u00B7 <b>%s</b>", rating);
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

/* A sentence for screen readers: what the board holds now. */
static void update_accessible(gview *v)
{
    const agent_model *m = gview_model(v);
    GString *s = g_string_new(NULL);
    if (m->have_state && m->state.layout == GAME_LAYOUT_MANCALA) {
        char buf[64];
        for (int seat = 0; seat < game_seats(&m->state); seat++) {
            g_string_append_printf(s, _("%s: cups"), gview_seat_name(v, seat, buf, sizeof buf));
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
            g_string_append_printf(s, _("%s has %d. "), gview_seat_name(v, seat, buf, sizeof buf),
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
        t = g_strdup_printf(_("Sungka \u2014 game %s: %s (%s)"), m->game_id,
                            view_kind_title(m->title), m->kind->name);
    else
        t = g_strdup(_("Sungka"));
    gtk_window_set_title(GTK_WINDOW(v->window), t);
    g_free(t);
    /* the header bar: the game, or where we are without one */
    char *sub = gview_in_game(v) && m->kind
                    ? g_strdup_printf(_("Game %s: %s (%s)"), m->game_id,
                                      view_kind_title(m->title), m->kind->name)
                : v->ag ? g_strdup(_("In the lobby"))
                        : g_strdup(_("Not connected"));
    adw_window_title_set_subtitle(ADW_WINDOW_TITLE(v->title), sub);
    g_free(sub);
}

void gview_refresh(gview *v)
{
    if (!gview_cell_is_legal(v, v->hover))
        v->hover = -1;
    gview_update_status(v);
    gview_update_people(v);
    gclock_update(v);
    update_recipients(v);
    gview_update_buttons(v);
    gmenu_update(v);
    gview_update_named_moves(v);
    update_title(v);
    gview_update_account(v);
    update_accessible(v);
    gtk_widget_queue_draw(v->area);
}

/* ------------------------------------------------------------ chat */

void gview_on_chat(GtkEntry *entry, gpointer data)
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
