/*
 * views.c — the table of views the player agent can drive.
 */
#include <string.h>

#include "view.h"
#include "bot/bot_view.h"
#include "text/text_view.h"
#ifdef SUNGKA_HAVE_GTK
#include "gtk/gtk_view.h"
#endif

static const view_ops *const views[] = {
    &view_text,
    &view_bot,
#ifdef SUNGKA_HAVE_GTK
    &view_gtk,
#endif
};

int view_count(void)
{
    return (int)(sizeof views / sizeof views[0]);
}

const view_ops *view_at(int i)
{
    return i >= 0 && i < view_count() ? views[i] : NULL;
}

const view_ops *view_find(const char *name)
{
    for (int i = 0; i < view_count(); i++)
        if (strcmp(views[i]->name, name) == 0)
            return views[i];
    return NULL;
}
