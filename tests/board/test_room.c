/*
 * test_room.c — the heart of the board service without a server: a room
 * driven directly, with recorders standing in for its streams and its Move
 * calls (room_io). Joins and seats, ready and the start, moves and their
 * one commit, departures and the grace, chat limits, slow subscribers, and
 * recovery from the store. No sockets, no threads.
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
#include "sungka/v1/sungka.pb-c.h"

/* ------------------------------------------------------------ recorders */

#define MAX_SEEN 256

/* One subscriber's stream: what it was sent, in order, and how it ended. */
typedef struct fake_stream {
    int n;
    Sungka__V1__Event *seen[MAX_SEEN];
    int order[MAX_SEEN];       /* when, across every stream */
    bool full;                 /* answer sends with "outbox full" */
    int room;                  /* > 0: the outbox fills after this many */
    bool finished;
    room_rc end_rc;
    char why[256];
} fake_stream;

static int clock_sends;

static int rec_send(void *stream, const void *data, size_t len)
{
    fake_stream *s = stream;
    assert_false(s->finished);
    if (s->full || (s->room > 0 && s->n >= s->room))
        return -2;
    assert_true(s->n < MAX_SEEN);
    s->seen[s->n] = (Sungka__V1__Event *)protobuf_c_message_unpack(
        &sungka__v1__event__descriptor, NULL, len, data);
    assert_non_null(s->seen[s->n]);
    s->order[s->n++] = ++clock_sends;
    return 0;
}

static void rec_finish(void *stream, room_rc rc, const char *why)
{
    fake_stream *s = stream;
    assert_false(s->finished);
    s->finished = true;
    s->end_rc = rc;
    snprintf(s->why, sizeof s->why, "%s", why);
}

static void stream_clear(fake_stream *s)
{
    for (int i = 0; i < s->n; i++)
        protobuf_c_message_free_unpacked(&s->seen[i]->base, NULL);
    memset(s, 0, sizeof *s);
}

/* The body of the k-th event the stream got (negative k: from the end). */
static Sungka__V1__Event__BodyCase kind_at(const fake_stream *s, int k)
{
    if (k < 0)
        k += s->n;
    assert_true(k >= 0 && k < s->n);
    return s->seen[k]->body_case;
}

/* The last logged event the stream got (pings are outside the log). */
static const Sungka__V1__Event *last_logged(const fake_stream *s)
{
    for (int i = s->n - 1; i >= 0; i--)
        if (s->seen[i]->seq != 0)
            return s->seen[i];
    fail_msg("no logged event");
    return NULL;
}

/* How many events of a kind the stream got. */
static int count(const fake_stream *s, Sungka__V1__Event__BodyCase kind)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += s->seen[i]->body_case == kind;
    return n;
}

/* ------------------------------------------------------------- fixtures */

static const room_io recorders = {rec_send, rec_finish, rec_move_done, NULL};

typedef struct world {
    board_service *svc;
    room *r;
    board_client *here;         /* every client of these tests shares one address */
} world;


/* A kalah room (6 cups, 4 stones) in the service's registry. */
static room *add_room(board_service *svc, const char *id)
{
    const game_kind *kalah = game_kind_find("kalah");
    game_options opts;
    game_options_default(kalah, &opts);
    room *r = make_room(svc, id, kalah, &opts, "a test");
    assert_non_null(r);
    assert_int_equal(board_rooms_add(svc, r), 0);
    return r;
}

static int setup(void **state)
{
    world *w = calloc(1, sizeof *w);
    w->svc = fixture_service(NULL, recorders);
    w->r = add_room(w->svc, "1");
    w->here = board_client_find(w->svc, "ipv4:192.0.2.7");
    *state = w;
    clock_sends = 0;
    return 0;
}

static int teardown(void **state)
{
    world *w = *state;
    fixture_service_free(w->svc);
    free(w);
    return 0;
}

/* End every stream of the test's rooms while the recorders still exist. */
static void close_all(board_service *svc)
{
    for (int i = 0; i < svc->n_rooms; i++)
        room_close_streams(svc->rooms[i], "the board service is shutting down");
}

static participant *join(world *w, const char *name, bool observe)
{
    participant *p = NULL;
    char err[256];
    room_rc rc = room_join(w->r, name, observe, w->here, &p, err, sizeof err);
    if (rc != ROOM_OK)
        fail_msg("joining %s: %d %s", name, rc, err);
    return p;
}

static void subscribe(world *w, participant *p, fake_stream *s, uint64_t after)
{
    char err[256];
    room_rc rc = room_subscribe(w->r, p, s, w->here, after, err, sizeof err);
    if (rc != ROOM_OK)
        fail_msg("subscribing %s: %d %s", p->name, rc, err);
}

/* alice (seat 0) and bob (seat 1) seated, subscribed and ready: started. */
static void start_two(world *w, participant **a, participant **b, fake_stream *sa,
                      fake_stream *sb)
{
    char err[256];
    *a = join(w, "alice", false);
    *b = join(w, "bob", false);
    subscribe(w, *a, sa, 0);
    subscribe(w, *b, sb, 0);
    assert_int_equal(room_ready(w->r, *a, true, err, sizeof err), ROOM_OK);
    assert_int_equal(room_ready(w->r, *b, true, err, sizeof err), ROOM_OK);
    assert_int_equal(w->r->status, ROOM_RUNNING);
}

/* ---------------------------------------------------------------- tests */

/* people[] keeps the seated before the watchers, each knowing its index, and
 * the count of watchers right, through joins before the players, sitting,
 * standing and leaving: what lets a crowd's snapshots skip the scan. */
static void crowd_keeps_players_first(void **state)
{
    world *w = *state;
    char err[256];
    enum { CROWD = 300 };
    participant *watcher[CROWD];
    for (int i = 0; i < CROWD; i++) {
        char name[16];
        snprintf(name, sizeof name, "w%d", i);
        watcher[i] = join(w, name, true);
    }
    participant *alice = join(w, "alice", false);
    assert_int_equal(room_sit(w->r, watcher[7], -1, err, sizeof err), ROOM_OK);
    assert_int_equal(room_stand(w->r, alice, err, sizeof err), ROOM_OK);
    assert_int_equal(room_sit(w->r, alice, -1, err, sizeof err), ROOM_OK);
    for (int i = 0; i < CROWD; i += 3)
        if (i != 7)
            room_leave(w->r, watcher[i]);
    int seated = 0;
    for (int i = 0; i < w->r->n_people; i++) {
        participant *p = w->r->people[i];
        assert_int_equal(p->at, i);
        assert_int_equal(p->seat >= 0, i < w->r->n_seated);
        seated += p->seat >= 0;
        assert_ptr_equal(room_find_name(w->r, p->name), p);
    }
    assert_int_equal(seated, 2);
    assert_int_equal(w->r->n_seated, 2);
    assert_int_equal(w->r->n_people, CROWD + 1 - CROWD / 3);
    assert_null(room_find_name(w->r, "w0"));
    assert_ptr_equal(room_find_name(w->r, "w7"), watcher[7]);
}

static void joins_and_seats(void **state)
{
    world *w = *state;
    char err[256];
    participant *p = NULL;
    participant *alice = join(w, "alice", false);
    participant *bob = join(w, "bob", false);
    assert_int_equal(alice->seat, 0);
    assert_int_equal(bob->seat, 1);
    assert_int_equal(room_join(w->r, "carol", false, w->here, &p, err, sizeof err),
                     ROOM_E_FULL);
    assert_string_equal(err, "game 1 is full");
    assert_int_equal(room_join(w->r, "alice", true, w->here, &p, err, sizeof err),
                     ROOM_E_TAKEN);
    assert_null(p);

    fake_stream sa = {0};
    subscribe(w, alice, &sa, 0);
    assert_int_equal(sa.n, 1);
    assert_int_equal(kind_at(&sa, 0), SUNGKA__V1__EVENT__BODY_SNAPSHOT);
    assert_int_equal(sa.seen[0]->snapshot->last_seq, 2);     /* two players joined */

    /* Observers are counted, not announced. */
    participant *carol = join(w, "carol", true);
    assert_int_equal(carol->seat, -1);
    assert_int_equal(w->here->observers, 1);
    assert_int_equal(sa.n, 1);
    assert_int_equal(w->r->log_len, 2);

    /* Sitting and standing are players' changes: they are events. */
    assert_int_equal(room_stand(w->r, bob, err, sizeof err), ROOM_OK);
    assert_int_equal(room_sit(w->r, carol, 1, err, sizeof err), ROOM_OK);
    assert_int_equal(w->here->observers, 0);        /* carol's watching seat is given back */
    assert_int_equal(count(&sa, SUNGKA__V1__EVENT__BODY_SEAT_CHANGED), 2);
    assert_int_equal(room_ready(w->r, bob, true, err, sizeof err), ROOM_E_OBSERVER);
    close_all(w->svc);
    stream_clear(&sa);
}

static void a_move_waits_for_its_commit(void **state)
{
    world *w = *state;
    char err[256];
    participant *alice, *bob;
    fake_stream sa = {0}, sb = {0};
    start_two(w, &alice, &bob, &sa, &sb);
    assert_int_equal(kind_at(&sb, -1), SUNGKA__V1__EVENT__BODY_GAME_STARTED);

    fake_reply out_of_turn = {0}, off_board = {0}, good = {0};
    assert_int_equal(room_move(w->r, bob, 2, &out_of_turn, err, sizeof err), ROOM_E_TURN);
    assert_string_equal(err, "it is alice's turn");
    assert_int_equal(room_move(w->r, alice, 9, &off_board, err, sizeof err), ROOM_E_INVALID);

    int before_a = sa.n, before_b = sb.n;
    assert_int_equal(room_move(w->r, alice, 2, &good, err, sizeof err), ROOM_OK);
    /* Played, but nobody hears of it, nor is it answered, before the commit. */
    assert_int_equal(sa.n, before_a);
    assert_int_equal(sb.n, before_b);
    assert_false(good.done);
    room_commit_moves(w->svc);
    assert_true(good.done);
    assert_int_equal(good.rc, ROOM_OK);
    assert_int_equal(sa.n, before_a + 1);
    assert_int_equal(sb.n, before_b + 1);
    Sungka__V1__Event *moved = sa.seen[sa.n - 1];
    assert_int_equal(moved->body_case, SUNGKA__V1__EVENT__BODY_MOVE_MADE);
    assert_int_equal(good.seq, moved->seq);
    assert_int_equal(moved->move_made->move, 2);
    assert_non_null(moved->move_made->turn);      /* the turn rides in the move */
    /* The mover hears first. */
    assert_true(sa.order[sa.n - 1] < sb.order[sb.n - 1]);
    /* The abandoned-call path: a mover that left before the commit. */
    fake_reply gone = {0};
    int to_move = game_to_move(&w->r->state);
    participant *mover = to_move == 0 ? alice : bob;
    int legal[GAME_MAX_MOVES];
    assert_true(game_legal_moves(&w->r->state, legal, GAME_MAX_MOVES) > 0);
    assert_int_equal(room_move(w->r, mover, legal[0], &gone, err, sizeof err), ROOM_OK);
    room_move_abandoned(w->svc, &gone);
    room_commit_moves(w->svc);
    assert_false(gone.done);
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&sb);
}

static void departure_grace_and_return(void **state)
{
    world *w = *state;
    participant *alice, *bob;
    fake_stream sa = {0}, sb = {0}, sa2 = {0};
    start_two(w, &alice, &bob, &sa, &sb);

    room_stream_ended(alice, &sa);            /* her connection closed */
    assert_true(alice->departed);
    assert_int_equal(kind_at(&sb, -1), SUNGKA__V1__EVENT__BODY_PLAYER_DEPARTED);
    assert_string_equal(sb.seen[sb.n - 1]->player_departed->reason, "the connection closed");
    assert_int_equal(sb.seen[sb.n - 1]->player_departed->grace_s, 60);

    /* Back within the grace, resuming after the last event she saw. */
    uint64_t last = sa.seen[sa.n - 1]->seq;
    subscribe(w, alice, &sa2, last);
    assert_false(alice->departed);
    assert_int_equal(kind_at(&sb, -1), SUNGKA__V1__EVENT__BODY_PLAYER_RETURNED);
    assert_int_equal(sa2.seen[0]->seq, last + 1);   /* the departure she missed */

    /* Gone again, and past the grace: the seat waits for bob to claim it
     * (bob, whose pings the clock jump skips, is not to miss them). Before
     * the grace runs out there is nothing to claim. */
    w->svc->cfg.ping_timeout_ms = 10 * w->svc->cfg.grace_ms;
    room_stream_ended(alice, &sa2);
    char err[256];
    assert_int_equal(room_claim(w->r, bob, err, sizeof err), ROOM_E_STATE);
    room_tick(w->r, board_now_ms() + w->svc->cfg.grace_ms + 1);
    assert_int_equal(w->r->status, ROOM_RUNNING);
    assert_int_equal(last_logged(&sb)->body_case, SUNGKA__V1__EVENT__BODY_PLAYER_DEPARTED);
    assert_int_equal(last_logged(&sb)->player_departed->grace_s, 0);
    assert_int_equal(room_claim(w->r, alice, err, sizeof err), ROOM_E_STATE);
    assert_int_equal(room_claim(w->r, bob, err, sizeof err), ROOM_OK);
    assert_int_equal(w->r->status, ROOM_FINISHED);
    const Sungka__V1__Event *over = last_logged(&sb);
    assert_int_equal(over->body_case, SUNGKA__V1__EVENT__BODY_GAME_OVER);
    assert_false(over->game_over->abandoned);
    assert_int_equal(over->game_over->n_winners, 1);
    assert_int_equal(over->game_over->winners[0], bob->seat);
    assert_string_equal(over->game_over->reason, "alice left the game; bob wins");
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&sa2);
    stream_clear(&sb);
}

/* Guests in one game are held to the accounts' look-alike rule: "aIice",
 * "ALICE" and "rnary" are refused beside "alice" and "mary", "alicia" is
 * not; another game does not care; an account's name is checked elsewhere. */
static void guest_look_alikes_in_a_game(void **state)
{
    world *w = *state;
    char err[256];
    participant *p = NULL;
    join(w, "alice", true);
    join(w, "mary", true);
    const struct { const char *name, *like; } refused[] = {
        {"aIice", "alice"}, {"ALICE", "alice"}, {"rnary", "mary"}, {"MARY", "mary"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(room_join(w->r, refused[i].name, true, w->here, &p, err, sizeof err),
                         ROOM_E_TAKEN);
        char want[128];
        snprintf(want, sizeof want, "looks like '%s'", refused[i].like);
        if (!strstr(err, want))
            fail_msg("refusing %s said '%s'", refused[i].name, err);
    }
    join(w, "alicia", true);
    /* the same name in another game is another person's business */
    room *other = add_room(w->svc, "2");
    assert_int_equal(room_join(other, "aIice", true, w->here, &p, err, sizeof err), ROOM_OK);
    /* signed in: the account's name was held to the rule against accounts */
    assert_int_equal(room_join_as(w->r, "Mary", 9, true, w->here, NULL, &p, err, sizeof err),
                     ROOM_OK);
    close_all(w->svc);
}

/* An account's seat tokens end with its sessions: alice's player and her
 * second place as an observer get new tokens, the old ones find nobody, her
 * stream ends UNAUTHENTICATED (ROOM_E_REVOKED) and she departs with the
 * grace; bob, a guest, and the game are untouched, and the seat is hers. */
static void account_tokens_revoked(void **state)
{
    world *w = *state;
    char err[256], old_seat[BOARD_TOKEN_HEX + 1], old_watch[BOARD_TOKEN_HEX + 1],
        old_bob[BOARD_TOKEN_HEX + 1];
    participant *alice = NULL, *watcher = NULL, *bob;
    assert_int_equal(room_join_as(w->r, "alice", 7, false, w->here, NULL, &alice, err, sizeof err),
                     ROOM_OK);
    assert_int_equal(room_join_as(w->r, "alice2", 7, true, w->here, NULL, &watcher, err, sizeof err),
                     ROOM_OK);
    bob = join(w, "bob", false);
    fake_stream sa = {0}, sb = {0};
    subscribe(w, alice, &sa, 0);
    subscribe(w, bob, &sb, 0);
    snprintf(old_seat, sizeof old_seat, "%s", alice->token);
    snprintf(old_watch, sizeof old_watch, "%s", watcher->token);
    snprintf(old_bob, sizeof old_bob, "%s", bob->token);
    participant *found = room_find_account(w->r, 7);
    assert_true(found == alice || found == watcher);

    int n = -1;
    assert_int_equal(room_revoke_account_tokens(w->r, 7, "signed out everywhere", &n), ROOM_OK);
    assert_int_equal(n, 2);
    assert_string_not_equal(alice->token, old_seat);
    assert_string_not_equal(watcher->token, old_watch);
    assert_null(person_index_find_token(&w->svc->tokens, old_seat));
    assert_null(person_index_find_token(&w->svc->tokens, old_watch));
    assert_ptr_equal(person_index_find_token(&w->svc->tokens, alice->token), alice);
    assert_ptr_equal(person_index_find_token(&w->svc->tokens, watcher->token), watcher);
    assert_true(sa.finished);
    assert_int_equal(sa.end_rc, ROOM_E_REVOKED);
    assert_string_equal(sa.why, "signed out everywhere");
    assert_true(alice->departed);
    assert_int_equal(alice->seat, 0);                 /* still hers */
    assert_string_equal(bob->token, old_bob);
    assert_false(sb.finished);
    assert_ptr_equal(person_index_find_token(&w->svc->tokens, old_bob), bob);
    /* an account with no one here, and a guest's "account" 0: nothing */
    assert_int_equal(room_revoke_account_tokens(w->r, 8, "x", &n), ROOM_OK);
    assert_int_equal(n, 0);
    assert_int_equal(room_revoke_account_tokens(w->r, 0, "x", &n), ROOM_OK);
    assert_int_equal(n, 0);
    assert_null(room_find_account(w->r, 8));
    /* back with the new token */
    fake_stream sa2 = {0};
    subscribe(w, alice, &sa2, 0);
    assert_false(alice->departed);
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&sa2);
    stream_clear(&sb);
}

/* Quitting a running game loses it (issue 16: it used to end the game with
 * no winner, so a losing player could walk away from every loss). */
static void quitting_loses_a_running_game(void **state)
{
    world *w = *state;
    participant *alice, *bob;
    fake_stream sa = {0}, sb = {0};
    start_two(w, &alice, &bob, &sa, &sb);
    room_leave(w->r, alice);
    assert_true(sa.finished);
    assert_int_equal(sa.end_rc, ROOM_OK);
    assert_int_equal(w->r->status, ROOM_FINISHED);
    assert_int_equal(kind_at(&sb, -2), SUNGKA__V1__EVENT__BODY_PLAYER_OUT);
    const Sungka__V1__Event *over = last_logged(&sb);
    assert_int_equal(over->body_case, SUNGKA__V1__EVENT__BODY_GAME_OVER);
    assert_false(over->game_over->abandoned);
    assert_int_equal(over->game_over->n_winners, 1);
    assert_int_equal(over->game_over->winners[0], bob->seat);
    assert_string_equal(over->game_over->reason, "alice quit; bob wins");
    /* still listed, so the result keeps her name (and account) */
    assert_ptr_equal(room_find_name(w->r, "alice"), alice);
    assert_true(alice->departed);
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&sb);
}

/* A player out of a three-seat game (resigned) whose connection then goes
 * and does not come back: the others play on. (Until issue 16 the grace
 * running out ended the game for everyone as abandoned.) */
static void out_and_gone_leaves_the_game_on(void **state)
{
    world *w = *state;
    const game_kind *sungka = game_kind_find("sungka");
    game_options opts;
    char err[256];
    game_options_default(sungka, &opts);
    assert_int_equal(game_options_set(sungka, &opts, "players", 3, err, sizeof err), GAME_OK);
    room *r = make_room(w->svc, "3", sungka, &opts, "three");
    assert_non_null(r);
    assert_int_equal(board_rooms_add(w->svc, r), 0);
    w->r = r;
    participant *p[3];
    fake_stream st[3] = {{0}};
    const char *names[3] = {"ann", "ben", "cy"};
    for (int i = 0; i < 3; i++) {
        p[i] = join(w, names[i], false);
        subscribe(w, p[i], &st[i], 0);
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(room_ready(r, p[i], true, err, sizeof err), ROOM_OK);
    assert_int_equal(room_resign(r, p[0], err, sizeof err), ROOM_OK);
    assert_int_equal(r->status, ROOM_RUNNING);
    w->svc->cfg.ping_timeout_ms = 10 * w->svc->cfg.grace_ms;
    room_stream_ended(p[0], &st[0]);
    room_tick(r, board_now_ms() + w->svc->cfg.grace_ms + 1);
    assert_int_equal(r->status, ROOM_RUNNING);
    assert_ptr_equal(room_find_name(r, "ann"), p[0]);    /* her place in the result kept */
    close_all(w->svc);
    for (int i = 0; i < 3; i++)
        stream_clear(&st[i]);
}

static void chat_limits(void **state)
{
    world *w = *state;
    char err[256];
    w->svc->cfg.chat_rate = 2;
    w->svc->cfg.client_chat_rate = 3;
    participant *alice = join(w, "alice", false);
    participant *bob = join(w, "bob", false);
    participant *olga = join(w, "olga", true);
    fake_stream sa = {0}, sb = {0}, so = {0};
    subscribe(w, alice, &sa, 0);
    subscribe(w, bob, &sb, 0);
    subscribe(w, olga, &so, 0);

    assert_int_equal(room_chat(w->r, alice, w->here, "a\x1b]0;x", "", err, sizeof err),
                     ROOM_E_INVALID);
    assert_string_equal(err, "the message contains a control character (U+001B)");
    assert_int_equal(room_chat(w->r, alice, w->here, "hi", "nobody", err, sizeof err),
                     ROOM_E_NOT_FOUND);
    assert_int_equal(room_chat(w->r, alice, w->here, "psst", "bob", err, sizeof err), ROOM_OK);
    assert_int_equal(count(&sb, SUNGKA__V1__EVENT__BODY_CHAT), 1);
    assert_int_equal(count(&so, SUNGKA__V1__EVENT__BODY_CHAT), 0);   /* private */
    assert_int_equal(room_chat(w->r, alice, w->here, "hello", "", err, sizeof err), ROOM_OK);
    /* alice's own limit (2 in the window)... */
    assert_int_equal(room_chat(w->r, alice, w->here, "again", "", err, sizeof err),
                     ROOM_E_LIMIT);
    assert_string_equal(err, "too many messages: at most 2 every 5 seconds");
    /* ...and the address's (3), whoever speaks. */
    assert_int_equal(room_chat(w->r, olga, w->here, "me too", "", err, sizeof err), ROOM_OK);
    assert_int_equal(room_chat(w->r, bob, w->here, "and me", "", err, sizeof err),
                     ROOM_E_LIMIT);
    assert_string_equal(err, "too many messages from your address: at most 3 every 5 seconds");
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&sb);
    stream_clear(&so);
}

static void slow_subscriber_cut_off(void **state)
{
    world *w = *state;
    char err[256];
    participant *alice = join(w, "alice", false);
    participant *olga = join(w, "olga", true);
    fake_stream sa = {0}, so = {0};
    subscribe(w, alice, &sa, 0);
    subscribe(w, olga, &so, 0);
    assert_int_equal(w->here->streams, 2);
    so.full = true;
    assert_int_equal(room_chat(w->r, alice, w->here, "hello", "", err, sizeof err), ROOM_OK);
    assert_true(so.finished);
    assert_int_equal(so.end_rc, ROOM_E_LIMIT);
    assert_string_equal(so.why, "too far behind; resubscribe after seq 1");
    assert_null(olga->stream);
    assert_int_equal(w->here->streams, 1);      /* the address's count comes back */
    /* A stream limit per address holds for subscriptions. */
    w->svc->cfg.max_client_streams = 1;
    fake_stream so2 = {0};
    assert_int_equal(room_subscribe(w->r, olga, &so2, w->here, 0, err, sizeof err),
                     ROOM_E_LIMIT);
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&so);
}

/* A replay that does not fit a stream's outbox cuts it off, saying where to
 * resume, rather than dropping the events that did not fit. */
static void replay_past_the_outbox(void **state)
{
    world *w = *state;
    char err[256];
    participant *alice = join(w, "alice", false);
    participant *olga = join(w, "olga", true);
    for (int i = 0; i < 4; i++) {
        w->svc->cfg.chat_rate = w->svc->cfg.client_chat_rate = 100;
        assert_int_equal(room_chat(w->r, alice, w->here, "hello", "", err, sizeof err),
                         ROOM_OK);
    }
    fake_stream so = {.room = 3};
    subscribe(w, olga, &so, 1);              /* events 2..5 into room for 3 */
    assert_int_equal(so.n, 3);
    assert_true(so.finished);
    assert_int_equal(so.end_rc, ROOM_E_LIMIT);
    assert_string_equal(so.why, "too far behind; resubscribe after seq 4");
    close_all(w->svc);
    stream_clear(&so);
}

/* Play the seat to move's last legal move (committed). */
static void play_one(world *w, participant *a, participant *b)
{
    char err[256];
    int legal[GAME_MAX_MOVES];
    int n = game_legal_moves(&w->r->state, legal, GAME_MAX_MOVES);
    participant *mover = game_to_move(&w->r->state) == a->seat ? a : b;
    fake_reply reply = {0};
    assert_int_equal(room_move(w->r, mover, legal[n - 1], &reply, err, sizeof err), ROOM_OK);
    room_commit_moves(w->svc);
    assert_int_equal(reply.rc, ROOM_OK);
}

static void resigning_loses(void **state)
{
    world *w = *state;
    char err[256];
    participant *alice, *bob;
    fake_stream sa = {0}, sb = {0};
    assert_int_equal(room_resign(w->r, join(w, "olga", true), err, sizeof err), ROOM_E_OBSERVER);
    start_two(w, &alice, &bob, &sa, &sb);
    play_one(w, alice, bob);
    assert_int_equal(room_resign(w->r, bob, err, sizeof err), ROOM_OK);
    assert_int_equal(w->r->status, ROOM_FINISHED);
    assert_int_equal(kind_at(&sa, -2), SUNGKA__V1__EVENT__BODY_PLAYER_OUT);
    const Sungka__V1__PlayerOut *out = sa.seen[sa.n - 2]->player_out;
    assert_string_equal(out->who->name, "bob");
    assert_string_equal(out->reason, "resigned");
    assert_null(out->turn);                           /* nobody's turn: it is over */
    const Sungka__V1__GameOver *over = last_logged(&sa)->game_over;
    assert_int_equal(over->n_winners, 1);
    assert_int_equal(over->winners[0], 0);
    assert_false(over->abandoned);
    assert_string_equal(over->reason, "bob resigned; alice wins");
    /* ... and as codes, for a client to say in its user's language */
    assert_int_equal(over->why, SUNGKA__V1__END_REASON__END_REASON_PLAYER_OUT);
    assert_int_equal(over->out, SUNGKA__V1__OUT_REASON__OUT_REASON_RESIGNED);
    assert_string_equal(over->who, "bob");
    assert_int_equal(room_resign(w->r, alice, err, sizeof err), ROOM_E_ENDED);
    assert_string_equal(err, "the game is over");
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&sb);
}

static void aborting_before_everyone_moved(void **state)
{
    world *w = *state;
    char err[256];
    participant *alice, *bob;
    fake_stream sa = {0}, sb = {0};
    start_two(w, &alice, &bob, &sa, &sb);
    play_one(w, alice, bob);
    while (w->r->moved != 3)                          /* until both have moved */
        play_one(w, alice, bob);
    assert_int_equal(room_abort(w->r, alice, err, sizeof err), ROOM_E_STATE);
    assert_string_equal(err, "every player has moved: too late to abort (resign instead)");
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&sb);

    /* A fresh game: aborted before bob's first move, with no result. */
    teardown(state);
    setup(state);
    w = *state;
    start_two(w, &alice, &bob, &sa, &sb);
    assert_int_equal(room_abort(w->r, bob, err, sizeof err), ROOM_OK);
    assert_int_equal(w->r->status, ROOM_ABANDONED);
    const Sungka__V1__GameOver *over = last_logged(&sa)->game_over;
    assert_true(over->abandoned);
    assert_int_equal(over->n_winners, 0);
    assert_string_equal(over->reason, "bob aborted the game");
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&sb);
}

static void draw_offers(void **state)
{
    world *w = *state;
    char err[256];
    participant *alice, *bob;
    fake_stream sa = {0}, sb = {0};
    start_two(w, &alice, &bob, &sa, &sb);
    assert_int_equal(room_answer_draw(w->r, bob, true, err, sizeof err), ROOM_E_NO_OFFER);
    assert_string_equal(err, "nobody has offered you a draw");
    assert_int_equal(room_offer_draw(w->r, alice, err, sizeof err), ROOM_OK);
    assert_int_equal(kind_at(&sb, -1), SUNGKA__V1__EVENT__BODY_DRAW_OFFERED);
    assert_int_equal(room_offer_draw(w->r, alice, err, sizeof err), ROOM_E_PENDING);
    assert_int_equal(room_answer_draw(w->r, alice, true, err, sizeof err), ROOM_E_NO_OFFER);
    assert_int_equal(room_answer_draw(w->r, bob, false, err, sizeof err), ROOM_OK);
    assert_int_equal(kind_at(&sa, -1), SUNGKA__V1__EVENT__BODY_DRAW_DECLINED);
    /* Once until she has moved again. */
    assert_int_equal(room_offer_draw(w->r, alice, err, sizeof err), ROOM_E_LIMIT);
    /* bob offers; a move lapses the offer; alice moved, so may offer again. */
    assert_int_equal(room_offer_draw(w->r, bob, err, sizeof err), ROOM_OK);
    int alice_moves = 0;
    while (!alice_moves) {
        alice_moves = game_to_move(&w->r->state) == alice->seat;
        play_one(w, alice, bob);
    }
    assert_int_equal(room_answer_draw(w->r, alice, true, err, sizeof err), ROOM_E_NO_OFFER);
    assert_int_equal(room_offer_draw(w->r, alice, err, sizeof err), ROOM_OK);
    assert_int_equal(room_answer_draw(w->r, bob, true, err, sizeof err), ROOM_OK);
    assert_int_equal(w->r->status, ROOM_FINISHED);
    const Sungka__V1__GameOver *over = last_logged(&sa)->game_over;
    assert_int_equal(over->n_winners, 0);
    assert_int_equal(over->why, SUNGKA__V1__END_REASON__END_REASON_DRAW_AGREED);
    assert_false(over->abandoned);
    assert_string_equal(over->reason, "alice and bob agreed a draw");
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&sb);
}

static void with_clock(world *w, int per_move_ms, int base_ms, int increment_ms)
{
    char err[256];
    time_control tc = {per_move_ms, base_ms, increment_ms};
    assert_int_equal(room__set_time_control(w->r, &tc, err, sizeof err), 0);
}

static void clock_falls(void **state)
{
    world *w = *state;
    char err[256];
    time_control both = {5000, 60000, 0};
    assert_int_equal(room__set_time_control(w->r, &both, err, sizeof err), -1);
    assert_string_equal(err, "a time control is per move or for the game, not both");
    with_clock(w, 5000, 0, 0);
    participant *alice, *bob;
    fake_stream sa = {0}, sb = {0};
    start_two(w, &alice, &bob, &sa, &sb);
    const Sungka__V1__Clocks *c = last_logged(&sa)->game_started->clocks;
    assert_non_null(c);
    assert_int_equal(c->n_remaining_ms, 2);
    assert_int_equal(c->remaining_ms[0], 5000);
    assert_int_equal(c->running->value, 0);
    while (w->r->moved != 3)
        play_one(w, alice, bob);
    const Sungka__V1__MoveMade *made = last_logged(&sa)->move_made;
    int next = game_to_move(&w->r->state);
    assert_int_equal(made->clocks->running->value, next);
    assert_int_equal(made->clocks->remaining_ms[next], 5000);   /* per move: afresh */
    int64_t since = w->r->clock_since_ms;
    assert_int_equal(room_clock_deadline(w->r), since + 5000);
    room_clock_check(w->r, since + 4999);
    assert_int_equal(w->r->status, ROOM_RUNNING);
    room_clock_check(w->r, since + 5000);
    assert_int_equal(w->r->status, ROOM_FINISHED);
    assert_int_equal(kind_at(&sa, -2), SUNGKA__V1__EVENT__BODY_PLAYER_OUT);
    assert_string_equal(sa.seen[sa.n - 2]->player_out->reason, "ran out of time");
    const Sungka__V1__GameOver *over = last_logged(&sa)->game_over;
    assert_int_equal(over->n_winners, 1);
    assert_int_equal(over->winners[0], 1 - next);
    char want[96];
    snprintf(want, sizeof want, "%s ran out of time; %s wins", next == 0 ? "alice" : "bob",
             next == 0 ? "bob" : "alice");
    assert_string_equal(over->reason, want);
    assert_int_equal(room_clock_deadline(w->r), INT64_MAX);
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&sb);
}

static void no_first_move_aborts(void **state)
{
    world *w = *state;
    with_clock(w, 0, 300000, 2000);
    participant *alice, *bob;
    fake_stream sa = {0}, sb = {0};
    start_two(w, &alice, &bob, &sa, &sb);
    int64_t since = w->r->clock_since_ms;
    assert_int_equal(room_clock_deadline(w->r), since + 30000);   /* cfg.first_move_ms */
    play_one(w, alice, bob);
    /* Fischer: the mover gained the increment. */
    int mover = 1 - game_to_move(&w->r->state);
    assert_true(w->r->clock_ms[mover] > 300000 && w->r->clock_ms[mover] <= 302000);
    room_clock_check(w->r, w->r->clock_since_ms + 30000);
    assert_int_equal(w->r->status, ROOM_ABANDONED);
    const Sungka__V1__GameOver *over = last_logged(&sa)->game_over;
    assert_true(over->abandoned);
    char want[64];
    snprintf(want, sizeof want, "%s made no first move in time; the game is aborted",
             game_to_move(&w->r->state) == 0 ? "alice" : "bob");
    assert_string_equal(over->reason, want);
    close_all(w->svc);
    stream_clear(&sa);
    stream_clear(&sb);
}

static void recovery_from_the_store(void **state)
{
    (void)state;
    char err[256];
    store *db = NULL;
    assert_int_equal(store_open(":memory:", &db, err, sizeof err), 0);
    world w = {.svc = fixture_service(db, recorders)};
    store_game_info g;
    memset(&g, 0, sizeof g);
    snprintf(g.id, sizeof g.id, "7");
    snprintf(g.kind, sizeof g.kind, "kalah");
    g.seats = 2;
    g.status = 1;
    g.base_ms = 60000;
    g.increment_ms = 1000;
    const game_kind *kalah = game_kind_find("kalah");
    g.n_options = kalah->n_options;
    for (int i = 0; i < g.n_options; i++) {
        snprintf(g.options[i].name, sizeof g.options[i].name, "%s", kalah->options[i].name);
        g.options[i].value = kalah->options[i].def;
    }
    assert_int_equal(store_game_create(db, &g), 0);
    w.r = add_room(w.svc, "7");
    w.here = board_client_find(w.svc, "ipv4:192.0.2.7");
    with_clock(&w, 0, 60000, 1000);
    participant *alice, *bob;
    fake_stream sa = {0}, sb = {0};
    start_two(&w, &alice, &bob, &sa, &sb);
    fake_reply replies[4] = {{0}};
    for (int i = 0; i < 4 && !game_is_over(&w.r->state); i++) {
        int legal[GAME_MAX_MOVES];
        int n = game_legal_moves(&w.r->state, legal, GAME_MAX_MOVES);
        participant *mover = game_to_move(&w.r->state) == 0 ? alice : bob;
        assert_int_equal(room_move(w.r, mover, legal[n - 1], &replies[i], err, sizeof err),
                         ROOM_OK);
        room_commit_moves(w.svc);
        assert_int_equal(replies[i].rc, ROOM_OK);
    }
    assert_int_equal(room_offer_draw(w.r, alice, err, sizeof err), ROOM_OK);
    game_state played = w.r->state;
    size_t log_len = w.r->log_len;
    char token[BOARD_TOKEN_HEX + 1];
    snprintf(token, sizeof token, "%s", bob->token);

    /* A second service on the same store: the game, its log, its seats. */
    board_service *again = fixture_service(db, recorders);
    assert_int_equal(board_recover(again, err, sizeof err), 0);
    assert_int_equal(again->n_rooms, 1);
    room *back = again->rooms[0];
    assert_string_equal(back->id, "7");
    assert_int_equal(back->status, ROOM_RUNNING);
    assert_int_equal(back->log_len, log_len + 1);     /* and a notice of the restart */
    assert_memory_equal(back->state.cells, played.cells, sizeof played.cells);
    participant *bob_again = person_index_find_token(&again->tokens, token);
    assert_non_null(bob_again);
    assert_true(bob_again->departed);                 /* until his agent comes back */
    assert_int_equal(back->draw_offer, alice->seat);  /* her offer is still open */
    assert_int_equal(back->moved, 3);
    /* The clocks as the last move left them; the one to move runs again. */
    assert_int_equal(back->tc.base_ms, 60000);
    assert_int_equal(back->clock_running, game_to_move(&played));
    int waiting = 1 - back->clock_running;
    assert_int_equal(back->clock_ms[waiting], w.r->clock_ms[waiting]);
    close_all(w.svc);
    stream_clear(&sa);
    stream_clear(&sb);
    fixture_service_free(again);
    fixture_service_free(w.svc);
    store_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(joins_and_seats, setup, teardown),
        cmocka_unit_test_setup_teardown(crowd_keeps_players_first, setup, teardown),
        cmocka_unit_test_setup_teardown(a_move_waits_for_its_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(departure_grace_and_return, setup, teardown),
        cmocka_unit_test_setup_teardown(account_tokens_revoked, setup, teardown),
        cmocka_unit_test_setup_teardown(guest_look_alikes_in_a_game, setup, teardown),
        cmocka_unit_test_setup_teardown(quitting_loses_a_running_game, setup, teardown),
        cmocka_unit_test_setup_teardown(out_and_gone_leaves_the_game_on, setup, teardown),
        cmocka_unit_test_setup_teardown(chat_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(slow_subscriber_cut_off, setup, teardown),
        cmocka_unit_test_setup_teardown(replay_past_the_outbox, setup, teardown),
        cmocka_unit_test_setup_teardown(resigning_loses, setup, teardown),
        cmocka_unit_test_setup_teardown(aborting_before_everyone_moved, setup, teardown),
        cmocka_unit_test_setup_teardown(draw_offers, setup, teardown),
        cmocka_unit_test_setup_teardown(clock_falls, setup, teardown),
        cmocka_unit_test_setup_teardown(no_first_move_aborts, setup, teardown),
        cmocka_unit_test(recovery_from_the_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
