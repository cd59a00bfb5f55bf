/*
 * address.c — a peer's address key and a rate window (address.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "address.h"

/* An IPv6 address as gRPC writes it in a peer ("[2001:db8::1]", maybe
 * percent-encoded, maybe with a zone), into a; false when it is not one. */
static bool parse_ipv6(const char *host, struct in6_addr *a)
{
    char buf[INET6_ADDRSTRLEN + 16];
    size_t n = 0;
    for (const char *s = host; *s && n + 1 < sizeof buf; s++) {
        if (strncmp(s, "%5B", 3) == 0 || strncmp(s, "%5D", 3) == 0)
            s += 2;
        else if (*s == '%')
            break;                     /* a zone: not part of the key */
        else if (*s != '[' && *s != ']')
            buf[n++] = *s;
    }
    buf[n] = '\0';
    return inet_pton(AF_INET6, buf, a) == 1;
}

int address_host(const char *peer, int ipv6_prefix, char *out, size_t len)
{
    snprintf(out, len, "%s", peer);
    char *colon = strrchr(out, ':');
    if (colon && colon != strchr(out, ':'))
        *colon = '\0';                 /* the port */
    struct in6_addr a;
    if (strncmp(out, "ipv6:", 5) != 0 || !parse_ipv6(out + 5, &a))
        return 0;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
        char v4[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &a.s6_addr[12], v4, sizeof v4);
        snprintf(out, len, "ipv4:%s", v4);
        return 0;
    }
    if (ipv6_prefix < 1 || ipv6_prefix > 128)
        return -1;
    for (int bit = ipv6_prefix; bit < 128; bit++)
        a.s6_addr[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8));
    char v6[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, &a, v6, sizeof v6);
    snprintf(out, len, "ipv6:%s/%d", v6, ipv6_prefix);
    return 0;
}

bool address_window_admits(int64_t *start, int *count, int limit, int window_ms, int64_t now)
{
    if (now - *start >= window_ms) {
        *start = now;
        *count = 0;
    }
    if (*count >= limit)
        return false;
    (*count)++;
    return true;
}

static void clear_host_bits(address_prefix *p)
{
    int total = p->family == 4 ? 32 : 128;
    for (int bit = p->bits; bit < total; bit++)
        p->bytes[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8));
}

/* An IPv4-mapped IPv6 address (::ffff:a.b.c.d, with its prefix) as IPv4. */
static void unmap(address_prefix *p)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (p->family == 6 && p->bits >= 96 && memcmp(p->bytes, mapped, sizeof mapped) == 0) {
        memmove(p->bytes, p->bytes + 12, 4);
        memset(p->bytes + 4, 0, 12);
        p->family = 4;
        p->bits -= 96;
    }
}

int address_prefix_parse(const char *in, address_prefix *out, char *text, size_t text_len,
                         char *err, size_t errlen)
{
    char host[INET6_ADDRSTRLEN + 8];
    const char *slash = strchr(in, '/');
    size_t n = slash ? (size_t)(slash - in) : strlen(in);
    memset(out, 0, sizeof *out);
    if (n == 0 || n >= sizeof host) {
        snprintf(err, errlen, "'%.60s' is no IP address", in);
        return -1;
    }
    memcpy(host, in, n);
    host[n] = '\0';
    if (inet_pton(AF_INET, host, out->bytes) == 1)
        out->family = 4;
    else if (inet_pton(AF_INET6, host, out->bytes) == 1)
        out->family = 6;
    else {
        snprintf(err, errlen, "'%.60s' is no IPv4 or IPv6 address", host);
        return -1;
    }
    int total = out->family == 4 ? 32 : 128;
    out->bits = total;
    if (slash) {
        char *end;
        long bits = strtol(slash + 1, &end, 10);
        if (!slash[1] || *end || bits < 0 || bits > total) {
            snprintf(err, errlen, "the prefix length of '%.60s' is not 0..%d", in, total);
            return -1;
        }
        out->bits = (int)bits;
    }
    clear_host_bits(out);
    unmap(out);
    if (text) {
        char a[INET6_ADDRSTRLEN];
        inet_ntop(out->family == 4 ? AF_INET : AF_INET6, out->bytes, a, sizeof a);
        snprintf(text, text_len, "%s/%d", a, out->bits);
    }
    return 0;
}

int address_of_peer(const char *peer, address_prefix *out)
{
    char buf[ADDRESS_HOST_BYTES * 2];
    memset(out, 0, sizeof *out);
    snprintf(buf, sizeof buf, "%s", peer);
    char *colon = strrchr(buf, ':');
    if (colon && colon != strchr(buf, ':'))
        *colon = '\0';                 /* the port */
    struct in6_addr a;
    if (strncmp(buf, "ipv4:", 5) == 0 && inet_pton(AF_INET, buf + 5, out->bytes) == 1) {
        out->family = 4;
        out->bits = 32;
        return 0;
    }
    if (strncmp(buf, "ipv6:", 5) != 0 || !parse_ipv6(buf + 5, &a))
        return -1;
    out->family = 6;
    out->bits = 128;
    memcpy(out->bytes, a.s6_addr, 16);
    unmap(out);
    return 0;
}

bool address_prefix_contains(const address_prefix *p, const address_prefix *addr)
{
    if (p->family != addr->family)
        return false;
    int full = p->bits / 8, rest = p->bits % 8;
    if (memcmp(p->bytes, addr->bytes, (size_t)full) != 0)
        return false;
    if (rest == 0)
        return true;
    uint8_t mask = (uint8_t)(0xffu << (8 - rest));
    return (p->bytes[full] & mask) == (addr->bytes[full] & mask);
}
