/*
 * sungka-admin — the operator's program: drives a board service's Admin
 * service (proto/sungka/v1/admin.proto) with its admin token, and prints
 * what it answers as aligned text.
 *
 *   sungka-admin [--server HOST:PORT] [--token-file F] [--tls...] COMMAND ARGS
 *
 * One call per run, made synchronously through rpc/'s client. A game
 * another node of a cluster hosts is answered ELSEWHERE with that node's
 * endpoint: the call is made once more there (rpc_pool_follow), as the
 * agent follows. Exit status: 0 done, 1 refused or failed, 2 a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "relay_key.h"
#include "rpc.h"
#include "sungka/v1/admin.pb-c.h"
#include "text.h"
#include "version.h"
#include "xdg.h"

#define CALL_TIMEOUT_MS 15000
#define EXIT_REFUSED 1
#define EXIT_USAGE 2

typedef struct admin_opts {
    const char *server;
    const char *token_file;
    bool tls;
    rpc_tls_files tls_files;
    const char *tls_name;
    long long duration;            /* --for: seconds; 0: until lifted */
    int limit;                     /* log: how many */
} admin_opts;

/* One command: its name, its arguments as help shows them, how many it
 * takes (at least, at most), what it does. */
typedef struct command {
    const char *name;
    const char *args;
    int min_args, max_args;
    const char *help;
    int (*run)(rpc_pool *pool, const char *token, const admin_opts *o, char **argv);
} command;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: sungka-admin [OPTION]... COMMAND [ARG]...\n"
            "Moderate a Sungka board service through its Admin service: who is online,\n"
            "taking someone out of a game, ending games, banning accounts and addresses,\n"
            "muting chat, resetting a forgotten password, the rating report and the log\n"
            "of every admin action.\n"
            "\n"
            "Commands (sungka-admin COMMAND --help says more):\n"
            "  online                       who is connected, their address, games, seats\n"
            "  kick GAME NAME REASON        take NAME out of game GAME, for REASON\n"
            "  end GAME REASON              end a game with no result, for REASON\n"
            "  ban NAME REASON              disable an account (--for DURATION)\n"
            "  unban NAME [REASON]          enable it again\n"
            "  ban-address PREFIX REASON    refuse an address or a CIDR prefix (--for)\n"
            "  unban-address PREFIX [REASON]\n"
            "  reset-password NAME [REASON] a one-time code to set a forgotten password\n"
            "  mute NAME REASON             refuse an account's chat (--for DURATION)\n"
            "  unmute NAME [REASON]\n"
            "  bans                         the bans and mutes in force\n"
            "  ratings                      who plays whom rated (rating farming)\n"
            "  log [N]                      the newest N admin actions (default 50)\n"
            "\n"
            "Options:\n"
            "  -s, --server HOST:PORT       the board service (default 127.0.0.1:7070;\n"
            "                               several, comma-separated, for a cluster)\n"
            "  -t, --token-file FILE        the admin token (default: the one beside the\n"
            "                               default database,\n"
            "                               $XDG_DATA_HOME/sungka/sungka.db.admin-token)\n"
            "      --for DURATION           ban, ban-address, mute: for this long (90s, 30m, 12h,\n"
            "                               7d; default: until lifted)\n"
            "      --tls                    connect with TLS (the system's roots, or\n"
            "                               --tls-ca)\n"
            "      --tls-ca FILE            the CA the service's certificate chains to\n"
            "      --tls-cert FILE          a client certificate (--tls-client-ca services)\n"
            "      --tls-key FILE           its key\n"
            "      --tls-name NAME          the name the service's certificate carries\n"
            "  -h, --help                   show this help and exit\n"
            "      --version                show the version and exit\n"
            "\n"
            "Exit status: 0 done, 1 refused or failed (the service's sentence on stderr),\n"
            "2 a usage error.\n");
}

/* ------------------------------------------------------------ calls */

/* One call, following a cluster's ELSEWHERE once. 0 and *reply, or 1 with
 * the sentence on stderr. */
static int call(rpc_pool *pool, const char *token, const char *method,
                const ProtobufCMessage *req, ProtobufCMessage **reply)
{
    rpc_method m = rpc_method_named(&sungka__v1__admin__descriptor, method, false);
    rpc_status st;
    for (int tries = 0; tries < 3; tries++) {
        if (rpc_client_call_sync(rpc_pool_client(pool), &m, req, token, CALL_TIMEOUT_MS, reply,
                                 &st) == 0)
            return 0;
        if (!(st.code == RPC_UNAVAILABLE && st.endpoint[0]) || !rpc_pool_follow(pool, &st))
            break;
    }
    char where[RPC_ADDRESS_BYTES];
    if (st.code == RPC_UNAVAILABLE && !st.reason[0])
        fprintf(stderr, "sungka-admin: cannot reach %s: %s\n",
                rpc_pool_address(pool, where, sizeof where), st.message);
    else
        fprintf(stderr, "sungka-admin: %s (%s)\n", st.message,
                st.reason[0] ? st.reason : rpc_code_name(st.code));
    return EXIT_REFUSED;
}

/* A time as the log shows it: "2026-11-27 10:30:00" UTC. */
static const char *when(int64_t ms, char *buf, size_t len)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

/* A string from the service, safe to print (common/text.h). */
static const char *safe(const char *s, char *buf, size_t len)
{
    text_escape(s ? s : "", buf, len);
    return buf;
}

static int cmd_online(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    (void)o;
    (void)argv;
    Sungka__V1__AdminListOnlineRequest req = SUNGKA__V1__ADMIN_LIST_ONLINE_REQUEST__INIT;
    Sungka__V1__AdminListOnlineResponse *r;
    if (call(pool, token, "ListOnline", &req.base, (ProtobufCMessage **)&r) != 0)
        return EXIT_REFUSED;
    printf("%-24s %-20s %-20s %-10s %-8s %s\n", "ADDRESS", "NAME", "ACCOUNT", "GAME", "SEAT",
           "CONNECTED");
    for (size_t i = 0; i < r->n_people; i++) {
        const Sungka__V1__AdminOnlinePerson *p = r->people[i];
        char a[64], n[160], acc[160], g[32], seat[16];
        if (p->seat >= 0)
            snprintf(seat, sizeof seat, "%d", p->seat);
        else
            snprintf(seat, sizeof seat, "watching");
        printf("%-24s %-20s %-20s %-10s %-8s %s\n",
               p->bot ? "(bot)" : (p->address[0] ? safe(p->address, a, sizeof a) : "-"),
               safe(p->name, n, sizeof n), p->account[0] ? safe(p->account, acc, sizeof acc)
                                                         : "(guest)",
               safe(p->game_id, g, sizeof g), seat, p->connected ? "yes" : "no");
    }
    if (r->n_people == 0)
        printf("(nobody)\n");
    protobuf_c_message_free_unpacked(&r->base, NULL);
    return 0;
}

static int ban_call(rpc_pool *pool, const char *token, const char *method,
                    ProtobufCMessage *req, const char *what);

static int cmd_kick(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    (void)o;
    Sungka__V1__AdminKickRequest req = SUNGKA__V1__ADMIN_KICK_REQUEST__INIT;
    ProtobufCMessage *r;
    req.game_id = argv[0];
    req.name = argv[1];
    req.reason = argv[2];
    if (call(pool, token, "Kick", &req.base, &r) != 0)
        return EXIT_REFUSED;
    protobuf_c_message_free_unpacked(r, NULL);
    char n[160];
    printf("%s taken out of game %s\n", safe(argv[1], n, sizeof n), argv[0]);
    return 0;
}

static int cmd_reset(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    (void)o;
    Sungka__V1__AdminResetPasswordRequest req = SUNGKA__V1__ADMIN_RESET_PASSWORD_REQUEST__INIT;
    Sungka__V1__AdminResetPasswordResponse *r;
    req.name = argv[0];
    req.reason = argv[1] ? argv[1] : "";
    if (call(pool, token, "ResetPassword", &req.base, (ProtobufCMessage **)&r) != 0)
        return EXIT_REFUSED;
    char n[160], c[64], w[32];
    printf("reset code for %s: %s (valid until %s UTC, once)\n", safe(r->account, n, sizeof n),
           safe(r->code, c, sizeof c), when(r->expires_ms, w, sizeof w));
    printf("Hand it to the account's owner, who types in sungka-player: reset %s CODE\n", n);
    protobuf_c_message_free_unpacked(&r->base, NULL);
    return 0;
}

static int cmd_end(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    (void)o;
    Sungka__V1__AdminEndGameRequest req = SUNGKA__V1__ADMIN_END_GAME_REQUEST__INIT;
    ProtobufCMessage *r;
    req.game_id = argv[0];
    req.reason = argv[1];
    if (call(pool, token, "EndGame", &req.base, &r) != 0)
        return EXIT_REFUSED;
    protobuf_c_message_free_unpacked(r, NULL);
    printf("game %s ended\n", argv[0]);
    return 0;
}

static void print_ban(const char *what, Sungka__V1__AdminBanResponse *r)
{
    char t[160], w[32];
    printf("%s %s", what, safe(r->target, t, sizeof t));
    if (r->until_ms)
        printf(" until %s UTC", when(r->until_ms, w, sizeof w));
    if (r->seat_tokens_ended)
        printf(" (%d seat tokens ended)", r->seat_tokens_ended);
    if (r->streams_ended)
        printf(" (%d open streams ended)", r->streams_ended);
    printf("\n");
}

static int ban_call(rpc_pool *pool, const char *token, const char *method,
                    ProtobufCMessage *req, const char *what)
{
    Sungka__V1__AdminBanResponse *r;
    if (call(pool, token, method, req, (ProtobufCMessage **)&r) != 0)
        return EXIT_REFUSED;
    print_ban(what, r);
    protobuf_c_message_free_unpacked(&r->base, NULL);
    return 0;
}

/* A ban, a mute or their lifting: the request of type d with its target
 * ("name" or "address") argv[0], its reason argv[1] (none: ""), and for a
 * ban or a mute --for's duration; the answer printed as `what`. */
static int ban_like(rpc_pool *pool, const char *token, const admin_opts *o, char **argv,
                    const char *method, const ProtobufCMessageDescriptor *d, const char *what)
{
    ProtobufCMessage *req = calloc(1, d->sizeof_message);
    if (!req) {
        fprintf(stderr, "sungka-admin: out of memory\n");
        return EXIT_REFUSED;
    }
    d->message_init(req);
    const char *target = protobuf_c_message_descriptor_get_field_by_name(d, "name") ? "name"
                                                                                    : "address";
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(d, target);
    *(const char **)((char *)req + f->offset) = argv[0];
    f = protobuf_c_message_descriptor_get_field_by_name(d, "reason");
    *(const char **)((char *)req + f->offset) = argv[1] ? argv[1] : "";
    f = protobuf_c_message_descriptor_get_field_by_name(d, "duration_seconds");
    if (f)
        *(int64_t *)((char *)req + f->offset) = o->duration;
    int rc = ban_call(pool, token, method, req, what);
    free(req);           /* its strings are argv's */
    return rc;
}

static int cmd_ban(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    return ban_like(pool, token, o, argv, "BanAccount",
                    &sungka__v1__admin_ban_account_request__descriptor, "banned account");
}

static int cmd_unban(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    return ban_like(pool, token, o, argv, "UnbanAccount",
                    &sungka__v1__admin_unban_account_request__descriptor, "unbanned account");
}

static int cmd_ban_address(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    return ban_like(pool, token, o, argv, "BanAddress",
                    &sungka__v1__admin_ban_address_request__descriptor, "banned address");
}

static int cmd_unban_address(rpc_pool *pool, const char *token, const admin_opts *o,
                             char **argv)
{
    return ban_like(pool, token, o, argv, "UnbanAddress",
                    &sungka__v1__admin_unban_address_request__descriptor, "unbanned address");
}

static int cmd_mute(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    return ban_like(pool, token, o, argv, "Mute", &sungka__v1__admin_mute_request__descriptor,
                    "muted account");
}

static int cmd_unmute(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    return ban_like(pool, token, o, argv, "Unmute",
                    &sungka__v1__admin_unmute_request__descriptor, "unmuted account");
}

static int cmd_bans(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    (void)o;
    (void)argv;
    Sungka__V1__AdminListBansRequest req = SUNGKA__V1__ADMIN_LIST_BANS_REQUEST__INIT;
    Sungka__V1__AdminListBansResponse *r;
    if (call(pool, token, "ListBans", &req.base, (ProtobufCMessage **)&r) != 0)
        return EXIT_REFUSED;
    printf("%-8s %-24s %-20s %-20s %s\n", "KIND", "TARGET", "SINCE", "UNTIL", "REASON");
    for (size_t i = 0; i < r->n_bans; i++) {
        const Sungka__V1__AdminBan *b = r->bans[i];
        char t[160], why[600], since[32], until[32];
        printf("%-8s %-24s %-20s %-20s %s\n", b->kind, safe(b->target, t, sizeof t),
               when(b->made_ms, since, sizeof since),
               b->until_ms ? when(b->until_ms, until, sizeof until) : "(until lifted)",
               safe(b->reason, why, sizeof why));
    }
    if (r->n_bans == 0)
        printf("(none)\n");
    protobuf_c_message_free_unpacked(&r->base, NULL);
    return 0;
}

static void print_pairs(const char *title, Sungka__V1__AdminRatedPair **p, size_t n,
                        bool gains)
{
    printf("%s\n", title);
    if (n == 0)
        printf("  (none)\n");
    for (size_t i = 0; i < n; i++) {
        char a[160], b[160];
        if (gains)
            printf("  %-20s %+7.0f of %+7.0f points from %-20s in %d won game%s\n",
                   safe(p[i]->a, a, sizeof a), p[i]->gain, p[i]->total_gain,
                   safe(p[i]->b, b, sizeof b), p[i]->games, p[i]->games == 1 ? "" : "s");
        else
            printf("  %-20s %-20s %6d\n", safe(p[i]->a, a, sizeof a),
                   safe(p[i]->b, b, sizeof b), p[i]->games);
    }
}

static int cmd_ratings(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    (void)o;
    (void)argv;
    Sungka__V1__AdminRatingReportRequest req = SUNGKA__V1__ADMIN_RATING_REPORT_REQUEST__INIT;
    Sungka__V1__AdminRatingReportResponse *r;
    if (call(pool, token, "RatingReport", &req.base, (ProtobufCMessage **)&r) != 0)
        return EXIT_REFUSED;
    print_pairs("Pairs of accounts with the most rated games together (games):", r->most_games,
                r->n_most_games, false);
    printf("\n");
    print_pairs("Accounts that won at least half their rating points against one opponent "
                "(two-seat games):", r->one_opponent, r->n_one_opponent, true);
    printf("\n");
    print_pairs("Pairs not rated: seats taken from the same address (games):", r->same_address,
                r->n_same_address, false);
    printf("\n");
    print_pairs("Pairs not rated: past their rated games of the day (games):", r->pair_limit,
                r->n_pair_limit, false);
    printf("\n");
    print_pairs("Pairs not rated: too short (games):", r->too_short, r->n_too_short, false);
    protobuf_c_message_free_unpacked(&r->base, NULL);
    return 0;
}

static int cmd_log(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    Sungka__V1__AdminListActionsRequest req = SUNGKA__V1__ADMIN_LIST_ACTIONS_REQUEST__INIT;
    Sungka__V1__AdminListActionsResponse *r;
    req.limit = argv[0] ? o->limit : 0;
    if (call(pool, token, "ListActions", &req.base, (ProtobufCMessage **)&r) != 0)
        return EXIT_REFUSED;
    printf("%-20s %-18s %-14s %-24s %s\n", "WHEN (UTC)", "WHO", "ACTION", "TARGET", "REASON");
    for (size_t i = 0; i < r->n_actions; i++) {
        const Sungka__V1__AdminAction *a = r->actions[i];
        char w[32], who[64], t[160], why[600];
        printf("%-20s %-18s %-14s %-24s %s\n", when(a->at_ms, w, sizeof w),
               safe(a->who, who, sizeof who), a->action, safe(a->target, t, sizeof t),
               safe(a->reason, why, sizeof why));
    }
    if (r->n_actions == 0)
        printf("(none)\n");
    protobuf_c_message_free_unpacked(&r->base, NULL);
    return 0;
}

static int cmd_reports(rpc_pool *pool, const char *token, const admin_opts *o, char **argv)
{
    Sungka__V1__AdminListReportsRequest req = SUNGKA__V1__ADMIN_LIST_REPORTS_REQUEST__INIT;
    Sungka__V1__AdminListReportsResponse *r;
    req.limit = argv[0] ? o->limit : 0;
    if (call(pool, token, "ListReports", &req.base, (ProtobufCMessage **)&r) != 0)
        return EXIT_REFUSED;
    printf("%-6s %-20s %-18s %-20s %-20s %-8s %s\n", "ID", "WHEN (UTC)", "FROM", "REPORTER",
           "REPORTED", "GAME", "REASON");
    for (size_t i = 0; i < r->n_reports; i++) {
        const Sungka__V1__AdminReport *p = r->reports[i];
        char w[32], from[64], a[96], b[96], g[64], why[600];
        printf("%-6lld %-20s %-18s %-20s %-20s %-8s %s\n", (long long)p->id,
               when(p->at_ms, w, sizeof w), safe(p->address, from, sizeof from),
               safe(p->reporter, a, sizeof a), safe(p->reported, b, sizeof b),
               p->game_id[0] ? safe(p->game_id, g, sizeof g) : "-",
               safe(p->reason, why, sizeof why));
    }
    if (r->n_reports == 0)
        printf("(none)\n");
    protobuf_c_message_free_unpacked(&r->base, NULL);
    return 0;
}

static const command commands[] = {
    {"online", "", 0, 0, "List everyone in the games of the service: the address they joined "
     "from, their name, their account (or guest), the game, the seat (or watching) and "
     "whether their event stream is open.", cmd_online},
    {"kick", "GAME NAME REASON", 3, 3, "Take the participant NAME out of game GAME: their "
     "event stream ends with \"the operator took you out of the game: REASON\", and a seated "
     "player of a running game is out of it and loses, as by leaving.", cmd_kick},
    {"end", "GAME REASON", 2, 2, "End game GAME, waiting or running, with no result (nobody "
     "wins or loses, no rating changes). Everyone in it reads \"the operator ended the game: "
     "REASON\".", cmd_end},
    {"ban", "NAME REASON", 2, 2, "Disable the account NAME, for --for DURATION or until "
     "unbanned. Its seat tokens end at once; signing in, and every call on its sessions, is "
     "refused with \"This account is disabled: REASON\".", cmd_ban},
    {"unban", "NAME [REASON]", 1, 2, "Enable the account NAME again. The sessions it had "
     "end: its owner signs in again.", cmd_unban},
    {"ban-address", "PREFIX REASON", 2, 2, "Refuse every call from an address "
     "(198.51.100.7, 2001:db8::1) or a CIDR prefix (198.51.100.0/24, 2001:db8::/48), for "
     "--for DURATION or until unbanned, with \"Your address is banned from this service: "
     "REASON\". Its open event streams end.", cmd_ban_address},
    {"unban-address", "PREFIX [REASON]", 1, 2, "Lift the ban of PREFIX (as it was banned).",
     cmd_unban_address},
    {"reset-password", "NAME [REASON]", 1, 2, "Make a one-time code, valid 24 hours, with "
     "which the owner of the account NAME sets a new password (sungka-player: reset NAME "
     "CODE; or Accounts.ResetPassword). The code is printed here only: the service keeps its "
     "hash. Setting the password ends every session and seat token of the account. A new "
     "code replaces the one before.", cmd_reset},
    {"mute", "NAME REASON", 2, 2, "Refuse the chat and private messages of the account NAME, "
     "for --for DURATION or until unmuted, with \"You are muted: REASON\".", cmd_mute},
    {"unmute", "NAME [REASON]", 1, 2, "Let the account NAME chat again.", cmd_unmute},
    {"bans", "", 0, 0, "List the bans and mutes in force: kind, target, since, until, "
     "reason.", cmd_bans},
    {"ratings", "", 0, 0, "The rating report (sungka-board --rating-report, from the "
     "running service): the pairs with the most rated games together, the accounts whose "
     "points came mostly from one opponent, and the pairs whose games were not rated.",
     cmd_ratings},
    {"log", "[N]", 0, 1, "The newest N (default 50, at most 500) admin actions: when, from "
     "which address, what, on whom, and why.", cmd_log},
    {"reports", "[N]", 0, 1, "The newest N (default 50, at most 500) reports players made of "
     "one another (block and report, in sungka-player): when, from which address, who "
     "reported whom, about which game, and why.", cmd_reports},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void command_help(const command *c)
{
    printf("Usage: sungka-admin [OPTION]... %s %s\n%s\n", c->name, c->args, c->help);
}

/* "90", "90s", "30m", "12h", "7d" into seconds; -1 when it is none. */
static long long parse_duration(const char *s)
{
    char *end;
    errno = 0;
    long long n = strtoll(s, &end, 10);
    if (errno || end == s || n <= 0)
        return -1;
    long long unit = 1;
    if (*end == 'm')
        unit = 60;
    else if (*end == 'h')
        unit = 3600;
    else if (*end == 'd')
        unit = 86400;
    else if (*end != 's' && *end)
        return -1;
    if (*end && end[1])
        return -1;
    if (n > (long long)3650 * 86400 / unit)
        return -1;
    return n * unit;
}

enum { OPT_FOR = 256, OPT_TLS, OPT_TLS_CA, OPT_TLS_CERT, OPT_TLS_KEY, OPT_TLS_NAME,
       OPT_VERSION };

static const struct option longopts[] = {
    {"server", required_argument, NULL, 's'},
    {"token-file", required_argument, NULL, 't'},
    {"for", required_argument, NULL, OPT_FOR},
    {"tls", no_argument, NULL, OPT_TLS},
    {"tls-ca", required_argument, NULL, OPT_TLS_CA},
    {"tls-cert", required_argument, NULL, OPT_TLS_CERT},
    {"tls-key", required_argument, NULL, OPT_TLS_KEY},
    {"tls-name", required_argument, NULL, OPT_TLS_NAME},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "sungka-admin: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'sungka-admin --help'.\n");
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    admin_opts o = {.server = "127.0.0.1:7070"};
    bool help = false;
    int c;
    /* "+": options stop at the command, whose own arguments may start with '-'. */
    while ((c = getopt_long(argc, argv, "+s:t:h", longopts, NULL)) != -1) {
        switch (c) {
        case 's': o.server = optarg; break;
        case 't': o.token_file = optarg; break;
        case OPT_FOR:
            if ((o.duration = parse_duration(optarg)) < 0)
                return usage_error("--for takes a duration such as 90s, 30m, 12h or 7d "
                                   "(at most ten years), not '%s'", optarg);
            break;
        case OPT_TLS: o.tls = true; break;
        case OPT_TLS_CA: o.tls = true; o.tls_files.ca = optarg; break;
        case OPT_TLS_CERT: o.tls = true; o.tls_files.cert = optarg; break;
        case OPT_TLS_KEY: o.tls = true; o.tls_files.key = optarg; break;
        case OPT_TLS_NAME: o.tls_name = optarg; break;
        case 'h': help = true; break;
        case OPT_VERSION: printf("sungka-admin %s\n", SUNGKA_VERSION); return 0;
        default: return usage_error("%s", "unknown option");
        }
    }
    if (optind >= argc) {
        if (help) {
            usage(stdout);
            return 0;
        }
        return usage_error("%s", "which command? (online, kick, end, ban, unban, ban-address, "
                                 "unban-address, reset-password, mute, unmute, bans, "
                                 "ratings, log)");
    }
    const command *cmd = NULL;
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(argv[optind], commands[i].name) == 0)
            cmd = &commands[i];
    if (!cmd)
        return usage_error("there is no command '%s' (sungka-admin --help lists them)",
                           argv[optind]);
    char **args = argv + optind + 1;
    int n_args = argc - optind - 1;
    if (help || (n_args > 0 && (strcmp(args[0], "--help") == 0 || strcmp(args[0], "-h") == 0))) {
        command_help(cmd);
        return 0;
    }
    /* --for after the command's name, as people type it. */
    if (n_args >= 2 && strcmp(args[n_args - 2], "--for") == 0) {
        if ((o.duration = parse_duration(args[n_args - 1])) < 0)
            return usage_error("--for takes a duration such as 90s, 30m, 12h or 7d "
                               "(at most ten years), not '%s'", args[n_args - 1]);
        n_args -= 2;
        args[n_args] = NULL;
    }
    if (n_args < cmd->min_args || n_args > cmd->max_args) {
        fprintf(stderr, "sungka-admin: %s takes %s%s\n", cmd->name,
                cmd->args[0] ? cmd->args : "no arguments", "");
        fprintf(stderr, "Usage: sungka-admin [OPTION]... %s %s\n", cmd->name, cmd->args);
        return EXIT_USAGE;
    }
    if (o.duration && strcmp(cmd->name, "ban") != 0 && strcmp(cmd->name, "ban-address") != 0 &&
        strcmp(cmd->name, "mute") != 0)
        return usage_error("--for goes with ban, ban-address and mute, not %s", cmd->name);
    if ((cmd->run == cmd_log || cmd->run == cmd_reports) && n_args == 1) {
        char *end;
        long n = strtol(args[0], &end, 10);
        if (*end || end == args[0] || n < 1 || n > 500)
            return usage_error(cmd->run == cmd_log
                                   ? "log takes a number of actions, 1 to 500, not '%s'"
                                   : "reports takes a number of reports, 1 to 500, not '%s'",
                               args[0]);
        o.limit = (int)n;
    }
    for (int i = 0; i < n_args; i++) {
        char why[96];
        if (text_check(args[i], why, sizeof why) != 0) {
            fprintf(stderr, "sungka-admin: argument %d %s\n", i + 1, why);
            return EXIT_USAGE;
        }
    }
    if ((o.tls_files.cert == NULL) != (o.tls_files.key == NULL))
        return usage_error("%s", "a client certificate needs both --tls-cert and --tls-key");

    char path[1100], token[RELAY_KEY_BYTES], err[1200];
    if (!o.token_file) {
        char db[1024];
        if (xdg_default_db(false, db, sizeof db) != 0) {
            fprintf(stderr, "sungka-admin: no home directory to find the admin token in: "
                            "give --token-file FILE\n");
            return EXIT_USAGE;
        }
        snprintf(path, sizeof path, "%s.admin-token", db);
        o.token_file = path;
    }
    if (secret_file_load(o.token_file, "admin token", token, err, sizeof err) != 0) {
        fprintf(stderr, "sungka-admin: %s (the board service writes it beside its database, "
                        "or where its --admin-token-file says)\n", err);
        return EXIT_REFUSED;
    }

    rpc_set_verbose(false);
    rpc_init();
    rpc_client_options copts = {.use_tls = o.tls, .tls = o.tls_files,
                                .tls_server_name = o.tls_name};
    rpc_pool *pool;
    int rc;
    if (rpc_pool_create(o.server, &copts, &pool) != 0) {
        rc = usage_error("--server takes HOST:PORT (several, comma-separated), not '%s'",
                         o.server);
    } else {
        rc = cmd->run(pool, token, &o, args);
        rpc_pool_destroy(pool);
    }
    memset(token, 0, sizeof token);
    rpc_shutdown();
    return rc;
}
