/*
 * reflection.c — gRPC server reflection (grpc.reflection.v1alpha and v1,
 * ServerReflectionInfo), so that grpcurl-style tools list the services and
 * call their methods without the .proto files: answered from the
 * descriptors the program was compiled with (proto/served_descriptors.h),
 * on rpc's side thread (rpc_server_add_side_bidi), so that it neither waits
 * for nor holds up the loop.
 *
 * At init the FileDescriptorSet is decoded once and everything an answer
 * needs is made then: each file's bytes, and for each file the response
 * that carries it with its imports (transitively, each once: a client gets
 * all it needs in one answer); the list of services; a table of every
 * symbol a client may name (packages' messages, nested ones, enums,
 * services and their methods) and the file that declares it. All of it is
 * read-only from then on, so the side thread reads it without a lock; an
 * answer only points into it (the side thread packs the answer before the
 * next one is made), apart from the error response, which is the side
 * thread's own (one answer at a time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_rpc.h"
#include "google/protobuf/descriptor.pb-c.h"
#include "grpc/reflection/v1alpha/reflection.pb-c.h"
#include "served_descriptors.h"

typedef Grpc__Reflection__V1alpha__ServerReflectionRequest Request;
typedef Grpc__Reflection__V1alpha__ServerReflectionResponse Response;
typedef Grpc__Reflection__V1alpha__FileDescriptorResponse FilesResponse;

/* gRPC's status codes, as the reflection protocol's error_code. */
enum { NOT_FOUND = 5, UNIMPLEMENTED = 12, INVALID_ARGUMENT = 3 };

struct symbol {
    char *name;                    /* fully qualified, without a leading dot */
    size_t file;                   /* the file declaring it */
    bool message;                  /* a message type (extension numbers: none) */
};

struct board_reflection {
    Google__Protobuf__FileDescriptorSet *set;
    ProtobufCBinaryData *bytes;    /* each file's FileDescriptorProto, packed */
    FilesResponse *with_imports;   /* each file's answer: it, then what it imports */
    Grpc__Reflection__V1alpha__ListServiceResponse services;
    Grpc__Reflection__V1alpha__ServiceResponse *service_names;
    struct symbol *symbols;
    size_t n_symbols, cap_symbols;
    /* The side thread's, one answer at a time. */
    Grpc__Reflection__V1alpha__ErrorResponse error;
    Grpc__Reflection__V1alpha__ExtensionNumberResponse no_extensions;
    char error_text[300];
};

static int add_symbol(struct board_reflection *rf, const char *scope, const char *name,
                      size_t file, bool message)
{
    if (rf->n_symbols == rf->cap_symbols) {
        size_t cap = rf->cap_symbols ? rf->cap_symbols * 2 : 64;
        struct symbol *grown = realloc(rf->symbols, cap * sizeof *grown);
        if (!grown)
            return -1;
        rf->symbols = grown;
        rf->cap_symbols = cap;
    }
    size_t len = strlen(scope) + strlen(name) + 2;
    char *full = malloc(len);
    if (!full)
        return -1;
    snprintf(full, len, "%s%s%s", scope, scope[0] ? "." : "", name);
    rf->symbols[rf->n_symbols++] = (struct symbol){full, file, message};
    return 0;
}

static int add_enums(struct board_reflection *rf, const char *scope, size_t n,
                     Google__Protobuf__EnumDescriptorProto **enums, size_t file)
{
    for (size_t i = 0; i < n; i++)
        if (add_symbol(rf, scope, enums[i]->name, file, false) != 0)
            return -1;
    return 0;
}

/* A message, its enums and its nested messages, under scope. */
static int add_message(struct board_reflection *rf, const char *scope,
                       const Google__Protobuf__DescriptorProto *msg, size_t file)
{
    if (add_symbol(rf, scope, msg->name, file, true) != 0)
        return -1;
    /* Its own full name is the scope of what it holds (copied: the table
     * moves as it grows). */
    char *self = strdup(rf->symbols[rf->n_symbols - 1].name);
    if (!self)
        return -1;
    int rc = add_enums(rf, self, msg->n_enum_type, msg->enum_type, file);
    for (size_t i = 0; i < msg->n_nested_type && rc == 0; i++)
        rc = add_message(rf, self, msg->nested_type[i], file);
    free(self);
    return rc;
}

static int add_file_symbols(struct board_reflection *rf, size_t file)
{
    const Google__Protobuf__FileDescriptorProto *fd = rf->set->file[file];
    const char *pkg = fd->package ? fd->package : "";
    for (size_t i = 0; i < fd->n_message_type; i++)
        if (add_message(rf, pkg, fd->message_type[i], file) != 0)
            return -1;
    if (add_enums(rf, pkg, fd->n_enum_type, fd->enum_type, file) != 0)
        return -1;
    for (size_t i = 0; i < fd->n_service; i++) {
        const Google__Protobuf__ServiceDescriptorProto *sd = fd->service[i];
        if (add_symbol(rf, pkg, sd->name, file, false) != 0)
            return -1;
        char *svc_name = strdup(rf->symbols[rf->n_symbols - 1].name);
        if (!svc_name)
            return -1;
        for (size_t j = 0; j < sd->n_method; j++) {
            if (add_symbol(rf, svc_name, sd->method[j]->name, file, false) != 0) {
                free(svc_name);
                return -1;
            }
        }
        free(svc_name);
    }
    return 0;
}

static ssize_t file_named(const struct board_reflection *rf, const char *name)
{
    for (size_t i = 0; i < rf->set->n_file; i++)
        if (strcmp(rf->set->file[i]->name, name) == 0)
            return (ssize_t)i;
    return -1;
}

/* file i and, depth first, everything it imports, each once, into out. */
static void gather(const struct board_reflection *rf, size_t i, bool *seen, FilesResponse *out)
{
    if (seen[i])
        return;
    seen[i] = true;
    out->file_descriptor_proto[out->n_file_descriptor_proto++] = rf->bytes[i];
    const Google__Protobuf__FileDescriptorProto *fd = rf->set->file[i];
    for (size_t d = 0; d < fd->n_dependency; d++) {
        ssize_t j = file_named(rf, fd->dependency[d]);
        if (j >= 0)
            gather(rf, (size_t)j, seen, out);
    }
}

static void reflection_free(struct board_reflection *rf)
{
    if (!rf)
        return;
    size_t n = rf->set ? rf->set->n_file : 0;
    for (size_t i = 0; i < n; i++) {
        if (rf->bytes)
            free(rf->bytes[i].data);
        if (rf->with_imports)
            free(rf->with_imports[i].file_descriptor_proto);
    }
    free(rf->bytes);
    free(rf->with_imports);
    free(rf->services.service);
    free(rf->service_names);
    for (size_t i = 0; i < rf->n_symbols; i++)
        free(rf->symbols[i].name);
    free(rf->symbols);
    if (rf->set)
        protobuf_c_message_free_unpacked(&rf->set->base, NULL);
    free(rf);
}

/* Everything answers point into, made once. NULL when out of memory or the
 * built-in set does not decode (a build error). */
static struct board_reflection *reflection_make(void)
{
    struct board_reflection *rf = calloc(1, sizeof *rf);
    if (!rf)
        return NULL;
    rf->set = google__protobuf__file_descriptor_set__unpack(NULL, sungka_served_descriptors_len,
                                                           sungka_served_descriptors);
    size_t n = rf->set ? rf->set->n_file : 0;
    if (!rf->set || !(rf->bytes = calloc(n ? n : 1, sizeof *rf->bytes)) ||
        !(rf->with_imports = calloc(n ? n : 1, sizeof *rf->with_imports)))
        goto fail;
    size_t n_services = 0;
    for (size_t i = 0; i < n; i++) {
        ProtobufCMessage *fd = &rf->set->file[i]->base;
        rf->bytes[i].len = protobuf_c_message_get_packed_size(fd);
        if (!(rf->bytes[i].data = malloc(rf->bytes[i].len ? rf->bytes[i].len : 1)))
            goto fail;
        protobuf_c_message_pack(fd, rf->bytes[i].data);
        n_services += rf->set->file[i]->n_service;
        if (add_file_symbols(rf, i) != 0)
            goto fail;
    }
    bool *seen = calloc(n ? n : 1, sizeof *seen);
    if (!seen)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        FilesResponse *r = &rf->with_imports[i];
        grpc__reflection__v1alpha__file_descriptor_response__init(r);
        if (!(r->file_descriptor_proto = calloc(n, sizeof *r->file_descriptor_proto))) {
            free(seen);
            goto fail;
        }
        memset(seen, 0, n * sizeof *seen);
        gather(rf, i, seen, r);
    }
    free(seen);
    grpc__reflection__v1alpha__list_service_response__init(&rf->services);
    rf->service_names = calloc(n_services ? n_services : 1, sizeof *rf->service_names);
    rf->services.service = calloc(n_services ? n_services : 1, sizeof *rf->services.service);
    if (!rf->service_names || !rf->services.service)
        goto fail;
    for (size_t i = 0; i < rf->n_symbols; i++) {
        const struct symbol *s = &rf->symbols[i];
        const Google__Protobuf__FileDescriptorProto *fd = rf->set->file[s->file];
        for (size_t j = 0; j < fd->n_service; j++) {
            const char *pkg = fd->package ? fd->package : "";
            size_t pl = strlen(pkg);
            const char *rest = s->name + (pl ? pl + 1 : 0);
            if ((!pl || strncmp(s->name, pkg, pl) == 0) &&
                strcmp(rest, fd->service[j]->name) == 0) {
                Grpc__Reflection__V1alpha__ServiceResponse *sr =
                    &rf->service_names[rf->services.n_service];
                grpc__reflection__v1alpha__service_response__init(sr);
                sr->name = s->name;
                rf->services.service[rf->services.n_service++] = sr;
            }
        }
    }
    grpc__reflection__v1alpha__error_response__init(&rf->error);
    grpc__reflection__v1alpha__extension_number_response__init(&rf->no_extensions);
    return rf;
fail:
    reflection_free(rf);
    return NULL;
}

static const struct symbol *symbol_named(const struct board_reflection *rf, const char *name)
{
    if (name[0] == '.')
        name++;
    for (size_t i = 0; i < rf->n_symbols; i++)
        if (strcmp(rf->symbols[i].name, name) == 0)
            return &rf->symbols[i];
    return NULL;
}

static void error(struct board_reflection *rf, Response *res, int code, const char *fmt,
                  const char *what)
{
    snprintf(rf->error_text, sizeof rf->error_text, fmt, what);
    rf->error.error_code = code;
    rf->error.error_message = rf->error_text;
    res->message_response_case =
        GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_ERROR_RESPONSE;
    res->error_response = &rf->error;
}

static void files(struct board_reflection *rf, Response *res, size_t file)
{
    res->message_response_case = GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_FILE_DESCRIPTOR_RESPONSE;
    res->file_descriptor_response = &rf->with_imports[file];
}

/* rpc's side thread, one request at a time: from the tables made at init. */
static rpc_code answer(const ProtobufCMessage *request, ProtobufCMessage *reply, char *why,
                       size_t whylen, void *user)
{
    (void)why;
    (void)whylen;
    struct board_reflection *rf = ((board_service *)user)->reflection;
    const Request *req = (const void *)request;
    Response *res = (void *)reply;
    res->valid_host = req->host;
    res->original_request = (Request *)req;   /* packed before req is freed */
    const struct symbol *sym;
    ssize_t file;
    switch (req->message_request_case) {
    case GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_LIST_SERVICES:
        res->message_response_case = GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_LIST_SERVICES_RESPONSE;
        res->list_services_response = &rf->services;
        break;
    case GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_BY_FILENAME:
        if ((file = file_named(rf, req->file_by_filename)) < 0)
            error(rf, res, NOT_FOUND, "no file %s is served here", req->file_by_filename);
        else
            files(rf, res, (size_t)file);
        break;
    case GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_CONTAINING_SYMBOL:
        if (!(sym = symbol_named(rf, req->file_containing_symbol)))
            error(rf, res, NOT_FOUND, "no symbol %s is served here", req->file_containing_symbol);
        else
            files(rf, res, sym->file);
        break;
    case GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_FILE_CONTAINING_EXTENSION:
        error(rf, res, NOT_FOUND, "no extension of %s is served here (none are)",
              req->file_containing_extension && req->file_containing_extension->containing_type
                  ? req->file_containing_extension->containing_type : "");
        break;
    case GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_REQUEST__MESSAGE_REQUEST_ALL_EXTENSION_NUMBERS_OF_TYPE:
        sym = symbol_named(rf, req->all_extension_numbers_of_type);
        if (!sym || !sym->message) {
            error(rf, res, NOT_FOUND, "no message type %s is served here",
                  req->all_extension_numbers_of_type);
        } else {
            rf->no_extensions.base_type_name = sym->name;   /* and no numbers */
            res->message_response_case = GRPC__REFLECTION__V1ALPHA__SERVER_REFLECTION_RESPONSE__MESSAGE_RESPONSE_ALL_EXTENSION_NUMBERS_RESPONSE;
            res->all_extension_numbers_response = &rf->no_extensions;
        }
        break;
    default:
        error(rf, res, INVALID_ARGUMENT, "the request asks for nothing%s", "");
        break;
    }
    return RPC_OK;
}

int board_reflection_init(board_service *svc)
{
    svc->reflection = reflection_make();
    if (!svc->reflection)
        return -1;
    int quarter = svc->cfg.max_reflection_streams / 4;
    rpc_side_stream_limits limits = {
        .max_streams = svc->cfg.max_reflection_streams,
        .max_per_address = quarter > 0 ? quarter : 1,
        .ipv6_prefix = svc->cfg.ipv6_prefix,
        .flag = "--max-reflection-streams",
    };
    const ProtobufCServiceDescriptor *d = &grpc__reflection__v1alpha__server_reflection__descriptor;
    if (rpc_server_add_side_bidi(svc->server, d, "ServerReflectionInfo", NULL, answer, &limits,
                                 svc) != 0)
        return -1;
    /* v1: the same messages on the wire, under the newer package's name. */
    return rpc_server_add_side_bidi(svc->server, d, "ServerReflectionInfo",
                                    "grpc.reflection.v1.ServerReflection", answer, &limits, svc);
}

void board_reflection_free(board_service *svc)
{
    reflection_free(svc->reflection);
    svc->reflection = NULL;
}
