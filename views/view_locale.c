/*
 * view_locale.c — the views speak the user's language: the locale from the
 * environment (LANG, LC_ALL, LC_MESSAGES, and LANGUAGE's list of
 * languages), and the "sungka" message catalogs found beside the program.
 *
 * The catalogs are looked for relative to the running program, as
 * BINDIR/SUNGKA_LOCALEDIR_FROM_BINDIR (../share/locale): the same path works
 * for `cmake --install` under any prefix, the .deb (made with another prefix
 * than the build's), and the build tree, where po/CMakeLists.txt puts them
 * in build/share/locale beside build/bin — so the tests need no install.
 * Only when the program's own path cannot be read is the configured
 * prefix's directory (SUNGKA_LOCALEDIR) used.
 */
#include <libintl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "view.h"
#include "xdg.h"

#define TEXT_DOMAIN "sungka"

/* The catalogs' directory beside the running program, into dir; 0, or -1
 * when the program's path cannot be read or that directory is not there. */
static int locale_dir_beside_program(char *dir, size_t len)
{
    if (xdg_beside_program(SUNGKA_LOCALEDIR_FROM_BINDIR, dir, len) != 0 ||
        access(dir, X_OK) != 0)
        return -1;
    return 0;
}

void view_locale_init(void)
{
    char dir[PATH_MAX];
    setlocale(LC_ALL, "");
    if (locale_dir_beside_program(dir, sizeof dir) != 0)
        snprintf(dir, sizeof dir, "%s", SUNGKA_LOCALEDIR);
    bindtextdomain(TEXT_DOMAIN, dir);
    /* GTK takes UTF-8 only, and the text view's own words (—, …) are UTF-8
     * whatever the locale's character set. */
    bind_textdomain_codeset(TEXT_DOMAIN, "UTF-8");
    textdomain(TEXT_DOMAIN);
}
