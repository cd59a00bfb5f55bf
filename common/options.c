/*
 * options.c — whole-number options (options.h).
 */
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int option_number_says(const char *s, int min, int max, int *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        snprintf(err, errlen, "must be a whole number %d..%d, not '%s'", min, max, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int option_number(const char *program, const char *opt, const char *s, int min, int max,
                  int *out)
{
    char why[256];
    if (option_number_says(s, min, max, out, why, sizeof why) != 0) {
        fprintf(stderr, "%s: %s %s\n", program, opt, why);
        return -1;
    }
    return 0;
}
