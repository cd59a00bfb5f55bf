/*
 * main.c — `sungka-relay`: the command line of a relay (relay.h). Parses
 * its configuration file and options (flags over the file; the keys are the
 * long options, config_file.h), starts the relay, prints the bound address
 * on one line (tests read it), and stops cleanly on SIGINT/SIGTERM.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_file.h"

#include "log_line.h"
#include "options.h"
#include "relay.h"
#include "rpc.h"
#include "server_main.h"
#include "version.h"

/* --config's default: read when it exists and no --config is given. */
#define DEFAULT_CONFIG "/etc/sungka/relay.conf"

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
            "      --config FILE         read settings from FILE (default\n"
            "                            " DEFAULT_CONFIG " when it exists; \"\" reads\n"
            "                            none): an INI file whose [relay] section has one\n"
            "                            key per long option below, without the dashes\n"
            "                            (upstream = HOST:PORT); options on the command\n"
            "                            line override it\n"
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
            "      --metrics HOST:PORT   serve metrics in Prometheus's text format at\n"
            "                            http://HOST:PORT/metrics (plain HTTP: keep it on\n"
            "                            loopback or a private network; port 0 picks one,\n"
            "                            said on stderr)\n"
            "  -q, --quiet               do not log to stderr\n"
            "  -h, --help                show this help and exit\n"
            "      --version             show the version and exit\n"
            "\n"
            "On start it prints \"sungka-relay listening on HOST:PORT\" on standard output.\n"
            "Board services send observers here with --relays.\n");
}

enum { OPT_ADVERTISE = 256, OPT_MAX_GAMES, OPT_MAX_OBSERVERS, OPT_MAX_STREAMS,
       OPT_CLIENT_OBSERVERS, OPT_CLIENT_STREAMS, OPT_CLIENT_JOIN_RATE, OPT_IPV6_PREFIX,
       OPT_RELAY_KEY, OPT_CONFIG, OPT_METRICS,
       OPT_VERSION };

/* The options: the one list of settings (the file's keys are their names). */
static const struct option longopts[] = {
    {"config", required_argument, NULL, OPT_CONFIG},
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
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* Keys a file may not hold: things to do, and the file itself. */
static const int not_settings[] = {'h', OPT_VERSION, OPT_CONFIG};

typedef struct settings {
    relay_config cfg;
    bool help, version;
    const char *config;        /* --config FILE */
    config_values *file_values;    /* the file's strings, which cfg points into */
} settings;

static int count(const char *s, int max, int *out, char *err, size_t errlen)
{
    return option_number_says(s, 1, max, out, err, errlen);
}

/* One option, from the command line or the file (config_apply_fn). */
static int apply_option(void *user, int c, const char *name, const char *value, char *err,
                        size_t errlen)
{
    settings *st = user;
    relay_config *cfg = &st->cfg;
    (void)name;
    switch (c) {
    case 'u': cfg->upstream = value; break;
    case 'l': cfg->listen = value; break;
    case 'q': cfg->log = NULL; break;
    case OPT_ADVERTISE: cfg->advertise = value; break;
    case OPT_MAX_GAMES: return count(value, 1000000, &cfg->max_games, err, errlen);
    case OPT_MAX_OBSERVERS: return count(value, 10000000, &cfg->max_observers, err, errlen);
    case OPT_MAX_STREAMS: return count(value, 100000, &cfg->max_streams, err, errlen);
    case OPT_CLIENT_OBSERVERS:
        return count(value, 10000000, &cfg->max_client_observers, err, errlen);
    case OPT_CLIENT_STREAMS:
        return count(value, 10000000, &cfg->max_client_streams, err, errlen);
    case OPT_CLIENT_JOIN_RATE: return count(value, 1000000, &cfg->client_join_rate, err, errlen);
    case OPT_IPV6_PREFIX: return count(value, 128, &cfg->ipv6_prefix, err, errlen);
    case OPT_RELAY_KEY: cfg->relay_key = value; break;
    case OPT_METRICS: cfg->metrics = value; break;
    case OPT_CONFIG: st->config = value; break;
    case 'h': st->help = true; break;
    case OPT_VERSION: st->version = true; break;
    default:
        snprintf(err, errlen, "is not an option");
        return -1;
    }
    return 0;
}

/* The command line into st (over what is there): 0, or 2 after saying what
 * was wrong. optind 0: GNU getopt starts again, for the second reading. */
static int parse_argv(int argc, char **argv, settings *st)
{
    return config_argv_read("sungka-relay", argc, argv, "u:l:qh", longopts, apply_option, st,
                            usage);
}

int main(int argc, char **argv)
{
    settings first = {0}, st = {.cfg = {.listen = "127.0.0.1:7171", .log = stderr}};
    if (parse_argv(argc, argv, &first) != 0)
        return 2;
    if (first.help) {
        usage(stdout);
        return 0;
    }
    if (first.version) {
        printf("sungka-relay %s\n", SUNGKA_VERSION);
        return 0;
    }
    const char *file = config_file_chosen(first.config, DEFAULT_CONFIG);
    char err[1024];
    int rc = 2;
    if (file && config_file_read(file, "relay", longopts, not_settings,
                                 sizeof not_settings / sizeof not_settings[0], apply_option, &st,
                                 &st.file_values, err, sizeof err) != 0) {
        fprintf(stderr, "sungka-relay: %s\n", err);
        goto out;
    }
    if (parse_argv(argc, argv, &st) != 0)
        goto out;
    relay_config cfg = st.cfg;
    if (!cfg.upstream) {
        fprintf(stderr, "sungka-relay: --upstream names the board services to relay from\n");
        usage(stderr);
        goto out;
    }
    rpc_init();
    relay *r;
    int port = 0;
    if (relay_create(&cfg, &r, &port, err, sizeof err) != 0) {
        log_line_say(LOG_ERR, "sungka-relay: %s\n", err);
        rpc_shutdown();
        rc = 1;
        goto out;
    }
    server_say_listening("sungka-relay", cfg.listen, port, "");
    server_stop_on_signals(stop_relay, r);
    relay_run(r);
    server_stop_forget();
    relay_destroy(r);
    rpc_shutdown();
    rc = 0;
out:
    config_values_free(st.file_values);
    return rc;
}
