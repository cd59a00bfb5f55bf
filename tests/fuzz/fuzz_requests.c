/*
 * fuzz_requests.c — arbitrary request bytes against a real board service.
 *
 * Set up once (LLVMFuzzerInitialize): rpc_init, a board service on
 * 127.0.0.1:0 with an in-memory store (":memory:", never the user's data
 * directory) and its log on /dev/null, its event loop on a thread of its own,
 * and one rpc client. The service lives across inputs; it is restarted when
 * it is full of games (max_games) and every RESTART_EVERY inputs, so that
 * state left by earlier inputs stays small.
 *
 * An input (any byte string is one; reads past the end give zeros):
 *   setup   1 byte: bits 0-2 the kind of a fresh "seed" game made for this
 *           input (modulo the number of kinds), bit 3 autostart (so it is
 *           running once both players are in), bit 4 also join an observer.
 *           Two players (and maybe the observer) join it: their tokens are
 *           what lets Board calls past authentication.
 *   then up to MAX_CALLS calls, each:
 *     method  1 byte: the method, modulo their number (Register's then
 *             Board's, in .proto order)
 *     header  bits 4-5 the token sent: none / player A / player B / the
 *             observer (or, without one, a well-formed unknown token),
 *             bit 6 corrupt the token's last digit (still well-formed),
 *             bit 7 put the seed game's id first in the request, as field 1
 *             (game_id of JoinGame and GetMatch; a later field 1 wins)
 *     length  1 byte, or 255 and 2 more bytes (little-endian)
 *     payload that many bytes (fewer if the input ends), sent as they are
 *             with rpc__client_call_raw;
 *     more    for a client-streaming method only: a length and payload as
 *             above, the stream's second message.
 *
 * Checked for every call:
 *   - the bytes are decoded here with protobuf_c_message_unpack as the
 *     method's request type (no crash, no leak; the message passes
 *     protobuf_c_message_check) and freed again;
 *   - the service decodes them the same way: bytes protobuf-c refuses are
 *     answered INVALID_ARGUMENT "malformed request ...", and bytes it
 *     accepts reach the handler (never that answer);
 *   - the call completes (the client's deadline is 5 s: a handler that never
 *     answers is a hang) with a status a handler may give: never UNKNOWN,
 *     INTERNAL, UNIMPLEMENTED, UNAVAILABLE, DATA_LOSS or DEADLINE_EXCEEDED;
 *     OK replies decode and pass protobuf_c_message_check;
 *   - Board calls without a token, or with an unknown one, are
 *     UNAUTHENTICATED;
 *   - after the input's last call the service still answers
 *     grpc.health.v1.Health/Check with SERVING.
 * Which methods stream is the service's own method tables' word
 * (rpc_method_entry: server_streaming, client_streaming), not their names.
 * A decodable request to a streaming method is sent as a real stream (the
 * request re-encoded by protobuf-c): a server stream is cancelled after its
 * first message or 30 ms; a client stream (Board.Play) is opened with the
 * request as its first message, and once it answers, the call's second
 * payload (when protobuf-c decodes it) is sent as its next message (a
 * command), then it is cancelled after the next message or 30 ms. Its end
 * must come, with a stream's status; every message it sends is of the
 * method's output type. A Board stream without a known token sends
 * nothing and ends UNAUTHENTICATED (or INVALID_ARGUMENT: a client stream's
 * first message refused before its token is looked at). SubscribeMany's
 * tokens are in its request, so the call's token does not matter: it ends
 * OK (every subscription ended), CANCELLED, or INVALID_ARGUMENT for no
 * subscriptions or too many. Undecodable bytes go raw like the rest.
 *
 * Not reproducible byte for byte across a long run: games made by earlier
 * inputs are still there (ListGames shows them, and ids count up). Replaying
 * a crash file on its own starts from a fresh service.
 */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "board.h"
#include "board_rpc.h"
#include "fuzz.h"
#include "games.h"
#include "grpc/health/v1/health.pb-c.h"
#include "rpc.h"
#include "rpc_internal.h"
#include "sungka/v1/sungka.pb-c.h"

#define MAX_CALLS 16
#define CALL_TIMEOUT_MS 5000
#define WAIT_LIMIT_MS 30000      /* a callback that has not come by now never will */
#define RESTART_EVERY 2000       /* inputs */
#define MAX_GAMES 200
#define N_METHODS_MAX 32

typedef struct method_entry {
    rpc_method m;
    const char *name;             /* "Register.JoinGame" style, for messages */
    bool board;                   /* needs a seat token */
    bool client_streaming;        /* the client sends a stream (the service's table says) */
} method_entry;

static method_entry methods[N_METHODS_MAX];
static int n_methods;

/* Outcomes per method and status code, printed by fuzz_teardown (the replay
 * driver), so a run that never gets past decoding or authentication shows. */
static long outcomes[N_METHODS_MAX][17];

static FILE *quiet_log;
static board_service *svc;
static pthread_t loop_thread;
static rpc_client *cli;
static long inputs_since_start;
static bool strict;               /* FUZZ_STRICT=1: no known bug is let through */

static rpc_method health_check, reg_create, reg_join;     /* build_methods */

/* The seed game of the current input. */
static struct {
    char game_id[32];
    char token[3][64];            /* player A, player B, observer ("" when none) */
} seed;

/* ------------------------------------------------------------ waiting */

static void deadline_after(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000;
    if (ts->tv_nsec >= 1000000000) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000;
    }
}

/* One unary call's completion, filled in on the client thread. */
typedef struct reply_box {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    rpc_status status;
    ProtobufCMessage *reply;
} reply_box;

static void reply_box_cb(const rpc_status *status, ProtobufCMessage *reply, void *user)
{
    reply_box *b = user;
    pthread_mutex_lock(&b->mu);
    b->status = *status;
    b->reply = reply;
    b->done = true;
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

/* A Subscribe stream, filled in on the client thread. */
typedef struct stream_box {
    const ProtobufCMessageDescriptor *out;    /* what the method sends */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int events;
    int bad_events;               /* failed protobuf_c_message_check */
    bool ended;
    rpc_status status;
} stream_box;

static void stream_msg_cb(ProtobufCMessage *msg, void *user)
{
    stream_box *b = user;
    bool ok = msg->descriptor == b->out && protobuf_c_message_check(msg);
    protobuf_c_message_free_unpacked(msg, NULL);
    pthread_mutex_lock(&b->mu);
    b->events++;
    b->bad_events += !ok;
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static void stream_end_cb(const rpc_status *status, void *user)
{
    stream_box *b = user;
    pthread_mutex_lock(&b->mu);
    b->status = *status;
    b->ended = true;
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

/* ------------------------------------------------------------ the service */

static void *loop_main(void *arg)
{
    board_run(arg);
    return NULL;
}

static void service_start(void)
{
    board_config cfg = {0};
    cfg.listen = "127.0.0.1:0";
    cfg.db = ":memory:";
    cfg.log = quiet_log;
    cfg.max_games = MAX_GAMES;
    /* One fuzzing client joins far faster than people: the limits per
     * address are tested end to end (tests/e2e/test_abuse.py). */
    cfg.client_join_rate = 1000000;
    cfg.max_client_observers = 1000000;
    cfg.max_client_streams = 1000000;
    char err[256] = "";
    int port = 0;
    FUZZ_CHECK(board_create(&cfg, &svc, &port, err, sizeof err) == 0, "board_create: %s", err);
    FUZZ_CHECK(pthread_create(&loop_thread, NULL, loop_main, svc) == 0, "pthread_create");
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%d", port);
    FUZZ_CHECK(rpc_client_create(target, NULL, &cli) == 0, "rpc_client_create %s", target);
    inputs_since_start = 0;
}

static void service_stop(void)
{
    rpc_client_destroy(cli);
    cli = NULL;
    board_request_stop(svc);
    pthread_join(loop_thread, NULL);
    board_destroy(svc);
    svc = NULL;
}

/* The service's entry for method `name` of a service it serves by table. */
static const rpc_method_entry *entry_of(const rpc_method_entry *table, size_t n,
                                        const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    FUZZ_CHECK(false, "the service has no entry for method %s", name);
    return NULL;
}

static void build_methods(void)
{
    if (n_methods > 0)
        return;
    health_check = rpc_method_named(&grpc__health__v1__health__descriptor, "Check", false);
    reg_create = rpc_method_named(&sungka__v1__register__descriptor, "CreateGame", false);
    reg_join = rpc_method_named(&sungka__v1__register__descriptor, "JoinGame", false);
    static char names[N_METHODS_MAX][64];
    const struct {
        const ProtobufCServiceDescriptor *d;
        const rpc_method_entry *table;
        size_t n;
    } services[] = {
        {&sungka__v1__register__descriptor, board_games_methods, board_games_n_methods},
        {&sungka__v1__board__descriptor, board_play_methods, board_play_n_methods},
    };
    for (int s = 0; s < 2; s++) {
        const ProtobufCServiceDescriptor *d = services[s].d;
        for (unsigned i = 0; i < d->n_methods && n_methods < N_METHODS_MAX; i++) {
            method_entry *e = &methods[n_methods];
            const rpc_method_entry *entry =
                entry_of(services[s].table, services[s].n, d->methods[i].name);
            e->m.service = d;
            e->m.index = i;
            e->m.server_streaming = entry->server_streaming;
            e->client_streaming = entry->client_streaming;
            e->board = s == 1;
            snprintf(names[n_methods], sizeof names[n_methods], "%s.%s", d->short_name,
                     d->methods[i].name);
            e->name = names[n_methods];
            n_methods++;
        }
    }
    /* A call's first byte picks the method: up to 256 (see LLVMFuzzerTestOneInput). */
    FUZZ_CHECK(n_methods <= 256, "the proto has %d methods; a call's byte picks at most 256",
               n_methods);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *env = getenv("FUZZ_STRICT");
    strict = env && env[0] == '1';
    quiet_log = fopen("/dev/null", "w");
    FUZZ_CHECK(quiet_log, "cannot open /dev/null");
    build_methods();
    rpc_init();
    service_start();
    return 0;
}

void fuzz_teardown(void)
{
    for (int m = 0; m < n_methods; m++) {
        printf("%-24s", methods[m].name);
        for (int c = 0; c <= 16; c++)
            if (outcomes[m][c])
                printf(" %s %ld", rpc_code_name((rpc_code)c), outcomes[m][c]);
        printf("\n");
    }
    if (svc)
        service_stop();
    rpc_shutdown();
    fclose(quiet_log);
}

/* A blocking call made by the harness itself (seeding, health). */
static rpc_code sync_call(const rpc_method *m, const ProtobufCMessage *req, const char *token,
                          ProtobufCMessage **reply, rpc_status *st)
{
    *reply = NULL;
    rpc_client_call_sync(cli, m, req, token, WAIT_LIMIT_MS, reply, st);
    return st->code;
}


static rpc_code join(const char *name, bool observe, char *token, size_t len)
{
    Sungka__V1__JoinGameRequest req = SUNGKA__V1__JOIN_GAME_REQUEST__INIT;
    req.game_id = seed.game_id;
    req.name = (char *)name;
    req.observe = observe;
    ProtobufCMessage *reply;
    rpc_status st;
    if (sync_call(&reg_join, &req.base, NULL, &reply, &st) != RPC_OK)
        return st.code;
    const Sungka__V1__BoardRef *ref = (const void *)reply;
    FUZZ_CHECK(strlen(ref->token) == 32 && strspn(ref->token, "0123456789abcdef") == 32,
               "seat token '%s'", ref->token);
    FUZZ_CHECK(observe ? ref->seat == NULL : ref->seat && ref->seat->value >= 0,
               "joined at seat %d", ref->seat ? ref->seat->value : -1);
    snprintf(token, len, "%s", ref->token);
    protobuf_c_message_free_unpacked(reply, NULL);
    return RPC_OK;
}

/* A fresh game for this input, with two players (and maybe an observer). */
static void make_seed(uint8_t setup)
{
    const game_kind *kind = game_kind_at((setup & 7) % game_kind_count());
    for (int attempt = 0;; attempt++) {
        Sungka__V1__CreateGameRequest req = SUNGKA__V1__CREATE_GAME_REQUEST__INIT;
        req.kind = (char *)kind->name;
        req.autostart = (setup & 8) != 0;
        ProtobufCMessage *reply;
        rpc_status st;
        rpc_code code = sync_call(&reg_create, &req.base, NULL, &reply, &st);
        if (code == RPC_RESOURCE_EXHAUSTED && attempt == 0) {
            /* Full of games the fuzzer made: start over. */
            service_stop();
            service_start();
            continue;
        }
        FUZZ_CHECK(code == RPC_OK, "creating the seed game (%s): %s %s", kind->name,
                   rpc_code_name(code), st.message);
        const Sungka__V1__CreateGameResponse *r = (const void *)reply;
        FUZZ_CHECK(r->game && r->game->game_id[0], "CreateGame reply without a game");
        snprintf(seed.game_id, sizeof seed.game_id, "%s", r->game->game_id);
        protobuf_c_message_free_unpacked(reply, NULL);
        break;
    }
    static const char *const names[3] = {"fuzz-a", "fuzz-b", "fuzz-o"};
    for (int i = 0; i < 3; i++) {
        seed.token[i][0] = '\0';
        if (i == 2 && !(setup & 16))
            break;
        rpc_code code = join(names[i], i == 2, seed.token[i], sizeof seed.token[i]);
        FUZZ_CHECK(code == RPC_OK, "joining %s to the seed game %s: %s", names[i], seed.game_id,
                   rpc_code_name(code));
    }
}

static void check_health(const char *after)
{
    Grpc__Health__V1__HealthCheckRequest req = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
    ProtobufCMessage *reply;
    rpc_status st;
    rpc_code code = sync_call(&health_check, &req.base, NULL, &reply, &st);
    FUZZ_CHECK(code == RPC_OK, "health check after %s: %s %s", after, rpc_code_name(code),
               st.message);
    const Grpc__Health__V1__HealthCheckResponse *r = (const void *)reply;
    FUZZ_CHECK(r->status == GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING,
               "health status %d after %s", (int)r->status, after);
    protobuf_c_message_free_unpacked(reply, NULL);
}

/* ------------------------------------------------------------ one call */

static bool unary_code_allowed(rpc_code c)
{
    switch (c) {
    case RPC_OK:
    case RPC_INVALID_ARGUMENT:
    case RPC_NOT_FOUND:
    case RPC_ALREADY_EXISTS:
    case RPC_PERMISSION_DENIED:
    case RPC_RESOURCE_EXHAUSTED:
    case RPC_FAILED_PRECONDITION:
    case RPC_OUT_OF_RANGE:
    case RPC_UNAUTHENTICATED:
        return true;
    default:
        return false;
    }
}

/*
 * Known bugs, found by this fuzzer and reported; each has its input in
 * crashes/requests/ (run by ctest with FUZZ_STRICT=1, expected to fail until
 * the bug is fixed). Without FUZZ_STRICT they are let through, so that
 * fuzzing goes on to find other things. Remove an entry when its bug is
 * fixed.
 */
/* Bugs found here and not yet fixed are let through by name (so fuzzing
 * goes on), unless FUZZ_STRICT=1; crashes/README.md lists them. None now:
 * the history calls' INTERNAL for a bad id or name was fixed, and its inputs
 * are replayed from crashes/requests/fixed/. */
static bool known_bug(const method_entry *e, const rpc_status *st)
{
    (void)e;
    (void)st;
    return false;
}

static bool is_malformed(const rpc_status *st)
{
    return st->code == RPC_INVALID_ARGUMENT && strncmp(st->message, "malformed request", 17) == 0;
}

/* A streaming method's call, as a real stream (the file's comment). */
static void drive_stream(const method_entry *e, const ProtobufCMessage *req,
                         const ProtobufCMessage *next, const char *token, bool token_known)
{
    stream_box b = {.out = e->m.service->methods[e->m.index].output,
                    .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    rpc_stream *stream = NULL;
    int started = e->client_streaming
                      ? rpc_client_bidi(cli, &e->m, req, token, stream_msg_cb, stream_end_cb,
                                        &b, &stream)
                      : rpc_client_stream(cli, &e->m, req, token, stream_msg_cb,
                                          stream_end_cb, &b, &stream);
    FUZZ_CHECK(started == 0, "cannot start %s", e->name);
    struct timespec first, limit;
    /* An unknown token is refused at once: wait for that without cancelling
     * (a cancel could beat a slow refusal). */
    deadline_after(&first, token_known || !e->board ? 30 : WAIT_LIMIT_MS);
    deadline_after(&limit, WAIT_LIMIT_MS);
    pthread_mutex_lock(&b.mu);
    while (!b.ended && b.events == 0 && pthread_cond_timedwait(&b.cv, &b.mu, &first) == 0) {
    }
    if (next && !b.ended && b.events > 0) {
        /* Open: its next message (under our lock, as the cancel below:
         * end_cb has not returned). */
        int seen = b.events;
        rpc_stream_send(stream, next);
        deadline_after(&first, 30);
        while (!b.ended && b.events == seen &&
               pthread_cond_timedwait(&b.cv, &b.mu, &first) == 0) {
        }
    }
    /* Cancel under our lock: end_cb cannot have returned yet, so the stream
     * still exists (rpc.h's rule for cancelling from another thread). */
    if (!b.ended)
        rpc_stream_cancel(stream);
    while (!b.ended && pthread_cond_timedwait(&b.cv, &b.mu, &limit) == 0) {
    }
    bool ended = b.ended;
    pthread_mutex_unlock(&b.mu);
    FUZZ_CHECK(ended, "%s: the stream never ended after a cancel", e->name);
    FUZZ_CHECK(b.bad_events == 0, "%s: %d events failed protobuf_c_message_check", e->name,
               b.bad_events);
    if (req->descriptor == &sungka__v1__subscribe_many_request__descriptor) {
        size_t n = ((const Sungka__V1__SubscribeManyRequest *)req)->n_subscriptions;
        bool refused = b.status.code == RPC_INVALID_ARGUMENT;
        char where[128];
        /* refused whole: a count out of range, or text that is not UTF-8 */
        bool malformed = n == 0 || n > 1000 ||
                         rpc_message_check_utf8(req, where, sizeof where) != 0;
        FUZZ_CHECK(b.status.code == RPC_OK || b.status.code == RPC_CANCELLED ||
                   (refused && malformed),
                   "%s with %zu subscriptions ended %s %s", e->name, n,
                   rpc_code_name(b.status.code), b.status.message);
        outcomes[e - methods][b.status.code]++;
        return;
    }
    outcomes[e - methods][b.status.code]++;
    if (!e->board) {              /* no token: a stream of the lobby's (QuickPair) */
        FUZZ_CHECK(unary_code_allowed(b.status.code) || b.status.code == RPC_CANCELLED,
                   "%s ended %s %s", e->name, rpc_code_name(b.status.code), b.status.message);
        return;
    }
    switch (b.status.code) {
    case RPC_OK:
    case RPC_CANCELLED:
    case RPC_OUT_OF_RANGE:
    case RPC_ABORTED:
    case RPC_UNAVAILABLE:         /* the game is closing */
        FUZZ_CHECK(token_known, "%s with an unknown token ended %s %s", e->name,
                   rpc_code_name(b.status.code), b.status.message);
        break;
    case RPC_UNAUTHENTICATED:
        FUZZ_CHECK(!token_known || b.events == 0, "%s: unauthenticated after events", e->name);
        break;
    case RPC_INVALID_ARGUMENT:    /* a client stream's first message refused */
        FUZZ_CHECK(e->client_streaming && b.events == 0, "%s ended %s %s", e->name,
                   rpc_code_name(b.status.code), b.status.message);
        break;
    default:
        FUZZ_CHECK(false, "%s ended %s %s", e->name, rpc_code_name(b.status.code),
                   b.status.message);
    }
    if (!token_known)
        FUZZ_CHECK(b.events == 0 && (b.status.code == RPC_UNAUTHENTICATED ||
                                     (e->client_streaming &&
                                      b.status.code == RPC_INVALID_ARGUMENT)),
                   "%s with an unknown token: %d events, %s", e->name, b.events,
                   rpc_code_name(b.status.code));
}

static void one_call(const method_entry *e, const uint8_t *data, size_t len, const uint8_t *more,
                     size_t more_len, const char *token, bool token_known)
{
    const ProtobufCMessageDescriptor *in = e->m.service->methods[e->m.index].input;
    ProtobufCMessage *msg = protobuf_c_message_unpack(in, NULL, len, data);
    if (msg)
        FUZZ_CHECK(protobuf_c_message_check(msg), "%s: decoded request fails its check",
                   e->name);
    if (msg && (e->m.server_streaming || e->client_streaming)) {
        ProtobufCMessage *next =
            e->client_streaming ? protobuf_c_message_unpack(in, NULL, more_len, more) : NULL;
        drive_stream(e, msg, next, token, token_known);
        if (next)
            protobuf_c_message_free_unpacked(next, NULL);
        protobuf_c_message_free_unpacked(msg, NULL);
        return;
    }
    bool decodable = msg != NULL;
    /* Text that is not UTF-8 is refused by the rpc layer before any handler
     * (and so before the token is looked at): INVALID_ARGUMENT, NOT_UTF8. */
    char where[128];
    bool utf8 = !msg || rpc_message_check_utf8(msg, where, sizeof where) == 0;
    /* So is a decodable request with a NUL inside a string: BAD_REQUEST. */
    bool nul = msg && rpc_wire_check_nul(in, data, len, where, sizeof where) != 0;
    if (msg)
        protobuf_c_message_free_unpacked(msg, NULL);

    reply_box b = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    FUZZ_CHECK(rpc__client_call_raw(cli, &e->m, data, len, token, CALL_TIMEOUT_MS, reply_box_cb,
                                    &b) == 0,
               "cannot start %s", e->name);
    struct timespec limit;
    deadline_after(&limit, WAIT_LIMIT_MS);
    pthread_mutex_lock(&b.mu);
    while (!b.done && pthread_cond_timedwait(&b.cv, &b.mu, &limit) == 0) {
    }
    bool done = b.done;
    pthread_mutex_unlock(&b.mu);
    FUZZ_CHECK(done, "%s: the reply callback never ran", e->name);

    const rpc_status *st = &b.status;
    if ((unsigned)st->code <= 16)
        outcomes[e - methods][st->code]++;
    if (!decodable)
        FUZZ_CHECK(is_malformed(st), "%s: %zu bytes protobuf-c refuses were answered %s %s",
                   e->name, len, rpc_code_name(st->code), st->message);
    else
        FUZZ_CHECK(!is_malformed(st), "%s: %zu bytes protobuf-c decodes were refused: %s",
                   e->name, len, st->message);
    FUZZ_CHECK(unary_code_allowed(st->code) || known_bug(e, st), "%s: %s %s", e->name,
               rpc_code_name(st->code), st->message);
    if (decodable && e->board && !token_known)
        FUZZ_CHECK(st->code == (utf8 && !nul ? RPC_UNAUTHENTICATED : RPC_INVALID_ARGUMENT),
                   "%s without a known token: %s %s", e->name, rpc_code_name(st->code),
                   st->message);
    if (st->code == RPC_OK) {
        FUZZ_CHECK(b.reply && protobuf_c_message_check(b.reply), "%s: OK without a valid reply",
                   e->name);
        protobuf_c_message_free_unpacked(b.reply, NULL);
    } else {
        FUZZ_CHECK(!b.reply, "%s: a reply with status %s", e->name, rpc_code_name(st->code));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (++inputs_since_start > RESTART_EVERY) {
        service_stop();
        service_start();
    }
    fuzz_in in = {data, size};
    make_seed(fuzz_u8(&in));
    static uint8_t payload[3 + 32 + 65536];
    const char *last = "the seed game";
    for (int c = 0; c < MAX_CALLS && in.left > 0; c++) {
        const method_entry *e = &methods[fuzz_u8(&in) % n_methods];
        uint8_t h = fuzz_u8(&in);
        int tok = (h >> 4) & 3;
        char token[64] = "";
        bool known = false;
        if (tok == 1 || tok == 2 || (tok == 3 && seed.token[2][0])) {
            snprintf(token, sizeof token, "%s", seed.token[tok - 1]);
            known = true;
        } else if (tok == 3) {
            snprintf(token, sizeof token, "0123456789abcdef0123456789abcdef");
        }
        if (tok != 0 && (h & 0x40)) {
            size_t n = strlen(token);
            token[n - 1] = token[n - 1] == '0' ? '1' : '0';
            known = false;
        }
        size_t len = fuzz_u8(&in);
        if (len == 255)
            len = fuzz_u16(&in);
        if (len > in.left)
            len = in.left;
        size_t off = 0;
        if (h & 0x80) {
            size_t idlen = strlen(seed.game_id);
            payload[off++] = 0x0a;            /* field 1, length-delimited */
            payload[off++] = (uint8_t)idlen;
            memcpy(payload + off, seed.game_id, idlen);
            off += idlen;
        }
        memcpy(payload + off, in.p, len);
        in.p += len;
        in.left -= len;
        static uint8_t more[65536];
        size_t more_len = 0;
        if (e->client_streaming) {
            more_len = fuzz_u8(&in);
            if (more_len == 255)
                more_len = fuzz_u16(&in);
            if (more_len > in.left)
                more_len = in.left;
            memcpy(more, in.p, more_len);
            in.p += more_len;
            in.left -= more_len;
        }
        one_call(e, payload, off + len, more, more_len, tok ? token : NULL, known);
        last = e->name;
    }
    check_health(last);
    return 0;
}

/* ------------------------------------------------------------ generator */

/* Writes protobuf wire format into a bounded buffer; past the end it only
 * counts, and the caller drops the message. */
typedef struct wbuf {
    uint8_t *p;
    size_t len, cap;
} wbuf;

static void w_byte(wbuf *w, uint8_t b)
{
    if (w->len < w->cap)
        w->p[w->len] = b;
    w->len++;
}

static void w_varint(wbuf *w, uint64_t v)
{
    while (v >= 0x80) {
        w_byte(w, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    w_byte(w, (uint8_t)v);
}

static void w_bytes(wbuf *w, const void *data, size_t n)
{
    for (size_t i = 0; i < n; i++)
        w_byte(w, ((const uint8_t *)data)[i]);
}

/* Strings the service gives meaning to, and some it must refuse. */
static const char *const strings[] = {
    "", "sungka", "congklak", "kalah", "reversi", "tictactoe", "chess", "1", "2", "3", "0",
    "alice", "  bob  ", "fuzz-a", "fuzz-b", "cups", "players", "stones", "size", "dims",
    "first", "hello", "\xc3\xa9l\xc3\xa8ve", "a\tb", "ctl\x01", "\xff\xfe", "12345678901234567890123456789012",
    "123456789012345678901234567890123", "0123456789abcdef0123456789abcdef",
    "a very long title that goes on and on past the eighty bytes a title may have, yes",
};
#define N_STRINGS (sizeof strings / sizeof strings[0])

static uint64_t gen_int(fuzz_rng *rng)
{
    static const int64_t special[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 100, 1000, -1, -2,
                                      INT32_MAX, INT32_MIN, INT64_MAX};
    switch (fuzz_rng_below(rng, 4)) {
    case 0:
        return fuzz_rng_next(rng);
    case 1:
        return (uint64_t)(int64_t)(int32_t)fuzz_rng_next(rng);
    default:
        return (uint64_t)special[fuzz_rng_below(rng, sizeof special / sizeof special[0])];
    }
}

static void gen_message(fuzz_rng *rng, const ProtobufCMessageDescriptor *d, wbuf *w, int depth);

/* A string for field `f`: mostly one the service knows what to do with. */
static const char *gen_string(fuzz_rng *rng, const ProtobufCFieldDescriptor *f)
{
    static const char *const kinds[] = {"sungka", "congklak", "kalah", "reversi", "tictactoe"};
    static const char *const options[] = {"players", "cups", "stones", "first", "size", "dims"};
    static const char *const names[] = {"fuzz-a", "fuzz-b", "fuzz-o", "carol", "dave"};
    if (fuzz_rng_below(rng, 4) != 0) {
        if (strcmp(f->name, "token") == 0)
            return "";            /* mostly the call's own token, in its metadata */
        if (strcmp(f->name, "kind") == 0 || strcmp(f->name, "any_of_kind") == 0)
            return kinds[fuzz_rng_below(rng, 5)];
        if (strcmp(f->name, "name") == 0 && f->id == 1 && fuzz_rng_below(rng, 2))
            return options[fuzz_rng_below(rng, 6)];
        if (strcmp(f->name, "name") == 0 || strcmp(f->name, "player") == 0 ||
            strcmp(f->name, "to") == 0)
            return names[fuzz_rng_below(rng, 5)];
    }
    return strings[fuzz_rng_below(rng, N_STRINGS)];
}

static void gen_field(fuzz_rng *rng, const ProtobufCFieldDescriptor *f, wbuf *w, int depth)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_ENUM:
        w_varint(w, (uint64_t)f->id << 3);
        if ((strcmp(f->name, "bots") == 0 || strcmp(f->name, "bot_level") == 0) &&
            fuzz_rng_below(rng, 4) != 0)
            w_varint(w, 0);     /* mostly no bots (see CMakeLists.txt), level 0 (5) */
        else if (f->type == PROTOBUF_C_TYPE_ENUM || fuzz_rng_below(rng, 2))
            w_varint(w, fuzz_rng_below(rng, f->type == PROTOBUF_C_TYPE_ENUM ? 6 : 12));
        else
            w_varint(w, gen_int(rng));
        break;
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SINT64: {
        int64_t v = (int64_t)gen_int(rng);
        w_varint(w, (uint64_t)f->id << 3);
        w_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
        break;
    }
    case PROTOBUF_C_TYPE_BOOL:
        w_varint(w, (uint64_t)f->id << 3);
        w_varint(w, fuzz_rng_below(rng, 8) == 0 ? 2 : fuzz_rng_below(rng, 2));
        break;
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FLOAT: {
        uint32_t v = (uint32_t)gen_int(rng);
        w_varint(w, (uint64_t)f->id << 3 | 5);
        w_bytes(w, &v, 4);
        break;
    }
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_DOUBLE: {
        uint64_t v = gen_int(rng);
        w_varint(w, (uint64_t)f->id << 3 | 1);
        w_bytes(w, &v, 8);
        break;
    }
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES: {
        w_varint(w, (uint64_t)f->id << 3 | 2);
        if (fuzz_rng_below(rng, 8) == 0) {
            size_t n = fuzz_rng_below(rng, 200);
            w_varint(w, n);
            for (size_t i = 0; i < n; i++)
                w_byte(w, (uint8_t)(' ' + fuzz_rng_below(rng, 95)));
        } else {
            const char *s = gen_string(rng, f);
            w_varint(w, strlen(s));
            w_bytes(w, s, strlen(s));
        }
        break;
    }
    case PROTOBUF_C_TYPE_MESSAGE: {
        if (depth >= 3)
            break;
        uint8_t sub[512];
        wbuf sw = {sub, 0, sizeof sub};
        gen_message(rng, f->descriptor, &sw, depth + 1);
        if (sw.len > sw.cap)
            break;
        w_varint(w, (uint64_t)f->id << 3 | 2);
        w_varint(w, sw.len);
        w_bytes(w, sub, sw.len);
        break;
    }
    }
}

/* The member of f's oneof written this time (members share their case's
 * offset): one at random in four of five messages, else none. So a oneof's
 * every member comes first as often (the last of several would win). */
static bool oneof_pick(fuzz_rng *rng, const ProtobufCMessageDescriptor *d,
                       const ProtobufCFieldDescriptor *f, bool opening, unsigned *chosen,
                       unsigned *offset)
{
    if (*offset != f->quantifier_offset) {
        unsigned n = 0;
        for (unsigned i = 0; i < d->n_fields; i++)
            n += (d->fields[i].flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
                 d->fields[i].quantifier_offset == f->quantifier_offset;
        *offset = f->quantifier_offset;
        *chosen = fuzz_rng_below(rng, 5) < 4 ? (unsigned)fuzz_rng_below(rng, n) : n;
        if (opening && fuzz_rng_below(rng, 2))
            *chosen = 0;
        return *chosen == 0;
    }
    return (*chosen)-- == 1;
}

/* opening: the first message of a client stream, whose oneof's first
 * member is mostly chosen, since a stream's opening message comes first
 * in its .proto (PlayRequest's start): a stream refused at its first
 * message reaches little. */
static void gen_message_as(fuzz_rng *rng, const ProtobufCMessageDescriptor *d, wbuf *w,
                           int depth, bool opening)
{
    unsigned chosen = 0, offset = (unsigned)-1;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            if (oneof_pick(rng, d, f, opening, &chosen, &offset))
                gen_field(rng, f, w, depth);
            continue;
        }
        int times = f->label == PROTOBUF_C_LABEL_REPEATED ? (int)fuzz_rng_below(rng, 4)
                                                          : fuzz_rng_below(rng, 5) < 4;
        for (int k = 0; k < times; k++)
            gen_field(rng, f, w, depth);
    }
    if (fuzz_rng_below(rng, 16) == 0) {    /* a field the proto does not have */
        w_varint(w, (uint64_t)99 << 3);
        w_varint(w, gen_int(rng));
    }
}

/* A payload with its length (1 byte, or 255 and 2 more). */
static void w_payload(wbuf *w, const uint8_t *msg, size_t len)
{
    if (len < 255) {
        w_byte(w, (uint8_t)len);
    } else {
        w_byte(w, 255);
        w_byte(w, (uint8_t)len);
        w_byte(w, (uint8_t)(len >> 8));
    }
    w_bytes(w, msg, len);
}

static void gen_message(fuzz_rng *rng, const ProtobufCMessageDescriptor *d, wbuf *w, int depth)
{
    gen_message_as(rng, d, w, depth, false);
}

size_t fuzz_generate(fuzz_rng *rng, uint8_t *buf, size_t cap)
{
    build_methods();    /* fuzz_replay -w runs without LLVMFuzzerInitialize */
    wbuf w = {buf, 0, cap};
    w_byte(&w, (uint8_t)fuzz_rng_next(rng));
    int calls = 1 + (int)fuzz_rng_below(rng, 8);
    for (int c = 0; c < calls; c++) {
        int m = (int)fuzz_rng_below(rng, (uint64_t)n_methods);
        bool board = methods[m].board;
        /* Board calls mostly with a real token; Register calls without. */
        int tok = 0;
        if (board)
            tok = fuzz_rng_below(rng, 6) == 0 ? 0 : 1 + (int)fuzz_rng_below(rng, 3);
        else if (fuzz_rng_below(rng, 4) == 0)
            tok = (int)fuzz_rng_below(rng, 4);
        bool corrupt = fuzz_rng_below(rng, 12) == 0;
        /* JoinGame (2) and GetMatch (6) usually name the seed game. */
        bool with_id =
            (m == 2 || m == 6) ? fuzz_rng_below(rng, 4) != 0 : fuzz_rng_below(rng, 16) == 0;
        w_byte(&w, (uint8_t)m);
        w_byte(&w, (uint8_t)(tok << 4 | corrupt << 6 | with_id << 7));

        uint8_t msg[1024];
        wbuf mw = {msg, 0, sizeof msg};
        const ProtobufCMessageDescriptor *in =
            methods[m].m.service->methods[methods[m].m.index].input;
        int shape = (int)fuzz_rng_below(rng, 10);
        if (shape < 8) {
            gen_message_as(rng, in, &mw, 0, methods[m].client_streaming);
        } else {
            size_t n = fuzz_rng_below(rng, 40);
            for (size_t i = 0; i < n; i++)
                w_byte(&mw, (uint8_t)fuzz_rng_next(rng));
        }
        if (mw.len > mw.cap)
            mw.len = mw.cap;
        if (shape == 7 && mw.len > 0)      /* cut short */
            mw.len = fuzz_rng_below(rng, (uint32_t)mw.len);
        w_payload(&w, msg, mw.len);
        if (methods[m].client_streaming) {          /* the stream's second message */
            mw.len = 0;
            gen_message(rng, in, &mw, 0);
            w_payload(&w, msg, mw.len > mw.cap ? 0 : mw.len);
        }
    }
    return w.len < cap ? w.len : cap;
}
