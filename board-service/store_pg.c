/*
 * store_pg.c — the PostgreSQL driver of store_db.h, on libpq: one database
 * server shared by the board services of a cluster.
 *
 * One connection per db, used only by the thread of its store; every call
 * blocks for one round trip, except in a pipelined transaction (below). A
 * statement is prepared on the server once (named s1, s2, ...), its ?N
 * rewritten to $N and its parameters' types
 * inferred by the server. Values go as text, blobs as binary; rows come back
 * as text, the whole result buffered in a PGresult that the steps walk.
 * pg_migrations[] builds the schema as store_sqlite.c's migrations[] do; the
 * version is the one row of our table sungka_schema, and an advisory lock
 * lets one of several services starting at once migrate while the others
 * wait for it.
 *
 * Durability: a COMMIT returns once the server has flushed it to its WAL
 * (synchronous_commit = on; the session turns it on if the server's default
 * is off), so a commit that returned survives the server crashing or losing
 * power, and the service's rule "committed before acknowledged" holds. The
 * price is a round trip and the server's flush per commit, which is what a
 * shared database is for.
 *
 * A lost connection (the server restarted, the network cut, the backend
 * killed): the statement that finds it connects again, once (PQreset), and
 * the statements are prepared again on the new session as they run. Outside
 * a transaction that statement then runs again; inside one it fails, since
 * the transaction died with the session. A statement lost in flight may have
 * been done nevertheless (a COMMIT; an INSERT that is run again and then
 * meets its own row): the service may report a failure for a change that is
 * stored, never acknowledge one that is not.
 *
 * A pipelined transaction (pg_pipeline, for a loop turn's moves): libpq's
 * pipeline mode. The BEGIN and every statement the store defers (pg_defer:
 * a turn's fences and event appends) go out without waiting; a statement
 * whose answer is needed, and the COMMIT, are sent after them with a sync,
 * and the answers of everything before are read then, in order: the
 * deferred appends of a turn cost no round trip of their own. A deferred statement that
 * must touch or return one row and did not is a miss, reported by its tag
 * (pg_misses) for the store to refuse that move alone; a deferred statement
 * that fails aborts the rest of the pipeline up to the sync, and so the
 * statement waited on, or the COMMIT: the whole turn is refused. Each wait
 * ends with a sync, so that a failure in one segment does not abort the
 * next (a ROLLBACK TO a savepoint still runs). At most MAX_DEFERRED
 * statements wait unanswered: past that the driver syncs, so that neither
 * side's buffer fills while the other waits.
 *
 * Timeouts: no server, network or peer may hold the service's loop for
 * long. By default a connection is given up after 5 s (connect_timeout),
 * a silent peer after about 10 s (TCP keepalives after 10 s idle, then
 * every 3 s, 3 times; tcp_user_timeout 10 s for unacknowledged data), a
 * statement after 5 s (statement_timeout), a wait for another session's
 * lock after 2 s (lock_timeout: a node frozen inside a transaction stops
 * another's loop no longer), and a session that sits in an open
 * transaction for 5 s is ended by the server, releasing its locks
 * (idle_in_transaction_session_timeout: a frozen node's). Each may be set
 * otherwise in the URI (connect_timeout=2, options=-c lock_timeout=1s) or
 * by the server; a statement that times out fails like any other.
 */
#include "store_db.h"

#include <libpq-fe.h>

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* "SNGK", as the SQLite file's application_id: the key of the advisory lock
 * held while migrating. */
#define MIGRATION_LOCK 0x534e474b

/* The most parameters a statement may number; ours use 16 at most. */
#define MAX_PARAMS 100

#define BYTEA_OID 17     /* pg_type.oid of bytea: which columns are hex */

/* Deferred statements sent before the driver reads their answers. */
#define MAX_DEFERRED 256

/* ------------------------------------------------------------------------
 * Schema: one entry per version, a list of statements. Never edit a
 * released step; add a new one.
 *
 * Version 1 is store_sqlite.c's migrations 1..7 in one. Times, ids and
 * accounts are BIGINT; small numbers INTEGER. Every TEXT compares bytewise
 * (COLLATE "C", SQLite's BINARY), so the same ORDER BY returns the same rows
 * on both databases. games.ord is the insertion order that SQLite's rowid
 * gives, and it ends the index of ended games as the rowid ends SQLite's.
 * ------------------------------------------------------------------------ */

/* 1: the schema of store_sqlite.c's version 7. */
static const char *const schema_1[] = {
    "CREATE TABLE games ("
    "  id             TEXT COLLATE \"C\" PRIMARY KEY NOT NULL,"
    "  kind           TEXT COLLATE \"C\" NOT NULL,"
    "  title          TEXT COLLATE \"C\" NOT NULL,"
    "  autostart      INTEGER NOT NULL,"
    "  seats          INTEGER NOT NULL,"
    "  status         INTEGER NOT NULL CHECK (status BETWEEN 1 AND 4),"
    "  created_ms     BIGINT NOT NULL,"
    "  started_ms     BIGINT NOT NULL DEFAULT 0,"
    "  ended_ms       BIGINT NOT NULL DEFAULT 0,"
    "  reason         TEXT COLLATE \"C\" NOT NULL DEFAULT '',"
    "  per_move_ms    BIGINT NOT NULL DEFAULT 0,"
    "  base_ms        BIGINT NOT NULL DEFAULT 0,"
    "  increment_ms   BIGINT NOT NULL DEFAULT 0,"
    "  rated          INTEGER NOT NULL DEFAULT 0,"
    "  bot_takes_over INTEGER NOT NULL DEFAULT 0,"
    "  bot_level      INTEGER NOT NULL DEFAULT 0,"
    "  ord            BIGINT GENERATED ALWAYS AS IDENTITY)",
    /* recovery reads the unfinished games; history the ended ones by end */
    "CREATE INDEX games_by_status ON games(status)",
    "CREATE INDEX games_ended ON games(ended_ms, ord) WHERE status >= 3",
    "CREATE INDEX games_ended_by_kind ON games(kind, ended_ms, ord) WHERE status >= 3",
    "CREATE TABLE game_options ("
    "  game_id TEXT COLLATE \"C\" NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  pos     INTEGER NOT NULL,"
    "  name    TEXT COLLATE \"C\" NOT NULL,"
    "  value   INTEGER NOT NULL,"
    "  PRIMARY KEY (game_id, pos))",
    "CREATE TABLE participants ("
    "  game_id    TEXT COLLATE \"C\" NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  person_id  BIGINT NOT NULL,"
    "  name       TEXT COLLATE \"C\" NOT NULL,"
    "  seat       INTEGER NOT NULL,"
    "  token      TEXT COLLATE \"C\" NOT NULL,"
    "  ready      INTEGER NOT NULL,"
    "  bot_level  INTEGER NOT NULL DEFAULT 0,"
    "  account_id BIGINT NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (game_id, person_id))",
    "CREATE TABLE events ("
    "  game_id    TEXT COLLATE \"C\" NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  seq        BIGINT NOT NULL,"
    "  time_ms    BIGINT NOT NULL,"
    "  only_for_a BIGINT NOT NULL,"
    "  only_for_b BIGINT NOT NULL,"
    "  data       BYTEA NOT NULL,"
    "  format     INTEGER NOT NULL DEFAULT 1,"
    "  PRIMARY KEY (game_id, seq))",
    "CREATE TABLE moves ("
    "  game_id TEXT COLLATE \"C\" NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  ply     INTEGER NOT NULL,"
    "  seat    INTEGER NOT NULL,"
    "  move    INTEGER NOT NULL,"
    "  time_ms BIGINT NOT NULL,"
    "  PRIMARY KEY (game_id, ply))",
    "CREATE TABLE results ("
    "  game_id    TEXT COLLATE \"C\" NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  seat       INTEGER NOT NULL,"
    "  name       TEXT COLLATE \"C\" NOT NULL,"
    "  score      INTEGER NOT NULL,"
    "  winner     INTEGER NOT NULL,"
    "  account_id BIGINT,"
    "  PRIMARY KEY (game_id, seat))",
    "CREATE INDEX results_by_name ON results(name, game_id)",
    "CREATE TABLE players ("
    "  name        TEXT COLLATE \"C\" PRIMARY KEY NOT NULL,"
    "  played      INTEGER NOT NULL,"
    "  wins        INTEGER NOT NULL,"
    "  losses      INTEGER NOT NULL,"
    "  draws       INTEGER NOT NULL,"
    "  streak      INTEGER NOT NULL,"
    "  best_streak INTEGER NOT NULL,"
    "  account_id  BIGINT)",
    "CREATE INDEX players_by_rank ON players(wins DESC, best_streak DESC, name)",
    "CREATE UNIQUE INDEX players_by_account ON players(account_id)"
    "  WHERE account_id IS NOT NULL",
    "CREATE INDEX players_ranked ON players(wins DESC, best_streak DESC, name)"
    "  WHERE account_id IS NOT NULL",
    "CREATE TABLE accounts ("
    "  id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  name        TEXT COLLATE \"C\" NOT NULL,"
    "  name_key    TEXT COLLATE \"C\" NOT NULL UNIQUE,"
    "  skeleton    TEXT COLLATE \"C\" NOT NULL UNIQUE,"
    "  pwhash      TEXT COLLATE \"C\" NOT NULL,"
    "  created_ms  BIGINT NOT NULL,"
    "  password_ms BIGINT NOT NULL)",
    "CREATE TABLE sessions ("
    "  id         BYTEA PRIMARY KEY NOT NULL,"
    "  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
    "  hash       BYTEA NOT NULL,"
    "  created_ms BIGINT NOT NULL,"
    "  expires_ms BIGINT NOT NULL)",
    "CREATE INDEX sessions_by_account ON sessions(account_id)",
    "CREATE INDEX sessions_by_expiry ON sessions(expires_ms)",
    "CREATE TABLE rated_seats ("
    "  game_id    TEXT COLLATE \"C\" NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  seat       INTEGER NOT NULL,"
    "  account_id BIGINT NOT NULL,"
    "  PRIMARY KEY (game_id, seat))",
    "CREATE TABLE ratings ("
    "  account_id BIGINT NOT NULL,"
    "  kind       TEXT COLLATE \"C\" NOT NULL,"
    "  rating     DOUBLE PRECISION NOT NULL,"
    "  rd         DOUBLE PRECISION NOT NULL,"
    "  volatility DOUBLE PRECISION NOT NULL,"
    "  games      INTEGER NOT NULL,"
    "  updated_ms BIGINT NOT NULL,"
    "  PRIMARY KEY (account_id, kind))",
    "CREATE INDEX ratings_by_kind ON ratings(kind, rating DESC)",
    "CREATE TABLE rating_history ("
    "  account_id    BIGINT NOT NULL,"
    "  kind          TEXT COLLATE \"C\" NOT NULL,"
    "  ended_ms      BIGINT NOT NULL,"
    "  game_id       TEXT COLLATE \"C\" NOT NULL,"
    "  rating_before DOUBLE PRECISION NOT NULL,"
    "  rating        DOUBLE PRECISION NOT NULL,"
    "  rd            DOUBLE PRECISION NOT NULL,"
    "  volatility    DOUBLE PRECISION NOT NULL,"
    "  PRIMARY KEY (account_id, kind, ended_ms, game_id))",
    /* A cluster (store.h): the nodes, each game's owner, and game ids
     * unique in the cluster. A node's id is never reused: it fences. */
    "CREATE TABLE nodes ("
    "  id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    "  endpoint    TEXT COLLATE \"C\" NOT NULL,"
    "  started     TIMESTAMPTZ NOT NULL,"
    "  lease_until TIMESTAMPTZ NOT NULL)",
    "CREATE INDEX nodes_by_endpoint ON nodes(endpoint)",
    "CREATE TABLE game_owners ("
    "  game_id TEXT COLLATE \"C\" PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,"
    "  node_id BIGINT NOT NULL REFERENCES nodes(id))",
    "CREATE INDEX game_owners_by_node ON game_owners(node_id)",
    "CREATE SEQUENCE game_ids",
    /* a seat token asked of a node that does not host its game */
    "CREATE INDEX participants_by_token ON participants(token)",
    NULL,
};

/* 2: store_sqlite.c's version 8: rated games that do not count, rated games
 * found by account, a signed-in participant's client address. */
static const char *const schema_2[] = {
    "ALTER TABLE games ADD COLUMN unrated INTEGER NOT NULL DEFAULT 0",
    "CREATE INDEX rated_seats_by_account ON rated_seats(account_id, game_id)",
    "ALTER TABLE participants ADD COLUMN host TEXT COLLATE \"C\" NOT NULL DEFAULT ''",
    NULL,
};

/* 3: store_sqlite.c's 9, an account's look (accounts.h): indexed, not
 * unique; the rows written before are filled by the service when it starts
 * (store_account_fill_looks). */
static const char *const schema_3[] = {
    "ALTER TABLE accounts ADD COLUMN look TEXT COLLATE \"C\" NOT NULL DEFAULT ''",
    "CREATE INDEX accounts_by_look ON accounts(look)",
    NULL,
};

/* 4: store_sqlite.c's 10, the operator's bans, the audit log and the
 * password reset codes. */
static const char *const schema_4[] = {
    "CREATE TABLE bans ("
    "  kind     integer NOT NULL,"
    "  target   text COLLATE \"C\" NOT NULL,"
    "  label    text NOT NULL,"
    "  reason   text NOT NULL,"
    "  made_ms  bigint NOT NULL,"
    "  until_ms bigint NOT NULL,"
    "  PRIMARY KEY (kind, target))",
    "CREATE TABLE admin_actions ("
    "  id     bigserial PRIMARY KEY,"
    "  at_ms  bigint NOT NULL,"
    "  who    text NOT NULL,"
    "  action text NOT NULL,"
    "  target text NOT NULL,"
    "  reason text NOT NULL)",
    "CREATE TABLE reset_codes ("
    "  account_id bigint PRIMARY KEY,"
    "  hash       bytea NOT NULL,"
    "  expires_ms bigint NOT NULL)",
    NULL,
};

/* 5: store_sqlite.c's 11, players' blocks and reports. */
static const char *const schema_5[] = {
    "CREATE TABLE blocks ("
    "  account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
    "  blocked_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
    "  created_ms BIGINT NOT NULL,"
    "  PRIMARY KEY (account_id, blocked_id))",
    "CREATE TABLE reports ("
    "  id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  time_ms     BIGINT NOT NULL,"
    "  reporter_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
    "  reported_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
    "  game_id     TEXT COLLATE \"C\" NOT NULL,"
    "  reason      TEXT NOT NULL,"
    "  host        TEXT COLLATE \"C\" NOT NULL)",
    "CREATE INDEX reports_by_reporter ON reports(reporter_id, time_ms)",
    NULL,
};

/* 6: store_sqlite.c's 12, the engine's review of each ended game. */
static const char *const schema_6[] = {
    "CREATE TABLE analyses ("
    "  game_id TEXT COLLATE \"C\" PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,"
    "  made_ms BIGINT NOT NULL,"
    "  data    BYTEA NOT NULL)",
    NULL,
};

/* 7: store_sqlite.c's 13, tournaments. */
static const char *const schema_7[] = {
    "CREATE TABLE tournaments ("
    "  id         TEXT COLLATE \"C\" PRIMARY KEY,"
    "  status     INTEGER NOT NULL,"
    "  updated_ms BIGINT NOT NULL,"
    "  record     BYTEA NOT NULL)",
    NULL,
};

/* 8: store_sqlite.c's 14, the tournament that made a game. */
static const char *const schema_8[] = {
    "ALTER TABLE games ADD COLUMN tournament_id TEXT COLLATE \"C\" NOT NULL DEFAULT ''",
    NULL,
};

/* Each step's statements, run in one transaction. */
static const char *const *const pg_migrations[] = {
    schema_1,
    schema_2,
    schema_3,
    schema_4,
    schema_5,
    schema_6,
    schema_7,
    schema_8,
};

#define PG_SCHEMA_VERSION ((int)(sizeof pg_migrations / sizeof pg_migrations[0]))

/* How long the service waits for any answer of the server (answer_ms):
 * ANSWER_PAST_TIMEOUT_MS past the session's statement_timeout, so past what
 * the server times out itself, and at most ANSWER_DEADLINE_MS (which the
 * default statement_timeout, 5 s, gives), for what the server does not time
 * out: a COMMIT waiting for a synchronous standby there is none of (the
 * server's statement_timeout ends before the commit's wait), a server or
 * network that stopped answering. Then the statement is cancelled, and if
 * even that gets no answer in CANCEL_DEADLINE_MS the connection is given
 * up. A shorter statement_timeout in the URI shortens the wait with it. */
#define ANSWER_DEADLINE_MS 8000
#define ANSWER_PAST_TIMEOUT_MS 3000

/* Every session: no NOTICE noise, UTC, bytea as hex (col_blob decodes it),
 * commits that wait for the server's flush (see Durability), and timeouts
 * (see Timeouts) where the URI's options, PGOPTIONS, the role or the server
 * set none; its answer is the statement_timeout then in force, in ms, which
 * the service's own deadline for an answer follows (answer_ms). */
static const char session_sql[] =
    "SET client_min_messages = warning;"
    "SET TIME ZONE 'UTC';"
    "SET bytea_output = 'hex';"
    "SELECT set_config('synchronous_commit', 'on', false)"
    " WHERE current_setting('synchronous_commit') = 'off';"
    "SELECT set_config('statement_timeout', '5s', false)"
    " WHERE current_setting('statement_timeout') = '0';"
    "SELECT set_config('lock_timeout', '2s', false)"
    " WHERE current_setting('lock_timeout') = '0';"
    "SELECT set_config('idle_in_transaction_session_timeout', '5s', false)"
    " WHERE current_setting('idle_in_transaction_session_timeout') = '0';"
    "SELECT setting FROM pg_settings WHERE name = 'statement_timeout'";

/* ------------------------------------------------------------------------
 * Connection and statement
 * ------------------------------------------------------------------------ */

struct pg_stmt;

struct pg {
    db base;                   /* first: what store.c holds */
    PGconn *conn;
    unsigned long gen;         /* bumped by every reconnection: sessions */
    bool late;                 /* the last answer came only after a cancel (answer()) */
    int answer_ms;             /* how long an answer is waited for (setup_session) */
    unsigned long names;       /* statements named so far (s1, s2, ...) */
    struct pg_stmt *stmts;     /* every statement prepared, freed by close */
    int64_t changes;           /* rows the last INSERT, UPDATE or DELETE touched */
    bool unique;               /* the last failure was SQLSTATE 23505 */
    char history[64];          /* the session's database history (learn_history); "": unknown */
    bool no_history;           /* the server has no such functions (not PostgreSQL itself) */
    char err[512];             /* the last failure, one line */
    /* A pipelined transaction (pg_pipeline), from its BEGIN to its COMMIT
     * or ROLLBACK. */
    bool piping;
    struct deferred *pending;  /* sent, answers not read yet, in order */
    int npending, cap_pending;
    uint64_t *misses;          /* tags of the deferred statements that missed */
    int nmisses;
    PGresult *pipe_fail;       /* the first deferred statement that failed, till its wait */
    /* A turn's COMMIT on its way (pg_commit_send), at most one: the answers
     * of the statements deferred before it, then the COMMIT's and the
     * sync's, read as they come (read_flight); the next turn's BEGIN and
     * writes may follow it in the same pipeline meanwhile. */
    enum { FLIGHT_NONE, FLIGHT_FLYING, FLIGHT_LANDED } flight;
    struct deferred *flying;   /* its deferred statements, in order */
    int nflying;
    int flying_read;           /* answers read: flying[]'s, then the COMMIT's */
    PGresult *flight_res;      /* the answer being read, till libpq's NULL after it */
    PGresult *flight_fail;     /* the first failure among them */
    bool flight_committed;     /* the COMMIT's own answer said COMMIT */
    bool flight_late;          /* a cancel was sent for it */
    int64_t flight_deadline;   /* mono_ms(): when it is cancelled */
    int flight_rc;             /* landed: 0 committed, -1 not (flight_err) */
    char flight_err[512];
    uint64_t *flight_misses;   /* its misses (pg_misses: the last landed commit's) */
    int nflight_misses;
    unsigned long trips;       /* waits for the server (store_waits) */
    double waited;             /* seconds the thread spent blocked on the server */
};

/* A statement sent in a pipeline, its answer not read yet. */
struct deferred {
    struct pg_stmt *prepared;  /* a Prepare sent for it, not the statement: its gen */
    bool expect_one;           /* must touch or return one row, or its tag misses */
    uint64_t tag;
};

/* A column's decoded bytea, kept for the next rows. */
struct blob {
    unsigned char *data;
    size_t cap;
};

struct pg_stmt {
    db_stmt base;              /* first: base.d is the struct pg */
    struct pg_stmt *next;      /* the connection's list */
    char *sql;                 /* with $1 .. $N */
    char name[24];             /* unique on the connection */
    unsigned long gen;         /* the session it is prepared in; 0: none */
    bool commits;              /* a COMMIT: see check_commit() */
    bool ends;                 /* a COMMIT or ROLLBACK (not TO): ends a pipeline */
    bool too_big;              /* a bound blob PostgreSQL cannot take */
    int nparams;
    const char **values;       /* bound values: borrowed, or num[i]; NULL: SQL NULL */
    int *lengths;              /* of binary values */
    int *formats;              /* 0: text, 1: binary (blobs) */
    char (*num)[32];           /* the text of bound numbers */
    PGresult *res;             /* the rows of the last run; NULL: not run since reset */
    int row;                   /* the current row of res */
    struct blob *blobs;        /* per column */
    int nblobs;
};

static const db_driver pg_driver;
static const unsigned char empty_blob[1];

static struct pg *pg_of(db *d) { return (struct pg *)d; }
static struct pg_stmt *stmt_of(db_stmt *s) { return (struct pg_stmt *)s; }

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

/* msg on one line: runs of white space with a line break become one space,
 * and the trailing newline goes. */
static void one_line(char *out, size_t size, const char *msg)
{
    size_t n = 0;
    for (const char *c = msg; *c && n + 1 < size; c++) {
        if (*c != '\n') {
            out[n++] = *c;
            continue;
        }
        while (n > 0 && isspace((unsigned char)out[n - 1]))
            n--;
        while (c[1] && isspace((unsigned char)c[1]))
            c++;
        if (c[1] && n > 0)
            out[n++] = ' ';
    }
    while (n > 0 && isspace((unsigned char)out[n - 1]))
        n--;
    out[n] = '\0';
}

static int failf(struct pg *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int failf(struct pg *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, sizeof p->err, fmt, ap);
    va_end(ap);
    p->unique = false;
    return -1;
}

/* Record why res (NULL: libpq ran out of memory) failed. */
static void fail_result(struct pg *p, const PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (!msg || !msg[0])
        msg = res ? PQresultErrorMessage(res) : "";
    if (!msg[0])
        msg = PQerrorMessage(p->conn);
    one_line(p->err, sizeof p->err, msg);
    p->unique = state && strcmp(state, "23505") == 0;
}

static bool succeeded(const PGresult *res)
{
    ExecStatusType s = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK || s == PGRES_EMPTY_QUERY;
}

/* ------------------------------------------------------------------------
 * Running on the connection, through a lost connection
 * ------------------------------------------------------------------------ */

static int setup_session(struct pg *p)
{
    PGresult *res = PQexec(p->conn, session_sql);
    int rc = succeeded(res) ? 0 : -1;
    if (rc < 0)
        fail_result(p, res);
    p->answer_ms = ANSWER_DEADLINE_MS;
    long timeout_ms = rc == 0 && PQntuples(res) == 1 ? strtol(PQgetvalue(res, 0, 0), NULL, 10)
                                                     : 0;
    if (timeout_ms > 0 && timeout_ms < ANSWER_DEADLINE_MS - ANSWER_PAST_TIMEOUT_MS)
        p->answer_ms = (int)timeout_ms + ANSWER_PAST_TIMEOUT_MS;
    PQclear(res);
    return rc;
}

/* Which history of the database this session is on: the server's system
 * identifier (pg_control_system(); initdb makes it, a base backup and so a
 * standby keeps it) and its timeline (the first 8 hex digits of the name of
 * the WAL file being written: a promotion starts a new one at once, while
 * pg_control_checkpoint() names it only after the next checkpoint). Both
 * are open to any role. A server in recovery, or that failed to answer,
 * leaves it unknown (""), and the next db_history asks again; one without
 * these functions (a PostgreSQL-compatible database) is not asked again. */
static void learn_history(struct pg *p)
{
    p->history[0] = '\0';
    if (p->no_history)
        return;
    PGresult *res = PQexec(p->conn,
                           "SELECT (SELECT system_identifier FROM pg_control_system())::text"
                           " || '/' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)"
                           " WHERE NOT pg_is_in_recovery()");
    if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 && PQnfields(res) == 1 &&
        !PQgetisnull(res, 0, 0))
        snprintf(p->history, sizeof p->history, "%s", PQgetvalue(res, 0, 0));
    const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    if (state && strcmp(state, "42883") == 0)    /* undefined_function: never asked again */
        p->no_history = true;
    PQclear(res);
}

/* Connect again (the statements prepared before are gone with the old
 * session: the new generation prepares them again). */
static int reconnect(struct pg *p)
{
    PQreset(p->conn);
    p->gen++;
    if (PQstatus(p->conn) != CONNECTION_OK) {
        char why[sizeof p->err];
        one_line(why, sizeof why, PQerrorMessage(p->conn));
        return failf(p, "the connection to PostgreSQL was lost and cannot be made again: %s",
                     why);
    }
    if (setup_session(p) < 0) {
        char why[sizeof p->err];
        memcpy(why, p->err, sizeof why);
        return failf(p, "the connection to PostgreSQL was lost, and the new one fails: %s", why);
    }
    learn_history(p);
    return 0;
}

#define CANCEL_DEADLINE_MS 2000

/* Cancel requests that may still be waiting for a server that accepted
 * them and never answered (PQcancel has no timeout of its own: a frozen
 * server held the loop for as long as it was frozen, 24 s of 25 in a test).
 * Each is sent from a detached thread, so the loop waits for the statement's
 * answer only; past this many still waiting, none is sent and the
 * connection is given up at the deadline all the same. */
#define CANCELS_WAITING_MAX 4

static atomic_int cancels_waiting;

static void *send_cancel(void *arg)
{
    PGcancel *cancel = arg;
    char why[256];
    PQcancel(cancel, why, sizeof why);
    PQfreeCancel(cancel);
    atomic_fetch_sub(&cancels_waiting, 1);
    return NULL;
}

static void cancel_in_background(PGconn *conn)
{
    if (atomic_fetch_add(&cancels_waiting, 1) >= CANCELS_WAITING_MAX) {
        atomic_fetch_sub(&cancels_waiting, 1);
        return;
    }
    PGcancel *cancel = PQgetCancel(conn);
    pthread_t thread;
    pthread_attr_t attr;
    bool started = false;
    if (cancel && pthread_attr_init(&attr) == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        started = pthread_create(&thread, &attr, send_cancel, cancel) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started) {
        PQfreeCancel(cancel);
        atomic_fetch_sub(&cancels_waiting, 1);
    }
}

/* poll(), its time blocked added to p->waited (store_waits). */
static int poll_timed(struct pg *p, struct pollfd *pfd, int timeout_ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int rc = poll(pfd, 1, timeout_ms);
    clock_gettime(CLOCK_MONOTONIC, &b);
    p->waited += (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    return rc;
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for the server's next bytes for a statement due by *deadline: at
 * the deadline a cancel is sent (*late) and CANCEL_DEADLINE_MS more given;
 * if not even that is answered the connection is given up (shut down: the
 * next read finds it lost). No later than until. 1: read again; 0: until
 * came first; -1: poll failed. */
static int wait_for_server(struct pg *p, int64_t *deadline, bool *late, int64_t until)
{
    int64_t now = mono_ms();
    if (now >= *deadline) {
        if (*late) {
            shutdown(PQsocket(p->conn), SHUT_RDWR);
            return 1;
        }
        cancel_in_background(p->conn);
        *late = true;
        *deadline = now + CANCEL_DEADLINE_MS;
    }
    if (now >= until)
        return 0;
    int64_t left = (until < *deadline ? until : *deadline) - now;
    struct pollfd pfd = {.fd = PQsocket(p->conn), .events = POLLIN};
    if (poll_timed(p, &pfd, (int)(left < INT_MAX ? left : INT_MAX)) < 0 && errno != EINTR)
        return -1;
    return 1;
}

/* Wait until the next result can be read without blocking, within
 * *deadline (wait_for_server; p->late). */
static void await_result(struct pg *p, int64_t *deadline)
{
    while (PQisBusy(p->conn))
        if (wait_for_server(p, deadline, &p->late, INT64_MAX) < 0 || !PQconsumeInput(p->conn))
            return;
}

/* The results of one statement sent (up to libpq's NULL after them; a
 * pipeline's sync is a result of its own, with no NULL after it): the last,
 * or the first failed one. */
static PGresult *one_answer(struct pg *p, int64_t *deadline)
{
    PGresult *kept = NULL, *res;
    for (;;) {
        await_result(p, deadline);
        if (!(res = PQgetResult(p->conn)))
            break;
        bool sync = PQresultStatus(res) == PGRES_PIPELINE_SYNC;
        if (kept && !succeeded(kept)) {
            PQclear(res);          /* the first failure is the one that counts */
        } else {
            PQclear(kept);
            kept = res;
        }
        if (sync || PQstatus(p->conn) == CONNECTION_BAD)
            break;
    }
    return kept ? kept : PQmakeEmptyPGresult(p->conn, PGRES_FATAL_ERROR);
}

/* A deferred statement's answer (res, cleared here): a miss recorded in
 * misses[*n] (of MAX_DEFERRED), the first failure kept in *fail. */
static void note_answer(struct deferred *d, PGresult *res, uint64_t *misses, int *n,
                        PGresult **fail)
{
    if (!succeeded(res)) {
        if (d->prepared)
            d->prepared->gen = 0;      /* prepare it again when next run */
        if (!*fail && res && PQresultStatus(res) != PGRES_PIPELINE_ABORTED) {
            *fail = res;
            res = NULL;
        }
    } else if (d->expect_one) {
        bool rows = PQresultStatus(res) == PGRES_TUPLES_OK;
        int64_t n1 = rows ? PQntuples(res) : strtoll(PQcmdTuples(res), NULL, 10);
        if (n1 != 1 && *n < MAX_DEFERRED)
            misses[(*n)++] = d->tag;
    }
    PQclear(res);
}

/* In a pipeline, after a sync went out: read the deferred statements'
 * answers in order, recording misses and the first failure (p->pipe_fail). */
static void read_deferred(struct pg *p, int64_t *deadline)
{
    int n = p->npending;
    p->npending = 0;
    for (int i = 0; i < n; i++) {
        struct deferred *d = &p->pending[i];
        if (PQstatus(p->conn) == CONNECTION_BAD) {
            if (d->prepared)
                d->prepared->gen = 0;
            continue;
        }
        note_answer(d, one_answer(p, deadline), p->misses, &p->nmisses, &p->pipe_fail);
    }
}

/* The pipeline's end (its COMMIT or ROLLBACK answered, or the connection
 * lost): out of pipeline mode, nothing pending. */
static void end_pipeline(struct pg *p)
{
    for (int i = 0; i < p->npending; i++)
        if (p->pending[i].prepared)
            p->pending[i].prepared->gen = 0;
    p->npending = 0;
    PQclear(p->pipe_fail);
    p->pipe_fail = NULL;
    p->piping = false;
    if (PQpipelineStatus(p->conn) != PQ_PIPELINE_OFF && !PQexitPipelineMode(p->conn))
        shutdown(PQsocket(p->conn), SHUT_RDWR);   /* cannot happen; never stay in it */
}

/* The answer to what was just sent (sent: what PQsend* returned), within
 * p->answer_ms: the last result, or the first failed one. A result
 * that came only after a cancel is recorded as late (p->late): a COMMIT
 * the server then reports done was never confirmed in time, so the caller
 * must not count on it (it may be stored; it is never acknowledged).
 * In a pipeline the statement goes with a sync, the deferred statements'
 * answers are read first, and a failure among them is the answer; ends:
 * the statement is the pipeline's COMMIT or ROLLBACK. */
static PGresult *answer_in(struct pg *p, int sent, bool ends)
{
    p->late = false;
    if (!sent) {
        if (p->piping && ends)
            end_pipeline(p);
        return PQmakeEmptyPGresult(p->conn, PGRES_FATAL_ERROR);
    }
    int64_t deadline = mono_ms() + p->answer_ms;
    p->trips++;
    if (!p->piping)
        return one_answer(p, &deadline);
    if (!PQpipelineSync(p->conn)) {
        end_pipeline(p);
        return PQmakeEmptyPGresult(p->conn, PGRES_FATAL_ERROR);
    }
    read_deferred(p, &deadline);
    PGresult *res = one_answer(p, &deadline);
    if (PQstatus(p->conn) != CONNECTION_BAD)
        PQclear(one_answer(p, &deadline));        /* the sync's */
    if (p->pipe_fail && !succeeded(res)) {
        PQclear(res);
        res = p->pipe_fail;
        p->pipe_fail = NULL;
    }
    if (ends || PQstatus(p->conn) == CONNECTION_BAD)
        end_pipeline(p);
    /* A COMMIT or ROLLBACK that a failure before it aborted left the
     * transaction open (failed): end it, as its caller meant. */
    if (ends && !succeeded(res) && PQstatus(p->conn) == CONNECTION_OK &&
        PQtransactionStatus(p->conn) == PQTRANS_INERROR)
        PQclear(PQexec(p->conn, "ROLLBACK"));
    return res;
}

static PGresult *answer(struct pg *p, int sent)
{
    return answer_in(p, sent, false);
}

typedef PGresult *(*pg_call)(struct pg *p, void *arg);

static void land_now(struct pg *p);

/* A lost connection (PQTRANS_UNKNOWN) holds no transaction: the next
 * statement, a BEGIN included, connects again instead of being refused. */
static bool open_transaction(PGTransactionStatusType t)
{
    return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

/* Run call; if it finds the connection lost, connect again once and, when
 * no transaction was open, run it again. The result of a success (the
 * caller clears it), or NULL with the failure recorded. */
static PGresult *run(struct pg *p, pg_call call, void *arg)
{
    land_now(p);               /* a COMMIT on its way is answered first */
    bool had_transaction = p->piping || open_transaction(PQtransactionStatus(p->conn));
    PGresult *res = call(p, arg);
    if (succeeded(res) && p->late) {
        PQclear(res);
        failf(p, "PostgreSQL did not confirm the statement in time (it was cancelled; a "
                 "COMMIT may be stored nevertheless, on no standby: is a synchronous standby "
                 "missing?)");
        return NULL;
    }
    if (succeeded(res))
        return res;
    if (PQstatus(p->conn) != CONNECTION_BAD) {
        fail_result(p, res);
        PQclear(res);
        return NULL;
    }
    PQclear(res);
    if (reconnect(p) < 0)
        return NULL;
    if (had_transaction) {
        failf(p, "the connection to PostgreSQL was lost; the open transaction is gone "
                 "(rolled back, or for a COMMIT perhaps committed)");
        return NULL;
    }
    res = call(p, arg);
    if (succeeded(res))
        return res;
    fail_result(p, res);
    PQclear(res);
    return NULL;
}

/* changes(): as SQLite's, only statements that write rows count. */
static void note_changes(struct pg *p, PGresult *res)
{
    static const char *const writes[] = {"INSERT ", "UPDATE ", "DELETE ", "MERGE "};
    const char *tag = PQcmdStatus(res);
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
        if (strncmp(tag, writes[i], strlen(writes[i])) == 0) {
            p->changes = strtoll(PQcmdTuples(res), NULL, 10);
            return;
        }
    }
}

/* PostgreSQL answers the COMMIT of a transaction that an error aborted with
 * a successful "ROLLBACK": that must not read as committed. (In a pipeline
 * the error may come in the same round trip: any such answer counts.) */
static int check_commit(struct pg *p, bool aborted, bool commits, PGresult *res)
{
    if ((aborted || p->piping) && commits && strcmp(PQcmdStatus(res), "ROLLBACK") == 0)
        return failf(p, "the transaction was rolled back, not committed: a statement in it "
                        "failed");
    return 0;
}

/* Whether sql begins with COMMIT or END. */
static bool is_commit(const char *sql)
{
    while (isspace((unsigned char)*sql))
        sql++;
    return strncasecmp(sql, "COMMIT", 6) == 0 || strncasecmp(sql, "END", 3) == 0;
}

/* Whether sql is a whole ROLLBACK (not ROLLBACK TO a savepoint). */
static bool is_rollback(const char *sql)
{
    while (isspace((unsigned char)*sql))
        sql++;
    if (strncasecmp(sql, "ROLLBACK", 8) != 0)
        return false;
    for (sql += 8; isspace((unsigned char)*sql); sql++)
        ;
    return strncasecmp(sql, "TO", 2) != 0;
}

/* ------------------------------------------------------------------------
 * Statements
 * ------------------------------------------------------------------------ */

/* A copy of sql with ?N as $N (the same length); *nparams gets the highest
 * N. Quoted literals and identifiers are left alone. NULL: out of memory or
 * a number beyond MAX_PARAMS. */
static char *rewrite_params(const char *sql, int *nparams)
{
    char *out = strdup(sql);
    char quote = 0;
    *nparams = 0;
    for (char *c = out; c && *c; c++) {
        if (quote) {
            quote = *c == quote ? 0 : quote;
        } else if (*c == '\'' || *c == '"') {
            quote = *c;
        } else if (*c == '?' && isdigit((unsigned char)c[1])) {
            char *end;
            long n = strtol(c + 1, &end, 10);
            if (n > MAX_PARAMS) {
                free(out);
                return NULL;
            }
            *c = '$';
            *nparams = n > *nparams ? (int)n : *nparams;
            c = end - 1;
        }
    }
    return out;
}

static void stmt_free(struct pg_stmt *st)
{
    PQclear(st->res);
    for (int i = 0; i < st->nblobs; i++)
        free(st->blobs[i].data);
    free(st->blobs);
    free(st->values);
    free(st->lengths);
    free(st->formats);
    free(st->num);
    free(st->sql);
    free(st);
}

static int alloc_params(struct pg_stmt *st)
{
    size_t n = (size_t)st->nparams;
    if (n == 0)
        return 0;
    st->values = calloc(n, sizeof *st->values);
    st->lengths = calloc(n, sizeof *st->lengths);
    st->formats = calloc(n, sizeof *st->formats);
    st->num = calloc(n, sizeof *st->num);
    return st->values && st->lengths && st->formats && st->num ? 0 : -1;
}

/* Prepare st in the current session. */
static PGresult *prepare_now(struct pg *p, struct pg_stmt *st)
{
    PGresult *res = answer(p, PQsendPrepare(p->conn, st->name, st->sql, st->nparams, NULL));
    if (succeeded(res))
        st->gen = p->gen;
    return res;
}

static PGresult *call_prepare(struct pg *p, void *arg)
{
    return prepare_now(p, arg);
}

static db_stmt *pg_prepare(db *d, const char *sql)
{
    struct pg *p = pg_of(d);
    struct pg_stmt *st = calloc(1, sizeof *st);
    if (!st) {
        failf(p, "out of memory");
        return NULL;
    }
    st->base.d = d;
    st->sql = rewrite_params(sql, &st->nparams);
    if (!st->sql || alloc_params(st) < 0) {
        failf(p, st->sql ? "out of memory"
                         : "out of memory, or a parameter beyond ?%d", MAX_PARAMS);
        stmt_free(st);
        return NULL;
    }
    st->commits = is_commit(sql);
    st->ends = st->commits || is_rollback(sql);
    snprintf(st->name, sizeof st->name, "s%lu", ++p->names);
    /* now, so that a mistake in the SQL shows where it is prepared */
    PGresult *res = run(p, call_prepare, st);
    if (!res) {
        stmt_free(st);
        return NULL;
    }
    PQclear(res);
    st->next = p->stmts;
    p->stmts = st;
    return &st->base;
}

/* ------------------------------------------------------------------------
 * Binding
 * ------------------------------------------------------------------------ */

static void set_param(db_stmt *s, int i, const char *v, int len, int format)
{
    struct pg_stmt *st = stmt_of(s);
    if (i < 1 || i > st->nparams)
        return;     /* as SQLite: an index out of range binds nothing */
    st->values[i - 1] = v;
    st->lengths[i - 1] = len;
    st->formats[i - 1] = format;
}

static void pg_bind_text(db_stmt *s, int i, const char *v)
{
    set_param(s, i, v, 0, 0);
}

static void pg_bind_int64(db_stmt *s, int i, int64_t v)
{
    struct pg_stmt *st = stmt_of(s);
    if (i < 1 || i > st->nparams)
        return;
    snprintf(st->num[i - 1], sizeof st->num[i - 1], "%lld", (long long)v);
    set_param(s, i, st->num[i - 1], 0, 0);
}

static void pg_bind_double(db_stmt *s, int i, double v)
{
    struct pg_stmt *st = stmt_of(s);
    if (i < 1 || i > st->nparams)
        return;
    /* 17 digits: the same double comes back */
    snprintf(st->num[i - 1], sizeof st->num[i - 1], "%.17g", v);
    set_param(s, i, st->num[i - 1], 0, 0);
}

/* Binary, so the bytes need no escaping; an empty blob still has a pointer,
 * or libpq would send NULL. */
static void pg_bind_blob(db_stmt *s, int i, const void *v, size_t len)
{
    if (len > INT_MAX) {
        stmt_of(s)->too_big = true;
        return;
    }
    set_param(s, i, v ? (len ? v : (const void *)empty_blob) : NULL, (int)len, 1);
}

static void pg_bind_null(db_stmt *s, int i)
{
    set_param(s, i, NULL, 0, 0);
}

/* ------------------------------------------------------------------------
 * Running and reading rows
 * ------------------------------------------------------------------------ */

static PGresult *call_execute(struct pg *p, void *arg)
{
    struct pg_stmt *st = arg;
    if (st->gen != p->gen) {
        PGresult *res = prepare_now(p, st);
        if (!succeeded(res))
            return res;
        PQclear(res);
    }
    return answer_in(p, PQsendQueryPrepared(p->conn, st->name, st->nparams, st->values,
                                            st->lengths, st->formats, 0),
                     st->ends);
}

static int pg_step(db_stmt *s)
{
    struct pg_stmt *st = stmt_of(s);
    struct pg *p = pg_of(s->d);
    if (st->res) {
        if (st->row < PQntuples(st->res))
            st->row++;
        return st->row < PQntuples(st->res) ? DB_ROW : DB_DONE;
    }
    if (st->too_big) {
        failf(p, "a blob is too big for PostgreSQL (2 GiB at most)");
        return DB_FAILED;
    }
    bool aborted = PQtransactionStatus(p->conn) == PQTRANS_INERROR;
    PGresult *res = run(p, call_execute, st);
    if (!res)
        return DB_FAILED;
    if (check_commit(p, aborted, st->commits, res) < 0) {
        PQclear(res);
        return DB_FAILED;
    }
    note_changes(p, res);
    st->res = res;
    st->row = 0;
    return PQntuples(res) > 0 ? DB_ROW : DB_DONE;
}

static void pg_reset(db_stmt *s)
{
    struct pg_stmt *st = stmt_of(s);
    PQclear(st->res);
    st->res = NULL;
    st->row = 0;
    st->too_big = false;
    for (int i = 0; i < st->nparams; i++)
        st->values[i] = NULL;
}

/* The text of a column of the current row; NULL for SQL NULL or no such. */
static const char *value(struct pg_stmt *st, int col)
{
    if (!st->res || st->row >= PQntuples(st->res) || col < 0 || col >= PQnfields(st->res) ||
        PQgetisnull(st->res, st->row, col))
        return NULL;
    return PQgetvalue(st->res, st->row, col);
}

static int64_t pg_col_int64(db_stmt *s, int col)
{
    const char *v = value(stmt_of(s), col);
    if (!v)
        return 0;
    if ((v[0] == 't' || v[0] == 'f') && !v[1])     /* a boolean expression */
        return v[0] == 't';
    return strtoll(v, NULL, 10);
}

static double pg_col_double(db_stmt *s, int col)
{
    const char *v = value(stmt_of(s), col);
    return v ? strtod(v, NULL) : 0.0;
}

static const char *pg_col_text(db_stmt *s, int col)
{
    const char *v = value(stmt_of(s), col);
    return v ? v : "";
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The buffer of column col, with room for n bytes; NULL: out of memory. */
static unsigned char *blob_room(struct pg_stmt *st, int col, size_t n)
{
    if (col >= st->nblobs) {
        struct blob *b = realloc(st->blobs, (size_t)(col + 1) * sizeof *b);
        if (!b)
            return NULL;
        memset(b + st->nblobs, 0, (size_t)(col + 1 - st->nblobs) * sizeof *b);
        st->blobs = b;
        st->nblobs = col + 1;
    }
    struct blob *b = &st->blobs[col];
    if (b->cap < n) {
        unsigned char *data = realloc(b->data, n);
        if (!data)
            return NULL;
        b->data = data;
        b->cap = n;
    }
    return b->data;
}

/* A bytea arrives as text: "\x" and two hex digits a byte. Another column
 * reads as its text's bytes, as in SQLite. */
static const void *pg_col_blob(db_stmt *s, int col, size_t *len)
{
    struct pg_stmt *st = stmt_of(s);
    const char *v = value(st, col);
    size_t n = 0;
    const void *out = empty_blob;
    if (v && PQftype(st->res, col) != BYTEA_OID) {
        n = strlen(v);
        out = n ? (const void *)v : empty_blob;
    } else if (v && v[0] == '\\' && v[1] == 'x' && v[2]) {
        const char *hex = v + 2;
        unsigned char *data = blob_room(st, col, strlen(hex) / 2);
        for (; data && hex_digit(hex[0]) >= 0 && hex_digit(hex[1]) >= 0; hex += 2)
            data[n++] = (unsigned char)(hex_digit(hex[0]) << 4 | hex_digit(hex[1]));
        out = data && n ? (const void *)data : empty_blob;
        n = data ? n : 0;
    }
    if (len)
        *len = n;
    return out;
}

/* ------------------------------------------------------------------------
 * The connection's own calls
 * ------------------------------------------------------------------------ */

static int64_t pg_changes(db *d)
{
    return pg_of(d)->changes;
}

static PGresult *call_exec(struct pg *p, void *arg)
{
    return answer(p, PQsendQuery(p->conn, *(const char **)arg));
}

static int pg_exec(db *d, const char *sql)
{
    struct pg *p = pg_of(d);
    bool aborted = PQtransactionStatus(p->conn) == PQTRANS_INERROR;
    PGresult *res = run(p, call_exec, &sql);
    if (!res)
        return -1;
    int rc = check_commit(p, aborted, is_commit(sql), res);
    if (rc == 0)
        note_changes(p, res);
    PQclear(res);
    return rc;
}

static bool pg_in_transaction(db *d)
{
    struct pg *p = pg_of(d);
    return p->piping ||
           (p->flight != FLIGHT_FLYING && open_transaction(PQtransactionStatus(p->conn)));
}

/* ------------------------------------------------------------------------
 * A pipelined transaction
 * ------------------------------------------------------------------------ */

static int pg_pipeline(db *d)
{
    struct pg *p = pg_of(d);
    if (p->flight == FLIGHT_FLYING && PQstatus(p->conn) == CONNECTION_BAD)
        land_now(p);           /* lost with it: connect again below */
    if (p->flight == FLIGHT_FLYING) {
        /* Behind the last turn's COMMIT, in the same pipeline: the server
         * runs this turn's statements once that COMMIT is done. */
        if (p->piping)
            return failf(p, "cannot begin a transaction: one is already open");
        p->piping = true;
        p->npending = 0;
        p->nmisses = 0;
        return 0;
    }
    if (p->piping || open_transaction(PQtransactionStatus(p->conn)))
        return failf(p, "cannot begin a transaction: one is already open");
    if (!p->pending && !(p->pending = calloc(MAX_DEFERRED, sizeof *p->pending)))
        return failf(p, "out of memory");
    if (!p->flying && !(p->flying = calloc(MAX_DEFERRED, sizeof *p->flying)))
        return failf(p, "out of memory");
    if (!p->misses && !(p->misses = calloc(MAX_DEFERRED, sizeof *p->misses)))
        return failf(p, "out of memory");
    if (!p->flight_misses &&
        !(p->flight_misses = calloc(MAX_DEFERRED, sizeof *p->flight_misses)))
        return failf(p, "out of memory");
    p->cap_pending = MAX_DEFERRED;
    /* A connection lost since the last statement: connect again now, as
     * the BEGIN would outside a pipeline (which runs again on a new session
     * when it finds its connection lost). A session the server ended while
     * it was idle (a restart, pg_terminate_backend) has left its goodbye
     * and the socket's end unread: read what is there, without waiting, so
     * that libpq knows before the turn's statements are sent on it (the
     * second read finds the end once the first has taken the message). A
     * session ended so late that its end has not arrived yet fails this
     * turn (its first move waits for its answer: refused, NOT_STORED) and
     * the next connects again. */
    for (int i = 0; i < 2 && PQstatus(p->conn) == CONNECTION_OK; i++)
        PQconsumeInput(p->conn);
    if (PQstatus(p->conn) == CONNECTION_BAD && reconnect(p) < 0)
        return -1;
    if (!PQenterPipelineMode(p->conn)) {
        char why[256];
        one_line(why, sizeof why, PQerrorMessage(p->conn));
        return failf(p, "cannot pipeline a transaction: %s", why);
    }
    p->piping = true;
    p->npending = 0;
    p->nmisses = 0;
    return 0;
}

/* Send what is pending and read its answers (a sync on its own): the
 * bound on statements unanswered. */
static void settle(struct pg *p)
{
    land_now(p);
    int64_t deadline = mono_ms() + p->answer_ms;
    p->late = false;
    p->trips++;
    if (!PQpipelineSync(p->conn)) {
        end_pipeline(p);
        return;
    }
    read_deferred(p, &deadline);
    if (PQstatus(p->conn) != CONNECTION_BAD)
        PQclear(one_answer(p, &deadline));        /* the sync's */
    if (PQstatus(p->conn) == CONNECTION_BAD)
        end_pipeline(p);
}

static int pg_defer(db_stmt *s, bool expect_one, uint64_t tag)
{
    struct pg_stmt *st = stmt_of(s);
    struct pg *p = pg_of(s->d);
    if (!p->piping)
        return failf(p, "cannot defer a statement: no pipelined transaction is open");
    if (st->too_big)
        return failf(p, "a blob is too big for PostgreSQL (2 GiB at most)");
    if (p->npending + 2 > p->cap_pending) {
        settle(p);
        if (!p->piping)
            return failf(p, "the connection to PostgreSQL was lost; the open transaction "
                            "is gone");
    }
    if (st->gen != p->gen) {
        if (!PQsendPrepare(p->conn, st->name, st->sql, st->nparams, NULL))
            goto lost;
        st->gen = p->gen;
        p->pending[p->npending++] = (struct deferred){.prepared = st};
    }
    if (!PQsendQueryPrepared(p->conn, st->name, st->nparams, st->values, st->lengths,
                             st->formats, 0))
        goto lost;
    p->pending[p->npending++] = (struct deferred){.expect_one = expect_one, .tag = tag};
    return 0;
lost:;
    char why[256];
    one_line(why, sizeof why, PQerrorMessage(p->conn));
    return failf(p, "cannot send a statement to PostgreSQL: %s", why);
}

static int pg_misses(db *d, const uint64_t **tags)
{
    struct pg *p = pg_of(d);
    *tags = p->flight_misses;
    return p->nflight_misses;
}

/* ------------------------------------------------------------------------
 * A turn's COMMIT on its way
 * ------------------------------------------------------------------------ */

/* The flight's answers are all read (or its connection lost): its outcome,
 * kept for pg_landed. The transaction a failure left open is ended unless
 * the next turn's is open behind it (whose BEGIN then failed with it: the
 * store refuses that turn too). */
static void land(struct pg *p)
{
    bool lost = PQstatus(p->conn) == CONNECTION_BAD;
    bool ok = p->flight_committed && !p->flight_fail && !p->flight_late && !lost;
    if (ok)
        p->flight_rc = 0;
    else if (p->flight_fail)
        fail_result(p, p->flight_fail);
    else if (lost)
        failf(p, "the connection to PostgreSQL was lost before the turn's COMMIT was "
                 "answered (rolled back, or perhaps committed)");
    else if (p->flight_late)
        failf(p, "PostgreSQL did not confirm the COMMIT in time (it was cancelled; it may "
                 "be stored nevertheless, on no standby: is a synchronous standby missing?)");
    else
        failf(p, "the transaction was rolled back, not committed: a statement in it failed");
    if (!ok) {
        p->flight_rc = -1;
        memcpy(p->flight_err, p->err, sizeof p->flight_err);
        p->flight_err[sizeof p->flight_err - 1] = '\0';
    }
    for (int i = p->flying_read; i < p->nflying; i++)
        if (p->flying[i].prepared)
            p->flying[i].prepared->gen = 0;
    PQclear(p->flight_res);
    PQclear(p->flight_fail);
    p->flight_res = p->flight_fail = NULL;
    p->nflying = 0;
    p->flight = FLIGHT_LANDED;
    if (lost) {
        end_pipeline(p);
    } else if (!p->piping) {
        end_pipeline(p);
        if (!ok && PQtransactionStatus(p->conn) == PQTRANS_INERROR)
            PQclear(PQexec(p->conn, "ROLLBACK"));
    }
}

/* One result of the flight (NULL: libpq's end of a statement's answers). */
static void take_flight_result(struct pg *p, PGresult *res)
{
    if (res && PQresultStatus(res) == PGRES_PIPELINE_SYNC) {
        PQclear(res);
        land(p);
        return;
    }
    if (res) {                 /* the first failure of a statement is its answer */
        if (p->flight_res && !succeeded(p->flight_res)) {
            PQclear(res);
        } else {
            PQclear(p->flight_res);
            p->flight_res = res;
        }
        return;
    }
    res = p->flight_res;
    p->flight_res = NULL;
    if (p->flying_read < p->nflying) {
        note_answer(&p->flying[p->flying_read++], res, p->flight_misses, &p->nflight_misses,
                    &p->flight_fail);
        return;
    }
    if (p->flying_read++ == p->nflying) {      /* the COMMIT's */
        p->flight_committed = succeeded(res) && strcmp(PQcmdStatus(res), "COMMIT") == 0;
        if (!succeeded(res) && !p->flight_fail && res &&
            PQresultStatus(res) != PGRES_PIPELINE_ABORTED) {
            p->flight_fail = res;
            res = NULL;
        }
    }
    PQclear(res);
}

/* Read what has come of the flight's answers, waiting up to wait_ms for
 * more (-1: until it lands), with the deadline and cancel of any statement
 * (wait_for_server). Whether it has landed. */
static bool read_flight(struct pg *p, int wait_ms)
{
    int64_t until = wait_ms < 0 ? INT64_MAX : mono_ms() + wait_ms;
    while (p->flight == FLIGHT_FLYING) {
        if (PQstatus(p->conn) == CONNECTION_BAD || !PQconsumeInput(p->conn)) {
            if (PQstatus(p->conn) != CONNECTION_BAD) {     /* never leave it half read */
                shutdown(PQsocket(p->conn), SHUT_RDWR);
                PQconsumeInput(p->conn);
            }
            land(p);
            break;
        }
        while (p->flight == FLIGHT_FLYING && !PQisBusy(p->conn))
            take_flight_result(p, PQgetResult(p->conn));
        if (p->flight != FLIGHT_FLYING)
            break;
        int waited = wait_for_server(p, &p->flight_deadline, &p->flight_late, until);
        if (waited == 0)
            return false;
        if (waited < 0)
            shutdown(PQsocket(p->conn), SHUT_RDWR);
    }
    return true;
}

/* Before anything else waits on the connection: the flight lands first. */
static void land_now(struct pg *p)
{
    if (p->flight == FLIGHT_FLYING)
        read_flight(p, -1);
}

static int pg_commit_send(db *d)
{
    struct pg *p = pg_of(d);
    assert(p->flight == FLIGHT_NONE);  /* the last one's outcome was taken */
    if (!p->piping)
        return failf(p, "cannot commit: no pipelined transaction is open");
    if (!PQsendQueryParams(p->conn, "COMMIT", 0, NULL, NULL, NULL, NULL, 0) ||
        !PQpipelineSync(p->conn)) {
        char why[256];
        one_line(why, sizeof why, PQerrorMessage(p->conn));
        end_pipeline(p);
        return failf(p, "cannot send the COMMIT to PostgreSQL: %s", why);
    }
    p->trips++;
    struct deferred *pending = p->pending;
    p->pending = p->flying;
    p->flying = pending;
    p->nflying = p->npending;
    p->npending = 0;
    uint64_t *misses = p->misses;
    p->misses = p->flight_misses;
    p->flight_misses = misses;
    p->nflight_misses = p->nmisses;
    p->nmisses = 0;
    p->flying_read = 0;
    p->flight_res = NULL;
    p->flight_fail = p->pipe_fail;     /* a failure a wait in the turn read already */
    p->pipe_fail = NULL;
    p->flight_committed = false;
    p->flight_late = false;
    p->flight_deadline = mono_ms() + p->answer_ms;
    p->flight = FLIGHT_FLYING;
    p->piping = false;
    return 0;
}

static void pg_flush(db *d)
{
    struct pg *p = pg_of(d);
    if (p->piping && PQflush(p->conn) < 0)
        shutdown(PQsocket(p->conn), SHUT_RDWR);    /* found lost at the next wait */
}

static int pg_landed(db *d, int wait_ms)
{
    struct pg *p = pg_of(d);
    if (p->flight == FLIGHT_NONE)
        return failf(p, "no COMMIT is on its way");
    if (p->flight == FLIGHT_FLYING && !read_flight(p, wait_ms))
        return DB_FLYING;
    p->flight = FLIGHT_NONE;
    if (p->flight_rc < 0)
        memcpy(p->err, p->flight_err, sizeof p->flight_err);
    return p->flight_rc;
}

static bool pg_piping(db *d)
{
    return pg_of(d)->piping;
}

static unsigned long pg_round_trips(db *d)
{
    return pg_of(d)->trips;
}

static double pg_waited(db *d)
{
    return pg_of(d)->waited;
}

static bool pg_unique_violation(db *d)
{
    return pg_of(d)->unique;
}

static const char *pg_errmsg(db *d)
{
    return pg_of(d)->err;
}

static unsigned long pg_checkpoints(db *d)
{
    (void)d;
    return 0;     /* the server checkpoints */
}

static const char *pg_history(db *d)
{
    struct pg *p = pg_of(d);
    if (!p->history[0] && !p->no_history && PQstatus(p->conn) == CONNECTION_OK &&
        !p->piping && !open_transaction(PQtransactionStatus(p->conn)))
        learn_history(p);
    return p->history;
}

static void pg_close(db *d)
{
    struct pg *p = pg_of(d);
    if (!p)
        return;
    if (p->flight == FLIGHT_FLYING)
        read_flight(p, 0);     /* what has come; the rest is rolled back with the session */
    p->flight = FLIGHT_NONE;
    PQclear(p->flight_res);
    PQclear(p->flight_fail);
    if (p->piping || PQpipelineStatus(p->conn) != PQ_PIPELINE_OFF)
        end_pipeline(p);
    if (p->conn && PQpipelineStatus(p->conn) == PQ_PIPELINE_OFF &&
        open_transaction(PQtransactionStatus(p->conn)))
        PQclear(PQexec(p->conn, "ROLLBACK"));
    free(p->pending);
    free(p->misses);
    free(p->flying);
    free(p->flight_misses);
    while (p->stmts) {
        struct pg_stmt *next = p->stmts->next;
        stmt_free(p->stmts);
        p->stmts = next;
    }
    PQfinish(p->conn);
    free(p);
}

static const db_driver pg_driver = {
    .dialect = DB_POSTGRES,
    .prepare = pg_prepare,
    .bind_text = pg_bind_text,
    .bind_int64 = pg_bind_int64,
    .bind_double = pg_bind_double,
    .bind_blob = pg_bind_blob,
    .bind_null = pg_bind_null,
    .step = pg_step,
    .reset = pg_reset,
    .col_int64 = pg_col_int64,
    .col_double = pg_col_double,
    .col_text = pg_col_text,
    .col_blob = pg_col_blob,
    .changes = pg_changes,
    .exec = pg_exec,
    .in_transaction = pg_in_transaction,
    .unique_violation = pg_unique_violation,
    .errmsg = pg_errmsg,
    .checkpoints = pg_checkpoints,
    .history = pg_history,
    .pipeline = pg_pipeline,
    .piping = pg_piping,
    .defer = pg_defer,
    .misses = pg_misses,
    .commit_send = pg_commit_send,
    .landed = pg_landed,
    .flush = pg_flush,
    .round_trips = pg_round_trips,
    .waited = pg_waited,
    .close = pg_close,
};

/* ------------------------------------------------------------------------
 * Opening: connect (creating the database), then the schema
 * ------------------------------------------------------------------------ */

bool db_is_pg_uri(const char *path)
{
    return path && (strncmp(path, "postgresql://", 13) == 0 ||
                    strncmp(path, "postgres://", 11) == 0);
}

/* Append n bytes of s to out (size bytes, *used so far), as far as fits. */
static void append(char *out, size_t size, size_t *used, const char *s, size_t n)
{
    if (*used + 1 >= size)
        return;
    n = n < size - 1 - *used ? n : size - 1 - *used;
    memcpy(out + *used, s, n);
    *used += n;
    out[*used] = '\0';
}

/* The URI to quote in a message: without the password of its user part
 * (user:secret@host) nor a password=... parameter. */
static void uri_without_password(const char *uri, char *out, size_t size)
{
    size_t used = 0;
    if (size)
        out[0] = '\0';
    const char *rest = uri;
    const char *scheme = strstr(uri, "://");
    if (scheme) {
        /* libpq's rule: the user part ends at the first '@' before a '/' */
        const char *start = scheme + 3;
        const char *at = start + strcspn(start, "@/");
        const char *colon = memchr(start, ':', (size_t)(at - start));
        if (*at == '@' && colon) {
            append(out, size, &used, uri, (size_t)(colon - uri));
            rest = at;
        }
    }
    const char *query = strchr(rest, '?');
    append(out, size, &used, rest, query ? (size_t)(query - rest) : strlen(rest));
    char sep = '?';
    for (const char *q = query; q && *q; ) {
        q++;
        size_t n = strcspn(q, "&");
        if (!(strncmp(q, "password=", 9) == 0)) {
            append(out, size, &used, &sep, 1);
            append(out, size, &used, q, n);
            sep = '&';
        }
        q += n;
    }
}

static void drop_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;     /* warnings of the server are not the service's to print */
}

/* The one warning that matters: a COMMIT whose wait for a synchronous
 * standby was cancelled (statement_timeout, or our cancel) is reported done
 * although no standby has it; answer() must not count on it. (Matched in
 * the server's English; a server with other lc_messages is caught only by
 * the deadline, answer_ms.) */
static void watch_notice(void *arg, const PGresult *res)
{
    struct pg *p = arg;
    const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    if (p && msg && strstr(msg, "wait for synchronous replication"))
        p->late = true;
}

/* Connect with the URI's settings; dbname, if not NULL, names another
 * database on the same server. The keys before the URI are defaults it may
 * override (see Timeouts); its own application_name wins. */
static PGconn *connect_to(const char *uri, const char *dbname)
{
    const char *keys[] = {"fallback_application_name", "connect_timeout", "keepalives",
                          "keepalives_idle", "keepalives_interval", "keepalives_count",
                          "tcp_user_timeout", "dbname", dbname ? "dbname" : NULL, NULL};
    const char *values[] = {"sungka-board", "5", "1", "10", "3", "3", "10000", uri, dbname,
                            NULL};
    PGconn *conn = PQconnectdbParams(keys, values, 1);
    if (conn)
        PQsetNoticeProcessor(conn, drop_notice, NULL);
    return conn;
}

/* libpq gives a failed connection no SQLSTATE: the server's sentence it is. */
static bool missing_database(const char *msg)
{
    const char *name = strstr(msg, "database \"");
    return name && strstr(name, "\" does not exist");
}

/* CREATE DATABASE name, connected to the server's maintenance database.
 * Another service creating it at the same moment is success. */
static int create_database(struct pg *p, const char *uri, const char *name)
{
    static const char *const maintenance[] = {"postgres", "template1"};
    PGconn *admin = NULL;
    for (size_t i = 0; i < 2 && (!admin || PQstatus(admin) != CONNECTION_OK); i++) {
        PQfinish(admin);
        admin = connect_to(uri, maintenance[i]);
    }
    if (!admin || PQstatus(admin) != CONNECTION_OK) {
        char why[256];
        one_line(why, sizeof why, admin ? PQerrorMessage(admin) : "out of memory");
        PQfinish(admin);
        return failf(p, "the database \"%s\" does not exist, and the server's postgres "
                        "database to create it from cannot be reached: %s", name, why);
    }
    char *ident = PQescapeIdentifier(admin, name, strlen(name));
    char *sql = ident ? malloc(strlen(ident) + 17) : NULL;
    PGresult *res = NULL;
    if (sql) {
        sprintf(sql, "CREATE DATABASE %s", ident);
        res = PQexec(admin, sql);
    }
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    int rc = 0;
    if (!succeeded(res) && !(state && (strcmp(state, "42P04") == 0 ||
                                       strcmp(state, "23505") == 0))) {
        char why[256];
        one_line(why, sizeof why, res ? PQresultErrorMessage(res) : PQerrorMessage(admin));
        rc = failf(p, "the database \"%s\" does not exist and cannot be created: %s", name,
                   why);
    }
    PQclear(res);
    free(sql);
    PQfreemem(ident);
    PQfinish(admin);
    return rc;
}

static int fail_connection(struct pg *p)
{
    one_line(p->err, sizeof p->err, p->conn ? PQerrorMessage(p->conn) : "out of memory");
    return -1;
}

/* Connect, creating the database if the server has none of that name, as
 * the SQLite driver creates its file. */
static int connect_db(struct pg *p, const char *uri)
{
    p->conn = connect_to(uri, NULL);
    if (p->conn)
        PQsetNoticeReceiver(p->conn, watch_notice, p);
    if (!p->conn || PQstatus(p->conn) == CONNECTION_OK)
        return p->conn ? 0 : fail_connection(p);
    if (!missing_database(PQerrorMessage(p->conn)))
        return fail_connection(p);
    char *name = strdup(PQdb(p->conn));
    int rc = name ? create_database(p, uri, name) : failf(p, "out of memory");
    free(name);
    if (rc < 0)
        return -1;
    PQfinish(p->conn);
    p->conn = connect_to(uri, NULL);
    if (p->conn)
        PQsetNoticeReceiver(p->conn, watch_notice, p);
    return p->conn && PQstatus(p->conn) == CONNECTION_OK ? 0 : fail_connection(p);
}

/* Run sql without parameters; what: the failure's beginning. */
static int exec_sql(struct pg *p, const char *sql, const char *what)
{
    PGresult *res = PQexec(p->conn, sql);
    int rc = succeeded(res) ? 0 : -1;
    if (rc < 0) {
        fail_result(p, res);
        char why[sizeof p->err];
        memcpy(why, p->err, sizeof why);
        failf(p, "%s: %s", what, why);
    }
    PQclear(res);
    return rc;
}

/* The integers of the one row sql returns. */
static int query_ints(struct pg *p, const char *sql, int n, long long *out)
{
    PGresult *res = PQexec(p->conn, sql);
    int rc = -1;
    if (!succeeded(res) || PQntuples(res) != 1 || PQnfields(res) != n) {
        if (succeeded(res))
            failf(p, "cannot read the database: %d rows", PQntuples(res));
        else
            fail_result(p, res);
    } else {
        for (int i = 0; i < n; i++)
            out[i] = strtoll(PQgetvalue(res, 0, i), NULL, 10);
        rc = 0;
    }
    PQclear(res);
    return rc;
}

/* The schema's version, inside the migration's transaction: 0 for an empty
 * schema (sungka_schema is then made), -1 for a stranger's. */
static int schema_version(struct pg *p, int *version)
{
    long long n[2];
    if (query_ints(p, "SELECT count(*), count(*) FILTER (WHERE c.relname = 'sungka_schema')"
                      " FROM pg_catalog.pg_class c"
                      " JOIN pg_catalog.pg_namespace s ON s.oid = c.relnamespace"
                      " WHERE s.nspname = current_schema()"
                      " AND c.relkind IN ('r', 'p', 'v', 'm', 'f')", 2, n) < 0)
        return -1;
    if (n[1] == 0 && n[0] > 0)
        return failf(p, "it is a database of another program, not Sungka's");
    if (n[1] == 0) {
        *version = 0;
        return exec_sql(p, "CREATE TABLE sungka_schema (version integer NOT NULL);"
                           "INSERT INTO sungka_schema VALUES (0)", "cannot mark the database");
    }
    long long v[2];
    if (query_ints(p, "SELECT max(version), count(*) FROM sungka_schema", 2, v) < 0)
        return -1;
    if (v[1] != 1)
        return failf(p, "its table sungka_schema has %lld rows, not one", v[1]);
    *version = (int)v[0];
    return 0;
}

/* Bring the schema to PG_SCHEMA_VERSION, one service at a time: READ
 * COMMITTED, so that a service that waited for the lock sees what the one
 * before it built. */
static int migrate(struct pg *p)
{
    char lock[128];
    snprintf(lock, sizeof lock, "BEGIN ISOLATION LEVEL READ COMMITTED;"
             "SELECT pg_advisory_xact_lock(%d)", MIGRATION_LOCK);
    int version = 0;
    if (exec_sql(p, lock, "cannot lock the schema") < 0 || schema_version(p, &version) < 0)
        return -1;
    if (version > PG_SCHEMA_VERSION)
        return failf(p, "it was written by a newer Sungka (schema version %d; this "
                        "program knows up to %d)", version, PG_SCHEMA_VERSION);
    for (int v = version + 1; v <= PG_SCHEMA_VERSION; v++) {
        char what[64], set[64];
        snprintf(what, sizeof what, "cannot build schema version %d", v);
        snprintf(set, sizeof set, "UPDATE sungka_schema SET version = %d", v);
        for (const char *const *sql = pg_migrations[v - 1]; *sql; sql++) {
            if (exec_sql(p, *sql, what) < 0)
                return -1;
        }
        if (exec_sql(p, set, what) < 0)
            return -1;
    }
    return exec_sql(p, "COMMIT", "cannot commit the schema");
}

int db_pg_open(const char *uri, db **out, char *err, size_t errlen)
{
    if (out)
        *out = NULL;
    if (!out || !uri || !uri[0]) {
        if (errlen)
            snprintf(err, errlen, "cannot open the database: %s",
                     !out ? "no place for the connection" : "the URI is empty");
        return -1;
    }
    char shown[512];
    uri_without_password(uri, shown, sizeof shown);
    struct pg *p = calloc(1, sizeof *p);
    if (!p) {
        if (errlen)
            snprintf(err, errlen, "cannot open the database %s: out of memory", shown);
        return -1;
    }
    p->base.drv = &pg_driver;
    p->gen = 1;
    p->answer_ms = ANSWER_DEADLINE_MS;         /* till setup_session learns the session's */
    if (connect_db(p, uri) < 0 || setup_session(p) < 0 || migrate(p) < 0) {
        if (errlen)
            snprintf(err, errlen, "cannot open the database %s: %s", shown, p->err);
        pg_close(&p->base);
        return -1;
    }
    learn_history(p);
    p->err[0] = '\0';
    *out = &p->base;
    return 0;
}
