/*
 * self_signed.h — `sungka-board --tls-self-signed`: the service's own TLS
 * certificate, made once and kept, so that TLS costs an operator one flag
 * and players can pin it (the agent trusts it on first use, as ssh does).
 *
 * The pair lives in one directory (beside the service's database):
 *   tls-key.pem   the private key, P-256 (gRPC's TLS takes it everywhere),
 *                 mode 0600, created O_EXCL (common/xdg.h);
 *   tls-cert.pem  a self-signed X.509 v3 certificate, valid ten years, whose
 *                 subjectAltName lists every name asked for (DNS names and
 *                 IP addresses), also 0600: nothing in it is secret, but
 *                 it changes together with the key.
 * Kept means kept: a later start with other names does not make a new
 * certificate (that would break every player's pin); it reports the names
 * the kept one lacks, and the operator deletes both files to make a new one.
 *
 * OpenSSL makes the key and the certificate; gRPC reads the files as for
 * --tls-cert/--tls-key. Any thread; no state; not safe against two services
 * making the pair in one directory at the same instant (O_EXCL makes the
 * second fail with a sentence rather than mix two pairs).
 */
#ifndef SUNGKA_SELF_SIGNED_H
#define SUNGKA_SELF_SIGNED_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "fingerprint.h"

#define SELF_SIGNED_MAX_NAMES 32

typedef struct self_signed_pair {
    char cert[PATH_MAX];          /* the certificate's file (for --tls-cert) */
    char key[PATH_MAX];           /* the key's file (for --tls-key) */
    char fingerprint[FINGERPRINT_LEN];   /* fingerprint.h's text */
    bool made;                    /* made now (false: found and reused) */
    char missing[512];            /* reused: the names asked for that it does not
                                   * carry, space-separated ("" when none) */
} self_signed_pair;

/* Is `name` fit for the certificate: an IPv4 or IPv6 address, or a DNS
 * name (letters, digits, '-', '.', and one leading "*." for a wildcard),
 * 1..253 bytes? */
bool self_signed_name_ok(const char *name);

/*
 * Find the pair in `dir` (made 0700 with its parents when missing) and check
 * it, or make it when neither file exists. `names` (n of them, each
 * self_signed_name_ok, duplicates fine; the first is the certificate's common
 * name) are what a new certificate names. 0 and *out, or -1 with a sentence
 * in err naming the file at fault and what to do: only one of the two
 * files exists, a file is unreadable or not PEM, the key is readable by
 * others, the key does not belong to the certificate, the certificate has
 * expired, or a file cannot be written.
 */
int self_signed_ensure(const char *dir, const char *const *names, size_t n,
                             self_signed_pair *out /* OUT */, char *err, size_t errlen);

/*
 * self_signed_ensure for a server listening on `listen` ("HOST:PORT"): the
 * names are this machine's host name (the common name), listen's host
 * (unless a wildcard address), localhost, 127.0.0.1 and ::1, then extra
 * (n_extra, each self_signed_name_ok: --tls-name). Same result.
 */
int self_signed_for_server(const char *dir, const char *listen, const char *const *extra,
                           size_t n_extra, self_signed_pair *out /* OUT */, char *err,
                           size_t errlen);

/*
 * A --tls-cert and --tls-key pair fit to serve, before a reload swaps it in
 * (reconfigure.c): both readable PEM, the key the certificate's, the
 * certificate not expired. 0, or -1 with a sentence in err naming the file
 * at fault. Any thread; nothing kept.
 */
int self_signed_check_pair(const char *cert_path, const char *key_path, char *err,
                         size_t errlen);

#endif /* SUNGKA_SELF_SIGNED_H */
