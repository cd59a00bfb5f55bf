/*
 * web_store.h — what sungka-web keeps per browser between connections and
 * across its own restarts: one private directory per cookie session.
 *
 * A browser is given a session id (32 random bytes, in hex) in an HttpOnly,
 * SameSite=Strict cookie the first time it loads the app. The gateway keeps
 * that session's state in a directory of its --state-dir named by a keyed
 * BLAKE2b hash of the id (libsodium's crypto_generichash), so the directory
 * names on disk do not give the ids away. Inside it is a player agent's
 * state directory (agent_config.state_dir): the account session after a
 * sign-in ("sessions"), the seat tokens ("tokens"), and two files of our
 * own: "name" (the guest name the browser plays under) and "game" (the
 * game it is at, and whether it holds a seat there). The seat tokens never
 * reach the browser; a restarted gateway finds them on disk when the
 * browser reconnects with its cookie.
 *
 * The CSRF token a page sends with sign-in and register is derived from the
 * session id (a keyed hash with another context), so it needs no storage: a
 * script on the gateway's own pages reads it from a second, not HttpOnly,
 * SameSite=Strict cookie; a page elsewhere cannot.
 *
 * Bounded: a directory not used for WEB_STORE_MAX_AGE_S is removed (at
 * start and then at most once a minute, when sessions are made), and no new
 * one is made while WEB_STORE_MAX_SESSIONS exist (the browser then plays as
 * a guest whose seat does not outlive its connection).
 *
 * Threads: any; every call works on the files alone (no state in memory).
 * Two connections of one browser share a directory; the agent's files are
 * rewritten whole through a rename, so the worst case is a lost update of a
 * seat token, never a torn file.
 */
#ifndef SUNGKA_WEB_STORE_H
#define SUNGKA_WEB_STORE_H

#include <stdbool.h>
#include <stddef.h>

#define WEB_STORE_ID_HEX 64            /* a session id's length in hex */
#define WEB_STORE_MAX_AGE_S (7 * 24 * 3600)
#define WEB_STORE_MAX_SESSIONS 100000

/* Make root (0700) and remove its expired sessions. 0, or -1 with a
 * sentence. Main thread, at start; libsodium is initialised here. */
int web_store_open(const char *root, char *err, size_t errlen);

/* A new session id (hex, WEB_STORE_ID_HEX + 1 bytes) and its directory,
 * made. 0, or -1 (too many sessions, or the disk refused). */
int web_store_new(const char *root, char id[WEB_STORE_ID_HEX + 1] /* OUT */);

/* Is id well formed and its directory there? Marks it used (its age starts
 * again). When so, its directory's path goes to dir (may be NULL). */
bool web_store_known(const char *root, const char *id, char *dir /* OUT */, size_t dirlen);

/* The CSRF token of session id (hex, WEB_STORE_ID_HEX + 1 bytes). */
void web_store_csrf(const char *id, char out[WEB_STORE_ID_HEX + 1] /* OUT */);

/* Does token match id's CSRF token? (constant time) */
bool web_store_csrf_ok(const char *id, const char *token);

/* A small text file of the session's directory: read (0, or -1 when absent),
 * written whole (0600, through a rename), or removed. */
int web_store_get(const char *dir, const char *file, char *out /* OUT */, size_t len);
int web_store_put(const char *dir, const char *file, const char *text);
void web_store_drop(const char *dir, const char *file);

#endif /* SUNGKA_WEB_STORE_H */
