/*
 * rpc_internal.h — what rpc_common.c, rpc_server.c and rpc_client.c share,
 * and the few test-only entry points the rpc tests need. Nothing outside rpc/
 * and tests/rpc/ includes this file; it is where <grpc/grpc.h> may appear.
 */
#ifndef SUNGKA_RPC_INTERNAL_H
#define SUNGKA_RPC_INTERNAL_H

#include "rpc.h"

#include <grpc/grpc.h>
#include <grpc/byte_buffer.h>
#include <grpc/support/time.h>

/* Defaults documented in rpc.h. */
#define RPC__DEFAULT_KEEPALIVE_TIME_MS 10000
#define RPC__DEFAULT_KEEPALIVE_TIMEOUT_MS 5000
#define RPC__DEFAULT_MIN_RECV_PING_MS 5000
#define RPC__DEFAULT_MAX_MESSAGE_BYTES (1 << 20)
#define RPC__DEFAULT_MAX_STREAMS 64
#define RPC__DEFAULT_OUTBOX_LIMIT 1024
#define RPC__DEFAULT_CONNECT_TIMEOUT_MS 5000

/*
 * A completion-queue tag. gRPC hands back the void* we gave it; ours always
 * points at one of these, embedded in the object the operation belongs to, so
 * one object can have several batches in flight and we can tell them apart.
 */
typedef struct rpc__tag {
    int kind;       /* what finished: an enum private to the .c file */
    void *obj;      /* the object that owns the tag */
} rpc__tag;

/* Serialize `msg` into a new byte buffer (caller destroys it); NULL if out of
 * memory. */
grpc_byte_buffer *rpc__pack(const ProtobufCMessage *msg);

/* An integer channel argument, and "v if positive, else def" for options. */
grpc_arg rpc__int_arg(const char *key, int value);
int rpc__or_default(int v, int def);

/* A whole (small, < 1 MiB) file as a NUL-terminated string; NULL when it
 * cannot be read. The caller frees it. */
char *rpc__read_file(const char *path);

/* Same, for bytes that are already serialized (or deliberately not). */
grpc_byte_buffer *rpc__pack_raw(const void *data, size_t len);

/* Decode `bb` as `desc`; NULL when it does not parse. The result is freed
 * with protobuf_c_message_free_unpacked(msg, NULL). */
ProtobufCMessage *rpc__unpack(const ProtobufCMessageDescriptor *desc,
                              grpc_byte_buffer *bb);

/* The same for a request, which must also hold no NUL byte in a string
 * (rpc_wire_check_nul): 0 with *out; -1 when it does not parse; -2 with the
 * field's name in nul_field (len bytes) when a string holds a NUL. With
 * nul_field NULL, NULs are not looked for. */
int rpc__unpack_checked(const ProtobufCMessageDescriptor *desc, grpc_byte_buffer *bb,
                        ProtobufCMessage **out, char *nul_field, size_t len);

/* Copy a slice into a NUL-terminated buffer, truncating to len-1 bytes
 * without cutting a UTF-8 sequence in half. Returns the slice's full length. */
size_t rpc__slice_to_buf(grpc_slice s, char *buf, size_t len);

/* Fill `st` from a gRPC status code and details slice (which may be empty). */
void rpc__status_set(rpc_status *st, grpc_status_code code, grpc_slice details);
/* Fill `st` from our own code and a C string (NULL → ""). */
void rpc__status_setf(rpc_status *st, rpc_code code, const char *message);

/* "/<service full name>/<method name>", malloc'ed; NULL on bad input. */
char *rpc__method_path(const rpc_method *method);

/* Absolute deadline `ms` from now; infinite when ms <= 0. */
gpr_timespec rpc__deadline_ms(int ms);

/*
 * Parse an "authorization" value: "Bearer <token>", scheme case-insensitive,
 * one or more spaces, then a non-empty token without whitespace or control
 * characters. Copies the token into buf (truncated to len-1) and returns its
 * full length, or -1 (buf = "") when the value is not a bearer credential.
 */
int rpc__parse_bearer(const char *value, size_t n, char *buf, size_t len);

/*
 * Test-only: a unary call whose request is the raw bytes given instead of a
 * serialized message (to exercise the server's INVALID_ARGUMENT path). The
 * reply is decoded with method's output descriptor, as rpc_client_call does.
 * Same contract as rpc_client_call.
 */
int rpc__client_call_raw(rpc_client *cli, const rpc_method *method,
                         const void *data, size_t len, const char *token,
                         int timeout_ms, rpc_reply_cb cb, void *user);

/* Test-only: number of calls the server holds (accepted, not yet released). */
size_t rpc__server_live_calls(const rpc_server *srv);

#endif /* SUNGKA_RPC_INTERNAL_H */
