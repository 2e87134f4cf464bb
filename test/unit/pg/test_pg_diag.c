/* Unit tests for pkg/pg/pg_diag.c: wait-event tally, lag samples, JSON forms. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/pg/pg_diag.h"

static void test_tally_counts_and_sort(void **state)
{
    (void)state;
    struct pg_wait_tally *t = calloc(1, sizeof(*t));
    assert_non_null(t);
    pg_wait_tally_add(t, "CPU", 3);
    pg_wait_tally_add(t, "IO:DataFileRead", 5);
    pg_wait_tally_add(t, "Client:ClientRead", 1);
    pg_wait_tally_add(t, "CPU", 4);
    assert_int_equal(t->n, 3);
    assert_int_equal(t->backend_samples, 13);
    assert_int_equal(pg_wait_tally_get(t, "CPU"), 7);
    assert_int_equal(pg_wait_tally_get(t, "IO:DataFileRead"), 5);
    assert_int_equal(pg_wait_tally_get(t, "Lock:tuple"), 0);
    pg_wait_tally_sort(t);
    assert_string_equal(t->ev[0].name, "CPU");
    assert_string_equal(t->ev[1].name, "IO:DataFileRead");
    assert_string_equal(t->ev[2].name, "Client:ClientRead");
    free(t);
}

/* More distinct names than the cap: the rest lands in "Other", totals stay exact. */
static void test_tally_bounded(void **state)
{
    (void)state;
    struct pg_wait_tally *t = calloc(1, sizeof(*t));
    assert_non_null(t);
    for (int i = 0; i < PG_WAIT_NAMES_MAX + 20; i++) {
        char name[32];
        (void)snprintf(name, sizeof(name), "LWLock:x%d", i);
        pg_wait_tally_add(t, name, 2);
    }
    assert_int_equal(t->n, PG_WAIT_NAMES_MAX);
    assert_int_equal(t->backend_samples, 2 * (PG_WAIT_NAMES_MAX + 20));
    int64_t sum = 0;
    for (int i = 0; i < t->n; i++)
        sum += t->ev[i].count;
    assert_int_equal(sum, t->backend_samples);
    assert_int_equal(pg_wait_tally_get(t, "Other"), 2 * 21);
    free(t);
}

static void test_tally_json(void **state)
{
    (void)state;
    struct pg_wait_tally *t = calloc(1, sizeof(*t));
    assert_non_null(t);
    t->samples = 4;
    pg_wait_tally_add(t, "IO:WALSync", 2);
    pg_wait_tally_add(t, "CPU", 6);
    cJSON *j = pg_wait_tally_to_json(t);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItem(j, "samples")->valueint, 4);
    assert_int_equal(cJSON_GetObjectItem(j, "backendSamples")->valueint, 8);
    cJSON *ev = cJSON_GetObjectItem(j, "events");
    assert_non_null(ev);
    assert_string_equal(ev->child->string, "CPU"); /* sorted by count */
    assert_int_equal(cJSON_GetObjectItem(ev, "IO:WALSync")->valueint, 2);
    cJSON_Delete(j);
    free(t);
}

static void test_lag(void **state)
{
    (void)state;
    struct pg_lag_samples *l = calloc(1, sizeof(*l));
    assert_non_null(l);
    pg_lag_add(l, 1.5, 100);
    pg_lag_add(l, -3, 0); /* clock skew: clamped */
    pg_lag_add(l, 9.25, 4096);
    assert_int_equal(l->n, 3);
    assert_true(l->ms[1] == 0.0);
    assert_true(l->ms_max == 9.25);
    assert_int_equal(l->bytes_max, 4096);
    for (int i = 0; i < PG_LAG_SAMPLES_MAX + 5; i++)
        pg_lag_add(l, 1, 1);
    assert_int_equal(l->n, PG_LAG_SAMPLES_MAX);
    free(l);
}

static void test_sql_counts_cpu_explicitly(void **state)
{
    (void)state;
    /* the documented meaning of CPU: active and no wait event; our own backend excluded */
    assert_non_null(strstr(pg_wait_event_sql, "WHEN state = 'active' THEN 'CPU'"));
    assert_non_null(strstr(pg_wait_event_sql, "application_name = $1"));
    assert_non_null(strstr(pg_wait_event_sql, "pg_backend_pid()"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tally_counts_and_sort),
        cmocka_unit_test(test_tally_bounded),
        cmocka_unit_test(test_tally_json),
        cmocka_unit_test(test_lag),
        cmocka_unit_test(test_sql_counts_cpu_explicitly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
