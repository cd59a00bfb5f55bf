/*
 * test_store_social.c — players' blocks and reports in the store: a block
 * is its blocker's alone, kept once however often it is made, counted,
 * listed by name and removed; either direction counts for pairing; reports
 * keep what was said and from where, are counted per reporter since a time
 * (the service's rate) and listed newest first; and a database from before
 * them (schema 10) gains both tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store_test.h"

static void test_blocks(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t alice = make_account(s, "alice", NULL);
    int64_t bob = make_account(s, "bob", NULL);
    int64_t carol = make_account(s, "carol", NULL);
    int n = -1;
    assert_ok(s, store_block_count(s, alice, &n));
    assert_int_equal(n, 0);
    assert_int_equal(store_blocked_either(s, alice, bob), 0);

    assert_ok(s, store_block_put(s, alice, carol, 10));
    assert_ok(s, store_block_put(s, alice, bob, 20));
    assert_ok(s, store_block_put(s, alice, bob, 30));       /* again: kept once, the first */
    assert_int_equal(store_block_put(s, alice, alice, 40), -1);
    assert_ok(s, store_block_count(s, alice, &n));
    assert_int_equal(n, 2);
    assert_ok(s, store_block_count(s, bob, &n));
    assert_int_equal(n, 0);                                  /* the blocker's alone */

    store_block rows[4];
    assert_ok(s, store_blocks_of(s, alice, 4, rows, &n));
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].name, "bob");                /* by name */
    assert_int_equal(rows[0].account_id, bob);
    assert_int_equal(rows[0].created_ms, 20);
    assert_string_equal(rows[1].name, "carol");
    assert_ok(s, store_blocks_of(s, alice, 1, rows, &n));
    assert_int_equal(n, 1);

    assert_int_equal(store_blocked_either(s, alice, bob), 1);
    assert_int_equal(store_blocked_either(s, bob, alice), 1); /* either way round */
    assert_int_equal(store_blocked_either(s, bob, carol), 0);

    assert_ok(s, store_block_delete(s, alice, bob));
    assert_int_equal(store_block_delete(s, alice, bob), STORE_NOT_FOUND);
    assert_int_equal(store_blocked_either(s, alice, bob), 0);
    assert_ok(s, store_blocks_of(s, alice, 4, rows, &n));
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].name, "carol");
    store_close(s);
}

static void add_report(store *s, int64_t from, int64_t about, int64_t when, const char *game,
                       const char *reason, int64_t *id)
{
    store_report r = {.time_ms = when, .reporter_id = from, .reported_id = about};
    snprintf(r.game_id, sizeof r.game_id, "%s", game);
    snprintf(r.reason, sizeof r.reason, "%s", reason);
    snprintf(r.host, sizeof r.host, "ipv4:127.0.0.1");
    assert_ok(s, store_report_add(s, &r));
    assert_true(r.id > 0);
    *id = r.id;
}

static void test_reports(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t alice = make_account(s, "alice", NULL);
    int64_t bob = make_account(s, "bob", NULL);
    int64_t first, second, third;
    add_report(s, alice, bob, 1000, "g1", "rude in chat", &first);
    add_report(s, alice, bob, 2000, "", "again, no game", &second);
    add_report(s, bob, alice, 3000, "g2", "revenge", &third);
    assert_true(second > first && third > second);

    int n = -1;
    assert_ok(s, store_reports_since(s, alice, 0, &n));
    assert_int_equal(n, 2);
    assert_ok(s, store_reports_since(s, alice, 1500, &n));
    assert_int_equal(n, 1);
    assert_ok(s, store_reports_since(s, bob, 0, &n));
    assert_int_equal(n, 1);

    store_report rows[4];
    assert_ok(s, store_reports_list(s, 4, rows, &n));
    assert_int_equal(n, 3);
    assert_int_equal(rows[0].id, third);                     /* newest first */
    assert_string_equal(rows[0].reporter, "bob");
    assert_string_equal(rows[0].reported, "alice");
    assert_string_equal(rows[2].reason, "rude in chat");
    assert_string_equal(rows[2].game_id, "g1");
    assert_string_equal(rows[2].host, "ipv4:127.0.0.1");
    assert_int_equal(rows[2].time_ms, 1000);
    assert_string_equal(rows[1].game_id, "");
    assert_ok(s, store_reports_list(s, 2, rows, &n));
    assert_int_equal(n, 2);

    store_report bad = {.time_ms = 1, .reporter_id = alice, .reported_id = 0};
    snprintf(bad.reason, sizeof bad.reason, "x");
    assert_int_equal(store_report_add(s, &bad), -1);         /* nobody reported */
    bad.reported_id = bob;
    bad.reason[0] = '\0';
    assert_int_equal(store_report_add(s, &bad), -1);         /* no reason */
    store_close(s);
}

/* A file a service of schema 10 left gains the tables (SQLite only: the
 * other migrations' tests go down the same way). */
static void test_file_before_blocks_migrates(void **state)
{
    (void)state;
    if (test_on_pg())
        skip();
    char dir[256], path[512], err[512];
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/v10.db", dir);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    int64_t alice = make_account(s, "alice", NULL);
    int64_t bob = make_account(s, "bob", NULL);
    store_close(s);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, STORE_TEST_UNDO_14 STORE_TEST_UNDO_13 STORE_TEST_UNDO_12 STORE_TEST_UNDO_11 "PRAGMA user_version = 10", NULL, NULL,
                                  NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    assert_ok(s, store_block_put(s, alice, bob, 5));
    assert_int_equal(store_blocked_either(s, bob, alice), 1);
    store_close(s);
    scratch_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_reports),
        cmocka_unit_test(test_file_before_blocks_migrates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
