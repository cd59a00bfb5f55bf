/*
 * eval_mancala.c — what the search knows about the mancala kinds (sungka,
 * congklak, kalah): hashing, evaluation and move ordering (search_internal.h).
 *
 * Hash: the xor of the Zobrist keys of every non-empty cell and its count
 * (cached for counts below SEARCH_ZCOUNTS), recomputed per node: at most 78
 * cells, cheaper than tracking a sowing that may lap the board.
 *
 * Evaluation, for the root seat against the best of the others: a guess of
 * the final margin (the result of a mancala game), 16 per stone of home
 * difference, plus stones in the own row against the others' average
 * (weight per kind: in congklak and kalah they go to the own store at the
 * end, in sungka they go round), plus a little for the extra-turn moves the
 * seat to move has; scaled to SEARCH_MARGIN per stone, the scale of exact
 * results (search_result_value). A lead the others can no longer catch
 * says who wins but not by how much, so it is not a proven value either.
 *
 * Kalah's endgame table (kalah_db.h), when the searcher has one, gives the
 * exact value of positions with few seeds left (probe).
 *
 * Ordering: moves whose last stone reaches the own home on the first lap
 * (an extra turn) first, then first-lap captures by the stones they take,
 * then cups nearer the home.
 */
#include "search_internal.h"
#include "kalah_db.h"

#include <limits.h>

typedef struct mancala_params {
    int row_weight;   /* per stone in the own row (a home stone is 16) */
    int tempo_weight; /* per extra-turn move of the seat to move */
} mancala_params;

static uint64_t mancala_hash(const game_search *s, const game_state *parent,
                             uint64_t parent_hash, int move, const game_state *st)
{
    (void)parent, (void)parent_hash, (void)move;
    /* priv[0]: whether the pie rule's swap is still open, which the board
     * does not show (games_internal.h). */
    uint64_t h = st->priv[0] ? search_mix64(0x5a7a9 + st->priv[0]) : 0;
    for (int i = 0; i < st->n_cells; i++)
        if (st->cells[i])
            h ^= search_zkey_cached(s, i, st->cells[i]);
    return h;
}

/* Steps along the ring from a cup of the mover back to its own home: the
 * mover sows its own home and skips every other home. */
static inline int ring_length(const game_state *st)
{
    return st->seats * st->cups + 1;
}

/* Does cup c of the mover, holding k stones, end its first lap in the home? */
static inline bool reaches_home(const game_state *st, int c, int k)
{
    int dist = st->cups - c;
    return k >= dist && (k - dist) % ring_length(st) == 0;
}

static int mancala_evaluate(const game_search *s, const game_state *st, int ply, bool *proven,
                            const mancala_params *p)
{
    const int seats = st->seats, cups = st->cups, r = s->root;
    int home[GAME_MAX_SEATS] = {0}, row[GAME_MAX_SEATS] = {0}, in_play = 0;
    for (int i = 0; i < seats; i++) {
        const int16_t *cells = &st->cells[game_mancala_cup(st, i, 0)];
        int sum = 0;
        for (int c = 0; c < cups; c++)
            sum += cells[c];
        row[i] = sum;
        home[i] = cells[cups];
        in_play += sum;
    }
    int best = INT_MIN, others_row = 0;
    for (int i = 0; i < seats; i++)
        if (i != r) {
            others_row += row[i];
            if (home[i] > best)
                best = home[i];
        }
    /* A guess of the final margin, 16 to a stone: even a lead the others
     * can no longer catch says who wins but not by how much, and the
     * margin is the result (search.h), so it stays a guess. */
    (void)proven, (void)ply, (void)in_play;
    int v = 16 * (home[r] - best) + p->row_weight * (row[r] - others_row / (seats - 1));
    if (p->tempo_weight) {
        const int16_t *cells = &st->cells[game_mancala_cup(st, st->to_move, 0)];
        int extra = 0;
        for (int c = 0; c < cups; c++)
            extra += cells[c] > 0 && reaches_home(st, c, cells[c]);
        v += (st->to_move == r ? 1 : -1) * p->tempo_weight * extra;
    }
    return v * (SEARCH_MARGIN / 16);   /* on the scale of exact margins */
}

static int mancala_order(game_search *s, const game_state *st, int *moves, int64_t *keys, int n)
{
    (void)s;
    const int cups = st->cups, mover = st->to_move;
    const int next = (mover + 1) % st->seats;
    const int16_t *row = &st->cells[game_mancala_cup(st, mover, 0)];
    for (int i = 0; i < n; i++) {
        int c = moves[i];
        if (c == GAME_MOVE_SWAP) {
            keys[i] = 1 << 21; /* the pie rule's offer: decide it first */
            continue;
        }
        int k = row[c];
        int64_t key = c; /* nearer the home first */
        if (reaches_home(st, c, k)) {
            key += 1 << 20;
        } else if (k < cups - c && row[c + k] == 0) {
            int opp = st->cells[game_mancala_cup(st, next, cups - 1 - (c + k))];
            key += (1 << 10) + 16 * (int64_t)opp;
        }
        keys[i] = key;
    }
    return n;
}

/* The seeds left in the pits: the "empties" of the levels' endgame. */
static int mancala_moves_left(const game_state *st)
{
    int n = 0;
    for (int s = 0; s < st->seats; s++)
        for (int c = 0; c < st->cups; c++)
            n += st->cells[game_mancala_cup(st, s, c)];
    return n;
}

/* Kalah's endgame table (kalah_db.h), when the searcher was handed one. */
static int kalah_probe(game_search *s, const game_state *st, int ply, int *value)
{
    int margin;
    if (!s->tables || game_kalah_db_probe(s->tables, st, &margin) != 0)
        return 0;
    const int mover = st->to_move;
    margin += st->cells[game_mancala_home(st, mover)] - st->cells[game_mancala_home(st, 1 - mover)];
    *value = search_result_value(s, mover == s->root ? margin : -margin, ply);
    return 1;
}

static const mancala_params sungka_params = {.row_weight = 2, .tempo_weight = 4};
static const mancala_params congklak_params = {.row_weight = 4, .tempo_weight = 4};
static const mancala_params kalah_params = {.row_weight = 4, .tempo_weight = 8};

static int sungka_evaluate(game_search *s, const game_state *st, int ply, bool *proven)
{
    return mancala_evaluate(s, st, ply, proven, &sungka_params);
}

static int congklak_evaluate(game_search *s, const game_state *st, int ply, bool *proven)
{
    return mancala_evaluate(s, st, ply, proven, &congklak_params);
}

static int kalah_evaluate(game_search *s, const game_state *st, int ply, bool *proven)
{
    return mancala_evaluate(s, st, ply, proven, &kalah_params);
}

const search_eval search_eval_sungka = {
    .kind = &game_sungka_kind,
    .hash = mancala_hash,
    .evaluate = sungka_evaluate,
    .order = mancala_order,
    .moves_left = mancala_moves_left,
    .exact_margins = true,
    .unit = SEARCH_MARGIN,
    .judge = {150, 300, 600},
    .win_scale = 300,
    .depth = 10,
};

const search_eval search_eval_congklak = {
    .kind = &game_congklak_kind,
    .hash = mancala_hash,
    .evaluate = congklak_evaluate,
    .order = mancala_order,
    .moves_left = mancala_moves_left,
    .exact_margins = true,
    .unit = SEARCH_MARGIN,
    .judge = {150, 300, 600},
    .win_scale = 300,
    .depth = 10,
};

const search_eval search_eval_kalah = {
    .kind = &game_kalah_kind,
    .hash = mancala_hash,
    .evaluate = kalah_evaluate,
    .order = mancala_order,
    .moves_left = mancala_moves_left,
    .exact_margins = true,
    .probe = kalah_probe,
    .unit = SEARCH_MARGIN,
    .judge = {150, 300, 600},
    .win_scale = 300,
    .depth = 10,
};
