/*
 * msgq.c — the agent's message queue: a mutex-protected singly linked list
 * plus an eventfd that is readable exactly while the list is non-empty.
 * Both change under the mutex, so the fd never claims an empty queue for long.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "msgq.h"

typedef struct node {
    struct node *next;
    void *item;
} node;

struct msgq {
    pthread_mutex_t lock;
    node *head, *tail;
    int fd;
};

msgq *msgq_create(void)
{
    msgq *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (q->fd < 0) {
        free(q);
        return NULL;
    }
    pthread_mutex_init(&q->lock, NULL);
    return q;
}

int msgq_push(msgq *q, void *item)
{
    node *n = malloc(sizeof *n);
    if (!n)
        return -1;
    n->next = NULL;
    n->item = item;
    pthread_mutex_lock(&q->lock);
    if (q->tail) {
        q->tail->next = n;
    } else {
        q->head = n;
        uint64_t one = 1;
        ssize_t w = write(q->fd, &one, sizeof one);   /* wake the reader */
        (void)w;
    }
    q->tail = n;
    pthread_mutex_unlock(&q->lock);
    return 0;
}

void *msgq_pop(msgq *q)
{
    pthread_mutex_lock(&q->lock);
    node *n = q->head;
    void *item = NULL;
    if (n) {
        q->head = n->next;
        if (!q->head) {
            q->tail = NULL;
            uint64_t count;
            ssize_t r = read(q->fd, &count, sizeof count);   /* now empty: quiet the fd */
            (void)r;
        }
        item = n->item;
        free(n);
    }
    pthread_mutex_unlock(&q->lock);
    return item;
}

int msgq_fd(const msgq *q)
{
    return q->fd;
}

void msgq_destroy(msgq *q, void (*free_item)(void *))
{
    if (!q)
        return;
    void *item;
    while ((item = msgq_pop(q)) != NULL)
        if (free_item)
            free_item(item);
    close(q->fd);
    pthread_mutex_destroy(&q->lock);
    free(q);
}
