/*
 * test_text_draw.c — the text view's boards fit the terminal: every kind,
 * at its defaults and at the largest value of every option (and with every
 * stone in one home, for the widest counts), drawn at 40 and at 80 columns
 * with long and wide-character names, has no line wider than the width
 * (display columns, as a terminal counts them). Also: at 80 columns the
 * default two-seat board keeps its roomy layout ("[   7]"), and the seats'
 * lines fit too.
 */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "text_draw.h"

static const char *const names[] = {
    "alice",
    "a-very-long-player-name-that-goes-on-and-on-and-on",
    "名前がとても長いプレイヤーの名前です",      /* wide: two columns a character */
};

/* Every line of text at most width columns; the widest line's width. */
static int widest(const char *text, size_t len, int width, const char *what)
{
    int most = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        int w = text_display_width(p, n);
        if (w > width)
            fail_msg("%s: a line of %d columns at width %d:\n%.*s\n--- whole drawing:\n%s",
                     what, w, width, (int)n, p, text);
        if (w > most)
            most = w;
        p += n + 1;
    }
    return most;
}

static void model_for(agent_model *m, const game_kind *kind, const game_options *opts,
                      const char *name, bool one_home)
{
    memset(m, 0, sizeof *m);
    m->kind = kind;
    m->opts = *opts;
    char err[256];
    assert_int_equal(game_new(&m->state, kind, opts, err, sizeof err), GAME_OK);
    m->have_state = true;
    m->my_seat = 1 % game_seats(&m->state);
    m->hot_seat = -1;
    m->status = AGENT_GAME_RUNNING;
    for (int s = 0; s < game_seats(&m->state); s++) {
        snprintf(m->seat_name[s], sizeof m->seat_name[s], "%s", name);
        agent_person *p = &m->people[m->n_people++];
        snprintf(p->name, sizeof p->name, "%s", name);
        p->seat = s;
        p->rtt_ms = 123;
        p->out = s == 0;
    }
    agent_person *watcher = &m->people[m->n_people++];
    snprintf(watcher->name, sizeof watcher->name, "eve");   /* a list the terminal wraps */
    watcher->seat = -1;
    m->n_observers = 40;
    if (one_home && game_draw_style(&m->state) == GAME_DRAW_MANCALA) {
        int cells[GAME_MAX_CELLS] = {0}, total = 0;
        for (int i = 0; i < game_cell_count(&m->state); i++)
            total += game_cell(&m->state, i);
        cells[game_mancala_home(&m->state, 0)] = total;
        assert_int_equal(game_load(&m->state, cells, game_cell_count(&m->state), 0, false),
                         GAME_OK);
    }
}

static int draw_and_check(const agent_model *m, int width, int limit, const char *what)
{
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    int legal[GAME_MAX_MOVES];
    int n = game_legal_moves(&m->state, legal, GAME_MAX_MOVES);
    text_draw_board(f, m, legal, n, width);
    text_draw_people(f, m, width);
    fclose(f);
    if (getenv("SHOW_DRAWINGS"))
        printf("%s at %d:\n%s", what, width, text);
    int most = widest(text, len, limit, what);
    free(text);
    return most;
}

/* Each kind's option sets: the defaults, then every option at its largest
 * (sungka also with two seats and twelve cups: the widest two-seat board). */
static void each_kind(int width)
{
    for (int k = 0; k < game_kind_count(); k++) {
        const game_kind *kind = game_kind_at(k);
        game_options sets[3];
        int n_sets = 0;
        game_options_default(kind, &sets[n_sets++]);
        game_options big;
        game_options_default(kind, &big);
        for (int i = 0; i < kind->n_options; i++)
            game_options_set(kind, &big, kind->options[i].name, kind->options[i].max, NULL, 0);
        sets[n_sets++] = big;
        if (game_option(kind, &big, "players", -1) > 2) {
            game_options two = big;
            assert_int_equal(game_options_set(kind, &two, "players", 2, NULL, 0), GAME_OK);
            sets[n_sets++] = two;
        }
        for (int o = 0; o < n_sets; o++)
            for (size_t nm = 0; nm < sizeof names / sizeof names[0]; nm++)
                for (int one_home = 0; one_home <= 1; one_home++) {
                    agent_model *m = malloc(sizeof *m);
                    assert_non_null(m);
                    model_for(m, kind, &sets[o], names[nm], one_home);
                    char what[128];
                    snprintf(what, sizeof what, "%s, option set %d, name %zu%s", kind->name,
                             o, nm, one_home ? ", every stone in one home" : "");
                    draw_and_check(m, width, width, what);
                    free(m);
                }
    }
}

static void fits_40_columns(void **state)
{
    (void)state;
    each_kind(40);
}

static void fits_80_columns(void **state)
{
    (void)state;
    each_kind(80);
}

/* A narrower width is drawn as 40, never narrower. */
static void below_40_is_40(void **state)
{
    (void)state;
    agent_model *m = malloc(sizeof *m);
    assert_non_null(m);
    game_options o;
    game_options_default(game_kind_find("sungka"), &o);
    model_for(m, game_kind_find("sungka"), &o, names[1], false);
    assert_true(draw_and_check(m, 10, 40, "sungka at 10") > 30);
    free(m);
}

/* The roomy board at 80 columns (what the e2e tests and the README show);
 * twelve cups at 80 take narrower cells instead of overflowing. */
static void roomy_when_it_fits(void **state)
{
    (void)state;
    const game_kind *sungka = game_kind_find("sungka");
    agent_model *m = malloc(sizeof *m);
    assert_non_null(m);
    game_options o;
    game_options_default(sungka, &o);
    model_for(m, sungka, &o, "bob", false);
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    text_draw_board(f, m, NULL, 0, 80);
    fclose(f);
    assert_non_null(strstr(text, "[   7][   7][   7][   7][   7][   7]"));
    assert_non_null(strstr(text, "   -> bob (you)"));
    free(text);

    game_options_set(sungka, &o, "cups", 12, NULL, 0);
    model_for(m, sungka, &o, "bob", false);
    f = open_memstream(&text, &len);
    text_draw_board(f, m, NULL, 0, 80);
    fclose(f);
    assert_non_null(strstr(text, "[  7][  7][  7][  7][  7][  7][  7][  7][  7][  7][  7][  7]"));
    free(text);
    free(m);
}

int main(void)
{
    if (!setlocale(LC_ALL, "C.UTF-8"))
        return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fits_40_columns),
        cmocka_unit_test(fits_80_columns),
        cmocka_unit_test(below_40_is_40),
        cmocka_unit_test(roomy_when_it_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
