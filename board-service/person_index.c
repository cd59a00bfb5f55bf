/*
 * person_index.c — participants by seat token (every game of the service),
 * by name within their game, and by each of their name's looks within their
 * game (who a guest's name could pass for), so neither a Board call nor a
 * join scans a crowd (the token scan was the loop thread's top cost at 1,000 games; the
 * name scan made 10,000 observers' joins quadratic).
 *
 * Open addressing with linear probing; removal shifts the cluster back so no
 * tombstones accumulate. The slot comes from a keyed mix (a random key per
 * index), so which slot a guess lands in says nothing about the tokens that
 * exist, and names chosen to collide cannot be chosen in advance; tokens are
 * compared in constant time.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "accounts.h"
#include "board_internal.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t mix_text(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n && s[i]; i++)
        h = mix(h ^ (unsigned char)s[i]);
    return h;
}

/* The slot a key starts probing at: a token, or a room and a name. */
static size_t slot_of_key(const person_index *ix, const room *r, const char *text)
{
    uint64_t h = ix->key;
    if (ix->by == PERSON_BY_TOKEN)
        h = mix_text(h, text, BOARD_TOKEN_HEX);
    else
        h = mix_text(mix(h ^ (uint64_t)(uintptr_t)r), text, BOARD_NAME_BYTES);
    return (size_t)h & (ix->cap - 1);
}

/* ... or a room and a look. */
static size_t slot_of_look(const person_index *ix, const room *r, uint64_t look)
{
    return (size_t)mix(mix(ix->key ^ (uint64_t)(uintptr_t)r) ^ look) & (ix->cap - 1);
}

static size_t slot_of(const person_index *ix, const participant *p)
{
    switch (ix->by) {
    case PERSON_BY_TOKEN:
        return slot_of_key(ix, p->room, p->token);
    case PERSON_BY_NAME:
        return slot_of_key(ix, p->room, p->name);
    case PERSON_BY_SKELETON:
    case PERSON_BY_LOOK:
        break;
    }
    return slot_of_look(ix, p->room, p->looks[ix->by == PERSON_BY_LOOK]);
}

bool board_tokens_equal(const char *a, const char *b)
{
    unsigned char diff = 0;
    for (int i = 0; i < BOARD_TOKEN_HEX; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

int person_index_init(person_index *ix, person_key by)
{
    memset(ix, 0, sizeof *ix);
    ix->by = by;
    ix->cap = 64;
    ix->slots = calloc(ix->cap, sizeof *ix->slots);
    if (getrandom(&ix->key, sizeof ix->key, 0) != sizeof ix->key)
        ix->key = (uint64_t)(uintptr_t)ix ^ (uint64_t)board_now_ms();
    return ix->slots ? 0 : -1;
}

void person_index_free(person_index *ix)
{
    free(ix->slots);
    ix->slots = NULL;
    ix->cap = ix->n = 0;
}

static void place(person_index *ix, participant *p)
{
    size_t i = slot_of(ix, p);
    while (ix->slots[i])
        i = (i + 1) & (ix->cap - 1);
    ix->slots[i] = p;
}

int person_index_add(person_index *ix, participant *p)
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

void person_index_remove(person_index *ix, participant *p)
{
    size_t mask = ix->cap - 1, i = slot_of(ix, p);
    while (ix->slots[i] && ix->slots[i] != p)
        i = (i + 1) & mask;
    if (!ix->slots[i])
        return;
    ix->slots[i] = NULL;
    ix->n--;
    /* Move back every later entry of the cluster that its home slot allows. */
    for (size_t j = (i + 1) & mask; ix->slots[j]; j = (j + 1) & mask) {
        size_t home = slot_of(ix, ix->slots[j]);
        bool between = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (between) {
            ix->slots[i] = ix->slots[j];
            ix->slots[j] = NULL;
            i = j;
        }
    }
}

participant *person_index_find_token(const person_index *ix, const char *token)
{
    if (!ix->cap || ix->by != PERSON_BY_TOKEN || strlen(token) != BOARD_TOKEN_HEX)
        return NULL;
    size_t mask = ix->cap - 1;
    for (size_t i = slot_of_key(ix, NULL, token); ix->slots[i]; i = (i + 1) & mask)
        if (board_tokens_equal(ix->slots[i]->token, token))
            return ix->slots[i];
    return NULL;
}

participant *person_index_find_look(const person_index *ix, const room *r, uint64_t look)
{
    if (!ix->cap || (ix->by != PERSON_BY_SKELETON && ix->by != PERSON_BY_LOOK))
        return NULL;
    int which = ix->by == PERSON_BY_LOOK;
    size_t mask = ix->cap - 1;
    for (size_t i = slot_of_look(ix, r, look); ix->slots[i]; i = (i + 1) & mask) {
        const participant *p = ix->slots[i];
        if (p->room == r && p->looks[which] == look)
            return ix->slots[i];
    }
    return NULL;
}

void person_name_looks(const char *name, uint64_t key, uint64_t out[2])
{
    accounts_name n;
    char why[128];
    bool prepared = accounts_name_prepare(name, &n, why, sizeof why) == ACCOUNTS_OK;
    /* Keyed: a name cannot be chosen to collide with another's in advance. */
    out[0] = mix_text(mix(key), prepared ? n.skeleton : name, sizeof n.skeleton);
    out[1] = mix_text(mix(key), prepared ? n.look : name, sizeof n.look);
}

participant *person_index_find_name(const person_index *ix, const room *r, const char *name)
{
    if (!ix->cap || ix->by != PERSON_BY_NAME)
        return NULL;
    size_t mask = ix->cap - 1;
    for (size_t i = slot_of_key(ix, r, name); ix->slots[i]; i = (i + 1) & mask) {
        const participant *p = ix->slots[i];
        if (p->room == r && strncmp(p->name, name, BOARD_NAME_BYTES) == 0)
            return ix->slots[i];
    }
    return NULL;
}

int board_people_init(board_service *svc)
{
    if (person_index_init(&svc->tokens, PERSON_BY_TOKEN) == 0 &&
        person_index_init(&svc->names, PERSON_BY_NAME) == 0 &&
        person_index_init(&svc->looks[0], PERSON_BY_SKELETON) == 0 &&
        person_index_init(&svc->looks[1], PERSON_BY_LOOK) == 0)
        return 0;
    board_people_free(svc);
    return -1;
}

void board_people_free(board_service *svc)
{
    person_index_free(&svc->tokens);
    person_index_free(&svc->names);
    person_index_free(&svc->looks[0]);
    person_index_free(&svc->looks[1]);
}
