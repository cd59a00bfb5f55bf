/*
 * server_main.c — see server_main.h.
 */
#include "server_main.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

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
