/*
 * board_rpc.h — what the board service's RPC side shares: service.c (the
 * handlers), history.c (the Register calls that read the store), clients.c
 * (addresses of calls), recovery.c and wire.c (protobuf). The room does not
 * include this: it sees only board_internal.h.
 *
 * Loop thread only, like everything in the service.
 */
#ifndef SUNGKA_BOARD_RPC_H
#define SUNGKA_BOARD_RPC_H

#include "board_internal.h"
#include "rpc.h"
#include "sungka/v1/admin.pb-c.h"
#include "sungka/v1/sungka.pb-c.h"

/* --- service.c: the rooms' way out --- */
/* Finish call with an error status, its sentence, and the reason a program
 * reads (RPC_REASON_KEY) that goes with the status. */
void board_fail(rpc_call *call, rpc_code code, const char *message);
/* A room's refusal as a status (room_statuses: the code and the reason a
 * program reads); ROOM_OK finishes the call OK with `why`. */
void board_refuse(rpc_call *call, room_rc rc, const char *why);
/* The status and reason board_refuse would finish a call with for rc. */
void board_refusal(room_rc rc, rpc_code *code /* OUT */, const char **reason /* OUT */);
/* The reason a program reads beside code when nothing more precise is
 * known ("LIMIT_REACHED"); static. */
const char *board_reason_of(rpc_code code);
/* A game being reloaded from its log (room_is_diverged) takes no calls:
 * true when call was answered UNAVAILABLE GAME_MOVING (try again). */
bool board_reloading(rpc_call *call, const room *r);

/* --- pages.c: the lists a page at a time --- */
#define BOARD_PAGE_TOKEN_BYTES 512   /* a token, and its decoded text, with a NUL */
/* The size of a page: page_size, or when 0 the older field limit, or when
 * that is 0 too def; at most max (a larger ask gets max). 0 and *out, or -1
 * with a sentence (a negative page_size). */
int board_page_size(int32_t page_size, int32_t limit, int def, int max, int *out /* OUT */,
                    char *err, size_t errlen);
/* The token of the page after the row with key k in list `list` ("games",
 * "matches", ...) into out (BOARD_PAGE_TOKEN_BYTES). */
void board_page_token(const char *list, const store_page_key *k, char *out, size_t outlen);
/* Read a client's page token for list `list`: "" gives k->set false (the
 * first page); else 0 with the key, or -1 with a sentence (garbage, forged,
 * or another list's token: INVALID_ARGUMENT). */
int board_page_key(const char *list, const char *token, store_page_key *k /* OUT */, char *err,
                   size_t errlen);

/* --- games_rpc.c: Register's ListGames, CreateGame and JoinGame --- */
extern const rpc_method_entry board_games_methods[];
extern const size_t board_games_n_methods;
/* A new game of kind_name with these options, title, clock, rating and a
 * bot to take over departed seats (level, 0: none), stored and registered;
 * NULL with *code and a sentence in err when refused. call NULL: a game the
 * service makes for itself (a tournament's, tournament_id; else NULL),
 * counted against no client. */
room *board_new_room(board_service *svc, rpc_call *call, const char *kind_name,
                     Sungka__V1__GameOption **options, size_t n_options, const char *title,
                     bool autostart, const Sungka__V1__TimeControl *clock, bool rated,
                     int bot_takes_over_level, const char *tournament_id, rpc_code *code,
                     char *err, size_t errlen);

/* A player name (JoinGameRequest.name) trimmed into out and checked: 1..32
 * printable characters; 0, or -1 with a sentence. */
int board_clean_name(const char *in, char *out /* OUT */, size_t outlen, char *err,
                     size_t errlen);
/* A request's options over kind's defaults, each at most once: 0, or -1
 * with a sentence naming the option. */
int board_read_options(const game_kind *kind, Sungka__V1__GameOption **options, size_t n,
                       game_options *opts /* OUT */, char *err, size_t errlen);
/* A game board_new_room made for a call that was then refused: forgotten
 * in the store and let go, as if never made. */
void board_discard_room(board_service *svc, room *r);

/* --- pairing.c: quick pairing (Register.QuickPair; docs/rules.md) --- */
void board_quick_pair(rpc_call *call, const ProtobufCMessage *request, void *user);

/* --- tournament.c: the TournamentService (tournament.proto) --- */
extern const rpc_method_entry board_tournament_methods[];
extern const size_t board_tournament_n_methods;

/* --- play_rpc.c: the Board service's calls --- */
extern const rpc_method_entry board_play_methods[];
extern const size_t board_play_n_methods;
/* A command of the Play stream `stream` refused: a CommandRefused event
 * (seq 0, never logged) with the command's id, code, reason and sentence,
 * to that stream only. */
void board_play_refused(rpc_call *stream, uint64_t id, rpc_code code, const char *reason,
                        const char *why);

/* --- cluster.c --- */
/* A game (by id or by a seat token) this node does not host: in a cluster,
 * answer where it lives and return true: UNAVAILABLE with reason ELSEWHERE
 * and the node's endpoint (RPC_ENDPOINT_KEY), or, while its dead node's
 * games wait for adoption, UNAVAILABLE with reason GAME_MOVING. False when
 * there is no cluster or no such game: the caller answers. */
bool board_cluster_redirect_game(board_service *svc, rpc_call *call, const char *game_id);
bool board_cluster_redirect_token(board_service *svc, rpc_call *call, const char *token);
/* An observer joining r, whose audience is --relay-after or more, is sent
 * to one of --relays (in turn: a crowd spreads over them, and one that is
 * down is passed by on the next try): true when answered ELSEWHERE. */
bool board_send_to_relay(board_service *svc, rpc_call *call, const room *r);

/* --- wire.c --- */
/* A stored event as the plain value its kind's apply function reads
 * (room_apply_event): strings point into msg, clocks into *clocks. The
 * ratings of a GameOver travel rounded, so none are given: a rebuilt game
 * reads its people's ratings from the store. 0, or -1 when msg is no event
 * of a known kind or lacks what its kind needs (a damaged log). */
int wire_event_value(const Sungka__V1__Event *msg, room_event *out, room_clocks *clocks);

/* --- clients.c --- */
/* The address call counts against ("ipv4:10.0.0.7"): the host part of its
 * peer, or the observer's address an authenticated relay names (relay_key.h). */
void board_peer_host(board_service *svc, rpc_call *call, char *out, size_t len);
/* The entry that holds what call opens (its seat, its stream), made when new;
 * NULL when out of memory. An authenticated relay's is its own ("relay
 * HOST", relay set), apart from any client's on its machine. */
board_client *board_client_of(board_service *svc, rpc_call *call);
/* The entry of the address that asked (board_peer_host): board_client_of's,
 * but for an authenticated relay naming an observer's. */
board_client *board_client_asking(board_service *svc, rpc_call *call);
/* True once call was refused for naming an observer's address without this
 * service's relay key (PERMISSION_DENIED), or for a wrong key
 * (UNAUTHENTICATED): nobody but a relay may say whose request it carries. */
bool board_relay_refused(board_service *svc, rpc_call *call);

/* --- history.c: Register calls that read the store (rpc_method_handler) --- */
void history_player_stats(rpc_call *call, const ProtobufCMessage *request, void *svc);
void history_leaderboard(rpc_call *call, const ProtobufCMessage *request, void *svc);
void history_list_matches(rpc_call *call, const ProtobufCMessage *request, void *svc);
void history_get_match(rpc_call *call, const ProtobufCMessage *request, void *svc);
/* Register.GetAnalysis (analysis.c): a stored review, or PENDING/NONE and why. */
void history_get_analysis(rpc_call *call, const ProtobufCMessage *request, void *svc);
void history_rating_history(rpc_call *call, const ProtobufCMessage *request, void *svc);

/* --- accounts_rpc.c: the Accounts service, and who calls the lobby --- */
extern const rpc_method_entry board_accounts_methods[];
extern const size_t board_accounts_n_methods;
/* social_rpc.c: the Social service (Block, Unblock, ListBlocked, Report). */
extern const rpc_method_entry board_social_methods[];
extern const size_t board_social_n_methods;
/* Start the password workers (after the server exists: they wake it) and
 * the limit table; 0, or -1 with a sentence. Without a store there are no
 * accounts and every Accounts call says so. */
int board_accounts_start(board_service *svc, char *err, size_t errlen);
/* Finish the held calls whose password work is done (after each poll). */
void board_accounts_drain(board_service *svc);
/* Timers: forget expired sessions now and then. */
void board_accounts_tick(board_service *svc, int64_t now);
/* Stop the workers (waiting for the one running: ~0.1 s), answer the calls
 * still held SHUTTING_DOWN; before the server goes. Safe twice. */
void board_accounts_stop(board_service *svc);
/* Who makes a lobby call. 1: signed in, *out its account; 0: a guest (no
 * authorization metadata); -1: refused and answered — a session token that
 * is malformed, unknown, expired or ended (UNKNOWN_SESSION), or a guest on a
 * service with --require-accounts (ACCOUNT_REQUIRED). */
int board_lobby_caller(board_service *svc, rpc_call *call, store_account *out);
/* A guest's name (already trimmed and checked by the lobby): 0, or -1
 * answered — invisible or format characters (NAME_NOT_ALLOWED), a
 * registered name or a look-alike of one (NAME_REGISTERED). */
int board_guest_name(board_service *svc, rpc_call *call, const char *name);
/* The name a signed-in person asked to play under ("" is fine): 0 when it
 * is the account's in any case, else -1 answered (NOT_YOUR_NAME). */
int board_account_name(board_service *svc, rpc_call *call, const store_account *acct,
                       const char *asked);
/* Where a name's statistics and history are kept: an account's name as
 * registered when `name` is one in any case, else name itself. */
void board_stats_name(board_service *svc, const char *name, char *out, size_t len);
/* The account called `name` in any case: 0, or -1 when there is none. */
int board_find_account(board_service *svc, const char *name, store_account *out);

/* --- admin_rpc.c: the Admin service (admin.proto) and the bans --- */
extern const rpc_method_entry board_admin_methods[];
extern const size_t board_admin_n_methods;
/* The admin token read or made (--admin-token-file, or DB.admin-token) and
 * the bans read; after the store is open. 0, or -1 with a sentence. */
int board_admin_start(board_service *svc, char *err, size_t errlen);
/* Timers: a cluster's node reads the bans again (other nodes make some). */
void board_admin_tick(board_service *svc, int64_t now);
void board_admin_free(board_service *svc);
/* The rpc server's admit hook: false when call's address is banned (then
 * answered PERMISSION_DENIED, ADDRESS_BANNED, with the ban's reason). */
bool board_admit(void *svc, rpc_call *call);
/* Whether call shows the admin token, as every Admin call must: true, or
 * false with the call answered (no token kept, a wrong one, too many). */
bool board_admin_caller(board_service *svc, rpc_call *call);
/* The ban in force on account_id, or NULL; and the sentence the person
 * reads ("This account is disabled: REASON"). */
const store_ban *board_account_ban(board_service *svc, int64_t account_id);
void board_account_disabled(const store_ban *b, char *out, size_t len);
/* A password reset code as it is kept: the hash of the code (upper case,
 * without its dashes and spaces) for account_id. 0, or -1 when code cannot
 * be one (its length or letters). */
int board_reset_code_hash(int64_t account_id, const char *code,
                          uint8_t out[STORE_RESET_HASH_BYTES]);
/* The mute in force on account_id's chat, or NULL; and its sentence ("You
 * are muted: REASON"). */
const store_ban *board_account_mute(board_service *svc, int64_t account_id);
void board_account_muted(const store_ban *b, char *out, size_t len);

/* --- wire.c: protobuf builders for replies --- */
/* Fill a summary of r; free its arrays with wire_summary_clear. */
void wire_summary(const room *r, Sungka__V1__GameSummary *out);
void wire_summary_clear(Sungka__V1__GameSummary *s);
/* The same of another cluster node's game, as the store has it (its seats'
 * names; no observers, no departures): strings point into g. */
void wire_remote_summary(const store_remote_game *g, Sungka__V1__GameSummary *out);
/* A seat where "none" is possible: fills *box and returns it for a seat
 * (>= 0), NULL (the field absent) for none. */
Sungka__V1__SeatNumber *wire_seat(int seat, Sungka__V1__SeatNumber *box);
/* --- wire_legacy.c --- */
/* Bring an event unpacked from a stored log of `format` (WIRE_EVENT_FORMAT
 * in board_internal.h lists them) to the current one, in place; what it
 * adds is freed with the message. 0, or -1 when out of memory. */
int wire_upgrade_event(Sungka__V1__Event *ev, unsigned format);

/* Clocks with room for their parts (NULL, the field absent, for a game
 * without clocks). */
typedef struct wire_clocks_msg {
    Sungka__V1__Clocks msg;
    Sungka__V1__SeatNumber running;
    int64_t remaining[GAME_MAX_SEATS];
} wire_clocks_msg;
Sungka__V1__Clocks *wire_clocks(const room_clocks *c, wire_clocks_msg *out);

/* A board message with room for its arrays, so building one allocates
 * nothing (it lives on the caller's stack; use .msg). */
typedef struct wire_board_msg {
    Sungka__V1__BoardState msg;
    Sungka__V1__SeatNumber to_move;
    int32_t cells[GAME_MAX_CELLS];
    int32_t scores[GAME_MAX_SEATS];
} wire_board_msg;
void wire_board(const game_state *st, int rotate_to, wire_board_msg *out);
/* A participant message with room for its parts, like wire_board_msg. */
typedef struct wire_participant_msg {
    Sungka__V1__Participant msg;
    Sungka__V1__SeatNumber seat;
    Sungka__V1__RoundTrip rtt;
    Sungka__V1__Rating rating;
} wire_participant_msg;
/* A rating as the wire shows it: whole points, provisional or not. */
void wire_rating(const store_rating *r, Sungka__V1__Rating *out);
void wire_participant(const participant *p, wire_participant_msg *out);

/* board_metrics.c: a refusal counted (rpc_server_set_refusal_hook's; user
 * is the service). */
void board_metrics_refusal(void *user, rpc_code code, const char *reason);
/* board_metrics.c: a command read from a Play stream counted, by its name
 * ("move", "abort"...; static). */
void board_metrics_play_command(board_service *svc, const char *command);

#endif /* SUNGKA_BOARD_RPC_H */
