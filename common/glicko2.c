/*
 * glicko2.c — the Glicko-2 update of glicko2.h, step by step as numbered in
 * Glickman's "Example of the Glicko-2 system" (2012): convert to the
 * Glicko-2 scale, compute v and delta, find the new volatility by the
 * Illinois variant of regula falsi (step 5.4; the paper's choice, since
 * Newton's method can diverge there), then the new deviation and rating.
 */
#include "glicko2.h"

#include <math.h>

#define SCALE 173.7178          /* the paper's 400 / ln 10 */
#define PI 3.14159265358979323846
#define CONVERGENCE 0.000001    /* the paper's epsilon */
#define MAX_ITERATIONS 200      /* regula falsi converges in a handful; a bound
                                 * only guards against a pathological input */

static double g_of(double phi)
{
    return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (PI * PI));
}

static double expected(double mu, double mu_j, double phi_j)
{
    return 1.0 / (1.0 + exp(-g_of(phi_j) * (mu - mu_j)));
}

double glicko2_expected(const glicko2_rating *a, const glicko2_rating *b)
{
    return expected((a->rating - 1500.0) / SCALE, (b->rating - 1500.0) / SCALE, b->rd / SCALE);
}

/* Step 5's f(x). */
static double f_of(double x, double delta, double phi, double v, double a, double tau)
{
    double ex = exp(x);
    double d = phi * phi + v + ex;
    return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau);
}

/* Step 5: the new volatility. */
static double new_volatility(double sigma, double delta, double phi, double v, double tau)
{
    const double a = log(sigma * sigma);
    double A = a, B;
    if (delta * delta > phi * phi + v) {
        B = log(delta * delta - phi * phi - v);
    } else {
        int k = 1;
        while (f_of(a - k * tau, delta, phi, v, a, tau) < 0 && k < MAX_ITERATIONS)
            k++;
        B = a - k * tau;
    }
    double fA = f_of(A, delta, phi, v, a, tau), fB = f_of(B, delta, phi, v, a, tau);
    for (int i = 0; fabs(B - A) > CONVERGENCE && i < MAX_ITERATIONS; i++) {
        double C = A + (A - B) * fA / (fB - fA);
        double fC = f_of(C, delta, phi, v, a, tau);
        if (fC * fB <= 0) {
            A = B;
            fA = fB;
        } else {
            fA /= 2.0;   /* Illinois: halve the stale end so it cannot stall */
        }
        B = C;
        fB = fC;
    }
    return exp(A / 2.0);
}

int glicko2_update(const glicko2_rating *player, const glicko2_game *games, int n_games,
                   double tau, glicko2_rating *out)
{
    if (!player || !out || n_games < 0 || (n_games > 0 && !games) || !(tau > 0) ||
        !isfinite(tau) || !(player->rd > 0) || !(player->volatility > 0) ||
        !isfinite(player->rating) || !isfinite(player->rd) || !isfinite(player->volatility))
        return -1;
    for (int j = 0; j < n_games; j++)
        if (!(games[j].opp_rd > 0) || !isfinite(games[j].opp_rd) ||
            !isfinite(games[j].opp_rating) || !(games[j].score >= 0 && games[j].score <= 1))
            return -1;

    /* Step 2: the Glicko-2 scale. */
    const double mu = (player->rating - 1500.0) / SCALE, phi = player->rd / SCALE;
    const double sigma = player->volatility;
    if (n_games == 0) {
        /* Only step 6: the deviation grows by the volatility. */
        *out = (glicko2_rating){player->rating, SCALE * sqrt(phi * phi + sigma * sigma), sigma};
        return 0;
    }

    /* Steps 3 and 4: the estimated variance v and improvement delta. */
    double inv_v = 0, sum = 0;
    for (int j = 0; j < n_games; j++) {
        double mu_j = (games[j].opp_rating - 1500.0) / SCALE, phi_j = games[j].opp_rd / SCALE;
        double g = g_of(phi_j), E = expected(mu, mu_j, phi_j);
        inv_v += g * g * E * (1.0 - E);
        sum += g * (games[j].score - E);
    }
    const double v = 1.0 / inv_v, delta = v * sum;

    /* Steps 5 to 8. */
    const double sigma2 = new_volatility(sigma, delta, phi, v, tau);
    const double phi_star = sqrt(phi * phi + sigma2 * sigma2);
    const double phi2 = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
    const double mu2 = mu + phi2 * phi2 * sum;
    *out = (glicko2_rating){SCALE * mu2 + 1500.0, SCALE * phi2, sigma2};
    return 0;
}
