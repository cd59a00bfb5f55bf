/*
 * test_store_history.c — the match history: games created, played move by
 * move and ended come back from store_matches (newest first, filtered by
 * player and by kind) and store_match (every field, the moves in order);
 * a tournament's game says its tournament, also in a file from before
 * games had one (schema 13), whose games say none.
 */
#include "store_test.h"

/* Game id with seats names[], n_moves moves (seat i % seats plays 100 + i at
 * 10 * i ms), ended at end_ms: won by seat `winner`, or abandoned when -1. */
static void played_game(store *s, const char *id, const char *kind, int seats,
                        const char *const *names, int n_moves, int winner, int64_t end_ms)
{
    make_game(s, id, kind, seats);
    for (int i = 0; i < seats; i++)
        assert_ok(s, store_participant_put(s, id, (unsigned)i + 1, names[i], i, "tok", true));
    assert_ok(s, store_game_status(s, id, STORE_RUNNING, end_ms - 1000));
    for (int i = 0; i < n_moves; i++) {
        assert_ok(s, store_begin(s));
        assert_ok(s, store_event_append(s, id, (uint64_t)i + 1, 10 * i, 0, 0, 1, "ev", 2));
        assert_ok(s, store_move_append(s, id, i, i % seats, 100 + i, 10 * i));
        assert_ok(s, store_commit(s));
    }
    int scores[6] = { 0 };
    for (int i = 0; i < seats; i++)
        scores[i] = 10 * (i + 1);
    int w[1] = { winner };
    assert_ok(s, store_game_finish(s, id, winner < 0 ? STORE_ABANDONED : STORE_FINISHED,
                                   winner < 0 ? "ben left and did not come back" : "by the rules",
                                   seats, names, NULL, scores, w, winner < 0 ? 0 : 1, end_ms));
}

static void test_round_trip(void **state)
{
    (void)state;
    store *s = open_memory();
    const char *ab[2] = { "ana", "ben" };
    const char *bc[2] = { "ben", "cy" };
    const char *abcd[4] = { "ana", "ben", "cy", "dee" };
    played_game(s, "1", "sungka", 2, ab, 5, 1, 10000);
    played_game(s, "2", "kalah", 2, bc, 3, 0, 30000);
    played_game(s, "3", "sungka", 2, ab, 4, -1, 20000);       /* abandoned */
    played_game(s, "4", "congklak", 4, abcd, 8, 2, 40000);
    make_game(s, "5", "sungka", 2);                            /* still waiting */
    assert_ok(s, store_participant_put(s, "5", 1, "ana", 0, "tok", false));

    store_match_summary *list;
    int n;
    assert_ok(s, store_matches(s, NULL, NULL, 10, NULL, &list, &n));
    assert_int_equal(n, 4);                                    /* no waiting game */
    assert_string_equal(list[0].game.id, "4");                 /* newest end first */
    assert_string_equal(list[1].game.id, "2");
    assert_string_equal(list[2].game.id, "3");
    assert_string_equal(list[3].game.id, "1");

    const store_match_summary *m = &list[0];
    assert_string_equal(m->game.kind, "congklak");
    assert_string_equal(m->game.title, "congklak game 4");
    assert_int_equal(m->game.status, STORE_FINISHED);
    assert_int_equal(m->game.seats, 4);
    assert_true(m->game.autostart);
    assert_int_equal(m->game.created_ms, 1700000000004);
    assert_int_equal(m->game.started_ms, 39000);
    assert_int_equal(m->game.ended_ms, 40000);
    assert_string_equal(m->game.reason, "by the rules");
    assert_int_equal(m->game.n_options, 2);
    assert_string_equal(m->game.options[0].name, "cups");
    assert_int_equal(m->game.options[0].value, 7);
    assert_string_equal(m->game.options[1].name, "stones");
    assert_int_equal(m->game.options[1].value, 5);
    assert_int_equal(m->n_seats, 4);
    for (int i = 0; i < 4; i++) {
        assert_string_equal(m->seat_names[i], abcd[i]);
        assert_int_equal(m->scores[i], 10 * (i + 1));
    }
    assert_int_equal(m->n_winners, 1);
    assert_int_equal(m->winners[0], 2);
    assert_int_equal(m->n_moves, 8);

    m = &list[2];
    assert_int_equal(m->game.status, STORE_ABANDONED);
    assert_string_equal(m->game.reason, "ben left and did not come back");
    assert_int_equal(m->n_winners, 0);
    assert_int_equal(m->n_moves, 4);
    free(list);

    /* Filters. */
    assert_ok(s, store_matches(s, "cy", NULL, 10, NULL, &list, &n));
    assert_int_equal(n, 2);
    assert_string_equal(list[0].game.id, "4");
    assert_string_equal(list[1].game.id, "2");
    free(list);
    assert_ok(s, store_matches(s, NULL, "sungka", 10, NULL, &list, &n));
    assert_int_equal(n, 2);
    assert_string_equal(list[0].game.id, "3");
    assert_string_equal(list[1].game.id, "1");
    free(list);
    assert_ok(s, store_matches(s, "ana", "sungka", 1, NULL, &list, &n));
    assert_int_equal(n, 1);
    assert_string_equal(list[0].game.id, "3");
    free(list);
    assert_ok(s, store_matches(s, "cy", "sungka", 10, NULL, &list, &n));
    assert_int_equal(n, 0);
    assert_null(list);
    assert_ok(s, store_matches(s, "nobody", NULL, 10, NULL, &list, &n));
    assert_int_equal(n, 0);
    assert_int_equal(store_matches(s, NULL, NULL, 0, NULL, &list, &n), -1);

    /* One match with its moves, in order. */
    store_match_summary one;
    store_move *moves;
    int n_moves;
    assert_ok(s, store_match(s, "4", &one, &moves, &n_moves));
    assert_int_equal(n_moves, 8);
    assert_int_equal(one.n_moves, 8);
    assert_string_equal(one.seat_names[3], "dee");
    for (int i = 0; i < 8; i++) {
        assert_int_equal(moves[i].ply, i);
        assert_int_equal(moves[i].seat, i % 4);
        assert_int_equal(moves[i].move, 100 + i);
        assert_int_equal(moves[i].time_ms, 10 * i);
    }
    free(moves);

    /* A game still waiting: found, no seats recorded yet, no moves. */
    assert_ok(s, store_match(s, "5", &one, &moves, &n_moves));
    assert_int_equal(one.game.status, STORE_WAITING);
    assert_int_equal(one.n_seats, 0);
    assert_int_equal(n_moves, 0);
    assert_null(moves);

    /* Not found is 1, not an error. */
    assert_int_equal(store_match(s, "99", &one, &moves, &n_moves), STORE_NOT_FOUND);
    assert_null(moves);
    assert_int_equal(n_moves, 0);
    store_close(s);
}

/* Moves inserted out of order come back by ply; a repeated ply is refused. */
/* Pages of the history (store_page_key): games that end in the same
 * millisecond are told apart by their order, and a page after a key has
 * exactly the rows after it, whatever ends in between. */
static void test_pages(void **state)
{
    (void)state;
    store *s = open_memory();
    const char *ab[2] = { "ana", "ben" };
    const char *ids[] = { "1", "2", "3", "4", "5", "6", "7" };
    for (int i = 0; i < 7; i++)
        played_game(s, ids[i], "kalah", 2, ab, 1, 0, i < 5 ? 10000 : 20000);
    store_match_summary *all, *page;
    int n_all, n;
    assert_ok(s, store_matches(s, NULL, NULL, 100, NULL, &all, &n_all));
    assert_int_equal(n_all, 7);
    const char *want[] = { "7", "6", "5", "4", "3", "2", "1" };   /* ties: the last made first */
    store_page_key key = { .set = false };
    int seen = 0;
    for (int round = 0; round < 10 && seen < 7; round++) {
        assert_ok(s, store_matches(s, NULL, NULL, 2, &key, &page, &n));
        assert_true(n >= 1 && n <= 2);
        for (int i = 0; i < n; i++)
            assert_string_equal(page[i].game.id, want[seen++]);
        key = (store_page_key){ .set = true, .a = page[n - 1].game.ended_ms,
                                .b = page[n - 1].order };
        free(page);
        if (round == 0)   /* a game ending now is newer than every page */
            played_game(s, "8", "kalah", 2, ab, 1, 0, 30000);
    }
    assert_int_equal(seen, 7);
    assert_ok(s, store_matches(s, NULL, NULL, 2, &key, &page, &n));
    assert_int_equal(n, 0);
    free(all);
    store_close(s);
}

static void test_move_order(void **state)
{
    (void)state;
    store *s = open_memory();
    make_game(s, "1", "sungka", 2);
    int plies[] = { 3, 0, 2, 1 };
    int by_ply[] = { 5, 2, 9, 1 };            /* the move played at each ply */
    for (int i = 0; i < 4; i++)
        assert_ok(s, store_move_append(s, "1", plies[i], plies[i] % 2, by_ply[plies[i]], i));
    assert_int_equal(store_move_append(s, "1", 2, 0, 9, 9), -1);
    assert_non_null(strstr(store_last_error(s), "move 2 of game 1"));
    assert_int_equal(store_move_append(s, "1", -1, 0, 9, 9), -1);
    assert_int_equal(store_move_append(s, "1", 4, 6, 9, 9), -1);
    /* An unknown game: the foreign key refuses it. */
    assert_int_equal(store_move_append(s, "2", 0, 0, 1, 1), -1);
    assert_non_null(strcasestr(store_last_error(s), "foreign key"));   /* either database's */

    store_match_summary m;
    store_move *moves;
    int n;
    assert_ok(s, store_match(s, "1", &m, &moves, &n));
    assert_int_equal(n, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(moves[i].ply, i);
        assert_int_equal(moves[i].move, by_ply[i]);
        assert_int_equal(moves[i].seat, i % 2);
    }
    free(moves);
    store_close(s);
}

/* The moves of an ended game, filled at once from its log: plies 0.x
 * stored as rows (per move) keep them, the others are added; a move out of
 * range is refused and, with the caller's transaction rolled back, nothing
 * of the fill is kept. */
static void test_moves_fill(void **state)
{
    (void)state;
    store *s = open_memory();
    make_game(s, "1", "sungka", 2);
    assert_ok(s, store_move_append(s, "1", 0, 0, 4, 7000));       /* as 0.x stored it */
    store_move all[3] = {{.ply = 0, .seat = 0, .move = 4, .time_ms = 10},
                         {.ply = 1, .seat = 1, .move = 8, .time_ms = 20},
                         {.ply = 2, .seat = 0, .move = 2, .time_ms = 30}};
    assert_ok(s, store_begin(s));
    assert_ok(s, store_moves_fill(s, "1", all, 3));
    assert_ok(s, store_commit(s));
    assert_ok(s, store_moves_fill(s, "1", all, 3));      /* again: nothing changes */
    store_match_summary m;
    store_move *moves;
    int n;
    assert_ok(s, store_match(s, "1", &m, &moves, &n));
    assert_int_equal(n, 3);
    assert_int_equal(m.n_moves, 3);
    assert_int_equal(moves[0].time_ms, 7000);            /* the row 0.x wrote */
    for (int i = 1; i < 3; i++) {
        assert_int_equal(moves[i].ply, i);
        assert_int_equal(moves[i].seat, all[i].seat);
        assert_int_equal(moves[i].move, all[i].move);
        assert_int_equal(moves[i].time_ms, all[i].time_ms);
    }
    free(moves);

    make_game(s, "2", "sungka", 2);
    store_move bad[2] = {{.ply = 0, .seat = 1, .move = 3, .time_ms = 1},
                         {.ply = 1, .seat = STORE_MAX_SEATS, .move = 3, .time_ms = 2}};
    assert_ok(s, store_begin(s));
    assert_int_equal(store_moves_fill(s, "2", bad, 2), -1);
    assert_non_null(strstr(store_last_error(s), "move 1 of game 2"));
    assert_ok(s, store_rollback(s));
    assert_ok(s, store_match(s, "2", &m, &moves, &n));
    assert_int_equal(n, 0);
    free(moves);
    assert_int_equal(store_moves_fill(s, "2", NULL, 1), -1);
    store_close(s);
}

static void test_bad_input(void **state)
{
    (void)state;
    store *s = open_memory();
    store_game_info g;
    memset(&g, 0, sizeof g);
    assert_int_equal(store_game_create(s, &g), -1);             /* empty id */
    assert_non_null(strstr(store_last_error(s), "game id is empty"));
    snprintf(g.id, sizeof g.id, "1");
    snprintf(g.kind, sizeof g.kind, "sungka");
    g.seats = 2;
    g.status = STORE_WAITING;
    g.n_options = 9;
    assert_int_equal(store_game_create(s, &g), -1);
    g.n_options = 0;
    g.seats = 7;
    assert_int_equal(store_game_create(s, &g), -1);
    g.seats = 2;
    g.status = 5;
    assert_int_equal(store_game_create(s, &g), -1);
    g.status = STORE_WAITING;
    memset(g.title, 't', sizeof g.title);                       /* not terminated */
    assert_int_equal(store_game_create(s, &g), -1);
    assert_non_null(strstr(store_last_error(s), "title is longer"));
    g.title[0] = '\0';
    assert_ok(s, store_game_create(s, &g));

    char long_name[200];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_int_equal(store_participant_put(s, "1", 1, long_name, 0, "t", false), -1);
    assert_int_equal(store_participant_put(s, "1", 1, NULL, 0, "t", false), -1);
    assert_int_equal(store_participant_put(s, NULL, 1, "ana", 0, "t", false), -1);
    assert_int_equal(store_participant_put(s, "1", 1, "ana", 6, "t", false), -1);
    assert_int_equal(store_participant_put(s, "0123456789abcdef", 1, "ana", 0, "t", false), -1);
    assert_int_equal(store_event_append(s, "1", 1, 0, 0, 0, 1, NULL, 5), -1);
    assert_int_equal(store_event_append(s, "1", UINT64_MAX, 0, 0, 0, 1, "x", 1), -1);
    assert_int_equal(store_game_status(s, "1", STORE_FINISHED, 0), -1);
    assert_int_equal(store_game_status(s, "nope", STORE_RUNNING, 0), -1);
    assert_non_null(strstr(store_last_error(s), "no such game"));
    store_stats st;
    assert_int_equal(store_player_stats(s, "", &st), -1);
    assert_int_equal(store_player_stats(s, long_name, &st), -1);
    store_close(s);
}

/* A game a tournament made carries its id through store_matches and
 * store_match; another game carries "". */
static void test_tournament_of_a_game(void **state)
{
    (void)state;
    store *s = open_memory();
    store_game_info g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "7");
    snprintf(g.kind, sizeof g.kind, "kalah");
    snprintf(g.tournament_id, sizeof g.tournament_id, "t3");
    g.seats = 2;
    g.status = STORE_WAITING;
    assert_ok(s, store_game_create(s, &g));
    const char *names[2] = { "ana", "ben" };
    int scores[2] = { 3, 1 }, winner[1] = { 0 };
    assert_ok(s, store_game_status(s, "7", STORE_RUNNING, 1000));
    assert_ok(s, store_game_finish(s, "7", STORE_FINISHED, "by the rules", 2, names, NULL,
                                   scores, winner, 1, 2000));
    make_game(s, "8", "kalah", 2);
    store_match_summary *list;
    int n;
    assert_ok(s, store_matches(s, "ana", NULL, 10, NULL, &list, &n));
    assert_int_equal(n, 1);
    assert_string_equal(list[0].game.tournament_id, "t3");
    free(list);
    store_match_summary m;
    store_move *moves;
    int n_moves;
    assert_ok(s, store_match(s, "7", &m, &moves, &n_moves));
    assert_string_equal(m.game.tournament_id, "t3");
    free(moves);
    assert_ok(s, store_match(s, "8", &m, &moves, &n_moves));
    assert_string_equal(m.game.tournament_id, "");
    free(moves);
    store_close(s);
}

/* A file a service of schema 13 left (games without a tournament) is
 * migrated: its games are read, made by no tournament (SQLite only: the
 * other migrations' tests go down the same way). */
static void test_file_before_game_tournaments_migrates(void **state)
{
    (void)state;
    if (test_on_pg())
        skip();
    char dir[256], path[512], err[512];
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/v13.db", dir);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    const char *ab[2] = { "ana", "ben" };
    played_game(s, "1", "sungka", 2, ab, 3, 0, 10000);
    store_close(s);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, STORE_TEST_UNDO_14 "PRAGMA user_version = 13", NULL, NULL,
                                  NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    store_match_summary *list;
    int n;
    assert_ok(s, store_matches(s, NULL, NULL, 10, NULL, &list, &n));
    assert_int_equal(n, 1);
    assert_string_equal(list[0].game.id, "1");
    assert_string_equal(list[0].game.tournament_id, "");
    assert_int_equal(list[0].n_moves, 3);
    free(list);
    store_close(s);
    scratch_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tournament_of_a_game),
        cmocka_unit_test(test_file_before_game_tournaments_migrates),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_pages),
        cmocka_unit_test(test_move_order),
        cmocka_unit_test(test_moves_fill),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
