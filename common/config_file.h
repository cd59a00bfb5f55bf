/*
 * config_file.h — a server's configuration file: an INI file (read with
 * inih) whose keys are the program's long options without their dashes, so
 * the option table is the one list of settings and the file cannot drift
 * from the command line.
 *
 *   [board]
 *   max-client-streams = 256      ; --max-client-streams 256
 *   require-accounts = true       ; --require-accounts (true/false, yes/no, on/off, 1/0)
 *
 * Each key is handed to the program's own option function, as the
 * command line would hand it (the option's val from the table, the value
 * string), so a value is checked by the same code whichever way it came.
 *
 * Any thread; nothing global. The strings handed to apply stay valid until
 * config_values_free of what config_file_read returned in *kept (the
 * caller may keep pointers into them, as it keeps pointers into argv).
 */
#ifndef SUNGKA_CONFIG_FILE_H
#define SUNGKA_CONFIG_FILE_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* The program's option function: apply option val (named name, its long
 * name) with value (NULL for an option without an argument). 0; or -1
 * with a sentence in err naming what was wrong with the value. */
typedef int (*config_apply_fn)(void *user, int val, const char *name, const char *value,
                               char *err, size_t errlen);

typedef struct config_values config_values;

/* Read path's [section] through apply, one call per key, in file order.
 * Returns 0; -1 when the file cannot be read ("cannot read PATH: why");
 * -2 when it has an error: err is "PATH:LINE: what", for the first one (a
 * key the table does not know, a key outside [section], a line that is not
 * "key = value", a value apply refused). Keys whose option's val is in
 * refused[] (n_refused long; command-line actions such as --help) are
 * errors too. *kept: the strings, for config_values_free, also on failure
 * (NULL then is fine). */
int config_file_read(const char *path, const char *section, const struct option *opts,
                     const int *refused, size_t n_refused, config_apply_fn apply, void *user,
                     config_values **kept, char *err, size_t errlen);

/* The command line through the same apply, one option at a time: 0; or 2
 * after saying on stderr what was wrong ("PROG: --NAME why", or an
 * unexpected argument; usage(stderr) for an option getopt does not know).
 * optind is reset, so that the same argv may be read again (a reload). */
int config_argv_read(const char *prog, int argc, char **argv, const char *shortopts,
                     const struct option *opts, config_apply_fn apply, void *user,
                     void (*usage)(FILE *out));

/* The file to read: given (--config's value; "" reads none), or when no
 * --config was given, default_path if it exists; NULL for none. */
const char *config_file_chosen(const char *given, const char *default_path);

/* Free the strings a read kept; NULL is fine. */
void config_values_free(config_values *v);

#endif /* SUNGKA_CONFIG_FILE_H */
