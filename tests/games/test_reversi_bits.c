/*
 * test_reversi_bits.c — reversi's one-word bitboard code (games/reversi_bits.h:
 * the Kogge-Stone fill of 8x8, the shift loop, flips from ray masks) and its
 * perft walk (reversi_perft.c) against the generic four-word code that boards
 * above 8x8 use (game__reversi_generic_*), and both against a naive cell walk
 * written here. Positions come from random playouts on every size, 4..16:
 * legal-move sets of both seats, the flips of every empty cell, the board the
 * rules leave after each move, passes and the end of the game; then perft
 * from the start and from random mid-game positions, by both walks.
 */
#include "games_test.h"
#include "reversi_bits.h"

#include <stdlib.h>
#include <string.h>

static void new_reversi(game_state *st, int size)
{
    const game_kind *k = game_kind_find("reversi");
    game_options o;
    char err[GAME_ERR_LEN] = "";
    assert_non_null(k);
    game_options_default(k, &o);
    assert_int_equal(game_options_set(k, &o, "size", size, err, sizeof err), GAME_OK);
    assert_int_equal(game_new(st, k, &o, err, sizeof err), GAME_OK);
}

/* --- the naive reference: rays walked cell by cell over the cells --- */

static const int DX[8] = {1, -1, 0, 0, 1, -1, -1, 1};
static const int DY[8] = {0, 0, 1, -1, 1, -1, 1, -1};

/* Discs of `seat` (0/1) flipped by playing m, as a 4-word mask. */
static void naive_flips(const game_state *st, int m, int seat, uint64_t *out)
{
    const int n = st->size, mx = m % n, my = m / n;
    memset(out, 0, 4 * sizeof *out);
    if (game_cell(st, m) != 0)
        return;
    for (int d = 0; d < 8; d++) {
        int x = mx + DX[d], y = my + DY[d], run = 0;
        while (x >= 0 && x < n && y >= 0 && y < n && game_cell(st, y * n + x) == 2 - seat) {
            x += DX[d];
            y += DY[d];
            run++;
        }
        if (run == 0 || x < 0 || x >= n || y < 0 || y >= n || game_cell(st, y * n + x) != seat + 1)
            continue;
        for (int k = 1; k <= run; k++) {
            int c = (my + k * DY[d]) * n + mx + k * DX[d];
            out[c >> 6] |= 1ull << (c & 63);
        }
    }
}

static void naive_moves(const game_state *st, int seat, uint64_t *out)
{
    memset(out, 0, 4 * sizeof *out);
    for (int m = 0; m < game_cell_count(st); m++) {
        uint64_t f[4];
        naive_flips(st, m, seat, f);
        if (f[0] | f[1] | f[2] | f[3])
            out[m >> 6] |= 1ull << (m & 63);
    }
}

static bool any(const uint64_t *b)
{
    return (b[0] | b[1] | b[2] | b[3]) != 0;
}

static void assert_words(const uint64_t *got, const uint64_t *want, const char *what, int n,
                         int cell)
{
    for (int w = 0; w < 4; w++)
        if (got[w] != want[w])
            fail_msg("size %d, %s (cell %d): word %d is %016llx, expected %016llx", n, what,
                     cell, w, (unsigned long long)got[w], (unsigned long long)want[w]);
}

/* Discs of seat as the test reads them from the cells. */
static void discs_of(const game_state *st, int seat, uint64_t *out)
{
    memset(out, 0, 4 * sizeof *out);
    for (int c = 0; c < game_cell_count(st); c++)
        if (game_cell(st, c) == seat + 1)
            out[c >> 6] |= 1ull << (c & 63);
}

/* Every generator agrees on the position: the moves of both seats, and the
 * flips of every empty cell for both. */
static void compare_generators(const game_state *st)
{
    const int n = st->size;
    const rv_bits *b = game__reversi_bits(n);
    assert_true((b != NULL) == (n <= 8));
    for (int seat = 0; seat < 2; seat++) {
        uint64_t P[4], O[4], naive[4], generic[4];
        discs_of(st, seat, P);
        discs_of(st, 1 - seat, O);
        naive_moves(st, seat, naive);
        game__reversi_generic_moves(P, O, n, generic);
        assert_words(generic, naive, "generic moves", n, -1);
        if (b) {
            uint64_t fast[4] = {rv_moves(P[0], O[0], b), 0, 0, 0};
            uint64_t loop[4] = {rv_moves_loop(P[0], O[0], b), 0, 0, 0};
            assert_words(fast, naive, "one-word moves", n, -1);
            assert_words(loop, naive, "shift-loop moves", n, -1);
            if (n == 8) {
                uint64_t ks[4] = {rv_moves8(P[0], O[0]), 0, 0, 0};
                assert_words(ks, naive, "Kogge-Stone moves", n, -1);
            }
        }
        for (int m = 0; m < n * n; m++) {
            if (game_cell(st, m) != 0)
                continue;
            uint64_t want[4], got[4];
            naive_flips(st, m, seat, want);
            game__reversi_generic_flips(m, P, O, n, got);
            assert_words(got, want, "generic flips", n, m);
            if (b) {
                uint64_t one[4] = {rv_flips(m, P[0], O[0], b), 0, 0, 0};
                assert_words(one, want, "one-word flips", n, m);
            }
        }
    }
}

/* One random game: every position through compare_generators, every move
 * checked against the flips, the next seat against the moves of both. */
static void playout(int n, uint64_t *rng)
{
    game_state st;
    new_reversi(&st, n);
    while (!game_is_over(&st)) {
        compare_generators(&st);
        const int mover = game_to_move(&st);
        int moves[GAME_MAX_MOVES];
        int count = game_legal_moves(&st, moves, GAME_MAX_MOVES);
        assert_true(count > 0);
        int m = moves[test_rand(rng) % (unsigned)count];
        uint64_t P[4], O[4], f[4];
        discs_of(&st, mover, P);
        discs_of(&st, 1 - mover, O);
        game__reversi_generic_flips(m, P, O, n, f);
        assert_true(any(f));
        game_result r;
        assert_int_equal(game_play(&st, mover, m, &r, NULL, 0), GAME_OK);

        /* The board the rules left: P gains the move and the flips. */
        uint64_t wantP[4], wantO[4], gotP[4], gotO[4];
        for (int w = 0; w < 4; w++) {
            wantP[w] = P[w] | f[w];
            wantO[w] = O[w] & ~f[w];
        }
        wantP[m >> 6] |= 1ull << (m & 63);
        discs_of(&st, mover, gotP);
        discs_of(&st, 1 - mover, gotO);
        assert_words(gotP, wantP, "mover's discs after the move", n, m);
        assert_words(gotO, wantO, "opponent's discs after the move", n, m);
        assert_memory_equal(&st.priv[mover * 4], wantP, sizeof wantP);
        assert_memory_equal(&st.priv[(1 - mover) * 4], wantO, sizeof wantO);

        /* The turn: the opponent if able, else a pass, else the end. */
        uint64_t theirs[4], mine[4];
        game__reversi_generic_moves(wantO, wantP, n, theirs);
        game__reversi_generic_moves(wantP, wantO, n, mine);
        if (any(theirs)) {
            assert_int_equal(game_to_move(&st), 1 - mover);
            assert_int_equal(r.n_passed, 0);
            assert_memory_equal(&st.priv[8], theirs, sizeof theirs);
        } else if (any(mine)) {
            assert_int_equal(game_to_move(&st), mover);
            assert_int_equal(r.n_passed, 1);
            assert_int_equal(r.passed[0], 1 - mover);
            assert_memory_equal(&st.priv[8], mine, sizeof mine);
        } else {
            assert_true(game_is_over(&st));
            assert_int_equal(r.n_passed, 0);
        }
    }
    compare_generators(&st);
}

static void test_playouts(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    for (int n = 4; n <= 16; n += 2) {
        int games = n <= 8 ? 60 : 4;
        for (int g = 0; g < games; g++)
            playout(n, &rng);
    }
}

/* The 8x8 fill on hand-made lines: a run of six, a run against the edge
 * (no move), and runs that would wrap round to the next row. */
static void test_fill_edges(void **state)
{
    (void)state;
    /* Row 1: P at a1, O at b1..g1: the move is h1. */
    uint64_t P = 1ull << 0, O = 0x7eull;
    assert_int_equal(rv_moves8(P, O), 1ull << 7);
    /* P at b1, O at c1..h1: the run meets the edge, no move (and not a2). */
    P = 1ull << 1;
    O = 0xfcull;
    assert_int_equal(rv_moves8(P, O), 0);
    /* Column a: P at a1, O at a2..a7, move a8. */
    P = 1ull;
    O = 0;
    for (int y = 1; y < 7; y++)
        O |= 1ull << (y * 8);
    assert_int_equal(rv_moves8(P, O), 1ull << 56);
    /* Diagonal a1-h8: P at a1, O on b2..g7: move h8. */
    O = 0;
    for (int k = 1; k < 7; k++)
        O |= 1ull << (k * 9);
    assert_int_equal(rv_moves8(P, O), 1ull << 63);
    /* P at h1, O at g2 only: the move is f3 (the anti-diagonal). */
    P = 1ull << 7;
    O = 1ull << 14;
    assert_int_equal(rv_moves8(P, O), 1ull << 21);
    assert_int_equal(rv_flips(21, P, O, game__reversi_bits(8)), O);
}

/* --- perft: the kind's own walk against the walk over states --- */

static void compare_perft(const game_state *st, int depth)
{
    long long own[GAME_PERFT_MAX_DEPTH + 1], states[GAME_PERFT_MAX_DEPTH + 1];
    game_perft_level *levels = calloc((size_t)depth, sizeof *levels);
    assert_non_null(levels);
    assert_int_equal(game__reversi_perft(st, depth, own), 0);
    assert_int_equal(game__perft_counts_states(st, depth, states, levels), 0);
    free(levels);
    for (int d = 0; d <= depth; d++)
        if (own[d] != states[d])
            fail_msg("size %d depth %d: own walk %lld, state walk %lld", st->size, d, own[d],
                     states[d]);
}

static void test_perft_walks(void **state)
{
    (void)state;
    game_state st;
    /* From the start; 4x4 to the end of every game (passes and ends). */
    static const int depth[] = {[4] = 14, [6] = 7, [8] = 7};
    for (int n = 4; n <= 8; n += 2) {
        new_reversi(&st, n);
        compare_perft(&st, depth[n]);
    }
    /* From random mid-game positions: late ones end games within reach. */
    uint64_t rng = 12345;
    for (int n = 4; n <= 8; n += 2)
        for (int g = 0; g < 12; g++) {
            new_reversi(&st, n);
            int plies = (int)(test_rand(&rng) % (unsigned)(n * n - 6));
            for (int p = 0; p < plies && !game_is_over(&st); p++) {
                int moves[GAME_MAX_MOVES];
                int count = game_legal_moves(&st, moves, GAME_MAX_MOVES);
                game_play(&st, game_to_move(&st), moves[test_rand(&rng) % (unsigned)count], NULL,
                          NULL, 0);
            }
            compare_perft(&st, n == 8 ? 5 : 6);
        }
    /* Larger boards are not the own walk's: perft.c walks states for them. */
    new_reversi(&st, 10);
    long long counts[4];
    assert_int_equal(game__reversi_perft(&st, 3, counts), -1);
    assert_int_equal(game_perft(&st, 3), 56);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_edges),
        cmocka_unit_test(test_playouts),
        cmocka_unit_test(test_perft_walks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
