/*
 * clients.c — what each client address holds and how fast it acts, so that
 * limits hold per address and not only per identity: names and observer
 * chairs are free, addresses are not (board_internal.h, "clients.c").
 *
 * An address's entry lives while it holds a stream or an observer chair, or
 * while one of its rate windows is open; the timer sweep frees the rest, so
 * the table is as large as the set of recently active addresses. Chained
 * hashing keeps each entry where it is, so participants can point at it.
 *
 * A relay started with this service's --relay-key (relay_key.h) is not an
 * address like the others: its joins count against the observer's address
 * it names, and the seats and streams it holds for its audience count
 * against its own entry, which no per-address limit bounds (the relay's own
 * limits per address and --max-games do). Without the key, naming an
 * observer's address is refused, so nobody can spend another's allowance.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "address.h"
#include "board_rpc.h"

#define JOIN_WINDOW_MS 1000

static uint64_t hash_host(const char *s)
{
    uint64_t h = 1469598103934665603ull;      /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The address key of call's peer: IPv6 by --ipv6-prefix (address.h). */
static void peer_host(board_service *svc, rpc_call *call, char *out, size_t len)
{
    address_host(rpc_call_peer(call), svc->cfg.ipv6_prefix, out, len);
}

/* Who sent call: a relay showing this service's key, or not (relay_key.h). */
static relay_identity identify(board_service *svc, rpc_call *call)
{
    char shown[RELAY_KEY_BYTES + 1], named[8];
    bool shows = rpc_call_metadata(call, RELAY_KEY_HEADER, shown, sizeof shown) >= 0;
    bool names = rpc_call_metadata(call, RELAY_FOR_HEADER, named, sizeof named) >= 0;
    relay_identity id = relay_key_identify(svc->relay_key, shows ? shown : NULL, names);
    sodium_memzero(shown, sizeof shown);
    return id;
}

static bool from_relay(board_service *svc, rpc_call *call)
{
    return identify(svc, call) == RELAY_SHOWN;
}

/* The observer's address an authenticated relay names, into out; false when
 * none (or one no peer address looks like). */
static bool named_observer(board_service *svc, rpc_call *call, char *out, size_t len)
{
    char named[BOARD_HOST_BYTES + 1];
    if (rpc_call_metadata(call, RELAY_FOR_HEADER, named, sizeof named) < 0 ||
        !relay_key_observer_ok(named, BOARD_HOST_BYTES) || !from_relay(svc, call))
        return false;
    snprintf(out, len, "%s", named);
    return true;
}

void board_peer_host(board_service *svc, rpc_call *call, char *out, size_t len)
{
    if (!named_observer(svc, call, out, len))
        peer_host(svc, call, out, len);
}

bool board_relay_refused(board_service *svc, rpc_call *call)
{
    relay_identity id = identify(svc, call);
    const char *sentence = relay_key_refusal(id, svc->relay_key[0] != '\0');
    if (id == RELAY_WRONG_KEY)
        rpc_call_finish_reason(call, RPC_UNAUTHENTICATED, "BAD_RELAY_KEY", sentence);
    else if (id == RELAY_UNPROVEN)
        rpc_call_finish_reason(call, RPC_PERMISSION_DENIED, "NOT_A_RELAY", sentence);
    return id == RELAY_WRONG_KEY || id == RELAY_UNPROVEN;
}

static int grow(client_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    board_client **buckets = calloc(cap, sizeof *buckets);
    if (!buckets)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        for (board_client *c = t->buckets[i], *next; c; c = next) {
            next = c->next;
            size_t b = hash_host(c->host) & (cap - 1);
            c->next = buckets[b];
            buckets[b] = c;
        }
    }
    free(t->buckets);
    t->buckets = buckets;
    t->cap = cap;
    return 0;
}

board_client *board_client_of(board_service *svc, rpc_call *call)
{
    char host[BOARD_HOST_BYTES];
    if (!from_relay(svc, call)) {
        peer_host(svc, call, host, sizeof host);
        return board_client_find(svc, host);
    }
    char relay_host[BOARD_HOST_BYTES];
    peer_host(svc, call, host, sizeof host);
    snprintf(relay_host, sizeof relay_host, "relay %.*s", (int)sizeof relay_host - 7, host);
    board_client *c = board_client_find(svc, relay_host);
    if (c)
        c->relay = true;
    return c;
}

board_client *board_client_asking(board_service *svc, rpc_call *call)
{
    char host[BOARD_HOST_BYTES];
    if (!named_observer(svc, call, host, sizeof host))
        return board_client_of(svc, call);
    return board_client_find(svc, host);
}

board_client *board_client_find(board_service *svc, const char *host)
{
    client_table *t = &svc->clients;
    if (t->cap) {
        for (board_client *c = t->buckets[hash_host(host) & (t->cap - 1)]; c; c = c->next)
            if (strcmp(c->host, host) == 0)
                return c;
    }
    if (t->n >= t->cap && grow(t) != 0)
        return NULL;
    board_client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    snprintf(c->host, sizeof c->host, "%s", host);
    size_t b = hash_host(host) & (t->cap - 1);
    c->next = t->buckets[b];
    t->buckets[b] = c;
    t->n++;
    return c;
}

static bool idle(const board_client *c, int64_t now)
{
    return c->streams == 0 && c->observers == 0 && c->pairings == 0 &&
           now - c->join_window_ms >= JOIN_WINDOW_MS &&
           now - c->chat_window_ms >= BOARD_CHAT_WINDOW_MS;
}

void board_clients_sweep(board_service *svc, int64_t now)
{
    client_table *t = &svc->clients;
    for (size_t i = 0; i < t->cap; i++) {
        for (board_client **at = &t->buckets[i]; *at;) {
            board_client *c = *at;
            if (idle(c, now)) {
                *at = c->next;
                free(c);
                t->n--;
            } else {
                at = &c->next;
            }
        }
    }
}

void board_clients_free(board_service *svc)
{
    client_table *t = &svc->clients;
    for (size_t i = 0; i < t->cap; i++) {
        for (board_client *c = t->buckets[i], *next; c; c = next) {
            next = c->next;
            free(c);
        }
    }
    free(t->buckets);
    memset(t, 0, sizeof *t);
}

int board_client_may_join(board_service *svc, board_client *holder, board_client *asker,
                          bool observe, char *err, size_t errlen)
{
    const board_config *cfg = &svc->cfg;
    if (observe && !holder->relay && holder->observers >= cfg->max_client_observers) {
        snprintf(err, errlen, "your address already watches with %d observer seats (at most %d)",
                 holder->observers, cfg->max_client_observers);
        board_log_limit(svc, asker->host, err);
        return -1;
    }
    if (!address_window_admits(&asker->join_window_ms, &asker->joins, cfg->client_join_rate,
                       JOIN_WINDOW_MS, board_now_ms())) {
        snprintf(err, errlen, "too many joins from your address: at most %d a second",
                 cfg->client_join_rate);
        board_log_limit(svc, asker->host, err);
        return -1;
    }
    return 0;
}

int board_client_may_chat(board_service *svc, board_client *c, char *err, size_t errlen)
{
    int limit = svc->cfg.client_chat_rate;
    if (address_window_admits(&c->chat_window_ms, &c->chats, limit, BOARD_CHAT_WINDOW_MS,
                      board_now_ms()))
        return 0;
    snprintf(err, errlen, "too many messages from your address: at most %d every %d seconds",
             limit, BOARD_CHAT_WINDOW_MS / 1000);
    board_log_limit(svc, c->host, err);
    return -1;
}

int board_client_may_stream(board_service *svc, const board_client *c, int more, char *err,
                            size_t errlen)
{
    int max = svc->cfg.max_client_streams;
    if (c->relay || more <= max - c->streams)
        return 0;
    if (more == 1)
        snprintf(err, errlen, "your address already has %d open event streams (at most %d)",
                 c->streams, max);
    else
        snprintf(err, errlen, "your address already has %d open event streams and this call "
                 "asks for %d more (at most %d; each subscription is one)", c->streams, more,
                 max);
    board_log_limit(svc, c->host, err);
    return -1;
}
