/*
 * room.h — one game on the board service, as the rest of the service sees it:
 * a room is made with every setting it will have (room_create), changed only
 * through the functions below, each one change stored whole or refused
 * (room_internal.h says how), and read through the accessors. Its struct is
 * private to the room's own files (room*.c, room_internal.h).
 *
 * Ownership: the registry (registry.c) owns every registered room; a
 * participant belongs to its room until room__drop_person. Pointers a room
 * returns (names, states, people) stay valid until the room next changes.
 * Loop thread only.
 */
#ifndef SUNGKA_ROOM_H
#define SUNGKA_ROOM_H

/* Included by board_internal.h, after the types it uses. */

/* --- room.c: one game. Functions that can refuse return ROOM_OK or a
 * room_rc with a sentence in err (errlen bytes). --- */
/* Everything a game is made with: a new game's request, or a stored game's
 * row. No field of a room is set after room_create. */
typedef struct room_settings {
    const char *id;
    const game_kind *kind;
    const game_options *opts;
    const char *title;
    bool autostart;            /* start when the seats fill, without "ready" */
    time_control tc;           /* all zero: no clocks */
    bool rated;                /* signed-in players only, rated at the end */
    int takeover_level;        /* a bot at this level takes the seat of a player whose
                                * grace ran out; 0: the others may claim it */
    const int64_t *rated_accounts;   /* a stored rated game's seats' accounts (NULL:
                                      * not started yet) */
    const char *creator;       /* the creating client's host (NULL: none) */
    bool recovered;            /* rebuilt from the store: its people enter the
                                * service's indexes with room_index_people */
} room_settings;
/* ROOM_OK and *out, or ROOM_E_INVALID with a sentence (options that make
 * no game, a time control out of range, a rated game with a bot). */
room_rc room_create(board_service *svc, const room_settings *s, room **out, char *err,
                    size_t errlen);
void room_free(room *r);
int room_seats_taken(const room *r);
participant *room_find_name(const room *r, const char *name);
/* May someone join r as `name` (account_id 0: a guest)? Not when the name
 * is taken, nor, for a guest, when it looks like the name of someone in r. */
bool room_name_free(const room *r, const char *name, int64_t account_id);
/* Take p (its seat and name set) into r->people and the service's token and
 * name indexes; 0, or -1 when out of memory. */
int room_add_person(room *r, participant *p);
/* A room rebuilt from the store enters the service's indexes only once it
 * replaces the room it reloads: recovery builds it with indexed false (see
 * struct room), then this puts its people in. 0, or -1 (nobody indexed). */
int room_index_people(room *r);
/* Add a participant (seat chosen as the first open one) on behalf of client
 * `from` (NULL: the service's own, a bot), and announce a player (observers
 * are counted, not announced). */
room_rc room_join(room *r, const char *name, bool observe, board_client *from,
                  participant **out, char *err, size_t errlen);
/* The same for a person signed in to account_id (0: a guest, as room_join):
 * the participant plays for the account, and its results count for it.
 * host: the client address taking the seat, when from does not say it (a
 * rematch's players, seated by the service); NULL: from's, if any. */
room_rc room_join_as(room *r, const char *name, int64_t account_id, bool observe,
                     board_client *from, const char *host, participant **out, char *err,
                     size_t errlen);
/* The participant that plays for account_id in r, or NULL. */
participant *room_find_account(const room *r, int64_t account_id);
/* Give every participant of account_id in r a new seat token, stored, so
 * that the old ones stop working (the account signed out everywhere or
 * changed its password: whoever kept a seat token must sign in again). An
 * open stream ends UNAUTHENTICATED with `why`, and its player departs with
 * the grace, as if the connection closed; the seat stays the account's,
 * and JoinGame with a session hands the new token back. *revoked: how many.
 * ROOM_E_STORE when the new tokens could not be stored (the room then
 * reloads from its log, with the old ones). */
room_rc room_revoke_account_tokens(room *r, int64_t account_id, const char *why, int *revoked);
/* Attach event stream `stream` (room_io's handle) from client `from`:
 * replay from after_seq (0: a snapshot first) then live. The stream counts
 * against from's streams while attached; NULL when its caller counts it
 * already (a SubscribeMany's leg counts as long as its call). */
room_rc room_subscribe(room *r, participant *p, void *stream, board_client *from,
                       uint64_t after_seq, char *err, size_t errlen);
/* The operator ends p's open stream (its address was banned) with rc and
 * why; p departs as if its connection had closed. */
void room_end_stream(participant *p, room_rc rc, const char *why);
/* The service saw p's stream end (client gone, or shutdown). */
void room_stream_ended(participant *p, void *stream);
/* Play a move. ROOM_OK: it is played and waits for room_commit_moves,
 * which sends its events and answers `reply` through io.move_done (with its
 * event's seq, or ROOM_E_STORE if it could not be stored and was undone).
 * Otherwise refused, and the caller answers `reply` itself. */
room_rc room_move(room *r, participant *p, int move, void *reply, char *err, size_t errlen);
/* The same for a move sent on p's Play stream: no call to answer; its
 * MoveMade, sent to p's stream first once stored, is the acknowledgement,
 * and a failure to store it is io.command_refused(p's stream, id, ...). */
room_rc room_move_on_stream(room *r, participant *p, int move, uint64_t id, char *err,
                            size_t errlen);
/* The client of a pending move's `reply` went away: nobody to answer. */
void room_move_abandoned(board_service *svc, void *reply);
/* Commit every move played and not yet committed, and send their events and
 * answer their calls (or refuse them): when it returns, nothing is pending.
 * It is the rpc server's turn hook (service.c, end_turn): it runs before
 * every handler but Move's and Ping's (and Play's commands, which call it
 * for anything but a move), and every done callback, so nothing sees a move
 * that is not stored. */
void room_commit_moves(board_service *svc);
/* The end of a loop turn (the rpc server's turn-end hook): this turn's
 * moves' commit is sent and not waited for, unless the last turn's is
 * still on its way (then they wait for it, and the next turn's moves join
 * them); a commit that has landed is finished (events sent, calls
 * answered). A move's events and answer still follow its commit. */
void room_turn_end(board_service *svc);
/* Whether a commit is on its way (room_turn_end sent it, it has not landed). */
bool room_moves_in_flight(const board_service *svc);
/* Wait up to wait_ms for the commit on its way; if it lands, finish it and
 * send the next turn's (room_turn_end). */
void room_moves_await(board_service *svc, int wait_ms);
/* Free the batch's memory (nothing may be pending): the service's end. */
void room_moves_free(board_service *svc);
/* To everyone, or privately to the participant named `to` (non-empty). */
room_rc room_chat(room *r, participant *p, board_client *from, const char *text,
                  const char *to, char *err, size_t errlen);
room_rc room_ready(room *r, participant *p, bool ready, char *err, size_t errlen);
/* Observer takes seat `seat` (-1: the first open one) / player stands up;
 * before the game starts only. */
room_rc room_sit(room *r, participant *p, int seat, char *err, size_t errlen);
room_rc room_stand(room *r, participant *p, char *err, size_t errlen);
/* A ping answer: p is alive; nonce times its round trip when it is the one
 * outstanding. */
void room_pong(participant *p, uint64_t nonce);
/* An open seat and not started: a player may join. */
bool room_has_open_seat(const room *r);
/* Mark departed (stream closed or pings missed): a seated player keeps the
 * seat for the grace period; / gone for good (Leave: a seated player quitting
 * a running game is out of it and loses, as by resigning). */
void room_depart(room *r, participant *p, room_depart_why code, const char *why);
void room_leave(room *r, participant *p);
/* room_fairplay.c — leaving a game without walking out. Seated players of
 * a running game only. Resign: out of the game (two seats: the other wins;
 * more: the others play on). Abort: the game ends with no result, while
 * some seat has not moved yet. Two seats: offer a draw (once until the
 * offerer has moved again), and the other accepts (a draw) or declines. */
room_rc room_resign(room *r, participant *p, char *err, size_t errlen);
room_rc room_abort(room *r, participant *p, char *err, size_t errlen);
room_rc room_offer_draw(room *r, participant *p, char *err, size_t errlen);
room_rc room_answer_draw(room *r, participant *p, bool accept, char *err, size_t errlen);
/* A clocked running game: p gives every other seat still in ROOM_GIVE_TIME_MS
 * (TimeGiven), at most once every ROOM_GIVE_TIME_EVERY_MS. */
#define ROOM_GIVE_TIME_MS 15000
#define ROOM_GIVE_TIME_EVERY_MS 5000
room_rc room_give_time(room *r, participant *p, char *err, size_t errlen);
/* The operator takes p out of r: its stream ends with rc ROOM_E_DENIED and
 * why, then it leaves as room_leave (a seated player of a running game is
 * out of it and loses). p may be freed. */
room_rc room_kick(room *r, participant *p, const char *why, char *err, size_t errlen);
/* The operator ends r (waiting or running) with no result, for `reason`
 * (admin_rpc.c's EndGame), which everyone in it reads. */
room_rc room_end_by_operator(room *r, const char *reason, char *err, size_t errlen);
/* After a seat's grace ran out: the seat is out (two seats: p wins). */
room_rc room_claim(room *r, participant *p, char *err, size_t errlen);
/* A service bot `bot_name` at r's bot level takes departed p's seat in the
 * running game: p keeps watching (departed, seatless) and has lost; the
 * bot plays on. ROOM_OK and *bot, or a refusal with a sentence. bots.c
 * starts the bot's player. */
room_rc room_take_over(room *r, participant *p, const char *bot_name, participant **bot,
                       char *err, size_t errlen);
/* room_rematch.c — after the end, a rematch with the seats rotated. p
 * offers or accepts (decline: declines, which ends the offer); the
 * service's bots accept by themselves. ROOM_OK with *all true when every
 * seat has accepted: the caller creates the new game (board service) and
 * then calls room_rematch_started. Refused with a sentence otherwise. */
room_rc room_rematch(room *r, participant *p, bool decline, bool *all, char *err,
                     size_t errlen);
void room_rematch_started(room *r, const char *new_id);
/* The seat old seat `seat` of r plays in its rematch. */
int room_rematch_seat(const room *r, int seat);


/* room_clock.c — the clocks of a game with a time control. */
/* Read p's rating in r's kind into p (a newcomer's when it has none; none
 * for a guest or when the store cannot say). */
void room_load_rating(room *r, participant *p);
bool room_has_clocks(const room *r);
/* The clocks now, for a snapshot or an event. */
void room_clocks_now(const room *r, int64_t now, room_clocks *out);
/* When r's running clock falls (INT64_MAX: none running). */
int64_t room_clock_deadline(const room *r);
/* A clock that fell by now: a seat that never moved aborts the game; one
 * that did is out of it (two seats: the other wins). */
void room_clock_check(room *r, int64_t now);
/* Recovery: once the log is replayed, the clock of the seat to move runs
 * from now. */
void room_clock_resume(room *r, int64_t now);

/* Send pings, notice missed ones, end grace periods that ran out. */
void room_tick(room *r, int64_t now);
/* True when nobody but the service's bots is connected to a game that is
 * over: it can go (room_end_streams first). */
bool room_is_idle(const room *r);
/* End every stream normally (OK), saying why: an idle game goes. */
void room_end_streams(room *r, const char *why);
/* Close every stream, saying why (shutdown; a game that moved). */
void room_close_streams(room *r, const char *why);
/* A recovered room tells its log that the service came back. */
void room_announce_restart(room *r);


/* room_events.c — what each kind means to a game (one apply function per
 * kind, in one table). Apply a stored event to r: 0, or -1 when it does not
 * fit r (a damaged log). Live play, recovery and reloads all apply events
 * through this. */
int room_apply_event(room *r, const room_event *ev);
const char *room_event_name(room_event_kind kind);


/* --- room.c: reading a room --- */
const char *room_id(const room *r);
const char *room_title(const room *r);
const game_kind *room_kind(const room *r);
const game_options *room_options(const room *r);
const game_state *room_state(const room *r);
room_status room_status_of(const room *r);
bool room_is_open(const room *r);            /* waiting or running */
const time_control *room_time_control(const room *r);
bool room_is_rated(const room *r);
bool room_autostart(const room *r);
int room_takeover_level(const room *r);      /* 0: none */
const char *room_creator(const room *r);     /* "" when unknown */
int64_t room_created_ms(const room *r);      /* board_now_ms() when made */
/* Everyone: (*people)[0..n_seated) hold seats, the rest watch. */
participant *const *room_people(const room *r, int *n, int *n_seated);
const participant *room_seat_holder(const room *r, int seat);   /* NULL: open */
int room_watchers(const room *r);            /* the observers, counted */
const char *room_seat_name(const room *r, int seat);    /* "" while open */
const char *room_rematch_id(const room *r);  /* the rematch's game; "" before */
uint64_t room_last_seq(const room *r);       /* the log's last event, 0: none */
/* The log's event seq (1..room_last_seq), as sent to those it is for. */
const logged_event *room_logged(const room *r, uint64_t seq);

/* r is no longer this service's to serve; the loop lets it go, saying why:
 * another node of the cluster adopted it, or the database went back in
 * time under it (its stored log lacks events that were sent). */
typedef enum room_lost {
    ROOM_LOST_ADOPTED = 1,
    ROOM_LOST_BEHIND,
} room_lost;
bool room_is_lost(const room *r);
/* Once; a game lost as adopted may still be found behind (its owner's row
 * was what the database forgot), and is then stopped rather than passed on. */
void room_lose(room *r, room_lost why);
/* Why, in a sentence for the log ("another node has it now"). */
const char *room_lost_why(const room *r);
bool room_is_behind(const room *r);          /* lost as ROOM_LOST_BEHIND */
/* A game lost behind is stopped for good: recorded in the store as
 * abandoned, for the reason room_lost_why gives, and its participants
 * forgotten, so that no restart or other node serves it again from the
 * shorter log (renumbering what its players saw). No event is appended: the
 * log cannot be numbered on. 0, or -1 when the store refused (logged). */
int room_halt(room *r);
/* Its memory may differ from its log: it takes no calls until reloaded. */
bool room_is_diverged(const room *r);
int64_t room_reload_after(const room *r);
void room_reload_later(room *r, int64_t at_ms);
bool room_is_indexed(const room *r);

/* --- room_log.c: a room rebuilt from the store (recovery.c) --- */
/* Seat p (its id, name, seat, token and ready set, departed) in r as the
 * store had it, outside the indexes. 0, or -1 when out of memory. */
int room_restore_person(room *r, participant *p);
participant *room_person_by_id(const room *r, unsigned id);
/* Keep stored event seq (data, len bytes: taken, freed by the room) in the
 * log and apply its value: 0, or -1 when it does not follow the log or fit
 * the game (a damaged log: the caller drops the room). */
int room_restore_event(room *r, uint64_t seq, unsigned only_for_a, unsigned only_for_b,
                       uint8_t *data, size_t len, const room_event *value);
/* Its stored log could not be replayed: recovery drops it. */
void room_mark_damaged(room *r);
bool room_is_damaged(const room *r);

/* --- room_check.c --- */
/* Assert r's invariants (debug and sanitizer builds; nothing otherwise). */
void room_check(const room *r);

#endif /* SUNGKA_ROOM_H */
