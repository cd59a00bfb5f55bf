/*
 * bench_service.c — sungka-bench: the board service against the gRPC floor
 * (not a test; never run by ctest).
 *
 * In one run it starts real board services, the floor: an echo service
 * written straight on gRPC core with no project code (rpc/floor/bench_floor.c),
 * and the same echo on our rpc layer, each in a child process of its own
 * (bench_children.h says why), and measures:
 *   move     Move call -> the mover's own MoveMade event on its subscription,
 *            and a move on a Board.Play stream -> its own MoveMade there,
 *            beside the floor's unary round trip (Say);
 *   fanout   Move call(s) -> the last of N observers has the MoveMade, beside
 *            the floor pushing one message to N open streams of the same shape
 *            (50 to a connection, or one each);
 *   tput     moves per second across G concurrent games played by scripted
 *            agents (async Move calls chosen by a local rules engine);
 *   durable  the move round trip with the store on a file, ":memory:" and off;
 *   memory   resident memory of a child `sungka-board` per idle game and per
 *            connected observer (/proc/PID/status VmRSS);
 *   streams, join   memory when 10,000 streams close; 10,000 observers joining;
 *   relays, cluster observers through sungka-relay; nodes on PostgreSQL and
 *            their failover (--pg).
 * Prints a table and writes it as JSON (default bench-results.json).
 *
 * Usage: sungka-bench [--quick] [--json FILE] [--only LIST] [--board PATH]
 * See PERFORMANCE.md for what each figure means.
 *
 * This file holds main: the options and the sections in order. The rest:
 *   bench_util        the clock, fatal, progress, waiting, statistics
 *   bench_report      rows, targets, the table and the JSON
 *   bench_children    the servers as child processes, and their CPU
 *   bench_clients     methods, client pools, stream and reply sinks, moves
 *   bench_move_fanout, bench_throughput, bench_memory, bench_cluster
 *                     the measurements (bench_service.h)
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench_children.h"
#include "bench_clients.h"
#include "bench_report.h"
#include "bench_service.h"
#include "bench_util.h"
#include "rpc.h"
#include "version.h"

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

/* "N.N syscalls" per one of n, or "syscalls not counted" when the kernel
 * gave no counter (count < 0: no tracefs, or not allowed), rather than a
 * negative count divided into "-0.00". */
static void syscalls_per(char *buf, size_t len, double count, double n, int decimals)
{
    if (count < 0 || n <= 0)
        snprintf(buf, len, "syscalls not counted");
    else
        snprintf(buf, len, "%.*f syscalls", decimals, count / n);
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: sungka-bench [OPTION]...\n"
            "Benchmark the board service against a floor written straight on gRPC core.\n"
            "\n"
            "  -q, --quick        a short run (under 30 s): fewer samples, shorter windows,\n"
            "                     no fan-out to 10,000 observers\n"
            "  -o, --json FILE    write the results as JSON here (default bench-results.json)\n"
            "      --only LIST    sections to run, comma-separated: move,fanout,tput,durable,\n"
            "                     memory,streams,join,relays, and cluster (with --pg)\n"
            "      --board PATH   the sungka-board program that every section measures\n"
            "                     (each runs it as a child; default: next to this\n"
            "                     program); the relays section runs the sungka-relay\n"
            "                     beside it\n"
            "      --pg URL       a PostgreSQL server for the cluster section\n"
            "                     (postgresql://USER@HOST:PORT/postgres; it makes\n"
            "                     databases sungka_bench_PID_* there and drops them at\n"
            "                     the end; it must be reachable before anything runs)\n"
            "      --verdict-anyway  say MET or MISSED even when the machine was not quiet\n"
            "                     (otherwise NOISY): a load average above 0.25 a CPU\n"
            "                     before the run, or other processes using over 5%% of\n"
            "                     the CPU during it\n"
            "  -h, --help         show this help and exit\n"
            "      --version      show the version and exit\n");
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
    const char *json = "bench-results.json", *pg_url = NULL, *board = NULL;
    bool quick = false, verdict_anyway = false;
    int mask = S_ALL, c;
    if (argc == 2 && (strcmp(argv[1], "--serve-floor") == 0 ||
                      strcmp(argv[1], "--serve-echo") == 0))
        return echo_child_serve(argv[1]);
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
            board = optarg;
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
    char why[256];
    if ((mask & S_CLUSTER) && bench_pg_check(pg_url, why, sizeof why) != 0) {
        fprintf(stderr, "sungka-bench: the PostgreSQL server of --pg cannot be reached, so "
                        "nothing was run: %s\n", why);
        return 2;
    }
    child_programs_find(board);   /* sungka-board, and sungka-relay beside it */

    /* Thousands of streams over a few hundred connections: raise the fd cap. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    signal(SIGPIPE, SIG_IGN);
    children_setup();
    rpc_init();
    find_methods();
    quiet_begin();
    int64_t t_start = now_ns();
    progress_start(t_start);

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
    cpu_meter meter = {0};
    bench_rate sqlite_100 = {0};   /* 100 games on the file store, for the cluster's targets */
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
                 ev.n, games, atomic_load(&sinks()->event_bytes));
        r = add_row("move", "Move -> Move reply", "file store");
        r->latency = true;
        r->s = rep;
        r->has_floor = true;
        r->f = bare_rtt;
        add_target("move -> own event p50 / bare unary p50", ev.p50 / bare_rtt.p50, 1.3, "x",
                   false);
        progress("move round trip on Board.Play, store on a file (%d moves)", calls);
        board_start(&b, db_file());
        stats pev;
        bench_play_rtt(b.target, calls, &pev, &games);
        child_stop(&b);
        r = add_row("move", "Play move -> own MoveMade", "file store");
        r->latency = true;
        r->s = pev;
        r->has_floor = true;
        r->f = bare_rtt;
        snprintf(r->note, sizeof r->note,
                 "floor: bare unary Say; %d moves over %d games on Board.Play streams", pev.n,
                 games);
        add_target("Play move -> own event p50 / bare unary p50", pev.p50 / bare_rtt.p50, 1.0,
                   "x", false);
        add_target("Play move -> own event p99 / bare unary p99", pev.p99 / bare_rtt.p99, 1.5,
                   "x", false);
    }
    if (mask & S_FANOUT) {
        for (size_t i = 0; i < sizeof fan / sizeof fan[0]; i++) {
            int n = fan[i].n, per = fan[i].per_conn, games, done;
            if (quick && fan[i].full_only)
                continue;   /* 10,000 observers take a while to set up: full run only */
            int rr = n >= 5000 && !quick ? 20 : rounds;
            progress("fan-out to %d observers, %d to a connection (%d rounds)", n, per, rr);
            meter.server = &bare;
            stats floor_s = bench_echo_fanout(&meter, bare.target, n, per, rr);
            double floor_cpu = meter.cpu_us / ((double)n * rr);
            char floor_sys[40];
            syscalls_per(floor_sys, sizeof floor_sys, meter.syscalls, (double)n * rr, 2);
            child b;
            board_start(&b, db_file());
            meter.server = &b;
            stats s = bench_board_fanout(&meter, b.target, n, per, fan[i].many, rr, &games, &done,
                                         NULL);
            double cpu = done ? meter.cpu_us / ((double)n * done) : 0;
            char sys[40];
            syscalls_per(sys, sizeof sys, meter.syscalls, (double)n * done, 2);
            meter.server = NULL;
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
                     "CPU, %s; floor %.1f us, %s", games, games == 1 ? "" : "s",
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
        bench_echo_throughput(&meter, bare.target, 100, 500);
        meter.server = &bare;
        double floor = bench_echo_throughput(&meter, bare.target, 100, tput_ms);
        double floor_cpu = meter.cpu_us / (floor * tput_ms / 1000.0);
        char floor_sys[40];
        syscalls_per(floor_sys, sizeof floor_sys, meter.syscalls, floor * tput_ms / 1000.0, 1);
        for (size_t i = 0; i < sizeof tput_g / sizeof tput_g[0]; i++) {
            int g = tput_g[i], started;
            progress("throughput, %d concurrent games (%d ms)", g, tput_ms);
            child b;
            board_start(&b, db_file());
            meter.server = &b;
            double mps = bench_throughput(&meter, b.target, g, tput_ms, &started);
            double cpu = meter.cpu_us / (mps * tput_ms / 1000.0);
            char sys[40];
            syscalls_per(sys, sizeof sys, meter.syscalls, mps * tput_ms / 1000.0, 1);
            meter.server = NULL;
            child_stop(&b);
            snprintf(param, sizeof param, "%d games", g);
            row *r = add_row("tput", "moves per second (file store)", param);
            r->value = mps;
            r->unit = "moves/s";
            snprintf(r->note, sizeof r->note,
                     "%d games played in %.1f s, one Move in flight per game; mean move "
                     "latency ~%.0f us (G / rate); per move: service CPU %.0f us, %s",
                     started, tput_ms / 1000.0, g / mps * 1e6, cpu, sys);
            if (g == 100) {
                add_target("moves/s across 100 games / bare unary calls/s", mps / floor, 0.6,
                           "x", true);
                sqlite_100 = (bench_rate){mps, cpu};
            }
            if (g != 100)
                continue;
            progress("throughput on Board.Play, %d concurrent games (%d ms)", g, tput_ms);
            board_start(&b, db_file());
            meter.server = &b;
            mps = bench_play_throughput(&meter, b.target, g, tput_ms, &started);
            cpu = meter.cpu_us / (mps * tput_ms / 1000.0);
            syscalls_per(sys, sizeof sys, meter.syscalls, mps * tput_ms / 1000.0, 1);
            meter.server = NULL;
            child_stop(&b);
            r = add_row("tput", "moves per second on Play (file store)", param);
            r->value = mps;
            r->unit = "moves/s";
            snprintf(r->note, sizeof r->note,
                     "%d games played in %.1f s, each seat on a Board.Play stream, one move in "
                     "flight per game; per move: service CPU %.0f us, %s", started,
                     tput_ms / 1000.0, cpu, sys);
            add_target("moves/s on Play across 100 games / bare unary calls/s", mps / floor, 0.8,
                       "x", true);
        }
        row *r = add_row("tput", "floor: bare unary Say calls/s", "100 in flight");
        r->value = floor;
        r->unit = "calls/s";
        snprintf(r->note, sizeof r->note,
                 "gRPC core with no project code, as many calls in flight over as many "
                 "connections as the 100-game row; per call: CPU %.0f us, %s",
                 floor_cpu, floor_sys);
        progress("throughput: rpc/ echo Say, 100 calls in flight (%d ms)", tput_ms);
        r = add_row("tput", "rpc/ echo Say calls/s", "100 in flight");
        bench_echo_throughput(&meter, es.target, 100, 500);
        meter.server = &es;
        r->value = bench_echo_throughput(&meter, es.target, 100, tput_ms);
        r->unit = "calls/s";
        char sys[40];
        syscalls_per(sys, sizeof sys, meter.syscalls, r->value * tput_ms / 1000.0, 1);
        snprintf(r->note, sizeof r->note, "per call: CPU %.0f us, %s",
                 meter.cpu_us / (r->value * tput_ms / 1000.0), sys);
        meter.server = NULL;

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
        double mps = bench_throughput(&meter, b.target, 100, tput_ms, &started);
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
        progress("memory: child %s, %d idle games, %d observers", board_program(), n_idle, n_obs);
        bench_memory(n_idle, n_obs);
    }
    if (mask & S_STREAMS) {
        int sizes[] = {2000, 10000};
        for (int i = 0; i < (quick ? 1 : 2); i++) {
            progress("streams: child %s, %d streams, 1,000 to a game", board_program(), sizes[i]);
            bench_streams(sizes[i], 1000);
        }
    }
    if (mask & S_JOIN) {
        int n = quick ? 2000 : 10000;
        progress("join: child %s, %d observers of one game", board_program(), n);
        bench_join(n);
    }
    if (mask & S_RELAYS)
        bench_relays(1000, rounds);
    if (mask & S_CLUSTER)
        bench_cluster(pg_url, tput_ms, sqlite_100);
    double secs = (double)(now_ns() - t_start) / 1e9;

    printf("sungka-bench (%s), %ld CPUs, loopback, %.0f s\n", quick ? "quick" : "full",
           sysconf(_SC_NPROCESSORS_ONLN), secs);
    print_table(stdout);
    quiet_end();
    print_targets(stdout, verdict_anyway);
    if (write_json(json, secs, quick, verdict_anyway) != 0)
        fprintf(stderr, "sungka-bench: cannot write %s: %s\n", json, strerror(errno));
    else
        printf("\nresults written to %s\n", json);
    rpc_shutdown();
    return 0;
}
