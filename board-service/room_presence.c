/*
 * room_presence.c — who is still there: departures (a closed stream, missed
 * pings), the grace a departed player's seat is kept for, leaving for good,
 * and the pings that time each person's round trip.
 * Loop thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "room_internal.h"

/* Take a participant out of the room (and of the store: it is gone for good). */
void room__remove_participant(room *r, participant *p)
{
    store *db = room__store(r);
    if (db && store_participant_remove(db, r->id, p->id) != 0) {
        board_log_at(r->svc, LOG_ERR, "game %s: cannot forget %s: %s", r->id, p->name,
                     store_last_error(r->svc->store));
        room__write_failed(r);
    }
    room__detach_stream(p, ROOM_OK, "you left the game");
    room__release_watch(p);
    if (p->seat >= 0 && r->seat_holder[p->seat] == p)
        r->seat_holder[p->seat] = NULL;
    room__drop_person(r, p);
    board_person_free(p);
    r->svc->released++;
}

/* ------------------------------------------------------ departure, leaving */

/* A player's comings and goings are logged (the others see them, a
 * restart replays them) up to cfg.presence_events in each window: a
 * client that subscribes and cancels on end cannot grow the log and the
 * database without bound. Past it they happen unlogged; pings still tell
 * who is there. */
#define PRESENCE_WINDOW_MS (10 * 60 * 1000)

bool room__presence_logged(room *r, participant *p)
{
    int64_t now = board_now_ms();
    if (now - p->presence_window_start_ms >= PRESENCE_WINDOW_MS) {
        p->presence_window_start_ms = now;
        p->presence_in_window = 0;
    }
    if (p->presence_in_window >= r->svc->cfg.presence_events) {
        if (p->presence_in_window++ == r->svc->cfg.presence_events)
            board_log_person(r->svc, LOG_NOTICE, p, "game %s: %s comes and goes too often; no "
                             "more of it is logged for %d minutes", r->id, p->name,
                             PRESENCE_WINDOW_MS / 60000);
        return false;
    }
    p->presence_in_window++;
    return true;
}

static void announce_departed(room *r, participant *p, room_depart_why code, const char *why,
                              int grace_s)
{
    room_event ev = {.kind = ROOM_EV_DEPARTED, .who = p, .text = why, .grace_s = grace_s,
                     .why = (int)code};
    room__append_event(r, &ev);
}

/* A seated player is gone for good: before the start the seat opens again;
 * during the game, when nobody is left playing, it ends with no winner. */
static void seat_gone(room *r, participant *p, const char *how)
{
    if (p->seat < 0)
        return;
    if (r->status == ROOM_WAITING) {
        r->seat_name[p->seat][0] = '\0';
    } else if (r->status == ROOM_RUNNING) {
        char reason[BOARD_NAME_BYTES + 128];
        snprintf(reason, sizeof reason, "%s %s; the game ends with no winner", p->name, how);
        room__end_game(r, true, &(room_end){.why = ROOM_END_NOBODY_LEFT, .by = p->name},
                       reason);
    }
}

static bool game_open(const room *r)
{
    return r->status == ROOM_WAITING || r->status == ROOM_RUNNING;
}

static void depart(room *r, participant *p, room_depart_why code, const char *why);

void room_depart(room *r, participant *p, room_depart_why code, const char *why)
{
    if (p->departed || r->diverged)
        return;
    room__change_begin(r);
    depart(r, p, code, why);
    room__change_end(r, NULL, 0);
}

static void depart(room *r, participant *p, room_depart_why code, const char *why)
{
    room__detach_stream(p, ROOM_E_GONE, why);
    board_log_person(r->svc, LOG_INFO, p, "game %s: %s departed (%s)", r->id, p->name, why);
    p->departed = true;
    if (p->seat >= 0 && game_open(r)) {
        /* Keep the seat: the player may come back with their token. */
        p->depart_deadline_ms = board_now_ms() + r->svc->cfg.grace_ms;
        if (room__presence_logged(r, p))
            announce_departed(r, p, code, why, r->svc->cfg.grace_ms / 1000);
        return;
    }
    /* An observer keeps its token for the grace, to resume with it, though
     * not as an event: observers' comings and goings are counted by pings,
     * and cost the log nothing. */
    if (p->seat < 0 && !p->away) {
        p->away = true;
        r->n_away++;
        p->depart_deadline_ms = board_now_ms() + r->svc->cfg.grace_ms;
        return;
    }
    /* A player of a game that is over has nothing to keep. */
    if (p->seat >= 0)
        announce_departed(r, p, code, why, 0);
    room__remove_participant(r, p);
}

static void leave(room *r, participant *p);

void room_leave(room *r, participant *p)
{
    room__change_begin(r);
    leave(r, p);
    room__change_end(r, NULL, 0);
}

room_rc room_kick(room *r, participant *p, const char *why, char *err, size_t errlen)
{
    room__detach_stream(p, ROOM_E_DENIED, why);
    room__change_begin(r);
    leave(r, p);
    return room__change_end(r, err, errlen);
}

static void leave(room *r, participant *p)
{
    room__detach_stream(p, ROOM_OK, "you left the game");
    p->departed = true;   /* no pings or events for it from now on */
    board_log_person(r->svc, LOG_INFO, p, "game %s: %s left", r->id, p->name);
    if (r->status == ROOM_RUNNING && p->seat >= 0) {
        /* Quitting a running game loses it (docs/rules.md, "Leaving a
         * game"): out of it like a resignation, and the others play on or
         * win. The player stays listed, departed for good, so the result
         * keeps their name and account. */
        p->depart_deadline_ms = INT64_MAX;
        if (!game_is_out(&r->state, p->seat))
            room__leave_game(r, p->seat, p, ROOM_OUT_QUIT, "quit", board_now_ms());
        else
            room__announce_who(r, p, ROOM_EV_LEFT);
        return;
    }
    if (p->seat >= 0)
        room__announce_who(r, p, ROOM_EV_LEFT);
    seat_gone(r, p, "quit");
    room__remove_participant(r, p);
}

/* Is anyone still playing: a seated player, in the game, present? */
static bool someone_plays(const room *r)
{
    for (int s = 0; s < game_seats(&r->state); s++) {
        const participant *h = r->seat_holder[s];
        if (h && !h->departed && !game_is_out(&r->state, s))
            return true;
    }
    return false;
}

/* The grace ran out. Before the start the seat opens again. In a running
 * game the seat waits for the others to claim it (docs/rules.md, "Leaving a
 * game"), unless nobody is left to: then the game is abandoned. */
static void grace_over(room *r, participant *p)
{
    if (p->away) {             /* an observer that did not come back: gone quietly */
        room__remove_participant(r, p);
        return;
    }
    char how[64];
    snprintf(how, sizeof how, "did not come back within %d s", r->svc->cfg.grace_ms / 1000);
    board_log_person(r->svc, LOG_INFO, p, "game %s: %s %s", r->id, p->name, how);
    if (r->status == ROOM_RUNNING && p->seat >= 0 && game_is_out(&r->state, p->seat)) {
        /* out already: nothing to wait for; the result keeps their place */
        p->depart_deadline_ms = INT64_MAX;
        return;
    }
    if (r->status == ROOM_RUNNING && p->seat >= 0 && someone_plays(r)) {
        if (r->bot_takes_over && board_bots_take_over(r->svc, r, p) == 0)
            return;

        p->depart_deadline_ms = INT64_MAX;        /* no more graces to run out */
        r->gone |= 1u << p->seat;
        announce_departed(r, p, ROOM_DEPART_NOT_BACK, how, 0);
        return;
    }
    room__announce_who(r, p, ROOM_EV_LEFT);
    seat_gone(r, p, how);
    room__remove_participant(r, p);
}

/* ------------------------------------------------------------------- pings */

/* One ping for everyone in the room, packed once: the same nonce for all
 * (the reply's token says who answered), the listed people's round trips and
 * how many watch. */
static void send_pings(room *r, uint64_t nonce, int64_t now)
{
    size_t len;
    uint8_t *data = wire_pack_ping(r, nonce, &len);
    if (!data)
        return;             /* the next tick pings again */
    for (int i = 0; i < r->n_people; i++) {
        participant *p = r->people[i];
        if (!p->stream || p->departed)
            continue;
        if (p->ping_nonce == 0) {   /* time the oldest unanswered ping */
            p->ping_nonce = nonce;
            p->ping_sent_ms = now;
        }
        room__check_sent(p, r->svc->io.send(p->stream, data, len), r->log_len + 1);
    }
    free(data);
}

void room_pong(participant *p, uint64_t nonce)
{
    int64_t now = board_now_ms();
    p->last_seen_ms = now;
    if (nonce != 0 && nonce == p->ping_nonce) {
        p->rtt_ms = (int)(now - p->ping_sent_ms);
        p->ping_nonce = 0;
    }
}

void room_tick(room *r, int64_t now)
{
    board_service *svc = r->svc;
    if (r->diverged)
        return;
    /* Departure may remove people: walk backwards so removal is safe. A
     * change that cannot be stored stops the walk: the room is reloaded. */
    for (int i = r->n_people - 1; i >= 0 && !r->diverged; i--) {
        participant *p = r->people[i];
        if (p->departed) {
            if (now >= p->depart_deadline_ms) {
                room__change_begin(r);
                grace_over(r, p);
                room__change_end(r, NULL, 0);
            }
            continue;
        }
        if (now - p->last_seen_ms > svc->cfg.ping_timeout_ms) {
            char why[96];
            snprintf(why, sizeof why, "no answer to pings for %d s",
                     svc->cfg.ping_timeout_ms / 1000);
            room_depart(r, p, ROOM_DEPART_NO_PINGS, why);
        }
    }
    send_pings(r, ++svc->next_nonce, now);
}

bool room_is_idle(const room *r)
{
    if (r->status == ROOM_WAITING || r->status == ROOM_RUNNING)
        return false;
    /* Nobody watching, and nobody a restart is still waiting for. The
     * service's bots stay after the end for a rematch (bots.c: --stay),
     * which keeps no game: their streams end with it. */
    int64_t now = board_now_ms();
    for (int i = 0; i < r->n_people; i++) {
        const participant *p = r->people[i];
        if ((p->stream && p->bot_level == 0) || (p->departed && p->depart_deadline_ms > now &&
                          p->depart_deadline_ms != INT64_MAX))
            return false;
    }
    return true;
}

