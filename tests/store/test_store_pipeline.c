/*
 * test_store_pipeline.c — a loop turn's deferred writes in one round trip
 * (store_turn_begin, store_defer; store.h): on PostgreSQL the turn's BEGIN,
 * its deferred event appends and its COMMIT wait for the server once; an
 * append the database holds back (a hole in the log) writes nothing, is
 * told by its tag, and the turn's other appends commit; a deferred write
 * that fails fails the whole turn, nothing of it stored; a session killed
 * between the turn's writes and its COMMIT's answer refuses the turn,
 * nothing of it visible, and the next turn works on a new session.
 * A turn's COMMIT on its way (store_commit_send) while the next turn is
 * written behind it: each lands on its own, with its own misses; a commit
 * held by another session's lock is told as on its way, not waited for;
 * one that fails, or whose session is killed before it lands, takes the
 * turn begun behind it down too, and the store goes on.
 * PostgreSQL only (store_pipeline_pg): SQLite has no round trips to save.
 */
#include "store_test.h"

#include <errno.h>
#include <signal.h>
#include <sys/types.h>

#define assert_ok(s, call) \
    do { \
        if ((call) != 0) \
            fail_msg("%s: %s", #call, store_last_error(s)); \
    } while (0)

static int64_t count_events(const char *url, const char *game)
{
    char pg[160];
    snprintf(pg, sizeof pg, "SELECT count(*) FROM events WHERE game_id = '%s'", game);
    return test_sql_int(url, pg, pg);
}

/* The sessions on url's database but the asking one's own: the store's. */
#define OTHER_SESSIONS \
    " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"

/* Kill the store's session from outside (as a server restart or an
 * operator would); with until_gone, wait till its backend process has
 * exited, so that its goodbye and the socket's end are at the store's side
 * before its next statement. (Gone from pg_stat_activity is not enough:
 * the backend leaves it before it exits and closes the socket, and a store
 * asked in between still finds its connection open: a CI run failed so.)
 * The tests' PostgreSQL runs on this machine (tests/pg). */
static void kill_store_session(const char *url, bool until_gone)
{
    pid_t backend = (pid_t)test_sql_int(url, "SELECT 0", "SELECT pid" OTHER_SESSIONS);
    assert_true(backend > 0);
    assert_int_equal(test_sql_int(url, "SELECT 1",
                                  "SELECT count(pg_terminate_backend(pid))" OTHER_SESSIONS),
                     1);
    for (int tries = 0; until_gone && tries < 500 &&
                        (kill(backend, 0) == 0 || errno != ESRCH);
         tries++)
        usleep(10000);
}

struct fixture {
    char dir[256];
    char url[600];
    store *s;
};

static int setup(void **state)
{
    if (!test_on_pg())
        return 0;
    struct fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    scratch_dir(f->dir);
    test_db_path(f->dir, "pipeline", f->url, sizeof f->url);
    char err[512] = "";
    if (store_open(f->url, &f->s, err, sizeof err) != 0)
        fail_msg("store_open: %s", err);
    for (int g = 1; g <= 3; g++) {
        char id[8];
        snprintf(id, sizeof id, "%d", g);
        make_game(f->s, id, "kalah", 2);
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    if (!f)
        return 0;
    store_close(f->s);
    scratch_remove(f->dir);
    free(f);
    return 0;
}

#define NEEDS_PG() \
    do { \
        if (!test_on_pg()) { \
            print_message("skipped on SQLite: it has no round trips to pipeline\n"); \
            skip(); \
        } \
    } while (0)

/* One deferred append of turn `tag` to game id. */
static void append_deferred(store *s, uint64_t tag, const char *id, uint64_t seq)
{
    assert_true(store_defer(s, tag));
    assert_ok(s, store_event_append(s, id, seq, 1, 0, 0, 1, "m", 1));
    store_defer(s, 0);
}

/* A turn of one deferred append, event seq of game id, that commits. */
static void turn_commits(store *s, const char *id, uint64_t seq)
{
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 1, id, seq);
    assert_ok(s, store_commit(s));
}

/* Three games' moves, one round trip; the turn's events are all stored. */
static void test_one_round_trip(void **state)
{
    NEEDS_PG();
    struct fixture *f = *state;
    store *s = f->s;
    for (int turn = 0; turn < 3; turn++) {
        uint64_t before = test_round_trips(s);
        assert_ok(s, store_turn_begin(s));
        for (int g = 1; g <= 3; g++) {
            char id[8];
            snprintf(id, sizeof id, "%d", g);
            store_defer(s, (uint64_t)g);        /* the round trips below tell */
            assert_ok(s, store_game_fence(s, id));           /* no cluster: nothing sent */
            assert_ok(s, store_event_append(s, id, (uint64_t)turn + 1, 1000 + turn, 0, 0, 1,
                                            "move", 4));
            store_defer(s, 0);
        }
        assert_ok(s, store_commit(s));
        /* The first turn prepares BEGIN and the insert (once per session). */
        if (turn > 0)
            assert_int_equal(test_round_trips(s) - before, 1);
        for (uint64_t g = 1; g <= 3; g++)
            assert_int_equal(store_turn_missed(s, g), 0);
    }
    assert_int_equal(count_events(f->url, "1"), 3);
    assert_int_equal(count_events(f->url, "3"), 3);
}

/* An append behind a hole writes nothing and is told by its tag; the
 * others commit. A deferred append that fails (no such game) fails the
 * whole turn, and the store goes on. */
static void test_miss_and_failure(void **state)
{
    NEEDS_PG();
    struct fixture *f = *state;
    store *s = f->s;
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 7, "1", 1);
    append_deferred(s, 8, "2", 5);              /* 2..4 missing */
    assert_ok(s, store_commit(s));
    assert_int_equal(store_turn_missed(s, 7), 0);
    assert_int_equal(store_turn_missed(s, 8), STORE_BEHIND);
    assert_non_null(strstr(store_last_error(s), "gone back in time"));
    assert_int_equal(count_events(f->url, "1"), 1);
    assert_int_equal(count_events(f->url, "2"), 0);

    /* A failure among the deferred: nothing of the turn is stored. */
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 1, "1", 2);
    append_deferred(s, 2, "99", 1);             /* foreign key: fails */
    append_deferred(s, 3, "3", 1);
    assert_int_equal(store_commit(s), -1);
    assert_non_null(strstr(store_last_error(s), "cannot commit"));
    assert_int_equal(count_events(f->url, "1"), 1);
    assert_int_equal(count_events(f->url, "3"), 0);

    /* The next turn begins and commits: nothing was left open. */
    turn_commits(s, "1", 2);
    assert_int_equal(count_events(f->url, "1"), 2);
}

/* The session killed after the turn's writes went out, before its COMMIT
 * was answered: the commit fails, nothing of the turn is visible, and the
 * next turn runs on a new session. */
static void test_session_killed(void **state)
{
    NEEDS_PG();
    struct fixture *f = *state;
    store *s = f->s;
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 1, "1", 1);
    append_deferred(s, 2, "2", 1);
    kill_store_session(f->url, false);
    assert_int_equal(store_commit(s), -1);
    assert_int_equal(count_events(f->url, "1"), 0);
    assert_int_equal(count_events(f->url, "2"), 0);

    turn_commits(s, "1", 1);
    assert_int_equal(count_events(f->url, "1"), 1);

    /* Killed between two turns, while idle: the next turn connects again
     * and commits, as a BEGIN outside a pipeline runs again on a new
     * session. */
    kill_store_session(f->url, true);
    assert_ok(s, store_turn_begin(s));
    assert_ok(s, store_event_append(s, "1", 2, 1, 0, 0, 1, "b", 1));   /* the first: waits */
    append_deferred(s, 1, "2", 1);
    assert_ok(s, store_commit(s));
    assert_int_equal(count_events(f->url, "1"), 2);
    assert_int_equal(count_events(f->url, "2"), 1);
}

/* Another session holding the events table, so that a turn's writes wait
 * for it (as a frozen node's lock or a slow disk makes them). */
static PGconn *hold_events(const char *url)
{
    PGconn *c = PQconnectdb(url);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    PGresult *res = PQexec(c, "BEGIN; LOCK TABLE events IN EXCLUSIVE MODE");
    assert_int_equal(PQresultStatus(res), PGRES_COMMAND_OK);
    PQclear(res);
    return c;
}

static void release_events(PGconn *c)
{
    PQclear(PQexec(c, "ROLLBACK"));
    PQfinish(c);
}


/* A turn's COMMIT sent, the next turn written behind it: each lands with
 * its own outcome and misses (the same tag in both), and a write of
 * another kind meanwhile reads the COMMIT's answer first and keeps it. */
static void test_commit_on_its_way(void **state)
{
    NEEDS_PG();
    struct fixture *f = *state;
    store *s = f->s;
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 7, "1", 1);
    append_deferred(s, 8, "2", 5);              /* a hole: held back */
    assert_ok(s, store_commit_send(s));
    assert_true(store_commit_in_flight(s));
    assert_int_equal(store_commit_send(s), -1);            /* one at a time */

    assert_ok(s, store_turn_begin(s));         /* behind it, in the same pipeline */
    append_deferred(s, 8, "1", 2);
    assert_ok(s, store_commit_landed(s, -1));
    assert_false(store_commit_in_flight(s));
    assert_int_equal(store_turn_missed(s, 7), 0);
    assert_int_equal(store_turn_missed(s, 8), STORE_BEHIND);
    assert_int_equal(count_events(f->url, "1"), 1);
    assert_ok(s, store_commit_send(s));
    assert_ok(s, store_commit_landed(s, -1));
    assert_int_equal(store_turn_missed(s, 8), 0);           /* this turn's 8 was stored */
    assert_int_equal(count_events(f->url, "1"), 2);
    assert_int_equal(count_events(f->url, "2"), 0);

    /* A write outside any turn while a COMMIT is on its way. */
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 1, "3", 1);
    assert_ok(s, store_commit_send(s));
    make_game(s, "4", "kalah", 2);
    assert_int_equal(count_events(f->url, "3"), 1);        /* landed: the write waited */
    assert_true(store_commit_in_flight(s));                 /* ... its outcome kept */
    assert_ok(s, store_commit_landed(s, 0));
}

/* A COMMIT held by another session's lock is on its way, told at once
 * without waiting; the next turn is written behind it meanwhile, and both
 * land once the lock goes. */
static void test_commit_held_by_a_lock(void **state)
{
    NEEDS_PG();
    struct fixture *f = *state;
    store *s = f->s;
    turn_commits(s, "3", 1);  /* its statements prepared: that takes hold_events' lock */
    PGconn *locker = hold_events(f->url);
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 1, "1", 1);
    assert_ok(s, store_commit_send(s));
    assert_int_equal(store_commit_landed(s, 0), STORE_IN_FLIGHT);
    assert_int_equal(store_commit_landed(s, 50), STORE_IN_FLIGHT);
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 1, "2", 1);
    release_events(locker);
    assert_ok(s, store_commit_landed(s, -1));
    assert_ok(s, store_commit(s));
    assert_int_equal(count_events(f->url, "1"), 1);
    assert_int_equal(count_events(f->url, "2"), 1);
}

/* A COMMIT whose turn failed (a write to no such game): it lands -1, and
 * the turn begun behind it, inside the failed transaction, fails too;
 * rolled back, the next turn commits. */
static void test_failed_commit_takes_the_next_turn(void **state)
{
    NEEDS_PG();
    struct fixture *f = *state;
    store *s = f->s;
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 1, "1", 1);
    append_deferred(s, 2, "99", 1);             /* foreign key: fails */
    assert_ok(s, store_commit_send(s));
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 1, "2", 1);
    assert_int_equal(store_commit_landed(s, -1), -1);
    assert_non_null(strstr(store_last_error(s), "cannot commit"));
    assert_int_equal(store_commit(s), -1);
    store_rollback(s);
    assert_int_equal(count_events(f->url, "1"), 0);
    assert_int_equal(count_events(f->url, "2"), 0);

    turn_commits(s, "1", 1);
    assert_int_equal(count_events(f->url, "1"), 1);
}

/* The session killed while a COMMIT waits for a lock, the next turn behind
 * it: the COMMIT lands -1 (the connection lost), nothing of either turn is
 * stored, and the next turn runs on a new session. */
static void test_session_killed_in_flight(void **state)
{
    NEEDS_PG();
    struct fixture *f = *state;
    store *s = f->s;
    turn_commits(s, "3", 1);  /* its statements prepared: that takes hold_events' lock */
    PGconn *locker = hold_events(f->url);
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 1, "1", 1);
    assert_ok(s, store_commit_send(s));
    assert_ok(s, store_turn_begin(s));
    append_deferred(s, 1, "2", 1);
    assert_int_equal(store_commit_landed(s, 20), STORE_IN_FLIGHT);
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT count(pg_terminate_backend(pid))" OTHER_SESSIONS
             " AND pid <> %d", PQbackendPID(locker));
    assert_int_equal(test_sql_int(f->url, "SELECT 1", sql), 1);
    assert_int_equal(store_commit_landed(s, -1), -1);
    assert_non_null(strstr(store_last_error(s), "cannot commit"));
    assert_int_equal(store_commit(s), -1);
    store_rollback(s);
    release_events(locker);
    assert_int_equal(count_events(f->url, "1"), 0);
    assert_int_equal(count_events(f->url, "2"), 0);

    turn_commits(s, "1", 1);
    assert_int_equal(count_events(f->url, "1"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_one_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_miss_and_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_session_killed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_on_its_way, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commit_held_by_a_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_commit_takes_the_next_turn, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_session_killed_in_flight, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
