/*
 * perft.c — counting move sequences to every depth in one walk (perft.h).
 *
 * Speed matters (the tool times the engines with it), so the walk does no
 * allocation and no checking per node: each level of the walk owns a state,
 * a result and a move list in the caller's workspace; a child position is a
 * copy of its parent's state — only the used part (the fields and the first
 * n_cells cells, a few dozen bytes for mancala kinds instead of 8 KiB) —
 * and the kind's own apply is called on moves its legal_moves produced, so
 * game_check is skipped. The last ply is counted in bulk: every legal move
 * there is one sequence whatever it leads to.
 *
 * A kind may have a walk of its own on its own representation (reversi on
 * one-word boards: reversi_perft.c); it is used when it handles the
 * position, and the tests compare it with the walk over states here.
 */
#include "perft.h"
#include "games_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct perft_walk {
    long long *counts;          /* counts[d]: sequences of d plies */
    game_perft_level *levels;   /* one per recursion level */
    int depth;                  /* deepest ply counted */
    size_t copy;                /* bytes of a state worth copying */
} perft_walk;

/* Count every sequence that continues from levels[level].st, reached after
 * `ply` plies (ply < depth, the position is not over). */
static void walk(const perft_walk *w, int level, int ply)
{
    game_perft_level *here = &w->levels[level];
    const game_kind *kind = here->st.kind;
    int n = kind->legal_moves(&here->st, here->moves, GAME_MAX_MOVES);
    w->counts[ply + 1] += n;
    if (ply + 1 == w->depth)
        return;
    game_perft_level *child = &w->levels[level + 1];
    for (int i = 0; i < n; i++) {
        memcpy(&child->st, &here->st, w->copy);
        kind->apply(&child->st, here->moves[i], &here->res);
        if (child->st.over)
            continue;
        /* Each seat skipped after the move is a ply of its own. */
        int p = ply + 1;
        for (int k = 0; k < here->res.n_passed && p < w->depth; k++)
            w->counts[++p]++;
        if (p < w->depth)
            walk(w, level + 1, p);
    }
}

/* Kinds with a walk of their own on their own representation (the same
 * counts, much faster: no state copies, no move lists, no calls through the
 * kind's table). Looked up by the kind's table, as search.c finds a kind's
 * evaluation. */
static const struct {
    const game_kind *kind;
    int (*walk)(const game_state *st, int depth, long long *counts);
} own_walks[] = {
    {&game_reversi_kind, game__reversi_perft},
};

int game_perft_counts(const game_state *st, int depth, long long *counts,
                      game_perft_level *levels)
{
    if (!st || !st->kind || !counts || !levels || depth < 1 || depth > GAME_PERFT_MAX_DEPTH)
        return -1;
    for (size_t i = 0; i < sizeof own_walks / sizeof own_walks[0]; i++)
        if (own_walks[i].kind == st->kind && own_walks[i].walk(st, depth, counts) == 0)
            return 0;
    return game__perft_counts_states(st, depth, counts, levels);
}

int game__perft_counts_states(const game_state *st, int depth, long long *counts,
                              game_perft_level *levels)
{
    if (!st || !st->kind || !counts || !levels || depth < 1 || depth > GAME_PERFT_MAX_DEPTH)
        return -1;
    counts[0] = 1;
    for (int d = 1; d <= depth; d++)
        counts[d] = 0;
    if (st->over)
        return 0;
    /* Whole copies once, so that the unused tail of every level's cells is
     * defined; the walk then copies only the used part. */
    for (int l = 0; l < depth; l++)
        levels[l].st = *st;
    perft_walk w = {
        .counts = counts,
        .levels = levels,
        .depth = depth,
        .copy = offsetof(game_state, cells) + (size_t)st->n_cells * sizeof st->cells[0],
    };
    walk(&w, 0, 0);
    return 0;
}

long long game_perft(const game_state *st, int depth)
{
    if (!st || !st->kind || depth < 0 || depth > GAME_PERFT_MAX_DEPTH)
        return -1;
    if (depth == 0)
        return 1;
    long long counts[GAME_PERFT_MAX_DEPTH + 1];
    game_perft_level *levels = calloc((size_t)depth, sizeof *levels);
    if (!levels)
        return -1;
    int rc = game_perft_counts(st, depth, counts, levels);
    free(levels);
    return rc == 0 ? counts[depth] : -1;
}
