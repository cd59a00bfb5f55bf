/*
 * rpc.h — Sungka's binding of gRPC core and protobuf-c.
 *
 * This is the only module that includes <grpc/grpc.h>. It offers:
 *   - a server that dispatches unary and server-streaming methods described by
 *     protobuf-c service descriptors (plus our own list of which methods stream,
 *     since protoc-c knows nothing of streaming), driven by one thread that calls
 *     rpc_server_poll() — that thread is where every handler and callback runs;
 *   - a client whose calls (unary with deadlines, long-lived server streams that
 *     can be cancelled) complete on one internal client thread through callbacks,
 *     plus a blocking unary helper usable from any other thread;
 *   - per-call metadata (the seat token as "authorization: Bearer <token>"),
 *     gRPC status codes with messages, keepalive settings, clean shutdown.
 *
 * Messages cross this interface as protobuf-c messages. Ownership is stated on
 * every function; the general rule is "whoever receives a message pointer in a
 * callback owns it only for the duration of the callback, unless said otherwise".
 *
 * Process-wide: call rpc_init() once before anything else and rpc_shutdown()
 * last, from the main thread, after every server and client is destroyed.
 */
#ifndef SUNGKA_RPC_H
#define SUNGKA_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#ifdef __cplusplus
extern "C" {
#endif

/* gRPC status codes (same numbers as the wire protocol). */
typedef enum rpc_code {
    RPC_OK = 0,
    RPC_CANCELLED = 1,
    RPC_UNKNOWN = 2,
    RPC_INVALID_ARGUMENT = 3,
    RPC_DEADLINE_EXCEEDED = 4,
    RPC_NOT_FOUND = 5,
    RPC_ALREADY_EXISTS = 6,
    RPC_PERMISSION_DENIED = 7,
    RPC_RESOURCE_EXHAUSTED = 8,
    RPC_FAILED_PRECONDITION = 9,
    RPC_ABORTED = 10,
    RPC_OUT_OF_RANGE = 11,
    RPC_UNIMPLEMENTED = 12,
    RPC_INTERNAL = 13,
    RPC_UNAVAILABLE = 14,
    RPC_DATA_LOSS = 15,
    RPC_UNAUTHENTICATED = 16,
} rpc_code;

/* A finished call's status. `message` is a NUL-terminated human sentence,
 * truncated to fit. */
typedef struct rpc_status {
    rpc_code code;
    char message[256];
    /* From the server's trailing metadata, "" when absent: its reason
     * (RPC_REASON_KEY) and, for a call to go elsewhere, where
     * (RPC_ENDPOINT_KEY). */
    char reason[48];
    char endpoint[128];
} rpc_status;

/* "INVALID_ARGUMENT" etc.; never NULL. */
const char *rpc_code_name(rpc_code code);

/* Process-wide setup and teardown (wrap grpc_init / grpc_shutdown).
 * rpc_shutdown() must run last, on the main thread. */
void rpc_init(void);
void rpc_shutdown(void);

/* gRPC's own log lines ("E1123 ... chttp2_server.cc:1045] ...") are for
 * whoever debugs gRPC; users should see the program's sentences only. With
 * verbose false they are dropped (all but the one gRPC writes before it
 * aborts on a failed assertion); with true they go to stderr in gRPC's own
 * format, at its own level (errors; GRPC_VERBOSITY=debug shows more), as
 * when this is never called. Process-wide; call it before rpc_init(). */
void rpc_set_verbose(bool verbose);

/* Keepalive and limits. Zero fields take the defaults noted. */
typedef struct rpc_keepalive {
    int time_ms;              /* ping an idle connection after this (default 10000) */
    int timeout_ms;           /* drop it if the ping is unanswered (default 5000) */
    int min_recv_ping_ms;     /* server: fastest client ping it tolerates (default 5000) */
} rpc_keepalive;

/* A method of a service: protoc-c's descriptor plus whether it streams. */
typedef struct rpc_method {
    const ProtobufCServiceDescriptor *service;
    unsigned index;           /* into service->methods */
    bool server_streaming;
} rpc_method;

/* The method called `name` of `service`, found by its name rather than its
 * place in the .proto. A name the descriptor lacks means the program does
 * not match its own .proto: that is reported on stderr and the process
 * aborts at the first use, which every test reaches. */
rpc_method rpc_method_named(const ProtobufCServiceDescriptor *service, const char *name,
                            bool server_streaming);

/* ------------------------------------------------------------------------ */
/* Server                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct rpc_server rpc_server;
typedef struct rpc_call rpc_call;       /* one incoming call, unary or streaming */

/*
 * Called on the polling thread when a call has arrived and its request message
 * has been decoded. The handler must eventually finish the call exactly once:
 *   unary:     rpc_call_reply() or rpc_call_finish();
 *   streaming: any number of rpc_call_send(), then rpc_call_finish().
 * It may do so inside the handler or later (from the polling thread).
 * `request` is owned by the call and stays valid until the call is released.
 */
typedef void (*rpc_handler)(rpc_call *call, unsigned method_index,
                            const ProtobufCMessage *request, void *user);

/*
 * Called once per call, on the polling thread, when the call is over for any
 * reason (finished and sent, client cancelled or vanished, deadline, server
 * shutdown). `client_gone` is true when the client cancelled or the connection
 * dropped before we finished. After this returns the rpc_call pointer is
 * invalid; do not touch it again. Set it with rpc_call_on_done().
 * (Clarification: a handler that keeps a call it never finishes — e.g. an
 * event subscription — learns here that it is over: when the client cancels,
 * its deadline passes, or its connection drops (keepalive notices a half-open
 * one), done runs with client_gone = true and the call is freed right after;
 * on server shutdown, with client_gone = false. A call that is never
 * finished and whose client never leaves stays open until rpc_server_destroy.
 * Calls that never reached a handler (unknown method, malformed request,
 * client gone before the request arrived) have no done callback.)
 */
typedef void (*rpc_done_cb)(rpc_call *call, bool client_gone, void *user);

/* TLS from PEM files; NULL fields are absent. */
typedef struct rpc_tls_files {
    const char *cert;      /* our certificate chain (a server needs one for TLS;
                            * a client may present one) */
    const char *key;       /* its private key */
    const char *ca;        /* server: CA of client certificates, which are then
                            * required; client: CA the server's certificate must
                            * chain to (NULL: the system's roots) */
} rpc_tls_files;

typedef struct rpc_server_options {
    rpc_tls_files tls;            /* TLS when tls.cert is set; else plaintext */
    rpc_keepalive keepalive;
    int max_message_bytes;        /* default 1 MiB, both directions... */
    int max_receive_bytes;        /* ...except requests, when set: gRPC refuses a
                                   * larger one with RESOURCE_EXHAUSTED before any
                                   * handler runs (it has been read in by then) */
    int max_streams_per_conn;     /* default 64 */
    size_t outbox_limit;          /* queued stream messages per call (default 1024) */
} rpc_server_options;

/*
 * Create a server listening on `addr` ("127.0.0.1:0" picks a free port).
 * On success returns 0, stores the server in *out and the bound port in *port.
 * `opts` may be NULL for the defaults (plaintext). Fails (-1) when a TLS file
 * cannot be read, or the address cannot be bound: in use (SO_REUSEPORT is
 * off, so a port another server holds is refused), invalid, or not this
 * machine's. gRPC only logs which; a caller that wants to say why probes
 * the address itself.
 */
int rpc_server_create(const char *addr, const rpc_server_options *opts,
                      rpc_server **out, int *port);

/*
 * Register a service before rpc_server_start(). `streaming` is a NULL-terminated
 * list of method names (as in the .proto) that are server-streaming; NULL means
 * none. Requests for methods not registered are answered UNIMPLEMENTED;
 * undecodable requests INVALID_ARGUMENT — the handler is not called for either.
 * The descriptor must outlive the server.
 */
int rpc_server_add_service(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                           const char *const *streaming, rpc_handler handler,
                           void *user);

/*
 * The same, with one entry per method found by its name, so the handlers
 * follow the names in the .proto and not the order of its methods. Every
 * method of `svc` must have exactly one entry and every entry must name a
 * method: otherwise -1, with the missing or unknown name logged, so a
 * renamed, added or reordered method fails at start-up instead of routing
 * calls to the wrong handler. `entries` must outlive the server.
 */
typedef void (*rpc_method_handler)(rpc_call *call, const ProtobufCMessage *request,
                                   void *user);
typedef struct rpc_method_entry {
    const char *name;              /* "Subscribe", as in the .proto */
    rpc_method_handler handler;
    bool server_streaming;
    bool batched;                  /* the turn hook does not run before it */
    bool client_streaming;         /* the client sends a stream too (rpc_call_on_message) */
} rpc_method_entry;
int rpc_server_add_methods(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                           const rpc_method_entry *entries, size_t n_entries, void *user);

/*
 * A TLS server's certificate chain and key (and client CA) read again from
 * tls's files and served from the next TLS handshake on; connections already
 * open keep theirs. Polling thread (or before rpc_server_start). gRPC asks
 * for the certificate from its own threads at every handshake: the new one
 * waits for it under a mutex. Returns 0; -1 when the server is in plaintext
 * (TLS or not is chosen at rpc_server_create) or a file cannot be read (the
 * old certificate stays). The files are read, not checked: the caller checks
 * that the key is the certificate's.
 */
int rpc_server_reload_tls(rpc_server *srv, const rpc_tls_files *tls);

/*
 * The turn hook (Redis's beforeSleep): runs on the polling thread at the end
 * of every rpc_server_poll() that handled a completion, and also before each
 * handler (except those of `batched` entries) and each done callback. Work a
 * turn's handlers leave pending (the board service's moves, written in one
 * transaction) is finished there, in one place, before anything else reads
 * or answers: no handler can forget it. Set before rpc_server_start().
 */
void rpc_server_set_turn_hook(rpc_server *srv, void (*hook)(void *user), void *user);

/* The hook run at the end of a poll instead of the turn hook, when set: for
 * work a turn may leave under way (the board service's commit sent and not
 * waited for) as long as the turn hook, before every other handler and
 * done callback, still finishes it. Set before rpc_server_start(). */
void rpc_server_set_turn_end_hook(rpc_server *srv, void (*hook)(void *user), void *user);

/* Send what a turn queued for calls multiplexed on one stream
 * (SubscribeMany's legs), as the end of every poll does: for the polling
 * thread's work done between polls (a commit landed then). */
void rpc_server_flush(rpc_server *srv);

/* The polling thread's time (seconds, CLOCK_MONOTONIC) at which the last
 * rpc_server_poll() that handled a completion got its first one: 0 when the
 * last poll only waited. With the time after the turn hook, the work of one
 * turn without its wait (the board service's loop turn duration). */
double rpc_server_turn_started(const rpc_server *srv);

/* Called on the polling thread for every call finished with a status other
 * than OK through rpc_call_finish_reason or rpc_call_finish_elsewhere (the
 * program's refusals, with their reason; NULL when none was given), before
 * the status is sent. For counting (metrics); it must not touch the call.
 * Set before rpc_server_start(). */
void rpc_server_set_refusal_hook(rpc_server *srv,
                                 void (*hook)(void *user, rpc_code code, const char *reason),
                                 void *user);

/* Called on the polling thread for every call whose request decoded, before
 * its handler (and before the turn hook): true lets it through; false means
 * the hook finished the call (a refusal) and no handler runs. For what every
 * call must pass whatever its method (the board service's banned addresses).
 * Side methods (health) do not pass through it. Set before rpc_server_start(). */
void rpc_server_set_admit_hook(rpc_server *srv, bool (*hook)(void *user, rpc_call *call),
                               void *user);

/*
 * A unary method answered on a thread of its own instead of by
 * rpc_server_poll(): for what must be answered while the polling thread is
 * busy or stuck (a health check asks whether that thread is alive). `answer`
 * runs on the side thread, one call at a time, concurrently with the polling
 * thread: it may read only what any thread may read (atomics). It fills
 * `reply` (initialised for the method's output type; strings it sets are
 * not freed) and returns RPC_OK, or a code and a sentence in why[whylen].
 * Requests that do not decode or hold invalid UTF-8 are refused before it
 * runs. Before rpc_server_start(); at most 8 side methods per server. The
 * method is then never routed to the service added for its descriptor.
 */
typedef rpc_code (*rpc_side_answer)(const ProtobufCMessage *request, ProtobufCMessage *reply,
                                    char *why, size_t whylen, void *user);
int rpc_server_add_side_method(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                               const char *method, rpc_side_answer answer, void *user);

/*
 * A server-streaming method answered on the side thread, the same way: a
 * stream that sends `answer`'s reply at once, then again whenever it
 * changes. `answer` (as above, on the side thread, from atomics only) is
 * asked again about ten times a second for every open stream, and a reply
 * is sent when its bytes differ from the last one sent, so a change is seen
 * within about 100 ms, and a value that goes and comes back between two
 * asks is not seen. An answer other than RPC_OK ends the stream with that
 * code and sentence. The stream ends when the client leaves or the server
 * shuts down. Streams open at once are capped in all and per client address
 * (IPv6 by prefix, address.h): a call past a cap is refused with
 * RESOURCE_EXHAUSTED and a sentence naming the cap. Counts against the
 * 8 side methods.
 */
typedef struct rpc_side_stream_limits {
    int max_streams;           /* open at once, all clients (>= 1) */
    int max_per_address;       /* open at once from one client address (>= 1) */
    int ipv6_prefix;           /* an IPv6 client's address is its first N bits (1..128) */
    const char *flag;          /* the option setting max_streams, named when it is hit */
} rpc_side_stream_limits;
int rpc_server_add_side_stream(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                               const char *method, rpc_side_answer answer,
                               const rpc_side_stream_limits *limits, void *user);

/*
 * A bidirectional stream answered on the side thread: each request the
 * client sends is answered by `answer` (as above) with one reply, in order
 * (the next request is read once the reply is sent); when the client is
 * done sending, the stream ends OK. An answer other than RPC_OK ends the
 * stream with that code and sentence. Capped as side streams are.
 * service_name: served under that service's name instead of svc's, for
 * the same messages under another package (NULL: svc's). Counts against the
 * 8 side methods.
 */
int rpc_server_add_side_bidi(rpc_server *srv, const ProtobufCServiceDescriptor *svc,
                             const char *method, const char *service_name,
                             rpc_side_answer answer, const rpc_side_stream_limits *limits,
                             void *user);

int rpc_server_start(rpc_server *srv);

/*
 * Run completions for up to `timeout_ms` (0: only what is ready; -1: wait until
 * something happens). Returns after at least one completion was handled or the
 * timeout passed. Handlers and done callbacks run inside this call.
 * Returns 0, or -1 once the server has shut down completely.
 * (Clarification: also -1 before rpc_server_start(). A wake from
 * rpc_server_wake() ends the wait early with 0.)
 */
int rpc_server_poll(rpc_server *srv, int timeout_ms);

/* Thread-safe: make a blocked rpc_server_poll() return soon (e.g. from a signal
 * watcher thread). Not async-signal-safe.
 * (Clarification: "soon" is within 100 ms — gRPC 1.51's C API cannot post to a
 * completion queue, so poll waits in slices and checks a flag. A wake sent
 * while nobody polls makes the next poll return at once. The caller must know
 * the server still exists: do not race it with rpc_server_destroy.) */
void rpc_server_wake(rpc_server *srv);

/* Calls whose request never arrived since the last time this was asked
 * (then 0 again): gRPC refused it past max_receive_bytes, or its client left
 * while sending it. gRPC 1.51 reads a request whole before it checks its
 * size, so each may have held up to what its client could send before being
 * refused; the memory is freed by gRPC's own threads, into their arenas.
 * Polling thread only. */
size_t rpc_server_take_lost_requests(rpc_server *srv);

/*
 * Shut down: stop accepting calls, cancel every open call (their done callbacks
 * run, with client_gone = false), drain the queue, and free the server.
 * Call from the polling thread. Safe with streams open.
 * (Clarification: not from inside a handler or done callback. Also fine for a
 * server that was created but never started.)
 */
void rpc_server_destroy(rpc_server *srv);

/* --- calls, on the polling thread only --- */

void rpc_call_on_done(rpc_call *call, rpc_done_cb cb, void *user);

/* Copy the first value of metadata `key` (lower-case) into buf; returns its
 * length, or -1 when absent (buf then holds ""). Truncates to len-1.
 * (Clarification: the length returned is the value's full length, as with
 * snprintf, so a result >= len means it was truncated. Same for
 * rpc_call_bearer. Binary "-bin" values are copied as raw bytes.) */
int rpc_call_metadata(const rpc_call *call, const char *key, char *buf, size_t len);

/* The token from "authorization: Bearer <token>", or -1 if absent/malformed.
 * (Clarification: the scheme is case-insensitive, one or more spaces follow
 * it, and the token is non-empty printable ASCII with no spaces.) */
int rpc_call_bearer(const rpc_call *call, char *buf, size_t len);

/* "ipv4:127.0.0.1:5555"-style peer address (may be "" when unknown). */
const char *rpc_call_peer(const rpc_call *call);

/* Unary: send `reply` (serialized immediately; the caller keeps ownership)
 * with status OK and finish the call. Returns 0, or -1 if already finished. */
int rpc_call_reply(rpc_call *call, const ProtobufCMessage *reply);

/*
 * Streaming: queue `msg` (serialized immediately; caller keeps ownership).
 * At most one send is in flight; the rest wait in the outbox in order.
 * Returns 0; -1 if the call is finished or the client is gone; -2 if the outbox
 * is full (the message was not queued — the caller decides whether to cut the
 * subscriber off with rpc_call_finish).
 */
int rpc_call_send(rpc_call *call, const ProtobufCMessage *msg);

/* As rpc_call_send, for a message already serialized (the service packs each
 * event once for its log and sends those bytes to every subscriber). */
int rpc_call_send_packed(rpc_call *call, const void *data, size_t len);

/* Messages queued but not yet sent (including the one in flight). */
size_t rpc_call_outbox_len(const rpc_call *call);

/*
 * End the call with a status (after any queued stream messages are sent;
 * RPC_OK for a normal stream end, an error code + sentence otherwise).
 * Returns 0, or -1 if already finished. The done callback follows later.
 */
int rpc_call_finish(rpc_call *call, rpc_code code, const char *message);

/* The trailing metadata key of an error's reason: a short UPPER_SNAKE_CASE
 * word a program can act on ("NOT_YOUR_TURN") beside the sentence a person
 * reads. The server's own refusals (a malformed or non-UTF-8 request, an
 * unknown method) carry one too. */
#define RPC_REASON_KEY "sungka-error-reason"

/* As rpc_call_finish, with `reason` (copied; static or not) sent as
 * RPC_REASON_KEY trailing metadata. */
int rpc_call_finish_reason(rpc_call *call, rpc_code code, const char *reason,
                           const char *message);

/* The trailing metadata key of the endpoint ("HOST:PORT") a client should
 * make this call to instead: a cluster's game lives on another node. */
#define RPC_ENDPOINT_KEY "sungka-endpoint"

/* As rpc_call_finish_reason, also naming the endpoint (copied) to go to. */
int rpc_call_finish_elsewhere(rpc_call *call, rpc_code code, const char *reason,
                              const char *endpoint, const char *message);

/*
 * Multiplexed streams. One server-streaming call may carry many logical
 * streams, "legs", for a client that holds many subscriptions at once (an
 * agent or a relay). Every message on such a call is an envelope:
 *     message Envelope {
 *       repeated uint32 legs = 1;   // packed: the legs the payload is for
 *       bytes payload = 2;          // the message, as a call would have sent it
 *       LegEnded ended = 3;         // instead of a payload: one leg ended
 *     }
 *     message LegEnded { uint32 leg = 1; int32 code = 2; string reason = 3;
 *                        string message = 4; }
 * The same payload sent to several legs of one call within one poll turn
 * goes out once, naming them all: one write carries a crowd's event.
 *
 * rpc_call_open_leg returns a leg numbered `id` on `call` (a streaming call
 * of the handler's, not itself a leg), or NULL when out of memory or the call
 * is finished. A leg is an rpc_call: send, send_packed, reply, finish,
 * finish_reason and on_done work on it; peer and metadata are the call's, and
 * so is the outbox (its limit counts every leg's envelopes). A leg's done
 * callback runs when the call ends, with the call's client_gone. Finishing a
 * leg queues its LegEnded (past the outbox limit: at most one per leg); its
 * done callback will not run and the leg is not to be used again (its memory
 * lives until the call's). The call ends with OK once its last leg is
 * finished. The call's own handler may finish it at any time; its open legs'
 * done callbacks then run.
 */
rpc_call *rpc_call_open_leg(rpc_call *call, uint32_t id);

/*
 * Bidirectional streams: a method entry with client_streaming (and
 * server_streaming) has its handler called for the client's first message,
 * as any stream's is. The handler (or later code, polling thread) sets
 * rpc_call_on_message to receive the messages that follow: each is decoded
 * and checked as a request is (a malformed one, a NUL in a string or bad
 * UTF-8 finish the call INVALID_ARGUMENT, reason BAD_REQUEST or NOT_UTF8)
 * and handed to cb, which owns it only during the call, one at a time. The
 * turn hook runs before cb unless the entry is `batched`.
 *
 * Flow control: the next message is read only after cb has returned and
 * while the call's outbox holds fewer than RPC_INBOX_OUTBOX_ROOM messages.
 * A client that sends without reading what it is sent therefore fills
 * HTTP/2's window and is pushed back by its own transport: the server holds
 * at most one of its messages and a bounded outbox. cb gets NULL once the
 * client half-closes (it sends nothing more; the call goes on until it is
 * finished or the client leaves). No message callback: nothing more is
 * read after the first message.
 */
#define RPC_INBOX_OUTBOX_ROOM 32
typedef void (*rpc_message_cb)(rpc_call *call, const ProtobufCMessage *msg, void *user);
/* release (may be NULL) is called with user once, when the call is freed
 * (after its done callback, whether or not that was unhooked), or when a
 * later rpc_call_on_message replaces user: the call's own state lives as
 * long as the call. On a call whose entry is not client_streaming, cb is
 * never called (release still is). Polling thread. */
void rpc_call_on_message(rpc_call *call, rpc_message_cb cb, void *user,
                         void (*release)(void *user));

/* ------------------------------------------------------------------------ */
/* Client                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct rpc_client rpc_client;
typedef struct rpc_stream rpc_stream;   /* an outgoing server-streaming call */

/* Metadata of the caller's own, beside the token: lower-case ASCII keys,
 * printable ASCII values (gRPC refuses others: the call then returns -1).
 * Both strings are copied; at most RPC_MAX_HEADERS per call, counting a
 * client's own (rpc_client_options.headers). */
#define RPC_MAX_HEADERS 4
#define RPC_CLIENT_HEADERS 2           /* a client's own, on every call */
#define RPC_CLIENT_HEADER_KEY 32       /* bytes of such a key, NUL included */
#define RPC_CLIENT_HEADER_VALUE 160    /* ... and of its value */
typedef struct rpc_header {
    const char *key;
    const char *value;
} rpc_header;

typedef struct rpc_client_options {
    bool use_tls;                 /* TLS (verifying the server) rather than plaintext */
    rpc_tls_files tls;            /* ca: the roots; cert/key: a client certificate */
    const char *tls_server_name;  /* the name the server's certificate must carry,
                                   * when it is not the target's host */
    const char *tls_roots_pem;    /* the roots as PEM text, instead of the tls.ca
                                   * file (a pinned certificate); copied */
    rpc_keepalive keepalive;      /* time_ms must not be below the server's min_recv_ping_ms */
    int max_message_bytes;        /* default 1 MiB */
    int connect_timeout_ms;       /* default 5000 */
    rpc_header headers[RPC_CLIENT_HEADERS];   /* sent on every call of the client,
                                   * after the call's own (copied by
                                   * rpc_client_create; longer than
                                   * RPC_CLIENT_HEADER_* fails it; a pool
                                   * creates clients later, so its strings
                                   * must live as long as the pool): a
                                   * gateway's relay key (relay_key.h) */
    size_t n_headers;
} rpc_client_options;

/*
 * Open a channel to `target` ("host:port") and start the client thread that
 * runs every callback below. `opts` may be NULL. Returns 0 and *out, or -1.
 * (Connecting is lazy, as in gRPC: a dead target shows up as UNAVAILABLE on
 * the first call.)
 */
int rpc_client_create(const char *target, const rpc_client_options *opts,
                      rpc_client **out);

/*
 * Cancel every outstanding call and stream (their callbacks still run, with
 * CANCELLED), join the client thread, free everything. Must not be called from
 * a client callback.
 */
void rpc_client_destroy(rpc_client *cli);

/* Completion of a unary call, on the client thread. `reply` is NULL unless
 * status->code == RPC_OK; the callback owns it and frees it with
 * protobuf_c_message_free_unpacked(reply, NULL). */
typedef void (*rpc_reply_cb)(const rpc_status *status, ProtobufCMessage *reply,
                             void *user);

/*
 * Start a unary call. Thread-safe (any thread, including the client thread).
 * `token` (may be NULL) is sent as "authorization: Bearer <token>".
 * `timeout_ms` > 0 sets a deadline. Returns 0 and `cb` runs exactly once later;
 * returns -1 and `cb` never runs.
 */
int rpc_client_call(rpc_client *cli, const rpc_method *method,
                    const ProtobufCMessage *request, const char *token,
                    int timeout_ms, rpc_reply_cb cb, void *user);

/* rpc_client_call, also sending `headers` (n_headers of them). */
int rpc_client_call_headers(rpc_client *cli, const rpc_method *method,
                            const ProtobufCMessage *request, const char *token,
                            const rpc_header *headers, size_t n_headers, int timeout_ms,
                            rpc_reply_cb cb, void *user);

/* A reply callback for a call whose answer nobody reads (a ping's): it
 * frees the reply. */
void rpc_reply_drop(const rpc_status *status, ProtobufCMessage *reply, void *user);

/*
 * Blocking unary call from any thread except the client thread. On return
 * *status is filled; *reply is set (caller frees) only when the code is RPC_OK.
 * Returns 0 when status->code == RPC_OK, -1 otherwise.
 * (Clarification: called on the client thread it returns -1 at once with
 * RPC_INTERNAL. With timeout_ms <= 0 it waits for as long as the server takes,
 * or until rpc_client_destroy cancels it from another thread.)
 */
int rpc_client_call_sync(rpc_client *cli, const rpc_method *method,
                         const ProtobufCMessage *request, const char *token,
                         int timeout_ms, ProtobufCMessage **reply,
                         rpc_status *status);

/*
 * Pools: channels to the nodes of a cluster, one in use. A client of a
 * cluster names several nodes ("a:7070,b:7070"), any of which answers for
 * all; a node may answer that a call belongs at another
 * (rpc_status.endpoint). The pool moves there (rpc_pool_follow), or to the
 * next address given when the node in use does not answer. Channels are
 * made on first use and kept until rpc_pool_destroy. Thread-safe.
 */
#define RPC_ADDRESS_BYTES 128
typedef struct rpc_pool rpc_pool;

/* Whether target reads as an address: "HOST:PORT" (an IPv6 host in
 * brackets), or a gRPC target with a scheme ("unix:PATH",
 * "dns:///HOST:PORT"), left to gRPC. Said here, because gRPC would try to
 * resolve almost anything and fail in its own words. */
bool rpc_target_ok(const char *target);

/* addresses: one or more "host:port" separated by commas; the first in use.
 * opts (may be NULL) is copied; the strings it points to must outlive the
 * pool. 0, or -1 (an address that is none (rpc_target_ok), too long, too
 * many, or none at all). */
int rpc_pool_create(const char *addresses, const rpc_client_options *opts, rpc_pool **out);
/* rpc_client_destroy of every channel made; not from a client callback. */
void rpc_pool_destroy(rpc_pool *p);
/* The channel in use, and its address (copied into buf; returns buf). The
 * channel stays valid until rpc_pool_destroy. */
rpc_client *rpc_pool_client(rpc_pool *p);
const char *rpc_pool_address(rpc_pool *p, char *buf, size_t len);
/* Use the node at address (made if new): 0, or -1. */
int rpc_pool_go_to(rpc_pool *p, const char *address);
/* The channel to address (learned if new), without moving the pool: for a
 * caller with several games on several nodes at once (a relay), each
 * kept where its own game is. NULL when it cannot be made or the pool is
 * full. Valid until rpc_pool_destroy. */
rpc_client *rpc_pool_client_at(rpc_pool *p, const char *address);
/* Use the next address given (the first, from a node a call named); false
 * when there is no other. */
bool rpc_pool_next(rpc_pool *p);
/* Use the first address given again. */
void rpc_pool_go_to_first(rpc_pool *p);
/* After a failed call: go where st says (its endpoint), or, when the node
 * did not answer (UNAVAILABLE), to the next address given. True when the
 * pool moved, so the call may succeed if made again. */
bool rpc_pool_follow(rpc_pool *p, const rpc_status *st);

/* One streamed message, on the client thread; the callback owns `msg` and
 * frees it with protobuf_c_message_free_unpacked(msg, NULL). */
typedef void (*rpc_stream_msg_cb)(ProtobufCMessage *msg, void *user);
/* The stream ended (server finished, error, or cancelled), on the client
 * thread, exactly once; after it returns the rpc_stream is freed. */
typedef void (*rpc_stream_end_cb)(const rpc_status *status, void *user);

/*
 * Open a server stream (no deadline: it is long-lived). Thread-safe.
 * Returns 0 and *out (a handle good for rpc_stream_cancel until end_cb runs);
 * -1 if it could not start (then no callback runs).
 */
int rpc_client_stream(rpc_client *cli, const rpc_method *method,
                      const ProtobufCMessage *request, const char *token,
                      rpc_stream_msg_cb on_msg, rpc_stream_end_cb on_end,
                      void *user, rpc_stream **out);
/* rpc_client_stream, also sending `headers` (rpc_client_call_headers). */
int rpc_client_stream_headers(rpc_client *cli, const rpc_method *method,
                              const ProtobufCMessage *request, const char *token,
                              const rpc_header *headers, size_t n_headers,
                              rpc_stream_msg_cb on_msg, rpc_stream_end_cb on_end, void *user,
                              rpc_stream **out);

/*
 * A bidirectional stream (a method the server reads a stream of, as
 * Board.Play): as rpc_client_stream, with `first` its first message, but
 * the client does not half-close: rpc_stream_send sends more. on_msg and
 * on_end run as for rpc_client_stream.
 */
int rpc_client_bidi(rpc_client *cli, const rpc_method *method, const ProtobufCMessage *first,
                    const char *token, rpc_stream_msg_cb on_msg, rpc_stream_end_cb on_end,
                    void *user, rpc_stream **out);

/* Send msg (serialized now; the caller keeps it) on a bidirectional
 * stream: one send in flight at a time, the rest queued in order (a caller
 * that sends faster than the server reads holds its queue: gRPC's flow
 * control). 0; -1 when the stream is not bidirectional, has ended, or
 * memory ran out. Thread-safe, under rpc_stream_cancel's rule: the caller
 * knows end_cb has not returned. */
int rpc_stream_send(rpc_stream *stream, const ProtobufCMessage *msg);

/* Thread-safe, idempotent: cancel the stream; end_cb follows with CANCELLED.
 * Must not be called after end_cb has returned.
 * (Clarification: from a thread other than the client thread, the caller must
 * itself know that end_cb has not returned yet — e.g. end_cb sets a flag under
 * the caller's lock — since end_cb may run, and the stream be freed, as soon
 * as the stream ends for any reason. From the client thread, inside a
 * callback of this stream, it is always safe.) */
void rpc_stream_cancel(rpc_stream *stream);

/* ------------------------------------------------------------------------ */
/* Text in messages                                                         */
/* ------------------------------------------------------------------------ */

/* protobuf-c does not check that `string` fields hold UTF-8, and every other
 * language's protobuf runtime refuses a message where one does not. The
 * server refuses such a request itself (INVALID_ARGUMENT, naming the field)
 * before any handler sees it. Both functions walk nested messages, repeated
 * fields and the set member of each oneof. Any thread; msg is the caller's. */

/* 0 when every string of msg is strict UTF-8; -1 with the first bad field
 * ("sungka.v1.ChatRequest.text") in where. */
int rpc_message_check_utf8(const ProtobufCMessage *msg, char *where, size_t len);

/* protobuf carries a string's length; protobuf-c hands it on as a C string,
 * which ends at its first NUL: "secret\0x" would be read as "secret". The
 * server therefore refuses, before any handler (INVALID_ARGUMENT, naming the
 * field, never its value), a request whose serialized bytes (data, len) hold
 * a NUL inside any string field of desc's message or of the messages nested
 * in it. 0 when none does; -1 with the first such field
 * ("sungka.v1.SignInRequest.password") in where. Bytes that do not parse
 * are left to the decoder: 0. Any thread. */
int rpc_wire_check_nul(const ProtobufCMessageDescriptor *desc, const void *data, size_t len,
                       char *where, size_t wlen);

/* Replace every string of msg that is not safe to show (invalid UTF-8,
 * control, bidi or invisible characters; common/text.h) with its escaped
 * form, in place. msg must come from protobuf_c_message_unpack with the
 * default allocator (its strings are malloc'ed). Returns how many strings
 * changed, or -1 when out of memory (msg is still whole and freeable). */
int rpc_message_escape_text(ProtobufCMessage *msg);

#ifdef __cplusplus
}
#endif

#endif /* SUNGKA_RPC_H */
