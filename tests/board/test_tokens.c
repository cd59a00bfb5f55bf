/*
 * test_tokens.c — the board service's token index: every participant added
 * is found by its token, none removed is, and removal from the middle of a
 * probe cluster keeps the rest findable (the backward shift).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "board_internal.h"

#define N 2000

static participant people[N];
static bool present[N];

static void fill(participant *p, unsigned i)
{
    memset(p, 0, sizeof *p);
    /* distinct tokens; many share long prefixes, to stress the hashing */
    snprintf(p->token, sizeof p->token, "%032x", i * 2654435761u);
    p->id = i;
}

static void check_all(const token_index *ix)
{
    for (unsigned i = 0; i < N; i++) {
        participant *found = token_index_find(ix, people[i].token);
        if (present[i])
            assert_ptr_equal(found, &people[i]);
        else
            assert_null(found);
    }
}

static void add_find_remove(void **state)
{
    (void)state;
    token_index ix;
    assert_int_equal(token_index_init(&ix), 0);
    for (unsigned i = 0; i < N; i++) {
        fill(&people[i], i);
        assert_int_equal(token_index_add(&ix, &people[i]), 0);
        present[i] = true;
    }
    assert_int_equal(ix.n, N);
    check_all(&ix);
    srand(7);
    for (int round = 0; round < 3; round++) {
        for (unsigned i = 0; i < N; i++) {
            if (present[i] && rand() % 2) {
                token_index_remove(&ix, &people[i]);
                present[i] = false;
            }
        }
        check_all(&ix);
        for (unsigned i = 0; i < N; i++) {
            if (!present[i] && rand() % 3 == 0) {
                assert_int_equal(token_index_add(&ix, &people[i]), 0);
                present[i] = true;
            }
        }
        check_all(&ix);
    }
    /* wrong lengths and near misses find nothing */
    char guess[40];
    snprintf(guess, sizeof guess, "%s", people[0].token);
    guess[31] = guess[31] == '0' ? '1' : '0';
    assert_null(token_index_find(&ix, guess));
    assert_null(token_index_find(&ix, ""));
    assert_null(token_index_find(&ix, "0123"));
    token_index_free(&ix);
}

static void equal_is_exact(void **state)
{
    (void)state;
    char a[] = "0123456789abcdef0123456789abcdef";
    char b[] = "0123456789abcdef0123456789abcdef";
    assert_true(board_tokens_equal(a, b));
    for (int i = 0; i < 32; i++) {
        b[i] ^= 1;
        assert_false(board_tokens_equal(a, b));
        b[i] ^= 1;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_find_remove),
        cmocka_unit_test(equal_is_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
