/*
 * bench_clients.c — sungka-bench's clients of the board service and of the
 * echo, the sinks of their streams and replies, and the moves its scripted
 * players choose (bench_clients.h).
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clients.h"
#include "bench_echo.pb-c.h"
#include "bench_util.h"
#include "games.h"
#include "grpc/health/v1/health.pb-c.h"
#include "rpc.h"
#include "sungka/v1/sungka.pb-c.h"

/* ---------------------------------------------------------------- methods */

static bench_methods found;   /* find_methods' */

const bench_methods *methods(void)
{
    return &found;
}

/* By name, so a reordered .proto cannot route a call to the wrong method. */
void find_methods(void)
{
    found.create = rpc_method_named(&sungka__v1__register__descriptor, "CreateGame", false);
    found.join = rpc_method_named(&sungka__v1__register__descriptor, "JoinGame", false);
    found.subscribe = rpc_method_named(&sungka__v1__board__descriptor, "Subscribe", true);
    found.subscribe_many =
        rpc_method_named(&sungka__v1__board__descriptor, "SubscribeMany", true);
    found.move = rpc_method_named(&sungka__v1__board__descriptor, "Move", false);
    found.play = rpc_method_named(&sungka__v1__board__descriptor, "Play", true);
    found.ready = rpc_method_named(&sungka__v1__board__descriptor, "Ready", false);
    found.health = rpc_method_named(&grpc__health__v1__health__descriptor, "Check", false);
    found.say = rpc_method_named(&sungkabench__echo__descriptor, "Say", false);
    found.watch = rpc_method_named(&sungkabench__echo__descriptor, "Watch", true);
    found.push = rpc_method_named(&sungkabench__echo__descriptor, "Push", false);
}

/* ----------------------------------------------------------------- clients */

/* n clients; targets may list several servers ("a,b,c"): client i goes to
 * the (i mod count)th, so games made through them spread over a cluster. */
void pool_open(pool *p, const char *servers, int n)
{
    int n_servers = 1;
    for (const char *c = servers; *c; c++)
        n_servers += *c == ',';
    p->n = n < n_servers ? n_servers : n;
    p->c = calloc((size_t)p->n, sizeof *p->c);
    for (int i = 0; i < p->n; i++) {
        const char *t = servers;
        for (int k = 0; k < i % n_servers; k++)
            t = strchr(t, ',') + 1;
        char target[64];
        snprintf(target, sizeof target, "%.*s", (int)strcspn(t, ","), t);
        if (rpc_client_create(target, NULL, &p->c[i]) != 0)
            fatal("cannot create client %d", i);
    }
}

void pool_close(pool *p)
{
    for (int i = 0; i < p->n; i++)
        rpc_client_destroy(p->c[i]);
    free(p->c);
    p->c = NULL;
    p->n = 0;
}

ProtobufCMessage *call_sync(rpc_client *cli, const rpc_method *m,
                            const ProtobufCMessage *req, const char *token,
                            const char *what)
{
    ProtobufCMessage *reply;
    rpc_status st;
    if (rpc_client_call_sync(cli, m, req, token, WAIT_MS, &reply, &st) != 0)
        fatal("%s: %s %s", what, rpc_code_name(st.code), st.message);
    return reply;
}

void create_game(rpc_client *cli, char id[32])
{
    Sungka__V1__CreateGameRequest req = SUNGKA__V1__CREATE_GAME_REQUEST__INIT;
    req.kind = "sungka";
    ProtobufCMessage *reply = call_sync(cli, &methods()->create, &req.base, NULL, "CreateGame");
    snprintf(id, 32, "%s", ((Sungka__V1__CreateGameResponse *)reply)->game->game_id);
    protobuf_c_message_free_unpacked(reply, NULL);
}

void join_game(rpc_client *cli, const char *id, const char *name, bool observe,
               char token[64])
{
    Sungka__V1__JoinGameRequest req = SUNGKA__V1__JOIN_GAME_REQUEST__INIT;
    req.game_id = (char *)id;
    req.name = (char *)name;
    req.observe = observe;
    ProtobufCMessage *reply = call_sync(cli, &methods()->join, &req.base, NULL, "JoinGame");
    snprintf(token, 64, "%s", ((Sungka__V1__BoardRef *)reply)->token);
    protobuf_c_message_free_unpacked(reply, NULL);
}

void set_ready(rpc_client *cli, const char *token)
{
    Sungka__V1__ReadyRequest req = SUNGKA__V1__READY_REQUEST__INIT;
    req.ready = 1;
    protobuf_c_message_free_unpacked(
        call_sync(cli, &methods()->ready, &req.base, token, "Ready"), NULL);
}

/* ------------------------------------------------- stream and reply sinks */

static sink_state sink = {.mu = PTHREAD_MUTEX_INITIALIZER};

sink_state *sinks(void)
{
    return &sink;
}

static void arrived(void)
{
    if (atomic_fetch_add(&sink.recv, 1) + 1 == atomic_load(&sink.expect)) {
        atomic_store(&sink.t_last, now_ns());
        wake_main();
    }
}

void board_msg(ProtobufCMessage *msg, void *user)
{
    const sub *s = user;
    const Sungka__V1__Event *ev = (const Sungka__V1__Event *)msg;
    if (ev->body_case == SUNGKA__V1__EVENT__BODY_SNAPSHOT) {
        atomic_fetch_add(&sink.hello, 1);
        wake_main();
    } else if (ev->body_case == SUNGKA__V1__EVENT__BODY_COMMAND_REFUSED) {
        fprintf(stderr, "sungka-bench: a Play command was refused: %s\n",
                ev->command_refused->message);
        atomic_fetch_add(&sink.errors, 1);
        wake_main();
    } else if (ev->body_case == SUNGKA__V1__EVENT__BODY_MOVE_MADE) {
        if (s->kind == SUB_OBSERVER) {
            arrived();
        } else if (ev->move_made->seat == s->seat) {
            atomic_store(&sink.t_own, now_ns());
            if (!atomic_load(&sink.event_bytes))
                atomic_store(&sink.event_bytes, protobuf_c_message_get_packed_size(msg));
            atomic_store(&sink.own, 1);
            wake_main();
        }
    }
    protobuf_c_message_free_unpacked(msg, NULL);
}

/* A SubscribeMany stream's envelope: one event for the observers it names. */
void multi_msg(ProtobufCMessage *msg, void *user)
{
    (void)user;
    const Sungka__V1__MultiEvent *m = (const Sungka__V1__MultiEvent *)msg;
    const Sungka__V1__Event *ev = m->event;
    if (m->ended) {
        atomic_fetch_add(&sink.errors, 1);
        fprintf(stderr, "sungka-bench: subscription %u ended: %s\n", m->ended->subscription,
                m->ended->message);
    } else if (ev && ev->body_case == SUNGKA__V1__EVENT__BODY_SNAPSHOT) {
        atomic_fetch_add(&sink.hello, (int)m->n_subscriptions);
        wake_main();
    } else if (ev && ev->body_case == SUNGKA__V1__EVENT__BODY_MOVE_MADE) {
        for (size_t i = 0; i < m->n_subscriptions; i++)
            arrived();
    }
    protobuf_c_message_free_unpacked(msg, NULL);
}

void echo_msg(ProtobufCMessage *msg, void *user)
{
    (void)user;
    const Sungkabench__Msg *m = (const Sungkabench__Msg *)msg;
    if (m->seq == 0) {
        atomic_fetch_add(&sink.hello, 1);
        wake_main();
    } else if (m->seq == atomic_load(&sink.seq)) {
        arrived();
    }
    protobuf_c_message_free_unpacked(msg, NULL);
}

void stream_end(const rpc_status *status, void *user)
{
    sub *s = user;
    if (s) {
        pthread_mutex_lock(&sink.mu);
        s->ended = true;
        pthread_mutex_unlock(&sink.mu);
    }
    if (status->code != RPC_OK && status->code != RPC_CANCELLED &&
        status->code != RPC_UNAVAILABLE)
        fprintf(stderr, "sungka-bench: stream ended: %s %s\n", rpc_code_name(status->code),
                status->message);
}

void reply_cb(const rpc_status *st, ProtobufCMessage *reply, void *user)
{
    (void)user;
    if (st->code != RPC_OK) {
        atomic_fetch_add(&sink.errors, 1);
        fprintf(stderr, "sungka-bench: call failed: %s %s\n", rpc_code_name(st->code),
                st->message);
    } else {
        protobuf_c_message_free_unpacked(reply, NULL);
    }
    atomic_store(&sink.t_reply, now_ns());
    atomic_fetch_add(&sink.replies, 1);
    wake_main();
}

void reset_counters(void)
{
    atomic_store(&sink.hello, 0);
    atomic_store(&sink.recv, 0);
    atomic_store(&sink.expect, INT_MAX);
    atomic_store(&sink.own, 0);
    atomic_store(&sink.replies, 0);
    atomic_store(&sink.errors, 0);
}

void check_errors(const char *what)
{
    if (atomic_load(&sink.errors))
        fatal("%s: %d calls failed", what, atomic_load(&sink.errors));
}

/* ------------------------------------------------------------ move choice */

int pick_move(const game_state *g, int salt)
{
    int legal[GAME_MAX_MOVES];
    int n = game_legal_moves(g, legal, GAME_MAX_MOVES);
    return legal[(unsigned)salt % (unsigned)n];
}

/* For fan-out rounds the same games must last: prefer the move that leaves
 * the most stones in the cups (and does not end the game). */
int pick_lasting(const game_state *g, int salt)
{
    int legal[GAME_MAX_MOVES];
    int n = game_legal_moves(g, legal, GAME_MAX_MOVES);
    int best = legal[0], best_v = INT_MIN;
    int seat = game_to_move(g);
    static game_state t;   /* main thread only; 8 KiB */
    for (int i = 0; i < n; i++) {
        t = *g;
        game_play(&t, seat, legal[i], NULL, NULL, 0);
        int v = -1;
        if (!game_is_over(&t)) {
            v = 0;
            for (int c = 0; c < game_cell_count(&t); c++)
                v += game_cell(&t, c);
            for (int s = 0; s < game_seats(&t); s++)
                v -= game_cell(&t, game_mancala_home(&t, s));
            v = v * 8 + (int)((unsigned)(salt + i * 5) % 8u);
        }
        if (v > best_v) {
            best_v = v;
            best = legal[i];
        }
    }
    return best;
}

void new_local_game(game_state *g)
{
    char err[GAME_ERR_LEN];
    if (game_new(g, game_kind_find("sungka"), NULL, err, sizeof err) != 0)
        fatal("game_new: %s", err);
}
