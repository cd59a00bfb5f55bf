/*
 * bench_cluster.c — observers through relays, and board services sharing a
 * PostgreSQL server: moves per second by node count, and the failover
 * (bench_service.h).
 */
#include <libpq-fe.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_children.h"
#include "bench_clients.h"
#include "bench_report.h"
#include "bench_service.h"
#include "bench_util.h"
#include "games.h"
#include "rpc.h"
#include "sungka/v1/sungka.pb-c.h"

/* ------------------------------------------------- relays and a cluster */

/* The game's own service's CPU per move with n observers watching it
 * directly, and through three relays (the third fed by the second, as a
 * tree grows): what the host pays per event, and what the relays pay. */
void bench_relays(int n, int rounds)
{
    const char *how[] = {"direct", "3 relays"};
    cpu_meter meter = {0};
    for (int k = 0; k < 2; k++) {
        child b = {0}, r[3] = {{0}};
        board_start(&b, ":memory:");
        char at[3 * 40] = "";
        if (k == 1) {
            relay_start(&r[0], b.target);
            relay_start(&r[1], b.target);
            relay_start(&r[2], r[1].target);
            snprintf(at, sizeof at, "%s,%s,%s", r[0].target, r[1].target, r[2].target);
            meter.n_side = 3;
            for (int i = 0; i < 3; i++)
                meter.side[i] = &r[i];
        }
        meter.server = &b;
        progress("relays: %d observers, %s (%d rounds)", n, how[k], rounds);
        int games, done;
        stats s = bench_board_fanout(&meter, b.target, n, STREAMS_PER_CLIENT, false, rounds,
                                     &games, &done, k ? at : NULL);
        row *rw = add_row("relays", "move -> last observer", how[k]);
        rw->latency = true;
        rw->s = s;
        rw = add_row("relays", "host CPU per move (us)", how[k]);
        rw->value = meter.cpu_us / (done ? done : 1);
        rw->unit = "us";
        snprintf(rw->note, sizeof rw->note, "%d observers; %.2f us per observer reached", n,
                 rw->value / n);
        if (k) {
            rw = add_row("relays", "relays' CPU per move (us)", how[k]);
            rw->value = meter.side_cpu_us / (done ? done : 1);
            rw->unit = "us";
        }
        meter.n_side = 0;
        meter.server = NULL;
        for (int i = 2; i >= 0; i--)
            child_stop(&r[i]);
        child_stop(&b);
    }
}

/* ---------------------------------------------- the PostgreSQL server */

/* The databases the cluster section made (each node creates its database on
 * first start, as the SQLite driver creates its file), dropped at its end,
 * and at exit when a failure ends the run midway. */
#define MAX_BENCH_DBS 8
static const char *dbs_url;
static char dbs[MAX_BENCH_DBS][64];
static int n_dbs;

/* A connection to pg_url's own database (the maintenance one), or NULL with
 * the server's sentence in why. */
static PGconn *pg_connect(const char *pg_url, char *why, size_t len)
{
    PGconn *c = PQconnectdb(pg_url);
    if (c && PQstatus(c) == CONNECTION_OK)
        return c;
    const char *msg = c ? PQerrorMessage(c) : "out of memory";
    snprintf(why, len, "%.*s", (int)strcspn(msg, "\n"), msg);
    PQfinish(c);
    return NULL;
}

int bench_pg_check(const char *pg_url, char *why, size_t len)
{
    PGconn *c = pg_connect(pg_url, why, len);
    if (!c)
        return -1;
    PQfinish(c);
    return 0;
}

/* Drop every database the section made; WITH (FORCE) ends what a killed or
 * still running node left connected (PostgreSQL 13 and later). */
static void drop_databases(void)
{
    if (!n_dbs)
        return;
    char why[256];
    PGconn *c = pg_connect(dbs_url, why, sizeof why);
    for (int i = 0; i < n_dbs; i++) {
        char *ident = c ? PQescapeIdentifier(c, dbs[i], strlen(dbs[i])) : NULL;
        char sql[160];
        PGresult *res = NULL;
        if (ident) {
            snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", ident);
            res = PQexec(c, sql);
        }
        if (!res || PQresultStatus(res) != PGRES_COMMAND_OK)
            fprintf(stderr, "sungka-bench: cannot drop the database %s on the PostgreSQL "
                            "server (drop it by hand): %s\n", dbs[i],
                    c ? (res ? PQresultErrorMessage(res) : PQerrorMessage(c)) : why);
        PQclear(res);
        PQfreemem(ident);
    }
    PQfinish(c);
    n_dbs = 0;
}

/* pg_url with its database name replaced by name, which is dropped at the
 * section's end. */
static void bench_database(const char *pg_url, const char *name, char *out, size_t len);

/* pg_url with its database name replaced by name. */
static void pg_database(const char *pg_url, const char *name, char *out, size_t len)
{
    const char *slash = strrchr(pg_url, '/');
    int keep = slash && slash > pg_url + 13 ? (int)(slash - pg_url) : (int)strlen(pg_url);
    snprintf(out, len, "%.*s/%s", keep, pg_url, name);
}

static void bench_database(const char *pg_url, const char *name, char *out, size_t len)
{
    if (n_dbs == 0 && !dbs_url)
        atexit(drop_databases);
    dbs_url = pg_url;
    if (n_dbs < MAX_BENCH_DBS)
        snprintf(dbs[n_dbs++], sizeof dbs[0], "%s", name);
    pg_database(pg_url, name, out, len);
}

/* A Move through a pool of channels to the cluster, following it to the
 * game's node: 0 once accepted, -1 when refused (not a redirect). */
static int move_anywhere(rpc_pool *p, const char *token, int move)
{
    Sungka__V1__MoveRequest mr = SUNGKA__V1__MOVE_REQUEST__INIT;
    mr.move = move;
    ProtobufCMessage *reply = NULL;
    rpc_status st;
    int rc = rpc_client_call_sync(rpc_pool_client(p), &methods()->move, &mr.base, token, 2000,
                                  &reply, &st);
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
void bench_cluster(const char *pg_url, int tput_ms, bench_rate sqlite)
{
    char url[512], name[64], nodes_at[3 * 40];
    cpu_meter meter = {0};
    for (int n = 1; n <= 3; n++) {
        snprintf(name, sizeof name, "sungka_bench_%d_tput_%d", (int)getpid(), n);
        bench_database(pg_url, name, url, sizeof url);
        child nodes[3] = {{0}};
        nodes_at[0] = '\0';
        for (int i = 0; i < n; i++) {
            board_start(&nodes[i], url);
            snprintf(nodes_at + strlen(nodes_at), sizeof nodes_at - strlen(nodes_at), "%s%s",
                     i ? "," : "", nodes[i].target);
            if (i > 0)
                meter.side[meter.n_side++] = &nodes[i];
        }
        meter.server = &nodes[0];
        progress("cluster: %d node%s on PostgreSQL, 100 games (%d ms)", n, n > 1 ? "s" : "",
                 tput_ms);
        int started;
        double mps = bench_throughput(&meter, nodes_at, 100, tput_ms, &started);
        char param[24];
        snprintf(param, sizeof param, "%d node%s", n, n > 1 ? "s" : "");
        row *r = add_row("cluster", "moves per second, 100 games", param);
        r->value = mps;
        r->unit = "/s";
        double cpu = (meter.cpu_us + meter.side_cpu_us) / (mps * tput_ms / 1000.0);
        snprintf(r->note, sizeof r->note, "CPU per move, every node: %.0f us", cpu);
        if (n == 1 && sqlite.per_s > 0) {
            add_target("1 node on PostgreSQL / SQLite, moves/s at 100 games", mps / sqlite.per_s,
                       0.6, "x", true);
            add_target("1 node on PostgreSQL / SQLite, CPU per move", cpu / sqlite.cpu_us, 1.5,
                       "x", false);
        }
        meter.server = NULL;
        meter.n_side = 0;
        for (int i = n - 1; i >= 0; i--)
            child_stop(&nodes[i]);
    }
    double ms[3];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "sungka_bench_%d_failover_%d", (int)getpid(), i);
        bench_database(pg_url, name, url, sizeof url);
        progress("cluster: failover %d of 3 (lease 2 s)", i + 1);
        ms[i] = failover_once(url, "2");
    }
    for (int i = 1; i < 3; i++)
        for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            double t = ms[j];
            ms[j] = ms[j - 1];
            ms[j - 1] = t;
        }
    drop_databases();
    row *r = add_row("cluster", "kill -9 -> next move accepted", "lease 2 s");
    r->value = ms[1];
    r->unit = "ms";
    snprintf(r->note, sizeof r->note, "median of 3 (%.0f, %.0f, %.0f ms); the lease, then "
             "the adopting node's next renewal, then the client's retry", ms[0], ms[1], ms[2]);
}
