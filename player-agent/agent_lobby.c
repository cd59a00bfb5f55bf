/*
 * agent_lobby.c — going to a game and leaving it: list the games, make one,
 * join one (or take a seat back with a saved token), leave; quick pairing,
 * and tournaments (list, make, standings, and play: join, watch until the
 * tournament seats us, then the game as any other). Blocking
 * Register and Board calls with the agent's deadline, each failure a
 * sentence for the player.
 *
 * Threads: the view thread only (and agent_start, before there is one). It
 * sets the holders, with ag->lock held, before their streams start; the
 * model, ready_pending and the token store it touches without the lock,
 * since no other thread does.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"
#include "token_store.h"

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
/* The failure a view says (agent_lobby_failed): view thread only. */
static void lobby_failed(agent *ag, agent_lobby_error code, const char *arg)
{
    ag->lobby_failure.code = code;
    snprintf(ag->lobby_failure.arg, sizeof ag->lobby_failure.arg, "%s", arg ? arg : "");
}

const agent_lobby_failure *agent_lobby_failed(const agent *ag)
{
    return &ag->lobby_failure;
}

static const game_kind *parse_kind(agent *ag, const char *kind_name, const char *const *options,
                                   int n, game_options *opts, char *err, size_t errlen)
{
    const game_kind *kind = game_kind_find(kind_name);
    if (!kind) {
        lobby_failed(ag, AGENT_LOBBY_UNKNOWN_KIND, kind_name);
        int len = snprintf(err, errlen, "unknown game kind '%s' (kinds:", kind_name);
        for (int i = 0; i < game_kind_count() && len < (int)errlen; i++)
            len += snprintf(err + len, errlen - (size_t)len, " %s", game_kind_at(i)->name);
        if (len < (int)errlen)
            snprintf(err + len, errlen - (size_t)len, ")");
        return NULL;
    }
    game_options_default(kind, opts);
    for (int i = 0; i < n; i++)
        if (game_options_parse(kind, opts, options[i], err, errlen) != GAME_OK) {
            lobby_failed(ag, AGENT_LOBBY_BAD_OPTION, options[i]);
            return NULL;
        }
    return kind;
}

/* Join game_id (or any game of any_kind) as `name`; fills *h and game_id. */
static int join_one(agent *ag, const char *game_id, const char *any_kind,
                    const game_kind *kind, const game_options *opts, const char *name,
                    const char *session, bool observe, agent_holder *h, char *joined_id,
                    agent_lobby_failure *failed, char *err, size_t errlen)
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
    rpc_code code;
    char reason[AGENT_REASON_BYTES];
    if (agent__call_sync_code(ag, &m, &req.base, session, &reply, err, errlen, what,
                              &code, reason) != 0) {
        if (failed) {          /* the view's call (failed is the view thread's) */
            failed->code = reason[0] ? AGENT_LOBBY_REFUSED : AGENT_LOBBY_OTHER;
            snprintf(failed->reason, sizeof failed->reason, "%s", reason);
        }
        if (session)
            agent__session_refused(ag, code, err, errlen);
        return -1;
    }
    Sungka__V1__BoardRef *ref = (Sungka__V1__BoardRef *)reply;
    if (session)
        name = ag->account;       /* the seat bears the account's name as registered */
    memset(h, 0, sizeof *h);
    h->seat = agent__seat_of(ref->seat);
    snprintf(h->name, sizeof h->name, "%s", name);
    snprintf(h->token, sizeof h->token, "%s", ref->token);
    agent__text(joined_id, 32, ref->game_id);
    protobuf_c_message_free_unpacked(reply, NULL);
    token_store_put(ag->cfg.state_dir, ag->cfg.server, joined_id, name, h->seat, h->token);
    return 0;
}

int agent__rejoin(agent *ag, int index)
{
    char game_id[32], name[AGENT_NAME_BYTES], err[256], joined[32];
    pthread_mutex_lock(&ag->lock);
    bool ok = index < ag->n_held && ag->held[index].seat < 0 && ag->game_id[0];
    if (ok) {
        snprintf(game_id, sizeof game_id, "%s", ag->game_id);
        snprintf(name, sizeof name, "%s", ag->held[index].name);
    }
    pthread_mutex_unlock(&ag->lock);
    agent_holder fresh;
    if (!ok || join_one(ag, game_id, NULL, NULL, NULL, name, NULL, true, &fresh, joined, NULL,
                        err, sizeof err) != 0)
        return -1;
    pthread_mutex_lock(&ag->lock);
    if (index < ag->n_held) {
        snprintf(ag->held[index].token, sizeof ag->held[index].token, "%s", fresh.token);
        ag->held[index].rejoin = false;
    }
    pthread_mutex_unlock(&ag->lock);
    return 0;
}

/* A saved token (or the one given, `given`) still good for this game?
 * (GetBoard answers only its holder.) */
static int resume_one(agent *ag, const char *game_id, const char *name, const char *given,
                      agent_holder *h)
{
    char token[AGENT_TOKEN_BYTES];
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

/* We hold these seats of game_id now: remember them and subscribe. With
 * `ready`, each says ready once the snapshot shows it seated in a game
 * still waiting (agent__ready_if_seated): a seat taken back with a saved token as
 * well as a new one, since the player may not have been ready when their
 * agent died, and not before, since a running game refuses it. */
static void enter_game(agent *ag, const char *game_id, const agent_holder *held, int n, bool ready)
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
    for (int i = 0; i < AGENT_MAX_HELD; i++)
        ag->ready_pending[i] = ready && i < n;
    for (int i = 0; i < n; i++)
        agent__subscribe(ag, i, 0);
}

/* Leave every seat we hold (blocking); forget their saved tokens. */
static int leave_game(agent *ag)
{
    agent_holder held[AGENT_MAX_HELD];
    char game_id[32];
    pthread_mutex_lock(&ag->lock);
    int n = ag->n_held;
    memcpy(held, ag->held, sizeof held);
    snprintf(game_id, sizeof game_id, "%s", ag->game_id);
    ag->n_held = 0;            /* our streams' ends and events are stale now */
    memset(ag->ready_pending, 0, sizeof ag->ready_pending);
    for (int i = 0; i < AGENT_MAX_HELD; i++) {
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
    /* Back to the lobby: the first --server again, not the game's node or relay. */
    rpc_pool_go_to_first(ag->pool);
    agent_model *md = &ag->model;
    md->have_state = false;
    md->game_id[0] = '\0';
    md->n_people = 0;
    return rc;
}

/* --seat N: we joined as an observer; take that seat now (blocking). */
static int observe_then_sit(agent *ag, agent_holder *h, char *err, size_t errlen)
{
    Sungka__V1__SitRequest req = SUNGKA__V1__SIT_REQUEST__INIT;
    Sungka__V1__SeatNumber seat;
    req.seat = agent__seat_field(ag->cfg.seat, &seat);
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
int agent__go_to_game(agent *ag, const char *game_id, const char *any_kind, const char *new_kind,
                      const char *const *options, int n_options, bool observe, char *err,
                      size_t errlen)
{
    /* "bots=N", "bot-level=N", "clock=SPEC", "rated" and "bot-takes-over"
     * ride along with a new game's options (the text view's `new kalah
     * bots=1`); they are not rules options. */
    const char *rules_options[GAME_MAX_OPTIONS + 2];
    int n_rules = 0;
    int bots = ag->cfg.bots, bot_level = ag->cfg.bot_level;
    bool rated = ag->cfg.rated, takes_over = ag->cfg.bot_takes_over;
    agent_clock clock = ag->cfg.clock;
    memset(&ag->lobby_failure, 0, sizeof ag->lobby_failure);
    for (int i = 0; i < n_options; i++) {
        if (strncmp(options[i], "clock=", 6) == 0) {
            if (agent_parse_clock(options[i] + 6, &clock, err, errlen) != 0) {
                lobby_failed(ag, AGENT_LOBBY_BAD_CLOCK, options[i] + 6);
                return -1;
            }
        } else if (strncmp(options[i], "bots=", 5) == 0)
            bots = atoi(options[i] + 5);
        else if (strncmp(options[i], "bot-level=", 10) == 0)
            bot_level = atoi(options[i] + 10);
        else if (strcmp(options[i], "rated") == 0)
            rated = true;
        else if (strcmp(options[i], "bot-takes-over") == 0)
            takes_over = true;
        else if (n_rules < GAME_MAX_OPTIONS + 2)
            rules_options[n_rules++] = options[i];
    }
    game_options opts;
    const game_kind *kind = NULL;
    const char *kind_name = new_kind ? new_kind : any_kind;
    if (kind_name &&
        !(kind = parse_kind(ag, kind_name, rules_options, n_rules, &opts, err, errlen)))
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
        req.rated = rated;
        req.bot_takes_over = takes_over;
        Sungka__V1__TimeControl tc = SUNGKA__V1__TIME_CONTROL__INIT;
        if (clock.per_move_s || clock.base_s) {
            tc.per_move_s = clock.per_move_s;
            tc.base_s = clock.base_s;
            tc.increment_s = clock.increment_s;
            req.time_control = &tc;
        }
        rpc_method m = agent__methods.create_game;
        ProtobufCMessage *reply = NULL;
        rpc_code code;
        if (agent__call_sync_code(ag, &m, &req.base, agent__session(ag), &reply, err, errlen,
                                  "cannot create the game", &code,
                                  ag->lobby_failure.reason) != 0) {
            lobby_failed(ag, ag->lobby_failure.reason[0] ? AGENT_LOBBY_REFUSED
                                                         : AGENT_LOBBY_OTHER, NULL);
            agent__session_refused(ag, code, err, errlen);
            return -1;
        }
        Sungka__V1__CreateGameResponse *created = (Sungka__V1__CreateGameResponse *)reply;
        agent__text(id, sizeof id, created->game ? created->game->game_id : "");
        protobuf_c_message_free_unpacked(reply, NULL);
        game_id = id;
        any_kind = NULL;
    }
    if (agent_in_game(ag))
        leave_game(ag);

    /* Signed in, the first seat is the account's (a hot seat's second
     * player is a guest: a session acts for its own account only). */
    const char *names[AGENT_MAX_HELD] = {agent__session(ag) ? ag->account : ag->cfg.name,
                                         ag->cfg.hot_seat};
    int n = ag->cfg.hot_seat && !observe ? 2 : 1;
    agent_holder held[AGENT_MAX_HELD];
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
        if (join_one(ag, target, i > 0 ? NULL : any_kind, kind, &opts, names[i],
                     i > 0 ? NULL : agent__session(ag), watch, &held[i], id,
                     &ag->lobby_failure, err, errlen) != 0) {
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

int agent_follow_rematch(agent *ag, char *err, size_t errlen)
{
    agent_holder held[AGENT_MAX_HELD];
    pthread_mutex_lock(&ag->lock);
    int n = ag->n_held;
    memcpy(held, ag->held, sizeof held);
    pthread_mutex_unlock(&ag->lock);
    if (n == 0) {
        snprintf(err, errlen, "we hold no seat to play again");
        return -1;
    }
    char id[32] = "";
    agent_holder next[AGENT_MAX_HELD];
    for (int i = 0; i < n; i++) {
        Sungka__V1__RematchRequest req = SUNGKA__V1__REMATCH_REQUEST__INIT;
        rpc_method m = agent__methods.rematch;
        ProtobufCMessage *reply = NULL;
        if (agent__call_sync(ag, &m, &req.base, held[i].token, &reply, err, errlen,
                             "cannot take our seat in the rematch") != 0)
            return -1;
        const Sungka__V1__RematchResponse *r = (const Sungka__V1__RematchResponse *)reply;
        if (!r->board || !r->board->token[0]) {
            snprintf(err, errlen, "the rematch has no seat for %s", held[i].name);
            protobuf_c_message_free_unpacked(reply, NULL);
            return -1;
        }
        memset(&next[i], 0, sizeof next[i]);
        next[i].seat = agent__seat_of(r->board->seat);
        snprintf(next[i].name, sizeof next[i].name, "%s", held[i].name);
        agent__text(next[i].token, sizeof next[i].token, r->board->token);
        agent__text(id, sizeof id, r->board->game_id);
        protobuf_c_message_free_unpacked(reply, NULL);
        token_store_put(ag->cfg.state_dir, ag->cfg.server, id, next[i].name, next[i].seat,
                        next[i].token);
    }
    leave_game(ag);                     /* the old game is over: let it go */
    enter_game(ag, id, next, n, false);
    return 0;
}

int agent_watch_rematch(agent *ag, const char *game_id, char *err, size_t errlen)
{
    agent_holder held;
    char name[AGENT_NAME_BYTES], id[32] = "";
    pthread_mutex_lock(&ag->lock);
    bool watching = ag->n_held == 1 && ag->held[0].seat < 0;
    snprintf(name, sizeof name, "%s", ag->n_held ? ag->held[0].name : ag->cfg.name);
    pthread_mutex_unlock(&ag->lock);
    if (!watching) {
        snprintf(err, errlen, "we do not watch this game");
        return -1;
    }
    if (join_one(ag, game_id, NULL, NULL, NULL, name, agent__session(ag), true, &held, id, NULL,
                 err, errlen) != 0)
        return -1;
    leave_game(ag);                     /* the old game is over: let it go */
    enter_game(ag, id, &held, 1, false);
    return 0;
}

/* A QuickPair stream's news, from the client thread to the waiting one. */
typedef struct quick_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    agent_pairing latest;
    bool fresh, ended, paired;
    rpc_status st;             /* ended: how */
    int seat;
    char token[AGENT_TOKEN_BYTES], game_id[32];
} quick_wait;

static void quick_msg(ProtobufCMessage *msg, void *user)
{
    quick_wait *q = user;
    const Sungka__V1__PairingUpdate *u = (const Sungka__V1__PairingUpdate *)msg;
    pthread_mutex_lock(&q->lock);
    q->latest = (agent_pairing){.pool_size = u->pool_size, .rating = u->rating,
                                .range = u->range, .any_rating = u->any_rating,
                                .waited_ms = u->waited_ms};
    q->fresh = true;
    if (u->board && u->board->token[0]) {
        q->paired = true;
        q->seat = agent__seat_of(u->board->seat);
        agent__text(q->token, sizeof q->token, u->board->token);
        agent__text(q->game_id, sizeof q->game_id, u->board->game_id);
    }
    pthread_cond_signal(&q->cond);
    pthread_mutex_unlock(&q->lock);
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void quick_end(const rpc_status *st, void *user)
{
    quick_wait *q = user;
    pthread_mutex_lock(&q->lock);
    q->st = *st;
    q->ended = true;
    pthread_cond_signal(&q->cond);
    pthread_mutex_unlock(&q->lock);
}

struct agent_quick {
    quick_wait q;
    rpc_stream *stream;
    char name[AGENT_NAME_BYTES];   /* who waits: the account, or the guest's name */
};

/* A game asked for by "KIND[:CLOCK]" and options (quick pairing and
 * tournaments ask so), as the wire wants it. */
typedef struct wire_game {
    const game_kind *kind;
    Sungka__V1__GameOption option[GAME_MAX_OPTIONS];
    Sungka__V1__GameOption *optp[GAME_MAX_OPTIONS];   /* into option */
    Sungka__V1__TimeControl tc;
    bool clocked;                                     /* tc is asked for */
} wire_game;

/* 0, or -1 with why in err and for the view (agent_lobby_failed). */
static int wire_game_from_spec(agent *ag, const char *spec, const char *const *options,
                               int n_options, wire_game *out, char *err, size_t errlen)
{
    char kind_name[64];
    const char *colon = strchr(spec, ':');
    snprintf(kind_name, sizeof kind_name, "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec),
             spec);
    agent_clock clock = {0, 0, 0};
    memset(&ag->lobby_failure, 0, sizeof ag->lobby_failure);
    if (colon && agent_parse_clock(colon + 1, &clock, err, errlen) != 0) {
        lobby_failed(ag, AGENT_LOBBY_BAD_CLOCK, colon + 1);
        return -1;
    }
    game_options opts;
    out->kind = parse_kind(ag, kind_name, options, n_options, &opts, err, errlen);
    if (!out->kind)
        return -1;
    options_to_wire(out->kind, &opts, out->option, out->optp);
    out->tc = (Sungka__V1__TimeControl)SUNGKA__V1__TIME_CONTROL__INIT;
    out->clocked = clock.per_move_s || clock.base_s;
    out->tc.per_move_s = clock.per_move_s;
    out->tc.base_s = clock.base_s;
    out->tc.increment_s = clock.increment_s;
    return 0;
}

agent_quick *agent_quick_start(agent *ag, const char *spec, const char *const *options,
                               int n_options, bool rated_only, char *err, size_t errlen)
{
    wire_game game;
    if (wire_game_from_spec(ag, spec, options, n_options, &game, err, errlen) != 0)
        return NULL;
    Sungka__V1__QuickPairRequest req = SUNGKA__V1__QUICK_PAIR_REQUEST__INIT;
    req.kind = (char *)game.kind->name;
    req.n_options = (size_t)game.kind->n_options;
    req.options = game.optp;
    req.time_control = game.clocked ? &game.tc : NULL;
    req.rated_only = rated_only;
    const char *session = agent__session(ag);
    agent_quick *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "cannot ask for a quick pairing: out of memory");
        return NULL;
    }
    snprintf(w->name, sizeof w->name, "%s", session ? ag->account : ag->cfg.name);
    req.name = w->name;
    pthread_mutex_init(&w->q.lock, NULL);
    pthread_cond_init(&w->q.cond, NULL);
    if (rpc_client_stream(rpc_pool_client(ag->pool), &agent__methods.quick_pair, &req.base,
                          session, quick_msg, quick_end, &w->q, &w->stream) != 0) {
        snprintf(err, errlen, "cannot ask for a quick pairing: out of memory");
        pthread_cond_destroy(&w->q.cond);
        pthread_mutex_destroy(&w->q.lock);
        free(w);
        return NULL;
    }
    return w;
}

bool agent_quick_news(agent_quick *w, agent_pairing *now, bool *ended)
{
    pthread_mutex_lock(&w->q.lock);
    bool fresh = w->q.fresh && !w->q.paired;
    if (fresh)
        *now = w->q.latest;
    w->q.fresh = false;
    *ended = w->q.ended;
    pthread_mutex_unlock(&w->q.lock);
    return fresh;
}

void agent_quick_cancel(agent_quick *w)
{
    /* Under the lock quick_end cannot have returned: the stream is still
     * good for rpc_stream_cancel (rpc.h's rule). */
    pthread_mutex_lock(&w->q.lock);
    if (!w->q.ended)
        rpc_stream_cancel(w->stream);
    pthread_mutex_unlock(&w->q.lock);
}

int agent_quick_finish(agent *ag, agent_quick *w, char *err, size_t errlen)
{
    quick_wait *q = &w->q;
    int rc = -1;
    pthread_mutex_lock(&q->lock);
    while (!q->ended)
        pthread_cond_wait(&q->cond, &q->lock);
    pthread_mutex_unlock(&q->lock);
    if (!q->paired) {
        char words[AGENT_TEXT_BYTES];
        agent__text(words, sizeof words, q->st.message[0] ? q->st.message
                                                           : rpc_code_name(q->st.code));
        snprintf(err, errlen, "no quick pairing: %s", words);
        goto out;
    }
    agent_holder held;
    memset(&held, 0, sizeof held);
    held.seat = q->seat;
    snprintf(held.name, sizeof held.name, "%s", w->name);
    snprintf(held.token, sizeof held.token, "%s", q->token);
    token_store_put(ag->cfg.state_dir, ag->cfg.server, q->game_id, held.name, held.seat,
                    held.token);
    if (agent_in_game(ag))
        leave_game(ag);
    enter_game(ag, q->game_id, &held, 1, ag->cfg.ready);
    rc = 0;
out:
    pthread_cond_destroy(&q->cond);
    pthread_mutex_destroy(&q->lock);
    free(w);
    return rc;
}

int agent_quick_pair(agent *ag, const char *spec, const char *const *options, int n_options,
                     bool rated_only, void (*progress)(const agent_pairing *p, void *user),
                     void *user, char *err, size_t errlen)
{
    agent_quick *w = agent_quick_start(ag, spec, options, n_options, rated_only, err, errlen);
    if (!w)
        return -1;
    quick_wait *q = &w->q;
    pthread_mutex_lock(&q->lock);
    while (!q->ended) {
        if (q->fresh && !q->paired) {
            agent_pairing now = q->latest;
            q->fresh = false;
            pthread_mutex_unlock(&q->lock);
            if (progress)
                progress(&now, user);
            pthread_mutex_lock(&q->lock);
            continue;
        }
        pthread_cond_wait(&q->cond, &q->lock);
    }
    pthread_mutex_unlock(&q->lock);
    return agent_quick_finish(ag, w, err, errlen);
}

int agent_list_pools(agent *ag, const char *kind, agent_pool_info **out, int *n, char *err,
                     size_t errlen)
{
    Sungka__V1__ListGamesRequest req = SUNGKA__V1__LIST_GAMES_REQUEST__INIT;
    req.kind = (char *)(kind ? kind : "");
    req.page_size = 1;                 /* the pools come with the first page */
    rpc_method m = agent__methods.list_games;
    ProtobufCMessage *reply = NULL;
    *out = NULL;
    *n = 0;
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen,
                         "cannot list the pools") != 0)
        return -1;
    Sungka__V1__ListGamesResponse *list = (Sungka__V1__ListGamesResponse *)reply;
    agent_pool_info *pools = calloc(list->n_pools + 1, sizeof *pools);
    if (!pools) {
        protobuf_c_message_free_unpacked(reply, NULL);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < list->n_pools; i++) {
        const Sungka__V1__PoolSummary *s = list->pools[i];
        agent_pool_info *p = &pools[i];
        agent__text(p->kind, sizeof p->kind, s->kind);
        size_t used = 0;
        for (size_t o = 0; o < s->n_options && used < sizeof p->options; o++) {
            char name[48];
            agent__text(name, sizeof name, s->options[o]->name);
            int w = snprintf(p->options + used, sizeof p->options - used, "%s%s=%d",
                             o ? " " : "", name, s->options[o]->value);
            used += w > 0 ? (size_t)w : 0;
        }
        if (s->time_control)
            p->clock = (agent_clock){.per_move_s = s->time_control->per_move_s,
                                     .base_s = s->time_control->base_s,
                                     .increment_s = s->time_control->increment_s};
        p->rated = s->rated;
        p->players = s->players;
        p->longest_wait_ms = s->longest_wait_ms;
    }
    *n = (int)list->n_pools;
    *out = pools;
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

void agent_format_clock_spec(const agent_clock *c, char *buf, size_t len)
{
    if (c->per_move_s)
        snprintf(buf, len, "%d/move", c->per_move_s);
    else if (c->base_s && c->increment_s)
        snprintf(buf, len, "%d+%d", c->base_s / 60, c->increment_s);
    else if (c->base_s)
        snprintf(buf, len, "%d", c->base_s / 60);
    else if (len)
        buf[0] = '\0';
}

/* The most games the lobby gathers, over however many pages. */
#define AGENT_MAX_LISTED 100000

int agent_list_games(agent *ag, const char *kind, agent_status status, agent_game_info **out,
                     int *n, char *err, size_t errlen)
{
    /* Every page, each asked for with the token the one before gave. */
    agent_game_info *all = NULL;
    size_t count = 0;
    char token[512] = "";
    do {
        Sungka__V1__ListGamesRequest req = SUNGKA__V1__LIST_GAMES_REQUEST__INIT;
        req.kind = (char *)(kind ? kind : "");
        req.status = (Sungka__V1__GameStatus)status;   /* same numbers */
        req.page_size = 1000;
        req.page_token = token;
        rpc_method m = agent__methods.list_games;
        ProtobufCMessage *reply = NULL;
        if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen,
                             "cannot list the games") != 0) {
            free(all);
            return -1;
        }
        Sungka__V1__ListGamesResponse *list = (Sungka__V1__ListGamesResponse *)reply;
        agent_game_info *grown = realloc(all, (count + list->n_games + 1) * sizeof *all);
        if (!grown) {
            protobuf_c_message_free_unpacked(reply, NULL);
            free(all);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        all = grown;
        for (size_t i = 0; i < list->n_games; i++)
            agent__game_info(list->games[i], &all[count++]);
        /* A token too long to keep, or one that does not move on: stop
         * here rather than ask for the same page for ever. */
        const char *next = list->next_page_token;
        if (strlen(next) >= sizeof token || strcmp(next, token) == 0 || list->n_games == 0)
            next = "";
        snprintf(token, sizeof token, "%s", next);
        protobuf_c_message_free_unpacked(reply, NULL);
    } while (token[0] && count < AGENT_MAX_LISTED);
    if (!all && !(all = calloc(1, sizeof *all))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *out = all;
    *n = (int)count;
    return 0;
}

int agent_parse_clock(const char *spec, agent_clock *out, char *err, size_t errlen)
{
    agent_clock c = {0, 0, 0};
    unsigned a = 0, b = 0;
    int used = 0;
    if (strcmp(spec, "none") == 0) {
        /* no clocks */
    } else if (sscanf(spec, "%u/move%n", &a, &used) == 1 && spec[used] == '\0' && a >= 1 &&
               a <= 3600) {
        c.per_move_s = (int)a;
    } else if (sscanf(spec, "%u+%u%n", &a, &b, &used) == 2 && spec[used] == '\0' && a >= 1 &&
               a <= 600 && b <= 600) {
        c.base_s = (int)a * 60;
        c.increment_s = (int)b;
    } else if (sscanf(spec, "%u%n", &a, &used) == 1 && spec[used] == '\0' && a >= 1 &&
               a <= 600) {
        c.base_s = (int)a * 60;
    } else {
        snprintf(err, errlen, "a clock is MINUTES+SECONDS (5+3), MINUTES (10), SECONDS/move "
                 "(30/move) or none, not '%.40s'", spec);
        return -1;
    }
    *out = c;
    return 0;
}

int agent_new_game(agent *ag, const char *kind, const char *const *options, int n_options,
                   char *err, size_t errlen)
{
    return agent__go_to_game(ag, NULL, NULL, kind, options, n_options, false, err, errlen);
}

int agent_join_game(agent *ag, const char *game_id, bool observe, char *err, size_t errlen)
{
    return agent__go_to_game(ag, game_id, NULL, NULL, NULL, 0, observe, err, errlen);
}

bool agent_in_game(const agent *ag)
{
    agent *mut = (agent *)ag;          /* the lock, not the data, changes */
    pthread_mutex_lock(&mut->lock);
    bool in = ag->n_held > 0;
    pthread_mutex_unlock(&mut->lock);
    return in;
}

int agent_leave(agent *ag)
{
    if (!agent_in_game(ag))
        return 0;
    return leave_game(ag);
}

/* ------------------------------------------------------------ tournaments */

void agent_tournament_free(agent_tournament *t)
{
    if (t) {
        free(t->standings);
        t->standings = NULL;
        t->n_standings = 0;
        free(t->games);
        t->games = NULL;
    }
}

static void tournament_from_wire(const Sungka__V1__Tournament *m, agent_tournament *out)
{
    memset(out, 0, sizeof *out);
    agent__text(out->id, sizeof out->id, m->id);
    agent__text(out->title, sizeof out->title, m->title);
    agent__text(out->kind, sizeof out->kind, m->kind);
    out->arena = m->format == SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_ARENA;
    out->swiss = m->format == SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_SWISS;
    out->status = m->status;
    out->round = m->round;
    out->rounds = m->rounds;
    out->max_players = m->max_players;
    out->seconds = m->seconds;
    out->ends_ms = m->ends_ms;
    out->n_games = (int)m->n_games;
    out->standings = calloc(m->n_standings + 1, sizeof *out->standings);
    if (!out->standings)
        return;
    for (size_t i = 0; i < m->n_standings; i++) {
        const Sungka__V1__TournamentStanding *s = m->standings[i];
        agent_standing *o = &out->standings[out->n_standings++];
        o->rank = s->rank;
        o->points = s->points;
        o->games = s->games;
        o->wins = s->wins;
        o->streak = s->streak;
        o->withdrawn = s->withdrawn;
        agent__text(o->name, sizeof o->name, s->name);
    }
    if (m->time_control) {
        out->clock.per_move_s = m->time_control->per_move_s;
        out->clock.base_s = m->time_control->base_s;
        out->clock.increment_s = m->time_control->increment_s;
    }
    out->games = m->n_games ? calloc(m->n_games, sizeof *out->games) : NULL;
    if (!out->games)
        out->n_games = 0;
    for (int i = 0; i < out->n_games; i++) {
        const Sungka__V1__TournamentGame *g = m->games[i];
        agent_tour_game *o = &out->games[i];
        o->round = g->round;
        agent__text(o->game_id, sizeof o->game_id, g->game_id);
        o->finished = g->finished;
        for (size_t k = 0; k < g->n_players && k < GAME_MAX_SEATS; k++) {
            agent__text(o->players[k], sizeof o->players[k], g->players[k]);
            o->points[k] = k < g->n_points ? g->points[k] : 0;
            o->n_players++;
        }
    }
}

void agent__tournament_from_wire(const Sungka__V1__Tournament *m, agent_tournament *out)
{
    tournament_from_wire(m, out);
}

int agent_list_tournaments(agent *ag, agent_tournament **out, int *n, char *err, size_t errlen)
{
    return agent_list_tournaments_of(ag, NULL, out, n, err, errlen);
}

int agent_list_tournaments_of(agent *ag, const char *player, agent_tournament **out, int *n,
                              char *err, size_t errlen)
{
    Sungka__V1__ListTournamentsRequest req = SUNGKA__V1__LIST_TOURNAMENTS_REQUEST__INIT;
    req.player = (char *)(player ? player : "");
    rpc_method m = agent__methods.list_tournaments;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, agent__session(ag), &reply, err, errlen,
                         "no tournaments") != 0)
        return -1;
    Sungka__V1__ListTournamentsResponse *list = (Sungka__V1__ListTournamentsResponse *)reply;
    *out = calloc(list->n_tournaments + 1, sizeof **out);
    *n = *out ? (int)list->n_tournaments : 0;
    for (int i = 0; i < *n; i++)
        tournament_from_wire(list->tournaments[i], &(*out)[i]);
    protobuf_c_message_free_unpacked(reply, NULL);
    return *out ? 0 : -1;
}

int agent_get_tournament(agent *ag, const char *id, agent_tournament *out, char *err,
                         size_t errlen)
{
    Sungka__V1__GetTournamentRequest req = SUNGKA__V1__GET_TOURNAMENT_REQUEST__INIT;
    req.tournament_id = (char *)id;
    rpc_method m = agent__methods.get_tournament;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, agent__session(ag), &reply, err, errlen,
                         "no standings") != 0)
        return -1;
    Sungka__V1__GetTournamentResponse *r = (Sungka__V1__GetTournamentResponse *)reply;
    if (r->tournament)
        tournament_from_wire(r->tournament, out);
    else
        memset(out, 0, sizeof *out);
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

int agent_create_tournament(agent *ag, const char *format, const char *spec, const char *const *options,
                            int n_options, int length, int max_players, bool rated,
                            char id_out[32], char *err, size_t errlen)
{
    return agent_create_titled_tournament(ag, NULL, format, spec, options, n_options, length,
                                          max_players, rated, id_out, err, errlen);
}

int agent_create_titled_tournament(agent *ag, const char *title, const char *format,
                                   const char *spec, const char *const *options, int n_options,
                                   int length, int max_players, bool rated, char id_out[32],
                                   char *err, size_t errlen)
{
    bool arena = strcmp(format, "arena") == 0, swiss = strcmp(format, "swiss") == 0;
    if (!arena && !swiss && strcmp(format, "roundrobin") != 0) {
        snprintf(err, errlen, "a tournament is an arena, a roundrobin or a swiss, not '%s'",
                 format);
        return -1;
    }
    wire_game game;
    if (wire_game_from_spec(ag, spec, options, n_options, &game, err, errlen) != 0)
        return -1;
    Sungka__V1__CreateTournamentRequest req = SUNGKA__V1__CREATE_TOURNAMENT_REQUEST__INIT;
    req.kind = (char *)game.kind->name;
    req.n_options = (size_t)game.kind->n_options;
    req.options = game.optp;
    req.time_control = game.clocked ? &game.tc : NULL;
    req.format = arena   ? SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_ARENA
                 : swiss ? SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_SWISS
                         : SUNGKA__V1__TOURNAMENT_FORMAT__TOURNAMENT_FORMAT_ROUND_ROBIN;
    if (arena)
        req.minutes = length;
    else
        req.rounds = length;
    req.max_players = max_players;
    req.rated = rated;
    req.title = (char *)(title ? title : "");
    rpc_method m = agent__methods.create_tournament;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync_code(ag, &m, &req.base, agent__session(ag), &reply, err, errlen,
                              "no tournament", NULL, ag->lobby_failure.reason) != 0) {
        if (ag->lobby_failure.reason[0])
            lobby_failed(ag, AGENT_LOBBY_REFUSED, NULL);
        return -1;
    }
    Sungka__V1__CreateTournamentResponse *r = (Sungka__V1__CreateTournamentResponse *)reply;
    agent__text(id_out, 32, r->tournament ? r->tournament->id : "");
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

/* A wait for our next game in a tournament: the WatchTournament stream's
 * news, from the client thread (tour_msg, tour_end) to the view's. */
struct agent_tour_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    agent_tournament latest;   /* locked: the last standings the stream sent */
    bool fresh;                /* locked: latest not yet taken by agent_tournament_news */
    bool seated;               /* locked: it seats us in a game not played yet */
    bool finished;             /* locked: latest says the tournament has finished */
    bool ended;                /* locked: tour_end has run (st says how) */
    rpc_status st;
    rpc_stream *stream;
    char played[32];           /* read-only: the game we were seated in last time */
    char id[32];               /* read-only: the tournament */
    char name[AGENT_NAME_BYTES];   /* read-only: who plays (the account or the guest) */
    int seat;                  /* locked: where it seats us */
    char game_id[32], token[AGENT_TOKEN_BYTES];
};

/* Client thread. Seated in a new game: nothing more to wait for, so the
 * stream is cancelled here (safe inside its own callback, rpc.h). */
static void tour_msg(ProtobufCMessage *msg, void *user)
{
    agent_tour_wait *w = user;
    const Sungka__V1__WatchTournamentResponse *u = (const void *)msg;
    agent_tournament t;
    memset(&t, 0, sizeof t);
    bool have = u->tournament != NULL;
    if (have)
        tournament_from_wire(u->tournament, &t);
    pthread_mutex_lock(&w->lock);
    if (have) {
        agent_tournament_free(&w->latest);
        w->latest = t;
        w->fresh = true;
        w->finished = t.status == SUNGKA__V1__TOURNAMENT_STATUS__TOURNAMENT_STATUS_FINISHED;
    }
    bool cancel = false;
    if (!w->seated && u->your_game && u->your_game->token[0] &&
        strcmp(u->your_game->game_id, w->played) != 0) {
        w->seated = cancel = true;
        w->seat = agent__seat_of(u->your_game->seat);
        agent__text(w->token, sizeof w->token, u->your_game->token);
        agent__text(w->game_id, sizeof w->game_id, u->your_game->game_id);
    }
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    if (cancel)
        rpc_stream_cancel(w->stream);
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void tour_end(const rpc_status *st, void *user)
{
    agent_tour_wait *w = user;
    pthread_mutex_lock(&w->lock);
    w->st = *st;
    w->ended = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Where the token store keeps our place in tournament id, and under whose
 * name: a tournament's ids are a space of their own beside the games'. */
static void tour_key(const char *id, char *key, size_t len)
{
    snprintf(key, len, "tournament/%s", id);
}

static const char *tour_name(agent *ag)
{
    return agent__session(ag) ? ag->account : ag->cfg.name;
}

bool agent__tour_recall(agent *ag, const char *id)
{
    if (!id[0])
        return false;
    if (strcmp(ag->tour_id, id) == 0 && ag->tour_token[0])
        return true;
    char key[sizeof ag->tour_id + 16], token[AGENT_TOKEN_BYTES];
    int seat;
    tour_key(id, key, sizeof key);
    if (token_store_find(ag->cfg.state_dir, ag->cfg.server, key, tour_name(ag), token,
                         sizeof token, &seat) != 0)
        return false;
    snprintf(ag->tour_id, sizeof ag->tour_id, "%s", id);
    snprintf(ag->tour_token, sizeof ag->tour_token, "%s", token);
    ag->tour_played[0] = '\0';
    return true;
}

/* Our place in tournament id is over (withdrawn, or the tournament ended). */
static void tour_forget(agent *ag, const char *id)
{
    char key[sizeof ag->tour_id + 16];
    tour_key(id, key, sizeof key);
    token_store_drop(ag->cfg.state_dir, ag->cfg.server, key, tour_name(ag));
    if (strcmp(ag->tour_id, id) == 0)
        ag->tour_id[0] = ag->tour_token[0] = ag->tour_played[0] = '\0';
}

/* Join tournament id unless we have: the agent keeps the player token, and
 * the token store keeps it for the next run (a reload, a restart), which
 * takes its place back with it instead of joining again. */
static int tour_join(agent *ag, const char *id, char *err, size_t errlen)
{
    if (agent__tour_recall(ag, id))
        return 0;
    const char *session = agent__session(ag);
    Sungka__V1__JoinTournamentRequest req = SUNGKA__V1__JOIN_TOURNAMENT_REQUEST__INIT;
    req.tournament_id = (char *)id;
    req.name = (char *)(session ? "" : ag->cfg.name);
    rpc_method m = agent__methods.join_tournament;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, session, &reply, err, errlen,
                         "cannot join the tournament") != 0)
        return -1;
    Sungka__V1__JoinTournamentResponse *r = (Sungka__V1__JoinTournamentResponse *)reply;
    snprintf(ag->tour_id, sizeof ag->tour_id, "%s", id);
    agent__text(ag->tour_token, sizeof ag->tour_token, r->player_token);
    ag->tour_played[0] = '\0';
    protobuf_c_message_free_unpacked(reply, NULL);
    char key[sizeof ag->tour_id + 16];
    tour_key(id, key, sizeof key);
    token_store_put(ag->cfg.state_dir, ag->cfg.server, key, tour_name(ag), -1, ag->tour_token);
    return 0;
}

agent_tour_wait *agent_tournament_start(agent *ag, const char *id, char *err, size_t errlen)
{
    if (tour_join(ag, id, err, errlen) != 0)
        return NULL;
    agent_tour_wait *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "cannot watch the tournament: out of memory");
        return NULL;
    }
    const char *session = agent__session(ag);
    snprintf(w->name, sizeof w->name, "%s", session ? ag->account : ag->cfg.name);
    snprintf(w->played, sizeof w->played, "%s", ag->tour_played);
    snprintf(w->id, sizeof w->id, "%s", id);
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    Sungka__V1__WatchTournamentRequest req = SUNGKA__V1__WATCH_TOURNAMENT_REQUEST__INIT;
    req.tournament_id = (char *)id;
    req.player_token = ag->tour_token;
    /* Under the lock: tour_msg reads w->stream, set only once this returns. */
    pthread_mutex_lock(&w->lock);
    int rc = rpc_client_stream(rpc_pool_client(ag->pool), &agent__methods.watch_tournament,
                               &req.base, NULL, tour_msg, tour_end, w, &w->stream);
    pthread_mutex_unlock(&w->lock);
    if (rc != 0) {
        snprintf(err, errlen, "cannot watch the tournament: out of memory");
        pthread_cond_destroy(&w->cond);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    return w;
}

/* A copy of t the caller frees with agent_tournament_free. */
static void tournament_copy(const agent_tournament *t, agent_tournament *out)
{
    *out = *t;
    out->standings = calloc((size_t)t->n_standings + 1, sizeof *out->standings);
    if (out->standings)
        memcpy(out->standings, t->standings, (size_t)t->n_standings * sizeof *t->standings);
    else
        out->n_standings = 0;
    out->games = t->n_games ? calloc((size_t)t->n_games, sizeof *out->games) : NULL;
    if (out->games)
        memcpy(out->games, t->games, (size_t)t->n_games * sizeof *t->games);
    else
        out->n_games = 0;
}

bool agent_tournament_news(agent_tour_wait *w, agent_tournament *now, bool *ended)
{
    pthread_mutex_lock(&w->lock);
    bool fresh = w->fresh;
    if (fresh)
        tournament_copy(&w->latest, now);
    w->fresh = false;
    *ended = w->ended;
    pthread_mutex_unlock(&w->lock);
    return fresh;
}

void agent_tournament_cancel(agent_tour_wait *w)
{
    /* Under the lock tour_end cannot have returned: the stream is still
     * good for rpc_stream_cancel (rpc.h's rule). */
    pthread_mutex_lock(&w->lock);
    if (!w->ended)
        rpc_stream_cancel(w->stream);
    pthread_mutex_unlock(&w->lock);
}

int agent_tournament_finish(agent *ag, agent_tour_wait *w, char *err, size_t errlen)
{
    int rc = -1;
    pthread_mutex_lock(&w->lock);
    while (!w->ended)
        pthread_cond_wait(&w->cond, &w->lock);
    pthread_mutex_unlock(&w->lock);
    if (w->seated) {
        agent_holder held;
        memset(&held, 0, sizeof held);
        held.seat = w->seat;
        snprintf(held.name, sizeof held.name, "%s", w->name);
        snprintf(held.token, sizeof held.token, "%s", w->token);
        snprintf(ag->tour_played, sizeof ag->tour_played, "%s", w->game_id);
        token_store_put(ag->cfg.state_dir, ag->cfg.server, w->game_id, held.name, held.seat,
                        held.token);
        if (agent_in_game(ag))
            leave_game(ag);
        enter_game(ag, w->game_id, &held, 1, ag->cfg.ready);
        rc = 0;
    } else if (w->finished) {
        tour_forget(ag, w->id);
        rc = 1;
    } else {
        char words[AGENT_TEXT_BYTES];
        agent__text(words, sizeof words, w->st.message[0] ? w->st.message
                                                          : rpc_code_name(w->st.code));
        snprintf(err, errlen, "the tournament's stream ended: %s", words);
        /* A kept token the service does not know (a tournament gone with its
         * database): forgotten, so that the next try joins afresh. */
        if (w->st.code == RPC_UNAUTHENTICATED || w->st.code == RPC_NOT_FOUND)
            tour_forget(ag, w->id);
    }
    agent_tournament_free(&w->latest);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    free(w);
    return rc;
}

int agent_play_tournament(agent *ag, const char *id,
                          void (*progress)(const agent_tournament *t, void *user), void *user,
                          char *err, size_t errlen)
{
    agent_tour_wait *w = agent_tournament_start(ag, id, err, errlen);
    if (!w)
        return -1;
    pthread_mutex_lock(&w->lock);
    while (!w->ended || w->fresh) {
        if (w->fresh) {
            agent_tournament now;
            tournament_copy(&w->latest, &now);
            w->fresh = false;
            pthread_mutex_unlock(&w->lock);
            if (progress)
                progress(&now, user);
            agent_tournament_free(&now);
            pthread_mutex_lock(&w->lock);
            continue;
        }
        pthread_cond_wait(&w->cond, &w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return agent_tournament_finish(ag, w, err, errlen);
}

int agent_leave_tournament(agent *ag, const char *id, char *err, size_t errlen)
{
    if (!agent__tour_recall(ag, id)) {
        snprintf(err, errlen, "you have not joined tournament %s here", id);
        return -1;
    }
    Sungka__V1__LeaveTournamentRequest req = SUNGKA__V1__LEAVE_TOURNAMENT_REQUEST__INIT;
    req.tournament_id = (char *)id;
    req.player_token = ag->tour_token;
    rpc_method m = agent__methods.leave_tournament;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, agent__session(ag), &reply, err, errlen,
                         "cannot leave the tournament") != 0)
        return -1;
    protobuf_c_message_free_unpacked(reply, NULL);
    tour_forget(ag, id);
    return 0;
}
