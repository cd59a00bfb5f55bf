/*
 * msgq.h — a thread-safe FIFO of pointers that wakes its reader through a
 * file descriptor (an eventfd), so a poll() loop or GTK's main loop can wait
 * on it together with other sources.
 *
 * Any thread may push; one thread pops. The queue does not own what it
 * carries until msgq_destroy, which frees what is left with the given function.
 */
#ifndef SUNGKA_MSGQ_H
#define SUNGKA_MSGQ_H

typedef struct msgq msgq;

msgq *msgq_create(void);
/* Returns 0, or -1 when out of memory (the item is not queued). */
int msgq_push(msgq *q, void *item);
/* The oldest item, or NULL when empty. */
void *msgq_pop(msgq *q);
/* Readable while the queue is not empty. */
int msgq_fd(const msgq *q);
void msgq_destroy(msgq *q, void (*free_item)(void *));

#endif /* SUNGKA_MSGQ_H */
