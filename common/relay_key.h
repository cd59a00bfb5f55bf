/*
 * relay_key.h — a relay's identity at the board services: a secret both are
 * given in a file (--relay-key FILE on each), which the relay sends as
 * metadata on its calls upstream. A node that finds it on a call treats the
 * caller as a relay: the observer's address the relay names beside it
 * (RELAY_FOR_HEADER) is the address that call counts against, and the
 * relay's own seats and streams are bounded by the relay, not per address.
 * Without the key, a call naming an observer's address is refused: nobody
 * else may say whose request it carries. A relay given the key treats a
 * relay below it (a game's audience is a tree) as a node treats it.
 *
 * A shared secret, not a certificate: the simplest thing a plaintext
 * deployment can use, and over TLS it travels encrypted. Any thread; no state.
 */
#ifndef SUNGKA_RELAY_KEY_H
#define SUNGKA_RELAY_KEY_H

#include <stdbool.h>
#include <stddef.h>

#define RELAY_KEY_HEADER "x-sungka-relay-key"   /* the secret */
#define RELAY_FOR_HEADER "x-sungka-relay-for"   /* "ipv4:198.51.100.7": whose join */
#define RELAY_KEY_MIN 32                         /* characters of a key, at least */
#define RELAY_KEY_BYTES 129                      /* ... at most 128, and a NUL */

/* Read the key from the file at path into out (NUL-padded to
 * RELAY_KEY_BYTES, so keys compare in constant time as whole buffers): its
 * first line, RELAY_KEY_MIN to RELAY_KEY_BYTES - 1 printable ASCII
 * characters without spaces (metadata must carry it as it is). 0, or -1 with
 * one sentence in err naming the file. */
int relay_key_load(const char *path, char out[RELAY_KEY_BYTES] /* OUT */, char *err,
                   size_t errlen);

/* The same rules for another secret of one line (the Admin service's
 * token, admin_rpc.c and sungka-admin), whose name `what` ("admin token")
 * the sentence in err says. */
int secret_file_load(const char *path, const char *what, char out[RELAY_KEY_BYTES] /* OUT */,
                     char *err, size_t errlen);

/* What a call's metadata makes of its sender. */
typedef enum relay_identity {
    RELAY_NOT,                     /* a client like any other */
    RELAY_SHOWN,                   /* a relay: it showed this server's key */
    RELAY_WRONG_KEY,               /* showed a key, not this server's (or it has none) */
    RELAY_UNPROVEN,                /* names an observer without showing a key */
} relay_identity;

/* Who sent a call, given this server's key (all NUL: it has none), the
 * RELAY_KEY_HEADER value the call shows (NULL: none) and whether it names an
 * observer (RELAY_FOR_HEADER). The key is compared in constant time, as
 * whole buffers, with libsodium's sodium_memcmp. */
relay_identity relay_key_identify(const char key[RELAY_KEY_BYTES], const char *shown,
                                  bool names_observer);

/* The sentence refusing a call of identity RELAY_WRONG_KEY or RELAY_UNPROVEN
 * at a server with (have_key) or without a key; "" for the others. */
const char *relay_key_refusal(relay_identity id, bool have_key);

/* A value of RELAY_FOR_HEADER a peer address could be: 1 to len - 1 printable
 * ASCII characters without spaces. */
bool relay_key_observer_ok(const char *named, size_t len);

#endif /* SUNGKA_RELAY_KEY_H */
