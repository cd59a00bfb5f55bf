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

/* A colour, each channel 0..1. */
typedef struct board_rgb {
    double r, g, b;
} board_rgb;

/* Every colour the board is drawn in: the drawing asks this, never a
 * constant, so that a dark style (the desktop's, followed through
 * libadwaita's style manager) gets a board that sits in it. */
typedef struct board_palette {
    board_rgb background;      /* around the board */
    board_rgb wood, wood_dark, wood_to_move;   /* a mancala board, its edge, the
                                                * mover's row (more than two seats) */
    board_rgb cup;             /* a cup's or home's hollow */
    board_rgb felt, felt_lines;    /* reversi */
    board_rgb paper, paper_lines, paper_last;  /* tic-tac-toe's cells */
    board_rgb hover, cursor;   /* the legal cell under the pointer, the keyboard's */
    board_rgb ink;             /* names and labels on the background */
    board_rgb dim_ink;         /* coordinates and slice labels */
    board_rgb on_wood;         /* names on a mancala board */
    board_rgb cup_numbers;     /* the viewer's cup numbers */
    board_rgb last_disc;       /* the ring on reversi's last disc */
    board_rgb seat[GAME_MAX_SEATS];    /* marks of tic-tac-toe's seats */
} board_palette;

/* The two palettes: for a light style and for a dark one. */
extern const board_palette board_palette_light, board_palette_dark;

typedef struct board_look {
    const board_palette *pal;  /* the colours to draw in */
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
