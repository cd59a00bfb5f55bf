/*
 * gtk_view_internal.h — what the GTK view's modules (gtk_view.c, the lobby
 * dialog gtk_lobby.c and the test hook gtk_script.c) share. Everything here
 * runs on the view thread, inside GLib's main loop.
 */
#ifndef SUNGKA_GTK_VIEW_INTERNAL_H
#define SUNGKA_GTK_VIEW_INTERNAL_H

#include <gtk/gtk.h>
#include <libintl.h>
#include <stdbool.h>

#include "agent.h"
#include "gtk_geometry.h"

#define _(s) gettext(s)
#define N_(s) (s)

typedef struct globby globby;
typedef struct gscript gscript;

typedef struct gview {
    agent *ag;
    GMainLoop *loop;
    guint agent_watch;         /* g_unix_fd_add on agent_fd() */
    int exit_status;
    bool quitting;

    /* widgets (owned by the window) */
    GtkWidget *window;
    GtkWidget *banner;         /* the game-over line above the board */
    GtkWidget *status;         /* whose turn, or what we wait for */
    GtkWidget *area;           /* the board */
    GtkWidget *people;         /* players, scores, pings */
    GtkWidget *log;            /* GtkTextView: events and chat */
    GtkWidget *entry;          /* chat input */
    GtkWidget *recipient;      /* GtkDropDown: Everyone, or one name */
    GtkStringList *recipients; /* its model */
    GtkWidget *btn_ready, *btn_sit, *btn_stand, *btn_leave, *btn_games;
    GtkWidget *over_dialog;    /* the game-over window while shown */

    /* what the board shows: a copy of the cells that lags the model while
     * a move is animated */
    int16_t shown[GAME_MAX_CELLS];
    int n_shown;
    game_step *anim_steps;     /* the animated move's steps (ours) */
    int anim_n, anim_i, anim_per_tick;
    guint anim_src;
    int anims_done, anim_frames;    /* counted for the script hook */
    int last_cell;             /* the cell that changed last, -1 */
    int hover;                 /* the legal cell under the pointer, -1 */
    int cursor;                /* the keyboard cursor, -1 */
    bool move_pending;         /* a move was sent; wait for its answer */
    char flash[AGENT_TEXT_BYTES];   /* a passing remark under the status */

    globby *lobby;
    gscript *script;
} gview;

const agent_model *gview_model(const gview *v);
/* Refresh every pane from the model and redraw the board. */
void gview_refresh(gview *v);
/* Append a line to the event and chat log. */
void gview_log(gview *v, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* Pointer and keyboard, in the board's coordinates (also used by the
 * script hook, so tests go through the same hit testing as the user). */
void gview_motion(gview *v, double x, double y);
void gview_click(gview *v, double x, double y);
bool gview_key(gview *v, guint keyval);
/* The layout of the board at the drawing area's current size. */
void gview_layout(const gview *v, geo_layout *L);
/* Is the board animating? Is a move of ours wanted now? */
bool gview_animating(const gview *v);
bool gview_my_turn(const gview *v);
/* The legal moves shown now (0 when it is not our turn). */
int gview_legal(const gview *v, int *moves, int max);
/* After joining or creating a game from the lobby. */
void gview_joined(gview *v);
/* Stop the main loop (after the user confirmed, where needed). */
void gview_quit(gview *v);

/* gtk_lobby.c: the games dialog. */
globby *globby_new(gview *v);
void globby_show(globby *lb);
void globby_free(globby *lb);
/* For the script hook: act as the user would in the dialog. 0 or -1. */
int globby_refresh(globby *lb);
int globby_join(globby *lb, const char *game_id, bool observe);
int globby_create(globby *lb, const char *kind, char **assignments, int n);
const char *globby_error(const globby *lb);

/* gtk_script.c: the hidden test hook (SUNGKA_GTK_SCRIPT). */
gscript *gscript_start(gview *v, const char *path);
void gscript_free(gscript *s);

#endif /* SUNGKA_GTK_VIEW_INTERNAL_H */
