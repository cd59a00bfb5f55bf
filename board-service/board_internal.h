/*
 * board_internal.h — the board service's own structures, shared by its files:
 * service.c (rpc glue, the loop, timers), room.c (one game: seats, log,
 * subscribers) and wire.c (building protobuf messages).
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
#include "rpc.h"
#include "store.h"
#include "sungka/v1/sungka.pb-c.h"

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

/* A player or observer of one game, found by its token. */
typedef struct participant {
    room *room;
    unsigned id;               /* unique in its room: private events name it */
    char name[BOARD_NAME_BYTES];
    char token[BOARD_TOKEN_HEX + 1];
    int seat;                  /* -1 for an observer */
    bool departed;             /* went away; the seat is kept until depart_deadline_ms */
    int64_t depart_deadline_ms;
    bool ready;
    rpc_call *stream;          /* the open Subscribe call, or NULL */
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
} participant;

/* One logged event, packed once and replayed to late subscribers. */
typedef struct logged_event {
    uint64_t seq;
    unsigned only_for[2];      /* private: the two participant ids who may see it; 0: all */
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
    bool store_failed;         /* a store write failed during that move */
    int n_moves;               /* moves played, for the store's ply numbers */
    unsigned next_person_id;
    int64_t created_ms;
    char creator[64];          /* host of the client that created it (the per-client cap) */
    char end_reason[GAME_MAX_SEATS * BOARD_NAME_BYTES + 64];
    participant **people;      /* players and observers (cfg.max_participants at most) */
    int n_people, people_cap;
    participant *seat_holder[GAME_MAX_SEATS];   /* NULL while open or after leaving */
    char seat_name[GAME_MAX_SEATS][BOARD_NAME_BYTES]; /* kept after the game ends */
    logged_event *log;
    size_t log_len, log_cap;
};

/* tokens.c: seat token -> participant, for every game of the service. */
typedef struct token_index {
    participant **slots;       /* cap entries, NULL when free */
    size_t cap, n;
    uint64_t key;              /* random: slots reveal nothing about tokens */
} token_index;
int token_index_init(token_index *ix);
void token_index_free(token_index *ix);
int token_index_add(token_index *ix, participant *p);
void token_index_remove(token_index *ix, participant *p);
participant *token_index_find(const token_index *ix, const char *token);
bool board_tokens_equal(const char *a, const char *b);

struct board_service {
    board_config cfg;
    rpc_server *server;
    store *store;              /* statistics, history, recovery; NULL: none */
    token_index tokens;        /* every participant of every game, by token */
    char endpoint[128];
    volatile sig_atomic_t stop;
    room **rooms;
    int n_rooms, rooms_cap;
    unsigned next_id;
    uint64_t next_nonce;
    int64_t next_ping_ms;
    int port;                  /* bound */
    struct pending_move *pending;  /* room.c: moves of this loop turn, not yet committed */
    int n_pending, pending_cap;
    bool batch_failed;         /* one of them could not be written: undo them all */
    pid_t *bot_pids;           /* bots.c: children still running */
    int n_bots, bots_cap;
};

/* --- service.c --- */
int64_t board_now_ms(void);              /* monotonic */
int64_t board_wall_ms(void);             /* since the epoch, for event stamps */
void board_log(board_service *svc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* --- room.c --- */
room *room_create(board_service *svc, const char *id, const game_kind *kind,
                  const game_options *opts, const char *title, bool autostart);
void room_free(room *r);
int room_seats_taken(const room *r);
participant *room_find_name(const room *r, const char *name);
/* Take p into r->people (growing it); 0, or -1 when out of memory. */
int room_add_person(room *r, participant *p);
/* Add a participant (seat chosen as the first open one) and announce it. */
participant *room_join(room *r, const char *name, bool observe, rpc_code *code,
                       char *err, size_t errlen);
/* Attach a Subscribe call: replay from after_seq (0: a snapshot) then live. */
int room_subscribe(room *r, participant *p, rpc_call *call, uint64_t after_seq,
                   char *err, size_t errlen);
/* Play a move. 0: it is played and waits for room_commit_moves, which sends
 * its events and answers `call` (with its event's seq, or UNAVAILABLE if it
 * could not be stored and was undone); -1: refused, with code and err, and
 * the caller answers `call`. */
int room_move(room *r, participant *p, int move, rpc_call *call, rpc_code *code,
              char *err, size_t errlen);
/* Commit the moves played since the last call in one transaction, then send
 * their events and answer their calls. The loop calls it at the end of every
 * turn, and before anything else reads or writes a game or the store, so
 * nothing sees a move that is not stored. */
void room_commit_moves(board_service *svc);
/* To everyone, or privately to the participant named `to` (non-empty). */
int room_chat(room *r, participant *p, const char *text, const char *to, rpc_code *code,
              char *err, size_t errlen);
int room_ready(room *r, participant *p, bool ready, rpc_code *code, char *err, size_t errlen);
/* Observer takes seat `seat` (-1: the first open one) / player stands up;
 * before the game starts only. */
int room_sit(room *r, participant *p, int seat, rpc_code *code, char *err, size_t errlen);
int room_stand(room *r, participant *p, rpc_code *code, char *err, size_t errlen);
/* An open seat and not started: a player may join. */
bool room_has_open_seat(const room *r);
/* Mark departed (stream closed or pings missed): a seated player keeps the
 * seat for the grace period; / gone for good (Leave: a seated player quitting
 * a running game ends it as abandoned). */
void room_depart(room *r, participant *p, const char *why);
void room_leave(room *r, participant *p);
/* Send pings, notice missed ones, end grace periods that ran out. */
void room_tick(room *r, int64_t now);
/* True when nobody is connected to a game that is over: it can go. */
bool room_is_idle(const room *r);
/* Close every stream (shutdown). */
void room_close_streams(room *r);
/* A recovered room tells its log that the service came back. */
void room_announce_restart(room *r);

/* --- history.c: Register calls that read the store --- */
void history_player_stats(board_service *svc, rpc_call *call,
                          const Sungka__V1__GetPlayerStatsRequest *req);
void history_leaderboard(board_service *svc, rpc_call *call,
                         const Sungka__V1__LeaderboardRequest *req);
void history_list_matches(board_service *svc, rpc_call *call,
                          const Sungka__V1__ListMatchesRequest *req);
void history_get_match(board_service *svc, rpc_call *call,
                       const Sungka__V1__GetMatchRequest *req);

/* --- listen.c --- */
/* After rpc_server_create refused addr: one sentence saying why ("cannot
 * listen on ADDR: the address is in use (...)"), found with a bind() of our
 * own. */
void board_listen_problem(const char *addr, bool tls, char *err, size_t errlen);

/* --- recovery.c: rebuild the unfinished games from the store at start --- */
int board_recover(board_service *svc, char *err, size_t errlen);

/* --- bots.c: service-run computer players (sungka-player --view bot) --- */
/* Seat n bots of `level` in r's last seats, remember them in the store, and
 * start their children. */
int board_bots_spawn(board_service *svc, room *r, int n, int level, char *err, size_t errlen);
/* Start again the children of the recovered games' bots; once serving. */
void board_bots_recover(board_service *svc);
void board_bots_reap(board_service *svc);
void board_bots_stop(board_service *svc);

/* --- wire.c: protobuf builders; every returned message is freed with wire_free --- */
void wire_summary(const room *r, Sungka__V1__GameSummary *out);
void wire_summary_clear(Sungka__V1__GameSummary *s);
/* A board message with room for its arrays, so building one allocates
 * nothing (it lives on the caller's stack; use .msg). */
typedef struct wire_board_msg {
    Sungka__V1__BoardState msg;
    int32_t cells[GAME_MAX_CELLS];
    int32_t scores[GAME_MAX_SEATS];
} wire_board_msg;
void wire_board(const game_state *st, int rotate_to, wire_board_msg *out);
void wire_participant(const participant *p, Sungka__V1__Participant *out);

#endif /* SUNGKA_BOARD_INTERNAL_H */
