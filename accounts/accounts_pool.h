/*
 * accounts_pool.h — a small, bounded pool of worker threads for the slow work
 * of accounts (Argon2id: ~0.1 s and 64 MiB a call), so that an event loop
 * never runs it and a crowd of sign-ins cannot grow memory without bound.
 *
 * A fixed number of threads takes jobs from a queue of fixed capacity;
 * accounts_pool_submit refuses a job when the queue is full (the caller
 * answers "try later"), so at most threads * 64 MiB are hashing and at most
 * `queue_max` jobs wait. A finished job goes on a done list, and the pool
 * calls `notify` (from the worker thread) so that the owner's loop wakes and
 * calls accounts_pool_drain, which runs each job's done() on the loop thread.
 *
 * Fairness: each job names its lane (the client address it is for). Every
 * lane waits in its own FIFO, and the workers take one job from each lane
 * in turn (round-robin), so one lane's backlog delays another lane's job by
 * at most one job per lane, not by the whole queue. A lane holds at most
 * `lane_max` jobs waiting or running: one address cannot fill the queue,
 * it takes queue_max / lane_max addresses to.
 *
 * Ownership: a job is the caller's memory (embed acct_job in your own
 * struct); from a successful submit until its done() runs, the pool holds it
 * and the caller must not touch it or free it. done() runs exactly once per
 * submitted job: from accounts_pool_drain after its work ran, or from
 * accounts_pool_destroy with cancelled = true (its work may not have run).
 * done() may free the job.
 *
 * Threads: create, submit, drain and destroy from one owner thread (the
 * loop); work() runs on a worker; notify() on a worker, and must be
 * thread-safe (rpc_server_wake is).
 */
#ifndef SUNGKA_ACCOUNTS_POOL_H
#define SUNGKA_ACCOUNTS_POOL_H

#include <stdbool.h>

/* Lane names longer than this share the lane of their first bytes. */
#define ACCOUNTS_POOL_LANE_BYTES 64

typedef struct accounts_job {
    void (*work)(struct accounts_job *job);   /* public: on a worker thread */
    void (*done)(struct accounts_job *job);   /* public: on the owner's thread */
    const char *lane;                         /* public: whose job (NULL: ""); read
                                               * during submit only */
    bool cancelled;                           /* read-only in done(): destroyed first */
    struct accounts_job *next;                /* private: the pool's lists */
    struct pool_lane *in_lane;                /* private: the lane it counts against */
} accounts_job;

/* What accounts_pool_submit answers. */
enum {
    ACCOUNTS_POOL_FULL = -1,       /* the queue is full, or the pool is stopping */
    ACCOUNTS_POOL_LANE_FULL = -2,  /* the job's lane holds lane_max jobs already */
};

typedef struct accounts_pool accounts_pool;

/* Start `threads` workers (1..16) with room for `queue_max` (>= 1) waiting
 * jobs, at most `lane_max` (>= 1) of them waiting or running for one lane.
 * notify(user) is called after each job's work. 0 and *out, or -1. */
int accounts_pool_create(int threads, int queue_max, int lane_max,
                         void (*notify)(void *user), void *user, accounts_pool **out);

/* Queue a job in its lane: 0, or ACCOUNTS_POOL_FULL / ACCOUNTS_POOL_LANE_FULL
 * (then the job is untouched and done() will not run). */
int accounts_pool_submit(accounts_pool *p, accounts_job *job);

/* Run done() of every finished job, in the order they finished. Returns how
 * many ran. */
int accounts_pool_drain(accounts_pool *p);

/* Jobs waiting or running (for limits and for tests). */
int accounts_pool_busy(const accounts_pool *p);

/* Jobs of one lane waiting or running (NULL: ""). */
int accounts_pool_lane_busy(const accounts_pool *p, const char *lane);

/* Stop: jobs that have not started are not run; wait for the running ones;
 * then run done() of every job not yet drained, with cancelled = true (its
 * work may or may not have run; nobody waits for its result any more).
 * NULL is ignored. */
void accounts_pool_destroy(accounts_pool *p);

#endif /* SUNGKA_ACCOUNTS_POOL_H */
