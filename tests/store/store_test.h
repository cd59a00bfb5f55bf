/*
 * store_test.h — helpers shared by the store's tests: a scratch directory
 * removed at the end, and a game record filled with plausible values.
 */
#ifndef SUNGKA_STORE_TEST_H
#define SUNGKA_STORE_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <ftw.h>
#include <sys/stat.h>

#include "store.h"

/* mkdtemp under $TMPDIR (or /tmp); the path goes into dir[256]. */
static inline void scratch_dir(char dir[256])
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, 256, "%s/sungka-store-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
}

static inline int remove_entry(const char *path, const struct stat *sb, int flag,
                               struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag == FTW_DP)
        chmod(path, 0700);   /* a directory a test made read-only */
    return remove(path);
}

/* rm -r of a scratch directory. */
static inline void scratch_remove(const char *dir)
{
    char top[256];
    snprintf(top, sizeof top, "%s", dir);
    chmod(top, 0700);
    assert_int_equal(nftw(top, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static inline store *open_memory(void)
{
    store *s = NULL;
    char err[256] = "";
    int rc = store_open(":memory:", &s, err, sizeof err);
    if (rc != 0)
        fail_msg("store_open(:memory:): %s", err);
    assert_non_null(s);
    return s;
}

/* A game `id` of `kind` with `seats` seats, created and stored. */
static inline void make_game(store *s, const char *id, const char *kind, int seats)
{
    store_game_info g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "%s", id);
    snprintf(g.kind, sizeof g.kind, "%s", kind);
    snprintf(g.title, sizeof g.title, "%s game %s", kind, id);
    g.n_options = 2;
    snprintf(g.options[0].name, sizeof g.options[0].name, "cups");
    g.options[0].value = 7;
    snprintf(g.options[1].name, sizeof g.options[1].name, "stones");
    g.options[1].value = 5;
    g.autostart = true;
    g.seats = seats;
    g.status = STORE_WAITING;
    g.created_ms = 1700000000000 + atoi(id);
    if (store_game_create(s, &g) != 0)
        fail_msg("store_game_create(%s): %s", id, store_last_error(s));
}

/* Register an account for name (its key and skeleton the name itself: the
 * store only keeps them); returns its id, and whether it claimed statistics. */
static inline int64_t make_account(store *s, const char *name, bool *claimed)
{
    store_account a = {.created_ms = 1};
    snprintf(a.name, sizeof a.name, "%s", name);
    snprintf(a.name_key, sizeof a.name_key, "%s", name);
    snprintf(a.skeleton, sizeof a.skeleton, "%s", name);
    snprintf(a.password_hash, sizeof a.password_hash, "$argon2id$not-a-real-hash");
    if (store_account_create(s, &a, claimed) != 0)
        fail_msg("store_account_create(%s): %s", name, store_last_error(s));
    return a.id;
}

/* What undoes one migration (store_sqlite.c's migrations[]), to make a file
 * as an older service left it behind and test the way up from there; undo
 * the newest first, then set PRAGMA user_version. */
/* The schema version a fresh file gets (the number of migrations). */
#define STORE_TEST_VERSION 7
#define STORE_TEST_UNDO_7 /* bots taking seats over */ \
    "ALTER TABLE games DROP COLUMN bot_takes_over; ALTER TABLE games DROP COLUMN bot_level;"
#define STORE_TEST_UNDO_6 /* ratings */ \
    "DROP TABLE rating_history; DROP TABLE ratings; DROP TABLE rated_seats;" \
    "ALTER TABLE games DROP COLUMN rated;"
#define STORE_TEST_UNDO_5 /* accounts */ \
    "DROP INDEX players_by_account; DROP INDEX players_ranked;" \
    "ALTER TABLE players DROP COLUMN account_id; ALTER TABLE results DROP COLUMN account_id;" \
    "ALTER TABLE participants DROP COLUMN account_id;" \
    "DROP TABLE sessions; DROP TABLE accounts;"
#define STORE_TEST_UNDO_4 /* time controls */ \
    "ALTER TABLE games DROP COLUMN per_move_ms; ALTER TABLE games DROP COLUMN base_ms;" \
    "ALTER TABLE games DROP COLUMN increment_ms;"
#define STORE_TEST_UNDO_3 /* event formats */ "ALTER TABLE events DROP COLUMN format;"
#define STORE_TEST_BACK_TO_2 STORE_TEST_UNDO_7 STORE_TEST_UNDO_6 STORE_TEST_UNDO_5 STORE_TEST_UNDO_4 STORE_TEST_UNDO_3

#define assert_ok(s, call) \
    do { \
        if ((call) != 0) \
            fail_msg("%s: %s", #call, store_last_error(s)); \
    } while (0)

#endif /* SUNGKA_STORE_TEST_H */
