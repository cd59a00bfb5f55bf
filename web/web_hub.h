/*
 * web_hub.h — many browsers watching one game share one upstream
 * subscription (as lila-ws does for Lichess).
 *
 * The first browser that asks to watch game ID (a "join" with observe:
 * true) makes a hub for it: one session (web_session.h) of the gateway's
 * own, whose agent observes the game on the board service. Every message
 * that session produces from then on (state and event; its hello and lobby
 * are not for anyone) is serialised once and fanned out to every browser
 * watching: each watcher's queue holds references to the shared messages,
 * never copies. A browser that joins later gets the hub's last state at
 * once. The hub is reference-counted by its watchers and closed (its agent
 * leaves the game) when the last leaves, so the board service sees one
 * observer stream per watched game and gateway, however many browsers.
 *
 * When the game has a rematch, the hub's observer follows it (as any
 * observer's agent does) and the hub with it: its key becomes the new
 * game's id, so its watchers' chat is said there.
 *
 * A slow browser is cut off without holding the others back: past
 * WEB_OUTBOX_BYTES queued for one watcher, its queue is dropped and it is
 * marked overflowed (web_watch.overflowed); the others' queues are not
 * touched.
 *
 * Threads: everything here runs on the libwebsockets service thread
 * (web_main.c), the hub's session thread excepted, which only ever talks
 * to its session through web_session.h's locked queues.
 */
#ifndef SUNGKA_WEB_HUB_H
#define SUNGKA_WEB_HUB_H

#include <stdbool.h>
#include <stddef.h>

#include "web_session.h"

struct lws;
struct lws_context;
typedef struct web_hub web_hub;
typedef struct web_hub_msg web_hub_msg;

/* One browser's place at a hub (inside its connection; service thread). */
typedef struct web_watch {
    struct web_watch *next;    /* the hub's list of watchers */
    struct lws *wsi;           /* the browser's connection */
    web_hub *hub;              /* NULL: not watching through a hub */
    web_hub_msg **queue;       /* messages waiting for this browser, a ring */
    size_t head, count, cap;
    size_t bytes;              /* their text's bytes */
    bool overflowed;           /* cut off for not reading */
} web_watch;

/* The browser behind w (whose wsi is set) watches game: through the
 * game's hub, made now when there is none. 0, or -1 when out of memory. */
int web_hub_watch(web_watch *w, const web_config *cfg, struct lws_context *ctx,
                  const char *game);

/* The browser stops watching (leaves, joins another game, or closes): its
 * queue is dropped, and the hub closed when it was the last watcher. */
void web_hub_unwatch(web_watch *w);

/* A command from the browser behind w, seen before its own session sees
 * it (service thread): a "join" with observe: true makes w a watcher
 * through the game's hub; "join", "new" and "leave" end its watching
 * first; a "chat" while watching is said by the browser's own session,
 * whose agent joins the game as an observer only to speak (the hub's
 * observer speaks for nobody); a type beginning with "_" (the gateway's own
 * commands to a session) is refused. 1 when taken here; 0 when the
 * browser's session is to have it too: the text as sent, or, when
 * *rewrite is set (malloc'd; the caller frees it), that instead. */
int web_hub_command(web_watch *w, const web_config *cfg, struct lws_context *ctx,
                    const char *text, size_t len, char **rewrite);

/* Take what every hub's session has produced and fan it out (service
 * thread, on every wake of the loop); asks for a writable callback on each
 * watcher that has something new. */
void web_hub_pump(void);

/* Write w's next message (on its writable callback). 1 when one was
 * written (ask again for more), 0 when none waits, -1 when the write
 * failed (close the connection). */
int web_hub_write(web_watch *w);

/* Close every hub (at exit, after every watcher is gone). */
void web_hub_close_all(void);

/* For /metrics: calls fn for each hub with its game and watcher count. */
void web_hub_each(void (*fn)(void *arg, const char *game, int watchers), void *arg);

/* Counters since the start, for /metrics. */
unsigned long long web_hub_messages_out(void);
unsigned long long web_hub_cut_off(void);

#endif /* SUNGKA_WEB_HUB_H */
