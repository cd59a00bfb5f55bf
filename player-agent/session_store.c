/*
 * session_store.c — the saved-session file (session_store.h): one line per
 * server, "server<TAB>name<TAB>token". Rewritten whole on every change,
 * through a private temporary file and rename, so a crash never leaves half
 * a file and the token is never in a file anyone else can read.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session_store.h"
#include "xdg.h"

#define LINE_BYTES 1024

static int file_path(const char *dir, char *out, size_t len)
{
    return xdg_state_file(dir, "sessions", out, len);
}

/* Does line belong to server? */
static bool of_server(const char *line, const char *server)
{
    size_t n = strlen(server);
    return strncmp(line, server, n) == 0 && line[n] == '\t';
}

int session_store_find(const char *dir, const char *server, char *name, size_t name_len,
                       char *token, size_t token_len)
{
    char path[PATH_MAX], line[LINE_BYTES];
    if (file_path(dir, path, sizeof path) != 0)
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int found = -1;
    while (found != 0 && fgets(line, sizeof line, f)) {
        if (!of_server(line, server))
            continue;
        line[strcspn(line, "\n")] = '\0';
        char *n = line + strlen(server) + 1;
        char *tab = strchr(n, '\t');
        if (!tab || !tab[1])
            continue;
        *tab = '\0';
        snprintf(name, name_len, "%s", n);
        snprintf(token, token_len, "%s", tab + 1);
        found = 0;
    }
    memset(line, 0, sizeof line);
    fclose(f);
    return found;
}

/* Copy every other server's line, then add `add` (may be NULL). */
static int rewrite(const char *dir, const char *server, const char *add)
{
    char path[PATH_MAX], tmp[PATH_MAX + 16], line[LINE_BYTES];
    if (file_path(dir, path, sizeof path) != 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
    unlink(tmp);                  /* a stale one from a run that died here */
    int fd = xdg_create_private(tmp);
    if (fd < 0)
        return -1;
    FILE *out = fdopen(fd, "w");
    if (!out) {
        close(fd);
        unlink(tmp);
        return -1;
    }
    FILE *in = fopen(path, "r");
    if (in) {
        while (fgets(line, sizeof line, in))
            if (!of_server(line, server))
                fputs(line, out);
        fclose(in);
    }
    if (add)
        fputs(add, out);
    memset(line, 0, sizeof line);
    if (fclose(out) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int session_store_put(const char *dir, const char *server, const char *name, const char *token)
{
    char line[LINE_BYTES];
    if (strpbrk(server, "\t\n") || strpbrk(name, "\t\n") || strpbrk(token, "\t\n"))
        return -1;
    if ((size_t)snprintf(line, sizeof line, "%s\t%s\t%s\n", server, name, token) >= sizeof line)
        return -1;
    int rc = rewrite(dir, server, line);
    memset(line, 0, sizeof line);
    return rc;
}

void session_store_drop(const char *dir, const char *server)
{
    rewrite(dir, server, NULL);
}
