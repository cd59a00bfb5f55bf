/*
 * web_history.h — version 3 of the web protocol: a player's past matches,
 * a match's replay with the engine's review, a player's rating history
 * (docs/web-protocol.md, "History and replay").
 *
 * The gateway replays a match through the rules engine (games/, as the GTK
 * replay does: agent_match_position) and places every cell with the GTK
 * geometry (views/gtk/gtk_geometry.h), so the browser only draws each
 * position and never runs the rules.
 *
 * Threads: called on a session's thread only (web_session.h), with that
 * session's agent; the agent calls here block that thread (with the
 * agent's call deadline), never the libwebsockets service thread.
 */
#ifndef SUNGKA_WEB_HISTORY_H
#define SUNGKA_WEB_HISTORY_H

#include <jansson.h>

#include "agent.h"

/* Matches listed in one page of "history". */
#define WEB_HISTORY_PAGE 20

/* If type is one of the history commands ("history", "replay",
 * "rating_history"), the message to send the browser for it (a new
 * reference: its answer, or an "error"); NULL when type is none of them.
 * me: whom "history" and "rating_history" are of when the command names
 * nobody (the account signed in, or the guest's name). */
json_t *web_history_command(agent *ag, const char *me, const char *type, json_t *cmd);

#endif /* SUNGKA_WEB_HISTORY_H */
