/*
 * text_draw.h — text renderings of a game for the text view (view thread).
 * Each drawing is made for a width in columns: no line of it is wider, down
 * to TEXT_MIN_WIDTH (a narrower width is taken as that).
 */
#ifndef SUNGKA_TEXT_DRAW_H
#define SUNGKA_TEXT_DRAW_H

#include <stddef.h>
#include <stdio.h>

#include "agent.h"

#define TEXT_MIN_WIDTH 40       /* the narrowest terminal the drawings fit */
#define TEXT_DEFAULT_WIDTH 80   /* not a terminal and no COLUMNS */

/* The columns out has: the terminal's width now (asked each time, so a
 * resized window is drawn for at the next drawing, with no SIGWINCH
 * handler), else $COLUMNS, else TEXT_DEFAULT_WIDTH. */
int text_terminal_width(FILE *out);

/* The display columns of the first len bytes of s (a C string) in the
 * locale's charset: 2 for a wide character, 1 for a byte that is no
 * character. */
int text_display_width(const char *s, size_t len);

/* line (no newline) written in lines of at most width columns, broken at
 * spaces (the line's own leading spaces kept); a continuation starts with
 * indent spaces; a word wider than a line is cut. */
void text_put_wrapped(FILE *out, const char *line, int width, int indent);

/* The board from the viewer's side (observers: seat 0's side), in width
 * columns; `legal` (may be NULL with n_legal 0) are the mover's legal
 * moves, marked where the drawing has room for it. */
void text_draw_board(FILE *out, const agent_model *m, const int *legal, int n_legal, int width);

/* Seats with names, round-trip times (or the time an away player's seat is
 * still kept) and the seat to move, then how many watch ("3 watching:
 * carol, dave, …"), in width columns. */
void text_draw_people(FILE *out, const agent_model *m, int width);

#endif /* SUNGKA_TEXT_DRAW_H */
