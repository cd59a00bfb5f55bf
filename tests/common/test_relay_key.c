/*
 * test_relay_key.c — reading a relay key from its file (relay_key.h): the
 * first line is the key, NUL-padded to a whole buffer; a key too short, too
 * long, with a space or a control character, or a file that cannot be read,
 * is refused with a sentence naming the file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "relay_key.h"

static char path[64];

static int make_file(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/sungka-relay-key-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int remove_file(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

static void write_key(const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int load(char key[RELAY_KEY_BYTES], char *err, size_t errlen)
{
    return relay_key_load(path, key, err, errlen);
}

/* The first line, its newline dropped; the rest of the buffer zero. */
static void first_line_is_the_key(void **state)
{
    (void)state;
    const char *k = "0123456789abcdef0123456789abcdef";
    char text[128], key[RELAY_KEY_BYTES], err[256];
    snprintf(text, sizeof text, "%s\r\nsecond line\n", k);
    write_key(text);
    memset(key, 'x', sizeof key);
    assert_int_equal(load(key, err, sizeof err), 0);
    assert_string_equal(key, k);
    for (size_t i = strlen(k); i < RELAY_KEY_BYTES; i++)
        assert_int_equal(key[i], 0);
}

static void refused(const char *text)
{
    char key[RELAY_KEY_BYTES], err[256] = "";
    write_key(text);
    assert_int_equal(load(key, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "one line of 32 to 128 printable characters"));
    assert_int_equal(key[0], 0);
}

static void bad_keys_refused(void **state)
{
    (void)state;
    char longest[RELAY_KEY_BYTES + 1], too_long[RELAY_KEY_BYTES + 2];
    refused("");
    refused("short\n");
    refused("0123456789abcdef 0123456789abcdef\n");      /* a space */
    refused("0123456789abcdef\t0123456789abcdef\n");     /* a control */
    memset(too_long, 'k', RELAY_KEY_BYTES);              /* 129 characters */
    too_long[RELAY_KEY_BYTES] = '\0';
    refused(too_long);
    memset(longest, 'k', RELAY_KEY_BYTES - 1);           /* 128: the longest */
    longest[RELAY_KEY_BYTES - 1] = '\0';
    write_key(longest);
    char key[RELAY_KEY_BYTES], err[256];
    assert_int_equal(load(key, err, sizeof err), 0);
    assert_int_equal(strlen(key), RELAY_KEY_BYTES - 1);
}

static void missing_file_refused(void **state)
{
    (void)state;
    char key[RELAY_KEY_BYTES], err[256];
    assert_int_equal(relay_key_load("/nonexistent/relay.key", key, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot read the relay key file /nonexistent/relay.key"));
}

/* Who a call's metadata says it is, against a server's key or none. */
static void identities(void **state)
{
    (void)state;
    char key[RELAY_KEY_BYTES] = "0123456789abcdef0123456789abcdef";
    char none[RELAY_KEY_BYTES] = "";
    char longer[RELAY_KEY_BYTES + 8];
    memset(longer, 'k', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(relay_key_identify(key, NULL, false), RELAY_NOT);
    assert_int_equal(relay_key_identify(key, NULL, true), RELAY_UNPROVEN);
    assert_int_equal(relay_key_identify(key, key, true), RELAY_SHOWN);
    assert_int_equal(relay_key_identify(key, key, false), RELAY_SHOWN);
    assert_int_equal(relay_key_identify(key, "0123456789abcdef0123456789abcdeX", true),
                     RELAY_WRONG_KEY);
    assert_int_equal(relay_key_identify(key, "0123456789abcdef0123456789abcde", true),
                     RELAY_WRONG_KEY);                  /* a prefix */
    assert_int_equal(relay_key_identify(key, "", true), RELAY_WRONG_KEY);
    assert_int_equal(relay_key_identify(key, longer, true), RELAY_WRONG_KEY);
    assert_int_equal(relay_key_identify(none, "", false), RELAY_WRONG_KEY);
    assert_int_equal(relay_key_identify(none, key, true), RELAY_WRONG_KEY);
    assert_non_null(strstr(relay_key_refusal(RELAY_WRONG_KEY, false), "knows no relays"));
    assert_non_null(strstr(relay_key_refusal(RELAY_UNPROVEN, true), "x-sungka-relay-for"));
    assert_string_equal(relay_key_refusal(RELAY_SHOWN, true), "");
    assert_true(relay_key_observer_ok("ipv4:10.0.0.7", 64));
    assert_false(relay_key_observer_ok("", 64));
    assert_false(relay_key_observer_ok("relay ipv4:10.0.0.7", 64));
    assert_false(relay_key_observer_ok("ipv4:10.0.0.7", 8));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(first_line_is_the_key, make_file, remove_file),
        cmocka_unit_test_setup_teardown(bad_keys_refused, make_file, remove_file),
        cmocka_unit_test(missing_file_refused),
        cmocka_unit_test(identities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
