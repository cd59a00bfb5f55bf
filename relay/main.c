/*
 * main.c — `sungka-relay`: the command line of a relay (relay.h). Parses
 * options, starts the relay, prints the bound address on one line (tests
 * read it), and stops cleanly on SIGINT/SIGTERM.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "log_line.h"
#include "options.h"
#include "relay.h"
#include "rpc.h"
#include "server_main.h"
#include "version.h"

static void stop_relay(void *r)
{
    relay_request_stop(r);
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: sungka-relay --upstream HOST:PORT[,HOST:PORT...] [OPTION]...\n"
            "Serve games' event streams to many observers: each game is taken once from\n"
            "the board service that hosts it (or from another relay) and served read-only.\n"
            "\n"
            "  -u, --upstream ADDRS      the cluster's board services (any of them finds a\n"
            "                            game's host), or another relay\n"
            "  -l, --listen ADDR         address to listen on (default 127.0.0.1:7171;\n"
            "                            0.0.0.0:7171 for other machines; port 0 picks one)\n"
            "      --advertise HOST:PORT endpoint written into observers' board references\n"
            "      --max-games N         games relayed at once (default 1000)\n"
            "      --max-observers N     observers at once, all games (default 100000)\n"
            "      --max-streams N       concurrent calls per connection (default 64)\n"
            "  Limits per observer's address, as at a board service:\n"
            "      --max-client-observers N  watcher slots (default 256)\n"
            "      --max-client-streams N    open event streams (default 256)\n"
            "      --client-join-rate N      joins per second (default 20)\n"
            "      --ipv6-prefix N           an IPv6 observer's address is its first N\n"
            "                                bits: these limits hold per /N (default 64;\n"
            "                                give the board services the same)\n"
            "      --relay-key FILE      the secret the board services were given with\n"
            "                            --relay-key (one line of 32 to 128 characters):\n"
            "                            the joins this relay sends them then count against\n"
            "                            the observer who asked, not against this relay, so\n"
            "                            one address cannot use up the relay's allowance;\n"
            "                            a relay below this one that shows the same key\n"
            "                            is treated here as the board services treat this\n"
            "                            one\n"
            "  -q, --quiet               do not log to stderr\n"
            "  -h, --help                show this help and exit\n"
            "      --version             show the version and exit\n"
            "\n"
            "On start it prints \"sungka-relay listening on HOST:PORT\" on standard output.\n"
            "Board services send observers here with --relays.\n");
}

static int parse_count(const char *opt, const char *s, int max, int *out)
{
    return option_number("sungka-relay", opt, s, 1, max, out);
}

int main(int argc, char **argv)
{
    enum { OPT_ADVERTISE = 256, OPT_MAX_GAMES, OPT_MAX_OBSERVERS, OPT_MAX_STREAMS,
           OPT_CLIENT_OBSERVERS, OPT_CLIENT_STREAMS, OPT_CLIENT_JOIN_RATE, OPT_IPV6_PREFIX,
           OPT_RELAY_KEY,
           OPT_VERSION };
    static const struct option longopts[] = {
        {"upstream", required_argument, NULL, 'u'},
        {"listen", required_argument, NULL, 'l'},
        {"advertise", required_argument, NULL, OPT_ADVERTISE},
        {"max-games", required_argument, NULL, OPT_MAX_GAMES},
        {"max-observers", required_argument, NULL, OPT_MAX_OBSERVERS},
        {"max-streams", required_argument, NULL, OPT_MAX_STREAMS},
        {"max-client-observers", required_argument, NULL, OPT_CLIENT_OBSERVERS},
        {"max-client-streams", required_argument, NULL, OPT_CLIENT_STREAMS},
        {"client-join-rate", required_argument, NULL, OPT_CLIENT_JOIN_RATE},
        {"ipv6-prefix", required_argument, NULL, OPT_IPV6_PREFIX},
        {"relay-key", required_argument, NULL, OPT_RELAY_KEY},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    relay_config cfg = {.listen = "127.0.0.1:7171", .log = stderr};
    int c;
    while ((c = getopt_long(argc, argv, "u:l:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'u': cfg.upstream = optarg; break;
        case 'l': cfg.listen = optarg; break;
        case 'q': cfg.log = NULL; break;
        case OPT_ADVERTISE: cfg.advertise = optarg; break;
        case OPT_MAX_GAMES:
            if (parse_count("--max-games", optarg, 1000000, &cfg.max_games) != 0)
                return 2;
            break;
        case OPT_MAX_OBSERVERS:
            if (parse_count("--max-observers", optarg, 10000000, &cfg.max_observers) != 0)
                return 2;
            break;
        case OPT_MAX_STREAMS:
            if (parse_count("--max-streams", optarg, 100000, &cfg.max_streams) != 0)
                return 2;
            break;
        case OPT_CLIENT_OBSERVERS:
            if (parse_count("--max-client-observers", optarg, 10000000,
                            &cfg.max_client_observers) != 0)
                return 2;
            break;
        case OPT_CLIENT_STREAMS:
            if (parse_count("--max-client-streams", optarg, 10000000,
                            &cfg.max_client_streams) != 0)
                return 2;
            break;
        case OPT_CLIENT_JOIN_RATE:
            if (parse_count("--client-join-rate", optarg, 1000000, &cfg.client_join_rate) != 0)
                return 2;
            break;
        case OPT_IPV6_PREFIX:
            if (parse_count("--ipv6-prefix", optarg, 128, &cfg.ipv6_prefix) != 0)
                return 2;
            break;
        case OPT_RELAY_KEY:
            cfg.relay_key = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case OPT_VERSION:
            printf("sungka-relay %s\n", SUNGKA_VERSION);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "sungka-relay: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (!cfg.upstream) {
        fprintf(stderr, "sungka-relay: --upstream names the board services to relay from\n");
        usage(stderr);
        return 2;
    }
    rpc_init();
    relay *r;
    int port = 0;
    char err[512];
    if (relay_create(&cfg, &r, &port, err, sizeof err) != 0) {
        log_line_say(LOG_ERR, "sungka-relay: %s\n", err);
        rpc_shutdown();
        return 1;
    }
    server_say_listening("sungka-relay", cfg.listen, port, "");
    server_stop_on_signals(stop_relay, r);
    relay_run(r);
    server_stop_forget();
    relay_destroy(r);
    rpc_shutdown();
    return 0;
}
