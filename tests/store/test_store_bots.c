/*
 * test_store_bots.c — the service's own bots are remembered with their
 * level: recovery names them (right after their participant) so that they
 * can be started again; people are not named; the mark survives updates of
 * the participant; an ended game forgets them. A file of schema version 1
 * (before bots were remembered) is brought up to date with its participants.
 */
#include <sqlite3.h>

#include "store_test.h"

typedef struct seen {
    char order[16][24];        /* "p:ID" for a participant, "b:ID:LEVEL" for a bot */
    int n;
} seen;

static void on_person(void *u, const char *game, unsigned id, const char *name, int seat,
                      const char *token, bool ready)
{
    (void)game, (void)name, (void)seat, (void)token, (void)ready;
    seen *s = u;
    assert_true(s->n < 16);
    snprintf(s->order[s->n++], sizeof s->order[0], "p:%u", id);
}

static void on_bot(void *u, const char *game, unsigned id, int level)
{
    (void)game;
    seen *s = u;
    assert_true(s->n < 16);
    snprintf(s->order[s->n++], sizeof s->order[0], "b:%u:%d", id, level);
}

static const store_recovery_cb callbacks = {NULL, on_person, NULL, on_bot, NULL};

static store *reopen(store *s, const char *path)
{
    char err[512];
    store_close(s);
    if (store_open(path, &s, err, sizeof err) != 0)
        fail_msg("store_open: %s", err);
    return s;
}

static void test_bots_come_back(void **state)
{
    (void)state;
    char dir[256], path[300], err[512];
    scratch_dir(dir);
    test_db_path(dir, "b.db", path, sizeof path);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    make_game(s, "1", "kalah", 2);
    assert_ok(s, store_participant_put(s, "1", 1, "bot-1", 1, "aaaa", false));
    assert_ok(s, store_participant_bot(s, "1", 1, 7));
    assert_ok(s, store_participant_put(s, "1", 1, "bot-1", 1, "aaaa", true));  /* keeps it */
    assert_ok(s, store_participant_put(s, "1", 2, "me", 0, "bbbb", true));
    assert_ok(s, store_participant_put(s, "1", 3, "was-bot", -1, "cccc", false));
    assert_ok(s, store_participant_bot(s, "1", 3, 2));
    assert_ok(s, store_participant_bot(s, "1", 3, 0));                        /* a person */
    assert_int_equal(store_participant_bot(s, "1", 9, 3), -1);
    assert_non_null(strstr(store_last_error(s), "no participant 9"));
    assert_int_equal(store_participant_bot(s, "1", 1, 11), -1);
    make_game(s, "2", "kalah", 2);
    assert_ok(s, store_participant_put(s, "2", 1, "bot-1", 1, "dddd", false));
    assert_ok(s, store_participant_bot(s, "2", 1, 4));
    const char *names[] = {"x", "bot-1"};
    int winners[] = {0};
    assert_ok(s, store_game_finish(s, "2", STORE_FINISHED, "done", 2, names, NULL, NULL, winners, 1,
                                   99));
    assert_ok(s, store_game_forget(s, "2"));      /* the service let go of it */
    s = reopen(s, path);

    seen got = {0};
    unsigned max_id;
    assert_ok(s, store_recover(s, &callbacks, &got, &max_id));
    assert_int_equal(got.n, 4);
    assert_string_equal(got.order[0], "p:1");
    assert_string_equal(got.order[1], "b:1:7");
    assert_string_equal(got.order[2], "p:2");
    assert_string_equal(got.order[3], "p:3");
    /* Without a bot callback, bots are participants like any other. */
    store_recovery_cb old = {NULL, on_person, NULL, NULL, NULL};
    got.n = 0;
    assert_ok(s, store_recover(s, &old, &got, &max_id));
    assert_int_equal(got.n, 3);
    store_close(s);
    scratch_remove(dir);
}

static void test_version_1_file_migrates(void **state)
{
    (void)state;
    char dir[256], path[300], err[512];
    skip_on_pg("PostgreSQL databases begin at the current schema: there is no schema 1 "
               "to come from");
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/v1.db", dir);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    make_game(s, "5", "kalah", 2);
    assert_ok(s, store_participant_put(s, "5", 1, "ana", 0, "aaaa", true));
    store_close(s);
    /* Make it what a service before bots were remembered left behind. */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "ALTER TABLE participants DROP COLUMN bot_level;"
                                      STORE_TEST_BACK_TO_2 "PRAGMA user_version = 1", NULL, NULL,
                                  NULL), SQLITE_OK);
    sqlite3_close(db);

    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    seen got = {0};
    unsigned max_id;
    assert_ok(s, store_recover(s, &callbacks, &got, &max_id));
    assert_int_equal(got.n, 1);
    assert_string_equal(got.order[0], "p:1");
    assert_ok(s, store_participant_bot(s, "5", 1, 3));
    store_close(s);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), STORE_TEST_VERSION);   /* and every later one */
    sqlite3_finalize(st);
    sqlite3_close(db);
    scratch_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bots_come_back),
        cmocka_unit_test(test_version_1_file_migrates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
