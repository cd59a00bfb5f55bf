/*
 * fingerprint.c — a certificate's SHA-256 fingerprint as text (see
 * fingerprint.h), with OpenSSL's digest.
 */
#include "fingerprint.h"

#include <stdio.h>

#include <openssl/evp.h>

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
