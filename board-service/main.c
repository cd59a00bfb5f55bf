/*
 * main.c — `sungka-board`: the command line of the board service.
 * Parses options, starts the service, prints the bound address on one line
 * (tests and the player agent read it), and stops cleanly on SIGINT/SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "log_line.h"
#include "options.h"
#include "rpc.h"
#include "self_signed.h"
#include "server_main.h"
#include "store.h"
#include "version.h"
#include "xdg.h"

static void stop_board(void *svc)
{
    board_request_stop(svc);
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: sungka-board [OPTION]...\n"
            "Host Sungka games: players and observers join with sungka-player.\n"
            "\n"
            "  -l, --listen ADDR         address to listen on (default 127.0.0.1:7070;\n"
            "                            0.0.0.0:7070 for other machines; port 0 picks one)\n"
            "      --advertise HOST:PORT\n"
            "                            endpoint written into board references\n"
            "      --ping-interval SEC   seconds between pings to each player (default 2)\n"
            "      --ping-timeout SEC    unanswered seconds before a player is departed\n"
            "                            (default 10)\n"
            "      --grace SEC           seconds a departed player's seat is kept for their\n"
            "                            return before the game is abandoned (default 60)\n"
            "      --first-move-time SEC  games with clocks: seconds for each player's\n"
            "                            first move, or the game is aborted (default 30)\n"
            "      --max-games N         most games hosted at once (default 1000)\n"
            "      --max-games-per-client N  open games one client address may create\n"
            "                            (default 100)\n"
            "      --max-participants N  players and observers in one game (default 10000)\n"
            "      --max-message BYTES   largest reply or event (default 1048576)\n"
            "      --max-request BYTES   largest request (default 65536)\n"
            "      --max-streams N       concurrent calls per connection (default 64)\n"
            "      --chat-length BYTES   longest chat line (default 500); names are 1..32\n"
            "                            characters\n"
            "      --chat-rate N         chat lines per player per 5 seconds (default 5)\n"
            "      --move-rate N         moves per seat per second (default 200)\n"
            "      --presence-events N   a player's departures and returns logged per 10\n"
            "                            minutes; more are not logged (default 20)\n"
            "  Limits per client address, whatever names it uses:\n"
            "      --max-client-streams N    open event streams, each subscription of a\n"
            "                                SubscribeMany one (default 256)\n"
            "      --max-client-observers N  observer seats in all games (default 256)\n"
            "      --client-join-rate N      joins per second (default 20)\n"
            "      --client-chat-rate N      chat lines per 5 seconds (default 20)\n"
            "      --ipv6-prefix N           an IPv6 client's address is its first N bits:\n"
            "                                these limits hold per /N (default 64)\n"
            "      --bot-think MS        time per move of the bots games ask for (default 1000)\n"
            "      --tls-cert FILE       serve TLS with this PEM certificate chain...\n"
            "      --tls-key FILE        ...and its private key\n"
            "      --tls-client-ca FILE  also require client certificates signed by this CA\n"
            "      --tls-self-signed     serve TLS with a certificate of our own: made on the\n"
            "                            first start (a P-256 key and a self-signed\n"
            "                            certificate for this host's name, the --listen\n"
            "                            host, localhost, 127.0.0.1 and ::1), kept as\n"
            "                            tls-cert.pem and tls-key.pem beside the database\n"
            "                            file (with PostgreSQL, in the data directory)\n"
            "                            and reused; its SHA-256 fingerprint is logged at\n"
            "                            every start for players to compare (sungka-player\n"
            "                            --tls trusts it on first use)\n"
            "      --tls-name NAME       with --tls-self-signed: one more host name or IP\n"
            "                            address for a new certificate (repeatable)\n"
            "      --db PATH             the SQLite database of statistics, history and\n"
            "                            unfinished games (default\n"
            "                            $XDG_DATA_HOME/sungka/sungka.db; :memory: keeps\n"
            "                            nothing; \"\" disables it); or a PostgreSQL URI,\n"
            "                            postgresql://USER@HOST:PORT/DBNAME, which several\n"
            "                            services share as the nodes of a cluster (the\n"
            "                            database is made if it does not exist)\n"
            "      --lease SEC           a cluster node's lease on its games: when it stops\n"
            "                            renewing it, the others adopt them (default 10)\n"
            "      --cluster-status      list the cluster's nodes, their leases and games\n"
            "                            (--db postgresql://...) and exit\n"
            "      --relays HOST:PORT,...  sungka-relays: observers of a game watched by\n"
            "                            --relay-after or more are sent to them, in turn\n"
            "      --relay-after N       (default 100)\n"
            "      --relay-key FILE      the secret sungka-relays show (the same file, given\n"
            "                            to them with --relay-key): a relay's joins then\n"
            "                            count against its observers' addresses, not its own\n"
            "      --require-accounts    refuse guests: playing and creating games needs\n"
            "                            an account (sign in or create one)\n"
            "      --session-days N      a sign-in lasts N days (default 30)\n"
            "      --max-account-sessions N  sessions one account keeps (devices signed\n"
            "                            in); a sign-in beyond ends its oldest (default 20)\n"
            "      --password-workers N  threads hashing passwords (Argon2id, 64 MiB each;\n"
            "                            1..16, default 2)\n"
            "      --password-queue N    password checks that may wait for a thread; more\n"
            "                            are refused, \"busy\" (default 32)\n"
            "      --signin-failures N   failed sign-ins for one name per 5 minutes, from\n"
            "                            anywhere; then that name waits (default 5)\n"
            "      --client-signin-failures N  failed sign-ins one client address may make\n"
            "                            per 5 minutes, whatever the names (default 20)\n"
            "      --signin-rate N       password checks (sign-ins, right or wrong, and\n"
            "                            password changes) of one name per minute, from\n"
            "                            anywhere (default 20)\n"
            "      --client-signin-rate N  password checks (also accounts made) one client\n"
            "                            address may ask for per minute (default 60)\n"
            "      --client-signin-jobs N  password checks one client address may have\n"
            "                            waiting or hashing at once; addresses take turns\n"
            "                            on the workers (default 2)\n"
            "      --client-registrations N  accounts one client address may create in\n"
            "                            an hour (default 10)\n"
            "      --client-lookups N    a cluster: unknown seat tokens and game ids one\n"
            "                            client address may have looked up per second\n"
            "                            (default 50)\n"
            "      --stall-limit MS      health (grpc.health.v1, answered off the service's\n"
            "                            loop) says NOT_SERVING once the loop has not turned\n"
            "                            for MS milliseconds, e.g. waiting on a database\n"
            "                            that stopped answering; the log says so too\n"
            "                            (default 3000)\n"
            "      --rated-min-moves N   a rated game in which a player made fewer than N\n"
            "                            moves changes no rating (default 2; 0: any\n"
            "                            length counts)\n"
            "      --rated-pair-games N  rated games two accounts may play together in 24\n"
            "                            hours; more are played unrated (default 3; 0: no\n"
            "                            limit)\n"
            "      --rated-same-address  rate accounts whose seats were taken from one\n"
            "                            client address against each other (a club behind\n"
            "                            one router); by default such games are unrated\n"
            "      --check               check the database (SQLite's integrity_check) and\n"
            "                            exit: prints \"PATH: ok\" (status 0) or the\n"
            "                            problems (status 1); no service is started\n"
            "      --rating-report       print the pairs of accounts with the most rated\n"
            "                            games, the accounts whose rating points came mostly\n"
            "                            from one opponent, and the pairs whose games were\n"
            "                            not rated, from the database (--db), and exit\n"
            "  -q, --quiet               do not log games and players to stderr\n"
            "  -v, --verbose             also show gRPC's own log lines on stderr\n"
            "  -h, --help                show this help and exit\n"
            "      --version             show the version and exit\n"
            "\n"
            "On start it prints \"sungka-board listening on HOST:PORT\" on standard output.\n"
            "With --tls-self-signed, delete tls-cert.pem and tls-key.pem to make a new\n"
            "certificate (for new names, or a key that may have leaked): players who\n"
            "trusted the old one are then warned that it changed, and must accept it.\n");
}

/* Strict positive integer option: the whole string, in 1..max. */
static int parse_count(const char *opt, const char *s, int max, int *out)
{
    return option_number("sungka-board", opt, s, 1, max, out);
}

static void print_problem(void *user, const char *text)
{
    printf("%s: %s\n", (const char *)user, text);
}

/* --check: the database's own check, without a service (and its port).
 * The exit status: 0 sound, 1 damaged or unreadable, 2 no file given. */
static int check_database(const char *db)
{
    char path[1024], err[1024];
    if (db && (!db[0] || strcmp(db, ":memory:") == 0)) {
        fprintf(stderr, "sungka-board: --check needs a database file (--db PATH)\n");
        return 2;
    }
    if (!db && store_default_path(path, sizeof path) != 0) {
        fprintf(stderr, "sungka-board: cannot find the default database %s (use --db PATH)\n",
                path);
        return 1;
    }
    const char *file = db ? db : path;
    int rc = store_check(file, print_problem, (void *)file, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "sungka-board: %s\n", err);
    else if (rc == 0)
        printf("%s: ok\n", file);
    return rc == 0 ? 0 : 1;
}

/* --cluster-status: the nodes sharing the database, as the database sees
 * them. 0, or 1 when it cannot be read, 2 without a shared database. */
static int print_cluster(const char *db)
{
    if (!db || !store_path_is_shared(db)) {
        fprintf(stderr, "sungka-board: --cluster-status needs the cluster's database "
                        "(--db postgresql://...)\n");
        return 2;
    }
    store *s;
    char err[1024];
    if (store_open(db, &s, err, sizeof err) != 0) {
        fprintf(stderr, "sungka-board: %s\n", err);
        return 1;
    }
    store_node nodes[256];
    int n = 0;
    int rc = store_nodes(s, nodes, 256, &n);
    if (rc != 0)
        fprintf(stderr, "sungka-board: %s\n", store_last_error(s));
    printf("%-6s %-32s %-7s %-22s %s\n", "NODE", "ENDPOINT", "STATE", "LEASE", "GAMES");
    for (int i = 0; rc == 0 && i < n; i++) {
        char lease[32];
        int64_t left = nodes[i].lease_left_ms;
        snprintf(lease, sizeof lease, left >= 0 ? "%lld.%llds left" : "ended %lld.%llds ago",
                 (long long)(llabs(left) / 1000), (long long)(llabs(left) % 1000 / 100));
        printf("%-6lld %-32s %-7s %-22s %d\n", (long long)nodes[i].id, nodes[i].endpoint,
               left >= 0 ? "live" : "dead", lease, nodes[i].games);
    }
    store_close(s);
    return rc == 0 ? 0 : 1;
}

/* --rating-report: who plays whom rated, for an operator looking for
 * rating farming (docs/rules.md, "Ratings"). */
#define REPORT_ROWS 20
#define REPORT_SHARE 0.5     /* "mostly from one opponent": at least half the points */

static void print_pairs(const char *title, const store_pair_row *rows, int n)
{
    printf("%s\n", title);
    if (n == 0)
        printf("  (none)\n");
    for (int i = 0; i < n; i++)
        printf("  %-20s %-20s %6d\n", rows[i].a, rows[i].b, rows[i].games);
}

static int print_rating_report(const char *db)
{
    char path[1024], err[1024];
    if (db && (!db[0] || strcmp(db, ":memory:") == 0)) {
        fprintf(stderr, "sungka-board: --rating-report needs a database (--db PATH or a "
                        "postgresql:// URI)\n");
        return 2;
    }
    if (!db && store_default_path(path, sizeof path) != 0) {
        fprintf(stderr, "sungka-board: cannot find the default database %s (use --db PATH)\n",
                path);
        return 1;
    }
    store *s;
    if (store_open_readonly(db ? db : path, &s, err, sizeof err) != 0) {
        fprintf(stderr, "sungka-board: %s\n", err);
        return 1;
    }
    store_pair_row rows[REPORT_ROWS];
    int n = 0, rc = store_report_pairs(s, REPORT_ROWS, rows, &n);
    if (rc == 0)
        print_pairs("Pairs of accounts with the most rated games together (games):", rows, n);
    if (rc == 0)
        rc = store_report_one_opponent(s, REPORT_SHARE, REPORT_ROWS, rows, &n);
    if (rc == 0) {
        printf("\nAccounts that won at least half their rating points against one opponent "
               "(two-seat games):\n");
        if (n == 0)
            printf("  (none)\n");
        for (int i = 0; i < n; i++)
            printf("  %-20s %+7.0f of %+7.0f points from %-20s in %d won game%s\n", rows[i].a,
                   rows[i].gain, rows[i].total_gain, rows[i].b, rows[i].games,
                   rows[i].games == 1 ? "" : "s");
    }
    if (rc == 0)
        rc = store_report_refused(s, STORE_UNRATED_SAME_ADDRESS, REPORT_ROWS, rows, &n);
    if (rc == 0) {
        printf("\n");
        print_pairs("Pairs not rated: seats taken from the same address (games):", rows, n);
        rc = store_report_refused(s, STORE_UNRATED_PAIR_LIMIT, REPORT_ROWS, rows, &n);
    }
    if (rc == 0) {
        printf("\n");
        print_pairs("Pairs not rated: past their rated games of the day (games):", rows, n);
        rc = store_report_refused(s, STORE_UNRATED_TOO_SHORT, REPORT_ROWS, rows, &n);
    }
    if (rc == 0) {
        printf("\n");
        print_pairs("Pairs not rated: too short (games):", rows, n);
    }
    if (rc != 0)
        fprintf(stderr, "sungka-board: %s\n", store_last_error(s));
    store_close(s);
    return rc == 0 ? 0 : 1;
}

/* The host of "HOST:PORT" or "[V6]:PORT" into out, unless it is a wildcard
 * (0.0.0.0, ::), which names no host; "" then. */
static void listen_host(const char *listen, char *out, size_t len)
{
    const char *colon = strrchr(listen, ':');
    size_t n = colon ? (size_t)(colon - listen) : strlen(listen);
    if (n >= 2 && listen[0] == '[' && listen[n - 1] == ']') {
        listen++;
        n -= 2;
    }
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), listen);
    if (strcmp(out, "0.0.0.0") == 0 || strcmp(out, "::") == 0)
        out[0] = '\0';
}

/* --tls-self-signed: the names a new certificate carries (this host's
 * name first: the common name), its directory (the database's, else
 * Sungka's data directory), and cfg's TLS files pointed at the pair.
 * 0, or -1 with the sentence said. */
static int use_self_signed(board_config *cfg, const char *const *extra, size_t n_extra,
                           board_self_signed *ss)
{
    char host[256] = "", bound[256], dir[PATH_MAX], err[2048];
    const char *list[BOARD_TLS_MAX_NAMES + 6];
    size_t n = 0;
    if (gethostname(host, sizeof host - 1) == 0 && board_tls_name_ok(host))
        list[n++] = host;
    listen_host(cfg->listen ? cfg->listen : "127.0.0.1:7070", bound, sizeof bound);
    if (bound[0] && board_tls_name_ok(bound))
        list[n++] = bound;
    list[n++] = "localhost";
    list[n++] = "127.0.0.1";
    list[n++] = "::1";
    for (size_t i = 0; i < n_extra; i++)
        list[n++] = extra[i];
    /* Beside the database file; a shared database's nodes each keep their
     * own in their data directory. */
    if (cfg->db && cfg->db[0] && strcmp(cfg->db, ":memory:") != 0 &&
        !store_path_is_shared(cfg->db)) {
        char copy[PATH_MAX];
        snprintf(copy, sizeof copy, "%s", cfg->db);
        snprintf(dir, sizeof dir, "%s", dirname(copy));
    } else if (xdg_sungka_dir(XDG_DATA, true, dir, sizeof dir) != 0) {
        fprintf(stderr, "sungka-board: cannot find a directory for the TLS certificate "
                        "(no home directory?); use --tls-cert and --tls-key\n");
        return -1;
    }
    if (board_self_signed_ensure(dir, list, n, ss, err, sizeof err) != 0) {
        fprintf(stderr, "sungka-board: --tls-self-signed: %s\n", err);
        return -1;
    }
    cfg->tls_cert = ss->cert;
    cfg->tls_key = ss->key;
    cfg->tls_self_signed = true;
    return 0;
}

int main(int argc, char **argv)
{
    enum { OPT_ADVERTISE = 256, OPT_PING_INTERVAL, OPT_PING_TIMEOUT, OPT_GRACE, OPT_FIRST_MOVE,
           OPT_MAX_GAMES,
           OPT_BOT_THINK, OPT_DB, OPT_TLS_CERT, OPT_TLS_KEY, OPT_TLS_CLIENT_CA,
           OPT_MAX_PER_CLIENT, OPT_MAX_PARTICIPANTS, OPT_MAX_MESSAGE, OPT_MAX_STREAMS, OPT_CHAT_LENGTH, OPT_CHAT_RATE, OPT_PRESENCE_EVENTS,
           OPT_MOVE_RATE, OPT_MAX_REQUEST, OPT_CLIENT_STREAMS, OPT_CLIENT_OBSERVERS, OPT_IPV6_PREFIX,
           OPT_CLIENT_JOIN_RATE, OPT_CLIENT_CHAT_RATE, OPT_CHECK, OPT_TLS_SELF_SIGNED,
           OPT_TLS_NAME, OPT_REQUIRE_ACCOUNTS, OPT_SESSION_DAYS, OPT_CLIENT_REGISTRATIONS, OPT_CLIENT_LOOKUPS,
           OPT_PASSWORD_WORKERS, OPT_PASSWORD_QUEUE, OPT_SIGNIN_FAILURES,
           OPT_CLIENT_SIGNIN_FAILURES, OPT_SIGNIN_RATE, OPT_CLIENT_SIGNIN_RATE,
           OPT_CLIENT_SIGNIN_JOBS, OPT_MAX_ACCOUNT_SESSIONS,
           OPT_LEASE, OPT_CLUSTER_STATUS, OPT_RELAYS, OPT_RELAY_AFTER, OPT_RELAY_KEY,
           OPT_STALL_LIMIT, OPT_RATED_MIN_MOVES, OPT_RATED_PAIR_GAMES, OPT_RATED_SAME_ADDRESS,
           OPT_RATING_REPORT };
    static const struct option longopts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"advertise", required_argument, NULL, OPT_ADVERTISE},
        {"ping-interval", required_argument, NULL, OPT_PING_INTERVAL},
        {"first-move-time", required_argument, NULL, OPT_FIRST_MOVE},
        {"ping-timeout", required_argument, NULL, OPT_PING_TIMEOUT},
        {"grace", required_argument, NULL, OPT_GRACE},
        {"bot-think", required_argument, NULL, OPT_BOT_THINK},
        {"db", required_argument, NULL, OPT_DB},
        {"max-games-per-client", required_argument, NULL, OPT_MAX_PER_CLIENT},
        {"max-participants", required_argument, NULL, OPT_MAX_PARTICIPANTS},
        {"max-message", required_argument, NULL, OPT_MAX_MESSAGE},
        {"max-streams", required_argument, NULL, OPT_MAX_STREAMS},
        {"chat-length", required_argument, NULL, OPT_CHAT_LENGTH},
        {"chat-rate", required_argument, NULL, OPT_CHAT_RATE},
        {"presence-events", required_argument, NULL, OPT_PRESENCE_EVENTS},
        {"move-rate", required_argument, NULL, OPT_MOVE_RATE},
        {"max-request", required_argument, NULL, OPT_MAX_REQUEST},
        {"max-client-streams", required_argument, NULL, OPT_CLIENT_STREAMS},
        {"max-client-observers", required_argument, NULL, OPT_CLIENT_OBSERVERS},
        {"ipv6-prefix", required_argument, NULL, OPT_IPV6_PREFIX},
        {"client-join-rate", required_argument, NULL, OPT_CLIENT_JOIN_RATE},
        {"client-chat-rate", required_argument, NULL, OPT_CLIENT_CHAT_RATE},
        {"tls-cert", required_argument, NULL, OPT_TLS_CERT},
        {"tls-key", required_argument, NULL, OPT_TLS_KEY},
        {"tls-client-ca", required_argument, NULL, OPT_TLS_CLIENT_CA},
        {"tls-self-signed", no_argument, NULL, OPT_TLS_SELF_SIGNED},
        {"tls-name", required_argument, NULL, OPT_TLS_NAME},
        {"max-games", required_argument, NULL, OPT_MAX_GAMES},
        {"check", no_argument, NULL, OPT_CHECK},
        {"lease", required_argument, NULL, OPT_LEASE},
        {"cluster-status", no_argument, NULL, OPT_CLUSTER_STATUS},
        {"relays", required_argument, NULL, OPT_RELAYS},
        {"relay-after", required_argument, NULL, OPT_RELAY_AFTER},
        {"relay-key", required_argument, NULL, OPT_RELAY_KEY},
        {"require-accounts", no_argument, NULL, OPT_REQUIRE_ACCOUNTS},
        {"session-days", required_argument, NULL, OPT_SESSION_DAYS},
        {"client-registrations", required_argument, NULL, OPT_CLIENT_REGISTRATIONS},
        {"client-lookups", required_argument, NULL, OPT_CLIENT_LOOKUPS},
        {"password-workers", required_argument, NULL, OPT_PASSWORD_WORKERS},
        {"password-queue", required_argument, NULL, OPT_PASSWORD_QUEUE},
        {"signin-failures", required_argument, NULL, OPT_SIGNIN_FAILURES},
        {"client-signin-failures", required_argument, NULL, OPT_CLIENT_SIGNIN_FAILURES},
        {"signin-rate", required_argument, NULL, OPT_SIGNIN_RATE},
        {"client-signin-rate", required_argument, NULL, OPT_CLIENT_SIGNIN_RATE},
        {"client-signin-jobs", required_argument, NULL, OPT_CLIENT_SIGNIN_JOBS},
        {"max-account-sessions", required_argument, NULL, OPT_MAX_ACCOUNT_SESSIONS},
        {"stall-limit", required_argument, NULL, OPT_STALL_LIMIT},
        {"rated-min-moves", required_argument, NULL, OPT_RATED_MIN_MOVES},
        {"rated-pair-games", required_argument, NULL, OPT_RATED_PAIR_GAMES},
        {"rated-same-address", no_argument, NULL, OPT_RATED_SAME_ADDRESS},
        {"rating-report", no_argument, NULL, OPT_RATING_REPORT},
        {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},   /* long only: not in the short options */
        {NULL, 0, NULL, 0},
    };
    board_config cfg = {0};
    int seconds, quiet = 0, check = 0, cluster_status = 0, rating_report = 0, c;
    bool self_signed = false;
    const char *tls_names[BOARD_TLS_MAX_NAMES];
    size_t n_tls_names = 0;
    while ((c = getopt_long(argc, argv, "l:qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'l':
            cfg.listen = optarg;
            break;
        case OPT_ADVERTISE:
            cfg.advertise = optarg;
            break;
        case OPT_PING_INTERVAL:
            if (parse_count("--ping-interval", optarg, 3600, &seconds) != 0)
                return 2;
            cfg.ping_interval_ms = seconds * 1000;
            break;
        case OPT_PING_TIMEOUT:
            if (parse_count("--ping-timeout", optarg, 3600, &seconds) != 0)
                return 2;
            cfg.ping_timeout_ms = seconds * 1000;
            break;
        case OPT_GRACE:
            if (parse_count("--grace", optarg, 86400, &seconds) != 0)
                return 2;
            cfg.grace_ms = seconds * 1000;
            break;
        case OPT_FIRST_MOVE:
            if (parse_count("--first-move-time", optarg, 3600, &seconds) != 0)
                return 2;
            cfg.first_move_ms = seconds * 1000;
            break;
        case OPT_DB:
            cfg.db = optarg;
            break;
        case OPT_MAX_PER_CLIENT:
            if (parse_count("--max-games-per-client", optarg, 1000000, &cfg.max_games_per_client))
                return 2;
            break;
        case OPT_MAX_PARTICIPANTS:
            if (parse_count("--max-participants", optarg, 1000000, &cfg.max_participants) != 0)
                return 2;
            break;
        case OPT_MAX_MESSAGE:
            if (parse_count("--max-message", optarg, 64 << 20, &cfg.max_message_bytes) != 0)
                return 2;
            break;
        case OPT_MAX_STREAMS:
            if (parse_count("--max-streams", optarg, 100000, &cfg.max_streams) != 0)
                return 2;
            break;
        case OPT_CHAT_LENGTH:
            if (parse_count("--chat-length", optarg, 65536, &cfg.chat_length) != 0)
                return 2;
            break;
        case OPT_PRESENCE_EVENTS:
            if (parse_count("--presence-events", optarg, 100000, &cfg.presence_events) != 0)
                return 2;
            break;
        case OPT_CHAT_RATE:
            if (parse_count("--chat-rate", optarg, 100000, &cfg.chat_rate) != 0)
                return 2;
            break;
        case OPT_MOVE_RATE:
            if (parse_count("--move-rate", optarg, 1000000, &cfg.move_rate) != 0)
                return 2;
            break;
        case OPT_MAX_REQUEST:
            if (parse_count("--max-request", optarg, 64 << 20, &cfg.max_request_bytes) != 0)
                return 2;
            break;
        case OPT_CLIENT_STREAMS:
            if (parse_count("--max-client-streams", optarg, 1000000, &cfg.max_client_streams))
                return 2;
            break;
        case OPT_IPV6_PREFIX:
            if (parse_count("--ipv6-prefix", optarg, 128, &cfg.ipv6_prefix))
                return 2;
            break;
        case OPT_CLIENT_OBSERVERS:
            if (parse_count("--max-client-observers", optarg, 1000000,
                            &cfg.max_client_observers))
                return 2;
            break;
        case OPT_CLIENT_JOIN_RATE:
            if (parse_count("--client-join-rate", optarg, 1000000, &cfg.client_join_rate))
                return 2;
            break;
        case OPT_CLIENT_CHAT_RATE:
            if (parse_count("--client-chat-rate", optarg, 1000000, &cfg.client_chat_rate))
                return 2;
            break;
        case OPT_TLS_CERT:
            cfg.tls_cert = optarg;
            break;
        case OPT_TLS_KEY:
            cfg.tls_key = optarg;
            break;
        case OPT_TLS_CLIENT_CA:
            cfg.tls_client_ca = optarg;
            break;
        case OPT_TLS_SELF_SIGNED:
            self_signed = true;
            break;
        case OPT_TLS_NAME:
            if (!board_tls_name_ok(optarg)) {
                fprintf(stderr, "sungka-board: --tls-name '%s' is not a host name or an IP "
                                "address\n", optarg);
                return 2;
            }
            if (n_tls_names == BOARD_TLS_MAX_NAMES) {
                fprintf(stderr, "sungka-board: at most %d --tls-name\n", BOARD_TLS_MAX_NAMES);
                return 2;
            }
            tls_names[n_tls_names++] = optarg;
            break;
        case OPT_BOT_THINK:
            if (parse_count("--bot-think", optarg, 600000, &cfg.bot_think_ms) != 0)
                return 2;
            break;
        case OPT_MAX_GAMES:
            if (parse_count("--max-games", optarg, 1000000, &cfg.max_games) != 0)
                return 2;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'v':
            cfg.grpc_log = true;
            break;
        case OPT_CHECK:
            check = 1;
            break;
        case OPT_CLUSTER_STATUS:
            cluster_status = 1;
            break;
        case OPT_RELAYS:
            cfg.relays = optarg;
            break;
        case OPT_RELAY_AFTER:
            if (parse_count("--relay-after", optarg, 10000000, &cfg.relay_after) != 0)
                return 2;
            break;
        case OPT_RELAY_KEY:
            cfg.relay_key = optarg;
            break;
        case OPT_LEASE:
            if (parse_count("--lease", optarg, 3600, &seconds) != 0)
                return 2;
            cfg.lease_ms = seconds * 1000;
            break;
        case OPT_RATED_MIN_MOVES:
            if (option_number("sungka-board", "--rated-min-moves", optarg, 0, 1000,
                              &cfg.rated_min_moves) != 0)
                return 2;
            if (cfg.rated_min_moves == 0)
                cfg.rated_min_moves = -1;        /* none (0 would be the default) */
            break;
        case OPT_RATED_PAIR_GAMES:
            if (option_number("sungka-board", "--rated-pair-games", optarg, 0, 100000,
                              &cfg.rated_pair_games) != 0)
                return 2;
            if (cfg.rated_pair_games == 0)
                cfg.rated_pair_games = -1;       /* no limit */
            break;
        case OPT_RATED_SAME_ADDRESS:
            cfg.rated_same_address = true;
            break;
        case OPT_RATING_REPORT:
            rating_report = 1;
            break;
        case OPT_REQUIRE_ACCOUNTS:
            cfg.require_accounts = true;
            break;
        case OPT_SESSION_DAYS:
            if (parse_count("--session-days", optarg, 3650, &cfg.session_days) != 0)
                return 2;
            break;
        case OPT_STALL_LIMIT:
            if (parse_count("--stall-limit", optarg, 3600000, &cfg.stall_limit_ms) != 0)
                return 2;
            break;
        case OPT_CLIENT_LOOKUPS:
            if (parse_count("--client-lookups", optarg, 1000000, &cfg.client_lookups) != 0)
                return 2;
            break;
        case OPT_CLIENT_REGISTRATIONS:
            if (parse_count("--client-registrations", optarg, 1000000,
                            &cfg.client_registrations) != 0)
                return 2;
            break;
        case OPT_PASSWORD_WORKERS:
            if (parse_count("--password-workers", optarg, 16, &cfg.password_workers) != 0)
                return 2;
            break;
        case OPT_PASSWORD_QUEUE:
            if (parse_count("--password-queue", optarg, 100000, &cfg.password_queue) != 0)
                return 2;
            break;
        case OPT_SIGNIN_FAILURES:
            if (parse_count("--signin-failures", optarg, 1000000, &cfg.signin_failures) != 0)
                return 2;
            break;
        case OPT_CLIENT_SIGNIN_FAILURES:
            if (parse_count("--client-signin-failures", optarg, 1000000,
                            &cfg.client_signin_failures) != 0)
                return 2;
            break;
        case OPT_SIGNIN_RATE:
            if (parse_count("--signin-rate", optarg, 1000000, &cfg.signin_rate) != 0)
                return 2;
            break;
        case OPT_CLIENT_SIGNIN_RATE:
            if (parse_count("--client-signin-rate", optarg, 1000000,
                            &cfg.client_signin_rate) != 0)
                return 2;
            break;
        case OPT_CLIENT_SIGNIN_JOBS:
            if (parse_count("--client-signin-jobs", optarg, 100000,
                            &cfg.client_signin_jobs) != 0)
                return 2;
            break;
        case OPT_MAX_ACCOUNT_SESSIONS:
            if (parse_count("--max-account-sessions", optarg, 100000,
                            &cfg.max_account_sessions) != 0)
                return 2;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("sungka-board %s\n", SUNGKA_VERSION);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "sungka-board: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (check)
        return check_database(cfg.db);
    if (cluster_status)
        return print_cluster(cfg.db);
    if (rating_report)
        return print_rating_report(cfg.db);
    if (self_signed && (cfg.tls_cert || cfg.tls_key)) {
        fprintf(stderr, "sungka-board: --tls-self-signed makes its own certificate: give it "
                        "or --tls-cert and --tls-key, not both\n");
        return 2;
    }
    if (n_tls_names && !self_signed) {
        fprintf(stderr, "sungka-board: --tls-name names a certificate --tls-self-signed "
                        "makes; a --tls-cert names its hosts itself\n");
        return 2;
    }
    board_self_signed ss;
    if (self_signed && use_self_signed(&cfg, tls_names, n_tls_names, &ss) != 0)
        return 1;
    FILE *devnull = NULL;
    if (quiet) {
        devnull = fopen("/dev/null", "w");
        cfg.log = devnull;
    }

    rpc_set_verbose(cfg.grpc_log);
    rpc_init();
    board_service *svc;
    int port;
    char err[1024];
    if (board_create(&cfg, &svc, &port, err, sizeof err) != 0) {
        log_line_say(LOG_ERR, "sungka-board: %s\n", err);
        rpc_shutdown();
        return 1;
    }
    server_stop_on_signals(stop_board, svc);

    const char *listen = cfg.listen ? cfg.listen : "127.0.0.1:7070";
    server_say_listening("sungka-board", listen, port, cfg.tls_cert ? " (TLS)" : "");
    if (self_signed) {
        /* Said whatever --quiet says: players need it to trust us. */
        log_line_say(LOG_NOTICE, "sungka-board: TLS certificate %s (%s %s); players compare "
                                 "this fingerprint with the one their agent shows on first "
                                 "connecting\n",
                     ss.fingerprint, ss.made ? "made now:" : "kept in", ss.cert);
        if (ss.missing[0])
            log_line_say(LOG_WARNING, "sungka-board: warning: the kept certificate does not "
                                      "name %s; clients that check host names refuse it under "
                                      "those (sungka-player pins the certificate itself and "
                                      "does not mind); delete %s and %s to make one that names "
                                      "them\n",
                         ss.missing, ss.cert, ss.key);
    }
    bool loopback = strncmp(listen, "127.", 4) == 0 || strncmp(listen, "localhost:", 10) == 0 ||
                    strncmp(listen, "[::1]", 5) == 0;
    if (!cfg.tls_cert && !loopback)
        log_line_say(LOG_WARNING, "sungka-board: warning: serving in plaintext on %s: anyone on "
                                  "the network can read the games and steal seat tokens; use "
                                  "--tls-self-signed (or --tls-cert and --tls-key)\n",
                     listen);

    board_run(svc);
    server_stop_forget();
    board_destroy(svc);
    rpc_shutdown();
    if (devnull)
        fclose(devnull);
    return 0;
}
