/*
 * agent.c — the player agent's life cycle and its view thread's intake:
 * starting (the connection, the reconnect thread, the first call or the
 * game the command line names) and stopping, the message queue the other
 * threads fill and agent_next empties, and blocking calls whose failures
 * are said in words. The agent's other files are listed in agent_internal.h.
 *
 * Threads: agent_start, agent_destroy and agent_next run on the view thread
 * (agent_start before there is one); agent__push and agent__unreachable on
 * any. agent_next drops the queued messages of a stream since replaced (by
 * generation, under ag->lock) and applies the rest to the model, which only
 * this thread touches.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"
#include "relay_key.h"

agent_methods agent__methods;

/* ------------------------------------------------------------- messages */

void agent_msg_free(agent_msg *msg)
{
    if (!msg)
        return;
    free(msg->steps);
    free(msg->cells);
    free(msg->people);
    free(msg);
}

static void free_item(void *item)
{
    agent_msg_free(item);
}

void agent__push(agent *ag, agent_msg *m)
{
    if (m && msgq_push(ag->queue, m) != 0)
        agent_msg_free(m);
}

void agent__push_text(agent *ag, agent_msg_kind kind, const char *text)
{
    agent_msg *m = agent__msg_new(kind);
    if (!m)
        return;
    snprintf(m->text, sizeof m->text, "%s", text);
    agent__push(ag, m);
}

/* ------------------------------------------------------ calls, in words */

/* gRPC's own sentences for a call that never reached the service, and what
 * they mean to a player, most specific first: with TLS (tls) and without. */
static const struct {
    const char *says;
    const char *plain, *tls;
} unreachable_causes[] = {
    {"certificate verify failed", NULL,
     "its certificate is not signed by the --tls-ca given"},
    {"Peer name", NULL, "its certificate does not name this host (see --tls-name)"},
    {"hostname", NULL, "its certificate does not name this host (see --tls-name)"},
    {"Connection refused", "nothing is listening there (connection refused)", NULL},
    {"DNS resolution failed", "no host of that name is known", NULL},
    {"Network is unreachable", "the network cannot reach that address", NULL},
    {"No route to host", "the network cannot reach that address", NULL},
    {"timed out", "no answer: the connection timed out", NULL},
    {"Timeout occurred", "no answer: the connection timed out", NULL},
    {"http2 header with status", "something answers there, but it is not a board service",
     NULL},
    {"empty address list", "the connection could not be set up",
     "the TLS settings cannot be used (see --tls-ca, --tls-cert and --tls-key)"},
    {"Socket closed", "it closed the connection at once (if the service uses TLS, give --tls)",
     "it closed the connection during the TLS handshake (does it use TLS? does it want a "
     "client certificate, --tls-cert and --tls-key?)"},
    {"Connection reset", "it closed the connection at once (if the service uses TLS, give "
     "--tls)", "it closed the connection during the TLS handshake"},
    {"andshake", "the connection could not be set up", "the TLS handshake failed"},
    {"failed to connect", "the connection failed", NULL},
};

bool agent__unreachable(const agent *ag, const rpc_status *st, char *out, size_t len)
{
    if (st->code == RPC_DEADLINE_EXCEEDED) {
        snprintf(out, len, "no answer within %d s", (ag->cfg.call_timeout_ms + 999) / 1000);
        return true;
    }
    if (st->code != RPC_UNAVAILABLE && st->code != RPC_UNKNOWN && st->code != RPC_INTERNAL)
        return false;
    if (ag->cfg.tls && !ag->cfg.tls_ca && strstr(st->message, "certificate verify failed")) {
        /* Not the --tls-ca's fault: there is none. */
        if (ag->trust.pinned)
            snprintf(out, len, "its certificate is no longer the one trusted for it in %s "
                               "(start again to compare them)", ag->trust.file);
        else
            snprintf(out, len, "its certificate is not signed by an authority this computer "
                               "trusts");
        return true;
    }
    size_t n = sizeof unreachable_causes / sizeof unreachable_causes[0];
    for (size_t i = 0; i < n; i++) {
        const char *words = ag->cfg.tls && unreachable_causes[i].tls ? unreachable_causes[i].tls
                                                                      : unreachable_causes[i].plain;
        if (words && strstr(st->message, unreachable_causes[i].says)) {
            snprintf(out, len, "%s", words);
            return true;
        }
    }
    return false;
}

int agent__call_sync(agent *ag, const rpc_method *m, const ProtobufCMessage *req,
                     const char *token, ProtobufCMessage **reply, char *err, size_t errlen,
                     const char *what)
{
    return agent__call_sync_code(ag, m, req, token, reply, err, errlen, what, NULL, NULL);
}

int agent__call_sync_code(agent *ag, const rpc_method *m, const ProtobufCMessage *req,
                          const char *token, ProtobufCMessage **reply, char *err, size_t errlen,
                          const char *what, rpc_code *code, char reason[AGENT_REASON_BYTES])
{
    rpc_status st;
    char at[AGENT_ADDRESS_BYTES];
    int rc;
    /* A cluster's node may send us to another (a game's host, or the next
     * --server when one does not answer): a few hops, then give up. */
    for (int hops = 0;; hops++) {
        rpc_pool_address(ag->pool, at, sizeof at);
        rc = rpc_client_call_sync(rpc_pool_client(ag->pool), m, req, token, ag->cfg.call_timeout_ms,
                                  reply, &st);
        if (rc == 0 || hops == AGENT_MAX_HOPS || !rpc_pool_follow(ag->pool, &st))
            break;
    }
    if (code)
        *code = st.code;
    if (reason)
        snprintf(reason, AGENT_REASON_BYTES, "%s", rc == 0 ? "" : st.reason);
    if (rc == 0)
        return 0;
    char words[AGENT_TEXT_BYTES];
    if (agent__unreachable(ag, &st, words, sizeof words)) {
        snprintf(err, errlen, "cannot reach the board service at %s: %s", at, words);
    } else {
        agent__text(words, sizeof words, st.message[0] ? st.message : rpc_code_name(st.code));
        snprintf(err, errlen, "%s: %s", what, words);
    }
    return -1;
}

/* ----------------------------------------------------------- life cycle */

void agent_library_verbose(bool verbose)
{
    rpc_set_verbose(verbose);
}

void agent_library_init(void)
{
    rpc_init();
    const ProtobufCServiceDescriptor *reg = &sungka__v1__register__descriptor;
    const ProtobufCServiceDescriptor *board = &sungka__v1__board__descriptor;
    const ProtobufCServiceDescriptor *acc = &sungka__v1__accounts__descriptor;
    const ProtobufCServiceDescriptor *social = &sungka__v1__social_service__descriptor;
    const ProtobufCServiceDescriptor *tour = &sungka__v1__tournament_service__descriptor;
    agent__methods = (agent_methods){
        .list_games = rpc_method_named(reg, "ListGames", false),
        .create_game = rpc_method_named(reg, "CreateGame", false),
        .join_game = rpc_method_named(reg, "JoinGame", false),
        .player_stats = rpc_method_named(reg, "GetPlayerStats", false),
        .leaderboard = rpc_method_named(reg, "Leaderboard", false),
        .rating_history = rpc_method_named(reg, "RatingHistory", false),
        .list_matches = rpc_method_named(reg, "ListMatches", false),
        .get_match = rpc_method_named(reg, "GetMatch", false),
        .get_analysis = rpc_method_named(reg, "GetAnalysis", false),
        .subscribe = rpc_method_named(board, "Subscribe", true),
        .play = rpc_method_named(board, "Play", true),
        .get_board = rpc_method_named(board, "GetBoard", false),
        .move = rpc_method_named(board, "Move", false),
        .chat = rpc_method_named(board, "Chat", false),
        .ping = rpc_method_named(board, "Ping", false),
        .leave = rpc_method_named(board, "Leave", false),
        .ready = rpc_method_named(board, "Ready", false),
        .sit = rpc_method_named(board, "Sit", false),
        .stand = rpc_method_named(board, "Stand", false),
        .resign = rpc_method_named(board, "Resign", false),
        .abort = rpc_method_named(board, "Abort", false),
        .offer_draw = rpc_method_named(board, "OfferDraw", false),
        .answer_draw = rpc_method_named(board, "AnswerDraw", false),
        .give_time = rpc_method_named(board, "GiveTime", false),
        .claim = rpc_method_named(board, "Claim", false),
        .rematch = rpc_method_named(board, "Rematch", false),
        .quick_pair = rpc_method_named(reg, "QuickPair", true),
        .create_account = rpc_method_named(acc, "CreateAccount", false),
        .sign_in = rpc_method_named(acc, "SignIn", false),
        .sign_out = rpc_method_named(acc, "SignOut", false),
        .sign_out_everywhere = rpc_method_named(acc, "SignOutEverywhere", false),
        .change_password = rpc_method_named(acc, "ChangePassword", false),
        .who_am_i = rpc_method_named(acc, "WhoAmI", false),
        .reset_password = rpc_method_named(acc, "ResetPassword", false),
        .block = rpc_method_named(social, "Block", false),
        .unblock = rpc_method_named(social, "Unblock", false),
        .list_blocked = rpc_method_named(social, "ListBlocked", false),
        .report = rpc_method_named(social, "Report", false),
        .create_tournament = rpc_method_named(tour, "CreateTournament", false),
        .join_tournament = rpc_method_named(tour, "JoinTournament", false),
        .list_tournaments = rpc_method_named(tour, "ListTournaments", false),
        .get_tournament = rpc_method_named(tour, "GetTournament", false),
        .watch_tournament = rpc_method_named(tour, "WatchTournament", true),
        .leave_tournament = rpc_method_named(tour, "LeaveTournament", false),
    };
}

void agent_library_shutdown(void)
{
    rpc_shutdown();
}


/* One address, or a cluster's several separated by commas: each of them
 * an address. The first bad one into bad. */
static bool addresses_ok(const char *list, char *bad, size_t len)
{
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        snprintf(bad, len, "%.*s", (int)n, p);
        if (n >= AGENT_ADDRESS_BYTES || !rpc_target_ok(bad))
            return false;
        if (!p[n])
            return true;
        p += n + 1;
    }
}

int agent_start(const agent_config *cfg, agent **out, char *err, size_t errlen)
{
    char bad[AGENT_ADDRESS_BYTES + 1] = "";
    if (!cfg->server || !addresses_ok(cfg->server, bad, sizeof bad)) {
        snprintf(err, errlen,
                 "cannot reach the board service at '%s': that is not an address; write "
                 "HOST:PORT, e.g. games.example.org:7070 (a cluster's nodes: "
                 "HOST:PORT,HOST:PORT)", bad);
        return -1;
    }
    agent *ag = calloc(1, sizeof *ag);
    if (!ag) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ag->cfg = *cfg;
    /* The first address names the service: its tokens, session and
     * certificate are kept under it. */
    snprintf(ag->first_server, sizeof ag->first_server, "%.*s",
             (int)strcspn(cfg->server, ","), cfg->server);
    ag->cfg.server = ag->first_server;
    if (ag->cfg.call_timeout_ms <= 0)
        ag->cfg.call_timeout_ms = 5000;
    if (ag->cfg.reconnect_for_ms <= 0)
        ag->cfg.reconnect_for_ms = 90000;
    ag->model.my_seat = -1;
    ag->model.hot_seat = -1;
    ag->model.draw_offer = -1;
    ag->model.clock_running = -1;
    ag->model.status = AGENT_GAME_WAITING;
    pthread_mutex_init(&ag->lock, NULL);
    pthread_cond_init(&ag->wake, NULL);
    if (!(ag->queue = msgq_create())) {
        snprintf(err, errlen, "cannot create the message queue");
        goto fail_agent;
    }
    if (agent__tls_trust(&ag->cfg, &ag->trust, err, errlen) != 0)
        goto fail_queue;
    ag->cfg.tls = ag->trust.tls;
    rpc_client_options *copts = &ag->client_opts;
    copts->use_tls = ag->trust.tls;
    copts->tls.ca = cfg->tls_ca;
    copts->tls.cert = cfg->tls_cert;
    copts->tls.key = cfg->tls_key;
    copts->tls_roots_pem = ag->trust.roots_pem;
    copts->tls_server_name = ag->trust.name[0] ? ag->trust.name : cfg->tls_name;
    copts->keepalive.time_ms = 10000;     /* no faster than the service permits (5 s) */
    copts->keepalive.timeout_ms = 5000;
    if (cfg->relay_key) {
        copts->headers[copts->n_headers++] = (rpc_header){RELAY_KEY_HEADER, cfg->relay_key};
        if (cfg->relay_for)
            copts->headers[copts->n_headers++] = (rpc_header){RELAY_FOR_HEADER, cfg->relay_for};
    }
    if (rpc_pool_create(cfg->server, copts, &ag->pool) != 0) {
        agent__tls_trust_free(&ag->trust);
        snprintf(err, errlen, "cannot open a channel to '%s'", cfg->server);
        goto fail_queue;
    }
    if (ag->trust.notice[0])
        agent__push_text(ag, AGENT_MSG_NOTICE, ag->trust.notice);
    if (agent__reconnector_start(ag) != 0) {
        snprintf(err, errlen, "cannot start the reconnect thread");
        goto fail_client;
    }
    agent__session_load(ag);       /* signed in on an earlier run: still so */
    /* --login: sign in before any game is joined, so the seat is the
     * account's. */
    if (cfg->login_name && agent_sign_in(ag, cfg->login_name, cfg->login_password ?
                                         cfg->login_password : "", err, errlen) != 0) {
        agent_destroy(ag);
        return -1;
    }
    if (cfg->new_kind || cfg->any_kind || cfg->game_id) {
        if (agent__go_to_game(ag, cfg->game_id, cfg->any_kind, cfg->new_kind, cfg->options,
                              cfg->n_options, cfg->observe, err, errlen) != 0) {
            if (cfg->start_failed)
                *cfg->start_failed = ag->lobby_failure;
            agent_destroy(ag);
            return -1;
        }
    } else {
        /* The lobby: gRPC connects lazily, so only a call shows whether a
         * service answers there; make one now rather than at the user's
         * first command, and never say "connected" to nobody. */
        agent_game_info *games = NULL;
        int n = 0;
        if (agent_list_games(ag, NULL, 0, &games, &n, err, errlen) != 0) {
            agent_destroy(ag);
            return -1;
        }
        free(games);
    }
    *out = ag;
    return 0;

fail_client:
    rpc_pool_destroy(ag->pool);
    agent__tls_trust_free(&ag->trust);
fail_queue:
    msgq_destroy(ag->queue, free_item);
fail_agent:
    pthread_cond_destroy(&ag->wake);
    pthread_mutex_destroy(&ag->lock);
    free(ag);
    return -1;
}

void agent_destroy(agent *ag)
{
    if (!ag)
        return;
    agent__reconnector_stop(ag);
    /* Cancels the streams and waits for every callback, so nothing pushes
     * onto the queue after this. */
    rpc_pool_destroy(ag->pool);
    agent__tls_trust_free(&ag->trust);
    msgq_destroy(ag->queue, free_item);
    pthread_cond_destroy(&ag->wake);
    pthread_mutex_destroy(&ag->lock);
    free(ag);
}

int agent_fd(const agent *ag)
{
    return msgq_fd(ag->queue);
}

const agent_model *agent_model_get(const agent *ag)
{
    return &ag->model;
}

const char *agent_name(const agent *ag)
{
    return ag->cfg.name;
}

const char *agent_game_id(const agent *ag)
{
    return ag->model.game_id;
}

/* ---------------------------------------------------- the view's intake */

/* The seat a holder of ours sits at now, as the service says (a snapshot's
 * your_seat, or a seat change by name): the token for moving is looked up
 * by seat, so an observer who sat down must be found at the new one. */
static void note_seat(agent *ag, const agent_msg *m)
{
    pthread_mutex_lock(&ag->lock);
    for (int i = 0; i < ag->n_held; i++) {
        bool ours = m->kind == AGENT_MSG_SNAPSHOT ? i == m->holder
                                                  : strcmp(ag->held[i].name, m->name) == 0;
        if (!ours)
            continue;
        ag->held[i].seat = m->kind == AGENT_MSG_SNAPSHOT ? m->my_seat : m->seat;
        if (i == 1)
            ag->model.hot_seat = ag->held[i].seat;
    }
    pthread_mutex_unlock(&ag->lock);
}

agent_msg *agent_next(agent *ag)
{
    agent_msg *m;
    while ((m = msgq_pop(ag->queue)) != NULL) {
        if (m->stream_gen == 0)
            break;                        /* not from a stream: always current */
        pthread_mutex_lock(&ag->lock);
        bool current = m->holder < ag->n_held && ag->held[m->holder].gen == m->stream_gen;
        pthread_mutex_unlock(&ag->lock);
        if (current)
            break;
        agent_msg_free(m);                /* from a subscription since replaced */
    }
    if (!m)
        return NULL;
    agent__model_apply(&ag->model, m);
    if (m->kind == AGENT_MSG_SNAPSHOT || m->kind == AGENT_MSG_SEAT) {
        note_seat(ag, m);
        agent__ready_if_seated(ag);
    }
    if (m->mismatch) {
        /* Our replay disagrees with the service: trust neither the model
         * nor the rest of this stream; start over from a fresh snapshot. */
        if (agent__subscribe(ag, 0, 0) == 0)
            snprintf(m->text + strlen(m->text), sizeof m->text - strlen(m->text),
                     "; resynchronising from a fresh snapshot");
    }
    return m;
}

/* For --help. */
void agent_print_kinds(void *file)
{
    FILE *out = file;
    for (int i = 0; i < game_kind_count(); i++) {
        const game_kind *k = game_kind_at(i);
        fprintf(out, "  %-10s %s\n", k->name, k->title);
        for (int j = 0; j < k->n_options; j++) {
            const game_option_spec *o = &k->options[j];
            fprintf(out, "  %10s %s=%d..%d (default %d)%s%s\n", "", o->name, o->min, o->max,
                    o->def, o->help ? ": " : "", o->help ? o->help : "");
        }
    }
}

