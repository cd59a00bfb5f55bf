/*
 * test_text_commands.c — the text view's one command table: every command
 * is found by its name (and the other words for some by theirs), no name is
 * there twice, every command has a handler, arguments and a help line;
 * help, printed from the table, shows every command with its help line, in
 * English and translated (Filipino: none of the English help lines left).
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

#include "text_commands.h"
#include "view.h"
#include "view_i18n.h"

static char *help_text(void)
{
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    text_commands_help(f);
    fclose(f);
    return text;
}

static void every_command_dispatches(void **state)
{
    (void)state;
    assert_true(text_commands_count() >= 30);
    for (int i = 0; i < text_commands_count(); i++) {
        const text_command *c = text_commands_at(i);
        assert_non_null(c->run);
        assert_non_null(c->args);
        assert_non_null(c->help);
        assert_true(c->help[0]);
        assert_ptr_equal(text_commands_find(c->name), c);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(text_commands_at(j)->name, c->name);
    }
    assert_string_equal(text_commands_find("say")->name, "chat");
    assert_string_equal(text_commands_find("exit")->name, "quit");
    assert_string_equal(text_commands_find("?")->name, "help");
    /* exact words, as before the table: no prefixes, no case folding */
    assert_null(text_commands_find("boar"));
    assert_null(text_commands_find("BOARD"));
    assert_null(text_commands_find("\x1b[A"));
    assert_null(text_commands_find(""));
    assert_null(text_commands_at(text_commands_count()));
}

static void help_shows_every_command(void **state)
{
    (void)state;
    char *text = help_text();
    for (int i = 0; i < text_commands_count(); i++) {
        const text_command *c = text_commands_at(i);
        char head[64];
        snprintf(head, sizeof head, "\n  %s ", c->name);
        assert_non_null(strstr(text, head));
        if (!strstr(text, c->help))
            fail_msg("help lacks %s's line '%s':\n%s", c->name, c->help, text);
    }
    assert_non_null(strstr(text, "Commands:\n"));
    assert_non_null(strstr(text, "\n  N           play cup"));
    free(text);
}

static void help_translated(void **state)
{
    (void)state;
    setenv("LANGUAGE", "fil", 1);
    setlocale(LC_ALL, "");
    char *text = help_text();
    assert_non_null(strstr(text, "Mga utos:\n"));
    for (int i = 0; i < text_commands_count(); i++) {
        const text_command *c = text_commands_at(i);
        char head[64];
        snprintf(head, sizeof head, "\n  %s ", c->name);     /* the words typed stay */
        assert_non_null(strstr(text, head));
        char line[512];
        snprintf(line, sizeof line, " %s\n", c->help);     /* a whole help line */
        if (strstr(text, line))
            fail_msg("help still says '%s' in Filipino:\n%s", c->help, text);
    }
    free(text);
    unsetenv("LANGUAGE");
    setlocale(LC_ALL, "");
}

int main(void)
{
    setenv("LANG", "C.UTF-8", 1);
    setenv("COLUMNS", "1000", 1);     /* help lines whole, unwrapped */
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    unsetenv("LANGUAGE");
    view_locale_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_command_dispatches),
        cmocka_unit_test(help_shows_every_command),
        cmocka_unit_test(help_translated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
