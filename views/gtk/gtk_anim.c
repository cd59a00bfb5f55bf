/*
 * gtk_anim.c — the sowing animation. A move's steps (the cup changes the
 * service sends with it) are applied one by one to v->shown, the copy of the
 * cells the board draws, STEP_MS apart; a long relay is sped up so that no
 * move takes longer than ANIM_MAX_MS. A click or key skips to the end, and
 * a move that arrives during an animation first finishes the one before.
 */
#include "gtk_view_internal.h"

#define STEP_MS 40             /* one sowing step */
#define ANIM_MAX_MS 1500       /* the longest a move's animation may take */

bool gview_animating(const gview *v)
{
    return v->anim_src != 0;
}

void gview_sync_shown(gview *v)
{
    const agent_model *m = gview_model(v);
    v->n_shown = m->have_state ? game_cell_count(&m->state) : 0;
    for (int i = 0; i < v->n_shown; i++)
        v->shown[i] = (int16_t)game_cell(&m->state, i);
}

static void apply_step(gview *v, const game_step *s)
{
    if (s->cell >= 0 && s->cell < v->n_shown) {
        v->shown[s->cell] = s->value;
        v->last_cell = s->cell;
    }
}

/* Stop the animation with every remaining step applied (the cells as after
 * that move: a later move may already be in the model). */
void gview_anim_jump(gview *v)
{
    if (!v->anim_steps)
        return;
    while (v->anim_i < v->anim_n)
        apply_step(v, &v->anim_steps[v->anim_i++]);
    if (v->anim_src)
        g_source_remove(v->anim_src);
    v->anim_src = 0;
    v->anims_done++;
    g_free(v->anim_steps);
    v->anim_steps = NULL;
    v->anim_n = v->anim_i = 0;
}

/* Skip to the end: the board as the model has it. */
void gview_anim_skip(gview *v)
{
    gview_anim_jump(v);
    gview_sync_shown(v);
    gtk_widget_queue_draw(v->area);
}

static gboolean anim_tick(gpointer data)
{
    gview *v = data;
    v->anim_frames++;
    for (int k = 0; k < v->anim_per_tick && v->anim_i < v->anim_n; k++)
        apply_step(v, &v->anim_steps[v->anim_i++]);
    if (v->anim_i >= v->anim_n) {
        v->anim_src = 0;          /* returning REMOVE drops the source */
        gview_anim_jump(v);
        gview_sync_shown(v);
        gview_refresh(v);
        return G_SOURCE_REMOVE;
    }
    gtk_widget_queue_draw(v->area);
    return G_SOURCE_CONTINUE;
}

void gview_anim_start(gview *v, const agent_msg *msg)
{
    const agent_model *m = gview_model(v);
    gview_anim_jump(v);         /* `shown` is now the board before this move */
    int cell = m->have_state ? geo_move_cell(&m->state, msg->seat, msg->move) : -1;
    if (msg->n_steps <= 0 || !msg->steps || v->n_shown != game_cell_count(&m->state)) {
        gview_sync_shown(v);
        v->last_cell = cell;
        return;
    }
    v->anim_steps = g_memdup2(msg->steps, sizeof *msg->steps * (gsize)msg->n_steps);
    v->anim_n = msg->n_steps;
    v->anim_i = 0;
    /* STEP_MS a step, but never longer than ANIM_MAX_MS in all */
    int ticks = ANIM_MAX_MS / STEP_MS;
    v->anim_per_tick = (v->anim_n + ticks - 1) / ticks;
    if (v->anim_per_tick < 1)
        v->anim_per_tick = 1;
    v->last_cell = cell;
    v->anim_src = g_timeout_add(STEP_MS, anim_tick, v);
}
