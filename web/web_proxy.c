/*
 * web_proxy.c — X-Forwarded-For believed from trusted proxies only
 * (web_proxy.h).
 */
#include "web_proxy.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libwebsockets.h>

#define MAX_PROXIES 64

typedef struct proxy {
    int family;                /* AF_INET or AF_INET6 */
    uint8_t addr[16];
    int prefix;                /* bits */
} proxy;

static proxy proxies[MAX_PROXIES], staged[MAX_PROXIES];
static int n_proxies, n_staged;

int web_proxy_commit(void)
{
    memcpy(proxies, staged, sizeof proxies);
    n_proxies = n_staged;
    n_staged = 0;
    return n_proxies;
}

void web_proxy_discard(void)
{
    n_staged = 0;
}

/* ip (IPv4, IPv6, or IPv4-mapped IPv6) into family and 4 or 16 bytes. */
static bool parse_ip(const char *ip, int *family, uint8_t *out)
{
    if (inet_pton(AF_INET, ip, out) == 1) {
        *family = AF_INET;
        return true;
    }
    if (inet_pton(AF_INET6, ip, out) == 1) {
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (memcmp(out, mapped, 12) == 0) {
            memmove(out, out + 12, 4);
            *family = AF_INET;
        } else {
            *family = AF_INET6;
        }
        return true;
    }
    return false;
}

int web_proxy_add(const char *text, char *err, size_t err_len)
{
    char ip[INET6_ADDRSTRLEN + 8];
    const char *slash = strchr(text, '/');
    size_t n = slash ? (size_t)(slash - text) : strlen(text);
    proxy p = {0};
    if (n == 0 || n >= sizeof ip)
        goto bad;
    memcpy(ip, text, n);
    ip[n] = '\0';
    if (!parse_ip(ip, &p.family, p.addr))
        goto bad;
    int max = p.family == AF_INET ? 32 : 128;
    p.prefix = max;
    if (slash) {
        char *end;
        long bits = strtol(slash + 1, &end, 10);
        if (*end || end == slash + 1 || bits < 0 || bits > max)
            goto bad;
        p.prefix = (int)bits;
    }
    if (n_staged >= MAX_PROXIES) {
        snprintf(err, err_len, "at most %d of them (give a network, ADDR/PREFIX, "
                               "for many)", MAX_PROXIES);
        return -1;
    }
    staged[n_staged++] = p;
    return 0;
bad:
    snprintf(err, err_len, "wants an address or a network, like 10.0.0.5, "
                           "10.0.0.0/8 or fd00::/8, not '%s'", text);
    return -1;
}

bool web_proxy_trusted(const char *ip)
{
    int family;
    uint8_t a[16];
    if (n_proxies == 0 || !parse_ip(ip, &family, a))
        return false;
    for (int i = 0; i < n_proxies; i++) {
        const proxy *p = &proxies[i];
        if (p->family != family)
            continue;
        int full = p->prefix / 8, rest = p->prefix % 8;
        if (memcmp(a, p->addr, (size_t)full) != 0)
            continue;
        if (rest && ((a[full] ^ p->addr[full]) & (uint8_t)(0xff << (8 - rest))))
            continue;
        return true;
    }
    return false;
}

static void peer_of(struct lws *wsi, char *ip, size_t len)
{
    char raw[64] = "";
    lws_get_peer_simple(wsi, raw, sizeof raw);
    const char *p = strncmp(raw, "::ffff:", 7) == 0 && strchr(raw + 7, '.') ? raw + 7 : raw;
    snprintf(ip, len, "%s", p);
}

bool web_proxy_forwarded_https(struct lws *wsi)
{
    char ip[64], proto[16];
    peer_of(wsi, ip, sizeof ip);
    if (!web_proxy_trusted(ip))
        return false;
    int n = lws_hdr_custom_copy(wsi, proto, sizeof proto, "x-forwarded-proto:", 18);
    return n > 0 && strcasecmp(proto, "https") == 0;
}

void web_client_address(struct lws *wsi, char *ip, size_t len)
{
    peer_of(wsi, ip, len);
    if (!web_proxy_trusted(ip))
        return;
    char xff[512];
    if (lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) <= 0)
        return;
    /* The last entry is the one the proxy appended: the address it saw. */
    char *last = strrchr(xff, ',');
    last = last ? last + 1 : xff;
    while (*last == ' ' || *last == '\t')
        last++;
    size_t n = strlen(last);
    while (n > 0 && (last[n - 1] == ' ' || last[n - 1] == '\t'))
        last[--n] = '\0';
    int family;
    uint8_t a[16];
    if (parse_ip(last, &family, a))
        snprintf(ip, len, "%s", last);
    else
        lwsl_user("ignored X-Forwarded-For '%s' from the proxy at %s: not an address\n", last, ip);
}
