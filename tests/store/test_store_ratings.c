/*
 * test_store_ratings.c — ratings in the store (issue 16): a newcomer has
 * none, a rated game's end records each player's rating and a history
 * point, the leaderboard puts settled ratings before provisional ones,
 * history comes oldest first within its limit, a rated game's seats come
 * back with recovery, and an older file gains the tables on open.
 */
#include <sqlite3.h>

#include "store_test.h"

static store_rating rating(const char *kind, double r, double rd, int games, int64_t when)
{
    store_rating x = {.rating = r, .rd = rd, .volatility = 0.06, .games = games,
                      .updated_ms = when};
    snprintf(x.kind, sizeof x.kind, "%s", kind);
    return x;
}

static void record_and_read(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t alice = make_account(s, "alice", NULL), bob = make_account(s, "bob", NULL);
    store_rating got;
    assert_int_equal(store_rating_get(s, alice, "kalah", &got), STORE_NOT_FOUND);

    make_game(s, "1", "kalah", 2);
    int64_t who[2] = {alice, bob};
    store_rating before[2] = {rating("kalah", 1500, 350, 0, 0), rating("kalah", 1500, 350, 0, 0)};
    store_rating after[2] = {rating("kalah", 1662.31, 290.32, 1, 1000),
                             rating("kalah", 1337.69, 290.32, 1, 1000)};
    assert_ok(s, store_ratings_record(s, "1", "kalah", 1000, 2, who, before, after));
    assert_int_equal(store_rating_get(s, alice, "kalah", &got), 0);
    assert_true(got.rating == 1662.31 && got.rd == 290.32 && got.games == 1);
    assert_string_equal(got.kind, "kalah");
    assert_int_equal(store_rating_get(s, alice, "sungka", &got), STORE_NOT_FOUND);

    /* A second game: bob wins it back; one point each per game. */
    make_game(s, "2", "kalah", 2);
    store_rating later[2] = {rating("kalah", 1600, 250, 2, 2000), rating("kalah", 1400, 250, 2, 2000)};
    assert_ok(s, store_ratings_record(s, "2", "kalah", 2000, 2, who, after, later));
    store_rating_point *pts = NULL;
    int n = 0;
    assert_ok(s, store_rating_history(s, alice, "kalah", 10, &pts, &n));
    assert_int_equal(n, 2);
    assert_string_equal(pts[0].game_id, "1");          /* oldest first */
    assert_true(pts[0].rating_before == 1500 && pts[0].rating == 1662.31);
    assert_string_equal(pts[1].game_id, "2");
    assert_true(pts[1].rating_before == 1662.31 && pts[1].rating == 1600);
    free(pts);
    assert_ok(s, store_rating_history(s, alice, NULL, 1, &pts, &n));
    assert_int_equal(n, 1);                             /* the newest one */
    assert_string_equal(pts[0].game_id, "2");
    free(pts);

    store_rating all[4];
    assert_ok(s, store_ratings_of(s, bob, all, 4, &n));
    assert_int_equal(n, 1);
    assert_true(all[0].rating == 1400 && all[0].games == 2);

    /* Refused: a seat without an account, an invalid deviation. */
    int64_t nobody[2] = {alice, 0};
    assert_int_equal(store_ratings_record(s, "2", "kalah", 3000, 2, nobody, after, later), -1);
    store_rating bad[2] = {later[0], later[1]};
    bad[1].rd = 0;
    assert_int_equal(store_ratings_record(s, "2", "kalah", 3000, 2, who, after, bad), -1);
    assert_ok(s, store_rating_history(s, bob, "kalah", 10, &pts, &n));
    assert_int_equal(n, 2);                             /* nothing half-written */
    free(pts);
    store_close(s);
}

static void leaderboard_settled_first(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t a = make_account(s, "ann", NULL), b = make_account(s, "ben", NULL),
            c = make_account(s, "cat", NULL);
    make_game(s, "1", "reversi", 2);
    int64_t who[3] = {a, b, c};
    store_rating before[3] = {rating("reversi", 1500, 350, 0, 0), rating("reversi", 1500, 350, 0, 0),
                              rating("reversi", 1500, 350, 0, 0)};
    /* ann is the highest but still provisional; ben and cat are settled. */
    store_rating after[3] = {rating("reversi", 1900, 200, 1, 5), rating("reversi", 1600, 80, 40, 5),
                             rating("reversi", 1700, 100, 30, 5)};
    assert_ok(s, store_ratings_record(s, "1", "reversi", 5, 3, who, before, after));
    store_rated_player top[5];
    int n = 0;
    assert_ok(s, store_rating_leaderboard(s, "reversi", 110, 5, top, &n));
    assert_int_equal(n, 3);
    assert_string_equal(top[0].name, "cat");
    assert_string_equal(top[1].name, "ben");
    assert_string_equal(top[2].name, "ann");
    assert_int_equal(top[2].account_id, a);
    assert_ok(s, store_rating_leaderboard(s, "reversi", 110, 1, top, &n));
    assert_int_equal(n, 1);
    assert_ok(s, store_rating_leaderboard(s, "kalah", 110, 5, top, &n));
    assert_int_equal(n, 0);
    store_close(s);
}

static int seen_rated;
static int64_t seen_accounts[STORE_MAX_SEATS];
static void on_game(void *user, const store_game_info *g)
{
    (void)user;
    seen_rated = g->rated;
    memcpy(seen_accounts, g->rated_accounts, sizeof seen_accounts);
}

static void rated_seats_recovered(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t a = make_account(s, "ann", NULL), b = make_account(s, "ben", NULL);
    store_game_info g = {.seats = 2, .status = STORE_WAITING, .rated = true, .created_ms = 1};
    snprintf(g.id, sizeof g.id, "7");
    snprintf(g.kind, sizeof g.kind, "kalah");
    assert_ok(s, store_game_create(s, &g));
    int64_t seats[2] = {b, a};
    int64_t guest[2] = {b, 0};
    assert_int_equal(store_game_rated_seats(s, "7", 2, guest), -1);
    assert_ok(s, store_game_rated_seats(s, "7", 2, seats));
    assert_ok(s, store_game_status(s, "7", STORE_RUNNING, 2));
    store_recovery_cb cb = {.game = on_game};
    assert_ok(s, store_recover(s, &cb, NULL, NULL));
    assert_true(seen_rated);
    assert_true(seen_accounts[0] == b && seen_accounts[1] == a);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(record_and_read),
        cmocka_unit_test(leaderboard_settled_first),
        cmocka_unit_test(rated_seats_recovered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
