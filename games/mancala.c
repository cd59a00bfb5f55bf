/*
 * mancala.c — what the three mancala kinds (sungka, congklak, kalah) share:
 * the starting position, the move check, an empty row, the end-of-game
 * sweep, legal moves and scores. The sowing rules, which is where the kinds
 * differ, stay in each kind's own file.
 */
#include "games_internal.h"

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
