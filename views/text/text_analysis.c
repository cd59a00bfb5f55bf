/*
 * text_analysis.c — a finished match reviewed by the engine, as a table
 * (text_analysis.h). Values are printed in points of the game's score
 * (seeds, discs) with two decimals, a proven one as a whole number marked
 * "=".
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "endgame_cache.h"
#include "text_analysis.h"
#include "view_i18n.h"

/* Kalah's table for exact endings: small enough to build in a moment when
 * the cache has none. */
#define ANALYSIS_KALAH_SEEDS 12

static const char *const judgement_words[] = {
    "", N_("inaccuracy"), N_("mistake"), N_("blunder"),
};

static void format_value(game_value v, char *buf, size_t len)
{
    if (v.exact)
        snprintf(buf, len, "%+d=", v.cu / 100);
    else
        snprintf(buf, len, "%+.2f", v.cu / 100.0);
}

static void print_table(FILE *out, const agent_match *m, const int *seats, const int *moves,
                        const game_analysis_move *a, const int *accuracy)
{
    game_state st;
    game_new(&st, m->kind, &m->opts, NULL, 0);
    fprintf(out, "%4s  %-12s %-6s %8s %8s  %-6s %s\n", _("ply"), _("player"), _("move"),
            _("before"), _("after"), _("best"), _("judgement"));
    for (int i = 0; i < m->n_moves; i++) {
        char played[32], best[32], before[24], after[24];
        game_format_move(&st, moves[i], played, sizeof played);
        game_format_move(&st, a[i].best, best, sizeof best);
        format_value(a[i].before, before, sizeof before);
        format_value(a[i].after, after, sizeof after);
        const char *who = seats[i] < m->n_seats && m->seat_name[seats[i]][0]
                              ? m->seat_name[seats[i]] : "?";
        const char *j = a[i].judgement ? _(judgement_words[a[i].judgement]) : "";
        fprintf(out, "%4d  %-12.12s %-6s %8s %8s  %-6s %s\n", i + 1, who, played, before, after,
                a[i].best == moves[i] ? "" : best, j);
        game_play(&st, seats[i], moves[i], NULL, NULL, 0);
    }
    fprintf(out, _("Values are the mover's, in points of the score (seeds, discs); \"=\" marks "
                   "one the engine proved.\n"));
    for (int s = 0; s < m->n_seats; s++)
        if (accuracy[s] >= 0)
            fprintf(out, _("Accuracy of %s: %.1f %%\n"), m->seat_name[s][0] ? m->seat_name[s]
                                                                           : "?",
                    accuracy[s] / 10.0);
}

int text_analysis_show(FILE *out, const agent_match *m, const int *seats, const int *moves,
                       int depth)
{
    if (!m->kind) {
        fprintf(out, _("Cannot analyse a game of kind '%s'.\n"), m->kind_name);
        return -1;
    }
    game_analysis_move *a = calloc(m->n_moves ? (size_t)m->n_moves : 1, sizeof *a);
    game_search *s = game_search_new(16u << 20);
    game_kalah_db db = {0};
    int rc = -1, accuracy[GAME_MAX_SEATS];
    char err[GAME_ERR_LEN + 64];
    if (!a || !s) {
        fprintf(out, _("Cannot analyse: out of memory.\n"));
        goto done;
    }
    game_state st;
    int cups;
    if (game_new(&st, m->kind, &m->opts, NULL, 0) == GAME_OK &&
        (cups = game_kalah_db_cups(&st)) > 0 &&
        endgame_cache_kalah(cups, ANALYSIS_KALAH_SEEDS, NULL, NULL, &db, NULL, err,
                            sizeof err) == 0)
        game_search_set_kalah_db(s, &db);
    game_analysis_budget budget = {.depth = depth};
    if (game_analyse(s, m->kind, &m->opts, seats, moves, m->n_moves, &budget, a, accuracy, err,
                     sizeof err) != 0) {
        fprintf(out, _("Cannot analyse: %s\n"), err);
        goto done;
    }
    fprintf(out, _("Analysis of match %s: %s (%s), %d moves.\n"), m->id, m->title, m->kind_name,
            m->n_moves);
    print_table(out, m, seats, moves, a, accuracy);
    rc = 0;
done:
    game_search_free(s);
    endgame_cache_free(&db);
    free(a);
    return rc;
}

void text_analysis_replay(FILE *out, agent *ag, const agent_match *m, const int *seats,
                          const int *moves)
{
    game_analysis_move *a = calloc(m->n_moves ? (size_t)m->n_moves : 1, sizeof *a);
    int accuracy[GAME_MAX_SEATS];
    bool done = false;
    char reason[AGENT_TEXT_BYTES], err[512];
    if (a && m->kind &&
        agent_get_analysis(ag, m->id, m->n_moves, a, accuracy, &done, reason, sizeof reason,
                           err, sizeof err) == 0 &&
        done) {
        fprintf(out, _("Analysis of match %s: %s (%s), %d moves.\n"), m->id, m->title,
                m->kind_name, m->n_moves);
        print_table(out, m, seats, moves, a, accuracy);
    } else {
        fprintf(out, _("The service has no review of this match (%s); computing it here.\n"),
                done || !reason[0] ? err : reason);
        text_analysis_show(out, m, seats, moves, 0);
    }
    free(a);
}
