/*
 * address.c — a peer's host and a rate window (address.h).
 */
#include <stdio.h>
#include <string.h>

#include "address.h"

void address_host(const char *peer, char *out, size_t len)
{
    snprintf(out, len, "%s", peer);
    char *colon = strrchr(out, ':');
    if (colon && colon != strchr(out, ':'))
        *colon = '\0';
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
