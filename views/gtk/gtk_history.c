/*
 * gtk_history.c — the History dialog: past matches from the service's
 * store (agent_list_matches), newest first: the user's own, or everyone's
 * with a toggle, of any kind or one chosen from a drop-down. Each row shows
 * the players with their scores, the result, the date and the number of
 * moves (and the tournament that made it); choosing one (double click,
 * Enter, or Replay) opens its replay (gtk_replay.c). Under our own matches,
 * the tournaments we played in, with our place and points
 * (agent_list_tournaments_of). Calls block briefly (the agent's call
 * deadline).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtk_view_internal.h"
#include "narrate.h"

struct ghistory {
    gview *v;
    GtkWidget *window;
    GtkWidget *everyone;       /* GtkCheckButton: everyone's matches, not just ours */
    GtkWidget *kind;           /* GtkDropDown: any kind, then each kind */
    GtkWidget *list;           /* GtkListBox; each row has data "id" */
    GtkWidget *tours;          /* our tournaments, a line each (hidden for everyone's) */
    GtkWidget *error;
    GPtrArray *rows;           /* each row's text, for the script hook */
    char last_error[512];
};

static void set_error(ghistory *h, const char *text)
{
    snprintf(h->last_error, sizeof h->last_error, "%s", text);
    gtk_label_set_text(GTK_LABEL(h->error), h->last_error);
}

const char *ghistory_error(const ghistory *h)
{
    return h->last_error;
}

/* The kind chosen in the drop-down, or NULL for any. */
static const char *chosen_kind(const ghistory *h)
{
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(h->kind));
    const game_kind *kind = i == GTK_INVALID_LIST_POSITION || i == 0 ? NULL
                                                                     : game_kind_at((int)i - 1);
    return kind ? kind->name : NULL;
}

/* "Match 7: kalah, 2024-05-01 14:03, 42 moves" and "alice 20, bob 16 — alice wins". */
static char *row_text(const agent_match *m)
{
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, _("Match %s: %s"), m->id, m->kind_name);
    GDateTime *t = g_date_time_new_from_unix_local((m->ended_ms ? m->ended_ms : m->started_ms) /
                                                   1000);
    if (t) {
        char *when = g_date_time_format(t, "%Y-%m-%d %H:%M");
        g_string_append_printf(s, ", %s", when);
        g_free(when);
        g_date_time_unref(t);
    }
    g_string_append_printf(s, ngettext(", %d move", ", %d moves", (unsigned long)m->n_moves),
                           m->n_moves);
    g_string_append_c(s, '\n');
    for (int i = 0; i < m->n_seats; i++)
        g_string_append_printf(s, "%s%s %d", i ? ", " : "", m->seat_name[i], m->scores[i]);
    if (m->status == AGENT_GAME_ABANDONED)
        g_string_append_printf(s, _(" \u2014 abandoned: %s"), m->reason);
    else
        g_string_append_printf(s, " \u2014 %s", m->reason);
    if (m->tournament_id[0])           /* the same sentence as the text view's */
        g_string_append_printf(s, _(" In tournament %s, %s."), m->tournament_id,
                               m->tournament_title[0] ? m->tournament_title : "?");
    return g_string_free(s, FALSE);
}

static void clear_list(ghistory *h)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(h->list)) != NULL)
        gtk_list_box_remove(GTK_LIST_BOX(h->list), child);
    g_ptr_array_set_size(h->rows, 0);
}

static void add_row(ghistory *h, const agent_match *m)
{
    char *text = row_text(m);
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_label_set_wrap(GTK_LABEL(label), TRUE);
    GtkWidget *row = gtk_list_box_row_new();
    gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
    g_object_set_data_full(G_OBJECT(row), "id", g_strdup(m->id), g_free);
    gtk_accessible_update_property(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
    gtk_list_box_append(GTK_LIST_BOX(h->list), row);
    g_ptr_array_add(h->rows, text);
}

int ghistory_refresh(ghistory *h)
{
    bool everyone = gtk_check_button_get_active(GTK_CHECK_BUTTON(h->everyone));
    const char *player = everyone ? NULL : agent_name(h->v->ag);
    agent_match *matches = NULL;
    int n = 0;
    char err[512];
    clear_list(h);
    if (agent_list_matches(h->v->ag, player, chosen_kind(h), &matches, &n, err, sizeof err) != 0) {
        set_error(h, err);
        return -1;
    }
    set_error(h, n > 0        ? ""
                 : everyone ? _("No matches have been played to the end yet.")
                            : _("You have no matches yet: tick \u201ceveryone\u2019s\u201d to "
                                "see others'."));
    for (int i = 0; i < n; i++)
        add_row(h, &matches[i]);
    free(matches);
    /* our tournaments, each with our place (none listed: an older service) */
    agent_tournament *ts = NULL;
    GString *s = g_string_new(NULL);
    if (player && !chosen_kind(h) &&
        agent_list_tournaments_of(h->v->ag, player, &ts, &n, err, sizeof err) == 0) {
        for (int i = 0; i < n; i++) {
            const agent_tournament *t = &ts[i];
            for (int k = 0; k < t->n_standings; k++) {
                const agent_standing *st = &t->standings[k];
                if (g_ascii_strcasecmp(st->name, player) != 0)
                    continue;
                g_string_append_printf(
                    s, _("Tournament %s, %s (%s): %s placed %d of %d with %d points.\n"), t->id,
                    t->title, t->status == 1   ? _("waiting for players")
                              : t->status == 3 ? _("finished")
                                               : _("running"),
                    st->name, st->rank, t->n_standings, st->points);
            }
            agent_tournament_free(&ts[i]);
        }
        free(ts);
    }
    g_strchomp(s->str);
    gtk_label_set_text(GTK_LABEL(h->tours), s->str);
    gtk_widget_set_visible(h->tours, s->str[0] != '\0');
    g_string_free(s, TRUE);
    return 0;
}

const char *ghistory_tournaments(const ghistory *h)
{
    return gtk_label_get_text(GTK_LABEL(h->tours));
}

void ghistory_set_everyone(ghistory *h, bool everyone)
{
    gtk_check_button_set_active(GTK_CHECK_BUTTON(h->everyone), everyone);   /* refreshes */
}

int ghistory_set_kind(ghistory *h, const char *kind)
{
    guint pick = 0;
    for (int i = 0; kind && i < game_kind_count(); i++)
        if (strcmp(game_kind_at(i)->name, kind) == 0)
            pick = (guint)i + 1;
    if (kind && pick == 0) {
        char err[128];
        snprintf(err, sizeof err, _("There is no game kind '%s'."), kind);
        set_error(h, err);
        return -1;
    }
    gtk_drop_down_set_selected(GTK_DROP_DOWN(h->kind), pick);   /* refreshes */
    return 0;
}

int ghistory_replay(ghistory *h, const char *match_id)
{
    char err[512];
    if (!greplay_open(h->v, match_id, err, sizeof err)) {
        set_error(h, err);
        return -1;
    }
    set_error(h, "");
    return 0;
}

int ghistory_count(const ghistory *h)
{
    return (int)h->rows->len;
}

const char *ghistory_row(const ghistory *h, int i)
{
    return i >= 0 && i < (int)h->rows->len ? h->rows->pdata[i] : NULL;
}

GtkWidget *ghistory_window(const ghistory *h)
{
    return h->window;
}

static void replay_selected(ghistory *h)
{
    GtkListBoxRow *row = gtk_list_box_get_selected_row(GTK_LIST_BOX(h->list));
    const char *id = row ? g_object_get_data(G_OBJECT(row), "id") : NULL;
    if (!id) {
        set_error(h, _("Choose a match in the list first."));
        return;
    }
    ghistory_replay(h, id);
}

static void on_filter(GObject *o, GParamSpec *p, gpointer data)
{
    (void)o;
    (void)p;
    ghistory_refresh(data);
}

static void on_everyone(GtkCheckButton *b, gpointer data)
{
    (void)b;
    ghistory_refresh(data);
}

static void on_refresh(GtkButton *b, gpointer data)
{
    (void)b;
    ghistory_refresh(data);
}

static void on_replay(GtkButton *b, gpointer data)
{
    (void)b;
    replay_selected(data);
}

static void on_row_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
    (void)box;
    (void)row;
    replay_selected(data);
}

/* Ratings…: the graph of our own ratings (the account's, or the guest's
 * name, which the window answers has none); another name can be typed
 * there. */
static void on_ratings(GtkButton *b, gpointer data)
{
    (void)b;
    ghistory *h = data;
    gview *v = h->v;
    const char *me = agent_account(v->ag) ? agent_account(v->ag) : agent_name(v->ag);
    gratings *r = gratings_show(v, me);
    if (r)
        gtk_window_set_transient_for(GTK_WINDOW(gratings_window(r)), GTK_WINDOW(h->window));
}

static GtkWidget *button(const char *label, const char *accessible)
{
    GtkWidget *b = gview_mnemonic_button(label);
    gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible,
                                   -1);
    return b;
}

/* The filters: everyone's or ours, and the kind. */
static GtkWidget *filters(ghistory *h)
{
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    h->everyone = gview_mnemonic_check(_("_Everyone\u2019s matches"));
    gtk_accessible_update_property(GTK_ACCESSIBLE(h->everyone), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Show everyone's matches, not only yours"), -1);
    g_signal_connect(h->everyone, "toggled", G_CALLBACK(on_everyone), h);
    const char *titles[64 + 2];
    int nk = game_kind_count() < 64 ? game_kind_count() : 64;
    titles[0] = _("any kind");
    for (int i = 0; i < nk; i++)
        titles[i + 1] = view_kind_title(game_kind_at(i)->title);
    titles[nk + 1] = NULL;
    h->kind = gtk_drop_down_new_from_strings(titles);
    gtk_accessible_update_property(GTK_ACCESSIBLE(h->kind), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Only matches of this kind"), -1);
    g_signal_connect(h->kind, "notify::selected", G_CALLBACK(on_filter), h);
    gtk_box_append(GTK_BOX(row), h->everyone);
    gtk_box_append(GTK_BOX(row), h->kind);
    return row;
}

ghistory *ghistory_new(gview *v)
{
    ghistory *h = g_new0(ghistory, 1);
    h->v = v;
    h->rows = g_ptr_array_new_with_free_func(g_free);
    h->window = gview_dialog(v, _("Sungka \u2014 match history"));
    gtk_window_set_default_size(GTK_WINDOW(h->window), 560, 480);
    gtk_window_set_hide_on_close(GTK_WINDOW(h->window), TRUE);   /* kept for next time */

    GtkWidget *box = gview_padded_column(8, 12);
    gtk_box_append(GTK_BOX(box), filters(h));

    h->list = gtk_list_box_new();
    gtk_list_box_set_selection_mode(GTK_LIST_BOX(h->list), GTK_SELECTION_SINGLE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(h->list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Past matches, newest first"), -1);
    g_signal_connect(h->list, "row-activated", G_CALLBACK(on_row_activated), h);
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), h->list);
    gtk_widget_set_vexpand(scroll, TRUE);
    gtk_widget_set_size_request(scroll, -1, 200);
    gtk_box_append(GTK_BOX(box), scroll);
    h->tours = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(h->tours), 0);
    gtk_label_set_wrap(GTK_LABEL(h->tours), TRUE);
    gtk_widget_set_visible(h->tours, FALSE);
    gtk_box_append(GTK_BOX(box), h->tours);

    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *refresh = button(_("_Refresh"), _("Refresh the list of matches"));
    GtkWidget *replay = button(_("Re_play"), _("Replay the chosen match move by move"));
    GtkWidget *ratings = button(_("Ra_tings\u2026"), _("Your rating after each rated game, as a graph"));
    g_signal_connect(refresh, "clicked", G_CALLBACK(on_refresh), h);
    g_signal_connect(replay, "clicked", G_CALLBACK(on_replay), h);
    g_signal_connect(ratings, "clicked", G_CALLBACK(on_ratings), h);
    gtk_box_append(GTK_BOX(row), refresh);
    gtk_box_append(GTK_BOX(row), replay);
    gtk_box_append(GTK_BOX(row), ratings);
    gtk_box_append(GTK_BOX(box), row);

    h->error = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(h->error), 0);
    gtk_label_set_wrap(GTK_LABEL(h->error), TRUE);
    gtk_box_append(GTK_BOX(box), h->error);

    gtk_window_set_child(GTK_WINDOW(h->window), box);
    return h;
}

void ghistory_show(ghistory *h)
{
    ghistory_refresh(h);
    gtk_window_present(GTK_WINDOW(h->window));
}

void ghistory_free(ghistory *h)
{
    if (!h)
        return;
    gtk_window_destroy(GTK_WINDOW(h->window));
    g_ptr_array_free(h->rows, TRUE);
    g_free(h);
}
