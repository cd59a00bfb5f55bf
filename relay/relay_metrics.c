/*
 * relay_metrics.c — the relay's metrics (--metrics HOST:PORT, GET /metrics;
 * their meaning is in docs/operating.md, "Monitoring").
 *
 * Events are counted where they pass (relay.c: relay__send; relay_feed.c:
 * on_news_event), refusals through the RPC server's hook; the gauges are
 * counted here from the feeds, at most once a second. Everything runs on the
 * loop thread; the listener's thread (metrics.c) only formats what
 * relay__metrics_turn published.
 */
#include <stdio.h>

#include "log_line.h"
#include "relay_internal.h"

#define GAUGES_EVERY_S 1.0

static const double turn_bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                     0.1, 0.25, 0.5, 1, 2.5, 5, 10};

int relay__metrics_start(relay *r, char *err, size_t errlen)
{
    if (!r->cfg.metrics)
        return 0;
    metrics *set = metrics_create();
    if (!set) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    relay_metrics *m = &r->m;
    m->feeds = metrics_gauge(set, "sungka_relay_feeds",
                             "Games relayed: each one stream from upstream.", NULL, NULL);
    m->watchers = metrics_gauge(set, "sungka_relay_watchers",
                                "Observers holding a watcher slot here.", NULL, NULL);
    m->streams = metrics_gauge(set, "sungka_relay_streams",
                               "Observers' open event streams here.", NULL, NULL);
    m->events_received = metrics_counter(set, "sungka_relay_events_received_total",
                                         "Events received from upstream.", NULL, NULL);
    m->events_relayed = metrics_counter(set, "sungka_relay_events_sent_total",
                                        "Events queued on observers' streams.", NULL, NULL);
    m->limits_hit = metrics_counter(set, "sungka_limits_hit_total",
                                    "Calls refused RESOURCE_EXHAUSTED: a limit was reached.",
                                    NULL, NULL);
    m->loop_turn = metrics_histogram(set, "sungka_loop_turn_seconds",
                                     "The loop's work in one turn, without its wait.",
                                     turn_bounds,
                                     (int)(sizeof turn_bounds / sizeof turn_bounds[0]));
    int port;
    if (metrics_serve(set, r->cfg.metrics, &port, err, errlen) != 0) {
        metrics_free(set);
        *m = (relay_metrics){0};
        return -1;
    }
    m->set = set;
    metrics_publish(set);
    log_line_say(LOG_NOTICE, "sungka-relay: metrics on port %d (GET /metrics)\n", port);
    return 0;
}

void relay__metrics_refusal(void *user, rpc_code code, const char *reason)
{
    relay *r = user;
    if (!r->m.set)
        return;
    if (code == RPC_RESOURCE_EXHAUSTED)
        metric_add(r->m.limits_hit, 1);
    metric_add(metrics_counter(r->m.set, "sungka_refusals_total",
                               "Calls refused, by the reason sent with the status.", "reason",
                               reason ? reason : rpc_code_name(code)),
               1);
}

void relay__metrics_turn(relay *r, double started)
{
    if (!r->m.set)
        return;
    double now = metrics_now();
    metric_observe(r->m.loop_turn, now - started);
    if (now >= r->m.next_gauges) {
        int streams = 0;
        for (feed *f = r->feeds; f; f = f->next)
            streams += f->n_watching;
        metric_set(r->m.feeds, r->n_feeds);
        metric_set(r->m.watchers, r->n_watchers);
        metric_set(r->m.streams, streams);
        r->m.next_gauges = now + GAUGES_EVERY_S;
    }
    metrics_publish(r->m.set);
}

void relay__metrics_free(relay *r)
{
    metrics_free(r->m.set);
    r->m = (relay_metrics){0};
}
