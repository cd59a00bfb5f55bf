/*
 * test_store_cluster.c — nodes of a cluster sharing one PostgreSQL database
 * (store.h, "A cluster"): a node owns the games it creates, live nodes adopt
 * a dead node's games each exactly once, a node that lost a game cannot
 * append to it, and what a node reads when the database may have gone back
 * in time. Needs the test PostgreSQL server (SUNGKA_TEST_PG_URL_FILE,
 * tests/pg); on SQLite only the refusal is checked.
 */
#include "store_test.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

/* The server's URL with its database name replaced by a fresh one. */
static bool cluster_url(char *out, size_t len)
{
    const char *file = getenv("SUNGKA_TEST_PG_URL_FILE");
    if (!file || !file[0])
        return false;
    FILE *f = fopen(file, "r");
    char url[512] = "";
    if (!f || !fgets(url, sizeof url, f))
        fail_msg("cannot read the PostgreSQL URL from %s", file);
    fclose(f);
    url[strcspn(url, "\r\n")] = '\0';
    char *slash = strrchr(url, '/');
    assert_non_null(slash);
    *slash = '\0';
    static unsigned n;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(out, len, "%s/sungka_cluster_%d_%u_%ld", url, (int)getpid(), ++n,
             (long)(ts.tv_nsec % 100000));
    return true;
}

static store *open_url(const char *url)
{
    store *s = NULL;
    char err[512];
    if (store_open(url, &s, err, sizeof err) != 0)
        fail_msg("store_open(%s): %s", url, err);
    return s;
}

static store *node(const char *url, const char *endpoint, int lease_ms)
{
    store *s = open_url(url);
    assert_ok(s, store_node_join(s, endpoint, lease_ms, NULL));
    return s;
}

static int append(store *s, const char *game, uint64_t seq)
{
    return store_event_append(s, game, seq, 1, 0, 0, 1, "e", 1);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int count_recovered;
static void on_game(void *user, const store_game_info *g)
{
    (void)user;
    (void)g;
    count_recovered++;
}

static void sqlite_has_no_cluster(void **state)
{
    (void)state;
    store *s = open_memory();
    if (store_shared(s)) {
        store_close(s);
        skip();
    }
    assert_int_equal(store_node_join(s, "127.0.0.1:1", 1000, NULL), -1);
    assert_non_null(strstr(store_last_error(s), "no cluster"));
    store_close(s);
}

static void games_belong_to_their_node(void **state)
{
    (void)state;
    char url[600];
    if (!cluster_url(url, sizeof url))
        skip();
    store *a = node(url, "10.0.0.1:7070", 60000), *b = node(url, "10.0.0.2:7070", 60000);
    make_game(a, "1", "sungka", 2);
    char endpoint[128];
    bool alive = false;
    assert_int_equal(store_game_owner(b, "1", endpoint, sizeof endpoint, &alive), 0);
    assert_string_equal(endpoint, "10.0.0.1:7070");
    assert_true(alive);
    assert_int_equal(store_game_owner(b, "2", endpoint, sizeof endpoint, &alive),
                     STORE_NOT_FOUND);

    /* b is asked about a's game: by its seat token, and in the lobby */
    assert_ok(a, store_participant_put(a, "1", 1, "ann", 1, "tok-ann", true));
    char game[STORE_ID_BYTES];
    assert_int_equal(store_token_owner(b, "tok-ann", game, endpoint, sizeof endpoint, &alive),
                     0);
    assert_string_equal(game, "1");
    assert_string_equal(endpoint, "10.0.0.1:7070");
    assert_int_equal(store_token_owner(b, "tok-nobody", game, endpoint, sizeof endpoint,
                                       &alive), STORE_NOT_FOUND);
    store_remote_game *remote = NULL;
    int n = -1;
    assert_ok(b, store_remote_games(b, 10, &remote, &n));
    assert_int_equal(n, 1);
    assert_string_equal(remote[0].game.id, "1");
    assert_string_equal(remote[0].game.kind, "sungka");
    assert_int_equal(remote[0].game.n_options, 2);
    assert_string_equal(remote[0].endpoint, "10.0.0.1:7070");
    assert_string_equal(remote[0].seat_names[0], "");
    assert_string_equal(remote[0].seat_names[1], "ann");
    free(remote);
    assert_ok(a, store_remote_games(a, 10, &remote, &n));
    assert_int_equal(n, 0);                      /* its own are not remote */

    char ids[8][STORE_ID_BYTES];
    assert_ok(b, store_games_adopt(b, 8, ids, &n));
    assert_int_equal(n, 0);                      /* a's lease runs */
    assert_int_equal(append(b, "1", 1), STORE_FENCED);
    assert_ok(a, append(a, "1", 1));

    store_node nodes[4];
    assert_ok(a, store_nodes(a, nodes, 4, &n));
    assert_int_equal(n, 2);
    assert_string_equal(nodes[0].endpoint, "10.0.0.1:7070");
    assert_int_equal(nodes[0].games, 1);
    assert_int_equal(nodes[1].games, 0);
    assert_true(nodes[0].lease_left_ms > 50000);

    unsigned id_a, id_b;
    assert_ok(a, store_game_next_id(a, &id_a));
    assert_ok(b, store_game_next_id(b, &id_b));
    assert_int_not_equal(id_a, id_b);
    store_close(a);
    store_close(b);
}

struct adopter {
    const char *url;
    const char *endpoint;
    int n;
    char ids[40][STORE_ID_BYTES];
};

/* Adopt one game at a time until none is left, as a node's timer would. */
static void *adopt_all(void *arg)
{
    struct adopter *ad = arg;
    store *s = node(ad->url, ad->endpoint, 60000);
    for (;;) {
        int got = 0;
        if (store_games_adopt(s, 1, &ad->ids[ad->n], &got) != 0)
            fail_msg("adopt: %s", store_last_error(s));
        if (got == 0)
            break;
        ad->n += got;
    }
    store_close(s);
    return NULL;
}

static void dead_nodes_games_adopted_once(void **state)
{
    (void)state;
    char url[600];
    if (!cluster_url(url, sizeof url))
        skip();
    enum { GAMES = 30 };
    store *dead = node(url, "10.0.0.9:7070", 300);
    for (int i = 1; i <= GAMES; i++) {
        char id[16];
        snprintf(id, sizeof id, "%d", i);
        make_game(dead, id, "kalah", 2);
        assert_ok(dead, store_game_status(dead, id, STORE_RUNNING, 5));
    }
    /* an ended game nobody may come back to is nobody's to adopt */
    const char *names[2] = {"ann", "bob"};
    assert_ok(dead, store_game_finish(dead, "30", STORE_FINISHED, "done", 2, names, NULL,
                                      NULL, NULL, 0, 9));
    sleep_ms(600);                                /* its lease runs out */

    struct adopter b = {.url = url, .endpoint = "10.0.0.2:7070"};
    struct adopter c = {.url = url, .endpoint = "10.0.0.3:7070"};
    pthread_t tb, tc;
    assert_int_equal(pthread_create(&tb, NULL, adopt_all, &b), 0);
    assert_int_equal(pthread_create(&tc, NULL, adopt_all, &c), 0);
    pthread_join(tb, NULL);
    pthread_join(tc, NULL);
    assert_int_equal(b.n + c.n, GAMES - 1);
    bool seen[GAMES + 1] = {false};
    for (int k = 0; k < b.n + c.n; k++) {
        int id = atoi(k < b.n ? b.ids[k] : c.ids[k - b.n]);
        assert_true(id >= 1 && id < GAMES);
        assert_false(seen[id]);                  /* each by one node only */
        seen[id] = true;
    }

    /* The node that comes back late hears that its lease ran out, is
     * fenced, and recovers none of them. */
    assert_int_equal(store_node_renew(dead, 60000), STORE_LAPSED);
    assert_int_equal(store_node_renew(dead, 60000), 0);
    char endpoint[128];
    bool alive;
    assert_ok(dead, store_game_owner(dead, "1", endpoint, sizeof endpoint, &alive));
    assert_string_not_equal(endpoint, "10.0.0.9:7070");
    assert_int_equal(append(dead, "1", 1), STORE_FENCED);
    assert_non_null(strstr(store_last_error(dead), "adopted"));
    count_recovered = 0;
    store_recovery_cb cb = {.game = on_game};
    assert_ok(dead, store_recover(dead, &cb, NULL, NULL));
    assert_int_equal(count_recovered, 0);
    store_close(dead);
}

static void a_restart_takes_its_games_at_once(void **state)
{
    (void)state;
    char url[600];
    if (!cluster_url(url, sizeof url))
        skip();
    store *first = node(url, "10.0.0.1:7070", 60000);
    make_game(first, "7", "reversi", 2);
    store_close(first);                          /* killed: its lease would run a minute */

    store *other = node(url, "10.0.0.2:7070", 60000);
    char ids[4][STORE_ID_BYTES];
    int n = -1;
    assert_ok(other, store_games_adopt(other, 4, ids, &n));
    assert_int_equal(n, 0);

    /* The same endpoint again: the node before it there is gone. */
    store *again = node(url, "10.0.0.1:7070", 60000);
    assert_ok(again, store_games_adopt(again, 4, ids, &n));
    assert_int_equal(n, 1);
    assert_string_equal(ids[0], "7");
    count_recovered = 0;
    store_recovery_cb cb = {.game = on_game};
    assert_ok(again, store_recover_game(again, "7", &cb, NULL));
    assert_int_equal(count_recovered, 1);
    assert_ok(again, append(again, "7", 1));
    store_close(again);
    store_close(other);
}

static void leaving_hands_games_over(void **state)
{
    (void)state;
    char url[600];
    if (!cluster_url(url, sizeof url))
        skip();
    store *a = node(url, "10.0.0.1:7070", 60000), *b = node(url, "10.0.0.2:7070", 60000);
    make_game(a, "3", "sungka", 2);
    assert_ok(a, store_node_leave(a));
    char ids[4][STORE_ID_BYTES];
    int n = -1;
    assert_ok(b, store_games_adopt(b, 4, ids, &n));
    assert_int_equal(n, 1);
    char endpoint[128];
    bool alive;
    assert_int_equal(store_game_owner(a, "3", endpoint, sizeof endpoint, &alive), 0);
    assert_string_equal(endpoint, "10.0.0.2:7070");
    assert_ok(b, store_node_renew(b, 60000));
    store_close(a);
    store_close(b);
}

/* Fencing per transaction. A node whose transaction holds a game (an
 * append, then frozen before its COMMIT) keeps it: a node adopting after
 * the lease ran out passes the game by (not waiting for it), the frozen
 * node's late COMMIT lands whole, and only then is the game adopted, log
 * and all. Afterwards the old node's next transaction is refused the game
 * at once, and so is its forgetting it. (Before, the event insert checked
 * the owner without holding it: the late COMMIT landed after the adoption,
 * under a sequence number the adopter then used again.) */
static void a_transaction_holds_its_game(void **state)
{
    (void)state;
    char url[600];
    if (!cluster_url(url, sizeof url))
        skip();
    store *a = node(url, "10.0.0.1:7070", 300);
    make_game(a, "1", "kalah", 2);
    assert_ok(a, store_game_status(a, "1", STORE_RUNNING, 5));
    assert_ok(a, append(a, "1", 1));

    assert_ok(a, store_begin(a));
    assert_ok(a, store_game_fence(a, "1"));
    assert_ok(a, append(a, "1", 2));
    sleep_ms(600);                                /* frozen past its lease */
    store *b = node(url, "10.0.0.2:7070", 60000);
    char ids[4][STORE_ID_BYTES];
    int n = -1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_ok(b, store_games_adopt(b, 4, ids, &n));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(n, 0);                       /* held: passed by */
    assert_true(t1.tv_sec - t0.tv_sec < 2);       /* and not waited for */
    assert_ok(a, store_commit(a));                /* the late commit lands whole */
    assert_ok(b, store_games_adopt(b, 4, ids, &n));
    assert_int_equal(n, 1);
    assert_string_equal(ids[0], "1");
    assert_int_equal(append(b, "1", 2), -1);      /* the adopter sees event 2: taken */
    assert_ok(b, append(b, "1", 3));

    assert_ok(a, store_begin(a));
    assert_int_equal(store_game_fence(a, "1"), STORE_FENCED);
    assert_non_null(strstr(store_last_error(a), "another node's"));
    assert_ok(a, store_rollback(a));
    assert_int_equal(store_game_forget(a, "1"), STORE_FENCED);
    assert_ok(b, store_game_forget(b, "1"));
    store_close(a);
    store_close(b);
}

/* A pipelined turn (store_turn_begin): each move's fence and event go out
 * with the turn, unanswered till its COMMIT; the fence of a game that is
 * another node's misses, and its event writes nothing, while the node's
 * own game's event commits in the same round trip. */
static void a_pipelined_turn_is_fenced_per_game(void **state)
{
    (void)state;
    char url[600];
    if (!cluster_url(url, sizeof url))
        skip();
    store *a = node(url, "10.0.0.1:7070", 60000), *b = node(url, "10.0.0.2:7070", 60000);
    make_game(a, "1", "kalah", 2);
    make_game(b, "2", "kalah", 2);
    for (int turn = 0; turn < 2; turn++) {
        uint64_t trips = test_round_trips(a);
        assert_ok(a, store_turn_begin(a));
        store_defer(a, 1);                            /* the round trips below tell */
        assert_ok(a, store_game_fence(a, "1"));
        assert_ok(a, append(a, "1", (uint64_t)turn + 1));
        store_defer(a, 2);
        assert_ok(a, store_game_fence(a, "2"));       /* b's: told at the commit */
        assert_ok(a, append(a, "2", (uint64_t)turn + 1));
        store_defer(a, 0);
        assert_ok(a, store_commit(a));
        if (turn > 0)                                 /* the first prepares its statements */
            assert_int_equal(test_round_trips(a) - trips, 1);
        assert_int_equal(store_turn_missed(a, 1), 0);
        assert_int_equal(store_turn_missed(a, 2), STORE_FENCED);
        assert_non_null(strstr(store_last_error(a), "another node's"));
    }
    assert_int_equal(append(a, "1", 2), -1);          /* a's events 1 and 2 are stored */
    assert_ok(a, append(a, "1", 3));
    assert_ok(b, append(b, "2", 1));                  /* nothing of a's landed in b's game */
    store_close(a);
    store_close(b);
}

/* What a node checks when the database may have gone back in time: which
 * history it is on (the same for every session of one server), a game's
 * last stored event, and the game ids moved past those it knows. */
static void what_a_history_change_checks(void **state)
{
    (void)state;
    char url[600];
    if (!cluster_url(url, sizeof url))
        skip();
    store *a = node(url, "10.0.0.1:7070", 60000), *b = node(url, "10.0.0.2:7070", 60000);
    char history[64];
    snprintf(history, sizeof history, "%s", store_db_history(a));
    assert_non_null(strchr(history, '/'));      /* "SYSTEM-ID/TIMELINE" */
    assert_string_equal(store_db_history(b), history);

    make_game(a, "1", "sungka", 2);
    uint64_t last = 99;
    assert_ok(b, store_game_stored_last(b, "1", &last));
    assert_int_equal(last, 0);
    assert_ok(a, append(a, "1", 1));
    assert_ok(a, append(a, "1", 2));
    assert_ok(b, store_game_stored_last(b, "1", &last));
    assert_int_equal(last, 2);
    assert_int_equal(store_game_stored_last(b, "2", &last), STORE_NOT_FOUND);

    unsigned before, after;
    assert_ok(a, store_game_next_id(a, &before));
    assert_ok(b, store_game_ids_past(b, before + 500, 1000));   /* past what b has seen */
    assert_ok(a, store_game_next_id(a, &after));
    assert_int_equal(after, before + 1501);
    assert_ok(a, store_game_ids_past(a, 1, 1000));   /* past where it is, when beyond seen */
    assert_ok(b, store_game_next_id(b, &before));
    assert_int_equal(before, after + 1001);
    store_close(a);
    store_close(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sqlite_has_no_cluster),
        cmocka_unit_test(games_belong_to_their_node),
        cmocka_unit_test(dead_nodes_games_adopted_once),
        cmocka_unit_test(a_restart_takes_its_games_at_once),
        cmocka_unit_test(leaving_hands_games_over),
        cmocka_unit_test(a_transaction_holds_its_game),
        cmocka_unit_test(a_pipelined_turn_is_fenced_per_game),
        cmocka_unit_test(what_a_history_change_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
