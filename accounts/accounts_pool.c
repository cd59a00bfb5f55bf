/*
 * accounts_pool.c — the bounded worker pool (accounts_pool.h): one mutex,
 * one condition for the workers, a FIFO of waiting jobs per lane, a ring of
 * the lanes that have jobs waiting (served in turn) and a FIFO of finished
 * jobs. The lock is never held while a job works.
 *
 * Lanes live in a fixed array of queue_max + threads entries: a lane is in
 * use while it holds a job (waiting or running), so there are never more in
 * use than jobs held, and submit never needs memory. Finding a lane scans
 * the array; at the default 34 entries that costs less than one hash.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_pool.h"

#define MAX_THREADS 16

typedef struct job_list {
    accounts_job *head, *tail;
} job_list;

struct pool_lane {
    char key[ACCOUNTS_POOL_LANE_BYTES];
    int held;                  /* jobs waiting or running; 0: the lane is free */
    job_list waiting;
    struct pool_lane *next_turn;   /* the ring of lanes with jobs waiting */
    bool in_ring;
};

struct accounts_pool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready;
    struct pool_lane *lanes;   /* locked: n_lanes entries */
    int n_lanes;
    struct pool_lane *ring_head, *ring_tail;   /* locked: next lane to serve first */
    job_list finished;         /* locked */
    int n_waiting, n_running;  /* locked */
    int queue_max, lane_max;
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

/* Give lane a turn after the lanes already waiting. Locked. */
static void ring_append(accounts_pool *p, struct pool_lane *lane)
{
    lane->next_turn = NULL;
    lane->in_ring = true;
    if (p->ring_tail)
        p->ring_tail->next_turn = lane;
    else
        p->ring_head = lane;
    p->ring_tail = lane;
}

/* The next job in turn: the first lane's oldest job; that lane goes to the
 * back of the ring if it has more. NULL when nothing waits. Locked. */
static accounts_job *next_in_turn(accounts_pool *p)
{
    struct pool_lane *lane = p->ring_head;
    if (!lane)
        return NULL;
    if (!(p->ring_head = lane->next_turn))
        p->ring_tail = NULL;
    lane->in_ring = false;
    accounts_job *j = pop(&lane->waiting);
    if (lane->waiting.head)
        ring_append(p, lane);
    p->n_waiting--;
    return j;
}

/* A held job let go of its lane (finished, or never started). Locked. */
static void lane_release(accounts_job *j)
{
    if (j->in_lane && --j->in_lane->held == 0)
        j->in_lane->key[0] = '\0';
    j->in_lane = NULL;
}

static void *worker(void *arg)
{
    accounts_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stopping && !p->ring_head)
            pthread_cond_wait(&p->work_ready, &p->lock);
        if (p->stopping)
            break;
        accounts_job *j = next_in_turn(p);
        p->n_running++;
        pthread_mutex_unlock(&p->lock);
        j->work(j);
        pthread_mutex_lock(&p->lock);
        p->n_running--;
        lane_release(j);
        push(&p->finished, j);
        pthread_mutex_unlock(&p->lock);
        p->notify(p->user);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int accounts_pool_create(int threads, int queue_max, int lane_max,
                         void (*notify)(void *user), void *user, accounts_pool **out)
{
    *out = NULL;
    if (threads < 1 || threads > MAX_THREADS || queue_max < 1 || lane_max < 1 || !notify)
        return -1;
    accounts_pool *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->n_lanes = queue_max + threads;
    p->lanes = calloc((size_t)p->n_lanes, sizeof *p->lanes);
    if (!p->lanes) {
        free(p);
        return -1;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work_ready, NULL);
    p->queue_max = queue_max;
    p->lane_max = lane_max;
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

/* The lane in use under key, or NULL. Locked. */
static struct pool_lane *lane_of(const accounts_pool *p, const char *key)
{
    for (int i = 0; i < p->n_lanes; i++)
        if (p->lanes[i].held > 0 && strcmp(p->lanes[i].key, key) == 0)
            return &p->lanes[i];
    return NULL;
}

/* A free lane: there always is one while a job may be let in, since lanes
 * in use <= jobs held < queue_max + threads. Locked. */
static struct pool_lane *free_lane(accounts_pool *p, const char *key)
{
    for (int i = 0; i < p->n_lanes; i++) {
        struct pool_lane *lane = &p->lanes[i];
        if (lane->held == 0) {
            snprintf(lane->key, sizeof lane->key, "%s", key);
            lane->waiting = (job_list){NULL, NULL};
            return lane;
        }
    }
    return NULL;
}

int accounts_pool_submit(accounts_pool *p, accounts_job *job)
{
    char key[ACCOUNTS_POOL_LANE_BYTES];
    snprintf(key, sizeof key, "%s", job->lane ? job->lane : "");
    pthread_mutex_lock(&p->lock);
    int rc = 0;
    struct pool_lane *lane = lane_of(p, key);
    if (p->stopping || p->n_waiting >= p->queue_max)
        rc = ACCOUNTS_POOL_FULL;
    else if (lane && lane->held >= p->lane_max)
        rc = ACCOUNTS_POOL_LANE_FULL;
    else if (!lane && !(lane = free_lane(p, key)))
        rc = ACCOUNTS_POOL_FULL;
    if (rc == 0) {
        job->cancelled = false;
        job->in_lane = lane;
        lane->held++;
        push(&lane->waiting, job);
        if (!lane->in_ring)
            ring_append(p, lane);
        p->n_waiting++;
        pthread_cond_signal(&p->work_ready);
    }
    pthread_mutex_unlock(&p->lock);
    return rc;
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

int accounts_pool_lane_busy(const accounts_pool *p, const char *lane)
{
    char key[ACCOUNTS_POOL_LANE_BYTES];
    snprintf(key, sizeof key, "%s", lane ? lane : "");
    accounts_pool *mp = (accounts_pool *)p;
    pthread_mutex_lock(&mp->lock);
    const struct pool_lane *l = lane_of(p, key);
    int n = l ? l->held : 0;
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
    for (accounts_job *j; (j = pop(&p->finished)) || (j = next_in_turn(p));) {
        lane_release(j);
        j->cancelled = true;
        j->done(j);
    }
    pthread_cond_destroy(&p->work_ready);
    pthread_mutex_destroy(&p->lock);
    free(p->lanes);
    free(p);
}
