/*
 * web_session.h — one browser's player agent: the gateway's view.
 *
 * A browser connected to sungka-web over WebSocket gets a session: a thread,
 * and a player agent (player-agent/agent.h) of its own once it needs one,
 * that thread being the agent's view thread. The agent (three threads and
 * a connection to the board service) is started by the session thread when
 * the browser first plays, signs in, speaks or asks for its history (or at
 * once, to take back a kept seat or sign-in): a browser that only watches
 * (web_hub.h) and reads the lobby (web_lister.h, one shared lister) costs
 * the board service nothing of its own. The session turns the agent's messages into the JSON of
 * docs/web-protocol.md and the browser's JSON commands into agent calls.
 * The gateway keeps no game state of its own: what it sends is drawn from
 * the agent's model, and the board's geometry from the GTK view's
 * (views/gtk/gtk_geometry.h), so the browser only draws and never plays
 * the rules.
 *
 * Threads:
 *   - the libwebsockets service thread (web_main.c) calls web_session_open,
 *     web_session_input, web_session_take and web_session_close;
 *   - the session thread (one per browser, started by web_session_open)
 *     starts the agent when needed; without one it waits on the session's
 *     condition variable (no file of its own), with one it polls the
 *     agent's fd and the session's wake eventfd; it runs every agent call (lobby calls block it, never the service
 *     thread), and queues JSON for the browser, then wakes the service
 *     thread with lws_cancel_service;
 *     While the browser waits for a quick pairing, the session thread asks
 *     the agent for the pool's news every QUICK_POLL_MS (agent_quick_start,
 *     _news, _finish: never blocked while the pool waits), so that it still
 *     reads a "quick_cancel"; other commands are refused until the end;
 *   - the agent's own threads (rpc client, reconnect) never see a session.
 * The queues between the two (commands in, JSON out) and the flags below
 * are under the session's mutex; everything else is the session thread's.
 * The session thread wakes the loop only under that mutex and only before
 * web_session_close, so never after the context is destroyed. The session
 * thread alone touches the cookie session's files (web_store.h).
 *
 * Memory per browser is bounded: at most WEB_OUTBOX_BYTES of JSON wait for
 * a browser that does not read; past that the session is marked overflowed
 * and the service thread drops the connection (with the close reason "too
 * slow" when the socket still has room for it).
 * Commands are at most WEB_MAX_COMMAND bytes each (the service thread
 * closes a connection that sends more) and at most WEB_MAX_INBOX wait: past
 * that the browser is no longer read until they drain (flow control).
 *
 * Ownership: a session is freed by whichever of its two owners lets go
 * last — the service thread (web_session_close) or the session thread
 * (when it ends). After web_session_close the pointer must not be used.
 */
#ifndef SUNGKA_WEB_SESSION_H
#define SUNGKA_WEB_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define WEB_PROTOCOL_VERSION 4
#define WEB_PROTOCOL_OLDEST 1      /* the oldest a page may still speak */
#define WEB_OUTBOX_BYTES (512 * 1024)
#define WEB_MAX_COMMAND 4096
#define WEB_MAX_INBOX 64

struct lws_context;

typedef struct web_session web_session;

/* What every session's agent is given (borrowed for the program's life). */
typedef struct web_config {
    const char *server;        /* the board service, "host:port" */
    bool tls;                  /* speak TLS to it */
    const char *tls_ca;        /* its CA (NULL: system roots or trust on first use) */
    const char *relay_key;     /* the gateway's relay key (--relay-key): each agent
                                * shows it and names its browser's address, so the
                                * service counts its limits per browser; NULL: none */
    const char *state_dir;     /* the browsers' kept sessions (web_store.h); NULL: none */
} web_config;

/* Start a session for a new browser (service thread): the session thread
 * starts at once and connects its agent. id: the browser's cookie session
 * (web_store.h; copied), or NULL. With a known one, the session thread
 * takes back the game the browser was at (its seat, with the token kept in
 * the session's directory) and the account it signed in with; the seat
 * is then kept when the browser goes (the service's grace). client_ip: the
 * browser's address (numeric), named to the service with the relay key;
 * NULL for the gateway's own sessions (a shared watcher, web_hub.h). NULL
 * when out of memory or threads. */
web_session *web_session_open(const web_config *cfg, struct lws_context *ctx, const char *id,
                              const char *client_ip);

/* Queue one command, a text message as the browser sent it (service
 * thread). 0; 1 when WEB_MAX_INBOX commands now wait: the browser sends
 * faster than it is answered, and the caller stops reading it (TCP then
 * holds the browser back) until web_session_inbox_room says so again, after
 * the session thread has woken the loop; -1 out of memory, or when twice
 * WEB_MAX_INBOX wait (the caller kept reading): the caller closes. */
int web_session_input(web_session *s, const char *text, size_t len);

/* May the service thread read the browser again (the inbox drained to half
 * after web_session_input said 1)? Service thread, on a wake-up. */
bool web_session_inbox_room(web_session *s);

/* The next JSON message for the browser (service thread): a malloc'd
 * string the caller frees, with its length in *len; NULL when none.
 * *close (may be set with or without a message) says the session is over
 * and the connection should close after it, with the reason in
 * reason[0..reason_len) (e.g. "too slow": the outbox overflowed). */
char *web_session_take(web_session *s, size_t *len, bool *close, char *reason,
                       size_t reason_len);

/* Whether the outbox overflowed (service thread): the browser is to be cut
 * off now, even though its socket never becomes writable again. */
bool web_session_overflowed(web_session *s);

/* The browser is gone (service thread): the session thread leaves its game,
 * destroys its agent and ends. Do not use s afterwards. */
void web_session_close(web_session *s);

/* The browsers' player agents running now (any thread; /metrics): a
 * browser's agent starts only when it needs one (to play, sign in, speak,
 * read its history), never to watch or read the lobby. */
int web_session_agents(void);

/* The lobby message (docs/web-protocol.md, "lobby") as agent ag lists it
 * (ag's view thread, blocking): a new JSON object, or NULL with a sentence
 * in err. */
struct agent;
json_t *web_session_lobby_json(struct agent *ag, char *err, size_t errlen);

/* Wait until every session thread has ended (main thread, at exit, after
 * the service thread closed every connection). */
void web_sessions_wait_all(void);

#endif /* SUNGKA_WEB_SESSION_H */
