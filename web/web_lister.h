/*
 * web_lister.h — the lobby for browsers that have no player agent of
 * their own (web_session.h starts one only when a browser needs it: to
 * play, sign in, chat, read its history). One lister for the whole
 * gateway: a player agent of the gateway's own that only ever lists the
 * games, the quick-pairing pools and the tournaments, started at the first
 * lobby asked for, and the lobby message it made kept for
 * WEB_LISTER_FRESH_MS, so that 10,000 browsers opening the lobby make about
 * one ListGames (and one ListPools and one ListTournaments) a second on the
 * board service, not 10,000.
 *
 * Threads: any session thread may call web_lister_lobby. The cache is
 * under a mutex; the agent is called by one thread at a time under a
 * second mutex (it is that agent's view thread for the call). While one
 * thread refreshes the lobby, the others are given the lobby it replaces
 * rather than waiting (they wait only when there is none yet; when the
 * service could not be asked, those that waited are told so at once).
 */
#ifndef SUNGKA_WEB_LISTER_H
#define SUNGKA_WEB_LISTER_H

#include <stddef.h>

#include "web_session.h"

#define WEB_LISTER_FRESH_MS 1000

/* The lobby message (docs/web-protocol.md, "lobby"), as JSON text: a
 * malloc'd copy the caller frees, its length in *len. NULL with a
 * sentence in err when the board service cannot be asked and no lobby was
 * ever made. */
char *web_lister_lobby(const web_config *cfg, size_t *len, char *err, size_t errlen);

/* A browser of this gateway made, joined or left a game, a quick
 * pairing's pool or a tournament (any thread): the next lobby asked for is made anew, so
 * that a browser opening the lobby right after sees it. Changes made
 * elsewhere show within WEB_LISTER_FRESH_MS. */
void web_lister_changed(void);

/* How many times the lister asked the board service for the lobby since
 * the start (any thread; /metrics). */
unsigned long long web_lister_asked(void);

/* Stop the lister's agent (main thread, at exit, after every session
 * thread has ended). */
void web_lister_close(void);

#endif /* SUNGKA_WEB_LISTER_H */
