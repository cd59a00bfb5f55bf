/*
 * test_passwords.c — Argon2id through libsodium: a hash verifies its own
 * password and no other, the same password typed in two normal forms
 * matches, limits are enforced without echoing, and the dummy verify (what
 * a sign-in for an unknown name runs) never succeeds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "accounts.h"

static int setup(void **state)
{
    (void)state;
    return accounts_init();
}

static void verify(void **state)
{
    (void)state;
    char hash[ACCOUNTS_HASH_BYTES];
    assert_int_equal(accounts_password_hash("correct horse", hash), 0);
    assert_non_null(strstr(hash, "$argon2id$"));
    assert_null(strstr(hash, "correct horse"));
    assert_int_equal(accounts_password_verify(hash, "correct horse"), 0);
    assert_int_equal(accounts_password_verify(hash, "correct horsE"), -1);
    assert_int_equal(accounts_password_verify(hash, "correct horse "), -1);
    /* salted: the same password hashes differently each time */
    char again[ACCOUNTS_HASH_BYTES];
    assert_int_equal(accounts_password_hash("correct horse", again), 0);
    assert_string_not_equal(hash, again);
    assert_int_equal(accounts_password_verify(again, "correct horse"), 0);
    assert_int_equal(accounts_password_verify("not a hash", "correct horse"), -1);
}

static void normal_forms(void **state)
{
    (void)state;
    char hash[ACCOUNTS_HASH_BYTES];
    assert_int_equal(accounts_password_hash("caf\xc3\xa9 au lait", hash), 0);
    assert_int_equal(accounts_password_verify(hash, "cafe\xcc\x81 au lait"), 0);
}

static void limits(void **state)
{
    (void)state;
    char err[128], hash[ACCOUNTS_HASH_BYTES];
    assert_int_equal(accounts_password_check("short", err, sizeof err), -1);
    assert_non_null(strstr(err, "at least 8"));
    assert_null(strstr(err, "short"));
    assert_int_equal(accounts_password_check("\xc0\x9b\xc0\x9b\xc0\x9b\xc0\x9b", err,
                                             sizeof err), -1);
    char big[ACCOUNTS_PASSWORD_MAX + 2];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(accounts_password_check(big, err, sizeof err), -1);
    assert_int_equal(accounts_password_hash(big, hash), -1);
    big[ACCOUNTS_PASSWORD_MAX] = '\0';
    assert_int_equal(accounts_password_check(big, err, sizeof err), 0);
    /* eight characters, whatever their bytes */
    assert_int_equal(accounts_password_check("\xe3\x81\x95\xe3\x81\x95\xe3\x81\x95\xe3\x81\x95"
                                             "\xe3\x81\x95\xe3\x81\x95\xe3\x81\x95\xe3\x81\x95",
                                             err, sizeof err), 0);
    assert_int_equal(accounts_password_hash("short", hash), -1);
    assert_int_equal(accounts_password_check("tab\there and more", err, sizeof err), -1);
    assert_non_null(strstr(err, "control"));
    assert_int_equal(accounts_password_check("esc\x1b[2J and more", err, sizeof err), -1);
    assert_int_equal(accounts_password_check("c1 \xc2\x9b and more", err, sizeof err), -1);
    assert_int_equal(accounts_password_check("spaces are fine, and \xc3\xa9", err, sizeof err), 0);
}

static void dummy(void **state)
{
    (void)state;
    assert_int_equal(accounts_password_verify_dummy("anything at all"), -1);
    assert_int_equal(accounts_password_verify_dummy(""), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(verify),
        cmocka_unit_test(normal_forms),
        cmocka_unit_test(limits),
        cmocka_unit_test(dummy),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
