/*
 * search_internal.h — what search.c shares with the evaluations of each kind
 * (eval_mancala.c, eval_reversi.c, eval_tictactoe.c): the searcher's
 * struct, the table of functions an evaluation fills in, the score scale and
 * the Zobrist keys. Nothing outside games/ includes it.
 *
 * Scores are ints from the point of view of one seat (the "root": the seat
 * the bot plays). Heuristic values stay well inside +-SEARCH_WIN/2; a
 * result known for sure (a finished game, or one whose winner is already
 * decided) is search_decided(): +-SEARCH_WIN, plus SEARCH_MARGIN per unit of
 * the final margin (so the search prefers bigger wins), minus the ply for a
 * win and plus it for a loss (so it prefers faster wins and slower losses).
 */
#ifndef SUNGKA_GAMES_SEARCH_INTERNAL_H
#define SUNGKA_GAMES_SEARCH_INTERNAL_H

#include "search.h"
#include "../games_internal.h"

#define SEARCH_WIN GAME_SEARCH_WIN
#define SEARCH_INF (SEARCH_WIN + (1 << 26))
#define SEARCH_MARGIN 256        /* score per unit of final margin */
#define SEARCH_MAX_PLY 128       /* deepest ply a search reaches */
#define SEARCH_FULL_DEPTH (SEARCH_MAX_PLY - 2) /* "to the end" (endgame solving) */

/* The score of a result known for sure at `ply`: margin > 0 wins. */
static inline int search_decided(int margin, int ply)
{
    if (margin > 0)
        return SEARCH_WIN + SEARCH_MARGIN * margin - ply;
    if (margin < 0)
        return -SEARCH_WIN + SEARCH_MARGIN * margin + ply;
    return 0;
}

/* --- Zobrist keys --- */
struct search_eval;

/* splitmix64's finaliser: a bijection of 64-bit words with good avalanche. */
static inline uint64_t search_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The Zobrist key of `value` in `cell`: conceptually a random table of every
 * (cell, value) pair (values up to 32767, since mancala cells hold counts);
 * instead of storing 4096 x 32768 words, a key is the mix of the pair, and
 * search.c caches the keys of small mancala boards (cell < SEARCH_ZCELLS,
 * count < SEARCH_ZCOUNTS) in a table because they are needed per node. */
#define SEARCH_ZCELLS 80   /* 6 seats x (12 cups + home) = 78 */
#define SEARCH_ZCOUNTS 64
static inline uint64_t search_zkey(int cell, int value)
{
    return search_mix64(((uint64_t)(uint32_t)cell << 20) ^ (uint64_t)(uint16_t)value ^
                        0x5157a1c0ffee1234ull);
}

/* --- tic-tac-toe line tables and incremental counts (eval_tictactoe.c) --- */

#define TTT_MAX_LINES 2952              /* 8^4: (10^4 - 8^4) / 2 */
#define TTT_MAX_ENTRIES (TTT_MAX_LINES * 8)

typedef struct search_ttt {
    int n, d, lines, cells;            /* the (n, d) the tables are for; 0 = none */
    int16_t line_cells[TTT_MAX_ENTRIES];
    int32_t first[GAME_MAX_CELLS + 1]; /* lines through cell c: through[first[c]..first[c+1]-1] */
    int16_t through[TTT_MAX_ENTRIES];
    /* Kept in step with the position being searched (make / unmake). */
    uint8_t count[TTT_MAX_LINES][GAME_MAX_SEATS]; /* marks of each seat per line */
    uint8_t owners[TTT_MAX_LINES];     /* seats with a mark in the line */
    int threats[GAME_MAX_SEATS];       /* lines with n-1 of a seat's marks and no other mark */
    int sum;                           /* sum of line values, root's point of view */
    int weight[9];                     /* value of a line held by one seat, by its marks */
} search_ttt;

/* --- the searcher --- */

typedef struct search_ply {
    game_state st;                     /* the position at this ply */
    int moves[GAME_MAX_MOVES];
    int64_t keys[GAME_MAX_MOVES];      /* ordering keys of moves[] */
} search_ply;

typedef struct tt_entry tt_entry;
typedef struct search_eval search_eval;
typedef struct search_solver search_solver;

struct game_search {
    tt_entry *tt;
    size_t tt_mask;                    /* buckets - 1 */
    uint8_t age;                       /* bumped per search: old entries go first */
    search_ply *plies;                 /* SEARCH_MAX_PLY + 1 */
    int32_t (*history)[GAME_MAX_MOVES];/* [GAME_MAX_SEATS]: cut-offs per seat and move */
    uint64_t zcache[SEARCH_ZCELLS][SEARCH_ZCOUNTS];
    search_ttt *ttt;
    search_solver *solver;             /* exact endgames (endgame_reversi.c) */
    const struct game_kalah_db *kalah_db; /* borrowed; NULL: none */
    const struct game_kalah_db *tables;   /* per call: kalah_db, if the level solves endgames */

    /* Set per call of game_search_best. */
    const search_eval *ev;
    int root;                          /* the bot's seat */
    int seats;
    uint64_t salt;                     /* kind, options (and root for > 2 seats) */
    size_t copy;                       /* bytes of a state worth copying */
    long long nodes;
    long long horizon;                 /* heuristic values used (leaves, TT hits) */
    int64_t deadline_ns;
    long long max_nodes;               /* per call; LLONG_MAX: none */
    const volatile int *stop;
    bool aborted;
    int root_best, root_score;         /* best fully searched root move this iteration */
    int root_pv;                       /* best root move of the last iteration, or -1 */
    bool root_done;
};

/* The cached Zobrist key (search_zkey) of a mancala cell. */
static inline uint64_t search_zkey_cached(const game_search *s, int cell, int value)
{
    if (cell < SEARCH_ZCELLS && value >= 0 && value < SEARCH_ZCOUNTS)
        return s->zcache[cell][value];
    return search_zkey(cell, value);
}

/*
 * What each kind supplies. Every function works on positions that are not
 * over (search.c scores finished games itself, from game_scores).
 */
struct search_eval {
    const game_kind *kind;
    /* Before a search from `root` (s->root, s->seats are set): build tables,
     * set incremental counts. May be NULL. */
    void (*prepare)(game_search *s, const game_state *root);
    /* The hash of the board of `child` (no side to move: search.c adds it).
     * parent is NULL for the root; otherwise child = parent + move by the
     * seat parent->to_move, and parent_hash is the parent's board hash. */
    uint64_t (*hash)(const game_search *s, const game_state *parent, uint64_t parent_hash,
                     int move, const game_state *child);
    /* Incremental bookkeeping around a move by parent->to_move (called
     * before the child is searched / after). May be NULL. */
    void (*make)(game_search *s, const game_state *parent, int move);
    void (*unmake)(game_search *s, const game_state *parent, int move);
    /* The value of a position for s->root. *proven is set when the value is
     * a decided result (search_decided) rather than a guess. */
    int (*evaluate)(game_search *s, const game_state *st, int ply, bool *proven);
    /* Ordering keys of moves[0..n-1] (higher first; 0..2^30), for the seat to
     * move. May shorten the list when the other moves are certainly no
     * better (returns the new count, >= 1). */
    int (*order)(game_search *s, const game_state *st, int *moves, int64_t *keys, int n);
    /* Moves left to the end at most (reversi: the empty cells), to decide
     * on exact endgame solving; NULL when the kind has none. */
    int (*moves_left)(const game_state *st);
    /* Optional: a dedicated exact solver, used instead of the alpha-beta
     * search to the end when the level solves this position's endgame
     * (moves_left). The final margin for the seat to move (its score minus
     * the opponent's) into *margin and a move reaching it into *move; 0, or
     * -1 when it cannot (a board it does not handle, or the searcher's
     * deadline or stop flag came first). It adds its nodes to s->nodes. */
    int (*solve)(game_search *s, const game_state *st, int *move /* OUT */,
                 int *margin /* OUT */);
    /* May be NULL: the exact value for s->root of a position that is not
     * over, when known without a search (an endgame table): 1 and *value
     * (a search_decided score), or 0. */
    int (*probe)(game_search *s, const game_state *st, int ply, int *value);
    /* The final margin is the result (mancala): values are margins
     * (search_result_value), the evaluation guesses one on that scale, and
     * a search is over only when every leaf is exact. The kind's moves_left
     * is then only the trigger for deepening without a cap. */
    bool exact_margins;
    /* The review of a finished game (analysis.c), on this kind's own scale:
     * `unit` is the evaluation's points per unit of the result (a disc, a
     * seed: SEARCH_MARGIN for the margin kinds); judge[] the value lost, in
     * hundredths of a unit, from which a move is an inaccuracy, a mistake,
     * a blunder; win_scale the hundredths of a unit that make a player's
     * winning chance 73 % (the logistic curve accuracy is measured on);
     * depth the plies searched per position when the caller does not say. */
    int unit;
    int judge[3];
    int win_scale;
    int depth;
};

/* The evaluation of a kind (a generic one for a kind without its own). */
const search_eval *search__eval_of(const game_kind *kind);

/* --- exact endgames (endgame_reversi.c) --- */

/* The solver's table, allocated (and its pages touched) with the searcher;
 * NULL when memory is short. Freed with the searcher. */
search_solver *search_solver_new(void);
void search_solver_free(search_solver *e);
/* Forget every position the solver's table holds (game_search_reset). */
void search_solver_reset(search_solver *e);
/* search_eval.solve for reversi on one-word boards (4x4..8x8). */
int search_solve_reversi(game_search *s, const game_state *st, int *move, int *margin);

/* Write to every page of a fresh allocation: calloc maps zero pages lazily,
 * and a first search that takes the page faults of a 16 MiB table overruns
 * a short budget. game_search_new pays for it instead. */
void search_prefault(void *p, size_t bytes);

/* The value of a result known for sure: search_decided, except where the
 * margin is the result (exact_margins: mancala), whose every value, exact or
 * guessed, is on one scale, SEARCH_MARGIN per unit of margin, so that the
 * search weighs a certain small win against a likely big one, and a loser
 * minimises the loss, by the margin alone. */
static inline int search_result_value(const game_search *s, int margin, int ply)
{
    return s->ev->exact_margins ? SEARCH_MARGIN * margin : search_decided(margin, ply);
}

extern const search_eval search_eval_sungka;
extern const search_eval search_eval_congklak;
extern const search_eval search_eval_kalah;
extern const search_eval search_eval_reversi;
extern const search_eval search_eval_tictactoe;

#endif /* SUNGKA_GAMES_SEARCH_INTERNAL_H */
