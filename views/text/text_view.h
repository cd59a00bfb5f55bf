/*
 * text_view.h — the line-oriented terminal view. Works in a terminal and
 * through pipes: it draws the board from the viewer's side after every
 * change and reads one command per line.
 */
#ifndef SUNGKA_TEXT_VIEW_H
#define SUNGKA_TEXT_VIEW_H

#include "view.h"

extern const view_ops view_text;

#endif /* SUNGKA_TEXT_VIEW_H */
