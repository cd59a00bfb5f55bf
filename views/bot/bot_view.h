/*
 * bot_view.h — the view that plays: a computer player that joins a game over
 * the network exactly like a person, searches on its own thread, and prints
 * one result line when the game ends.
 */
#ifndef SUNGKA_BOT_VIEW_H
#define SUNGKA_BOT_VIEW_H

#include "view.h"

extern const view_ops view_bot;

#endif /* SUNGKA_BOT_VIEW_H */
