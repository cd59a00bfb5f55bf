/*
 * text_analysis.h — the engine's review of a finished match
 * (games/search/analysis.h) as a table for the terminal: each move with the
 * mover's value before and after it, the engine's move and its judgement,
 * then each player's accuracy. Used by `sungka-player --analyse FILE` and by
 * `analysis` in the text view's replay. The review is computed here, in the
 * agent's process (the view thread waits for it: seconds at the default
 * depth), with Kalah's endgame table from the XDG cache for exact endings.
 */
#ifndef SUNGKA_TEXT_ANALYSIS_H
#define SUNGKA_TEXT_ANALYSIS_H

#include <stdio.h>

#include "agent.h"

/* Review match m (seats[i] played moves[i]) at `depth` plies a position
 * (0: each kind's own) and print the table to out. 0, or -1 with the
 * reason printed to out. */
int text_analysis_show(FILE *out, const agent_match *m, const int *seats, const int *moves,
                       int depth);

/* The replay's `analysis`: the service's stored review of match m, or,
 * when it has none (said, with its reason) or cannot be asked, the review
 * computed here. */
void text_analysis_replay(FILE *out, agent *ag, const agent_match *m, const int *seats,
                          const int *moves);

#endif /* SUNGKA_TEXT_ANALYSIS_H */
