/*
 * room_clock.c — the clocks of a game with a time control (docs/rules.md,
 * "Clocks"). Only the seat to move has a running clock. Per move: the seat
 * to move gets the whole per-move time afresh. Fischer: each seat has its
 * time for the game and gains the increment after each of its moves. A
 * seat's first move must also come within cfg.first_move_ms (clocked games
 * only), or the game is aborted with no result, as on Lichess.
 *
 * A clock falls in room_clock_check, which the service runs when the
 * earliest deadline it knows of (svc->next_clock_ms) has come; a move that
 * arrives after its clock fell but before the check is refused (charge).
 * Every clock value travels in the events that change it, so a view counts
 * down by itself, and applying an event (room_events.c) sets the clocks
 * to its values, live and at a restart alike: time the service was down
 * is charged to nobody.
 * Loop thread only.
 */
#include <stdint.h>
#include <stdio.h>

#include "room_internal.h"

static void fall(room *r, int64_t now);

bool room_has_clocks(const room *r)
{
    return r->tc.per_move_ms > 0 || r->tc.base_ms > 0;
}

int room__set_time_control(room *r, const time_control *tc, char *err, size_t errlen)
{
    if (tc->per_move_ms && (tc->base_ms || tc->increment_ms)) {
        snprintf(err, errlen, "a time control is per move or for the game, not both");
        return -1;
    }
    if (tc->per_move_ms < 0 || tc->per_move_ms > TC_PER_MOVE_MAX_S * 1000 ||
        tc->base_ms < 0 || tc->base_ms > TC_BASE_MAX_S * 1000 ||
        tc->increment_ms < 0 || tc->increment_ms > TC_INCREMENT_MAX_S * 1000 ||
        (tc->increment_ms && !tc->base_ms)) {
        snprintf(err, errlen, "time control out of range: per move 1..%d s, or a game of "
                 "1..%d s plus 0..%d s a move", TC_PER_MOVE_MAX_S, TC_BASE_MAX_S,
                 TC_INCREMENT_MAX_S);
        return -1;
    }
    r->tc = *tc;
    r->clock_running = -1;
    int start = tc->per_move_ms ? tc->per_move_ms : tc->base_ms;
    for (int s = 0; s < GAME_MAX_SEATS; s++)
        r->clock_ms[s] = start;
    return 0;
}

/* The running seat's time left now (not below zero). */
static int64_t left_now(const room *r, int64_t now)
{
    int64_t left = r->clock_ms[r->clock_running] - (now - r->clock_since_ms);
    return left > 0 ? left : 0;
}

/* A seat that has not moved yet has the first-move limit too. */
static int64_t limit_now(const room *r, int64_t now)
{
    int64_t left = left_now(r, now);
    if (!(r->moved & (1u << r->clock_running))) {
        int64_t first = r->svc->cfg.first_move_ms - (now - r->clock_since_ms);
        if (first < left)
            left = first > 0 ? first : 0;
    }
    return left;
}

int64_t room_clock_deadline(const room *r)
{
    if (r->clock_running < 0)
        return INT64_MAX;
    return r->clock_since_ms + limit_now(r, r->clock_since_ms);
}

void room__clock_start(room *r, int seat, int64_t now)
{
    r->clock_running = seat;
    r->clock_since_ms = now;
    if (seat < 0)
        return;
    int64_t deadline = room_clock_deadline(r);
    if (deadline < r->svc->next_clock_ms)
        r->svc->next_clock_ms = deadline;
}

void room__clock_run(room *r, int64_t now)
{
    if (!room_has_clocks(r))
        return;
    int seat = game_to_move(&r->state);
    if (seat >= 0 && r->tc.per_move_ms)
        r->clock_ms[seat] = r->tc.per_move_ms;
    room__clock_start(r, seat, now);
}

const room_clocks *room__clocks_after(const room *r, int charged, const game_state *after,
                                      int64_t now, room_clocks *buf)
{
    if (!room_has_clocks(r))
        return NULL;
    buf->n = game_seats(after);
    for (int s = 0; s < buf->n; s++)
        buf->remaining_ms[s] = r->clock_ms[s];
    if (charged >= 0 && charged == r->clock_running)
        buf->remaining_ms[charged] = left_now(r, now) + r->tc.increment_ms;
    buf->running = game_is_over(after) ? -1 : game_to_move(after);
    if (buf->running >= 0 && r->tc.per_move_ms)
        buf->remaining_ms[buf->running] = r->tc.per_move_ms;
    return buf;
}

void room__clock_stop(room *r)
{
    r->clock_running = -1;
}

void room_clocks_now(const room *r, int64_t now, room_clocks *out)
{
    out->n = room_has_clocks(r) ? game_seats(&r->state) : 0;
    out->running = r->clock_running;
    for (int s = 0; s < out->n; s++)
        out->remaining_ms[s] = s == r->clock_running ? left_now(r, now) : r->clock_ms[s];
}


void room_clock_check(room *r, int64_t now)
{
    if (r->diverged || r->status != ROOM_RUNNING || r->clock_running < 0 ||
        now < room_clock_deadline(r))
        return;
    room__change_begin(r);
    fall(r, now);
    room__change_end(r, NULL, 0);
}

/* The running clock fell: out of the game, or the game aborted. */
static void fall(room *r, int64_t now)
{
    int seat = r->clock_running;
    participant *p = r->seat_holder[seat];   /* kept while departed, too */
    char label[32], reason[BOARD_NAME_BYTES + 96];
    const char *who = room__seat_label(r, seat, label, sizeof label);
    if (!(r->moved & (1u << seat))) {
        snprintf(reason, sizeof reason, "%s made no first move in time; the game is aborted",
                 who);
        room__end_game(r, true, &(room_end){.why = ROOM_END_NO_FIRST_MOVE, .by = who}, reason);
        return;
    }
    r->clock_ms[seat] = 0;
    if (p)
        room__leave_game(r, seat, p, ROOM_OUT_TIME_RAN_OUT, "ran out of time", now);
    else
        room__end_game(r, true, &(room_end){.why = ROOM_END_EMPTY_SEAT_TIME},
                       "a seat's time ran out while it was empty");
}

void room_clock_resume(room *r, int64_t now)
{
    if (r->status == ROOM_RUNNING)
        room__clock_run(r, now);
}
