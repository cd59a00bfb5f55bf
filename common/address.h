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

#endif /* SUNGKA_ADDRESS_H */
