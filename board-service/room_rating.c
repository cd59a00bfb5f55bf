/*
 * room_rating.c — rated games (docs/rules.md, §13 "Ratings"): who may take a
 * seat in one, the accounts its seats are rated for, each seat's place at
 * the end, and the players' new ratings, computed before the GameOver event
 * (which carries them) and stored with the game's result. Loop thread only.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "placement.h"
#include "room_internal.h"

_Static_assert(STORE_MAX_SEATS == GAME_MAX_SEATS, "a rated game's seats are stored whole");
_Static_assert(BOARD_HOST_BYTES <= STORE_HOST_BYTES, "a player's client address is stored whole");

room_rc room__set_rated(room *r, char *err, size_t errlen)
{
    if (r->status != ROOM_WAITING || r->n_people > 0) {
        snprintf(err, errlen, "a game is rated from its creation only");
        return ROOM_E_STATE;
    }
    r->rated = true;
    return ROOM_OK;
}

room_rc room__may_play_rated(const room *r, int64_t account_id, char *err, size_t errlen)
{
    if (!r->rated || account_id > 0)
        return ROOM_OK;
    snprintf(err, errlen, "game %s is rated: sign in to play it (guests may watch)", r->id);
    return ROOM_E_DENIED;
}

/* The account's rating in the room's kind, as the store has it; a newcomer
 * has none until a rated game. */
void room_load_rating(room *r, participant *p)
{
    p->has_rating = false;
    if (p->account_id <= 0 || !r->svc->store)
        return;
    int rc = store_rating_get(r->svc->store, p->account_id, r->kind->name, &p->rating);
    if (rc == 0) {
        p->has_rating = true;
    } else if (rc == STORE_NOT_FOUND) {
        p->rating.rating = GLICKO2_NEWCOMER.rating;
        p->rating.rd = GLICKO2_NEWCOMER.rd;
        p->rating.volatility = GLICKO2_NEWCOMER.volatility;
        p->has_rating = true;
    } else {
        board_log_at(r->svc, LOG_ERR, "game %s: cannot read %s's rating: %s", r->id, p->name,
                     store_last_error(r->svc->store));
    }
}

#define PAIR_WINDOW_MS (24 * 3600 * 1000LL)

static void unrated(room_unrated *why, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void unrated(room_unrated *why, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    why->code = code;
    vsnprintf(why->text, sizeof why->text, fmt, ap);
    va_end(ap);
}

/* Two seats taken from one client address: one person may hold both, and
 * rate one account up by losing with the other (the farming of issue 3/8). */
static bool same_address(const room *r, int seats, room_unrated *why)
{
    for (int a = 0; a < seats; a++)
        for (int b = a + 1; b < seats; b++) {
            const participant *pa = r->seat_holder[a], *pb = r->seat_holder[b];
            if (pa && pb && pa->host[0] && strcmp(pa->host, pb->host) == 0) {
                unrated(why, STORE_UNRATED_SAME_ADDRESS,
                        "this game is not rated: %s and %s took their seats from the same "
                        "address", r->seat_name[a], r->seat_name[b]);
                return true;
            }
        }
    return false;
}

/* A pair of accounts past its rated games of the last 24 hours, counted in
 * the store (so across restarts and a cluster's nodes). The window and the
 * started_ms every node writes are on the cluster's shared clock (the
 * database's), so a node whose own clock is off by days counts the same
 * day as the others. -1 when the store could not count them. */
static int pair_limit(const room *r, int seats, room_unrated *why)
{
    int limit = r->svc->cfg.rated_pair_games;
    if (limit <= 0 || !r->svc->store)
        return 0;
    int64_t since = board_shared_now_ms(r->svc) - PAIR_WINDOW_MS;
    for (int a = 0; a < seats; a++)
        for (int b = a + 1; b < seats; b++) {
            int games;
            if (store_rated_pair_games(r->svc->store, r->rated_account[a], r->rated_account[b],
                                       since, r->id, &games) != 0)
                return -1;
            if (games >= limit) {
                unrated(why, STORE_UNRATED_PAIR_LIMIT,
                        "this game is not rated: %s and %s have played %d rated game%s "
                        "together in the last 24 hours, the most there may be", r->seat_name[a],
                        r->seat_name[b], games, games == 1 ? "" : "s");
                return 1;
            }
        }
    return 0;
}

void room__rated_start(room *r, room_unrated *why)
{
    memset(why, 0, sizeof *why);
    if (!r->rated)
        return;
    int seats = game_seats(&r->state);
    for (int s = 0; s < seats; s++)
        r->rated_account[s] = r->seat_holder[s] ? r->seat_holder[s]->account_id : 0;
    store *db = room__store(r);
    if (!db)
        return;
    bool one_address = !r->svc->cfg.rated_same_address && same_address(r, seats, why);
    int res = store_game_rated_seats(db, r->id, seats, r->rated_account);
    if (res == 0 && !one_address)
        res = pair_limit(r, seats, why) < 0 ? -1 : 0;
    if (res == 0 && why->code)
        res = store_game_unrated(db, r->id, why->code);
    if (res != 0) {
        board_log_at(r->svc, LOG_ERR,
                     "game %s: cannot keep its rated seats or whether they count: %s", r->id,
                     store_last_error(db));
        room__write_failed(r);
        return;
    }
    if (why->code)
        board_log(r->svc, "game %s: %s", r->id, why->text);
}

/* Is seat a placed above seat b? Seats still in the game at its end above
 * those out of it; among those in, the winners, then the higher score;
 * among those out, who stayed in longer. */
static bool placed_above(const room *r, const bool *won, const int *scores, int a, int b)
{
    bool a_in = r->out_at[a] == 0, b_in = r->out_at[b] == 0;
    if (a_in != b_in)
        return a_in;
    if (!a_in)
        return r->out_at[a] > r->out_at[b];
    if (won[a] != won[b])
        return won[a];
    return !won[a] && scores[a] > scores[b];
}

void room__placements(const room *r, int n_winners, const int *winners, int *place)
{
    int seats = game_seats(&r->state);
    bool won[GAME_MAX_SEATS] = {false};
    for (int i = 0; i < n_winners; i++)
        won[winners[i]] = true;
    int scores[GAME_MAX_SEATS];
    game_scores(&r->state, scores);
    /* A draw among those still in (n_winners 0): none is above another. */
    if (n_winners == 0)
        memset(scores, 0, sizeof scores);
    for (int a = 0; a < seats; a++) {
        place[a] = 1;
        for (int b = 0; b < seats; b++)
            place[a] += b != a && placed_above(r, won, scores, b, a);
    }
}

/* A game in which a player made fewer than --rated-min-moves moves: a
 * result of one move each says nothing of strength (Lichess does not rate
 * a game its players did not play). */
static bool too_short(const room *r, int seats, room_unrated *why)
{
    int least = r->svc->cfg.rated_min_moves;
    for (int s = 0; s < seats; s++)
        if (r->seat_moves[s] < least) {
            unrated(why, STORE_UNRATED_TOO_SHORT,
                    "this game is not rated: it was too short (%s made %d move%s; a rated "
                    "game counts once each player has made %d)", r->seat_name[s],
                    r->seat_moves[s], r->seat_moves[s] == 1 ? "" : "s", least);
            return true;
        }
    return false;
}

int room__rate(room *r, bool abandoned, int n_winners, const int *winners,
               room_rating_change *out, room_unrated *why)
{
    memset(why, 0, sizeof *why);
    if (!r->rated || abandoned || !r->svc->store)
        return 0;
    int seats = game_seats(&r->state);
    if (r->unrated[0]) {
        /* Decided at its start (STARTED said so); stored then. */
        snprintf(why->text, sizeof why->text, "%s", r->unrated);
        return 0;
    }
    if (too_short(r, seats, why))
        return 0;
    int place[GAME_MAX_SEATS];
    room__placements(r, n_winners, winners, place);
    placement_player players[GAME_MAX_SEATS];
    for (int s = 0; s < seats; s++) {
        if (r->rated_account[s] <= 0)
            return 0;        /* started before ratings were kept: not rated */
        store_rating *b = &out[s].before;
        int rc = store_rating_get(r->svc->store, r->rated_account[s], r->kind->name, b);
        if (rc == STORE_NOT_FOUND) {
            b->rating = GLICKO2_NEWCOMER.rating;
            b->rd = GLICKO2_NEWCOMER.rd;
            b->volatility = GLICKO2_NEWCOMER.volatility;
        } else if (rc != 0) {
            board_log_at(r->svc, LOG_ERR,
                         "game %s: cannot read the ratings, so it is not rated: %s",
                         r->id, store_last_error(r->svc->store));
            return 0;
        }
        players[s] = (placement_player){{b->rating, b->rd, b->volatility}, place[s]};
    }
    glicko2_rating after[GAME_MAX_SEATS];
    if (placement_rate(players, seats, GLICKO2_TAU, after) != 0) {
        board_log_at(r->svc, LOG_WARNING,
                     "game %s: the ratings did not compute; it is not rated", r->id);
        return 0;
    }
    int64_t now = board_wall_ms();
    for (int s = 0; s < seats; s++) {
        out[s].after = out[s].before;
        out[s].after.rating = after[s].rating;
        out[s].after.rd = after[s].rd;
        out[s].after.volatility = after[s].volatility;
        out[s].after.games = out[s].before.games + 1;
        out[s].after.updated_ms = now;
    }
    return seats;
}

int room__store_ratings(room *r, const room_rating_change *changes, int n,
                        const room_unrated *why)
{
    if (why->code == STORE_UNRATED_TOO_SHORT)
        return store_game_unrated(r->svc->store, r->id, why->code);
    if (n == 0)
        return 0;
    store_rating before[GAME_MAX_SEATS], after[GAME_MAX_SEATS];
    for (int s = 0; s < n; s++) {
        before[s] = changes[s].before;
        after[s] = changes[s].after;
    }
    /* The people see them once GameOver is applied (room_events.c). */
    return store_ratings_record(r->svc->store, r->id, r->kind->name, after[0].updated_ms, n,
                                r->rated_account, before, after);
}
