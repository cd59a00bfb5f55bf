/*
 * waiting.h — streams waiting on the loop: server-streaming calls a module
 * keeps open while it has something to tell them later (pairing.c: a
 * player's QuickPair, until a table is found; tournament.c: a
 * WatchTournament, until the tournament ends). One list per module; the
 * module's own struct for each call begins with a board_waiting, and the
 * list holds pointers to those structs.
 *
 * The life of one: the handler fills it and board_waiting_add's it, then
 * registers its done callback (rpc_call_on_done); the module finishes the
 * call when it has its answer, setting done first; the call's done callback,
 * which comes once for every call however it ended (finished, cancelled, the
 * connection gone), takes it out with board_waiting_remove, gives back what
 * its address was counted (from) and frees it.
 *
 * Ownership: an entry belongs to the list from board_waiting_add until
 * board_waiting_remove hands it back (the caller frees it) or
 * board_waiting_free frees it with free(). Threads: the loop's only, every
 * function and every field.
 */
#ifndef SUNGKA_BOARD_WAITING_H
#define SUNGKA_BOARD_WAITING_H

#include <stdbool.h>

#include "rpc.h"

struct board_client;

/* The first member of each module's struct for a waiting call. */
typedef struct board_waiting {
    rpc_call *call;              /* the stream */
    struct board_client *from;   /* its address, which counts it while it waits (the
                                    module's counter); NULL until known */
    bool done;                   /* finished: only its done callback is still to come */
} board_waiting;

typedef struct board_waiting_list {
    void **e;                    /* the entries (each begins with a board_waiting),
                                    oldest first */
    int n, cap;
} board_waiting_list;

/* Append entry (its board_waiting first): 0, or -1 out of memory (then it
 * is not in the list and still the caller's). */
int board_waiting_add(board_waiting_list *l, void *entry);
/* Take out the entry of call and hand it to the caller (to free); NULL
 * when call has none here. */
void *board_waiting_remove(board_waiting_list *l, const rpc_call *call);
/* Finish every call not yet done UNAVAILABLE SHUTTING_DOWN with why (the
 * service stops); the entries stay until their done callbacks. */
void board_waiting_close(board_waiting_list *l, const char *why);
/* Free every entry (free()) and the list's array; the list is empty
 * after. */
void board_waiting_free(board_waiting_list *l);

#endif /* SUNGKA_BOARD_WAITING_H */
