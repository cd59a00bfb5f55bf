/*
 * text.c — strict UTF-8 decoding and the unprintable set (see text.h).
 */
#include <unicode/uchar.h>

#include "text.h"

#include <stdio.h>
#include <string.h>

int text_utf8_next(const char *s, size_t len, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (len == 0)
        return -1;
    if (u[0] < 0x80) {
        *cp = u[0];
        return 1;
    }
    int n;
    uint32_t min, c;
    if ((u[0] & 0xe0) == 0xc0) {
        n = 2, min = 0x80, c = u[0] & 0x1f;
    } else if ((u[0] & 0xf0) == 0xe0) {
        n = 3, min = 0x800, c = u[0] & 0x0f;
    } else if ((u[0] & 0xf8) == 0xf0) {
        n = 4, min = 0x10000, c = u[0] & 0x07;
    } else {
        return -1;              /* a continuation byte, or F8..FF */
    }
    if (len < (size_t)n)
        return -1;
    for (int i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80)
            return -1;
        c = c << 6 | (u[i] & 0x3f);
    }
    /* Overlong forms are how C0 9B smuggles a control past a byte check. */
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return -1;
    *cp = c;
    return n;
}

bool text_utf8_valid(const char *s, size_t len)
{
    uint32_t cp;
    for (size_t i = 0; i < len;) {
        int n = text_utf8_next(s + i, len - i, &cp);
        if (n < 0)
            return false;
        i += (size_t)n;
    }
    return true;
}

bool text_unprintable(uint32_t cp)
{
    /* Unicode's own list of what is not shown: U+3164 HANGUL FILLER, U+115F,
     * U+034F, U+180E, variation selectors, ... (and the ranges below). */
    if (cp <= 0x10ffff && u_hasBinaryProperty((UChar32)cp, UCHAR_DEFAULT_IGNORABLE_CODE_POINT))
        return true;
    return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||  /* C0, DEL, C1 */
           cp == 0xad ||                               /* soft hyphen: invisible */
           cp == 0x061c ||                             /* Arabic letter mark */
           (cp >= 0x200b && cp <= 0x200f) ||           /* zero-width, LRM, RLM */
           (cp >= 0x2028 && cp <= 0x202e) ||           /* separators, embeddings, overrides */
           (cp >= 0x2060 && cp <= 0x206f) ||           /* word joiner, isolates, ... */
           cp == 0xfeff ||                             /* zero-width no-break space */
           (cp >= 0xfff9 && cp <= 0xfffb) ||           /* interlinear annotations */
           (cp >= 0xe0000 && cp <= 0xe007f) ||         /* tags */
           (cp & 0xfffe) == 0xfffe ||                  /* noncharacters */
           (cp >= 0xfdd0 && cp <= 0xfdef);
}

int text_check(const char *s, char *why, size_t whylen)
{
    size_t len = strlen(s);
    uint32_t cp;
    for (size_t i = 0; i < len;) {
        int n = text_utf8_next(s + i, len - i, &cp);
        if (n < 0) {
            snprintf(why, whylen, "is not valid UTF-8");
            return -1;
        }
        if (text_unprintable(cp)) {
            const char *what = cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)
                                   ? "a control character"
                                   : (cp >= 0x202a && cp <= 0x202e) ||
                                             (cp >= 0x2066 && cp <= 0x2069) ||
                                             cp == 0x200e || cp == 0x200f || cp == 0x061c
                                         ? "a bidirectional control"
                                         : "an invisible character";
            snprintf(why, whylen, "contains %s (U+%04X)", what, (unsigned)cp);
            return -1;
        }
        i += (size_t)n;
    }
    return 0;
}

size_t text_chars(const char *s)
{
    size_t n = 0;
    for (const unsigned char *u = (const unsigned char *)s; *u; u++)
        n += (*u & 0xc0) != 0x80;
    return n;
}

size_t text_escape(const char *s, char *out, size_t outlen)
{
    size_t len = strlen(s), used = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int n = text_utf8_next(s + i, len - i, &cp);
        char piece[16];
        size_t plen;
        if (n < 0) {
            memcpy(piece, "\xef\xbf\xbd", 3);     /* U+FFFD for the one bad byte */
            plen = 3;
            n = 1;
        } else if (text_unprintable(cp)) {
            plen = (size_t)snprintf(piece, sizeof piece, "\\u{%X}", (unsigned)cp);
        } else {
            memcpy(piece, s + i, (size_t)n);
            plen = (size_t)n;
        }
        if (used + plen >= outlen)
            break;                  /* cut between characters, never inside one */
        memcpy(out + used, piece, plen);
        used += plen;
        i += (size_t)n;
    }
    out[used] = '\0';
    return used;
}

size_t text_truncate(const char *s, size_t max_chars, char *out, size_t outlen)
{
    size_t used = 0, chars = 0;
    for (const unsigned char *u = (const unsigned char *)s; *u && used + 1 < outlen; u++) {
        bool lead = (*u & 0xc0) != 0x80;
        if (lead) {
            size_t n = *u < 0x80 ? 1 : (*u & 0xe0) == 0xc0 ? 2 : (*u & 0xf0) == 0xe0 ? 3 : 4;
            if (chars == max_chars || used + n >= outlen)
                break;
            chars++;
        }
        out[used++] = (char)*u;
    }
    out[used] = '\0';
    return used;
}
