/*
 * sungka_perft.c — `sungka-perft KIND DEPTH [OPTION=VALUE ...]`: count the
 * move sequences of every length 1..DEPTH from a kind's start position (see
 * perft.h for the conventions: extra turns and forced passes are plies) and
 * print one "DEPTH COUNT" line each on stdout; the elapsed time goes to
 * stderr as "# 1.23 s (1.20 s CPU)" so that stdout is only the counts. The
 * CPU time is what Edax's perft reports: on a shared machine it is the
 * figure to compare with it. Bad arguments print
 * a sentence on stderr and exit 2. Used to check the engines against
 * published tables and an independent count, and to time them.
 */
#include "perft.h"
#include "version.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: sungka-perft KIND DEPTH [OPTION=VALUE ...]\n"
            "Counts the move sequences of 1..DEPTH moves (DEPTH 1..%d) from the start\n"
            "position of KIND and prints \"DEPTH COUNT\" lines; an extra turn is a move of\n"
            "its own and so is every forced pass. The elapsed and CPU times go to stderr.\n"
            "\n  -h, --help     show this help and exit\n"
            "      --version  show the version and exit\n"
            "\nkinds and their options (range, default):\n",
            GAME_PERFT_MAX_DEPTH);
    for (int i = 0; i < game_kind_count(); i++) {
        const game_kind *k = game_kind_at(i);
        fprintf(out, "  %-10s %s\n", k->name, k->title);
        for (int o = 0; o < k->n_options; o++) {
            const game_option_spec *s = &k->options[o];
            fprintf(out, "      %s=%d..%d (default %d): %s\n", s->name, s->min, s->max,
                    s->def, s->help);
        }
    }
}

static int bad(const char *fmt, const char *what)
{
    fprintf(stderr, "sungka-perft: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n(sungka-perft --help lists the kinds and their options)\n");
    return 2;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("sungka-perft %s\n", SUNGKA_VERSION);
            return 0;
        }
    }
    if (argc < 3) {
        usage(stderr);
        return 2;
    }
    const game_kind *kind = game_kind_find(argv[1]);
    if (!kind)
        return bad("unknown kind '%s'", argv[1]);

    char *end;
    errno = 0;
    long depth = strtol(argv[2], &end, 10);
    if (errno || end == argv[2] || *end || depth < 1 || depth > GAME_PERFT_MAX_DEPTH) {
        fprintf(stderr, "sungka-perft: DEPTH must be a number 1..%d, not '%s'\n",
                GAME_PERFT_MAX_DEPTH, argv[2]);
        return 2;
    }

    game_options opts;
    char err[GAME_ERR_LEN];
    game_options_default(kind, &opts);
    for (int i = 3; i < argc; i++)
        if (game_options_parse(kind, &opts, argv[i], err, sizeof err) != GAME_OK)
            return bad("%s", err);
    game_state st;
    if (game_new(&st, kind, &opts, err, sizeof err) != GAME_OK)
        return bad("%s", err);

    long long counts[GAME_PERFT_MAX_DEPTH + 1];
    game_perft_level *levels = calloc((size_t)depth, sizeof *levels);
    if (!levels) {
        fprintf(stderr, "sungka-perft: out of memory\n");
        return 1;
    }
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    int rc = game_perft_counts(&st, (int)depth, counts, levels);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(levels);
    if (rc != 0) {
        fprintf(stderr, "sungka-perft: cannot count from this position\n");
        return 1;
    }
    for (int d = 1; d <= depth; d++)
        printf("%d %lld\n", d, counts[d]);
    fflush(stdout);
    fprintf(stderr, "# %.3f s (%.3f s CPU)\n",
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
            (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9);
    return 0;
}
