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

#define ADDRESS_HOST_BYTES 64      /* "ipv6:[...]", the host part of a peer */

/* The host part of a peer ("ipv4:127.0.0.1:5555" -> "ipv4:127.0.0.1") into
 * out: one person's many connections come from many ports, not many hosts. */
void address_host(const char *peer, char *out /* OUT */, size_t len);

/* A rate window: at most `limit` events per `window_ms`, the window starting
 * at *start (reset when it has passed). Counts the event and returns true
 * when it is admitted. */
bool address_window_admits(int64_t *start, int *count, int limit, int window_ms, int64_t now);

#endif /* SUNGKA_ADDRESS_H */
