/*
 * accounts_pool.c — the bounded worker pool (accounts_pool.h): one mutex,
 * one condition for the workers, a FIFO of waiting jobs and a FIFO of
 * finished ones. The lock is never held while a job works.
 */
#include <pthread.h>
#include <stdlib.h>

#include "accounts_pool.h"

#define MAX_THREADS 16

typedef struct job_list {
    accounts_job *head, *tail;
} job_list;

struct accounts_pool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready;
    job_list waiting;          /* locked */
    job_list finished;         /* locked */
    int n_waiting, n_running;  /* locked */
    int queue_max;
    bool stopping;             /* locked */
    void (*notify)(void *user);
    void *user;
    int n_threads;
    pthread_t threads[MAX_THREADS];
};

static void push(job_list *l, accounts_job *j)
{
    j->next = NULL;
    if (l->tail)
        l->tail->next = j;
    else
        l->head = j;
    l->tail = j;
}

static accounts_job *pop(job_list *l)
{
    accounts_job *j = l->head;
    if (j && !(l->head = j->next))
        l->tail = NULL;
    return j;
}

static void *worker(void *arg)
{
    accounts_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stopping && !p->waiting.head)
            pthread_cond_wait(&p->work_ready, &p->lock);
        if (p->stopping)
            break;
        accounts_job *j = pop(&p->waiting);
        p->n_waiting--;
        p->n_running++;
        pthread_mutex_unlock(&p->lock);
        j->work(j);
        pthread_mutex_lock(&p->lock);
        p->n_running--;
        push(&p->finished, j);
        pthread_mutex_unlock(&p->lock);
        p->notify(p->user);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int accounts_pool_create(int threads, int queue_max, void (*notify)(void *user), void *user,
                         accounts_pool **out)
{
    *out = NULL;
    if (threads < 1 || threads > MAX_THREADS || queue_max < 1 || !notify)
        return -1;
    accounts_pool *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work_ready, NULL);
    p->queue_max = queue_max;
    p->notify = notify;
    p->user = user;
    for (; p->n_threads < threads; p->n_threads++) {
        if (pthread_create(&p->threads[p->n_threads], NULL, worker, p) != 0) {
            accounts_pool_destroy(p);
            return -1;
        }
    }
    *out = p;
    return 0;
}

int accounts_pool_submit(accounts_pool *p, accounts_job *job)
{
    pthread_mutex_lock(&p->lock);
    bool room = !p->stopping && p->n_waiting < p->queue_max;
    if (room) {
        job->cancelled = false;
        push(&p->waiting, job);
        p->n_waiting++;
        pthread_cond_signal(&p->work_ready);
    }
    pthread_mutex_unlock(&p->lock);
    return room ? 0 : -1;
}

int accounts_pool_drain(accounts_pool *p)
{
    pthread_mutex_lock(&p->lock);
    job_list done = p->finished;
    p->finished = (job_list){NULL, NULL};
    pthread_mutex_unlock(&p->lock);
    int n = 0;
    for (accounts_job *j; (j = pop(&done)); n++)
        j->done(j);          /* may free j: pop read its next already */
    return n;
}

int accounts_pool_busy(const accounts_pool *p)
{
    accounts_pool *mp = (accounts_pool *)p;     /* the lock is not part of the value */
    pthread_mutex_lock(&mp->lock);
    int n = p->n_waiting + p->n_running;
    pthread_mutex_unlock(&mp->lock);
    return n;
}

void accounts_pool_destroy(accounts_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    pthread_cond_broadcast(&p->work_ready);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->n_threads; i++)
        pthread_join(p->threads[i], NULL);
    /* Nobody waits any more: finished and never-started jobs alike end
     * cancelled, so their owners answer "shutting down". */
    for (job_list *l = &p->finished;; l = &p->waiting) {
        for (accounts_job *j; (j = pop(l));) {
            j->cancelled = true;
            j->done(j);
        }
        if (l == &p->waiting)
            break;
    }
    pthread_cond_destroy(&p->work_ready);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
