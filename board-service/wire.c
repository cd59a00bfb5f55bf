/*
 * wire.c — building the protobuf messages the service sends from its own
 * structures. Builders fill a caller's message in place and allocate only the
 * repeated parts; the matching *_clear frees those. Strings point into the
 * service's structures (never freed here), so a built message must be packed
 * or sent before the structures change.
 */
#include <stdlib.h>
#include <string.h>

#include "board_internal.h"

static const Sungka__V1__GameStatus status_to_wire[] = {
    [ROOM_WAITING] = SUNGKA__V1__GAME_STATUS__GAME_STATUS_WAITING,
    [ROOM_RUNNING] = SUNGKA__V1__GAME_STATUS__GAME_STATUS_RUNNING,
    [ROOM_FINISHED] = SUNGKA__V1__GAME_STATUS__GAME_STATUS_FINISHED,
    [ROOM_ABANDONED] = SUNGKA__V1__GAME_STATUS__GAME_STATUS_ABANDONED,
};

void wire_summary(const room *r, Sungka__V1__GameSummary *out)
{
    int seats = game_seats(&r->state);
    sungka__v1__game_summary__init(out);
    out->game_id = (char *)r->id;
    out->kind = (char *)r->kind->name;
    out->title = (char *)r->title;
    out->status = status_to_wire[r->status];
    out->cups = r->state.layout == GAME_LAYOUT_MANCALA ? r->state.cups : 0;
    out->autostart = r->autostart;

    /* One allocation each for the pointer arrays and the structs they point to. */
    out->n_options = (size_t)r->kind->n_options;
    out->options = calloc(out->n_options, sizeof *out->options);
    Sungka__V1__GameOption *opt = calloc(out->n_options, sizeof *opt);
    for (size_t i = 0; i < out->n_options; i++) {
        sungka__v1__game_option__init(&opt[i]);
        opt[i].name = (char *)r->kind->options[i].name;
        opt[i].value = r->opts.value[i];
        out->options[i] = &opt[i];
    }

    out->n_seats = (size_t)seats;
    out->seats = calloc(out->n_seats, sizeof *out->seats);
    Sungka__V1__Seat *seat = calloc(out->n_seats, sizeof *seat);
    for (int i = 0; i < seats; i++) {
        const participant *p = r->seat_holder[i];
        sungka__v1__seat__init(&seat[i]);
        seat[i].seat = i;
        seat[i].name = (char *)r->seat_name[i];
        seat[i].departed = p ? p->departed : false;
        seat[i].rtt_ms = p ? p->rtt_ms : -1;
        seat[i].ready = p ? p->ready : false;
        if (p && p->departed) {
            int64_t left = p->depart_deadline_ms - board_now_ms();
            seat[i].grace_left_s = left > 0 ? (int32_t)((left + 999) / 1000) : 0;
        }
        out->seats[i] = &seat[i];
    }

    int observers = 0;
    for (int i = 0; i < r->n_people; i++)
        observers += r->people[i]->seat < 0;
    out->observers = observers;
}

void wire_summary_clear(Sungka__V1__GameSummary *s)
{
    if (s->n_options)
        free(s->options[0]);
    free(s->options);
    if (s->n_seats)
        free(s->seats[0]);
    free(s->seats);
    s->options = NULL;
    s->seats = NULL;
    s->n_options = s->n_seats = 0;
}

/* rotate_to >= 0 rotates a mancala board so that seat's row comes first
 * (seed 000: "row 0 always belongs to the player calling getBoard"). */
void wire_board(const game_state *st, int rotate_to, wire_board_msg *out)
{
    int n = game_cell_count(st);
    int seats = game_seats(st);
    Sungka__V1__BoardState *b = &out->msg;
    sungka__v1__board_state__init(b);
    int shift = 0;
    if (rotate_to > 0 && st->layout == GAME_LAYOUT_MANCALA)
        shift = rotate_to * (st->cups + 1);
    for (int i = 0; i < n; i++)
        out->cells[i] = game_cell(st, (i + shift) % n);
    b->n_cells = (size_t)n;
    b->cells = out->cells;
    b->to_move = game_to_move(st);
    int scores[GAME_MAX_SEATS];
    game_scores(st, scores);
    for (int i = 0; i < seats; i++)
        out->scores[i] = scores[i];
    b->n_scores = (size_t)seats;
    b->scores = out->scores;
}

void wire_participant(const participant *p, Sungka__V1__Participant *out)
{
    sungka__v1__participant__init(out);
    out->name = (char *)p->name;
    out->seat = p->seat;
    out->departed = p->departed;
    out->rtt_ms = p->rtt_ms;
    out->ready = p->ready;
}
