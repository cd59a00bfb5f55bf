/*
 * web_metrics.h — sungka-web's /metrics, in Prometheus's text format, on
 * an address of its own (--metrics HOST:PORT: keep it on loopback or an
 * operators' network; browsers never need it).
 *
 * Threads: the counters are the service thread's (web_main.c counts in
 * its callbacks), and the page is made on the same thread (the metrics
 * listener is a second vhost of the same libwebsockets context), so
 * nothing here is shared between threads; the count of browsers' agents
 * is read from web_session_agents (an atomic).
 */
#ifndef SUNGKA_WEB_METRICS_H
#define SUNGKA_WEB_METRICS_H

#include <stddef.h>

struct lws_context;

/* Why a browser was refused or cut off; each counted. */
typedef enum web_refusal {
    WEB_REFUSED_ORIGIN,        /* a WebSocket from a page on another site */
    WEB_REFUSED_PER_ADDRESS,   /* --max-per-address reached */
    WEB_REFUSED_TOO_LARGE,     /* a command over WEB_MAX_COMMAND bytes */
    WEB_REFUSED_BINARY,        /* a binary message */
    WEB_REFUSED_TOO_MANY,      /* more than WEB_MAX_INBOX commands unanswered */
    WEB_REFUSED_SLOW,          /* did not read its messages */
    WEB_N_REFUSALS
} web_refusal;

typedef struct web_counters {
    long browsers;             /* WebSocket connections open now */
    unsigned long long connections;   /* accepted since the start */
    unsigned long long messages_out;  /* messages written to browsers from their own sessions */
    unsigned long long refused[WEB_N_REFUSALS];
} web_counters;

extern web_counters web_counts;   /* service thread only */

/* Listen for /metrics on host (numeric) and port as a second vhost of ctx;
 * the port bound in *bound. -1 when it cannot. */
int web_metrics_listen(struct lws_context *ctx, const char *host, int port, int *bound);

/* The page's text (malloc'd; *len its length). */
char *web_metrics_render(size_t *len);

#endif /* SUNGKA_WEB_METRICS_H */
