/*
 * metrics.c — metrics.h: the values, their published copy, the text format
 * and the listener (libmicrohttpd with its own polling thread: the HTTP
 * parsing is its, not ours).
 */
#include <ctype.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "metrics.h"

typedef enum { KIND_COUNTER, KIND_GAUGE, KIND_HISTOGRAM } metric_kind;

struct metric {
    /* Fixed when made (any thread may read them once n counts the metric). */
    metric_kind kind;
    char name[80];
    char help[200];
    char label[128];           /* `key="value"`, escaped; "" for none */
    int n_bounds;
    double bounds[METRIC_MAX_BUCKETS];
    /* The owner's, no lock: */
    double value;              /* a counter's or gauge's */
    uint64_t counts[METRIC_MAX_BUCKETS + 1];   /* a histogram's, per bucket (not cumulative) */
    double sum;
    /* Published: under metrics.lock. */
    double pub_value;
    uint64_t pub_counts[METRIC_MAX_BUCKETS + 1];
    double pub_sum;
};

/* The index's slots: a power of two, at least twice METRICS_MAX, so that a
 * probe stays short when the set is full. */
#define INDEX_SLOTS 512
_Static_assert(INDEX_SLOTS >= 2 * METRICS_MAX && (INDEX_SLOTS & (INDEX_SLOTS - 1)) == 0,
               "INDEX_SLOTS: a power of two, at least twice METRICS_MAX");

struct metrics {
    pthread_mutex_t lock;      /* the pub_ fields, n (for readers) */
    metric *list[METRICS_MAX];
    int n;
    /* The owner's: list positions + 1 (0: empty) by the hash of name and
     * label, open addressing, so that a metric met at run time (a refusal's
     * reason, on every refusal) is found without comparing every name. */
    short index[INDEX_SLOTS];
    struct MHD_Daemon *daemon; /* NULL until metrics_serve */
};

metrics *metrics_create(void)
{
    metrics *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    pthread_mutex_init(&m->lock, NULL);
    return m;
}

void metrics_free(metrics *m)
{
    if (!m)
        return;
    if (m->daemon)
        MHD_stop_daemon(m->daemon);   /* joins its thread */
    for (int i = 0; i < m->n; i++)
        free(m->list[i]);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* `key="value"` with the format's escapes (\\, \", \n). */
static void make_label(char *out, size_t len, const char *key, const char *value)
{
    size_t o = 0;
    out[0] = '\0';
    if (!key)
        return;
    int w = snprintf(out, len, "%s=\"", key);
    if (w < 0 || (size_t)w >= len)
        return;
    o = (size_t)w;
    for (const char *s = value ? value : ""; *s && o + 3 < len; s++) {
        if (*s == '\\' || *s == '"' || *s == '\n') {
            out[o++] = '\\';
            out[o++] = *s == '\n' ? 'n' : *s;
        } else {
            out[o++] = *s;
        }
    }
    out[o++] = '"';
    out[o] = '\0';
}

/* FNV-1a over name, a NUL, and label. */
static uint32_t slot_of(const char *name, const char *label)
{
    uint32_t h = 2166136261u;
    for (const char *s = name; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    h *= 16777619u;
    for (const char *s = label; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h & (INDEX_SLOTS - 1);
}

/* The metric named so, or NULL; *slot: its slot in the index, or the empty
 * one where it would go. */
static metric *find(metrics *m, const char *name, const char *label, uint32_t *slot)
{
    for (uint32_t i = slot_of(name, label);; i = (i + 1) & (INDEX_SLOTS - 1)) {
        *slot = i;
        if (!m->index[i])
            return NULL;
        metric *x = m->list[m->index[i] - 1];
        if (strcmp(x->name, name) == 0 && strcmp(x->label, label) == 0)
            return x;
    }
}

/* The metric name{key="value"}, made (filled in, then listed under the
 * lock, so the HTTP thread never sees it half made) unless it exists. */
static metric *make(metrics *m, metric_kind kind, const char *name, const char *help,
                    const char *key, const char *value, const double *bounds, int n_bounds)
{
    if (!m)
        return NULL;
    char label[128];
    make_label(label, sizeof label, key, value);
    uint32_t slot;
    metric *old = find(m, name, label, &slot);
    if (old)
        return old->kind == kind ? old : NULL;
    if (m->n == METRICS_MAX)
        return NULL;
    metric *x = calloc(1, sizeof *x);
    if (!x)
        return NULL;
    x->kind = kind;
    snprintf(x->name, sizeof x->name, "%s", name);
    snprintf(x->help, sizeof x->help, "%s", help);
    memcpy(x->label, label, sizeof label);
    x->n_bounds = n_bounds;
    if (n_bounds > 0)
        memcpy(x->bounds, bounds, (size_t)n_bounds * sizeof *bounds);
    pthread_mutex_lock(&m->lock);
    m->list[m->n++] = x;
    pthread_mutex_unlock(&m->lock);
    m->index[slot] = (short)m->n;
    return x;
}

metric *metrics_counter(metrics *m, const char *name, const char *help, const char *key,
                        const char *value)
{
    return make(m, KIND_COUNTER, name, help, key, value, NULL, 0);
}

metric *metrics_gauge(metrics *m, const char *name, const char *help, const char *key,
                      const char *value)
{
    return make(m, KIND_GAUGE, name, help, key, value, NULL, 0);
}

metric *metrics_histogram(metrics *m, const char *name, const char *help,
                          const double *bounds, int n)
{
    if (n < 1 || n > METRIC_MAX_BUCKETS)
        return NULL;
    return make(m, KIND_HISTOGRAM, name, help, NULL, NULL, bounds, n);
}

void metric_add(metric *c, double v)
{
    if (c)
        c->value += v;
}

void metric_set(metric *g, double v)
{
    if (g)
        g->value = v;
}

void metric_observe(metric *h, double v)
{
    if (!h)
        return;
    int b = 0;
    while (b < h->n_bounds && v > h->bounds[b])
        b++;
    h->counts[b]++;
    h->sum += v;
}

double metrics_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void metrics_publish(metrics *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < m->n; i++) {
        metric *x = m->list[i];
        x->pub_value = x->value;
        memcpy(x->pub_counts, x->counts, sizeof x->counts);
        x->pub_sum = x->sum;
    }
    pthread_mutex_unlock(&m->lock);
}

/* ------------------------------------------------------------ the format */

typedef struct buf {
    char *data;
    size_t len, cap;
    bool failed;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...)
{
    for (;;) {
        if (b->failed)
            return;
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->failed = true;
            return;
        }
        if ((size_t)w < b->cap - b->len) {
            b->len += (size_t)w;
            return;
        }
        size_t cap = (b->cap + (size_t)w) * 2;
        char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = true;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
}

/* A sample's value: integers as such, +Inf and NaN as the format spells them. */
static void put_value(buf *b, double v)
{
    if (v != v)
        put(b, "NaN\n");
    else if (v > 1e308 || v < -1e308)
        put(b, v > 0 ? "+Inf\n" : "-Inf\n");
    else if (v == (double)(int64_t)v && v < 9e15 && v > -9e15)
        put(b, "%lld\n", (long long)v);
    else
        put(b, "%.17g\n", v);
}

static void put_sample(buf *b, const metric *x)
{
    if (x->kind != KIND_HISTOGRAM) {
        put(b, x->label[0] ? "%s{%s} " : "%s ", x->name, x->label);
        put_value(b, x->pub_value);
        return;
    }
    uint64_t cumulative = 0;
    for (int k = 0; k <= x->n_bounds; k++) {
        cumulative += x->pub_counts[k];
        if (k < x->n_bounds)
            put(b, "%s_bucket{le=\"%.15g\"} %llu\n", x->name, x->bounds[k],
                (unsigned long long)cumulative);
        else
            put(b, "%s_bucket{le=\"+Inf\"} %llu\n", x->name, (unsigned long long)cumulative);
    }
    put(b, "%s_sum ", x->name);
    put_value(b, x->pub_sum);
    put(b, "%s_count %llu\n", x->name, (unsigned long long)cumulative);
}

/* The resident set in bytes, from /proc/self/statm; -1 when unreadable. */
static double resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    unsigned long long size, resident;
    int got = fscanf(f, "%llu %llu", &size, &resident);
    fclose(f);
    if (got != 2)
        return -1;
    return (double)resident * (double)sysconf(_SC_PAGESIZE);
}

char *metrics_format(metrics *m, size_t *len)
{
    static const char *const types[] = {"counter", "gauge", "histogram"};
    buf b = {malloc(4096), 0, 4096, false};
    if (!b.data)
        return NULL;
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < m->n; i++) {
        const metric *x = m->list[i];
        bool seen = false;             /* its family was written with an earlier one */
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(m->list[j]->name, x->name) == 0;
        if (seen)
            continue;
        put(&b, "# HELP %s %s\n# TYPE %s %s\n", x->name, x->help, x->name, types[x->kind]);
        for (int j = i; j < m->n; j++)
            if (strcmp(m->list[j]->name, x->name) == 0)
                put_sample(&b, m->list[j]);
    }
    pthread_mutex_unlock(&m->lock);
    double rss = resident_bytes();
    if (rss >= 0) {
        put(&b, "# HELP sungka_process_resident_memory_bytes Resident memory of the "
                "process (/proc/self/statm).\n"
                "# TYPE sungka_process_resident_memory_bytes gauge\n"
                "sungka_process_resident_memory_bytes ");
        put_value(&b, rss);
    }
    if (b.failed) {
        free(b.data);
        return NULL;
    }
    *len = b.len;
    return b.data;
}

/* ---------------------------------------------------------- the listener */

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version,
                              const char *upload_data, size_t *upload_data_size, void **state)
{
    (void)version;
    (void)upload_data;
    (void)state;
    metrics *m = cls;
    if (*upload_data_size != 0) {
        *upload_data_size = 0;         /* a body we do not read */
        return MHD_YES;
    }
    unsigned status;
    char *page = NULL;
    size_t len = 0;
    const char *type = "text/plain; charset=utf-8";
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        status = MHD_HTTP_METHOD_NOT_ALLOWED;
    } else if (strcmp(url, "/metrics") != 0) {
        status = MHD_HTTP_NOT_FOUND;
    } else {
        page = metrics_format(m, &len);
        status = page ? MHD_HTTP_OK : MHD_HTTP_INTERNAL_SERVER_ERROR;
        type = "text/plain; version=0.0.4; charset=utf-8";
    }
    if (!page) {
        static const char *const words[] = {"only GET /metrics is served here\n",
                                            "out of memory\n"};
        const char *w = status == MHD_HTTP_INTERNAL_SERVER_ERROR ? words[1] : words[0];
        page = strdup(w);
        if (!page)
            return MHD_NO;
        len = strlen(page);
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(len, page, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(page);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result rc = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return rc;
}

int metrics_serve(metrics *m, const char *listen, int *port, char *err, size_t errlen)
{
    char host[256];
    const char *colon = strrchr(listen, ':');
    if (!colon || colon == listen || !colon[1]) {
        snprintf(err, errlen, "--metrics needs HOST:PORT (e.g. 127.0.0.1:9464), not '%s'",
                 listen);
        return -1;
    }
    char *end;
    long port_number = strtol(colon + 1, &end, 10);
    if (*end || port_number < 0 || port_number > 65535 || !isdigit((unsigned char)colon[1])) {
        snprintf(err, errlen, "--metrics %s: the port must be a number from 0 to 65535",
                 listen);
        return -1;
    }
    size_t hlen = (size_t)(colon - listen);
    const char *h = listen;
    if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
        h++;
        hlen -= 2;
    }
    if (hlen >= sizeof host) {
        snprintf(err, errlen, "--metrics: the host of '%s' is too long", listen);
        return -1;
    }
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int rc = getaddrinfo(host, colon + 1, &hints, &ai);
    if (rc != 0) {
        snprintf(err, errlen, "--metrics %s: %s", listen, gai_strerror(rc));
        return -1;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    /* A few scrapers at a time, each bounded in time: the listener can
     * hold no more than that, whoever connects. */
    m->daemon = MHD_start_daemon(flags, 0, NULL, NULL, answer, m, MHD_OPTION_SOCK_ADDR,
                                 ai->ai_addr, MHD_OPTION_CONNECTION_LIMIT, (unsigned)16,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!m->daemon) {
        snprintf(err, errlen, "cannot listen for metrics on %s (the address is in use or "
                              "not this machine's?)", listen);
        return -1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(m->daemon, MHD_DAEMON_INFO_BIND_PORT);
    *port = info ? info->port : 0;
    return 0;
}
