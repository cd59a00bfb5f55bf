/*
 * test_options.c — the registry of kinds, option defaults / set / parse /
 * lookup with their error sentences, option validation in game_new, and the
 * checks of game_load.
 */
#include "games_test.h"

#include <string.h>

static const game_kind *sungka(void)
{
    const game_kind *k = game_kind_find("sungka");
    assert_non_null(k);
    return k;
}

static void test_registry(void **state)
{
    (void)state;
    assert_true(game_kind_count() >= 1);
    const game_kind *k = sungka();
    assert_string_equal(k->name, "sungka");
    assert_int_equal(k->layout, GAME_LAYOUT_MANCALA);
    assert_null(game_kind_find("chess"));
    assert_null(game_kind_find(NULL));
    assert_null(game_kind_at(-1));
    assert_null(game_kind_at(game_kind_count()));
    bool found = false;
    for (int i = 0; i < game_kind_count(); i++) {
        assert_non_null(game_kind_at(i));
        assert_ptr_equal(game_kind_find(game_kind_at(i)->name), game_kind_at(i));
        found |= game_kind_at(i) == k;
    }
    assert_true(found);
}

static void test_defaults(void **state)
{
    (void)state;
    const game_kind *k = sungka();
    game_options o;
    memset(&o, 0x5a, sizeof o);
    game_options_default(k, &o);
    assert_int_equal(o.n, 3);
    assert_int_equal(game_option(k, &o, "players", -1), 2);
    assert_int_equal(game_option(k, &o, "cups", -1), 6);
    assert_int_equal(game_option(k, &o, "stones", -1), 7);
    assert_int_equal(game_option(k, &o, "size", -1), -1);

    game_state st;
    char err[GAME_ERR_LEN];
    assert_int_equal(game_new(&st, k, &o, err, sizeof err), GAME_OK);
    assert_int_equal(game_seats(&st), 2);
    assert_int_equal(game_cell_count(&st), 14);
    assert_int_equal(board_total(&st), 84);
    assert_int_equal(game_to_move(&st), 0);
    assert_false(game_is_over(&st));
    assert_int_equal(game_mancala_home(&st, 1), 13);
    assert_int_equal(game_mancala_cup(&st, 1, 2), 9);

    /* NULL options mean the defaults. */
    game_state st2;
    assert_int_equal(game_new(&st2, k, NULL, err, sizeof err), GAME_OK);
    assert_memory_equal(&st, &st2, sizeof st);
}

/* min-1 and max+1 of every option are refused with the sentence; min and max
 * are accepted and leave the other options alone. */
static void test_set_ranges(void **state)
{
    (void)state;
    const game_kind *k = sungka();
    game_options o;
    char err[GAME_ERR_LEN];
    static const option_bounds cases[] = {
        {"players", 2, 6, "players must be 2..6, not 1", "players must be 2..6, not 7"},
        {"cups", 3, 12, "cups must be 3..12, not 2", "cups must be 3..12, not 13"},
        {"stones", 1, 20, "stones must be 1..20, not 0", "stones must be 1..20, not 21"},
    };
    assert_option_bounds(k, cases, sizeof cases / sizeof cases[0]);
    game_options_default(k, &o);
    assert_int_equal(game_options_set(k, &o, "cups", 40, err, sizeof err), GAME_E_OPTION);
    assert_string_equal(err, "cups must be 3..12, not 40");
    assert_int_equal(game_options_set(k, &o, "size", 8, err, sizeof err), GAME_E_OPTION);
    assert_string_equal(err, "sungka has no option 'size' (options: players, cups, stones)");

    /* Options that do not belong to the kind (zeroed) start from the defaults. */
    game_options z;
    memset(&z, 0, sizeof z);
    assert_int_equal(game_options_set(k, &z, "cups", 9, err, sizeof err), GAME_OK);
    assert_int_equal(z.n, 3);
    assert_int_equal(game_option(k, &z, "players", -1), 2);
    assert_int_equal(game_option(k, &z, "cups", -1), 9);
    assert_int_equal(game_option(k, &z, "stones", -1), 7);
}

static void test_parse(void **state)
{
    (void)state;
    const game_kind *k = sungka();
    game_options o;
    char err[GAME_ERR_LEN];
    game_options_default(k, &o);
    assert_int_equal(game_options_parse(k, &o, "cups=7", err, sizeof err), GAME_OK);
    assert_int_equal(game_options_parse(k, &o, "players=+6", err, sizeof err), GAME_OK);
    assert_int_equal(game_options_parse(k, &o, "stones=020", err, sizeof err), GAME_OK);
    assert_int_equal(o.value[0], 6);
    assert_int_equal(o.value[1], 7);
    assert_int_equal(o.value[2], 20);

    game_options before = o;
    static const struct {
        const char *text, *error;
    } bad[] = {
        {"cups=40", "cups must be 3..12, not 40"},
        {"cups=-1", "cups must be 3..12, not -1"},
        {"cups=abc", "cups must be an integer 3..12, not 'abc'"},
        {"cups=", "cups must be an integer 3..12, not ''"},
        {"cups=7x", "cups must be an integer 3..12, not '7x'"},
        {"cups= 7", "cups must be an integer 3..12, not ' 7'"},
        {"cups=7 ", "cups must be an integer 3..12, not '7 '"},
        {"cups=-", "cups must be an integer 3..12, not '-'"},
        {"cups=0x7", "cups must be an integer 3..12, not '0x7'"},
        {"cups=99999999999999999999", "cups must be 3..12, not 99999999999999999999"},
        {"cups=4294967303", "cups must be 3..12, not 4294967303"}, /* 2^32+7 */
        {"cups=-2147483649", "cups must be 3..12, not -2147483649"},
        {"size=8", "sungka has no option 'size' (options: players, cups, stones)"},
        {"cup=8", "sungka has no option 'cup' (options: players, cups, stones)"},
        {"cupsx=8", "sungka has no option 'cupsx' (options: players, cups, stones)"},
        {"cups", "options are written name=value (e.g. players=2), not 'cups'"},
        {"=7", "options are written name=value (e.g. players=2), not '=7'"},
        {"", "options are written name=value (e.g. players=2), not ''"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        int rc = game_options_parse(k, &o, bad[i].text, err, sizeof err);
        if (rc != GAME_E_OPTION || strcmp(err, bad[i].error) != 0)
            fail_msg("'%s' gave %d '%s', expected '%s'", bad[i].text, rc, err, bad[i].error);
        assert_memory_equal(&before, &o, sizeof o);
    }
}

/* game_new validates options it did not build itself. */
static void test_new_validates(void **state)
{
    (void)state;
    const game_kind *k = sungka();
    game_options o;
    game_state st;
    char err[GAME_ERR_LEN];
    game_options_default(k, &o);
    o.value[1] = 40;
    assert_int_equal(game_new(&st, k, &o, err, sizeof err), GAME_E_OPTION);
    assert_string_equal(err, "cups must be 3..12, not 40");
    game_options_default(k, &o);
    o.value[0] = 1;
    assert_int_equal(game_new(&st, k, &o, err, sizeof err), GAME_E_OPTION);
    assert_string_equal(err, "players must be 2..6, not 1");
    memset(&o, 0, sizeof o);
    assert_int_equal(game_new(&st, k, &o, err, sizeof err), GAME_E_OPTION);
    assert_string_equal(err, "sungka takes 3 option values, not 0 (start from the defaults)");
    assert_int_equal(game_new(&st, NULL, NULL, err, sizeof err), GAME_E_OPTION);

    /* Largest board: 6 seats x 13 cells, 1440 stones. */
    game_options_default(k, &o);
    assert_int_equal(game_options_parse(k, &o, "players=6", err, sizeof err), GAME_OK);
    assert_int_equal(game_options_parse(k, &o, "cups=12", err, sizeof err), GAME_OK);
    assert_int_equal(game_options_parse(k, &o, "stones=20", err, sizeof err), GAME_OK);
    assert_int_equal(game_new(&st, k, &o, err, sizeof err), GAME_OK);
    assert_int_equal(game_cell_count(&st), 78);
    assert_int_equal(board_total(&st), 1440);
    int moves[GAME_MAX_MOVES];
    assert_int_equal(game_legal_moves(&st, moves, GAME_MAX_MOVES), 12);
}

static void test_load(void **state)
{
    (void)state;
    game_state st, copy;
    char err[GAME_ERR_LEN];
    assert_int_equal(game_new(&st, sungka(), NULL, err, sizeof err), GAME_OK);
    copy = st;
    int cells[14] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};

    assert_int_equal(game_load(&st, cells, 13, 0, false), GAME_E_RANGE);
    assert_int_equal(game_load(&st, cells, 15, 0, false), GAME_E_RANGE);
    assert_int_equal(game_load(&st, NULL, 14, 0, false), GAME_E_RANGE);
    assert_int_equal(game_load(&st, cells, 14, 2, false), GAME_E_RANGE);
    assert_int_equal(game_load(&st, cells, 14, -1, false), GAME_E_RANGE);
    assert_int_equal(game_load(&st, cells, 14, 0, true), GAME_E_RANGE);
    cells[3] = -1;
    assert_int_equal(game_load(&st, cells, 14, 0, false), GAME_E_RANGE);
    cells[3] = 32768;
    assert_int_equal(game_load(&st, cells, 14, 0, false), GAME_E_RANGE);
    cells[3] = 32767; /* fits a cell, but the total would not */
    assert_int_equal(game_load(&st, cells, 14, 0, false), GAME_E_RANGE);
    assert_memory_equal(&copy, &st, sizeof st);

    cells[3] = 4;
    assert_int_equal(game_load(&st, cells, 14, 1, false), GAME_OK);
    for (int i = 0; i < 14; i++)
        assert_int_equal(game_cell(&st, i), i + 1);
    assert_int_equal(game_to_move(&st), 1);
    assert_int_equal(game_load(&st, cells, 14, -1, true), GAME_OK);
    assert_true(game_is_over(&st));
    assert_int_equal(game_to_move(&st), -1);
}

/* What Register.ListKinds advertises comes from these: every advertised
 * value makes a game, every value beside them is refused, and the seats and
 * cells are said for every kind. */
static void test_descriptions(void **state)
{
    (void)state;
    char err[GAME_ERR_LEN];
    for (int i = 0; i < game_kind_count(); i++) {
        const game_kind *k = game_kind_at(i);
        int lo, hi;
        game_kind_seats(k, &lo, &hi);
        assert_true(lo >= 2 && lo <= hi && hi <= GAME_MAX_SEATS);
        assert_true(strlen(game_kind_cells_help(k)) > 20);
        for (int j = 0; j < k->n_options; j++) {
            const game_option_spec *o = &k->options[j];
            int edges[] = {o->min, o->max, o->def};
            for (int e = 0; e < 3; e++) {
                game_options opts;
                game_state st;
                game_options_default(k, &opts);
                assert_true(game_option_allows(o, edges[e]));
                assert_int_equal(game_options_set(k, &opts, o->name, edges[e], err, sizeof err),
                                 GAME_OK);
                assert_int_equal(game_new(&st, k, &opts, err, sizeof err), GAME_OK);
                if (strcmp(o->name, "players") == 0)
                    assert_int_equal(game_seats(&st), edges[e]);
                else if (e == 2)
                    assert_true(game_seats(&st) >= lo && game_seats(&st) <= hi);
            }
            int outside[] = {o->min - 1, o->max + 1, o->step > 1 ? o->min + 1 : o->min - 1};
            for (int e = 0; e < 3; e++) {
                game_options opts;
                game_options_default(k, &opts);
                assert_false(game_option_allows(o, outside[e]));
                assert_int_equal(game_options_set(k, &opts, o->name, outside[e], err,
                                                  sizeof err), GAME_E_OPTION);
            }
        }
    }
    int lo, hi;
    game_kind_seats(game_kind_find("sungka"), &lo, &hi);
    assert_int_equal(lo, 2);
    assert_int_equal(hi, 6);
    game_kind_seats(game_kind_find("kalah"), &lo, &hi);
    assert_int_equal(lo, 2);
    assert_int_equal(hi, 2);
    const game_kind *rv = game_kind_find("reversi");
    assert_int_equal(rv->options[0].step, 2);
    assert_non_null(strstr(game_kind_cells_help(rv), "y*size+x"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_set_ranges),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_new_validates),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_descriptions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
