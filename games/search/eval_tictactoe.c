/*
 * eval_tictactoe.c — what the search knows about n-dimensional tic-tac-toe:
 * the linear evaluation over lines of seed 002, kept incrementally, threat
 * detection and move ordering (search_internal.h).
 *
 * Every line of the board is scored and the scores are added up: a line
 * holding marks of one seat only is worth weight[c] = 4^c to that seat for
 * its c marks (for the root, against it for anyone else — the paranoid view
 * when there are more than two seats); a line with marks of two seats is
 * dead and worth nothing. A line with n-1 marks of one seat and one empty
 * cell is a threat. Rather than re-examine every line at every node (seed
 * 002's concern), the search keeps, per line, the marks of each seat, the
 * seats present, the sum and the threats per seat, and updates them for the
 * lines through the cell of each move (make / unmake): O(lines through a
 * cell) per move.
 *
 * Decided results used by the evaluation and the ordering:
 *  - the seat to move with a threat wins with its next move;
 *  - with two seats, the opponent of the seat to move with threats on two
 *    different empty cells (and none for the mover) wins in two plies;
 *  - with two seats, a mover facing a threat must block it (every other move
 *    loses at once), so the ordering keeps only the blocking cells; a mover
 *    with a threat of its own keeps only the winning cell.
 * The hash is Zobrist, incremental: one key xored per move.
 */
#include "search_internal.h"

#include <string.h>

static void build_tables(search_ttt *t, int n, int d)
{
    int lines = game__tictactoe_line_count(n, d);
    int cells = 1;
    for (int i = 0; i < d; i++)
        cells *= n;
    int line[8];
    for (int l = 0; l < lines; l++) {
        game__tictactoe_line(n, d, l, line);
        for (int k = 0; k < n; k++)
            t->line_cells[l * n + k] = (int16_t)line[k];
    }
    memset(t->first, 0, sizeof t->first[0] * (size_t)(cells + 1));
    for (int e = 0; e < lines * n; e++)
        t->first[t->line_cells[e] + 1]++;
    for (int c = 0; c < cells; c++)
        t->first[c + 1] += t->first[c];
    /* Place each line in the lists of its cells, by a cursor per cell. */
    int32_t fill[GAME_MAX_CELLS];
    for (int c = 0; c < cells; c++)
        fill[c] = t->first[c];
    for (int l = 0; l < lines; l++)
        for (int k = 0; k < n; k++)
            t->through[fill[t->line_cells[l * n + k]]++] = (int16_t)l;
    t->n = n;
    t->d = d;
    t->lines = lines;
    t->cells = cells;
}

/* The seat whose threat line l is, or -1. */
static inline int threat_of(const search_ttt *t, int l)
{
    uint8_t o = t->owners[l];
    if (o == 0 || (o & (o - 1)) != 0)
        return -1;
    int seat = __builtin_ctz(o);
    return t->count[l][seat] == t->n - 1 ? seat : -1;
}

/* The value of line l for `root`. */
static inline int line_value(const search_ttt *t, int l, int root)
{
    uint8_t o = t->owners[l];
    if (o == 0 || (o & (o - 1)) != 0)
        return 0;
    int seat = __builtin_ctz(o);
    int w = t->weight[t->count[l][seat]];
    return seat == root ? w : -w;
}

static void ttt_prepare(game_search *s, const game_state *root)
{
    search_ttt *t = s->ttt;
    if (t->n != root->size || t->d != root->dims)
        build_tables(t, root->size, root->dims);
    const int n = t->n;
    t->weight[0] = 0;
    for (int c = 1; c <= n; c++)
        t->weight[c] = 1 << (2 * c);
    memset(t->count, 0, sizeof t->count[0] * (size_t)t->lines);
    memset(t->owners, 0, sizeof t->owners[0] * (size_t)t->lines);
    memset(t->threats, 0, sizeof t->threats);
    t->sum = 0;
    for (int l = 0; l < t->lines; l++) {
        for (int k = 0; k < n; k++) {
            int v = root->cells[t->line_cells[l * n + k]];
            if (v > 0 && v <= GAME_MAX_SEATS) {
                t->count[l][v - 1]++;
                t->owners[l] |= (uint8_t)(1u << (v - 1));
            }
        }
        int th = threat_of(t, l);
        if (th >= 0)
            t->threats[th]++;
        t->sum += line_value(t, l, s->root);
    }
}

static void ttt_make(game_search *s, const game_state *parent, int move)
{
    search_ttt *t = s->ttt;
    const int seat = parent->to_move, root = s->root;
    for (int i = t->first[move]; i < t->first[move + 1]; i++) {
        int l = t->through[i];
        int th = threat_of(t, l);
        if (th >= 0)
            t->threats[th]--;
        t->sum -= line_value(t, l, root);
        t->count[l][seat]++;
        t->owners[l] |= (uint8_t)(1u << seat);
        th = threat_of(t, l);
        if (th >= 0)
            t->threats[th]++;
        t->sum += line_value(t, l, root);
    }
}

static void ttt_unmake(game_search *s, const game_state *parent, int move)
{
    search_ttt *t = s->ttt;
    const int seat = parent->to_move, root = s->root;
    for (int i = t->first[move]; i < t->first[move + 1]; i++) {
        int l = t->through[i];
        int th = threat_of(t, l);
        if (th >= 0)
            t->threats[th]--;
        t->sum -= line_value(t, l, root);
        if (--t->count[l][seat] == 0)
            t->owners[l] &= (uint8_t)~(1u << seat);
        th = threat_of(t, l);
        if (th >= 0)
            t->threats[th]++;
        t->sum += line_value(t, l, root);
    }
}

/* The empty cells completing a threat of `seat`, distinct, into cells[]
 * (at most max); returns how many. */
static int threat_cells(const search_ttt *t, const game_state *st, int seat, int *cells,
                        int max)
{
    int count = 0;
    for (int l = 0; l < t->lines && count < max; l++) {
        if (threat_of(t, l) != seat)
            continue;
        const int16_t *lc = &t->line_cells[l * t->n];
        for (int k = 0; k < t->n; k++)
            if (st->cells[lc[k]] == 0) {
                int c = lc[k], seen = 0;
                for (int j = 0; j < count; j++)
                    seen |= cells[j] == c;
                if (!seen)
                    cells[count++] = c;
                break;
            }
    }
    return count;
}

static int ttt_evaluate(game_search *s, const game_state *st, int ply, bool *proven)
{
    const search_ttt *t = s->ttt;
    const int mover = st->to_move, root = s->root;
    if (t->threats[mover] > 0) {
        *proven = true;
        return search_decided(mover == root ? 1 : -1, ply + 1);
    }
    if (st->seats == 2 && t->threats[1 - mover] >= 2) {
        int cells[2];
        if (threat_cells(t, st, 1 - mover, cells, 2) >= 2) {
            *proven = true;
            return search_decided(mover == root ? -1 : 1, ply + 2);
        }
    }
    return t->sum;
}

static int ttt_order(game_search *s, const game_state *st, int *moves, int64_t *keys, int n)
{
    const search_ttt *t = s->ttt;
    const int mover = st->to_move;
    int forced[GAME_MAX_SEATS * 8];
    int nf = 0;
    if (t->threats[mover] > 0)
        nf = threat_cells(t, st, mover, forced, 1);
    else if (st->seats == 2 && t->threats[1 - mover] > 0)
        nf = threat_cells(t, st, 1 - mover, forced, (int)(sizeof forced / sizeof forced[0]));
    if (nf > 0) {
        for (int i = 0; i < nf; i++) {
            moves[i] = forced[i];
            keys[i] = 0;
        }
        return nf;
    }
    const uint8_t me = (uint8_t)(1u << mover);
    for (int i = 0; i < n; i++) {
        int c = moves[i];
        int64_t key = 0;
        for (int j = t->first[c]; j < t->first[c + 1]; j++) {
            int l = t->through[j];
            uint8_t o = t->owners[l];
            if (o == 0)
                key += 1;
            else if (o == me)
                key += 2 * t->weight[t->count[l][mover] + 1];
            else if ((o & (o - 1)) == 0)
                key += t->weight[t->count[l][__builtin_ctz(o)]];
        }
        keys[i] = key;
    }
    return n;
}

static uint64_t ttt_hash(const game_search *s, const game_state *parent, uint64_t parent_hash,
                         int move, const game_state *st)
{
    (void)s;
    if (parent)
        return parent_hash ^ search_zkey(move, parent->to_move + 1);
    uint64_t h = 0;
    for (int i = 0; i < st->n_cells; i++)
        if (st->cells[i])
            h ^= search_zkey(i, st->cells[i]);
    return h;
}

const search_eval search_eval_tictactoe = {
    .kind = &game_tictactoe_kind,
    .prepare = ttt_prepare,
    .hash = ttt_hash,
    .make = ttt_make,
    .unmake = ttt_unmake,
    .evaluate = ttt_evaluate,
    .order = ttt_order,
    .unit = 16,
    .judge = {100, 200, 400},
    .win_scale = 200,
    .depth = 6,
};
