/*
 * room_rematch.c — a rematch after the end (docs/rules.md, "Leaving a game"): any
 * seated player offers, the others accept or decline, and when every seat
 * has accepted the service starts a new game with the same settings and
 * each player one seat on. The offer is logged with the finished game,
 * which a restart recovers while its players are still there, so an open
 * offer survives the service; the new game is a game like any other.
 * Loop thread only.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "room_internal.h"

/* How many offers one seat may begin after one game: offers are no flood. */
#define REMATCH_STARTS_MAX 3

static unsigned every_seat(const room *r)
{
    return (1u << game_seats(&r->state)) - 1;
}

int room_rematch_seat(const room *r, int seat)
{
    return (seat + 1) % game_seats(&r->state);
}

room_rc room_rematch(room *r, participant *p, bool decline, bool *all, char *err,
                     size_t errlen)
{
    *all = false;
    if (p->seat < 0) {
        snprintf(err, errlen, "only the players have a rematch to offer");
        return ROOM_E_OBSERVER;
    }
    if (r->status == ROOM_WAITING || r->status == ROOM_RUNNING) {
        snprintf(err, errlen, "the game is not over: a rematch comes after the end");
        return ROOM_E_STATE;
    }
    if (r->rematch_id[0]) {
        snprintf(err, errlen, "the rematch has started already (game %s)", r->rematch_id);
        return ROOM_E_STATE;
    }
    for (int s = 0; s < game_seats(&r->state); s++) {
        const participant *h = r->seat_holder[s];
        /* gone, or quit and kept only for the result */
        if (!h || (h->departed && h->depart_deadline_ms == INT64_MAX)) {
            snprintf(err, errlen, "%s has left: there is nobody to play seat %d again",
                     r->seat_name[s][0] ? r->seat_name[s] : "a player", s);
            return ROOM_E_STATE;
        }
    }
    unsigned me = 1u << p->seat;
    if (decline) {
        if (!r->rematch_accepted) {
            snprintf(err, errlen, "nobody has offered a rematch");
            return ROOM_E_NO_OFFER;
        }
        room__change_begin_events_only(r);
        room_event ev = {.kind = ROOM_EV_REMATCH_DECLINED, .who = p, .seat = p->seat};
        room__emit(r, &ev);
        return room__change_end(r, err, errlen);
    }
    /* Two players of whom one blocks the other are never paired again
     * (docs/rules.md, "Blocking and reporting"). */
    for (int s = 0; s < game_seats(&r->state); s++)
        for (int t = s + 1; t < game_seats(&r->state); t++) {
            int blocked = board_blocked_either(r->svc, r->seat_holder[s]->account_id,
                                               r->seat_holder[t]->account_id);
            if (blocked < 0) {
                snprintf(err, errlen, "cannot read the players' blocks; try again");
                return ROOM_E_STORE;
            }
            if (blocked > 0) {
                snprintf(err, errlen, "a rematch between these players is not possible");
                return ROOM_E_DENIED;
            }
        }
    if (r->rematch_accepted & me) {
        snprintf(err, errlen, "you have accepted; wait for the others");
        return ROOM_E_PENDING;
    }
    unsigned accepted = r->rematch_accepted;
    if (!accepted) {                             /* a new offer */
        if (r->rematch_starts[p->seat] >= REMATCH_STARTS_MAX) {
            snprintf(err, errlen, "you have offered a rematch %d times already",
                     REMATCH_STARTS_MAX);
            return ROOM_E_LIMIT;
        }
        for (int s = 0; s < game_seats(&r->state); s++)   /* bots are always game */
            if (r->seat_holder[s]->bot_level > 0)
                accepted |= 1u << s;
    }
    room__change_begin_events_only(r);
    room_event ev = {.kind = ROOM_EV_REMATCH_OFFERED, .who = p, .seat = p->seat,
                     .seats = accepted | me};
    room__emit(r, &ev);
    room_rc rc = room__change_end(r, err, errlen);
    *all = rc == ROOM_OK && r->rematch_accepted == every_seat(r);
    return rc;
}

void room_rematch_started(room *r, const char *new_id)
{
    room__change_begin_events_only(r);
    room_event ev = {.kind = ROOM_EV_REMATCH_STARTED, .state = &r->state, .text = new_id};
    room__emit(r, &ev);
    room__change_end(r, NULL, 0);
    board_log(r->svc, "game %s: the rematch is game %s", r->id, new_id);
}


