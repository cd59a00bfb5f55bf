/*
 * accounts_internal.h — what the accounts module's files share: ICU's spoof
 * checker and NFC normaliser, made once by accounts_init().
 */
#ifndef SUNGKA_ACCOUNTS_INTERNAL_H
#define SUNGKA_ACCOUNTS_INTERNAL_H

#include <stddef.h>

#include <unicode/unorm2.h>
#include <unicode/uspoof.h>

/* Read-only after accounts_init(); NULL before it. */
extern const USpoofChecker *accounts__spoof;
extern const UNormalizer2 *accounts__nfc;

/* NFC of a UTF-8 string into out (outlen bytes); 0, or -1 when it does not
 * fit or is not UTF-8. */
int accounts__nfc_utf8(const char *in, char *out, size_t outlen);

#endif /* SUNGKA_ACCOUNTS_INTERNAL_H */
