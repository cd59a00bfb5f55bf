/*
 * room_internal.h — what the files of one room share and nothing else sees
 * (libuv's uv__ convention: room__ is internal), and struct room itself.
 * room.c: a game's life, seats and chat; room_log.c: the event log, its
 * streams and its changes; room_moves.c: moves and their commit;
 * room_presence.c: departures, grace and pings; room_events.c: what each
 * event means; room_fairplay.c, room_clock.c, room_rating.c,
 * room_rematch.c; room_check.c: invariants and the replay check.
 * Loop thread only.
 */
#ifndef SUNGKA_ROOM_INTERNAL_H
#define SUNGKA_ROOM_INTERNAL_H

#include "board_internal.h"

/* Why a game created rated changes no rating: a sentence for its players. */
#define ROOM_UNRATED_BYTES 256

/* A rated game that does not count: why (a store_unrated) and in words. */
typedef struct room_unrated {
    int code;                  /* STORE_RATED_COUNTS: it counts, text "" */
    char text[ROOM_UNRATED_BYTES];
} room_unrated;

/* One game. Private to the room's files: the rest of the service reads it
 * through room.h. The event-loop thread only. */
struct room {
    board_service *svc;
    char id[BOARD_ID_LEN];
    char title[BOARD_TITLE_MAX + 1];
    const game_kind *kind;
    game_options opts;
    game_state state;
    room_status status;
    bool autostart;            /* start when the seats fill, without "ready" */
    bool holding;              /* a move waits for its commit: so do its events */
    bool write_failed;         /* a store write of the current change or move failed */
    int change_depth;          /* room__change_begin calls not yet ended */
    size_t change_from;        /* the log's length when the outermost began */
    bool change_grouped;       /* ... and it opened a store group */
    bool change_events_only;   /* ... and the room changes in it only by its events */
    int change_applied;        /* events applied in it so far (room__emit) */
    bool diverged;             /* its memory may differ from its stored log: it
                                * takes no calls until it is reloaded from the log */
    int64_t reload_after_ms;   /* the next try at reloading it */
    bool indexed;              /* its people are in the service's token and name
                                * indexes (a room being reloaded is not, yet) */
    size_t checked_len;        /* room_check.c: its log's length at the last check */
    int n_moves;               /* moves played, for the store's ply numbers */
    store_move *played;        /* each of them (apply_moved, live and replayed), for
                                * the `moves` rows written as the game ends */
    int played_cap;
    bool played_lost;          /* out of memory for `played`: the end reads the
                                * moves back from the stored log instead */
    int seat_moves[GAME_MAX_SEATS];    /* moves each seat played (too short to rate) */
    unsigned moved;            /* bit s: seat s has moved (abort is for before) */
    int draw_offer;            /* the seat whose draw offer is open; -1: none */
    unsigned draw_offered;     /* bit s: seat s offered and has not moved since */
    unsigned gone;             /* bit s: seat s's player departed and its grace ran
                                * out in a running game: the others may claim */
    int out_at[GAME_MAX_SEATS];        /* seat s was the out_at[s]-th to go out of
                                        * the game; 0: still in */
    int n_out;                 /* how many seats went out so far */
    bool rated;                /* room_rating.c: signed-in players only, rated at the end */
    bool bot_takes_over;       /* a bot at bot_level takes a seat whose player's grace
                                * ran out (bots.c), rather than waiting for a claim */
    int bot_level;
    unsigned taken_over;       /* bit s: seat s is a bot's since its player left */
    unsigned rematch_accepted; /* room_rematch.c: bit s, seat s accepts a rematch */
    unsigned char rematch_starts[GAME_MAX_SEATS];   /* offers each seat began */
    char rematch_id[BOARD_ID_LEN];   /* the rematch, once it has started; "" before */
    bool damaged;              /* recovery: its stored log could not be replayed */
    bool lost;                 /* not ours to serve any more (room_lose): the loop
                                * lets it go */
    room_lost lost_why;
    unsigned beyond_claims;    /* seats that resumed after an event the log lacks
                                * (room_log.c, claim_beyond): a bit each */
    int64_t rated_account[GAME_MAX_SEATS];   /* a rated game's seats' accounts as it
                                              * started; 0 before */
    char unrated[ROOM_UNRATED_BYTES];   /* a rated game that changes no rating, as its
                                         * GameStarted said: why; "" when it counts */
    time_control tc;           /* room_clock.c */
    int64_t clock_ms[GAME_MAX_SEATS];  /* each seat's time left, as of clock_since_ms
                                        * for the running one */
    int clock_running;         /* the seat whose clock runs; -1: none */
    int64_t clock_since_ms;    /* board_now_ms() when it last started running */
    unsigned next_person_id;
    int64_t created_ms;
    char creator[64];          /* host of the client that created it (the per-client cap) */
    char end_reason[GAME_MAX_SEATS * BOARD_NAME_BYTES + 64];
    participant **people;      /* players and observers (cfg.max_participants at most):
                                * people[0..n_seated) hold seats, the rest watch, so
                                * a crowd's snapshot finds the players and counts
                                * the observers without a scan */
    int n_people, people_cap, n_seated;
    int n_away;                /* observers among them that are away (participant.away) */
    participant *seat_holder[GAME_MAX_SEATS];   /* NULL while open or after leaving */
    char seat_name[GAME_MAX_SEATS][BOARD_NAME_BYTES]; /* kept after the game ends */
    logged_event *log;
    size_t log_len, log_cap;
};

/* --- room.c (room_create's parts, and the room's own tests) --- */
/* A time control for r before it starts; 0, or -1 with a sentence. */
int room__set_time_control(room *r, const time_control *tc, char *err, size_t errlen);
/* Make a new game rated (before anyone joins it). */
room_rc room__set_rated(room *r, char *err, size_t errlen);

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
/* Number, log and store one event, sent once durable (the end of its
 * change, or its move's commit); a private one (participant ids a, b
 * non-zero) only to those two. 0; -1 when it could not be stored: it is
 * then not logged, not numbered and never sent. */
int room__append_event_for(room *r, room_event *ev, unsigned a, unsigned b);
int room__append_event(room *r, room_event *ev);
/*
 * Durable before visible. Every public function that changes a room wraps
 * its change in room__change_begin / room__change_end: the change's store
 * writes are one group (a transaction, or a savepoint in the turn's move
 * transaction), and its events are sent at the end only if the group was
 * stored. If any write failed, nothing of it is stored or sent, the room's
 * memory (already changed) is not trusted: it is marked diverged and the
 * service reloads it from its log. Changes nest; the outermost decides.
 */
void room__change_begin(room *r);
/* The same for a change in which the room changes only by the events it
 * emits (room__emit): if the first of them cannot be stored, nothing has
 * changed, so the room is not reloaded; the caller is refused all the same.
 * A change nested in another takes the outer one's kind. */
void room__change_begin_events_only(room *r);
/* ROOM_OK, or ROOM_E_STORE with a sentence in err (err may be NULL). */
room_rc room__change_end(room *r, char *err, size_t errlen);
/* A store write failed (the change or move under way is lost). */
/* The store, for a write of the change under way; NULL when there is none,
 * or when the change is lost already (its group could not begin, its fence
 * refused it, a write failed): a write then goes nowhere, rather than to the
 * database on its own, outside the change's group and its fence. */
store *room__store(const room *r);
void room__write_failed(room *r);
/* Mark r diverged: no calls until it is reloaded from its log. */
void room__diverge(room *r, const char *why);
/* Forget log entries from `from` on (never stored, or rolled back). */
void room__log_truncate(room *r, size_t from);
/* room_events.c: store ev (room__append_event_for), then apply it to r
 * (room_apply_event): the live way of every event that changes the game.
 * ROOM_OK, or ROOM_E_STORE when it could not be stored (nothing applied). */
room_rc room__emit_for(room *r, room_event *ev, unsigned a, unsigned b);
room_rc room__emit(room *r, room_event *ev);
/* Announce one participant's change (joined, left, ready, returned). */
void room__announce_who(room *r, const participant *p, room_event_kind kind);
/* Record a participant as it now is (for recovery after a crash). */
void room__store_person(room *r, const participant *p);

/* --- room.c --- */
/* "alice" for a seat, or "seat 2" while it is open. */
const char *room__seat_label(const room *r, int seat, char *buf, size_t len);
/* Why a game ends, as GameOver says it to clients (board_internal.h:
 * room_end_why; by and detail borrowed for the call, NULL when none). */
typedef struct room_end {
    room_end_why why;
    room_out_why out_why;      /* ROOM_END_PLAYER_OUT: why `by` left */
    const char *by;            /* whose doing: a name or a seat's label */
    const char *detail;        /* ROOM_END_OPERATOR: the operator's words */
} room_end;
/* The game ended: by the rules (abandoned false) or because a player left;
 * reason is the English sentence for logs and the store. */
void room__end_game(room *r, bool abandoned, const room_end *end, const char *reason);
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
void room__leave_game(room *r, int seat, participant *p, room_out_why code, const char *why,
                      int64_t now);

/* --- room_clock.c --- */
/* Start the clock of the seat to move (none when the game is over), per
 * move afresh; charges nothing (a restart's resume). */
void room__clock_run(room *r, int64_t now);
/* Seat's clock runs from now (-1: none runs). */
void room__clock_start(room *r, int seat, int64_t now);
/* The clocks an event carries when the game goes from r to `after`, now:
 * seat `charged` (the mover; -1: none) is charged the time it took, plus
 * Fischer's increment; the seat to move next runs (per move: afresh). NULL
 * for a game without clocks; else buf. */
const room_clocks *room__clocks_after(const room *r, int charged, const game_state *after,
                                      int64_t now, room_clocks *buf);
/* Stop every clock (the game is over). */
void room__clock_stop(room *r);
/* The clocks for an event, or NULL for a game without: fills *buf. */
const room_clocks *room__event_clocks(const room *r, int64_t now, room_clocks *buf);

/* --- room_presence.c --- */
/* May p's departure or return be logged now (counted when it may)? */
bool room__presence_logged(room *r, participant *p);
/* Take a participant out of the room, the store and the token index. */
void room__remove_participant(room *r, participant *p);
/* Take p out of r->people and the service's indexes (the caller frees it). */
void room__drop_person(room *r, participant *p);
/* An away observer is back (or going for good): present, not counted away. */
void room__back(room *r, participant *p);
/* Give p seat `seat` (-1: none), keeping the seated before the watchers. */
void room__set_seat(room *r, participant *p, int seat);

/* --- room_rating.c --- */
/* ROOM_OK, or ROOM_E_DENIED with a sentence: a guest (account 0) may not
 * take a seat of a rated game. */
room_rc room__may_play_rated(const room *r, int64_t account_id, char *err, size_t errlen);
/* A rated game starts: keep its seats' accounts (and store them), and
 * decide whether it counts (docs/rules.md, "Ratings"): not between two
 * seats taken from one client address, nor past the pair's rated games of
 * the last 24 hours. *why says why not, for the GameStarted event. */
void room__rated_start(room *r, room_unrated *why /* OUT */);
/* Each seat's place (1 first; equal places tie) at the end of the game. */
void room__placements(const room *r, int n_winners, const int *winners, int *place);
/* A rated game ending by the rules (not abandoned): every seat's rating
 * before and after into out[seats]; returns the seat count, or 0 when the
 * game is not rated (casual, abandoned, not counting since its start, too
 * short, or the ratings could not be read). *why says why a game created
 * rated and ended by the rules changes no rating ("" otherwise). */
int room__rate(room *r, bool abandoned, int n_winners, const int *winners,
               room_rating_change *out, room_unrated *why /* OUT */);
/* Store what room__rate computed (inside the game's ending): the ratings,
 * or why the game did not count. */
int room__store_ratings(room *r, const room_rating_change *changes, int n,
                        const room_unrated *why);

#endif /* SUNGKA_ROOM_INTERNAL_H */
