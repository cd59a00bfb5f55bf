/*
 * relay_clients.c — what each observer's address holds at this relay and
 * how fast it joins, with the board service's limits and defaults
 * (--max-client-observers, --max-client-streams, --client-join-rate): a
 * relay is as open to strangers as a node, so one address must not take all
 * its watcher slots, streams or upstream joins.
 *
 * An address's entry lives while it holds a watcher slot or a stream, or
 * while its join window is open; relay__clients_sweep frees the rest.
 * Chained hashing keeps each entry where it is, so watchers point at it.
 * Loop thread only.
 */
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

relay_client *relay__client_of(relay *r, rpc_call *call)
{
    char host[ADDRESS_HOST_BYTES];
    address_host(rpc_call_peer(call), host, sizeof host);
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

int relay__client_may_watch(relay *r, const relay_client *c, char *err, size_t errlen)
{
    if (c->watchers < r->cfg.max_client_observers)
        return 0;
    snprintf(err, errlen,
             "your address already watches with %d observer seats at this relay (at most %d)",
             c->watchers, r->cfg.max_client_observers);
    return -1;
}

int relay__client_may_join(relay *r, relay_client *c, char *err, size_t errlen)
{
    if (relay__client_may_watch(r, c, err, errlen) != 0)
        return -1;
    if (address_window_admits(&c->join_window_ms, &c->joins, r->cfg.client_join_rate,
                              JOIN_WINDOW_MS, relay__now_ms()))
        return 0;
    snprintf(err, errlen, "too many joins from your address: at most %d a second",
             r->cfg.client_join_rate);
    return -1;
}

int relay__client_may_stream(relay *r, const relay_client *c, char *err, size_t errlen)
{
    if (c->streams < r->cfg.max_client_streams)
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
                now - c->join_window_ms >= JOIN_WINDOW_MS) {
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
