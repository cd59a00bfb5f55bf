/*
 * gtk_sound.c — sounds on the board page (issue 33): a move, a capture (the
 * rules engine's count of what the move took, as the agent replays it), our
 * own clock entering its last 10 s, and the end of the game. They are the
 * desktop's event sounds, played through GSound (libcanberra) by their
 * freedesktop sound-theme names, so the desktop's theme says how they
 * sound; none plays when the desktop turns event sounds off (GtkSettings'
 * gtk-enable-event-sounds) or when the player turns them off in
 * Preferences (gtk.ini: [sounds] enabled=false). A machine with no sound
 * device plays nothing and says nothing. View thread only.
 */
#include <gsound.h>

#include "gtk_view_internal.h"

/* Indexed by gview_sound_kind. */
static const struct {
    const char *id;            /* the sound theme's name */
    const char *what;          /* for the hook and the event's description */
} sounds[] = {
    [GVIEW_SOUND_MOVE] = {"message", "move"},
    [GVIEW_SOUND_CAPTURE] = {"message-new-instant", "capture"},
    [GVIEW_SOUND_LOW_TIME] = {"dialog-warning", "low-time"},
    [GVIEW_SOUND_END] = {"complete", "end"},
};

bool gview_sound_wanted(const gview *v)
{
    gboolean desktop = TRUE;
    GtkSettings *gs = gtk_settings_get_default();
    if (gs)
        g_object_get(gs, "gtk-enable-event-sounds", &desktop, NULL);
    return desktop && !v->sound_off;
}

void gview_sound_play(gview *v, gview_sound_kind kind)
{
    if (!gview_sound_wanted(v))
        return;
    v->sounds_played++;
    v->last_sound = sounds[kind].what;
    if (!v->sound_ctx) {
        v->sound_ctx = gsound_context_new(NULL, NULL);   /* NULL: no sound here */
        if (!v->sound_ctx)
            return;
    }
    gsound_context_play_simple(v->sound_ctx, NULL, NULL, GSOUND_ATTR_EVENT_ID, sounds[kind].id,
                               GSOUND_ATTR_EVENT_DESCRIPTION, sounds[kind].what, NULL);
}

void gview_sound_load(gview *v)
{
    GKeyFile *kf = gprefs_load();
    GError *e = NULL;
    gboolean on = g_key_file_get_boolean(kf, "sounds", "enabled", &e);
    v->sound_off = !e && !on;          /* on unless the player said off */
    g_clear_error(&e);
    g_key_file_free(kf);
}

void gview_sound_set(gview *v, bool on)
{
    v->sound_off = !on;
    GKeyFile *kf = gprefs_load();
    g_key_file_set_boolean(kf, "sounds", "enabled", on);
    char err[512];
    if (gprefs_save(kf, err, sizeof err) != 0)
        gview_log(v, "%s", err);
    g_key_file_free(kf);
}

void gview_sound_free(gview *v)
{
    g_clear_object(&v->sound_ctx);
}
