/*
 * room.c — one game on the board service: its seats and observers, its rules
 * state, its ordered event log, and the subscribers its events stream to.
 *
 * Every change goes through append_event(), which numbers the event, keeps it
 * packed in the log and sends it to every open stream; so a late or returning
 * subscriber replays exactly what the others saw, in the same order.
 * Runs on the event-loop thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "board_internal.h"
#include "text.h"

static void stream_done(rpc_call *call, bool client_gone, void *user);

room *room_create(board_service *svc, const char *id, const game_kind *kind,
                  const game_options *opts, const char *title, bool autostart)
{
    room *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    char err[GAME_ERR_LEN];
    if (game_new(&r->state, kind, opts, err, sizeof err) != GAME_OK) {
        free(r);
        return NULL;
    }
    r->svc = svc;
    snprintf(r->id, sizeof r->id, "%s", id);
    snprintf(r->title, sizeof r->title, "%s", title);
    r->kind = kind;
    r->opts = *opts;
    r->status = ROOM_WAITING;
    r->autostart = autostart;
    return r;
}

/* The participant's stream is gone: its address may open another. */
static void forget_stream(participant *p)
{
    p->stream = NULL;
    if (p->stream_from)
        p->stream_from->streams--;
    p->stream_from = NULL;
}

/* An observer's seat no longer counts against the address that took it. */
static void release_watch(participant *p)
{
    if (p->watch_from)
        p->watch_from->observers--;
    p->watch_from = NULL;
}

/* Stop listening to a stream's end: the participant is going away first. */
static void detach_stream(participant *p, rpc_code code, const char *why)
{
    if (!p->stream)
        return;
    rpc_call_on_done(p->stream, NULL, NULL);
    rpc_call_finish(p->stream, code, why);
    forget_stream(p);
}

/* Take a participant out of the room (and of the store: it is gone for good). */
static void remove_participant(room *r, participant *p)
{
    if (r->svc->store && store_participant_remove(r->svc->store, r->id, p->id) != 0)
        board_log(r->svc, "game %s: cannot forget %s: %s", r->id, p->name,
                  store_last_error(r->svc->store));
    detach_stream(p, RPC_OK, "you left the game");
    release_watch(p);
    token_index_remove(&r->svc->tokens, p);
    if (p->seat >= 0 && r->seat_holder[p->seat] == p)
        r->seat_holder[p->seat] = NULL;
    for (int i = 0; i < r->n_people; i++) {
        if (r->people[i] == p) {
            r->people[i] = r->people[--r->n_people];
            break;
        }
    }
    free(p);
    r->svc->released++;
}

/* Free the room's memory only: what is stored stays (a restart recovers it). */
void room_free(room *r)
{
    for (int i = 0; i < r->n_people; i++) {
        detach_stream(r->people[i], RPC_UNAVAILABLE, "the game is closing");
        release_watch(r->people[i]);
        token_index_remove(&r->svc->tokens, r->people[i]);
        free(r->people[i]);
    }
    free(r->people);
    for (size_t i = 0; i < r->log_len; i++)
        free(r->log[i].data);
    free(r->log);
    r->svc->released += r->n_people + 1;
    free(r);
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
    r->people[r->n_people++] = p;
    return 0;
}

/* Who a snapshot or a ping names: every seated player, then the first
 * observers, BOARD_LISTED_PEOPLE at most, so neither grows with a crowd (the
 * game's summary counts the observers). Returns how many, filled into
 * who/whop. */
static int list_people(const room *r, Sungka__V1__Participant *who,
                       Sungka__V1__Participant **whop)
{
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < r->n_people && n < BOARD_LISTED_PEOPLE; i++) {
            const participant *p = r->people[i];
            if ((pass == 0) != (p->seat >= 0))
                continue;
            wire_participant(p, &who[n]);
            whop[n] = &who[n];
            n++;
        }
    }
    return n;
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
    for (int i = 0; i < r->n_people; i++)
        if (strcmp(r->people[i]->name, name) == 0)
            return r->people[i];
    return NULL;
}

/* "alice" for a seat, or "seat 2" while it is open. */
static const char *seat_label(const room *r, int seat, char *buf, size_t len)
{
    if (seat >= 0 && seat < GAME_MAX_SEATS && r->seat_name[seat][0])
        return r->seat_name[seat];
    snprintf(buf, len, "seat %d", seat);
    return buf;
}

/* ------------------------------------------------------------------ events */

/* rc of a send: -2 means the subscriber is too slow to drain its outbox:
 * cut it off; it can resubscribe from the last sequence number it saw. */
static void check_sent(participant *p, int rc, uint64_t seq)
{
    if (rc != -2)
        return;
    char why[96];
    snprintf(why, sizeof why, "too far behind; resubscribe after seq %llu",
             (unsigned long long)(seq ? seq - 1 : 0));
    board_log(p->room->svc, "game %s: cutting off slow subscriber %s", p->room->id, p->name);
    detach_stream(p, RPC_RESOURCE_EXHAUSTED, why);
}

static bool may_see(const participant *p, const logged_event *le)
{
    return !le->only_for[0] || p->id == le->only_for[0] || p->id == le->only_for[1];
}

static void send_logged(participant *p, const logged_event *le)
{
    if (p->stream && may_see(p, le))
        check_sent(p, rpc_call_send_packed(p->stream, le->data, le->len), le->seq);
}

/* Send log entries from..log_len-1 to everyone allowed to see them, `first`
 * (the mover, or NULL) before the others: the one who acted hears soonest. A
 * participant may be cut off (its stream detached) while we loop; it stays
 * in the list, so plain indexing is safe. */
static void broadcast(room *r, size_t from, participant *first)
{
    for (size_t e = from; e < r->log_len; e++) {
        const logged_event *le = &r->log[e];
        if (first)
            send_logged(first, le);
        for (int i = 0; i < r->n_people; i++)
            if (r->people[i] != first)
                send_logged(r->people[i], le);
    }
}

/* Number, log, store and broadcast one event; a private one (a, b
 * participant ids, non-zero) only to those two, now and on every replay.
 * While a move is being made durable (r->holding) nothing is sent yet. */
static void append_event_for(room *r, Sungka__V1__Event *ev, unsigned a, unsigned b)
{
    if (r->log_len == r->log_cap) {
        size_t cap = r->log_cap ? r->log_cap * 2 : 64;
        logged_event *grown = realloc(r->log, cap * sizeof *grown);
        if (!grown) {
            board_log(r->svc, "game %s: out of memory for the event log", r->id);
            r->store_failed = true;
            return;
        }
        r->log = grown;
        r->log_cap = cap;
    }
    ev->seq = r->log_len + 1;
    ev->time_ms = board_wall_ms();
    logged_event *le = &r->log[r->log_len];
    le->seq = ev->seq;
    le->only_for[0] = a;
    le->only_for[1] = b;
    le->len = protobuf_c_message_get_packed_size(&ev->base);
    le->data = malloc(le->len ? le->len : 1);
    if (!le->data) {
        board_log(r->svc, "game %s: out of memory for the event log", r->id);
        r->store_failed = true;
        return;
    }
    protobuf_c_message_pack(&ev->base, le->data);
    if (r->svc->store && store_event_append(r->svc->store, r->id, le->seq, ev->time_ms, a, b,
                                            le->data, le->len) != 0) {
        board_log(r->svc, "game %s: cannot store event %llu: %s", r->id,
                  (unsigned long long)le->seq, store_last_error(r->svc->store));
        r->store_failed = true;
    }
    r->log_len++;
    if (!r->holding)
        broadcast(r, r->log_len - 1, NULL);
}

/* Record a participant as it now is (for recovery after a crash). */
static void store_person(room *r, const participant *p)
{
    if (r->svc->store &&
        store_participant_put(r->svc->store, r->id, p->id, p->name, p->seat, p->token,
                              p->ready) != 0)
        board_log(r->svc, "game %s: cannot store %s: %s", r->id, p->name,
                  store_last_error(r->svc->store));
}

static void append_event(room *r, Sungka__V1__Event *ev)
{
    append_event_for(r, ev, 0, 0);
}

/* Announce one participant's change (joined, left, ready, returned...). */
static void announce_who(room *r, const participant *p, Sungka__V1__Event__BodyCase body)
{
    Sungka__V1__Participant who;
    wire_participant(p, &who);
    Sungka__V1__PlayerJoined joined = SUNGKA__V1__PLAYER_JOINED__INIT;
    Sungka__V1__PlayerLeft left = SUNGKA__V1__PLAYER_LEFT__INIT;
    Sungka__V1__PlayerReturned returned = SUNGKA__V1__PLAYER_RETURNED__INIT;
    Sungka__V1__ReadyChanged ready = SUNGKA__V1__READY_CHANGED__INIT;
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = body;
    switch (body) {
    case SUNGKA__V1__EVENT__BODY_PLAYER_JOINED:
        joined.who = &who;
        ev.player_joined = &joined;
        break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_LEFT:
        left.who = &who;
        ev.player_left = &left;
        break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_RETURNED:
        returned.who = &who;
        ev.player_returned = &returned;
        break;
    case SUNGKA__V1__EVENT__BODY_READY_CHANGED:
        ready.who = &who;
        ev.ready_changed = &ready;
        break;
    default:
        return;
    }
    append_event(r, &ev);
}

/* The game ended: by the rules (abandoned = false) or because a player left. */
static void end_game(room *r, bool abandoned, const char *reason)
{
    r->status = abandoned ? ROOM_ABANDONED : ROOM_FINISHED;
    snprintf(r->end_reason, sizeof r->end_reason, "%s", reason);

    Sungka__V1__GameOver over = SUNGKA__V1__GAME_OVER__INIT;
    int winners[GAME_MAX_SEATS], scores[GAME_MAX_SEATS];
    int32_t winners32[GAME_MAX_SEATS], scores32[GAME_MAX_SEATS];
    int n_winners = abandoned ? 0 : game_winners(&r->state, winners);
    game_scores(&r->state, scores);
    for (int i = 0; i < n_winners; i++)
        winners32[i] = winners[i];
    for (int i = 0; i < game_seats(&r->state); i++)
        scores32[i] = scores[i];
    over.n_winners = (size_t)n_winners;
    over.winners = winners32;
    over.n_scores = (size_t)game_seats(&r->state);
    over.scores = scores32;
    over.reason = (char *)reason;
    over.abandoned = abandoned;
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = SUNGKA__V1__EVENT__BODY_GAME_OVER;
    ev.game_over = &over;
    append_event(r, &ev);
    board_log(r->svc, "game %s over: %s", r->id, reason);
    if (r->svc->store) {
        /* The result and everyone's statistics, in one transaction. */
        const char *names[GAME_MAX_SEATS];
        for (int i = 0; i < game_seats(&r->state); i++)
            names[i] = r->seat_name[i];
        if (store_game_finish(r->svc->store, r->id, r->status, reason, game_seats(&r->state),
                              names, scores, winners, n_winners, board_wall_ms()) != 0) {
            board_log(r->svc, "game %s: cannot store the result: %s", r->id,
                      store_last_error(r->svc->store));
            r->store_failed = true;
        }
    }
}

static void start_game(room *r);

/* Start when every seat is taken by a present player and each said ready
 * (or at once, for a game created with autostart). */
static void maybe_start(room *r)
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
    r->status = ROOM_RUNNING;
    Sungka__V1__GameStarted started = SUNGKA__V1__GAME_STARTED__INIT;
    wire_board_msg board;
    wire_board(&r->state, -1, &board);
    started.first = game_to_move(&r->state);
    started.board = &board.msg;
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = SUNGKA__V1__EVENT__BODY_GAME_STARTED;
    ev.game_started = &started;
    append_event(r, &ev);
    board_log(r->svc, "game %s started", r->id);
    if (r->svc->store &&
        store_game_status(r->svc->store, r->id, ROOM_RUNNING, board_wall_ms()) != 0)
        board_log(r->svc, "game %s: cannot store its start: %s", r->id,
                  store_last_error(r->svc->store));
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

participant *room_join(room *r, const char *name, bool observe, board_client *from,
                       rpc_code *code, char *err, size_t errlen)
{
    if (room_find_name(r, name)) {
        *code = RPC_ALREADY_EXISTS;
        snprintf(err, errlen, "the name '%s' is taken in game %s", name, r->id);
        return NULL;
    }
    if (r->n_people >= r->svc->cfg.max_participants) {
        *code = RPC_RESOURCE_EXHAUSTED;
        snprintf(err, errlen, "game %s has no room for more participants (at most %d)", r->id,
                 r->svc->cfg.max_participants);
        return NULL;
    }
    int seat = -1;
    if (!observe) {
        if (r->status != ROOM_WAITING) {
            *code = RPC_FAILED_PRECONDITION;
            snprintf(err, errlen, "game %s has already %s; join it as an observer", r->id,
                     r->status == ROOM_RUNNING ? "started" : "ended");
            return NULL;
        }
        for (int i = 0; i < game_seats(&r->state) && seat < 0; i++)
            if (!r->seat_name[i][0])
                seat = i;
        if (seat < 0) {
            *code = RPC_RESOURCE_EXHAUSTED;
            snprintf(err, errlen, "game %s is full", r->id);
            return NULL;
        }
    }
    participant *p = calloc(1, sizeof *p);
    if (!p) {
        *code = RPC_RESOURCE_EXHAUSTED;
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->room = r;
    p->id = ++r->next_person_id;
    snprintf(p->name, sizeof p->name, "%s", name);
    make_token(p->token);
    if (room_add_person(r, p) != 0) {
        free(p);
        *code = RPC_RESOURCE_EXHAUSTED;
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (token_index_add(&r->svc->tokens, p) != 0) {
        r->n_people--;
        free(p);
        *code = RPC_RESOURCE_EXHAUSTED;
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->seat = seat;
    p->rtt_ms = -1;
    p->last_seen_ms = board_now_ms();
    if (seat >= 0) {
        r->seat_holder[seat] = p;
        snprintf(r->seat_name[seat], sizeof r->seat_name[seat], "%s", name);
    } else {
        p->watch_from = from;
        from->observers++;
    }

    store_person(r, p);
    /* Players' arrivals are events; observers' are not (pings count them):
     * a crowd must not make each arrival cost every watcher a message, nor
     * grow the log with comings and goings. */
    if (seat >= 0)
        announce_who(r, p, SUNGKA__V1__EVENT__BODY_PLAYER_JOINED);
    board_log(r->svc, "game %s: %s joined as %s", r->id, name,
              seat >= 0 ? "a player" : "an observer");
    maybe_start(r);
    return p;
}

/* --------------------------------------------------------------- subscribe */

static void send_snapshot(room *r, participant *p)
{
    Sungka__V1__Snapshot snap = SUNGKA__V1__SNAPSHOT__INIT;
    Sungka__V1__GameSummary summary;
    wire_board_msg board;
    Sungka__V1__Participant who[BOARD_LISTED_PEOPLE];
    Sungka__V1__Participant *whop[BOARD_LISTED_PEOPLE];
    wire_summary(r, &summary);
    wire_board(&r->state, -1, &board);
    snap.game = &summary;
    snap.board = &board.msg;
    snap.your_seat = p->seat;
    snap.n_participants = (size_t)list_people(r, who, whop);
    snap.participants = whop;
    snap.last_seq = r->log_len;
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = SUNGKA__V1__EVENT__BODY_SNAPSHOT;
    ev.snapshot = &snap;
    ev.time_ms = board_wall_ms();
    rpc_call_send(p->stream, &ev.base);
    wire_summary_clear(&summary);
}

int room_subscribe(room *r, participant *p, rpc_call *call, board_client *from,
                   uint64_t after_seq, rpc_code *code, char *err, size_t errlen)
{
    if (after_seq > r->log_len) {
        *code = RPC_OUT_OF_RANGE;
        snprintf(err, errlen, "game %s has no event %llu yet (last is %zu)", r->id,
                 (unsigned long long)after_seq, r->log_len);
        return -1;
    }
    /* A stream that replaces this participant's own from the same address
     * costs that address nothing more. */
    if (p->stream_from != from && board_client_may_stream(r->svc, from, err, errlen) != 0) {
        *code = RPC_RESOURCE_EXHAUSTED;
        return -1;
    }
    /* One stream per participant: a new subscription replaces the old one. */
    detach_stream(p, RPC_ABORTED, "replaced by a newer subscription");
    p->stream = call;
    p->stream_from = from;
    from->streams++;
    p->last_seen_ms = board_now_ms();
    rpc_call_on_done(call, stream_done, p);
    /* A snapshot stands for the whole log so far; otherwise replay it. */
    size_t replay_from = r->log_len;
    if (after_seq == 0)
        send_snapshot(r, p);
    else
        replay_from = after_seq;
    for (size_t i = replay_from; i < r->log_len; i++) {
        if (!may_see(p, &r->log[i]))
            continue;
        ProtobufCMessage *ev = protobuf_c_message_unpack(&sungka__v1__event__descriptor, NULL,
                                                         r->log[i].len, r->log[i].data);
        if (!ev)
            continue;       /* cannot happen: we packed it ourselves */
        rpc_call_send(call, ev);
        protobuf_c_message_free_unpacked(ev, NULL);
    }
    if (p->departed) {      /* back within the grace: the seat is theirs again */
        p->departed = false;
        p->depart_deadline_ms = 0;
        board_log(r->svc, "game %s: %s is back", r->id, p->name);
        announce_who(r, p, SUNGKA__V1__EVENT__BODY_PLAYER_RETURNED);
        maybe_start(r);
    }
    return 0;
}

static void stream_done(rpc_call *call, bool client_gone, void *user)
{
    participant *p = user;
    (void)client_gone;
    if (p->stream != call)
        return;
    forget_stream(p);
    room_depart(p->room, p, "the connection closed");
}

/* -------------------------------------------------------------------- move */

static void announce_move(room *r, int seat, int move, const game_result *res)
{
    Sungka__V1__MoveMade made = SUNGKA__V1__MOVE_MADE__INIT;
    /* Built on the stack: a move allocates nothing but its log entry. */
    wire_board_msg board;
    Sungka__V1__Step steps[GAME_MAX_STEPS];
    Sungka__V1__Step *stepp[GAME_MAX_STEPS];
    int32_t passed[GAME_MAX_SEATS];
    made.seat = seat;
    made.move = move;
    for (int i = 0; i < res->n_steps; i++) {
        sungka__v1__step__init(&steps[i]);
        steps[i].cell = res->steps[i].cell;
        steps[i].value = res->steps[i].value;
        stepp[i] = &steps[i];
    }
    made.n_steps = (size_t)res->n_steps;
    made.steps = stepp;
    made.steps_truncated = res->truncated;
    wire_board(&r->state, -1, &board);
    made.board = &board.msg;
    made.extra_turn = res->extra_turn;
    for (int i = 0; i < res->n_passed; i++)
        passed[i] = res->passed[i];
    made.n_passed = (size_t)res->n_passed;
    made.passed = passed;
    made.captured = res->captured;
    /* The turn rides in the move (no TurnChanged): one event per move. */
    Sungka__V1__TurnChanged turn = SUNGKA__V1__TURN_CHANGED__INIT;
    turn.seat = game_to_move(&r->state);
    if (!game_is_over(&r->state))
        made.turn = &turn;
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = SUNGKA__V1__EVENT__BODY_MOVE_MADE;
    ev.move_made = &made;
    append_event(r, &ev);
}

static int play_move(room *r, participant *p, int move, rpc_call *call, rpc_code *code,
                     char *err, size_t errlen);

int room_move(room *r, participant *p, int move, rpc_call *call, rpc_code *code, char *err,
              size_t errlen)
{
    char label[32];
    if (p->seat < 0) {
        *code = RPC_PERMISSION_DENIED;
        snprintf(err, errlen, "observers cannot move");
        return -1;
    }
    if (r->status == ROOM_WAITING) {
        int missing = game_seats(&r->state) - room_seats_taken(r);
        *code = RPC_FAILED_PRECONDITION;
        if (missing > 0)
            snprintf(err, errlen, "the game has not started (waiting for %d more player%s)",
                     missing, missing == 1 ? "" : "s");
        else
            snprintf(err, errlen, "the game has not started (waiting for everyone to be "
                                  "ready)");
        return -1;
    }
    if (r->status != ROOM_RUNNING) {
        *code = RPC_FAILED_PRECONDITION;
        snprintf(err, errlen, "the game is over");
        return -1;
    }
    /* Rate: a seat sending moves faster than anyone plays is a script gone
     * wrong or an attack; refuse the excess, within a one-second window. */
    int64_t now = board_now_ms();
    if (now - p->move_window_start_ms >= 1000) {
        p->move_window_start_ms = now;
        p->moves_in_window = 0;
    }
    if (++p->moves_in_window > r->svc->cfg.move_rate) {
        *code = RPC_RESOURCE_EXHAUSTED;
        snprintf(err, errlen, "too many moves: at most %d a second", r->svc->cfg.move_rate);
        return -1;
    }
    int to_move = game_to_move(&r->state);
    if (to_move != p->seat) {
        *code = RPC_FAILED_PRECONDITION;
        snprintf(err, errlen, "it is %s's turn", seat_label(r, to_move, label, sizeof label));
        return -1;
    }
    char why[GAME_ERR_LEN];
    int rc = game_check(&r->state, p->seat, move, why, sizeof why);
    if (rc != GAME_OK) {
        *code = (rc == GAME_E_RANGE || rc == GAME_E_HOME) ? RPC_INVALID_ARGUMENT
                                                          : RPC_FAILED_PRECONDITION;
        snprintf(err, errlen, "%s", why);
        board_log(r->svc, "game %s: refused move %d by %s: %s", r->id, move, p->name, why);
        return -1;
    }
    return play_move(r, p, move, call, code, err, errlen);
}

/* ----------------------------------------------------------- durable moves */

/* Moves are made durable in batches: the first move of a loop turn opens a
 * transaction, every move of the turn writes into it, and room_commit_moves
 * commits once at the end of the turn; only then are the moves' events sent
 * and their calls answered. If the commit fails, every move of the batch is
 * undone and its mover told: nothing is acknowledged that was not stored. */
struct pending_move {
    room *room;
    rpc_call *call;            /* the Move call; NULL once its client left */
    uint64_t seq;              /* its MoveMade event */
    size_t log_before;         /* the room's log, state and status before it */
    game_state before;
    room_status status_before;
    int move;
    participant *mover;        /* stays: anything that could remove it commits first */
};

/* A pending Move's client went away: there is no one to answer. */
static void pending_call_done(rpc_call *call, bool client_gone, void *user)
{
    board_service *svc = user;
    (void)client_gone;
    for (int i = 0; i < svc->n_pending; i++)
        if (svc->pending[i].call == call)
            svc->pending[i].call = NULL;
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

static int play_move(room *r, participant *p, int move, rpc_call *call, rpc_code *code,
                     char *err, size_t errlen)
{
    board_service *svc = r->svc;
    store *db = svc->store;
    if (r->holding)            /* this game's last move is not committed yet */
        room_commit_moves(svc);
    struct pending_move *pm = pending_add(svc);
    if (!pm) {
        *code = RPC_RESOURCE_EXHAUSTED;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (db && svc->n_pending == 1 && store_begin(db) != 0) {
        svc->n_pending--;
        *code = RPC_UNAVAILABLE;
        snprintf(err, errlen, "the move could not be stored, so it was not played (%s)",
                 store_last_error(db));
        return -1;
    }
    pm->room = r;
    pm->call = call;
    pm->log_before = r->log_len;
    pm->before = r->state;
    pm->status_before = r->status;
    pm->move = move;
    pm->mover = p;
    rpc_call_on_done(call, pending_call_done, svc);
    r->holding = true;
    r->store_failed = false;

    game_result res;
    game_play(&r->state, p->seat, move, &res, NULL, 0);
    announce_move(r, p->seat, move, &res);
    pm->seq = r->log_len;
    if (db && store_move_append(db, r->id, r->n_moves + 1, p->seat, move, board_wall_ms()) != 0)
        r->store_failed = true;
    r->n_moves++;
    if (game_is_over(&r->state)) {
        int winners[GAME_MAX_SEATS];
        int n = game_winners(&r->state, winners);
        /* "alice wins", "alice and bob share the win", "a, b and c share..." */
        char reason[GAME_MAX_SEATS * BOARD_NAME_BYTES + 64];
        char label[32];
        size_t used = 0;
        for (int i = 0; i < n; i++)
            used += (size_t)snprintf(reason + used, sizeof reason - used, "%s%s",
                                     i == 0 ? "" : i == n - 1 ? " and " : ", ",
                                     seat_label(r, winners[i], label, sizeof label));
        if (n == 0)
            snprintf(reason, sizeof reason, "the game ended in a draw");
        else
            snprintf(reason + used, sizeof reason - used, n == 1 ? " wins" : " share the win");
        end_game(r, false, reason);
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
        if (pm->call)
            rpc_call_on_done(pm->call, NULL, NULL);
        if (why) {
            board_log(svc, "game %s: move %d by %s not stored, undone: %s", r->id, pm->move,
                      pm->mover->name, why);
            for (size_t i = pm->log_before; i < r->log_len; i++)
                free(r->log[i].data);
            r->log_len = pm->log_before;
            r->state = pm->before;
            r->status = pm->status_before;
            r->n_moves--;
            r->store_failed = false;
            if (pm->call) {
                char err[256];
                snprintf(err, sizeof err,
                         "the move could not be stored, so it was not played (%s)", why);
                rpc_call_finish(pm->call, RPC_UNAVAILABLE, err);
            }
        } else {
            broadcast(r, pm->log_before, pm->mover);
            if (pm->call) {
                Sungka__V1__MoveReply reply = SUNGKA__V1__MOVE_REPLY__INIT;
                reply.seq = pm->seq;
                rpc_call_reply(pm->call, &reply.base);
            }
        }
    }
    svc->n_pending = 0;
    svc->batch_failed = false;
}

/* -------------------------------------------------------------------- chat */

int room_chat(room *r, participant *p, board_client *from, const char *text, const char *to,
              rpc_code *code, char *err, size_t errlen)
{
    participant *target = NULL;
    if (to && *to) {
        target = room_find_name(r, to);
        if (!target) {
            *code = RPC_NOT_FOUND;
            char echo[48];
            snprintf(err, errlen, "nobody called '%s' is in this game",
                     board_echo(to, echo, sizeof echo));
            return -1;
        }
        if (target == p) {
            *code = RPC_INVALID_ARGUMENT;
            snprintf(err, errlen, "a private message needs someone else to read it");
            return -1;
        }
    }
    size_t len = strlen(text);
    const board_config *cfg = &r->svc->cfg;
    if (len == 0 || len > (size_t)cfg->chat_length) {
        *code = RPC_INVALID_ARGUMENT;
        snprintf(err, errlen, "a chat message must be 1..%d bytes, not %zu", cfg->chat_length,
                 len);
        return -1;
    }
    char why[64];
    if (text_check(text, why, sizeof why) != 0) {
        *code = RPC_INVALID_ARGUMENT;
        snprintf(err, errlen, "the message %s", why);
        return -1;
    }
    int64_t now = board_now_ms();
    if (now - p->chat_window_start_ms >= BOARD_CHAT_WINDOW_MS) {
        p->chat_window_start_ms = now;
        p->chat_in_window = 0;
    }
    if (p->chat_in_window >= cfg->chat_rate) {
        *code = RPC_RESOURCE_EXHAUSTED;
        snprintf(err, errlen, "too many messages: at most %d every %d seconds",
                 cfg->chat_rate, BOARD_CHAT_WINDOW_MS / 1000);
        return -1;
    }
    if (board_client_may_chat(r->svc, from, err, errlen) != 0) {
        *code = RPC_RESOURCE_EXHAUSTED;
        return -1;
    }
    p->chat_in_window++;
    Sungka__V1__ChatMessage chat = SUNGKA__V1__CHAT_MESSAGE__INIT;
    chat.from = p->name;
    chat.seat = p->seat;
    chat.text = (char *)text;
    chat.to = target ? target->name : (char *)"";
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = SUNGKA__V1__EVENT__BODY_CHAT;
    ev.chat = &chat;
    append_event_for(r, &ev, target ? p->id : 0, target ? target->id : 0);
    return 0;
}

/* ------------------------------------------------------ departure, leaving */

static void announce_departed(room *r, participant *p, const char *why, int grace_s)
{
    Sungka__V1__Participant who;
    wire_participant(p, &who);
    Sungka__V1__PlayerDeparted dep = SUNGKA__V1__PLAYER_DEPARTED__INIT;
    dep.who = &who;
    dep.reason = (char *)why;
    dep.grace_s = grace_s;
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = SUNGKA__V1__EVENT__BODY_PLAYER_DEPARTED;
    ev.player_departed = &dep;
    append_event(r, &ev);
}

/* A seated player is gone for good: before the start the seat opens again;
 * during the game it ends with no winner (seed 000). */
static void seat_gone(room *r, participant *p, const char *how)
{
    if (p->seat < 0)
        return;
    if (r->status == ROOM_WAITING) {
        r->seat_name[p->seat][0] = '\0';
    } else if (r->status == ROOM_RUNNING) {
        char reason[BOARD_NAME_BYTES + 128];
        snprintf(reason, sizeof reason, "%s %s; the game ends with no winner", p->name, how);
        end_game(r, true, reason);
    }
}

static bool game_open(const room *r)
{
    return r->status == ROOM_WAITING || r->status == ROOM_RUNNING;
}

void room_depart(room *r, participant *p, const char *why)
{
    if (p->departed)
        return;
    detach_stream(p, RPC_UNAVAILABLE, why);
    board_log(r->svc, "game %s: %s departed (%s)", r->id, p->name, why);
    p->departed = true;
    if (p->seat >= 0 && game_open(r)) {
        /* Keep the seat: the player may come back with their token. */
        p->depart_deadline_ms = board_now_ms() + r->svc->cfg.grace_ms;
        announce_departed(r, p, why, r->svc->cfg.grace_ms / 1000);
        return;
    }
    /* Observers, and players of a game that is over, have nothing to keep
     * (and observers' departures are not events: pings count them). */
    if (p->seat >= 0)
        announce_departed(r, p, why, 0);
    remove_participant(r, p);
}

void room_leave(room *r, participant *p)
{
    detach_stream(p, RPC_OK, "you left the game");
    p->departed = true;   /* no pings or events for it from now on */
    board_log(r->svc, "game %s: %s left", r->id, p->name);
    if (p->seat >= 0)
        announce_who(r, p, SUNGKA__V1__EVENT__BODY_PLAYER_LEFT);
    seat_gone(r, p, "quit");
    remove_participant(r, p);
}

/* The grace ran out: the seat is lost. */
static void grace_over(room *r, participant *p)
{
    char how[64];
    snprintf(how, sizeof how, "did not come back within %d s", r->svc->cfg.grace_ms / 1000);
    board_log(r->svc, "game %s: %s %s", r->id, p->name, how);
    announce_who(r, p, SUNGKA__V1__EVENT__BODY_PLAYER_LEFT);
    seat_gone(r, p, how);
    remove_participant(r, p);
}

/* ----------------------------------------------------------- ready, seats */

static int only_before_start(const room *r, rpc_code *code, char *err, size_t errlen)
{
    if (r->status == ROOM_WAITING)
        return 0;
    *code = RPC_FAILED_PRECONDITION;
    snprintf(err, errlen, "the game has %s", r->status == ROOM_RUNNING ? "started" : "ended");
    return -1;
}

int room_ready(room *r, participant *p, bool ready, rpc_code *code, char *err, size_t errlen)
{
    if (p->seat < 0) {
        *code = RPC_PERMISSION_DENIED;
        snprintf(err, errlen, "observers have nothing to be ready for; sit down first");
        return -1;
    }
    if (only_before_start(r, code, err, errlen) != 0)
        return -1;
    if (p->ready != ready) {
        p->ready = ready;
        store_person(r, p);
        announce_who(r, p, SUNGKA__V1__EVENT__BODY_READY_CHANGED);
        maybe_start(r);
    }
    return 0;
}

bool room_has_open_seat(const room *r)
{
    return r->status == ROOM_WAITING && room_seats_taken(r) < game_seats(&r->state);
}

static void announce_seat(room *r, participant *p, int from_seat)
{
    Sungka__V1__Participant who;
    wire_participant(p, &who);
    Sungka__V1__SeatChanged changed = SUNGKA__V1__SEAT_CHANGED__INIT;
    changed.who = &who;
    changed.from_seat = from_seat;
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = SUNGKA__V1__EVENT__BODY_SEAT_CHANGED;
    ev.seat_changed = &changed;
    append_event(r, &ev);
}

int room_sit(room *r, participant *p, int seat, rpc_code *code, char *err, size_t errlen)
{
    int seats = game_seats(&r->state);
    if (p->seat >= 0) {
        *code = RPC_FAILED_PRECONDITION;
        snprintf(err, errlen, "you already have seat %d; stand up first", p->seat);
        return -1;
    }
    if (only_before_start(r, code, err, errlen) != 0)
        return -1;
    if (seat < -1 || seat >= seats) {
        *code = RPC_INVALID_ARGUMENT;
        snprintf(err, errlen, "seat %d is out of range 0..%d", seat, seats - 1);
        return -1;
    }
    for (int s = 0; s < seats && seat < 0; s++)
        if (!r->seat_name[s][0])
            seat = s;
    if (seat < 0) {
        *code = RPC_RESOURCE_EXHAUSTED;
        snprintf(err, errlen, "every seat is taken");
        return -1;
    }
    if (r->seat_name[seat][0]) {
        *code = RPC_FAILED_PRECONDITION;
        snprintf(err, errlen, "seat %d is taken by %s", seat, r->seat_name[seat]);
        return -1;
    }
    p->seat = seat;
    p->ready = false;
    release_watch(p);
    r->seat_holder[seat] = p;
    snprintf(r->seat_name[seat], sizeof r->seat_name[seat], "%s", p->name);
    store_person(r, p);
    announce_seat(r, p, -1);
    maybe_start(r);
    return 0;
}

int room_stand(room *r, participant *p, rpc_code *code, char *err, size_t errlen)
{
    if (p->seat < 0) {
        *code = RPC_FAILED_PRECONDITION;
        snprintf(err, errlen, "you are not sitting");
        return -1;
    }
    if (only_before_start(r, code, err, errlen) != 0)
        return -1;
    int from = p->seat;
    r->seat_holder[from] = NULL;
    r->seat_name[from][0] = '\0';
    p->seat = -1;
    p->ready = false;
    store_person(r, p);
    announce_seat(r, p, from);
    return 0;
}

/* ------------------------------------------------------------------- pings */

/* One ping for everyone in the room, packed once: the same nonce for all
 * (the reply's token says who answered) and the listed people's round trips. */
static void send_pings(room *r, uint64_t nonce, int64_t now)
{
    Sungka__V1__Participant who[BOARD_LISTED_PEOPLE];
    Sungka__V1__Participant *whop[BOARD_LISTED_PEOPLE];
    Sungka__V1__PingRequest ping = SUNGKA__V1__PING_REQUEST__INIT;
    ping.nonce = nonce;
    ping.n_participants = (size_t)list_people(r, who, whop);
    ping.participants = whop;
    for (int i = 0; i < r->n_people; i++)
        ping.observers += r->people[i]->seat < 0;
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = SUNGKA__V1__EVENT__BODY_PING;
    ev.ping = &ping;
    ev.time_ms = board_wall_ms();
    size_t len = protobuf_c_message_get_packed_size(&ev.base);
    uint8_t *data = malloc(len ? len : 1);
    if (!data)
        return;             /* the next tick pings again */
    protobuf_c_message_pack(&ev.base, data);
    for (int i = 0; i < r->n_people; i++) {
        participant *p = r->people[i];
        if (!p->stream || p->departed)
            continue;
        if (p->ping_nonce == 0) {   /* time the oldest unanswered ping */
            p->ping_nonce = nonce;
            p->ping_sent_ms = now;
        }
        check_sent(p, rpc_call_send_packed(p->stream, data, len), r->log_len + 1);
    }
    free(data);
}

void room_tick(room *r, int64_t now)
{
    board_service *svc = r->svc;
    /* Departure may remove people: walk backwards so removal is safe. */
    for (int i = r->n_people - 1; i >= 0; i--) {
        participant *p = r->people[i];
        if (p->departed) {
            if (now >= p->depart_deadline_ms)
                grace_over(r, p);
            continue;
        }
        if (now - p->last_seen_ms > svc->cfg.ping_timeout_ms) {
            char why[96];
            snprintf(why, sizeof why, "no answer to pings for %d s",
                     svc->cfg.ping_timeout_ms / 1000);
            room_depart(r, p, why);
        }
    }
    send_pings(r, ++svc->next_nonce, now);
}

bool room_is_idle(const room *r)
{
    if (r->status == ROOM_WAITING || r->status == ROOM_RUNNING)
        return false;
    for (int i = 0; i < r->n_people; i++)
        if (r->people[i]->stream)
            return false;
    return true;
}

void room_close_streams(room *r)
{
    for (int i = 0; i < r->n_people; i++)
        detach_stream(r->people[i], RPC_UNAVAILABLE, "the board service is shutting down");
}

void room_announce_restart(room *r)
{
    char text[128];
    snprintf(text, sizeof text,
             "the board service restarted; everyone has %d s to come back",
             r->svc->cfg.grace_ms / 1000);
    Sungka__V1__Notice notice = SUNGKA__V1__NOTICE__INIT;
    notice.text = text;
    Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
    ev.body_case = SUNGKA__V1__EVENT__BODY_NOTICE;
    ev.notice = &notice;
    append_event(r, &ev);
}
