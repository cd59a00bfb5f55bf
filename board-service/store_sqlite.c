/*
 * store_sqlite.c — the store's embedded database: the SQLite driver of
 * store_db.h, on one file (or ":memory:").
 *
 * One connection per store, used by one thread; store.c holds the SQL. The
 * schema is built by migrations[]: step v brings a database from version
 * v - 1 to v, and PRAGMA user_version records where a file stands, so a file
 * written by an older service is brought up to date on open and one written
 * by a newer service is refused rather than misread. Before it migrates a
 * file, it copies it beside itself (backup_before_migrating).
 *
 * Durability is WAL with synchronous = NORMAL: a commit survives the process
 * being killed, not necessarily power loss (see store.h for why).
 */
#include "store_checkpoint.h"
#include "store_db.h"

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
     * at the game's bot level. In parentheses: one element of two
     * statements, which clang's -Wstring-concatenation takes for a missing
     * comma otherwise. */
    ("ALTER TABLE games ADD COLUMN bot_takes_over INTEGER NOT NULL DEFAULT 0;"
     "ALTER TABLE games ADD COLUMN bot_level INTEGER NOT NULL DEFAULT 0;"),
    /* 8: rated games that do not count (store_game_unrated: why, 0 when it
     * counts), rated games found by account, for the rated games of a pair
     * of accounts in a day, and the client address a signed-in participant
     * took its seat from (store_participant_account), which decides it. */
    ("ALTER TABLE games ADD COLUMN unrated INTEGER NOT NULL DEFAULT 0;"
     "CREATE INDEX rated_seats_by_account ON rated_seats(account_id, game_id);"
     "ALTER TABLE participants ADD COLUMN host TEXT NOT NULL DEFAULT '';"),
    /* 9: an account's look (accounts.h): its skeleton taken before case
     * folding, so that "aIice" is found to look like "alice". Not unique:
     * a file may already hold two accounts that look alike, and both stay
     * (each signs in by its own name); a new name is refused when its
     * skeleton or look is either of an existing account's. Only ICU can
     * compute a look, so the rows written before are left '' here and the
     * service fills them when it starts (store_account_fill_looks). */
    ("ALTER TABLE accounts ADD COLUMN look TEXT NOT NULL DEFAULT '';"
     "CREATE INDEX accounts_by_look ON accounts(look);"),
    /* 10: the operator's bans (an account, by its id; an address or
     * prefix, in CIDR; an account's chat), the audit log of the Admin
     * service (admin_rpc.c), and the one-time codes that reset a forgotten
     * password (kept hashed, one per account). */
    ("CREATE TABLE bans ("
     "  kind     INTEGER NOT NULL,"
     "  target   TEXT NOT NULL,"
     "  label    TEXT NOT NULL,"
     "  reason   TEXT NOT NULL,"
     "  made_ms  INTEGER NOT NULL,"
     "  until_ms INTEGER NOT NULL,"
     "  PRIMARY KEY (kind, target)) WITHOUT ROWID;"
     "CREATE TABLE admin_actions ("
     "  id     INTEGER PRIMARY KEY,"
     "  at_ms  INTEGER NOT NULL,"
     "  who    TEXT NOT NULL,"
     "  action TEXT NOT NULL,"
     "  target TEXT NOT NULL,"
     "  reason TEXT NOT NULL);"
     "CREATE TABLE reset_codes ("
     "  account_id INTEGER PRIMARY KEY,"
     "  hash       BLOB NOT NULL,"
     "  expires_ms INTEGER NOT NULL);"),
    /* 11: players' blocks and reports (docs/rules.md, "Blocking and
     * reporting"): a block is its blocker's row; reports are counted by
     * reporter and time (--report-rate) and listed newest first. */
    ("CREATE TABLE blocks ("
     "  account_id INTEGER NOT NULL,"
     "  blocked_id INTEGER NOT NULL,"
     "  created_ms INTEGER NOT NULL,"
     "  PRIMARY KEY (account_id, blocked_id)) WITHOUT ROWID;"
     "CREATE TABLE reports ("
     "  id          INTEGER PRIMARY KEY,"
     "  time_ms     INTEGER NOT NULL,"
     "  reporter_id INTEGER NOT NULL,"
     "  reported_id INTEGER NOT NULL,"
     "  game_id     TEXT NOT NULL,"
     "  reason      TEXT NOT NULL,"
     "  host        TEXT NOT NULL);"
     "CREATE INDEX reports_by_reporter ON reports(reporter_id, time_ms);"),
    /* 12: the engine's review of each ended game (docs/rules.md, "Analysis"):
     * the packed sungka.v1.Analysis the service serves, written once. */
    ("CREATE TABLE analyses ("
     "  game_id TEXT PRIMARY KEY NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
     "  made_ms INTEGER NOT NULL,"
     "  data    BLOB NOT NULL);"),
    /* 13: tournaments (tournament.c): one row each, its players, games and
     * points in record (a packed TournamentRecord, tournament.proto), which
     * every change rewrites whole. */
    ("CREATE TABLE tournaments ("
     "  id         TEXT PRIMARY KEY,"
     "  status     INTEGER NOT NULL,"
     "  updated_ms INTEGER NOT NULL,"
     "  record     BLOB NOT NULL) WITHOUT ROWID;"),
    /* 14: the tournament that made a game (its history shows it); older
     * games were made by none. */
    ("ALTER TABLE games ADD COLUMN tournament_id TEXT NOT NULL DEFAULT '';"),
};
#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

/* ------------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------------ */

typedef struct lite {
    db base;
    sqlite3 *conn;
    struct lite_stmt *stmts;   /* every statement prepared, to finalize */
    int lock_fd;               /* holds the flock() on the file; -1: none (":memory:") */
    dev_t dev;                 /* the locked file, while in open_files */
    ino_t ino;
    struct lite *next_open;
    bool err_whole;            /* opening: err is the whole sentence, not a reason */
    store_checkpointer *ckpt;  /* a file store's checkpoints; NULL: SQLite's own */
    int kicked_at;             /* WAL frames when the checkpointer was last woken */
    char err[1024];            /* why opening failed */
} lite;

static int failf(lite *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int failf(lite *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* "what: the database's message" */
static int fail_db(lite *s, const char *what)
{
    return failf(s, "%s: %s", what, sqlite3_errmsg(s->conn));
}

static int exec_sql(lite *s, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(s->conn, sql, NULL, NULL, &msg) != SQLITE_OK) {
        failf(s, "%s: %s", what, msg ? msg : sqlite3_errmsg(s->conn));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

/* One integer from a query without parameters (a pragma, a count). */
static int query_int(lite *s, const char *sql, int *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->conn, sql, -1, &st, NULL) != SQLITE_OK)
        return fail_db(s, "cannot read the database");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int(st, 0);
    else
        fail_db(s, "cannot read the database");
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
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

/* Before a migration: a copy of the file as it stands, at
 * PATH.before-vN.bak (N: the version it is about to be brought to), mode
 * 0600 like the file. A migrated file is one the older program refuses, so
 * this copy is the way back to it (docs/operating.md, "Upgrade"). It is
 * SQLite's online backup through this connection, before the write
 * transaction of the migration (SQLite copies nothing from a connection that
 * is writing): one read transaction, so the WAL's committed pages are in it,
 * and this process's lock on the file (lock_file) keeps other services from
 * writing in between. A copy that cannot be made stops the start: the file
 * stays as it was. Costs a read and a write of the whole file, once per
 * upgrade that changes the schema. Nothing for a file of this version, a
 * new one, or one that is not Sungka's (migrate refuses that). */
static int backup_before_migrating(lite *s, const char *path)
{
    int from, app_id;
    if (query_int(s, "PRAGMA user_version", &from) < 0 ||
        query_int(s, "PRAGMA application_id", &app_id) < 0)
        return -1;
    if (app_id != STORE_APPLICATION_ID || from <= 0 || from >= SCHEMA_VERSION)
        return 0;
    char bak[PATH_MAX + 32], why[256];
    if (snprintf(bak, sizeof bak, "%s.before-v%d.bak", path, SCHEMA_VERSION) >= (int)sizeof bak)
        return failf(s, "cannot back it up before migrating it: the path is too long");
    if (create_private(bak, why, sizeof why) < 0)
        return failf(s, "cannot back it up to %s before migrating it from schema version %d "
                        "to %d: %s", bak, from, SCHEMA_VERSION, why);
    sqlite3 *dst = NULL;
    int rc = sqlite3_open_v2(bak, &dst, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_backup *b = sqlite3_backup_init(dst, "main", s->conn, "main");
        rc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(dst);
        int done = b ? sqlite3_backup_finish(b) : rc;
        if (rc == SQLITE_DONE)
            rc = done;
    }
    if (rc != SQLITE_OK) {
        failf(s, "cannot back it up to %s before migrating it from schema version %d to %d: %s",
              bak, from, SCHEMA_VERSION, dst ? sqlite3_errmsg(dst) : sqlite3_errstr(rc));
        sqlite3_close(dst);
        return -1;
    }
    sqlite3_close(dst);
    snprintf(s->base.notice, sizeof s->base.notice,
             "backed up the database %.600s (schema version %d) to %.620s before migrating it "
             "to version %d", path, from, bak, SCHEMA_VERSION);
    return 0;
}

/* Bring the schema to SCHEMA_VERSION, inside the caller's write transaction. */
static int migrate(lite *s)
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
static lite *open_files;      /* the stores holding a lock, by next_open */

static int lock_file(lite *s, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return failf(s, "%s", strerror(errno));
    pthread_mutex_lock(&open_files_lock);
    bool ours = false;
    for (const lite *o = open_files; o && !ours; o = o->next_open)
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
static void unlock_file(lite *s)
{
    if (s->lock_fd < 0)
        return;
    pthread_mutex_lock(&open_files_lock);
    for (lite **o = &open_files; *o; o = &(*o)->next_open) {
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
static int fail_damaged(lite *s, const char *path, const char *problem)
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
static int run_check(lite *s, const char *pragma,
                     void (*problem)(void *user, const char *text), void *user)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->conn, pragma, -1, &st, NULL);
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
        problem(user, sqlite3_errmsg(s->conn));
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

/* The first read of the file failed: a file SQLite finds corrupt (damage
 * in its schema's pages, say) is damaged, with the same sentence as one
 * quick_check faults; anything else ("file is not a database") says itself. */
static int unreadable(lite *s, const char *path)
{
    int code = sqlite3_errcode(s->conn) & 0xff;
    if (code == SQLITE_CORRUPT)
        return fail_damaged(s, path, sqlite3_errmsg(s->conn));
    return failf(s, "%s", sqlite3_errmsg(s->conn));
}

static int configure(lite *s, const char *path)
{
    int rc = sqlite3_open_v2(path, &s->conn,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        int sys = s->conn ? sqlite3_system_errno(s->conn) : 0;
        if ((rc & 0xff) == SQLITE_CANTOPEN && sys)
            return failf(s, "%s", strerror(sys));
        return failf(s, "%s", s->conn ? sqlite3_errmsg(s->conn) : sqlite3_errstr(rc));
    }
    sqlite3_extended_result_codes(s->conn, 1);
    /* Another process holding the write lock (a second service on the same
     * file, a backup) is waited for this long, then the write fails. */
    sqlite3_busy_timeout(s->conn, 1000);

    /* A new file gets 1 KiB pages: a move dirties three or four b-tree
     * pages and a commit writes each whole to the WAL, so small pages cut a
     * commit's writes (~40 -> ~30 us a move, tests/store/bench_store). An
     * existing file keeps its size; a file that is no database fails next. */
    sqlite3_exec(s->conn, "PRAGMA page_size = 1024", NULL, NULL, NULL);

    /* The first statement reads the file: a file that is not a database
     * fails here ("file is not a database"). */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->conn, "PRAGMA journal_mode = WAL", -1, &st, NULL) != SQLITE_OK)
        return unreadable(s, path);
    rc = sqlite3_step(st);
    char mode[16] = "";
    if (rc == SQLITE_ROW)
        snprintf(mode, sizeof mode, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return unreadable(s, path);
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
    if (strcmp(path, ":memory:") != 0 && backup_before_migrating(s, path) < 0)
        return -1;
    /* Take the write lock once: an unwritable file or directory shows here,
     * at startup, rather than on the first move. */
    if (exec_sql(s, "BEGIN IMMEDIATE", "cannot write") < 0)
        return -1;
    if (migrate(s) < 0 || exec_sql(s, "COMMIT", "cannot write") < 0) {
        sqlite3_exec(s->conn, "ROLLBACK", NULL, NULL, NULL);
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

static int on_wal_commit(void *arg, sqlite3 *conn, const char *name, int frames)
{
    lite *s = arg;
    if (frames < s->kicked_at)
        s->kicked_at = 0;                 /* the WAL started over */
    if (frames >= CHECKPOINT_FORCE) {
        sqlite3_wal_checkpoint_v2(conn, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        s->kicked_at = 0;
    } else if (frames >= s->kicked_at + CHECKPOINT_FRAMES) {
        s->kicked_at = frames;
        checkpointer_kick(s->ckpt);
    }
    return SQLITE_OK;
}

/* Without its thread the store keeps SQLite's own checkpoints in the commit. */
static void start_checkpoints(lite *s, const char *path)
{
    char why[256];
    s->ckpt = checkpointer_start(path, why, sizeof why);
    if (s->ckpt)
        sqlite3_wal_hook(s->conn, on_wal_commit, s);   /* replaces the autocheckpoint */
}

/* ------------------------------------------------------------------------
 * The driver (store_db.h)
 * ------------------------------------------------------------------------ */

struct lite_stmt {
    db_stmt base;
    sqlite3_stmt *st;
    struct lite_stmt *next;    /* the connection's statements, to finalize */
};

static lite *lite_of(db *d) { return (lite *)d; }
static sqlite3_stmt *st_of(db_stmt *st) { return ((struct lite_stmt *)st)->st; }

static db_stmt *lite_prepare(db *d, const char *sql)
{
    lite *s = lite_of(d);
    struct lite_stmt *ls = calloc(1, sizeof *ls);
    if (!ls)
        return NULL;
    if (sqlite3_prepare_v3(s->conn, sql, -1, SQLITE_PREPARE_PERSISTENT, &ls->st, NULL)
        != SQLITE_OK) {
        free(ls);
        return NULL;
    }
    ls->base.d = d;
    ls->next = s->stmts;
    s->stmts = ls;
    return &ls->base;
}

/* Bound values are the caller's until the reset (SQLITE_STATIC). */
static void lite_bind_text(db_stmt *st, int i, const char *v)
{
    sqlite3_bind_text(st_of(st), i, v, -1, SQLITE_STATIC);
}

static void lite_bind_int64(db_stmt *st, int i, int64_t v)
{
    sqlite3_bind_int64(st_of(st), i, v);
}

static void lite_bind_double(db_stmt *st, int i, double v)
{
    sqlite3_bind_double(st_of(st), i, v);
}

/* An empty blob is an empty blob, not NULL (which a NULL pointer binds). */
static void lite_bind_blob(db_stmt *st, int i, const void *v, size_t len)
{
    if (len)
        sqlite3_bind_blob64(st_of(st), i, v, len, SQLITE_STATIC);
    else
        sqlite3_bind_zeroblob(st_of(st), i, 0);
}

static void lite_bind_null(db_stmt *st, int i)
{
    sqlite3_bind_null(st_of(st), i);
}

static int lite_step(db_stmt *st)
{
    int rc = sqlite3_step(st_of(st));
    return rc == SQLITE_ROW ? DB_ROW : rc == SQLITE_DONE ? DB_DONE : DB_FAILED;
}

static void lite_reset(db_stmt *st)
{
    sqlite3_reset(st_of(st));
    sqlite3_clear_bindings(st_of(st));
}

static int64_t lite_col_int64(db_stmt *st, int col)
{
    return sqlite3_column_int64(st_of(st), col);
}

static double lite_col_double(db_stmt *st, int col)
{
    return sqlite3_column_double(st_of(st), col);
}

static const char *lite_col_text(db_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st_of(st), col);
    return t ? (const char *)t : "";
}

static const void *lite_col_blob(db_stmt *st, int col, size_t *len)
{
    const void *v = sqlite3_column_blob(st_of(st), col);
    *len = v ? (size_t)sqlite3_column_bytes(st_of(st), col) : 0;
    return v ? v : "";
}

static int64_t lite_changes(db *d)
{
    return sqlite3_changes64(lite_of(d)->conn);
}

static int lite_exec(db *d, const char *sql)
{
    return sqlite3_exec(lite_of(d)->conn, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

static bool lite_in_transaction(db *d)
{
    return !sqlite3_get_autocommit(lite_of(d)->conn);
}

static bool lite_unique_violation(db *d)
{
    int code = sqlite3_extended_errcode(lite_of(d)->conn);
    return code == SQLITE_CONSTRAINT_UNIQUE || code == SQLITE_CONSTRAINT_PRIMARYKEY;
}

static const char *lite_errmsg(db *d)
{
    return sqlite3_errmsg(lite_of(d)->conn);
}

static const char *lite_history(db *d)
{
    (void)d;
    return "";    /* one file: whoever restores it restarts the service */
}

static unsigned long lite_checkpoints(db *d)
{
    lite *s = lite_of(d);
    return s->ckpt ? checkpointer_count(s->ckpt) : 0;
}

static void lite_close(db *d)
{
    lite *s = lite_of(d);
    if (s->conn && !sqlite3_get_autocommit(s->conn))
        sqlite3_exec(s->conn, "ROLLBACK", NULL, NULL, NULL);
    while (s->stmts) {
        struct lite_stmt *ls = s->stmts;
        s->stmts = ls->next;
        sqlite3_finalize(ls->st);
        free(ls);
    }
    checkpointer_stop(s->ckpt);   /* first: the last connection closed checkpoints */
    sqlite3_close(s->conn);
    unlock_file(s);
    free(s);
}

static const db_driver lite_driver = {
    .dialect = DB_SQLITE,
    .prepare = lite_prepare,
    .bind_text = lite_bind_text,
    .bind_int64 = lite_bind_int64,
    .bind_double = lite_bind_double,
    .bind_blob = lite_bind_blob,
    .bind_null = lite_bind_null,
    .step = lite_step,
    .reset = lite_reset,
    .col_int64 = lite_col_int64,
    .col_double = lite_col_double,
    .col_text = lite_col_text,
    .col_blob = lite_col_blob,
    .changes = lite_changes,
    .exec = lite_exec,
    .in_transaction = lite_in_transaction,
    .unique_violation = lite_unique_violation,
    .errmsg = lite_errmsg,
    .checkpoints = lite_checkpoints,
    .history = lite_history,
    .close = lite_close,
};

/* A driver's handle with nothing open yet; NULL (err said) out of memory. */
static lite *lite_new(const char *path, char *err, size_t errlen)
{
    lite *s = calloc(1, sizeof *s);
    if (!s) {
        if (errlen)
            snprintf(err, errlen, "cannot open the database %s: out of memory", path);
        return NULL;
    }
    s->base.drv = &lite_driver;
    s->lock_fd = -1;
    return s;
}

int db_sqlite_open(const char *path, db **out, char *err, size_t errlen)
{
    *out = NULL;
    lite *s = lite_new(path, err, errlen);
    if (!s)
        return -1;
    bool file = strcmp(path, ":memory:") != 0;
    if (file && access(path, F_OK) != 0 && create_private(path, s->err, sizeof s->err) < 0)
        goto fail;
    if (file && lock_file(s, path) < 0)
        goto fail;
    if (configure(s, path) < 0)
        goto fail;
    if (file)
        start_checkpoints(s, path);
    *out = &s->base;
    return 0;

fail:
    if (errlen && s->err_whole)
        snprintf(err, errlen, "%s", s->err);
    else if (errlen)
        snprintf(err, errlen, "cannot open the database %s: %s", path, s->err);
    sqlite3_close(s->conn);
    unlock_file(s);
    free(s);
    return -1;
}

/* A file opened read-only is ours and of this program's schema: 0, or -1
 * with the reason. */
static int readable_as_is(lite *s)
{
    int version, app_id;
    if (query_int(s, "PRAGMA user_version", &version) < 0 ||
        query_int(s, "PRAGMA application_id", &app_id) < 0)
        return -1;
    if (app_id != STORE_APPLICATION_ID)
        return failf(s, "it is not a Sungka database");
    if (version != SCHEMA_VERSION)
        return failf(s, "its schema is version %d and this program reads version %d (start "
                        "this version's sungka-board on it once)", version, SCHEMA_VERSION);
    return 0;
}

int db_sqlite_open_readonly(const char *path, db **out, char *err, size_t errlen)
{
    *out = NULL;
    lite *s = lite_new(path, err, errlen);
    if (!s)
        return -1;
    /* No lock and no migration: a running service's file is read as it is. */
    int rc = sqlite3_open_v2(path, &s->conn, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        int sys = s->conn ? sqlite3_system_errno(s->conn) : 0;
        failf(s, "%s", (rc & 0xff) == SQLITE_CANTOPEN && sys ? strerror(sys)
                       : s->conn ? sqlite3_errmsg(s->conn) : sqlite3_errstr(rc));
    } else {
        sqlite3_extended_result_codes(s->conn, 1);
        sqlite3_busy_timeout(s->conn, 1000);
        if (readable_as_is(s) == 0) {
            *out = &s->base;
            return 0;
        }
    }
    if (errlen)
        snprintf(err, errlen, "cannot open the database %s: %s", path, s->err);
    sqlite3_close(s->conn);
    free(s);
    return -1;
}

int db_sqlite_check(const char *path, void (*problem)(void *user, const char *text),
                    void *user, char *err, size_t errlen)
{
    lite s = {.lock_fd = -1};
    /* Read-only, and no lock: nothing is created or migrated, and the
     * database of a running service can be checked. */
    int rc = sqlite3_open_v2(path, &s.conn, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    int res = -1;
    if (rc != SQLITE_OK) {
        int sys = s.conn ? sqlite3_system_errno(s.conn) : 0;
        snprintf(err, errlen, "cannot open the database %s: %s", path,
                 (rc & 0xff) == SQLITE_CANTOPEN && sys ? strerror(sys)
                 : s.conn ? sqlite3_errmsg(s.conn) : sqlite3_errstr(rc));
    } else if ((res = run_check(&s, "PRAGMA integrity_check", problem, user)) < 0) {
        snprintf(err, errlen, "cannot check the database %s: %s", path, s.err);
    }
    sqlite3_close(s.conn);
    return res;
}
