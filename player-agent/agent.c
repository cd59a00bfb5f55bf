/*
 * agent.c — the player agent: joins a game, listens to its event stream on
 * the rpc client thread, answers pings there, and hands everything else to
 * the view as agent_msg values through a message queue. The model the view
 * draws from is updated on the view thread, as each message is taken.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "msgq.h"
#include "rpc.h"
#include "sungka/v1/sungka.pb-c.h"

struct agent {
    agent_config cfg;
    rpc_client *client;
    msgq *queue;
    char token[80];
    char game_id[32];
    int seat;
    agent_model model;
    /* Each subscription has a generation; messages of an older one are
     * dropped, so a resubscription (after a mismatch) starts clean. */
    pthread_mutex_t gen_lock;
    unsigned stream_gen;
};

/* What a stream's callbacks get as `user`: freed when the stream ends. */
typedef struct stream_ctx {
    agent *ag;
    unsigned gen;
} stream_ctx;

static unsigned current_gen(agent *ag)
{
    pthread_mutex_lock(&ag->gen_lock);
    unsigned gen = ag->stream_gen;
    pthread_mutex_unlock(&ag->gen_lock);
    return gen;
}

enum { REG_LIST, REG_CREATE, REG_JOIN };
enum { BRD_SUBSCRIBE, BRD_GET_BOARD, BRD_MOVE, BRD_CHAT, BRD_PING, BRD_LEAVE };

static rpc_method register_method(unsigned index)
{
    return (rpc_method){&sungka__v1__register__descriptor, index, false};
}

static rpc_method board_method(unsigned index)
{
    return (rpc_method){&sungka__v1__board__descriptor, index, index == BRD_SUBSCRIBE};
}

/* ------------------------------------------------------------ messages */

static agent_msg *msg_new(agent_msg_kind kind)
{
    agent_msg *m = calloc(1, sizeof *m);
    if (m)
        m->kind = kind;
    return m;
}

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

static void push_gen(agent *ag, agent_msg *m, unsigned gen)
{
    if (m)
        m->stream_gen = gen;
    push(ag, m);
}

static void push_text(agent *ag, agent_msg_kind kind, const char *text)
{
    agent_msg *m = msg_new(kind);
    if (!m)
        return;
    snprintf(m->text, sizeof m->text, "%s", text);
    push(ag, m);
}

static void copy_board(agent_msg *m, const Sungka__V1__BoardState *b)
{
    if (!b)
        return;
    m->cells = calloc(b->n_cells + 1, sizeof *m->cells);
    if (!m->cells)
        return;
    m->n_cells = (int)b->n_cells;
    for (size_t i = 0; i < b->n_cells; i++)
        m->cells[i] = b->cells[i];
    m->to_move = b->to_move;
}

static void copy_people(agent_msg *m, Sungka__V1__Participant **who, size_t n)
{
    if (n > AGENT_MAX_PEOPLE)
        n = AGENT_MAX_PEOPLE;
    m->people = calloc(n + 1, sizeof *m->people);
    if (!m->people)
        return;
    m->n_people = (int)n;
    for (size_t i = 0; i < n; i++) {
        snprintf(m->people[i].name, sizeof m->people[i].name, "%s", who[i]->name);
        m->people[i].seat = who[i]->seat;
        m->people[i].departed = who[i]->departed;
        m->people[i].rtt_ms = who[i]->rtt_ms;
    }
}

static void copy_who(agent_msg *m, const Sungka__V1__Participant *who)
{
    if (!who)
        return;
    snprintf(m->name, sizeof m->name, "%s", who->name);
    m->seat = who->seat;
}

static void copy_seats(const int32_t *seats, size_t n, int *out, int *count)
{
    if (n > GAME_MAX_SEATS)
        n = GAME_MAX_SEATS;
    for (size_t i = 0; i < n; i++)
        out[i] = seats[i];
    *count = (int)n;
}

static agent_msg *snapshot_msg(const Sungka__V1__Snapshot *s)
{
    agent_msg *m = msg_new(AGENT_MSG_SNAPSHOT);
    if (!m || !s->game)
        return m;
    const Sungka__V1__GameSummary *g = s->game;
    snprintf(m->game_id, sizeof m->game_id, "%s", g->game_id);
    snprintf(m->title, sizeof m->title, "%s", g->title);
    snprintf(m->kind_name, sizeof m->kind_name, "%s", g->kind);
    const game_kind *kind = game_kind_find(g->kind);
    if (kind) {
        game_options_default(kind, &m->opts);
        char err[GAME_ERR_LEN];
        for (size_t i = 0; i < g->n_options; i++)
            game_options_set(kind, &m->opts, g->options[i]->name, g->options[i]->value, err,
                             sizeof err);
    }
    m->status = g->status >= 1 && g->status <= 4 ? (agent_status)g->status : AGENT_GAME_WAITING;
    for (size_t i = 0; i < g->n_seats && i < GAME_MAX_SEATS; i++)
        snprintf(m->seat_name[i], sizeof m->seat_name[i], "%s", g->seats[i]->name);
    m->my_seat = s->your_seat;
    m->seq = s->last_seq;
    copy_board(m, s->board);
    copy_people(m, s->participants, s->n_participants);
    return m;
}

static agent_msg *move_msg(const Sungka__V1__MoveMade *mv)
{
    agent_msg *m = msg_new(AGENT_MSG_MOVED);
    if (!m)
        return NULL;
    m->seat = mv->seat;
    m->move = mv->move;
    m->extra_turn = mv->extra_turn;
    copy_seats(mv->passed, mv->n_passed, m->passed, &m->n_passed);
    copy_board(m, mv->board);
    if (mv->n_steps) {
        m->steps = calloc(mv->n_steps, sizeof *m->steps);
        if (m->steps) {
            m->n_steps = (int)mv->n_steps;
            for (size_t i = 0; i < mv->n_steps; i++) {
                m->steps[i].cell = (int16_t)mv->steps[i]->cell;
                m->steps[i].value = (int16_t)mv->steps[i]->value;
            }
        }
    }
    return m;
}

/* Turn one event into a message for the view (client thread). */
static agent_msg *event_msg(const Sungka__V1__Event *ev)
{
    agent_msg *m = NULL;
    switch (ev->body_case) {
    case SUNGKA__V1__EVENT__BODY_SNAPSHOT:
        return snapshot_msg(ev->snapshot);
    case SUNGKA__V1__EVENT__BODY_PLAYER_JOINED:
        if ((m = msg_new(AGENT_MSG_JOINED)))
            copy_who(m, ev->player_joined->who);
        break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_LEFT:
        if ((m = msg_new(AGENT_MSG_LEFT)))
            copy_who(m, ev->player_left->who);
        break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_DEPARTED:
        if ((m = msg_new(AGENT_MSG_DEPARTED))) {
            copy_who(m, ev->player_departed->who);
            snprintf(m->text, sizeof m->text, "%s", ev->player_departed->reason);
        }
        break;
    case SUNGKA__V1__EVENT__BODY_GAME_STARTED:
        if ((m = msg_new(AGENT_MSG_STARTED))) {
            m->seat = ev->game_started->first;
            copy_board(m, ev->game_started->board);
        }
        break;
    case SUNGKA__V1__EVENT__BODY_TURN_CHANGED:
        if ((m = msg_new(AGENT_MSG_TURN))) {
            m->seat = ev->turn_changed->seat;
            copy_seats(ev->turn_changed->passed, ev->turn_changed->n_passed, m->passed,
                       &m->n_passed);
        }
        break;
    case SUNGKA__V1__EVENT__BODY_MOVE_MADE:
        m = move_msg(ev->move_made);
        break;
    case SUNGKA__V1__EVENT__BODY_CHAT:
        if ((m = msg_new(AGENT_MSG_CHAT))) {
            snprintf(m->name, sizeof m->name, "%s", ev->chat->from);
            m->seat = ev->chat->seat;
            snprintf(m->text, sizeof m->text, "%s", ev->chat->text);
        }
        break;
    case SUNGKA__V1__EVENT__BODY_GAME_OVER:
        if ((m = msg_new(AGENT_MSG_GAME_OVER))) {
            const Sungka__V1__GameOver *o = ev->game_over;
            copy_seats(o->winners, o->n_winners, m->winners, &m->n_winners);
            copy_seats(o->scores, o->n_scores, m->scores, &m->n_scores);
            m->abandoned = o->abandoned;
            snprintf(m->text, sizeof m->text, "%s", o->reason);
        }
        break;
    case SUNGKA__V1__EVENT__BODY_NOTICE:
        if ((m = msg_new(AGENT_MSG_NOTICE)))
            snprintf(m->text, sizeof m->text, "%s", ev->notice->text);
        break;
    default:
        break;   /* a newer service's event we do not know: ignore it */
    }
    if (m && ev->seq)
        m->seq = ev->seq;
    return m;
}

/* --------------------------------------------------------- stream, pings */

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
    if (ev->body_case == SUNGKA__V1__EVENT__BODY_PING) {
        /* Answer at once, here: a busy view must not look like a lost player. */
        Sungka__V1__PingReply pong = SUNGKA__V1__PING_REPLY__INIT;
        pong.nonce = ev->ping->nonce;
        rpc_method ping = board_method(BRD_PING);
        rpc_client_call(ag->client, &ping, &pong.base, ag->token, ag->cfg.call_timeout_ms,
                        ping_answered, NULL);
        agent_msg *m = msg_new(AGENT_MSG_PINGS);
        if (m)
            copy_people(m, ev->ping->participants, ev->ping->n_participants);
        push_gen(ag, m, ctx->gen);
    } else {
        push_gen(ag, event_msg(ev), ctx->gen);
    }
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void on_stream_end(const rpc_status *st, void *user)
{
    stream_ctx *ctx = user;
    agent *ag = ctx->ag;
    if (ctx->gen == current_gen(ag)) {   /* a replaced stream's end is expected */
        agent_msg *m = msg_new(AGENT_MSG_DISCONNECTED);
        if (m)
            snprintf(m->text, sizeof m->text, "%s: %s", rpc_code_name(st->code), st->message);
        push_gen(ag, m, ctx->gen);
    }
    free(ctx);
}

/* Open a new subscription (after_seq 0: a fresh snapshot), replacing any
 * earlier one; its messages are the only ones kept from now on. */
static int subscribe(agent *ag)
{
    stream_ctx *ctx = malloc(sizeof *ctx);
    if (!ctx)
        return -1;
    pthread_mutex_lock(&ag->gen_lock);
    ctx->ag = ag;
    ctx->gen = ++ag->stream_gen;
    pthread_mutex_unlock(&ag->gen_lock);
    Sungka__V1__SubscribeRequest sub = SUNGKA__V1__SUBSCRIBE_REQUEST__INIT;
    rpc_method m = board_method(BRD_SUBSCRIBE);
    rpc_stream *stream;
    if (rpc_client_stream(ag->client, &m, &sub.base, ag->token, on_event, on_stream_end, ctx,
                          &stream) != 0) {
        free(ctx);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ start */

static int create_game(agent *ag, char *err, size_t errlen)
{
    const game_kind *kind = game_kind_find(ag->cfg.new_kind);
    if (!kind) {
        snprintf(err, errlen, "unknown game kind '%s' (see --help)", ag->cfg.new_kind);
        return -1;
    }
    /* Check the options here too, for an early and precise error. */
    game_options opts;
    game_options_default(kind, &opts);
    for (int i = 0; i < ag->cfg.n_options; i++)
        if (game_options_parse(kind, &opts, ag->cfg.options[i], err, errlen) != GAME_OK)
            return -1;
    Sungka__V1__GameOption option[GAME_MAX_OPTIONS];
    Sungka__V1__GameOption *optp[GAME_MAX_OPTIONS];
    for (int i = 0; i < kind->n_options; i++) {
        sungka__v1__game_option__init(&option[i]);
        option[i].name = (char *)kind->options[i].name;
        option[i].value = opts.value[i];
        optp[i] = &option[i];
    }
    Sungka__V1__CreateGameRequest req = SUNGKA__V1__CREATE_GAME_REQUEST__INIT;
    req.kind = (char *)kind->name;
    req.n_options = (size_t)kind->n_options;
    req.options = optp;
    req.title = (char *)(ag->cfg.title ? ag->cfg.title : "");
    rpc_method m = register_method(REG_CREATE);
    ProtobufCMessage *reply = NULL;
    rpc_status st;
    if (rpc_client_call_sync(ag->client, &m, &req.base, NULL, ag->cfg.call_timeout_ms, &reply,
                             &st) != 0) {
        snprintf(err, errlen, "cannot create the game at %s: %s", ag->cfg.server, st.message);
        return -1;
    }
    Sungka__V1__CreateGameReply *created = (Sungka__V1__CreateGameReply *)reply;
    snprintf(ag->game_id, sizeof ag->game_id, "%s", created->game ? created->game->game_id : "");
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

static int join_game(agent *ag, char *err, size_t errlen)
{
    Sungka__V1__JoinGameRequest req = SUNGKA__V1__JOIN_GAME_REQUEST__INIT;
    req.game_id = ag->game_id;
    req.name = (char *)ag->cfg.name;
    req.observe = ag->cfg.observe;
    rpc_method m = register_method(REG_JOIN);
    ProtobufCMessage *reply = NULL;
    rpc_status st;
    if (rpc_client_call_sync(ag->client, &m, &req.base, NULL, ag->cfg.call_timeout_ms, &reply,
                             &st) != 0) {
        snprintf(err, errlen, "cannot join game %s at %s: %s", ag->game_id, ag->cfg.server,
                 st.message);
        return -1;
    }
    Sungka__V1__BoardRef *ref = (Sungka__V1__BoardRef *)reply;
    snprintf(ag->token, sizeof ag->token, "%s", ref->token);
    ag->seat = ref->seat;
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

void agent_library_init(void)
{
    rpc_init();
}

void agent_library_shutdown(void)
{
    rpc_shutdown();
}

int agent_start(const agent_config *cfg, agent **out, char *err, size_t errlen)
{
    agent *ag = calloc(1, sizeof *ag);
    if (!ag) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ag->cfg = *cfg;
    if (ag->cfg.call_timeout_ms <= 0)
        ag->cfg.call_timeout_ms = 5000;
    ag->model.my_seat = -1;
    ag->model.status = AGENT_GAME_WAITING;
    pthread_mutex_init(&ag->gen_lock, NULL);
    if (!(ag->queue = msgq_create())) {
        snprintf(err, errlen, "cannot create the message queue");
        goto fail_agent;
    }
    rpc_client_options copts = {0};
    copts.keepalive.time_ms = 10000;     /* no faster than the service permits (5 s) */
    copts.keepalive.timeout_ms = 5000;
    if (rpc_client_create(cfg->server, &copts, &ag->client) != 0) {
        snprintf(err, errlen, "cannot open a channel to '%s'", cfg->server);
        goto fail_queue;
    }
    if (cfg->new_kind) {
        if (create_game(ag, err, errlen) != 0)
            goto fail_client;
    } else {
        snprintf(ag->game_id, sizeof ag->game_id, "%s", cfg->game_id ? cfg->game_id : "");
    }
    if (join_game(ag, err, errlen) != 0)
        goto fail_client;
    ag->model.my_seat = ag->seat;      /* known before the snapshot arrives */

    if (subscribe(ag) != 0) {
        snprintf(err, errlen, "cannot subscribe to game %s", ag->game_id);
        goto fail_client;
    }
    *out = ag;
    return 0;

fail_client:
    rpc_client_destroy(ag->client);
fail_queue:
    msgq_destroy(ag->queue, free_item);
fail_agent:
    pthread_mutex_destroy(&ag->gen_lock);
    free(ag);
    return -1;
}

int agent_fd(const agent *ag)
{
    return msgq_fd(ag->queue);
}

const agent_model *agent_model_get(const agent *ag)
{
    return &ag->model;
}

const char *agent_game_id(const agent *ag)
{
    return ag->game_id;
}

/* ------------------------------------------------------------- the model */

static void set_people(agent_model *md, const agent_person *people, int n)
{
    md->n_people = n < AGENT_MAX_PEOPLE ? n : AGENT_MAX_PEOPLE;
    memcpy(md->people, people, (size_t)md->n_people * sizeof *people);
}

static void remove_person(agent_model *md, const char *name)
{
    for (int i = 0; i < md->n_people; i++) {
        if (strcmp(md->people[i].name, name) == 0) {
            md->people[i] = md->people[--md->n_people];
            return;
        }
    }
}

static void load_board(agent_model *md, const agent_msg *m)
{
    if (!md->have_state || !m->cells)
        return;
    game_load(&md->state, m->cells, m->n_cells, m->to_move,
              m->to_move < 0 && md->status != AGENT_GAME_WAITING);
}

static void set_turn(agent_model *md, int seat)
{
    if (!md->have_state)
        return;
    int cells[GAME_MAX_CELLS];
    int n = game_cell_count(&md->state);
    for (int i = 0; i < n; i++)
        cells[i] = game_cell(&md->state, i);
    game_load(&md->state, cells, n, seat, false);
}

/* Replay the move with our own rules and compare with the service's board. */
static void check_move(agent_model *md, agent_msg *m)
{
    if (!md->have_state || !m->cells)
        return;
    game_state mine = md->state;
    char why[GAME_ERR_LEN];
    if (game_play(&mine, m->seat, m->move, NULL, why, sizeof why) != GAME_OK) {
        m->mismatch = true;
        snprintf(m->text, sizeof m->text, "the service accepted a move our rules refuse: %s",
                 why);
    } else if (m->n_cells != game_cell_count(&mine)) {
        m->mismatch = true;
        snprintf(m->text, sizeof m->text, "the service sent %d cells, expected %d", m->n_cells,
                 game_cell_count(&mine));
    } else {
        for (int i = 0; i < m->n_cells; i++) {
            if (m->cells[i] != game_cell(&mine, i)) {
                m->mismatch = true;
                snprintf(m->text, sizeof m->text,
                         "the service's board differs from ours at cell %d (%d, expected %d)",
                         i, m->cells[i], game_cell(&mine, i));
                break;
            }
        }
    }
    if (m->mismatch)
        md->mismatches++;
}

static void apply_snapshot(agent_model *md, const agent_msg *m)
{
    memset(md, 0, sizeof *md);
    snprintf(md->game_id, sizeof md->game_id, "%s", m->game_id);
    snprintf(md->title, sizeof md->title, "%s", m->title);
    md->kind = game_kind_find(m->kind_name);
    md->opts = m->opts;
    md->my_seat = m->my_seat;
    md->status = m->status;
    memcpy(md->seat_name, m->seat_name, sizeof md->seat_name);
    set_people(md, m->people, m->n_people);
    md->last_seq = m->seq;
    char err[GAME_ERR_LEN];
    md->have_state = md->kind &&
                     game_new(&md->state, md->kind, &md->opts, err, sizeof err) == GAME_OK;
    load_board(md, m);
}

static void apply(agent_model *md, agent_msg *m)
{
    switch (m->kind) {
    case AGENT_MSG_SNAPSHOT:
        apply_snapshot(md, m);
        return;
    case AGENT_MSG_JOINED:
        if (md->n_people < AGENT_MAX_PEOPLE) {
            agent_person *p = &md->people[md->n_people++];
            memset(p, 0, sizeof *p);
            snprintf(p->name, sizeof p->name, "%s", m->name);
            p->seat = m->seat;
            p->rtt_ms = -1;
        }
        if (m->seat >= 0 && m->seat < GAME_MAX_SEATS)
            snprintf(md->seat_name[m->seat], sizeof md->seat_name[m->seat], "%s", m->name);
        break;
    case AGENT_MSG_LEFT:
    case AGENT_MSG_DEPARTED:
        remove_person(md, m->name);
        if (md->status == AGENT_GAME_WAITING && m->seat >= 0 && m->seat < GAME_MAX_SEATS)
            md->seat_name[m->seat][0] = '\0';
        break;
    case AGENT_MSG_STARTED:
        md->status = AGENT_GAME_RUNNING;
        load_board(md, m);
        break;
    case AGENT_MSG_TURN:
        set_turn(md, m->seat);
        break;
    case AGENT_MSG_MOVED:
        check_move(md, m);
        load_board(md, m);
        break;
    case AGENT_MSG_GAME_OVER:
        md->status = m->abandoned ? AGENT_GAME_ABANDONED : AGENT_GAME_FINISHED;
        md->n_winners = m->n_winners;
        memcpy(md->winners, m->winners, sizeof md->winners);
        memcpy(md->scores, m->scores, sizeof md->scores);
        snprintf(md->end_reason, sizeof md->end_reason, "%s", m->text);
        break;
    case AGENT_MSG_PINGS:
        set_people(md, m->people, m->n_people);
        break;
    default:
        break;
    }
    if (m->seq > md->last_seq)
        md->last_seq = m->seq;
}

agent_msg *agent_next(agent *ag)
{
    agent_msg *m;
    while ((m = msgq_pop(ag->queue)) != NULL) {
        if (m->stream_gen == 0 || m->stream_gen == current_gen(ag))
            break;
        agent_msg_free(m);      /* from a subscription since replaced */
    }
    if (!m)
        return NULL;
    apply(&ag->model, m);
    if (m->mismatch) {
        /* Our replay disagrees with the service: trust neither the model
         * nor the rest of this stream; start over from a fresh snapshot. */
        if (subscribe(ag) == 0)
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

/* --------------------------------------------------------------- commands */

static void command_done(const rpc_status *st, ProtobufCMessage *reply, void *user)
{
    agent *ag = user;
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
    if (st->code != RPC_OK)
        push_text(ag, AGENT_MSG_REFUSED, st->message[0] ? st->message : rpc_code_name(st->code));
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
    if (to_move != md->my_seat) {
        snprintf(why, len, "it is %s's turn", agent_seat_name(md, to_move, buf, sizeof buf));
        return -1;
    }
    return game_check(&md->state, md->my_seat, move, why, len) == GAME_OK ? 0 : -1;
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
    rpc_method m = board_method(BRD_MOVE);
    return rpc_client_call(ag->client, &m, &req.base, ag->token, ag->cfg.call_timeout_ms,
                           command_done, ag);
}

int agent_chat(agent *ag, const char *text)
{
    Sungka__V1__ChatRequest req = SUNGKA__V1__CHAT_REQUEST__INIT;
    req.text = (char *)text;
    rpc_method m = board_method(BRD_CHAT);
    return rpc_client_call(ag->client, &m, &req.base, ag->token, ag->cfg.call_timeout_ms,
                           command_done, ag);
}

int agent_leave(agent *ag)
{
    Sungka__V1__LeaveRequest req = SUNGKA__V1__LEAVE_REQUEST__INIT;
    rpc_method m = board_method(BRD_LEAVE);
    ProtobufCMessage *reply = NULL;
    rpc_status st;
    int rc = rpc_client_call_sync(ag->client, &m, &req.base, ag->token, ag->cfg.call_timeout_ms,
                                  &reply, &st);
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
    return rc;
}

void agent_destroy(agent *ag)
{
    if (!ag)
        return;
    /* Cancels the stream and waits for every callback, so nothing pushes
     * onto the queue after this. */
    rpc_client_destroy(ag->client);
    msgq_destroy(ag->queue, free_item);
    pthread_mutex_destroy(&ag->gen_lock);
    free(ag);
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
