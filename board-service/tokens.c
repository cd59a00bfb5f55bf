/*
 * tokens.c — the index from seat token to participant, so a Board call finds
 * its caller in constant time however many games the service hosts (the
 * scan it replaces was the loop thread's top cost at 1,000 games).
 *
 * Open addressing with linear probing; removal shifts the cluster back so no
 * tombstones accumulate. The slot comes from a keyed mix of the token (a
 * random key per process), so which slot a guess lands in says nothing
 * about the tokens that exist; tokens are compared in constant time.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "board_internal.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static size_t slot_of(const token_index *ix, const char *token)
{
    uint64_t h = ix->key;
    for (int i = 0; i < BOARD_TOKEN_HEX; i++)
        h = mix(h ^ (unsigned char)token[i]);
    return (size_t)h & (ix->cap - 1);
}

bool board_tokens_equal(const char *a, const char *b)
{
    unsigned char diff = 0;
    for (int i = 0; i < BOARD_TOKEN_HEX; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

int token_index_init(token_index *ix)
{
    memset(ix, 0, sizeof *ix);
    ix->cap = 64;
    ix->slots = calloc(ix->cap, sizeof *ix->slots);
    if (getrandom(&ix->key, sizeof ix->key, 0) != sizeof ix->key)
        ix->key = (uint64_t)(uintptr_t)ix ^ (uint64_t)board_now_ms();
    return ix->slots ? 0 : -1;
}

void token_index_free(token_index *ix)
{
    free(ix->slots);
    ix->slots = NULL;
    ix->cap = ix->n = 0;
}

static void place(token_index *ix, participant *p)
{
    size_t i = slot_of(ix, p->token);
    while (ix->slots[i])
        i = (i + 1) & (ix->cap - 1);
    ix->slots[i] = p;
}

int token_index_add(token_index *ix, participant *p)
{
    if ((ix->n + 1) * 2 > ix->cap) {          /* keep it at most half full */
        participant **old = ix->slots;
        size_t old_cap = ix->cap;
        participant **grown = calloc(old_cap * 2, sizeof *grown);
        if (!grown)
            return -1;
        ix->slots = grown;
        ix->cap = old_cap * 2;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i])
                place(ix, old[i]);
        free(old);
    }
    place(ix, p);
    ix->n++;
    return 0;
}

void token_index_remove(token_index *ix, participant *p)
{
    size_t mask = ix->cap - 1, i = slot_of(ix, p->token);
    while (ix->slots[i] && ix->slots[i] != p)
        i = (i + 1) & mask;
    if (!ix->slots[i])
        return;
    ix->slots[i] = NULL;
    ix->n--;
    /* Move back every later entry of the cluster that its home slot allows. */
    for (size_t j = (i + 1) & mask; ix->slots[j]; j = (j + 1) & mask) {
        size_t home = slot_of(ix, ix->slots[j]->token);
        bool between = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (between) {
            ix->slots[i] = ix->slots[j];
            ix->slots[j] = NULL;
            i = j;
        }
    }
}

participant *token_index_find(const token_index *ix, const char *token)
{
    if (!ix->cap || strlen(token) != BOARD_TOKEN_HEX)
        return NULL;
    size_t mask = ix->cap - 1;
    for (size_t i = slot_of(ix, token); ix->slots[i]; i = (i + 1) & mask)
        if (board_tokens_equal(ix->slots[i]->token, token))
            return ix->slots[i];
    return NULL;
}
