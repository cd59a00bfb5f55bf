/*
 * reversi_bits.h — reversi on one 64-bit word per colour: the boards of 4x4,
 * 6x6 and 8x8 (bit y*n+x is cell (x, y), as in reversi.c). Shared by the
 * rules (reversi.c), their perft walk (reversi_perft.c) and the bot's exact
 * endgame solver (search/endgame_reversi.c); internal to games/ — the rest of
 * the system sees game_state only.
 *
 * P is always the mover's discs and O the opponent's.
 *  - Legal moves: for 8x8 a parallel-prefix (Kogge-Stone) fill per direction
 *    pair with constant shifts and masks: a run of up to 6 opponent discs is
 *    found in 4 shift steps instead of 6. Other sizes use the plain shift
 *    loop (n - 3 steps) with the size's landing masks; 8x8 can use it too,
 *    which is how the tests check the fill.
 *  - Flips: per direction, the ray of cells from the move to the edge (a
 *    table per size). The first cell on the ray that is not the opponent's
 *    — the lowest set bit for rays towards higher cells, the highest for the
 *    others — closes the run when it is the mover's; the run is the ray
 *    before it. No loop over cells.
 *
 * Tables: built once per process (pthread_once inside game__reversi_bits),
 * read-only afterwards, so any thread may use them. Hot loops fetch the
 * table once and pass it down.
 */
#ifndef SUNGKA_GAMES_REVERSI_BITS_H
#define SUNGKA_GAMES_REVERSI_BITS_H

#include <stdint.h>

/* Directions: 0..3 go towards higher cells (E +1, S +n, SE +n+1, SW +n-1),
 * 4..7 are their opposites (W, N, NW, NE). */
enum { RV_DIRS = 8 };

typedef struct rv_bits {
    int n;                          /* side: 4, 6 or 8 */
    int shift[4];                   /* 1, n, n+1, n-1 */
    uint64_t board;                 /* every cell */
    uint64_t land[RV_DIRS];         /* cells a disc may land on after a step in
                                     * that direction (no wrap round an edge) */
    uint64_t ray[64][RV_DIRS];      /* cells from a cell to the edge, exclusive */
    uint64_t around[64];            /* the up to 8 cells next to a cell: a move
                                     * must have an opponent disc among them */
} rv_bits;

/* The tables of side n (4, 6 or 8; anything else gives NULL). */
const rv_bits *game__reversi_bits(int n);

/* Moves of P against O on 8x8: both directions of one line at once. */
static inline uint64_t rv_fill8(uint64_t P, uint64_t mask, int s)
{
    uint64_t l = mask & (P << s), r = mask & (P >> s);
    l |= mask & (l << s);
    r |= mask & (r >> s);
    /* Runs of 2 now; pairs of inner cells let each step add two more. */
    const uint64_t pl = mask & (mask << s), pr = pl >> s;
    l |= pl & (l << 2 * s);
    r |= pr & (r >> 2 * s);
    l |= pl & (l << 2 * s);
    r |= pr & (r >> 2 * s);
    return (l << s) | (r >> s);
}

static inline uint64_t rv_moves8(uint64_t P, uint64_t O)
{
    /* Opponent discs that can be inside a run: not on the a/h columns for
     * lines with a horizontal step, not on rows 1/8 for vertical steps. */
    const uint64_t inner_x = O & 0x7e7e7e7e7e7e7e7eull;
    const uint64_t inner_y = O & 0x00ffffffffffff00ull;
    const uint64_t inner_xy = O & 0x007e7e7e7e7e7e00ull;
    uint64_t m = rv_fill8(P, inner_x, 1) | rv_fill8(P, inner_y, 8) |
                 rv_fill8(P, inner_xy, 7) | rv_fill8(P, inner_xy, 9);
    return m & ~(P | O);
}

/* Moves of P against O on any one-word size, by the plain shift loop. */
static inline uint64_t rv_moves_loop(uint64_t P, uint64_t O, const rv_bits *b)
{
    const uint64_t empty = b->board & ~(P | O);
    uint64_t moves = 0;
    for (int k = 0; k < 4; k++) {
        const int s = b->shift[k];
        const uint64_t ml = b->land[k], mr = b->land[k + 4];
        const uint64_t ol = O & ml, orr = O & mr;
        uint64_t l = (P << s) & ol, r = (P >> s) & orr;
        for (int i = 0; i < b->n - 3; i++) {
            l |= (l << s) & ol;
            r |= (r >> s) & orr;
        }
        moves |= (((l << s) & ml) | ((r >> s) & mr)) & empty;
    }
    return moves;
}

static inline uint64_t rv_moves(uint64_t P, uint64_t O, const rv_bits *b)
{
    return b->n == 8 ? rv_moves8(P, O) : rv_moves_loop(P, O, b);
}

/* The run on ray r (towards higher cells) that P closes: the first cell that
 * is not O is the lowest set bit of r & ~O; if it is P's, the run is the ray
 * below it. Branch-free: outflank is 0 when there is no run. */
static inline uint64_t rv_run_up(uint64_t r, uint64_t P, uint64_t O)
{
    const uint64_t x = r & ~O;
    const uint64_t outflank = x & (0 - x) & P;
    return r & (outflank - 1) & (0 - (uint64_t)(outflank != 0));
}

/* The same towards lower cells: the first cell is the highest set bit. With
 * x = 0 (the ray is all O) bit 0 stands in, which is then O or off the ray,
 * so `& r` drops it. */
static inline uint64_t rv_run_down(uint64_t r, uint64_t P, uint64_t O)
{
    const uint64_t x = (r & ~O) | 1;
    const uint64_t outflank = (1ull << (63 - __builtin_clzll(x))) & P & r;
    return r & (0 - (outflank << 1));   /* the ray beyond it; 0 without it */
}

/* Discs P flips by playing the empty cell sq (0 when it flips nothing).
 * Inlined everywhere: a call costs as much as the work in the hot loops. */
static inline __attribute__((always_inline)) uint64_t rv_flips(int sq, uint64_t P, uint64_t O, const rv_bits *b)
{
    const uint64_t *ray = b->ray[sq];
    return rv_run_up(ray[0], P, O) | rv_run_up(ray[1], P, O) | rv_run_up(ray[2], P, O) |
           rv_run_up(ray[3], P, O) | rv_run_down(ray[4], P, O) | rv_run_down(ray[5], P, O) |
           rv_run_down(ray[6], P, O) | rv_run_down(ray[7], P, O);
}

/* Discs in x: __builtin_popcountll is a library call unless the build
 * targets a CPU with POPCNT, which this project does not assume. */
static inline int rv_count(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

#endif /* SUNGKA_GAMES_REVERSI_BITS_H */
