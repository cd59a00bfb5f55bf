/*
 * bench_report.c — sungka-bench's rows and targets, the table, the JSON file
 * and whether the machine was quiet enough for verdicts (bench_report.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_report.h"
#include "bench_util.h"

static row rows[64];   /* add_row hands out pointers into this: valid until exit */
static int n_rows;

row *add_row(const char *section, const char *name, const char *param)
{
    if (n_rows == (int)(sizeof rows / sizeof rows[0]))
        fatal("too many rows");
    row *r = &rows[n_rows++];
    memset(r, 0, sizeof *r);
    r->section = section;
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->param, sizeof r->param, "%s", param);
    return r;
}

void print_table(FILE *out)
{
    fprintf(out, "\n%-8s %-34s %-17s %10s %10s %10s | %10s %10s | %6s\n", "section", "metric",
            "param", "p50", "p99", "mean", "floor p50", "floor p99", "x p50");
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        if (r->latency) {
            fprintf(out, "%-8s %-34s %-17s %10.1f %10.1f %10.1f", r->section, r->name, r->param,
                    r->s.p50, r->s.p99, r->s.mean);
            if (r->has_floor)
                fprintf(out, " | %10.1f %10.1f | %6.2f", r->f.p50, r->f.p99,
                        r->f.p50 > 0 ? r->s.p50 / r->f.p50 : 0);
            else
                fprintf(out, " | %10s %10s | %6s", "", "", "");
        } else {
            char v[40];
            snprintf(v, sizeof v, r->value < 10 ? "%.2f %s" : "%.0f %s", r->value, r->unit);
            fprintf(out, "%-8s %-34s %-17s %32s | %10s %10s | %6s", r->section, r->name,
                    r->param, v, "", "", "");
        }
        fprintf(out, "\n");
        if (r->note[0])
            fprintf(out, "%-8s   %s\n", "", r->note);
    }
    fprintf(out, "(latencies in microseconds; p99 is the nearest-rank 99th percentile)\n");
}

static void json_stats(FILE *f, const char *key, const stats *s)
{
    fprintf(f, "\"%s\": {\"n\": %d, \"p50_us\": %.1f, \"p99_us\": %.1f, \"mean_us\": %.1f, "
               "\"max_us\": %.1f}",
            key, s->n, s->p50, s->p99, s->mean, s->max);
}

/* Strings here are our own ASCII; escape quotes and backslashes anyway. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

typedef struct goal_t {
    const char *what;
    double measured, goal;
    const char *unit;
    bool higher_is_better;
    bool measured_ok;
} goal_t;

static goal_t targets[16];
static int n_targets;

/* Was the machine quiet? Ratios taken while other work shares the cores
 * mislead (the benchmark's own client slows more than the service it
 * times), so no target gets a verdict (unless --verdict-anyway) when the
 * 1-minute load average before the run was above NOISY_LOAD per core, or
 * when other processes used more than NOISY_SHARE of the machine's CPU
 * during it: the CPU time /proc/stat counts as busy, less this program's and
 * its children's. (The load average after the run is shown, but it counts
 * the run itself: a full run keeps both cores busy for minutes.) */
#define NOISY_LOAD 0.25
#define NOISY_SHARE 0.05
static double load_before = -1, load_after = -1;
static double busy_before, ours_before, others_share = -1;
static int64_t quiet_t0;

static double load_now(void)
{
    double l[1];
    return getloadavg(l, 1) == 1 ? l[0] : -1;
}

/* Seconds of CPU the whole machine has been busy (not idle, not waiting). */
static double machine_busy_s(void)
{
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[8] = {0};
    if (!f)
        return -1;
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n != 8)
        return -1;
    /* user nice system idle iowait irq softirq steal */
    return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)sysconf(_SC_CLK_TCK);
}

/* Seconds of CPU this program and its (waited-for) children have used. */
static double ours_s(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    struct timeval t[] = {self.ru_utime, self.ru_stime, kids.ru_utime, kids.ru_stime};
    double s = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        s += (double)t[i].tv_sec + (double)t[i].tv_usec / 1e6;
    return s;
}

void quiet_begin(void)
{
    load_before = load_now();
    busy_before = machine_busy_s();
    ours_before = ours_s();
    quiet_t0 = now_ns();
}

/* After every child has stopped. */
void quiet_end(void)
{
    load_after = load_now();
    double secs = (double)(now_ns() - quiet_t0) / 1e9;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double others = (machine_busy_s() - busy_before) - (ours_s() - ours_before);
    if (busy_before >= 0 && secs > 0)
        others_share = (others > 0 ? others : 0) / (secs * (double)(cpus > 0 ? cpus : 1));
}

static bool noisy(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return load_before < 0 || load_before > NOISY_LOAD * (double)(cpus > 0 ? cpus : 1) ||
           others_share < 0 || others_share > NOISY_SHARE;
}

void add_target(const char *what, double measured, double goal, const char *unit,
                bool higher)
{
    targets[n_targets++] = (goal_t){what, measured, goal, unit, higher, true};
}

static bool target_met(const goal_t *t)
{
    return t->higher_is_better ? t->measured >= t->goal : t->measured <= t->goal;
}

static const char *verdict(const goal_t *t, bool verdict_anyway)
{
    if (noisy() && !verdict_anyway)
        return "NOISY";
    return target_met(t) ? "MET" : "MISSED";
}

void print_targets(FILE *out, bool verdict_anyway)
{
    fprintf(out, "\nload average (1 min): %.2f before, %.2f after (the run's own), %ld CPUs; "
                 "other processes used %.1f%% of the CPU during the run%s\n",
            load_before, load_after, sysconf(_SC_NPROCESSORS_ONLN), others_share * 100,
            noisy() ? " -- not quiet: no verdicts (--verdict-anyway to give them)" : "");
    fprintf(out, "targets:\n");
    for (int i = 0; i < n_targets; i++) {
        const goal_t *t = &targets[i];
        fprintf(out, "  %-52s %10.2f %-8s (goal %s %.2f)  %s\n", t->what, t->measured, t->unit,
                t->higher_is_better ? ">=" : "<=", t->goal, verdict(t, verdict_anyway));
    }
}

int write_json(const char *path, double seconds, bool quick, bool verdict_anyway)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    time_t now = time(NULL);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "{\n  \"benchmark\": \"sungka-bench\",\n  \"mode\": \"%s\",\n  \"time\": \"%s\",\n"
               "  \"cpus\": %ld,\n  \"seconds\": %.1f,\n  \"load_before\": %.2f,\n"
               "  \"load_after\": %.2f,\n  \"others_cpu_share\": %.3f,\n  \"noisy\": %s,\n"
               "  \"rows\": [\n",
            quick ? "quick" : "full", when, sysconf(_SC_NPROCESSORS_ONLN), seconds, load_before,
            load_after, others_share, noisy() ? "true" : "false");
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        fprintf(f, "    {\"section\": ");
        json_str(f, r->section);
        fprintf(f, ", \"metric\": ");
        json_str(f, r->name);
        fprintf(f, ", \"param\": ");
        json_str(f, r->param);
        fprintf(f, ", ");
        if (r->latency) {
            json_stats(f, "service", &r->s);
            if (r->has_floor) {
                fprintf(f, ", ");
                json_stats(f, "floor", &r->f);
                fprintf(f, ", \"ratio_p50\": %.3f", r->f.p50 > 0 ? r->s.p50 / r->f.p50 : 0);
            }
        } else {
            fprintf(f, "\"value\": %.1f, \"unit\": ", r->value);
            json_str(f, r->unit);
        }
        fprintf(f, ", \"note\": ");
        json_str(f, r->note);
        fprintf(f, "}%s\n", i + 1 < n_rows ? "," : "");
    }
    fprintf(f, "  ],\n  \"targets\": [\n");
    for (int i = 0; i < n_targets; i++) {
        const goal_t *t = &targets[i];
        fprintf(f, "    {\"target\": ");
        json_str(f, t->what);
        fprintf(f, ", \"measured\": %.2f, \"goal\": %.2f, \"unit\": ", t->measured, t->goal);
        json_str(f, t->unit);
        fprintf(f, ", \"met\": %s, \"verdict\": \"%s\"}%s\n",
                target_met(t) ? "true" : "false", verdict(t, verdict_anyway),
                i + 1 < n_targets ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return fclose(f);
}
