/*
 * test_store_lock.c — one database file, one store: a second open, from
 * this process or another, is refused with a sentence naming the file until
 * the first is closed or its process dies; the refusal leaves the first
 * store whole (its SQLite locks included), and other programs can still
 * read the file. ":memory:" takes no lock.
 */
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store_test.h"

static void expect_refused(const char *path)
{
    char err[512] = "", want[512];
    store *s = (store *)&s;    /* must be set to NULL */
    assert_int_equal(store_open(path, &s, err, sizeof err), -1);
    assert_null(s);
    snprintf(want, sizeof want, "the database %s is in use by another sungka-board", path);
    assert_string_equal(err, want);
}

static store *open_ok(const char *path)
{
    char err[512] = "";
    store *s = NULL;
    if (store_open(path, &s, err, sizeof err) != 0)
        fail_msg("store_open(%s): %s", path, err);
    return s;
}

/* How many POSIX (fcntl) locks this process holds, from /proc/locks. */
static int fcntl_locks_held(void)
{
    FILE *f = fopen("/proc/locks", "r");
    assert_non_null(f);
    char line[256], pid[32];
    snprintf(pid, sizeof pid, " %d ", (int)getpid());
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, "POSIX") && strstr(line, pid);
    fclose(f);
    return n;
}

static void test_second_open_in_this_process(void **state)
{
    (void)state;
    char dir[256], path[300];
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/one.db", dir);
    store *first = open_ok(path);
    make_game(first, "1", "kalah", 2);
    int locks = fcntl_locks_held();
    assert_true(locks > 0);           /* SQLite's own, in WAL mode */

    expect_refused(path);
    /* The refusal closed nothing of the file: SQLite's locks are all there
     * and the first store goes on writing. */
    assert_int_equal(fcntl_locks_held(), locks);
    make_game(first, "2", "kalah", 2);

    /* Another spelling of the same file is the same file. */
    char other[320];
    snprintf(other, sizeof other, "%s/./one.db", dir);
    expect_refused(other);

    store_close(first);
    store *again = open_ok(path);
    store_match_summary m;
    store_move *moves;
    int n;
    assert_int_equal(store_match(again, "2", &m, &moves, &n), 0);
    free(moves);
    store_close(again);
    scratch_remove(dir);
}

/* A child opens the store and waits; the parent is refused until the child
 * is killed (no store_close: the kernel lets go of the lock). */
static void test_other_process_and_its_death(void **state)
{
    (void)state;
    char dir[256], path[300];
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/two.db", dir);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* also when an assertion below fails */
        close(ready[0]);
        store *s;
        char err[512];
        char ok = store_open(path, &s, err, sizeof err) == 0 ? 'y' : 'n';
        if (write(ready[1], &ok, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(ready[1]);
    char ok = 0;
    assert_int_equal(read(ready[0], &ok, 1), 1);
    close(ready[0]);
    assert_int_equal(ok, 'y');

    expect_refused(path);
    /* Readers that are not stores (the sqlite3 program, a backup) are not
     * kept out: SQLite's locks and ours are independent. */
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "SELECT count(*) FROM games", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    assert_int_equal(kill(pid, SIGKILL), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    store_close(open_ok(path));
    scratch_remove(dir);
}

static void test_memory_takes_no_lock(void **state)
{
    (void)state;
    store *a = open_memory();
    store *b = open_memory();
    store_close(a);
    store_close(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_open_in_this_process),
        cmocka_unit_test(test_other_process_and_its_death),
        cmocka_unit_test(test_memory_takes_no_lock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
