/*
 * text_charset.h — the text view in the terminal's character set.
 *
 * Inside the view every string is UTF-8: the catalogs are bound to UTF-8
 * (view_locale.c), and names, chat and the service's sentences arrive as
 * UTF-8. When the locale's character set (nl_langinfo(CODESET), after
 * setlocale) is another one — LANG=C is ASCII — the view writes through a
 * stream that converts what it writes: the glyphs the view draws itself
 * get ASCII stand-ins first (— as --, … as ..., ± as +-, arrows as -> and
 * <-), then iconv with //TRANSLIT does the rest (a character with no
 * stand-in becomes ?). Lines typed are converted the other way.
 *
 * View thread only. One converting stream at a time.
 */
#ifndef SUNGKA_TEXT_CHARSET_H
#define SUNGKA_TEXT_CHARSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* out itself when the locale's character set is UTF-8 (or the conversion
 * cannot be set up); else a new stream writing converted text to out
 * (close it with fclose, which flushes it and leaves out open). */
FILE *text_charset_open(FILE *out);
/* The descriptor a stream from text_charset_open writes to (for asking the
 * terminal's size), or -1 for any other stream. */
int text_charset_fd(FILE *f);
/* A typed line (NUL-terminated, in size bytes) into UTF-8 in place, when
 * the locale's character set is another; bytes that are no character of
 * it become '?'. Nothing when it is UTF-8. */
void text_charset_typed(char *line, size_t size);

#endif /* SUNGKA_TEXT_CHARSET_H */
