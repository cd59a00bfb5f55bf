/*
 * address.c — a peer's address key and a rate window (address.h).
 */
#include <stdio.h>
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
