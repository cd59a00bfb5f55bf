/*
 * gtk_prefs.c — what the GTK view remembers between runs, in one GKeyFile:
 * $XDG_CONFIG_HOME/sungka/gtk.ini. The connect dialog keeps the server and
 * the name in [connect]; the games dialog keeps the kind last created in
 * [new-game] and each kind's options in a group named after the kind.
 * A missing or unreadable file is an empty one: nothing remembered yet.
 */
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>

#include "gtk_view_internal.h"

static char *prefs_path(void)
{
    return g_build_filename(g_get_user_config_dir(), "sungka", "gtk.ini", NULL);
}

GKeyFile *gprefs_load(void)
{
    GKeyFile *kf = g_key_file_new();
    char *path = prefs_path();
    g_key_file_load_from_file(kf, path, G_KEY_FILE_KEEP_COMMENTS, NULL);   /* none yet: fine */
    g_free(path);
    return kf;
}

int gprefs_save(GKeyFile *kf, char *err, size_t errlen)
{
    char *path = prefs_path();
    char *dir = g_path_get_dirname(path);
    GError *gerr = NULL;
    int rc = 0;
    if (g_mkdir_with_parents(dir, 0700) != 0 || !g_key_file_save_to_file(kf, path, &gerr)) {
        snprintf(err, errlen, _("Could not remember the settings in %s: %s"), path,
                 gerr ? gerr->message : g_strerror(errno));
        g_clear_error(&gerr);
        rc = -1;
    }
    g_free(dir);
    g_free(path);
    return rc;
}
