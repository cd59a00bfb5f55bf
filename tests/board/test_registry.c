/*
 * test_registry.c — the games by id (registry.c): every registered room is
 * found by its id and no other, through growth and through removals in any
 * order (the hash's backward-shift deletion), and the counts of lost and
 * diverged rooms follow the rooms in and out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "room_internal.h"
#include "room_fixture.h"


static room *new_room(board_service *svc, unsigned id)
{
    const game_kind *kalah = game_kind_find("kalah");
    game_options opts;
    game_options_default(kalah, &opts);
    char text[16];
    snprintf(text, sizeof text, "%u", id);
    room *r = make_room(svc, text, kalah, &opts, "a test");
    assert_non_null(r);
    return r;
}

/* Everyone in `present` is found as itself; every other id is not. */
static void check_all(board_service *svc, const bool *present, unsigned n)
{
    int found = 0;
    for (unsigned id = 1; id <= n; id++) {
        char text[16];
        snprintf(text, sizeof text, "%u", id);
        room *r = board_find_room(svc, text);
        if (!present[id]) {
            assert_null(r);
            continue;
        }
        assert_non_null(r);
        assert_string_equal(r->id, text);
        assert_int_equal(svc->rooms[board_rooms_index(svc, r)], r);
        found++;
    }
    assert_int_equal(found, svc->n_rooms);
}

static void found_through_removals(void **state)
{
    (void)state;
    enum { N = 3000 };
    board_service *svc = fixture_service(NULL, (room_io){0});
    static bool present[N + 1];
    assert_null(board_find_room(svc, "1"));
    for (unsigned id = 1; id <= N; id++) {
        assert_int_equal(board_rooms_add(svc, new_room(svc, id)), 0);
        present[id] = true;
    }
    check_all(svc, present, N);
    srand(7);
    for (int round = 0; round < 4; round++) {
        for (int k = 0; k < N / 8 && svc->n_rooms > 0; k++) {
            int i = rand() % svc->n_rooms;
            present[atoi(svc->rooms[i]->id)] = false;
            board_rooms_remove(svc, i);
        }
        check_all(svc, present, N);
        for (unsigned id = 1; id <= N; id += 5) {        /* some come back */
            if (present[id])
                continue;
            assert_int_equal(board_rooms_add(svc, new_room(svc, id)), 0);
            present[id] = true;
        }
        check_all(svc, present, N);
    }
    fixture_service_free(svc);
}

static void counts_follow_the_rooms(void **state)
{
    (void)state;
    board_service *svc = fixture_service(NULL, (room_io){0});
    room *a = new_room(svc, 1), *b = new_room(svc, 2);
    assert_int_equal(board_rooms_add(svc, a), 0);
    assert_int_equal(board_rooms_add(svc, b), 0);
    a->lost = true;
    svc->n_lost++;
    b->diverged = true;
    svc->n_diverged++;
    room *taken = board_rooms_take(svc, board_rooms_index(svc, b));
    assert_ptr_equal(taken, b);
    assert_int_equal(svc->n_diverged, 0);
    assert_null(board_find_room(svc, "2"));
    assert_int_equal(board_rooms_add(svc, b), 0);      /* back, still diverged */
    assert_int_equal(svc->n_diverged, 1);
    board_rooms_remove(svc, board_rooms_index(svc, a));
    assert_int_equal(svc->n_lost, 0);
    fixture_service_free(svc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(found_through_removals),
        cmocka_unit_test(counts_follow_the_rooms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
