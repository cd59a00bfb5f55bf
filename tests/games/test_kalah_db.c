/*
 * test_kalah_db.c — Kalah's endgame table (games/search/kalah_db.h): its
 * size is the count of ways to spread the seeds; a few positions worked by
 * hand; and, on random positions with few seeds, the table's value is the
 * exact final margin that the search finds with the engine's own moves and
 * no table (so the table's copy of the sowing rules agrees with kalah.c,
 * and the search maximises margins), and a search handed the table agrees.
 */
#include "games_test.h"

#include <stdlib.h>
#include <string.h>

#include "kalah_db.h"
#include "search.h"

static void sizes(void **state)
{
    (void)state;
    assert_int_equal(game_kalah_db_entries(6, 0), 1);
    assert_int_equal(game_kalah_db_entries(6, 1), 13);        /* empty, or 1 seed in 12 pits */
    assert_int_equal(game_kalah_db_entries(3, 2), 28);        /* C(8, 6) */
    assert_int_equal(game_kalah_db_entries(6, 14), 9657700);  /* C(26, 12) */
    assert_int_equal(game_kalah_db_entries(2, 5), 0);
    assert_int_equal(game_kalah_db_entries(9, 5), 0);
    assert_int_equal(game_kalah_db_entries(6, -1), 0);
    assert_int_equal(game_kalah_db_entries(6, GAME_KALAH_DB_MAX_SEEDS + 1), 0);
    int8_t one;
    assert_int_equal(game_kalah_db_build(6, 99, &one, NULL), -1);
}

static game_state *load(int cups, const int *cells, int to_move)
{
    const game_kind *k = game_kind_find("kalah");
    game_options o;
    game_options_default(k, &o);
    assert_int_equal(game_options_set(k, &o, "cups", cups, NULL, 0), GAME_OK);
    game_state *st = malloc(sizeof *st);
    assert_non_null(st);
    assert_int_equal(game_new(st, k, &o, NULL, 0), GAME_OK);
    assert_int_equal(game_load(st, cells, 2 * (cups + 1), to_move, false), GAME_OK);
    return st;
}

/* 3 pits a side: seat 0 pits 0..2, store 3; seat 1 pits 4..6, store 7. */
static void by_hand(void **state)
{
    (void)state;
    size_t n = game_kalah_db_entries(3, 4);
    int8_t *t = malloc(n);
    assert_non_null(t);
    assert_int_equal(game_kalah_db_build(3, 4, t, NULL), 0);
    game_kalah_db db = {.cups = 3, .max_seeds = 4, .entries = n, .margin = t};
    int m = 99;
    /* Seat 0 has 1 seed in pit 2 (it reaches the store: again, and its row
     * is empty: the end), seat 1 has 1: the margin is 1 - 1 = 0. */
    const int a[8] = {0, 0, 1, 5, 1, 0, 0, 9};
    game_state *st = load(3, a, 0);
    assert_int_equal(game_kalah_db_probe(&db, st, &m), 0);
    assert_int_equal(m, 0);
    free(st);
    /* Seat 0: pit 1's seed lands in the empty pit 2, facing seat 1's pit 0
     * (cell 4) with 2 seeds: it captures 3, seat 1's row is then empty and
     * seat 0 adds its last seed: +4 (pit 0 first would only let seat 1
     * capture). */
    const int b[8] = {1, 1, 0, 0, 2, 0, 0, 0};
    st = load(3, b, 0);
    assert_int_equal(game_kalah_db_probe(&db, st, &m), 0);
    assert_int_equal(m, 4);
    free(st);
    /* Seat 1 to move instead, every move forced: its 2 seeds end in its
     * empty pit 2, capturing seat 0's pit 0 (+2); seat 0's 1 -> pit 2,
     * seat 1's 1 -> pit 2, seat 0's pit 2 -> store, the end: 3 to 1. */
    st = load(3, b, 1);
    assert_int_equal(game_kalah_db_probe(&db, st, &m), 0);
    assert_int_equal(m, 2);
    const int c[8] = {1, 1, 1, 0, 2, 0, 0, 0};
    free(st);
    st = load(3, c, 0);
    assert_int_equal(game_kalah_db_probe(&db, st, &m), -1);   /* 5 seeds > 4 */
    free(st);
    free(t);
}

static int decode_margin(int v)
{
    if (v > GAME_SEARCH_WIN / 2)
        return (v - GAME_SEARCH_WIN + 255) / 256;
    if (v < -GAME_SEARCH_WIN / 2)
        return -((-v - GAME_SEARCH_WIN + 255) / 256);
    assert_int_equal(v, 0);
    return 0;
}

static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545f4914f6cdd1dull;
}

/* Random positions of 4 pits a side with up to 10 seeds in the pits. */
static void agrees_with_the_search(void **state)
{
    (void)state;
    const int cups = 4, max = 10;
    size_t n = game_kalah_db_entries(cups, max);
    int8_t *t = malloc(n);
    assert_non_null(t);
    assert_int_equal(game_kalah_db_build(cups, max, t, NULL), 0);
    game_kalah_db db = {.cups = cups, .max_seeds = max, .entries = n, .margin = t};
    game_search *plain = game_search_new(1 << 20), *with = game_search_new(1 << 20);
    assert_non_null(plain);
    assert_non_null(with);
    game_search_set_kalah_db(with, &db);
    uint64_t x = 0x4b414c4148ull;
    int tried = 0;
    while (tried < 200) {
        int cells[10] = {0};
        int seeds = 2 + (int)(rng_next(&x) % (uint64_t)(max - 1));
        for (int i = 0; i < seeds; i++) {
            int pit = (int)(rng_next(&x) % (uint64_t)(2 * cups));
            cells[pit < cups ? pit : pit + 1]++;
        }
        cells[cups] = (int)(rng_next(&x) % 8);
        cells[2 * cups + 1] = (int)(rng_next(&x) % 8);
        bool row0 = false, row1 = false;
        for (int c = 0; c < cups; c++) {
            row0 |= cells[c] > 0;
            row1 |= cells[cups + 1 + c] > 0;
        }
        if (!row0 || !row1)
            continue;                         /* over: not a position to move in */
        tried++;
        int to_move = (int)(rng_next(&x) & 1);
        game_state *st = load(cups, cells, to_move);
        int m;
        assert_int_equal(game_kalah_db_probe(&db, st, &m), 0);
        int stores = cells[to_move == 0 ? cups : 2 * cups + 1] -
                     cells[to_move == 0 ? 2 * cups + 1 : cups];
        game_search_limits lim = {.level = 10, .time_ms = 60000};
        game_search_result r;
        assert_int_equal(game_search_best(plain, st, &lim, &r), 0);
        assert_true(r.exact);
        if (decode_margin(r.score) != m + stores)
            fail_msg("position %d: table %d + stores %d, search %d", tried, m, stores,
                     decode_margin(r.score));
        assert_int_equal(game_search_best(with, st, &lim, &r), 0);
        assert_true(r.exact);
        assert_int_equal(decode_margin(r.score), m + stores);
        free(st);
    }
    game_search_free(plain);
    game_search_free(with);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes),
        cmocka_unit_test(by_hand),
        cmocka_unit_test(agrees_with_the_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
