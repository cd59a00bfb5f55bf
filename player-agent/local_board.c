/*
 * local_board.c — running sungka-board as a child of the player agent.
 * Its standard output is read until the "listening on HOST:PORT" line, which
 * tells the port it bound (port 0 lets the system choose).
 *
 * The child keeps its results in the user's default database, which a
 * running service holds alone: when another one holds it (another Sungka
 * game of this user's, now), the child keeps nothing (--db :memory:)
 * rather than failing to start.
 *
 * With TLS the child makes or reuses its own certificate
 * (--tls-self-signed), in the directory of the default database; with
 * --db :memory: in Sungka's data directory, which is the same one. The pair
 * is written before the child listens, so once its "listening on" line has
 * come the certificate is read from there (its fingerprint, and the file
 * the host's agent pins).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "local_board.h"
#include "xdg.h"

#define START_TIMEOUT_MS 10000

/* sungka-board in the same directory as this program (or as argv0 says,
 * when the program's own path cannot be read). */
static void board_path(const char *argv0, char *out, size_t len)
{
    if (xdg_beside_program("sungka-board", out, len) == 0)
        return;
    const char *slash = strrchr(argv0, '/');
    if (slash)
        snprintf(out, len, "%.*s/sungka-board", (int)(slash - argv0), argv0);
    else
        snprintf(out, len, "sungka-board");
}

/* Does a running sungka-board hold the user's default database? A service
 * holds an exclusive flock() on its database file while it runs
 * (board-service/store.h); try the same lock, without waiting, and let go
 * of it at once. The path is the service's default (xdg_default_db). A file that is not there, or cannot be opened, is not
 * held (the service then says what is wrong with it). Trying the lock
 * holds it for an instant: a service starting on the file in that instant
 * is refused, as it would be by any other. */
static bool default_db_in_use(void)
{
    char path[PATH_MAX];
    if (xdg_default_db(false, path, sizeof path) != 0)
        return false;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);                 /* and with it our lock, if we got it */
    return held;
}

/* The certificate a child with --tls-self-signed serves: the file it keeps
 * beside the default database (board-service/self_signed.h), and its
 * fingerprint. 0, or -1 with a sentence in err. */
static int find_certificate(local_board *lb, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    if (xdg_sungka_dir(XDG_DATA, false, dir, sizeof dir) != 0 ||
        (size_t)snprintf(lb->cert, sizeof lb->cert, "%s/tls-cert.pem", dir) >= sizeof lb->cert) {
        snprintf(err, errlen, "cannot find the board service's TLS certificate (no home "
                              "directory?)");
        return -1;
    }
    if (fingerprint_pem_file(lb->cert, lb->fingerprint) != 0) {
        snprintf(err, errlen, "cannot read the board service's TLS certificate %s", lb->cert);
        return -1;
    }
    return 0;
}

int local_board_start(const char *argv0, const char *listen, local_board *lb, char *err,
                      size_t errlen)
{
    char path[PATH_MAX];
    board_path(argv0, path, sizeof path);
    lb->memory_db = default_db_in_use();
    const char *argv[9];
    int argc = 0;
    argv[argc++] = "sungka-board";
    argv[argc++] = "--quiet";
    argv[argc++] = "--listen";
    argv[argc++] = listen;
    if (lb->tls)
        argv[argc++] = "--tls-self-signed";
    if (lb->memory_db) {
        argv[argc++] = "--db";
        argv[argc++] = ":memory:";
    }
    if (lb->verbose)
        argv[argc++] = "--verbose";
    argv[argc] = NULL;
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot make a pipe: %s", strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot fork: %s", strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);   /* never outlive the agent */
        if (getppid() != parent)
            _exit(1);
        dup2(pipefd[1], STDOUT_FILENO);
        execv(path, (char *const *)argv);
        fprintf(stderr, "sungka-player: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(pipefd[1]);
    lb->pid = pid;

    /* Read its first line, bounded in time. */
    char line[256];
    size_t used = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long elapsed = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        struct pollfd pfd = {.fd = pipefd[0], .events = POLLIN};
        if (elapsed >= START_TIMEOUT_MS || poll(&pfd, 1, (int)(START_TIMEOUT_MS - elapsed)) <= 0)
            break;
        ssize_t n = read(pipefd[0], line + used, sizeof line - 1 - used);
        if (n <= 0)
            break;
        used += (size_t)n;
        line[used] = '\0';
        if (strchr(line, '\n') || used == sizeof line - 1)
            break;
    }
    close(pipefd[0]);
    line[used] = '\0';
    const char *colon = strrchr(line, ':');
    int port = colon ? atoi(colon + 1) : 0;
    if (!strstr(line, "listening on") || port <= 0) {
        snprintf(err, errlen, "the board service did not start (%s --listen %s)", path, listen);
        local_board_stop(lb);
        return -1;
    }
    snprintf(lb->address, sizeof lb->address, "127.0.0.1:%d", port);
    if (lb->tls && find_certificate(lb, err, errlen) != 0) {
        local_board_stop(lb);
        return -1;
    }
    return 0;
}

void local_board_stop(local_board *lb)
{
    if (lb->pid <= 0)
        return;
    kill(lb->pid, SIGTERM);
    int status;
    while (waitpid(lb->pid, &status, 0) < 0 && errno == EINTR) {
    }
    lb->pid = 0;
}
