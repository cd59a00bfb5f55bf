/*
 * test_text.c — strict UTF-8 and the unprintable set: the overlong ESC that
 * an attack test slipped through, the controls and bidi characters that
 * reached other people's terminals, and escaping that never splits a
 * character.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "text.h"

static void strict_utf8(void **state)
{
    (void)state;
    uint32_t cp;
    assert_int_equal(text_utf8_next("A", 1, &cp), 1);
    assert_int_equal(cp, 'A');
    assert_int_equal(text_utf8_next("\xc3\xa9", 2, &cp), 2);      /* é */
    assert_int_equal(cp, 0xe9);
    assert_int_equal(text_utf8_next("\xf0\x9f\x8e\xb2", 4, &cp), 4);  /* 🎲 */
    assert_int_equal(cp, 0x1f3b2);
    assert_int_equal(text_utf8_next("\xc0\x9b", 2, &cp), -1);      /* overlong ESC */
    assert_int_equal(text_utf8_next("\xe0\x80\xaf", 3, &cp), -1);  /* overlong '/' */
    assert_int_equal(text_utf8_next("\xed\xa0\x80", 3, &cp), -1);  /* a surrogate */
    assert_int_equal(text_utf8_next("\xf4\x90\x80\x80", 4, &cp), -1);  /* > U+10FFFF */
    assert_int_equal(text_utf8_next("\x80", 1, &cp), -1);          /* lone continuation */
    assert_int_equal(text_utf8_next("\xc3", 1, &cp), -1);          /* cut short */
    assert_int_equal(text_utf8_next("\xff", 1, &cp), -1);
    assert_true(text_utf8_valid("mañana 🎲", strlen("mañana 🎲")));
    assert_false(text_utf8_valid("a\xc0\x9b", 3));
}

static void check_refuses(const char *s, const char *expect)
{
    char why[128];
    assert_int_equal(text_check(s, why, sizeof why), -1);
    assert_string_equal(why, expect);
}

static void what_people_may_type(void **state)
{
    (void)state;
    char why[128];
    assert_int_equal(text_check("Sungka, congklak — 好 🎲", why, sizeof why), 0);
    check_refuses("a\xc0\x9b", "is not valid UTF-8");
    check_refuses("\x1b]0;PWNED\x07", "contains a control character (U+001B)");
    check_refuses("x\xc2\x9b" "2J", "contains a control character (U+009B)");  /* C1 CSI */
    check_refuses("del\x7f", "contains a control character (U+007F)");
    check_refuses("evil\xe2\x80\xae" "txt.exe", "contains a bidirectional control (U+202E)");
    check_refuses("\xe2\x81\xa6x", "contains a bidirectional control (U+2066)");  /* isolate */
    check_refuses("ali\xe2\x80\x8b" "ce", "contains an invisible character (U+200B)");
    check_refuses("\xef\xbb\xbf" "bom", "contains an invisible character (U+FEFF)");
    /* Default_Ignorable_Code_Point, not a list: fillers that make a name
     * wholly invisible, a grapheme joiner, a Mongolian vowel separator, a
     * variation selector (each passed before). */
    check_refuses("\xe3\x85\xa4", "contains an invisible character (U+3164)");
    check_refuses("\xe1\x85\x9f" "x", "contains an invisible character (U+115F)");
    check_refuses("x" "\xe1\x85\xa0", "contains an invisible character (U+1160)");
    check_refuses("a" "\xcd\x8f" "b", "contains an invisible character (U+034F)");
    check_refuses("a" "\xe1\xa0\x8e" "b", "contains an invisible character (U+180E)");
    check_refuses("a" "\xef\xb8\x8f", "contains an invisible character (U+FE0F)");
    check_refuses("tab\there", "contains a control character (U+0009)");
}

static void escaping(void **state)
{
    (void)state;
    char out[64];
    text_escape("\x1b]0;PWNED\x07\x1b[2J", out, sizeof out);
    assert_string_equal(out, "\\u{1B}]0;PWNED\\u{7}\\u{1B}[2J");
    text_escape("a\xc0\x9b" "b", out, sizeof out);           /* two bad bytes */
    assert_string_equal(out, "a\xef\xbf\xbd\xef\xbf\xbd" "b");
    text_escape("r\xe2\x80\xae" "l", out, sizeof out);
    assert_string_equal(out, "r\\u{202E}l");
    text_escape("café", out, sizeof out);
    assert_string_equal(out, "café");
    /* Too long: cut between characters, never inside "é" or an escape. */
    char small[5];
    assert_int_equal(text_escape("abcé", small, sizeof small), 3);
    assert_string_equal(small, "abc");
    assert_int_equal(text_escape("a\x1b", small, sizeof small), 1);
    assert_string_equal(small, "a");
}

static void truncating(void **state)
{
    (void)state;
    char out[16];
    text_truncate("ééééé", 3, out, sizeof out);
    assert_string_equal(out, "ééé");
    assert_int_equal(text_chars("ééé"), 3);
    text_truncate("ééééé", 10, out, 6);                 /* room for 2 and the NUL */
    assert_string_equal(out, "éé");
    text_truncate("abc", 10, out, sizeof out);
    assert_string_equal(out, "abc");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strict_utf8),
        cmocka_unit_test(what_people_may_type),
        cmocka_unit_test(escaping),
        cmocka_unit_test(truncating),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
