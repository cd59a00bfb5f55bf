/*
 * listen.c — why the service cannot listen where it was told to. gRPC only
 * logs the reason (and its log is hidden from users, see rpc_set_verbose), so
 * after it refused an address we try a bind() of our own and say what the
 * kernel said: in use, not this machine's, not allowed, or no address at all.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board_internal.h"

/* bind()'s errno for one address (0: it would bind), as gRPC binds it: with
 * SO_REUSEADDR, so a port with only closing connections on it is free. */
static int try_bind(const struct addrinfo *ai)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0)
        return errno;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int e = bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 ? 0 : errno;
    close(fd);
    return e;
}

void board_listen_problem(const char *addr, bool tls, char *err, size_t errlen)
{
    const char *colon = strrchr(addr, ':');
    const char *port = colon ? colon + 1 : "";
    if (!colon || !*port || strspn(port, "0123456789") != strlen(port) || atoi(port) > 65535) {
        snprintf(err, errlen, "cannot listen on %s: give HOST:PORT, with a port 0..65535", addr);
        return;
    }
    /* The host, without the brackets of "[::1]:7070"; "" (any) for ":7070". */
    char host[256];
    const char *h = addr;
    size_t hostlen = (size_t)(colon - addr);
    if (hostlen >= 2 && h[0] == '[' && h[hostlen - 1] == ']') {
        h++;
        hostlen -= 2;
    }
    if (hostlen >= sizeof host) {
        snprintf(err, errlen, "cannot listen on %s: the host name is too long", addr);
        return;
    }
    snprintf(host, sizeof host, "%.*s", (int)hostlen, h);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    int gai = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (gai != 0) {
        snprintf(err, errlen, "cannot listen on %s: '%s' is not a known host name or "
                              "address (%s)", addr, host, gai_strerror(gai));
        return;
    }
    int first = 0;             /* the first address's errno */
    bool any_free = false;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int e = try_bind(ai);
        if (e == 0)
            any_free = true;
        else if (!first)
            first = e;
    }
    freeaddrinfo(res);
    const char *why;
    if (any_free || !first)    /* the address is fine: it was something else */
        why = tls ? "the TLS files are not a matching PEM certificate and key"
                  : "gRPC refused it (--verbose shows gRPC's reason)";
    else if (first == EADDRINUSE)
        why = "the address is in use (is another sungka-board running?)";
    else if (first == EADDRNOTAVAIL)
        why = "no network interface of this machine has that address";
    else if (first == EACCES)
        why = "permission denied (ports below 1024 need privileges)";
    else
        why = strerror(first);
    snprintf(err, errlen, "cannot listen on %s: %s", addr, why);
}
