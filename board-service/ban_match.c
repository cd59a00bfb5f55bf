/*
 * ban_match.c — the address bans a call's peer lies in, with each peer's
 * verdict kept until the bans change (ban_match.h says why and the cost).
 */
#include <stdlib.h>
#include <string.h>

#include "ban_match.h"

void ban_match_init(ban_match *m)
{
    memset(m, 0, sizeof *m);
}

void ban_match_free(ban_match *m)
{
    free(m->prefixes);
    free(m->until_ms);
    ban_match_init(m);
}

int ban_match_set(ban_match *m, const address_prefix *prefixes, const int64_t *until_ms, int n)
{
    uint64_t version = m->version + 1;
    ban_match_free(m);
    m->version = version;        /* every verdict kept is void now */
    if (n <= 0)
        return 0;
    m->prefixes = malloc((size_t)n * sizeof *m->prefixes);
    m->until_ms = malloc((size_t)n * sizeof *m->until_ms);
    if (!m->prefixes || !m->until_ms) {
        ban_match_free(m);
        m->version = version;
        return -1;
    }
    memcpy(m->prefixes, prefixes, (size_t)n * sizeof *prefixes);
    memcpy(m->until_ms, until_ms, (size_t)n * sizeof *until_ms);
    m->n = n;
    return 0;
}

static bool in_force(const ban_match *m, int i, int64_t now_ms)
{
    return m->until_ms[i] == 0 || m->until_ms[i] > now_ms;
}

/* Compare peer with every ban: the first in force that holds it, or -1. */
static int scan(ban_match *m, const char *peer, int64_t now_ms)
{
    address_prefix addr;
    m->scans++;
    if (address_of_peer(peer, &addr) != 0)
        return -1;
    for (int i = 0; i < m->n; i++)
        if (in_force(m, i, now_ms) && address_prefix_contains(&m->prefixes[i], &addr))
            return i;
    return -1;
}

static uint64_t hash_peer(const char *s)
{
    uint64_t h = 1469598103934665603ull;      /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int ban_match_peer(ban_match *m, const char *peer, int64_t now_ms)
{
    if (ban_match_empty(m) || !peer)
        return -1;
    size_t len = strlen(peer);
    if (len >= BAN_MATCH_PEER_BYTES)
        return scan(m, peer, now_ms);
    ban_match_slot *s = &m->slots[hash_peer(peer) % BAN_MATCH_SLOTS];
    if (s->version == m->version && strcmp(s->peer, peer) == 0) {
        /* Known: not banned stays so until the bans change (time only ends
         * bans); a ban may have ended since, and another may hold it. */
        if (s->ban < 0 || in_force(m, s->ban, now_ms))
            return s->ban;
    }
    memcpy(s->peer, peer, len + 1);
    s->version = m->version;
    s->ban = scan(m, peer, now_ms);
    return s->ban;
}
