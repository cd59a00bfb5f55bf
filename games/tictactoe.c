/*
 * tictactoe.c — the `tictactoe` kind: n-dimensional tic-tac-toe (docs/rules.md
 * §5) on a board of side n (3..8) in d dimensions (2..4) for 2..4 seats.
 * Cell index = sum of coordinate_i * n^i; a cell holds 0 or seat+1.
 *
 * A line is n cells in a row along a direction v in {-1,0,1}^d (v != 0, and v
 * and -v are the same direction, so its first non-zero component is +1): the
 * coordinates where v_i = 0 are fixed, the others run 0..n-1 (v_i = +1) or
 * n-1..0 (v_i = -1) together. There are ((n+2)^d - n^d)/2 of them. The line
 * tables — the cells of each line, and the lines through each cell — are
 * built once for every (n, d), on first use, under pthread_once (games/ has
 * no threads of its own but may be called from several), into static arrays
 * sized at compile time. A move then only looks at the lines through its
 * cell.
 *
 * priv[0] counts the occupied cells (the board is full when it reaches
 * n^d), priv[1] is the winner's seat+1 or 0; both are rebuilt after
 * game_load.
 *
 * Decisions where docs/rules.md is silent (also in the report to the lead):
 *  - The game ends at the first completed line even if other seats could
 *    still move; that seat is the only winner (score 1, every other seat 0).
 *    A full board without a line is a draw: every score 0, no winner.
 *  - A loaded position is taken as given: its winner is the seat of the first
 *    complete line in table order, if any, but the game is over only if the
 *    snapshot says so.
 */
#include "games_internal.h"

#include <stdlib.h>

#include <pthread.h>

enum { OPT_SIZE, OPT_DIMS, OPT_PLAYERS };

#define TTT_NMIN 3
#define TTT_NMAX 8
#define TTT_DMIN 2
#define TTT_DMAX 4

static const game_option_spec tictactoe_options[] = {
    [OPT_SIZE] = {"size", TTT_NMIN, TTT_NMAX, 4, "cells along each side"},
    [OPT_DIMS] = {"dims", TTT_DMIN, TTT_DMAX, 4, "number of dimensions"},
    [OPT_PLAYERS] = {"players", 2, 4, 2, "number of seats"},
};

/* Sizes of the tables of every (n, d), as constant expressions. */
#define P2(b) ((b) * (b))
#define P3(b) ((b) * (b) * (b))
#define P4(b) (P2(b) * P2(b))
#define LINES_ND(n, Pd) ((Pd((n) + 2) - Pd(n)) / 2)
#define ENTRIES_N(n) ((n) * (LINES_ND(n, P2) + LINES_ND(n, P3) + LINES_ND(n, P4)))
#define STARTS_N(n) (P2(n) + P3(n) + P4(n) + 3)
enum {
    TTT_ENTRIES = ENTRIES_N(3) + ENTRIES_N(4) + ENTRIES_N(5) + ENTRIES_N(6) + ENTRIES_N(7) +
                  ENTRIES_N(8),
    TTT_STARTS = STARTS_N(3) + STARTS_N(4) + STARTS_N(5) + STARTS_N(6) + STARTS_N(7) + STARTS_N(8),
    TTT_TABLES = (TTT_NMAX - TTT_NMIN + 1) * (TTT_DMAX - TTT_DMIN + 1),
};

/* The lines of one (n, d). */
typedef struct ttt_table {
    int n, d, cells, lines;
    const int16_t *line_cells; /* line i is line_cells[i*n .. i*n+n-1] */
    const int32_t *first;      /* lines through cell c: through[first[c] .. first[c+1]-1] */
    const int16_t *through;
} ttt_table;

static ttt_table tables[TTT_TABLES];
static int16_t pool_line_cells[TTT_ENTRIES];
static int16_t pool_through[TTT_ENTRIES];
static int32_t pool_first[TTT_STARTS];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static int ipow(int b, int e)
{
    int r = 1;
    while (e-- > 0)
        r *= b;
    return r;
}

/* Write the lines of (n, d) into line_cells; returns how many. */
static int enumerate_lines(int n, int d, int16_t *line_cells)
{
    int dirs = ipow(3, d), count = 0;
    for (int code = 0; code < dirs; code++) {
        int v[TTT_DMAX], first_nz = 0;
        for (int i = 0, c = code; i < d; i++, c /= 3) {
            v[i] = c % 3 - 1;
            if (!first_nz && v[i] != 0)
                first_nz = v[i];
        }
        if (first_nz != 1)
            continue; /* the zero vector, or the negative of another direction */
        /* The coordinates with v_i = 0 are free: n^free starting points. */
        int free_dims = 0;
        for (int i = 0; i < d; i++)
            free_dims += v[i] == 0;
        int starts = ipow(n, free_dims);
        for (int s = 0; s < starts; s++) {
            int base[TTT_DMAX];
            for (int i = 0, rest = s; i < d; i++) {
                if (v[i] == 0) {
                    base[i] = rest % n;
                    rest /= n;
                } else {
                    base[i] = v[i] > 0 ? 0 : n - 1;
                }
            }
            for (int k = 0; k < n; k++) {
                int cell = 0;
                for (int i = d - 1; i >= 0; i--)
                    cell = cell * n + base[i] + k * v[i];
                line_cells[count * n + k] = (int16_t)cell;
            }
            count++;
        }
    }
    return count;
}

static void tables_build(void)
{
    int used_entries = 0, used_starts = 0;
    for (int n = TTT_NMIN; n <= TTT_NMAX; n++)
        for (int d = TTT_DMIN; d <= TTT_DMAX; d++) {
            ttt_table *t = &tables[(n - TTT_NMIN) * (TTT_DMAX - TTT_DMIN + 1) + (d - TTT_DMIN)];
            int16_t *lc = &pool_line_cells[used_entries];
            int16_t *through = &pool_through[used_entries];
            int32_t *first = &pool_first[used_starts];
            t->n = n;
            t->d = d;
            t->cells = ipow(n, d);
            t->lines = enumerate_lines(n, d, lc);
            /* Lines through each cell, by counting then placing. */
            for (int c = 0; c <= t->cells; c++)
                first[c] = 0;
            for (int e = 0; e < t->lines * n; e++)
                first[lc[e] + 1]++;
            for (int c = 0; c < t->cells; c++)
                first[c + 1] += first[c];
            int32_t fill[GAME_MAX_CELLS];
            for (int c = 0; c < t->cells; c++)
                fill[c] = first[c];
            for (int l = 0; l < t->lines; l++)
                for (int k = 0; k < n; k++)
                    through[fill[lc[l * n + k]]++] = (int16_t)l;
            t->line_cells = lc;
            t->first = first;
            t->through = through;
            used_entries += t->lines * n;
            used_starts += t->cells + 1;
        }
}

static const ttt_table *table_of(int n, int d)
{
    pthread_once(&tables_once, tables_build);
    return &tables[(n - TTT_NMIN) * (TTT_DMAX - TTT_DMIN + 1) + (d - TTT_DMIN)];
}

int game__tictactoe_line_count(int n, int d)
{
    if (n < TTT_NMIN || n > TTT_NMAX || d < TTT_DMIN || d > TTT_DMAX)
        return -1;
    return table_of(n, d)->lines;
}

int game__tictactoe_line(int n, int d, int i, int *cells)
{
    if (n < TTT_NMIN || n > TTT_NMAX || d < TTT_DMIN || d > TTT_DMAX)
        return GAME_E_RANGE;
    const ttt_table *t = table_of(n, d);
    if (i < 0 || i >= t->lines)
        return GAME_E_RANGE;
    for (int k = 0; k < n; k++)
        cells[k] = t->line_cells[i * n + k];
    return GAME_OK;
}

static bool line_complete(const game_state *st, const ttt_table *t, int line, int value)
{
    const int16_t *lc = &t->line_cells[line * t->n];
    for (int k = 0; k < t->n; k++)
        if (st->cells[lc[k]] != value)
            return false;
    return true;
}

static void tictactoe_loaded(game_state *st)
{
    const ttt_table *t = table_of(st->size, st->dims);
    int filled = 0;
    for (int c = 0; c < st->n_cells; c++)
        filled += st->cells[c] != 0;
    st->priv[0] = (uint64_t)filled;
    st->priv[1] = 0;
    for (int l = 0; l < t->lines; l++) {
        int v = st->cells[t->line_cells[l * t->n]];
        if (v != 0 && line_complete(st, t, l, v)) {
            st->priv[1] = (uint64_t)v;
            break;
        }
    }
}

static int tictactoe_init(game_state *st, const game_options *opts)
{
    int n = opts->value[OPT_SIZE], d = opts->value[OPT_DIMS];
    st->seats = (uint8_t)opts->value[OPT_PLAYERS];
    st->size = (uint16_t)n;
    st->dims = (uint16_t)d;
    st->n_cells = (uint16_t)ipow(n, d);
    st->to_move = 0;
    st->over = false;
    st->priv[0] = 0;
    st->priv[1] = 0;
    (void)table_of(n, d); /* build the tables now rather than in a first move */
    return GAME_OK;
}

static int tictactoe_check(const game_state *st, int move, char *err, size_t errlen)
{
    if (move < 0 || move >= st->n_cells)
        return game__fail(GAME_E_RANGE, err, errlen, "cell %d is out of range 0..%d", move,
                          st->n_cells - 1);
    if (st->cells[move] != 0)
        return game__fail(GAME_E_OCCUPIED, err, errlen, "cell %d is taken", move);
    return GAME_OK;
}

static void tictactoe_apply(game_state *st, int move, game_result *res)
{
    game__result_clear(res);
    /* Callers check first; this only keeps an unchecked call through the
     * table from writing outside the board. */
    if (st->over || move < 0 || move >= st->n_cells || st->cells[move] != 0)
        return;
    const int mover = st->to_move;
    const int16_t v = (int16_t)(mover + 1);
    st->cells[move] = v;
    st->priv[0]++;
    game__step(res, move, v);

    const ttt_table *t = table_of(st->size, st->dims);
    for (int i = t->first[move]; i < t->first[move + 1]; i++)
        if (line_complete(st, t, t->through[i], v)) {
            st->priv[1] = (uint64_t)v;
            st->to_move = -1;
            st->over = true;
            return; /* res->next is already -1 */
        }
    if (st->priv[0] >= st->n_cells) {
        st->to_move = -1;
        st->over = true;
        return;
    }
    st->to_move = (int8_t)((mover + 1) % st->seats);
    if (res)
        res->next = st->to_move;
}

static int tictactoe_legal_moves(const game_state *st, int *moves, int max)
{
    int count = 0;
    for (int c = 0; c < st->n_cells && count < max; c++)
        if (st->cells[c] == 0)
            moves[count++] = c;
    return count;
}

static void tictactoe_scores(const game_state *st, int *scores)
{
    for (int s = 0; s < st->seats; s++)
        scores[s] = st->priv[1] == (uint64_t)(s + 1);
}

/* Coordinates "x,y[,z[,w]]", one per dimension, x first: cell
 * x + y*size + z*size^2 + w*size^3. */
static int tictactoe_parse_move(const game_state *st, const char *text, int *move)
{
    int coord[4], k = 0;
    const char *p = text;
    while (k < 4) {
        char *end;
        long c = strtol(p, &end, 10);
        if (end == p || c < 0 || c >= st->size)
            return -1;
        coord[k++] = (int)c;
        if (*end == '\0')
            break;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
    if (k != st->dims)
        return -1;
    int cell = 0;
    for (int i = k - 1; i >= 0; i--)
        cell = cell * st->size + coord[i];
    *move = cell;
    return 0;
}

const game_kind game_tictactoe_kind = {
    .name = "tictactoe",
    .title = "Tic-tac-toe in 2 to 4 dimensions",
    .layout = GAME_LAYOUT_GRID,
    .n_options = (int)(sizeof tictactoe_options / sizeof tictactoe_options[0]),
    .options = tictactoe_options,
    .init = tictactoe_init,
    .check = tictactoe_check,
    .apply = tictactoe_apply,
    .legal_moves = tictactoe_legal_moves,
    .scores = tictactoe_scores,
    .loaded = tictactoe_loaded,
    .drawing = GAME_DRAW_SLICES,
    .marks = "XO#@",
    .parse_move = tictactoe_parse_move,
};
