/*
 * log_line.c — a server's log line, for the journal or for a person
 * (log_line.h).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "log_line.h"

bool log_line_to_journal(FILE *out)
{
    const char *js = getenv("JOURNAL_STREAM");
    if (!out || !js || !*js)
        return false;
    uintmax_t dev, ino;
    char tail;
    if (sscanf(js, "%ju:%ju%c", &dev, &ino, &tail) != 2)
        return false;
    struct stat st;
    if (fstat(fileno(out), &st) != 0)
        return false;
    return (uintmax_t)st.st_dev == dev && (uintmax_t)st.st_ino == ino;
}

void log_line_say(int level, const char *fmt, ...)
{
    if (log_line_to_journal(stderr))
        fprintf(stderr, "<%d>", level < LOG_ERR ? LOG_ERR : level > LOG_DEBUG ? LOG_DEBUG : level);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

void log_line_write(FILE *out, bool journal, int level, const char *fmt, va_list ap)
{
    char line[4096];
    size_t n;
    if (level < LOG_ERR)           /* nothing here stops the machine: ERR at worst */
        level = LOG_ERR;
    if (level > LOG_DEBUG)
        level = LOG_DEBUG;
    if (journal) {
        n = (size_t)snprintf(line, sizeof line, "<%d>", level);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        n = strftime(line, sizeof line, "%H:%M:%S ", &tm);
    }
    vsnprintf(line + n, sizeof line - n, fmt, ap);
    /* One write per line: other threads log too (the board's watchdog). */
    fprintf(out, "%s\n", line);
    fflush(out);
}
