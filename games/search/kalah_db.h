/*
 * kalah_db.h — a retrograde endgame table of Kalah (docs/rules.md §3): for
 * every position with at most max_seeds seeds left in the pits, the exact
 * final margin of those seeds (what the player to move will have put in
 * their store, minus what the opponent will, from here to the end) with best
 * play by both. The stores so far do not matter, so one table serves every
 * `stones` option of a board of `cups` pits a side; the search hands its
 * values out as proven results (game_search_set_kalah_db in search.h).
 *
 * Positions are seen from the player to move: pits[0..cups-1] theirs, from
 * their left, and pits[cups..2*cups-1] the opponent's, from the opponent's
 * left. Each count of seeds n has its block of C(n+2c-1, 2c-1) entries, in
 * order of n, each block in lexicographic order of the pits (the
 * combinatorial number system), so an index is computed, never looked up.
 *
 * Size: C(max_seeds + 2c, 2c) bytes; for 6 pits a side 2.7 MB for 12 seeds,
 * 9.7 MB for 14, 30.4 MB for 16, 86.5 MB for 18. Building visits every
 * entry once (docs/bots.md gives times).
 *
 * Pure code like the rest of games/: no I/O, no allocation (the caller
 * provides the table's memory), no state. A built table is only read, so any
 * number of threads and searchers may share it. Storing it between runs is
 * the caller's business (games/tools/endgame_cache.h does it under the XDG
 * cache directory).
 */
#ifndef SUNGKA_GAMES_KALAH_DB_H
#define SUNGKA_GAMES_KALAH_DB_H

#include <stddef.h>
#include <stdint.h>

#include "games.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GAME_KALAH_DB_MAX_SEEDS 24  /* bigger tables would not fit in memory */

/* A built table, borrowed by whoever probes it. */
typedef struct game_kalah_db {
    int cups;                 /* pits a side, 3..8 (Kalah's range) */
    int max_seeds;            /* every position with 0..max_seeds seeds in the pits */
    size_t entries;           /* game_kalah_db_entries(cups, max_seeds) */
    const int8_t *margin;     /* margin[index]: the exact final margin, -n..n */
} game_kalah_db;

/* Entries (= bytes) of the table for cups pits a side and up to max_seeds
 * seeds; 0 when cups is not 3..8 or max_seeds not 0..GAME_KALAH_DB_MAX_SEEDS. */
size_t game_kalah_db_entries(int cups, int max_seeds);

/*
 * Fill margin[0..entries-1] (entries as above) with every position's value.
 *   margin  OUT: caller-owned, game_kalah_db_entries(cups, max_seeds) bytes
 *   stop    may be NULL; when *stop becomes non-zero (another thread may set
 *           it) the build gives up promptly and the table is not usable
 * Returns 0; -1 when cups or max_seeds is out of range (margin untouched) or
 * the build was stopped.
 */
int game_kalah_db_build(int cups, int max_seeds, int8_t *margin /* OUT */,
                        const volatile int *stop);

/* The pits a side of the table that serves st's game (a Kalah game, with
 * cups in range), or 0 when no table does: how a caller knows which table
 * to load without naming kinds. */
int game_kalah_db_cups(const game_state *st);

/*
 * The table's value for a Kalah position that is not over and whose seeds in
 * the pits are at most db->max_seeds, on a board of db->cups pits: 0 and
 * *margin (the final margin of the seeds in the pits for the seat to move);
 * -1 when the table does not cover it (another kind or size, too many seeds,
 * a game over, or one whose pie-rule swap is still open).
 */
int game_kalah_db_probe(const game_kalah_db *db, const game_state *st, int *margin /* OUT */);

#ifdef __cplusplus
}
#endif

#endif /* SUNGKA_GAMES_KALAH_DB_H */
