/*
 * main.c — `sungka-board`: the command line of the board service.
 * Reads its configuration file and options (flags over the file), starts the
 * service, prints the bound address on one line (tests and the player agent
 * read it), tells systemd it is ready (server_notify.h), reloads the file on SIGHUP
 * and stops cleanly on SIGINT/SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "board.h"
#include "log_line.h"
#include "options.h"
#include "rpc.h"
#include "self_signed.h"
#include "server_main.h"
#include "server_notify.h"
#include "store.h"
#include "text.h"
#include "xdg.h"

/* --config's default: read when it exists and no --config is given. */
#define DEFAULT_CONFIG "/etc/sungka/board.conf"

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
            "      --config FILE         read settings from FILE (default\n"
            "                            " DEFAULT_CONFIG " when it exists; \"\" reads\n"
            "                            none): an INI file whose [board] section has one\n"
            "                            key per long option below, without the dashes\n"
            "                            (max-client-streams = 256; require-accounts =\n"
            "                            true); options on the command line override it.\n"
            "                            SIGHUP reads it again: limits, relays, --quiet,\n"
            "                            --verbose and the --tls-cert/--tls-key files\n"
            "                            change at once, the log says which other\n"
            "                            changes need a restart, and a file with an\n"
            "                            error is refused (the settings stay)\n"
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
            "      --move-rate N         moves per seat per second, and commands per Play\n"
            "                            stream per second (default 200)\n"
            "      --presence-events N   a player's departures and returns logged per 10\n"
            "                            minutes; more are not logged (default 20)\n"
            "  Limits per client address, whatever names it uses:\n"
            "      --max-client-streams N    open event streams, each subscription of a\n"
            "                                SubscribeMany one (default 256)\n"
            "      --max-client-observers N  observer seats in all games (default 256)\n"
            "      --client-join-rate N      joins per second (default 20)\n"
            "      --client-chat-rate N      chat lines per 5 seconds (default 20)\n"
            "      --client-pairings N       quick pairings waiting at once (default 1)\n"
            "      --ipv6-prefix N           an IPv6 client's address is its first N bits:\n"
            "                                these limits hold per /N (default 64)\n"
            "      --max-pool N          players waiting in one quick-pairing pool (a kind,\n"
            "                            its options and a time control; default 1000)\n"
            "      --tournaments WHO     who may create a tournament: open (anyone, the\n"
            "                            default), operator (a call with the admin token)\n"
            "                            or off (no tournaments)\n"
            "      --max-tournaments N   tournaments not yet finished at once (default 20)\n"
            "      --client-tournaments N  ... of them made from one client address\n"
            "                            (default 2; the operator's do not count)\n"
            "      --max-tournament-players N  players in one tournament (default 64)\n"
            "      --max-blocks N        accounts one account may block (default 500)\n"
            "      --report-rate N       reports one account may make per 24 hours\n"
            "                            (default 20)\n"
            "      --block-rate N        blocks and unblocks one account may make per minute\n"
            "                            (default 30)\n"
            "      --bot-think MS        time per move of the bots games ask for (default 1000)\n"
            "      --analysis on|off     review every ended game with the engine, on a\n"
            "                            thread of its own, one game at a time\n"
            "                            (GetAnalysis; default on)\n"
            "      --analysis-depth N    plies searched per position, 1..60 (default: each\n"
            "                            kind's own: mancala 10, reversi and qubic 6)\n"
            "      --analysis-time MS    at most this per position (default 2000)\n"
            "      --analysis-queue N    ended games waiting for their review; beyond, a game\n"
            "                            is reviewed at the service's next start (default 32)\n"
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
            "      --max-health-watches N  health Watch streams open at once (default\n"
            "                            64); one client address may open a quarter of\n"
            "                            them (at least one)\n"
            "      --max-reflection-streams N  server reflection streams (grpcurl's)\n"
            "                            open at once (default 16); one client address\n"
            "                            may open a quarter of them (at least one)\n"
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
            "      --reports             print the players' reports, newest first (with\n"
            "                            --db), and exit\n"
            "      --rating-report       print the pairs of accounts with the most rated\n"
            "                            games, the accounts whose rating points came mostly\n"
            "                            from one opponent, and the pairs whose games were\n"
            "                            not rated, from the database (--db), and exit\n"
            "      --admin-token-file FILE  the token sungka-admin shows to the Admin\n"
            "                            service: read, or made (mode 0600) when missing;\n"
            "                            default DB.admin-token beside an SQLite --db (a\n"
            "                            cluster's nodes are given the same file)\n"
            "      --metrics HOST:PORT   serve metrics in Prometheus's text format at\n"
            "                            http://HOST:PORT/metrics (plain HTTP: keep it on\n"
            "                            loopback or a private network; port 0 picks one,\n"
            "                            said on stderr)\n"
            "  -q, --quiet               do not log games and players to stderr\n"
            "  -v, --verbose             also show gRPC's own log lines on stderr\n"
            "  -h, --help                show this help and exit\n"
            "      --version             show the version and exit\n"
            "\n"
            "On start it prints \"sungka-board listening on HOST:PORT\" on standard output\n"
            "and, under systemd (Type=notify), tells it READY=1.\n"
            "With --tls-self-signed, delete tls-cert.pem and tls-key.pem to make a new\n"
            "certificate (for new names, or a key that may have leaked): players who\n"
            "trusted the old one are then warned that it changed, and must accept it.\n");
}


/* The options: the one list of settings. The configuration file's keys are
 * their long names (config_file.h), so nothing else lists them. */
enum { OPT_ADVERTISE = 256, OPT_PING_INTERVAL, OPT_PING_TIMEOUT, OPT_GRACE, OPT_FIRST_MOVE,
       OPT_MAX_GAMES,
       OPT_BOT_THINK, OPT_ANALYSIS, OPT_ANALYSIS_DEPTH, OPT_ANALYSIS_TIME, OPT_ANALYSIS_QUEUE,
       OPT_DB, OPT_TLS_CERT, OPT_TLS_KEY, OPT_TLS_CLIENT_CA,
       OPT_MAX_PER_CLIENT, OPT_MAX_PARTICIPANTS, OPT_MAX_MESSAGE, OPT_MAX_STREAMS,
       OPT_CHAT_LENGTH, OPT_CHAT_RATE, OPT_PRESENCE_EVENTS,
       OPT_MOVE_RATE, OPT_MAX_REQUEST, OPT_CLIENT_STREAMS, OPT_CLIENT_OBSERVERS, OPT_IPV6_PREFIX,
       OPT_CLIENT_JOIN_RATE, OPT_CLIENT_CHAT_RATE, OPT_CHECK, OPT_TLS_SELF_SIGNED,
       OPT_TLS_NAME, OPT_REQUIRE_ACCOUNTS, OPT_SESSION_DAYS, OPT_CLIENT_REGISTRATIONS,
       OPT_CLIENT_LOOKUPS,
       OPT_PASSWORD_WORKERS, OPT_PASSWORD_QUEUE, OPT_SIGNIN_FAILURES,
       OPT_CLIENT_SIGNIN_FAILURES, OPT_SIGNIN_RATE, OPT_CLIENT_SIGNIN_RATE,
       OPT_CLIENT_SIGNIN_JOBS, OPT_MAX_ACCOUNT_SESSIONS,
       OPT_LEASE, OPT_CLUSTER_STATUS, OPT_RELAYS, OPT_RELAY_AFTER, OPT_RELAY_KEY,
       OPT_STALL_LIMIT, OPT_RATED_MIN_MOVES, OPT_RATED_PAIR_GAMES, OPT_RATED_SAME_ADDRESS,
        OPT_RATING_REPORT, OPT_CONFIG, OPT_METRICS, OPT_ADMIN_TOKEN_FILE, OPT_MAX_BLOCKS,
        OPT_REPORT_RATE, OPT_REPORTS, OPT_BLOCK_RATE, OPT_MAX_HEALTH_WATCHES,
        OPT_MAX_REFLECTION_STREAMS, OPT_CLIENT_PAIRINGS, OPT_MAX_POOL,
        OPT_TOURNAMENTS, OPT_MAX_TOURNAMENTS, OPT_MAX_TOURNAMENT_PLAYERS,
        OPT_CLIENT_TOURNAMENTS };

static const struct option longopts[] = {
    {"config", required_argument, NULL, OPT_CONFIG},
    {"listen", required_argument, NULL, 'l'},
    {"advertise", required_argument, NULL, OPT_ADVERTISE},
    {"ping-interval", required_argument, NULL, OPT_PING_INTERVAL},
    {"first-move-time", required_argument, NULL, OPT_FIRST_MOVE},
    {"ping-timeout", required_argument, NULL, OPT_PING_TIMEOUT},
    {"grace", required_argument, NULL, OPT_GRACE},
    {"bot-think", required_argument, NULL, OPT_BOT_THINK},
    {"analysis", required_argument, NULL, OPT_ANALYSIS},
    {"analysis-depth", required_argument, NULL, OPT_ANALYSIS_DEPTH},
    {"analysis-time", required_argument, NULL, OPT_ANALYSIS_TIME},
    {"analysis-queue", required_argument, NULL, OPT_ANALYSIS_QUEUE},
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
    {"client-pairings", required_argument, NULL, OPT_CLIENT_PAIRINGS},
    {"max-pool", required_argument, NULL, OPT_MAX_POOL},
    {"tournaments", required_argument, NULL, OPT_TOURNAMENTS},
    {"max-tournaments", required_argument, NULL, OPT_MAX_TOURNAMENTS},
    {"client-tournaments", required_argument, NULL, OPT_CLIENT_TOURNAMENTS},
    {"max-tournament-players", required_argument, NULL, OPT_MAX_TOURNAMENT_PLAYERS},
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
    {"max-health-watches", required_argument, NULL, OPT_MAX_HEALTH_WATCHES},
    {"max-reflection-streams", required_argument, NULL, OPT_MAX_REFLECTION_STREAMS},
    {"rated-min-moves", required_argument, NULL, OPT_RATED_MIN_MOVES},
    {"rated-pair-games", required_argument, NULL, OPT_RATED_PAIR_GAMES},
    {"rated-same-address", no_argument, NULL, OPT_RATED_SAME_ADDRESS},
    {"rating-report", no_argument, NULL, OPT_RATING_REPORT},
    {"reports", no_argument, NULL, OPT_REPORTS},
    {"max-blocks", required_argument, NULL, OPT_MAX_BLOCKS},
    {"report-rate", required_argument, NULL, OPT_REPORT_RATE},
    {"block-rate", required_argument, NULL, OPT_BLOCK_RATE},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"admin-token-file", required_argument, NULL, OPT_ADMIN_TOKEN_FILE},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},   /* long only: not in the short options */
    {NULL, 0, NULL, 0},
};

/* What the command line and the configuration file set: the service's
 * configuration and the switches main acts on itself. */
typedef struct settings {
    server_settings common;        /* first: --help, --version, --config, the file's strings
                                      (which cfg points into) */
    board_config cfg;
    bool check, cluster_status, rating_report, reports, self_signed;
    const char *tls_names[SELF_SIGNED_MAX_NAMES];
    size_t n_tls_names;
} settings;

/* The option keys a configuration file may not hold: things to do, and
 * the file itself. */
static const int not_settings[] = {'h', 'V', OPT_CHECK, OPT_CLUSTER_STATUS, OPT_RATING_REPORT,
                                   OPT_REPORTS, OPT_CONFIG};

/* Strict positive integer option: the whole string, in 1..max. */
static int count(const char *s, int max, int *out, char *err, size_t errlen)
{
    return option_number_says(s, 1, max, out, err, errlen);
}

/* One option, from the command line or the file (config_apply_fn): c is
 * its val in longopts, value its argument (NULL for none). */
static int apply_option(void *user, int c, const char *name, const char *value, char *err,
                        size_t errlen)
{
    settings *st = user;
    int seconds;
    (void)name;
    switch (c) {
    case 'l':
        st->cfg.listen = value;
        break;
    case OPT_ADVERTISE:
        st->cfg.advertise = value;
        break;
    case OPT_PING_INTERVAL:
        if (count(value, 3600, &seconds, err, errlen))
            return -1;
        st->cfg.ping_interval_ms = seconds * 1000;
        break;
    case OPT_PING_TIMEOUT:
        if (count(value, 3600, &seconds, err, errlen))
            return -1;
        st->cfg.ping_timeout_ms = seconds * 1000;
        break;
    case OPT_GRACE:
        if (count(value, 86400, &seconds, err, errlen))
            return -1;
        st->cfg.grace_ms = seconds * 1000;
        break;
    case OPT_FIRST_MOVE:
        if (count(value, 3600, &seconds, err, errlen))
            return -1;
        st->cfg.first_move_ms = seconds * 1000;
        break;
    case OPT_DB:
        st->cfg.db = value;
        break;
    case OPT_METRICS:
        st->cfg.metrics = value;
        break;
    case OPT_ADMIN_TOKEN_FILE:
        st->cfg.admin_token_file = value;
        break;
    case OPT_MAX_PER_CLIENT:
        if (count(value, 1000000, &st->cfg.max_games_per_client, err, errlen))
            return -1;
        break;
    case OPT_MAX_PARTICIPANTS:
        if (count(value, 1000000, &st->cfg.max_participants, err, errlen))
            return -1;
        break;
    case OPT_MAX_MESSAGE:
        if (count(value, 64 << 20, &st->cfg.max_message_bytes, err, errlen))
            return -1;
        break;
    case OPT_MAX_STREAMS:
        if (count(value, 100000, &st->cfg.max_streams, err, errlen))
            return -1;
        break;
    case OPT_CHAT_LENGTH:
        if (count(value, 65536, &st->cfg.chat_length, err, errlen))
            return -1;
        break;
    case OPT_PRESENCE_EVENTS:
        if (count(value, 100000, &st->cfg.presence_events, err, errlen))
            return -1;
        break;
    case OPT_CHAT_RATE:
        if (count(value, 100000, &st->cfg.chat_rate, err, errlen))
            return -1;
        break;
    case OPT_MOVE_RATE:
        if (count(value, 1000000, &st->cfg.move_rate, err, errlen))
            return -1;
        break;
    case OPT_MAX_REQUEST:
        if (count(value, 64 << 20, &st->cfg.max_request_bytes, err, errlen))
            return -1;
        break;
    case OPT_CLIENT_STREAMS:
        if (count(value, 1000000, &st->cfg.max_client_streams, err, errlen))
            return -1;
        break;
    case OPT_IPV6_PREFIX:
        if (count(value, 128, &st->cfg.ipv6_prefix, err, errlen))
            return -1;
        break;
    case OPT_CLIENT_PAIRINGS:
        if (count(value, 1000000, &st->cfg.client_pairings, err, errlen))
            return -1;
        break;
    case OPT_MAX_POOL:
        if (count(value, 1000000, &st->cfg.max_pool, err, errlen))
            return -1;
        break;
    case OPT_TOURNAMENTS:
        if (strcmp(value, "open") == 0) {
            st->cfg.tournaments = BOARD_TOURNAMENTS_OPEN;
        } else if (strcmp(value, "operator") == 0) {
            st->cfg.tournaments = BOARD_TOURNAMENTS_OPERATOR;
        } else if (strcmp(value, "off") == 0) {
            st->cfg.tournaments = BOARD_TOURNAMENTS_OFF;
        } else {
            snprintf(err, errlen, "is open, operator or off, not '%s'", value);
            return -1;
        }
        break;
    case OPT_MAX_TOURNAMENTS:
        if (count(value, 10000, &st->cfg.max_tournaments, err, errlen))
            return -1;
        break;
    case OPT_CLIENT_TOURNAMENTS:
        if (count(value, 10000, &st->cfg.client_tournaments, err, errlen))
            return -1;
        break;
    case OPT_MAX_TOURNAMENT_PLAYERS:
        if (count(value, 1000, &st->cfg.max_tournament_players, err, errlen))
            return -1;
        break;
    case OPT_CLIENT_OBSERVERS:
        if (count(value, 1000000, &st->cfg.max_client_observers, err, errlen))
            return -1;
        break;
    case OPT_CLIENT_JOIN_RATE:
        if (count(value, 1000000, &st->cfg.client_join_rate, err, errlen))
            return -1;
        break;
    case OPT_CLIENT_CHAT_RATE:
        if (count(value, 1000000, &st->cfg.client_chat_rate, err, errlen))
            return -1;
        break;
    case OPT_MAX_BLOCKS:
        if (count(value, 100000, &st->cfg.max_blocks, err, errlen))
            return -1;
        break;
    case OPT_REPORT_RATE:
        if (count(value, 100000, &st->cfg.report_rate, err, errlen))
            return -1;
        break;
    case OPT_BLOCK_RATE:
        if (count(value, 100000, &st->cfg.block_rate, err, errlen))
            return -1;
        break;
    case OPT_TLS_CERT:
        st->cfg.tls_cert = value;
        break;
    case OPT_TLS_KEY:
        st->cfg.tls_key = value;
        break;
    case OPT_TLS_CLIENT_CA:
        st->cfg.tls_client_ca = value;
        break;
    case OPT_TLS_SELF_SIGNED:
        st->self_signed = true;
        break;
    case OPT_TLS_NAME:
        if (!self_signed_name_ok(value)) {
            snprintf(err, errlen, "'%s' is not a host name or an IP address", value);
            return -1;
        }
        if (st->n_tls_names == SELF_SIGNED_MAX_NAMES) {
            snprintf(err, errlen, "at most %d names", SELF_SIGNED_MAX_NAMES);
            return -1;
        }
        st->tls_names[st->n_tls_names++] = value;
        break;
    case OPT_BOT_THINK:
        if (count(value, 600000, &st->cfg.bot_think_ms, err, errlen))
            return -1;
        break;
    case OPT_ANALYSIS:
        if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) {
            snprintf(err, errlen, "must be on or off, not '%s'", value);
            return -1;
        }
        st->cfg.analysis_off = strcmp(value, "off") == 0;
        break;
    case OPT_ANALYSIS_DEPTH:
        if (count(value, 60, &st->cfg.analysis_depth, err, errlen))
            return -1;
        break;
    case OPT_ANALYSIS_TIME:
        if (count(value, 600000, &st->cfg.analysis_time_ms, err, errlen))
            return -1;
        break;
    case OPT_ANALYSIS_QUEUE:
        if (count(value, 100000, &st->cfg.analysis_queue, err, errlen))
            return -1;
        break;
    case OPT_MAX_GAMES:
        if (count(value, 1000000, &st->cfg.max_games, err, errlen))
            return -1;
        break;
    case 'q':
        st->cfg.quiet = true;
        break;
    case 'v':
        st->cfg.grpc_log = true;
        break;
    case OPT_CHECK:
        st->check = true;
        break;
    case OPT_CLUSTER_STATUS:
        st->cluster_status = true;
        break;
    case OPT_RELAYS:
        st->cfg.relays = value;
        break;
    case OPT_RELAY_AFTER:
        if (count(value, 10000000, &st->cfg.relay_after, err, errlen))
            return -1;
        break;
    case OPT_RELAY_KEY:
        st->cfg.relay_key = value;
        break;
    case OPT_LEASE:
        if (count(value, 3600, &seconds, err, errlen))
            return -1;
        st->cfg.lease_ms = seconds * 1000;
        break;
    case OPT_RATED_MIN_MOVES:
        if (option_number_says(value, 0, 1000, &st->cfg.rated_min_moves, err, errlen) != 0)
            return -1;
        if (st->cfg.rated_min_moves == 0)
            st->cfg.rated_min_moves = -1;        /* none (0 would be the default) */
        break;
    case OPT_RATED_PAIR_GAMES:
        if (option_number_says(value, 0, 100000, &st->cfg.rated_pair_games, err, errlen) != 0)
            return -1;
        if (st->cfg.rated_pair_games == 0)
            st->cfg.rated_pair_games = -1;       /* no limit */
        break;
    case OPT_RATED_SAME_ADDRESS:
        st->cfg.rated_same_address = true;
        break;
    case OPT_RATING_REPORT:
        st->rating_report = true;
        break;
    case OPT_REPORTS:
        st->reports = true;
        break;
    case OPT_REQUIRE_ACCOUNTS:
        st->cfg.require_accounts = true;
        break;
    case OPT_SESSION_DAYS:
        if (count(value, 3650, &st->cfg.session_days, err, errlen))
            return -1;
        break;
    case OPT_STALL_LIMIT:
        if (count(value, 3600000, &st->cfg.stall_limit_ms, err, errlen))
            return -1;
        break;
    case OPT_MAX_HEALTH_WATCHES:
        if (count(value, 100000, &st->cfg.max_health_watches, err, errlen))
            return -1;
        break;
    case OPT_MAX_REFLECTION_STREAMS:
        if (count(value, 100000, &st->cfg.max_reflection_streams, err, errlen))
            return -1;
        break;
    case OPT_CLIENT_LOOKUPS:
        if (count(value, 1000000, &st->cfg.client_lookups, err, errlen))
            return -1;
        break;
    case OPT_CLIENT_REGISTRATIONS:
        if (count(value, 1000000, &st->cfg.client_registrations, err, errlen))
            return -1;
        break;
    case OPT_PASSWORD_WORKERS:
        if (count(value, 16, &st->cfg.password_workers, err, errlen))
            return -1;
        break;
    case OPT_PASSWORD_QUEUE:
        if (count(value, 100000, &st->cfg.password_queue, err, errlen))
            return -1;
        break;
    case OPT_SIGNIN_FAILURES:
        if (count(value, 1000000, &st->cfg.signin_failures, err, errlen))
            return -1;
        break;
    case OPT_CLIENT_SIGNIN_FAILURES:
        if (count(value, 1000000, &st->cfg.client_signin_failures, err, errlen))
            return -1;
        break;
    case OPT_SIGNIN_RATE:
        if (count(value, 1000000, &st->cfg.signin_rate, err, errlen))
            return -1;
        break;
    case OPT_CLIENT_SIGNIN_RATE:
        if (count(value, 1000000, &st->cfg.client_signin_rate, err, errlen))
            return -1;
        break;
    case OPT_CLIENT_SIGNIN_JOBS:
        if (count(value, 100000, &st->cfg.client_signin_jobs, err, errlen))
            return -1;
        break;
    case OPT_MAX_ACCOUNT_SESSIONS:
        if (count(value, 100000, &st->cfg.max_account_sessions, err, errlen))
            return -1;
        break;
    case 'h':
        st->common.help = true;
        break;
    case 'V':
        st->common.version = true;
        break;
    case OPT_CONFIG:
        st->common.config = value;
        break;
    default:
        snprintf(err, errlen, "is not an option");
        return -1;
    }
    return 0;
}

/* The command line and the configuration file (server_main.h); the
 * defaults are board_config's zeros. */
static const server_program program = {
    .name = "sungka-board", .section = "board", .default_config = DEFAULT_CONFIG,
    .shortopts = "l:qvh", .longopts = longopts, .not_settings = not_settings,
    .n_not_settings = sizeof not_settings / sizeof not_settings[0], .usage = usage,
    .apply = apply_option, .size = sizeof(settings),
};

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

/* The database an operator's listing (--rating-report, --reports) reads,
 * read-only: 0 with *s, or the exit status after saying why. */
static int open_listing(const char *db, const char *flag, store **s)
{
    char path[1024], err[1024];
    if (db && (!db[0] || strcmp(db, ":memory:") == 0)) {
        fprintf(stderr, "sungka-board: %s needs a database (--db PATH or a "
                        "postgresql:// URI)\n", flag);
        return 2;
    }
    if (!db && store_default_path(path, sizeof path) != 0) {
        fprintf(stderr, "sungka-board: cannot find the default database %s (use --db PATH)\n",
                path);
        return 1;
    }
    if (store_open_readonly(db ? db : path, s, err, sizeof err) != 0) {
        fprintf(stderr, "sungka-board: %s\n", err);
        return 1;
    }
    return 0;
}

/* --reports: what players reported, newest first (docs/operating.md,
 * "Blocks and reports"). The reason is shown escaped (text_escape): it is a
 * stranger's text on an operator's terminal. */
#define REPORTS_LISTED 1000

static int print_reports(const char *db)
{
    store *s;
    int rc = open_listing(db, "--reports", &s);
    if (rc != 0)
        return rc;
    store_report *rows = calloc(REPORTS_LISTED, sizeof *rows);
    int n = 0;
    rc = rows ? store_reports_list(s, REPORTS_LISTED, rows, &n) : -1;
    if (rc == 0) {
        printf("%-6s %-20s %-20s %-20s %-16s %-24s %s\n", "ID", "TIME (UTC)", "REPORTER",
               "REPORTED", "GAME", "ADDRESS", "REASON");
        if (n == 0)
            printf("  (none)\n");
    }
    for (int i = 0; rc == 0 && i < n; i++) {
        char when[32] = "?", reason[STORE_REPORT_REASON_BYTES * 4];
        time_t t = (time_t)(rows[i].time_ms / 1000);
        struct tm tm;
        if (gmtime_r(&t, &tm))
            strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
        text_escape(rows[i].reason, reason, sizeof reason);
        printf("%-6lld %-20s %-20s %-20s %-16s %-24s %s\n", (long long)rows[i].id, when,
               rows[i].reporter, rows[i].reported, rows[i].game_id[0] ? rows[i].game_id : "-",
               rows[i].host[0] ? rows[i].host : "-", reason);
    }
    if (rc != 0)
        fprintf(stderr, "sungka-board: %s\n", rows ? store_last_error(s) : "out of memory");
    free(rows);
    store_close(s);
    return rc == 0 ? 0 : 1;
}

static int print_rating_report(const char *db)
{
    store *s;
    int opened = open_listing(db, "--rating-report", &s);
    if (opened != 0)
        return opened;
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

/* --tls-self-signed: the pair in its directory (the database's, else
 * Sungka's data directory; self_signed_for_server names the certificate),
 * and cfg's TLS files pointed at it. 0, or -1 with the sentence said. */
static int use_self_signed(board_config *cfg, const char *const *extra, size_t n_extra,
                           self_signed_pair *ss)
{
    char dir[PATH_MAX], err[2048];
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
    if (self_signed_for_server(dir, cfg->listen ? cfg->listen : "127.0.0.1:7070", extra,
                               n_extra, ss, err, sizeof err) != 0) {
        fprintf(stderr, "sungka-board: --tls-self-signed: %s\n", err);
        return -1;
    }
    cfg->tls_cert = ss->cert;
    cfg->tls_key = ss->key;
    cfg->tls_self_signed = true;
    return 0;
}

/* A reload (SIGHUP): read the file and the command line again and hand
 * the service what changed; a file with an error changes nothing. On the
 * loop thread (board_run calls it), which is main's. */
typedef struct reloading {
    int argc;
    char **argv;
    const char *file;          /* NULL: there is none to read */
    settings *running;         /* what the service was given */
} reloading;

static void reload(board_service *svc, void *arg)
{
    reloading *rl = arg;
    server_notify_reloading();
    settings next;
    char said[2048];
    if (server_settings_reload(&program, rl->file, rl->argc, rl->argv, &next) == 0) {
        settings *was = rl->running;
        if (was->self_signed && next.self_signed) {   /* the same files as at start */
            next.cfg.tls_cert = was->cfg.tls_cert;
            next.cfg.tls_key = was->cfg.tls_key;
            next.cfg.tls_self_signed = true;
        }
        bool verbose = next.cfg.grpc_log;
        board_reconfigure(svc, &next.cfg, said, sizeof said);
        if (next.self_signed != was->self_signed)
            strncat(said, "; needs a restart: tls-self-signed", sizeof said - strlen(said) - 1);
        rpc_set_verbose(verbose);
        log_line_say(LOG_NOTICE, "sungka-board: reloaded %s: %s\n", rl->file, said);
        server_settings_free(&next);   /* board_reconfigure copied what it took */
    }
    server_notify_ready();
}

static void stopping(void *arg)
{
    (void)arg;
    server_notify_stopping();
}

static void request_reload(void *svc)
{
    board_request_reload(svc);
}

int main(int argc, char **argv)
{
    settings st;
    const char *file;
    int rc = server_main_settings(&program, argc, argv, &st, &file);
    if (rc >= 0)
        return rc;
    char err[1024];
    board_config cfg = st.cfg;
    bool self_signed = st.self_signed;
    rc = 2;
    if (st.check) {
        rc = check_database(cfg.db);
        goto out;
    }
    if (st.cluster_status) {
        rc = print_cluster(cfg.db);
        goto out;
    }
    if (st.rating_report) {
        rc = print_rating_report(cfg.db);
        goto out;
    }
    if (st.reports) {
        rc = print_reports(cfg.db);
        goto out;
    }
    if (self_signed && (cfg.tls_cert || cfg.tls_key)) {
        fprintf(stderr, "sungka-board: --tls-self-signed makes its own certificate: give it "
                        "or --tls-cert and --tls-key, not both\n");
        goto out;
    }
    if (st.n_tls_names && !self_signed) {
        fprintf(stderr, "sungka-board: --tls-name names a certificate --tls-self-signed "
                        "makes; a --tls-cert names its hosts itself\n");
        goto out;
    }
    rc = 1;
    self_signed_pair ss;
    if (self_signed && use_self_signed(&cfg, st.tls_names, st.n_tls_names, &ss) != 0)
        goto out;
    reloading rl = {.argc = argc, .argv = argv, .file = file, .running = &st};
    cfg.on_reload = reload;
    cfg.on_stopping = stopping;
    cfg.hook_arg = &rl;
    st.cfg = cfg;

    rpc_set_verbose(cfg.grpc_log);
    rpc_init();
    board_service *svc;
    int port;
    if (board_create(&cfg, &svc, &port, err, sizeof err) != 0) {
        log_line_say(LOG_ERR, "sungka-board: %s\n", err);
        rpc_shutdown();
        goto out;
    }
    server_stop_on_signals(stop_board, svc);
    server_reload_on_sighup(request_reload, svc);

    const char *listen = cfg.listen ? cfg.listen : "127.0.0.1:7070";
    server_say_listening("sungka-board", listen, port, cfg.tls_cert ? " (TLS)" : "");
    server_notify_ready();
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
    rc = 0;
out:
    server_settings_free(&st);
    return rc;
}
