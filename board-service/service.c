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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "board_internal.h"
#include "grpc/health/v1/health.pb-c.h"

#define LOOP_SLICE_MS 200     /* longest sleep, so a stop request is seen soon */
#define EMPTY_GAME_TTL_MS (10 * 60 * 1000)

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

void board_config_defaults(board_config *cfg)
{
    if (!cfg->listen)
        cfg->listen = "127.0.0.1:7070";
    if (cfg->ping_interval_ms <= 0)
        cfg->ping_interval_ms = 2000;
    if (cfg->ping_timeout_ms <= 0)
        cfg->ping_timeout_ms = 10000;
    if (cfg->grace_ms <= 0)
        cfg->grace_ms = 60000;
    if (cfg->max_games <= 0)
        cfg->max_games = 1000;
    if (cfg->max_games_per_client <= 0)
        cfg->max_games_per_client = 100;
    if (cfg->max_participants <= 0)
        cfg->max_participants = 1000;
    if (cfg->max_message_bytes <= 0)
        cfg->max_message_bytes = 1 << 20;
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
    if (!cfg->log)
        cfg->log = stderr;
}

/* ---------------------------------------------------------------- registry */

static room *find_room(board_service *svc, const char *id)
{
    for (int i = 0; i < svc->n_rooms; i++)
        if (strcmp(svc->rooms[i]->id, id) == 0)
            return svc->rooms[i];
    return NULL;
}

/* The participant holding `token`, in any game: the token alone names the
 * game and the seat, so it can act nowhere else. */
static participant *find_token(board_service *svc, const char *token)
{
    return token_index_find(&svc->tokens, token);
}

static void remove_room(board_service *svc, int index)
{
    room_free(svc->rooms[index]);
    svc->rooms[index] = svc->rooms[--svc->n_rooms];
}

/* Trim and check a player name: 1..32 printable characters (UTF-8 allowed). */
static int clean_name(const char *in, char *out, size_t outlen, char *err, size_t errlen)
{
    while (*in == ' ' || *in == '\t')
        in++;
    size_t len = strlen(in);
    while (len > 0 && (in[len - 1] == ' ' || in[len - 1] == '\t'))
        len--;
    size_t chars = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c < 0x20 || c == 0x7f) {
            snprintf(err, errlen, "a name may not contain control characters");
            return -1;
        }
        chars += (c & 0xc0) != 0x80;    /* count UTF-8 lead bytes only */
    }
    if (chars == 0 || chars > BOARD_NAME_MAX || len >= outlen) {
        snprintf(err, errlen, "a name must be 1..%d characters", BOARD_NAME_MAX);
        return -1;
    }
    memcpy(out, in, len);
    out[len] = '\0';
    return 0;
}

/* ---------------------------------------------------------------- Register */

enum { REG_LIST, REG_CREATE, REG_JOIN, REG_STATS, REG_LEADERBOARD, REG_MATCHES, REG_MATCH };

static void list_games(board_service *svc, rpc_call *call,
                       const Sungka__V1__ListGamesRequest *req)
{
    Sungka__V1__ListGamesReply reply = SUNGKA__V1__LIST_GAMES_REPLY__INIT;
    Sungka__V1__GameSummary *sums = calloc((size_t)svc->n_rooms + 1, sizeof *sums);
    Sungka__V1__GameSummary **ptrs = calloc((size_t)svc->n_rooms + 1, sizeof *ptrs);
    if (!sums || !ptrs) {
        free(sums);
        free(ptrs);
        rpc_call_finish(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
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
        ptrs[n] = &sums[n];
        n++;
    }
    reply.n_games = n;
    reply.games = ptrs;
    rpc_call_reply(call, &reply.base);
    for (size_t i = 0; i < n; i++)
        wire_summary_clear(&sums[i]);
    free(sums);
    free(ptrs);
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
    g.seats = game_seats(&r->state);
    g.status = ROOM_WAITING;
    g.created_ms = board_wall_ms();
    return store_game_create(svc->store, &g);
}

/* Make a game from a kind name and options (validated, with sentences). */
/* The host part of a peer ("ipv4:127.0.0.1:5555" -> "ipv4:127.0.0.1"). */
static void peer_host(rpc_call *call, char *out, size_t len)
{
    snprintf(out, len, "%s", rpc_call_peer(call));
    char *colon = strrchr(out, ':');
    if (colon && colon != strchr(out, ':'))
        *colon = '\0';
}

/* Make a game from a kind name and options (validated, with sentences) for
 * the client `call` came from, within the per-client cap of open games. */
static room *new_room(board_service *svc, rpc_call *call, const char *kind_name,
                      Sungka__V1__GameOption **options, size_t n_options, const char *title_in,
                      bool autostart, rpc_code *code, char *err, size_t errlen)
{
    char creator[64];
    peer_host(call, creator, sizeof creator);
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
        int len = snprintf(err, errlen, "unknown game kind '%.32s' (kinds:", kind_name);
        for (int i = 0; i < game_kind_count() && len < (int)errlen; i++)
            len += snprintf(err + len, errlen - (size_t)len, " %s", game_kind_at(i)->name);
        if (len < (int)errlen)
            snprintf(err + len, errlen - (size_t)len, ")");
        return NULL;
    }
    game_options opts;
    game_options_default(kind, &opts);
    for (size_t i = 0; i < n_options; i++)
        if (game_options_set(kind, &opts, options[i]->name, options[i]->value, err, errlen) !=
            GAME_OK)
            return NULL;
    /* RULES.md: where a kind lets the service choose the first player
     * ("first=-1", congklak), the choice is random. */
    if (game_option(kind, &opts, "first", 0) == -1) {
        unsigned char coin = 0;
        if (getrandom(&coin, 1, 0) != 1)
            coin = (unsigned char)board_now_ms();
        game_options_set(kind, &opts, "first", coin & 1, err, errlen);
    }
    if (strlen(title_in) > BOARD_TITLE_MAX) {
        snprintf(err, errlen, "a title must be at most %d bytes", BOARD_TITLE_MAX);
        return NULL;
    }
    *code = RPC_RESOURCE_EXHAUSTED;
    if (svc->n_rooms >= svc->cfg.max_games) {
        snprintf(err, errlen, "the service hosts too many games");
        return NULL;
    }
    if (svc->n_rooms == svc->rooms_cap) {
        int cap = svc->rooms_cap ? svc->rooms_cap * 2 : 16;
        room **grown = realloc(svc->rooms, (size_t)cap * sizeof *grown);
        if (!grown) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        svc->rooms = grown;
        svc->rooms_cap = cap;
    }
    char id[BOARD_ID_LEN];
    snprintf(id, sizeof id, "%u", ++svc->next_id);
    char title[BOARD_TITLE_MAX + 1];
    snprintf(title, sizeof title, "%s", title_in[0] ? title_in : kind->title);
    room *r = room_create(svc, id, kind, &opts, title, autostart);
    if (!r) {
        *code = RPC_INVALID_ARGUMENT;
        snprintf(err, errlen, "these options do not make a game");
        return NULL;
    }
    r->created_ms = board_now_ms();
    snprintf(r->creator, sizeof r->creator, "%s", creator);
    if (svc->store && store_room(svc, r) != 0) {
        *code = RPC_UNAVAILABLE;
        snprintf(err, errlen, "cannot store the new game: %s", store_last_error(svc->store));
        room_free(r);
        return NULL;
    }
    svc->rooms[svc->n_rooms++] = r;
    board_log(svc, "game %s created: %s", id, kind->name);
    return r;
}

static void create_game(board_service *svc, rpc_call *call,
                        const Sungka__V1__CreateGameRequest *req)
{
    char err[256];
    rpc_code code;
    if (req->bots < 0 || req->bot_level < 0 || req->bot_level > 10) {
        rpc_call_finish(call, RPC_INVALID_ARGUMENT, "bots must be 0 or more, bot_level 1..10");
        return;
    }
    room *r = new_room(svc, call, req->kind, req->options, req->n_options, req->title, req->autostart,
                       &code, err, sizeof err);
    if (!r) {
        rpc_call_finish(call, code, err);
        return;
    }
    if (req->bots > 0) {
        if (req->bots >= game_seats(&r->state)) {
            snprintf(err, sizeof err, "bots can fill at most %d of the %d seats",
                     game_seats(&r->state) - 1, game_seats(&r->state));
            rpc_call_finish(call, RPC_INVALID_ARGUMENT, err);
            return;     /* the empty game goes away by itself */
        }
        if (board_bots_spawn(svc, r, req->bots, req->bot_level ? req->bot_level : 5, err,
                             sizeof err) != 0) {
            rpc_call_finish(call, RPC_FAILED_PRECONDITION, err);
            return;
        }
    }
    Sungka__V1__CreateGameReply reply = SUNGKA__V1__CREATE_GAME_REPLY__INIT;
    Sungka__V1__GameSummary summary;
    wire_summary(r, &summary);
    reply.game = &summary;
    rpc_call_reply(call, &reply.base);
    wire_summary_clear(&summary);
}

static void join_game(board_service *svc, rpc_call *call,
                      const Sungka__V1__JoinGameRequest *req)
{
    char err[256], name[BOARD_NAME_BYTES];
    rpc_code code = RPC_OK;
    if (clean_name(req->name, name, sizeof name, err, sizeof err) != 0) {
        rpc_call_finish(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    room *r = NULL;
    if (req->any_of_kind[0]) {
        /* The lobby's "any open game of kind K", made when there is none. */
        for (int i = 0; i < svc->n_rooms && !r; i++)
            if (strcmp(svc->rooms[i]->kind->name, req->any_of_kind) == 0 &&
                room_has_open_seat(svc->rooms[i]) && !room_find_name(svc->rooms[i], name))
                r = svc->rooms[i];
        if (!r)
            r = new_room(svc, call, req->any_of_kind, req->options, req->n_options, "", false, &code,
                         err, sizeof err);
        if (!r) {
            rpc_call_finish(call, code, err);
            return;
        }
    } else if (!(r = find_room(svc, req->game_id))) {
        snprintf(err, sizeof err, "there is no game '%.32s'", req->game_id);
        rpc_call_finish(call, RPC_NOT_FOUND, err);
        return;
    }
    participant *p = room_join(r, name, req->observe, &code, err, sizeof err);
    if (!p) {
        rpc_call_finish(call, code, err);
        return;
    }
    Sungka__V1__BoardRef ref = SUNGKA__V1__BOARD_REF__INIT;
    Sungka__V1__GameSummary summary;
    wire_summary(r, &summary);
    ref.endpoint = svc->endpoint;
    ref.game_id = r->id;
    ref.token = p->token;
    ref.seat = p->seat;
    ref.game = &summary;
    rpc_call_reply(call, &ref.base);
    wire_summary_clear(&summary);
}

static void register_handler(rpc_call *call, unsigned method, const ProtobufCMessage *request,
                             void *user)
{
    board_service *svc = user;
    room_commit_moves(svc);        /* what follows sees only stored moves */
    switch (method) {
    case REG_LIST:
        list_games(svc, call, (const Sungka__V1__ListGamesRequest *)request);
        break;
    case REG_CREATE:
        create_game(svc, call, (const Sungka__V1__CreateGameRequest *)request);
        break;
    case REG_JOIN:
        join_game(svc, call, (const Sungka__V1__JoinGameRequest *)request);
        break;
    case REG_STATS:
        history_player_stats(svc, call, (const Sungka__V1__GetPlayerStatsRequest *)request);
        break;
    case REG_LEADERBOARD:
        history_leaderboard(svc, call, (const Sungka__V1__LeaderboardRequest *)request);
        break;
    case REG_MATCHES:
        history_list_matches(svc, call, (const Sungka__V1__ListMatchesRequest *)request);
        break;
    case REG_MATCH:
        history_get_match(svc, call, (const Sungka__V1__GetMatchRequest *)request);
        break;
    default:
        rpc_call_finish(call, RPC_UNIMPLEMENTED, "no such method");
    }
}

/* ------------------------------------------------------------------- Board */

enum { BRD_SUBSCRIBE, BRD_GET_BOARD, BRD_MOVE, BRD_CHAT, BRD_PING, BRD_LEAVE, BRD_READY,
       BRD_SIT, BRD_STAND };

static void reply_ack(rpc_call *call)
{
    Sungka__V1__Ack ack = SUNGKA__V1__ACK__INIT;
    rpc_call_reply(call, &ack.base);
}

static void board_handler(rpc_call *call, unsigned method, const ProtobufCMessage *request,
                          void *user)
{
    board_service *svc = user;
    char token[BOARD_TOKEN_HEX + 8];
    char err[256];
    participant *p = NULL;
    if (rpc_call_bearer(call, token, sizeof token) >= 0)
        p = find_token(svc, token);
    if (!p) {
        rpc_call_finish(call, RPC_UNAUTHENTICATED,
                        "missing or unknown seat token (send authorization: Bearer <token>)");
        return;
    }
    room *r = p->room;
    rpc_code code = RPC_OK;
    if (method != BRD_MOVE && method != BRD_PING)
        room_commit_moves(svc);    /* what follows sees only stored moves */

    switch (method) {
    case BRD_SUBSCRIBE: {
        const Sungka__V1__SubscribeRequest *req = (const void *)request;
        if (room_subscribe(r, p, call, req->after_seq, err, sizeof err) != 0)
            rpc_call_finish(call, RPC_OUT_OF_RANGE, err);
        break;
    }
    case BRD_GET_BOARD: {
        Sungka__V1__GetBoardReply reply = SUNGKA__V1__GET_BOARD_REPLY__INIT;
        wire_board_msg board;
        wire_board(&r->state, p->seat, &board);
        reply.board = &board.msg;
        reply.rotation = p->seat < 0 ? 0 : p->seat;
        rpc_call_reply(call, &reply.base);
        break;
    }
    case BRD_MOVE: {
        const Sungka__V1__MoveRequest *req = (const void *)request;
        if (room_move(r, p, req->move, call, &code, err, sizeof err) != 0)
            rpc_call_finish(call, code, err);
        break;
    }
    case BRD_CHAT: {
        const Sungka__V1__ChatRequest *req = (const void *)request;
        if (room_chat(r, p, req->text, req->to, &code, err, sizeof err) != 0)
            rpc_call_finish(call, code, err);
        else
            reply_ack(call);
        break;
    }
    case BRD_READY: {
        const Sungka__V1__ReadyRequest *req = (const void *)request;
        if (room_ready(r, p, req->ready, &code, err, sizeof err) != 0)
            rpc_call_finish(call, code, err);
        else
            reply_ack(call);
        break;
    }
    case BRD_SIT: {
        const Sungka__V1__SitRequest *req = (const void *)request;
        if (room_sit(r, p, req->seat, &code, err, sizeof err) != 0)
            rpc_call_finish(call, code, err);
        else
            reply_ack(call);
        break;
    }
    case BRD_STAND:
        if (room_stand(r, p, &code, err, sizeof err) != 0)
            rpc_call_finish(call, code, err);
        else
            reply_ack(call);
        break;
    case BRD_PING: {
        const Sungka__V1__PingReply *req = (const void *)request;
        int64_t now = board_now_ms();
        p->last_seen_ms = now;
        if (req->nonce != 0 && req->nonce == p->ping_nonce) {
            p->rtt_ms = (int)(now - p->ping_sent_ms);
            p->ping_nonce = 0;
        }
        reply_ack(call);
        break;
    }
    case BRD_LEAVE:
        reply_ack(call);      /* answer first: leaving frees the participant */
        room_leave(r, p);
        break;
    default:
        rpc_call_finish(call, RPC_UNIMPLEMENTED, "no such method");
    }
}

/* ------------------------------------------------------------------ Health */

static void health_handler(rpc_call *call, unsigned method, const ProtobufCMessage *request,
                           void *user)
{
    (void)method;
    (void)user;
    const Grpc__Health__V1__HealthCheckRequest *req = (const void *)request;
    Grpc__Health__V1__HealthCheckResponse reply = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
    bool known = !req->service[0] || strcmp(req->service, "sungka.v1.Register") == 0 ||
                 strcmp(req->service, "sungka.v1.Board") == 0;
    if (!known) {
        rpc_call_finish(call, RPC_NOT_FOUND, "unknown service");
        return;
    }
    reply.status = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING;
    rpc_call_reply(call, &reply.base);
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
    board_config_defaults(&svc->cfg);
    if (token_index_init(&svc->tokens) != 0) {
        snprintf(err, errlen, "out of memory");
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
        if (board_recover(svc, err, errlen) != 0)
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
    opts.max_streams_per_conn = svc->cfg.max_streams;
    opts.outbox_limit = 4096;
    static const char *const board_streams[] = {"Subscribe", NULL};

    if (rpc_server_create(svc->cfg.listen, &opts, &svc->server, port) != 0) {
        board_listen_problem(svc->cfg.listen, svc->cfg.tls_cert != NULL, err, errlen);
        goto fail_store;
    }
    if (rpc_server_add_service(svc->server, &sungka__v1__register__descriptor, NULL,
                               register_handler, svc) != 0 ||
        rpc_server_add_service(svc->server, &sungka__v1__board__descriptor, board_streams,
                               board_handler, svc) != 0 ||
        rpc_server_add_service(svc->server, &grpc__health__v1__health__descriptor, NULL,
                               health_handler, svc) != 0 ||
        rpc_server_start(svc->server) != 0) {
        snprintf(err, errlen, "cannot start the RPC server");
        goto fail_server;
    }
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
    svc->port = *port;
    board_bots_recover(svc);       /* they connect to the port just bound */
    *out = svc;
    return 0;

fail_server:
    rpc_server_destroy(svc->server);
fail_store:
    while (svc->n_rooms > 0)
        remove_room(svc, svc->n_rooms - 1);
    free(svc->rooms);
    store_close(svc->store);
fail_free:
    token_index_free(&svc->tokens);
    free(svc);
    return -1;
}

static void run_timers(board_service *svc)
{
    int64_t now = board_now_ms();
    if (now < svc->next_ping_ms)
        return;
    svc->next_ping_ms = now + svc->cfg.ping_interval_ms;
    board_bots_reap(svc);
    for (int i = svc->n_rooms - 1; i >= 0; i--) {
        room *r = svc->rooms[i];
        room_tick(r, now);
        bool stale_empty = r->status == ROOM_WAITING && r->n_people == 0 &&
                           now - r->created_ms > EMPTY_GAME_TTL_MS;
        if (room_is_idle(r) || stale_empty) {
            board_log(svc, "game %s removed (%s)", r->id, stale_empty ? "nobody joined" : "over");
            remove_room(svc, i);
        }
    }
}

int board_run(board_service *svc)
{
    while (!svc->stop) {
        int64_t wait = svc->next_ping_ms - board_now_ms();
        if (wait < 0)
            wait = 0;
        if (wait > LOOP_SLICE_MS)
            wait = LOOP_SLICE_MS;
        rpc_server_poll(svc->server, (int)wait);
        room_commit_moves(svc);    /* one commit for the moves of this turn */
        run_timers(svc);
    }
    room_commit_moves(svc);
    board_log(svc, "shutting down");
    board_bots_stop(svc);
    for (int i = 0; i < svc->n_rooms; i++)
        room_close_streams(svc->rooms[i]);
    /* Let the final statuses go out before the server cancels what is left. */
    int64_t until = board_now_ms() + 200;
    while (board_now_ms() < until && rpc_server_poll(svc->server, 50) == 0)
        room_commit_moves(svc);
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
    if (svc->server)
        rpc_server_destroy(svc->server);
    board_bots_stop(svc);
    room_commit_moves(svc);
    while (svc->n_rooms > 0)
        remove_room(svc, svc->n_rooms - 1);
    free(svc->rooms);
    free(svc->pending);
    store_close(svc->store);
    token_index_free(&svc->tokens);
    free(svc);
}
