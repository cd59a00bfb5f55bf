/*
 * agent_model.c — the agent's picture of its game, updated from each message
 * on the view thread. Every move is replayed with our own rules engine and
 * compared with the board the service sent (seed 000: "error checking for
 * rogue servers").
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent_internal.h"

int64_t agent_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool agent_marks_guests(const agent_model *m)
{
    for (int i = 0; i < m->n_people; i++)
        if (m->people[i].seat >= 0 && !m->people[i].guest)
            return true;
    return false;
}

int64_t agent_clock_left(const agent_model *m, int seat)
{
    if (!m->have_clocks || seat < 0 || seat >= GAME_MAX_SEATS)
        return -1;
    int64_t left = m->clock_ms[seat];
    if (seat == m->clock_running)
        left -= agent_now_ms() - m->clock_at_ms;
    return left > 0 ? left : 0;
}

void agent_format_clock(int64_t ms, char *buf, size_t len)
{
    int64_t s = (ms + 999) / 1000;
    if (s >= 3600)
        snprintf(buf, len, "%d:%02d:%02d", (int)(s / 3600), (int)(s / 60 % 60), (int)(s % 60));
    else
        snprintf(buf, len, "%d:%02d", (int)(s / 60), (int)(s % 60));
}

static void set_clocks(agent_model *md, const agent_msg *m)
{
    if (!m->has_clocks)
        return;
    md->have_clocks = true;
    memcpy(md->clock_ms, m->clock_ms, sizeof md->clock_ms);
    md->clock_running = m->clock_running;
    md->clock_at_ms = agent_now_ms();
}

int agent_away_seconds(const agent_person *p)
{
    if (!p->departed || p->away_until_ms <= 0)
        return -1;
    int64_t left = p->away_until_ms - agent_now_ms();
    return left > 0 ? (int)((left + 999) / 1000) : 0;
}

/* The kind's notation is in its table (games.h); these only stand in for a
 * board the model does not have yet. */
void agent_format_move(const agent_model *m, int move, char *buf, size_t len)
{
    if (m->have_state)
        game_format_move(&m->state, move, buf, len);
    else
        snprintf(buf, len, "%d", move);
}

int agent_parse_move(const agent_model *m, const char *text, int *move)
{
    if (m->have_state)
        return game_parse_move(&m->state, text, move);
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < INT_MIN || v > INT_MAX)
        return -1;
    *move = (int)v;
    return 0;
}

const char *agent_seat_name(const agent_model *m, int seat, char *buf, size_t len)
{
    if (seat >= 0 && seat < GAME_MAX_SEATS && m->seat_name[seat][0])
        return m->seat_name[seat];
    snprintf(buf, len, "seat %d", seat);
    return buf;
}

/* Replace the people with a fresh list (a snapshot's or a ping's), keeping
 * the countdown of each one still away: a ping does not say for how long
 * their seat is kept (a departure event or a snapshot's seats do). */
static void set_people(agent_model *md, const agent_person *people, int n)
{
    agent_person old[AGENT_MAX_PEOPLE];
    int n_old = md->n_people;
    memcpy(old, md->people, (size_t)n_old * sizeof *old);
    md->n_people = n < AGENT_MAX_PEOPLE ? n : AGENT_MAX_PEOPLE;
    memcpy(md->people, people, (size_t)md->n_people * sizeof *people);
    for (int i = 0; i < md->n_people; i++) {
        agent_person *p = &md->people[i];
        p->away_until_ms = 0;
        for (int j = 0; p->departed && j < n_old; j++)
            if (old[j].departed && strcmp(old[j].name, p->name) == 0)
                p->away_until_ms = old[j].away_until_ms;
    }
}

/* How many watch: the service's count, but never fewer than it named (a
 * service from before the count sent none: 0). */
static void set_observers(agent_model *md, int counted)
{
    int listed = 0;
    for (int i = 0; i < md->n_people; i++)
        listed += md->people[i].seat < 0;
    md->n_observers = counted > listed ? counted : listed;
}

/* One more (+1) or fewer (-1) watching, from an event of a service that
 * still announces observers one by one, or a seat taken or given up. */
static void count_observer(agent_model *md, int delta)
{
    md->n_observers += delta;
    if (md->n_observers < 0)
        md->n_observers = 0;
}

static void remove_person(agent_model *md, const char *name)
{
    for (int i = 0; i < md->n_people; i++) {
        if (strcmp(md->people[i].name, name) == 0) {
            md->people[i] = md->people[--md->n_people];
            return;
        }
    }
}

static void load_board(agent_model *md, const agent_msg *m)
{
    if (!md->have_state || !m->cells)
        return;
    game_load(&md->state, m->cells, m->n_cells, m->to_move,
              m->to_move < 0 && md->status != AGENT_GAME_WAITING);
}

static void set_turn(agent_model *md, int seat)
{
    if (!md->have_state)
        return;
    int cells[GAME_MAX_CELLS];
    int n = game_cell_count(&md->state);
    for (int i = 0; i < n; i++)
        cells[i] = game_cell(&md->state, i);
    game_load(&md->state, cells, n, seat, false);
}

/* Replay the move with our own rules and compare with the service's board. */
static void check_move(agent_model *md, agent_msg *m)
{
    if (!md->have_state || !m->cells)
        return;
    game_state mine = md->state;
    char why[GAME_ERR_LEN];
    static _Thread_local game_result res;   /* large: off the stack, one per view thread */
    if (game_play(&mine, m->seat, m->move, &res, why, sizeof why) != GAME_OK) {
        m->mismatch = true;
        snprintf(m->text, sizeof m->text, "the service accepted a move our rules refuse: %s",
                 why);
    } else if (m->n_cells != game_cell_count(&mine)) {
        m->mismatch = true;
        snprintf(m->text, sizeof m->text, "the service sent %d cells, expected %d", m->n_cells,
                 game_cell_count(&mine));
    } else {
        for (int i = 0; i < m->n_cells; i++) {
            if (m->cells[i] != game_cell(&mine, i)) {
                m->mismatch = true;
                snprintf(m->text, sizeof m->text,
                         "the service's board differs from ours at cell %d (%d, expected %d)",
                         i, m->cells[i], game_cell(&mine, i));
                break;
            }
        }
    }
    if (m->mismatch)
        md->mismatches++;
    else
        m->captured = res.captured;
}

static agent_person *find_person(agent_model *md, const char *name)
{
    for (int i = 0; i < md->n_people; i++)
        if (strcmp(md->people[i].name, name) == 0)
            return &md->people[i];
    return NULL;
}

static void apply_snapshot(agent_model *md, const agent_msg *m)
{
    /* Who we are survives the reset: the snapshot only knows one seat. */
    char my_name[AGENT_NAME_BYTES];
    int hot_seat = md->hot_seat;
    agent_person people[AGENT_MAX_PEOPLE];     /* for the countdowns of the away */
    int n_people = md->n_people;
    snprintf(my_name, sizeof my_name, "%s", md->my_name);
    memcpy(people, md->people, (size_t)n_people * sizeof *people);
    memset(md, 0, sizeof *md);
    md->n_people = n_people;
    memcpy(md->people, people, (size_t)n_people * sizeof *people);
    snprintf(md->my_name, sizeof md->my_name, "%s", my_name);
    md->hot_seat = hot_seat;
    snprintf(md->game_id, sizeof md->game_id, "%s", m->game_id);
    snprintf(md->title, sizeof md->title, "%s", m->title);
    md->kind = game_kind_find(m->kind_name);
    md->opts = m->opts;
    md->my_seat = m->my_seat;
    md->status = m->status;
    md->time_control = m->time_control;
    md->rated = m->rated;
    md->rematch_accepted = 0;
    md->ratings_changed = false;
    md->clock_running = -1;
    md->draw_offer = -1;          /* an open offer is said again only by events */
    set_clocks(md, m);
    memcpy(md->seat_name, m->seat_name, sizeof md->seat_name);
    set_people(md, m->people, m->n_people);
    set_observers(md, m->observers);
    for (int i = 0; i < md->n_people; i++) {   /* the service's count is the fresh one */
        agent_person *p = &md->people[i];
        if (p->departed && p->seat >= 0 && p->seat < GAME_MAX_SEATS &&
            m->seat_grace_s[p->seat] > 0)
            p->away_until_ms = agent_now_ms() + (int64_t)m->seat_grace_s[p->seat] * 1000;
    }
    md->last_seq = m->seq;
    char err[GAME_ERR_LEN];
    md->have_state = md->kind &&
                     game_new(&md->state, md->kind, &md->opts, err, sizeof err) == GAME_OK;
    load_board(md, m);
    /* Seats out of the game: their turns are skipped in our replay too. */
    for (int i = 0; md->have_state && i < m->n_people; i++)
        if (m->people[i].out && !game_is_over(&md->state))
            game_retire(&md->state, m->people[i].seat, NULL);
}

void agent__model_apply(agent_model *md, agent_msg *m)
{
    switch (m->kind) {
    case AGENT_MSG_SNAPSHOT:
        apply_snapshot(md, m);
        return;
    case AGENT_MSG_JOINED:
        if (md->n_people < AGENT_MAX_PEOPLE) {
            agent_person *p = &md->people[md->n_people++];
            memset(p, 0, sizeof *p);
            snprintf(p->name, sizeof p->name, "%s", m->name);
            p->seat = m->seat;
            p->guest = m->guest;
            p->rating = m->rating;
            p->rtt_ms = -1;
        }
        if (m->seat < 0)
            count_observer(md, +1);
        if (m->seat >= 0 && m->seat < GAME_MAX_SEATS)
            snprintf(md->seat_name[m->seat], sizeof md->seat_name[m->seat], "%s", m->name);
        break;
    case AGENT_MSG_DEPARTED:
        if (m->grace_s == 0 && m->seat >= 0 && m->seat < GAME_MAX_SEATS &&
            md->status == AGENT_GAME_RUNNING)
            md->claimable |= 1u << m->seat;     /* past the grace: the others may claim */
        if (m->grace_s > 0) {      /* the seat is kept for a while */
            agent_person *p = find_person(md, m->name);
            if (p) {
                p->departed = true;
                p->away_until_ms = agent_now_ms() + (int64_t)m->grace_s * 1000;
            }
            break;
        }
        __attribute__((fallthrough));   /* no grace: gone for good, as LEFT */
    case AGENT_MSG_LEFT:
        remove_person(md, m->name);
        if (m->seat < 0)
            count_observer(md, -1);
        if (md->status == AGENT_GAME_WAITING && m->seat >= 0 && m->seat < GAME_MAX_SEATS)
            md->seat_name[m->seat][0] = '\0';
        break;
    case AGENT_MSG_RETURNED: {
        if (m->seat >= 0 && m->seat < GAME_MAX_SEATS)
            md->claimable &= ~(1u << m->seat);
        agent_person *p = find_person(md, m->name);
        if (p) {
            p->departed = false;
            p->away_until_ms = 0;
        }
        break;
    }
    case AGENT_MSG_READY: {
        agent_person *p = find_person(md, m->name);
        if (p)
            p->ready = m->ready;
        break;
    }
    case AGENT_MSG_SEAT: {
        agent_person *p = find_person(md, m->name);
        if (p) {
            p->seat = m->seat;
            p->ready = false;
        }
        if ((m->from_seat < 0) != (m->seat < 0))    /* sat down, or stood up to watch */
            count_observer(md, m->seat < 0 ? +1 : -1);
        if (m->from_seat >= 0 && m->from_seat < GAME_MAX_SEATS)
            md->seat_name[m->from_seat][0] = '\0';
        if (m->seat >= 0 && m->seat < GAME_MAX_SEATS)
            snprintf(md->seat_name[m->seat], sizeof md->seat_name[m->seat], "%s", m->name);
        if (strcmp(m->name, md->my_name) == 0)
            md->my_seat = m->seat;
        break;
    }
    case AGENT_MSG_STARTED:
        md->status = AGENT_GAME_RUNNING;
        load_board(md, m);
        set_clocks(md, m);
        break;
    case AGENT_MSG_TURN:
        set_turn(md, m->seat);
        break;
    case AGENT_MSG_DRAW_OFFERED:
        md->draw_offer = m->seat;
        break;
    case AGENT_MSG_DRAW_DECLINED:
        md->draw_offer = -1;
        break;
    case AGENT_MSG_REMATCH_OFFERED:
        md->rematch_accepted = m->accepted;
        break;
    case AGENT_MSG_REMATCH_DECLINED:
        md->rematch_accepted = 0;
        break;
    case AGENT_MSG_TAKEN_OVER:
        /* The player watches now; the bot holds the seat (the next ping
         * lists everyone as the service sees them). */
        if (m->seat < 0 || m->seat >= GAME_MAX_SEATS)
            break;
        md->claimable &= ~(1u << m->seat);
        snprintf(md->seat_name[m->seat], sizeof md->seat_name[m->seat], "%s", m->name);
        for (int i = 0; i < md->n_people; i++)
            if (md->people[i].seat == m->seat) {
                snprintf(md->people[i].name, sizeof md->people[i].name, "%s", m->name);
                md->people[i].departed = false;
                md->people[i].guest = true;
                md->people[i].rating.known = false;
                md->people[i].away_until_ms = 0;
            }
        break;
    case AGENT_MSG_OUT: {
        m->from_seat = md->have_state ? game_to_move(&md->state) : -1;   /* the turn before */
        set_clocks(md, m);
        if (m->seat >= 0 && m->seat < GAME_MAX_SEATS)
            md->claimable &= ~(1u << m->seat);
        md->draw_offer = -1;
        agent_person *who = find_person(md, m->name);
        if (who)
            who->out = true;
        if (md->have_state && !game_is_over(&md->state)) {
            game_retire(&md->state, m->seat, NULL);
            if (m->to_move >= 0)
                set_turn(md, m->to_move);   /* the service's word on whose turn */
        }
        break;
    }
    case AGENT_MSG_MOVED:
        md->draw_offer = -1;           /* a move lapses an open offer */
        check_move(md, m);
        load_board(md, m);
        set_clocks(md, m);
        break;
    case AGENT_MSG_GAME_OVER:
        md->status = m->abandoned ? AGENT_GAME_ABANDONED : AGENT_GAME_FINISHED;
        md->draw_offer = -1;
        md->claimable = 0;
        if (md->have_clocks) {         /* stopped where they stood */
            for (int s = 0; s < GAME_MAX_SEATS; s++)
                md->clock_ms[s] = agent_clock_left(md, s) > 0 ? agent_clock_left(md, s) : 0;
            md->clock_running = -1;
        }
        md->n_winners = m->n_winners;
        memcpy(md->winners, m->winners, sizeof md->winners);
        memcpy(md->scores, m->scores, sizeof md->scores);
        md->ratings_changed = m->ratings_changed;
        memcpy(md->rating_before, m->rating_before, sizeof md->rating_before);
        memcpy(md->rating_after, m->rating_after, sizeof md->rating_after);
        for (int i = 0; m->ratings_changed && i < md->n_people; i++) {
            int s = md->people[i].seat;
            if (s >= 0 && s < GAME_MAX_SEATS && m->rating_after[s].known)
                md->people[i].rating = m->rating_after[s];
        }
        snprintf(md->end_reason, sizeof md->end_reason, "%s", m->text);
        md->end_why = m->why;
        md->end_out_why = m->out_why;
        snprintf(md->end_who, sizeof md->end_who, "%s", m->name);
        snprintf(md->end_detail, sizeof md->end_detail, "%s", m->detail);
        break;
    case AGENT_MSG_PINGS:
        set_people(md, m->people, m->n_people);
        set_observers(md, m->observers);
        if (md->status == AGENT_GAME_RUNNING)
            set_clocks(md, m);
        break;
    default:
        break;
    }
    if (m->seq > md->last_seq)
        md->last_seq = m->seq;
}

void agent_format_rating(const agent_rating *r, char *buf, size_t len)
{
    if (!r || !r->known)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%d%s", r->value, r->provisional ? "?" : "");
}
