/*
 * reversi_perft.c — reversi's own perft walk (games_internal.h) for the
 * boards of one word (4x4, 6x6, 8x8), on the bitboards of reversi_bits.h.
 *
 * The walk over game_state copies (perft.c) pays per node for a copy of a
 * few hundred bytes, the cells and the result the rules keep up to date, a
 * move list and two calls through the kind's table; this one keeps a
 * position as two words on the stack. It counts exactly what perft.c
 * counts (perft.h: a forced pass is a ply, a finished game has no moves, the
 * last ply is counted in bulk as the number of legal moves), which the tests
 * check against that walk on every one-word size.
 */
#include "games_internal.h"
#include "reversi_bits.h"

typedef struct rv_walk {
    long long *counts;     /* counts[d]: sequences of d plies */
    int depth;             /* deepest ply counted */
    const rv_bits *b;
} rv_walk;

static inline uint64_t moves_of(uint64_t P, uint64_t O, const rv_bits *b)
{
    /* One table per walk, so this branch always goes the same way. */
    return b->n == 8 ? rv_moves8(P, O) : rv_moves_loop(P, O, b);
}

/* Count the sequences continuing from P to move (with its legal `moves`,
 * not 0) against O, reached after `ply` plies (ply < depth). */
static void walk(const rv_walk *w, uint64_t P, uint64_t O, uint64_t moves, int ply)
{
    w->counts[ply + 1] += rv_count(moves);
    if (ply + 1 == w->depth)
        return;
    for (; moves; moves &= moves - 1) {
        const int sq = __builtin_ctzll(moves);
        const uint64_t f = rv_flips(sq, P, O, w->b);
        const uint64_t mine = P | f | (1ull << sq), theirs = O & ~f;
        const uint64_t reply = moves_of(theirs, mine, w->b);
        if (reply) {
            walk(w, theirs, mine, reply, ply + 1);
            continue;
        }
        const uint64_t again = moves_of(mine, theirs, w->b);
        if (!again)
            continue;                       /* neither can move: over */
        int p = ply + 1;
        w->counts[++p]++;                   /* the opponent's pass; p <= depth */
        if (p < w->depth)
            walk(w, mine, theirs, again, p);
    }
}

int game__reversi_perft(const game_state *st, int depth, long long *counts)
{
    const rv_bits *b = game__reversi_bits(st->size);
    if (!b || depth < 1 || depth > GAME_PERFT_MAX_DEPTH)
        return -1;
    counts[0] = 1;
    for (int d = 1; d <= depth; d++)
        counts[d] = 0;
    if (st->over)
        return 0;
    /* priv: black in word 0, white in word 4, the mover's moves in word 8. */
    const int mover = st->to_move;
    const uint64_t P = st->priv[mover * 4], O = st->priv[(1 - mover) * 4];
    const rv_walk w = {.counts = counts, .depth = depth, .b = b};
    walk(&w, P, O, st->priv[8], 0);
    return 0;
}
