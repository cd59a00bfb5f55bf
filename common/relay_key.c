/*
 * relay_key.c — reading a relay key from its file (relay_key.h).
 */
#include <errno.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "relay_key.h"

int relay_key_load(const char *path, char out[RELAY_KEY_BYTES], char *err, size_t errlen)
{
    return secret_file_load(path, "relay key", out, err, errlen);
}

int secret_file_load(const char *path, const char *what, char out[RELAY_KEY_BYTES], char *err,
                     size_t errlen)
{
    memset(out, 0, RELAY_KEY_BYTES);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read the %s file %s (%s)", what, path, strerror(errno));
        return -1;
    }
    char line[RELAY_KEY_BYTES + 2] = "";
    bool read = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    size_t n = read ? strcspn(line, "\r\n") : 0;
    line[n] = '\0';
    bool printable = true;
    for (size_t i = 0; i < n; i++)
        printable &= line[i] > ' ' && line[i] < 127;
    if (n < RELAY_KEY_MIN || n >= RELAY_KEY_BYTES || !printable) {
        snprintf(err, errlen, "the %s file %s must hold one line of %d to %d printable "
                              "characters without spaces (e.g. from `openssl rand -hex 32`)",
                 what, path, RELAY_KEY_MIN, RELAY_KEY_BYTES - 1);
        return -1;
    }
    memcpy(out, line, n);
    return 0;
}

relay_identity relay_key_identify(const char key[RELAY_KEY_BYTES], const char *shown,
                                  bool names_observer)
{
    if (!shown)
        return names_observer ? RELAY_UNPROVEN : RELAY_NOT;
    char padded[RELAY_KEY_BYTES] = {0};
    size_t n = strnlen(shown, RELAY_KEY_BYTES);
    if (n >= RELAY_KEY_BYTES || !key[0])
        return RELAY_WRONG_KEY;
    memcpy(padded, shown, n);
    bool same = sodium_memcmp(padded, key, RELAY_KEY_BYTES) == 0;
    sodium_memzero(padded, sizeof padded);
    return same ? RELAY_SHOWN : RELAY_WRONG_KEY;
}

const char *relay_key_refusal(relay_identity id, bool have_key)
{
    switch (id) {
    case RELAY_WRONG_KEY:
        return have_key ? "that is not this server's relay key (--relay-key)"
                        : "this server knows no relays (it has no --relay-key)";
    case RELAY_UNPROVEN:
        return "only a relay showing this server's --relay-key may name the observer a join "
               "is for (" RELAY_FOR_HEADER ")";
    default:
        return "";
    }
}

bool relay_key_observer_ok(const char *named, size_t len)
{
    size_t n = strnlen(named, len);
    if (n == 0 || n >= len)
        return false;
    for (size_t i = 0; i < n; i++)
        if (named[i] <= ' ' || named[i] >= 127)
            return false;
    return true;
}
