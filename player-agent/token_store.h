/*
 * token_store.h — seat tokens kept between runs of the agent, so a player
 * whose agent died (or whose machine rebooted) can start it again with the
 * same server, game and name and take their seat back within the grace.
 *
 * One small text file, readable only by its owner, under the state directory
 * (xdg_sungka_dir's XDG_STATE: $XDG_STATE_HOME/sungka, else
 * ~/.local/state/sungka). Not thread-safe; the agent calls it from the view
 * thread only.
 */
#ifndef SUNGKA_TOKEN_STORE_H
#define SUNGKA_TOKEN_STORE_H

#include <stddef.h>

/* dir: the state directory; NULL for the default; "" disables the store
 * (every call then does nothing and finds nothing). */
int token_store_find(const char *dir, const char *server, const char *game, const char *name,
                     char *token, size_t token_len, int *seat);
void token_store_put(const char *dir, const char *server, const char *game, const char *name,
                     int seat, const char *token);
void token_store_drop(const char *dir, const char *server, const char *game, const char *name);

#endif /* SUNGKA_TOKEN_STORE_H */
