/* The result ConfigMap: what it holds, and how a result too big for it is brought under the limit
 * (and says so). Sizes are checked on the serialized object, as the API server receives it. */
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

#include "pkg/bench/aggregate.h"
#include "pkg/util/json.h"
#include "pkg/bench/histogram.h"
#include "pkg/api/manifest.h"
#include "pkg/controller/reconcile.h"
#include "pkg/api/resultcm.h"

static cJSON *br(void)
{
    cJSON *b = cJSON_Parse("{\"apiVersion\":\"pgbench.dev/v1alpha1\",\"kind\":\"BenchmarkRun\","
                           "\"metadata\":{\"name\":\"big\",\"namespace\":\"ns\",\"uid\":\"u-9\"}}");
    assert_non_null(b);
    return b;
}

/* A worker's result: points timeline points (t = 1..points), a histogram of 1000 values, errors
 * error lines of err_len bytes. */
static cJSON *worker(int index, int points, int errors, int err_len)
{
    char buf[512];
    (void)snprintf(buf, sizeof(buf),
                   "{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":true,\"worker\":%d,"
                   "\"exitCode\":0,\"summary\":{\"transactionsProcessed\":1000,"
                   "\"failedTransactions\":0,\"abortedClients\":0,\"tps\":%d.5,"
                   "\"latencyAvgMs\":2.0,\"latencyStddevMs\":0.5},\"statements\":[]}",
                   index, 100 + index);
    cJSON *r = cJSON_Parse(buf);
    assert_non_null(r);
    cJSON *tl = cJSON_AddArrayToObject(r, "timeline");
    for (int t = 1; t <= points; t++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "t", t);
        cJSON_AddNumberToObject(p, "tps", 100.25 + t % 7);
        cJSON_AddNumberToObject(p, "latencyMs", 2.125);
        cJSON_AddNumberToObject(p, "stddevMs", 0.5);
        cJSON_AddNumberToObject(p, "failed", 0);
        cJSON_AddItemToArray(tl, p);
    }
    struct bench_hist *h = bench_hist_new();
    for (int v = 1; v <= 1000; v++)
        bench_hist_add(h, (int64_t)v * 37 + index);
    cJSON_AddItemToObject(r, "histogram", bench_hist_to_json(h));
    bench_hist_free(h);
    cJSON *errs = cJSON_AddArrayToObject(r, "errors");
    char *line = malloc((size_t)err_len + 1);
    assert_non_null(line);
    memset(line, 'e', (size_t)err_len);
    line[err_len] = '\0';
    for (int i = 0; i < errors; i++)
        cJSON_AddItemToArray(errs, cJSON_CreateString(line));
    free(line);
    return r;
}

struct run {
    cJSON *br, *agg;
    cJSON *results[64];
    int n;
};

static void run_make(struct run *r, int n, int points, int errors, int err_len)
{
    memset(r, 0, sizeof(*r));
    r->br = br();
    r->n = n;
    for (int i = 0; i < n; i++)
        r->results[i] = worker(i, points, errors, err_len);
    char err[256];
    r->agg = bench_aggregate((const cJSON *const *)r->results, (size_t)n, err, sizeof(err));
    assert_non_null(r->agg);
}

/* The workers' results as they are now (caller frees), to show that the ConfigMap's ladder, which
 * points into them instead of copying them, leaves them alone. */
static cJSON *results_copy(const struct run *r)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < r->n; i++)
        cJSON_AddItemToArray(a, cJSON_Duplicate(r->results[i], 1));
    return a;
}

static void assert_results_unchanged(const struct run *r, cJSON *before)
{
    assert_int_equal(cJSON_GetArraySize(before), r->n);
    for (int i = 0; i < r->n; i++)
        assert_true(cJSON_Compare(cJSON_GetArrayItem(before, i), r->results[i], 1));
    cJSON_Delete(before);
}

static void run_free(struct run *r)
{
    for (int i = 0; i < r->n; i++)
        cJSON_Delete(r->results[i]);
    cJSON_Delete(r->agg);
    cJSON_Delete(r->br);
}

/* The ConfigMap's serialized length, and its result.json parsed (caller frees). */
static cJSON *open_cm(const cJSON *cm, size_t *size)
{
    char *all = cJSON_PrintUnformatted(cm);
    assert_non_null(all);
    *size = strlen(all);
    free(all);
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(cm, "data");
    assert_int_equal(cJSON_GetArraySize(data), 1);
    const char *text = util_jkey(data, "result.json");
    assert_non_null(text);
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    return doc;
}

static int len(const cJSON *o, const char *k)
{
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* Points kept evenly spaced from the first: t = 1, 1 + k, 1 + 2k, ... */
static void assert_even(const cJSON *timeline)
{
    int n = cJSON_GetArraySize(timeline);
    assert_true(n >= 2);
    double t0 = util_jnum(cJSON_GetArrayItem(timeline, 0), "t", -1);
    double k = util_jnum(cJSON_GetArrayItem(timeline, 1), "t", -1) - t0;
    assert_float_equal(t0, 1, 0);
    assert_true(k >= 1);
    for (int i = 0; i < n; i++)
        assert_float_equal(util_jnum(cJSON_GetArrayItem(timeline, i), "t", -1), t0 + i * k, 0);
}

static void test_small_result_whole(void **state)
{
    (void)state;
    struct run r;
    run_make(&r, 2, 30, 1, 40);
    char err[256] = "";
    cJSON *cm = api_result_configmap(r.br, r.agg, (const cJSON *const *)r.results, r.n,
                                     API_RESULT_MAX_BYTES, err, sizeof(err));
    assert_non_null(cm);
    assert_string_equal(util_jstr(cm, "metadata.name"), "big-result");
    assert_string_equal(util_jstr(cm, "apiVersion"), "v1");
    size_t size;
    cJSON *doc = open_cm(cm, &size);
    assert_null(cJSON_GetObjectItemCaseSensitive(doc, "downsampled"));
    /* the aggregate as it is, plus the three members */
    cJSON *bare = cJSON_Duplicate(doc, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(bare, "workerResults");
    cJSON_DeleteItemFromObjectCaseSensitive(bare, "histogramHdr");
    assert_true(cJSON_Compare(bare, r.agg, 1));
    cJSON_Delete(bare);
    const cJSON *wr = cJSON_GetObjectItemCaseSensitive(doc, "workerResults");
    assert_int_equal(cJSON_GetArraySize(wr), 2);
    for (int i = 0; i < 2; i++)
        assert_true(cJSON_Compare(cJSON_GetArrayItem(wr, i), r.results[i], 1));
    const char *hdr = util_jstr(doc, "histogramHdr");
    assert_non_null(hdr);
    assert_true(strlen(hdr) > 16 &&
                strspn(hdr, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                            "0123456789+/=") == strlen(hdr));
    cJSON_Delete(doc);
    cJSON_Delete(cm);
    /* no aggregate: nothing */
    assert_null(api_result_configmap(r.br, NULL, NULL, 0, API_RESULT_MAX_BYTES, err, sizeof(err)));
    assert_true(strlen(err) > 0);
    run_free(&r);
}

/* A long run (2 workers, 20000 progress points each: about 3 MiB) fits under 900 KiB with its
 * timelines evenly thinned, and result.json says from how many points to how many. */
static void test_long_timelines_downsampled(void **state)
{
    (void)state;
    struct run r;
    run_make(&r, 2, 20000, 0, 0);
    cJSON *agg_before = cJSON_Duplicate(r.agg, 1);
    cJSON *results_before = results_copy(&r);
    char *whole = cJSON_PrintUnformatted(r.agg);
    assert_true(strlen(whole) > 900 * 1024UL); /* the test needs a result that does not fit */
    free(whole);
    char err[256] = "";
    cJSON *cm = api_result_configmap(r.br, r.agg, (const cJSON *const *)r.results, r.n,
                                     900 * 1024UL, err, sizeof(err));
    assert_non_null(cm);
    size_t size;
    cJSON *doc = open_cm(cm, &size);
    assert_true(size < 900 * 1024UL);
    assert_true(strlen(util_jkey(util_jget(cm, "data"), "result.json")) < 1024 * 1024UL);
    int kept = len(doc, "timeline");
    assert_true(kept >= 60 && kept < 20000);
    assert_even(cJSON_GetObjectItemCaseSensitive(doc, "timeline"));
    assert_float_equal(util_jnum(doc, "downsampled.limitBytes", 0), 900 * 1024, 0);
    assert_float_equal(util_jnum(doc, "downsampled.timelinePoints.from", 0), 20000, 0);
    assert_float_equal(util_jnum(doc, "downsampled.timelinePoints.to", 0), kept, 0);
    assert_float_equal(util_jnum(doc, "downsampled.workerTimelines.from", 0), 20000, 0);
    const cJSON *wr = cJSON_GetObjectItemCaseSensitive(doc, "workerResults");
    assert_int_equal(cJSON_GetArraySize(wr), 2);
    for (int i = 0; i < 2; i++) {
        const cJSON *w = cJSON_GetArrayItem(wr, i);
        assert_float_equal(util_jnum(w, "worker", -1), i, 0);
        assert_float_equal(util_jnum(doc, "downsampled.workerTimelines.to", 0), len(w, "timeline"),
                           0);
        assert_even(cJSON_GetObjectItemCaseSensitive(w, "timeline"));
        assert_non_null(cJSON_GetObjectItemCaseSensitive(w, "histogram"));
    }
    /* nothing else was reduced, and the summary is the aggregate's */
    assert_null(util_jget(doc, "downsampled.workerHistograms"));
    assert_null(util_jget(doc, "downsampled.workerResults"));
    assert_true(cJSON_Compare(util_jget(doc, "summary"), util_jget(r.agg, "summary"), 1));
    assert_true(cJSON_Compare(util_jget(doc, "histogram"), util_jget(r.agg, "histogram"), 1));
    assert_true(cJSON_Compare(agg_before, r.agg, 1)); /* the input is left alone */
    cJSON_Delete(agg_before);
    assert_results_unchanged(&r, results_before);
    cJSON_Delete(doc);
    cJSON_Delete(cm);
    run_free(&r);
}

/* 48 workers with 200 long error lines each (about 2.9 MiB of errors): thinning timelines and
 * removing the workers' histograms and timelines is not enough, so the worker results go; the
 * aggregate (its errors capped at 200) stays, and result.json says each step. */
static void test_worker_results_removed_last(void **state)
{
    (void)state;
    struct run r;
    run_make(&r, 48, 100, 200, 300);
    cJSON *results_before = results_copy(&r);
    char err[256] = "";
    cJSON *cm = api_result_configmap(r.br, r.agg, (const cJSON *const *)r.results, r.n,
                                     API_RESULT_MAX_BYTES, err, sizeof(err));
    assert_non_null(cm);
    size_t size;
    cJSON *doc = open_cm(cm, &size);
    assert_true(size < API_RESULT_MAX_BYTES);
    assert_int_equal(len(doc, "workerResults"), 0);
    assert_float_equal(util_jnum(doc, "downsampled.workerResults", 0), 48, 0);
    assert_float_equal(util_jnum(doc, "downsampled.workerHistograms", 0), 48, 0);
    assert_float_equal(util_jnum(doc, "downsampled.workerTimelines.from", -1), 100, 0);
    assert_float_equal(util_jnum(doc, "downsampled.workerTimelines.to", -1), 0, 0);
    /* timelines of 100 points were thinned to 60 first */
    assert_float_equal(util_jnum(doc, "downsampled.timelinePoints.from", -1), 100, 0);
    assert_int_equal(len(doc, "timeline"), 50);
    assert_non_null(util_jget(doc, "histogram"));
    assert_non_null(util_jstr(doc, "histogramHdr"));
    assert_true(cJSON_Compare(util_jget(doc, "summary"), util_jget(r.agg, "summary"), 1));
    /* every step of the ladder ran on the document, none on the workers' own results */
    assert_results_unchanged(&r, results_before);
    cJSON_Delete(doc);
    cJSON_Delete(cm);
    /* a limit even the aggregate does not fit: no ConfigMap, and why */
    assert_null(api_result_configmap(r.br, r.agg, (const cJSON *const *)r.results, r.n, 2048, err,
                                     sizeof(err)));
    assert_non_null(strstr(err, "bytes"));
    run_free(&r);
}

/* Level-triggered, but not made again: a finished run whose Jobs, pods (and maybe ConfigMap) are
 * gone plans no log read and no ConfigMap; its status, resultRef included, stays as it is. */
static void test_finished_run_not_rewritten(void **state)
{
    (void)state;
    cJSON *b = cJSON_Parse(
        "{\"apiVersion\":\"pgbench.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"
        "\"name\":\"done\",\"namespace\":\"ns\",\"uid\":\"u-1\",\"generation\":1},\"spec\":{"
        "\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workload\":{\"pgbench\":{\"run\":{"
        "\"durationSeconds\":3}}}},\"status\":{\"phase\":\"Succeeded\",\"observedGeneration\":1,"
        "\"startedGeneration\":1,\"resultRef\":{\"name\":\"done-result\",\"key\":\"result.json\"},"
        "\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\",\"reason\":\"Succeeded\","
        "\"message\":\"m\",\"observedGeneration\":1,\"lastTransitionTime\":\"2027-01-15T08:00:"
        "00Z\"}]}}");
    assert_non_null(b);
    struct api_config cfg;
    api_config_defaults(&cfg);
    struct ctrl_observed o;
    memset(&o, 0, sizeof(o));
    o.br = b;
    o.now = 1800000000.0;
    o.cfg = &cfg;
    struct ctrl_plan p;
    assert_int_equal(ctrl_decide(&o, &p), 0);
    assert_int_equal(p.needs, 0);
    assert_null(p.result_cm);
    assert_null(p.status); /* nothing changed */
    ctrl_plan_free(&p);
    cJSON_Delete(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_result_whole),
        cmocka_unit_test(test_long_timelines_downsampled),
        cmocka_unit_test(test_worker_results_removed_last),
        cmocka_unit_test(test_finished_run_not_rewritten),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
