/*
 * xdg.h — where Sungka keeps its files, by the XDG Base Directory rules, and
 * how it makes private directories and secret files.
 *
 * $XDG_DATA_HOME/sungka (statistics: the service's database), $XDG_STATE_HOME
 * /sungka (seat tokens), $XDG_CONFIG_HOME/sungka (settings), $XDG_CACHE_HOME
 * /sungka; each falls back to its default under $HOME (~/.local/share,
 * ~/.local/state, ~/.config, ~/.cache) when unset, empty or relative (the
 * specification ignores relative paths), and to the password database's home
 * when $HOME is unset.
 *
 * Directories Sungka makes are 0700 and secret files 0600, whatever the
 * umask: nothing here changes the process umask, which is shared by every
 * thread. Any thread; no state.
 */
#ifndef SUNGKA_XDG_H
#define SUNGKA_XDG_H

#include <stdbool.h>
#include <stddef.h>

typedef enum xdg_kind {
    XDG_DATA,
    XDG_STATE,
    XDG_CONFIG,
    XDG_CACHE,
} xdg_kind;

/* Sungka's directory of `kind` into out (len bytes), made with its missing
 * parents when create. 0, or -1 with errno (ENOENT: no home; ENAMETOOLONG;
 * or mkdir's). */
int xdg_sungka_dir(xdg_kind kind, bool create, char *out /* OUT */, size_t len);

/* The path of the service's default database: sungka.db in Sungka's data
 * directory (made when create). 0, or -1 with errno as xdg_sungka_dir. */
int xdg_default_db(bool create, char *out /* OUT */, size_t len);

/* Not XDG, but where files are found all the same: `name` beside the running
 * program ("sungka-player", "../share/locale"), from /proc/self/exe, into
 * out. 0, or -1 when the program's own path cannot be read or out is too
 * small. Nothing is checked to exist. */
int xdg_beside_program(const char *name, char *out /* OUT */, size_t len);

/* mkdir -p: make path and its missing parents, each 0700. 0, or -1 with
 * errno; an existing directory is fine. */
int xdg_make_dirs(const char *path);

/* The path of the state file `name` kept in `dir`, or in the XDG state
 * directory when dir is NULL; the directory is made (0700, with its parents)
 * when missing. -1 when dir is "" (keeping nothing) or there is nowhere to
 * keep it. */
int xdg_state_file(const char *dir, const char *name, char *out /* OUT */, size_t len);

/* Create `path` for writing a secret: mode 0600 whatever the umask, failing
 * when it exists (O_EXCL: never write through a file or link someone else
 * put there), close-on-exec. The descriptor, or -1 with errno. */
int xdg_create_private(const char *path);

#endif /* SUNGKA_XDG_H */
