/*
 * relay_clients.c — what each observer's address holds at this relay and
 * how fast it joins, with the board service's limits and defaults
 * (--max-client-observers, --max-client-streams, --client-join-rate): a
 * relay is as open to strangers as a node, so one address must not take all
 * its watcher slots, streams or upstream joins.
 *
 * A relay below this one (a game's audience is a tree) that shows this
 * relay's --relay-key is treated as a board service treats this relay: its
 * joins count against the observer's address it names, its own slots and
 * streams against an entry of its own ("relay HOST") that no per-address
 * limit bounds; naming an address without the key is refused.
 *
 * An address's entry lives while it holds a watcher slot or a stream, or
 * while its join window is open; relay__clients_sweep frees the rest.
 * Chained hashing keeps each entry where it is, so watchers point at it.
 * Loop thread only.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay_internal.h"

#define JOIN_WINDOW_MS 1000

static size_t bucket(const relay_clients *t, const char *host)
{
    uint64_t h = 1469598103934665603ull;      /* FNV-1a */
    for (; *host; host++)
        h = (h ^ (unsigned char)*host) * 1099511628211ull;
    return (size_t)(h & (t->cap - 1));
}

static int grow(relay_clients *t)
{
    size_t old_cap = t->cap, cap = t->cap ? t->cap * 2 : 64;
    relay_client **old = t->buckets;
    relay_client **buckets = calloc(cap, sizeof *buckets);
    if (!buckets)
        return -1;
    t->buckets = buckets;
    t->cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
        for (relay_client *c = old[i], *next; c; c = next) {
            next = c->next;
            size_t b = bucket(t, c->host);
            c->next = buckets[b];
            buckets[b] = c;
        }
    }
    free(old);
    return 0;
}

/* Who sent call: a relay showing this relay's key, or not (relay_key.h). */
static relay_identity identify(const relay *r, rpc_call *call)
{
    char shown[RELAY_KEY_BYTES + 1], named[8];
    bool shows = rpc_call_metadata(call, RELAY_KEY_HEADER, shown, sizeof shown) >= 0;
    bool names = rpc_call_metadata(call, RELAY_FOR_HEADER, named, sizeof named) >= 0;
    relay_identity id = relay_key_identify(r->key, shows ? shown : NULL, names);
    sodium_memzero(shown, sizeof shown);
    return id;
}

static relay_client *find(relay *r, const char *host)
{
    relay_clients *t = &r->clients;
    if (t->cap) {
        for (relay_client *c = t->buckets[bucket(t, host)]; c; c = c->next)
            if (strcmp(c->host, host) == 0)
                return c;
    }
    if (t->n >= t->cap && grow(t) != 0)
        return NULL;
    relay_client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    snprintf(c->host, sizeof c->host, "%s", host);
    size_t b = bucket(t, host);
    c->next = t->buckets[b];
    t->buckets[b] = c;
    t->n++;
    return c;
}

relay_client *relay__client_of(relay *r, rpc_call *call)
{
    char host[ADDRESS_HOST_BYTES], below[ADDRESS_HOST_BYTES];
    address_host(rpc_call_peer(call), r->cfg.ipv6_prefix, host, sizeof host);
    if (identify(r, call) != RELAY_SHOWN)
        return find(r, host);
    snprintf(below, sizeof below, "relay %.*s", (int)sizeof below - 7, host);
    relay_client *c = find(r, below);
    if (c)
        c->relay = true;
    return c;
}

relay_client *relay__client_asking(relay *r, rpc_call *call)
{
    char named[ADDRESS_HOST_BYTES + 1];
    if (rpc_call_metadata(call, RELAY_FOR_HEADER, named, sizeof named) < 0 ||
        !relay_key_observer_ok(named, ADDRESS_HOST_BYTES) || identify(r, call) != RELAY_SHOWN)
        return relay__client_of(r, call);
    return find(r, named);
}

bool relay__identity_refused(relay *r, rpc_call *call)
{
    relay_identity id = identify(r, call);
    const char *sentence = relay_key_refusal(id, r->key[0] != '\0');
    if (id == RELAY_WRONG_KEY)
        rpc_call_finish_reason(call, RPC_UNAUTHENTICATED, "BAD_RELAY_KEY", sentence);
    else if (id == RELAY_UNPROVEN)
        rpc_call_finish_reason(call, RPC_PERMISSION_DENIED, "NOT_A_RELAY", sentence);
    return id == RELAY_WRONG_KEY || id == RELAY_UNPROVEN;
}

int relay__client_may_watch(relay *r, const relay_client *c, char *err, size_t errlen)
{
    if (c->relay || c->watchers < r->cfg.max_client_observers)
        return 0;
    snprintf(err, errlen,
             "your address already watches with %d observer seats at this relay (at most %d)",
             c->watchers, r->cfg.max_client_observers);
    return -1;
}

int relay__client_may_join(relay *r, const relay_client *holder, relay_client *asker,
                           char *err, size_t errlen)
{
    if (relay__client_may_watch(r, holder, err, errlen) != 0)
        return -1;
    if (address_window_admits(&asker->join_window_ms, &asker->joins, r->cfg.client_join_rate,
                              JOIN_WINDOW_MS, relay__now_ms()))
        return 0;
    snprintf(err, errlen, "too many joins from your address: at most %d a second",
             r->cfg.client_join_rate);
    return -1;
}

int relay__client_may_stream(relay *r, const relay_client *c, char *err, size_t errlen)
{
    if (c->relay || c->streams < r->cfg.max_client_streams)
        return 0;
    snprintf(err, errlen, "your address already has %d open event streams at this relay "
                          "(at most %d)", c->streams, r->cfg.max_client_streams);
    return -1;
}

void relay__clients_sweep(relay *r, int64_t now)
{
    relay_clients *t = &r->clients;
    for (size_t i = 0; i < t->cap; i++) {
        for (relay_client **at = &t->buckets[i]; *at;) {
            relay_client *c = *at;
            if (c->watchers == 0 && c->streams == 0 &&
                now - c->join_window_ms >= JOIN_WINDOW_MS &&
                now - c->log_window_ms >= RELAY_LIMIT_LOG_WINDOW_MS) {
                *at = c->next;
                free(c);
                t->n--;
            } else {
                at = &c->next;
            }
        }
    }
}

void relay__clients_free(relay *r)
{
    relay_clients *t = &r->clients;
    for (size_t i = 0; i < t->cap; i++) {
        for (relay_client *c = t->buckets[i], *next; c; c = next) {
            next = c->next;
            free(c);
        }
    }
    free(t->buckets);
    memset(t, 0, sizeof *t);
}
