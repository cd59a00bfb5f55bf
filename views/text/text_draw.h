/*
 * text_draw.h — text renderings of a game for the text view (view thread).
 */
#ifndef SUNGKA_TEXT_DRAW_H
#define SUNGKA_TEXT_DRAW_H

#include <stdio.h>

#include "agent.h"

/* The board from the viewer's side (observers: seat 0's side). */
void text_draw_board(FILE *out, const agent_model *m);
/* Seats with names, round-trip times and the seat to move, then observers. */
void text_draw_people(FILE *out, const agent_model *m);

#endif /* SUNGKA_TEXT_DRAW_H */
