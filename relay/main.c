/*
 * main.c — `sungka-relay`: the command line of a relay (relay.h). Parses
 * its configuration file and options (flags over the file; the keys are the
 * long options, config_file.h), starts the relay, prints the bound address
 * on one line (tests read it), tells systemd it is ready (server_notify.h),
 * reloads the file on SIGHUP (relay_reconfigure) and stops cleanly on
 * SIGINT/SIGTERM.
 */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_line.h"
#include "options.h"
#include "relay.h"
#include "rpc.h"
#include "server_main.h"
#include "server_notify.h"
#include "self_signed.h"
#include "xdg.h"

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
            "                            line override it; SIGHUP reads it again: limits,\n"
            "                            --quiet, --verbose and the TLS certificate are\n"
            "                            taken at once, the rest at the next start (the\n"
            "                            log says which)\n"
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
            "      --tls-cert FILE       serve observers in TLS with this PEM certificate\n"
            "                            chain...\n"
            "      --tls-key FILE        ...and its private key (checked to belong to it;\n"
            "                            both read again on SIGHUP)\n"
            "      --tls-self-signed     serve observers in TLS with a certificate of the\n"
            "                            relay's own, made on the first start and kept\n"
            "                            in ~/.local/share/sungka/relay/ (its fingerprint\n"
            "                            is logged: observers compare it on first use)\n"
            "      --tls-name NAME       a host name or address the certificate\n"
            "                            --tls-self-signed makes also names (repeatable)\n"
            "      --upstream-tls        speak TLS to --upstream, whose certificate must\n"
            "                            chain to the system's CAs (or --upstream-ca)\n"
            "      --upstream-ca FILE    TLS to --upstream; its certificate must chain to\n"
            "                            the PEM certificate(s) in FILE: give a board\n"
            "                            service's own tls-cert.pem (--tls-self-signed) to\n"
            "                            trust exactly that certificate\n"
            "      --upstream-name NAME  the name upstream's certificate must carry, when\n"
            "                            it is not the host in --upstream\n"
            "  -q, --quiet               do not log to stderr\n"
            "  -v, --verbose             also show gRPC's own log lines\n"
            "  -h, --help                show this help and exit\n"
            "      --version             show the version and exit\n"
            "\n"
            "On start it prints \"sungka-relay listening on HOST:PORT\" on standard output.\n"
            "Board services send observers here with --relays.\n");
}

enum { OPT_ADVERTISE = 256, OPT_MAX_GAMES, OPT_MAX_OBSERVERS, OPT_MAX_STREAMS,
       OPT_CLIENT_OBSERVERS, OPT_CLIENT_STREAMS, OPT_CLIENT_JOIN_RATE, OPT_IPV6_PREFIX,
       OPT_RELAY_KEY, OPT_CONFIG, OPT_METRICS, OPT_TLS_CERT, OPT_TLS_KEY, OPT_UPSTREAM_TLS,
       OPT_UPSTREAM_CA, OPT_UPSTREAM_NAME, OPT_TLS_SELF_SIGNED, OPT_TLS_NAME,
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
    {"tls-cert", required_argument, NULL, OPT_TLS_CERT},
    {"tls-key", required_argument, NULL, OPT_TLS_KEY},
    {"tls-self-signed", no_argument, NULL, OPT_TLS_SELF_SIGNED},
    {"tls-name", required_argument, NULL, OPT_TLS_NAME},
    {"upstream-tls", no_argument, NULL, OPT_UPSTREAM_TLS},
    {"upstream-ca", required_argument, NULL, OPT_UPSTREAM_CA},
    {"upstream-name", required_argument, NULL, OPT_UPSTREAM_NAME},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* Keys a file may not hold: things to do, and the file itself. */
static const int not_settings[] = {'h', OPT_VERSION, OPT_CONFIG};

typedef struct settings {
    server_settings common;    /* first: --help, --version, --config, the file's strings
                                  (which cfg points into) */
    relay_config cfg;
    bool self_signed;          /* --tls-self-signed */
    const char *tls_names[SELF_SIGNED_MAX_NAMES];   /* --tls-name */
    size_t n_tls_names;
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
    case 'v': cfg->grpc_log = true; break;
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
    case OPT_TLS_CERT: cfg->tls_cert = value; break;
    case OPT_TLS_KEY: cfg->tls_key = value; break;
    case OPT_UPSTREAM_TLS: cfg->upstream_tls = true; break;
    case OPT_UPSTREAM_CA: cfg->upstream_tls = true; cfg->upstream_ca = value; break;
    case OPT_UPSTREAM_NAME: cfg->upstream_name = value; break;
    case OPT_TLS_SELF_SIGNED: st->self_signed = true; break;
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
    case OPT_CONFIG: st->common.config = value; break;
    case 'h': st->common.help = true; break;
    case OPT_VERSION: st->common.version = true; break;
    default:
        snprintf(err, errlen, "is not an option");
        return -1;
    }
    return 0;
}

static void defaults(void *st)
{
    ((settings *)st)->cfg = (relay_config){.listen = "127.0.0.1:7171", .log = stderr};
}

/* The command line and the configuration file (server_main.h). */
static const server_program program = {
    .name = "sungka-relay", .section = "relay", .default_config = DEFAULT_CONFIG,
    .shortopts = "u:l:qvh", .longopts = longopts, .not_settings = not_settings,
    .n_not_settings = sizeof not_settings / sizeof not_settings[0], .usage = usage,
    .apply = apply_option, .size = sizeof(settings), .defaults = defaults,
};

/* A reload (SIGHUP): read the file and the command line again and hand the
 * relay what changed; a file with an error changes nothing. On the loop
 * thread (relay_run calls it), which is main's. */
typedef struct reloading {
    int argc;
    char **argv;
    const char *file;          /* NULL: there is none to read */
    const self_signed_pair *ss;    /* --tls-self-signed's pair; NULL: none */
} reloading;

static void reload(relay *r, void *arg)
{
    reloading *rl = arg;
    server_notify_reloading();
    settings next;
    char said[2048];
    if (server_settings_reload(&program, rl->file, rl->argc, rl->argv, &next) == 0) {
        if (rl->ss && next.self_signed) {   /* the same files as at start */
            next.cfg.tls_cert = rl->ss->cert;
            next.cfg.tls_key = rl->ss->key;
        }
        relay_reconfigure(r, &next.cfg, said, sizeof said);
        if (!rl->ss != !next.self_signed)
            strncat(said, "; needs a restart: tls-self-signed", sizeof said - strlen(said) - 1);
        rpc_set_verbose(next.cfg.grpc_log);
        log_line_say(LOG_NOTICE, "sungka-relay: reloaded %s: %s\n", rl->file, said);
        server_settings_free(&next);   /* relay_reconfigure copied what it took */
    }
    server_notify_ready();
}

/* --tls-self-signed: the relay's own pair (in Sungka's data directory,
 * relay/), and cfg's TLS files pointed at it; its fingerprint said. 0, or
 * -1 with the sentence said. */
static int use_self_signed(relay_config *cfg, const settings *st, self_signed_pair *ss)
{
    char dir[PATH_MAX], err[2048];
    if (xdg_sungka_dir(XDG_DATA, true, dir, sizeof dir) != 0 ||
        strlen(dir) + sizeof "/relay" > sizeof dir) {
        fprintf(stderr, "sungka-relay: cannot find a directory for the TLS certificate (no "
                        "home directory?); use --tls-cert and --tls-key\n");
        return -1;
    }
    strcat(dir, "/relay");
    if (self_signed_for_server(dir, cfg->listen, st->tls_names, st->n_tls_names, ss, err,
                               sizeof err) != 0) {
        fprintf(stderr, "sungka-relay: --tls-self-signed: %s\n", err);
        return -1;
    }
    cfg->tls_cert = ss->cert;
    cfg->tls_key = ss->key;
    /* Said whatever --quiet says: observers need it to trust us. */
    log_line_say(LOG_NOTICE, "sungka-relay: TLS certificate %s (%s %s); observers compare this "
                             "fingerprint with the one their agent shows on first connecting\n",
                 ss->fingerprint, ss->made ? "made now:" : "kept in", ss->cert);
    if (ss->missing[0])
        log_line_say(LOG_WARNING, "sungka-relay: warning: the kept certificate does not name "
                                  "%s; clients that check host names refuse it under those; "
                                  "delete %s and %s to make one that names them\n",
                     ss->missing, ss->cert, ss->key);
    return 0;
}

static void request_reload(void *r)
{
    relay_request_reload(r);
}

int main(int argc, char **argv)
{
    settings st;
    const char *file;
    int rc = server_main_settings(&program, argc, argv, &st, &file);
    if (rc >= 0)
        return rc;
    char err[1024];
    rc = 2;
    relay_config cfg = st.cfg;
    if (!cfg.upstream) {
        fprintf(stderr, "sungka-relay: --upstream names the board services to relay from\n");
        usage(stderr);
        goto out;
    }
    if (st.self_signed && (cfg.tls_cert || cfg.tls_key)) {
        fprintf(stderr, "sungka-relay: --tls-self-signed makes its own certificate: give it "
                        "or --tls-cert and --tls-key, not both\n");
        goto out;
    }
    if (st.n_tls_names && !st.self_signed) {
        fprintf(stderr, "sungka-relay: --tls-name names a certificate --tls-self-signed "
                        "makes; a --tls-cert names its hosts itself\n");
        goto out;
    }
    self_signed_pair ss;
    if (st.self_signed && use_self_signed(&cfg, &st, &ss) != 0) {
        rc = 1;
        goto out;
    }
    reloading rl = {.argc = argc, .argv = argv, .file = file,
                    .ss = st.self_signed ? &ss : NULL};
    cfg.on_reload = reload;
    cfg.hook_arg = &rl;
    rpc_set_verbose(cfg.grpc_log);
    rpc_init();
    relay *r;
    int port = 0;
    if (relay_create(&cfg, &r, &port, err, sizeof err) != 0) {
        log_line_say(LOG_ERR, "sungka-relay: %s\n", err);
        rpc_shutdown();
        rc = 1;
        goto out;
    }
    server_say_listening("sungka-relay", cfg.listen, port, cfg.tls_cert ? " (TLS)" : "");
    server_stop_on_signals(stop_relay, r);
    server_reload_on_sighup(request_reload, r);
    server_notify_ready();
    relay_run(r);
    server_notify_stopping();
    server_stop_forget();
    relay_destroy(r);
    rpc_shutdown();
    rc = 0;
out:
    server_settings_free(&st);
    return rc;
}
