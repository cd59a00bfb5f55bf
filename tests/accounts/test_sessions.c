/*
 * test_sessions.c — session tokens: random, parsed back to the id and hash
 * the store keeps, the hash compared whole, a seat token or a damaged token
 * not taken for one, and expiry.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "accounts.h"

static int setup(void **state)
{
    (void)state;
    return accounts_init();
}

static void round_trip(void **state)
{
    (void)state;
    char token[ACCOUNTS_SESSION_TOKEN_BYTES];
    uint8_t id[ACCOUNTS_SESSION_ID_BYTES], hash[ACCOUNTS_SESSION_HASH_BYTES];
    uint8_t id2[ACCOUNTS_SESSION_ID_BYTES], hash2[ACCOUNTS_SESSION_HASH_BYTES];
    assert_int_equal(accounts_session_new(token, id, hash), 0);
    assert_int_equal(strncmp(token, ACCOUNTS_SESSION_PREFIX, strlen(ACCOUNTS_SESSION_PREFIX)), 0);
    assert_int_equal(accounts_session_parse(token, id2, hash2), 0);
    assert_memory_equal(id, id2, sizeof id);
    assert_true(accounts_session_hash_equal(hash, hash2));
    /* the hash is not the token's bytes */
    assert_null(memmem(token, strlen(token), hash, 8));

    char other[ACCOUNTS_SESSION_TOKEN_BYTES];
    uint8_t oid[ACCOUNTS_SESSION_ID_BYTES], ohash[ACCOUNTS_SESSION_HASH_BYTES];
    accounts_session_new(other, oid, ohash);
    assert_string_not_equal(token, other);
    assert_memory_not_equal(id, oid, sizeof id);
    assert_false(accounts_session_hash_equal(hash, ohash));
}

static void one_character_changed(void **state)
{
    (void)state;
    char token[ACCOUNTS_SESSION_TOKEN_BYTES];
    uint8_t id[ACCOUNTS_SESSION_ID_BYTES], hash[ACCOUNTS_SESSION_HASH_BYTES];
    uint8_t id2[ACCOUNTS_SESSION_ID_BYTES], hash2[ACCOUNTS_SESSION_HASH_BYTES];
    accounts_session_new(token, id, hash);
    /* the secret's last character changed: same id, another hash */
    size_t last = strlen(token) - 2;
    token[last] = token[last] == 'A' ? 'B' : 'A';
    assert_int_equal(accounts_session_parse(token, id2, hash2), 0);
    assert_memory_equal(id, id2, sizeof id);
    assert_false(accounts_session_hash_equal(hash, hash2));
}

static void not_session_tokens(void **state)
{
    (void)state;
    uint8_t id[ACCOUNTS_SESSION_ID_BYTES], hash[ACCOUNTS_SESSION_HASH_BYTES];
    /* a seat token: 32 hex digits */
    assert_int_equal(accounts_session_parse("0123456789abcdef0123456789abcdef", id, hash), -1);
    assert_int_equal(accounts_session_parse("", id, hash), -1);
    assert_int_equal(accounts_session_parse(ACCOUNTS_SESSION_PREFIX, id, hash), -1);
    char token[ACCOUNTS_SESSION_TOKEN_BYTES];
    accounts_session_new(token, id, hash);
    token[strlen(token) - 1] = '\0';                      /* cut short */
    assert_int_equal(accounts_session_parse(token, id, hash), -1);
    accounts_session_new(token, id, hash);
    token[10] = '+';                                       /* not base64url */
    assert_int_equal(accounts_session_parse(token, id, hash), -1);
    accounts_session_new(token, id, hash);
    char longer[ACCOUNTS_SESSION_TOKEN_BYTES + 4];
    snprintf(longer, sizeof longer, "%sAA", token);
    assert_int_equal(accounts_session_parse(longer, id, hash), -1);
}

static void expiry(void **state)
{
    (void)state;
    assert_true(accounts_session_live(1000, 999));
    assert_false(accounts_session_live(1000, 1000));
    assert_false(accounts_session_live(1000, 5000));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(one_character_changed),
        cmocka_unit_test(not_session_tokens),
        cmocka_unit_test(expiry),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
