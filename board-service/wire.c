/*
 * wire.c — building the protobuf messages the service sends from its own
 * structures. Builders fill a caller's message in place and allocate only the
 * repeated parts; the matching *_clear frees those. Strings point into the
 * service's structures (never freed here), so a built message must be packed
 * or sent before the structures change. The room's events arrive here as
 * plain room_event values and leave as the packed bytes of its log: this is
 * the one file that turns the room into protobuf.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "board_rpc.h"
#include "placement.h"

/* The room's reasons are the contract's numbers (board_internal.h), copied
 * as they are: the last of each kept in step here. */
_Static_assert((int)ROOM_END_NOBODY_LEFT == SUNGKA__V1__END_REASON__END_REASON_NOBODY_LEFT &&
                   (int)ROOM_END_FINISHED == SUNGKA__V1__END_REASON__END_REASON_FINISHED,
               "room_end_why is EndReason");
_Static_assert((int)ROOM_OUT_CLAIMED == SUNGKA__V1__OUT_REASON__OUT_REASON_CLAIMED,
               "room_out_why is OutReason");
_Static_assert((int)ROOM_DEPART_ENDED_BY_OPERATOR ==
                   SUNGKA__V1__DEPART_REASON__DEPART_REASON_ENDED_BY_OPERATOR,
               "room_depart_why is DepartReason");

static const Sungka__V1__GameStatus status_to_wire[] = {
    [ROOM_WAITING] = SUNGKA__V1__GAME_STATUS__GAME_STATUS_WAITING,
    [ROOM_RUNNING] = SUNGKA__V1__GAME_STATUS__GAME_STATUS_RUNNING,
    [ROOM_FINISHED] = SUNGKA__V1__GAME_STATUS__GAME_STATUS_FINISHED,
    [ROOM_ABANDONED] = SUNGKA__V1__GAME_STATUS__GAME_STATUS_ABANDONED,
};

Sungka__V1__SeatNumber *wire_seat(int seat, Sungka__V1__SeatNumber *box)
{
    if (seat < 0)
        return NULL;
    sungka__v1__seat_number__init(box);
    box->value = seat;
    return box;
}

Sungka__V1__Clocks *wire_clocks(const room_clocks *c, wire_clocks_msg *out)
{
    if (!c || c->n == 0)
        return NULL;
    sungka__v1__clocks__init(&out->msg);
    for (int s = 0; s < c->n; s++)
        out->remaining[s] = c->remaining_ms[s];
    out->msg.n_remaining_ms = (size_t)c->n;
    out->msg.remaining_ms = out->remaining;
    out->msg.running = wire_seat(c->running, &out->running);
    return &out->msg;
}

void wire_summary(const room *r, Sungka__V1__GameSummary *out)
{
    int seats = game_seats(room_state(r));
    sungka__v1__game_summary__init(out);
    out->game_id = (char *)room_id(r);
    const game_kind *kind = room_kind(r);
    const time_control *tc = room_time_control(r);
    out->kind = (char *)kind->name;
    out->title = (char *)room_title(r);
    out->status = status_to_wire[room_status_of(r)];
    out->cups = room_state(r)->layout == GAME_LAYOUT_MANCALA ? room_state(r)->cups : 0;
    out->autostart = room_autostart(r);
    out->rated = room_is_rated(r);
    out->bot_takes_over = room_takeover_level(r) > 0;
    if (room_has_clocks(r)) {
        out->time_control = calloc(1, sizeof *out->time_control);   /* wire_summary_clear */
        if (out->time_control) {
            sungka__v1__time_control__init(out->time_control);
            out->time_control->per_move_s = tc->per_move_ms / 1000;
            out->time_control->base_s = tc->base_ms / 1000;
            out->time_control->increment_s = tc->increment_ms / 1000;
        }
    }

    /* One allocation each for the pointer arrays and the structs they point to. */
    out->n_options = (size_t)kind->n_options;
    out->options = calloc(out->n_options, sizeof *out->options);
    Sungka__V1__GameOption *opt = calloc(out->n_options, sizeof *opt);
    for (size_t i = 0; i < out->n_options; i++) {
        sungka__v1__game_option__init(&opt[i]);
        opt[i].name = (char *)kind->options[i].name;
        opt[i].value = room_options(r)->value[i];
        out->options[i] = &opt[i];
    }

    /* Every seat, open ones too (an empty name), with its holder's state:
     * a departed holder's seat keeps its name and says how long it waits. */
    out->n_seats = (size_t)seats;
    out->seats = calloc(out->n_seats, sizeof *out->seats);
    wire_participant_msg *seat = calloc(out->n_seats, sizeof *seat);
    for (int i = 0; i < seats; i++) {
        const participant *p = room_seat_holder(r, i);
        if (p) {
            wire_participant(p, &seat[i]);
        } else {
            sungka__v1__participant__init(&seat[i].msg);
            seat[i].msg.seat = wire_seat(i, &seat[i].seat);
        }
        seat[i].msg.name = (char *)room_seat_name(r, i);
        if (p && p->departed && p->depart_deadline_ms != INT64_MAX) {   /* not gone */
            int64_t left = p->depart_deadline_ms - board_now_ms();
            seat[i].msg.grace_left_s = left > 0 ? (int32_t)((left + 999) / 1000) : 0;
        }
        out->seats[i] = &seat[i].msg;
    }

    out->observers = room_watchers(r);
}

void wire_remote_summary(const store_remote_game *g, Sungka__V1__GameSummary *out)
{
    const store_game_info *info = &g->game;
    sungka__v1__game_summary__init(out);
    out->game_id = (char *)info->id;
    out->kind = (char *)info->kind;
    out->title = (char *)info->title;
    out->endpoint = (char *)g->endpoint;
    out->status = status_to_wire[info->status == STORE_RUNNING ? ROOM_RUNNING : ROOM_WAITING];
    out->autostart = info->autostart;
    out->rated = info->rated;
    out->bot_takes_over = info->bot_takes_over;
    if (info->per_move_ms || info->base_ms || info->increment_ms) {
        out->time_control = calloc(1, sizeof *out->time_control);   /* wire_summary_clear */
        if (out->time_control) {
            sungka__v1__time_control__init(out->time_control);
            out->time_control->per_move_s = info->per_move_ms / 1000;
            out->time_control->base_s = info->base_ms / 1000;
            out->time_control->increment_s = info->increment_ms / 1000;
        }
    }
    out->n_options = (size_t)info->n_options;
    out->options = calloc(out->n_options, sizeof *out->options);
    Sungka__V1__GameOption *opt = calloc(out->n_options, sizeof *opt);
    for (size_t i = 0; opt && out->options && i < out->n_options; i++) {
        sungka__v1__game_option__init(&opt[i]);
        opt[i].name = (char *)info->options[i].name;
        opt[i].value = info->options[i].value;
        out->options[i] = &opt[i];
        if (strcmp(opt[i].name, "cups") == 0)    /* the mancala kinds' */
            out->cups = opt[i].value;
    }
    out->n_seats = (size_t)info->seats;
    out->seats = calloc(out->n_seats, sizeof *out->seats);
    wire_participant_msg *seat = calloc(out->n_seats, sizeof *seat);
    for (int i = 0; seat && out->seats && i < info->seats; i++) {
        sungka__v1__participant__init(&seat[i].msg);
        seat[i].msg.seat = wire_seat(i, &seat[i].seat);
        seat[i].msg.name = (char *)g->seat_names[i];
        out->seats[i] = &seat[i].msg;
    }
    if (!opt || !out->options || !seat || !out->seats) {   /* out of memory: list it bare */
        free(opt);
        free(seat);
        free(out->options);
        free(out->seats);
        out->options = NULL;
        out->seats = NULL;
        out->n_options = out->n_seats = 0;
    }
}

void wire_summary_clear(Sungka__V1__GameSummary *s)
{
    if (s->n_options)
        free(s->options[0]);
    free(s->options);
    if (s->n_seats)
        free(s->seats[0]);    /* the first wire_participant_msg: .msg comes first */
    free(s->seats);
    free(s->time_control);
    s->time_control = NULL;
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
    b->to_move = wire_seat(game_to_move(st), &out->to_move);
    int scores[GAME_MAX_SEATS];
    game_scores(st, scores);
    for (int i = 0; i < seats; i++)
        out->scores[i] = scores[i];
    b->n_scores = (size_t)seats;
    b->scores = out->scores;
}

void wire_participant(const participant *p, wire_participant_msg *out)
{
    Sungka__V1__Participant *m = &out->msg;
    sungka__v1__participant__init(m);
    m->name = (char *)p->name;
    m->seat = wire_seat(p->seat, &out->seat);
    m->departed = p->departed;
    if (p->rtt_ms >= 0) {
        sungka__v1__round_trip__init(&out->rtt);
        out->rtt.ms = p->rtt_ms;
        m->rtt = &out->rtt;
    }
    m->ready = p->ready;
    m->out = p->seat >= 0 && game_is_out(room_state(p->room), p->seat);
    m->guest = p->account_id == 0;
    if (p->has_rating) {
        wire_rating(&p->rating, &out->rating);
        m->rating = &out->rating;
    }
}

void wire_rating(const store_rating *r, Sungka__V1__Rating *out)
{
    sungka__v1__rating__init(out);
    out->value = (int32_t)lround(r->rating);
    out->deviation = (int32_t)lround(r->rd);
    out->provisional = r->rd > PLACEMENT_PROVISIONAL_RD;
    out->games = r->games;
}

/* ------------------------------------------------------ the room's events */

/* Who a snapshot or a ping names: every seated player, then the first
 * observers, BOARD_LISTED_PEOPLE at most, so neither grows with a crowd (the
 * game's summary counts the observers). Returns how many, filled into
 * who/whop. */
static int list_people(const room *r, wire_participant_msg *who,
                       Sungka__V1__Participant **whop)
{
    int n = 0;
    /* people[] holds the seated first, then the watchers */
    int n_people;
    participant *const *people = room_people(r, &n_people, NULL);
    for (int i = 0; i < n_people && n < BOARD_LISTED_PEOPLE; i++) {
        wire_participant(people[i], &who[n]);
        whop[n] = &who[n].msg;
        n++;
    }
    return n;
}

static uint8_t *pack(const Sungka__V1__Event *ev, size_t *len)
{
    *len = protobuf_c_message_get_packed_size(&ev->base);
    uint8_t *data = malloc(*len ? *len : 1);
    if (data)
        protobuf_c_message_pack(&ev->base, data);
    return data;
}

/* Built on the stack: packing a move allocates nothing but its bytes. */
static uint8_t *pack_move(Sungka__V1__Event *ev, const room_event *re, size_t *len)
{
    const game_result *res = re->result;
    Sungka__V1__MoveMade made = SUNGKA__V1__MOVE_MADE__INIT;
    wire_board_msg board;
    Sungka__V1__Step steps[GAME_MAX_STEPS];
    Sungka__V1__Step *stepp[GAME_MAX_STEPS];
    int32_t passed[GAME_MAX_SEATS];
    made.seat = re->seat;
    made.move = re->move;
    for (int i = 0; i < res->n_steps; i++) {
        sungka__v1__step__init(&steps[i]);
        steps[i].cell = res->steps[i].cell;
        steps[i].value = res->steps[i].value;
        stepp[i] = &steps[i];
    }
    made.n_steps = (size_t)res->n_steps;
    made.steps = stepp;
    made.steps_truncated = res->truncated;
    wire_board(re->state, -1, &board);
    made.board = &board.msg;
    made.extra_turn = res->extra_turn;
    for (int i = 0; i < res->n_passed; i++)
        passed[i] = res->passed[i];
    made.n_passed = (size_t)res->n_passed;
    made.passed = passed;
    made.captured = res->captured;
    wire_clocks_msg clocks;
    made.clocks = wire_clocks(re->clocks, &clocks);
    /* The turn rides in the move (no TurnChanged): one event per move. */
    Sungka__V1__TurnChanged turn = SUNGKA__V1__TURN_CHANGED__INIT;
    turn.seat = game_to_move(re->state);   /* only read when the game goes on */
    if (!game_is_over(re->state))
        made.turn = &turn;
    ev->body_case = SUNGKA__V1__EVENT__BODY_MOVE_MADE;
    ev->move_made = &made;
    return pack(ev, len);
}

static uint8_t *pack_over(Sungka__V1__Event *ev, const room_event *re, size_t *len)
{
    int seats = game_seats(re->state);
    int scores[GAME_MAX_SEATS];
    int32_t winners32[GAME_MAX_SEATS], scores32[GAME_MAX_SEATS];
    game_scores(re->state, scores);
    for (int i = 0; i < re->n_winners; i++)
        winners32[i] = re->winners[i];
    for (int i = 0; i < seats; i++)
        scores32[i] = scores[i];
    Sungka__V1__GameOver over = SUNGKA__V1__GAME_OVER__INIT;
    over.n_winners = (size_t)re->n_winners;
    over.winners = winners32;
    over.n_scores = (size_t)seats;
    over.scores = scores32;
    over.reason = (char *)re->text;
    over.abandoned = re->abandoned;
    over.unrated = re->unrated ? (char *)re->unrated : (char *)"";
    over.why = (Sungka__V1__EndReason)re->why;
    over.who = re->by ? (char *)re->by : (char *)"";
    over.out = (Sungka__V1__OutReason)re->out_why;
    over.detail = re->detail ? (char *)re->detail : (char *)"";
    Sungka__V1__RatingChange changes[GAME_MAX_SEATS], *changep[GAME_MAX_SEATS];
    Sungka__V1__SeatNumber change_seat[GAME_MAX_SEATS];
    Sungka__V1__Rating before[GAME_MAX_SEATS], after[GAME_MAX_SEATS];
    for (int i = 0; re->ratings && i < seats; i++) {
        sungka__v1__rating_change__init(&changes[i]);
        changes[i].seat = wire_seat(i, &change_seat[i]);
        wire_rating(&re->ratings[i].before, &before[i]);
        wire_rating(&re->ratings[i].after, &after[i]);
        changes[i].before = &before[i];
        changes[i].after = &after[i];
        changep[i] = &changes[i];
    }
    over.n_ratings = re->ratings ? (size_t)seats : 0;
    over.ratings = changep;
    ev->body_case = SUNGKA__V1__EVENT__BODY_GAME_OVER;
    ev->game_over = &over;
    return pack(ev, len);
}

uint8_t *wire_pack_event(const room_event *re, size_t *len)
{
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.seq = re->seq;
    ev.time_ms = re->time_ms;
    wire_participant_msg whom;
    Sungka__V1__Participant *who = NULL;
    if (re->who) {
        wire_participant(re->who, &whom);
        who = &whom.msg;
    }
    Sungka__V1__SeatNumber seat_box;
    /* Each body holds `who` first, so one of each suffices. */
    Sungka__V1__PlayerJoined joined = SUNGKA__V1__PLAYER_JOINED__INIT;
    Sungka__V1__PlayerLeft left = SUNGKA__V1__PLAYER_LEFT__INIT;
    Sungka__V1__PlayerReturned returned = SUNGKA__V1__PLAYER_RETURNED__INIT;
    Sungka__V1__ReadyChanged ready = SUNGKA__V1__READY_CHANGED__INIT;
    Sungka__V1__PlayerDeparted departed = SUNGKA__V1__PLAYER_DEPARTED__INIT;
    Sungka__V1__SeatChanged seat = SUNGKA__V1__SEAT_CHANGED__INIT;
    Sungka__V1__GameStarted started = SUNGKA__V1__GAME_STARTED__INIT;
    Sungka__V1__ChatMessage chat = SUNGKA__V1__CHAT_MESSAGE__INIT;
    Sungka__V1__Notice notice = SUNGKA__V1__NOTICE__INIT;
    Sungka__V1__PlayerOut out = SUNGKA__V1__PLAYER_OUT__INIT;
    Sungka__V1__DrawOffered offered = SUNGKA__V1__DRAW_OFFERED__INIT;
    Sungka__V1__SeatTakenOver taken = SUNGKA__V1__SEAT_TAKEN_OVER__INIT;
    Sungka__V1__RematchOffered rematch = SUNGKA__V1__REMATCH_OFFERED__INIT;
    Sungka__V1__RematchDeclined no_rematch = SUNGKA__V1__REMATCH_DECLINED__INIT;
    Sungka__V1__RematchStarted rematched = SUNGKA__V1__REMATCH_STARTED__INIT;
    int32_t seats32[GAME_MAX_SEATS];
    Sungka__V1__DrawDeclined declined = SUNGKA__V1__DRAW_DECLINED__INIT;
    Sungka__V1__TimeGiven given = SUNGKA__V1__TIME_GIVEN__INIT;
    int32_t passed[GAME_MAX_SEATS];
    wire_clocks_msg clocks;
    wire_board_msg board;
    switch (re->kind) {
    case ROOM_EV_JOINED:
        joined.who = who;
        ev.body_case = SUNGKA__V1__EVENT__BODY_PLAYER_JOINED;
        ev.player_joined = &joined;
        break;
    case ROOM_EV_LEFT:
        left.who = who;
        ev.body_case = SUNGKA__V1__EVENT__BODY_PLAYER_LEFT;
        ev.player_left = &left;
        break;
    case ROOM_EV_RETURNED:
        returned.who = who;
        ev.body_case = SUNGKA__V1__EVENT__BODY_PLAYER_RETURNED;
        ev.player_returned = &returned;
        break;
    case ROOM_EV_READY:
        ready.who = who;
        ev.body_case = SUNGKA__V1__EVENT__BODY_READY_CHANGED;
        ev.ready_changed = &ready;
        break;
    case ROOM_EV_DEPARTED:
        departed.who = who;
        departed.reason = (char *)re->text;
        departed.grace_s = re->grace_s;
        departed.why = (Sungka__V1__DepartReason)re->why;
        ev.body_case = SUNGKA__V1__EVENT__BODY_PLAYER_DEPARTED;
        ev.player_departed = &departed;
        break;
    case ROOM_EV_SEAT:
        seat.who = who;
        seat.from_seat = wire_seat(re->from_seat, &seat_box);
        ev.body_case = SUNGKA__V1__EVENT__BODY_SEAT_CHANGED;
        ev.seat_changed = &seat;
        break;
    case ROOM_EV_STARTED:
        wire_board(re->state, -1, &board);
        started.first = game_to_move(re->state);
        started.board = &board.msg;
        started.clocks = wire_clocks(re->clocks, &clocks);
        started.unrated = re->unrated ? (char *)re->unrated : (char *)"";
        ev.body_case = SUNGKA__V1__EVENT__BODY_GAME_STARTED;
        ev.game_started = &started;
        break;
    case ROOM_EV_MOVED:
        return pack_move(&ev, re, len);
    case ROOM_EV_OVER:
        return pack_over(&ev, re, len);
    case ROOM_EV_CHAT:
        chat.from = (char *)re->who->name;
        chat.seat = wire_seat(re->who->seat, &seat_box);
        chat.text = (char *)re->text;
        chat.to = re->to ? (char *)re->to->name : (char *)"";
        chat.spectators = re->spectators;
        ev.body_case = SUNGKA__V1__EVENT__BODY_CHAT;
        ev.chat = &chat;
        break;
    case ROOM_EV_NOTICE:
        notice.text = (char *)re->text;
        ev.body_case = SUNGKA__V1__EVENT__BODY_NOTICE;
        ev.notice = &notice;
        break;
    case ROOM_EV_OUT:
        out.who = who;
        out.reason = (char *)re->text;
        out.why = (Sungka__V1__OutReason)re->why;
        out.turn = wire_seat(game_to_move(re->state), &seat_box);
        for (int i = 0; re->result && i < re->result->n_passed; i++)
            passed[out.n_passed++] = re->result->passed[i];
        out.passed = passed;
        out.clocks = wire_clocks(re->clocks, &clocks);
        ev.body_case = SUNGKA__V1__EVENT__BODY_PLAYER_OUT;
        ev.player_out = &out;
        break;
    case ROOM_EV_TAKEN_OVER:
        taken.bot = who;
        taken.departed = (char *)re->text;
        taken.level = re->level;
        ev.body_case = SUNGKA__V1__EVENT__BODY_SEAT_TAKEN_OVER;
        ev.seat_taken_over = &taken;
        break;
    case ROOM_EV_REMATCH_OFFERED:
        rematch.who = who;
        for (int s = 0; s < GAME_MAX_SEATS; s++)
            if (re->seats & (1u << s))
                seats32[rematch.n_accepted++] = s;
        rematch.accepted = seats32;
        ev.body_case = SUNGKA__V1__EVENT__BODY_REMATCH_OFFERED;
        ev.rematch_offered = &rematch;
        break;
    case ROOM_EV_REMATCH_DECLINED:
        no_rematch.who = who;
        ev.body_case = SUNGKA__V1__EVENT__BODY_REMATCH_DECLINED;
        ev.rematch_declined = &no_rematch;
        break;
    case ROOM_EV_REMATCH_STARTED:
        rematched.game_id = (char *)re->text;
        rematched.n_new_seats = (size_t)game_seats(re->state);
        for (size_t s = 0; s < rematched.n_new_seats; s++)
            seats32[s] = (int32_t)((s + 1) % rematched.n_new_seats);   /* room_rematch_seat */
        rematched.new_seats = seats32;
        ev.body_case = SUNGKA__V1__EVENT__BODY_REMATCH_STARTED;
        ev.rematch_started = &rematched;
        break;
    case ROOM_EV_DRAW_OFFERED:
        offered.who = who;
        ev.body_case = SUNGKA__V1__EVENT__BODY_DRAW_OFFERED;
        ev.draw_offered = &offered;
        break;
    case ROOM_EV_DRAW_DECLINED:
        declined.who = who;
        ev.body_case = SUNGKA__V1__EVENT__BODY_DRAW_DECLINED;
        ev.draw_declined = &declined;
        break;
    case ROOM_EV_TIME_GIVEN:
        given.who = who;
        given.seconds = ROOM_GIVE_TIME_MS / 1000;
        given.clocks = wire_clocks(re->clocks, &clocks);
        ev.body_case = SUNGKA__V1__EVENT__BODY_TIME_GIVEN;
        ev.time_given = &given;
        break;
    case ROOM_EV_COUNT:
        return NULL;
    }
    return pack(&ev, len);
}

uint8_t *wire_pack_snapshot(const room *r, const participant *p, size_t *len)
{
    Sungka__V1__Snapshot snap = SUNGKA__V1__SNAPSHOT__INIT;
    Sungka__V1__GameSummary summary;
    wire_board_msg board;
    wire_participant_msg who[BOARD_LISTED_PEOPLE];
    Sungka__V1__Participant *whop[BOARD_LISTED_PEOPLE];
    Sungka__V1__SeatNumber your_seat;
    wire_summary(r, &summary);
    wire_board(room_state(r), -1, &board);
    snap.game = &summary;
    snap.board = &board.msg;
    snap.your_seat = wire_seat(p->seat, &your_seat);
    snap.n_participants = (size_t)list_people(r, who, whop);
    snap.participants = whop;
    snap.last_seq = room_last_seq(r);
    room_clocks now;
    wire_clocks_msg clocks;
    room_clocks_now(r, board_now_ms(), &now);
    if (room_status_of(r) == ROOM_RUNNING)
        snap.clocks = wire_clocks(&now, &clocks);
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = SUNGKA__V1__EVENT__BODY_SNAPSHOT;
    ev.snapshot = &snap;
    ev.time_ms = board_wall_ms();
    uint8_t *data = pack(&ev, len);
    wire_summary_clear(&summary);
    return data;
}

uint8_t *wire_pack_ping(const room *r, uint64_t nonce, size_t *len)
{
    wire_participant_msg who[BOARD_LISTED_PEOPLE];
    Sungka__V1__Participant *whop[BOARD_LISTED_PEOPLE];
    Sungka__V1__PingEvent ping = SUNGKA__V1__PING_EVENT__INIT;
    ping.nonce = nonce;
    ping.n_participants = (size_t)list_people(r, who, whop);
    ping.participants = whop;
    ping.observers = room_watchers(r);
    room_clocks now;
    wire_clocks_msg clocks;
    room_clocks_now(r, board_now_ms(), &now);
    if (room_status_of(r) == ROOM_RUNNING)
        ping.clocks = wire_clocks(&now, &clocks);
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = SUNGKA__V1__EVENT__BODY_PING;
    ev.ping = &ping;
    ev.time_ms = board_wall_ms();
    return pack(&ev, len);
}

/* ------------------------------------------- stored events, as plain values */

static const room_clocks *clocks_value(const Sungka__V1__Clocks *c, room_clocks *out)
{
    if (!c || c->n_remaining_ms == 0 || c->n_remaining_ms > GAME_MAX_SEATS)
        return NULL;
    out->n = (int)c->n_remaining_ms;
    for (int s = 0; s < out->n; s++)
        out->remaining_ms[s] = c->remaining_ms[s];
    out->running = c->running ? c->running->value : -1;
    return out;
}

/* A body's participant's seat, or -1 for none. */
static int seat_of(const Sungka__V1__Participant *who)
{
    return who && who->seat ? who->seat->value : -1;
}

/* Which room_event kind each body case is (the inverse of wire_pack_event). */
static const struct {
    Sungka__V1__Event__BodyCase body;
    room_event_kind kind;
} body_kinds[] = {
    {SUNGKA__V1__EVENT__BODY_PLAYER_JOINED, ROOM_EV_JOINED},
    {SUNGKA__V1__EVENT__BODY_PLAYER_LEFT, ROOM_EV_LEFT},
    {SUNGKA__V1__EVENT__BODY_PLAYER_DEPARTED, ROOM_EV_DEPARTED},
    {SUNGKA__V1__EVENT__BODY_PLAYER_RETURNED, ROOM_EV_RETURNED},
    {SUNGKA__V1__EVENT__BODY_READY_CHANGED, ROOM_EV_READY},
    {SUNGKA__V1__EVENT__BODY_SEAT_CHANGED, ROOM_EV_SEAT},
    {SUNGKA__V1__EVENT__BODY_GAME_STARTED, ROOM_EV_STARTED},
    {SUNGKA__V1__EVENT__BODY_MOVE_MADE, ROOM_EV_MOVED},
    {SUNGKA__V1__EVENT__BODY_CHAT, ROOM_EV_CHAT},
    {SUNGKA__V1__EVENT__BODY_GAME_OVER, ROOM_EV_OVER},
    {SUNGKA__V1__EVENT__BODY_NOTICE, ROOM_EV_NOTICE},
    {SUNGKA__V1__EVENT__BODY_PLAYER_OUT, ROOM_EV_OUT},
    {SUNGKA__V1__EVENT__BODY_DRAW_OFFERED, ROOM_EV_DRAW_OFFERED},
    {SUNGKA__V1__EVENT__BODY_DRAW_DECLINED, ROOM_EV_DRAW_DECLINED},
    {SUNGKA__V1__EVENT__BODY_SEAT_TAKEN_OVER, ROOM_EV_TAKEN_OVER},
    {SUNGKA__V1__EVENT__BODY_REMATCH_OFFERED, ROOM_EV_REMATCH_OFFERED},
    {SUNGKA__V1__EVENT__BODY_REMATCH_DECLINED, ROOM_EV_REMATCH_DECLINED},
    {SUNGKA__V1__EVENT__BODY_REMATCH_STARTED, ROOM_EV_REMATCH_STARTED},
    {SUNGKA__V1__EVENT__BODY_TIME_GIVEN, ROOM_EV_TIME_GIVEN},
};

int wire_event_value(const Sungka__V1__Event *msg, room_event *out, room_clocks *clocks)
{
    memset(out, 0, sizeof *out);
    out->seq = msg->seq;
    out->time_ms = msg->time_ms;
    out->seat = -1;
    size_t n = sizeof body_kinds / sizeof body_kinds[0];
    size_t i = 0;
    while (i < n && body_kinds[i].body != msg->body_case)
        i++;
    if (i == n)
        return -1;
    out->kind = body_kinds[i].kind;
    switch (msg->body_case) {
    case SUNGKA__V1__EVENT__BODY_GAME_STARTED:
        out->clocks = clocks_value(msg->game_started->clocks, clocks);
        out->unrated = msg->game_started->unrated;
        break;
    case SUNGKA__V1__EVENT__BODY_MOVE_MADE:
        out->seat = msg->move_made->seat;
        out->move = msg->move_made->move;
        out->clocks = clocks_value(msg->move_made->clocks, clocks);
        break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_OUT:
        out->seat = seat_of(msg->player_out->who);
        out->text = msg->player_out->reason;
        out->clocks = clocks_value(msg->player_out->clocks, clocks);
        return out->seat >= 0 ? 0 : -1;
    case SUNGKA__V1__EVENT__BODY_GAME_OVER:
        out->text = msg->game_over->reason;
        out->abandoned = msg->game_over->abandoned;
        out->unrated = msg->game_over->unrated;
        break;
    case SUNGKA__V1__EVENT__BODY_DRAW_OFFERED:
        out->seat = seat_of(msg->draw_offered->who);
        return out->seat >= 0 ? 0 : -1;
    case SUNGKA__V1__EVENT__BODY_DRAW_DECLINED:
        out->seat = seat_of(msg->draw_declined->who);
        return out->seat >= 0 ? 0 : -1;
    case SUNGKA__V1__EVENT__BODY_TIME_GIVEN:
        out->seat = seat_of(msg->time_given->who);
        out->clocks = clocks_value(msg->time_given->clocks, clocks);
        return out->seat >= 0 && out->clocks ? 0 : -1;
    case SUNGKA__V1__EVENT__BODY_SEAT_TAKEN_OVER:
        out->seat = seat_of(msg->seat_taken_over->bot);
        out->level = msg->seat_taken_over->level;
        return out->seat >= 0 ? 0 : -1;
    case SUNGKA__V1__EVENT__BODY_CHAT:
        out->sender = msg->chat->from;
        break;
    case SUNGKA__V1__EVENT__BODY_REMATCH_OFFERED:
        out->seat = seat_of(msg->rematch_offered->who);
        for (size_t k = 0; k < msg->rematch_offered->n_accepted; k++)
            if (msg->rematch_offered->accepted[k] >= 0 &&
                msg->rematch_offered->accepted[k] < GAME_MAX_SEATS)
                out->seats |= 1u << msg->rematch_offered->accepted[k];
        break;
    case SUNGKA__V1__EVENT__BODY_REMATCH_STARTED:
        out->text = msg->rematch_started->game_id;
        break;
    default:
        break;
    }
    return 0;
}
