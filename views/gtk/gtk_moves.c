/*
 * gtk_moves.c — the move list beside the board (issue 16): one numbered line
 * per move, who played it and the move as players write it (the same words
 * as the text view's `moves`), following the game live and filled from the
 * service's record when we join or come back mid-game; and Export…, which
 * writes the game down as the text view's `export` does (agent_write_match).
 * GTK main thread only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtk_view_internal.h"

GtkWidget *gmoves_new(gview *v)
{
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
    v->n_listed_moves = 0;
    return box;
}

void gmoves_clear(gview *v)
{
    gtk_text_buffer_set_text(gtk_text_view_get_buffer(GTK_TEXT_VIEW(v->moves)), "", -1);
    v->n_listed_moves = 0;
}

/* "12. alice d3" at the end, kept in sight. */
static void add_line(gview *v, const char *name, const game_state *st, int move)
{
    char mv[32];
    game_format_move(st, move, mv, sizeof mv);
    int number = ++v->n_listed_moves;
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
        add_line(v, gview_seat_name(v, seat, buf, sizeof buf), &m->state, move);
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
        add_line(v, gview_seat_name(v, seats[i], buf, sizeof buf), &st, moves[i]);
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
