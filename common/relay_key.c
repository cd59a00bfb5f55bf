/*
 * relay_key.c — reading a relay key from its file (relay_key.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "relay_key.h"

int relay_key_load(const char *path, char out[RELAY_KEY_BYTES], char *err, size_t errlen)
{
    memset(out, 0, RELAY_KEY_BYTES);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read the relay key file %s (%s)", path, strerror(errno));
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
        snprintf(err, errlen, "the relay key file %s must hold one line of %d to %d printable "
                              "characters without spaces (e.g. from `openssl rand -hex 32`)",
                 path, RELAY_KEY_MIN, RELAY_KEY_BYTES - 1);
        return -1;
    }
    memcpy(out, line, n);
    return 0;
}
