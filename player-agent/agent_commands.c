/*
 * agent_commands.c — the game's commands: move, chat, tell, ready, sit,
 * stand, and the checks a view makes before a move (the same rules engine
 * the service runs). Commands return at once; a refusal comes back later as
 * an AGENT_MSG_REFUSED message, in words.
 *
 * Threads: the view thread calls everything here; command_done runs on
 * gRPC's client thread and only queues a message. The seat tokens are read
 * with ag->lock held; the model is the view thread's.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "agent_internal.h"

static void command_done(const rpc_status *st, ProtobufCMessage *reply, void *user)
{
    agent *ag = user;
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
    if (st->code != RPC_OK) {
        char said[AGENT_TEXT_BYTES], words[200], at[AGENT_ADDRESS_BYTES];
        rpc_pool_address(ag->pool, at, sizeof at);
        /* The next command goes where the game is now; this one is not
         * sent again (it may have been played before its node died). */
        rpc_pool_follow(ag->pool, st);
        /* A command goes out on a connection that worked: if it fails on
         * the way, its node went away, and whether it took effect before
         * is for the game's events to say (not for the hints about TLS
         * that a first connection gets). */
        if (agent__unreachable(ag, st, words, sizeof words))
            snprintf(said, sizeof said, "lost the board service at %.120s before it answered; "
                     "the command may or may not have been played: the game's events will "
                     "say once reconnected", at);
        else
            agent__text(said, sizeof said, st->message[0] ? st->message : rpc_code_name(st->code));
        agent_msg *m = agent__msg_new(AGENT_MSG_REFUSED);
        if (m) {
            snprintf(m->text, sizeof m->text, "%s", said);
            snprintf(m->reason, sizeof m->reason, "%s", st->reason);
            agent__push(ag, m);
        }
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
    char token[AGENT_TOKEN_BYTES];
    if (!token_of(ag, seat, token, sizeof token))
        return -1;
    return rpc_client_call(rpc_pool_client(ag->pool), m, req, token, ag->cfg.call_timeout_ms,
                           command_done, ag);
}

/* A seat's command: on the seat's Play stream, where it keeps its order
 * with the seat's moves (a unary call could overtake a move on the
 * stream), as the PlayRequest case `which` carrying req; its answer is an
 * event there, a refusal a CommandRefused (agent_stream.c). Without a
 * Play stream (a service without Play, or between streams): the unary
 * call m. seat -2: any seat we hold. */
static int on_play_or_call(agent *ag, int seat, Sungka__V1__PlayRequest__CommandCase which,
                           const ProtobufCMessage *req, const rpc_method *m)
{
    Sungka__V1__PlayRequest cmd = SUNGKA__V1__PLAY_REQUEST__INIT;
    const ProtobufCFieldDescriptor *f =
        protobuf_c_message_descriptor_get_field(cmd.base.descriptor, (unsigned)which);
    if (f) {
        cmd.command_case = which;
        /* The oneof's member for `which`, found by its descriptor. */
        *(const ProtobufCMessage **)((char *)&cmd + f->offset) = req;
        if (agent__play_send(ag, seat, &cmd))
            return 0;
    }
    return command(ag, m, req, seat);
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
        return AGENT_MOVE_OBSERVING;
    }
    if (md->status == AGENT_GAME_WAITING) {
        snprintf(why, len, "the game has not started");
        return AGENT_MOVE_NOT_STARTED;
    }
    if (md->status != AGENT_GAME_RUNNING || !md->have_state) {
        snprintf(why, len, "the game is over");
        return AGENT_MOVE_GAME_OVER;
    }
    int to_move = game_to_move(&md->state);
    if (!agent_holds_seat(ag, to_move)) {
        snprintf(why, len, "it is %s's turn", agent_seat_name(md, to_move, buf, sizeof buf));
        return AGENT_MOVE_THEIR_TURN;
    }
    return game_check(&md->state, to_move, move, why, len);
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
    /* On the Play stream its MoveMade is the answer. */
    return on_play_or_call(ag, seat, SUNGKA__V1__PLAY_REQUEST__COMMAND_MOVE, &req.base,
                           &agent__methods.move);
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
    /* What a player types reaches the game in the order typed (a chat then
     * a move is logged so). */
    return on_play_or_call(ag, -2, SUNGKA__V1__PLAY_REQUEST__COMMAND_CHAT, &req.base,
                           &agent__methods.chat);
}

/* Ready (or not) on the seat's Play stream, after a sit sent there: as a
 * unary call it could overtake the sit and be refused to an observer (the
 * e2e_lobby test's "sit 1" then "ready" did, now and then). seat -2: the one
 * chair we hold (its seat may still read as an observer's). */
static void send_ready(agent *ag, int seat, bool ready)
{
    Sungka__V1__ReadyRequest req = SUNGKA__V1__READY_REQUEST__INIT;
    req.ready = ready;
    on_play_or_call(ag, seat, SUNGKA__V1__PLAY_REQUEST__COMMAND_READY, &req.base,
                    &agent__methods.ready);
}

/* An observer's chair waits for a seat. */
void agent__ready_if_seated(agent *ag)
{
    const agent_model *md = &ag->model;
    int seats[AGENT_MAX_HELD] = {md->my_seat, md->hot_seat};
    for (int i = 0; i < AGENT_MAX_HELD; i++) {
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
        pthread_mutex_lock(&ag->lock);
        int n_held = ag->n_held;
        pthread_mutex_unlock(&ag->lock);
        if (!ready && i < n_held)
            send_ready(ag, n_held > 1 ? seats[i] : -2, true);
    }
}

int agent_ready(agent *ag, bool ready)
{
    agent_holder held[AGENT_MAX_HELD];
    pthread_mutex_lock(&ag->lock);
    int n = ag->n_held;
    memcpy(held, ag->held, sizeof held);
    pthread_mutex_unlock(&ag->lock);
    if (!n)
        return -1;
    for (int i = 0; i < n; i++)
        send_ready(ag, n > 1 ? held[i].seat : -2, ready);
    return 0;
}

int agent_sit(agent *ag, int seat)
{
    Sungka__V1__SitRequest req = SUNGKA__V1__SIT_REQUEST__INIT;
    Sungka__V1__SeatNumber box;
    req.seat = agent__seat_field(seat, &box);   /* -1: any open seat */
    return on_play_or_call(ag, -2, SUNGKA__V1__PLAY_REQUEST__COMMAND_SIT, &req.base,
                           &agent__methods.sit);
}

int agent_stand(agent *ag)
{
    Sungka__V1__StandRequest req = SUNGKA__V1__STAND_REQUEST__INIT;
    return on_play_or_call(ag, -2, SUNGKA__V1__PLAY_REQUEST__COMMAND_STAND, &req.base,
                           &agent__methods.stand);
}

/* The seat a hot-seat player acts for: the one to move, if we hold it. */
static int acting_seat(agent *ag)
{
    int to_move = ag->model.have_state ? game_to_move(&ag->model.state) : -1;
    return agent_holds_seat(ag, to_move) ? to_move : ag->model.my_seat;
}

int agent_resign(agent *ag)
{
    Sungka__V1__ResignRequest req = SUNGKA__V1__RESIGN_REQUEST__INIT;
    return on_play_or_call(ag, acting_seat(ag), SUNGKA__V1__PLAY_REQUEST__COMMAND_RESIGN,
                           &req.base, &agent__methods.resign);
}

int agent_abort(agent *ag)
{
    Sungka__V1__AbortRequest req = SUNGKA__V1__ABORT_REQUEST__INIT;
    return on_play_or_call(ag, acting_seat(ag), SUNGKA__V1__PLAY_REQUEST__COMMAND_ABORT,
                           &req.base, &agent__methods.abort);
}

int agent_give_time(agent *ag)
{
    Sungka__V1__GiveTimeRequest req = SUNGKA__V1__GIVE_TIME_REQUEST__INIT;
    return on_play_or_call(ag, acting_seat(ag), SUNGKA__V1__PLAY_REQUEST__COMMAND_GIVE_TIME,
                           &req.base, &agent__methods.give_time);
}

int agent_offer_draw(agent *ag)
{
    Sungka__V1__OfferDrawRequest req = SUNGKA__V1__OFFER_DRAW_REQUEST__INIT;
    return on_play_or_call(ag, acting_seat(ag), SUNGKA__V1__PLAY_REQUEST__COMMAND_OFFER_DRAW,
                           &req.base, &agent__methods.offer_draw);
}

int agent_claim(agent *ag)
{
    Sungka__V1__ClaimRequest req = SUNGKA__V1__CLAIM_REQUEST__INIT;
    return on_play_or_call(ag, acting_seat(ag), SUNGKA__V1__PLAY_REQUEST__COMMAND_CLAIM,
                           &req.base, &agent__methods.claim);
}

int agent_rematch(agent *ag, bool decline)
{
    Sungka__V1__RematchRequest req = SUNGKA__V1__REMATCH_REQUEST__INIT;
    req.decline = decline;
    /* Its seat in the rematch: agent_follow_rematch, on RematchStarted. */
    return on_play_or_call(ag, ag->model.my_seat, SUNGKA__V1__PLAY_REQUEST__COMMAND_REMATCH,
                           &req.base, &agent__methods.rematch);
}

int agent_answer_draw(agent *ag, bool accept)
{
    Sungka__V1__AnswerDrawRequest req = SUNGKA__V1__ANSWER_DRAW_REQUEST__INIT;
    req.accept = accept;
    return on_play_or_call(ag, acting_seat(ag), SUNGKA__V1__PLAY_REQUEST__COMMAND_ANSWER_DRAW,
                           &req.base, &agent__methods.answer_draw);
}
