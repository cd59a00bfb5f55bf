/*
 * room.c — one game on the board service: its seats and observers, its rules
 * state, its ordered event log, and the subscribers its events stream to.
 *
 * Every change goes through append_event(), which numbers the event, keeps it
 * packed in the log and sends it to every open stream; so a late or returning
 * subscriber replays exactly what the others saw, in the same order.
 *
 * The room knows neither gRPC nor protobuf: its events are plain room_event
 * values that wire.c packs, its streams and pending Move calls are handles it
 * passes to the service's room_io, and its refusals are room_rc codes. So
 * tests/board drives it with no server at all.
 * Runs on the event-loop thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "board_internal.h"
#include "text.h"

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

/* End the participant's stream with a status, forgetting it first (so the
 * service's report that it ended finds nobody). */
static void detach_stream(participant *p, room_rc rc, const char *why)
{
    if (!p->stream)
        return;
    void *stream = p->stream;
    forget_stream(p);
    p->room->svc->io.finish(stream, rc, why);
}

/* Take a participant out of the room (and of the store: it is gone for good). */
static void remove_participant(room *r, participant *p)
{
    if (r->svc->store && store_participant_remove(r->svc->store, r->id, p->id) != 0)
        board_log(r->svc, "game %s: cannot forget %s: %s", r->id, p->name,
                  store_last_error(r->svc->store));
    detach_stream(p, ROOM_OK, "you left the game");
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
        detach_stream(r->people[i], ROOM_E_CLOSING, "the game is closing");
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
    detach_stream(p, ROOM_E_LIMIT, why);
}

static bool may_see(const participant *p, const logged_event *le)
{
    return !le->only_for[0] || p->id == le->only_for[0] || p->id == le->only_for[1];
}

static void send_logged(participant *p, const logged_event *le)
{
    if (p->stream && may_see(p, le))
        check_sent(p, p->room->svc->io.send(p->stream, le->data, le->len), le->seq);
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
static void append_event_for(room *r, room_event *ev, unsigned a, unsigned b)
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
    le->data = wire_pack_event(ev, &le->len);
    if (!le->data) {
        board_log(r->svc, "game %s: out of memory for the event log", r->id);
        r->store_failed = true;
        return;
    }
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

static void append_event(room *r, room_event *ev)
{
    append_event_for(r, ev, 0, 0);
}

/* Announce one participant's change (joined, left, ready, returned...). */
static void announce_who(room *r, const participant *p, room_event_kind kind)
{
    room_event ev = {.kind = kind, .who = p};
    append_event(r, &ev);
}

/* The game ended: by the rules (abandoned = false) or because a player left. */
static void end_game(room *r, bool abandoned, const char *reason)
{
    r->status = abandoned ? ROOM_ABANDONED : ROOM_FINISHED;
    snprintf(r->end_reason, sizeof r->end_reason, "%s", reason);

    int winners[GAME_MAX_SEATS], scores[GAME_MAX_SEATS];
    int n_winners = abandoned ? 0 : game_winners(&r->state, winners);
    game_scores(&r->state, scores);
    room_event ev = {.kind = ROOM_EV_OVER, .state = &r->state, .text = reason,
                     .abandoned = abandoned, .n_winners = n_winners, .winners = winners};
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
    room_event ev = {.kind = ROOM_EV_STARTED, .state = &r->state};
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

room_rc room_join(room *r, const char *name, bool observe, board_client *from,
                  participant **out, char *err, size_t errlen)
{
    *out = NULL;
    if (room_find_name(r, name)) {
        snprintf(err, errlen, "the name '%s' is taken in game %s", name, r->id);
        return ROOM_E_TAKEN;
    }
    if (r->n_people >= r->svc->cfg.max_participants) {
        snprintf(err, errlen, "game %s has no room for more participants (at most %d)", r->id,
                 r->svc->cfg.max_participants);
        return ROOM_E_LIMIT;
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
            return ROOM_E_LIMIT;
        }
    }
    participant *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return ROOM_E_LIMIT;
    }
    p->room = r;
    p->id = ++r->next_person_id;
    snprintf(p->name, sizeof p->name, "%s", name);
    make_token(p->token);
    if (room_add_person(r, p) != 0) {
        free(p);
        snprintf(err, errlen, "out of memory");
        return ROOM_E_LIMIT;
    }
    if (token_index_add(&r->svc->tokens, p) != 0) {
        r->n_people--;
        free(p);
        snprintf(err, errlen, "out of memory");
        return ROOM_E_LIMIT;
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
        announce_who(r, p, ROOM_EV_JOINED);
    board_log(r->svc, "game %s: %s joined as %s", r->id, name,
              seat >= 0 ? "a player" : "an observer");
    maybe_start(r);
    *out = p;
    return ROOM_OK;
}

/* --------------------------------------------------------------- subscribe */

static void send_snapshot(room *r, participant *p)
{
    size_t len;
    uint8_t *data = wire_pack_snapshot(r, p, &len);
    if (!data) {
        detach_stream(p, ROOM_E_LIMIT, "out of memory");
        return;
    }
    check_sent(p, r->svc->io.send(p->stream, data, len), r->log_len + 1);
    free(data);
}

room_rc room_subscribe(room *r, participant *p, void *stream, board_client *from,
                       uint64_t after_seq, char *err, size_t errlen)
{
    if (after_seq > r->log_len) {
        snprintf(err, errlen, "game %s has no event %llu yet (last is %zu)", r->id,
                 (unsigned long long)after_seq, r->log_len);
        return ROOM_E_RANGE;
    }
    /* A stream that replaces this participant's own from the same address
     * costs that address nothing more. */
    if (p->stream_from != from && board_client_may_stream(r->svc, from, err, errlen) != 0)
        return ROOM_E_LIMIT;
    /* One stream per participant: a new subscription replaces the old one. */
    detach_stream(p, ROOM_E_REPLACED, "replaced by a newer subscription");
    p->stream = stream;
    p->stream_from = from;
    from->streams++;
    p->last_seen_ms = board_now_ms();
    /* A snapshot stands for the whole log so far; otherwise replay it. A
     * replay longer than the stream's outbox cuts it off like a slow
     * subscriber (check_sent): it resumes from where it got to. */
    size_t replay_from = r->log_len;
    if (after_seq == 0)
        send_snapshot(r, p);
    else
        replay_from = after_seq;
    for (size_t i = replay_from; i < r->log_len && p->stream; i++)
        send_logged(p, &r->log[i]);
    if (p->departed) {      /* back within the grace: the seat is theirs again */
        p->departed = false;
        p->depart_deadline_ms = 0;
        board_log(r->svc, "game %s: %s is back", r->id, p->name);
        announce_who(r, p, ROOM_EV_RETURNED);
        maybe_start(r);
    }
    return 0;
}

void room_stream_ended(participant *p, void *stream)
{
    if (p->stream != stream)
        return;
    forget_stream(p);
    room_depart(p->room, p, "the connection closed");
}

/* -------------------------------------------------------------------- move */

/* One event per move: its steps, the board after it, and whose turn it is
 * (wire.c packs it; a move allocates nothing but its log entry). */
static void announce_move(room *r, int seat, int move, const game_result *res)
{
    room_event ev = {.kind = ROOM_EV_MOVED, .seat = seat, .move = move, .result = res,
                     .state = &r->state};
    append_event(r, &ev);
}

static room_rc play_move(room *r, participant *p, int move, void *reply, char *err,
                         size_t errlen);

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
        snprintf(err, errlen, "it is %s's turn", seat_label(r, to_move, label, sizeof label));
        return ROOM_E_STATE;
    }
    char why[GAME_ERR_LEN];
    int rc = game_check(&r->state, p->seat, move, why, sizeof why);
    if (rc != GAME_OK) {
        snprintf(err, errlen, "%s", why);
        board_log(r->svc, "game %s: refused move %d by %s: %s", r->id, move, p->name, why);
        return rc == GAME_E_RANGE || rc == GAME_E_HOME ? ROOM_E_INVALID : ROOM_E_STATE;
    }
    return play_move(r, p, move, reply, err, errlen);
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

static room_rc play_move(room *r, participant *p, int move, void *reply, char *err,
                         size_t errlen)
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
    pm->move = move;
    pm->mover = p;
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
            if (pm->reply) {
                char err[256];
                snprintf(err, sizeof err,
                         "the move could not be stored, so it was not played (%s)", why);
                svc->io.move_done(pm->reply, ROOM_E_STORE, 0, err);
            }
        } else {
            broadcast(r, pm->log_before, pm->mover);
            if (pm->reply)
                svc->io.move_done(pm->reply, ROOM_OK, pm->seq, NULL);
        }
    }
    svc->n_pending = 0;
    svc->batch_failed = false;
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
        return ROOM_E_LIMIT;
    }
    if (board_client_may_chat(r->svc, from, err, errlen) != 0)
        return ROOM_E_LIMIT;
    p->chat_in_window++;
    room_event ev = {.kind = ROOM_EV_CHAT, .who = p, .to = target, .text = text};
    append_event_for(r, &ev, target ? p->id : 0, target ? target->id : 0);
    return ROOM_OK;
}

/* ------------------------------------------------------ departure, leaving */

static void announce_departed(room *r, participant *p, const char *why, int grace_s)
{
    room_event ev = {.kind = ROOM_EV_DEPARTED, .who = p, .text = why, .grace_s = grace_s};
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
    detach_stream(p, ROOM_E_GONE, why);
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
    detach_stream(p, ROOM_OK, "you left the game");
    p->departed = true;   /* no pings or events for it from now on */
    board_log(r->svc, "game %s: %s left", r->id, p->name);
    if (p->seat >= 0)
        announce_who(r, p, ROOM_EV_LEFT);
    seat_gone(r, p, "quit");
    remove_participant(r, p);
}

/* The grace ran out: the seat is lost. */
static void grace_over(room *r, participant *p)
{
    char how[64];
    snprintf(how, sizeof how, "did not come back within %d s", r->svc->cfg.grace_ms / 1000);
    board_log(r->svc, "game %s: %s %s", r->id, p->name, how);
    announce_who(r, p, ROOM_EV_LEFT);
    seat_gone(r, p, how);
    remove_participant(r, p);
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
        return ROOM_E_DENIED;
    }
    if (only_before_start(r, err, errlen) != ROOM_OK)
        return ROOM_E_STATE;
    if (p->ready != ready) {
        p->ready = ready;
        store_person(r, p);
        announce_who(r, p, ROOM_EV_READY);
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
    room_event ev = {.kind = ROOM_EV_SEAT, .who = p, .from_seat = from_seat};
    append_event(r, &ev);
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
        return ROOM_E_LIMIT;
    }
    if (r->seat_name[seat][0]) {
        snprintf(err, errlen, "seat %d is taken by %s", seat, r->seat_name[seat]);
        return ROOM_E_STATE;
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

room_rc room_stand(room *r, participant *p, char *err, size_t errlen)
{
    if (p->seat < 0) {
        snprintf(err, errlen, "you are not sitting");
        return ROOM_E_STATE;
    }
    if (only_before_start(r, err, errlen) != ROOM_OK)
        return ROOM_E_STATE;
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
 * (the reply's token says who answered), the listed people's round trips and
 * how many watch. */
static void send_pings(room *r, uint64_t nonce, int64_t now)
{
    size_t len;
    uint8_t *data = wire_pack_ping(r, nonce, &len);
    if (!data)
        return;             /* the next tick pings again */
    for (int i = 0; i < r->n_people; i++) {
        participant *p = r->people[i];
        if (!p->stream || p->departed)
            continue;
        if (p->ping_nonce == 0) {   /* time the oldest unanswered ping */
            p->ping_nonce = nonce;
            p->ping_sent_ms = now;
        }
        check_sent(p, r->svc->io.send(p->stream, data, len), r->log_len + 1);
    }
    free(data);
}

void room_pong(participant *p, uint64_t nonce)
{
    int64_t now = board_now_ms();
    p->last_seen_ms = now;
    if (nonce != 0 && nonce == p->ping_nonce) {
        p->rtt_ms = (int)(now - p->ping_sent_ms);
        p->ping_nonce = 0;
    }
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
        detach_stream(r->people[i], ROOM_E_CLOSING, "the board service is shutting down");
}

void room_announce_restart(room *r)
{
    char text[128];
    snprintf(text, sizeof text,
             "the board service restarted; everyone has %d s to come back",
             r->svc->cfg.grace_ms / 1000);
    room_event ev = {.kind = ROOM_EV_NOTICE, .text = text};
    append_event(r, &ev);
}
