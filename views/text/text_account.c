/*
 * text_account.c — register, login, logout, passwd and reset in the text view
 * (text_account.h). Each command that needs a password asks for it on the
 * next line; one that needs it twice (a new password) asks again, so a typo
 * is caught here rather than locking its author out.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text_account.h"
#include "view_i18n.h"

enum {
    ASK_NONE,
    ASK_LOGIN,                 /* the password of `name` */
    ASK_REGISTER,              /* a new account's password ... */
    ASK_REGISTER_AGAIN,        /* ... and again */
    ASK_OLD,                   /* passwd: the current one, */
    ASK_NEW,                   /* the new one, */
    ASK_NEW_AGAIN,             /* and again */
    ASK_RESET,                 /* reset: the new password (the code is in old), */
    ASK_RESET_AGAIN,           /* and again */
};

static void echo(text_account *ta, bool on)
{
    if (!on && !ta->echo_off && isatty(ta->in_fd) && tcgetattr(ta->in_fd, &ta->saved) == 0) {
        struct termios quiet = ta->saved;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        ta->echo_off = tcsetattr(ta->in_fd, TCSAFLUSH, &quiet) == 0;
    } else if (on && ta->echo_off) {
        tcsetattr(ta->in_fd, TCSAFLUSH, &ta->saved);
        ta->echo_off = false;
    }
}

static void ask(text_account *ta, int step, const char *prompt, FILE *out)
{
    ta->step = step;
    fputs(prompt, out);
    fflush(out);
    echo(ta, false);
}

void text_account_stop(text_account *ta)
{
    echo(ta, true);
    explicit_bzero(ta->first, sizeof ta->first);
    explicit_bzero(ta->old, sizeof ta->old);
    ta->step = ASK_NONE;
}

bool text_account_command(text_account *ta, agent *ag, const char *cmd, const char *rest,
                          FILE *out)
{
    char err[512];
    if (strcmp(cmd, "register") == 0 || strcmp(cmd, "login") == 0) {
        bool reg = cmd[0] == 'r';
        if (!*rest) {
            fprintf(out, reg ? _("Usage: register NAME\n") : _("Usage: login NAME\n"));
            return true;
        }
        snprintf(ta->name, sizeof ta->name, "%s", rest);
        ask(ta, reg ? ASK_REGISTER : ASK_LOGIN,
            reg ? _("Choose a password (8 characters or more): ") : _("Password: "), out);
    } else if (strcmp(cmd, "logout") == 0) {
        bool everywhere = strcmp(rest, "everywhere") == 0;
        if (*rest && !everywhere)
            fprintf(out, _("Usage: logout [everywhere]\n"));
        else if (agent_sign_out(ag, everywhere, err, sizeof err) != 0)
            fprintf(out, "%s\n", err);
        else
            fprintf(out, everywhere ? _("Signed out everywhere.\n") : _("Signed out.\n"));
    } else if (strcmp(cmd, "passwd") == 0) {
        if (!agent_account(ag))
            fprintf(out, _("Sign in first (login NAME).\n"));
        else
            ask(ta, ASK_OLD, _("Current password: "), out);
    } else if (strcmp(cmd, "reset") == 0) {
        const char *space = strchr(rest, ' ');
        if (!space || space == rest || !space[1] || strchr(space + 1, ' ')) {
            fprintf(out, _("Usage: reset NAME CODE (the code the operator gave you)\n"));
            return true;
        }
        snprintf(ta->name, sizeof ta->name, "%.*s", (int)(space - rest), rest);
        snprintf(ta->old, sizeof ta->old, "%s", space + 1);
        ask(ta, ASK_RESET, _("Choose a password (8 characters or more): "), out);
    } else if (strcmp(cmd, "whoami") == 0) {
        const char *account = agent_account(ag);
        if (account)
            fprintf(out, _("Signed in as %s.\n"), account);
        else
            fprintf(out, _("Playing as a guest (register NAME or login NAME to sign in).\n"));
    } else if (strcmp(cmd, "block") == 0 || strcmp(cmd, "unblock") == 0) {
        bool block = cmd[0] == 'b';
        char shown[AGENT_NAME_BYTES];
        if (!*rest || strchr(rest, ' '))
            fprintf(out, block ? _("Usage: block NAME\n") : _("Usage: unblock NAME\n"));
        else if (agent_block(ag, rest, block, shown, err, sizeof err) != 0)
            fprintf(out, "%s\n", err);
        else
            fprintf(out, block ? _("Blocked %s: you will not read them, and you will not be "
                                   "paired with them.\n")
                               : _("Unblocked %s.\n"), shown);
    } else if (strcmp(cmd, "blocked") == 0) {
        char (*names)[AGENT_NAME_BYTES] = NULL;
        int n = 0;
        if (agent_blocked(ag, &names, &n, err, sizeof err) != 0)
            fprintf(out, "%s\n", err);
        else if (n == 0)
            fprintf(out, _("You block nobody.\n"));
        else
            fprintf(out, _("You block:"));
        for (int i = 0; i < n; i++)
            fprintf(out, " %s%s", names[i], i + 1 < n ? "," : "\n");
        free(names);
    } else if (strcmp(cmd, "report") == 0) {
        char name[AGENT_NAME_BYTES];
        const char *reason = rest;
        size_t len = strcspn(rest, " \t");
        while (reason[len] == ' ' || reason[len] == '\t')
            len++;
        int64_t id = 0;
        snprintf(name, sizeof name, "%.*s", (int)strcspn(rest, " \t"), rest);
        reason = rest + len;
        if (!name[0] || !*reason)
            fprintf(out, _("Usage: report NAME REASON...\n"));
        else if (agent_report(ag, name, reason, &id, err, sizeof err) != 0)
            fprintf(out, "%s\n", err);
        else
            fprintf(out, _("Reported %s to the operator (report %lld).\n"), name,
                    (long long)id);
    } else {
        return false;
    }
    return true;
}

bool text_account_line(text_account *ta, agent *ag, const char *line, FILE *out)
{
    if (ta->step == ASK_NONE)
        return false;
    fputc('\n', out);          /* the Enter the terminal did not echo */
    char err[512];
    bool claimed = false;
    int step = ta->step;
    ta->step = ASK_NONE;
    switch (step) {
    case ASK_LOGIN:
        echo(ta, true);
        if (agent_sign_in(ag, ta->name, line, err, sizeof err) != 0)
            fprintf(out, "%s\n", err);
        else
            fprintf(out, _("Signed in as %s.\n"), agent_account(ag));
        break;
    case ASK_REGISTER:
    case ASK_NEW:
    case ASK_RESET:
        snprintf(ta->first, sizeof ta->first, "%s", line);
        ask(ta, step == ASK_REGISTER ? ASK_REGISTER_AGAIN
                : step == ASK_NEW    ? ASK_NEW_AGAIN
                                     : ASK_RESET_AGAIN,
            _("The same password again: "), out);
        return true;
    case ASK_RESET_AGAIN:
        echo(ta, true);
        if (strcmp(line, ta->first) != 0)
            fprintf(out, _("The two passwords differ; nothing was changed.\n"));
        else if (agent_reset_password(ag, ta->name, ta->old, line, err, sizeof err) != 0)
            fprintf(out, "%s\n", err);
        else
            fprintf(out, _("Password reset; every other session of the account is signed "
                           "out. Signed in as %s.\n"), agent_account(ag));
        break;
    case ASK_REGISTER_AGAIN:
        echo(ta, true);
        if (strcmp(line, ta->first) != 0)
            fprintf(out, _("The two passwords differ; nothing was changed.\n"));
        else if (agent_register(ag, ta->name, line, &claimed, err, sizeof err) != 0)
            fprintf(out, "%s\n", err);
        else
            fprintf(out, claimed ? _("Account %s created; the statistics kept under that name "
                                     "are yours now. Signed in.\n")
                                 : _("Account %s created. Signed in.\n"),
                    agent_account(ag));
        break;
    case ASK_OLD:
        snprintf(ta->old, sizeof ta->old, "%s", line);
        ask(ta, ASK_NEW, _("New password: "), out);
        return true;
    case ASK_NEW_AGAIN:
        echo(ta, true);
        if (strcmp(line, ta->first) != 0)
            fprintf(out, _("The two passwords differ; nothing was changed.\n"));
        else if (agent_change_password(ag, ta->old, line, err, sizeof err) != 0)
            fprintf(out, "%s\n", err);
        else
            fprintf(out, _("Password changed; your other sessions are signed out.\n"));
        break;
    }
    explicit_bzero(ta->old, sizeof ta->old);
    explicit_bzero(ta->first, sizeof ta->first);
    return true;
}
