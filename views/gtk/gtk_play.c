/*
 * gtk_play.c — the board and playing on it. The drawing area is drawn by
 * gtk_board.c from the cells the board shows now (v->shown, which lags the
 * model while a move is animated), with the legal cups or cells of our turn
 * highlighted under the pointer and the keyboard cursor. A click goes
 * through the same hit testing as the drawing (gtk_geometry.c); the arrows
 * move the cursor among the legal cells and Enter plays; a click or key
 * during an animation skips it. A move is checked by the rules engine here
 * before it is sent, as the text view does.
 */
#include <stdio.h>

#include "gtk_board.h"
#include "gtk_view_internal.h"
#include "narrate.h"

bool gview_my_turn(const gview *v)
{
    const agent_model *m = gview_model(v);
    if (!gview_in_game(v) || m->status != AGENT_GAME_RUNNING || !m->have_state)
        return false;
    int to_move = game_to_move(&m->state);
    return to_move >= 0 && agent_holds_seat(v->ag, to_move);
}

int gview_legal(const gview *v, int *moves, int max)
{
    if (!gview_my_turn(v) || v->move_pending)
        return 0;
    return agent_legal_moves(v->ag, moves, max);
}

int gview_legal_cells(const gview *v, int *cells, int max)
{
    const agent_model *m = gview_model(v);
    int moves[GAME_MAX_MOVES];
    int n = gview_legal(v, moves, GAME_MAX_MOVES), k = 0;
    int to_move = game_to_move(&m->state);
    for (int i = 0; i < n && k < max; i++) {
        int c = geo_move_cell(&m->state, to_move, moves[i]);
        if (c >= 0)
            cells[k++] = c;
    }
    return k;
}

bool gview_cell_is_legal(const gview *v, int cell)
{
    int cells[GAME_MAX_MOVES];
    int n = gview_legal_cells(v, cells, GAME_MAX_MOVES);
    for (int i = 0; i < n; i++)
        if (cells[i] == cell)
            return true;
    return false;
}

int gview_viewer_seat(const gview *v)
{
    const agent_model *m = gview_model(v);
    if (m->hot_seat >= 0 && m->have_state && game_to_move(&m->state) == m->hot_seat)
        return m->hot_seat;
    return m->my_seat >= 0 ? m->my_seat : 0;
}

void gview_layout(const gview *v, geo_layout *L)
{
    const agent_model *m = gview_model(v);
    geo_layout_init(L, m->have_state ? &m->state : NULL, gview_viewer_seat(v),
                    gtk_widget_get_width(v->area), gtk_widget_get_height(v->area));
}

/* ------------------------------------------------------------ drawing */

const board_palette *gview_palette(void)
{
    return adw_style_manager_get_dark(adw_style_manager_get_default()) ? &board_palette_dark
                                                                         : &board_palette_light;
}

static void draw_board(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
    (void)area;
    gview *v = data;
    const agent_model *m = gview_model(v);
    geo_layout L;
    geo_layout_init(&L, m->have_state ? &m->state : NULL, gview_viewer_seat(v), width, height);
    int hints[GAME_MAX_MOVES];
    bool viewing = v->viewing >= 0;     /* a past position: nothing to play on it */
    bool still = gview_animating(v) || viewing;
    int n_hints = still ? 0 : gview_legal_cells(v, hints, GAME_MAX_MOVES);
    int16_t past[GAME_MAX_CELLS];
    int n_cells;
    const int16_t *cells = gview_drawn_cells(v, past, &n_cells);
    int to_move = -1;
    if (viewing && !game_is_over(&v->viewed))
        to_move = game_to_move(&v->viewed);
    else if (!viewing && m->have_state && m->status == AGENT_GAME_RUNNING)
        to_move = game_to_move(&m->state);
    board_look look = {
        .pal = gview_palette(),
        .m = m,
        .cells = cells,
        .hover = still ? -1 : v->hover,
        .cursor = still || !gview_my_turn(v) ? -1 : v->cursor,
        .last = viewing ? -1 : v->last_cell,
        .hints = hints,
        .n_hints = n_hints,
        .to_move = to_move,
    };
    if (!cells)
        L.kind = GEO_NONE;
    board_draw(cr, &L, &look, width, height);
}

/* ------------------------------------------------------------ input */

static void play(gview *v, int move)
{
    char why[GAME_ERR_LEN], said[GAME_ERR_LEN];
    int code = agent_check_move(v->ag, move, why, sizeof why);
    if (code != 0) {
        snprintf(v->flash, sizeof v->flash, _("Not allowed: %s"),
                 view_move_refusal(gview_model(v), code, move, why, said, sizeof said));
    } else if (agent_move(v->ag, move) != 0) {
        snprintf(v->flash, sizeof v->flash, _("Could not send the move."));
    } else {
        v->flash[0] = '\0';
        v->move_pending = true;
        v->hover = -1;
    }
    gview_refresh(v);
}

static void on_named_move(GtkButton *button, gpointer data)
{
    gview *v = data;
    int move = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(button), "sungka-move"));
    if (gview_my_turn(v) && !v->move_pending && !gview_animating(v))
        play(v, move);
}

void gview_update_named_moves(gview *v)
{
    const agent_model *m = gview_model(v);
    const game_state *st = m->have_state ? &m->state : NULL;
    const game_kind *kind = st ? st->kind : NULL;
    if (kind != v->moves_kind) {
        GtkWidget *c;
        while ((c = gtk_widget_get_first_child(v->moves_box)) != NULL)
            gtk_box_remove(GTK_BOX(v->moves_box), c);
        for (int i = 0; st && i < game_named_move_count(st); i++) {
            const game_named_move *nm = game_named_move_at(st, i);
            GtkWidget *b = gtk_button_new_with_label(nm->name);
            gtk_widget_set_tooltip_text(b, nm->help);
            g_object_set_data(G_OBJECT(b), "sungka-move", GINT_TO_POINTER(nm->move));
            g_signal_connect(b, "clicked", G_CALLBACK(on_named_move), v);
            gtk_box_append(GTK_BOX(v->moves_box), b);
        }
        v->moves_kind = kind;
    }
    bool ours = st && gview_my_turn(v) && !v->move_pending && !gview_animating(v);
    for (GtkWidget *b = gtk_widget_get_first_child(v->moves_box); b;
         b = gtk_widget_get_next_sibling(b)) {
        int move = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(b), "sungka-move"));
        gtk_widget_set_visible(b, ours && game_check(st, game_to_move(st), move, NULL, 0) ==
                                              GAME_OK);
    }
}

void gview_motion(gview *v, double x, double y)
{
    geo_layout L;
    gview_layout(v, &L);
    int cell = geo_hit(&L, x, y);
    int hover = !gview_animating(v) && gview_cell_is_legal(v, cell) ? cell : -1;
    if (hover != v->hover) {
        v->hover = hover;
        gtk_widget_set_cursor_from_name(v->area, hover >= 0 ? "pointer" : NULL);
        gtk_widget_queue_draw(v->area);
    }
}

void gview_click(gview *v, double x, double y)
{
    if (v->viewing >= 0) {      /* back from a past position to the game */
        gmoves_view(v, -1);
        return;
    }
    if (gview_animating(v)) {   /* a click skips the animation */
        gview_anim_skip(v);
        gview_refresh(v);
        return;
    }
    const agent_model *m = gview_model(v);
    geo_layout L;
    gview_layout(v, &L);
    int cell = geo_hit(&L, x, y);
    if (cell < 0 || !gview_my_turn(v) || v->move_pending)
        return;
    int move = geo_cell_move(&m->state, game_to_move(&m->state), cell);
    if (move < 0) {
        snprintf(v->flash, sizeof v->flash, "%s",
                 m->state.layout == GAME_LAYOUT_MANCALA ? _("Choose one of your own cups.")
                                                        : _("That cell cannot be played."));
        gview_refresh(v);
        return;
    }
    v->cursor = cell;
    play(v, move);
}

bool gview_key(gview *v, guint keyval)
{
    int dx = 0, dy = 0;
    switch (keyval) {
    case GDK_KEY_Left: case GDK_KEY_KP_Left: dx = -1; break;
    case GDK_KEY_Right: case GDK_KEY_KP_Right: dx = 1; break;
    case GDK_KEY_Up: case GDK_KEY_KP_Up: dy = -1; break;
    case GDK_KEY_Down: case GDK_KEY_KP_Down: dy = 1; break;
    case GDK_KEY_Return: case GDK_KEY_KP_Enter: case GDK_KEY_space: case GDK_KEY_KP_Space:
        break;
    case GDK_KEY_Escape:
        if (v->viewing >= 0)
            gmoves_view(v, -1);
        if (gview_animating(v))
            gview_anim_skip(v);
        v->cursor = -1;
        gview_refresh(v);
        return true;
    default:
        return false;
    }
    if (gview_animating(v)) {   /* a key skips the animation */
        gview_anim_skip(v);
        gview_refresh(v);
        return true;
    }
    int cells[GAME_MAX_MOVES];
    int n = gview_legal_cells(v, cells, GAME_MAX_MOVES);
    if (n == 0)
        return true;
    bool on_legal = false;
    for (int i = 0; i < n; i++)
        on_legal |= cells[i] == v->cursor;
    geo_layout L;
    gview_layout(v, &L);
    if (dx || dy) {
        if (!on_legal)
            v->cursor = v->hover >= 0 ? v->hover : cells[0];
        else {
            int next = geo_step(&L, v->cursor, dx, dy, cells, n);
            if (next >= 0)
                v->cursor = next;
        }
        gtk_widget_queue_draw(v->area);
        return true;
    }
    if (!on_legal) {            /* Enter with no cursor yet: show it first */
        v->cursor = cells[0];
        gtk_widget_queue_draw(v->area);
        return true;
    }
    const agent_model *m = gview_model(v);
    play(v, geo_cell_move(&m->state, game_to_move(&m->state), v->cursor));
    return true;
}

static void on_motion(GtkEventControllerMotion *c, double x, double y, gpointer data)
{
    (void)c;
    gview_motion(data, x, y);
}

static void on_leave(GtkEventControllerMotion *c, gpointer data)
{
    (void)c;
    gview *v = data;
    if (v->hover >= 0) {
        v->hover = -1;
        gtk_widget_set_cursor_from_name(v->area, NULL);
        gtk_widget_queue_draw(v->area);
    }
}

static void on_pressed(GtkGestureClick *g, int n_press, double x, double y, gpointer data)
{
    (void)g;
    (void)n_press;
    gview *v = data;
    gtk_widget_grab_focus(v->area);
    gview_click(v, x, y);
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint keycode,
                       GdkModifierType state, gpointer data)
{
    (void)c;
    (void)keycode;
    (void)state;
    return gview_key(data, keyval);
}

void gview_play_attach(gview *v)
{
    gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(v->area), draw_board, v, NULL);
    GtkEventController *motion = gtk_event_controller_motion_new();
    g_signal_connect(motion, "motion", G_CALLBACK(on_motion), v);
    g_signal_connect(motion, "leave", G_CALLBACK(on_leave), v);
    gtk_widget_add_controller(v->area, motion);
    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "pressed", G_CALLBACK(on_pressed), v);
    gtk_widget_add_controller(v->area, GTK_EVENT_CONTROLLER(click));
    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(on_key), v);
    gtk_widget_add_controller(v->area, keys);
}
