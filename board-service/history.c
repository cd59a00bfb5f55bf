/*
 * history.c — the Register calls that read the store: one player's
 * statistics, the leaderboard, the list of past matches and one match with
 * every move (for replay). Runs on the event-loop thread like the rest.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_rpc.h"
#include "placement.h"

/* A caller's string that the store would refuse: the caller's mistake, so
 * INVALID_ARGUMENT with a sentence, not an INTERNAL fault of the service. */
static bool fits(rpc_call *call, const char *what, const char *value, size_t max, bool may_be_empty)
{
    size_t len = strlen(value);
    if ((len || may_be_empty) && len <= max)
        return true;
    char err[96];
    if (!len)
        snprintf(err, sizeof err, "give a %s", what);
    else
        snprintf(err, sizeof err, "a %s is at most %zu bytes, not %zu", what, max, len);
    board_fail(call, RPC_INVALID_ARGUMENT, err);
    return false;
}

static bool have_store(board_service *svc, rpc_call *call)
{
    if (svc->store)
        return true;
    board_fail(call, RPC_FAILED_PRECONDITION, "this board service keeps no history");
    return false;
}

/* The most kinds one player is shown rated in (more than the kinds there are). */
#define HISTORY_MAX_KINDS 16

/* A PlayerStats' ratings; their arrays live here. */
typedef struct ratings_space {
    Sungka__V1__KindRating kinds[HISTORY_MAX_KINDS];
    Sungka__V1__KindRating *kind_ptrs[HISTORY_MAX_KINDS];
    Sungka__V1__Rating ratings[HISTORY_MAX_KINDS];
} ratings_space;

static void ratings_to_wire(const store_rating *r, int n, ratings_space *sp,
                            Sungka__V1__PlayerStats *out)
{
    for (int i = 0; i < n; i++) {
        sungka__v1__kind_rating__init(&sp->kinds[i]);
        sp->kinds[i].kind = (char *)r[i].kind;
        wire_rating(&r[i], &sp->ratings[i]);
        sp->kinds[i].rating = &sp->ratings[i];
        sp->kinds[i].updated_ms = r[i].updated_ms;
        sp->kind_ptrs[i] = &sp->kinds[i];
    }
    out->n_ratings = (size_t)n;
    out->ratings = sp->kind_ptrs;
}

static void stats_to_wire(const store_stats *st, Sungka__V1__PlayerStats *out)
{
    sungka__v1__player_stats__init(out);
    out->name = (char *)st->name;
    out->played = st->played;
    out->wins = st->wins;
    out->losses = st->losses;
    out->draws = st->draws;
    out->streak = st->streak;
    out->best_streak = st->best_streak;
    out->guest = st->account_id == 0;
}

void history_player_stats(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__GetPlayerStatsRequest *req = (const void *)request;
    if (!have_store(svc, call))
        return;
    if (!req->name[0] || strlen(req->name) > BOARD_NAME_BYTES - 1) {
        board_fail(call, RPC_INVALID_ARGUMENT, "give a player's name (1..32 characters)");
        return;
    }
    store_stats st;
    char name[BOARD_NAME_BYTES];
    board_stats_name(svc, req->name, name, sizeof name);
    if (store_player_stats(svc->store, name, &st) != 0) {
        board_fail(call, RPC_INTERNAL, store_last_error(svc->store));
        return;
    }
    Sungka__V1__PlayerStats reply;
    stats_to_wire(&st, &reply);
    store_rating ratings[HISTORY_MAX_KINDS];
    ratings_space sp;
    int n = 0;
    if (st.account_id > 0 &&
        store_ratings_of(svc->store, st.account_id, ratings, HISTORY_MAX_KINDS, &n) != 0) {
        board_fail(call, RPC_INTERNAL, store_last_error(svc->store));
        return;
    }
    ratings_to_wire(ratings, n, &sp, &reply);
    rpc_call_reply(call, &reply.base);
}

/* The most players a page of a leaderboard holds. */
#define LEADERBOARD_PAGE_MAX 100

/* The leaderboard of one kind, by rating; its page tokens are the kind's
 * own ("rating:KIND"), so one kind's cannot go on another's. */
static void rating_leaderboard(board_service *svc, rpc_call *call, const char *kind, int limit,
                               const char *token)
{
    char echo[48], err[256], list[48];
    if (!game_kind_find(kind)) {
        snprintf(err, sizeof err, "unknown game kind '%s'", board_echo(kind, echo, sizeof echo));
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    snprintf(list, sizeof list, "rating:%s", kind);
    store_page_key after;
    if (board_page_key(list, token, &after, err, sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    /* one more than the page: whether there is a next one */
    store_rated_player rows[LEADERBOARD_PAGE_MAX + 1];
    store_stats stats[LEADERBOARD_PAGE_MAX];
    ratings_space space[LEADERBOARD_PAGE_MAX];
    Sungka__V1__PlayerStats wire[LEADERBOARD_PAGE_MAX], *ptrs[LEADERBOARD_PAGE_MAX];
    int n = 0;
    if (store_rating_leaderboard(svc->store, kind, PLACEMENT_PROVISIONAL_RD, limit + 1, &after,
                                 rows, &n)) {
        board_fail(call, RPC_INTERNAL, store_last_error(svc->store));
        return;
    }
    char next[BOARD_PAGE_TOKEN_BYTES] = "";
    if (n > limit) {
        n = limit;
        const store_rated_player *last = &rows[n - 1];
        store_page_key k = {.set = true, .a = last->rating.rd > PLACEMENT_PROVISIONAL_RD,
                            .x = last->rating.rating};
        snprintf(k.text, sizeof k.text, "%s", last->name);
        board_page_token(list, &k, next, sizeof next);
    }
    for (int i = 0; i < n; i++) {
        if (store_player_stats(svc->store, rows[i].name, &stats[i]) != 0) {
            board_fail(call, RPC_INTERNAL, store_last_error(svc->store));
            return;
        }
        stats_to_wire(&stats[i], &wire[i]);
        wire[i].guest = false;
        ratings_to_wire(&rows[i].rating, 1, &space[i], &wire[i]);
        ptrs[i] = &wire[i];
    }
    Sungka__V1__LeaderboardResponse reply = SUNGKA__V1__LEADERBOARD_RESPONSE__INIT;
    reply.n_players = (size_t)n;
    reply.players = ptrs;
    reply.next_page_token = next;
    rpc_call_reply(call, &reply.base);
}

void history_leaderboard(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__LeaderboardRequest *req = (const void *)request;
    if (!have_store(svc, call))
        return;
    int limit;
    char err[256];
    if (board_page_size(req->page_size, req->limit <= LEADERBOARD_PAGE_MAX ? req->limit : 0, 10,
                        LEADERBOARD_PAGE_MAX, &limit, err, sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    if (req->kind[0]) {
        rating_leaderboard(svc, call, req->kind, limit, req->page_token);
        return;
    }
    store_page_key after;
    if (board_page_key("players", req->page_token, &after, err, sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    store_stats rows[LEADERBOARD_PAGE_MAX + 1];
    Sungka__V1__PlayerStats wire[LEADERBOARD_PAGE_MAX], *ptrs[LEADERBOARD_PAGE_MAX];
    int n = 0;
    if (store_leaderboard(svc->store, limit + 1, &after, rows, &n) != 0) {
        board_fail(call, RPC_INTERNAL, store_last_error(svc->store));
        return;
    }
    char next[BOARD_PAGE_TOKEN_BYTES] = "";
    if (n > limit) {
        n = limit;
        store_page_key k = {.set = true, .a = rows[n - 1].wins, .b = rows[n - 1].best_streak};
        snprintf(k.text, sizeof k.text, "%s", rows[n - 1].name);
        board_page_token("players", &k, next, sizeof next);
    }
    for (int i = 0; i < n; i++) {
        stats_to_wire(&rows[i], &wire[i]);
        ptrs[i] = &wire[i];
    }
    Sungka__V1__LeaderboardResponse reply = SUNGKA__V1__LEADERBOARD_RESPONSE__INIT;
    reply.n_players = (size_t)n;
    reply.players = ptrs;
    reply.next_page_token = next;
    rpc_call_reply(call, &reply.base);
}

/* Fill a MatchSummary; its arrays live in `space` (freed by summary_clear). */
typedef struct summary_space {
    Sungka__V1__GameOption options[STORE_MAX_OPTIONS];
    Sungka__V1__GameOption *option_ptrs[STORE_MAX_OPTIONS];
    char *seats[STORE_MAX_SEATS];
    int32_t scores[STORE_MAX_SEATS];
    int32_t winners[STORE_MAX_SEATS];
} summary_space;

static void summary_to_wire(board_service *svc, const store_match_summary *m,
                            summary_space *sp, Sungka__V1__MatchSummary *out)
{
    sungka__v1__match_summary__init(out);
    out->tournament_id = (char *)m->game.tournament_id;
    out->tournament_title = (char *)board_tournament_title(svc, m->game.tournament_id);
    out->game_id = (char *)m->game.id;
    out->kind = (char *)m->game.kind;
    out->title = (char *)m->game.title;
    out->status = (Sungka__V1__GameStatus)m->game.status;
    out->reason = (char *)m->game.reason;
    out->started_ms = m->game.started_ms;
    out->ended_ms = m->game.ended_ms;
    out->moves = m->n_moves;
    for (int i = 0; i < m->game.n_options; i++) {
        sungka__v1__game_option__init(&sp->options[i]);
        sp->options[i].name = (char *)m->game.options[i].name;
        sp->options[i].value = m->game.options[i].value;
        sp->option_ptrs[i] = &sp->options[i];
    }
    out->n_options = (size_t)m->game.n_options;
    out->options = sp->option_ptrs;
    for (int i = 0; i < m->n_seats; i++) {
        sp->seats[i] = (char *)m->seat_names[i];
        sp->scores[i] = m->scores[i];
    }
    out->n_seats = out->n_scores = (size_t)m->n_seats;
    out->seats = sp->seats;
    out->scores = sp->scores;
    for (int i = 0; i < m->n_winners; i++)
        sp->winners[i] = m->winners[i];
    out->n_winners = (size_t)m->n_winners;
    out->winners = sp->winners;
}

void history_list_matches(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__ListMatchesRequest *req = (const void *)request;
    if (!have_store(svc, call) ||
        !fits(call, "player name", req->player, STORE_NAME_BYTES - 1, true) ||
        !fits(call, "game kind", req->kind, STORE_KIND_BYTES - 1, true))
        return;
    int limit;
    char err[256];
    store_page_key after;
    if (board_page_size(req->page_size, req->limit <= 200 ? req->limit : 0, 20, 200, &limit, err,
                        sizeof err) != 0 ||
        board_page_key("matches", req->page_token, &after, err, sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    store_match_summary *rows = NULL;
    int n = 0;
    char player[BOARD_NAME_BYTES];
    board_stats_name(svc, req->player, player, sizeof player);
    /* one more than the page: whether there is a next one */
    if (store_matches(svc->store, req->player[0] ? player : NULL,
                      req->kind[0] ? req->kind : NULL, limit + 1, &after, &rows, &n) != 0) {
        board_fail(call, RPC_INTERNAL, store_last_error(svc->store));
        return;
    }
    char next[BOARD_PAGE_TOKEN_BYTES] = "";
    if (n > limit) {
        n = limit;
        store_page_key k = {.set = true, .a = rows[n - 1].game.ended_ms, .b = rows[n - 1].order};
        board_page_token("matches", &k, next, sizeof next);
    }
    summary_space *space = calloc((size_t)n + 1, sizeof *space);
    Sungka__V1__MatchSummary *wire = calloc((size_t)n + 1, sizeof *wire);
    Sungka__V1__MatchSummary **ptrs = calloc((size_t)n + 1, sizeof *ptrs);
    if (!space || !wire || !ptrs) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
    } else {
        for (int i = 0; i < n; i++) {
            summary_to_wire(svc, &rows[i], &space[i], &wire[i]);
            ptrs[i] = &wire[i];
        }
        Sungka__V1__ListMatchesResponse reply = SUNGKA__V1__LIST_MATCHES_RESPONSE__INIT;
        reply.n_matches = (size_t)n;
        reply.matches = ptrs;
        reply.next_page_token = next;
        rpc_call_reply(call, &reply.base);
    }
    free(space);
    free(wire);
    free(ptrs);
    free(rows);
}

void history_get_match(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__GetMatchRequest *req = (const void *)request;
    if (!have_store(svc, call) || !fits(call, "match id", req->game_id, STORE_ID_BYTES - 1, false))
        return;
    store_match_summary m;
    store_move *moves = NULL;
    int n = 0;
    int rc = store_match(svc->store, req->game_id, &m, &moves, &n);
    if (rc != 0) {
        char err[96];
        char echo[48];
        snprintf(err, sizeof err, "there is no match '%s'",
                 board_echo(req->game_id, echo, sizeof echo));
        board_fail(call, rc == STORE_NOT_FOUND ? RPC_NOT_FOUND : RPC_INTERNAL,
                        rc == STORE_NOT_FOUND ? err : store_last_error(svc->store));
        return;
    }
    /* A game not ended has no rows in `moves` yet (or only those 0.x wrote
     * per move): its moves are its log's. */
    if (m.game.status < STORE_FINISHED) {
        free(moves);
        char err[256];
        if (board_match_moves(svc->store, req->game_id, &moves, &n, err, sizeof err) != 0) {
            board_fail(call, RPC_INTERNAL, err);
            return;
        }
        m.n_moves = n;
    }
    /* A game not yet over has no seats or result stored: its seats as they
     * are here (a cluster's other node's: none), and "unfinished", so that
     * an export of it says what it is (docs/rules.md, "Transcripts"). */
    if (m.n_seats == 0 && (m.game.status == STORE_WAITING || m.game.status == STORE_RUNNING)) {
        const room *r = board_find_room(svc, m.game.id);
        int seats = r ? game_seats(room_state(r)) : 0;
        for (int s = 0; s < seats && s < STORE_MAX_SEATS; s++)
            snprintf(m.seat_names[s], sizeof m.seat_names[s], "%s", room_seat_name(r, s));
        m.n_seats = seats < STORE_MAX_SEATS ? seats : STORE_MAX_SEATS;
        snprintf(m.game.reason, sizeof m.game.reason, "unfinished");
    }
    summary_space space;
    Sungka__V1__MatchSummary summary;
    summary_to_wire(svc, &m, &space, &summary);
    Sungka__V1__MatchMove *wire = calloc((size_t)n + 1, sizeof *wire);
    Sungka__V1__MatchMove **ptrs = calloc((size_t)n + 1, sizeof *ptrs);
    if (!wire || !ptrs) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
    } else {
        for (int i = 0; i < n; i++) {
            sungka__v1__match_move__init(&wire[i]);
            wire[i].seat = moves[i].seat;
            wire[i].move = moves[i].move;
            wire[i].time_ms = moves[i].time_ms;
            ptrs[i] = &wire[i];
        }
        Sungka__V1__Match reply = SUNGKA__V1__MATCH__INIT;
        reply.summary = &summary;
        reply.n_moves = (size_t)n;
        reply.moves = ptrs;
        rpc_call_reply(call, &reply.base);
    }
    free(wire);
    free(ptrs);
    free(moves);
}

void history_rating_history(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__RatingHistoryRequest *req = (const void *)request;
    if (!have_store(svc, call))
        return;
    if (!req->name[0] || strlen(req->name) > BOARD_NAME_BYTES - 1) {
        board_fail(call, RPC_INVALID_ARGUMENT, "give an account's name (1..32 characters)");
        return;
    }
    char echo[48], err[256];
    if (req->kind[0] && !game_kind_find(req->kind)) {
        snprintf(err, sizeof err, "unknown game kind '%s'",
                 board_echo(req->kind, echo, sizeof echo));
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    if (req->limit < 0 || req->limit > 1000) {
        board_fail(call, RPC_INVALID_ARGUMENT, "limit is 0 (the default, 50) to 1000");
        return;
    }
    int limit;
    store_page_key before;
    if (board_page_size(req->page_size, req->limit, 50, 1000, &limit, err, sizeof err) != 0 ||
        board_page_key("history", req->page_token, &before, err, sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return;
    }
    store_account acct;
    if (board_find_account(svc, req->name, &acct) != 0) {
        snprintf(err, sizeof err, "nobody has an account called '%s'",
                 board_echo(req->name, echo, sizeof echo));
        board_fail(call, RPC_NOT_FOUND, err);
        return;
    }
    store_rating_point *points = NULL;
    int n = 0;
    /* One more than the page, oldest first: when it came, the oldest is the
     * next page's, and the page goes back to the one after it. */
    if (store_rating_history(svc->store, acct.id, req->kind[0] ? req->kind : NULL, limit + 1,
                             &before, &points, &n) != 0) {
        board_fail(call, RPC_INTERNAL, store_last_error(svc->store));
        return;
    }
    char next[BOARD_PAGE_TOKEN_BYTES] = "";
    store_rating_point *page = points;
    if (n > limit) {
        page = points + 1;
        n = limit;
        store_page_key k = {.set = true, .a = page[0].ended_ms};
        snprintf(k.text, sizeof k.text, "%s", page[0].game_id);
        board_page_token("history", &k, next, sizeof next);
    }
    Sungka__V1__RatingPoint *wire = calloc((size_t)n + 1, sizeof *wire);
    Sungka__V1__RatingPoint **ptrs = calloc((size_t)n + 1, sizeof *ptrs);
    Sungka__V1__Rating *ratings = calloc((size_t)n + 1, sizeof *ratings);
    if (!wire || !ptrs || !ratings) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
    } else {
        for (int i = 0; i < n; i++) {
            sungka__v1__rating_point__init(&wire[i]);
            wire[i].kind = page[i].kind;
            wire[i].game_id = page[i].game_id;
            wire[i].ended_ms = page[i].ended_ms;
            wire[i].before = (int32_t)lround(page[i].rating_before);
            store_rating r = {.rating = page[i].rating, .rd = page[i].rd,
                              .volatility = page[i].volatility};
            wire_rating(&r, &ratings[i]);
            ratings[i].games = 0;     /* not kept per point */
            wire[i].rating = &ratings[i];
            ptrs[i] = &wire[i];
        }
        Sungka__V1__RatingHistoryResponse reply = SUNGKA__V1__RATING_HISTORY_RESPONSE__INIT;
        reply.name = acct.name;
        reply.n_points = (size_t)n;
        reply.points = ptrs;
        reply.next_page_token = next;
        rpc_call_reply(call, &reply.base);
    }
    free(ratings);
    free(ptrs);
    free(wire);
    free(points);
}
