/*
 * gtk_lobby.c — the games dialog of the GTK view: the games on the board
 * service (Refresh), join one as a player or observer, or create one of a
 * kind chosen from a drop-down with its options as spin buttons and a
 * clock, or ask for a quick pairing (docs/rules.md, "Quick pairing") in
 * that kind, with those options and clock: the service pairs us with
 * players of a near rating (Rated ticked: rated games only). The wait does
 * not block the window: agent_quick_start asks, a QUICK_POLL_MS timer shows
 * the pool as it changes ("3 waiting; ratings 1400 to 1600; 12 s") and
 * finishes when it ends (agent_quick_finish: the seat is taken as after a
 * join); Stop Waiting cancels. And the service's tournaments, each one's
 * standings in a dialog of their own (activate its row); Play in Tournament
 * joins the chosen one (Create Tournament makes one of the kind, options and
 * clock above, and joins it) and waits, as quick pairing does, without
 * blocking: agent_tournament_start, then a QUICK_POLL_MS timer shows the
 * standings as they change, and agent_tournament_finish takes the seat when
 * the tournament seats us. When that game is over (globby_game_over, from
 * gtk_events.c) the dialog comes back and waits for the next game, the
 * standings live, until the tournament has finished and its final standings
 * stay shown. Leave Tournament withdraws.
 *
 * It opens once the agent is connected: at start when the command line
 * named a service but no game, or after the connect dialog (gtk_connect.c).
 * What it remembers between runs (gtk_prefs.c) is the kind and the options
 * last used to create a game:
 *     [new-game]
 *     kind=kalah
 *     [kalah]
 *     cups=6
 *     stones=4
 * Lobby calls block briefly (the agent's call deadline), on this thread.
 */
#define QUICK_POLL_MS 100
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtk_view_internal.h"
#include "narrate.h"

struct globby {
    gview *v;
    GtkWidget *window;
    GtkWidget *list;           /* GtkListBox of games; each row has data "id" */
    GtkWidget *tours;          /* GtkListBox of tournaments; each row has data "id" */
    char tours_text[2048];     /* the tournaments' rows, "|" between (the script hook) */
    char standings_text[4096]; /* the last standings shown, "|" between lines */
    GtkWidget *kind;           /* GtkDropDown of kinds */
    GtkWidget *options;        /* GtkGrid of name / spin button */
    GtkWidget *spins[GAME_MAX_OPTIONS];
    GtkWidget *bots;           /* computer players the service seats (0..) */
    GtkWidget *rated;          /* GtkCheckButton: a rated game */
    GtkWidget *takes_over;     /* GtkCheckButton: a bot takes a departed player's seat */
    GtkWidget *clock;          /* GtkEntry: "5+3", "10", "30/move", or empty: none */
    GtkWidget *pools;          /* the quick-pairing pools, as last refreshed */
    GtkWidget *quick_btn, *quick_stop;
    GtkWidget *quick_status;   /* the pool while we wait in it */
    agent_quick *quick;        /* a quick pairing under way, else NULL */
    guint quick_tick;
    char paired[32];           /* the game the last quick pairing gave, or "" */
    GtkWidget *tour_format;    /* GtkDropDown: arena, round robin, Swiss */
    GtkWidget *tour_players;   /* GtkSpinButton: the field (a round robin starts when full) */
    GtkWidget *tour_length;    /* GtkSpinButton: an arena's minutes, or rounds (0: enough) */
    GtkWidget *tour_play, *tour_leave;
    GtkWidget *tour_status;    /* our tournament: waiting, seated or finished, and its
                                * standings as last heard */
    agent_tour_wait *tour;     /* a wait for our next tournament game, else NULL */
    guint tour_tick;
    bool tour_leaving;         /* the wait is being cancelled because we left */
    char tour_id[32];          /* the tournament we play in, "" when none (or over) */
    char tour_game[32];        /* the game it seated us in last, "" when none */
    char tour_standings[4096]; /* its standings as last heard */
    char created_tour[32];     /* the tournament Create Tournament made last */
    GtkWidget *error;
    char last_error[512];
};

static const char *status_word(agent_status st)
{
    switch (st) {
    case AGENT_GAME_WAITING: return _("waiting");
    case AGENT_GAME_RUNNING: return _("running");
    case AGENT_GAME_FINISHED: return _("finished");
    case AGENT_GAME_ABANDONED: return _("abandoned");
    }
    return "?";
}

static void set_error(globby *lb, const char *text)
{
    snprintf(lb->last_error, sizeof lb->last_error, "%s", text ? text : "");
    gtk_label_set_text(GTK_LABEL(lb->error), lb->last_error);
}

const char *globby_error(const globby *lb)
{
    return lb->last_error;
}

/* ------------------------------------------------------------ settings */

static void settings_save(globby *lb, const game_kind *kind, const game_options *opts)
{
    GKeyFile *kf = gprefs_load();
    g_key_file_set_string(kf, "new-game", "kind", kind->name);
    for (int i = 0; i < kind->n_options; i++)
        g_key_file_set_integer(kf, kind->name, kind->options[i].name, opts->value[i]);
    char err[512];
    if (gprefs_save(kf, err, sizeof err) != 0)
        gview_log(lb->v, "%s", err);
    g_key_file_free(kf);
}

/* ------------------------------------------------------------ options */

static const game_kind *chosen_kind(const globby *lb)
{
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(lb->kind));
    return i == GTK_INVALID_LIST_POSITION ? NULL : game_kind_at((int)i);
}

/* One spin button per option of the kind, at the remembered value or the
 * default. */
/* A check box in the options' grid with its dim help beside it. */
static GtkWidget *check_row(globby *lb, int row, const char *label, const char *tip,
                            const char *help_text)
{
    GtkWidget *box = gview_mnemonic_check(label);
    gtk_widget_set_tooltip_text(box, tip);
    GtkWidget *help = gtk_label_new(help_text);
    gtk_label_set_xalign(GTK_LABEL(help), 0);
    gtk_widget_add_css_class(help, "dim-label");
    gtk_grid_attach(GTK_GRID(lb->options), box, 1, row, 1, 1);
    gtk_grid_attach(GTK_GRID(lb->options), help, 2, row, 1, 1);
    return box;
}

static void build_options(globby *lb)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(lb->options)) != NULL)
        gtk_grid_remove(GTK_GRID(lb->options), child);
    memset(lb->spins, 0, sizeof lb->spins);
    lb->bots = NULL;           /* destroyed with the grid's other children */
    lb->rated = NULL;
    lb->takes_over = NULL;
    const game_kind *kind = chosen_kind(lb);
    if (!kind)
        return;
    GKeyFile *kf = gprefs_load();
    for (int i = 0; i < kind->n_options && i < GAME_MAX_OPTIONS; i++) {
        const game_option_spec *spec = &kind->options[i];
        GError *err = NULL;
        int value = g_key_file_get_integer(kf, kind->name, spec->name, &err);
        if (err) {
            value = spec->def;
            g_clear_error(&err);
        }
        if (!game_option_allows(spec, value))
            value = spec->def;
        GtkWidget *label = gtk_label_new(spec->name);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        GtkWidget *spin = gtk_spin_button_new_with_range(spec->min, spec->max,
                                                         spec->step > 1 ? spec->step : 1);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), value);
        gtk_widget_set_tooltip_text(spin, spec->help);
        gtk_accessible_update_property(GTK_ACCESSIBLE(spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       spec->name, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       spec->help, -1);
        GtkWidget *help = gtk_label_new(spec->help);
        gtk_label_set_xalign(GTK_LABEL(help), 0);
        gtk_label_set_wrap(GTK_LABEL(help), TRUE);
        gtk_widget_add_css_class(help, "dim-label");
        gtk_grid_attach(GTK_GRID(lb->options), label, 0, i, 1, 1);
        gtk_grid_attach(GTK_GRID(lb->options), spin, 1, i, 1, 1);
        gtk_grid_attach(GTK_GRID(lb->options), help, 2, i, 1, 1);
        lb->spins[i] = spin;
    }
    g_key_file_free(kf);
    /* Not a rules option: seats the service fills with its own bots. */
    GtkWidget *label = gtk_label_new(_("computer players"));
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    lb->bots = gtk_spin_button_new_with_range(0, GAME_MAX_SEATS - 1, 1);
    gtk_accessible_update_property(GTK_ACCESSIBLE(lb->bots), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("computer players"), -1);
    GtkWidget *help = gtk_label_new(_("seats the board service fills with bots"));
    gtk_label_set_xalign(GTK_LABEL(help), 0);
    gtk_widget_add_css_class(help, "dim-label");
    int row = kind->n_options;
    gtk_grid_attach(GTK_GRID(lb->options), label, 0, row, 1, 1);
    gtk_grid_attach(GTK_GRID(lb->options), lb->bots, 1, row, 1, 1);
    gtk_grid_attach(GTK_GRID(lb->options), help, 2, row, 1, 1);
    /* Nor are these: the result changes the players' ratings (signed in
     * only); a bot plays on for a player who does not come back. */
    lb->rated = check_row(lb, row + 1, _("_Rated"),
                          _("The result changes the players' ratings; only signed-in players "
                            "may sit, and no bots"),
                          _("for signed-in players; no computer players"));
    lb->takes_over = check_row(lb, row + 2, _("_Bot takes over"),
                               _("When a player leaves and does not come back in time, a "
                                 "computer player takes the seat and the game goes on"),
                               _("a bot plays on for a player who left"));
}

static void on_kind(GObject *o, GParamSpec *p, gpointer data)
{
    (void)o;
    (void)p;
    build_options(data);
}

/* ------------------------------------------------------------ games */

static void clear_list(globby *lb)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(lb->list)) != NULL)
        gtk_list_box_remove(GTK_LIST_BOX(lb->list), child);
}

/* The tournaments' rows (after the games': a failure here leaves the games). */
static void refresh_tournaments(globby *lb)
{
    agent_tournament *ts = NULL;
    int n = 0;
    char err[512];
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(lb->tours)) != NULL)
        gtk_list_box_remove(GTK_LIST_BOX(lb->tours), child);
    lb->tours_text[0] = '\0';
    if (agent_list_tournaments(lb->v->ag, &ts, &n, err, sizeof err) != 0)
        return;                   /* an older service, or none allowed: no list */
    for (int i = 0; i < n; i++) {
        const agent_tournament *t = &ts[i];
        const char *state = t->status == 1   ? _("waiting for players")
                            : t->status == 3 ? _("finished")
                                             : _("running");
        char *text = g_strdup_printf(_("Tournament %s: %s (%s of %s), %s; %d of %d players"),
                                     t->id, t->title,
                                     t->arena   ? _("arena")
                                     : t->swiss ? _("Swiss")
                                                : _("round robin"),
                                     t->kind, state, t->n_standings, t->max_players);
        GtkWidget *label = gtk_label_new(text);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_label_set_wrap(GTK_LABEL(label), TRUE);
        GtkWidget *row = gtk_list_box_row_new();
        gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
        g_object_set_data_full(G_OBJECT(row), "id", g_strdup(t->id), g_free);
        gtk_accessible_update_property(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_PROPERTY_LABEL, text,
                                       -1);
        gtk_list_box_append(GTK_LIST_BOX(lb->tours), row);
        size_t used = strlen(lb->tours_text);
        snprintf(lb->tours_text + used, sizeof lb->tours_text - used, "%s%s", used ? "|" : "",
                 text);
        g_free(text);
        agent_tournament_free(&ts[i]);
    }
    free(ts);
}

/* t's standings, a line each (g_string_free it). */
static GString *standings_lines(const agent_tournament *t)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < t->n_standings; i++) {
        const agent_standing *p = &t->standings[i];
        g_string_append_printf(s, _("%3d. %-20s %4d points, %3d games, %3d won%s\n"), p->rank,
                               p->name, p->points, p->games, p->wins,
                               p->withdrawn ? _(" (left)") : "");
    }
    return s;
}

/* "Standings of t1, Kalah arena (running):" (g_free it). */
static char *standings_title(const agent_tournament *t)
{
    char *title = g_strdup_printf(_("Standings of %s, %s (%s):\n"), t->id, t->title,
                                  t->status == 1   ? _("waiting for players")
                                  : t->status == 3 ? _("finished")
                                                   : _("running"));
    g_strchomp(title);
    return title;
}

int globby_standings(globby *lb, const char *id)
{
    agent_tournament t;
    char err[512];
    if (agent_get_tournament(lb->v->ag, id, &t, err, sizeof err) != 0) {
        set_error(lb, err);
        return -1;
    }
    GString *s = standings_lines(&t);
    char *title = standings_title(&t);
    GtkWidget *dialog = gview_dialog(lb->v, title);
    gtk_window_set_default_size(GTK_WINDOW(dialog), 460, 300);
    GtkWidget *box = gview_padded_column(8, 12);
    GtkWidget *label = gtk_label_new(s->str);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_add_css_class(label, "monospace");
    gtk_box_append(GTK_BOX(box), label);
    gtk_window_set_child(GTK_WINDOW(dialog), box);
    gtk_window_set_transient_for(GTK_WINDOW(dialog), GTK_WINDOW(lb->window));
    gtk_window_present(GTK_WINDOW(dialog));
    snprintf(lb->standings_text, sizeof lb->standings_text, "%s|%s", title, s->str);
    for (char *c = lb->standings_text; *c; c++)
        if (*c == '\n')
            *c = '|';
    g_free(title);
    g_string_free(s, TRUE);
    agent_tournament_free(&t);
    set_error(lb, "");
    return 0;
}

const char *globby_tournaments_text(const globby *lb)
{
    return lb->tours_text;
}

const char *globby_standings_text(const globby *lb)
{
    return lb->standings_text;
}

static void on_tournament_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
    (void)box;
    char id[32];
    const char *got = g_object_get_data(G_OBJECT(row), "id");
    snprintf(id, sizeof id, "%s", got ? got : "");   /* the row goes on refresh */
    if (id[0])
        globby_standings(data, id);
}

int globby_refresh(globby *lb)
{
    agent_game_info *games = NULL;
    int n = 0;
    char err[512];
    clear_list(lb);
    refresh_tournaments(lb);
    if (agent_list_games(lb->v->ag, NULL, 0, &games, &n, err, sizeof err) != 0) {
        set_error(lb, err);
        return -1;
    }
    set_error(lb, n == 0 ? _("No games yet: create one below.") : "");
    for (int i = 0; i < n; i++) {
        const agent_game_info *g = &games[i];
        GString *s = g_string_new(NULL);
        g_string_append_printf(s, _("Game %s: %s (%s %s), %s; seats:"), g->id,
                               view_kind_title(g->title), g->kind,
                               g->options, status_word(g->status));
        for (int seat = 0; seat < g->n_seats; seat++) {
            if (!g->seat_name[seat][0])
                g_string_append_printf(s, " [%s]", _("open"));
            else
                g_string_append_printf(s, " [%s%s%s]", g->seat_name[seat],
                                       g->seat_ready[seat] ? _(", ready") : "",
                                       g->seat_departed[seat] ? _(", departed") : "");
        }
        g_string_append_printf(s, _("; %d watching"), g->observers);
        GtkWidget *label = gtk_label_new(s->str);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_label_set_wrap(GTK_LABEL(label), TRUE);
        GtkWidget *row = gtk_list_box_row_new();
        gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
        g_object_set_data_full(G_OBJECT(row), "id", g_strdup(g->id), g_free);
        gtk_accessible_update_property(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       s->str, -1);
        gtk_list_box_append(GTK_LIST_BOX(lb->list), row);
        g_string_free(s, TRUE);
    }
    free(games);
    /* the quick-pairing pools where players wait, under the games */
    agent_pool_info *pools;
    if (agent_list_pools(lb->v->ag, NULL, &pools, &n, err, sizeof err) != 0) {
        set_error(lb, err);
        return -1;
    }
    GString *s = g_string_new(NULL);
    for (int i = 0; i < n; i++) {
        char clock[32];
        agent_format_clock_spec(&pools[i].clock, clock, sizeof clock);
        if (i)
            g_string_append_c(s, '\n');
        g_string_append_printf(s, _("Quick pairing pool %s (%s), clock %s%s: %d waiting, the "
                                    "longest for %d s."),
                               pools[i].kind, pools[i].options,
                               clock[0] ? clock : _("none"), pools[i].rated ? _(", rated") : "",
                               pools[i].players, (int)(pools[i].longest_wait_ms / 1000));
    }
    free(pools);
    gtk_label_set_text(GTK_LABEL(lb->pools), s->str);
    gtk_widget_set_visible(lb->pools, s->len > 0);
    g_string_free(s, TRUE);
    return 0;
}

const char *globby_pools(const globby *lb)
{
    return gtk_label_get_text(GTK_LABEL(lb->pools));
}

static void joined(globby *lb)
{
    gtk_widget_set_visible(lb->window, FALSE);
    gview_joined(lb->v);
}

int globby_join(globby *lb, const char *game_id, bool observe)
{
    char err[512];
    if (agent_join_game(lb->v->ag, game_id, observe, err, sizeof err) != 0) {
        char said[768];
        set_error(lb, view_lobby_failure(agent_lobby_failed(lb->v->ag), err, said, sizeof said));
        return -1;
    }
    set_error(lb, "");
    joined(lb);
    return 0;
}

/* Create a game of `kind` with the spin buttons' options, overridden by any
 * "name=value" in assignments (the script hook uses those). */
int globby_create(globby *lb, const char *kind_name, char **assignments, int n)
{
    char err[512];
    const game_kind *kind = kind_name ? game_kind_find(kind_name) : chosen_kind(lb);
    if (!kind) {
        snprintf(err, sizeof err, _("There is no game kind '%s'."), kind_name);
        set_error(lb, err);
        return -1;
    }
    if (kind != chosen_kind(lb)) {      /* show the kind being created */
        for (int i = 0; i < game_kind_count(); i++)
            if (game_kind_at(i) == kind)
                gtk_drop_down_set_selected(GTK_DROP_DOWN(lb->kind), (guint)i);
    }
    game_options opts;
    game_options_default(kind, &opts);
    for (int i = 0; i < kind->n_options && i < GAME_MAX_OPTIONS; i++)
        if (lb->spins[i])
            opts.value[i] = gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(lb->spins[i]));
    for (int i = 0; i < n; i++) {
        GtkWidget *box = strcmp(assignments[i], "rated") == 0            ? lb->rated
                         : strcmp(assignments[i], "bot-takes-over") == 0 ? lb->takes_over
                                                                         : NULL;
        if (box) {      /* the box, ticked */
            gtk_check_button_set_active(GTK_CHECK_BUTTON(box), TRUE);
            continue;
        }
        if (game_options_parse(kind, &opts, assignments[i], err, sizeof err) != GAME_OK) {
            set_error(lb, err);
            return -1;
        }
    }
    char texts[GAME_MAX_OPTIONS + 4][48];
    const char *argv[GAME_MAX_OPTIONS + 4];
    int argc = 0;
    for (int i = 0; i < kind->n_options && i < GAME_MAX_OPTIONS; i++) {
        snprintf(texts[argc], sizeof texts[argc], "%s=%d", kind->options[i].name, opts.value[i]);
        argv[argc] = texts[argc];
        argc++;
    }
    int bots = lb->bots ? gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(lb->bots)) : 0;
    if (bots > 0) {
        snprintf(texts[argc], sizeof texts[argc], "bots=%d", bots);
        argv[argc] = texts[argc];
        argc++;
    }
    if (lb->rated && gtk_check_button_get_active(GTK_CHECK_BUTTON(lb->rated)))
        argv[argc++] = "rated";
    if (lb->takes_over && gtk_check_button_get_active(GTK_CHECK_BUTTON(lb->takes_over)))
        argv[argc++] = "bot-takes-over";
    char clock[64];
    const char *spec = gtk_editable_get_text(GTK_EDITABLE(lb->clock));
    if (spec[0]) {
        snprintf(clock, sizeof clock, "clock=%.50s", spec);
        argv[argc++] = clock;
    }
    if (agent_new_game(lb->v->ag, kind->name, argv, argc, err, sizeof err) != 0) {
        char said[768];
        set_error(lb, view_lobby_failure(agent_lobby_failed(lb->v->ag), err, said, sizeof said));
        return -1;
    }
    settings_save(lb, kind, &opts);
    gview_log(lb->v, _("Created game %s."), agent_game_id(lb->v->ag));
    set_error(lb, "");
    joined(lb);
    return 0;
}

static const char *selected_id(globby *lb)
{
    GtkListBoxRow *row = gtk_list_box_get_selected_row(GTK_LIST_BOX(lb->list));
    return row ? g_object_get_data(G_OBJECT(row), "id") : NULL;
}

static void on_refresh(GtkButton *b, gpointer data)
{
    (void)b;
    globby_refresh(data);
}

static void join_selected(globby *lb, bool observe)
{
    const char *id = selected_id(lb);
    if (!id) {
        set_error(lb, _("Choose a game in the list first."));
        return;
    }
    char copy[32];
    snprintf(copy, sizeof copy, "%s", id);   /* the row goes on refresh */
    globby_join(lb, copy, observe);
}

static void on_join(GtkButton *b, gpointer data)
{
    (void)b;
    join_selected(data, false);
}

static void on_observe(GtkButton *b, gpointer data)
{
    (void)b;
    join_selected(data, true);
}

static void on_row_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
    (void)box;
    (void)row;
    join_selected(data, false);
}

/* ------------------------------------------------------------ quick pairing */

static void quick_stopped(globby *lb)
{
    if (lb->quick_tick)
        g_source_remove(lb->quick_tick);
    lb->quick_tick = 0;
    lb->quick = NULL;
    gtk_widget_set_visible(lb->quick_stop, FALSE);
    gtk_widget_set_sensitive(lb->quick_btn, TRUE);
}

static void say_pool(globby *lb, const agent_pairing *p)
{
    char *text;
    int waited = (int)(p->waited_ms / 1000);
    if (p->any_rating)
        text = g_strdup_printf(_("Waiting for a quick pairing: %d in the pool; any rating "
                                 "now; %d s."), p->pool_size, waited);
    else
        text = g_strdup_printf(_("Waiting for a quick pairing: %d in the pool; ratings %d to "
                                 "%d; %d s."), p->pool_size, p->rating - p->range,
                               p->rating + p->range, waited);
    gtk_label_set_text(GTK_LABEL(lb->quick_status), text);
    g_free(text);
}

/* The wait's end: the seat taken (and the window on the game), or why not. */
static void quick_end_wait(globby *lb)
{
    char err[512];
    agent_quick *w = lb->quick;
    quick_stopped(lb);
    if (agent_quick_finish(lb->v->ag, w, err, sizeof err) != 0) {
        gtk_label_set_text(GTK_LABEL(lb->quick_status), "");
        set_error(lb, err);
        return;
    }
    snprintf(lb->paired, sizeof lb->paired, "%s", agent_game_id(lb->v->ag));
    char *said = g_strdup_printf(_("Paired: game %s."), lb->paired);
    gtk_label_set_text(GTK_LABEL(lb->quick_status), said);
    gview_log(lb->v, "%s", said);
    g_free(said);
    set_error(lb, "");
    joined(lb);
}

static gboolean quick_poll(gpointer data)
{
    globby *lb = data;
    agent_pairing now;
    bool ended;
    if (agent_quick_news(lb->quick, &now, &ended))
        say_pool(lb, &now);
    if (!ended)
        return G_SOURCE_CONTINUE;
    lb->quick_tick = 0;                /* this source ends here */
    quick_end_wait(lb);
    return G_SOURCE_REMOVE;
}

/* The game a quick pairing or a tournament asks for: the dialog's kind,
 * options, rated box and clock, or (from a script) kind_name with its
 * "name=value" assignments ("rated" among them) and the dialog's clock. */
typedef struct asked_game {
    char texts[GAME_MAX_OPTIONS][48];  /* the dialog's options, which argv points into */
    const char *argv[GAME_MAX_OPTIONS + 16];
    int argc;
    bool rated;
    char spec[128];                    /* "KIND[:CLOCK]" */
} asked_game;

/* Read it into g, the kind asked for shown in the dialog; -1 (said) for a
 * kind there is none of. */
static int read_asked_game(globby *lb, const char *kind_name, char **assignments, int n,
                           asked_game *g)
{
    char err[512];
    const game_kind *kind = kind_name ? game_kind_find(kind_name) : chosen_kind(lb);
    if (!kind) {
        snprintf(err, sizeof err, _("There is no game kind '%s'."), kind_name);
        set_error(lb, err);
        return -1;
    }
    if (kind != chosen_kind(lb)) {      /* show the kind asked for */
        for (int i = 0; i < game_kind_count(); i++)
            if (game_kind_at(i) == kind)
                gtk_drop_down_set_selected(GTK_DROP_DOWN(lb->kind), (guint)i);
    }
    g->argc = 0;
    g->rated = lb->rated && gtk_check_button_get_active(GTK_CHECK_BUTTON(lb->rated));
    if (!kind_name) {                  /* the dialog's options */
        for (int i = 0; i < kind->n_options && i < GAME_MAX_OPTIONS; i++)
            if (lb->spins[i]) {
                snprintf(g->texts[g->argc], sizeof g->texts[g->argc], "%s=%d",
                         kind->options[i].name,
                         gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(lb->spins[i])));
                g->argv[g->argc] = g->texts[g->argc];
                g->argc++;
            }
    }
    for (int i = 0; i < n && g->argc < (int)G_N_ELEMENTS(g->argv); i++) {
        if (strcmp(assignments[i], "rated") == 0)
            g->rated = true;
        else
            g->argv[g->argc++] = assignments[i];
    }
    const char *clock = gtk_editable_get_text(GTK_EDITABLE(lb->clock));
    snprintf(g->spec, sizeof g->spec, "%s%s%.60s", kind->name, clock[0] ? ":" : "", clock);
    return 0;
}

int globby_quick(globby *lb, const char *kind_name, char **assignments, int n)
{
    char err[512];
    if (lb->quick) {
        set_error(lb, _("Already waiting for a quick pairing."));
        return -1;
    }
    asked_game g;
    if (read_asked_game(lb, kind_name, assignments, n, &g) != 0)
        return -1;
    lb->paired[0] = '\0';
    lb->quick = agent_quick_start(lb->v->ag, g.spec, g.argv, g.argc, g.rated, err, sizeof err);
    if (!lb->quick) {
        set_error(lb, err);
        return -1;
    }
    set_error(lb, "");
    gtk_label_set_text(GTK_LABEL(lb->quick_status), _("Waiting for a quick pairing\u2026"));
    gtk_widget_set_sensitive(lb->quick_btn, FALSE);
    gtk_widget_set_visible(lb->quick_stop, TRUE);
    lb->quick_tick = g_timeout_add(QUICK_POLL_MS, quick_poll, lb);
    return 0;
}

bool globby_waiting(const globby *lb)
{
    return lb->quick != NULL;
}

const char *globby_quick_status(const globby *lb)
{
    return gtk_label_get_text(GTK_LABEL(lb->quick_status));
}

const char *globby_paired(const globby *lb)
{
    return lb->paired;
}

void globby_quick_stop(globby *lb)
{
    if (lb->quick)
        agent_quick_cancel(lb->quick);   /* quick_poll sees the end and says it */
}

static void on_quick(GtkButton *b, gpointer data)
{
    (void)b;
    globby_quick(data, NULL, NULL, 0);
}

static void on_quick_stop(GtkButton *b, gpointer data)
{
    (void)b;
    globby_quick_stop(data);
}

/* ------------------------------------------------------------ playing a tournament */

static void tour_stopped(globby *lb)
{
    if (lb->tour_tick)
        g_source_remove(lb->tour_tick);
    lb->tour_tick = 0;
    lb->tour = NULL;
}

/* The status under the tournaments: a headline, then the standings as
 * last heard. */
static void tour_say(globby *lb, const char *headline)
{
    char *text = g_strdup_printf("%s\n%s", headline, lb->tour_standings);
    g_strchomp(text);
    gtk_label_set_text(GTK_LABEL(lb->tour_status), text);
    g_free(text);
    gtk_widget_set_visible(lb->tour_leave, lb->tour_id[0] != '\0');
}

static void tour_news(globby *lb, const agent_tournament *t)
{
    GString *s = standings_lines(t);
    char *title = standings_title(t);
    snprintf(lb->tour_standings, sizeof lb->tour_standings, "%s\n%s", title, s->str);
    g_free(title);
    g_string_free(s, TRUE);
    char *said = g_strdup_printf(_("Waiting in tournament %s for your next game."), lb->tour_id);
    tour_say(lb, said);
    g_free(said);
}

/* The wait's end: seated (the window on the game), the tournament over
 * (its final standings stay), or why not. */
static void tour_end_wait(globby *lb)
{
    char err[512];
    agent_tour_wait *w = lb->tour;
    bool leaving = lb->tour_leaving;
    tour_stopped(lb);
    lb->tour_leaving = false;
    int rc = agent_tournament_finish(lb->v->ag, w, err, sizeof err);
    char *said = NULL;
    if (rc == 0) {
        snprintf(lb->tour_game, sizeof lb->tour_game, "%s", agent_game_id(lb->v->ag));
        said = g_strdup_printf(_("Tournament %s seats you in game %s."), lb->tour_id,
                               lb->tour_game);
        gview_log(lb->v, "%s", said);
        tour_say(lb, said);
        set_error(lb, "");
        joined(lb);
    } else if (rc == 1) {
        said = g_strdup_printf(_("Tournament %s has finished."), lb->tour_id);
        gview_log(lb->v, "%s", said);
        lb->tour_id[0] = '\0';
        tour_say(lb, said);
    } else if (!leaving) {
        set_error(lb, err);
    }
    g_free(said);
}

static gboolean tour_poll(gpointer data)
{
    globby *lb = data;
    agent_tournament now;
    bool ended;
    if (agent_tournament_news(lb->tour, &now, &ended)) {
        if (!lb->tour_leaving)         /* we left: "You have left" stays */
            tour_news(lb, &now);
        agent_tournament_free(&now);
    }
    if (!ended)
        return G_SOURCE_CONTINUE;
    lb->tour_tick = 0;                 /* this source ends here */
    tour_end_wait(lb);
    return G_SOURCE_REMOVE;
}

int globby_tour_join(globby *lb, const char *id)
{
    char err[512], copy[32];
    snprintf(copy, sizeof copy, "%s", id);   /* id may be lb->tour_id */
    if (lb->tour) {
        set_error(lb, _("Already waiting in a tournament."));
        return -1;
    }
    agent_tour_wait *w = agent_tournament_start(lb->v->ag, copy, err, sizeof err);
    if (!w) {
        set_error(lb, err);
        return -1;
    }
    if (strcmp(lb->tour_id, copy) != 0) {
        snprintf(lb->tour_id, sizeof lb->tour_id, "%s", copy);
        lb->tour_standings[0] = '\0';
        lb->tour_game[0] = '\0';
    }
    lb->tour = w;
    set_error(lb, "");
    char *said = g_strdup_printf(_("Waiting in tournament %s for your next game."), copy);
    tour_say(lb, said);
    g_free(said);
    lb->tour_tick = g_timeout_add(QUICK_POLL_MS, tour_poll, lb);
    return 0;
}

bool globby_game_over(globby *lb, const char *game_id)
{
    if (!lb->tour_id[0] || lb->tour || strcmp(game_id, lb->tour_game) != 0)
        return false;
    if (globby_tour_join(lb, lb->tour_id) != 0)
        gview_log(lb->v, "%s", lb->last_error);
    globby_show(lb);
    return true;
}

int globby_tour_leave(globby *lb)
{
    char err[512];
    if (!lb->tour_id[0]) {
        set_error(lb, _("You play in no tournament now."));
        return -1;
    }
    if (agent_leave_tournament(lb->v->ag, lb->tour_id, err, sizeof err) != 0) {
        set_error(lb, err);
        return -1;
    }
    if (lb->tour) {                    /* tour_poll sees the end, and says nothing */
        lb->tour_leaving = true;
        agent_tournament_cancel(lb->tour);
    }
    char *said = g_strdup_printf(_("You have left tournament %s."), lb->tour_id);
    gview_log(lb->v, "%s", said);
    lb->tour_id[0] = '\0';
    tour_say(lb, said);
    g_free(said);
    set_error(lb, "");
    return 0;
}

static const char *const tour_formats[] = {"arena", "roundrobin", "swiss"};

int globby_tour_create(globby *lb, const char *format, const char *kind_name, int players,
                       int length, char **assignments, int n)
{
    char err[512], id[32];
    int f = -1;
    for (int i = 0; format && i < (int)G_N_ELEMENTS(tour_formats); i++)
        if (strcmp(format, tour_formats[i]) == 0)
            f = i;
    if (format && f < 0) {
        snprintf(err, sizeof err,
                 _("A tournament is an arena, a roundrobin or a swiss, not '%s'."), format);
        set_error(lb, err);
        return -1;
    }
    if (f >= 0)
        gtk_drop_down_set_selected(GTK_DROP_DOWN(lb->tour_format), (guint)f);
    if (players > 0)
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(lb->tour_players), players);
    if (length >= 0)
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(lb->tour_length), length);
    asked_game g;
    if (read_asked_game(lb, kind_name, assignments, n, &g) != 0)
        return -1;
    guint chosen = gtk_drop_down_get_selected(GTK_DROP_DOWN(lb->tour_format));
    if (chosen >= G_N_ELEMENTS(tour_formats))
        chosen = 0;
    if (agent_create_tournament(lb->v->ag, tour_formats[chosen], g.spec, g.argv, g.argc,
                                gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(lb->tour_length)),
                                gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(lb->tour_players)),
                                g.rated, id, err, sizeof err) != 0) {
        set_error(lb, err);
        return -1;
    }
    gview_log(lb->v, _("Tournament %s created."), id);
    snprintf(lb->created_tour, sizeof lb->created_tour, "%s", id);
    globby_refresh(lb);
    return globby_tour_join(lb, id);
}

const char *globby_tour_status(const globby *lb)
{
    return gtk_label_get_text(GTK_LABEL(lb->tour_status));
}

const char *globby_tour_created(const globby *lb)
{
    return lb->created_tour;
}

static void on_tour_play(GtkButton *b, gpointer data)
{
    (void)b;
    globby *lb = data;
    GtkListBoxRow *row = gtk_list_box_get_selected_row(GTK_LIST_BOX(lb->tours));
    const char *id = row ? g_object_get_data(G_OBJECT(row), "id") : NULL;
    if (!id) {
        set_error(lb, _("Choose a tournament in the list first."));
        return;
    }
    globby_tour_join(lb, id);
}

static void on_tour_leave(GtkButton *b, gpointer data)
{
    (void)b;
    globby_tour_leave(data);
}

static void on_tour_create(GtkButton *b, gpointer data)
{
    (void)b;
    globby_tour_create(data, NULL, NULL, 0, -1, NULL, 0);
}

static void on_create(GtkButton *b, gpointer data)
{
    (void)b;
    globby_create(data, NULL, NULL, 0);
}

static GtkWidget *button(const char *label, const char *accessible)
{
    GtkWidget *b = gview_mnemonic_button(label);
    gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible,
                                   -1);
    return b;
}

globby *globby_new(gview *v)
{
    globby *lb = g_new0(globby, 1);
    lb->v = v;
    lb->window = gview_dialog(v, _("Sungka \u2014 games"));
    gtk_window_set_modal(GTK_WINDOW(lb->window), TRUE);
    gtk_window_set_default_size(GTK_WINDOW(lb->window), 620, 520);
    gtk_window_set_hide_on_close(GTK_WINDOW(lb->window), TRUE);   /* kept for next time */

    GtkWidget *box = gview_padded_column(8, 12);

    char *hello = g_strdup_printf(_("Connected to the board service as %s."),
                                  agent_name(v->ag));
    GtkWidget *intro = gtk_label_new(hello);
    g_free(hello);
    gtk_label_set_xalign(GTK_LABEL(intro), 0);
    gtk_box_append(GTK_BOX(box), intro);

    GtkWidget *games_head = gtk_label_new(NULL);
    char *m = g_markup_printf_escaped("<b>%s</b>", _("Games"));
    gtk_label_set_markup(GTK_LABEL(games_head), m);
    g_free(m);
    gtk_label_set_xalign(GTK_LABEL(games_head), 0);
    gtk_box_append(GTK_BOX(box), games_head);
    lb->list = gtk_list_box_new();
    gtk_list_box_set_selection_mode(GTK_LIST_BOX(lb->list), GTK_SELECTION_SINGLE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(lb->list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Games on the board service"), -1);
    g_signal_connect(lb->list, "row-activated", G_CALLBACK(on_row_activated), lb);
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), lb->list);
    gtk_widget_set_vexpand(scroll, TRUE);
    gtk_widget_set_size_request(scroll, -1, 160);
    gtk_box_append(GTK_BOX(box), scroll);
    lb->pools = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(lb->pools), 0);
    gtk_label_set_wrap(GTK_LABEL(lb->pools), TRUE);
    gtk_widget_set_visible(lb->pools, FALSE);
    gtk_box_append(GTK_BOX(box), lb->pools);

    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *refresh = button(_("_Refresh"), _("Refresh the list of games"));
    GtkWidget *join = button(_("_Join"), _("Join the chosen game as a player"));
    GtkWidget *observe = button(_("_Watch"), _("Watch the chosen game"));
    g_signal_connect(refresh, "clicked", G_CALLBACK(on_refresh), lb);
    g_signal_connect(join, "clicked", G_CALLBACK(on_join), lb);
    g_signal_connect(observe, "clicked", G_CALLBACK(on_observe), lb);
    gtk_box_append(GTK_BOX(row), refresh);
    gtk_box_append(GTK_BOX(row), join);
    gtk_box_append(GTK_BOX(row), observe);
    gtk_box_append(GTK_BOX(box), row);

    GtkWidget *tours_head = gtk_label_new(NULL);
    m = g_markup_printf_escaped("<b>%s</b>", _("Tournaments"));
    gtk_label_set_markup(GTK_LABEL(tours_head), m);
    g_free(m);
    gtk_label_set_xalign(GTK_LABEL(tours_head), 0);
    gtk_box_append(GTK_BOX(box), tours_head);
    lb->tours = gtk_list_box_new();
    gtk_list_box_set_selection_mode(GTK_LIST_BOX(lb->tours), GTK_SELECTION_SINGLE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(lb->tours), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Tournaments on the board service: activate one for its "
                                     "standings"), -1);
    g_signal_connect(lb->tours, "row-activated", G_CALLBACK(on_tournament_activated), lb);
    GtkWidget *tscroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(tscroll), lb->tours);
    gtk_widget_set_size_request(tscroll, -1, 80);
    gtk_box_append(GTK_BOX(box), tscroll);
    GtkWidget *tour_row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    lb->tour_play = button(_("_Play in Tournament"),
                           _("Join the chosen tournament and play the games it seats you in"));
    g_signal_connect(lb->tour_play, "clicked", G_CALLBACK(on_tour_play), lb);
    lb->tour_leave = button(_("Lea_ve Tournament"), _("Withdraw from the tournament you play in"));
    gtk_widget_set_visible(lb->tour_leave, FALSE);
    g_signal_connect(lb->tour_leave, "clicked", G_CALLBACK(on_tour_leave), lb);
    gtk_box_append(GTK_BOX(tour_row), lb->tour_play);
    gtk_box_append(GTK_BOX(tour_row), lb->tour_leave);
    gtk_box_append(GTK_BOX(box), tour_row);
    lb->tour_status = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(lb->tour_status), 0);
    gtk_label_set_wrap(GTK_LABEL(lb->tour_status), TRUE);
    gtk_widget_add_css_class(lb->tour_status, "monospace");
    gtk_box_append(GTK_BOX(box), lb->tour_status);

    GtkWidget *new_head = gtk_label_new(NULL);
    m = g_markup_printf_escaped("<b>%s</b>", _("New game"));
    gtk_label_set_markup(GTK_LABEL(new_head), m);
    g_free(m);
    gtk_label_set_xalign(GTK_LABEL(new_head), 0);
    gtk_box_append(GTK_BOX(box), new_head);
    const char *titles[64 + 1];
    int nk = game_kind_count() < 64 ? game_kind_count() : 64;
    for (int i = 0; i < nk; i++)
        titles[i] = view_kind_title(game_kind_at(i)->title);
    titles[nk] = NULL;
    lb->kind = gtk_drop_down_new_from_strings(titles);
    gtk_accessible_update_property(GTK_ACCESSIBLE(lb->kind), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Kind of game"), -1);
    /* the kind used last time */
    GKeyFile *kf = gprefs_load();
    char *last = g_key_file_get_string(kf, "new-game", "kind", NULL);
    for (int i = 0; last && i < nk; i++)
        if (strcmp(game_kind_at(i)->name, last) == 0)
            gtk_drop_down_set_selected(GTK_DROP_DOWN(lb->kind), (guint)i);
    g_free(last);
    g_key_file_free(kf);
    g_signal_connect(lb->kind, "notify::selected", G_CALLBACK(on_kind), lb);
    gtk_box_append(GTK_BOX(box), lb->kind);
    lb->options = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(lb->options), 4);
    gtk_grid_set_column_spacing(GTK_GRID(lb->options), 8);
    gtk_box_append(GTK_BOX(box), lb->options);
    build_options(lb);
    GtkWidget *clock_row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    GtkWidget *clock_label = gtk_label_new_with_mnemonic(_("C_lock"));
    lb->clock = gtk_entry_new();
    gtk_label_set_mnemonic_widget(GTK_LABEL(clock_label), lb->clock);
    gtk_entry_set_placeholder_text(GTK_ENTRY(lb->clock), _("none, or 5+3, 10, 30/move"));
    gtk_accessible_update_property(GTK_ACCESSIBLE(lb->clock), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Clock: minutes for the game plus seconds a move (5+3), "
                                     "minutes (10), or seconds a move (30/move)"),
                                   -1);
    gtk_box_append(GTK_BOX(clock_row), clock_label);
    gtk_box_append(GTK_BOX(clock_row), lb->clock);
    gtk_box_append(GTK_BOX(box), clock_row);
    GtkWidget *create_row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *create = button(_("_Create and sit down"), _("Create the new game and sit at it"));
    g_signal_connect(create, "clicked", G_CALLBACK(on_create), lb);
    lb->quick_btn = button(_("_Quick Pairing"),
                           _("Wait for players of a near rating who ask for the same game"));
    g_signal_connect(lb->quick_btn, "clicked", G_CALLBACK(on_quick), lb);
    lb->quick_stop = button(_("_Stop Waiting"), _("Stop waiting for a quick pairing"));
    gtk_widget_set_visible(lb->quick_stop, FALSE);
    g_signal_connect(lb->quick_stop, "clicked", G_CALLBACK(on_quick_stop), lb);
    gtk_box_append(GTK_BOX(create_row), create);
    gtk_box_append(GTK_BOX(create_row), lb->quick_btn);
    gtk_box_append(GTK_BOX(create_row), lb->quick_stop);
    gtk_box_append(GTK_BOX(box), create_row);
    /* A tournament of the kind, options and clock above. */
    GtkWidget *tnew_row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    const char *formats[] = {_("arena"), _("round robin"), _("Swiss"), NULL};
    lb->tour_format = gtk_drop_down_new_from_strings(formats);
    gtk_accessible_update_property(GTK_ACCESSIBLE(lb->tour_format),
                                   GTK_ACCESSIBLE_PROPERTY_LABEL, _("Kind of tournament"), -1);
    GtkWidget *players_label = gtk_label_new(_("players"));
    lb->tour_players = gtk_spin_button_new_with_range(2, 1000, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(lb->tour_players), 8);
    gtk_accessible_update_property(GTK_ACCESSIBLE(lb->tour_players),
                                   GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Players: a round robin or a Swiss starts when this many "
                                     "have joined"), -1);
    GtkWidget *length_label = gtk_label_new(_("minutes or rounds"));
    lb->tour_length = gtk_spin_button_new_with_range(0, 1440, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(lb->tour_length), 5);
    gtk_accessible_update_property(GTK_ACCESSIBLE(lb->tour_length),
                                   GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("An arena's minutes, or the rounds to play (0: as many as "
                                     "it needs)"), -1);
    GtkWidget *tour_create = button(_("Create Tour_nament"),
                                    _("Create a tournament of this kind, options and clock, "
                                      "and join it"));
    g_signal_connect(tour_create, "clicked", G_CALLBACK(on_tour_create), lb);
    gtk_box_append(GTK_BOX(tnew_row), lb->tour_format);
    gtk_box_append(GTK_BOX(tnew_row), players_label);
    gtk_box_append(GTK_BOX(tnew_row), lb->tour_players);
    gtk_box_append(GTK_BOX(tnew_row), length_label);
    gtk_box_append(GTK_BOX(tnew_row), lb->tour_length);
    gtk_box_append(GTK_BOX(tnew_row), tour_create);
    gtk_box_append(GTK_BOX(box), tnew_row);
    lb->quick_status = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(lb->quick_status), 0);
    gtk_label_set_wrap(GTK_LABEL(lb->quick_status), TRUE);
    gtk_box_append(GTK_BOX(box), lb->quick_status);

    lb->error = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(lb->error), 0);
    gtk_label_set_wrap(GTK_LABEL(lb->error), TRUE);
    gtk_widget_add_css_class(lb->error, "error");
    gtk_box_append(GTK_BOX(box), lb->error);

    gtk_window_set_child(GTK_WINDOW(lb->window), box);
    return lb;
}

void globby_show(globby *lb)
{
    globby_refresh(lb);
    gtk_window_present(GTK_WINDOW(lb->window));
}

void globby_free(globby *lb)
{
    if (!lb)
        return;
    /* the kind's drop-down says "selected" changed while it is taken down:
     * lb must not be reached from there (Connect… frees a dialog in use) */
    g_signal_handlers_disconnect_by_data(lb->kind, lb);
    if (lb->quick) {                   /* stop waiting; a seat given meanwhile is taken */
        char err[512];
        agent_quick *w = lb->quick;
        agent_quick_cancel(w);
        quick_stopped(lb);
        agent_quick_finish(lb->v->ag, w, err, sizeof err);
    }
    if (lb->tour) {                    /* stop waiting; a seat given meanwhile is taken */
        char err[512];
        agent_tour_wait *w = lb->tour;
        agent_tournament_cancel(w);
        tour_stopped(lb);
        agent_tournament_finish(lb->v->ag, w, err, sizeof err);
    }
    gtk_window_destroy(GTK_WINDOW(lb->window));
    g_free(lb);
}

void globby_set_clock(globby *lb, const char *spec)
{
    gtk_editable_set_text(GTK_EDITABLE(lb->clock), spec);
}

GtkWidget *globby_window(const globby *lb)
{
    return lb->window;
}
