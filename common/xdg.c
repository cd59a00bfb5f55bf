/*
 * xdg.c — XDG base directories and private files (see xdg.h).
 */
#include "xdg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *env;
    const char *fallback;        /* under $HOME */
} kinds[] = {
    [XDG_DATA] = {"XDG_DATA_HOME", ".local/share"},
    [XDG_STATE] = {"XDG_STATE_HOME", ".local/state"},
    [XDG_CONFIG] = {"XDG_CONFIG_HOME", ".config"},
    [XDG_CACHE] = {"XDG_CACHE_HOME", ".cache"},
};

int xdg_sungka_dir(xdg_kind kind, bool create, char *out, size_t len)
{
    const char *base = getenv(kinds[kind].env);
    int n;
    if (base && base[0] == '/') {
        n = snprintf(out, len, "%s/sungka", base);
    } else {
        const char *home = getenv("HOME");
        struct passwd pw, *found = NULL;
        char buf[4096];
        if ((!home || !home[0]) && getpwuid_r(getuid(), &pw, buf, sizeof buf, &found) == 0 &&
            found)
            home = found->pw_dir;
        if (!home || !home[0]) {
            errno = ENOENT;
            return -1;
        }
        n = snprintf(out, len, "%s/%s/sungka", home, kinds[kind].fallback);
    }
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return create ? xdg_make_dirs(out) : 0;
}

int xdg_default_db(bool create, char *out, size_t len)
{
    char dir[4096];
    if (xdg_sungka_dir(XDG_DATA, create, dir, sizeof dir) != 0)
        return -1;
    int n = snprintf(out, len, "%s/sungka.db", dir);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int xdg_beside_program(const char *name, char *out, size_t len)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    int w = snprintf(out, len, "%s/%s", self, name);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

int xdg_make_dirs(const char *path)
{
    char walk[4096];
    if ((size_t)snprintf(walk, sizeof walk, "%s", path) >= sizeof walk) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* Each prefix in turn; only the last one's failure matters (a parent
     * may exist already, or belong to someone else and still be usable). */
    for (char *p = walk + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(walk, 0700);
            *p = '/';
        }
    }
    if (mkdir(walk, 0700) != 0 && errno != EEXIST)
        return -1;
    struct stat st;
    if (stat(walk, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

int xdg_create_private(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    /* The umask may have taken bits away, never added them; make it exact. */
    if (fd >= 0 && fchmod(fd, 0600) != 0) {
        int saved = errno;
        close(fd);
        unlink(path);
        errno = saved;
        return -1;
    }
    return fd;
}

int xdg_state_file(const char *dir, const char *name, char *out, size_t len)
{
    char base[PATH_MAX];
    if (dir && !*dir)
        return -1;
    if (dir) {
        if ((size_t)snprintf(base, sizeof base, "%s", dir) >= sizeof base ||
            xdg_make_dirs(base) != 0)
            return -1;
    } else if (xdg_sungka_dir(XDG_STATE, true, base, sizeof base) != 0) {
        return -1;
    }
    return (size_t)snprintf(out, len, "%s/%s", base, name) < len ? 0 : -1;
}
