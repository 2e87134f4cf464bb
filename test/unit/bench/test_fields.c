/* The result contract table: its rows are consistent with each other, and the path helpers. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/fields.h"

/* The path of the list an item row belongs to ("fio.jobs[].name" -> "fio.jobs"), or 0. */
static size_t list_prefix(const char *path)
{
    const char *b = path ? strstr(path, "[].") : NULL;
    return b ? (size_t)(b - path) : 0;
}

static void test_rows_are_consistent(void **state)
{
    (void)state;
    for (size_t i = 0; i < bench_nfields; i++) {
        const struct bench_field *f = &bench_fields[i];
        char where[300];
        (void)snprintf(where, sizeof(where), "row %zu (%s / %s)", i, f->path ? f->path : "-",
                       f->status ? f->status : "-");
        if (!f->path && !f->status)
            fail_msg("%s: neither a result nor a status path", where);
        if (!f->description || strlen(f->description) < 3)
            fail_msg("%s: no description", where);
        for (size_t j = 0; j < i; j++) {
            const struct bench_field *g = &bench_fields[j];
            if (f->path && g->path && strcmp(f->path, g->path) == 0)
                fail_msg("%s: result path twice", where);
            if (f->status && g->status && strcmp(f->status, g->status) == 0)
                fail_msg("%s: status path twice", where);
        }
        /* an item row belongs to a list row, in the result and in status */
        size_t n = list_prefix(f->path);
        if (n) {
            char list[128];
            (void)snprintf(list, sizeof(list), "%.*s", (int)n, f->path);
            const struct bench_field *l = bench_field_find(list, false);
            if (!l || l->type != BF_LIST) {
                fail_msg("%s: no list row %s", where, list);
                continue; /* not reached: fail_msg ends the test */
            }
            if (f->status && (!l->status || list_prefix(f->status) != strlen(l->status) ||
                              strncmp(f->status, l->status, strlen(l->status)) != 0))
                fail_msg("%s: status path outside its list's %s", where,
                         l->status ? l->status : "(none)");
        }
        /* every status path hangs below a status row (or is at the top) */
        if (f->status && !list_prefix(f->status) && strchr(f->status, '.')) {
            char parent[128];
            (void)snprintf(parent, sizeof(parent), "%.*s",
                           (int)(strrchr(f->status, '.') - f->status), f->status);
            const struct bench_field *p = bench_field_find(parent, true);
            if (!p || (p->type != BF_SECTION && p->type != BF_OBJECT))
                fail_msg("%s: no section row for status %s", where, parent);
        }
        if (f->type == BF_LIST && f->status && f->max_items <= 0)
            fail_msg("%s: a list in status needs max_items", where);
        if (f->presence != BP_OPTIONAL && !f->status)
            fail_msg("%s: promised in status but has no status path", where);
    }
}

static void test_columns_point_at_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < bench_ncolumns; i++) {
        const char *p = bench_columns[i].json_path;
        if (strncmp(p, ".status.", 8) != 0)
            continue;
        const char *s = p + 8;
        /* phase, target, clients, message are the controller's own fields (the CRD's hand-written
         * status); every other column reads a row of the contract */
        static const char *const own[] = {"phase", "target", "clients", "message"};
        bool is_own = false;
        for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++)
            is_own = is_own || strcmp(s, own[k]) == 0;
        if (!is_own && !bench_field_find(s, true))
            fail_msg("column %s: %s is not a status row", bench_columns[i].name, p);
    }
}

static void test_paths(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    assert_int_equal(bench_json_put(o, "a.b.c", cJSON_CreateNumber(3)), 0);
    assert_int_equal(bench_json_put(o, "a.b.d", cJSON_CreateString("x")), 0);
    assert_int_equal(bench_json_put(o, "a.b.c", cJSON_CreateNumber(4)), 0); /* replaced */
    assert_true(bench_json_at(o, "a.b.c")->valuedouble == 4);
    assert_string_equal(bench_json_at(o, "a.b.d")->valuestring, "x");
    assert_null(bench_json_at(o, "a.x"));
    assert_null(bench_json_at(o, "a.b.c.d")); /* below a number */
    assert_int_equal(bench_json_put(o, "a.b.c.d", cJSON_CreateNumber(1)), -EINVAL);
    assert_null(bench_json_at(o, ""));
    assert_string_equal(bench_field_key("summary.tps"), "tps");
    assert_string_equal(bench_field_key("tps"), "tps");
    /* checked access: null reads as absent */
    cJSON *r = cJSON_Parse("{\"summary\":{\"tps\":null,\"latencyAvgMs\":2}}");
    assert_null(bench_get(r, BK_SUMMARY_TPS));
    assert_true(bench_get(r, BK_SUMMARY_LATENCY_AVG_MS)->valuedouble == 2);
    assert_string_equal(bench_key(BK_FIO_JOBS_READ_CLAT_US_P99), "p99");
    assert_string_equal(bench_rel(BK_FIO_JOBS_READ_CLAT_US_P99), "read.clatUs.p99");
    assert_string_equal(bench_status_key(BK_FIO_JOBS_READ_CLAT_US_P99), "p99"); /* readClatUs.p99 */
    cJSON_Delete(r);
    cJSON_Delete(o);
}

/* Status' timeline series read back: numbers, "-" for a point without a value, capped at max;
 * bench_series_timeline gives the result's shape (its keys) with as many points. */
static void test_series(void **state)
{
    (void)state;
    double v[4];
    assert_int_equal(bench_series_parse("1 4.5  - 7", v, 4), 4);
    assert_true(v[0] == 1 && v[1] == 4.5 && isnan(v[2]) && v[3] == 7);
    assert_int_equal(bench_series_parse("1 2 3 4 5", v, 4), 4);
    assert_int_equal(bench_series_parse(NULL, v, 4), 0);
    assert_int_equal(bench_series_parse("  ", v, 4), 0);
    cJSON *st = cJSON_Parse("{\"timeline\":{\"elapsedSeconds\":\"1 2 3\",\"tps\":\"10 - 30\","
                            "\"latencyMs\":\"0.5 0.6 0.7\"}}");
    cJSON *tl = bench_series_timeline(st);
    assert_int_equal(cJSON_GetArraySize(tl), 3);
    const cJSON *p1 = cJSON_GetArrayItem(tl, 1);
    assert_true(cJSON_GetObjectItem(p1, "t")->valuedouble == 2);
    assert_null(cJSON_GetObjectItem(p1, "tps"));
    assert_true(cJSON_GetObjectItem(cJSON_GetArrayItem(tl, 2), "latencyMs")->valuedouble == 0.7);
    assert_null(bench_series_timeline(cJSON_GetObjectItem(st, "timeline")));
    cJSON_Delete(tl);
    cJSON_Delete(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_are_consistent),
        cmocka_unit_test(test_columns_point_at_rows),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
