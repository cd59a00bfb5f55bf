/*
 * board_rpc.h — what the board service's RPC side shares: service.c (the
 * handlers), history.c (the Register calls that read the store), clients.c
 * (addresses of calls), recovery.c and wire.c (protobuf). The room does not
 * include this: it sees only board_internal.h.
 *
 * Loop thread only, like everything in the service.
 */
#ifndef SUNGKA_BOARD_RPC_H
#define SUNGKA_BOARD_RPC_H

#include "board_internal.h"
#include "rpc.h"
#include "sungka/v1/sungka.pb-c.h"

/* --- service.c --- */
/* Finish call with an error status, its sentence, and the reason a program
 * reads (RPC_REASON_KEY) that goes with the status. */
void board_fail(rpc_call *call, rpc_code code, const char *message);

/* --- clients.c --- */
/* The host part of call's peer ("ipv4:10.0.0.7"). */
void board_peer_host(rpc_call *call, char *out, size_t len);
/* The entry of call's address (made when new); NULL when out of memory. */
board_client *board_client_of(board_service *svc, rpc_call *call);

/* --- history.c: Register calls that read the store (rpc_method_handler) --- */
void history_player_stats(rpc_call *call, const ProtobufCMessage *request, void *svc);
void history_leaderboard(rpc_call *call, const ProtobufCMessage *request, void *svc);
void history_list_matches(rpc_call *call, const ProtobufCMessage *request, void *svc);
void history_get_match(rpc_call *call, const ProtobufCMessage *request, void *svc);

/* --- wire.c: protobuf builders for replies --- */
/* Fill a summary of r; free its arrays with wire_summary_clear. */
void wire_summary(const room *r, Sungka__V1__GameSummary *out);
void wire_summary_clear(Sungka__V1__GameSummary *s);
/* A seat where "none" is possible: fills *box and returns it for a seat
 * (>= 0), NULL (the field absent) for none. */
Sungka__V1__SeatNumber *wire_seat(int seat, Sungka__V1__SeatNumber *box);
/* --- wire_legacy.c --- */
/* Bring an event unpacked from a stored log of `format` (WIRE_EVENT_FORMAT
 * in board_internal.h lists them) to the current one, in place; what it
 * adds is freed with the message. 0, or -1 when out of memory. */
int wire_upgrade_event(Sungka__V1__Event *ev, unsigned format);

/* Clocks with room for their parts (NULL, the field absent, for a game
 * without clocks). */
typedef struct wire_clocks_msg {
    Sungka__V1__Clocks msg;
    Sungka__V1__SeatNumber running;
    int64_t remaining[GAME_MAX_SEATS];
} wire_clocks_msg;
Sungka__V1__Clocks *wire_clocks(const room_clocks *c, wire_clocks_msg *out);

/* A board message with room for its arrays, so building one allocates
 * nothing (it lives on the caller's stack; use .msg). */
typedef struct wire_board_msg {
    Sungka__V1__BoardState msg;
    Sungka__V1__SeatNumber to_move;
    int32_t cells[GAME_MAX_CELLS];
    int32_t scores[GAME_MAX_SEATS];
} wire_board_msg;
void wire_board(const game_state *st, int rotate_to, wire_board_msg *out);
/* A participant message with room for its parts, like wire_board_msg. */
typedef struct wire_participant_msg {
    Sungka__V1__Participant msg;
    Sungka__V1__SeatNumber seat;
    Sungka__V1__RoundTrip rtt;
} wire_participant_msg;
void wire_participant(const participant *p, wire_participant_msg *out);

#endif /* SUNGKA_BOARD_RPC_H */
