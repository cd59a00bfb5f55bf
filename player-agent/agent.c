/*
 * agent.c — the player agent's core: the connection, the seats it holds (one,
 * two in hot seat, or an observer's chair), their event streams and their
 * reconnection, the lobby calls and the game commands.
 *
 * Each seat we hold has its own subscription (the service pings every seat on
 * its own stream); the first seat's events feed the view, the second's only
 * answer pings. Every subscription has a generation number: messages and
 * stream ends of a subscription that has since been replaced are dropped,
 * so leaving a game, resynchronising or reconnecting never mixes streams.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent_internal.h"
#include "msgq.h"
#include "rpc.h"
#include "token_store.h"

#define MAX_HELD 2
#define RETRY_FIRST_MS 250
#define RETRY_MAX_MS 5000
#define PROGRESS_MS 10000      /* "still trying" at most this often */

/* A seat (or observer's chair) we hold, and the state of its stream. */
typedef struct holder {
    int seat;                  /* -1 observer */
    char name[AGENT_NAME_BYTES];
    char token[80];
    unsigned gen;              /* current subscription; 0: none */
    uint64_t received_seq;     /* last logged event received */
    int attempts;              /* reconnect attempts since the stream dropped */
    int64_t lost_ms;           /* when it dropped; 0 while fine */
    int64_t said_ms;           /* when the view last heard we are trying */
    int64_t retry_ms;          /* next attempt due; 0: none */
} holder;

struct agent {
    agent_config cfg;
    rpc_client *client;
    msgq *queue;
    agent_model model;         /* view thread only */

    pthread_mutex_t lock;      /* everything below */
    pthread_cond_t wake;       /* the reconnect thread's alarm clock */
    pthread_t reconnector;
    bool stopping;
    char game_id[32];
    holder held[MAX_HELD];
    int n_held;
    unsigned next_gen;

    /* view thread only */
    bool ready_pending[MAX_HELD];   /* --ready: say it for held[i] once seated */
};

typedef struct stream_ctx {
    agent *ag;
    int holder;
    unsigned gen;
} stream_ctx;

agent_methods agent__methods;

static int64_t now_ms(void)
{
    return agent_now_ms();
}

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

static void push(agent *ag, agent_msg *m)
{
    if (m && msgq_push(ag->queue, m) != 0)
        agent_msg_free(m);
}

static void push_text(agent *ag, agent_msg_kind kind, const char *text)
{
    agent_msg *m = agent__msg_new(kind);
    if (!m)
        return;
    snprintf(m->text, sizeof m->text, "%s", text);
    push(ag, m);
}

/* -------------------------------------------------------------- streams */

static void on_event(ProtobufCMessage *msg, void *user);
static void on_stream_end(const rpc_status *st, void *user);

/* Open a subscription for held[index] after `after_seq` (0: a fresh
 * snapshot), replacing its earlier one. Not with the lock held: rpc calls
 * and our callbacks both take locks. */
static int subscribe(agent *ag, int index, uint64_t after_seq)
{
    stream_ctx *ctx = malloc(sizeof *ctx);
    if (!ctx)
        return -1;
    char token[80];
    pthread_mutex_lock(&ag->lock);
    if (index >= ag->n_held) {
        pthread_mutex_unlock(&ag->lock);
        free(ctx);
        return -1;
    }
    ctx->ag = ag;
    ctx->holder = index;
    ctx->gen = ag->held[index].gen = ++ag->next_gen;
    snprintf(token, sizeof token, "%s", ag->held[index].token);
    pthread_mutex_unlock(&ag->lock);

    Sungka__V1__SubscribeRequest sub = SUNGKA__V1__SUBSCRIBE_REQUEST__INIT;
    sub.after_seq = after_seq;
    rpc_stream *stream;
    if (rpc_client_stream(ag->client, &agent__methods.subscribe, &sub.base, token, on_event, on_stream_end, ctx,
                          &stream) != 0) {
        free(ctx);
        return -1;
    }
    return 0;
}

static void ping_answered(const rpc_status *st, ProtobufCMessage *reply, void *user)
{
    (void)st;
    (void)user;
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
}

static void on_event(ProtobufCMessage *msg, void *user)
{
    stream_ctx *ctx = user;
    agent *ag = ctx->ag;
    Sungka__V1__Event *ev = (Sungka__V1__Event *)msg;
    char token[80], name[AGENT_NAME_BYTES];
    bool reconnected = false;
    uint64_t resumed_after = 0;

    pthread_mutex_lock(&ag->lock);
    holder *h = ctx->holder < ag->n_held ? &ag->held[ctx->holder] : NULL;
    if (!h || h->gen != ctx->gen) {          /* a replaced subscription */
        pthread_mutex_unlock(&ag->lock);
        protobuf_c_message_free_unpacked(msg, NULL);
        return;
    }
    if (h->attempts > 0) {
        reconnected = true;
        resumed_after = h->received_seq;
        h->attempts = 0;
        h->lost_ms = h->retry_ms = 0;
    }
    if (ev->seq > h->received_seq)
        h->received_seq = ev->seq;
    if (ev->body_case == SUNGKA__V1__EVENT__BODY_SNAPSHOT && ev->snapshot->last_seq > h->received_seq)
        h->received_seq = ev->snapshot->last_seq;
    snprintf(token, sizeof token, "%s", h->token);
    snprintf(name, sizeof name, "%s", h->name);
    pthread_mutex_unlock(&ag->lock);

    if (reconnected && ctx->holder == 0) {
        agent_msg *m = agent__msg_new(AGENT_MSG_RECONNECTED);
        if (m) {
            m->seq = resumed_after;
            snprintf(m->text, sizeof m->text, "reconnected to %s", ag->cfg.server);
        }
        push(ag, m);
    }
    agent_msg *out = NULL;
    if (ev->body_case == SUNGKA__V1__EVENT__BODY_PING) {
        /* Answer at once, here: a busy view must not look like a lost player. */
        Sungka__V1__PingReply pong = SUNGKA__V1__PING_REPLY__INIT;
        pong.nonce = ev->ping->nonce;
        rpc_client_call(ag->client, &agent__methods.ping, &pong.base, token, ag->cfg.call_timeout_ms,
                        ping_answered, NULL);
        if (ctx->holder == 0)
            out = agent__pings_msg(ev->ping);
    } else if (ctx->holder == 0 ||
               (ev->body_case == SUNGKA__V1__EVENT__BODY_CHAT && strcmp(ev->chat->to, name) == 0)) {
        /* the second seat's stream only adds what was said to it alone */
        out = agent__event_msg(ev);
    }
    /* A start or a move also says whose turn it is: the view hears that as
     * its own message, right after. */
    agent_msg *turn = out ? agent__turn_msg(ev) : NULL;
    agent_msg *batch[2] = {out, turn};
    for (int i = 0; i < 2 && batch[i]; i++) {
        batch[i]->stream_gen = ctx->gen;
        batch[i]->holder = ctx->holder;
        push(ag, batch[i]);
    }
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void on_stream_end(const rpc_status *st, void *user)
{
    stream_ctx *ctx = user;
    agent *ag = ctx->ag;
    char text[AGENT_TEXT_BYTES];
    agent_msg_kind kind = AGENT_MSG_RECONNECTING;

    pthread_mutex_lock(&ag->lock);
    holder *h = ctx->holder < ag->n_held ? &ag->held[ctx->holder] : NULL;
    if (ag->stopping || !h || h->gen != ctx->gen) {   /* expected: we replaced or left it */
        pthread_mutex_unlock(&ag->lock);
        free(ctx);
        return;
    }
    int64_t now = now_ms();
    char said[sizeof st->message];
    agent__text(said, sizeof said, st->message);
    text[0] = '\0';
    if (st->code == RPC_UNAUTHENTICATED || st->code == RPC_NOT_FOUND) {
        kind = AGENT_MSG_DISCONNECTED;
        snprintf(text, sizeof text, "the seat of %s is gone: %s", h->name, said);
    } else if (st->code == RPC_ABORTED) {
        kind = AGENT_MSG_DISCONNECTED;
        snprintf(text, sizeof text, "another agent took over the seat of %s", h->name);
    } else if (st->code == RPC_OK) {
        kind = AGENT_MSG_DISCONNECTED;
        snprintf(text, sizeof text, "the service closed the stream: %s", said);
    } else {
        /* Every failed attempt ends here. The view hears of it once, then
         * now and then, in words: gRPC's own sentence for each attempt
         * ("failed to connect to all addresses; last error: ...") says
         * nothing a player can act on. */
        int for_s = ag->cfg.reconnect_for_ms / 1000;
        if (!h->lost_ms) {
            h->lost_ms = h->said_ms = now;
            snprintf(text, sizeof text, "lost the connection to %s; trying again for %d s\u2026",
                     ag->cfg.server, for_s);
        }
        if (now - h->lost_ms > ag->cfg.reconnect_for_ms) {
            kind = AGENT_MSG_DISCONNECTED;
            snprintf(text, sizeof text, "could not reconnect within %d s; giving up", for_s);
        } else {
            int delay = RETRY_FIRST_MS << (h->attempts < 5 ? h->attempts : 5);
            if (delay > RETRY_MAX_MS)
                delay = RETRY_MAX_MS;
            h->attempts++;
            h->retry_ms = now + delay;
            if (!text[0] && now - h->said_ms >= PROGRESS_MS) {
                h->said_ms = now;
                snprintf(text, sizeof text, "still trying (%d s)\u2026",
                         (int)((now - h->lost_ms) / 1000));
            }
            pthread_cond_signal(&ag->wake);
        }
    }
    if (kind == AGENT_MSG_DISCONNECTED)
        h->gen = 0;          /* nothing more from this seat */
    bool primary = ctx->holder == 0;
    pthread_mutex_unlock(&ag->lock);
    if (text[0] && (primary || kind == AGENT_MSG_DISCONNECTED))
        push_text(ag, kind, text);
    free(ctx);
}

/* The reconnect thread: resubscribe each seat whose stream dropped, after
 * the last event it received, when its back-off is over. */
static void *reconnect_loop(void *arg)
{
    agent *ag = arg;
    pthread_mutex_lock(&ag->lock);
    while (!ag->stopping) {
        int64_t now = now_ms(), next = 0;
        int due = -1;
        for (int i = 0; i < ag->n_held; i++) {
            int64_t at = ag->held[i].retry_ms;
            if (!at)
                continue;
            if (at <= now && due < 0)
                due = i;
            else if (!next || at < next)
                next = at;
        }
        if (due >= 0) {
            uint64_t after = ag->held[due].received_seq;
            ag->held[due].retry_ms = 0;
            pthread_mutex_unlock(&ag->lock);
            subscribe(ag, due, after);
            pthread_mutex_lock(&ag->lock);
            continue;
        }
        if (next) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            int64_t wait = next - now;
            until.tv_sec += wait / 1000;
            until.tv_nsec += (wait % 1000) * 1000000;
            if (until.tv_nsec >= 1000000000) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&ag->wake, &ag->lock, &until);
        } else {
            pthread_cond_wait(&ag->wake, &ag->lock);
        }
    }
    pthread_mutex_unlock(&ag->lock);
    return NULL;
}

/* ---------------------------------------------------------------- lobby */

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
    {"Socket closed", "it closed the connection at once (if the service uses TLS, give --tls-ca)",
     "it closed the connection during the TLS handshake (does it use TLS? does it want a "
     "client certificate, --tls-cert and --tls-key?)"},
    {"Connection reset", "it closed the connection at once (if the service uses TLS, give "
     "--tls-ca)", "it closed the connection during the TLS handshake"},
    {"andshake", "the connection could not be set up", "the TLS handshake failed"},
    {"failed to connect", "the connection failed", NULL},
};

/* When st says the call never reached the service, what that means in
 * words (into out) and true; false when st is the service's own answer. */
static bool unreachable(const agent *ag, const rpc_status *st, char *out, size_t len)
{
    if (st->code == RPC_DEADLINE_EXCEEDED) {
        snprintf(out, len, "no answer within %d s", (ag->cfg.call_timeout_ms + 999) / 1000);
        return true;
    }
    if (st->code != RPC_UNAVAILABLE && st->code != RPC_UNKNOWN && st->code != RPC_INTERNAL)
        return false;
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
    rpc_status st;
    if (rpc_client_call_sync(ag->client, m, req, token, ag->cfg.call_timeout_ms, reply, &st) ==
        0)
        return 0;
    char words[AGENT_TEXT_BYTES];
    if (unreachable(ag, &st, words, sizeof words)) {
        snprintf(err, errlen, "cannot reach the board service at %s: %s", ag->cfg.server, words);
    } else {
        agent__text(words, sizeof words, st.message[0] ? st.message : rpc_code_name(st.code));
        snprintf(err, errlen, "%s: %s", what, words);
    }
    return -1;
}

static void options_to_wire(const game_kind *kind, const game_options *opts,
                            Sungka__V1__GameOption *option, Sungka__V1__GameOption **optp)
{
    for (int i = 0; i < kind->n_options; i++) {
        sungka__v1__game_option__init(&option[i]);
        option[i].name = (char *)kind->options[i].name;
        option[i].value = opts->value[i];
        optp[i] = &option[i];
    }
}

/* Check "name=value" options locally, for an early and precise error. */
static const game_kind *parse_kind(const char *kind_name, const char *const *options, int n,
                                   game_options *opts, char *err, size_t errlen)
{
    const game_kind *kind = game_kind_find(kind_name);
    if (!kind) {
        int len = snprintf(err, errlen, "unknown game kind '%s' (kinds:", kind_name);
        for (int i = 0; i < game_kind_count() && len < (int)errlen; i++)
            len += snprintf(err + len, errlen - (size_t)len, " %s", game_kind_at(i)->name);
        if (len < (int)errlen)
            snprintf(err + len, errlen - (size_t)len, ")");
        return NULL;
    }
    game_options_default(kind, opts);
    for (int i = 0; i < n; i++)
        if (game_options_parse(kind, opts, options[i], err, errlen) != GAME_OK)
            return NULL;
    return kind;
}

/* Join game_id (or any game of any_kind) as `name`; fills *h and game_id. */
static int join_one(agent *ag, const char *game_id, const char *any_kind,
                    const game_kind *kind, const game_options *opts, const char *name,
                    bool observe, holder *h, char *joined_id, char *err, size_t errlen)
{
    Sungka__V1__JoinGameRequest req = SUNGKA__V1__JOIN_GAME_REQUEST__INIT;
    Sungka__V1__GameOption option[GAME_MAX_OPTIONS];
    Sungka__V1__GameOption *optp[GAME_MAX_OPTIONS];
    req.game_id = (char *)(game_id ? game_id : "");
    req.name = (char *)name;
    req.observe = observe;
    if (any_kind) {
        req.any_of_kind = (char *)any_kind;
        options_to_wire(kind, opts, option, optp);
        req.n_options = (size_t)kind->n_options;
        req.options = optp;
    }
    rpc_method m = agent__methods.join_game;
    ProtobufCMessage *reply = NULL;
    char what[160];
    snprintf(what, sizeof what, "cannot join %s%s as %s", game_id ? "game " : "a game of ",
             game_id ? game_id : any_kind, name);
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen, what) != 0)
        return -1;
    Sungka__V1__BoardRef *ref = (Sungka__V1__BoardRef *)reply;
    memset(h, 0, sizeof *h);
    h->seat = ref->seat;
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->token, sizeof h->token, "%s", ref->token);
    agent__text(joined_id, 32, ref->game_id);
    protobuf_c_message_free_unpacked(reply, NULL);
    token_store_put(ag->cfg.state_dir, ag->cfg.server, joined_id, name, h->seat, h->token);
    return 0;
}

/* A saved token (or the one given, `given`) still good for this game?
 * (GetBoard answers only its holder.) */
static int resume_one(agent *ag, const char *game_id, const char *name, const char *given,
                      holder *h)
{
    char token[80];
    int seat = ag->cfg.take_seat ? ag->cfg.seat : -1;   /* the snapshot says for sure */
    if (given)
        snprintf(token, sizeof token, "%s", given);
    else if (token_store_find(ag->cfg.state_dir, ag->cfg.server, game_id, name, token,
                              sizeof token, &seat) != 0)
        return -1;
    Sungka__V1__GetBoardRequest req = SUNGKA__V1__GET_BOARD_REQUEST__INIT;
    rpc_method m = agent__methods.get_board;
    ProtobufCMessage *reply = NULL;
    char err[256];
    if (agent__call_sync(ag, &m, &req.base, token, &reply, err, sizeof err, "resume") != 0) {
        if (!given)
            token_store_drop(ag->cfg.state_dir, ag->cfg.server, game_id, name);
        return -1;
    }
    protobuf_c_message_free_unpacked(reply, NULL);
    memset(h, 0, sizeof *h);
    h->seat = seat;
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->token, sizeof h->token, "%s", token);
    return 0;
}

static void send_ready(agent *ag, const char *token, bool ready);

/* We hold these seats of game_id now: remember them and subscribe. With
 * `ready`, each says ready once the snapshot shows it seated in a game
 * still waiting (ready_if_seated): a seat taken back with a saved token as
 * well as a new one, since the player may not have been ready when their
 * agent died, and not before, since a running game refuses it. */
static void enter_game(agent *ag, const char *game_id, const holder *held, int n, bool ready)
{
    pthread_mutex_lock(&ag->lock);
    snprintf(ag->game_id, sizeof ag->game_id, "%s", game_id);
    for (int i = 0; i < n; i++)
        ag->held[i] = held[i];
    ag->n_held = n;
    pthread_mutex_unlock(&ag->lock);

    agent_model *md = &ag->model;
    snprintf(md->my_name, sizeof md->my_name, "%s", held[0].name);
    md->my_seat = held[0].seat;
    md->hot_seat = n > 1 ? held[1].seat : -1;
    snprintf(md->game_id, sizeof md->game_id, "%s", game_id);
    for (int i = 0; i < MAX_HELD; i++)
        ag->ready_pending[i] = ready && i < n;
    for (int i = 0; i < n; i++)
        subscribe(ag, i, 0);
}

/* --ready: say it for each seat we hold once the model shows it seated in a
 * game still waiting (an observer's chair waits for a seat); once each. */
static void ready_if_seated(agent *ag)
{
    const agent_model *md = &ag->model;
    int seats[MAX_HELD] = {md->my_seat, md->hot_seat};
    for (int i = 0; i < MAX_HELD; i++) {
        if (!ag->ready_pending[i])
            continue;
        if (md->status != AGENT_GAME_WAITING) {
            ag->ready_pending[i] = false;     /* too late: it started or ended */
            continue;
        }
        if (seats[i] < 0)
            continue;
        ag->ready_pending[i] = false;
        bool ready = false;
        for (int k = 0; k < md->n_people; k++)
            if (md->people[k].seat == seats[i])
                ready = md->people[k].ready;
        char token[80] = "";
        pthread_mutex_lock(&ag->lock);
        if (i < ag->n_held)
            snprintf(token, sizeof token, "%s", ag->held[i].token);
        pthread_mutex_unlock(&ag->lock);
        if (!ready && token[0])
            send_ready(ag, token, true);
    }
}

/* Leave every seat we hold (blocking); forget their saved tokens. */
static int leave_game(agent *ag)
{
    holder held[MAX_HELD];
    char game_id[32];
    pthread_mutex_lock(&ag->lock);
    int n = ag->n_held;
    memcpy(held, ag->held, sizeof held);
    snprintf(game_id, sizeof game_id, "%s", ag->game_id);
    ag->n_held = 0;            /* our streams' ends and events are stale now */
    memset(ag->ready_pending, 0, sizeof ag->ready_pending);
    for (int i = 0; i < MAX_HELD; i++) {
        ag->held[i].gen = 0;
        ag->held[i].retry_ms = 0;
    }
    pthread_mutex_unlock(&ag->lock);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        Sungka__V1__LeaveRequest req = SUNGKA__V1__LEAVE_REQUEST__INIT;
        rpc_method m = agent__methods.leave;
        ProtobufCMessage *reply = NULL;
        char err[256];
        if (agent__call_sync(ag, &m, &req.base, held[i].token, &reply, err, sizeof err, "leave") != 0)
            rc = -1;
        if (reply)
            protobuf_c_message_free_unpacked(reply, NULL);
        token_store_drop(ag->cfg.state_dir, ag->cfg.server, game_id, held[i].name);
    }
    agent_model *md = &ag->model;
    md->have_state = false;
    md->game_id[0] = '\0';
    md->n_people = 0;
    return rc;
}

/* --seat N: we joined as an observer; take that seat now (blocking). */
static int observe_then_sit(agent *ag, holder *h, char *err, size_t errlen)
{
    Sungka__V1__SitRequest req = SUNGKA__V1__SIT_REQUEST__INIT;
    req.seat = ag->cfg.seat;
    rpc_method m = agent__methods.sit;
    ProtobufCMessage *reply = NULL;
    char what[64];
    snprintf(what, sizeof what, "cannot take seat %d", ag->cfg.seat);
    if (agent__call_sync(ag, &m, &req.base, h->token, &reply, err, errlen, what) != 0)
        return -1;
    protobuf_c_message_free_unpacked(reply, NULL);
    h->seat = ag->cfg.seat;
    return 0;
}

/* Sit at a game: by id, any of a kind, or a new one (kind with options). */
static int go_to_game(agent *ag, const char *game_id, const char *any_kind, const char *new_kind,
                      const char *const *options, int n_options, bool observe, char *err,
                      size_t errlen)
{
    /* "bots=N" and "bot-level=N" ride along with a new game's options (the
     * text view's `new kalah bots=1`); they are not rules options. */
    const char *rules_options[GAME_MAX_OPTIONS + 2];
    int n_rules = 0;
    int bots = ag->cfg.bots, bot_level = ag->cfg.bot_level;
    for (int i = 0; i < n_options; i++) {
        if (strncmp(options[i], "bots=", 5) == 0)
            bots = atoi(options[i] + 5);
        else if (strncmp(options[i], "bot-level=", 10) == 0)
            bot_level = atoi(options[i] + 10);
        else if (n_rules < GAME_MAX_OPTIONS + 2)
            rules_options[n_rules++] = options[i];
    }
    game_options opts;
    const game_kind *kind = NULL;
    const char *kind_name = new_kind ? new_kind : any_kind;
    if (kind_name &&
        !(kind = parse_kind(kind_name, rules_options, n_rules, &opts, err, errlen)))
        return -1;
    char id[32] = "";
    if (game_id)
        snprintf(id, sizeof id, "%s", game_id);
    if (new_kind) {
        Sungka__V1__GameOption option[GAME_MAX_OPTIONS];
        Sungka__V1__GameOption *optp[GAME_MAX_OPTIONS];
        options_to_wire(kind, &opts, option, optp);
        Sungka__V1__CreateGameRequest req = SUNGKA__V1__CREATE_GAME_REQUEST__INIT;
        req.kind = (char *)kind->name;
        req.n_options = (size_t)kind->n_options;
        req.options = optp;
        req.title = (char *)(ag->cfg.title ? ag->cfg.title : "");
        req.autostart = ag->cfg.autostart;
        req.bots = bots;
        req.bot_level = bot_level;
        rpc_method m = agent__methods.create_game;
        ProtobufCMessage *reply = NULL;
        if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen, "cannot create the game") !=
            0)
            return -1;
        Sungka__V1__CreateGameReply *created = (Sungka__V1__CreateGameReply *)reply;
        agent__text(id, sizeof id, created->game ? created->game->game_id : "");
        protobuf_c_message_free_unpacked(reply, NULL);
        game_id = id;
        any_kind = NULL;
    }
    if (agent_in_game(ag))
        leave_game(ag);

    const char *names[MAX_HELD] = {ag->cfg.name, ag->cfg.hot_seat};
    int n = ag->cfg.hot_seat && !observe ? 2 : 1;
    holder held[MAX_HELD];
    bool resumed = false;
    for (int i = 0; i < n; i++) {
        const char *given = i == 0 ? ag->cfg.seat_token : NULL;
        if (game_id && !new_kind && resume_one(ag, game_id, names[i], given, &held[i]) == 0) {
            resumed = true;
            continue;
        }
        if (given) {
            snprintf(err, errlen, "the seat token given does not hold a seat of game %s",
                     game_id ? game_id : "(none: --game is needed)");
            return -1;
        }
        /* the hot seat's second player goes to the game the first one got */
        const char *target = i > 0 ? id : game_id;
        bool watch = observe || (i == 0 && ag->cfg.take_seat);
        if (join_one(ag, target, i > 0 ? NULL : any_kind, kind, &opts, names[i], watch,
                     &held[i], id, err, errlen) != 0) {
            if (i > 0) {        /* give the first seat back */
                enter_game(ag, id, held, i, false);
                leave_game(ag);
            }
            return -1;
        }
    }
    if (ag->cfg.take_seat && !resumed && observe_then_sit(ag, &held[0], err, errlen) != 0) {
        enter_game(ag, id, held, 1, false);
        leave_game(ag);
        return -1;
    }
    enter_game(ag, id, held, n, ag->cfg.ready);
    return 0;
}

int agent_list_games(agent *ag, const char *kind, agent_status status, agent_game_info **out,
                     int *n, char *err, size_t errlen)
{
    Sungka__V1__ListGamesRequest req = SUNGKA__V1__LIST_GAMES_REQUEST__INIT;
    req.kind = (char *)(kind ? kind : "");
    req.status = (Sungka__V1__GameStatus)status;   /* same numbers */
    rpc_method m = agent__methods.list_games;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen, "cannot list the games") != 0)
        return -1;
    Sungka__V1__ListGamesReply *list = (Sungka__V1__ListGamesReply *)reply;
    *out = calloc(list->n_games + 1, sizeof **out);
    if (!*out) {
        protobuf_c_message_free_unpacked(reply, NULL);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < list->n_games; i++)
        agent__game_info(list->games[i], &(*out)[i]);
    *n = (int)list->n_games;
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

int agent_new_game(agent *ag, const char *kind, const char *const *options, int n_options,
                   char *err, size_t errlen)
{
    return go_to_game(ag, NULL, NULL, kind, options, n_options, false, err, errlen);
}

int agent_join_game(agent *ag, const char *game_id, bool observe, char *err, size_t errlen)
{
    return go_to_game(ag, game_id, NULL, NULL, NULL, 0, observe, err, errlen);
}

bool agent_in_game(const agent *ag)
{
    agent *mut = (agent *)ag;          /* the lock, not the data, changes */
    pthread_mutex_lock(&mut->lock);
    bool in = ag->n_held > 0;
    pthread_mutex_unlock(&mut->lock);
    return in;
}

/* ---------------------------------------------------------- life cycle */

void agent_library_verbose(bool verbose)
{
    rpc_set_verbose(verbose);
}

void agent_library_init(void)
{
    rpc_init();
    const ProtobufCServiceDescriptor *reg = &sungka__v1__register__descriptor;
    const ProtobufCServiceDescriptor *board = &sungka__v1__board__descriptor;
    agent__methods = (agent_methods){
        .list_games = rpc_method_named(reg, "ListGames", false),
        .create_game = rpc_method_named(reg, "CreateGame", false),
        .join_game = rpc_method_named(reg, "JoinGame", false),
        .player_stats = rpc_method_named(reg, "GetPlayerStats", false),
        .leaderboard = rpc_method_named(reg, "Leaderboard", false),
        .list_matches = rpc_method_named(reg, "ListMatches", false),
        .get_match = rpc_method_named(reg, "GetMatch", false),
        .subscribe = rpc_method_named(board, "Subscribe", true),
        .get_board = rpc_method_named(board, "GetBoard", false),
        .move = rpc_method_named(board, "Move", false),
        .chat = rpc_method_named(board, "Chat", false),
        .ping = rpc_method_named(board, "Ping", false),
        .leave = rpc_method_named(board, "Leave", false),
        .ready = rpc_method_named(board, "Ready", false),
        .sit = rpc_method_named(board, "Sit", false),
        .stand = rpc_method_named(board, "Stand", false),
    };
}

void agent_library_shutdown(void)
{
    rpc_shutdown();
}

/* "HOST:PORT", with an IPv6 host in brackets; a gRPC target with a scheme
 * ("unix:PATH", "dns:///HOST:PORT") is left to gRPC. Said here, because
 * gRPC would try to resolve almost anything and fail in its own words. */
static bool address_ok(const char *s)
{
    if (strncmp(s, "unix:", 5) == 0)
        return s[5] != '\0';
    if (strstr(s, ":///"))
        return true;
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || !colon[1] || strlen(colon + 1) > 5)
        return false;
    for (const char *c = colon + 1; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    long port = strtol(colon + 1, NULL, 10);
    if (port < 1 || port > 65535)
        return false;
    if (s[0] == '[')
        return colon[-1] == ']' && colon - s > 2;
    for (const char *c = s; c < colon; c++)
        if (*c == ':' || *c == '[' || *c == ']' || (unsigned char)*c <= ' ')
            return false;
    return true;
}

int agent_start(const agent_config *cfg, agent **out, char *err, size_t errlen)
{
    if (!cfg->server || !address_ok(cfg->server)) {
        snprintf(err, errlen,
                 "cannot reach the board service at '%s': that is not an address; write "
                 "HOST:PORT, e.g. games.example.org:7070",
                 cfg->server ? cfg->server : "");
        return -1;
    }
    agent *ag = calloc(1, sizeof *ag);
    if (!ag) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ag->cfg = *cfg;
    if (ag->cfg.call_timeout_ms <= 0)
        ag->cfg.call_timeout_ms = 5000;
    if (ag->cfg.reconnect_for_ms <= 0)
        ag->cfg.reconnect_for_ms = 90000;
    ag->model.my_seat = -1;
    ag->model.hot_seat = -1;
    ag->model.status = AGENT_GAME_WAITING;
    pthread_mutex_init(&ag->lock, NULL);
    pthread_cond_init(&ag->wake, NULL);
    if (!(ag->queue = msgq_create())) {
        snprintf(err, errlen, "cannot create the message queue");
        goto fail_agent;
    }
    rpc_client_options copts = {0};
    copts.use_tls = cfg->tls;
    copts.tls.ca = cfg->tls_ca;
    copts.tls.cert = cfg->tls_cert;
    copts.tls.key = cfg->tls_key;
    copts.tls_server_name = cfg->tls_name;
    copts.keepalive.time_ms = 10000;     /* no faster than the service permits (5 s) */
    copts.keepalive.timeout_ms = 5000;
    if (rpc_client_create(cfg->server, &copts, &ag->client) != 0) {
        snprintf(err, errlen, "cannot open a channel to '%s'", cfg->server);
        goto fail_queue;
    }
    if (pthread_create(&ag->reconnector, NULL, reconnect_loop, ag) != 0) {
        snprintf(err, errlen, "cannot start the reconnect thread");
        goto fail_client;
    }
    if (cfg->new_kind || cfg->any_kind || cfg->game_id) {
        if (go_to_game(ag, cfg->game_id, cfg->any_kind, cfg->new_kind, cfg->options,
                       cfg->n_options, cfg->observe, err, errlen) != 0) {
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
    rpc_client_destroy(ag->client);
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
    pthread_mutex_lock(&ag->lock);
    ag->stopping = true;
    pthread_cond_signal(&ag->wake);
    pthread_mutex_unlock(&ag->lock);
    pthread_join(ag->reconnector, NULL);
    /* Cancels the streams and waits for every callback, so nothing pushes
     * onto the queue after this. */
    rpc_client_destroy(ag->client);
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
        ready_if_seated(ag);
    }
    if (m->mismatch) {
        /* Our replay disagrees with the service: trust neither the model
         * nor the rest of this stream; start over from a fresh snapshot. */
        if (subscribe(ag, 0, 0) == 0)
            snprintf(m->text + strlen(m->text), sizeof m->text - strlen(m->text),
                     "; resynchronising from a fresh snapshot");
    }
    return m;
}

const char *agent_seat_name(const agent_model *m, int seat, char *buf, size_t len)
{
    if (seat >= 0 && seat < GAME_MAX_SEATS && m->seat_name[seat][0])
        return m->seat_name[seat];
    snprintf(buf, len, "seat %d", seat);
    return buf;
}

/* ------------------------------------------------------------- commands */

static void command_done(const rpc_status *st, ProtobufCMessage *reply, void *user)
{
    agent *ag = user;
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
    if (st->code != RPC_OK) {
        char said[AGENT_TEXT_BYTES], words[200];
        if (unreachable(ag, st, words, sizeof words))
            snprintf(said, sizeof said, "cannot reach the board service at %.200s: %s",
                     ag->cfg.server, words);
        else
            agent__text(said, sizeof said, st->message[0] ? st->message : rpc_code_name(st->code));
        push_text(ag, AGENT_MSG_REFUSED, said);
    }
}

/* The token of the seat we hold that is `seat` (any seat: -2), else NULL. */
static bool token_of(agent *ag, int seat, char *token, size_t len)
{
    bool found = false;
    pthread_mutex_lock(&ag->lock);
    for (int i = 0; i < ag->n_held && !found; i++) {
        if (seat == -2 || ag->held[i].seat == seat) {
            snprintf(token, len, "%s", ag->held[i].token);
            found = true;
        }
    }
    pthread_mutex_unlock(&ag->lock);
    return found;
}

static int command(agent *ag, const rpc_method *m, const ProtobufCMessage *req, int seat)
{
    char token[80];
    if (!token_of(ag, seat, token, sizeof token))
        return -1;
    return rpc_client_call(ag->client, m, req, token, ag->cfg.call_timeout_ms, command_done, ag);
}

bool agent_holds_seat(const agent *ag, int seat)
{
    const agent_model *md = &ag->model;
    return seat >= 0 && (seat == md->my_seat || seat == md->hot_seat);
}

int agent_check_move(const agent *ag, int move, char *why, size_t len)
{
    const agent_model *md = &ag->model;
    char buf[40];
    if (md->my_seat < 0) {
        snprintf(why, len, "observers cannot move");
        return -1;
    }
    if (md->status == AGENT_GAME_WAITING) {
        snprintf(why, len, "the game has not started");
        return -1;
    }
    if (md->status != AGENT_GAME_RUNNING || !md->have_state) {
        snprintf(why, len, "the game is over");
        return -1;
    }
    int to_move = game_to_move(&md->state);
    if (!agent_holds_seat(ag, to_move)) {
        snprintf(why, len, "it is %s's turn", agent_seat_name(md, to_move, buf, sizeof buf));
        return -1;
    }
    return game_check(&md->state, to_move, move, why, len) == GAME_OK ? 0 : -1;
}

int agent_legal_moves(const agent *ag, int *moves, int max)
{
    const agent_model *md = &ag->model;
    if (!md->have_state || md->status != AGENT_GAME_RUNNING)
        return 0;
    return game_legal_moves(&md->state, moves, max);
}

int agent_move(agent *ag, int move)
{
    Sungka__V1__MoveRequest req = SUNGKA__V1__MOVE_REQUEST__INIT;
    req.move = move;
    /* hot seat: move for whichever of our seats is to move */
    int to_move = ag->model.have_state ? game_to_move(&ag->model.state) : -1;
    int seat = agent_holds_seat(ag, to_move) ? to_move : ag->model.my_seat;
    return command(ag, &agent__methods.move, &req.base, seat);
}

int agent_chat(agent *ag, const char *text)
{
    return agent_tell(ag, NULL, text);
}

int agent_tell(agent *ag, const char *to, const char *text)
{
    Sungka__V1__ChatRequest req = SUNGKA__V1__CHAT_REQUEST__INIT;
    req.text = (char *)text;
    req.to = (char *)(to ? to : "");
    return command(ag, &agent__methods.chat, &req.base, -2);
}

static void send_ready(agent *ag, const char *token, bool ready)
{
    Sungka__V1__ReadyRequest req = SUNGKA__V1__READY_REQUEST__INIT;
    req.ready = ready;
    rpc_method m = agent__methods.ready;
    rpc_client_call(ag->client, &m, &req.base, token, ag->cfg.call_timeout_ms, command_done, ag);
}

int agent_ready(agent *ag, bool ready)
{
    holder held[MAX_HELD];
    pthread_mutex_lock(&ag->lock);
    int n = ag->n_held;
    memcpy(held, ag->held, sizeof held);
    pthread_mutex_unlock(&ag->lock);
    if (!n)
        return -1;
    for (int i = 0; i < n; i++)
        send_ready(ag, held[i].token, ready);
    return 0;
}

int agent_sit(agent *ag, int seat)
{
    Sungka__V1__SitRequest req = SUNGKA__V1__SIT_REQUEST__INIT;
    req.seat = seat;
    return command(ag, &agent__methods.sit, &req.base, -2);
}

int agent_stand(agent *ag)
{
    Sungka__V1__StandRequest req = SUNGKA__V1__STAND_REQUEST__INIT;
    return command(ag, &agent__methods.stand, &req.base, -2);
}

int agent_leave(agent *ag)
{
    if (!agent_in_game(ag))
        return 0;
    return leave_game(ag);
}

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
