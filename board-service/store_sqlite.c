/*
 * store_sqlite.c — the store (store.h) on an embedded SQLite file.
 *
 * One connection per store, used by one thread. Every statement is prepared
 * once, on first use, and kept in the store (stmt_sql[] below is the whole of
 * the SQL the store runs after opening); each call binds, steps and resets.
 * The schema is built by migrations[]: step v brings a database from version
 * v - 1 to v, and PRAGMA user_version records where a file stands, so a file
 * written by an older service is brought up to date on open and one written
 * by a newer service is refused rather than misread.
 *
 * Durability is WAL with synchronous = NORMAL: a commit survives the process
 * being killed, not necessarily power loss (see store.h for why).
 */
#include "store.h"
#include "store_checkpoint.h"
#include "xdg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* "SNGK": marks a file as ours, so a stranger's database is not migrated. */
#define STORE_APPLICATION_ID 0x534e474b

/* ------------------------------------------------------------------------
 * Schema: one entry per version. Never edit a released step; add a new one.
 * ------------------------------------------------------------------------ */

static const char *const migrations[] = {
    /* 1: the first schema. */
    "CREATE TABLE games ("
    "  id         TEXT PRIMARY KEY NOT NULL,"
    "  kind       TEXT NOT NULL,"
    "  title      TEXT NOT NULL,"
    "  autostart  INTEGER NOT NULL,"
    "  seats      INTEGER NOT NULL,"
    "  status     INTEGER NOT NULL CHECK (status BETWEEN 1 AND 4),"
    "  created_ms INTEGER NOT NULL,"
    "  started_ms INTEGER NOT NULL DEFAULT 0,"
    "  ended_ms   INTEGER NOT NULL DEFAULT 0,"
    "  reason     TEXT NOT NULL DEFAULT '');"
    /* recovery reads the unfinished games; history the ended ones by end */
    "CREATE INDEX games_by_status ON games(status);"
    "CREATE INDEX games_ended ON games(ended_ms) WHERE status >= 3;"
    "CREATE INDEX games_ended_by_kind ON games(kind, ended_ms) WHERE status >= 3;"
    "CREATE TABLE game_options ("
    "  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  pos     INTEGER NOT NULL,"
    "  name    TEXT NOT NULL,"
    "  value   INTEGER NOT NULL,"
    "  PRIMARY KEY (game_id, pos)) WITHOUT ROWID;"
    "CREATE TABLE participants ("
    "  game_id   TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  person_id INTEGER NOT NULL,"
    "  name      TEXT NOT NULL,"
    "  seat      INTEGER NOT NULL,"
    "  token     TEXT NOT NULL,"
    "  ready     INTEGER NOT NULL,"
    "  PRIMARY KEY (game_id, person_id)) WITHOUT ROWID;"
    /* a rowid table: payloads may be too big for a WITHOUT ROWID b-tree */
    "CREATE TABLE events ("
    "  game_id    TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  seq        INTEGER NOT NULL,"
    "  time_ms    INTEGER NOT NULL,"
    "  only_for_a INTEGER NOT NULL,"
    "  only_for_b INTEGER NOT NULL,"
    "  data       BLOB NOT NULL,"
    "  PRIMARY KEY (game_id, seq));"
    "CREATE TABLE moves ("
    "  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  ply     INTEGER NOT NULL,"
    "  seat    INTEGER NOT NULL,"
    "  move    INTEGER NOT NULL,"
    "  time_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (game_id, ply)) WITHOUT ROWID;"
    "CREATE TABLE results ("
    "  game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  seat    INTEGER NOT NULL,"
    "  name    TEXT NOT NULL,"
    "  score   INTEGER NOT NULL,"
    "  winner  INTEGER NOT NULL,"
    "  PRIMARY KEY (game_id, seat)) WITHOUT ROWID;"
    "CREATE INDEX results_by_name ON results(name, game_id);"
    "CREATE TABLE players ("
    "  name        TEXT PRIMARY KEY NOT NULL,"
    "  played      INTEGER NOT NULL,"
    "  wins        INTEGER NOT NULL,"
    "  losses      INTEGER NOT NULL,"
    "  draws       INTEGER NOT NULL,"
    "  streak      INTEGER NOT NULL,"
    "  best_streak INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE INDEX players_by_rank ON players(wins DESC, best_streak DESC, name);",
    /* 2: which participants are the service's own bots, and their level, so
     * that a restart starts them again (0: a person). */
    "ALTER TABLE participants ADD COLUMN bot_level INTEGER NOT NULL DEFAULT 0;",
    /* 3: the version of each event's packed bytes (store_event_append), so
     * that a newer service can read a log an older one wrote. */
    "ALTER TABLE events ADD COLUMN format INTEGER NOT NULL DEFAULT 1;",
    /* 4: a game's time control (0 0 0: none); the clocks are in its events. */
    "ALTER TABLE games ADD COLUMN per_move_ms INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE games ADD COLUMN base_ms INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE games ADD COLUMN increment_ms INTEGER NOT NULL DEFAULT 0;",
    /* 5: accounts (issue 15). A name means one person: its key (case
     * folded) and its skeleton (what it looks like) are each unique, so a
     * look-alike is one indexed lookup away. Sessions keep a hash, never the
     * token. Statistics and results belong to an account; the rows written
     * before, keyed by a bare name, stay unclaimed (account_id NULL) until
     * someone registers that exact name, once. Guests' rows stay unclaimed
     * too and are never ranked. The columns added to older tables are plain
     * integers (accounts are never deleted), so an older file needs no
     * rebuild of its tables. */
    "CREATE TABLE accounts ("
    "  id          INTEGER PRIMARY KEY,"
    "  name        TEXT NOT NULL,"
    "  name_key    TEXT NOT NULL UNIQUE,"
    "  skeleton    TEXT NOT NULL UNIQUE,"
    "  pwhash      TEXT NOT NULL,"
    "  created_ms  INTEGER NOT NULL,"
    "  password_ms INTEGER NOT NULL);"
    "CREATE TABLE sessions ("
    "  id         BLOB PRIMARY KEY NOT NULL,"
    "  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
    "  hash       BLOB NOT NULL,"
    "  created_ms INTEGER NOT NULL,"
    "  expires_ms INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE INDEX sessions_by_account ON sessions(account_id);"
    "CREATE INDEX sessions_by_expiry ON sessions(expires_ms);"
    "ALTER TABLE players ADD COLUMN account_id INTEGER;"
    "CREATE UNIQUE INDEX players_by_account ON players(account_id)"
    "  WHERE account_id IS NOT NULL;"
    "CREATE INDEX players_ranked ON players(wins DESC, best_streak DESC, name)"
    "  WHERE account_id IS NOT NULL;"
    "ALTER TABLE results ADD COLUMN account_id INTEGER;"
    "ALTER TABLE participants ADD COLUMN account_id INTEGER NOT NULL DEFAULT 0;",
    /* 6: ratings (issue 16). A rated game keeps the accounts of its seats
     * from its start (rated_seats), so a player who quits is still rated for
     * it. One Glicko-2 rating per account and kind; a row of history per
     * rated game, newest last. */
    "ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE rated_seats ("
    "  game_id    TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
    "  seat       INTEGER NOT NULL,"
    "  account_id INTEGER NOT NULL,"
    "  PRIMARY KEY (game_id, seat)) WITHOUT ROWID;"
    "CREATE TABLE ratings ("
    "  account_id INTEGER NOT NULL,"
    "  kind       TEXT NOT NULL,"
    "  rating     REAL NOT NULL,"
    "  rd         REAL NOT NULL,"
    "  volatility REAL NOT NULL,"
    "  games      INTEGER NOT NULL,"
    "  updated_ms INTEGER NOT NULL,"
    "  PRIMARY KEY (account_id, kind)) WITHOUT ROWID;"
    "CREATE INDEX ratings_by_kind ON ratings(kind, rating DESC);"
    "CREATE TABLE rating_history ("
    "  account_id    INTEGER NOT NULL,"
    "  kind          TEXT NOT NULL,"
    "  ended_ms      INTEGER NOT NULL,"
    "  game_id       TEXT NOT NULL,"
    "  rating_before REAL NOT NULL,"
    "  rating        REAL NOT NULL,"
    "  rd            REAL NOT NULL,"
    "  volatility    REAL NOT NULL,"
    "  PRIMARY KEY (account_id, kind, ended_ms, game_id)) WITHOUT ROWID;",
    /* 7: a bot takes the seat of a player who does not come back (issue 16),
     * at the game's bot level. */
    "ALTER TABLE games ADD COLUMN bot_takes_over INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE games ADD COLUMN bot_level INTEGER NOT NULL DEFAULT 0;",
};
#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

/* ------------------------------------------------------------------------
 * Statements, prepared on first use and kept.
 * ------------------------------------------------------------------------ */

enum stmt_id {
    ST_BEGIN, ST_COMMIT, ST_ROLLBACK,
    ST_SAVEPOINT, ST_RELEASE, ST_ROLLBACK_TO,
    ST_GAME_INSERT, ST_OPTION_INSERT, ST_GAME_STATUS,
    ST_PART_PUT, ST_PART_DELETE, ST_PART_BOT,
    ST_EVENT_INSERT, ST_MOVE_INSERT,
    ST_GAME_STATE, ST_GAME_END, ST_RESULT_INSERT, ST_STATS_ADD, ST_PARTS_CLEAR,
    ST_STATS_GET, ST_LEADERBOARD,
    ST_MATCHES, ST_GAME_GET, ST_OPTIONS_GET, ST_RESULTS_GET, ST_MOVES_GET,
    ST_RECOVER_GAMES, ST_RECOVER_PARTS, ST_RECOVER_EVENTS, ST_MAX_ID,
    ST_PART_ACCOUNT,
    ST_ACCOUNT_INSERT, ST_ACCOUNT_CLAIM_STATS, ST_ACCOUNT_CLAIM_RESULTS,
    ST_ACCOUNT_BY_KEY, ST_ACCOUNT_BY_SKELETON, ST_ACCOUNT_BY_ID, ST_ACCOUNT_PASSWORD,
    ST_SESSION_INSERT, ST_SESSION_GET, ST_SESSION_DELETE, ST_SESSIONS_DELETE_ACCOUNT,
    ST_SESSIONS_EXPIRE, ST_ACCOUNT_COUNT,
    ST_RATED_SEAT_PUT, ST_RATED_SEATS_GET, ST_RATING_GET, ST_RATING_PUT, ST_RATING_HISTORY_ADD,
    ST_RATING_HISTORY, ST_RATINGS_OF, ST_RATING_LEADERBOARD,
    ST_COUNT
};

/* The columns read_game() expects, in order; the last is the move count. */
#define GAME_COLUMNS \
    "id, kind, title, autostart, seats, status, created_ms, started_ms, ended_ms, reason, " \
    "(SELECT count(*) FROM moves m WHERE m.game_id = g.id), per_move_ms, base_ms, increment_ms, " \
    "rated, bot_takes_over, bot_level"

static const char *const stmt_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_SAVEPOINT] = "SAVEPOINT store_op",
    [ST_RELEASE] = "RELEASE store_op",
    [ST_ROLLBACK_TO] = "ROLLBACK TO store_op",
    [ST_GAME_INSERT] =
        "INSERT INTO games (id, kind, title, autostart, seats, status, created_ms,"
        " started_ms, ended_ms, reason, per_move_ms, base_ms, increment_ms, rated,"
        " bot_takes_over, bot_level)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    [ST_OPTION_INSERT] =
        "INSERT INTO game_options (game_id, pos, name, value) VALUES (?1, ?2, ?3, ?4)",
    [ST_GAME_STATUS] =
        "UPDATE games SET status = ?2,"
        " started_ms = CASE WHEN ?2 = 2 THEN ?3 ELSE started_ms END"
        " WHERE id = ?1 AND status < 3",
    [ST_PART_PUT] =
        "INSERT INTO participants (game_id, person_id, name, seat, token, ready)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
        " ON CONFLICT (game_id, person_id) DO UPDATE SET name = excluded.name,"
        " seat = excluded.seat, token = excluded.token, ready = excluded.ready",
    [ST_PART_DELETE] = "DELETE FROM participants WHERE game_id = ?1 AND person_id = ?2",
    [ST_PART_BOT] =
        "UPDATE participants SET bot_level = ?3 WHERE game_id = ?1 AND person_id = ?2",
    [ST_EVENT_INSERT] =
        "INSERT INTO events (game_id, seq, time_ms, only_for_a, only_for_b, data, format)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [ST_MOVE_INSERT] =
        "INSERT INTO moves (game_id, ply, seat, move, time_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_GAME_STATE] = "SELECT status, seats FROM games WHERE id = ?1",
    [ST_GAME_END] = "UPDATE games SET status = ?2, reason = ?3, ended_ms = ?4 WHERE id = ?1",
    [ST_RESULT_INSERT] =
        "INSERT INTO results (game_id, seat, name, score, winner, account_id)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    /* ?2: 1 win, 2 loss, 3 draw. In DO UPDATE the bare column names are the
     * row's values before the update, so both SETs see the old streak. */
    [ST_STATS_ADD] =
        "INSERT INTO players (name, played, wins, losses, draws, streak, best_streak,"
        " account_id) VALUES (?1, 1, ?2 = 1, ?2 = 2, ?2 = 3, ?2 = 1, ?2 = 1, ?3)"
        " ON CONFLICT (name) DO UPDATE SET played = played + 1,"
        " wins = wins + excluded.wins, losses = losses + excluded.losses,"
        " draws = draws + excluded.draws,"
        " streak = CASE ?2 WHEN 1 THEN streak + 1 WHEN 2 THEN 0 ELSE streak END,"
        " best_streak = max(best_streak, CASE ?2 WHEN 1 THEN streak + 1 ELSE 0 END)"
        /* a guest's result never counts for an account, nor the reverse */
        " WHERE players.account_id IS ?3",
    [ST_PARTS_CLEAR] = "DELETE FROM participants WHERE game_id = ?1",
    [ST_STATS_GET] =
        "SELECT name, played, wins, losses, draws, streak, best_streak, account_id"
        " FROM players WHERE name = ?1",
    /* accounts only: guests and unclaimed names are not ranked */
    [ST_LEADERBOARD] =
        "SELECT name, played, wins, losses, draws, streak, best_streak, account_id"
        " FROM players WHERE account_id IS NOT NULL"
        " ORDER BY wins DESC, best_streak DESC, name LIMIT ?1",
    [ST_MATCHES] =
        "SELECT " GAME_COLUMNS " FROM games g WHERE status >= 3"
        " AND (?1 IS NULL OR kind = ?1)"
        " AND (?2 IS NULL OR EXISTS (SELECT 1 FROM results r"
        "                            WHERE r.game_id = g.id AND r.name = ?2))"
        " ORDER BY ended_ms DESC, g.rowid DESC LIMIT ?3",
    [ST_GAME_GET] = "SELECT " GAME_COLUMNS " FROM games g WHERE id = ?1",
    [ST_OPTIONS_GET] = "SELECT name, value FROM game_options WHERE game_id = ?1 ORDER BY pos",
    [ST_RESULTS_GET] =
        "SELECT seat, name, score, winner FROM results WHERE game_id = ?1 ORDER BY seat",
    [ST_MOVES_GET] =
        "SELECT ply, seat, move, time_ms FROM moves WHERE game_id = ?1 ORDER BY ply",
    [ST_RECOVER_GAMES] =
        "SELECT " GAME_COLUMNS " FROM games g WHERE status IN (1, 2)"
        " OR EXISTS (SELECT 1 FROM participants p WHERE p.game_id = g.id) ORDER BY g.rowid",
    [ST_RECOVER_PARTS] =
        "SELECT person_id, name, seat, token, ready, bot_level, account_id FROM participants"
        " WHERE game_id = ?1 ORDER BY person_id",
    [ST_RECOVER_EVENTS] =
        "SELECT seq, time_ms, only_for_a, only_for_b, data, format FROM events"
        " WHERE game_id = ?1 ORDER BY seq",
    /* decimal ids only: at most 10 digits, so the cast cannot overflow */
    [ST_MAX_ID] =
        "SELECT max(CAST(id AS INTEGER)) FROM games"
        " WHERE id <> '' AND id NOT GLOB '*[^0-9]*' AND length(id) <= 10",
    [ST_PART_ACCOUNT] =
        "UPDATE participants SET account_id = ?3 WHERE game_id = ?1 AND person_id = ?2",
    [ST_ACCOUNT_INSERT] =
        "INSERT INTO accounts (name, name_key, skeleton, pwhash, created_ms, password_ms)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
    [ST_ACCOUNT_CLAIM_STATS] =
        "UPDATE players SET account_id = ?1 WHERE name = ?2 AND account_id IS NULL",
    [ST_ACCOUNT_CLAIM_RESULTS] =
        "UPDATE results SET account_id = ?1 WHERE name = ?2 AND account_id IS NULL",
    [ST_ACCOUNT_BY_KEY] =
        "SELECT id, name, name_key, skeleton, pwhash, created_ms FROM accounts"
        " WHERE name_key = ?1",
    [ST_ACCOUNT_BY_SKELETON] =
        "SELECT id, name, name_key, skeleton, pwhash, created_ms FROM accounts"
        " WHERE skeleton = ?1",
    [ST_ACCOUNT_BY_ID] =
        "SELECT id, name, name_key, skeleton, pwhash, created_ms FROM accounts WHERE id = ?1",
    [ST_ACCOUNT_PASSWORD] = "UPDATE accounts SET pwhash = ?2, password_ms = ?3 WHERE id = ?1",
    [ST_SESSION_INSERT] =
        "INSERT INTO sessions (id, account_id, hash, created_ms, expires_ms)"
        " VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_SESSION_GET] =
        "SELECT account_id, hash, created_ms, expires_ms FROM sessions WHERE id = ?1",
    [ST_SESSION_DELETE] = "DELETE FROM sessions WHERE id = ?1",
    [ST_SESSIONS_DELETE_ACCOUNT] =
        "DELETE FROM sessions WHERE account_id = ?1 AND (?2 IS NULL OR id <> ?2)",
    [ST_SESSIONS_EXPIRE] = "DELETE FROM sessions WHERE expires_ms <= ?1",
    [ST_ACCOUNT_COUNT] = "SELECT count(*) FROM accounts",
    [ST_RATED_SEAT_PUT] =
        "INSERT OR REPLACE INTO rated_seats (game_id, seat, account_id) VALUES (?1, ?2, ?3)",
    [ST_RATED_SEATS_GET] = "SELECT seat, account_id FROM rated_seats WHERE game_id = ?1",
    [ST_RATING_GET] =
        "SELECT rating, rd, volatility, games, updated_ms FROM ratings"
        " WHERE account_id = ?1 AND kind = ?2",
    [ST_RATING_PUT] =
        "INSERT OR REPLACE INTO ratings (account_id, kind, rating, rd, volatility, games,"
        " updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [ST_RATING_HISTORY_ADD] =
        "INSERT INTO rating_history (account_id, kind, ended_ms, game_id, rating_before,"
        " rating, rd, volatility) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    /* the newest ?3, returned oldest first */
    [ST_RATING_HISTORY] =
        "SELECT kind, ended_ms, game_id, rating_before, rating, rd, volatility FROM"
        " (SELECT * FROM rating_history WHERE account_id = ?1 AND (?2 IS NULL OR kind = ?2)"
        "  ORDER BY ended_ms DESC, game_id DESC LIMIT ?3)"
        " ORDER BY ended_ms, game_id",
    [ST_RATINGS_OF] =
        "SELECT kind, rating, rd, volatility, games, updated_ms FROM ratings"
        " WHERE account_id = ?1 ORDER BY kind",
    /* settled ratings first, then the provisional ones (?3: the bound) */
    [ST_RATING_LEADERBOARD] =
        "SELECT a.name, r.account_id, r.rating, r.rd, r.volatility, r.games, r.updated_ms"
        " FROM ratings r JOIN accounts a ON a.id = r.account_id WHERE r.kind = ?1"
        " ORDER BY r.rd > ?3, r.rating DESC, a.name LIMIT ?2",
};

struct store {
    sqlite3 *db;
    sqlite3_stmt *stmt[ST_COUNT];
    int lock_fd;               /* holds the flock() on the file; -1: none (":memory:") */
    dev_t dev;                 /* the locked file, while in open_files */
    ino_t ino;
    store *next_open;
    bool err_whole;            /* opening: err is the whole sentence, not a reason */
    store_checkpointer *ckpt;  /* a file store's checkpoints; NULL: SQLite's own */
    int kicked_at;             /* WAL frames when the checkpointer was last woken */
    char err[1024];
};

/* ------------------------------------------------------------------------
 * Errors and statement helpers
 * ------------------------------------------------------------------------ */

static int failf(store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int failf(store *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* "what: the database's message" */
static int fail_db(store *s, const char *what)
{
    return failf(s, "%s: %s", what, sqlite3_errmsg(s->db));
}

const char *store_last_error(const store *s)
{
    return s ? s->err : "no store";
}

/* The cached statement id, prepared on first use; NULL (and the error set)
 * if it does not prepare. */
static sqlite3_stmt *stmt(store *s, enum stmt_id id)
{
    if (!s->stmt[id] &&
        sqlite3_prepare_v3(s->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
                           &s->stmt[id], NULL) != SQLITE_OK) {
        fail_db(s, "cannot prepare a statement");
        s->stmt[id] = NULL;
    }
    return s->stmt[id];
}

/* Make a statement ready for its next use and let go of its read lock. */
static void finish(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* Step a statement that returns no rows, then reset it. */
static int run(store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    int res = rc == SQLITE_DONE ? 0 : fail_db(s, what);
    finish(st);
    return res;
}

/* As run, naming what failed only when it did (printf-style): the hot
 * writes then pay no formatting. */
static int run_f(store *s, sqlite3_stmt *st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int run_f(store *s, sqlite3_stmt *st, const char *fmt, ...)
{
    if (sqlite3_step(st) == SQLITE_DONE) {
        finish(st);
        return 0;
    }
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fail_db(s, what);
    finish(st);
    return -1;
}

/* Run a statement that takes no parameters. */
static int run_id(store *s, enum stmt_id id, const char *what)
{
    sqlite3_stmt *st = stmt(s, id);
    return st ? run(s, st, what) : -1;
}

static void col_text(sqlite3_stmt *st, int col, char *out, size_t size)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(out, size, "%s", t ? (const char *)t : "");
}

/* A string argument: present, shorter than `bytes` with its NUL, and (unless
 * empty_ok) not empty. */
static int check_str(store *s, const char *v, size_t bytes, const char *what, bool empty_ok)
{
    if (!v)
        return failf(s, "the %s is missing", what);
    if (strnlen(v, bytes) >= bytes)
        return failf(s, "the %s is longer than %zu bytes", what, bytes - 1);
    if (!empty_ok && !v[0])
        return failf(s, "the %s is empty", what);
    return 0;
}

/* A group of writes as one unit that nests inside the caller's transaction:
 * outside one, the savepoint is the transaction and its release commits. */
static int op_begin(store *s)
{
    return run_id(s, ST_SAVEPOINT, "cannot start a write");
}

static int op_end(store *s, int res)
{
    if (res == 0 && run_id(s, ST_RELEASE, "cannot commit") == 0)
        return 0;
    /* Undo everything since the savepoint (a failed release included), and
     * keep the first error's sentence: the undo's own failure matters less. */
    char keep[sizeof s->err];
    memcpy(keep, s->err, sizeof keep);
    run_id(s, ST_ROLLBACK_TO, "cannot undo a failed write");
    run_id(s, ST_RELEASE, "cannot undo a failed write");
    memcpy(s->err, keep, sizeof keep);
    return -1;
}

int store_group_begin(store *s)
{
    return op_begin(s);
}

int store_group_end(store *s, int res)
{
    return op_end(s, res);
}

/* ------------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------------ */

static int exec_sql(store *s, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        failf(s, "%s: %s", what, msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* One integer from a query without parameters (a pragma, a count). */
static int query_int(store *s, const char *sql, int *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return fail_db(s, "cannot read the database");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int(st, 0);
    else
        fail_db(s, "cannot read the database");
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

/* Bring the schema to SCHEMA_VERSION, inside the caller's write transaction. */
static int migrate(store *s)
{
    int version, app_id, n_objects;
    if (query_int(s, "PRAGMA user_version", &version) < 0 ||
        query_int(s, "PRAGMA application_id", &app_id) < 0 ||
        query_int(s, "SELECT count(*) FROM sqlite_schema", &n_objects) < 0)
        return -1;
    if ((app_id != 0 && app_id != STORE_APPLICATION_ID) ||
        (app_id == 0 && n_objects > 0))
        return failf(s, "it is a database of another program, not Sungka's");
    if (version > SCHEMA_VERSION)
        return failf(s, "it was written by a newer Sungka (schema version %d; this "
                        "program knows up to %d)", version, SCHEMA_VERSION);
    for (int v = version + 1; v <= SCHEMA_VERSION; v++) {
        char what[64], set[64];
        snprintf(what, sizeof what, "cannot build schema version %d", v);
        snprintf(set, sizeof set, "PRAGMA user_version = %d", v);
        if (exec_sql(s, migrations[v - 1], what) < 0 || exec_sql(s, set, what) < 0)
            return -1;
    }
    if (app_id == 0) {
        char set[64];
        snprintf(set, sizeof set, "PRAGMA application_id = %d", STORE_APPLICATION_ID);
        if (exec_sql(s, set, "cannot mark the database") < 0)
            return -1;
    }
    return 0;
}

/* Create a missing database file with mode 0600 (it holds seat tokens);
 * SQLite gives its -wal and -shm files the same mode. */
static int create_private(const char *path, char *why, size_t whylen)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

/* Two services on one file would both recover the same games and write
 * them: the first to open the file holds an exclusive flock() on it until
 * store_close, and the others are refused. On the database file itself
 * rather than a PATH.lock beside it, so that the lock goes with the file
 * whatever path names it (a symlink, another spelling of the directory)
 * and no stray file is left. It does not meet SQLite's own locks, which
 * are fcntl() byte ranges (independent of flock() on Linux), so the
 * sqlite3 program and other readers still work. But closing any
 * descriptor of a file drops all of the process's fcntl() locks on it,
 * SQLite's too: so the descriptor is closed only after sqlite3_close, and
 * a file this process already has open is refused before a descriptor is
 * opened (open_files). O_CLOEXEC keeps the lock out of the service's bots. */
static pthread_mutex_t open_files_lock = PTHREAD_MUTEX_INITIALIZER;
static store *open_files;      /* the stores holding a lock, by next_open */

static int lock_file(store *s, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return failf(s, "%s", strerror(errno));
    pthread_mutex_lock(&open_files_lock);
    bool ours = false;
    for (const store *o = open_files; o && !ours; o = o->next_open)
        ours = o->dev == sb.st_dev && o->ino == sb.st_ino;
    int e = EWOULDBLOCK;
    if (!ours) {
        s->lock_fd = open(path, O_RDONLY | O_CLOEXEC);
        e = s->lock_fd < 0 ? errno : flock(s->lock_fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
    }
    if (e == 0) {
        s->dev = sb.st_dev;
        s->ino = sb.st_ino;
        s->next_open = open_files;
        open_files = s;
    }
    pthread_mutex_unlock(&open_files_lock);
    if (e == 0)
        return 0;
    if (e == EWOULDBLOCK) {
        s->err_whole = true;
        return failf(s, "the database %s is in use by another sungka-board", path);
    }
    return failf(s, "cannot lock it: %s", strerror(e));
}

/* Let go of the lock, after SQLite has closed the file. */
static void unlock_file(store *s)
{
    if (s->lock_fd < 0)
        return;
    pthread_mutex_lock(&open_files_lock);
    for (store **o = &open_files; *o; o = &(*o)->next_open) {
        if (*o == s) {
            *o = s->next_open;
            break;
        }
    }
    pthread_mutex_unlock(&open_files_lock);
    close(s->lock_fd);
    s->lock_fd = -1;
}

/* The sentence for a damaged file: what is wrong, and what to do about it
 * (README.md, "If the database is damaged"). */
static int fail_damaged(store *s, const char *path, const char *problem)
{
    s->err_whole = true;
    return failf(s, "the database %s is damaged (%s); see what is wrong with 'sungka-board "
                    "--db %s --check', save what can be saved with 'sqlite3 %s .recover | "
                    "sqlite3 %s.recovered' and start with --db %s.recovered",
                 path, problem, path, path, path, path);
}

/* Run an integrity pragma and hand each problem it reports to problem():
 * one per line of its rows, less "ok" and the "*** in database main ***"
 * heading. 0: sound; 1: damaged (a file that cannot even be read as a
 * database is damaged too, its error the one problem); -1: another
 * failure, in s->err. */
static int run_check(store *s, const char *pragma,
                     void (*problem)(void *user, const char *text), void *user)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, pragma, -1, &st, NULL);
    int damaged = 0;
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        if ((rc = sqlite3_step(st)) != SQLITE_ROW)
            break;
        const char *text = (const char *)sqlite3_column_text(st, 0);
        for (const char *line = text; line && *line;) {
            size_t n = strcspn(line, "\n");
            char one[512];
            snprintf(one, sizeof one, "%.*s", (int)n, line);
            if (strcmp(one, "ok") != 0 && strncmp(one, "*** in database", 15) != 0) {
                damaged = 1;
                problem(user, one);
            }
            line += n + (line[n] == '\n');
        }
    }
    int code = rc & 0xff;
    if (rc != SQLITE_DONE && (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)) {
        damaged = 1;
        problem(user, sqlite3_errmsg(s->db));
    } else if (rc != SQLITE_DONE) {
        fail_db(s, "cannot check the database");
        damaged = -1;
    }
    sqlite3_finalize(st);
    return damaged;
}

static void first_problem(void *user, const char *text)
{
    char *first = user;
    if (!first[0])
        snprintf(first, 256, "%s", text);
}

static int configure(store *s, const char *path)
{
    int rc = sqlite3_open_v2(path, &s->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        int sys = s->db ? sqlite3_system_errno(s->db) : 0;
        if ((rc & 0xff) == SQLITE_CANTOPEN && sys)
            return failf(s, "%s", strerror(sys));
        return failf(s, "%s", s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
    }
    sqlite3_extended_result_codes(s->db, 1);
    /* Another process holding the write lock (a second service on the same
     * file, a backup) is waited for this long, then the write fails. */
    sqlite3_busy_timeout(s->db, 1000);

    /* A new file gets 1 KiB pages: a move dirties three or four b-tree
     * pages and a commit writes each whole to the WAL, so small pages cut a
     * commit's writes (~40 -> ~30 us a move, tests/store/bench_store). An
     * existing file keeps its size; a file that is no database fails next. */
    sqlite3_exec(s->db, "PRAGMA page_size = 1024", NULL, NULL, NULL);

    /* The first statement reads the file: a file that is not a database
     * fails here ("file is not a database"). */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL) != SQLITE_OK)
        return failf(s, "%s", sqlite3_errmsg(s->db));
    rc = sqlite3_step(st);
    char mode[16] = "";
    if (rc == SQLITE_ROW)
        col_text(st, 0, mode, sizeof mode);
    else
        failf(s, "%s", sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return -1;
    if (strcmp(mode, "wal") != 0 && strcmp(mode, "memory") != 0)
        return failf(s, "cannot use write-ahead logging (journal mode is %s)", mode);

    if (exec_sql(s, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON",
                 "cannot configure the database") < 0)
        return -1;
    /* A damaged file is refused here rather than used until a read or a
     * write meets the damage (and the games on it with it). quick_check
     * reads every page once, so opening costs time in proportion to the
     * file; the index cross-checks of integrity_check (--check) are left
     * for when someone asks. */
    char problem[256] = "";
    int damaged = strcmp(path, ":memory:") == 0
                      ? 0 : run_check(s, "PRAGMA quick_check", first_problem, problem);
    if (damaged != 0)
        return damaged < 0 ? -1 : fail_damaged(s, path, problem);
    /* Take the write lock once: an unwritable file or directory shows here,
     * at startup, rather than on the first move. */
    if (exec_sql(s, "BEGIN IMMEDIATE", "cannot write") < 0)
        return -1;
    if (migrate(s) < 0 || exec_sql(s, "COMMIT", "cannot write") < 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

/* Checkpoints: every CHECKPOINT_FRAMES pages the WAL grows (SQLite's
 * default threshold) wake the checkpointer thread, which copies them back
 * while the loop goes on. The WAL starts over only when a write begins with
 * all of it copied, which a writer that never pauses does not allow: so at
 * CHECKPOINT_FORCE frames the commit checkpoints here, as SQLite would at
 * 1,000, copying only what the thread has not and letting the WAL restart
 * (eight times rarer than SQLite's own, and mostly copied already). */
#define CHECKPOINT_FRAMES 1000
#define CHECKPOINT_FORCE  (8 * CHECKPOINT_FRAMES)

static int on_wal_commit(void *arg, sqlite3 *db, const char *name, int frames)
{
    store *s = arg;
    if (frames < s->kicked_at)
        s->kicked_at = 0;                 /* the WAL started over */
    if (frames >= CHECKPOINT_FORCE) {
        sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        s->kicked_at = 0;
    } else if (frames >= s->kicked_at + CHECKPOINT_FRAMES) {
        s->kicked_at = frames;
        checkpointer_kick(s->ckpt);
    }
    return SQLITE_OK;
}

/* Without its thread the store keeps SQLite's own checkpoints in the commit. */
static void start_checkpoints(store *s, const char *path)
{
    char why[256];
    s->ckpt = checkpointer_start(path, why, sizeof why);
    if (s->ckpt)
        sqlite3_wal_hook(s->db, on_wal_commit, s);   /* replaces the autocheckpoint */
}

unsigned long store__checkpoints(store *s)
{
    return s->ckpt ? checkpointer_count(s->ckpt) : 0;
}

int store_open(const char *path, store **out, char *err, size_t errlen)
{
    if (out)
        *out = NULL;
    if (!out || !path || !path[0]) {
        if (errlen)
            snprintf(err, errlen, "cannot open the database: %s",
                     !out ? "no place for the store" : "the path is empty");
        return -1;
    }
    store *s = calloc(1, sizeof *s);
    if (!s) {
        if (errlen)
            snprintf(err, errlen, "cannot open the database %s: out of memory", path);
        return -1;
    }
    s->lock_fd = -1;
    bool file = strcmp(path, ":memory:") != 0;
    if (file && access(path, F_OK) != 0 && create_private(path, s->err, sizeof s->err) < 0)
        goto fail;
    if (file && lock_file(s, path) < 0)
        goto fail;
    if (configure(s, path) < 0)
        goto fail;
    if (file)
        start_checkpoints(s, path);
    *out = s;
    return 0;

fail:
    if (errlen && s->err_whole)
        snprintf(err, errlen, "%s", s->err);
    else if (errlen)
        snprintf(err, errlen, "cannot open the database %s: %s", path, s->err);
    sqlite3_close(s->db);
    unlock_file(s);
    free(s);
    return -1;
}

void store_close(store *s)
{
    if (!s)
        return;
    if (s->db && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->stmt[i]);
    checkpointer_stop(s->ckpt);   /* first: the last connection closed checkpoints */
    sqlite3_close(s->db);
    unlock_file(s);
    free(s);
}

int store_check(const char *path, void (*problem)(void *user, const char *text), void *user,
                char *err, size_t errlen)
{
    store s = {.lock_fd = -1};
    /* Read-only, and no lock: nothing is created or migrated, and the
     * database of a running service can be checked. */
    int rc = sqlite3_open_v2(path, &s.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    int res = -1;
    if (rc != SQLITE_OK) {
        int sys = s.db ? sqlite3_system_errno(s.db) : 0;
        snprintf(err, errlen, "cannot open the database %s: %s", path,
                 (rc & 0xff) == SQLITE_CANTOPEN && sys ? strerror(sys)
                 : s.db ? sqlite3_errmsg(s.db) : sqlite3_errstr(rc));
    } else if ((res = run_check(&s, "PRAGMA integrity_check", problem, user)) < 0) {
        snprintf(err, errlen, "cannot check the database %s: %s", path, s.err);
    }
    sqlite3_close(s.db);
    return res;
}

int store_default_path(char *out, size_t len)
{
    if (!out || len == 0) {
        errno = EINVAL;
        return -1;
    }
    out[0] = '\0';
    return xdg_default_db(true, out, len);
}

/* ------------------------------------------------------------------------
 * Games and participants
 * ------------------------------------------------------------------------ */

static int check_game(store *s, const store_game_info *g)
{
    if (!g)
        return failf(s, "the game is missing");
    if (check_str(s, g->id, sizeof g->id, "game id", false) < 0 ||
        check_str(s, g->kind, sizeof g->kind, "game kind", false) < 0 ||
        check_str(s, g->title, sizeof g->title, "game title", true) < 0 ||
        check_str(s, g->reason, sizeof g->reason, "end reason", true) < 0)
        return -1;
    if (g->n_options < 0 || g->n_options > STORE_MAX_OPTIONS)
        return failf(s, "game %s has %d options; at most %d are kept", g->id, g->n_options,
                     STORE_MAX_OPTIONS);
    for (int i = 0; i < g->n_options; i++)
        if (check_str(s, g->options[i].name, sizeof g->options[i].name, "option name",
                      false) < 0)
            return -1;
    if (g->seats < 1 || g->seats > STORE_MAX_SEATS)
        return failf(s, "game %s has %d seats; 1 to %d are possible", g->id, g->seats,
                     STORE_MAX_SEATS);
    if (g->status < STORE_WAITING || g->status > STORE_ABANDONED)
        return failf(s, "game %s has an unknown status %d", g->id, g->status);
    return 0;
}

static int insert_game(store *s, const store_game_info *g)
{
    sqlite3_stmt *st = stmt(s, ST_GAME_INSERT);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, g->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, g->kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, g->title, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, g->autostart);
    sqlite3_bind_int(st, 5, g->seats);
    sqlite3_bind_int(st, 6, g->status);
    sqlite3_bind_int64(st, 7, g->created_ms);
    sqlite3_bind_int64(st, 8, g->started_ms);
    sqlite3_bind_int64(st, 9, g->ended_ms);
    sqlite3_bind_text(st, 10, g->reason, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 11, g->per_move_ms);
    sqlite3_bind_int(st, 12, g->base_ms);
    sqlite3_bind_int(st, 13, g->increment_ms);
    sqlite3_bind_int(st, 14, g->rated);
    sqlite3_bind_int(st, 15, g->bot_takes_over);
    sqlite3_bind_int(st, 16, g->bot_level);
    char what[64];
    snprintf(what, sizeof what, "cannot store game %s", g->id);
    if (run(s, st, what) < 0)
        return -1;
    for (int i = 0; i < g->n_options; i++) {
        if (!(st = stmt(s, ST_OPTION_INSERT)))
            return -1;
        sqlite3_bind_text(st, 1, g->id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, i);
        sqlite3_bind_text(st, 3, g->options[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, g->options[i].value);
        if (run(s, st, what) < 0)
            return -1;
    }
    return 0;
}

int store_game_create(store *s, const store_game_info *g)
{
    if (check_game(s, g) < 0 || op_begin(s) < 0)
        return -1;
    return op_end(s, insert_game(s, g));
}

int store_game_status(store *s, const char *id, int status, int64_t when_ms)
{
    if (check_str(s, id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (status != STORE_WAITING && status != STORE_RUNNING)
        return failf(s, "status %d cannot be set on game %s (end a game with "
                        "store_game_finish)", status, id);
    sqlite3_stmt *st = stmt(s, ST_GAME_STATUS);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, status);
    sqlite3_bind_int64(st, 3, when_ms);
    char what[64];
    snprintf(what, sizeof what, "cannot set the status of game %s", id);
    if (run(s, st, what) < 0)
        return -1;
    if (sqlite3_changes(s->db) == 0)
        return failf(s, "%s: no such game, or it has ended", what);
    return 0;
}

int store_participant_put(store *s, const char *game_id, unsigned person_id,
                          const char *name, int seat, const char *token, bool ready)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0 ||
        check_str(s, name, STORE_NAME_BYTES, "participant name", false) < 0 ||
        check_str(s, token, STORE_TOKEN_BYTES, "seat token", true) < 0)
        return -1;
    if (seat < -1 || seat >= STORE_MAX_SEATS)
        return failf(s, "seat %d is out of range", seat);
    sqlite3_stmt *st = stmt(s, ST_PART_PUT);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, game_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, person_id);
    sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, seat);
    sqlite3_bind_text(st, 5, token, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 6, ready);
    return run_f(s, st, "cannot store participant %u of game %s", person_id, game_id);
}

int store_participant_remove(store *s, const char *game_id, unsigned person_id)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    sqlite3_stmt *st = stmt(s, ST_PART_DELETE);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, game_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, person_id);
    return run_f(s, st, "cannot remove participant %u of game %s", person_id, game_id);
}

int store_participant_bot(store *s, const char *game_id, unsigned person_id, int level)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (level < 0 || level > 10)
        return failf(s, "a bot's level is 1..10 (0: a person), not %d", level);
    sqlite3_stmt *st = stmt(s, ST_PART_BOT);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, game_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, person_id);
    sqlite3_bind_int(st, 3, level);
    if (run_f(s, st, "cannot mark participant %u of game %s", person_id, game_id) < 0)
        return -1;
    if (sqlite3_changes(s->db) == 0)
        return failf(s, "game %s has no participant %u", game_id, person_id);
    return 0;
}

/* ------------------------------------------------------------------------
 * Events, moves, transactions
 * ------------------------------------------------------------------------ */

int store_event_append(store *s, const char *game_id, uint64_t seq, int64_t time_ms,
                       unsigned only_for_a, unsigned only_for_b, unsigned format,
                       const void *data, size_t len)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (seq > INT64_MAX)
        return failf(s, "event sequence number %llu is too large",
                     (unsigned long long)seq);
    if (format < STORE_EVENT_FORMAT_FIRST || format > (unsigned)INT_MAX)
        return failf(s, "event %llu of game %s has no format number",
                     (unsigned long long)seq, game_id);
    if ((!data && len) || len > INT_MAX)
        return failf(s, "event %llu of game %s has no data or too much (%zu bytes)",
                     (unsigned long long)seq, game_id, len);
    sqlite3_stmt *st = stmt(s, ST_EVENT_INSERT);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, game_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (int64_t)seq);
    sqlite3_bind_int64(st, 3, time_ms);
    sqlite3_bind_int64(st, 4, only_for_a);
    sqlite3_bind_int64(st, 5, only_for_b);
    sqlite3_bind_int64(st, 7, format);
    /* A NULL pointer would bind SQL NULL; an empty event is an empty blob. */
    if (len)
        sqlite3_bind_blob(st, 6, data, (int)len, SQLITE_STATIC);
    else
        sqlite3_bind_zeroblob(st, 6, 0);
    return run_f(s, st, "cannot store event %llu of game %s", (unsigned long long)seq,
                 game_id);
}

int store_move_append(store *s, const char *game_id, int ply, int seat, int move,
                      int64_t time_ms)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (ply < 0 || seat < 0 || seat >= STORE_MAX_SEATS)
        return failf(s, "move %d of game %s by seat %d is out of range", ply, game_id, seat);
    sqlite3_stmt *st = stmt(s, ST_MOVE_INSERT);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, game_id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, ply);
    sqlite3_bind_int(st, 3, seat);
    sqlite3_bind_int(st, 4, move);
    sqlite3_bind_int64(st, 5, time_ms);
    return run_f(s, st, "cannot store move %d of game %s", ply, game_id);
}

int store_begin(store *s)
{
    if (!sqlite3_get_autocommit(s->db))
        return failf(s, "cannot begin a transaction: one is already open");
    return run_id(s, ST_BEGIN, "cannot begin a transaction");
}

int store_commit(store *s)
{
    if (sqlite3_get_autocommit(s->db))
        return failf(s, "cannot commit: no transaction is open");
    if (run_id(s, ST_COMMIT, "cannot commit") == 0)
        return 0;
    /* A failed COMMIT may leave the transaction open (busy): end it, so the
     * promise "nothing of it is stored" holds and the next begin works. */
    if (!sqlite3_get_autocommit(s->db)) {
        char keep[sizeof s->err];
        memcpy(keep, s->err, sizeof keep);
        run_id(s, ST_ROLLBACK, "cannot roll back");
        memcpy(s->err, keep, sizeof keep);
    }
    return -1;
}

int store_rollback(store *s)
{
    if (sqlite3_get_autocommit(s->db))
        return 0;
    return run_id(s, ST_ROLLBACK, "cannot roll back");
}

/* ------------------------------------------------------------------------
 * The end of a game
 * ------------------------------------------------------------------------ */

enum outcome { OUT_WIN = 1, OUT_LOSS = 2, OUT_DRAW = 3 };

/* An account id, or SQL NULL for a guest (0). */
static void bind_account(sqlite3_stmt *st, int col, int64_t account)
{
    if (account > 0)
        sqlite3_bind_int64(st, col, account);
    else
        sqlite3_bind_null(st, col);
}

static int finish_game(store *s, const char *id, int status, const char *reason, int n_seats,
                       const char *const *names, const int64_t *accounts, const int *scores,
                       const bool *won, int n_winners, int64_t ended_ms)
{
    char what[64];
    snprintf(what, sizeof what, "cannot end game %s", id);

    sqlite3_stmt *st = stmt(s, ST_GAME_STATE);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int old_status = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    int seats = rc == SQLITE_ROW ? sqlite3_column_int(st, 1) : 0;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        fail_db(s, what);
    finish(st);
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? failf(s, "%s: no such game", what) : -1;
    if (old_status >= STORE_FINISHED)
        return failf(s, "%s: it has already ended", what);
    if (seats != n_seats)
        return failf(s, "%s: it has %d seats, not %d", what, seats, n_seats);

    if (!(st = stmt(s, ST_GAME_END)))
        return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, status);
    sqlite3_bind_text(st, 3, reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, ended_ms);
    if (run(s, st, what) < 0)
        return -1;

    for (int i = 0; i < n_seats; i++) {
        if (!(st = stmt(s, ST_RESULT_INSERT)))
            return -1;
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, i);
        sqlite3_bind_text(st, 3, names[i], -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 4, scores ? scores[i] : 0);
        sqlite3_bind_int(st, 5, won[i]);
        bind_account(st, 6, accounts ? accounts[i] : 0);
        if (run(s, st, what) < 0)
            return -1;
    }

    for (int i = 0; status == STORE_FINISHED && i < n_seats; i++) {
        if (!names[i][0])
            continue;
        if (!(st = stmt(s, ST_STATS_ADD)))
            return -1;
        sqlite3_bind_text(st, 1, names[i], -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, n_winners == 0 ? OUT_DRAW : won[i] ? OUT_WIN : OUT_LOSS);
        bind_account(st, 3, accounts ? accounts[i] : 0);
        if (run(s, st, what) < 0)
            return -1;
    }
    return 0;
}

int store_game_forget(store *s, const char *game_id)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    sqlite3_stmt *st = stmt(s, ST_PARTS_CLEAR);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, game_id, -1, SQLITE_STATIC);
    return run_f(s, st, "cannot forget the participants of game %s", game_id);
}

int store_game_finish(store *s, const char *game_id, int status, const char *reason,
                      int n_seats, const char *const *seat_names,
                      const int64_t *seat_accounts, const int *scores,
                      const int *winners, int n_winners, int64_t ended_ms)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (!reason)
        reason = "";
    if (check_str(s, reason, STORE_REASON_BYTES, "end reason", true) < 0)
        return -1;
    if (status != STORE_FINISHED && status != STORE_ABANDONED)
        return failf(s, "game %s cannot end with status %d", game_id, status);
    if (n_seats < 1 || n_seats > STORE_MAX_SEATS || !seat_names)
        return failf(s, "game %s cannot end with %d seats", game_id, n_seats);
    if (n_winners < 0 || n_winners > n_seats || (n_winners && !winners))
        return failf(s, "game %s cannot end with %d winners", game_id, n_winners);
    const char *names[STORE_MAX_SEATS];
    for (int i = 0; i < n_seats; i++) {
        names[i] = seat_names[i] ? seat_names[i] : "";
        if (check_str(s, names[i], STORE_NAME_BYTES, "seat name", true) < 0)
            return -1;
        for (int j = 0; j < i && names[i][0]; j++)
            if (strcmp(names[i], names[j]) == 0)
                return failf(s, "game %s cannot end: '%s' holds seats %d and %d", game_id,
                             names[i], j, i);
    }
    bool won[STORE_MAX_SEATS] = { false };
    for (int i = 0; i < n_winners; i++) {
        if (winners[i] < 0 || winners[i] >= n_seats || won[winners[i]])
            return failf(s, "game %s cannot end: winner seat %d is out of range or "
                            "repeated", game_id, winners[i]);
        won[winners[i]] = true;
    }
    if (op_begin(s) < 0)
        return -1;
    return op_end(s, finish_game(s, game_id, status, reason, n_seats, names, seat_accounts,
                                 scores, won, n_winners, ended_ms));
}

/* ------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------ */

static void read_stats(sqlite3_stmt *st, store_stats *out)
{
    col_text(st, 0, out->name, sizeof out->name);
    out->played = sqlite3_column_int(st, 1);
    out->wins = sqlite3_column_int(st, 2);
    out->losses = sqlite3_column_int(st, 3);
    out->draws = sqlite3_column_int(st, 4);
    out->streak = sqlite3_column_int(st, 5);
    out->best_streak = sqlite3_column_int(st, 6);
    out->account_id = sqlite3_column_int64(st, 7);     /* NULL reads 0 */
}

int store_player_stats(store *s, const char *name, store_stats *out)
{
    if (check_str(s, name, STORE_NAME_BYTES, "player name", false) < 0)
        return -1;
    if (!out)
        return failf(s, "no place for the statistics");
    sqlite3_stmt *st = stmt(s, ST_STATS_GET);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int res = 0;
    if (rc == SQLITE_ROW) {
        read_stats(st, out);
    } else if (rc == SQLITE_DONE) {
        memset(out, 0, sizeof *out);
        snprintf(out->name, sizeof out->name, "%s", name);
    } else {
        res = fail_db(s, "cannot read a player's statistics");
    }
    finish(st);
    return res;
}

int store_leaderboard(store *s, int limit, store_stats *out, int *n)
{
    if (!n || (limit > 0 && !out) || limit <= 0)
        return failf(s, "the leaderboard needs a limit above 0 and a place for it");
    *n = 0;
    sqlite3_stmt *st = stmt(s, ST_LEADERBOARD);
    if (!st)
        return -1;
    sqlite3_bind_int(st, 1, limit);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < limit)
        read_stats(st, &out[(*n)++]);
    int res = rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : fail_db(s, "cannot read the leaderboard");
    finish(st);
    return res;
}

/* ------------------------------------------------------------------------
 * History
 * ------------------------------------------------------------------------ */

/* A row of GAME_COLUMNS; the options are read separately. */
static void read_game(sqlite3_stmt *st, store_game_info *g, int *n_moves)
{
    memset(g, 0, sizeof *g);
    col_text(st, 0, g->id, sizeof g->id);
    col_text(st, 1, g->kind, sizeof g->kind);
    col_text(st, 2, g->title, sizeof g->title);
    g->autostart = sqlite3_column_int(st, 3) != 0;
    g->seats = sqlite3_column_int(st, 4);
    g->status = sqlite3_column_int(st, 5);
    g->created_ms = sqlite3_column_int64(st, 6);
    g->started_ms = sqlite3_column_int64(st, 7);
    g->ended_ms = sqlite3_column_int64(st, 8);
    col_text(st, 9, g->reason, sizeof g->reason);
    if (n_moves)
        *n_moves = sqlite3_column_int(st, 10);
    g->per_move_ms = sqlite3_column_int(st, 11);
    g->base_ms = sqlite3_column_int(st, 12);
    g->increment_ms = sqlite3_column_int(st, 13);
    g->rated = sqlite3_column_int(st, 14) != 0;
    g->bot_takes_over = sqlite3_column_int(st, 15) != 0;
    g->bot_level = sqlite3_column_int(st, 16);
}

static int read_options(store *s, store_game_info *g)
{
    sqlite3_stmt *st = stmt(s, ST_OPTIONS_GET);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, g->id, -1, SQLITE_STATIC);
    int rc;
    g->n_options = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && g->n_options < STORE_MAX_OPTIONS) {
        store_option *o = &g->options[g->n_options++];
        col_text(st, 0, o->name, sizeof o->name);
        o->value = sqlite3_column_int(st, 1);
    }
    int res = rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : fail_db(s, "cannot read game options");
    finish(st);
    return res;
}

static int read_results(store *s, store_match_summary *m)
{
    sqlite3_stmt *st = stmt(s, ST_RESULTS_GET);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, m->game.id, -1, SQLITE_STATIC);
    int rc;
    m->n_seats = m->n_winners = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int seat = sqlite3_column_int(st, 0);
        if (seat < 0 || seat >= STORE_MAX_SEATS)
            continue;
        col_text(st, 1, m->seat_names[seat], sizeof m->seat_names[seat]);
        m->scores[seat] = sqlite3_column_int(st, 2);
        if (sqlite3_column_int(st, 3))
            m->winners[m->n_winners++] = seat;
        if (seat + 1 > m->n_seats)
            m->n_seats = seat + 1;
    }
    int res = rc == SQLITE_DONE ? 0 : fail_db(s, "cannot read game results");
    finish(st);
    return res;
}

/* Options and results of a summary whose game row has been read. */
static int complete_summary(store *s, store_match_summary *m)
{
    return read_options(s, &m->game) < 0 || read_results(s, m) < 0 ? -1 : 0;
}

int store_matches(store *s, const char *player, const char *kind, int limit,
                  store_match_summary **out, int *n)
{
    if (!out || !n || limit <= 0)
        return failf(s, "the match history needs a limit above 0 and a place for it");
    *out = NULL;
    *n = 0;
    if ((player && check_str(s, player, STORE_NAME_BYTES, "player name", false) < 0) ||
        (kind && check_str(s, kind, STORE_KIND_BYTES, "game kind", false) < 0))
        return -1;
    sqlite3_stmt *st = stmt(s, ST_MATCHES);
    if (!st)
        return -1;
    if (kind)
        sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
    if (player)
        sqlite3_bind_text(st, 2, player, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, limit);

    store_match_summary *list = NULL;
    int count = 0, cap = 0, rc, res = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == cap) {
            int grown_cap = cap ? cap * 2 : 16;
            if (grown_cap > limit)
                grown_cap = limit;
            store_match_summary *grown = realloc(list, (size_t)grown_cap * sizeof *grown);
            if (!grown) {
                res = failf(s, "cannot read the match history: out of memory");
                break;
            }
            list = grown;
            cap = grown_cap;
        }
        store_match_summary *m = &list[count++];
        memset(m, 0, sizeof *m);
        read_game(st, &m->game, &m->n_moves);
        if (complete_summary(s, m) < 0) {
            res = -1;
            break;
        }
    }
    if (res == 0 && rc != SQLITE_DONE)
        res = fail_db(s, "cannot read the match history");
    finish(st);
    if (res < 0) {
        free(list);
        return -1;
    }
    *out = list;
    *n = count;
    return 0;
}

static int read_moves(store *s, const char *id, store_move **moves, int *n_moves)
{
    sqlite3_stmt *st = stmt(s, ST_MOVES_GET);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    store_move *list = NULL;
    int count = 0, cap = 0, rc, res = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == cap) {
            int grown_cap = cap ? cap * 2 : 64;
            store_move *grown = realloc(list, (size_t)grown_cap * sizeof *grown);
            if (!grown) {
                res = failf(s, "cannot read the moves of game %s: out of memory", id);
                break;
            }
            list = grown;
            cap = grown_cap;
        }
        store_move *m = &list[count++];
        m->ply = sqlite3_column_int(st, 0);
        m->seat = sqlite3_column_int(st, 1);
        m->move = sqlite3_column_int(st, 2);
        m->time_ms = sqlite3_column_int64(st, 3);
    }
    if (res == 0 && rc != SQLITE_DONE)
        res = fail_db(s, "cannot read the moves of a game");
    finish(st);
    if (res < 0) {
        free(list);
        return -1;
    }
    *moves = list;
    *n_moves = count;
    return 0;
}

int store_match(store *s, const char *game_id, store_match_summary *out,
                store_move **moves, int *n_moves)
{
    if (!out || !moves || !n_moves)
        return failf(s, "no place for the match");
    *moves = NULL;
    *n_moves = 0;
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    sqlite3_stmt *st = stmt(s, ST_GAME_GET);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, game_id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    memset(out, 0, sizeof *out);
    if (rc == SQLITE_ROW)
        read_game(st, &out->game, &out->n_moves);
    else if (rc != SQLITE_DONE)
        fail_db(s, "cannot read a game");
    finish(st);
    if (rc == SQLITE_DONE) {
        failf(s, "there is no game %s", game_id);
        return STORE_NOT_FOUND;
    }
    if (rc != SQLITE_ROW || complete_summary(s, out) < 0)
        return -1;
    return read_moves(s, game_id, moves, n_moves);
}

/* ------------------------------------------------------------------------
 * Recovery
 * ------------------------------------------------------------------------ */

static int read_rated_seats(store *s, store_game_info *g)
{
    if (!g->rated)
        return 0;
    sqlite3_stmt *st = stmt(s, ST_RATED_SEATS_GET);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, g->id, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int seat = sqlite3_column_int(st, 0);
        if (seat >= 0 && seat < STORE_MAX_SEATS)
            g->rated_accounts[seat] = sqlite3_column_int64(st, 1);
    }
    int res = rc == SQLITE_DONE ? 0 : fail_db(s, "cannot read a rated game's seats");
    finish(st);
    return res;
}

static int recover_game(store *s, const store_recovery_cb *cb, void *user,
                        const store_game_info *g)
{
    if (cb->game)
        cb->game(user, g);
    sqlite3_stmt *st = stmt(s, ST_RECOVER_PARTS);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, g->id, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        unsigned person = (unsigned)sqlite3_column_int64(st, 0);
        if (cb->participant) {
            char name[STORE_NAME_BYTES], token[STORE_TOKEN_BYTES];
            col_text(st, 1, name, sizeof name);
            col_text(st, 3, token, sizeof token);
            cb->participant(user, g->id, person, name, sqlite3_column_int(st, 2), token,
                            sqlite3_column_int(st, 4) != 0);
        }
        int bot_level = sqlite3_column_int(st, 5);
        if (cb->bot && bot_level > 0)
            cb->bot(user, g->id, person, bot_level);
        int64_t account = sqlite3_column_int64(st, 6);
        if (cb->account && account > 0)
            cb->account(user, g->id, person, account);
    }
    int res = rc == SQLITE_DONE ? 0 : fail_db(s, "cannot read participants");
    finish(st);
    if (res < 0 || !(st = stmt(s, ST_RECOVER_EVENTS)))
        return -1;
    sqlite3_bind_text(st, 1, g->id, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!cb->event)
            continue;
        const void *data = sqlite3_column_blob(st, 4);
        size_t len = (size_t)sqlite3_column_bytes(st, 4);
        cb->event(user, g->id, (uint64_t)sqlite3_column_int64(st, 0),
                  sqlite3_column_int64(st, 1), (unsigned)sqlite3_column_int64(st, 2),
                  (unsigned)sqlite3_column_int64(st, 3), (unsigned)sqlite3_column_int64(st, 5),
                  data, len);
    }
    res = rc == SQLITE_DONE ? 0 : fail_db(s, "cannot read the event log");
    finish(st);
    return res;
}

int store_recover(store *s, const store_recovery_cb *cb, void *user, unsigned *max_game_id)
{
    static const store_recovery_cb none;
    if (!cb)
        cb = &none;
    if (max_game_id) {
        sqlite3_stmt *st = stmt(s, ST_MAX_ID);
        if (!st)
            return -1;
        int rc = sqlite3_step(st);
        int64_t max = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        if (rc != SQLITE_ROW)
            fail_db(s, "cannot read the game ids");
        finish(st);
        if (rc != SQLITE_ROW)
            return -1;
        *max_game_id = max > (int64_t)UINT_MAX ? UINT_MAX : (unsigned)max;
    }
    /* The outer statement stays open while the inner ones run: one read
     * transaction, so the games and their logs are one consistent picture. */
    sqlite3_stmt *games = stmt(s, ST_RECOVER_GAMES);
    if (!games)
        return -1;
    int rc, res = 0;
    while ((rc = sqlite3_step(games)) == SQLITE_ROW) {
        store_game_info g;
        read_game(games, &g, NULL);
        if (read_options(s, &g) < 0 || read_rated_seats(s, &g) < 0 ||
            recover_game(s, cb, user, &g) < 0) {
            res = -1;
            break;
        }
    }
    if (res == 0 && rc != SQLITE_DONE)
        res = fail_db(s, "cannot read the unfinished games");
    finish(games);
    return res;
}

/* ------------------------------------------------------------------------
 * Accounts and sessions
 * ------------------------------------------------------------------------ */

int store_participant_account(store *s, const char *game_id, unsigned person_id,
                              int64_t account_id)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (account_id < 0)
        return failf(s, "account %lld is out of range", (long long)account_id);
    sqlite3_stmt *st = stmt(s, ST_PART_ACCOUNT);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, game_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, person_id);
    sqlite3_bind_int64(st, 3, account_id);
    if (run_f(s, st, "cannot link participant %u of game %s", person_id, game_id) < 0)
        return -1;
    if (sqlite3_changes(s->db) == 0)
        return failf(s, "game %s has no participant %u", game_id, person_id);
    return 0;
}

static int check_account(store *s, const store_account *a)
{
    if (!a)
        return failf(s, "the account is missing");
    if (check_str(s, a->name, sizeof a->name, "account name", false) < 0 ||
        check_str(s, a->name_key, sizeof a->name_key, "account name key", false) < 0 ||
        check_str(s, a->skeleton, sizeof a->skeleton, "account name skeleton", false) < 0 ||
        check_str(s, a->password_hash, sizeof a->password_hash, "password hash", false) < 0)
        return -1;
    return 0;
}

/* Insert a, then claim the unclaimed statistics and results of its exact
 * name; inside the caller's savepoint. */
static int insert_account(store *s, store_account *a, bool *claimed)
{
    sqlite3_stmt *st = stmt(s, ST_ACCOUNT_INSERT);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, a->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, a->name_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, a->skeleton, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, a->password_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, a->created_ms);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        bool taken = sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE;
        fail_db(s, "cannot store the account");
        finish(st);
        return taken ? STORE_TAKEN : -1;
    }
    finish(st);
    a->id = sqlite3_last_insert_rowid(s->db);
    static const enum stmt_id claims[] = {ST_ACCOUNT_CLAIM_STATS, ST_ACCOUNT_CLAIM_RESULTS};
    for (size_t i = 0; i < sizeof claims / sizeof claims[0]; i++) {
        if (!(st = stmt(s, claims[i])))
            return -1;
        sqlite3_bind_int64(st, 1, a->id);
        sqlite3_bind_text(st, 2, a->name, -1, SQLITE_STATIC);
        if (run(s, st, "cannot claim the name's statistics") < 0)
            return -1;
        if (i == 0)
            *claimed = sqlite3_changes(s->db) > 0;
    }
    return 0;
}

int store_account_create(store *s, store_account *a, bool *claimed)
{
    bool dummy;
    if (!claimed)
        claimed = &dummy;
    *claimed = false;
    if (check_account(s, a) < 0 || op_begin(s) < 0)
        return -1;
    int rc = insert_account(s, a, claimed);
    if (rc == STORE_TAKEN) {
        op_end(s, -1);
        failf(s, "the name %s, or one that looks like it, is registered", a->name);
        return STORE_TAKEN;
    }
    return op_end(s, rc);
}

static int find_account(store *s, enum stmt_id id, const char *text, int64_t num,
                        store_account *out)
{
    if (!out)
        return failf(s, "no place for the account");
    sqlite3_stmt *st = stmt(s, id);
    if (!st)
        return -1;
    if (text)
        sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_int64(st, 1, num);
    int rc = sqlite3_step(st);
    memset(out, 0, sizeof *out);
    if (rc == SQLITE_ROW) {
        out->id = sqlite3_column_int64(st, 0);
        col_text(st, 1, out->name, sizeof out->name);
        col_text(st, 2, out->name_key, sizeof out->name_key);
        col_text(st, 3, out->skeleton, sizeof out->skeleton);
        col_text(st, 4, out->password_hash, sizeof out->password_hash);
        out->created_ms = sqlite3_column_int64(st, 5);
    } else if (rc != SQLITE_DONE) {
        fail_db(s, "cannot read an account");
    }
    finish(st);
    if (rc == SQLITE_DONE) {
        failf(s, "no such account");
        return STORE_NOT_FOUND;
    }
    return rc == SQLITE_ROW ? 0 : -1;
}

int store_account_count(store *s, int64_t *n)
{
    sqlite3_stmt *st = stmt(s, ST_ACCOUNT_COUNT);
    if (!st)
        return -1;
    int rc = sqlite3_step(st);
    *n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    if (rc != SQLITE_ROW)
        fail_db(s, "cannot count the accounts");
    finish(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

int store_account_find(store *s, const char *name_key, store_account *out)
{
    if (check_str(s, name_key, STORE_NAME_KEY_BYTES, "account name key", false) < 0)
        return -1;
    return find_account(s, ST_ACCOUNT_BY_KEY, name_key, 0, out);
}

int store_account_find_skeleton(store *s, const char *skeleton, store_account *out)
{
    if (check_str(s, skeleton, STORE_SKELETON_BYTES, "account name skeleton", false) < 0)
        return -1;
    return find_account(s, ST_ACCOUNT_BY_SKELETON, skeleton, 0, out);
}

int store_account_get(store *s, int64_t id, store_account *out)
{
    return find_account(s, ST_ACCOUNT_BY_ID, NULL, id, out);
}

int store_account_set_password(store *s, int64_t id, const char *password_hash,
                               int64_t when_ms)
{
    if (check_str(s, password_hash, STORE_PASSWORD_HASH_BYTES, "password hash", false) < 0)
        return -1;
    sqlite3_stmt *st = stmt(s, ST_ACCOUNT_PASSWORD);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, password_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, when_ms);
    if (run(s, st, "cannot change the password") < 0)
        return -1;
    if (sqlite3_changes(s->db) == 0)
        return failf(s, "there is no account %lld", (long long)id);
    return 0;
}

int store_session_create(store *s, const store_session *ss)
{
    if (!ss || ss->account_id <= 0)
        return failf(s, "a session needs an account");
    sqlite3_stmt *st = stmt(s, ST_SESSION_INSERT);
    if (!st)
        return -1;
    sqlite3_bind_blob(st, 1, ss->id, STORE_SESSION_ID_BYTES, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, ss->account_id);
    sqlite3_bind_blob(st, 3, ss->hash, STORE_SESSION_HASH_BYTES, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, ss->created_ms);
    sqlite3_bind_int64(st, 5, ss->expires_ms);
    return run(s, st, "cannot store the session");
}

int store_session_find(store *s, const uint8_t id[STORE_SESSION_ID_BYTES], store_session *out)
{
    if (!id || !out)
        return failf(s, "no session id, or no place for the session");
    sqlite3_stmt *st = stmt(s, ST_SESSION_GET);
    if (!st)
        return -1;
    sqlite3_bind_blob(st, 1, id, STORE_SESSION_ID_BYTES, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    memset(out, 0, sizeof *out);
    if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 1) == STORE_SESSION_HASH_BYTES) {
        memcpy(out->id, id, STORE_SESSION_ID_BYTES);
        out->account_id = sqlite3_column_int64(st, 0);
        memcpy(out->hash, sqlite3_column_blob(st, 1), STORE_SESSION_HASH_BYTES);
        out->created_ms = sqlite3_column_int64(st, 2);
        out->expires_ms = sqlite3_column_int64(st, 3);
    } else if (rc == SQLITE_ROW) {
        rc = SQLITE_DONE;      /* a damaged row is no session */
    } else if (rc != SQLITE_DONE) {
        fail_db(s, "cannot read a session");
    }
    finish(st);
    if (rc == SQLITE_DONE) {
        failf(s, "no such session");
        return STORE_NOT_FOUND;
    }
    return rc == SQLITE_ROW ? 0 : -1;
}

int store_session_delete(store *s, const uint8_t id[STORE_SESSION_ID_BYTES])
{
    sqlite3_stmt *st = stmt(s, ST_SESSION_DELETE);
    if (!st)
        return -1;
    sqlite3_bind_blob(st, 1, id, STORE_SESSION_ID_BYTES, SQLITE_STATIC);
    return run(s, st, "cannot end the session");
}

int store_sessions_delete_account(store *s, int64_t account_id,
                                  const uint8_t keep[STORE_SESSION_ID_BYTES], int *n_deleted)
{
    sqlite3_stmt *st = stmt(s, ST_SESSIONS_DELETE_ACCOUNT);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, account_id);
    if (keep)
        sqlite3_bind_blob(st, 2, keep, STORE_SESSION_ID_BYTES, SQLITE_STATIC);
    if (run(s, st, "cannot end the account's sessions") < 0)
        return -1;
    if (n_deleted)
        *n_deleted = sqlite3_changes(s->db);
    return 0;
}

int store_sessions_expire(store *s, int64_t now_ms, int *n_deleted)
{
    sqlite3_stmt *st = stmt(s, ST_SESSIONS_EXPIRE);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, now_ms);
    if (run(s, st, "cannot forget expired sessions") < 0)
        return -1;
    if (n_deleted)
        *n_deleted = sqlite3_changes(s->db);
    return 0;
}

int store_player_lost(store *s, const char *name, int64_t account_id)
{
    if (check_str(s, name, STORE_NAME_BYTES, "player name", false) < 0)
        return -1;
    sqlite3_stmt *st = stmt(s, ST_STATS_ADD);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, OUT_LOSS);
    bind_account(st, 3, account_id);
    return run_f(s, st, "cannot count a loss for %s", name);
}

/* ------------------------------------------------------------------------
 * Ratings
 * ------------------------------------------------------------------------ */

int store_game_rated_seats(store *s, const char *game_id, int n_seats, const int64_t *accounts)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0)
        return -1;
    if (n_seats < 1 || n_seats > STORE_MAX_SEATS || !accounts)
        return failf(s, "game %s cannot be rated with %d seats", game_id, n_seats);
    for (int i = 0; i < n_seats; i++)
        if (accounts[i] <= 0)
            return failf(s, "seat %d of rated game %s has no account", i, game_id);
    if (op_begin(s) < 0)
        return -1;
    int res = 0;
    for (int i = 0; i < n_seats && res == 0; i++) {
        sqlite3_stmt *st = stmt(s, ST_RATED_SEAT_PUT);
        if (!st) {
            res = -1;
            break;
        }
        sqlite3_bind_text(st, 1, game_id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, i);
        sqlite3_bind_int64(st, 3, accounts[i]);
        res = run_f(s, st, "cannot keep the seats of rated game %s", game_id);
    }
    return op_end(s, res);
}

/* Columns rating, rd, volatility, games, updated_ms from col on. */
static void read_rating(sqlite3_stmt *st, int col, store_rating *out)
{
    out->rating = sqlite3_column_double(st, col);
    out->rd = sqlite3_column_double(st, col + 1);
    out->volatility = sqlite3_column_double(st, col + 2);
    out->games = sqlite3_column_int(st, col + 3);
    out->updated_ms = sqlite3_column_int64(st, col + 4);
}

int store_rating_get(store *s, int64_t account_id, const char *kind, store_rating *out)
{
    if (check_str(s, kind, STORE_KIND_BYTES, "game kind", false) < 0)
        return -1;
    if (!out)
        return failf(s, "no place for the rating");
    sqlite3_stmt *st = stmt(s, ST_RATING_GET);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, account_id);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int res = 0;
    memset(out, 0, sizeof *out);
    snprintf(out->kind, sizeof out->kind, "%s", kind);
    if (rc == SQLITE_ROW)
        read_rating(st, 0, out);
    else if (rc == SQLITE_DONE)
        res = STORE_NOT_FOUND;
    else
        res = fail_db(s, "cannot read a rating");
    finish(st);
    return res;
}

static int record_rating(store *s, const char *game_id, const char *kind, int64_t ended_ms,
                         int64_t account, const store_rating *before, const store_rating *after)
{
    sqlite3_stmt *st = stmt(s, ST_RATING_PUT);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, account);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 3, after->rating);
    sqlite3_bind_double(st, 4, after->rd);
    sqlite3_bind_double(st, 5, after->volatility);
    sqlite3_bind_int(st, 6, after->games);
    sqlite3_bind_int64(st, 7, after->updated_ms);
    if (run_f(s, st, "cannot store the rating of account %lld", (long long)account) < 0 ||
        !(st = stmt(s, ST_RATING_HISTORY_ADD)))
        return -1;
    sqlite3_bind_int64(st, 1, account);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, ended_ms);
    sqlite3_bind_text(st, 4, game_id, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 5, before->rating);
    sqlite3_bind_double(st, 6, after->rating);
    sqlite3_bind_double(st, 7, after->rd);
    sqlite3_bind_double(st, 8, after->volatility);
    return run_f(s, st, "cannot store the rating history of account %lld",
                 (long long)account);
}

int store_ratings_record(store *s, const char *game_id, const char *kind, int64_t ended_ms,
                         int n, const int64_t *accounts, const store_rating *before,
                         const store_rating *after)
{
    if (check_str(s, game_id, STORE_ID_BYTES, "game id", false) < 0 ||
        check_str(s, kind, STORE_KIND_BYTES, "game kind", false) < 0)
        return -1;
    if (n < 1 || n > STORE_MAX_SEATS || !accounts || !before || !after)
        return failf(s, "game %s cannot rate %d players", game_id, n);
    for (int i = 0; i < n; i++)
        if (accounts[i] <= 0 || !(after[i].rd > 0) || !(after[i].volatility > 0))
            return failf(s, "game %s: player %d has no account or an invalid rating", game_id,
                         i);
    if (op_begin(s) < 0)
        return -1;
    int res = 0;
    for (int i = 0; i < n && res == 0; i++)
        res = record_rating(s, game_id, kind, ended_ms, accounts[i], &before[i], &after[i]);
    return op_end(s, res);
}

int store_ratings_of(store *s, int64_t account_id, store_rating *out, int max, int *n)
{
    if (!n || max < 0 || (max > 0 && !out))
        return failf(s, "no place for the ratings");
    *n = 0;
    sqlite3_stmt *st = stmt(s, ST_RATINGS_OF);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, account_id);
    int rc;
    while (*n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_rating *r = &out[(*n)++];
        memset(r, 0, sizeof *r);
        col_text(st, 0, r->kind, sizeof r->kind);
        read_rating(st, 1, r);
    }
    int res = *n == max || rc == SQLITE_DONE ? 0 : fail_db(s, "cannot read the ratings");
    finish(st);
    return res;
}

int store_rating_leaderboard(store *s, const char *kind, double provisional_rd, int limit,
                             store_rated_player *out, int *n)
{
    if (check_str(s, kind, STORE_KIND_BYTES, "game kind", false) < 0)
        return -1;
    if (!n || limit <= 0 || !out)
        return failf(s, "the leaderboard needs a limit above 0 and a place for it");
    *n = 0;
    sqlite3_stmt *st = stmt(s, ST_RATING_LEADERBOARD);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, limit);
    sqlite3_bind_double(st, 3, provisional_rd);
    int rc;
    while (*n < limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_rated_player *p = &out[(*n)++];
        memset(p, 0, sizeof *p);
        col_text(st, 0, p->name, sizeof p->name);
        p->account_id = sqlite3_column_int64(st, 1);
        snprintf(p->rating.kind, sizeof p->rating.kind, "%s", kind);
        read_rating(st, 2, &p->rating);
    }
    int res = *n == limit || rc == SQLITE_DONE ? 0
                                                : fail_db(s, "cannot read the leaderboard");
    finish(st);
    return res;
}

int store_rating_history(store *s, int64_t account_id, const char *kind, int limit,
                         store_rating_point **out, int *n)
{
    if (kind && check_str(s, kind, STORE_KIND_BYTES, "game kind", false) < 0)
        return -1;
    if (!out || !n || limit <= 0)
        return failf(s, "the rating history needs a limit above 0 and a place for it");
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = stmt(s, ST_RATING_HISTORY);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, account_id);
    if (kind)
        sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, limit);
    store_rating_point *points = NULL;
    int count = 0, cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == cap) {
            int grown_cap = cap ? cap * 2 : 16;
            store_rating_point *grown = realloc(points, (size_t)grown_cap * sizeof *grown);
            if (!grown) {
                free(points);
                finish(st);
                return failf(s, "out of memory reading the rating history");
            }
            points = grown;
            cap = grown_cap;
        }
        store_rating_point *p = &points[count++];
        memset(p, 0, sizeof *p);
        col_text(st, 0, p->kind, sizeof p->kind);
        p->ended_ms = sqlite3_column_int64(st, 1);
        col_text(st, 2, p->game_id, sizeof p->game_id);
        p->rating_before = sqlite3_column_double(st, 3);
        p->rating = sqlite3_column_double(st, 4);
        p->rd = sqlite3_column_double(st, 5);
        p->volatility = sqlite3_column_double(st, 6);
    }
    finish(st);
    if (rc != SQLITE_DONE) {
        free(points);
        return fail_db(s, "cannot read the rating history");
    }
    *out = points;
    *n = count;
    return 0;
}
