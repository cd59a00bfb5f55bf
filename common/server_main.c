/*
 * server_main.c — see server_main.h.
 */
#include "server_main.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "log_line.h"
#include "version.h"

static void (*volatile stop_fn)(void *);
static void *volatile stop_arg;
static void (*volatile reload_fn)(void *);
static void *volatile reload_arg;

static void on_hangup(int sig)
{
    (void)sig;
    void (*fn)(void *) = reload_fn;
    if (fn)
        fn(reload_arg);
}

void server_reload_on_sighup(void (*reload)(void *arg), void *arg)
{
    reload_arg = arg;
    reload_fn = reload;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_hangup;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGHUP, &sa, NULL);
}

static void on_signal(int sig)
{
    (void)sig;
    void (*fn)(void *) = stop_fn;
    if (fn)
        fn(stop_arg);
}

void server_stop_on_signals(void (*stop)(void *arg), void *arg)
{
    stop_arg = arg;
    stop_fn = stop;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

void server_stop_forget(void)
{
    stop_fn = NULL;
    reload_fn = NULL;
}

void server_say_listening(const char *program, const char *listen, int port,
                          const char *suffix)
{
    const char *colon = strrchr(listen, ':');
    int hostlen = colon ? (int)(colon - listen) : (int)strlen(listen);
    printf("%s listening on %.*s:%d%s\n", program, hostlen, listen, port, suffix);
    fflush(stdout);
}

/* ------------------------------------------------------------------------
 * Settings: the command line and the configuration file
 * ------------------------------------------------------------------------ */

static void say(const server_program *p, int level, const char *text)
{
    if (p->say)
        p->say(level, text);
    else
        log_line_say(level, "%s: %s\n", p->name, text);
}

static void discard(const server_program *p)
{
    if (p->discard)
        p->discard();
}

int server_settings_load(const server_program *p, void *st, const char *file, int argc,
                         char **argv, char *err, size_t errlen)
{
    server_settings *common = st;
    memset(st, 0, p->size);
    if (p->defaults)
        p->defaults(st);
    if (file && config_file_read(file, p->section, p->longopts, p->not_settings,
                                 p->n_not_settings, p->apply, st, &common->file_values, err,
                                 errlen) != 0)
        return -1;
    /* Read once already at the start: refused now only when the file's
     * settings and the command line's together are wrong (said on stderr). */
    if (config_argv_read(p->name, argc, argv, p->shortopts, p->longopts, p->apply, st,
                         p->usage) != 0) {
        snprintf(err, errlen, "the command line is refused");
        return -1;
    }
    return 0;
}

void server_settings_free(void *st)
{
    server_settings *common = st;
    config_values_free(common->file_values);
    common->file_values = NULL;
}

int server_main_settings(const server_program *p, int argc, char **argv, void *st,
                         const char **file)
{
    server_settings *common = st;
    *file = NULL;
    memset(st, 0, p->size);
    int refused = config_argv_read(p->name, argc, argv, p->shortopts, p->longopts, p->apply,
                                   st, p->usage);
    discard(p);                        /* this reading looks for three options only */
    if (refused)
        return 2;
    if (common->help) {
        p->usage(stdout);
        return 0;
    }
    if (common->version) {
        printf("%s %s\n", p->name, SUNGKA_VERSION);
        return 0;
    }
    *file = config_file_chosen(common->config, p->default_config);
    char err[1024];
    if (server_settings_load(p, st, *file, argc, argv, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", p->name, err);
        server_settings_free(st);
        discard(p);
        return 2;
    }
    return -1;
}

int server_settings_reload(const server_program *p, const char *file, int argc, char **argv,
                           void *next)
{
    char err[1024], line[1200];
    memset(next, 0, p->size);
    if (!file) {
        snprintf(line, sizeof line, "SIGHUP: no configuration file to reload (--config FILE, "
                                    "or %s)", p->default_config);
        say(p, LOG_WARNING, line);
        return -1;
    }
    if (server_settings_load(p, next, file, argc, argv, err, sizeof err) != 0) {
        server_settings_free(next);
        discard(p);
        snprintf(line, sizeof line, "reload refused, the settings stay as they were: %s", err);
        say(p, LOG_ERR, line);
        return -1;
    }
    return 0;
}
