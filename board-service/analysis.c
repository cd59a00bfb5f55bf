/*
 * analysis.c — the engine's review of every ended game
 * (games/search/analysis.h; docs/rules.md, "Analysis"), computed once, off
 * the loop, and stored with the match; Register.GetAnalysis serves it.
 *
 * Threads. One worker thread (`review_main`) reviews one game at a time with
 * a searcher of its own. The loop hands it a job (the game's kind, options
 * and moves, copied) through a queue under `mu`, and takes finished jobs
 * back from a done list under the same mutex after each poll
 * (board_analysis_drain): the worker wakes it with rpc_server_wake, as the
 * password pool does. The worker never touches the store, a room or any
 * other state of the loop; only the loop stores a review. So a review is
 * stored after the game's result (its end's transaction is committed at the
 * end of that turn, before the worker can be done), and a review lost to a
 * kill -9 before it was stored is found again at the next start:
 * board_analysis_start queues the newest ended games without one
 * (store_analysis_missing), as many as the queue holds (on a cluster's
 * shared store too: a dead node's unreviewed games are nobody's until then).
 *
 * Bounds: one review at a time, on a thread at nice 10; at most --analysis-queue games waiting (a
 * game ending past that is reviewed at the next start, and GetAnalysis says
 * so); --analysis-depth plies and at most --analysis-time per position.
 * Stopping the service stops a review in progress (its stop flag) and drops
 * the queue: those games are found again at the next start.
 */
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "board_rpc.h"
#include "kalah_db.h"

/* Kalah's endgame table the reviews use for exact endings, built in memory
 * by the review thread on its first Kalah game of a board size (6 pits a
 * side: 2.7 MB, under half a second) and kept for the next; a table past
 * REVIEW_TABLE_BYTES (7 and 8 pits) is not built. */
#define REVIEW_KALAH_SEEDS 12
#define REVIEW_TABLE_BYTES (8u << 20)

typedef struct review_job {
    char game_id[STORE_ID_BYTES];
    const game_kind *kind;
    game_options opts;
    int n;
    int *seats, *moves;
    /* Filled by the worker. */
    int rc;                    /* 0: reviewed; -1: not (err says why) */
    char err[GAME_ERR_LEN + 64];
    game_analysis_move *out;
    int accuracy[GAME_MAX_SEATS];
    struct review_job *next;
} review_job;

struct board_analysis {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    /* Under mu: */
    review_job *queue, *queue_tail;    /* waiting, oldest first */
    int queued;
    char running[STORE_ID_BYTES];      /* the game being reviewed; "" none */
    review_job *done;                  /* reviewed, for the loop to store */
    bool quit;
    /* Read-only once started. */
    volatile int stop;                 /* the review in progress gives up */
    game_analysis_budget budget;
    int cap;
    rpc_server *server;
};

static void job_free(review_job *j)
{
    if (!j)
        return;
    free(j->seats);
    free(j->moves);
    free(j->out);
    free(j);
}

/* The table for st's board (the thread's *db, rebuilt for another size),
 * handed to the searcher; nothing for a board no table serves. */
static void use_kalah_table(board_analysis *a, game_search *s, game_kalah_db *db,
                            const review_job *j)
{
    game_state st;
    int cups = game_new(&st, j->kind, &j->opts, NULL, 0) == GAME_OK ? game_kalah_db_cups(&st)
                                                                    : 0;
    size_t entries = cups ? game_kalah_db_entries(cups, REVIEW_KALAH_SEEDS) : 0;
    if (!cups || entries == 0 || entries > REVIEW_TABLE_BYTES) {
        game_search_set_kalah_db(s, NULL);
        return;
    }
    if (db->cups != cups || !db->margin) {
        free((void *)db->margin);
        *db = (game_kalah_db){0};
        int8_t *t = malloc(entries);
        if (!t || game_kalah_db_build(cups, REVIEW_KALAH_SEEDS, t, &a->stop) != 0) {
            free(t);
            game_search_set_kalah_db(s, NULL);
            return;
        }
        *db = (game_kalah_db){.cups = cups, .max_seeds = REVIEW_KALAH_SEEDS,
                              .entries = entries, .margin = t};
    }
    game_search_set_kalah_db(s, db);
}

static void *review_main(void *arg)
{
    board_analysis *a = arg;
    /* Below the loop and gRPC's threads: a review may wait, a move may not.
     * (Linux gives each thread its own nice value.) */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
    game_search *s = game_search_new(16u << 20);
    game_kalah_db db = {0};
    pthread_mutex_lock(&a->mu);
    for (;;) {
        while (!a->quit && !a->queue)
            pthread_cond_wait(&a->wake, &a->mu);
        if (a->quit)
            break;
        review_job *j = a->queue;
        a->queue = j->next;
        if (!a->queue)
            a->queue_tail = NULL;
        a->queued--;
        snprintf(a->running, sizeof a->running, "%s", j->game_id);
        pthread_mutex_unlock(&a->mu);

        j->out = calloc(j->n ? (size_t)j->n : 1, sizeof *j->out);
        if (!s || !j->out) {
            j->rc = -1;
            snprintf(j->err, sizeof j->err, "out of memory for the review");
        } else {
            use_kalah_table(a, s, &db, j);
            j->rc = game_analyse(s, j->kind, &j->opts, j->seats, j->moves, j->n, &a->budget,
                                 j->out, j->accuracy, j->err, sizeof j->err);
        }

        pthread_mutex_lock(&a->mu);
        a->running[0] = '\0';
        j->next = a->done;
        a->done = j;
        rpc_server_wake(a->server);
    }
    pthread_mutex_unlock(&a->mu);
    game_search_free(s);
    free((void *)db.margin);
    return NULL;
}

/* Queue a review of game_id; its moves are copied. false when the queue is
 * full or memory short (the game is then reviewed at the next start). */
static bool enqueue(board_analysis *a, const char *game_id, const game_kind *kind,
                    const game_options *opts, const store_move *moves, int n)
{
    review_job *j = calloc(1, sizeof *j);
    if (!j)
        return false;
    snprintf(j->game_id, sizeof j->game_id, "%s", game_id);
    j->kind = kind;
    j->opts = *opts;
    j->n = n;
    j->seats = malloc((n ? (size_t)n : 1) * sizeof *j->seats);
    j->moves = malloc((n ? (size_t)n : 1) * sizeof *j->moves);
    if (!j->seats || !j->moves) {
        job_free(j);
        return false;
    }
    for (int i = 0; i < n; i++) {
        j->seats[i] = moves[i].seat;
        j->moves[i] = moves[i].move;
    }
    pthread_mutex_lock(&a->mu);
    bool fits = a->queued < a->cap;
    if (fits) {
        if (a->queue_tail)
            a->queue_tail->next = j;
        else
            a->queue = j;
        a->queue_tail = j;
        a->queued++;
        pthread_cond_signal(&a->wake);
    }
    pthread_mutex_unlock(&a->mu);
    if (!fits)
        job_free(j);
    return fits;
}

void board_analysis_game_ended(board_service *svc, const char *game_id, const game_kind *kind,
                               const game_options *opts, const store_move *moves, int n)
{
    board_analysis *a = svc->analysis;
    if (!a)
        return;
    if (!enqueue(a, game_id, kind, opts, moves, n))
        board_log(svc, "game %s: the queue of reviews is full (--analysis-queue %d); it is "
                       "reviewed at the next start", game_id, a->cap);
}

/* Queue game_id from what the store has of it (the start's scan). */
static void enqueue_stored(board_service *svc, const char *game_id)
{
    store_match_summary m;
    store_move *moves = NULL;
    int n = 0;
    if (store_match(svc->store, game_id, &m, &moves, &n) != 0)
        return;
    const game_kind *kind = game_kind_find(m.game.kind);
    game_options opts;
    if (kind) {
        game_options_default(kind, &opts);
        for (int i = 0; i < m.game.n_options; i++)
            game_options_set(kind, &opts, m.game.options[i].name, m.game.options[i].value,
                             NULL, 0);
        enqueue(svc->analysis, game_id, kind, &opts, moves, n);
    }
    free(moves);
}

int board_analysis_start(board_service *svc, char *err, size_t errlen)
{
    if (svc->cfg.analysis_off || !svc->store)
        return 0;
    board_analysis *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory for the reviews of games");
        return -1;
    }
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->wake, NULL);
    a->cap = svc->cfg.analysis_queue;
    a->server = svc->server;
    a->budget = (game_analysis_budget){.depth = svc->cfg.analysis_depth,
                                       .time_ms = svc->cfg.analysis_time_ms,
                                       .stop = &a->stop};
    if (pthread_create(&a->thread, NULL, review_main, a) != 0) {
        pthread_cond_destroy(&a->wake);
        pthread_mutex_destroy(&a->mu);
        free(a);
        snprintf(err, errlen, "cannot start the thread that reviews games");
        return -1;
    }
    svc->analysis = a;
    /* The games a kill -9 left without a review. In a cluster every node
     * starting looks (another node's game ended and unreviewed when it died
     * is nobody else's work); two nodes starting together may both review
     * a game, and the second review replaces the first, the same. */
    char (*ids)[STORE_ID_BYTES] = calloc((size_t)a->cap, sizeof *ids);
    int n = 0;
    if (ids && store_analysis_missing(svc->store, 0, a->cap, ids, &n) == 0)
        for (int i = 0; i < n; i++)
            enqueue_stored(svc, ids[i]);
    if (n)
        board_log(svc, "%d ended game%s without a review: queued", n, n == 1 ? "" : "s");
    free(ids);
    return 0;
}

/* The reviewed game's seats: an accuracy each. */
static int seats_of(const review_job *j)
{
    game_state st;
    if (game_new(&st, j->kind, &j->opts, NULL, 0) != GAME_OK)
        return 2;
    return game_seats(&st);
}

/* The review as the wire has it, packed: the stored form. */
static uint8_t *pack_review(const review_job *j, int depth, size_t *len)
{
    Sungka__V1__Analysis msg = SUNGKA__V1__ANALYSIS__INIT;
    msg.game_id = (char *)j->game_id;
    msg.depth = depth;
    Sungka__V1__AnalysedMove *rows = NULL, **ptrs = NULL;
    if (j->rc != 0) {
        msg.status = SUNGKA__V1__ANALYSIS_STATUS__ANALYSIS_STATUS_NONE;
        msg.reason = (char *)j->err;
    } else {
        msg.status = SUNGKA__V1__ANALYSIS_STATUS__ANALYSIS_STATUS_DONE;
        rows = calloc((size_t)j->n + 1, sizeof *rows);
        ptrs = calloc((size_t)j->n + 1, sizeof *ptrs);
        if (!rows || !ptrs) {
            free(rows);
            free(ptrs);
            return NULL;
        }
        for (int i = 0; i < j->n; i++) {
            const game_analysis_move *m = &j->out[i];
            sungka__v1__analysed_move__init(&rows[i]);
            rows[i].seat = m->seat;
            rows[i].move = m->move;
            rows[i].best = m->best;
            rows[i].value_before = m->before.cu;
            rows[i].exact_before = m->before.exact;
            rows[i].value_after = m->after.cu;
            rows[i].exact_after = m->after.exact;
            rows[i].loss = m->loss;
            rows[i].judgement = (Sungka__V1__Judgement)m->judgement;
            rows[i].accuracy = m->accuracy;
            ptrs[i] = &rows[i];
        }
        msg.n_moves = (size_t)j->n;
        msg.moves = ptrs;
        msg.n_accuracy = (size_t)seats_of(j);
        msg.accuracy = (int32_t *)j->accuracy;
    }
    *len = protobuf_c_message_get_packed_size(&msg.base);
    uint8_t *buf = malloc(*len ? *len : 1);
    if (buf)
        protobuf_c_message_pack(&msg.base, buf);
    free(rows);
    free(ptrs);
    return buf;
}

void board_analysis_drain(board_service *svc)
{
    board_analysis *a = svc->analysis;
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    review_job *done = a->done;
    a->done = NULL;
    pthread_mutex_unlock(&a->mu);
    while (done) {
        review_job *j = done;
        done = j->next;
        size_t len = 0;
        uint8_t *data = NULL;
        /* A game whose end was not committed after all (the turn's
         * transaction failed, the game reloaded from its log) keeps no
         * review: it is queued again when it ends. */
        store_match_summary m;
        store_move *moves = NULL;
        int n = 0;
        bool ended = store_match(svc->store, j->game_id, &m, &moves, &n) == 0 &&
                     m.game.status >= STORE_FINISHED;
        free(moves);
        if (ended)
            data = pack_review(j, svc->cfg.analysis_depth, &len);
        if (!ended)
            board_log(svc, "game %s: its review is dropped: its end is not stored", j->game_id);
        else if (!data)
            board_log_at(svc, LOG_ERR, "game %s: out of memory for its review", j->game_id);
        else if (store_analysis_put(svc->store, j->game_id, board_wall_ms(), data, len) != 0)
            board_log_at(svc, LOG_ERR, "game %s: cannot store its review: %s", j->game_id,
                         store_last_error(svc->store));
        else if (j->rc != 0)
            board_log(svc, "game %s: not reviewed: %s", j->game_id, j->err);
        else
            board_log(svc, "game %s reviewed", j->game_id);
        free(data);
        job_free(j);
    }
}

bool board_analysis_waiting(board_service *svc, const char *game_id)
{
    board_analysis *a = svc->analysis;
    if (!a)
        return false;
    bool found = false;
    pthread_mutex_lock(&a->mu);
    if (strcmp(a->running, game_id) == 0)
        found = true;
    for (review_job *j = a->queue; j && !found; j = j->next)
        found = strcmp(j->game_id, game_id) == 0;
    for (review_job *j = a->done; j && !found; j = j->next)
        found = strcmp(j->game_id, game_id) == 0;
    pthread_mutex_unlock(&a->mu);
    return found;
}

void board_analysis_stop(board_service *svc)
{
    board_analysis *a = svc->analysis;
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    a->quit = true;
    a->stop = 1;
    pthread_cond_signal(&a->wake);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    for (review_job *j = a->queue, *next; j; j = next) {
        next = j->next;
        job_free(j);
    }
    for (review_job *j = a->done, *next; j; j = next) {
        next = j->next;
        job_free(j);
    }
    pthread_cond_destroy(&a->wake);
    pthread_mutex_destroy(&a->mu);
    free(a);
    svc->analysis = NULL;
}

void history_get_analysis(rpc_call *call, const ProtobufCMessage *request, void *user)
{
    board_service *svc = user;
    const Sungka__V1__GetAnalysisRequest *req = (const void *)request;
    char echo[48], err[160];
    if (!svc->store) {
        board_fail(call, RPC_FAILED_PRECONDITION, "this board service keeps no history");
        return;
    }
    if (!req->game_id[0] || strlen(req->game_id) > STORE_ID_BYTES - 1) {
        board_fail(call, RPC_INVALID_ARGUMENT, "give a match id");
        return;
    }
    void *data = NULL;
    size_t len = 0;
    int rc = store_analysis_get(svc->store, req->game_id, &data, &len);
    if (rc == 0) {
        Sungka__V1__Analysis *msg = (Sungka__V1__Analysis *)protobuf_c_message_unpack(
            &sungka__v1__analysis__descriptor, NULL, len, data);
        free(data);
        if (!msg) {
            board_fail(call, RPC_INTERNAL, "the stored review cannot be read");
            return;
        }
        rpc_call_reply(call, &msg->base);
        protobuf_c_message_free_unpacked(&msg->base, NULL);
        return;
    }
    if (rc != STORE_NOT_FOUND) {
        board_fail(call, RPC_INTERNAL, store_last_error(svc->store));
        return;
    }
    store_match_summary m;
    store_move *moves = NULL;
    int n = 0;
    rc = store_match(svc->store, req->game_id, &m, &moves, &n);
    free(moves);
    if (rc != 0) {
        snprintf(err, sizeof err, "there is no match '%s'",
                 board_echo(req->game_id, echo, sizeof echo));
        board_fail(call, rc == STORE_NOT_FOUND ? RPC_NOT_FOUND : RPC_INTERNAL,
                   rc == STORE_NOT_FOUND ? err : store_last_error(svc->store));
        return;
    }
    Sungka__V1__Analysis reply = SUNGKA__V1__ANALYSIS__INIT;
    reply.game_id = (char *)req->game_id;
    reply.depth = svc->cfg.analysis_depth;
    if (m.game.status < STORE_FINISHED) {
        reply.status = SUNGKA__V1__ANALYSIS_STATUS__ANALYSIS_STATUS_PENDING;
        reply.reason = (char *)"the game is not over: it is reviewed when it ends";
    } else if (!svc->analysis) {
        reply.status = SUNGKA__V1__ANALYSIS_STATUS__ANALYSIS_STATUS_NONE;
        reply.reason = (char *)"this service reviews no games (--analysis off)";
    } else if (board_analysis_waiting(svc, req->game_id)) {
        reply.status = SUNGKA__V1__ANALYSIS_STATUS__ANALYSIS_STATUS_PENDING;
        reply.reason = (char *)"not computed yet: the engine is on it or it waits its turn";
    } else {
        reply.status = SUNGKA__V1__ANALYSIS_STATUS__ANALYSIS_STATUS_PENDING;
        reply.reason = (char *)"not computed yet: it was not queued (the queue was full, or "
                               "the service stopped first); it is reviewed at the service's "
                               "next start";
    }
    rpc_call_reply(call, &reply.base);
}
