/*
 * endgame_reversi.c — exact reversi endgames for the bot (search_internal.h:
 * search_eval.solve) on the one-word boards, 4x4..8x8: the final disc
 * differential under perfect play by both seats, and a move that reaches
 * it. No evaluation anywhere: every leaf is a finished game, scored as the
 * rules score it (discs of each colour; empty cells count for nobody).
 *
 * A dedicated alpha-beta over two words per position (reversi_bits.h), fail-
 * soft, principal variation search, in three tiers by the number of empties:
 *  - the last empty: its flips for the mover, else for the opponent; no
 *    move list, no recursion;
 *  - up to EG_SHALLOW empties: no move generation either; the empty cells are
 *    tried in parity order (first those in a quadrant with an odd number of
 *    empties: a region where the mover can expect the last move), each tried
 *    by computing its flips;
 *  - deeper: the legal moves in fastest-first order (fewest replies for the
 *    opponent first; corners and odd quadrants break ties), and a table of
 *    proven bounds from EG_TT_MIN empties up, which also gives its best move
 *    first.
 * The table keeps [lower, upper] bounds of the exact value of a position,
 * which never go stale (a position's value does not depend on how it was
 * reached, nor on the search it came from), so it is never cleared; only a
 * search that finished stores anything. It lives in the searcher and is
 * allocated with it (game_search_new), never during a move's clock.
 *
 * The clock: the deadline and stop flag of the searcher, checked every
 * EG_CHECK + 1 nodes of the deep tier; an interrupted solve returns -1 and
 * the caller searches on without it.
 */
#include <string.h>

#include "search_internal.h"
#include "../reversi_bits.h"

#include <stdlib.h>
#include <time.h>

#define EG_SHALLOW 6           /* at or below: parity order, no move lists */
#define EG_TT_MIN 9            /* at or above: the table */
#define EG_TT_BITS 18          /* 2^18 entries of 16 bytes: 4 MiB */
#define EG_CHECK 4095
#define EG_INF 100             /* beyond any disc differential */

typedef struct eg_entry {
    uint64_t key;              /* position hash; 0 = empty slot */
    int8_t lo, hi;             /* the exact value lies in lo..hi */
    int8_t move;               /* best move found, -1 none */
    uint8_t unused[5];
} eg_entry;

struct search_solver {
    eg_entry *tt;              /* 1 << EG_TT_BITS entries */
    /* Set per solve. */
    const rv_bits *b;
    uint8_t quad[64];          /* quadrant bit (1, 2, 4, 8) of each cell */
    uint64_t odd_cells[16];    /* cells of the quadrants whose bit is set */
    uint64_t salt;             /* board size into the key */
    game_search *s;            /* deadline, stop flag, node count */
    long long nodes;
    bool aborted;
};

search_solver *search_solver_new(void)
{
    search_solver *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->tt = calloc((size_t)1 << EG_TT_BITS, sizeof *e->tt);
    if (!e->tt) {
        free(e);
        return NULL;
    }
    search_prefault(e->tt, ((size_t)1 << EG_TT_BITS) * sizeof *e->tt);
    return e;
}

void search_solver_reset(search_solver *e)
{
    memset(e->tt, 0, ((size_t)1 << EG_TT_BITS) * sizeof *e->tt);
}

void search_solver_free(search_solver *e)
{
    if (!e)
        return;
    free(e->tt);
    free(e);
}

static int64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int diff_of(uint64_t P, uint64_t O)
{
    return rv_count(P) - rv_count(O);
}

/* The mover P has the last empty cell sq to play, or passes it to O. */
static int solve_last(search_solver *e, uint64_t P, uint64_t O, int sq)
{
    e->nodes++;
    const int diff = diff_of(P, O);
    uint64_t f = rv_flips(sq, P, O, e->b);
    if (f)
        return diff + 1 + 2 * rv_count(f);
    f = rv_flips(sq, O, P, e->b);
    if (f)
        return diff - 1 - 2 * rv_count(f);
    return diff;
}

/* 2..EG_SHALLOW empties: every empty cell tried in parity order. */
static int solve_shallow(search_solver *e, uint64_t P, uint64_t O, int alpha, int beta,
                         unsigned parity, int empties)
{
    e->nodes++;
    const uint64_t E = e->b->board & ~(P | O);
    const uint64_t odd = e->odd_cells[parity];
    int best = -EG_INF;
    for (int round = 0; round < 2; round++) {
        for (uint64_t set = E & (round == 0 ? odd : ~odd); set; set &= set - 1) {
            const int sq = __builtin_ctzll(set);
            if (!(e->b->around[sq] & O))
                continue;                   /* no opponent disc next to it */
            const uint64_t f = rv_flips(sq, P, O, e->b);
            if (!f)
                continue;
            const uint64_t bit = 1ull << sq, mine = P | f | bit, theirs = O & ~f;
            int v;
            if (empties == 2)
                v = -solve_last(e, theirs, mine, __builtin_ctzll(E & ~bit));
            else
                v = -solve_shallow(e, theirs, mine, -beta, -alpha, parity ^ e->quad[sq],
                                   empties - 1);
            if (v > best) {
                best = v;
                if (v > alpha) {
                    alpha = v;
                    if (alpha >= beta)
                        return best;
                }
            }
        }
    }
    if (best > -EG_INF)
        return best;
    /* No move: a pass if the opponent has one, else the end. */
    if (!rv_moves(O, P, e->b))
        return diff_of(P, O);
    return -solve_shallow(e, O, P, -beta, -alpha, parity, empties);
}

static inline uint64_t tt_key(const search_solver *e, uint64_t P, uint64_t O)
{
    uint64_t k = search_mix64(P ^ e->salt) ^ search_mix64(O + 0x6a09e667f3bcc909ull);
    return k ? k : 1;
}

typedef struct eg_move {
    int sq;
    int key;
    uint64_t mine, theirs;     /* the position after it, mover's discs first */
} eg_move;

/* The legal moves of P in fastest-first order into list; returns the count. */
static int ordered_moves(search_solver *e, uint64_t P, uint64_t O, uint64_t moves,
                         unsigned parity, int first, eg_move *list)
{
    /* Corners of the board: a corner disc never flips. */
    const int n = e->b->n;
    const uint64_t corners = 1ull | 1ull << (n - 1) | 1ull << (n * (n - 1)) |
                             1ull << (n * n - 1);
    const uint64_t odd = e->odd_cells[parity];
    int count = 0;
    for (; moves; moves &= moves - 1) {
        const int sq = __builtin_ctzll(moves);
        const uint64_t bit = 1ull << sq, f = rv_flips(sq, P, O, e->b);
        eg_move m = {.sq = sq, .mine = P | f | bit, .theirs = O & ~f};
        m.key = -16 * rv_count(rv_moves(m.theirs, m.mine, e->b)) + (bit & corners ? 6 : 0) +
                (bit & odd ? 3 : 0) + (sq == first ? 10000 : 0);
        int i = count++;
        for (; i > 0 && list[i - 1].key < m.key; i--)
            list[i] = list[i - 1];
        list[i] = m;
    }
    return count;
}

static int solve_deep(search_solver *e, uint64_t P, uint64_t O, int alpha, int beta,
                      unsigned parity, int empties)
{
    if (empties <= EG_SHALLOW)
        return solve_shallow(e, P, O, alpha, beta, parity, empties);
    if ((++e->nodes & EG_CHECK) == 0 &&
        ((e->s->stop && *e->s->stop) || clock_ns() >= e->s->deadline_ns))
        e->aborted = true;
    if (e->aborted)
        return 0;
    const uint64_t moves = rv_moves(P, O, e->b);
    if (!moves) {
        if (!rv_moves(O, P, e->b))
            return diff_of(P, O);
        return -solve_deep(e, O, P, -beta, -alpha, parity, empties);
    }

    eg_entry *t = NULL;
    uint64_t key = 0;
    int first = -1;
    if (empties >= EG_TT_MIN) {
        key = tt_key(e, P, O);
        t = &e->tt[key & (((uint64_t)1 << EG_TT_BITS) - 1)];
        if (t->key == key) {
            if (t->lo >= beta || t->lo == t->hi)
                return t->lo;
            if (t->hi <= alpha)
                return t->hi;
            if (t->lo > alpha)
                alpha = t->lo;
            if (t->hi < beta)
                beta = t->hi;
            first = t->move;
        }
    }

    eg_move list[32];
    const int count = ordered_moves(e, P, O, moves, parity, first, list);
    const int alpha0 = alpha;
    int best = -EG_INF, best_sq = list[0].sq;
    for (int i = 0; i < count; i++) {
        const eg_move *m = &list[i];
        const unsigned cp = parity ^ e->quad[m->sq];
        int v;
        if (i == 0) {
            v = -solve_deep(e, m->theirs, m->mine, -beta, -alpha, cp, empties - 1);
        } else {
            v = -solve_deep(e, m->theirs, m->mine, -alpha - 1, -alpha, cp, empties - 1);
            if (v > alpha && v < beta && !e->aborted)
                v = -solve_deep(e, m->theirs, m->mine, -beta, -alpha, cp, empties - 1);
        }
        if (e->aborted)
            return 0;
        if (v > best) {
            best = v;
            best_sq = m->sq;
            if (v > alpha) {
                alpha = v;
                if (alpha >= beta)
                    break;
            }
        }
    }
    if (t) {
        if (t->key != key) {
            t->key = key;
            t->lo = -64;
            t->hi = 64;
        }
        /* Fail-soft: below the window best is an upper bound, above it a
         * lower bound, inside it the value. */
        if (best <= alpha0) {
            if (best < t->hi)
                t->hi = (int8_t)best;
        } else if (best >= beta) {
            if (best > t->lo)
                t->lo = (int8_t)best;
        } else {
            t->lo = t->hi = (int8_t)best;
        }
        t->move = (int8_t)best_sq;
    }
    return best;
}

int search_solve_reversi(game_search *s, const game_state *st, int *move, int *margin)
{
    search_solver *e = s->solver;
    const rv_bits *b = game__reversi_bits(st->size);
    if (!e || !b || st->over || (s->stop && *s->stop))
        return -1;
    /* priv: black in word 0, white in word 4, the mover's moves in word 8. */
    const uint64_t P = st->priv[st->to_move * 4], O = st->priv[(1 - st->to_move) * 4];
    const uint64_t moves = st->priv[8];
    if (!moves)
        return -1;
    const int n = b->n, h = n / 2;
    e->b = b;
    e->s = s;
    e->nodes = 0;
    e->aborted = false;
    e->salt = search_mix64(0x5e5e000000000000ull + (uint64_t)n);
    for (int q = 0; q < 16; q++)
        e->odd_cells[q] = 0;
    for (int c = 0; c < n * n; c++) {
        const int x = c % n, y = c / n;
        e->quad[c] = (uint8_t)(1u << ((x >= h) + 2 * (y >= h)));
        for (int q = 0; q < 16; q++)
            if (q & e->quad[c])
                e->odd_cells[q] |= 1ull << c;
    }
    const uint64_t E = b->board & ~(P | O);
    unsigned parity = 0;
    for (uint64_t x = E; x; x &= x - 1)
        parity ^= e->quad[__builtin_ctzll(x)];
    const int empties = rv_count(E);

    /* The root: every move with a window that still lets a better one show. */
    eg_move list[32];
    const int count = ordered_moves(e, P, O, moves, parity, -1, list);
    int best = -EG_INF, best_sq = list[0].sq;
    for (int i = 0; i < count && !e->aborted; i++) {
        const eg_move *m = &list[i];
        const unsigned cp = parity ^ e->quad[m->sq];
        int v;
        if (empties == 1)
            v = diff_of(m->mine, m->theirs);
        else if (i == 0)
            v = -solve_deep(e, m->theirs, m->mine, -EG_INF, EG_INF, cp, empties - 1);
        else {
            v = -solve_deep(e, m->theirs, m->mine, -best - 1, -best, cp, empties - 1);
            if (v > best && !e->aborted)
                v = -solve_deep(e, m->theirs, m->mine, -EG_INF, -best, cp, empties - 1);
        }
        if (!e->aborted && v > best) {
            best = v;
            best_sq = m->sq;
        }
    }
    s->nodes += e->nodes;
    if (e->aborted)
        return -1;
    *move = best_sq;
    *margin = best;
    return 0;
}
