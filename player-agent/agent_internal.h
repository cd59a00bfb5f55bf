/*
 * agent_internal.h — what the agent's files share, and nobody else sees:
 *   agent.c           the life cycle, the message queue and agent_next (the
 *                     view thread's intake), blocking calls in words;
 *   agent_stream.c    the event streams and the reconnect thread;
 *   agent_lobby.c     going to a game and leaving it (list, new, join, leave);
 *   agent_tour.c      a tournament followed by a spectator, without blocking;
 *   agent_commands.c  the game's commands (move, chat, ready, sit, stand);
 *   agent_history.c   statistics and match history;
 *   agent_wire.c      protobuf events into agent_msg values (rpc client thread);
 *   agent_model.c     the model, updated from each message (view thread).
 *
 * Threads. Three touch an agent: the view thread (every public function,
 * and agent_start before it), gRPC's client thread (stream and call
 * callbacks: agent_stream.c, command_done) and the reconnect thread
 * (agent_stream.c). Struct agent's fields say which of them may touch each;
 * "locked" fields only with `lock` held. The queue is thread-safe. Never
 * make an rpc call with the lock held: its callbacks take the lock too.
 */
#ifndef SUNGKA_AGENT_INTERNAL_H
#define SUNGKA_AGENT_INTERNAL_H

#include <limits.h>
#include <pthread.h>

#include "agent.h"
#include "msgq.h"
#include "rpc.h"
#include "sungka/v1/sungka.pb-c.h"
#include "sungka/v1/social.pb-c.h"
#include "sungka/v1/tournament.pb-c.h"

#define AGENT_MAX_HELD 2       /* one seat, two in hot seat, or one chair */
#define AGENT_TOKEN_BYTES 80

/* How the agent trusts the service's certificate (agent_tls.c). */
typedef struct agent_trust {
    bool tls;                  /* TLS after all: --tls, or a remembered certificate */
    char *roots_pem;           /* the pinned certificate as gRPC's only root
                                * (malloc'ed), or NULL: the CA or system roots */
    bool pinned;               /* roots_pem was set (it is freed after use) */
    char name[256];            /* the name gRPC checks on the pinned certificate,
                                * when it does not carry the target's; or "" */
    char file[PATH_MAX];       /* the known-servers file consulted, or "" */
    char notice[AGENT_TEXT_BYTES];   /* first use, for the view; or "" */
} agent_trust;

/* A seat (or observer's chair) we hold, and the state of its stream. */
typedef struct agent_holder {
    int seat;                  /* -1 observer */
    char name[AGENT_NAME_BYTES];
    char token[AGENT_TOKEN_BYTES];
    unsigned gen;              /* current subscription; 0: none */
    uint64_t received_seq;     /* last logged event received */
    int attempts;              /* reconnect attempts since the stream dropped */
    int64_t lost_ms;           /* when it dropped; 0 while fine */
    int64_t said_ms;           /* when the view last heard we are trying */
    int64_t retry_ms;          /* next attempt due; 0: none */
    bool rejoin;               /* an observer's chair that is gone (a relay that
                                * died): join again as an observer, then resume */
    rpc_stream *play;          /* its Board.Play stream once it has sent an event,
                                * until it ends (cleared under the lock before its
                                * end callback returns): moves and pings go on it */
    bool play_unanswered;      /* a command went on `play` after its last event:
                                * if the stream ends now, nothing answered it */
} agent_holder;

#define AGENT_ADDRESS_BYTES RPC_ADDRESS_BYTES
#define AGENT_MAX_HOPS 8       /* a call sent on from node to node, at most */

struct agent {
    /* read-only after agent_start: any thread */
    agent_config cfg;          /* cfg.server: the first --server address */
    char first_server[AGENT_ADDRESS_BYTES];
    msgq *queue;               /* thread-safe */
    agent_trust trust;         /* kept: every node's channel is made with it */
    rpc_client_options client_opts;      /* the pool's: trust's strings live as long */
    rpc_pool *pool;            /* the board services: --server's, then where calls sent us */

    agent_model model;         /* view thread only */
    agent_lobby_failure lobby_failure;   /* view thread only: the last new, join or
                                          * quick's (agent_lobby_failed) */
    char session[AGENT_TOKEN_BYTES];     /* view thread only: the signed-in session's
                                          * token, "" for a guest (agent_accounts.c) */
    char account[AGENT_NAME_BYTES];      /* view thread only: its account's name */
    bool ready_pending[AGENT_MAX_HELD];  /* view thread only: --ready, to say for
                                          * held[i] once seated */

    pthread_mutex_t lock;      /* the locked fields below */
    pthread_cond_t wake;       /* the reconnect thread's alarm clock */
    pthread_t reconnector;
    bool stopping;             /* locked: agent_destroy has begun */
    char game_id[32];          /* locked */
    agent_holder held[AGENT_MAX_HELD];   /* locked; held[0] feeds the view */
    int n_held;                /* locked */
    unsigned next_gen;         /* locked: the last subscription's generation */
    bool no_play;              /* locked: the service answered Play UNIMPLEMENTED (an
                                * older one): Subscribe, and Move and Ping calls */
    uint64_t next_command;     /* locked: the last Play command's id */
    char tour_id[32];          /* view thread: the tournament we joined (agent_tournament_start) */
    char tour_token[AGENT_TOKEN_BYTES];    /* ... and our player token in it */
    char tour_played[32];      /* view thread: its game we were last seated in */
};

/* The service methods the agent calls, each found by its name in the .proto
 * (rpc_method_named) once, by agent_library_init, so that reordering the
 * .proto cannot send a call to the wrong method; a name the .proto lacks
 * stops the program there. Read-only afterwards, from any thread. */
typedef struct agent_methods {
    /* Register */
    rpc_method list_games, create_game, join_game, player_stats, leaderboard, list_matches,
        get_match, rating_history, quick_pair, get_analysis;
    /* Board */
    rpc_method subscribe, play, get_board, move, chat, ping, leave, ready, sit, stand, resign, abort,
        offer_draw, answer_draw, claim, rematch, give_time;
    /* Accounts */
    rpc_method create_account, sign_in, sign_out, sign_out_everywhere, change_password,
        who_am_i, reset_password;
    /* Social */
    rpc_method block, unblock, list_blocked, report;
    /* TournamentService */
    rpc_method create_tournament, join_tournament, list_tournaments, get_tournament,
        watch_tournament, leave_tournament;
} agent_methods;
extern agent_methods agent__methods;

/* --- agent.c --- */

/* Queue m for the view (any thread); m NULL does nothing, and m is freed
 * when the queue cannot take it. */
void agent__push(agent *ag, agent_msg *m);
/* Queue a message of `kind` whose text is `text` (any thread). */
void agent__push_text(agent *ag, agent_msg_kind kind, const char *text);

/* When st says a call never reached the service, what that means to a
 * player, in words, into out (len bytes), and true; false when st is the
 * service's own answer. Any thread. */
bool agent__unreachable(const agent *ag, const rpc_status *st, char *out /* OUT */,
                        size_t len);

/* A blocking call with the agent's deadline (view thread); -1 with "what:
 * reason" in err, or "cannot reach the board service at HOST:PORT: ...". */
int agent__call_sync(agent *ag, const rpc_method *m, const ProtobufCMessage *req,
                     const char *token, ProtobufCMessage **reply, char *err, size_t errlen,
                     const char *what);

/* --- agent_tls.c (agent_start) --- */

/* Decide how to trust the service cfg names: unchanged (plaintext, a
 * --tls-ca, a target we do not dial ourselves, or a certificate the
 * system's roots vouch for), or pinned to the certificate remembered in the
 * known-servers file, remembering it first when this is the first TLS
 * connection. Makes one TLS handshake of its own unless unchanged. 0 and
 * *t (free with agent__tls_trust_free), or -1 with a sentence in err: the
 * service cannot be reached, or its certificate changed (ssh's warning,
 * with the file and line to delete). */
int agent__tls_trust(const agent_config *cfg, agent_trust *t /* OUT */, char *err,
                     size_t errlen);
void agent__tls_trust_free(agent_trust *t);
/* The same, with the call's status code in *code and a refusal's reason
 * (its ErrorReason name, "" for none) in reason (each may be NULL). */
int agent__call_sync_code(agent *ag, const rpc_method *m, const ProtobufCMessage *req,
                          const char *token, ProtobufCMessage **reply, char *err, size_t errlen,
                          const char *what, rpc_code *code, char reason[AGENT_REASON_BYTES]);

/* --- agent_stream.c --- */

/* Open a subscription for held[index] after event `after_seq` (0: from a
 * fresh snapshot), replacing its earlier one; 0, or -1 when it cannot be
 * started. View or reconnect thread, without the lock. */
int agent__subscribe(agent *ag, int index, uint64_t after_seq);
/* Send req (its id is set here) on the Play stream of the held seat `seat`
 * (-2: any): true when it went, false when that seat has none open (an
 * older service, or not yet or no longer): the caller makes the unary call.
 * Any thread but the client thread's callbacks of that stream. */
bool agent__play_send(agent *ag, int seat, Sungka__V1__PlayRequest *req);
/* held[index], an observer whose chair is gone: a new one in the same game
 * (where the cluster says: a relay, or the game's node). 0, or -1. From the
 * reconnect thread, without the lock. */
int agent__rejoin(agent *ag, int index);
/* Start the reconnect thread (agent_start) — 0 or -1 — and stop it, waiting
 * for it (agent_destroy, before the client goes). */
int agent__reconnector_start(agent *ag);
void agent__reconnector_stop(agent *ag);

/* --- agent_accounts.c (view thread) --- */

/* Load the session saved for cfg.server, if any (agent_start). */
void agent__session_load(agent *ag);
/* The session token lobby calls carry, or NULL for a guest. */
const char *agent__session(const agent *ag);
/* A lobby call carrying the session answered `code`: when the service no
 * longer knows the session (UNAUTHENTICATED: expired, ended elsewhere),
 * forget it here too and say so at the end of err. */
void agent__session_refused(agent *ag, rpc_code code, char *err, size_t errlen);

/* --- agent_lobby.c (view thread) --- */

/* Sit at a game: by id, any of a kind, or a new one (kind with options),
 * leaving the current one first; 0, or -1 with a sentence in err. */
int agent__go_to_game(agent *ag, const char *game_id, const char *any_kind, const char *new_kind,
                      const char *const *options, int n_options, bool observe, char *err,
                      size_t errlen);

/* A tournament from the wire, with its standings, clock and games (free
 * with agent_tournament_free). */
void agent__tournament_from_wire(const Sungka__V1__Tournament *m, agent_tournament *out);

/* --- agent_commands.c (view thread) --- */

/* --ready: say it for each seat we hold once the model shows it seated in a
 * game still waiting; once each (agent_next calls it after a snapshot or a
 * seat change). */
void agent__ready_if_seated(agent *ag);

/* --- agent_wire.c (rpc client thread) --- */

agent_msg *agent__msg_new(agent_msg_kind kind);

/* Copy a string that came from the service into dst (size > 0 bytes),
 * escaped with text_escape: the one way service text enters the agent, so
 * a hostile service cannot put control sequences, bidi overrides or invalid
 * UTF-8 in front of a view. src NULL copies "". */
void agent__text(char *dst, size_t size, const char *src);
/* A SeatNumber field as the agent's values hold seats: -1 when absent. */
int agent__seat_of(const Sungka__V1__SeatNumber *seat);
/* A rating from the wire; absent: not known. */
void agent__rating(const Sungka__V1__Rating *r, agent_rating *out);
/* Fills *box and returns it for a seat >= 0; NULL (absent) for -1. */
Sungka__V1__SeatNumber *agent__seat_field(int seat, Sungka__V1__SeatNumber *box);

/* The message for one event, or NULL for pings and kinds we do not know. */
agent_msg *agent__event_msg(const Sungka__V1__Event *ev);

/* The TURN that follows a GameStarted or a MoveMade (the turn rides in
 * those events), or NULL: another event, or a move that ended the game. */
agent_msg *agent__turn_msg(const Sungka__V1__Event *ev);
/* Everyone and their round trips, from a ping. */
agent_msg *agent__pings_msg(const Sungka__V1__PingEvent *ping);

/* A lobby entry from a game summary. */
void agent__game_info(const Sungka__V1__GameSummary *g, agent_game_info *out);
/* Our player token in tournament id, in memory or kept by an earlier run
 * (token_store.h, under "tournament/ID"), then taken into ag (view thread;
 * agent_lobby.c). */
bool agent__tour_recall(agent *ag, const char *id);

/* --- agent_model.c (view thread) --- */

/* Update the model from one message (view thread); a MOVED message whose
 * board disagrees with our own replay gets mismatch = true and a sentence. */
void agent__model_apply(agent_model *md, agent_msg *m);

#endif /* SUNGKA_AGENT_INTERNAL_H */
