/*
 * accounts_session.c — session tokens (accounts.h): 48 random bytes, of
 * which the first 16 name the session and the rest prove it; the store keeps
 * the name and a BLAKE2b hash, never the token.
 */
#include <string.h>

#include <sodium.h>

#include "accounts.h"

#define SECRET_BYTES 32
#define RAW_BYTES (ACCOUNTS_SESSION_ID_BYTES + SECRET_BYTES)
#define PREFIX_LEN (sizeof ACCOUNTS_SESSION_PREFIX - 1)
#define B64_VARIANT sodium_base64_VARIANT_URLSAFE_NO_PADDING

_Static_assert(PREFIX_LEN + 64 + 1 <= ACCOUNTS_SESSION_TOKEN_BYTES, "token text size");

/* hash = BLAKE2b-256 keyed by nothing, over a label, the id and the secret:
 * the label keeps these hashes apart from any other use of BLAKE2b. */
static void hash_of(const uint8_t raw[RAW_BYTES], uint8_t hash[ACCOUNTS_SESSION_HASH_BYTES])
{
    static const char label[] = "sungka session v1";
    crypto_generichash_state st;
    crypto_generichash_init(&st, NULL, 0, ACCOUNTS_SESSION_HASH_BYTES);
    crypto_generichash_update(&st, (const unsigned char *)label, sizeof label);
    crypto_generichash_update(&st, raw, RAW_BYTES);
    crypto_generichash_final(&st, hash, ACCOUNTS_SESSION_HASH_BYTES);
}

int accounts_session_new(char token[ACCOUNTS_SESSION_TOKEN_BYTES],
                         uint8_t id[ACCOUNTS_SESSION_ID_BYTES],
                         uint8_t hash[ACCOUNTS_SESSION_HASH_BYTES])
{
    uint8_t raw[RAW_BYTES];
    if (accounts_init() != 0)
        return -1;
    randombytes_buf(raw, sizeof raw);
    memcpy(token, ACCOUNTS_SESSION_PREFIX, PREFIX_LEN);
    sodium_bin2base64(token + PREFIX_LEN, ACCOUNTS_SESSION_TOKEN_BYTES - PREFIX_LEN, raw,
                      sizeof raw, B64_VARIANT);
    memcpy(id, raw, ACCOUNTS_SESSION_ID_BYTES);
    hash_of(raw, hash);
    sodium_memzero(raw, sizeof raw);
    return 0;
}

int accounts_session_parse(const char *token, uint8_t id[ACCOUNTS_SESSION_ID_BYTES],
                           uint8_t hash[ACCOUNTS_SESSION_HASH_BYTES])
{
    if (strncmp(token, ACCOUNTS_SESSION_PREFIX, PREFIX_LEN) != 0)
        return -1;
    const char *b64 = token + PREFIX_LEN;
    size_t b64_len = strlen(b64);
    uint8_t raw[RAW_BYTES];
    size_t n = 0;
    const char *end = NULL;
    if (b64_len != 64 ||
        sodium_base642bin(raw, sizeof raw, b64, b64_len, NULL, &n, &end, B64_VARIANT) != 0 ||
        n != RAW_BYTES || *end)
        return -1;
    memcpy(id, raw, ACCOUNTS_SESSION_ID_BYTES);
    hash_of(raw, hash);
    sodium_memzero(raw, sizeof raw);
    return 0;
}

bool accounts_session_hash_equal(const uint8_t a[ACCOUNTS_SESSION_HASH_BYTES],
                                 const uint8_t b[ACCOUNTS_SESSION_HASH_BYTES])
{
    return sodium_memcmp(a, b, ACCOUNTS_SESSION_HASH_BYTES) == 0;
}

bool accounts_session_live(int64_t expires_ms, int64_t now_ms)
{
    return now_ms < expires_ms;
}
