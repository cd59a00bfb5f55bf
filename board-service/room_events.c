/*
 * room_events.c — what each event kind means to a game: one apply function
 * per kind, in one table (PostgreSQL's rmgrlist.h keeps a redo beside each
 * record kind the same way). Live play builds an event's value from the
 * room as it is, stores it, then applies it here; recovery after a restart,
 * a cluster node adopting a game and the reload of a game whose change
 * could not be stored unpack each stored event (wire.c) and apply it here
 * too. So a game rebuilt from its log is the game that was played, which
 * the replay check (room_check.c) confirms after every turn in the tests.
 *
 * Only what the log is the record of is applied: the position, the status,
 * the clocks, offers, who is out. People (seats, names, ready) are kept as
 * rows of their own (store_participant_put) that recovery reads before the
 * events; their events are announcements, and apply nothing.
 * Loop thread only.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "room_internal.h"

static bool seat_ok(const room *r, int seat)
{
    return seat >= 0 && seat < game_seats(&r->state);
}

/* The clocks an event gave: every seat's time, and the running one starts
 * from now (time the service was down is charged to nobody). */
static void apply_clocks(room *r, const room_clocks *c)
{
    if (!c || c->n != game_seats(&r->state))
        return;
    for (int s = 0; s < c->n; s++)
        r->clock_ms[s] = c->remaining_ms[s] > 0 ? c->remaining_ms[s] : 0;
    room__clock_start(r, c->running, board_now_ms());
}

static int apply_nothing(room *r, const room_event *ev)
{
    (void)r;
    (void)ev;
    return 0;
}

static int apply_started(room *r, const room_event *ev)
{
    if (r->status != ROOM_WAITING)
        return -1;
    r->status = ROOM_RUNNING;
    snprintf(r->unrated, sizeof r->unrated, "%s", ev->unrated ? ev->unrated : "");
    apply_clocks(r, ev->clocks);
    return 0;
}

/* Keep the move for the game's `moves` rows (room__store_moves), at the
 * time of its event. Out of memory only loses the copy: the end then
 * decodes the stored log (match_moves.c), so applying never fails for it. */
static void note_played(room *r, const room_event *ev)
{
    if (r->played_lost)
        return;
    if (r->n_moves == r->played_cap) {
        int cap = r->played_cap ? r->played_cap * 2 : 64;
        store_move *grown = realloc(r->played, (size_t)cap * sizeof *grown);
        if (!grown) {
            r->played_lost = true;
            return;
        }
        r->played = grown;
        r->played_cap = cap;
    }
    r->played[r->n_moves] = (store_move){.ply = r->n_moves, .seat = ev->seat,
                                         .move = ev->move, .time_ms = ev->time_ms};
}

static int apply_moved(room *r, const room_event *ev)
{
    char err[GAME_ERR_LEN];
    if (r->status != ROOM_RUNNING || !seat_ok(r, ev->seat) ||
        game_play(&r->state, ev->seat, ev->move, NULL, err, sizeof err) != GAME_OK)
        return -1;
    note_played(r, ev);
    r->n_moves++;
    r->seat_moves[ev->seat]++;
    /* A move closes an open draw offer, and lets its mover offer again. */
    r->moved |= 1u << ev->seat;
    r->draw_offered &= ~(1u << ev->seat);
    r->draw_offer = -1;
    apply_clocks(r, ev->clocks);
    return 0;
}

static int apply_out(room *r, const room_event *ev)
{
    if (!seat_ok(r, ev->seat) || game_retire(&r->state, ev->seat, NULL) != GAME_OK)
        return -1;
    r->out_at[ev->seat] = ++r->n_out;
    r->draw_offer = -1;
    apply_clocks(r, ev->clocks);
    return 0;
}

static int apply_over(room *r, const room_event *ev)
{
    if (r->status != ROOM_RUNNING && r->status != ROOM_WAITING)
        return -1;
    r->status = ev->abandoned ? ROOM_ABANDONED : ROOM_FINISHED;
    snprintf(r->end_reason, sizeof r->end_reason, "%s", ev->text ? ev->text : "");
    r->draw_offer = -1;             /* no offer outlives the game */
    room__clock_stop(r);
    /* Everyone present sees the new ratings beside the names from now on. */
    for (int s = 0; ev->ratings && s < game_seats(&r->state); s++)
        for (int i = 0; i < r->n_people; i++)
            if (r->rated_account[s] > 0 && r->people[i]->account_id == r->rated_account[s]) {
                r->people[i]->rating = ev->ratings[s].after;
                r->people[i]->has_rating = true;
            }
    return 0;
}

static int apply_draw_offered(room *r, const room_event *ev)
{
    if (!seat_ok(r, ev->seat))
        return -1;
    r->draw_offer = ev->seat;
    r->draw_offered |= 1u << ev->seat;
    return 0;
}

static int apply_draw_declined(room *r, const room_event *ev)
{
    (void)ev;
    r->draw_offer = -1;
    return 0;
}

static int apply_taken_over(room *r, const room_event *ev)
{
    if (!seat_ok(r, ev->seat))
        return -1;
    r->taken_over |= 1u << ev->seat;
    r->gone &= ~(1u << ev->seat);
    r->out_at[ev->seat] = ++r->n_out;       /* placed as having left (ratings) */
    return 0;
}

static unsigned every_seat(const room *r)
{
    return (1u << game_seats(&r->state)) - 1;
}

static int apply_rematch_offered(room *r, const room_event *ev)
{
    if (!r->rematch_accepted && seat_ok(r, ev->seat))   /* a new offer: counted */
        r->rematch_starts[ev->seat]++;
    r->rematch_accepted = ev->seats & every_seat(r);
    return 0;
}

static int apply_rematch_declined(room *r, const room_event *ev)
{
    (void)ev;
    r->rematch_accepted = 0;
    return 0;
}

static int apply_rematch_started(room *r, const room_event *ev)
{
    if (!ev->text || !ev->text[0])
        return -1;
    snprintf(r->rematch_id, sizeof r->rematch_id, "%s", ev->text);
    return 0;
}

static int apply_time_given(room *r, const room_event *ev)
{
    if (!ev->clocks || ev->clocks->n != game_seats(&r->state))
        return -1;
    apply_clocks(r, ev->clocks);
    return 0;
}

/* Every kind, its name in the logs, and what it means to a game. Adding a
 * kind is one line here, its apply function, and its packing (wire.c). */
#define ROOM_EVENT_LIST(X)                                                   \
    X(ROOM_EV_JOINED, "joined", apply_nothing)                               \
    X(ROOM_EV_LEFT, "left", apply_nothing)                                   \
    X(ROOM_EV_DEPARTED, "departed", apply_nothing)                           \
    X(ROOM_EV_RETURNED, "returned", apply_nothing)                           \
    X(ROOM_EV_READY, "ready", apply_nothing)                                 \
    X(ROOM_EV_SEAT, "seat changed", apply_nothing)                           \
    X(ROOM_EV_STARTED, "started", apply_started)                             \
    X(ROOM_EV_MOVED, "moved", apply_moved)                                   \
    X(ROOM_EV_CHAT, "chat", apply_nothing)                                   \
    X(ROOM_EV_OVER, "over", apply_over)                                      \
    X(ROOM_EV_NOTICE, "notice", apply_nothing)                               \
    X(ROOM_EV_OUT, "out", apply_out)                                         \
    X(ROOM_EV_DRAW_OFFERED, "draw offered", apply_draw_offered)              \
    X(ROOM_EV_DRAW_DECLINED, "draw declined", apply_draw_declined)           \
    X(ROOM_EV_TAKEN_OVER, "taken over", apply_taken_over)                    \
    X(ROOM_EV_REMATCH_OFFERED, "rematch offered", apply_rematch_offered)     \
    X(ROOM_EV_REMATCH_DECLINED, "rematch declined", apply_rematch_declined)  \
    X(ROOM_EV_REMATCH_STARTED, "rematch started", apply_rematch_started)    \
    X(ROOM_EV_TIME_GIVEN, "time given", apply_time_given)

static const struct event_kind {
    const char *name;
    int (*apply)(room *r, const room_event *ev);
} event_kinds[] = {
#define EVENT_KIND_ENTRY(kind, name, apply) [kind] = {name, apply},
    ROOM_EVENT_LIST(EVENT_KIND_ENTRY)
#undef EVENT_KIND_ENTRY
};

_Static_assert(sizeof event_kinds / sizeof event_kinds[0] == ROOM_EV_COUNT,
               "every event kind has its entry");

int room_apply_event(room *r, const room_event *ev)
{
    if ((unsigned)ev->kind >= ROOM_EV_COUNT)
        return -1;
    assert(event_kinds[ev->kind].apply);
    return event_kinds[ev->kind].apply(r, ev);
}

const char *room_event_name(room_event_kind kind)
{
    return (unsigned)kind < ROOM_EV_COUNT ? event_kinds[kind].name : "unknown";
}

room_rc room__emit_for(room *r, room_event *ev, unsigned a, unsigned b)
{
    if (room__append_event_for(r, ev, a, b) != 0)
        return ROOM_E_STORE;
    int rc = room_apply_event(r, ev);
    assert(rc == 0);               /* live events are built from the room: they fit */
    (void)rc;
    r->change_applied++;
    return ROOM_OK;
}

room_rc room__emit(room *r, room_event *ev)
{
    return room__emit_for(r, ev, 0, 0);
}
