/*
 * endgame_cache.c — the file half of Kalah's endgame table (endgame_cache.h):
 * read and check a cached table, or build one with kalah_db.h and write it
 * atomically (temporary file, fsync, rename).
 */
#include "endgame_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xdg.h"

#define MAGIC "SUNGKADB"
#define FORMAT_VERSION 1u

typedef struct file_header {
    char magic[8];
    uint32_t version, cups, max_seeds, reserved;
    uint64_t entries, checksum;
} file_header;

_Static_assert(sizeof(file_header) == 40, "the header has no padding");

static uint64_t fnv1a(const int8_t *data, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)data[i]) * 0x100000001b3ull;
    return h;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

static bool write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static void header_of(file_header *h, int cups, int max_seeds, size_t entries, uint64_t sum)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, MAGIC, sizeof h->magic);
    h->version = FORMAT_VERSION;
    h->cups = (uint32_t)cups;
    h->max_seeds = (uint32_t)max_seeds;
    h->entries = entries;
    h->checksum = sum;
}

/* The table from `path` into margin (entries bytes), if the file is ours,
 * whole and of this size. */
static bool load(const char *path, int cups, int max_seeds, int8_t *margin, size_t entries)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    file_header h, want;
    bool ok = read_all(fd, &h, sizeof h);
    header_of(&want, cups, max_seeds, entries, ok ? h.checksum : 0);
    ok = ok && memcmp(&h, &want, sizeof h) == 0 && read_all(fd, margin, entries);
    char extra;
    ok = ok && read(fd, &extra, 1) == 0;     /* nothing after the table */
    close(fd);
    return ok && fnv1a(margin, entries) == h.checksum;
}

static bool save(const char *path, int cups, int max_seeds, const int8_t *margin,
                 size_t entries)
{
    char tmp[600];
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof tmp)
        return false;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    file_header h;
    header_of(&h, cups, max_seeds, entries, fnv1a(margin, entries));
    bool ok = write_all(fd, &h, sizeof h) && write_all(fd, margin, entries) && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, path) == 0)
        return true;
    unlink(tmp);
    return false;
}

int endgame_cache_kalah(int cups, int max_seeds, const char *dir, const volatile int *stop,
                        game_kalah_db *out, endgame_cache_info *info, char *err, size_t errlen)
{
    endgame_cache_info scratch;
    if (!info)
        info = &scratch;
    memset(info, 0, sizeof *info);
    size_t entries = game_kalah_db_entries(cups, max_seeds);
    if (entries == 0 || !out) {
        snprintf(err, errlen, "no Kalah endgame table for %d pits and %d seeds", cups, max_seeds);
        return -1;
    }
    int8_t *margin = malloc(entries);
    if (!margin) {
        snprintf(err, errlen, "out of memory for a %zu-byte endgame table", entries);
        return -1;
    }
    char where[512] = "";
    if (dir)
        snprintf(where, sizeof where, "%s", dir);
    bool have_dir = dir ? xdg_make_dirs(where) == 0
                        : xdg_sungka_dir(XDG_CACHE, true, where, sizeof where) == 0;
    if (have_dir && snprintf(info->path, sizeof info->path, "%s/kalah-%d-%d.tbl", where, cups,
                             max_seeds) >= (int)sizeof info->path)
        have_dir = false;
    if (!have_dir)
        info->path[0] = '\0';

    double t0 = now_s();
    if (!have_dir || !load(info->path, cups, max_seeds, margin, entries)) {
        if (game_kalah_db_build(cups, max_seeds, margin, stop) != 0) {
            free(margin);
            snprintf(err, errlen, "the endgame table's build was stopped");
            return -1;
        }
        info->built = true;
        info->saved = have_dir && save(info->path, cups, max_seeds, margin, entries);
    }
    info->seconds = now_s() - t0;
    *out = (game_kalah_db){
        .cups = cups, .max_seeds = max_seeds, .entries = entries, .margin = margin};
    return 0;
}

void endgame_cache_free(game_kalah_db *db)
{
    if (!db)
        return;
    free((void *)db->margin);
    memset(db, 0, sizeof *db);
}
