/*
 * test_store_admin.c — the operator's bans and audit log in the store
 * (admin_rpc.c): a ban is kept, replaced by a new one of the same target,
 * read while in force and forgotten once expired, lifted once; actions come
 * back newest first within their limit; a password reset code is kept
 * hashed, replaced by a newer one and forgotten once used. On SQLite and on
 * PostgreSQL.
 */
#include "store_test.h"

static store_ban ban(int kind, const char *target, const char *reason, int64_t made,
                     int64_t until)
{
    store_ban b = {.kind = kind, .made_ms = made, .until_ms = until};
    snprintf(b.target, sizeof b.target, "%s", target);
    snprintf(b.label, sizeof b.label, "%s", target);
    snprintf(b.reason, sizeof b.reason, "%s", reason);
    return b;
}

static void bans_kept_and_expired(void **state)
{
    (void)state;
    store *s = open_memory();
    store_ban b = ban(STORE_BAN_ADDRESS, "127.0.0.2/32", "spam", 1000, 5000), got[4];
    int n = -1;
    assert_ok(s, store_ban_put(s, &b));
    b = ban(STORE_BAN_ACCOUNT, "7", "cheating", 2000, 0);
    assert_ok(s, store_ban_put(s, &b));
    assert_ok(s, store_bans(s, 4000, got, 4, &n));
    assert_int_equal(n, 2);
    assert_int_equal(got[0].kind, STORE_BAN_ADDRESS);
    assert_string_equal(got[0].target, "127.0.0.2/32");
    assert_string_equal(got[0].reason, "spam");
    assert_int_equal(got[0].until_ms, 5000);
    assert_string_equal(got[1].reason, "cheating");
    assert_int_equal(got[1].until_ms, 0);

    /* Banned again: the new reason and end replace the old. */
    b = ban(STORE_BAN_ADDRESS, "127.0.0.2/32", "more spam", 3000, 9000);
    assert_ok(s, store_ban_put(s, &b));
    assert_ok(s, store_bans(s, 6000, got, 4, &n));
    assert_int_equal(n, 2);
    assert_string_equal(got[1].reason, "more spam");

    /* Past its end it is gone, and cannot be lifted. */
    assert_ok(s, store_bans(s, 9000, got, 4, &n));
    assert_int_equal(n, 1);
    assert_int_equal(got[0].kind, STORE_BAN_ACCOUNT);
    assert_int_equal(store_ban_delete(s, STORE_BAN_ADDRESS, "127.0.0.2/32", 9000),
                     STORE_NOT_FOUND);
    assert_ok(s, store_ban_delete(s, STORE_BAN_ACCOUNT, "7", 9000));
    assert_int_equal(store_ban_delete(s, STORE_BAN_ACCOUNT, "7", 9000), STORE_NOT_FOUND);
    assert_ok(s, store_bans(s, 9000, got, 4, &n));
    assert_int_equal(n, 0);

    b = ban(STORE_BAN_MUTE, "7", "shouting", 1, 0);     /* a mute beside a ban of one account */
    assert_ok(s, store_ban_put(s, &b));
    assert_ok(s, store_bans(s, 9000, got, 4, &n));
    assert_int_equal(n, 1);
    assert_int_equal(got[0].kind, STORE_BAN_MUTE);
    assert_ok(s, store_ban_delete(s, STORE_BAN_MUTE, "7", 9000));
    b = ban(4, "x", "no such kind", 1, 0);
    assert_int_equal(store_ban_put(s, &b), -1);
    b = ban(STORE_BAN_ACCOUNT, "8", "", 1, 0);
    assert_int_equal(store_ban_put(s, &b), -1);        /* a ban says why */
    store_close(s);
}

static void actions_newest_first(void **state)
{
    (void)state;
    store *s = open_memory();
    const char *what[] = {"ban account", "unban account", "ban address"};
    for (int i = 0; i < 3; i++) {
        store_admin_action a = {.at_ms = 100 + i};
        snprintf(a.who, sizeof a.who, "ipv4:127.0.0.1");
        snprintf(a.action, sizeof a.action, "%s", what[i]);
        snprintf(a.target, sizeof a.target, "bob");
        snprintf(a.reason, sizeof a.reason, "reason %d", i);
        assert_ok(s, store_admin_action_add(s, &a));
    }
    store_admin_action got[3];
    int n = -1;
    assert_ok(s, store_admin_actions(s, 2, got, &n));
    assert_int_equal(n, 2);
    assert_string_equal(got[0].action, "ban address");
    assert_int_equal(got[0].at_ms, 102);
    assert_string_equal(got[1].reason, "reason 1");
    assert_string_equal(got[1].who, "ipv4:127.0.0.1");
    store_admin_action bad = {.at_ms = 1};
    assert_int_equal(store_admin_action_add(s, &bad), -1);   /* nobody, nothing */
    store_close(s);
}

static void reset_codes(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t bob = make_account(s, "bob", NULL);
    uint8_t h1[STORE_RESET_HASH_BYTES], h2[STORE_RESET_HASH_BYTES], got[STORE_RESET_HASH_BYTES];
    memset(h1, 1, sizeof h1);
    memset(h2, 2, sizeof h2);
    int64_t until = 0;
    assert_int_equal(store_reset_code_get(s, bob, got, &until), STORE_NOT_FOUND);
    assert_ok(s, store_reset_code_put(s, bob, h1, 100));
    assert_ok(s, store_reset_code_put(s, bob, h2, 200));       /* a new code replaces it */
    assert_ok(s, store_reset_code_get(s, bob, got, &until));
    assert_memory_equal(got, h2, sizeof h2);
    assert_int_equal(until, 200);
    assert_ok(s, store_reset_code_delete(s, bob));
    assert_int_equal(store_reset_code_get(s, bob, got, &until), STORE_NOT_FOUND);
    assert_int_equal(store_reset_code_put(s, 0, h1, 1), -1);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bans_kept_and_expired),
        cmocka_unit_test(actions_newest_first),
        cmocka_unit_test(reset_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
