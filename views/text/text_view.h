/*
 * text_view.h — the line-oriented terminal view. Works in a terminal and
 * through pipes: it draws the board from the viewer's side after every
 * change and reads one command per line.
 */
#ifndef SUNGKA_TEXT_VIEW_H
#define SUNGKA_TEXT_VIEW_H

#include <stdio.h>

#include "agent.h"
#include "view.h"

extern const view_ops view_text;

/* The matches of player (NULL: ours) of kind (NULL: any), newest first,
 * each with the tournament that made it, then (without a kind) the
 * tournaments player played in with their place and points, printed to
 * out: the text view's `history` and sungka-player --history. View
 * thread (it calls the service). 0, or -1 with the sentence printed. */
int text_view_print_history(agent *ag, FILE *out, const char *player, const char *kind);

#endif /* SUNGKA_TEXT_VIEW_H */
