/*
 * accounts_password.c — Argon2id through libsodium's crypto_pwhash_str, at
 * the INTERACTIVE limits (~0.1 s, 64 MiB): slow on purpose, so only on
 * accounts_pool.h's workers. Passwords are NFC-normalised first (RFC 8265's
 * OpaqueString does the same), and every copy made here is wiped.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "accounts.h"
#include "accounts_internal.h"
#include "text.h"

_Static_assert(ACCOUNTS_HASH_BYTES == crypto_pwhash_STRBYTES, "hash text size");

#define OPSLIMIT crypto_pwhash_OPSLIMIT_INTERACTIVE
#define MEMLIMIT crypto_pwhash_MEMLIMIT_INTERACTIVE

/* NFC can lengthen a string (up to three times in UTF-8, in theory). */
#define NORMAL_BYTES (ACCOUNTS_PASSWORD_MAX * 3 + 1)

int accounts_password_check(const char *pw, char *err, size_t errlen)
{
    size_t len = strnlen(pw, ACCOUNTS_PASSWORD_MAX + 1);
    if (len > ACCOUNTS_PASSWORD_MAX) {
        snprintf(err, errlen, "a password must be at most %d bytes", ACCOUNTS_PASSWORD_MAX);
        return -1;
    }
    if (!text_utf8_valid(pw, len)) {
        snprintf(err, errlen, "a password must be valid UTF-8");
        return -1;
    }
    /* Control characters cannot be typed alike on two keyboards, and a
     * terminal may act on them (RFC 8265's OpaqueString refuses them too). */
    uint32_t cp;
    for (size_t i = 0; i < len;) {
        int n = text_utf8_next(pw + i, len - i, &cp);
        if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
            snprintf(err, errlen, "a password must not contain control characters");
            return -1;
        }
        i += (size_t)n;
    }
    if (text_chars(pw) < ACCOUNTS_PASSWORD_MIN) {
        snprintf(err, errlen, "a password must be at least %d characters",
                 ACCOUNTS_PASSWORD_MIN);
        return -1;
    }
    return 0;
}

/* The NFC form of pw in out; -1 when it is not a password at all. */
static int normalise(const char *pw, char *out, size_t outlen)
{
    char err[8];
    if (accounts_init() != 0 || accounts_password_check(pw, err, sizeof err) != 0)
        return -1;
    return accounts__nfc_utf8(pw, out, outlen);
}

int accounts_password_hash(const char *pw, char out[ACCOUNTS_HASH_BYTES])
{
    char normal[NORMAL_BYTES];
    int rc = -1;
    if (normalise(pw, normal, sizeof normal) == 0)
        rc = crypto_pwhash_str(out, normal, strlen(normal), OPSLIMIT, MEMLIMIT) == 0 ? 0 : -1;
    sodium_memzero(normal, sizeof normal);
    return rc;
}

static void make_dummy(void);
static pthread_once_t dummy_once = PTHREAD_ONCE_INIT;

int accounts_password_verify(const char *hash, const char *pw)
{
    char normal[NORMAL_BYTES];
    int rc = -1;
    /* The dummy hash is made on the first verify of either kind, so that
     * the first sign-in after a start costs the same for every name. */
    pthread_once(&dummy_once, make_dummy);
    if (strnlen(hash, ACCOUNTS_HASH_BYTES) < ACCOUNTS_HASH_BYTES &&
        normalise(pw, normal, sizeof normal) == 0)
        rc = crypto_pwhash_str_verify(hash, normal, strlen(normal)) == 0 ? 0 : -1;
    sodium_memzero(normal, sizeof normal);
    return rc;
}

/* A hash of a random password, made once: verifying against it costs what
 * verifying against a real account's hash costs. */
static char dummy_hash[ACCOUNTS_HASH_BYTES];

static void make_dummy(void)
{
    unsigned char secret[32];
    char text[sizeof secret * 2 + 1];
    randombytes_buf(secret, sizeof secret);
    sodium_bin2hex(text, sizeof text, secret, sizeof secret);
    if (crypto_pwhash_str(dummy_hash, text, strlen(text), OPSLIMIT, MEMLIMIT) != 0)
        dummy_hash[0] = '\0';        /* out of memory: verify below still does the work */
    sodium_memzero(text, sizeof text);
    sodium_memzero(secret, sizeof secret);
}

int accounts_password_verify_dummy(const char *pw)
{
    pthread_once(&dummy_once, make_dummy);
    if (!dummy_hash[0]) {
        char scratch[ACCOUNTS_HASH_BYTES];
        accounts_password_hash(pw, scratch);
        return -1;
    }
    accounts_password_verify(dummy_hash, pw);
    return -1;
}
