/*
 * test_store_accounts.c — accounts in the store: a name's key and skeleton
 * are each one account's; registering claims the unclaimed statistics of
 * exactly that name, once; sessions are found by id, ended one by one, all
 * but one, or all, expire, and are trimmed to an account's newest; a participant's account survives recovery;
 * a database from before accounts migrates with its statistics
 * unclaimed; a name that looks like one registered, capitals included
 * ("aIice", "B0B"), is refused; and a database from before looks, holding
 * two accounts that look alike, is still read, both kept, their looks
 * filled in once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "accounts.h"
#include "store_test.h"

static void finish2(store *s, const char *id, const char *a, int64_t acct_a, const char *b,
                    int64_t acct_b)
{
    make_game(s, id, "kalah", 2);
    const char *names[2] = { a, b };
    int64_t accounts[2] = { acct_a, acct_b };
    int winners[1] = { 0 };
    assert_ok(s, store_game_finish(s, id, STORE_FINISHED, "done", 2, names, accounts, NULL,
                                   winners, 1, 100));
}

static void test_unique_name_and_skeleton(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t n = -1;
    assert_ok(s, store_account_count(s, &n));
    assert_int_equal(n, 0);
    store_account a = {.created_ms = 5};
    snprintf(a.name, sizeof a.name, "Alice");
    snprintf(a.name_key, sizeof a.name_key, "alice");
    snprintf(a.skeleton, sizeof a.skeleton, "alice");
    snprintf(a.look, sizeof a.look, "alice");
    snprintf(a.password_hash, sizeof a.password_hash, "$argon2id$h1");
    assert_ok(s, store_account_create(s, &a, NULL));
    assert_true(a.id > 0);

    store_account same_key = a, same_look = a;
    snprintf(same_key.skeleton, sizeof same_key.skeleton, "other");
    snprintf(same_key.look, sizeof same_key.look, "other");
    assert_int_equal(store_account_create(s, &same_key, NULL), STORE_TAKEN);
    snprintf(same_look.name_key, sizeof same_look.name_key, "\xd0\xb0lice");
    assert_int_equal(store_account_create(s, &same_look, NULL), STORE_TAKEN);
    assert_non_null(strstr(store_last_error(s), "looks like"));

    store_account got;
    assert_ok(s, store_account_count(s, &n));
    assert_int_equal(n, 1);                          /* the refused ones left nothing */
    assert_ok(s, store_account_find(s, "alice", &got));
    assert_string_equal(got.name, "Alice");          /* the display form, kept */
    assert_string_equal(got.password_hash, "$argon2id$h1");
    assert_int_equal(got.created_ms, 5);
    assert_ok(s, store_account_find_skeleton(s, "alice", &got));
    assert_int_equal(got.id, a.id);
    assert_ok(s, store_account_get(s, a.id, &got));
    assert_int_equal(store_account_find(s, "bob", &got), STORE_NOT_FOUND);
    assert_int_equal(store_account_find_skeleton(s, "bob", &got), STORE_NOT_FOUND);
    assert_int_equal(store_account_get(s, a.id + 1, &got), STORE_NOT_FOUND);

    assert_ok(s, store_account_set_password(s, a.id, "$argon2id$h2", 9));
    assert_ok(s, store_account_get(s, a.id, &got));
    assert_string_equal(got.password_hash, "$argon2id$h2");
    assert_int_equal(store_account_set_password(s, a.id + 1, "$argon2id$h3", 9), -1);
    store_close(s);
}

static void test_claim_exact_name_once(void **state)
{
    (void)state;
    store *s = open_memory();
    finish2(s, "1", "alice", 0, "Bob", 0);          /* guests, before the accounts */
    finish2(s, "2", "alice", 0, "bob", 0);
    bool claimed = true;
    /* "bob" claims the row of "bob", not the one of "Bob" */
    int64_t bob = make_account(s, "bob", &claimed);
    assert_true(claimed);
    store_stats st;
    assert_ok(s, store_player_stats(s, "bob", &st));
    assert_int_equal(st.account_id, bob);
    assert_int_equal(st.losses, 1);
    assert_ok(s, store_player_stats(s, "Bob", &st));
    assert_int_equal(st.account_id, 0);
    /* nobody played as carol: nothing to claim */
    make_account(s, "carol", &claimed);
    assert_false(claimed);
    /* from now on bob's games count for his account, under his name */
    finish2(s, "3", "bob", bob, "alice", 0);
    assert_ok(s, store_player_stats(s, "bob", &st));
    assert_int_equal(st.wins, 1);
    assert_int_equal(st.played, 2);
    int n = 0;
    store_stats top[4];
    assert_ok(s, store_leaderboard(s, 4, NULL, top, &n));
    assert_int_equal(n, 1);                          /* alice is a guest: not ranked */
    assert_string_equal(top[0].name, "bob");
    store_close(s);
}

static void test_sessions(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t ann = make_account(s, "ann", NULL), ben = make_account(s, "ben", NULL);
    store_session a1 = {.account_id = ann, .created_ms = 1, .expires_ms = 1000};
    store_session a2 = {.account_id = ann, .created_ms = 2, .expires_ms = 5000};
    store_session a3 = {.account_id = ann, .created_ms = 3, .expires_ms = 5000};
    store_session b1 = {.account_id = ben, .created_ms = 4, .expires_ms = 5000};
    store_session *all[] = { &a1, &a2, &a3, &b1 };
    for (int i = 0; i < 4; i++) {
        memset(all[i]->id, 'a' + i, sizeof all[i]->id);
        memset(all[i]->hash, 'A' + i, sizeof all[i]->hash);
        assert_ok(s, store_session_create(s, all[i]));
    }
    store_session got;
    assert_ok(s, store_session_find(s, a2.id, &got));
    assert_int_equal(got.account_id, ann);
    assert_memory_equal(got.hash, a2.hash, sizeof got.hash);
    assert_int_equal(got.expires_ms, 5000);
    uint8_t unknown[STORE_SESSION_ID_BYTES];
    memset(unknown, 'z', sizeof unknown);
    assert_int_equal(store_session_find(s, unknown, &got), STORE_NOT_FOUND);
    assert_int_equal(store_session_create(s, &(store_session){.account_id = 0}), -1);

    int n = -1;
    assert_ok(s, store_sessions_expire(s, 1000, &n));          /* a1 is over */
    assert_int_equal(n, 1);
    assert_int_equal(store_session_find(s, a1.id, &got), STORE_NOT_FOUND);
    assert_ok(s, store_sessions_delete_account(s, ann, a3.id, &n));   /* all but a3 */
    assert_int_equal(n, 1);
    assert_int_equal(store_session_find(s, a2.id, &got), STORE_NOT_FOUND);
    assert_ok(s, store_session_find(s, a3.id, &got));
    assert_ok(s, store_session_delete(s, a3.id));
    assert_int_equal(store_session_find(s, a3.id, &got), STORE_NOT_FOUND);
    assert_ok(s, store_session_delete(s, a3.id));               /* twice is fine */
    assert_ok(s, store_sessions_delete_account(s, ben, NULL, &n));
    assert_int_equal(n, 1);
    store_close(s);
}

/* An account keeps the newest of its sessions: the one just made whatever
 * its time, then the newest others; another account's are untouched. */
static void test_sessions_trimmed(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t ann = make_account(s, "ann", NULL), ben = make_account(s, "ben", NULL);
    store_session mine[6], bens = {.account_id = ben, .created_ms = 1, .expires_ms = 9000};
    memset(bens.id, 'z', sizeof bens.id);
    memset(bens.hash, 'Z', sizeof bens.hash);
    assert_ok(s, store_session_create(s, &bens));
    for (int i = 0; i < 6; i++) {
        /* the last is "older" by the clock (another node's, say) */
        mine[i] = (store_session){.account_id = ann, .created_ms = i == 5 ? 0 : 10 + i,
                                  .expires_ms = 9000};
        memset(mine[i].id, 'a' + i, sizeof mine[i].id);
        memset(mine[i].hash, 'A' + i, sizeof mine[i].hash);
        assert_ok(s, store_session_create(s, &mine[i]));
    }
    int n = -1;
    assert_ok(s, store_sessions_trim(s, ann, mine[5].id, 3, &n));
    assert_int_equal(n, 3);
    store_session got;
    for (int i = 0; i < 6; i++)        /* kept: 3 and 4, the newest others, and 5 */
        assert_int_equal(store_session_find(s, mine[i].id, &got), i >= 3 ? 0 : STORE_NOT_FOUND);
    assert_ok(s, store_session_find(s, bens.id, &got));
    assert_ok(s, store_sessions_trim(s, ann, mine[5].id, 1, &n));
    assert_int_equal(n, 2);
    assert_ok(s, store_session_find(s, mine[5].id, &got));
    assert_int_equal(store_sessions_trim(s, ann, mine[5].id, 0, &n), -1);
    store_close(s);
}

static char seen_host[STORE_HOST_BYTES];
static void on_account(void *user, const char *game_id, unsigned person_id, int64_t account,
                       const char *host)
{
    (void)game_id;
    int64_t *seen = user;
    seen[person_id] = account;
    snprintf(seen_host, sizeof seen_host, "%s", host);
}

static void test_participant_account_recovered(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t ann = make_account(s, "ann", NULL);
    make_game(s, "7", "kalah", 2);
    assert_ok(s, store_participant_put(s, "7", 1, "ann", 0, "aa", false));
    assert_ok(s, store_participant_put(s, "7", 2, "gus", 1, "bb", false));
    assert_ok(s, store_participant_account(s, "7", 1, ann, "ipv4:192.0.2.7"));
    assert_ok(s, store_participant_put(s, "7", 1, "ann", 0, "aa", true));  /* keeps it */
    assert_int_equal(store_participant_account(s, "7", 9, ann, ""), -1);
    char too_long[STORE_HOST_BYTES + 1];
    memset(too_long, 'a', STORE_HOST_BYTES);
    too_long[STORE_HOST_BYTES] = '\0';
    assert_int_equal(store_participant_account(s, "7", 1, ann, too_long), -1);
    int64_t seen[4] = { 0 };
    store_recovery_cb cb = { .account = on_account };
    assert_ok(s, store_recover(s, &cb, seen, NULL));
    assert_int_equal(seen[1], ann);
    assert_string_equal(seen_host, "ipv4:192.0.2.7");   /* where its seat was taken */
    assert_int_equal(seen[2], 0);                    /* a guest: no call */
    store_close(s);
}

/* An account as the service makes one (accounts.h), or STORE_TAKEN. */
static int register_name(store *s, const char *name, int64_t *id)
{
    accounts_name n;
    char why[128];
    if (accounts_name_prepare(name, &n, why, sizeof why) != ACCOUNTS_OK)
        fail_msg("'%s' refused: %s", name, why);
    store_account a = {.created_ms = 1};
    snprintf(a.name, sizeof a.name, "%s", n.display);
    snprintf(a.name_key, sizeof a.name_key, "%s", n.key);
    snprintf(a.skeleton, sizeof a.skeleton, "%s", n.skeleton);
    snprintf(a.look, sizeof a.look, "%s", n.look);
    snprintf(a.password_hash, sizeof a.password_hash, "$argon2id$not-a-real-hash");
    int rc = store_account_create(s, &a, NULL);
    if (id)
        *id = a.id;
    return rc;
}

static int find_like_name(store *s, const char *name, store_account *out)
{
    accounts_name n;
    char why[128];
    if (accounts_name_prepare(name, &n, why, sizeof why) != ACCOUNTS_OK)
        fail_msg("'%s' refused: %s", name, why);
    return store_account_find_like(s, n.skeleton, n.look, out);
}

static void test_capitals_look_alike(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t alice, bob, will;
    assert_int_equal(register_name(s, "alice", &alice), 0);
    assert_int_equal(register_name(s, "BOB", &bob), 0);
    assert_int_equal(register_name(s, "WILL", &will), 0);
    const struct { const char *name; int64_t *like; } refused[] = {
        {"aIice", &alice}, {"B0B", &bob}, {"b0b", &bob}, {"WlLL", &will}, {"wiII", &will},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        if (register_name(s, refused[i].name, NULL) != STORE_TAKEN)
            fail_msg("'%s' was registered beside a name it looks like", refused[i].name);
        assert_non_null(strstr(store_last_error(s), "looks like"));
        store_account got;
        assert_ok(s, find_like_name(s, refused[i].name, &got));
        assert_int_equal(got.id, *refused[i].like);
    }
    store_account got;
    assert_int_equal(find_like_name(s, "alicia", &got), STORE_NOT_FOUND);
    assert_int_equal(register_name(s, "alicia", NULL), 0);
    int64_t n = 0;
    assert_ok(s, store_account_count(s, &n));
    assert_int_equal(n, 4);
    assert_ok(s, store_account_get(s, alice, &got));
    assert_string_equal(got.look, "alice");
    store_close(s);
}

static int real_look(const char *name, char *look, size_t len, void *user)
{
    int *calls = user;
    (*calls)++;
    accounts_name n;
    char why[128];
    if (accounts_name_prepare(name, &n, why, sizeof why) != ACCOUNTS_OK)
        return -1;
    snprintf(look, len, "%s", n.look);
    return 0;
}

/* A database written before looks (SQLite schema 7, PostgreSQL 1) may hold
 * "alice" and "aIice" both: it opens, both accounts stay and sign in by
 * their own keys; the service's start fills their looks once; from then on
 * a name like either is refused and the older is the one it looks like. */
static void test_file_before_looks_migrates(void **state)
{
    (void)state;
    char dir[256], path[512], err[512], sql[4096];
    scratch_dir(dir);
    test_db_path(dir, "looks.db", path, sizeof path);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    store_close(s);
    accounts_name a, b;
    char why[128];
    assert_int_equal(accounts_name_prepare("alice", &a, why, sizeof why), ACCOUNTS_OK);
    assert_int_equal(accounts_name_prepare("aIice", &b, why, sizeof why), ACCOUNTS_OK);
    char rows[3072];
    snprintf(rows, sizeof rows,
             "INSERT INTO accounts (name, name_key, skeleton, pwhash, created_ms, password_ms)"
             " VALUES ('%s', '%s', '%s', 'h1', 1, 1), ('%s', '%s', '%s', 'h2', 2, 2);",
             a.display, a.key, a.skeleton, b.display, b.key, b.skeleton);
    snprintf(sql, sizeof sql, "%s%s%s%s%s%s PRAGMA user_version = 8; %s", STORE_TEST_UNDO_14,
             STORE_TEST_UNDO_13,
             STORE_TEST_UNDO_12, STORE_TEST_UNDO_11,
             STORE_TEST_UNDO_10, STORE_TEST_UNDO_9, rows);
    char pg_sql[4096];
    snprintf(pg_sql, sizeof pg_sql, "ALTER TABLE games DROP COLUMN tournament_id;"
             " DROP TABLE tournaments; DROP TABLE analyses; DROP TABLE blocks; DROP TABLE reports;"
             " DROP TABLE reset_codes; DROP TABLE admin_actions; DROP TABLE bans;"
             " DROP INDEX accounts_by_look;"
             " ALTER TABLE accounts DROP COLUMN look; UPDATE sungka_schema SET version = 2; %s",
             rows);
    test_sql_exec(path, sql, pg_sql);

    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    assert_int_equal(test_sql_int(path, "PRAGMA user_version",
                                  "SELECT version FROM sungka_schema"),
                     test_on_pg() ? 8 : STORE_TEST_VERSION);
    store_account got_a, got_b;
    assert_ok(s, store_account_find(s, "alice", &got_a));
    assert_ok(s, store_account_find(s, "aiice", &got_b));
    assert_string_equal(got_b.name, "aIice");
    assert_string_equal(got_a.look, "");                /* not filled yet */
    int calls = 0, filled = -1;
    assert_ok(s, store_account_fill_looks(s, real_look, &calls, &filled));
    assert_int_equal(filled, 2);
    assert_int_equal(calls, 2);
    assert_ok(s, store_account_find(s, "alice", &got_a));
    assert_ok(s, store_account_find(s, "aiice", &got_b));
    assert_string_equal(got_a.look, "alice");
    assert_string_equal(got_b.look, "alice");
    assert_ok(s, store_account_fill_looks(s, real_look, &calls, &filled));
    assert_int_equal(filled, 0);                        /* once */
    assert_int_equal(calls, 2);
    /* A third look-alike is refused; the older account is the one it is like. */
    assert_int_equal(register_name(s, "a1ice", NULL), STORE_TAKEN);
    store_account like;
    assert_ok(s, find_like_name(s, "aIice", &like));
    assert_int_equal(like.id, got_a.id);
    int64_t n = 0;
    assert_ok(s, store_account_count(s, &n));
    assert_int_equal(n, 2);
    store_close(s);
    scratch_remove(dir);
}

static int64_t peek(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void test_version_2_file_migrates(void **state)
{
    (void)state;
    char dir[256], path[300], err[512];
    skip_on_pg("PostgreSQL databases begin at the current schema: there is no schema 4 "
               "to come from");
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/v2.db", dir);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    finish2(s, "1", "alice", 0, "bob", 0);
    finish2(s, "2", "alice", 0, "bob", 0);
    store_close(s);
    /* What a service before accounts left behind: statistics by name. */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, STORE_TEST_UNDO_14 STORE_TEST_UNDO_13 STORE_TEST_UNDO_12 STORE_TEST_UNDO_11 STORE_TEST_UNDO_10 STORE_TEST_UNDO_9 STORE_TEST_UNDO_8
                                  STORE_TEST_UNDO_7 STORE_TEST_UNDO_6 STORE_TEST_UNDO_5
                                  "PRAGMA user_version = 4",
                                  NULL, NULL,
                                  NULL), SQLITE_OK);
    sqlite3_close(db);

    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    store_stats st;
    assert_ok(s, store_player_stats(s, "alice", &st));
    assert_int_equal(st.wins, 2);
    assert_int_equal(st.account_id, 0);              /* unclaimed */
    int n = -1;
    store_stats top[4];
    assert_ok(s, store_leaderboard(s, 4, NULL, top, &n));
    assert_int_equal(n, 0);
    bool claimed = false;
    int64_t alice = make_account(s, "alice", &claimed);
    assert_true(claimed);
    assert_ok(s, store_leaderboard(s, 4, NULL, top, &n));
    assert_int_equal(n, 1);
    assert_int_equal(top[0].wins, 2);
    assert_int_equal(top[0].account_id, alice);
    store_close(s);
    assert_int_equal(peek(path, "PRAGMA user_version"), STORE_TEST_VERSION);
    char q[160];
    snprintf(q, sizeof q, "SELECT count(*) FROM results WHERE name = 'alice' AND account_id = %lld",
             (long long)alice);
    assert_int_equal(peek(path, q), 2);              /* her history is hers too */
    assert_int_equal(peek(path, "SELECT count(*) FROM results WHERE account_id IS NOT NULL"), 2);
    scratch_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unique_name_and_skeleton),
        cmocka_unit_test(test_claim_exact_name_once),
        cmocka_unit_test(test_sessions),
        cmocka_unit_test(test_sessions_trimmed),
        cmocka_unit_test(test_participant_account_recovered),
        cmocka_unit_test(test_version_2_file_migrates),
        cmocka_unit_test(test_capitals_look_alike),
        cmocka_unit_test(test_file_before_looks_migrates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
