/*
 * rpc_common.c — the parts of the rpc module that both the server and the
 * client use: process-wide init/shutdown, status-code names, conversion
 * between protobuf-c messages and gRPC byte buffers, slice → C string copies,
 * method paths, deadlines and the bearer-token parser.
 */
#include "rpc_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>
#include <grpc/support/log.h>

/* Not verbose: keep only the reason gRPC gives before it aborts, so that a
 * crash still says why. */
static void quiet_log(gpr_log_func_args *args)
{
    if (strncmp(args->message, "assertion failed", 16) == 0)
        fprintf(stderr, "gRPC: %s (%s:%d)\n", args->message, args->file, args->line);
}

void rpc_set_verbose(bool verbose)
{
    if (!verbose)    /* verbose: GRPC_VERBOSITY, read by rpc_init, decides */
        gpr_set_log_verbosity(GPR_LOG_SEVERITY_ERROR);
    gpr_set_log_function(verbose ? NULL : quiet_log);   /* NULL: gRPC's default */
}

void rpc_init(void)
{
    grpc_init();
}

void rpc_shutdown(void)
{
    /* From the main thread (no gRPC execution context) this cleans up
     * synchronously, so nothing of gRPC outlives it. */
    grpc_shutdown();
}

/* Indexed by code: a table, not a switch (STYLE.md). */
static const char *const code_names[] = {
    [RPC_OK] = "OK",
    [RPC_CANCELLED] = "CANCELLED",
    [RPC_UNKNOWN] = "UNKNOWN",
    [RPC_INVALID_ARGUMENT] = "INVALID_ARGUMENT",
    [RPC_DEADLINE_EXCEEDED] = "DEADLINE_EXCEEDED",
    [RPC_NOT_FOUND] = "NOT_FOUND",
    [RPC_ALREADY_EXISTS] = "ALREADY_EXISTS",
    [RPC_PERMISSION_DENIED] = "PERMISSION_DENIED",
    [RPC_RESOURCE_EXHAUSTED] = "RESOURCE_EXHAUSTED",
    [RPC_FAILED_PRECONDITION] = "FAILED_PRECONDITION",
    [RPC_ABORTED] = "ABORTED",
    [RPC_OUT_OF_RANGE] = "OUT_OF_RANGE",
    [RPC_UNIMPLEMENTED] = "UNIMPLEMENTED",
    [RPC_INTERNAL] = "INTERNAL",
    [RPC_UNAVAILABLE] = "UNAVAILABLE",
    [RPC_DATA_LOSS] = "DATA_LOSS",
    [RPC_UNAUTHENTICATED] = "UNAUTHENTICATED",
};

const char *rpc_code_name(rpc_code code)
{
    /* Compare as unsigned so a stray negative value is caught too. */
    if ((unsigned)code < sizeof code_names / sizeof code_names[0])
        return code_names[code];
    return "UNKNOWN_CODE";
}

grpc_byte_buffer *rpc__pack(const ProtobufCMessage *msg)
{
    size_t n = protobuf_c_message_get_packed_size(msg);
    grpc_slice s = grpc_slice_malloc(n);
    protobuf_c_message_pack(msg, GRPC_SLICE_START_PTR(s));
    /* The byte buffer takes its own reference to the slice. */
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

grpc_byte_buffer *rpc__pack_raw(const void *data, size_t len)
{
    grpc_slice s = grpc_slice_from_copied_buffer(data, len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

int rpc__unpack_checked(const ProtobufCMessageDescriptor *desc, grpc_byte_buffer *bb,
                        ProtobufCMessage **out, char *nul_field, size_t len)
{
    *out = NULL;
    grpc_byte_buffer_reader reader;
    /* The reader also undoes any message compression the peer applied. */
    if (!grpc_byte_buffer_reader_init(&reader, bb))
        return -1;
    grpc_slice all = grpc_byte_buffer_reader_readall(&reader);
    grpc_byte_buffer_reader_destroy(&reader);
    int rc = 0;
    /* Decoded first: bytes that do not parse are "malformed", whatever else. */
    if (!(*out = protobuf_c_message_unpack(desc, NULL, GRPC_SLICE_LENGTH(all),
                                           GRPC_SLICE_START_PTR(all)))) {
        rc = -1;
    } else if (nul_field && rpc_wire_check_nul(desc, GRPC_SLICE_START_PTR(all),
                                               GRPC_SLICE_LENGTH(all), nul_field, len) != 0) {
        protobuf_c_message_free_unpacked(*out, NULL);
        *out = NULL;
        rc = -2;
    }
    grpc_slice_unref(all);
    return rc;
}

ProtobufCMessage *rpc__unpack(const ProtobufCMessageDescriptor *desc,
                              grpc_byte_buffer *bb)
{
    ProtobufCMessage *msg;
    rpc__unpack_checked(desc, bb, &msg, NULL, 0);
    return msg;
}

size_t rpc__slice_to_buf(grpc_slice s, char *buf, size_t len)
{
    size_t n = GRPC_SLICE_LENGTH(s);
    if (len == 0)
        return n;
    size_t k = n < len - 1 ? n : len - 1;
    const unsigned char *p = GRPC_SLICE_START_PTR(s);
    if (k < n) {
        /* Do not leave half a UTF-8 sequence at the end: back up over
         * continuation bytes (10xxxxxx) to the start of the cut character. */
        while (k > 0 && (p[k] & 0xC0) == 0x80)
            k--;
    }
    memcpy(buf, p, k);
    buf[k] = '\0';
    return n;
}

void rpc__status_set(rpc_status *st, grpc_status_code code, grpc_slice details)
{
    /* Codes outside the 17 defined ones are UNKNOWN by gRPC's own rules. */
    st->code = ((int)code >= 0 && (int)code <= (int)RPC_UNAUTHENTICATED) ? (rpc_code)code
                                                          : RPC_UNKNOWN;
    rpc__slice_to_buf(details, st->message, sizeof st->message);
    st->reason[0] = st->endpoint[0] = '\0';
}

void rpc__status_setf(rpc_status *st, rpc_code code, const char *message)
{
    st->code = code;
    grpc_slice s = grpc_slice_from_static_string(message ? message : "");
    rpc__slice_to_buf(s, st->message, sizeof st->message);
    st->reason[0] = st->endpoint[0] = '\0';
}

char *rpc__method_path(const rpc_method *method)
{
    if (!method || !method->service || method->index >= method->service->n_methods)
        return NULL;
    const char *svc = method->service->name;
    const char *name = method->service->methods[method->index].name;
    size_t n = strlen(svc) + strlen(name) + 3;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "/%s/%s", svc, name);
    return path;
}

gpr_timespec rpc__deadline_ms(int ms)
{
    if (ms <= 0)
        return gpr_inf_future(GPR_CLOCK_MONOTONIC);
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                        gpr_time_from_millis(ms, GPR_TIMESPAN));
}

int rpc__parse_bearer(const char *value, size_t n, char *buf, size_t len)
{
    static const char scheme[] = "bearer";
    const size_t sl = sizeof scheme - 1;
    if (len > 0)
        buf[0] = '\0';
    if (n < sl + 2 || strncasecmp(value, scheme, sl) != 0 || value[sl] != ' ')
        return -1;
    size_t i = sl;
    while (i < n && value[i] == ' ')
        i++;
    if (i == n)
        return -1;
    /* The token itself: printable, no spaces (RFC 6750 b64token is stricter,
     * but our tokens are hex; reject only what could smuggle structure). */
    for (size_t j = i; j < n; j++) {
        unsigned char c = (unsigned char)value[j];
        if (c <= ' ' || c >= 0x7F)
            return -1;
    }
    size_t tl = n - i;
    if (tl > (size_t)INT32_MAX)
        return -1;
    if (len > 0) {
        size_t k = tl < len - 1 ? tl : len - 1;
        memcpy(buf, value + i, k);
        buf[k] = '\0';
    }
    return (int)tl;
}

char *rpc__read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap + 1);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            char *grown = cap < (1u << 20) ? realloc(buf, cap * 2 + 1) : NULL;
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

grpc_arg rpc__int_arg(const char *key, int value)
{
    grpc_arg a;
    memset(&a, 0, sizeof a);
    a.type = GRPC_ARG_INTEGER;
    a.key = (char *)key;          /* gRPC copies args; it never writes keys */
    a.value.integer = value;
    return a;
}

int rpc__or_default(int v, int def)
{
    return v > 0 ? v : def;
}

rpc_method rpc_method_named(const ProtobufCServiceDescriptor *service, const char *name,
                            bool server_streaming)
{
    const ProtobufCMethodDescriptor *m =
        protobuf_c_service_descriptor_get_method_by_name(service, name);
    if (!m) {
        fprintf(stderr, "rpc: %s has no method %s: this program does not match its .proto\n",
                service->name, name);
        abort();
    }
    return (rpc_method){service, (unsigned)(m - service->methods), server_streaming};
}
