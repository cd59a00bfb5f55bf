/*
 * server_main.h — what the mains of the servers (sungka-board, sungka-relay,
 * sungka-web) share: their settings read from the command line and the
 * configuration file (--help, --version, which file, the file's keys then
 * the command line's over them, and again on SIGHUP), stopping cleanly on
 * SIGINT/SIGTERM, reloading on SIGHUP, and the one line on standard output
 * that says where the board service and the relay listen (tests and scripts
 * read it).
 *
 * Main thread only. server_stop_on_signals keeps the function and its
 * argument until server_stop_forget; the function runs in a signal handler,
 * so it must only set a flag (board_request_stop, relay_request_stop).
 */
#ifndef SUNGKA_SERVER_MAIN_H
#define SUNGKA_SERVER_MAIN_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config_file.h"

/* The first member of each server's own settings struct: what main acts on
 * itself, set by the program's apply function, and the file's strings. */
typedef struct server_settings {
    bool help, version;            /* --help, --version */
    const char *config;            /* --config FILE */
    config_values *file_values;    /* the file's strings, which the settings point into */
} server_settings;

/* A server's command line and configuration file: its one option table
 * (the file's keys are its long options) and what reads it. Static. */
typedef struct server_program {
    const char *name;              /* "sungka-board": the messages' prefix, --version */
    const char *section;           /* the file's [section] */
    const char *default_config;    /* read when it exists and no --config is given */
    const char *shortopts;
    const struct option *longopts;
    const int *not_settings;       /* vals of the options a file may not hold */
    size_t n_not_settings;
    void (*usage)(FILE *out);      /* --help's text (help2man makes the man page of it) */
    config_apply_fn apply;         /* one option into the settings (user) */
    size_t size;                   /* the settings' size: server_settings first */
    /* Fresh settings: st zeroed, then these defaults (NULL: none). */
    void (*defaults)(void *st);
    /* What a reading refused, or the first one (which looks only for --help,
     * --version and --config), left outside st: dropped (NULL: nothing). */
    void (*discard)(void);
    /* A reload's line (level as log_line.h's) without the trailing newline;
     * NULL: log_line_say's "NAME: text". */
    void (*say)(int level, const char *text);
} server_program;

/* main's prelude: the command line read; --help and --version answered on
 * standard output; the configuration file chosen into *file (--config's
 * value, "" none, or without it default_config when it exists; NULL for
 * none); st (p->size bytes) loaded as server_settings_load does. -1 when
 * main goes on with st, whose strings are then the caller's to free
 * (server_settings_free); else the status main exits with, st's strings
 * freed: 0 after --help or --version, 2 after saying on stderr what was
 * wrong. */
int server_main_settings(const server_program *p, int argc, char **argv, void *st,
                         const char **file /* OUT */);

/* Fresh settings into st: the defaults, the file's (when file is not NULL),
 * then the command line's over them. 0; or -1 with what was wrong in err
 * (the file's "PATH:LINE: what"; the command line's said on stderr too).
 * st's strings are the caller's to free either way. */
int server_settings_load(const server_program *p, void *st, const char *file, int argc,
                         char **argv, char *err, size_t errlen);

/* A reload (SIGHUP): the file and the command line read again into next
 * (p->size bytes). 0 when they are sound: the caller takes what may change
 * at once, says so, and frees next's strings (server_settings_free). -1
 * when there is nothing to take, said (no file to read; a file or command
 * line with an error: the settings stay as they were); next holds nothing.
 * The caller says server_notify_reloading before and server_notify_ready
 * after. */
int server_settings_reload(const server_program *p, const char *file, int argc, char **argv,
                           void *next);

/* Free the strings settings st (server_settings first) points into. */
void server_settings_free(void *st);

/* SIGINT and SIGTERM call stop(arg); SIGPIPE is ignored (a peer that left
 * must not kill the server). */
void server_stop_on_signals(void (*stop)(void *arg), void *arg);
/* SIGHUP calls reload(arg) (a flag too: board_request_reload), where it
 * would otherwise end the process. */
void server_reload_on_sighup(void (*reload)(void *arg), void *arg);
/* Signals no longer call them (before the server is destroyed); SIGHUP is
 * then ignored. */
void server_stop_forget(void);

/* "PROGRAM listening on HOST:PORT" and suffix, flushed: HOST as listen
 * ("HOST:PORT") gives it, PORT the port actually bound. */
void server_say_listening(const char *program, const char *listen, int port,
                          const char *suffix);

#endif /* SUNGKA_SERVER_MAIN_H */
