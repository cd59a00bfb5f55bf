/*
 * text_account.h — the text view's accounts: register, login, logout,
 * passwd and reset. A password is asked for on the line after the command, with the
 * terminal's echo off while it is typed (when the input is a terminal), and
 * is wiped from memory once sent; it never appears in the output.
 *
 * Owned by the text view, used from its thread only; text_account_stop
 * puts the echo back and wipes what is held (call it before exiting).
 */
#ifndef SUNGKA_TEXT_ACCOUNT_H
#define SUNGKA_TEXT_ACCOUNT_H

#include <stdbool.h>
#include <stdio.h>
#include <termios.h>

#include "agent.h"

typedef struct text_account {
    int step;                  /* which password the next line is (0: none) */
    char name[AGENT_NAME_BYTES];
    char first[1025];          /* a new password, until it is typed again */
    char old[1025];            /* passwd: the current one, until the new is sent;
                                * reset: the operator's code */
    int in_fd;                 /* where passwords are typed */
    bool echo_off;             /* we turned the terminal's echo off */
    struct termios saved;
} text_account;

/* register NAME | login NAME | logout [everywhere] | passwd | reset NAME
 * CODE (a forgotten password, with the operator's one-time code): true when cmd
 * was one (then it prints what follows, or asks for a password). */
bool text_account_command(text_account *ta, agent *ag, const char *cmd, const char *rest,
                          FILE *out);
/* While a password is asked for, `line` is it (taken whole, spaces and
 * all): true when it was taken. */
bool text_account_line(text_account *ta, agent *ag, const char *line, FILE *out);
void text_account_stop(text_account *ta);

#endif /* SUNGKA_TEXT_ACCOUNT_H */
