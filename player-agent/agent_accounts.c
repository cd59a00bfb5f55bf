/*
 * agent_accounts.c — the agent's side of accounts (agent.h): register, sign
 * in and out, change the password, and keep the session token between runs
 * (session_store.h) so lobby calls carry it. View thread only, like the
 * lobby: the session fields of struct agent need no lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"
#include "session_store.h"

void agent__session_load(agent *ag)
{
    char name[AGENT_NAME_BYTES], token[AGENT_TOKEN_BYTES];
    if (session_store_find(ag->cfg.state_dir, ag->cfg.server, name, sizeof name, token,
                           sizeof token) != 0)
        return;
    agent__text(ag->account, sizeof ag->account, name);
    snprintf(ag->session, sizeof ag->session, "%s", token);
    memset(token, 0, sizeof token);
}

const char *agent__session(const agent *ag)
{
    return ag->session[0] ? ag->session : NULL;
}

const char *agent_account(const agent *ag)
{
    return ag->session[0] ? ag->account : NULL;
}

static void forget(agent *ag)
{
    memset(ag->session, 0, sizeof ag->session);
    ag->account[0] = '\0';
    session_store_drop(ag->cfg.state_dir, ag->cfg.server);
}

void agent__session_refused(agent *ag, rpc_code code, char *err, size_t errlen)
{
    if (code != RPC_UNAUTHENTICATED || !ag->session[0])
        return;
    forget(ag);
    size_t len = strlen(err);
    if (len < errlen)
        snprintf(err + len, errlen - len, " (signed out here too: sign in again, or play as "
                                          "a guest)");
}

/* Keep a session the service answered. */
static void keep(agent *ag, const Sungka__V1__Session *s, const char *fallback_name)
{
    if (!s || !s->token || strlen(s->token) >= sizeof ag->session)
        return;
    snprintf(ag->session, sizeof ag->session, "%s", s->token);
    agent__text(ag->account, sizeof ag->account, s->name && s->name[0] ? s->name : fallback_name);
    session_store_put(ag->cfg.state_dir, ag->cfg.server, ag->account, ag->session);
}

int agent_register(agent *ag, const char *name, const char *password, bool *claimed,
                   char *err, size_t errlen)
{
    if (agent_may_send_secret(&ag->cfg, err, errlen) != 0)
        return -1;             /* never a password in plaintext off this machine */
    Sungka__V1__CreateAccountRequest req = SUNGKA__V1__CREATE_ACCOUNT_REQUEST__INIT;
    req.name = (char *)name;
    req.password = (char *)password;
    rpc_method m = agent__methods.create_account;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen,
                         "cannot create the account") != 0)
        return -1;
    Sungka__V1__CreateAccountResponse *r = (Sungka__V1__CreateAccountResponse *)reply;
    keep(ag, r->session, name);
    if (claimed)
        *claimed = r->claimed;
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

int agent_sign_in(agent *ag, const char *name, const char *password, char *err, size_t errlen)
{
    if (agent_may_send_secret(&ag->cfg, err, errlen) != 0)
        return -1;             /* never a password in plaintext off this machine */
    Sungka__V1__SignInRequest req = SUNGKA__V1__SIGN_IN_REQUEST__INIT;
    req.name = (char *)name;
    req.password = (char *)password;
    rpc_method m = agent__methods.sign_in;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen, "cannot sign in") != 0)
        return -1;
    keep(ag, ((Sungka__V1__SignInResponse *)reply)->session, name);
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

int agent_sign_out(agent *ag, bool everywhere, char *err, size_t errlen)
{
    if (!ag->session[0]) {
        snprintf(err, errlen, "not signed in");
        return -1;
    }
    Sungka__V1__SignOutRequest one = SUNGKA__V1__SIGN_OUT_REQUEST__INIT;
    Sungka__V1__SignOutEverywhereRequest all = SUNGKA__V1__SIGN_OUT_EVERYWHERE_REQUEST__INIT;
    rpc_method m = everywhere ? agent__methods.sign_out_everywhere : agent__methods.sign_out;
    ProtobufCMessage *reply = NULL;
    int rc = agent__call_sync(ag, &m, everywhere ? &all.base : &one.base, ag->session, &reply,
                              err, errlen, "cannot sign out");
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
    forget(ag);           /* whatever the service said, this agent is signed out */
    return rc;
}

int agent_change_password(agent *ag, const char *old_password, const char *new_password,
                          char *err, size_t errlen)
{
    if (!ag->session[0]) {
        snprintf(err, errlen, "sign in first");
        return -1;
    }
    if (agent_may_send_secret(&ag->cfg, err, errlen) != 0)
        return -1;
    Sungka__V1__ChangePasswordRequest req = SUNGKA__V1__CHANGE_PASSWORD_REQUEST__INIT;
    req.old_password = (char *)old_password;
    req.new_password = (char *)new_password;
    rpc_method m = agent__methods.change_password;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, ag->session, &reply, err, errlen,
                         "cannot change the password") != 0)
        return -1;
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

int agent_reset_password(agent *ag, const char *name, const char *code,
                         const char *new_password, char *err, size_t errlen)
{
    if (agent_may_send_secret(&ag->cfg, err, errlen) != 0)
        return -1;
    Sungka__V1__ResetPasswordRequest req = SUNGKA__V1__RESET_PASSWORD_REQUEST__INIT;
    req.name = (char *)name;
    req.code = (char *)code;
    req.new_password = (char *)new_password;
    rpc_method m = agent__methods.reset_password;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, NULL, &reply, err, errlen,
                         "cannot reset the password") != 0)
        return -1;
    protobuf_c_message_free_unpacked(reply, NULL);
    forget(ag);            /* its sessions ended, this agent's too if it had one */
    return agent_sign_in(ag, name, new_password, err, errlen);
}

/* ------------------------------------------------------------ social */

static int need_account(const agent *ag, char *err, size_t errlen)
{
    if (ag->session[0])
        return 0;
    snprintf(err, errlen, "sign in first: only an account can block or report someone");
    return -1;
}

int agent_block(agent *ag, const char *name, bool block, char *shown, char *err,
                size_t errlen)
{
    if (need_account(ag, err, errlen) != 0)
        return -1;
    Sungka__V1__BlockRequest b = SUNGKA__V1__BLOCK_REQUEST__INIT;
    Sungka__V1__UnblockRequest u = SUNGKA__V1__UNBLOCK_REQUEST__INIT;
    b.name = u.name = (char *)name;
    rpc_method m = block ? agent__methods.block : agent__methods.unblock;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, block ? &b.base : &u.base, ag->session, &reply, err, errlen,
                         block ? "cannot block" : "cannot unblock") != 0)
        return -1;
    if (shown) {
        const char *as = block ? ((Sungka__V1__BlockResponse *)reply)->name : name;
        agent__text(shown, AGENT_NAME_BYTES, as && as[0] ? as : name);
    }
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

int agent_blocked(agent *ag, char (**names)[AGENT_NAME_BYTES], int *n, char *err,
                  size_t errlen)
{
    *names = NULL;
    *n = 0;
    if (need_account(ag, err, errlen) != 0)
        return -1;
    Sungka__V1__ListBlockedRequest req = SUNGKA__V1__LIST_BLOCKED_REQUEST__INIT;
    rpc_method m = agent__methods.list_blocked;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, ag->session, &reply, err, errlen,
                         "cannot list the blocked") != 0)
        return -1;
    Sungka__V1__ListBlockedResponse *r = (Sungka__V1__ListBlockedResponse *)reply;
    if (r->n_blocked > 0) {
        *names = calloc(r->n_blocked, sizeof **names);
        if (!*names) {
            protobuf_c_message_free_unpacked(reply, NULL);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    for (size_t i = 0; i < r->n_blocked; i++)
        agent__text((*names)[i], AGENT_NAME_BYTES, r->blocked[i]->name);
    *n = (int)r->n_blocked;
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}

int agent_report(agent *ag, const char *name, const char *reason, int64_t *id, char *err,
                 size_t errlen)
{
    if (need_account(ag, err, errlen) != 0)
        return -1;
    Sungka__V1__ReportRequest req = SUNGKA__V1__REPORT_REQUEST__INIT;
    req.name = (char *)name;
    req.reason = (char *)reason;
    const char *game = agent_game_id(ag);
    req.game_id = (char *)(game ? game : "");
    rpc_method m = agent__methods.report;
    ProtobufCMessage *reply = NULL;
    if (agent__call_sync(ag, &m, &req.base, ag->session, &reply, err, errlen,
                         "cannot report") != 0)
        return -1;
    if (id)
        *id = ((Sungka__V1__ReportResponse *)reply)->id;
    protobuf_c_message_free_unpacked(reply, NULL);
    return 0;
}
