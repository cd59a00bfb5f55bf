/*
 * token_store.c — the saved-token file: one line per seat,
 * "server<TAB>game<TAB>name<TAB>seat<TAB>token". Rewritten whole on every
 * change (it holds a handful of lines), through a temporary file and
 * rename, so a crash never leaves half a file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "token_store.h"

#define LINE_BYTES 1024

/* The file's path, creating its directory; -1 when the store is off. */
static int store_path(const char *dir, char *out, size_t len)
{
    char base[512];
    if (dir && !*dir)
        return -1;
    if (dir) {
        snprintf(base, sizeof base, "%s", dir);
    } else {
        const char *xdg = getenv("XDG_STATE_HOME");
        const char *home = getenv("HOME");
        if (xdg && *xdg)
            snprintf(base, sizeof base, "%s/sungka", xdg);
        else if (home && *home)
            snprintf(base, sizeof base, "%s/.local/state/sungka", home);
        else
            return -1;
    }
    /* mkdir -p, private to the user */
    char walk[512];
    snprintf(walk, sizeof walk, "%s", base);
    for (char *p = walk + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(walk, 0700);
            *p = '/';
        }
    }
    if (mkdir(walk, 0700) != 0 && errno != EEXIST)
        return -1;
    if ((size_t)snprintf(out, len, "%s/tokens", base) >= len)
        return -1;
    return 0;
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
    char path[600], line[LINE_BYTES];
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
    char path[600], tmp[640], line[LINE_BYTES];
    if (store_path(dir, path, sizeof path) != 0)
        return;
    snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
    mode_t old = umask(077);
    FILE *out = fopen(tmp, "w");
    umask(old);
    if (!out)
        return;
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
