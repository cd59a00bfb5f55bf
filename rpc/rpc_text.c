/*
 * rpc_text.c — the strings inside a protobuf-c message: are they UTF-8, and
 * making them safe to show (rpc.h, "Text in messages").
 *
 * protobuf-c never checks that a `string` field holds UTF-8; every other
 * language's runtime refuses a message that does not, so one bad string we
 * relay breaks every conforming client that reads it. The walk follows the
 * descriptors: singular, optional and repeated strings, nested messages, and
 * of a oneof only the member that is set (the others share its memory).
 * The NUL check reads the serialized bytes instead, where a string's length
 * is still known.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc.h"
#include "text.h"

#define MAX_DEPTH 32    /* deeper than any of our messages; a bound for a hostile one */

typedef int (*string_fn)(char **s, const ProtobufCMessage *owner,
                         const ProtobufCFieldDescriptor *f, void *user);

static bool field_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
        return *(const uint32_t *)((const char *)m + f->quantifier_offset) == f->id;
    return true;
}

/* Call fn on every string of m; stop at the first non-zero answer. */
static int walk(ProtobufCMessage *m, int depth, string_fn fn, void *user)
{
    if (!m || depth > MAX_DEPTH)
        return 0;
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if ((f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_MESSAGE) ||
            !field_present(m, f))
            continue;
        char *at = (char *)m + f->offset;
        size_t n = 1;
        void **items = (void **)at;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            n = *(size_t *)((char *)m + f->quantifier_offset);
            items = *(void ***)at;
        }
        for (size_t k = 0; k < n; k++) {
            int rc = f->type == PROTOBUF_C_TYPE_STRING
                         ? (items[k] ? fn((char **)&items[k], m, f, user) : 0)
                         : walk(items[k], depth + 1, fn, user);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

struct where {
    char *buf;
    size_t len;
};

static int check_one(char **s, const ProtobufCMessage *owner, const ProtobufCFieldDescriptor *f,
                     void *user)
{
    if (text_utf8_valid(*s, strlen(*s)))
        return 0;
    struct where *w = user;
    snprintf(w->buf, w->len, "%s.%s", owner->descriptor->name, f->name);
    return -1;
}

int rpc_message_check_utf8(const ProtobufCMessage *msg, char *where, size_t len)
{
    struct where w = {where, len};
    /* The walk only reads when its callback does. */
    return walk((ProtobufCMessage *)msg, 0, check_one, &w);
}

static int escape_one(char **s, const ProtobufCMessage *owner, const ProtobufCFieldDescriptor *f,
                      void *user)
{
    (void)owner;
    (void)f;
    int *changed = user;
    char why[64];
    if (text_check(*s, why, sizeof why) == 0)
        return 0;
    /* Each byte escapes to at most 8 ("\u{10FFFF}" is one code point of 4). */
    size_t cap = strlen(*s) * 8 + 1;
    char *clean = malloc(cap);
    if (!clean)
        return -1;
    text_escape(*s, clean, cap);
    free(*s);     /* unpacked with the default allocator: plain malloc */
    *s = clean;
    (*changed)++;
    return 0;
}

/* The wire format, only as far as finding each field's bytes: a key (a
 * varint: field number << 3 | wire type), then a varint (type 0), 8 bytes
 * (1), a length and that many bytes (2), or 4 bytes (5). */
static bool read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t out = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        out |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = out;
            return true;
        }
    }
    return false;
}

static int find_nul(const ProtobufCMessageDescriptor *d, const uint8_t *p, const uint8_t *end,
                    int depth, struct where *w)
{
    if (depth > MAX_DEPTH)
        return 0;
    while (p < end) {
        uint64_t key, n;
        if (!read_varint(&p, end, &key))
            return 0;
        switch (key & 7) {
        case 0:
            if (!read_varint(&p, end, &n))
                return 0;
            continue;
        case 1:
            if (end - p < 8)
                return 0;
            p += 8;
            continue;
        case 5:
            if (end - p < 4)
                return 0;
            p += 4;
            continue;
        case 2:
            break;
        default:
            return 0;          /* groups: the decoder's to judge */
        }
        if (!read_varint(&p, end, &n) || n > (uint64_t)(end - p))
            return 0;
        const ProtobufCFieldDescriptor *f =
            key >> 3 <= UINT32_MAX
                ? protobuf_c_message_descriptor_get_field(d, (unsigned)(key >> 3))
                : NULL;
        if (f && f->type == PROTOBUF_C_TYPE_STRING && memchr(p, 0, n)) {
            snprintf(w->buf, w->len, "%s.%s", d->name, f->name);
            return -1;
        }
        if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
            find_nul(f->descriptor, p, p + n, depth + 1, w) != 0)
            return -1;
        p += n;
    }
    return 0;
}

int rpc_wire_check_nul(const ProtobufCMessageDescriptor *desc, const void *data, size_t len,
                       char *where, size_t wlen)
{
    struct where w = {where, wlen};
    const uint8_t *p = data;
    return len ? find_nul(desc, p, p + len, 0, &w) : 0;
}

int rpc_message_escape_text(ProtobufCMessage *msg)
{
    int changed = 0;
    if (walk(msg, 0, escape_one, &changed) != 0)
        return -1;
    return changed;
}
