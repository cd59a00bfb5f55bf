/*
 * fuzz.h — what the fuzz targets of tests/fuzz share with the two ways they
 * are run: libFuzzer (clang, -fsanitize=fuzzer) and fuzz_replay.c (any
 * compiler: replays files, or inputs from the target's own generator).
 *
 * A target is one .c file defining the libFuzzer entry points plus
 * fuzz_generate() and fuzz_teardown(). Its checks fail with FUZZ_CHECK, which
 * prints the broken invariant and aborts: libFuzzer then saves the input as
 * a crash, and the replay driver dies with the file or seed that broke it.
 */
#ifndef SUNGKA_FUZZ_H
#define SUNGKA_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* libFuzzer's entry points (the replay driver calls them the same way). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A small deterministic generator (splitmix64): the same seed gives the same
 * inputs on every machine and compiler. */
typedef struct fuzz_rng {
    uint64_t state;
} fuzz_rng;

static inline uint64_t fuzz_rng_next(fuzz_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform-enough 0..n-1 (n > 0). */
static inline uint32_t fuzz_rng_below(fuzz_rng *r, uint32_t n)
{
    return (uint32_t)(fuzz_rng_next(r) % n);
}

/* Fill buf (cap bytes) with one input shaped for the target; returns its
 * length. Used by the replay driver when it is given no files, and to write
 * a seed corpus for libFuzzer (fuzz_replay -w DIR). */
size_t fuzz_generate(fuzz_rng *rng, uint8_t *buf, size_t cap);

/* Release what LLVMFuzzerInitialize set up (the replay driver calls it at
 * the end so that leak checkers see a clean exit; libFuzzer never does). */
void fuzz_teardown(void);

/* Reading the input: every read past the end yields zeros, and `left` says
 * whether anything real is left, so any byte string is a valid input. */
typedef struct fuzz_in {
    const uint8_t *p;
    size_t left;
} fuzz_in;

static inline uint8_t fuzz_u8(fuzz_in *in)
{
    if (!in->left)
        return 0;
    in->left--;
    return *in->p++;
}

static inline uint16_t fuzz_u16(fuzz_in *in)
{
    uint16_t lo = fuzz_u8(in);
    return (uint16_t)(lo | (uint16_t)fuzz_u8(in) << 8);
}

static inline int32_t fuzz_i32(fuzz_in *in)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)fuzz_u8(in) << (8 * i);
    return (int32_t)v;
}

#define FUZZ_CHECK(cond, ...)                                                          \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: fuzz check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                              \
            fputc('\n', stderr);                                                       \
            abort();                                                                   \
        }                                                                              \
    } while (0)

#endif /* SUNGKA_FUZZ_H */
