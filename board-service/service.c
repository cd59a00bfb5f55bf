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
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "accounts.h"
#include "address.h"
#include "board_rpc.h"
#include "text.h"
#include "version.h"
#include "sungka/v1/social.pb-c.h"
#include "sungka/v1/tournament.pb-c.h"

#define LOOP_SLICE_MS 200     /* longest sleep, so a stop request is seen soon */
#define FLIGHT_WAIT_MS 1      /* longest wait for a commit to land while others may come */
#define CHORES_EVERY_MS 100   /* timers and drains while commits follow each other */
#define EMPTY_GAME_TTL_MS (10 * 60 * 1000)
#define TRIM_AFTER_RELEASED 256   /* participants and games freed before a trim */
#define TRIM_LOST_EVERY_MS 10000  /* at most so often for requests gRPC refused */

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
    if (cfg->ipv6_prefix <= 0)
        cfg->ipv6_prefix = ADDRESS_IPV6_PREFIX;
    if (cfg->max_client_observers <= 0)
        cfg->max_client_observers = 256;
    if (cfg->client_join_rate <= 0)
        cfg->client_join_rate = 20;
    if (cfg->client_chat_rate <= 0)
        cfg->client_chat_rate = 20;
    if (cfg->client_pairings <= 0)
        cfg->client_pairings = 1;
    if (cfg->max_pool <= 0)
        cfg->max_pool = 1000;
    if (cfg->max_tournaments <= 0)
        cfg->max_tournaments = 20;
    if (cfg->client_tournaments <= 0)
        cfg->client_tournaments = 2;
    if (cfg->max_tournament_players <= 0)
        cfg->max_tournament_players = 64;
    if (cfg->max_streams <= 0)
        cfg->max_streams = 64;
    if (cfg->chat_length <= 0)
        cfg->chat_length = 500;
    if (cfg->chat_rate <= 0)
        cfg->chat_rate = 5;
    if (cfg->presence_events <= 0)
        cfg->presence_events = 20;
    if (cfg->move_rate <= 0)
        cfg->move_rate = 200;
    if (cfg->bot_think_ms <= 0)
        cfg->bot_think_ms = 1000;
    if (cfg->first_move_ms <= 0)
        cfg->first_move_ms = 30000;
    if (cfg->rated_min_moves == 0)
        cfg->rated_min_moves = 2;
    if (cfg->rated_pair_games == 0)
        cfg->rated_pair_games = 3;
    if (cfg->session_days <= 0)
        cfg->session_days = 30;
    if (cfg->max_account_sessions <= 0)
        cfg->max_account_sessions = 20;
    if (cfg->password_workers <= 0)
        cfg->password_workers = 2;
    if (cfg->password_queue <= 0)
        cfg->password_queue = 32;
    if (cfg->analysis_time_ms <= 0)
        cfg->analysis_time_ms = 2000;
    if (cfg->analysis_queue <= 0)
        cfg->analysis_queue = 32;
    if (cfg->signin_failures <= 0)
        cfg->signin_failures = 5;
    if (cfg->client_signin_failures <= 0)
        cfg->client_signin_failures = 20;
    if (cfg->signin_rate <= 0)
        cfg->signin_rate = 20;
    if (cfg->client_signin_rate <= 0)
        cfg->client_signin_rate = 60;
    if (cfg->client_signin_jobs <= 0)
        cfg->client_signin_jobs = 2;
    if (cfg->client_registrations <= 0)
        cfg->client_registrations = 10;
    if (cfg->max_blocks <= 0)
        cfg->max_blocks = 500;
    if (cfg->report_rate <= 0)
        cfg->report_rate = 20;
    if (cfg->block_rate <= 0)
        cfg->block_rate = 30;
    if (cfg->client_lookups <= 0)
        cfg->client_lookups = 50;
    if (cfg->stall_limit_ms <= 0)
        cfg->stall_limit_ms = 3000;
    if (cfg->max_health_watches <= 0)
        cfg->max_health_watches = 64;
    if (cfg->max_reflection_streams <= 0)
        cfg->max_reflection_streams = 16;
    if (!cfg->log)
        cfg->log = stderr;
}

/* ---------------------------------------------------------------- registry */

void board_let_go(board_service *svc, room *r, const char *why)
{
    int i = board_rooms_index(svc, r);
    if (i < 0)
        return;
    room_close_streams(r, why);
    board_rooms_remove(svc, i);
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
    [-ROOM_E_REVOKED] = {RPC_UNAUTHENTICATED, "UNKNOWN_TOKEN"},
    [-ROOM_E_NOT_STARTED] = {RPC_FAILED_PRECONDITION, "GAME_NOT_STARTED"},
    [-ROOM_E_ENDED] = {RPC_FAILED_PRECONDITION, "GAME_ENDED"},
    [-ROOM_E_OBSERVER] = {RPC_PERMISSION_DENIED, "OBSERVER"},
    [-ROOM_E_NO_OFFER] = {RPC_FAILED_PRECONDITION, "NO_OFFER"},
    [-ROOM_E_PENDING] = {RPC_FAILED_PRECONDITION, "OFFER_PENDING"},
};

void board_refusal(room_rc rc, rpc_code *code, const char **reason)
{
    *code = room_statuses[-rc].code;
    *reason = room_statuses[-rc].reason ? room_statuses[-rc].reason : reason_of(*code);
}

const char *board_reason_of(rpc_code code)
{
    return reason_of(code);
}

void board_refuse(rpc_call *call, room_rc rc, const char *why)
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
bool board_reloading(rpc_call *call, const room *r)
{
    if (!room_is_diverged(r))
        return false;
    char msg[96];
    snprintf(msg, sizeof msg, "game %s is being reloaded from its stored log; try again",
             room_id(r));
    rpc_call_finish_reason(call, RPC_UNAVAILABLE, "GAME_MOVING", msg);
    return true;
}

static int io_send(void *stream, const void *data, size_t len)
{
    return rpc_call_send_packed(stream, data, len);
}

static void io_finish(void *stream, room_rc rc, const char *why)
{
    rpc_call_on_done(stream, NULL, NULL);     /* the room has let it go */
    board_refuse(stream, rc, why);
}

static void io_move_done(void *reply, room_rc rc, uint64_t seq, const char *why)
{
    rpc_call_on_done(reply, NULL, NULL);
    if (rc != ROOM_OK) {
        board_refuse(reply, rc, why);
        return;
    }
    Sungka__V1__MoveResponse answer = SUNGKA__V1__MOVE_RESPONSE__INIT;
    answer.seq = seq;
    rpc_call_reply(reply, &answer.base);
}

/* A Play stream's move that could not be stored: a CommandRefused to its
 * stream (play_rpc.c). */
static void io_command_refused(void *stream, uint64_t id, room_rc rc, const char *why)
{
    rpc_code code;
    const char *reason;
    board_refusal(rc, &code, &reason);
    board_play_refused(stream, id, code, reason, why);
}

static const room_io rpc_io = {io_send, io_finish, io_move_done, io_command_refused};

/* Once nothing is on its way: the games whose change could not be stored
 * reloaded, and each changed game checked against its log (check_replay). */
static void after_commits(board_service *svc)
{
    if (svc->n_diverged > 0)
        board_reload_diverged(svc, board_now_ms());
    board_check_replay_or_abort(svc);
}

/* The turn hook: whatever a turn's handlers left pending is stored before
 * anything else reads a game or answers a client. */
static void end_turn(void *arg)
{
    board_service *svc = arg;
    room_commit_moves(svc);
    after_commits(svc);
}

/* The end of a poll: the turn's moves' commit sent and not waited for,
 * while the next turn's moves are played (room_turn_end). */
static void end_poll(void *arg)
{
    board_service *svc = arg;
    room_turn_end(svc);
    if (!room_moves_in_flight(svc))
        after_commits(svc);
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
    atomic_init(&svc->quiet, svc->cfg.quiet);
    board_log_open(svc);
    if (board_people_init(svc) != 0) {
        snprintf(err, errlen, "out of memory");
        free(svc);
        return -1;
    }
    if (board_limits_init(&svc->limits, BOARD_LIMIT_SLOTS) != 0) {
        snprintf(err, errlen, "out of memory");
        board_people_free(svc);
        free(svc);
        return -1;
    }
    if (svc->cfg.relay_key &&
        relay_key_load(svc->cfg.relay_key, svc->relay_key, err, errlen) != 0)
        goto fail_free;
    if (board_metrics_start(svc, err, errlen) != 0)
        goto fail_free;

    if (!svc->cfg.db || svc->cfg.db[0]) {
        char path[1024];
        if (!svc->cfg.db && store_default_path(path, sizeof path) != 0) {
            snprintf(err, errlen, "cannot make the data directory for %s (use --db PATH)",
                     path);
            goto fail_free;
        }
        if (store_open(svc->cfg.db ? svc->cfg.db : path, &svc->store, err, errlen) != 0)
            goto fail_free;
        if (store_open_notice(svc->store)[0])
            board_log_at(svc, LOG_NOTICE, "%s", store_open_notice(svc->store));
        /* A cluster's node recovers once it knows its endpoint, below. */
        if (!store_shared(svc->store) && board_recover(svc, err, errlen) != 0)
            goto fail_store;
    }

    if (board_admin_start(svc, err, errlen) != 0)
        goto fail_store;

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
    rpc_server_set_turn_end_hook(svc->server, end_poll, svc);
    rpc_server_set_refusal_hook(svc->server, board_metrics_refusal, svc);
    rpc_server_set_admit_hook(svc->server, board_admit, svc);
    if (rpc_server_add_methods(svc->server, &sungka__v1__register__descriptor,
                               board_games_methods, board_games_n_methods, svc) != 0 ||
        rpc_server_add_methods(svc->server, &sungka__v1__board__descriptor, board_play_methods,
                               board_play_n_methods, svc) != 0 ||
        rpc_server_add_methods(svc->server, &sungka__v1__accounts__descriptor,
                               board_accounts_methods, board_accounts_n_methods, svc) != 0 ||
        rpc_server_add_methods(svc->server, &sungka__v1__admin__descriptor,
                               board_admin_methods, board_admin_n_methods, svc) != 0 ||
        rpc_server_add_methods(svc->server, &sungka__v1__social_service__descriptor,
                               board_social_methods, board_social_n_methods, svc) != 0 ||
        rpc_server_add_methods(svc->server, &sungka__v1__tournament_service__descriptor,
                               board_tournament_methods, board_tournament_n_methods, svc) != 0 ||
        board_health_init(svc) != 0 || board_reflection_init(svc) != 0 ||
        rpc_server_start(svc->server) != 0 ||
        board_health_watch(svc) != 0) {
        snprintf(err, errlen, "cannot start the RPC server");
        goto fail_server;
    }
    if (board_accounts_start(svc, err, errlen) != 0)
        goto fail_accounts;
    if (board_analysis_start(svc, err, errlen) != 0)
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
    /* After the games: a tournament scores its games from them. */
    if (board_tournaments_recover(svc, err, errlen) != 0)
        goto fail_accounts;
    *out = svc;
    return 0;

fail_accounts:
    board_analysis_stop(svc);
    board_tournaments_free(svc);
    board_accounts_stop(svc);
fail_server:
    rpc_server_destroy(svc->server);
    board_health_free(svc);
    board_reflection_free(svc);
fail_store:
    board_admin_free(svc);
    board_rooms_free(svc);
    store_close(svc->store);
fail_free:
    board_metrics_free(svc);
    sodium_memzero(svc->relay_key, sizeof svc->relay_key);
    board_limits_free(&svc->limits);
    board_people_free(svc);
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

/* Everyone was last heard from now. */
static void forgive_silence(board_service *svc, int64_t now)
{
    board_log_at(svc, LOG_WARNING, "the service was stalled for %lld ms: nobody is departed for it",
                 (long long)(now - svc->next_ping_ms + svc->cfg.ping_interval_ms));
    for (int i = 0; i < svc->n_rooms; i++) {
        int n;
        participant *const *people = room_people(svc->rooms[i], &n, NULL);
        for (int k = 0; k < n; k++)
            if (!people[k]->departed)
                people[k]->last_seen_ms = now;
    }
}

static void run_timers(board_service *svc)
{
    int64_t now = board_now_ms();
    run_clocks(svc, now);
    board_pairing_tick(svc, now);
    board_tournaments_tick(svc, now);
    board_cluster_tick(svc, now);
    board_admin_tick(svc, now);
    if (svc->n_lost > 0)
        board_let_go_lost(svc);
    if (svc->n_diverged > 0)
        board_reload_diverged(svc, now);
    if (now < svc->next_ping_ms)
        return;
    /* The loop itself was away (the process stopped, the machine slept):
     * the silence was ours, not the players'. */
    if (svc->next_ping_ms && now - svc->next_ping_ms > svc->cfg.ping_timeout_ms / 2)
        forgive_silence(svc, now);
    svc->next_ping_ms = now + svc->cfg.ping_interval_ms;
    board_bots_reap(svc);
    board_clients_sweep(svc, now);
    board_accounts_tick(svc, now);
    size_t lost_now = rpc_server_take_lost_requests(svc->server);
    svc->lost_requests += lost_now;
    if (svc->released >= TRIM_AFTER_RELEASED ||
        (svc->lost_requests > 0 &&
         (lost_now == 0 || now - svc->last_trim_ms >= TRIM_LOST_EVERY_MS))) {
        /* glibc keeps freed memory in its arenas (gRPC's threads have their
         * own): 10,000 closed streams left 135 MB resident without this,
         * and 20 requests of 60 MB that gRPC read whole before refusing
         * them for size left 73 MB (19 MB with it). A trim after a crowd
         * left costs the loop 20-100 ms, once; for refused requests, once
         * they stop coming, and while they go on at most once every
         * TRIM_LOST_EVERY_MS, so a flood of them cannot make the loop trim
         * all the time. */
        malloc_trim(0);
        svc->released = 0;
        svc->lost_requests = 0;
        svc->last_trim_ms = now;
    }
    for (int i = svc->n_rooms - 1; i >= 0; i--) {
        room *r = svc->rooms[i];
        room_tick(r, now);
        if (room_is_diverged(r))
            continue;          /* reloaded at the next turn, not removed */
        int n_people;
        room_people(r, &n_people, NULL);
        bool stale_empty = room_status_of(r) == ROOM_WAITING && n_people == 0 &&
                           now - room_created_ms(r) > EMPTY_GAME_TTL_MS;
        if (room_is_idle(r) || stale_empty) {
            board_log(svc, "game %s removed (%s)", room_id(r),
                      stale_empty ? "nobody joined" : "over");
            if (svc->store && !stale_empty && store_game_forget(svc->store, room_id(r)) != 0)
                board_log_at(svc, LOG_ERR, "game %s: %s", room_id(r), store_last_error(svc->store));
            if (!stale_empty)
                board_cluster_note_removed(svc, r);
            room_end_streams(r, "the game is over and its players have gone");
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
        bool was_in_flight = room_moves_in_flight(svc);
        if (was_in_flight) {
            /* A commit is on its way: take what else has come meanwhile,
             * or else wait a little for it to land. */
            rpc_server_poll(svc->server, 0);
            if (rpc_server_turn_started(svc->server) == 0)
                room_moves_await(svc, FLIGHT_WAIT_MS);
            rpc_server_flush(svc->server);
        } else {
            rpc_server_poll(svc->server, (int)wait);   /* ends with end_poll */
        }
        /* The turn's work began with the poll's first completion, or now. */
        double started = svc->m.set ? rpc_server_turn_started(svc->server) : 0;
        if (svc->m.set && started == 0)
            started = metrics_now();
        if (room_moves_in_flight(svc)) {
            /* What follows (timers, the drains, a reload) must see nothing
             * pending, and so waits for it: at most CHORES_EVERY_MS after
             * a run of commits began (a timer is that late at most), then
             * again after as long, while they follow each other or one is
             * held up. */
            if (!was_in_flight)
                svc->chores_due_ms = board_now_ms() + CHORES_EVERY_MS;
            if (board_now_ms() < svc->chores_due_ms)
                continue;
            svc->chores_due_ms = board_now_ms() + CHORES_EVERY_MS;
            room_commit_moves(svc);
            rpc_server_flush(svc->server);
        }
        board_accounts_drain(svc);     /* password work done: answer its calls */
        board_analysis_drain(svc);     /* reviews done: store them */
        run_timers(svc);
        board_health_beat(svc, board_now_ms());
        board_metrics_turn(svc, started);
        if (svc->reload) {
            svc->reload = 0;
            if (svc->cfg.on_reload)
                svc->cfg.on_reload(svc, svc->cfg.hook_arg);
        }
    }
    room_commit_moves(svc);            /* what was on its way is answered */
    rpc_server_flush(svc->server);
    if (svc->cfg.on_stopping)
        svc->cfg.on_stopping(svc->cfg.hook_arg);
    board_log(svc, "shutting down");
    board_accounts_stop(svc);
    board_analysis_stop(svc);
    board_bots_stop(svc);
    board_pairing_close(svc, "the board service is shutting down");
    board_tournaments_close(svc, "the board service is shutting down");
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

void board_request_reload(board_service *svc)
{
    svc->reload = 1;
}

void board_destroy(board_service *svc)
{
    if (!svc)
        return;
    board_accounts_stop(svc);      /* before the server: it answers held calls */
    board_analysis_stop(svc);      /* before the server: its thread wakes the loop */
    if (svc->server)
        rpc_server_destroy(svc->server);
    board_health_free(svc);      /* after the server: its side thread reads it */
    board_reflection_free(svc);  /* the same */
    board_bots_stop(svc);
    board_rooms_free(svc);
    board_pairing_free(svc);     /* after the server: its done callbacks leave pools */
    board_tournaments_free(svc); /* the same, for its Watch streams */
    board_clients_free(svc);     /* after the rooms: their people point here */
    room_moves_free(svc);
    board_cluster_leave(svc);
    board_admin_free(svc);
    store_close(svc->store);
    board_people_free(svc);
    board_limits_free(&svc->limits);     /* after the server: its calls count here */
    board_metrics_free(svc);             /* ... and refusals here; stops the listener */
    sodium_memzero(svc->relay_key, sizeof svc->relay_key);
    for (int i = 0; i < BOARD_RECONF_STRINGS; i++)
        free(svc->reconf_strings[i]);
    free(svc);
}
