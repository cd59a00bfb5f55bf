/*
 * fingerprint.h — the one way Sungka writes a certificate's fingerprint, so
 * the service's log, the agent's first-use notice, its known-servers file
 * and an operator's own `openssl x509 -noout -fingerprint -sha256 -in FILE`
 * all show the same text: "SHA256:" and the 32 bytes of the SHA-256 of the
 * certificate's DER encoding in upper-case hex pairs joined by colons.
 *
 * OpenSSL computes the digest (no home-made crypto); the interface takes
 * bytes, so no OpenSSL type leaks into the callers' headers. Any thread; no
 * state.
 */
#ifndef SUNGKA_FINGERPRINT_H
#define SUNGKA_FINGERPRINT_H

#include <stddef.h>

/* "SHA256:" + 32 "XX" joined by 31 colons + NUL. */
#define FINGERPRINT_LEN (7 + 32 * 3 - 1 + 1)

/* The fingerprint of `der` (a certificate's DER bytes, len of them) into
 * out. 0, or -1 when the digest cannot be computed (out is then ""). */
int fingerprint_der(const unsigned char *der, size_t len, char out[FINGERPRINT_LEN] /* OUT */);

/* The fingerprint of the first certificate in the PEM file at path (a
 * service's own, sungka-board --tls-self-signed's tls-cert.pem) into out.
 * 0, or -1 when the file cannot be read or holds no PEM certificate (out is
 * then ""). */
int fingerprint_pem_file(const char *path, char out[FINGERPRINT_LEN] /* OUT */);

#endif /* SUNGKA_FINGERPRINT_H */
