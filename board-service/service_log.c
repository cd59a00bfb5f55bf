/*
 * service_log.c — what every file of the board service uses and nothing
 * owns: its clocks (monotonic for timers and deadlines, the wall clock for
 * the stamps events and results carry), its log lines, and a client's
 * string made safe to echo in a sentence. Kept out of service.c so that the
 * room's files and the RPC surface do not call each other for them.
 * Loop thread only (board_log writes whole lines, any thread would do).
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "board_internal.h"
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

void board_log(board_service *svc, const char *fmt, ...)
{
    FILE *out = svc->cfg.log ? svc->cfg.log : stderr;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
    fprintf(out, "%s ", stamp);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    fflush(out);
}

const char *board_echo(const char *in, char *buf, size_t len)
{
    text_escape(in, buf, len);
    return buf;
}
