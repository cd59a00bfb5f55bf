/*
 * test_analysis.c — the engine's review of a finished game
 * (games/search/analysis.h). A reversi game played by weak bots is reviewed
 * at depth 3, and every position's value and best move are what
 * game_search_best finds for that position alone, from a new searcher, at
 * the same depth; the values after each move are the next position's seen
 * by the mover, the last one the final margin; the judgements follow the
 * kind's thresholds. A Kalah game's values, wherever few enough seeds are
 * left in the pits, are exactly the endgame table's margin plus the stores.
 * Sungka for three: each value is the paranoid search's for its seat, after
 * a move still the mover's (game_search_value_for).
 */
#include "games_test.h"

#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "kalah_db.h"
#include "search.h"

#define MAX_PLIES 200

/* A game between two weak bots (level 2: depth 1, half its moves random),
 * the same every run (a seed, no clock: depth 1 never meets the budget). */
static int play_game(const game_kind *k, const game_options *o, int *seats, int *moves,
                     uint64_t seed)
{
    game_search *s = game_search_new(1 << 20);
    assert_non_null(s);
    game_state st;
    assert_int_equal(game_new(&st, k, o, NULL, 0), GAME_OK);
    int n = 0;
    while (!game_is_over(&st)) {
        assert_true(n < MAX_PLIES);
        game_search_limits lim = {.level = 2, .time_ms = 60000, .seed = seed + (uint64_t)n};
        game_search_result r;
        assert_int_equal(game_search_best(s, &st, &lim, &r), 0);
        seats[n] = game_to_move(&st);
        moves[n] = r.move;
        assert_int_equal(game_play(&st, seats[n], moves[n], NULL, NULL, 0), GAME_OK);
        n++;
    }
    game_search_free(s);
    /* The transcript an export writes reads back as the same moves. */
    char text[4096], err[GAME_ERR_LEN];
    int bad, seats2[MAX_PLIES], moves2[MAX_PLIES], n2;
    assert_true(game_transcript(k, o, seats, moves, n, text, sizeof text, &bad) > 0);
    assert_int_equal(game_read_transcript(k, o, text, seats2, moves2, MAX_PLIES, &n2, err,
                                          sizeof err), 0);
    assert_int_equal(n2, n);
    assert_memory_equal(seats2, seats, (size_t)n * sizeof *seats);
    assert_memory_equal(moves2, moves, (size_t)n * sizeof *moves);
    return n;
}

/* The review of a game at `depth` plies, with Kalah's table when db is
 * given: its moves (to free) and accuracy. */
static game_analysis_move *review(const game_kind *k, const game_options *o, const int *seats,
                                  const int *moves, int n, int depth, const game_kalah_db *db,
                                  int accuracy[GAME_MAX_SEATS])
{
    game_analysis_budget budget = {.depth = depth, .time_ms = 600000};
    game_analysis_move *a = calloc((size_t)n, sizeof *a);
    assert_non_null(a);
    game_search *s = game_search_new(1 << 20);
    assert_non_null(s);
    if (db)
        game_search_set_kalah_db(s, db);
    char err[GAME_ERR_LEN];
    assert_int_equal(game_analyse(s, k, o, seats, moves, n, &budget, a, accuracy, err,
                                  sizeof err), 0);
    game_search_free(s);
    return a;
}

/* Checks every review must pass, whatever the kind. */
static void check_consistent(const game_kind *k, const game_options *o, const int *seats,
                             const int *moves, int n, const game_analysis_move *a,
                             const int *accuracy)
{
    int judge[3];
    game_analysis_thresholds(k, judge);
    game_state st;
    assert_int_equal(game_new(&st, k, o, NULL, 0), GAME_OK);
    int scores[GAME_MAX_SEATS];
    for (int i = 0; i < n; i++) {
        assert_int_equal(a[i].seat, seats[i]);
        assert_int_equal(a[i].move, moves[i]);
        assert_int_equal(game_check(&st, seats[i], a[i].best, NULL, 0), GAME_OK);
        assert_int_equal(game_play(&st, seats[i], moves[i], NULL, NULL, 0), GAME_OK);
        if (i + 1 < n) {
            /* After a move is before the next, seen by this mover. */
            int same = seats[i + 1] == seats[i] ? 1 : -1;
            assert_int_equal(a[i].after.cu, same * a[i + 1].before.cu);
            assert_int_equal(a[i].after.exact, a[i + 1].before.exact);
        } else {
            game_scores(&st, scores);
            assert_true(a[i].after.exact);
            assert_int_equal(a[i].after.cu, 100 * (scores[seats[i]] - scores[1 - seats[i]]));
        }
        int loss = a[i].move == a[i].best ? 0 : a[i].before.cu - a[i].after.cu;
        assert_int_equal(a[i].loss, loss > 0 ? loss : 0);
        game_judgement want = GAME_JUDGE_GOOD;
        for (int t = 0; t < 3; t++)
            if (a[i].move != a[i].best && a[i].loss >= judge[t])
                want = (game_judgement)(t + 1);
        if (a[i].judgement != want) {
            /* Only a proven value may say more than the loss. */
            assert_true(a[i].judgement > want);
            assert_true(a[i].before.exact || a[i].after.exact);
        }
        assert_in_range(a[i].accuracy, 0, 1000);
        if (a[i].move == a[i].best)
            assert_int_equal(a[i].accuracy, 1000);
        else if (!a[i].before.exact && !a[i].after.exact && a[i].loss == 0)
            assert_int_equal(a[i].accuracy, 1000);
    }
    assert_in_range(accuracy[0], 0, 1000);
    assert_in_range(accuracy[1], 0, 1000);
    assert_int_equal(accuracy[2], -1);
}

static void reversi_matches_the_engine(void **state)
{
    (void)state;
    const game_kind *k = game_kind_find("reversi");
    game_options o;
    game_options_default(k, &o);
    assert_int_equal(game_options_set(k, &o, "size", 6, NULL, 0), GAME_OK);
    int seats[MAX_PLIES], moves[MAX_PLIES];
    int n = play_game(k, &o, seats, moves, 7);
    assert_true(n > 20);

    game_analysis_budget budget = {.depth = 3, .time_ms = 600000};
    int accuracy[GAME_MAX_SEATS];
    game_analysis_move *a = review(k, &o, seats, moves, n, budget.depth, NULL, accuracy);
    check_consistent(k, &o, seats, moves, n, a, accuracy);

    /* The engine's own evaluation of each position at the same depth. */
    game_search_limits lim;
    game_analysis_limits(k, &budget, &lim);
    assert_int_equal(lim.max_depth, 3);
    game_state st;
    assert_int_equal(game_new(&st, k, &o, NULL, 0), GAME_OK);
    int exact = 0, judged = 0, heuristic = 0;
    for (int i = 0; i < n; i++) {
        game_search *fresh = game_search_new(1 << 20);
        assert_non_null(fresh);
        game_search_result r;
        assert_int_equal(game_search_best(fresh, &st, &lim, &r), 0);
        game_search_free(fresh);
        game_value v = game_analysis_value(k, &r);
        assert_int_equal(a[i].best, r.move);
        assert_int_equal(a[i].before.cu, v.cu);
        assert_int_equal(a[i].before.exact, v.exact);
        if (r.exact) {
            exact++;
        } else {
            heuristic++;
            /* About 8 points of the evaluation to a disc: hundredths. */
            assert_int_equal(v.cu, r.score * 100 / 8);
        }
        judged += a[i].judgement != GAME_JUDGE_GOOD;
        /* With two seats a graph plots the first seat's chance throughout. */
        game_value first = a[i].after;
        if (seats[i] != 0)
            first.cu = -first.cu;
        assert_true(game_analysis_graph_chance(k, 2, &a[i]) == game_analysis_chance(k, first));
        assert_int_equal(game_play(&st, seats[i], moves[i], NULL, NULL, 0), GAME_OK);
    }
    /* Both halves of the game were met: searched, and solved (<= 20 empties). */
    assert_true(exact > 0);
    assert_true(heuristic > 0);
    /* Half the weak bots' moves are random: some are judged. */
    assert_true(judged > 0);
    free(a);
}

static void kalah_matches_the_table(void **state)
{
    (void)state;
    const int cups = 4, max_seeds = 12;
    const game_kind *k = game_kind_find("kalah");
    game_options o;
    game_options_default(k, &o);
    assert_int_equal(game_options_set(k, &o, "cups", cups, NULL, 0), GAME_OK);
    assert_int_equal(game_options_set(k, &o, "stones", 3, NULL, 0), GAME_OK);
    size_t entries = game_kalah_db_entries(cups, max_seeds);
    int8_t *t = malloc(entries);
    assert_non_null(t);
    assert_int_equal(game_kalah_db_build(cups, max_seeds, t, NULL), 0);
    game_kalah_db db = {.cups = cups, .max_seeds = max_seeds, .entries = entries, .margin = t};

    int seats[MAX_PLIES], moves[MAX_PLIES];
    int n = play_game(k, &o, seats, moves, 11);
    int accuracy[GAME_MAX_SEATS];
    game_analysis_move *a = review(k, &o, seats, moves, n, 2, &db, accuracy);
    check_consistent(k, &o, seats, moves, n, a, accuracy);

    game_state st;
    assert_int_equal(game_new(&st, k, &o, NULL, 0), GAME_OK);
    int covered = 0, beyond = 0;
    for (int i = 0; i < n; i++) {
        int margin;
        if (game_kalah_db_probe(&db, &st, &margin) == 0) {
            const int me = seats[i], store = cups;
            int stores = game_cell(&st, me * (cups + 1) + store) -
                         game_cell(&st, (1 - me) * (cups + 1) + store);
            assert_true(a[i].before.exact);
            assert_int_equal(a[i].before.cu, 100 * (margin + stores));
            covered++;
        } else {
            beyond++;
        }
        assert_int_equal(game_play(&st, seats[i], moves[i], NULL, NULL, 0), GAME_OK);
    }
    assert_true(covered > 0);
    assert_true(beyond > 0);
    free(a);
    free(t);
}

/* A position's value for one seat, from a new searcher at the review's
 * limits: what the review must have found for it. */
static game_value fresh_value(const game_kind *k, const game_state *st, int seat,
                              const game_search_limits *lim, int *best)
{
    game_search *fresh = game_search_new(1 << 20);
    assert_non_null(fresh);
    game_search_result r;
    assert_int_equal(game_search_value_for(fresh, st, seat, lim, &r), 0);
    game_search_free(fresh);
    if (best)
        *best = r.move;
    return game_analysis_value(k, &r);
}

/* game_search_value_for with two seats: the other seat's value is the
 * mover's negated, and the move is the mover's, whoever the root is. */
static void value_for_either_seat(void **state)
{
    (void)state;
    const game_kind *k = game_kind_find("kalah");
    game_options o;
    game_options_default(k, &o);
    int seats[MAX_PLIES], moves[MAX_PLIES];
    int n = play_game(k, &o, seats, moves, 5);
    game_state st;
    assert_int_equal(game_new(&st, k, &o, NULL, 0), GAME_OK);
    game_search_limits lim = {.level = 10, .time_ms = 600000, .max_depth = 4};
    for (int i = 0; i < n && i < 12; i++) {
        int me = game_to_move(&st), mine, theirs;
        game_value v = fresh_value(k, &st, me, &lim, &mine);
        game_value w = fresh_value(k, &st, 1 - me, &lim, &theirs);
        assert_int_equal(w.cu, -v.cu);
        assert_int_equal(w.exact, v.exact);
        assert_int_equal(theirs, mine);
        assert_int_equal(game_play(&st, seats[i], moves[i], NULL, NULL, 0), GAME_OK);
    }
    game_search *s = game_search_new(1 << 16);
    game_search_result r;
    assert_int_equal(game_search_value_for(s, &st, 2, &lim, &r), -1);   /* not a seat */
    game_search_free(s);
}

/* Sungka for three: every value is the paranoid search's for its seat —
 * before a move, the mover's (the seat to move); after it, still the
 * mover's, searched for it whoever moves next; at the end its margin over
 * the best of the others — and judgements and accuracies follow as with
 * two seats. */
static void sungka_of_three_matches_the_search(void **state)
{
    (void)state;
    const game_kind *k = game_kind_find("sungka");
    game_options o;
    game_options_default(k, &o);
    assert_int_equal(game_options_set(k, &o, "players", 3, NULL, 0), GAME_OK);
    assert_int_equal(game_options_set(k, &o, "cups", 4, NULL, 0), GAME_OK);
    assert_int_equal(game_options_set(k, &o, "stones", 3, NULL, 0), GAME_OK);
    int seats[MAX_PLIES], moves[MAX_PLIES];
    int n = play_game(k, &o, seats, moves, 3);
    assert_true(n > 6);

    game_analysis_budget budget = {.depth = 3, .time_ms = 600000};
    int accuracy[GAME_MAX_SEATS];
    game_analysis_move *a = review(k, &o, seats, moves, n, budget.depth, NULL, accuracy);

    game_search_limits lim;
    game_analysis_limits(k, &budget, &lim);
    int judge[3];
    game_analysis_thresholds(k, judge);
    game_state st;
    assert_int_equal(game_new(&st, k, &o, NULL, 0), GAME_OK);
    int passed_on = 0, judged = 0;
    bool moved[GAME_MAX_SEATS] = {0};
    for (int i = 0; i < n; i++) {
        int best;
        game_value before = fresh_value(k, &st, seats[i], &lim, &best);
        assert_int_equal(a[i].seat, seats[i]);
        assert_int_equal(a[i].best, best);
        assert_int_equal(a[i].before.cu, before.cu);
        assert_int_equal(a[i].before.exact, before.exact);
        assert_int_equal(game_play(&st, seats[i], moves[i], NULL, NULL, 0), GAME_OK);
        moved[seats[i]] = true;
        if (game_is_over(&st)) {
            int sc[GAME_MAX_SEATS], others = -1000;
            game_scores(&st, sc);
            for (int j = 0; j < 3; j++)
                if (j != seats[i] && sc[j] > others)
                    others = sc[j];
            assert_true(a[i].after.exact);
            assert_int_equal(a[i].after.cu, 100 * (sc[seats[i]] - others));
        } else {
            game_value after = fresh_value(k, &st, seats[i], &lim, NULL);
            assert_int_equal(a[i].after.cu, after.cu);
            assert_int_equal(a[i].after.exact, after.exact);
            passed_on += game_to_move(&st) != seats[i];
        }
        int loss = a[i].move == a[i].best ? 0 : a[i].before.cu - a[i].after.cu;
        assert_int_equal(a[i].loss, loss > 0 ? loss : 0);
        game_judgement want = GAME_JUDGE_GOOD;
        for (int t = 0; t < 3; t++)
            if (a[i].move != a[i].best && a[i].loss >= judge[t])
                want = (game_judgement)(t + 1);
        assert_true(a[i].judgement >= want);
        judged += a[i].judgement != GAME_JUDGE_GOOD;
        assert_in_range(a[i].accuracy, 0, 1000);
        /* A graph's point is the mover's own chance (a line a seat). */
        assert_true(game_analysis_graph_chance(k, 3, &a[i]) ==
                    game_analysis_chance(k, a[i].after));
    }
    /* The turn passed (the value after searched for a seat not to move). */
    assert_true(passed_on > 0);
    for (int j = 0; j < GAME_MAX_SEATS; j++) {
        if (j < 3 && moved[j])
            assert_in_range(accuracy[j], 0, 1000);
        else
            assert_int_equal(accuracy[j], -1);
    }
    (void)judged;
    free(a);
}

static void refuses_what_it_cannot_review(void **state)
{
    (void)state;
    game_options o;
    game_search *s = game_search_new(1 << 20);
    assert_non_null(s);
    int seats[1] = {0}, moves[1] = {0}, accuracy[GAME_MAX_SEATS];
    game_analysis_move a[1];
    char err[GAME_ERR_LEN];
    /* A move that does not replay is named. */
    const game_kind *k = game_kind_find("kalah");
    game_options_default(k, &o);
    moves[0] = 0;
    seats[0] = 1;
    assert_int_equal(game_analyse(s, k, &o, seats, moves, 1, NULL, a, accuracy, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "move 1"));
    int n;
    assert_int_equal(game_read_transcript(k, &o, "1 0 2\n2 1 9\n", seats, moves, 1, &n, err,
                                          sizeof err), -1);
    assert_non_null(strstr(err, "more than 1"));
    assert_int_equal(game_read_transcript(k, &o, "1 0 2\nx\n", seats, moves, 5, &n, err,
                                          sizeof err), -1);
    assert_non_null(strstr(err, "line 2"));
    game_search_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reversi_matches_the_engine),
        cmocka_unit_test(kalah_matches_the_table),
        cmocka_unit_test(value_for_either_seat),
        cmocka_unit_test(sungka_of_three_matches_the_search),
        cmocka_unit_test(refuses_what_it_cannot_review),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
