/*
 * bots.c — computer players the service seats itself (`--bots N` at
 * creation). Each is a sungka-player child with the bot view that joins over
 * loopback exactly like a person would, at one of the game's last seats so
 * the people who asked for the game keep the first ones. Children die with
 * the service (PR_SET_PDEATHSIG) and are reaped from the event loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "board_internal.h"

/* sungka-player in the same directory as this program. */
static int player_path(char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    if ((size_t)snprintf(out, len, "%s/sungka-player", self) >= len)
        return -1;
    return access(out, X_OK);
}

/* Where a child connects: our own port, on loopback unless we listen on one
 * address only. */
static void own_address(const board_service *svc, char *out, size_t len)
{
    const char *listen = svc->cfg.listen;
    const char *colon = strrchr(listen, ':');
    int hostlen = colon ? (int)(colon - listen) : 0;
    bool any = hostlen == 0 || strncmp(listen, "0.0.0.0", (size_t)hostlen) == 0 ||
               strncmp(listen, "[::]", (size_t)hostlen) == 0;
    if (any)
        snprintf(out, len, "127.0.0.1:%d", svc->port);
    else
        snprintf(out, len, "%.*s:%d", hostlen, listen, svc->port);
}

static int remember(board_service *svc, pid_t pid)
{
    if (svc->n_bots == svc->bots_cap) {
        int cap = svc->bots_cap ? svc->bots_cap * 2 : 8;
        pid_t *grown = realloc(svc->bot_pids, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        svc->bot_pids = grown;
        svc->bots_cap = cap;
    }
    svc->bot_pids[svc->n_bots++] = pid;
    return 0;
}

int board_bots_spawn(board_service *svc, room *r, int n, int level, char *err, size_t errlen)
{
    char path[PATH_MAX], server[160];
    if (player_path(path, sizeof path) != 0) {
        snprintf(err, errlen, "cannot seat bots: sungka-player is not installed next to "
                              "sungka-board");
        return -1;
    }
    own_address(svc, server, sizeof server);
    int seats = game_seats(&r->state);
    for (int i = 0; i < n; i++) {
        char name[32], seat[16], lvl[16], think[16];
        snprintf(think, sizeof think, "%d", svc->cfg.bot_think_ms);
        snprintf(name, sizeof name, "bot-%d", i + 1);
        snprintf(seat, sizeof seat, "%d", seats - n + i);
        snprintf(lvl, sizeof lvl, "%d", level);
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0) {
            snprintf(err, errlen, "cannot seat bots: %s", strerror(errno));
            return -1;
        }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() != parent)
                _exit(1);
            int devnull = open("/dev/null", O_RDWR);
            if (devnull >= 0) {
                dup2(devnull, STDIN_FILENO);
                dup2(devnull, STDOUT_FILENO);
            }
            execl(path, "sungka-player", "--server", server, "--name", name, "--game", r->id,
                  "--seat", seat, "--view", "bot", "--level", lvl, "--think", think, "--ready", "--state-dir", "",
                  svc->cfg.grpc_log ? "--verbose" : (char *)NULL, (char *)NULL);
            fprintf(stderr, "sungka-board: cannot run %s: %s\n", path, strerror(errno));
            _exit(127);
        }
        if (remember(svc, pid) != 0) {
            kill(pid, SIGTERM);
            snprintf(err, errlen, "cannot seat bots: out of memory");
            return -1;
        }
        board_log(svc, "game %s: bot %s (level %d) started, pid %d", r->id, name, level, (int)pid);
    }
    return 0;
}

void board_bots_reap(board_service *svc)
{
    for (int i = svc->n_bots - 1; i >= 0; i--) {
        int status;
        if (waitpid(svc->bot_pids[i], &status, WNOHANG) == svc->bot_pids[i])
            svc->bot_pids[i] = svc->bot_pids[--svc->n_bots];
    }
}

void board_bots_stop(board_service *svc)
{
    for (int i = 0; i < svc->n_bots; i++)
        kill(svc->bot_pids[i], SIGTERM);
    for (int i = 0; i < svc->n_bots; i++) {
        int status;
        while (waitpid(svc->bot_pids[i], &status, 0) < 0 && errno == EINTR) {
        }
    }
    svc->n_bots = 0;
    free(svc->bot_pids);
    svc->bot_pids = NULL;
    svc->bots_cap = 0;
}
