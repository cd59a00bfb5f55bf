/*
 * web_metrics.c — /metrics for operators (web_metrics.h).
 */
#include "web_metrics.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libwebsockets.h>

#include "web_hub.h"
#include "web_lister.h"
#include "web_session.h"

web_counters web_counts;

static const char *const refusal_names[WEB_N_REFUSALS] = {
    [WEB_REFUSED_ORIGIN] = "origin",       [WEB_REFUSED_PER_ADDRESS] = "per_address",
    [WEB_REFUSED_TOO_LARGE] = "too_large", [WEB_REFUSED_BINARY] = "binary",
    [WEB_REFUSED_TOO_MANY] = "too_many_commands", [WEB_REFUSED_SLOW] = "too_slow",
};

typedef struct page {
    char *buf;
    size_t len, cap;
    bool failed;
} page;

static void add(page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(page *p, const char *fmt, ...)
{
    for (;;) {
        if (p->failed)
            return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(p->buf ? p->buf + p->len : NULL, p->buf ? p->cap - p->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            p->failed = true;
            return;
        }
        if (p->buf && p->len + (size_t)n < p->cap) {
            p->len += (size_t)n;
            return;
        }
        size_t cap = (p->cap ? p->cap : 1024) * 2 + (size_t)n;
        char *b = realloc(p->buf, cap);
        if (!b) {
            p->failed = true;
            return;
        }
        p->buf = b;
        p->cap = cap;
    }
}

/* A game id as a label value: backslash, quote and newline escaped. */
static void add_watchers(void *arg, const char *game, int watchers)
{
    page *p = arg;
    char esc[160];
    size_t j = 0;
    for (const char *c = game; *c && j + 3 < sizeof esc; c++) {
        if (*c == '\\' || *c == '"') {
            esc[j++] = '\\';
            esc[j++] = *c;
        } else if (*c == '\n') {
            esc[j++] = '\\';
            esc[j++] = 'n';
        } else {
            esc[j++] = *c;
        }
    }
    esc[j] = '\0';
    add(p, "sungka_web_game_watchers{game=\"%s\"} %d\n", esc, watchers);
}

static void count_hub(void *arg, const char *game, int watchers)
{
    (void)game;
    (void)watchers;
    (*(int *)arg)++;
}

char *web_metrics_render(size_t *len)
{
    page p = {0};
    int hubs = 0;
    add(&p, "# HELP sungka_web_browsers Browser WebSocket connections open now.\n"
            "# TYPE sungka_web_browsers gauge\nsungka_web_browsers %ld\n",
        web_counts.browsers);
    add(&p, "# HELP sungka_web_connections_total Browser WebSocket connections accepted.\n"
            "# TYPE sungka_web_connections_total counter\nsungka_web_connections_total %llu\n",
        web_counts.connections);
    add(&p, "# HELP sungka_web_messages_out_total Messages written to browsers.\n"
            "# TYPE sungka_web_messages_out_total counter\n"
            "sungka_web_messages_out_total{from=\"session\"} %llu\n"
            "sungka_web_messages_out_total{from=\"shared_game\"} %llu\n",
        web_counts.messages_out, web_hub_messages_out());
    add(&p, "# HELP sungka_web_refused_total Browsers refused or cut off, by reason.\n"
            "# TYPE sungka_web_refused_total counter\n");
    for (int i = 0; i < WEB_N_REFUSALS; i++)
        add(&p, "sungka_web_refused_total{reason=\"%s\"} %llu\n", refusal_names[i],
            web_counts.refused[i] + (i == WEB_REFUSED_SLOW ? web_hub_cut_off() : 0));
    add(&p, "# HELP sungka_web_game_watchers Browsers watching a game through its one shared "
            "observer.\n# TYPE sungka_web_game_watchers gauge\n");
    web_hub_each(add_watchers, &p);
    web_hub_each(count_hub, &hubs);
    add(&p, "# HELP sungka_web_agents Browsers' player agents running now (a browser that "
            "only watches or reads the lobby has none).\n# TYPE sungka_web_agents gauge\n"
            "sungka_web_agents %d\n", web_session_agents());
    add(&p, "# HELP sungka_web_lobby_lists_total Lobbies asked of the board service by the "
            "shared lister, for browsers without an agent.\n"
            "# TYPE sungka_web_lobby_lists_total counter\nsungka_web_lobby_lists_total %llu\n",
        web_lister_asked());
    add(&p, "# HELP sungka_web_shared_games Games watched through one shared observer each.\n"
            "# TYPE sungka_web_shared_games gauge\nsungka_web_shared_games %d\n", hubs);
    if (p.failed) {
        free(p.buf);
        return NULL;
    }
    *len = p.len;
    return p.buf;
}

/* One request for the page (libwebsockets' per-session data). */
typedef struct metrics_req {
    unsigned char *buf;        /* LWS_PRE, then the page */
    size_t len;
} metrics_req;

static int metrics_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
                            void *in, size_t len)
{
    metrics_req *r = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP: {
        if (!in || strcmp(in, "/metrics") != 0) {
            lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, "only /metrics is here");
            return -1;
        }
        size_t n = 0;
        char *text = web_metrics_render(&n);
        r->buf = text ? malloc(LWS_PRE + n) : NULL;
        if (!r->buf) {
            free(text);
            lws_return_http_status(wsi, HTTP_STATUS_INTERNAL_SERVER_ERROR, "out of memory");
            return -1;
        }
        memcpy(r->buf + LWS_PRE, text, n);
        free(text);
        r->len = n;
        unsigned char head[LWS_PRE + 512], *start = head + LWS_PRE, *p = start,
                      *end = head + sizeof head - 1;
        if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, "text/plain; version=0.0.4",
                                        r->len, &p, end) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return 1;
        lws_callback_on_writable(wsi);
        return 0;
    }
    case LWS_CALLBACK_HTTP_WRITEABLE: {
        if (!r->buf)
            return -1;
        int w = lws_write(wsi, r->buf + LWS_PRE, r->len, LWS_WRITE_HTTP_FINAL);
        free(r->buf);
        r->buf = NULL;
        if (w < (int)r->len)
            return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    case LWS_CALLBACK_CLOSED_HTTP:
        free(r->buf);
        r->buf = NULL;
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols metrics_protocols[] = {
    {"sungka-metrics", metrics_callback, sizeof(metrics_req), 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

int web_metrics_listen(struct lws_context *ctx, const char *host, int port, int *bound)
{
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.vhost_name = "metrics";
    info.port = port;
    info.iface = host;
    if (!strchr(host, ':'))
        info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info.protocols = metrics_protocols;
    info.server_string = "sungka-web";
    struct lws_vhost *vh = lws_create_vhost(ctx, &info);
    if (!vh)
        return -1;
    *bound = lws_get_vhost_listen_port(vh);
    return *bound > 0 ? 0 : -1;
}
