/*
 * main.c — `sungka-player`: join a game on a board service (or host one) and
 * play it through a view.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <fcntl.h>
#include <unistd.h>

#include "agent.h"
#include "local_board.h"
#include "narrate.h"
#include "options.h"
#include "version.h"
#include "view.h"
#include "view_i18n.h"
#include "text/text_analysis.h"
#include "text/text_view.h"

/* A whole number in min..max, or a message and -1. */
static int parse_int(const char *opt, const char *s, int min, int max, int *out)
{
    return option_number("sungka-player", opt, s, min, max, out);
}

/* One line from descriptor fd into out (no newline). */
static void read_line(int fd, char *out, size_t len)
{
    size_t used = 0;
    while (used < len - 1 && !memchr(out, '\n', used)) {
        ssize_t n = read(fd, out + used, len - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
    }
    out[used] = '\0';
    out[strcspn(out, "\r\n")] = '\0';
}

/* --token-fd N: one line from descriptor N (then closed), the seat token a
 * program that starts us (sungka-board, for its bots) hands over without
 * putting it on a command line, which anyone may read in ps. */
static int read_token(const char *arg, char *out, size_t len)
{
    int fd;
    if (parse_int("--token-fd", arg, 0, 1 << 20, &fd) != 0)
        return -1;
    read_line(fd, out, len);
    close(fd);
    if (!out[0]) {
        fprintf(stderr, "sungka-player: no seat token could be read from descriptor %d\n", fd);
        return -1;
    }
    return 0;
}

/* --login NAME's password: from --password-fd N (scripts), else typed at
 * the terminal with its echo off; never from the command line, which anyone
 * may read in ps. */
static int read_password(int fd, const char *name, char *out, size_t len)
{
    if (fd >= 0) {
        read_line(fd, out, len);
        close(fd);
    } else {
        int tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
        if (tty < 0) {
            fprintf(stderr, "sungka-player: --login needs a terminal to type the password "
                            "at, or --password-fd N\n");
            return -1;
        }
        struct termios saved, quiet;
        bool echo_off = tcgetattr(tty, &saved) == 0;
        if (echo_off) {
            quiet = saved;
            quiet.c_lflag &= ~(tcflag_t)ECHO;
            echo_off = tcsetattr(tty, TCSAFLUSH, &quiet) == 0;
        }
        dprintf(tty, "Password for %s: ", name);
        read_line(tty, out, len);
        dprintf(tty, "\n");
        if (echo_off)
            tcsetattr(tty, TCSAFLUSH, &saved);
        close(tty);
    }
    return 0;
}

/* What starting the agent needs besides its configuration, and what main
 * stops at the end: the private board service. */
typedef struct player_start {
    const char *argv0;
    const char *serve;         /* --serve ADDR, or NULL */
    local_board board;         /* pid 0 while none runs */
    bool library_ready;        /* agent_library_init done */
    int fail_status;           /* the exit status when starting failed */
    /* a launcher's copies of the view's choices (the agent keeps pointers) */
    char server[256];
    char name[AGENT_NAME_BYTES];
    agent *ag;                 /* the agent a launcher started */
} player_start;

/* Start the agent as cfg says, on a board service of our own when cfg has
 * no server (--serve's in TLS, its certificate pinned); with the TLS files
 * checked and plaintext off this machine warned about. 0 and *out, or -1
 * with a sentence in err and ps->fail_status, nothing left running. */
static int start_agent(player_start *ps, const agent_config *cfg, agent **out, char *err,
                       size_t errlen)
{
    agent_config c = *cfg;
    ps->fail_status = 1;
    if (!c.server) {
        if (local_board_start(ps->argv0, ps->serve ? ps->serve : "127.0.0.1:0", &ps->board, err,
                              errlen) != 0)
            return -1;
        c.server = ps->board.address;
        /* Our own service: a certificate once remembered for its port is
         * another service's. --serve's is pinned as it is on disk. */
        c.known_servers = "";
        if (ps->board.tls) {
            c.tls = true;
            c.tls_ca = ps->board.cert;
        }
        if (ps->serve)
            printf(_("Hosting a board service on %s in TLS. Its certificate's fingerprint is\n"
                     "  %s\n"
                     "Those who join are shown it on their first connection: it must be this "
                     "one.\n"),
                   ps->serve, ps->board.fingerprint);
        if (ps->board.memory_db)
            printf(_("This game's result will not be kept: another Sungka game on this "
                     "computer holds the statistics file.\n"));
    }
    if (c.tls) {
        if (agent_check_tls(&c, err, errlen) != 0) {   /* before "Connected.", in words */
            ps->fail_status = 2;
            local_board_stop(&ps->board);
            return -1;
        }
    } else if (agent_may_send_secret(&c, err, errlen) != 0) {
        /* Off this machine, and not remembered as a TLS service either. */
        fprintf(stderr, "sungka-player: warning: talking to %s in plaintext; anyone on the "
                        "network can read the game and your seat token (use --tls)\n",
                c.server);
    }
    if (!ps->library_ready) {  /* once; the first time after the fork above */
        agent_library_init();
        ps->library_ready = true;
    }
    if (agent_start(&c, out, err, errlen) != 0) {
        local_board_stop(&ps->board);
        return -1;
    }
    if (c.new_kind && (ps->serve || ps->board.pid == 0)) {
        const char *port =
            ps->serve && strrchr(ps->serve, ':') ? strrchr(ps->serve, ':') + 1 : NULL;
        /* TRANSLATORS: the command's words and THIS-HOST stay as they are */
        printf(_("Created game %s. Others join with:\n"
                 "  sungka-player --server %s%s%s --name NAME --game %s\n"),
               agent_game_id(*out), port ? "THIS-HOST:" : "", port ? port : c.server,
               c.tls ? " --tls" : "", agent_game_id(*out));
        fflush(stdout);
    }
    return 0;
}

/* view_launcher.start: the view's server ("" or NULL: a private service)
 * and name; agent_start makes a first call to the service, so that a wrong
 * address is said while the user can still correct it. */
static int launcher_start(view_launcher *l, agent **out, char *err, size_t errlen)
{
    player_start *ps = l->priv;
    agent_config *cfg = l->cfg;
    if (ps->ag) {
        snprintf(err, errlen, "already connected");
        return -1;
    }
    snprintf(ps->server, sizeof ps->server, "%s", cfg->server ? cfg->server : "");
    snprintf(ps->name, sizeof ps->name, "%s", cfg->name ? cfg->name : "");
    cfg->server = ps->server[0] ? ps->server : NULL;
    cfg->name = ps->name;
    if (!ps->name[0]) {
        snprintf(err, errlen, "say who you are: a name is needed");
        return -1;
    }
    if (start_agent(ps, cfg, out, err, errlen) != 0)
        return -1;
    ps->ag = *out;
    return 0;
}

/* view_launcher.stop: back to before launcher_start. */
static void launcher_stop(view_launcher *l)
{
    player_start *ps = l->priv;
    if (!ps->ag)
        return;
    agent_destroy(ps->ag);
    ps->ag = NULL;
    local_board_stop(&ps->board);
}

/* --analyse FILE: the engine's review of a match an export wrote, printed;
 * no service is needed. */
static int analyse_file(const char *path, int depth)
{
    FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!in) {
        fprintf(stderr, "sungka-player: cannot read %s: %s\n", path, strerror(errno));
        return 1;
    }
    agent_match m;
    int *seats, *moves;
    char err[512];
    int rc = agent_read_match(in, &m, &seats, &moves, err, sizeof err);
    if (in != stdin)
        fclose(in);
    if (rc != 0) {
        fprintf(stderr, "sungka-player: %s: %s\n", path, err);
        return 1;
    }
    rc = text_analysis_show(stdout, &m, seats, moves, depth);
    free(seats);
    free(moves);
    return rc == 0 ? 0 : 1;
}

/* --analyse ID with --server: the service's review of match ID (or, when
 * it has none, one computed here, said so). */
static int analyse_match(agent *ag, const char *id)
{
    agent_match m;
    int *seats, *moves;
    char err[512];
    if (agent_get_match(ag, id, &m, &seats, &moves, err, sizeof err) != 0) {
        fprintf(stderr, "sungka-player: %s\n", err);
        return 1;
    }
    int rc = 0;
    if (!m.kind) {
        fprintf(stderr, "sungka-player: this program does not know the game kind '%s'\n",
                m.kind_name);
        rc = 1;
    } else {
        text_analysis_replay(stdout, ag, &m, seats, moves);
    }
    free(seats);
    free(moves);
    return rc;
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: sungka-player [OPTION]...\n"
            "Play or watch a Sungka game through a view.\n"
            "\n"
            "  -s, --server HOST:PORT  the board service to use; without it a private one\n"
            "                          is started on loopback for this game; a cluster's\n"
            "                          nodes: HOST:PORT,HOST:PORT,... (the next is tried\n"
            "                          when one does not answer)\n"
            "      --serve ADDR        start a board service listening on ADDR (e.g.\n"
            "                          0.0.0.0:7070) so others can join, and play on it.\n"
            "                          It serves TLS with a certificate of its own (as\n"
            "                          sungka-board --tls-self-signed: made once, kept in\n"
            "                          $XDG_DATA_HOME/sungka) and shows its fingerprint;\n"
            "                          others join with --server HOST:PORT --tls and are\n"
            "                          shown the same fingerprint on first connecting\n"
            "      --tls-self-signed   with --serve: what it does anyway, said out loud\n"
            "  -n, --name NAME         your name, 1..32 characters (default: $USER)\n"
            "  -N, --new KIND          create a new game of KIND and join it\n"
            "  -a, --any KIND          join any game of KIND with an open seat (or a new one)\n"
            "      --quick KIND[:CLOCK] quick pairing: wait for players of a near rating\n"
            "                          who ask for the same KIND, --option values and\n"
            "                          CLOCK (5+3, 10, 30/move; --rated: rated games only)\n"
            "                          and play the game the service makes\n"
            "      --history NAME      with --server: print NAME's past matches, newest\n"
            "                          first, each with the tournament that made it, then\n"
            "                          the tournaments NAME played in, with the place and\n"
            "                          points, and exit\n"
            "      --analyse FILE      print the engine's review of the match in FILE (what\n"
            "                          export wrote; - for standard input): each move's\n"
            "                          value before and after, the engine's move, and\n"
            "                          inaccuracies, mistakes and blunders; each\n"
            "                          player's accuracy. No service is needed. With\n"
            "                          --server, FILE is a match id there instead: the\n"
            "                          service's stored review (or one computed here)\n"
            "      --analysis-depth N  with --analyse: plies searched per position, 1..60\n"
            "                          (default: each kind's own, docs/rules.md)\n"
            "  -o, --option NAME=VALUE an option of the new game (repeatable), e.g. cups=7\n"
            "  -t, --title TEXT        a title for the new game\n"
            "      --autostart         the new game starts when full, without \"ready\"\n"
            "      --bot-takes-over    in the new game, a bot (--bot-level) takes the seat of\n"
            "                          a player who does not come back in time\n"
            "      --rated             the new game is rated: signed-in players only, and\n"
            "                          its result changes their ratings (--login)\n"
            "  -g, --game ID           join the existing game ID (again, after a crash: the\n"
            "                          seat is taken back with the token saved last time)\n"
            "      --observe           watch instead of taking a seat\n"
            "      --seat N            with --game: take seat N rather than the first open\n"
            "      --token-fd N        with --game: take back the seat whose token is read\n"
            "                          from file descriptor N (for programs that start\n"
            "                          players; a token on a command line is public)\n"
            "      --ready             say ready as soon as seated (also on taking a seat\n"
            "                          back; the bot view always does)\n"
            "      --hot-seat NAME     also take a seat for NAME: two players, one screen\n"
            "      --bots N            the service fills N seats of the new game with bots\n"
            "      --clock SPEC        a new game's clocks: 5+3 (5 minutes, 3 s more a\n"
            "                          move), 10 (minutes), 30/move (seconds a move)\n"
            "      --no-bell           no terminal bell when it becomes your turn\n"
            "      --login NAME        sign in as account NAME (the password is typed at\n"
            "                          the terminal, or read from --password-fd N)\n"
            "      --password-fd N     with --login: read the password from descriptor N\n"
            "      --bot-level N       their strength, 1..10 (default 5)\n"
            "      --level N           with --view bot: this bot's strength (default 5)\n"
            "      --think MS          with --view bot: time per move (default 1000)\n"
            "      --stay              with --view bot: after the end, stay for a rematch\n"
            "                          (the service's bots accept one) until it starts or\n"
            "                          the service closes the game\n"
            "      --reconnect-for SEC keep trying to get back this long after the\n"
            "                          connection drops (default 90); said once, then\n"
            "                          every 10 s while trying (every SEC/6 s when SEC\n"
            "                          is under 60)\n"
            "      --state-dir DIR     where seat tokens and the text view's history\n"
            "                          are saved (default $XDG_STATE_HOME/sungka; \"\"\n"
            "                          to save none)\n"
            "      --view NAME         the view to use (default text)\n"
            "  -v, --verbose           also show gRPC's own log lines on stderr (and the\n"
            "                          private service's)\n"
            "      --tls               use TLS. A certificate the system's CAs do not\n"
            "                          vouch for (sungka-board --tls-self-signed,\n"
            "                          sungka-player --serve) is trusted on first use:\n"
            "                          its SHA-256 fingerprint is shown and remembered\n"
            "                          for this HOST:PORT, and if it ever changes the\n"
            "                          agent refuses to connect, as ssh does. A server\n"
            "                          remembered so is always spoken to in TLS, --tls\n"
            "                          or not\n"
            "      --known-servers FILE\n"
            "                          where those certificates are remembered (default\n"
            "                          $XDG_CONFIG_HOME/sungka/known-servers; delete a\n"
            "                          server's line there to accept a new certificate;\n"
            "                          \"\" remembers none)\n"
            "      --tls-ca FILE       use TLS; the service's certificate must chain to\n"
            "                          this CA (PEM)\n"
            "      --tls-cert FILE     use TLS with this client certificate...\n"
            "      --tls-key FILE      ...and its key (unencrypted PEM; checked to match the\n"
            "                          certificate), for services that require one\n"
            "      --tls-name NAME     the name on the service's certificate, when it is not\n"
            "                          the host in --server\n"
            "  -h, --help              show this help and exit\n"
            "      --version           show the version and exit\n"
            "\n"
            "Game kinds and their options:\n");
    agent_print_kinds(out);
    fprintf(out, "\nViews:\n");
    for (int i = 0; i < view_count(); i++)
        fprintf(out, "  %-10s %s\n", view_at(i)->name, view_at(i)->summary);
    fprintf(out,
            "\nWithout --new, --any or --game you start in the lobby (type help there; the\n"
            "gtk view opens its games dialog). With none of these and no --server or\n"
            "--serve either, the gtk view first asks where to connect and under which\n"
            "name (an empty address plays on a private service on this computer).\n"
            "\nExamples:\n"
            "  sungka-player --serve 0.0.0.0:7070 --name alice --new sungka\n"
            "  sungka-player --server HOST:7070 --tls --name bob --game 1\n"
            "  sungka-player --server HOST:7070 --tls --name carol --game 1 --observe\n");
}

/* --quick's wait, said on standard output whenever the pool changes. */
static void say_pairing(const agent_pairing *p, void *user)
{
    (void)user;
    if (p->any_rating)
        printf("Waiting for a quick pairing: %d in the pool; any rating now (%lld s).\n",
               p->pool_size, (long long)(p->waited_ms / 1000));
    else
        printf("Waiting for a quick pairing: %d in the pool; ratings %d to %d (%lld s).\n",
               p->pool_size, p->rating - p->range, p->rating + p->range,
               (long long)(p->waited_ms / 1000));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    enum { OPT_SERVE = 256, OPT_OBSERVE, OPT_VIEW, OPT_AUTOSTART, OPT_RATED, OPT_TAKES_OVER, OPT_READY, OPT_HOT_SEAT,
           OPT_RECONNECT_FOR, OPT_STATE_DIR, OPT_BOTS, OPT_BOT_LEVEL, OPT_LEVEL, OPT_THINK,
           OPT_STAY, OPT_QUICK,
           OPT_SEAT, OPT_TLS_CA, OPT_TLS_CERT, OPT_TLS_KEY, OPT_TLS_NAME, OPT_TOKEN_FD, OPT_TLS,
           OPT_KNOWN_SERVERS, OPT_CLOCK, OPT_NO_BELL, OPT_LOGIN, OPT_PASSWORD_FD,
           OPT_TLS_SELF_SIGNED, OPT_ANALYSE, OPT_ANALYSIS_DEPTH, OPT_HISTORY };
    static const struct option longopts[] = {
        {"server", required_argument, NULL, 's'},
        {"serve", required_argument, NULL, OPT_SERVE},
        {"name", required_argument, NULL, 'n'},
        {"new", required_argument, NULL, 'N'},
        {"any", required_argument, NULL, 'a'},
        {"autostart", no_argument, NULL, OPT_AUTOSTART},
        {"rated", no_argument, NULL, OPT_RATED},
        {"bot-takes-over", no_argument, NULL, OPT_TAKES_OVER},
        {"ready", no_argument, NULL, OPT_READY},
        {"hot-seat", required_argument, NULL, OPT_HOT_SEAT},
        {"reconnect-for", required_argument, NULL, OPT_RECONNECT_FOR},
        {"state-dir", required_argument, NULL, OPT_STATE_DIR},
        {"bots", required_argument, NULL, OPT_BOTS},
        {"clock", required_argument, NULL, OPT_CLOCK},
        {"no-bell", no_argument, NULL, OPT_NO_BELL},
        {"login", required_argument, NULL, OPT_LOGIN},
        {"password-fd", required_argument, NULL, OPT_PASSWORD_FD},
        {"bot-level", required_argument, NULL, OPT_BOT_LEVEL},
        {"level", required_argument, NULL, OPT_LEVEL},
        {"think", required_argument, NULL, OPT_THINK},
        {"stay", no_argument, NULL, OPT_STAY},
        {"quick", required_argument, NULL, OPT_QUICK},
        {"analyse", required_argument, NULL, OPT_ANALYSE},
        {"history", required_argument, NULL, OPT_HISTORY},
        {"analysis-depth", required_argument, NULL, OPT_ANALYSIS_DEPTH},
        {"seat", required_argument, NULL, OPT_SEAT},
        {"token-fd", required_argument, NULL, OPT_TOKEN_FD},
        {"tls", no_argument, NULL, OPT_TLS},
        {"tls-self-signed", no_argument, NULL, OPT_TLS_SELF_SIGNED},
        {"known-servers", required_argument, NULL, OPT_KNOWN_SERVERS},
        {"tls-ca", required_argument, NULL, OPT_TLS_CA},
        {"tls-cert", required_argument, NULL, OPT_TLS_CERT},
        {"tls-key", required_argument, NULL, OPT_TLS_KEY},
        {"tls-name", required_argument, NULL, OPT_TLS_NAME},
        {"option", required_argument, NULL, 'o'},
        {"title", required_argument, NULL, 't'},
        {"game", required_argument, NULL, 'g'},
        {"observe", no_argument, NULL, OPT_OBSERVE},
        {"view", required_argument, NULL, OPT_VIEW},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},   /* long only: not in the short options */
        {NULL, 0, NULL, 0},
    };
    view_locale_init();        /* the views' language, before any of them speaks */
    agent_config cfg = {0};
    view_io io = {.in = stdin, .out = stdout};
    const char *serve = NULL, *view_name = "text", *quick = NULL, *analyse = NULL;
    const char *history = NULL;
    int analysis_depth = 0;
    bool verbose = false, self_signed = false;
    static char seat_token[128];
    static char password[1025];
    int password_fd = -1;
    int c;
    while ((c = getopt_long(argc, argv, "s:n:N:a:o:t:g:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 's': cfg.server = optarg; break;
        case OPT_SERVE: serve = optarg; break;
        case 'n': cfg.name = optarg; break;
        case 'N': cfg.new_kind = optarg; break;
        case 'a': cfg.any_kind = optarg; break;
        case OPT_AUTOSTART: cfg.autostart = true; break;
        case OPT_RATED: cfg.rated = true; break;
        case OPT_TAKES_OVER: cfg.bot_takes_over = true; break;
        case OPT_READY: cfg.ready = true; break;
        case OPT_HOT_SEAT: cfg.hot_seat = optarg; break;
        case OPT_STATE_DIR: cfg.state_dir = io.state_dir = optarg; break;
        case OPT_BOTS:
            if (parse_int("--bots", optarg, 0, GAME_MAX_SEATS - 1, &cfg.bots) != 0)
                return 2;
            break;
        case OPT_NO_BELL: io.quiet = true; break;
        case OPT_LOGIN: cfg.login_name = optarg; break;
        case OPT_PASSWORD_FD:
            if (parse_int("--password-fd", optarg, 0, 1 << 20, &password_fd) != 0)
                return 2;
            break;
        case OPT_CLOCK: {
            char err[160];
            if (agent_parse_clock(optarg, &cfg.clock, err, sizeof err) != 0) {
                agent_lobby_failure bad = {.code = AGENT_LOBBY_BAD_CLOCK};
                snprintf(bad.arg, sizeof bad.arg, "%s", optarg);
                char said[512];
                fprintf(stderr, "sungka-player: --clock: %s\n",
                        view_lobby_failure(&bad, err, said, sizeof said));
                return 2;
            }
            break;
        }
        case OPT_BOT_LEVEL:
            if (parse_int("--bot-level", optarg, 1, 10, &cfg.bot_level) != 0)
                return 2;
            break;
        case OPT_LEVEL:
            if (parse_int("--level", optarg, 1, 10, &io.level) != 0)
                return 2;
            break;
        case OPT_TLS: cfg.tls = true; break;
        case OPT_TLS_SELF_SIGNED: self_signed = true; break;
        case OPT_KNOWN_SERVERS: cfg.known_servers = optarg; break;
        case OPT_TLS_CA: cfg.tls = true; cfg.tls_ca = optarg; break;
        case OPT_TLS_CERT: cfg.tls = true; cfg.tls_cert = optarg; break;
        case OPT_TLS_KEY: cfg.tls = true; cfg.tls_key = optarg; break;
        case OPT_TLS_NAME: cfg.tls = true; cfg.tls_name = optarg; break;
        case OPT_SEAT:
            if (parse_int("--seat", optarg, 0, GAME_MAX_SEATS - 1, &cfg.seat) != 0)
                return 2;
            cfg.take_seat = true;
            break;
        case OPT_TOKEN_FD:
            if (read_token(optarg, seat_token, sizeof seat_token) != 0)
                return 2;
            cfg.seat_token = seat_token;
            break;
        case OPT_STAY: io.stay = true; break;
        case OPT_QUICK: quick = optarg; break;
        case OPT_ANALYSE: analyse = optarg; break;
        case OPT_HISTORY: history = optarg; break;
        case OPT_ANALYSIS_DEPTH:
            if (parse_int("--analysis-depth", optarg, 1, 60, &analysis_depth) != 0)
                return 2;
            break;
        case OPT_THINK:
            if (parse_int("--think", optarg, 1, 600000, &io.think_ms) != 0)
                return 2;
            break;
        case OPT_RECONNECT_FOR: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 86400) {
                fprintf(stderr, "sungka-player: --reconnect-for must be 1..86400 seconds\n");
                return 2;
            }
            cfg.reconnect_for_ms = (int)v * 1000;
            break;
        }
        case 'o':
            if (cfg.n_options == GAME_MAX_OPTIONS) {
                fprintf(stderr, "sungka-player: at most %d --option\n", GAME_MAX_OPTIONS);
                return 2;
            }
            cfg.options[cfg.n_options++] = optarg;
            break;
        case 't': cfg.title = optarg; break;
        case 'g': cfg.game_id = optarg; break;
        case OPT_OBSERVE: cfg.observe = true; break;
        case OPT_VIEW: view_name = optarg; break;
        case 'v': verbose = true; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("sungka-player %s\n", SUNGKA_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "sungka-player: unexpected argument '%s' (see --help)\n", argv[optind]);
        return 2;
    }
    if (analyse && !cfg.server)
        return analyse_file(analyse, analysis_depth);
    if (history && !cfg.server) {
        fprintf(stderr, "sungka-player: --history needs --server HOST:PORT, the service that "
                        "keeps the matches\n");
        return 2;
    }
    const view_ops *view = view_find(view_name);
    if (!view) {
        fprintf(stderr, "sungka-player: there is no view '%s' (see --help)\n", view_name);
        return 2;
    }
    if (view->auto_ready)      /* nobody there to type ready */
        cfg.ready = true;
    if (password_fd >= 0 && !cfg.login_name) {
        fprintf(stderr, "sungka-player: --password-fd goes with --login NAME\n");
        return 2;
    }
    if (cfg.login_name) {
        if (read_password(password_fd, cfg.login_name, password, sizeof password) != 0)
            return 2;
        cfg.login_password = password;
    }
    /* When the command line already says where and what, the view goes
     * straight to the board; otherwise a view that can ask, asks. */
    bool ask_where = view->run_connect && !cfg.server && !serve && !cfg.new_kind &&
                     !cfg.any_kind && !cfg.game_id && !quick;
    if (!cfg.name && !ask_where)   /* a view that asks remembers the name */
        cfg.name = getenv("USER");
    if ((!cfg.name || !*cfg.name) && !ask_where) {
        fprintf(stderr, "sungka-player: say who you are with --name NAME\n");
        return 2;
    }
    if ((cfg.new_kind != NULL) + (cfg.game_id != NULL) + (cfg.any_kind != NULL) +
        (quick != NULL) > 1) {
        fprintf(stderr, "sungka-player: give at most one of --new, --any, --game and --quick\n");
        return 2;
    }
    if (cfg.hot_seat && cfg.observe) {
        fprintf(stderr, "sungka-player: --hot-seat takes seats; it cannot --observe\n");
        return 2;
    }
    if (cfg.server && serve) {
        fprintf(stderr, "sungka-player: --server and --serve exclude each other\n");
        return 2;
    }
    if (self_signed && !serve) {
        fprintf(stderr, "sungka-player: --tls-self-signed goes with --serve ADDR: it is the "
                        "certificate of the board service --serve starts (to join one in "
                        "TLS, use --tls)\n");
        return 2;
    }
    if (serve && (cfg.tls_ca || cfg.tls_cert || cfg.tls_key || cfg.tls_name)) {
        fprintf(stderr, "sungka-player: --tls-ca, --tls-cert, --tls-key and --tls-name are "
                        "for joining a service with --server; --serve makes its own "
                        "certificate\n");
        return 2;
    }
    if (cfg.seat_token && !cfg.game_id) {
        fprintf(stderr, "sungka-player: --token-fd needs --game ID\n");
        return 2;
    }
    if (cfg.game_id && !cfg.server && !serve) {
        fprintf(stderr, "sungka-player: --game needs --server HOST:PORT\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);

    player_start ps = {.argv0 = argv[0], .serve = serve,
                       .board = {.verbose = verbose, .tls = serve != NULL}};
    agent_library_verbose(verbose);
    char err[1024];            /* room for the changed-certificate warning */
    agent_lobby_failure start_failed = {.code = AGENT_LOBBY_OTHER};
    cfg.start_failed = &start_failed;
    agent *ag;
    int status;
    if (ask_where) {
        view_launcher launcher = {.cfg = &cfg, .start = launcher_start,
                                   .stop = launcher_stop, .priv = &ps};
        status = view->run_connect(&launcher, &io);
        if (ps.ag)
            agent_destroy(ps.ag);
    } else if (start_agent(&ps, &cfg, &ag, err, sizeof err) != 0) {
        /* --new, --any or --game refused: said as the views say it */
        char said[1024];
        fprintf(stderr, "sungka-player: %s\n",
                view_lobby_failure(&start_failed, err, said, sizeof said));
        status = ps.fail_status;
    } else if (analyse) {
        status = analyse_match(ag, analyse);
        agent_destroy(ag);
    } else if (history) {
        status = text_view_print_history(ag, stdout, history, NULL) == 0 ? 0 : 1;
        agent_destroy(ag);
    } else if (quick && agent_quick_pair(ag, quick, cfg.options, cfg.n_options, cfg.rated,
                                         say_pairing, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "sungka-player: %s\n", err);
        agent_destroy(ag);
        status = 1;
    } else {
        status = view->run(ag, &io);
        agent_destroy(ag);
    }
    if (ps.library_ready)
        agent_library_shutdown();
    local_board_stop(&ps.board);
    return status;
}
