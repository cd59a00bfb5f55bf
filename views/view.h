/*
 * view.h — the one interface every view implements (text, GTK, bot). A view owns the thread that calls view_run: it waits on the
 * agent's queue fd and its own input, draws from the agent's model, and sends
 * the user's commands through the agent. Views never touch gRPC.
 */
#ifndef SUNGKA_VIEW_H
#define SUNGKA_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "agent.h"

typedef struct view_io {
    FILE *in;      /* commands, one per line (text view) */
    FILE *out;     /* drawing and messages */
    int level;     /* bot: 1..10 (default 5) */
    int think_ms;  /* bot: time budget per move (default 1000) */
    bool quiet;    /* no bell (or other sound) when it becomes your turn */
    const char *state_dir; /* where a view keeps its files (the text view's
                            * history): agent_config.state_dir's rules */
    bool stay;     /* bot: stay after the end, for a rematch (the service's bots) */
} view_io;

/* How a view that asks the user where to connect starts the agent itself,
 * with main.c's start-up: a private board service when cfg->server is
 * NULL, the TLS file checks, the plaintext warning. */
typedef struct view_launcher view_launcher;
struct view_launcher {
    agent_config *cfg;         /* from the command line; the view may set server
                                * (NULL or "": a private service on this machine)
                                * and name before calling start; start copies
                                * them, so they need only last for the call */
    /* 0 and *out, or -1 and a sentence in err; may be called again after
     * a failure (which leaves nothing running), not after a success
     * unless stop undid it. It blocks, with the agent's call deadline,
     * until the service answered. The agent (and any private service) stay
     * owned by main. */
    int (*start)(view_launcher *l, agent **out, char *err, size_t errlen);
    /* Undo a successful start (the agent destroyed, any private service
     * stopped), so that start may be called again: how a view gives up a
     * connection it cannot use (a refused sign-in, on a service the user
     * may now change). Nothing when nothing was started. */
    void (*stop)(view_launcher *l);
    void *priv;                /* main.c's */
};

typedef struct view_ops {
    const char *name;          /* "text" */
    const char *summary;       /* one line for --help */
    /* Run until the user quits or the game connection ends; returns the
     * process exit status (0: normal). The agent stays owned by the caller. */
    int (*run)(agent *ag, const view_io *io);
    /* Optional. Run with no agent yet: ask the user where and who, start the
     * agent through l, then play as run does. Used when the command line
     * says neither where (--server, --serve) nor what (--new, --any, --game). */
    int (*run_connect)(view_launcher *l, const view_io *io);
    /* A view with nobody to type "ready" (the bot): its seats say ready by
     * themselves, as with --ready. */
    bool auto_ready;
} view_ops;

/* The user's locale and the views' translations (view_locale.c): call once,
 * first thing in main, before any view runs. */
void view_locale_init(void);

/* NULL when there is no view of that name. */
const view_ops *view_find(const char *name);
int view_count(void);
const view_ops *view_at(int i);

#endif /* SUNGKA_VIEW_H */
