/*
 * bench_util.c — sungka-bench's basics, waiting and statistics
 * (bench_util.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

/* ------------------------------------------------------------------ basics */

int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void sleep_ms(int ms)
{
    struct timespec d = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0 && errno == EINTR) {
    }
}

void remove_db(const char *path)
{
    const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    char p[256];
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        unlink(p);
    }
}

void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "sungka-bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);   /* the atexit cleanup (bench_children.c) runs */
}

static int64_t t_begin;

void progress_start(int64_t t0)
{
    t_begin = t0;
}

void progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "  [%5.1f s] ", (double)(now_ns() - t_begin) / 1e9);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* ----------------------------------------------------------------- waiting */

/* The main thread checks what it waits for under wmu (bench_util.h). */
static pthread_mutex_t wmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wcv = PTHREAD_COND_INITIALIZER;

void wake_main(void)
{
    pthread_mutex_lock(&wmu);
    pthread_cond_broadcast(&wcv);
    pthread_mutex_unlock(&wmu);
}

/* Wait until *a >= ta and (b NULL or *b >= tb). */
void wait_counts(atomic_int *a, int ta, atomic_int *b, int tb, const char *what)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += WAIT_MS / 1000;
    pthread_mutex_lock(&wmu);
    while (atomic_load(a) < ta || (b && atomic_load(b) < tb)) {
        if (pthread_cond_timedwait(&wcv, &wmu, &dl) == ETIMEDOUT &&
            (atomic_load(a) < ta || (b && atomic_load(b) < tb))) {
            pthread_mutex_unlock(&wmu);
            fatal("timed out waiting for %s (%d of %d; %d of %d)", what, atomic_load(a), ta,
                  b ? atomic_load(b) : 0, tb);
        }
    }
    pthread_mutex_unlock(&wmu);
}

void main_wait_lock(void)
{
    pthread_mutex_lock(&wmu);
}

void main_wait_unlock(void)
{
    pthread_mutex_unlock(&wmu);
}

void main_wait_timed(const struct timespec *deadline)
{
    pthread_cond_timedwait(&wcv, &wmu, deadline);
}

void wake_main_locked(void)
{
    pthread_cond_broadcast(&wcv);
}

/* ------------------------------------------------------------------- stats */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

stats summarize(double *us, int n)
{
    stats s = {0};
    if (n <= 0)
        return s;
    qsort(us, (size_t)n, sizeof *us, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += us[i];
    int i99 = (int)(n * 0.99 + 0.5) - 1;   /* nearest rank */
    s.n = n;
    s.p50 = us[(n - 1) / 2];
    s.p99 = us[i99 < 0 ? 0 : i99 >= n ? n - 1 : i99];
    s.mean = sum / n;
    s.max = us[n - 1];
    return s;
}
