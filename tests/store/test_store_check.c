/*
 * test_store_check.c — a damaged database: store_open refuses it with one
 * sentence saying what to do, and store_check (read-only, no lock) lists
 * SQLite's problems; a sound file opens and checks "ok", also while a store
 * holds it.
 */
#include <errno.h>
#include <unistd.h>

#include "store_test.h"

typedef struct problems {
    int n;
    char first[256];
} problems;

static void count_problem(void *user, const char *text)
{
    problems *p = user;
    if (p->n++ == 0)
        snprintf(p->first, sizeof p->first, "%s", text);
}

/* A file of many pages: games whose event logs fill several dozen. */
static void make_file(const char *path)
{
    store *s = NULL;
    char err[512];
    if (store_open(path, &s, err, sizeof err) != 0)
        fail_msg("store_open: %s", err);
    unsigned char blob[300];
    for (size_t i = 0; i < sizeof blob; i++)
        blob[i] = (unsigned char)(i * 31 + 7);
    for (int g = 1; g <= 8; g++) {
        char id[8];
        snprintf(id, sizeof id, "%d", g);
        make_game(s, id, "kalah", 2);
        for (int e = 1; e <= 30; e++)
            assert_ok(s, store_event_append(s, id, (uint64_t)e, 1700000000000 + e, 0, 0, 1, blob,
                                            sizeof blob));
    }
    store_close(s);
}

/* 4 KiB of noise (a fixed pattern) at the middle of the file. */
static void damage_middle(const char *path)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    assert_true(size >= 32 * 1024);
    assert_int_equal(fseek(f, size / 2 / 1024 * 1024, SEEK_SET), 0);
    for (int i = 0; i < 4096; i++)
        fputc((i * 7919 + 101) & 0xff, f);
    assert_int_equal(fclose(f), 0);
}

static void test_damaged_file(void **state)
{
    (void)state;
    char dir[256], path[300], err[1024] = "", want[1600];
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/games.db", dir);
    make_file(path);
    problems p = {0};
    assert_int_equal(store_check(path, count_problem, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 0);

    damage_middle(path);
    store *s = (store *)&s;
    assert_int_equal(store_open(path, &s, err, sizeof err), -1);
    assert_null(s);
    print_message("damaged: %s\n", err);
    snprintf(want, sizeof want, "the database %s is damaged (", path);
    assert_true(strncmp(err, want, strlen(want)) == 0);
    snprintf(want, sizeof want, "see what is wrong with 'sungka-board --db %s --check', save "
             "what can be saved with 'sqlite3 %s .recover | sqlite3 %s.recovered' and start "
             "with --db %s.recovered", path, path, path, path);
    assert_non_null(strstr(err, want));

    assert_int_equal(store_check(path, count_problem, &p, err, sizeof err), 1);
    print_message("first of %d problems: %s\n", p.n, p.first);
    assert_true(p.n >= 1);
    assert_non_null(strstr(p.first, "age"));   /* "Page N: ..." */
    scratch_remove(dir);
}

static void test_check_is_read_only(void **state)
{
    (void)state;
    char dir[256], path[300], err[1024] = "";
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/sound.db", dir);
    make_file(path);
    store *s = NULL;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    problems p = {0};
    /* The file of a running service can be checked: no lock is taken. */
    assert_int_equal(store_check(path, count_problem, &p, err, sizeof err), 0);
    store_close(s);

    /* A missing file is not created, and says so. */
    snprintf(path, sizeof path, "%s/missing.db", dir);
    assert_int_equal(store_check(path, count_problem, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, strerror(ENOENT)));
    assert_int_equal(access(path, F_OK), -1);

    /* Not a database at all: damaged, with SQLite's reason. */
    snprintf(path, sizeof path, "%s/junk.db", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < 4096; i++)
        fputc((i * 13 + 5) & 0xff, f);
    fclose(f);
    p.n = 0;
    assert_int_equal(store_check(path, count_problem, &p, err, sizeof err), 1);
    assert_non_null(strstr(p.first, "not a database"));
    scratch_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_damaged_file),
        cmocka_unit_test(test_check_is_read_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
