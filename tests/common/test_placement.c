/*
 * test_placement.c — rating a game from its placement, on the worked
 * examples of docs/rules.md ("Ratings"): the numbers there were worked out
 * apart from this code (a separate implementation of Glickman's paper), so
 * they check the pairwise method, not only that it runs.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "placement.h"

static void assert_rating(glicko2_rating got, double rating, double rd)
{
    if (fabs(got.rating - rating) > 0.01 || fabs(got.rd - rd) > 0.01)
        fail_msg("got %.2f / %.2f, expected %.2f / %.2f", got.rating, got.rd, rating, rd);
}

/* Two newcomers: the winner goes to 1662.31, the loser to 1337.69, both
 * deviations to 290.32. */
static void two_newcomers(void **state)
{
    (void)state;
    placement_player p[] = {{GLICKO2_NEWCOMER, 1}, {GLICKO2_NEWCOMER, 2}};
    glicko2_rating after[2];
    assert_int_equal(placement_rate(p, 2, GLICKO2_TAU, after), 0);
    assert_rating(after[0], 1662.31, 290.32);
    assert_rating(after[1], 1337.69, 290.32);
}

/* A draw between equals moves nobody; the deviation still narrows. */
static void two_newcomers_draw(void **state)
{
    (void)state;
    placement_player p[] = {{GLICKO2_NEWCOMER, 1}, {GLICKO2_NEWCOMER, 1}};
    glicko2_rating after[2];
    assert_int_equal(placement_rate(p, 2, GLICKO2_TAU, after), 0);
    assert_rating(after[0], 1500.00, 290.32);
    assert_rating(after[1], 1500.00, 290.32);
}

/* Three newcomers placed 1, 2, 3: the middle one won once and lost once
 * against equals and stays at 1500; first and last move by two results. */
static void three_newcomers(void **state)
{
    (void)state;
    placement_player p[] = {{GLICKO2_NEWCOMER, 1}, {GLICKO2_NEWCOMER, 2},
                            {GLICKO2_NEWCOMER, 3}};
    glicko2_rating after[3];
    assert_int_equal(placement_rate(p, 3, GLICKO2_TAU, after), 0);
    assert_rating(after[0], 1747.32, 253.40);
    assert_rating(after[1], 1500.00, 253.40);
    assert_rating(after[2], 1252.68, 253.40);
}

/* Four established players, two sharing first place: the favourite placed
 * second loses rating although it beat the last player. */
static void four_with_a_tie(void **state)
{
    (void)state;
    placement_player p[] = {{{1700, 80, 0.06}, 2},
                            {{1500, 200, 0.06}, 1},
                            {{1400, 300, 0.06}, 1},
                            {{1600, 120, 0.06}, 4}};
    glicko2_rating after[4];
    assert_int_equal(placement_rate(p, 4, GLICKO2_TAU, after), 0);
    assert_rating(after[0], 1671.54, 77.13);
    assert_rating(after[1], 1672.30, 155.01);
    assert_rating(after[2], 1753.27, 195.01);
    assert_rating(after[3], 1506.91, 108.23);
}

/* Only places count, not their numbers: 1, 5, 9 rates as 1, 2, 3. */
static void places_are_an_order(void **state)
{
    (void)state;
    placement_player a[] = {{GLICKO2_NEWCOMER, 1}, {GLICKO2_NEWCOMER, 5},
                            {GLICKO2_NEWCOMER, 9}};
    placement_player b[] = {{GLICKO2_NEWCOMER, 1}, {GLICKO2_NEWCOMER, 2},
                            {GLICKO2_NEWCOMER, 3}};
    glicko2_rating x[3], y[3];
    assert_int_equal(placement_rate(a, 3, GLICKO2_TAU, x), 0);
    assert_int_equal(placement_rate(b, 3, GLICKO2_TAU, y), 0);
    for (int i = 0; i < 3; i++)
        assert_rating(x[i], y[i].rating, y[i].rd);
}

static void refuses_bad_input(void **state)
{
    (void)state;
    placement_player p[] = {{GLICKO2_NEWCOMER, 1}, {GLICKO2_NEWCOMER, 0}};
    glicko2_rating after[2] = {{1, 1, 1}, {1, 1, 1}};
    assert_int_equal(placement_rate(p, 2, GLICKO2_TAU, after), -1);      /* place 0 */
    p[1].place = 2;
    assert_int_equal(placement_rate(p, 1, GLICKO2_TAU, after), -1);      /* alone */
    assert_int_equal(placement_rate(p, PLACEMENT_MAX_PLAYERS + 1, GLICKO2_TAU, after), -1);
    p[0].before.rd = 0;
    assert_int_equal(placement_rate(p, 2, GLICKO2_TAU, after), -1);      /* refused rating */
    assert_true(after[0].rating == 1 && after[1].rating == 1);            /* untouched */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_newcomers),      cmocka_unit_test(two_newcomers_draw),
        cmocka_unit_test(three_newcomers),    cmocka_unit_test(four_with_a_tie),
        cmocka_unit_test(places_are_an_order), cmocka_unit_test(refuses_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
