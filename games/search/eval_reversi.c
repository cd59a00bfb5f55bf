/*
 * eval_reversi.c — what the search knows about reversi: hashing, evaluation,
 * move ordering and the count of empty cells for exact endgame solving
 * (search_internal.h).
 *
 * It reads the kind's bitboards (reversi.c): priv[0..3] black, priv[4..7]
 * white, priv[8..11] the legal moves of the seat to move; bit i = cell i.
 *
 * Hash: the bitboards mixed word by word (search_mix64 of each, with a
 * different constant per colour and word) and xored — a Zobrist hash whose
 * key of a whole word is computed instead of looked up.
 *
 * Evaluation (root's point of view; about 8 points per disc-equivalent):
 *  - mobility: moves of each side. The seat to move's come from priv; the
 *    other's are found here with reversi_bits.h on boards of up to 8x8.
 *    Larger boards use only the mover's moves, as a tempo term;
 *  - corners (+40), and the X- and C-squares next to an empty corner (-15,
 *    -6): they hand that corner to the opponent;
 *  - stable discs (+10): runs of one colour along an edge from a corner it
 *    owns, and every disc of a full edge (an edge disc can only be flipped
 *    along its edge);
 *  - frontier (8x8 only): discs beside an empty cell (-3 each), the
 *    opponent's potential mobility;
 *  - parity: with an odd number of empty cells the seat to move expects the
 *    last move (+6);
 *  - discs themselves only late (x1 after half the board is full, x4 in the
 *    last quarter), since early on fewer discs tend to mean more mobility.
 * Endgame: when the empty cells are few enough for the level (moves_left),
 * search.c hands boards of up to 8x8 to the exact solver of
 * endgame_reversi.c, and searches larger ones to the end itself.
 */
#include "search_internal.h"
#include "../reversi_bits.h"

#define RVW 4 /* words per bitboard */

static inline int pop(uint64_t x)
{
    return __builtin_popcountll(x);
}

static inline int pop4(const uint64_t *b, int words)
{
    int c = 0;
    for (int w = 0; w < words; w++)
        c += pop(b[w]);
    return c;
}

static inline int words_of(int n)
{
    return (n * n + 63) / 64;
}

static uint64_t reversi_hash(const game_search *s, const game_state *parent,
                             uint64_t parent_hash, int move, const game_state *st)
{
    (void)s, (void)parent, (void)parent_hash, (void)move;
    uint64_t h = 0;
    int words = words_of(st->size);
    for (int w = 0; w < words; w++) {
        h ^= search_mix64(st->priv[w] ^ (0x1111000000000000ull + (uint64_t)w));
        h ^= search_mix64(st->priv[RVW + w] ^ (0x2222000000000000ull + (uint64_t)w));
    }
    return h;
}

static inline void mark(uint64_t *b, int i)
{
    b[i >> 6] |= 1ull << (i & 63);
}

/* Stable discs of both colours found from the edges into stable[RVW]. */
static void edge_stable(const game_state *st, uint64_t *stable)
{
    const int n = st->size;
    const int16_t *c = st->cells;
    for (int w = 0; w < RVW; w++)
        stable[w] = 0;
    /* The four edges as (start, step): top, bottom, left, right. */
    const int start[4] = {0, (n - 1) * n, 0, n - 1};
    const int step[4] = {1, 1, n, n};
    for (int e = 0; e < 4; e++) {
        int a = start[e], d = step[e], full = 1;
        for (int k = 0; k < n; k++)
            if (c[a + k * d] == 0) {
                full = 0;
                break;
            }
        if (full) {
            for (int k = 0; k < n; k++)
                mark(stable, a + k * d);
            continue;
        }
        /* Runs from each end that holds a disc. */
        int v = c[a];
        for (int k = 0; v && k < n && c[a + k * d] == v; k++)
            mark(stable, a + k * d);
        int b = a + (n - 1) * d;
        v = c[b];
        for (int k = 0; v && k < n && c[b - k * d] == v; k++)
            mark(stable, b - k * d);
    }
}

/* The cells next to (or among) those of x on the 8x8 board, in all eight
 * directions; the masks keep a shift from wrapping round a row's end. */
static inline uint64_t dilate8(uint64_t x)
{
    const uint64_t not_a = 0xfefefefefefefefeull, not_h = 0x7f7f7f7f7f7f7f7full;
    uint64_t row = x | ((x << 1) & not_a) | ((x >> 1) & not_h);
    return row | (row << 8) | (row >> 8);
}

static int reversi_evaluate(game_search *s, const game_state *st, int ply, bool *proven)
{
    (void)ply, (void)proven;
    const int n = st->size, r = s->root, words = words_of(n);
    const int mover = st->to_move;
    const uint64_t *mine = &st->priv[r * RVW], *theirs = &st->priv[(1 - r) * RVW];
    const int16_t *c = st->cells;
    const int my_discs = pop4(mine, words), their_discs = pop4(theirs, words);
    const int empties = n * n - my_discs - their_discs;
    const int sign_to_move = mover == r ? 1 : -1;
    int v = 0;

    /* Mobility. */
    int mob_mover = pop4(&st->priv[2 * RVW], words);
    if (words == 1) {
        int mob_other = pop(rv_moves(st->priv[(1 - mover) * RVW], st->priv[mover * RVW],
                                     game__reversi_bits(n)));
        v += 8 * sign_to_move * (mob_mover - mob_other);
    } else {
        v += 4 * sign_to_move * mob_mover;
    }

    /* Corners and the squares next to them. */
    const int corner[4][2] = {{0, 0}, {n - 1, 0}, {0, n - 1}, {n - 1, n - 1}};
    const int root_v = r + 1;
    for (int k = 0; k < 4; k++) {
        int x = corner[k][0], y = corner[k][1];
        int dx = x == 0 ? 1 : -1, dy = y == 0 ? 1 : -1;
        int cv = c[y * n + x];
        if (cv) {
            v += cv == root_v ? 40 : -40;
            continue;
        }
        int xs = c[(y + dy) * n + x + dx];
        if (xs)
            v += xs == root_v ? -15 : 15;
        int c1 = c[y * n + x + dx], c2 = c[(y + dy) * n + x];
        if (c1)
            v += c1 == root_v ? -6 : 6;
        if (c2)
            v += c2 == root_v ? -6 : 6;
    }

    /* Stability. */
    uint64_t stable[RVW];
    edge_stable(st, stable);
    int st_mine = 0, st_theirs = 0;
    for (int w = 0; w < words; w++) {
        st_mine += pop(stable[w] & mine[w]);
        st_theirs += pop(stable[w] & theirs[w]);
    }
    v += 10 * (st_mine - st_theirs);

    /* Frontier (8x8): discs beside an empty cell give the opponent moves
     * later, so fewer of one's own is better (potential mobility). */
    if (n == 8) {
        uint64_t m = mine[0], t = theirs[0], near_empty = dilate8(~(m | t));
        v -= 3 * (pop(m & near_empty) - pop(t & near_empty));
    }

    /* Parity and discs. */
    if (empties & 1)
        v += 6 * sign_to_move;
    if (empties * 4 < n * n)
        v += 4 * (my_discs - their_discs);
    else if (empties * 2 < n * n)
        v += my_discs - their_discs;
    return v;
}

/* Corners first, then edges, then the inside, then the C- and X-squares of
 * an empty corner. */
static int reversi_order(game_search *s, const game_state *st, int *moves, int64_t *keys, int n)
{
    (void)s;
    const int size = st->size, last = size - 1;
    for (int i = 0; i < n; i++) {
        int m = moves[i], x = m % size, y = m / size;
        bool ex = x == 0 || x == last, ey = y == 0 || y == last;
        int64_t key = 2;
        if (ex && ey) {
            key = 5;
        } else {
            /* Next to a corner? (x, y within 1 of it.) */
            int cx = x <= 1 ? 0 : x >= last - 1 ? last : -1;
            int cy = y <= 1 ? 0 : y >= last - 1 ? last : -1;
            if (cx >= 0 && cy >= 0 && st->cells[cy * size + cx] == 0)
                key = ex || ey ? 1 : 0;
            else if (ex || ey)
                key = 3;
        }
        keys[i] = key;
    }
    return n;
}

static int reversi_moves_left(const game_state *st)
{
    int words = words_of(st->size);
    return st->size * st->size - pop4(&st->priv[0], words) - pop4(&st->priv[RVW], words);
}

const search_eval search_eval_reversi = {
    .kind = &game_reversi_kind,
    .hash = reversi_hash,
    .evaluate = reversi_evaluate,
    .order = reversi_order,
    .moves_left = reversi_moves_left,
    .solve = search_solve_reversi,
    .unit = 8,
    .judge = {300, 600, 1200},
    .win_scale = 500,
    .depth = 6,
};
