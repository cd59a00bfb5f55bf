/*
 * test_store_open.c — opening the store: the schema is created with its
 * version, kept across a reopen of the same file (in WAL mode), and bad
 * places give one clear sentence naming the path: a file that is not a
 * database, another program's database, a directory that cannot exist, a
 * directory without write permission. Also the default path.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store_test.h"

/* One integer from a query on a file, read with plain SQLite. */
static int peek_int(const char *path, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void test_create_and_reopen(void **state)
{
    (void)state;
    char dir[256], path[300], err[512] = "";
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/sungka.db", dir);

    store *s = NULL;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    assert_string_equal(store_last_error(s), "");
    make_game(s, "1", "sungka", 2);
    assert_ok(s, store_participant_put(s, "1", 1, "ana", 0, "00ff", false));
    store_close(s);

    /* The file is ours, at the current schema version, in WAL mode, private. */
    assert_int_equal(peek_int(path, "PRAGMA user_version"), STORE_TEST_VERSION);
    assert_int_equal(peek_int(path, "PRAGMA application_id"), 0x534e474b);
    assert_int_equal(peek_int(path, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'"
                                    " AND name IN ('games', 'game_options', 'participants',"
                                    " 'events', 'moves', 'results', 'players')"), 7);
    assert_int_equal(peek_int(path, "SELECT count(*) FROM games"), 1);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);

    /* Reopen: nothing rebuilt, nothing lost, the version kept. */
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    store_match_summary m;
    store_move *moves;
    int n;
    assert_int_equal(store_match(s, "1", &m, &moves, &n), 0);
    assert_string_equal(m.game.kind, "sungka");
    assert_int_equal(m.game.n_options, 2);
    free(moves);
    /* Creating the same game again is refused: it is still there. */
    store_game_info g = m.game;
    assert_int_equal(store_game_create(s, &g), -1);
    assert_non_null(strstr(store_last_error(s), "UNIQUE"));
    store_close(s);
    assert_int_equal(peek_int(path, "PRAGMA user_version"), STORE_TEST_VERSION);
    scratch_remove(dir);
}

static void test_journal_is_wal(void **state)
{
    (void)state;
    char dir[256], path[300], err[512] = "";
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/w.db", dir);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(db);
    store_close(s);
    scratch_remove(dir);
}

static void test_newer_schema_refused(void **state)
{
    (void)state;
    char dir[256], path[300], err[512] = "";
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/new.db", dir);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    store_close(s);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(store_open(path, &s, err, sizeof err), -1);
    assert_null(s);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "newer"));
    scratch_remove(dir);
}

static void test_corrupt_file(void **state)
{
    (void)state;
    char dir[256], path[300], err[512] = "";
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/garbage.db", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < 8192; i++)
        fputc((i * 7919 + 13) & 0xff, f);
    fclose(f);

    store *s = (store *)&s;   /* must be set to NULL */
    assert_int_equal(store_open(path, &s, err, sizeof err), -1);
    assert_null(s);
    print_message("corrupt: %s\n", err);
    assert_true(strncmp(err, "cannot open the database ", 25) == 0);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "not a database"));
    scratch_remove(dir);
}

static void test_other_programs_database(void **state)
{
    (void)state;
    char dir[256], path[300], err[512] = "";
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/other.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), -1);
    print_message("other: %s\n", err);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "another program"));
    scratch_remove(dir);
}

static void test_impossible_directory(void **state)
{
    (void)state;
    char dir[256], path[300], err[512] = "";
    scratch_dir(dir);
    /* A parent that is a regular file: no one, root included, can create it. */
    char file[280];
    snprintf(file, sizeof file, "%s/file", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(path, sizeof path, "%s/file/db", dir);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), -1);
    assert_null(s);
    print_message("impossible: %s\n", err);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, strerror(ENOTDIR)));

    /* A parent that does not exist. */
    snprintf(path, sizeof path, "%s/missing/db", dir);
    assert_int_equal(store_open(path, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, strerror(ENOENT)));
    scratch_remove(dir);
}

/* Open path in a child that runs as uid/gid 65534 ("nobody"), so that
 * permissions apply even when the tests run as root. The child's verdict is
 * its exit status: 0 the open failed naming the path and the reason, 1 it
 * failed some other way, 2 it succeeded, 3 privileges could not be dropped. */
static int open_as_nobody(const char *path)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (getuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 ||
                              setuid(65534) != 0))
            _exit(3);
        store *s;
        char err[512];
        if (store_open(path, &s, err, sizeof err) == 0)
            _exit(2);
        fprintf(stderr, "unwritable: %s\n", err);
        _exit(strstr(err, path) && strstr(err, strerror(EACCES)) ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void test_unwritable_directory(void **state)
{
    (void)state;
    char dir[256], path[300];
    scratch_dir(dir);
    assert_int_equal(chmod(dir, 0755), 0);    /* nobody may look inside */
    char ro[280];
    snprintf(ro, sizeof ro, "%s/ro", dir);
    assert_int_equal(mkdir(ro, 0555), 0);
    snprintf(path, sizeof path, "%s/db", ro);
    int verdict = open_as_nobody(path);
    scratch_remove(dir);
    if (verdict == 3) {
        print_message("cannot drop privileges here: permission case not tested\n");
        skip();
    }
    assert_int_equal(verdict, 0);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    char err[256];
    store *s;
    assert_int_equal(store_open("", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "empty"));
    assert_int_equal(store_open(NULL, &s, err, sizeof err), -1);
    assert_int_equal(store_open(":memory:", NULL, err, sizeof err), -1);
    store_close(NULL);
}

static void test_default_path(void **state)
{
    (void)state;
    char dir[256], out[512], want[512];
    scratch_dir(dir);
    char *old_xdg = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

    char xdg[300];
    snprintf(xdg, sizeof xdg, "%s/data/deeper", dir);
    setenv("XDG_DATA_HOME", xdg, 1);
    assert_int_equal(store_default_path(out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/sungka/sungka.db", xdg);
    assert_string_equal(out, want);
    struct stat sb;
    snprintf(want, sizeof want, "%s/sungka", xdg);
    assert_int_equal(stat(want, &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(sb.st_mode & 0777, 0700);
    /* The path is usable as it is. */
    store *s;
    char err[256];
    assert_int_equal(store_open(out, &s, err, sizeof err), 0);
    store_close(s);

    /* A relative XDG_DATA_HOME is ignored (the spec says so): HOME is used. */
    setenv("XDG_DATA_HOME", "relative/dir", 1);
    setenv("HOME", dir, 1);
    assert_int_equal(store_default_path(out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/.local/share/sungka/sungka.db", dir);
    assert_string_equal(out, want);
    unsetenv("XDG_DATA_HOME");
    assert_int_equal(store_default_path(out, sizeof out), 0);
    assert_string_equal(out, want);

    /* Too small a buffer, and a home under a regular file. */
    assert_int_equal(store_default_path(out, 10), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    char file[300];
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    setenv("HOME", file, 1);
    assert_int_equal(store_default_path(out, sizeof out), -1);
    assert_int_equal(errno, ENOTDIR);

    if (old_xdg)
        setenv("XDG_DATA_HOME", old_xdg, 1);
    if (old_home)
        setenv("HOME", old_home, 1);
    free(old_xdg);
    free(old_home);
    scratch_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_and_reopen),
        cmocka_unit_test(test_journal_is_wal),
        cmocka_unit_test(test_newer_schema_refused),
        cmocka_unit_test(test_corrupt_file),
        cmocka_unit_test(test_other_programs_database),
        cmocka_unit_test(test_impossible_directory),
        cmocka_unit_test(test_unwritable_directory),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_default_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
