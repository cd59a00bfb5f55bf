/*
 * test_pool.c — the bounded worker pool: work runs off the caller's thread,
 * done() runs on it exactly once per job, a full queue refuses, and
 * destroying with jobs waiting ends them cancelled.
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
} test_job;

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
    assert_int_equal(accounts_pool_create(2, 8, notify, NULL, &p), 0);
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
    assert_int_equal(accounts_pool_create(1, 2, notify, NULL, &p), 0);
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

static void destroy_cancels(void **state)
{
    (void)state;
    accounts_pool *p;
    set_gate(false);
    assert_int_equal(accounts_pool_create(1, 4, notify, NULL, &p), 0);
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
        cmocka_unit_test(destroy_cancels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
