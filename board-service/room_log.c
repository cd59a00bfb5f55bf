/*
 * room_log.c — a room's event log and the streams it feeds: numbering,
 * storing and sending each event (the mover's first), replaying the log to
 * a new or returning subscriber, and cutting off one too slow to keep up.
 * Loop thread only.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "room_internal.h"

/* The participant's stream is gone: its address may open another. */
void room__forget_stream(participant *p)
{
    p->stream = NULL;
    if (p->stream_from)
        p->stream_from->streams--;
    p->stream_from = NULL;
}

/* An observer's seat no longer counts against the address that took it. */
void room__release_watch(participant *p)
{
    if (p->watch_from)
        p->watch_from->observers--;
    p->watch_from = NULL;
}

/* End the participant's stream with a status, forgetting it first (so the
 * service's report that it ended finds nobody). */
void room__detach_stream(participant *p, room_rc rc, const char *why)
{
    if (!p->stream)
        return;
    void *stream = p->stream;
    room__forget_stream(p);
    p->room->svc->io.finish(stream, rc, why);
}

/* ------------------------------------------------------------------ events */

/* rc of a send: -2 means the subscriber is too slow to drain its outbox:
 * cut it off; it can resubscribe from the last sequence number it saw. */
void room__check_sent(participant *p, int rc, uint64_t seq)
{
    if (rc == 0)
        metric_add(p->room->svc->m.events_sent, 1);
    if (rc != -2)
        return;
    char why[96];
    snprintf(why, sizeof why, "too far behind; resubscribe after seq %llu",
             (unsigned long long)(seq ? seq - 1 : 0));
    char what[BOARD_NAME_BYTES + 96];
    snprintf(what, sizeof what, "game %s: %s is too far behind the game's events; its stream "
             "is cut off", p->room->id, p->name);
    if (p->bot_level > 0)
        board_log_at(p->room->svc, LOG_NOTICE, "%s", what);
    else
        board_log_limit(p->room->svc, p->host, what);
    room__detach_stream(p, ROOM_E_LIMIT, why);
}

/* Whether p is to receive le: its addressees, and never a chat line of an
 * account p's account blocks (docs/rules.md, "Blocking and reporting"). */
static bool may_see(const participant *p, const logged_event *le)
{
    if (le->from_account && board_blocks(p, le->from_account))
        return false;
    if (le->only_for[0] == BOARD_FOR_OBSERVERS)
        return p->seat < 0;
    return !le->only_for[0] || p->id == le->only_for[0] || p->id == le->only_for[1];
}

void room__send_logged(participant *p, const logged_event *le)
{
    if (p->stream && may_see(p, le))
        room__check_sent(p, p->room->svc->io.send(p->stream, le->data, le->len), le->seq);
}

/* Send log entries from..log_len-1 to everyone allowed to see them, `first`
 * (the mover, or NULL) before the others: the one who acted hears soonest. A
 * participant may be cut off (its stream detached) while we loop; it stays
 * in the list, so plain indexing is safe. */
void room__broadcast(room *r, size_t from, participant *first)
{
    for (size_t e = from; e < r->log_len; e++) {
        const logged_event *le = &r->log[e];
        if (first)
            room__send_logged(first, le);
        for (int i = 0; i < r->n_people; i++)
            if (r->people[i] != first)
                room__send_logged(r->people[i], le);
    }
}

/* ----------------------------------------------------- durable before visible */

/* The room's memory may differ from its stored log from now on: it takes no
 * more calls, and the service reloads it from the log (board_reload). */
void room__diverge(room *r, const char *why)
{
    if (r->diverged)
        return;
    r->diverged = true;
    r->svc->n_diverged++;
    board_log_at(r->svc, LOG_WARNING,
                 "game %s: %s; it is reloaded from its stored log", r->id, why);
}

/* Forget the log's entries from `from` on: they were never stored, or their
 * transaction was rolled back, so nobody may see them. */
void room__log_truncate(room *r, size_t from)
{
    for (size_t i = from; i < r->log_len; i++)
        free(r->log[i].data);
    if (from < r->log_len)
        r->log_len = from;
}

/* A write to the store failed: the change or the move under way is not
 * stored. Outside either, the room has already changed: reload it. */
store *room__store(const room *r)
{
    return r->write_failed ? NULL : r->svc->store;
}

void room__write_failed(room *r)
{
    r->write_failed = true;
    if (r->change_depth == 0 && !r->holding)
        room__diverge(r, "a change could not be stored");
}

void room__change_begin_events_only(room *r)
{
    room__change_begin(r);
    if (r->change_depth == 1)
        r->change_events_only = true;
}

void room__change_begin(room *r)
{
    if (r->change_depth++ > 0) {
        r->change_events_only = false;   /* the outer change may do anything */
        return;
    }
    r->change_from = r->log_len;
    r->change_events_only = false;
    r->change_applied = 0;
    r->write_failed = r->diverged;     /* a diverged room writes nothing more */
    r->change_grouped = false;
    store *db = r->svc->store;
    if (!db || r->write_failed)
        return;
    if (store_group_begin(db) != 0) {
        r->write_failed = true;
        return;
    }
    r->change_grouped = true;
    /* A cluster: the game is this node's until the group ends, or not at all. */
    int fenced = store_game_fence(db, r->id);
    if (fenced == STORE_FENCED)
        room_lose(r, ROOM_LOST_ADOPTED);
    if (fenced != 0)
        r->write_failed = true;
}

room_rc room__change_end(room *r, char *err, size_t errlen)
{
    assert(r->change_depth > 0);
    if (--r->change_depth > 0)
        return r->write_failed ? ROOM_E_STORE : ROOM_OK;
    store *db = r->svc->store;
    if (r->change_grouped && store_group_end(db, r->write_failed ? -1 : 0) != 0)
        r->write_failed = true;
    r->change_grouped = false;
    if (r->write_failed) {
        room__log_truncate(r, r->change_from);
        /* Memory changed only by applying stored events: if none was
         * applied, the room is as it was, and goes on. */
        bool unchanged = r->change_events_only && r->change_applied == 0 && !r->diverged;
        if (!r->lost && !unchanged)
            room__diverge(r, "a change could not be stored");
        if (err && errlen)
            snprintf(err, errlen, "it could not be stored, so it did not happen (%s)",
                     db ? store_last_error(db) : "out of memory");
        return ROOM_E_STORE;
    }
    if (!r->holding && !r->lost)
        room__broadcast(r, r->change_from, NULL);
    room_check(r);
    return ROOM_OK;
}

/* Number, log and store one event; a private one (a, b participant ids,
 * non-zero) only for those two, now and on every replay. It is sent when
 * it is durable: at the end of the change (room__change_end) or with its
 * move's commit (room_commit_moves); outside both, at once. An event that
 * cannot be stored is not logged, not numbered and not sent. */
int room__append_event_for(room *r, room_event *ev, unsigned a, unsigned b)
{
    assert(r->change_depth > 0 || r->holding);   /* so it is sent only once stored */
    if (r->write_failed || r->diverged)
        return -1;             /* the change is lost already: write nothing more */
    if (r->log_len == r->log_cap) {
        size_t cap = r->log_cap ? r->log_cap * 2 : 64;
        logged_event *grown = realloc(r->log, cap * sizeof *grown);
        if (!grown) {
            board_log_at(r->svc, LOG_ERR, "game %s: out of memory for the event log", r->id);
            room__write_failed(r);
            return -1;
        }
        r->log = grown;
        r->log_cap = cap;
    }
    ev->seq = r->log_len + 1;
    ev->time_ms = board_wall_ms();
    logged_event *le = &r->log[r->log_len];
    le->seq = ev->seq;
    le->only_for[0] = a;
    le->only_for[1] = b;
    le->from_account = ev->kind == ROOM_EV_CHAT && ev->who ? ev->who->account_id : 0;
    le->data = wire_pack_event(ev, &le->len);
    if (!le->data) {
        board_log_at(r->svc, LOG_ERR, "game %s: out of memory for the event log", r->id);
        room__write_failed(r);
        return -1;
    }
    int stored = r->svc->store ? store_event_append(r->svc->store, r->id, le->seq, ev->time_ms,
                                                    a, b, WIRE_EVENT_FORMAT, le->data, le->len)
                               : 0;
    if (stored != 0) {
        board_log_at(r->svc, LOG_ERR, "game %s: cannot store event %llu: %s", r->id,
                     (unsigned long long)le->seq, store_last_error(r->svc->store));
        free(le->data);
        if (stored == STORE_FENCED)    /* never sent: the log is another's */
            room_lose(r, ROOM_LOST_ADOPTED);
        else if (stored == STORE_BEHIND)   /* numbering on would reuse what was sent */
            room_lose(r, ROOM_LOST_BEHIND);
        room__write_failed(r);
        return -1;
    }
    r->log_len++;
    return 0;
}

/* Record a participant as it now is (for recovery after a crash). */
void room__store_person(room *r, const participant *p)
{
    store *db = room__store(r);
    if (db && (store_participant_put(db, r->id, p->id, p->name, p->seat, p->token, p->ready) !=
                   0 ||
               (p->account_id > 0 &&
                store_participant_account(db, r->id, p->id, p->account_id, p->host) != 0))) {
        board_log_at(r->svc, LOG_ERR, "game %s: cannot store %s: %s", r->id, p->name,
                     store_last_error(r->svc->store));
        room__write_failed(r);
    }
}

int room__append_event(room *r, room_event *ev)
{
    return room__append_event_for(r, ev, 0, 0);
}

/* Announce one participant's change (joined, left, ready, returned...). */
void room__announce_who(room *r, const participant *p, room_event_kind kind)
{
    room_event ev = {.kind = kind, .who = p};
    room__append_event(r, &ev);
}

/* --------------------------------------------------------------- subscribe */

static void send_snapshot(room *r, participant *p)
{
    size_t len;
    uint8_t *data = wire_pack_snapshot(r, p, &len);
    if (!data) {
        room__detach_stream(p, ROOM_E_LIMIT, "out of memory");
        return;
    }
    room__check_sent(p, r->svc->io.send(p->stream, data, len), r->log_len + 1);
    free(data);
}

/* A seated player resumes after an event the log does not hold: it was sent
 * that event, and every event is stored before it is sent, so unless the
 * player lies the log went back in time under the game (a standby promoted
 * behind, an old backup restored), and another node, or this one after a
 * restart, is serving it from the shorter log. One seat's word is not
 * enough (a player about to lose could stop the game so); a second seat's
 * is, and the game is stopped for good, as when a write finds its log
 * behind (room_halt). */
static void claim_beyond(room *r, const participant *p, uint64_t after_seq)
{
    if (p->seat < 0 || r->lost)
        return;
    r->beyond_claims |= 1u << p->seat;
    if (__builtin_popcount(r->beyond_claims) < 2)
        return;
    board_log_at(r->svc, LOG_WARNING, "game %s: two players resume after events its log does "
                 "not hold (%llu; the log ends at %zu)", r->id,
                 (unsigned long long)after_seq, r->log_len);
    room_lose(r, ROOM_LOST_BEHIND);
}

room_rc room_subscribe(room *r, participant *p, void *stream, board_client *from,
                       uint64_t after_seq, char *err, size_t errlen)
{
    if (r->diverged) {
        snprintf(err, errlen, "game %s is being reloaded from its stored log; try again",
                 r->id);
        return ROOM_E_STORE;
    }
    if (after_seq > r->log_len) {
        snprintf(err, errlen, "game %s has no event %llu yet (last is %zu)", r->id,
                 (unsigned long long)after_seq, r->log_len);
        claim_beyond(r, p, after_seq);
        return ROOM_E_RANGE;
    }
    /* A stream that replaces this participant's own from the same address
     * costs that address nothing more. */
    if (from && p->stream_from != from &&
        board_client_may_stream(r->svc, from, 1, err, errlen) != 0)
        return ROOM_E_LIMIT;
    /* One stream per participant: a new subscription replaces the old one. */
    room__detach_stream(p, ROOM_E_REPLACED, "replaced by a newer subscription");
    p->stream = stream;
    p->stream_from = from;
    if (from)
        from->streams++;
    p->last_seen_ms = board_now_ms();
    /* The blocks of its account as they are now (a change made through
     * another node of a cluster arrives so); on failure it keeps the last. */
    board_blocks_load(r->svc, p);
    /* A snapshot stands for the whole log so far; otherwise replay it. A
     * replay longer than the stream's outbox cuts it off like a slow
     * subscriber (check_sent): it resumes from where it got to. */
    size_t replay_from = r->log_len;
    if (after_seq == 0)
        send_snapshot(r, p);
    else
        replay_from = after_seq;
    for (size_t i = replay_from; i < r->log_len && p->stream; i++)
        room__send_logged(p, &r->log[i]);
    if (p->away) {          /* an observer back within the grace: nothing to announce */
        room__back(r, p);
        return 0;
    }
    if (p->departed) {      /* back within the grace: the seat is theirs again */
        room__change_begin(r);
        p->departed = false;
        if (p->seat >= 0)
            r->gone &= ~(1u << p->seat);      /* back before anyone claimed */
        p->depart_deadline_ms = 0;
        board_log_person(r->svc, LOG_INFO, p, "game %s: %s is back", r->id, p->name);
        if (room__presence_logged(r, p))
            room__announce_who(r, p, ROOM_EV_RETURNED);
        room__maybe_start(r);
        /* Not stored: the room is reloaded, which ends this stream too. */
        room__change_end(r, NULL, 0);
    }
    return 0;
}

void room_stream_ended(participant *p, void *stream)
{
    if (p->stream != stream)
        return;
    room__forget_stream(p);
    room_depart(p->room, p, ROOM_DEPART_CONNECTION_CLOSED, "the connection closed");
}

void room_end_stream(participant *p, room_rc rc, const char *why)
{
    if (!p->stream)
        return;
    room__detach_stream(p, rc, why);
    room_depart(p->room, p, ROOM_DEPART_ENDED_BY_OPERATOR, why);
}

void room_end_streams(room *r, const char *why)
{
    for (int i = 0; i < r->n_people; i++)
        room__detach_stream(r->people[i], ROOM_OK, why);
}

void room_close_streams(room *r, const char *why)
{
    for (int i = 0; i < r->n_people; i++)
        room__detach_stream(r->people[i], ROOM_E_CLOSING, why);
}


/* ------------------------------------------------------ rebuilt from the store */

int room_restore_person(room *r, participant *p)
{
    assert(!r->indexed && p->room == r);
    if (room_add_person(r, p) != 0)
        return -1;
    if (p->id > r->next_person_id)
        r->next_person_id = p->id;
    if (p->seat < 0 && p->departed) {   /* an observer, away until it resumes */
        p->away = true;
        r->n_away++;
    }
    if (p->seat >= 0) {
        r->seat_holder[p->seat] = p;
        snprintf(r->seat_name[p->seat], sizeof r->seat_name[p->seat], "%s", p->name);
    }
    return 0;
}

participant *room_person_by_id(const room *r, unsigned id)
{
    for (int i = r->n_people - 1; i >= 0; i--)
        if (r->people[i]->id == id)
            return r->people[i];
    return NULL;
}

int room_restore_event(room *r, uint64_t seq, unsigned only_for_a, unsigned only_for_b,
                       uint8_t *data, size_t len, const room_event *value)
{
    if (seq != r->log_len + 1) {      /* a gap: the log is not whole */
        free(data);
        return -1;
    }
    if (r->log_len == r->log_cap) {
        size_t cap = r->log_cap ? r->log_cap * 2 : 64;
        logged_event *grown = realloc(r->log, cap * sizeof *grown);
        if (!grown) {
            free(data);
            return -1;
        }
        r->log = grown;
        r->log_cap = cap;
    }
    logged_event *le = &r->log[r->log_len++];
    le->seq = seq;
    le->only_for[0] = only_for_a;
    le->only_for[1] = only_for_b;
    /* A chat line's sender by its name among the people restored (the live
     * log had its account from who): someone who has left since is not
     * found, and a late subscriber's replay of their old lines is not
     * filtered. */
    const participant *sender = value->kind == ROOM_EV_CHAT && value->sender
                                    ? room_find_name(r, value->sender)
                                    : NULL;
    le->from_account = sender ? sender->account_id : 0;
    le->data = data;
    le->len = len;
    return room_apply_event(r, value);
}
