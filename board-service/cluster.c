/*
 * cluster.c — this service as one node of a cluster: several sungka-board
 * processes sharing one PostgreSQL database (issue 18; store.h, "A
 * cluster").
 *
 * A node joins under its endpoint (--advertise, or the bound address) and
 * holds a lease it renews from the loop at every ping tick, well inside the
 * lease. At the same ticks it adopts the games of nodes whose lease ran out
 * (the store gives each game to one node), rebuilding them as a restart
 * would: everyone departed with the full grace, agents resume after the
 * last event they saw. A game this node lost while it could not renew (a
 * pause, a partition) is fenced by the store: its next event is refused,
 * and the room lets go of its players so that they find the new owner.
 * A database that went back in time (an asynchronous standby promoted
 * behind, a backup restored) reads as another history (store_db_history):
 * the node then stops its games whose stored log lost what they sent,
 * moves the game ids past those it knows, and adopts nothing for a grace,
 * so that a host that is alive checks its games before anyone else
 * carries them on from the shorter log (docs/cluster.md).
 * Everything here runs on the loop thread.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_rpc.h"


static void learn_db_clock(board_service *svc);
/* Games adopted per tick: a dead node's hundreds of games come over a few
 * ticks rather than stall the loop at once. */
#define ADOPT_PER_TICK 64

/* How far the game ids move on after the database went back in time: more
 * than the games the cluster can make in the time a standby lags. */
#define IDS_MARGIN 1000

/* Adopt up to ADOPT_PER_TICK orphaned games; how many. At the start they
 * are logged as recovered (most are this endpoint's node's, before it).
 * None for a while after the database changed history: its hosts check
 * their games first. */
static int adopt_orphans(board_service *svc, bool starting)
{
    char ids[ADOPT_PER_TICK][STORE_ID_BYTES];
    int n = 0;
    if (!starting && board_now_ms() < svc->adopt_after_ms)
        return 0;
    if (store_games_adopt(svc->store, ADOPT_PER_TICK, ids, &n) != 0)
        board_log_at(svc, LOG_ERR, "cannot adopt games: %s", store_last_error(svc->store));
    else if (n > 0)
        board_adopt(svc, (const char (*)[STORE_ID_BYTES])ids, n, starting);
    metric_add(svc->m.adoptions, n);
    return n;
}

int board_cluster_start(board_service *svc, char *err, size_t errlen)
{
    int64_t node_id;
    if (store_node_join(svc->store, svc->endpoint, svc->cfg.lease_ms, &node_id) != 0) {
        snprintf(err, errlen, "cannot join the cluster: %s", store_last_error(svc->store));
        return -1;
    }
    board_log(svc, "node %lld of the cluster, at %s", (long long)node_id, svc->endpoint);
    /* What this endpoint's node before had is orphaned now (store_node_join):
     * all of it comes back before the first request. */
    while (adopt_orphans(svc, true) == ADOPT_PER_TICK) {
    }
    svc->next_lease_ms = board_now_ms() + svc->cfg.lease_ms / 3;
    snprintf(svc->db_history, sizeof svc->db_history, "%s", store_db_history(svc->store));
    learn_db_clock(svc);
    return 0;
}

/* The highest game id this node has made or hosts. */
static unsigned highest_id_seen(const board_service *svc)
{
    unsigned seen = svc->next_id;
    for (int i = 0; i < svc->n_rooms; i++) {
        unsigned long id = strtoul(room_id(svc->rooms[i]), NULL, 10);
        if (id > seen && id <= UINT_MAX)
            seen = (unsigned)id;
    }
    return seen;
}

/* Stop the games here whose stored log has lost events they sent, saying
 * which; -1 when the database cannot say. */
static int stop_games_gone_back(board_service *svc, const char *was, const char *is)
{
    for (int i = 0; i < svc->n_rooms; i++) {
        room *r = svc->rooms[i];
        if (room_is_behind(r))
            continue;
        uint64_t stored = 0, sent = room_last_seq(r);
        int rc = store_game_stored_last(svc->store, room_id(r), &stored);
        if (rc < 0) {
            board_log_at(svc, LOG_ERR, "cannot check the games against the database's new "
                         "history: %s", store_last_error(svc->store));
            return -1;
        }
        if (rc == 0 && stored >= sent)
            continue;
        if (rc == STORE_NOT_FOUND)
            board_log_at(svc, LOG_WARNING, "game %s: the database went back in time (history "
                         "%s, was %s) to before the game was made: it lost the game and "
                         "events 1 to %llu that were sent", room_id(r), is, was,
                         (unsigned long long)sent);
        else
            board_log_at(svc, LOG_WARNING, "game %s: the database went back in time (history "
                         "%s, was %s): its stored log ends at event %llu and lost events "
                         "%llu to %llu that were sent", room_id(r), is, was,
                         (unsigned long long)stored, (unsigned long long)stored + 1,
                         (unsigned long long)sent);
        room_lose(r, ROOM_LOST_BEHIND);
    }
    return 0;
}

/* How long a game removed over is kept in mind: past the time a standby
 * lags, a failover takes and a node takes to notice it. */
#define REMOVED_KEPT_MS 30000

void board_cluster_note_removed(board_service *svc, const room *r)
{
    if (!svc->store || !store_shared(svc->store))
        return;
    struct removed_game *g = &svc->removed[svc->next_removed++ % BOARD_REMOVED_KEPT];
    snprintf(g->id, sizeof g->id, "%s", room_id(r));
    g->sent = room_last_seq(r);
    g->at_ms = board_now_ms();
}

/* The games removed lately, over, whose end the database lost: nobody plays
 * them on, but their players saw events the log no longer holds. Each is
 * forgotten (so that no node adopts it from the shorter log) and said. */
static int check_removed(board_service *svc, int64_t now, const char *was, const char *is)
{
    for (int i = 0; i < BOARD_REMOVED_KEPT; i++) {
        struct removed_game *g = &svc->removed[i];
        if (!g->at_ms || now - g->at_ms > REMOVED_KEPT_MS)
            continue;
        uint64_t stored = 0;
        int rc = store_game_stored_last(svc->store, g->id, &stored);
        if (rc < 0) {
            board_log_at(svc, LOG_ERR, "cannot check the games against the database's new "
                         "history: %s", store_last_error(svc->store));
            return -1;
        }
        g->at_ms = 0;
        if (rc == 0 && stored >= g->sent)
            continue;
        board_log_at(svc, LOG_WARNING, "game %s: the database went back in time (history %s, "
                     "was %s): its stored log ends at event %llu and lost events %llu to %llu "
                     "that were sent", g->id, is, was, (unsigned long long)stored,
                     (unsigned long long)stored + 1, (unsigned long long)g->sent);
        board_log_at(svc, LOG_WARNING, "game %s: its stored log has lost events it sent; it "
                     "had ended and was removed here, and is forgotten so that no node plays it "
                     "on", g->id);
        if (rc == 0 && store_game_forget(svc->store, g->id) < 0)
            board_log_at(svc, LOG_ERR, "game %s: %s", g->id, store_last_error(svc->store));
    }
    return 0;
}

int board_cluster_check_history(board_service *svc, int64_t now)
{
    if (!svc->store || !store_shared(svc->store))
        return 0;
    char is[sizeof svc->db_history];
    snprintf(is, sizeof is, "%s", store_db_history(svc->store));
    if (!is[0] || strcmp(is, svc->db_history) == 0)
        return 0;              /* unknown (asked again next time), or the same */
    if (!svc->db_history[0]) {
        memcpy(svc->db_history, is, sizeof is);     /* the first it knows */
        return 0;
    }
    /* Whoever adopts meanwhile would carry a game on from a log that may
     * have lost what its host sent: the hosts alive renew their leases and
     * check their games within one lease and a reconnection. */
    int grace_ms = svc->cfg.lease_ms + svc->cfg.lease_ms / 3 + 5000;
    svc->adopt_after_ms = now + grace_ms;
    board_log_at(svc, LOG_WARNING, "the database is on another history (PostgreSQL system "
                 "and timeline %s, was %s: failed over or restored), and may have gone back "
                 "in time: checking the %d games here against it, adopting none for %d s",
                 is, svc->db_history, svc->n_rooms, grace_ms / 1000);
    unsigned seen = highest_id_seen(svc);
    if (store_game_ids_past(svc->store, seen, IDS_MARGIN) != 0) {
        board_log_at(svc, LOG_ERR, "cannot move the game ids past %u after the history "
                     "change: %s", seen, store_last_error(svc->store));
        return -1;
    }
    if (stop_games_gone_back(svc, svc->db_history, is) != 0 ||
        check_removed(svc, now, svc->db_history, is) != 0)
        return -1;
    memcpy(svc->db_history, is, sizeof is);
    return 0;
}

/* After the lease ran out (the loop stalled, the database was out of
 * reach): the games others adopted meanwhile are lost here. */
static void find_lost(board_service *svc)
{
    for (int i = 0; i < svc->n_rooms; i++) {
        room *r = svc->rooms[i];
        char endpoint[128];
        bool alive = false;
        int rc = store_game_owner(svc->store, room_id(r), endpoint, sizeof endpoint, &alive);
        if (rc == 0 && strcmp(endpoint, svc->endpoint) != 0)
            room_lose(r, ROOM_LOST_ADOPTED);
    }
}

/* Renew the lease now: 0 done (and the games others took meanwhile found
 * lost, and orphans adopted), -1 not, to be tried again in a second. */
static int renew(board_service *svc, int64_t now)
{
    int rc = store_node_renew(svc->store, svc->cfg.lease_ms);
    svc->lease_failing = rc < 0;
    metric_add(rc < 0 ? svc->m.lease_failures : svc->m.lease_renewals, 1);
    if (rc < 0) {
        board_log_at(svc, LOG_ERR, "cannot renew the lease: %s", store_last_error(svc->store));
        svc->next_lease_ms = now + 1000;
        return -1;
    }
    if (rc == STORE_LAPSED) {
        board_log_at(svc, LOG_WARNING,
                     "the lease ran out before it was renewed; checking the games");
        find_lost(svc);
    }
    svc->next_lease_ms = now + svc->cfg.lease_ms / 3;
    learn_db_clock(svc);
    if (board_cluster_check_history(svc, now) != 0) {
        svc->next_lease_ms = now + 1000;
        return -1;
    }
    adopt_orphans(svc, false);
    return 0;
}

void board_cluster_tick(board_service *svc, int64_t now)
{
    if (!svc->store || !store_shared(svc->store))
        return;
    /* Renew a third of the lease ahead: two renewals may fail before it runs out. */
    if (now >= svc->next_lease_ms)
        renew(svc, now);
}

int board_cluster_confirm(board_service *svc, int64_t now)
{
    if (!svc->store || !store_shared(svc->store))
        return 0;
    if (svc->lease_failing && now < svc->next_lease_ms)
        return -1;             /* it failed a moment ago: wait for the tick's retry */
    return renew(svc, now);
}

void board_let_go_lost(board_service *svc)
{
    /* A game fenced off may be one the database forgot (its owner with it):
     * stopped, not let go for another node to carry on. */
    board_cluster_check_history(svc, board_now_ms());
    for (int i = svc->n_rooms - 1; i >= 0 && svc->n_lost > 0; i--) {
        room *r = svc->rooms[i];
        if (!room_is_lost(r))
            continue;
        board_log_at(svc, LOG_WARNING, "game %s: %s", room_id(r), room_lost_why(r));
        if (room_is_behind(r))
            room_halt(r);
        board_let_go(svc, r, room_is_behind(r)
                                 ? "the game cannot go on here: its stored log went back in time"
                                 : "the game has moved to another board service; reconnect");
    }
}

/* The database's clock, as an offset from ours (a node whose clock is off
 * by days still expires sessions when the others do). */
static void learn_db_clock(board_service *svc)
{
    int64_t db_now;
    int64_t before = board_wall_ms();
    if (store_clock_ms(svc->store, &db_now) != 0)
        return;                /* keep the last offset */
    int64_t after = board_wall_ms();
    svc->db_clock_offset_ms = db_now - (before + after) / 2;
}

int64_t board_shared_now_ms(const board_service *svc)
{
    return board_wall_ms() + svc->db_clock_offset_ms;
}

int board_game_here(board_service *svc, const char *game_id)
{
    if (!svc->store || !store_shared(svc->store))
        return 1;
    char endpoint[128];
    bool alive;
    if (store_game_owner(svc->store, game_id, endpoint, sizeof endpoint, &alive) != 0)
        return -1;
    return strcmp(endpoint, svc->endpoint) == 0;
}

bool board_cluster_healthy(const board_service *svc)
{
    return !svc->lease_failing;
}

void board_cluster_leave(board_service *svc)
{
    if (svc->store && store_shared(svc->store) && store_node_leave(svc->store) != 0)
        board_log_at(svc, LOG_ERR, "cannot leave the cluster: %s", store_last_error(svc->store));
}

/* Where a game this node does not host lives, answered on call. */
static bool answer_elsewhere(board_service *svc, rpc_call *call, const char *game_id,
                             const char *endpoint, bool alive)
{
    char msg[320];
    if (!alive) {
        snprintf(msg, sizeof msg, "the board service of game %s stopped; another takes the "
                                  "game over within %d s: try again", game_id,
                 svc->cfg.lease_ms / 1000 + 2);
        rpc_call_finish_reason(call, RPC_UNAVAILABLE, "GAME_MOVING", msg);
        return true;
    }
    if (strcmp(endpoint, svc->endpoint) == 0)
        return false;              /* ours, yet not here: unknown after all */
    snprintf(msg, sizeof msg, "game %s is hosted by the board service at %s", game_id,
             endpoint);
    rpc_call_finish_elsewhere(call, RPC_UNAVAILABLE, "ELSEWHERE", endpoint, msg);
    return true;
}

/* A token or game id this node does not know costs a database query on the
 * loop: cfg.client_lookups of them a second per client address. False when
 * call was answered RESOURCE_EXHAUSTED instead. */
static bool may_look_up(board_service *svc, rpc_call *call)
{
    char host[BOARD_HOST_BYTES];
    board_peer_host(svc, call, host, sizeof host);
    int64_t now = board_now_ms();
    if (board_limit_count(&svc->limits, "lookup", host, 1000, now) >= svc->cfg.client_lookups) {
        char msg[160];
        snprintf(msg, sizeof msg, "too many unknown seat tokens or games: at most %d a second "
                                  "from one address (--client-lookups)", svc->cfg.client_lookups);
        board_log_limit(svc, host, msg);
        rpc_call_finish_reason(call, RPC_RESOURCE_EXHAUSTED, "LIMIT_REACHED", msg);
        return false;
    }
    board_limit_add(&svc->limits, "lookup", host, 1000, now);
    return true;
}

/* The database cannot say where a token's or a game's node is (down, failing
 * over): not an unknown token, which ends an agent's seat for good, but a
 * moment to wait. Always answered. */
static bool cannot_ask(board_service *svc, rpc_call *call)
{
    char msg[300];
    snprintf(msg, sizeof msg, "the cluster's database cannot say where that game is now (%s); "
                              "try again", store_last_error(svc->store));
    rpc_call_finish_reason(call, RPC_UNAVAILABLE, "GAME_MOVING", msg);
    return true;
}

bool board_cluster_redirect_game(board_service *svc, rpc_call *call, const char *game_id)
{
    char endpoint[128];
    bool alive = false;
    if (!svc->store || !store_shared(svc->store) || !game_id[0])
        return false;
    if (!may_look_up(svc, call))
        return true;
    int rc = store_game_owner(svc->store, game_id, endpoint, sizeof endpoint, &alive);
    if (rc == STORE_NOT_FOUND)
        return false;
    if (rc != 0)
        return cannot_ask(svc, call);
    return answer_elsewhere(svc, call, game_id, endpoint, alive);
}

bool board_cluster_redirect_token(board_service *svc, rpc_call *call, const char *token)
{
    char game_id[STORE_ID_BYTES], endpoint[128];
    bool alive = false;
    if (!svc->store || !store_shared(svc->store) || !token[0] ||
        strlen(token) >= STORE_TOKEN_BYTES)
        return false;
    if (!may_look_up(svc, call))
        return true;
    int rc = store_token_owner(svc->store, token, game_id, endpoint, sizeof endpoint, &alive);
    if (rc == STORE_NOT_FOUND)
        return false;
    if (rc != 0)
        return cannot_ask(svc, call);
    return answer_elsewhere(svc, call, game_id, endpoint, alive);
}

bool board_send_to_relay(board_service *svc, rpc_call *call, const room *r)
{
    const char *list = svc->cfg.relays;
    if (!list || !list[0] || room_watchers(r) < svc->cfg.relay_after)
        return false;
    int n = 1;
    for (const char *c = list; *c; c++)
        n += *c == ',';
    unsigned pick = svc->next_relay++ % (unsigned)n;
    const char *at = list;
    for (unsigned i = 0; i < pick; i++)
        at = strchr(at, ',') + 1;
    char endpoint[128], msg[256];
    snprintf(endpoint, sizeof endpoint, "%.*s", (int)strcspn(at, ","), at);
    if (!endpoint[0])
        return false;
    snprintf(msg, sizeof msg, "game %s has a large audience: watch it at the relay %s", room_id(r),
             endpoint);
    rpc_call_finish_elsewhere(call, RPC_UNAVAILABLE, "ELSEWHERE", endpoint, msg);
    return true;
}
