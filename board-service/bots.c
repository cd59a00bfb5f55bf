/*
 * bots.c — computer players the service seats itself: `--bots N` at
 * creation, or one in the seat of a player who did not come back, in a game
 * created with bot_takes_over. The service seats each bot itself (at
 * creation at one of the game's last seats, so the people who asked for the
 * game keep the first ones), and remembers it in the store with its level;
 * then a sungka-player child with
 * the bot view takes that seat over loopback like a person taking their
 * seat back, with the seat token handed to it through a pipe (a command
 * line is for everyone to read in ps). After a restart, recovery marks the
 * same participants and board_bots_recover starts their children again the
 * same way, so a game against the service's bots survives the service.
 * Children die with the service (PR_SET_PDEATHSIG) and are reaped from the
 * event loop.
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
#include "xdg.h"

/* sungka-player in the same directory as this program. */
static int player_path(char *out, size_t len)
{
    if (xdg_beside_program("sungka-player", out, len) != 0)
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

/* The descriptor on which a child reads its seat token. */
#define TOKEN_FD 3

/* Start the child that plays p's seat, handing it p's token on TOKEN_FD. */
static int start_child(board_service *svc, room *r, const participant *p, char *err,
                       size_t errlen)
{
    char path[PATH_MAX], server[160], seat[16], lvl[16], think[16];
    if (player_path(path, sizeof path) != 0) {
        snprintf(err, errlen, "cannot seat bots: sungka-player is not installed next to "
                              "sungka-board");
        return -1;
    }
    own_address(svc, server, sizeof server);
    snprintf(seat, sizeof seat, "%d", p->seat);
    snprintf(lvl, sizeof lvl, "%d", p->bot_level);
    snprintf(think, sizeof think, "%d", svc->cfg.bot_think_ms);
    /* The token goes into the pipe before the fork: it is far below the
     * pipe's capacity, and the child reads it whenever it starts. */
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot seat bots: %s", strerror(errno));
        return -1;
    }
    char line[BOARD_TOKEN_HEX + 2];
    int len = snprintf(line, sizeof line, "%s\n", p->token);
    if (write(pipefd[1], line, (size_t)len) != len) {
        snprintf(err, errlen, "cannot seat bots: %s", strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    close(pipefd[1]);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot seat bots: %s", strerror(errno));
        close(pipefd[0]);
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
        /* dup2 clears close-on-exec on the copy; a pipe already at
         * TOKEN_FD keeps its own flag, so clear that by hand. */
        if (pipefd[0] == TOKEN_FD ? fcntl(TOKEN_FD, F_SETFD, 0) != 0
                                  : dup2(pipefd[0], TOKEN_FD) != TOKEN_FD)
            _exit(127);
        /* A service with the certificate --tls-self-signed made: the bot
         * trusts exactly it (an operator's certificate, signed by a CA, is
         * checked as any agent checks it). */
        const char *tls = svc->cfg.tls_self_signed ? svc->cfg.tls_cert : NULL;
        execl(path, "sungka-player", "--server", server, "--name", p->name, "--game", room_id(r),
              "--seat", seat, "--token-fd", "3", "--view", "bot", "--stay", "--level", lvl,
              "--think", think, "--state-dir", "", tls ? "--tls-ca" : "--view", tls ? tls : "bot",
              svc->cfg.grpc_log ? "--verbose" : (char *)NULL, (char *)NULL);
        fprintf(stderr, "sungka-board: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(pipefd[0]);
    if (remember(svc, pid) != 0) {
        kill(pid, SIGTERM);
        snprintf(err, errlen, "cannot seat bots: out of memory");
        return -1;
    }
    board_log(svc, "game %s: bot %s (level %d) started, pid %d", room_id(r), p->name, p->bot_level,
              (int)pid);
    return 0;
}

int board_bots_spawn(board_service *svc, room *r, int n, int level, char *err, size_t errlen)
{
    char path[PATH_MAX];
    if (player_path(path, sizeof path) != 0) {
        snprintf(err, errlen, "cannot seat bots: sungka-player is not installed next to "
                              "sungka-board");
        return -1;
    }
    int seats = game_seats(room_state(r));
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "bot-%d", i + 1);
        participant *p;
        /* The service's own: joined on no client's account (from NULL). */
        if (room_join(r, name, true, NULL, &p, err, errlen) != ROOM_OK)
            return -1;
        p->bot_level = level;
        if (svc->store && store_participant_bot(svc->store, room_id(r), p->id, level) != 0)
            board_log_at(svc, LOG_ERR,
                         "game %s: cannot remember that %s is a bot (%s); it will not come "
                         "back after a restart", room_id(r), name, store_last_error(svc->store));
        if (room_sit(r, p, seats - n + i, err, errlen) != ROOM_OK ||
            room_ready(r, p, true, err, errlen) != ROOM_OK ||
            start_child(svc, r, p, err, errlen) != 0) {
            room_leave(r, p);
            return -1;
        }
    }
    return 0;
}

int board_bots_adopt(board_service *svc, room *r, participant *p, int level, char *err,
                     size_t errlen)
{
    p->bot_level = level;
    if (svc->store && store_participant_bot(svc->store, room_id(r), p->id, level) != 0)
        board_log_at(svc, LOG_ERR,
                     "game %s: cannot remember that %s is a bot (%s); it will not come "
                     "back after a restart", room_id(r), p->name, store_last_error(svc->store));
    return start_child(svc, r, p, err, errlen);
}

int board_bots_take_over(board_service *svc, room *r, participant *p)
{
    char err[256], path[PATH_MAX], name[BOARD_NAME_BYTES];
    if (player_path(path, sizeof path) != 0) {
        board_log_at(svc, LOG_WARNING,
                     "game %s: no bot can take %s's seat: sungka-player is not installed "
                     "next to sungka-board; the seat waits for a claim", room_id(r), p->name);
        return -1;
    }
    int n_people;
    room_people(r, &n_people, NULL);
    for (int i = 1; i <= GAME_MAX_SEATS + n_people; i++) {
        snprintf(name, sizeof name, "bot-%d", i);
        if (!room_find_name(r, name))
            break;
    }
    participant *bot;
    if (room_take_over(r, p, name, &bot, err, sizeof err) != ROOM_OK) {
        board_log_at(svc, LOG_WARNING,
                     "game %s: no bot took %s's seat: %s", room_id(r), p->name, err);
        return -1;
    }
    /* The seat is the bot's now, stored: a restart starts it if this fails. */
    if (start_child(svc, r, bot, err, sizeof err) != 0)
        board_log_at(svc, LOG_WARNING, "game %s: %s: %s", room_id(r), bot->name, err);
    return 0;
}

void board_bots_recover(board_service *svc, int first)
{
    char err[256];
    for (int i = first; i < svc->n_rooms; i++) {
        room *r = svc->rooms[i];
        int n;
        participant *const *people = room_people(r, &n, NULL);
        for (int k = 0; k < n; k++) {
            participant *p = people[k];
            if (room_is_open(r) && p->bot_level > 0 && p->seat >= 0 &&
                start_child(svc, r, p, err, sizeof err) != 0)
                board_log_at(svc, LOG_WARNING, "game %s: %s: %s", room_id(r), p->name, err);
        }
    }
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
