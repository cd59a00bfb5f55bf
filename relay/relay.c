/*
 * relay.c — sungka-relay's side toward its observers: the calls they make
 * (JoinGame as an observer, Subscribe, Ping, Leave; the rest is refused:
 * a relay is read-only), their seats here (watchers), and the loop.
 *
 * A watcher's token names its slot: 8 hex digits of the slot's index, then
 * 24 random ones that change whenever the slot is given again, so finding
 * it costs nothing however many watch, and an old token finds nobody. A
 * watcher whose stream ended keeps its slot for WATCHER_GRACE_MS, to resume.
 *
 * Threads: everything here runs on the loop thread (relay_run), but
 * relay_request_stop.
 */
#include <errno.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "grpc/health/v1/health.pb-c.h"
#include "log_line.h"
#include "relay_internal.h"
#include "self_signed.h"

#define WATCHER_GRACE_MS 60000
#define RELAY_SLICE_MS 2
#define OUTBOX_LIMIT 4096
#define N_ENTRIES(a) (sizeof (a) / sizeof (a)[0])

void relay__log_at(relay *r, int level, const char *fmt, ...)
{
    if (!r->cfg.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    log_line_write(r->cfg.log, r->log_journal, level, fmt, ap);
    va_end(ap);
}

void relay__log(relay *r, const char *fmt, ...)
{
    if (!r->cfg.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    log_line_write(r->cfg.log, r->log_journal, LOG_INFO, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------- watchers */

static watcher *watcher_of(relay *r, const char *token)
{
    unsigned slot;
    char tail;
    if (strlen(token) != RELAY_TOKEN_BYTES - 1 || sscanf(token, "%8x%c", &slot, &tail) != 2 ||
        slot >= (unsigned)r->n_slots)
        return NULL;
    watcher *w = r->slots[slot];
    return w && strcmp(w->token, token) == 0 ? w : NULL;
}

static watcher *watcher_new(relay *r, feed *f, relay_client *from)
{
    if (r->n_watchers >= r->cfg.max_observers)
        return NULL;
    int i = r->free_slot;
    while (i < r->n_slots && r->slots[i])
        i++;
    if (i == r->n_slots) {
        int n = r->n_slots ? r->n_slots * 2 : 256;
        watcher **grown = realloc(r->slots, (size_t)n * sizeof *grown);
        if (!grown)
            return NULL;
        memset(grown + r->n_slots, 0, (size_t)(n - r->n_slots) * sizeof *grown);
        r->slots = grown;
        r->n_slots = n;
    }
    uint8_t random[12];
    watcher *w = calloc(1, sizeof *w);
    if (!w || getrandom(random, sizeof random, 0) != (ssize_t)sizeof random) {
        free(w);
        return NULL;
    }
    r->slots[i] = w;
    w->slot = i;
    f->n_named++;
    int n = snprintf(w->token, sizeof w->token, "%08x", (unsigned)i);
    for (size_t k = 0; k < sizeof random; k++)
        n += snprintf(w->token + n, sizeof w->token - (size_t)n, "%02x", random[k]);
    w->feed = f;
    w->from = from;
    from->watchers++;
    w->stream = NULL;
    w->at = -1;
    w->gone_ms = relay__now_ms();
    r->free_slot = i + 1;
    r->n_watchers++;
    return w;
}

static void watcher_free(relay *r, watcher *w)
{
    int i = w->slot;
    r->slots[i] = NULL;
    w->feed->n_named--;
    w->from->watchers--;
    free(w);
    r->n_watchers--;
    if (i < r->free_slot)
        r->free_slot = i;
}

/* Its stream is over: a watcher may come back within the grace. */
static void stream_done(rpc_call *call, bool client_gone, void *user)
{
    (void)call;
    (void)client_gone;
    watcher *w = user;
    relay__feed_unwatch(w->feed, w);
    w->stream = NULL;
    if (w->stream_from)
        w->stream_from->streams--;
    w->stream_from = NULL;
    w->gone_ms = relay__now_ms();
}

void relay__end_watch(watcher *w, rpc_code code, const char *message)
{
    rpc_call *call = w->stream;
    if (!call)
        return;
    rpc_call_on_done(call, NULL, NULL);
    stream_done(call, false, w);
    rpc_call_finish(call, code, message);
}

void relay__send(watcher *w, const logged *ev)
{
    if (!w->stream)
        return;
    if (rpc_call_outbox_len(w->stream) >= OUTBOX_LIMIT) {
        relay__end_watch(w, RPC_RESOURCE_EXHAUSTED,
                         "too slow for this game's events; subscribe again after the last "
                         "event you saw");
        return;
    }
    if (rpc_call_send_packed(w->stream, ev->data, ev->len) == 0)
        metric_add(w->feed->relay->m.events_relayed, 1);
}

/* ---------------------------------------------------------------- calls */

static void refuse(rpc_call *call, rpc_code code, const char *reason, const char *message)
{
    rpc_call_finish_reason(call, code, reason, message);
}

/* A limit of client c's address refused call: said in the log (the same
 * line as the board service's, which a fail2ban filter may read), then
 * answered. */
static void refuse_limit(relay *r, rpc_call *call, relay_client *c, const char *err)
{
    const char *host = c->host;
    if (strncmp(host, "ipv4:", 5) == 0 || strncmp(host, "ipv6:", 5) == 0)
        host += 5;
    if (address_window_admits(&c->log_window_ms, &c->logged, RELAY_LIMIT_LINES + 1,
                              RELAY_LIMIT_LOG_WINDOW_MS, relay__now_ms()))
        relay__log_at(r, LOG_NOTICE, "client %s: limit reached: %s%s", host, err,
                      c->logged > RELAY_LIMIT_LINES ? " (more of this address's refusals are "
                                                      "not logged for a minute)" : "");
    refuse(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", err);
}

void relay__answer_join(relay *r, feed *f, rpc_call *call, const rpc_status *failed)
{
    rpc_call_on_done(call, NULL, NULL);
    if (failed) {
        rpc_call_finish_elsewhere(call, failed->code, failed->reason[0] ? failed->reason : NULL,
                                  failed->endpoint[0] ? failed->endpoint : NULL,
                                  failed->message);
        return;
    }
    /* Asked again: its address may have taken its last slot meanwhile. */
    char err[160];
    relay_client *from = relay__client_of(r, call);
    if (from && relay__client_may_watch(r, from, err, sizeof err) != 0) {
        refuse_limit(r, call, from, err);
        return;
    }
    watcher *w = from ? watcher_new(r, f, from) : NULL;
    Sungka__V1__GameSummary *game = (Sungka__V1__GameSummary *)protobuf_c_message_unpack(
        &sungka__v1__game_summary__descriptor, NULL, f->summary_len, f->summary);
    if (!w || !game) {
        if (w)
            watcher_free(r, w);
        refuse(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED",
               "this relay watches with as many as it may; try another");
    } else {
        Sungka__V1__BoardRef ref = SUNGKA__V1__BOARD_REF__INIT;
        ref.endpoint = r->endpoint;
        ref.game_id = f->game_id;
        ref.token = w->token;
        ref.game = game;
        rpc_call_reply(call, &ref.base);
    }
    if (game)
        protobuf_c_message_free_unpacked(&game->base, NULL);
}

/* A JoinGame whose client left before the feed answered. */
static void join_gone(rpc_call *call, bool client_gone, void *user)
{
    (void)client_gone;
    feed *f = user;
    for (int i = 0; i < f->n_joins; i++) {
        if (f->joins[i] == call) {
            f->joins[i] = f->joins[--f->n_joins];
            return;
        }
    }
}

static void join_game(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    relay *r = user;
    const Sungka__V1__JoinGameRequest *req = (const void *)request;
    if (!req->observe || req->any_of_kind[0]) {
        refuse(call, RPC_FAILED_PRECONDITION, "READ_ONLY",
               "a relay serves observers only: join as an observer, or play at a board "
               "service");
        return;
    }
    if (!req->game_id[0] || strlen(req->game_id) >= RELAY_GAME_ID_BYTES) {
        refuse(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST", "which game? (game_id)");
        return;
    }
    /* Counted against the asking address, as at a board service: made-up
     * game ids cost their sender, not the relay's other observers. */
    if (relay__identity_refused(r, call))
        return;
    char err[160];
    relay_client *from = relay__client_of(r, call);
    relay_client *asker = from ? relay__client_asking(r, call) : NULL;
    if (!asker) {
        refuse(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", "out of memory");
        return;
    }
    if (relay__client_may_join(r, from, asker, err, sizeof err) != 0) {
        refuse_limit(r, call, asker, err);
        return;
    }
    feed *f = relay__feed_find(r, req->game_id);
    if (!f && r->n_feeds >= r->cfg.max_games) {
        refuse(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED",
               "this relay relays as many games as it may; try another");
        return;
    }
    if (!f && !(f = relay__feed_start(r, req->game_id, asker->host))) {
        refuse(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", "out of memory");
        return;
    }
    if (f->summary) {                  /* upstream answered once: the game exists */
        relay__answer_join(r, f, call, NULL);
        return;
    }
    if (f->n_joins == f->joins_cap) {
        int cap = f->joins_cap ? f->joins_cap * 2 : 8;
        rpc_call **grown = realloc(f->joins, (size_t)cap * sizeof *grown);
        if (!grown) {
            refuse(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", "out of memory");
            return;
        }
        f->joins = grown;
        f->joins_cap = cap;
    }
    f->joins[f->n_joins++] = call;     /* answered when upstream is */
    rpc_call_on_done(call, join_gone, f);
}

/* The watcher a Board call's token names, or NULL once the call is answered. */
static watcher *caller(relay *r, rpc_call *call)
{
    char token[RELAY_TOKEN_BYTES + 8] = "";
    watcher *w = rpc_call_bearer(call, token, sizeof token) >= 0 ? watcher_of(r, token) : NULL;
    if (!w)
        refuse(call, RPC_UNAUTHENTICATED, "UNKNOWN_TOKEN",
               "unknown seat token at this relay (join as an observer here first)");
    return w;
}

static void subscribe(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    relay *r = user;
    const Sungka__V1__SubscribeRequest *req = (const void *)request;
    watcher *w = caller(r, call);
    if (!w)
        return;
    relay__end_watch(w, RPC_ABORTED, "replaced by a newer subscription");
    char err[160];
    relay_client *from = relay__client_of(r, call);
    if (!from) {
        refuse(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", "out of memory");
        return;
    }
    if (relay__client_may_stream(r, from, err, sizeof err) != 0) {
        refuse_limit(r, call, from, err);
        return;
    }
    w->stream = call;
    w->stream_from = from;
    from->streams++;
    rpc_call_on_done(call, stream_done, w);
    if (relay__feed_watch(w->feed, w, req->after_seq, err, sizeof err) != 0) {
        rpc_call_on_done(call, NULL, NULL);
        stream_done(call, false, w);
        refuse(call, RPC_OUT_OF_RANGE, "PAST_END_OF_LOG", err);
    }
}

static void ping(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    if (caller(user, call)) {
        Sungka__V1__PingResponse reply = SUNGKA__V1__PING_RESPONSE__INIT;
        rpc_call_reply(call, &reply.base);
    }
}

static void leave(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    relay *r = user;
    watcher *w = caller(r, call);
    if (!w)
        return;
    relay__end_watch(w, RPC_OK, "you left");
    watcher_free(r, w);
    Sungka__V1__LeaveResponse reply = SUNGKA__V1__LEAVE_RESPONSE__INIT;
    rpc_call_reply(call, &reply.base);
}

static void read_only(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    (void)user;
    refuse(call, RPC_FAILED_PRECONDITION, "READ_ONLY",
           "a relay only shows the game: play, chat and sit at its board service");
}

static void health_check(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    (void)user;
    Grpc__Health__V1__HealthCheckResponse reply = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
    reply.status = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING;
    rpc_call_reply(call, &reply.base);
}

/* The services a relay answers health for ("" is the relay itself). */
static bool relay_service(const char *name)
{
    return !name[0] || strcmp(name, "sungka.v1.Register") == 0 ||
           strcmp(name, "sungka.v1.Board") == 0;
}

static void health_watch_done(rpc_call *call, bool client_gone, void *user)
{
    (void)call;
    (void)client_gone;
    relay_client *from = user;
    from->streams--;
}

/* Health/Watch: SERVING (or SERVICE_UNKNOWN, the stream kept open, as the
 * gRPC health protocol says) once; a relay that answers is serving, so
 * there is no change to send until the stream ends. Each one is an open
 * stream of its client's address (--max-client-streams), as a Subscribe. */
static void health_watch(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    relay *r = user;
    const Grpc__Health__V1__HealthCheckRequest *req = (const void *)request;
    relay_client *from = relay__client_of(r, call);
    char err[160];
    if (!from) {
        refuse(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", "out of memory");
        return;
    }
    if (relay__client_may_stream(r, from, err, sizeof err) != 0) {
        refuse_limit(r, call, from, err);
        return;
    }
    from->streams++;
    rpc_call_on_done(call, health_watch_done, from);
    Grpc__Health__V1__HealthCheckResponse reply = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
    reply.status = relay_service(req->service)
                       ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING
                       : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVICE_UNKNOWN;
    rpc_call_send(call, &reply.base);
}

/* The lobby and history are the board services': a relay only shows games. */
static void lobby_elsewhere(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    (void)user;
    refuse(call, RPC_UNIMPLEMENTED, "NOT_HERE",
           "a relay only shows games: list, create, pair and look up games at a board service");
}

/* Board.Play is for players, who play at the board service: UNIMPLEMENTED,
 * so that an agent watching here falls back to Subscribe, as it does with
 * a board service older than Play. */
static void play_elsewhere(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    (void)user;
    refuse(call, RPC_UNIMPLEMENTED, "NOT_HERE",
           "a relay only shows games: watch with Subscribe; play at its board service");
}

static const rpc_method_entry register_methods[] = {
    {"JoinGame", join_game, false, false, false},
    {"ListGames", lobby_elsewhere, false, false, false},
    {"CreateGame", lobby_elsewhere, false, false, false},
    {"GetPlayerStats", lobby_elsewhere, false, false, false},
    {"Leaderboard", lobby_elsewhere, false, false, false},
    {"ListMatches", lobby_elsewhere, false, false, false},
    {"GetMatch", lobby_elsewhere, false, false, false},
    {"GetAnalysis", lobby_elsewhere, false, false, false},
    {"RatingHistory", lobby_elsewhere, false, false, false},
    {"ListKinds", lobby_elsewhere, false, false, false},
    {"QuickPair", lobby_elsewhere, true, false, false},
};
static const rpc_method_entry board_methods[] = {
    {"Subscribe", subscribe, true, false, false},
    {"SubscribeMany", read_only, true, false, false},
    {"Ping", ping, false, false, false},
    {"Leave", leave, false, false, false},
    {"GetBoard", read_only, false, false, false},
    {"Move", read_only, false, false, false},
    {"Chat", read_only, false, false, false},
    {"Ready", read_only, false, false, false},
    {"Sit", read_only, false, false, false},
    {"Stand", read_only, false, false, false},
    {"Resign", read_only, false, false, false},
    {"Abort", read_only, false, false, false},
    {"OfferDraw", read_only, false, false, false},
    {"GiveTime", read_only, false, false, false},
    {"AnswerDraw", read_only, false, false, false},
    {"Claim", read_only, false, false, false},
    {"Rematch", read_only, false, false, false},
    {"Play", play_elsewhere, true, false, true},
};
static const rpc_method_entry health_methods[] = {
    {"Check", health_check, false, false, false},
    {"Watch", health_watch, true, false, false},
};

/* ------------------------------------------------------------- the relay */

void relay__config_defaults(relay_config *cfg)
{
    if (cfg->max_games <= 0)
        cfg->max_games = 1000;
    if (cfg->max_observers <= 0)
        cfg->max_observers = 100000;
    if (cfg->max_streams <= 0)
        cfg->max_streams = 64;
    if (cfg->max_client_observers <= 0)
        cfg->max_client_observers = 256;
    if (cfg->max_client_streams <= 0)
        cfg->max_client_streams = 256;
    if (cfg->ipv6_prefix <= 0)
        cfg->ipv6_prefix = ADDRESS_IPV6_PREFIX;
    if (cfg->client_join_rate <= 0)
        cfg->client_join_rate = 20;
}

int relay_create(const relay_config *cfg, relay **out, int *port, char *err, size_t errlen)
{
    *out = NULL;
    relay *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r->cfg = *cfg;
    r->log_journal = log_line_to_journal(r->cfg.log);
    relay__config_defaults(&r->cfg);
    if (!cfg->tls_cert != !cfg->tls_key) {
        snprintf(err, errlen, "TLS needs both --tls-cert and --tls-key");
        free(r);
        return -1;
    }
    if (cfg->tls_cert && self_signed_check_pair(cfg->tls_cert, cfg->tls_key, err, errlen) != 0) {
        free(r);
        return -1;
    }
    if (cfg->relay_key && relay_key_load(cfg->relay_key, r->key, err, errlen) != 0) {
        free(r);
        return -1;
    }
    pthread_mutex_init(&r->mu, NULL);
    if (relay__metrics_start(r, err, errlen) != 0)
        goto fail;
    rpc_client_options copts = {0};
    copts.keepalive.time_ms = 10000;  /* no faster than a board service permits (5 s) */
    copts.keepalive.timeout_ms = 5000;
    copts.use_tls = cfg->upstream_tls || cfg->upstream_ca;
    copts.tls.ca = cfg->upstream_ca;
    copts.tls_server_name = cfg->upstream_name;
    if (cfg->upstream_ca && access(cfg->upstream_ca, R_OK) != 0) {
        snprintf(err, errlen, "cannot read --upstream-ca %s: %s", cfg->upstream_ca,
                 strerror(errno));
        goto fail;
    }
    if (!cfg->upstream || rpc_pool_create(cfg->upstream, &copts, &r->up) != 0) {
        snprintf(err, errlen, "--upstream takes HOST:PORT[,HOST:PORT...], not '%s'",
                 cfg->upstream ? cfg->upstream : "");
        goto fail;
    }
    rpc_server_options opts = {0};
    opts.keepalive.time_ms = 10000;
    opts.keepalive.timeout_ms = 5000;
    opts.keepalive.min_recv_ping_ms = 5000;
    opts.max_receive_bytes = 64 * 1024;
    opts.max_streams_per_conn = r->cfg.max_streams;
    opts.outbox_limit = OUTBOX_LIMIT + 16;
    opts.tls.cert = cfg->tls_cert;
    opts.tls.key = cfg->tls_key;
    if (rpc_server_create(cfg->listen, &opts, &r->server, port) != 0) {
        snprintf(err, errlen, "cannot listen on %s (in use, or not an address of this machine)",
                 cfg->listen);
        goto fail;
    }
    rpc_server_set_refusal_hook(r->server, relay__metrics_refusal, r);
    if (rpc_server_add_methods(r->server, &sungka__v1__register__descriptor, register_methods,
                               N_ENTRIES(register_methods), r) != 0 ||
        rpc_server_add_methods(r->server, &sungka__v1__board__descriptor, board_methods,
                               N_ENTRIES(board_methods), r) != 0 ||
        rpc_server_add_methods(r->server, &grpc__health__v1__health__descriptor,
                               health_methods, N_ENTRIES(health_methods), r) != 0 ||
        rpc_server_start(r->server) != 0) {
        snprintf(err, errlen, "cannot start the RPC server");
        goto fail;
    }
    if (cfg->advertise) {
        snprintf(r->endpoint, sizeof r->endpoint, "%s", cfg->advertise);
    } else {
        const char *colon = strrchr(cfg->listen, ':');
        int hostlen = colon ? (int)(colon - cfg->listen) : (int)strlen(cfg->listen);
        snprintf(r->endpoint, sizeof r->endpoint, "%.*s:%d", hostlen, cfg->listen, *port);
    }
    /* Its name upstream: one per relay, so that two relays may watch one game. */
    uint32_t tag = 0;
    if (getrandom(&tag, sizeof tag, 0) != (ssize_t)sizeof tag)
        tag = (uint32_t)*port;
    snprintf(r->name, sizeof r->name, "relay-%08x", tag);
    *out = r;
    return 0;

fail:
    sodium_memzero(r->key, sizeof r->key);
    rpc_pool_destroy(r->up);
    rpc_server_destroy(r->server);
    relay__metrics_free(r);
    pthread_mutex_destroy(&r->mu);
    free(r);
    return -1;
}

/* Watchers gone longer than the grace give their slots back. */
static void sweep(relay *r, int64_t now)
{
    for (int i = 0; i < r->n_slots; i++) {
        watcher *w = r->slots[i];
        if (w && !w->stream && now - w->gone_ms > WATCHER_GRACE_MS)
            watcher_free(r, w);
    }
    relay__clients_sweep(r, now);
}

int relay_run(relay *r)
{
    int64_t next_tick = 0;
    while (!r->stop) {
        int64_t now = relay__now_ms();
        int wait = next_tick > now ? (int)(next_tick - now) : 0;
        /* Upstream's news wakes the loop only at poll's next slice (rpc.h:
         * rpc_server_wake, up to 100 ms): while games are relayed, poll in
         * short slices so an event waits here a millisecond or two. */
        int slice = r->feeds ? RELAY_SLICE_MS : 200;
        rpc_server_poll(r->server, wait < slice ? wait : slice);
        /* The turn's work began with the poll's first completion, or now. */
        double started = r->m.set ? rpc_server_turn_started(r->server) : 0;
        if (r->m.set && started == 0)
            started = metrics_now();
        relay__drain(r);
        now = relay__now_ms();
        if (now >= next_tick) {
            sweep(r, now);
            next_tick = relay__tick(r, now);
        }
        relay__metrics_turn(r, started);
        if (r->reload) {
            r->reload = 0;
            if (r->cfg.on_reload)
                r->cfg.on_reload(r, r->cfg.hook_arg);
        }
    }
    relay__log(r, "shutting down");
    for (int i = 0; i < r->n_slots; i++)
        if (r->slots[i])
            relay__end_watch(r->slots[i], RPC_UNAVAILABLE,
                             "the relay is shutting down; watch at another");
    for (feed *f = r->feeds; f; f = f->next) {
        rpc_status st = {.code = RPC_UNAVAILABLE};
        snprintf(st.message, sizeof st.message, "the relay is shutting down");
        for (int i = 0; i < f->n_joins; i++)
            relay__answer_join(r, f, f->joins[i], &st);
        f->n_joins = 0;
    }
    int64_t until = relay__now_ms() + 200;
    while (relay__now_ms() < until && rpc_server_poll(r->server, 50) == 0) {
    }
    return 0;
}

void relay_request_stop(relay *r)
{
    r->stop = 1;
}

void relay_request_reload(relay *r)
{
    r->reload = 1;
}

void relay_destroy(relay *r)
{
    if (!r)
        return;
    /* Upstream first: its cancelled calls' callbacks still wake the server. */
    rpc_pool_destroy(r->up);
    relay__drain_discard(r);          /* their news is dropped */
    rpc_server_destroy(r->server);
    relay__feeds_free(r);
    for (int i = 0; i < r->n_slots; i++)
        free(r->slots[i]);
    free(r->slots);
    relay__clients_free(r);
    relay__metrics_free(r);       /* after the server: its refusals count here */
    sodium_memzero(r->key, sizeof r->key);
    pthread_mutex_destroy(&r->mu);
    free(r->own[0]);
    free(r->own[1]);
    free(r);
}
