/*
 * glicko2.h — Glickman's Glicko-2 rating system, one rating period at a time,
 * exactly as in "Example of the Glicko-2 system" (Mark E. Glickman, 2012).
 *
 * A rating is a strength (rating, 1500 for a newcomer), how unsure it is
 * (rd, the rating deviation: 350 for a newcomer, smaller with every game) and
 * how erratic the player is (volatility, 0.06 to start). glicko2_update
 * takes a player's rating before a rating period and every game of that
 * period, against opponents as they were rated before it, and gives the
 * rating after it. Rate every player of a period from the same "before"
 * ratings (update a copy, not the table being read).
 *
 * Pure code: no I/O, no allocation, no state. Any thread.
 */
#ifndef SUNGKA_GLICKO2_H
#define SUNGKA_GLICKO2_H

typedef struct glicko2_rating {
    double rating;      /* 1500 for a newcomer */
    double rd;          /* rating deviation, > 0; 350 for a newcomer */
    double volatility;  /* sigma, > 0; 0.06 to start */
} glicko2_rating;

/* A newcomer's rating: 1500, RD 350, volatility 0.06 (the paper's defaults). */
#define GLICKO2_NEWCOMER ((glicko2_rating){1500.0, 350.0, 0.06})

/* The system constant tau constrains how fast the volatility moves; the
 * paper suggests 0.3..1.2 and uses 0.5 in its example. */
#define GLICKO2_TAU 0.5

/* One game of the rating period, from the rated player's side. */
typedef struct glicko2_game {
    double opp_rating;  /* the opponent's rating before the period */
    double opp_rd;      /* ... and its deviation (> 0) */
    double score;       /* 1 a win, 0.5 a draw, 0 a loss (any value 0..1) */
} glicko2_game;

/*
 * The rating of `player` after a period with games[0..n_games-1] (n_games
 * 0: a period without games, which only widens the deviation).
 *   player   the rating before the period
 *   games    borrowed; may be NULL when n_games is 0
 *   tau      the system constant (GLICKO2_TAU)
 *   out      OUT: the rating after the period (may be player itself)
 * Returns 0, or -1 (out untouched) for a negative count, a deviation,
 * volatility or tau that is not positive, a score outside 0..1, or a value
 * that is not finite.
 */
int glicko2_update(const glicko2_rating *player, const glicko2_game *games, int n_games,
                   double tau, glicko2_rating *out /* OUT */);

/* The expected score (0..1) of a player rated `a` against one rated `b`,
 * with b's deviation weighing it down (the paper's E(mu, mu_j, phi_j)). */
double glicko2_expected(const glicko2_rating *a, const glicko2_rating *b);

#endif /* SUNGKA_GLICKO2_H */
