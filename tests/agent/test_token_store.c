/*
 * test_token_store.c — the agent's saved seat tokens: found again, dropped,
 * kept in a private file (0600 in a 0700 directory) whatever the umask,
 * which stays as it was, and never written through a link left where its
 * temporary file goes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "token_store.h"

static char tmp[64];

static int make_tmp(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/sungka-tokens-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    return 0;
}

static int remove_tmp(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd);
}

static void put_find_drop(void **state)
{
    (void)state;
    char dir[128], token[80];
    int seat = -1;
    snprintf(dir, sizeof dir, "%s/a/b", tmp);          /* made with its parent */
    token_store_put(dir, "host:1", "7", "ana", 1, "secret-a");
    token_store_put(dir, "host:1", "7", "ben", 0, "secret-b");
    assert_int_equal(token_store_find(dir, "host:1", "7", "ana", token, sizeof token, &seat), 0);
    assert_string_equal(token, "secret-a");
    assert_int_equal(seat, 1);
    token_store_drop(dir, "host:1", "7", "ana");
    assert_int_equal(token_store_find(dir, "host:1", "7", "ana", token, sizeof token, &seat), -1);
    assert_int_equal(token_store_find(dir, "host:1", "7", "ben", token, sizeof token, &seat), 0);
    assert_string_equal(token, "secret-b");
    /* "" keeps nothing */
    token_store_put("", "host:1", "8", "cy", 0, "secret-c");
    assert_int_equal(token_store_find("", "host:1", "8", "cy", token, sizeof token, &seat), -1);
}

static void private_whatever_the_umask(void **state)
{
    (void)state;
    char dir[128], file[160];
    mode_t before = umask(0);      /* the loosest a user may have */
    snprintf(dir, sizeof dir, "%s/open", tmp);
    token_store_put(dir, "host:1", "7", "ana", 0, "secret");
    assert_int_equal(umask(before), 0);     /* left as it was */
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    snprintf(file, sizeof file, "%s/tokens", dir);
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
}

/* The default directory is the XDG state directory. */
static void default_directory(void **state)
{
    (void)state;
    char xdg[128], file[192], token[80];
    int seat;
    snprintf(xdg, sizeof xdg, "%s/state", tmp);
    setenv("XDG_STATE_HOME", xdg, 1);
    token_store_put(NULL, "host:1", "9", "dee", 2, "secret-d");
    snprintf(file, sizeof file, "%s/sungka/tokens", xdg);
    assert_int_equal(access(file, R_OK), 0);
    assert_int_equal(token_store_find(NULL, "host:1", "9", "dee", token, sizeof token, &seat), 0);
    assert_string_equal(token, "secret-d");
}

/* A link (or a stale file) where the temporary file goes: removed, and
 * what it points to is never written. */
static void no_writing_through_a_link(void **state)
{
    (void)state;
    char dir[128], victim[160], link_path[192], token[80];
    int seat;
    snprintf(dir, sizeof dir, "%s/links", tmp);
    snprintf(victim, sizeof victim, "%s/victim", tmp);
    FILE *f = fopen(victim, "w");
    assert_non_null(f);
    fputs("untouched\n", f);
    fclose(f);
    token_store_put(dir, "host:1", "7", "ana", 0, "first");     /* makes the directory */
    snprintf(link_path, sizeof link_path, "%s/tokens.%d", dir, (int)getpid());
    assert_int_equal(symlink(victim, link_path), 0);
    token_store_put(dir, "host:1", "7", "ben", 1, "second");
    assert_int_equal(token_store_find(dir, "host:1", "7", "ben", token, sizeof token, &seat), 0);
    assert_string_equal(token, "second");
    char line[64] = "";
    f = fopen(victim, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, "untouched\n");
    struct stat st;
    assert_int_equal(lstat(link_path, &st), -1);   /* renamed into place, nothing left */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(put_find_drop, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(private_whatever_the_umask, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(default_directory, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(no_writing_through_a_link, make_tmp, remove_tmp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
