/*
 * address.h — what a limit per client address needs on both sides of a
 * relay: the host a peer string names, and a rate window. The board service
 * (board-service/clients.c) and the relay (relay/relay_clients.c) keep their
 * own tables of addresses, with these same two rules. Any thread; no state.
 */
#ifndef SUNGKA_ADDRESS_H
#define SUNGKA_ADDRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ADDRESS_HOST_BYTES 64      /* "ipv6:2001:db8::/64": a peer's address key */
#define ADDRESS_IPV6_PREFIX 64     /* --ipv6-prefix's default */

/* The key a limit per address counts a peer under, into out: its host
 * without the port ("ipv4:127.0.0.1:5555" -> "ipv4:127.0.0.1"), since one
 * person's many connections come from many ports; an IPv6 address by its
 * first ipv6_prefix bits ("ipv6:[2001:db8::1]:5555" -> "ipv6:2001:db8::/64"),
 * since one host holds a whole prefix; an IPv4-mapped IPv6 address (an IPv4
 * client of a dual-stack socket) as the IPv4 one. Brackets percent-encoded
 * and zones ("%25eth0") are understood. Other peers (unix:) as they are.
 * 0, or -1 when ipv6_prefix is not 1..128 for an IPv6 peer (out then holds
 * the whole address). */
int address_host(const char *peer, int ipv6_prefix, char *out /* OUT */, size_t len);

/* A rate window: at most `limit` events per `window_ms`, the window starting
 * at *start (reset when it has passed). Counts the event and returns true
 * when it is admitted. */
bool address_window_admits(int64_t *start, int *count, int limit, int window_ms, int64_t now);

/* An address or a prefix of addresses, as an operator bans it
 * (admin_rpc.c): IPv4 or IPv6, the bits past `bits` cleared. An IPv4-mapped
 * IPv6 address is its IPv4 address. */
typedef struct address_prefix {
    int family;                /* 4 or 6 */
    uint8_t bytes[16];         /* 4 used for IPv4 */
    int bits;                  /* 0..32 or 0..128 */
} address_prefix;
#define ADDRESS_PREFIX_TEXT_BYTES 64

/* "198.51.100.7" (a /32), "198.51.100.0/24", "2001:db8::1" (a /128),
 * "2001:db8::/48" into *out, and its canonical text ("198.51.100.0/24")
 * into text when not NULL. 0, or -1 with a sentence in err. */
int address_prefix_parse(const char *in, address_prefix *out /* OUT */, char *text /* OUT */,
                         size_t text_len, char *err, size_t errlen);
/* The address of a peer as gRPC names it ("ipv4:198.51.100.7:5555",
 * "ipv6:[2001:db8::1]:5555", percent-encoded or not) as a whole prefix
 * (/32, /128): 0, or -1 when the peer is no IP address (unix:). */
int address_of_peer(const char *peer, address_prefix *out /* OUT */);
/* Whether addr (a whole address) lies in prefix p. */
bool address_prefix_contains(const address_prefix *p, const address_prefix *addr);

#endif /* SUNGKA_ADDRESS_H */
