/*
 * web_main.c — sungka-web: the gateway between browsers and a board
 * service. It serves the web app's files (web/app/, installed to
 * /usr/share/sungka/web) and a WebSocket endpoint, /ws, speaking the JSON
 * of docs/web-protocol.md; each browser that plays gets a player agent of
 * its own (web_session.h), so the browser only draws and sends commands.
 *
 * The library: libwebsockets (Debian 12: 4.1), chosen because it does HTTP
 * file serving and WebSocket framing (RFC 6455: masking, fragments, close
 * codes and reasons, ping) in one event loop with a documented way to wake
 * that loop from other threads (lws_cancel_service). libmicrohttpd, which
 * the project already uses for --metrics, has no WebSocket framing in
 * Debian 12's version (0.9.75: only an "upgrade" hook, the frames would be
 * ours to parse); h2o is built for a reverse proxy's configuration file
 * and its C library (libh2o) is a less settled API.
 *
 * Threads:
 *   - the main thread runs the libwebsockets service loop: every lws call
 *     and callback below, the per-address counts, the list of connections;
 *   - one session thread per browser (web_session.c) runs its agent, once
 *     it needs one, and wakes this loop with lws_cancel_service when it has JSON to send; the
 *     loop then asks each connection's session for it (web_session_take,
 *     under the session's mutex), in LWS_CALLBACK_EVENT_WAIT_CANCELLED;
 *   - the agents' own threads (agent.h), the shared lobby lister's among
 *     them (web_lister.h).
 *
 * Safe in public, as far as this increment goes: the WebSocket's Origin
 * must name the host the page was served from (the Host header; a page
 * elsewhere cannot drive a visitor's session), at most --max-per-address
 * connections from one address, commands of WEB_MAX_COMMAND bytes at most
 * (a bigger one closes the connection with 1009), a browser that does not
 * read is cut off (web_session.h), and every response carries a strict
 * Content-Security-Policy (no inline script, nothing from elsewhere) and
 * X-Content-Type-Options: nosniff.
 *
 * A browser's session: the app's page sets an HttpOnly, SameSite=Strict
 * cookie naming a kept session (web_store.h) and a readable one with its
 * CSRF token; the WebSocket's handshake carries the first, and its session
 * thread takes the browser's seat and sign-in back from the session's
 * directory (docs/web-protocol.md, "The browser's session").
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <netdb.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "agent.h"
#include "options.h"
#include "relay_key.h"
#include "self_signed.h"
#include "server_main.h"
#include "server_notify.h"
#include "web_hub.h"
#include "web_lister.h"
#include "web_metrics.h"
#include "web_proxy.h"
#include "web_session.h"
#include "web_store.h"
#include "xdg.h"

#define MAX_ADDRESSES 1024
#define SESSION_COOKIE "sungka_session"
#define CSRF_COOKIE "sungka_csrf"
#define DEFAULT_PER_ADDRESS 16
/* --config's default: read when it exists and no --config is given. */
#define DEFAULT_CONFIG "/etc/sungka/web.conf"
#define DEFAULT_SESSIONS_PER_ADDRESS 64

/* One browser connection (libwebsockets' per-session data; service thread). */
typedef struct conn {
    struct conn *next;
    struct lws *wsi;
    web_session *session;
    web_watch watch;           /* watching a game through its shared observer (web_hub.h) */
    char ip[64];
    bool counted;              /* in the per-address count */
    bool too_large;            /* the command being received went past the limit */
    bool cut_off;              /* dropped for not reading (web_session_overflowed) */
    bool rx_paused;            /* not read until its commands drain (on_receive) */
    size_t rx_len;
    char rx[WEB_MAX_COMMAND];
} conn;

typedef struct address_count {
    char ip[64];
    int n;
} address_count;

/* Kept sessions made for one address in the current hour (serve_http). */
typedef struct address_made {
    char ip[64];
    time_t since;
    int n;
} address_made;

/* All service thread only. */
static struct {
    web_config cfg;
    char relay_key[RELAY_KEY_BYTES];   /* --relay-key's, when given */
    char root[PATH_MAX];       /* the web app's directory */
    char index_path[PATH_MAX];
    int per_address;
    bool secure_cookies;       /* the cookies say Secure (behind TLS) */
    bool https;                /* browsers come over TLS to us (--https-cert) */
    conn *conns;
    address_count addresses[MAX_ADDRESSES];
    int n_addresses;
    int sessions_per_address;  /* new kept sessions an address may have made an hour */
    address_made made[MAX_ADDRESSES];
} gw;

static volatile sig_atomic_t stopping;

static address_count *address_find(const char *ip, bool add)
{
    for (int i = 0; i < gw.n_addresses; i++)
        if (strcmp(gw.addresses[i].ip, ip) == 0)
            return &gw.addresses[i];
    if (!add || gw.n_addresses >= MAX_ADDRESSES)
        return NULL;
    address_count *a = &gw.addresses[gw.n_addresses++];
    snprintf(a->ip, sizeof a->ip, "%s", ip);
    a->n = 0;
    return a;
}

static void address_release(const char *ip)
{
    address_count *a = address_find(ip, false);
    if (a && --a->n == 0)
        *a = gw.addresses[--gw.n_addresses];
}

/* Does the Origin header name the host this page was served from? A
 * browser always sends Origin on a WebSocket; a page on another site would
 * show its own. Behind a trusted TLS proxy (X-Forwarded-Proto: https) the
 * page's origin is https://HOST. */
static bool origin_allowed(struct lws *wsi)
{
    char origin[256], host[256], want[300];
    if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0 ||
        lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0)
        return false;
    bool https = gw.https || web_proxy_forwarded_https(wsi);
    snprintf(want, sizeof want, "%s://%s", https ? "https" : "http", host);
    return strcmp(origin, want) == 0;
}

static void conn_unlink(conn *c)
{
    for (conn **p = &gw.conns; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            return;
        }
}

static int on_receive(struct lws *wsi, conn *c, const char *in, size_t len)
{
    if (c->too_large || c->rx_len + len > sizeof c->rx) {
        if (!c->too_large)
            web_counts.refused[WEB_REFUSED_TOO_LARGE]++;
        c->too_large = true;
        static const char why[] = "message too large (at most 4096 bytes)";
        lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, (unsigned char *)why,
                         sizeof why - 1);
        return -1;
    }
    memcpy(c->rx + c->rx_len, in, len);
    c->rx_len += len;
    if (!lws_is_final_fragment(wsi))
        return 0;
    size_t n = c->rx_len;
    c->rx_len = 0;
    if (lws_frame_is_binary(wsi)) {
        web_counts.refused[WEB_REFUSED_BINARY]++;
        static const char why[] = "binary messages are not part of the protocol";
        lws_close_reason(wsi, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, (unsigned char *)why,
                         sizeof why - 1);
        return -1;
    }
    char *rewrite = NULL;
    if (web_hub_command(&c->watch, &gw.cfg, lws_get_context(wsi), c->rx, n, &rewrite))
        return 0;
    int queued = rewrite ? web_session_input(c->session, rewrite, strlen(rewrite))
                         : web_session_input(c->session, c->rx, n);
    free(rewrite);
    if (queued < 0) {
        web_counts.refused[WEB_REFUSED_TOO_MANY]++;
        static const char why[] = "too many commands waiting";
        lws_close_reason(wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, (unsigned char *)why,
                         sizeof why - 1);
        return -1;
    }
    if (queued > 0 && !c->rx_paused) {
        /* Sending faster than it is answered: not a fault (a busy gateway
         * is slow to answer), so hold the browser back by not reading it. */
        c->rx_paused = true;
        lws_rx_flow_control(wsi, 0);
    }
    return 0;
}

static int on_writable(struct lws *wsi, conn *c)
{
    /* The watched game's messages first: they are shared, and waiting for
     * this browser alone. */
    int h = web_hub_write(&c->watch);
    if (h != 0) {
        if (h > 0)
            lws_callback_on_writable(wsi);
        return h < 0 ? -1 : 0;
    }
    size_t len = 0;
    bool close_now = false;
    char reason[124];
    char *text = web_session_take(c->session, &len, &close_now, reason, sizeof reason);
    if (text) {
        unsigned char *buf = malloc(LWS_PRE + len);
        if (!buf) {
            free(text);
            return -1;
        }
        memcpy(buf + LWS_PRE, text, len);
        free(text);
        int w = lws_write(wsi, buf + LWS_PRE, len, LWS_WRITE_TEXT);
        free(buf);
        if (w < (int)len)
            return -1;
        web_counts.messages_out++;
        lws_callback_on_writable(wsi);   /* there may be more */
        return 0;
    }
    if (close_now) {
        lws_close_reason(wsi, strncmp(reason, "too slow", 8) == 0
                                  ? LWS_CLOSE_STATUS_POLICY_VIOLATION
                                  : LWS_CLOSE_STATUS_GOINGAWAY,
                         (unsigned char *)reason, strlen(reason));
        return -1;
    }
    return 0;
}

/* May ip have one more kept session made for it this hour? Counts it when
 * so. A stranger who never sends the cookie back cannot fill the state
 * directory (web_store.h's bound) and keep everyone else's browsers from
 * being kept: past the limit its pages are served without a session. */
static bool session_allowed(const char *ip)
{
    time_t now = time(NULL);
    address_made *slot = NULL, *free_slot = NULL, *oldest = NULL;
    for (int i = 0; i < MAX_ADDRESSES && !slot; i++) {
        address_made *m = &gw.made[i];
        if (m->n && now - m->since >= 3600)
            m->n = 0;              /* its hour is over */
        if (m->n == 0)
            free_slot = free_slot ? free_slot : m;
        else if (strcmp(m->ip, ip) == 0)
            slot = m;
        else if (!oldest || m->since < oldest->since)
            oldest = m;
    }
    if (!slot) {
        slot = free_slot ? free_slot : oldest;   /* every slot busy: the oldest count goes */
        snprintf(slot->ip, sizeof slot->ip, "%s", ip);
        slot->since = now;
        slot->n = 0;
    }
    if (slot->n >= gw.sessions_per_address)
        return false;
    slot->n++;
    return true;
}

/* The app's files, by name: nothing else under the web root is served. */
static const struct {
    const char *path, *mime;
} app_files[] = {
    {"/app.js", "text/javascript; charset=utf-8"},
    {"/app.css", "text/css; charset=utf-8"},
    {"/favicon.svg", "image/svg+xml"},
    {"/i18n.js", "text/javascript; charset=utf-8"},
    {"/history.js", "text/javascript; charset=utf-8"},
    {"/tournament.js", "text/javascript; charset=utf-8"},
    {"/i18n/fil.json", "application/json"},
    {"/i18n/id.json", "application/json"},
};

/* Is uri prefix + an id (letters, digits, _ and -)? */
static bool app_path(const char *uri, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(uri, prefix, n) == 0 && uri[n] &&
           strspn(uri + n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           "0123456789_-") == strlen(uri + n);
}

/* One HTTP request: an app file, or the app's page (/, /index.html,
 * /game/ID, /tournament/ID) — with, when the browser has no kept session
 * yet, a new one in an HttpOnly, SameSite=Strict cookie and its CSRF token in a second one
 * the page's script reads (web_store.h). The session id is never in a URL
 * or where a script can read it. */
static int serve_http(struct lws *wsi)
{
    char uri[256] = "";
    if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0) {
        lws_return_http_status(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, NULL);
        return -1;
    }
    for (size_t i = 0; i < sizeof app_files / sizeof app_files[0]; i++)
        if (strcmp(uri, app_files[i].path) == 0) {
            char path[PATH_MAX + 16];
            snprintf(path, sizeof path, "%s%s", gw.root, app_files[i].path);
            return lws_serve_http_file(wsi, path, app_files[i].mime, NULL, 0) < 0 ? -1 : 0;
        }
    bool page = strcmp(uri, "/") == 0 || strcmp(uri, "/index.html") == 0 ||
                app_path(uri, "/game/") || app_path(uri, "/tournament/");
    if (!page) {
        lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
        return -1;
    }
    char headers[512] = "";
    int hlen = 0;
    char id[WEB_STORE_ID_HEX + 8];
    size_t id_len = sizeof id;
    if (gw.cfg.state_dir) {
        bool known = lws_http_cookie_get(wsi, SESSION_COOKIE, id, &id_len) == 0 &&
                     web_store_known(gw.cfg.state_dir, id, NULL, 0);
        char ip[64];
        web_client_address(wsi, ip, sizeof ip);
        if (!known && !session_allowed(ip)) {
            lwsl_user("no new browser session for %s: %d made for it in the last hour "
                      "(--sessions-per-address)\n", ip, gw.sessions_per_address);
        } else if (!known && web_store_new(gw.cfg.state_dir, id) != 0) {
            lwsl_user("no new browser session: %s holds %d already, or cannot be written\n",
                      gw.cfg.state_dir, WEB_STORE_MAX_SESSIONS);
        } else {
            known = true;
        }
        if (known) {
            /* Secure when the browser came over TLS: said by the
             * operator, or by a trusted proxy (X-Forwarded-Proto). */
            bool secure = gw.https || gw.secure_cookies || web_proxy_forwarded_https(wsi);
            char csrf[WEB_STORE_ID_HEX + 1];
            web_store_csrf(id, csrf);
            hlen = snprintf(headers, sizeof headers,
                            "Set-Cookie: " SESSION_COOKIE "=%s; Path=/; Max-Age=%d; HttpOnly; "
                            "SameSite=Strict%s\r\n"
                            "Set-Cookie: " CSRF_COOKIE "=%s; Path=/; Max-Age=%d; "
                            "SameSite=Strict%s\r\n",
                            id, WEB_STORE_MAX_AGE_S, secure ? "; Secure" : "",
                            csrf, WEB_STORE_MAX_AGE_S, secure ? "; Secure" : "");
        }
    }
    return lws_serve_http_file(wsi, gw.index_path, "text/html; charset=utf-8",
                               hlen > 0 ? headers : NULL, hlen) < 0 ? -1 : 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    conn *c = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        return serve_http(wsi);
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        char uri[64];
        if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || strcmp(uri, "/ws") != 0)
            return 1;
        if (!origin_allowed(wsi)) {
            lwsl_user("refused a WebSocket from a page on another site\n");
            web_counts.refused[WEB_REFUSED_ORIGIN]++;
            return 1;
        }
        char ip[64];
        web_client_address(wsi, ip, sizeof ip);
        address_count *a = address_find(ip, false);
        if (a && a->n >= gw.per_address) {
            lwsl_user("refused a WebSocket from %s: %d connections already\n", ip, a->n);
            web_counts.refused[WEB_REFUSED_PER_ADDRESS]++;
            return 1;
        }
        return 0;
    }
    case LWS_CALLBACK_ESTABLISHED: {
        memset(c, 0, sizeof *c);
        c->wsi = wsi;
        c->watch.wsi = wsi;
        web_client_address(wsi, c->ip, sizeof c->ip);
        address_count *a = address_find(c->ip, true);
        if (!a)
            return -1;
        a->n++;
        c->counted = true;
        /* The cookie session the page was given (serve_http): the
         * session thread checks it, off this thread. */
        char id[WEB_STORE_ID_HEX + 8];
        size_t id_len = sizeof id;
        bool have_id = gw.cfg.state_dir &&
                       lws_http_cookie_get(wsi, SESSION_COOKIE, id, &id_len) == 0;
        c->session = web_session_open(&gw.cfg, lws_get_context(wsi), have_id ? id : NULL,
                                      c->ip);
        if (!c->session)
            return -1;
        c->next = gw.conns;
        gw.conns = c;
        web_counts.browsers++;
        web_counts.connections++;
        return 0;
    }
    case LWS_CALLBACK_RECEIVE:
        return c->session ? on_receive(wsi, c, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return c->session ? on_writable(wsi, c) : -1;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        web_hub_pump();
        for (conn *k = gw.conns; k; k = k->next) {
            if (!k->cut_off && (k->watch.overflowed || web_session_overflowed(k->session))) {
                /* A browser that does not read never makes its socket
                 * writable again: drop it from here, with the reason if
                 * the socket still takes the close frame. */
                static const char why[] = "too slow: the browser did not read its messages";
                k->cut_off = true;
                if (!k->watch.overflowed)
                    web_counts.refused[WEB_REFUSED_SLOW]++;
                lwsl_user("cut off the browser at %s: %s\n", k->ip, why);
                lws_close_reason(k->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION,
                                 (unsigned char *)why, sizeof why - 1);
                lws_set_timeout(k->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
                continue;
            }
            if (k->rx_paused && web_session_inbox_room(k->session)) {
                k->rx_paused = false;
                lws_rx_flow_control(k->wsi, 1);
            }
            lws_callback_on_writable(k->wsi);
        }
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (c->counted)
            address_release(c->ip);
        c->counted = false;
        web_hub_unwatch(&c->watch);
        if (c->session) {
            web_counts.browsers--;
            conn_unlink(c);
            web_session_close(c->session);
            c->session = NULL;
        }
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols protocols[] = {
    {"sungka", callback, sizeof(conn), WEB_MAX_COMMAND, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* The headers every response carries. */
static const struct lws_protocol_vhost_options header_referrer = {
    NULL, NULL, "Referrer-Policy:", "no-referrer"};
static const struct lws_protocol_vhost_options header_frames = {
    &header_referrer, NULL, "X-Frame-Options:", "DENY"};
static const struct lws_protocol_vhost_options header_nosniff = {
    &header_frames, NULL, "X-Content-Type-Options:", "nosniff"};
static const struct lws_protocol_vhost_options header_csp = {
    &header_nosniff, NULL, "Content-Security-Policy:",
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: sungka-web --listen HOST:PORT --server HOST:PORT [OPTION]...\n"
            "Play and watch Sungka in a web browser: serves the web app and speaks to the\n"
            "board service for each browser that plays, as a player agent of its own (the\n"
            "browsers watching a game share one observer).\n"
            "\n"
            "  -l, --listen HOST:PORT      where browsers connect (port 0: any free port);\n"
            "                              the line \"listening on HOST:PORT\" says which\n"
            "  -s, --server HOST:PORT      the board service (sungka-board) to play on\n"
            "      --tls                   speak TLS to the board service\n"
            "      --tls-ca FILE           ...verifying its certificate against this CA (a\n"
            "                              service's own --tls-self-signed certificate will do)\n"
            "      --https-cert FILE       serve browsers over HTTPS and wss:// with this PEM\n"
            "                              certificate (the session cookies are then Secure)\n"
            "      --https-key FILE        ...and its private key\n"
            "      --https-self-signed     serve browsers over HTTPS with a certificate of the\n"
            "                              gateway's own, made once and kept in the state\n"
            "                              directory (https/; its fingerprint is logged):\n"
            "                              browsers warn until it is trusted\n"
            "      --web-root DIR          the web app's files (default: the copy installed\n"
            "                              beside the program, ../share/sungka/web)\n"
            "      --max-per-address N     browser connections from one address (default %d)\n"
            "      --trusted-proxy ADDR[/PREFIX]\n"
            "                              a reverse proxy in front of the gateway (an\n"
            "                              address or a network; repeatable): from it, the\n"
            "                              last address in X-Forwarded-For is the browser's,\n"
            "                              for --max-per-address and the logs; from anyone\n"
            "                              else that header is ignored\n"
            "      --metrics HOST:PORT     serve metrics in Prometheus's text format at\n"
            "                              http://HOST:PORT/metrics (plain HTTP, apart from\n"
            "                              the browsers' port: keep it on loopback or an\n"
            "                              operators' network)\n"
            "      --relay-key FILE        the board service's relay key (its --relay-key):\n"
            "                              each browser's agent shows it and names the\n"
            "                              browser's address, so the service counts its\n"
            "                              limits per browser, not all against the gateway\n"
            "      --config FILE           read settings from FILE (default\n"
            "                              " DEFAULT_CONFIG " when it exists): an INI file\n"
            "                              whose [web] keys are these long options without\n"
            "                              their dashes; options on the command line override\n"
            "                              it; SIGHUP reads it again (--max-per-address,\n"
            "                              --sessions-per-address and --trusted-proxy change\n"
            "                              at once, the rest at a restart)\n"
            "      --state-dir DIR         where each browser's session is kept (its seat\n"
            "                              tokens and sign-in), so a reload or a restart of\n"
            "                              the gateway finds its game again (default: the\n"
            "                              XDG state directory's sungka/web)\n"
            "      --no-state              keep no browser sessions: a browser's seat and\n"
            "                              sign-in last as long as its connection\n"
            "      --secure-cookies        mark the session cookies Secure (when browsers\n"
            "                              reach the gateway through an https proxy)\n"
            "      --sessions-per-address N  new browser sessions kept for one address an\n"
            "                              hour (default %d; past it, its pages play as\n"
            "                              guests whose seats end with the connection)\n"
            "  -h, --help                  show this help and exit\n"
            "      --version               show the version and exit\n"
            "\n"
            "Open http://HOST:PORT/ in a browser for the lobby; http://HOST:PORT/game/ID\n"
            "watches game ID, http://HOST:PORT/tournament/ID shows tournament ID. The\n"
            "browser's messages are described in docs/web-protocol.md.\n",
            DEFAULT_PER_ADDRESS, DEFAULT_SESSIONS_PER_ADDRESS);
}

static void stop_web(void *arg)
{
    (void)arg;
    stopping = 1;
}

/* A host name ("localhost") as the address libwebsockets binds to, which
 * takes addresses and interface names only: into out; -1 when unknown. */
static int numeric_host(const char *host, char *out, size_t len)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE};
    struct addrinfo *res = NULL;
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
        return -1;
    int rc = getnameinfo(res->ai_addr, res->ai_addrlen, out, (socklen_t)len, NULL, 0,
                         NI_NUMERICHOST);
    freeaddrinfo(res);
    return rc == 0 ? 0 : -1;
}

/* "host:port" into host and port; -1 when it is not that. */
static int split_address(const char *text, char *host, size_t hostlen, int *port)
{
    const char *colon = strrchr(text, ':');
    if (!colon || colon == text || (size_t)(colon - text) >= hostlen)
        return -1;
    char *end;
    errno = 0;
    long p = strtol(colon + 1, &end, 10);
    if (errno || *end || end == colon + 1 || p < 0 || p > 65535)
        return -1;
    const char *start = text;
    size_t n = (size_t)(colon - text);
    if (n >= 2 && text[0] == '[' && text[n - 1] == ']') {   /* "[::1]:8080" */
        start++;
        n -= 2;
    }
    memcpy(host, start, n);
    host[n] = '\0';
    *port = (int)p;
    return 0;
}

enum { OPT_TLS = 1000, OPT_TLS_CA, OPT_WEB_ROOT, OPT_PER_ADDRESS, OPT_VERSION, OPT_TRUSTED_PROXY,
       OPT_METRICS, OPT_CONFIG, OPT_RELAY_KEY, OPT_STATE_DIR, OPT_NO_STATE, OPT_SECURE_COOKIES,
       OPT_SESSIONS_PER_ADDRESS, OPT_HTTPS_CERT, OPT_HTTPS_KEY, OPT_HTTPS_SELF_SIGNED };

static const struct option longopts[] = {
    {"listen", required_argument, NULL, 'l'},
    {"server", required_argument, NULL, 's'},
    {"tls", no_argument, NULL, OPT_TLS},
    {"tls-ca", required_argument, NULL, OPT_TLS_CA},
    {"web-root", required_argument, NULL, OPT_WEB_ROOT},
    {"max-per-address", required_argument, NULL, OPT_PER_ADDRESS},
    {"trusted-proxy", required_argument, NULL, OPT_TRUSTED_PROXY},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"relay-key", required_argument, NULL, OPT_RELAY_KEY},
    {"state-dir", required_argument, NULL, OPT_STATE_DIR},
    {"no-state", no_argument, NULL, OPT_NO_STATE},
    {"secure-cookies", no_argument, NULL, OPT_SECURE_COOKIES},
    {"sessions-per-address", required_argument, NULL, OPT_SESSIONS_PER_ADDRESS},
    {"https-cert", required_argument, NULL, OPT_HTTPS_CERT},
    {"https-key", required_argument, NULL, OPT_HTTPS_KEY},
    {"https-self-signed", no_argument, NULL, OPT_HTTPS_SELF_SIGNED},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* Keys a file may not hold: things to do, and the file itself. */
static const int not_settings[] = {'h', OPT_VERSION, OPT_CONFIG};

/* The settings, from the file and the command line (web_settings_*). The
 * trusted proxies go to web_proxy's staged list (web_proxy.h). */
typedef struct settings {
    server_settings common;        /* first: --help, --version, --config, the file's strings
                                      (which these point into) */
    const char *listen, *server, *tls_ca, *web_root, *metrics, *relay_key, *state_dir;
    const char *https_cert, *https_key;
    bool tls, no_state, secure_cookies, https_self_signed;
    int per_address, sessions_per_address;
} settings;

/* One option, from the command line or the file (config_apply_fn). */
static int apply_option(void *user, int c, const char *name, const char *value, char *err,
                        size_t errlen)
{
    settings *st = user;
    (void)name;
    switch (c) {
    case 'l': st->listen = value; break;
    case 's': st->server = value; break;
    case OPT_TLS: st->tls = true; break;
    case OPT_TLS_CA: st->tls_ca = value; break;
    case OPT_WEB_ROOT: st->web_root = value; break;
    case OPT_PER_ADDRESS:
        return option_number_says(value, 1, 100000, &st->per_address, err, errlen);
    case OPT_TRUSTED_PROXY: return web_proxy_add(value, err, errlen);
    case OPT_METRICS: st->metrics = value; break;
    case OPT_CONFIG: st->common.config = value; break;
    case OPT_RELAY_KEY: st->relay_key = value; break;
    case OPT_STATE_DIR: st->state_dir = value; break;
    case OPT_NO_STATE: st->no_state = true; break;
    case OPT_SECURE_COOKIES: st->secure_cookies = true; break;
    case OPT_HTTPS_CERT: st->https_cert = value; break;
    case OPT_HTTPS_KEY: st->https_key = value; break;
    case OPT_HTTPS_SELF_SIGNED: st->https_self_signed = true; break;
    case OPT_SESSIONS_PER_ADDRESS:
        return option_number_says(value, 1, 1000000, &st->sessions_per_address, err, errlen);
    case 'h': st->common.help = true; break;
    case OPT_VERSION: st->common.version = true; break;
    default:
        snprintf(err, errlen, "is not an option");
        return -1;
    }
    return 0;
}

/* Fresh settings: the defaults, and no trusted proxy staged. */
static void defaults(void *settings_)
{
    settings *st = settings_;
    st->per_address = DEFAULT_PER_ADDRESS;
    st->sessions_per_address = DEFAULT_SESSIONS_PER_ADDRESS;
    web_proxy_discard();
}

/* A reload's lines in the gateway's log. */
static void say(int level, const char *text)
{
    (void)level;
    lwsl_user("%s\n", text);
}

/* The command line and the configuration file (server_main.h). */
static const server_program program = {
    .name = "sungka-web", .section = "web", .default_config = DEFAULT_CONFIG,
    .shortopts = "l:s:h", .longopts = longopts, .not_settings = not_settings,
    .n_not_settings = sizeof not_settings / sizeof not_settings[0], .usage = usage,
    .apply = apply_option, .size = sizeof(settings), .defaults = defaults,
    .discard = web_proxy_discard, .say = say,
};

static volatile sig_atomic_t reload_wanted;

static void want_reload(void *arg)
{
    (void)arg;
    reload_wanted = 1;
}

/* SIGHUP: the file and the command line read again. The limit per address
 * and the trusted proxies change at once; the rest is kept until a
 * restart (the log line says so). A file with a mistake changes nothing. */
static void reload(const char *file, int argc, char **argv)
{
    server_notify_reloading();
    settings st;
    if (server_settings_reload(&program, file, argc, argv, &st) == 0) {
        /* Numbers and parsed addresses only: the running settings'
         * strings stay the first reading's (gw.cfg points into them). */
        gw.per_address = st.per_address;
        gw.sessions_per_address = st.sessions_per_address;
        int proxies = web_proxy_commit();
        server_settings_free(&st);
        lwsl_user("reloaded %s: max-per-address %d, sessions-per-address %d, %d trusted "
                  "proxies; other settings change at a restart\n", file, gw.per_address,
                  gw.sessions_per_address, proxies);
    }
    server_notify_ready();
}

int main(int argc, char **argv)
{
    settings st;
    const char *file;
    int rc = server_main_settings(&program, argc, argv, &st, &file);
    if (rc >= 0)
        return rc;
    char err[1024];
    web_proxy_commit();
    /* The file's strings stay for the program's life (gw.cfg points into
     * them). */
    config_values *kept = st.common.file_values;
    const char *listen = st.listen, *web_root = st.web_root, *metrics = st.metrics;
    gw.cfg.server = st.server;
    gw.cfg.tls = st.tls;
    gw.cfg.tls_ca = st.tls_ca;
    gw.per_address = st.per_address;
    gw.sessions_per_address = st.sessions_per_address;
    gw.secure_cookies = st.secure_cookies;
    const char *https_cert = st.https_cert, *https_key = st.https_key;
    bool https_self_signed = st.https_self_signed;
    const char *state_dir = st.state_dir;
    bool no_state = st.no_state;
    if (st.relay_key) {
        if (relay_key_load(st.relay_key, gw.relay_key, err, sizeof err) != 0) {
            fprintf(stderr, "sungka-web: %s\n", err);
            config_values_free(kept);
            return 1;
        }
        gw.cfg.relay_key = gw.relay_key;
    }
    char host[256];
    int port;
    if (!listen || !gw.cfg.server) {
        fprintf(stderr, "sungka-web: say where browsers connect (--listen HOST:PORT) and which "
                        "board service to play on (--server HOST:PORT)\n");
        return 2;
    }
    if (split_address(listen, host, sizeof host, &port) != 0) {
        fprintf(stderr, "sungka-web: --listen wants HOST:PORT (like 127.0.0.1:8080), not '%s'\n",
                listen);
        return 2;
    }
    if (gw.cfg.tls_ca)
        gw.cfg.tls = true;
    agent_config tls_files = {.server = gw.cfg.server, .tls = gw.cfg.tls,
                              .tls_ca = gw.cfg.tls_ca};
    if (agent_check_tls(&tls_files, err, sizeof err) != 0) {
        fprintf(stderr, "sungka-web: %s\n", err);
        return 1;
    }
    char bind_host[256];
    if (numeric_host(host, bind_host, sizeof bind_host) != 0) {
        fprintf(stderr, "sungka-web: cannot listen on %s: no such host name or address\n",
                listen);
        return 2;
    }
    char metrics_host[256], metrics_bind[256];
    int metrics_port = 0;
    if (metrics && (split_address(metrics, metrics_host, sizeof metrics_host, &metrics_port) != 0 ||
                    numeric_host(metrics_host, metrics_bind, sizeof metrics_bind) != 0)) {
        fprintf(stderr, "sungka-web: --metrics wants HOST:PORT of this machine (like "
                        "127.0.0.1:9180), not '%s'\n", metrics);
        return 2;
    }
    char root[PATH_MAX];
    if (web_root) {
        snprintf(root, sizeof root, "%s", web_root);
    } else {
        /* Beside the program: build/bin/../share/sungka/web in the build
         * tree, /usr/bin/../share/sungka/web once installed. */
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n < 0) {
            fprintf(stderr, "sungka-web: cannot tell where this program is (%s); say where the "
                            "web app is with --web-root DIR\n", strerror(errno));
            return 1;
        }
        exe[n] = '\0';
        snprintf(root, sizeof root, "%s/%s", dirname(exe), SUNGKA_WEB_FROM_BINDIR);
    }
    char real_root[PATH_MAX];
    if (!realpath(root, real_root)) {
        fprintf(stderr, "sungka-web: the web app's directory %s cannot be read (%s); say where "
                        "it is with --web-root DIR\n", root, strerror(errno));
        return 1;
    }
    snprintf(gw.root, sizeof gw.root, "%s", real_root);
    snprintf(gw.index_path, sizeof gw.index_path, "%.*s/index.html", PATH_MAX - 12, real_root);
    if (access(gw.index_path, R_OK) != 0) {
        fprintf(stderr, "sungka-web: %s has no index.html: it is not the web app's directory "
                        "(--web-root)\n", real_root);
        return 1;
    }

    static char state_path[PATH_MAX];
    if (state_dir && no_state) {
        fprintf(stderr, "sungka-web: --state-dir and --no-state contradict each other: "
                        "give one\n");
        return 2;
    }
    if (!no_state) {
        if (state_dir) {
            snprintf(state_path, sizeof state_path, "%s", state_dir);
        } else if (xdg_sungka_dir(XDG_STATE, true, state_path, sizeof state_path - 8) != 0) {
            fprintf(stderr, "sungka-web: there is no state directory for the browsers' "
                            "sessions (%s); say where with --state-dir DIR, or --no-state\n",
                            strerror(errno));
            return 1;
        } else {
            strcat(state_path, "/web");
        }
        if (web_store_open(state_path, err, sizeof err) != 0) {
            fprintf(stderr, "sungka-web: %s; say where with --state-dir DIR, or --no-state\n",
                    err);
            return 1;
        }
        gw.cfg.state_dir = state_path;
    }

    /* Browsers over TLS: the operator's pair, or our own kept beside the
     * browsers' sessions. */
    static self_signed_pair https_pair;
    if (https_self_signed && (https_cert || https_key)) {
        fprintf(stderr, "sungka-web: --https-self-signed makes its own certificate: give it or "
                        "--https-cert and --https-key, not both\n");
        return 2;
    }
    if (!https_cert != !https_key) {
        fprintf(stderr, "sungka-web: --https-cert and --https-key go together: the certificate "
                        "and its private key\n");
        return 2;
    }
    if (https_self_signed) {
        char dir[PATH_MAX + 8];
        if (no_state) {
            fprintf(stderr, "sungka-web: --https-self-signed keeps its certificate in the state "
                            "directory: drop --no-state, or give --https-cert and --https-key\n");
            return 2;
        }
        snprintf(dir, sizeof dir, "%s/https", state_path);
        if (self_signed_for_server(dir, listen, NULL, 0, &https_pair, err, sizeof err) != 0) {
            fprintf(stderr, "sungka-web: --https-self-signed: %s\n", err);
            return 1;
        }
        https_cert = https_pair.cert;
        https_key = https_pair.key;
        printf("sungka-web: HTTPS certificate %s (%s %s): browsers warn until it is trusted\n",
               https_pair.fingerprint, https_pair.made ? "made now:" : "kept in", https_pair.cert);
    }
    if (https_cert && (access(https_cert, R_OK) != 0 || access(https_key, R_OK) != 0)) {
        fprintf(stderr, "sungka-web: cannot read %s: %s (--https-cert, --https-key)\n",
                access(https_cert, R_OK) != 0 ? https_cert : https_key, strerror(errno));
        return 1;
    }
    gw.https = https_cert != NULL;

    lws_set_log_level(LLL_ERR | LLL_USER, NULL);
    /* Every request goes to serve_http, which serves the app's page with
     * its cookies, and its two files by name. */
    static struct lws_http_mount files = {
        .mountpoint = "/", .origin = "sungka", .origin_protocol = LWSMPRO_CALLBACK,
        .mountpoint_len = 1};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = port;
    info.iface = bind_host;
    /* libwebsockets 4.1 binds an IPv6 socket to every address when given
     * an IPv4 one to listen on: an IPv4 address gets an IPv4 socket. */
    if (!strchr(bind_host, ':'))
        info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info.protocols = protocols;
    info.mounts = &files;
    info.headers = &header_csp;
    info.server_string = "sungka-web";
    if (gw.https) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = https_cert;
        info.ssl_private_key_filepath = https_key;
        /* HTTP/1.1 only: the page's own headers (its cookies) are written
         * for it, and a WebSocket is an HTTP/1.1 upgrade everywhere. */
        info.alpn = "http/1.1";
    }

    agent_library_init();
    struct lws_context *ctx = lws_create_context(&info);
    if (!ctx) {
        fprintf(stderr, "sungka-web: cannot listen on %s (is the address this machine's, and "
                        "the port free?)\n", listen);
        agent_library_shutdown();
        return 1;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(ctx, "default");
    int bound = vh ? lws_get_vhost_listen_port(vh) : -1;
    if (bound <= 0) {
        fprintf(stderr, "sungka-web: cannot listen on %s (is the address this machine's, and "
                        "the port free?)\n", listen);
        lws_context_destroy(ctx);
        agent_library_shutdown();
        return 1;
    }
    int metrics_bound = 0;
    if (metrics && web_metrics_listen(ctx, metrics_bind, metrics_port, &metrics_bound) != 0) {
        fprintf(stderr, "sungka-web: cannot serve metrics on %s (is the address this machine's, "
                        "and the port free?)\n", metrics);
        lws_context_destroy(ctx);
        agent_library_shutdown();
        return 1;
    }
    bool v6 = strchr(host, ':') != NULL;
    printf("sungka-web: listening on %s%s%s:%d, playing on %s; open %s://%s%s%s:%d/\n",
           v6 ? "[" : "", host, v6 ? "]" : "", bound, gw.cfg.server, gw.https ? "https" : "http",
           v6 ? "[" : "", host, v6 ? "]" : "", bound);
    if (metrics)
        printf("sungka-web: metrics at http://%s%s%s:%d/metrics\n",
               strchr(metrics_host, ':') ? "[" : "", metrics_host,
               strchr(metrics_host, ':') ? "]" : "", metrics_bound);
    fflush(stdout);

    server_stop_on_signals(stop_web, NULL);
    server_reload_on_sighup(want_reload, NULL);
    server_notify_ready();
    while (!stopping) {
        if (lws_service(ctx, 0) < 0)
            break;
        if (reload_wanted) {
            reload_wanted = 0;
            reload(file, argc, argv);
        }
    }
    server_notify_stopping();
    /* Closing every connection closes every session; then wait for their
     * threads, whose agents need the RPC layer until they end. */
    lws_context_destroy(ctx);
    web_hub_close_all();
    web_sessions_wait_all();
    web_lister_close();
    agent_library_shutdown();
    config_values_free(kept);
    explicit_bzero(gw.relay_key, sizeof gw.relay_key);
    return 0;
}
