/*
 * test_self_signed.c — --tls-self-signed's pair: made once with every name
 * asked for, private files; the same certificate on every later start
 * (new names only reported); and every broken state refused in words that
 * name the file: half a pair, a key that is not the certificate's, a key
 * others may read, a file that is not PEM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "self_signed.h"

static char tmp[64];

static int make_tmp(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/sungka-selfsigned-XXXXXX");
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

static const char *names[] = {"board.example.org", "localhost", "127.0.0.1", "::1",
                              "localhost", "192.0.2.7"};
#define N_NAMES (sizeof names / sizeof names[0])

static X509 *read_cert(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    assert_non_null(x);
    return x;
}

static void dir_of(const char *sub, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", tmp, sub);
}

static void made_then_kept(void **state)
{
    (void)state;
    char dir[128], err[1024];
    dir_of("a/b", dir, sizeof dir);                /* made with its parent */
    self_signed_pair first, again;
    assert_int_equal(self_signed_ensure(dir, names, N_NAMES, &first, err, sizeof err), 0);
    assert_true(first.made);
    assert_string_equal(first.missing, "");
    assert_int_equal(strncmp(first.fingerprint, "SHA256:", 7), 0);
    assert_int_equal(strlen(first.fingerprint), FINGERPRINT_LEN - 1);

    struct stat st;
    assert_int_equal(stat(first.key, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(stat(first.cert, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    X509 *x = read_cert(first.cert);
    assert_int_equal(X509_check_host(x, "board.example.org", 0, 0, NULL), 1);
    assert_int_equal(X509_check_host(x, "localhost", 0, 0, NULL), 1);
    assert_int_equal(X509_check_ip_asc(x, "127.0.0.1", 0), 1);
    assert_int_equal(X509_check_ip_asc(x, "::1", 0), 1);
    assert_int_equal(X509_check_ip_asc(x, "192.0.2.7", 0), 1);
    assert_int_not_equal(X509_check_host(x, "elsewhere.example.org", 0, 0, NULL), 1);
    assert_int_not_equal(X509_check_ip_asc(x, "192.0.2.8", 0), 1);
    assert_int_equal(X509_check_ca(x), 0);         /* it can sign nothing else */
    assert_true(X509_get_extended_key_usage(x) & XKU_SSL_SERVER);
    /* Self-signed, and its signature holds. */
    EVP_PKEY *pub = X509_get0_pubkey(x);
    assert_int_equal(X509_verify(x, pub), 1);
    assert_int_equal(EVP_PKEY_get_base_id(pub), EVP_PKEY_EC);
    X509_free(x);

    /* Kept: the same certificate, whatever names are asked for now. */
    const char *more[] = {"board.example.org", "new.example.org", "198.51.100.1"};
    assert_int_equal(self_signed_ensure(dir, more, 3, &again, err, sizeof err), 0);
    assert_false(again.made);
    assert_string_equal(again.fingerprint, first.fingerprint);
    assert_string_equal(again.missing, "new.example.org 198.51.100.1");
}

/* A fresh pair in `sub`, for spoiling. */
static void fresh(const char *sub, self_signed_pair *out)
{
    char dir[128], err[1024];
    dir_of(sub, dir, sizeof dir);
    assert_int_equal(self_signed_ensure(dir, names, 2, out, err, sizeof err), 0);
}

static void refuse(const char *sub, const char *says, const char *also)
{
    char dir[128], err[1024];
    self_signed_pair ss;
    dir_of(sub, dir, sizeof dir);
    err[0] = '\0';
    assert_int_equal(self_signed_ensure(dir, names, 2, &ss, err, sizeof err), -1);
    if (!strstr(err, says) || (also && !strstr(err, also)))
        fail_msg("'%s' does not say '%s' and '%s'", err, says, also ? also : "");
}

static void half_a_pair(void **state)
{
    (void)state;
    self_signed_pair ss;
    fresh("half-cert", &ss);
    unlink(ss.key);
    refuse("half-cert", "but not", ss.key);
    fresh("half-key", &ss);
    unlink(ss.cert);
    refuse("half-key", "but not", ss.cert);
}

static void copy_file(const char *from, const char *to)
{
    char cmd[2 * PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    assert_int_equal(system(cmd), 0);
}

static void key_of_another(void **state)
{
    (void)state;
    self_signed_pair one, two;
    fresh("one", &one);
    fresh("two", &two);
    copy_file(two.key, one.key);                  /* cp keeps the 0600 of the target */
    refuse("one", "do not belong together", one.key);
}

static void key_readable_by_others(void **state)
{
    (void)state;
    self_signed_pair ss;
    fresh("open", &ss);
    assert_int_equal(chmod(ss.key, 0644), 0);
    refuse("open", "may be read by others", "chmod 600");
}

static void not_pem(void **state)
{
    (void)state;
    self_signed_pair ss;
    fresh("garbage", &ss);
    FILE *f = fopen(ss.cert, "w");
    assert_non_null(f);
    fputs("not a certificate\n", f);
    fclose(f);
    refuse("garbage", "is not a PEM certificate", "delete");
}

static void names_checked(void **state)
{
    (void)state;
    assert_true(self_signed_name_ok("host"));
    assert_true(self_signed_name_ok("a-b.example.org"));
    assert_true(self_signed_name_ok("*.example.org"));
    assert_true(self_signed_name_ok("10.1.2.3"));
    assert_true(self_signed_name_ok("fe80::1"));
    assert_false(self_signed_name_ok(""));
    assert_false(self_signed_name_ok("a,IP:1.2.3.4"));
    assert_false(self_signed_name_ok("a b"));
    assert_false(self_signed_name_ok("a..b"));
    assert_false(self_signed_name_ok("-a"));
    assert_false(self_signed_name_ok("*.*.example.org"));
    char dir[128], err[1024];
    self_signed_pair ss;
    dir_of("bad-name", dir, sizeof dir);
    const char *bad[] = {"ok.example.org", "no/slash"};
    assert_int_equal(self_signed_ensure(dir, bad, 2, &ss, err, sizeof err), -1);
    assert_non_null(strstr(err, "no/slash"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(made_then_kept),   cmocka_unit_test(half_a_pair),
        cmocka_unit_test(key_of_another),   cmocka_unit_test(key_readable_by_others),
        cmocka_unit_test(not_pem),          cmocka_unit_test(names_checked),
    };
    return cmocka_run_group_tests(tests, make_tmp, remove_tmp);
}
