/*
 * board.h — the authoritative board service, as a library the program
 * `sungka-board` (main.c) and the tests drive.
 *
 * One event-loop thread owns every game, seat and stream: board_run() is that
 * loop, and nothing else in this module may be called while it runs except
 * board_request_stop() and board_request_reload(), which are async-signal-safe,
 * and board_reconfigure() from inside the loop (its on_reload hook).
 */
#ifndef SUNGKA_BOARD_H
#define SUNGKA_BOARD_H

#include <stdbool.h>
#include <stdio.h>

struct board_service;

/* --tournaments: who may create a tournament. */
enum {
    BOARD_TOURNAMENTS_OPEN = 0,      /* anyone */
    BOARD_TOURNAMENTS_OPERATOR = 1,  /* a call showing the admin token */
    BOARD_TOURNAMENTS_OFF = 2,       /* none: the calls answer UNIMPLEMENTED */
};

typedef struct board_config {
    const char *listen;        /* "0.0.0.0:7070"; port 0 picks a free one */
    const char *advertise;     /* endpoint put in board references (NULL: the bound address) */
    int ping_interval_ms;      /* default 2000 */
    int ping_timeout_ms;       /* default 10000 */
    int grace_ms;              /* a departed player's seat is kept this long (default 60000) */
    int max_games;             /* default 1000 */
    int max_games_per_client;  /* open games one client address may create (default 100) */
    int max_participants;      /* players and observers in one game (default 1000) */
    int max_message_bytes;     /* largest reply or event (default 1 MiB) */
    int max_streams;           /* concurrent calls per connection (default 64) */
    int chat_length;           /* bytes of one chat line (default 500) */
    int chat_rate;             /* chat lines per seat per 5 s (default 5) */
    int presence_events;       /* a player's logged departures and returns per 10
                                * minutes (default 20) */
    /* Per client address, whatever names it uses: */
    int max_client_streams;    /* open event streams and SubscribeMany legs (default 256) */
    int ipv6_prefix;           /* IPv6 clients count by this prefix (bits, default 64) */
    int max_client_observers;  /* observer seats, in all games together (default 256) */
    int client_join_rate;      /* joins per second (default 20) */
    int client_chat_rate;      /* chat lines per 5 s (default 20) */
    int client_pairings;       /* QuickPair calls waiting at once (default 1) */
    int max_pool;              /* players waiting in one quick-pairing pool (default 1000) */
    int tournaments;           /* BOARD_TOURNAMENTS_*: who may create one (default open) */
    int max_tournaments;       /* unfinished tournaments at once (default 20) */
    int client_tournaments;    /* ... of them made from one client address (default 2) */
    int max_tournament_players;    /* players in one tournament (default 64, at most 1000) */
    int max_request_bytes;     /* largest request accepted (default 64 KiB) */
    int move_rate;             /* moves per seat per second (default 200) */
    int bot_think_ms;          /* time per move of service-run bots (default 1000) */
    /* The engine's review of ended games (analysis.c; need a store): */
    bool analysis_off;         /* --analysis off: review nothing */
    int analysis_depth;        /* plies a position; 0: each kind's own (games/) */
    int analysis_time_ms;      /* at most this per position (default 2000) */
    int analysis_queue;        /* ended games waiting for a review; more are
                                * reviewed at the next start (default 32) */
    int first_move_ms;         /* games with clocks: a seat's first move within this,
                                * or the game is aborted (default 30000) */
    /* Rated games that do not count (room_rating.c; docs/rules.md, "Ratings"): */
    int rated_min_moves;       /* each player's moves for a rated result (default 2;
                                * -1: none) */
    int rated_pair_games;      /* rated games of the same two accounts per 24 hours
                                * (default 3; -1: no limit) */
    bool rated_same_address;   /* rate accounts whose seats were taken from one
                                * client address against each other (default: not) */
    /* Accounts (accounts_rpc.c; need a store): */
    bool require_accounts;     /* refuse guests: JoinGame and CreateGame need a session */
    int session_days;          /* a session lasts this long (default 30) */
    int max_account_sessions;  /* sessions one account keeps; a sign-in beyond ends
                                * the oldest (default 20) */
    int password_workers;      /* threads hashing passwords, 64 MiB each (default 2) */
    int password_queue;        /* password checks waiting for one (default 32) */
    int signin_failures;       /* failed sign-ins per name per 5 minutes (default 5) */
    int client_signin_failures;/* ... per client address per 5 minutes (default 20) */
    int signin_rate;           /* password checks (sign-ins right or wrong, password
                                * changes) of one name per minute (default 20) */
    int client_signin_rate;    /* password checks of any kind (accounts made too) one
                                * client address may ask for per minute (default 60) */
    int client_signin_jobs;    /* ... and have waiting or hashing at once (default 2) */
    int client_registrations;  /* accounts made per client address per hour (default 10) */
    int max_blocks;            /* accounts one account may block (default 500) */
    int report_rate;           /* reports one account may make per 24 hours (default 20) */
    int block_rate;            /* blocks and unblocks one account may make per minute
                                * (default 30): each reads its participants' blocks again */
    int client_lookups;        /* a cluster: unknown tokens and game ids a client address
                                * may have looked up in the database per second (default 50) */
    int stall_limit_ms;        /* health says NOT_SERVING once the loop has not turned
                                * for this long, and the log says so (default 3000) */
    int max_health_watches;    /* Health.Watch streams open at once (default 64; a quarter
                                * of them, at least one, per client address) */
    int max_reflection_streams;    /* server reflection streams open at once (default 16;
                                    * a quarter, at least one, per client address) */
    const char *tls_cert;      /* PEM certificate chain: TLS instead of plaintext */
    const char *tls_key;       /* its private key */
    const char *tls_client_ca; /* require client certificates signed by this CA */
    bool tls_self_signed;      /* tls_cert is the one --tls-self-signed made: the
                                * service's bots trust exactly it */
    const char *db;            /* the store: a file, ":memory:", "" for none,
                                * a postgresql:// URI (a cluster's shared store);
                                * NULL: the user's data directory */
    int lease_ms;              /* a cluster node's lease on its games (default 10000) */
    const char *relays;        /* sungka-relays for large audiences: "HOST:PORT,..." */
    int relay_after;           /* observers a game has before new ones go to a relay
                                * (default 100) */
    const char *relay_key;     /* a file with the secret relays show (relay_key.h):
                                * their joins count against the observer's address they
                                * name; NULL: no relay is known, nobody may name one */
    const char *admin_token_file;  /* the Admin service's token (admin_rpc.c; made when
                                    * missing); NULL: DB.admin-token beside an SQLite file */
    const char *metrics;       /* "HOST:PORT": serve GET /metrics (Prometheus) there;
                                * NULL: no metrics */
    int verbose;               /* log every request to the log stream */
    bool grpc_log;             /* gRPC's own log lines on stderr (--verbose; see
                                * rpc_set_verbose): the service's bots get it too */
    bool check_replay;         /* a test switch (also SUNGKA_CHECK_REPLAY=1 in the
                                * environment): after every turn, rebuild each game
                                * that changed from its stored log and abort if it
                                * differs from the live one (room_check.c) */
    FILE *log;                 /* where to log (default stderr) */
    bool quiet;                /* log nothing (--quiet) */
    /* Hooks board_run calls on the loop thread (main's), with hook_arg: */
    void (*on_reload)(struct board_service *svc, void *arg);  /* after board_request_reload
                                * (NULL: such a request is ignored); it may call
                                * board_reconfigure */
    void (*on_stopping)(void *arg);  /* once, as the loop begins to shut down (NULL: none) */
    void *hook_arg;
} board_config;

typedef struct board_service board_service;

/* Fill in the defaults for every zero field. */
void board_config_defaults(board_config *cfg);

/* Bind and start serving. Returns 0 and *out with *port the bound port, or -1
 * with a sentence in err. rpc_init() must have been called. */
int board_create(const board_config *cfg, board_service **out, int *port,
                 char *err, size_t errlen);

/* Run the event loop until board_request_stop(); then stop cleanly (streams
 * are closed, the server destroyed). Returns 0. */
int board_run(board_service *svc);

/* Async-signal-safe: ask board_run() to return soon. */
void board_request_stop(board_service *svc);

/* Async-signal-safe: ask board_run() to call cfg.on_reload on its thread soon. */
void board_request_reload(board_service *svc);

/* On the loop thread only (from on_reload): take next's values of the settings
 * a running service can change — the limits read where they are checked
 * (max-games, max-games-per-client, max-participants, chat-length, chat-rate,
 * move-rate, the per-address limits but --ipv6-prefix, client-registrations,
 * client-lookups), require-accounts, relays and relay-after, quiet and
 * verbose, and the TLS certificate and key, read again from their files and
 * served from the next handshake — and keep the others. Zero fields of next
 * mean their defaults, as for board_create. Writes into said a sentence for
 * the log: what changed, "old -> new", and which changed settings need a
 * restart. The strings taken are copied: next's may go when this returns. */
void board_reconfigure(board_service *svc, const board_config *next, char *said,
                       size_t saidlen);

/* Free everything; only after board_run() returned (or instead of it). */
void board_destroy(board_service *svc);

#endif /* SUNGKA_BOARD_H */
