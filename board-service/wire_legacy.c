/*
 * wire_legacy.c — reading event logs that older services stored.
 *
 * Format 1 (up to 0.9) wrote a seat where "none" was possible as a plain
 * int32 holding -1 for none, and seat 0 as an absent field (proto3 leaves
 * zeros out). Format 2 moved those seats to SeatNumber messages, absent for
 * none, under new field numbers; the old numbers are reserved. An old event
 * therefore unpacks with its seats among the unknown fields, which protobuf-c
 * keeps: this file takes them out and puts SeatNumber messages in their
 * place, so that recovery can keep the upgraded bytes and nobody downstream
 * sees format 1. Round trips of old logs are dropped (stale by then).
 */
#include <stdlib.h>
#include <string.h>

#include "board_rpc.h"

/* The field numbers format 1 used (sungka.proto's reserved ones). */
enum {
    V1_PARTICIPANT_SEAT = 2,
    V1_PARTICIPANT_RTT = 4,
    V1_BOARD_TO_MOVE = 2,
    V1_CHAT_SEAT = 2,
    V1_SEAT_CHANGED_FROM = 2,
};

/* Removes unknown field `tag` from m; returns true with its value in *out
 * when it was a varint (an int32 on the wire: sign-extended to 64 bits). */
static bool take_varint(ProtobufCMessage *m, uint32_t tag, int32_t *out)
{
    bool found = false;
    for (unsigned i = 0; i < m->n_unknown_fields;) {
        ProtobufCMessageUnknownField *f = &m->unknown_fields[i];
        if (f->tag != tag) {
            i++;
            continue;
        }
        if (f->wire_type == PROTOBUF_C_WIRE_TYPE_VARINT) {
            uint64_t v = 0;
            for (size_t b = 0; b < f->len && b < 10; b++)
                v |= (uint64_t)(f->data[b] & 0x7f) << (7 * b);
            *out = (int32_t)(uint32_t)v;
            found = true;
        }
        free(f->data);
        memmove(f, f + 1, (m->n_unknown_fields - i - 1) * sizeof *f);
        m->n_unknown_fields--;
    }
    return found;
}

/* A format-1 seat field as a SeatNumber: absent was seat 0, -1 none. */
static int upgrade_seat(ProtobufCMessage *m, uint32_t tag, Sungka__V1__SeatNumber **field)
{
    int32_t seat = 0;
    take_varint(m, tag, &seat);
    if (*field || seat < 0)
        return 0;          /* already format 2, or none */
    Sungka__V1__SeatNumber *box = malloc(sizeof *box);
    if (!box)
        return -1;
    sungka__v1__seat_number__init(box);
    box->value = seat;
    *field = box;          /* freed with the message (protobuf-c's allocator is malloc) */
    return 0;
}

static int upgrade_participant(Sungka__V1__Participant *p)
{
    if (!p)
        return 0;
    int32_t stale;
    take_varint(&p->base, V1_PARTICIPANT_RTT, &stale);
    return upgrade_seat(&p->base, V1_PARTICIPANT_SEAT, &p->seat);
}

static int upgrade_board(Sungka__V1__BoardState *b)
{
    return b ? upgrade_seat(&b->base, V1_BOARD_TO_MOVE, &b->to_move) : 0;
}

int wire_upgrade_event(Sungka__V1__Event *ev, unsigned format)
{
    if (format >= WIRE_EVENT_FORMAT)
        return 0;
    switch (ev->body_case) {
    case SUNGKA__V1__EVENT__BODY_PLAYER_JOINED:
        return upgrade_participant(ev->player_joined->who);
    case SUNGKA__V1__EVENT__BODY_PLAYER_LEFT:
        return upgrade_participant(ev->player_left->who);
    case SUNGKA__V1__EVENT__BODY_PLAYER_DEPARTED:
        return upgrade_participant(ev->player_departed->who);
    case SUNGKA__V1__EVENT__BODY_PLAYER_RETURNED:
        return upgrade_participant(ev->player_returned->who);
    case SUNGKA__V1__EVENT__BODY_READY_CHANGED:
        return upgrade_participant(ev->ready_changed->who);
    case SUNGKA__V1__EVENT__BODY_SEAT_CHANGED:
        if (upgrade_participant(ev->seat_changed->who) != 0)
            return -1;
        return upgrade_seat(&ev->seat_changed->base, V1_SEAT_CHANGED_FROM,
                            &ev->seat_changed->from_seat);
    case SUNGKA__V1__EVENT__BODY_GAME_STARTED:
        return upgrade_board(ev->game_started->board);
    case SUNGKA__V1__EVENT__BODY_MOVE_MADE:
        return upgrade_board(ev->move_made->board);
    case SUNGKA__V1__EVENT__BODY_CHAT:
        return upgrade_seat(&ev->chat->base, V1_CHAT_SEAT, &ev->chat->seat);
    default:
        return 0;          /* nothing else held such a seat */
    }
}
