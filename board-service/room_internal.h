/*
 * room_internal.h — what the files of one room share and nothing else sees
 * (libuv's uv__ convention: room__ is internal). room.c: a game's life,
 * seats and chat; room_log.c: the event log and its streams; room_moves.c:
 * moves and their commit; room_presence.c: departures, grace and pings.
 * Loop thread only.
 */
#ifndef SUNGKA_ROOM_INTERNAL_H
#define SUNGKA_ROOM_INTERNAL_H

#include "board_internal.h"

/* --- room_log.c --- */
/* The participant's stream is gone (the address's count comes back). */
void room__forget_stream(participant *p);
/* An observer's seat no longer counts against the address that took it. */
void room__release_watch(participant *p);
/* End p's stream with a status, forgetting it first. */
void room__detach_stream(participant *p, room_rc rc, const char *why);
/* After a send: an outbox too full (rc -2) cuts the subscriber off, telling
 * it to resubscribe after seq - 1. */
void room__check_sent(participant *p, int rc, uint64_t seq);
void room__send_logged(participant *p, const logged_event *le);
/* Send log entries from..log_len-1 to everyone allowed, `first` (the mover,
 * or NULL) before the others. */
void room__broadcast(room *r, size_t from, participant *first);
/* Number, log, store and (unless a move is held for its commit) send one
 * event; a private one (participant ids a, b non-zero) only to those two. */
void room__append_event_for(room *r, room_event *ev, unsigned a, unsigned b);
void room__append_event(room *r, room_event *ev);
/* Announce one participant's change (joined, left, ready, returned). */
void room__announce_who(room *r, const participant *p, room_event_kind kind);
/* Record a participant as it now is (for recovery after a crash). */
void room__store_person(room *r, const participant *p);

/* --- room.c --- */
/* "alice" for a seat, or "seat 2" while it is open. */
const char *room__seat_label(const room *r, int seat, char *buf, size_t len);
/* The game ended: by the rules (abandoned false) or because a player left. */
void room__end_game(room *r, bool abandoned, const char *reason);
/* ... or by agreement: a draw, whatever the scores. */
void room__end_drawn(room *r, const char *reason);
/* "alice wins", "alice and bob share the win", or "the game ended in a
 * draw", for a game over by its rules. */
void room__result_sentence(const room *r, char *buf, size_t len);
/* Start when every seat is taken by a present player who said ready. */
void room__maybe_start(room *r);

/* --- room_fairplay.c --- */
/* Seat (held by p) is out of the running game: resigned or its time ran
 * out (why). Logs PlayerOut; the game ends when one seat is left in. */
void room__leave_game(room *r, int seat, participant *p, const char *why, int64_t now);

/* --- room_clock.c --- */
/* Start the clock of the seat to move (none when the game is over), after
 * the start, a move or a seat leaving; charges nothing. */
void room__clock_run(room *r, int64_t now);
/* Charge the running clock for the time since it started; false when it
 * had run out (the move comes too late). Fischer: adds the increment. */
bool room__clock_charge(room *r, int seat, int64_t now);
/* Stop every clock (the game is over). */
void room__clock_stop(room *r);
/* The clocks for an event, or NULL for a game without: fills *buf. */
const room_clocks *room__event_clocks(const room *r, int64_t now, room_clocks *buf);

/* --- room_presence.c --- */
/* Take a participant out of the room, the store and the token index. */
void room__remove_participant(room *r, participant *p);
/* Take p out of r->people and the service's indexes (the caller frees it). */
void room__drop_person(room *r, participant *p);
/* Give p seat `seat` (-1: none), keeping the seated before the watchers. */
void room__set_seat(room *r, participant *p, int seat);

/* --- room_rating.c --- */
/* ROOM_OK, or ROOM_E_DENIED with a sentence: a guest (account 0) may not
 * take a seat of a rated game. */
room_rc room__may_play_rated(const room *r, int64_t account_id, char *err, size_t errlen);
/* A rated game starts: keep its seats' accounts (and store them). */
void room__rated_start(room *r);
/* Each seat's place (1 first; equal places tie) at the end of the game. */
void room__placements(const room *r, int n_winners, const int *winners, int *place);
/* A rated game finished by the rules: every seat's rating before and after
 * into out[seats]; returns the seat count, or 0 when the game is not rated
 * (casual, abandoned, or the ratings could not be read). */
int room__rate(room *r, int n_winners, const int *winners, room_rating_change *out);
/* Store what room__rate computed (inside the game's ending) and show it. */
int room__store_ratings(room *r, const room_rating_change *changes, int n);

#endif /* SUNGKA_ROOM_INTERNAL_H */
