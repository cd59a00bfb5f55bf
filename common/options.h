/*
 * options.h — what the programs' command lines share: a whole-number
 * option read strictly, with the one sentence that says what was wrong.
 * Any thread; nothing kept.
 */
#ifndef SUNGKA_OPTIONS_H
#define SUNGKA_OPTIONS_H

#include <stddef.h>

/* The whole of s as a number in min..max into *out: 0; or -1 after
 * "PROGRAM: OPT must be a whole number MIN..MAX, not 'S'" on stderr. */
int option_number(const char *program, const char *opt, const char *s, int min, int max,
                  int *out);

/* The same check, the sentence in err instead ("must be a whole number
 * MIN..MAX, not 'S'", to follow the option's name): 0 or -1. */
int option_number_says(const char *s, int min, int max, int *out, char *err, size_t errlen);

#endif /* SUNGKA_OPTIONS_H */
