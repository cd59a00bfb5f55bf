/*
 * web_proxy.h — whom a browser's connection is from, behind a reverse
 * proxy. A connection's address is its peer's, unless the peer is one of
 * the proxies given with --trusted-proxy ADDR[/PREFIX]: then it is the
 * address that proxy appended to X-Forwarded-For (the header's last
 * entry; anything before it was written by the client and is not
 * believed). The per-address limit and the logs use that address.
 *
 * Threads: service thread only (main's, which also reads the settings at
 * the start and at a reload between two turns of the loop).
 */
#ifndef SUNGKA_WEB_PROXY_H
#define SUNGKA_WEB_PROXY_H

#include <stdbool.h>
#include <stddef.h>

struct lws;

/* Add "ADDR" or "ADDR/PREFIX" (IPv4 or IPv6) to the staged list of
 * trusted proxies. -1 with a sentence in err when it is neither. */
int web_proxy_add(const char *text, char *err, size_t err_len);

/* The staged list becomes the one in use (at the start, and at a reload
 * whose settings were all accepted); its length. */
int web_proxy_commit(void);

/* The staged list is emptied (before a reading, and after a refused one). */
void web_proxy_discard(void);

/* Whether the numeric address ip is a trusted proxy. */
bool web_proxy_trusted(const char *ip);

/* The connection's address as people write it (an IPv4 peer of a
 * dual-stack socket without "::ffff:"), or the one its trusted proxy
 * forwarded. */
void web_client_address(struct lws *wsi, char *ip, size_t len);

/* Whether a trusted proxy says the browser spoke HTTPS to it
 * (X-Forwarded-Proto: https): the page's origin is then https://HOST, and
 * a cookie the gateway sets must carry Secure. From anyone else, false. */
bool web_proxy_forwarded_https(struct lws *wsi);

#endif /* SUNGKA_WEB_PROXY_H */
