/*
 * test_person_index.c — the board service's person indexes: by token, every
 * participant added is found, none removed is, and removal from the middle
 * of a probe cluster keeps the rest findable (the backward shift); by name,
 * the same name in two games is two people, and a name is found only in its
 * own game; by look, the same, and a name's looks (person_name_looks) are
 * equal for names that pass for one another and differ otherwise.
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

static void check_all(const person_index *ix)
{
    for (unsigned i = 0; i < N; i++) {
        participant *found = person_index_find_token(ix, people[i].token);
        if (present[i])
            assert_ptr_equal(found, &people[i]);
        else
            assert_null(found);
    }
}

static void add_find_remove(void **state)
{
    (void)state;
    person_index ix;
    assert_int_equal(person_index_init(&ix, PERSON_BY_TOKEN), 0);
    for (unsigned i = 0; i < N; i++) {
        fill(&people[i], i);
        assert_int_equal(person_index_add(&ix, &people[i]), 0);
        present[i] = true;
    }
    assert_int_equal(ix.n, N);
    check_all(&ix);
    srand(7);
    for (int round = 0; round < 3; round++) {
        for (unsigned i = 0; i < N; i++) {
            if (present[i] && rand() % 2) {
                person_index_remove(&ix, &people[i]);
                present[i] = false;
            }
        }
        check_all(&ix);
        for (unsigned i = 0; i < N; i++) {
            if (!present[i] && rand() % 3 == 0) {
                assert_int_equal(person_index_add(&ix, &people[i]), 0);
                present[i] = true;
            }
        }
        check_all(&ix);
    }
    /* wrong lengths and near misses find nothing */
    char guess[40];
    snprintf(guess, sizeof guess, "%s", people[0].token);
    guess[31] = guess[31] == '0' ? '1' : '0';
    assert_null(person_index_find_token(&ix, guess));
    assert_null(person_index_find_token(&ix, ""));
    assert_null(person_index_find_token(&ix, "0123"));
    person_index_free(&ix);
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

/* Names are keyed by their game: N people in each of two games, the same
 * names in both, found in their own game only, through removals. */
static void names_by_game(void **state)
{
    (void)state;
    room *games[2] = {(room *)&people[0], (room *)&people[1]};   /* any two addresses */
    person_index ix;
    assert_int_equal(person_index_init(&ix, PERSON_BY_NAME), 0);
    for (unsigned i = 0; i < N; i++) {
        memset(&people[i], 0, sizeof people[i]);
        people[i].room = games[i % 2];
        snprintf(people[i].name, sizeof people[i].name, "watcher-%u", i / 2);
        assert_int_equal(person_index_add(&ix, &people[i]), 0);
    }
    for (unsigned i = 0; i < N; i++)
        assert_ptr_equal(person_index_find_name(&ix, games[i % 2], people[i].name), &people[i]);
    assert_null(person_index_find_name(&ix, games[0], "watcher-"));
    assert_null(person_index_find_name(&ix, games[0], "nobody"));
    for (unsigned i = 0; i < N; i += 4)   /* every other name of game 0 */
        person_index_remove(&ix, &people[i]);
    for (unsigned i = 0; i < N; i++) {
        participant *found = person_index_find_name(&ix, games[i % 2], people[i].name);
        assert_ptr_equal(found, i % 4 == 0 ? NULL : &people[i]);
    }
    assert_int_equal(ix.n, N - N / 4);
    /* a token index finds no names, a name index no tokens */
    assert_null(person_index_find_token(&ix, "0123456789abcdef0123456789abcdef"));
    person_index_free(&ix);
}

/* Looks are keyed by their game like names, through removals; the looks of
 * look-alike names meet, the looks of other names do not. */
static void looks_by_game(void **state)
{
    (void)state;
    room *games[2] = {(room *)&people[0], (room *)&people[1]};
    person_index ix;
    assert_int_equal(person_index_init(&ix, PERSON_BY_LOOK), 0);
    for (unsigned i = 0; i < N; i++) {
        memset(&people[i], 0, sizeof people[i]);
        people[i].room = games[i % 2];
        people[i].looks[1] = 0x9e3779b97f4a7c15ull * (i / 2 + 1);
        assert_int_equal(person_index_add(&ix, &people[i]), 0);
    }
    for (unsigned i = 0; i < N; i += 3)
        person_index_remove(&ix, &people[i]);
    for (unsigned i = 0; i < N; i++) {
        participant *found = person_index_find_look(&ix, games[i % 2], people[i].looks[1]);
        assert_ptr_equal(found, i % 3 == 0 ? NULL : &people[i]);
    }
    assert_null(person_index_find_look(&ix, games[0], 1));
    assert_null(person_index_find_name(&ix, games[0], "anyone"));
    person_index_free(&ix);

    uint64_t a[2], b[2], c[2];
    person_name_looks("WILL", 42, a);
    person_name_looks("wiII", 42, b);           /* its look is WILL's skeleton */
    person_name_looks("WALL", 42, c);
    assert_true(a[0] == b[1]);
    assert_true(a[0] != c[0] && a[0] != c[1] && a[1] != c[0] && a[1] != c[1]);
    person_name_looks("WILL", 43, c);           /* another key, other values */
    assert_true(a[0] != c[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(add_find_remove),
        cmocka_unit_test(names_by_game),
        cmocka_unit_test(looks_by_game),
        cmocka_unit_test(equal_is_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
