/*
 * room_fixture.h — what the room's tests share: a room made as CreateGame
 * makes one, and a service without a server to hold it. Include after
 * cmocka.h and room_internal.h.
 */
#ifndef SUNGKA_ROOM_FIXTURE_H
#define SUNGKA_ROOM_FIXTURE_H

/* A room as CreateGame makes one, with nothing but its kind and options. */
static inline room *make_room(board_service *svc, const char *id, const game_kind *kind,
                              const game_options *opts, const char *title)
{
    room_settings s = {.id = id, .kind = kind, .opts = opts, .title = title};
    room *r = NULL;
    char err[256];
    if (room_create(svc, &s, &r, err, sizeof err) != ROOM_OK)
        fail_msg("room_create: %s", err);
    return r;
}


/* A service without a server: io stands in for its calls (all NULL when the
 * test sends nothing), db its store (NULL: none). */
static inline board_service *fixture_service(store *db, room_io io)
{
    board_service *svc = calloc(1, sizeof *svc);
    assert_non_null(svc);
    board_config_defaults(&svc->cfg);
    svc->cfg.log = fopen("/dev/null", "w");
    svc->io = io;
    svc->store = db;
    assert_int_equal(board_people_init(svc), 0);
    return svc;
}

/* Free it and its games (their streams are ended first, while the test's
 * recorders still exist); not its store. */
static inline void fixture_service_free(board_service *svc)
{
    for (int i = 0; i < svc->n_rooms; i++)
        room_close_streams(svc->rooms[i], "the test is over");
    board_rooms_free(svc);
    room_moves_free(svc);
    board_clients_free(svc);
    board_people_free(svc);
    fclose(svc->cfg.log);
    free(svc);
}

/* A Move call's recorder: how the room answered it (room_io.move_done). */
typedef struct fake_reply {
    bool done;
    room_rc rc;
    uint64_t seq;
} fake_reply;

static inline void rec_move_done(void *reply, room_rc rc, uint64_t seq, const char *why)
{
    (void)why;
    fake_reply *r = reply;
    assert_false(r->done);
    r->done = true;
    r->rc = rc;
    r->seq = seq;
}

#endif /* SUNGKA_ROOM_FIXTURE_H */
