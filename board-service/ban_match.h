/*
 * ban_match.h — which of the operator's address bans a call's peer lies in,
 * for the admit hook that runs before every call (admin_rpc.c: board_admit).
 *
 * The address bans are kept apart from the account bans and mutes, so that
 * a service with no address ban does no work per call (ban_match_empty).
 * With some, a peer ("ipv4:198.51.100.7:5555": one connection) is parsed and
 * compared with every prefix once, and the verdict kept in a small table
 * keyed by the peer's text until the bans change (ban_match_set), so the
 * calls of a connection after its first cost one hash and one string
 * compare. A verdict "banned" is checked against its ban's end each time,
 * so an expiry needs no new set. The cost: PEER slots of memory (about 40
 * KiB); a collision only evicts, and the evicted peer is matched again.
 *
 * Loop thread only (the admit hook's). ban_match_set copies what it is
 * given; nothing here is borrowed after a call returns.
 */
#ifndef SUNGKA_BAN_MATCH_H
#define SUNGKA_BAN_MATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "address.h"

#define BAN_MATCH_SLOTS 256            /* peers whose verdict is kept */
#define BAN_MATCH_PEER_BYTES 128       /* a longer peer text is matched every call */

typedef struct ban_match_slot {
    char peer[BAN_MATCH_PEER_BYTES];
    uint64_t version;                  /* the set it was matched against */
    int ban;                           /* the ban's index, -1 for none */
} ban_match_slot;

typedef struct ban_match {
    address_prefix *prefixes;          /* n of each, as given to ban_match_set */
    int64_t *until_ms;                 /* 0: no end */
    int n;
    uint64_t version;                  /* moves with every set: older verdicts are void */
    ban_match_slot slots[BAN_MATCH_SLOTS];
    uint64_t scans;                    /* peers compared with every prefix (for the tests) */
} ban_match;

/* An empty set (a zeroed ban_match is one too). */
void ban_match_init(ban_match *m);
void ban_match_free(ban_match *m);
/* The address bans from now on: n prefixes, each with its end (0: none).
 * 0, or -1 when out of memory (the set is then empty). */
int ban_match_set(ban_match *m, const address_prefix *prefixes, const int64_t *until_ms, int n);
/* Whether there is no address ban at all: the common case, no work. */
static inline bool ban_match_empty(const ban_match *m)
{
    return m->n == 0;
}
/* The index (in the last set) of a ban in force at now_ms that peer lies
 * in, or -1 (none, or a peer that is no IP address). */
int ban_match_peer(ban_match *m, const char *peer, int64_t now_ms);

#endif /* SUNGKA_BAN_MATCH_H */
