/*
 * bench_report.h — what sungka-bench found: rows of figures and targets with
 * their goals, printed as a table and written as JSON, and whether the
 * machine was quiet enough during the run to judge the targets.
 *
 * Ownership: rows and targets live in this module until exit. add_row()
 * returns a pointer into its table (valid until exit) for the caller to
 * fill; section is kept as given (a string literal), name and param are
 * copied. add_target() keeps its what and unit pointers: pass literals or
 * static buffers.
 *
 * Threads: the main thread's alone.
 */
#ifndef SUNGKA_BENCH_REPORT_H
#define SUNGKA_BENCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "bench_util.h"

typedef struct row {
    const char *section;
    char name[64];
    char param[24];
    bool latency;             /* stats in s (and f); else value + unit */
    stats s;
    bool has_floor;
    stats f;
    double value;
    const char *unit;
    char note[320];
} row;

/* A new zeroed row (at most 64 in a run; fatal beyond). */
row *add_row(const char *section, const char *name, const char *param);
void print_table(FILE *out);

/* A figure with a goal: met when measured >= goal (higher) or <= goal. */
void add_target(const char *what, double measured, double goal, const char *unit,
                bool higher);

/* quiet_begin before the first measurement, quiet_end after every child has
 * stopped: the load average and the CPU other processes took in between. */
void quiet_begin(void);
void quiet_end(void);

/* The quietness and the targets, each MET or MISSED, or NOISY when the
 * machine was not quiet unless verdict_anyway. */
void print_targets(FILE *out, bool verdict_anyway);
/* Everything as JSON at path (quick: the run's mode); 0, or -1 with errno. */
int write_json(const char *path, double seconds, bool quick, bool verdict_anyway);

#endif
