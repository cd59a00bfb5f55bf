/*
 * text.h — what counts as acceptable text, for the service that refuses bad
 * text and for the agent that must show whatever a service sends as if the
 * service were hostile.
 *
 * Strict UTF-8 (RFC 3629): no overlong forms (C0 9B is not ESC's twin), no
 * surrogates, nothing above U+10FFFF. "Unprintable" is what can move a
 * terminal's cursor, recolour it, rename its window or reorder the text a
 * reader sees: C0 and C1 controls and DEL, bidi embeddings, overrides,
 * isolates and marks, zero-width and other invisible format characters,
 * line and paragraph separators, tag characters, noncharacters, and every
 * Default_Ignorable_Code_Point (ICU's property: fillers, variation
 * selectors), so that no name or line can be wholly invisible.
 *
 * Pure functions on caller-owned buffers: no allocation, no state, any thread.
 */
#ifndef SUNGKA_TEXT_H
#define SUNGKA_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decode the code point at s (at most len bytes). Returns its length in
 * bytes (1..4) and *cp, or -1 when the bytes there are not strict UTF-8
 * (*cp is then undefined). len 0 returns -1. */
int text_utf8_next(const char *s, size_t len, uint32_t *cp /* OUT */);

/* Is s[0..len) entirely strict UTF-8? */
bool text_utf8_valid(const char *s, size_t len);

/* Is cp one of the unprintable code points described above? */
bool text_unprintable(uint32_t cp);

/* Check a NUL-terminated string a person typed (a name, a title, a chat
 * line): 0 when it is strict UTF-8 with nothing unprintable; -1 otherwise,
 * with a sentence fragment in why ("contains a control character (U+001B)",
 * "is not valid UTF-8") that follows the field's name in an error. */
int text_check(const char *s, char *why /* OUT */, size_t whylen);

/* Number of characters (code points) in a strict UTF-8 string. */
size_t text_chars(const char *s);

/* Copy s into out (outlen > 0 bytes, always NUL-terminated) so that it is
 * safe to show: an invalid byte becomes U+FFFD, an unprintable code point
 * becomes "\u{XXXX}", and a string too long for out is cut at a character
 * boundary. Returns the bytes written, without the NUL. */
size_t text_escape(const char *s, char *out /* OUT */, size_t outlen);

/* Copy at most max_chars characters of a strict UTF-8 string into out
 * (always NUL-terminated, cut at a character boundary); for echoing a
 * person's input in an error without splitting a character. */
size_t text_truncate(const char *s, size_t max_chars, char *out /* OUT */, size_t outlen);

#endif /* SUNGKA_TEXT_H */
