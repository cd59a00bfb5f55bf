/*
 * relay_feed.c — a relayed game's side upstream: the relay's own observer
 * seat at the game's host (JoinGame), its one event stream (Subscribe), the
 * log kept for the watchers here, and what happens when upstream fails.
 *
 * The host's events are kept as it packed them, from the snapshot the relay
 * was first given on: a watcher gets that snapshot and every logged event
 * after it, or, resuming, the events after the last it saw. When the stream
 * breaks, the feed subscribes again after its last event, where the cluster
 * says its game is now (follow: ELSEWHERE's endpoint, kept by the feed
 * itself, or the pool's next upstream address); when its seat is gone
 * upstream, it joins again first.
 *
 * Threads: upstream's client threads run on_joined, on_event and on_ended;
 * they only pack what came and queue it (push), and answer pings, which
 * need nothing of the loop's. The loop drains the queue (relay__drain).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "relay_internal.h"

#define RETRY_FIRST_MS 250
#define RETRY_MAX_MS 5000
#define CALL_TIMEOUT_MS 10000

typedef enum { IN_JOINED, IN_JOIN_FAILED, IN_EVENT, IN_ENDED } inbox_kind;

struct inbox {                     /* news from upstream, for the loop */
    inbox *next;
    inbox_kind kind;
    feed *f;
    unsigned gen;                  /* the call it came from */
    rpc_status st;                 /* JOIN_FAILED, ENDED */
    char token[RELAY_UP_TOKEN_BYTES];   /* JOINED */
    logged ev;                     /* EVENT: the event; JOINED: the packed GameSummary */
    bool snapshot;                 /* EVENT: a snapshot, of the log up to ev.seq */
    bool game_over;
};

typedef struct up_call {           /* one upstream call's; freed when it ends */
    relay *r;
    feed *f;
    unsigned gen;
    char token[RELAY_UP_TOKEN_BYTES];   /* the stream's, for its pings */
    rpc_client *host;              /* the node the stream is on: its pings go there, not
                                    * to whichever node the pool uses for other games */
} up_call;

int64_t relay__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static rpc_method method(const ProtobufCServiceDescriptor *svc, const char *name)
{
    return rpc_method_named(svc, name, strcmp(name, "Subscribe") == 0);
}

/* Any thread: queue for the loop, and wake it. */
static void push(relay *r, inbox *in)
{
    pthread_mutex_lock(&r->mu);
    if (r->in_tail)
        r->in_tail->next = in;
    else
        r->in_head = in;
    r->in_tail = in;
    pthread_mutex_unlock(&r->mu);
    rpc_server_wake(r->server);
}

static inbox *news(up_call *c, inbox_kind kind)
{
    inbox *in = calloc(1, sizeof *in);
    if (in) {
        in->kind = kind;
        in->f = c->f;
        in->gen = c->gen;
    }
    return in;
}

/* A message packed as it would go on the wire, into in->ev. */
static bool pack_into(inbox *in, const ProtobufCMessage *m)
{
    in->ev.len = protobuf_c_message_get_packed_size(m);
    in->ev.data = malloc(in->ev.len ? in->ev.len : 1);
    if (!in->ev.data)
        return false;
    protobuf_c_message_pack(m, in->ev.data);
    return true;
}

/* ------------------------------------------------------------ client threads */

static void on_joined(const rpc_status *st, ProtobufCMessage *reply, void *user)
{
    up_call *c = user;
    inbox *in = news(c, st->code == RPC_OK ? IN_JOINED : IN_JOIN_FAILED);
    if (in && st->code == RPC_OK) {
        const Sungka__V1__BoardRef *ref = (const void *)reply;
        snprintf(in->token, sizeof in->token, "%s", ref->token);
        if (!ref->game || !pack_into(in, &ref->game->base)) {
            in->kind = IN_JOIN_FAILED;
            rpc_status oom = {.code = RPC_RESOURCE_EXHAUSTED};
            snprintf(oom.message, sizeof oom.message, "no game summary, or out of memory");
            in->st = oom;
        }
    } else if (in) {
        in->st = *st;
    }
    if (in)
        push(c->r, in);
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
    free(c);
}

static void on_event(ProtobufCMessage *msg, void *user)
{
    up_call *c = user;
    const Sungka__V1__Event *ev = (const void *)msg;
    if (ev->body_case == SUNGKA__V1__EVENT__BODY_PING) {
        /* Answered here, at once: a busy loop must not look like a gone relay. */
        Sungka__V1__PingRequest pong = SUNGKA__V1__PING_REQUEST__INIT;
        pong.nonce = ev->ping->nonce;
        rpc_method m = method(&sungka__v1__board__descriptor, "Ping");
        rpc_client_call(c->host, &m, &pong.base, c->token, CALL_TIMEOUT_MS, rpc_reply_drop,
                        NULL);
    }
    inbox *in = news(c, IN_EVENT);
    if (in && pack_into(in, msg)) {
        in->snapshot = ev->body_case == SUNGKA__V1__EVENT__BODY_SNAPSHOT;
        in->ev.seq = in->snapshot ? ev->snapshot->last_seq : ev->seq;
        in->game_over = ev->body_case == SUNGKA__V1__EVENT__BODY_GAME_OVER;
        push(c->r, in);
    } else {
        free(in);
    }
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void on_ended(const rpc_status *st, void *user)
{
    up_call *c = user;
    inbox *in = news(c, IN_ENDED);
    if (in) {
        in->st = *st;
        push(c->r, in);
    }
    free(c);
}

/* ------------------------------------------------------------- the loop */

static up_call *new_call(relay *r, feed *f)
{
    up_call *c = calloc(1, sizeof *c);
    if (c) {
        c->r = r;
        c->f = f;
        c->gen = ++f->gen;
        snprintf(c->token, sizeof c->token, "%s", f->token);
        f->calls_out++;            /* until its end is drained: f stays */
    }
    return c;
}

static void retry_later(feed *f, bool now)
{
    int delay = RETRY_FIRST_MS << (f->attempts < 5 ? f->attempts : 5);
    f->attempts++;
    f->state = FEED_RETRY;
    f->retry_ms = relay__now_ms() + (now ? 0 : delay < RETRY_MAX_MS ? delay : RETRY_MAX_MS);
}

/* What the relay shows upstream with --relay-key: the key, and, on a join,
 * the address it joins for. Without a key it names nobody: upstream would
 * refuse that, and rightly. Returns how many of headers[2] to send. */
static size_t identity(const relay *r, const feed *f, bool joining, rpc_header headers[2])
{
    if (!r->key[0])
        return 0;
    headers[0] = (rpc_header){RELAY_KEY_HEADER, r->key};
    headers[1] = (rpc_header){RELAY_FOR_HEADER, f->asker};
    return joining && f->asker[0] ? 2 : 1;
}

/* The node to ask about f's game: where upstream last said it is, else the
 * pool's node in use. */
static rpc_client *upstream_of(relay *r, const feed *f)
{
    rpc_client *c = f->where[0] ? rpc_pool_client_at(r->up, f->where) : NULL;
    return c ? c : rpc_pool_client(r->up);
}

/* After a failed call: where f's game is now, if upstream said; else the
 * pool's next node when this one did not answer. True when there is
 * somewhere new to ask. */
static bool follow(relay *r, feed *f, const rpc_status *st)
{
    if (st->endpoint[0] && strlen(st->endpoint) < sizeof f->where) {
        snprintf(f->where, sizeof f->where, "%s", st->endpoint);
        return true;
    }
    f->where[0] = '\0';
    return rpc_pool_follow(r->up, st);
}

/* Ask upstream for an observer's seat (again, after it was lost). */
static void join(relay *r, feed *f)
{
    Sungka__V1__JoinGameRequest req = SUNGKA__V1__JOIN_GAME_REQUEST__INIT;
    req.game_id = f->game_id;
    req.name = r->name;
    req.observe = true;
    req.relay = true;                  /* never sent on to a relay: this is one */
    rpc_method m = method(&sungka__v1__register__descriptor, "JoinGame");
    up_call *c = new_call(r, f);
    rpc_header headers[2];
    size_t n_headers = identity(r, f, true, headers);
    f->token[0] = '\0';
    f->state = FEED_JOINING;
    if (!c || rpc_client_call_headers(upstream_of(r, f), &m, &req.base, NULL, headers,
                                      n_headers, CALL_TIMEOUT_MS, on_joined, c) != 0) {
        f->calls_out -= c != NULL;
        free(c);
        retry_later(f, false);
    }
}

/* Open the stream, after the last event kept (0: a fresh snapshot). */
static void subscribe(relay *r, feed *f)
{
    Sungka__V1__SubscribeRequest req = SUNGKA__V1__SUBSCRIBE_REQUEST__INIT;
    req.after_seq = f->snapshot.data ? f->last_seq : 0;
    rpc_method m = method(&sungka__v1__board__descriptor, "Subscribe");
    up_call *c = new_call(r, f);
    rpc_stream *stream;
    rpc_header headers[2];
    size_t n_headers = identity(r, f, false, headers);
    f->state = FEED_LIVE;
    if (c)
        c->host = f->host = upstream_of(r, f);   /* the pool keeps it to the end */
    if (!c || rpc_client_stream_headers(c->host, &m, &req.base, c->token, headers, n_headers,
                                        on_event, on_ended, c, &stream) != 0) {
        f->calls_out -= c != NULL;
        free(c);
        retry_later(f, false);
    }
}

feed *relay__feed_find(relay *r, const char *game_id)
{
    for (feed *f = r->feeds; f; f = f->next)
        if (strcmp(f->game_id, game_id) == 0)
            return f;
    return NULL;
}

feed *relay__feed_start(relay *r, const char *game_id, const char *asker)
{
    feed *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->relay = r;
    snprintf(f->game_id, sizeof f->game_id, "%s", game_id);
    snprintf(f->asker, sizeof f->asker, "%s", asker);
    f->next = r->feeds;
    r->feeds = f;
    r->n_feeds++;
    relay__log(r, "game %s: relaying it", game_id);
    join(r, f);
    return f;
}

int relay__feed_watch(feed *f, watcher *w, uint64_t after_seq, char *err, size_t errlen)
{
    if (after_seq > f->last_seq) {
        snprintf(err, errlen, "game %s has no event %llu here yet (last is %llu)", f->game_id,
                 (unsigned long long)after_seq, (unsigned long long)f->last_seq);
        return -1;
    }
    if (f->n_watching == f->watching_cap) {
        int cap = f->watching_cap ? f->watching_cap * 2 : 16;
        watcher **grown = realloc(f->watching, (size_t)cap * sizeof *grown);
        if (!grown) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        f->watching = grown;
        f->watching_cap = cap;
    }
    w->at = f->n_watching;
    f->watching[f->n_watching++] = w;
    /* What it missed: the snapshot stands for everything before it. */
    size_t from = 0;
    if (after_seq == 0 || after_seq < f->snapshot.seq) {
        if (f->snapshot.data)
            relay__send(w, &f->snapshot);
    } else {
        while (from < f->n_log && f->log[from].seq <= after_seq)
            from++;
    }
    for (size_t i = from; i < f->n_log && w->stream; i++)
        relay__send(w, &f->log[i]);
    return 0;
}

void relay__feed_unwatch(feed *f, watcher *w)
{
    int i = w->at;
    if (i < 0 || i >= f->n_watching || f->watching[i] != w)
        return;
    f->watching[i] = f->watching[--f->n_watching];
    f->watching[i]->at = i;
    w->at = -1;
}

static void fan_out(feed *f, const logged *ev)
{
    /* From the end: a watcher cut off for its outbox leaves the list. */
    for (int i = f->n_watching - 1; i >= 0; i--)
        if (i < f->n_watching)
            relay__send(f->watching[i], ev);
}

static bool keep(feed *f, logged *ev)
{
    if (f->n_log == f->log_cap) {
        size_t cap = f->log_cap ? f->log_cap * 2 : 64;
        logged *grown = realloc(f->log, cap * sizeof *grown);
        if (!grown)
            return false;
        f->log = grown;
        f->log_cap = cap;
    }
    f->log[f->n_log++] = *ev;
    f->last_seq = ev->seq;
    return true;
}

static void forget_log(feed *f)
{
    free(f->snapshot.data);
    f->snapshot.data = NULL;
    for (size_t i = 0; i < f->n_log; i++)
        free(f->log[i].data);
    f->n_log = 0;
}

/* One event from upstream: kept when logged and new, and sent on. */
static void on_news_event(feed *f, inbox *in)
{
    logged ev = in->ev;
    in->ev.data = NULL;                /* ours now, or freed here */
    f->attempts = 0;
    metric_add(f->relay->m.events_received, 1);
    f->game_over |= in->game_over;
    if (in->snapshot) {
        if (f->snapshot.data && ev.seq <= f->last_seq) {
            free(ev.data);             /* nothing new in it */
            return;
        }
        forget_log(f);                 /* a snapshot stands for all before it */
        f->snapshot = ev;
        f->last_seq = ev.seq;
        fan_out(f, &f->snapshot);
        return;
    }
    if (ev.seq == 0) {                 /* outside the log: a ping */
        fan_out(f, &ev);
        free(ev.data);
        return;
    }
    if (ev.seq <= f->last_seq || !keep(f, &ev)) {
        free(ev.data);                 /* seen already (a replay), or no memory */
        return;
    }
    fan_out(f, &f->log[f->n_log - 1]);
}

static void fail_joins(relay *r, feed *f, const rpc_status *st)
{
    for (int i = 0; i < f->n_joins; i++)
        relay__answer_join(r, f, f->joins[i], st);
    f->n_joins = 0;
}

/* What an upstream that cannot be reached most likely means to an operator,
 * from gRPC's words for it, most specific first; "" when nothing fits. */
static const char *unreachable_hint(const relay *r, const rpc_status *st)
{
    static const struct {
        const char *words;         /* in gRPC's message */
        bool tls;                  /* when the relay speaks TLS upstream */
        const char *hint;
    } hints[] = {
        {"certificate verify failed", true, ", its certificate is not the one trusted here "
                                            "(--upstream-ca)"},
        {"Peer name", true, ", its certificate does not name that host (--upstream-name)"},
        {"WRONG_VERSION_NUMBER", true, ", it does not speak TLS (drop --upstream-tls and "
                                       "--upstream-ca)"},
        {"Socket closed", false, ", it closed the connection at once (if it uses TLS, give "
                                 "--upstream-tls or --upstream-ca)"},
    };
    bool tls = r->cfg.upstream_tls || r->cfg.upstream_ca;
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
        if (hints[i].tls == tls && strstr(st->message, hints[i].words))
            return hints[i].hint;
    return "";
}

static bool final(rpc_code code)
{
    return code == RPC_NOT_FOUND || code == RPC_INVALID_ARGUMENT ||
           code == RPC_FAILED_PRECONDITION || code == RPC_PERMISSION_DENIED ||
           code == RPC_UNAUTHENTICATED;
}

static void on_news(relay *r, inbox *in)
{
    feed *f = in->f;
    if (in->kind != IN_EVENT)
        f->calls_out--;                /* its last news */
    if (in->gen != f->gen)
        return;                        /* a call since replaced */
    switch (in->kind) {
    case IN_JOINED:
        snprintf(f->token, sizeof f->token, "%s", in->token);
        free(f->summary);
        f->summary = in->ev.data;
        f->summary_len = in->ev.len;
        in->ev.data = NULL;
        for (int i = 0; i < f->n_joins; i++)
            relay__answer_join(r, f, f->joins[i], NULL);
        f->n_joins = 0;
        subscribe(r, f);
        break;
    case IN_JOIN_FAILED:
        if (in->st.code == RPC_UNAUTHENTICATED)     /* our key: the operator must know */
            relay__log_at(r, LOG_ERR, "game %s: upstream refuses this relay: %s", f->game_id,
                       in->st.message);
        if (final(in->st.code)) {      /* no such game: say so, keep nothing */
            fail_joins(r, f, &in->st);
            f->state = FEED_OVER;
        } else {
            bool moved = follow(r, f, &in->st);
            if ((!moved || f->attempts > 2) && in->st.code == RPC_UNAVAILABLE)
                /* Down, or a TLS mismatch: the operator must know. */
                relay__log_at(r, LOG_WARNING, "game %s: cannot reach upstream (%s)%s: %s",
                              f->game_id, r->cfg.upstream, unreachable_hint(r, &in->st),
                              in->st.message);
            if (!moved || f->attempts > 2)
                fail_joins(r, f, &in->st);     /* they may ask again */
            retry_later(f, moved && f->attempts < 3);
        }
        break;
    case IN_EVENT:
        on_news_event(f, in);
        break;
    case IN_ENDED:
        if (f->state == FEED_OVER || in->st.code == RPC_OK) {
            f->state = FEED_OVER;      /* upstream let the game go */
            for (int i = f->n_watching - 1; i >= 0; i--)
                relay__end_watch(f->watching[i], RPC_OK, in->st.message);
        } else if (in->st.code == RPC_UNAUTHENTICATED) {
            join(r, f);                /* our seat is gone upstream: a new one */
        } else {
            /* at once where the cluster says the game is; else after a while */
            bool moved = follow(r, f, &in->st);   /* or to the next upstream */
            bool sent_on = moved && in->st.endpoint[0];
            relay__log_at(r, LOG_NOTICE, "game %s: the stream from upstream ended (%s); again%s",
                          f->game_id,
                       in->st.message, sent_on ? " where it moved" : "");
            retry_later(f, sent_on && f->attempts < 3);
        }
        break;
    }
}

static void drain(relay *r, bool discard)
{
    pthread_mutex_lock(&r->mu);
    inbox *in = r->in_head;
    r->in_head = r->in_tail = NULL;
    pthread_mutex_unlock(&r->mu);
    while (in) {
        inbox *next = in->next;
        if (!discard)
            on_news(r, in);
        free(in->ev.data);
        free(in);
        in = next;
    }
}

void relay__drain(relay *r)
{
    drain(r, false);
}

void relay__drain_discard(relay *r)
{
    drain(r, true);
}

static void leave(relay *r, feed *f)
{
    Sungka__V1__LeaveRequest req = SUNGKA__V1__LEAVE_REQUEST__INIT;
    rpc_method m = method(&sungka__v1__board__descriptor, "Leave");
    rpc_client_call(f->host ? f->host : upstream_of(r, f), &m, &req.base, f->token,
                    CALL_TIMEOUT_MS, rpc_reply_drop, NULL);
    f->state = FEED_OVER;              /* the stream's end follows */
}

static void feed_free(feed *f)
{
    forget_log(f);
    free(f->log);
    free(f->summary);
    free(f->watching);
    free(f->joins);
    free(f);
}

int64_t relay__tick(relay *r, int64_t now)
{
    int64_t next = now + 1000;
    for (feed **link = &r->feeds; *link;) {
        feed *f = *link;
        if (f->state == FEED_RETRY && f->retry_ms <= now) {
            if (f->token[0])
                subscribe(r, f);
            else
                join(r, f);
        } else if (f->state == FEED_RETRY && f->retry_ms < next) {
            next = f->retry_ms;
        }
        /* A game over that nobody here watches: let it go upstream too. */
        if (f->state == FEED_LIVE && f->game_over && f->n_watching == 0 && f->n_joins == 0)
            leave(r, f);
        if (f->state == FEED_OVER && f->n_joins == 0 && f->calls_out == 0 && f->n_named == 0) {
            relay__log(r, "game %s: no longer relayed", f->game_id);
            *link = f->next;
            r->n_feeds--;
            feed_free(f);
            continue;
        }
        link = &f->next;
    }
    return next;
}

void relay__feeds_free(relay *r)
{
    while (r->feeds) {
        feed *f = r->feeds;
        r->feeds = f->next;
        feed_free(f);
    }
    r->n_feeds = 0;
}
