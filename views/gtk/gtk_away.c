/*
 * gtk_away.c — what counts down: the away countdown and the clocks. A
 * departed player's seat is kept for a grace the service announces, and in
 * a game with clocks the running one counts down; while either does, a 1 s
 * timer refreshes the status line and the players pane, which read the
 * seconds left from the agent's model (agent_away_seconds,
 * agent_clock_left), as the text view does, and the big clocks
 * (gtk_clock.c). The timer stops itself when nothing counts down any more;
 * while a clock runs it fires as the clock shows its next second.
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
    if (m->have_clocks && m->clock_running >= 0 && m->status == AGENT_GAME_RUNNING)
        return true;                   /* a clock runs */
    for (int i = 0; i < m->n_people; i++)
        if (agent_away_seconds(&m->people[i]) > 0)
            return true;
    return false;
}

/* Milliseconds until the next tick: when the running clock shows its next
 * second (it shows them rounded up, agent_format_clock), so that the big
 * clock turns red as its tenth last second begins; else a second. */
static guint next_tick_ms(const gview *v)
{
    const agent_model *m = gview_model(v);
    if (!m->have_clocks || m->clock_running < 0 || m->status != AGENT_GAME_RUNNING)
        return 1000;
    int64_t left = agent_clock_left(m, m->clock_running);
    return left > 0 ? (guint)((left - 1) % 1000) + 1 : 1000;
}

static gboolean away_tick(gpointer data)
{
    gview *v = data;
    gview_update_status(v);
    gview_update_people(v);
    gclock_update(v);
    v->away_tick = 0;
    gview_away_watch(v);               /* again, at the next second shown */
    return G_SOURCE_REMOVE;
}

/* Tick once a second while anyone's seat is being kept or a clock runs. */
void gview_away_watch(gview *v)
{
    if (!v->away_tick && anyone_away(v))
        v->away_tick = g_timeout_add(next_tick_ms(v), away_tick, v);
}

void gview_away_stop(gview *v)
{
    if (v->away_tick)
        g_source_remove(v->away_tick);
    v->away_tick = 0;
}
