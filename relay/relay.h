/*
 * relay.h — sungka-relay: a game's audience served from another machine
 * than the game's (issue 18).
 *
 * A relay takes one game's event stream once, from the board service that
 * hosts it (or from another relay: a game's audience is a tree), and serves
 * the same stream to many observers: Register.JoinGame as an observer and
 * Board.Subscribe, read-only (a relay never takes a move, a chat line or a
 * seat). Each observer sees exactly the host's events, in order: the
 * snapshot the relay was given, then every event after it, then the live
 * ones; an observer resumes after the last event it saw, here or at another
 * relay, since the sequence numbers are the host's. The host pays for one
 * stream per relay, however many watch.
 *
 * Threads: relay_run's loop owns every game and observer; the upstream
 * channels' client threads only queue what they receive and wake the loop.
 * relay_request_stop is async-signal-safe.
 */
#ifndef SUNGKA_RELAY_H
#define SUNGKA_RELAY_H

#include <stdio.h>

typedef struct relay_config {
    const char *listen;        /* "0.0.0.0:7171"; port 0 picks one */
    const char *advertise;     /* endpoint in the observers' board references
                                * (NULL: the bound address) */
    const char *upstream;      /* the cluster's nodes or a relay: "HOST:PORT[,...]" */
    int max_games;             /* games relayed at once (default 1000) */
    int max_observers;         /* observers at once, all games (default 100000) */
    int max_streams;           /* concurrent calls per connection (default 64) */
    FILE *log;                 /* where to log (default stderr; NULL quiet) */
} relay_config;

typedef struct relay relay;

/* Bind and start serving; *port gets the bound port. 0, or -1 with one
 * sentence in err. */
int relay_create(const relay_config *cfg, relay **out, int *port, char *err, size_t errlen);
/* Serve until relay_request_stop. */
int relay_run(relay *r);
void relay_request_stop(relay *r);
void relay_destroy(relay *r);

#endif /* SUNGKA_RELAY_H */
