/*
 * session_store.h — the session token of the account the person signed in
 * with, kept between runs of the agent: one line per server, so signing in
 * once is enough on this machine until the session expires or is ended.
 *
 * One small text file, "sessions", readable only by its owner (mode 0600,
 * made by common/xdg.h whatever the umask), in the state directory beside
 * the seat tokens (token_store.h): $XDG_STATE_HOME/sungka, else
 * ~/.local/state/sungka. The token is a secret: it is never logged, and the
 * file is rewritten through a temporary file and a rename. Not thread-safe;
 * the agent calls it from the view thread only.
 */
#ifndef SUNGKA_SESSION_STORE_H
#define SUNGKA_SESSION_STORE_H

#include <stddef.h>

/* dir: the state directory; NULL for the default; "" disables the store
 * (every call then does nothing and finds nothing). */

/* The account name and session token saved for server: 0, or -1 when none. */
int session_store_find(const char *dir, const char *server, char *name /* OUT */,
                       size_t name_len, char *token /* OUT */, size_t token_len);
/* Save (replacing any) the session for server. 0, or -1 when it cannot be
 * written (the session then lasts as long as this run). */
int session_store_put(const char *dir, const char *server, const char *name, const char *token);
/* Forget the session for server. */
void session_store_drop(const char *dir, const char *server);

#endif /* SUNGKA_SESSION_STORE_H */
