/*
 * test_address.c — the key every limit per address counts under, at a
 * board service and at a relay (address_host, address.h): the port is not
 * part of it, an IPv6
 * client counts by its prefix (one host holds a whole /64), an IPv4 client
 * of a dual-stack socket as the IPv4 address it is, however gRPC writes
 * the peer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "address.h"

static void assert_key(const char *peer, int prefix, const char *want)
{
    char key[ADDRESS_HOST_BYTES];
    assert_int_equal(address_host(peer, prefix, key, sizeof key), 0);
    assert_string_equal(key, want);
}

static void ipv4_without_port(void **state)
{
    (void)state;
    assert_key("ipv4:192.0.2.7:5555", 64, "ipv4:192.0.2.7");
    assert_key("ipv4:192.0.2.7:6666", 64, "ipv4:192.0.2.7");
    assert_key("unix:/run/sungka.sock", 64, "unix:/run/sungka.sock");
}

static void ipv6_by_prefix(void **state)
{
    (void)state;
    assert_key("ipv6:[2001:db8::1]:5555", 64, "ipv6:2001:db8::/64");
    assert_key("ipv6:[2001:db8::2]:6666", 64, "ipv6:2001:db8::/64");
    assert_key("ipv6:[2001:db8::ffff:ffff:ffff:ffff]:1", 64, "ipv6:2001:db8::/64");
    assert_key("ipv6:[2001:db8:0:1::1]:5555", 64, "ipv6:2001:db8:0:1::/64");
    assert_key("ipv6:[::1]:5555", 64, "ipv6:::/64");
    /* gRPC percent-encodes the brackets in newer versions; a zone is no
     * part of the address. */
    assert_key("ipv6:%5B2001:db8::3%5D:5555", 64, "ipv6:2001:db8::/64");
    assert_key("ipv6:[fe80::1%25eth0]:5555", 64, "ipv6:fe80::/64");
}

static void prefix_is_configurable(void **state)
{
    (void)state;
    assert_key("ipv6:[2001:db8:0:1::1]:5555", 48, "ipv6:2001:db8::/48");
    assert_key("ipv6:[2001:db8::1]:5555", 128, "ipv6:2001:db8::1/128");
    assert_key("ipv6:[2001:db8::2]:5555", 128, "ipv6:2001:db8::2/128");
    assert_key("ipv6:[2001:db8:ffff::1]:5555", 33, "ipv6:2001:db8:8000::/33");
    char key[ADDRESS_HOST_BYTES];
    assert_int_equal(address_host("ipv6:[::1]:5555", 0, key, sizeof key), -1);
    assert_int_equal(address_host("ipv6:[::1]:5555", 129, key, sizeof key), -1);
}

static void mapped_ipv4_is_ipv4(void **state)
{
    (void)state;
    assert_key("ipv6:[::ffff:1.2.3.4]:5555", 64, "ipv4:1.2.3.4");
    assert_key("ipv6:[::ffff:1.2.3.4]:6666", 128, "ipv4:1.2.3.4");
    assert_key("ipv6:%5B::ffff:127.0.0.1%5D:5555", 64, "ipv4:127.0.0.1");
}

static void the_longest_fits(void **state)
{
    (void)state;
    assert_key("ipv6:[2001:db8:1234:5678:9abc:def0:1234:5678]:65535", 128,
               "ipv6:2001:db8:1234:5678:9abc:def0:1234:5678/128");
}

/* A ban's prefix (admin_rpc.c): parsed, its host bits cleared, written
 * back canonical; a peer is in it or not. */
static bool banned(const char *prefix, const char *peer)
{
    address_prefix p, a;
    char text[ADDRESS_PREFIX_TEXT_BYTES], err[128];
    assert_int_equal(address_prefix_parse(prefix, &p, text, sizeof text, err, sizeof err), 0);
    assert_int_equal(address_of_peer(peer, &a), 0);
    return address_prefix_contains(&p, &a);
}

static void assert_prefix(const char *in, const char *want)
{
    address_prefix p;
    char text[ADDRESS_PREFIX_TEXT_BYTES], err[128];
    assert_int_equal(address_prefix_parse(in, &p, text, sizeof text, err, sizeof err), 0);
    assert_string_equal(text, want);
}

static void ban_prefixes(void **state)
{
    (void)state;
    assert_prefix("198.51.100.7", "198.51.100.7/32");
    assert_prefix("198.51.100.7/24", "198.51.100.0/24");
    assert_prefix("2001:db8::1", "2001:db8::1/128");
    assert_prefix("2001:db8:ffff::1/33", "2001:db8:8000::/33");
    assert_prefix("::ffff:10.1.2.3/120", "10.1.2.0/24");
    assert_prefix("0.0.0.0/0", "0.0.0.0/0");
    address_prefix p;
    char err[128];
    assert_int_equal(address_prefix_parse("bob", &p, NULL, 0, err, sizeof err), -1);
    assert_int_equal(address_prefix_parse("10.0.0.0/33", &p, NULL, 0, err, sizeof err), -1);
    assert_int_equal(address_prefix_parse("10.0.0.0/", &p, NULL, 0, err, sizeof err), -1);
    assert_int_equal(address_prefix_parse("::/129", &p, NULL, 0, err, sizeof err), -1);
    assert_int_equal(address_prefix_parse("", &p, NULL, 0, err, sizeof err), -1);

    assert_true(banned("127.0.0.2/32", "ipv4:127.0.0.2:5555"));
    assert_false(banned("127.0.0.2/32", "ipv4:127.0.0.1:5555"));
    assert_true(banned("127.0.0.0/8", "ipv4:127.0.0.1:5555"));
    assert_true(banned("10.1.0.0/15", "ipv4:10.0.255.1:1"));
    assert_false(banned("10.1.0.0/16", "ipv4:10.0.255.1:1"));
    assert_true(banned("2001:db8::/32", "ipv6:[2001:db8:1::5]:5555"));
    assert_true(banned("2001:db8::/32", "ipv6:%5B2001:db8:1::5%5D:5555"));
    assert_false(banned("2001:db8::/32", "ipv6:[2001:db9::5]:5555"));
    assert_true(banned("1.2.3.4", "ipv6:[::ffff:1.2.3.4]:5555"));    /* a dual-stack socket */
    assert_false(banned("::/0", "ipv4:1.2.3.4:5"));                  /* families apart */
    address_prefix a;
    assert_int_equal(address_of_peer("unix:/tmp/s", &a), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ipv4_without_port),
        cmocka_unit_test(ipv6_by_prefix),
        cmocka_unit_test(prefix_is_configurable),
        cmocka_unit_test(mapped_ipv4_is_ipv4),
        cmocka_unit_test(the_longest_fits),
        cmocka_unit_test(ban_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
