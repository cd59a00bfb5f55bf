/*
 * gtk_view.c — the GTK 4 view's life: the window opened, the agent's queue
 * watched, the main loop run until the user quits, everything taken down;
 * and the small questions every part of the window asks the model.
 *
 * The application is an AdwApplication (libadwaita: a GNOME application
 * that follows the desktop's light or dark style), its window an
 * AdwApplicationWindow with a header bar (gtk_window.c, gtk_menu.c).
 *
 * The agent's queue fd is a GLib source (g_unix_fd_add), so agent messages
 * and the user's input are served by the one main loop on this thread; the
 * agent has already applied each message to its model when we see it, and
 * we draw from the model — except while a move is animated (gtk_anim.c).
 *
 * run() gets an agent already connected (the command line said where);
 * run_connect() starts with none, shows the connect dialog (gtk_connect.c)
 * over the window, and takes the agent it starts; until then v->ag is NULL
 * and the window shows an empty, idle board. Either way the games dialog
 * (gtk_lobby.c) opens when there is no game yet.
 */
#include <glib-unix.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "gtk_view.h"
#include "gtk_view_internal.h"
#include "xdg.h"

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

const char *gview_seat_name(const gview *v, int seat, char *buf, size_t len)
{
    return agent_seat_name(gview_model(v), seat, buf, len);
}

const agent_person *gview_find_person(const agent_model *m, const char *name)
{
    for (int i = 0; i < m->n_people; i++)
        if (strcmp(m->people[i].name, name) == 0)
            return &m->people[i];
    return NULL;
}

const agent_person *gview_seat_person(const agent_model *m, int seat)
{
    for (int i = 0; i < m->n_people; i++)
        if (m->people[i].seat == seat)
            return &m->people[i];
    return NULL;
}

bool gview_game_over(const agent_model *m)
{
    return m->status == AGENT_GAME_FINISHED || m->status == AGENT_GAME_ABANDONED;
}

bool gview_playing(const gview *v)
{
    const agent_model *m = gview_model(v);
    return gview_in_game(v) && m->my_seat >= 0 && m->status == AGENT_GAME_RUNNING;
}

/* ------------------------------------------------------------ life */

void gview_quit(gview *v)
{
    v->quitting = true;
    g_application_quit(G_APPLICATION(v->app));
}

void gview_joined(gview *v)
{
    gview_anim_jump(v);
    v->last_cell = v->hover = v->cursor = -1;
    v->move_pending = false;
    v->flash[0] = '\0';
    v->connection[0] = '\0';
    gview_sync_shown(v);
    gview_refresh(v);
}

void gview_connected(gview *v, agent *ag)
{
    v->ag = ag;
    v->agent_watch = g_unix_fd_add(agent_fd(ag), G_IO_IN, gview_on_agent, v);
    v->lobby = globby_new(v);
    gview_sync_shown(v);
    gview_refresh(v);
    if (!agent_in_game(ag))     /* nothing said on the command line: the lobby */
        globby_show(v->lobby);
}

void gview_reconnect(gview *v)
{
    if (!v->launcher || !v->ag)
        return;
    if (agent_in_game(v->ag))
        agent_leave(v->ag);
    gview_anim_jump(v);
    g_source_remove(v->agent_watch);
    v->agent_watch = 0;
    gview_away_stop(v);
    greplay_free(v->replay);
    ghistory_free(v->history);
    v->history = NULL;
    gratings_free(v->ratings);
    v->ratings = NULL;
    globby_free(v->lobby);
    v->lobby = NULL;
    gpassword_free(v->password);
    gview_close_over_dialog(v);
    v->ag = NULL;
    v->launcher->stop(v->launcher);     /* the agent, and a private service */
    gmoves_clear(v);
    v->flash[0] = '\0';
    v->connection[0] = '\0';
    gview_log(v, _("Disconnected: say where to play next in the connect dialog."));
    gview_sync_shown(v);
    gview_refresh(v);
    gconnect_free(v->connect);
    v->connect = gconnect_new(v);
}

/* The primary instance starts: the window, not shown yet. */
static void on_startup(GApplication *app, gpointer data)
{
    (void)app;
    gview *v = data;
    /* The icon's theme directory beside the program: the installed one
     * (already searched) or the build tree's, where views/CMakeLists.txt
     * copies it. */
    char icons[PATH_MAX];
    if (xdg_beside_program(SUNGKA_ICONDIR_FROM_BINDIR, icons, sizeof icons) == 0)
        gtk_icon_theme_add_search_path(gtk_icon_theme_get_for_display(gdk_display_get_default()),
                                       icons);
    gtk_window_set_default_icon_name("sungka");   /* installed by packaging/ */
    gmenu_apply_style();
    gview_sound_load(v);
    gview_build(v);
    gview_sync_shown(v);
    gview_refresh(v);
}

/* Shown: the first time with the agent (or the connect dialog) and the test
 * hook; again whenever another launch of the view found this one running,
 * which brings it (and the connect dialog, while it is open) to the front. */
static void on_activate(GApplication *app, gpointer data)
{
    (void)app;
    gview *v = data;
    if (v->activations++ > 0) {
        gtk_window_present(GTK_WINDOW(v->window));
        if (v->connect)
            gtk_window_present(GTK_WINDOW(gconnect_window(v->connect)));
        return;
    }
    gtk_window_present(GTK_WINDOW(v->window));
    gtk_widget_grab_focus(v->area);
    if (v->given)
        gview_connected(v, v->given);
    else
        v->connect = gconnect_new(v);
    v->given = NULL;
    if (gscript_start)          /* sungka-player-gtk-test only */
        v->script = gscript_start(v);
}

/* Take everything down after the application's main loop has ended. */
static void take_down(gview *v)
{
    if (gscript_free)
        gscript_free(v->script);
    if (v->exit_status == 0 && v->ag)
        agent_leave(v->ag);     /* as the text view does on quit */
    gview_anim_jump(v);
    if (v->agent_watch)
        g_source_remove(v->agent_watch);
    gview_away_stop(v);
    greplay_free(v->replay);
    ghistory_free(v->history);
    gratings_free(v->ratings);
    gview_sound_free(v);
    globby_free(v->lobby);
    gconnect_free(v->connect);
    gpassword_free(v->password);
    gview_close_over_dialog(v);
    GtkWidget **menus[] = {&v->about, &v->shortcuts, &v->prefs};
    for (size_t i = 0; i < G_N_ELEMENTS(menus); i++)
        if (*menus[i])
            gtk_window_destroy(GTK_WINDOW(*menus[i]));   /* clears the pointer */
    gtk_window_destroy(GTK_WINDOW(v->window));
    while (g_main_context_iteration(NULL, FALSE))
        ;
    if (v->listed)
        g_array_free(v->listed, TRUE);
}

/* Run the view as a GtkApplication until the user quits; the exit status.
 * `unique`: one window for every launch on this desktop, as from the
 * desktop entry — a launch that finds one running only presents it and
 * returns 0 (through D-Bus; without a session bus every launch has its own
 * window). */
static int run_app(gview *v, bool unique)
{
    if (!gtk_init_check()) {
        fprintf(stderr, "sungka-player: %s\n",
                _("the GTK view cannot open a display (is DISPLAY set?)"));
        return 1;
    }
    v->last_cell = v->hover = v->cursor = -1;
    v->watching = -1;
    /* libadwaita's application: its style sheet, and the desktop's colour
     * scheme followed (adw_init at start-up) */
    v->app = GTK_APPLICATION(adw_application_new(GVIEW_APP_ID,
                                                 unique ? G_APPLICATION_DEFAULT_FLAGS
                                                        : G_APPLICATION_NON_UNIQUE));
    g_signal_connect(v->app, "startup", G_CALLBACK(on_startup), v);
    g_signal_connect(v->app, "activate", G_CALLBACK(on_activate), v);
    int status = g_application_run(G_APPLICATION(v->app), 0, NULL);
    if (v->window) {            /* the primary instance: startup built it */
        status = status ? status : v->exit_status;
        take_down(v);
    } else if (status == 0) {   /* a remote one: it asked the primary to activate */
        printf("%s\n", _("Sungka is already open on this desktop: its window is brought to "
                         "the front."));
    }
    g_object_unref(v->app);
    return status;
}

/* The command line said where and what: the agent is connected, at its
 * game or in the lobby. Another game, or another seat of the same game
 * (a friend on the same desktop), is another window: not unique. */
static int run(agent *ag, const view_io *io)
{
    (void)io;
    gview v = {.given = ag};
    return run_app(&v, false);
}

/* Nothing said on the command line, as from the desktop entry: the
 * connect dialog asks where and who, and a second launch presents the
 * window already open. */
static int run_connect(view_launcher *l, const view_io *io)
{
    (void)io;
    gview v = {.launcher = l};
    return run_app(&v, true);
}

const view_ops view_gtk = {
    .name = "gtk",
    .summary = "a GTK 4 window: click to move, chat, games, history and replays",
    .run = run,
    .run_connect = run_connect,
};
