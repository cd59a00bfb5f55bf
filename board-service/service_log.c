/*
 * service_log.c — what every file of the board service uses and nothing
 * owns: its clocks (monotonic for timers and deadlines, the wall clock for
 * the stamps events and results carry), its log lines, and a client's
 * string made safe to echo in a sentence. Kept out of service.c so that the
 * room's files and the RPC surface do not call each other for them.
 * Loop thread only, but for board_log, which writes each line whole from any
 * thread (the watchdog's, health.c).
 */
#include <stdarg.h>
#include <stdatomic.h>
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
    if (atomic_load(&svc->quiet))
        return;
    FILE *out = svc->cfg.log ? svc->cfg.log : stderr;
    char line[4096];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    size_t n = strftime(line, sizeof line, "%H:%M:%S ", &tm);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - n, fmt, ap);
    va_end(ap);
    /* One write per line: the watchdog (health.c) logs from its own thread. */
    fprintf(out, "%s\n", line);
    fflush(out);
}

const char *board_echo(const char *in, char *buf, size_t len)
{
    text_escape(in, buf, len);
    return buf;
}
