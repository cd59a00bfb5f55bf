/*
 * room_moves.c — a move: checked against the rules and the seat's rate,
 * played, and made durable with the other moves of its loop turn in one
 * transaction (room_commit_moves) before anyone hears of it.
 * Loop thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "room_internal.h"

/* -------------------------------------------------------------------- move */

/* One event per move: its steps, the board after it, and whose turn it is
 * (wire.c packs it; a move allocates nothing but its log entry). */
static void announce_move(room *r, int seat, int move, const game_result *res, int64_t now)
{
    room_clocks clocks;
    room_event ev = {.kind = ROOM_EV_MOVED, .seat = seat, .move = move, .result = res,
                     .state = &r->state, .clocks = room__event_clocks(r, now, &clocks)};
    room__append_event(r, &ev);
}

static room_rc play_move(room *r, participant *p, int move, void *reply, int64_t now,
                         char *err, size_t errlen);

room_rc room_move(room *r, participant *p, int move, void *reply, char *err, size_t errlen)
{
    char label[32];
    if (p->seat < 0) {
        snprintf(err, errlen, "observers cannot move");
        return ROOM_E_DENIED;
    }
    if (r->status == ROOM_WAITING) {
        int missing = game_seats(&r->state) - room_seats_taken(r);
        if (missing > 0)
            snprintf(err, errlen, "the game has not started (waiting for %d more player%s)",
                     missing, missing == 1 ? "" : "s");
        else
            snprintf(err, errlen, "the game has not started (waiting for everyone to be "
                                  "ready)");
        return ROOM_E_STATE;
    }
    if (r->status != ROOM_RUNNING) {
        snprintf(err, errlen, "the game is over");
        return ROOM_E_STATE;
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
        board_log(r->svc, "game %s: refused move %d by %s: %s", r->id, move, p->name, why);
        return rc == GAME_E_RANGE || rc == GAME_E_HOME ? ROOM_E_INVALID : ROOM_E_STATE;
    }
    return play_move(r, p, move, reply, now, err, errlen);
}

/* ----------------------------------------------------------- durable moves */

/* Moves are made durable in batches: the first move of a loop turn opens a
 * transaction, every move of the turn writes into it, and room_commit_moves
 * commits once at the end of the turn; only then are the moves' events sent
 * and their calls answered. If the commit fails, every move of the batch is
 * undone and its mover told: nothing is acknowledged that was not stored. */
struct pending_move {
    room *room;
    void *reply;               /* the Move call to answer; NULL once its client left */
    uint64_t seq;              /* its MoveMade event */
    size_t log_before;         /* the room's log, state and status before it */
    game_state before;
    room_status status_before;
    unsigned moved_before, draw_offered_before;
    int draw_offer_before;
    int64_t clock_before[GAME_MAX_SEATS];
    int clock_running_before;
    int64_t clock_since_before;
    int move;
    participant *mover;        /* stays: anything that could remove it commits first */
};

void room_move_abandoned(board_service *svc, void *reply)
{
    for (int i = 0; i < svc->n_pending; i++)
        if (svc->pending[i].reply == reply)
            svc->pending[i].reply = NULL;
}

static struct pending_move *pending_add(board_service *svc)
{
    if (svc->n_pending == svc->pending_cap) {
        int cap = svc->pending_cap ? svc->pending_cap * 2 : 16;
        struct pending_move *grown = realloc(svc->pending, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        svc->pending = grown;
        svc->pending_cap = cap;
    }
    return &svc->pending[svc->n_pending++];
}

static room_rc play_move(room *r, participant *p, int move, void *reply, int64_t now,
                         char *err, size_t errlen)
{
    board_service *svc = r->svc;
    store *db = svc->store;
    if (r->holding)            /* this game's last move is not committed yet */
        room_commit_moves(svc);
    struct pending_move *pm = pending_add(svc);
    if (!pm) {
        snprintf(err, errlen, "out of memory");
        return ROOM_E_LIMIT;
    }
    if (db && svc->n_pending == 1 && store_begin(db) != 0) {
        svc->n_pending--;
        snprintf(err, errlen, "the move could not be stored, so it was not played (%s)",
                 store_last_error(db));
        return ROOM_E_STORE;
    }
    pm->room = r;
    pm->reply = reply;
    pm->log_before = r->log_len;
    pm->before = r->state;
    pm->status_before = r->status;
    pm->moved_before = r->moved;
    pm->draw_offer_before = r->draw_offer;
    pm->draw_offered_before = r->draw_offered;
    memcpy(pm->clock_before, r->clock_ms, sizeof pm->clock_before);
    pm->clock_running_before = r->clock_running;
    pm->clock_since_before = r->clock_since_ms;
    pm->move = move;
    pm->mover = p;
    r->holding = true;
    r->store_failed = false;

    game_result res;
    room__clock_charge(r, p->seat, now);
    game_play(&r->state, p->seat, move, &res, NULL, 0);
    room__clock_run(r, now);
    announce_move(r, p->seat, move, &res, now);
    pm->seq = r->log_len;
    if (db && store_move_append(db, r->id, r->n_moves + 1, p->seat, move, board_wall_ms()) != 0)
        r->store_failed = true;
    r->n_moves++;
    /* A move closes an open draw offer, and lets its mover offer again. */
    r->moved |= 1u << p->seat;
    r->draw_offered &= ~(1u << p->seat);
    r->draw_offer = -1;
    if (game_is_over(&r->state)) {
        char reason[GAME_MAX_SEATS * BOARD_NAME_BYTES + 64];
        room__result_sentence(r, reason, sizeof reason);
        room__end_game(r, false, reason);
    }
    if (r->store_failed) {     /* the transaction is spoilt: give up the batch now */
        svc->batch_failed = true;
        room_commit_moves(svc);
    }
    return 0;
}

void room_commit_moves(board_service *svc)
{
    if (svc->n_pending == 0)
        return;
    store *db = svc->store;
    const char *why = NULL;
    if (svc->batch_failed || (db && store_commit(db) != 0)) {
        why = db ? store_last_error(db) : "out of memory";
        if (db)
            store_rollback(db);
    }
    /* Undo newest first, so each game gets back the state before its move. */
    for (int k = 0; k < svc->n_pending; k++) {
        struct pending_move *pm = &svc->pending[why ? svc->n_pending - 1 - k : k];
        room *r = pm->room;
        r->holding = false;
        if (why) {
            board_log(svc, "game %s: move %d by %s not stored, undone: %s", r->id, pm->move,
                      pm->mover->name, why);
            for (size_t i = pm->log_before; i < r->log_len; i++)
                free(r->log[i].data);
            r->log_len = pm->log_before;
            r->state = pm->before;
            r->status = pm->status_before;
            r->moved = pm->moved_before;
            r->draw_offer = pm->draw_offer_before;
            r->draw_offered = pm->draw_offered_before;
            memcpy(r->clock_ms, pm->clock_before, sizeof r->clock_ms);
            r->clock_running = pm->clock_running_before;
            r->clock_since_ms = pm->clock_since_before;
            r->n_moves--;
            r->store_failed = false;
            if (pm->reply) {
                char err[256];
                snprintf(err, sizeof err,
                         "the move could not be stored, so it was not played (%s)", why);
                svc->io.move_done(pm->reply, ROOM_E_STORE, 0, err);
            }
        } else {
            room__broadcast(r, pm->log_before, pm->mover);
            if (pm->reply)
                svc->io.move_done(pm->reply, ROOM_OK, pm->seq, NULL);
        }
    }
    svc->n_pending = 0;
    svc->batch_failed = false;
}
