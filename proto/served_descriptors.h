/*
 * served_descriptors.h — every .proto file the board service serves
 * (every file under proto/sungka/, the health and reflection protocols) and their
 * imports, compiled at build time into one FileDescriptorSet
 * (`protoc-c --descriptor_set_out --include_imports`, proto/CMakeLists.txt)
 * and built into the program, so that server reflection answers from what
 * the program was compiled with. Read-only: any thread.
 */
#ifndef SUNGKA_SERVED_DESCRIPTORS_H
#define SUNGKA_SERVED_DESCRIPTORS_H

#include <stddef.h>

/* A serialized google.protobuf.FileDescriptorSet, _len bytes (followed by
 * one byte more, 0, not part of it). */
extern const unsigned char sungka_served_descriptors[];
extern const size_t sungka_served_descriptors_len;

#endif /* SUNGKA_SERVED_DESCRIPTORS_H */
