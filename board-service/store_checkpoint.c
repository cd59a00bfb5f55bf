/*
 * store_checkpoint.c — see store_checkpoint.h. One thread, one connection,
 * one condition variable: it sleeps until kicked or stopped and runs a
 * PASSIVE checkpoint per kick (kicks during a checkpoint fold into one).
 */
#include "store_checkpoint.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <sqlite3.h>

struct store_checkpointer {
    sqlite3 *db;                  /* the checkpointer thread's only */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool kicked, stopping;        /* under mu */
    unsigned long done;           /* under mu */
};

static void *checkpoint_loop(void *arg)
{
    store_checkpointer *c = arg;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->kicked && !c->stopping)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->stopping)
            break;
        c->kicked = false;
        pthread_mutex_unlock(&c->mu);
        /* PASSIVE: copies what no reader still needs, never waits for the
         * writer; SQLITE_BUSY (another checkpoint, a backup) is a retry at
         * the next kick. */
        int log_frames, copied;
        sqlite3_wal_checkpoint_v2(c->db, "main", SQLITE_CHECKPOINT_PASSIVE, &log_frames,
                                  &copied);
        pthread_mutex_lock(&c->mu);
        c->done++;
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

store_checkpointer *checkpointer_start(const char *path, char *err, size_t errlen)
{
    store_checkpointer *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int rc = sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "cannot open the database for checkpoints: %s",
                 c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
        sqlite3_close(c->db);
        free(c);
        return NULL;
    }
    sqlite3_busy_timeout(c->db, 100);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    if (pthread_create(&c->thread, NULL, checkpoint_loop, c) != 0) {
        snprintf(err, errlen, "cannot start the checkpoint thread");
        pthread_cond_destroy(&c->cv);
        pthread_mutex_destroy(&c->mu);
        sqlite3_close(c->db);
        free(c);
        return NULL;
    }
    pthread_setname_np(c->thread, "store-ckpt");
    return c;
}

void checkpointer_kick(store_checkpointer *c)
{
    pthread_mutex_lock(&c->mu);
    c->kicked = true;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

unsigned long checkpointer_count(store_checkpointer *c)
{
    pthread_mutex_lock(&c->mu);
    unsigned long n = c->done;
    pthread_mutex_unlock(&c->mu);
    return n;
}

void checkpointer_stop(store_checkpointer *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    c->stopping = true;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->thread, NULL);
    sqlite3_close(c->db);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    free(c);
}
