/*
 * analysis.h — the engine's review of a finished game (docs/rules.md,
 * "Analysis"): for each move the position's value before and after it, from
 * the mover's point of view, the move the search prefers, and a judgement
 * (inaccuracy, mistake, blunder); for each seat an accuracy.
 *
 * Values are in hundredths of the kind's own unit of result — a disc in
 * reversi, a seed in the mancala kinds — like chess engines' centipawns:
 * +250 is "two and a half seeds ahead". A value the search proved (an
 * endgame solved, Kalah's endgame table, a finished game) is marked exact
 * and is then 100 x the final margin. Each kind says in games/ how its
 * evaluation maps to its unit, the losses that make each judgement and the
 * curve of winning chances accuracy is measured on (search_internal.h:
 * search_eval's unit, judge, win_scale, depth), so a new kind needs no code
 * outside games/.
 *
 * How each position is valued: game_search_best at level 10 with the
 * budget's depth cap, from a reset searcher (game_search_reset), so the
 * value of a position is what the bot's search finds for it from scratch,
 * the same wherever it is met. The value after a move is the value of the
 * next position, seen by the mover (negated when the turn passed).
 *
 * Accuracy, as Lichess measures it from the value lost: the mover's winning
 * chance w = 100 / (1 + exp(-v / win_scale)) (exact: 100, 50 or 0) before and
 * after each move; the move's accuracy 103.1668 exp(-0.04354 (w_before -
 * w_after)) - 3.1669, clamped to 0..100 (100 for the engine's own move); a
 * seat's accuracy the mean over its moves (Lichess weighs its mean by the
 * position's volatility; a plain mean is simpler to check by hand).
 *
 * Judgement: the value lost against the kind's thresholds; where a value
 * is proven (exact), also the winning chance lost, 10, 20 or 30 points (as
 * Lichess judges), since a proven margin and a guessed one do not compare
 * seed for seed; a proven result given away is always a blunder; the
 * engine's own move is never judged.
 *
 * Pure code like the rest of games/; the caller owns the searcher and the
 * output arrays and may call from any thread (one searcher per thread).
 * More than two seats (sungka for 3..6): a seat's value is its margin over
 * the best of the others, as the bot's paranoid search sees it (every other
 * seat playing against it: search.c); the value after a move is searched
 * for its mover (game_search_value_for), not read off the next mover's, so
 * a position is searched twice when the turn passes. A seat's value graph
 * then has a point for each of its own moves.
 */
#ifndef SUNGKA_GAMES_ANALYSIS_H
#define SUNGKA_GAMES_ANALYSIS_H

#include <stdbool.h>

#include "games.h"
#include "search.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum game_judgement {
    GAME_JUDGE_GOOD = 0,        /* nothing to say */
    GAME_JUDGE_INACCURACY = 1,
    GAME_JUDGE_MISTAKE = 2,
    GAME_JUDGE_BLUNDER = 3,
} game_judgement;

/* A position's value for one seat. */
typedef struct game_value {
    int cu;                     /* hundredths of the kind's unit, for the seat */
    bool exact;                 /* proven: cu is 100 x the final margin */
} game_value;

typedef struct game_analysis_move {
    int seat;                   /* who moved */
    int move;                   /* what was played */
    int best;                   /* the search's move in the position before */
    game_value before, after;   /* the mover's value before and after the move */
    int loss;                   /* cu lost by the move, >= 0 (0 for the best move) */
    game_judgement judgement;
    int accuracy;               /* this move's accuracy, tenths of a percent 0..1000 */
} game_analysis_move;

typedef struct game_analysis_budget {
    int depth;                  /* plies per position; <= 0: the kind's own default */
    int time_ms;                /* cap per position (<= 0: 2000); a position cut short
                                   by it is valued as far as it got */
    const volatile int *stop;   /* may be NULL; non-zero: give up (returns -1) */
} game_analysis_budget;

/* The search limits the review uses for a kind at a budget: what a test
 * hands game_search_best to find the same values. */
void game_analysis_limits(const game_kind *kind, const game_analysis_budget *budget,
                          game_search_limits *lim /* OUT */);

/* A search score (game_search_result.score, the mover's view) in hundredths
 * of the kind's unit; *exact when it is a proven result. */
game_value game_analysis_value(const game_kind *kind, const game_search_result *r);

/* The winning chance of a value for its seat, in percent (the curve
 * accuracy is measured on): a value graph plots it. */
double game_analysis_chance(const game_kind *kind, game_value v);

/* What a value graph plots after move m, in percent: with two seats the
 * first seat's winning chance, with more the mover's (a seat's value is then
 * its margin over the best of the others, which says nothing of another
 * seat's: a graph draws a line per seat through its own moves). */
double game_analysis_graph_chance(const game_kind *kind, int seats, const game_analysis_move *m);

/* The judgement thresholds of a kind (hundredths of its unit lost). */
void game_analysis_thresholds(const game_kind *kind, int judge[3] /* OUT */);

/* The name of a judgement: "", "inaccuracy", "mistake", "blunder". */
const char *game_judgement_name(game_judgement j);

/*
 * Review a game: its kind and options, and its n moves in
 * order (seats[i] moved moves[i]).
 *   s        the searcher (reset before every position; give it Kalah's
 *            endgame table with game_search_set_kalah_db for exact Kalah
 *            endings)
 *   out      OUT: n entries
 *   accuracy OUT: per seat, tenths of a percent 0..1000, or -1 for a seat
 *            that made no move
 * Returns 0; -1 with a sentence in err when the game cannot be set up, a
 * move does not replay (its number in the sentence), or budget->stop was set.
 */
int game_analyse(game_search *s, const game_kind *kind, const game_options *opts,
                 const int *seats, const int *moves, int n, const game_analysis_budget *budget,
                 game_analysis_move *out /* OUT [n] */, int accuracy[GAME_MAX_SEATS] /* OUT */,
                 char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* SUNGKA_GAMES_ANALYSIS_H */
