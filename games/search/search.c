/*
 * search.c — the game-tree search of search.h: iterative deepening over an
 * alpha-beta search with a transposition table, for any kind of games.h.
 *
 * Who is on which side. A search is from the point of view of one seat, the
 * root (the bot). Every seat is on a team: the root's team 0, everyone else
 * team 1. With two seats that is plain two-player negamax. A node's value is
 * from the point of view of the team to move there, and a child is negated
 * only if the team to move changes: after an extra turn (mancala) or an
 * opponent's pass (reversi) the same seat moves again and the same side goes
 * on maximising — the tree is a minimax over "who is to move", not over
 * strict alternation.
 *
 * More than two seats: the paranoid reduction (Sturtevant & Korf 2000) —
 * every other seat is assumed to play against the root. We chose it over
 * max-n because it is a two-sided game again, so alpha-beta prunes as deeply
 * as in two-player games (max-n can only prune shallowly, as each seat
 * maximises its own component of a score vector), which buys several plies
 * in the same time; it is also simpler and shares every line of code with
 * the two-seat search. Its known weakness is pessimism (it expects a
 * coalition that rarely exists), which costs little against the casual or
 * random players a bot meets; Sturtevant's comparisons (2002) found the
 * extra depth usually worth more than max-n's optimism at equal time.
 *
 * Transposition table. A bucket of two 16-byte entries: the first keeps the
 * deepest (or newest-search) result, the second is always replaced. The key
 * is the kind's board hash (search_internal.h: Zobrist keys of (cell, value);
 * tic-tac-toe updates it incrementally, mancala kinds recompute it from their
 * few cells with cached keys, reversi mixes its bitboards), xor a key for the
 * seat to move, xor a salt of the kind and its options (and of the root seat
 * when there are more than two seats, since paranoid values depend on it).
 * Each entry also says whether its value used a heuristic leaf; one that did
 * not is a proven value and is used at any remaining depth.
 *
 * Move ordering: the table's move first, then the kind's keys (eval_*.c:
 * extra turns, corners, line threats), then the history heuristic (cut-offs
 * per seat and move, weighted by depth squared). Principal variation search
 * (null windows after the first move) on top.
 *
 * Exact endgames: a kind may bring a dedicated solver (search_eval.solve;
 * reversi up to 8x8: endgame_reversi.c), tried first, with half the budget,
 * when the level's `solve` threshold covers the position; otherwise, or when
 * the clock beats it, the search below goes to the end from `endgame`.
 *
 * Memory: game_search_new allocates every table and touches its pages, so
 * that no search pays for page faults inside its budget.
 *
 * Time: a monotonic deadline checked every 64 nodes and the stop flag at
 * every node; an interrupted iteration still counts if its first root move
 * (the previous best) was searched, since any move it then preferred was
 * searched fully. A new iteration is not started past three quarters of
 * the time (half the nodes, where a node budget rules): a partial iteration
 * still improves the move, and stopping at half left ~45 % of a reversi
 * move's time unused (bench_grhino.py: 5-5 against grhino level 4 before,
 * 7-3 and 9-1 after, at 200 ms a move).
 */
#include "search_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- levels --- */

typedef struct search_level {
    int depth;        /* iteration cap, plies */
    int random_pct;   /* chance of a random legal move instead */
    int endgame;      /* search to the end at or below this many moves left */
    int solve;        /* the same for a kind's dedicated solver (search_eval.solve),
                       * which goes deeper in the same time (PERFORMANCE.md) */
} search_level;

static const search_level levels[11] = {
    [1] = {0, 100, 0, 0},  [2] = {1, 50, 0, 0},    [3] = {2, 25, 0, 0},
    [4] = {3, 10, 0, 0},   [5] = {4, 0, 0, 0},     [6] = {6, 0, 0, 0},
    [7] = {7, 0, 8, 12},   [8] = {10, 0, 10, 14}, [9] = {14, 0, 12, 16},
    [10] = {SEARCH_FULL_DEPTH, 0, 14, 20},
};

/* The share of the move's budget (time, nodes) each level spends, in
 * thousandths. Beyond the depth caps, the top levels differ by thinking
 * time: without it levels 8..10 reached the same depth within the default
 * second and played alike (issue 19). Caps and shares were chosen by
 * tournaments of every pair (docs/bots.md): with these, each of levels 7..10
 * beat the one below in 58-63 % of 160 games over the five kinds; level 8
 * at 9 plies and 5 % had won only 55 % against level 7. */
static const int budget_permille[11] = {
    [1] = 1000, [2] = 1000, [3] = 1000, [4] = 1000, [5] = 1000, [6] = 1000,
    [7] = 15,   [8] = 60,   [9] = 250,  [10] = 1000,
};

/* Levels 7..9 first reach level 6's depth with the whole budget, as level 6
 * would, and only then keep to their share: in reversi and qubic a share of
 * a small budget reached less than depth 6, and level 7 rated below 6. So
 * each level searches at least as deep as the one below on every position
 * (tests/games/test_search.c checks it). */
#define SHARE_FLOOR_DEPTH 6

/* --- the transposition table --- */

enum { TT_LOWER = 1, TT_UPPER = 2, TT_EXACT = 3, TT_HEURISTIC = 4 };

struct tt_entry {
    uint64_t key;
    int32_t score;    /* ply-independent (see to_tt) */
    int16_t move;     /* -1: none */
    uint8_t depth;
    uint8_t flags;    /* bound (2 bits), TT_HEURISTIC, age << 3 */
};

#define TT_DEFAULT_BYTES ((size_t)16 << 20)
#define TT_MIN_BYTES ((size_t)64 << 10)

/* Win and loss scores carry the ply they were found at; the table stores
 * them relative to the node instead, so that a hit at another ply is right. */
static inline int to_tt(int v, int ply)
{
    return v > SEARCH_WIN / 2 ? v + ply : v < -SEARCH_WIN / 2 ? v - ply : v;
}

static inline int from_tt(int v, int ply)
{
    return v > SEARCH_WIN / 2 ? v - ply : v < -SEARCH_WIN / 2 ? v + ply : v;
}

static tt_entry *tt_probe(game_search *s, uint64_t key)
{
    tt_entry *b = &s->tt[(key & s->tt_mask) * 2];
    if (b[0].key == key && b[0].flags != 0)
        return &b[0];
    if (b[1].key == key && b[1].flags != 0)
        return &b[1];
    return NULL;
}

static void tt_store(game_search *s, uint64_t key, int score, int move, int depth, int bound,
                     bool heuristic)
{
    tt_entry *b = &s->tt[(key & s->tt_mask) * 2];
    uint8_t age = (uint8_t)(s->age & 31);
    tt_entry *e;
    if (b[0].key == key || b[0].flags == 0 || (b[0].flags >> 3) != age || b[0].depth <= depth)
        e = &b[0];
    else
        e = &b[1];
    e->key = key;
    e->score = score;
    e->move = (int16_t)move;
    e->depth = (uint8_t)(depth > 255 ? 255 : depth);
    e->flags = (uint8_t)(bound | (heuristic ? TT_HEURISTIC : 0) | (age << 3));
}

/* --- time --- */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline bool must_stop(game_search *s)
{
    if (s->aborted)
        return true;
    if ((s->stop && *s->stop) || s->nodes >= s->max_nodes ||
        ((s->nodes & 63) == 0 && now_ns() >= s->deadline_ns))
        s->aborted = true;
    return s->aborted;
}

/* --- a fallback evaluation for a kind without its own --- */

static uint64_t generic_hash(const game_search *s, const game_state *parent,
                             uint64_t parent_hash, int move, const game_state *st)
{
    (void)s, (void)parent, (void)parent_hash, (void)move;
    uint64_t h = 0;
    for (int i = 0; i < st->n_cells; i++)
        if (st->cells[i])
            h ^= search_zkey(i, st->cells[i]);
    return h;
}

static int generic_evaluate(game_search *s, const game_state *st, int ply, bool *proven)
{
    (void)ply, (void)proven;
    int sc[GAME_MAX_SEATS], best = INT_MIN;
    st->kind->scores(st, sc);
    for (int i = 0; i < st->seats; i++)
        if (i != s->root && sc[i] > best)
            best = sc[i];
    return 16 * (sc[s->root] - best);
}

static int generic_order(game_search *s, const game_state *st, int *moves, int64_t *keys, int n)
{
    (void)s, (void)st, (void)moves;
    for (int i = 0; i < n; i++)
        keys[i] = 0;
    return n;
}

static const search_eval search_eval_generic = {
    .kind = NULL,
    .hash = generic_hash,
    .evaluate = generic_evaluate,
    .order = generic_order,
    .unit = 256,
    .judge = {100, 200, 400},
    .win_scale = 300,
    .depth = 6,
};

static const search_eval *const evals[] = {
    &search_eval_sungka, &search_eval_congklak, &search_eval_kalah,
    &search_eval_reversi, &search_eval_tictactoe,
};

const search_eval *search__eval_of(const game_kind *kind)
{
    for (size_t i = 0; i < sizeof evals / sizeof evals[0]; i++)
        if (evals[i]->kind == kind)
            return evals[i];
    return &search_eval_generic;
}

/* --- the search --- */

static inline int team_of(const game_search *s, int seat)
{
    return seat != s->root;
}

static inline uint64_t side_key(int seat)
{
    return search_mix64(0xa5a5000000000000ull + (uint64_t)seat);
}

/* The value of a finished game for the root. */
static int terminal_value(const game_search *s, const game_state *st, int ply)
{
    int sc[GAME_MAX_SEATS], best = INT_MIN;
    st->kind->scores(st, sc);
    for (int i = 0; i < st->seats; i++)
        if (i != s->root && sc[i] > best)
            best = sc[i];
    return search_result_value(s, sc[s->root] - best, ply);
}

static int search(game_search *s, int ply, int depth, int alpha, int beta, uint64_t bhash);

/* The value of the child at `ply` for `team` (the team that moved into it). */
static int child_value(game_search *s, int ply, int depth, int alpha, int beta, int team,
                       uint64_t bhash)
{
    const game_state *c = &s->plies[ply].st;
    if (c->over) {
        s->nodes++;
        int v = terminal_value(s, c, ply);
        return team == 0 ? v : -v;
    }
    if (team_of(s, c->to_move) == team)
        return search(s, ply, depth, alpha, beta, bhash);
    return -search(s, ply, depth, -beta, -alpha, bhash);
}

static int leaf_value(game_search *s, const game_state *st, int ply, int team)
{
    bool proven = false;
    int v = s->ev->evaluate(s, st, ply, &proven);
    if (!proven)
        s->horizon++;
    return team == 0 ? v : -v;
}

/* Negamax from the point of view of the team to move at plies[ply]. */
static int search(game_search *s, int ply, int depth, int alpha, int beta, uint64_t bhash)
{
    search_ply *P = &s->plies[ply];
    const game_state *st = &P->st;
    const int mover = st->to_move, team = team_of(s, mover);
    s->nodes++;
    if (must_stop(s))
        return 0;
    int known;
    if (ply > 0 && s->ev->probe && s->ev->probe(s, st, ply, &known))
        return team == 0 ? known : -known;
    if (depth <= 0 || ply >= SEARCH_MAX_PLY)
        return leaf_value(s, st, ply, team);

    const uint64_t key = bhash ^ side_key(mover) ^ s->salt;
    int tt_move = -1;
    tt_entry *e = tt_probe(s, key);
    if (e) {
        tt_move = e->move;
        bool heuristic = (e->flags & TT_HEURISTIC) != 0;
        if (ply > 0 && (e->depth >= depth || !heuristic)) {
            int v = from_tt(e->score, ply);
            int bound = e->flags & 3;
            if (bound == TT_EXACT || (bound == TT_LOWER && v >= beta) ||
                (bound == TT_UPPER && v <= alpha)) {
                if (heuristic)
                    s->horizon++;
                return v;
            }
        }
    }

    /* At the root the previous iteration's best goes first even if its
     * table entry was replaced: a partial iteration relies on it. */
    if (ply == 0 && s->root_pv >= 0)
        tt_move = s->root_pv;
    int n = st->kind->legal_moves(st, P->moves, GAME_MAX_MOVES);
    if (n == 0) /* only in a loaded position taken as given */
        return leaf_value(s, st, ply, team);
    n = s->ev->order(s, st, P->moves, P->keys, n);
    const int32_t *hist = s->history[mover];
    for (int i = 0; i < n; i++) {
        int m = P->moves[i];
        P->keys[i] = m == tt_move ? INT64_MAX : (P->keys[i] << 24) + (m >= 0 ? hist[m] : 0);
    }

    const int alpha0 = alpha;
    const long long horizon0 = s->horizon;
    int best = -SEARCH_INF, best_move = P->moves[0];
    search_ply *C = &s->plies[ply + 1];
    for (int i = 0; i < n; i++) {
        /* Selection: the best remaining key to position i. Cut-offs usually
         * come early, so this beats sorting the whole list. */
        int j = i;
        for (int k = i + 1; k < n; k++)
            if (P->keys[k] > P->keys[j])
                j = k;
        if (j != i) {
            int tm = P->moves[i];
            P->moves[i] = P->moves[j];
            P->moves[j] = tm;
            int64_t tk = P->keys[i];
            P->keys[i] = P->keys[j];
            P->keys[j] = tk;
        }
        const int m = P->moves[i];
        memcpy(&C->st, st, s->copy);
        st->kind->apply(&C->st, m, NULL);
        uint64_t ch = s->ev->hash(s, st, bhash, m, &C->st);
        if (s->ev->make)
            s->ev->make(s, st, m);
        int v;
        if (i == 0) {
            v = child_value(s, ply + 1, depth - 1, alpha, beta, team, ch);
        } else {
            v = child_value(s, ply + 1, depth - 1, alpha, alpha + 1, team, ch);
            if (v > alpha && v < beta && !s->aborted)
                v = child_value(s, ply + 1, depth - 1, alpha, beta, team, ch);
        }
        if (s->ev->unmake)
            s->ev->unmake(s, st, m);
        if (s->aborted)
            return 0;
        if (v > best) {
            best = v;
            best_move = m;
            if (ply == 0) {
                s->root_best = m;
                s->root_score = v;
                s->root_done = true;
            }
            if (v > alpha)
                alpha = v;
            if (alpha >= beta) {
                if (m >= 0 && s->history[mover][m] < (1 << 23)) /* not GAME_MOVE_SWAP */
                    s->history[mover][m] += depth * depth;
                break;
            }
        }
    }
    int bound = best <= alpha0 ? TT_UPPER : best >= beta ? TT_LOWER : TT_EXACT;
    tt_store(s, key, to_tt(best, ply), best_move, depth, bound, s->horizon != horizon0);
    return best;
}

/* --- the public interface --- */

void search_prefault(void *p, size_t bytes)
{
    volatile unsigned char *c = p;
    for (size_t i = 0; i < bytes; i += 4096)
        c[i] = 0;
    if (bytes)
        c[bytes - 1] = 0;
}

game_search *game_search_new(size_t tt_bytes)
{
    if (tt_bytes == 0)
        tt_bytes = TT_DEFAULT_BYTES;
    if (tt_bytes < TT_MIN_BYTES)
        tt_bytes = TT_MIN_BYTES;
    size_t buckets = 1;
    while (buckets * 2 * 2 * sizeof(tt_entry) <= tt_bytes)
        buckets *= 2;

    game_search *s = calloc(1, sizeof *s);
    if (!s)
        goto fail;
    s->tt = calloc(buckets * 2, sizeof *s->tt);
    if (!s->tt)
        goto fail_tt;
    s->tt_mask = buckets - 1;
    s->plies = calloc(SEARCH_MAX_PLY + 1, sizeof *s->plies);
    if (!s->plies)
        goto fail_plies;
    s->history = calloc(GAME_MAX_SEATS, sizeof *s->history);
    if (!s->history)
        goto fail_history;
    s->ttt = calloc(1, sizeof *s->ttt);
    if (!s->ttt)
        goto fail_ttt;
    s->solver = search_solver_new();
    if (!s->solver)
        goto fail_solver;
    /* Every table is used from the first search on: take the page faults
     * now, before any move's clock starts. */
    search_prefault(s->tt, buckets * 2 * sizeof *s->tt);
    search_prefault(s->plies, (SEARCH_MAX_PLY + 1) * sizeof *s->plies);
    search_prefault(s->history, GAME_MAX_SEATS * sizeof *s->history);
    search_prefault(s->ttt, sizeof *s->ttt);
    for (int c = 0; c < SEARCH_ZCELLS; c++)
        for (int v = 0; v < SEARCH_ZCOUNTS; v++)
            s->zcache[c][v] = search_zkey(c, v);
    return s;

fail_solver:
    free(s->ttt);
fail_ttt:
    free(s->history);
fail_history:
    free(s->plies);
fail_plies:
    free(s->tt);
fail_tt:
    free(s);
fail:
    return NULL;
}

void game_search_set_kalah_db(game_search *s, const struct game_kalah_db *db)
{
    if (s)
        s->kalah_db = db;
}

void game_search_reset(game_search *s)
{
    if (!s)
        return;
    memset(s->tt, 0, (s->tt_mask + 1) * 2 * sizeof *s->tt);
    memset(s->history, 0, GAME_MAX_SEATS * sizeof *s->history);
    s->age = 0;
    search_solver_reset(s->solver);
}

void game_search_free(game_search *s)
{
    if (!s)
        return;
    search_solver_free(s->solver);
    free(s->ttt);
    free(s->history);
    free(s->plies);
    free(s->tt);
    free(s);
}

static uint64_t options_salt(const game_state *st)
{
    uint64_t h = search_mix64((uint64_t)(uintptr_t)st->kind);
    for (int i = 0; i < st->opts.n && i < GAME_MAX_OPTIONS; i++)
        h = search_mix64(h ^ (uint64_t)(uint32_t)st->opts.value[i]);
    return search_mix64(h ^ st->n_cells);
}

/* The root move the kind's ordering likes best (or the table's move): the
 * answer when no iteration gets anywhere. */
static int fallback_move(game_search *s, uint64_t key)
{
    search_ply *P = &s->plies[0];
    const game_state *st = &P->st;
    int n = st->kind->legal_moves(st, P->moves, GAME_MAX_MOVES);
    tt_entry *e = tt_probe(s, key);
    for (int i = 0; e && i < n; i++)
        if (P->moves[i] == e->move)
            return e->move;
    n = s->ev->order(s, st, P->moves, P->keys, n);
    int j = 0;
    for (int i = 1; i < n; i++)
        if (P->keys[i] > P->keys[j])
            j = i;
    return P->moves[j];
}

/* The search from the point of view of seat `root` (the seat to move for a
 * bot; any seat for the review's value of a position after a move): the
 * result's score is then that of the team to move in st. */
static int search_for(game_search *s, const game_state *st, int root,
                      const game_search_limits *lim, game_search_result *out)
{
    game_search_limits deflim = {.level = 10, .time_ms = 1000};
    if (!lim)
        lim = &deflim;
    const int level = lim->level < 1 ? 1 : lim->level > 10 ? 10 : lim->level;
    const search_level *L = &levels[level];
    const int64_t start = now_ns();
    const long long full_ms = lim->time_ms > 0 ? lim->time_ms : 1000;
    const int time_ms = (int)((full_ms * budget_permille[level] + 999) / 1000);

    /* Whole copy once, so that the unused tail of the cells is defined;
     * the search then copies only the used part. */
    search_ply *R = &s->plies[0];
    R->st = *st;
    int n = st->kind->legal_moves(&R->st, R->moves, GAME_MAX_MOVES);
    if (n <= 0)
        return -1;

    s->ev = search__eval_of(st->kind);
    s->root = root;
    s->seats = st->seats;
    s->salt = options_salt(st) ^ (st->seats > 2 ? search_mix64(0x7007 + (uint64_t)s->root) : 0);
    s->copy = offsetof(game_state, cells) + (size_t)st->n_cells * sizeof st->cells[0];
    s->nodes = 0;
    s->horizon = 0;
    s->stop = lim->stop;
    s->aborted = false;
    s->deadline_ns = start + (int64_t)time_ms * 1000000;
    s->max_nodes = lim->max_nodes > 0 ? (lim->max_nodes * budget_permille[level] + 999) / 1000 : LLONG_MAX;
    s->age++;
    for (int i = 0; i < GAME_MAX_SEATS; i++)
        for (int m = 0; m < GAME_MAX_MOVES; m++)
            s->history[i][m] /= 2;
    if (s->ev->prepare)
        s->ev->prepare(s, &R->st);
    const uint64_t root_hash = s->ev->hash(s, NULL, 0, -1, &R->st);

    /* Low levels: sometimes (level 1: always) a random legal move. */
    uint64_t rng = search_mix64(lim->seed ^ root_hash);
    if ((int)(rng % 100) < L->random_pct) {
        uint64_t r2 = search_mix64(rng);
        *out = (game_search_result){.move = R->moves[r2 % (uint64_t)n]};
        return 0;
    }

    int cap = L->depth;
    int hard_cap = lim->max_depth > 0 ? lim->max_depth : SEARCH_FULL_DEPTH;
    if (hard_cap > SEARCH_FULL_DEPTH)
        hard_cap = SEARCH_FULL_DEPTH;
    if (cap > hard_cap)
        cap = hard_cap;
    s->tables = L->endgame > 0 ? s->kalah_db : NULL;
    const int left = s->ev->moves_left ? s->ev->moves_left(&R->st) : INT_MAX;
    bool endgame = L->endgame > 0 && left <= L->endgame;

    /* A dedicated solver gets the first half of the budget; if the clock
     * beats it, the search below has the rest. */
    if (L->solve > 0 && left <= L->solve && s->ev->solve && root == st->to_move) {
        const int64_t deadline = s->deadline_ns;
        int move, margin;
        s->deadline_ns = start + (deadline - start) / 2;
        if (s->ev->solve(s, &R->st, &move, &margin) == 0) {
            *out = (game_search_result){
                .move = move,
                .depth = left,
                .nodes = s->nodes,
                .score = search_result_value(s, margin, 0),
                .exact = true,
            };
            return 0;
        }
        if (s->stop && *s->stop)
            s->aborted = true;
        s->deadline_ns = deadline;
    }

    const uint64_t root_key = root_hash ^ side_key(R->st.to_move) ^ s->salt;
    game_search_result res = {.move = fallback_move(s, root_key)};
    /* The level's share (above), and the whole budget for the iterations
     * up to the floor depth. A forced move needs no thought: search only to
     * report its value, with a twentieth of the share. */
    int64_t share_deadline = s->deadline_ns;
    long long share_nodes = s->max_nodes;
    int floor_depth = 0;
    if (n == 1) {
        share_deadline = start + (int64_t)time_ms * 50000;
        if (share_nodes != LLONG_MAX)
            share_nodes = share_nodes / 20 + 1;
    } else if (budget_permille[level] < 1000) {
        floor_depth = SHARE_FLOOR_DEPTH;
        s->deadline_ns = start + (int64_t)full_ms * 1000000;
        s->max_nodes = lim->max_nodes > 0 ? lim->max_nodes : LLONG_MAX;
    }
    if (floor_depth == 0) {
        s->deadline_ns = share_deadline;
        s->max_nodes = share_nodes;
    }

    const int limit = endgame ? hard_cap : cap;
    s->root_pv = -1;
    for (int depth = 1; depth <= limit;) {
        s->horizon = 0;
        s->root_done = false;
        int v = search(s, 0, depth, -SEARCH_INF, SEARCH_INF, root_hash);
        if (s->aborted) {
            if (s->root_done) {
                res.move = s->root_best;
                res.score = s->root_score;
            }
            break;
        }
        res.move = s->root_pv = s->root_best;
        res.score = v;
        res.depth = depth;
        /* A decided score comes only from leaves whose winner is certain;
         * a margin (mancala) is known only when every leaf was exact, and
         * is then reported as search.h says, a decided score. */
        bool decided = !s->ev->exact_margins && (v > SEARCH_WIN / 2 || v < -SEARCH_WIN / 2);
        if (s->horizon == 0 && s->ev->exact_margins)
            res.score = search_decided(v / SEARCH_MARGIN, 0);
        if (s->horizon == 0 || decided) {
            res.exact = true;
            break;
        }
        if (depth >= floor_depth) {
            s->deadline_ns = share_deadline;
            s->max_nodes = share_nodes;
        }
        if (depth >= limit || now_ns() - start > (s->deadline_ns - start) * 3 / 4 ||
            s->nodes > s->max_nodes / 2)
            break;
        /* Endgame: after a few cheap iterations, straight to the end
         * (mancala: one ply at a time, as its lines differ much in length). */
        depth = endgame && depth >= 4 && !s->ev->exact_margins ? limit : depth + 1;
    }
    res.nodes = s->nodes;
    *out = res;
    return 0;
}

static bool searchable(const game_search *s, const game_state *st)
{
    return s && st && st->kind && !st->over && st->to_move >= 0 && st->to_move < st->seats;
}

int game_search_best(game_search *s, const game_state *st, const game_search_limits *lim,
                     game_search_result *out)
{
    if (!searchable(s, st) || !out)
        return -1;
    return search_for(s, st, st->to_move, lim, out);
}

int game_search_value_for(game_search *s, const game_state *st, int seat,
                          const game_search_limits *lim, game_search_result *out)
{
    if (!searchable(s, st) || !out || seat < 0 || seat >= st->seats)
        return -1;
    if (search_for(s, st, seat, lim, out) != 0)
        return -1;
    /* The root's team is not to move: the score is the others', negamax's
     * negation of the seat's. */
    if (seat != st->to_move)
        out->score = -out->score;
    return 0;
}
