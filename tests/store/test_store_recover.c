/*
 * test_store_recover.c — recovery after a restart and transactions: games
 * still waiting or running come back from a reopened file with their options,
 * participants and every event byte for byte (private pairs included); ended
 * games do not; the highest id is right. A rolled-back transaction leaves
 * nothing; a committed one everything; a failed commit nothing.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store_test.h"

typedef struct rec_event {
    char game[16];
    uint64_t seq;
    int64_t time_ms;
    unsigned a, b;
    unsigned format;
    size_t len;
    unsigned char data[300];
} rec_event;

typedef struct rec_person {
    char game[16];
    unsigned id;
    char name[STORE_NAME_BYTES];
    int seat;
    char token[STORE_TOKEN_BYTES];
    bool ready;
} rec_person;

typedef struct recovered {
    store_game_info games[8];
    int n_games;
    rec_person people[16];
    int n_people;
    rec_event events[64];
    int n_events;
    int order_errors;        /* a participant or event before its game */
} recovered;

static void on_game(void *u, const store_game_info *g)
{
    recovered *r = u;
    assert_true(r->n_games < 8);
    r->games[r->n_games++] = *g;
}

static bool current(const recovered *r, const char *game)
{
    return r->n_games > 0 && strcmp(r->games[r->n_games - 1].id, game) == 0;
}

static void on_person(void *u, const char *game, unsigned id, const char *name, int seat,
                      const char *token, bool ready)
{
    recovered *r = u;
    assert_true(r->n_people < 16);
    if (!current(r, game) ||
        (r->n_events > 0 && strcmp(r->events[r->n_events - 1].game, game) == 0))
        r->order_errors++;
    rec_person *p = &r->people[r->n_people++];
    snprintf(p->game, sizeof p->game, "%s", game);
    p->id = id;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->seat = seat;
    snprintf(p->token, sizeof p->token, "%s", token);
    p->ready = ready;
}

static void on_event(void *u, const char *game, uint64_t seq, int64_t time_ms, unsigned a,
                     unsigned b, unsigned format, const void *data, size_t len)
{
    recovered *r = u;
    assert_true(r->n_events < 64);
    assert_true(len <= sizeof r->events[0].data);
    if (!current(r, game))
        r->order_errors++;
    rec_event *e = &r->events[r->n_events++];
    snprintf(e->game, sizeof e->game, "%s", game);
    e->seq = seq;
    e->time_ms = time_ms;
    e->a = a;
    e->b = b;
    e->format = format;
    e->len = len;
    if (len)
        memcpy(e->data, data, len);
}

static const store_recovery_cb callbacks = { on_game, on_person, on_event, NULL, NULL };

/* Event payload i: binary, with zeros and high bytes, 0..299 bytes long. */
static size_t payload(int i, unsigned char *out)
{
    size_t len = (size_t)(i * 37) % 300;
    for (size_t k = 0; k < len; k++)
        out[k] = (unsigned char)(k * 131 + (size_t)i * 7);
    if (len > 2)
        out[1] = 0;
    return len;
}

static void test_recovery_round_trip(void **state)
{
    (void)state;
    char dir[256], path[300], err[512];
    scratch_dir(dir);
    test_db_path(dir, "r.db", path, sizeof path);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);

    make_game(s, "12", "sungka", 2);            /* running, with a log */
    make_game(s, "3", "kalah", 2);              /* waiting, one player */
    make_game(s, "40", "sungka", 2);            /* finished: not recovered */
    make_game(s, "lobby-x", "sungka", 2);       /* not a number: no effect on the id */
    assert_ok(s, store_game_status(s, "12", STORE_RUNNING, 1234));
    assert_ok(s, store_participant_put(s, "12", 1, "ana", 0, "aaaa", true));
    assert_ok(s, store_participant_put(s, "12", 2, "ben", 1, "bbbb", false));
    assert_ok(s, store_participant_put(s, "12", 3, "obs", -1, "cccc", false));
    assert_ok(s, store_participant_put(s, "12", 2, "ben", 1, "bbbb", true));   /* update */
    assert_ok(s, store_participant_put(s, "12", 4, "gone", -1, "dddd", false));
    assert_ok(s, store_participant_remove(s, "12", 4));
    assert_ok(s, store_participant_remove(s, "12", 99));                    /* unknown: fine */
    assert_ok(s, store_participant_put(s, "3", 1, "cy", 0, "eeee", false));
    unsigned char buf[300];
    for (int i = 0; i < 20; i++) {
        size_t len = payload(i, buf);
        unsigned a = i % 5 == 0 ? 1 : 0, b = i % 5 == 0 ? 3 : 0;  /* some private */
        if (i % 2 == 0) {
            assert_ok(s, store_begin(s));
            assert_ok(s, store_event_append(s, "12", (uint64_t)i + 1, 5000 + i, a, b, 2, buf, len));
            assert_ok(s, store_move_append(s, "12", i / 2, i % 2, i, 5000 + i));
            assert_ok(s, store_commit(s));
        } else {
            assert_ok(s, store_event_append(s, "12", (uint64_t)i + 1, 5000 + i, a, b, 1, buf, len));
        }
    }
    assert_int_equal(store_event_append(s, "12", 5, 1, 0, 0, 1, "dup", 3), -1);  /* repeated seq */
    assert_non_null(strcasestr(store_last_error(s), "unique"));   /* either database's */
    assert_ok(s, store_event_append(s, "3", 1, 77, 0, 0, 1, NULL, 0));           /* empty event */
    assert_ok(s, store_participant_put(s, "40", 1, "dee", 0, "ffff", false));
    assert_ok(s, store_event_append(s, "40", 1, 1, 0, 0, 1, "x", 1));
    const char *names[2] = { "dee", "eve" };
    int w[1] = { 0 };
    assert_ok(s, store_game_finish(s, "40", STORE_FINISHED, "by the rules", 2, names, NULL, NULL, w,
                                   1, 9));
    /* An ended game is recovered while its participants are kept (a
     * rematch may be on offer), not once the service let go of it. */
    recovered *held = calloc(1, sizeof *held);
    assert_ok(s, store_recover(s, &callbacks, held, NULL));
    assert_int_equal(held->n_games, 4);
    int ended = -1;
    for (int i = 0; i < held->n_games; i++)
        if (strcmp(held->games[i].id, "40") == 0)
            ended = i;
    assert_true(ended >= 0);
    assert_int_equal(held->games[ended].status, STORE_FINISHED);
    free(held);
    assert_ok(s, store_game_forget(s, "40"));
    store_close(s);

    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    recovered *r = calloc(1, sizeof *r);
    unsigned max_id = 0;
    assert_ok(s, store_recover(s, &callbacks, r, &max_id));
    assert_int_equal(max_id, 40);
    assert_int_equal(r->order_errors, 0);
    assert_int_equal(r->n_games, 3);
    assert_string_equal(r->games[0].id, "12");        /* in creation order */
    assert_string_equal(r->games[1].id, "3");
    assert_string_equal(r->games[2].id, "lobby-x");
    assert_int_equal(r->games[0].status, STORE_RUNNING);
    assert_int_equal(r->games[0].started_ms, 1234);
    assert_int_equal(r->games[0].n_options, 2);
    assert_string_equal(r->games[0].options[1].name, "stones");
    assert_string_equal(r->games[0].title, "sungka game 12");
    assert_int_equal(r->games[1].status, STORE_WAITING);

    assert_int_equal(r->n_people, 4);
    const rec_person want[4] = {
        { "12", 1, "ana", 0, "aaaa", true },
        { "12", 2, "ben", 1, "bbbb", true },
        { "12", 3, "obs", -1, "cccc", false },
        { "3", 1, "cy", 0, "eeee", false },
    };
    for (int i = 0; i < 4; i++) {
        assert_string_equal(r->people[i].game, want[i].game);
        assert_int_equal(r->people[i].id, want[i].id);
        assert_string_equal(r->people[i].name, want[i].name);
        assert_int_equal(r->people[i].seat, want[i].seat);
        assert_string_equal(r->people[i].token, want[i].token);
        assert_int_equal(r->people[i].ready, want[i].ready);
    }

    assert_int_equal(r->n_events, 21);
    for (int i = 0; i < 20; i++) {
        const rec_event *e = &r->events[i];
        size_t len = payload(i, buf);
        assert_string_equal(e->game, "12");
        assert_int_equal(e->seq, i + 1);
        assert_int_equal(e->time_ms, 5000 + i);
        assert_int_equal(e->a, i % 5 == 0 ? 1 : 0);
        assert_int_equal(e->b, i % 5 == 0 ? 3 : 0);
        assert_int_equal(e->format, i % 2 == 0 ? 2 : 1);
        assert_int_equal(e->len, len);
        assert_memory_equal(e->data, buf, len);
    }
    assert_string_equal(r->events[20].game, "3");
    assert_int_equal(r->events[20].len, 0);
    assert_int_equal(r->events[20].time_ms, 77);

    /* NULL callbacks are skipped; NULL max id is allowed. */
    store_recovery_cb only_games = { on_game, NULL, NULL, NULL, NULL };
    memset(r, 0, sizeof *r);
    assert_ok(s, store_recover(s, &only_games, r, NULL));
    assert_int_equal(r->n_games, 3);
    assert_int_equal(r->n_events, 0);
    free(r);
    store_close(s);
    scratch_remove(dir);
}

static void test_empty_recovery(void **state)
{
    (void)state;
    store *s = open_memory();
    unsigned max_id = 77;
    recovered r = { 0 };
    assert_ok(s, store_recover(s, &callbacks, &r, &max_id));
    assert_int_equal(max_id, 0);
    assert_int_equal(r.n_games, 0);
    store_close(s);
}

/* A file from before the store kept each event's format (schema 2): its
 * events come back as the first format, and new ones keep theirs. */
static void test_version_2_events_read_as_first_format(void **state)
{
    (void)state;
    char dir[256], path[300], err[512];
    skip_on_pg("PostgreSQL databases begin at the current schema: there is no schema 2 "
               "to come from");
    scratch_dir(dir);
    snprintf(path, sizeof path, "%s/v2.db", dir);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    make_game(s, "5", "kalah", 2);
    assert_ok(s, store_event_append(s, "5", 1, 10, 0, 0, 2, "old", 3));
    store_close(s);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, STORE_TEST_BACK_TO_2 "PRAGMA user_version = 2", NULL,
                                  NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    assert_ok(s, store_event_append(s, "5", 2, 20, 0, 0, 2, "new", 3));
    assert_int_equal(store_event_append(s, "5", 3, 30, 0, 0, 0, "none", 4), -1);
    assert_non_null(strstr(store_last_error(s), "format"));
    recovered *r = calloc(1, sizeof *r);
    assert_ok(s, store_recover(s, &callbacks, r, NULL));
    assert_int_equal(r->n_events, 2);
    assert_int_equal(r->events[0].format, STORE_EVENT_FORMAT_FIRST);
    assert_memory_equal(r->events[0].data, "old", 3);
    assert_int_equal(r->events[1].format, 2);
    free(r);
    store_close(s);
    scratch_remove(dir);
}

static int count_events(store *s, const char *game)
{
    recovered *r = calloc(1, sizeof *r);
    assert_ok(s, store_recover(s, &callbacks, r, NULL));
    int n = 0;
    for (int i = 0; i < r->n_events; i++)
        n += strcmp(r->events[i].game, game) == 0;
    free(r);
    return n;
}

static void test_transactions(void **state)
{
    (void)state;
    store *s = open_memory();
    make_game(s, "1", "sungka", 2);

    assert_ok(s, store_begin(s));
    assert_int_equal(store_begin(s), -1);                 /* no nesting */
    assert_non_null(strstr(store_last_error(s), "already open"));
    assert_ok(s, store_event_append(s, "1", 1, 1, 0, 0, 1, "a", 1));
    assert_ok(s, store_move_append(s, "1", 0, 0, 4, 1));
    assert_ok(s, store_participant_put(s, "1", 1, "ana", 0, "t", false));
    make_game(s, "2", "kalah", 2);
    assert_ok(s, store_rollback(s));
    assert_int_equal(count_events(s, "1"), 0);
    store_match_summary m;
    store_move *moves;
    int n;
    assert_int_equal(store_match(s, "1", &m, &moves, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(store_match(s, "2", &m, &moves, &n), STORE_NOT_FOUND);
    unsigned max_id;
    assert_ok(s, store_recover(s, NULL, NULL, &max_id));
    assert_int_equal(max_id, 1);

    /* Commit keeps all of it. */
    assert_ok(s, store_begin(s));
    assert_ok(s, store_event_append(s, "1", 1, 1, 0, 0, 1, "a", 1));
    assert_ok(s, store_move_append(s, "1", 0, 0, 4, 1));
    assert_ok(s, store_commit(s));
    assert_int_equal(count_events(s, "1"), 1);
    assert_int_equal(store_match(s, "1", &m, &moves, &n), 0);
    assert_int_equal(n, 1);
    free(moves);

    /* A failed write inside a transaction leaves the rest of it; the caller
     * rolls back. */
    assert_ok(s, store_begin(s));
    assert_ok(s, store_event_append(s, "1", 2, 1, 0, 0, 1, "b", 1));
    assert_int_equal(store_move_append(s, "1", 0, 0, 4, 1), -1);   /* ply 0 again */
    assert_ok(s, store_rollback(s));
    assert_int_equal(count_events(s, "1"), 1);

    /* Commit and rollback with nothing open. */
    assert_int_equal(store_commit(s), -1);
    assert_ok(s, store_rollback(s));
    store_close(s);
}

/* A transaction open at close (or at a crash) is not stored. */
static void test_uncommitted_lost(void **state)
{
    (void)state;
    char dir[256], path[300], err[512];
    scratch_dir(dir);
    test_db_path(dir, "u.db", path, sizeof path);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    make_game(s, "1", "sungka", 2);
    assert_ok(s, store_event_append(s, "1", 1, 1, 0, 0, 1, "kept", 4));
    assert_ok(s, store_begin(s));
    assert_ok(s, store_event_append(s, "1", 2, 1, 0, 0, 1, "lost", 4));
    store_close(s);
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    assert_int_equal(count_events(s, "1"), 1);
    store_close(s);
    scratch_remove(dir);
}

/* A database that went back in time under the service (a standby promoted
 * behind the primary, a backup put back): the service's next event for a
 * game whose last stored ones are gone is refused STORE_BEHIND, never
 * numbered on from the hole (which would give a number already sent to a
 * different event). Before, it was stored, leaving a hole. */
static void test_log_gone_back_in_time(void **state)
{
    (void)state;
    char dir[256], path[300], err[512];
    scratch_dir(dir);
    test_db_path(dir, "b.db", path, sizeof path);
    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    make_game(s, "1", "sungka", 2);
    for (uint64_t seq = 1; seq <= 3; seq++)
        assert_ok(s, store_event_append(s, "1", seq, 1, 0, 0, 1, "ev", 2));
    test_sql_exec(path, "DELETE FROM events WHERE seq = 3",
                  "DELETE FROM events WHERE seq = 3");
    assert_int_equal(store_event_append(s, "1", 4, 1, 0, 0, 1, "ev", 2), STORE_BEHIND);
    assert_non_null(strstr(store_last_error(s), "gone back in time"));
    assert_int_equal(store_event_append(s, "1", 5, 1, 0, 0, 1, "ev", 2), STORE_BEHIND);
    assert_int_equal(count_events(s, "1"), 2);
    assert_ok(s, store_event_append(s, "1", 3, 1, 0, 0, 1, "ev", 2));   /* in order: fine */
    store_close(s);
    scratch_remove(dir);
}

/* A commit that returned 0 survives SIGKILL: a child writes and commits,
 * tells the parent, and is killed without closing anything. */
static void test_commit_survives_kill(void **state)
{
    (void)state;
    char dir[256], path[300], err[512];
    scratch_dir(dir);
    test_db_path(dir, "k.db", path, sizeof path);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        store *s;
        if (store_open(path, &s, err, sizeof err) != 0)
            _exit(1);
        make_game(s, "1", "sungka", 2);
        for (int i = 0; i < 50; i++) {
            if (store_begin(s) || store_event_append(s, "1", (uint64_t)i + 1, i, 0, 0, 1, "ev", 2) ||
                store_move_append(s, "1", i, i % 2, i, i) || store_commit(s))
                _exit(2);
        }
        store_begin(s);
        store_event_append(s, "1", 51, 0, 0, 0, 1, "uncommitted", 11);
        if (write(fds[1], "k", 1) != 1)
            _exit(3);
        for (;;)
            pause();
    }
    close(fds[1]);
    char c;
    assert_int_equal(read(fds[0], &c, 1), 1);
    close(fds[0]);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));

    store *s;
    assert_int_equal(store_open(path, &s, err, sizeof err), 0);
    assert_int_equal(count_events(s, "1"), 50);
    store_match_summary m;
    store_move *moves;
    int n;
    assert_int_equal(store_match(s, "1", &m, &moves, &n), 0);
    assert_int_equal(n, 50);
    free(moves);
    store_close(s);
    scratch_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovery_round_trip),
        cmocka_unit_test(test_empty_recovery),
        cmocka_unit_test(test_version_2_events_read_as_first_format),
        cmocka_unit_test(test_transactions),
        cmocka_unit_test(test_uncommitted_lost),
        cmocka_unit_test(test_log_gone_back_in_time),
        cmocka_unit_test(test_commit_survives_kill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
