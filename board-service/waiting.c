/*
 * waiting.c — streams waiting on the loop: see waiting.h.
 */
#include "waiting.h"

#include <stdlib.h>
#include <string.h>

int board_waiting_add(board_waiting_list *l, void *entry)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        void **grown = realloc(l->e, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        l->e = grown;
        l->cap = cap;
    }
    l->e[l->n++] = entry;
    return 0;
}

void *board_waiting_remove(board_waiting_list *l, const rpc_call *call)
{
    for (int i = 0; i < l->n; i++) {
        board_waiting *w = l->e[i];
        if (w->call != call)
            continue;
        memmove(&l->e[i], &l->e[i + 1], (size_t)(l->n - i - 1) * sizeof *l->e);
        l->n--;
        return w;
    }
    return NULL;
}

void board_waiting_close(board_waiting_list *l, const char *why)
{
    for (int i = 0; i < l->n; i++) {
        board_waiting *w = l->e[i];
        if (!w->done) {
            w->done = true;
            rpc_call_finish_reason(w->call, RPC_UNAVAILABLE, "SHUTTING_DOWN", why);
        }
    }
}

void board_waiting_free(board_waiting_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->e[i]);
    free(l->e);
    *l = (board_waiting_list){0};
}
