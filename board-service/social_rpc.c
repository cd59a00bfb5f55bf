/*
 * social_rpc.c — the Social service (proto/sungka/v1/social.proto): an
 * account blocks, unblocks and lists the accounts it blocks, and reports
 * another to the operator; and the operator's list of reports.
 *
 * Choices worth knowing:
 *   - Signed-in accounts only (board_lobby_caller): a guest has no name of
 *     its own, so nothing could keep its blocks, and a report from nobody
 *     would be an anonymous flood. A guest is told to sign in.
 *   - A block is its blocker's row in the store, capped per account
 *     (--max-blocks): the count is taken inside the insert's transaction and
 *     the insert undone past the cap, so the cap holds exactly on one node
 *     (two nodes of a cluster blocking for one account at once may pass it
 *     by one). The participants of that account here read their blocks
 *     again at once (board_blocks_changed); delivery filters with them.
 *     That reading is a scan of this node's participants, so an account
 *     blocks and unblocks at most --block-rate times a minute.
 *   - Reports are limited per reporter (--report-rate a day), counted in the
 *     store, so a restart or another node of a cluster does not reset it.
 *     Their reason is text as a chat line is (text_check), kept with the
 *     reporter's client address and logged with it (LOG_NOTICE: a journal
 *     line an operator can follow). Reporting says nothing to the reported.
 * Loop thread only, as every handler.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "board_rpc.h"
#include "text.h"
#include "sungka/v1/social.pb-c.h"

#define REPORT_REASON_MAX 500           /* bytes, as a chat line by default */
#define BLOCK_WINDOW_MS 60000           /* --block-rate's window */
#define REPORT_WINDOW_MS (24 * 3600 * 1000LL)

static void fail(rpc_call *call, rpc_code code, const char *reason, const char *msg)
{
    rpc_call_finish_reason(call, code, reason, msg);
}

/* The signed-in account calling: 0 with *me, or -1 answered. */
static int account_calling(board_service *svc, rpc_call *call, store_account *me)
{
    if (!svc->store) {
        fail(call, RPC_FAILED_PRECONDITION, "BAD_REQUEST",
             "this board service keeps no accounts (it has no store)");
        return -1;
    }
    int who = board_lobby_caller(svc, call, me);
    if (who == 0)
        fail(call, RPC_UNAUTHENTICATED, "ACCOUNT_REQUIRED",
             "only an account can block or report someone: create one or sign in");
    return who == 1 ? 0 : -1;
}

/* The account called name (in any case): 0 with *out, or -1 answered. */
static int account_named(board_service *svc, rpc_call *call, const char *name,
                         store_account *out)
{
    accounts_name n;
    char why[128], msg[256], echo[48];
    if (accounts_name_prepare(name, &n, why, sizeof why) != ACCOUNTS_OK) {
        snprintf(msg, sizeof msg, "there is no account called '%s'",
                 board_echo(name, echo, sizeof echo));
        fail(call, RPC_NOT_FOUND, "NOT_FOUND", msg);
        return -1;
    }
    int rc = store_account_find(svc->store, n.key, out);
    if (rc == STORE_NOT_FOUND) {
        snprintf(msg, sizeof msg, "there is no account called '%s'",
                 board_echo(name, echo, sizeof echo));
        fail(call, RPC_NOT_FOUND, "NOT_FOUND", msg);
        return -1;
    }
    if (rc != 0) {
        fail(call, RPC_UNAVAILABLE, "UNAVAILABLE", "cannot read the accounts");
        return -1;
    }
    return 0;
}

/* --------------------------------------------------------------- blocks */

/* Each block or unblock reads the blocks of the account's participants here
 * again (a scan of the participants): --block-rate of them a minute per
 * account. Counted when let in. 0, or -1 answered. */
static int block_admitted(board_service *svc, rpc_call *call, const store_account *me)
{
    char key[32];
    snprintf(key, sizeof key, "%lld", (long long)me->id);
    int64_t now = board_now_ms();
    if (board_limit_count(&svc->limits, "block-acct", key, BLOCK_WINDOW_MS, now) >=
        svc->cfg.block_rate) {
        char msg[160], host[BOARD_HOST_BYTES];
        snprintf(msg, sizeof msg, "too many blocks and unblocks: at most %d a minute; wait "
                 "a minute", svc->cfg.block_rate);
        board_peer_host(svc, call, host, sizeof host);
        board_log_limit(svc, host, msg);
        fail(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", msg);
        return -1;
    }
    board_limit_add(&svc->limits, "block-acct", key, BLOCK_WINDOW_MS, now);
    return 0;
}

static void block(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    const Sungka__V1__BlockRequest *req = (const void *)request;
    board_service *svc = user;
    store_account me, them;
    if (account_calling(svc, call, &me) != 0 || account_named(svc, call, req->name, &them) != 0)
        return;
    if (them.id == me.id) {
        fail(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST", "you cannot block yourself");
        return;
    }
    if (block_admitted(svc, call, &me) != 0)
        return;
    int n = 0;
    int rc = store_group_begin(svc->store);
    if (rc == 0) {
        rc = store_block_put(svc->store, me.id, them.id, board_shared_now_ms(svc));
        if (rc == 0)
            rc = store_block_count(svc->store, me.id, &n);
        if (rc == 0 && n > svc->cfg.max_blocks)
            rc = 1;                      /* past the cap: undone */
        rc = store_group_end(svc->store, rc) != 0 && rc == 0 ? -1 : rc;
    }
    if (rc == 1) {
        char msg[160];
        snprintf(msg, sizeof msg, "you block %d accounts already, the most this service "
                 "keeps: unblock one first", svc->cfg.max_blocks);
        char host[BOARD_HOST_BYTES];
        board_peer_host(svc, call, host, sizeof host);
        board_log_limit(svc, host, msg);
        fail(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", msg);
        return;
    }
    if (rc != 0) {
        fail(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot store the block; try again");
        return;
    }
    board_blocks_changed(svc, me.id);
    Sungka__V1__BlockResponse reply = SUNGKA__V1__BLOCK_RESPONSE__INIT;
    reply.name = them.name;
    rpc_call_reply(call, &reply.base);
}

static void unblock(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    const Sungka__V1__UnblockRequest *req = (const void *)request;
    board_service *svc = user;
    store_account me, them;
    if (account_calling(svc, call, &me) != 0 || account_named(svc, call, req->name, &them) != 0 ||
        block_admitted(svc, call, &me) != 0)
        return;
    int rc = store_block_delete(svc->store, me.id, them.id);
    if (rc == STORE_NOT_FOUND) {
        char msg[192];
        snprintf(msg, sizeof msg, "you do not block %s", them.name);
        fail(call, RPC_NOT_FOUND, "NOT_FOUND", msg);
        return;
    }
    if (rc != 0) {
        fail(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot remove the block; try again");
        return;
    }
    board_blocks_changed(svc, me.id);
    Sungka__V1__UnblockResponse reply = SUNGKA__V1__UNBLOCK_RESPONSE__INIT;
    rpc_call_reply(call, &reply.base);
}

static void list_blocked(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    board_service *svc = user;
    store_account me;
    if (account_calling(svc, call, &me) != 0)
        return;
    int max = 0, n = 0;
    if (store_block_count(svc->store, me.id, &max) != 0) {
        fail(call, RPC_UNAVAILABLE, "UNAVAILABLE", "cannot read your blocks; try again");
        return;
    }
    max = max > 0 ? max : 1;
    store_block *rows = calloc((size_t)max, sizeof *rows);
    Sungka__V1__BlockedAccount *items = calloc((size_t)max, sizeof *items);
    Sungka__V1__BlockedAccount **ptrs = calloc((size_t)max, sizeof *ptrs);
    if (!rows || !items || !ptrs || store_blocks_of(svc->store, me.id, max, rows, &n) != 0) {
        fail(call, RPC_UNAVAILABLE, "UNAVAILABLE", "cannot read your blocks; try again");
    } else {
        for (int i = 0; i < n; i++) {
            sungka__v1__blocked_account__init(&items[i]);
            items[i].name = rows[i].name;
            items[i].since_ms = rows[i].created_ms;
            ptrs[i] = &items[i];
        }
        Sungka__V1__ListBlockedResponse reply = SUNGKA__V1__LIST_BLOCKED_RESPONSE__INIT;
        reply.n_blocked = (size_t)n;
        reply.blocked = ptrs;
        rpc_call_reply(call, &reply.base);
    }
    free(ptrs);
    free(items);
    free(rows);
}

/* -------------------------------------------------------------- reports */

/* A game id as the service makes them (letters, digits, '-' and '_'). */
static bool game_id_ok(const char *id)
{
    size_t len = strlen(id);
    if (len >= STORE_ID_BYTES)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)id[i]) && id[i] != '-' && id[i] != '_')
            return false;
    return true;
}

static void report(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    const Sungka__V1__ReportRequest *req = (const void *)request;
    board_service *svc = user;
    store_account me, them;
    if (account_calling(svc, call, &me) != 0 || account_named(svc, call, req->name, &them) != 0)
        return;
    char msg[192], why[64];
    if (them.id == me.id) {
        fail(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST", "you cannot report yourself");
        return;
    }
    size_t len = strlen(req->reason);
    if (len == 0 || len > REPORT_REASON_MAX) {
        snprintf(msg, sizeof msg, "a report's reason must be 1..%d bytes, not %zu",
                 REPORT_REASON_MAX, len);
        fail(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST", msg);
        return;
    }
    if (text_check(req->reason, why, sizeof why) != 0) {
        snprintf(msg, sizeof msg, "the reason %s", why);
        fail(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST", msg);
        return;
    }
    if (!game_id_ok(req->game_id)) {
        fail(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST",
             "that is not a game id (the one the game's title line shows)");
        return;
    }
    char host[BOARD_HOST_BYTES];
    board_peer_host(svc, call, host, sizeof host);
    int64_t now = board_shared_now_ms(svc);
    int made = 0;
    if (store_reports_since(svc->store, me.id, now - REPORT_WINDOW_MS, &made) != 0) {
        fail(call, RPC_UNAVAILABLE, "UNAVAILABLE", "cannot read your reports; try again");
        return;
    }
    if (made >= svc->cfg.report_rate) {
        snprintf(msg, sizeof msg, "too many reports: at most %d a day; the operator has "
                 "the ones you made", svc->cfg.report_rate);
        board_log_limit(svc, host, msg);
        fail(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", msg);
        return;
    }
    store_report r = {.time_ms = now, .reporter_id = me.id, .reported_id = them.id};
    snprintf(r.game_id, sizeof r.game_id, "%s", req->game_id);
    snprintf(r.reason, sizeof r.reason, "%s", req->reason);
    snprintf(r.host, sizeof r.host, "%s", host);
    if (store_report_add(svc->store, &r) != 0) {
        fail(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot store the report; try again");
        return;
    }
    char a[48], b[48];
    board_log_client(svc, LOG_NOTICE, host, "report %lld: %s reports %s (game %s): %s",
                     (long long)r.id, board_echo(me.name, a, sizeof a),
                     board_echo(them.name, b, sizeof b), r.game_id[0] ? r.game_id : "none",
                     r.reason);
    Sungka__V1__ReportResponse reply = SUNGKA__V1__REPORT_RESPONSE__INIT;
    reply.id = r.id;
    rpc_call_reply(call, &reply.base);
}

const rpc_method_entry board_social_methods[] = {
    {"Block", block, false, false, false},
    {"Unblock", unblock, false, false, false},
    {"ListBlocked", list_blocked, false, false, false},
    {"Report", report, false, false, false},
};
const size_t board_social_n_methods =
    sizeof board_social_methods / sizeof board_social_methods[0];

/* ------------------------------------------------------ the operator's side */

int board_reports_list(board_service *svc, int limit, store_report *out, int *n, char *err,
                       size_t errlen)
{
    if (!svc->store) {
        snprintf(err, errlen, "this board service keeps no store, so no reports");
        return -1;
    }
    if (store_reports_list(svc->store, limit, out, n) != 0) {
        snprintf(err, errlen, "%s", store_last_error(svc->store));
        return -1;
    }
    return 0;
}
