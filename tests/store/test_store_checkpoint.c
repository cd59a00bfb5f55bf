/*
 * test_store_checkpoint.c — a file store copies its write-ahead log back
 * into the database on a thread of its own (store_checkpoint.h): under a
 * stream of small commits, as moves make, the checkpointer runs, the WAL
 * stays bounded, and every commit is there after a reopen and a kill -9 of
 * a process that was mid-stream.
 */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store_test.h"

#define COMMITS 6000
#define PAYLOAD "a MoveMade event's bytes, about as long as one"

/* One move as the service stores it: an event and a move row, committed. */
static void commit_move(store *s, const char *game, int ply)
{
    assert_int_equal(store_begin(s), 0);
    assert_ok(s, store_event_append(s, game, (uint64_t)ply, 1000 + ply, 0, 0, 1, PAYLOAD,
                                    sizeof PAYLOAD - 1));
    assert_ok(s, store_move_append(s, game, ply, ply % 2, ply % 6, 1000 + ply));
    assert_int_equal(store_commit(s), 0);
}

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : 0;
}

/* 6,000 commits over 20 games: with no checkpoint the WAL would hold every
 * page they dirtied (several MiB at 1 KiB a page); with them it stays near
 * the threshold's 1,000 frames (plus what a running checkpoint lets grow). */
static void test_wal_stays_bounded(void **state)
{
    (void)state;
    char dir[256], path[300], wal[310], err[512] = "";
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/sungka.db", dir);
    snprintf(wal, sizeof wal, "%s-wal", path);
    store *s = NULL;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    char games[20][STORE_ID_BYTES];
    for (int g = 0; g < 20; g++) {
        char id[STORE_ID_BYTES];
        snprintf(id, sizeof id, "%d", g + 1);
        make_game(s, id, "kalah", 2);
        memcpy(games[g], id, sizeof id);
    }
    long largest = 0;
    for (int i = 0; i < COMMITS; i++) {
        commit_move(s, games[i % 20], i / 20 + 1);
        long w = file_size(wal);
        largest = w > largest ? w : largest;
    }
    assert_true(store__checkpoints(s) > 0);
    /* 8,000 frames of 1 KiB pages is where the store checkpoints in the
     * commit itself; the thread should keep it far below. */
    print_message("WAL at most %ld KiB over %d commits, %lu checkpoints\n", largest / 1024,
                  COMMITS, store__checkpoints(s));
    assert_true(largest < 9L * 1024 * 1024);
    store_close(s);

    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    store_match_summary m;
    store_move *moves = NULL;
    int n = 0;
    assert_int_equal(store_match(s, games[7], &m, &moves, &n), 0);
    assert_int_equal(n, COMMITS / 20);
    free(moves);
    store_close(s);
    scratch_remove(dir);
}

/* kill -9 in the middle of the stream, checkpoints and all: every commit
 * that returned is there afterwards. */
static void test_killed_mid_stream(void **state)
{
    (void)state;
    char dir[256], path[300], err[512] = "";
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/sungka.db", dir);
    store *s = NULL;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    make_game(s, "1", "kalah", 2);
    store_close(s);

    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        store *c = NULL;
        if (store_open(path, &c, err, sizeof err) != 0)
            _exit(1);
        for (int ply = 1;; ply++) {
            commit_move(c, "1", ply);
            if (write(fds[1], &ply, sizeof ply) != sizeof ply)   /* acknowledged */
                _exit(1);
        }
    }
    close(fds[1]);
    int last = 0, ply;
    while (last < 4000 && read(fds[0], &ply, sizeof ply) == sizeof ply)
        last = ply;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    while (read(fds[0], &ply, sizeof ply) == sizeof ply)   /* acknowledged before the kill */
        last = ply;
    close(fds[0]);

    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    store_match_summary m;
    store_move *moves = NULL;
    int n = 0;
    assert_int_equal(store_match(s, "1", &m, &moves, &n), 0);
    assert_true(n >= last);
    free(moves);
    store_close(s);
    scratch_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wal_stays_bounded),
        cmocka_unit_test(test_killed_mid_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
