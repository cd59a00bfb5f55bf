/*
 * pairing.c — quick pairing (Register.QuickPair; docs/rules.md, "Quick
 * pairing"): players wait in pools, one per kind, options, time control and
 * rated or casual, and are seated together in a new game once their ratings
 * are near enough. The range each player accepts widens with the wait
 * (pair_range): ±100 at first, 50 more every 5 s, any rating after 60 s. A
 * table of N seats (sungka's players=N) fills with N players each within
 * every other's range. Two accounts where one blocks the other are never
 * paired (board_blocked_either, which asks the store).
 *
 * A waiting player is its QuickPair call: the stream says the pool's size
 * and the range when either changes, and ends with the seat (a BoardRef).
 * A call that ends early (cancelled, connection gone) leaves the pool in its
 * done callback. Bounded: --client-pairings calls waiting per client address
 * (board_client.pairings), --max-pool players per pool.
 *
 * Pools live on the node the player asked: in a cluster, players on two
 * nodes are not paired together (docs/cluster.md). Matching walks the
 * waiting list, which is O(n^2) in one pool's players per try; --max-pool
 * bounds that. Loop thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "board_rpc.h"
#include "waiting.h"

#define PAIR_TICK_MS 500             /* ranges widen and pools are tried again */
#define PAIR_RANGE_FIRST 100
#define PAIR_RANGE_STEP 50
#define PAIR_RANGE_EVERY_MS 5000
#define PAIR_ANY_AFTER_MS 60000
#define PAIR_GUEST_RATING 1500

typedef struct pair_wait {
    board_waiting base;              /* first: the QuickPair stream (its call), the
                                        address it counts one pairing of, done once
                                        paired or refused (waiting.h) */
    const Sungka__V1__QuickPairRequest *req;   /* the call's request */
    const game_kind *kind;
    game_options opts;
    Sungka__V1__TimeControl tc;      /* zero: none */
    bool rated;
    int seats;                       /* the table's size */
    int64_t account_id;              /* 0: a guest */
    char name[BOARD_NAME_BYTES];
    int rating;
    int64_t since_ms;
    int sent_range, sent_pool;       /* what the last update said (-2: none yet) */
} pair_wait;

struct board_pairing {
    board_waiting_list waiting;      /* pair_wait entries, oldest first */
    int64_t next_tick_ms;
};

int board_pair_range(int64_t waited_ms)
{
    if (waited_ms >= PAIR_ANY_AFTER_MS)
        return -1;
    return PAIR_RANGE_FIRST + PAIR_RANGE_STEP * (int)(waited_ms / PAIR_RANGE_EVERY_MS);
}

static bool same_pool(const pair_wait *a, const pair_wait *b)
{
    return a->kind == b->kind && a->rated == b->rated &&
           memcmp(&a->opts, &b->opts, sizeof a->opts) == 0 &&
           a->tc.per_move_s == b->tc.per_move_s && a->tc.base_s == b->tc.base_s &&
           a->tc.increment_s == b->tc.increment_s;
}

static int pool_size(const board_pairing *pp, const pair_wait *w)
{
    int n = 0;
    for (int i = 0; i < pp->waiting.n; i++) {
        const pair_wait *o = pp->waiting.e[i];
        n += !o->base.done && same_pool(o, w);
    }
    return n;
}

/* May a and b sit at one table now? Within each other's range, two people
 * (not one account twice, nor two guests of one name), neither blocking the
 * other. */
static bool fits(board_service *svc, const pair_wait *a, const pair_wait *b, int64_t now)
{
    int ra = board_pair_range(now - a->since_ms), rb = board_pair_range(now - b->since_ms);
    int diff = abs(a->rating - b->rating);
    if ((ra >= 0 && diff > ra) || (rb >= 0 && diff > rb))
        return false;
    if (a->account_id > 0 && a->account_id == b->account_id)
        return false;
    if (strcasecmp(a->name, b->name) == 0)
        return false;
    return board_blocked_either(svc, a->account_id, b->account_id) == 0;
}

static void send_update(const board_pairing *pp, pair_wait *w, int64_t now,
                        Sungka__V1__BoardRef *board)
{
    Sungka__V1__PairingUpdate u = SUNGKA__V1__PAIRING_UPDATE__INIT;
    int range = board_pair_range(now - w->since_ms);
    u.pool_size = pool_size(pp, w);
    u.rating = w->rating;
    u.range = range < 0 ? 0 : range;
    u.any_rating = range < 0;
    u.waited_ms = now - w->since_ms;
    u.board = board;
    w->sent_range = range;
    w->sent_pool = u.pool_size;
    rpc_call_send(w->base.call, &u.base);
}

static void tell_pool(board_service *svc, const pair_wait *of, int64_t now)
{
    board_pairing *pp = svc->pairing;
    for (int i = 0; i < pp->waiting.n; i++) {
        pair_wait *w = pp->waiting.e[i];
        if (!w->base.done && same_pool(w, of) &&
            (w->sent_pool != pool_size(pp, w) ||
             w->sent_range != board_pair_range(now - w->since_ms)))
            send_update(pp, w, now, NULL);
    }
}

/* Seat group[n] in a new game, each told its seat; 0, or -1 when the game
 * could not be made or filled (those not at fault wait on). */
static int seat_group(board_service *svc, pair_wait **group, int n, int64_t now)
{
    board_pairing *pp = svc->pairing;
    const Sungka__V1__QuickPairRequest *req = group[0]->req;
    char err[256];
    rpc_code code;
    room *r = board_new_room(svc, group[0]->base.call, req->kind, req->options, req->n_options,
                             "", true, req->time_control, group[0]->rated, 0, NULL, &code, err,
                             sizeof err);
    if (!r) {
        /* The service's own limits (too many games): nobody waits for them. */
        for (int i = 0; i < n; i++) {
            board_fail(group[i]->base.call, code, err);
            group[i]->base.done = true;
        }
        return -1;
    }
    /* Who sits where (and so who begins) is drawn. */
    for (int i = n - 1; i > 0; i--) {
        unsigned v = 0;
        if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v)
            v = (unsigned)now;
        int j = (int)(v % (unsigned)(i + 1));
        pair_wait *t = group[i];
        group[i] = group[j];
        group[j] = t;
    }
    participant *seated[GAME_MAX_SEATS];
    for (int i = 0; i < n; i++) {
        room_rc rc = room_join_as(r, group[i]->name, group[i]->account_id, false,
                                  group[i]->base.from, NULL, &seated[i], err, sizeof err);
        if (rc != ROOM_OK) {
            /* A name the game refuses (one that looks like another's): that
             * player is told; the others wait on for another table. */
            board_refuse(group[i]->base.call, rc, err);
            group[i]->base.done = true;
            board_discard_room(svc, r);
            return -1;
        }
    }
    for (int i = 0; i < n; i++) {
        Sungka__V1__BoardRef ref = SUNGKA__V1__BOARD_REF__INIT;
        Sungka__V1__GameSummary summary;
        Sungka__V1__SeatNumber seat;
        wire_summary(r, &summary);
        ref.endpoint = svc->endpoint;
        ref.game_id = (char *)room_id(r);
        ref.token = seated[i]->token;
        ref.seat = wire_seat(seated[i]->seat, &seat);
        ref.game = &summary;
        group[i]->base.done = true;
        send_update(pp, group[i], now, &ref);
        rpc_call_finish(group[i]->base.call, RPC_OK, NULL);
        wire_summary_clear(&summary);
        metric_observe(svc->m.pool_wait, (double)(now - group[i]->since_ms) / 1000.0);
    }
    board_log(svc, "game %s: %d players paired from the %s pool", room_id(r), n,
              group[0]->kind->name);
    return 0;
}

static int by_distance_rating;   /* the anchor's rating, for by_distance (loop thread) */

static int by_distance(const void *x, const void *y)
{
    const pair_wait *a = *(pair_wait *const *)x, *b = *(pair_wait *const *)y;
    int da = abs(a->rating - by_distance_rating), db = abs(b->rating - by_distance_rating);
    if (da != db)
        return da < db ? -1 : 1;
    return a->since_ms < b->since_ms ? -1 : a->since_ms > b->since_ms;
}

/* Try to fill a table around the waiting player `anchor`: the nearest
 * ratings first, each one fitting every player already chosen. */
static void try_anchor(board_service *svc, pair_wait *anchor, int64_t now)
{
    board_pairing *pp = svc->pairing;
    pair_wait **cand = malloc((size_t)pp->waiting.n * sizeof *cand);
    if (!cand)
        return;
    int nc = 0;
    for (int i = 0; i < pp->waiting.n; i++) {
        pair_wait *w = pp->waiting.e[i];
        if (w != anchor && !w->base.done && same_pool(w, anchor))
            cand[nc++] = w;
    }
    if (nc + 1 < anchor->seats) {
        free(cand);
        return;
    }
    by_distance_rating = anchor->rating;
    qsort(cand, (size_t)nc, sizeof *cand, by_distance);
    pair_wait *group[GAME_MAX_SEATS] = {anchor};
    int n = 1;
    for (int i = 0; i < nc && n < anchor->seats; i++) {
        bool ok = true;
        for (int k = 0; k < n && ok; k++)
            ok = fits(svc, group[k], cand[i], now);
        if (ok)
            group[n++] = cand[i];
    }
    free(cand);
    if (n == anchor->seats)
        seat_group(svc, group, n, now);
}

/* Every waiting player, the longest waiting first, as an anchor. */
static void try_all(board_service *svc, int64_t now)
{
    board_pairing *pp = svc->pairing;
    for (int i = 0; i < pp->waiting.n; i++) {
        pair_wait *w = pp->waiting.e[i];
        if (!w->base.done)
            try_anchor(svc, w, now);
    }
}

static void on_done(rpc_call *call, bool client_gone, void *user)
{
    (void)client_gone;
    board_service *svc = user;
    board_pairing *pp = svc->pairing;
    pair_wait *w = pp ? board_waiting_remove(&pp->waiting, call) : NULL;
    if (!w)
        return;
    if (w->base.from)
        w->base.from->pairings--;
    if (!w->base.done) {
        board_log(svc, "a player left the %s pool", w->kind->name);
        tell_pool(svc, w, board_now_ms());
    }
    free(w);
}

/* The request's kind, options and clock as a pool: 0, or -1 answered. */
static int read_pool(const Sungka__V1__QuickPairRequest *req, pair_wait *w, rpc_call *call)
{
    char err[256];
    w->kind = game_kind_find(req->kind);
    if (!w->kind) {
        char echo[48];
        snprintf(err, sizeof err, "unknown game kind '%s' (ListKinds lists them)",
                 board_echo(req->kind, echo, sizeof echo));
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return -1;
    }
    if (board_read_options(w->kind, req->options, req->n_options, &w->opts, err,
                           sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return -1;
    }
    if (game_option(w->kind, &w->opts, "first", 0) == -1) {
        board_fail(call, RPC_INVALID_ARGUMENT, "quick pairing draws the seats: leave the "
                                               "option 'first' out");
        return -1;
    }
    const Sungka__V1__TimeControl *tc = req->time_control;
    if (tc && (tc->per_move_s < 0 || tc->per_move_s > TC_PER_MOVE_MAX_S || tc->base_s < 0 ||
               tc->base_s > TC_BASE_MAX_S || tc->increment_s < 0 ||
               tc->increment_s > TC_INCREMENT_MAX_S || (tc->per_move_s && tc->base_s))) {
        snprintf(err, sizeof err, "a time control is per_move_s 1..%d, or base_s 1..%d with "
                 "increment_s 0..%d", TC_PER_MOVE_MAX_S, TC_BASE_MAX_S, TC_INCREMENT_MAX_S);
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return -1;
    }
    if (tc)
        w->tc = *tc;
    game_state *st = malloc(sizeof *st);
    if (!st) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return -1;
    }
    if (game_new(st, w->kind, &w->opts, err, sizeof err) != GAME_OK) {
        free(st);
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        return -1;
    }
    w->seats = game_seats(st);
    free(st);
    return 0;
}

void board_quick_pair(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__QuickPairRequest *req = (const void *)request;
    char err[256];
    if (board_relay_refused(svc, call))
        return;
    if (!svc->pairing && !(svc->pairing = calloc(1, sizeof *svc->pairing))) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    board_pairing *pp = svc->pairing;
    pair_wait *w = calloc(1, sizeof *w);
    if (!w) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    w->base.call = call;
    w->req = req;
    w->sent_range = w->sent_pool = -2;
    if (read_pool(req, w, call) != 0)
        goto refused;
    store_account acct;
    int who = board_lobby_caller(svc, call, &acct);
    if (who < 0)
        goto refused;
    if (who > 0) {
        if (board_account_name(svc, call, &acct, req->name) != 0)
            goto refused;
        snprintf(w->name, sizeof w->name, "%s", acct.name);
        w->account_id = acct.id;
    } else if (req->rated_only) {
        rpc_call_finish_reason(call, RPC_UNAUTHENTICATED, "ACCOUNT_REQUIRED",
                               "rated games are for signed-in players: sign in to ask for one");
        goto refused;
    } else if (board_clean_name(req->name, w->name, sizeof w->name, err, sizeof err) != 0) {
        board_fail(call, RPC_INVALID_ARGUMENT, err);
        goto refused;
    } else if (board_guest_name(svc, call, w->name) != 0) {
        goto refused;
    }
    w->rated = req->rated_only;
    w->rating = PAIR_GUEST_RATING;
    if (w->account_id > 0 && svc->store) {
        store_rating sr;
        int rc = store_rating_get(svc->store, w->account_id, w->kind->name, &sr);
        if (rc == 0) {
            w->rating = (int)(sr.rating + 0.5);
        } else if (rc != STORE_NOT_FOUND) {
            snprintf(err, sizeof err, "cannot read your rating: %s",
                     store_last_error(svc->store));
            board_fail(call, RPC_UNAVAILABLE, err);
            goto refused;
        }
    }
    w->base.from = board_client_of(svc, call);
    if (!w->base.from) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        goto refused;
    }
    if (!w->base.from->relay && w->base.from->pairings >= svc->cfg.client_pairings) {
        snprintf(err, sizeof err, "your address already waits for %d quick pairing%s (at most "
                 "%d at a time): cancel it first", w->base.from->pairings,
                 w->base.from->pairings == 1 ? "" : "s", svc->cfg.client_pairings);
        board_log_limit(svc, w->base.from->host, err);
        board_fail(call, RPC_RESOURCE_EXHAUSTED, err);
        goto refused;
    }
    if (pool_size(pp, w) >= svc->cfg.max_pool) {
        snprintf(err, sizeof err, "the %s pool already has %d players waiting (the most): try "
                 "again later or create a game", w->kind->name, svc->cfg.max_pool);
        board_log_limit(svc, w->base.from->host, err);
        board_fail(call, RPC_RESOURCE_EXHAUSTED, err);
        goto refused;
    }
    if (board_waiting_add(&pp->waiting, w) != 0) {
        board_fail(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
        goto refused;
    }
    int64_t now = board_now_ms();
    w->since_ms = now;
    w->base.from->pairings++;
    rpc_call_on_done(call, on_done, svc);
    board_log_client(svc, LOG_INFO, w->base.from->host, "%s waits in the %s pool (rating %d%s)",
                     w->name, w->kind->name, w->rating, w->rated ? ", rated" : "");
    try_anchor(svc, w, now);
    if (!w->base.done)
        tell_pool(svc, w, now);
    return;

refused:
    free(w);
}

void board_pairing_tick(board_service *svc, int64_t now)
{
    board_pairing *pp = svc->pairing;
    if (!pp || now < pp->next_tick_ms)
        return;
    pp->next_tick_ms = now + PAIR_TICK_MS;
    try_all(svc, now);
    for (int i = 0; i < pp->waiting.n; i++) {
        pair_wait *w = pp->waiting.e[i];
        if (!w->base.done && (w->sent_range != board_pair_range(now - w->since_ms) ||
                         w->sent_pool != pool_size(pp, w)))
            send_update(pp, w, now, NULL);
    }
}

void board_pairing_count(board_service *svc, int *per_kind, int n_kinds)
{
    for (int k = 0; k < n_kinds; k++)
        per_kind[k] = 0;
    board_pairing *pp = svc->pairing;
    for (int i = 0; pp && i < pp->waiting.n; i++) {
        const pair_wait *w = pp->waiting.e[i];
        if (w->base.done)
            continue;
        for (int k = 0; k < n_kinds; k++)
            if (game_kind_at(k) == w->kind)
                per_kind[k]++;
    }
}

int board_pairing_pools(board_service *svc, const game_kind *kind, int64_t now,
                        board_pool_info **out, int *n)
{
    board_pairing *pp = svc->pairing;
    *out = NULL;
    *n = 0;
    if (!pp || pp->waiting.n == 0)
        return 0;
    board_pool_info *pools = calloc((size_t)pp->waiting.n, sizeof *pools);
    const pair_wait **first = calloc((size_t)pp->waiting.n, sizeof *first);
    if (!pools || !first) {
        free(pools);
        free(first);
        return -1;
    }
    int np = 0;
    for (int i = 0; i < pp->waiting.n; i++) {  /* oldest first: each pool's first comes first */
        const pair_wait *w = pp->waiting.e[i];
        if (w->base.done || (kind && w->kind != kind))
            continue;
        int p = 0;
        while (p < np && !same_pool(first[p], w))
            p++;
        if (p == np) {
            first[np] = w;
            pools[np++] = (board_pool_info){
                .kind = w->kind, .opts = w->opts, .per_move_s = w->tc.per_move_s,
                .base_s = w->tc.base_s, .increment_s = w->tc.increment_s, .rated = w->rated,
                .longest_wait_ms = now - w->since_ms};
        }
        pools[p].players++;
    }
    free(first);
    if (np == 0) {
        free(pools);
        return 0;
    }
    *out = pools;
    *n = np;
    return 0;
}

void board_pairing_close(board_service *svc, const char *why)
{
    if (svc->pairing)
        board_waiting_close(&svc->pairing->waiting, why);
}

void board_pairing_free(board_service *svc)
{
    board_pairing *pp = svc->pairing;
    if (!pp)
        return;
    board_waiting_free(&pp->waiting);
    free(pp);
    svc->pairing = NULL;
}
