/*
 * known_servers.c — the file of certificates trusted on first use (see
 * known_servers.h). Base64 by OpenSSL; private files by common/xdg.h.
 */
#include "known_servers.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "xdg.h"

#define HEADER                                                                              \
    "# Board services whose TLS certificate sungka-player trusted on first use, one a\n"  \
    "# line: HOST:PORT SHA256:FINGERPRINT CERTIFICATE (base64 DER; may be left out).\n"   \
    "# When a service's certificate changed for a good reason, delete its line.\n"

int known_servers_path(const char *file, char *out, size_t len)
{
    if (file)
        return file[0] && (size_t)snprintf(out, len, "%s", file) < len ? 0 : -1;
    char dir[PATH_MAX];
    if (xdg_sungka_dir(XDG_CONFIG, false, dir, sizeof dir) != 0)
        return -1;
    return (size_t)snprintf(out, len, "%s/known-servers", dir) < len ? 0 : -1;
}

void known_server_clear(known_server *ks)
{
    free(ks->der);
    ks->der = NULL;
    ks->der_len = 0;
}

/* A fingerprint as written ("SHA256:ab:..", or the hex pairs alone as
 * openssl prints them) into fingerprint.h's form; -1 when it is not one. */
static int parse_fingerprint(const char *s, char out[FINGERPRINT_LEN])
{
    if (strncasecmp(s, "SHA256:", 7) == 0)
        s += 7;
    if (strlen(s) != FINGERPRINT_LEN - 1 - 7)
        return -1;
    memcpy(out, "SHA256:", 7);
    for (size_t i = 0; s[i]; i++) {
        bool colon = i % 3 == 2;
        if (colon ? s[i] != ':' : !isxdigit((unsigned char)s[i]))
            return -1;
        out[7 + i] = (char)toupper((unsigned char)s[i]);
    }
    out[FINGERPRINT_LEN - 1] = '\0';
    return 0;
}

/* The base64 certificate into ks->der, checked against ks->fingerprint. */
static int decode_cert(const char *b64, known_server *ks)
{
    size_t n = strlen(b64);
    if (n == 0 || n % 4 || n > 64 * 1024)
        return -1;
    unsigned char *der = malloc(n / 4 * 3);
    if (!der)
        return -1;
    int len = EVP_DecodeBlock(der, (const unsigned char *)b64, (int)n);
    if (len <= 0) {
        free(der);
        return -1;
    }
    /* EVP_DecodeBlock counts the '=' padding as zero bytes. */
    if (b64[n - 1] == '=')
        len--;
    if (b64[n - 2] == '=')
        len--;
    char fp[FINGERPRINT_LEN];
    if (fingerprint_der(der, (size_t)len, fp) != 0 || strcmp(fp, ks->fingerprint) != 0) {
        free(der);
        return -1;
    }
    ks->der = der;
    ks->der_len = (size_t)len;
    return 0;
}

/* Split a line into at most 3 fields in place; how many. */
static int fields(char *line, char *f[3])
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t\r\n", &save); tok && n < 3;
         tok = strtok_r(NULL, " \t\r\n", &save))
        f[n++] = tok;
    return n;
}

int known_servers_find(const char *path, const char *server, known_server *out, char *err,
                       size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int rc = 0, number = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        number++;
        char *f3[3];
        int n = line[0] == '#' ? 0 : fields(line, f3);
        if (n < 2 || strcmp(f3[0], server) != 0)
            continue;
        out->line = number;
        rc = 1;
        if (parse_fingerprint(f3[1], out->fingerprint) != 0) {
            snprintf(err, errlen, "line %d of %s is damaged: '%s' is not a SHA-256 "
                                  "fingerprint; correct or delete that line", number, path,
                     f3[1]);
            rc = -1;
        } else if (n == 3 && decode_cert(f3[2], out) != 0) {
            snprintf(err, errlen, "line %d of %s is damaged: its certificate does not decode "
                                  "to the fingerprint beside it; delete that line", number, path);
            rc = -1;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

/* Copy the lines of `in` except the one for `server` to `out`. */
static void copy_others(FILE *in, FILE *out, const char *server)
{
    char *line = NULL, *copy;
    size_t cap = 0;
    while (getline(&line, &cap, in) >= 0) {
        char *f[3];
        if (!(copy = strdup(line)))
            break;
        bool ours = line[0] != '#' && fields(copy, f) >= 1 && strcmp(f[0], server) == 0;
        free(copy);
        if (!ours)
            fputs(line, out);
    }
    free(line);
}

int known_servers_add(const char *path, const char *server, const unsigned char *der,
                      size_t len, char *err, size_t errlen)
{
    char fp[FINGERPRINT_LEN], dir[PATH_MAX], tmp[PATH_MAX + 16];
    if (strpbrk(server, " \t\r\n#") || len == 0 || len > 48 * 1024 ||
        fingerprint_der(der, len, fp) != 0) {
        snprintf(err, errlen, "cannot remember the certificate of '%s'", server);
        return -1;
    }
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        if (xdg_make_dirs(dir) != 0) {
            snprintf(err, errlen, "cannot make the directory %s: %s", dir, strerror(errno));
            return -1;
        }
    }
    char *b64 = malloc(4 * ((len + 2) / 3) + 1);
    if (!b64) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    EVP_EncodeBlock((unsigned char *)b64, der, (int)len);
    snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
    unlink(tmp);                 /* a stale one from a run that died here */
    int fd = xdg_create_private(tmp);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(b64);
        return -1;
    }
    FILE *in = fopen(path, "r");
    if (in) {
        copy_others(in, out, server);
        fclose(in);
    } else {
        fputs(HEADER, out);
    }
    fprintf(out, "%s %s %s\n", server, fp, b64);
    free(b64);
    if (fclose(out) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
