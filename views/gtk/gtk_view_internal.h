/*
 * gtk_view_internal.h — what the GTK view's modules share. The main window
 * is six files: its life (gtk_view.c), its widgets and commands
 * (gtk_window.c), the panes beside the board (gtk_panes.c: status, players,
 * chat), the board and playing on it (gtk_play.c), the sowing animation
 * (gtk_anim.c), the away countdown (gtk_away.c) and the big clocks above
 * the board (gtk_clock.c), the sounds (gtk_sound.c); agent messages become
 * lines and dialogs in gtk_events.c. Around it: the connect dialog
 * (gtk_connect.c), the header bar's primary menu and the windows it opens
 * (About, Keyboard Shortcuts, Preferences) with the colour scheme
 * (gtk_menu.c), the account's actions and the change-password dialog
 * (gtk_account.c), the games dialog (gtk_lobby.c), the match history and
 * its replay window (gtk_history.c, gtk_replay.c), a player's rating graph
 * (gtk_ratings.c), the remembered settings
 * (gtk_prefs.c) and the test hook (gtk_script.c). Everything here runs on
 * the view thread, inside GLib's main loop.
 */
#ifndef SUNGKA_GTK_VIEW_INTERNAL_H
#define SUNGKA_GTK_VIEW_INTERNAL_H

#include <adwaita.h>
#include <gtk/gtk.h>
#include <stdbool.h>

#include "agent.h"
#include "gtk_board.h"
#include "gtk_geometry.h"
#include "view.h"
#include "view_i18n.h"

/* The GtkApplication's id: the Wayland app id and D-Bus name, which the
 * desktop entry is named after (packaging/io.github.sungka.Player.desktop). */
#define GVIEW_APP_ID "io.github.sungka.Player"

typedef struct globby globby;
typedef struct gconnect gconnect;
typedef struct gpassword gpassword;
typedef struct ghistory ghistory;
typedef struct greplay greplay;
typedef struct gratings gratings;
typedef struct gscript gscript;

typedef struct gview {
    agent *ag;                 /* NULL until the connect dialog has started it */
    view_launcher *launcher;   /* run_connect's way to start the agent, else NULL */
    agent *given;              /* run's agent, until the first activation */
    GtkApplication *app;       /* an AdwApplication: libadwaita's style follows
                                * the desktop's (dark included) */
    int activations;           /* "activate" signals: 1, then one per further
                                * launch that presented this window */
    guint agent_watch;         /* g_unix_fd_add on agent_fd() */
    int exit_status;
    bool quitting;

    /* widgets (owned by the window) */
    GtkWidget *window;         /* an AdwApplicationWindow: the win.* actions */
    GtkWidget *title;          /* AdwWindowTitle in the header bar: the game or
                                * the lobby */
    GtkWidget *flap;           /* AdwFlap: the board, with the side pane beside
                                * it, or folded behind pane_toggle when narrow */
    GtkWidget *pane_toggle;    /* the header bar's button for the folded pane */
    GtkWidget *menu_button;    /* the primary menu (F10) */
    GtkWidget *about;          /* AdwAboutWindow while open */
    GtkWidget *shortcuts;      /* GtkShortcutsWindow while open */
    GtkWidget *prefs;          /* AdwPreferencesWindow while open */
    GtkWidget *banner;         /* the game-over line above the board */
    GtkWidget *status;         /* whose turn, or what we wait for */
    GtkWidget *area;           /* the board */
    GtkWidget *people;         /* players, scores, pings */
    GtkWidget *log;            /* GtkTextView: events and chat */
    GtkWidget *entry;          /* chat input */
    GtkWidget *recipient;      /* GtkDropDown: Everyone, or one name */
    GtkStringList *recipients; /* its model */
    GtkWidget *btn_ready, *btn_sit, *btn_stand, *btn_leave, *btn_games, *btn_history;
    GtkWidget *fair_row;       /* Resign / Draw / Accept / Decline / Abort / Claim */
    GtkWidget *rematch_row;    /* after the end: Rematch / Decline rematch */
    GtkWidget *btn_rematch, *btn_no_rematch;
    GtkWidget *clocks;         /* gtk_clock.c: a column per seat, hidden without clocks */
    GtkWidget *clock_name[GAME_MAX_SEATS], *clock_time[GAME_MAX_SEATS];
    int clock_shown[GAME_MAX_SEATS];    /* each one's gclock_state as drawn */
    GtkWidget *moves;          /* gtk_moves.c: the move list (a read-only text view) */
    int n_listed_moves;
    GArray *listed;            /* gmoves_played: seat and move of each listed line */
    int viewing;               /* the move list's step shown on the board (the
                                * position after that many moves), -1: the game */
    game_state viewed;         /* that position, while viewing >= 0 */
    GtkWidget *btn_live;       /* "Back to the Game", shown while viewing */
    bool was_my_turn;          /* for the notification when it becomes ours */
    GtkWidget *moves_box;      /* a button per move that is no cell ("swap"),
                                * from the kind's table; shown while legal */
    const game_kind *moves_kind;    /* the kind moves_box was made for */
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
    char connection[AGENT_TEXT_BYTES];  /* while the connection is being
                                         * retried, what the agent last said */
    int watching;              /* how many watch, as last logged; -1 before a game */

    guint away_tick;           /* the countdown's 1 s timer while anyone is away
                                * (the model says until when: agent_away_seconds) */

    gconnect *connect;         /* the connect dialog (run_connect only) */
    gpassword *password;       /* the change-password dialog while open */
    GtkWidget *account;        /* "Signed in as Alice", or the guest's name */
    GtkWidget *btn_sign_out, *btn_password;
    GtkWidget *social_row;     /* Block, Report...: on the chosen recipient, signed in */
    globby *lobby;             /* the games dialog, once connected */
    ghistory *history;         /* the history dialog, once asked for */
    greplay *replay;           /* the replay window while open */
    gratings *ratings;         /* the rating graph, once asked for */
    struct _GSoundContext *sound_ctx;   /* gtk_sound.c: made at the first sound */
    bool sound_off;            /* the player turned sounds off (Preferences) */
    int sounds_played;         /* counted for the script hook, */
    const char *last_sound;    /* ... with the last one's name ("move") */
    gscript *script;
} gview;

/* The agent's model (an empty one while not connected). */
const agent_model *gview_model(const gview *v);
/* Connected and at a game? */
bool gview_in_game(const gview *v);
/* The connect dialog started the agent: watch it and open the games dialog. */
void gview_connected(gview *v, agent *ag);
/* Connect… (run_connect only, connected and not playing): leave the game,
 * stop the agent (and a private service) through v->launcher, close every
 * window that needed it, and show the connect dialog again. */
void gview_reconnect(gview *v);
/* Refresh every pane from the model and redraw the board. */
void gview_refresh(gview *v);
/* Append a line to the event and chat log. */
void gview_log(gview *v, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* A window over the main one (dialogs: games, history, questions):
 * transient for it, modal, closed by Escape as by its close button. */
GtkWidget *gview_dialog(gview *v, const char *title);
/* Escape closes window w (a "close-request", as its close button). */
void gview_close_on_escape(GtkWidget *w);
/* A button's or check button's label, mnemonic and all ("_Ready"), and its
 * accessible name:
 * the label without the underscore ("Ready"), set again on every relabel
 * since GTK puts the raw label there. */
void gview_set_button_label(GtkWidget *button, const char *mnemonic_label);
/* gtk_button_new_with_mnemonic and gtk_check_button_new_with_mnemonic, with
 * the accessible name as gview_set_button_label sets it. */
GtkWidget *gview_mnemonic_button(const char *mnemonic_label);
GtkWidget *gview_mnemonic_check(const char *mnemonic_label);
/* A vertical box with `margin` pixels on every side: a dialog's or pane's body. */
GtkWidget *gview_padded_column(int spacing, int margin);
/* Pointer and keyboard, in the board's coordinates (also used by the
 * script hook, so tests go through the same hit testing as the user). */
void gview_motion(gview *v, double x, double y);
void gview_click(gview *v, double x, double y);
/* The named moves' buttons (games.h: named_moves) for the game in hand, each
 * shown only while it is ours to play; from gview_refresh. */
void gview_update_named_moves(gview *v);
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
/* Quit the application (after the user confirmed, where needed). */
void gview_quit(gview *v);

/* gtk_view.c: small questions to the model, for every part of the window. */
const agent_person *gview_find_person(const agent_model *m, const char *name);
const agent_person *gview_seat_person(const agent_model *m, int seat);
const char *gview_seat_name(const gview *v, int seat, char *buf, size_t len);
bool gview_game_over(const agent_model *m);
/* Seated at a running game (leaving it would end it for everyone)? */
bool gview_playing(const gview *v);

/* gtk_window.c: the main window's widgets (into v), and its buttons. */
void gview_build(gview *v);
/* Which buttons can be used now, from the model. */
void gview_update_buttons(gview *v);

/* gtk_menu.c: the header bar's primary menu (a GMenu of app.* and win.*
 * actions: New Game, History, Connect…, Preferences, Keyboard Shortcuts,
 * About Sungka, Quit), its actions and their accelerators, and the windows it
 * opens, each transient for the main window and closed by Escape. The
 * colour scheme (the desktop's, or light or dark as chosen in Preferences
 * and remembered in gtk.ini's [appearance]) is applied at start-up; the
 * board is drawn from the palette of the style in force (gview_palette). */
GtkWidget *gmenu_button(gview *v);        /* the menu button, actions added */
void gmenu_update(gview *v);              /* Connect… usable now? (gview_refresh) */
void gmenu_apply_style(void);             /* the remembered colour scheme */
/* The shortcuts window's text: a GtkBuilder .ui of every accelerator
 * (g_free it); accels is the window's table, n its length. */
typedef struct gview_accel {
    const char *action;        /* "win.ready" */
    const char *keys[3];       /* accelerators, NULL-terminated */
    const char *group;         /* the shortcuts window's section, untranslated */
    const char *title;         /* what it does, untranslated (N_) */
} gview_accel;
extern const gview_accel gview_accels[];
extern const size_t gview_n_accels;
/* The board's colours in the style in force (light or dark). */
const board_palette *gview_palette(void);

/* gtk_panes.c: the status line and banner, the players pane, the chat
 * recipients, the title and the board's description, from the model
 * (gview_refresh calls them all); "Game over — winners: ..." into s. */
void gview_append_winners(const gview *v, GString *s);
void gview_update_status(gview *v);
void gview_update_people(gview *v);
/* The chat entry's "activate": send to everyone, the chosen one, or /tell. */
void gview_on_chat(GtkEntry *entry, gpointer data);

/* gtk_play.c: the board's drawing function and its pointer and key
 * controllers, attached to v->area. */
void gview_play_attach(gview *v);
/* The legal moves as cells of the board; is `cell` one of them? */
int gview_legal_cells(const gview *v, int *cells, int max);
bool gview_cell_is_legal(const gview *v, int cell);
/* The seat drawn nearest: ours, or seat 0 for observers; in hot seat,
 * whichever of ours is to move. */
int gview_viewer_seat(const gview *v);

/* gtk_anim.c: the sowing animation. The board shows v->shown, which lags
 * the model while a move's steps are applied one by one. */
void gview_sync_shown(gview *v);                      /* shown = the model's cells */
void gview_anim_start(gview *v, const agent_msg *msg);    /* a MOVED message */
void gview_anim_jump(gview *v);    /* stop, every step applied (not synced) */
void gview_anim_skip(gview *v);    /* stop and show the model's board */

/* gtk_away.c: a departed player's kept seat, counted down once a second. */
int gview_away_seconds(const gview *v, const char *name);  /* -1: not counting */
void gview_away_watch(gview *v);   /* start the 1 s tick if anyone is away */
void gview_away_stop(gview *v);

/* gtk_clock.c: the big clocks above the board (issue 33). gclock_new makes
 * v->clocks; gclock_update sets them from the model (gview_refresh and the
 * 1 s tick). gclock_state: a seat's clock as last drawn — -1 (none),
 * GCLOCK_STOPPED, GCLOCK_RUNNING, or GCLOCK_LOW (running, GCLOCK_LOW_MS or
 * less left: drawn red). */
#define GCLOCK_LOW_MS 10000
enum { GCLOCK_STOPPED, GCLOCK_RUNNING, GCLOCK_LOW };
GtkWidget *gclock_new(gview *v);
void gclock_update(gview *v);
int gclock_state(const gview *v, int seat);

/* gtk_sound.c: the board page's sounds (issue 33), the desktop's event
 * sounds through GSound; none when the desktop's gtk-enable-event-sounds
 * is off or the player turned them off in Preferences (gview_sound_set,
 * remembered in gtk.ini; gview_sound_load reads it at start). */
typedef enum gview_sound_kind {
    GVIEW_SOUND_MOVE,
    GVIEW_SOUND_CAPTURE,
    GVIEW_SOUND_LOW_TIME,      /* our own clock enters its last GCLOCK_LOW_MS */
    GVIEW_SOUND_END,
} gview_sound_kind;
void gview_sound_play(gview *v, gview_sound_kind kind);
bool gview_sound_wanted(const gview *v);
void gview_sound_load(gview *v);
void gview_sound_set(gview *v, bool on);
void gview_sound_free(gview *v);

/* gtk_events.c: agent messages, as lines in the log and the game-over
 * dialog; gview_on_agent is the queue fd's GLib source function. */
gboolean gview_on_agent(gint fd, GIOCondition cond, gpointer data);
void gview_close_over_dialog(gview *v);

/* gtk_prefs.c: the settings file. gprefs_load never fails (an empty key
 * file when there is none); free it with g_key_file_free. gprefs_save: 0,
 * or -1 with a sentence in err. */
GKeyFile *gprefs_load(void);
int gprefs_save(GKeyFile *kf, char *err, size_t errlen);

/* gtk_connect.c: the connect dialog, shown over the main window by
 * gconnect_new; it starts the agent through v->launcher, signs in or
 * registers as asked, and hands it to gview_connected. Closing it before
 * that quits. */
typedef enum gconnect_mode {
    GCONNECT_GUEST,            /* no account: the name as typed */
    GCONNECT_SIGN_IN,
    GCONNECT_REGISTER,
} gconnect_mode;
gconnect *gconnect_new(gview *v);
void gconnect_free(gconnect *c);
/* For the script hook: fill in the fields and press Connect (server "" is
 * this computer), as a guest; the attempt finishes on a later turn of the
 * main loop. */
void gconnect_submit(gconnect *c, const char *server, const char *name);
/* The same, signing in (create false) or registering with the password
 * typed twice (repeat: the second field; ignored when signing in). */
void gconnect_submit_account(gconnect *c, const char *server, const char *name,
                             const char *password, const char *repeat, bool create);
gconnect_mode gconnect_get_mode(const gconnect *c);
void gconnect_set_mode(gconnect *c, gconnect_mode mode);
bool gconnect_busy(const gconnect *c);
bool gconnect_done(const gconnect *c);          /* connected */
const char *gconnect_error(const gconnect *c);  /* shown in the dialog, or "" */
const char *gconnect_server(const gconnect *c); /* the fields as they are */
const char *gconnect_name(const gconnect *c);
GtkWidget *gconnect_window(const gconnect *c);

/* gtk_account.c: the account in the main window (issue 15): who we are,
 * signing out, and the change-password dialog. */
void gview_update_account(gview *v);      /* the label, from agent_account */
void gview_sign_out(gview *v);
/* gtk_social.c: blocking and reporting the person chosen in the chat's
 * recipient list (docs/rules.md, "Blocking and reporting"). */
bool gsocial_chosen(gview *v, char *name, size_t len);   /* false: Everyone */
void gsocial_block(gview *v);             /* asked first by win.block */
void gsocial_report(gview *v);            /* a dialog asks for the reason */
/* For the script hook: type reason into the open report dialog and press
 * Report; -1 when none is open. */
int gsocial_report_answer(gview *v, const char *reason);
/* The dialog: shown (made when none is open), v->password set until it
 * closes. */
void gpassword_show(gview *v);
void gpassword_free(gpassword *p);
/* For the script hook: type the old password and the new one (twice) and
 * press Change; the call is made before this returns. 0 when changed (the
 * dialog is then closed and freed), -1 with gpassword_error saying why. */
int gpassword_submit(gpassword *p, const char *old_password, const char *new_password,
                     const char *repeat);
const char *gpassword_error(const gpassword *p);
GtkWidget *gpassword_window(const gpassword *p);

/* gtk_moves.c: the move list beside the board, and Export. The list
 * follows MOVED messages (gmoves_append, after the model has the move) and is
 * filled from the service's record on a snapshot (gmoves_reload, blocking
 * with the call deadline). gmoves_export writes the game to path as the text
 * view's export does: 0, or -1 with a sentence.
 * Clicking move N of the list shows the position after it on the board
 * (gmoves_view(v, N), replayed by the rules engine through
 * agent_match_position) while the game goes on; the list's last move, the
 * Back to the Game button, Escape or a click on the board go back
 * (gmoves_view(v, -1)). 0, or -1 when that position cannot be had. */
typedef struct gmoves_played {
    int seat, move;
} gmoves_played;
int gmoves_view(gview *v, int step);
/* The cells the board draws now: the viewed position's while viewing, else
 * v->shown; NULL when there is no board. *n gets their number. */
const int16_t *gview_drawn_cells(const gview *v, int16_t *buf, int *n);
GtkWidget *gmoves_new(gview *v);
void gmoves_clear(gview *v);
void gmoves_append(gview *v, int seat, int move);
void gmoves_reload(gview *v);
char *gmoves_text(const gview *v);        /* g_free it */
int gmoves_export(gview *v, const char *path, char *err, size_t errlen);
void gmoves_export_dialog(gview *v);

/* gtk_lobby.c: the games dialog. */
globby *globby_new(gview *v);
void globby_show(globby *lb);
void globby_free(globby *lb);
/* For the script hook: act as the user would in the dialog. 0 or -1. */
int globby_refresh(globby *lb);
/* A dialog with tournament id's standings: 0, or -1 (globby_error says why). */
int globby_standings(globby *lb, const char *id);
/* For the script hook: the tournaments' rows and the last standings shown,
 * each line after a "|". */
const char *globby_tournaments_text(const globby *lb);
const char *globby_standings_text(const globby *lb);
int globby_join(globby *lb, const char *game_id, bool observe);
int globby_create(globby *lb, const char *kind, char **assignments, int n);
/* Quick pairing (issue 33): wait in the pool of kind (NULL: the dialog's
 * kind and options) with the dialog's clock, options overridden by
 * "name=value" assignments ("rated": rated games only); returns at once, 0
 * or -1 (globby_error). globby_waiting: still waiting; globby_paired: the
 * game the last wait gave ("" while waiting or when it failed: the reason
 * in globby_error); globby_quick_stop: stop waiting (Stop Waiting). */
int globby_quick(globby *lb, const char *kind, char **assignments, int n);
bool globby_waiting(const globby *lb);
const char *globby_paired(const globby *lb);
const char *globby_quick_status(const globby *lb);   /* the pool, as the dialog says it */
/* The quick-pairing pools under the games list, as last refreshed. */
const char *globby_pools(const globby *lb);
void globby_quick_stop(globby *lb);
/* The dialog's clock field, as typed (the script hook sets it). */
void globby_set_clock(globby *lb, const char *spec);
const char *globby_error(const globby *lb);
/* Tournaments (issue 33): play in tournament id (Play in Tournament: join it
 * the first time, then wait, not blocking, for the game it seats us in),
 * 0 or -1 (globby_error); create one (Create Tournament) of format
 * "arena" | "roundrobin" | "swiss" (NULL: the dialog's), players and length
 * (minutes or rounds; 0 and -1: the dialog's), of kind (NULL: the dialog's
 * kind and options) with "name=value" assignments, and play in it; leave the
 * one we play in (Leave Tournament). globby_tour_status: the line under the
 * tournaments (waiting, seated, finished) and the standings as last heard;
 * globby_tour_created: the id Create Tournament made last. */
int globby_tour_join(globby *lb, const char *id);
int globby_tour_create(globby *lb, const char *format, const char *kind, int players, int length,
                       char **assignments, int n);
int globby_tour_leave(globby *lb);
const char *globby_tour_status(const globby *lb);
const char *globby_tour_created(const globby *lb);
/* Game game_id is over: when it is our tournament's, wait for the next one
 * (the dialog shown, the standings live) and say true. */
bool globby_game_over(globby *lb, const char *game_id);

GtkWidget *globby_window(const globby *lb);

/* gtk_history.c: past matches (agent_list_matches): ours, or everyone's,
 * of any kind or one; choosing one opens its replay. */
ghistory *ghistory_new(gview *v);
void ghistory_show(ghistory *h);          /* refresh the list and present it */
void ghistory_free(ghistory *h);
/* For the script hook, as the user would. 0 or -1 (ghistory_error says). */
int ghistory_refresh(ghistory *h);
void ghistory_set_everyone(ghistory *h, bool everyone);
int ghistory_set_kind(ghistory *h, const char *kind);   /* NULL: any kind */
int ghistory_replay(ghistory *h, const char *match_id);
int ghistory_count(const ghistory *h);
const char *ghistory_row(const ghistory *h, int i);     /* the row's text */
/* Our tournaments under our matches, a line each ("" when none). */
const char *ghistory_tournaments(const ghistory *h);
const char *ghistory_error(const ghistory *h);
GtkWidget *ghistory_window(const ghistory *h);

/* gtk_replay.c: one recorded match, stepped through in a window of its own
 * with the board drawn as in the main window. greplay_open fetches it
 * (agent_get_match) and shows the start: the window or NULL with a sentence
 * in err. It sets v->replay, replacing any replay open before, and clears
 * it when the window closes. */
greplay *greplay_open(gview *v, const char *match_id, char *err, size_t errlen);
void greplay_free(greplay *r);
/* Go to the position after `step` moves (clamped to the match). */
void greplay_go(greplay *r, int step);
/* Start / Back / Forward / End by key: Home, Left, Right, End. */
bool greplay_key(greplay *r, guint keyval);
/* Its buttons by name, for the script hook: start, back, forward, end. */
GtkWidget *greplay_button(const greplay *r, const char *name);
/* The line under the board: "move 5 of 42: alice played cup 3". */
const char *greplay_line(const greplay *r);
/* The line under the value graph: the accuracies, or why there is no review. */
const char *greplay_review(const greplay *r);
GtkWidget *greplay_window(const greplay *r);

/* gtk_ratings.c: a player's rating graph (issue 33), a line per kind from
 * the service's RatingHistory. gratings_show opens it (made the first
 * time, into v->ratings) on name's ratings, fetched before it returns
 * (blocking with the call deadline); NULL when not connected. A refusal
 * (no such account) is shown in the window and by gratings_error. For the
 * script hook: the kinds drawn, each one's colour, and its values (the
 * rating before its first game, then after each; their number). */
gratings *gratings_show(gview *v, const char *name);
int gratings_load(gratings *r, const char *name);    /* 0, or -1 (gratings_error) */
void gratings_free(gratings *r);
int gratings_kind_count(const gratings *r);
const char *gratings_kind(const gratings *r, int k);
const char *gratings_colour(int k);                  /* "#1c71d8" */
int gratings_values(const gratings *r, int k, int *out, int max);
const char *gratings_error(const gratings *r);
GtkWidget *gratings_window(const gratings *r);

/* gtk_script.c: the test hook, linked only into the test program
 * sungka-player-gtk-test (tests/gtk), never into the sungka-player that is
 * installed. Weak: in sungka-player both are NULL, and the view has no hook.
 * gscript_start follows the file SUNGKA_GTK_SCRIPT names, NULL when the
 * variable is not set (or the file cannot be opened, said on stderr). */
gscript *gscript_start(gview *v) __attribute__((weak));
void gscript_free(gscript *s) __attribute__((weak));

#endif /* SUNGKA_GTK_VIEW_INTERNAL_H */
