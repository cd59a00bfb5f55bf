/*
 * web_store.c — one private directory per browser's cookie session
 * (web_store.h says what is kept and why).
 */
#include "web_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "xdg.h"

/* The keyed hashes' contexts: the id is the key, these the messages. */
static const char DIR_CONTEXT[] = "sungka-web session directory";
static const char CSRF_CONTEXT[] = "sungka-web csrf token";

static pthread_mutex_t prune_lock = PTHREAD_MUTEX_INITIALIZER;
static time_t pruned_at;
static long n_sessions;        /* as of the last prune, plus those made since */

static bool id_ok(const char *id)
{
    if (!id || strlen(id) != WEB_STORE_ID_HEX)
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    return true;
}

static void keyed(const char *id, const char *context, char out[WEB_STORE_ID_HEX + 1])
{
    unsigned char key[WEB_STORE_ID_HEX / 2], h[32];
    size_t klen = 0;
    sodium_hex2bin(key, sizeof key, id, strlen(id), NULL, &klen, NULL);
    crypto_generichash(h, sizeof h, (const unsigned char *)context, strlen(context), key, klen);
    sodium_bin2hex(out, WEB_STORE_ID_HEX + 1, h, sizeof h);
    sodium_memzero(key, sizeof key);
}

static int dir_of(const char *root, const char *id, char *out, size_t len)
{
    char name[WEB_STORE_ID_HEX + 1];
    keyed(id, DIR_CONTEXT, name);
    return (size_t)snprintf(out, len, "%s/%s", root, name) < len ? 0 : -1;
}

static void remove_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char f[4096];
            if ((size_t)snprintf(f, sizeof f, "%s/%s", path, e->d_name) < sizeof f)
                unlink(f);
        }
        closedir(d);
    }
    rmdir(path);
}

/* Remove the sessions not used for WEB_STORE_MAX_AGE_S; count the rest. */
static void prune(const char *root)
{
    DIR *d = opendir(root);
    if (!d)
        return;
    time_t now = time(NULL);
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strlen(e->d_name) != WEB_STORE_ID_HEX)
            continue;
        char path[4096];
        struct stat st;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", root, e->d_name) >= sizeof path ||
            lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        if (now - st.st_mtime > WEB_STORE_MAX_AGE_S)
            remove_dir(path);
        else
            n++;
    }
    closedir(d);
    n_sessions = n;
    pruned_at = now;
}

int web_store_open(const char *root, char *err, size_t errlen)
{
    if (sodium_init() < 0) {
        snprintf(err, errlen, "cannot start libsodium");
        return -1;
    }
    if (xdg_make_dirs(root) != 0) {
        snprintf(err, errlen, "cannot make the state directory %s: %s", root, strerror(errno));
        return -1;
    }
    if (access(root, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "cannot write in the state directory %s: %s", root,
                 strerror(errno));
        return -1;
    }
    pthread_mutex_lock(&prune_lock);
    prune(root);
    pthread_mutex_unlock(&prune_lock);
    return 0;
}

int web_store_new(const char *root, char id[WEB_STORE_ID_HEX + 1])
{
    pthread_mutex_lock(&prune_lock);
    if (time(NULL) - pruned_at >= 60)
        prune(root);
    bool full = n_sessions >= WEB_STORE_MAX_SESSIONS;
    if (!full)
        n_sessions++;
    pthread_mutex_unlock(&prune_lock);
    if (full)
        return -1;
    unsigned char rnd[WEB_STORE_ID_HEX / 2];
    randombytes_buf(rnd, sizeof rnd);
    sodium_bin2hex(id, WEB_STORE_ID_HEX + 1, rnd, sizeof rnd);
    sodium_memzero(rnd, sizeof rnd);
    char dir[4096];
    if (dir_of(root, id, dir, sizeof dir) != 0 || mkdir(dir, 0700) != 0)
        return -1;
    return 0;
}

bool web_store_known(const char *root, const char *id, char *dir, size_t dirlen)
{
    char path[4096];
    struct stat st;
    if (!id_ok(id) || dir_of(root, id, path, sizeof path) != 0 || lstat(path, &st) != 0 ||
        !S_ISDIR(st.st_mode))
        return false;
    utimensat(AT_FDCWD, path, NULL, 0);    /* used now: its age starts again */
    if (dir)
        snprintf(dir, dirlen, "%s", path);
    return true;
}

void web_store_csrf(const char *id, char out[WEB_STORE_ID_HEX + 1])
{
    keyed(id, CSRF_CONTEXT, out);
}

bool web_store_csrf_ok(const char *id, const char *token)
{
    char want[WEB_STORE_ID_HEX + 1];
    if (!id_ok(id) || !token || strlen(token) != WEB_STORE_ID_HEX)
        return false;
    web_store_csrf(id, want);
    return sodium_memcmp(want, token, WEB_STORE_ID_HEX) == 0;
}

int web_store_get(const char *dir, const char *file, char *out, size_t len)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
        return -1;
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(out, 1, len - 1, f);
    fclose(f);
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
    return n > 0 ? 0 : -1;
}

int web_store_put(const char *dir, const char *file, const char *text)
{
    char path[4096], tmp[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)gettid());
    unlink(tmp);
    int fd = xdg_create_private(tmp);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    bool ok = write(fd, text, len) == (ssize_t)len && write(fd, "\n", 1) == 1;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

void web_store_drop(const char *dir, const char *file)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) < sizeof path)
        unlink(path);
}
