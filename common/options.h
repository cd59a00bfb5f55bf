/*
 * options.h — what the programs' command lines share: a whole-number
 * option read strictly, with the one sentence that says what was wrong.
 * Any thread; nothing kept.
 */
#ifndef SUNGKA_OPTIONS_H
#define SUNGKA_OPTIONS_H

/* The whole of s as a number in min..max into *out: 0; or -1 after
 * "PROGRAM: OPT must be a whole number MIN..MAX, not 'S'" on stderr. */
int option_number(const char *program, const char *opt, const char *s, int min, int max,
                  int *out);

#endif /* SUNGKA_OPTIONS_H */
