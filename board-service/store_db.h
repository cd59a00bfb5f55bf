/*
 * store_db.h — the databases under the store: one small statement interface
 * that SQLite (store_sqlite.c, the embedded default) and PostgreSQL
 * (store_pg.c, a shared server for a cluster) both provide.
 *
 * store.c keeps everything the store means: checks of its arguments, the SQL
 * of every statement, transactions, what a row says. A driver only opens a
 * database with the current schema and runs statements on it, so the same
 * code, the same SQL and the same tests serve both.
 *
 * SQL is written once, in the subset both understand, with numbered
 * parameters ?1 .. ?N (the PostgreSQL driver rewrites them to $1 .. $N);
 * store.c holds the few statements whose spelling must differ.
 *
 * Threads and ownership
 *   A db and its statements belong to the thread of the store that opened
 *   them (store.h). A statement is prepared once and kept until db close;
 *   db_close finalizes every statement it prepared.
 *   Values bound to a statement are borrowed until its next db_reset (or the
 *   step that runs it, for PostgreSQL): the caller keeps them alive that
 *   long. Column values a step returns are owned by the statement and valid
 *   until its next step or reset.
 */
#ifndef SUNGKA_STORE_DB_H
#define SUNGKA_STORE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct db db;
typedef struct db_stmt db_stmt;

enum db_dialect { DB_SQLITE, DB_POSTGRES };

/* What db_step returns. */
enum { DB_FAILED = -1, DB_DONE = 0, DB_ROW = 1 };

/* What landed returns while a COMMIT is still on its way. */
enum { DB_FLYING = 2 };

typedef struct db_driver {
    enum db_dialect dialect;
    /* sql with parameters ?1 .. ?N; NULL on failure (db_errmsg says why) */
    db_stmt *(*prepare)(db *d, const char *sql);
    void (*bind_text)(db_stmt *st, int i, const char *v);
    void (*bind_int64)(db_stmt *st, int i, int64_t v);
    void (*bind_double)(db_stmt *st, int i, double v);
    void (*bind_blob)(db_stmt *st, int i, const void *v, size_t len);
    void (*bind_null)(db_stmt *st, int i);
    /* The first step runs the statement; each next one moves to the next
     * row. DB_ROW, DB_DONE (no more rows, or a statement without rows), or
     * DB_FAILED. */
    int (*step)(db_stmt *st);
    /* Forget the rows and the bound values; the statement can run again. */
    void (*reset)(db_stmt *st);
    /* Columns of the current row, from 0. SQL NULL reads 0, "" or an empty
     * blob. */
    int64_t (*col_int64)(db_stmt *st, int col);
    double (*col_double)(db_stmt *st, int col);
    const char *(*col_text)(db_stmt *st, int col);
    const void *(*col_blob)(db_stmt *st, int col, size_t *len);
    /* Rows the last statement that ran on d inserted, updated or deleted. */
    int64_t (*changes)(db *d);
    /* Statements without parameters, separated by ';'. 0 or -1. */
    int (*exec)(db *d, const char *sql);
    bool (*in_transaction)(db *d);
    /* The last failure was a UNIQUE (or primary key) constraint. */
    bool (*unique_violation)(db *d);
    /* One line: the database's message for the last failure. */
    const char *(*errmsg)(db *d);
    /* Test hook: checkpoints run by a thread of the driver (0: none). */
    unsigned long (*checkpoints)(db *d);
    /* Which history of the database the current connection is on, as read
     * when it was made: a server's identity and timeline, so that a
     * database restored or failed over to a standby (which may have gone
     * back in time) reads differently from the one before. "" when the
     * database cannot say (SQLite: one file, one history). */
    const char *(*history)(db *d);
    /* A pipelined transaction (PostgreSQL; NULL where a statement costs no
     * round trip, as SQLite's): pipeline opens a transaction whose BEGIN,
     * and every statement given to defer, go out without waiting for their
     * answers; a statement stepped meanwhile waits for its own answer and
     * theirs (one round trip), the COMMIT or ROLLBACK ends it. 0 or -1. */
    int (*pipeline)(db *d);
    bool (*piping)(db *d);
    /* Send st with its bound values (copied: the caller may reset it at
     * once). Its answer is read at the next wait: a failure then is that
     * statement's failure (and aborts the rest of the transaction); when
     * expect_one and it touched or returned other than one row, tag is
     * among misses. 0, or -1 when it could not be sent. */
    int (*defer)(db_stmt *st, bool expect_one, uint64_t tag);
    /* The tags of the misses of the last COMMIT landed; kept until the
     * next one lands. Their count. */
    int (*misses)(db *d, const uint64_t **tags);
    /* The pipelined transaction's COMMIT, sent without waiting for its
     * answer (NULL: the driver commits by stepping a COMMIT, as SQLite):
     * the transaction is no longer open, and the next one may be pipelined
     * behind it at once. 0, or -1 when it could not be sent (nothing of the
     * transaction is stored). At most one is on its way: landed takes its
     * outcome before the next is sent. */
    int (*commit_send)(db *d);
    /* The outcome of the COMMIT sent, once all its answers are in: 0
     * committed, -1 not (the transaction is rolled back, errmsg says why;
     * one pipelined behind it must be rolled back too: it may have begun in
     * the failed one); DB_FLYING while they are not,
     * after waiting up to wait_ms for them (0: not at all; -1: until they
     * are, within the driver's deadline for an answer). Anything else that
     * waits on the connection reads them first and keeps the outcome for
     * landed. Its misses are then misses'. */
    int (*landed)(db *d, int wait_ms);
    /* Send what the pipeline holds back (statements deferred behind a
     * COMMIT on its way), so that the server runs them as soon as that
     * COMMIT is done rather than when the next wait sends them. */
    void (*flush)(db *d);
    /* How many times the connection waited for the server (NULL: never). */
    unsigned long (*round_trips)(db *d);
    /* Seconds the connection's thread spent blocked waiting for the server. */
    double (*waited)(db *d);
    /* Roll back what is open, finalize the statements, disconnect, free. */
    void (*close)(db *d);
} db_driver;

/* The first member of every driver's connection and statement. */
struct db {
    const db_driver *drv;
    /* What opening did that the operator should hear of, one sentence (""
     * when nothing): the backup taken before a migration (store_open_notice). */
    char notice[1536];
};
struct db_stmt {
    db *d;
};

/* Open the embedded database at path (a file or ":memory:"), creating or
 * migrating its schema, locked for this process (store.h, store_open).
 * err gets the whole sentence on failure. */
int db_sqlite_open(const char *path, db **out, char *err, size_t errlen);
/* Open an existing file read-only, without its lock: nothing is created or
 * migrated (store.h, store_open_readonly). */
int db_sqlite_open_readonly(const char *path, db **out, char *err, size_t errlen);
/* SQLite's integrity check of a file (store.h, store_check). */
int db_sqlite_check(const char *path, void (*problem)(void *user, const char *text),
                    void *user, char *err, size_t errlen);

/* Connect to the PostgreSQL database named by a libpq URI
 * ("postgresql://user@host:port/dbname?..."), creating or migrating the
 * schema. err gets the whole sentence on failure; it never repeats the
 * password the URI may carry. */
int db_pg_open(const char *uri, db **out, char *err, size_t errlen);
/* Whether path names a PostgreSQL database ("postgresql://", "postgres://"). */
bool db_is_pg_uri(const char *path);

static inline db_stmt *db_prepare(db *d, const char *sql) { return d->drv->prepare(d, sql); }
static inline void db_bind_text(db_stmt *st, int i, const char *v) { st->d->drv->bind_text(st, i, v); }
static inline void db_bind_int64(db_stmt *st, int i, int64_t v) { st->d->drv->bind_int64(st, i, v); }
static inline void db_bind_double(db_stmt *st, int i, double v) { st->d->drv->bind_double(st, i, v); }
static inline void db_bind_blob(db_stmt *st, int i, const void *v, size_t len)
{
    st->d->drv->bind_blob(st, i, v, len);
}
static inline void db_bind_null(db_stmt *st, int i) { st->d->drv->bind_null(st, i); }
static inline int db_step(db_stmt *st) { return st->d->drv->step(st); }
static inline void db_reset(db_stmt *st) { st->d->drv->reset(st); }
static inline int64_t db_col_int64(db_stmt *st, int col) { return st->d->drv->col_int64(st, col); }
static inline int db_col_int(db_stmt *st, int col) { return (int)st->d->drv->col_int64(st, col); }
static inline double db_col_double(db_stmt *st, int col) { return st->d->drv->col_double(st, col); }
static inline const char *db_col_text(db_stmt *st, int col) { return st->d->drv->col_text(st, col); }
static inline const void *db_col_blob(db_stmt *st, int col, size_t *len)
{
    return st->d->drv->col_blob(st, col, len);
}
static inline int64_t db_changes(db *d) { return d->drv->changes(d); }
static inline int db_exec(db *d, const char *sql) { return d->drv->exec(d, sql); }
static inline bool db_in_transaction(db *d) { return d->drv->in_transaction(d); }
static inline bool db_unique_violation(db *d) { return d->drv->unique_violation(d); }
static inline const char *db_errmsg(db *d) { return d->drv->errmsg(d); }
static inline const char *db_history(db *d) { return d->drv->history(d); }
static inline void db_close(db *d) { if (d) d->drv->close(d); }
static inline bool db_can_pipeline(db *d) { return d->drv->pipeline != NULL; }
static inline bool db_piping(db *d) { return d->drv->piping && d->drv->piping(d); }

#endif /* SUNGKA_STORE_DB_H */
