/*
 * web_hub.c — one upstream observer per watched game, fanned out to every
 * browser watching it. Threads and the design: web_hub.h.
 */
#include "web_hub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libwebsockets.h>

struct web_hub_msg {
    int refs;
    size_t len;
    bool state;
    unsigned char buf[];       /* LWS_PRE bytes for libwebsockets, then the text */
};

struct web_hub {
    web_hub *next;
    char game[64];
    web_session *s;            /* the hub's own session, observing game */
    web_watch *watchers;
    int n_watchers;
    bool failed;               /* its join was refused or its session ended: not reused */
    web_hub_msg *last_state;   /* for a browser that comes later */
};

/* Service thread only. */
static web_hub *hubs;
static unsigned long long messages_out, cut_off;

static void msg_unref(web_hub_msg *m)
{
    if (m && --m->refs == 0)
        free(m);
}

static void watch_clear(web_watch *w)
{
    while (w->count > 0) {
        msg_unref(w->queue[w->head]);
        w->head = (w->head + 1) % w->cap;
        w->count--;
    }
    free(w->queue);
    w->queue = NULL;
    w->head = w->cap = w->bytes = 0;
}

/* Queue m for w; past the bound w is cut off instead. */
static void watch_push(web_watch *w, web_hub_msg *m)
{
    if (w->overflowed)
        return;
    if (w->bytes + m->len > WEB_OUTBOX_BYTES) {
        w->overflowed = true;
        cut_off++;
        watch_clear(w);
        return;
    }
    if (w->count == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 8;
        web_hub_msg **q = malloc(cap * sizeof *q);
        if (!q) {
            w->overflowed = true;
            cut_off++;
            watch_clear(w);
            return;
        }
        for (size_t i = 0; i < w->count; i++)
            q[i] = w->queue[(w->head + i) % w->cap];
        free(w->queue);
        w->queue = q;
        w->head = 0;
        w->cap = cap;
    }
    w->queue[(w->head + w->count) % w->cap] = m;
    w->count++;
    w->bytes += m->len;
    m->refs++;
}

static bool has_type(const char *text, const char *type)
{
    char want[32];
    snprintf(want, sizeof want, "{\"type\":\"%s\"", type);
    return strncmp(text, want, strlen(want)) == 0;
}

static web_hub *hub_find(const char *game)
{
    for (web_hub *h = hubs; h; h = h->next)
        if (!h->failed && strcmp(h->game, game) == 0)
            return h;
    return NULL;
}

int web_hub_watch(web_watch *w, const web_config *cfg, struct lws_context *ctx,
                  const char *game)
{
    web_hub_unwatch(w);
    web_hub *h = hub_find(game);
    if (!h) {
        h = calloc(1, sizeof *h);
        if (!h)
            return -1;
        snprintf(h->game, sizeof h->game, "%s", game);
        /* The game's id as the browser sent it, quoted by jansson. */
        json_t *cmd = json_pack("{s:s, s:s, s:b}", "type", "join", "game", h->game, "observe", 1);
        char *join = cmd ? json_dumps(cmd, JSON_COMPACT) : NULL;
        json_decref(cmd);
        h->s = join ? web_session_open(cfg, ctx, NULL, NULL) : NULL;
        if (!h->s || web_session_input(h->s, join, strlen(join)) != 0) {
            if (h->s)
                web_session_close(h->s);
            free(join);
            free(h);
            return -1;
        }
        free(join);
        h->next = hubs;
        hubs = h;
        lwsl_user("watching game %s for the browsers (one observer for all)\n", h->game);
    }
    w->hub = h;
    w->overflowed = false;
    w->next = h->watchers;
    h->watchers = w;
    h->n_watchers++;
    if (h->last_state) {
        watch_push(w, h->last_state);
        lws_callback_on_writable(w->wsi);
    }
    return 0;
}

static void hub_close(web_hub *h)
{
    for (web_hub **p = &hubs; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            break;
        }
    web_session_close(h->s);
    msg_unref(h->last_state);
    free(h);
}

void web_hub_unwatch(web_watch *w)
{
    watch_clear(w);
    web_hub *h = w->hub;
    if (!h)
        return;
    for (web_watch **p = &h->watchers; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    w->hub = NULL;
    w->next = NULL;
    if (--h->n_watchers == 0) {
        lwsl_user("nobody watches game %s any more: its observer leaves\n", h->game);
        hub_close(h);
    }
}

static void fan_out(web_hub *h, web_hub_msg *m)
{
    for (web_watch *w = h->watchers; w; w = w->next) {
        watch_push(w, m);
        if (!w->overflowed)
            lws_callback_on_writable(w->wsi);
    }
}

/* A state of another game than the hub's: its observer followed a rematch
 * (web_session.c, as any observer's agent does), and the hub, with its
 * watchers, goes with it: a watcher's chat is said there, and a browser
 * that asks for the new game finds this hub. */
static void hub_follow(web_hub *h, const char *text, size_t len)
{
    json_t *st = json_loadb(text, len, 0, NULL);
    const char *game = json_string_value(json_object_get(st, "game"));
    if (game && *game && strlen(game) < sizeof h->game && strcmp(game, h->game) != 0) {
        lwsl_user("the watchers of game %s follow its rematch, game %s\n", h->game, game);
        snprintf(h->game, sizeof h->game, "%s", game);
    }
    json_decref(st);
}

void web_hub_pump(void)
{
    for (web_hub *h = hubs; h; h = h->next) {
        for (;;) {
            size_t len = 0;
            bool over = false;
            char reason[124];
            char *text = web_session_take(h->s, &len, &over, reason, sizeof reason);
            if (over && !h->failed) {
                h->failed = true;
                lwsl_user("the observer of game %s ended: %s\n", h->game, reason);
            }
            if (!text)
                break;
            /* Its own hello and lobby are nobody's; an error before any
             * state means the join was refused: said to the watchers, and
             * the next browser gets a hub of its own to try again. */
            if (has_type(text, "hello") || has_type(text, "lobby") || has_type(text, "left") ||
                has_type(text, "account")) {
                free(text);
                continue;
            }
            if (has_type(text, "error") && !h->last_state)
                h->failed = true;
            web_hub_msg *m = malloc(sizeof *m + LWS_PRE + len);
            if (!m) {
                free(text);
                continue;
            }
            m->refs = 1;
            m->len = len;
            m->state = has_type(text, "state");
            if (m->state)
                hub_follow(h, text, len);
            memcpy(m->buf + LWS_PRE, text, len);
            free(text);
            if (m->state) {
                msg_unref(h->last_state);
                h->last_state = m;
                m->refs++;
            }
            fan_out(h, m);
            msg_unref(m);
        }
    }
}

/* A message for w alone (an error to its command). */
static void watch_say(web_watch *w, json_t *msg)
{
    char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    if (!text)
        return;
    size_t len = strlen(text);
    web_hub_msg *m = malloc(sizeof *m + LWS_PRE + len);
    if (m) {
        m->refs = 1;
        m->len = len;
        m->state = false;
        memcpy(m->buf + LWS_PRE, text, len);
        watch_push(w, m);
        msg_unref(m);
        lws_callback_on_writable(w->wsi);
    }
    free(text);
}

/* A command for the browser's own session, made here (jansson quotes). */
static char *for_session(json_t *cmd)
{
    char *text = cmd ? json_dumps(cmd, JSON_COMPACT) : NULL;
    json_decref(cmd);
    return text;
}

int web_hub_command(web_watch *w, const web_config *cfg, struct lws_context *ctx,
                    const char *text, size_t len, char **rewrite)
{
    *rewrite = NULL;
    json_t *cmd = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    const char *type = json_string_value(json_object_get(cmd, "type"));
    int taken = 0;
    if (!type) {
        /* the session says what is wrong with it */
    } else if (type[0] == '_') {
        /* the gateway's own commands to a session are not the browser's */
        watch_say(w, json_pack("{s:s, s:s, s:s}", "type", "error", "code", "bad_command",
                               "message", "unknown command type (see docs/web-protocol.md)"));
        taken = 1;
    } else if (strcmp(type, "join") == 0) {
        const char *game = json_string_value(json_object_get(cmd, "game"));
        json_t *observe = json_object_get(cmd, "observe");
        web_hub_unwatch(w);
        /* An id too long for a hub is the session's to refuse; when a hub
         * cannot be made, the session watches on its own. Taken here, the
         * session still leaves a game it watched only to speak in. */
        if (game && *game && strlen(game) < sizeof ((web_hub *)0)->game &&
            json_is_true(observe) && web_hub_watch(w, cfg, ctx, game) == 0)
            *rewrite = for_session(json_pack("{s:s}", "type", "_unwatch"));
    } else if (strcmp(type, "new") == 0 || strcmp(type, "leave") == 0 ||
               strcmp(type, "quick") == 0) {
        web_hub_unwatch(w);
    } else if (strcmp(type, "chat") == 0 && w->hub) {
        /* The hub's observer speaks for nobody: the browser's own agent
         * says it, as an observer of the game (web_session.c, watch_chat). */
        json_t *t = json_object_get(cmd, "text");
        if (json_is_string(t))
            *rewrite = for_session(json_pack("{s:s, s:s, s:O}", "type", "_watch_chat", "game",
                                             w->hub->game, "text", t));
    }
    json_decref(cmd);
    return taken;
}

int web_hub_write(web_watch *w)
{
    if (w->count == 0)
        return 0;
    web_hub_msg *m = w->queue[w->head];
    w->head = (w->head + 1) % w->cap;
    w->count--;
    w->bytes -= m->len;
    /* libwebsockets writes the frame's header into the LWS_PRE bytes
     * before the text, and has sent or copied everything by the time
     * lws_write returns: one buffer serves every watcher in turn. */
    int n = lws_write(w->wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT);
    size_t len = m->len;
    msg_unref(m);
    if (n < (int)len)
        return -1;
    messages_out++;
    return 1;
}

void web_hub_close_all(void)
{
    while (hubs) {
        web_hub *h = hubs;
        for (web_watch *w = h->watchers; w; w = w->next) {
            watch_clear(w);
            w->hub = NULL;
        }
        hub_close(h);
    }
}

void web_hub_each(void (*fn)(void *arg, const char *game, int watchers), void *arg)
{
    for (web_hub *h = hubs; h; h = h->next)
        fn(arg, h->game, h->n_watchers);
}

unsigned long long web_hub_messages_out(void)
{
    return messages_out;
}

unsigned long long web_hub_cut_off(void)
{
    return cut_off;
}
