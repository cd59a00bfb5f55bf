/*
 * test_ban_match.c — the admit hook's matcher of address bans (ban_match.h):
 * a peer in a banned address or prefix is found (IPv4, IPv6, percent-encoded,
 * IPv4-mapped), one outside is not; a ban that ends stops matching without a
 * new set; a new set (a ban made or lifted) is seen at once; and a
 * connection's calls after its first are answered from its kept verdict,
 * without comparing it with the bans again (the hot path).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ban_match.h"

static address_prefix prefix(const char *text)
{
    address_prefix p;
    char err[128];
    assert_int_equal(address_prefix_parse(text, &p, NULL, 0, err, sizeof err), 0);
    return p;
}

static void empty_does_nothing(void **state)
{
    (void)state;
    ban_match m;
    ban_match_init(&m);
    assert_true(ban_match_empty(&m));
    assert_int_equal(ban_match_peer(&m, "ipv4:198.51.100.7:5555", 0), -1);
    assert_int_equal(m.scans, 0);
    ban_match_free(&m);
}

static void bans_prefixes_and_expiry(void **state)
{
    (void)state;
    ban_match m;
    ban_match_init(&m);
    address_prefix p[3] = {prefix("198.51.100.0/24"), prefix("2001:db8::/48"),
                           prefix("203.0.113.9")};
    int64_t until[3] = {0, 0, 5000};
    assert_int_equal(ban_match_set(&m, p, until, 3), 0);
    assert_false(ban_match_empty(&m));
    assert_int_equal(ban_match_peer(&m, "ipv4:198.51.100.7:5555", 1000), 0);
    assert_int_equal(ban_match_peer(&m, "ipv4:198.51.101.7:5555", 1000), -1);
    assert_int_equal(ban_match_peer(&m, "ipv6:[2001:db8:0:1::5]:443", 1000), 1);
    assert_int_equal(ban_match_peer(&m, "ipv6:%5B2001:db8::7%5D:443", 1000), 1);
    assert_int_equal(ban_match_peer(&m, "ipv6:[2001:db9::1]:443", 1000), -1);
    assert_int_equal(ban_match_peer(&m, "ipv6:[::ffff:198.51.100.9]:80", 1000), 0);
    assert_int_equal(ban_match_peer(&m, "unix:/run/x.sock", 1000), -1);
    /* The third ends at 5000: kept verdicts see it end, no new set. */
    assert_int_equal(ban_match_peer(&m, "ipv4:203.0.113.9:1", 4999), 2);
    assert_int_equal(ban_match_peer(&m, "ipv4:203.0.113.9:1", 5000), -1);
    assert_int_equal(ban_match_peer(&m, "ipv4:203.0.113.9:2", 6000), -1);
    ban_match_free(&m);
}

static void connection_matched_once(void **state)
{
    (void)state;
    ban_match m;
    ban_match_init(&m);
    address_prefix p[1] = {prefix("198.51.100.0/24")};
    int64_t until[1] = {0};
    assert_int_equal(ban_match_set(&m, p, until, 1), 0);
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(ban_match_peer(&m, "ipv4:198.51.100.7:5555", 1), 0);
        assert_int_equal(ban_match_peer(&m, "ipv4:192.0.2.1:4444", 1), -1);
    }
    assert_int_equal(m.scans, 2);        /* once per connection */
    /* A ban lifted (a new set without it): the verdict is not kept. */
    assert_int_equal(ban_match_set(&m, p, until, 0), 0);
    assert_true(ban_match_empty(&m));
    assert_int_equal(ban_match_peer(&m, "ipv4:198.51.100.7:5555", 1), -1);
    /* A ban made on the other address: seen on the next call. */
    address_prefix q[1] = {prefix("192.0.2.0/24")};
    assert_int_equal(ban_match_set(&m, q, until, 1), 0);
    assert_int_equal(ban_match_peer(&m, "ipv4:192.0.2.1:4444", 1), 0);
    assert_int_equal(ban_match_peer(&m, "ipv4:198.51.100.7:5555", 1), -1);
    ban_match_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_does_nothing),
        cmocka_unit_test(bans_prefixes_and_expiry),
        cmocka_unit_test(connection_matched_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
