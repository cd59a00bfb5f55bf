/*
 * board_internal.h — the board service's own types and its modules' calls,
 * shared by its files: the service (service.c: the loop; service_log.c:
 * clocks and log), the games by id (registry.c), participants by token and
 * name (person_index.c), limits per address (clients.c, limits.c), recovery
 * (recovery.c), bots (bots.c), the cluster (cluster.c) and the packing of
 * events (wire.c). A game's own calls are in room.h, included at the end;
 * its struct is private to the room's files (room_internal.h).
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
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>
#include <syslog.h>            /* LOG_ERR .. LOG_DEBUG: board_log_at's levels */
#include <stdint.h>

#include "board.h"
#include "metrics.h"
#include "relay_key.h"
#include "games.h"
#include "store.h"

#define BOARD_NAME_MAX     32        /* characters of a player name */
#define BOARD_NAME_BYTES   (BOARD_NAME_MAX * 4 + 1)
#define BOARD_TOKEN_HEX    32        /* 128-bit token as hex */
#define BOARD_ID_LEN       16
/* Games removed over that a node keeps in mind, for a while
 * (board_cluster_note_removed), in case the database goes back in time. */
#define BOARD_REMOVED_KEPT 256
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

#define BOARD_HOST_BYTES 64          /* "ipv6:2001:db8::/64": an address key */

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
    int pairings;                /* QuickPair calls waiting (pairing.c) */
    bool relay;                  /* an authenticated relay's own entry ("relay ipv4:..."):
                                  * its seats and streams are its audience's, bounded by
                                  * the relay (--max-games there), not per address */
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
    bool away;                 /* an observer whose stream ended: its token is kept
                                * until depart_deadline_ms, so that it may resume */
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
    int64_t gave_time_ms;      /* room_give_time: when it last gave time; 0 never */
    int64_t presence_window_start_ms;  /* room_presence.c: departures and returns */
    int presence_in_window;            /* logged in the current window */
    int bot_level;             /* one of the service's own bots (bots.c), at this
                                * level 1..10; 0: a person */
    int64_t account_id;        /* the account it plays for (signed in); 0: a guest */
    uint64_t looks[2];         /* keyed hashes of its name's skeleton and look
                                * (accounts.h), set by room_add_person: who in
                                * its game it could pass for (person_index.c) */
    bool has_rating;           /* rating: the account's in the room's kind, read at
                                * join and kept up to date by room_rating.c */
    store_rating rating;
    char host[BOARD_HOST_BYTES];   /* the client address it joined from ("": unknown, a
                                    * bot; stored for an account's participant only) */
    int64_t *blocked;          /* the accounts its account blocks, sorted (blocks.c: read
                                * from the store at each subscription and at a change made
                                * on this node); NULL when none. Freed by board_person_free */
    int n_blocked;
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
    int64_t from_account;      /* a chat line: its sender's account, which the
                                * recipients' blocks filter at delivery; 0: none */
    size_t len;
    uint8_t *data;
} logged_event;


/* limits.c: counted rate windows keyed by "kind:what" (hashed), in a fixed
 * table of BOARD_LIMIT_SLOTS: sign-in failures and password checks per name
 * and per address, accounts per address, a cluster's lookups per address.
 * The service's (svc->limits): made with it, freed after its server, since
 * calls are answered until then. */
#define BOARD_LIMIT_SLOTS 4096
#define BOARD_RECONF_STRINGS 3       /* relays, tls_cert, tls_key (reconfigure.c) */
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
/* One fewer in kind:what's window still open at now (what turned out not
 * to count: a sign-in reserved as a failure that succeeded). */
void board_limit_take_back(limit_table *t, const char *kind, const char *what, int window_ms,
                           int64_t now);

/* person_index.c: participants by seat token (every game of the service), by
 * (room, name), or by (room, one of its name's looks[]). An index holds
 * pointers it does not own; a participant is in each from room_add_person
 * until room__drop_person. Loop thread only. */
typedef enum person_key {
    PERSON_BY_TOKEN, PERSON_BY_NAME,
    PERSON_BY_SKELETON, PERSON_BY_LOOK,    /* looks[0], looks[1] */
} person_key;
typedef struct person_index {
    participant **slots;       /* cap entries, NULL when free */
    size_t cap, n;
    uint64_t key;              /* random: slots reveal nothing about the keys */
    person_key by;
} person_index;
int person_index_init(person_index *ix, person_key by);
void person_index_free(person_index *ix);
/* The service's four indexes of people (tokens, names, looks), made empty
 * (-1 out of memory, none kept) and freed, in one place for the service,
 * the tests' fixture and the fuzzers. */
int board_people_init(board_service *svc);
void board_people_free(board_service *svc);
int person_index_add(person_index *ix, participant *p);
void person_index_remove(person_index *ix, participant *p);
participant *person_index_find_token(const person_index *ix, const char *token);
participant *person_index_find_name(const person_index *ix, const room *r, const char *name);
/* A participant of r whose looks[] entry (the index's) is `look`, or NULL. */
participant *person_index_find_look(const person_index *ix, const room *r, uint64_t look);
/* The looks of a name (accounts.h: skeleton, look) as keyed hashes into
 * out: two names are confusable when an entry of one is an entry of the
 * other. A name accounts.h cannot prepare is its own skeleton and look. */
void person_name_looks(const char *name, uint64_t key, uint64_t out[2]);
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
    ROOM_E_REVOKED = -14,      /* a stream whose seat token was replaced (its account
                                * signed out everywhere, or changed its password) */
    /* Kinds of ROOM_E_STATE and ROOM_E_DENIED precise enough for a client
     * to say in the user's language (ErrorReason 40..44) */
    ROOM_E_NOT_STARTED = -15,  /* the game has not started */
    ROOM_E_ENDED = -16,        /* the game is over */
    ROOM_E_OBSERVER = -17,     /* observers cannot do that (a player's command) */
    ROOM_E_NO_OFFER = -18,     /* nobody has offered this seat a draw or a rematch */
    ROOM_E_PENDING = -19,      /* this seat's offer (or acceptance) waits for the others */
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
    /* A move sent on a Play stream (room_move_on_stream) could not be
     * stored: refuse command `id` on that stream (NULL: nobody to tell). */
    void (*command_refused)(void *stream, uint64_t id, room_rc rc, const char *why);
} room_io;

/* board_metrics.c: what --metrics shows (docs/operating.md, "Monitoring").
 * Without --metrics every pointer is NULL and counting into it does
 * nothing (metrics.h). Loop thread only, like the rest: the listener's
 * thread reads what board_metrics_turn publishes, never these. */
#define BOARD_METRIC_KINDS 16       /* kinds with a pool gauge, at most */
typedef struct board_metrics {
    metrics *set;              /* NULL: no --metrics */
    metric *games[5];          /* by room_status (1..4): gauges */
    metric *participants, *streams, *password_jobs, *store_errors, *store_round_trips;
    metric *store_waited;
    metric *moves, *move_commit, *events_sent, *limits_hit, *signins, *signin_failures;
    metric *store_commit, *lease_renewals, *lease_failures, *adoptions, *loop_turn;
    metric *pool_players[BOARD_METRIC_KINDS];   /* by game_kind_at's index: gauges */
    metric *pool_wait;         /* seconds from a QuickPair to its seat */
    metric *tournaments[4];    /* by status (1 waiting, 2 running, 3 finished): gauges */
    metric *tournament_players;    /* players in tournaments not yet finished: a gauge */
    metric *tournament_games;  /* games tournaments made: a counter */
    double next_gauges;        /* metrics_now() when the gauges are counted again */
} board_metrics;

struct board_service {
    board_config cfg;
    board_metrics m;           /* board_metrics.c */
    room_io io;                /* service.c: over rpc calls (tests: recorders) */
    struct rpc_server *server; /* service.c only */
    store *store;              /* statistics, history, recovery; NULL: none */
    person_index tokens;       /* every participant of every game, by token */
    person_index names;        /* ... and by game and name */
    person_index looks[2];     /* ... and by game and each of looks[] */
    client_table clients;      /* per address: streams, observer seats, rates */
    char relay_key[RELAY_KEY_BYTES];   /* --relay-key's secret; "" when none */
    char endpoint[128];
    volatile sig_atomic_t stop;
    volatile sig_atomic_t reload;  /* board_request_reload: on_reload soon */
    atomic_bool quiet;         /* cfg.quiet, as board_log reads it from any thread
                                * (reconfigure.c changes it) */
    char *reconf_strings[BOARD_RECONF_STRINGS];   /* reconfigure.c: its copies of
                                * the strings a reload changed (relays, the TLS
                                * files), which cfg points to; freed by board_destroy */
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
    char db_history[64];       /* cluster.c: the database's history as last checked
                                * (store_db_history; "" before it is known) */
    int64_t adopt_after_ms;    /* cluster.c: no adopting before (after a history change) */
    struct removed_game {      /* cluster.c: games removed lately (over), to check them too */
        char id[BOARD_ID_LEN];
        uint64_t sent;         /* the last event sent */
        int64_t at_ms;         /* board_now_ms() when removed; 0: empty */
    } removed[BOARD_REMOVED_KEPT];
    unsigned next_removed;
    int64_t db_clock_offset_ms;    /* cluster.c: the database's clock less this machine's,
                                    * as of the last renewal (0 outside a cluster) */
    unsigned next_relay;       /* cluster.c: the --relays entry to send to next */
    int64_t next_clock_ms;     /* the earliest a running clock may fall (INT64_MAX: none) */
    int port;                  /* bound */
    struct move_batch *moves;  /* room_moves.c: this loop turn's moves, not yet committed */
    struct move_batch *flight; /* ... and the last turn's, their commit on its way */
    int64_t chores_due_ms;     /* service.c: the loop's timers and drains, while it is */
    int released;              /* participants and games freed since the last trim */
    size_t lost_requests;      /* requests gRPC refused (or lost) since then */
    int64_t last_trim_ms;
    pid_t *bot_pids;           /* bots.c: children still running */
    int n_bots, bots_cap;
    struct accounts_pool *pool;    /* accounts_rpc.c: password hashing; NULL: no store */
    struct board_analysis *analysis;   /* analysis.c: the reviews' thread and queue; NULL:
                                        * --analysis off or no store */
    limit_table limits;        /* accounts_rpc.c: sign-in failures, password checks,
                                * accounts made */
    struct board_health *health;   /* health.c: the loop's beat, the watchdog */
    struct board_reflection *reflection;   /* reflection.c: read-only once made */
    int64_t next_session_sweep_ms; /* accounts_rpc.c: forget expired sessions then */
    bool any_accounts;         /* accounts_rpc.c: one was ever registered here */
    struct board_pairing *pairing; /* pairing.c: the quick-pairing pools; NULL until
                                * the first QuickPair */
    struct board_admin *admin; /* admin_rpc.c: the admin token's hash and the bans */
    struct board_tournaments *tournaments; /* tournament.c: every tournament and its
                                * watchers; NULL until the first call or recovery */
    bool log_journal;          /* service_log.c: lines in the journal's form; set
                                * by board_create, read-only after (any thread) */
};

/* --- board_metrics.c: --metrics --- */
/* Make the service's metrics and listen on cfg.metrics: 0 (also without
 * it), or -1 with a sentence. */
int board_metrics_start(board_service *svc, char *err, size_t errlen);
/* The end of a loop turn whose work began at `started` (metrics_now()):
 * its duration observed, the gauges counted (at most once a second: it
 * walks every game's people) and everything published. */
void board_metrics_turn(board_service *svc, double started);
void board_metrics_free(board_service *svc);

/* --- service_log.c: the service's clocks and log --- */
int64_t board_now_ms(void);              /* monotonic */
int64_t board_wall_ms(void);             /* since the epoch, for event stamps */
/* A line of the log at a syslog.h level (log_line.h): LOG_ERR what failed
 * and lost or refused work (a store that fails), LOG_WARNING what an
 * operator should look at (the loop stalled, a damaged game), LOG_NOTICE a
 * client refused by a limit or a failed sign-in, LOG_INFO the life of games
 * and players, LOG_DEBUG the chatter. board_log is LOG_INFO. Any thread.
 * A line about a client says "client HOST" (board_log_host). */
void board_log_at(board_service *svc, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void board_log(board_service *svc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Whether the log goes to the journal (log_line_to_journal), decided once
 * by board_create before any thread starts. */
void board_log_open(board_service *svc);
/* A client address key ("ipv4:10.0.0.7", "ipv6:2001:db8::/64") as the log
 * shows it ("10.0.0.7", "2001:db8::/64"; "(unknown)" for "", as a bot's); returns buf. */
#define BOARD_LOG_HOST_BYTES 64
const char *board_log_host(const char *host, char *buf, size_t len);
/* A line about the client at host (an address key, as board_peer_host
 * gives): "client HOST: " and the text. Every line on a client's path says
 * whose it is this way, first, where nothing the client sent comes before
 * it (a fail2ban filter reads the host there: packaging/fail2ban). */
void board_log_client(board_service *svc, int level, const char *host, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A line about participant p: board_log_client's with p's address, but a
 * bot's (the service's own child) as board_log_at's. */
void board_log_person(board_service *svc, int level, const struct participant *p,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "client HOST: limit reached: SENTENCE" (LOG_NOTICE), where a limit of
 * host's refused a call: sentence is the one the client is answered. At
 * most BOARD_LIMIT_LINES + 1 a minute for one host (counted in svc->limits,
 * "limit-lines"): the last says that more are not logged. Loop thread. */
#define BOARD_LIMIT_LINES 10
void board_log_limit(board_service *svc, const char *host, const char *sentence);
/* "client HOST: sign-in failed for "NAME": WHY" (LOG_NOTICE), the name
 * escaped (board_echo). */
void board_log_signin_failed(board_service *svc, const char *host, const char *name,
                             const char *why);
/* A client's string, cut to fit buf (at a character boundary) and escaped,
 * for echoing in an error sentence; returns buf. */
const char *board_echo(const char *in, char *buf, size_t len);

/* --- the engine's review of ended games (analysis.c), loop thread only --- */
typedef struct board_analysis board_analysis;
/* Start the reviews' thread and queue the ended games a kill -9 left without
 * a review; nothing with --analysis off or no store. 0, or -1 and a sentence. */
int board_analysis_start(board_service *svc, char *err, size_t errlen);
/* A game ended: queue its review (moves copied). A full queue leaves it to
 * the next start, said in the log. */
void board_analysis_game_ended(board_service *svc, const char *game_id, const game_kind *kind,
                               const game_options *opts, const store_move *moves, int n);
/* Store the reviews the thread finished (after each poll). */
void board_analysis_drain(board_service *svc);
/* Whether game_id's review is queued, being computed or waiting to be stored. */
bool board_analysis_waiting(board_service *svc, const char *game_id);
/* Stop the thread (a review in progress gives up) and drop the queue. */
void board_analysis_stop(board_service *svc);

/* --- clients.c: limits per client address --- */
/* The entry of a client's address ("ipv4:10.0.0.7"), made when new; NULL
 * when out of memory. */
board_client *board_client_find(board_service *svc, const char *host);
/* 0, or -1 with a sentence (RESOURCE_EXHAUSTED): may `asker` join now
 * (counted against its join rate), taking an observer's seat held by
 * `holder` when observe (the same entry, but for a relay: board_client_of
 * and board_client_asking)? may c chat (counted)? may it open `more` event
 * streams (a SubscribeMany's legs are streams too)? A relay's own entry is
 * held to no seat or stream limit. */
int board_client_may_join(board_service *svc, board_client *holder, board_client *asker,
                          bool observe, char *err, size_t errlen);
int board_client_may_chat(board_service *svc, board_client *c, char *err, size_t errlen);
int board_client_may_stream(board_service *svc, const board_client *c, int more, char *err,
                            size_t errlen);
/* Free the entries that hold nothing and have no open rate window. */
void board_clients_sweep(board_service *svc, int64_t now);
void board_clients_free(board_service *svc);

/* --- pairing.c: quick pairing's pools (docs/rules.md, "Quick pairing") --- */
typedef struct board_pairing board_pairing;
/* The rating range a player who waited waited_ms accepts: ±this, or -1 for
 * any rating. */
int board_pair_range(int64_t waited_ms);
/* From the loop's timers: ranges widen, pools are tried again, waiting
 * players told what changed. */
void board_pairing_tick(board_service *svc, int64_t now);
/* Players waiting, by game_kind_at's index, into per_kind[n_kinds]. */
void board_pairing_count(board_service *svc, int *per_kind, int n_kinds);
/* The pools with players waiting now (kind NULL: every kind), for the
 * lobby's listing: *out (free() it, NULL when none) gets one per pool, in
 * the order their first player came. Loop thread. 0, or -1 out of memory. */
typedef struct board_pool_info {
    const game_kind *kind;
    game_options opts;
    int per_move_s, base_s, increment_s;    /* all 0: no clocks */
    bool rated;
    int players;
    int64_t longest_wait_ms;
} board_pool_info;
int board_pairing_pools(board_service *svc, const game_kind *kind, int64_t now,
                        board_pool_info **out, int *n);
/* The service stops: every waiting call ends UNAVAILABLE with why. */
void board_pairing_close(board_service *svc, const char *why);
/* After the server is destroyed (its done callbacks ran). */
void board_pairing_free(board_service *svc);

/* --- tournament.c: tournaments (docs/rules.md, "Tournaments") --- */
typedef struct board_tournaments board_tournaments;
/* After the games are recovered: the stored tournaments, as they stood. 0,
 * or -1 with err (the store cannot be read). */
int board_tournaments_recover(board_service *svc, char *err, size_t errlen);
/* From the loop's timers: results scored, arenas paired, rounds begun. */
void board_tournaments_tick(board_service *svc, int64_t now);
/* The service stops: every Watch stream ends UNAVAILABLE with why. */
void board_tournaments_close(board_service *svc, const char *why);
/* After the server is destroyed (its done callbacks ran). */
void board_tournaments_free(board_service *svc);
/* For --metrics: the tournaments by status (by_status[1..3]: waiting,
 * running, finished) and the players of those not yet finished. */
void board_tournaments_count(board_service *svc, int by_status[4], int *players);
/* Tournament id's title ("" when id is "" or no tournament here has it),
 * for a match's history. Valid until the next call into tournament.c. */
const char *board_tournament_title(board_service *svc, const char *id);

/* --- listen.c --- */
/* After rpc_server_create refused addr: one sentence saying why ("cannot
 * listen on ADDR: the address is in use (...)"), found with a bind() of our
 * own. */
void board_listen_problem(const char *addr, bool tls, char *err, size_t errlen);

/* --- recovery.c: rebuild the unfinished games from the store at start --- */
int board_recover(board_service *svc, char *err, size_t errlen);
/* A cluster node takes over ids[n], games a node that stopped had (own:
 * this node's, before its restart): rebuilt from the store as at a
 * restart, their bots started. -1 if one could not be (logged). */
int board_adopt(board_service *svc, const char (*ids)[STORE_ID_BYTES], int n, bool own);
/* Reload each diverged room (struct room) from its stored log, in its
 * place; one whose store cannot be read yet is tried again later. From
 * the turn hook and the timers: no handler holds a room then. */
void board_reload_diverged(board_service *svc, int64_t now);
/* Game id rebuilt from the store as recovery would, outside the registry
 * and the indexes: the caller frees it (room_free). NULL when it cannot be
 * read or its log does not replay. */
room *board_rebuild(board_service *svc, const char *id);

/* --- match_moves.c: a match's moves, from its stored event log --- */
/* game_id's moves in ply order, decoded from its stored events (MoveMade),
 * time_ms the event's. 0, or -1 with a sentence in err (the store failed,
 * out of memory, or an event the log holds cannot be read).
 *   moves  OUT array of *n moves, caller frees (NULL when none) */
int board_match_moves(store *db, const char *game_id, store_move **moves, int *n, char *err,
                      size_t errlen);
/* Write them to the store's `moves` table (store_moves_fill), once, as the
 * game ends, inside the transaction that records its result. */
int board_match_moves_fill(store *db, const char *game_id, char *err, size_t errlen);

/* --- room_check.c: the replay check --- */
/* Rebuild every game whose log grew since the last check from the store
 * and compare it with the live one, field by field: how many differences
 * (each logged). */
int board_check_replay(board_service *svc);
/* With cfg.check_replay (a test switch), the same after every turn, and a
 * difference aborts the service, so the test that caused it fails. */
void board_check_replay_or_abort(board_service *svc);

/* --- cluster.c: this service as a node of a cluster on PostgreSQL --- */
/* Join (the endpoint is known), adopt what dead nodes left, recover. */
int board_cluster_start(board_service *svc, char *err, size_t errlen);
/* From the loop: renew the lease, adopt orphaned games. */
void board_cluster_tick(board_service *svc, int64_t now);
/* A commit the database confirms, now: the lease renewed (0), or -1. With
 * a synchronous standby, whatever the primary held before it is on the
 * standby too once it returns (recovery.c reads a diverged game's log only
 * then). 0 at once outside a cluster. */
int board_cluster_confirm(board_service *svc, int64_t now);
/* Let go of the games lost (room_lose): adopted by another node, or under
 * a database that went back in time. From the loop, every turn. */
void board_let_go_lost(board_service *svc);
/* A clean stop: the others adopt this node's games at once. */
void board_cluster_leave(board_service *svc);
/* Has the database gone to another history (failed over, restored) since
 * this node last looked? Then the games here whose stored logs lost events
 * they sent are stopped (room_lose, ROOM_LOST_BEHIND), the cluster's game
 * ids moved past every id this node knows, and no game adopted for a grace.
 * 0: nothing changed, or done; -1: the database could not answer (logged),
 * to be checked again. Before a game id is taken, and at each renewal. */
int board_cluster_check_history(board_service *svc, int64_t now);
/* r, over, is removed: the last event it sent is kept in mind for
 * half a minute, so that a history change that lost it is noticed too. */
void board_cluster_note_removed(board_service *svc, const room *r);
/* Is game_id this node's, as the database says: 1 (always, outside a
 * cluster), 0 another node's, -1 the database cannot say. */
int board_game_here(board_service *svc, const char *game_id);
/* The wall clock the nodes of a cluster agree on (the database's, kept as
 * an offset from this machine's, renewed with the lease): for what two
 * nodes must agree on, such as when a session expires. */
int64_t board_shared_now_ms(const board_service *svc);
/* False while a cluster's node cannot renew its lease (true outside one). */
bool board_cluster_healthy(const board_service *svc);

/* --- health.c: grpc.health.v1.Health answered off the loop (on rpc's side
 * thread, from atomics the loop leaves), and a watchdog thread that logs when
 * the loop has not turned for cfg.stall_limit_ms and when it turns again.
 * init: before rpc_server_start (it adds the side method); watch: after it;
 * beat: the loop, every turn; free: after rpc_server_destroy. --- */
int board_health_init(board_service *svc);
/* --- reflection.c: gRPC server reflection, answered on rpc's side thread
 * from the descriptors built into the program. init: before
 * rpc_server_start; free: after rpc_server_destroy. --- */
int board_reflection_init(board_service *svc);
void board_reflection_free(board_service *svc);
int board_health_watch(board_service *svc);
void board_health_beat(board_service *svc, int64_t now);
void board_health_free(board_service *svc);

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
    ROOM_EV_TIME_GIVEN,        /* who gave the others ROOM_GIVE_TIME_MS; clocks */
    ROOM_EV_COUNT
} room_event_kind;

/* Why a game ended, a seat left it or a player departed, as the contract's
 * EndReason, OutReason and DepartReason number them (wire.c copies the
 * number; a client says it in the user's language). 0: not given. */
typedef enum room_end_why {
    ROOM_END_FINISHED = 1, ROOM_END_PLAYER_OUT, ROOM_END_DRAW_AGREED, ROOM_END_ABORTED,
    ROOM_END_NO_FIRST_MOVE, ROOM_END_EMPTY_SEAT_TIME, ROOM_END_OPERATOR, ROOM_END_NOBODY_LEFT,
} room_end_why;
typedef enum room_out_why {
    ROOM_OUT_RESIGNED = 1, ROOM_OUT_TIME_RAN_OUT, ROOM_OUT_QUIT, ROOM_OUT_CLAIMED,
} room_out_why;
typedef enum room_depart_why {
    ROOM_DEPART_CONNECTION_CLOSED = 1, ROOM_DEPART_NO_PINGS, ROOM_DEPART_NOT_BACK,
    ROOM_DEPART_TOKEN_REVOKED, ROOM_DEPART_ENDED_BY_OPERATOR,
} room_depart_why;

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
    const char *unrated;       /* STARTED, OVER of a game created rated that changes no
                                * rating: why, a sentence; else NULL */
    int level;                 /* TAKEN_OVER: the bot's */
    unsigned seats;            /* REMATCH_OFFERED: bit s, seat s accepted */
    const char *sender;        /* CHAT read back from the store (wire_event_value): the
                                * sender's name, where live play has who */
    int why;                   /* OVER: room_end_why; OUT: room_out_why; DEPARTED:
                                * room_depart_why; 0 when not given */
    int out_why;               /* OVER by ROOM_END_PLAYER_OUT: why `by` left */
    const char *by;            /* OVER: whose doing (a name or a seat's label), or NULL */
    const char *detail;        /* OVER by ROOM_END_OPERATOR: the operator's words */
} room_event;

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

/* blocks.c: players' blocks (docs/rules.md, "Blocking and reporting"). The
 * blocks of a participant's account are read from the store into it
 * (p->blocked) when it subscribes, and again when its account blocks or
 * unblocks someone through this node (board_blocks_changed); delivery asks
 * only that copy, so a chat line costs no database read. */
/* Read p's account's blocks into p (nothing for a guest or a bot, or without
 * a store). 0; -1 when they cannot be read (p keeps what it had). */
int board_blocks_load(board_service *svc, participant *p);
/* Does p's account block account? */
bool board_blocks(const participant *p, int64_t account);
/* Read again the blocks of every participant of account here. */
void board_blocks_changed(board_service *svc, int64_t account);
/* 1 when account a blocks b or b blocks a (read from the store, so a
 * cluster's nodes agree), 0 when neither (or one is a guest: 0), -1 when the
 * store cannot say: the caller refuses to pair them then. For pairing two
 * named people: a rematch now, quick pairing later. */
int board_blocked_either(board_service *svc, int64_t account_a, int64_t account_b);
/* Free a participant and what it holds. */
void board_person_free(participant *p);

/* social_rpc.c: the operator's list of the players' reports (the Social
 * service takes them), newest first: at most limit (> 0) into out, *n of
 * them, each with its id, time, reporter, reported, game id and reason. 0, or
 * -1 with a sentence in err (no store, or the store's own error). */
int board_reports_list(board_service *svc, int limit, store_report *out /* OUT */,
                       int *n /* OUT */, char *err, size_t errlen);

#include "room.h"

#endif /* SUNGKA_BOARD_INTERNAL_H */
