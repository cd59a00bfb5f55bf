/*
 * server_main.h — what the mains of the two servers (sungka-board,
 * sungka-relay) share: stopping cleanly on SIGINT/SIGTERM, reloading on SIGHUP, and the one
 * line on standard output that says where they listen (tests and scripts
 * read it).
 *
 * Main thread only. server_stop_on_signals keeps the function and its
 * argument until server_stop_forget; the function runs in a signal handler,
 * so it must only set a flag (board_request_stop, relay_request_stop).
 */
#ifndef SUNGKA_SERVER_MAIN_H
#define SUNGKA_SERVER_MAIN_H

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
