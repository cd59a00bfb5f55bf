/*
 * congklak.c — the `congklak` kind: Indonesian congklak / dakon for 2 seats,
 * exactly as docs/rules.md §2 (sungka's ring with 2 seats, own store sown and the
 * opponent's skipped; relay from ANY non-empty pit on either side; capture
 * only in an own empty pit; the game ends as soon as either row is empty and
 * each seat's remaining pebbles go to its own store).
 *
 * Cells as for every mancala kind (games.h): seat s's pit c is cell
 * s*(cups+1)+c, its store s*(cups+1)+cups. The opposite of the mover's pit i
 * is the opponent's pit cups-1-i (the seed's getCrossPos).
 *
 * Decisions where docs/rules.md is silent (also in the report to the lead):
 *  - `first` -1 means "the board service picks the first seat at random". The
 *    engine is deterministic: it never draws a random number, so with
 *    first = -1 it starts with seat 0; the service resolves -1 to 0 or 1 (at
 *    random) before it creates the game, and the stored options say who began.
 *  - "The game ends as soon as either player has no pebbles in their pits" is
 *    checked when a sowing ends (the turn ends, or the mover earned an extra
 *    turn), as in the seed's state diagram (ifDone); a row emptied for a
 *    moment in the middle of a relay does not end the game.
 *  - The end sweep records, seat 0 first, a step for every non-empty pit
 *    (-> 0) and then one for that seat's store (-> its new count) if it grew.
 *  - An extra turn earned by the move that ends the game is not reported:
 *    extra_turn = false, next = -1.
 *  - Passing cannot happen: a seat to move always has pebbles, since the game
 *    ends the moment either row is empty. n_passed is always 0.
 *  - A capture records three steps like sungka: the landing pit -> 0, the
 *    opposite pit -> 0 (even when it was already empty), the store.
 *    result.captured counts only the opponent's pebbles taken.
 *  - The origin pit, emptied when the move picks it up, counts as empty if a
 *    later lap ends in it (so the last pebble there is a capture).
 *  - The relay guard: a relay that would start once more than `limit`
 *    (GAME_RELAY_LIMIT) pebbles were sown this turn does not start; the last
 *    pebble stays where it lies and the turn ends (relay_limit_hit). Every
 *    lap passes the mover's store, which keeps its pebble, so a turn always
 *    ends by itself; but a loaded position with thousands of pebbles can sow
 *    far more than the limit, so the guard is real (tests reach it).
 *  - swap=1 (docs/rules.md §9): GAME_MOVE_SWAP turns the board round once,
 *    instead of the second seat's first move (mancala.c).
 */
#include "games_internal.h"

enum { OPT_CUPS, OPT_STONES, OPT_FIRST, OPT_SWAP };

static const game_option_spec congklak_options[] = {
    [OPT_CUPS] = {"cups", 3, 12, 7, "pits per seat, not counting the store"},
    [OPT_STONES] = {"stones", 1, 20, 7, "pebbles in each pit at the start"},
    [OPT_FIRST] = {"first", -1, 1, -1,
                   "-1: the board service picks the first player at random; 0 or 1 fixes it"},
    [OPT_SWAP] = {"swap", 0, 1, 0,
                  "1: the pie rule, the second player may swap instead of a first move"},
};

static int first_seat(const game_options *opts)
{
    return opts->value[OPT_FIRST] == 1 ? 1 : 0;
}

static int congklak_init(game_state *st, const game_options *opts)
{
    game__mancala_setup(st, 2, opts->value[OPT_CUPS], opts->value[OPT_STONES]);
    /* -1 is resolved by the board service before the game is created (see
     * the head of this file); the engine itself starts with seat 0. */
    st->to_move = (int8_t)first_seat(opts);
    if (opts->value[OPT_SWAP])
        game__mancala_swap_init(st, first_seat(opts));
    return GAME_OK;
}

static void congklak_loaded(game_state *st)
{
    game__mancala_swap_loaded(st, st->opts.value[OPT_SWAP] != 0, first_seat(&st->opts));
}

static int congklak_check(const game_state *st, int move, char *err, size_t errlen)
{
    if (move == GAME_MOVE_SWAP)
        return game__mancala_check_swap(st, err, errlen);
    return game__mancala_check(st, move, "pit", "the home pot", err, errlen);
}

long game__congklak_apply(game_state *st, int move, game_result *res, long limit)
{
    game__result_clear(res);
    const int mover = st->to_move;
    const int cups = st->cups;
    const int n = st->n_cells;
    const int home = game_mancala_home(st, mover);
    const int other_home = game_mancala_home(st, 1 - mover);
    const int row0 = game_mancala_cup(st, mover, 0);
    long sown = 0;
    bool again = false;

    /* Callers check first; this only keeps an unchecked call through the
     * table from looping on an empty hand or writing outside the row. */
    if (move == GAME_MOVE_SWAP && game__mancala_swap_open(st)) {
        game__mancala_swap(st, res);
        return 0;
    }
    if (st->over || move < 0 || move >= cups || st->cells[row0 + move] == 0)
        return 0;
    game__mancala_turn_taken(st, mover);

    int pos = row0 + move;
    int hand = st->cells[pos];
    st->cells[pos] = 0;
    game__step(res, pos, 0);

    for (;;) {
        bool was_empty = false;
        while (hand > 0) {
            do
                pos = pos + 1 == n ? 0 : pos + 1;
            while (pos == other_home);
            was_empty = st->cells[pos] == 0;
            st->cells[pos]++;
            game__step(res, pos, st->cells[pos]);
            hand--;
            sown++;
        }

        if (pos == home) {
            again = true; /* rule 1: the mover moves again */
            break;
        }
        if (!was_empty) {
            /* Rule 2: relay from any non-empty pit, unless this turn already
             * sowed too much. */
            if (sown > limit) {
                if (res)
                    res->relay_limit_hit = true;
                break;
            }
            hand = st->cells[pos];
            st->cells[pos] = 0;
            game__step(res, pos, 0);
            continue;
        }
        if (pos >= row0 && pos < row0 + cups) {
            /* Rule 3: capture the pebble and the opposite pit. */
            int opp = game_mancala_cup(st, 1 - mover, cups - 1 - (pos - row0));
            game__mancala_capture(st, pos, opp, home, res);
        }
        break; /* rule 3 done, or rule 4: the opponent's empty pit */
    }
    game__mancala_two_seat_turn(st, mover, again, res);
    return sown;
}

static void congklak_apply(game_state *st, int move, game_result *res)
{
    game__congklak_apply(st, move, res, GAME_RELAY_LIMIT);
}

const game_kind game_congklak_kind = {
    .name = "congklak",
    .title = "Congklak (Indonesian mancala)",
    .layout = GAME_LAYOUT_MANCALA,
    .n_options = (int)(sizeof congklak_options / sizeof congklak_options[0]),
    .options = congklak_options,
    .init = congklak_init,
    .check = congklak_check,
    .apply = congklak_apply,
    .legal_moves = game__mancala_legal_moves,
    .scores = game__mancala_scores,
    .loaded = congklak_loaded,
    .n_named_moves = 1,
    .named_moves = game__mancala_named_moves,
};
