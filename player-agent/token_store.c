/*
 * token_store.c — the saved-token file: one line per seat,
 * "server<TAB>game<TAB>name<TAB>seat<TAB>token". Rewritten whole on every
 * change (it holds a handful of lines), through a temporary file and
 * rename, so a crash never leaves half a file. Directories and the file
 * are made private by common/xdg.h, whatever the umask, which is left
 * alone: it belongs to every thread of the process.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "token_store.h"
#include "xdg.h"

#define LINE_BYTES 1024

/* The file's path, its directory made (0700, with its parents) when
 * missing; -1 when the store is off or there is nowhere to keep it. */
static int store_path(const char *dir, char *out, size_t len)
{
    return xdg_state_file(dir, "tokens", out, len);
}

static int same_key(const char *line, const char *server, const char *game, const char *name)
{
    char key[LINE_BYTES];
    int n = snprintf(key, sizeof key, "%s\t%s\t%s\t", server, game, name);
    return n > 0 && (size_t)n < sizeof key && strncmp(line, key, (size_t)n) == 0;
}

int token_store_find(const char *dir, const char *server, const char *game, const char *name,
                     char *token, size_t token_len, int *seat)
{
    char path[PATH_MAX], line[LINE_BYTES];
    if (store_path(dir, path, sizeof path) != 0)
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int found = -1;
    while (found != 0 && fgets(line, sizeof line, f)) {
        if (!same_key(line, server, game, name))
            continue;
        /* the last two fields: seat, token */
        char *tab = strrchr(line, '\t');
        if (!tab)
            continue;
        *tab = '\0';
        char *seat_field = strrchr(line, '\t');
        if (!seat_field)
            continue;
        tab[strcspn(tab + 1, "\n") + 1] = '\0';
        snprintf(token, token_len, "%s", tab + 1);
        *seat = atoi(seat_field + 1);
        found = 0;
    }
    fclose(f);
    return found;
}

/* Copy every other line, then add `add` (may be NULL). */
static void rewrite(const char *dir, const char *server, const char *game, const char *name,
                    const char *add)
{
    char path[PATH_MAX], tmp[PATH_MAX + 16], line[LINE_BYTES];
    if (store_path(dir, path, sizeof path) != 0)
        return;
    snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
    /* A stale temporary of this name (a run that died here, under a pid
     * since reused) would make O_EXCL refuse: remove it first. The new one
     * is 0600 and never opened through a link. */
    unlink(tmp);
    int fd = xdg_create_private(tmp);
    if (fd < 0)
        return;
    FILE *out = fdopen(fd, "w");
    if (!out) {
        close(fd);
        unlink(tmp);
        return;
    }
    FILE *in = fopen(path, "r");
    if (in) {
        while (fgets(line, sizeof line, in))
            if (!same_key(line, server, game, name))
                fputs(line, out);
        fclose(in);
    }
    if (add)
        fputs(add, out);
    if (fclose(out) == 0)
        rename(tmp, path);
    else
        unlink(tmp);
}

void token_store_put(const char *dir, const char *server, const char *game, const char *name,
                     int seat, const char *token)
{
    char line[LINE_BYTES];
    /* Names with tabs or newlines cannot be stored; the service refuses
     * control characters in names anyway. */
    if (strpbrk(name, "\t\n") || strpbrk(server, "\t\n") || strpbrk(game, "\t\n"))
        return;
    snprintf(line, sizeof line, "%s\t%s\t%s\t%d\t%s\n", server, game, name, seat, token);
    rewrite(dir, server, game, name, line);
}

void token_store_drop(const char *dir, const char *server, const char *game, const char *name)
{
    rewrite(dir, server, game, name, NULL);
}
