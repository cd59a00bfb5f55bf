/*
 * test_rpc_text.c — a NUL inside a string field, found in the serialized
 * bytes (rpc_wire_check_nul) before protobuf-c turns the string into a C
 * string that would end at it: top-level and nested strings, while NUL bytes
 * in numbers, in packed numbers and in fields the message does not know are
 * none of its business.
 */
#include "rpc_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* Req{text} serialized by protobuf-c, so the test's bytes are real ones. */
static size_t pack_req(const char *text, size_t len, uint8_t *out)
{
    out[0] = 0x0a;                          /* field 1, length-delimited */
    out[1] = (uint8_t)len;
    memcpy(out + 2, text, len);
    return len + 2;
}

static void top_level_string(void **state)
{
    (void)state;
    uint8_t buf[64];
    char where[128] = "";
    size_t n = pack_req("secret\0x", 8, buf);
    assert_int_equal(rpc_wire_check_nul(&rpctest__req__descriptor, buf, n, where, sizeof where),
                     -1);
    assert_string_equal(where, "rpctest.Req.text");
    n = pack_req("secret x", 8, buf);
    assert_int_equal(rpc_wire_check_nul(&rpctest__req__descriptor, buf, n, where, sizeof where),
                     0);
    /* what protobuf-c itself packs is read the same way */
    Rpctest__Req req = RPCTEST__REQ__INIT;
    req.text = "correct horse battery";
    n = rpctest__req__pack(&req, buf);
    assert_int_equal(rpc_wire_check_nul(&rpctest__req__descriptor, buf, n, where, sizeof where),
                     0);
    buf[5] = '\0';                          /* inside the string */
    assert_int_equal(rpc_wire_check_nul(&rpctest__req__descriptor, buf, n, where, sizeof where),
                     -1);
}

static void nested_string(void **state)
{
    (void)state;
    Rpctest__LegEnded ended = RPCTEST__LEG_ENDED__INIT;
    ended.leg = 0;
    ended.reason = "ab";
    ended.message = "fine";
    uint32_t legs[] = {0, 256, 0};          /* packed: holds zero bytes, not text */
    Rpctest__Envelope env = RPCTEST__ENVELOPE__INIT;
    env.n_legs = 3;
    env.legs = legs;
    env.ended = &ended;
    uint8_t buf[128];
    size_t n = rpctest__envelope__pack(&env, buf);
    char where[128] = "";
    assert_int_equal(rpc_wire_check_nul(&rpctest__envelope__descriptor, buf, n, where,
                                        sizeof where), 0);
    uint8_t *b = memchr(buf, 'b', n);
    assert_non_null(b);
    *b = '\0';                              /* "a\0": two bytes still, cut to one in C */
    assert_int_equal(rpc_wire_check_nul(&rpctest__envelope__descriptor, buf, n, where,
                                        sizeof where), -1);
    assert_string_equal(where, "rpctest.LegEnded.reason");
}

static void not_strings(void **state)
{
    (void)state;
    char where[128] = "";
    /* Rep{seq = 0x100}: the varint's bytes are 0x80 0x02; then a field 9 the
     * message does not know, length-delimited, holding a NUL. */
    const uint8_t rep[] = {0x10, 0x80, 0x02, 0x4a, 0x02, 'a', 0x00};
    assert_int_equal(rpc_wire_check_nul(&rpctest__rep__descriptor, rep, sizeof rep, where,
                                        sizeof where), 0);
    /* a fixed64 (field 3) and a fixed32 (field 4) full of zero bytes */
    const uint8_t fixed[] = {0x19, 0, 0, 0, 0, 0, 0, 0, 0, 0x25, 0, 0, 0, 0};
    assert_int_equal(rpc_wire_check_nul(&rpctest__rep__descriptor, fixed, sizeof fixed, where,
                                        sizeof where), 0);
    /* cut short: the decoder will say it is malformed, not this */
    const uint8_t cut[] = {0x0a, 0x09, 's', 0x00};
    assert_int_equal(rpc_wire_check_nul(&rpctest__req__descriptor, cut, sizeof cut, where,
                                        sizeof where), 0);
    assert_int_equal(rpc_wire_check_nul(&rpctest__req__descriptor, NULL, 0, where,
                                        sizeof where), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(top_level_string),
        cmocka_unit_test(nested_string),
        cmocka_unit_test(not_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
