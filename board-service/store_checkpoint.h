/*
 * store_checkpoint.h — the SQLite store's checkpointer: a thread with a
 * connection of its own that copies the write-ahead log back into the
 * database file, so the loop thread never waits for a checkpoint (a
 * thousand page writes and an fdatasync: the tail of a move's latency when
 * SQLite ran it inside a commit). Private to store_sqlite.c.
 *
 * Durability is unchanged: a commit is durable once it is in the WAL (see
 * store.h); a checkpoint only moves committed pages into the main file. It
 * runs in PASSIVE mode, never blocking the writer; a WAL that grows past the
 * kick threshold while a checkpoint runs is simply checkpointed again.
 *
 * Threads: start, kick and stop are called from the store's thread (kick
 * from SQLite's WAL hook inside a commit); the checkpointer's own thread
 * touches only its connection. stop joins it. The file stays the store's:
 * the checkpointer's connection is closed before the store's.
 */
#ifndef SUNGKA_STORE_CHECKPOINT_H
#define SUNGKA_STORE_CHECKPOINT_H

#include <stddef.h>

typedef struct store_checkpointer store_checkpointer;

/* Open a second connection to the database file at path and start the
 * thread; NULL (and a sentence in err) when either cannot be had. */
store_checkpointer *checkpointer_start(const char *path, char *err, size_t errlen);

/* The WAL holds this many frames since the last checkpoint: run one now
 * (returns at once; a kick while one runs asks for one more after it). */
void checkpointer_kick(store_checkpointer *c);

/* Checkpoints run so far (tests). */
unsigned long checkpointer_count(store_checkpointer *c);

/* Stop the thread (after the checkpoint in progress, if any), close its
 * connection, free c. NULL is ignored. */
void checkpointer_stop(store_checkpointer *c);

#endif /* SUNGKA_STORE_CHECKPOINT_H */
