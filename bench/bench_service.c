/*
 * bench_service.c — sungka-bench: the board service against the gRPC floor
 * (not a test; never run by ctest).
 *
 * In one run it starts real board services (in this process, each loop on its
 * own thread), the floor: an echo service written straight on gRPC core with
 * no project code (rpc/floor/bench_floor.c), and the same echo on our rpc layer, and
 * measures:
 *   move     Move call -> the mover's own MoveMade event on its subscription,
 *            beside the floor's unary round trip (Say);
 *   fanout   Move call(s) -> the last of N observers has the MoveMade, beside
 *            the floor pushing one message to N open streams of the same shape
 *            (50 to a connection, or one each);
 *   tput     moves per second across G concurrent games played by scripted
 *            agents (async Move calls chosen by a local rules engine);
 *   durable  the move round trip with the store on a file, ":memory:" and off;
 *   memory   resident memory of a child `sungka-board` per idle game and per
 *            connected observer (/proc/PID/status VmRSS).
 * Prints a table and writes it as JSON (default bench-results.json).
 *
 * Usage: sungka-bench [--quick] [--json FILE] [--only LIST] [--board PATH]
 * See PERFORMANCE.md for what each figure means.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_echo.pb-c.h"
#include "bench_floor.h"
#include "board.h"
#include "games.h"
#include "grpc/health/v1/health.pb-c.h"
#include "rpc.h"
#include "sungka/v1/sungka.pb-c.h"
#include "version.h"

#define STREAMS_PER_CLIENT 50     /* the server allows 64 streams per connection */
#define CALLS_PER_CLIENT   50     /* outstanding unary calls per connection */
#define OBSERVERS_PER_GAME 60     /* the memory section's crowds (fan-out: one game) */
#define PUSH_BODY          128    /* echo push payload: about a MoveMade event */
#define WAIT_MS            20000  /* any single wait; longer means something broke */

/* ------------------------------------------------------------------ basics */

static bool quick;
static char tmpdir[64];
/* Every server runs in a process of its own (child_spawn): gRPC's pollers
 * are shared by all the completion queues of a process, so a server in the
 * benchmark's process would run some of its I/O on the clients' threads and
 * theirs on its own, and neither its CPU nor its floor would be its own. */
typedef struct child {
    pid_t pid;
    char target[32];
    int syscalls_fd;              /* perf counter of its syscalls; -1: none */
} child;
#define MAX_CHILDREN 8
static child *children[MAX_CHILDREN];   /* the live ones, for cleanup */
static char board_path[PATH_MAX];
static char relay_path[PATH_MAX];     /* sungka-relay, beside sungka-board */

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void sleep_ms(int ms)
{
    struct timespec d = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0 && errno == EINTR) {
    }
}

static void remove_db(const char *path)
{
    const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    char p[256];
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        unlink(p);
    }
}

/* atexit: whatever happened, leave no child and no temp files behind. */
static void cleanup(void)
{
    for (int i = 0; i < MAX_CHILDREN; i++) {
        if (children[i] && children[i]->pid > 0) {
            kill(children[i]->pid, SIGKILL);
            waitpid(children[i]->pid, NULL, 0);
            children[i]->pid = 0;
        }
    }
    if (tmpdir[0]) {
        char db[96];
        snprintf(db, sizeof db, "%s/bench.db", tmpdir);
        remove_db(db);
        rmdir(tmpdir);
        tmpdir[0] = 0;
    }
}

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "sungka-bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);   /* cleanup() runs */
}

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int64_t now_ns(void);
static int64_t t_begin;

static void progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "  [%5.1f s] ", (double)(now_ns() - t_begin) / 1e9);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* ----------------------------------------------------------------- waiting */

/* Callbacks (client threads) change atomics, then call wake_main(); the main
 * thread checks its condition under the same mutex, so no wake is lost. */
static pthread_mutex_t wmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wcv = PTHREAD_COND_INITIALIZER;

static void wake_main(void)
{
    pthread_mutex_lock(&wmu);
    pthread_cond_broadcast(&wcv);
    pthread_mutex_unlock(&wmu);
}

/* Wait until *a >= ta and (b NULL or *b >= tb). */
static void wait_counts(atomic_int *a, int ta, atomic_int *b, int tb, const char *what)
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

/* ------------------------------------------------------------------- stats */

typedef struct stats {
    int n;
    double p50, p99, mean, max;   /* microseconds */
} stats;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stats summarize(double *us, int n)
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

/* ------------------------------------------------------------------ report */

typedef struct row {
    const char *section;
    char name[64];
    char param[24];
    bool latency;             /* stats in s (and f); else value + unit */
    stats s;
    bool has_floor;
    stats f;
    double value;
    const char *unit;
    char note[320];
} row;

static row rows[64];
static int n_rows;

static row *add_row(const char *section, const char *name, const char *param)
{
    if (n_rows == (int)(sizeof rows / sizeof rows[0]))
        fatal("too many rows");
    row *r = &rows[n_rows++];
    memset(r, 0, sizeof *r);
    r->section = section;
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->param, sizeof r->param, "%s", param);
    return r;
}

static void print_table(FILE *out)
{
    fprintf(out, "\n%-8s %-34s %-17s %10s %10s %10s | %10s %10s | %6s\n", "section", "metric",
            "param", "p50", "p99", "mean", "floor p50", "floor p99", "x p50");
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        if (r->latency) {
            fprintf(out, "%-8s %-34s %-17s %10.1f %10.1f %10.1f", r->section, r->name, r->param,
                    r->s.p50, r->s.p99, r->s.mean);
            if (r->has_floor)
                fprintf(out, " | %10.1f %10.1f | %6.2f", r->f.p50, r->f.p99,
                        r->f.p50 > 0 ? r->s.p50 / r->f.p50 : 0);
            else
                fprintf(out, " | %10s %10s | %6s", "", "", "");
        } else {
            char v[40];
            snprintf(v, sizeof v, r->value < 10 ? "%.2f %s" : "%.0f %s", r->value, r->unit);
            fprintf(out, "%-8s %-34s %-17s %32s | %10s %10s | %6s", r->section, r->name,
                    r->param, v, "", "", "");
        }
        fprintf(out, "\n");
        if (r->note[0])
            fprintf(out, "%-8s   %s\n", "", r->note);
    }
    fprintf(out, "(latencies in microseconds; p99 is the nearest-rank 99th percentile)\n");
}

static void json_stats(FILE *f, const char *key, const stats *s)
{
    fprintf(f, "\"%s\": {\"n\": %d, \"p50_us\": %.1f, \"p99_us\": %.1f, \"mean_us\": %.1f, "
               "\"max_us\": %.1f}",
            key, s->n, s->p50, s->p99, s->mean, s->max);
}

/* Strings here are our own ASCII; escape quotes and backslashes anyway. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

typedef struct goal_t {
    const char *what;
    double measured, goal;
    const char *unit;
    bool higher_is_better;
    bool measured_ok;
} goal_t;

static goal_t targets[16];
static int n_targets;

/* Was the machine quiet? Ratios taken while other work shares the cores
 * mislead (the benchmark's own client slows more than the service it
 * times), so no target gets a verdict (unless --verdict-anyway) when the
 * 1-minute load average before the run was above NOISY_LOAD per core, or
 * when other processes used more than NOISY_SHARE of the machine's CPU
 * during it: the CPU time /proc/stat counts as busy, less this program's and
 * its children's. (The load average after the run is shown, but it counts
 * the run itself: a full run keeps both cores busy for minutes.) */
#define NOISY_LOAD 0.25
#define NOISY_SHARE 0.05
static double load_before = -1, load_after = -1;
static double busy_before, ours_before, others_share = -1;
static int64_t quiet_t0;
static bool verdict_anyway;

static double load_now(void)
{
    double l[1];
    return getloadavg(l, 1) == 1 ? l[0] : -1;
}

/* Seconds of CPU the whole machine has been busy (not idle, not waiting). */
static double machine_busy_s(void)
{
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[8] = {0};
    if (!f)
        return -1;
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n != 8)
        return -1;
    /* user nice system idle iowait irq softirq steal */
    return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)sysconf(_SC_CLK_TCK);
}

/* Seconds of CPU this program and its (waited-for) children have used. */
static double ours_s(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    struct timeval t[] = {self.ru_utime, self.ru_stime, kids.ru_utime, kids.ru_stime};
    double s = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        s += (double)t[i].tv_sec + (double)t[i].tv_usec / 1e6;
    return s;
}

static void quiet_begin(void)
{
    load_before = load_now();
    busy_before = machine_busy_s();
    ours_before = ours_s();
    quiet_t0 = now_ns();
}

/* After every child has stopped. */
static void quiet_end(void)
{
    load_after = load_now();
    double secs = (double)(now_ns() - quiet_t0) / 1e9;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double others = (machine_busy_s() - busy_before) - (ours_s() - ours_before);
    if (busy_before >= 0 && secs > 0)
        others_share = (others > 0 ? others : 0) / (secs * (double)(cpus > 0 ? cpus : 1));
}

static bool noisy(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return load_before < 0 || load_before > NOISY_LOAD * (double)(cpus > 0 ? cpus : 1) ||
           others_share < 0 || others_share > NOISY_SHARE;
}

static void add_target(const char *what, double measured, double goal, const char *unit,
                       bool higher)
{
    targets[n_targets++] = (goal_t){what, measured, goal, unit, higher, true};
}

static bool target_met(const goal_t *t)
{
    return t->higher_is_better ? t->measured >= t->goal : t->measured <= t->goal;
}

static const char *verdict(const goal_t *t)
{
    if (noisy() && !verdict_anyway)
        return "NOISY";
    return target_met(t) ? "MET" : "MISSED";
}

static void print_targets(FILE *out)
{
    fprintf(out, "\nload average (1 min): %.2f before, %.2f after (the run's own), %ld CPUs; "
                 "other processes used %.1f%% of the CPU during the run%s\n",
            load_before, load_after, sysconf(_SC_NPROCESSORS_ONLN), others_share * 100,
            noisy() ? " -- not quiet: no verdicts (--verdict-anyway to give them)" : "");
    fprintf(out, "targets:\n");
    for (int i = 0; i < n_targets; i++) {
        const goal_t *t = &targets[i];
        fprintf(out, "  %-52s %10.2f %-8s (goal %s %.2f)  %s\n", t->what, t->measured, t->unit,
                t->higher_is_better ? ">=" : "<=", t->goal, verdict(t));
    }
}

static int write_json(const char *path, double seconds)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    time_t now = time(NULL);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "{\n  \"benchmark\": \"sungka-bench\",\n  \"mode\": \"%s\",\n  \"time\": \"%s\",\n"
               "  \"cpus\": %ld,\n  \"seconds\": %.1f,\n  \"load_before\": %.2f,\n"
               "  \"load_after\": %.2f,\n  \"others_cpu_share\": %.3f,\n  \"noisy\": %s,\n"
               "  \"rows\": [\n",
            quick ? "quick" : "full", when, sysconf(_SC_NPROCESSORS_ONLN), seconds, load_before,
            load_after, others_share, noisy() ? "true" : "false");
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        fprintf(f, "    {\"section\": ");
        json_str(f, r->section);
        fprintf(f, ", \"metric\": ");
        json_str(f, r->name);
        fprintf(f, ", \"param\": ");
        json_str(f, r->param);
        fprintf(f, ", ");
        if (r->latency) {
            json_stats(f, "service", &r->s);
            if (r->has_floor) {
                fprintf(f, ", ");
                json_stats(f, "floor", &r->f);
                fprintf(f, ", \"ratio_p50\": %.3f", r->f.p50 > 0 ? r->s.p50 / r->f.p50 : 0);
            }
        } else {
            fprintf(f, "\"value\": %.1f, \"unit\": ", r->value);
            json_str(f, r->unit);
        }
        fprintf(f, ", \"note\": ");
        json_str(f, r->note);
        fprintf(f, "}%s\n", i + 1 < n_rows ? "," : "");
    }
    fprintf(f, "  ],\n  \"targets\": [\n");
    for (int i = 0; i < n_targets; i++) {
        const goal_t *t = &targets[i];
        fprintf(f, "    {\"target\": ");
        json_str(f, t->what);
        fprintf(f, ", \"measured\": %.2f, \"goal\": %.2f, \"unit\": ", t->measured, t->goal);
        json_str(f, t->unit);
        fprintf(f, ", \"met\": %s, \"verdict\": \"%s\"}%s\n",
                target_met(t) ? "true" : "false", verdict(t), i + 1 < n_targets ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return fclose(f);
}

/* ---------------------------------------------------------------- methods */

static rpc_method M_SUBSCRIBE_MANY;
static rpc_method M_CREATE, M_JOIN, M_SUBSCRIBE, M_MOVE, M_READY, M_HEALTH, E_SAY, E_WATCH,
    E_PUSH;

/* By name, so a reordered .proto cannot route a call to the wrong method. */
static void find_methods(void)
{
    M_CREATE = rpc_method_named(&sungka__v1__register__descriptor, "CreateGame", false);
    M_JOIN = rpc_method_named(&sungka__v1__register__descriptor, "JoinGame", false);
    M_SUBSCRIBE = rpc_method_named(&sungka__v1__board__descriptor, "Subscribe", true);
    M_SUBSCRIBE_MANY = rpc_method_named(&sungka__v1__board__descriptor, "SubscribeMany", true);
    M_MOVE = rpc_method_named(&sungka__v1__board__descriptor, "Move", false);
    M_READY = rpc_method_named(&sungka__v1__board__descriptor, "Ready", false);
    M_HEALTH = rpc_method_named(&grpc__health__v1__health__descriptor, "Check", false);
    E_SAY = rpc_method_named(&sungkabench__echo__descriptor, "Say", false);
    E_WATCH = rpc_method_named(&sungkabench__echo__descriptor, "Watch", true);
    E_PUSH = rpc_method_named(&sungkabench__echo__descriptor, "Push", false);
}

/* ------------------------------------------------------------ echo server */

typedef struct echo_server {
    rpc_server *srv;
    char target[32];
    pthread_t thread;
    atomic_bool stop;
    rpc_call **watch;          /* poll thread only */
    int n_watch, cap_watch;
    uint8_t payload[PUSH_BODY];
} echo_server;

static void echo_done(rpc_call *call, bool client_gone, void *user)
{
    (void)client_gone;
    echo_server *es = user;
    for (int i = 0; i < es->n_watch; i++) {
        if (es->watch[i] == call) {
            es->watch[i] = es->watch[--es->n_watch];
            return;
        }
    }
}

static void echo_handler(rpc_call *call, unsigned method, const ProtobufCMessage *request,
                         void *user)
{
    echo_server *es = user;
    const Sungkabench__Msg *req = (const Sungkabench__Msg *)request;
    Sungkabench__Msg out = SUNGKABENCH__MSG__INIT;
    switch (method) {
    case 0:   /* Say */
        rpc_call_reply(call, request);
        break;
    case 1:   /* Watch */
        if (es->n_watch == es->cap_watch) {
            int cap = es->cap_watch ? es->cap_watch * 2 : 256;
            rpc_call **grown = realloc(es->watch, (size_t)cap * sizeof *grown);
            if (!grown) {
                rpc_call_finish(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
                return;
            }
            es->watch = grown;
            es->cap_watch = cap;
        }
        es->watch[es->n_watch++] = call;
        rpc_call_on_done(call, echo_done, es);
        rpc_call_send(call, &out.base);   /* hello: seq 0 */
        break;
    case 2: { /* Push: pack once, send the bytes to everyone (as the board does) */
        uint8_t buf[PUSH_BODY + 64];
        out.seq = req->seq;
        out.body.data = es->payload;
        out.body.len = sizeof es->payload;
        size_t len = protobuf_c_message_pack(&out.base, buf);
        for (int i = 0; i < es->n_watch; i++)
            rpc_call_send_packed(es->watch[i], buf, len);
        Sungkabench__Msg ack = SUNGKABENCH__MSG__INIT;
        rpc_call_reply(call, &ack.base);
        break;
    }
    default:
        rpc_call_finish(call, RPC_UNIMPLEMENTED, "no such method");
    }
}

static void *echo_thread(void *arg)
{
    echo_server *es = arg;
    while (!atomic_load(&es->stop))
        rpc_server_poll(es->srv, 50);
    rpc_server_destroy(es->srv);
    return NULL;
}

static void echo_start(echo_server *es)
{
    static const char *const streaming[] = {"Watch", NULL};
    memset(es, 0, sizeof *es);
    memset(es->payload, 'x', sizeof es->payload);
    rpc_server_options opts = {0};
    opts.max_streams_per_conn = 64;   /* as the board service */
    opts.outbox_limit = 4096;
    int port;
    if (rpc_server_create("127.0.0.1:0", &opts, &es->srv, &port) != 0 ||
        rpc_server_add_service(es->srv, &sungkabench__echo__descriptor, streaming,
                               echo_handler, es) != 0 ||
        rpc_server_start(es->srv) != 0)
        fatal("cannot start the echo server");
    snprintf(es->target, sizeof es->target, "127.0.0.1:%d", port);
    pthread_create(&es->thread, NULL, echo_thread, es);
    pthread_setname_np(es->thread, "echo-loop");
}

static void echo_stop(echo_server *es)
{
    atomic_store(&es->stop, true);   /* seen within one 50 ms poll */
    pthread_join(es->thread, NULL);
    free(es->watch);
}

/* ---------------------------------------------------------- board service */

/* A counter of the syscalls of process pid and every thread it will start
 * (the kernel's raw_syscalls:sys_enter tracepoint, as `perf stat -e` counts
 * it); -1 when this kernel or this user has none. */
static int syscall_counter(pid_t pid)
{
    FILE *f = fopen("/sys/kernel/tracing/events/raw_syscalls/sys_enter/id", "r");
    if (!f)
        f = fopen("/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id", "r");
    unsigned long long id;
    bool found = f && fscanf(f, "%llu", &id) == 1;
    if (f)
        fclose(f);
    if (!found)
        return -1;
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_TRACEPOINT;
    attr.config = id;
    attr.inherit = 1;
    return (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static double syscalls_of(const child *c)
{
    uint64_t n = 0;
    if (!c || c->syscalls_fd < 0 || read(c->syscalls_fd, &n, sizeof n) != sizeof n)
        return -1;
    return (double)n;
}

/* Start argv[0] with argv as a child whose first line on stdout ends in
 * ":PORT"; its target is 127.0.0.1:PORT. */
static void child_spawn(child *c, char *const argv[])
{
    int fds[2];
    if (pipe(fds) != 0)
        fatal("pipe: %s", strerror(errno));
    int go[2];   /* the child execs once its syscall counter is open */
    if (pipe(go) != 0)
        fatal("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        fatal("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        close(go[1]);
        char byte;
        if (read(go[0], &byte, 1) < 0)
            _exit(127);
        close(go[0]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(go[0]);
    c->pid = pid;
    c->syscalls_fd = syscall_counter(pid);
    if (write(go[1], "x", 1) != 1)
        fatal("cannot start %s", argv[0]);
    close(go[1]);
    for (int i = 0; i < MAX_CHILDREN; i++) {
        if (!children[i]) {
            children[i] = c;
            break;
        }
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char line[256] = "";
    if (!in || !fgets(line, sizeof line, in))
        fatal("%s did not start (build it, or name it with --board)", argv[0]);
    fclose(in);
    const char *colon = strrchr(line, ':');
    int port = colon ? atoi(colon + 1) : 0;
    if (port <= 0)
        fatal("cannot read the port from \"%s\"", line);
    snprintf(c->target, sizeof c->target, "127.0.0.1:%d", port);
}

static void child_stop(child *c)
{
    if (c->pid <= 0)
        return;
    kill(c->pid, SIGTERM);
    int i = 0;
    while (waitpid(c->pid, NULL, WNOHANG) != c->pid) {
        if (++i == 500) {
            kill(c->pid, SIGKILL);
            waitpid(c->pid, NULL, 0);
            break;
        }
        sleep_ms(10);
    }
    c->pid = 0;
    if (c->syscalls_fd >= 0)
        close(c->syscalls_fd);
    c->syscalls_fd = -1;
    for (int k = 0; k < MAX_CHILDREN; k++)
        if (children[k] == c)
            children[k] = NULL;
}

/* CPU time the child's threads have run, in us: the sum of each thread's
 * schedstat (nanoseconds on a CPU; /proc/PID/stat counts only in 10 ms
 * ticks). */
static double child_cpu_us(const child *c)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)c->pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    double ns = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char stat[sizeof path + 288];
        snprintf(stat, sizeof stat, "%s/%s/schedstat", path, e->d_name);
        FILE *f = fopen(stat, "r");
        unsigned long long run = 0;
        if (f && fscanf(f, "%llu", &run) == 1)
            ns += (double)run;
        if (f)
            fclose(f);
    }
    closedir(d);
    return ns / 1e3;
}

/* The server a measurement times, and the CPU it used in the last timed
 * window (every thread: its loop, gRPC's own, the kernel's work on its
 * behalf counted as system time). */
static const child *g_server;
static double g_cpu_us, g_syscalls;   /* g_syscalls < 0: not counted */
static double g_syscalls_at_begin;
/* Other servers a measurement times beside g_server (a cluster's other
 * nodes, relays): their CPU together, in the same window. */
static const child *g_side[MAX_CHILDREN];
static int g_n_side;
static double g_side_cpu_us, g_side_at_begin;

static double side_cpu_us(void)
{
    double us = 0;
    for (int i = 0; i < g_n_side; i++)
        us += child_cpu_us(g_side[i]);
    return us;
}

static double cpu_begin(void)
{
    g_syscalls_at_begin = syscalls_of(g_server);
    g_side_at_begin = side_cpu_us();
    return g_server ? child_cpu_us(g_server) : 0;
}

static void cpu_end(double at_begin)
{
    g_cpu_us = g_server ? child_cpu_us(g_server) - at_begin : 0;
    g_side_cpu_us = side_cpu_us() - g_side_at_begin;
    double now = syscalls_of(g_server);
    g_syscalls = now >= 0 && g_syscalls_at_begin >= 0 ? now - g_syscalls_at_begin : -1;
}

static const char *db_file(void)
{
    static char path[96];
    snprintf(path, sizeof path, "%s/bench.db", tmpdir);
    return path;
}

/* A sungka-board child on db: a path, ":memory:" or "" (no store); a file
 * store starts empty. Its limits are raised for scripted agents on
 * 127.0.0.1 (they move faster than people, all from one address) and it
 * waits an hour for pings they do not answer. */
static void board_start_with(child *b, const char *db, const char *lease)
{
    if (db[0] && strcmp(db, ":memory:") != 0 && !strstr(db, "://"))
        remove_db(db);
    char *const argv[] = {
        board_path, "--listen", "127.0.0.1:0", "--db", (char *)db, "--quiet",
        "--ping-timeout", "3600", "--max-games", "1000000",
        "--max-games-per-client", "1000000", "--move-rate", "1000000",
        "--max-participants", "100000", "--max-client-streams", "1000000",
        "--max-client-observers", "1000000", "--client-join-rate", "1000000",
        lease ? "--lease" : NULL, (char *)lease, NULL,
    };
    child_spawn(b, argv);
}

static void board_start(child *b, const char *db)
{
    board_start_with(b, db, NULL);
}

/* A sungka-relay child taking its games from upstream. */
static void relay_start(child *c, const char *upstream)
{
    char *const argv[] = {relay_path, "--listen", "127.0.0.1:0", "--upstream",
                          (char *)upstream, "--quiet", "--max-streams", "100000", NULL};
    child_spawn(c, argv);
}

/* The floor (--serve-floor) or the rpc/ echo (--serve-echo): this program
 * again, as a server of its own. */
static void echo_child_start(child *c, const char *mode)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        fatal("cannot find this program: %s", strerror(errno));
    self[len] = 0;
    char *const argv[] = {self, (char *)mode, NULL};
    child_spawn(c, argv);
}

/* ----------------------------------------------------------------- clients */

typedef struct pool {
    rpc_client **c;
    int n;
} pool;

/* n clients; targets may list several servers ("a,b,c"): client i goes to
 * the (i mod count)th, so games made through them spread over a cluster. */
static void pool_open(pool *p, const char *servers, int n)
{
    int n_servers = 1;
    for (const char *c = servers; *c; c++)
        n_servers += *c == ',';
    p->n = n < n_servers ? n_servers : n;
    p->c = calloc((size_t)p->n, sizeof *p->c);
    for (int i = 0; i < p->n; i++) {
        const char *t = servers;
        for (int k = 0; k < i % n_servers; k++)
            t = strchr(t, ',') + 1;
        char target[64];
        snprintf(target, sizeof target, "%.*s", (int)strcspn(t, ","), t);
        if (rpc_client_create(target, NULL, &p->c[i]) != 0)
            fatal("cannot create client %d", i);
    }
}

static void pool_close(pool *p)
{
    for (int i = 0; i < p->n; i++)
        rpc_client_destroy(p->c[i]);
    free(p->c);
    p->c = NULL;
    p->n = 0;
}

static ProtobufCMessage *call_sync(rpc_client *cli, const rpc_method *m,
                                   const ProtobufCMessage *req, const char *token,
                                   const char *what)
{
    ProtobufCMessage *reply;
    rpc_status st;
    if (rpc_client_call_sync(cli, m, req, token, WAIT_MS, &reply, &st) != 0)
        fatal("%s: %s %s", what, rpc_code_name(st.code), st.message);
    return reply;
}

static void create_game(rpc_client *cli, char id[32])
{
    Sungka__V1__CreateGameRequest req = SUNGKA__V1__CREATE_GAME_REQUEST__INIT;
    req.kind = "sungka";
    ProtobufCMessage *reply = call_sync(cli, &M_CREATE, &req.base, NULL, "CreateGame");
    snprintf(id, 32, "%s", ((Sungka__V1__CreateGameResponse *)reply)->game->game_id);
    protobuf_c_message_free_unpacked(reply, NULL);
}

static void join_game(rpc_client *cli, const char *id, const char *name, bool observe,
                      char token[64])
{
    Sungka__V1__JoinGameRequest req = SUNGKA__V1__JOIN_GAME_REQUEST__INIT;
    req.game_id = (char *)id;
    req.name = (char *)name;
    req.observe = observe;
    ProtobufCMessage *reply = call_sync(cli, &M_JOIN, &req.base, NULL, "JoinGame");
    snprintf(token, 64, "%s", ((Sungka__V1__BoardRef *)reply)->token);
    protobuf_c_message_free_unpacked(reply, NULL);
}

static void set_ready(rpc_client *cli, const char *token)
{
    Sungka__V1__ReadyRequest req = SUNGKA__V1__READY_REQUEST__INIT;
    req.ready = 1;
    protobuf_c_message_free_unpacked(call_sync(cli, &M_READY, &req.base, token, "Ready"),
                                     NULL);
}

/* ------------------------------------------------- stream and reply sinks */

enum { SUB_OBSERVER, SUB_PLAYER };
typedef struct sub {
    int kind;
    int seat;
    rpc_stream *stream;
    bool ended;                   /* under smu: end_cb ran, the stream is gone */
} sub;

static pthread_mutex_t smu = PTHREAD_MUTEX_INITIALIZER;

static atomic_int g_hello;        /* snapshots (board) or hellos (echo) seen */
static atomic_int g_recv;         /* fan-out: this round's messages seen */
static atomic_int g_expect;       /* fan-out: how many make the round complete */
static atomic_llong g_t_last;     /* when the last of them arrived */
static atomic_int g_own;          /* move: the mover saw its own MoveMade */
static atomic_llong g_t_own;
static atomic_int g_replies;      /* unary replies */
static atomic_llong g_t_reply;
static atomic_int g_errors;
static atomic_ullong g_seq;       /* echo fan-out: this round's sequence number */
static atomic_size_t g_event_bytes;

static void arrived(void)
{
    if (atomic_fetch_add(&g_recv, 1) + 1 == atomic_load(&g_expect)) {
        atomic_store(&g_t_last, now_ns());
        wake_main();
    }
}

static void board_msg(ProtobufCMessage *msg, void *user)
{
    const sub *s = user;
    const Sungka__V1__Event *ev = (const Sungka__V1__Event *)msg;
    if (ev->body_case == SUNGKA__V1__EVENT__BODY_SNAPSHOT) {
        atomic_fetch_add(&g_hello, 1);
        wake_main();
    } else if (ev->body_case == SUNGKA__V1__EVENT__BODY_MOVE_MADE) {
        if (s->kind == SUB_OBSERVER) {
            arrived();
        } else if (ev->move_made->seat == s->seat) {
            atomic_store(&g_t_own, now_ns());
            if (!atomic_load(&g_event_bytes))
                atomic_store(&g_event_bytes, protobuf_c_message_get_packed_size(msg));
            atomic_store(&g_own, 1);
            wake_main();
        }
    }
    protobuf_c_message_free_unpacked(msg, NULL);
}

/* A SubscribeMany stream's envelope: one event for the observers it names. */
static void multi_msg(ProtobufCMessage *msg, void *user)
{
    (void)user;
    const Sungka__V1__MultiEvent *m = (const Sungka__V1__MultiEvent *)msg;
    const Sungka__V1__Event *ev = m->event;
    if (m->ended) {
        atomic_fetch_add(&g_errors, 1);
        fprintf(stderr, "sungka-bench: subscription %u ended: %s\n", m->ended->subscription,
                m->ended->message);
    } else if (ev && ev->body_case == SUNGKA__V1__EVENT__BODY_SNAPSHOT) {
        atomic_fetch_add(&g_hello, (int)m->n_subscriptions);
        wake_main();
    } else if (ev && ev->body_case == SUNGKA__V1__EVENT__BODY_MOVE_MADE) {
        for (size_t i = 0; i < m->n_subscriptions; i++)
            arrived();
    }
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void echo_msg(ProtobufCMessage *msg, void *user)
{
    (void)user;
    const Sungkabench__Msg *m = (const Sungkabench__Msg *)msg;
    if (m->seq == 0) {
        atomic_fetch_add(&g_hello, 1);
        wake_main();
    } else if (m->seq == atomic_load(&g_seq)) {
        arrived();
    }
    protobuf_c_message_free_unpacked(msg, NULL);
}

static void stream_end(const rpc_status *status, void *user)
{
    sub *s = user;
    if (s) {
        pthread_mutex_lock(&smu);
        s->ended = true;
        pthread_mutex_unlock(&smu);
    }
    if (status->code != RPC_OK && status->code != RPC_CANCELLED &&
        status->code != RPC_UNAVAILABLE)
        fprintf(stderr, "sungka-bench: stream ended: %s %s\n", rpc_code_name(status->code),
                status->message);
}

static void reply_cb(const rpc_status *st, ProtobufCMessage *reply, void *user)
{
    (void)user;
    if (st->code != RPC_OK) {
        atomic_fetch_add(&g_errors, 1);
        fprintf(stderr, "sungka-bench: call failed: %s %s\n", rpc_code_name(st->code),
                st->message);
    } else {
        protobuf_c_message_free_unpacked(reply, NULL);
    }
    atomic_store(&g_t_reply, now_ns());
    atomic_fetch_add(&g_replies, 1);
    wake_main();
}

static void reset_counters(void)
{
    atomic_store(&g_hello, 0);
    atomic_store(&g_recv, 0);
    atomic_store(&g_expect, INT_MAX);
    atomic_store(&g_own, 0);
    atomic_store(&g_replies, 0);
    atomic_store(&g_errors, 0);
}

static void check_errors(const char *what)
{
    if (atomic_load(&g_errors))
        fatal("%s: %d calls failed", what, atomic_load(&g_errors));
}

/* ------------------------------------------------------------ move choice */

static int pick_move(const game_state *g, int salt)
{
    int legal[GAME_MAX_MOVES];
    int n = game_legal_moves(g, legal, GAME_MAX_MOVES);
    return legal[(unsigned)salt % (unsigned)n];
}

/* For fan-out rounds the same games must last: prefer the move that leaves
 * the most stones in the cups (and does not end the game). */
static int pick_lasting(const game_state *g, int salt)
{
    int legal[GAME_MAX_MOVES];
    int n = game_legal_moves(g, legal, GAME_MAX_MOVES);
    int best = legal[0], best_v = INT_MIN;
    int seat = game_to_move(g);
    static game_state t;   /* main thread only; 8 KiB */
    for (int i = 0; i < n; i++) {
        t = *g;
        game_play(&t, seat, legal[i], NULL, NULL, 0);
        int v = -1;
        if (!game_is_over(&t)) {
            v = 0;
            for (int c = 0; c < game_cell_count(&t); c++)
                v += game_cell(&t, c);
            for (int s = 0; s < game_seats(&t); s++)
                v -= game_cell(&t, game_mancala_home(&t, s));
            v = v * 8 + (int)((unsigned)(salt + i * 5) % 8u);
        }
        if (v > best_v) {
            best_v = v;
            best = legal[i];
        }
    }
    return best;
}

static void new_local_game(game_state *g)
{
    char err[GAME_ERR_LEN];
    if (game_new(g, game_kind_find("sungka"), NULL, err, sizeof err) != 0)
        fatal("game_new: %s", err);
}

/* ---------------------------------------------------------- move round trip */

/* Unary echo: async call, the main thread waits for the callback (the same
 * hand-off as the move measurement below). */
static stats bench_echo_rtt(const char *target, int calls)
{
    pool p;
    pool_open(&p, target, 1);
    int warm = calls / 10 + 10;
    double *us = calloc((size_t)calls, sizeof *us);
    Sungkabench__Msg req = SUNGKABENCH__MSG__INIT;
    req.text = "ping";
    reset_counters();
    for (int i = 0; i < warm + calls; i++) {
        int64_t t0 = now_ns();
        if (rpc_client_call(p.c[0], &E_SAY, &req.base, NULL, WAIT_MS, reply_cb, NULL) != 0)
            fatal("Say: cannot start");
        wait_counts(&g_replies, i + 1, NULL, 0, "Say reply");
        if (i >= warm)
            us[i - warm] = (double)(atomic_load(&g_t_reply) - t0) / 1e3;
    }
    check_errors("Say");
    pool_close(&p);
    stats s = summarize(us, calls);
    free(us);
    return s;
}

/* Two players, each its own client (connection) and subscription; moves
 * alternate as the rules say; each move is timed from the call to the
 * mover's own MoveMade event (and, separately, to the Move reply). */
static void bench_move_rtt(const char *target, int moves, stats *ev_out, stats *reply_out,
                           int *games_out)
{
    pool p;
    pool_open(&p, target, 2);
    int warm = moves / 10 + 10, played = 0, games = 0;
    double *ev_us = calloc((size_t)moves, sizeof *ev_us);
    double *rep_us = calloc((size_t)moves, sizeof *rep_us);
    sub **keep = NULL;   /* every game's two sinks: streams of finished games stay open */
    game_state *g = malloc(sizeof *g);
    reset_counters();
    while (played < warm + moves) {
        char id[32], token[2][64];
        create_game(p.c[0], id);
        games++;
        join_game(p.c[0], id, "alice", false, token[0]);
        join_game(p.c[1], id, "bob", false, token[1]);
        sub *s = calloc(2, sizeof *s);
        keep = realloc(keep, (size_t)games * sizeof *keep);
        keep[games - 1] = s;
        int hello = atomic_load(&g_hello);
        for (int i = 0; i < 2; i++) {
            s[i] = (sub){SUB_PLAYER, i, NULL, false};
            Sungka__V1__SubscribeRequest sr = SUNGKA__V1__SUBSCRIBE_REQUEST__INIT;
            pthread_mutex_lock(&smu);   /* s[i].stream is set before end_cb can look */
            if (rpc_client_stream(p.c[i], &M_SUBSCRIBE, &sr.base, token[i], board_msg,
                                  stream_end, &s[i], &s[i].stream) != 0)
                fatal("Subscribe: cannot start");
            pthread_mutex_unlock(&smu);
        }
        wait_counts(&g_hello, hello + 2, NULL, 0, "snapshots");
        set_ready(p.c[0], token[0]);
        set_ready(p.c[1], token[1]);
        new_local_game(g);
        while (!game_is_over(g) && played < warm + moves) {
            int seat = game_to_move(g);
            int cup = pick_move(g, played * 7);
            Sungka__V1__MoveRequest mr = SUNGKA__V1__MOVE_REQUEST__INIT;
            mr.move = cup;
            atomic_store(&g_own, 0);
            int replies = atomic_load(&g_replies);
            int64_t t0 = now_ns();
            if (rpc_client_call(p.c[seat], &M_MOVE, &mr.base, token[seat], WAIT_MS, reply_cb,
                                NULL) != 0)
                fatal("Move: cannot start");
            wait_counts(&g_own, 1, &g_replies, replies + 1, "the mover's event");
            check_errors("Move");
            if (played >= warm) {
                ev_us[played - warm] = (double)(atomic_load(&g_t_own) - t0) / 1e3;
                rep_us[played - warm] = (double)(atomic_load(&g_t_reply) - t0) / 1e3;
            }
            played++;
            game_play(g, seat, cup, NULL, NULL, 0);
        }
        /* A connection carries at most 64 streams: close this game's. */
        pthread_mutex_lock(&smu);
        for (int i = 0; i < 2; i++)
            if (!s[i].ended)
                rpc_stream_cancel(s[i].stream);
        pthread_mutex_unlock(&smu);
    }
    pool_close(&p);   /* end callbacks have run: the sinks may go */
    for (int i = 0; i < games; i++)
        free(keep[i]);
    free(keep);
    free(g);
    *ev_out = summarize(ev_us, moves);
    *reply_out = summarize(rep_us, moves);
    *games_out = games;
    free(ev_us);
    free(rep_us);
}

/* ---------------------------------------------------------------- fan-out */

static stats bench_echo_fanout(const char *target, int n, int per_conn, int rounds)
{
    pool obs, pusher;
    pool_open(&obs, target, (n + per_conn - 1) / per_conn);
    pool_open(&pusher, target, 1);
    reset_counters();
    atomic_store(&g_seq, 0);
    Sungkabench__Msg req = SUNGKABENCH__MSG__INIT;
    for (int i = 0; i < n; i++) {
        rpc_stream *st;
        if (rpc_client_stream(obs.c[i / per_conn], &E_WATCH, &req.base, NULL,
                              echo_msg, stream_end, NULL, &st) != 0)
            fatal("Watch: cannot start");
    }
    wait_counts(&g_hello, n, NULL, 0, "echo watchers");
    double *us = calloc((size_t)rounds, sizeof *us);
    double cpu0 = 0;
    for (int r = 0; r < rounds + 1; r++) {   /* round 0 warms up */
        if (r == 1)
            cpu0 = cpu_begin();
        atomic_store(&g_recv, 0);
        atomic_store(&g_expect, n);
        atomic_store(&g_seq, (unsigned long long)r + 1);
        req.seq = (uint64_t)r + 1;
        int replies = atomic_load(&g_replies);
        int64_t t0 = now_ns();
        if (rpc_client_call(pusher.c[0], &E_PUSH, &req.base, NULL, WAIT_MS, reply_cb, NULL) != 0)
            fatal("Push: cannot start");
        wait_counts(&g_recv, n, &g_replies, replies + 1, "echo fan-out");
        if (r > 0)
            us[r - 1] = (double)(atomic_load(&g_t_last) - t0) / 1e3;
    }
    cpu_end(cpu0);
    check_errors("Push");
    pool_close(&pusher);
    pool_close(&obs);
    stats s = summarize(us, rounds);
    free(us);
    return s;
}

typedef struct fgame {
    char id[32];
    char token[2][64];
    rpc_client *cli;
    game_state st;
    int move;
} fgame;

/* N observers of one game; each round makes one move and lasts until the
 * last observer has its MoveMade. (The code can spread N over k games, one
 * move in each per round, back to back; k is 1.) */
/* watch_at: where the observers join and watch (relays: "a,b,c"); NULL:
 * the game's own service. */
static stats bench_board_fanout(const char *target, int n, int per_conn, bool many,
                                int rounds, int *games_out, int *rounds_out,
                                const char *watch_at)
{
    int k = 1;
    pool movers, obs;
    pool_open(&movers, target, (k + CALLS_PER_CLIENT - 1) / CALLS_PER_CLIENT);
    pool_open(&obs, watch_at ? watch_at : target, (n + per_conn - 1) / per_conn);
    fgame *gs = calloc((size_t)k, sizeof *gs);
    sub *subs = calloc((size_t)n, sizeof *subs);
    reset_counters();
    int o = 0;
    for (int gi = 0; gi < k; gi++) {
        fgame *g = &gs[gi];
        g->cli = movers.c[gi % movers.n];
        create_game(g->cli, g->id);
        join_game(g->cli, g->id, "alice", false, g->token[0]);
        join_game(g->cli, g->id, "bob", false, g->token[1]);
        int here = n / k + (gi < n % k);
        /* many: each connection's observers on one SubscribeMany stream */
        char (*tokens)[64] = calloc((size_t)per_conn, sizeof *tokens);
        Sungka__V1__Subscription *legs = calloc((size_t)per_conn, sizeof *legs);
        Sungka__V1__Subscription **legp = calloc((size_t)per_conn, sizeof *legp);
        for (int j = 0; j < here; j++, o++) {
            char name[16];
            char *token = tokens[o % per_conn];
            snprintf(name, sizeof name, "obs%d", j);
            join_game(obs.c[o / per_conn], g->id, name, true, token);
            subs[o] = (sub){SUB_OBSERVER, -1, NULL, false};
            rpc_stream *st;
            if (!many) {
                Sungka__V1__SubscribeRequest sr = SUNGKA__V1__SUBSCRIBE_REQUEST__INIT;
                if (rpc_client_stream(obs.c[o / per_conn], &M_SUBSCRIBE, &sr.base, token,
                                      board_msg, stream_end, &subs[o], &st) != 0)
                    fatal("Subscribe: cannot start");
                continue;
            }
            sungka__v1__subscription__init(&legs[o % per_conn]);
            legs[o % per_conn].token = token;
            legp[o % per_conn] = &legs[o % per_conn];
            if ((o + 1) % per_conn != 0 && j + 1 < here)
                continue;
            Sungka__V1__SubscribeManyRequest mr = SUNGKA__V1__SUBSCRIBE_MANY_REQUEST__INIT;
            mr.n_subscriptions = (size_t)(o % per_conn + 1);
            mr.subscriptions = legp;
            if (rpc_client_stream(obs.c[o / per_conn], &M_SUBSCRIBE_MANY, &mr.base, NULL,
                                  multi_msg, stream_end, NULL, &st) != 0)
                fatal("SubscribeMany: cannot start");
        }
        free(tokens);
        free(legs);
        free(legp);
    }
    wait_counts(&g_hello, n, NULL, 0, "observer snapshots");
    for (int gi = 0; gi < k; gi++) {
        set_ready(gs[gi].cli, gs[gi].token[0]);
        set_ready(gs[gi].cli, gs[gi].token[1]);
        new_local_game(&gs[gi].st);
    }
    sleep_ms(100);   /* let the start events drain */
    double *us = calloc((size_t)rounds, sizeof *us);
    int done = 0;
    double cpu0 = 0;
    for (int r = 0; r < rounds + 1; r++) {   /* round 0 warms up */
        if (r == 1)
            cpu0 = cpu_begin();
        bool over = false;
        for (int gi = 0; gi < k; gi++) {
            if (game_is_over(&gs[gi].st))
                over = true;
            else
                gs[gi].move = pick_lasting(&gs[gi].st, r + gi);
        }
        if (over)
            break;   /* a game ended: report the rounds made so far */
        atomic_store(&g_recv, 0);
        atomic_store(&g_expect, n);
        int replies = atomic_load(&g_replies);
        int64_t t0 = now_ns();
        for (int gi = 0; gi < k; gi++) {
            fgame *g = &gs[gi];
            Sungka__V1__MoveRequest mr = SUNGKA__V1__MOVE_REQUEST__INIT;
            mr.move = g->move;
            if (rpc_client_call(g->cli, &M_MOVE, &mr.base, g->token[game_to_move(&g->st)],
                                WAIT_MS, reply_cb, NULL) != 0)
                fatal("Move: cannot start");
        }
        wait_counts(&g_recv, n, &g_replies, replies + k, "observer events");
        check_errors("Move (fan-out)");
        if (r > 0)
            us[done++] = (double)(atomic_load(&g_t_last) - t0) / 1e3;
        for (int gi = 0; gi < k; gi++)
            game_play(&gs[gi].st, game_to_move(&gs[gi].st), gs[gi].move, NULL, NULL, 0);
    }
    cpu_end(cpu0);
    pool_close(&obs);
    pool_close(&movers);
    free(subs);
    free(gs);
    stats s = summarize(us, done);
    free(us);
    *games_out = k;
    *rounds_out = done;
    return s;
}

/* ------------------------------------------------------------- throughput */

typedef struct tgame {
    int idx;
    rpc_client *cli;
    char token[2][64];
    int pending, seat, moves;
    bool failed;
    game_state st;
} tgame;

static atomic_long tp_moves;
static atomic_int tp_stop;
static atomic_int tp_busy;         /* games with a Move in flight */
static tgame **tp_idle;            /* games that stopped, for the main thread (wmu) */
static int tp_n_idle;

static void tp_next(tgame *g);

static void tp_park(tgame *g)
{
    atomic_fetch_sub(&tp_busy, 1);
    pthread_mutex_lock(&wmu);
    tp_idle[tp_n_idle++] = g;
    pthread_cond_broadcast(&wcv);
    pthread_mutex_unlock(&wmu);
}

static void tp_reply(const rpc_status *st, ProtobufCMessage *reply, void *user)
{
    tgame *g = user;
    if (st->code != RPC_OK) {
        fprintf(stderr, "sungka-bench: Move failed: %s %s\n", rpc_code_name(st->code),
                st->message);
        g->failed = true;
        tp_park(g);
        return;
    }
    protobuf_c_message_free_unpacked(reply, NULL);
    game_play(&g->st, g->seat, g->pending, NULL, NULL, 0);
    g->moves++;
    atomic_fetch_add(&tp_moves, 1);
    if (game_is_over(&g->st) || atomic_load(&tp_stop))
        tp_park(g);
    else
        tp_next(g);
}

/* On the main thread for a game's first move, then on its client's thread. */
static void tp_next(tgame *g)
{
    g->seat = game_to_move(&g->st);
    g->pending = pick_move(&g->st, g->moves * 7 + g->idx);
    Sungka__V1__MoveRequest mr = SUNGKA__V1__MOVE_REQUEST__INIT;
    mr.move = g->pending;
    if (rpc_client_call(g->cli, &M_MOVE, &mr.base, g->token[g->seat], WAIT_MS, tp_reply, g) !=
        0) {
        g->failed = true;
        tp_park(g);
    }
}

static void tp_setup(tgame *g)
{
    char id[32];
    create_game(g->cli, id);
    join_game(g->cli, id, "alice", false, g->token[0]);
    join_game(g->cli, id, "bob", false, g->token[1]);
    set_ready(g->cli, g->token[0]);
    set_ready(g->cli, g->token[1]);
    new_local_game(&g->st);
    g->moves = 0;
}

/* G games with one Move in flight each; a finished game is replaced by a new
 * one (set up by the main thread, inside the measured time). */
static double bench_throughput(const char *target, int n_games, int ms, int *started_out)
{
    pool p;
    pool_open(&p, target, (n_games + CALLS_PER_CLIENT - 1) / CALLS_PER_CLIENT);
    tgame *gs = calloc((size_t)n_games, sizeof *gs);
    tp_idle = calloc((size_t)n_games, sizeof *tp_idle);
    tp_n_idle = 0;
    atomic_store(&tp_moves, 0);
    atomic_store(&tp_stop, 0);
    atomic_store(&tp_busy, 0);
    int started = n_games;
    for (int i = 0; i < n_games; i++) {
        gs[i].idx = i;
        gs[i].cli = p.c[i % p.n];
        tp_setup(&gs[i]);
    }
    double cpu0 = cpu_begin();
    int64_t t0 = now_ns(), end = t0 + (int64_t)ms * 1000000;
    for (int i = 0; i < n_games; i++) {
        atomic_fetch_add(&tp_busy, 1);
        tp_next(&gs[i]);
    }
    tgame **todo = calloc((size_t)n_games, sizeof *todo);
    int failed = 0;
    for (;;) {
        int64_t now = now_ns();
        if (now >= end)
            break;
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_nsec += 20 * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&wmu);
        if (tp_n_idle == 0)
            pthread_cond_timedwait(&wcv, &wmu, &dl);
        int n = tp_n_idle;
        memcpy(todo, tp_idle, (size_t)n * sizeof *todo);
        tp_n_idle = 0;
        pthread_mutex_unlock(&wmu);
        for (int i = 0; i < n; i++) {
            tgame *g = todo[i];
            if (g->failed) {
                failed++;
                continue;
            }
            tp_setup(g);
            started++;
            atomic_fetch_add(&tp_busy, 1);
            tp_next(g);
        }
    }
    long moves = atomic_load(&tp_moves);
    double secs = (double)(now_ns() - t0) / 1e9;
    cpu_end(cpu0);
    atomic_store(&tp_stop, 1);
    /* Wait for the calls in flight to land (each game parks itself). */
    for (int spins = 0; atomic_load(&tp_busy) > 0; spins++) {
        if (spins > WAIT_MS / 10)
            fatal("throughput: %d games never finished their last move",
                  atomic_load(&tp_busy));
        sleep_ms(10);
    }
    pool_close(&p);
    free(todo);
    free(tp_idle);
    tp_idle = NULL;
    free(gs);
    if (failed)
        fatal("throughput: %d games failed a move", failed);
    *started_out = started;
    return moves / secs;
}

/* The floor for throughput: the same number of echo Say calls kept in
 * flight over the same number of connections, each reply sending the next. */
static atomic_long et_calls;
static atomic_int et_stop, et_busy;

typedef struct et_slot {
    rpc_client *cli;
} et_slot;

static void et_next(et_slot *e);

static void et_reply(const rpc_status *st, ProtobufCMessage *reply, void *user)
{
    et_slot *e = user;
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
    if (st->code != RPC_OK)
        fatal("Say (throughput): %s %s", rpc_code_name(st->code), st->message);
    atomic_fetch_add(&et_calls, 1);
    if (atomic_load(&et_stop))
        atomic_fetch_sub(&et_busy, 1);
    else
        et_next(e);
}

static void et_next(et_slot *e)
{
    Sungkabench__Msg req = SUNGKABENCH__MSG__INIT;
    req.text = "move";
    if (rpc_client_call(e->cli, &E_SAY, &req.base, NULL, WAIT_MS, et_reply, e) != 0)
        fatal("Say (throughput): cannot start");
}

static double bench_echo_throughput(const char *target, int n_inflight, int ms)
{
    pool p;
    pool_open(&p, target, (n_inflight + CALLS_PER_CLIENT - 1) / CALLS_PER_CLIENT);
    et_slot *slots = calloc((size_t)n_inflight, sizeof *slots);
    atomic_store(&et_calls, 0);
    atomic_store(&et_stop, 0);
    atomic_store(&et_busy, n_inflight);
    double cpu0 = cpu_begin();
    int64_t t0 = now_ns();
    for (int i = 0; i < n_inflight; i++) {
        slots[i].cli = p.c[i % p.n];
        et_next(&slots[i]);
    }
    sleep_ms(ms);
    long calls = atomic_load(&et_calls);
    double secs = (double)(now_ns() - t0) / 1e9;
    cpu_end(cpu0);
    atomic_store(&et_stop, 1);
    for (int spins = 0; atomic_load(&et_busy) > 0; spins++) {
        if (spins > WAIT_MS / 10)
            fatal("echo throughput: calls never finished");
        sleep_ms(10);
    }
    pool_close(&p);
    free(slots);
    return calls / secs;
}

/* ----------------------------------------------------------------- memory */

/* n observers, per_game to each of the games ids, each with its Subscribe
 * stream open on the pool's connections (50 to one); subs[n] are theirs. */
static void watch_games(rpc_client *lobby, pool *obs, char (*ids)[32], int n, int per_game,
                        sub *subs)
{
    char token[64];
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "obs%d", i % per_game);
        join_game(lobby, ids[i / per_game], name, true, token);
        subs[i] = (sub){SUB_OBSERVER, -1, NULL, false};
        Sungka__V1__SubscribeRequest sr = SUNGKA__V1__SUBSCRIBE_REQUEST__INIT;
        rpc_stream *st;
        if (rpc_client_stream(obs->c[i / STREAMS_PER_CLIENT], &M_SUBSCRIBE, &sr.base, token,
                              board_msg, stream_end, &subs[i], &st) != 0)
            fatal("Subscribe: cannot start");
    }
}

static long rss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

/* The memory, streams and join sections' sungka-board child. */
static child mem_child;

static long settled_rss(pid_t pid)
{
    sleep_ms(300);
    return rss_kib(pid);
}

static void bench_memory(int n_idle, int n_obs)
{
    board_start(&mem_child, ":memory:");
    const char *target = mem_child.target;
    pool lobby, obs;
    pool_open(&lobby, target, 1);
    Grpc__Health__V1__HealthCheckRequest hr = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
    protobuf_c_message_free_unpacked(call_sync(lobby.c[0], &M_HEALTH, &hr.base, NULL, "Health"),
                                     NULL);
    char id[32], token[64];
    for (int i = 0; i < 20; i++) {   /* warm the allocator and the store */
        create_game(lobby.c[0], id);
        join_game(lobby.c[0], id, "alice", false, token);
        join_game(lobby.c[0], id, "bob", false, token);
    }
    long base = settled_rss(mem_child.pid);

    for (int i = 0; i < n_idle; i++) {
        create_game(lobby.c[0], id);
        join_game(lobby.c[0], id, "alice", false, token);
        join_game(lobby.c[0], id, "bob", false, token);
    }
    long with_games = settled_rss(mem_child.pid);

    int k = (n_obs + OBSERVERS_PER_GAME - 1) / OBSERVERS_PER_GAME;
    char (*ids)[32] = calloc((size_t)k, sizeof *ids);
    for (int i = 0; i < k; i++)
        create_game(lobby.c[0], ids[i]);
    pool_open(&obs, target, (n_obs + STREAMS_PER_CLIENT - 1) / STREAMS_PER_CLIENT);
    reset_counters();
    /* The observers' connections (one per 50 streams) count as theirs. */
    long before_obs = settled_rss(mem_child.pid);
    sub *subs = calloc((size_t)n_obs, sizeof *subs);
    watch_games(lobby.c[0], &obs, ids, n_obs, OBSERVERS_PER_GAME, subs);
    wait_counts(&g_hello, n_obs, NULL, 0, "observer snapshots (memory)");
    long with_obs = settled_rss(mem_child.pid);
    pool_close(&obs);
    pool_close(&lobby);
    child_stop(&mem_child);
    free(subs);
    free(ids);

    char param[24];
    snprintf(param, sizeof param, "%d games", n_idle);
    row *r = add_row("memory", "service RSS per idle game", param);
    r->value = (double)(with_games - base) * 1024.0 / n_idle;
    r->unit = "B";
    snprintf(r->note, sizeof r->note,
             "child sungka-board --db :memory:; game created, both seats joined, no streams "
             "(VmRSS %ld -> %ld KiB)", base, with_games);
    snprintf(param, sizeof param, "%d observers", n_obs);
    r = add_row("memory", "service RSS per connected observer", param);
    r->value = (double)(with_obs - before_obs) * 1024.0 / n_obs;
    r->unit = "B";
    snprintf(r->note, sizeof r->note,
             "joined + Subscribe stream open, %d per connection, %d per game "
             "(VmRSS %ld -> %ld KiB)", STREAMS_PER_CLIENT, OBSERVERS_PER_GAME, before_obs,
             with_obs);
    add_target("service memory per connected observer (KiB)", r->value / 1024.0, 64, "KiB",
               false);
}

/* Open n observers' streams on the service at target, `per_game` observers
 * to a game, 50 streams to a connection; returns the service's RSS with all
 * open, then closes every connection at once and returns when a health
 * check got through the departures (*close_ms after the close). */
static long crowd_round(const char *target, rpc_client *lobby, int n, int per_game,
                        double *close_ms)
{
    int k = (n + per_game - 1) / per_game;
    char (*ids)[32] = calloc((size_t)k, sizeof *ids);
    sub *subs = calloc((size_t)n, sizeof *subs);
    for (int i = 0; i < k; i++)
        create_game(lobby, ids[i]);
    pool obs;
    pool_open(&obs, target, (n + STREAMS_PER_CLIENT - 1) / STREAMS_PER_CLIENT);
    reset_counters();
    watch_games(lobby, &obs, ids, n, per_game, subs);
    wait_counts(&g_hello, n, NULL, 0, "observer snapshots (streams)");
    long during = settled_rss(mem_child.pid);
    int64_t t_close = now_ns();
    pool_close(&obs);
    Grpc__Health__V1__HealthCheckRequest hr = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
    protobuf_c_message_free_unpacked(call_sync(lobby, &M_HEALTH, &hr.base, NULL, "Health"),
                                     NULL);
    *close_ms = (double)(now_ns() - t_close) / 1e6;
    free(subs);
    free(ids);
    return during;
}

/* The service's memory before, during and after n streams, all closed at
 * once: what the departures cost, and whether the memory comes back.
 * "Before" follows one round of the same size, so what a service pays once
 * and keeps bounded (SQLite's page cache, 2 MiB of 1 KiB pages and their
 * headers; gRPC's threads) is not counted as kept; the ratio to the RSS at
 * start is shown too. */
static void bench_streams(int n, int per_game)
{
    /* A file store, as a service keeps: in ":memory:" the participants'
     * rows would stay in this process as the database's free pages. */
    remove_db(db_file());
    board_start(&mem_child, db_file());
    const char *target = mem_child.target;
    pool lobby;
    pool_open(&lobby, target, 1);
    double warm_ms, close_ms;
    long cold = rss_kib(mem_child.pid);
    crowd_round(target, lobby.c[0], n, per_game, &warm_ms);
    sleep_ms(2500);     /* past a ping tick: the sweep and the trim run there */
    long before = rss_kib(mem_child.pid);
    long during = crowd_round(target, lobby.c[0], n, per_game, &close_ms);
    sleep_ms(2500);
    long after = rss_kib(mem_child.pid);
    pool_close(&lobby);
    child_stop(&mem_child);
    remove_db(db_file());

    char param[32];
    snprintf(param, sizeof param, "%d streams", n);
    row *r = add_row("streams", "service RSS after they all closed / at start", param);
    r->value = (double)after / (double)cold;
    r->unit = "x";
    snprintf(r->note, sizeof r->note, "the first round fills SQLite's page cache (bounded)");
    r = add_row("streams", "service RSS after they all closed / before", param);
    r->value = (double)after / (double)before;
    r->unit = "x";
    snprintf(r->note, sizeof r->note,
             "VmRSS at start %ld KiB, before %ld KiB, with %d streams open %ld KiB, after "
             "%ld KiB; file store; %d observers to a game, %d streams to a connection; health answered "
             "%.0f ms after the close",
             cold, before, n, during, after, per_game, STREAMS_PER_CLIENT, close_ms);
    static char what[2][64];      /* targets keep the pointer */
    static int n_what;
    char *w = what[n_what++ % 2];
    snprintf(w, sizeof what[0], "RSS after %d streams closed / before", n);
    add_target(w, r->value, 1.10, "x", false);
}

/* One popular game: n observers join it and open their streams, one after
 * another from one client (50 streams to a connection), on a file store as a
 * service keeps. Reports the time until the last has its snapshot and the
 * service's memory per observer (the connections count as theirs). */
static void bench_join(int n)
{
    remove_db(db_file());
    board_start(&mem_child, db_file());
    const char *target = mem_child.target;
    pool lobby, obs;
    pool_open(&lobby, target, 1);
    char id[32];
    create_game(lobby.c[0], id);
    pool_open(&obs, target, (n + STREAMS_PER_CLIENT - 1) / STREAMS_PER_CLIENT);
    reset_counters();
    long before = settled_rss(mem_child.pid);
    sub *subs = calloc((size_t)n, sizeof *subs);
    int64_t t0 = now_ns();
    watch_games(lobby.c[0], &obs, (char (*)[32])id, n, n, subs);
    wait_counts(&g_hello, n, NULL, 0, "observer snapshots (join)");
    double secs = (double)(now_ns() - t0) / 1e9;
    long after = settled_rss(mem_child.pid);
    pool_close(&obs);
    pool_close(&lobby);
    child_stop(&mem_child);
    remove_db(db_file());
    free(subs);

    char param[32];
    snprintf(param, sizeof param, "%d observers", n);
    row *r = add_row("join", "observers of one game join (all)", param);
    r->value = secs;
    r->unit = "s";
    snprintf(r->note, sizeof r->note,
             "JoinGame(observe) then Subscribe, one after another from one client, %d streams "
             "to a connection, until the last snapshot; file store",
             STREAMS_PER_CLIENT);
    r = add_row("join", "service RSS per joined observer", param);
    r->value = (double)(after - before) * 1024.0 / n;
    r->unit = "B";
    snprintf(r->note, sizeof r->note, "VmRSS %ld -> %ld KiB with every stream open", before,
             after);
    static char what[64];         /* the target keeps the pointer */
    snprintf(what, sizeof what, "%d observers of one game join (s)", n);
    add_target(what, secs, 10, "s", false);
    add_target("service memory per joined observer (KiB)", r->value / 1024.0, 16, "KiB", false);
}

/* ------------------------------------------------- relays and a cluster */

/* The game's own service's CPU per move with n observers watching it
 * directly, and through three relays (the third fed by the second, as a
 * tree grows): what the host pays per event, and what the relays pay. */
static void bench_relays(int n, int rounds)
{
    const char *how[] = {"direct", "3 relays"};
    for (int k = 0; k < 2; k++) {
        child b = {0}, r[3] = {{0}};
        board_start(&b, ":memory:");
        char at[3 * 40] = "";
        if (k == 1) {
            relay_start(&r[0], b.target);
            relay_start(&r[1], b.target);
            relay_start(&r[2], r[1].target);
            snprintf(at, sizeof at, "%s,%s,%s", r[0].target, r[1].target, r[2].target);
            g_n_side = 3;
            for (int i = 0; i < 3; i++)
                g_side[i] = &r[i];
        }
        g_server = &b;
        progress("relays: %d observers, %s (%d rounds)", n, how[k], rounds);
        int games, done;
        stats s = bench_board_fanout(b.target, n, STREAMS_PER_CLIENT, false, rounds, &games,
                                     &done, k ? at : NULL);
        row *rw = add_row("relays", "move -> last observer", how[k]);
        rw->latency = true;
        rw->s = s;
        rw = add_row("relays", "host CPU per move (us)", how[k]);
        rw->value = g_cpu_us / (done ? done : 1);
        rw->unit = "us";
        snprintf(rw->note, sizeof rw->note, "%d observers; %.2f us per observer reached", n,
                 rw->value / n);
        if (k) {
            rw = add_row("relays", "relays' CPU per move (us)", how[k]);
            rw->value = g_side_cpu_us / (done ? done : 1);
            rw->unit = "us";
        }
        g_n_side = 0;
        g_server = NULL;
        for (int i = 2; i >= 0; i--)
            child_stop(&r[i]);
        child_stop(&b);
    }
}

/* pg_url with its database name replaced by name. */
static void pg_database(const char *pg_url, const char *name, char *out, size_t len)
{
    const char *slash = strrchr(pg_url, '/');
    int keep = slash && slash > pg_url + 13 ? (int)(slash - pg_url) : (int)strlen(pg_url);
    snprintf(out, len, "%.*s/%s", keep, pg_url, name);
}

/* A Move through a pool of channels to the cluster, following it to the
 * game's node: 0 once accepted, -1 when refused (not a redirect). */
static int move_anywhere(rpc_pool *p, const char *token, int move)
{
    Sungka__V1__MoveRequest mr = SUNGKA__V1__MOVE_REQUEST__INIT;
    mr.move = move;
    ProtobufCMessage *reply = NULL;
    rpc_status st;
    int rc = rpc_client_call_sync(rpc_pool_client(p), &M_MOVE, &mr.base, token, 2000, &reply,
                                  &st);
    if (reply)
        protobuf_c_message_free_unpacked(reply, NULL);
    if (rc == 0)
        return 0;
    if (!rpc_pool_follow(p, &st) && st.code != RPC_UNAVAILABLE &&
        st.code != RPC_DEADLINE_EXCEEDED)
        return -1;
    return 1;                          /* again */
}

/* kill -9 of the node hosting a running game, to the next move accepted
 * (through a pool that finds the game's new node), in ms. */
static double failover_once(const char *url, const char *lease)
{
    child a = {0}, b = {0};
    board_start_with(&a, url, lease);
    board_start_with(&b, url, lease);
    rpc_client *cli;
    if (rpc_client_create(a.target, NULL, &cli) != 0)
        fatal("cannot create a client");
    char id[32], token[2][64], both[80];
    create_game(cli, id);
    join_game(cli, id, "alice", false, token[0]);
    join_game(cli, id, "bob", false, token[1]);
    set_ready(cli, token[0]);
    set_ready(cli, token[1]);
    game_state g;
    new_local_game(&g);
    snprintf(both, sizeof both, "%s,%s", a.target, b.target);
    rpc_pool *p;
    if (rpc_pool_create(both, NULL, &p) != 0)
        fatal("cannot make a pool");
    for (int i = 0; i < 4; i++) {          /* a few moves on the first node */
        int move = pick_lasting(&g, i);
        if (move_anywhere(p, token[game_to_move(&g)], move) != 0)
            fatal("a move before the failover failed");
        game_play(&g, game_to_move(&g), move, NULL, NULL, 0);
    }
    rpc_client_destroy(cli);
    kill(a.pid, SIGKILL);
    waitpid(a.pid, NULL, 0);
    int64_t t0 = now_ns();
    int move = pick_lasting(&g, 9), rc;
    while ((rc = move_anywhere(p, token[game_to_move(&g)], move)) == 1) {
        if (now_ns() - t0 > (int64_t)WAIT_MS * 1000000)
            fatal("the game did not come back within %d ms", WAIT_MS);
        sleep_ms(20);
    }
    double ms = (double)(now_ns() - t0) / 1e6;
    if (rc != 0)
        fatal("the move after the failover was refused");
    rpc_pool_destroy(p);
    a.pid = 0;
    child_stop(&a);
    child_stop(&b);
    return ms;
}

/* On a PostgreSQL server (--pg): moves per second with 1, 2 and 3 nodes
 * sharing it (100 games spread over them), and the failover time. */
static void bench_cluster(const char *pg_url, int tput_ms)
{
    char url[512], name[64], nodes_at[3 * 40];
    for (int n = 1; n <= 3; n++) {
        snprintf(name, sizeof name, "sungka_bench_%d_tput_%d", (int)getpid(), n);
        pg_database(pg_url, name, url, sizeof url);
        child nodes[3] = {{0}};
        nodes_at[0] = '\0';
        for (int i = 0; i < n; i++) {
            board_start(&nodes[i], url);
            snprintf(nodes_at + strlen(nodes_at), sizeof nodes_at - strlen(nodes_at), "%s%s",
                     i ? "," : "", nodes[i].target);
            if (i > 0)
                g_side[g_n_side++] = &nodes[i];
        }
        g_server = &nodes[0];
        progress("cluster: %d node%s on PostgreSQL, 100 games (%d ms)", n, n > 1 ? "s" : "",
                 tput_ms);
        int started;
        double mps = bench_throughput(nodes_at, 100, tput_ms, &started);
        char param[24];
        snprintf(param, sizeof param, "%d node%s", n, n > 1 ? "s" : "");
        row *r = add_row("cluster", "moves per second, 100 games", param);
        r->value = mps;
        r->unit = "/s";
        snprintf(r->note, sizeof r->note, "CPU per move, every node: %.0f us",
                 (g_cpu_us + g_side_cpu_us) / (mps * tput_ms / 1000.0));
        g_server = NULL;
        g_n_side = 0;
        for (int i = n - 1; i >= 0; i--)
            child_stop(&nodes[i]);
    }
    double ms[3];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "sungka_bench_%d_failover_%d", (int)getpid(), i);
        pg_database(pg_url, name, url, sizeof url);
        progress("cluster: failover %d of 3 (lease 2 s)", i + 1);
        ms[i] = failover_once(url, "2");
    }
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            double t = ms[j];
            ms[j] = ms[j - 1];
            ms[j - 1] = t;
        }
    row *r = add_row("cluster", "kill -9 -> next move accepted", "lease 2 s");
    r->value = ms[1];
    r->unit = "ms";
    snprintf(r->note, sizeof r->note, "median of 3 (%.0f, %.0f, %.0f ms); the lease, then "
             "the adopting node's next renewal, then the client's retry", ms[0], ms[1], ms[2]);
}

/* ------------------------------------------------------------------- main */

enum { S_MOVE = 1, S_FANOUT = 2, S_TPUT = 4, S_DURABLE = 8, S_MEMORY = 16, S_STREAMS = 32,
       S_JOIN = 64, S_RELAYS = 128, S_ALL = 255, S_CLUSTER = 256 /* only with --pg */ };

static int parse_only(const char *list)
{
    static const struct { const char *name; int bit; } names[] = {
        {"move", S_MOVE}, {"fanout", S_FANOUT}, {"tput", S_TPUT},
        {"durable", S_DURABLE}, {"memory", S_MEMORY}, {"streams", S_STREAMS}, {"join", S_JOIN},
        {"relays", S_RELAYS}, {"cluster", S_CLUSTER},
    };
    int mask = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp(tok, names[i].name) == 0)
                found = names[i].bit;
        if (!found)
            return -1;
        mask |= found;
    }
    return mask;
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: sungka-bench [OPTION]...\n"
            "Benchmark the board service against a floor written straight on gRPC core.\n"
            "\n"
            "  -q, --quick        a short run (under 30 s): fewer samples, shorter windows,\n"
            "                     no fan-out to 5,000 observers\n"
            "  -o, --json FILE    write the results as JSON here (default bench-results.json)\n"
            "      --only LIST    sections to run, comma-separated: move,fanout,tput,durable,\n"
            "                     memory,streams,join,relays, and cluster (with --pg)\n"
            "      --board PATH   the sungka-board program for the memory, streams, join,\n"
            "                     relays and cluster sections (default: next to this\n"
            "                     program; sungka-relay is looked for beside it)\n"
            "      --pg URL       a PostgreSQL server for the cluster section\n"
            "                     (postgresql://USER@HOST:PORT/postgres; it makes\n"
            "                     databases sungka_bench_PID_* there)\n"
            "      --verdict-anyway  say MET or MISSED even when the machine was not quiet\n"
            "                     (otherwise NOISY): a load average above 0.25 a CPU\n"
            "                     before the run, or other processes using over 5%% of\n"
            "                     the CPU during it\n"
            "  -h, --help         show this help and exit\n"
            "      --version      show the version and exit\n");
}

/* --serve-floor / --serve-echo: one floor server as a child of a benchmark
 * run: print its address, serve until SIGTERM. */
static int serve(const char *mode)
{
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigaddset(&term, SIGINT);
    pthread_sigmask(SIG_BLOCK, &term, NULL);   /* before any thread starts */
    int sig;
    if (strcmp(mode, "--serve-floor") == 0) {
        bench_floor *f = bench_floor_start();
        if (!f)
            fatal("cannot start the bare gRPC core floor");
        printf("floor listening on %s\n", bench_floor_target(f));
        fflush(stdout);
        sigwait(&term, &sig);
        bench_floor_stop(f);
        return 0;
    }
    rpc_init();
    find_methods();
    echo_server es;
    echo_start(&es);
    printf("echo listening on %s\n", es.target);
    fflush(stdout);
    sigwait(&term, &sig);
    echo_stop(&es);
    rpc_shutdown();
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"quick", no_argument, NULL, 'q'},
        {"json", required_argument, NULL, 'o'},
        {"only", required_argument, NULL, 'O'},
        {"board", required_argument, NULL, 'b'},
        {"pg", required_argument, NULL, 'P'},
        {"verdict-anyway", no_argument, NULL, 'A'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},   /* long only: not in the short options */
        {NULL, 0, NULL, 0},
    };
    const char *json = "bench-results.json", *pg_url = NULL;
    int mask = S_ALL, c;
    if (argc == 2 && (strcmp(argv[1], "--serve-floor") == 0 ||
                      strcmp(argv[1], "--serve-echo") == 0))
        return serve(argv[1]);
    while ((c = getopt_long(argc, argv, "qo:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'q':
            quick = true;
            break;
        case 'o':
            json = optarg;
            break;
        case 'O':
            mask = parse_only(optarg);
            if (mask <= 0) {
                fprintf(stderr, "sungka-bench: unknown section in '%s'\n", optarg);
                return 2;
            }
            break;
        case 'A':
            verdict_anyway = true;
            break;
        case 'b':
            snprintf(board_path, sizeof board_path, "%s", optarg);
            break;
        case 'P':
            pg_url = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("sungka-bench %s\n", SUNGKA_VERSION);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }
    if ((mask & S_CLUSTER) && !pg_url) {
        fprintf(stderr, "sungka-bench: the cluster section needs a PostgreSQL server (--pg "
                        "postgresql://USER@HOST:PORT/postgres)\n");
        return 2;
    }
    if (pg_url && mask == S_ALL)
        mask |= S_CLUSTER;
    if (!board_path[0]) {
        char self[PATH_MAX];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len > 0) {
            self[len] = 0;
            char *slash = strrchr(self, '/');
            if (slash)
                *slash = 0;
            snprintf(board_path, sizeof board_path, "%.*s/sungka-board", PATH_MAX - 16, self);
        }
    }

    /* sungka-relay beside the board program */
    snprintf(relay_path, sizeof relay_path, "%.*s/sungka-relay",
             (int)(strrchr(board_path, '/') ? strrchr(board_path, '/') - board_path : 1),
             strrchr(board_path, '/') ? board_path : ".");

    /* Thousands of streams over a few hundred connections: raise the fd cap. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    signal(SIGPIPE, SIG_IGN);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sungka-bench-svc-XXXXXX");
    if (!mkdtemp(tmpdir))
        fatal("mkdtemp: %s", strerror(errno));
    atexit(cleanup);
    rpc_init();
    find_methods();
    quiet_begin();
    int64_t t_start = now_ns();
    t_begin = t_start;

    int calls = quick ? 1000 : 5000;
    int rounds = quick ? 10 : 30;
    int tput_ms = quick ? 1000 : 3000;
    /* Fan-out shapes: observers per connection (an agent or relay carrying
     * many; people on their own machines) and how many watch one game. */
    const struct { int n, per_conn; bool many, full_only; } fan[] = {
        {10, 50, false, false}, {100, 50, false, false}, {1000, 50, false, false},
        {1000, 50, true, false}, {1000, 1, false, false}, {10000, 50, false, true},
        {10000, 50, true, true},
    };
    const int tput_g[] = {1, 10, 100, 1000};
    char param[24], note[320];
    child es = {0}, bare = {0};   /* the rpc/ echo and the bare gRPC core floor */
    bool echo = mask & (S_MOVE | S_FANOUT | S_DURABLE | S_TPUT);
    if (echo) {
        echo_child_start(&es, "--serve-echo");
        echo_child_start(&bare, "--serve-floor");
    }
    fprintf(stderr, "sungka-bench (%s): board service vs bare gRPC core, %ld CPUs\n",
            quick ? "quick" : "full", sysconf(_SC_NPROCESSORS_ONLN));

    stats echo_rtt = {0}, bare_rtt = {0}, move_file = {0};
    if (mask & (S_MOVE | S_DURABLE)) {
        progress("bare gRPC core unary round trip (%d calls)", calls);
        bare_rtt = bench_echo_rtt(bare.target, calls);
        progress("rpc/ echo unary round trip (%d calls)", calls);
        echo_rtt = bench_echo_rtt(es.target, calls);
        row *r = add_row("move", "floor: unary Say, bare gRPC core", "no project code");
        r->latency = true;
        r->s = bare_rtt;
        r = add_row("move", "unary Say on rpc/ (our layer)", "rpc/ echo");
        r->latency = true;
        r->s = echo_rtt;
        r->has_floor = true;
        r->f = bare_rtt;
    }
    if (mask & S_MOVE) {
        progress("move round trip, store on a file (%d moves)", calls);
        child b;
        board_start(&b, db_file());
        stats ev, rep;
        int games;
        bench_move_rtt(b.target, calls, &ev, &rep, &games);
        child_stop(&b);
        move_file = ev;
        row *r = add_row("move", "Move -> mover's own event", "file store");
        r->latency = true;
        r->s = ev;
        r->has_floor = true;
        r->f = bare_rtt;
        snprintf(r->note, sizeof r->note,
                 "floor: bare unary Say; %d moves over %d games; MoveMade event %zu bytes",
                 ev.n, games, atomic_load(&g_event_bytes));
        r = add_row("move", "Move -> Move reply", "file store");
        r->latency = true;
        r->s = rep;
        r->has_floor = true;
        r->f = bare_rtt;
        add_target("move -> own event p50 / bare unary p50", ev.p50 / bare_rtt.p50, 1.3, "x",
                   false);
    }
    if (mask & S_FANOUT) {
        for (size_t i = 0; i < sizeof fan / sizeof fan[0]; i++) {
            int n = fan[i].n, per = fan[i].per_conn, games, done;
            if (quick && fan[i].full_only)
                continue;   /* 10,000 observers take a while to set up: full run only */
            int rr = n >= 5000 && !quick ? 20 : rounds;
            progress("fan-out to %d observers, %d to a connection (%d rounds)", n, per, rr);
            g_server = &bare;
            stats floor_s = bench_echo_fanout(bare.target, n, per, rr);
            double floor_cpu = g_cpu_us / ((double)n * rr);
            double floor_sys = g_syscalls / ((double)n * rr);
            child b;
            board_start(&b, db_file());
            g_server = &b;
            stats s = bench_board_fanout(b.target, n, per, fan[i].many, rr, &games, &done,
                                         NULL);
            double cpu = done ? g_cpu_us / ((double)n * done) : 0;
            double sys = done ? g_syscalls / ((double)n * done) : -1;
            g_server = NULL;
            child_stop(&b);
            snprintf(param, sizeof param, "N=%d, %d/%s", n, per,
                     fan[i].many ? "many" : "conn");
            row *r = add_row("fanout", "Move -> last observer's event", param);
            r->latency = true;
            r->s = s;
            r->has_floor = true;
            r->f = floor_s;
            snprintf(note, sizeof note,
                     "%d game%s, one move per round; %d rounds; floor: bare gRPC core pushing "
                     "to N streams of the same shape; per observer reached: service %.1f us "
                     "CPU, %.2f syscalls; floor %.1f us, %.2f", games, games == 1 ? "" : "s",
                     done, cpu, sys, floor_cpu, floor_sys);
            snprintf(r->note, sizeof r->note, "%s", note);
            static char what[8][64];   /* targets keep the pointer */
            if (n >= 1000 && i < 8 && (per == 1 || fan[i].many)) {
                snprintf(what[i], sizeof what[i], "fan-out N=%d, %d/%s: p99 / floor p99", n,
                         per, fan[i].many ? "many" : "conn");
                add_target(what[i], s.p99 / floor_s.p99, per > 1 ? 0.5 : 1.0, "x", false);
            }
        }
    }
    if (mask & S_TPUT) {
        progress("throughput floor: bare unary Say, 100 calls in flight (%d ms)", tput_ms);
        /* The first second of calls runs a third slower (gRPC's threads and
         * the connections warming): a floor is taken warm. */
        bench_echo_throughput(bare.target, 100, 500);
        g_server = &bare;
        double floor = bench_echo_throughput(bare.target, 100, tput_ms);
        double floor_cpu = g_cpu_us / (floor * tput_ms / 1000.0);
        double floor_sys = g_syscalls / (floor * tput_ms / 1000.0);
        for (size_t i = 0; i < sizeof tput_g / sizeof tput_g[0]; i++) {
            int g = tput_g[i], started;
            progress("throughput, %d concurrent games (%d ms)", g, tput_ms);
            child b;
            board_start(&b, db_file());
            g_server = &b;
            double mps = bench_throughput(b.target, g, tput_ms, &started);
            double cpu = g_cpu_us / (mps * tput_ms / 1000.0);
            double sys = g_syscalls / (mps * tput_ms / 1000.0);
            g_server = NULL;
            child_stop(&b);
            snprintf(param, sizeof param, "%d games", g);
            row *r = add_row("tput", "moves per second (file store)", param);
            r->value = mps;
            r->unit = "moves/s";
            snprintf(r->note, sizeof r->note,
                     "%d games played in %.1f s, one Move in flight per game; mean move "
                     "latency ~%.0f us (G / rate); per move: service CPU %.0f us, %.1f "
                     "syscalls", started, tput_ms / 1000.0, g / mps * 1e6, cpu, sys);
            if (g == 100)
                add_target("moves/s across 100 games / bare unary calls/s", mps / floor, 0.8,
                           "x", true);
        }
        row *r = add_row("tput", "floor: bare unary Say calls/s", "100 in flight");
        r->value = floor;
        r->unit = "calls/s";
        snprintf(r->note, sizeof r->note,
                 "gRPC core with no project code, as many calls in flight over as many "
                 "connections as the 100-game row; per call: CPU %.0f us, %.1f syscalls",
                 floor_cpu, floor_sys);
        progress("throughput: rpc/ echo Say, 100 calls in flight (%d ms)", tput_ms);
        r = add_row("tput", "rpc/ echo Say calls/s", "100 in flight");
        bench_echo_throughput(es.target, 100, 500);
        g_server = &es;
        r->value = bench_echo_throughput(es.target, 100, tput_ms);
        r->unit = "calls/s";
        snprintf(r->note, sizeof r->note, "per call: CPU %.0f us, %.1f syscalls",
                 g_cpu_us / (r->value * tput_ms / 1000.0),
                 g_syscalls / (r->value * tput_ms / 1000.0));
        g_server = NULL;

    }
    if (mask & S_DURABLE) {
        const char *dbs[] = {":memory:", ""};
        const char *label[] = {"memory store", "no store"};
        if (!(mask & S_MOVE)) {
            progress("move round trip, store on a file (%d moves)", calls);
            child b;
            board_start(&b, db_file());
            stats rep;
            int games;
            bench_move_rtt(b.target, calls, &move_file, &rep, &games);
            child_stop(&b);
        }
        for (int i = 0; i < 2; i++) {
            progress("move round trip, %s (%d moves)", label[i], calls);
            child b;
            board_start(&b, dbs[i]);
            stats ev, rep;
            int games;
            bench_move_rtt(b.target, calls, &ev, &rep, &games);
            child_stop(&b);
            row *r = add_row("durable", "Move -> mover's own event", label[i]);
            r->latency = true;
            r->s = ev;
            r->has_floor = true;
            r->f = bare_rtt;
            snprintf(r->note, sizeof r->note,
                     "file store costs %+.1f us at p50 over this (%+.1f us mean)",
                     move_file.p50 - ev.p50, move_file.mean - ev.mean);
        }
        progress("throughput, 100 games, memory store (%d ms)", tput_ms);
        child b;
        board_start(&b, ":memory:");
        int started;
        double mps = bench_throughput(b.target, 100, tput_ms, &started);
        child_stop(&b);
        row *r = add_row("durable", "moves per second (memory store)", "100 games");
        r->value = mps;
        r->unit = "moves/s";
        snprintf(r->note, sizeof r->note, "compare tput / 100 games (file store)");
    }
    if (echo) {
        child_stop(&es);
        child_stop(&bare);
    }
    if (mask & S_MEMORY) {
        int n_idle = quick ? 300 : 1000, n_obs = quick ? 600 : 3000;
        progress("memory: child %s, %d idle games, %d observers", board_path, n_idle, n_obs);
        bench_memory(n_idle, n_obs);
    }
    if (mask & S_STREAMS) {
        int sizes[] = {2000, 10000};
        for (int i = 0; i < (quick ? 1 : 2); i++) {
            progress("streams: child %s, %d streams, 1,000 to a game", board_path, sizes[i]);
            bench_streams(sizes[i], 1000);
        }
    }
    if (mask & S_JOIN) {
        int n = quick ? 2000 : 10000;
        progress("join: child %s, %d observers of one game", board_path, n);
        bench_join(n);
    }
    if (mask & S_RELAYS)
        bench_relays(1000, rounds);
    if (mask & S_CLUSTER)
        bench_cluster(pg_url, tput_ms);
    double secs = (double)(now_ns() - t_start) / 1e9;

    printf("sungka-bench (%s), %ld CPUs, loopback, %.0f s\n", quick ? "quick" : "full",
           sysconf(_SC_NPROCESSORS_ONLN), secs);
    print_table(stdout);
    quiet_end();
    print_targets(stdout);
    if (write_json(json, secs) != 0)
        fprintf(stderr, "sungka-bench: cannot write %s: %s\n", json, strerror(errno));
    else
        printf("\nresults written to %s\n", json);
    rpc_shutdown();
    return 0;
}
