/*
 * search.h — the bot's brain: game-tree search over the rules engines of
 * games.h, for every kind and any number of seats.
 *
 * Two seats: negamax alpha-beta with iterative deepening, a transposition
 * table (Zobrist hashing) and move ordering; a seat that moves again (an
 * extra turn, an opponent's pass) keeps its side instead of alternating.
 * More seats: the "paranoid" reduction — the bot's seat against a coalition
 * of all the others — searched with the same alpha-beta (search.c says why
 * not max-n). Each kind has its own evaluation (eval_mancala.c,
 * eval_reversi.c, eval_tictactoe.c).
 *
 * Pure code like the rest of games/: no I/O and no threads of its own. The
 * only allocation is in game_search_new; a search allocates nothing. One
 * game_search may be used by one thread at a time (it holds the table and
 * the scratch of a search); distinct objects are independent. The caller
 * owns the object and frees it with game_search_free. The state passed to
 * game_search_best is only read.
 *
 * Levels (limits.level, clamped to 1..10) — the depth cap, the chance of
 * playing a random legal move instead of the searched one, and the share of
 * the budget (time_ms, max_nodes) spent:
 *   level  1: a random legal move (seeded by limits.seed)
 *   level  2: depth 1, 50% random     level  6: depth 6
 *   level  3: depth 2, 25% random     level  7: depth 7,  1.5% of the budget
 *   level  4: depth 3, 10% random     level  8: depth 10, 6% ...
 *   level  5: depth 4                 level  9: depth 14, 25% ...
 *                                     level 10: no depth cap, all of it
 * Each level is stronger than the one below (docs/bots.md has the tournament
 * that shows it, and why congklak and qubic leave the top levels little
 * room to differ); the shares keep the top levels apart when the
 * budget, not the cap, limits the depth. A share applies only once level 6's
 * depth 6 is reached (with the whole budget), so that no level searches
 * less deeply than the one below. Endgames are searched to the end
 * from level 7 on: reversi (4x4 to 8x8) solved exactly by a dedicated
 * solver at <= 12, 14, 16, 20 empties for levels 7..10 (larger boards 8,
 * 10, 12, 14); mancala once <= 8, 10, 12, 14 seeds are left in the pits,
 * with Kalah's endgame table when the caller gave one.
 * A ply is one move: an extra turn or a pass costs a ply like any other.
 * Mancala kinds count "empties" as the seeds left in the pits: from there on
 * the search deepens without a cap until every line is played out, and
 * keeps deepening after a win is proven, to find the largest margin (the
 * game's score is its margin, not only who wins).
 * The time budget always applies as well; max_depth, when set, caps further.
 * Reversi endgames on boards up to 8x8 go to a dedicated exact solver, which
 * gets the first half of the budget (on this machine 20 empties take about
 * 0.4 s of CPU, the median of PERFORMANCE.md's positions); if the clock beats
 * it, the usual search has the second half. Larger boards are searched to the end by the search
 * itself from 8, 10, 12 and 14 empties at levels 7..10.
 */
#ifndef SUNGKA_GAMES_SEARCH_H
#define SUNGKA_GAMES_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "games.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The transposition table and the scratch of one searcher; reuse it across
 * the moves of a game (and across games: positions of different kinds or
 * options never share entries). */
typedef struct game_search game_search;

/* A searcher with a table of about tt_bytes (0: 16 MiB; rounded down to a
 * power of two entries, at least 64 KiB). NULL when memory is short. */
game_search *game_search_new(size_t tt_bytes);

/* Forget what earlier searches left (the transposition tables, the move
 * ordering's history), so that the next search finds what a new searcher
 * would: the game review (analysis.h) values each position as the bot
 * would from scratch, the same at any point of a game. NULL is fine. */
void game_search_reset(game_search *s);

/* Frees everything game_search_new allocated; NULL is fine. */
void game_search_free(game_search *s);

typedef struct game_search_limits {
    int level;                 /* 1..10: 1 near-random, 10 strongest (see above) */
    int time_ms;               /* budget for this move (<= 0: 1000) */
    int max_depth;             /* 0: no limit other than time/level */
    const volatile int *stop;  /* may be NULL; when *stop becomes non-zero the
                                  search returns promptly with the best move
                                  found so far (another thread may set it) */
    uint64_t seed;             /* for the randomness of low levels (reproducible tests) */
    long long max_nodes;       /* 0: none; else stop after about this many
                                  positions, like the clock (a budget that
                                  does not depend on the machine's load:
                                  benchmarks, tournaments) */
} game_search_limits;

typedef struct game_search_result {
    int move;                  /* always a legal move of the seat to move */
    int depth;                 /* deepest completed iteration (0: none completed) */
    long long nodes;           /* positions visited */
    int score;                 /* from the mover's point of view: beyond
                                  +-GAME_SEARCH_WIN/2 a proven win/loss
                                  (GAME_SEARCH_WIN + 256 x margin - plies);
                                  mancala kinds, whose result is the margin,
                                  report one only with its exact margin, and
                                  otherwise a guess of 256 per seed */
    bool exact;                /* the game-theoretic value (win, draw or loss)
                                  was proven (mancala: with its margin) */
} game_search_result;

/* Scores beyond +-GAME_SEARCH_WIN/2 are proven wins / losses. */
#define GAME_SEARCH_WIN (1 << 28)

/*
 * Hand the searcher Kalah's endgame table (kalah_db.h), or NULL to stop using
 * one. The table is borrowed: it must outlive its use by s (every later
 * game_search_best). Kalah positions of its size with at most its seeds in
 * the pits then have their exact value without a search below them, at the
 * levels that solve endgames (7..10).
 */
struct game_kalah_db;
void game_search_set_kalah_db(game_search *s, const struct game_kalah_db *db);

/*
 * Choose a move for the seat to move in st. lim NULL means level 10 with a
 * budget of 1000 ms. Returns 0 with *out filled, or -1 (out untouched) when
 * the game is over, the mover has no legal move, or an argument is NULL.
 */
int game_search_best(game_search *s, const game_state *st, const game_search_limits *lim,
                     game_search_result *out /* OUT */);

/*
 * The value of st for `seat`, whoever is to move: the search as
 * game_search_best's with seat in the bot's place (with more than two seats
 * every other seat plays against it, the paranoid view), out->score from
 * seat's point of view and out->move the choice of the seat to move (against
 * seat, when it is another's). For the seat to move it is game_search_best.
 * The game review values a position after a move for its mover with it.
 * Returns 0, or -1 as game_search_best, or when seat is not one of st's.
 */
int game_search_value_for(game_search *s, const game_state *st, int seat,
                          const game_search_limits *lim, game_search_result *out /* OUT */);

#ifdef __cplusplus
}
#endif

#endif /* SUNGKA_GAMES_SEARCH_H */
