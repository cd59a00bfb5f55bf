/*
 * text_replay.c — replaying a recorded match move by move. The position at
 * step k is rebuilt by playing the first k recorded moves through the rules
 * engine from the start, so going back is as exact as going forward.
 */
#include <stdlib.h>
#include <string.h>

#include "text_analysis.h"
#include "text_draw.h"
#include "text_replay.h"
#include "narrate.h"
#include "view_i18n.h"

/* The position after the first `step` moves; -1 if a recorded move is refused. */
static int position_at(text_replay *rp, int step, FILE *out)
{
    agent_model *m = &rp->model;
    char err[AGENT_TEXT_BYTES];
    if (agent_match_position(&rp->match, rp->seats, rp->moves, step, &m->state, err,
                             sizeof err) != 0) {
        fprintf(out, _("Cannot replay: %s\n"), err);
        return -1;
    }
    rp->step = step;
    return 0;
}

static void show(text_replay *rp, FILE *out)
{
    const agent_model *m = &rp->model;
    char buf[40], move[16];
    if (rp->step > 0) {
        agent_format_move(m, rp->moves[rp->step - 1], move, sizeof move);
        fprintf(out, _("Move %d of %d: %s played %s.\n"), rp->step, rp->match.n_moves,
                view_seat_name(m, rp->seats[rp->step - 1], buf, sizeof buf), move);
    } else {
        fprintf(out, _("Start of match %s (%d moves).\n"), rp->match.id, rp->match.n_moves);
    }
    text_draw_board(out, m, NULL, 0, text_terminal_width(out));
    if (rp->step == rp->match.n_moves)
        fprintf(out, _("End: %s.\n"), rp->match.reason);
    fprintf(out, _("Replay: next, prev, start, end, or stop.\n"));
}

int text_replay_start(text_replay *rp, agent *ag, const char *id, FILE *out)
{
    char err[512];
    text_replay_stop(rp);
    rp->ag = ag;
    if (agent_get_match(ag, id, &rp->match, &rp->seats, &rp->moves, err, sizeof err) != 0) {
        fprintf(out, "%s\n", err);
        return -1;
    }
    if (!rp->match.kind) {
        fprintf(out, _("Cannot replay a game of kind '%s'.\n"), rp->match.kind_name);
        text_replay_stop(rp);
        return -1;
    }
    memset(&rp->model, 0, sizeof rp->model);
    rp->model.kind = rp->match.kind;
    rp->model.opts = rp->match.opts;
    rp->model.have_state = true;
    rp->model.my_seat = -1;
    rp->model.hot_seat = -1;
    rp->model.status = AGENT_GAME_RUNNING;
    for (int i = 0; i < rp->match.n_seats; i++)
        snprintf(rp->model.seat_name[i], sizeof rp->model.seat_name[i], "%s",
                 rp->match.seat_name[i]);
    if (position_at(rp, 0, out) != 0) {
        text_replay_stop(rp);
        return -1;
    }
    rp->active = true;
    fprintf(out, _("Replaying match %s: %s, %s.\n"), rp->match.id, rp->match.title,
            rp->match.reason);
    fprintf(out, _("Type analysis for the engine's review of the match.\n"));
    show(rp, out);
    return 0;
}

bool text_replay_command(text_replay *rp, const char *cmd, FILE *out)
{
    if (!rp->active)
        return false;
    int target;
    if (strcmp(cmd, "next") == 0 || strcmp(cmd, "n") == 0)
        target = rp->step + 1;
    else if (strcmp(cmd, "prev") == 0 || strcmp(cmd, "p") == 0)
        target = rp->step - 1;
    else if (strcmp(cmd, "start") == 0)
        target = 0;
    else if (strcmp(cmd, "end") == 0)
        target = rp->match.n_moves;
    else if (strcmp(cmd, "analysis") == 0) {
        text_analysis_replay(out, rp->ag, &rp->match, rp->seats, rp->moves);
        return true;
    } else if (strcmp(cmd, "stop") == 0) {
        text_replay_stop(rp);
        fprintf(out, _("Replay stopped.\n"));
        return true;
    } else
        return false;
    if (target < 0 || target > rp->match.n_moves) {
        fprintf(out, "%s", target < 0 ? _("Already at the start of the match.\n")
                                      : _("Already at the end of the match.\n"));
        return true;
    }
    if (position_at(rp, target, out) == 0)
        show(rp, out);
    return true;
}

void text_replay_stop(text_replay *rp)
{
    free(rp->seats);
    free(rp->moves);
    rp->seats = rp->moves = NULL;
    rp->active = false;
}
