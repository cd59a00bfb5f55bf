/*
 * registry.c — the service's games by id. The registry owns each room from
 * board_rooms_add until board_rooms_remove frees it; rooms[] is in no
 * order (a removal moves the last room into the gap, so walk it backwards
 * when removing), and an open-addressing hash of the ids finds a room in
 * O(1), where a scan cost every call of a crowd of games. The ids are the
 * service's own (a sequence), never a client's, so nobody can aim at one
 * chain; a client's id is only ever looked up.
 * The counts of lost and diverged rooms (svc->n_lost, n_diverged) count
 * registered rooms only: a room's flags are added when it comes in and
 * taken away when it goes, whatever removed it. Loop thread only.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board_internal.h"

static size_t hash_id(const char *id)
{
    uint64_t h = 1469598103934665603ull;            /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return (size_t)h;
}

/* The slot holding id, or the free slot where it would go. */
static size_t slot_of(const board_service *svc, const char *id)
{
    size_t mask = svc->room_slots_cap - 1;
    size_t i = hash_id(id) & mask;
    while (svc->room_slots[i] &&
           strcmp(room_id(svc->rooms[svc->room_slots[i] - 1]), id) != 0)
        i = (i + 1) & mask;
    return i;
}

/* Slots at least twice the rooms: chains stay short. */
static int grow_slots(board_service *svc)
{
    size_t cap = svc->room_slots_cap ? svc->room_slots_cap * 2 : 64;
    int *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    free(svc->room_slots);
    svc->room_slots = slots;
    svc->room_slots_cap = cap;
    for (int i = 0; i < svc->n_rooms; i++)
        svc->room_slots[slot_of(svc, room_id(svc->rooms[i]))] = i + 1;
    return 0;
}

int board_rooms_add(board_service *svc, room *r)
{
    assert(!board_find_room(svc, room_id(r)));
    if (svc->n_rooms == svc->rooms_cap) {
        int cap = svc->rooms_cap ? svc->rooms_cap * 2 : 16;
        room **grown = realloc(svc->rooms, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        svc->rooms = grown;
        svc->rooms_cap = cap;
    }
    if ((size_t)(svc->n_rooms + 1) * 2 > svc->room_slots_cap && grow_slots(svc) != 0)
        return -1;
    svc->rooms[svc->n_rooms++] = r;
    svc->room_slots[slot_of(svc, room_id(r))] = svc->n_rooms;
    svc->n_lost += room_is_lost(r);
    svc->n_diverged += room_is_diverged(r);
    return 0;
}

room *board_find_room(board_service *svc, const char *id)
{
    if (!svc->room_slots_cap)
        return NULL;
    int at = svc->room_slots[slot_of(svc, id)];
    return at ? svc->rooms[at - 1] : NULL;
}

/* Empty slot i, moving back the entries after it that belong before it
 * (linear probing's deletion: no tombstones to sweep later). */
static void clear_slot(board_service *svc, size_t i)
{
    size_t mask = svc->room_slots_cap - 1;
    size_t j = i;
    svc->room_slots[i] = 0;
    for (;;) {
        j = (j + 1) & mask;
        int at = svc->room_slots[j];
        if (!at)
            return;
        size_t home = hash_id(room_id(svc->rooms[at - 1])) & mask;
        /* Entry j may move to i unless its home lies cyclically in (i, j]. */
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        svc->room_slots[i] = at;
        svc->room_slots[j] = 0;
        i = j;
    }
}

room *board_rooms_take(board_service *svc, int index)
{
    assert(index >= 0 && index < svc->n_rooms);
    room *r = svc->rooms[index];
    svc->n_lost -= room_is_lost(r);
    svc->n_diverged -= room_is_diverged(r);
    clear_slot(svc, slot_of(svc, room_id(r)));
    int last = --svc->n_rooms;
    if (index != last) {
        svc->rooms[index] = svc->rooms[last];
        svc->room_slots[slot_of(svc, room_id(svc->rooms[index]))] = index + 1;
    }
    assert(svc->n_lost >= 0 && svc->n_diverged >= 0);
    return r;
}

void board_rooms_remove(board_service *svc, int index)
{
    room_free(board_rooms_take(svc, index));
}

int board_rooms_index(const board_service *svc, const room *r)
{
    if (!svc->room_slots_cap)
        return -1;
    int at = svc->room_slots[slot_of(svc, room_id(r))];
    return at && svc->rooms[at - 1] == r ? at - 1 : -1;
}

void board_rooms_free(board_service *svc)
{
    while (svc->n_rooms > 0)
        board_rooms_remove(svc, svc->n_rooms - 1);
    free(svc->rooms);
    free(svc->room_slots);
    svc->rooms = NULL;
    svc->room_slots = NULL;
    svc->rooms_cap = 0;
    svc->room_slots_cap = 0;
}
