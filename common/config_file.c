/*
 * config_file.c — a server's configuration file (config_file.h), parsed by
 * inih. inih as Debian builds it calls the handler without the line number
 * and reports the first failing line from ini_parse, so the handler keeps
 * the first sentence and the line is joined to it afterwards.
 */
#include "config_file.h"

#include <errno.h>
#include <ini.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct config_values {
    struct config_values *next;
    char text[];               /* one value, as the file gave it */
};

struct reading {
    const char *section;
    const struct option *opts;
    const int *refused;
    size_t n_refused;
    config_apply_fn apply;
    void *user;
    config_values *kept;
    char first[512];           /* the first error's sentence, without PATH:LINE */
};

static const char *keep(struct reading *rd, const char *s)
{
    size_t n = strlen(s) + 1;
    config_values *v = malloc(sizeof *v + n);
    if (!v)
        return NULL;
    memcpy(v->text, s, n);
    v->next = rd->kept;
    rd->kept = v;
    return v->text;
}

/* true/false for an option without an argument: -1 when it is neither. */
static int truth(const char *s)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(s, yes[i]) == 0)
            return 1;
        if (strcasecmp(s, no[i]) == 0)
            return 0;
    }
    return -1;
}

/* One error: only the first is said (ini_parse reports its line). */
static int fail(struct reading *rd, const char *fmt, const char *a, const char *b)
{
    if (!rd->first[0])
        snprintf(rd->first, sizeof rd->first, fmt, a, b);
    return 0;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    struct reading *rd = user;
    if (strcmp(section, rd->section) != 0)
        return section[0] ? fail(rd, "'%s' is in [%s]; this program reads only the keys of "
                                     "its own section", name, section)
                          : fail(rd, "'%s' is outside a section; put it under [%s]", name,
                                 rd->section);
    const struct option *o = rd->opts;
    while (o->name && strcmp(o->name, name) != 0)
        o++;
    if (!o->name)
        return fail(rd, "unknown key '%s' (the keys are the long options of --help, without "
                        "their dashes)%s", name, "");
    for (size_t i = 0; i < rd->n_refused; i++)
        if (rd->refused[i] == o->val)
            return fail(rd, "'%s' is something to do (--%s on the command line), not a "
                            "setting", name, name);
    const char *arg = NULL;
    if (o->has_arg == no_argument) {
        int t = truth(value);
        if (t < 0)
            return fail(rd, "'%s' is true or false, not '%s'", name, value);
        if (t == 0)
            return 1;          /* nothing to set: the default */
    } else if (!(arg = keep(rd, value))) {
        return fail(rd, "out of memory reading '%s'%s", name, "");
    }
    char why[400];
    if (rd->apply(rd->user, o->val, o->name, arg, why, sizeof why) != 0)
        return fail(rd, "%s %s", name, why);
    return 1;
}

int config_file_read(const char *path, const char *section, const struct option *opts,
                     const int *refused, size_t n_refused, config_apply_fn apply, void *user,
                     config_values **kept, char *err, size_t errlen)
{
    struct reading rd = {.section = section, .opts = opts, .refused = refused,
                         .n_refused = n_refused, .apply = apply, .user = user};
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        *kept = NULL;
        return -1;
    }
    int line = ini_parse_file(f, on_key, &rd);
    fclose(f);
    *kept = rd.kept;
    if (line == 0)
        return 0;
    if (line < 0) {
        snprintf(err, errlen, "cannot read %s: out of memory", path);
        return -1;
    }
    if (!rd.first[0])          /* inih's own refusal: the handler never saw it */
        snprintf(rd.first, sizeof rd.first, "not a \"key = value\" line, a [section] or a "
                                            "comment");
    snprintf(err, errlen, "%s:%d: %s", path, line, rd.first);
    return -2;
}

void config_values_free(config_values *v)
{
    while (v) {
        config_values *next = v->next;
        free(v);
        v = next;
    }
}

static const char *long_name(const struct option *opts, int val)
{
    for (const struct option *o = opts; o->name; o++)
        if (o->val == val)
            return o->name;
    return "?";
}

int config_argv_read(const char *prog, int argc, char **argv, const char *shortopts,
                     const struct option *opts, config_apply_fn apply, void *user,
                     void (*usage)(FILE *out))
{
    int c;
    optind = 0;                    /* GNU getopt: start again from argv[1] */
    while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
        if (c == '?') {
            usage(stderr);
            return 2;
        }
        char why[512];
        const char *name = long_name(opts, c);
        if (apply(user, c, name, optarg, why, sizeof why) != 0) {
            fprintf(stderr, "%s: --%s %s\n", prog, name, why);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
        usage(stderr);
        return 2;
    }
    return 0;
}

const char *config_file_chosen(const char *given, const char *default_path)
{
    if (given)
        return given[0] ? given : NULL;
    return access(default_path, F_OK) == 0 ? default_path : NULL;
}
