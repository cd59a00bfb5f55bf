/*
 * gtk_away.c — the away countdown. A departed player's seat is kept for a
 * grace the service announces; while anyone's is, a 1 s timer refreshes the
 * status line and the players pane, which read the seconds left from the
 * agent's model (agent_away_seconds), as the text view's `who` does. The
 * timer stops itself when nobody is away any more.
 */
#include "gtk_view_internal.h"

/* Seconds left of a departed player's kept seat, or -1 when we are not
 * counting for them (not departed, or departed for good). */
int gview_away_seconds(const gview *v, const char *name)
{
    const agent_person *p = gview_find_person(gview_model(v), name);
    return p ? agent_away_seconds(p) : -1;
}

static bool anyone_away(const gview *v)
{
    const agent_model *m = gview_model(v);
    for (int i = 0; i < m->n_people; i++)
        if (agent_away_seconds(&m->people[i]) > 0)
            return true;
    return false;
}

static gboolean away_tick(gpointer data)
{
    gview *v = data;
    gview_update_status(v);
    gview_update_people(v);
    if (anyone_away(v))
        return G_SOURCE_CONTINUE;
    v->away_tick = 0;
    return G_SOURCE_REMOVE;
}

/* Tick once a second while anyone's seat is being kept. */
void gview_away_watch(gview *v)
{
    if (!v->away_tick && anyone_away(v))
        v->away_tick = g_timeout_add(1000, away_tick, v);
}

void gview_away_stop(gview *v)
{
    if (v->away_tick)
        g_source_remove(v->away_tick);
    v->away_tick = 0;
}
