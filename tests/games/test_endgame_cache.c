/*
 * test_endgame_cache.c — Kalah's endgame table in the XDG cache
 * (games/tools/endgame_cache.h): built and written on first use, read back
 * the same on the next; a damaged or foreign file is rebuilt and replaced;
 * with no directory given the file goes to $XDG_CACHE_HOME/sungka/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "endgame_cache.h"

static char tmp[64];

static int make_tmp(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/sungka-egc-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    return 0;
}

static int remove_tmp(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd);
}

static void built_then_loaded(void **state)
{
    (void)state;
    char err[160] = "";
    game_kalah_db a, b;
    endgame_cache_info ia, ib;
    assert_int_equal(endgame_cache_kalah(4, 9, tmp, NULL, &a, &ia, err, sizeof err), 0);
    assert_true(ia.built && ia.saved);
    char want[128];
    snprintf(want, sizeof want, "%s/kalah-4-9.tbl", tmp);
    assert_string_equal(ia.path, want);
    struct stat sb;
    assert_int_equal(stat(want, &sb), 0);
    assert_int_equal((size_t)sb.st_size, 40 + game_kalah_db_entries(4, 9));

    assert_int_equal(endgame_cache_kalah(4, 9, tmp, NULL, &b, &ib, err, sizeof err), 0);
    assert_false(ib.built);
    assert_int_equal(a.entries, b.entries);
    assert_memory_equal(a.margin, b.margin, a.entries);
    /* It is the table kalah_db.h builds. */
    int8_t *fresh = malloc(a.entries);
    assert_non_null(fresh);
    assert_int_equal(game_kalah_db_build(4, 9, fresh, NULL), 0);
    assert_memory_equal(a.margin, fresh, a.entries);
    free(fresh);
    endgame_cache_free(&b);
    assert_null(b.margin);

    /* One flipped byte in the values: the checksum refuses it, a rebuild
     * replaces it. */
    FILE *f = fopen(want, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 40 + 100, SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, 40 + 100, SEEK_SET), 0);
    fputc(c ^ 0x40, f);
    fclose(f);
    assert_int_equal(endgame_cache_kalah(4, 9, tmp, NULL, &b, &ib, err, sizeof err), 0);
    assert_true(ib.built && ib.saved);
    assert_memory_equal(a.margin, b.margin, a.entries);
    endgame_cache_free(&b);

    /* A stranger's file of the same name and size. */
    f = fopen(want, "wb");
    assert_non_null(f);
    for (long i = 0; i < sb.st_size; i++)
        fputc('x', f);
    fclose(f);
    assert_int_equal(endgame_cache_kalah(4, 9, tmp, NULL, &b, &ib, err, sizeof err), 0);
    assert_true(ib.built);
    assert_memory_equal(a.margin, b.margin, a.entries);
    endgame_cache_free(&b);
    endgame_cache_free(&a);
}

static void xdg_cache_by_default(void **state)
{
    (void)state;
    char cache[96], err[160] = "", want[160];
    snprintf(cache, sizeof cache, "%s/cache", tmp);
    assert_int_equal(setenv("XDG_CACHE_HOME", cache, 1), 0);
    game_kalah_db db;
    endgame_cache_info info;
    assert_int_equal(endgame_cache_kalah(3, 6, NULL, NULL, &db, &info, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/sungka/kalah-3-6.tbl", cache);
    assert_string_equal(info.path, want);
    assert_true(info.saved);
    assert_int_equal(access(want, R_OK), 0);
    endgame_cache_free(&db);
}

static void stopped(void **state)
{
    (void)state;
    char err[160] = "";
    volatile int stop = 1;
    game_kalah_db db = {0};
    assert_int_equal(endgame_cache_kalah(6, 12, tmp, &stop, &db, NULL, err, sizeof err), -1);
    assert_string_equal(err, "the endgame table's build was stopped");
    assert_null(db.margin);
}

static void out_of_range(void **state)
{
    (void)state;
    char err[160] = "";
    game_kalah_db db = {0};
    assert_int_equal(endgame_cache_kalah(9, 6, tmp, NULL, &db, NULL, err, sizeof err), -1);
    assert_string_equal(err, "no Kalah endgame table for 9 pits and 6 seeds");
    assert_null(db.margin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(built_then_loaded),
        cmocka_unit_test(xdg_cache_by_default),
        cmocka_unit_test(stopped),
        cmocka_unit_test(out_of_range),
    };
    return cmocka_run_group_tests(tests, make_tmp, remove_tmp);
}
