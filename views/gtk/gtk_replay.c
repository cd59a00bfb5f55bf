/*
 * gtk_replay.c — a recorded match replayed in a window of its own: the
 * board drawn by gtk_board.c (read-only: no hints, no cursor), Start / Back
 * / Forward / End buttons and the Home / Left / Right / End keys, and a line
 * saying where we are ("move 5 of 42: alice played cup 3"); under it, when
 * the service has reviewed the match (Register.GetAnalysis; docs/rules.md,
 * "Analysis"), a value graph — the first seat's winning chance after each
 * move, inaccuracies, mistakes and blunders marked, the step shown, a click
 * goes there — and each player's accuracy; else a line saying why not.
 *
 * As in the text view's replay, the position after k moves is rebuilt by
 * playing the first k recorded moves through the rules engine from the
 * start, so going back is as exact as going forward; matches are short
 * enough for that to be instant.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtk_board.h"
#include "gtk_view_internal.h"

struct greplay {
    gview *v;
    GtkWidget *window;
    GtkWidget *area;           /* the board */
    GtkWidget *line;           /* where we are, and the result at the end */
    GtkWidget *btn_start, *btn_back, *btn_forward, *btn_end;
    agent_match match;
    int *seats, *moves;        /* seats[i] played moves[i] */
    int step;                  /* moves applied so far */
    agent_model model;         /* what is drawn: the position after `step` moves */
    int16_t cells[GAME_MAX_CELLS];
    int last_cell;             /* the cell of the last move played, or -1 */
    char *text;                /* the line's text */
    game_analysis_move *review;        /* the service's review (match.n_moves), or NULL */
    int accuracy[GAME_MAX_SEATS];
    GtkWidget *graph;                  /* the value graph (NULL without a review) */
    char *review_text;                 /* the accuracies, or why there is no review */
};

/* The position after the first `step` moves into *out; 0, or -1 with a
 * sentence when a recorded move is refused (a match from a newer engine). */
static int position_at(const greplay *r, int step, game_state *out, char *err, size_t errlen)
{
    char why[AGENT_TEXT_BYTES];
    if (agent_match_position(&r->match, r->seats, r->moves, step, out, why, sizeof why) != 0) {
        snprintf(err, errlen, _("Cannot replay: %s"), why);
        return -1;
    }
    return 0;
}

static void describe(greplay *r)
{
    const agent_model *m = &r->model;
    GString *s = g_string_new(NULL);
    if (r->step == 0) {
        g_string_append_printf(s, _("move 0 of %d: the starting position"), r->match.n_moves);
    } else {
        char buf[64], move[16];
        const char *who = agent_seat_name(m, r->seats[r->step - 1], buf, sizeof buf);
        agent_format_move(m, r->moves[r->step - 1], move, sizeof move);
        if (r->moves[r->step - 1] < 0)   /* a move that is no cell ("swap") */
            g_string_append_printf(s, _("move %d of %d: %s played %s"), r->step,
                                   r->match.n_moves, who, move);
        else
            g_string_append_printf(s, _("move %d of %d: %s played %s %s"), r->step,
                                   r->match.n_moves, who,
                                   m->state.layout == GAME_LAYOUT_MANCALA ? _("cup") : _("cell"),
                                   move);
    }
    if (r->step == r->match.n_moves)
        g_string_append_printf(s, _("\nThe end: %s."), r->match.reason);
    g_free(r->text);
    r->text = g_string_free(s, FALSE);
    gtk_label_set_text(GTK_LABEL(r->line), r->text);
    gtk_accessible_update_property(GTK_ACCESSIBLE(r->area), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                   r->text, -1);
}

static void update_buttons(greplay *r)
{
    bool at_start = r->step == 0, at_end = r->step == r->match.n_moves;
    gtk_widget_set_sensitive(r->btn_start, !at_start);
    gtk_widget_set_sensitive(r->btn_back, !at_start);
    gtk_widget_set_sensitive(r->btn_forward, !at_end);
    gtk_widget_set_sensitive(r->btn_end, !at_end);
}

void greplay_go(greplay *r, int step)
{
    step = CLAMP(step, 0, r->match.n_moves);
    game_state st;
    char err[GAME_ERR_LEN + 64];
    if (position_at(r, step, &st, err, sizeof err) != 0) {
        gtk_label_set_text(GTK_LABEL(r->line), err);
        return;
    }
    agent_model *m = &r->model;
    m->state = st;
    r->step = step;
    /* at the end the winners are marked and nobody is to move */
    m->status = step == r->match.n_moves && r->match.status == AGENT_GAME_FINISHED
                    ? AGENT_GAME_FINISHED
                    : AGENT_GAME_RUNNING;
    for (int i = 0; i < game_cell_count(&st); i++)
        r->cells[i] = (int16_t)game_cell(&st, i);
    r->last_cell = step > 0 ? geo_move_cell(&st, r->seats[step - 1], r->moves[step - 1]) : -1;
    describe(r);
    update_buttons(r);
    gtk_widget_queue_draw(r->area);
    if (r->graph)
        gtk_widget_queue_draw(r->graph);
}

bool greplay_key(greplay *r, guint keyval)
{
    switch (keyval) {
    case GDK_KEY_Home: case GDK_KEY_KP_Home: greplay_go(r, 0); return true;
    case GDK_KEY_Left: case GDK_KEY_KP_Left: greplay_go(r, r->step - 1); return true;
    case GDK_KEY_Right: case GDK_KEY_KP_Right: greplay_go(r, r->step + 1); return true;
    case GDK_KEY_End: case GDK_KEY_KP_End: greplay_go(r, r->match.n_moves); return true;
    default: return false;
    }
}

static void draw(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
    (void)area;
    greplay *r = data;
    const agent_model *m = &r->model;
    geo_layout L;
    geo_layout_init(&L, &m->state, 0, width, height);
    board_look look = {
        .pal = gview_palette(),
        .m = m,
        .cells = r->cells,
        .hover = -1,
        .cursor = -1,
        .last = r->last_cell,
        .to_move = m->status == AGENT_GAME_RUNNING ? game_to_move(&m->state) : -1,
    };
    board_draw(cr, &L, &look, width, height);
}

static void on_start(GtkButton *b, gpointer data)
{
    (void)b;
    greplay_key(data, GDK_KEY_Home);
}

static void on_back(GtkButton *b, gpointer data)
{
    (void)b;
    greplay_key(data, GDK_KEY_Left);
}

static void on_forward(GtkButton *b, gpointer data)
{
    (void)b;
    greplay_key(data, GDK_KEY_Right);
}

static void on_end(GtkButton *b, gpointer data)
{
    (void)b;
    greplay_key(data, GDK_KEY_End);
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint keycode,
                       GdkModifierType state, gpointer data)
{
    (void)c;
    (void)keycode;
    (void)state;
    return greplay_key(data, keyval);
}

/* The match's data, not its window (which may be on its way out). */
/* The graph's point after move i (0..100): game_analysis_graph_chance. */
static double chance_after(const greplay *r, int i)
{
    return game_analysis_graph_chance(r->match.kind, r->match.n_seats, &r->review[i]);
}

/* The graph: x the moves, y the first seat's winning chance (100 at the
 * top) — with more than two seats a line for each seat through the points
 * after its own moves, fainter for each later seat —, a dot at each judged
 * move (bigger for worse), a bar at the step. */
static void draw_graph(GtkDrawingArea *area, cairo_t *cr, int width, int height,
                       gpointer data)
{
    (void)area;
    greplay *r = data;
    const int n = r->match.n_moves;
    const double pad = 6, w = width - 2 * pad, h = height - 2 * pad;
    GdkRGBA fg;
    gtk_style_context_get_color(gtk_widget_get_style_context(r->graph), &fg);
    cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.35);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, pad, pad + h / 2);             /* even chances */
    cairo_line_to(cr, pad + w, pad + h / 2);
    cairo_stroke(cr);
    if (n <= 0)
        return;
    double x0 = pad, dx = w / n;
    const int lines = r->match.n_seats > 2 ? r->match.n_seats : 1;
    cairo_set_line_width(cr, 2);
    for (int seat = 0; seat < lines; seat++) {
        cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 1.0 - 0.6 * seat / lines);
        cairo_move_to(cr, x0, pad + h / 2);
        for (int i = 0; i < n; i++)
            if (lines == 1 || r->review[i].seat == seat)
                cairo_line_to(cr, x0 + dx * (i + 1), pad + h * (1 - chance_after(r, i) / 100));
        cairo_stroke(cr);
    }
    for (int i = 0; i < n; i++) {
        int j = r->review[i].judgement;
        if (!j)
            continue;
        static const double colour[4][3] = {{0, 0, 0}, {0.9, 0.75, 0.1}, {0.95, 0.5, 0.1},
                                            {0.85, 0.1, 0.1}};
        cairo_set_source_rgb(cr, colour[j][0], colour[j][1], colour[j][2]);
        cairo_arc(cr, x0 + dx * (i + 1), pad + h * (1 - chance_after(r, i) / 100), 2 + j,
                  0, 2 * G_PI);
        cairo_fill(cr);
    }
    cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.6);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, x0 + dx * r->step, pad);
    cairo_line_to(cr, x0 + dx * r->step, pad + h);
    cairo_stroke(cr);
}

static void on_graph_click(GtkGestureClick *g, int n_press, double x, double y, gpointer data)
{
    (void)g;
    (void)n_press;
    (void)y;
    greplay *r = data;
    int width = gtk_widget_get_width(r->graph);
    if (width > 12 && r->match.n_moves > 0)
        greplay_go(r, (int)((x - 6) / (width - 12) * r->match.n_moves + 0.5));
}

/* The service's review, when it has one; else why not, in review_text. */
static void fetch_review(greplay *r)
{
    char reason[AGENT_TEXT_BYTES], err[512];
    bool done = false;
    r->review = g_new0(game_analysis_move, r->match.n_moves ? r->match.n_moves : 1);
    if (agent_get_analysis(r->v->ag, r->match.id, r->match.n_moves, r->review, r->accuracy,
                           &done, reason, sizeof reason, err, sizeof err) != 0 || !done) {
        g_free(r->review);
        r->review = NULL;
        r->review_text = g_strdup_printf(_("No review of this match: %s"),
                                         done || !reason[0] ? err : reason);
        return;
    }
    GString *s = g_string_new(_("Accuracy:"));
    for (int i = 0; i < r->match.n_seats; i++)
        if (r->accuracy[i] >= 0)
            g_string_append_printf(s, " %s %.1f %%%s", r->match.seat_name[i],
                                   r->accuracy[i] / 10.0, i + 1 < r->match.n_seats ? "," : "");
    r->review_text = g_string_free(s, FALSE);
}

static void release(greplay *r)
{
    g_free(r->review);
    g_free(r->review_text);
    free(r->seats);
    free(r->moves);
    g_free(r->text);
    g_free(r);
}

static gboolean on_close_request(GtkWindow *w, gpointer data)
{
    (void)w;
    greplay *r = data;
    if (r->v->replay == r)
        r->v->replay = NULL;
    release(r);
    return FALSE;              /* GTK destroys the window */
}

static GtkWidget *step_button(greplay *r, const char *label, const char *accessible,
                              GCallback fn)
{
    GtkWidget *b = gview_mnemonic_button(label);
    gtk_widget_set_tooltip_text(b, accessible);
    gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible,
                                   -1);
    g_signal_connect(b, "clicked", fn, r);
    return b;
}

/* The heading: the match, its players and when it was played. */
static GtkWidget *heading(const greplay *r)
{
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, _("Match %s: %s (%s)"), r->match.id, r->match.title,
                           r->match.kind_name);
    for (int i = 0; i < r->match.n_seats; i++)
        g_string_append_printf(s, "%s %s", i ? "," : " \u2014", r->match.seat_name[i]);
    GDateTime *t = g_date_time_new_from_unix_local(r->match.started_ms / 1000);
    if (t) {
        char *when = g_date_time_format(t, "%Y-%m-%d %H:%M");
        g_string_append_printf(s, " \u00B7 %s", when);
        g_free(when);
        g_date_time_unref(t);
    }
    GtkWidget *l = gtk_label_new(s->str);
    gtk_label_set_xalign(GTK_LABEL(l), 0);
    gtk_label_set_wrap(GTK_LABEL(l), TRUE);
    g_string_free(s, TRUE);
    return l;
}

static void build(greplay *r)
{
    r->window = gtk_window_new();
    char *title = g_strdup_printf(_("Sungka \u2014 replay of match %s"), r->match.id);
    gtk_window_set_title(GTK_WINDOW(r->window), title);
    g_free(title);
    gtk_window_set_default_size(GTK_WINDOW(r->window), 720, 520);
    /* a window of its own beside the main one (not modal: both stay usable),
     * above it, and closed by Escape as the dialogs are */
    gtk_window_set_transient_for(GTK_WINDOW(r->window), GTK_WINDOW(r->v->window));
    gview_close_on_escape(r->window);
    g_signal_connect(r->window, "close-request", G_CALLBACK(on_close_request), r);

    GtkWidget *box = gview_padded_column(6, 8);
    gtk_box_append(GTK_BOX(box), heading(r));

    r->area = gtk_drawing_area_new();
    gtk_widget_set_hexpand(r->area, TRUE);
    gtk_widget_set_vexpand(r->area, TRUE);
    gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(r->area), 240);
    gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(r->area), 160);
    gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(r->area), draw, r, NULL);
    /* drawn again in the other palette when the style turns dark or light */
    g_signal_connect_object(adw_style_manager_get_default(), "notify::dark",
                            G_CALLBACK(gtk_widget_queue_draw), r->area, G_CONNECT_SWAPPED);
    gtk_accessible_update_property(GTK_ACCESSIBLE(r->area), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Replayed board: Left and Right step through the moves, "
                                     "Home and End go to the start and the end"),
                                   -1);
    gtk_box_append(GTK_BOX(box), r->area);

    if (r->review) {
        r->graph = gtk_drawing_area_new();
        gtk_widget_set_hexpand(r->graph, TRUE);
        gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(r->graph), 80);
        gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(r->graph), draw_graph, r, NULL);
        GtkGesture *click = gtk_gesture_click_new();
        g_signal_connect(click, "pressed", G_CALLBACK(on_graph_click), r);
        gtk_widget_add_controller(r->graph, GTK_EVENT_CONTROLLER(click));
        gtk_accessible_update_property(GTK_ACCESSIBLE(r->graph), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       r->match.n_seats > 2
                                           ? _("Value graph: each player's winning chance after "
                                               "their own moves; a click goes to that move")
                                           : _("Value graph: the first player's winning chance "
                                               "after each move; a click goes to that move"),
                                       -1);
        gtk_box_append(GTK_BOX(box), r->graph);
    }
    GtkWidget *review = gtk_label_new(r->review_text);
    gtk_label_set_xalign(GTK_LABEL(review), 0);
    gtk_label_set_wrap(GTK_LABEL(review), TRUE);
    gtk_box_append(GTK_BOX(box), review);

    r->line = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(r->line), 0);
    gtk_label_set_wrap(GTK_LABEL(r->line), TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(r->line), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Replay position"), -1);
    gtk_box_append(GTK_BOX(box), r->line);

    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    r->btn_start = step_button(r, _("_Start"), _("Go to the start of the match"),
                               G_CALLBACK(on_start));
    r->btn_back = step_button(r, _("\u25C0 _Back"), _("One move back"), G_CALLBACK(on_back));
    r->btn_forward = step_button(r, _("_Forward \u25B6"), _("One move forward"),
                                 G_CALLBACK(on_forward));
    r->btn_end = step_button(r, _("_End"), _("Go to the end of the match"),
                             G_CALLBACK(on_end));
    gtk_box_append(GTK_BOX(row), r->btn_start);
    gtk_box_append(GTK_BOX(row), r->btn_back);
    gtk_box_append(GTK_BOX(row), r->btn_forward);
    gtk_box_append(GTK_BOX(row), r->btn_end);
    gtk_box_append(GTK_BOX(box), row);

    /* the keys work wherever the focus is in the window, buttons included */
    GtkEventController *keys = gtk_event_controller_key_new();
    gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE);
    g_signal_connect(keys, "key-pressed", G_CALLBACK(on_key), r);
    gtk_widget_add_controller(r->window, keys);

    gtk_window_set_child(GTK_WINDOW(r->window), box);
}

/* The model the board is drawn from: names from the match, nobody "you". */
static void init_model(greplay *r)
{
    agent_model *m = &r->model;
    m->kind = r->match.kind;
    m->opts = r->match.opts;
    m->have_state = true;
    m->my_seat = -1;
    m->hot_seat = -1;
    for (int i = 0; i < r->match.n_seats && i < GAME_MAX_SEATS; i++)
        snprintf(m->seat_name[i], sizeof m->seat_name[i], "%s", r->match.seat_name[i]);
    m->n_winners = r->match.n_winners;
    memcpy(m->winners, r->match.winners, sizeof m->winners);
    memcpy(m->scores, r->match.scores, sizeof m->scores);
}

greplay *greplay_open(gview *v, const char *match_id, char *err, size_t errlen)
{
    greplay *r = g_new0(greplay, 1);
    r->v = v;
    r->last_cell = -1;
    if (agent_get_match(v->ag, match_id, &r->match, &r->seats, &r->moves, err, errlen) != 0) {
        g_free(r);
        return NULL;
    }
    game_state probe;
    if (!r->match.kind) {
        snprintf(err, errlen, _("Cannot replay a game of kind '%s'."), r->match.kind_name);
    } else if (position_at(r, 0, &probe, err, errlen) == 0) {
        init_model(r);
        fetch_review(r);
        build(r);
        greplay_go(r, 0);
        greplay_free(v->replay);
        v->replay = r;
        gtk_window_present(GTK_WINDOW(r->window));
        return r;
    }
    release(r);
    return NULL;
}

void greplay_free(greplay *r)
{
    if (!r)
        return;
    if (r->v->replay == r)
        r->v->replay = NULL;
    gtk_window_destroy(GTK_WINDOW(r->window));
    release(r);
}

const char *greplay_line(const greplay *r)
{
    return r->text ? r->text : "";
}

const char *greplay_review(const greplay *r)
{
    return r->review_text ? r->review_text : "";
}

GtkWidget *greplay_window(const greplay *r)
{
    return r->window;
}

GtkWidget *greplay_button(const greplay *r, const char *name)
{
    if (strcmp(name, "start") == 0) return r->btn_start;
    if (strcmp(name, "back") == 0) return r->btn_back;
    if (strcmp(name, "forward") == 0) return r->btn_forward;
    if (strcmp(name, "end") == 0) return r->btn_end;
    return NULL;
}
