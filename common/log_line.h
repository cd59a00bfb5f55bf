/*
 * log_line.h — how the servers (sungka-board, sungka-relay) write a line of
 * their log: with a priority, and in the form of where it goes. Under
 * systemd, whose journal stamps every line itself, a line is "<N>text" (the
 * sd-daemon.h prefix the journal reads as its priority: "<3>" an error ..
 * "<7>" debug) and no time of our own; anywhere else (a terminal, a file, a
 * pipe) it is "HH:MM:SS text", with no prefix.
 *
 * The levels are syslog.h's (LOG_ERR 3, LOG_WARNING 4, LOG_NOTICE 5,
 * LOG_INFO 6, LOG_DEBUG 7), the same numbers as sd-daemon.h's SD_ERR ...
 * Any thread: log_line_write makes the whole line first and writes it with
 * one call, so lines from two threads do not mix; no state of its own.
 */
#ifndef SUNGKA_LOG_LINE_H
#define SUNGKA_LOG_LINE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>

/* Does out go to the journal? True when the JOURNAL_STREAM environment
 * variable ("DEVICE:INODE", set by systemd for a unit's standard output and
 * error) names out's own file (fstat), as systemd.exec(5) says to check: a
 * program whose stderr was redirected elsewhere by a script keeps its time
 * stamps. Decide once, before any thread logs. */
bool log_line_to_journal(FILE *out);

/* One line, fmt and ap as vprintf's, at level (LOG_ERR .. LOG_DEBUG;
 * others are clamped into that range), in the journal's form when journal,
 * else stamped with the local time; flushed. Cut at 4 KiB. */
void log_line_write(FILE *out, bool journal, int level, const char *fmt, va_list ap);

/* A server's own sentence on stderr, outside its log ("sungka-board: cannot
 * listen on ...", its TLS fingerprint, a warning at start): as it is, with
 * no time stamp, but with the "<N>" of level when stderr is the journal's
 * (log_line_to_journal), so that a failure to start is an error there.
 * Main thread, before or after the server runs. */
void log_line_say(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* SUNGKA_LOG_LINE_H */
