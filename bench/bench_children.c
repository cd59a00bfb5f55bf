/*
 * bench_children.c — the servers sungka-bench measures, each a child process
 * of its own, and what they cost (bench_children.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_children.h"
#include "bench_clients.h"
#include "bench_echo.pb-c.h"
#include "bench_floor.h"
#include "bench_util.h"
#include "rpc.h"

#define PUSH_BODY 128   /* echo push payload: about a MoveMade event */

/* -------------------------------------------- the run's files and programs */

static char tmpdir[64];                 /* db_file()'s; "" once removed */
static child *children[MAX_CHILDREN];   /* the live ones, for cleanup */
static char board_path[PATH_MAX];
static char relay_path[PATH_MAX];       /* sungka-relay, beside sungka-board */

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

void children_setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sungka-bench-svc-XXXXXX");
    if (!mkdtemp(tmpdir))
        fatal("mkdtemp: %s", strerror(errno));
    atexit(cleanup);
}

void child_programs_find(const char *board)
{
    if (board)
        snprintf(board_path, sizeof board_path, "%s", board);
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
}

const char *board_program(void)
{
    return board_path;
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

int echo_child_serve(const char *mode)
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

void child_stop(child *c)
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

static double side_cpu_us(const cpu_meter *m)
{
    double us = 0;
    for (int i = 0; i < m->n_side; i++)
        us += child_cpu_us(m->side[i]);
    return us;
}

double cpu_begin(cpu_meter *m)
{
    m->syscalls_at_begin = syscalls_of(m->server);
    m->side_at_begin = side_cpu_us(m);
    return m->server ? child_cpu_us(m->server) : 0;
}

void cpu_end(cpu_meter *m, double at_begin)
{
    m->cpu_us = m->server ? child_cpu_us(m->server) - at_begin : 0;
    m->side_cpu_us = side_cpu_us(m) - m->side_at_begin;
    double now = syscalls_of(m->server);
    m->syscalls = now >= 0 && m->syscalls_at_begin >= 0 ? now - m->syscalls_at_begin : -1;
}

const char *db_file(void)
{
    static char path[96];
    snprintf(path, sizeof path, "%s/bench.db", tmpdir);
    return path;
}

/* A sungka-board child on db: a path, ":memory:" or "" (no store); a file
 * store starts empty. Its limits are raised for scripted agents on
 * 127.0.0.1 (they move faster than people, all from one address), it
 * waits an hour for pings they do not answer, and it reviews no games. */
void board_start_with(child *b, const char *db, const char *lease)
{
    if (db[0] && strcmp(db, ":memory:") != 0 && !strstr(db, "://"))
        remove_db(db);
    char *const argv[] = {
        board_path, "--listen", "127.0.0.1:0", "--db", (char *)db, "--quiet",
        "--ping-timeout", "3600", "--max-games", "1000000",
        "--max-games-per-client", "1000000", "--move-rate", "1000000",
        "--max-participants", "100000", "--max-client-streams", "1000000",
        "--max-client-observers", "1000000", "--client-join-rate", "1000000",
        /* The benchmark ends hundreds of games a second, each of which
         * the service would review on its analysis thread (a real service
         * ends a few a minute): that thread would take a CPU from the
         * loop and the clients, and its time would count as the moves'. */
        "--analysis", "off",
        lease ? "--lease" : NULL, (char *)lease, NULL,
    };
    child_spawn(b, argv);
}

void board_start(child *b, const char *db)
{
    board_start_with(b, db, NULL);
}

/* A sungka-relay child taking its games from upstream; the crowd all comes
 * from this machine's one address, as at the board (board_start_with). */
void relay_start(child *c, const char *upstream)
{
    char *const argv[] = {relay_path, "--listen", "127.0.0.1:0", "--upstream",
                          (char *)upstream, "--quiet", "--max-streams", "100000",
                          "--max-client-streams", "1000000", "--max-client-observers", "1000000",
                          "--client-join-rate", "1000000", NULL};
    child_spawn(c, argv);
}

/* The floor (--serve-floor) or the rpc/ echo (--serve-echo): this program
 * again, as a server of its own. */
void echo_child_start(child *c, const char *mode)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        fatal("cannot find this program: %s", strerror(errno));
    self[len] = 0;
    char *const argv[] = {self, (char *)mode, NULL};
    child_spawn(c, argv);
}
