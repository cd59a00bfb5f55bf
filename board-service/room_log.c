/*
 * room_log.c — a room's event log and the streams it feeds: numbering,
 * storing and sending each event (the mover's first), replaying the log to
 * a new or returning subscriber, and cutting off one too slow to keep up.
 * Loop thread only.
 */
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
    if (rc != -2)
        return;
    char why[96];
    snprintf(why, sizeof why, "too far behind; resubscribe after seq %llu",
             (unsigned long long)(seq ? seq - 1 : 0));
    board_log(p->room->svc, "game %s: cutting off slow subscriber %s", p->room->id, p->name);
    room__detach_stream(p, ROOM_E_LIMIT, why);
}

static bool may_see(const participant *p, const logged_event *le)
{
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

/* Number, log, store and broadcast one event; a private one (a, b
 * participant ids, non-zero) only to those two, now and on every replay.
 * While a move is being made durable (r->holding) nothing is sent yet. */
void room__append_event_for(room *r, room_event *ev, unsigned a, unsigned b)
{
    if (r->log_len == r->log_cap) {
        size_t cap = r->log_cap ? r->log_cap * 2 : 64;
        logged_event *grown = realloc(r->log, cap * sizeof *grown);
        if (!grown) {
            board_log(r->svc, "game %s: out of memory for the event log", r->id);
            r->store_failed = true;
            return;
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
    le->data = wire_pack_event(ev, &le->len);
    if (!le->data) {
        board_log(r->svc, "game %s: out of memory for the event log", r->id);
        r->store_failed = true;
        return;
    }
    int stored = r->svc->store ? store_event_append(r->svc->store, r->id, le->seq, ev->time_ms,
                                                    a, b, WIRE_EVENT_FORMAT, le->data, le->len)
                               : 0;
    if (stored != 0) {
        board_log(r->svc, "game %s: cannot store event %llu: %s", r->id,
                  (unsigned long long)le->seq, store_last_error(r->svc->store));
        r->store_failed = true;
        if (stored == STORE_FENCED && !r->lost) {  /* never sent: the log is another's */
            r->lost = true;
            r->svc->n_lost++;
        }
    }
    r->log_len++;
    if (!r->holding && !r->lost)
        room__broadcast(r, r->log_len - 1, NULL);
}

/* Record a participant as it now is (for recovery after a crash). */
void room__store_person(room *r, const participant *p)
{
    if (r->svc->store &&
        (store_participant_put(r->svc->store, r->id, p->id, p->name, p->seat, p->token,
                               p->ready) != 0 ||
         (p->account_id > 0 &&
          store_participant_account(r->svc->store, r->id, p->id, p->account_id) != 0)))
        board_log(r->svc, "game %s: cannot store %s: %s", r->id, p->name,
                  store_last_error(r->svc->store));
}

void room__append_event(room *r, room_event *ev)
{
    room__append_event_for(r, ev, 0, 0);
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

room_rc room_subscribe(room *r, participant *p, void *stream, board_client *from,
                       uint64_t after_seq, char *err, size_t errlen)
{
    if (after_seq > r->log_len) {
        snprintf(err, errlen, "game %s has no event %llu yet (last is %zu)", r->id,
                 (unsigned long long)after_seq, r->log_len);
        return ROOM_E_RANGE;
    }
    /* A stream that replaces this participant's own from the same address
     * costs that address nothing more. */
    if (p->stream_from != from && board_client_may_stream(r->svc, from, err, errlen) != 0)
        return ROOM_E_LIMIT;
    /* One stream per participant: a new subscription replaces the old one. */
    room__detach_stream(p, ROOM_E_REPLACED, "replaced by a newer subscription");
    p->stream = stream;
    p->stream_from = from;
    from->streams++;
    p->last_seen_ms = board_now_ms();
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
    if (p->departed) {      /* back within the grace: the seat is theirs again */
        p->departed = false;
        if (p->seat >= 0)
            r->gone &= ~(1u << p->seat);      /* back before anyone claimed */
        p->depart_deadline_ms = 0;
        board_log(r->svc, "game %s: %s is back", r->id, p->name);
        room__announce_who(r, p, ROOM_EV_RETURNED);
        room__maybe_start(r);
    }
    return 0;
}

void room_stream_ended(participant *p, void *stream)
{
    if (p->stream != stream)
        return;
    room__forget_stream(p);
    room_depart(p->room, p, "the connection closed");
}

void room_close_streams(room *r, const char *why)
{
    for (int i = 0; i < r->n_people; i++)
        room__detach_stream(r->people[i], ROOM_E_CLOSING, why);
}

