/*
 * accounts_rpc.c — the Accounts service (CreateAccount, SignIn, SignOut,
 * SignOutEverywhere, ChangePassword, WhoAmI, ResetPassword with the code the
 * operator handed over: admin_rpc.c) and the lobby's question "who
 * is calling": a session token in the metadata, or a guest.
 *
 * Choices worth knowing:
 *   - Argon2id costs ~0.1 s and 64 MiB, so it never runs here, on the loop:
 *     a handler checks what is cheap (the name, the limits, the store), holds
 *     its call and hands the hashing to accounts_pool's workers. A worker
 *     wakes the loop (rpc_server_wake); board_run drains the pool after each
 *     poll and the held call is finished from there. A full queue is refused
 *     at once (LIMIT_REACHED) rather than waited for: memory stays bounded.
 *   - Every call that hashes (CreateAccount, SignIn right or wrong,
 *     ChangePassword) is admitted per client address and per name: at most
 *     --client-signin-jobs of an address's checks wait or run at once (the
 *     pool's lane of that address; lanes are served in turn, so a flood from
 *     one address delays another's check by one job, not by the queue), and
 *     at most --client-signin-rate checks an address and --signin-rate a
 *     name may ask for a minute. A right password is no failure, but it is
 *     a check: without these, one address signing its own account in kept
 *     the whole queue full and every other sign-in was refused "busy".
 *   - A sign-in for a name nobody has verifies against a dummy hash, so
 *     both answers ("no such account", "wrong password") cost one Argon2id
 *     and read the same: BAD_CREDENTIALS.
 *   - Failures are counted per name (whether or not it exists, so the limit
 *     says nothing about existence) and per client address; over either,
 *     LIMIT_REACHED before any hashing. Accounts made are counted per address.
 *   - A held call whose client goes away is only forgotten (its job still
 *     finishes, and its result is dropped): the pool owns the job until done.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "accounts.h"
#include "accounts_pool.h"
#include "board_rpc.h"

#define SIGNIN_WINDOW_MS (5 * 60 * 1000)
#define REGISTER_WINDOW_MS (60 * 60 * 1000)
#define CHECK_WINDOW_MS (60 * 1000)
#define SESSION_SWEEP_MS (60 * 1000)

/* ------------------------------------------------------------ the jobs */

typedef enum job_kind { JOB_CREATE, JOB_SIGN_IN, JOB_CHANGE, JOB_RESET } job_kind;

/* One held call and the work it waits for. The passwords are wiped before
 * the job is freed. */
typedef struct held_call {
    accounts_job job;                /* first: the pool hands this back */
    board_service *svc;
    rpc_call *call;                  /* NULL once its client went away */
    job_kind kind;
    char host[BOARD_HOST_BYTES];     /* the client address, for its limits */
    accounts_name name;              /* create, sign in: the name asked for */
    store_account account;           /* sign in, change: the account (id 0: none) */
    uint8_t session_id[STORE_SESSION_ID_BYTES];   /* change: the session that stays */
    char password[ACCOUNTS_PASSWORD_MAX + 1];
    char new_password[ACCOUNTS_PASSWORD_MAX + 1];
    uint8_t code_hash[STORE_RESET_HASH_BYTES];    /* reset: the code shown, hashed */
    char hash[ACCOUNTS_HASH_BYTES];  /* out: create, change, reset: the new hash */
    int result;                      /* out: 0 done / verified; -1 not */
} held_call;

static void held_free(held_call *h)
{
    sodium_memzero(h->password, sizeof h->password);
    sodium_memzero(h->new_password, sizeof h->new_password);
    sodium_memzero(h->hash, sizeof h->hash);
    free(h);
}

/* On a worker thread: only the job's own fields. */
static void work(accounts_job *job)
{
    held_call *h = (held_call *)job;
    switch (h->kind) {
    case JOB_CREATE:
        h->result = accounts_password_hash(h->password, h->hash);
        break;
    case JOB_SIGN_IN:
        h->result = h->account.id ? accounts_password_verify(h->account.password_hash,
                                                             h->password)
                                  : accounts_password_verify_dummy(h->password);
        break;
    case JOB_CHANGE:
        h->result = accounts_password_verify(h->account.password_hash, h->password);
        if (h->result == 0)
            h->result = accounts_password_hash(h->new_password, h->hash);
        break;
    case JOB_RESET:
        h->result = accounts_password_hash(h->new_password, h->hash);
        break;
    }
}

static void reason_fail(rpc_call *call, rpc_code code, const char *reason, const char *msg)
{
    rpc_call_finish_reason(call, code, reason, msg);
}

/* The client of a held call went away: nobody to answer. */
static void held_gone(rpc_call *call, bool client_gone, void *user)
{
    (void)call;
    (void)client_gone;
    ((held_call *)user)->call = NULL;
}

/* Over a rate of password checks, the address's or name_key's (NULL: no
 * name, as for a new account)? The sentence into err when so. */
static bool checks_limited(board_service *svc, const char *host, const char *name_key,
                           int64_t now, char *err, size_t errlen)
{
    const board_config *cfg = &svc->cfg;
    if (board_limit_count(&svc->limits, "check-addr", host, CHECK_WINDOW_MS, now) >=
        cfg->client_signin_rate) {
        snprintf(err, errlen, "too many password checks from your address: at most %d a "
                              "minute; wait a minute", cfg->client_signin_rate);
        return true;
    }
    if (name_key && board_limit_count(&svc->limits, "check-name", name_key, CHECK_WINDOW_MS,
                                      now) >= cfg->signin_rate) {
        snprintf(err, errlen, "too many sign-ins for this name: at most %d a minute; wait "
                              "a minute", cfg->signin_rate);
        return true;
    }
    return false;
}

/* Hold call for h's work, a password check of name_key (NULL: none): 0,
 * or -1 answered (over a rate, the address's share of the pool, or the
 * whole queue full). Counted against the rates only when let in. */
static int hold(board_service *svc, rpc_call *call, held_call *h, const char *name_key,
                void (*done)(accounts_job *))
{
    char err[160];
    int64_t now = board_now_ms();
    h->svc = svc;
    h->call = call;
    h->job.work = work;
    h->job.done = done;
    h->job.lane = h->host;
    bool limited = checks_limited(svc, h->host, name_key, now, err, sizeof err);
    int rc = limited ? 0 : accounts_pool_submit(svc->pool, &h->job);
    if (rc == ACCOUNTS_POOL_LANE_FULL)
        snprintf(err, sizeof err, "your address already has as many password checks under "
                                  "way as it may (%d): wait for their answers",
                 svc->cfg.client_signin_jobs);
    else if (rc == ACCOUNTS_POOL_FULL)
        snprintf(err, sizeof err, "the service is busy checking passwords; try again in a "
                                  "moment");
    if (limited || rc != 0) {
        board_log_limit(svc, h->host, err);
        held_free(h);
        reason_fail(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", err);
        return -1;
    }
    board_limit_add(&svc->limits, "check-addr", h->host, CHECK_WINDOW_MS, now);
    if (name_key)
        board_limit_add(&svc->limits, "check-name", name_key, CHECK_WINDOW_MS, now);
    rpc_call_on_done(call, held_gone, h);
    return 0;
}

/* The start of every done(): the call to answer, unhooked, or NULL when
 * there is none any more (then h is freed). A cancelled job's call is
 * answered here. */
static rpc_call *held_call_of(held_call *h)
{
    rpc_call *call = h->call;
    if (call)
        rpc_call_on_done(call, NULL, NULL);
    if (call && h->job.cancelled) {
        reason_fail(call, RPC_UNAVAILABLE, "SHUTTING_DOWN", "the service is shutting down");
        call = NULL;
    }
    if (!call)
        held_free(h);
    return call;
}

/* ------------------------------------------------------------ sessions */

static int64_t session_ttl_ms(const board_service *svc)
{
    return (int64_t)svc->cfg.session_days * 24 * 3600 * 1000;
}

/* A new session for account: its token into token; 0, or -1 answered.
 * The account keeps its --max-account-sessions newest: the oldest beyond
 * end in the same transaction, so one account's sign-ins cannot grow the
 * table (each row lives for --session-days). */
static int new_session(board_service *svc, rpc_call *call, int64_t account,
                       char token[ACCOUNTS_SESSION_TOKEN_BYTES], int64_t *expires)
{
    store_session ss = {.account_id = account, .created_ms = board_shared_now_ms(svc)};
    if (accounts_session_new(token, ss.id, ss.hash) != 0) {
        reason_fail(call, RPC_INTERNAL, "INTERNAL", "cannot make a session (libsodium)");
        return -1;
    }
    ss.expires_ms = *expires = ss.created_ms + session_ttl_ms(svc);
    int rc = store_group_begin(svc->store);
    if (rc == 0) {
        rc = store_session_create(svc->store, &ss);
        if (rc == 0)
            rc = store_sessions_trim(svc->store, account, ss.id,
                                     svc->cfg.max_account_sessions, NULL);
        rc = store_group_end(svc->store, rc);
    }
    if (rc != 0) {
        sodium_memzero(token, ACCOUNTS_SESSION_TOKEN_BYTES);
        reason_fail(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot store the session");
        return -1;
    }
    return 0;
}

static void send_session(rpc_call *call, const char *name, char *token, int64_t expires,
                         ProtobufCMessage *reply, Sungka__V1__Session **slot)
{
    Sungka__V1__Session s = SUNGKA__V1__SESSION__INIT;
    s.token = token;
    s.expires_ms = expires;
    s.name = (char *)name;
    *slot = &s;
    rpc_call_reply(call, reply);
    sodium_memzero(token, ACCOUNTS_SESSION_TOKEN_BYTES);
}

/* An account the operator disabled (admin_rpc.c): true, and call refused
 * with the ban's reason. */
static bool disabled(board_service *svc, rpc_call *call, int64_t account_id)
{
    const store_ban *b = board_account_ban(svc, account_id);
    if (!b)
        return false;
    char why[STORE_BAN_REASON_BYTES + 64];
    board_account_disabled(b, why, sizeof why);
    reason_fail(call, RPC_PERMISSION_DENIED, "ACCOUNT_DISABLED", why);
    return true;
}

/* The session a call carries. 1: signed in (*acct, and *ss when not NULL);
 * 0: no authorization metadata at all; -1: refused and answered. */
static int session_of(board_service *svc, rpc_call *call, store_account *acct,
                      store_session *ss_out)
{
    char probe[8], token[ACCOUNTS_SESSION_TOKEN_BYTES + 8];
    if (rpc_call_metadata(call, "authorization", probe, sizeof probe) < 0)
        return 0;
    if (!svc->store) {
        reason_fail(call, RPC_FAILED_PRECONDITION, "UNKNOWN_SESSION",
                    "this board service keeps no accounts (it has no store)");
        return -1;
    }
    uint8_t id[STORE_SESSION_ID_BYTES], hash[STORE_SESSION_HASH_BYTES];
    int len = rpc_call_bearer(call, token, sizeof token);
    if (len < 0 || len >= (int)sizeof token || accounts_session_parse(token, id, hash) != 0) {
        sodium_memzero(token, sizeof token);
        reason_fail(call, RPC_UNAUTHENTICATED, "UNKNOWN_SESSION",
                    "that is not a session token (send the one CreateAccount or SignIn "
                    "answered; a seat token goes on Board calls only)");
        return -1;
    }
    sodium_memzero(token, sizeof token);
    store_session ss;
    int rc = store_session_find(svc->store, id, &ss);
    if (rc < 0) {
        reason_fail(call, RPC_UNAVAILABLE, "UNAVAILABLE", "cannot read the sessions");
        return -1;
    }
    /* Found by its public id; the secret's hash is compared in constant time. */
    if (rc == STORE_NOT_FOUND || !accounts_session_hash_equal(ss.hash, hash)) {
        reason_fail(call, RPC_UNAUTHENTICATED, "UNKNOWN_SESSION",
                    "unknown or ended session: sign in again");
        return -1;
    }
    if (!accounts_session_live(ss.expires_ms, board_shared_now_ms(svc))) {
        store_session_delete(svc->store, id);
        reason_fail(call, RPC_UNAUTHENTICATED, "UNKNOWN_SESSION",
                    "the session has expired: sign in again");
        return -1;
    }
    if (store_account_get(svc->store, ss.account_id, acct) != 0) {
        reason_fail(call, RPC_UNAUTHENTICATED, "UNKNOWN_SESSION",
                    "the session's account is gone: sign in again");
        return -1;
    }
    if (disabled(svc, call, acct->id))
        return -1;
    if (ss_out)
        *ss_out = ss;
    return 1;
}

/* As session_of, for calls that need one: a missing token is refused too. */
static int signed_in(board_service *svc, rpc_call *call, store_account *acct,
                     store_session *ss)
{
    int who = session_of(svc, call, acct, ss);
    if (who == 0)
        reason_fail(call, RPC_UNAUTHENTICATED, "UNKNOWN_SESSION",
                    "sign in first (send authorization: Bearer <session token>)");
    return who == 1 ? 0 : -1;
}

int board_lobby_caller(board_service *svc, rpc_call *call, store_account *out)
{
    memset(out, 0, sizeof *out);
    int who = session_of(svc, call, out, NULL);
    if (who == 0 && svc->cfg.require_accounts) {
        reason_fail(call, RPC_UNAUTHENTICATED, "ACCOUNT_REQUIRED",
                    "this board service plays with accounts only: create one or sign in");
        return -1;
    }
    return who;
}

/* ------------------------------------------------------------ names */

static bool have_accounts(board_service *svc, rpc_call *call)
{
    if (svc->store && svc->pool)
        return true;
    board_fail(call, RPC_FAILED_PRECONDITION, "this board service keeps no accounts "
                                              "(it has no store)");
    return false;
}

/* Prepare a name a person typed: 0, or -1 answered. */
static int prepare(rpc_call *call, const char *in, accounts_name *out)
{
    char why[128], err[192];
    accounts_rc rc = accounts_name_prepare(in, out, why, sizeof why);
    if (rc == ACCOUNTS_OK)
        return 0;
    snprintf(err, sizeof err, "the name %s", why);
    if (rc == ACCOUNTS_E_CHARACTER)
        reason_fail(call, RPC_INVALID_ARGUMENT, "NAME_NOT_ALLOWED", err);
    else if (rc == ACCOUNTS_E_LENGTH)
        reason_fail(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST", err);
    else
        reason_fail(call, RPC_INTERNAL, "INTERNAL", err);
    return -1;
}

/* The registered account n is or looks like: 1 (in *acct), 0 none, -1
 * answered. The account of the same name first, when there is one (an older
 * database may hold others that look like it too). */
static int registered_like(board_service *svc, rpc_call *call, const accounts_name *n,
                           store_account *acct)
{
    int rc = store_account_find(svc->store, n->key, acct);
    if (rc == STORE_NOT_FOUND)
        rc = store_account_find_like(svc->store, n->skeleton, n->look, acct);
    if (rc < 0) {
        reason_fail(call, RPC_UNAVAILABLE, "UNAVAILABLE", "cannot read the accounts");
        return -1;
    }
    return rc == 0;
}

int board_guest_name(board_service *svc, rpc_call *call, const char *name)
{
    accounts_name n;
    store_account acct;
    /* Nobody registered: no name to take or imitate, and no ICU to load
     * (the lobby's clean_name has refused invisible characters already). */
    if (!svc->store || !svc->any_accounts)
        return 0;
    if (prepare(call, name, &n) != 0)
        return -1;
    int like = registered_like(svc, call, &n, &acct);
    if (like <= 0)
        return like;
    char err[320], echo[160];
    board_echo(acct.name, echo, sizeof echo);
    if (strcmp(acct.name_key, n.key) == 0)
        snprintf(err, sizeof err, "'%s' is a registered name: sign in to play under it, "
                                  "or choose another", echo);
    else
        snprintf(err, sizeof err, "that name looks like the registered name '%s': choose "
                                  "another", echo);
    reason_fail(call, RPC_PERMISSION_DENIED, "NAME_REGISTERED", err);
    return -1;
}

int board_account_name(board_service *svc, rpc_call *call, const store_account *acct,
                       const char *asked)
{
    (void)svc;
    accounts_name n;
    if (!asked[0])
        return 0;
    if (prepare(call, asked, &n) != 0)
        return -1;
    if (strcmp(n.key, acct->name_key) == 0)
        return 0;
    char err[320], echo[160];
    snprintf(err, sizeof err, "you are signed in as '%s' and play under that name only",
             board_echo(acct->name, echo, sizeof echo));
    reason_fail(call, RPC_PERMISSION_DENIED, "NOT_YOUR_NAME", err);
    return -1;
}

int board_find_account(board_service *svc, const char *name, store_account *out)
{
    accounts_name n;
    char why[64];
    if (svc->store && svc->any_accounts &&
        accounts_name_prepare(name, &n, why, sizeof why) == ACCOUNTS_OK &&
        store_account_find(svc->store, n.key, out) == 0)
        return 0;
    return -1;
}

void board_stats_name(board_service *svc, const char *name, char *out, size_t len)
{
    store_account acct;
    snprintf(out, len, "%s", board_find_account(svc, name, &acct) == 0 ? acct.name : name);
}

/* ------------------------------------------------------------ limits */

/* Over a sign-in limit (name or address)? Answered when so. */
static bool signin_limited(board_service *svc, rpc_call *call, const char *host,
                           const char *key)
{
    int64_t now = board_now_ms();
    const board_config *cfg = &svc->cfg;
    const char *what = NULL;
    if (board_limit_count(&svc->limits, "fail-name", key, SIGNIN_WINDOW_MS, now) >=
        cfg->signin_failures)
        what = "this name";
    else if (board_limit_count(&svc->limits, "fail-addr", host, SIGNIN_WINDOW_MS, now) >=
             cfg->client_signin_failures)
        what = "your address";
    if (!what)
        return false;
    char err[160];
    snprintf(err, sizeof err, "too many failed sign-ins for %s: wait a few minutes", what);
    board_log_limit(svc, host, err);
    reason_fail(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", err);
    return true;
}

/* A password check is counted as a failure when it is let in, before its
 * hash runs: checks in flight count against the limit, so a burst of
 * guesses at once gets no more than the limit's worth (checked on arrival
 * and counted when the hash finished, 34 at once were all tried). One that
 * turns out right takes its count back (forgive_attempt). */
static void count_attempt(board_service *svc, const char *host, const char *key)
{
    int64_t now = board_now_ms();
    board_limit_add(&svc->limits, "fail-name", key, SIGNIN_WINDOW_MS, now);
    board_limit_add(&svc->limits, "fail-addr", host, SIGNIN_WINDOW_MS, now);
}

static void forgive_attempt(board_service *svc, const char *host, const char *key)
{
    int64_t now = board_now_ms();
    board_limit_take_back(&svc->limits, "fail-name", key, SIGNIN_WINDOW_MS, now);
    board_limit_take_back(&svc->limits, "fail-addr", host, SIGNIN_WINDOW_MS, now);
}

/* Hold a password check of name key, counted as an attempt from now on
 * (one the pool cannot take was never tried: not counted). */
static void hold_attempt(board_service *svc, rpc_call *call, held_call *h, const char *key,
                         void (*done)(accounts_job *))
{
    char host[BOARD_HOST_BYTES], name_key[STORE_NAME_KEY_BYTES];
    snprintf(host, sizeof host, "%s", h->host);       /* hold() frees h when refused */
    snprintf(name_key, sizeof name_key, "%s", key);
    count_attempt(svc, host, name_key);
    if (hold(svc, call, h, name_key, done) != 0)
        forgive_attempt(svc, host, name_key);
}

/* A password from a request: 0, or -1 answered. Never echoed. */
static int take_password(rpc_call *call, const char *in, char *out, size_t outlen)
{
    char err[128];
    if (accounts_password_check(in, err, sizeof err) != 0) {
        reason_fail(call, RPC_INVALID_ARGUMENT, "BAD_REQUEST", err);
        return -1;
    }
    snprintf(out, outlen, "%s", in);
    return 0;
}

static held_call *new_held(board_service *svc, rpc_call *call, job_kind kind)
{
    held_call *h = calloc(1, sizeof *h);
    if (!h) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return NULL;
    }
    h->kind = kind;
    board_peer_host(svc, call, h->host, sizeof h->host);
    return h;
}

/* ------------------------------------------------------------ CreateAccount */

static void created(accounts_job *job)
{
    held_call *h = (held_call *)job;
    board_service *svc = h->svc;
    rpc_call *call = held_call_of(h);
    if (!call)
        return;
    if (h->result != 0) {
        reason_fail(call, RPC_INTERNAL, "INTERNAL", "cannot hash the password");
        held_free(h);
        return;
    }
    store_account a = {.created_ms = board_wall_ms()};
    snprintf(a.name, sizeof a.name, "%s", h->name.display);
    snprintf(a.name_key, sizeof a.name_key, "%s", h->name.key);
    snprintf(a.skeleton, sizeof a.skeleton, "%s", h->name.skeleton);
    snprintf(a.look, sizeof a.look, "%s", h->name.look);
    memcpy(a.password_hash, h->hash, sizeof a.password_hash);
    bool claimed = false;
    int rc = store_account_create(svc->store, &a, &claimed);
    sodium_memzero(a.password_hash, sizeof a.password_hash);
    if (rc == STORE_TAKEN) {
        /* registered meanwhile, while this one was hashing */
        reason_fail(call, RPC_ALREADY_EXISTS, "NAME_CONFUSABLE",
                    "that name, or one that looks like it, was registered just now");
    } else if (rc != 0) {
        board_log_at(svc, LOG_ERR, "cannot store an account: %s", store_last_error(svc->store));
        reason_fail(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot store the account");
    } else {
        svc->any_accounts = true;
        board_log_client(svc, LOG_INFO, h->host, "account %lld created%s", (long long)a.id,
                         claimed ? ", claiming its name's statistics" : "");
        char token[ACCOUNTS_SESSION_TOKEN_BYTES];
        int64_t expires;
        if (new_session(svc, call, a.id, token, &expires) == 0) {
            Sungka__V1__CreateAccountResponse reply = SUNGKA__V1__CREATE_ACCOUNT_RESPONSE__INIT;
            reply.claimed = claimed;
            send_session(call, a.name, token, expires, &reply.base, &reply.session);
        }
    }
    held_free(h);
}

static void create_account(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__CreateAccountRequest *req = (const void *)request;
    if (!have_accounts(svc, call))
        return;
    held_call *h = new_held(svc, call, JOB_CREATE);
    if (!h)
        return;
    if (prepare(call, req->name, &h->name) != 0 ||
        take_password(call, req->password, h->password, sizeof h->password) != 0) {
        held_free(h);
        return;
    }
    store_account acct;
    char err[320], echo[160], why[160];
    int like = registered_like(svc, call, &h->name, &acct);
    if (like != 0) {
        if (like > 0 && strcmp(acct.name_key, h->name.key) == 0) {
            snprintf(err, sizeof err, "the name '%s' is registered",
                     board_echo(acct.name, echo, sizeof echo));
            reason_fail(call, RPC_ALREADY_EXISTS, "NAME_TAKEN", err);
        } else if (like > 0) {
            snprintf(err, sizeof err, "that name looks like the registered name '%s': "
                                      "choose another", board_echo(acct.name, echo, sizeof echo));
            reason_fail(call, RPC_ALREADY_EXISTS, "NAME_CONFUSABLE", err);
        }
        held_free(h);
        return;
    }
    if (accounts_name_check_scripts(&h->name, why, sizeof why) != ACCOUNTS_OK) {
        snprintf(err, sizeof err, "the name %s", why);
        reason_fail(call, RPC_INVALID_ARGUMENT, "NAME_NOT_ALLOWED", err);
        held_free(h);
        return;
    }
    int64_t now = board_now_ms();
    if (board_limit_count(&svc->limits, "register", h->host, REGISTER_WINDOW_MS, now) >=
        svc->cfg.client_registrations) {
        snprintf(err, sizeof err, "your address made %d accounts this hour (the limit)",
                 svc->cfg.client_registrations);
        board_log_limit(svc, h->host, err);
        reason_fail(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", err);
        held_free(h);
        return;
    }
    char host[BOARD_HOST_BYTES];
    snprintf(host, sizeof host, "%s", h->host);       /* hold() frees h when refused */
    board_limit_add(&svc->limits, "register", host, REGISTER_WINDOW_MS, now);
    if (hold(svc, call, h, NULL, created) != 0)       /* not made: not counted */
        board_limit_take_back(&svc->limits, "register", host, REGISTER_WINDOW_MS, now);
}

/* ------------------------------------------------------------ SignIn */

static void signed_in_done(accounts_job *job)
{
    held_call *h = (held_call *)job;
    board_service *svc = h->svc;
    rpc_call *call = held_call_of(h);
    if (!call)
        return;
    if (h->result != 0 || h->account.id == 0) {       /* counted when let in */
        metric_add(svc->m.signin_failures, 1);
        board_log_signin_failed(svc, h->host, h->name.display,
                                h->account.id == 0 ? "no such account" : "wrong password");
        reason_fail(call, RPC_UNAUTHENTICATED, "BAD_CREDENTIALS", "wrong name or password");
        held_free(h);
        return;
    }
    forgive_attempt(svc, h->host, h->name.key);
    /* Told only to whoever knows the password. */
    if (disabled(svc, call, h->account.id)) {
        board_log_client(svc, LOG_INFO, h->host, "account %lld is disabled: sign-in refused",
                         (long long)h->account.id);
        held_free(h);
        return;
    }
    metric_add(svc->m.signins, 1);
    char token[ACCOUNTS_SESSION_TOKEN_BYTES];
    int64_t expires;
    if (new_session(svc, call, h->account.id, token, &expires) == 0) {
        Sungka__V1__SignInResponse reply = SUNGKA__V1__SIGN_IN_RESPONSE__INIT;
        send_session(call, h->account.name, token, expires, &reply.base, &reply.session);
    }
    held_free(h);
}

/* What SignIn and ResetPassword do first: accounts kept here, the name
 * and the password `given` taken (into h->new_password when new, else
 * h->password), the sign-in limits
 * of the name and the address, the account looked up. The held call, with
 * *found 0 when h->account is the name's (else no such account); or NULL
 * once call is answered. A name or password no account can have is
 * refused at once: that says nothing about which accounts exist. */
static held_call *admit_attempt(board_service *svc, rpc_call *call, job_kind job,
                                const char *name, const char *given, bool new,
                                int *found /* OUT */)
{
    if (!have_accounts(svc, call))
        return NULL;
    held_call *h = new_held(svc, call, job);
    if (!h)
        return NULL;
    char *password = new ? h->new_password : h->password;
    if (prepare(call, name, &h->name) != 0 ||
        take_password(call, given, password, sizeof h->password) != 0 ||
        signin_limited(svc, call, h->host, h->name.key)) {
        held_free(h);
        return NULL;
    }
    *found = store_account_find(svc->store, h->name.key, &h->account);
    if (*found < 0) {
        board_log_at(svc, LOG_ERR, "cannot read the accounts: %s", store_last_error(svc->store));
        reason_fail(call, RPC_UNAVAILABLE, "UNAVAILABLE", "cannot read the accounts");
        held_free(h);
        return NULL;
    }
    return h;
}

static void sign_in(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__SignInRequest *req = (const void *)request;
    int found;
    held_call *h = admit_attempt(svc, call, JOB_SIGN_IN, req->name, req->password, false,
                                 &found);
    if (h)
        hold_attempt(svc, call, h, h->name.key, signed_in_done);  /* none: the dummy hash */
}

/* ------------------------------------------------------------ the rest */

static void sign_out(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    board_service *svc = user;
    store_account acct;
    store_session ss;
    if (!have_accounts(svc, call) || signed_in(svc, call, &acct, &ss) != 0)
        return;
    if (store_session_delete(svc->store, ss.id) != 0) {
        reason_fail(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot end the session");
        return;
    }
    Sungka__V1__SignOutResponse reply = SUNGKA__V1__SIGN_OUT_RESPONSE__INIT;
    rpc_call_reply(call, &reply.base);
}

/* Seat tokens taken while signed in end with the account's sessions: a
 * device that was signed out keeps no seat either. The seats stay the
 * account's (JoinGame signed in gives each back with its new token). A scan
 * of every participant here: each call behind it cost a password hash or a
 * sign-in. */
static void revoke_seats(board_service *svc, int64_t account_id, const char *why)
{
    int total = 0;
    for (int i = 0; i < svc->n_rooms; i++) {
        int n = 0;
        room_revoke_account_tokens(svc->rooms[i], account_id, why, &n);
        total += n;
    }
    if (total > 0)
        board_log(svc, "account %lld: %d seat tokens ended with its sessions",
                  (long long)account_id, total);
}

static void sign_out_everywhere(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    board_service *svc = user;
    store_account acct;
    store_session ss;
    int n = 0;
    if (!have_accounts(svc, call) || signed_in(svc, call, &acct, &ss) != 0)
        return;
    if (store_sessions_delete_account(svc->store, acct.id, NULL, &n) != 0) {
        reason_fail(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot end the sessions");
        return;
    }
    revoke_seats(svc, acct.id, "your account signed out everywhere, which ends its seat "
                               "tokens: sign in and join the game again to take your seat back");
    Sungka__V1__SignOutEverywhereResponse reply = SUNGKA__V1__SIGN_OUT_EVERYWHERE_RESPONSE__INIT;
    reply.sessions_ended = n;
    rpc_call_reply(call, &reply.base);
}

static void changed(accounts_job *job)
{
    held_call *h = (held_call *)job;
    board_service *svc = h->svc;
    rpc_call *call = held_call_of(h);
    if (!call)
        return;
    int n = 0;
    if (h->result != 0) {      /* counted when let in */
        board_log_signin_failed(svc, h->host, h->account.name,
                                "wrong password to change it");
        reason_fail(call, RPC_UNAUTHENTICATED, "BAD_CREDENTIALS", "wrong password");
        held_free(h);
        return;
    }
    forgive_attempt(svc, h->host, h->account.name_key);
    if (store_begin(svc->store) != 0 ||
        store_account_set_password(svc->store, h->account.id, h->hash, board_wall_ms()) != 0 ||
        store_sessions_delete_account(svc->store, h->account.id, h->session_id, &n) != 0 ||
        store_commit(svc->store) != 0) {
        board_log_at(svc, LOG_ERR, "cannot store a new password: %s",
                     store_last_error(svc->store));
        store_rollback(svc->store);
        reason_fail(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot store the new password");
    } else {
        board_log_client(svc, LOG_INFO, h->host, "account %lld changed its password",
                         (long long)h->account.id);
        revoke_seats(svc, h->account.id, "your account's password changed, which ends its "
                                         "seat tokens: join the game again (signed in) to "
                                         "take your seat back");
        Sungka__V1__ChangePasswordResponse reply = SUNGKA__V1__CHANGE_PASSWORD_RESPONSE__INIT;
        reply.sessions_ended = n;
        rpc_call_reply(call, &reply.base);
    }
    held_free(h);
}

static void change_password(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__ChangePasswordRequest *req = (const void *)request;
    store_session ss;
    if (!have_accounts(svc, call))
        return;
    held_call *h = new_held(svc, call, JOB_CHANGE);
    if (!h)
        return;
    if (signed_in(svc, call, &h->account, &ss) != 0 ||
        take_password(call, req->old_password, h->password, sizeof h->password) != 0 ||
        take_password(call, req->new_password, h->new_password, sizeof h->new_password) != 0 ||
        signin_limited(svc, call, h->host, h->account.name_key)) {
        held_free(h);
        return;
    }
    memcpy(h->session_id, ss.id, sizeof h->session_id);
    hold_attempt(svc, call, h, h->account.name_key, changed);
}

static void who_am_i(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    (void)request;
    board_service *svc = user;
    store_account acct;
    store_session ss;
    if (!have_accounts(svc, call) || signed_in(svc, call, &acct, &ss) != 0)
        return;
    Sungka__V1__WhoAmIResponse reply = SUNGKA__V1__WHO_AM_IRESPONSE__INIT;
    reply.name = acct.name;
    reply.created_ms = acct.created_ms;
    reply.session_expires_ms = ss.expires_ms;
    rpc_call_reply(call, &reply.base);
}

/* ------------------------------------------------------------ ResetPassword */

/* Whether account_id still has the reset code whose hash is `shown`, in
 * force at now: 1 yes; 0 no (none, another, or expired: *expired); -1 the
 * store failed. */
static int code_holds(board_service *svc, int64_t account_id, const uint8_t *shown,
                      bool *expired)
{
    uint8_t want[STORE_RESET_HASH_BYTES];
    int64_t until = 0;
    *expired = false;
    int rc = store_reset_code_get(svc->store, account_id, want, &until);
    if (rc < 0)
        return -1;
    bool same = rc == 0 && sodium_memcmp(want, shown, sizeof want) == 0;
    sodium_memzero(want, sizeof want);
    if (same && until <= board_shared_now_ms(svc)) {
        *expired = true;
        return 0;
    }
    return same;
}

static void reset_done(accounts_job *job)
{
    held_call *h = (held_call *)job;
    board_service *svc = h->svc;
    rpc_call *call = held_call_of(h);
    if (!call)
        return;
    int n = 0;
    bool expired;
    if (h->result != 0) {
        reason_fail(call, RPC_INTERNAL, "INTERNAL", "cannot hash the password");
        held_free(h);
        return;
    }
    /* Used meanwhile by another call: once only. */
    int holds = store_begin(svc->store) == 0
                    ? code_holds(svc, h->account.id, h->code_hash, &expired) : -1;
    if (holds == 0) {
        store_rollback(svc->store);
        reason_fail(call, RPC_UNAUTHENTICATED, "BAD_CREDENTIALS",
                    "that reset code was used already");
    } else if (holds < 0 ||
               store_account_set_password(svc->store, h->account.id, h->hash,
                                          board_wall_ms()) != 0 ||
               store_sessions_delete_account(svc->store, h->account.id, NULL, &n) != 0 ||
               store_reset_code_delete(svc->store, h->account.id) != 0 ||
               store_commit(svc->store) != 0) {
        board_log_at(svc, LOG_ERR, "cannot store a reset password: %s",
                     store_last_error(svc->store));
        store_rollback(svc->store);
        reason_fail(call, RPC_UNAVAILABLE, "NOT_STORED", "cannot store the new password");
    } else {
        forgive_attempt(svc, h->host, h->account.name_key);
        board_log_client(svc, LOG_INFO, h->host, "account %lld reset its password with a "
                                                 "code", (long long)h->account.id);
        revoke_seats(svc, h->account.id, "your account's password was reset, which ends its "
                                         "seat tokens: sign in and join the game again to "
                                         "take your seat back");
        Sungka__V1__ResetPasswordResponse reply = SUNGKA__V1__RESET_PASSWORD_RESPONSE__INIT;
        reply.sessions_ended = n;
        rpc_call_reply(call, &reply.base);
    }
    held_free(h);
}

static void reset_password(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__ResetPasswordRequest *req = (const void *)request;
    int rc;
    held_call *h = admit_attempt(svc, call, JOB_RESET, req->name, req->new_password, true,
                                 &rc);
    if (!h)
        return;
    bool expired = false;
    int holds = 0;
    if (rc == 0 && board_reset_code_hash(h->account.id, req->code, h->code_hash) == 0)
        holds = code_holds(svc, h->account.id, h->code_hash, &expired);
    if (holds < 0) {
        reason_fail(call, RPC_UNAVAILABLE, "UNAVAILABLE", "cannot read the accounts");
    } else if (expired) {
        reason_fail(call, RPC_FAILED_PRECONDITION, "CODE_EXPIRED",
                    "that reset code has expired: ask the operator for another");
    } else if (!holds) {
        /* A guess: counted as a failed sign-in of the name and the address. */
        count_attempt(svc, h->host, h->name.key);
        metric_add(svc->m.signin_failures, 1);
        board_log_signin_failed(svc, h->host, h->name.display, "wrong password reset code");
        reason_fail(call, RPC_UNAUTHENTICATED, "BAD_CREDENTIALS", "wrong name or reset code");
    } else {
        hold(svc, call, h, h->name.key, reset_done);
        return;
    }
    held_free(h);
}

const rpc_method_entry board_accounts_methods[] = {
    {"CreateAccount", create_account, false, false, false},
    {"SignIn", sign_in, false, false, false},
    {"SignOut", sign_out, false, false, false},
    {"SignOutEverywhere", sign_out_everywhere, false, false, false},
    {"ChangePassword", change_password, false, false, false},
    {"WhoAmI", who_am_i, false, false, false},
    {"ResetPassword", reset_password, false, false, false},
};
const size_t board_accounts_n_methods =
    sizeof board_accounts_methods / sizeof board_accounts_methods[0];

/* ------------------------------------------------------------ the loop's side */

static void wake_loop(void *svc)
{
    rpc_server_wake(((board_service *)svc)->server);
}

/* Load ICU's data on a worker, so that the loop's first name check does
 * not wait for it (it waits for this to finish, if it has not). Only on a
 * service with accounts: one nobody registered on never loads ICU. */
/* store_look_fn: the look of a name registered before looks were kept. */
static int look_of(const char *name, char *look, size_t len, void *user)
{
    (void)user;
    accounts_name n;
    char why[128];
    if (accounts_name_prepare(name, &n, why, sizeof why) != ACCOUNTS_OK)
        return -1;
    snprintf(look, len, "%s", n.look);
    return 0;
}

static void warm_up(accounts_job *job)
{
    (void)job;
    accounts_init();
}

static void warmed_up(accounts_job *job)
{
    free(job);
}

int board_accounts_start(board_service *svc, char *err, size_t errlen)
{
    if (!svc->store)
        return 0;              /* no store, no accounts: every call says so */
    if (accounts_pool_create(svc->cfg.password_workers, svc->cfg.password_queue,
                             svc->cfg.client_signin_jobs, wake_loop, svc, &svc->pool) != 0) {
        snprintf(err, errlen, "cannot start the accounts' worker threads");
        return -1;
    }
    int64_t n = 0;
    if (store_account_count(svc->store, &n) != 0) {
        snprintf(err, errlen, "cannot read the accounts: %s", store_last_error(svc->store));
        return -1;
    }
    svc->any_accounts = n > 0;
    int filled = 0;
    if (svc->any_accounts &&
        store_account_fill_looks(svc->store, look_of, NULL, &filled) != 0) {
        snprintf(err, errlen, "cannot fill in the accounts' looks: %s",
                 store_last_error(svc->store));
        return -1;
    }
    if (filled > 0)
        board_log(svc, "filled in the look of %d accounts an older version registered",
                  filled);
    accounts_job *job = svc->any_accounts ? calloc(1, sizeof *job) : NULL;
    if (job) {
        job->work = warm_up;
        job->done = warmed_up;
        if (accounts_pool_submit(svc->pool, job) != 0)
            free(job);
    }
    return 0;
}

void board_accounts_drain(board_service *svc)
{
    if (svc->pool)
        accounts_pool_drain(svc->pool);
}

void board_accounts_tick(board_service *svc, int64_t now)
{
    if (!svc->store || now < svc->next_session_sweep_ms)
        return;
    svc->next_session_sweep_ms = now + SESSION_SWEEP_MS;
    int n = 0;
    if (store_sessions_expire(svc->store, board_shared_now_ms(svc), &n) == 0 && n > 0)
        board_log(svc, "%d expired sessions forgotten", n);
}

void board_accounts_stop(board_service *svc)
{
    accounts_pool_destroy(svc->pool);     /* held calls answered SHUTTING_DOWN */
    svc->pool = NULL;
}
