/*
 * kalah.c — the `kalah` kind: Kalah, the common mancala, 2 seats, exactly as
 * docs/rules.md §3 (sowing as in congklak but a single lap with no relay; last
 * seed in the own store: move again; last seed in an own empty pit with a
 * non-empty opposite pit: both go to the store; the game ends as soon as
 * either row is empty and each seat adds its own remaining seeds to its own
 * store). Seat 0 moves first.
 *
 * Cells as for every mancala kind (games.h): seat s's pit c is cell
 * s*(cups+1)+c, its store s*(cups+1)+cups; the opposite of the mover's pit i
 * is the opponent's pit cups-1-i.
 *
 * Decisions where docs/rules.md is silent (also in the report to the lead):
 *  - The last seed in an own empty pit whose opposite pit is empty just stays
 *    there: no capture, no step beyond the sowing, the turn ends.
 *  - The origin pit, emptied when the move picks it up, counts as empty if
 *    the sowing laps the board and ends in it (13+ seeds with 6 pits).
 *  - A capture records three steps: the landing pit -> 0, the opposite pit
 *    -> 0, the store -> its new count; result.captured is the opponent's
 *    seeds taken (not the capturing seed).
 *  - The end sweep records, seat 0 first, a step for every non-empty pit
 *    (-> 0) and then one for that seat's store if it grew. It is checked after
 *    every move, extra turn or not; an extra turn earned by the move that
 *    ends the game is not reported (extra_turn = false, next = -1).
 *  - Passing cannot happen: a seat to move always has seeds, since the game
 *    ends the moment either row is empty. n_passed is always 0.
 *  - swap=1 (docs/rules.md §9): GAME_MOVE_SWAP turns the board round once,
 *    instead of seat 1's first move (mancala.c).
 */
#include "games_internal.h"

enum { OPT_CUPS, OPT_STONES, OPT_SWAP };

static const game_option_spec kalah_options[] = {
    [OPT_CUPS] = {"cups", 3, 8, 6, "pits per seat, not counting the store"},
    [OPT_STONES] = {"stones", 1, 10, 4, "seeds in each pit at the start"},
    [OPT_SWAP] = {"swap", 0, 1, 0,
                  "1: the pie rule, the second player may swap instead of a first move"},
};

static int kalah_init(game_state *st, const game_options *opts)
{
    game__mancala_setup(st, 2, opts->value[OPT_CUPS], opts->value[OPT_STONES]);
    if (opts->value[OPT_SWAP])
        game__mancala_swap_init(st, 0);
    return GAME_OK;
}

static void kalah_loaded(game_state *st)
{
    game__mancala_swap_loaded(st, st->opts.value[OPT_SWAP] != 0, 0);
}

static int kalah_check(const game_state *st, int move, char *err, size_t errlen)
{
    if (move == GAME_MOVE_SWAP)
        return game__mancala_check_swap(st, err, errlen);
    return game__mancala_check(st, move, "pit", "the store", err, errlen);
}

static void kalah_apply(game_state *st, int move, game_result *res)
{
    game__result_clear(res);
    const int mover = st->to_move;
    const int cups = st->cups;
    const int n = st->n_cells;
    const int home = game_mancala_home(st, mover);
    const int other_home = game_mancala_home(st, 1 - mover);
    const int row0 = game_mancala_cup(st, mover, 0);

    /* Callers check first; this only keeps an unchecked call through the
     * table from writing outside the row. */
    if (move == GAME_MOVE_SWAP && game__mancala_swap_open(st)) {
        game__mancala_swap(st, res);
        return;
    }
    if (st->over || move < 0 || move >= cups || st->cells[row0 + move] == 0)
        return;
    game__mancala_turn_taken(st, mover);

    int pos = row0 + move;
    int hand = st->cells[pos];
    st->cells[pos] = 0;
    game__step(res, pos, 0);
    while (hand > 0) {
        do
            pos = pos + 1 == n ? 0 : pos + 1;
        while (pos == other_home);
        st->cells[pos]++;
        game__step(res, pos, st->cells[pos]);
        hand--;
    }

    bool again = pos == home;
    if (pos >= row0 && pos < row0 + cups && st->cells[pos] == 1) {
        /* The last seed fell into an own empty pit: capture, if the opposite
         * pit has seeds. */
        int opp = game_mancala_cup(st, 1 - mover, cups - 1 - (pos - row0));
        if (st->cells[opp] > 0)
            game__mancala_capture(st, pos, opp, home, res);
    }
    game__mancala_two_seat_turn(st, mover, again, res);
}

const game_kind game_kalah_kind = {
    .name = "kalah",
    .title = "Kalah (the common mancala)",
    .layout = GAME_LAYOUT_MANCALA,
    .n_options = (int)(sizeof kalah_options / sizeof kalah_options[0]),
    .options = kalah_options,
    .init = kalah_init,
    .check = kalah_check,
    .apply = kalah_apply,
    .legal_moves = game__mancala_legal_moves,
    .scores = game__mancala_scores,
    .loaded = kalah_loaded,
    .n_named_moves = 1,
    .named_moves = game__mancala_named_moves,
};
