/*
 * reconfigure.c — board_reconfigure (board.h): a running service takes new
 * settings on a reload (SIGHUP), as far as it safely can.
 *
 * One table names every setting of board_config by its option's name and
 * says whether a new value is taken live. Live means: read where it is
 * checked, on the loop thread, each time (svc->cfg.max_client_observers in
 * clients.c, ...), so that changing svc->cfg between two turns of the loop is
 * the whole change; what already holds keeps holding (a lower
 * --max-client-streams closes no stream; it refuses the next ones). Anything
 * sized, bound, opened or handed to another thread at start (the listener,
 * the store, the password workers, the rate tables, the watchdog's
 * --stall-limit) needs a restart, and the sentence says so. The TLS
 * certificate and key are read again at every reload (a renewed certificate
 * under the same names, or new names) and served from the next handshake
 * (rpc_server_reload_tls), once checked to belong together; turning TLS on or
 * off, a new --tls-client-ca, or a --tls-self-signed pair need a restart.
 * The strings taken are copied (reconf_strings), so the caller's may go.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_internal.h"
#include "rpc.h"
#include "self_signed.h"

enum kind { INT, BOOL, STRING, TLS };   /* TLS: reload_tls decides */

static const struct setting {
    const char *key;           /* the option's long name (config_file.h) */
    enum kind kind;
    size_t off;                /* in board_config */
    bool live;
    int own;                   /* live strings: 1 + their slot in reconf_strings */
} settings[] = {
#define S(key, kind, field, live) {key, kind, offsetof(board_config, field), live, 0}
    S("listen", STRING, listen, false),
    S("advertise", STRING, advertise, false),
    S("ping-interval", INT, ping_interval_ms, false),
    S("ping-timeout", INT, ping_timeout_ms, false),
    S("grace", INT, grace_ms, false),
    S("first-move-time", INT, first_move_ms, false),
    S("max-games", INT, max_games, true),
    S("max-games-per-client", INT, max_games_per_client, true),
    S("max-participants", INT, max_participants, true),
    S("max-message", INT, max_message_bytes, false),
    S("max-request", INT, max_request_bytes, false),
    S("max-streams", INT, max_streams, false),
    S("chat-length", INT, chat_length, true),
    S("chat-rate", INT, chat_rate, true),
    S("move-rate", INT, move_rate, true),
    S("presence-events", INT, presence_events, false),
    S("max-client-streams", INT, max_client_streams, true),
    S("max-client-observers", INT, max_client_observers, true),
    S("client-join-rate", INT, client_join_rate, true),
    S("client-chat-rate", INT, client_chat_rate, true),
    S("client-pairings", INT, client_pairings, true),
    S("max-pool", INT, max_pool, true),
    S("tournaments", INT, tournaments, true),
    S("max-tournaments", INT, max_tournaments, true),
    S("client-tournaments", INT, client_tournaments, true),
    S("max-tournament-players", INT, max_tournament_players, true),
    S("ipv6-prefix", INT, ipv6_prefix, false),     /* the clients' keys are made with it */
    S("bot-think", INT, bot_think_ms, false),
    S("analysis", BOOL, analysis_off, false),
    S("analysis-depth", INT, analysis_depth, false),
    S("analysis-time", INT, analysis_time_ms, false),
    S("analysis-queue", INT, analysis_queue, false),
    S("rated-min-moves", INT, rated_min_moves, false),
    S("rated-pair-games", INT, rated_pair_games, false),
    S("rated-same-address", BOOL, rated_same_address, false),
    S("require-accounts", BOOL, require_accounts, true),
    S("session-days", INT, session_days, false),
    S("max-account-sessions", INT, max_account_sessions, false),
    S("password-workers", INT, password_workers, false),
    S("password-queue", INT, password_queue, false),
    S("signin-failures", INT, signin_failures, false),
    S("client-signin-failures", INT, client_signin_failures, false),
    S("signin-rate", INT, signin_rate, false),
    S("client-signin-rate", INT, client_signin_rate, false),
    S("client-signin-jobs", INT, client_signin_jobs, false),
    S("client-registrations", INT, client_registrations, true),
    S("max-blocks", INT, max_blocks, true),
    S("report-rate", INT, report_rate, true),
    S("block-rate", INT, block_rate, true),
    S("client-lookups", INT, client_lookups, true),
    S("stall-limit", INT, stall_limit_ms, false),  /* the watchdog's thread reads it */
    S("max-health-watches", INT, max_health_watches, false),  /* rpc's side thread's cap */
    S("max-reflection-streams", INT, max_reflection_streams, false),     /* ...and this */
    S("tls-cert", TLS, tls_cert, false),
    S("tls-key", TLS, tls_key, false),
    S("tls-client-ca", STRING, tls_client_ca, false),
    S("db", STRING, db, false),
    S("lease", INT, lease_ms, false),
    {"relays", STRING, offsetof(board_config, relays), true, 1},
    S("relay-after", INT, relay_after, true),
    S("relay-key", STRING, relay_key, false),
    S("metrics", STRING, metrics, false),          /* its listener is bound at start */
    S("admin-token-file", STRING, admin_token_file, false),  /* read once, at start */
    S("verbose", BOOL, grpc_log, true),            /* main calls rpc_set_verbose */
#undef S
};

static bool same_string(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* A copy of s in svc's slot (1-based), the old one freed: what cfg keeps.
 * NULL when out of memory, and the old one stays. */
static const char *own(board_service *svc, int slot, const char *s)
{
    char *copy = s ? strdup(s) : NULL;
    if (s && !copy)
        return NULL;
    free(svc->reconf_strings[slot - 1]);
    svc->reconf_strings[slot - 1] = copy;
    return copy;
}

static void add(char *out, size_t len, const char *fmt, const char *key, const char *a,
                const char *b)
{
    size_t n = strlen(out);
    if (n < len)
        snprintf(out + n, len - n, fmt, key, a, b);
}

/* The certificate and key read again and served from the next handshake,
 * when TLS stays on with the same client CA (see the top of this file). */
static void reload_tls(board_service *svc, const board_config *next, char *changed,
                       size_t changedlen, char *restart, size_t restartlen)
{
    board_config *cur = &svc->cfg;
    const char *sep = changed[0] ? ", " : "";
    if (!cur->tls_cert != !next->tls_cert) {
        add(restart, restartlen, "%s%s%s", restart[0] ? ", " : "",
            cur->tls_cert ? "tls-cert (TLS off)" : "tls-cert (TLS on)", "");
        return;
    }
    if (!cur->tls_cert || !svc->server || !same_string(cur->tls_client_ca, next->tls_client_ca))
        return;                /* plaintext; or the CA's own line says it */
    if (cur->tls_self_signed) {
        if (!same_string(cur->tls_cert, next->tls_cert))
            add(restart, restartlen, "%s%s%s", restart[0] ? ", " : "", "tls-cert", "");
        return;
    }
    char why[512];
    rpc_tls_files files = {next->tls_cert, next->tls_key, cur->tls_client_ca};
    if (self_signed_check_pair(next->tls_cert, next->tls_key, why, sizeof why) != 0) {
        add(changed, changedlen, "%sthe TLS certificate is not reloaded, the old one is "
                                 "served: %s%s", sep, why, "");
        return;
    }
    if (rpc_server_reload_tls(svc->server, &files) != 0) {
        add(changed, changedlen, "%sthe TLS certificate is not reloaded, the old one is "
                                 "served: cannot read %s%s", sep, next->tls_cert, "");
        return;
    }
    const char *cert = own(svc, 2, next->tls_cert), *key = own(svc, 3, next->tls_key);
    if (cert)                  /* out of memory: the old name, still valid */
        cur->tls_cert = cert;
    if (key)
        cur->tls_key = key;
    add(changed, changedlen, "%sTLS certificate %s reloaded (new connections)%s", sep,
        next->tls_cert, "");
}

void board_reconfigure(board_service *svc, const board_config *next_in, char *said,
                       size_t saidlen)
{
    board_config next = *next_in;
    board_config_defaults(&next);
    char changed[1024] = "", restart[1024] = "";
    char *cur = (char *)&svc->cfg;
    const char *new = (const char *)&next;
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        const struct setting *s = &settings[i];
        char was[64], now[64];
        const char *a = was, *b = now;
        bool same;
        switch (s->kind) {
        case INT: {
            int x, y;
            memcpy(&x, cur + s->off, sizeof x);
            memcpy(&y, new + s->off, sizeof y);
            same = x == y;
            snprintf(was, sizeof was, "%d", x);
            snprintf(now, sizeof now, "%d", y);
            break;
        }
        case BOOL: {
            bool x, y;
            memcpy(&x, cur + s->off, sizeof x);
            memcpy(&y, new + s->off, sizeof y);
            same = x == y;
            a = x ? "on" : "off";
            b = y ? "on" : "off";
            break;
        }
        default: {
            const char *x, *y;
            memcpy(&x, cur + s->off, sizeof x);
            memcpy(&y, new + s->off, sizeof y);
            same = same_string(x, y);
            a = x && x[0] ? x : "none";
            b = y && y[0] ? y : "none";
            if (s->kind == TLS) {
                same = true;   /* reload_tls */
            } else if (s->live && !same) {
                const char *copy = own(svc, s->own, y);
                if (y && !copy)
                    same = true;       /* out of memory: keep the old value */
                else
                    memcpy(cur + s->off, &copy, sizeof copy);
            }
            break;
        }
        }
        if (same)
            continue;
        if (!s->live) {
            add(restart, sizeof restart, "%s%s%s", restart[0] ? ", " : "", s->key, "");
            continue;
        }
        if (s->kind == INT)
            memcpy(cur + s->off, new + s->off, sizeof(int));
        else if (s->kind == BOOL)
            memcpy(cur + s->off, new + s->off, sizeof(bool));
        add(changed, sizeof changed, changed[0] ? ", %s %s -> %s" : "%s %s -> %s", s->key, a,
            b);
    }
    reload_tls(svc, &next, changed, sizeof changed, restart, sizeof restart);
    if (svc->cfg.quiet != next.quiet) {
        svc->cfg.quiet = next.quiet;
        atomic_store(&svc->quiet, next.quiet);
        add(changed, sizeof changed, changed[0] ? ", %s %s -> %s" : "%s %s -> %s", "quiet",
            next.quiet ? "off" : "on", next.quiet ? "on" : "off");
    }
    snprintf(said, saidlen, "%s%s%s", changed[0] ? changed : "no setting changed",
             restart[0] ? "; changed, but they need a restart: " : "", restart);
}
