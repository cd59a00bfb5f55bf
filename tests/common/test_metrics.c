/*
 * test_metrics.c — a metric set's index (metrics.c): a counter asked for
 * again by name and label (a refusal's reason, on every refusal) is the one
 * made the first time, for every one of a full set; a full set makes no
 * more; a name and label already taken by another kind is refused. Counts
 * land on the metric found, and the published page shows each once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics.h"

static void found_again(void **state)
{
    (void)state;
    metrics *set = metrics_create();
    assert_non_null(set);
    metric *made[METRICS_MAX];
    char reason[32];
    for (int i = 0; i < METRICS_MAX; i++) {
        snprintf(reason, sizeof reason, "REASON_%d", i);
        made[i] = metrics_counter(set, "sungka_refusals_total", "Refusals.", "reason", reason);
        assert_non_null(made[i]);
        for (int j = 0; j < i; j++)
            assert_ptr_not_equal(made[i], made[j]);
    }
    for (int i = METRICS_MAX; i-- > 0;) {
        snprintf(reason, sizeof reason, "REASON_%d", i);
        metric *again = metrics_counter(set, "sungka_refusals_total", "Refusals.", "reason",
                                        reason);
        assert_ptr_equal(again, made[i]);
        metric_add(again, i + 1);
    }
    assert_null(metrics_counter(set, "sungka_refusals_total", "Refusals.", "reason", "NEW"));
    assert_null(metrics_gauge(set, "sungka_refusals_total", "Refusals.", "reason", "REASON_7"));
    metrics_publish(set);
    size_t len;
    char *page = metrics_format(set, &len);
    assert_non_null(page);
    assert_non_null(strstr(page, "sungka_refusals_total{reason=\"REASON_7\"} 8\n"));
    const char *first = strstr(page, "{reason=\"REASON_159\"}");
    assert_non_null(first);
    assert_null(strstr(first + 1, "{reason=\"REASON_159\"}"));
    free(page);
    metrics_free(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(found_again)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
