/*
 * options.c — whole-number options (options.h).
 */
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int option_number(const char *program, const char *opt, const char *s, int min, int max,
                  int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "%s: %s must be a whole number %d..%d, not '%s'\n", program, opt, min,
                max, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}
