/*
 * placement.h — rating one game of two or more seats from its final
 * placement, as a set of pairwise results (docs/rules.md, "Ratings"):
 * each player beat everyone placed below, drew with everyone placed equal
 * and lost to everyone placed above, and every one of those results counts
 * as one Glicko-2 game against that opponent's rating from before the game.
 * The game is one rating period for each of its players.
 *
 * With two seats this is plain Glicko-2: a win, a draw or a loss.
 *
 * Pure code: no I/O, no allocation, no state. Any thread.
 */
#ifndef SUNGKA_PLACEMENT_H
#define SUNGKA_PLACEMENT_H

#include "glicko2.h"

/* The most players one game rates (the most seats of any kind). */
#define PLACEMENT_MAX_PLAYERS 8

typedef struct placement_player {
    glicko2_rating before;  /* the rating before the game */
    int place;              /* 1 for first; equal places are a tie; lower is better */
} placement_player;

/*
 * Every player's rating after the game.
 *   players  borrowed, n of them (2..PLACEMENT_MAX_PLAYERS)
 *   tau      the system constant (GLICKO2_TAU)
 *   after    OUT: n ratings, after[i] for players[i] (may not alias players)
 * Returns 0, or -1 (after untouched) for a count out of range, a place
 * below 1, or a rating glicko2_update refuses.
 */
int placement_rate(const placement_player *players, int n, double tau,
                   glicko2_rating *after /* OUT */);

/* A rating's deviation above which it is provisional: shown with a "?" and
 * kept off the top of leaderboards until more games settle it (Lichess
 * uses the same bound). */
#define PLACEMENT_PROVISIONAL_RD 110.0

#endif /* SUNGKA_PLACEMENT_H */
