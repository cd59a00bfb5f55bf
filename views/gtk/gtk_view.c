/*
 * gtk_view.c — the GTK 4 view's life: the window opened, the agent's queue
 * watched, the main loop run until the user quits, everything taken down;
 * and the small questions every part of the window asks the model.
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
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtk_view.h"
#include "gtk_view_internal.h"

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
    g_main_loop_quit(v->loop);
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
    gview_build(v);
    gview_sync_shown(v);
    gview_refresh(v);
    gtk_window_present(GTK_WINDOW(v->window));
    gtk_widget_grab_focus(v->area);
    return v;
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

/* Follow the test script, if any, run until the user quits, and take
 * everything down; the exit status. */
static int run_window(gview *v)
{
    if (gscript_start)          /* sungka-player-gtk-test only */
        v->script = gscript_start(v);

    g_main_loop_run(v->loop);

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
    globby_free(v->lobby);
    gconnect_free(v->connect);
    gview_close_over_dialog(v);
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
