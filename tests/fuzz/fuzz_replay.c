/*
 * fuzz_replay.c — runs a fuzz target without libFuzzer, so that any compiler
 * (the default gcc build included) exercises the same checks:
 *
 *   fuzz_X_replay FILE|DIR...      feed every file (a directory: each file in
 *                                  it), e.g. a libFuzzer corpus or a crash
 *   fuzz_X_replay [-n N] [-s SEED] feed N inputs from the target's own
 *                                  generator (default 500, seed 1)
 *   fuzz_X_replay -w DIR [-n N] [-s SEED]
 *                                  write those N inputs into DIR as files
 *                                  (a seed corpus for libFuzzer) and exit
 *
 * A broken check aborts inside the target (so does a sanitizer's report in
 * a sanitizer build); the driver then names the input on stderr and, for a
 * generated one, saves it as ./crash-replay-SEED-INDEX to replay by hand.
 * -v names every input before it runs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#define REPLAY_MAX_INPUT (1 << 20)

static uint8_t buf[REPLAY_MAX_INPUT];

/* The input being run, for the fatal-signal handler: its name, and for a
 * generated input the file to save its bytes to. */
static char current[4200];
static char save_path[128];
static const uint8_t *current_data;
static size_t current_len;

static void on_fatal(int sig)
{
    /* Only async-signal-safe calls here. */
    static const char head[] = "\nfuzz_replay: died on input ";
    ssize_t ignored = write(STDERR_FILENO, head, sizeof head - 1);
    ignored = write(STDERR_FILENO, current, strlen(current));
    if (save_path[0] && current_data) {
        int fd = open(save_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            ignored = write(fd, current_data, current_len);
            close(fd);
            static const char saved[] = ", saved as ";
            ignored = write(STDERR_FILENO, saved, sizeof saved - 1);
            ignored = write(STDERR_FILENO, save_path, strlen(save_path));
        }
    }
    ignored = write(STDERR_FILENO, "\n", 1);
    (void)ignored;
    signal(sig, SIG_DFL);
    raise(sig);
}

static int usage(const char *self)
{
    fprintf(stderr, "usage: %s [-n N] [-s SEED] [-w DIR] [-v] [FILE|DIR...]\n", self);
    return 2;
}

static int run_file(const char *path, bool verbose)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    snprintf(current, sizeof current, "%s (%zu bytes)", path, n);
    if (verbose)
        fprintf(stderr, "input %s\n", current);
    /* A copy of exactly n bytes, so that ASan sees reads past the end. */
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy)
        return -1;
    memcpy(copy, buf, n);
    save_path[0] = '\0';
    LLVMFuzzerTestOneInput(copy, n);
    free(copy);
    return 0;
}

static int run_path(const char *path, bool verbose, int *count)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        (*count)++;
        return run_file(path, verbose);
    }
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    if (n < 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char sub[4096];
        if (names[i]->d_name[0] != '.' &&
            (size_t)snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name) < sizeof sub &&
            stat(sub, &sb) == 0 && S_ISREG(sb.st_mode)) {
            (*count)++;
            if (run_file(sub, verbose) != 0)
                rc = -1;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    long n = 500;
    unsigned long long seed = 1;
    const char *write_dir = NULL;
    bool verbose = false;
    int opt;
    while ((opt = getopt(argc, argv, "n:s:w:v")) != -1) {
        switch (opt) {
        case 'n':
            n = strtol(optarg, NULL, 10);
            break;
        case 's':
            seed = strtoull(optarg, NULL, 10);
            break;
        case 'w':
            write_dir = optarg;
            break;
        case 'v':
            verbose = true;
            break;
        default:
            return usage(argv[0]);
        }
    }
    if (n < 0)
        return usage(argv[0]);

    if (write_dir) {
        if (mkdir(write_dir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "%s: %s\n", write_dir, strerror(errno));
            return 1;
        }
        fuzz_rng rng = {seed};
        for (long i = 0; i < n; i++) {
            size_t len = fuzz_generate(&rng, buf, sizeof buf);
            char path[4096];
            snprintf(path, sizeof path, "%s/gen-%llu-%05ld", write_dir, seed, i);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
                fprintf(stderr, "%s: cannot write\n", path);
                return 1;
            }
        }
        return 0;
    }

    signal(SIGABRT, on_fatal);
    signal(SIGSEGV, on_fatal);
    signal(SIGBUS, on_fatal);
    signal(SIGFPE, on_fatal);
    LLVMFuzzerInitialize(&argc, &argv);
    int rc = 0, count = 0;
    if (optind < argc) {
        for (int i = optind; i < argc; i++)
            if (run_path(argv[i], verbose, &count) != 0)
                rc = 1;
    } else {
        fuzz_rng rng = {seed};
        for (long i = 0; i < n; i++) {
            size_t len = fuzz_generate(&rng, buf, sizeof buf);
            snprintf(current, sizeof current, "%ld of seed %llu (%zu bytes)", i, seed, len);
            snprintf(save_path, sizeof save_path, "crash-replay-%llu-%ld", seed, i);
            if (verbose)
                fprintf(stderr, "input %s\n", current);
            uint8_t *copy = malloc(len ? len : 1);
            if (!copy)
                return 1;
            memcpy(copy, buf, len);
            current_data = copy;
            current_len = len;
            LLVMFuzzerTestOneInput(copy, len);
            current_data = NULL;
            free(copy);
            count++;
        }
    }
    fuzz_teardown();
    printf("%d inputs, all checks held\n", count);
    return rc;
}
