/*
 * rpc_pool.c — channels to the nodes of a cluster, one in use (rpc.h,
 * "Pools").
 *
 * The pool starts with the addresses it is given (a client's --server list)
 * and learns more as calls name them (RPC_ENDPOINT_KEY). Each channel is
 * made on first use and kept until rpc_pool_destroy, so that a call still in
 * flight on a node the pool has left ends as calls do. mu guards the list
 * and the node in use; it is never held across a call.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc.h"

#define POOL_MAX_NODES 16

struct rpc_pool {
    rpc_client_options opts;
    pthread_mutex_t mu;
    struct {
        char address[RPC_ADDRESS_BYTES];
        rpc_client *client;        /* NULL until first used */
    } nodes[POOL_MAX_NODES];
    int n_nodes;
    int n_given;                   /* the first n_given are the addresses given */
    int node;                      /* in use */
};

bool rpc_target_ok(const char *s)
{
    if (strncmp(s, "unix:", 5) == 0)
        return s[5] != '\0';
    if (strstr(s, ":///"))
        return true;
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || !colon[1] || strlen(colon + 1) > 5)
        return false;
    for (const char *c = colon + 1; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    long port = strtol(colon + 1, NULL, 10);
    if (port < 1 || port > 65535)
        return false;
    if (s[0] == '[')
        return colon[-1] == ']' && colon - s > 2;
    for (const char *c = s; c < colon; c++)
        if (*c == ':' || *c == '[' || *c == ']' || (unsigned char)*c <= ' ')
            return false;
    return true;
}

/* Use node i, making its channel if it has none. Locked. */
static int use(rpc_pool *p, int i)
{
    if (!p->nodes[i].client &&
        rpc_client_create(p->nodes[i].address, &p->opts, &p->nodes[i].client) != 0)
        return -1;
    p->node = i;
    return 0;
}

int rpc_pool_create(const char *addresses, const rpc_client_options *opts, rpc_pool **out)
{
    *out = NULL;
    rpc_pool *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    if (opts)
        p->opts = *opts;
    for (const char *a = addresses; *a;) {
        size_t len = strcspn(a, ",");
        if (len >= RPC_ADDRESS_BYTES || p->n_nodes == POOL_MAX_NODES) {
            free(p);
            return -1;
        }
        if (len > 0) {
            char *at = p->nodes[p->n_nodes++].address;
            snprintf(at, RPC_ADDRESS_BYTES, "%.*s", (int)len, a);
            if (!rpc_target_ok(at)) {
                free(p);
                return -1;
            }
        }
        a += len + (a[len] == ',');
    }
    p->n_given = p->n_nodes;
    if (p->n_nodes == 0 || use(p, 0) != 0) {
        free(p);
        return -1;
    }
    pthread_mutex_init(&p->mu, NULL);
    *out = p;
    return 0;
}

void rpc_pool_destroy(rpc_pool *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n_nodes; i++)
        if (p->nodes[i].client)
            rpc_client_destroy(p->nodes[i].client);   /* cancels, waits for callbacks */
    pthread_mutex_destroy(&p->mu);
    free(p);
}

rpc_client *rpc_pool_client(rpc_pool *p)
{
    pthread_mutex_lock(&p->mu);
    rpc_client *c = p->nodes[p->node].client;
    pthread_mutex_unlock(&p->mu);
    return c;
}

const char *rpc_pool_address(rpc_pool *p, char *buf, size_t len)
{
    pthread_mutex_lock(&p->mu);
    snprintf(buf, len, "%s", p->nodes[p->node].address);
    pthread_mutex_unlock(&p->mu);
    return buf;
}

/* The index of address's node, learned if new; -1 when the pool is full.
 * Locked. */
static int node_at(rpc_pool *p, const char *address)
{
    int i = 0;
    while (i < p->n_nodes && strcmp(p->nodes[i].address, address) != 0)
        i++;
    if (i == p->n_nodes) {
        if (i == POOL_MAX_NODES)
            return -1;
        snprintf(p->nodes[i].address, RPC_ADDRESS_BYTES, "%s", address);
        p->nodes[i].client = NULL;
        p->n_nodes++;
    }
    return i;
}

int rpc_pool_go_to(rpc_pool *p, const char *address)
{
    if (!address[0] || strlen(address) >= RPC_ADDRESS_BYTES)
        return -1;
    pthread_mutex_lock(&p->mu);
    int i = node_at(p, address);
    int rc = i >= 0 ? use(p, i) : -1;
    pthread_mutex_unlock(&p->mu);
    return rc;
}

rpc_client *rpc_pool_client_at(rpc_pool *p, const char *address)
{
    if (!address[0] || strlen(address) >= RPC_ADDRESS_BYTES)
        return NULL;
    pthread_mutex_lock(&p->mu);
    int i = node_at(p, address);
    if (i >= 0 && !p->nodes[i].client &&
        rpc_client_create(p->nodes[i].address, &p->opts, &p->nodes[i].client) != 0)
        i = -1;
    rpc_client *c = i >= 0 ? p->nodes[i].client : NULL;
    pthread_mutex_unlock(&p->mu);
    return c;
}

bool rpc_pool_next(rpc_pool *p)
{
    pthread_mutex_lock(&p->mu);
    bool moved = false;
    if (p->n_given > 1 || p->node >= p->n_given) {
        /* from a node a call named, start again at the first given */
        int next = p->node < p->n_given ? (p->node + 1) % p->n_given : 0;
        moved = use(p, next) == 0;
    }
    pthread_mutex_unlock(&p->mu);
    return moved;
}

void rpc_pool_go_to_first(rpc_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->node = 0;                   /* made at create */
    pthread_mutex_unlock(&p->mu);
}

bool rpc_pool_follow(rpc_pool *p, const rpc_status *st)
{
    if (st->code == RPC_OK)
        return false;
    if (st->endpoint[0])
        return rpc_pool_go_to(p, st->endpoint) == 0;
    return st->code == RPC_UNAVAILABLE && rpc_pool_next(p);
}
