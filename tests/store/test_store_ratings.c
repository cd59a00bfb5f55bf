/*
 * test_store_ratings.c — ratings in the store (issue 16): a newcomer has
 * none, a rated game's end records each player's rating and a history
 * point, the leaderboard puts settled ratings before provisional ones,
 * history comes oldest first within its limit, a rated game's seats come
 * back with recovery, and an older file gains the tables on open; the
 * rated games of a pair of accounts in a day, and the games marked not to
 * count, as the operator's report reads them.
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
    assert_ok(s, store_rating_history(s, alice, "kalah", 10, NULL, &pts, &n));
    assert_int_equal(n, 2);
    assert_string_equal(pts[0].game_id, "1");          /* oldest first */
    assert_true(pts[0].rating_before == 1500 && pts[0].rating == 1662.31);
    assert_string_equal(pts[1].game_id, "2");
    assert_true(pts[1].rating_before == 1662.31 && pts[1].rating == 1600);
    free(pts);
    assert_ok(s, store_rating_history(s, alice, NULL, 1, NULL, &pts, &n));
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
    assert_ok(s, store_rating_history(s, bob, "kalah", 10, NULL, &pts, &n));
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
    assert_ok(s, store_rating_leaderboard(s, "reversi", 110, 5, NULL, top, &n));
    assert_int_equal(n, 3);
    assert_string_equal(top[0].name, "cat");
    assert_string_equal(top[1].name, "ben");
    assert_string_equal(top[2].name, "ann");
    assert_int_equal(top[2].account_id, a);
    assert_ok(s, store_rating_leaderboard(s, "reversi", 110, 1, NULL, top, &n));
    assert_int_equal(n, 1);
    assert_ok(s, store_rating_leaderboard(s, "kalah", 110, 5, NULL, top, &n));
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

/* A rated game id of a and b, started at started_ms (0: waiting still). */
static void rated_pair_game(store *s, const char *id, int64_t a, int64_t b, int64_t started_ms)
{
    store_game_info g = {.seats = 2, .status = STORE_WAITING, .rated = true, .created_ms = 1};
    snprintf(g.id, sizeof g.id, "%s", id);
    snprintf(g.kind, sizeof g.kind, "kalah");
    assert_ok(s, store_game_create(s, &g));
    int64_t seats[2] = {a, b};
    assert_ok(s, store_game_rated_seats(s, id, 2, seats));
    if (started_ms)
        assert_ok(s, store_game_status(s, id, STORE_RUNNING, started_ms));
}

static int pair_games(store *s, int64_t a, int64_t b, int64_t since, const char *except)
{
    int n = -1;
    assert_ok(s, store_rated_pair_games(s, a, b, since, except, &n));
    return n;
}

/* The rated games of a pair since a time, from the database: running and
 * finished ones count, in either seat order; abandoned ones, those marked
 * not to count, those of other pairs, older ones and the one excepted do
 * not. */
static void pair_games_counted(void **state)
{
    (void)state;
    store *s = open_memory();
    int64_t ann = make_account(s, "ann", NULL), ben = make_account(s, "ben", NULL),
            cat = make_account(s, "cat", NULL);
    const int64_t day = 1000;
    assert_int_equal(pair_games(s, ann, ben, day, NULL), 0);
    rated_pair_game(s, "1", ann, ben, day + 1);              /* running: counts */
    rated_pair_game(s, "2", ben, ann, day + 2);              /* the other way round */
    const char *names[2] = {"ben", "ann"};
    int64_t accounts[2] = {ben, ann};
    int scores[2] = {1, 0}, winners[1] = {0};
    assert_ok(s, store_game_finish(s, "2", STORE_FINISHED, "ann resigned", 2, names, accounts,
                                   scores, winners, 1, day + 3));
    rated_pair_game(s, "3", ann, ben, day - 1);              /* before the day */
    rated_pair_game(s, "4", ann, ben, day + 4);              /* abandoned */
    assert_ok(s, store_game_finish(s, "4", STORE_ABANDONED, "ben left", 2, names, accounts,
                                   scores, NULL, 0, day + 5));
    rated_pair_game(s, "5", ann, ben, day + 6);              /* one address */
    assert_ok(s, store_game_unrated(s, "5", STORE_UNRATED_SAME_ADDRESS));
    rated_pair_game(s, "6", ann, cat, day + 7);              /* another pair */
    rated_pair_game(s, "7", ann, ben, 0);                    /* not started */
    assert_int_equal(pair_games(s, ann, ben, day, NULL), 2);
    assert_int_equal(pair_games(s, ben, ann, day, NULL), 2);
    assert_int_equal(pair_games(s, ann, ben, day, "1"), 1);
    assert_int_equal(pair_games(s, ann, ben, day - 1, NULL), 3);
    assert_int_equal(pair_games(s, ann, cat, day, NULL), 1);
    assert_int_equal(pair_games(s, ben, cat, day, NULL), 0);

    /* The report: game 2's ratings (ben won) make ben's points all ann's. */
    store_rating before[2] = {rating("kalah", 1500, 350, 0, 0), rating("kalah", 1500, 350, 0, 0)};
    store_rating after[2] = {rating("kalah", 1662.31, 290.32, 1, 1000),
                             rating("kalah", 1337.69, 290.32, 1, 1000)};
    assert_ok(s, store_ratings_record(s, "2", "kalah", day + 3, 2, accounts, before, after));
    store_pair_row rows[4];
    int n = 0;
    assert_ok(s, store_report_pairs(s, 4, rows, &n));
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].a, "ann");
    assert_string_equal(rows[0].b, "ben");
    assert_int_equal(rows[0].games, 1);
    assert_ok(s, store_report_one_opponent(s, 0.5, 4, rows, &n));
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].a, "ben");
    assert_string_equal(rows[0].b, "ann");
    assert_int_equal(rows[0].games, 1);
    assert_true(rows[0].gain > 162.3 && rows[0].gain < 162.32 && rows[0].total_gain == rows[0].gain);
    assert_int_equal(store_report_one_opponent(s, 1.5, 4, rows, &n), -1);
    /* The games marked not to count, by pair. */
    assert_ok(s, store_report_refused(s, STORE_UNRATED_SAME_ADDRESS, 4, rows, &n));
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].a, "ann");
    assert_string_equal(rows[0].b, "ben");
    assert_int_equal(rows[0].games, 1);
    assert_ok(s, store_report_refused(s, STORE_UNRATED_TOO_SHORT, 4, rows, &n));
    assert_int_equal(n, 0);
    /* Refused: a reason the store does not know, a casual game. */
    assert_int_equal(store_game_unrated(s, "5", 9), -1);
    make_game(s, "8", "kalah", 2);
    assert_int_equal(store_game_unrated(s, "8", STORE_UNRATED_TOO_SHORT), -1);
    store_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(record_and_read),
        cmocka_unit_test(leaderboard_settled_first),
        cmocka_unit_test(rated_seats_recovered),
        cmocka_unit_test(pair_games_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
