/*
 * sungka.c — the `sungka` kind: Filipino sungka for 2..6 seats, exactly as
 * docs/rules.md §1 (ring sowing, own home sown and other homes skipped, extra turn
 * in the own home, relay from an own non-empty cup, capture from the NEXT
 * seat's opposing cup, seats with empty rows pass, the game ends when every
 * stone is home).
 *
 * Decisions where docs/rules.md is silent (also in the report to the lead):
 *  - An extra turn earned by a mover whose row is then empty cannot be used:
 *    the mover passes (recorded first in result.passed, extra_turn = false)
 *    and the turn goes on to the next seats as after any other ending.
 *  - When the game ends nobody is reported as passing (n_passed = 0).
 *  - result.captured counts only the stones taken from the opposing cup, not
 *    the capturing stone itself (it was the mover's already).
 *  - A capture always records three steps: the landing cup -> 0, the opposing
 *    cup -> 0 (even when it was already empty), the home -> its new count.
 *  - The relay guard is checked when a relay would start: if more than
 *    GAME_RELAY_LIMIT stones have been sown this turn, the relay does not
 *    start, the last stone stays where it lies and the turn ends as if it had
 *    landed in another seat's row. Stones are thus never lost. (In real play
 *    every lap passes the mover's home, which only grows, so a turn always
 *    ends; the guard only matters for huge loaded positions.)
 */
#include "games_internal.h"

enum { OPT_PLAYERS, OPT_CUPS, OPT_STONES };

static const game_option_spec sungka_options[] = {
    [OPT_PLAYERS] = {"players", 2, GAME_MAX_SEATS, 2, "number of seats"},
    [OPT_CUPS] = {"cups", 3, 12, 6, "cups per seat, not counting the home"},
    [OPT_STONES] = {"stones", 1, 20, 7, "stones in each cup at the start"},
};

static int sungka_init(game_state *st, const game_options *opts)
{
    game__mancala_setup(st, opts->value[OPT_PLAYERS], opts->value[OPT_CUPS],
                        opts->value[OPT_STONES]);
    return GAME_OK;
}

static int sungka_check(const game_state *st, int move, char *err, size_t errlen)
{
    return game__mancala_check(st, move, "cup", "the home", err, errlen);
}

/* The turn is over: find who moves next, starting with `first` (the seat
 * after the mover; the mover itself comes last, when all others are empty),
 * skipping and recording every seat whose row is empty. No seat with stones
 * left means every stone is home: the game is over. */
static void hand_over(game_state *st, int first, game_result *res)
{
    for (int k = 0; k < st->seats; k++) {
        int s = (first + k) % st->seats;
        if (!game__mancala_row_empty(st, s)) {
            st->to_move = (int8_t)s;
            if (res)
                res->next = (int8_t)s;
            return;
        }
        game__passed(res, s);
    }
    st->to_move = -1;
    st->over = true;
    if (res) {
        res->next = -1;
        res->n_passed = 0; /* the game ended: nobody "passes" */
    }
}

long game__sungka_apply(game_state *st, int move, game_result *res, long limit)
{
    game__result_clear(res);
    const int mover = st->to_move;
    const int cups = st->cups;
    const int n = st->n_cells;
    const int home = game_mancala_home(st, mover);
    const int row0 = game_mancala_cup(st, mover, 0);
    long sown = 0;

    /* Callers check first; this only keeps an unchecked call through the
     * table from looping on an empty hand or writing outside the row. */
    if (st->over || move < 0 || move >= cups || st->cells[row0 + move] == 0)
        return 0;

    int pos = row0 + move;
    int hand = st->cells[pos];
    st->cells[pos] = 0;
    game__step(res, pos, 0);

    for (;;) {
        bool was_empty = false;
        while (hand > 0) {
            /* Forward along the ring; every home but the mover's is skipped. */
            do
                pos = pos + 1 == n ? 0 : pos + 1;
            while (pos % (cups + 1) == cups && pos != home);
            was_empty = st->cells[pos] == 0;
            st->cells[pos]++;
            game__step(res, pos, st->cells[pos]);
            hand--;
            sown++;
        }

        if (pos == home) {
            /* Rule 2: the mover moves again, if they can. */
            if (!game__mancala_row_empty(st, mover)) {
                if (res) {
                    res->extra_turn = true;
                    res->next = (int8_t)mover;
                }
                return sown;
            }
            game__passed(res, mover);
            break;
        }
        if (pos < row0 || pos >= row0 + cups)
            break; /* rule 1: another seat's row */
        if (was_empty) {
            /* Rule 4: capture from the next seat's opposing cup. */
            int i = pos - row0;
            int next = (mover + 1) % st->seats;
            int opp = game_mancala_cup(st, next, cups - 1 - i);
            int taken = st->cells[opp];
            st->cells[pos] = 0;
            st->cells[opp] = 0;
            st->cells[home] = (int16_t)(st->cells[home] + 1 + taken);
            game__step(res, pos, 0);
            game__step(res, opp, 0);
            game__step(res, home, st->cells[home]);
            if (res)
                res->captured = taken;
            break;
        }
        /* Rule 3: relay, unless this turn already sowed too much. */
        if (sown > limit) {
            if (res)
                res->relay_limit_hit = true;
            break;
        }
        hand = st->cells[pos];
        st->cells[pos] = 0;
        game__step(res, pos, 0);
    }

    hand_over(st, (mover + 1) % st->seats, res);
    return sown;
}

static void sungka_apply(game_state *st, int move, game_result *res)
{
    game__sungka_apply(st, move, res, GAME_RELAY_LIMIT);
}

const game_kind game_sungka_kind = {
    .name = "sungka",
    .title = "Sungka (Filipino mancala)",
    .layout = GAME_LAYOUT_MANCALA,
    .n_options = (int)(sizeof sungka_options / sizeof sungka_options[0]),
    .options = sungka_options,
    .init = sungka_init,
    .check = sungka_check,
    .apply = sungka_apply,
    .legal_moves = game__mancala_legal_moves,
    .scores = game__mancala_scores,
};
