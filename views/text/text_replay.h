/*
 * text_replay.h — stepping through a finished match in the text view:
 * `replay ID` fetches it, then next / prev / start / end move through it,
 * drawing the board at each step, analysis prints the engine's review
 * (text_analysis.h), and stop leaves. View thread only.
 */
#ifndef SUNGKA_TEXT_REPLAY_H
#define SUNGKA_TEXT_REPLAY_H

#include <stdbool.h>
#include <stdio.h>

#include "agent.h"

typedef struct text_replay {
    bool active;
    agent *ag;                 /* whose service the match came from */
    agent_match match;
    int *seats, *moves;        /* seats[i] played moves[i] */
    int step;                  /* moves applied so far */
    agent_model model;         /* what is drawn: the position after `step` moves */
} text_replay;

/* Fetch match `id` and show its first position; -1 (said on out) if not. */
int text_replay_start(text_replay *rp, agent *ag, const char *id, FILE *out);
/* Handle a command while replaying; false when it is not a replay command. */
bool text_replay_command(text_replay *rp, const char *cmd, FILE *out);
void text_replay_stop(text_replay *rp);

#endif /* SUNGKA_TEXT_REPLAY_H */
