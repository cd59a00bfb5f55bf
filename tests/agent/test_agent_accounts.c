/*
 * test_agent_accounts.c — the agent library's accounts against a real
 * sungka-board on loopback (started here, stopped at the end): register,
 * the session kept in a private file and used by the next run, a game
 * created and joined under the account's name, a wrong password refused in
 * words, a password change, sign-out forgetting the session.
 * Usage: agent_test_accounts PATH-TO-SUNGKA-BOARD
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent.h"

static const char *board_path;
static char tmp[64], server[64];
static pid_t board_pid;

/* Start the board on a free port; read "listening on 127.0.0.1:PORT" from its
 * stdout. */
static int start_board(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/sungka-agent-acct-XXXXXX");
    if (!mkdtemp(tmp))
        return -1;
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    board_pid = fork();
    if (board_pid == 0) {
        dup2(fds[1], 1);       /* it says where it listens on stdout */
        close(fds[0]);
        close(fds[1]);
        execl(board_path, board_path, "--listen", "127.0.0.1:0", "--db", ":memory:",
              (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    FILE *err = fdopen(fds[0], "r");
    char line[512];
    int port = 0;
    while (!port && fgets(line, sizeof line, err)) {
        const char *at = strstr(line, "listening on 127.0.0.1:");
        if (at)
            port = atoi(at + strlen("listening on 127.0.0.1:"));
    }
    /* keep reading nothing more: the pipe stays open until the board exits */
    if (!port)
        return -1;
    snprintf(server, sizeof server, "127.0.0.1:%d", port);
    agent_library_init();
    return 0;
}

static int stop_board(void **state)
{
    (void)state;
    agent_library_shutdown();
    if (board_pid > 0) {
        kill(board_pid, SIGTERM);
        waitpid(board_pid, NULL, 0);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd);
}

static agent *start_in(const char *state_dir)
{
    agent_config cfg = {.server = server, .name = "alice", .state_dir = state_dir};
    agent *ag = NULL;
    char err[512];
    if (agent_start(&cfg, &ag, err, sizeof err) != 0)
        fail_msg("agent_start: %s", err);
    return ag;
}

static agent *start(void)
{
    return start_in(tmp);
}

static void accounts(void **state)
{
    (void)state;
    char err[512], path[128];
    agent *ag = start();
    assert_null(agent_account(ag));
    bool claimed = true;
    assert_int_equal(agent_register(ag, "Alice", "correct horse battery", &claimed, err,
                                    sizeof err), 0);
    assert_false(claimed);
    assert_string_equal(agent_account(ag), "Alice");
    struct stat sb;
    snprintf(path, sizeof path, "%s/sessions", tmp);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    agent_destroy(ag);

    /* The next run is signed in already, and plays under the account's name
     * (the agent's --name was "alice"). */
    ag = start();
    assert_string_equal(agent_account(ag), "Alice");
    assert_int_equal(agent_new_game(ag, "kalah", NULL, 0, err, sizeof err), 0);
    agent_game_info *games = NULL;
    int n = 0;
    assert_int_equal(agent_list_games(ag, NULL, 0, &games, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(games[0].seat_name[0], "Alice");
    free(games);

    assert_int_equal(agent_sign_in(ag, "alice", "not the password", err, sizeof err), -1);
    assert_non_null(strstr(err, "wrong name or password"));
    assert_int_equal(agent_change_password(ag, "correct horse battery", "a new secret!",
                                           err, sizeof err), 0);
    assert_int_equal(agent_sign_out(ag, false, err, sizeof err), 0);
    assert_null(agent_account(ag));
    assert_int_equal(agent_sign_out(ag, false, err, sizeof err), -1);   /* not signed in */
    assert_int_equal(agent_sign_in(ag, "ALICE", "correct horse battery", err, sizeof err), -1);
    assert_int_equal(agent_sign_in(ag, "ALICE", "a new secret!", err, sizeof err), 0);
    assert_string_equal(agent_account(ag), "Alice");
    assert_int_equal(agent_sign_out(ag, true, err, sizeof err), 0);
    agent_destroy(ag);

    ag = start();                  /* signed out: a guest again */
    assert_null(agent_account(ag));
    agent_destroy(ag);

    /* Signed out everywhere from another machine: this agent learns it at
     * its next lobby call and forgets the session. */
    char other[128];
    snprintf(other, sizeof other, "%s/other", tmp);
    ag = start();
    assert_int_equal(agent_sign_in(ag, "alice", "a new secret!", err, sizeof err), 0);
    agent *elsewhere = start_in(other);
    assert_int_equal(agent_sign_in(elsewhere, "alice", "a new secret!", err, sizeof err), 0);
    assert_int_equal(agent_sign_out(elsewhere, true, err, sizeof err), 0);
    agent_destroy(elsewhere);
    assert_int_equal(agent_new_game(ag, "kalah", NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "sign in again"));
    assert_null(agent_account(ag));
    /* ...as a guest, but not under alice's name: that is hers */
    assert_int_equal(agent_new_game(ag, "kalah", NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "is a registered name"));
    agent_destroy(ag);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH-TO-SUNGKA-BOARD\n", argv[0]);
        return 2;
    }
    board_path = argv[1];
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accounts),
    };
    return cmocka_run_group_tests(tests, start_board, stop_board);
}
