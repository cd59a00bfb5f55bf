/*
 * relay_reconfigure.c — relay_reconfigure (relay.h): a running relay takes
 * new settings on a reload (SIGHUP), as far as it safely can; the board
 * service's reconfigure.c is the model.
 *
 * One table names every setting of relay_config by its option's name and
 * says whether a new value is taken live. Live means: read where it is
 * checked, on the loop thread, each time (r->cfg.max_client_observers in
 * relay_clients.c, r->cfg.max_games in relay.c, ...), so that changing
 * r->cfg between two turns of the loop is the whole change; what already
 * holds keeps holding (a lower --max-client-streams closes no stream; it
 * refuses the next ones). The log (--quiet, --verbose) is taken too. The TLS
 * certificate and key are read again at every reload and served from the
 * next handshake (rpc_server_reload_tls), once checked to belong together.
 * Everything bound, opened or handed to another thread at start (the
 * listener, the upstream channels and their TLS, the relay key, the metrics
 * listener, the address keys' IPv6 prefix) needs a restart, and the
 * sentence says so. The upstream list is among them: every feed holds a
 * stream on a channel of the pool made from it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_line.h"
#include "relay_internal.h"
#include "self_signed.h"

enum kind { INT, BOOL, STRING, TLS };   /* TLS: reload_tls decides */

static const struct setting {
    const char *key;           /* the option's long name (config_file.h) */
    enum kind kind;
    size_t off;                /* in relay_config */
    bool live;
} settings[] = {
#define S(key, kind, field, live) {key, kind, offsetof(relay_config, field), live}
    S("listen", STRING, listen, false),
    S("advertise", STRING, advertise, false),
    S("upstream", STRING, upstream, false),
    S("max-games", INT, max_games, true),
    S("max-observers", INT, max_observers, true),
    S("max-streams", INT, max_streams, false),    /* a channel argument of the listener */
    S("max-client-observers", INT, max_client_observers, true),
    S("max-client-streams", INT, max_client_streams, true),
    S("client-join-rate", INT, client_join_rate, true),
    S("ipv6-prefix", INT, ipv6_prefix, false),    /* the observers' keys are made with it */
    S("relay-key", STRING, relay_key, false),
    S("metrics", STRING, metrics, false),         /* its listener is bound at start */
    S("tls-cert", TLS, tls_cert, false),
    S("tls-key", TLS, tls_key, false),
    S("upstream-tls", BOOL, upstream_tls, false),
    S("upstream-ca", STRING, upstream_ca, false),
    S("upstream-name", STRING, upstream_name, false),
    S("verbose", BOOL, grpc_log, true),            /* main calls rpc_set_verbose */
#undef S
};

static bool same_string(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static void add(char *out, size_t len, const char *fmt, const char *a, const char *b,
                const char *c)
{
    size_t n = strlen(out);
    if (n < len)
        snprintf(out + n, len - n, fmt, a, b, c);
}

/* The certificate and key read again and served from the next handshake,
 * when TLS stays on. */
static void reload_tls(relay *r, const relay_config *next, char *changed, size_t changedlen,
                       char *restart, size_t restartlen)
{
    relay_config *cur = &r->cfg;
    const char *sep = changed[0] ? ", " : "";
    if (!cur->tls_cert != !next->tls_cert) {
        add(restart, restartlen, "%s%s%s", restart[0] ? ", " : "",
            cur->tls_cert ? "tls-cert (TLS off)" : "tls-cert (TLS on)", "");
        return;
    }
    if (!cur->tls_cert)
        return;
    char why[512];
    rpc_tls_files files = {next->tls_cert, next->tls_key, NULL};
    if (!next->tls_key || self_signed_check_pair(next->tls_cert, next->tls_key, why,
                                                 sizeof why) != 0) {
        add(changed, changedlen, "%sthe TLS certificate is not reloaded, the old one is "
                                 "served: %s%s", sep,
            next->tls_key ? why : "TLS needs both --tls-cert and --tls-key", "");
        return;
    }
    if (rpc_server_reload_tls(r->server, &files) != 0) {
        add(changed, changedlen, "%sthe TLS certificate is not reloaded, the old one is "
                                 "served: cannot read %s%s", sep, next->tls_cert, "");
        return;
    }
    char *cert = strdup(next->tls_cert), *key = strdup(next->tls_key);
    if (cert && key) {          /* out of memory: the old names, still valid */
        free(r->own[0]);
        free(r->own[1]);
        r->own[0] = cert;
        r->own[1] = key;
        cur->tls_cert = cert;
        cur->tls_key = key;
    } else {
        free(cert);
        free(key);
    }
    add(changed, changedlen, "%sTLS certificate %s reloaded (new connections)%s", sep,
        next->tls_cert, "");
}

void relay_reconfigure(relay *r, const relay_config *next_in, char *said, size_t saidlen)
{
    relay_config next = *next_in;
    relay__config_defaults(&next);
    char changed[1024] = "", restart[512] = "";
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        const struct setting *s = &settings[i];
        char *cur = (char *)&r->cfg + s->off;
        const char *nxt = (const char *)&next + s->off;
        char was[32], now[32];
        bool same;
        switch (s->kind) {
        case INT:
            same = *(int *)cur == *(const int *)nxt;
            snprintf(was, sizeof was, "%d", *(int *)cur);
            snprintf(now, sizeof now, "%d", *(const int *)nxt);
            break;
        case BOOL:
            same = *(bool *)cur == *(const bool *)nxt;
            snprintf(was, sizeof was, "%s", *(bool *)cur ? "on" : "off");
            snprintf(now, sizeof now, "%s", *(const bool *)nxt ? "on" : "off");
            break;
        case TLS:
            same = true;               /* reload_tls */
            break;
        default:
            same = same_string(*(const char **)cur, *(const char *const *)nxt);
            break;
        }
        if (same)
            continue;
        if (!s->live) {
            add(restart, sizeof restart, "%s%s%s", restart[0] ? ", " : "", s->key, "");
            continue;
        }
        add(changed, sizeof changed, "%s%s %s", changed[0] ? ", " : "", s->key, "");
        add(changed, sizeof changed, "%s -> %s%s", was, now, "");
        if (s->kind == INT)
            *(int *)cur = *(const int *)nxt;
        else
            *(bool *)cur = *(const bool *)nxt;   /* the live ones are numbers and flags */
    }
    if (!r->cfg.log != !next.log) {
        add(changed, sizeof changed, "%s%s%s", changed[0] ? ", " : "",
            next.log ? "quiet off" : "quiet on", "");
        r->cfg.log = next.log;
        r->log_journal = log_line_to_journal(r->cfg.log);
    }
    reload_tls(r, &next, changed, sizeof changed, restart, sizeof restart);
    snprintf(said, saidlen, "%s%s%s%s", changed[0] ? changed : "nothing changed",
             restart[0] ? "; changed, but they need a restart: " : "", restart, "");
}
