/*
 * kalah_db.c — building and probing the endgame table of kalah_db.h.
 *
 * Why a plain memoised recursion works: every Kalah move either puts seeds in
 * a store (the count in the pits falls) or only moves the mover's seeds
 * forward inside the mover's own row (a sowing that does not reach the store
 * ends in the row; the opponent's row is reached only past the store). So
 * with the count unchanged, the sum over seeds of their distance to their
 * row's store strictly falls: positions form no cycle, and solving a
 * position's children first always ends.
 *
 * The sowing here is a copy of kalah.c's rules on a small array seen from the
 * mover, because the engine's game_state (8 KiB of cells) costs more to copy
 * than the move itself; tests/games/test_kalah_db.c checks the table against
 * a search over the engine's own moves.
 */
#include "kalah_db.h"

#include "search_internal.h"

#include <pthread.h>
#include <string.h>

#define MAX_PITS 16               /* 2 x 8 */
#define UNKNOWN INT8_MIN

/* C(n, k) for n up to GAME_KALAH_DB_MAX_SEEDS + MAX_PITS (40 choose 16 is
 * about 6.3e10, well inside 64 bits): Pascal's triangle, built once per
 * process (pthread_once, as tictactoe.c's line tables) because every probe
 * of the search needs it. */
#define BINOM_N (GAME_KALAH_DB_MAX_SEEDS + MAX_PITS + 1)
static uint64_t choose[BINOM_N][MAX_PITS + 1];
static pthread_once_t choose_once = PTHREAD_ONCE_INIT;

static void choose_build(void)
{
    for (int n = 0; n < BINOM_N; n++) {
        choose[n][0] = 1;
        for (int k = 1; k <= MAX_PITS; k++)
            choose[n][k] = n == 0 ? 0 : choose[n - 1][k - 1] + choose[n - 1][k];
    }
}

/* Ways to put m seeds into j pits: C(m+j-1, j-1). */
static inline uint64_t ways(int m, int j)
{
    return choose[m + j - 1][j - 1];
}

/* The index of pits[0..P-1] holding n seeds: the blocks of every smaller
 * count (C(n-1+P, P) positions in all), then the rank among those with n. */
static size_t db_index(const int8_t *pits, int P, int n)
{
    uint64_t idx = n > 0 ? choose[n - 1 + P][P] : 0;
    int r = n;
    for (int i = 0; i < P - 1 && r > 0; i++) {
        int k = P - i, a = pits[i];
        /* positions with fewer seeds in pit i: C(r+k-1,k-1) - C(r-a+k-1,k-1) */
        idx += ways(r, k) - ways(r - a, k);
        r -= a;
    }
    return (size_t)idx;
}

typedef struct db_ctx {
    int cups, pits;
    int8_t *margin;
} db_ctx;

static bool in_range(int cups, int max_seeds)
{
    return cups >= 3 && cups <= 8 && max_seeds >= 0 && max_seeds <= GAME_KALAH_DB_MAX_SEEDS;
}

size_t game_kalah_db_entries(int cups, int max_seeds)
{
    if (!in_range(cups, max_seeds))
        return 0;
    pthread_once(&choose_once, choose_build);
    return (size_t)choose[max_seeds + 2 * cups][2 * cups];
}

static int row_sum(const int8_t *row, int cups)
{
    int s = 0;
    for (int i = 0; i < cups; i++)
        s += row[i];
    return s;
}

static int solve(db_ctx *x, const int8_t *pits, int n);

/* The mover sows pit m of pits[]: the margin it gains from here to the end,
 * with best play after. */
static int move_value(db_ctx *x, const int8_t *pits, int m)
{
    const int cups = x->cups, ring = 2 * cups + 1; /* own pits, own store, theirs */
    int8_t b[MAX_PITS];
    memcpy(b, pits, (size_t)x->pits);
    int hand = b[m], gain = 0, r = m;
    b[m] = 0;
    while (hand-- > 0) {
        r = r + 1 == ring ? 0 : r + 1;
        if (r == cups)
            gain++;
        else
            b[r < cups ? r : r - 1]++;
    }
    bool again = r == cups;
    if (r < cups && b[r] == 1 && b[2 * cups - 1 - r] > 0) {
        gain += 1 + b[2 * cups - 1 - r];   /* the capture */
        b[2 * cups - 1 - r] = 0;
        b[r] = 0;
    }
    int mine = row_sum(b, cups), theirs = row_sum(b + cups, cups);
    if (mine == 0 || theirs == 0)         /* the end: each row to its own store */
        return gain + mine - theirs;
    int left = mine + theirs;
    if (again)
        return gain + solve(x, b, left);
    int8_t turned[MAX_PITS];
    memcpy(turned, b + cups, (size_t)cups);
    memcpy(turned + cups, b, (size_t)cups);
    return gain - solve(x, turned, left);
}

static int solve(db_ctx *x, const int8_t *pits, int n)
{
    size_t idx = db_index(pits, x->pits, n);
    if (x->margin[idx] != UNKNOWN)
        return x->margin[idx];
    const int cups = x->cups;
    int mine = row_sum(pits, cups), theirs = n - mine;
    int best;
    if (mine == 0 || theirs == 0) {
        best = mine - theirs;             /* over: never a position to move in */
    } else {
        best = -128;
        for (int m = 0; m < cups; m++)
            if (pits[m] > 0) {
                int v = move_value(x, pits, m);
                if (v > best)
                    best = v;
            }
    }
    x->margin[idx] = (int8_t)best;
    return best;
}

/* Every distribution of n seeds over pits[i..P-1], in index order; false
 * when stopped (checked once per distribution of the first pits). */
static bool solve_all(db_ctx *x, int8_t *pits, int i, int left, int n,
                      const volatile int *stop)
{
    if (i == x->pits - 1) {
        pits[i] = (int8_t)left;
        solve(x, pits, n);
        return true;
    }
    if (i == x->pits - 4 && stop && *stop)
        return false;
    for (int a = 0; a <= left; a++) {
        pits[i] = (int8_t)a;
        if (!solve_all(x, pits, i + 1, left - a, n, stop))
            return false;
    }
    return true;
}

int game_kalah_db_build(int cups, int max_seeds, int8_t *margin, const volatile int *stop)
{
    if (!in_range(cups, max_seeds) || !margin)
        return -1;
    pthread_once(&choose_once, choose_build);
    db_ctx x = {.cups = cups, .pits = 2 * cups, .margin = margin};
    memset(margin, UNKNOWN, game_kalah_db_entries(cups, max_seeds));
    int8_t pits[MAX_PITS];
    for (int n = 0; n <= max_seeds; n++)
        if (!solve_all(&x, pits, 0, n, n, stop))
            return -1;
    return 0;
}

int game_kalah_db_probe(const game_kalah_db *db, const game_state *st, int *margin)
{
    if (!db || !db->margin || !st || st->kind != &game_kalah_kind || st->over ||
        st->cups != db->cups || st->seats != 2 || game__mancala_swap_open(st))
        return -1;
    const int cups = st->cups, mover = st->to_move;
    int8_t pits[MAX_PITS];
    int n = 0;
    for (int side = 0; side < 2; side++) {
        const int16_t *row = &st->cells[game_mancala_cup(st, side == 0 ? mover : 1 - mover, 0)];
        for (int c = 0; c < cups; c++) {
            n += row[c];
            if (n > db->max_seeds)
                return -1;
            pits[side * cups + c] = (int8_t)row[c];
        }
    }
    pthread_once(&choose_once, choose_build);
    size_t idx = db_index(pits, 2 * cups, n);
    if (idx >= db->entries)
        return -1;
    *margin = db->margin[idx];
    return 0;
}

int game_kalah_db_cups(const game_state *st)
{
    if (!st || st->kind != &game_kalah_kind || st->seats != 2 || !in_range(st->cups, 0))
        return 0;
    return st->cups;
}
