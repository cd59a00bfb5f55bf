/*
 * gtk_ratings.c — a player's rating graph (issue 33, "The board page"): the
 * rating after each of an account's rated games, from the service's
 * RatingHistory (agent_rating_history), drawn as one line per kind in a
 * window of its own; the first point of each line is the rating before
 * that kind's first game listed, so one game already draws a line. Any
 * registered player's graph can be asked for by name (the window opens on
 * ours). Opened from the history dialog's Ratings… button. GTK main thread
 * only; the call blocks with the agent's call deadline, as the history's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtk_view_internal.h"

#define MAX_LINES 8            /* kinds drawn; more are left out of the graph */
#define MAX_HISTORY 200        /* the newest rated games asked for */

struct gratings {
    gview *v;
    GtkWidget *window;
    GtkWidget *entry;          /* the player's name */
    GtkWidget *area;           /* the graph */
    GtkWidget *legend;         /* a line per kind, in its colour */
    GtkWidget *error;
    char name[AGENT_NAME_BYTES];    /* the account shown, as registered */
    agent_rating_point *pts;   /* oldest first */
    int n;
    char kinds[MAX_LINES][32]; /* in the order first met */
    int n_kinds;
};

/* One colour per line, readable on the light and the dark style alike. */
static const char *const line_colours[MAX_LINES] = {
    "#1c71d8", "#26a269", "#e66100", "#813d9c", "#865e3c", "#c01c28", "#0f7b80", "#9a9996",
};

int gratings_kind_count(const gratings *r)
{
    return r->n_kinds;
}

const char *gratings_kind(const gratings *r, int k)
{
    return r->kinds[k];
}

const char *gratings_colour(int k)
{
    return line_colours[k % MAX_LINES];
}

/* The ratings of kind k in order: its first game's rating before, then
 * after each game; into out (at most max), their number. */
int gratings_values(const gratings *r, int k, int *out, int max)
{
    int n = 0;
    for (int i = 0; i < r->n && n < max; i++) {
        if (strcmp(r->pts[i].kind, r->kinds[k]) != 0)
            continue;
        if (n == 0)
            out[n++] = r->pts[i].before;
        if (n < max)
            out[n++] = r->pts[i].after.value;
    }
    return n;
}

static void draw_graph(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
    (void)area;
    gratings *r = data;
    const board_palette *pal = gview_palette();
    if (r->n_kinds == 0)
        return;
    int lo = 1 << 30, hi = -(1 << 30);
    int values[MAX_HISTORY + 1];
    for (int k = 0; k < r->n_kinds; k++) {
        int n = gratings_values(r, k, values, MAX_HISTORY + 1);
        for (int i = 0; i < n; i++) {
            lo = values[i] < lo ? values[i] : lo;
            hi = values[i] > hi ? values[i] : hi;
        }
    }
    if (lo > hi)
        return;
    lo -= 20;                  /* room above and below the lines */
    hi += 20;
    const double left = 52, right = 12, top = 12, bottom = 12;
    double w = width - left - right, h = height - top - bottom;
    if (w <= 0 || h <= 0)
        return;
    /* three level lines, labelled */
    cairo_set_line_width(cr, 1);
    cairo_select_font_face(cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 11);
    for (int i = 0; i <= 2; i++) {
        int level = lo + (hi - lo) * i / 2;
        double y = top + h - h * (level - lo) / (double)(hi - lo);
        cairo_set_source_rgb(cr, pal->dim_ink.r, pal->dim_ink.g, pal->dim_ink.b);
        cairo_move_to(cr, left, y + 0.5);
        cairo_line_to(cr, left + w, y + 0.5);
        cairo_stroke(cr);
        char label[16];
        snprintf(label, sizeof label, "%d", level);
        cairo_move_to(cr, 4, y + 4);
        cairo_show_text(cr, label);
    }
    /* a line per kind, a dot per game */
    for (int k = 0; k < r->n_kinds; k++) {
        int n = gratings_values(r, k, values, MAX_HISTORY + 1);
        GdkRGBA c;
        gdk_rgba_parse(&c, line_colours[k]);
        cairo_set_source_rgb(cr, c.red, c.green, c.blue);
        cairo_set_line_width(cr, 3);
        for (int i = 0; i < n; i++) {
            double x = left + (n > 1 ? w * i / (n - 1) : w / 2);
            double y = top + h - h * (values[i] - lo) / (double)(hi - lo);
            if (i == 0)
                cairo_move_to(cr, x, y);
            else
                cairo_line_to(cr, x, y);
        }
        cairo_stroke(cr);
        for (int i = 0; i < n; i++) {
            double x = left + (n > 1 ? w * i / (n - 1) : w / 2);
            double y = top + h - h * (values[i] - lo) / (double)(hi - lo);
            cairo_arc(cr, x, y, 4, 0, 2 * G_PI);
            cairo_fill(cr);
        }
    }
}

static void set_error(gratings *r, const char *text)
{
    gtk_label_set_text(GTK_LABEL(r->error), text);
    gtk_widget_set_visible(r->error, text[0] != '\0');
}

/* "kalah: 1500 → 1662? (2 games)" per kind, each in its line's colour. */
static void fill_legend(gratings *r)
{
    GString *s = g_string_new(NULL);
    int values[MAX_HISTORY + 1];
    for (int k = 0; k < r->n_kinds; k++) {
        int n = gratings_values(r, k, values, MAX_HISTORY + 1);
        const agent_rating_point *last = NULL;
        for (int i = 0; i < r->n; i++)
            if (strcmp(r->pts[i].kind, r->kinds[k]) == 0)
                last = &r->pts[i];
        char now[16];
        agent_format_rating(&last->after, now, sizeof now);
        char *kind = g_markup_escape_text(r->kinds[k], -1);
        char *games = g_strdup_printf(ngettext("%d game", "%d games", (unsigned long)(n - 1)),
                                      n - 1);
        g_string_append_printf(s, "%s<span foreground='%s'>\u25CF</span> %s: %d \u2192 %s (%s)",
                               k ? "\n" : "", line_colours[k], kind, values[0], now, games);
        g_free(games);
        g_free(kind);
    }
    gtk_label_set_markup(GTK_LABEL(r->legend), s->str);
    g_string_free(s, TRUE);
}

int gratings_load(gratings *r, const char *name)
{
    char err[512], registered[AGENT_NAME_BYTES];
    agent_rating_point *pts = NULL;
    int n = 0;
    gtk_editable_set_text(GTK_EDITABLE(r->entry), name);
    if (agent_rating_history(r->v->ag, name, NULL, MAX_HISTORY, registered, &pts, &n, err,
                             sizeof err) != 0) {
        set_error(r, err);
        return -1;
    }
    free(r->pts);
    r->pts = pts;
    r->n = n;
    snprintf(r->name, sizeof r->name, "%s", registered);
    r->n_kinds = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < r->n_kinds && strcmp(r->kinds[k], pts[i].kind) != 0)
            k++;
        if (k == r->n_kinds && r->n_kinds < MAX_LINES)
            snprintf(r->kinds[r->n_kinds++], sizeof r->kinds[0], "%s", pts[i].kind);
    }
    char *title = g_strdup_printf(_("Ratings of %s"), r->name);
    gtk_window_set_title(GTK_WINDOW(r->window), title);
    g_free(title);
    if (n == 0) {
        char *none = g_strdup_printf(_("%s has played no rated game yet."), r->name);
        set_error(r, none);
        g_free(none);
    } else {
        set_error(r, "");
    }
    fill_legend(r);
    gtk_widget_queue_draw(r->area);
    return 0;
}

static void on_show(GtkWidget *w, gpointer data)
{
    (void)w;
    gratings *r = data;
    char *name = g_strstrip(g_strdup(gtk_editable_get_text(GTK_EDITABLE(r->entry))));
    if (*name)
        gratings_load(r, name);
    g_free(name);
}

static gratings *gratings_new(gview *v)
{
    gratings *r = g_new0(gratings, 1);
    r->v = v;
    r->window = gview_dialog(v, _("Ratings"));
    gtk_window_set_default_size(GTK_WINDOW(r->window), 560, 420);
    gtk_window_set_hide_on_close(GTK_WINDOW(r->window), TRUE);   /* kept for next time */
    GtkWidget *box = gview_padded_column(8, 12);

    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    r->entry = gtk_entry_new();
    gtk_widget_set_hexpand(r->entry, TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(r->entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("Whose ratings"), -1);
    g_signal_connect(r->entry, "activate", G_CALLBACK(on_show), r);
    GtkWidget *show = gview_mnemonic_button(_("_Show"));
    g_signal_connect(show, "clicked", G_CALLBACK(on_show), r);
    gtk_box_append(GTK_BOX(row), r->entry);
    gtk_box_append(GTK_BOX(row), show);
    gtk_box_append(GTK_BOX(box), row);

    r->area = gtk_drawing_area_new();
    gtk_widget_set_vexpand(r->area, TRUE);
    gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(r->area), 480);
    gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(r->area), 240);
    gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(r->area), draw_graph, r, NULL);
    gtk_accessible_update_property(GTK_ACCESSIBLE(r->area), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   _("The rating after each rated game, a line per kind"), -1);
    gtk_box_append(GTK_BOX(box), r->area);

    r->legend = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(r->legend), 0);
    gtk_label_set_selectable(GTK_LABEL(r->legend), TRUE);
    gtk_box_append(GTK_BOX(box), r->legend);
    r->error = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(r->error), 0);
    gtk_label_set_wrap(GTK_LABEL(r->error), TRUE);
    gtk_widget_set_visible(r->error, FALSE);
    gtk_box_append(GTK_BOX(box), r->error);
    gtk_window_set_child(GTK_WINDOW(r->window), box);
    return r;
}

gratings *gratings_show(gview *v, const char *name)
{
    if (!v->ag)
        return NULL;
    if (!v->ratings)
        v->ratings = gratings_new(v);
    gratings_load(v->ratings, name);
    gtk_window_present(GTK_WINDOW(v->ratings->window));
    return v->ratings;
}

const char *gratings_error(const gratings *r)
{
    return gtk_label_get_text(GTK_LABEL(r->error));
}

GtkWidget *gratings_window(const gratings *r)
{
    return r->window;
}

void gratings_free(gratings *r)
{
    if (!r)
        return;
    gtk_window_destroy(GTK_WINDOW(r->window));
    free(r->pts);
    g_free(r);
}
