/*
 * bench_children.h — the servers sungka-bench measures, each a child process:
 * sungka-board on a store, sungka-relay, and this program again as the
 * floor (bare gRPC core, rpc/floor/) or as the echo on our rpc/ layer; and
 * the CPU time and syscalls they spend in a timed window.
 *
 * Every server runs in a process of its own: gRPC's pollers are shared by
 * all the completion queues of a process, so a server in the benchmark's
 * process would run some of its I/O on the clients' threads and theirs on
 * its own, and neither its CPU nor its floor would be its own.
 *
 * Ownership and lifetimes
 *   A child is the caller's (usually on its stack); the module keeps a
 *   pointer to it from a *_start() until child_stop(), so that the atexit
 *   cleanup children_setup() registers can kill whatever still runs (at most
 *   MAX_CHILDREN at once). The temporary directory of db_file() and the
 *   program paths live in this module until exit. A cpu_meter is the
 *   caller's; it keeps pointers to children it times, which must stay
 *   started while it does.
 *
 * Threads: the main thread's alone (fatal on any failure to start).
 * echo_child_serve() is the child's own main.
 */
#ifndef SUNGKA_BENCH_CHILDREN_H
#define SUNGKA_BENCH_CHILDREN_H

#include <sys/types.h>

typedef struct child {
    pid_t pid;                    /* 0: not running */
    char target[32];              /* "127.0.0.1:PORT" */
    int syscalls_fd;              /* perf counter of its syscalls; -1: none */
} child;
#define MAX_CHILDREN 8

/* Once, early in main: makes the temporary directory and registers the
 * cleanup, so that from then on no child and no temp file outlives the run,
 * whatever happens. */
void children_setup(void);
/* The programs to run: board (NULL or "": sungka-board beside this
 * program), and sungka-relay beside it. board_program() says which. */
void child_programs_find(const char *board);
const char *board_program(void);

/* A store file in the temporary directory (a static buffer). */
const char *db_file(void);
/* A sungka-board child on db: a path (started empty), ":memory:", "" (no
 * store) or a PostgreSQL URL; lease: its --lease (seconds) or NULL. */
void board_start_with(child *b, const char *db, const char *lease);
void board_start(child *b, const char *db);
/* A sungka-relay child taking its games from upstream. */
void relay_start(child *c, const char *upstream);
/* mode "--serve-floor" (bare gRPC core) or "--serve-echo" (rpc/). */
void echo_child_start(child *c, const char *mode);
/* SIGTERM, then SIGKILL after 5 s; nothing when it does not run. */
void child_stop(child *c);

/* The child's side of echo_child_start(mode): print its address, serve
 * until SIGTERM; returns main's exit status. */
int echo_child_serve(const char *mode);

/* The server a measurement times, and the CPU it used in the last timed
 * window (every thread: its loop, gRPC's own, the kernel's work on its
 * behalf counted as system time). */
typedef struct cpu_meter {
    const child *server;          /* NULL: none timed */
    double cpu_us, syscalls;      /* syscalls < 0: not counted */
    /* Other servers timed beside it (a cluster's other nodes, relays): their
     * CPU together, in the same window. */
    const child *side[MAX_CHILDREN];
    int n_side;
    double side_cpu_us;
    double syscalls_at_begin, side_at_begin;   /* cpu_begin's */
} cpu_meter;

/* Opens a window: returns the server's CPU so far, for cpu_end. */
double cpu_begin(cpu_meter *m);
/* Closes it: cpu_us, syscalls and side_cpu_us are the window's. */
void cpu_end(cpu_meter *m, double at_begin);

#endif
