/*
 * room_fairplay.c — leaving a game the fair way: resigning, aborting before
 * the game is under way, agreeing a draw, claiming a departed player's seat
 * or, in a game created so, a bot taking it over (docs/rules.md, "Leaving a
 * game"). Each is an event in the log like a move, applied through its
 * kind's function (room_events.c) live and when a restart replays it.
 * Loop thread only.
 */
#include <stdio.h>
#include <string.h>

#include "room_internal.h"

/* A seated player, still in, of a running game: who may do any of these. */
static room_rc playing(const room *r, const participant *p, const char *what, char *err,
                       size_t errlen)
{
    if (p->seat < 0) {
        snprintf(err, errlen, "observers cannot %s", what);
        return ROOM_E_OBSERVER;
    }
    if (r->status != ROOM_RUNNING) {
        snprintf(err, errlen, r->status == ROOM_WAITING ? "the game has not started"
                                                         : "the game is over");
        return r->status == ROOM_WAITING ? ROOM_E_NOT_STARTED : ROOM_E_ENDED;
    }
    if (game_is_out(&r->state, p->seat)) {
        snprintf(err, errlen, "you are out of the game");
        return ROOM_E_STATE;
    }
    return ROOM_OK;
}

/* --------------------------------------------------------------- resigning */

void room__leave_game(room *r, int seat, participant *p, room_out_why code, const char *why,
                      int64_t now)
{
    game_state after = r->state;
    game_result res;
    game_retire(&after, seat, &res);
    room_clocks clocks;                /* the next seat's clock runs, or none */
    room_event ev = {.kind = ROOM_EV_OUT, .who = p, .seat = seat, .text = why, .why = (int)code,
                     .state = &after,
                     .result = &res, .clocks = room__clocks_after(r, -1, &after, now, &clocks)};
    if (room__emit(r, &ev) != ROOM_OK)
        return;
    board_log_person(r->svc, LOG_INFO, p, "game %s: %s %s", r->id, p->name, why);
    if (game_is_over(&r->state)) {
        char result[GAME_MAX_SEATS * BOARD_NAME_BYTES + 64];
        char reason[sizeof result + BOARD_NAME_BYTES + 32];
        room__result_sentence(r, result, sizeof result);
        snprintf(reason, sizeof reason, "%s %s; %s", p->name, why, result);
        room__end_game(r, false,
                       &(room_end){.why = ROOM_END_PLAYER_OUT, .out_why = code, .by = p->name},
                       reason);
    }
}

room_rc room_resign(room *r, participant *p, char *err, size_t errlen)
{
    room_rc rc = playing(r, p, "resign", err, errlen);
    if (rc != ROOM_OK)
        return rc;
    room__change_begin_events_only(r);
    room__leave_game(r, p->seat, p, ROOM_OUT_RESIGNED, "resigned", board_now_ms());
    return room__change_end(r, err, errlen);
}


/* ---------------------------------------------------------------- aborting */

room_rc room_abort(room *r, participant *p, char *err, size_t errlen)
{
    room_rc rc = playing(r, p, "abort the game", err, errlen);
    if (rc != ROOM_OK)
        return rc;
    unsigned everyone = (1u << game_seats(&r->state)) - 1;
    if ((r->moved & everyone) == everyone) {
        snprintf(err, errlen, "every player has moved: too late to abort (resign instead)");
        return ROOM_E_STATE;
    }
    char reason[BOARD_NAME_BYTES + 32];
    snprintf(reason, sizeof reason, "%s aborted the game", p->name);
    room__change_begin_events_only(r);
    room__end_game(r, true, &(room_end){.why = ROOM_END_ABORTED, .by = p->name}, reason);
    return room__change_end(r, err, errlen);
}

room_rc room_end_by_operator(room *r, const char *reason, char *err, size_t errlen)
{
    if (!room_is_open(r)) {
        snprintf(err, errlen, "game %s is over already", r->id);
        return ROOM_E_STATE;
    }
    char why[STORE_REASON_BYTES];
    snprintf(why, sizeof why, "the operator ended the game: %s", reason);
    room__change_begin_events_only(r);
    room__end_game(r, true, &(room_end){.why = ROOM_END_OPERATOR, .detail = reason}, why);
    return room__change_end(r, err, errlen);
}

/* ------------------------------------------------------------------- draws */

static room_rc two_seats(const room *r, char *err, size_t errlen)
{
    if (game_seats(&r->state) != 2) {
        snprintf(err, errlen, "draws are agreed in two-player games only");
        return ROOM_E_STATE;
    }
    return ROOM_OK;
}

room_rc room_offer_draw(room *r, participant *p, char *err, size_t errlen)
{
    room_rc rc = playing(r, p, "offer a draw", err, errlen);
    if (rc == ROOM_OK)
        rc = two_seats(r, err, errlen);
    if (rc != ROOM_OK)
        return rc;
    if (r->draw_offer == p->seat) {
        snprintf(err, errlen, "your offer is open; wait for the answer");
        return ROOM_E_PENDING;
    }
    if (r->draw_offer >= 0) {
        snprintf(err, errlen, "a draw is offered to you: accept or decline it");
        return ROOM_E_STATE;
    }
    /* Once until the offerer has moved again: offers cannot be a flood. */
    if (r->draw_offered & (1u << p->seat)) {
        snprintf(err, errlen, "you offered a draw already; you may again after your next move");
        return ROOM_E_LIMIT;
    }
    room__change_begin_events_only(r);
    room_event ev = {.kind = ROOM_EV_DRAW_OFFERED, .who = p, .seat = p->seat};
    room__emit(r, &ev);
    return room__change_end(r, err, errlen);
}

/* Lichess's "give 15 seconds": the clocks as they stand, the others' with
 * time added, in one logged event that sets them (apply_time_given). */
room_rc room_give_time(room *r, participant *p, char *err, size_t errlen)
{
    room_rc rc = playing(r, p, "give time", err, errlen);
    if (rc != ROOM_OK)
        return rc;
    if (!room_has_clocks(r)) {
        snprintf(err, errlen, "this game has no clocks");
        return ROOM_E_STATE;
    }
    int64_t now = board_now_ms();
    if (p->gave_time_ms && now - p->gave_time_ms < ROOM_GIVE_TIME_EVERY_MS) {
        snprintf(err, errlen, "you gave time a moment ago: at most once every %d seconds",
                 ROOM_GIVE_TIME_EVERY_MS / 1000);
        return ROOM_E_LIMIT;
    }
    room_clocks clocks;
    room_clocks_now(r, now, &clocks);
    for (int s = 0; s < clocks.n; s++)
        if (s != p->seat && !game_is_out(&r->state, s))
            clocks.remaining_ms[s] += ROOM_GIVE_TIME_MS;
    room__change_begin_events_only(r);
    room_event ev = {.kind = ROOM_EV_TIME_GIVEN, .who = p, .seat = p->seat, .clocks = &clocks};
    room__emit(r, &ev);
    rc = room__change_end(r, err, errlen);
    if (rc == ROOM_OK)
        p->gave_time_ms = now;
    return rc;
}

room_rc room_answer_draw(room *r, participant *p, bool accept, char *err, size_t errlen)
{
    room_rc rc = playing(r, p, "answer a draw offer", err, errlen);
    if (rc == ROOM_OK)
        rc = two_seats(r, err, errlen);
    if (rc != ROOM_OK)
        return rc;
    if (r->draw_offer < 0 || r->draw_offer == p->seat) {
        snprintf(err, errlen, "nobody has offered you a draw");
        return ROOM_E_NO_OFFER;
    }
    if (!accept) {
        room__change_begin_events_only(r);
        room_event ev = {.kind = ROOM_EV_DRAW_DECLINED, .who = p, .seat = p->seat};
        room__emit(r, &ev);
        return room__change_end(r, err, errlen);
    }
    room__change_begin_events_only(r);
    char reason[2 * BOARD_NAME_BYTES + 32], label[32];
    snprintf(reason, sizeof reason, "%s and %s agreed a draw",
             room__seat_label(r, r->draw_offer, label, sizeof label), p->name);
    room__end_drawn(r, reason);
    return room__change_end(r, err, errlen);
}

/* -------------------------------------------------------------- claiming */

room_rc room_claim(room *r, participant *p, char *err, size_t errlen)
{
    room_rc rc = playing(r, p, "claim", err, errlen);
    if (rc != ROOM_OK)
        return rc;
    unsigned gone = r->gone & ~(1u << p->seat);
    if (!gone) {
        snprintf(err, errlen, "nobody has left the game for good (a departed player has "
                 "%d s to come back)", r->svc->cfg.grace_ms / 1000);
        return ROOM_E_STATE;
    }
    int64_t now = board_now_ms();
    room__change_begin(r);
    for (int s = 0; s < game_seats(&r->state) && r->status == ROOM_RUNNING; s++) {
        participant *h = r->seat_holder[s];
        if (!(gone & (1u << s)) || !h || game_is_out(&r->state, s))
            continue;
        r->gone &= ~(1u << s);
        room__leave_game(r, s, h, ROOM_OUT_CLAIMED, "left the game", now);
    }
    return room__change_end(r, err, errlen);
}


/* ----------------------------------------------------------- taking over */

room_rc room_take_over(room *r, participant *p, const char *bot_name, participant **bot,
                       char *err, size_t errlen)
{
    int seat = p->seat;
    if (r->status != ROOM_RUNNING || seat < 0 || game_is_out(&r->state, seat)) {
        snprintf(err, errlen, "only a seat still in a running game is taken over");
        return ROOM_E_STATE;
    }
    participant *b;
    room__change_begin(r);
    room_rc rc = room_join(r, bot_name, true, NULL, &b, err, errlen);
    if (rc != ROOM_OK) {
        room__change_end(r, NULL, 0);
        return rc;
    }
    /* The player watches from now on; the bot holds the seat, its clock as
     * it stands. */
    room__set_seat(r, p, -1);
    p->depart_deadline_ms = INT64_MAX;
    room__set_seat(r, b, seat);
    b->bot_level = r->bot_level;
    r->seat_holder[seat] = b;
    snprintf(r->seat_name[seat], sizeof r->seat_name[seat], "%s", b->name);
    room__store_person(r, p);
    room__store_person(r, b);
    store *db = room__store(r);
    if (db && (store_participant_bot(db, r->id, b->id, b->bot_level) != 0 ||
               store_player_lost(db, p->name, p->account_id) != 0)) {
        board_log_at(r->svc, LOG_ERR,
                     "game %s: cannot store that %s took %s's seat: %s", r->id, b->name,
                     p->name, store_last_error(db));
        room__write_failed(r);
    }
    room_event ev = {.kind = ROOM_EV_TAKEN_OVER, .who = b, .seat = seat, .text = p->name,
                     .level = b->bot_level};
    room__emit(r, &ev);
    board_log(r->svc, "game %s: %s takes %s's seat %d", r->id, b->name, p->name, seat);
    rc = room__change_end(r, err, errlen);
    *bot = rc == ROOM_OK ? b : NULL;
    return rc;
}

