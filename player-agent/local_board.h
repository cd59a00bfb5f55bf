/*
 * local_board.h — start a board service as a child process (the agent's
 * "private service", and the host's service in the README's play command).
 * The child is the sungka-board program next to this executable; it dies
 * with the agent (PR_SET_PDEATHSIG) and is stopped by local_board_stop.
 */
#ifndef SUNGKA_LOCAL_BOARD_H
#define SUNGKA_LOCAL_BOARD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "fingerprint.h"

typedef struct local_board {
    pid_t pid;
    char address[128];     /* "127.0.0.1:PORT": where to connect to it */
    bool verbose;          /* IN: start it with --verbose (gRPC's log lines) */
    bool tls;              /* IN: serve TLS with the service's own certificate
                            * (sungka-board --tls-self-signed: made once, kept
                            * in $XDG_DATA_HOME/sungka beside the database) */
    char cert[PATH_MAX];   /* OUT with tls: that certificate's file, which the
                            * host's own agent pins as its only root */
    char fingerprint[FINGERPRINT_LEN];   /* OUT with tls: its fingerprint, for
                            * the players who join to compare with theirs */
    bool memory_db;        /* OUT: another service holds the user's default
                            * database, so this one keeps nothing (--db
                            * :memory:): its results are lost when it stops */
} local_board;

/* Start `sungka-board --listen listen` (with lb->tls, --tls-self-signed
 * too) on the user's default database (or, when another service holds that,
 * on none: see memory_db) and wait (bounded) for its "listening on" line.
 * Returns 0, or -1 with a sentence in err. */
int local_board_start(const char *argv0, const char *listen, local_board *lb, char *err,
                      size_t errlen);
/* SIGTERM, then wait for it. */
void local_board_stop(local_board *lb);

#endif /* SUNGKA_LOCAL_BOARD_H */
