/*
 * bench_floor.h — a second floor for sungka-bench: the Echo service of
 * bench_echo.proto (Say, Watch, Push) written straight on gRPC core's C API,
 * with no project code at all, as a plain C programmer would write it. It
 * sits in rpc/ because gRPC core is written against only there; it is built
 * into sungka-bench alone (bench/CMakeLists.txt), never into sungka_rpc.
 *
 * It serves the same wire contract as the echo service in bench_children.c, so
 * the same benchmark clients run against either:
 *   Say    unary; the reply is the request's bytes, status OK;
 *   Watch  server streaming; a hello (an empty Msg, seq 0), then one message
 *          per Push, until the client cancels or the server stops;
 *   Push   unary; Msg{seq = request's seq, body = 128 x 'x'} to every open
 *          Watch (at most one pending per watcher, the newest wins), then an
 *          empty Msg, status OK;
 *   any other method: UNIMPLEMENTED.
 *
 * Threads: bench_floor_start() starts one thread that drives the server's
 * completion queue; every call is handled there. start and stop are called
 * from one other thread (typically main); target is safe from any thread
 * between them.
 *
 * Lifetimes: the module calls grpc_init() in start and grpc_shutdown() in
 * stop (gRPC counts them, so it can live beside other gRPC users). Open Watch
 * streams end at stop with the cancellation of grpc_server_cancel_all_calls.
 */
#ifndef SUNGKA_BENCH_FLOOR_H
#define SUNGKA_BENCH_FLOOR_H

typedef struct bench_floor bench_floor;

/* Starts the server on a free port of 127.0.0.1 ("127.0.0.1:0"), with its own
 * completion queue and the thread that drives it. Returns NULL on failure
 * (after saying why on stderr). The caller owns the result; free it with
 * bench_floor_stop(). */
bench_floor *bench_floor_start(void);

/* "127.0.0.1:PORT"; owned by f, valid until bench_floor_stop(f). */
const char *bench_floor_target(const bench_floor *f);

/* Orderly shutdown: cancels every call, waits for the thread, frees
 * everything. f is invalid afterwards; NULL is ignored. */
void bench_floor_stop(bench_floor *f);

#endif
