/*
 * pages.c — the lists a page at a time (ListGames, ListMatches, Leaderboard,
 * RatingHistory): how big a page is, and the page tokens. A token is opaque
 * to clients: base64url (libsodium) of the list's name and the key of the
 * last row the page before gave (store_page_key), so that the next page
 * starts after that row whatever was added since (key-set paging, not an
 * offset). A token is read back strictly — its list, every field, their
 * sizes and text — and anything else is refused with a sentence, never
 * trusted: a forged token can only name a place in a list its holder may
 * read anyway. Pure functions, called on the loop thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "board_rpc.h"
#include "text.h"

#define B64_VARIANT sodium_base64_VARIANT_URLSAFE_NO_PADDING

int board_page_size(int32_t page_size, int32_t limit, int def, int max, int *out, char *err,
                    size_t errlen)
{
    if (page_size < 0) {
        snprintf(err, errlen, "page_size must be 0 (for %d) to %d, not %" PRId32, def, max,
                 page_size);
        return -1;
    }
    int n = page_size ? page_size : limit > 0 ? limit : def;
    *out = n > max ? max : n;
    return 0;
}

void board_page_token(const char *list, const store_page_key *k, char *out, size_t outlen)
{
    char plain[BOARD_PAGE_TOKEN_BYTES];
    int len = snprintf(plain, sizeof plain, "%s\n%" PRId64 "\n%" PRId64 "\n%.17g\n%s", list,
                       k->a, k->b, k->x, k->text);
    out[0] = '\0';
    if (len < 0 || (size_t)len >= sizeof plain ||
        sodium_base64_ENCODED_LEN((size_t)len, B64_VARIANT) > outlen)
        return;    /* cannot happen with the store's sizes: then no next page */
    sodium_bin2base64(out, outlen, (const unsigned char *)plain, (size_t)len, B64_VARIANT);
}

/* The whole of text as an int64, or false. */
static bool read_int64(const char *text, int64_t *out)
{
    if (!*text)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || *end || (text[0] != '-' && (text[0] < '0' || text[0] > '9')))
        return false;
    *out = v;
    return true;
}

static bool read_double(const char *text, double *out)
{
    if (!*text || text[0] == ' ')
        return false;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || *end || v != v)
        return false;
    *out = v;
    return true;
}

int board_page_key(const char *list, const char *token, store_page_key *k, char *err,
                   size_t errlen)
{
    memset(k, 0, sizeof *k);
    if (!token[0])
        return 0;
    unsigned char plain[BOARD_PAGE_TOKEN_BYTES];
    size_t len = 0;
    char why[64];
    if (strlen(token) >= BOARD_PAGE_TOKEN_BYTES ||
        sodium_base642bin(plain, sizeof plain - 1, token, strlen(token), NULL, &len, NULL,
                          B64_VARIANT) != 0)
        goto refuse;
    plain[len] = '\0';
    if (memchr(plain, '\0', len))
        goto refuse;
    /* list \n a \n b \n x \n text: exactly five fields */
    char *field[5];
    char *p = (char *)plain;
    for (int i = 0; i < 5; i++) {
        field[i] = p;
        char *nl = strchr(p, '\n');
        if (i < 4) {
            if (!nl)
                goto refuse;
            *nl = '\0';
            p = nl + 1;
        } else if (nl) {
            goto refuse;
        }
    }
    if (strcmp(field[0], list) != 0 || !read_int64(field[1], &k->a) ||
        !read_int64(field[2], &k->b) || !read_double(field[3], &k->x) ||
        strlen(field[4]) >= sizeof k->text || text_check(field[4], why, sizeof why) != 0)
        goto refuse;
    memcpy(k->text, field[4], strlen(field[4]) + 1);
    k->set = true;
    return 0;
refuse:
    snprintf(err, errlen, "page_token is not one this list gave: ask again with no page_token "
             "for the first page, then pass each answer's next_page_token as it is");
    return -1;
}
