/*
 * test_trust.c — what the agent trusts: a password goes only over TLS or
 * to this machine (agent_may_send_secret, a remembered server counting as
 * TLS), and the known-servers file keeps a certificate per server, checks
 * each line, accepts a fingerprint written by hand, and stays private.
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

#include "agent.h"
#include "known_servers.h"

static char tmp[64];

static int make_tmp(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/sungka-trust-XXXXXX");
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

/* Bytes standing for a certificate: the file never parses them as one. */
static const unsigned char cert_a[] = "certificate A, any bytes \x01\x02\x03";
static const unsigned char cert_b[] = "certificate B";

static void secret_only_over_tls_or_loopback(void **state)
{
    (void)state;
    char err[512], file[128];
    snprintf(file, sizeof file, "%s/none", tmp);
    agent_config cfg = {.known_servers = file};
    const char *local[] = {"127.0.0.1:7070", "127.1.2.3:7070", "localhost:7070",
                           "LOCALHOST:1",    "[::1]:7070",     "[::ffff:127.0.0.1]:7070",
                           "unix:/tmp/s"};
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
        cfg.server = local[i];
        err[0] = '\0';
        assert_int_equal(agent_may_send_secret(&cfg, err, sizeof err), 0);
        assert_string_equal(err, "");
    }
    const char *remote[] = {"games.example.org:7070", "10.0.0.2:7070", "128.0.0.1:7070",
                            "[2001:db8::1]:7070",     "localhost.example.org:7070",
                            "[::ffff:10.0.0.1]:7070", "126.255.255.255:1"};
    for (size_t i = 0; i < sizeof remote / sizeof remote[0]; i++) {
        cfg.server = remote[i];
        cfg.tls = false;
        assert_int_equal(agent_may_send_secret(&cfg, err, sizeof err), -1);
        assert_non_null(strstr(err, remote[i]));
        assert_non_null(strstr(err, "--tls"));
        assert_non_null(strstr(err, "--tls-self-signed"));
        cfg.tls = true;
        assert_int_equal(agent_may_send_secret(&cfg, err, sizeof err), 0);
    }
}

static void remembered_server_counts_as_tls(void **state)
{
    (void)state;
    char err[512], file[128];
    snprintf(file, sizeof file, "%s/remembered/known-servers", tmp);
    agent_config cfg = {.server = "games.example.org:7070", .known_servers = file};
    assert_int_equal(agent_may_send_secret(&cfg, err, sizeof err), -1);
    assert_int_equal(known_servers_add(file, cfg.server, cert_a, sizeof cert_a, err, sizeof err),
                     0);
    assert_int_equal(agent_may_send_secret(&cfg, err, sizeof err), 0);
    cfg.server = "games.example.org:7071";      /* another port is another server */
    assert_int_equal(agent_may_send_secret(&cfg, err, sizeof err), -1);
    cfg.known_servers = "";                      /* none remembered: plaintext again */
    cfg.server = "games.example.org:7070";
    assert_int_equal(agent_may_send_secret(&cfg, err, sizeof err), -1);
}

static void add_find_private(void **state)
{
    (void)state;
    char err[512], path[128];
    snprintf(path, sizeof path, "%s/cfg/sungka/known-servers", tmp);
    known_server ks;
    assert_int_equal(known_servers_find(path, "a:1", &ks, err, sizeof err), 0);
    mode_t old = umask(0);                       /* whatever the umask: private */
    assert_int_equal(known_servers_add(path, "a:1", cert_a, sizeof cert_a, err, sizeof err), 0);
    assert_int_equal(known_servers_add(path, "b:2", cert_b, sizeof cert_b, err, sizeof err), 0);
    umask(old);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char dir[128];
    snprintf(dir, sizeof dir, "%s/cfg/sungka", tmp);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);

    char want[FINGERPRINT_LEN];
    assert_int_equal(fingerprint_der(cert_a, sizeof cert_a, want), 0);
    assert_int_equal(known_servers_find(path, "a:1", &ks, err, sizeof err), 1);
    assert_string_equal(ks.fingerprint, want);
    assert_int_equal(ks.der_len, sizeof cert_a);
    assert_memory_equal(ks.der, cert_a, sizeof cert_a);
    assert_int_equal(ks.line, 4);                /* after the three lines of header */
    known_server_clear(&ks);
    assert_int_equal(known_servers_find(path, "b:2", &ks, err, sizeof err), 1);
    assert_int_equal(ks.der_len, sizeof cert_b);
    assert_memory_equal(ks.der, cert_b, sizeof cert_b);
    known_server_clear(&ks);
    assert_int_equal(known_servers_find(path, "b:1", &ks, err, sizeof err), 0);
    /* Spaces and comment marks cannot be in a key. */
    assert_int_equal(known_servers_add(path, "a b:1", cert_a, sizeof cert_a, err, sizeof err),
                     -1);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void fingerprint_by_hand(void **state)
{
    (void)state;
    char err[512], path[128], fp[FINGERPRINT_LEN], line[256];
    snprintf(path, sizeof path, "%s/by-hand", tmp);
    assert_int_equal(fingerprint_der(cert_a, sizeof cert_a, fp), 0);
    /* As `openssl x509 -fingerprint -sha256` prints it, in lower case. */
    snprintf(line, sizeof line, "# from the operator\nhost:7070 %s\n", fp + 7);
    for (char *c = line; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
    write_file(path, line);
    known_server ks;
    assert_int_equal(known_servers_find(path, "host:7070", &ks, err, sizeof err), 1);
    assert_string_equal(ks.fingerprint, fp);
    assert_null(ks.der);
    assert_int_equal(ks.line, 2);
    /* Remembering the certificate replaces the hand-written line. */
    assert_int_equal(
        known_servers_add(path, "host:7070", cert_a, sizeof cert_a, err, sizeof err), 0);
    assert_int_equal(known_servers_find(path, "host:7070", &ks, err, sizeof err), 1);
    assert_non_null(ks.der);
    assert_int_equal(ks.line, 2);                /* the comment is kept, the line replaced */
    known_server_clear(&ks);
}

static void damaged_lines_named(void **state)
{
    (void)state;
    char err[512], path[128], fp_b[FINGERPRINT_LEN], text[512];
    snprintf(path, sizeof path, "%s/damaged", tmp);
    known_server ks;
    write_file(path, "x:1 SHA256:not-a-fingerprint\n");
    assert_int_equal(known_servers_find(path, "x:1", &ks, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 1"));
    assert_non_null(strstr(err, path));
    /* A certificate that is not the one its fingerprint names. */
    assert_int_equal(known_servers_add(path, "y:1", cert_a, sizeof cert_a, err, sizeof err), 0);
    assert_int_equal(fingerprint_der(cert_b, sizeof cert_b, fp_b), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *at = strstr(text, "y:1 SHA256:");
    assert_non_null(at);
    memcpy(at + 4, fp_b, FINGERPRINT_LEN - 1);
    write_file(path, text);
    assert_int_equal(known_servers_find(path, "y:1", &ks, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 2"));      /* after the x:1 line (no header: not new) */
    assert_non_null(strstr(err, "delete"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(secret_only_over_tls_or_loopback),
        cmocka_unit_test(remembered_server_counts_as_tls),
        cmocka_unit_test(add_find_private),
        cmocka_unit_test(fingerprint_by_hand),
        cmocka_unit_test(damaged_lines_named),
    };
    return cmocka_run_group_tests(tests, make_tmp, remove_tmp);
}
