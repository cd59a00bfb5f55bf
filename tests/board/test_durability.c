/*
 * test_durability.c — durable before visible, for a room driven without a
 * server: an event, a move or a game's ending that the store refuses is
 * neither sent, nor numbered, nor kept in memory; its caller is told
 * (ROOM_E_STORE), and the game is reloaded from its stored log, which a
 * restart then recovers whole.
 *
 * The faults are the database's own: a second connection to the service's
 * SQLite file adds a trigger that refuses a table's inserts (a write that
 * fails), or one that breaks a deferred foreign key (the COMMIT fails, after
 * every write of the transaction succeeded).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "room_internal.h"
#include "room_fixture.h"
#include "sungka/v1/sungka.pb-c.h"

/* ------------------------------------------------------------ recorders */

#define MAX_SEEN 256

typedef struct fake_stream {
    int n;
    uint64_t seq[MAX_SEEN];            /* 0: not a logged event (a snapshot) */
    Sungka__V1__Event__BodyCase body[MAX_SEEN];
    bool finished;
    room_rc end_rc;
    int n_refused;                     /* CommandRefused: io.command_refused */
    uint64_t refused_id;               /* the last one's command id and rc */
    room_rc refused_rc;
} fake_stream;

static int rec_send(void *stream, const void *data, size_t len)
{
    fake_stream *s = stream;
    assert_false(s->finished);
    assert_true(s->n < MAX_SEEN);
    Sungka__V1__Event *ev = (Sungka__V1__Event *)protobuf_c_message_unpack(
        &sungka__v1__event__descriptor, NULL, len, data);
    assert_non_null(ev);
    s->seq[s->n] = ev->seq;
    s->body[s->n++] = ev->body_case;
    protobuf_c_message_free_unpacked(&ev->base, NULL);
    return 0;
}

static void rec_finish(void *stream, room_rc rc, const char *why)
{
    (void)why;
    fake_stream *s = stream;
    assert_false(s->finished);
    s->finished = true;
    s->end_rc = rc;
}

/* A Play stream's command refused (what board_play_refused sends). */
static void rec_command_refused(void *stream, uint64_t id, room_rc rc, const char *why)
{
    fake_stream *s = stream;
    assert_false(s->finished);
    assert_non_null(strstr(why, "could not be stored"));
    s->n_refused++;
    s->refused_id = id;
    s->refused_rc = rc;
}

/* The highest sequence number the stream saw. */
static uint64_t last_seq(const fake_stream *s)
{
    uint64_t seq = 0;
    for (int i = 0; i < s->n; i++)
        if (s->seq[i] > seq)
            seq = s->seq[i];
    return seq;
}

static int count(const fake_stream *s, Sungka__V1__Event__BodyCase body)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += s->body[i] == body;
    return n;
}

/* ------------------------------------------------------------- fixtures */

static const room_io recorders = {rec_send, rec_finish, rec_move_done, rec_command_refused};

typedef struct world {
    char dir[64], path[96];
    store *db;
    sqlite3 *fault;            /* the second connection that breaks things */
    board_service *svc;
    board_client *here;
} world;


static int setup(void **state)
{
    world *w = calloc(1, sizeof *w);
    snprintf(w->dir, sizeof w->dir, "/tmp/sungka-durable-XXXXXX");
    assert_non_null(mkdtemp(w->dir));
    snprintf(w->path, sizeof w->path, "%s/sungka.db", w->dir);
    char err[256];
    assert_int_equal(store_open(w->path, &w->db, err, sizeof err), 0);
    assert_int_equal(sqlite3_open(w->path, &w->fault), SQLITE_OK);
    sqlite3_busy_timeout(w->fault, 5000);
    w->svc = fixture_service(w->db, recorders);
    w->here = board_client_find(w->svc, "ipv4:192.0.2.7");
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world *w = *state;
    fixture_service_free(w->svc);
    sqlite3_close(w->fault);
    store_close(w->db);
    char file[128];
    const char *suffixes[] = {"", "-wal", "-shm", ".lock"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        snprintf(file, sizeof file, "%s%s", w->path, suffixes[i]);
        unlink(file);
    }
    rmdir(w->dir);
    free(w);
    return 0;
}

static void fault_sql(world *w, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(w->fault, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "?");
}

/* Inserts into `table` fail from now on, as on a full disk. */
static void refuse_inserts(world *w, const char *table)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "CREATE TRIGGER refuse_%s BEFORE INSERT ON %s BEGIN "
             "SELECT RAISE(ABORT, 'the disk is full'); END", table, table);
    fault_sql(w, sql);
}

/* The moves of game id that its stored log holds (the record: `moves`
 * rows are written only when a game ends). */
static int stored_moves(world *w, const char *id)
{
    store_move *moves;
    int n;
    char err[256];
    assert_int_equal(board_match_moves(w->svc->store, id, &moves, &n, err, sizeof err), 0);
    free(moves);
    return n;
}

static void allow_inserts(world *w, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "DROP TRIGGER refuse_%s", table);
    fault_sql(w, sql);
}

/* One integer the fault connection reads (e.g. a count), -1 for no row. */
static long long sql_number(world *w, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w->fault, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(w->fault));
    long long v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return v;
}

/* A stored game of kalah, in the service's registry, as CreateGame makes. */
static room *new_game(world *w, const char *id, bool rated)
{
    const game_kind *kalah = game_kind_find("kalah");
    game_options opts;
    game_options_default(kalah, &opts);
    store_game_info g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "%s", id);
    snprintf(g.kind, sizeof g.kind, "kalah");
    g.seats = 2;
    g.status = ROOM_WAITING;
    g.rated = rated;
    g.n_options = kalah->n_options;
    for (int i = 0; i < g.n_options; i++) {
        snprintf(g.options[i].name, sizeof g.options[i].name, "%s", kalah->options[i].name);
        g.options[i].value = kalah->options[i].def;
    }
    assert_int_equal(store_game_create(w->db, &g), 0);
    room *r = make_room(w->svc, id, kalah, &opts, "a test");
    assert_non_null(r);
    char err[256];
    if (rated)
        assert_int_equal(room__set_rated(r, err, sizeof err), ROOM_OK);
    assert_int_equal(board_rooms_add(w->svc, r), 0);
    return r;
}

static int64_t new_account(world *w, const char *name)
{
    store_account a;
    memset(&a, 0, sizeof a);
    snprintf(a.name, sizeof a.name, "%s", name);
    snprintf(a.name_key, sizeof a.name_key, "%s", name);
    snprintf(a.skeleton, sizeof a.skeleton, "%s", name);
    snprintf(a.look, sizeof a.look, "%s", name);
    snprintf(a.password_hash, sizeof a.password_hash, "not a hash");
    assert_int_equal(store_account_create(w->db, &a, NULL), 0);
    return a.id;
}

/* alice and bob (for accounts, or guests when 0) seated, ready, subscribed. */
static void start_two(world *w, room *r, int64_t alice_account, int64_t bob_account,
                      fake_stream *sa, fake_stream *sb)
{
    char err[256];
    participant *a, *b;
    assert_int_equal(room_join_as(r, "alice", alice_account, false, w->here, NULL, &a, err,
                                  sizeof err), ROOM_OK);
    assert_int_equal(room_join_as(r, "bob", bob_account, false, w->here, NULL, &b, err,
                                  sizeof err),
                     ROOM_OK);
    assert_int_equal(room_subscribe(r, a, sa, w->here, 0, err, sizeof err), ROOM_OK);
    assert_int_equal(room_subscribe(r, b, sb, w->here, 0, err, sizeof err), ROOM_OK);
    assert_int_equal(room_ready(r, a, true, err, sizeof err), ROOM_OK);
    assert_int_equal(room_ready(r, b, true, err, sizeof err), ROOM_OK);
    assert_int_equal(r->status, ROOM_RUNNING);
}

static participant *seat_holder(room *r, int seat)
{
    participant *p = r->seat_holder[seat];
    assert_non_null(p);
    return p;
}

/* The first legal move of the seat to move, committed. */
static room_rc play(world *w, room *r, fake_reply *reply)
{
    char err[256];
    int legal[GAME_MAX_MOVES];
    int n = game_legal_moves(&r->state, legal, GAME_MAX_MOVES);
    assert_true(n > 0);
    room_rc rc = room_move(r, seat_holder(r, game_to_move(&r->state)), legal[0], reply, err,
                           sizeof err);
    room_commit_moves(w->svc);
    return rc;
}

/* The first legal move of the seat to move, in this loop turn's batch (not
 * committed yet). */
static room_rc move_in_turn(room *r, fake_reply *reply)
{
    char err[256];
    int legal[GAME_MAX_MOVES];
    assert_true(game_legal_moves(&r->state, legal, GAME_MAX_MOVES) > 0);
    return room_move(r, seat_holder(r, game_to_move(&r->state)), legal[0], reply, err,
                     sizeof err);
}

/* After a failure: the game in the registry is r, diverged; reloading it
 * puts a new room in its place (returned). */
static room *reloaded(world *w, room *r)
{
    char id[BOARD_ID_LEN];
    snprintf(id, sizeof id, "%s", r->id);
    assert_true(r->diverged);
    assert_int_equal(w->svc->n_diverged, 1);
    board_reload_diverged(w->svc, board_now_ms());
    assert_int_equal(w->svc->n_diverged, 0);
    room *fresh = board_find_room(w->svc, id);
    assert_non_null(fresh);
    assert_false(fresh->diverged);
    return fresh;
}


/* End every stream while the test's recorders still exist. */
static void close_all(board_service *svc)
{
    for (int i = 0; i < svc->n_rooms; i++)
        room_close_streams(svc->rooms[i], "the test is over");
}

/* ---------------------------------------------------------------- tests */

/* A chat line whose append fails (the database refuses it) reaches nobody
 * and uses up no sequence number; its sender is told; the game, which
 * changed only by the event that failed, goes on without a reload: the
 * next event takes the number the refused one would have, and a restart
 * recovers the log whole. Before, the line was sent and counted, leaving a
 * hole in the stored log that made recovery refuse the game for good. A
 * change that had altered the room (a seat taken) reloads it instead. */
static void unstored_event_is_not_sent(void **state)
{
    world *w = *state;
    char err[256];
    room *r = new_game(w, "1", false);
    fake_stream sa = {0}, sb = {0};
    start_two(w, r, 0, 0, &sa, &sb);
    uint64_t before = r->log_len;
    assert_int_equal(last_seq(&sb), before);

    refuse_inserts(w, "events");
    participant *alice = room_find_name(r, "alice");
    assert_int_equal(room_chat(r, alice, w->here, "hello", NULL, err, sizeof err), ROOM_E_STORE);
    assert_non_null(strstr(err, "could not be stored"));
    assert_int_equal(count(&sb, SUNGKA__V1__EVENT__BODY_CHAT), 0);
    assert_int_equal(count(&sa, SUNGKA__V1__EVENT__BODY_CHAT), 0);
    assert_int_equal(r->log_len, before);
    assert_false(r->diverged);                  /* nothing else had changed */
    allow_inserts(w, "events");

    assert_int_equal(room_chat(r, alice, w->here, "hello again", NULL, err, sizeof err),
                     ROOM_OK);
    assert_int_equal(count(&sb, SUNGKA__V1__EVENT__BODY_CHAT), 1);
    assert_int_equal(last_seq(&sb), before + 1);
    fake_reply reply = {0};
    assert_int_equal(play(w, r, &reply), ROOM_OK);
    assert_int_equal(reply.rc, ROOM_OK);
    assert_int_equal(last_seq(&sb), before + 2);

    /* An observer's arrival that cannot be stored: the room had changed
     * (a participant added), so it is reloaded, without them. */
    refuse_inserts(w, "participants");
    participant *olga = NULL;
    assert_int_equal(room_join(r, "olga", true, w->here, &olga, err, sizeof err), ROOM_E_STORE);
    assert_null(olga);
    allow_inserts(w, "participants");
    r = reloaded(w, r);
    assert_null(room_find_name(r, "olga"));
    assert_true(sa.finished && sb.finished);    /* told to come back */
    assert_int_equal(r->log_len, before + 2);
    size_t log_len = r->log_len;

    /* A second service on the same database: the log is whole. */
    board_service *again = fixture_service(w->db, recorders);
    assert_int_equal(board_recover(again, err, sizeof err), 0);
    assert_int_equal(again->n_rooms, 1);
    assert_false(again->rooms[0]->damaged);
    assert_int_equal(again->rooms[0]->log_len, log_len + 1);   /* + the restart's notice */
    assert_memory_equal(again->rooms[0]->state.cells, r->state.cells, sizeof r->state.cells);
    fixture_service_free(again);
}

/* A move whose write fails is refused NOT_STORED, nobody sees it, and
 * after the reload the same seat plays it again. The move's only write is
 * its event, whose failure leaves the room as it was (one_game_fails_its_
 * move_alone); here the event is written and applied, and the turn's COMMIT
 * fails (a deferred key the event's insert broke), as a full disk at commit
 * would. (It used to fail the move's row in `moves`, written per move.) */
static void unstored_move_is_refused(void **state)
{
    world *w = *state;
    char err[256];
    room *r = new_game(w, "2", false);
    fake_stream sa = {0}, sb = {0};
    start_two(w, r, 0, 0, &sa, &sb);
    fake_reply first = {0};
    assert_int_equal(play(w, r, &first), ROOM_OK);
    game_state before = r->state;
    int seen_a = sa.n, seen_b = sb.n;

    fault_sql(w, "CREATE TABLE guard (id INTEGER PRIMARY KEY);"
                 "CREATE TABLE fence (g INTEGER REFERENCES guard(id) DEFERRABLE INITIALLY "
                 "DEFERRED);"
                 "CREATE TRIGGER fence_moves AFTER INSERT ON events BEGIN "
                 "INSERT INTO fence VALUES (42); END");
    fake_reply refused = {0};
    assert_int_equal(play(w, r, &refused), ROOM_OK);   /* played, then not stored */
    assert_true(refused.done);
    assert_int_equal(refused.rc, ROOM_E_STORE);
    assert_int_equal(count(&sa, SUNGKA__V1__EVENT__BODY_MOVE_MADE), 1);
    assert_int_equal(count(&sb, SUNGKA__V1__EVENT__BODY_MOVE_MADE), 1);
    (void)seen_a;
    (void)seen_b;
    /* Until it is reloaded the game takes no move. */
    int legal[GAME_MAX_MOVES];
    game_legal_moves(&before, legal, GAME_MAX_MOVES);
    fake_reply early = {0};
    assert_int_equal(room_move(r, seat_holder(r, game_to_move(&before)), legal[0], &early, err,
                               sizeof err), ROOM_E_STORE);
    fault_sql(w, "DROP TRIGGER fence_moves");

    r = reloaded(w, r);
    assert_memory_equal(r->state.cells, before.cells, sizeof before.cells);
    assert_int_equal(r->n_moves, 1);
    fake_reply again = {0};
    assert_int_equal(play(w, r, &again), ROOM_OK);
    assert_int_equal(again.rc, ROOM_OK);
    assert_int_equal(again.seq, r->log_len);
    assert_int_equal(r->n_moves, 2);
    close_all(w->svc);
}

/* The same on a Play stream: a move whose turn's COMMIT fails comes back
 * as a CommandRefused (STORE, with the command's id) to the mover's stream
 * only, no MoveMade reaches anyone, the game takes no move until it is
 * reloaded, and then the seat plays it again. */
static void unstored_stream_move_is_refused(void **state)
{
    world *w = *state;
    char err[256];
    room *r = new_game(w, "2", false);
    fake_stream sa = {0}, sb = {0};
    start_two(w, r, 0, 0, &sa, &sb);
    int legal[GAME_MAX_MOVES];
    game_legal_moves(&r->state, legal, GAME_MAX_MOVES);
    participant *mover = seat_holder(r, game_to_move(&r->state));
    assert_int_equal(room_move_on_stream(r, mover, legal[0], 1, err, sizeof err), ROOM_OK);
    room_commit_moves(w->svc);
    assert_int_equal(count(&sa, SUNGKA__V1__EVENT__BODY_MOVE_MADE), 1);
    game_state before = r->state;

    fault_sql(w, "CREATE TABLE guard (id INTEGER PRIMARY KEY);"
                 "CREATE TABLE fence (g INTEGER REFERENCES guard(id) DEFERRABLE INITIALLY "
                 "DEFERRED);"
                 "CREATE TRIGGER fence_moves AFTER INSERT ON events BEGIN "
                 "INSERT INTO fence VALUES (42); END");
    game_legal_moves(&r->state, legal, GAME_MAX_MOVES);
    mover = seat_holder(r, game_to_move(&r->state));
    fake_stream *mine = mover->stream, *other = mine == &sa ? &sb : &sa;
    assert_int_equal(room_move_on_stream(r, mover, legal[0], 7, err, sizeof err), ROOM_OK);
    room_commit_moves(w->svc);
    assert_int_equal(mine->n_refused, 1);
    assert_int_equal(mine->refused_id, 7);
    assert_int_equal(mine->refused_rc, ROOM_E_STORE);
    assert_int_equal(other->n_refused, 0);
    assert_int_equal(count(&sa, SUNGKA__V1__EVENT__BODY_MOVE_MADE), 1);
    assert_int_equal(count(&sb, SUNGKA__V1__EVENT__BODY_MOVE_MADE), 1);
    /* Until it is reloaded the game takes no move, on a stream either. */
    assert_int_equal(room_move_on_stream(r, mover, legal[0], 8, err, sizeof err), ROOM_E_STORE);
    fault_sql(w, "DROP TRIGGER fence_moves");

    r = reloaded(w, r);
    assert_memory_equal(r->state.cells, before.cells, sizeof before.cells);
    assert_int_equal(r->n_moves, 1);
    game_legal_moves(&r->state, legal, GAME_MAX_MOVES);
    assert_int_equal(room_move_on_stream(r, seat_holder(r, game_to_move(&r->state)), legal[0], 9,
                                         err, sizeof err), ROOM_OK);
    room_commit_moves(w->svc);
    assert_int_equal(r->n_moves, 2);
    assert_int_equal(mine->n_refused, 1);
    close_all(w->svc);
}

/* A rated game's last move whose COMMIT fails: the move is refused, the
 * game runs on, and nobody's rating has changed, in the store or in the
 * room (snapshots and pings show the participants' ratings). Before, the
 * undo restored the board but kept the new ratings in memory. */
static void rated_last_move_commit_fails(void **state)
{
    world *w = *state;
    room *r = new_game(w, "3", true);
    w->svc->cfg.rated_same_address = true;     /* both play from w->here */
    int64_t alice_id = new_account(w, "alice"), bob_id = new_account(w, "bob");
    fake_stream sa = {0}, sb = {0};
    start_two(w, r, alice_id, bob_id, &sa, &sb);
    store_rating newcomer = room_find_name(r, "alice")->rating;

    /* Play until one move is left to end the game. */
    for (int guard = 0; guard < 500; guard++) {
        game_state next = r->state;
        int legal[GAME_MAX_MOVES];
        game_legal_moves(&next, legal, GAME_MAX_MOVES);
        char err[GAME_ERR_LEN];
        assert_int_equal(game_play(&next, game_to_move(&next), legal[0], NULL, err, sizeof err),
                         GAME_OK);
        if (game_is_over(&next))
            break;
        fake_reply reply = {0};
        assert_int_equal(play(w, r, &reply), ROOM_OK);
        assert_int_equal(reply.rc, ROOM_OK);
    }
    assert_int_equal(r->status, ROOM_RUNNING);
    game_state before = r->state;
    int n_moves = r->n_moves;

    /* Every write of the ending succeeds; its COMMIT breaks a deferred key. */
    fault_sql(w, "CREATE TABLE guard (id INTEGER PRIMARY KEY);"
                 "CREATE TABLE fence (g INTEGER REFERENCES guard(id) DEFERRABLE INITIALLY "
                 "DEFERRED);"
                 "CREATE TRIGGER fence_ratings AFTER INSERT ON rating_history BEGIN "
                 "INSERT INTO fence VALUES (42); END");
    fake_reply last = {0};
    assert_int_equal(play(w, r, &last), ROOM_OK);
    assert_true(last.done);
    assert_int_equal(last.rc, ROOM_E_STORE);
    assert_int_equal(count(&sa, SUNGKA__V1__EVENT__BODY_GAME_OVER), 0);
    fault_sql(w, "DROP TRIGGER fence_ratings");

    r = reloaded(w, r);
    assert_int_equal(r->status, ROOM_RUNNING);
    assert_int_equal(r->n_moves, n_moves);
    assert_memory_equal(r->state.cells, before.cells, sizeof before.cells);
    for (int s = 0; s < 2; s++) {
        const participant *p = seat_holder(r, s);
        assert_true(p->has_rating);
        assert_true(p->rating.rating == newcomer.rating);
        assert_int_equal(p->rating.games, 0);
        store_rating stored;
        assert_int_equal(store_rating_get(w->db, p->account_id, "kalah", &stored),
                         STORE_NOT_FOUND);
    }
    /* Played again, it ends the game and rates it. */
    fake_reply again = {0};
    assert_int_equal(play(w, r, &again), ROOM_OK);
    assert_int_equal(again.rc, ROOM_OK);
    assert_int_equal(r->status, ROOM_FINISHED);
    assert_int_equal(seat_holder(r, 0)->rating.games, 1);
    close_all(w->svc);
}

/* Under a database that went back in time (its last events gone), the
 * game's next change is refused, nothing is numbered on from the hole, and
 * the game is no longer served: let go, not reloaded from the shorter log
 * (which would send numbers already sent, for other events), and stopped
 * for good in the store: abandoned, its people forgotten, so that neither a
 * restart nor another node's adoption brings it back from that log (both
 * did: it stayed an unfinished game with its players). */
static void log_gone_back_in_time(void **state)
{
    world *w = *state;
    char err[256];
    room *r = new_game(w, "5", false);
    fake_stream sa = {0}, sb = {0};
    start_two(w, r, 0, 0, &sa, &sb);
    uint64_t seen = last_seq(&sb);
    char sql[96];
    snprintf(sql, sizeof sql, "DELETE FROM events WHERE game_id = '5' AND seq = %llu",
             (unsigned long long)seen);
    fault_sql(w, sql);
    participant *alice = room_find_name(r, "alice");
    assert_int_equal(room_chat(r, alice, w->here, "hello", NULL, err, sizeof err), ROOM_E_STORE);
    assert_true(room_is_behind(r));
    assert_false(r->diverged);
    assert_int_equal(last_seq(&sb), seen);       /* nothing numbered on */
    board_let_go_lost(w->svc);
    assert_null(board_find_room(w->svc, "5"));
    assert_true(sa.finished && sb.finished);
    assert_int_equal(w->svc->n_lost, 0);
    assert_int_equal(sql_number(w, "SELECT status FROM games WHERE id = '5'"), ROOM_ABANDONED);
    assert_int_equal(sql_number(w, "SELECT instr(reason, 'went back in time') > 0 "
                                   "FROM games WHERE id = '5'"), 1);
    assert_int_equal(sql_number(w, "SELECT count(*) FROM participants WHERE game_id = '5'"), 0);
}

/* ------------------------------------------ a match's moves, from its log */

/* What 0.x wrote to `moves` per move, and what history must still read. */
typedef struct played {
    int n;
    store_move m[512];
} played;

/* One move (play()), noting what the old code would have stored: its ply,
 * seat and move, at the time of its event (the stored MoveMade's). */
static void play_noted(world *w, room *r, played *seen)
{
    assert_true(seen->n < 512);
    int seat = game_to_move(&r->state);
    int legal[GAME_MAX_MOVES];
    assert_true(game_legal_moves(&r->state, legal, GAME_MAX_MOVES) > 0);
    fake_reply reply = {0};
    assert_int_equal(play(w, r, &reply), ROOM_OK);
    assert_int_equal(reply.rc, ROOM_OK);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT time_ms FROM events WHERE game_id = '%s' AND seq = %llu",
             r->id, (unsigned long long)reply.seq);
    seen->m[seen->n] = (store_move){.ply = seen->n, .seat = seat, .move = legal[0],
                                    .time_ms = sql_number(w, sql)};
    seen->n++;
}

/* What GetMatch and the exports read of an ended game (store_match) is what
 * was played, move by move. */
static void assert_match_is(world *w, const char *id, const played *want)
{
    store_match_summary m;
    store_move *moves = NULL;
    int n = 0;
    assert_int_equal(store_match(w->db, id, &m, &moves, &n), 0);
    assert_true(m.game.status >= STORE_FINISHED);
    assert_int_equal(m.n_moves, want->n);
    assert_int_equal(n, want->n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(moves[i].ply, want->m[i].ply);
        assert_int_equal(moves[i].seat, want->m[i].seat);
        assert_int_equal(moves[i].move, want->m[i].move);
        assert_int_equal(moves[i].time_ms, want->m[i].time_ms);
    }
    free(moves);
}

/* A move's only write is its event; the game's moves are written to
 * `moves` once, as it ends, and read as the per-move rows were: same plies,
 * seats, moves and times. A game begun by 0.x (rows for its first moves,
 * with their own times) and finished now keeps those rows and gains the
 * rest. (Without the fill at the end, an ended game has no moves.) */
static void a_finished_game_reads_as_before(void **state)
{
    world *w = *state;
    room *r = new_game(w, "9", false);
    fake_stream sa = {0}, sb = {0};
    start_two(w, r, 0, 0, &sa, &sb);
    played seen = {0};
    play_noted(w, r, &seen);
    assert_int_equal(sql_number(w, "SELECT count(*) FROM moves WHERE game_id = '9'"), 0);
    while (r->status == ROOM_RUNNING)
        play_noted(w, r, &seen);
    assert_true(seen.n > 2);
    assert_match_is(w, "9", &seen);

    /* A game whose first three moves 0.x stored as rows. */
    room *old = new_game(w, "10", false);
    fake_stream oa = {0}, ob = {0};
    start_two(w, old, 0, 0, &oa, &ob);
    played then = {0};
    for (int i = 0; i < 3; i++) {
        play_noted(w, old, &then);
        then.m[i].time_ms = 7000 + i;       /* 0.x's own clock reading */
        assert_int_equal(store_move_append(w->db, "10", i, then.m[i].seat, then.m[i].move,
                                           then.m[i].time_ms), 0);
    }
    while (old->status == ROOM_RUNNING)
        play_noted(w, old, &then);
    assert_match_is(w, "10", &then);
    close_all(w->svc);
}

/* A game not ended across a restart: before it, its moves are read from
 * its log (GetMatch of a running game); after it, it goes on in a new
 * service from its stored log and, when it ends, every move of both runs
 * is in `moves`, in order. */
static void unfinished_game_across_a_restart(void **state)
{
    world *w = *state;
    char err[256];
    room *r = new_game(w, "11", false);
    fake_stream sa = {0}, sb = {0};
    start_two(w, r, 0, 0, &sa, &sb);
    played seen = {0};
    for (int i = 0; i < 4; i++)
        play_noted(w, r, &seen);
    store_move *moves;
    int n;
    assert_int_equal(board_match_moves(w->db, "11", &moves, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    for (int i = 0; i < n; i++) {
        assert_int_equal(moves[i].ply, seen.m[i].ply);
        assert_int_equal(moves[i].seat, seen.m[i].seat);
        assert_int_equal(moves[i].move, seen.m[i].move);
        assert_int_equal(moves[i].time_ms, seen.m[i].time_ms);
    }
    free(moves);
    close_all(w->svc);

    board_service *again = fixture_service(w->db, recorders);
    assert_int_equal(board_recover(again, err, sizeof err), 0);
    room *back = board_find_room(again, "11");
    assert_non_null(back);
    assert_int_equal(back->n_moves, 4);
    board_client *here = board_client_find(again, "ipv4:192.0.2.7");
    fake_stream ra = {0}, rb = {0};
    assert_int_equal(room_subscribe(back, room_find_name(back, "alice"), &ra, here, 0, err,
                                    sizeof err), ROOM_OK);
    assert_int_equal(room_subscribe(back, room_find_name(back, "bob"), &rb, here, 0, err,
                                    sizeof err), ROOM_OK);
    world there = *w;
    there.svc = again;
    while (back->status == ROOM_RUNNING)
        play_noted(&there, back, &seen);
    assert_match_is(w, "11", &seen);
    close_all(again);
    fixture_service_free(again);
}

/* A node that serves a game from a log that went back in time (loaded
 * after a failover to a standby that was behind, as an adopter does) has
 * no memory of what was lost; its players do. One seated player resuming
 * past the log's end is refused and changes nothing (it could be lying);
 * the second stops the game for good, as a write that finds its log behind
 * does. (The adopter played on, numbering other moves under the seqs the
 * players had seen: found by the chaos test with an asynchronous standby.) */
static void players_resuming_past_the_log(void **state)
{
    world *w = *state;
    char err[256];
    room *r = new_game(w, "8", false);
    fake_stream sa = {0}, sb = {0};
    start_two(w, r, 0, 0, &sa, &sb);
    for (int i = 0; i < 3; i++) {
        fake_reply moved = {0};
        assert_int_equal(play(w, r, &moved), ROOM_OK);
    }
    uint64_t seen = last_seq(&sb);
    char sql[96];
    snprintf(sql, sizeof sql, "DELETE FROM events WHERE game_id = '8' AND seq > %llu",
             (unsigned long long)seen - 2);
    fault_sql(w, sql);
    fault_sql(w, "DELETE FROM moves WHERE game_id = '8' AND ply > 0");
    room__diverge(r, "the test loads it again from the shorter log");
    r = reloaded(w, r);
    assert_int_equal(r->log_len, seen - 2);
    participant *alice = room_find_name(r, "alice"), *bob = room_find_name(r, "bob");
    fake_stream again_a = {0}, again_b = {0};
    assert_int_equal(room_subscribe(r, alice, &again_a, w->here, seen, err, sizeof err),
                     ROOM_E_RANGE);
    assert_false(r->lost);                       /* one player's word */
    assert_int_equal(room_subscribe(r, alice, &again_a, w->here, seen, err, sizeof err),
                     ROOM_E_RANGE);
    assert_false(r->lost);                       /* ... however often */
    assert_int_equal(room_subscribe(r, bob, &again_b, w->here, seen, err, sizeof err),
                     ROOM_E_RANGE);
    assert_true(room_is_behind(r));
    board_let_go_lost(w->svc);
    assert_null(board_find_room(w->svc, "8"));
    assert_int_equal(sql_number(w, "SELECT status FROM games WHERE id = '8'"), ROOM_ABANDONED);
    close_all(w->svc);
}

/* Two games move in one loop turn, and the second one's write fails: that
 * move alone is refused, undone to its savepoint; the first game's move is
 * stored, sent and acknowledged, and its game goes on. (One game's failure
 * refused every move of the turn and reloaded every game in it: 1,053 moves
 * of other games in a fault campaign.) */
static void one_game_fails_its_move_alone(void **state)
{
    world *w = *state;
    room *good = new_game(w, "6", false), *bad = new_game(w, "7", false);
    fake_stream g1 = {0}, g2 = {0}, b1 = {0}, b2 = {0};
    start_two(w, good, 0, 0, &g1, &g2);
    start_two(w, bad, 0, 0, &b1, &b2);
    fault_sql(w, "CREATE TRIGGER refuse_7 BEFORE INSERT ON events WHEN NEW.game_id = '7' "
                 "BEGIN SELECT RAISE(ABORT, 'the disk is full'); END");
    fake_reply moved = {0}, refused = {0};
    assert_int_equal(move_in_turn(good, &moved), ROOM_OK);
    assert_int_equal(move_in_turn(bad, &refused), ROOM_E_STORE);
    room_commit_moves(w->svc);
    assert_true(moved.done);
    assert_int_equal(moved.rc, ROOM_OK);
    assert_false(good->diverged);
    assert_int_equal(count(&g2, SUNGKA__V1__EVENT__BODY_MOVE_MADE), 1);
    assert_int_equal(stored_moves(w, "6"), 1);
    assert_false(refused.done);          /* answered by room_move's return instead */
    assert_false(bad->diverged);         /* its event never stored: nothing applied */
    assert_int_equal(count(&b2, SUNGKA__V1__EVENT__BODY_MOVE_MADE), 0);
    assert_int_equal(stored_moves(w, "7"), 0);
    close_all(w->svc);
}

/* The replay check rebuilds a game from its log and finds where the live
 * one went its own way: here a draw offer and a clock kept in memory only,
 * as a change that bypassed the event table would. */
static void replay_check_finds_a_drift(void **state)
{
    world *w = *state;
    char err[256];
    room *r = new_game(w, "4", false);
    time_control tc = {0, 60000, 1000};
    assert_int_equal(room__set_time_control(r, &tc, err, sizeof err), 0);
    fake_stream sa = {0}, sb = {0};
    start_two(w, r, 0, 0, &sa, &sb);
    fake_reply reply = {0};
    assert_int_equal(play(w, r, &reply), ROOM_OK);
    participant *p = seat_holder(r, game_to_move(&r->state));
    assert_int_equal(room_offer_draw(r, p, err, sizeof err), ROOM_OK);
    assert_int_equal(board_check_replay(w->svc), 0);
    assert_int_equal(board_check_replay(w->svc), 0);      /* nothing new: not rebuilt */

    r->draw_offer = -1;                       /* drifts, in memory only */
    r->clock_ms[1] += 5000;
    room_event ev = {.kind = ROOM_EV_NOTICE, .text = "a notice"};
    room__change_begin(r);
    room__append_event(r, &ev);               /* the log grows: checked again */
    assert_int_equal(room__change_end(r, err, sizeof err), ROOM_OK);
    assert_int_equal(board_check_replay(w->svc), 2);
    close_all(w->svc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(unstored_event_is_not_sent, setup, teardown),
        cmocka_unit_test_setup_teardown(unstored_move_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(unstored_stream_move_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(rated_last_move_commit_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(replay_check_finds_a_drift, setup, teardown),
        cmocka_unit_test_setup_teardown(log_gone_back_in_time, setup, teardown),
        cmocka_unit_test_setup_teardown(one_game_fails_its_move_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(players_resuming_past_the_log, setup, teardown),
        cmocka_unit_test_setup_teardown(a_finished_game_reads_as_before, setup, teardown),
        cmocka_unit_test_setup_teardown(unfinished_game_across_a_restart, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
