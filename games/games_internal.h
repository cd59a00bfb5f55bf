/*
 * games_internal.h — what the files of games/ share with each other and with
 * tests/games, but not with the rest of the system: the list of kinds, the
 * error-sentence helper, step recording, and the sungka sower with its relay
 * limit as a parameter (so the guard of docs/rules.md can be tested with a small
 * limit). Other modules include games.h only.
 */
#ifndef SUNGKA_GAMES_INTERNAL_H
#define SUNGKA_GAMES_INTERNAL_H

#include "games.h"
#include "perft.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every kind, in registry order. Adding a kind is one line here (its table
 * lives in its own file, e.g. kalah.c defines `const game_kind game_kalah_kind`)
 * plus the file in games/CMakeLists.txt.
 */
#define GAME_KIND_LIST(X) \
    X(game_sungka_kind) \
    X(game_congklak_kind) \
    X(game_kalah_kind) \
    X(game_reversi_kind) \
    X(game_tictactoe_kind)

#define GAME_KIND_DECLARE(k) extern const game_kind k;
GAME_KIND_LIST(GAME_KIND_DECLARE)
#undef GAME_KIND_DECLARE

/* Write a sentence into err (which may be NULL or errlen 0) and return code.
 * Kinds use it so that every error path is one line. */
int game__fail(int code, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Reset a result before a move fills it in. The steps array is not cleared:
 * only steps[0..n_steps-1] are meaningful, and clearing 4 KiB per move would
 * slow the bot's searches. res may be NULL. */
static inline void game__result_clear(game_result *res)
{
    if (!res)
        return;
    res->n_steps = 0;
    res->truncated = false;
    res->next = -1;
    res->extra_turn = false;
    res->n_passed = 0;
    for (int i = 0; i < GAME_MAX_SEATS; i++)
        res->passed[i] = -1;
    res->captured = 0;
    res->relay_limit_hit = false;
}

/* Record that `cell` now holds `value`; past GAME_MAX_STEPS only mark the
 * result truncated (the final board is in the state anyway). */
static inline void game__step(game_result *res, int cell, int value)
{
    if (!res)
        return;
    if (res->n_steps >= GAME_MAX_STEPS) {
        res->truncated = true;
        return;
    }
    res->steps[res->n_steps].cell = (int16_t)cell;
    res->steps[res->n_steps].value = (int16_t)value;
    res->n_steps++;
}

/* Record a seat that is skipped because it cannot move. */
static inline void game__passed(game_result *res, int seat)
{
    if (res && res->n_passed < GAME_MAX_SEATS)
        res->passed[res->n_passed++] = (int8_t)seat;
}

/* mancala.c: what sungka, congklak and kalah share. `cup` and `home` are the
 * kind's own words for error sentences ("pit", "the store"). The sweep puts
 * every seat's remaining stones into its own home and ends the game. */
void game__mancala_setup(game_state *st, int seats, int cups, int stones);
bool game__mancala_row_empty(const game_state *st, int seat);
int game__mancala_check(const game_state *st, int move, const char *cup, const char *home,
                        char *err, size_t errlen);
void game__mancala_sweep(game_state *st, game_result *res);
/* The last stone at `pos` takes itself and the opposite pit `opp` into
 * `home` (kalah and congklak). */
void game__mancala_capture(game_state *st, int pos, int opp, int home, game_result *res);
/* The end of a two-seat sowing: a row is empty, so sweep and end; or the
 * turn passes (stays with the mover after an extra turn). */
void game__mancala_two_seat_turn(game_state *st, int mover, bool again, game_result *res);
/* Every cup with stones, after GAME_MOVE_SWAP when the swap is open. */
int game__mancala_legal_moves(const game_state *st, int *moves, int max);

/*
 * The pie rule of two-seat congklak and kalah (docs/rules.md §9). A state's
 * priv[0] says whether the swap is still open (bit 0), which seat moved
 * first (bit 1) and whether the game has the rule at all (bit 2): the swap is the second seat's to take, instead of a move,
 * on its first turn. Kinds call swap_init from init when their `swap`
 * option is on, turn_taken at the start of every cell move, and route
 * GAME_MOVE_SWAP to check_swap and swap.
 */
extern const game_named_move game__mancala_named_moves[1];
void game__mancala_swap_init(game_state *st, int first);
bool game__mancala_swap_open(const game_state *st);
void game__mancala_turn_taken(game_state *st, int mover);
int game__mancala_check_swap(const game_state *st, char *err, size_t errlen);
/* Turn the board round: each seat's pits and store take the other's, and
 * the first seat, which now holds the second's old side, moves. */
void game__mancala_swap(game_state *st, game_result *res);
/* The kinds' `loaded`: whether the swap is open is not on the board, so
 * it is found again by replaying the first seat's possible first turns
 * from the start (bounded: a loaded position beyond the bound is taken as
 * swap closed). `swap_on` is the kind's swap option, `first` its first
 * seat. */
void game__mancala_swap_loaded(game_state *st, bool swap_on, int first);
void game__mancala_scores(const game_state *st, int *scores);

/*
 * The sungka move with the relay guard as a parameter: sungka's apply calls it
 * with GAME_RELAY_LIMIT; tests call it with small limits. A relay that would
 * start once more than `limit` stones have been sown this turn does not start:
 * the turn ends where the last stone lies. The move must have passed check.
 * Returns the number of stones sown (dropped) in this turn.
 */
long game__sungka_apply(game_state *st, int move, game_result *res, long limit);

/* The congklak move with the relay guard as a parameter, as for sungka:
 * congklak's apply calls it with GAME_RELAY_LIMIT, tests with small limits.
 * The move must have passed check. Returns the number of pebbles sown. */
long game__congklak_apply(game_state *st, int move, game_result *res, long limit);

/* Tic-tac-toe's table of lines for side n (3..8) and d dimensions (2..4), for
 * tests: the number of lines (-1 outside those ranges), and the n cells of
 * line i into cells[] (GAME_OK, or GAME_E_RANGE for no such line). */
int game__tictactoe_line_count(int n, int d);
int game__tictactoe_line(int n, int d, int i, int *cells);

/* Reversi's generic move generation (reversi.c: four words per colour, the
 * path of boards above 8x8) on a board of any side n (4..16, even), for tests
 * to compare the one-word code of reversi_bits.h with: P and O hold the
 * mover's and the opponent's discs (4 words each, bit y*n+x), out gets 4
 * words — the legal moves, or the discs flipped by playing empty cell m. */
void game__reversi_generic_moves(const uint64_t *P, const uint64_t *O, int n,
                                 uint64_t *out /* OUT [4] */);
void game__reversi_generic_flips(int m, const uint64_t *P, const uint64_t *O, int n,
                                 uint64_t *out /* OUT [4] */);

/*
 * A kind's own perft walk (perft.h conventions, counts[1..depth] like
 * game_perft_counts) on its own fast representation, which perft.c uses
 * instead of walking game_state copies. Returns 0, or -1 when it does not
 * handle this position (perft.c then walks states); counts are then
 * undefined. Reversi's handles boards of one word (4x4, 6x6, 8x8).
 */
int game__reversi_perft(const game_state *st, int depth, long long *counts /* OUT */);

/* perft.c's walk over game_state copies, the one every kind has, even when
 * the kind has a walk of its own: tests compare the two. Same contract as
 * game_perft_counts. */
int game__perft_counts_states(const game_state *st, int depth, long long *counts /* OUT */,
                              game_perft_level *levels /* scratch */);

#ifdef __cplusplus
}
#endif

#endif /* SUNGKA_GAMES_INTERNAL_H */
