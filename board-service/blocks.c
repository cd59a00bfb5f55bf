/*
 * blocks.c — players' blocks as delivery sees them (docs/rules.md, "Blocking
 * and reporting"): each participant of an account carries the sorted ids of
 * the accounts it blocks, read from the store when it subscribes and again
 * when its account changes them through this node, so that filtering a chat
 * line per recipient (room_log.c, may_see) is a binary search, not a query.
 *
 * In a cluster the blocks are rows of the shared database: a block made
 * through another node reaches this node's copy at the participant's next
 * subscription (a reconnection, a join, the game moving here), and pairing
 * (board_blocked_either) always asks the database. Loop thread only.
 */
#include <stdlib.h>
#include <string.h>

#include "board_internal.h"

static int by_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int board_blocks_load(board_service *svc, participant *p)
{
    if (!svc->store || p->account_id <= 0 || p->bot_level > 0)
        return 0;
    /* All of them, however many: --max-blocks lowered on a reload leaves
     * the blocks made before in force. */
    int max = 0, n = 0;
    if (store_block_count(svc->store, p->account_id, &max) != 0) {
        board_log_at(svc, LOG_ERR, "cannot read the blocks of %s: %s", p->name,
                     store_last_error(svc->store));
        return -1;
    }
    if (max == 0) {
        free(p->blocked);
        p->blocked = NULL;
        p->n_blocked = 0;
        return 0;
    }
    store_block *rows = calloc((size_t)max, sizeof *rows);
    int64_t *ids = rows ? malloc((size_t)max * sizeof *ids) : NULL;
    if (!ids || store_blocks_of(svc->store, p->account_id, max, rows, &n) != 0) {
        board_log_at(svc, LOG_ERR, "cannot read the blocks of %s: %s", p->name,
                     ids ? store_last_error(svc->store) : "out of memory");
        free(rows);
        free(ids);
        return -1;
    }
    for (int i = 0; i < n; i++)
        ids[i] = rows[i].account_id;
    free(rows);
    qsort(ids, (size_t)n, sizeof *ids, by_id);
    free(p->blocked);
    p->blocked = ids;
    p->n_blocked = n;
    return 0;
}

bool board_blocks(const participant *p, int64_t account)
{
    return account > 0 && p->n_blocked > 0 &&
           bsearch(&account, p->blocked, (size_t)p->n_blocked, sizeof account, by_id);
}

/* A scan of every participant here, as revoke_seats does: each call behind
 * it is a signed-in Block or Unblock, which the account's store rows bound. */
void board_blocks_changed(board_service *svc, int64_t account)
{
    for (int i = 0; i < svc->n_rooms; i++) {
        int n = 0, seated = 0;
        participant *const *people = room_people(svc->rooms[i], &n, &seated);
        for (int k = 0; k < n; k++)
            if (people[k]->account_id == account)
                board_blocks_load(svc, people[k]);
    }
}

int board_blocked_either(board_service *svc, int64_t account_a, int64_t account_b)
{
    if (!svc->store || account_a <= 0 || account_b <= 0)
        return 0;
    int rc = store_blocked_either(svc->store, account_a, account_b);
    if (rc < 0)
        board_log_at(svc, LOG_ERR, "cannot read the blocks: %s", store_last_error(svc->store));
    return rc;
}

void board_person_free(participant *p)
{
    if (!p)
        return;
    free(p->blocked);
    free(p);
}
