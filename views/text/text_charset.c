/*
 * text_charset.c — the text view's output in the locale's character set
 * (text_charset.h). A cookie stream (fopencookie) converts at write time,
 * so nothing in the view has to know: it keeps writing UTF-8. A character
 * cut between two writes is kept until its end arrives.
 */
#include <errno.h>
#include <iconv.h>
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "text_charset.h"

typedef struct converter {
    FILE *out;                 /* where converted text goes (not owned) */
    iconv_t cd;                /* UTF-8 to the locale's set, //TRANSLIT */
    char held[8];              /* the start of a character cut by a write */
    size_t n_held;
} converter;

static FILE *open_stream;      /* the one text_charset_open made, or NULL */
static converter *open_conv;

/* The glyphs the view draws itself, and what stands for them anywhere else. */
static const struct {
    const char *glyph, *ascii;
} stand_ins[] = {
    {"\u2014", "--"}, {"\u2013", "-"}, {"\u2026", "..."}, {"\u00b1", "+-"},
    {"\u2192", "->"}, {"\u2190", "<-"}, {"\u2018", "'"}, {"\u2019", "'"},
    {"\u201c", "\""}, {"\u201d", "\""}, {"\u00b7", "."},
};

static bool locale_is_utf8(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
}

/* The length of the UTF-8 sequence that starts with byte c (1 for a byte
 * that starts none: iconv will say it is invalid). */
static size_t seq_len(unsigned char c)
{
    return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* One whole character (or an invalid byte) written converted. */
static void put_char(converter *cv, const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof stand_ins / sizeof stand_ins[0]; i++)
        if (strlen(stand_ins[i].glyph) == n && memcmp(stand_ins[i].glyph, s, n) == 0) {
            fputs(stand_ins[i].ascii, cv->out);
            return;
        }
    char buf[32];
    char *in = (char *)s, *to = buf;
    size_t in_left = n, out_left = sizeof buf;
    iconv(cv->cd, NULL, NULL, NULL, NULL);
    if (iconv(cv->cd, &in, &in_left, &to, &out_left) == (size_t)-1 || in_left)
        fputc('?', cv->out);
    else
        fwrite(buf, 1, (size_t)(to - buf), cv->out);
}

static ssize_t conv_write(void *cookie, const char *buf, size_t size)
{
    converter *cv = cookie;
    size_t i = 0;
    if (cv->n_held) {          /* finish the character the last write cut */
        size_t want = seq_len((unsigned char)cv->held[0]);
        while (cv->n_held < want && i < size)
            cv->held[cv->n_held++] = buf[i++];
        if (cv->n_held < want)
            return (ssize_t)size;
        put_char(cv, cv->held, cv->n_held);
        cv->n_held = 0;
    }
    while (i < size) {
        size_t start = i;
        while (i < size && (unsigned char)buf[i] < 0x80)
            i++;
        if (i > start)
            fwrite(buf + start, 1, i - start, cv->out);
        if (i == size)
            break;
        size_t n = seq_len((unsigned char)buf[i]);
        if (i + n > size) {    /* cut: keep it for the next write */
            memcpy(cv->held, buf + i, size - i);
            cv->n_held = size - i;
            break;
        }
        put_char(cv, buf + i, n);
        i += n;
    }
    fflush(cv->out);
    return (ssize_t)size;
}

static int conv_close(void *cookie)
{
    converter *cv = cookie;
    if (cv->n_held)
        fputc('?', cv->out);
    fflush(cv->out);
    iconv_close(cv->cd);
    free(cv);
    open_stream = NULL;
    open_conv = NULL;
    return 0;
}

FILE *text_charset_open(FILE *out)
{
    if (locale_is_utf8() || open_stream)
        return out;
    char to[64];
    snprintf(to, sizeof to, "%s//TRANSLIT", nl_langinfo(CODESET));
    converter *cv = calloc(1, sizeof *cv);
    if (!cv)
        return out;
    cv->out = out;
    cv->cd = iconv_open(to, "UTF-8");
    if (cv->cd == (iconv_t)-1) {
        free(cv);
        return out;
    }
    cookie_io_functions_t io = {.write = conv_write, .close = conv_close};
    FILE *f = fopencookie(cv, "w", io);
    if (!f) {
        iconv_close(cv->cd);
        free(cv);
        return out;
    }
    open_stream = f;
    open_conv = cv;
    return f;
}

int text_charset_fd(FILE *f)
{
    return f && f == open_stream ? fileno(open_conv->out) : -1;
}

void text_charset_typed(char *line, size_t size)
{
    if (locale_is_utf8())
        return;
    iconv_t cd = iconv_open("UTF-8", nl_langinfo(CODESET));
    char *copy = strdup(line);
    if (cd == (iconv_t)-1 || !copy) {
        if (cd != (iconv_t)-1)
            iconv_close(cd);
        free(copy);
        for (char *p = line; *p; p++)      /* no conversion: keep ASCII only */
            if ((unsigned char)*p >= 0x80)
                *p = '?';
        return;
    }
    char *in = copy, *to = line;
    size_t in_left = strlen(copy), out_left = size - 1;
    while (in_left && out_left) {
        if (iconv(cd, &in, &in_left, &to, &out_left) != (size_t)-1)
            break;
        if (errno != EILSEQ && errno != EINVAL)
            break;
        *to++ = '?';           /* a byte that is no character */
        out_left--;
        in++;
        in_left--;
    }
    *to = '\0';
    iconv_close(cd);
    free(copy);
}
