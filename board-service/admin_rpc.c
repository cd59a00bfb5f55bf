/*
 * admin_rpc.c — the Admin service (proto/sungka/v1/admin.proto), the
 * operator's: who is online, taking someone out of a game, ending a game,
 * banning accounts and addresses, muting an account's chat, a one-time
 * code for a forgotten password, the rating report and the audit log; and the bans applied to
 * every call (board_admit, the rpc server's admit hook).
 *
 * Choices worth knowing:
 *   - The credential is a random token (32 bytes of libsodium, hex) in a
 *     file of mode 0600: --admin-token-file, or DB.admin-token beside an
 *     SQLite database, made on the first start. The service keeps only its
 *     BLAKE2b hash and compares the hash of the token a call shows in
 *     constant time (sodium_memcmp), so the comparison's time says nothing
 *     about the token. A cluster's nodes are given the same file. Without a
 *     token (":memory:" or PostgreSQL without --admin-token-file) every
 *     Admin call is refused, saying how to have one.
 *   - A refused token is logged "client ADDR: admin call refused: ..."
 *     (packaging/fail2ban catches it) and counted per address: past
 *     ADMIN_FAILURES in 5 minutes the address is refused before the token
 *     is looked at. Admin calls are limited per address like sign-ins.
 *   - Bans live in the store (table bans) and in a copy here. The address
 *     bans are kept apart (ban_match.h), so the admit hook, which runs
 *     before every call, does nothing while there is none, and otherwise
 *     matches a connection's peer once per change of the bans; the account
 *     bans and mutes are sorted by account, found by binary search. A node
 *     of a cluster looks at the table every BAN_REFRESH_MS (one row of
 *     aggregates, store_bans_mark_of) and reads it again only when that
 *     changed, so a ban made on another node holds here within that; a
 *     lone service's copy is changed with the table.
 *   - An account's ban does not delete its sessions: every call on them is
 *     refused with the reason while it lasts ("This account is disabled:
 *     REASON"), and they are deleted when the ban is lifted, so the person
 *     signs in again. Its seat tokens end at once (as on sign-out
 *     everywhere). SignIn is refused after the password is checked, so the
 *     reason is told only to who knows the password.
 *   - Every change is a log line ("admin ADDR: ban account bob: REASON")
 *     and a row of admin_actions (ListActions).
 *
 * Loop thread only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "accounts.h"
#include "address.h"
#include "ban_match.h"
#include "board_rpc.h"
#include "relay_key.h"
#include "sungka/v1/admin.pb-c.h"
#include "text.h"
#include "xdg.h"

#define ADMIN_TOKEN_HEADER "sungka-admin-token"
#define ADMIN_TOKEN_RANDOM 32          /* bytes; 64 hex digits in the file */
#define ADMIN_FAILURES 10              /* wrong tokens per address per 5 minutes */
#define ADMIN_FAIL_WINDOW_MS (5 * 60 * 1000)
#define ADMIN_CALLS 20                 /* admin calls per address per second */
#define BAN_REFRESH_MS 1000
#define MAX_BANS 1024
#define REASON_CHARS 200
#define ACTIONS_DEFAULT 50
#define ACTIONS_MAX 500
#define REPORT_ROWS 20

/* A ban as the admit hook reads it. */
typedef struct ban {
    store_ban row;
    address_prefix prefix;     /* STORE_BAN_ADDRESS */
    int64_t account_id;        /* STORE_BAN_ACCOUNT */
} ban;

struct board_admin {
    bool have_token;
    uint8_t token_hash[crypto_generichash_BYTES];
    char token_path[1024];
    ban *bans;                 /* every ban in force, oldest first (ListBans) */
    int n_bans;
    const ban **accounts;      /* the account bans and mutes, by (kind, account_id) */
    int n_accounts;
    const ban **addresses;     /* the address bans, as numbered in `match` */
    ban_match match;
    store_bans_mark mark;      /* the table when it was last read */
    int64_t next_refresh_ms;   /* a cluster's node looks at the bans again then */
};

/* ------------------------------------------------------------ the token */

/* Make the token file: 0600, never over an existing file. */
static int make_token(const char *path, char *err, size_t errlen)
{
    uint8_t raw[ADMIN_TOKEN_RANDOM];
    char hex[ADMIN_TOKEN_RANDOM * 2 + 2];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(hex, sizeof hex, raw, sizeof raw);
    sodium_memzero(raw, sizeof raw);
    size_t n = strlen(hex);
    hex[n++] = '\n';
    int fd = xdg_create_private(path);
    bool ok = fd >= 0 && write(fd, hex, n) == (ssize_t)n;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    sodium_memzero(hex, sizeof hex);
    if (!ok) {
        snprintf(err, errlen, "cannot write the admin token %s: %s", path, strerror(saved));
        if (fd >= 0)
            unlink(path);
        return -1;
    }
    return 0;
}

/* Where the token is: --admin-token-file, or beside an SQLite file. "" for
 * none (":memory:", no store, PostgreSQL without the flag). */
static void token_path(const board_service *svc, char *out, size_t len)
{
    const char *db = svc->cfg.db;
    char path[1024];
    out[0] = '\0';
    if (svc->cfg.admin_token_file) {
        snprintf(out, len, "%s", svc->cfg.admin_token_file);
        return;
    }
    if (!svc->store || store_shared(svc->store) || (db && strcmp(db, ":memory:") == 0))
        return;
    if (!db && store_default_path(path, sizeof path) != 0)
        return;
    if (snprintf(out, len, "%s.admin-token", db ? db : path) >= (int)len)
        out[0] = '\0';            /* too long a path: no token beside it */
}

static void hash_token(const char *token, uint8_t out[crypto_generichash_BYTES])
{
    crypto_generichash(out, crypto_generichash_BYTES, (const unsigned char *)token,
                       strlen(token), NULL, 0);
}

static int load_token(board_service *svc, char *err, size_t errlen)
{
    struct board_admin *a = svc->admin;
    token_path(svc, a->token_path, sizeof a->token_path);
    if (!a->token_path[0])
        return 0;
    bool made = false;
    if (access(a->token_path, F_OK) != 0) {
        if (make_token(a->token_path, err, errlen) != 0)
            return -1;
        made = true;
    }
    char token[RELAY_KEY_BYTES];
    if (secret_file_load(a->token_path, "admin token", token, err, errlen) != 0)
        return -1;
    hash_token(token, a->token_hash);
    sodium_memzero(token, sizeof token);
    a->have_token = true;
    board_log(svc, "admin token %s %s", made ? "made in" : "read from", a->token_path);
    return 0;
}

/* ------------------------------------------------------------ bans */

static void apply_ban(board_service *svc, const ban *b, int *tokens, int *streams);

/* Whether bans[0..n) holds b's target (made before, so applied already). */
static bool known(const ban *bans, int n, const ban *b)
{
    for (int i = 0; i < n; i++)
        if (bans[i].row.kind == b->row.kind && strcmp(bans[i].row.target, b->row.target) == 0 &&
            bans[i].row.made_ms == b->row.made_ms)
            return true;
    return false;
}

static int by_account(const void *x, const void *y)
{
    const ban *a = *(const ban *const *)x, *b = *(const ban *const *)y;
    if (a->row.kind != b->row.kind)
        return a->row.kind < b->row.kind ? -1 : 1;
    return a->account_id < b->account_id ? -1 : a->account_id > b->account_id;
}

/* The indexes of bans[0..n) the calls look in: the account bans and mutes
 * sorted, the address bans in their matcher. 0, or -1 out of memory (the
 * indexes are then as they were). */
static int index_bans(struct board_admin *a, const ban *bans, int n)
{
    const ban **accounts = calloc((size_t)n + 1, sizeof *accounts);
    const ban **addresses = calloc((size_t)n + 1, sizeof *addresses);
    address_prefix *prefixes = calloc((size_t)n + 1, sizeof *prefixes);
    int64_t *until = calloc((size_t)n + 1, sizeof *until);
    int n_accounts = 0, n_addresses = 0, rc = -1;
    if (!accounts || !addresses || !prefixes || !until)
        goto out;
    for (int i = 0; i < n; i++) {
        if (bans[i].row.kind == STORE_BAN_ADDRESS) {
            prefixes[n_addresses] = bans[i].prefix;
            until[n_addresses] = bans[i].row.until_ms;
            addresses[n_addresses++] = &bans[i];
        } else {
            accounts[n_accounts++] = &bans[i];
        }
    }
    if (ban_match_set(&a->match, prefixes, until, n_addresses) != 0)
        goto out;
    qsort(accounts, (size_t)n_accounts, sizeof *accounts, by_account);
    free(a->accounts);
    free(a->addresses);
    a->accounts = accounts;
    a->n_accounts = n_accounts;
    a->addresses = addresses;
    accounts = addresses = NULL;
    rc = 0;
out:
    free(accounts);
    free(addresses);
    free(prefixes);
    free(until);
    return rc;
}

/* Read the bans in force from the store into the copy the calls check.
 * apply_new: a ban this node did not make (another node of the cluster
 * did) is applied here too, to the seats and streams this node serves. */
static int read_bans(board_service *svc, bool apply_new)
{
    struct board_admin *a = svc->admin;
    if (!svc->store)
        return 0;
    store_ban *rows = calloc(MAX_BANS, sizeof *rows);
    if (!rows)
        return -1;
    /* Looked at before the rows are read: a change in between is seen at
     * the next look (board_admin_tick), never missed. */
    if (store_bans_mark_of(svc->store, &a->mark) != 0)
        memset(&a->mark, 0xff, sizeof a->mark);      /* read again next time */
    int n = 0;
    if (store_bans(svc->store, board_shared_now_ms(svc), rows, MAX_BANS, &n) != 0) {
        board_log_at(svc, LOG_ERR, "cannot read the bans: %s", store_last_error(svc->store));
        memset(&a->mark, 0xff, sizeof a->mark);
        free(rows);
        return -1;
    }
    ban *bans = n ? calloc((size_t)n, sizeof *bans) : NULL;
    if (n && !bans) {
        memset(&a->mark, 0xff, sizeof a->mark);
        free(rows);
        return -1;
    }
    int kept = 0;
    for (int i = 0; i < n; i++) {
        ban *b = &bans[kept];
        char why[128];
        b->row = rows[i];
        if (rows[i].kind == STORE_BAN_ADDRESS &&
            address_prefix_parse(rows[i].target, &b->prefix, NULL, 0, why, sizeof why) != 0)
            continue;
        if (rows[i].kind == STORE_BAN_ACCOUNT || rows[i].kind == STORE_BAN_MUTE)
            b->account_id = strtoll(rows[i].target, NULL, 10);
        kept++;
    }
    free(rows);
    if (index_bans(a, bans, kept) != 0) {
        memset(&a->mark, 0xff, sizeof a->mark);
        free(bans);
        return -1;
    }
    for (int i = 0; apply_new && i < kept; i++) {
        int tokens = 0, streams = 0;
        if (!known(a->bans, a->n_bans, &bans[i]))
            apply_ban(svc, &bans[i], &tokens, &streams);
    }
    free(a->bans);
    a->bans = bans;
    a->n_bans = kept;
    return 0;
}

static bool in_force(const ban *b, int64_t now)
{
    return b->row.until_ms == 0 || b->row.until_ms > now;
}

/* " (until 2026-11-27 10:30 UTC)", or "" for a ban without an end. */
static void until_text(int64_t until_ms, char *out, size_t len)
{
    out[0] = '\0';
    if (!until_ms)
        return;
    time_t t = (time_t)(until_ms / 1000);
    struct tm tm;
    char when[32];
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    snprintf(out, len, " (until %s)", when);
}

/* The ban of `kind` (an account's, or a mute) in force on account_id. */
static const store_ban *of_account(board_service *svc, int kind, int64_t account_id)
{
    struct board_admin *a = svc->admin;
    if (!a || a->n_accounts == 0)
        return NULL;
    ban key = {.row.kind = kind, .account_id = account_id};
    const ban *kp = &key;
    const ban **hit = bsearch(&kp, a->accounts, (size_t)a->n_accounts, sizeof *a->accounts,
                              by_account);
    if (!hit)
        return NULL;
    /* One row per (kind, target) in the table, so one per account here. */
    return in_force(*hit, board_shared_now_ms(svc)) ? &(*hit)->row : NULL;
}

const store_ban *board_account_ban(board_service *svc, int64_t account_id)
{
    return of_account(svc, STORE_BAN_ACCOUNT, account_id);
}

const store_ban *board_account_mute(board_service *svc, int64_t account_id)
{
    return of_account(svc, STORE_BAN_MUTE, account_id);
}

void board_account_muted(const store_ban *b, char *out, size_t len)
{
    char until[64];
    until_text(b->until_ms, until, sizeof until);
    snprintf(out, len, "You are muted: %s%s", b->reason, until);
}

void board_account_disabled(const store_ban *b, char *out, size_t len)
{
    char until[64];
    until_text(b->until_ms, until, sizeof until);
    snprintf(out, len, "This account is disabled: %s%s", b->reason, until);
}

/* The address ban peer lies in, or NULL. */
static const ban *address_ban(board_service *svc, const char *peer)
{
    struct board_admin *a = svc->admin;
    int i = ban_match_peer(&a->match, peer, board_shared_now_ms(svc));
    return i < 0 ? NULL : a->addresses[i];
}

static void address_refusal(const ban *b, char *out, size_t len)
{
    char until[64];
    until_text(b->row.until_ms, until, sizeof until);
    snprintf(out, len, "Your address is banned from this service: %s%s", b->row.reason, until);
}

/* Whether call shows this service's admin token. */
static bool shows_token(const struct board_admin *a, rpc_call *call)
{
    char token[RELAY_KEY_BYTES + 8];
    int len = rpc_call_bearer(call, token, sizeof token);
    if (len < 0)
        len = rpc_call_metadata(call, ADMIN_TOKEN_HEADER, token, sizeof token);
    uint8_t shown[crypto_generichash_BYTES];
    hash_token(token, shown);
    sodium_memzero(token, sizeof token);
    return a->have_token && len >= 0 && len < (int)sizeof token - 8 &&
           sodium_memcmp(shown, a->token_hash, sizeof shown) == 0;
}

bool board_admit(void *user, rpc_call *call)
{
    board_service *svc = user;
    if (!svc->admin || ban_match_empty(&svc->admin->match))
        return true;                      /* no address ban: the common case */
    const ban *b = address_ban(svc, rpc_call_peer(call));
    /* The operator is not locked out by a ban of their own address. */
    if (!b || shows_token(svc->admin, call))
        return true;
    char msg[STORE_BAN_REASON_BYTES + 128];
    address_refusal(b, msg, sizeof msg);
    rpc_call_finish_reason(call, RPC_PERMISSION_DENIED, "ADDRESS_BANNED", msg);
    return false;
}

/* ------------------------------------------------------------ reset codes */

/* Letters that cannot be read for one another (no I, O, 0, 1): 32 of
 * them, 5 bits each; RESET_CODE_CHARS of them, 60 bits, against at most
 * --signin-failures guesses of a name per 5 minutes. */
static const char code_letters[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
#define RESET_CODE_CHARS 12
#define RESET_CODE_MS (24 * 3600 * 1000)

int board_reset_code_hash(int64_t account_id, const char *code,
                          uint8_t out[STORE_RESET_HASH_BYTES])
{
    char norm[RESET_CODE_CHARS + 1];
    size_t n = 0;
    for (const char *c = code; *c; c++) {
        if (*c == '-' || *c == ' ')
            continue;
        char up = *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
        if (n >= RESET_CODE_CHARS || !strchr(code_letters, up) || !up)
            return -1;
        norm[n++] = up;
    }
    if (n != RESET_CODE_CHARS)
        return -1;
    norm[n] = '\0';
    char key[32];
    snprintf(key, sizeof key, "sungka reset %lld", (long long)account_id);
    crypto_generichash(out, STORE_RESET_HASH_BYTES, (const unsigned char *)norm, n,
                       (const unsigned char *)key, strlen(key));
    sodium_memzero(norm, sizeof norm);
    return 0;
}

/* A new code, "ABCD-EFGH-JKLM", into out (RESET_CODE_CHARS + 3 bytes). */
static void make_code(char *out)
{
    size_t k = 0;
    for (int i = 0; i < RESET_CODE_CHARS; i++) {
        if (i && i % 4 == 0)
            out[k++] = '-';
        out[k++] = code_letters[randombytes_uniform(sizeof code_letters - 1)];
    }
    out[k] = '\0';
}

/* ------------------------------------------------------------ calls */

/* May call act as the operator? Answered when not. */
static bool admitted(board_service *svc, rpc_call *call, char *host, size_t hostlen)
{
    struct board_admin *a = svc->admin;
    int64_t now = board_now_ms();
    board_peer_host(svc, call, host, hostlen);
    if (!a->have_token) {
        rpc_call_finish_reason(call, RPC_FAILED_PRECONDITION, "NO_ADMIN_TOKEN",
                               "this service has no admin token: start it with "
                               "--admin-token-file FILE (or an SQLite --db, beside which it "
                               "makes one)");
        return false;
    }
    if (board_limit_count(&svc->limits, "admin-fail", host, ADMIN_FAIL_WINDOW_MS, now) >=
        ADMIN_FAILURES) {
        char err[128];
        snprintf(err, sizeof err, "too many wrong admin tokens from your address: wait a few "
                                  "minutes");
        board_log_limit(svc, host, err);
        rpc_call_finish_reason(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", err);
        return false;
    }
    char probe[8];
    if (rpc_call_metadata(call, "authorization", probe, sizeof probe) < 0 &&
        rpc_call_metadata(call, ADMIN_TOKEN_HEADER, probe, sizeof probe) < 0) {
        board_log_client(svc, LOG_NOTICE, host, "admin call refused: no admin token");
        board_limit_add(&svc->limits, "admin-fail", host, ADMIN_FAIL_WINDOW_MS, now);
        rpc_call_finish_reason(call, RPC_UNAUTHENTICATED, "BAD_ADMIN_TOKEN",
                               "an admin call needs the service's admin token (authorization: "
                               "Bearer TOKEN, or sungka-admin-token: TOKEN)");
        return false;
    }
    if (!shows_token(a, call)) {
        board_log_client(svc, LOG_NOTICE, host, "admin call refused: wrong admin token");
        board_limit_add(&svc->limits, "admin-fail", host, ADMIN_FAIL_WINDOW_MS, now);
        rpc_call_finish_reason(call, RPC_PERMISSION_DENIED, "BAD_ADMIN_TOKEN",
                               "that is not this service's admin token");
        return false;
    }
    if (board_limit_count(&svc->limits, "admin-call", host, 1000, now) >= ADMIN_CALLS) {
        char err[96];
        snprintf(err, sizeof err, "too many admin calls from your address: at most %d a second",
                 ADMIN_CALLS);
        board_log_limit(svc, host, err);
        rpc_call_finish_reason(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", err);
        return false;
    }
    board_limit_add(&svc->limits, "admin-call", host, 1000, now);
    return true;
}

bool board_admin_caller(board_service *svc, rpc_call *call)
{
    char host[BOARD_HOST_BYTES];
    if (!svc->admin) {
        rpc_call_finish_reason(call, RPC_FAILED_PRECONDITION, "NO_ADMIN_TOKEN",
                               "this service has no admin token");
        return false;
    }
    return admitted(svc, call, host, sizeof host);
}

/* As admitted, for calls that need the store too. */
static bool admitted_store(board_service *svc, rpc_call *call, char *host, size_t hostlen)
{
    if (!admitted(svc, call, host, hostlen))
        return false;
    if (svc->store)
        return true;
    rpc_call_finish_reason(call, RPC_FAILED_PRECONDITION, "NO_STORE",
                           "this board service keeps no store, so no bans or audit log");
    return false;
}

/* A reason the person refused will read: 1..REASON_CHARS printable
 * characters. 0, or -1 answered. */
static int take_reason(rpc_call *call, const char *in, bool required)
{
    char why[96], err[160];
    if (!in[0] && required) {
        rpc_call_finish_reason(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST",
                               "give a reason: the person refused reads it");
        return -1;
    }
    if (text_check(in, why, sizeof why) != 0 || text_chars(in) > REASON_CHARS) {
        if (text_chars(in) > REASON_CHARS)
            snprintf(why, sizeof why, "is longer than %d characters", REASON_CHARS);
        snprintf(err, sizeof err, "the reason %s", why);
        rpc_call_finish_reason(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST", err);
        return -1;
    }
    return 0;
}

/* Log and keep one action; false (and the call answered NOT_STORED) when
 * it could not be stored. */
static bool record(board_service *svc, rpc_call *call, const char *host, const char *action,
                   const char *target, const char *reason)
{
    char shown_host[BOARD_LOG_HOST_BYTES], t[160], r[STORE_BAN_REASON_BYTES];
    text_escape(target, t, sizeof t);
    text_escape(reason, r, sizeof r);
    board_log_at(svc, LOG_NOTICE, "admin %s: %s %s: %s",
                 board_log_host(host, shown_host, sizeof shown_host), action, t,
                 reason[0] ? r : "(no reason given)");
    store_admin_action a = {.at_ms = board_wall_ms()};
    snprintf(a.who, sizeof a.who, "%s", host[0] ? host : "(unknown)");
    snprintf(a.action, sizeof a.action, "%s", action);
    snprintf(a.target, sizeof a.target, "%s", target);
    snprintf(a.reason, sizeof a.reason, "%s", reason);
    if (store_admin_action_add(svc->store, &a) != 0) {
        board_log_at(svc, LOG_ERR, "cannot store an admin action: %s",
                     store_last_error(svc->store));
        if (call)
            rpc_call_finish_reason(call, RPC_UNAVAILABLE, "NOT_STORED",
                                   "cannot store the action in the audit log");
        return false;
    }
    return true;
}

static void list_online(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    board_service *svc = user;
    char host[BOARD_HOST_BYTES];
    if (!admitted(svc, call, host, sizeof host))
        return;
    size_t total = 0;
    for (int i = 0; i < svc->n_rooms; i++) {
        int n;
        room_people(svc->rooms[i], &n, NULL);
        total += (size_t)n;
    }
    Sungka__V1__AdminOnlinePerson *people = calloc(total ? total : 1, sizeof *people);
    Sungka__V1__AdminOnlinePerson **ptrs = calloc(total ? total : 1, sizeof *ptrs);
    char (*names)[STORE_NAME_BYTES] = calloc(total ? total : 1, sizeof *names);
    char (*addrs)[BOARD_LOG_HOST_BYTES] = calloc(total ? total : 1, sizeof *addrs);
    if (!people || !ptrs || !names || !addrs) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        goto out;
    }
    size_t k = 0;
    for (int i = 0; i < svc->n_rooms; i++) {
        room *r = svc->rooms[i];
        int n;
        participant *const *ps = room_people(r, &n, NULL);
        for (int j = 0; j < n && k < total; j++, k++) {
            const participant *p = ps[j];
            Sungka__V1__AdminOnlinePerson *o = &people[k];
            sungka__v1__admin_online_person__init(o);
            store_account acct;
            if (p->account_id && svc->store &&
                store_account_get(svc->store, p->account_id, &acct) == 0)
                snprintf(names[k], sizeof names[k], "%s", acct.name);
            board_log_host(p->host, addrs[k], sizeof addrs[k]);
            if (!p->host[0])
                addrs[k][0] = '\0';
            o->address = addrs[k];
            o->name = (char *)p->name;
            o->account = names[k];
            o->game_id = (char *)room_id(r);
            o->seat = p->seat;
            o->connected = p->stream != NULL;
            o->bot = p->bot_level > 0;
            ptrs[k] = o;
        }
    }
    Sungka__V1__AdminListOnlineResponse reply = SUNGKA__V1__ADMIN_LIST_ONLINE_RESPONSE__INIT;
    reply.people = ptrs;
    reply.n_people = k;
    rpc_call_reply(call, &reply.base);
out:
    free(people);
    free(ptrs);
    free(names);
    free(addrs);
}

static void end_game(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__AdminEndGameRequest *req = (const void *)request;
    char host[BOARD_HOST_BYTES], err[256];
    if (!admitted_store(svc, call, host, sizeof host) || take_reason(call, req->reason, true))
        return;
    room *r = board_find_room(svc, req->game_id);
    if (!r) {
        if (board_cluster_redirect_game(svc, call, req->game_id))
            return;
        rpc_call_finish_reason(call, RPC_NOT_FOUND, "NOT_FOUND", "there is no such game");
        return;
    }
    if (board_reloading(call, r))
        return;
    room_rc rc = room_end_by_operator(r, req->reason, err, sizeof err);
    if (rc != ROOM_OK) {
        board_refuse(call, rc, err);
        return;
    }
    if (!record(svc, call, host, "end game", req->game_id, req->reason))
        return;
    Sungka__V1__AdminEndGameResponse reply = SUNGKA__V1__ADMIN_END_GAME_RESPONSE__INIT;
    rpc_call_reply(call, &reply.base);
}

/* A duration from a request: 0, or -1 answered. */
static int take_until(board_service *svc, rpc_call *call, int64_t seconds, int64_t *until)
{
    if (seconds < 0 || seconds > (int64_t)10 * 365 * 24 * 3600) {
        rpc_call_finish_reason(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST",
                               "a ban's duration is 0 (until lifted) to ten years");
        return -1;
    }
    *until = seconds ? board_shared_now_ms(svc) + seconds * 1000 : 0;
    return 0;
}

static void ban_done(rpc_call *call, const char *target, int64_t until, int tokens, int streams)
{
    Sungka__V1__AdminBanResponse reply = SUNGKA__V1__ADMIN_BAN_RESPONSE__INIT;
    reply.target = (char *)target;
    reply.until_ms = until;
    reply.seat_tokens_ended = tokens;
    reply.streams_ended = streams;
    rpc_call_reply(call, &reply.base);
}

/* Keep b, in the store and here; false answered. */
static bool put_ban(board_service *svc, rpc_call *call, const store_ban *b)
{
    if (store_ban_put(svc->store, b) != 0) {
        board_log_at(svc, LOG_ERR, "cannot store a ban: %s", store_last_error(svc->store));
        rpc_call_finish_reason(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot store the ban");
        return false;
    }
    read_bans(svc, false);
    return true;
}

/* The account a request names: 0, or -1 answered. */
static int named_account(board_service *svc, rpc_call *call, const char *name,
                         store_account *acct)
{
    if (board_find_account(svc, name, acct) == 0)
        return 0;
    char echo[160], err[224];
    snprintf(err, sizeof err, "there is no account '%s'", board_echo(name, echo, sizeof echo));
    rpc_call_finish_reason(call, RPC_NOT_FOUND, "NOT_FOUND", err);
    return -1;
}

/* Ban (kind STORE_BAN_ACCOUNT) or mute (STORE_BAN_MUTE) the account name. */
static void sanction_account(board_service *svc, rpc_call *call, int kind, const char *name,
                             const char *reason, int64_t seconds)
{
    char host[BOARD_HOST_BYTES];
    store_account acct;
    store_ban b = {.kind = kind};
    if (!admitted_store(svc, call, host, sizeof host) || take_reason(call, reason, true) ||
        named_account(svc, call, name, &acct) != 0 ||
        take_until(svc, call, seconds, &b.until_ms) != 0)
        return;
    snprintf(b.target, sizeof b.target, "%lld", (long long)acct.id);
    snprintf(b.label, sizeof b.label, "%s", acct.name);
    snprintf(b.reason, sizeof b.reason, "%s", reason);
    b.made_ms = board_shared_now_ms(svc);
    if (!put_ban(svc, call, &b) ||
        !record(svc, call, host, kind == STORE_BAN_MUTE ? "mute" : "ban account", acct.name,
                reason))
        return;
    ban applied = {.row = b, .account_id = acct.id};
    int tokens = 0, streams = 0;
    apply_ban(svc, &applied, &tokens, &streams);
    ban_done(call, acct.name, b.until_ms, tokens, streams);
}

/* Lift an account's ban (its sessions end too) or mute. */
static void lift_account(board_service *svc, rpc_call *call, int kind, const char *name,
                         const char *reason)
{
    char host[BOARD_HOST_BYTES], target[STORE_BAN_TARGET_BYTES];
    store_account acct;
    if (!admitted_store(svc, call, host, sizeof host) || take_reason(call, reason, false) ||
        named_account(svc, call, name, &acct) != 0)
        return;
    snprintf(target, sizeof target, "%lld", (long long)acct.id);
    int rc = store_ban_delete(svc->store, kind, target, board_shared_now_ms(svc));
    if (rc == STORE_NOT_FOUND) {
        rpc_call_finish_reason(call, RPC_NOT_FOUND, "NOT_FOUND",
                               kind == STORE_BAN_MUTE ? "that account is not muted"
                                                      : "that account is not banned");
        return;
    }
    /* The sessions it had while banned end: the person signs in again. */
    if (rc != 0 || (kind == STORE_BAN_ACCOUNT &&
                    store_sessions_delete_account(svc->store, acct.id, NULL, NULL) != 0)) {
        rpc_call_finish_reason(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot lift the ban");
        return;
    }
    read_bans(svc, false);
    if (record(svc, call, host, kind == STORE_BAN_MUTE ? "unmute" : "unban account",
               acct.name, reason))
        ban_done(call, acct.name, 0, 0, 0);
}

static void ban_account(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    const Sungka__V1__AdminBanAccountRequest *req = (const void *)request;
    sanction_account(user, call, STORE_BAN_ACCOUNT, req->name, req->reason,
                     req->duration_seconds);
}

static void unban_account(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    const Sungka__V1__AdminUnbanAccountRequest *req = (const void *)request;
    lift_account(user, call, STORE_BAN_ACCOUNT, req->name, req->reason);
}

static void mute(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    const Sungka__V1__AdminMuteRequest *req = (const void *)request;
    sanction_account(user, call, STORE_BAN_MUTE, req->name, req->reason,
                     req->duration_seconds);
}

static void unmute(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    const Sungka__V1__AdminUnmuteRequest *req = (const void *)request;
    lift_account(user, call, STORE_BAN_MUTE, req->name, req->reason);
}

static void reset_password(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__AdminResetPasswordRequest *req = (const void *)request;
    char host[BOARD_HOST_BYTES], code[RESET_CODE_CHARS + 4];
    uint8_t hash[STORE_RESET_HASH_BYTES];
    store_account acct;
    if (!admitted_store(svc, call, host, sizeof host) || take_reason(call, req->reason, false) ||
        named_account(svc, call, req->name, &acct) != 0)
        return;
    make_code(code);
    int64_t until = board_shared_now_ms(svc) + RESET_CODE_MS;
    if (board_reset_code_hash(acct.id, code, hash) != 0 ||
        store_reset_code_put(svc->store, acct.id, hash, until) != 0) {
        rpc_call_finish_reason(call, RPC_UNAVAILABLE, "NOT_STORED",
                               "cannot store the reset code");
    } else if (record(svc, call, host, "reset password", acct.name, req->reason)) {
        Sungka__V1__AdminResetPasswordResponse reply =
            SUNGKA__V1__ADMIN_RESET_PASSWORD_RESPONSE__INIT;
        reply.account = acct.name;
        reply.code = code;
        reply.expires_ms = until;
        rpc_call_reply(call, &reply.base);
    }
    sodium_memzero(code, sizeof code);
    sodium_memzero(hash, sizeof hash);
}

static void kick(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__AdminKickRequest *req = (const void *)request;
    char host[BOARD_HOST_BYTES], err[256], why[STORE_BAN_REASON_BYTES + 64];
    if (!admitted_store(svc, call, host, sizeof host) || take_reason(call, req->reason, true))
        return;
    room *r = board_find_room(svc, req->game_id);
    if (!r) {
        if (!board_cluster_redirect_game(svc, call, req->game_id))
            rpc_call_finish_reason(call, RPC_NOT_FOUND, "NOT_FOUND", "there is no such game");
        return;
    }
    if (board_reloading(call, r))
        return;
    participant *p = room_find_name(r, req->name);
    if (!p) {
        char echo[160];
        snprintf(err, sizeof err, "nobody in game %s is called '%s'", room_id(r),
                 board_echo(req->name, echo, sizeof echo));
        rpc_call_finish_reason(call, RPC_NOT_FOUND, "NOT_FOUND", err);
        return;
    }
    char target[STORE_NAME_BYTES + 32];
    snprintf(target, sizeof target, "%s in game %s", p->name, room_id(r));
    snprintf(why, sizeof why, "the operator took you out of the game: %s", req->reason);
    room_rc rc = room_kick(r, p, why, err, sizeof err);      /* p may be gone now */
    if (rc != ROOM_OK) {
        board_refuse(call, rc, err);
        return;
    }
    if (!record(svc, call, host, "kick", target, req->reason))
        return;
    Sungka__V1__AdminKickResponse reply = SUNGKA__V1__ADMIN_KICK_RESPONSE__INIT;
    rpc_call_reply(call, &reply.base);
}

/* An address or prefix from a request, canonical, into text: 0, or -1
 * answered. */
static int take_prefix(rpc_call *call, const char *in, address_prefix *p, char *text,
                       size_t len)
{
    char err[160];
    if (address_prefix_parse(in, p, text, len, err, sizeof err) == 0)
        return 0;
    rpc_call_finish_reason(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST", err);
    return -1;
}

/* Whether q has an open stream from an address in p (not a relay's: a
 * relay carries many people's). */
static bool streams_from(const participant *q, const address_prefix *p)
{
    if (!q->stream || !q->stream_from || q->stream_from->relay)
        return false;
    const char *h = q->stream_from->host;       /* "ipv4:198.51.100.7" */
    address_prefix addr;
    char err[64];
    return address_prefix_parse(strncmp(h, "ipv", 3) == 0 ? h + 5 : h, &addr, NULL, 0, err,
                                sizeof err) == 0 &&
           address_prefix_contains(p, &addr);
}

/* End the open streams of everyone whose address lies in p; how many. A
 * stream's end may change its room's people, so each room is walked again
 * after one (a ban ends few). */
static int end_streams_from(board_service *svc, const address_prefix *p, const char *why)
{
    int ended = 0;
    for (int i = 0; i < svc->n_rooms; i++) {
        bool again = true;
        while (again) {
            int n;
            participant *const *ps = room_people(svc->rooms[i], &n, NULL);
            again = false;
            for (int j = 0; j < n && !again; j++) {
                if (streams_from(ps[j], p)) {
                    room_end_stream(ps[j], ROOM_E_DENIED, why);
                    ended++;
                    again = true;
                }
            }
        }
    }
    return ended;
}

/* What a new ban does to the people this node serves: an account's seat
 * tokens end (its streams with them), an address's streams end; each told
 * the ban's sentence. */
static void apply_ban(board_service *svc, const ban *b, int *tokens, int *streams)
{
    char why[STORE_BAN_REASON_BYTES + 128];
    if (b->row.kind == STORE_BAN_MUTE)
        return;                    /* refused at the next chat line */
    if (b->row.kind == STORE_BAN_ADDRESS) {
        address_refusal(b, why, sizeof why);
        *streams = end_streams_from(svc, &b->prefix, why);
        return;
    }
    board_account_disabled(&b->row, why, sizeof why);
    for (int i = 0; i < svc->n_rooms; i++) {
        int n = 0;
        room_revoke_account_tokens(svc->rooms[i], b->account_id, why, &n);
        *tokens += n;
    }
}

static void ban_address(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__AdminBanAddressRequest *req = (const void *)request;
    char host[BOARD_HOST_BYTES];
    ban b = {.row.kind = STORE_BAN_ADDRESS};
    if (!admitted_store(svc, call, host, sizeof host) || take_reason(call, req->reason, true) ||
        take_prefix(call, req->address, &b.prefix, b.row.target, sizeof b.row.target) != 0 ||
        take_until(svc, call, req->duration_seconds, &b.row.until_ms) != 0)
        return;
    snprintf(b.row.label, sizeof b.row.label, "%s", b.row.target);
    snprintf(b.row.reason, sizeof b.row.reason, "%s", req->reason);
    b.row.made_ms = board_shared_now_ms(svc);
    if (!put_ban(svc, call, &b.row) ||
        !record(svc, call, host, "ban address", b.row.target, req->reason))
        return;
    int tokens = 0, streams = 0;
    apply_ban(svc, &b, &tokens, &streams);
    ban_done(call, b.row.target, b.row.until_ms, tokens, streams);
}

static void unban_address(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__AdminUnbanAddressRequest *req = (const void *)request;
    char host[BOARD_HOST_BYTES], target[STORE_BAN_TARGET_BYTES];
    address_prefix p;
    if (!admitted_store(svc, call, host, sizeof host) || take_reason(call, req->reason, false) ||
        take_prefix(call, req->address, &p, target, sizeof target) != 0)
        return;
    int rc = store_ban_delete(svc->store, STORE_BAN_ADDRESS, target, board_shared_now_ms(svc));
    if (rc == STORE_NOT_FOUND) {
        char err[128];
        snprintf(err, sizeof err, "%s is not banned (give the prefix as it was banned)",
                 target);
        rpc_call_finish_reason(call, RPC_NOT_FOUND, "NOT_FOUND", err);
        return;
    }
    if (rc != 0) {
        rpc_call_finish_reason(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot lift the ban");
        return;
    }
    read_bans(svc, false);
    if (record(svc, call, host, "unban address", target, req->reason))
        ban_done(call, target, 0, 0, 0);
}

static void list_bans(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    board_service *svc = user;
    struct board_admin *a = svc->admin;
    char host[BOARD_HOST_BYTES];
    if (!admitted_store(svc, call, host, sizeof host))
        return;
    read_bans(svc, true);
    Sungka__V1__AdminBan *bans = calloc((size_t)a->n_bans + 1, sizeof *bans);
    Sungka__V1__AdminBan **ptrs = calloc((size_t)a->n_bans + 1, sizeof *ptrs);
    if (!bans || !ptrs) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
    } else {
        for (int i = 0; i < a->n_bans; i++) {
            const store_ban *b = &a->bans[i].row;
            sungka__v1__admin_ban__init(&bans[i]);
            bans[i].kind = b->kind == STORE_BAN_ACCOUNT ? "account"
                           : b->kind == STORE_BAN_MUTE ? "mute" : "address";
            bans[i].target = (char *)b->label;
            bans[i].reason = (char *)b->reason;
            bans[i].made_ms = b->made_ms;
            bans[i].until_ms = b->until_ms;
            ptrs[i] = &bans[i];
        }
        Sungka__V1__AdminListBansResponse reply = SUNGKA__V1__ADMIN_LIST_BANS_RESPONSE__INIT;
        reply.bans = ptrs;
        reply.n_bans = (size_t)a->n_bans;
        rpc_call_reply(call, &reply.base);
    }
    free(bans);
    free(ptrs);
}

/* One list of the report as messages (pointing into rows). */
static void pairs_msg(const store_pair_row *rows, int n, Sungka__V1__AdminRatedPair *msgs,
                      Sungka__V1__AdminRatedPair **ptrs)
{
    for (int i = 0; i < n; i++) {
        sungka__v1__admin_rated_pair__init(&msgs[i]);
        msgs[i].a = (char *)rows[i].a;
        msgs[i].b = (char *)rows[i].b;
        msgs[i].games = rows[i].games;
        msgs[i].gain = rows[i].gain;
        msgs[i].total_gain = rows[i].total_gain;
        ptrs[i] = &msgs[i];
    }
}

static void rating_report(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    board_service *svc = user;
    char host[BOARD_HOST_BYTES];
    if (!admitted_store(svc, call, host, sizeof host))
        return;
    enum { MOST, ONE, SAME, LIMIT, SHORT, LISTS };
    store_pair_row (*rows)[REPORT_ROWS] = calloc(LISTS, sizeof *rows);
    Sungka__V1__AdminRatedPair (*msgs)[REPORT_ROWS] = calloc(LISTS, sizeof *msgs);
    Sungka__V1__AdminRatedPair *(*ptrs)[REPORT_ROWS] = calloc(LISTS, sizeof *ptrs);
    int n[LISTS] = {0};
    if (!rows || !msgs || !ptrs) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        goto out;
    }
    store *s = svc->store;
    if (store_report_pairs(s, REPORT_ROWS, rows[MOST], &n[MOST]) != 0 ||
        store_report_one_opponent(s, 0.5, REPORT_ROWS, rows[ONE], &n[ONE]) != 0 ||
        store_report_refused(s, STORE_UNRATED_SAME_ADDRESS, REPORT_ROWS, rows[SAME],
                             &n[SAME]) != 0 ||
        store_report_refused(s, STORE_UNRATED_PAIR_LIMIT, REPORT_ROWS, rows[LIMIT],
                             &n[LIMIT]) != 0 ||
        store_report_refused(s, STORE_UNRATED_TOO_SHORT, REPORT_ROWS, rows[SHORT],
                             &n[SHORT]) != 0) {
        board_log_at(svc, LOG_ERR, "cannot read the rating report: %s", store_last_error(s));
        rpc_call_finish_reason(call, RPC_UNAVAILABLE, "UNAVAILABLE",
                               "cannot read the rating report");
        goto out;
    }
    for (int i = 0; i < LISTS; i++)
        pairs_msg(rows[i], n[i], msgs[i], ptrs[i]);
    Sungka__V1__AdminRatingReportResponse reply = SUNGKA__V1__ADMIN_RATING_REPORT_RESPONSE__INIT;
    reply.most_games = ptrs[MOST];
    reply.n_most_games = (size_t)n[MOST];
    reply.one_opponent = ptrs[ONE];
    reply.n_one_opponent = (size_t)n[ONE];
    reply.same_address = ptrs[SAME];
    reply.n_same_address = (size_t)n[SAME];
    reply.pair_limit = ptrs[LIMIT];
    reply.n_pair_limit = (size_t)n[LIMIT];
    reply.too_short = ptrs[SHORT];
    reply.n_too_short = (size_t)n[SHORT];
    rpc_call_reply(call, &reply.base);
out:
    free(rows);
    free(msgs);
    free(ptrs);
}

/* A list the operator reads a page of (ListActions, ListReports): up to
 * `limit` rows (0: ACTIONS_DEFAULT; at most ACTIONS_MAX) read into an array
 * of row_size each, each made a message of msg_size (fill, with room for an
 * address as logs show it), answered by reply. */
typedef struct admin_list {
    size_t row_size, msg_size;
    int (*read)(board_service *svc, int limit, void *rows, int *n);   /* 0 or -1 */
    void (*fill)(const void *row, void *msg, char *host, size_t hostlen);
    void (*reply)(rpc_call *call, void **msgs, size_t n);
    const char *unreadable;            /* said when read fails */
} admin_list;

static void list_rows(board_service *svc, rpc_call *call, int32_t asked, const admin_list *l)
{
    char host[BOARD_HOST_BYTES];
    if (!admitted_store(svc, call, host, sizeof host))
        return;
    int limit = asked > 0 ? asked : ACTIONS_DEFAULT;
    if (limit > ACTIONS_MAX)
        limit = ACTIONS_MAX;
    char *rows = calloc((size_t)limit, l->row_size);
    char *msgs = calloc((size_t)limit, l->msg_size);
    void **ptrs = calloc((size_t)limit, sizeof *ptrs);
    char (*hosts)[BOARD_LOG_HOST_BYTES] = calloc((size_t)limit, sizeof *hosts);
    int n = 0;
    if (!rows || !msgs || !ptrs || !hosts) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
    } else if (l->read(svc, limit, rows, &n) != 0) {
        rpc_call_finish_reason(call, RPC_UNAVAILABLE, "UNAVAILABLE", l->unreadable);
    } else {
        for (int i = 0; i < n; i++) {
            ptrs[i] = msgs + (size_t)i * l->msg_size;
            l->fill(rows + (size_t)i * l->row_size, ptrs[i], hosts[i], sizeof hosts[i]);
        }
        l->reply(call, ptrs, (size_t)n);
    }
    free(rows);
    free(msgs);
    free(ptrs);
    free(hosts);
}

static int read_actions(board_service *svc, int limit, void *rows, int *n)
{
    return store_admin_actions(svc->store, limit, rows, n);
}

static void fill_action(const void *row, void *msg, char *host, size_t hostlen)
{
    const store_admin_action *r = row;
    Sungka__V1__AdminAction *m = msg;
    sungka__v1__admin_action__init(m);
    m->at_ms = r->at_ms;
    m->who = (char *)board_log_host(r->who, host, hostlen);
    m->action = (char *)r->action;
    m->target = (char *)r->target;
    m->reason = (char *)r->reason;
}

static void reply_actions(rpc_call *call, void **msgs, size_t n)
{
    Sungka__V1__AdminListActionsResponse reply = SUNGKA__V1__ADMIN_LIST_ACTIONS_RESPONSE__INIT;
    reply.actions = (Sungka__V1__AdminAction **)msgs;
    reply.n_actions = n;
    rpc_call_reply(call, &reply.base);
}

static void list_actions(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    static const admin_list actions = {sizeof(store_admin_action),
                                       sizeof(Sungka__V1__AdminAction), read_actions,
                                       fill_action, reply_actions, "cannot read the audit log"};
    list_rows(user, call, ((const Sungka__V1__AdminListActionsRequest *)request)->limit,
              &actions);
}

/* Players' reports (social_rpc.c keeps them), for the operator. */
static int read_reports(board_service *svc, int limit, void *rows, int *n)
{
    char err[256];
    return board_reports_list(svc, limit, rows, n, err, sizeof err);
}

static void fill_report(const void *row, void *msg, char *host, size_t hostlen)
{
    const store_report *r = row;
    Sungka__V1__AdminReport *m = msg;
    sungka__v1__admin_report__init(m);
    m->id = r->id;
    m->at_ms = r->time_ms;
    m->reporter = (char *)r->reporter;
    m->reported = (char *)r->reported;
    m->game_id = (char *)r->game_id;
    m->reason = (char *)r->reason;
    m->address = (char *)board_log_host(r->host, host, hostlen);
}

static void reply_reports(rpc_call *call, void **msgs, size_t n)
{
    Sungka__V1__AdminListReportsResponse reply = SUNGKA__V1__ADMIN_LIST_REPORTS_RESPONSE__INIT;
    reply.reports = (Sungka__V1__AdminReport **)msgs;
    reply.n_reports = n;
    rpc_call_reply(call, &reply.base);
}

static void list_reports(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    static const admin_list reports = {sizeof(store_report), sizeof(Sungka__V1__AdminReport),
                                       read_reports, fill_report, reply_reports,
                                       "cannot read the reports"};
    list_rows(user, call, ((const Sungka__V1__AdminListReportsRequest *)request)->limit,
              &reports);
}

const rpc_method_entry board_admin_methods[] = {
    {"ListOnline", list_online, false, false, false},
    {"EndGame", end_game, false, false, false},
    {"BanAccount", ban_account, false, false, false},
    {"UnbanAccount", unban_account, false, false, false},
    {"BanAddress", ban_address, false, false, false},
    {"UnbanAddress", unban_address, false, false, false},
    {"Kick", kick, false, false, false},
    {"Mute", mute, false, false, false},
    {"Unmute", unmute, false, false, false},
    {"ResetPassword", reset_password, false, false, false},
    {"ListBans", list_bans, false, false, false},
    {"RatingReport", rating_report, false, false, false},
    {"ListActions", list_actions, false, false, false},
    {"ListReports", list_reports, false, false, false},
};
const size_t board_admin_n_methods = sizeof board_admin_methods / sizeof board_admin_methods[0];

/* ------------------------------------------------------------ the loop's side */

int board_admin_start(board_service *svc, char *err, size_t errlen)
{
    svc->admin = calloc(1, sizeof *svc->admin);
    if (!svc->admin) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (load_token(svc, err, errlen) != 0)
        return -1;
    if (svc->store && read_bans(svc, false) != 0) {
        snprintf(err, errlen, "cannot read the bans: %s", store_last_error(svc->store));
        return -1;
    }
    svc->admin->next_refresh_ms = board_now_ms() + BAN_REFRESH_MS;
    return 0;
}

void board_admin_tick(board_service *svc, int64_t now)
{
    struct board_admin *a = svc->admin;
    if (!a || !svc->store || !store_shared(svc->store) || now < a->next_refresh_ms)
        return;
    a->next_refresh_ms = now + BAN_REFRESH_MS;
    store_bans_mark mark;
    if (store_bans_mark_of(svc->store, &mark) != 0) {
        board_log_at(svc, LOG_ERR, "cannot look at the bans: %s", store_last_error(svc->store));
        return;
    }
    if (memcmp(&mark, &a->mark, sizeof mark) != 0)
        read_bans(svc, true);
}

void board_admin_free(board_service *svc)
{
    if (!svc->admin)
        return;
    sodium_memzero(svc->admin->token_hash, sizeof svc->admin->token_hash);
    free(svc->admin->bans);
    free(svc->admin->accounts);
    free(svc->admin->addresses);
    ban_match_free(&svc->admin->match);
    free(svc->admin);
    svc->admin = NULL;
}
