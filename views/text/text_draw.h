/*
 * text_draw.h — text renderings of a game for the text view (view thread).
 */
#ifndef SUNGKA_TEXT_DRAW_H
#define SUNGKA_TEXT_DRAW_H

#include <stdio.h>

#include "agent.h"

/* The board from the viewer's side (observers: seat 0's side); `legal`
 * (may be NULL with n_legal 0) are the mover's legal moves, marked where the
 * drawing has room for it. */
void text_draw_board(FILE *out, const agent_model *m, const int *legal, int n_legal);

/* Seats with names, round-trip times (or the time an away player's seat is
 * still kept) and the seat to move, then how many watch ("3 watching:
 * carol, dave, …"). */
void text_draw_people(FILE *out, const agent_model *m);
/* "3 people are watching." (1 person; nobody). */
void text_say_watching(FILE *out, int n);

#endif /* SUNGKA_TEXT_DRAW_H */
