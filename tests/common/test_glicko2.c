/*
 * test_glicko2.c — the Glicko-2 update against the worked example of
 * Glickman's "Example of the Glicko-2 system" (2012), and what follows from
 * the system's definition: a period without games only widens the
 * deviation, wins raise a rating and losses lower it, symmetric results
 * leave it, and bad inputs are refused without touching the output.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "glicko2.h"

static void assert_near(double got, double want, double tolerance)
{
    if (fabs(got - want) > tolerance)
        fail_msg("got %.6f, expected %.6f (+-%g)", got, want, tolerance);
}

/* The paper: r=1500, RD=200, sigma=0.06, tau=0.5 against 1400/30 (won),
 * 1550/100 (lost) and 1700/300 (lost) gives r'=1464.06, RD'=151.52,
 * sigma'=0.05999. */
static void paper_example(void **state)
{
    (void)state;
    glicko2_rating p = {1500, 200, 0.06}, out;
    const glicko2_game games[] = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};
    assert_int_equal(glicko2_update(&p, games, 3, 0.5, &out), 0);
    assert_near(out.rating, 1464.06, 0.01);
    assert_near(out.rd, 151.52, 0.01);
    assert_near(out.volatility, 0.05999, 0.00001);
    /* The input is only read; out may alias it. */
    assert_near(p.rating, 1500, 0);
    assert_int_equal(glicko2_update(&p, games, 3, 0.5, &p), 0);
    assert_near(p.rating, 1464.06, 0.01);
}

/* Step 6 alone: RD' = sqrt(RD^2 + (173.7178 sigma)^2), rating kept. */
static void no_games_widens(void **state)
{
    (void)state;
    glicko2_rating p = {1620, 80, 0.06}, out;
    assert_int_equal(glicko2_update(&p, NULL, 0, GLICKO2_TAU, &out), 0);
    assert_near(out.rating, 1620, 1e-9);
    assert_near(out.rd, sqrt(80.0 * 80.0 + pow(173.7178 * 0.06, 2)), 1e-6);
    assert_near(out.volatility, 0.06, 1e-12);
}

static void results_move_ratings(void **state)
{
    (void)state;
    glicko2_rating p = GLICKO2_NEWCOMER, won, lost, drew;
    const glicko2_game win = {1500, 350, 1}, loss = {1500, 350, 0}, draw = {1500, 350, 0.5};
    assert_int_equal(glicko2_update(&p, &win, 1, GLICKO2_TAU, &won), 0);
    assert_int_equal(glicko2_update(&p, &loss, 1, GLICKO2_TAU, &lost), 0);
    assert_int_equal(glicko2_update(&p, &draw, 1, GLICKO2_TAU, &drew), 0);
    assert_true(won.rating > 1500 && lost.rating < 1500);
    assert_near(won.rating - 1500, 1500 - lost.rating, 1e-6);  /* symmetric */
    assert_near(drew.rating, 1500, 1e-6);
    assert_true(won.rd < 350 && drew.rd < 350);                /* a game informs */
    /* Beating a strong player is worth more than beating a weak one. */
    const glicko2_game strong = {1800, 50, 1}, weak = {1200, 50, 1};
    glicko2_rating a, b;
    assert_int_equal(glicko2_update(&p, &strong, 1, GLICKO2_TAU, &a), 0);
    assert_int_equal(glicko2_update(&p, &weak, 1, GLICKO2_TAU, &b), 0);
    assert_true(a.rating > b.rating);
    /* Expected scores: even players 0.5, the stronger above it. */
    glicko2_rating x = {1700, 50, 0.06}, y = {1500, 50, 0.06};
    assert_near(glicko2_expected(&y, &y), 0.5, 1e-12);
    assert_true(glicko2_expected(&x, &y) > 0.7 && glicko2_expected(&y, &x) < 0.3);
}

static void bad_input_refused(void **state)
{
    (void)state;
    glicko2_rating p = GLICKO2_NEWCOMER, out = {1, 2, 3};
    const glicko2_game ok = {1500, 100, 1}, bad_score = {1500, 100, 1.5},
                       bad_rd = {1500, 0, 1}, nan_rating = {NAN, 100, 1};
    assert_int_equal(glicko2_update(&p, &bad_score, 1, GLICKO2_TAU, &out), -1);
    assert_int_equal(glicko2_update(&p, &bad_rd, 1, GLICKO2_TAU, &out), -1);
    assert_int_equal(glicko2_update(&p, &nan_rating, 1, GLICKO2_TAU, &out), -1);
    assert_int_equal(glicko2_update(&p, &ok, -1, GLICKO2_TAU, &out), -1);
    assert_int_equal(glicko2_update(&p, NULL, 1, GLICKO2_TAU, &out), -1);
    assert_int_equal(glicko2_update(&p, &ok, 1, 0, &out), -1);
    glicko2_rating zero_rd = {1500, 0, 0.06};
    assert_int_equal(glicko2_update(&zero_rd, &ok, 1, GLICKO2_TAU, &out), -1);
    assert_near(out.rating, 1, 0);   /* untouched */
    assert_near(out.rd, 2, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paper_example),
        cmocka_unit_test(no_games_widens),
        cmocka_unit_test(results_move_ratings),
        cmocka_unit_test(bad_input_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
