/*
 * bench_store.c — the cost of one durable move on a real file: begin, one
 * event append, one move append, commit (WAL, synchronous = NORMAL), and for
 * comparison the cost of one fdatasync on the same file system (what each
 * commit would add with synchronous = FULL). Not a test; run by hand:
 *   bench_store [DIR [MOVES]]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    const char *base = argc > 1 ? argv[1] : "/tmp";
    int moves = argc > 2 ? atoi(argv[2]) : 2000;
    char dir[512], path[600], err[512];
    snprintf(dir, sizeof dir, "%s/sungka-bench-XXXXXX", base);
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    snprintf(path, sizeof path, "%s/bench.db", dir);
    store *s;
    if (store_open(path, &s, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    store_game_info g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "1");
    snprintf(g.kind, sizeof g.kind, "sungka");
    g.seats = 2;
    g.status = STORE_RUNNING;
    if (store_game_create(s, &g) != 0) {
        fprintf(stderr, "%s\n", store_last_error(s));
        return 1;
    }
    unsigned char ev[120];   /* about the size of a packed move event */
    for (size_t i = 0; i < sizeof ev; i++)
        ev[i] = (unsigned char)i;
    double t0 = now_us();
    for (int i = 0; i < moves; i++) {
        if (store_begin(s) || store_event_append(s, "1", (uint64_t)i + 1, i, 0, 0, 1, ev, sizeof ev) ||
            store_move_append(s, "1", i, i % 2, i % 7, i) || store_commit(s)) {
            fprintf(stderr, "move %d: %s\n", i, store_last_error(s));
            return 1;
        }
    }
    double per_move = (now_us() - t0) / moves;
    store_close(s);

    /* One fdatasync after a small write, as a FULL commit would add. */
    snprintf(path, sizeof path, "%s/sync.bin", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int syncs = moves < 200 ? moves : 200;
    t0 = now_us();
    for (int i = 0; i < syncs; i++) {
        if (pwrite(fd, ev, sizeof ev, (off_t)i * (off_t)sizeof ev) < 0 || fdatasync(fd) != 0) {
            perror("fdatasync");
            return 1;
        }
    }
    double per_sync = (now_us() - t0) / syncs;
    close(fd);
    printf("%d durable moves (WAL, synchronous=NORMAL) in %s: %.1f us per move\n", moves, base,
           per_move);
    printf("one fdatasync on the same file system (what FULL adds per commit): %.1f us\n",
           per_sync);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
