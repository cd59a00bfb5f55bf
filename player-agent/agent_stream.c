/*
 * agent_stream.c — the event streams of the seats the agent holds, and the
 * reconnect thread that brings a dropped one back.
 *
 * Each seat we hold has its own subscription (the service pings every seat on
 * its own stream): a Board.Play stream, on which its moves and ping answers
 * go too, or, from a service that answers Play UNIMPLEMENTED (an older one),
 * a Subscribe stream beside Move and Ping calls; the first seat's events feed the view, the second's only
 * answer pings and bring what was said to it alone. Every subscription has a
 * generation number: messages and stream ends of a subscription that has
 * since been replaced are dropped (here, and again in agent_next for those
 * already queued), so leaving a game, resynchronising or reconnecting never
 * mixes streams.
 *
 * Threads: on_event and on_stream_end run on gRPC's client thread,
 * reconnect_loop on the reconnect thread, agent__subscribe on either that
 * one or the view thread. All of them read and write the holders only with
 * ag->lock held, make rpc calls only without it, and reach the view only
 * through the queue; none touches the model.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent_internal.h"

#define RETRY_FIRST_MS 250
#define RETRY_MAX_MS 5000
#define PROGRESS_MS 10000      /* "still trying" at most this often */

/* The retries' longest wait and the "still trying" lines' spacing: the
 * above, or for a --reconnect-for under a minute a twelfth and a sixth of
 * it, so that one who gives up soon is tried for and told of as often in
 * proportion (12 s: a retry at least every second, a line every 2 s). */
static int retry_max_ms(const agent *ag)
{
    int ms = ag->cfg.reconnect_for_ms / 12;
    return ms > RETRY_MAX_MS ? RETRY_MAX_MS : ms < RETRY_FIRST_MS ? RETRY_FIRST_MS : ms;
}

static int progress_ms(const agent *ag)
{
    int ms = ag->cfg.reconnect_for_ms / 6;
    return ms > PROGRESS_MS ? PROGRESS_MS : ms;
}

/* Which subscription a stream's callbacks belong to (owned by the stream:
 * freed by on_stream_end, which runs once per stream started). */
typedef struct stream_ctx {
    agent *ag;
    int holder;                /* index into ag->held */
    unsigned gen;
    bool play;                 /* a Play stream (else Subscribe) */
    rpc_stream *stream;        /* set before any of its callbacks runs */
} stream_ctx;

static void on_event(ProtobufCMessage *msg, void *user);
static void on_stream_end(const rpc_status *st, void *user);

/* Not with the lock held: rpc calls and our callbacks both take it. */
int agent__subscribe(agent *ag, int index, uint64_t after_seq)
{
    stream_ctx *ctx = malloc(sizeof *ctx);
    if (!ctx)
        return -1;
    char token[AGENT_TOKEN_BYTES];
    pthread_mutex_lock(&ag->lock);
    if (index >= ag->n_held) {
        pthread_mutex_unlock(&ag->lock);
        free(ctx);
        return -1;
    }
    ctx->ag = ag;
    ctx->holder = index;
    ctx->gen = ag->held[index].gen = ++ag->next_gen;
    ctx->play = !ag->no_play;
    ctx->stream = NULL;
    snprintf(token, sizeof token, "%s", ag->held[index].token);
    pthread_mutex_unlock(&ag->lock);

    int rc;
    if (ctx->play) {
        Sungka__V1__PlayStart start = SUNGKA__V1__PLAY_START__INIT;
        start.token = token;
        start.after_seq = after_seq;
        Sungka__V1__PlayRequest first = SUNGKA__V1__PLAY_REQUEST__INIT;
        first.command_case = SUNGKA__V1__PLAY_REQUEST__COMMAND_START;
        first.start = &start;
        rc = rpc_client_bidi(rpc_pool_client(ag->pool), &agent__methods.play, &first.base, NULL,
                             on_event, on_stream_end, ctx, &ctx->stream);
    } else {
        Sungka__V1__SubscribeRequest sub = SUNGKA__V1__SUBSCRIBE_REQUEST__INIT;
        sub.after_seq = after_seq;
        rc = rpc_client_stream(rpc_pool_client(ag->pool), &agent__methods.subscribe, &sub.base,
                               token, on_event, on_stream_end, ctx, &ctx->stream);
    }
    if (rc != 0) {
        free(ctx);
        return -1;
    }
    return 0;
}

bool agent__play_send(agent *ag, int seat, Sungka__V1__PlayRequest *req)
{
    bool sent = false;
    pthread_mutex_lock(&ag->lock);
    for (int i = 0; i < ag->n_held && !sent; i++) {
        agent_holder *h = &ag->held[i];
        if (h->play && (seat == -2 || h->seat == seat)) {
            req->id = ++ag->next_command;
            /* Under the lock: on_stream_end clears h->play under it before
             * the stream's end callback returns, so the stream is alive. */
            sent = rpc_stream_send(h->play, &req->base) == 0;
            h->play_unanswered |= sent;
        }
    }
    pthread_mutex_unlock(&ag->lock);
    return sent;
}

static void on_event(ProtobufCMessage *msg, void *user)
{
    stream_ctx *ctx = user;
    agent *ag = ctx->ag;
    Sungka__V1__Event *ev = (Sungka__V1__Event *)msg;
    char token[AGENT_TOKEN_BYTES], name[AGENT_NAME_BYTES];
    bool reconnected = false;
    uint64_t resumed_after = 0;

    pthread_mutex_lock(&ag->lock);
    agent_holder *h = ctx->holder < ag->n_held ? &ag->held[ctx->holder] : NULL;
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
    if (ctx->play && !h->play)
        h->play = ctx->stream;               /* moves may go on it from now on */
    if (ctx->play && h->play == ctx->stream)
        h->play_unanswered = false;          /* whatever answers a command is an event */
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
            char at[AGENT_ADDRESS_BYTES];
            snprintf(m->text, sizeof m->text, "reconnected to %s",
                     rpc_pool_address(ag->pool, at, sizeof at));
            m->said = AGENT_SAID_RECONNECTED;
            snprintf(m->where, sizeof m->where, "%s", at);
        }
        agent__push(ag, m);
    }
    agent_msg *out = NULL;
    if (ev->body_case == SUNGKA__V1__EVENT__BODY_PING) {
        /* Answer at once, here: a busy view must not look like a lost player. */
        Sungka__V1__PingRequest pong = SUNGKA__V1__PING_REQUEST__INIT;
        pong.nonce = ev->ping->nonce;
        Sungka__V1__PlayRequest cmd = SUNGKA__V1__PLAY_REQUEST__INIT;
        cmd.command_case = SUNGKA__V1__PLAY_REQUEST__COMMAND_PING;
        cmd.ping = &pong;
        /* On its own Play stream (inside its callback: alive), else a call. */
        if (!ctx->play || rpc_stream_send(ctx->stream, &cmd.base) != 0)
            rpc_client_call(rpc_pool_client(ag->pool), &agent__methods.ping, &pong.base, token,
                            ag->cfg.call_timeout_ms, rpc_reply_drop, NULL);
        if (ctx->holder == 0)
            out = agent__pings_msg(ev->ping);
    } else if (ev->body_case == SUNGKA__V1__EVENT__BODY_COMMAND_REFUSED) {
        /* A command sent on this stream, refused: as a refused call, its
         * reason for the view to say it in the user's language. */
        agent_msg *m = agent__msg_new(AGENT_MSG_REFUSED);
        if (m) {
            agent__text(m->text, sizeof m->text, ev->command_refused->message);
            snprintf(m->reason, sizeof m->reason, "%s", ev->command_refused->reason);
            agent__push(ag, m);
        }
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
        agent__push(ag, batch[i]);
    }
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void on_stream_end(const rpc_status *st, void *user)
{
    stream_ctx *ctx = user;
    agent *ag = ctx->ag;
    char text[AGENT_TEXT_BYTES], where[AGENT_ADDRESS_BYTES] = "";
    agent_msg_kind kind = AGENT_MSG_RECONNECTING;
    agent_said said_code = AGENT_SAID_TEXT;    /* what text says, for views to translate */
    int seconds = 0;

    pthread_mutex_lock(&ag->lock);
    agent_holder *h = ctx->holder < ag->n_held ? &ag->held[ctx->holder] : NULL;
    bool unanswered = false;
    if (h && h->play == ctx->stream) {
        h->play = NULL;                      /* no more sends on it */
        unanswered = h->play_unanswered && st->code != RPC_OK;
        h->play_unanswered = false;
    }

    if (ag->stopping || !h || h->gen != ctx->gen) {   /* expected: we replaced or left it */
        pthread_mutex_unlock(&ag->lock);
        free(ctx);
        return;
    }
    int64_t now = agent_now_ms();
    if (ctx->play && st->code == RPC_UNIMPLEMENTED) {
        /* An older service: Subscribe at once, and calls for the rest. */
        ag->no_play = true;
        h->retry_ms = now;
        pthread_cond_signal(&ag->wake);
        pthread_mutex_unlock(&ag->lock);
        free(ctx);
        return;
    }
    char said[sizeof st->message];
    agent__text(said, sizeof said, st->message);
    text[0] = '\0';
    if ((st->code == RPC_UNAUTHENTICATED || st->code == RPC_NOT_FOUND) && h->seat < 0 &&
        !h->rejoin && ag->game_id[0]) {
        /* An observer's chair is easily had again (its relay died): the
         * reconnect thread joins anew, then resumes after the last event. */
        h->rejoin = true;
        if (!h->lost_ms)
            h->lost_ms = h->said_ms = now;
        h->attempts++;
        h->retry_ms = now;
        pthread_cond_signal(&ag->wake);
    } else if (st->code == RPC_UNAUTHENTICATED || st->code == RPC_NOT_FOUND) {
        kind = AGENT_MSG_DISCONNECTED;
        snprintf(text, sizeof text, "the seat of %s is gone: %s", h->name, said);
    } else if (st->code == RPC_ABORTED) {
        kind = AGENT_MSG_DISCONNECTED;
        snprintf(text, sizeof text, "another agent took over the seat of %s", h->name);
    } else if (st->code == RPC_OK) {
        kind = AGENT_MSG_DISCONNECTED;
        snprintf(text, sizeof text, "the service closed the stream: %s", said);
    } else if (st->endpoint[0] && h->attempts < 3 && rpc_pool_go_to(ag->pool, st->endpoint) == 0) {
        /* A cluster's node says where the game lives now: go at once (a
         * few times; then as any retry, in case nodes disagree). */
        if (!h->lost_ms)
            h->lost_ms = h->said_ms = now;
        h->attempts++;
        h->retry_ms = now;
        pthread_cond_signal(&ag->wake);
    } else {
        /* Every failed attempt ends here. The view hears of it once, then
         * now and then, in words: gRPC's own sentence for each attempt
         * ("failed to connect to all addresses; last error: ...") says
         * nothing a player can act on. */
        int for_s = ag->cfg.reconnect_for_ms / 1000;
        char at[AGENT_ADDRESS_BYTES];
        rpc_pool_address(ag->pool, at, sizeof at);
        if (!h->lost_ms) {
            h->lost_ms = h->said_ms = now;
            snprintf(text, sizeof text, "lost the connection to %s; trying again for %d s\u2026",
                     at, for_s);
            said_code = AGENT_SAID_LOST;
            snprintf(where, sizeof where, "%s", at);
            seconds = for_s;
        }
        rpc_pool_follow(ag->pool, st);       /* a cluster: the next node may know where it went */
        if (now - h->lost_ms > ag->cfg.reconnect_for_ms) {
            kind = AGENT_MSG_DISCONNECTED;
            snprintf(text, sizeof text, "could not reconnect within %d s; giving up", for_s);
            said_code = AGENT_SAID_GAVE_UP;
            seconds = for_s;
        } else {
            int delay = RETRY_FIRST_MS << (h->attempts < 5 ? h->attempts : 5);
            if (delay > retry_max_ms(ag))
                delay = retry_max_ms(ag);
            h->attempts++;
            h->retry_ms = now + delay;
            if (!text[0] && now - h->said_ms >= progress_ms(ag)) {
                h->said_ms = now;
                seconds = (int)((now - h->lost_ms) / 1000);
                snprintf(text, sizeof text, "still trying (%d s)\u2026", seconds);
                said_code = AGENT_SAID_STILL_TRYING;
            }
            pthread_cond_signal(&ag->wake);
        }
    }
    if (kind == AGENT_MSG_DISCONNECTED)
        h->gen = 0;          /* nothing more from this seat */
    bool primary = ctx->holder == 0;
    pthread_mutex_unlock(&ag->lock);
    if (unanswered && st->code != RPC_ABORTED) {
        /* A command sent on it that nothing answered before it ended: as a
         * Move call whose node went away (agent_commands.c). */
        char at[AGENT_ADDRESS_BYTES];
        rpc_pool_address(ag->pool, at, sizeof at);
        agent_msg *m = agent__msg_new(AGENT_MSG_REFUSED);
        if (m) {
            snprintf(m->text, sizeof m->text, "lost the board service at %.120s before it "
                     "answered; the command may or may not have been played: the game's "
                     "events will say once reconnected", at);
            agent__push(ag, m);
        }
    }
    if (text[0] && (primary || kind == AGENT_MSG_DISCONNECTED)) {
        agent_msg *m = agent__msg_new(kind);
        if (m) {
            snprintf(m->text, sizeof m->text, "%s", text);
            m->said = said_code;
            snprintf(m->where, sizeof m->where, "%s", where);
            m->seconds = seconds;
            agent__push(ag, m);
        }
    }
    free(ctx);
}

/* A new chair could not be had: again after the back-off, until the
 * agent gives up as for any lost connection. */
static void retry_rejoin(agent *ag, int index)
{
    pthread_mutex_lock(&ag->lock);
    agent_holder *h = index < ag->n_held ? &ag->held[index] : NULL;
    bool give_up = h && agent_now_ms() - h->lost_ms > ag->cfg.reconnect_for_ms;
    if (h && !give_up) {
        int delay = RETRY_FIRST_MS << (h->attempts < 5 ? h->attempts : 5);
        h->attempts++;
        h->retry_ms = agent_now_ms() + (delay < retry_max_ms(ag) ? delay : retry_max_ms(ag));
    } else if (h) {
        h->gen = 0;
    }
    bool primary = index == 0;
    pthread_mutex_unlock(&ag->lock);
    if (give_up && primary)
        agent__push_text(ag, AGENT_MSG_DISCONNECTED,
                         "could not watch the game again; giving up");
}

/* The reconnect thread: resubscribe each seat whose stream dropped, after
 * the last event it received, when its back-off is over. */
static void *reconnect_loop(void *arg)
{
    agent *ag = arg;
    pthread_mutex_lock(&ag->lock);
    while (!ag->stopping) {
        int64_t now = agent_now_ms(), next = 0;
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
            bool rejoin = ag->held[due].rejoin;
            ag->held[due].retry_ms = 0;
            pthread_mutex_unlock(&ag->lock);
            if (rejoin && agent__rejoin(ag, due) != 0) {
                retry_rejoin(ag, due);
            } else {
                agent__subscribe(ag, due, after);
            }
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

int agent__reconnector_start(agent *ag)
{
    return pthread_create(&ag->reconnector, NULL, reconnect_loop, ag) == 0 ? 0 : -1;
}

void agent__reconnector_stop(agent *ag)
{
    pthread_mutex_lock(&ag->lock);
    ag->stopping = true;
    pthread_cond_signal(&ag->wake);
    pthread_mutex_unlock(&ag->lock);
    pthread_join(ag->reconnector, NULL);
}
