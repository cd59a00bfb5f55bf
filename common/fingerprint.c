/*
 * fingerprint.c — a certificate's SHA-256 fingerprint as text (see
 * fingerprint.h), with OpenSSL's digest.
 */
#include "fingerprint.h"

#include <stdio.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

int fingerprint_der(const unsigned char *der, size_t len, char out[FINGERPRINT_LEN])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    out[0] = '\0';
    if (!EVP_Digest(der, len, md, &n, EVP_sha256(), NULL) || n != 32)
        return -1;
    char *p = out + snprintf(out, FINGERPRINT_LEN, "SHA256:");
    for (unsigned int i = 0; i < n; i++)
        p += snprintf(p, (size_t)(out + FINGERPRINT_LEN - p), i ? ":%02X" : "%02X", md[i]);
    return 0;
}

int fingerprint_pem_file(const char *path, char out[FINGERPRINT_LEN])
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    X509 *cert = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    unsigned char *der = NULL;
    int len = cert ? i2d_X509(cert, &der) : -1;
    int rc = len > 0 ? fingerprint_der(der, (size_t)len, out) : -1;
    OPENSSL_free(der);
    X509_free(cert);
    ERR_clear_error();         /* OpenSSL's per-thread queue: gRPC reads it later */
    return rc;
}
