/*
 * play_rpc.c — the Board service's calls: a seat token names the caller's
 * game and seat (caller), and each call hands its request to the room
 * (Subscribe and SubscribeMany attach streams; Move waits for its commit,
 * batched by the turn hook; Chat, Ready, Sit, Resign, Rematch...; Play is
 * a stream of every seat command, applied in order by the same room
 * functions, whose answers are events on it), whose
 * answer board_refuse turns into a status. Loop thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "board_rpc.h"

/* The participant holding `token`, in any game: the token alone names the
 * game and the seat, so it can act nowhere else. */
static participant *find_token(board_service *svc, const char *token)
{
    return person_index_find_token(&svc->tokens, token);
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


static participant *named_by(board_service *svc, rpc_call *call, const char *token);

/* Every Board call names its game and seat by the caller's token: the
 * participant it names, or NULL once the call is answered UNAUTHENTICATED. */
static participant *caller(board_service *svc, rpc_call *call)
{
    char token[BOARD_TOKEN_HEX + 8] = "";
    rpc_call_bearer(call, token, sizeof token);
    return named_by(svc, call, token);
}

/* The participant token names (as caller, for a token given otherwise). */
static participant *named_by(board_service *svc, rpc_call *call, const char *token)
{
    participant *p = token[0] ? find_token(svc, token) : NULL;
    if (!p && board_cluster_redirect_token(svc, call, token))
        return NULL;
    if (p && board_reloading(call, p->room))
        return NULL;
    if (!p && strncmp(token, ACCOUNTS_SESSION_PREFIX, strlen(ACCOUNTS_SESSION_PREFIX)) == 0)
        board_fail(call, RPC_UNAUTHENTICATED,
                   "that is a session token: Board calls take the seat token JoinGame "
                   "answered (authorization: Bearer <seat token>)");
    else if (!p)
        board_fail(call, RPC_UNAUTHENTICATED,
                   "missing or unknown seat token (send authorization: Bearer <token>); a "
                   "seat token ends with its game, when you leave, and when your account "
                   "signs out everywhere or changes its password: then sign in and join the "
                   "game again to take your seat back");
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
        board_refuse(call, rc, err);
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
        board_refuse(stream, rc, err);
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

/* What a SubscribeMany call holds against its address: each of its legs,
 * ended or not, until the call ends, since a leg's memory (and its ending,
 * queued for a client that may not read) lives as long as its call. */
typedef struct legs_held {
    board_client *from;
    int legs;
} legs_held;

static void legs_done(rpc_call *call, bool client_gone, void *user)
{
    (void)call;
    (void)client_gone;
    legs_held *held = user;
    held->from->streams -= held->legs;
    free(held);
}

/* Count n legs against `from` for as long as call lives, or answer call
 * (a limit, out of memory) and return -1. */
static int hold_legs(board_service *svc, rpc_call *call, board_client *from, int n)
{
    char err[192];
    if (board_client_may_stream(svc, from, n, err, sizeof err) != 0) {
        board_refuse(call, ROOM_E_LIMIT, err);
        return -1;
    }
    legs_held *held = malloc(sizeof *held);
    if (!held) {
        board_refuse(call, ROOM_E_LIMIT, "out of memory");
        return -1;
    }
    held->from = from;
    held->legs = n;
    from->streams += n;
    rpc_call_on_done(call, legs_done, held);
    return 0;
}

/* One subscription on its leg: attached as Subscribe attaches a call, or
 * ended with what Subscribe would have ended with. */
static void serve_leg(board_service *svc, rpc_call *leg, const Sungka__V1__Subscription *sub)
{
    participant *p = find_token(svc, sub->token);
    if (!p && board_cluster_redirect_token(svc, leg, sub->token))
        return;                            /* another node's game: ELSEWHERE */
    if (!p) {
        board_fail(leg, RPC_UNAUTHENTICATED,
                   "unknown seat token: each subscription takes the token JoinGame answered");
        return;
    }
    attach_stream(leg, p, NULL, sub->after_seq);   /* counted by its call */
}

/* Many subscriptions on one stream: each is a leg of the call (rpc.h),
 * attached to its participant as Subscribe attaches a call, so the rooms
 * neither know nor care; an event for many legs goes out once. Every leg
 * is opened before any is served: one that ends at once (a wrong token)
 * must not end the call while the others are yet to come. */
static void subscribe_many(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    const Sungka__V1__SubscribeManyRequest *req = (const void *)request;
    board_client *from = client_of(svc, call);
    if (!from)
        return;
    size_t n = req->n_subscriptions;
    if (n < 1 || n > MAX_SUBSCRIPTIONS) {
        char err[96];
        snprintf(err, sizeof err, "a SubscribeMany carries 1..%d subscriptions, not %zu",
                 MAX_SUBSCRIPTIONS, n);
        board_refuse(call, ROOM_E_INVALID, err);
        return;
    }
    rpc_call **legs = malloc(n * sizeof *legs);
    if (!legs) {
        board_refuse(call, ROOM_E_LIMIT, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        legs[i] = rpc_call_open_leg(call, (uint32_t)i);
        if (!legs[i]) {
            board_refuse(call, ROOM_E_LIMIT, "out of memory");
            free(legs);
            return;
        }
    }
    if (hold_legs(svc, call, from, (int)n) == 0) {
        for (size_t i = 0; i < n; i++)
            serve_leg(svc, legs[i], req->subscriptions[i]);
    }
    free(legs);
}

static void get_board(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    (void)request;
    participant *p = caller(svc, call);
    if (!p)
        return;
    Sungka__V1__GetBoardResponse reply = SUNGKA__V1__GET_BOARD_RESPONSE__INIT;
    wire_board_msg board;
    wire_board(room_state(p->room), p->seat, &board);
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
        board_refuse(call, rc, err);
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
    const store_ban *muted = p->account_id ? board_account_mute(svc, p->account_id) : NULL;
    if (muted) {
        char why[STORE_BAN_REASON_BYTES + 64];
        board_account_muted(muted, why, sizeof why);
        rpc_call_finish_reason(call, RPC_PERMISSION_DENIED, "MUTED", why);
        return;
    }
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

/* Sit, as the call and as a Play command. */
static room_rc sit_on(participant *p, const Sungka__V1__SitRequest *req, char *err,
                      size_t errlen)
{
    if (req->seat && req->seat->value < 0) {
        snprintf(err, errlen, "the seat must be 0 or more (leave it out for any)");
        return ROOM_E_INVALID;
    }
    int seat = req->seat ? req->seat->value : -1;   /* -1: any open seat, for the room */
    return room_sit(p->room, p, seat, err, errlen);
}

static void sit(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    participant *p = caller(svc, call);
    char err[256];
    if (!p)
        return;
    room_rc rc = sit_on(p, (const void *)request, err, sizeof err);
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

static void give_time(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    (void)request;
    Sungka__V1__GiveTimeResponse done = SUNGKA__V1__GIVE_TIME_RESPONSE__INIT;
    act(call, svc, room_give_time, &done.base);
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
    const game_kind *kind = room_kind(r);
    const time_control *clock = room_time_control(r);
    for (int i = 0; i < kind->n_options; i++) {
        sungka__v1__game_option__init(&opt[i]);
        opt[i].name = (char *)kind->options[i].name;
        opt[i].value = room_options(r)->value[i];
        optp[i] = &opt[i];
    }
    Sungka__V1__TimeControl tc = SUNGKA__V1__TIME_CONTROL__INIT;
    tc.per_move_s = clock->per_move_ms / 1000;
    tc.base_s = clock->base_ms / 1000;
    tc.increment_s = clock->increment_ms / 1000;
    rpc_code code;
    room *next = board_new_room(svc, call, kind->name, optp, (size_t)kind->n_options, room_title(r),
                          true, room_has_clocks(r) ? &tc : NULL, room_is_rated(r),
                          room_takeover_level(r), NULL, &code, err, errlen);
    if (!next)
        return NULL;
    int seats = game_seats(room_state(r));
    for (int t = 0; t < seats; t++) {        /* new seat t: the old seat before it */
        const participant *h = room_seat_holder(r, (t + seats - 1) % seats);
        participant *np;
        if (room_join_as(next, h->name, h->account_id, false, NULL, h->host, &np, err,
                         errlen) != ROOM_OK)
            return NULL;                       /* the unfinished game goes away by itself */
        if (h->bot_level > 0 && board_bots_adopt(svc, next, np, h->bot_level, err, errlen))
            return NULL;
    }
    room_rematch_started(r, room_id(next));
    return next;
}

/* Rematch, as the call and as a Play command: *next is the rematch once
 * it has started (else NULL). */
static room_rc rematch_of(board_service *svc, rpc_call *call, participant *p,
                          const Sungka__V1__RematchRequest *req, room **next /* OUT */,
                          char *err, size_t errlen)
{
    room *r = p->room;
    bool all = false;
    *next = NULL;
    if (room_rematch_id(r)[0] && !req->decline) {   /* started: your seat in it */
        *next = board_find_room(svc, room_rematch_id(r));
        if (!*next) {
            snprintf(err, errlen, "the rematch, game %s, is over", room_rematch_id(r));
            return ROOM_E_NOT_FOUND;
        }
        return ROOM_OK;
    }
    room_rc rc = room_rematch(r, p, req->decline, &all, err, errlen);
    if (rc == ROOM_OK && all && !(*next = start_rematch(svc, call, r, err, errlen)))
        rc = ROOM_E_LIMIT;
    return rc;
}

static void rematch(rpc_call *call, const ProtobufCMessage *request, void *svc)
{
    participant *p = caller(svc, call);
    char err[256];
    if (!p)
        return;
    room *next;
    room_rc rc = rematch_of(svc, call, p, (const void *)request, &next, err, sizeof err);
    Sungka__V1__RematchResponse done = SUNGKA__V1__REMATCH_RESPONSE__INIT;
    Sungka__V1__BoardRef ref = SUNGKA__V1__BOARD_REF__INIT;
    Sungka__V1__SeatNumber seat;
    participant *mine = next ? room_find_name(next, p->name) : NULL;
    if (mine) {
        ref.endpoint = ((board_service *)svc)->endpoint;
        ref.game_id = (char *)room_id(next);
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

/* ------------------------------------------------------------------ Play */

/* What a Play call keeps (freed with the call, rpc_call_on_message): the
 * token, looked up at every command rather than a participant pointer kept,
 * so a participant gone by then is simply not found; and its command rate. */
typedef struct play_session {
    board_service *svc;
    char token[BOARD_TOKEN_HEX + 8];
    int64_t window_start_ms;
    int in_window;
} play_session;

void board_play_refused(rpc_call *stream, uint64_t id, rpc_code code, const char *reason,
                        const char *why)
{
    Sungka__V1__CommandRefused refused = SUNGKA__V1__COMMAND_REFUSED__INIT;
    refused.id = id;
    refused.code = (int32_t)code;
    refused.reason = (char *)reason;
    refused.message = (char *)why;
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.time_ms = board_wall_ms();
    ev.body_case = SUNGKA__V1__EVENT__BODY_COMMAND_REFUSED;
    ev.command_refused = &refused;
    /* A full outbox cannot happen here: commands are read only while it
     * holds fewer than RPC_INBOX_OUTBOX_ROOM (rpc.h). */
    rpc_call_send(stream, &ev.base);
}

static void play_refuse(play_session *s, rpc_call *call, uint64_t id, room_rc rc, const char *why)
{
    rpc_code code;
    const char *reason;
    board_refusal(rc, &code, &reason);
    board_metrics_refusal(s->svc, code, reason);
    board_play_refused(call, id, code, reason, why);
}

/* Commands past --move-rate a second on one stream are refused: the same
 * bound as a seat's moves, since most commands are moves. */
static bool play_rate_ok(play_session *s, participant *p, char *err, size_t errlen)
{
    int64_t now = board_now_ms();
    if (now - s->window_start_ms >= 1000) {
        s->window_start_ms = now;
        s->in_window = 0;
    }
    if (++s->in_window <= s->svc->cfg.move_rate)
        return true;
    snprintf(err, errlen, "too many commands: at most %d a second", s->svc->cfg.move_rate);
    if (s->in_window == s->svc->cfg.move_rate + 1)   /* once a window, not per command */
        board_log_limit(s->svc, p->host, err);
    return false;
}

static void play_chat(play_session *s, rpc_call *call, participant *p, uint64_t id,
                      const Sungka__V1__ChatRequest *req)
{
    char err[256];
    board_client *from = board_client_of(s->svc, call);
    if (!from) {
        play_refuse(s, call, id, ROOM_E_LIMIT, "out of memory");
        return;
    }
    const store_ban *muted = p->account_id ? board_account_mute(s->svc, p->account_id) : NULL;
    if (muted) {
        char why[STORE_BAN_REASON_BYTES + 64];
        board_account_muted(muted, why, sizeof why);
        board_play_refused(call, id, RPC_PERMISSION_DENIED, "MUTED", why);
        return;
    }
    room_rc rc = room_chat(p->room, p, from, req->text, req->to, err, sizeof err);
    if (rc != ROOM_OK)
        play_refuse(s, call, id, rc, err);
}

/* The commands' names, for the metrics (sungka_play_commands_total: one
 * series each, and "unknown" for a case this service does not know). */
static const struct {
    Sungka__V1__PlayRequest__CommandCase command;
    const char *name;
} play_names[] = {
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_START, "start"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_MOVE, "move"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_CHAT, "chat"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_PING, "ping"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_READY, "ready"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_RESIGN, "resign"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_OFFER_DRAW, "offer_draw"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_GIVE_TIME, "give_time"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_ANSWER_DRAW, "answer_draw"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_SIT, "sit"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_STAND, "stand"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_ABORT, "abort"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_CLAIM, "claim"},
    {SUNGKA__V1__PLAY_REQUEST__COMMAND_REMATCH, "rematch"},
};

static const char *play_name(Sungka__V1__PlayRequest__CommandCase command)
{
    for (size_t i = 0; i < sizeof play_names / sizeof play_names[0]; i++)
        if (play_names[i].command == command)
            return play_names[i].name;
    return "unknown";
}

/* One command after the start (rpc_message_cb). Batched: moves of one
 * loop turn, from any number of streams, are stored in one transaction
 * (room_commit_moves, by the turn hook), and their MoveMade events are
 * their acknowledgements; any other command first stores what is pending,
 * as the turn hook does before a unary call. */
static void play_command(rpc_call *call, const ProtobufCMessage *msg, void *user)
{
    play_session *s = user;
    if (!msg)
        return;              /* half-closed: the events go on until the client leaves */
    const Sungka__V1__PlayRequest *req = (const void *)msg;
    participant *p = find_token(s->svc, s->token);
    if (!p || p->stream != call)
        return;              /* not attached (it ends by then): nobody to act for */
    char err[256] = "";
    uint64_t id = req->id;
    board_metrics_play_command(s->svc, play_name(req->command_case));
    if (!play_rate_ok(s, p, err, sizeof err)) {
        play_refuse(s, call, id, ROOM_E_LIMIT, err);
        return;
    }
    if (req->command_case != SUNGKA__V1__PLAY_REQUEST__COMMAND_MOVE)
        room_commit_moves(s->svc);
    if (room_is_diverged(p->room)) {
        snprintf(err, sizeof err, "game %s is being reloaded from its stored log; try again",
                 room_id(p->room));
        board_play_refused(call, id, RPC_UNAVAILABLE, "GAME_MOVING", err);
        return;
    }
    room_rc rc = ROOM_OK;
    room *next;
    switch (req->command_case) {
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_MOVE:
        rc = room_move_on_stream(p->room, p, req->move->move, id, err, sizeof err);
        break;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_CHAT:
        play_chat(s, call, p, id, req->chat);
        return;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_PING:
        room_pong(p, req->ping->nonce);
        return;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_READY:
        rc = room_ready(p->room, p, req->ready->ready, err, sizeof err);
        break;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_RESIGN:
        rc = room_resign(p->room, p, err, sizeof err);
        break;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_GIVE_TIME:
        rc = room_give_time(p->room, p, err, sizeof err);
        break;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_OFFER_DRAW:
        rc = room_offer_draw(p->room, p, err, sizeof err);
        break;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_ANSWER_DRAW:
        rc = room_answer_draw(p->room, p, req->answer_draw->accept, err, sizeof err);
        break;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_SIT:
        rc = sit_on(p, req->sit, err, sizeof err);
        break;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_STAND:
        rc = room_stand(p->room, p, err, sizeof err);
        break;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_ABORT:
        rc = room_abort(p->room, p, err, sizeof err);
        break;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_CLAIM:
        rc = room_claim(p->room, p, err, sizeof err);
        break;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_REMATCH:
        /* The rematch's seat comes as the unary call's answer only: on the
         * stream, its RematchStarted event says where to ask for it. */
        rc = rematch_of(s->svc, call, p, req->rematch, &next, err, sizeof err);
        break;
    case SUNGKA__V1__PLAY_REQUEST__COMMAND_START:
        snprintf(err, sizeof err, "the stream has started already: start comes once, first");
        rc = ROOM_E_INVALID;
        break;
    default:
        snprintf(err, sizeof err, "a command this service does not know (field %d): use the "
                 "unary call", (int)req->command_case);
        rc = ROOM_E_INVALID;
        break;
    }
    if (rc != ROOM_OK)
        play_refuse(s, call, id, rc, err);
}

/* The first message of a Play stream: its start. The seat's events from
 * after_seq, as Subscribe; then commands (play_command). */
static void play(rpc_call *call, const ProtobufCMessage *request, void *svc_)
{
    board_service *svc = svc_;
    const Sungka__V1__PlayRequest *req = (const void *)request;
    if (req->command_case != SUNGKA__V1__PLAY_REQUEST__COMMAND_START) {
        board_fail(call, RPC_INVALID_ARGUMENT,
                   "a Play stream begins with a start naming the seat token and after_seq");
        return;
    }
    room_commit_moves(svc);     /* batched: the log replayed holds only what is stored */
    char token[BOARD_TOKEN_HEX + 8] = "";
    if (req->start->token[0])
        snprintf(token, sizeof token, "%s", req->start->token);
    else
        rpc_call_bearer(call, token, sizeof token);
    participant *p = named_by(svc, call, token);
    board_client *from = p ? client_of(svc, call) : NULL;
    if (!from)
        return;
    play_session *s = calloc(1, sizeof *s);
    if (!s) {
        board_refuse(call, ROOM_E_LIMIT, "out of memory");
        return;
    }
    s->svc = svc;
    snprintf(s->token, sizeof s->token, "%s", token);
    rpc_call_on_message(call, play_command, s, free);
    attach_stream(call, p, from, req->start->after_seq);
}

const rpc_method_entry board_play_methods[] = {
    {"Subscribe", subscribe, true, false, false},
    {"SubscribeMany", subscribe_many, true, false, false},
    {"GetBoard", get_board, false, false, false},
    {"Move", move, false, true, false},
    {"Chat", chat, false, false, false},
    {"Ping", ping, false, true, false},
    {"Leave", leave, false, false, false},
    {"Ready", ready, false, false, false},
    {"Sit", sit, false, false, false},
    {"Stand", stand, false, false, false},
    {"Resign", resign, false, false, false},
    {"Abort", abort_game, false, false, false},
    {"OfferDraw", offer_draw, false, false, false},
    {"GiveTime", give_time, false, false, false},
    {"AnswerDraw", answer_draw, false, false, false},
    {"Claim", claim, false, false, false},
    {"Rematch", rematch, false, false, false},
    {"Play", play, true, true, true},
};

const size_t board_play_n_methods = sizeof board_play_methods / sizeof board_play_methods[0];
