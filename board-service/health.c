/*
 * health.c — grpc.health.v1.Health, answered off the loop, and the
 * watchdog that tells when the loop is stuck (board_internal.h, "health.c").
 *
 * The loop is what health is about: a service whose loop waits on a
 * database that stopped answering serves nobody, and asking the loop cannot
 * tell, since the question waits with everything else. So the loop only
 * leaves a beat (when it last turned, and its own verdict: is the cluster
 * lease renewed?) in atomics, and the answer is given on rpc's side thread
 * from those alone: NOT_SERVING once the loop has not turned for
 * cfg.stall_limit_ms. A thread of our own watches the same beat and says
 * so in the log, once when the loop stops and once when it turns again, so
 * that a stuck service is never a silent one.
 *
 * Watch is the same answer as a stream (rpc_server_add_side_stream): sent at
 * once, then whenever it changes (the side thread asks again ten times a
 * second); an unknown service name is answered SERVICE_UNKNOWN and the
 * stream stays open, as the gRPC health protocol says, where Check refuses
 * it with NOT_FOUND. The streams are capped by --max-health-watches in all,
 * a quarter of them (at least one) per client address.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "board_rpc.h"
#include "grpc/health/v1/health.pb-c.h"

#define WATCH_EVERY_MS 250

struct board_health {
    atomic_llong beat_ms;          /* board_now_ms() of the loop's last turn */
    atomic_bool loop_serving;      /* the loop's own verdict at that turn */
    atomic_bool stopping;
    pthread_t watchdog;
    bool watching;
};

static bool known_service(const char *name)
{
    return !name[0] || strcmp(name, "sungka.v1.Register") == 0 ||
           strcmp(name, "sungka.v1.Board") == 0 || strcmp(name, "sungka.v1.Accounts") == 0 ||
           strcmp(name, "sungka.v1.Admin") == 0;
}

static int64_t stalled_for(const board_service *svc)
{
    return board_now_ms() - atomic_load(&svc->health->beat_ms);
}

static Grpc__Health__V1__HealthCheckResponse__ServingStatus serving(const board_service *svc)
{
    bool up = atomic_load(&svc->health->loop_serving) &&
              stalled_for(svc) < svc->cfg.stall_limit_ms;
    return up ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING
              : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING;
}

/* rpc's side thread: from the atomics only. */
static rpc_code answer_check(const ProtobufCMessage *request, ProtobufCMessage *reply,
                             char *why, size_t whylen, void *user)
{
    const board_service *svc = user;
    const Grpc__Health__V1__HealthCheckRequest *req = (const void *)request;
    Grpc__Health__V1__HealthCheckResponse *res = (void *)reply;
    if (!known_service(req->service)) {
        snprintf(why, whylen, "unknown service");
        return RPC_NOT_FOUND;
    }
    res->status = serving(svc);
    return RPC_OK;
}

/* The same, for each turn of a Watch stream. */
static rpc_code answer_watch(const ProtobufCMessage *request, ProtobufCMessage *reply,
                             char *why, size_t whylen, void *user)
{
    (void)why;
    (void)whylen;
    const board_service *svc = user;
    const Grpc__Health__V1__HealthCheckRequest *req = (const void *)request;
    Grpc__Health__V1__HealthCheckResponse *res = (void *)reply;
    res->status = known_service(req->service)
                      ? serving(svc)
                      : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVICE_UNKNOWN;
    return RPC_OK;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* One line when the loop stops turning, one when it turns again. */
static void *watch_loop(void *arg)
{
    board_service *svc = arg;
    struct board_health *h = svc->health;
    int64_t stuck_since = 0;        /* the beat the loop stopped at; 0: turning */
    while (!atomic_load(&h->stopping)) {
        sleep_ms(WATCH_EVERY_MS);
        int64_t beat = atomic_load(&h->beat_ms);
        int64_t now = board_now_ms();
        if (!stuck_since && now - beat >= svc->cfg.stall_limit_ms) {
            stuck_since = beat;
            board_log_at(svc, LOG_WARNING,
                         "the service's loop has not turned for %lld ms (is the database "
                         "answering?): health says NOT_SERVING until it does",
                         (long long)(now - beat));
        } else if (stuck_since && beat != stuck_since) {
            board_log_at(svc, LOG_NOTICE, "the service's loop turns again after %lld ms",
                         (long long)(beat - stuck_since));
            stuck_since = 0;
        }
    }
    return NULL;
}

int board_health_init(board_service *svc)
{
    svc->health = calloc(1, sizeof *svc->health);
    if (!svc->health)
        return -1;
    atomic_init(&svc->health->beat_ms, board_now_ms());
    atomic_init(&svc->health->loop_serving, true);
    atomic_init(&svc->health->stopping, false);
    int quarter = svc->cfg.max_health_watches / 4;
    rpc_side_stream_limits limits = {
        .max_streams = svc->cfg.max_health_watches,
        .max_per_address = quarter > 0 ? quarter : 1,
        .ipv6_prefix = svc->cfg.ipv6_prefix,
        .flag = "--max-health-watches",
    };
    if (rpc_server_add_side_method(svc->server, &grpc__health__v1__health__descriptor, "Check",
                                   answer_check, svc) != 0)
        return -1;
    return rpc_server_add_side_stream(svc->server, &grpc__health__v1__health__descriptor,
                                      "Watch", answer_watch, &limits, svc);
}

int board_health_watch(board_service *svc)
{
    struct board_health *h = svc->health;
    atomic_store(&h->beat_ms, board_now_ms());
    if (pthread_create(&h->watchdog, NULL, watch_loop, svc) != 0)
        return -1;
    h->watching = true;
    return 0;
}

void board_health_beat(board_service *svc, int64_t now)
{
    atomic_store(&svc->health->loop_serving, board_cluster_healthy(svc));
    atomic_store(&svc->health->beat_ms, now);
}

void board_health_free(board_service *svc)
{
    struct board_health *h = svc->health;
    if (!h)
        return;
    atomic_store(&h->stopping, true);
    if (h->watching)
        pthread_join(h->watchdog, NULL);
    free(h);
    svc->health = NULL;
}
