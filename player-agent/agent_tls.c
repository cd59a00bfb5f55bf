/*
 * agent_tls.c — the agent's TLS files checked before it connects, with
 * OpenSSL (already linked: gRPC's TLS is OpenSSL's). gRPC itself takes any
 * bytes: a key that does not belong to the certificate shows up only as a
 * channel that fails every call with "empty address list", and nothing
 * names the file at fault. Here each file is read and parsed as what it
 * should hold, and the certificate and key are matched, so the sentence
 * can say which file is wrong and how.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "agent.h"

/* A password callback that has none: an encrypted key is refused rather
 * than prompting on the terminal (gRPC could not use it either). */
static int no_password(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return 0;
}

/* Open `path` (given as `opt`) for reading; NULL with a sentence in err. */
static BIO *open_pem(const char *opt, const char *path, char *err, size_t errlen)
{
    BIO *bio = BIO_new_file(path, "r");
    if (!bio)
        snprintf(err, errlen, "cannot read %s %s: %s", opt, path,
                 errno ? strerror(errno) : "cannot open it");
    return bio;
}

/* How many PEM certificates the file holds (0 when none or unreadable). */
static int count_certs(BIO *bio)
{
    int n = 0;
    X509 *x;
    while ((x = PEM_read_bio_X509(bio, NULL, no_password, NULL)) != NULL) {
        X509_free(x);
        n++;
    }
    return n;
}

int agent_check_tls(const agent_config *cfg, char *err, size_t errlen)
{
    if (!cfg->tls)
        return 0;
    if ((cfg->tls_cert != NULL) != (cfg->tls_key != NULL)) {
        snprintf(err, errlen, "--tls-cert and --tls-key go together: give both, the client "
                              "certificate and its private key");
        return -1;
    }
    int rc = -1;
    BIO *bio = NULL;
    X509 *cert = NULL;
    EVP_PKEY *key = NULL;
    errno = 0;
    if (cfg->tls_ca) {
        if (!(bio = open_pem("--tls-ca", cfg->tls_ca, err, errlen)))
            goto out;
        if (count_certs(bio) == 0) {
            snprintf(err, errlen, "--tls-ca %s holds no PEM certificate", cfg->tls_ca);
            goto out;
        }
        BIO_free(bio);
        bio = NULL;
    }
    if (cfg->tls_cert) {
        errno = 0;
        if (!(bio = open_pem("--tls-cert", cfg->tls_cert, err, errlen)))
            goto out;
        if (!(cert = PEM_read_bio_X509(bio, NULL, no_password, NULL))) {
            snprintf(err, errlen, "--tls-cert %s is not a PEM certificate", cfg->tls_cert);
            goto out;
        }
        BIO_free(bio);
        errno = 0;
        if (!(bio = open_pem("--tls-key", cfg->tls_key, err, errlen)))
            goto out;
        if (!(key = PEM_read_bio_PrivateKey(bio, NULL, no_password, NULL))) {
            snprintf(err, errlen,
                     "--tls-key %s is not a PEM private key (or it is encrypted: the agent "
                     "needs it without a password)",
                     cfg->tls_key);
            goto out;
        }
        if (X509_check_private_key(cert, key) != 1) {
            snprintf(err, errlen, "--tls-cert %s and --tls-key %s are not a matching pair",
                     cfg->tls_cert, cfg->tls_key);
            goto out;
        }
    }
    rc = 0;
out:
    ERR_clear_error();         /* OpenSSL's per-thread queue: gRPC reads it later */
    BIO_free(bio);
    X509_free(cert);
    EVP_PKEY_free(key);
    return rc;
}
