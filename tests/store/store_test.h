/*
 * store_test.h — helpers shared by the store's tests: a scratch directory
 * removed at the end, and a game record filled with plausible values.
 *
 * The same tests run on SQLite and, as store_FEATURE_pg (tests/pg), on
 * PostgreSQL: when SUNGKA_TEST_PG_URL_FILE names the file with a server's URL,
 * open_memory() opens a fresh database of that server instead of ":memory:",
 * and test_db_path() names a database after a path instead of the file, so
 * that closing and opening the same path again finds the same data. Every
 * database made so is dropped when the test program exits.
 */
#ifndef SUNGKA_STORE_TEST_H
#define SUNGKA_STORE_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <ftw.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store.h"

/* mkdtemp under $TMPDIR (or /tmp); the path goes into dir[256]. */
static inline void scratch_dir(char dir[256])
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, 256, "%s/sungka-store-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
}

static inline int remove_entry(const char *path, const struct stat *sb, int flag,
                               struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag == FTW_DP)
        chmod(path, 0700);   /* a directory a test made read-only */
    return remove(path);
}

/* rm -r of a scratch directory. */
static inline void scratch_remove(const char *dir)
{
    char top[256];
    snprintf(top, sizeof top, "%s", dir);
    chmod(top, 0700);
    assert_int_equal(nftw(top, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* --- PostgreSQL ------------------------------------------------------- */

static inline bool test_is_pg_url(const char *path)
{
    return strncmp(path, "postgresql://", 13) == 0 || strncmp(path, "postgres://", 11) == 0;
}

/* The server's URL (postgresql://USER@HOST:PORT/DBNAME) from the file that
 * SUNGKA_TEST_PG_URL_FILE names, or NULL when it is unset: SQLite then. */
static inline const char *test_pg_url(void)
{
    static char url[512];
    static int state;                  /* 0: not read yet, 1: PostgreSQL, -1: SQLite */
    if (state == 0) {
        const char *file = getenv("SUNGKA_TEST_PG_URL_FILE");
        if (!file || !file[0]) {
            state = -1;
            return NULL;
        }
        /* Every test fails without it, never falls back to SQLite. */
        FILE *f = fopen(file, "r");
        if (!f)
            fail_msg("cannot read SUNGKA_TEST_PG_URL_FILE=%s: %s (the fixture pg_start "
                     "writes it)", file, strerror(errno));
        bool got = fgets(url, sizeof url, f) != NULL;
        fclose(f);
        url[strcspn(url, "\r\n")] = '\0';
        if (!got || !test_is_pg_url(url))
            fail_msg("SUNGKA_TEST_PG_URL_FILE=%s holds no postgresql:// URL", file);
        state = 1;
    }
    return state > 0 ? url : NULL;
}

static inline bool test_on_pg(void)
{
    return test_pg_url() != NULL;
}

/* For a test about something PostgreSQL does not have (an SQLite file of
 * an older schema): skipped there, saying why. */
#define skip_on_pg(why) \
    do { \
        if (test_on_pg()) { \
            print_message("skipped on PostgreSQL: %s\n", why); \
            skip(); \
        } \
    } while (0)

/* The databases this program made, dropped when it exits. */
typedef struct test_pg_made {
    char names[64][64];
    int n;
    pid_t owner;                       /* not in a forked child */
} test_pg_made;

static inline test_pg_made *test_pg_made_list(void)
{
    static test_pg_made made;
    return &made;
}

/* The server's URL with database name instead of its own. */
static inline void test_pg_url_for(const char *name, char *out, size_t len)
{
    const char *url = test_pg_url();
    const char *host = strstr(url, "://");
    host = host ? host + 3 : url;
    size_t base = (size_t)(host - url) + strcspn(host, "/?");   /* scheme, user, host, port */
    const char *rest = url + base;
    if (*rest == '/')
        rest += 1 + strcspn(rest + 1, "?");                     /* the name */
    int n = snprintf(out, len, "%.*s/%s%s", (int)base, url, name, rest);
    if (n < 0 || (size_t)n >= len)
        fail_msg("the URL for %s is too long", name);
}

static inline void test_pg_quiet(void *user, const char *message)
{
    (void)user, (void)message;         /* "NOTICE: database ... does not exist, skipping" */
}

static inline void test_pg_drop_made(void)
{
    test_pg_made *m = test_pg_made_list();
    if (m->n == 0 || getpid() != m->owner)
        return;
    PGconn *c = PQconnectdb(test_pg_url());
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "cannot drop the test databases: %s", PQerrorMessage(c));
    } else {
        PQsetNoticeProcessor(c, test_pg_quiet, NULL);
        for (int i = 0; i < m->n; i++) {
            char sql[128];
            /* FORCE: a store a failed test left open still holds a session */
            snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS \"%s\" WITH (FORCE)",
                     m->names[i]);
            PGresult *r = PQexec(c, sql);
            if (PQresultStatus(r) != PGRES_COMMAND_OK)
                fprintf(stderr, "%s: %s", sql, PQerrorMessage(c));
            PQclear(r);
        }
    }
    PQfinish(c);
}

/* Remember database name for dropping at exit. */
static inline void test_pg_made_now(const char *name)
{
    test_pg_made *m = test_pg_made_list();
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->names[i], name) == 0)
            return;
    assert_true(m->n < 64);
    if (m->n == 0 && m->owner == 0) {
        m->owner = getpid();
        atexit(test_pg_drop_made);
    }
    snprintf(m->names[m->n++], sizeof m->names[0], "%s", name);
}

/* A database the test may close and open again by its path: the file
 * dir/file on SQLite; on PostgreSQL the database named after that path
 * ("sungka_f_" and a hash of it: a scratch directory's path is new each run),
 * made by the first store_open. Returns out. */
static inline const char *test_db_path(const char *dir, const char *file, char *out, size_t len)
{
    char path[512];
    int n = snprintf(path, sizeof path, "%s/%s", dir, file);
    if (n < 0 || (size_t)n >= sizeof path)
        fail_msg("the path %s/%s is too long", dir, file);
    if (!test_on_pg()) {
        n = snprintf(out, len, "%s", path);
        if (n < 0 || (size_t)n >= len)
            fail_msg("the path %s is too long", path);
        return out;
    }
    uint64_t h = 14695981039346656037u;                 /* FNV-1a */
    for (const char *p = path; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    char name[64];
    snprintf(name, sizeof name, "sungka_f_%016llx", (unsigned long long)h);
    test_pg_made_now(name);
    test_pg_url_for(name, out, len);
    return out;
}

/* Statements run behind the store's back on the database at path (a file,
 * or a PostgreSQL URL from test_db_path), in its own dialect: sqlite_sql on
 * SQLite, pg_sql on PostgreSQL. */
static inline void test_sql_exec(const char *path, const char *sqlite_sql, const char *pg_sql)
{
    if (test_is_pg_url(path)) {
        PGconn *c = PQconnectdb(path);
        if (PQstatus(c) != CONNECTION_OK)
            fail_msg("cannot connect to %s: %s", path, PQerrorMessage(c));
        PGresult *r = PQexec(c, pg_sql);
        if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
            fail_msg("%s: %s", pg_sql, PQerrorMessage(c));
        PQclear(r);
        PQfinish(c);
        return;
    }
    sqlite3 *db;
    char *msg = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    if (sqlite3_exec(db, sqlite_sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sqlite_sql, msg ? msg : "?");
    sqlite3_close(db);
}

/* The first column of the first row of a query, as test_sql_exec runs it. */
static inline int64_t test_sql_int(const char *path, const char *sqlite_sql, const char *pg_sql)
{
    int64_t v;
    if (test_is_pg_url(path)) {
        PGconn *c = PQconnectdb(path);
        if (PQstatus(c) != CONNECTION_OK)
            fail_msg("cannot connect to %s: %s", path, PQerrorMessage(c));
        PGresult *r = PQexec(c, pg_sql);
        if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) < 1)
            fail_msg("%s: %s", pg_sql, PQerrorMessage(c));
        v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        PQclear(r);
        PQfinish(c);
        return v;
    }
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sqlite_sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* A store that keeps nothing: ":memory:" on SQLite, a fresh database of the
 * server on PostgreSQL (sungka_t_PID_N_RANDOM, dropped at exit). */
/* How many times s waited for its database server so far (store_waits;
 * 0 on SQLite): a pipelined turn is one. */
static inline uint64_t test_round_trips(store *s)
{
    uint64_t trips;
    double seconds;
    store_waits(s, &trips, &seconds);
    return trips;
}

static inline store *open_memory(void)
{
    store *s = NULL;
    char err[512] = "", url[600];
    const char *path = ":memory:";
    if (test_on_pg()) {
        static unsigned made;
        uint32_t rnd = 0;
        if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
            rnd = (uint32_t)time(NULL);
        char name[64];
        snprintf(name, sizeof name, "sungka_t_%ld_%u_%08x", (long)getpid(), ++made,
                 (unsigned)rnd);
        test_pg_made_now(name);
        test_pg_url_for(name, url, sizeof url);
        path = url;
    }
    int rc = store_open(path, &s, err, sizeof err);
    if (rc != 0)
        fail_msg("store_open(%s): %s", path, err);
    assert_non_null(s);
    return s;
}

/* A game `id` of `kind` with `seats` seats, created and stored. */
static inline void make_game(store *s, const char *id, const char *kind, int seats)
{
    store_game_info g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "%s", id);
    snprintf(g.kind, sizeof g.kind, "%s", kind);
    snprintf(g.title, sizeof g.title, "%s game %s", kind, id);
    g.n_options = 2;
    snprintf(g.options[0].name, sizeof g.options[0].name, "cups");
    g.options[0].value = 7;
    snprintf(g.options[1].name, sizeof g.options[1].name, "stones");
    g.options[1].value = 5;
    g.autostart = true;
    g.seats = seats;
    g.status = STORE_WAITING;
    g.created_ms = 1700000000000 + atoi(id);
    if (store_game_create(s, &g) != 0)
        fail_msg("store_game_create(%s): %s", id, store_last_error(s));
}

/* Register an account for name (its key, skeleton and look the name itself:
 * the store only keeps them); returns its id, and whether it claimed
 * statistics. */
static inline int64_t make_account(store *s, const char *name, bool *claimed)
{
    store_account a = {.created_ms = 1};
    snprintf(a.name, sizeof a.name, "%s", name);
    snprintf(a.name_key, sizeof a.name_key, "%s", name);
    snprintf(a.skeleton, sizeof a.skeleton, "%s", name);
    snprintf(a.look, sizeof a.look, "%s", name);
    snprintf(a.password_hash, sizeof a.password_hash, "$argon2id$not-a-real-hash");
    if (store_account_create(s, &a, claimed) != 0)
        fail_msg("store_account_create(%s): %s", name, store_last_error(s));
    return a.id;
}

/* What undoes one migration (store_sqlite.c's migrations[]), to make a file
 * as an older service left it behind and test the way up from there; undo
 * the newest first, then set PRAGMA user_version. */
/* The schema version a fresh file gets (the number of migrations). */
#define STORE_TEST_VERSION 14
#define STORE_TEST_UNDO_14 /* games' tournaments */ "ALTER TABLE games DROP COLUMN tournament_id;"
#define STORE_TEST_UNDO_13 /* tournaments */ "DROP TABLE tournaments;"
#define STORE_TEST_UNDO_10 /* the operator's bans, audit log and reset codes */ \
    "DROP TABLE reset_codes; DROP TABLE admin_actions; DROP TABLE bans;"
#define STORE_TEST_UNDO_12 /* the engine's reviews */ "DROP TABLE analyses;"
#define STORE_TEST_UNDO_11 /* blocks and reports */ \
    "DROP TABLE blocks; DROP TABLE reports;"
#define STORE_TEST_UNDO_9 /* accounts' looks */ \
    "DROP INDEX accounts_by_look; ALTER TABLE accounts DROP COLUMN look;"
#define STORE_TEST_UNDO_8 /* rated games that do not count */ \
    "DROP INDEX rated_seats_by_account; ALTER TABLE games DROP COLUMN unrated;" \
    "ALTER TABLE participants DROP COLUMN host;"
#define STORE_TEST_UNDO_7 /* bots taking seats over */ \
    "ALTER TABLE games DROP COLUMN bot_takes_over; ALTER TABLE games DROP COLUMN bot_level;"
#define STORE_TEST_UNDO_6 /* ratings */ \
    "DROP TABLE rating_history; DROP TABLE ratings; DROP TABLE rated_seats;" \
    "ALTER TABLE games DROP COLUMN rated;"
#define STORE_TEST_UNDO_5 /* accounts */ \
    "DROP INDEX players_by_account; DROP INDEX players_ranked;" \
    "ALTER TABLE players DROP COLUMN account_id; ALTER TABLE results DROP COLUMN account_id;" \
    "ALTER TABLE participants DROP COLUMN account_id;" \
    "DROP TABLE sessions; DROP TABLE accounts;"
#define STORE_TEST_UNDO_4 /* time controls */ \
    "ALTER TABLE games DROP COLUMN per_move_ms; ALTER TABLE games DROP COLUMN base_ms;" \
    "ALTER TABLE games DROP COLUMN increment_ms;"
#define STORE_TEST_UNDO_3 /* event formats */ "ALTER TABLE events DROP COLUMN format;"
#define STORE_TEST_BACK_TO_2 STORE_TEST_UNDO_14 STORE_TEST_UNDO_13 STORE_TEST_UNDO_12 STORE_TEST_UNDO_11 STORE_TEST_UNDO_10 STORE_TEST_UNDO_9 \
    STORE_TEST_UNDO_8 STORE_TEST_UNDO_7 STORE_TEST_UNDO_6 STORE_TEST_UNDO_5 STORE_TEST_UNDO_4 \
    STORE_TEST_UNDO_3

#define assert_ok(s, call) \
    do { \
        if ((call) != 0) \
            fail_msg("%s: %s", #call, store_last_error(s)); \
    } while (0)

#endif /* SUNGKA_STORE_TEST_H */
