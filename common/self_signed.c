/*
 * self_signed.c — the service's own certificate, made with OpenSSL and kept
 * (see self_signed.h).
 *
 * Choices worth knowing:
 *   - The key is written before the certificate, each O_EXCL: a crash
 *     between the two leaves a key alone, which the next start reports
 *     (never silently replaces: a player may have pinned the old one).
 *   - The certificate says CA:FALSE and serverAuth. The agent pins it as
 *     the only root of its connection; OpenSSL accepts a self-signed leaf
 *     as its own trust anchor, and nobody can use it to sign another.
 *   - A random 16-byte serial (RFC 5280 asks for unique ones; the top bit
 *     is cleared so the integer stays positive in 16 bytes).
 */
#include "self_signed.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "xdg.h"

#define VALID_DAYS 3650

static bool is_ip(const char *name)
{
    unsigned char buf[16];
    return inet_pton(AF_INET, name, buf) == 1 || inet_pton(AF_INET6, name, buf) == 1;
}

bool self_signed_name_ok(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len > 253)
        return false;
    if (is_ip(name))
        return true;
    const char *p = strncmp(name, "*.", 2) == 0 ? name + 2 : name;
    if (!*p || *p == '.' || *p == '-')
        return false;
    for (; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '.';
        if (!ok || (c == '.' && p[1] == '.'))
            return false;
    }
    return true;
}

/* A password callback that has none: the key is never encrypted. */
static int no_password(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return 0;
}

/* Does the certificate name `name` (as a DNS name or an IP address)? */
static bool names(X509 *cert, const char *name)
{
    if (is_ip(name))
        return X509_check_ip_asc(cert, name, 0) == 1;
    return X509_check_host(cert, name, 0, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, NULL) == 1;
}

static int set_fingerprint(X509 *cert, self_signed_pair *out)
{
    unsigned char *der = NULL;
    int len = i2d_X509(cert, &der);
    if (len <= 0)
        return -1;
    int rc = fingerprint_der(der, (size_t)len, out->fingerprint);
    OPENSSL_free(der);
    return rc;
}

/* ------------------------------------------------------------ making */

static int add_ext(X509 *cert, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ext)
        return -1;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok ? 0 : -1;
}

/* subjectAltName from the names, built as values (no config string to
 * parse: a name can never be read as another option). */
static int add_alt_names(X509 *cert, const char *const *list, size_t n)
{
    GENERAL_NAMES *gens = sk_GENERAL_NAME_new_null();
    if (!gens)
        return -1;
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = strcmp(list[i], list[j]) == 0;
        if (dup)
            continue;
        GENERAL_NAME *gen = NULL;
        if (is_ip(list[i])) {
            ASN1_OCTET_STRING *ip = a2i_IPADDRESS(list[i]);
            if (ip && (gen = GENERAL_NAME_new()))
                GENERAL_NAME_set0_value(gen, GEN_IPADD, ip);
            else
                ASN1_OCTET_STRING_free(ip);
        } else {
            ASN1_IA5STRING *dns = ASN1_IA5STRING_new();
            if (dns && ASN1_STRING_set(dns, list[i], -1) && (gen = GENERAL_NAME_new()))
                GENERAL_NAME_set0_value(gen, GEN_DNS, dns);
            else
                ASN1_IA5STRING_free(dns);
        }
        if (!gen || !sk_GENERAL_NAME_push(gens, gen)) {
            GENERAL_NAME_free(gen);
            goto out;
        }
    }
    rc = X509_add1_ext_i2d(cert, NID_subject_alt_name, gens, 0, X509V3_ADD_DEFAULT) == 1 ? 0
                                                                                          : -1;
out:
    GENERAL_NAMES_free(gens);
    return rc;
}

static int random_serial(X509 *cert)
{
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof bytes) != 1)
        return -1;
    bytes[0] &= 0x7f;
    bytes[0] |= 0x01 << 6;     /* never a short serial either */
    BIGNUM *bn = BN_bin2bn(bytes, sizeof bytes, NULL);
    int rc = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) ? 0 : -1;
    BN_free(bn);
    return rc;
}

static X509 *make_cert(EVP_PKEY *key, const char *const *list, size_t n)
{
    X509 *cert = X509_new();
    if (!cert)
        return NULL;
    X509_NAME *subject = X509_get_subject_name(cert);
    bool ok =
        X509_set_version(cert, 2) && random_serial(cert) == 0 &&
        X509_gmtime_adj(X509_getm_notBefore(cert), -3600) &&   /* clocks disagree a little */
        X509_time_adj_ex(X509_getm_notAfter(cert), VALID_DAYS, 0, NULL) &&
        X509_set_pubkey(cert, key) &&
        X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_UTF8,
                                   (const unsigned char *)"Sungka board service", -1, -1, 0) &&
        X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8, (const unsigned char *)list[0],
                                   -1, -1, 0) &&
        X509_set_issuer_name(cert, subject) &&
        add_ext(cert, NID_basic_constraints, "critical,CA:FALSE") == 0 &&
        add_ext(cert, NID_key_usage, "critical,digitalSignature") == 0 &&
        add_ext(cert, NID_ext_key_usage, "serverAuth") == 0 &&
        add_ext(cert, NID_subject_key_identifier, "hash") == 0 &&
        add_alt_names(cert, list, n) == 0 && X509_sign(cert, key, EVP_sha256()) > 0;
    if (!ok) {
        X509_free(cert);
        return NULL;
    }
    return cert;
}

/* Write a PEM file through xdg_create_private (0600, O_EXCL). */
static int write_pem(const char *path, EVP_PKEY *key, X509 *cert, char *err, size_t errlen)
{
    int fd = xdg_create_private(path);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(path);
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    int ok = key ? PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL)
                 : PEM_write_X509(f, cert);
    if (fclose(f) != 0 || !ok) {
        unlink(path);
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    return 0;
}

static int make_pair(const char *const *list, size_t n, self_signed_pair *out, char *err,
                     size_t errlen)
{
    int rc = -1;
    X509 *cert = NULL;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    if (!key || !(cert = make_cert(key, list, n))) {
        snprintf(err, errlen, "OpenSSL cannot make a key and certificate");
        goto out;
    }
    if (write_pem(out->key, key, NULL, err, errlen) != 0)
        goto out;
    if (write_pem(out->cert, NULL, cert, err, errlen) != 0) {
        unlink(out->key);
        goto out;
    }
    if (set_fingerprint(cert, out) != 0) {
        snprintf(err, errlen, "cannot compute the certificate's fingerprint");
        goto out;
    }
    out->made = true;
    rc = 0;
out:
    X509_free(cert);
    EVP_PKEY_free(key);
    return rc;
}

/* ------------------------------------------------------------ reusing */

static const char *delete_both(const self_signed_pair *o, char *buf, size_t len)
{
    snprintf(buf, len, "delete %s and %s to make a new pair (players who trusted the old "
                       "certificate will then be warned that it changed)", o->cert, o->key);
    return buf;
}

static int load_pair(const char *const *list, size_t n, self_signed_pair *out, char *err,
                     size_t errlen)
{
    char fix[2 * PATH_MAX + 128];
    int rc = -1;
    X509 *cert = NULL;
    EVP_PKEY *key = NULL;
    FILE *f = NULL;
    struct stat st;

    if (stat(out->key, &st) == 0 && (st.st_mode & 077)) {
        snprintf(err, errlen, "%s, the TLS private key, may be read by others (mode %03o): "
                              "make it private with chmod 600 %s",
                 out->key, (unsigned)(st.st_mode & 0777), out->key);
        goto out;
    }
    if (!(f = fopen(out->cert, "r"))) {
        snprintf(err, errlen, "cannot read %s: %s", out->cert, strerror(errno));
        goto out;
    }
    cert = PEM_read_X509(f, NULL, no_password, NULL);
    fclose(f);
    if (!cert) {
        snprintf(err, errlen, "%s is not a PEM certificate; %s", out->cert,
                 delete_both(out, fix, sizeof fix));
        goto out;
    }
    if (!(f = fopen(out->key, "r"))) {
        snprintf(err, errlen, "cannot read %s: %s", out->key, strerror(errno));
        goto out;
    }
    key = PEM_read_PrivateKey(f, NULL, no_password, NULL);
    fclose(f);
    if (!key) {
        snprintf(err, errlen, "%s is not an unencrypted PEM private key; %s", out->key,
                 delete_both(out, fix, sizeof fix));
        goto out;
    }
    if (X509_check_private_key(cert, key) != 1) {
        snprintf(err, errlen, "%s and %s do not belong together (the key is not the "
                              "certificate's); %s",
                 out->cert, out->key, delete_both(out, fix, sizeof fix));
        goto out;
    }
    if (X509_cmp_current_time(X509_get0_notAfter(cert)) <= 0) {
        snprintf(err, errlen, "%s has expired; %s", out->cert, delete_both(out, fix, sizeof fix));
        goto out;
    }
    if (set_fingerprint(cert, out) != 0) {
        snprintf(err, errlen, "cannot compute the fingerprint of %s", out->cert);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = strcmp(list[i], list[j]) == 0;
        if (dup || names(cert, list[i]))
            continue;
        size_t used = strlen(out->missing);
        snprintf(out->missing + used, sizeof out->missing - used, "%s%s", used ? " " : "",
                 list[i]);
    }
    rc = 0;
out:
    X509_free(cert);
    EVP_PKEY_free(key);
    return rc;
}

int self_signed_ensure(const char *dir, const char *const *list, size_t n,
                             self_signed_pair *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n == 0) {
        snprintf(err, errlen, "a certificate needs at least one name");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!self_signed_name_ok(list[i])) {
            snprintf(err, errlen, "'%s' cannot be a certificate's name: give a host name "
                                  "or an IP address", list[i]);
            return -1;
        }
    }
    if ((size_t)snprintf(out->cert, sizeof out->cert, "%s/tls-cert.pem", dir) >=
            sizeof out->cert ||
        (size_t)snprintf(out->key, sizeof out->key, "%s/tls-key.pem", dir) >= sizeof out->key) {
        snprintf(err, errlen, "the directory name %s is too long", dir);
        return -1;
    }
    if (xdg_make_dirs(dir) != 0) {
        snprintf(err, errlen, "cannot make the directory %s for the TLS certificate: %s", dir,
                 strerror(errno));
        return -1;
    }
    bool have_cert = access(out->cert, F_OK) == 0, have_key = access(out->key, F_OK) == 0;
    int rc;
    if (!have_cert && !have_key) {
        rc = make_pair(list, n, out, err, errlen);
    } else if (have_cert != have_key) {
        snprintf(err, errlen, "found %s but not %s: restore it, or delete %s to make a new "
                              "pair",
                 have_cert ? out->cert : out->key, have_cert ? out->key : out->cert,
                 have_cert ? out->cert : out->key);
        rc = -1;
    } else {
        rc = load_pair(list, n, out, err, errlen);
    }
    ERR_clear_error();         /* OpenSSL's per-thread queue: gRPC reads it later */
    return rc;
}

int self_signed_check_pair(const char *cert_path, const char *key_path, char *err,
                         size_t errlen)
{
    X509 *cert = NULL;
    EVP_PKEY *key = NULL;
    int rc = -1;
    FILE *f = fopen(cert_path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", cert_path, strerror(errno));
        return -1;
    }
    cert = PEM_read_X509(f, NULL, no_password, NULL);
    fclose(f);
    if (!cert) {
        snprintf(err, errlen, "%s is not a PEM certificate", cert_path);
        goto out;
    }
    if (!(f = fopen(key_path, "r"))) {
        snprintf(err, errlen, "cannot read %s: %s", key_path, strerror(errno));
        goto out;
    }
    key = PEM_read_PrivateKey(f, NULL, no_password, NULL);
    fclose(f);
    if (!key)
        snprintf(err, errlen, "%s is not an unencrypted PEM private key", key_path);
    else if (X509_check_private_key(cert, key) != 1)
        snprintf(err, errlen, "%s and %s do not belong together (the key is not the "
                              "certificate's)", cert_path, key_path);
    else if (X509_cmp_current_time(X509_get0_notAfter(cert)) <= 0)
        snprintf(err, errlen, "%s has expired", cert_path);
    else
        rc = 0;
out:
    EVP_PKEY_free(key);
    X509_free(cert);
    ERR_clear_error();
    return rc;
}

/* listen's host into out, "" for a wildcard address (0.0.0.0, ::). */
static void listen_host(const char *listen, char *out, size_t len)
{
    const char *colon = strrchr(listen, ':');
    size_t n = colon ? (size_t)(colon - listen) : strlen(listen);
    if (n >= 2 && listen[0] == '[' && listen[n - 1] == ']') {
        listen++;
        n -= 2;
    }
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), listen);
    if (strcmp(out, "0.0.0.0") == 0 || strcmp(out, "::") == 0)
        out[0] = '\0';
}

int self_signed_for_server(const char *dir, const char *listen, const char *const *extra,
                           size_t n_extra, self_signed_pair *out, char *err, size_t errlen)
{
    char host[256] = "", bound[256];
    const char *list[SELF_SIGNED_MAX_NAMES + 6];
    size_t n = 0;
    if (n_extra > SELF_SIGNED_MAX_NAMES) {
        snprintf(err, errlen, "at most %d names", SELF_SIGNED_MAX_NAMES);
        return -1;
    }
    if (gethostname(host, sizeof host - 1) == 0 && self_signed_name_ok(host))
        list[n++] = host;
    listen_host(listen, bound, sizeof bound);
    if (bound[0] && self_signed_name_ok(bound))
        list[n++] = bound;
    list[n++] = "localhost";
    list[n++] = "127.0.0.1";
    list[n++] = "::1";
    for (size_t i = 0; i < n_extra; i++)
        list[n++] = extra[i];
    return self_signed_ensure(dir, list, n, out, err, errlen);
}
