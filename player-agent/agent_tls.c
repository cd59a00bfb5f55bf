/*
 * agent_tls.c — the agent's TLS, decided before it connects, with OpenSSL
 * (already linked: gRPC's TLS is OpenSSL's):
 *
 *   - the TLS files are checked. gRPC itself takes any bytes: a key that
 *     does not belong to the certificate shows up only as a channel that
 *     fails every call with "empty address list", and nothing names the
 *     file at fault. Here each file is read and parsed as what it should
 *     hold, and the certificate and key are matched, so the sentence can
 *     say which file is wrong and how;
 *   - trust on first use (agent__tls_trust): without --tls-ca, one TLS
 *     handshake of our own fetches the service's certificate before gRPC
 *     connects. A certificate the system's roots vouch for is used as any
 *     web site's; one they do not is compared with known_servers.h's entry
 *     (and refused, ssh-like, when it differs) or remembered there on first
 *     use; either way gRPC is then given exactly that certificate as its
 *     only root. The extra handshake costs one round trip at start, and it
 *     is what lets the refusal say "the certificate changed" in words
 *     instead of gRPC's "certificate verify failed";
 *   - agent_may_send_secret: whether a password may go to the target.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "agent_internal.h"
#include "fingerprint.h"
#include "known_servers.h"

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

/* ------------------------------------------------------- where it goes */

/* "HOST:PORT" or "[V6]:PORT" into host and port; -1 for anything else (a
 * gRPC target with a scheme, such as unix:PATH, which we do not dial). */
static int split_target(const char *server, char *host, size_t hlen, char *port, size_t plen)
{
    const char *colon = strrchr(server, ':');
    if (!colon || strstr(server, ":///") || strncmp(server, "unix", 4) == 0)
        return -1;
    const char *h = server;
    size_t n = (size_t)(colon - server);
    if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
        h++;
        n -= 2;
    } else if (memchr(h, ':', n)) {
        return -1;               /* "ipv4:1.2.3.4:5" and other schemes */
    }
    if (n == 0 || n >= hlen || strlen(colon + 1) >= plen)
        return -1;
    memcpy(host, h, n);
    host[n] = '\0';
    snprintf(port, plen, "%s", colon + 1);
    return 0;
}

static bool is_ip(const char *host)
{
    unsigned char buf[16];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

/* Never leaves this machine: a Unix socket, localhost, 127.0.0.0/8, ::1
 * (also as ::ffff:127.x.y.z). */
static bool target_is_local(const char *server)
{
    if (strncmp(server, "unix:", 5) == 0 || strncmp(server, "unix-abstract:", 14) == 0)
        return true;
    char host[256], port[16];
    if (split_target(server, host, sizeof host, port, sizeof port) != 0)
        return false;
    if (strcasecmp(host, "localhost") == 0 || strcasecmp(host, "localhost.") == 0)
        return true;
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host, &a6) == 1)
        return IN6_IS_ADDR_LOOPBACK(&a6) || (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
    return false;
}

/* Does cfg's server have a line in the known-servers file (so TLS is on
 * whatever the command line says)? */
static bool remembered(const agent_config *cfg)
{
    char path[4096], err[256];
    known_server ks;
    if (cfg->tls_ca || known_servers_path(cfg->known_servers, path, sizeof path) != 0)
        return false;
    int found = known_servers_find(path, cfg->server, &ks, err, sizeof err);
    known_server_clear(&ks);
    return found != 0;          /* a damaged line counts: agent_start will say so */
}

int agent_may_send_secret(const agent_config *cfg, char *err, size_t errlen)
{
    if (!cfg->server || cfg->tls || target_is_local(cfg->server) || remembered(cfg))
        return 0;
    snprintf(err, errlen,
             "not sending a password to %s in plaintext: anyone on the network between here "
             "and there could read it. Connect with --tls (the service needs "
             "--tls-self-signed, or --tls-cert and --tls-key; sungka-player --serve "
             "serves TLS already)",
             cfg->server);
    return -1;
}

/* ------------------------------------------ the service's certificate */

/* A TCP connection to host:port within timeout_ms (each of connect and
 * every later read and write), or -1 with the reason in words. */
static int dial(const char *host, const char *port, int timeout_ms, char *why, size_t len)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(why, len, "no host of that name is known");
        return -1;
    }
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    int fd = -1, saved = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0)
            continue;
        /* Linux bounds connect() by the send timeout too. */
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            saved = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(why, len, "%s",
                 saved == ECONNREFUSED ? "nothing is listening there (connection refused)"
                 : saved == EINPROGRESS || saved == ETIMEDOUT || saved == EAGAIN
                     ? "no answer: the connection timed out"
                 : saved == ENETUNREACH || saved == EHOSTUNREACH
                     ? "the network cannot reach that address"
                     : "the connection failed");
    }
    return fd;
}

/* The certificate the service at host:port shows (*out, the caller frees),
 * our client certificate presented when cfg has one,
 * with *verified saying whether the system's roots vouch for it under
 * `name`. 0, or -1 with the reason in words. The handshake offers h2, as
 * gRPC does, and ends there: we close without speaking HTTP/2. */
static int fetch_cert(const agent_config *cfg, const char *host, const char *port,
                      const char *name, X509 **out, bool *verified, char *why, size_t len)
{
    *out = NULL;
    *verified = false;
    int fd = dial(host, port, cfg->call_timeout_ms, why, len);
    if (fd < 0)
        return -1;
    int rc = -1;
    SSL *ssl = NULL;
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
        SSL_CTX_set_alpn_protos(ctx, (const unsigned char *)"\x02h2", 3) != 0 ||
        /* A service that requires a client certificate sees ours, as gRPC's
         * connection will show it (agent_check_tls has checked the pair). */
        (cfg->tls_cert && cfg->tls_key &&
         (SSL_CTX_use_certificate_chain_file(ctx, cfg->tls_cert) != 1 ||
          SSL_CTX_use_PrivateKey_file(ctx, cfg->tls_key, SSL_FILETYPE_PEM) != 1)) ||
        !(ssl = SSL_new(ctx)) || !SSL_set_fd(ssl, fd)) {
        snprintf(why, len, "OpenSSL cannot set up a TLS connection");
        goto out;
    }
    /* Verify, but finish the handshake whatever the result: a certificate
     * the roots reject is the one trust on first use is about. */
    SSL_CTX_set_default_verify_paths(ctx);
    SSL_set_verify(ssl, SSL_VERIFY_NONE, NULL);
    if (is_ip(name)) {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name);
    } else {
        SSL_set_tlsext_host_name(ssl, name);
        SSL_set1_host(ssl, name);
    }
    /* A peer that resets mid-handshake must not kill a program that left
     * SIGPIPE at its default: block it on this thread while OpenSSL
     * writes, and take back one it raised. */
    sigset_t pipe, old, pending;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &old);
    bool was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
    int connected = SSL_connect(ssl);
    struct timespec now = {0, 0};
    if (!was_pending)          /* never take one that was the caller's */
        while (sigtimedwait(&pipe, NULL, &now) == SIGPIPE)
            ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (connected != 1 || !(*out = SSL_get1_peer_certificate(ssl))) {
        snprintf(why, len, "it does not answer in TLS");
        goto out;
    }
    *verified = SSL_get_verify_result(ssl) == X509_V_OK;
    rc = 0;
out:
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    close(fd);
    return rc;
}

/* Does cert name `host`, as gRPC will check? */
static bool cert_names(X509 *cert, const char *host)
{
    if (is_ip(host))
        return X509_check_ip_asc(cert, host, 0) == 1;
    return X509_check_host(cert, host, 0, 0, NULL) == 1;
}

/* A name cert carries (its first DNS name, else its first IP address) for
 * gRPC's name check, into out; "" when none. */
static void a_name_of(X509 *cert, char *out, size_t len)
{
    out[0] = '\0';
    GENERAL_NAMES *gens = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    for (int pass = 0; pass < 2 && !out[0]; pass++) {
        for (int i = 0; i < sk_GENERAL_NAME_num(gens) && !out[0]; i++) {
            const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
            int type;
            const ASN1_STRING *v = GENERAL_NAME_get0_value(g, &type);
            const unsigned char *d = ASN1_STRING_get0_data(v);
            int n = ASN1_STRING_length(v);
            if (pass == 0 && type == GEN_DNS && n > 0 && (size_t)n < len &&
                !memchr(d, '*', (size_t)n)) {
                memcpy(out, d, (size_t)n);
                out[n] = '\0';
            } else if (pass == 1 && type == GEN_IPADD && (n == 4 || n == 16)) {
                inet_ntop(n == 4 ? AF_INET : AF_INET6, d, out, (socklen_t)len);
            }
        }
    }
    GENERAL_NAMES_free(gens);
}

/* The certificate (DER) as PEM text, malloc'ed; NULL when it does not decode. */
static char *pem_of(const unsigned char *der, size_t len, X509 **cert_out)
{
    const unsigned char *p = der;
    X509 *cert = d2i_X509(NULL, &p, (long)len);
    BIO *bio = BIO_new(BIO_s_mem());
    char *pem = NULL, *data;
    if (cert && bio && PEM_write_bio_X509(bio, cert)) {
        long n = BIO_get_mem_data(bio, &data);
        if (n > 0 && (pem = malloc((size_t)n + 1))) {
            memcpy(pem, data, (size_t)n);
            pem[n] = '\0';
        }
    }
    BIO_free(bio);
    if (pem && cert_out)
        *cert_out = cert;
    else
        X509_free(cert);
    return pem;
}

void agent__tls_trust_free(agent_trust *t)
{
    free(t->roots_pem);
    t->roots_pem = NULL;
}

int agent__tls_trust(const agent_config *cfg, agent_trust *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->tls = cfg->tls;
    char host[256], port[16];
    if (cfg->tls_ca || split_target(cfg->server, host, sizeof host, port, sizeof port) != 0 ||
        known_servers_path(cfg->known_servers, t->file, sizeof t->file) != 0)
        return 0;              /* a CA of the user's, or nothing to pin: as configured */
    known_server ks;
    int found = known_servers_find(t->file, cfg->server, &ks, err, errlen);
    if (found < 0)
        return -1;
    if (!found && !cfg->tls)
        return 0;              /* plaintext, as asked */
    t->tls = true;             /* --tls, or implied by the remembered certificate */

    int rc = -1;
    X509 *shown = NULL, *pinned = NULL;
    unsigned char *der = NULL;
    bool verified;
    char why[256], fp[FINGERPRINT_LEN];
    const char *name = cfg->tls_name ? cfg->tls_name : host;
    if (fetch_cert(cfg, host, port, name, &shown, &verified, why, sizeof why) != 0) {
        if (found && !cfg->tls)
            snprintf(err, errlen, "cannot reach the board service at %s: %s; it is remembered "
                                  "as a TLS service (line %d of %s): delete that line to use "
                                  "it in plaintext",
                     cfg->server, why, ks.line, t->file);
        else if (strcmp(why, "it does not answer in TLS") == 0)
            snprintf(err, errlen, "cannot reach the board service at %s: %s (if it serves "
                                  "plaintext, leave out --tls; if it wants a client "
                                  "certificate, give --tls-cert and --tls-key)",
                     cfg->server, why);
        else
            snprintf(err, errlen, "cannot reach the board service at %s: %s", cfg->server, why);
        goto out;
    }
    int len = i2d_X509(shown, &der);
    if (len <= 0 || fingerprint_der(der, (size_t)len, fp) != 0) {
        snprintf(err, errlen, "cannot read the certificate of %s", cfg->server);
        goto out;
    }
    if (found && strcmp(fp, ks.fingerprint) != 0) {
        snprintf(err, errlen,
                 "WARNING: THE CERTIFICATE OF %s HAS CHANGED. It is now %s, not the one "
                 "trusted before. Someone may be intercepting the connection (a "
                 "man-in-the-middle attack), or the service made itself a new certificate. "
                 "Not connecting. If its operator confirms the new fingerprint, delete line "
                 "%d of %s and connect again.",
                 cfg->server, fp, ks.line, t->file);
        goto out;
    }
    if (!found && verified) {
        rc = 0;                /* the system's roots vouch for it: no pin needed */
        goto out;
    }
    if (!ks.der) {             /* first use, or a line that held a fingerprint only */
        if (known_servers_add(t->file, cfg->server, der, (size_t)len, err, errlen) != 0)
            goto out;
        /* The fingerprint before the file's name: a very long path may be
         * cut, the fingerprint never. */
        if (!found &&
            snprintf(t->notice, sizeof t->notice,
                     "first TLS connection to %s: its certificate, fingerprint %s, is "
                     "trusted from now on; check that the service's operator sees the same "
                     "(sungka-board logs it at start, sungka-player --serve prints it). "
                     "Remembered in %s.",
                     cfg->server, fp, t->file) >= (int)sizeof t->notice)
            strcpy(t->notice + sizeof t->notice - 4, "...");
    }
    /* Pin what was remembered, not merely what was just shown. */
    t->roots_pem = ks.der ? pem_of(ks.der, ks.der_len, &pinned)
                          : pem_of(der, (size_t)len, &pinned);
    if (!t->roots_pem) {
        snprintf(err, errlen, "cannot use the certificate remembered for %s", cfg->server);
        goto out;
    }
    t->pinned = true;
    if (!cfg->tls_name && !cert_names(pinned, host))
        a_name_of(pinned, t->name, sizeof t->name);
    rc = 0;
out:
    if (rc != 0)
        agent__tls_trust_free(t);
    known_server_clear(&ks);
    OPENSSL_free(der);
    X509_free(shown);
    X509_free(pinned);
    ERR_clear_error();
    return rc;
}
