/*
 * agent_wire.c — protobuf events to agent_msg values, on the rpc client
 * thread. Everything is copied: a message owns its data and the protobuf
 * tree is freed by the caller right after. Every string is copied through
 * agent__text, so nothing a service says reaches a view unescaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_internal.h"
#include "text.h"

_Static_assert((int)AGENT_END_NOBODY_LEFT == SUNGKA__V1__END_REASON__END_REASON_NOBODY_LEFT &&
                   (int)AGENT_OUT_CLAIMED == SUNGKA__V1__OUT_REASON__OUT_REASON_CLAIMED &&
                   (int)AGENT_DEPART_ENDED_BY_OPERATOR ==
                       SUNGKA__V1__DEPART_REASON__DEPART_REASON_ENDED_BY_OPERATOR,
               "agent.h's reasons are the contract's numbers");

void agent__text(char *dst, size_t size, const char *src)
{
    /* protobuf-c gives "" for an absent string, but a hand-made message
     * (or a future field) may leave NULL */
    text_escape(src ? src : "", dst, size);
}

agent_msg *agent__msg_new(agent_msg_kind kind)
{
    agent_msg *m = calloc(1, sizeof *m);
    if (m)
        m->kind = kind;
    return m;
}

/* A seat where "none" is possible: an absent field (or a nonsense negative
 * value) is none, which the agent's values write -1. */
int agent__seat_of(const Sungka__V1__SeatNumber *seat)
{
    return seat && seat->value >= 0 ? seat->value : -1;
}

Sungka__V1__SeatNumber *agent__seat_field(int seat, Sungka__V1__SeatNumber *box)
{
    if (seat < 0)
        return NULL;
    sungka__v1__seat_number__init(box);
    box->value = seat;
    return box;
}

/* A reason code as the agent knows it (agent.h: the contract's numbers), or
 * 0 for one newer than this agent, whose English text is then all there is. */
static int known(int code, int last)
{
    return code > 0 && code <= last ? code : 0;
}

static void copy_clocks(agent_msg *m, const Sungka__V1__Clocks *c)
{
    if (!c)
        return;
    m->has_clocks = true;
    m->clock_running = agent__seat_of(c->running);
    for (size_t s = 0; s < c->n_remaining_ms && s < GAME_MAX_SEATS; s++)
        m->clock_ms[s] = c->remaining_ms[s] > 0 ? c->remaining_ms[s] : 0;
}

static void copy_board(agent_msg *m, const Sungka__V1__BoardState *b)
{
    if (!b)
        return;
    m->cells = calloc(b->n_cells + 1, sizeof *m->cells);
    if (!m->cells)
        return;
    m->n_cells = (int)b->n_cells;
    for (size_t i = 0; i < b->n_cells; i++)
        m->cells[i] = b->cells[i];
    m->to_move = agent__seat_of(b->to_move);
}

void agent__rating(const Sungka__V1__Rating *r, agent_rating *out)
{
    memset(out, 0, sizeof *out);
    if (!r)
        return;
    out->known = true;
    out->value = r->value;
    out->deviation = r->deviation;
    out->provisional = r->provisional;
    out->games = r->games;
}

static void copy_people(agent_msg *m, Sungka__V1__Participant **who, size_t n)
{
    if (n > AGENT_MAX_PEOPLE)
        n = AGENT_MAX_PEOPLE;
    m->people = calloc(n + 1, sizeof *m->people);
    if (!m->people)
        return;
    m->n_people = (int)n;
    for (size_t i = 0; i < n; i++) {
        agent__text(m->people[i].name, sizeof m->people[i].name, who[i]->name);
        m->people[i].seat = agent__seat_of(who[i]->seat);
        m->people[i].departed = who[i]->departed;
        m->people[i].rtt_ms = who[i]->rtt ? who[i]->rtt->ms : -1;
        m->people[i].ready = who[i]->ready;
        m->people[i].out = who[i]->out;
        m->people[i].guest = who[i]->guest;
        agent__rating(who[i]->rating, &m->people[i].rating);
    }
}

static void copy_who(agent_msg *m, const Sungka__V1__Participant *who)
{
    if (!who)
        return;
    agent__text(m->name, sizeof m->name, who->name);
    m->seat = agent__seat_of(who->seat);
    m->ready = who->ready;
    m->guest = who->guest;
    agent__rating(who->rating, &m->rating);
}

static void copy_seats(const int32_t *seats, size_t n, int *out, int *count)
{
    if (n > GAME_MAX_SEATS)
        n = GAME_MAX_SEATS;
    for (size_t i = 0; i < n; i++)
        out[i] = seats[i];
    *count = (int)n;
}

static agent_msg *snapshot_msg(const Sungka__V1__Snapshot *s)
{
    agent_msg *m = agent__msg_new(AGENT_MSG_SNAPSHOT);
    if (!m || !s->game)
        return m;
    const Sungka__V1__GameSummary *g = s->game;
    agent__text(m->game_id, sizeof m->game_id, g->game_id);
    agent__text(m->title, sizeof m->title, g->title);
    agent__text(m->kind_name, sizeof m->kind_name, g->kind);
    const game_kind *kind = game_kind_find(g->kind);
    if (kind) {
        game_options_default(kind, &m->opts);
        char err[GAME_ERR_LEN];
        for (size_t i = 0; i < g->n_options; i++)
            game_options_set(kind, &m->opts, g->options[i]->name, g->options[i]->value, err,
                             sizeof err);
    }
    m->status = g->status >= 1 && g->status <= 4 ? (agent_status)g->status : AGENT_GAME_WAITING;
    for (size_t i = 0; i < g->n_seats && i < GAME_MAX_SEATS; i++) {
        agent__text(m->seat_name[i], sizeof m->seat_name[i], g->seats[i]->name);
        m->seat_grace_s[i] = g->seats[i]->departed ? g->seats[i]->grace_left_s : 0;
    }
    m->my_seat = agent__seat_of(s->your_seat);
    copy_clocks(m, s->clocks);
    if (g->time_control) {
        m->time_control.per_move_s = g->time_control->per_move_s;
        m->time_control.base_s = g->time_control->base_s;
        m->time_control.increment_s = g->time_control->increment_s;
    }
    m->rated = g->rated;
    m->observers = g->observers;
    m->seq = s->last_seq;
    copy_board(m, s->board);
    copy_people(m, s->participants, s->n_participants);
    return m;
}

static agent_msg *move_msg(const Sungka__V1__MoveMade *mv)
{
    agent_msg *m = agent__msg_new(AGENT_MSG_MOVED);
    if (!m)
        return NULL;
    m->seat = mv->seat;
    m->move = mv->move;
    m->extra_turn = mv->extra_turn;
    copy_seats(mv->passed, mv->n_passed, m->passed, &m->n_passed);
    copy_board(m, mv->board);
    copy_clocks(m, mv->clocks);
    if (mv->n_steps) {
        m->steps = calloc(mv->n_steps, sizeof *m->steps);
        if (m->steps) {
            m->n_steps = (int)mv->n_steps;
            for (size_t i = 0; i < mv->n_steps; i++) {
                m->steps[i].cell = (int16_t)mv->steps[i]->cell;
                m->steps[i].value = (int16_t)mv->steps[i]->value;
            }
        }
    }
    return m;
}

/* Turn one event into a message for the view (client thread). */
agent_msg *agent__event_msg(const Sungka__V1__Event *ev)
{
    agent_msg *m = NULL;
    switch (ev->body_case) {
    case SUNGKA__V1__EVENT__BODY_SNAPSHOT:
        return snapshot_msg(ev->snapshot);
    case SUNGKA__V1__EVENT__BODY_PLAYER_JOINED:
        if ((m = agent__msg_new(AGENT_MSG_JOINED)))
            copy_who(m, ev->player_joined->who);
        break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_LEFT:
        if ((m = agent__msg_new(AGENT_MSG_LEFT)))
            copy_who(m, ev->player_left->who);
        break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_DEPARTED:
        if ((m = agent__msg_new(AGENT_MSG_DEPARTED))) {
            copy_who(m, ev->player_departed->who);
            agent__text(m->text, sizeof m->text, ev->player_departed->reason);
            m->grace_s = ev->player_departed->grace_s;
            m->why = known(ev->player_departed->why, AGENT_DEPART_ENDED_BY_OPERATOR);
        }
        break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_RETURNED:
        if ((m = agent__msg_new(AGENT_MSG_RETURNED)))
            copy_who(m, ev->player_returned->who);
        break;
    case SUNGKA__V1__EVENT__BODY_READY_CHANGED:
        if ((m = agent__msg_new(AGENT_MSG_READY)))
            copy_who(m, ev->ready_changed->who);
        break;
    case SUNGKA__V1__EVENT__BODY_SEAT_CHANGED:
        if ((m = agent__msg_new(AGENT_MSG_SEAT))) {
            copy_who(m, ev->seat_changed->who);
            m->from_seat = agent__seat_of(ev->seat_changed->from_seat);
        }
        break;
    case SUNGKA__V1__EVENT__BODY_GAME_STARTED:
        if ((m = agent__msg_new(AGENT_MSG_STARTED))) {
            m->seat = ev->game_started->first;
            copy_board(m, ev->game_started->board);
            copy_clocks(m, ev->game_started->clocks);
            agent__text(m->unrated, sizeof m->unrated, ev->game_started->unrated);
        }
        break;
    case SUNGKA__V1__EVENT__BODY_TURN_CHANGED:
        /* Deprecated in the proto, but logs written before MoveMade carried
         * the turn still hold it, and a replay of them must read it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        if ((m = agent__msg_new(AGENT_MSG_TURN))) {
            m->seat = ev->turn_changed->seat;
            copy_seats(ev->turn_changed->passed, ev->turn_changed->n_passed, m->passed,
                       &m->n_passed);
        }
#pragma GCC diagnostic pop
        break;
    case SUNGKA__V1__EVENT__BODY_MOVE_MADE:
        m = move_msg(ev->move_made);
        break;
    case SUNGKA__V1__EVENT__BODY_CHAT:
        if ((m = agent__msg_new(AGENT_MSG_CHAT))) {
            agent__text(m->name, sizeof m->name, ev->chat->from);
            m->seat = agent__seat_of(ev->chat->seat);
            agent__text(m->text, sizeof m->text, ev->chat->text);
            agent__text(m->to, sizeof m->to, ev->chat->to);
            m->spectators = ev->chat->spectators;
        }
        break;
    case SUNGKA__V1__EVENT__BODY_GAME_OVER:
        if ((m = agent__msg_new(AGENT_MSG_GAME_OVER))) {
            const Sungka__V1__GameOver *o = ev->game_over;
            copy_seats(o->winners, o->n_winners, m->winners, &m->n_winners);
            copy_seats(o->scores, o->n_scores, m->scores, &m->n_scores);
            m->abandoned = o->abandoned;
            for (size_t i = 0; i < o->n_ratings; i++) {
                int seat = agent__seat_of(o->ratings[i]->seat);
                if (seat < 0 || seat >= GAME_MAX_SEATS)
                    continue;
                agent__rating(o->ratings[i]->before, &m->rating_before[seat]);
                agent__rating(o->ratings[i]->after, &m->rating_after[seat]);
                m->ratings_changed = true;
            }
            agent__text(m->text, sizeof m->text, o->reason);
            agent__text(m->unrated, sizeof m->unrated, o->unrated);
            m->why = known(o->why, AGENT_END_NOBODY_LEFT);
            m->out_why = known(o->out, AGENT_OUT_CLAIMED);
            agent__text(m->name, sizeof m->name, o->who);
            agent__text(m->detail, sizeof m->detail, o->detail);
        }
        break;
    case SUNGKA__V1__EVENT__BODY_NOTICE:
        if ((m = agent__msg_new(AGENT_MSG_NOTICE)))
            agent__text(m->text, sizeof m->text, ev->notice->text);
        break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_OUT:
        if ((m = agent__msg_new(AGENT_MSG_OUT))) {
            copy_who(m, ev->player_out->who);
            agent__text(m->text, sizeof m->text, ev->player_out->reason);
            m->why = known(ev->player_out->why, AGENT_OUT_CLAIMED);
            m->to_move = agent__seat_of(ev->player_out->turn);
            copy_seats(ev->player_out->passed, ev->player_out->n_passed, m->passed,
                       &m->n_passed);
            copy_clocks(m, ev->player_out->clocks);
        }
        break;
    case SUNGKA__V1__EVENT__BODY_DRAW_OFFERED:
        if ((m = agent__msg_new(AGENT_MSG_DRAW_OFFERED)))
            copy_who(m, ev->draw_offered->who);
        break;
    case SUNGKA__V1__EVENT__BODY_DRAW_DECLINED:
        if ((m = agent__msg_new(AGENT_MSG_DRAW_DECLINED)))
            copy_who(m, ev->draw_declined->who);
        break;
    case SUNGKA__V1__EVENT__BODY_TIME_GIVEN:
        if ((m = agent__msg_new(AGENT_MSG_TIME_GIVEN))) {
            copy_who(m, ev->time_given->who);
            m->move = ev->time_given->seconds;
            copy_clocks(m, ev->time_given->clocks);
        }
        break;
    case SUNGKA__V1__EVENT__BODY_REMATCH_OFFERED:
        if ((m = agent__msg_new(AGENT_MSG_REMATCH_OFFERED))) {
            copy_who(m, ev->rematch_offered->who);
            for (size_t i = 0; i < ev->rematch_offered->n_accepted; i++)
                if (ev->rematch_offered->accepted[i] >= 0 &&
                    ev->rematch_offered->accepted[i] < GAME_MAX_SEATS)
                    m->accepted |= 1u << ev->rematch_offered->accepted[i];
        }
        break;
    case SUNGKA__V1__EVENT__BODY_REMATCH_DECLINED:
        if ((m = agent__msg_new(AGENT_MSG_REMATCH_DECLINED)))
            copy_who(m, ev->rematch_declined->who);
        break;
    case SUNGKA__V1__EVENT__BODY_REMATCH_STARTED:
        if ((m = agent__msg_new(AGENT_MSG_REMATCH_STARTED)))
            agent__text(m->text, sizeof m->text, ev->rematch_started->game_id);
        break;
    case SUNGKA__V1__EVENT__BODY_SEAT_TAKEN_OVER:
        if ((m = agent__msg_new(AGENT_MSG_TAKEN_OVER))) {
            copy_who(m, ev->seat_taken_over->bot);
            agent__text(m->text, sizeof m->text, ev->seat_taken_over->departed);
            m->level = ev->seat_taken_over->level;
        }
        break;
    default:
        break;   /* a newer service's event we do not know: ignore it */
    }
    if (m && ev->seq)
        m->seq = ev->seq;
    return m;
}

agent_msg *agent__turn_msg(const Sungka__V1__Event *ev)
{
    int seat;
    const Sungka__V1__MoveMade *mv = NULL;
    if (ev->body_case == SUNGKA__V1__EVENT__BODY_GAME_STARTED) {
        seat = ev->game_started->first;
    } else if (ev->body_case == SUNGKA__V1__EVENT__BODY_MOVE_MADE && ev->move_made->turn) {
        mv = ev->move_made;
        seat = mv->turn->seat;
    } else {
        return NULL;
    }
    agent_msg *m = agent__msg_new(AGENT_MSG_TURN);
    if (!m)
        return NULL;
    m->seat = seat;
    if (mv)
        copy_seats(mv->passed, mv->n_passed, m->passed, &m->n_passed);
    m->seq = ev->seq;
    return m;
}

agent_msg *agent__pings_msg(const Sungka__V1__PingEvent *ping)
{
    agent_msg *m = agent__msg_new(AGENT_MSG_PINGS);
    if (m) {
        copy_people(m, ping->participants, ping->n_participants);
        m->observers = ping->observers;
        copy_clocks(m, ping->clocks);
    }
    return m;
}

void agent__game_info(const Sungka__V1__GameSummary *g, agent_game_info *out)
{
    memset(out, 0, sizeof *out);
    agent__text(out->id, sizeof out->id, g->game_id);
    agent__text(out->kind, sizeof out->kind, g->kind);
    agent__text(out->title, sizeof out->title, g->title);
    size_t used = 0;
    for (size_t i = 0; i < g->n_options && used < sizeof out->options; i++) {
        char name[sizeof out->options];
        agent__text(name, sizeof name, g->options[i]->name);
        used += (size_t)snprintf(out->options + used, sizeof out->options - used, "%s%s=%d",
                                 i ? " " : "", name, g->options[i]->value);
    }
    out->status = g->status >= 1 && g->status <= 4 ? (agent_status)g->status : AGENT_GAME_WAITING;
    out->n_seats = g->n_seats < GAME_MAX_SEATS ? (int)g->n_seats : GAME_MAX_SEATS;
    for (int i = 0; i < out->n_seats; i++) {
        agent__text(out->seat_name[i], sizeof out->seat_name[i], g->seats[i]->name);
        out->seat_ready[i] = g->seats[i]->ready;
        out->seat_departed[i] = g->seats[i]->departed;
    }
    out->observers = g->observers;
    out->rated = g->rated;
}
