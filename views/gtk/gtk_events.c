/*
 * gtk_events.c — what the agent says, shown: each message from its queue
 * becomes a line in the event and chat log (and a remark under the status
 * line where the user must notice it), a move starts its animation, and the
 * end of the game opens a small dialog with the result. The agent has
 * already applied each message to its model when we see it.
 */
#include <stdio.h>
#include <string.h>

#include "gtk_view_internal.h"

/* ------------------------------------------------------------ game over */

void gview_close_over_dialog(gview *v)
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
    gview_close_over_dialog(data);
}

static gboolean on_over_close(GtkWindow *w, gpointer data)
{
    (void)w;
    gview *v = data;
    v->over_dialog = NULL;      /* it is being destroyed */
    return FALSE;
}

static void show_gview_game_over(gview *v, const agent_msg *msg)
{
    const agent_model *m = gview_model(v);
    GString *s = g_string_new(NULL);
    char buf[64];
    if (msg->abandoned) {
        g_string_append_printf(s, _("The game was abandoned: %s."), msg->text);
    } else {
        g_string_append_printf(s, _("Game over: %s.\n"), msg->text);
        gview_append_winners(v, s);
        g_string_append(s, ".\n");
        for (int i = 0; i < msg->n_scores; i++)
            g_string_append_printf(s, "%s %s %d", i ? "," : _("Scores:"),
                                   gview_seat_name(v, i, buf, sizeof buf), msg->scores[i]);
        for (int i = 0; msg->ratings_changed && i < GAME_MAX_SEATS; i++) {
            const agent_rating *before = &msg->rating_before[i], *after = &msg->rating_after[i];
            if (!before->known || !after->known)
                continue;
            char was[16], now[16];
            agent_format_rating(before, was, sizeof was);
            agent_format_rating(after, now, sizeof now);
            g_string_append_printf(s, _("\n%s: rating %s \u2192 %s (%+d)"),
                                   gview_seat_name(v, i, buf, sizeof buf), was, now,
                                   after->value - before->value);
        }
        if (msg->unrated[0])
            g_string_append_printf(s, "\n%s", msg->unrated);
    }
    gview_log(v, "%s", s->str);

    gview_close_over_dialog(v);
    GtkWidget *d = gview_dialog(v, _("Game over"));
    gtk_window_set_default_size(GTK_WINDOW(d), 320, -1);
    GtkWidget *box = gview_padded_column(12, 18);
    GtkWidget *head = gtk_label_new(NULL);
    GString *h = g_string_new(NULL);
    if (m->status == AGENT_GAME_FINISHED)
        gview_append_winners(v, h);
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
        gview_anim_jump(v);
        v->last_cell = -1;
        v->cursor = -1;
        v->move_pending = false;
        gmoves_reload(v);
        gview_log(v, _("Game %s: %s (%s)."), m->game_id, m->title,
                  m->kind ? m->kind->name : "?");
        if (m->my_seat >= 0)
            gview_log(v, _("You are %s, seat %d."), m->seat_name[m->my_seat], m->my_seat);
        else
            gview_log(v, _("You are watching."));
        if (gview_game_over(m))
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
        gview_log(v, _("The game starts; %s moves first."), gview_seat_name(v, msg->seat, buf, sizeof buf));
        if (msg->unrated[0])
            gview_log(v, "%s", msg->unrated);   /* the service's sentence: why not rated */
        gview_anim_jump(v);
        v->last_cell = -1;
        break;
    case AGENT_MSG_TURN:
        for (int i = 0; i < msg->n_passed; i++)
            gview_log(v, _("%s passes: no move."), gview_seat_name(v, msg->passed[i], buf, sizeof buf));
        v->move_pending = false;
        break;
    case AGENT_MSG_MOVED: {
        const agent_model *m = gview_model(v);
        char mv[16];
        agent_format_move(m, msg->move, mv, sizeof mv);
        if (msg->move < 0)      /* a move that is no cell: its word ("swap") */
            gview_log(v, _("%s played %s."), gview_seat_name(v, msg->seat, buf, sizeof buf), mv);
        else
            gview_log(v, _("%s played %s %s."), gview_seat_name(v, msg->seat, buf, sizeof buf),
                      m->state.layout == GAME_LAYOUT_MANCALA ? _("cup") : _("cell"), mv);
        gmoves_append(v, msg->seat, msg->move);
        if (msg->mismatch)
            gview_log(v, _("WARNING: %s"), msg->text);
        if (msg->extra_turn)
            gview_log(v, _("%s moves again."), gview_seat_name(v, msg->seat, buf, sizeof buf));
        v->move_pending = false;
        v->flash[0] = '\0';
        gview_anim_start(v, msg);
        break;
    }
    case AGENT_MSG_CHAT:
        if (msg->to[0])
            gview_log(v, _("[%s to %s] %s"), msg->name, msg->to, msg->text);
        else if (msg->spectators)
            gview_log(v, _("[spectators] %s: %s"), msg->name, msg->text);
        else
            gview_log(v, "%s: %s", msg->name, msg->text);
        break;
    case AGENT_MSG_GAME_OVER:
        show_gview_game_over(v, msg);
        break;
    case AGENT_MSG_NOTICE:
        gview_log(v, _("Notice: %s"), msg->text);
        break;
    case AGENT_MSG_OUT:
        gview_log(v, _("%s is out of the game: %s."), msg->name, msg->text);
        for (int i = 0; i < msg->n_passed; i++)
            gview_log(v, _("%s passes: no move."), gview_seat_name(v, msg->passed[i], buf, sizeof buf));
        break;
    case AGENT_MSG_DRAW_OFFERED:
        gview_log(v, _("%s offers a draw."), msg->name);
        break;
    case AGENT_MSG_DRAW_DECLINED:
        gview_log(v, _("%s declines the draw."), msg->name);
        break;
    case AGENT_MSG_REMATCH_OFFERED: {
        const agent_model *m = gview_model(v);
        int seats = m->have_state ? game_seats(&m->state) : 2, yes = 0;
        for (int s = 0; s < seats; s++)
            yes += (msg->accepted >> s) & 1;
        gview_log(v, _("%s wants a rematch (%d of %d accepted)."), msg->name, yes, seats);
        break;
    }
    case AGENT_MSG_REMATCH_DECLINED:
        gview_log(v, _("%s declines the rematch."), msg->name);
        break;
    case AGENT_MSG_REMATCH_STARTED: {
        char err[512];
        gview_log(v, _("The rematch starts: game %s."), msg->text);
        gview_close_over_dialog(v);
        if (gview_model(v)->my_seat >= 0 && agent_follow_rematch(v->ag, err, sizeof err) != 0)
            gview_log(v, "%s", err);
        else if (gview_model(v)->my_seat < 0 &&
                 agent_watch_rematch(v->ag, msg->text, err, sizeof err) != 0)
            gview_log(v, "%s", err);
        break;
    }
    case AGENT_MSG_TAKEN_OVER:
        gview_log(v, _("%s did not come back: %s (a level %d bot) plays the seat from now on."),
                  msg->text, msg->name, msg->level);
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
        v->exit_status = gview_game_over(gview_model(v)) ? 0 : 1;
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
        gview_sync_shown(v);
}

gboolean gview_on_agent(gint fd, GIOCondition cond, gpointer data)
{
    (void)fd;
    (void)cond;
    gview *v = data;
    agent_msg *msg;
    while ((msg = agent_next(v->ag)) != NULL) {
        handle(v, msg);
        agent_msg_free(msg);
    }
    gview_away_watch(v);
    gview_refresh(v);
    /* It became our turn while the window was in the background: say so. */
    bool mine = gview_my_turn(v);
    if (mine && !v->was_my_turn && !gtk_window_is_active(GTK_WINDOW(v->window))) {
        GNotification *n = g_notification_new(_("Your turn"));
        char *body = g_strdup_printf(_("It is your turn in game %s."), gview_model(v)->game_id);
        g_notification_set_body(n, body);
        g_application_send_notification(G_APPLICATION(v->app), "your-turn", n);
        g_free(body);
        g_object_unref(n);
    }
    v->was_my_turn = mine;
    return G_SOURCE_CONTINUE;
}
