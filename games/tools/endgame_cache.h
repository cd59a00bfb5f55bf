/*
 * endgame_cache.h — Kalah's endgame table (games/search/kalah_db.h) kept
 * between runs: loaded from a file under the XDG cache directory
 * ($XDG_CACHE_HOME/sungka/, else ~/.cache/sungka/), or built on first use
 * and written there for the next run. games/ itself does no I/O; this is
 * the small module beside it that does, for the bot view and the bench.
 *
 * The file (kalah-C-N.tbl for C pits a side, up to N seeds) is a 40-byte
 * header — "SUNGKADB", format version, cups, max_seeds, entries, an FNV-1a
 * checksum of the values — then one byte per entry. A file that does not
 * match in any of these (another version, a torn write, a stranger's file)
 * is not used: the table is built again and the file replaced. Writing goes
 * to a temporary file renamed into place, so readers never see half a
 * table, and two processes building at once only waste work.
 *
 * Any thread; no state. The caller owns what it gets and frees it with
 * endgame_cache_free.
 */
#ifndef SUNGKA_ENDGAME_CACHE_H
#define SUNGKA_ENDGAME_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "kalah_db.h"

/* The size the bot and the bench use: all positions with up to 16 seeds in
 * the pits (30 MB for 6 pits a side; docs/bots.md has the build time). */
#define ENDGAME_CACHE_KALAH_SEEDS 16

/* How a table was obtained, for the caller's log or report. */
typedef struct endgame_cache_info {
    bool built;              /* true: built now (then written, if `saved`) */
    bool saved;              /* the file was written */
    double seconds;          /* time to load or build */
    char path[512];          /* the file read or written ("" when none) */
} endgame_cache_info;

/*
 * Kalah's table for `cups` pits a side and up to `max_seeds` seeds.
 *   dir   the directory of the file; NULL: Sungka's XDG cache directory
 *         (made if missing). With no usable directory the table is still
 *         built, only not saved.
 *   stop  may be NULL: a build gives up when *stop becomes non-zero (another
 *         thread may set it; the bot does when its game ends)
 *   out   OUT: the table; out->margin is the caller's, to free with
 *         endgame_cache_free
 *   info  OUT, may be NULL: loaded or built, where, how long
 * Returns 0, or -1 with a sentence in err when cups or max_seeds is out of
 * kalah_db.h's range, memory is short or the build was stopped (out
 * untouched then).
 */
int endgame_cache_kalah(int cups, int max_seeds, const char *dir, const volatile int *stop,
                        game_kalah_db *out /* OUT */, endgame_cache_info *info /* OUT */,
                        char *err, size_t errlen);

/* Free a table endgame_cache_kalah gave (its margin array); clears *db. */
void endgame_cache_free(game_kalah_db *db);

#endif /* SUNGKA_ENDGAME_CACHE_H */
