/*
 * accounts.h — what makes a name one person's: names that cannot be confused,
 * passwords hashed with a memory-hard KDF, and session tokens that a stolen
 * database cannot replay.
 *
 * Names (UTS #39 with ICU). A name is trimmed of ASCII spaces and put in NFC:
 * that is its display form, kept as the person chose it (case included). Its
 * key is the NFC of its case folding, so "ALICE" and "alice" are one name.
 * Its skeleton (uspoof_getSkeleton of the key) is what it looks like in
 * lower case ("аlice" with a Cyrillic "а" and "alice" both become "alice";
 * "rn" and "m" both "rn"). Folding first loses what capitals look like ("I"
 * is "l" and "0" is "O" only before "I" becomes "i"), so a name also has a
 * look: the skeleton of the folding of the skeleton of its display form
 * ("aIice" and "alice" both "alice", "B0B" and "BOB" both "bob"). Two names
 * are confusable when a skeleton or a look of one equals a skeleton or a look
 * of the other ("wiII" looks "will", the skeleton of "WILL"), so a store keeps
 * both beside each name and "is it confusable with one we have" is a lookup
 * in two indexes. Refused outright: invisible, control and
 * format characters (U+200B, bidi controls, ...), unassigned and private-use
 * code points, any space but U+0020 and two spaces in a row.
 *
 * Passwords (libsodium, Argon2id). crypto_pwhash_str at the INTERACTIVE
 * limits: ~0.1 s and 64 MiB a call, which is the point — and why these two
 * calls must run on accounts_pool.h's workers, never on an event loop.
 * Passwords are NFC-normalised before hashing, so the same password typed
 * on two keyboards matches. Nothing here logs or keeps a password.
 *
 * Session tokens. SESSION_PREFIX then 64 base64url characters: a 16-byte
 * public id (how the store finds the session) and a 32-byte secret. The
 * service keeps only the id and BLAKE2b(id, secret) (crypto_generichash), and
 * compares the hash in constant time (sodium_memcmp): the database alone
 * gives nobody a usable session.
 *
 * Threads: every function may be called from any thread, on caller-owned
 * buffers. The process-wide setup (libsodium, ICU's spoof checker, which is
 * read-only once configured) happens once, on first need (pthread_once);
 * accounts_init() does it early, e.g. on a worker, since loading ICU's
 * confusables data costs ~50 ms (seconds under valgrind).
 * Functions return 0 on success and -1 (or a negative accounts_rc) on
 * failure with a sentence in err where they take one.
 */
#ifndef SUNGKA_ACCOUNTS_H
#define SUNGKA_ACCOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACCOUNTS_NAME_MAX       32           /* characters of a name */
#define ACCOUNTS_NAME_BYTES     (ACCOUNTS_NAME_MAX * 4 + 1)
#define ACCOUNTS_KEY_BYTES      (ACCOUNTS_NAME_MAX * 12 + 1)   /* folding can lengthen */
#define ACCOUNTS_SKELETON_BYTES (ACCOUNTS_NAME_MAX * 24 + 1)   /* so can the skeleton */

#define ACCOUNTS_PASSWORD_MIN   8            /* characters */
#define ACCOUNTS_PASSWORD_MAX   1024         /* bytes: a bound on the work, not a policy */
#define ACCOUNTS_HASH_BYTES     128          /* crypto_pwhash_STRBYTES */

#define ACCOUNTS_SESSION_PREFIX "sess_"
#define ACCOUNTS_SESSION_ID_BYTES   16
#define ACCOUNTS_SESSION_HASH_BYTES 32
#define ACCOUNTS_SESSION_TOKEN_BYTES 80      /* the text, with its NUL */

/* Why a name was refused. */
typedef enum accounts_rc {
    ACCOUNTS_OK = 0,
    ACCOUNTS_E_LENGTH = -1,      /* empty, or more than ACCOUNTS_NAME_MAX characters */
    ACCOUNTS_E_CHARACTER = -2,   /* not UTF-8, or an invisible/control/format character */
    ACCOUNTS_E_SCRIPTS = -3,     /* mixes scripts the way impersonators do */
    ACCOUNTS_E_INTERNAL = -4,    /* ICU failed (out of memory) */
} accounts_rc;

/* Set up libsodium and ICU's spoof checker, once per process (any thread;
 * later calls wait for the first and return its result). 0, or -1 when
 * either cannot start. */
int accounts_init(void);

/* --- Names ---------------------------------------------------------------- */

typedef struct accounts_name {
    char display[ACCOUNTS_NAME_BYTES];       /* NFC, trimmed: shown as chosen */
    char key[ACCOUNTS_KEY_BYTES];            /* NFC(case fold(display)): equality */
    char skeleton[ACCOUNTS_SKELETON_BYTES];  /* UTS #39 skeleton of key: confusability */
    char look[ACCOUNTS_SKELETON_BYTES];      /* skeleton(fold(skeleton(display))): the same,
                                                with capitals seen as they look */
} accounts_name;

/* Make *out from what a person typed. ACCOUNTS_OK, or ACCOUNTS_E_LENGTH /
 * ACCOUNTS_E_CHARACTER / ACCOUNTS_E_INTERNAL with a sentence fragment in
 * err that follows "the name " ("contains an invisible character (U+200B)").
 *   in   IN   NUL-terminated, borrowed
 *   out  OUT  caller's */
accounts_rc accounts_name_prepare(const char *in, accounts_name *out, char *err, size_t errlen);

/* Registration's extra rule (UTS #39 "moderately restrictive"): one script,
 * or Latin with one other that is not Cyrillic, Greek or Cherokee, and digits
 * of one system. ACCOUNTS_OK or ACCOUNTS_E_SCRIPTS with a fragment in err.
 * Guests' names are held to accounts_name_prepare and to the confusable
 * check only. */
accounts_rc accounts_name_check_scripts(const accounts_name *n, char *err, size_t errlen);

/* Same key: the same name, whatever the case. */
bool accounts_names_equal(const accounts_name *a, const accounts_name *b);
/* A skeleton or look of one is a skeleton or look of the other: one could
 * pass for the other (equal names are confusable). */
bool accounts_names_confusable(const accounts_name *a, const accounts_name *b);

/* --- Passwords (slow: worker threads only) -------------------------------- */

/* Cheap, any thread: 0 when pw may be a password (strict UTF-8 without
 * control characters, at least ACCOUNTS_PASSWORD_MIN characters, at most
 * ACCOUNTS_PASSWORD_MAX bytes),
 * else -1 with a sentence in err. Never echoes the password. */
int accounts_password_check(const char *pw, char *err, size_t errlen);

/* Argon2id hash of pw into out (crypto_pwhash_str's text, NUL-terminated).
 * 0, or -1 when pw fails accounts_password_check or memory runs out. */
int accounts_password_hash(const char *pw, char out[ACCOUNTS_HASH_BYTES]);

/* 0 when pw matches hash, -1 otherwise (a malformed hash included). */
int accounts_password_verify(const char *hash, const char *pw);

/* The same work as accounts_password_verify against a hash nobody knows the
 * password of: what a sign-in for a name without an account runs, so that
 * "no such account" and "wrong password" take the same time. Always -1. */
int accounts_password_verify_dummy(const char *pw);

/* --- Session tokens -------------------------------------------------------- */

/* A new random token (sent to the client once) and what the store keeps of
 * it: its id and its hash. 0, or -1 when libsodium did not start. */
int accounts_session_new(char token[ACCOUNTS_SESSION_TOKEN_BYTES],
                         uint8_t id[ACCOUNTS_SESSION_ID_BYTES],
                         uint8_t hash[ACCOUNTS_SESSION_HASH_BYTES]);

/* The id and hash of a token a client sent: 0, or -1 when it is not a
 * session token's shape (a seat token, garbage). */
int accounts_session_parse(const char *token, uint8_t id[ACCOUNTS_SESSION_ID_BYTES],
                           uint8_t hash[ACCOUNTS_SESSION_HASH_BYTES]);

/* Constant-time: is the hash the client's token gave the one stored? */
bool accounts_session_hash_equal(const uint8_t a[ACCOUNTS_SESSION_HASH_BYTES],
                                 const uint8_t b[ACCOUNTS_SESSION_HASH_BYTES]);

/* Is a session that expires at expires_ms still good at now_ms? */
bool accounts_session_live(int64_t expires_ms, int64_t now_ms);

#endif /* SUNGKA_ACCOUNTS_H */
