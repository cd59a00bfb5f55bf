/*
 * perft.h — counting move sequences from a position ("perft", after the
 * chess programmers' test): how many sequences of exactly d moves the rules
 * allow, for every d up to a depth. Used to check a kind's move generation
 * against published tables and an independent count, and to time the engine.
 * Part of the games library but not of the interface the system uses: the
 * service, agent and bot include games.h only.
 *
 * Conventions (the same as published reversi tables):
 *  - A move is one ply; an extra turn is a new ply by the same seat.
 *  - Every forced pass is one ply too: a move whose result lists n_passed
 *    skipped seats is followed by that many plies; if the depth runs out in
 *    the middle of them, that sequence is one leaf at that depth.
 *  - A finished position has no moves: perft(over, d > 0) = 0, and the
 *    sequences that ended the game count only up to the move that ended it.
 *  - perft(st, 0) = 1 for every position.
 *
 * Pure code like the rest of games/: no I/O and no allocation except the one
 * workspace game_perft allocates per call (game_perft_counts takes the
 * caller's). Safe from any thread on states and workspaces the caller owns.
 */
#ifndef SUNGKA_GAMES_PERFT_H
#define SUNGKA_GAMES_PERFT_H

#include "games.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GAME_PERFT_MAX_DEPTH 64

/* One level of the walk: the position reached, its legal moves, and the
 * result of the move being tried from it (reused, never cleared in full). */
typedef struct game_perft_level {
    game_state st;
    game_result res;
    int moves[GAME_MAX_MOVES];
} game_perft_level;

/*
 * Count the sequences of every length 1..depth from st in one walk:
 * counts[d] = perft(st, d) for d = 1..depth (counts[0] = 1). counts must hold
 * depth+1 values and levels depth entries (the caller owns both; about
 * 29 KiB a level, so allocate them rather than put them on a small stack).
 * Returns 0, or -1 when depth is not 1..GAME_PERFT_MAX_DEPTH or st has no
 * kind. st itself is not changed.
 */
int game_perft_counts(const game_state *st, int depth, long long *counts /* OUT */,
                      game_perft_level *levels /* scratch */);

/* perft(st, depth) alone: the number of sequences of exactly depth moves.
 * Allocates its workspace once (freed before returning); -1 on a bad depth
 * (not 0..GAME_PERFT_MAX_DEPTH), no kind, or no memory. */
long long game_perft(const game_state *st, int depth);

#ifdef __cplusplus
}
#endif

#endif /* SUNGKA_GAMES_PERFT_H */
