/*
 * bench_util.h — sungka-bench's basics: the clock, fatal errors and
 * progress lines, the main thread's wait for its clients' callbacks, and
 * latency statistics.
 *
 * Threads
 *   The client threads' callbacks change atomics, then call wake_main(); the
 *   main thread waits in wait_counts() (or, for a wait of another shape,
 *   under main_wait_lock()), checking its condition under the same mutex, so
 *   no wake is lost. fatal() may be called from any thread: it exits the
 *   process (the atexit cleanup of bench_children.h runs). progress() and
 *   summarize() are the main thread's.
 *
 * Ownership: nothing here keeps a caller's pointer; summarize() sorts the
 * caller's array in place.
 */
#ifndef SUNGKA_BENCH_UTIL_H
#define SUNGKA_BENCH_UTIL_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define WAIT_MS 20000   /* any single wait; longer means something broke */

/* ------------------------------------------------------------------ basics */

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t now_ns(void);
/* Sleeps ms milliseconds, whatever signals come. */
void sleep_ms(int ms);
/* Removes an SQLite file and its -wal, -shm and -journal companions. */
void remove_db(const char *path);
/* "sungka-bench: ..." on stderr, then exit(1). */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Progress lines on stderr show the seconds since t0 (a now_ns() value). */
void progress_start(int64_t t0);
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ----------------------------------------------------------------- waiting */

/* From a client thread, after changing what the main thread waits for. */
void wake_main(void);
/* Wait until *a >= ta and (b NULL or *b >= tb); fatal after WAIT_MS. */
void wait_counts(atomic_int *a, int ta, atomic_int *b, int tb, const char *what);
/* A wait of another shape, on the same mutex and condition: the main thread
 * locks, checks, and sleeps in main_wait_timed() until woken or until
 * deadline (CLOCK_REALTIME); a client thread locks, changes, and wakes it
 * with wake_main_locked(). */
void main_wait_lock(void);
void main_wait_unlock(void);
void main_wait_timed(const struct timespec *deadline);
void wake_main_locked(void);

/* ------------------------------------------------------------------- stats */

typedef struct stats {
    int n;
    double p50, p99, mean, max;   /* microseconds */
} stats;

/* Of the n samples us[] (sorted in place); all zero when n <= 0. */
stats summarize(double *us, int n);

#endif
