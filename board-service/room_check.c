/*
 * room_check.c — a room's invariants, asserted (debug and sanitizer
 * builds), and the replay check: PostgreSQL's wal_consistency_checking for
 * games. With cfg.check_replay on (a test switch; SUNGKA_CHECK_REPLAY=1),
 * after every turn each game whose log grew is rebuilt from the store into
 * a fresh room, the way a restart or another node would rebuild it, and
 * compared with the live one field by field. Any difference means an event
 * whose live meaning and stored meaning differ, or a change that was kept
 * in memory and not in the log: it is logged, and the service aborts so
 * that the test that caused it fails there (tests/board/test_durability.c
 * shows that a drift is caught).
 *
 * What is compared is what the log and the people's rows are the record
 * of. Not compared: presence (everyone is departed in a rebuilt game),
 * streams, pings, rates, `gone` (a claim waits again after a restart), the
 * running clock's start (it restarts from the rebuild) and ratings (a
 * person's may move on in another game meanwhile).
 * Loop thread only.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "room_internal.h"

void room_check(const room *r)
{
#ifndef NDEBUG
    int seats = game_seats(&r->state);
    assert(r->n_seated >= 0 && r->n_seated <= r->n_people && r->n_people <= r->people_cap);
    for (int i = 0; i < r->n_people; i++) {
        const participant *p = r->people[i];
        assert(p->room == r && p->at == i);
        assert((i < r->n_seated) == (p->seat >= 0));       /* the seated first */
        assert(p->seat < seats);
    }
    for (int s = 0; s < seats; s++)
        assert(!r->seat_holder[s] || r->seat_holder[s]->seat == s);
    for (size_t i = 0; i < r->log_len; i++)
        assert(r->log[i].seq == i + 1);                      /* numbered without holes */
    assert(r->change_depth >= 0 && r->change_from <= r->log_len);
    assert(r->clock_running >= -1 && r->clock_running < seats);
    assert(r->clock_running < 0 || r->status == ROOM_RUNNING);
    assert(r->status != ROOM_WAITING || (r->n_moves == 0 && r->n_out == 0));
    int out = 0;
    for (int s = 0; s < seats; s++)
        out += r->out_at[s] > 0;
    assert(out == r->n_out);
    int away = 0;
    for (int i = 0; i < r->n_people; i++)
        away += r->people[i]->away;
    assert(away == r->n_away && (away == 0 || r->n_people > r->n_seated));
#else
    (void)r;
#endif
}

/* ------------------------------------------------------------ the replay check */

typedef struct differences {
    const room *live;
    int n;
} differences;

static void differ(differences *d, const char *what, const char *live_value,
                   const char *stored_value)
{
    board_log_at(d->live->svc, LOG_ERR,
                 "replay check: game %s: %s is %s live but %s from its stored log",
                 d->live->id, what, live_value, stored_value);
    d->n++;
}

static void same_int(differences *d, const char *what, int64_t live, int64_t stored)
{
    if (live == stored)
        return;
    char a[32], b[32];
    snprintf(a, sizeof a, "%" PRId64, live);
    snprintf(b, sizeof b, "%" PRId64, stored);
    differ(d, what, a, b);
}

static void same_text(differences *d, const char *what, const char *live, const char *stored)
{
    if (strcmp(live, stored) != 0)
        differ(d, what, live, stored);
}

static void same_position(differences *d, const game_state *a, const game_state *b)
{
    same_int(d, "the seat to move", game_to_move(a), game_to_move(b));
    same_int(d, "the game's end", game_is_over(a), game_is_over(b));
    same_int(d, "the seats out", a->out, b->out);
    same_int(d, "the cells", a->n_cells, b->n_cells);
    for (int i = 0; i < a->n_cells && i < b->n_cells; i++)
        if (a->cells[i] != b->cells[i]) {
            char what[32];
            snprintf(what, sizeof what, "cell %d", i);
            same_int(d, what, a->cells[i], b->cells[i]);
        }
}

static void same_log(differences *d, const room *a, const room *b)
{
    same_int(d, "the log's length", (int64_t)a->log_len, (int64_t)b->log_len);
    for (size_t i = 0; i < a->log_len && i < b->log_len; i++) {
        const logged_event *x = &a->log[i], *y = &b->log[i];
        if (x->only_for[0] != y->only_for[0] || x->only_for[1] != y->only_for[1] ||
            x->len != y->len || memcmp(x->data, y->data, x->len) != 0) {
            char what[48];
            snprintf(what, sizeof what, "event %llu", (unsigned long long)x->seq);
            differ(d, what, "one thing", "another");
        }
    }
}

static const participant *person_by_id(const room *r, unsigned id)
{
    for (int i = 0; i < r->n_people; i++)
        if (r->people[i]->id == id)
            return r->people[i];
    return NULL;
}

static void same_people(differences *d, const room *a, const room *b)
{
    same_int(d, "the number of people", a->n_people, b->n_people);
    same_int(d, "the number seated", a->n_seated, b->n_seated);
    for (int i = 0; i < a->n_people; i++) {
        const participant *p = a->people[i], *q = person_by_id(b, p->id);
        if (!q) {
            differ(d, p->name, "present", "absent");
            continue;
        }
        char what[BOARD_NAME_BYTES + 32];
        snprintf(what, sizeof what, "%s's seat", p->name);
        same_int(d, what, p->seat, q->seat);
        snprintf(what, sizeof what, "%s's ready", p->name);
        same_int(d, what, p->ready, q->ready);
        snprintf(what, sizeof what, "%s's account", p->name);
        same_int(d, what, p->account_id, q->account_id);
        snprintf(what, sizeof what, "%s's bot level", p->name);
        same_int(d, what, p->bot_level, q->bot_level);
        snprintf(what, sizeof what, "person %u's name", p->id);
        same_text(d, what, p->name, q->name);
        snprintf(what, sizeof what, "%s's token", p->name);
        if (!board_tokens_equal(p->token, q->token))
            differ(d, what, "one", "another");
    }
}

static void compare(differences *d, const room *a, const room *b)
{
    int seats = game_seats(&a->state);
    same_int(d, "the status", a->status, b->status);
    same_position(d, &a->state, &b->state);
    same_log(d, a, b);
    same_people(d, a, b);
    same_int(d, "the moves played", a->n_moves, b->n_moves);
    /* the copy kept for the `moves` rows (room_events.c: note_played) */
    for (int i = 0; i < a->n_moves && i < b->n_moves && !a->played_lost && !b->played_lost;
         i++) {
        same_int(d, "a played move's seat", a->played[i].seat, b->played[i].seat);
        same_int(d, "a played move", a->played[i].move, b->played[i].move);
        same_int(d, "a played move's time", a->played[i].time_ms, b->played[i].time_ms);
    }
    same_int(d, "the seats that moved", a->moved, b->moved);
    same_int(d, "the open draw offer", a->draw_offer, b->draw_offer);
    same_int(d, "the draw offers made", a->draw_offered, b->draw_offered);
    same_int(d, "the seats out", a->n_out, b->n_out);
    same_int(d, "the seats taken over", a->taken_over, b->taken_over);
    same_int(d, "the rematch's acceptances", a->rematch_accepted, b->rematch_accepted);
    same_text(d, "the rematch", a->rematch_id, b->rematch_id);
    same_int(d, "rated", a->rated, b->rated);
    same_text(d, "why it is not rated", a->unrated, b->unrated);
    same_int(d, "the running clock", a->clock_running, b->clock_running);
    if (a->status == ROOM_FINISHED || a->status == ROOM_ABANDONED)
        same_text(d, "the end's reason", a->end_reason, b->end_reason);
    for (int s = 0; s < seats; s++) {
        char what[48];
        snprintf(what, sizeof what, "seat %d's place out", s);
        same_int(d, what, a->out_at[s], b->out_at[s]);
        snprintf(what, sizeof what, "seat %d's rematch offers", s);
        same_int(d, what, a->rematch_starts[s], b->rematch_starts[s]);
        /* After the end a seat keeps its player's name for the result,
         * whose row goes when they leave. */
        snprintf(what, sizeof what, "seat %d's player", s);
        if (a->status == ROOM_WAITING || a->status == ROOM_RUNNING)
            same_text(d, what, a->seat_name[s], b->seat_name[s]);
        snprintf(what, sizeof what, "seat %d's moves", s);
        same_int(d, what, a->seat_moves[s], b->seat_moves[s]);
        snprintf(what, sizeof what, "seat %d's rated account", s);
        same_int(d, what, a->rated_account[s], b->rated_account[s]);
        if (a->tc.per_move_ms || a->tc.base_ms) {
            snprintf(what, sizeof what, "seat %d's clock", s);
            same_int(d, what, a->clock_ms[s], b->clock_ms[s]);
        }
    }
}

int board_check_replay(board_service *svc)
{
    int total = 0;
    if (!svc->store)
        return 0;
    for (int i = 0; i < svc->n_rooms; i++) {
        room *r = svc->rooms[i];
        room_check(r);
        if (r->diverged || r->lost || r->holding || r->log_len == r->checked_len)
            continue;
        r->checked_len = r->log_len;
        room *stored = board_rebuild(svc, r->id);
        /* A cluster's game another node has adopted, which this node has not
         * noticed yet (its lease tick will): its log is the other node's now.
         * Asked after the rebuild (a node frozen between the two steps may
         * wake to a log another has written on): another node writes only
         * once it owns the game, so a rebuild that holds its writes is
         * followed by this answering so. */
        if (board_game_here(svc, r->id) != 1) {
            if (stored)
                room_free(stored);
            continue;
        }
        differences d = {.live = r};
        if (!stored) {
            board_log_at(svc, LOG_ERR,
                         "replay check: game %s: cannot rebuild it from the store: %s", r->id,
                         store_last_error(svc->store));
            d.n++;
        } else {
            compare(&d, r, stored);
            room_free(stored);
        }
        if (d.n > 0)
            board_log_at(svc, LOG_ERR, "replay check: game %s: %d difference%s", r->id, d.n,
                         d.n == 1 ? "" : "s");
        total += d.n;
    }
    return total;
}

void board_check_replay_or_abort(board_service *svc)
{
    if (!svc->cfg.check_replay || board_check_replay(svc) == 0)
        return;
    board_log_at(svc, LOG_ERR, "replay check: a game differs from its stored log; aborting");
    abort();
}
