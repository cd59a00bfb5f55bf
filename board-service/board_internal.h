/*
 * board_internal.h — the board service's own structures, shared by its files:
 * service.c (the loop, timers), room.c (one game: seats, log, subscribers),
 * clients.c (limits per address), tokens.c, recovery.c and bots.c.
 *
 * Nothing here names gRPC or protobuf: the room reaches the outside through
 * room_io and packs its events with wire.c's plain-value packers, so it can
 * be tested without a server (tests/board). board_rpc.h adds what the RPC
 * side needs.
 *
 * Everything here belongs to the event-loop thread; no locks.
 */
#ifndef SUNGKA_BOARD_INTERNAL_H
#define SUNGKA_BOARD_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stdint.h>

#include "board.h"
#include "games.h"
#include "store.h"

#define BOARD_NAME_MAX     32        /* characters of a player name */
#define BOARD_NAME_BYTES   (BOARD_NAME_MAX * 4 + 1)
#define BOARD_TOKEN_HEX    32        /* 128-bit token as hex */
#define BOARD_ID_LEN       16
#define BOARD_CHAT_WINDOW_MS 5000    /* the chat rate's window (config: chat_rate) */
#define BOARD_TITLE_MAX    80
#define BOARD_LISTED_PEOPLE 64       /* named in a snapshot or a ping: the players,
                                      * then the first observers (the rest are counted) */

typedef enum room_status {
    ROOM_WAITING = 1,
    ROOM_RUNNING = 2,
    ROOM_FINISHED = 3,
    ROOM_ABANDONED = 4,
} room_status;

typedef struct room room;

/* A game's time control (docs/rules.md, "Clocks"): per_move_ms for every
 * move, or base_ms for the game plus increment_ms after each move; all zero
 * for none. */
typedef struct time_control {
    int per_move_ms, base_ms, increment_ms;
} time_control;
#define TC_PER_MOVE_MAX_S 3600
#define TC_BASE_MAX_S     36000
#define TC_INCREMENT_MAX_S 600

/* The clocks as an event or a snapshot tells them (wire.c packs them). */
typedef struct room_clocks {
    int n;                       /* seats; 0: a game without clocks */
    int64_t remaining_ms[GAME_MAX_SEATS];
    int running;                 /* the seat whose clock runs, -1: none */
} room_clocks;

#define BOARD_HOST_BYTES 64          /* "ipv6:[...]" host part of a peer */

/* clients.c: one client address, what it holds and its rate windows. */
typedef struct board_client {
    struct board_client *next;   /* hash chain */
    char host[BOARD_HOST_BYTES];
    int streams;                 /* open event streams */
    int observers;               /* observer seats held, in every game */
    int64_t join_window_ms;      /* joins in the current one-second window */
    int joins;
    int64_t chat_window_ms;      /* chat lines in the current chat window */
    int chats;
} board_client;

typedef struct client_table {
    board_client **buckets;      /* cap chains (a power of two) */
    size_t cap, n;
} client_table;

/* A player or observer of one game, found by its token. */
typedef struct participant {
    room *room;
    unsigned id;               /* unique in its room: private events name it */
    char name[BOARD_NAME_BYTES];
    char token[BOARD_TOKEN_HEX + 1];
    int seat;                  /* -1 for an observer; changed by room__set_seat only */
    int at;                    /* its index in room->people */
    bool departed;             /* went away; the seat is kept until depart_deadline_ms */
    int64_t depart_deadline_ms;
    bool ready;
    void *stream;              /* the open event stream (room_io's), or NULL */
    board_client *stream_from; /* the address it counts against while open */
    board_client *watch_from;  /* an observer: the address whose seat it holds */
    int64_t last_seen_ms;      /* join, subscribe or last ping answer */
    uint64_t ping_nonce;       /* outstanding ping, 0 when none */
    int64_t ping_sent_ms;
    int rtt_ms;                /* -1 until the first answer */
    int64_t chat_window_start_ms;
    int chat_in_window;
    int64_t move_window_start_ms;
    int moves_in_window;
    int bot_level;             /* one of the service's own bots (bots.c), at this
                                * level 1..10; 0: a person */
    int64_t account_id;        /* the account it plays for (signed in); 0: a guest */
    bool has_rating;           /* rating: the account's in the room's kind, read at
                                * join and kept up to date by room_rating.c */
    store_rating rating;
} participant;

/* A rated game's result for one seat (room_rating.c), as GameOver carries it. */
typedef struct room_rating_change {
    store_rating before, after;
} room_rating_change;

/* An only_for[0] meaning "every observer": a spectator's chat during a game. */
#define BOARD_FOR_OBSERVERS UINT32_MAX

/* One logged event, packed once and replayed to late subscribers. */
typedef struct logged_event {
    uint64_t seq;
    unsigned only_for[2];      /* private: the two participant ids who may see it; 0: all;
                                * BOARD_FOR_OBSERVERS: the observers */
    size_t len;
    uint8_t *data;
} logged_event;

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
    bool lost;                 /* a cluster: another node adopted it (cluster.c) */
    int64_t rated_account[GAME_MAX_SEATS];   /* a rated game's seats' accounts as it
                                              * started; 0 before */
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
    participant *seat_holder[GAME_MAX_SEATS];   /* NULL while open or after leaving */
    char seat_name[GAME_MAX_SEATS][BOARD_NAME_BYTES]; /* kept after the game ends */
    logged_event *log;
    size_t log_len, log_cap;
};

/* limits.c: counted rate windows keyed by "kind:what" (hashed), in a fixed
 * table: sign-in failures per name and per address, accounts per address. */
typedef struct limit_table {
    struct limit_slot *slots;
    size_t cap;
    unsigned char key[16];     /* SipHash key, random per run */
} limit_table;
int board_limits_init(limit_table *t, size_t cap);
void board_limits_free(limit_table *t);
/* Events of kind:what in its window of window_ms that is open at now (0
 * when none is) / count one more, opening a window when none is open. */
int board_limit_count(limit_table *t, const char *kind, const char *what, int window_ms,
                      int64_t now);
void board_limit_add(limit_table *t, const char *kind, const char *what, int window_ms,
                     int64_t now);

/* person_index.c: participants by seat token (every game of the service) or
 * by (room, name). An index holds pointers it does not own; a participant is
 * in both from room_add_person until room__drop_person. Loop thread only. */
typedef enum person_key { PERSON_BY_TOKEN, PERSON_BY_NAME } person_key;
typedef struct person_index {
    participant **slots;       /* cap entries, NULL when free */
    size_t cap, n;
    uint64_t key;              /* random: slots reveal nothing about the keys */
    person_key by;
} person_index;
int person_index_init(person_index *ix, person_key by);
void person_index_free(person_index *ix);
int person_index_add(person_index *ix, participant *p);
void person_index_remove(person_index *ix, participant *p);
participant *person_index_find_token(const person_index *ix, const char *token);
participant *person_index_find_name(const person_index *ix, const room *r, const char *name);
bool board_tokens_equal(const char *a, const char *b);

/* What a room's functions return: 0, or what kind of refusal it was (the
 * service maps each to a gRPC status; the sentence is in err). */
typedef enum room_rc {
    ROOM_OK = 0,
    ROOM_E_INVALID = -1,       /* a bad argument: out of range, malformed */
    ROOM_E_NOT_FOUND = -2,     /* nobody, or nothing, by that name */
    ROOM_E_TAKEN = -3,         /* the name is taken */
    ROOM_E_DENIED = -4,        /* not allowed for this participant (observers move) */
    ROOM_E_LIMIT = -5,         /* a limit: full, too many, too fast */
    ROOM_E_STATE = -6,         /* not now: not started, over, not your turn */
    ROOM_E_RANGE = -7,         /* past the end of the log */
    ROOM_E_STORE = -8,         /* could not be stored, so it did not happen */
    ROOM_E_GONE = -9,          /* a stream or call that is over (a status, not a refusal) */
    ROOM_E_REPLACED = -10,     /* a stream replaced by a newer subscription */
    ROOM_E_CLOSING = -11,      /* the service or the game is closing */
    ROOM_E_TURN = -12,         /* not this seat's turn */
    ROOM_E_FULL = -13,         /* no seat, or no room, left in the game */
} room_rc;

/*
 * How rooms reach the outside. The service wires these to rpc calls; the
 * room tests record what would have been sent. `stream` and `reply` are the
 * service's handles (its Subscribe and Move calls), opaque to the room.
 */
typedef struct room_io {
    /* Queue one packed event on a stream: 0; -1 when it is gone; -2 when its
     * outbox is full (the room then cuts it off with finish). */
    int (*send)(void *stream, const void *data, size_t len);
    /* End a stream with a status (ROOM_OK: the normal end). The room has
     * forgotten it by then: room_stream_ended is not called for it. */
    void (*finish)(void *stream, room_rc rc, const char *why);
    /* Answer a Move call once it is stored: the seq of its MoveMade, or a
     * refusal (ROOM_E_STORE) with a sentence. */
    void (*move_done)(void *reply, room_rc rc, uint64_t seq, const char *why);
} room_io;

struct board_service {
    board_config cfg;
    room_io io;                /* service.c: over rpc calls (tests: recorders) */
    struct rpc_server *server; /* service.c only */
    store *store;              /* statistics, history, recovery; NULL: none */
    person_index tokens;       /* every participant of every game, by token */
    person_index names;        /* ... and by game and name */
    client_table clients;      /* per address: streams, observer seats, rates */
    char endpoint[128];
    volatile sig_atomic_t stop;
    room **rooms;              /* registry.c: the games, in no order */
    int n_rooms, rooms_cap;
    int *room_slots;           /* registry.c: a hash of their ids (index + 1; 0: free) */
    size_t room_slots_cap;     /* a power of two, at least twice n_rooms */
    unsigned next_id;
    uint64_t next_nonce;
    int64_t next_ping_ms;
    int64_t next_lease_ms;     /* cluster.c: renew the lease and adopt then */
    int n_lost;                /* rooms another node adopted, to let go of */
    int n_diverged;            /* rooms to reload from their logs (recovery.c) */
    bool lease_failing;        /* cluster.c: the last renewal failed */
    unsigned next_relay;       /* cluster.c: the --relays entry to send to next */
    int64_t next_clock_ms;     /* the earliest a running clock may fall (INT64_MAX: none) */
    int port;                  /* bound */
    struct pending_move *pending;  /* room.c: moves of this loop turn, not yet committed */
    int n_pending, pending_cap;
    bool batch_failed;         /* one of them could not be written: undo them all */
    int released;              /* participants and games freed since the last trim */
    pid_t *bot_pids;           /* bots.c: children still running */
    int n_bots, bots_cap;
    struct accounts_pool *pool;    /* accounts_rpc.c: password hashing; NULL: no store */
    limit_table limits;        /* accounts_rpc.c: sign-in failures, accounts made */
    int64_t next_session_sweep_ms; /* accounts_rpc.c: forget expired sessions then */
    bool any_accounts;         /* accounts_rpc.c: one was ever registered here */
};

/* --- service.c --- */
int64_t board_now_ms(void);              /* monotonic */
int64_t board_wall_ms(void);             /* since the epoch, for event stamps */
void board_log(board_service *svc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A client's string, cut to fit buf (at a character boundary) and escaped,
 * for echoing in an error sentence; returns buf. */
const char *board_echo(const char *in, char *buf, size_t len);

/* --- clients.c: limits per client address --- */
/* The entry of a client's address ("ipv4:10.0.0.7"), made when new; NULL
 * when out of memory. */
board_client *board_client_find(board_service *svc, const char *host);
/* 0, or -1 with a sentence (RESOURCE_EXHAUSTED): may c join now (counted
 * against its join rate), as an observer when observe? may it chat (counted)?
 * may it open one more event stream? */
int board_client_may_join(board_service *svc, board_client *c, bool observe, char *err,
                          size_t errlen);
int board_client_may_chat(board_service *svc, board_client *c, char *err, size_t errlen);
int board_client_may_stream(board_service *svc, const board_client *c, char *err,
                            size_t errlen);
/* Free the entries that hold nothing and have no open rate window. */
void board_clients_sweep(board_service *svc, int64_t now);
void board_clients_free(board_service *svc);

/* --- room.c: one game. Functions that can refuse return ROOM_OK or a
 * room_rc with a sentence in err (errlen bytes). --- */
room *room_create(board_service *svc, const char *id, const game_kind *kind,
                  const game_options *opts, const char *title, bool autostart);
void room_free(room *r);
int room_seats_taken(const room *r);
participant *room_find_name(const room *r, const char *name);
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
 * the participant plays for the account, and its results count for it. */
room_rc room_join_as(room *r, const char *name, int64_t account_id, bool observe,
                     board_client *from, participant **out, char *err, size_t errlen);
/* Attach event stream `stream` (room_io's handle) from client `from`:
 * replay from after_seq (0: a snapshot first) then live. */
room_rc room_subscribe(room *r, participant *p, void *stream, board_client *from,
                       uint64_t after_seq, char *err, size_t errlen);
/* The service saw p's stream end (client gone, or shutdown). */
void room_stream_ended(participant *p, void *stream);
/* Play a move. ROOM_OK: it is played and waits for room_commit_moves,
 * which sends its events and answers `reply` through io.move_done (with its
 * event's seq, or ROOM_E_STORE if it could not be stored and was undone).
 * Otherwise refused, and the caller answers `reply` itself. */
room_rc room_move(room *r, participant *p, int move, void *reply, char *err, size_t errlen);
/* The client of a pending move's `reply` went away: nobody to answer. */
void room_move_abandoned(board_service *svc, void *reply);
/* Commit the moves played since the last call in one transaction, then send
 * their events and answer their calls. It is the rpc server's turn hook
 * (service.c, end_turn): it runs at the end of every loop turn and before
 * every handler but Move's and Ping's, and every done callback, so nothing
 * sees a move that is not stored. */
void room_commit_moves(board_service *svc);
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
void room_depart(room *r, participant *p, const char *why);
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
/* A time control for r before it starts; 0, or -1 with a sentence. */
int room_set_time_control(room *r, const time_control *tc, char *err, size_t errlen);
/* room_rating.c — make a new game rated (before anyone joins it). */
room_rc room_set_rated(room *r, char *err, size_t errlen);
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
/* True when nobody is connected to a game that is over: it can go. */
bool room_is_idle(const room *r);
/* Close every stream, saying why (shutdown; a game that moved). */
void room_close_streams(room *r, const char *why);
/* A recovered room tells its log that the service came back. */
void room_announce_restart(room *r);

/* --- listen.c --- */
/* After rpc_server_create refused addr: one sentence saying why ("cannot
 * listen on ADDR: the address is in use (...)"), found with a bind() of our
 * own. */
void board_listen_problem(const char *addr, bool tls, char *err, size_t errlen);

/* --- recovery.c: rebuild the unfinished games from the store at start --- */
int board_recover(board_service *svc, char *err, size_t errlen);
/* Reload each diverged room (struct room) from its stored log, in its
 * place; one whose store cannot be read yet is tried again later. From
 * the turn hook and the timers: no handler holds a room then. */
void board_reload_diverged(board_service *svc, int64_t now);
/* Game id rebuilt from the store as recovery would, outside the registry
 * and the indexes: the caller frees it (room_free). NULL when it cannot be
 * read or its log does not replay. */
room *board_rebuild(board_service *svc, const char *id);

/* --- room_check.c: invariants, and the replay check --- */
/* Assert r's invariants (debug and sanitizer builds; nothing otherwise). */
void room_check(const room *r);
/* Rebuild every game whose log grew since the last check from the store
 * and compare it with the live one, field by field: how many differences
 * (each logged). */
int board_check_replay(board_service *svc);
/* With cfg.check_replay (a test switch), the same after every turn, and a
 * difference aborts the service, so the test that caused it fails. */
void board_check_replay_or_abort(board_service *svc);
/* A cluster node takes over ids[n], games a node that stopped had (own:
 * this node's, before its restart): rebuilt from the store as at a
 * restart, their bots started. -1 if one could not be (logged). */
int board_adopt(board_service *svc, const char (*ids)[STORE_ID_BYTES], int n, bool own);

/* --- cluster.c: this service as a node of a cluster on PostgreSQL --- */
/* Join (the endpoint is known), adopt what dead nodes left, recover. */
int board_cluster_start(board_service *svc, char *err, size_t errlen);
/* From the loop: renew the lease, adopt orphaned games, let go of lost ones. */
void board_cluster_tick(board_service *svc, int64_t now);
/* A clean stop: the others adopt this node's games at once. */
void board_cluster_leave(board_service *svc);
/* False while a cluster's node cannot renew its lease (true outside one). */
bool board_cluster_healthy(const board_service *svc);

/* --- registry.c: the games by id. The registry owns a room from
 * board_rooms_add to board_rooms_remove (which frees it); removing index i
 * moves the last room there, so walk backwards to remove while walking. */
/* 0, or -1 out of memory (r is then not taken). */
int board_rooms_add(board_service *svc, room *r);
room *board_find_room(board_service *svc, const char *id);
/* r's index in svc->rooms, or -1 when it is not registered. */
int board_rooms_index(const board_service *svc, const room *r);
void board_rooms_remove(board_service *svc, int index);
/* The same without freeing: the caller owns the room from now on. */
room *board_rooms_take(board_service *svc, int index);
/* Remove (free) every room, and the registry's own memory. */
void board_rooms_free(board_service *svc);
/* --- service.c --- */
/* Close r's streams saying why, and forget it here (not in the store). */
void board_let_go(board_service *svc, room *r, const char *why);

/* --- bots.c: service-run computer players (sungka-player --view bot) --- */
/* Seat n bots of `level` in r's last seats, remember them in the store, and
 * start their children. */
int board_bots_spawn(board_service *svc, room *r, int n, int level, char *err, size_t errlen);
/* Start again the children of the bots of the recovered games (the rooms
 * from index first on); once serving. */
void board_bots_recover(board_service *svc, int first);
/* r was created with bot_takes_over and p's grace ran out: seat a bot in
 * p's place and start it. 0, or -1 (logged) when no bot can play there. */
int board_bots_take_over(board_service *svc, room *r, participant *p);
/* p, seated in r, is a bot at level (a rematch's): remember it and start
 * its player. 0, or -1 with a sentence. */
int board_bots_adopt(board_service *svc, room *r, participant *p, int level, char *err,
                     size_t errlen);
void board_bots_reap(board_service *svc);
void board_bots_stop(board_service *svc);

/* --- wire.c: the room's events as plain values, packed for the log and the
 * streams (the room never sees protobuf) --- */
typedef enum room_event_kind {
    ROOM_EV_JOINED,            /* who */
    ROOM_EV_LEFT,              /* who */
    ROOM_EV_DEPARTED,          /* who, text (why), grace_s (0: gone) */
    ROOM_EV_RETURNED,          /* who */
    ROOM_EV_READY,             /* who (who->ready is the new state) */
    ROOM_EV_SEAT,              /* who (who->seat is the new one, -1: stood up), from_seat */
    ROOM_EV_STARTED,           /* state */
    ROOM_EV_MOVED,             /* seat, move, result, state (after) */
    ROOM_EV_CHAT,              /* who (the sender), to (private: the addressee), text */
    ROOM_EV_OVER,              /* state, text (reason), abandoned, winners */
    ROOM_EV_NOTICE,            /* text */
    ROOM_EV_OUT,               /* who left the game (resigned...): text, state
                                * (after), result (the seats passed, or NULL) */
    ROOM_EV_DRAW_OFFERED,      /* who */
    ROOM_EV_DRAW_DECLINED,     /* who */
    ROOM_EV_TAKEN_OVER,        /* who (the bot, seated), text (the player who left), level */
    ROOM_EV_REMATCH_OFFERED,   /* who, seats (those who accepted so far) */
    ROOM_EV_REMATCH_DECLINED,  /* who */
    ROOM_EV_REMATCH_STARTED,   /* text (the new game's id) */
    ROOM_EV_COUNT
} room_event_kind;

typedef struct room_event {
    room_event_kind kind;
    uint64_t seq;
    int64_t time_ms;
    const participant *who;
    const participant *to;
    const char *text;
    int grace_s;
    int from_seat;
    const game_state *state;
    const room_clocks *clocks; /* STARTED, MOVED, OUT in a game with clocks; else NULL */
    int seat, move;            /* seat: MOVED's mover; OUT's, DRAW_*'s, TAKEN_OVER's
                                * and REMATCH_*'s who, as the apply functions read it */
    const game_result *result;
    bool abandoned;
    bool spectators;           /* CHAT: for the observers only */
    int n_winners;
    const int *winners;
    const room_rating_change *ratings;   /* OVER of a rated game: one per seat; else NULL */
    int level;                 /* TAKEN_OVER: the bot's */
    unsigned seats;            /* REMATCH_OFFERED: bit s, seat s accepted */
} room_event;

/* room_events.c — what each kind means to a game (one apply function per
 * kind, in one table). Apply a stored event to r: 0, or -1 when it does not
 * fit r (a damaged log). Live play, recovery and reloads all apply events
 * through this. */
int room_apply_event(room *r, const room_event *ev);
const char *room_event_name(room_event_kind kind);

/* Each returns the packed bytes (malloc'ed; the caller frees) and their
 * length in *len, or NULL when out of memory. */
uint8_t *wire_pack_event(const room_event *ev, size_t *len);
/* The version of the bytes wire_pack_event makes, stored with each event:
 *   1  up to 0.9: seats where none is possible were int32 fields holding -1
 *   2  those are SeatNumber messages, absent for none (recovery.c upgrades 1)
 */
#define WIRE_EVENT_FORMAT 2
/* The whole state as p is to see it first on a fresh subscription. */
uint8_t *wire_pack_snapshot(const room *r, const participant *p, size_t *len);
/* One ping for everyone in r: nonce, the listed people, how many watch. */
uint8_t *wire_pack_ping(const room *r, uint64_t nonce, size_t *len);

#endif /* SUNGKA_BOARD_INTERNAL_H */
