/*
 * recovery.c — bringing back, after a crash or a restart, every game that was
 * waiting or running, and every ended one its players were still in (a
 * rematch may be on offer): its options, its participants with their seat tokens,
 * and its whole event log, from the store. The position is rebuilt by
 * replaying the logged moves through the rules engine (the log is the truth;
 * nothing else about the board is stored): each through its kind's apply
 * function, as live play applied it (room_events.c). Everyone starts out departed, with
 * the full grace to come back: agents reconnect by themselves with their
 * tokens and resume after the last event they saw, and the service's own
 * bots are marked so that board_bots_recover starts them again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_rpc.h"
#include "text.h"

/* How long a diverged game waits before its reload is tried again (the
 * store could not be read: it is likely down). */
#define RELOAD_RETRY_MS 500

typedef struct recovering {
    board_service *svc;
    bool detached;             /* one game, rebuilt outside the registry */
    room *current;             /* the game whose participants and events arrive */
    int games, failed;
} recovering;

static room *add_room(board_service *svc, const store_game_info *g, bool detached)
{
    const game_kind *kind = game_kind_find(g->kind);
    if (!kind)
        return NULL;
    game_options opts;
    game_options_default(kind, &opts);
    char err[GAME_ERR_LEN];
    for (int i = 0; i < g->n_options; i++)
        if (game_options_set(kind, &opts, g->options[i].name, g->options[i].value, err,
                             sizeof err) != GAME_OK)
            return NULL;
    char title[BOARD_TITLE_MAX + 1];
    text_escape(g->title, title, sizeof title);
    room_settings settings = {
        .id = g->id, .kind = kind, .opts = &opts, .title = title, .autostart = g->autostart,
        .tc = {g->per_move_ms, g->base_ms, g->increment_ms}, .rated = g->rated,
        .takeover_level = g->bot_takes_over ? g->bot_level : 0,
        .rated_accounts = g->rated_accounts,
        .recovered = true,     /* its people enter the indexes in settle() */
    };
    room *r;
    if (room_create(svc, &settings, &r, err, sizeof err) != ROOM_OK) {
        board_log_at(svc, LOG_ERR, "game %s: %s; not recovered", g->id, err);
        return NULL;
    }
    if (detached)
        return r;
    if (board_rooms_add(svc, r) != 0) {
        room_free(r);
        return NULL;
    }
    return r;
}

static void on_game(void *user, const store_game_info *g)
{
    recovering *rc = user;
    if (rc->detached && rc->current)
        return;                /* one game only */
    rc->current = add_room(rc->svc, g, rc->detached);
    if (rc->current)
        rc->games++;
    else
        rc->failed++;
}

static void on_participant(void *user, const char *game_id, unsigned person_id,
                           const char *name, int seat, const char *token, bool ready)
{
    recovering *rc = user;
    room *r = rc->current;
    if (!r || strcmp(room_id(r), game_id) != 0)
        return;
    if (seat >= game_seats(room_state(r)) || strlen(token) != BOARD_TOKEN_HEX)
        return;
    participant *p = calloc(1, sizeof *p);
    if (!p)
        return;
    p->room = r;
    p->id = person_id;
    text_escape(name, p->name, sizeof p->name);   /* stored before names were checked? */
    snprintf(p->token, sizeof p->token, "%s", token);
    p->seat = seat;
    p->ready = ready;
    p->rtt_ms = -1;
    p->departed = true;
    p->depart_deadline_ms = board_now_ms() + rc->svc->cfg.grace_ms;
    p->last_seen_ms = board_now_ms();
    /* No cap here: whoever the game had before the restart comes back. */
    if (room_restore_person(r, p) != 0)
        board_person_free(p);
}

/* A participant signed in to an account keeps playing for it, and keeps the
 * address it took its seat from (whether a rated game counts). */
static void on_account(void *user, const char *game_id, unsigned person_id, int64_t account_id,
                       const char *host)
{
    recovering *rc = user;
    room *r = rc->current;
    participant *p = r && strcmp(room_id(r), game_id) == 0 ? room_person_by_id(r, person_id)
                                                           : NULL;
    if (p) {
        p->account_id = account_id;
        snprintf(p->host, sizeof p->host, "%s", host);
        room_load_rating(r, p);
    }
}

/* One of the service's own bots: board_bots_recover starts it again. */
static void on_bot(void *user, const char *game_id, unsigned person_id, int level)
{
    recovering *rc = user;
    room *r = rc->current;
    participant *p = r && strcmp(room_id(r), game_id) == 0 ? room_person_by_id(r, person_id)
                                                           : NULL;
    if (p)
        p->bot_level = level;
}

/* One stored event, as it will be served: an event stored before text was
 * checked may hold invalid UTF-8 or control characters, and is served
 * escaped (stock protobuf clients refuse invalid UTF-8, so serving it raw
 * would break every one of them on each replay). The packed bytes are read
 * back once: protobuf-c takes a field numbered 0 in a long tag (a damaged
 * row) as an unknown field and writes it in a short tag, which it and every
 * other runtime refuse, so no client could read the event. Its packed bytes
 * in *data (malloc'ed), or -1 (out of memory, or unreadable so). */
static int served_bytes(board_service *svc, const room *r, uint64_t seq,
                        Sungka__V1__Event *ev, uint8_t **data, size_t *len)
{
    int escaped = rpc_message_escape_text(&ev->base);
    if (escaped < 0)
        return -1;
    if (escaped > 0)
        board_log_at(svc, LOG_WARNING,
                     "game %s: event %llu holds text that is not safe to show; it is "
                     "served escaped", room_id(r), (unsigned long long)seq);
    *len = protobuf_c_message_get_packed_size(&ev->base);
    *data = malloc(*len ? *len : 1);
    if (!*data)
        return -1;
    protobuf_c_message_pack(&ev->base, *data);
    ProtobufCMessage *back = protobuf_c_message_unpack(&sungka__v1__event__descriptor, NULL,
                                                       *len, *data);
    if (!back) {
        free(*data);
        *data = NULL;
        return -1;
    }
    protobuf_c_message_free_unpacked(back, NULL);
    return 0;
}

static void on_event(void *user, const char *game_id, uint64_t seq, int64_t time_ms,
                     unsigned a, unsigned b, unsigned format, const void *data, size_t len)
{
    (void)time_ms;
    recovering *rc = user;
    room *r = rc->current;
    if (!r || strcmp(room_id(r), game_id) != 0 || room_is_damaged(r))
        return;
    Sungka__V1__Event *ev = (Sungka__V1__Event *)protobuf_c_message_unpack(
        &sungka__v1__event__descriptor, NULL, len, data);
    room_event value;
    room_clocks clocks;
    uint8_t *served = NULL;
    size_t served_len = 0;
    bool whole = ev && wire_upgrade_event(ev, format) == 0 &&
                 served_bytes(rc->svc, r, seq, ev, &served, &served_len) == 0;
    if (whole && wire_event_value(ev, &value, &clocks) != 0) {
        free(served);
        whole = false;
    }
    /* room_restore_event takes the bytes, whatever it answers */
    if (!whole || room_restore_event(r, seq, a, b, served, served_len, &value) != 0) {
        board_log_at(rc->svc, LOG_ERR,
                     "game %s: its stored log is damaged at event %llu; not recovered",
                     game_id, (unsigned long long)seq);
        room_mark_damaged(r);            /* dropped below */
    }
    if (ev)
        protobuf_c_message_free_unpacked(&ev->base, NULL);
}

/* What the store hands recovery, adoption, reloads and the replay check. */
static const store_recovery_cb recovery_cb = {on_game, on_participant, on_event, on_bot,
                                              on_account};

/* Drop the rooms from index first on that could not be rebuilt, and open
 * the others: everyone departed, clocks running again. Returns how many of
 * them had ended. */
static int settle(board_service *svc, recovering *rc, int first)
{
    int ended = 0;
    for (int i = svc->n_rooms - 1; i >= first; i--) {
        room *r = svc->rooms[i];
        if (!room_is_damaged(r) && room_index_people(r) != 0) {
            board_log_at(svc, LOG_ERR,
                         "game %s: out of memory for its people; not recovered", room_id(r));
            room_mark_damaged(r);
        }
        if (room_is_damaged(r)) {
            board_rooms_remove(svc, i);
            rc->games--;
            rc->failed++;
            continue;
        }
        ended += !room_is_open(r);
        room_announce_restart(r);
        room_clock_resume(r, board_now_ms());
    }
    return ended;
}

/* "recovered 2 unfinished games", "adopted 1 unfinished game ...": what
 * came back, the games over apart. */
static void log_recovered(board_service *svc, const recovering *rc, int ended, const char *how)
{
    int open = rc->games - ended;
    if (open || rc->failed)
        board_log(svc, "%s %d unfinished game%s%s", how, open, open == 1 ? "" : "s",
                  rc->failed ? " (some could not be)" : "");
    if (ended)
        board_log(svc, "%s %d ended game%s its players may still rematch", how, ended,
                  ended == 1 ? "" : "s");
}

int board_recover(board_service *svc, char *err, size_t errlen)
{
    recovering rc = {.svc = svc};
    unsigned max_id = 0;
    if (store_recover(svc->store, &recovery_cb, &rc, &max_id) != 0) {
        snprintf(err, errlen, "cannot read the unfinished games: %s",
                 store_last_error(svc->store));
        return -1;
    }
    svc->next_id = max_id;
    log_recovered(svc, &rc, settle(svc, &rc, 0), "recovered");
    return 0;
}

/* Build old's game again from the store, beside it (its people out of the
 * indexes); then let old go and put the new one in its place. The old
 * room's streams end (UNAVAILABLE): agents resubscribe after the last event
 * they saw, which the store holds, since nothing unstored was sent. Its
 * bots' players still run: they come back with their tokens like anyone. */
static int reload(board_service *svc, int index, int64_t now)
{
    recovering rc = {.svc = svc};
    room *old = board_rooms_take(svc, index);      /* out of the way of its id */
    int first = svc->n_rooms;
    int res = store_recover_game(svc->store, room_id(old), &recovery_cb, &rc);
    room *fresh = svc->n_rooms == first + 1 ? svc->rooms[first] : NULL;
    if (res != 0 || !fresh || room_is_damaged(fresh)) {
        board_log_at(svc, LOG_ERR, "game %s: cannot reload it yet: %s", room_id(old),
                     res != 0 ? store_last_error(svc->store) : "its stored log is not whole");
        while (svc->n_rooms > first)
            board_rooms_remove(svc, svc->n_rooms - 1);
        room_reload_later(old, now + RELOAD_RETRY_MS);
        if (board_rooms_add(svc, old) != 0) {
            board_log_at(svc, LOG_ERR,
                         "game %s: out of memory; it is kept in the store only", room_id(old));
            room_close_streams(old, "out of memory");
            room_free(old);
        }
        return -1;
    }
    room_close_streams(old, "the game is being loaded again from its stored log; reconnect");
    room_free(old);
    if (room_index_people(fresh) != 0) {
        board_log_at(svc, LOG_ERR, "game %s: out of memory for its people; it is kept in the store",
                     room_id(fresh));
        board_let_go(svc, fresh, "out of memory");
        return -1;
    }
    room_clock_resume(fresh, board_now_ms());
    board_log_at(svc, LOG_NOTICE,
                 "game %s reloaded from its stored log (%llu events)", room_id(fresh),
                 (unsigned long long)room_last_seq(fresh));
    return 0;
}

room *board_rebuild(board_service *svc, const char *id)
{
    recovering rc = {.svc = svc, .detached = true};
    if (store_recover_game(svc->store, id, &recovery_cb, &rc) != 0 || !rc.current)
        return NULL;
    if (room_is_damaged(rc.current)) {
        room_free(rc.current);
        return NULL;
    }
    return rc.current;
}

/* Is any diverged game due to be reloaded? */
static bool reload_due(const board_service *svc, int64_t now)
{
    for (int i = 0; i < svc->n_rooms; i++) {
        room *r = svc->rooms[i];
        if (room_is_diverged(r) && !room_is_lost(r) && now >= room_reload_after(r))
            return true;
    }
    return false;
}

void board_reload_diverged(board_service *svc, int64_t now)
{
    /* The log may hold a change of ours whose COMMIT was never confirmed
     * (the server restarted inside it, or our cancel ended its wait for the
     * synchronous standby): stored on the primary, perhaps on no standby,
     * and lost if one is promoted. Shown to players, it was seen and then
     * gone, and its sequence number reused. A commit the database confirms
     * comes after it in the primary's log, so once one returns, the standby
     * holds both: only then is the log read and shown. */
    if (svc->store && reload_due(svc, now) && board_cluster_confirm(svc, now) != 0)
        return;
    for (int i = svc->n_rooms - 1; i >= 0 && svc->n_diverged > 0; i--) {
        room *r = svc->rooms[i];
        if (!room_is_diverged(r) || room_is_lost(r) || now < room_reload_after(r))
            continue;
        if (!svc->store) {     /* nothing to reload from (out of memory only) */
            board_let_go(svc, r, "the game could not go on");
            continue;
        }
        if (board_game_here(svc, room_id(r)) == 0) {  /* adopted: the cluster's tick lets it go */
            room_lose(r, ROOM_LOST_ADOPTED);
            continue;
        }
        reload(svc, i, now);
    }
}

int board_adopt(board_service *svc, const char (*ids)[STORE_ID_BYTES], int n, bool own)
{
    recovering rc = {.svc = svc};
    for (int i = 0; i < n; i++) {
        /* A game this node lost and takes back: the log has moved on. */
        room *stale = board_find_room(svc, ids[i]);
        if (stale)
            board_let_go(svc, stale, "the game is being loaded again; reconnect");
    }
    int first = svc->n_rooms;
    for (int i = 0; i < n; i++)
        if (store_recover_game(svc->store, ids[i], &recovery_cb, &rc) != 0)
            board_log_at(svc, LOG_ERR,
                         "cannot adopt game %s: %s", ids[i], store_last_error(svc->store));
    log_recovered(svc, &rc, settle(svc, &rc, first),
                  own ? "recovered" : "adopted from a node that stopped:");
    board_bots_recover(svc, first);
    return rc.failed ? -1 : 0;
}
