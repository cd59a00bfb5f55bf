/*
 * service_log.c — what every file of the board service uses and nothing
 * owns: its clocks (monotonic for timers and deadlines, the wall clock for
 * the stamps events and results carry), its log lines, and a client's
 * string made safe to echo in a sentence. Kept out of service.c so that the
 * room's files and the RPC surface do not call each other for them.
 * Loop thread only, but for board_log and board_log_at, which write each
 * line whole from any thread (the watchdog's, health.c): they read only
 * cfg.log and log_journal, both set before any thread starts.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "board_internal.h"
#include "log_line.h"
#include "text.h"

int64_t board_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t board_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void board_log_open(board_service *svc)
{
    svc->log_journal = log_line_to_journal(svc->cfg.log ? svc->cfg.log : stderr);
}

void board_log_at(board_service *svc, int level, const char *fmt, ...)
{
    if (atomic_load(&svc->quiet))
        return;
    va_list ap;
    va_start(ap, fmt);
    log_line_write(svc->cfg.log ? svc->cfg.log : stderr, svc->log_journal, level, fmt, ap);
    va_end(ap);
}

void board_log(board_service *svc, const char *fmt, ...)
{
    if (atomic_load(&svc->quiet))
        return;
    va_list ap;
    va_start(ap, fmt);
    log_line_write(svc->cfg.log ? svc->cfg.log : stderr, svc->log_journal, LOG_INFO, fmt, ap);
    va_end(ap);
}

void board_log_client(board_service *svc, int level, const char *host, const char *fmt, ...)
{
    char text[3072], shown[BOARD_LOG_HOST_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    board_log_at(svc, level, "client %s: %s", board_log_host(host, shown, sizeof shown), text);
}

void board_log_person(board_service *svc, int level, const participant *p, const char *fmt,
                      ...)
{
    char text[3072];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (p->bot_level > 0)
        board_log_at(svc, level, "%s", text);
    else
        board_log_client(svc, level, p->host, "%s", text);
}

void board_log_limit(board_service *svc, const char *host, const char *sentence)
{
    /* A flood of refused calls must not become a flood of lines: the log's
     * growth is a resource of its own, counted per address. A service
     * without its table (a test's bare room) logs every one. */
    limit_table *t = &svc->limits;
    if (t->cap) {
        int64_t now = board_now_ms();
        int n = board_limit_count(t, "limit-lines", host, 60 * 1000, now);
        if (n > BOARD_LIMIT_LINES)
            return;
        board_limit_add(t, "limit-lines", host, 60 * 1000, now);
        if (n == BOARD_LIMIT_LINES) {
            board_log_client(svc, LOG_NOTICE, host, "limit reached: %s (more of this "
                             "address's refusals are not logged for a minute)", sentence);
            return;
        }
    }
    board_log_client(svc, LOG_NOTICE, host, "limit reached: %s", sentence);
}

void board_log_signin_failed(board_service *svc, const char *host, const char *name,
                             const char *why)
{
    char shown[BOARD_NAME_BYTES * 4];
    board_log_client(svc, LOG_NOTICE, host, "sign-in failed for \"%s\": %s",
                     board_echo(name, shown, sizeof shown), why);
}

const char *board_log_host(const char *host, char *buf, size_t len)
{
    if (!host || !*host) {
        snprintf(buf, len, "(unknown)");
    } else if (strncmp(host, "relay ", 6) == 0) {      /* a relay's own entry */
        char inner[BOARD_LOG_HOST_BYTES];
        snprintf(buf, len, "relay at %s", board_log_host(host + 6, inner, sizeof inner));
    } else if (strncmp(host, "ipv4:", 5) == 0 || strncmp(host, "ipv6:", 5) == 0) {
        snprintf(buf, len, "%s", host + 5);
    } else {
        snprintf(buf, len, "%s", host);
    }
    return buf;
}

const char *board_echo(const char *in, char *buf, size_t len)
{
    text_escape(in, buf, len);
    return buf;
}
