/*
 * view.h — the one interface every view implements (text, GTK, bot). A view owns the thread that calls view_run: it waits on the
 * agent's queue fd and its own input, draws from the agent's model, and sends
 * the user's commands through the agent. Views never touch gRPC.
 */
#ifndef SUNGKA_VIEW_H
#define SUNGKA_VIEW_H

#include <stdio.h>

#include "agent.h"

typedef struct view_io {
    FILE *in;      /* commands, one per line (text view) */
    FILE *out;     /* drawing and messages */
    int level;     /* bot: 1..10 (default 5) */
    int think_ms;  /* bot: time budget per move (default 1000) */
} view_io;

typedef struct view_ops {
    const char *name;          /* "text" */
    const char *summary;       /* one line for --help */
    /* Run until the user quits or the game connection ends; returns the
     * process exit status (0: normal). The agent stays owned by the caller. */
    int (*run)(agent *ag, const view_io *io);
} view_ops;

/* NULL when there is no view of that name. */
const view_ops *view_find(const char *name);
int view_count(void);
const view_ops *view_at(int i);

#endif /* SUNGKA_VIEW_H */
