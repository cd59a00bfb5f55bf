/*
 * test_pool.c — the bounded worker pool: work runs off the caller's thread,
 * done() runs on it exactly once per job, a full queue refuses, lanes take
 * turns and each holds at most its share, and destroying with jobs waiting
 * ends them cancelled.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "accounts_pool.h"

typedef struct test_job {
    accounts_job job;          /* first: the pool hands this back */
    pthread_t worked_on;
    int done_calls;
    bool worked;
    int worked_nth;            /* 1 for the first job worked, ... */
} test_job;

static atomic_int n_worked;

static atomic_int notified;
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_open = true;
static int blocked;            /* workers waiting at the gate (gate_lock) */

static void notify(void *user)
{
    (void)user;
    atomic_fetch_add(&notified, 1);
}

static void work(accounts_job *j)
{
    test_job *t = (test_job *)j;
    pthread_mutex_lock(&gate_lock);
    blocked++;
    pthread_cond_broadcast(&gate_cond);
    while (!gate_open)
        pthread_cond_wait(&gate_cond, &gate_lock);
    blocked--;
    pthread_mutex_unlock(&gate_lock);
    t->worked_on = pthread_self();
    t->worked = true;
    t->worked_nth = atomic_fetch_add(&n_worked, 1) + 1;
}

static void done(accounts_job *j)
{
    ((test_job *)j)->done_calls++;
}

static void set_gate(bool open)
{
    pthread_mutex_lock(&gate_lock);
    gate_open = open;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&gate_lock);
}

static void wait_blocked(int n)
{
    pthread_mutex_lock(&gate_lock);
    while (blocked < n)
        pthread_cond_wait(&gate_cond, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
}

static void runs_off_thread(void **state)
{
    (void)state;
    accounts_pool *p;
    assert_int_equal(accounts_pool_create(2, 8, 8, notify, NULL, &p), 0);
    test_job jobs[6];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 6; i++) {
        jobs[i].job.work = work;
        jobs[i].job.done = done;
        assert_int_equal(accounts_pool_submit(p, &jobs[i].job), 0);
    }
    int drained = 0;
    while (drained < 6)
        drained += accounts_pool_drain(p);     /* spins until all are in */
    for (int i = 0; i < 6; i++) {
        assert_true(jobs[i].worked);
        assert_int_equal(jobs[i].done_calls, 1);
        assert_false(jobs[i].job.cancelled);
        assert_false(pthread_equal(jobs[i].worked_on, pthread_self()));
    }
    assert_int_equal(atomic_load(&notified), 6);
    assert_int_equal(accounts_pool_busy(p), 0);
    accounts_pool_destroy(p);
}

static void full_queue_refuses(void **state)
{
    (void)state;
    accounts_pool *p;
    set_gate(false);
    assert_int_equal(accounts_pool_create(1, 2, 4, notify, NULL, &p), 0);
    test_job jobs[4];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 4; i++) {
        jobs[i].job.work = work;
        jobs[i].job.done = done;
    }
    assert_int_equal(accounts_pool_submit(p, &jobs[0].job), 0);
    wait_blocked(1);                          /* the one worker holds job 0 */
    assert_int_equal(accounts_pool_submit(p, &jobs[1].job), 0);
    assert_int_equal(accounts_pool_submit(p, &jobs[2].job), 0);
    assert_int_equal(accounts_pool_submit(p, &jobs[3].job), -1);   /* queue of 2 is full */
    assert_int_equal(accounts_pool_busy(p), 3);
    set_gate(true);
    int drained = 0;
    while (drained < 3)
        drained += accounts_pool_drain(p);
    assert_int_equal(jobs[3].done_calls, 0);   /* refused: never ran, never done */
    assert_false(jobs[3].worked);
    accounts_pool_destroy(p);
}

static void init_jobs(test_job *jobs, int n, const char *const *lanes)
{
    memset(jobs, 0, sizeof *jobs * (size_t)n);
    for (int i = 0; i < n; i++) {
        jobs[i].job.work = work;
        jobs[i].job.done = done;
        jobs[i].job.lane = lanes[i];
    }
}

/* One lane's backlog does not make another lane wait behind all of it:
 * with the one worker held, lane a queues three jobs, then b and c one
 * each; they are worked a, b, c, a, a (FIFO would be a, a, a, b, c). */
static void lanes_take_turns(void **state)
{
    (void)state;
    accounts_pool *p;
    set_gate(false);
    atomic_store(&n_worked, 0);
    assert_int_equal(accounts_pool_create(1, 8, 4, notify, NULL, &p), 0);
    const char *lanes[] = {"first", "a", "a", "a", "b", "c"};
    test_job jobs[6];
    init_jobs(jobs, 6, lanes);
    assert_int_equal(accounts_pool_submit(p, &jobs[0].job), 0);
    wait_blocked(1);                          /* the worker holds job 0 */
    for (int i = 1; i < 6; i++)
        assert_int_equal(accounts_pool_submit(p, &jobs[i].job), 0);
    set_gate(true);
    int drained = 0;
    while (drained < 6)
        drained += accounts_pool_drain(p);
    const int expect[] = {1, 2, 5, 6, 3, 4};  /* first; a; a; a; b; c */
    for (int i = 0; i < 6; i++)
        assert_int_equal(jobs[i].worked_nth, expect[i]);
    accounts_pool_destroy(p);
}

/* A lane holds at most lane_max jobs, waiting and running together; the
 * others still get in, and a lane has room again once its jobs finish. */
static void lane_share_refuses(void **state)
{
    (void)state;
    accounts_pool *p;
    set_gate(false);
    assert_int_equal(accounts_pool_create(1, 8, 2, notify, NULL, &p), 0);
    const char *lanes[] = {"a", "a", "a", "b", NULL, "a"};
    test_job jobs[6];
    init_jobs(jobs, 6, lanes);
    assert_int_equal(accounts_pool_submit(p, &jobs[0].job), 0);
    wait_blocked(1);                          /* a's first is running */
    assert_int_equal(accounts_pool_submit(p, &jobs[1].job), 0);
    assert_int_equal(accounts_pool_submit(p, &jobs[2].job), ACCOUNTS_POOL_LANE_FULL);
    assert_int_equal(accounts_pool_lane_busy(p, "a"), 2);
    assert_int_equal(accounts_pool_submit(p, &jobs[3].job), 0);     /* b: its own share */
    assert_int_equal(accounts_pool_submit(p, &jobs[4].job), 0);     /* no lane: "" */
    assert_int_equal(accounts_pool_lane_busy(p, ""), 1);
    assert_int_equal(accounts_pool_busy(p), 4);
    set_gate(true);
    int drained = 0;
    while (drained < 4)
        drained += accounts_pool_drain(p);
    assert_int_equal(jobs[2].done_calls, 0);  /* refused: never ran, never done */
    assert_int_equal(accounts_pool_lane_busy(p, "a"), 0);
    assert_int_equal(accounts_pool_submit(p, &jobs[5].job), 0);     /* room again */
    while (accounts_pool_drain(p) == 0)
        ;
    assert_true(jobs[5].worked);
    accounts_pool_destroy(p);
}

static void destroy_cancels(void **state)
{
    (void)state;
    accounts_pool *p;
    set_gate(false);
    assert_int_equal(accounts_pool_create(1, 4, 4, notify, NULL, &p), 0);
    test_job jobs[3];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 3; i++) {
        jobs[i].job.work = work;
        jobs[i].job.done = done;
        assert_int_equal(accounts_pool_submit(p, &jobs[i].job), 0);
    }
    wait_blocked(1);
    set_gate(true);       /* job 0 finishes; the worker may or may not take more */
    accounts_pool_destroy(p);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(jobs[i].done_calls, 1);
        assert_true(jobs[i].job.cancelled);
    }
    assert_true(jobs[0].worked);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runs_off_thread),
        cmocka_unit_test(full_queue_refuses),
        cmocka_unit_test(lanes_take_turns),
        cmocka_unit_test(lane_share_refuses),
        cmocka_unit_test(destroy_cancels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
