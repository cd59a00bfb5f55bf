/*
 * web_lister.c — one shared lobby lister for the browsers without an
 * agent (web_lister.h).
 */
#include "web_lister.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "agent.h"

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t call_lock = PTHREAD_MUTEX_INITIALIZER;
/* cache_lock */
static char *cached;           /* the last lobby made, JSON text */
static size_t cached_len;
static long long cached_at_ms;
static bool refreshing;        /* a thread is asking the service now */
static long long failed_at_ms; /* the last time asking failed with no lobby to give */
static char failed_err[256];
static unsigned long long asked;   /* atomic */
/* call_lock */
static agent *lister;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A copy of the cached lobby (cache_lock held); NULL when none. */
static char *copy_locked(size_t *len)
{
    if (!cached)
        return NULL;
    char *c = malloc(cached_len + 1);
    if (c) {
        memcpy(c, cached, cached_len + 1);
        *len = cached_len;
    }
    return c;
}

/* A new lobby from the service (call_lock held): its text, or NULL. */
static char *make_lobby(const web_config *cfg, size_t *len, char *err, size_t errlen)
{
    if (lister) {
        /* It never joins a game: what it hears is its connection's news.
         * A service gone for good means a new agent next time. */
        agent_msg *msg;
        bool gone = false;
        while ((msg = agent_next(lister))) {
            gone = gone || msg->kind == AGENT_MSG_DISCONNECTED;
            agent_msg_free(msg);
        }
        if (gone) {
            agent_destroy(lister);
            lister = NULL;
        }
    }
    if (!lister) {
        agent_config ac = {0};
        ac.server = cfg->server;
        ac.tls = cfg->tls;
        ac.tls_ca = cfg->tls_ca;
        ac.relay_key = cfg->relay_key;     /* the gateway's own calls: no relay_for */
        ac.name = "sungka-web-lobby";
        ac.state_dir = "";                 /* nothing of its own to keep */
        if (agent_start(&ac, &lister, err, errlen) != 0) {
            lister = NULL;
            return NULL;
        }
    }
    __atomic_add_fetch(&asked, 1, __ATOMIC_RELAXED);
    json_t *lobby = web_session_lobby_json(lister, err, errlen);
    char *text = lobby ? json_dumps(lobby, JSON_COMPACT) : NULL;
    json_decref(lobby);
    if (lobby && !text)
        snprintf(err, errlen, "out of memory");
    if (text)
        *len = strlen(text);
    return text;
}

char *web_lister_lobby(const web_config *cfg, size_t *len, char *err, size_t errlen)
{
    pthread_mutex_lock(&cache_lock);
    if (cached && (now_ms() - cached_at_ms < WEB_LISTER_FRESH_MS || refreshing)) {
        char *c = copy_locked(len);
        pthread_mutex_unlock(&cache_lock);
        if (!c)
            snprintf(err, errlen, "out of memory");
        return c;
    }
    pthread_mutex_unlock(&cache_lock);

    pthread_mutex_lock(&call_lock);
    pthread_mutex_lock(&cache_lock);
    if (cached && now_ms() - cached_at_ms < WEB_LISTER_FRESH_MS) {
        /* made while this thread waited for the agent */
        char *c = copy_locked(len);
        pthread_mutex_unlock(&cache_lock);
        pthread_mutex_unlock(&call_lock);
        if (!c)
            snprintf(err, errlen, "out of memory");
        return c;
    }
    if (!cached && failed_at_ms && now_ms() - failed_at_ms < WEB_LISTER_FRESH_MS) {
        /* The service could not be asked a moment ago: the browsers that
         * waited meanwhile are told so at once, not each after its own
         * call's deadline. */
        snprintf(err, errlen, "%s", failed_err);
        pthread_mutex_unlock(&cache_lock);
        pthread_mutex_unlock(&call_lock);
        return NULL;
    }
    refreshing = true;
    pthread_mutex_unlock(&cache_lock);
    size_t n = 0;
    char *text = make_lobby(cfg, &n, err, errlen);
    pthread_mutex_lock(&cache_lock);
    refreshing = false;
    if (text) {
        free(cached);
        cached = text;
        cached_len = n;
        cached_at_ms = now_ms();
    } else {
        failed_at_ms = now_ms();
        snprintf(failed_err, sizeof failed_err, "%s", err);
    }
    /* A failed refresh keeps the last lobby, older than it should be,
     * rather than an error for everyone. */
    char *c = copy_locked(len);
    pthread_mutex_unlock(&cache_lock);
    pthread_mutex_unlock(&call_lock);
    return c;
}

unsigned long long web_lister_asked(void)
{
    return __atomic_load_n(&asked, __ATOMIC_RELAXED);
}

void web_lister_changed(void)
{
    pthread_mutex_lock(&cache_lock);
    cached_at_ms = 0;
    pthread_mutex_unlock(&cache_lock);
}

void web_lister_close(void)
{
    pthread_mutex_lock(&call_lock);
    if (lister)
        agent_destroy(lister);
    lister = NULL;
    pthread_mutex_unlock(&call_lock);
    pthread_mutex_lock(&cache_lock);
    free(cached);
    cached = NULL;
    pthread_mutex_unlock(&cache_lock);
}
