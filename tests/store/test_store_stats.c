/*
 * test_store_stats.c — the end of a game and players' statistics: wins,
 * losses, draws, streaks (docs/rules.md: a win adds one, a loss resets to zero, a
 * draw leaves it), several winners each credited, abandoned games counting
 * for nobody, an ended game never counted twice, the leaderboard's order.
 */
#include "store_test.h"

static int next_game = 1;

/* A two-seat game between a and b, ended now: result 'a' (a won), 'b', 'd'
 * (draw) or 'x' (abandoned). */
static void play_as(store *s, const char *a, int64_t acct_a, const char *b, int64_t acct_b,
                    char result)
{
    char id[16];
    snprintf(id, sizeof id, "%d", next_game++);
    make_game(s, id, "sungka", 2);
    assert_ok(s, store_game_status(s, id, STORE_RUNNING, 1000));
    const char *names[2] = { a, b };
    int64_t accounts[2] = { acct_a, acct_b };
    int scores[2] = { 49, 49 };
    int winners[1] = { result == 'a' ? 0 : 1 };
    int n_winners = result == 'a' || result == 'b' ? 1 : 0;
    if (result == 'a')
        scores[0] = 60, scores[1] = 38;
    else if (result == 'b')
        scores[0] = 30, scores[1] = 68;
    assert_ok(s, store_game_finish(s, id, result == 'x' ? STORE_ABANDONED : STORE_FINISHED,
                                   result == 'x' ? "b left" : "by the rules", 2, names,
                                   accounts, scores, winners, n_winners, 2000 + next_game));
}

/* The same between two guests. */
static void play(store *s, const char *a, const char *b, char result)
{
    play_as(s, a, 0, b, 0, result);
}

static void expect(store *s, const char *name, int played, int wins, int losses, int draws,
                   int streak, int best)
{
    store_stats st;
    memset(&st, 0x55, sizeof st);
    assert_ok(s, store_player_stats(s, name, &st));
    assert_string_equal(st.name, name);
    assert_int_equal(st.played, played);
    assert_int_equal(st.wins, wins);
    assert_int_equal(st.losses, losses);
    assert_int_equal(st.draws, draws);
    assert_int_equal(st.streak, streak);
    assert_int_equal(st.best_streak, best);
}

static void test_streaks(void **state)
{
    (void)state;
    store *s = open_memory();
    expect(s, "ana", 0, 0, 0, 0, 0, 0);       /* never seen: zeros, not an error */

    play(s, "ana", "ben", 'a');                /* ana win */
    expect(s, "ana", 1, 1, 0, 0, 1, 1);
    expect(s, "ben", 1, 0, 1, 0, 0, 0);
    play(s, "ben", "ana", 'b');                /* ana win */
    expect(s, "ana", 2, 2, 0, 0, 2, 2);
    play(s, "ana", "ben", 'd');                /* draw: streak unchanged */
    expect(s, "ana", 3, 2, 0, 1, 2, 2);
    expect(s, "ben", 3, 0, 2, 1, 0, 0);
    play(s, "ana", "ben", 'x');                /* abandoned: counts for nobody */
    expect(s, "ana", 3, 2, 0, 1, 2, 2);
    expect(s, "ben", 3, 0, 2, 1, 0, 0);
    play(s, "ana", "ben", 'b');                /* loss: streak to zero */
    expect(s, "ana", 4, 2, 1, 1, 0, 2);
    expect(s, "ben", 4, 1, 2, 1, 1, 1);
    play(s, "ana", "ben", 'a');                /* win: streak 1, best stays 2 */
    expect(s, "ana", 5, 3, 1, 1, 1, 2);
    expect(s, "ben", 5, 1, 3, 1, 0, 1);
    /* A draw for a new player starts at zeros. */
    play(s, "cy", "dee", 'd');
    expect(s, "cy", 1, 0, 0, 1, 0, 0);
    store_close(s);
}

static void test_several_winners(void **state)
{
    (void)state;
    store *s = open_memory();
    make_game(s, "7", "congklak", 4);
    const char *names[4] = { "p0", "p1", "p2", "p3" };
    int scores[4] = { 30, 10, 30, 20 };
    int winners[2] = { 2, 0 };
    assert_ok(s, store_game_finish(s, "7", STORE_FINISHED, "tie for first", 4, names, NULL, scores,
                                   winners, 2, 5000));
    expect(s, "p0", 1, 1, 0, 0, 1, 1);
    expect(s, "p1", 1, 0, 1, 0, 0, 0);
    expect(s, "p2", 1, 1, 0, 0, 1, 1);
    expect(s, "p3", 1, 0, 1, 0, 0, 0);

    /* Everyone tied: no winner is a draw for all four. */
    make_game(s, "8", "congklak", 4);
    assert_ok(s, store_game_finish(s, "8", STORE_FINISHED, "all equal", 4, names, NULL, NULL,
                                   NULL, 0, 6000));
    expect(s, "p0", 2, 1, 0, 1, 1, 1);
    expect(s, "p3", 2, 0, 1, 1, 0, 0);
    store_close(s);
}

static void test_finish_refusals(void **state)
{
    (void)state;
    store *s = open_memory();
    make_game(s, "1", "sungka", 2);
    const char *names[2] = { "ana", "ben" };
    const char *same[2] = { "ana", "ana" };
    int w0[1] = { 0 }, w9[1] = { 9 }, w00[2] = { 0, 0 };

    assert_int_equal(store_game_finish(s, "nope", STORE_FINISHED, "", 2, names, NULL, NULL, w0, 1, 1), -1);
    assert_non_null(strstr(store_last_error(s), "no such game"));
    const char *three[3] = { "ana", "ben", "cy" };
    assert_int_equal(store_game_finish(s, "1", STORE_FINISHED, "", 3, three, NULL, NULL, w0, 1, 1), -1);
    assert_non_null(strstr(store_last_error(s), "has 2 seats, not 3"));
    assert_int_equal(store_game_finish(s, "1", STORE_RUNNING, "", 2, names, NULL, NULL, w0, 1, 1), -1);
    assert_int_equal(store_game_finish(s, "1", STORE_FINISHED, "", 2, names, NULL, NULL, w9, 1, 1), -1);
    assert_int_equal(store_game_finish(s, "1", STORE_FINISHED, "", 2, names, NULL, NULL, w00, 2, 1), -1);
    assert_int_equal(store_game_finish(s, "1", STORE_FINISHED, "", 2, same, NULL, NULL, w0, 1, 1), -1);
    char long_reason[STORE_REASON_BYTES + 10];
    memset(long_reason, 'r', sizeof long_reason - 1);
    long_reason[sizeof long_reason - 1] = '\0';
    assert_int_equal(store_game_finish(s, "1", STORE_FINISHED, long_reason, 2, names, NULL, NULL, w0,
                                       1, 1), -1);
    assert_non_null(strstr(store_last_error(s), "longer"));
    /* None of that left a trace. */
    expect(s, "ana", 0, 0, 0, 0, 0, 0);

    assert_ok(s, store_game_finish(s, "1", STORE_FINISHED, "done", 2, names, NULL, NULL, w0, 1, 1));
    /* Twice would count twice: refused, statistics unchanged. */
    assert_int_equal(store_game_finish(s, "1", STORE_FINISHED, "again", 2, names, NULL, NULL, w0, 1, 2), -1);
    assert_non_null(strstr(store_last_error(s), "already ended"));
    expect(s, "ana", 1, 1, 0, 0, 1, 1);
    /* And its status cannot be set back. */
    assert_int_equal(store_game_status(s, "1", STORE_RUNNING, 5), -1);
    store_close(s);
}

/* A failure in the middle of store_game_finish leaves nothing half-done. A
 * trigger planted behind the store's back (plain SQLite, or plain SQL on
 * PostgreSQL) makes the second player's statistics fail after the status,
 * the results and the first player's statistics have been written. */
static void test_finish_is_atomic(void **state)
{
    (void)state;
    char dir[256], path[300], err[512];
    scratch_dir(dir);
    test_db_path(dir, "t.db", path, sizeof path);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    make_game(s, "1", "sungka", 2);
    assert_ok(s, store_participant_put(s, "1", 1, "ana", 0, "tok-a", true));
    store_close(s);
    test_sql_exec(path,
                  "CREATE TRIGGER boom BEFORE INSERT ON players"
                  " WHEN NEW.name = 'ben' BEGIN"
                  " SELECT RAISE(ABORT, 'boom'); END",
                  "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS"
                  " $$ BEGIN IF NEW.name = 'ben' THEN RAISE EXCEPTION 'boom'; END IF;"
                  " RETURN NEW; END $$;"
                  "CREATE TRIGGER boom BEFORE INSERT ON players"
                  " FOR EACH ROW EXECUTE FUNCTION boom()");
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);

    const char *names[2] = { "ana", "ben" };
    int w[1] = { 0 };
    assert_int_equal(store_game_finish(s, "1", STORE_FINISHED, "x", 2, names, NULL, NULL, w, 1, 9), -1);
    print_message("finish failed: %s\n", store_last_error(s));
    assert_non_null(strstr(store_last_error(s), "boom"));
    expect(s, "ana", 0, 0, 0, 0, 0, 0);
    store_match_summary m;
    store_move *mv;
    int n;
    assert_int_equal(store_match(s, "1", &m, &mv, &n), 0);
    assert_int_equal(m.game.status, STORE_WAITING);
    assert_int_equal(m.game.ended_ms, 0);
    assert_int_equal(m.n_seats, 0);
    free(mv);
    /* The participants are still there too (nothing of the finish happened). */
    const char *count = "SELECT count(*) FROM participants";
    assert_int_equal(test_sql_int(path, count, count), 1);

    /* Inside the caller's transaction a failed finish undoes only itself. */
    assert_ok(s, store_begin(s));
    assert_ok(s, store_move_append(s, "1", 0, 0, 3, 100));
    assert_int_equal(store_game_finish(s, "1", STORE_FINISHED, "x", 2, names, NULL, NULL, w, 1, 9), -1);
    assert_ok(s, store_commit(s));
    assert_int_equal(store_match(s, "1", &m, &mv, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(m.game.status, STORE_WAITING);
    free(mv);

    /* A finish inside a transaction is visible in it and gone with its rollback. */
    const char *other[2] = { "ana", "cy" };
    assert_ok(s, store_begin(s));
    assert_ok(s, store_game_finish(s, "1", STORE_FINISHED, "x", 2, other, NULL, NULL, w, 1, 9));
    expect(s, "ana", 1, 1, 0, 0, 1, 1);
    assert_ok(s, store_rollback(s));
    expect(s, "ana", 0, 0, 0, 0, 0, 0);
    store_close(s);
    scratch_remove(dir);
}

static void test_leaderboard(void **state)
{
    (void)state;
    store *s = open_memory();
    play(s, "zoe", "dan", 'a');
    play(s, "zoe", "dan", 'a');
    play(s, "zoe", "dan", 'a');
    play(s, "amy", "dan", 'a');
    play(s, "amy", "dan", 'a');
    play(s, "cat", "dan", 'a');
    play(s, "cat", "dan", 'b');
    play(s, "cat", "dan", 'a');
    play(s, "bob", "dan", 'a');
    play(s, "bob", "dan", 'd');
    play(s, "bob", "dan", 'b');
    play(s, "bob", "dan", 'a');

    play(s, "eve", "dan", 'd');
    /* Only accounts are ranked: these claim the rows played under their
     * names; gus stays a guest, however much he wins. */
    const char *ranked[] = { "zoe", "amy", "bob", "cat", "dan", "eve" };
    int64_t ids[6];
    for (int i = 0; i < 6; i++) {
        bool claimed = false;
        ids[i] = make_account(s, ranked[i], &claimed);
        assert_true(claimed);
    }
    for (int i = 0; i < 5; i++)
        play_as(s, "gus", 0, "eve", ids[5], 'a');
    play_as(s, "eve", ids[5], "dan", ids[4], 'd');    /* again, as accounts now */
    /* A guest's result under an account's name counts for nobody. */
    play(s, "zoe", "gus", 'b');

    /* zoe 3 wins; amy 2 (best 2); bob, cat and dan 2 (best 1), by name;
     * eve none. */
    store_stats top[10];
    int n = -1;
    assert_ok(s, store_leaderboard(s, 10, NULL, top, &n));
    assert_int_equal(n, 6);
    const char *order[] = { "zoe", "amy", "bob", "cat", "dan", "eve" };
    for (int i = 0; i < 6; i++)
        assert_string_equal(top[i].name, order[i]);
    assert_int_equal(top[0].wins, 3);
    assert_int_equal(top[1].wins, 2);
    assert_int_equal(top[1].best_streak, 2);
    for (int i = 2; i < 5; i++) {
        assert_int_equal(top[i].wins, 2);
        assert_int_equal(top[i].best_streak, 1);
    }
    assert_int_equal(top[2].draws, 1);
    assert_int_equal(top[4].played, 14);
    assert_int_equal(top[4].losses, 9);
    assert_int_equal(top[4].draws, 3);
    assert_int_equal(top[5].wins, 0);
    assert_int_equal(top[5].losses, 5);
    for (int i = 0; i < 6; i++)
        assert_true(top[i].account_id > 0);
    store_stats gus;
    assert_ok(s, store_player_stats(s, "gus", &gus));
    assert_int_equal(gus.wins, 6);      /* five against eve, one against "zoe" */
    assert_int_equal(gus.account_id, 0);

    assert_ok(s, store_leaderboard(s, 2, NULL, top, &n));
    assert_int_equal(n, 2);
    assert_string_equal(top[1].name, "amy");
    assert_int_equal(store_leaderboard(s, 0, NULL, top, &n), -1);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streaks),
        cmocka_unit_test(test_several_winners),
        cmocka_unit_test(test_finish_refusals),
        cmocka_unit_test(test_finish_is_atomic),
        cmocka_unit_test(test_leaderboard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
