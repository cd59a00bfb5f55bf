/*
 * test_names.c — names that cannot pass for one another: NFC, case, the
 * invisible characters that made "alice" + U+200B a second alice, the
 * Cyrillic "а" that made a look-alike, the capitals that pass for other
 * letters ("aIice", "B0B"), and the display form kept as typed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "accounts.h"

static int setup(void **state)
{
    (void)state;
    return accounts_init();
}

static accounts_name prepared(const char *in)
{
    accounts_name n;
    char err[128];
    accounts_rc rc = accounts_name_prepare(in, &n, err, sizeof err);
    if (rc != ACCOUNTS_OK)
        fail_msg("'%s' refused: %s", in, err);
    return n;
}

static void refused(const char *in, accounts_rc expect, const char *fragment)
{
    accounts_name n;
    char err[128] = "";
    assert_int_equal(accounts_name_prepare(in, &n, err, sizeof err), expect);
    if (!strstr(err, fragment))
        fail_msg("refusing '%s' said '%s', wanted '%s'", in, err, fragment);
}

static void nfc(void **state)
{
    (void)state;
    /* "é" precomposed and as e + U+0301 are one name, shown precomposed */
    accounts_name a = prepared("Jos\xc3\xa9"), b = prepared("Jose\xcc\x81");
    assert_string_equal(b.display, "Jos\xc3\xa9");
    assert_true(accounts_names_equal(&a, &b));
    assert_true(accounts_names_confusable(&a, &b));
}

static void case_insensitive(void **state)
{
    (void)state;
    accounts_name a = prepared("alice"), b = prepared("ALICE"), c = prepared("AlIcE");
    assert_true(accounts_names_equal(&a, &b));
    assert_true(accounts_names_equal(&a, &c));
    assert_string_equal(b.key, "alice");
    /* full case folding: ß folds to ss */
    accounts_name d = prepared("stra\xc3\x9f" "e"), e = prepared("STRASSE");
    assert_true(accounts_names_equal(&d, &e));
    accounts_name f = prepared("bob");
    assert_false(accounts_names_equal(&a, &f));
    assert_false(accounts_names_confusable(&a, &f));
}

static void display_kept(void **state)
{
    (void)state;
    accounts_name a = prepared("  Maria Clara ");
    assert_string_equal(a.display, "Maria Clara");
    assert_string_equal(a.key, "maria clara");
    accounts_name b = prepared("\xe3\x81\x95\xe3\x81\x8f\xe3\x82\x89");   /* さくら */
    assert_string_equal(b.display, "\xe3\x81\x95\xe3\x81\x8f\xe3\x82\x89");
}

static void invisible_refused(void **state)
{
    (void)state;
    refused("alice\xe2\x80\x8b", ACCOUNTS_E_CHARACTER, "U+200B");      /* zero-width space */
    refused("ali\xe2\x80\x8d" "ce", ACCOUNTS_E_CHARACTER, "U+200D");   /* zero-width joiner */
    refused("\xe2\x80\xae" "ecila", ACCOUNTS_E_CHARACTER, "U+202E");   /* RTL override */
    refused("al\xe2\x81\xa6ice", ACCOUNTS_E_CHARACTER, "U+2066");      /* LR isolate */
    refused("a\x1b[31mlice", ACCOUNTS_E_CHARACTER, "U+001B");
    refused("\xef\xbb\xbf" "alice", ACCOUNTS_E_CHARACTER, "U+FEFF");
    refused("al\xe3\x85\xa4ice", ACCOUNTS_E_CHARACTER, "U+3164");       /* Hangul filler */
    refused("ali\xc2\xa0" "ce", ACCOUNTS_E_CHARACTER, "U+00A0");        /* no-break space */
    refused("al\xee\x80\x80" "ice", ACCOUNTS_E_CHARACTER, "U+E000");    /* private use */
    refused("ali  ce", ACCOUNTS_E_CHARACTER, "two spaces");
    refused("ali\xc0\x9b", ACCOUNTS_E_CHARACTER, "UTF-8");
}

static void lengths(void **state)
{
    (void)state;
    refused("", ACCOUNTS_E_LENGTH, "1..32");
    refused("   ", ACCOUNTS_E_LENGTH, "1..32");
    prepared("abcdefghijklmnopqrstuvwxyz012345");                   /* 32 */
    refused("abcdefghijklmnopqrstuvwxyz0123456", ACCOUNTS_E_LENGTH, "1..32");
    /* characters, not bytes: 32 three-byte characters are fine */
    char wide[32 * 3 + 1] = "";
    for (int i = 0; i < 32; i++)
        strcat(wide, "\xe3\x81\x95");
    prepared(wide);
}

static void cyrillic_a_confusable(void **state)
{
    (void)state;
    accounts_name latin = prepared("alice");
    accounts_name cyr = prepared("\xd0\xb0lice");          /* Cyrillic а + "lice" */
    assert_false(accounts_names_equal(&latin, &cyr));
    assert_true(accounts_names_confusable(&latin, &cyr));
    assert_string_equal(latin.skeleton, cyr.skeleton);
    /* ... in upper case too, and whole-script: Cyrillic "АСЕ" vs Latin "ace" */
    accounts_name up = prepared("\xd0\x90LICE");
    assert_true(accounts_names_confusable(&latin, &up));
    accounts_name ace = prepared("ace"), cyr_ace = prepared("\xd0\x90\xd0\xa1\xd0\x95");
    assert_true(accounts_names_confusable(&ace, &cyr_ace));
    /* "rn" passes for "m"; "l" for "1" and "I" */
    accounts_name rn = prepared("rnary"), m = prepared("mary");
    assert_true(accounts_names_confusable(&rn, &m));
    accounts_name one = prepared("bi11"), ell = prepared("bill");
    assert_true(accounts_names_confusable(&one, &ell));
}

/* Capitals that pass for other letters: "I" for "l", "0" for "O". Folding
 * first made them "i" and "o", so the skeleton of the key missed them. */
static void capitals_confusable(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"alice", "aIice"},  {"BOB", "B0B"},    {"bob", "B0B"},   {"WILL", "WlLL"},
        {"WILL", "wiII"},    {"will", "wiII"},  {"Iris", "lris"}, {"OTTO", "0TT0"},
        {"\xd0\x90LICE", "aIice"},                /* Cyrillic "А" + LICE, and aIice */
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        accounts_name a = prepared(pairs[i][0]), b = prepared(pairs[i][1]);
        assert_false(accounts_names_equal(&a, &b));
        if (!accounts_names_confusable(&a, &b) || !accounts_names_confusable(&b, &a))
            fail_msg("'%s' (skeleton '%s', look '%s') and '%s' ('%s', '%s') should be "
                     "confusable", pairs[i][0], a.skeleton, a.look, pairs[i][1], b.skeleton,
                     b.look);
    }
    accounts_name a = prepared("aIice");
    assert_string_equal(a.look, "alice");
    assert_string_equal(a.display, "aIice");      /* shown as typed */
    /* Names that only share letters are still different people. */
    static const char *const apart[][2] = {
        {"alice", "alicia"}, {"BOB", "BOBBY"}, {"WILL", "WALL"}, {"Iris", "Irma"},
    };
    for (size_t i = 0; i < sizeof apart / sizeof apart[0]; i++) {
        accounts_name x = prepared(apart[i][0]), y = prepared(apart[i][1]);
        if (accounts_names_confusable(&x, &y))
            fail_msg("'%s' and '%s' should not be confusable", apart[i][0], apart[i][1]);
    }
}

/* Invisible fillers in a name that would otherwise look like another. */
static void fillers_refused(void **state)
{
    (void)state;
    refused("alice\xe3\x85\xa4", ACCOUNTS_E_CHARACTER, "U+3164");      /* Hangul filler */
    refused("\xe1\x85\x9f" "alice", ACCOUNTS_E_CHARACTER, "U+115F");   /* choseong filler */
    refused("ali\xe1\x85\xa0" "ce", ACCOUNTS_E_CHARACTER, "U+1160");   /* jungseong filler */
    refused("alic\xef\xbe\xa0" "e", ACCOUNTS_E_CHARACTER, "U+FFA0");   /* halfwidth filler */
    refused("al\xe2\xa0\x80ice", ACCOUNTS_E_CHARACTER, "U+2800");      /* braille blank */
}

static void scripts(void **state)
{
    (void)state;
    char err[160];
    accounts_name n = prepared("\xd0\xb0lice");      /* Latin with one Cyrillic letter */
    assert_int_equal(accounts_name_check_scripts(&n, err, sizeof err), ACCOUNTS_E_SCRIPTS);
    assert_non_null(strstr(err, "scripts"));
    const char *fine[] = {"alice", "\xd0\xbc\xd0\xb0\xd1\x88\xd0\xb0",   /* маша */
                          "Tanaka \xe7\x94\xb0\xe4\xb8\xad", "Juan dela Cruz 3"};
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        n = prepared(fine[i]);
        if (accounts_name_check_scripts(&n, err, sizeof err) != ACCOUNTS_OK)
            fail_msg("'%s' refused: %s", fine[i], err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nfc),
        cmocka_unit_test(case_insensitive),
        cmocka_unit_test(display_kept),
        cmocka_unit_test(invisible_refused),
        cmocka_unit_test(lengths),
        cmocka_unit_test(cyrillic_a_confusable),
        cmocka_unit_test(capitals_confusable),
        cmocka_unit_test(fillers_refused),
        cmocka_unit_test(scripts),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
