/*
 * fuzz_events.c — arbitrary stored event logs, read back from a database as
 * a restarted board service reads them.
 *
 * A stored event is the bytes wire_pack_event made, of some format
 * (WIRE_EVENT_FORMAT), in a row of the store. Recovery, adoption and the
 * reload of a diverged game unpack each (protobuf-c), bring an old format's
 * up to date (wire_legacy.c: wire_upgrade_event), escape unsafe text, take
 * its plain value (wire.c: wire_event_value) and apply it
 * (room_restore_event). A database is written by older services, by hand,
 * or damaged on disk: none of it may crash the service, and a game whose
 * log does not replay must be dropped, never half kept.
 *
 * An input (any byte string is one; reads past the end give zeros):
 *   game     1 byte: the kind (modulo the number of kinds); 1 byte: bit 0
 *            stored as running (else waiting), bit 1 autostart, bits 2-3
 *            the time control (none, 30 s a move, 5+3, 1+0)
 *   people   1 byte: how many participant rows (modulo 5), each 1 byte: its
 *            seat (bits 0-2, 7 meaning an observer), bit 3 ready, bits 4-7
 *            the name's length, then that many name bytes (any bytes)
 *   events   until the input ends (MAX_EVENTS at most), each: 1 byte, bit 0
 *            format 1 (else 2), bits 1-2 the two participant ids it is
 *            private to (0: everyone); 2 bytes its length (little-endian,
 *            modulo MAX_EVENT_BYTES); the stored bytes. Events are numbered
 *            1, 2, ... in order.
 *
 * Checked for every stored event, on its own (check_event):
 *   - bytes protobuf-c takes unpack, upgrade (wire_upgrade_event) and
 *     escape (rpc_message_escape_text) without a crash or a leak; upgrading
 *     a current event changes nothing, and an upgraded one holds none of
 *     format 1's seat fields (sungka.proto's reserved numbers) where
 *     wire_legacy.c looks for them; the escaped message holds strict UTF-8,
 *     and escaping it again changes nothing;
 *   - packed, it unpacks (else it is unusable: see check_event), and
 *     packed again it gives the same bytes;
 *   - wire_event_value accepts it or not the same way before and after that
 *     round trip; a value's seat is -1 or a seat number, its rematch seats
 *     only bits of seats, and its text points into the message.
 * Checked for the whole log, written with the store's own functions into an
 * in-memory SQLite database (":memory:") and recovered by board_recover on
 * a service without a server (recovery.c, as at a restart):
 *   - board_recover succeeds (an unreadable log is a game not recovered,
 *     never a failed start), and keeps at most the one game;
 *   - a game whose log holds an event that does not unpack, has no value,
 *     or does not unpack once packed again is not recovered;
 *   - a recovered game holds every stored event (and the restart's notice
 *     after them), each of which unpacks, holds strict UTF-8 and has a value;
 *     room_check's invariants hold; the replay check (board_check_replay),
 *     which rebuilds it from the store once more, finds no difference
 *     (unless it has clocks its log lacks: see check_recovered); and
 *     the snapshot each of its people would be sent packs and unpacks.
 * FUZZ_LOG=1 in the environment shows the service's log on stderr.
 */
#include <stdbool.h>
#include <string.h>

#include "board_internal.h"
#include "board_rpc.h"
#include "fuzz.h"
#include "games.h"
#include "room_internal.h"
#include "rpc.h"
#include "store.h"
#include "sungka/v1/sungka.pb-c.h"

#define MAX_EVENTS 200           /* stored events per input */
#define MAX_EVENT_BYTES 2048     /* bytes of one stored event */
#define MAX_PEOPLE 4
/* One in-memory store for many inputs: making its schema is most of an
 * input's time. Each input's game is ended and forgotten after it (so that
 * the next recovery does not see it) and the store made anew every
 * REOPEN_EVERY inputs, so its rows stay few. */
#define REOPEN_EVERY 500

/* What the inputs exercised, printed by fuzz_teardown (the replay driver),
 * so a run that checks nothing shows. */
static struct {
    long inputs, events, unpacked, with_value, upgraded, escaped, recovered, dropped,
        replayed_events;
} seen;

/* -------------------------------------------------------- one event alone */

/* m packed, malloc'ed, into *out; its length. */
static size_t packed(const ProtobufCMessage *m, uint8_t **out)
{
    size_t len = protobuf_c_message_get_packed_size(m);
    *out = malloc(len ? len : 1);
    FUZZ_CHECK(*out, "out of memory");
    FUZZ_CHECK(protobuf_c_message_pack(m, *out) == len, "pack wrote another length");
    return len;
}

static Sungka__V1__Event *unpack_event(const uint8_t *data, size_t len)
{
    return (Sungka__V1__Event *)protobuf_c_message_unpack(&sungka__v1__event__descriptor, NULL,
                                                          len, data);
}

static bool points_into(const char *text, const Sungka__V1__Event *ev)
{
    /* A string of the message: one of its bodies' string fields. */
    if (!text)
        return true;
    const char *fields[] = {
        ev->body_case == SUNGKA__V1__EVENT__BODY_PLAYER_OUT ? ev->player_out->reason : NULL,
        ev->body_case == SUNGKA__V1__EVENT__BODY_GAME_OVER ? ev->game_over->reason : NULL,
        ev->body_case == SUNGKA__V1__EVENT__BODY_REMATCH_STARTED ? ev->rematch_started->game_id
                                                                 : NULL,
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (text == fields[i])
            return true;
    return false;
}

static bool has_unknown(const ProtobufCMessage *m, uint32_t tag)
{
    for (unsigned i = 0; m && i < m->n_unknown_fields; i++)
        if (m->unknown_fields[i].tag == tag)
            return true;
    return false;
}

/* The participant a body names first (every body with one holds it in
 * field 1), or NULL. */
static const ProtobufCMessage *who_of(const Sungka__V1__Event *ev)
{
    const Sungka__V1__Participant *who;
    switch (ev->body_case) {
    case SUNGKA__V1__EVENT__BODY_PLAYER_JOINED: who = ev->player_joined->who; break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_LEFT: who = ev->player_left->who; break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_DEPARTED: who = ev->player_departed->who; break;
    case SUNGKA__V1__EVENT__BODY_PLAYER_RETURNED: who = ev->player_returned->who; break;
    case SUNGKA__V1__EVENT__BODY_READY_CHANGED: who = ev->ready_changed->who; break;
    case SUNGKA__V1__EVENT__BODY_SEAT_CHANGED: who = ev->seat_changed->who; break;
    default: who = NULL;
    }
    return who ? &who->base : NULL;
}

/* An upgraded event keeps none of format 1's seats (sungka.proto's reserved
 * field numbers) where they were. */
static void check_upgraded(const Sungka__V1__Event *ev)
{
    const ProtobufCMessage *who = who_of(ev);
    FUZZ_CHECK(!has_unknown(who, 2) && !has_unknown(who, 4),
               "a participant kept a format-1 seat or round trip");
    const Sungka__V1__BoardState *board =
        ev->body_case == SUNGKA__V1__EVENT__BODY_GAME_STARTED ? ev->game_started->board
        : ev->body_case == SUNGKA__V1__EVENT__BODY_MOVE_MADE  ? ev->move_made->board
                                                               : NULL;
    FUZZ_CHECK(!board || !has_unknown(&board->base, 2), "a board kept a format-1 to_move");
    FUZZ_CHECK(ev->body_case != SUNGKA__V1__EVENT__BODY_CHAT || !has_unknown(&ev->chat->base, 2),
               "a chat line kept a format-1 seat");
    FUZZ_CHECK(ev->body_case != SUNGKA__V1__EVENT__BODY_SEAT_CHANGED ||
                   !has_unknown(&ev->seat_changed->base, 2),
               "a seat change kept a format-1 from_seat");
}

/* wire_event_value of ev, its value checked; whether it has one. */
static bool event_value(const Sungka__V1__Event *ev)
{
    room_event value;
    room_clocks clocks;
    if (wire_event_value(ev, &value, &clocks) != 0)
        return false;
    FUZZ_CHECK((unsigned)value.kind < ROOM_EV_COUNT, "kind %d", (int)value.kind);
    FUZZ_CHECK(value.seq == ev->seq, "seq %llu, not %llu", (unsigned long long)value.seq,
               (unsigned long long)ev->seq);
    FUZZ_CHECK(value.seat >= -1 || value.kind == ROOM_EV_MOVED, "seat %d of a %s", value.seat,
               room_event_name(value.kind));
    FUZZ_CHECK(value.seats < (1u << GAME_MAX_SEATS), "rematch seats %#x", value.seats);
    FUZZ_CHECK(points_into(value.text, ev), "a %s's text is not the message's",
               room_event_name(value.kind));
    FUZZ_CHECK(!value.clocks || value.clocks == &clocks, "clocks point elsewhere");
    FUZZ_CHECK(!value.clocks || (clocks.n >= 1 && clocks.n <= GAME_MAX_SEATS), "%d clocks",
               clocks.n);
    return true;
}

/* One stored event through what recovery does to it; whether recovery can
 * use it (it unpacks and has a value). */
static bool check_event(const uint8_t *data, size_t len, unsigned format)
{
    Sungka__V1__Event *ev = unpack_event(data, len);
    if (!ev)
        return false;
    seen.unpacked++;
    uint8_t *before, *after, *again;
    size_t before_len = packed(&ev->base, &before);
    FUZZ_CHECK(wire_upgrade_event(ev, format) == 0, "upgrade failed (out of memory?)");
    size_t after_len = packed(&ev->base, &after);
    bool changed = after_len != before_len || memcmp(before, after, after_len) != 0;
    seen.upgraded += changed;
    FUZZ_CHECK(format != WIRE_EVENT_FORMAT || !changed, "upgrading a current event changed it");
    if (format != WIRE_EVENT_FORMAT)
        check_upgraded(ev);
    free(before);

    int escaped = rpc_message_escape_text(&ev->base);
    FUZZ_CHECK(escaped >= 0, "escape failed (out of memory?)");
    seen.escaped += escaped > 0;
    char where[256];
    FUZZ_CHECK(rpc_message_check_utf8(&ev->base, where, sizeof where) == 0,
               "escaped, %s still is not UTF-8", where);
    FUZZ_CHECK(rpc_message_escape_text(&ev->base) == 0, "escaping twice changed it");
    bool has_value = event_value(ev);

    /* What recovery keeps and serves: the escaped bytes. protobuf-c reads
     * some bytes it never writes (a field numbered 0 in a long tag), and
     * writes them back as bytes it refuses: such an event cannot be served,
     * and recovery must not keep it. */
    free(after);
    after_len = packed(&ev->base, &after);
    Sungka__V1__Event *back = unpack_event(after, after_len);
    protobuf_c_message_free_unpacked(&ev->base, NULL);
    if (!back) {
        free(after);
        return false;
    }
    size_t again_len = packed(&back->base, &again);
    FUZZ_CHECK(again_len == after_len && memcmp(after, again, after_len) == 0,
               "packed, unpacked and packed again it changed (%zu bytes, then %zu)", after_len,
               again_len);
    FUZZ_CHECK(event_value(back) == has_value, "the round trip %s its value",
               has_value ? "lost" : "gained");
    protobuf_c_message_free_unpacked(&back->base, NULL);
    free(after);
    free(again);
    seen.with_value += has_value;
    return has_value;
}

/* ------------------------------------------------------ the log, recovered */

typedef struct stored_game {
    store_game_info info;
    int n_people;
    int seat[MAX_PEOPLE];
    bool ready[MAX_PEOPLE];
    char name[MAX_PEOPLE][16];
} stored_game;

static const struct { int per_move_ms, base_ms, increment_ms; } time_controls[] = {
    {0, 0, 0}, {30000, 0, 0}, {0, 300000, 3000}, {0, 60000, 0},
};

static void read_game(fuzz_in *in, const char *id, stored_game *g)
{
    memset(g, 0, sizeof *g);
    const game_kind *kind = game_kind_at(fuzz_u8(in) % game_kind_count());
    uint8_t flags = fuzz_u8(in);
    store_game_info *i = &g->info;
    snprintf(i->id, sizeof i->id, "%s", id);
    snprintf(i->kind, sizeof i->kind, "%s", kind->name);
    snprintf(i->title, sizeof i->title, "fuzz");
    i->seats = 2;
    i->status = flags & 1 ? STORE_RUNNING : STORE_WAITING;
    i->autostart = flags & 2;
    i->per_move_ms = time_controls[(flags >> 2) & 3].per_move_ms;
    i->base_ms = time_controls[(flags >> 2) & 3].base_ms;
    i->increment_ms = time_controls[(flags >> 2) & 3].increment_ms;
    i->created_ms = 1;
    g->n_people = fuzz_u8(in) % (MAX_PEOPLE + 1);
    for (int p = 0; p < g->n_people; p++) {
        uint8_t b = fuzz_u8(in);
        g->seat[p] = (b & 7) == 7 ? -1 : b & 7;
        g->ready[p] = b & 8;
        size_t n = (size_t)(b >> 4) % sizeof g->name[p];
        for (size_t k = 0; k < n; k++)
            g->name[p][k] = (char)fuzz_u8(in);
        if (!g->name[p][0])
            snprintf(g->name[p], sizeof g->name[p], "p%d", p);
    }
}

/* A service without a server, on store db (tests/board/room_fixture.h's). */
static board_service *service_on(store *db, FILE *log)
{
    board_service *svc = calloc(1, sizeof *svc);
    FUZZ_CHECK(svc, "out of memory");
    board_config_defaults(&svc->cfg);
    svc->cfg.log = getenv("FUZZ_LOG") ? stderr : log;
    svc->store = db;
    FUZZ_CHECK(board_people_init(svc) == 0, "out of memory");
    return svc;
}

static void service_free(board_service *svc)
{
    for (int i = 0; i < svc->n_rooms; i++)
        room_close_streams(svc->rooms[i], "the input is over");
    board_rooms_free(svc);
    board_clients_free(svc);
    room_moves_free(svc);
    board_people_free(svc);
    free(svc);
}

/* Does every event that starts a turn in r's log (GameStarted, MoveMade,
 * PlayerOut) carry the clocks, as the service writes them? */
static bool every_clock_logged(const room *r)
{
    bool all = true;
    for (size_t i = 0; i < r->log_len && all; i++) {
        Sungka__V1__Event *ev = unpack_event(r->log[i].data, r->log[i].len);
        room_event value;
        room_clocks clocks;
        if (ev && wire_event_value(ev, &value, &clocks) == 0 &&
            (value.kind == ROOM_EV_STARTED || value.kind == ROOM_EV_MOVED ||
             value.kind == ROOM_EV_OUT))
            all = value.clocks != NULL && value.clocks->n == game_seats(room_state(r));
        if (ev)
            protobuf_c_message_free_unpacked(&ev->base, NULL);
    }
    return all;
}

/* The recovered game's log: every stored event, then the restart's
 * notice; each serves as recovery kept it. */
static void check_recovered(board_service *svc, size_t n_events)
{
    FUZZ_CHECK(svc->n_rooms == 1, "%d games recovered from one", svc->n_rooms);
    room *r = svc->rooms[0];
    room_check(r);
    FUZZ_CHECK(r->log_len == n_events + 1, "%zu events kept of %zu stored (and a notice)",
               r->log_len, n_events);
    for (size_t i = 0; i < r->log_len; i++) {
        const logged_event *le = &r->log[i];
        FUZZ_CHECK(le->seq == i + 1, "event %zu has seq %llu", i,
                   (unsigned long long)le->seq);
        Sungka__V1__Event *ev = unpack_event(le->data, le->len);
        FUZZ_CHECK(ev, "kept event %llu does not unpack", (unsigned long long)le->seq);
        char where[256];
        FUZZ_CHECK(rpc_message_check_utf8(&ev->base, where, sizeof where) == 0,
                   "kept event %llu: %s is not UTF-8", (unsigned long long)le->seq, where);
        FUZZ_CHECK(event_value(ev), "kept event %llu has no value",
                   (unsigned long long)le->seq);
        protobuf_c_message_free_unpacked(&ev->base, NULL);
    }
    /* A game with clocks whose log lacks them (no service writes one) runs
     * the clock its rules say after a restart, which a rebuild, never
     * resumed, does not: the replay check would report that, rightly. */
    if (!room_has_clocks(r) || every_clock_logged(r))
        FUZZ_CHECK(board_check_replay(svc) == 0, "the replay check found differences");
    int n_people;
    participant *const *people = room_people(r, &n_people, NULL);
    for (int i = 0; i < n_people; i++) {
        size_t len;
        uint8_t *snap = wire_pack_snapshot(r, people[i], &len);
        FUZZ_CHECK(snap, "out of memory");
        Sungka__V1__Event *ev = unpack_event(snap, len);
        FUZZ_CHECK(ev && ev->body_case == SUNGKA__V1__EVENT__BODY_SNAPSHOT,
                   "%s's snapshot does not unpack as one", people[i]->name);
        char where[256];
        FUZZ_CHECK(rpc_message_check_utf8(&ev->base, where, sizeof where) == 0,
                   "%s's snapshot: %s is not UTF-8", people[i]->name, where);
        protobuf_c_message_free_unpacked(&ev->base, NULL);
        free(snap);
    }
    seen.recovered++;
    seen.replayed_events += (long)n_events;
}

static FILE *devnull;
static store *shared_db;
static unsigned inputs_on_db, last_id;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    devnull = fopen("/dev/null", "w");
    FUZZ_CHECK(devnull, "cannot open /dev/null");
    return 0;
}

/* The store for the next input: a fresh one every REOPEN_EVERY inputs. */
static store *next_store(void)
{
    if (shared_db && inputs_on_db < REOPEN_EVERY) {
        inputs_on_db++;
        return shared_db;
    }
    if (shared_db)
        store_close(shared_db);
    char err[512];
    FUZZ_CHECK(store_open(":memory:", &shared_db, err, sizeof err) == 0, "store_open: %s", err);
    inputs_on_db = 1;
    return shared_db;
}

/* Out of the next recovery's sight: ended (recovery reads every game still
 * waiting or running) and its participants forgotten. */
static void put_away(store *s, const char *id)
{
    const char *names[2] = {"", ""};
    int64_t accounts[2] = {0, 0};
    int scores[2] = {0, 0};
    FUZZ_CHECK(store_game_finish(s, id, STORE_ABANDONED, "", 2, names, accounts, scores, NULL,
                                 0, 1) == 0 &&
                   store_game_forget(s, id) == 0,
               "cannot put game %s away: %s", id, store_last_error(s));
}

void fuzz_teardown(void)
{
    printf("%ld logs, %ld events: %ld unpacked, %ld upgraded, %ld escaped, %ld with a value; "
           "%ld games recovered (%ld events), %ld dropped\n",
           seen.inputs, seen.events, seen.unpacked, seen.upgraded, seen.escaped,
           seen.with_value, seen.recovered, seen.replayed_events, seen.dropped);
    if (devnull)
        fclose(devnull);
    devnull = NULL;
    if (shared_db)
        store_close(shared_db);
    shared_db = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull)
        LLVMFuzzerInitialize(NULL, NULL);
    fuzz_in in = {data, size};
    stored_game g;
    char id[16], err[512];
    snprintf(id, sizeof id, "%u", ++last_id);
    read_game(&in, id, &g);
    store *db = next_store();
    FUZZ_CHECK(store_game_create(db, &g.info) == 0, "store_game_create: %s",
               store_last_error(db));
    for (int p = 0; p < g.n_people; p++) {
        char token[BOARD_TOKEN_HEX + 1];
        snprintf(token, sizeof token, "%032x", p + 1);
        /* The store refuses what no service writes (a name it cannot hold). */
        store_participant_put(db, id, (unsigned)p + 1, g.name[p], g.seat[p], token,
                              g.ready[p]);
    }
    size_t n_events = 0;
    bool all_usable = true;
    seen.inputs++;
    while (in.left && n_events < MAX_EVENTS) {
        uint8_t head = fuzz_u8(&in);
        unsigned format = head & 1 ? 1 : WIRE_EVENT_FORMAT;
        unsigned a = (head >> 1) & 1, b = (head >> 2) & 1 ? 2 : 0;
        size_t len = fuzz_u16(&in) % MAX_EVENT_BYTES;
        if (len > in.left)
            len = in.left;
        /* A copy of exactly len bytes, so that ASan sees reads past the end. */
        uint8_t *bytes = malloc(len ? len : 1);
        FUZZ_CHECK(bytes, "out of memory");
        memcpy(bytes, in.p, len);
        in.p += len;
        in.left -= len;
        all_usable &= check_event(bytes, len, format);
        seen.events++;
        n_events++;
        FUZZ_CHECK(store_event_append(db, id, n_events, 1, a, b, format, bytes, len) == 0,
                   "store_event_append: %s", store_last_error(db));
        free(bytes);
    }

    board_service *svc = service_on(db, devnull);
    FUZZ_CHECK(board_recover(svc, err, sizeof err) == 0, "board_recover: %s", err);
    FUZZ_CHECK(svc->n_rooms <= 1, "%d games recovered from one", svc->n_rooms);
    if (svc->n_rooms == 0) {
        seen.dropped++;
    } else {
        FUZZ_CHECK(all_usable, "a game whose log holds an unusable event was recovered");
        check_recovered(svc, n_events);
    }
    service_free(svc);
    put_away(db, id);
    return 0;
}

/* --------------------------------------------------------------- generator */

/* Builds realistic logs: a game whose people join, say ready, start and
 * play legal moves to the end (or not), with chat, notices, offers and
 * departures among them, some stored in format 1, and some bytes damaged. */

typedef struct writer {
    uint8_t *buf;
    size_t cap, len;
} writer;

static void put(writer *w, const void *p, size_t n)
{
    if (w->len + n > w->cap)
        n = w->cap - w->len;
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void put_u8(writer *w, uint8_t v)
{
    put(w, &v, 1);
}

/* A format-1 seat: an int32 in the reserved field `tag` (absent for 0). */
typedef struct old_seat {
    ProtobufCMessageUnknownField field;
    uint8_t varint[10];
} old_seat;

static void set_old_seat(ProtobufCMessage *m, uint32_t tag, int seat, old_seat *box)
{
    if (seat == 0)
        return;
    uint64_t v = (uint64_t)(int64_t)seat;
    size_t n = 0;
    do {
        box->varint[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v && n < sizeof box->varint);
    box->field = (ProtobufCMessageUnknownField){.tag = tag,
                                                .wire_type = PROTOBUF_C_WIRE_TYPE_VARINT,
                                                .len = n, .data = box->varint};
    m->n_unknown_fields = 1;
    m->unknown_fields = &box->field;
}

/* One event of the log, packed into w with its header; damaged (a changed
 * byte, or cut short) when asked. */
static void put_event(writer *w, fuzz_rng *rng, Sungka__V1__Event *ev, bool old, uint64_t seq,
                      bool damage)
{
    uint8_t bytes[MAX_EVENT_BYTES];
    ev->seq = seq;
    ev->time_ms = (int64_t)(1700000000000ull + seq * 1000);
    size_t len = protobuf_c_message_get_packed_size(&ev->base);
    if (len > sizeof bytes)
        return;
    protobuf_c_message_pack(&ev->base, bytes);
    if (damage && len && fuzz_rng_below(rng, 4) != 0)
        bytes[fuzz_rng_below(rng, (uint32_t)len)] ^= (uint8_t)(1 + fuzz_rng_below(rng, 255));
    else if (damage && len)                             /* a torn write */
        len = fuzz_rng_below(rng, (uint32_t)len);
    uint8_t head = (uint8_t)((old ? 1 : 0) | (fuzz_rng_below(rng, 16) == 0 ? 2 : 0));
    put_u8(w, head);
    put_u8(w, (uint8_t)(len & 0xff));
    put_u8(w, (uint8_t)(len >> 8));
    put(w, bytes, len);
}

size_t fuzz_generate(fuzz_rng *rng, uint8_t *buf, size_t cap)
{
    writer w = {buf, cap, 0};
    int k = (int)fuzz_rng_below(rng, (uint32_t)game_kind_count());
    const game_kind *kind = game_kind_at(k);
    game_state st;
    if (game_new(&st, kind, NULL, NULL, 0) != GAME_OK)
        return 0;
    int seats = game_seats(&st);
    bool running = fuzz_rng_below(rng, 2);
    put_u8(&w, (uint8_t)k);
    put_u8(&w, (uint8_t)((running ? 1 : 0) | fuzz_rng_below(rng, 8) << 1));
    int n_people = seats < MAX_PEOPLE ? seats : MAX_PEOPLE;
    n_people += n_people < MAX_PEOPLE && fuzz_rng_below(rng, 3) == 0;   /* an observer */
    put_u8(&w, (uint8_t)n_people);
    static const char *names[] = {"ana", "ben", "cy", "dee", "\xc3\xa9lo", "x\x1b[2J", "\xff"};
    char name[MAX_PEOPLE][8];
    for (int p = 0; p < n_people; p++) {
        snprintf(name[p], sizeof name[p], "%s",
                 names[fuzz_rng_below(rng, sizeof names / sizeof names[0])]);
        size_t n = strlen(name[p]);
        int seat = p < seats ? p : 7;
        put_u8(&w, (uint8_t)(seat | 8 | (int)n << 4));
        put(&w, name[p], n);
    }

    uint64_t seq = 0;
    bool started = false, ended = false;
    int events = 1 + (int)fuzz_rng_below(rng, 60);
    /* One log in three is damaged at one event (which a move may be, played
     * out of turn or not at all). */
    int damaged = fuzz_rng_below(rng, 3) == 0 ? (int)fuzz_rng_below(rng, (uint32_t)events) : -1;
    for (int e = 0; e < events && w.len < w.cap; e++) {
        Sungka__V1__Event ev = SUNGKA__V1__EVENT__INIT;
        Sungka__V1__Participant who = SUNGKA__V1__PARTICIPANT__INIT;
        Sungka__V1__SeatNumber seat_box = SUNGKA__V1__SEAT_NUMBER__INIT;
        Sungka__V1__PlayerJoined joined = SUNGKA__V1__PLAYER_JOINED__INIT;
        Sungka__V1__ReadyChanged ready = SUNGKA__V1__READY_CHANGED__INIT;
        Sungka__V1__ChatMessage chat = SUNGKA__V1__CHAT_MESSAGE__INIT;
        Sungka__V1__Notice notice = SUNGKA__V1__NOTICE__INIT;
        Sungka__V1__GameStarted start = SUNGKA__V1__GAME_STARTED__INIT;
        Sungka__V1__MoveMade made = SUNGKA__V1__MOVE_MADE__INIT;
        Sungka__V1__DrawOffered offered = SUNGKA__V1__DRAW_OFFERED__INIT;
        Sungka__V1__GameOver over = SUNGKA__V1__GAME_OVER__INIT;
        old_seat old_box;
        bool old = fuzz_rng_below(rng, 4) == 0;
        int p = (int)fuzz_rng_below(rng, (uint32_t)(n_people ? n_people : 1));
        int p_seat = p < seats ? p : -1;
        who.name = n_people ? name[p] : (char *)"";
        if (old) {
            set_old_seat(&who.base, 2, p_seat, &old_box);
        } else if (p_seat >= 0) {
            seat_box.value = p_seat;
            who.seat = &seat_box;
        }
        int moves[GAME_MAX_MOVES];
        int n_moves = started ? game_legal_moves(&st, moves, GAME_MAX_MOVES) : 0;
        uint32_t what = fuzz_rng_below(rng, 16);
        if (ended) {
            /* chat only, below */
        } else if (!started && (e >= n_people * 2 || what == 0) && !running) {
            start.first = game_to_move(&st);
            ev.body_case = SUNGKA__V1__EVENT__BODY_GAME_STARTED;
            ev.game_started = &start;
            started = true;
        } else if (!started && e < n_people) {
            joined.who = &who;
            ev.body_case = SUNGKA__V1__EVENT__BODY_PLAYER_JOINED;
            ev.player_joined = &joined;
        } else if (!started && what < 8) {
            who.ready = true;
            ready.who = &who;
            ev.body_case = SUNGKA__V1__EVENT__BODY_READY_CHANGED;
            ev.ready_changed = &ready;
        } else if (n_moves && what < 12) {
            int mover = game_to_move(&st);
            int move = moves[fuzz_rng_below(rng, (uint32_t)n_moves)];
            if (e == damaged && fuzz_rng_below(rng, 2) == 0)
                move = (int)fuzz_rng_next(rng);          /* not the mover's, or no move */
            made.seat = mover;
            made.move = move;
            game_play(&st, mover, move, NULL, NULL, 0);
            ev.body_case = SUNGKA__V1__EVENT__BODY_MOVE_MADE;
            ev.move_made = &made;
        } else if (what == 12 && started && p_seat >= 0 && !old) {
            offered.who = &who;
            ev.body_case = SUNGKA__V1__EVENT__BODY_DRAW_OFFERED;
            ev.draw_offered = &offered;
        } else if (what == 13 && (started || running)) {
            over.reason = (char *)(fuzz_rng_below(rng, 2) ? "a draw was agreed" : "\xe2\x80\xae");
            over.abandoned = fuzz_rng_below(rng, 2);
            ev.body_case = SUNGKA__V1__EVENT__BODY_GAME_OVER;
            ev.game_over = &over;
            ended = true;                                /* nothing after but chat */
        } else if (what == 14) {
            notice.text = (char *)"the board service restarted";
            ev.body_case = SUNGKA__V1__EVENT__BODY_NOTICE;
            ev.notice = &notice;
        }
        if (!ev.body_case) {                             /* chat, and what could not be */
            chat.from = who.name;
            if (old)
                set_old_seat(&chat.base, 2, p_seat, &old_box);
            else
                chat.seat = who.seat;
            chat.text = (char *)(fuzz_rng_below(rng, 3) ? "good game" : "\x01\xc0\xaf bad");
            ev.body_case = SUNGKA__V1__EVENT__BODY_CHAT;
            ev.chat = &chat;
        }
        put_event(&w, rng, &ev, old, ++seq, e == damaged);
    }
    return w.len;
}
