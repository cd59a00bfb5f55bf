/*
 * test_session_store.c — the agent's saved sessions: one per server, found
 * again, replaced, dropped, and kept in a private file (0600).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "session_store.h"

static char tmp[64];

static int make_tmp(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/sungka-sessions-XXXXXX");
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

static void per_server(void **state)
{
    (void)state;
    char dir[128], path[160], name[64], token[96];
    snprintf(dir, sizeof dir, "%s/state", tmp);
    assert_int_equal(session_store_find(dir, "a:1", name, sizeof name, token, sizeof token), -1);
    assert_int_equal(session_store_put(dir, "a:1", "Alice", "sess_one"), 0);
    assert_int_equal(session_store_put(dir, "b:2", "bob", "sess_two"), 0);
    assert_int_equal(session_store_find(dir, "a:1", name, sizeof name, token, sizeof token), 0);
    assert_string_equal(name, "Alice");
    assert_string_equal(token, "sess_one");
    /* a:10 is another server, not a:1's prefix match */
    assert_int_equal(session_store_find(dir, "a:10", name, sizeof name, token, sizeof token),
                     -1);
    assert_int_equal(session_store_put(dir, "a:1", "Alice", "sess_three"), 0);   /* replaced */
    assert_int_equal(session_store_find(dir, "a:1", name, sizeof name, token, sizeof token), 0);
    assert_string_equal(token, "sess_three");
    session_store_drop(dir, "a:1");
    assert_int_equal(session_store_find(dir, "a:1", name, sizeof name, token, sizeof token), -1);
    assert_int_equal(session_store_find(dir, "b:2", name, sizeof name, token, sizeof token), 0);
    assert_string_equal(token, "sess_two");

    struct stat sb;
    snprintf(path, sizeof path, "%s/sessions", dir);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    /* tabs and newlines cannot be kept (they would make another line) */
    assert_int_equal(session_store_put(dir, "c:3", "a\tb", "sess_x"), -1);
    assert_int_equal(session_store_put("", "c:3", "carol", "sess_x"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(per_server, make_tmp, remove_tmp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
