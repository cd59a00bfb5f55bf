/*
 * bench_move.c — how long a move takes on loopback (not a test).
 *
 * Starts a real board service in this process (its loop on its own thread),
 * then two clients play sungka games back to back with blocking Move calls,
 * timing each call from send to reply. As a floor it also times the health
 * check, a unary call that does no work, through the same rpc layer.
 * Prints p50/p99/mean in microseconds.
 *
 * The service stores every move durably before it is announced; DB is the
 * SQLite file it uses (default: a fresh file in /tmp, removed afterwards;
 * ":memory:" to leave the disk out, "" for no store at all).
 *
 * Usage: sungka-bench-move [MOVES [DB]]   (default 5000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "board.h"
#include "games.h"
#include "rpc.h"
#include "grpc/health/v1/health.pb-c.h"
#include "sungka/v1/sungka.pb-c.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void *loop_thread(void *arg)
{
    board_run(arg);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *us, int n)
{
    qsort(us, (size_t)n, sizeof *us, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += us[i];
    printf("%-28s %8d %10.1f %10.1f %10.1f\n", what, n, us[n / 2], us[(int)(n * 0.99)],
           sum / n);
}

static void die(const char *what, const rpc_status *st)
{
    fprintf(stderr, "bench: %s failed: %s %s\n", what, rpc_code_name(st->code), st->message);
    exit(1);
}

/* Create a game and seat two players; returns their tokens. */
static void new_game(rpc_client *cli, char tokens[2][64])
{
    rpc_method create = rpc_method_named(&sungka__v1__register__descriptor, "CreateGame", false);
    rpc_method join = rpc_method_named(&sungka__v1__register__descriptor, "JoinGame", false);
    Sungka__V1__CreateGameRequest req = SUNGKA__V1__CREATE_GAME_REQUEST__INIT;
    req.kind = "sungka";
    ProtobufCMessage *reply;
    rpc_status st;
    if (rpc_client_call_sync(cli, &create, &req.base, NULL, 5000, &reply, &st) != 0)
        die("CreateGame", &st);
    char id[32];
    snprintf(id, sizeof id, "%s", ((Sungka__V1__CreateGameResponse *)reply)->game->game_id);
    protobuf_c_message_free_unpacked(reply, NULL);
    for (int i = 0; i < 2; i++) {
        Sungka__V1__JoinGameRequest jr = SUNGKA__V1__JOIN_GAME_REQUEST__INIT;
        jr.game_id = id;
        jr.name = i ? "bob" : "alice";
        if (rpc_client_call_sync(cli, &join, &jr.base, NULL, 5000, &reply, &st) != 0)
            die("JoinGame", &st);
        snprintf(tokens[i], 64, "%s", ((Sungka__V1__BoardRef *)reply)->token);
        protobuf_c_message_free_unpacked(reply, NULL);
    }
    rpc_method ready = rpc_method_named(&sungka__v1__board__descriptor, "Ready", false);
    for (int i = 0; i < 2; i++) {
        Sungka__V1__ReadyRequest rr = SUNGKA__V1__READY_REQUEST__INIT;
        rr.ready = 1;
        if (rpc_client_call_sync(cli, &ready, &rr.base, tokens[i], 5000, &reply, &st) != 0)
            die("Ready", &st);
        protobuf_c_message_free_unpacked(reply, NULL);
    }
}

int main(int argc, char **argv)
{
    int moves = argc > 1 ? atoi(argv[1]) : 5000;
    if (moves <= 0) {
        fprintf(stderr, "usage: %s [MOVES [DB]]\n", argv[0]);
        return 2;
    }
    char dir[] = "/tmp/sungka-bench-XXXXXX", db[64] = "";
    const char *db_path = argc > 2 ? argv[2] : NULL;
    if (!db_path) {
        if (!mkdtemp(dir))
            return 1;
        snprintf(db, sizeof db, "%s/bench.db", dir);
        db_path = db;
    }
    printf("store: %s\n", db_path[0] ? db_path : "(none)");
    rpc_init();
    FILE *quiet = fopen("/dev/null", "w");
    board_config cfg = {.listen = "127.0.0.1:0", .log = quiet, .db = db_path,
                        .ping_timeout_ms = 3600 * 1000};
    board_service *svc;
    int port;
    char err[256];
    if (board_create(&cfg, &svc, &port, err, sizeof err) != 0) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    pthread_t loop;
    pthread_create(&loop, NULL, loop_thread, svc);
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%d", port);
    rpc_client *cli;
    if (rpc_client_create(target, NULL, &cli) != 0)
        return 1;

    double *lat = calloc((size_t)moves, sizeof *lat);
    rpc_method health = rpc_method_named(&grpc__health__v1__health__descriptor, "Check", false);
    rpc_status st;
    ProtobufCMessage *reply;
    for (int i = 0; i < moves; i++) {
        Grpc__Health__V1__HealthCheckRequest hr = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
        double t0 = now_us();
        if (rpc_client_call_sync(cli, &health, &hr.base, NULL, 5000, &reply, &st) != 0)
            die("Health", &st);
        lat[i] = now_us() - t0;
        protobuf_c_message_free_unpacked(reply, NULL);
    }
    printf("%-28s %8s %10s %10s %10s\n", "loopback, microseconds", "calls", "p50", "p99",
           "mean");
    report("empty unary (health check)", lat, moves);

    rpc_method move = rpc_method_named(&sungka__v1__board__descriptor, "Move", false);
    game_state game;
    char tokens[2][64];
    int played = 0, games = 0;
    while (played < moves) {
        new_game(cli, tokens);
        games++;
        game_new(&game, game_kind_find("sungka"), NULL, err, sizeof err);
        while (!game_is_over(&game) && played < moves) {
            int legal[GAME_MAX_MOVES];
            int n = game_legal_moves(&game, legal, GAME_MAX_MOVES);
            int seat = game_to_move(&game);
            int cup = legal[(played * 7) % n];
            Sungka__V1__MoveRequest mr = SUNGKA__V1__MOVE_REQUEST__INIT;
            mr.move = cup;
            double t0 = now_us();
            if (rpc_client_call_sync(cli, &move, &mr.base, tokens[seat], 5000, &reply, &st) != 0)
                die("Move", &st);
            lat[played++] = now_us() - t0;
            protobuf_c_message_free_unpacked(reply, NULL);
            game_play(&game, seat, cup, NULL, err, sizeof err);
        }
    }
    report("Move (validated, logged)", lat, moves);
    printf("(%d games)\n", games);

    free(lat);
    rpc_client_destroy(cli);
    board_request_stop(svc);
    pthread_join(loop, NULL);
    board_destroy(svc);
    rpc_shutdown();
    fclose(quiet);
    if (db[0]) {              /* the temporary database and its WAL files */
        char path[96];
        const char *suffix[] = {"", "-wal", "-shm"};
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s%s", db, suffix[i]);
            unlink(path);
        }
        rmdir(dir);
    }
    return 0;
}
