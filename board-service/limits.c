/*
 * limits.c — counted rate windows for what identities must not make cheap:
 * sign-in failures and password checks per name and per client address,
 * accounts made per address (board_internal.h, "limits.c").
 *
 * A fixed table of slots, each a 64-bit keyed hash (SipHash, libsodium's
 * crypto_shorthash, with a key drawn at start) of "kind:what", a count and
 * its window's start. Fixed, so that a flood of names costs no memory:
 * when every slot holds an open window, the oldest window is forgotten —
 * which lets a flood of other names buy a little forgetting, but no more
 * than the flood itself costs the flooder in failures of its own address.
 * A name is hashed, not kept: the table holds nothing a person typed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "board_internal.h"

struct limit_slot {
    uint64_t h;                /* 0: free */
    int count;
    int64_t start_ms;
    int window_ms;
};

int board_limits_init(limit_table *t, size_t cap)
{
    t->slots = calloc(cap, sizeof *t->slots);
    if (!t->slots)
        return -1;
    t->cap = cap;
    randombytes_buf(t->key, sizeof t->key);
    return 0;
}

void board_limits_free(limit_table *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static uint64_t hash_of(const limit_table *t, const char *kind, const char *what)
{
    unsigned char out[crypto_shorthash_BYTES];
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s:%s", kind, what);
    crypto_shorthash(out, (const unsigned char *)buf, n < (int)sizeof buf ? (size_t)n
                                                                        : sizeof buf - 1, t->key);
    uint64_t h;
    memcpy(&h, out, sizeof h);
    return h ? h : 1;
}

static bool open_window(const struct limit_slot *s, int64_t now)
{
    return s->h && now - s->start_ms < s->window_ms;
}

/* The slot of h: found, or a free/expired one, or the oldest (forgotten). */
static struct limit_slot *slot(limit_table *t, uint64_t h, int64_t now, bool make)
{
    size_t first = (size_t)(h % t->cap);
    struct limit_slot *spare = NULL, *oldest = NULL;
    for (size_t i = 0; i < t->cap; i++) {
        struct limit_slot *s = &t->slots[(first + i) % t->cap];
        if (s->h == h)
            return s;
        if (!s->h)
            break;             /* probing ends at a never-used slot */
        if (!spare && !open_window(s, now))
            spare = s;
        if (!oldest || s->start_ms < oldest->start_ms)
            oldest = s;
    }
    if (!make)
        return NULL;
    if (!spare) {
        for (size_t i = 0; i < t->cap && !spare; i++) {
            struct limit_slot *s = &t->slots[(first + i) % t->cap];
            if (!s->h)
                spare = s;
        }
    }
    struct limit_slot *s = spare ? spare : oldest;
    /* Reusing a slot keeps the probe chain whole: slots are never emptied. */
    memset(s, 0, sizeof *s);
    s->h = h;
    return s;
}

int board_limit_count(limit_table *t, const char *kind, const char *what, int window_ms,
                      int64_t now)
{
    struct limit_slot *s = slot(t, hash_of(t, kind, what), now, false);
    if (!s || now - s->start_ms >= window_ms)
        return 0;
    return s->count;
}

void board_limit_add(limit_table *t, const char *kind, const char *what, int window_ms,
                     int64_t now)
{
    struct limit_slot *s = slot(t, hash_of(t, kind, what), now, true);
    if (now - s->start_ms >= s->window_ms || s->window_ms != window_ms) {
        s->start_ms = now;
        s->window_ms = window_ms;
        s->count = 0;
    }
    s->count++;
}

void board_limit_take_back(limit_table *t, const char *kind, const char *what, int window_ms,
                           int64_t now)
{
    struct limit_slot *s = slot(t, hash_of(t, kind, what), now, false);
    if (s && s->window_ms == window_ms && now - s->start_ms < s->window_ms && s->count > 0)
        s->count--;
}
