/*
 * gtk_moves.c — the move list beside the board (issue 16): one numbered line
 * per move, who played it and the move as players write it (the same words
 * as the text view's `moves`), following the game live and filled from the
 * service's record when we join or come back mid-game; and Export…, which
 * writes the game down as the text view's `export` does (agent_write_match).
 * A click on a move shows the position after it on the board while the game
 * goes on (issue 33): the view keeps each listed move's seat and number and
 * has the rules engine replay them from the start (agent_match_position, as
 * the replay window does), so the view itself knows no rules; the board
 * goes back to the game with the last move, Back to the Game, Escape or a
 * click on it. GTK main thread only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtk_view_internal.h"

/* The line under the pointer, as a step: the position after that move. */
static void on_list_click(GtkGestureClick *gesture, int n_press, double x, double y,
                          gpointer data)
{
    (void)gesture;
    (void)n_press;
    gview *v = data;
    int bx, by;
    GtkTextIter at;
    gtk_text_view_window_to_buffer_coords(GTK_TEXT_VIEW(v->moves), GTK_TEXT_WINDOW_WIDGET,
                                          (int)x, (int)y, &bx, &by);
    if (!gtk_text_view_get_iter_at_location(GTK_TEXT_VIEW(v->moves), &at, bx, by) ||
        v->n_listed_moves == 0)
        return;
    int step = gtk_text_iter_get_line(&at) + 1;
    gmoves_view(v, step >= v->n_listed_moves ? -1 : step);
}

static void on_live(GtkButton *button, gpointer data)
{
    (void)button;
    gmoves_view(data, -1);
}

GtkWidget *gmoves_new(gview *v)
{
    v->listed = g_array_new(FALSE, FALSE, sizeof(gmoves_played));
    v->viewing = -1;
    v->moves = gtk_text_view_new();
    gtk_text_view_set_editable(GTK_TEXT_VIEW(v->moves), FALSE);
    gtk_text_view_set_cursor_visible(GTK_TEXT_VIEW(v->moves), FALSE);
    gtk_text_view_set_monospace(GTK_TEXT_VIEW(v->moves), TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->moves), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Moves"), -1);
    GtkTextBuffer *tb = gtk_text_view_get_buffer(GTK_TEXT_VIEW(v->moves));
    GtkTextIter end;
    gtk_text_buffer_get_end_iter(tb, &end);
    gtk_text_buffer_create_mark(tb, "end", &end, FALSE);
    gtk_text_buffer_create_tag(tb, "viewed", "weight", PANGO_WEIGHT_BOLD, "underline",
                               PANGO_UNDERLINE_SINGLE, NULL);
    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "released", G_CALLBACK(on_list_click), v);
    gtk_widget_add_controller(v->moves, GTK_EVENT_CONTROLLER(click));
    gtk_widget_set_tooltip_text(v->moves, _("Click a move to see the board after it"));
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), v->moves);
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroll), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_widget_set_size_request(scroll, -1, 110);   /* a few lines; the log keeps the rest */
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    GtkWidget *title = gtk_label_new(NULL);
    gtk_label_set_markup(GTK_LABEL(title), _("<b>Moves</b>"));
    gtk_label_set_xalign(GTK_LABEL(title), 0);
    gtk_box_append(GTK_BOX(box), title);
    gtk_box_append(GTK_BOX(box), scroll);
    v->btn_live = gview_mnemonic_button(_("_Back to the Game"));
    gtk_widget_set_visible(v->btn_live, FALSE);
    g_signal_connect(v->btn_live, "clicked", G_CALLBACK(on_live), v);
    gtk_box_append(GTK_BOX(box), v->btn_live);
    v->n_listed_moves = 0;
    return box;
}

void gmoves_clear(gview *v)
{
    gtk_text_buffer_set_text(gtk_text_view_get_buffer(GTK_TEXT_VIEW(v->moves)), "", -1);
    v->n_listed_moves = 0;
    g_array_set_size(v->listed, 0);
    v->viewing = -1;
    gtk_widget_set_visible(v->btn_live, FALSE);
}

/* Mark line `step` (1-based; none when step <= 0) as the one shown. */
static void mark_viewed(gview *v, int step)
{
    GtkTextBuffer *tb = gtk_text_view_get_buffer(GTK_TEXT_VIEW(v->moves));
    GtkTextIter a, b;
    gtk_text_buffer_get_bounds(tb, &a, &b);
    gtk_text_buffer_remove_tag_by_name(tb, "viewed", &a, &b);
    if (step <= 0)
        return;
    gtk_text_buffer_get_iter_at_line(tb, &a, step - 1);
    b = a;
    gtk_text_iter_forward_to_line_end(&b);
    gtk_text_buffer_apply_tag_by_name(tb, "viewed", &a, &b);
}

int gmoves_view(gview *v, int step)
{
    const agent_model *m = gview_model(v);
    if (step < 0 || step > v->n_listed_moves || !m->kind) {
        v->viewing = -1;
    } else {
        agent_match match = {.kind = m->kind, .opts = m->opts};
        const gmoves_played *p = (const gmoves_played *)(void *)v->listed->data;
        int *seats = g_new(int, step + 1), *moves = g_new(int, step + 1);
        for (int i = 0; i < step; i++) {
            seats[i] = p[i].seat;
            moves[i] = p[i].move;
        }
        char err[512];
        int rc = agent_match_position(&match, seats, moves, step, &v->viewed, err, sizeof err);
        g_free(seats);
        g_free(moves);
        if (rc != 0) {
            gview_log(v, _("That position cannot be shown: %s"), err);
            v->viewing = -1;
            mark_viewed(v, 0);
            gtk_widget_set_visible(v->btn_live, FALSE);
            gview_refresh(v);
            return -1;
        }
        v->viewing = step;
    }
    mark_viewed(v, v->viewing);
    gtk_widget_set_visible(v->btn_live, v->viewing >= 0);
    gview_refresh(v);
    return 0;
}

const int16_t *gview_drawn_cells(const gview *v, int16_t *buf, int *n)
{
    const agent_model *m = gview_model(v);
    *n = 0;
    if (!m->have_state)
        return NULL;
    if (v->viewing >= 0 && game_cell_count(&v->viewed) == game_cell_count(&m->state)) {
        *n = game_cell_count(&v->viewed);
        for (int i = 0; i < *n; i++)
            buf[i] = (int16_t)game_cell(&v->viewed, i);
        return buf;
    }
    if (v->n_shown != game_cell_count(&m->state))
        return NULL;
    *n = v->n_shown;
    return v->shown;
}

/* "12. alice d3" at the end, kept in sight. */
static void add_line(gview *v, const char *name, const game_state *st, int seat, int move)
{
    char mv[32];
    game_format_move(st, move, mv, sizeof mv);
    int number = ++v->n_listed_moves;
    gmoves_played p = {seat, move};
    g_array_append_val(v->listed, p);
    char *line = g_strdup_printf("%s%3d. %s %s", number > 1 ? "\n" : "", number, name, mv);
    GtkTextBuffer *tb = gtk_text_view_get_buffer(GTK_TEXT_VIEW(v->moves));
    GtkTextIter end;
    gtk_text_buffer_get_end_iter(tb, &end);
    gtk_text_buffer_insert(tb, &end, line, -1);
    g_free(line);
    GtkTextMark *mark = gtk_text_buffer_get_mark(tb, "end");
    gtk_text_buffer_get_end_iter(tb, &end);
    gtk_text_buffer_move_mark(tb, mark, &end);
    gtk_text_view_scroll_mark_onscreen(GTK_TEXT_VIEW(v->moves), mark);
}

void gmoves_append(gview *v, int seat, int move)
{
    const agent_model *m = gview_model(v);
    char buf[64];
    if (m->have_state)
        add_line(v, gview_seat_name(v, seat, buf, sizeof buf), &m->state, seat, move);
}

void gmoves_reload(gview *v)
{
    gmoves_clear(v);
    const agent_model *m = gview_model(v);
    if (!m->game_id[0] || m->status == AGENT_GAME_WAITING)
        return;
    agent_match match;
    int *seats = NULL, *moves = NULL;
    char err[512], buf[64];
    if (agent_get_match(v->ag, m->game_id, &match, &seats, &moves, err, sizeof err) != 0) {
        gview_log(v, _("The moves so far are not known: %s"), err);
        return;
    }
    game_state st;
    for (int i = 0; i < match.n_moves; i++) {
        if (agent_match_position(&match, seats, moves, i, &st, err, sizeof err) != 0)
            break;
        add_line(v, gview_seat_name(v, seats[i], buf, sizeof buf), &st, seats[i], moves[i]);
    }
    free(seats);
    free(moves);
}

char *gmoves_text(const gview *v)
{
    GtkTextBuffer *tb = gtk_text_view_get_buffer(GTK_TEXT_VIEW(v->moves));
    GtkTextIter a, b;
    gtk_text_buffer_get_bounds(tb, &a, &b);
    return gtk_text_buffer_get_text(tb, &a, &b, FALSE);
}

int gmoves_export(gview *v, const char *path, char *err, size_t errlen)
{
    const agent_model *m = gview_model(v);
    agent_match match;
    int *seats = NULL, *moves = NULL, bad = 0;
    if (!m->game_id[0]) {
        snprintf(err, errlen, _("There is no game to export."));
        return -1;
    }
    if (agent_get_match(v->ag, m->game_id, &match, &seats, &moves, err, errlen) != 0)
        return -1;
    FILE *out = fopen(path, "w");
    int rc = -1;
    if (!out)
        snprintf(err, errlen, _("Cannot write %s: %s"), path, strerror(errno));
    else if (agent_write_match(&match, seats, moves, out, &bad) != 0 && bad)
        snprintf(err, errlen, _("Cannot write game %s down (move %d is not one this program "
                                "knows)."), match.id, bad);
    else if (ferror(out))
        snprintf(err, errlen, _("Cannot write %s: %s"), path, strerror(errno));
    else
        rc = 0;
    if (out && fclose(out) != 0 && rc == 0) {
        snprintf(err, errlen, _("Cannot write %s: %s"), path, strerror(errno));
        rc = -1;
    }
    free(seats);
    free(moves);
    return rc;
}

static void on_export_chosen(GtkNativeDialog *d, int response, gpointer data)
{
    gview *v = data;
    if (response == GTK_RESPONSE_ACCEPT) {
        GFile *file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
        char *path = file ? g_file_get_path(file) : NULL;
        char err[512];
        if (!path)
            gview_log(v, _("Export works with local files only."));
        else if (gmoves_export(v, path, err, sizeof err) != 0)
            gview_log(v, "%s", err);
        else
            gview_log(v, _("Game %s written to %s."), gview_model(v)->game_id, path);
        g_free(path);
        if (file)
            g_object_unref(file);
    }
    g_object_unref(d);
}

void gmoves_export_dialog(gview *v)
{
    GtkFileChooserNative *d = gtk_file_chooser_native_new(
        _("Export the game"), GTK_WINDOW(v->window), GTK_FILE_CHOOSER_ACTION_SAVE,
        _("_Export"), _("_Cancel"));
    char *name = g_strdup_printf("sungka-%s.txt", gview_model(v)->game_id);
    gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(d), name);
    g_free(name);
    g_signal_connect(d, "response", G_CALLBACK(on_export_chosen), v);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(d));
}
