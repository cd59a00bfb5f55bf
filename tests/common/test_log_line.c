/*
 * test_log_line.c — a server's log line (log_line.h): the journal's form
 * ("<N>text", no time stamp) exactly when JOURNAL_STREAM names the very
 * file the line goes to, the time-stamped form anywhere else, and a level
 * outside syslog's error..debug clamped into it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "log_line.h"

static void set_stream(FILE *f, long ino_delta)
{
    struct stat st;
    assert_int_equal(fstat(fileno(f), &st), 0);
    char v[64];
    snprintf(v, sizeof v, "%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino + ino_delta);
    assert_int_equal(setenv("JOURNAL_STREAM", v, 1), 0);
}

static void journal_only_when_it_names_the_file(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    unsetenv("JOURNAL_STREAM");
    assert_false(log_line_to_journal(f));
    set_stream(f, 0);
    assert_true(log_line_to_journal(f));
    set_stream(f, 1);                  /* another file: a script redirected stderr */
    assert_false(log_line_to_journal(f));
    setenv("JOURNAL_STREAM", "", 1);
    assert_false(log_line_to_journal(f));
    setenv("JOURNAL_STREAM", "12:34x", 1);
    assert_false(log_line_to_journal(f));
    setenv("JOURNAL_STREAM", "not a stream", 1);
    assert_false(log_line_to_journal(f));
    unsetenv("JOURNAL_STREAM");
    fclose(f);
}

static void write_line(FILE *f, bool journal, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line_write(f, journal, level, fmt, ap);
    va_end(ap);
}

static const char *contents(FILE *f, char *buf, size_t len)
{
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    return buf;
}

static void journal_form(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    write_line(f, true, LOG_NOTICE, "client %s: limit reached: %d", "127.0.0.1", 7);
    write_line(f, true, LOG_ERR, "a store that fails");
    write_line(f, true, LOG_INFO, "a game made");
    write_line(f, true, 0, "clamped up");       /* LOG_EMERG is not ours */
    write_line(f, true, 42, "clamped down");
    char buf[512];
    assert_string_equal(contents(f, buf, sizeof buf),
                        "<5>client 127.0.0.1: limit reached: 7\n"
                        "<3>a store that fails\n"
                        "<6>a game made\n"
                        "<3>clamped up\n"
                        "<7>clamped down\n");
    fclose(f);
}

static void terminal_form(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    write_line(f, false, LOG_WARNING, "the loop stalled for %d ms", 1500);
    char buf[256];
    const char *got = contents(f, buf, sizeof buf);
    /* "HH:MM:SS the loop stalled for 1500 ms\n", and no priority */
    assert_int_equal(strlen(got), 9 + strlen("the loop stalled for 1500 ms\n"));
    for (int i = 0; i < 8; i++)
        assert_true(i % 3 == 2 ? got[i] == ':' : (got[i] >= '0' && got[i] <= '9'));
    assert_string_equal(got + 8, " the loop stalled for 1500 ms\n");
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(journal_only_when_it_names_the_file),
        cmocka_unit_test(journal_form),
        cmocka_unit_test(terminal_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
