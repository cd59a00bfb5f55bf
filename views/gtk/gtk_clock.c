/*
 * gtk_clock.c — the clocks that look like clocks (issue 33, "The board
 * page"): above the board, one per seat in a game with a time control, the
 * seat's name small and its time left big in tabular digits; the running
 * one is drawn in the accent colour, and in the style's error colour (red)
 * once it has less than GCLOCK_LOW_MS left, so that a player short of time
 * sees it at a glance. The seconds come from the agent's model
 * (agent_clock_left) as for every other view, so the big clock says what
 * the players pane and the text view say; gtk_away.c's 1 s tick redraws
 * it while a clock runs. Hidden in a game without clocks. View thread only.
 */
#include "gtk_view_internal.h"

GtkWidget *gclock_new(gview *v)
{
    v->clocks = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 24);
    gtk_box_set_homogeneous(GTK_BOX(v->clocks), TRUE);
    gtk_widget_set_visible(v->clocks, FALSE);
    for (int s = 0; s < GAME_MAX_SEATS; s++) {
        v->clock_shown[s] = -1;
        GtkWidget *col = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
        v->clock_name[s] = gtk_label_new(NULL);
        gtk_label_set_ellipsize(GTK_LABEL(v->clock_name[s]), PANGO_ELLIPSIZE_END);
        gtk_widget_add_css_class(v->clock_name[s], "caption");
        v->clock_time[s] = gtk_label_new(NULL);
        gtk_widget_add_css_class(v->clock_time[s], "title-1");
        gtk_widget_add_css_class(v->clock_time[s], "numeric");
        gtk_box_append(GTK_BOX(col), v->clock_name[s]);
        gtk_box_append(GTK_BOX(col), v->clock_time[s]);
        gtk_box_append(GTK_BOX(v->clocks), col);
    }
    return v->clocks;
}

/* A seat's clock as it is now. */
static int state_now(const gview *v, int seat)
{
    const agent_model *m = gview_model(v);
    if (!gview_in_game(v) || !m->have_state || seat < 0 || seat >= game_seats(&m->state))
        return -1;
    int64_t left = agent_clock_left(m, seat);
    if (left < 0)
        return -1;
    if (seat != m->clock_running || m->status != AGENT_GAME_RUNNING)
        return GCLOCK_STOPPED;
    return left <= GCLOCK_LOW_MS ? GCLOCK_LOW : GCLOCK_RUNNING;
}

int gclock_state(const gview *v, int seat)
{
    return seat >= 0 && seat < GAME_MAX_SEATS ? v->clock_shown[seat] : -1;
}

void gclock_update(gview *v)
{
    const agent_model *m = gview_model(v);
    int seats = gview_in_game(v) && m->have_state ? game_seats(&m->state) : 0;
    bool any = seats > 0 && agent_clock_left(m, 0) >= 0;
    gtk_widget_set_visible(v->clocks, any);
    GtkWidget *col = gtk_widget_get_first_child(v->clocks);
    for (int s = 0; s < GAME_MAX_SEATS; s++, col = gtk_widget_get_next_sibling(col)) {
        bool shown = any && s < seats;
        gtk_widget_set_visible(col, shown);
        if (!shown) {
            v->clock_shown[s] = -1;
            continue;
        }
        char buf[64], left[16];
        gtk_label_set_text(GTK_LABEL(v->clock_name[s]), gview_seat_name(v, s, buf, sizeof buf));
        agent_format_clock(agent_clock_left(m, s), left, sizeof left);
        gtk_label_set_text(GTK_LABEL(v->clock_time[s]), left);
        int was = v->clock_shown[s];
        int state = v->clock_shown[s] = state_now(v, s);
        if (state == GCLOCK_LOW && was != GCLOCK_LOW && agent_holds_seat(v->ag, s))
            gview_sound_play(v, GVIEW_SOUND_LOW_TIME);   /* our time runs short */
        GtkWidget *t = v->clock_time[s];
        if (state == GCLOCK_LOW) {
            gtk_widget_remove_css_class(t, "accent");
            gtk_widget_add_css_class(t, "error");
        } else if (state == GCLOCK_RUNNING) {
            gtk_widget_remove_css_class(t, "error");
            gtk_widget_add_css_class(t, "accent");
        } else {
            gtk_widget_remove_css_class(t, "error");
            gtk_widget_remove_css_class(t, "accent");
        }
        /* Screen readers hear the name with the time, and "running".
         * TRANSLATORS: a big clock, for screen readers: a player's name and the
         * time left on their clock ("alice: 0:07 left") */
        char *says = g_strdup_printf(state == GCLOCK_STOPPED ? _("%s: %s left")
                                                             : _("%s: %s left, running"),
                                     buf, left);
        gtk_accessible_update_property(GTK_ACCESSIBLE(col), GTK_ACCESSIBLE_PROPERTY_LABEL, says,
                                       -1);
        g_free(says);
    }
}
