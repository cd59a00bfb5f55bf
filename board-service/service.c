/*
 * service.c — the board service's RPC surface and its event loop.
 *
 * Register (the lobby) and Board (one game, named by the caller's seat token)
 * requests arrive here on the loop thread, are validated, and are handed to
 * the room they concern. The loop polls the server's completion queue with a
 * deadline at the next timer (pings, departures), so timers need no thread.
 */
#include <ctype.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "accounts.h"
#include "board_rpc.h"
#include "grpc/health/v1/health.pb-c.h"
#include "text.h"
#include "version.h"

#define LOOP_SLICE_MS 200     /* longest sleep, so a stop request is seen soon */
#define EMPTY_GAME_TTL_MS (10 * 60 * 1000)
#define TRIM_AFTER_RELEASED 256   /* participants and games freed before a trim */

int64_t board_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t board_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void board_log(board_service *svc, const char *fmt, ...)
{
    FILE *out = svc->cfg.log ? svc->cfg.log : stderr;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
    fprintf(out, "%s ", stamp);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    fflush(out);
}

const char *board_echo(const char *in, char *buf, size_t len)
{
    text_escape(in, buf, len);
    return buf;
}

void board_config_defaults(board_config *cfg)
{
    if (!cfg->listen)
        cfg->listen = "127.0.0.1:7070";
    if (cfg->ping_interval_ms <= 0)
        cfg->ping_interval_ms = 2000;
    if (cfg->ping_timeout_ms <= 0)
        cfg->ping_timeout_ms = 10000;
    if (cfg->lease_ms <= 0)
        cfg->lease_ms = 10000;
    if (cfg->relay_after <= 0)
        cfg->relay_after = 100;
    if (cfg->grace_ms <= 0)
        cfg->grace_ms = 60000;
    if (cfg->max_games <= 0)
        cfg->max_games = 1000;
    if (cfg->max_games_per_client <= 0)
        cfg->max_games_per_client = 100;
    if (cfg->max_participants <= 0)
        cfg->max_participants = 10000;   /* a popular game: joins cost O(1) */
    if (cfg->max_message_bytes <= 0)
        cfg->max_message_bytes = 1 << 20;
    if (cfg->max_request_bytes <= 0)
        cfg->max_request_bytes = 64 << 10;
    if (cfg->max_client_streams <= 0)
        cfg->max_client_streams = 256;
    if (cfg->max_client_observers <= 0)
        cfg->max_client_observers = 256;
    if (cfg->client_join_rate <= 0)
        cfg->client_join_rate = 20;
    if (cfg->client_chat_rate <= 0)
        cfg->client_chat_rate = 20;
    if (cfg->max_streams <= 0)
        cfg->max_streams = 64;
    if (cfg->chat_length <= 0)
        cfg->chat_length = 500;
    if (cfg->chat_rate <= 0)
        cfg->chat_rate = 5;
    if (cfg->move_rate <= 0)
        cfg->move_rate = 200;
    if (cfg->bot_think_ms <= 0)
        cfg->bot_think_ms = 1000;
    if (cfg->first_move_ms <= 0)
        cfg->first_move_ms = 30000;
    if (cfg->session_days <= 0)
        cfg->session_days = 30;
    if (cfg->password_workers <= 0)
        cfg->password_workers = 2;
    if (cfg->password_queue <= 0)
        cfg->password_queue = 32;
    if (cfg->signin_failures <= 0)
        cfg->signin_failures = 5;
    if (cfg->client_signin_failures <= 0)
        cfg->client_signin_failures = 20;
    if (cfg->client_registrations <= 0)
        cfg->client_registrations = 10;
    if (!cfg->log)
        cfg->log = stderr;
}

/* ---------------------------------------------------------------- registry */

/* The participant holding `token`, in any game: the token alone names the
 * game and the seat, so it can act nowhere else. */
static participant *find_token(board_service *svc, const char *token)
{
    return person_index_find_token(&svc->tokens, token);
}

void board_let_go(board_service *svc, room *r, const char *why)
{
    int i = board_rooms_index(svc, r);
    if (i < 0)
        return;
    room_close_streams(r, why);
    board_rooms_remove(svc, i);
}

/* Trim and check a player name: 1..32 printable characters. */
static int clean_name(const char *in, char *out, size_t outlen, char *err, size_t errlen)
{
    while (*in == ' ')
        in++;
    size_t len = strlen(in);
    while (len > 0 && in[len - 1] == ' ')
        len--;
    char why[64];
    if (len >= outlen) {
        snprintf(err, errlen, "a name must be 1..%d characters", BOARD_NAME_MAX);
        return -1;
    }
    memcpy(out, in, len);
    out[len] = '\0';
    if (text_check(out, why, sizeof why) != 0) {
        snprintf(err, errlen, "the name %s", why);
        return -1;
    }
    size_t chars = text_chars(out);
    if (chars == 0 || chars > BOARD_NAME_MAX) {
        snprintf(err, errlen, "a name must be 1..%d characters", BOARD_NAME_MAX);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------- the rooms' way out: rpc */

/* The reason a program reads beside a status (RPC_REASON_KEY trailing
 * metadata; proto: ErrorReason), when nothing more precise is known. */
static const char *reason_of(rpc_code code)
{
    switch (code) {
    case RPC_INVALID_ARGUMENT: return "BAD_REQUEST";
    case RPC_NOT_FOUND: return "NOT_FOUND";
    case RPC_ALREADY_EXISTS: return "NAME_TAKEN";
    case RPC_PERMISSION_DENIED: return "NOT_PERMITTED";
    case RPC_RESOURCE_EXHAUSTED: return "LIMIT_REACHED";
    case RPC_FAILED_PRECONDITION: return "WRONG_STATE";
    case RPC_OUT_OF_RANGE: return "PAST_END_OF_LOG";
    case RPC_UNAUTHENTICATED: return "UNKNOWN_TOKEN";
    case RPC_UNAVAILABLE: return "UNAVAILABLE";
    case RPC_UNIMPLEMENTED: return "UNKNOWN_METHOD";
    default: return "INTERNAL";
    }
}

void board_fail(rpc_call *call, rpc_code code, const char *message)
{
    rpc_call_finish_reason(call, code, reason_of(code), message);
}

/* A room's refusal (or a stream's end) as a status and a reason. */
static const struct {
    rpc_code code;
    const char *reason;        /* NULL: reason_of(code) */
} room_statuses[] = {
    [-ROOM_OK] = {RPC_OK, NULL},
    [-ROOM_E_INVALID] = {RPC_INVALID_ARGUMENT, NULL},
    [-ROOM_E_NOT_FOUND] = {RPC_NOT_FOUND, NULL},
    [-ROOM_E_TAKEN] = {RPC_ALREADY_EXISTS, NULL},
    [-ROOM_E_DENIED] = {RPC_PERMISSION_DENIED, NULL},
    [-ROOM_E_LIMIT] = {RPC_RESOURCE_EXHAUSTED, NULL},
    [-ROOM_E_STATE] = {RPC_FAILED_PRECONDITION, NULL},
    [-ROOM_E_RANGE] = {RPC_OUT_OF_RANGE, NULL},
    [-ROOM_E_STORE] = {RPC_UNAVAILABLE, "NOT_STORED"},
    [-ROOM_E_GONE] = {RPC_UNAVAILABLE, "DEPARTED"},
    [-ROOM_E_REPLACED] = {RPC_ABORTED, "REPLACED"},
    [-ROOM_E_CLOSING] = {RPC_UNAVAILABLE, "SHUTTING_DOWN"},
    [-ROOM_E_TURN] = {RPC_FAILED_PRECONDITION, "NOT_YOUR_TURN"},
    [-ROOM_E_FULL] = {RPC_RESOURCE_EXHAUSTED, "GAME_FULL"},
};

static void refuse(rpc_call *call, room_rc rc, const char *why)
{
    rpc_code code = room_statuses[-rc].code;
    if (code == RPC_OK) {
        rpc_call_finish(call, RPC_OK, why);
        return;
    }
    const char *reason = room_statuses[-rc].reason;
    rpc_call_finish_reason(call, code, reason ? reason : reason_of(code), why);
}

/* A game whose memory could not be stored takes no calls until it is
 * reloaded from its log (recovery.c): try again, as while a game moves
 * between nodes. */
static bool reloading(rpc_call *call, const room *r)
{
    if (!r->diverged)
        return false;
    char msg[96];
    snprintf(msg, sizeof msg, "game %s is being reloaded from its stored log; try again", r->id);
    rpc_call_finish_reason(call, RPC_UNAVAILABLE, "GAME_MOVING", msg);
    return true;
}

/* A Subscribe call ended (client gone, or shutdown): tell its room. */
static void stream_done(rpc_call *call, bool client_gone, void *user)
{
    (void)client_gone;
    room_stream_ended(user, call);
}

/* A pending Move's client went away before its commit. */
static void move_gone(rpc_call *call, bool client_gone, void *svc)
{
    (void)client_gone;
    room_move_abandoned(svc, call);
}

static int io_send(void *stream, const void *data, size_t len)
{
    return rpc_call_send_packed(stream, data, len);
}

static void io_finish(void *stream, room_rc rc, const char *why)
{
    rpc_call_on_done(stream, NULL, NULL);     /* the room has let it go */
    refuse(stream, rc, why);
}

static void io_move_done(void *reply, room_rc rc, uint64_t seq, const char *why)
{
    rpc_call_on_done(reply, NULL, NULL);
    if (rc != ROOM_OK) {
        refuse(reply, rc, why);
        return;
    }
    Sungka__V1__MoveResponse answer = SUNGKA__V1__MOVE_RESPONSE__INIT;
    answer.seq = seq;
    rpc_call_reply(reply, &answer.base);
}

static const room_io rpc_io = {io_send, io_finish, io_move_done};

/* ---------------------------------------------------------------- Register */

/* The other nodes' games a cluster's lobby shows at most. */
#define MAX_REMOTE_LISTED 1000

static void list_games(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__ListGamesRequest *req = (const void *)request;
    Sungka__V1__ListGamesResponse reply = SUNGKA__V1__LIST_GAMES_RESPONSE__INIT;
    /* A cluster's node lists the other nodes' games too, as the store has them. */
    bool cluster = svc->store && store_shared(svc->store);
    store_remote_game *remote = NULL;
    int n_remote = 0;
    if (cluster && store_remote_games(svc->store, MAX_REMOTE_LISTED, &remote, &n_remote) != 0)
        board_log(svc, "cannot list the cluster's games: %s", store_last_error(svc->store));
    size_t cap = (size_t)svc->n_rooms + (size_t)n_remote + 1;
    Sungka__V1__GameSummary *sums = calloc(cap, sizeof *sums);
    Sungka__V1__GameSummary **ptrs = calloc(cap, sizeof *ptrs);
    if (!sums || !ptrs) {
        free(sums);
        free(ptrs);
        free(remote);
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    size_t n = 0;
    for (int i = 0; i < svc->n_rooms; i++) {
        room *r = svc->rooms[i];
        if (req->kind[0] && strcmp(req->kind, r->kind->name) != 0)
            continue;
        if (req->status && (int)req->status != (int)r->status)
            continue;
        wire_summary(r, &sums[n]);
        if (cluster)
            sums[n].endpoint = svc->endpoint;
        ptrs[n] = &sums[n];
        n++;
    }
    for (int i = 0; i < n_remote; i++) {
        const store_game_info *g = &remote[i].game;
        if (req->kind[0] && strcmp(req->kind, g->kind) != 0)
            continue;
        if (req->status && (int)req->status != g->status)
            continue;
        wire_remote_summary(&remote[i], &sums[n]);
        ptrs[n] = &sums[n];
        n++;
    }
    reply.n_games = n;
    reply.service_version = (char *)SUNGKA_VERSION;
    reply.games = ptrs;
    rpc_call_reply(call, &reply.base);
    for (size_t i = 0; i < n; i++)
        wire_summary_clear(&sums[i]);
    free(sums);
    free(ptrs);
    free(remote);
}

/* Record a new game in the store (its moves and result follow as it goes). */
static int store_room(board_service *svc, const room *r)
{
    store_game_info g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "%s", r->id);
    snprintf(g.kind, sizeof g.kind, "%s", r->kind->name);
    snprintf(g.title, sizeof g.title, "%s", r->title);
    g.n_options = r->kind->n_options;
    for (int i = 0; i < g.n_options && i < STORE_MAX_OPTIONS; i++) {
        snprintf(g.options[i].name, sizeof g.options[i].name, "%s", r->kind->options[i].name);
        g.options[i].value = r->opts.value[i];
    }
    g.autostart = r->autostart;
    g.per_move_ms = r->tc.per_move_ms;
    g.base_ms = r->tc.base_ms;
    g.increment_ms = r->tc.increment_ms;
    g.rated = r->rated;
    g.bot_takes_over = r->bot_takes_over;
    g.bot_level = r->bot_level;
    g.seats = game_seats(&r->state);
    g.status = ROOM_WAITING;
    g.created_ms = board_wall_ms();
    return store_game_create(svc->store, &g);
}

/* A request's options over the kind's defaults: each at most once, so a
 * request cannot pile up thousands of them or say two things of one. */
static int read_options(const game_kind *kind, Sungka__V1__GameOption **options, size_t n,
                        game_options *opts, char *err, size_t errlen)
{
    game_options_default(kind, opts);
    if (n > (size_t)kind->n_options) {
        snprintf(err, errlen, "%s takes at most %d options, not %zu", kind->name,
                 kind->n_options, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char name[48];
        board_echo(options[i]->name, name, sizeof name);
        for (size_t j = 0; j < i; j++) {
            if (strcmp(options[i]->name, options[j]->name) == 0) {
                snprintf(err, errlen, "the option '%s' is given twice", name);
                return -1;
            }
        }
        if (game_options_set(kind, opts, name, options[i]->value, err, errlen) != GAME_OK)
            return -1;
    }
    return 0;
}

/* Make a game from a kind name and options (validated, with sentences) for
 * the client `call` came from, within the per-client cap of open games. */
static room *new_room(board_service *svc, rpc_call *call, const char *kind_name,
                      Sungka__V1__GameOption **options, size_t n_options, const char *title_in,
                      bool autostart, const Sungka__V1__TimeControl *clock, bool rated,
                      int bot_takes_over_level, rpc_code *code, char *err, size_t errlen)
{
    char creator[BOARD_HOST_BYTES];
    board_peer_host(call, creator, sizeof creator);
    int open = 0;
    for (int i = 0; i < svc->n_rooms; i++) {
        const room *o = svc->rooms[i];
        open += (o->status == ROOM_WAITING || o->status == ROOM_RUNNING) &&
                strcmp(o->creator, creator) == 0;
    }
    if (open >= svc->cfg.max_games_per_client) {
        *code = RPC_RESOURCE_EXHAUSTED;
        snprintf(err, errlen, "this client already has %d open games (the limit)", open);
        return NULL;
    }
    *code = RPC_INVALID_ARGUMENT;
    const game_kind *kind = game_kind_find(kind_name);
    if (!kind) {
        char echo[48];
        int len = snprintf(err, errlen, "unknown game kind '%s' (kinds:",
                           board_echo(kind_name, echo, sizeof echo));
        for (int i = 0; i < game_kind_count() && len < (int)errlen; i++)
            len += snprintf(err + len, errlen - (size_t)len, " %s", game_kind_at(i)->name);
        if (len < (int)errlen)
            snprintf(err + len, errlen - (size_t)len, ")");
        return NULL;
    }
    game_options opts;
    if (read_options(kind, options, n_options, &opts, err, errlen) != 0)
        return NULL;
    /* docs/rules.md: where a kind lets the service choose the first player
     * ("first=-1", congklak), the choice is random. */
    if (game_option(kind, &opts, "first", 0) == -1) {
        unsigned char coin = 0;
        if (getrandom(&coin, 1, 0) != 1)
            coin = (unsigned char)board_now_ms();
        game_options_set(kind, &opts, "first", coin & 1, err, errlen);
    }
    char why[64];
    if (strlen(title_in) > BOARD_TITLE_MAX) {
        snprintf(err, errlen, "a title must be at most %d bytes", BOARD_TITLE_MAX);
        return NULL;
    }
    if (text_check(title_in, why, sizeof why) != 0) {
        snprintf(err, errlen, "the title %s", why);
        return NULL;
    }
    *code = RPC_RESOURCE_EXHAUSTED;
    if (svc->n_rooms >= svc->cfg.max_games) {
        snprintf(err, errlen, "the service hosts too many games");
        return NULL;
    }
    char id[BOARD_ID_LEN];
    unsigned number = svc->next_id + 1;
    if (svc->store && store_shared(svc->store) &&
        store_game_next_id(svc->store, &number) != 0) {    /* unique in the cluster */
        *code = RPC_UNAVAILABLE;
        snprintf(err, errlen, "cannot number a new game: %s", store_last_error(svc->store));
        return NULL;
    }
    svc->next_id = number;
    snprintf(id, sizeof id, "%u", number);
    char title[BOARD_TITLE_MAX + 1];
    snprintf(title, sizeof title, "%s", title_in[0] ? title_in : kind->title);
    room *r = room_create(svc, id, kind, &opts, title, autostart);
    if (!r) {
        *code = RPC_INVALID_ARGUMENT;
        snprintf(err, errlen, "these options do not make a game");
        return NULL;
    }
    /* Seconds on the wire, bounded before they become milliseconds. */
    time_control tc = {0, 0, 0};
    if (clock && (clock->per_move_s > TC_PER_MOVE_MAX_S || clock->base_s > TC_BASE_MAX_S ||
                  clock->increment_s > TC_INCREMENT_MAX_S || clock->per_move_s < 0 ||
                  clock->base_s < 0 || clock->increment_s < 0)) {
        tc.per_move_ms = -1;          /* out of range: room_set_time_control says so */
    } else if (clock) {
        tc = (time_control){clock->per_move_s * 1000, clock->base_s * 1000,
                            clock->increment_s * 1000};
    }
    if (room_set_time_control(r, &tc, err, errlen) != 0 ||
        (rated && room_set_rated(r, err, errlen) != ROOM_OK)) {
        *code = RPC_INVALID_ARGUMENT;
        room_free(r);
        return NULL;
    }
    r->bot_takes_over = bot_takes_over_level > 0;
    r->bot_level = bot_takes_over_level;
    r->created_ms = board_now_ms();
    snprintf(r->creator, sizeof r->creator, "%s", creator);
    if (svc->store && store_room(svc, r) != 0) {
        *code = RPC_UNAVAILABLE;
        snprintf(err, errlen, "cannot store the new game: %s", store_last_error(svc->store));
        room_free(r);
        return NULL;
    }
    if (board_rooms_add(svc, r) != 0) {     /* stored: a restart finds it empty */
        snprintf(err, errlen, "out of memory");
        room_free(r);
        return NULL;
    }
    board_log(svc, "game %s created: %s", id, kind->name);
    return r;
}

static void create_game(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__CreateGameRequest *req = (const void *)request;
    char err[256];
    rpc_code code;
    store_account acct;
    int who = board_lobby_caller(svc, call, &acct);
    if (who < 0)
        return;
    if (req->bots < 0 || req->bot_level < 0 || req->bot_level > 10) {
        board_fail(call, RPC_INVALID_ARGUMENT, "bots must be 0 or more, bot_level 1..10");
        return;
    }
    if (req->rated && req->bots > 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, "games against the service's bots are unrated: "
                                               "ask for bots or for a rated game, not both");
        return;
    }
    if (req->rated && who == 0) {
        rpc_call_finish_reason(call, RPC_UNAUTHENTICATED, "ACCOUNT_REQUIRED",
                               "rated games are for signed-in players: sign in to create one");
        return;
    }
    room *r = new_room(svc, call, req->kind, req->options, req->n_options, req->title,
                       req->autostart, req->time_control, req->rated,
                       req->bot_takes_over ? (req->bot_level ? req->bot_level : 5) : 0, &code,
                       err, sizeof err);
    if (!r) {
        board_fail(call, code, err);
        return;
    }
    if (req->bots > 0) {
        if (req->bots >= game_seats(&r->state)) {
            snprintf(err, sizeof err, "bots can fill at most %d of the %d seats",
                     game_seats(&r->state) - 1, game_seats(&r->state));
            board_fail(call, RPC_INVALID_ARGUMENT, err);
            return;     /* the empty game goes away by itself */
        }
        if (board_bots_spawn(svc, r, req->bots, req->bot_level ? req->bot_level : 5, err,
                             sizeof err) != 0) {
            board_fail(call, RPC_FAILED_PRECONDITION, err);
            return;
        }
    }
    Sungka__V1__CreateGameResponse reply = SUNGKA__V1__CREATE_GAME_RESPONSE__INIT;
    Sungka__V1__GameSummary summary;
    wire_summary(r, &summary);
    reply.game = &summary;
    rpc_call_reply(call, &reply.base);
    wire_summary_clear(&summary);
}

static void join_game(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__JoinGameRequest *req = (const void *)request;
    char err[256], name[BOARD_NAME_BYTES];
    rpc_code code = RPC_OK;
    /* Another node's game: join it there; a large audience: watch it at a
     * relay (before anything counts here). */
    room *known = req->any_of_kind[0] ? NULL : board_find_room(svc, req->game_id);
    if (!req->any_of_kind[0] && !known && board_cluster_redirect_game(svc, call, req->game_id))
        return;
    if (known && reloading(call, known))
        return;
    if (known && req->observe && !req->relay && board_send_to_relay(svc, call, known))
        return;
    /* Signed in: the account's name, as registered. A guest: any name that
     * is nobody's account and does not look like one. */
    store_account acct;
    int who = board_lobby_caller(svc, call, &acct);
    if (who < 0)
        return;
    if (who > 0) {
        if (board_account_name(svc, call, &acct, req->name) != 0)
            return;
        snprintf(name, sizeof name, "%s", acct.name);
    } else if (clean_name(req->name, name, sizeof name, err, sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    } else if (board_guest_name(svc, call, name) != 0) {
        return;
    }
    board_client *from = board_client_of(svc, call);
    if (!from) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    if (board_client_may_join(svc, from, req->observe, err, sizeof err) != 0) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, err);
        return;
    }
    room *r = NULL;
    if (req->any_of_kind[0]) {
        /* The lobby's "any open game of kind K", made when there is none. */
        for (int i = 0; i < svc->n_rooms && !r; i++)
            if (!svc->rooms[i]->diverged &&
                strcmp(svc->rooms[i]->kind->name, req->any_of_kind) == 0 &&
                room_has_open_seat(svc->rooms[i]) && !room_find_name(svc->rooms[i], name))
                r = svc->rooms[i];
        if (!r)
            r = new_room(svc, call, req->any_of_kind, req->options, req->n_options, "", false,
                         NULL, false, 0, &code, err, sizeof err);
        if (!r) {
            board_fail(call, code, err);
            return;
        }
    } else if (!(r = known)) {
        char echo[48];
        snprintf(err, sizeof err, "there is no game '%s'",
                 board_echo(req->game_id, echo, sizeof echo));
        board_fail(call, RPC_NOT_FOUND, err);
        return;
    }
    participant *p;
    room_rc rc = room_join_as(r, name, who > 0 ? acct.id : 0, req->observe, from, &p, err,
                              sizeof err);
    if (rc != ROOM_OK) {
        refuse(call, rc, err);
        return;
    }
    Sungka__V1__BoardRef ref = SUNGKA__V1__BOARD_REF__INIT;
    Sungka__V1__GameSummary summary;
    Sungka__V1__SeatNumber seat;
    wire_summary(r, &summary);
    ref.endpoint = svc->endpoint;
    ref.game_id = r->id;
    ref.token = p->token;
    ref.seat = wire_seat(p->seat, &seat);
    ref.game = &summary;
    rpc_call_reply(call, &ref.base);
    wire_summary_clear(&summary);
}

static const rpc_method_entry register_methods[] = {
    {"ListGames", list_games, false, false},
    {"CreateGame", create_game, false, false},
    {"JoinGame", join_game, false, false},
    {"GetPlayerStats", history_player_stats, false, false},
    {"Leaderboard", history_leaderboard, false, false},
    {"ListMatches", history_list_matches, false, false},
    {"GetMatch", history_get_match, false, false},
    {"RatingHistory", history_rating_history, false, false},
};

/* ------------------------------------------------------------------- Board */

/* Every Board call names its game and seat by the caller's token: the
 * participant it names, or NULL once the call is answered UNAUTHENTICATED. */
static participant *caller(board_service *svc, rpc_call *call)
{
    char token[BOARD_TOKEN_HEX + 8] = "";
    participant *p = NULL;
    if (rpc_call_bearer(call, token, sizeof token) >= 0)
        p = find_token(svc, token);
    if (!p && board_cluster_redirect_token(svc, call, token))
        return NULL;
    if (p && reloading(call, p->room))
        return NULL;
    if (!p && strncmp(token, ACCOUNTS_SESSION_PREFIX, strlen(ACCOUNTS_SESSION_PREFIX)) == 0)
        board_fail(call, RPC_UNAUTHENTICATED,
                   "that is a session token: Board calls take the seat token JoinGame "
                   "answered (authorization: Bearer <seat token>)");
    else if (!p)
        board_fail(call, RPC_UNAUTHENTICATED,
                        "missing or unknown seat token (send authorization: Bearer <token>)");
    return p;
}

/* The client address a call counts against, or NULL once it is answered. */
static board_client *client_of(board_service *svc, rpc_call *call)
{
    board_client *c = board_client_of(svc, call);
    if (!c)
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
    return c;
}

/* Answer a room function's result: the method's (empty) response, or its
 * refusal. */
static void answer(rpc_call *call, room_rc rc, const char *err, const ProtobufCMessage *done)
{
    if (rc != ROOM_OK) {
        refuse(call, rc, err);
        return;
    }
    rpc_call_reply(call, done);
}

/* Give p's events to `stream` (a call, or a leg of one), from after_seq. */
static void attach_stream(rpc_call *stream, participant *p, board_client *from,
                          uint64_t after_seq)
{
    char err[256];
    /* Watch its end first: the room may cut it off (io_finish) before it
     * returns, which unhooks this again. */
    rpc_call_on_done(stream, stream_done, p);
    room_rc rc = room_subscribe(p->room, p, stream, from, after_seq, err, sizeof err);
    if (rc != ROOM_OK) {
        rpc_call_on_done(stream, NULL, NULL);
        refuse(stream, rc, err);
    }
}

static void subscribe(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    const Sungka__V1__SubscribeRequest *req = (const void *)request;
    participant *p = caller(svc, call);
    board_client *from = p ? client_of(svc, call) : NULL;
    if (from)
        attach_stream(call, p, from, req->after_seq);
}

/* Most subscriptions one SubscribeMany call may carry: a relay with more
 * opens more calls (each is one HTTP/2 stream of the connection's 64). */
#define MAX_SUBSCRIPTIONS 1000

/* Many subscriptions on one stream: each is a leg of the call (rpc.h),
 * attached to its participant as Subscribe attaches a call, so the rooms
 * neither know nor care; an event for many legs goes out once. */
static void subscribe_many(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    const Sungka__V1__SubscribeManyRequest *req = (const void *)request;
    board_client *from = client_of(svc, call);
    if (!from)
        return;
    if (req->n_subscriptions < 1 || req->n_subscriptions > MAX_SUBSCRIPTIONS) {
        char err[96];
        snprintf(err, sizeof err, "a SubscribeMany carries 1..%d subscriptions, not %zu",
                 MAX_SUBSCRIPTIONS, req->n_subscriptions);
        refuse(call, ROOM_E_INVALID, err);
        return;
    }
    for (size_t i = 0; i < req->n_subscriptions; i++) {
        const Sungka__V1__Subscription *sub = req->subscriptions[i];
        rpc_call *leg = rpc_call_open_leg(call, (uint32_t)i);
        if (!leg) {
            refuse(call, ROOM_E_LIMIT, "out of memory");
            return;
        }
        participant *p = find_token(svc, sub->token);
        if (!p) {
            board_fail(leg, RPC_UNAUTHENTICATED,
                       "unknown seat token: each subscription takes the token JoinGame "
                       "answered");
            continue;
        }
        attach_stream(leg, p, from, sub->after_seq);
    }
}

static void get_board(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    (void)request;
    participant *p = caller(svc, call);
    if (!p)
        return;
    Sungka__V1__GetBoardResponse reply = SUNGKA__V1__GET_BOARD_RESPONSE__INIT;
    wire_board_msg board;
    wire_board(&p->room->state, p->seat, &board);
    reply.board = &board.msg;
    reply.rotation = p->seat < 0 ? 0 : p->seat;
    rpc_call_reply(call, &reply.base);
}

/* Batched: the turn hook commits the turn's moves together. */
static void move(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    const Sungka__V1__MoveRequest *req = (const void *)request;
    participant *p = caller(svc, call);
    char err[256];
    if (!p)
        return;
    rpc_call_on_done(call, move_gone, svc);     /* io_move_done unhooks it */
    room_rc rc = room_move(p->room, p, req->move, call, err, sizeof err);
    if (rc != ROOM_OK) {
        rpc_call_on_done(call, NULL, NULL);
        refuse(call, rc, err);
    }
}

static void chat(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    const Sungka__V1__ChatRequest *req = (const void *)request;
    participant *p = caller(svc, call);
    board_client *from = p ? client_of(svc, call) : NULL;
    char err[256];
    if (!from)
        return;
    room_rc rc = room_chat(p->room, p, from, req->text, req->to, err, sizeof err);
    Sungka__V1__ChatResponse done = SUNGKA__V1__CHAT_RESPONSE__INIT;
    answer(call, rc, err, &done.base);
}

static void ready(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    const Sungka__V1__ReadyRequest *req = (const void *)request;
    participant *p = caller(svc, call);
    char err[256];
    if (!p)
        return;
    room_rc rc = room_ready(p->room, p, req->ready, err, sizeof err);
    Sungka__V1__ReadyResponse done = SUNGKA__V1__READY_RESPONSE__INIT;
    answer(call, rc, err, &done.base);
}

static void sit(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    const Sungka__V1__SitRequest *req = (const void *)request;
    participant *p = caller(svc, call);
    char err[256];
    if (!p)
        return;
    if (req->seat && req->seat->value < 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, "the seat must be 0 or more (leave it out for any)");
        return;
    }
    int seat = req->seat ? req->seat->value : -1;   /* -1: any open seat, for the room */
    room_rc rc = room_sit(p->room, p, seat, err, sizeof err);
    Sungka__V1__SitResponse done = SUNGKA__V1__SIT_RESPONSE__INIT;
    answer(call, rc, err, &done.base);
}

static void stand(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    (void)request;
    participant *p = caller(svc, call);
    char err[256];
    if (!p)
        return;
    room_rc rc = room_stand(p->room, p, err, sizeof err);
    Sungka__V1__StandResponse done = SUNGKA__V1__STAND_RESPONSE__INIT;
    answer(call, rc, err, &done.base);
}

/* Resign, Abort and OfferDraw: an action on the caller's game with nothing
 * to say but done. */
static void act(rpc_call *call, void *svc, room_rc (*fn)(room *, participant *, char *, size_t),
                const ProtobufCMessage *done)
{
    participant *p = caller(svc, call);
    char err[256];
    if (p)
        answer(call, fn(p->room, p, err, sizeof err), err, done);
}

static void resign(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    (void)request;
    Sungka__V1__ResignResponse done = SUNGKA__V1__RESIGN_RESPONSE__INIT;
    act(call, svc, room_resign, &done.base);
}

static void abort_game(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    (void)request;
    Sungka__V1__AbortResponse done = SUNGKA__V1__ABORT_RESPONSE__INIT;
    act(call, svc, room_abort, &done.base);
}

static void offer_draw(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    (void)request;
    Sungka__V1__OfferDrawResponse done = SUNGKA__V1__OFFER_DRAW_RESPONSE__INIT;
    act(call, svc, room_offer_draw, &done.base);
}

static void claim(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    (void)request;
    Sungka__V1__ClaimResponse done = SUNGKA__V1__CLAIM_RESPONSE__INIT;
    act(call, svc, room_claim, &done.base);
}

static void answer_draw(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    const Sungka__V1__AnswerDrawRequest *req = (const void *)request;
    participant *p = caller(svc, call);
    char err[256];
    if (!p)
        return;
    room_rc rc = room_answer_draw(p->room, p, req->accept, err, sizeof err);
    Sungka__V1__AnswerDrawResponse done = SUNGKA__V1__ANSWER_DRAW_RESPONSE__INIT;
    answer(call, rc, err, &done.base);
}

/* A rematch of r (every seat accepted): the same settings, each player one
 * seat on, everyone ready; the service's bots get new players. */
static room *start_rematch(board_service *svc, rpc_call *call, room *r, char *err,
                           size_t errlen)
{
    Sungka__V1__GameOption opt[GAME_MAX_OPTIONS], *optp[GAME_MAX_OPTIONS];
    for (int i = 0; i < r->kind->n_options; i++) {
        sungka__v1__game_option__init(&opt[i]);
        opt[i].name = (char *)r->kind->options[i].name;
        opt[i].value = r->opts.value[i];
        optp[i] = &opt[i];
    }
    Sungka__V1__TimeControl tc = SUNGKA__V1__TIME_CONTROL__INIT;
    tc.per_move_s = r->tc.per_move_ms / 1000;
    tc.base_s = r->tc.base_ms / 1000;
    tc.increment_s = r->tc.increment_ms / 1000;
    rpc_code code;
    room *next = new_room(svc, call, r->kind->name, optp, (size_t)r->kind->n_options,
                          r->title, true, room_has_clocks(r) ? &tc : NULL, r->rated,
                          r->bot_takes_over ? r->bot_level : 0, &code, err, errlen);
    if (!next)
        return NULL;
    int seats = game_seats(&r->state);
    for (int t = 0; t < seats; t++) {        /* new seat t: the old seat before it */
        const participant *h = r->seat_holder[(t + seats - 1) % seats];
        participant *np;
        if (room_join_as(next, h->name, h->account_id, false, NULL, &np, err, errlen) !=
            ROOM_OK)
            return NULL;                       /* the unfinished game goes away by itself */
        if (h->bot_level > 0 && board_bots_adopt(svc, next, np, h->bot_level, err, errlen))
            return NULL;
    }
    room_rematch_started(r, next->id);
    return next;
}

static void rematch(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    const Sungka__V1__RematchRequest *req = (const void *)request;
    participant *p = caller(svc, call);
    char err[256];
    if (!p)
        return;
    room *r = p->room, *next = NULL;
    bool all = false;
    room_rc rc = ROOM_OK;
    if (r->rematch_id[0] && !req->decline) {   /* started: your seat in it */
        next = board_find_room(svc, r->rematch_id);
        if (!next) {
            snprintf(err, sizeof err, "the rematch, game %s, is over", r->rematch_id);
            rc = ROOM_E_NOT_FOUND;
        }
    } else {
        rc = room_rematch(r, p, req->decline, &all, err, sizeof err);
        if (rc == ROOM_OK && all && !(next = start_rematch(svc, call, r, err, sizeof err)))
            rc = ROOM_E_LIMIT;
    }
    Sungka__V1__RematchResponse done = SUNGKA__V1__REMATCH_RESPONSE__INIT;
    Sungka__V1__BoardRef ref = SUNGKA__V1__BOARD_REF__INIT;
    Sungka__V1__SeatNumber seat;
    participant *mine = next ? room_find_name(next, p->name) : NULL;
    if (mine) {
        ref.endpoint = ((board_service *)svc)->endpoint;
        ref.game_id = next->id;
        ref.token = mine->token;
        ref.seat = wire_seat(mine->seat, &seat);
        done.board = &ref;
    }
    answer(call, rc, err, &done.base);
}

/* Batched: a ping answer touches no game state worth a commit. */
static void ping(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    const Sungka__V1__PingRequest *req = (const void *)request;
    participant *p = caller(svc, call);
    if (!p)
        return;
    room_pong(p, req->nonce);
    Sungka__V1__PingResponse done = SUNGKA__V1__PING_RESPONSE__INIT;
    answer(call, ROOM_OK, NULL, &done.base);
}

static void leave(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    (void)request;
    participant *p = caller(svc, call);
    if (!p)
        return;
    Sungka__V1__LeaveResponse done = SUNGKA__V1__LEAVE_RESPONSE__INIT;
    answer(call, ROOM_OK, NULL, &done.base);      /* answer first: leaving frees the participant */
    room_leave(p->room, p);
}

static const rpc_method_entry board_methods[] = {
    {"Subscribe", subscribe, true, false},
    {"SubscribeMany", subscribe_many, true, false},
    {"GetBoard", get_board, false, false},
    {"Move", move, false, true},
    {"Chat", chat, false, false},
    {"Ping", ping, false, true},
    {"Leave", leave, false, false},
    {"Ready", ready, false, false},
    {"Sit", sit, false, false},
    {"Stand", stand, false, false},
    {"Resign", resign, false, false},
    {"Abort", abort_game, false, false},
    {"OfferDraw", offer_draw, false, false},
    {"AnswerDraw", answer_draw, false, false},
    {"Claim", claim, false, false},
    {"Rematch", rematch, false, false},
};

/* ------------------------------------------------------------------ Health */

static void health_check(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Grpc__Health__V1__HealthCheckRequest *req = (const void *)request;
    Grpc__Health__V1__HealthCheckResponse reply = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
    bool known = !req->service[0] || strcmp(req->service, "sungka.v1.Register") == 0 ||
                 strcmp(req->service, "sungka.v1.Board") == 0 ||
                 strcmp(req->service, "sungka.v1.Accounts") == 0;
    if (!known) {
        board_fail(call, RPC_NOT_FOUND, "unknown service");
        return;
    }
    /* A cluster's node that cannot renew its lease (its database is out of
     * reach) is about to lose its games: not one to send players to. */
    reply.status = board_cluster_healthy(svc)
                       ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING
                       : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING;
    rpc_call_reply(call, &reply.base);
}

static const rpc_method_entry health_methods[] = {
    {"Check", health_check, false, false},
};

#define N_ENTRIES(a) (sizeof (a) / sizeof (a)[0])

/* The turn hook: whatever a turn's handlers left pending is stored before
 * anything else reads a game or answers a client. */
static void end_turn(void *arg)
{
    board_service *svc = arg;
    room_commit_moves(svc);
    if (svc->n_diverged > 0)
        board_reload_diverged(svc, board_now_ms());
    board_check_replay_or_abort(svc);
}

/* -------------------------------------------------------------------- loop */

int board_create(const board_config *cfg_in, board_service **out, int *port, char *err,
                 size_t errlen)
{
    board_service *svc = calloc(1, sizeof *svc);
    if (!svc) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    svc->cfg = *cfg_in;
    const char *check = getenv("SUNGKA_CHECK_REPLAY");
    if (check && strcmp(check, "1") == 0)
        svc->cfg.check_replay = true;
    svc->io = rpc_io;
    board_config_defaults(&svc->cfg);
    if (person_index_init(&svc->tokens, PERSON_BY_TOKEN) != 0 ||
        person_index_init(&svc->names, PERSON_BY_NAME) != 0) {
        snprintf(err, errlen, "out of memory");
        person_index_free(&svc->tokens);
        free(svc);
        return -1;
    }

    if (!svc->cfg.db || svc->cfg.db[0]) {
        char path[1024];
        if (!svc->cfg.db && store_default_path(path, sizeof path) != 0) {
            snprintf(err, errlen, "cannot make the data directory for %s (use --db PATH)",
                     path);
            goto fail_free;
        }
        if (store_open(svc->cfg.db ? svc->cfg.db : path, &svc->store, err, errlen) != 0)
            goto fail_free;
        /* A cluster's node recovers once it knows its endpoint, below. */
        if (!store_shared(svc->store) && board_recover(svc, err, errlen) != 0)
            goto fail_store;
    }

    rpc_server_options opts = {0};
    const char *tls_files[][2] = {{"--tls-cert", svc->cfg.tls_cert},
                                  {"--tls-key", svc->cfg.tls_key},
                                  {"--tls-client-ca", svc->cfg.tls_client_ca}};
    for (size_t i = 0; i < sizeof tls_files / sizeof tls_files[0]; i++) {
        if (tls_files[i][1] && access(tls_files[i][1], R_OK) != 0) {
            snprintf(err, errlen, "cannot read %s %s: %s", tls_files[i][0], tls_files[i][1],
                     strerror(errno));
            goto fail_store;
        }
    }
    if (!svc->cfg.tls_cert != !svc->cfg.tls_key) {
        snprintf(err, errlen, "TLS needs both --tls-cert and --tls-key");
        goto fail_store;
    }
    opts.tls.cert = svc->cfg.tls_cert;
    opts.tls.key = svc->cfg.tls_key;
    opts.tls.ca = svc->cfg.tls_client_ca;
    /* Let agents ping the transport every few seconds without a strike, and
     * ping idle connections ourselves to find half-open ones. */
    opts.keepalive.time_ms = 10000;
    opts.keepalive.timeout_ms = 5000;
    opts.keepalive.min_recv_ping_ms = 5000;
    opts.max_message_bytes = svc->cfg.max_message_bytes;
    /* Our requests are small (the largest, CreateGame, is a few hundred
     * bytes); a tight cap bounds what one request can make us buffer. */
    opts.max_receive_bytes = svc->cfg.max_request_bytes;
    opts.max_streams_per_conn = svc->cfg.max_streams;
    opts.outbox_limit = 4096;

    if (rpc_server_create(svc->cfg.listen, &opts, &svc->server, port) != 0) {
        board_listen_problem(svc->cfg.listen, svc->cfg.tls_cert != NULL, err, errlen);
        goto fail_store;
    }
    rpc_server_set_turn_hook(svc->server, end_turn, svc);
    if (rpc_server_add_methods(svc->server, &sungka__v1__register__descriptor,
                               register_methods, N_ENTRIES(register_methods), svc) != 0 ||
        rpc_server_add_methods(svc->server, &sungka__v1__board__descriptor, board_methods,
                               N_ENTRIES(board_methods), svc) != 0 ||
        rpc_server_add_methods(svc->server, &sungka__v1__accounts__descriptor,
                               board_accounts_methods, board_accounts_n_methods, svc) != 0 ||
        rpc_server_add_methods(svc->server, &grpc__health__v1__health__descriptor,
                               health_methods, N_ENTRIES(health_methods), svc) != 0 ||
        rpc_server_start(svc->server) != 0) {
        snprintf(err, errlen, "cannot start the RPC server");
        goto fail_server;
    }
    if (board_accounts_start(svc, err, errlen) != 0)
        goto fail_accounts;
    if (svc->cfg.advertise) {
        snprintf(svc->endpoint, sizeof svc->endpoint, "%s", svc->cfg.advertise);
    } else {
        /* host part of the listen address with the bound port */
        const char *colon = strrchr(svc->cfg.listen, ':');
        int hostlen = colon ? (int)(colon - svc->cfg.listen) : (int)strlen(svc->cfg.listen);
        snprintf(svc->endpoint, sizeof svc->endpoint, "%.*s:%d", hostlen, svc->cfg.listen,
                 *port);
    }
    svc->next_ping_ms = board_now_ms() + svc->cfg.ping_interval_ms;
    svc->next_clock_ms = 0;            /* recovered games' clocks: look at once */
    svc->port = *port;
    /* The recovered games' bots connect to the port just bound (a cluster's
     * node starts those of the games it adopts itself). */
    if (svc->store && store_shared(svc->store)) {
        if (board_cluster_start(svc, err, errlen) != 0)
            goto fail_accounts;
    } else {
        board_bots_recover(svc, 0);
    }
    *out = svc;
    return 0;

fail_accounts:
    board_accounts_stop(svc);
fail_server:
    rpc_server_destroy(svc->server);
fail_store:
    board_rooms_free(svc);
    store_close(svc->store);
fail_free:
    person_index_free(&svc->tokens);
    person_index_free(&svc->names);
    free(svc);
    return -1;
}

/* Clocks that fell; then the earliest that may fall next. */
static void run_clocks(board_service *svc, int64_t now)
{
    if (now < svc->next_clock_ms)
        return;
    svc->next_clock_ms = INT64_MAX;
    for (int i = 0; i < svc->n_rooms; i++) {
        room *r = svc->rooms[i];
        room_clock_check(r, now);
        int64_t deadline = room_clock_deadline(r);
        if (deadline < svc->next_clock_ms)
            svc->next_clock_ms = deadline;
    }
}

static void run_timers(board_service *svc)
{
    int64_t now = board_now_ms();
    run_clocks(svc, now);
    board_cluster_tick(svc, now);
    if (svc->n_diverged > 0)
        board_reload_diverged(svc, now);
    if (now < svc->next_ping_ms)
        return;
    svc->next_ping_ms = now + svc->cfg.ping_interval_ms;
    board_bots_reap(svc);
    board_clients_sweep(svc, now);
    board_accounts_tick(svc, now);
    if (svc->released >= TRIM_AFTER_RELEASED) {
        /* glibc keeps freed memory in its arenas (gRPC's threads have their
         * own): 10,000 closed streams left 135 MB resident without this.
         * A trim after a crowd left costs the loop 20-100 ms, once. */
        malloc_trim(0);
        svc->released = 0;
    }
    for (int i = svc->n_rooms - 1; i >= 0; i--) {
        room *r = svc->rooms[i];
        room_tick(r, now);
        if (r->diverged)
            continue;          /* reloaded at the next turn, not removed */
        bool stale_empty = r->status == ROOM_WAITING && r->n_people == 0 &&
                           now - r->created_ms > EMPTY_GAME_TTL_MS;
        if (room_is_idle(r) || stale_empty) {
            board_log(svc, "game %s removed (%s)", r->id, stale_empty ? "nobody joined" : "over");
            if (svc->store && !stale_empty && store_game_forget(svc->store, r->id) != 0)
                board_log(svc, "game %s: %s", r->id, store_last_error(svc->store));
            board_rooms_remove(svc, i);
        }
    }
    board_check_replay_or_abort(svc);   /* what the ticks did */
}

int board_run(board_service *svc)
{
    while (!svc->stop) {
        int64_t next = svc->next_ping_ms < svc->next_clock_ms ? svc->next_ping_ms
                                                             : svc->next_clock_ms;
        int64_t wait = next - board_now_ms();
        if (wait < 0)
            wait = 0;
        if (wait > LOOP_SLICE_MS)
            wait = LOOP_SLICE_MS;
        rpc_server_poll(svc->server, (int)wait);   /* ends with end_turn */
        board_accounts_drain(svc);     /* password work done: answer its calls */
        run_timers(svc);
    }
    board_log(svc, "shutting down");
    board_accounts_stop(svc);
    board_bots_stop(svc);
    for (int i = 0; i < svc->n_rooms; i++)
        room_close_streams(svc->rooms[i], "the board service is shutting down");
    /* Let the final statuses go out before the server cancels what is left. */
    int64_t until = board_now_ms() + 200;
    while (board_now_ms() < until && rpc_server_poll(svc->server, 50) == 0) {
    }
    rpc_server_destroy(svc->server);
    svc->server = NULL;
    return 0;
}

void board_request_stop(board_service *svc)
{
    svc->stop = 1;
}

void board_destroy(board_service *svc)
{
    if (!svc)
        return;
    board_accounts_stop(svc);      /* before the server: it answers held calls */
    if (svc->server)
        rpc_server_destroy(svc->server);
    board_bots_stop(svc);
    board_rooms_free(svc);
    board_clients_free(svc);     /* after the rooms: their people point here */
    free(svc->pending);
    board_cluster_leave(svc);
    store_close(svc->store);
    person_index_free(&svc->tokens);
    person_index_free(&svc->names);
    free(svc);
}
