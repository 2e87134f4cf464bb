/* The workers' results kept small while a run is collected: the slim tree keeps what the
 * reconciler reads, the whole result comes back as it was, and the aggregate and the result
 * ConfigMap built one worker at a time are those of all the whole results at once. */
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

#include "pkg/api/resultcm.h"
#include "pkg/bench/aggregate.h"
#include "pkg/bench/histogram.h"
#include "pkg/bench/latseries.h"
#include "pkg/controller/collect.h"
#include "pkg/controller/reconcile.h"

#define N 24
#define T0 INT64_C(1800000000000000)

/* Worker index's whole result: a timeline, a histogram, a latency series, a window, an error
 * for some; worker 5 has none. */
static cJSON *worker(int index, int points)
{
    if (index == 5)
        return NULL;
    char buf[600];
    (void)snprintf(
        buf, sizeof(buf),
        "{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":%s,\"worker\":%d,"
        "\"exitCode\":%d,\"startTime\":\"2027-01-15T08:00:0%d.000Z\","
        "\"endTime\":\"2027-01-15T08:01:0%d.000Z\",\"errors\":%s,"
        "\"pgbench\":{\"clients\":2,\"threads\":1},"
        "\"summary\":{\"transactionsProcessed\":%d,\"failedTransactions\":0,"
        "\"abortedClients\":0,\"tps\":%d.5,\"latencyAvgMs\":2.%d,\"latencyStddevMs\":0.5},"
        "\"window\":{\"barrier\":1800000000,\"lateSeconds\":0.0%d,\"endSeconds\":%d.0}}",
        index % 7 ? "true" : "false", index, index % 7 ? 0 : 2, index % 10, index % 10,
        index % 7 ? "[]" : "[\"pgbench: client 1 aborted\"]", 1000 + 37 * index, 100 + index,
        index % 10, index % 10, 30 + index % 3);
    cJSON *r = cJSON_Parse(buf);
    assert_non_null(r);
    cJSON *tl = cJSON_AddArrayToObject(r, "timeline");
    for (int t = 1; t <= points; t++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "t", t);
        cJSON_AddNumberToObject(p, "tps", 100.25 + (t + index) % 7);
        cJSON_AddNumberToObject(p, "latencyMs", 2.125 + index * 0.01);
        cJSON_AddItemToArray(tl, p);
    }
    struct bench_hist *h = bench_hist_new();
    struct bench_latseries *s = bench_latseries_new(T0 + (int64_t)index * 1000);
    for (int v = 1; v <= 1000 + 37 * index; v++) {
        bench_hist_add(h, (int64_t)v * 37 + index);
        bench_latseries_add(s, T0 + (int64_t)v * 29000 * (1 + index % 3), (int64_t)v * 37 + index);
    }
    cJSON_AddItemToObject(r, "histogram", bench_hist_to_json(h));
    cJSON_AddItemToObject(r, "latencySeries", bench_latseries_to_json(s));
    bench_hist_free(h);
    bench_latseries_free(s);
    return r;
}

static char *printed(const cJSON *o)
{
    return o ? cJSON_PrintUnformatted(o) : strdup("null");
}

static void check_same(const cJSON *a, const cJSON *b)
{
    char *x = printed(a), *y = printed(b);
    assert_string_equal(x, y);
    free(x);
    free(y);
}

static void run(int points, size_t limit)
{
    static struct ctrl_observed o;
    memset(&o, 0, sizeof(o));
    cJSON *br =
        cJSON_Parse("{\"apiVersion\":\"pgbench.dev/v1alpha1\",\"kind\":\"BenchmarkRun\","
                    "\"metadata\":{\"name\":\"big\",\"namespace\":\"ns\",\"uid\":\"u-9\"}}");
    o.br = br;
    cJSON *whole[N];
    for (int i = 0; i < N; i++) {
        whole[i] = worker(i, points);
        ctrl_result_keep(&o.results[i], &o.kept[i], worker(i, points));
    }
    /* slim where whole: no per-interval member; the rest as it was */
    for (int i = 0; i < N; i++) {
        if (!whole[i]) {
            assert_null(o.results[i]);
            assert_null(ctrl_result_whole(o.results[i], o.kept[i]));
            continue;
        }
        assert_null(cJSON_GetObjectItem(o.results[i], "latencySeries"));
        assert_null(cJSON_GetObjectItem(o.results[i], "histogram"));
        assert_null(cJSON_GetObjectItem(o.results[i], "timeline"));
        check_same(cJSON_GetObjectItem(o.results[i], "window"),
                   cJSON_GetObjectItem(whole[i], "window"));
        check_same(cJSON_GetObjectItem(o.results[i], "errors"),
                   cJSON_GetObjectItem(whole[i], "errors"));
        cJSON *back = ctrl_result_whole(o.results[i], o.kept[i]);
        check_same(back, whole[i]);
        cJSON_Delete(back);
    }
    size_t kept = 0, text = 0;
    ctrl_result_sizes(o.kept, N, &kept, &text);
    assert_true(kept > 0 && kept < text / 2); /* deflated */
    char e1[256] = "", e2[256] = "";
    cJSON *want = bench_aggregate((const cJSON *const *)whole, N, e1, sizeof(e1));
    cJSON *got = ctrl_collect_aggregate(o.results, o.kept, N, e2, sizeof(e2));
    assert_non_null(want);
    check_same(got, want);
    cJSON *cm_want =
        api_result_configmap(br, want, (const cJSON *const *)whole, N, limit, e1, sizeof(e1));
    cJSON *cm_got = ctrl_collect_configmap(br, got, o.results, o.kept, N, limit, e2, sizeof(e2));
    assert_non_null(cm_want);
    check_same(cm_got, cm_want);
    const char *doc = cJSON_GetStringValue(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cm_got, "data"), API_RESULT_KEY));
    assert_non_null(doc);
    assert_true((strstr(doc, "\"downsampled\"") != NULL) == (points > 100));
    cJSON_Delete(cm_want);
    cJSON_Delete(cm_got);
    cJSON_Delete(want);
    cJSON_Delete(got);
    for (int i = 0; i < N; i++) {
        cJSON_Delete(whole[i]);
        ctrl_result_drop(&o.results[i], &o.kept[i]);
        assert_null(o.results[i]);
        assert_null(o.kept[i]);
    }
    cJSON_Delete(br);
}

static void test_whole_fits(void **state)
{
    (void)state;
    run(30, API_RESULT_MAX_BYTES);
}

static void test_downsampled(void **state)
{
    (void)state;
    run(400,
        (size_t)120 * 1024); /* timelines thinned, then the workers' histograms and series go */
}

/* A compact summary (no per-interval member) is kept as it is, and read back whole. */
static void test_compact_kept_whole(void **state)
{
    (void)state;
    static struct ctrl_observed o;
    memset(&o, 0, sizeof(o));
    cJSON *r = cJSON_Parse("{\"kind\":\"pgbench\",\"summary\":{\"tps\":10}}");
    ctrl_result_keep(&o.results[0], &o.kept[0], r);
    assert_ptr_equal(o.results[0], r);
    assert_null(o.kept[0]);
    cJSON *back = ctrl_result_whole(o.results[0], o.kept[0]);
    check_same(back, r);
    cJSON_Delete(back);
    ctrl_result_keep(&o.results[0], &o.kept[0], NULL);
    assert_null(o.results[0]);
}

/* A result taken out packed (as the executor keeps an early result) and put back is the same:
 * slim where it was, whole when read. */
static void test_take_and_keep_packed(void **state)
{
    (void)state;
    static struct ctrl_observed o;
    memset(&o, 0, sizeof(o));
    cJSON *whole = worker(3, 40);
    ctrl_result_keep(&o.results[2], &o.kept[2], worker(3, 40));
    struct ctrl_kept_result *k = ctrl_result_take(&o.results[2], &o.kept[2]);
    assert_non_null(k);
    assert_null(o.results[2]);
    assert_null(o.kept[2]);
    ctrl_result_keep_packed(&o.results[7], &o.kept[7], k);
    assert_null(cJSON_GetObjectItem(o.results[7], "histogram"));
    assert_non_null(cJSON_GetObjectItem(o.results[7], "summary"));
    cJSON *back = ctrl_result_whole(o.results[7], o.kept[7]);
    check_same(back, whole);
    cJSON_Delete(back);
    /* a whole result without per-interval members is packed when taken */
    cJSON *small = cJSON_Parse("{\"kind\":\"fio\",\"fio\":{\"jobs\":[]}}");
    ctrl_result_keep(&o.results[4], &o.kept[4], cJSON_Duplicate(small, 1));
    k = ctrl_result_take(&o.results[4], &o.kept[4]);
    ctrl_result_keep_packed(&o.results[4], &o.kept[4], k);
    back = ctrl_result_whole(o.results[4], o.kept[4]);
    check_same(back, small);
    cJSON_Delete(back);
    cJSON_Delete(small);
    cJSON_Delete(whole);
    ctrl_result_drop(&o.results[7], &o.kept[7]);
    ctrl_result_drop(&o.results[4], &o.kept[4]);
    assert_null(ctrl_result_take(&o.results[9], &o.kept[9]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_fits),
        cmocka_unit_test(test_downsampled),
        cmocka_unit_test(test_compact_kept_whole),
        cmocka_unit_test(test_take_and_keep_packed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
