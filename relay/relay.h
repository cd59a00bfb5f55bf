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
 * Strangers: each observer's address is held to the board service's limits
 * here (watcher slots, streams, joins a second), and with --relay-key a
 * join this relay sends upstream counts against the address that asked for
 * it, not the relay's (relay_key.h), so nobody can shut the relay's door.
 *
 * An operator's relay: observers in TLS (tls_cert, tls_key), upstream in
 * TLS (upstream_tls, upstream_ca: a board's own certificate pins it), and a
 * reload on SIGHUP (relay_request_reload, then cfg.on_reload on the loop,
 * which hands relay_reconfigure the settings read again).
 *
 * Threads: relay_run's loop owns every game and observer; the upstream
 * channels' client threads only queue what they receive and wake the loop.
 * relay_request_stop and relay_request_reload are async-signal-safe.
 */
#ifndef SUNGKA_RELAY_H
#define SUNGKA_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct relay relay;

typedef struct relay_config {
    const char *listen;        /* "0.0.0.0:7171"; port 0 picks one */
    const char *advertise;     /* endpoint in the observers' board references
                                * (NULL: the bound address) */
    const char *upstream;      /* the cluster's nodes or a relay: "HOST:PORT[,...]" */
    int max_games;             /* games relayed at once (default 1000) */
    int max_observers;         /* observers at once, all games (default 100000) */
    int max_streams;           /* concurrent calls per connection (default 64) */
    /* Per observer's address, as at a board service (relay_clients.c): */
    int max_client_observers;  /* watcher slots (default 256) */
    int max_client_streams;    /* open event streams (default 256) */
    int client_join_rate;      /* joins per second (default 20) */
    int ipv6_prefix;           /* IPv6 observers count by this prefix (bits, default 64) */
    const char *relay_key;     /* a file with the secret the board services know this
                                * relay by (relay_key.h): its joins upstream then count
                                * against the observer who asked. NULL: none; upstream
                                * counts them all against this relay's address */
    const char *metrics;       /* "HOST:PORT": serve GET /metrics (Prometheus) there;
                                * NULL: no metrics */
    FILE *log;                 /* where to log (default stderr; NULL quiet) */
    bool grpc_log;             /* gRPC's own log lines too (--verbose; the caller calls
                                * rpc_set_verbose) */
    const char *tls_cert;      /* PEM certificate chain: observers in TLS (with tls_key) */
    const char *tls_key;       /* its private key */
    bool upstream_tls;         /* TLS towards upstream, verifying its certificate */
    const char *upstream_ca;   /* ...which must chain to this PEM file (a board's own
                                * self-signed certificate: exactly it); NULL: the
                                * system's roots. Implies upstream_tls */
    const char *upstream_name; /* the name upstream's certificate must carry, when it
                                * is not the host in upstream */
    /* A reload asked for (relay_request_reload): called on the loop thread
     * between two turns, with hook_arg. NULL: a reload does nothing. */
    void (*on_reload)(relay *r, void *arg);
    void *hook_arg;
} relay_config;

/* Bind and start serving; *port gets the bound port. 0, or -1 with one
 * sentence in err. */
int relay_create(const relay_config *cfg, relay **out, int *port, char *err, size_t errlen);
/* Serve until relay_request_stop. */
int relay_run(relay *r);
void relay_request_stop(relay *r);
/* Async-signal-safe: cfg.on_reload runs at the loop's next turn. */
void relay_request_reload(relay *r);
/* Loop thread (from on_reload): take `next`'s settings that a running
 * relay can take (relay_reconfigure.c says which: the limits, the log, the
 * TLS certificate read again) and say in said[saidlen] what changed and what
 * needs a restart. Copies what it keeps: next's strings may go after. */
void relay_reconfigure(relay *r, const relay_config *next, char *said, size_t saidlen);
void relay_destroy(relay *r);

#endif /* SUNGKA_RELAY_H */
