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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ipv4_without_port),
        cmocka_unit_test(ipv6_by_prefix),
        cmocka_unit_test(prefix_is_configurable),
        cmocka_unit_test(mapped_ipv4_is_ipv4),
        cmocka_unit_test(the_longest_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
