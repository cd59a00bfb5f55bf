/*
 * metrics.h — counters, gauges and histograms in the Prometheus text format
 * (version 0.0.4), answered to GET /metrics on a listener of their own
 * (libmicrohttpd, its own thread), for sungka-board and sungka-relay.
 *
 * Threads and ownership. One thread, the owner (a server's loop thread),
 * makes the metrics and updates them with plain stores: no lock, no atomic,
 * nothing the loop waits for. What a scrape sees is what the owner last
 * published (metrics_publish copies every value under the set's mutex); the
 * HTTP thread formats that copy under the same mutex and reads nothing else
 * of the program but /proc/self/statm (the resident set, read at each
 * scrape). So a scrape is at most one publish old; the owner publishes once
 * per loop turn, which costs a copy of a few hundred numbers.
 *
 * A metric pointer stays valid until metrics_free. Every update function
 * accepts NULL and then does nothing, so code can count into a metric the
 * program did not make (no --metrics) without asking.
 */
#ifndef SUNGKA_METRICS_H
#define SUNGKA_METRICS_H

#include <stddef.h>

typedef struct metrics metrics;
typedef struct metric metric;

#define METRICS_MAX 160              /* metrics in one set, label variants included */
#define METRIC_MAX_BUCKETS 16        /* a histogram's upper bounds, +Inf aside */

/* An empty set, or NULL when out of memory. Owner thread. */
metrics *metrics_create(void);
/* Stops the listener (waiting for a scrape under way) and frees the set. */
void metrics_free(metrics *m);

/* New metrics (owner thread). name is the full name (sungka_..._total,
 * _seconds, _bytes); label is NULL or one `key` with its `value` (escaped
 * here), as in refusals_total{reason="LIMIT_REACHED"}: metrics of one name
 * share the first one's help and type. NULL when the set is full or out of
 * memory (updates to NULL do nothing). metrics_counter returns the one
 * already made with that name and label, so it can be called for a label
 * value met at run time. */
metric *metrics_counter(metrics *m, const char *name, const char *help, const char *key,
                        const char *value);
metric *metrics_gauge(metrics *m, const char *name, const char *help, const char *key,
                      const char *value);
/* bounds: n (at most METRIC_MAX_BUCKETS) increasing upper bounds. */
metric *metrics_histogram(metrics *m, const char *name, const char *help,
                          const double *bounds, int n);

/* Updates (owner thread; each a no-op on NULL). */
void metric_add(metric *c, double v);       /* a counter or gauge: += v */
void metric_set(metric *g, double v);       /* a gauge */
void metric_observe(metric *h, double v);   /* a histogram: one observation */

/* Seconds on a monotonic clock, for durations. */
double metrics_now(void);

/* Make the current values the ones scrapes see (owner thread). */
void metrics_publish(metrics *m);

/* The published page, malloc'ed (the caller frees it): any thread. NULL
 * when out of memory. */
char *metrics_format(metrics *m, size_t *len);

/* Answer GET /metrics on listen ("HOST:PORT", "[V6]:PORT"; port 0 picks
 * one) from a thread of libmicrohttpd's: 0 and the bound port in *port,
 * or -1 with a sentence in err. At most once per set. */
int metrics_serve(metrics *m, const char *listen, int *port, char *err, size_t errlen);

#endif /* SUNGKA_METRICS_H */
