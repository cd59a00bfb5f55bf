/*
 * reversi.c — the `reversi` kind: Reversi / Othello on an even board of 4..16
 * (docs/rules.md §4). Cell y*size+x holds 0 (empty), 1 (black, seat 0) or 2
 * (white, seat 1); black moves first from the centred start of standard
 * Othello (d4 and e5 white).
 *
 * Speed matters here (the bot searches millions of positions), so the kind
 * keeps bitboards in st->priv, bit i = cell i (boards of 4x4..8x8 use the
 * first word of each only):
 *   priv[0..3]  black discs,
 *   priv[4..7]  white discs,
 *   priv[8..11] the legal moves of the seat to move (none when over).
 * The move set is found once per move, when apply looks for the next seat
 * (it needs it anyway to see whether the opponent must pass), so that
 * legal_moves and check only read it.
 *
 * Boards of up to 64 cells (4x4, 6x6, 8x8) use one word per colour and the
 * move generation of reversi_bits.h: a Kogge-Stone fill for the legal moves
 * of 8x8, the plain shift loop for the smaller two, and flips from ray masks.
 * Larger boards use the generic path here: the same shift-and-mask fills
 * (dumb7fill generalised to a side of N: a shift of 1, N-1, N or N+1 bits is
 * a step in one of the 8 directions, and a mask per direction drops the discs
 * that would wrap round an edge or fall off the board) over four words with
 * the carries between words, and flips found by walking the rays by
 * coordinates. The generic path works for every size, so the tests compare
 * the one-word code with it (game__reversi_generic_*). cells[] is kept in
 * step: a move writes only the cells it changes.
 *
 * Decisions where docs/rules.md is silent (also in the report to the lead):
 *  - When the opponent has no move but the mover has, the mover moves again:
 *    result.next is the mover, extra_turn stays false (nothing was earned)
 *    and the opponent is recorded in result.passed. When neither can move the
 *    game is over and nobody is recorded as passing.
 *  - Steps: the placed disc first, then the flipped discs in waves by their
 *    distance from it (all at distance 1 in direction order E, W, S, N, SE,
 *    NW, SW, NE, then distance 2, ...), so a view can animate the flips
 *    spreading out. result.captured is the number of discs flipped.
 *  - A loaded position is taken as given (game_load): a seat to move with no
 *    legal move has no legal moves, and every move is "flips nothing".
 */
#include "games_internal.h"
#include "reversi_bits.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_SIZE };

#define RV_MIN 4
#define RV_MAX 16
#define RV_WORDS 4 /* 16x16 = 256 bits */
#define RV_SIZES ((RV_MAX - RV_MIN) / 2 + 1)
#define RV_MOVES 8 /* priv[8..11]: the legal moves of the seat to move */

static const game_option_spec reversi_options[] = {
    [OPT_SIZE] = {"size", RV_MIN, RV_MAX, 8, "side of the board, an even number", .step = 2},
};

/*
 * The geometry of one board size. Direction pair k (0..3) is a shift of
 * shift[k] bits: to the left (towards higher cells) for E, S, SE, SW and to
 * the right for W, N, NW, NE. left[k] / right[k] keep only the cells a disc
 * may land on after that shift (on the board, not wrapped round to the other
 * edge).
 */
typedef struct rv_geom {
    int n;                       /* side */
    int shift[4];                /* 1, n, n+1, n-1 */
    uint64_t board[RV_WORDS];    /* every cell */
    uint64_t left[4][RV_WORDS];  /* E, S, SE, SW: x+1, y+1, (x+1,y+1), (x-1,y+1) */
    uint64_t right[4][RV_WORDS]; /* W, N, NW, NE: x-1, y-1, (x-1,y-1), (x+1,y-1) */
} rv_geom;

static rv_geom geoms[RV_SIZES];
static rv_bits one_word[3]; /* 4x4, 6x6, 8x8 (reversi_bits.h) */
static pthread_once_t geoms_once = PTHREAD_ONCE_INIT;

static void set_bit(uint64_t *b, int i)
{
    b[i >> 6] |= 1ull << (i & 63);
}

/* The one-word tables of side n from its geometry: the same landing masks,
 * the rays walked cell by cell (once, so speed does not matter) and the
 * first cell of each ray, the neighbours. */
static void one_word_build(rv_bits *b, int n, const rv_geom *G)
{
    static const int dx[RV_DIRS] = {1, 0, 1, -1, -1, 0, -1, 1};
    static const int dy[RV_DIRS] = {0, 1, 1, 1, 0, -1, -1, -1};
    memset(b, 0, sizeof *b);
    b->n = n;
    b->board = G->board[0];
    for (int k = 0; k < 4; k++) {
        b->shift[k] = G->shift[k];
        b->land[k] = G->left[k][0];
        b->land[k + 4] = G->right[k][0];
    }
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            for (int d = 0; d < RV_DIRS; d++)
                for (int cx = x + dx[d], cy = y + dy[d]; cx >= 0 && cx < n && cy >= 0 && cy < n;
                     cx += dx[d], cy += dy[d]) {
                    uint64_t bit = 1ull << (cy * n + cx);
                    if (b->ray[y * n + x][d] == 0)
                        b->around[y * n + x] |= bit;
                    b->ray[y * n + x][d] |= bit;
                }
}

static void geoms_build(void)
{
    for (int g = 0; g < RV_SIZES; g++) {
        rv_geom *G = &geoms[g];
        int n = RV_MIN + 2 * g;
        memset(G, 0, sizeof *G);
        G->n = n;
        G->shift[0] = 1;
        G->shift[1] = n;
        G->shift[2] = n + 1;
        G->shift[3] = n - 1;
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                int i = y * n + x;
                set_bit(G->board, i);
                set_bit(G->left[1], i);  /* S: any cell (off-board bits are beyond n*n) */
                set_bit(G->right[1], i); /* N */
                if (x != 0) {
                    set_bit(G->left[0], i);  /* E lands on x >= 1 */
                    set_bit(G->left[2], i);  /* SE */
                    set_bit(G->right[3], i); /* NE */
                }
                if (x != n - 1) {
                    set_bit(G->right[0], i); /* W lands on x <= n-2 */
                    set_bit(G->right[2], i); /* NW */
                    set_bit(G->left[3], i);  /* SW */
                }
            }
    }
    for (int g = 0; g < 3; g++)
        one_word_build(&one_word[g], geoms[g].n, &geoms[g]);
}

static inline const rv_geom *geom(int n)
{
    pthread_once(&geoms_once, geoms_build);
    return &geoms[(n - RV_MIN) / 2];
}

const rv_bits *game__reversi_bits(int n)
{
    if (n != 4 && n != 6 && n != 8)
        return NULL;
    pthread_once(&geoms_once, geoms_build);
    return &one_word[(n - RV_MIN) / 2];
}

static inline uint64_t *discs(game_state *st, int seat)
{
    return &st->priv[seat * RV_WORDS];
}

static inline const uint64_t *discs_c(const game_state *st, int seat)
{
    return &st->priv[seat * RV_WORDS];
}

static inline int words_of(int n)
{
    return (n * n + 63) / 64;
}

/* --- boards of up to four words (10x10 .. 16x16) --- */

typedef struct bb4 {
    uint64_t w[RV_WORDS];
} bb4;

/* Shift towards higher cells by s (1..17 bits), then mask. */
static inline bb4 shl4(bb4 a, int s, const uint64_t *mask)
{
    bb4 r;
    r.w[0] = (a.w[0] << s) & mask[0];
    for (int i = 1; i < RV_WORDS; i++)
        r.w[i] = ((a.w[i] << s) | (a.w[i - 1] >> (64 - s))) & mask[i];
    return r;
}

static inline bb4 shr4(bb4 a, int s, const uint64_t *mask)
{
    bb4 r;
    for (int i = 0; i < RV_WORDS - 1; i++)
        r.w[i] = ((a.w[i] >> s) | (a.w[i + 1] << (64 - s))) & mask[i];
    r.w[RV_WORDS - 1] = (a.w[RV_WORDS - 1] >> s) & mask[RV_WORDS - 1];
    return r;
}

static bb4 moves4(const uint64_t *P, const uint64_t *O, const rv_geom *g)
{
    bb4 p, moves = {{0}}, empty;
    for (int i = 0; i < RV_WORDS; i++) {
        p.w[i] = P[i];
        empty.w[i] = g->board[i] & ~(P[i] | O[i]);
    }
    for (int k = 0; k < 4; k++) {
        int s = g->shift[k];
        uint64_t ol[RV_WORDS], or_[RV_WORDS];
        for (int i = 0; i < RV_WORDS; i++) {
            ol[i] = O[i] & g->left[k][i];
            or_[i] = O[i] & g->right[k][i];
        }
        bb4 l = shl4(p, s, ol), r = shr4(p, s, or_);
        for (int j = 0; j < g->n - 3; j++) {
            bb4 l2 = shl4(l, s, ol), r2 = shr4(r, s, or_);
            for (int i = 0; i < RV_WORDS; i++) {
                l.w[i] |= l2.w[i];
                r.w[i] |= r2.w[i];
            }
        }
        bb4 lt = shl4(l, s, g->left[k]), rt = shr4(r, s, g->right[k]);
        for (int i = 0; i < RV_WORDS; i++)
            moves.w[i] |= (lt.w[i] | rt.w[i]) & empty.w[i];
    }
    return moves;
}

static inline bool has_bit(const uint64_t *b, int i)
{
    return (b[i >> 6] >> (i & 63)) & 1;
}

/* Discs flipped by P playing cell m on a multi-word board: walk the 8 rays
 * by coordinates. */
static void flips4(int m, const uint64_t *P, const uint64_t *O, int n, uint64_t *flips)
{
    static const int dx[8] = {1, -1, 0, 0, 1, -1, -1, 1};
    static const int dy[8] = {0, 0, 1, -1, 1, -1, 1, -1};
    for (int i = 0; i < RV_WORDS; i++)
        flips[i] = 0;
    int mx = m % n, my = m / n;
    for (int d = 0; d < 8; d++) {
        int x = mx + dx[d], y = my + dy[d], run = 0;
        while (x >= 0 && x < n && y >= 0 && y < n && has_bit(O, y * n + x)) {
            x += dx[d];
            y += dy[d];
            run++;
        }
        if (run == 0 || x < 0 || x >= n || y < 0 || y >= n || !has_bit(P, y * n + x))
            continue;
        for (int k = 1; k <= run; k++)
            set_bit(flips, (my + k * dy[d]) * n + (mx + k * dx[d]));
    }
}

void game__reversi_generic_moves(const uint64_t *P, const uint64_t *O, int n, uint64_t *out)
{
    bb4 m = moves4(P, O, geom(n));
    for (int i = 0; i < RV_WORDS; i++)
        out[i] = m.w[i];
}

void game__reversi_generic_flips(int m, const uint64_t *P, const uint64_t *O, int n,
                                 uint64_t *out)
{
    flips4(m, P, O, n, out);
}

/* --- both sizes --- */

/* Legal moves of P against O into out[RV_WORDS]. */
static void legal_bits(const uint64_t *P, const uint64_t *O, int n, uint64_t *out)
{
    if (words_of(n) == 1) {
        out[0] = rv_moves(P[0], O[0], game__reversi_bits(n));
        for (int i = 1; i < RV_WORDS; i++)
            out[i] = 0;
        return;
    }
    bb4 m = moves4(P, O, geom(n));
    for (int i = 0; i < RV_WORDS; i++)
        out[i] = m.w[i];
}

/* Discs flipped by P playing cell m into flips[RV_WORDS]; all zero if none. */
static void flips_of(int m, const uint64_t *P, const uint64_t *O, int n, uint64_t *flips)
{
    if (words_of(n) == 1) {
        flips[0] = rv_flips(m, P[0], O[0], game__reversi_bits(n));
        for (int i = 1; i < RV_WORDS; i++)
            flips[i] = 0;
        return;
    }
    flips4(m, P, O, n, flips);
}

/* --- the kind --- */

static void reversi_loaded(game_state *st)
{
    memset(st->priv, 0, sizeof st->priv);
    for (int i = 0; i < st->n_cells; i++)
        if (st->cells[i] == 1 || st->cells[i] == 2)
            set_bit(discs(st, st->cells[i] - 1), i);
    if (!st->over && (st->to_move == 0 || st->to_move == 1))
        legal_bits(discs(st, st->to_move), discs(st, 1 - st->to_move), st->size,
                   &st->priv[RV_MOVES]);
}

static int reversi_init(game_state *st, const game_options *opts)
{
    int n = opts->value[OPT_SIZE];
    if (n < RV_MIN || n > RV_MAX || n % 2 != 0)
        return GAME_E_OPTION; /* game_new has checked; never reached */
    int c = n / 2;
    st->seats = 2;
    st->size = (uint16_t)n;
    st->dims = 2;
    st->n_cells = (uint16_t)(n * n);
    /* Standard Othello (docs/rules.md §4): d4 and e5 white, d5 and e4
     * black, so black's first moves are d3, c4, f5 and e6. */
    st->cells[(c - 1) * n + (c - 1)] = 2; /* (x,y) = (c-1,c-1), d4: white */
    st->cells[c * n + c] = 2;             /* (c,c), e5: white */
    st->cells[c * n + (c - 1)] = 1;       /* (c-1,c), d5: black */
    st->cells[(c - 1) * n + c] = 1;       /* (c,c-1), e4: black */
    st->to_move = 0;
    st->over = false;
    reversi_loaded(st);
    return GAME_OK;
}

static int reversi_check(const game_state *st, int move, char *err, size_t errlen)
{
    if (move < 0 || move >= st->n_cells)
        return game__fail(GAME_E_RANGE, err, errlen, "cell %d is out of range 0..%d", move,
                          st->n_cells - 1);
    if (st->cells[move] != 0)
        return game__fail(GAME_E_OCCUPIED, err, errlen, "cell %d is taken", move);
    if (!has_bit(&st->priv[RV_MOVES], move))
        return game__fail(GAME_E_ILLEGAL, err, errlen, "cell %d flips nothing", move);
    return GAME_OK;
}

/* Steps of the flipped discs, in waves by distance from the placed disc:
 * each flipped disc gets the key distance*8 + direction (E W S N SE NW SW
 * NE), unique per disc, and the few discs are sorted by it. */
static void record_flips(game_result *res, int m, const uint64_t *flips, int n, int value)
{
    /* Direction of (sign dx, sign dy), indexed [dy+1][dx+1]. */
    static const int8_t dir[3][3] = {{5, 3, 7}, {1, -1, 0}, {6, 2, 4}};
    int keys[8 * RV_MAX], cells[8 * RV_MAX], count = 0;
    int mx = m % n, my = m / n;
    for (int w = 0; w < RV_WORDS; w++)
        for (uint64_t b = flips[w]; b; b &= b - 1) {
            int c = w * 64 + __builtin_ctzll(b);
            int dx = c % n - mx, dy = c / n - my;
            int ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
            int sy = (dy > 0) - (dy < 0), sx = (dx > 0) - (dx < 0);
            int key = (ax > ay ? ax : ay) * 8 + dir[sy + 1][sx + 1];
            int i = count++;
            for (; i > 0 && keys[i - 1] > key; i--) {
                keys[i] = keys[i - 1];
                cells[i] = cells[i - 1];
            }
            keys[i] = key;
            cells[i] = c;
        }
    for (int i = 0; i < count; i++)
        game__step(res, cells[i], value);
}

static void reversi_apply(game_state *st, int move, game_result *res)
{
    game__result_clear(res);
    const int n = st->size;
    const int mover = st->to_move, opp = 1 - mover;
    /* Callers check first; this only keeps an unchecked call through the
     * table from writing outside the board or playing a move that flips
     * nothing. */
    if (st->over || move < 0 || move >= st->n_cells || !has_bit(&st->priv[RV_MOVES], move))
        return;
    uint64_t *P = discs(st, mover), *O = discs(st, opp);
    uint64_t f[RV_WORDS];
    flips_of(move, P, O, n, f);

    const int16_t v = (int16_t)(mover + 1);
    set_bit(P, move);
    st->cells[move] = v;
    int flipped = 0;
    for (int w = 0; w < RV_WORDS; w++) {
        P[w] |= f[w];
        O[w] &= ~f[w];
        for (uint64_t b = f[w]; b; b &= b - 1) {
            st->cells[w * 64 + __builtin_ctzll(b)] = v;
            flipped++;
        }
    }
    if (res) {
        game__step(res, move, v);
        record_flips(res, move, f, n, v);
        res->captured = flipped;
    }

    uint64_t *moves = &st->priv[RV_MOVES];
    int next;
    legal_bits(O, P, n, moves);
    if ((moves[0] | moves[1] | moves[2] | moves[3]) != 0) {
        next = opp;
    } else {
        legal_bits(P, O, n, moves);
        if ((moves[0] | moves[1] | moves[2] | moves[3]) == 0) {
            st->to_move = -1;
            st->over = true;
            return; /* res->next is already -1, n_passed 0 */
        }
        next = mover;
        game__passed(res, opp);
    }
    st->to_move = (int8_t)next;
    if (res)
        res->next = (int8_t)next;
}

static int reversi_legal_moves(const game_state *st, int *moves, int max)
{
    const uint64_t *m = &st->priv[RV_MOVES];
    int count = 0;
    for (int w = 0; w < RV_WORDS; w++)
        for (uint64_t b = m[w]; b && count < max; b &= b - 1)
            moves[count++] = w * 64 + __builtin_ctzll(b);
    return count;
}

static void reversi_scores(const game_state *st, int *scores)
{
    for (int s = 0; s < 2; s++) {
        const uint64_t *b = discs_c(st, s);
        scores[s] = 0;
        for (int w = 0; w < RV_WORDS; w++)
            scores[s] += __builtin_popcountll(b[w]);
    }
}

/* Algebraic notation: the column's letter, the row's number from 1 ("d3"). */
static void reversi_format_move(const game_state *st, int move, char *buf, size_t len)
{
    snprintf(buf, len, "%c%d", 'a' + move % st->size, move / st->size + 1);
}

static int reversi_parse_move(const game_state *st, const char *text, int *move)
{
    char col = (char)(text[0] | 0x20);
    if (col < 'a' || col >= 'a' + st->size)    /* also "": text + 1 would be past its end */
        return -1;
    char *end;
    long row = strtol(text + 1, &end, 10);
    if (end == text + 1 || *end || row < 1 || row > st->size)
        return -1;
    *move = (int)((row - 1) * st->size + (col - 'a'));
    return 0;
}

static const char *const reversi_colours[] = {"black", "white"};

const game_kind game_reversi_kind = {
    .name = "reversi",
    .title = "Reversi (Othello)",
    .layout = GAME_LAYOUT_GRID,
    .n_options = (int)(sizeof reversi_options / sizeof reversi_options[0]),
    .options = reversi_options,
    .init = reversi_init,
    .check = reversi_check,
    .apply = reversi_apply,
    .legal_moves = reversi_legal_moves,
    .scores = reversi_scores,
    .loaded = reversi_loaded,
    .drawing = GAME_DRAW_DISCS,
    .marks = "XO",
    .colours = reversi_colours,
    .format_move = reversi_format_move,
    .run_together = true,
    .parse_move = reversi_parse_move,
};
