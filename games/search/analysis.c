/*
 * analysis.c — the engine's review of a finished game (analysis.h): every
 * position searched once, values turned into each kind's unit, judgements
 * and accuracies. The per-kind numbers live beside each kind's evaluation
 * (search_eval: unit, judge, win_scale, depth).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "analysis.h"
#include "search_internal.h"

#define DEFAULT_TIME_MS 2000

void game_analysis_limits(const game_kind *kind, const game_analysis_budget *budget,
                          game_search_limits *lim)
{
    const search_eval *ev = search__eval_of(kind);
    int depth = budget && budget->depth > 0 ? budget->depth : ev->depth;
    if (depth > SEARCH_FULL_DEPTH)
        depth = SEARCH_FULL_DEPTH;
    *lim = (game_search_limits){
        .level = 10,
        .time_ms = budget && budget->time_ms > 0 ? budget->time_ms : DEFAULT_TIME_MS,
        .max_depth = depth,
        .stop = budget ? budget->stop : NULL,
    };
}

/* The margin of a proven score: search_decided's inverse (its ply term is
 * below SEARCH_MARGIN / 2, so rounding to the nearest margin removes it). */
static int proven_margin(int score)
{
    if (score > 0)
        return (score - SEARCH_WIN + SEARCH_MARGIN / 2) / SEARCH_MARGIN;
    return -((-score - SEARCH_WIN + SEARCH_MARGIN / 2) / SEARCH_MARGIN);
}

game_value game_analysis_value(const game_kind *kind, const game_search_result *r)
{
    const search_eval *ev = search__eval_of(kind);
    if (r->score > SEARCH_WIN / 2 || r->score < -SEARCH_WIN / 2)
        return (game_value){.cu = 100 * proven_margin(r->score), .exact = true};
    /* A margin kind's exact value is reported as a decided score (above);
     * anything else on its scale is a guess, SEARCH_MARGIN a seed. A proven
     * draw is 0 with exact set. */
    long long cu = (long long)r->score * 100 / ev->unit;
    return (game_value){.cu = (int)cu, .exact = r->exact && r->score == 0};
}

void game_analysis_thresholds(const game_kind *kind, int judge[3])
{
    const search_eval *ev = search__eval_of(kind);
    for (int i = 0; i < 3; i++)
        judge[i] = ev->judge[i];
}

const char *game_judgement_name(game_judgement j)
{
    static const char *const names[] = {"", "inaccuracy", "mistake", "blunder"};
    return j >= GAME_JUDGE_GOOD && j <= GAME_JUDGE_BLUNDER ? names[j] : "";
}

/* The mover's winning chance in percent. */
static double win_chance(const search_eval *ev, game_value v)
{
    if (v.exact)
        return v.cu > 0 ? 100.0 : v.cu < 0 ? 0.0 : 50.0;
    return 100.0 / (1.0 + exp(-(double)v.cu / ev->win_scale));
}

double game_analysis_chance(const game_kind *kind, game_value v)
{
    return win_chance(search__eval_of(kind), v);
}

double game_analysis_graph_chance(const game_kind *kind, int seats, const game_analysis_move *m)
{
    game_value v = m->after;
    if (seats <= 2 && m->seat != 0)
        v.cu = -v.cu;
    return game_analysis_chance(kind, v);
}

static int sign(int x)
{
    return (x > 0) - (x < 0);
}

/* The value of a finished game for `seat`: its score minus the best of the
 * others' (the other's, with two seats). */
static game_value final_value(const game_state *st, int seat)
{
    int scores[GAME_MAX_SEATS], best = INT_MIN;
    game_scores(st, scores);
    for (int i = 0; i < game_seats(st); i++)
        if (i != seat && scores[i] > best)
            best = scores[i];
    return (game_value){.cu = 100 * (scores[seat] - best), .exact = true};
}

static bool stopped(const game_search_limits *lim)
{
    return lim->stop && *lim->stop;
}

/* The value of st for seat, searched from scratch, and the move of the seat
 * to move there. 0, or -1 when stopped or the search cannot run. */
static int value_for(game_search *s, const game_kind *kind, const game_state *st, int seat,
                     const game_search_limits *lim, game_value *v, int *best)
{
    game_search_result r;
    game_search_reset(s);
    if (game_search_value_for(s, st, seat, lim, &r) != 0 || stopped(lim))
        return -1;
    *v = game_analysis_value(kind, &r);
    *best = r.move;
    return 0;
}

int game_analyse(game_search *s, const game_kind *kind, const game_options *opts,
                 const int *seats, const int *moves, int n, const game_analysis_budget *budget,
                 game_analysis_move *out, int accuracy[GAME_MAX_SEATS], char *err,
                 size_t errlen)
{
    const search_eval *ev = search__eval_of(kind);
    game_search_limits lim;
    game_analysis_limits(kind, budget, &lim);
    game_state st;
    char why[GAME_ERR_LEN];
    if (game_new(&st, kind, opts, why, sizeof why) != 0)
        return game__fail(-1, err, errlen, "the game cannot be set up again: %s", why);
    const bool two = game_seats(&st) == 2;

    /* Each position's value for its seat to move, and the search's move
     * there; after a move, the position's value for its mover. With two
     * seats one search gives both (the other's value is the mover's,
     * negated), so the value after a move is the next one's before; with
     * more, the paranoid search's value depends on whose it is, and the
     * next mover's is searched again unless the mover moves again. */
    game_value here = {0};
    int here_best = -1;
    bool have_here = false;
    for (int i = 0; i < n; i++) {
        const int mover = seats[i];
        if (!have_here &&
            value_for(s, kind, &st, game_to_move(&st), &lim, &here, &here_best) != 0)
            return stopped(&lim) ? game__fail(-1, err, errlen, "the analysis was stopped")
                                 : game__fail(-1, err, errlen,
                                              "move %d cannot be searched: the game is over",
                                              i + 1);
        if (game_play(&st, mover, moves[i], NULL, why, sizeof why) != 0)
            return game__fail(-1, err, errlen, "move %d does not replay: %s", i + 1, why);
        game_analysis_move *m = &out[i];
        *m = (game_analysis_move){.seat = mover, .move = moves[i], .best = here_best,
                                  .before = here};
        have_here = false;
        if (game_is_over(&st)) {
            m->after = final_value(&st, mover);
        } else {
            int next = game_to_move(&st);
            if (value_for(s, kind, &st, two ? next : mover, &lim, &here, &here_best) != 0)
                return stopped(&lim)
                           ? game__fail(-1, err, errlen, "the analysis was stopped")
                           : game__fail(-1, err, errlen,
                                        "the position after move %d cannot be searched", i + 1);
            m->after = here;
            if (two && next != mover)
                m->after.cu = -m->after.cu;
            have_here = two || next == mover;
        }
        if (moves[i] != m->best) {
            int lost = m->before.cu - m->after.cu;
            m->loss = lost > 0 ? lost : 0;
        }
        /* The mover's winning chance lost, in percentage points: where a
         * value is proven, seeds and discs do not compare (a proven loss by
         * one seed from a guessed deficit of one is a lost game, not a lost
         * seed), so the chance judges too, at Lichess's 10, 20 and 30. */
        double drop = win_chance(ev, m->before) - win_chance(ev, m->after);
        if (drop < 0)
            drop = 0;
        game_judgement j = GAME_JUDGE_GOOD;
        for (int t = 0; t < 3; t++)
            if (m->loss >= ev->judge[t] ||
                ((m->before.exact || m->after.exact) && drop >= 10.0 * (t + 1)))
                j = (game_judgement)(t + 1);
        /* A proven result given away is a blunder whatever the seeds. */
        if (m->before.exact && m->after.exact && sign(m->after.cu) < sign(m->before.cu))
            j = GAME_JUDGE_BLUNDER;
        m->judgement = moves[i] == m->best ? GAME_JUDGE_GOOD : j;
        if (moves[i] == m->best) {
            m->accuracy = 1000;
        } else {
            double a = 103.1668 * exp(-0.04354 * drop) - 3.1669;
            a = a < 0 ? 0 : a > 100 ? 100 : a;
            m->accuracy = (int)lround(a * 10);
        }
    }
    long sum[GAME_MAX_SEATS] = {0};
    int count[GAME_MAX_SEATS] = {0};
    for (int i = 0; i < n; i++) {
        sum[out[i].seat] += out[i].accuracy;
        count[out[i].seat]++;
    }
    for (int k = 0; k < GAME_MAX_SEATS; k++)
        accuracy[k] = count[k] ? (int)((sum[k] + count[k] / 2) / count[k]) : -1;
    return 0;
}
