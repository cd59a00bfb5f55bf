/*
 * accounts_name.c — names that cannot pass for one another (accounts.h):
 * NFC, case folding and UTS #39 skeletons with ICU, and the characters a
 * name may not hold.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <sodium.h>
#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

#include "accounts.h"
#include "accounts_internal.h"
#include "text.h"

const USpoofChecker *accounts__spoof;
const UNormalizer2 *accounts__nfc;

/* UTF-16 working space: a name is at most 32 characters, but a request's
 * string may be much longer before it is measured. */
#define U16_CAP 2048

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static bool init_ok;

static void init(void)
{
    if (sodium_init() < 0)
        return;
    UErrorCode st = U_ZERO_ERROR;
    accounts__nfc = unorm2_getNFCInstance(&st);
    USpoofChecker *sc = uspoof_open(&st);
    /* The restriction level is the only check we ask uspoof_check2 for; the
     * skeleton does not depend on the checks. */
    uspoof_setChecks(sc, USPOOF_RESTRICTION_LEVEL | USPOOF_MIXED_NUMBERS, &st);
    uspoof_setRestrictionLevel(sc, USPOOF_MODERATELY_RESTRICTIVE);
    if (U_FAILURE(st)) {
        uspoof_close(sc);
        return;
    }
    accounts__spoof = sc;
    init_ok = true;
}

int accounts_init(void)
{
    pthread_once(&init_once, init);
    return init_ok ? 0 : -1;
}

static int to_u16(const char *in, UChar *out, int32_t cap, int32_t *len)
{
    UErrorCode st = U_ZERO_ERROR;
    u_strFromUTF8(out, cap, len, in, -1, &st);
    return U_SUCCESS(st) && *len < cap ? 0 : -1;
}

static int to_utf8(const UChar *in, int32_t len, char *out, size_t outlen)
{
    UErrorCode st = U_ZERO_ERROR;
    int32_t n = 0;
    u_strToUTF8(out, (int32_t)outlen, &n, in, len, &st);
    return U_SUCCESS(st) && (size_t)n < outlen ? 0 : -1;
}

int accounts__nfc_utf8(const char *in, char *out, size_t outlen)
{
    UChar src[U16_CAP], dst[U16_CAP];
    int32_t len;
    if (to_u16(in, src, U16_CAP, &len) != 0)
        return -1;
    UErrorCode st = U_ZERO_ERROR;
    int32_t n = unorm2_normalize(accounts__nfc, src, len, dst, U16_CAP, &st);
    if (U_FAILURE(st) || n >= U16_CAP)
        return -1;
    return to_utf8(dst, n, out, outlen);
}

/* Characters that cannot be seen, or that change how the text around them
 * is seen: a name holding one can imitate another. */
static bool refused(UChar32 c)
{
    switch (u_charType(c)) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:          /* U+200B..U+200F, bidi controls, U+FEFF, tags */
    case U_UNASSIGNED:
    case U_PRIVATE_USE_CHAR:
    case U_SURROGATE:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
        return true;
    default:
        break;
    }
    if (u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) ||
        u_hasBinaryProperty(c, UCHAR_NONCHARACTER_CODE_POINT))
        return true;           /* U+3164 HANGUL FILLER, U+115F, variation selectors... */
    if (c == 0x2800)           /* BRAILLE PATTERN BLANK: a blank that Unicode calls a symbol */
        return true;
    return c != ' ' && u_isUWhiteSpace(c);      /* NBSP, U+2000.., ideographic space */
}

/* The skeleton of the case folding of the skeleton of display (UTF-16, n
 * units) into out: the skeleton is taken before folding, so that "I" still
 * passes for "l" and "0" for "O" ("aIice" for "alice", "B0B" for "BOB"),
 * and taken again after it, so that the result compares with any name's
 * skeleton. 0, or -1 with *st set. */
static int look_of(const UChar *display, int32_t n, char *out, size_t outlen, UErrorCode *st)
{
    UChar skel[U16_CAP], folded[U16_CAP], look[U16_CAP];
    int32_t ns = uspoof_getSkeleton(accounts__spoof, 0, display, n, skel, U16_CAP, st);
    if (U_FAILURE(*st) || ns >= U16_CAP)
        return -1;
    int32_t nf = u_strFoldCase(folded, U16_CAP, skel, ns, U_FOLD_CASE_DEFAULT, st);
    if (U_FAILURE(*st) || nf >= U16_CAP)
        return -1;
    int32_t nl = uspoof_getSkeleton(accounts__spoof, 0, folded, nf, look, U16_CAP, st);
    if (U_FAILURE(*st) || nl >= U16_CAP)
        return -1;
    return to_utf8(look, nl, out, outlen);
}

accounts_rc accounts_name_prepare(const char *in, accounts_name *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (accounts_init() != 0) {
        snprintf(err, errlen, "cannot be checked (ICU or libsodium did not start)");
        return ACCOUNTS_E_INTERNAL;
    }
    while (*in == ' ')
        in++;
    size_t len = strlen(in);
    while (len > 0 && in[len - 1] == ' ')
        len--;
    if (len == 0 || len >= ACCOUNTS_NAME_BYTES) {
        snprintf(err, errlen, "must be 1..%d characters", ACCOUNTS_NAME_MAX);
        return ACCOUNTS_E_LENGTH;
    }
    char trimmed[ACCOUNTS_NAME_BYTES];
    memcpy(trimmed, in, len);
    trimmed[len] = '\0';
    if (!text_utf8_valid(trimmed, len)) {
        snprintf(err, errlen, "is not valid UTF-8");
        return ACCOUNTS_E_CHARACTER;
    }
    if (accounts__nfc_utf8(trimmed, out->display, sizeof out->display) != 0) {
        snprintf(err, errlen, "must be 1..%d characters", ACCOUNTS_NAME_MAX);
        return ACCOUNTS_E_LENGTH;
    }
    /* Characters, after NFC: what a person sees as one is counted once. */
    int32_t chars = 0;
    UChar32 prev = 0;
    for (int32_t i = 0, n = (int32_t)strlen(out->display); i < n; chars++) {
        UChar32 c;
        U8_NEXT(out->display, i, n, c);
        if (c < 0) {
            snprintf(err, errlen, "is not valid UTF-8");
            return ACCOUNTS_E_CHARACTER;
        }
        if (refused(c)) {
            snprintf(err, errlen, "contains an invisible or control character (U+%04X)",
                     (unsigned)c);
            return ACCOUNTS_E_CHARACTER;
        }
        if (c == ' ' && prev == ' ') {
            snprintf(err, errlen, "contains two spaces in a row");
            return ACCOUNTS_E_CHARACTER;
        }
        prev = c;
    }
    if (chars > ACCOUNTS_NAME_MAX) {
        snprintf(err, errlen, "must be 1..%d characters", ACCOUNTS_NAME_MAX);
        return ACCOUNTS_E_LENGTH;
    }

    UChar src[U16_CAP], folded[U16_CAP], key[U16_CAP];
    int32_t n;
    UErrorCode st = U_ZERO_ERROR;
    if (to_u16(out->display, src, U16_CAP, &n) != 0)
        goto internal;
    int32_t nf = u_strFoldCase(folded, U16_CAP, src, n, U_FOLD_CASE_DEFAULT, &st);
    int32_t nk = U_SUCCESS(st) ? unorm2_normalize(accounts__nfc, folded, nf, key, U16_CAP, &st) : 0;
    if (U_FAILURE(st) || nf >= U16_CAP || nk >= U16_CAP ||
        to_utf8(key, nk, out->key, sizeof out->key) != 0)
        goto internal;
    uspoof_getSkeletonUTF8(accounts__spoof, 0, out->key, -1, out->skeleton,
                           (int32_t)sizeof out->skeleton, &st);
    if (U_FAILURE(st) || st == U_STRING_NOT_TERMINATED_WARNING ||
        look_of(src, n, out->look, sizeof out->look, &st) != 0)
        goto internal;
    return ACCOUNTS_OK;

internal:
    snprintf(err, errlen, "cannot be checked (%s)", u_errorName(st));
    return ACCOUNTS_E_INTERNAL;
}

accounts_rc accounts_name_check_scripts(const accounts_name *n, char *err, size_t errlen)
{
    UErrorCode st = U_ZERO_ERROR;
    if (accounts_init() != 0) {
        snprintf(err, errlen, "cannot be checked (ICU or libsodium did not start)");
        return ACCOUNTS_E_INTERNAL;
    }
    int32_t bits = uspoof_check2UTF8(accounts__spoof, n->display, -1, NULL, &st);
    if (U_FAILURE(st)) {
        snprintf(err, errlen, "cannot be checked (%s)", u_errorName(st));
        return ACCOUNTS_E_INTERNAL;
    }
    if (bits & USPOOF_MIXED_NUMBERS) {
        snprintf(err, errlen, "mixes digits of different systems");
        return ACCOUNTS_E_SCRIPTS;
    }
    if (bits & USPOOF_RESTRICTION_LEVEL) {
        snprintf(err, errlen, "mixes scripts in a way that can imitate another name "
                              "(use one script, or Latin with one other)");
        return ACCOUNTS_E_SCRIPTS;
    }
    return ACCOUNTS_OK;
}

bool accounts_names_equal(const accounts_name *a, const accounts_name *b)
{
    return strcmp(a->key, b->key) == 0;
}

bool accounts_names_confusable(const accounts_name *a, const accounts_name *b)
{
    const char *of_a[] = {a->skeleton, a->look}, *of_b[] = {b->skeleton, b->look};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (strcmp(of_a[i], of_b[j]) == 0)
                return true;
    return false;
}
