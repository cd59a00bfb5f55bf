/*
 * gtk_board.h — drawing a board with cairo for the GTK view, from a layout
 * (gtk_geometry.h) and the cells to show (which lag the model while a move
 * is animated). View thread only.
 */
#ifndef SUNGKA_GTK_BOARD_H
#define SUNGKA_GTK_BOARD_H

#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent.h"
#include "gtk_geometry.h"

typedef struct board_look {
    const agent_model *m;      /* names, seats, whose turn, the kind */
    const int16_t *cells;      /* the cells to draw (m->state's while idle) */
    int hover;                 /* a legal cell under the pointer, or -1 */
    int cursor;                /* the keyboard cursor's cell, or -1 */
    int last;                  /* the cell that changed last (sowing), or -1 */
    const int *hints;          /* cells to mark as playable (reversi dots) */
    int n_hints;
    int to_move;               /* seat to move as shown, -1 when none */
} board_look;

/* Draw the whole board into the layout's area (width x height pixels). */
void board_draw(cairo_t *cr, const geo_layout *L, const board_look *look, double width,
                double height);

#endif /* SUNGKA_GTK_BOARD_H */
