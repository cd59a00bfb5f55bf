/*
 * known_servers.h — the board services whose TLS certificate the agent
 * trusted on first use, as ssh keeps known_hosts: one line per service,
 *
 *   HOST:PORT SHA256:FINGERPRINT [CERTIFICATE]
 *
 * keyed by the address exactly as given to --server (localhost:7070 and
 * 127.0.0.1:7070 are two services, as two names are two hosts to ssh), the
 * fingerprint as common/fingerprint.h writes it, and the certificate itself
 * in base64 DER, which the agent then passes to gRPC as the only root. A
 * line without the certificate is one a person wrote from the fingerprint
 * the service's operator gave: the agent checks the service against it and
 * trusts the certificate it is shown only if the fingerprint matches.
 * Lines starting with '#' and blank lines are comments.
 *
 * The file is $XDG_CONFIG_HOME/sungka/known-servers (a setting people edit:
 * deleting a line is how a changed certificate is accepted), mode 0600 in a
 * 0700 directory, rewritten whole through a temporary file and rename, so a
 * crash never leaves half a file. Not thread-safe; the agent reads and
 * writes it from agent_start only. Unrelated to the seat tokens
 * (token_store.h), which are secrets in the state directory.
 */
#ifndef SUNGKA_KNOWN_SERVERS_H
#define SUNGKA_KNOWN_SERVERS_H

#include <stddef.h>

#include "fingerprint.h"

typedef struct known_server {
    int line;                          /* its line in the file, from 1 */
    char fingerprint[FINGERPRINT_LEN];
    unsigned char *der;                /* the certificate (malloc'ed), or NULL
                                        * when the line gives only the fingerprint */
    size_t der_len;
} known_server;

/* The file: `file` itself when given, else the default above (its
 * directory is not made here). 0, or -1 when `file` is "" (pinning off) or
 * there is no home directory. */
int known_servers_path(const char *file, char *out /* OUT */, size_t len);

/* Look `server` up in the file at `path`. 1 and *out (free with
 * known_server_clear) when found; 0 when not (also when the file does not
 * exist); -1 with a sentence naming the file and line when that line is
 * damaged (a bad fingerprint, a certificate that does not decode or does
 * not have that fingerprint) or the file cannot be read. */
int known_servers_find(const char *path, const char *server, known_server *out /* OUT */,
                       char *err, size_t errlen);

/* Remember `server`'s certificate (der, len bytes; its fingerprint is
 * computed here), replacing a line for it that gives only a fingerprint;
 * the directory is made 0700 when missing and the file is 0600. 0, or -1
 * with a sentence. */
int known_servers_add(const char *path, const char *server, const unsigned char *der,
                      size_t len, char *err, size_t errlen);

void known_server_clear(known_server *ks);

#endif /* SUNGKA_KNOWN_SERVERS_H */
