/*
 * test_xdg.c — where files go (absolute XDG variables only, $HOME's defaults
 * otherwise), private directories, and secret files that are 0600 whatever
 * the umask and never written through something already there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "xdg.h"

static char tmp[64];

static int make_tmp(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "/tmp/sungka-xdg-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    return 0;
}

static int remove_tmp(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd);
}

static void where_files_go(void **state)
{
    (void)state;
    char out[512], want[512];
    setenv("HOME", tmp, 1);
    setenv("XDG_STATE_HOME", "/somewhere/state", 1);
    assert_int_equal(xdg_sungka_dir(XDG_STATE, false, out, sizeof out), 0);
    assert_string_equal(out, "/somewhere/state/sungka");
    setenv("XDG_STATE_HOME", "relative/state", 1);      /* the spec ignores it */
    assert_int_equal(xdg_sungka_dir(XDG_STATE, false, out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/.local/state/sungka", tmp);
    assert_string_equal(out, want);
    unsetenv("XDG_DATA_HOME");
    assert_int_equal(xdg_sungka_dir(XDG_DATA, true, out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/.local/share/sungka", tmp);
    assert_string_equal(out, want);
    struct stat st;
    assert_int_equal(stat(out, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);
    unsetenv("XDG_CONFIG_HOME");
    assert_int_equal(xdg_sungka_dir(XDG_CONFIG, false, out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/.config/sungka", tmp);
    assert_string_equal(out, want);
    char small[8];
    assert_int_equal(xdg_sungka_dir(XDG_CONFIG, false, small, sizeof small), -1);
}

static void private_dirs(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/a/b/c", tmp);
    assert_int_equal(xdg_make_dirs(path), 0);
    assert_int_equal(xdg_make_dirs(path), 0);          /* already there: fine */
    char file[256];
    snprintf(file, sizeof file, "%s/a/plain", tmp);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(xdg_make_dirs(file), -1);         /* a file, not a directory */
}

static void secret_files(void **state)
{
    (void)state;
    char path[256], link[256];
    snprintf(path, sizeof path, "%s/tokens", tmp);
    mode_t old = umask(0);                             /* the most permissive there is */
    int fd = xdg_create_private(path);
    umask(old);
    assert_true(fd >= 0);
    close(fd);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(xdg_create_private(path), -1);    /* never over what is there */
    snprintf(link, sizeof link, "%s/link", tmp);
    assert_int_equal(symlink("/tmp/sungka-xdg-elsewhere", link), 0);
    assert_int_equal(xdg_create_private(link), -1);    /* nor through a link */
    assert_int_equal(access("/tmp/sungka-xdg-elsewhere", F_OK), -1);
}

/* A state file's path: in the directory given (made 0700), else in the XDG
 * state directory; nowhere when the directory given is "". */
static void state_files(void **state)
{
    (void)state;
    char out[512], want[512], dir[300];
    assert_int_equal(xdg_state_file("", "tokens", out, sizeof out), -1);
    snprintf(dir, sizeof dir, "%s/given/deeper", tmp);
    assert_int_equal(xdg_state_file(dir, "tokens", out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/tokens", dir);
    assert_string_equal(out, want);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    setenv("HOME", tmp, 1);
    unsetenv("XDG_STATE_HOME");
    assert_int_equal(xdg_state_file(NULL, "sessions", out, sizeof out), 0);
    snprintf(want, sizeof want, "%s/.local/state/sungka/sessions", tmp);
    assert_string_equal(out, want);
    assert_int_equal(xdg_state_file(dir, "sessions", out, 8), -1);   /* does not fit */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(where_files_go, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(private_dirs, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(secret_files, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(state_files, make_tmp, remove_tmp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
