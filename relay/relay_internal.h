/*
 * relay_internal.h — what the relay's files share: a relayed game (a feed,
 * relay_feed.c: its stream from upstream and its log) and its observers
 * here (watchers, relay.c: the calls observers make).
 *
 * Everything here belongs to the loop thread, but the inbox: upstream's
 * client threads put what they receive there (relay_feed.c), under mu, and
 * wake the loop, which drains it.
 */
#ifndef SUNGKA_RELAY_INTERNAL_H
#define SUNGKA_RELAY_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>                /* relay__log_at's levels */

#include "address.h"
#include "metrics.h"
#include "relay.h"
#include "relay_key.h"
#include "rpc.h"
#include "sungka/v1/sungka.pb-c.h"

#define RELAY_TOKEN_BYTES 33       /* 32 hex digits: the slot, then random */
#define RELAY_UP_TOKEN_BYTES 128   /* the relay's own seat token upstream */
#define RELAY_GAME_ID_BYTES 32

typedef struct logged {            /* one event as the host packed it */
    uint64_t seq;                  /* 0: outside the log (a ping) */
    uint8_t *data;
    size_t len;
} logged;

typedef struct feed feed;

typedef struct relay_client {      /* one observer's address (relay_clients.c) */
    struct relay_client *next;     /* hash chain */
    char host[ADDRESS_HOST_BYTES];
    int watchers;                  /* watcher slots it holds */
    int streams;                   /* event streams it has open */
    int64_t join_window_ms;        /* joins in the current one-second window */
    int joins;
    int64_t log_window_ms;         /* "limit reached" lines in the current minute */
    int logged;
    bool relay;                    /* a relay below this one, showing our key: its own
                                    * slots and streams are its audience's, unbounded here */
} relay_client;

typedef struct relay_clients {
    relay_client **buckets;        /* cap chains (a power of two) */
    size_t cap, n;
} relay_clients;

typedef struct watcher {           /* an observer here (its own allocation: calls and
                                    * feeds point to it) */
    feed *feed;
    char token[RELAY_TOKEN_BYTES];
    rpc_call *stream;              /* its Subscribe, or NULL */
    int at;                        /* its index in feed->watching, while streaming */
    int64_t gone_ms;               /* since when it has had no stream */
    int slot;                      /* its index in relay.slots, as its token says */
    relay_client *from;            /* the address whose slot it is */
    relay_client *stream_from;     /* the address its stream counts against, while open */
} watcher;

typedef enum {
    FEED_JOINING,                  /* asking upstream for a seat */
    FEED_LIVE,                     /* its stream is open (or opening) */
    FEED_RETRY,                    /* waiting to ask again (retry_ms) */
    FEED_OVER,                     /* upstream is done with it: nothing more comes */
} feed_state;

struct feed {
    relay *relay;                  /* the relay it feeds */
    char game_id[RELAY_GAME_ID_BYTES];
    char asker[ADDRESS_HOST_BYTES];    /* who asked for it first: upstream's joins for
                                        * it count against that address (--relay-key) */
    feed_state state;
    char token[RELAY_UP_TOKEN_BYTES];
    unsigned gen;                  /* the upstream call's; older calls' news is stale */
    rpc_stream *up;                /* the stream in use; NULL when none */
    rpc_client *host;              /* the node of the last stream opened */
    char where[RPC_ADDRESS_BYTES]; /* where upstream last said the game is; "": the
                                    * pool's node in use (each feed goes its own way:
                                    * moving the one pool for each, two feeds on two
                                    * nodes sent each other away for ever) */
    uint8_t *summary;              /* BoardRef.game as upstream packed it */
    size_t summary_len;
    logged snapshot;               /* data NULL until one came */
    logged *log;                   /* every logged event after the snapshot */
    size_t n_log, log_cap;
    uint64_t last_seq;
    bool game_over;                /* a GameOver went by */
    int n_named;                   /* watchers here of it, streaming or not */
    watcher **watching;            /* those with a stream */
    int n_watching, watching_cap;
    rpc_call **joins;              /* JoinGame calls waiting for the first answer */
    int n_joins, joins_cap;
    int attempts;
    int64_t retry_ms;
    int calls_out;                 /* upstream calls whose end is not drained yet */
    struct feed *next;
};

typedef struct inbox inbox;

/* relay_metrics.c: what --metrics shows (docs/operating.md, "Monitoring").
 * Without --metrics every pointer is NULL and counting into it does nothing
 * (metrics.h). Loop thread only; the listener's thread reads only what
 * relay__metrics_turn publishes. */
typedef struct relay_metrics {
    metrics *set;                  /* NULL: no --metrics */
    metric *feeds, *watchers, *streams;            /* gauges */
    metric *events_relayed, *events_received, *limits_hit, *loop_turn;
    double next_gauges;            /* metrics_now() when the gauges are counted again */
} relay_metrics;

struct relay {
    relay_config cfg;
    relay_metrics m;               /* relay_metrics.c */
    rpc_server *server;
    rpc_pool *up;
    char endpoint[RPC_ADDRESS_BYTES];
    char name[40];                 /* the relay's observer name upstream */
    volatile sig_atomic_t stop;
    volatile sig_atomic_t reload;  /* relay_request_reload */
    char *own[2];                  /* tls_cert and tls_key as reloaded (relay_reconfigure) */
    feed *feeds;
    int n_feeds;
    relay_clients clients;         /* per observer's address (relay_clients.c) */
    char key[RELAY_KEY_BYTES];     /* --relay-key's secret; "" when none */
    watcher **slots;               /* a token names its slot; NULL: free */
    int n_slots, n_watchers;
    int free_slot;                 /* a hint: slots below are taken */
    pthread_mutex_t mu;            /* the inbox */
    inbox *in_head, *in_tail;
    bool log_journal;              /* lines in the journal's form (log_line.h) */
};

/* "limit reached" lines one address may cause per RELAY_LIMIT_LOG_WINDOW_MS:
 * RELAY_LIMIT_LINES, and one more saying that the rest are not logged (a
 * flood of refusals is no flood of lines). Its entry is kept that long. */
#define RELAY_LIMIT_LINES 10
#define RELAY_LIMIT_LOG_WINDOW_MS (60 * 1000)

/* --- relay.c --- */
/* A line of the log (log_line.h) at a syslog.h level: LOG_ERR .. LOG_DEBUG;
 * relay__log is LOG_INFO. Nothing when --quiet. */
void relay__log_at(relay *r, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void relay__log(relay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Send an event to one watcher's stream; a watcher too slow for its outbox
 * is cut off (it resumes after the last event it saw). */
void relay__send(watcher *w, const logged *ev);
/* Answer a JoinGame waiting for f: its board reference, or f's failure. */
void relay__answer_join(relay *r, feed *f, rpc_call *call, const rpc_status *failed);
/* End a watcher's stream with a status (the call's done unhooks it). */
void relay__end_watch(watcher *w, rpc_code code, const char *message);

/* The defaults of a relay_config's unset numbers (relay_create; and a
 * reload's, so that an unset one compares as its default). */
void relay__config_defaults(relay_config *cfg);

/* --- relay_clients.c: limits per observer's address --- */
/* The entry that holds what call opens (a slot, a stream), made when new;
 * NULL when out of memory. A relay below showing our key has its own
 * ("relay HOST", relay set). */
relay_client *relay__client_of(relay *r, rpc_call *call);
/* The entry of the address that asked: relay__client_of's, but for a relay
 * below naming its observer's (RELAY_FOR_HEADER). */
relay_client *relay__client_asking(relay *r, rpc_call *call);
/* True once call was refused for naming an observer without our key, or for
 * a wrong key (relay_key_refusal's sentences). */
bool relay__identity_refused(relay *r, rpc_call *call);
/* 0, or -1 with a sentence (RESOURCE_EXHAUSTED): may c take one more
 * watcher slot? may `asker` join now (counted against its join rate), for a
 * slot `holder` takes? may c open one more event stream? */
int relay__client_may_watch(relay *r, const relay_client *c, char *err, size_t errlen);
int relay__client_may_join(relay *r, const relay_client *holder, relay_client *asker,
                           char *err, size_t errlen);
int relay__client_may_stream(relay *r, const relay_client *c, char *err, size_t errlen);
/* Free the entries that hold nothing and have no open join window. */
void relay__clients_sweep(relay *r, int64_t now);
void relay__clients_free(relay *r);

/* --- relay_metrics.c: --metrics --- */
/* Make the relay's metrics and listen on cfg.metrics: 0 (also without it),
 * or -1 with a sentence. */
int relay__metrics_start(relay *r, char *err, size_t errlen);
/* The end of a loop turn whose work began at `started` (metrics_now()): its
 * duration observed, the gauges counted (at most once a second) and
 * everything published. */
void relay__metrics_turn(relay *r, double started);
/* A refusal: rpc_server_set_refusal_hook's (user: the relay). */
void relay__metrics_refusal(void *user, rpc_code code, const char *reason);
void relay__metrics_free(relay *r);

/* --- relay_feed.c --- */
feed *relay__feed_find(relay *r, const char *game_id);
/* A new feed for game_id, joining upstream for the address asker; NULL
 * when out of memory. */
feed *relay__feed_start(relay *r, const char *game_id, const char *asker);
/* Add / remove a watcher's stream (it gets what it missed first). */
int relay__feed_watch(feed *f, watcher *w, uint64_t after_seq, char *err, size_t errlen);
void relay__feed_unwatch(feed *f, watcher *w);
/* What upstream's threads queued: events to fan out, joins, ends. */
void relay__drain(relay *r);
/* At the end: drop what is queued (upstream's channels are closed). */
void relay__drain_discard(relay *r);
/* Retries due; feeds over and unwatched let go; returns when to look again. */
int64_t relay__tick(relay *r, int64_t now);
void relay__feeds_free(relay *r);
int64_t relay__now_ms(void);

#endif /* SUNGKA_RELAY_INTERNAL_H */
