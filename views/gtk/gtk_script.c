/*
 * gtk_script.c — the hook of the end-to-end tests, linked only into the
 * test program sungka-player-gtk-test (tests/gtk/CMakeLists.txt), never into
 * the installed sungka-player. With SUNGKA_GTK_SCRIPT=FILE the view follows
 * FILE (a test appends lines to it
 * as it goes) and does what each line says, as a user would, through the
 * same code paths as the pointer and keyboard (hit testing included). It
 * answers on standard output with lines starting "script: ".
 *
 *   click X Y            a click at (X, Y) on the board
 *   motion X Y           the pointer moves to (X, Y)
 *   click-move M         a click at the centre of the cup or cell of move M
 *   key NAME             a key press (a GDK key name: Right, Return, ...)
 *   shot PATH            the window rendered to a PNG file
 *   shot-of WINDOW PATH  the same for main | connect | lobby | history | replay |
 *                        ratings
 *   chat TEXT            type TEXT into the chat entry and press Enter
 *   recipient NAME       choose the chat recipient (Everyone, or a name)
 *   button NAME          press ready | sit | stand | leave | games | history |
 *                        rematch | no-rematch | pane (the header bar's button
 *                        for the folded side pane), or a
 *                        move that is no cell by its word (swap)
 *   movelist             print the move list, its lines joined by "|"
 *   moves-view N|live    show the position after move N on the board, as a
 *                        click on that line of the move list does (live: as
 *                        Back to the Game does)
 *   cells                the cells the board draws: "cells viewing N|live: C0
 *                        C1 ..."
 *   export FILE          write the game to FILE as Export... does
 *   tooltip NAME         print that button's tooltip ("tooltip TEXT")
 *   action NAME          activate an action as its accelerator would
 *                        (win.ready, app.quit, ...); an error when disabled
 *   accel NAME           print an action's accelerators ("accel <Control>h")
 *   focus                print where the keyboard focus is: board | chat |
 *                        another widget's type name
 *   activations          print "activations N windows W": how often the
 *                        application was activated (1 + later launches that
 *                        found it running), and its windows
 *   lobby-refresh | lobby-join ID | lobby-watch ID | lobby-new KIND [N=V...]
 *   lobby-tournaments    the tournaments' rows ("script: tournaments ROW|ROW")
 *   lobby-standings ID   tournament ID's standings dialog ("script: standings ...")
 *   lobby-tour-new FORMAT KIND PLAYERS LENGTH [N=V...]   press Create Tournament
 *                        (arena|roundrobin|swiss; minutes or rounds): "tournament-created ID"
 *   lobby-tour-join ID   choose tournament ID, press Play in Tournament
 *   lobby-tour-leave     press Leave Tournament
 *   wait-tour TEXT       wait until the line under the tournaments (and the
 *                        standings under it) contains TEXT: "tour LINE|LINE..."
 *   lobby-pools          the pools the dialog lists, as last refreshed: "lobby-pools
 *                        LINE|LINE..."
 *   lobby-clock SPEC     type SPEC into the games dialog's clock ("-": empty)
 *   lobby-quick KIND [N=V...] [rated]    press Quick Pairing for KIND
 *   lobby-quick-stop     press Stop Waiting
 *   wait-pool TEXT       wait until the dialog's pairing line contains TEXT
 *   wait-paired          wait for the quick pairing's end: "paired GAME", or
 *                        "quick-failed" and the dialog's sentence
 *   connect SERVER NAME  fill in the connect dialog (SERVER "-": leave it
 *                        empty, this computer) and press Connect
 *   wait-connect         wait for that attempt; print "connected NAME" or
 *                        "connect-failed" and the sentence the dialog shows
 *   connect-account SERVER NAME PASSWORD register|signin [REPEAT]
 *                        the same, signing in or registering (the password
 *                        typed twice: PASSWORD, then REPEAT if given)
 *   connect-fields       print the dialog's fields ("fields server=S name=N")
 *   connect-mode         print the way in chosen ("mode guest|signin|register")
 *   account              print who the window says we are ("account Signed in
 *                        as Alice")
 *   password OLD NEW [REPEAT]    change the password in its dialog, opened as
 *                        win.password would; print "password changed" or
 *                        "password-failed" and the dialog's sentence (which
 *                        stays open for a shot-of password)
 *   connect-close        close the connect dialog as its window button would
 *   confirm              answer yes to the question on screen (Leave? Resign?)
 *   report-send REASON   type REASON into the report dialog and press Report
 *   people               print the players pane
 *   wait-people TEXT     wait until TEXT is in the players pane
 *   wait-people-gone TEXT    wait until it is not
 *   history-everyone on|off, history-kind KIND|any   the history's filters
 *   history-list         print the matches listed ("match ..." lines, after
 *                        "history N"), then our tournaments ("tournaments
 *                        LINE/LINE", when any)
 *   history-replay ID    open the replay of match ID
 *   replay start|back|forward|end    press the replay window's button
 *   replay-key NAME      a key press in the replay window (Left, End, ...)
 *   replay-line          print the replay's line ("replay move 3 of 9: ...")
 *   replay-review        print the line under the value graph ("review Accuracy: ...")
 *   wait-replay TEXT     wait until the replay's line contains TEXT
 *   status               print the status line
 *   ratings NAME         open the rating graph on NAME's ratings, as the
 *                        history's Ratings… and the window's Show do; print
 *                        "ratings KINDS" then "ratings-kind KIND COLOUR
 *                        V0 V1 ..." per line drawn (the rating before the
 *                        first game, then after each), or "ratings-error TEXT"
 *   sounds               "sounds N last NAME wanted 0|1": the sounds played so
 *                        far, the last one's name (move, capture, low-time,
 *                        end, or none) and whether sounds play now
 *   wait-sounds N        wait until N sounds have been played; print "sounds ..."
 *   desktop-sounds on|off    the desktop's event sounds setting, as the
 *                        desktop would set it (GtkSettings)
 *   anims                print how many moves were animated, in how many frames
 *   clocks               the big clocks as shown: "clocks none" when hidden,
 *                        else "clocks NAME TIME STATE | ..." per seat, STATE
 *                        stopped | running | low (red)
 *   wait-clock SEAT STATE    wait until seat SEAT's big clock is in STATE
 *   clocks-box           where the big clocks are in the window (as a shot
 *                        draws it): "clocks-box X Y W H"
 *   wait-turn            wait until it is our turn (board at rest); print the
 *                        legal moves ("turn none" once the game is over)
 *   wait-over            wait for the end of the game; print the winners
 *   wait-log TEXT        wait until TEXT appears in the event and chat log
 *   fit                  how the main window holds its controls: "fit min W
 *                        window WxH outside N" (the content's minimum width,
 *                        the window's size, how many shown controls lie
 *                        outside the window or an ancestor's allocation),
 *                        then an
 *                        "outside TYPE NAME x y w h (WHY)" line for each
 *   a11y WINDOW          every control of that window (shown or not) and its
 *                        accessible name: "control TYPE NAME" lines, then
 *                        "a11y N bad M" — M without a name, with a mnemonic's
 *                        underscore in it, or with a word said twice
 *   windows              the windows open: "window NAME transient=PARENT
 *                        modal=0|1" lines (main, connect, lobby, history,
 *                        replay, password, about, shortcuts, prefs, over)
 *   style                "style dark|light palette dark|light": libadwaita's
 *                        style in force and the board's palette
 *   style-set system|light|dark    the colour scheme, as Preferences sets it
 *   flap                 the side pane: "flap folded=0|1 revealed=0|1
 *                        toggle=0|1 board=WxH" (toggle: the header bar's
 *                        button is shown)
 *   quit                 leave, as closing the window after confirming
 * Each line is acknowledged with "script: ok LINE" (or "script: error ...").
 * Nothing here runs unless the variable is set.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gtk_view_internal.h"

#define TICK_MS 50

struct gscript {
    gview *v;
    int fd;
    guint src;
    GString *pending;          /* bytes read, not yet a whole line */
    char *waiting;             /* a wait-* line not yet satisfied */
    GdkPaintable *shot_image;  /* the window being shot, as last drawn */
    int shot_tries;
    bool shot_armed;           /* a redraw was asked for; shoot on a later tick */
};

static void say(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("script: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    fflush(stdout);
    va_end(ap);
}

/* One of the view's windows by name, or NULL when it is not open. */
static GtkWidget *named_window(gview *v, const char *name)
{
    if (strcmp(name, "main") == 0) return v->window;
    if (strcmp(name, "connect") == 0) return v->connect ? gconnect_window(v->connect) : NULL;
    if (strcmp(name, "lobby") == 0) return v->lobby ? globby_window(v->lobby) : NULL;
    if (strcmp(name, "history") == 0) return v->history ? ghistory_window(v->history) : NULL;
    if (strcmp(name, "replay") == 0) return v->replay ? greplay_window(v->replay) : NULL;
    if (strcmp(name, "password") == 0) return v->password ? gpassword_window(v->password) : NULL;
    if (strcmp(name, "about") == 0) return v->about;
    if (strcmp(name, "shortcuts") == 0) return v->shortcuts;
    if (strcmp(name, "prefs") == 0) return v->prefs;
    if (strcmp(name, "ratings") == 0) return v->ratings ? gratings_window(v->ratings) : NULL;
    if (strcmp(name, "over") == 0) return v->over_dialog;
    return NULL;
}

/* The name a window has in these lines, or its type's. */
static const char *window_name(gview *v, GtkWidget *w)
{
    static const char *const names[] = {"main", "connect", "lobby", "history", "replay",
                                        "password", "about", "shortcuts", "prefs", "over",
                                        "ratings"};
    for (size_t i = 0; w && i < G_N_ELEMENTS(names); i++)
        if (named_window(v, names[i]) == w)
            return names[i];
    return w ? G_OBJECT_TYPE_NAME(w) : "none";
}

/* ------------------------------------------------- layout and names */

/* The controls a person uses (and a screen reader names). The insides of
 * GTK's composite widgets (a drop-down's button, an entry's text) are
 * theirs: the composite is checked instead. */
static bool is_control(GtkWidget *w)
{
    return GTK_IS_BUTTON(w) || GTK_IS_CHECK_BUTTON(w) || GTK_IS_MENU_BUTTON(w) ||
           GTK_IS_DROP_DOWN(w) || GTK_IS_ENTRY(w) || GTK_IS_PASSWORD_ENTRY(w) ||
           GTK_IS_SPIN_BUTTON(w) || GTK_IS_SWITCH(w) || GTK_IS_TEXT_VIEW(w) ||
           (GTK_IS_DRAWING_AREA(w) && gtk_widget_get_focusable(w));
}

static bool is_composite(GtkWidget *w)
{
    return GTK_IS_MENU_BUTTON(w) || GTK_IS_DROP_DOWN(w) || GTK_IS_ENTRY(w) ||
           GTK_IS_PASSWORD_ENTRY(w) || GTK_IS_SPIN_BUTTON(w) || GTK_IS_POPOVER(w) ||
           ADW_IS_COMBO_ROW(w);
}

/* Every control under w, depth first, into out. */
static void controls(GtkWidget *w, GPtrArray *out)
{
    for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
        if (GTK_IS_NATIVE(c))
            continue;                  /* a popover: a surface of its own */
        if (is_control(c))
            g_ptr_array_add(out, c);
        if (!is_composite(c))
            controls(c, out);
    }
}

/* The accessible name GTK gives a screen reader: the label property, or
 * "(labelled)" when another widget's text names it; "" when neither. Read
 * through GTK's accessibility test calls, which print the value they find
 * when it differs from the one asked about. Free with g_free. */
static char *accessible_name(GtkWidget *w)
{
    if (gtk_test_accessible_has_property(GTK_ACCESSIBLE(w), GTK_ACCESSIBLE_PROPERTY_LABEL)) {
        char *label = gtk_test_accessible_check_property(
            GTK_ACCESSIBLE(w), GTK_ACCESSIBLE_PROPERTY_LABEL, "\x01 no such name");
        return label ? label : g_strdup("");
    }
    if (gtk_test_accessible_has_relation(GTK_ACCESSIBLE(w), GTK_ACCESSIBLE_RELATION_LABELLED_BY))
        return g_strdup("(labelled)");
    return g_strdup("");
}

/* What is wrong with a name: NULL when nothing. */
static const char *name_trouble(const char *name)
{
    if (!*name)
        return "no name";
    for (const char *c = name; *c; c++)
        if (*c == '_' && g_ascii_isalpha(c[1]))
            return "a mnemonic's underscore";
    char **words = g_strsplit_set(name, " ", -1);
    const char *trouble = NULL;
    for (int i = 0; words[i] && words[i + 1]; i++) {
        char *a = g_utf8_casefold(words[i], -1), *b = g_utf8_casefold(words[i + 1], -1);
        if (*a && strcmp(a, b) == 0 && g_utf8_strlen(a, -1) > 1)
            trouble = "a word said twice";
        g_free(a);
        g_free(b);
    }
    g_strfreev(words);
    return trouble;
}

static void say_a11y(GtkWidget *window)
{
    GPtrArray *all = g_ptr_array_new();
    controls(window, all);
    int bad = 0;
    for (guint i = 0; i < all->len; i++) {
        GtkWidget *c = all->pdata[i];
        char *name = accessible_name(c);
        const char *trouble = name_trouble(name);
        say("control %s '%s'%s%s", G_OBJECT_TYPE_NAME(c), name, trouble ? " BAD: " : "",
            trouble ? trouble : "");
        bad += trouble != NULL;
        g_free(name);
    }
    say("a11y %u bad %d", all->len, bad);
    g_ptr_array_free(all, TRUE);
}

/* Is w (shown) wholly inside the window and every ancestor's allocation?
 * (A container given less than its minimum, as a GtkPaned's child may be,
 * shifts or spills its children out of its allocation.) When not, *why
 * says which ancestor cuts it. */
static bool fits(GtkWidget *w, GtkWidget *window, graphene_rect_t *r, const char **why)
{
    *why = "unplaced";
    if (!gtk_widget_compute_bounds(w, window, r))
        return false;
    const float slack = 0.5f;
    for (GtkWidget *a = gtk_widget_get_parent(w); a; a = gtk_widget_get_parent(a)) {
        graphene_rect_t ar;
        if (GTK_IS_SCROLLED_WINDOW(a) || GTK_IS_VIEWPORT(a))
            continue;                  /* scrolled into view on purpose */
        *why = G_OBJECT_TYPE_NAME(a);
        if (!gtk_widget_compute_bounds(a, window, &ar))
            return false;
        if (r->origin.x < ar.origin.x - slack || r->origin.y < ar.origin.y - slack ||
            r->origin.x + r->size.width > ar.origin.x + ar.size.width + slack ||
            r->origin.y + r->size.height > ar.origin.y + ar.size.height + slack)
            return false;
        if (a == window)
            break;
    }
    return true;
}

static void say_fit(gview *v)
{
    GtkWidget *content = adw_application_window_get_content(ADW_APPLICATION_WINDOW(v->window));
    int min;
    gtk_widget_measure(content, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
    GPtrArray *all = g_ptr_array_new();
    controls(v->window, all);
    GString *out = g_string_new(NULL);
    int outside = 0;
    for (guint i = 0; i < all->len; i++) {
        GtkWidget *c = all->pdata[i];
        graphene_rect_t r = GRAPHENE_RECT_INIT(0, 0, 0, 0);
        const char *why;
        if (!gtk_widget_get_mapped(c) || fits(c, v->window, &r, &why))
            continue;
        char *name = accessible_name(c);
        g_string_append_printf(out, "outside %s '%s' %.0f %.0f %.0f %.0f (%s)\n",
                               G_OBJECT_TYPE_NAME(c), name, r.origin.x, r.origin.y, r.size.width,
                               r.size.height, why);
        g_free(name);
        outside++;
    }
    say("fit min %d window %dx%d outside %d", min, gtk_widget_get_width(v->window),
        gtk_widget_get_height(v->window), outside);
    if (out->len) {
        g_string_truncate(out, out->len - 1);
        char **lines = g_strsplit(out->str, "\n", -1);
        for (int i = 0; lines[i]; i++)
            say("%s", lines[i]);
        g_strfreev(lines);
    }
    g_string_free(out, TRUE);
    g_ptr_array_free(all, TRUE);
}

static void shot_done(gscript *sc)
{
    g_clear_object(&sc->shot_image);
    sc->shot_tries = 0;
    sc->shot_armed = false;
}

/* Window w rendered by GTK to a PNG: 1 done, 0 failed (said why), -1
 * nothing drawn yet (try again on a later tick, after a frame). */
static int shot(gscript *sc, GtkWidget *w, const char *path)
{
    int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
    if (width <= 0 || height <= 0 || !gtk_widget_get_mapped(w)) {
        if (++sc->shot_tries < 40)
            return -1;             /* a window just opened: give it a moment */
        say("error the window has no size (%dx%d)", width, height);
        shot_done(sc);
        return 0;
    }
    if (!sc->shot_armed) {     /* let a frame show what came before this line */
        sc->shot_armed = true;
        sc->shot_image = gtk_widget_paintable_new(w);
        gtk_widget_queue_draw(w);
        return -1;
    }
    GtkSnapshot *s = gtk_snapshot_new();
    gdk_paintable_snapshot(sc->shot_image, s, width, height);
    GskRenderNode *node = gtk_snapshot_free_to_node(s);
    bool ok = false;
    if (!node) {
        gtk_widget_queue_draw(w);
        if (++sc->shot_tries < 40)
            return -1;
        say("error the window was not drawn");
    } else {
        GskRenderer *r = gtk_native_get_renderer(gtk_widget_get_native(w));
        graphene_rect_t bounds = GRAPHENE_RECT_INIT(0, 0, (float)width, (float)height);
        GdkTexture *t = r ? gsk_renderer_render_texture(r, node, &bounds) : NULL;
        if (!t)
            say("error the renderer made no texture");
        else if (!(ok = gdk_texture_save_to_png(t, path)))
            say("error could not write %s", path);
        if (t)
            g_object_unref(t);
        gsk_render_node_unref(node);
    }
    shot_done(sc);
    return ok;
}

static const char *const clock_states[] = {"stopped", "running", "low"};

static void say_clocks(gview *v)
{
    if (!gtk_widget_get_visible(v->clocks)) {
        say("clocks none");
        return;
    }
    GString *s = g_string_new("clocks");
    for (int seat = 0; seat < GAME_MAX_SEATS; seat++) {
        int state = gclock_state(v, seat);
        if (state < 0 || !gtk_widget_get_visible(gtk_widget_get_parent(v->clock_time[seat])))
            continue;
        g_string_append_printf(s, "%s %s %s %s", seat ? " |" : "",
                               gtk_label_get_text(GTK_LABEL(v->clock_name[seat])),
                               gtk_label_get_text(GTK_LABEL(v->clock_time[seat])),
                               clock_states[state]);
    }
    say("%s", s->str);
    g_string_free(s, TRUE);
}

static bool log_contains(gview *v, const char *text)
{
    GtkTextBuffer *buf = gtk_text_view_get_buffer(GTK_TEXT_VIEW(v->log));
    GtkTextIter a, b;
    gtk_text_buffer_get_bounds(buf, &a, &b);
    char *all = gtk_text_buffer_get_text(buf, &a, &b, FALSE);
    bool found = strstr(all, text) != NULL;
    g_free(all);
    return found;
}

/* A wait-* line: true (and the answer printed) once it is satisfied. */
static bool try_wait(gscript *sc, const char *line)
{
    gview *v = sc->v;
    const agent_model *m = gview_model(v);
    if (strcmp(line, "wait-turn") == 0) {
        int moves[GAME_MAX_MOVES];
        if (m->status == AGENT_GAME_FINISHED || m->status == AGENT_GAME_ABANDONED) {
            say("turn none: the game is over");
            return true;
        }
        if (!gview_my_turn(v) || gview_animating(v))
            return false;
        int n = gview_legal(v, moves, GAME_MAX_MOVES);
        if (n == 0)
            return false;          /* a move of ours is still on its way */
        GString *s = g_string_new("turn legal");
        for (int i = 0; i < n; i++)
            g_string_append_printf(s, " %d", moves[i]);
        say("%s", s->str);
        g_string_free(s, TRUE);
        return true;
    }
    if (strcmp(line, "wait-over") == 0) {
        if (gview_animating(v) ||
            (m->status != AGENT_GAME_FINISHED && m->status != AGENT_GAME_ABANDONED))
            return false;
        if (m->status == AGENT_GAME_ABANDONED) {
            say("over abandoned");
            return true;
        }
        GString *s = g_string_new(m->n_winners ? "over winners" : "over draw");
        char buf[64];
        for (int i = 0; i < m->n_winners; i++)
            g_string_append_printf(s, " %s", agent_seat_name(m, m->winners[i], buf, sizeof buf));
        say("%s", s->str);
        g_string_free(s, TRUE);
        return true;
    }
    if (g_str_has_prefix(line, "wait-log "))
        return log_contains(v, line + 9);
    if (g_str_has_prefix(line, "wait-people "))
        return strstr(gtk_label_get_text(GTK_LABEL(v->people)), line + 12) != NULL;
    if (g_str_has_prefix(line, "wait-people-gone "))
        return strstr(gtk_label_get_text(GTK_LABEL(v->people)), line + 17) == NULL;
    int seat;
    char state[16];
    if (sscanf(line, "wait-clock %d %15s", &seat, state) == 2) {
        int now = gclock_state(v, seat);
        if (now < 0 || strcmp(clock_states[now], state) != 0)
            return false;
        say_clocks(v);
        return true;
    }
    if (g_str_has_prefix(line, "wait-replay "))
        return v->replay && strstr(greplay_line(v->replay), line + 12) != NULL;
    int count;
    if (sscanf(line, "wait-sounds %d", &count) == 1) {
        if (v->sounds_played < count)
            return false;
        say("sounds %d last %s wanted %d", v->sounds_played,
            v->last_sound ? v->last_sound : "none", gview_sound_wanted(v));
        return true;
    }
    if (g_str_has_prefix(line, "wait-pool ")) {
        if (!v->lobby)
            return say("error not connected"), true;
        if (!strstr(globby_quick_status(v->lobby), line + 10))
            return false;
        say("pool %s", globby_quick_status(v->lobby));
        return true;
    }
    if (g_str_has_prefix(line, "wait-tour ")) {
        if (!v->lobby)
            return say("error not connected"), true;
        if (!strstr(globby_tour_status(v->lobby), line + 10))
            return false;
        char *text = g_strdup(globby_tour_status(v->lobby));
        g_strdelimit(text, "\n", '|');
        say("tour %s", text);
        g_free(text);
        return true;
    }
    if (strcmp(line, "wait-paired") == 0) {
        if (!v->lobby || globby_waiting(v->lobby))
            return !v->lobby ? (say("error not connected"), true) : false;
        if (globby_paired(v->lobby)[0])
            say("paired %s", globby_paired(v->lobby));
        else
            say("quick-failed %s", globby_error(v->lobby));
        return true;
    }
    if (strcmp(line, "wait-connect") == 0) {
        if (!v->connect) {
            say("error there is no connect dialog");
            return true;
        }
        if (gconnect_busy(v->connect))
            return false;
        if (gconnect_done(v->connect))   /* the account as registered, when signed in */
            say("connected %s", agent_account(v->ag) ? agent_account(v->ag) : agent_name(v->ag));
        else
            say("connect-failed %s", gconnect_error(v->connect));
        return true;
    }
    say("error unknown wait '%s'", line);
    return true;
}

static GtkWidget *named_button(gview *v, const char *name)
{
    if (strcmp(name, "ready") == 0) return v->btn_ready;
    if (strcmp(name, "sit") == 0) return v->btn_sit;
    if (strcmp(name, "stand") == 0) return v->btn_stand;
    if (strcmp(name, "leave") == 0) return v->btn_leave;
    if (strcmp(name, "games") == 0) return v->btn_games;
    if (strcmp(name, "history") == 0) return v->btn_history;
    if (strcmp(name, "sign-out") == 0) return v->btn_sign_out;
    if (strcmp(name, "password") == 0) return v->btn_password;
    if (strcmp(name, "rematch") == 0) return v->btn_rematch;
    if (strcmp(name, "no-rematch") == 0) return v->btn_no_rematch;
    if (strcmp(name, "pane") == 0) return v->pane_toggle;
    /* A named move's button (games.h), by its word: "button swap". */
    for (GtkWidget *b = gtk_widget_get_first_child(v->moves_box); b;
         b = gtk_widget_get_next_sibling(b))
        if (gtk_widget_get_visible(b) && strcmp(gtk_button_get_label(GTK_BUTTON(b)), name) == 0)
            return b;
    return NULL;
}

/* A multi-line text on one line, for the answers. */
static void say_flat(const char *what, const char *text)
{
    char *flat = g_strdup(text);
    g_strdelimit(flat, "\n", '/');
    say("%s %s", what, flat);
    g_free(flat);
}

/* Press a button as the user would: only when it is there and usable. */
static bool press(GtkWidget *btn, const char *name)
{
    if (!btn || !gtk_widget_is_sensitive(btn)) {
        say("error button %s is not there or not usable now", name);
        return false;
    }
    g_signal_emit_by_name(btn, "clicked");
    return true;
}

/* The connect dialog's lines; false when `line` is none of them. */
static bool act_connect(gscript *sc, const char *line)
{
    gview *v = sc->v;
    if (!g_str_has_prefix(line, "connect"))
        return false;
    if (!v->connect) {
        say("error there is no connect dialog");
        return true;
    }
    char server[256];
    int used = 0;
    char **w = NULL;
    if (g_str_has_prefix(line, "connect ") &&
        sscanf(line, "connect %255s %n", server, &used) == 1 && used > 0) {
        gconnect_submit(v->connect, strcmp(server, "-") == 0 ? "" : server, line + used);
    } else if (g_str_has_prefix(line, "connect-account ") &&
               (w = g_strsplit(line, " ", -1)) && g_strv_length(w) >= 5 &&
               g_strv_length(w) <= 6 &&
               (strcmp(w[4], "register") == 0 || strcmp(w[4], "signin") == 0)) {
        gconnect_submit_account(v->connect, strcmp(w[1], "-") == 0 ? "" : w[1], w[2], w[3],
                                w[5] ? w[5] : w[3], strcmp(w[4], "register") == 0);
    } else if (strcmp(line, "connect-mode") == 0) {
        static const char *const modes[] = {[GCONNECT_GUEST] = "guest",
                                            [GCONNECT_SIGN_IN] = "signin",
                                            [GCONNECT_REGISTER] = "register"};
        say("mode %s", modes[gconnect_get_mode(v->connect)]);
    } else if (strcmp(line, "connect-fields") == 0) {
        say("fields server=%s name=%s", gconnect_server(v->connect), gconnect_name(v->connect));
    } else if (strcmp(line, "connect-close") == 0) {
        say("ok %s", line);    /* said first: the view may be gone right after */
        gtk_window_close(GTK_WINDOW(gconnect_window(v->connect)));
        return true;
    } else {
        say("error unknown line '%s'", line);
        g_strfreev(w);
        return true;
    }
    g_strfreev(w);
    say("ok %s", line);
    return true;
}

/* The account's lines; false when `line` is none of them. */
static bool act_account(gscript *sc, const char *line)
{
    gview *v = sc->v;
    if (strcmp(line, "account") == 0) {
        say_flat("account", gtk_label_get_text(GTK_LABEL(v->account)));
    } else if (g_str_has_prefix(line, "password ")) {
        char **w = g_strsplit(line, " ", -1);
        GActionGroup *win = G_ACTION_GROUP(v->window);
        if (g_strv_length(w) < 3 || g_strv_length(w) > 4) {
            say("error password OLD NEW [REPEAT]");
        } else if (!g_action_group_get_action_enabled(win, "password")) {
            say("error action win.password is disabled now");
        } else {
            g_action_group_activate_action(win, "password", NULL);
            if (gpassword_submit(v->password, w[1], w[2], w[3] ? w[3] : w[2]) == 0)
                say("password changed");
            else
                say_flat("password-failed", gpassword_error(v->password));
        }
        g_strfreev(w);
    } else {
        return false;
    }
    say("ok %s", line);
    return true;
}

/* The history dialog's and the replay window's lines; false when `line`
 * is none of them. */
static bool act_history(gscript *sc, const char *line)
{
    gview *v = sc->v;
    char word[64];
    int rc = 0;
    if (g_str_has_prefix(line, "history-")) {
        if (!v->history) {
            say("error the history dialog has not been opened");
            return true;
        }
        if (sscanf(line, "history-everyone %63s", word) == 1) {
            ghistory_set_everyone(v->history, strcmp(word, "on") == 0);
        } else if (sscanf(line, "history-kind %63s", word) == 1) {
            rc = ghistory_set_kind(v->history, strcmp(word, "any") == 0 ? NULL : word);
        } else if (strcmp(line, "history-list") == 0) {
            say("history %d", ghistory_count(v->history));
            for (int i = 0; i < ghistory_count(v->history); i++)
                say_flat("match", ghistory_row(v->history, i));
            if (ghistory_tournaments(v->history)[0])
                say_flat("tournaments", ghistory_tournaments(v->history));
        } else if (sscanf(line, "history-replay %63s", word) == 1) {
            rc = ghistory_replay(v->history, word);
        } else {
            say("error unknown line '%s'", line);
            return true;
        }
        if (rc != 0) {
            say("error history: %s", ghistory_error(v->history));
            return true;
        }
    } else if (g_str_has_prefix(line, "replay")) {
        if (!v->replay) {
            say("error no replay is open");
            return true;
        }
        if (strcmp(line, "replay-line") == 0) {
            say_flat("replay", greplay_line(v->replay));
        } else if (strcmp(line, "replay-review") == 0) {
            say_flat("review", greplay_review(v->replay));
        } else if (sscanf(line, "replay-key %63s", word) == 1) {
            guint kv = gdk_keyval_from_name(word);
            if (kv == GDK_KEY_VoidSymbol || !greplay_key(v->replay, kv)) {
                say("error key %s not used", word);
                return true;
            }
            say_flat("replay", greplay_line(v->replay));
        } else if (sscanf(line, "replay %63s", word) == 1) {
            if (!press(greplay_button(v->replay, word), word))
                return true;
            say_flat("replay", greplay_line(v->replay));
        } else {
            say("error unknown line '%s'", line);
            return true;
        }
    } else {
        return false;
    }
    say("ok %s", line);
    return true;
}

/* Do one line; false when it is a wait that must be tried again later. */
static bool act(gscript *sc, char *line)
{
    gview *v = sc->v;
    const agent_model *m = gview_model(v);
    double x, y;
    int a;
    char word[64];
    if (g_str_has_prefix(line, "wait-"))
        return try_wait(sc, line) ? (say("ok %s", line), true) : false;
    if (act_connect(sc, line) || act_account(sc, line) || act_history(sc, line))
        return true;
    if (sscanf(line, "click %lf %lf", &x, &y) == 2) {
        gview_motion(v, x, y);
        gview_click(v, x, y);
    } else if (sscanf(line, "motion %lf %lf", &x, &y) == 2) {
        gview_motion(v, x, y);
    } else if (sscanf(line, "click-move %d", &a) == 1) {
        int seat = m->have_state ? game_to_move(&m->state) : -1;
        geo_layout L;
        geo_rect r;
        gview_layout(v, &L);
        int cell = m->have_state ? geo_move_cell(&m->state, seat, a) : -1;
        if (cell < 0 || geo_cell_rect(&L, cell, &r) != 0) {
            say("error no cell for move %d", a);
            return true;
        }
        x = r.x + r.w / 2;
        y = r.y + r.h / 2;
        gview_motion(v, x, y);
        say("hover %d", v->hover);
        gview_click(v, x, y);
        say("clicked %.1f %.1f", x, y);
    } else if (sscanf(line, "key %63s", word) == 1) {
        guint kv = gdk_keyval_from_name(word);
        if (kv == GDK_KEY_VoidSymbol || !gview_key(v, kv)) {
            say("error key %s not used", word);
            return true;
        }
        int move = m->have_state && v->cursor >= 0
                       ? geo_cell_move(&m->state, game_to_move(&m->state), v->cursor)
                       : -1;
        say("cursor %d move %d", v->cursor, move);
    } else if (g_str_has_prefix(line, "shot ") || g_str_has_prefix(line, "shot-of ")) {
        GtkWidget *w = v->window;
        const char *path = line + 5;
        if (sscanf(line, "shot-of %63s", word) == 1) {
            w = named_window(v, word);
            path = line + 8 + strlen(word) + 1;
        }
        if (!w) {
            say("error no window '%s' is open", word);
            return true;
        }
        int rc = shot(sc, w, path);
        if (rc < 0)
            return false;          /* again on the next tick */
        if (rc == 0)
            return true;           /* shot() said why */
    } else if (g_str_has_prefix(line, "chat ")) {
        gtk_editable_set_text(GTK_EDITABLE(v->entry), line + 5);
        g_signal_emit_by_name(v->entry, "activate");
    } else if (g_str_has_prefix(line, "recipient ")) {
        guint n = g_list_model_get_n_items(G_LIST_MODEL(v->recipients)), i;
        for (i = 0; i < n; i++)
            if (strcmp(gtk_string_list_get_string(v->recipients, i), line + 10) == 0)
                break;
        if (i == n) {
            say("error no recipient %s", line + 10);
            return true;
        }
        gtk_drop_down_set_selected(GTK_DROP_DOWN(v->recipient), i);
    } else if (sscanf(line, "button %63s", word) == 1) {
        if (!press(named_button(v, word), word))
            return true;
    } else if (g_str_has_prefix(line, "lobby-clock ") || g_str_has_prefix(line, "lobby-quick") ||
               strcmp(line, "lobby-pools") == 0) {
        if (!v->lobby) {
            say("error not connected: there is no games dialog yet");
            return true;
        }
        if (strcmp(line, "lobby-pools") == 0) {
            char *text = g_strdup(globby_pools(v->lobby));
            g_strdelimit(text, "\n", '|');
            say("lobby-pools %s", text);
            g_free(text);
        } else if (g_str_has_prefix(line, "lobby-clock ")) {
            globby_set_clock(v->lobby, strcmp(line + 12, "-") == 0 ? "" : line + 12);
        } else if (strcmp(line, "lobby-quick-stop") == 0) {
            globby_quick_stop(v->lobby);
        } else if (g_str_has_prefix(line, "lobby-quick ")) {
            char **w = g_strsplit(line + 12, " ", -1);
            int rc = globby_quick(v->lobby, w[0], w + 1, (int)g_strv_length(w) - 1);
            g_strfreev(w);
            if (rc != 0) {
                say("error lobby: %s", globby_error(v->lobby));
                return true;
            }
        } else {
            say("error unknown line '%s'", line);
            return true;
        }
    } else if (strcmp(line, "lobby-refresh") == 0 || g_str_has_prefix(line, "lobby-join ") ||
               g_str_has_prefix(line, "lobby-watch ") || g_str_has_prefix(line, "lobby-new ")) {
        int rc;
        if (!v->lobby) {
            say("error not connected: there is no games dialog yet");
            return true;
        }
        if (strcmp(line, "lobby-refresh") == 0)
            rc = globby_refresh(v->lobby);
        else if (g_str_has_prefix(line, "lobby-new ")) {
            char **w = g_strsplit(line + 10, " ", -1);
            rc = globby_create(v->lobby, w[0], w + 1, (int)g_strv_length(w) - 1);
            g_strfreev(w);
        } else
            rc = globby_join(v->lobby, strchr(line, ' ') + 1, line[6] == 'w');
        if (rc != 0) {
            say("error lobby: %s", globby_error(v->lobby));
            return true;
        }
        if (g_str_has_prefix(line, "lobby-new "))
            say("created %s", agent_game_id(v->ag));
    } else if (g_str_has_prefix(line, "lobby-tour-")) {
        int rc = -1;
        if (!v->lobby) {
            say("error not connected: there is no games dialog yet");
            return true;
        }
        if (g_str_has_prefix(line, "lobby-tour-join ")) {
            rc = globby_tour_join(v->lobby, line + 16);
        } else if (strcmp(line, "lobby-tour-leave") == 0) {
            rc = globby_tour_leave(v->lobby);
        } else if (g_str_has_prefix(line, "lobby-tour-new ")) {
            char **w = g_strsplit(line + 15, " ", -1);
            if (g_strv_length(w) >= 4) {
                rc = globby_tour_create(v->lobby, w[0], w[1], atoi(w[2]), atoi(w[3]), w + 4,
                                        (int)g_strv_length(w) - 4);
                if (rc == 0)
                    say("tournament-created %s", globby_tour_created(v->lobby));
            } else {
                say("error lobby-tour-new FORMAT KIND PLAYERS LENGTH [N=V...]");
                g_strfreev(w);
                return true;
            }
            g_strfreev(w);
        } else {
            say("error unknown line '%s'", line);
            return true;
        }
        if (rc != 0) {
            say("error lobby: %s", globby_error(v->lobby));
            return true;
        }
    } else if (strcmp(line, "lobby-tournaments") == 0 ||
               g_str_has_prefix(line, "lobby-standings ")) {
        if (!v->lobby) {
            say("error not connected: there is no games dialog yet");
            return true;
        }
        if (line[6] == 't') {
            globby_refresh(v->lobby);
            say("tournaments %s", globby_tournaments_text(v->lobby));
        } else if (globby_standings(v->lobby, line + 16) != 0) {
            say("error lobby: %s", globby_error(v->lobby));
            return true;
        } else {
            say("standings %s", globby_standings_text(v->lobby));
        }
    } else if (strcmp(line, "movelist") == 0) {
        char *text = gmoves_text(v);
        for (char *c = text; *c; c++)     /* one line of output */
            if (*c == '\n')
                *c = '|';
        say("movelist %s", text);
        g_free(text);
    } else if (g_str_has_prefix(line, "moves-view ")) {
        if (strcmp(line + 11, "live") == 0)
            press(v->btn_live, "live");
        else if (gmoves_view(v, atoi(line + 11)) != 0)
            say("error no position after move %s", line + 11);
    } else if (strcmp(line, "cells") == 0) {
        int16_t buf[GAME_MAX_CELLS];
        int n;
        const int16_t *cells = gview_drawn_cells(v, buf, &n);
        GString *s = g_string_new(NULL);
        if (v->viewing >= 0)
            g_string_append_printf(s, "cells viewing %d:", v->viewing);
        else
            g_string_append(s, "cells live:");
        for (int i = 0; cells && i < n; i++)
            g_string_append_printf(s, " %d", cells[i]);
        say("%s", s->str);
        g_string_free(s, TRUE);
    } else if (g_str_has_prefix(line, "export ")) {
        char err[512];
        if (gmoves_export(v, line + 7, err, sizeof err) != 0)
            say("error export: %s", err);
        else
            say("exported %s", line + 7);
    } else if (sscanf(line, "tooltip %63s", word) == 1) {
        GtkWidget *b = named_button(v, word);
        if (!b) {
            say("error no button %s", word);
            return true;
        }
        say("tooltip %s", gtk_widget_get_tooltip_text(b));
    } else if (sscanf(line, "action %63s", word) == 1) {
        GActionGroup *group = g_str_has_prefix(word, "app.") ? G_ACTION_GROUP(v->app)
                              : g_str_has_prefix(word, "win.") ? G_ACTION_GROUP(v->window)
                                                               : NULL;
        const char *name = word + 4;
        if (!group || !g_action_group_has_action(group, name)) {
            say("error no action %s", word);
            return true;
        }
        if (!g_action_group_get_action_enabled(group, name)) {
            say("error action %s is disabled now", word);
            return true;
        }
        if (strcmp(word, "app.quit") == 0)
            say("ok %s", line);   /* said first: the view may be gone right after */
        g_action_group_activate_action(group, name, NULL);
        if (strcmp(word, "app.quit") == 0)
            return true;
    } else if (sscanf(line, "accel %63s", word) == 1) {
        char **keys = gtk_application_get_accels_for_action(v->app, word);
        char *all = g_strjoinv(" ", keys);
        say("accel %s", all);
        g_free(all);
        g_strfreev(keys);
    } else if (strcmp(line, "focus") == 0) {
        GtkWidget *f = gtk_root_get_focus(GTK_ROOT(v->window));
        say("focus %s", !f ? "none"
                        : f == v->area ? "board"
                        : gtk_widget_is_ancestor(f, v->entry) || f == v->entry
                            ? "chat"
                            : G_OBJECT_TYPE_NAME(f));
    } else if (strcmp(line, "activations") == 0) {
        say("activations %d windows %u", v->activations,
            g_list_length(gtk_application_get_windows(v->app)));
    } else if (strcmp(line, "status") == 0) {
        say_flat("status", gtk_label_get_text(GTK_LABEL(v->status)));
    } else if (strcmp(line, "confirm") == 0) {
        /* The question on screen (gtk_window.c's ask), answered yes. */
        GListModel *tops = gtk_window_get_toplevels();
        void (*answer)(gview *) = NULL;
        for (guint i = 0; !answer && i < g_list_model_get_n_items(tops); i++) {
            GtkWindow *w = g_list_model_get_item(tops, i);
            answer = (void (*)(gview *))g_object_get_data(G_OBJECT(w), "answer");
            if (answer)
                gtk_window_destroy(w);
            g_object_unref(w);
        }
        if (!answer) {
            say("error no question on screen");
            return true;
        }
        answer(v);
    } else if (g_str_has_prefix(line, "report-send ")) {
        if (gsocial_report_answer(v, line + 12) != 0)
            say("error no report dialog on screen");
    } else if (strcmp(line, "fit") == 0) {
        say_fit(v);
    } else if (sscanf(line, "a11y %63s", word) == 1) {
        GtkWidget *w = named_window(v, word);
        if (!w) {
            say("error no window '%s' is open", word);
            return true;
        }
        say_a11y(w);
    } else if (strcmp(line, "windows") == 0) {
        GListModel *tops = gtk_window_get_toplevels();
        for (guint i = 0; i < g_list_model_get_n_items(tops); i++) {
            GtkWindow *w = g_list_model_get_item(tops, i);
            if (gtk_widget_get_visible(GTK_WIDGET(w)))
                say("window %s transient=%s modal=%d", window_name(v, GTK_WIDGET(w)),
                    window_name(v, (GtkWidget *)gtk_window_get_transient_for(w)),
                    gtk_window_get_modal(w));
            g_object_unref(w);
        }
    } else if (strcmp(line, "style") == 0) {
        bool dark = adw_style_manager_get_dark(adw_style_manager_get_default());
        say("style %s palette %s", dark ? "dark" : "light",
            gview_palette() == &board_palette_dark ? "dark" : "light");
    } else if (sscanf(line, "style-set %63s", word) == 1) {
        AdwColorScheme scheme = strcmp(word, "dark") == 0    ? ADW_COLOR_SCHEME_FORCE_DARK
                                : strcmp(word, "light") == 0 ? ADW_COLOR_SCHEME_FORCE_LIGHT
                                                             : ADW_COLOR_SCHEME_DEFAULT;
        adw_style_manager_set_color_scheme(adw_style_manager_get_default(), scheme);
    } else if (strcmp(line, "flap") == 0) {
        say("flap folded=%d revealed=%d toggle=%d board=%dx%d",
            adw_flap_get_folded(ADW_FLAP(v->flap)), adw_flap_get_reveal_flap(ADW_FLAP(v->flap)),
            gtk_widget_get_mapped(v->pane_toggle), gtk_widget_get_width(v->area),
            gtk_widget_get_height(v->area));
    } else if (strcmp(line, "people") == 0) {
        say_flat("people", gtk_label_get_text(GTK_LABEL(v->people)));
    } else if (strcmp(line, "clocks") == 0) {
        say_clocks(v);
    } else if (strcmp(line, "clocks-box") == 0) {
        graphene_rect_t r;
        if (!gtk_widget_compute_bounds(v->clocks, v->window, &r)) {
            say("error the clocks are not on screen");
            return true;
        }
        say("clocks-box %d %d %d %d", (int)r.origin.x, (int)r.origin.y, (int)r.size.width,
            (int)r.size.height);
    } else if (g_str_has_prefix(line, "ratings ")) {
        gratings *r = gratings_show(v, line + 8);
        if (!r) {
            say("error not connected");
            return true;
        }
        if (gratings_error(r)[0])
            say("ratings-error %s", gratings_error(r));
        say("ratings %d", gratings_kind_count(r));
        for (int k = 0; k < gratings_kind_count(r); k++) {
            int values[256];
            int n = gratings_values(r, k, values, 256);
            GString *s = g_string_new(NULL);
            g_string_append_printf(s, "ratings-kind %s %s", gratings_kind(r, k),
                                   gratings_colour(k));
            for (int i = 0; i < n; i++)
                g_string_append_printf(s, " %d", values[i]);
            say("%s", s->str);
            g_string_free(s, TRUE);
        }
    } else if (strcmp(line, "sounds") == 0) {
        say("sounds %d last %s wanted %d", v->sounds_played,
            v->last_sound ? v->last_sound : "none", gview_sound_wanted(v));
    } else if (sscanf(line, "desktop-sounds %63s", word) == 1) {
        g_object_set(gtk_settings_get_default(), "gtk-enable-event-sounds",
                     strcmp(word, "on") == 0, NULL);
    } else if (strcmp(line, "anims") == 0) {
        say("anims %d frames %d", v->anims_done, v->anim_frames);
    } else if (strcmp(line, "quit") == 0) {
        say("ok quit");
        v->quitting = true;
        gview_quit(v);
        return true;
    } else {
        say("error unknown line '%s'", line);
        return true;
    }
    say("ok %s", line);
    return true;
}

static gboolean tick(gpointer data)
{
    gscript *sc = data;
    gview *v = sc->v;
    if (!gtk_widget_get_mapped(v->window) || gtk_widget_get_width(v->area) <= 0)
        return G_SOURCE_CONTINUE;       /* not on screen yet */
    if (sc->waiting) {
        if (!act(sc, sc->waiting))
            return G_SOURCE_CONTINUE;
        g_free(sc->waiting);
        sc->waiting = NULL;
    }
    char chunk[4096];
    ssize_t n;
    while ((n = read(sc->fd, chunk, sizeof chunk)) > 0)
        g_string_append_len(sc->pending, chunk, n);
    char *nl;
    while (!v->quitting && (nl = memchr(sc->pending->str, '\n', sc->pending->len)) != NULL) {
        size_t len = (size_t)(nl - sc->pending->str);
        char *line = g_strndup(sc->pending->str, len);
        g_string_erase(sc->pending, 0, (gssize)len + 1);
        g_strstrip(line);
        if (!*line) {
            g_free(line);
            continue;
        }
        if (!act(sc, line)) {
            sc->waiting = line;          /* try again on the next tick */
            return G_SOURCE_CONTINUE;
        }
        g_free(line);
    }
    return G_SOURCE_CONTINUE;
}

gscript *gscript_start(gview *v)
{
    const char *path = getenv("SUNGKA_GTK_SCRIPT");
    if (!path || !*path)
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        fprintf(stderr, "sungka-player-gtk-test: SUNGKA_GTK_SCRIPT %s: %s\n", path, strerror(errno));
        return NULL;
    }
    gscript *sc = g_new0(gscript, 1);
    sc->v = v;
    sc->fd = fd;
    sc->pending = g_string_new(NULL);
    sc->src = g_timeout_add(TICK_MS, tick, sc);
    say("started");
    return sc;
}

void gscript_free(gscript *sc)
{
    if (!sc)
        return;
    g_source_remove(sc->src);
    close(sc->fd);
    g_string_free(sc->pending, TRUE);
    g_clear_object(&sc->shot_image);
    g_free(sc->waiting);
    g_free(sc);
}
