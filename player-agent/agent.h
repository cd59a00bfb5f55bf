/*
 * agent.h — the player agent: a connection to a board service, at most one
 * game at a time (one seat, two in hot seat, or an observer's chair), and the
 * queue that feeds its view.
 *
 * Threads (seed 000: "a main waiting loop, and a message queue"):
 *   - the rpc client thread receives events and replies, answers pings at
 *     once, turns everything else into agent_msg values and queues them;
 *   - a reconnect thread resubscribes, with back-off, when a stream drops;
 *   - the view thread (the caller of everything below except where noted)
 *     waits on agent_fd(), takes messages with agent_next(), and sends
 *     commands. Lobby calls (list, new, join, leave) block briefly, with a
 *     deadline; game commands return at once and a refusal comes back as a
 *     message.
 * agent_next() applies each message to the agent's model before returning
 * it, so the model (agent_model()) is touched by the view thread only.
 *
 * No protobuf or gRPC type appears here: views see plain data.
 *
 * Every string the agent hands a view (in agent_msg, agent_model,
 * agent_person, the lobby's, statistics' and history's structures, and the
 * err sentences) is strict UTF-8 with nothing unprintable: whatever the
 * service sent was escaped where it entered the agent (common/text.h's
 * text_escape: "\u{1B}" for ESC, U+FFFD for a bad byte), so it is safe to
 * print to a terminal or put in a label as it is, whatever the service is.
 */
#ifndef SUNGKA_AGENT_H
#define SUNGKA_AGENT_H

#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>

#include "games.h"
#include "analysis.h"

#define AGENT_NAME_BYTES 129
#define AGENT_REASON_BYTES 48     /* an ErrorReason's name, "NOT_YOUR_TURN" */
#define AGENT_TEXT_BYTES 512
#define AGENT_MAX_PEOPLE 64

typedef struct agent agent;

/* A time control (docs/rules.md, "Clocks"): per move, or for the game
 * with an increment; all zero: none. */
typedef struct agent_clock {
    int per_move_s, base_s, increment_s;
} agent_clock;

/* "5+3" (5 minutes, 3 seconds more a move), "10" (10 minutes), "30/move"
 * (30 seconds a move) or "none"; 0, or -1 with a sentence. */
int agent_parse_clock(const char *spec, agent_clock *out, char *err, size_t errlen);

typedef struct agent_config {
    const char *server;        /* "host:port" */
    bool tls;                  /* TLS, verifying the service's certificate: against
                                * tls_ca, else the system's roots, else the
                                * certificate trusted on first use (below) */
    const char *tls_ca;        /* the CA it must chain to (NULL: see tls) */
    const char *tls_cert;      /* a client certificate, when the service asks */
    const char *tls_key;
    const char *tls_name;      /* the name on the service's certificate, if not the host */
    const char *known_servers; /* the certificates trusted on first use, per
                                * server (known_servers.h; NULL:
                                * $XDG_CONFIG_HOME/sungka/known-servers; "": none
                                * remembered or trusted so). A server listed
                                * there is spoken to in TLS even without tls. */
    const char *name;
    /* What to do at start; all NULL: stay in the lobby. */
    const char *new_kind;      /* create a game of this kind */
    const char *any_kind;      /* join any open game of this kind (made if none) */
    const char *game_id;       /* join this game */
    const char *options[GAME_MAX_OPTIONS];   /* "cups=7" ... for new_kind / any_kind */
    int n_options;
    const char *title;         /* for a new game, may be NULL */
    bool observe;
    bool take_seat;            /* join (by id) at this seat rather than the first open one */
    int seat;
    bool autostart;            /* a new game starts when full, without "ready" */
    int bots;                  /* seats of a new game the service fills with bots */
    int bot_level;             /* their level, 1..10 (0: 5) */
    agent_clock clock;         /* a new game's time control (all 0: none) */
    bool rated;                /* a new game is rated (signed-in players only) */
    bool bot_takes_over;       /* a new game: a bot (at bot_level) takes the seat of a
                                * player who does not come back */
    const char *login_name;    /* sign in as this account at start (agent_sign_in) */
    const char *login_password;   /* ... with this password (borrowed; the caller wipes it) */
    bool ready;                /* say ready as soon as seated (also when a saved seat
                                * is taken back, or an observer sits down) */
    const char *hot_seat;      /* a second player's name: hold two seats (seed 003) */
    int call_timeout_ms;       /* deadline of each command (default 5000) */
    int reconnect_for_ms;      /* keep trying to come back this long (default 90000) */
    const char *relay_key;     /* a relay's key (relay_key.h), shown on every call:
                                * an agent run by a gateway for someone else
                                * (sungka-web), whose limits the service then
                                * counts against relay_for; NULL: none */
    const char *relay_for;     /* ... the address of the person it acts for
                                * ("ipv4:198.51.100.7", address.h's form);
                                * NULL: the gateway's own (a shared watcher) */
    const char *state_dir;     /* where seat tokens are kept between runs (NULL: the
                                * XDG state directory; "" to keep none) */
    const char *seat_token;    /* with game_id: take back the seat this token holds,
                                * as with a saved token, or fail (never join anew);
                                * how sungka-board hands its bots their seats */
    struct agent_lobby_failure *start_failed;  /* OUT, may be NULL: when agent_start's
                                * new, any or join fails, why (agent_lobby_failed),
                                * so its caller can say it in the user's language */
} agent_config;

typedef enum agent_status {
    AGENT_GAME_WAITING = 1,
    AGENT_GAME_RUNNING = 2,
    AGENT_GAME_FINISHED = 3,
    AGENT_GAME_ABANDONED = 4,
} agent_status;

/* A Glicko-2 rating as the service shows it (docs/rules.md, "Ratings"). */
typedef struct agent_rating {
    bool known;                /* false: a guest, a bot, or not told */
    int value;                 /* whole points; 1500 for a newcomer */
    int deviation;
    bool provisional;          /* deviation still high: shown with a "?" */
    int games;                 /* rated games played in the kind */
} agent_rating;

/* "1500?" (provisional), "1623", or "" when not known. */
void agent_format_rating(const agent_rating *r, char *buf, size_t len);

typedef struct agent_person {
    char name[AGENT_NAME_BYTES];
    int seat;                  /* -1 observer */
    bool departed;
    bool ready;
    bool out;                  /* out of the running game (resigned...) */
    bool guest;                /* not signed in: the name is nobody's account */
    agent_rating rating;       /* the account's in this game's kind */
    int rtt_ms;                /* -1 unknown */
    int64_t away_until_ms;     /* departed with the seat kept: when the grace the
                                * service announced ends (agent_now_ms's clock);
                                * 0 when not counting (see agent_away_seconds) */
} agent_person;

/* One game in the lobby's list. */
typedef struct agent_game_info {
    char id[32];
    char kind[32];
    char title[96];
    char options[128];         /* "cups=6 stones=7" */
    agent_status status;
    int n_seats;
    char seat_name[GAME_MAX_SEATS][AGENT_NAME_BYTES];   /* "" while open */
    bool seat_ready[GAME_MAX_SEATS];
    bool seat_departed[GAME_MAX_SEATS];
    int observers;
    bool rated;
} agent_game_info;

/* What the agent knows of its game, kept up to date from the events. */
typedef struct agent_model {
    char game_id[32];
    char title[96];
    const game_kind *kind;
    game_options opts;
    game_state state;          /* the board as the service reported it */
    bool have_state;
    char my_name[AGENT_NAME_BYTES];
    int my_seat;               /* -1 observer */
    int hot_seat;              /* our second seat in hot seat, else -1 */
    agent_status status;
    char seat_name[GAME_MAX_SEATS][AGENT_NAME_BYTES];
    agent_person people[AGENT_MAX_PEOPLE];  /* the players, then the first observers */
    int n_people;
    int n_observers;           /* how many are watching (may exceed those listed in
                                * people: a crowd is counted, not named) */
    agent_clock time_control;  /* the game's (all 0: no clocks) */
    bool rated;                /* the game changes its players' ratings */
    bool have_clocks;          /* clock_ms is known (a clocked game under way) */
    int64_t clock_ms[GAME_MAX_SEATS];   /* time left as of clock_at_ms */
    int clock_running;         /* whose clock runs, -1: none */
    int64_t clock_at_ms;       /* agent_now_ms() when those values were current */
    int draw_offer;            /* the seat whose draw offer is open, -1: none */
    unsigned claimable;        /* bit s: seat s departed past its grace (Claim) */
    unsigned rematch_accepted; /* after the end: bit s, seat s accepts a rematch */
    int winners[GAME_MAX_SEATS];
    int n_winners;
    int scores[GAME_MAX_SEATS];
    bool ratings_changed;      /* a rated game's end: each seat's before and after */
    agent_rating rating_before[GAME_MAX_SEATS], rating_after[GAME_MAX_SEATS];
    char end_reason[AGENT_TEXT_BYTES];   /* the service's English: say end_why instead */
    int end_why;               /* agent_end_why (0: unknown, say end_reason) */
    int end_out_why;           /* AGENT_END_PLAYER_OUT: agent_out_why of end_who */
    char end_who[AGENT_NAME_BYTES];      /* whose doing, or "" */
    char end_detail[AGENT_TEXT_BYTES];   /* AGENT_END_OPERATOR: the operator's words */
    uint64_t last_seq;         /* last logged event seen */
    int mismatches;            /* boards that disagreed with our own replay */
} agent_model;

typedef enum agent_msg_kind {
    AGENT_MSG_SNAPSHOT,        /* the whole state (model reloaded) */
    AGENT_MSG_JOINED,          /* name, seat */
    AGENT_MSG_LEFT,            /* name, seat */
    AGENT_MSG_DEPARTED,        /* name, seat, text = reason */
    AGENT_MSG_STARTED,         /* seat = first */
    AGENT_MSG_TURN,            /* seat = to move; passed[] */
    AGENT_MSG_MOVED,           /* seat, move, steps[], passed[], extra_turn; on a
                                * mismatch the agent resubscribes by itself */
    AGENT_MSG_CHAT,            /* name, seat, text */
    AGENT_MSG_GAME_OVER,       /* text = reason (English), why, out_why, name (whose
                                * doing), detail; model has winners and scores */
    AGENT_MSG_NOTICE,          /* text */
    AGENT_MSG_PINGS,           /* round-trip times and the number watching updated
                                * in the model */
    AGENT_MSG_REFUSED,         /* a command was refused: text = the service's sentence,
                                * reason = its machine-readable reason */
    AGENT_MSG_DISCONNECTED,    /* gone for good: text = why */
    AGENT_MSG_RETURNED,        /* name, seat: a departed player is back */
    AGENT_MSG_READY,           /* name, seat, ready */
    AGENT_MSG_SEAT,            /* name, seat (-1: stood up), from_seat */
    AGENT_MSG_RECONNECTING,    /* our stream dropped: text says so in words, once
                                * ("lost the connection to HOST:PORT; trying again
                                * for 90 s…"), then at most every 10 s while we
                                * keep trying ("still trying (20 s)…") */
    AGENT_MSG_RECONNECTED,     /* back, resumed after event seq; text "reconnected
                                * to HOST:PORT" */
    AGENT_MSG_OUT,             /* name, seat left the game: text = why ("resigned");
                                * to_move = whose turn now (-1: over), passed[];
                                * from_seat = whose turn it was before */
    AGENT_MSG_DRAW_OFFERED,    /* name, seat offers a draw */
    AGENT_MSG_DRAW_DECLINED,   /* name, seat declines it */
    AGENT_MSG_TAKEN_OVER,      /* name (a service bot at `level`) took seat from the
                                * player named in text, who did not come back */
    AGENT_MSG_REMATCH_OFFERED, /* name, seat offers or accepts a rematch; accepted:
                                * every seat that has */
    AGENT_MSG_REMATCH_DECLINED,   /* name, seat declines it */
    AGENT_MSG_REMATCH_STARTED, /* text: the new game's id (agent_follow_rematch) */
    AGENT_MSG_TIME_GIVEN,      /* name, seat gave every other seat `move` seconds;
                                * the clocks as they now stand */
} agent_msg_kind;

/* Why a game ended (GameOver.why, as the contract numbers EndReason), a
 * seat left it (PlayerOut.why, OutReason) and a player departed
 * (PlayerDeparted.why, DepartReason): codes a view says in the user's
 * language (views/narrate.c). 0, or a value newer than this agent: the
 * service's English text is all there is. */
typedef enum agent_end_why {
    AGENT_END_UNKNOWN = 0, AGENT_END_FINISHED, AGENT_END_PLAYER_OUT, AGENT_END_DRAW_AGREED,
    AGENT_END_ABORTED, AGENT_END_NO_FIRST_MOVE, AGENT_END_EMPTY_SEAT_TIME, AGENT_END_OPERATOR,
    AGENT_END_NOBODY_LEFT,
} agent_end_why;
typedef enum agent_out_why {
    AGENT_OUT_UNKNOWN = 0, AGENT_OUT_RESIGNED, AGENT_OUT_TIME_RAN_OUT, AGENT_OUT_QUIT,
    AGENT_OUT_CLAIMED,
} agent_out_why;
typedef enum agent_depart_why {
    AGENT_DEPART_UNKNOWN = 0, AGENT_DEPART_CONNECTION_CLOSED, AGENT_DEPART_NO_PINGS,
    AGENT_DEPART_NOT_BACK, AGENT_DEPART_TOKEN_REVOKED, AGENT_DEPART_ENDED_BY_OPERATOR,
} agent_depart_why;

/* What the agent itself says in a message, as a code a view translates
 * (text keeps the English sentence, for logs and views that show it as
 * is). */
typedef enum agent_said {
    AGENT_SAID_TEXT = 0,       /* nothing but text (the service's words, or others) */
    AGENT_SAID_LOST,           /* RECONNECTING: lost the connection to `where`;
                                * trying again for `seconds` */
    AGENT_SAID_STILL_TRYING,   /* RECONNECTING: still trying, `seconds` so far */
    AGENT_SAID_RECONNECTED,    /* RECONNECTED: reconnected to `where` */
    AGENT_SAID_GAVE_UP,        /* DISCONNECTED: could not reconnect within `seconds` */
} agent_said;

typedef struct agent_msg {
    agent_msg_kind kind;
    agent_said said;           /* the agent's own words as a code (text: in English) */
    char where[AGENT_TEXT_BYTES];  /* ... its address, for LOST and RECONNECTED */
    int seconds;               /* ... its seconds, for LOST, STILL_TRYING, GAVE_UP */
    uint64_t seq;
    int seat;
    int move;
    char name[AGENT_NAME_BYTES];
    char text[AGENT_TEXT_BYTES];
    char reason[48];           /* REFUSED: the service's reason for programs
                                * (its ErrorReason name, "NOT_YOUR_TURN"), "" when
                                * it gave none or never answered */
    char to[AGENT_NAME_BYTES];  /* CHAT: the addressee of a private message, or "" */
    int why;                   /* GAME_OVER: agent_end_why; OUT: agent_out_why;
                                * DEPARTED: agent_depart_why (0: say text) */
    int out_why;               /* GAME_OVER by AGENT_END_PLAYER_OUT: why `name` left */
    char detail[AGENT_TEXT_BYTES];  /* GAME_OVER by AGENT_END_OPERATOR: their words */
    bool spectators;           /* CHAT: a spectator's, seen by spectators only */
    int grace_s;               /* DEPARTED: seconds the seat is kept (0: gone) */
    int from_seat;             /* SEAT */
    int level;                 /* TAKEN_OVER: the bot's level */
    unsigned accepted;         /* REMATCH_OFFERED: bit s, seat s accepted */
    bool ready;                /* READY */
    bool guest;                /* JOINED (and the other who-events): not signed in */
    agent_rating rating;       /* JOINED (and the other who-events) */
    bool extra_turn;
    int captured;              /* MOVED: stones or discs the move took, as our own
                                * rules engine replays it (0 when it could not) */
    bool mismatch;             /* MOVED: our own replay of the move disagrees with
                                * the service's board (seed 000: "error checking
                                * for rogue servers"); text says where */
    int n_passed;
    int passed[GAME_MAX_SEATS];
    int n_steps;               /* MOVED: cell changes for animation */
    game_step *steps;          /* owned by the message */
    /* The data the model is updated from (all owned by the message). */
    int n_cells;               /* SNAPSHOT, STARTED, MOVED: the board after */
    int *cells;
    int to_move;
    int n_scores;              /* GAME_OVER */
    int scores[GAME_MAX_SEATS];
    int n_winners;
    int winners[GAME_MAX_SEATS];
    bool abandoned;
    bool ratings_changed;      /* GAME_OVER of a rated game: */
    agent_rating rating_before[GAME_MAX_SEATS], rating_after[GAME_MAX_SEATS];
    char unrated[AGENT_TEXT_BYTES];  /* STARTED, GAME_OVER of a game created rated
                                      * that changes no rating: why; "" else */
    int n_people;              /* SNAPSHOT, PINGS: everyone, with round trips */
    agent_person *people;
    int observers;             /* SNAPSHOT, PINGS: how many watch, as the service
                                * counts them */
    bool has_clocks;           /* SNAPSHOT, STARTED, MOVED, OUT, PINGS: the clocks as
                                * of the event (counted from its arrival) */
    int64_t clock_ms[GAME_MAX_SEATS];
    int clock_running;
    agent_clock time_control;  /* SNAPSHOT */
    bool rated;                /* SNAPSHOT */
    /* SNAPSHOT only */
    char game_id[32];
    char title[96];
    char kind_name[32];
    game_options opts;
    agent_status status;
    char seat_name[GAME_MAX_SEATS][AGENT_NAME_BYTES];
    int seat_grace_s[GAME_MAX_SEATS];   /* a departed player's seconds left to come
                                         * back, per seat (0: none) */
    int my_seat;
    unsigned stream_gen;       /* private: which subscription it came from */
    int holder;                /* private: which of our seats' streams */
} agent_msg;

/* Process-wide setup and teardown of the RPC layer: once, on the main
 * thread, before the first agent_start and after the last agent_destroy. */
void agent_library_init(void);
void agent_library_shutdown(void);
/* Before agent_library_init: show gRPC's own log lines on stderr (true) or
 * only our sentences (false, what people should see; see rpc_set_verbose). */
void agent_library_verbose(bool verbose);

/* Connect, then do what cfg says: create, join any, or join a game by id
 * (blocking, with a deadline) and start its event stream — first trying a
 * seat token saved by an earlier run for this server, game and name, so a
 * player whose agent died picks up where they left off (seed 004). With
 * none of those, stay in the lobby, after one call (the game list) has
 * shown that the service answers. Returns 0 and *out, or -1 with a
 * sentence in err ("cannot reach the board service at HOST:PORT: nothing
 * is listening there (connection refused)"). */
int agent_start(const agent_config *cfg, agent **out, char *err, size_t errlen);

/* Readable whenever messages are waiting (poll it, or add it to a GTK loop). */
int agent_fd(const agent *ag);

/* Take the next message (NULL when none), after applying it to the model.
 * Free it with agent_msg_free. */
agent_msg *agent_next(agent *ag);
void agent_msg_free(agent_msg *msg);

const agent_model *agent_model_get(const agent *ag);

/* A move as players write it, by the kind's own notation (games.h's
 * game_format_move: the cup or cell number, "d3" in reversi), or its number
 * while m has no board. Every view writes moves this way. */
void agent_format_move(const agent_model *m, int move, char *buf /* OUT */, size_t len);

/* A move as a player typed it, by the kind's own notation (game_parse_move:
 * a number, "d3" in reversi, "x,y,z" in tic-tac-toe), or a plain number
 * while m has no board (agent_check_move then says why it cannot be played).
 * 0 and *move, or -1 when the text is not a move. */
int agent_parse_move(const agent_model *m, const char *text, int *move /* OUT */);

/* The name we play under (--name). */
const char *agent_name(const agent *ag);

/* Accounts (issue 15; blocking, with the call deadline; view thread; 0, or
 * -1 with a sentence in err, e.g. "cannot sign in: wrong name or password").
 * Signing in or registering gives a session that the agent keeps under the
 * state directory (agent_config.state_dir, else the XDG state directory),
 * in the file "sessions", mode 0600, one line per server, and sends as
 * "authorization: Bearer <session>" on the lobby calls that follow (new
 * game, join: the seat then bears the account's name as registered, and its
 * results count for the account). A session saved by an earlier run for
 * this server is used from agent_start on. Without one the agent plays as a
 * guest, as before. Passwords are not kept anywhere, and never sent in
 * plaintext to a service off this machine (agent_may_send_secret: the call
 * fails with its sentence).
 *   agent_register: create the account `name` and sign in; *claimed (may be
 *     NULL) says the statistics kept under exactly that name became its own.
 *   agent_sign_in: name in any case.
 *   agent_sign_out: end this session (everywhere: every session of the
 *     account); forgotten here in any case, even when the service cannot be
 *     reached.
 *   agent_change_password: the other sessions end; this one stays.
 *   agent_reset_password: a forgotten password replaced with the one-time
 *     code the operator handed over (sungka-admin reset-password), without
 *     a session; every session of the account ends, then this agent signs
 *     in with the new password.
 * A lobby call the service refuses because it no longer knows the session
 * (expired, or ended from elsewhere) forgets it here too, and its sentence
 * ends "(signed out here too: sign in again, or play as a guest)". */
int agent_register(agent *ag, const char *name, const char *password, bool *claimed,
                   char *err, size_t errlen);
int agent_sign_in(agent *ag, const char *name, const char *password, char *err, size_t errlen);
int agent_sign_out(agent *ag, bool everywhere, char *err, size_t errlen);
int agent_change_password(agent *ag, const char *old_password, const char *new_password,
                          char *err, size_t errlen);
int agent_reset_password(agent *ag, const char *name, const char *code,
                         const char *new_password, char *err, size_t errlen);
/* The account signed in, as registered, or NULL for a guest. */
const char *agent_account(const agent *ag);

/* Blocking and reporting (docs/rules.md, "Blocking and reporting"), signed
 * in only; blocking, with the call deadline; 0, or -1 with a sentence (a
 * guest is told to sign in without a call). View thread only.
 *   agent_block: the service delivers none of name's chat to this account
 *     and never pairs the two; *shown (may be NULL, AGENT_NAME_BYTES) gets
 *     the name as registered.
 *   agent_blocked: the names blocked, by name: *names (caller frees with
 *     free(), one array of *n strings of AGENT_NAME_BYTES each).
 *   agent_report: a report for the operator about name, in the game at
 *     hand (if any), with the reason; *id (may be NULL) its number. */
int agent_block(agent *ag, const char *name, bool block, char *shown, char *err,
                size_t errlen);
int agent_blocked(agent *ag, char (**names)[AGENT_NAME_BYTES], int *n, char *err,
                  size_t errlen);
int agent_report(agent *ag, const char *name, const char *reason, int64_t *id, char *err,
                 size_t errlen);

/* The id of the game joined (known as soon as agent_start returns). */
const char *agent_game_id(const agent *ag);

/* True while the agent is at a game. */
bool agent_in_game(const agent *ag);

/* Lobby (blocking, with the call deadline; 0, or -1 with a sentence):
 * the games on the service (kind NULL, status 0: all; free *out with
 * free()); make a
 * new game and sit at it (hot seat and ready as configured); join one by id.
 * New and join leave the current game first. */
int agent_list_games(agent *ag, const char *kind, agent_status status, agent_game_info **out,
                     int *n, char *err, size_t errlen);
int agent_new_game(agent *ag, const char *kind, const char *const *options, int n_options,
                   char *err, size_t errlen);
/* The quick-pairing pools where players wait now (kind NULL: every kind),
 * as the service's lobby listing says them (ListGamesResponse.pools): free
 * *out with free(). 0, or -1 with a sentence. */
typedef struct agent_pool_info {
    char kind[32];
    char options[160];         /* "cups=6 stones=4" */
    agent_clock clock;         /* all 0: no clocks */
    bool rated;
    int players;
    int64_t longest_wait_ms;
} agent_pool_info;
int agent_list_pools(agent *ag, const char *kind, agent_pool_info **out, int *n, char *err,
                     size_t errlen);
/* "5+3", "10", "30/move", or "" for no clocks: as agent_parse_clock reads. */
void agent_format_clock_spec(const agent_clock *c, char *buf, size_t len);
int agent_join_game(agent *ag, const char *game_id, bool observe, char *err, size_t errlen);

/* Why the last agent_new_game, agent_join_game or agent_quick_pair failed
 * before it reached a game, as a code a view
 * says in the user's language (views/narrate.h: view_lobby_failure); its
 * err keeps the English. */
typedef enum agent_lobby_error {
    AGENT_LOBBY_OTHER = 0,     /* err alone says it (the service unreachable...) */
    AGENT_LOBBY_UNKNOWN_KIND,  /* arg: the kind as given */
    AGENT_LOBBY_BAD_OPTION,    /* arg: the option as given ("cups=99"): unknown to
                                * the kind, or its value out of range */
    AGENT_LOBBY_BAD_CLOCK,     /* arg: the clock as given */
    AGENT_LOBBY_REFUSED,       /* the service refused: reason, its ErrorReason name */
} agent_lobby_error;
typedef struct agent_lobby_failure {
    agent_lobby_error code;
    char arg[64];
    char reason[AGENT_REASON_BYTES];
} agent_lobby_failure;
/* The last failure's (view thread; valid until the next lobby call). */
const agent_lobby_failure *agent_lobby_failed(const agent *ag);

/* --- statistics and history (blocking, with the call deadline) --- */

/* The most kinds one player's ratings are listed for. */
#define AGENT_MAX_RATED_KINDS 16

typedef struct agent_kind_rating {
    char kind[32];
    agent_rating rating;
} agent_kind_rating;

typedef struct agent_stats {
    char name[AGENT_NAME_BYTES];
    int played, wins, losses, draws, streak, best_streak;
    int n_ratings;             /* an account's ratings, one per kind it has played rated */
    agent_kind_rating ratings[AGENT_MAX_RATED_KINDS];
} agent_stats;

/* One point of an account's rating history: its rating after a rated game. */
typedef struct agent_rating_point {
    char kind[32];
    char game_id[32];
    int64_t ended_ms;          /* wall clock */
    int before;                /* the rating before that game */
    agent_rating after;
} agent_rating_point;

typedef struct agent_match {
    char id[32];
    const game_kind *kind;     /* NULL: a kind this agent does not know */
    char kind_name[32];
    game_options opts;
    char title[96];
    agent_status status;       /* finished or abandoned */
    int n_seats;
    char seat_name[GAME_MAX_SEATS][AGENT_NAME_BYTES];
    int scores[GAME_MAX_SEATS];
    int winners[GAME_MAX_SEATS];
    int n_winners;
    char reason[AGENT_TEXT_BYTES];
    int64_t started_ms, ended_ms;   /* wall clock, ms since the epoch */
    int n_moves;
    char tournament_id[32];    /* the tournament that made it, "" for none */
    char tournament_title[AGENT_TEXT_BYTES];   /* its title ("" when the service
                                                * does not say) */
} agent_match;

int agent_player_stats(agent *ag, const char *name, agent_stats *out, char *err, size_t errlen);
/* The best players: by wins (kind NULL), or by rating in a kind (each
 * one's ratings[0] is that kind's; settled ratings before provisional
 * ones). Free *out with free(). */
int agent_leaderboard(agent *ag, const char *kind, int limit, agent_stats **out, int *n,
                      char *err, size_t errlen);
/* An account's newest `limit` ratings after its rated games (kind NULL:
 * every kind), oldest first; *name gets the account's name as registered.
 * Free *out with free(). */
int agent_rating_history(agent *ag, const char *name, const char *kind, int limit,
                         char name_out[AGENT_NAME_BYTES], agent_rating_point **out, int *n,
                         char *err, size_t errlen);
/* Past matches, newest first (player, kind: NULL for any); free *out. */
int agent_list_matches(agent *ag, const char *player, const char *kind, agent_match **out,
                       int *n, char *err, size_t errlen);
/* One match with its moves in order: seats[i] played moves[i]; free both. */
int agent_get_match(agent *ag, const char *id, agent_match *out, int **seats, int **moves,
                    char *err, size_t errlen);

/* The service's review of match id (Register.GetAnalysis; docs/rules.md,
 * "Analysis"). 0 and *done: true with out[0..n-1] (n: the match's moves, as
 * agent_get_match gave them) and accuracy[] filled; false when the service
 * has none (not yet, or never), with its sentence in reason. -1 with a
 * sentence in err when the call fails (an older service has no such call). */
int agent_get_analysis(agent *ag, const char *id, int n, game_analysis_move *out /* OUT [n] */,
                       int accuracy[GAME_MAX_SEATS] /* OUT */, bool *done /* OUT */,
                       char *reason, size_t reason_len, char *err, size_t errlen);

/* A match from agent_get_match written down to out (docs/rules.md,
 * "Transcripts"): a few "# " lines saying what it was, then the kind's
 * transcript. 0, or -1 when a move is not one this program knows (*bad
 * gets its number), out of memory (*bad 0), or a write fails (errno). */
int agent_write_match(const agent_match *m, const int *seats, const int *moves, FILE *out,
                      int *bad);

/* A match read back from what agent_write_match wrote (a file of `export`):
 * its header into *out (id, title, kind and options, seats, result) and its
 * moves into *seats and *moves (n_moves of each; free both with free()). 0,
 * or -1 with a sentence in err naming the line or move that is wrong. */
int agent_read_match(FILE *in, agent_match *out, int **seats, int **moves, char *err,
                     size_t errlen);

/* The position after the first `step` moves of a match from agent_get_match,
 * replayed through the rules engine from the start (so going back is as
 * exact as going forward). 0, or -1 with a sentence when the kind is unknown
 * or a recorded move is refused ("move 3: ..."; a newer engine's match). */
int agent_match_position(const agent_match *m, const int *seats, const int *moves, int step,
                         game_state *out, char *err, size_t errlen);

/* Why agent_check_move refuses a move, when the rules engine is not the one
 * to say (its reasons are its game_error values, all negative). */
typedef enum agent_move_refusal {
    AGENT_MOVE_OBSERVING = 1,  /* we only watch this game */
    AGENT_MOVE_NOT_STARTED,
    AGENT_MOVE_GAME_OVER,      /* over, or no board yet */
    AGENT_MOVE_THEIR_TURN,     /* another seat's turn (the model's to-move) */
} agent_move_refusal;

/* Would the service accept this move from us now? 0; or why not as a code
 * (an agent_move_refusal, or the rules engine's game_error: a view says it
 * in the user's language, views/narrate.h: view_move_refusal) and as an
 * English sentence in why (the same rules engine the service runs; seed
 * 004's client-side check). */
int agent_check_move(const agent *ag, int move, char *why, size_t len);

/* The legal moves of the seat to move (for hints); 0 when none or not running. */
int agent_legal_moves(const agent *ag, int *moves, int max);

/* Commands; they return at once. A refusal comes back as AGENT_MSG_REFUSED.
 * -1 only when the command could not even be sent. */
int agent_move(agent *ag, int move);
int agent_chat(agent *ag, const char *text);
int agent_tell(agent *ag, const char *to, const char *text);
int agent_ready(agent *ag, bool ready);      /* for every seat we hold */
int agent_sit(agent *ag, int seat);          /* -1: any open seat */
int agent_stand(agent *ag);
/* Leaving a running game the fair way (docs/rules.md, "Leaving a game"):
 * resign (out; two seats: the other wins), abort (no result, before
 * everyone has moved), offer a draw and answer one (two seats). For the
 * seat we hold (hot seat: the one to move). */
int agent_resign(agent *ag);
int agent_abort(agent *ag);
int agent_offer_draw(agent *ag);
/* A clocked game: give every other seat 15 seconds (at most once every 5). */
int agent_give_time(agent *ag);
int agent_answer_draw(agent *ag, bool accept);
/* A player who departed did not come back in time: take their seat out of
 * the game (two seats: we win). */
int agent_claim(agent *ag);
/* After the end: offer a rematch or accept the one offered (decline:
 * decline it). When everyone has accepted the view gets REMATCH_STARTED and
 * calls agent_follow_rematch. */
int agent_rematch(agent *ag, bool decline);
/* The rematch has started: take our seats in it (blocking) and follow its
 * events instead of the old game's; a SNAPSHOT of the new game follows.
 * 0, or -1 with a sentence. */
int agent_follow_rematch(agent *ag, char *err, size_t errlen);
/* The same for a spectator (we hold no seat): watch the rematch, game_id
 * (REMATCH_STARTED's text), instead of the old game (blocking). */
int agent_watch_rematch(agent *ag, const char *game_id, char *err, size_t errlen);

/* Quick pairing (docs/rules.md, "Quick pairing"): wait in the pool of
 * spec, "KIND" or "KIND:CLOCK" (agent_parse_clock's), with the options
 * given as "name=value" (options[n_options]), for a game with players of a
 * near rating (rated_only: signed in, rated games only), then play it as
 * agent_join_game does. Blocking: progress (on this thread, may be NULL) is
 * told each change of the pool while waiting. 0, or -1 with a sentence (the
 * service's refusal, or the connection lost). */
typedef struct agent_pairing {
    int pool_size;             /* players waiting in the pool, us included */
    int rating, range;         /* we are paired within rating ± range ... */
    bool any_rating;           /* ... or with any rating */
    int64_t waited_ms;
} agent_pairing;
int agent_quick_pair(agent *ag, const char *spec, const char *const *options, int n_options,
                     bool rated_only, void (*progress)(const agent_pairing *p, void *user),
                     void *user, char *err, size_t errlen);
/* The same in steps, for a view that must not block while it waits (the
 * GTK view): agent_quick_start asks (NULL with a sentence when the spec is
 * wrong or memory ran out) and returns at once; agent_quick_news (any
 * thread) says whether the pool changed since last asked (*now: how) and
 * whether the wait has ended (paired, refused or cancelled);
 * agent_quick_cancel stops waiting (thread-safe, before finish);
 * agent_quick_finish (view thread) waits for that end, takes the seat when
 * paired, as agent_quick_pair does, and frees w: 0, or -1 with a sentence.
 * Every started wait is finished exactly once. */
typedef struct agent_quick agent_quick;
agent_quick *agent_quick_start(agent *ag, const char *spec, const char *const *options,
                               int n_options, bool rated_only, char *err, size_t errlen);
bool agent_quick_news(agent_quick *w, agent_pairing *now, bool *ended);
void agent_quick_cancel(agent_quick *w);
int agent_quick_finish(agent *ag, agent_quick *w, char *err, size_t errlen);

/* Tournaments (docs/rules.md §16; TournamentService). One as the views see
 * it: its standings best first (free with agent_tournament_free). */
typedef struct agent_standing {
    int rank, points, games, wins, streak;
    bool withdrawn;
    char name[AGENT_NAME_BYTES];
} agent_standing;
/* One game of a tournament (agent_tournament.games): its seats in order
 * and the tournament points each won once it finished. */
typedef struct agent_tour_game {
    int round;                 /* a round robin's round; an arena's games count 1.. */
    char game_id[32];
    int n_players;
    char players[GAME_MAX_SEATS][AGENT_NAME_BYTES];   /* seat 0 first */
    int points[GAME_MAX_SEATS];
    bool finished;
} agent_tour_game;
typedef struct agent_tournament {
    char id[32], title[AGENT_TEXT_BYTES], kind[32];
    bool arena;                /* else a round robin ... */
    bool swiss;                /* ... or a Swiss tournament */
    int status;                /* 1 waiting for its field, 2 running, 3 finished */
    int round, rounds, max_players, seconds, n_games;
    int64_t ends_ms;           /* an arena's end, the service's wall clock (ms) */
    agent_standing *standings;
    int n_standings;
    agent_clock clock;         /* its games' time control (all 0: none) */
    agent_tour_game *games;    /* its n_games games, oldest first; NULL from
                                * agent_list_tournaments (the list has none) */
} agent_tournament;
void agent_tournament_free(agent_tournament *t);
/* Every tournament of the service, newest first; free each and *out. */
int agent_list_tournaments(agent *ag, agent_tournament **out, int *n, char *err, size_t errlen);
/* The same, only those where player played (a player's history of
 * tournaments; player NULL: every one). */
int agent_list_tournaments_of(agent *ag, const char *player, agent_tournament **out, int *n,
                              char *err, size_t errlen);
int agent_get_tournament(agent *ag, const char *id, agent_tournament *out, char *err,
                         size_t errlen);
/* Make a tournament: format "arena" (length: minutes), "roundrobin" (length:
 * rounds, for tables of more than two seats; 0 one per player) or "swiss"
 * (length: rounds; 0 log2 of the field) of spec
 * ("KIND" or "KIND:CLOCK") with options "name=value", for max_players. Its
 * id into id_out. 0, or -1 with the service's sentence. */
int agent_create_tournament(agent *ag, const char *format, const char *spec, const char *const *options,
                            int n_options, int length, int max_players, bool rated,
                            char id_out[32], char *err, size_t errlen);
/* The same with a title (0..64 characters; NULL or "": the service makes
 * one from the kind). A refusal's reason: agent_lobby_failed. */
int agent_create_titled_tournament(agent *ag, const char *title, const char *format,
                                   const char *spec, const char *const *options, int n_options,
                                   int length, int max_players, bool rated, char id_out[32],
                                   char *err, size_t errlen);
/* Play tournament id: join it (the first time; the agent keeps the player
 * token for the next times) and watch it, telling progress (this thread)
 * each update, until it seats us in a game we have not played yet, then
 * play that game as agent_join_game does: 0. 1 once the tournament has
 * finished (progress saw its last standings); -1 with a sentence. */
int agent_play_tournament(agent *ag, const char *id,
                          void (*progress)(const agent_tournament *t, void *user), void *user,
                          char *err, size_t errlen);
/* The same in steps, for a view that must not block while it waits (the
 * GTK view, the web gateway), as agent_quick_start's: agent_tournament_start
 * joins id the first time (a brief blocking call, as every lobby call) and
 * starts watching it, returning at once (NULL with the service's sentence);
 * agent_tournament_news (any thread) says whether the standings changed
 * since last asked (*now: a copy to free with agent_tournament_free) and
 * whether the wait has ended (seated in a new game, the tournament
 * finished, or the stream ended or cancelled); agent_tournament_cancel
 * stops waiting (thread-safe, before finish); agent_tournament_finish (view
 * thread) waits for that end and frees w: 0 seated (the game taken as
 * agent_join_game does), 1 the tournament has finished, -1 with a sentence.
 * Every started wait is finished exactly once. After a game, start again
 * for the next one. */
typedef struct agent_tour_wait agent_tour_wait;
agent_tour_wait *agent_tournament_start(agent *ag, const char *id, char *err, size_t errlen);
bool agent_tournament_news(agent_tour_wait *w, agent_tournament *now, bool *ended);
void agent_tournament_cancel(agent_tour_wait *w);
int agent_tournament_finish(agent *ag, agent_tour_wait *w, char *err, size_t errlen);
/* Withdraw from tournament id, joined through this agent (view thread,
 * blocking): an arena pairs us no more (our points stay); a round robin
 * or Swiss not started yet forgets us; one that has started refuses (the
 * service's sentence). 0, or -1 with a sentence. */
int agent_leave_tournament(agent *ag, const char *id, char *err, size_t errlen);
/* A tournament followed by a spectator, without blocking (the web
 * gateway's page of a tournament): agent_tournament_follow starts a
 * WatchTournament stream without a player token and returns at once (NULL
 * with a sentence); agent_tournament_follow_news (view thread) says whether
 * the tournament changed since last asked (*now: it, to free with
 * agent_tournament_free) and whether the stream has ended (*ended: the
 * tournament finished, or the service's sentence in err);
 * agent_tournament_follow_end (view thread) stops the stream, waits for its
 * end and frees f. Every follow started is ended exactly once. A player
 * waits for its games with agent_tournament_start (above). */
typedef struct agent_tour_follow agent_tour_follow;
agent_tour_follow *agent_tournament_follow(agent *ag, const char *id, char *err, size_t errlen);
bool agent_tournament_follow_news(agent_tour_follow *f, agent_tournament *now, bool *ended,
                                  char *err, size_t errlen);
void agent_tournament_follow_end(agent_tour_follow *f);
/* Did this agent join tournament id (agent_tournament_start or
 * agent_play_tournament), so that it holds a player token for it — or did an
 * earlier run with the same state directory, server and name (a reloaded
 * page, a restarted program), whose token it then takes back? The token is
 * forgotten when we withdraw or the tournament ends. View thread. */
bool agent_in_tournament(agent *ag, const char *id);

/* Leave the game (blocking, with a deadline) — a seated player's leaving
 * ends a running game. Forgets the saved seat token. */
int agent_leave(agent *ag);

/* Is the seat to move one we hold? (hot seat: either of two) */
bool agent_holds_seat(const agent *ag, int seat);

/* Stop the stream and free everything. Do not use the agent afterwards. */
void agent_destroy(agent *ag);

/* Milliseconds on the agent's clock (monotonic), the clock of
 * agent_person.away_until_ms. */
int64_t agent_now_ms(void);

/* Seconds left (rounded up, 0 once over) of the seat kept for p, a departed
 * player, counted from the grace the departure event or the snapshot
 * announced; -1 when p is not away (or the service never said for how
 * long). Every view counts down with this, so all show the same number. */
int agent_away_seconds(const agent_person *p);

/* Whether the views mark guests: only where it tells people apart, in a
 * game with someone signed in (a game of guests alone marks nobody). */
bool agent_marks_guests(const agent_model *m);

/* A seat's time left now (ms, counting the running clock down from the
 * last event that told it), or -1 in a game without clocks. Every view
 * counts down with this. */
int64_t agent_clock_left(const agent_model *m, int seat);
/* "4:59", "0:07", "1:02:03" for ms (rounded up to the second). */
void agent_format_clock(int64_t ms, char *buf, size_t len);

/* Check the TLS files of cfg before connecting (any thread; agent_start
 * does not, so its caller can give a bad file its own exit status): each
 * is readable PEM (a CA certificate, a certificate, an
 * unencrypted private key), --tls-cert and --tls-key come together and are
 * a matching pair. 0, or -1 with a sentence naming the files in err. */
int agent_check_tls(const agent_config *cfg, char *err, size_t errlen);

/* May a secret (a password) go to cfg's service? 0 when the connection is
 * TLS (cfg->tls, or a certificate remembered for the server, which turns it
 * on) or never leaves this machine (127.0.0.0/8, ::1, localhost, a Unix
 * socket, or no server: the agent's own private service); otherwise -1 with a sentence that says how to fix it ("Connect
 * with --tls (the service needs --tls-self-signed, ...)"). Call it before
 * sending one; any thread (it may read the known-servers file). */
int agent_may_send_secret(const agent_config *cfg, char *err, size_t errlen);

/* The name a seat goes by in the model ("seat 2" while open). */
const char *agent_seat_name(const agent_model *m, int seat, char *buf, size_t len);

/* Lines for --help: the kinds and their options. */
void agent_print_kinds(void *file);

#endif /* SUNGKA_AGENT_H */
