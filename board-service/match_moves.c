/*
 * match_moves.c — a match's moves, derived from its stored event log.
 *
 * The event log is the record of a game: each accepted move is one MoveMade
 * event, stored in the turn's transaction before it is acknowledged. The
 * `moves` table (what history, exports and replays read) is no longer
 * written per move, which cost a second b-tree insert in every move's
 * transaction; it is filled once, when the game ends, in the transaction
 * that records the result (room.c: end_with writes the moves the room kept
 * as it applied them), so readers of ended games and the PostgreSQL queries
 * are unchanged. Here the moves are read from the stored log instead,
 * decoded by the same code that replays a game at recovery
 * (wire_upgrade_event, wire_event_value): for a game not yet ended
 * (GetMatch), and for the fill (board_match_moves_fill) when the room ran
 * out of memory for its copy or its database went back in time (room_halt:
 * the moves the database kept, not memory's).
 * Loop thread only, like the store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_rpc.h"

typedef struct collecting {
    store_move *moves;
    int n, cap;
    uint64_t bad_seq;          /* the first event that could not be read; 0: none */
    bool no_memory;
} collecting;

static void on_event(void *user, const char *game_id, uint64_t seq, int64_t time_ms,
                     unsigned a, unsigned b, unsigned format, const void *data, size_t len)
{
    (void)game_id;
    (void)a;
    (void)b;
    collecting *c = user;
    if (c->bad_seq || c->no_memory)
        return;
    Sungka__V1__Event *ev = (Sungka__V1__Event *)protobuf_c_message_unpack(
        &sungka__v1__event__descriptor, NULL, len, data);
    room_event value;
    room_clocks clocks;
    if (!ev || wire_upgrade_event(ev, format) != 0 || wire_event_value(ev, &value, &clocks) != 0) {
        c->bad_seq = seq;
    } else if (value.kind == ROOM_EV_MOVED) {
        if (c->n == c->cap) {
            int cap = c->cap ? c->cap * 2 : 64;
            store_move *grown = realloc(c->moves, (size_t)cap * sizeof *grown);
            if (!grown)
                c->no_memory = true;
            else {
                c->moves = grown;
                c->cap = cap;
            }
        }
        if (!c->no_memory)
            c->moves[c->n] = (store_move){.ply = c->n, .seat = value.seat, .move = value.move,
                                          .time_ms = time_ms};
        c->n += !c->no_memory;
    }
    if (ev)
        protobuf_c_message_free_unpacked(&ev->base, NULL);
}

int board_match_moves(store *db, const char *game_id, store_move **moves, int *n, char *err,
                      size_t errlen)
{
    static const store_recovery_cb only_events = {.event = on_event};
    collecting c = {0};
    *moves = NULL;
    *n = 0;
    if (store_recover_game(db, game_id, &only_events, &c) != 0) {
        snprintf(err, errlen, "%s", store_last_error(db));
        free(c.moves);
        return -1;
    }
    if (c.no_memory || c.bad_seq) {
        if (c.no_memory)
            snprintf(err, errlen, "out of memory for the moves of game %s", game_id);
        else
            snprintf(err, errlen, "game %s: its stored log is damaged at event %llu", game_id,
                     (unsigned long long)c.bad_seq);
        free(c.moves);
        return -1;
    }
    *moves = c.moves;
    *n = c.n;
    return 0;
}

int board_match_moves_fill(store *db, const char *game_id, char *err, size_t errlen)
{
    store_move *moves;
    int n;
    if (board_match_moves(db, game_id, &moves, &n, err, errlen) != 0)
        return -1;
    int rc = store_moves_fill(db, game_id, moves, n);
    if (rc != 0)
        snprintf(err, errlen, "%s", store_last_error(db));
    free(moves);
    return rc;
}
