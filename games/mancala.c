/*
 * mancala.c — what the three mancala kinds (sungka, congklak, kalah) share:
 * the starting position, the move check, an empty row, the end-of-game
 * sweep, legal moves and scores. The sowing rules, which is where the kinds
 * differ, stay in each kind's own file.
 */
#include "games_internal.h"

#include <string.h>

void game__mancala_setup(game_state *st, int seats, int cups, int stones)
{
    st->seats = (uint8_t)seats;
    st->cups = (uint16_t)cups;
    st->n_cells = (uint16_t)(seats * (cups + 1));
    for (int s = 0; s < seats; s++) {
        for (int c = 0; c < cups; c++)
            st->cells[game_mancala_cup(st, s, c)] = (int16_t)stones;
        st->cells[game_mancala_home(st, s)] = 0;
    }
    st->to_move = 0;
    st->over = false;
}

bool game__mancala_row_empty(const game_state *st, int seat)
{
    const int16_t *row = &st->cells[game_mancala_cup(st, seat, 0)];
    for (int c = 0; c < st->cups; c++)
        if (row[c] > 0)
            return false;
    return true;
}

int game__mancala_check(const game_state *st, int move, const char *cup, const char *home,
                        char *err, size_t errlen)
{
    int cups = st->cups;
    if (move == cups)
        return game__fail(GAME_E_HOME, err, errlen, "%s cannot be played; choose a %s 0..%d",
                          home, cup, cups - 1);
    if (move < 0 || move > cups)
        return game__fail(GAME_E_RANGE, err, errlen, "%s %d is out of range 0..%d", cup, move,
                          cups - 1);
    if (st->cells[game_mancala_cup(st, st->to_move, move)] == 0)
        return game__fail(GAME_E_EMPTY, err, errlen, "%s %d is empty", cup, move);
    return GAME_OK;
}

void game__mancala_sweep(game_state *st, game_result *res)
{
    for (int s = 0; s < st->seats; s++) {
        int home = game_mancala_home(st, s);
        int moved = 0;
        for (int c = 0; c < st->cups; c++) {
            int cell = game_mancala_cup(st, s, c);
            if (st->cells[cell] > 0) {
                moved += st->cells[cell];
                st->cells[cell] = 0;
                game__step(res, cell, 0);
            }
        }
        if (moved > 0) {
            st->cells[home] = (int16_t)(st->cells[home] + moved);
            game__step(res, home, st->cells[home]);
        }
    }
    st->to_move = -1;
    st->over = true;
    if (res) {
        res->next = -1;
        res->extra_turn = false;
    }
}

int game__mancala_legal_moves(const game_state *st, int *moves, int max)
{
    int count = 0;
    if (game__mancala_swap_open(st) && count < max)
        moves[count++] = GAME_MOVE_SWAP;
    for (int c = 0; c < st->cups && count < max; c++)
        if (st->cells[game_mancala_cup(st, st->to_move, c)] > 0)
            moves[count++] = c;
    return count;
}

void game__mancala_scores(const game_state *st, int *scores)
{
    for (int s = 0; s < st->seats; s++)
        scores[s] = st->cells[game_mancala_home(st, s)];
}

void game__mancala_capture(game_state *st, int pos, int opp, int home, game_result *res)
{
    int taken = st->cells[opp];
    st->cells[pos] = 0;
    st->cells[opp] = 0;
    st->cells[home] = (int16_t)(st->cells[home] + 1 + taken);
    game__step(res, pos, 0);
    game__step(res, opp, 0);
    game__step(res, home, st->cells[home]);
    if (res)
        res->captured = taken;
}

void game__mancala_two_seat_turn(game_state *st, int mover, bool again, game_result *res)
{
    if (game__mancala_row_empty(st, 0) || game__mancala_row_empty(st, 1)) {
        game__mancala_sweep(st, res);
        return;
    }
    st->to_move = (int8_t)(again ? mover : 1 - mover);
    if (res) {
        res->next = st->to_move;
        res->extra_turn = again;
    }
}

/* --- the pie rule (docs/rules.md §9) --- */

enum { SWAP_OPEN = 1, SWAP_FIRST_IS_1 = 2, SWAP_RULE = 4 };

const game_named_move game__mancala_named_moves[1] = {
    {GAME_MOVE_SWAP, "swap",
     "take the first player's position as yours; they move next from yours"},
};

void game__mancala_swap_init(game_state *st, int first)
{
    st->priv[0] = SWAP_RULE | SWAP_OPEN | (first == 1 ? SWAP_FIRST_IS_1 : 0);
}

static int swap_first_seat(const game_state *st)
{
    return (st->priv[0] & SWAP_FIRST_IS_1) ? 1 : 0;
}

bool game__mancala_swap_open(const game_state *st)
{
    return (st->priv[0] & SWAP_OPEN) && !st->over && st->to_move != swap_first_seat(st);
}

void game__mancala_turn_taken(game_state *st, int mover)
{
    /* The second seat's first move, whatever it is, closes the offer. */
    if ((st->priv[0] & SWAP_OPEN) && mover != swap_first_seat(st))
        st->priv[0] &= ~(uint64_t)SWAP_OPEN;
}

int game__mancala_check_swap(const game_state *st, char *err, size_t errlen)
{
    if (!(st->priv[0] & SWAP_RULE))
        return game__fail(GAME_E_ILLEGAL, err, errlen,
                          "this game has no swap (create it with swap=1)");
    if (!game__mancala_swap_open(st))
        return game__fail(GAME_E_ILLEGAL, err, errlen,
                          "swap is only allowed instead of the second player's first move");
    return GAME_OK;
}

void game__mancala_swap(game_state *st, game_result *res)
{
    game__result_clear(res);
    const int mover = st->to_move, side = st->cups + 1;
    for (int i = 0; i < side; i++) {
        int16_t a = st->cells[i], b = st->cells[side + i];
        if (a == b)
            continue;
        st->cells[i] = b;
        st->cells[side + i] = a;
        game__step(res, i, b);
        game__step(res, side + i, a);
    }
    st->priv[0] &= ~(uint64_t)SWAP_OPEN;
    st->to_move = (int8_t)(1 - mover);
    if (res)
        res->next = st->to_move;
}

/* Positions the first seat's first turn can reach are few (a turn goes on
 * only after an extra turn); these bounds keep the replay small anyway. */
#define SWAP_REPLAY_DEPTH 24
#define SWAP_REPLAY_NODES 20000

static bool same_position(const game_state *a, const game_state *b)
{
    if (a->to_move != b->to_move || a->over != b->over)
        return false;
    for (int i = 0; i < a->n_cells; i++)
        if (a->cells[i] != b->cells[i])
            return false;
    return true;
}

/* Is `target` at or after a first-turn move of `from` (the first seat to
 * move, swap open)? */
static bool first_turn_reaches(const game_state *from, const game_state *target, int depth,
                               int *budget)
{
    if (same_position(from, target))
        return true;
    if (from->over || from->to_move != swap_first_seat(from) || depth >= SWAP_REPLAY_DEPTH)
        return false;
    const size_t used = offsetof(game_state, cells) + (size_t)from->n_cells * sizeof from->cells[0];
    for (int c = 0; c < from->cups && *budget > 0; c++) {
        if (from->cells[game_mancala_cup(from, from->to_move, c)] == 0)
            continue;
        game_state next;
        memcpy(&next, from, used);
        from->kind->apply(&next, c, NULL);
        (*budget)--;
        if (first_turn_reaches(&next, target, depth + 1, budget))
            return true;
    }
    return false;
}

void game__mancala_swap_loaded(game_state *st, bool swap_on, int first)
{
    st->priv[0] = 0;
    if (!swap_on || st->over)
        return;
    game_state start;
    memset(&start, 0, offsetof(game_state, cells));
    start.kind = st->kind;
    start.opts = st->opts;
    start.layout = st->layout;
    if (st->kind->init(&start, &st->opts) != GAME_OK)
        return;
    int budget = SWAP_REPLAY_NODES;
    bool open = first_turn_reaches(&start, st, 0, &budget);
    game__mancala_swap_init(st, first);
    if (!open)
        st->priv[0] &= ~(uint64_t)SWAP_OPEN;
}
