/*
 * room_moves.c — a move: checked against the rules and the seat's rate,
 * played, and made durable with the other moves of its loop turn in one
 * transaction (room_commit_moves) before anyone hears of it.
 * Loop thread only.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "room_internal.h"

/* -------------------------------------------------------------------- move */

/* Where a move's answer goes: a Move call (reply), or the mover's Play
 * stream (on_stream, with the command's id). */
struct move_answer {
    void *reply;
    bool on_stream;
    uint64_t id;
};

static room_rc play_move(room *r, participant *p, int move, struct move_answer to, int64_t now,
                         char *err, size_t errlen);
static room_rc checked_move(room *r, participant *p, int move, struct move_answer to,
                            char *err, size_t errlen);

room_rc room_move(room *r, participant *p, int move, void *reply, char *err, size_t errlen)
{
    return checked_move(r, p, move, (struct move_answer){reply, false, 0}, err, errlen);
}

room_rc room_move_on_stream(room *r, participant *p, int move, uint64_t id, char *err,
                            size_t errlen)
{
    return checked_move(r, p, move, (struct move_answer){NULL, true, id}, err, errlen);
}

static room_rc checked_move(room *r, participant *p, int move, struct move_answer to,
                            char *err, size_t errlen)
{
    char label[32];
    if (r->holding)            /* this game's last move is not committed yet */
        room_commit_moves(r->svc);
    if (r->diverged) {         /* ... and it could not be */
        snprintf(err, errlen, "game %s is being reloaded from its stored log; try again",
                 r->id);
        return ROOM_E_STORE;
    }
    if (p->seat < 0) {
        snprintf(err, errlen, "observers cannot move");
        return ROOM_E_OBSERVER;
    }
    if (r->status == ROOM_WAITING) {
        int missing = game_seats(&r->state) - room_seats_taken(r);
        if (missing > 0)
            snprintf(err, errlen, "the game has not started (waiting for %d more player%s)",
                     missing, missing == 1 ? "" : "s");
        else
            snprintf(err, errlen, "the game has not started (waiting for everyone to be "
                                  "ready)");
        return ROOM_E_NOT_STARTED;
    }
    if (r->status != ROOM_RUNNING) {
        snprintf(err, errlen, "the game is over");
        return ROOM_E_ENDED;
    }
    /* Rate: a seat sending moves faster than anyone plays is a script gone
     * wrong or an attack; refuse the excess, within a one-second window. */
    int64_t now = board_now_ms();
    if (now - p->move_window_start_ms >= 1000) {
        p->move_window_start_ms = now;
        p->moves_in_window = 0;
    }
    if (++p->moves_in_window > r->svc->cfg.move_rate) {
        snprintf(err, errlen, "too many moves: at most %d a second", r->svc->cfg.move_rate);
        board_log_limit(r->svc, p->host, err);
        return ROOM_E_LIMIT;
    }
    int to_move = game_to_move(&r->state);
    if (to_move != p->seat) {
        snprintf(err, errlen, "it is %s's turn", room__seat_label(r, to_move, label, sizeof label));
        return ROOM_E_TURN;
    }
    /* A move that comes after its clock fell is too late, even if the
     * service had not yet noticed. */
    if (room_has_clocks(r) && now >= room_clock_deadline(r)) {
        room_clock_check(r, now);
        snprintf(err, errlen, "your time ran out");
        return ROOM_E_STATE;
    }
    char why[GAME_ERR_LEN];
    int rc = game_check(&r->state, p->seat, move, why, sizeof why);
    if (rc != GAME_OK) {
        snprintf(err, errlen, "%s", why);
        board_log_person(r->svc, LOG_INFO, p, "game %s: refused move %d by %s: %s", r->id, move,
                         p->name, why);
        return rc == GAME_E_RANGE || rc == GAME_E_HOME ? ROOM_E_INVALID : ROOM_E_STATE;
    }
    return play_move(r, p, move, to, now, err, errlen);
}

/* ----------------------------------------------------------- durable moves */

/* Moves are made durable in batches: the first move of a loop turn opens a
 * transaction, every move of the turn writes into it, and room_turn_end
 * sends its commit once at the end of the turn (send_commit); only when it
 * has landed (land) are the moves' events sent and their calls answered.
 * The loop plays the next turn's moves meanwhile, into the next batch,
 * which waits for that commit before its own is sent: one is on its way at
 * a time. Anything else first waits for both (room_commit_moves). If the
 * commit fails, every mover of the batch
 * is refused and each game in it whose move was applied is reloaded from
 * its stored log (its memory went on without the store): nothing is
 * acknowledged, sent or kept that was not stored, and no hand-kept copy of
 * a room is needed to undo. A move joining others writes inside a
 * savepoint of its own, so that its game's failure (adopted by another
 * node, a log gone back in time, a lock not had in time) is undone alone
 * and refuses its move only, not the other games' moves of the turn.
 * On PostgreSQL the transaction is pipelined (store_turn_begin): a move
 * that neither opens the turn nor ends its game defers its fence and its
 * event (store_defer, by its tag), so a turn is two round trips whatever
 * its moves: the BEGIN with the first move's writes, and the others' with
 * the COMMIT; behind a commit on its way the first move defers its writes
 * too, and a failure then fails its turn at the commit, which also fails
 * the turn behind it. Such a move needs no savepoint: its writes either land or, when its game
 * is another node's now or its log went back in time, write nothing; the
 * commit says which (store_turn_missed), and that move alone is refused
 * then, as a savepoint would have. A move that ends its game writes the
 * end too, and runs as before, waiting for each answer. */
struct pending_move {
    room *room;
    void *reply;               /* the Move call to answer; NULL once its client left */
    bool on_stream;            /* sent on the mover's Play stream instead, as command: */
    uint64_t command_id;
    uint64_t seq;              /* its MoveMade event */
    size_t log_before;         /* the room's log before it */
    int move;
    participant *mover;        /* stays: anything that could remove it commits first */
    bool applied;              /* its event was stored and applied: the room moved on */
    uint64_t tag;              /* its deferred writes (store_defer); 0: none */
    double started;            /* metrics_now() when it was played: its commit latency */
};

/* The service's moves of this loop turn (svc->moves), and those of the
 * turn before whose commit is on its way (svc->flight), each made on first
 * use. */
struct move_batch {
    struct pending_move *moves;
    int n, cap;
    bool failed;               /* one of them could not be written: the whole batch fails */
    uint64_t tags;             /* deferred writes' tags handed out this turn */
    double sent;               /* metrics_now() when its commit was sent */
};

static struct move_batch *batch_of(board_service *svc)
{
    if (!svc->moves)
        svc->moves = calloc(1, sizeof *svc->moves);
    return svc->moves;
}

static void batch_free(struct move_batch *b)
{
    if (!b)
        return;
    assert(b->n == 0);
    free(b->moves);
    free(b);
}

void room_moves_free(board_service *svc)
{
    batch_free(svc->moves);
    batch_free(svc->flight);
    svc->moves = svc->flight = NULL;
}

void room_move_abandoned(board_service *svc, void *reply)
{
    struct move_batch *batches[] = {svc->moves, svc->flight};
    for (size_t k = 0; k < sizeof batches / sizeof batches[0]; k++) {
        struct move_batch *b = batches[k];
        for (int i = 0; b && i < b->n; i++)
            if (b->moves[i].reply == reply)
                b->moves[i].reply = NULL;
    }
}

static struct pending_move *pending_add(struct move_batch *b)
{
    if (b->n == b->cap) {
        int cap = b->cap ? b->cap * 2 : 16;
        struct pending_move *grown = realloc(b->moves, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        b->moves = grown;
        b->cap = cap;
    }
    return &b->moves[b->n++];
}

/* The batch's last move, pm, was undone inside its savepoint: refuse it
 * alone; the other moves stay in the batch. */
static room_rc refuse_alone(board_service *svc, struct move_batch *b, struct pending_move *pm,
                            char *err, size_t errlen)
{
    room *r = pm->room;
    const char *why = store_last_error(svc->store);
    snprintf(err, errlen, "the move could not be stored, so it was not played (%s)", why);
    board_log_at(svc, LOG_ERR,
                 "game %s: move %d by %s not stored: %s", r->id, pm->move, pm->mover->name,
                 why);
    assert(pm == &b->moves[b->n - 1]);
    b->n--;
    r->holding = false;
    room__log_truncate(r, pm->log_before);
    if (pm->applied && !r->lost)
        room__diverge(r, "a move could not be stored");
    return ROOM_E_STORE;
}

static room_rc play_move(room *r, participant *p, int move, struct move_answer to, int64_t now,
                         char *err, size_t errlen)
{
    board_service *svc = r->svc;
    store *db = svc->store;
    assert(!r->holding && r->change_depth == 0);
    struct move_batch *b = batch_of(svc);
    struct pending_move *pm = b ? pending_add(b) : NULL;
    if (!pm) {
        snprintf(err, errlen, "out of memory");
        return ROOM_E_LIMIT;
    }
    if (db && b->n == 1 && store_turn_begin(db) != 0) {
        b->n--;
        snprintf(err, errlen, "the move could not be stored, so it was not played (%s)",
                 store_last_error(db));
        return ROOM_E_STORE;
    }
    pm->room = r;
    pm->reply = to.reply;
    pm->on_stream = to.on_stream;
    pm->command_id = to.id;
    pm->log_before = r->log_len;
    pm->move = move;
    pm->mover = p;
    pm->applied = false;
    pm->tag = 0;
    pm->started = svc->m.set ? metrics_now() : 0;
    r->holding = true;
    r->write_failed = false;
    game_state after = r->state;
    game_result res;
    game_play(&after, p->seat, move, &res, NULL, 0);
    /* Not the turn's first move nor the game's last: its writes go with the
     * turn's commit. The first waits for its answer (with the BEGIN's), so
     * that a store refusing writes (a lock held, the connection lost) is
     * found before its move is applied, which is then refused without its
     * game being reloaded, as before; but not while the last turn's commit
     * is on its way, which that wait would wait for: a failure then fails
     * the turn at its commit, and its games are reloaded. */
    bool deferred = db && (b->n > 1 || store_commit_in_flight(db)) && !game_is_over(&after) &&
                    store_defer(db, ++b->tags);
    if (deferred)
        pm->tag = b->tags;
    /* Others' moves are in the transaction: this one may be undone alone. */
    bool alone = db && b->n > 1 && !deferred;
    if (alone && store_group_begin(db) != 0) {
        room__write_failed(r);
        alone = false;
    }
    /* A cluster: the game is this node's until the batch commits, or not at
     * all; a game another node has adopted fails its own move only. */
    int fenced = db ? store_game_fence(db, r->id) : 0;
    if (fenced == STORE_FENCED) {
        room_lose(r, ROOM_LOST_ADOPTED);
        r->holding = false;
        if (deferred)
            store_defer(db, 0);
        if (alone)
            store_group_end(db, -1);
        if (--b->n == 0)
            store_rollback(db);
        snprintf(err, errlen, "game %s has moved to another board service; reconnect", r->id);
        return ROOM_E_STORE;
    }
    if (fenced != 0)
        room__write_failed(r);

    /* One event per move: its steps, the board after it, whose turn it is
     * and the clocks (wire.c packs it); stored, then applied. */
    room_clocks clocks;
    room_event ev = {.kind = ROOM_EV_MOVED, .seat = p->seat, .move = move, .result = &res,
                     .state = &after,
                     .clocks = room__clocks_after(r, p->seat, &after, now, &clocks)};
    /* The event is the move's only write: `moves` is filled from the log
     * when the game ends (match_moves.c). */
    pm->applied = room__emit(r, &ev) == ROOM_OK;
    pm->seq = r->log_len;
    if (deferred)
        store_defer(db, 0);
    if (!r->write_failed && game_is_over(&r->state)) {
        char reason[GAME_MAX_SEATS * BOARD_NAME_BYTES + 64];
        room__result_sentence(r, reason, sizeof reason);
        room__end_game(r, false, &(room_end){.why = ROOM_END_FINISHED}, reason);
    }
    /* Keep the move, or undo it alone (a RELEASE that fails undoes it too). */
    if (alone && store_group_end(db, r->write_failed ? -1 : 0) != 0)
        return refuse_alone(svc, b, pm, err, errlen);
    if (r->write_failed) {     /* the transaction is spoilt: give up the batch now */
        b->failed = true;
        room_commit_moves(svc);
    }
    return 0;
}

/* A deferred move the commit left out (store_turn_missed: its game is
 * another node's now, or its log went back in time): refused alone, as a
 * failed savepoint refuses it; the turn's other moves stand. */
static void refuse_missed(board_service *svc, struct pending_move *pm, int missed)
{
    room *r = pm->room;
    const char *why = store_last_error(svc->store);
    board_log_at(svc, LOG_ERR, "game %s: move %d by %s not stored: %s", r->id, pm->move,
                 pm->mover->name, why);
    room__log_truncate(r, pm->log_before);
    room_lose(r, missed == STORE_BEHIND ? ROOM_LOST_BEHIND : ROOM_LOST_ADOPTED);
    char err[256];
    if (missed == STORE_BEHIND)
        snprintf(err, sizeof err, "the move could not be stored, so it was not played (%s)",
                 why);
    else
        snprintf(err, sizeof err, "game %s has moved to another board service; reconnect",
                 r->id);
    if (pm->reply)
        svc->io.move_done(pm->reply, ROOM_E_STORE, 0, err);
    else if (pm->on_stream && pm->mover->stream && svc->io.command_refused)
        svc->io.command_refused(pm->mover->stream, pm->command_id, ROOM_E_STORE, err);
}

/* The batch's commit is over: its moves announced and answered, or, when
 * why says it failed, refused and their games reloaded. */
static void finish(board_service *svc, struct move_batch *b, const char *why)
{
    store *db = svc->store;
    double done = svc->m.set ? metrics_now() : 0;
    if (!why)
        metric_observe(svc->m.store_commit, done - b->sent);
    /* Newest first: a game with several moves in the batch ends truncated
     * to its log before the first of them. */
    for (int k = 0; k < b->n; k++) {
        struct pending_move *pm = &b->moves[why ? b->n - 1 - k : k];
        int missed;
        room *r = pm->room;
        r->holding = false;
        if (why) {
            board_log_at(svc, LOG_ERR, "game %s: move %d by %s not stored: %s", r->id, pm->move,
                         pm->mover->name, why);
            room__log_truncate(r, pm->log_before);
            /* A move whose event was never stored changed nothing here. */
            if (pm->applied && !r->lost)
                room__diverge(r, "a move could not be stored");
            if (pm->reply) {
                char err[256];
                snprintf(err, sizeof err,
                         "the move could not be stored, so it was not played (%s)", why);
                svc->io.move_done(pm->reply, ROOM_E_STORE, 0, err);
            } else if (pm->on_stream && pm->mover->stream && svc->io.command_refused) {
                char err[256];
                snprintf(err, sizeof err,
                         "the move could not be stored, so it was not played (%s)", why);
                svc->io.command_refused(pm->mover->stream, pm->command_id, ROOM_E_STORE, err);
            }
        } else if (pm->tag && (missed = store_turn_missed(db, pm->tag)) != 0) {
            refuse_missed(svc, pm, missed);
        } else {
            room_check(r);
            if (!r->lost)
                room__broadcast(r, pm->log_before, pm->mover);
            if (pm->reply)
                svc->io.move_done(pm->reply, ROOM_OK, pm->seq, NULL);
            metric_add(svc->m.moves, 1);
            metric_observe(svc->m.move_commit, done - pm->started);
        }
    }
    b->n = 0;
    b->failed = false;
    b->tags = 0;
}

/* The commit on its way, landed (waiting up to wait_ms for it: 0 not at
 * all, -1 until it does) and finished. Whether none is on its way now. */
static bool land(board_service *svc, int wait_ms)
{
    struct move_batch *f = svc->flight;
    if (!f || f->n == 0)
        return true;
    store *db = svc->store;
    int rc = db ? store_commit_landed(db, wait_ms) : 0;
    if (rc == STORE_IN_FLIGHT)
        return false;
    /* The turn begun behind a failed commit may have begun inside it. */
    if (rc != 0 && svc->moves && svc->moves->n > 0)
        svc->moves->failed = true;
    char why[256];
    snprintf(why, sizeof why, "%s", rc != 0 ? store_last_error(db) : "");
    finish(svc, f, rc != 0 ? why : NULL);
    return true;
}

/* This turn's moves: their commit sent, and they become the flight (none
 * may be on its way); one that could not be sent, or a batch already
 * failed, is rolled back and refused at once. */
static void send_commit(board_service *svc)
{
    struct move_batch *b = svc->moves;
    bool no_memory = !svc->flight && !(svc->flight = calloc(1, sizeof *svc->flight));
    assert(!svc->flight || svc->flight->n == 0);
    store *db = svc->store;
    b->sent = svc->m.set ? metrics_now() : 0;
    if (no_memory || b->failed || (db && store_commit_send(db) != 0)) {
        char why[256];
        snprintf(why, sizeof why, "%s",
                 no_memory || !db ? "out of memory" : store_last_error(db));
        if (db)
            store_rollback(db);
        finish(svc, b, why);
        return;
    }
    svc->moves = svc->flight;
    svc->flight = b;
}

void room_commit_moves(board_service *svc)
{
    land(svc, -1);
    if (!svc->moves || svc->moves->n == 0)
        return;
    send_commit(svc);
    land(svc, -1);
}

void room_turn_end(board_service *svc)
{
    if (!land(svc, 0)) {       /* this turn's moves wait for the last turn's commit */
        if (svc->store && svc->moves && svc->moves->n > 0)
            store_send_pending(svc->store);
        return;
    }
    if (!svc->moves || svc->moves->n == 0)
        return;
    send_commit(svc);
    land(svc, 0);              /* at once, where a commit costs no round trip */
}

bool room_moves_in_flight(const board_service *svc)
{
    return svc->flight && svc->flight->n > 0;
}

void room_moves_await(board_service *svc, int wait_ms)
{
    if (land(svc, wait_ms))
        room_turn_end(svc);
}
