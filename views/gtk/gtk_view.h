/*
 * gtk_view.h — the GTK 4 desktop view: the board drawn with cairo, click or
 * keyboard to move, sowing animated, players, chat and a lobby dialog.
 * Built only when GTK 4 is found (SUNGKA_HAVE_GTK).
 */
#ifndef SUNGKA_GTK_VIEW_H
#define SUNGKA_GTK_VIEW_H

#include "view.h"

extern const view_ops view_gtk;

#endif /* SUNGKA_GTK_VIEW_H */
