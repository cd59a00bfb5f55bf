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
 * the store, TLS, the password workers, the rate tables, the watchdog's
 * --stall-limit) needs a restart, and the sentence says so.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "board_internal.h"

enum kind { INT, BOOL, STRING };

static const struct setting {
    const char *key;           /* the option's long name (config_file.h) */
    enum kind kind;
    size_t off;                /* in board_config */
    bool live;
} settings[] = {
#define S(key, kind, field, live) {key, kind, offsetof(board_config, field), live}
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
    S("ipv6-prefix", INT, ipv6_prefix, false),     /* the clients' keys are made with it */
    S("bot-think", INT, bot_think_ms, false),
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
    S("client-lookups", INT, client_lookups, true),
    S("stall-limit", INT, stall_limit_ms, false),  /* the watchdog's thread reads it */
    S("tls-cert", STRING, tls_cert, false),
    S("tls-key", STRING, tls_key, false),
    S("tls-client-ca", STRING, tls_client_ca, false),
    S("db", STRING, db, false),
    S("lease", INT, lease_ms, false),
    S("relays", STRING, relays, true),
    S("relay-after", INT, relay_after, true),
    S("relay-key", STRING, relay_key, false),
    S("verbose", BOOL, grpc_log, true),            /* main calls rpc_set_verbose */
#undef S
};

static bool same_string(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static void add(char *out, size_t len, const char *fmt, const char *key, const char *a,
                const char *b)
{
    size_t n = strlen(out);
    if (n < len)
        snprintf(out + n, len - n, fmt, key, a, b);
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
            if (s->live)       /* also when equal: the caller frees the old strings */
                memcpy(cur + s->off, &y, sizeof y);
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
    if (svc->cfg.quiet != next.quiet) {
        svc->cfg.quiet = next.quiet;
        atomic_store(&svc->quiet, next.quiet);
        add(changed, sizeof changed, changed[0] ? ", %s %s -> %s" : "%s %s -> %s", "quiet",
            next.quiet ? "off" : "on", next.quiet ? "on" : "off");
    }
    snprintf(said, saidlen, "%s%s%s", changed[0] ? changed : "no setting changed",
             restart[0] ? "; changed, but they need a restart: " : "", restart);
}
