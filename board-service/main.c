/*
 * main.c — `sungka-board`: the command line of the board service.
 * Parses options, starts the service, prints the bound address on one line
 * (tests and the player agent read it), and stops cleanly on SIGINT/SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "rpc.h"
#include "store.h"
#include "version.h"

static board_service *running;

static void on_signal(int sig)
{
    (void)sig;
    if (running)
        board_request_stop(running);
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
            "      --max-games N         most games hosted at once (default 1000)\n"
            "      --max-games-per-client N  open games one client address may create\n"
            "                            (default 100)\n"
            "      --max-participants N  players and observers in one game (default 1000)\n"
            "      --max-message BYTES   largest reply or event (default 1048576)\n"
            "      --max-request BYTES   largest request (default 65536)\n"
            "      --max-streams N       concurrent calls per connection (default 64)\n"
            "      --chat-length BYTES   longest chat line (default 500); names are 1..32\n"
            "                            characters\n"
            "      --chat-rate N         chat lines per player per 5 seconds (default 5)\n"
            "      --move-rate N         moves per seat per second (default 200)\n"
            "  Limits per client address, whatever names it uses:\n"
            "      --max-client-streams N    open event streams (default 256)\n"
            "      --max-client-observers N  observer seats in all games (default 256)\n"
            "      --client-join-rate N      joins per second (default 20)\n"
            "      --client-chat-rate N      chat lines per 5 seconds (default 20)\n"
            "      --bot-think MS        time per move of the bots games ask for (default 1000)\n"
            "      --tls-cert FILE       serve TLS with this PEM certificate chain...\n"
            "      --tls-key FILE        ...and its private key\n"
            "      --tls-client-ca FILE  also require client certificates signed by this CA\n"
            "      --db PATH             the SQLite database of statistics, history and\n"
            "                            unfinished games (default\n"
            "                            $XDG_DATA_HOME/sungka/sungka.db; :memory: keeps\n"
            "                            nothing; \"\" disables it)\n"
            "      --require-accounts    refuse guests: playing and creating games needs\n"
            "                            an account (sign in or create one)\n"
            "      --session-days N      a sign-in lasts N days (default 30)\n"
            "      --client-registrations N  accounts one client address may create in\n"
            "                            an hour (default 10)\n"
            "      --check               check the database (SQLite's integrity_check) and\n"
            "                            exit: prints \"PATH: ok\" (status 0) or the\n"
            "                            problems (status 1); no service is started\n"
            "  -q, --quiet               do not log games and players to stderr\n"
            "  -v, --verbose             also show gRPC's own log lines on stderr\n"
            "  -h, --help                show this help and exit\n"
            "      --version             show the version and exit\n"
            "\n"
            "On start it prints \"sungka-board listening on HOST:PORT\" on standard output.\n");
}

/* Strict positive integer option: the whole string, in 1..max. */
static int parse_count(const char *opt, const char *s, int max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max) {
        fprintf(stderr, "sungka-board: %s must be a whole number 1..%d, not '%s'\n", opt, max,
                s);
        return -1;
    }
    *out = (int)v;
    return 0;
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

int main(int argc, char **argv)
{
    enum { OPT_ADVERTISE = 256, OPT_PING_INTERVAL, OPT_PING_TIMEOUT, OPT_GRACE, OPT_MAX_GAMES,
           OPT_BOT_THINK, OPT_DB, OPT_TLS_CERT, OPT_TLS_KEY, OPT_TLS_CLIENT_CA,
           OPT_MAX_PER_CLIENT, OPT_MAX_PARTICIPANTS, OPT_MAX_MESSAGE, OPT_MAX_STREAMS, OPT_CHAT_LENGTH, OPT_CHAT_RATE,
           OPT_MOVE_RATE, OPT_MAX_REQUEST, OPT_CLIENT_STREAMS, OPT_CLIENT_OBSERVERS,
           OPT_CLIENT_JOIN_RATE, OPT_CLIENT_CHAT_RATE, OPT_CHECK, OPT_REQUIRE_ACCOUNTS,
           OPT_SESSION_DAYS, OPT_CLIENT_REGISTRATIONS };
    static const struct option longopts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"advertise", required_argument, NULL, OPT_ADVERTISE},
        {"ping-interval", required_argument, NULL, OPT_PING_INTERVAL},
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
        {"move-rate", required_argument, NULL, OPT_MOVE_RATE},
        {"max-request", required_argument, NULL, OPT_MAX_REQUEST},
        {"max-client-streams", required_argument, NULL, OPT_CLIENT_STREAMS},
        {"max-client-observers", required_argument, NULL, OPT_CLIENT_OBSERVERS},
        {"client-join-rate", required_argument, NULL, OPT_CLIENT_JOIN_RATE},
        {"client-chat-rate", required_argument, NULL, OPT_CLIENT_CHAT_RATE},
        {"tls-cert", required_argument, NULL, OPT_TLS_CERT},
        {"tls-key", required_argument, NULL, OPT_TLS_KEY},
        {"tls-client-ca", required_argument, NULL, OPT_TLS_CLIENT_CA},
        {"max-games", required_argument, NULL, OPT_MAX_GAMES},
        {"check", no_argument, NULL, OPT_CHECK},
        {"require-accounts", no_argument, NULL, OPT_REQUIRE_ACCOUNTS},
        {"session-days", required_argument, NULL, OPT_SESSION_DAYS},
        {"client-registrations", required_argument, NULL, OPT_CLIENT_REGISTRATIONS},
        {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},   /* long only: not in the short options */
        {NULL, 0, NULL, 0},
    };
    board_config cfg = {0};
    int seconds, quiet = 0, check = 0, c;
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
        case OPT_REQUIRE_ACCOUNTS:
            cfg.require_accounts = true;
            break;
        case OPT_SESSION_DAYS:
            if (parse_count("--session-days", optarg, 3650, &cfg.session_days) != 0)
                return 2;
            break;
        case OPT_CLIENT_REGISTRATIONS:
            if (parse_count("--client-registrations", optarg, 1000000,
                            &cfg.client_registrations) != 0)
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
        fprintf(stderr, "sungka-board: %s\n", err);
        rpc_shutdown();
        return 1;
    }
    running = svc;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    const char *listen = cfg.listen ? cfg.listen : "127.0.0.1:7070";
    const char *colon = strrchr(listen, ':');
    int hostlen = colon ? (int)(colon - listen) : (int)strlen(listen);
    printf("sungka-board listening on %.*s:%d%s\n", hostlen, listen, port,
           cfg.tls_cert ? " (TLS)" : "");
    fflush(stdout);
    bool loopback = strncmp(listen, "127.", 4) == 0 || strncmp(listen, "localhost:", 10) == 0 ||
                    strncmp(listen, "[::1]", 5) == 0;
    if (!cfg.tls_cert && !loopback)
        fprintf(stderr, "sungka-board: warning: serving in plaintext on %s: anyone on the "
                        "network can read the games and steal seat tokens; use --tls-cert "
                        "and --tls-key\n",
                listen);

    board_run(svc);
    running = NULL;
    board_destroy(svc);
    rpc_shutdown();
    if (devnull)
        fclose(devnull);
    return 0;
}
