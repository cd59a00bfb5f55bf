/*
 * room.c — one game on the board service: its life from creation to the end,
 * its seats and observers, ready and the start, and chat. The log and its
 * streams are in room_log.c, moves in room_moves.c, departures and pings in
 * room_presence.c (room_internal.h is what they share).
 *
 * Every change goes through room__append_event(), which numbers the event,
 * keeps it packed in the log and sends it to every open stream; so a late or
 * returning subscriber replays exactly what the others saw, in the same order.
 *
 * The room knows neither gRPC nor protobuf: its events are plain room_event
 * values that wire.c packs, its streams and pending Move calls are handles it
 * passes to the service's room_io, and its refusals are room_rc codes. So
 * tests/board drives it with no server at all.
 * Runs on the event-loop thread only.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "room_internal.h"
#include "text.h"

room_rc room_create(board_service *svc, const room_settings *s, room **out, char *err,
                    size_t errlen)
{
    *out = NULL;
    room *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return ROOM_E_LIMIT;
    }
    char why[GAME_ERR_LEN];
    if (game_new(&r->state, s->kind, s->opts, why, sizeof why) != GAME_OK) {
        snprintf(err, errlen, "these options do not make a game: %s", why);
        free(r);
        return ROOM_E_INVALID;
    }
    r->svc = svc;
    snprintf(r->id, sizeof r->id, "%s", s->id);
    snprintf(r->title, sizeof r->title, "%s", s->title ? s->title : "");
    snprintf(r->creator, sizeof r->creator, "%s", s->creator ? s->creator : "");
    r->kind = s->kind;
    r->opts = *s->opts;
    r->status = ROOM_WAITING;
    r->draw_offer = -1;
    r->clock_running = -1;
    r->autostart = s->autostart;
    r->indexed = !s->recovered;
    r->created_ms = board_now_ms();
    r->bot_takes_over = s->takeover_level > 0;
    r->bot_level = s->takeover_level;
    if (s->rated_accounts)
        memcpy(r->rated_account, s->rated_accounts, sizeof r->rated_account);
    if (room__set_time_control(r, &s->tc, err, errlen) != 0 ||
        (s->rated && room__set_rated(r, err, errlen) != ROOM_OK)) {
        free(r);
        return ROOM_E_INVALID;
    }
    *out = r;
    return ROOM_OK;
}

/* ----------------------------------------------------------------- reading */

const char *room_id(const room *r) { return r->id; }
const char *room_title(const room *r) { return r->title; }
const game_kind *room_kind(const room *r) { return r->kind; }
const game_options *room_options(const room *r) { return &r->opts; }
const game_state *room_state(const room *r) { return &r->state; }
room_status room_status_of(const room *r) { return r->status; }
const time_control *room_time_control(const room *r) { return &r->tc; }
bool room_is_rated(const room *r) { return r->rated; }
bool room_autostart(const room *r) { return r->autostart; }
int room_takeover_level(const room *r) { return r->bot_takes_over ? r->bot_level : 0; }
const char *room_creator(const room *r) { return r->creator; }
int64_t room_created_ms(const room *r) { return r->created_ms; }
const char *room_rematch_id(const room *r) { return r->rematch_id; }
uint64_t room_last_seq(const room *r) { return r->log_len; }
bool room_is_lost(const room *r) { return r->lost; }
bool room_is_diverged(const room *r) { return r->diverged; }
int64_t room_reload_after(const room *r) { return r->reload_after_ms; }
void room_reload_later(room *r, int64_t at_ms) { r->reload_after_ms = at_ms; }
bool room_is_indexed(const room *r) { return r->indexed; }
bool room_is_damaged(const room *r) { return r->damaged; }
void room_mark_damaged(room *r) { r->damaged = true; }

bool room_is_open(const room *r)
{
    return r->status == ROOM_WAITING || r->status == ROOM_RUNNING;
}

participant *const *room_people(const room *r, int *n, int *n_seated)
{
    if (n)
        *n = r->n_people;
    if (n_seated)
        *n_seated = r->n_seated;
    return r->people;
}

int room_watchers(const room *r)
{
    return r->n_people - r->n_seated - r->n_away;
}

const participant *room_seat_holder(const room *r, int seat)
{
    return seat >= 0 && seat < GAME_MAX_SEATS ? r->seat_holder[seat] : NULL;
}

const char *room_seat_name(const room *r, int seat)
{
    return seat >= 0 && seat < GAME_MAX_SEATS ? r->seat_name[seat] : "";
}

const logged_event *room_logged(const room *r, uint64_t seq)
{
    return seq >= 1 && seq <= r->log_len ? &r->log[seq - 1] : NULL;
}

void room_lose(room *r, room_lost why)
{
    if (r->lost && (why != ROOM_LOST_BEHIND || r->lost_why == ROOM_LOST_BEHIND))
        return;
    if (!r->lost)
        r->svc->n_lost++;
    r->lost = true;
    r->lost_why = why;   /* behind outweighs adopted: the game is stopped, not passed on */
}

bool room_is_behind(const room *r)
{
    return r->lost && r->lost_why == ROOM_LOST_BEHIND;
}

const char *room_lost_why(const room *r)
{
    switch (r->lost_why) {
    case ROOM_LOST_ADOPTED:
        return "another node has it now";
    case ROOM_LOST_BEHIND:
        return "its stored log has lost events it sent (the database went back in time: a "
               "standby promoted behind?); it is stopped for good, recorded as abandoned, "
               "rather than numbered on from the hole";
    }
    return "lost";
}

/* Out of the service's token and name indexes (a room being reloaded has
 * not entered them: its people's tokens are still the old room's). */
static void unindex(room *r, participant *p)
{
    if (!r->indexed)
        return;
    person_index_remove(&r->svc->tokens, p);
    person_index_remove(&r->svc->names, p);
    person_index_remove(&r->svc->looks[0], p);
    person_index_remove(&r->svc->looks[1], p);
}

/* Every index, or none. */
static int index_person(room *r, participant *p)
{
    if (!r->indexed)
        return 0;
    person_index *ix[] = {&r->svc->tokens, &r->svc->names, &r->svc->looks[0],
                          &r->svc->looks[1]};
    for (size_t i = 0; i < sizeof ix / sizeof ix[0]; i++) {
        if (person_index_add(ix[i], p) != 0) {
            while (i-- > 0)
                person_index_remove(ix[i], p);
            return -1;
        }
    }
    return 0;
}

int room_index_people(room *r)
{
    assert(!r->indexed);
    r->indexed = true;
    for (int i = 0; i < r->n_people; i++) {
        if (index_person(r, r->people[i]) != 0) {
            while (--i >= 0)
                unindex(r, r->people[i]);
            r->indexed = false;
            return -1;
        }
    }
    return 0;
}

/* Free the room's memory only: what is stored stays (a restart recovers it). */
void room_free(room *r)
{
    for (int i = 0; i < r->n_people; i++) {
        room__detach_stream(r->people[i], ROOM_E_CLOSING, "the game is closing");
        room__release_watch(r->people[i]);
        unindex(r, r->people[i]);
        board_person_free(r->people[i]);
    }
    free(r->people);
    for (size_t i = 0; i < r->log_len; i++)
        free(r->log[i].data);
    free(r->log);
    free(r->played);
    r->svc->released += r->n_people + 1;
    free(r);
}

static void swap_people(room *r, int i, int j)
{
    participant *t = r->people[i];
    r->people[i] = r->people[j];
    r->people[j] = t;
    r->people[i]->at = i;
    r->people[j]->at = j;
}

int room_add_person(room *r, participant *p)
{
    if (r->n_people == r->people_cap) {
        int cap = r->people_cap ? r->people_cap * 2 : 8;
        participant **grown = realloc(r->people, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        r->people = grown;
        r->people_cap = cap;
    }
    person_name_looks(p->name, r->svc->names.key, p->looks);
    if (index_person(r, p) != 0)
        return -1;
    p->at = r->n_people;
    r->people[r->n_people++] = p;
    if (p->seat >= 0)
        swap_people(r, p->at, r->n_seated++);
    return 0;
}

void room__drop_person(room *r, participant *p)
{
    room__back(r, p);
    unindex(r, p);
    if (p->seat >= 0)
        swap_people(r, p->at, --r->n_seated);
    swap_people(r, p->at, r->n_people - 1);
    r->n_people--;
}

void room__back(room *r, participant *p)
{
    if (!p->away)
        return;
    p->away = false;
    p->departed = false;
    p->depart_deadline_ms = 0;
    r->n_away--;
    assert(r->n_away >= 0);
}

void room__set_seat(room *r, participant *p, int seat)
{
    room__back(r, p);
    if (p->seat < 0 && seat >= 0)
        swap_people(r, p->at, r->n_seated++);
    else if (p->seat >= 0 && seat < 0)
        swap_people(r, p->at, --r->n_seated);
    p->seat = seat;
}

int room_seats_taken(const room *r)
{
    int n = 0;
    for (int i = 0; i < game_seats(&r->state); i++)
        n += r->seat_name[i][0] != '\0';
    return n;
}

participant *room_find_name(const room *r, const char *name)
{
    if (!r->indexed) {         /* a room being reloaded: few people, no crowd */
        for (int i = 0; i < r->n_people; i++)
            if (strcmp(r->people[i]->name, name) == 0)
                return r->people[i];
        return NULL;
    }
    return person_index_find_name(&r->svc->names, r, name);
}

/* Someone in r whose name could pass for `name` (accounts.h: a skeleton or
 * look of one is a skeleton or look of the other), or NULL. */
static participant *find_look_alike(const room *r, const char *name)
{
    uint64_t looks[2];
    person_name_looks(name, r->svc->names.key, looks);
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            participant *p = NULL;
            if (r->indexed) {
                p = person_index_find_look(&r->svc->looks[i], r, looks[j]);
            } else {               /* a room being reloaded: few people, no crowd */
                for (int k = 0; k < r->n_people && !p; k++)
                    if (r->people[k]->looks[i] == looks[j])
                        p = r->people[k];
            }
            if (p)
                return p;
        }
    }
    return NULL;
}

bool room_name_free(const room *r, const char *name, int64_t account_id)
{
    /* A guest's name is held to the same look-alike rule as accounts', in
     * its game ("aIice" beside "alice", "ALICE" beside "alice"). An
     * account's name was held to it against every account already. */
    return !room_find_name(r, name) && (account_id != 0 || !find_look_alike(r, name));
}

/* "alice" for a seat, or "seat 2" while it is open. */
const char *room__seat_label(const room *r, int seat, char *buf, size_t len)
{
    if (seat >= 0 && seat < GAME_MAX_SEATS && r->seat_name[seat][0])
        return r->seat_name[seat];
    snprintf(buf, len, "seat %d", seat);
    return buf;
}

/* The game ended: by the rules (abandoned = false) or because a player left. */
static void end_with(room *r, bool abandoned, const room_end *end, const char *reason,
                     int n_winners, const int *winners);

void room__end_game(room *r, bool abandoned, const room_end *end, const char *reason)
{
    int winners[GAME_MAX_SEATS];
    int n_winners = abandoned ? 0 : game_winners(&r->state, winners);
    end_with(r, abandoned, end, reason, n_winners, winners);
}

void room__end_drawn(room *r, const char *reason)
{
    end_with(r, false, &(room_end){.why = ROOM_END_DRAW_AGREED}, reason, 0, NULL);
}

static void end_with(room *r, bool abandoned, const room_end *end, const char *reason,
                     int n_winners, const int *winners)
{
    int scores[GAME_MAX_SEATS];
    game_scores(&r->state, scores);
    room_rating_change ratings[GAME_MAX_SEATS];
    room_unrated why;
    int n_rated = room__rate(r, abandoned, n_winners, winners, ratings, &why);
    room_event ev = {.kind = ROOM_EV_OVER, .state = &r->state, .text = reason,
                     .abandoned = abandoned, .n_winners = n_winners, .winners = winners,
                     .ratings = n_rated ? ratings : NULL,
                     .unrated = why.text[0] ? why.text : NULL,
                     .why = (int)end->why, .out_why = (int)end->out_why, .by = end->by,
                     .detail = end->detail};
    if (room__emit(r, &ev) != ROOM_OK)
        return;
    board_log(r->svc, "game %s over: %s", r->id, reason);
    if (r->svc->store) {
        /* The result and everyone's statistics, in one transaction. */
        const char *names[GAME_MAX_SEATS];
        int64_t accounts[GAME_MAX_SEATS];
        for (int i = 0; i < game_seats(&r->state); i++) {
            names[i] = r->seat_name[i];
            /* a finished game's players all still hold their seats */
            accounts[i] = r->seat_holder[i] ? r->seat_holder[i]->account_id : 0;
        }
        store *db = r->svc->store;
        int res = store_group_begin(db);
        if (res == 0)
            res = store_game_finish(db, r->id, r->status, reason, game_seats(&r->state), names,
                                    accounts, scores, winners, n_winners, board_wall_ms());
        if (res == 0)
            res = room__store_ratings(r, ratings, n_rated, &why);
        /* Its moves for history, as its events applied them (the log just
         * stored; match_moves.c reads them back from it after a failure to
         * keep them). */
        char err[256] = "";
        if (res == 0)
            res = r->played_lost ? board_match_moves_fill(db, r->id, err, sizeof err)
                                 : store_moves_fill(db, r->id, r->played, r->n_moves);
        if (store_group_end(db, res) != 0) {
            board_log_at(r->svc, LOG_ERR, "game %s: cannot store the result: %s", r->id,
                         err[0] ? err : store_last_error(r->svc->store));
            room__write_failed(r);
        } else if (!r->played_lost) {
            /* The engine's review, off the loop (analysis.c); a game whose
             * moves memory lost is found at the next start instead. */
            board_analysis_game_ended(r->svc, r->id, r->state.kind, &r->state.opts, r->played,
                                      r->n_moves);
        }
    }
}

int room_halt(room *r)
{
    assert(room_is_behind(r));
    store *db = r->svc->store;
    if (!db)
        return 0;
    const char *names[GAME_MAX_SEATS];
    int scores[GAME_MAX_SEATS];
    game_scores(&r->state, scores);
    for (int i = 0; i < game_seats(&r->state); i++)
        names[i] = r->seat_name[i];
    int res = store_group_begin(db);
    /* An ended game has its result already: only its people go. */
    if (res == 0 && r->status < ROOM_FINISHED)
        res = store_game_finish(db, r->id, ROOM_ABANDONED, room_lost_why(r),
                                game_seats(&r->state), names, NULL, scores, NULL, 0,
                                board_wall_ms());
    /* its moves: the ones the database kept (the log it has, not memory's) */
    char err[256] = "";
    if (res == 0 && r->status < ROOM_FINISHED)
        res = board_match_moves_fill(db, r->id, err, sizeof err);
    if (res == 0)
        res = store_game_forget(db, r->id);
    if (store_group_end(db, res) != 0) {
        board_log_at(r->svc, LOG_ERR, "game %s: cannot record it as stopped: %s", r->id,
                     err[0] ? err : store_last_error(db));
        return -1;
    }
    return 0;
}

void room__result_sentence(const room *r, char *buf, size_t len)
{
    int winners[GAME_MAX_SEATS];
    int n = game_winners(&r->state, winners);
    /* "alice wins", "alice and bob share the win", "a, b and c share..." */
    char label[32];
    size_t used = 0;
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i == 0 ? "" : i == n - 1 ? " and " : ", ",
                                 room__seat_label(r, winners[i], label, sizeof label));
    if (n == 0)
        snprintf(buf, len, "the game ended in a draw");
    else if (used < len)
        snprintf(buf + used, len - used, n == 1 ? " wins" : " share the win");
}

static void start_game(room *r);

/* Start when every seat is taken by a present player and each said ready
 * (or at once, for a game created with autostart). */
void room__maybe_start(room *r)
{
    if (r->status != ROOM_WAITING)
        return;
    for (int s = 0; s < game_seats(&r->state); s++) {
        const participant *p = r->seat_holder[s];
        if (!p || p->departed || !(p->ready || r->autostart))
            return;
    }
    start_game(r);
}

static void start_game(room *r)
{
    int64_t now = board_now_ms();
    room_unrated why;
    room__rated_start(r, &why);
    room_clocks clocks;
    room_event ev = {.kind = ROOM_EV_STARTED, .state = &r->state,
                     .clocks = room__clocks_after(r, -1, &r->state, now, &clocks),
                     .unrated = why.text[0] ? why.text : NULL};
    if (room__emit(r, &ev) != ROOM_OK)
        return;
    board_log(r->svc, "game %s started", r->id);
    if (room__store(r) &&
        store_game_status(r->svc->store, r->id, ROOM_RUNNING, board_shared_now_ms(r->svc)) != 0) {
        board_log_at(r->svc, LOG_ERR, "game %s: cannot store its start: %s", r->id,
                     store_last_error(r->svc->store));
        room__write_failed(r);
    }
}

/* -------------------------------------------------------------------- join */

static void make_token(char out[BOARD_TOKEN_HEX + 1])
{
    uint8_t raw[BOARD_TOKEN_HEX / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n > 0)
            got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

participant *room_find_account(const room *r, int64_t account_id)
{
    if (account_id <= 0)
        return NULL;
    for (int i = 0; i < r->n_people; i++)
        if (r->people[i]->account_id == account_id)
            return r->people[i];
    return NULL;
}

/* A new token for p, in the token index in place of the old one. The index
 * has as many entries as before, so it does not grow: this cannot fail. */
static void replace_token(room *r, participant *p)
{
    if (r->indexed)
        person_index_remove(&r->svc->tokens, p);
    make_token(p->token);
    if (r->indexed && person_index_add(&r->svc->tokens, p) != 0)
        board_log_at(r->svc, LOG_ERR, "game %s: cannot index the new token of %s", r->id, p->name);
}

room_rc room_revoke_account_tokens(room *r, int64_t account_id, const char *why, int *revoked)
{
    *revoked = 0;
    if (account_id <= 0 || r->diverged)
        return ROOM_OK;
    /* From the end: a departure may remove p (a game over keeps no one),
     * which moves only people already seen into its place. */
    for (int i = r->n_people - 1; i >= 0; i--) {
        participant *p = r->people[i];
        if (p->account_id != account_id || p->bot_level > 0)
            continue;
        if (*revoked == 0)
            room__change_begin(r);
        (*revoked)++;
        replace_token(r, p);
        room__store_person(r, p);
        if (p->stream) {
            room__detach_stream(p, ROOM_E_REVOKED, why);
            room_depart(r, p, ROOM_DEPART_TOKEN_REVOKED, "its seat token was revoked");
        }
    }
    if (*revoked == 0)
        return ROOM_OK;
    board_log(r->svc, "game %s: %d seat tokens of account %lld revoked", r->id, *revoked,
              (long long)account_id);
    char err[160];
    return room__change_end(r, err, sizeof err);
}

room_rc room_join(room *r, const char *name, bool observe, board_client *from,
                  participant **out, char *err, size_t errlen)
{
    return room_join_as(r, name, 0, observe, from, NULL, out, err, errlen);
}

room_rc room_join_as(room *r, const char *name, int64_t account_id, bool observe,
                     board_client *from, const char *host, participant **out, char *err,
                     size_t errlen)
{
    *out = NULL;
    if (room_find_name(r, name)) {
        snprintf(err, errlen, "the name '%s' is taken in game %s", name, r->id);
        return ROOM_E_TAKEN;
    }
    participant *like = account_id == 0 ? find_look_alike(r, name) : NULL;
    if (like) {
        snprintf(err, errlen, "the name '%s' looks like '%s', who is in game %s already: "
                              "choose another", name, like->name, r->id);
        return ROOM_E_TAKEN;
    }
    if (r->n_people >= r->svc->cfg.max_participants) {
        snprintf(err, errlen, "game %s has no room for more participants (at most %d)", r->id,
                 r->svc->cfg.max_participants);
        return ROOM_E_FULL;
    }
    int seat = -1;
    if (!observe) {
        if (r->status != ROOM_WAITING) {
            snprintf(err, errlen, "game %s has already %s; join it as an observer", r->id,
                     r->status == ROOM_RUNNING ? "started" : "ended");
            return ROOM_E_STATE;
        }
        for (int i = 0; i < game_seats(&r->state) && seat < 0; i++)
            if (!r->seat_name[i][0])
                seat = i;
        if (seat < 0) {
            snprintf(err, errlen, "game %s is full", r->id);
            return ROOM_E_FULL;
        }
        room_rc rated = room__may_play_rated(r, account_id, err, errlen);
        if (rated != ROOM_OK)
            return rated;
    }
    participant *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return ROOM_E_LIMIT;
    }
    room__change_begin(r);
    p->room = r;
    p->id = ++r->next_person_id;
    snprintf(p->name, sizeof p->name, "%s", name);
    make_token(p->token);
    p->seat = seat;
    if (room_add_person(r, p) != 0) {
        board_person_free(p);
        room__change_end(r, NULL, 0);
        snprintf(err, errlen, "out of memory");
        return ROOM_E_LIMIT;
    }
    p->account_id = account_id;
    snprintf(p->host, sizeof p->host, "%s", host ? host : from ? from->host : "");
    room_load_rating(r, p);
    p->rtt_ms = -1;
    p->last_seen_ms = board_now_ms();
    if (seat >= 0) {
        r->seat_holder[seat] = p;
        snprintf(r->seat_name[seat], sizeof r->seat_name[seat], "%s", name);
    } else if (from) {
        p->watch_from = from;
        from->observers++;
    }

    room__store_person(r, p);
    /* Players' arrivals are events; observers' are not (pings count them):
     * a crowd must not make each arrival cost every watcher a message, nor
     * grow the log with comings and goings. */
    if (seat >= 0)
        room__announce_who(r, p, ROOM_EV_JOINED);
    board_log_person(r->svc, LOG_INFO, p, "game %s: %s joined as %s", r->id, name,
                     seat >= 0 ? "a player" : "an observer");
    room__maybe_start(r);
    room_rc rc = room__change_end(r, err, errlen);
    if (rc == ROOM_OK)
        *out = p;
    return rc;
}

/* ----------------------------------------------------------- ready, seats */

static room_rc only_before_start(const room *r, char *err, size_t errlen)
{
    if (r->status == ROOM_WAITING)
        return ROOM_OK;
    snprintf(err, errlen, "the game has %s", r->status == ROOM_RUNNING ? "started" : "ended");
    return ROOM_E_STATE;
}

room_rc room_ready(room *r, participant *p, bool ready, char *err, size_t errlen)
{
    if (p->seat < 0) {
        snprintf(err, errlen, "observers have nothing to be ready for; sit down first");
        return ROOM_E_OBSERVER;
    }
    if (only_before_start(r, err, errlen) != ROOM_OK)
        return ROOM_E_STATE;
    if (p->ready == ready)
        return ROOM_OK;
    room__change_begin(r);
    p->ready = ready;
    room__store_person(r, p);
    room__announce_who(r, p, ROOM_EV_READY);
    room__maybe_start(r);
    return room__change_end(r, err, errlen);
}

bool room_has_open_seat(const room *r)
{
    return r->status == ROOM_WAITING && room_seats_taken(r) < game_seats(&r->state);
}

static void announce_seat(room *r, participant *p, int from_seat)
{
    room_event ev = {.kind = ROOM_EV_SEAT, .who = p, .from_seat = from_seat};
    room__append_event(r, &ev);
}

room_rc room_sit(room *r, participant *p, int seat, char *err, size_t errlen)
{
    int seats = game_seats(&r->state);
    if (p->seat >= 0) {
        snprintf(err, errlen, "you already have seat %d; stand up first", p->seat);
        return ROOM_E_STATE;
    }
    if (only_before_start(r, err, errlen) != ROOM_OK)
        return ROOM_E_STATE;
    if (seat < -1 || seat >= seats) {
        snprintf(err, errlen, "seat %d is out of range 0..%d", seat, seats - 1);
        return ROOM_E_INVALID;
    }
    for (int s = 0; s < seats && seat < 0; s++)
        if (!r->seat_name[s][0])
            seat = s;
    if (seat < 0) {
        snprintf(err, errlen, "every seat is taken");
        return ROOM_E_FULL;
    }
    if (r->seat_name[seat][0]) {
        snprintf(err, errlen, "seat %d is taken by %s", seat, r->seat_name[seat]);
        return ROOM_E_STATE;
    }
    room_rc rated = room__may_play_rated(r, p->account_id, err, errlen);
    if (rated != ROOM_OK)
        return rated;
    room__change_begin(r);
    room__set_seat(r, p, seat);
    p->ready = false;
    room__release_watch(p);
    r->seat_holder[seat] = p;
    snprintf(r->seat_name[seat], sizeof r->seat_name[seat], "%s", p->name);
    room__store_person(r, p);
    announce_seat(r, p, -1);
    room__maybe_start(r);
    return room__change_end(r, err, errlen);
}

room_rc room_stand(room *r, participant *p, char *err, size_t errlen)
{
    if (p->seat < 0) {
        snprintf(err, errlen, "you are not sitting");
        return ROOM_E_STATE;
    }
    if (only_before_start(r, err, errlen) != ROOM_OK)
        return ROOM_E_STATE;
    room__change_begin(r);
    int from = p->seat;
    r->seat_holder[from] = NULL;
    r->seat_name[from][0] = '\0';
    room__set_seat(r, p, -1);
    p->ready = false;
    room__store_person(r, p);
    announce_seat(r, p, from);
    return room__change_end(r, err, errlen);
}

/* -------------------------------------------------------------------- chat */

room_rc room_chat(room *r, participant *p, board_client *from, const char *text,
                  const char *to, char *err, size_t errlen)
{
    participant *target = NULL;
    if (to && *to) {
        target = room_find_name(r, to);
        if (!target) {
            char echo[48];
            snprintf(err, errlen, "nobody called '%s' is in this game",
                     board_echo(to, echo, sizeof echo));
            return ROOM_E_NOT_FOUND;
        }
        if (target == p) {
            snprintf(err, errlen, "a private message needs someone else to read it");
            return ROOM_E_INVALID;
        }
        /* Blocked by the addressee: refused in words that do not say so
         * (docs/rules.md, "Blocking and reporting"). */
        if (board_blocks(target, p->account_id)) {
            char echo[48];
            snprintf(err, errlen, "%s is not taking private messages from you",
                     board_echo(target->name, echo, sizeof echo));
            return ROOM_E_DENIED;
        }
    }
    /* Spectators talk among themselves while the game runs, so that no one
     * watching can coach a player (docs/rules.md, "Chat"). */
    bool spectators = p->seat < 0 && r->status == ROOM_RUNNING;
    if (spectators && target && target->seat >= 0) {
        snprintf(err, errlen, "players cannot read spectators while the game runs");
        return ROOM_E_DENIED;
    }
    size_t len = strlen(text);
    const board_config *cfg = &r->svc->cfg;
    if (len == 0 || len > (size_t)cfg->chat_length) {
        snprintf(err, errlen, "a chat message must be 1..%d bytes, not %zu", cfg->chat_length,
                 len);
        return ROOM_E_INVALID;
    }
    char why[64];
    if (text_check(text, why, sizeof why) != 0) {
        snprintf(err, errlen, "the message %s", why);
        return ROOM_E_INVALID;
    }
    int64_t now = board_now_ms();
    if (now - p->chat_window_start_ms >= BOARD_CHAT_WINDOW_MS) {
        p->chat_window_start_ms = now;
        p->chat_in_window = 0;
    }
    if (p->chat_in_window >= cfg->chat_rate) {
        snprintf(err, errlen, "too many messages: at most %d every %d seconds",
                 cfg->chat_rate, BOARD_CHAT_WINDOW_MS / 1000);
        board_log_limit(r->svc, p->host, err);
        return ROOM_E_LIMIT;
    }
    if (board_client_may_chat(r->svc, from, err, errlen) != 0)
        return ROOM_E_LIMIT;
    p->chat_in_window++;
    room_event ev = {.kind = ROOM_EV_CHAT, .who = p, .to = target, .text = text,
                     .spectators = spectators && !target};
    room__change_begin_events_only(r);
    if (ev.spectators)
        room__emit_for(r, &ev, BOARD_FOR_OBSERVERS, 0);
    else
        room__emit_for(r, &ev, target ? p->id : 0, target ? target->id : 0);
    return room__change_end(r, err, errlen);
}

void room_announce_restart(room *r)
{
    char text[128];
    snprintf(text, sizeof text,
             "the board service restarted; everyone has %d s to come back",
             r->svc->cfg.grace_ms / 1000);
    room_event ev = {.kind = ROOM_EV_NOTICE, .text = text};
    room__change_begin_events_only(r);
    room__emit(r, &ev);
    room__change_end(r, NULL, 0);
}
