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
#include "narrate.h"

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

/* A sentence of the narrator's as a line of s. */
static void append_line(void *ctx, const char *sentence)
{
    g_string_append_printf(ctx, "%s\n", sentence);
}

static void show_gview_game_over(gview *v, const agent_msg *msg)
{
    const agent_model *m = gview_model(v);
    GString *s = g_string_new(NULL);
    char buf[64], why[AGENT_TEXT_BYTES];
    if (msg->abandoned) {
        g_string_append_printf(s, _("The game was abandoned: %s."),
                               view_end_reason(m, why, sizeof why));
    } else {
        view_narrate(m, msg, append_line, s);     /* "Game over: ..." */
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

/* A sentence of the narrator's (narrate.h), as a line of the log. */
static void log_line(void *ctx, const char *sentence)
{
    gview_log(ctx, "%s", sentence);
}

/* The narrator's sentences in the log, and what only this view does with
 * a message: animation, the moves list, the status line, dialogs. */
static void handle(gview *v, const agent_msg *msg)
{
    char words[AGENT_TEXT_BYTES];
    if (msg->kind != AGENT_MSG_GAME_OVER)     /* that one's sentence opens a dialog's text */
        view_narrate(gview_model(v), msg, log_line, v);
    switch (msg->kind) {
    case AGENT_MSG_SNAPSHOT: {
        const agent_model *m = gview_model(v);
        gview_anim_jump(v);
        v->last_cell = -1;
        v->cursor = -1;
        v->move_pending = false;
        gmoves_reload(v);
        gview_log(v, _("Game %s: %s (%s)."), m->game_id, view_kind_title(m->title),
                  m->kind ? m->kind->name : "?");
        view_narrate_snapshot(m, log_line, v);   /* the clock, who we are, the end */
        break;
    }
    case AGENT_MSG_STARTED:
        gview_anim_jump(v);
        v->last_cell = -1;
        break;
    case AGENT_MSG_TURN:
        v->move_pending = false;
        break;
    case AGENT_MSG_MOVED:
        gmoves_append(v, msg->seat, msg->move);
        v->move_pending = false;
        v->flash[0] = '\0';
        gview_anim_start(v, msg);
        gview_sound_play(v, msg->captured > 0 ? GVIEW_SOUND_CAPTURE : GVIEW_SOUND_MOVE);
        break;
    case AGENT_MSG_GAME_OVER:
        gview_sound_play(v, GVIEW_SOUND_END);
        show_gview_game_over(v, msg);
        /* a tournament's game: back to its standings, for the next one
         * (the result stays in the log) */
        if (v->lobby && globby_game_over(v->lobby, gview_model(v)->game_id))
            gview_close_over_dialog(v);
        break;
    case AGENT_MSG_REMATCH_STARTED: {
        char err[512];
        gview_close_over_dialog(v);
        if (gview_model(v)->my_seat >= 0 && agent_follow_rematch(v->ag, err, sizeof err) != 0)
            gview_log(v, "%s", err);
        else if (gview_model(v)->my_seat < 0 &&
                 agent_watch_rematch(v->ag, msg->text, err, sizeof err) != 0)
            gview_log(v, "%s", err);
        break;
    }
    case AGENT_MSG_REFUSED:
        v->move_pending = false;
        snprintf(v->flash, sizeof v->flash, _("Refused: %s"),
                 view_refusal(msg->reason) ? view_refusal(msg->reason) : msg->text);
        break;
    case AGENT_MSG_DISCONNECTED:
        v->connection[0] = '\0';
        snprintf(v->flash, sizeof v->flash, _("Disconnected: %s"),
                 view_agent_words(msg, words, sizeof words));
        v->exit_status = gview_game_over(gview_model(v)) ? 0 : 1;
        break;
    case AGENT_MSG_RECONNECTING:   /* the agent's words, once and then every 10 s */
        view_sentence(v->connection, sizeof v->connection,
                      view_agent_words(msg, words, sizeof words), "");
        break;
    case AGENT_MSG_RECONNECTED:
        v->connection[0] = '\0';
        view_sentence(v->flash, sizeof v->flash, view_agent_words(msg, words, sizeof words),
                      ".");
        break;
    default:
        break;
    }
    /* Observers come and go without a line each; one line says how many
     * watch whenever that changes. */
    int watching = gview_model(v)->n_observers;
    if (msg->kind == AGENT_MSG_SNAPSHOT)
        v->watching = watching;
    else if (v->watching >= 0 && watching != v->watching && gview_in_game(v)) {
        view_narrate_watching(watching, log_line, v);
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
