/* The HTML pages of pkg/plugin/report.c and the export of a full result: the percentile curve
 * against sorted raw latencies, one line per worker from the result ConfigMap's JSON, the status
 * fallback, and the compare page's structure. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/fields.h"
#include "pkg/bench/histogram.h"
#include "pkg/plugin/present.h"
#include "pkg/plugin/report.h"
#include "pkg/util/buf.h"
#include "pkg/util/json.h"

#define NLAT 20000

static uint64_t rng = 88172645463325252ull;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* NLAT latencies in us, log-normal around 2 ms with a slow tail: sorted into lat, and their
 * histogram in the result's JSON form. */
static cJSON *latencies(int64_t *lat)
{
    struct bench_hist *h = bench_hist_new();
    for (int i = 0; i < NLAT; i++) {
        double z = sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
        lat[i] = (int64_t)(2000 * exp(0.5 * z)) + (uniform() < 0.02 ? 40000 : 0);
        bench_hist_add(h, lat[i]);
    }
    qsort(lat, NLAT, sizeof(*lat), cmp_i64);
    cJSON *j = bench_hist_to_json(h);
    bench_hist_free(h);
    assert_non_null(j);
    return j;
}

/* The sorted value of nearest rank ceil(p * n) (p as a fraction num/den, exact). */
static double rank_ms(const int64_t *lat, uint64_t num, uint64_t den)
{
    uint64_t r = (num * NLAT + den - 1) / den;
    return (double)lat[r - 1] / 1000.0;
}

static void test_percentile_curve_matches_sorted_ranks(void **state)
{
    (void)state;
    int64_t *lat = malloc(NLAT * sizeof(*lat));
    double *x = malloc(4096 * sizeof(double)), *y = malloc(4096 * sizeof(double));
    cJSON *hist = latencies(lat);
    int n = plugin_percentile_curve(hist, x, y, 4096);
    /* from p0 to log10(20000) = 4.3 nines, 20 points per nine */
    assert_int_equal(n, 87);
    assert_true(x[0] == 0 && fabs(y[0] - (double)lat[0] / 1000.0) < 1e-9);
    assert_true(x[n - 1] <= log10(NLAT));
    int found = 0;
    for (int i = 0; i < n; i++) {
        if (i)
            assert_true(x[i] > x[i - 1] && y[i] >= y[i - 1]);
        double want = NAN;
        if (fabs(x[i] - 1) < 1e-12)
            want = rank_ms(lat, 9, 10);
        else if (fabs(x[i] - 2) < 1e-12)
            want = rank_ms(lat, 99, 100);
        else if (fabs(x[i] - 3) < 1e-12)
            want = rank_ms(lat, 999, 1000);
        else if (fabs(x[i] - 4) < 1e-12)
            want = rank_ms(lat, 9999, 10000);
        if (isnan(want))
            continue;
        found++;
        /* the histogram's bucket midpoint: within 0.4 % of the sorted value */
        if (fabs(y[i] - want) > 0.004 * want)
            fail_msg("nines %g: curve %.4f ms, sorted %.4f ms", x[i], y[i], want);
    }
    assert_int_equal(found, 4);
    assert_int_equal(plugin_percentile_curve(NULL, x, y, 4096), -EINVAL);
    cJSON *bad = cJSON_Parse("{\"unit\":\"ms\"}");
    assert_int_equal(plugin_percentile_curve(bad, x, y, 4096), -EINVAL);
    cJSON_Delete(bad);
    cJSON_Delete(hist);
    free(lat);
    free(x);
    free(y);
}

/* The text of svg#id in page ("" when absent). Caller frees. */
static char *svg_of(const char *page, const char *id)
{
    char open[64];
    (void)snprintf(open, sizeof(open), "<svg id=\"%s\"", id);
    const char *a = strstr(page, open);
    const char *b = a ? strstr(a, "</svg>") : NULL;
    size_t n = a && b ? (size_t)(b - a) : 0;
    char *s = malloc(n + 1);
    memcpy(s, a ? a : "", n);
    s[n] = 0;
    return s;
}

/* The number of x,y pairs of the polyline of the series labelled label in svg; -1 when absent. */
static int line_points(const char *svg, const char *label)
{
    char g[128];
    (void)snprintf(g, sizeof(g), "<g class=\"series\" data-label=\"%s\">", label);
    const char *p = strstr(svg, g);
    if (!p)
        return -1;
    p = strstr(p, "points=\"") + 8;
    int n = 0;
    for (; *p != '"'; p++)
        n += *p == ',';
    return n;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* A timeline of n points, t = 1..n, tps = base + t, latency = 1 + t / 100, keyed as in status or
 * as in the result (the contract's keys). */
static cJSON *timeline(int n, double base, bool status)
{
    cJSON *a = cJSON_CreateArray();
    const char *(*key)(enum bench_field_id) = status ? bench_status_key : bench_key;
    for (int i = 1; i <= n; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, key(BK_TIMELINE_T), i);
        cJSON_AddNumberToObject(p, key(BK_TIMELINE_TPS), base + i);
        cJSON_AddNumberToObject(p, key(BK_TIMELINE_LATENCY_MS), 1 + i / 100.0);
        cJSON_AddItemToArray(a, p);
    }
    return a;
}

/* How many timeline points status keeps. */
#define NST (bench_fields[BK_STATUS_TIMELINE].max_items)

/* Status' timeline: the points of timeline() as series strings, one per member. */
static cJSON *status_timeline(int n, double base)
{
    static char el[4096], tps[4096], lat[4096];
    size_t a = 0, b = 0, c = 0;
    for (int i = 1; i <= n; i++) {
        a += (size_t)snprintf(el + a, sizeof(el) - a, "%s%d", i > 1 ? " " : "", i);
        b += (size_t)snprintf(tps + b, sizeof(tps) - b, "%s%g", i > 1 ? " " : "", base + i);
        c += (size_t)snprintf(lat + c, sizeof(lat) - c, "%s%g", i > 1 ? " " : "", 1 + i / 100.0);
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "elapsedSeconds", el);
    cJSON_AddStringToObject(o, "tps", tps);
    cJSON_AddStringToObject(o, "latencyMs", lat);
    return o;
}

/* A finished run named name whose status keeps its timeline points and names its ConfigMap. */
static cJSON *run(const char *name, double tps, double p99)
{
    char js[1024];
    (void)snprintf(js, sizeof(js),
                   "{\"metadata\":{\"name\":\"%s\",\"uid\":\"u-%s\"},\"spec\":{\"workers\":2},"
                   "\"status\":{\"phase\":\"Succeeded\",\"resultRef\":{\"name\":\"%s-result\","
                   "\"key\":\"result.json\"},\"summary\":{\"tps\":%g,\"latencyMs\":{\"avg\":2,"
                   "\"p99\":%g}}}}",
                   name, name, name, tps, p99);
    cJSON *br = cJSON_Parse(js);
    cJSON_AddItemToObject(cJSON_GetObjectItem(br, "status"), "timeline", status_timeline(NST, tps));
    return br;
}

/* The result ConfigMap's JSON: 150 timeline points, two workers with their own, a histogram. */
static cJSON *result(double tps, const cJSON *hist)
{
    cJSON *r = cJSON_CreateObject(), *ws = cJSON_CreateArray();
    cJSON_AddItemToObject(r, "timeline", timeline(150, tps, false));
    for (int w = 0; w < 2; w++) {
        cJSON *wr = cJSON_CreateObject();
        cJSON_AddNumberToObject(wr, "worker", w);
        cJSON_AddItemToObject(wr, "timeline", timeline(150 - w * 10, tps / 2, false));
        cJSON_AddItemToArray(ws, wr);
    }
    cJSON_AddItemToObject(r, "workerResults", ws);
    if (hist)
        cJSON_AddItemToObject(r, "histogram", cJSON_Duplicate(hist, 1));
    return r;
}

static void test_report_per_worker_lines_and_percentiles(void **state)
{
    (void)state;
    int64_t *lat = malloc(NLAT * sizeof(*lat));
    cJSON *hist = latencies(lat), *br = run("a", 1000, 5), *res = result(1000, hist);
    struct buf o = BUF_INIT(64u << 20);
    assert_int_equal(plugin_report_html(&o, br, res, NULL), 0);
    assert_null(strstr(o.data, "<script"));
    assert_non_null(strstr(o.data, "ConfigMap a-result: 150 timeline points, 2 worker results"));
    char *tps = svg_of(o.data, "tps"), *lt = svg_of(o.data, "latency");
    /* the full timeline, not status' few points; one line per worker beside the total */
    assert_int_equal(line_points(tps, "TPS, all workers (1/s)"), 150);
    assert_int_equal(line_points(tps, "worker 0"), 150);
    assert_int_equal(line_points(tps, "worker 1"), 140);
    assert_int_equal(line_points(lt, "average latency, all workers (ms)"), 150);
    assert_int_equal(line_points(lt, "worker 1"), 140);
    assert_int_equal(count(tps, "<g class=\"legend\">"), 3);
    assert_non_null(strstr(tps, ">worker 1</text></g>"));
    /* the percentile curve: whole nines as tick labels, p50/p95/p99 marked at the sorted ranks */
    char *pc = svg_of(o.data, "percentiles");
    assert_int_equal(line_points(pc, "latency at percentile (ms)"), 87);
    for (int k = 0; k < 4; k++) {
        static const char *const ticks[] = {">0</text>", ">90</text>", ">99</text>",
                                            ">99.9</text>"};
        assert_non_null(strstr(pc, ticks[k]));
    }
    assert_non_null(strstr(pc, "percentile (%"));
    assert_non_null(strstr(pc, "latency (ms)"));
    const char *m = strstr(pc, "<g class=\"mark\" data-x=\"2\" data-y=\"");
    assert_non_null(m);
    double p99 = strtod(m + strlen("<g class=\"mark\" data-x=\"2\" data-y=\""), NULL);
    double want = rank_ms(lat, 99, 100);
    if (fabs(p99 - want) > 0.004 * want)
        fail_msg("marked p99 %.4f ms, sorted %.4f ms", p99, want);
    assert_non_null(strstr(pc, ">p50 "));
    assert_non_null(strstr(pc, ">p95 "));
    assert_non_null(strstr(pc, ">p99 "));
    free(tps);
    free(lt);
    free(pc);
    buf_free(&o);
    cJSON_Delete(res);
    cJSON_Delete(br);
    cJSON_Delete(hist);
    free(lat);
}

static void test_report_falls_back_to_status(void **state)
{
    (void)state;
    cJSON *br = run("a", 1000, 5);
    struct buf o = BUF_INIT(64u << 20);
    assert_int_equal(plugin_report_html(&o, br, NULL, "ConfigMap a-result: NotFound"), 0);
    assert_non_null(strstr(o.data, "status only (ConfigMap a-result: NotFound)"));
    char *tps = svg_of(o.data, "tps");
    assert_int_equal(line_points(tps, "TPS, all workers (1/s)"), NST);
    assert_int_equal(count(tps, "<g class=\"series\""), 1);
    assert_null(strstr(o.data, "<svg id=\"percentiles\""));
    assert_non_null(strstr(o.data, "needs the result ConfigMap"));
    free(tps);
    buf_free(&o);
    cJSON_Delete(br);
}

/* The diagnostics status words as sentences: the report lists them and, without the result,
 * charts the wait events the sentence names and computes Little's law's deviation from status as
 * the result does; with the result, its structured sections. compare reads the same sentences. */
static void test_report_diagnostics(void **state)
{
    (void)state;
    static const char *const st =
        "{\"metadata\":{\"name\":\"%s\"},\"status\":{\"phase\":\"Succeeded\",\"clients\":2,"
        "\"summary\":{\"tps\":%g,\"latencyMs\":{\"avg\":10}},"
        "\"diagnostics\":{\"waitEvents\":\"%s\","
        "\"server\":\"PostgreSQL 15.18, primary\",\"verdict\":\"Server CPU limits the run: "
        "CPU 60 %% of database samples; next: more CPU. Little's law: 2 clients / 10 ms predict "
        "200 tps; measured 190 tps (-5.00 %%)\",\"verdictClass\":\"server-cpu\"}}}";
    char js[1024];
    (void)snprintf(js, sizeof(js), st, "a", 190.0,
                   "CPU 60 %, IO:WALSync 40 % of 20 backend samples in 10 rounds");
    cJSON *a = cJSON_Parse(js);
    (void)snprintf(js, sizeof(js), st, "b", 200.0,
                   "Lock:tuple 70 %, CPU 30 % of 20 backend samples in 10 rounds");
    cJSON *b = cJSON_Parse(js);
    assert_non_null(a);
    assert_non_null(b);
    struct buf o = BUF_INIT(64u << 20), r = BUF_INIT(64u << 20), t = BUF_INIT(1 << 20),
               v = BUF_INIT(1 << 20);
    assert_int_equal(plugin_report_html(&o, a, NULL, "no resultRef"), 0);
    assert_non_null(strstr(o.data, "<tr><th>waitEvents</th><td>CPU 60 %, IO:WALSync 40 %"));
    assert_non_null(strstr(o.data, "<tr><th>verdict</th><td>Server CPU limits the run: "));
    assert_non_null(strstr(o.data, "Little's law: 2 clients / 10 ms predict"));
    /* a row per status row: the joined diagnostics are in theirs, not rows of their own */
    const char *diag = strstr(o.data, "id=\"diagnostics\"");
    assert_non_null(diag);
    const char *server = strstr(diag, "<tr><th>server</th>");
    assert_non_null(server);
    assert_true(strstr(server + 1, "<tr><th>server</th>") == NULL ||
                strstr(server + 1, "<tr><th>server</th>") > strstr(diag, "</table>"));
    /* 2 clients / 10 ms predict 200 tps, 190 measured: -5 % */
    assert_non_null(strstr(o.data, "<tr><th>Little's law deviation</th><td>-5 %</td></tr>"));
    char *waits = svg_of(o.data, "waits");
    assert_non_null(strstr(waits, ">CPU</text>"));
    assert_non_null(strstr(waits, ">IO:WALSync</text>"));
    free(waits);
    assert_non_null(strstr(o.data, "<tr><th>server</th><td>PostgreSQL 15.18, primary</td></tr>"));
    /* with the result: its shares, its replica lag, its settings */
    cJSON *res = cJSON_Parse("{\"waitEvents\":{\"sharesPct\":{\"Lock:tuple\":45,\"CPU\":55}},"
                             "\"server\":{\"version\":\"15.18\",\"shared_buffers\":\"128MB\"},"
                             "\"checks\":{\"replica\":{\"maxLagMs\":12},\"littlesLaw\":"
                             "{\"deviationPct\":-4.5}}}");
    assert_int_equal(plugin_report_html(&r, a, res, NULL), 0);
    waits = svg_of(r.data, "waits");
    assert_non_null(strstr(waits, ">Lock:tuple</text>"));
    assert_null(strstr(waits, ">IO:WALSync</text>"));
    free(waits);
    assert_non_null(strstr(r.data, "<tr><th>replica lag max</th><td>12 ms</td></tr>"));
    assert_non_null(strstr(r.data, "<tr><th>Little's law deviation</th><td>-4.50 %</td></tr>"));
    assert_non_null(strstr(r.data, "<tr><th>shared_buffers</th><td>128MB</td></tr>"));
    /* compare: a row per wait event of either run, 0 where a run saw none of it */
    const cJSON *brs[2] = {a, b}, *none[2] = {NULL, NULL};
    bool failed = false;
    struct plugin_compare cmp = {brs, none, 2, 2, {1, 1}, {-1, -1}};
    assert_int_equal(plugin_compare_table(&t, &cmp, false, &v, &failed), 0);
    assert_non_null(strstr(t.data, "wait CPU "));
    assert_non_null(strstr(t.data, "30 % (-30.00 pp)")); /* shares: percentage points */
    assert_null(strstr(t.data, "x)\n  wait"));
    assert_non_null(strstr(t.data, "wait Lock:tuple "));
    assert_non_null(strstr(t.data, "wait IO:WALSync "));
    assert_non_null(strstr(t.data, "-5 %"));
    /* and a line explaining the second run against the first, from status' shares */
    assert_non_null(strstr(t.data, "\nwhy "));
    buf_free(&o);
    buf_free(&r);
    buf_free(&t);
    buf_free(&v);
    cJSON_Delete(res);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void test_compare_html(void **state)
{
    (void)state;
    int64_t *lat = malloc(NLAT * sizeof(*lat));
    cJSON *hist = latencies(lat);
    cJSON *brs[3] = {run("base", 1000, 5), run("slow", 500, 9), run("old", 990, 5)};
    cJSON *res[3] = {result(1000, hist), result(500, hist), NULL};
    struct buf o = BUF_INIT(64u << 20), v = BUF_INIT(1 << 20), t = BUF_INIT(1 << 20),
               v2 = BUF_INIT(1 << 20);
    bool failed = false, failed2 = false;
    struct plugin_compare cmp = {
        (const cJSON *const *)brs, (const cJSON *const *)res, 3, 3, {1, 1, 1}, {10, -1}};
    assert_int_equal(plugin_compare_html(&o, &cmp, &v, &failed), 0);
    assert_true(failed);
    assert_non_null(strstr(v.data, "slow"));
    assert_null(strstr(o.data, "<script"));
    /* the same table as the text compare, as an HTML table */
    assert_int_equal(plugin_compare_table(&t, &cmp, true, &v2, &failed2), 0);
    assert_true(failed2);
    assert_non_null(strstr(o.data, t.data));
    assert_non_null(strstr(t.data, "<table class=\"cmp\" id=\"compare\">"));
    assert_non_null(strstr(t.data, "<tr><th></th><th class=\"n\">base</th><th class=\"n\">slow"));
    assert_non_null(strstr(o.data, "id=\"verdict\""));
    /* overlaid curves, one line per run, the full timeline where the run has a result */
    char *tps = svg_of(o.data, "tps"), *lt = svg_of(o.data, "latency"),
         *pc = svg_of(o.data, "percentiles");
    assert_int_equal(line_points(tps, "base"), 150);
    assert_int_equal(line_points(tps, "slow"), 150);
    assert_int_equal(line_points(tps, "old"), NST);
    assert_int_equal(line_points(lt, "old"), NST);
    assert_int_equal(count(tps, "<g class=\"legend\">"), 3);
    assert_int_equal(line_points(pc, "base"), 87);
    assert_int_equal(line_points(pc, "slow"), 87);
    assert_int_equal(line_points(pc, "old"), -1);
    assert_non_null(strstr(o.data, "status only"));
    free(tps);
    free(lt);
    free(pc);
    buf_free(&o);
    buf_free(&v);
    buf_free(&t);
    buf_free(&v2);
    for (int i = 0; i < 3; i++) {
        cJSON_Delete(brs[i]);
        cJSON_Delete(res[i]);
    }
    cJSON_Delete(hist);
    free(lat);
}

/* Runs that spread by a factor of 4 (measured on a shared machine: 4,171..16,488 tps) cannot
 * tell a 99 % drop from noise with 3 runs a side; the noise line says the runs are too noisy to
 * judge rather than leaving "within noise" to read as "the same". */
static void test_compare_too_noisy(void **state)
{
    (void)state;
    static const double tps[] = {15068.5, 16488.8, 4171.4, 96.0, 100.6, 94.9};
    cJSON *brs[6];
    const cJSON *none[6] = {0};
    char name[8];
    for (int i = 0; i < 6; i++) {
        (void)snprintf(name, sizeof(name), "%c%d", 'a' + i / 3, i % 3 + 1);
        brs[i] = run(name, tps[i], 10);
    }
    struct buf t = BUF_INIT(1 << 20), v = BUF_INIT(1 << 20);
    bool failed = true;
    struct plugin_compare ab = {(const cJSON *const *)brs, none, 6, 2, {3, 3}, {10, -1}};
    assert_int_equal(plugin_compare_table(&t, &ab, false, &v, &failed), 0);
    assert_non_null(strstr(t.data, "): within noise (Welch t "));
    assert_non_null(strstr(t.data,
                           "TPS: the runs spread by up to 57 % of their mean (sd/mean): too "
                           "noisy to judge"));
    assert_null(strstr(t.data, "p99: the runs spread")); /* p99 did not spread */
    for (int i = 0; i < 6; i++)
        cJSON_Delete(brs[i]);
    buf_free(&t);
    buf_free(&v);
}

/* Sides of repeated runs: mean ± stddev cells, and gates judged against the runs' spread (a 2 %
 * drop within a 3 % spread passes --fail-if-tps-drops 1, a 20 % one fails it; p99 likewise). */
static void test_compare_repeats(void **state)
{
    (void)state;
    static const double tps[] = {1030, 970, 1000, 1010, 950, 980, 810, 790, 800};
    static const double p99[] = {10, 10.5, 9.5, 10, 10.5, 9.5, 20, 21, 19};
    cJSON *brs[9];
    const cJSON *none[9] = {0};
    char name[8];
    for (int i = 0; i < 9; i++) {
        (void)snprintf(name, sizeof(name), "%c%d", 'a' + i / 3, i % 3 + 1);
        brs[i] = run(name, tps[i], p99[i]);
    }
    struct buf t = BUF_INIT(1 << 20), v = BUF_INIT(1 << 20);
    bool failed = true;
    struct plugin_compare ab = {(const cJSON *const *)brs, none, 6, 2, {3, 3}, {1, 1}};
    assert_int_equal(plugin_compare_table(&t, &ab, false, &v, &failed), 0);
    assert_false(failed);
    const char *row = strstr(t.data, "\n  TPS  ");
    assert_non_null(row);
    assert_non_null(strstr(row, "  1000 ± 30  "));
    assert_non_null(strstr(row, "  980 ± 30 (0.98x)\n"));
    assert_non_null(strstr(t.data, "TPS: b1…b3 (3 runs) 980 ± 30 against a1…a3 (3 runs) 1000 ± 30 "
                                   "(-2.0 %): within noise (Welch t -0.82, df 4.0, p 0.460)\n"));
    assert_non_null(strstr(t.data, "within noise: --fail-if-tps-drops 1 not applied"));
    assert_null(strstr(t.data, "too noisy")); /* a 3 % spread judges */
    buf_reset(&t);
    struct plugin_compare ac = {(const cJSON *const *)brs, none, 6, 2, {3, 3}, {1, 1}};
    const cJSON *list[6] = {brs[0], brs[1], brs[2], brs[6], brs[7], brs[8]};
    ac.brs = list;
    assert_int_equal(plugin_compare_table(&t, &ac, false, &v, &failed), 0);
    assert_true(failed);
    assert_non_null(strstr(v.data, "c1…c3 (3 runs): TPS 800.0 is 20.0 % below"));
    assert_non_null(strstr(v.data, "c1…c3 (3 runs): p99 20.000 ms is 100.0 % above"));
    /* sides that do not add up */
    struct plugin_compare bad = {(const cJSON *const *)brs, none, 6, 2, {3, 2}, {-1, -1}};
    assert_int_equal(plugin_compare_table(&t, &bad, false, &v, &failed), -EINVAL);
    buf_free(&t);
    buf_free(&v);
    for (int i = 0; i < 9; i++)
        cJSON_Delete(brs[i]);
}

/* plugin_export of one run */
static int export1(struct buf *out, const cJSON *br, const cJSON *res, const char *format,
                   const char *table)
{
    return plugin_export(out, &br, &res, 1, format, table);
}

static void test_export_full_timeline(void **state)
{
    (void)state;
    cJSON *br = run("a", 1000, 5), *res = result(1000, NULL);
    struct buf o = BUF_INIT(64u << 20), j = BUF_INIT(64u << 20), s = BUF_INIT(64u << 20);
    assert_int_equal(export1(&o, br, res, "csv", "timeline"), 0);
    assert_int_equal(count(o.data, "\n"), 151);
    assert_non_null(strstr(o.data, "\n150,1150,2.5"));
    assert_int_equal(export1(&j, br, res, "json", NULL), 0);
    cJSON *e = cJSON_Parse(j.data);
    assert_string_equal(cJSON_GetObjectItem(e, "source")->valuestring, "result");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(e, "timeline")), 150);
    cJSON_Delete(e);
    assert_int_equal(export1(&s, br, NULL, "csv", "timeline"), 0);
    assert_int_equal(count(s.data, "\n"), NST + 1);
    buf_free(&o);
    buf_free(&j);
    buf_free(&s);
    cJSON_Delete(res);
    cJSON_Delete(br);
}

/* workers and statements: status has a line each, the result its rows; export takes the rows
 * (with the result's keys) when it has the result, else the lines; kubectl pgbench results
 * prints the lines. */
static void test_export_workers_and_statements(void **state)
{
    (void)state;
    cJSON *br = cJSON_Parse(
        "{\"metadata\":{\"name\":\"a\"},\"status\":{\"phase\":\"Succeeded\",\"summary\":{\"tps\":"
        "10},\"workers\":[\"0 p0: ok, 10.0 tps\"],\"statements\":[\"0.100 ms  SELECT 1;\"]}}");
    cJSON *res = cJSON_Parse(
        "{\"workers\":[{\"index\":0,\"pod\":\"p0\",\"tps\":10,\"transactionsProcessed\":100,"
        "\"complete\":true,\"message\":\"ok\"}],\"statements\":[{\"script\":0,\"command\":"
        "\"SELECT 1;\",\"latencyMs\":0.1}]}");
    struct buf c = BUF_INIT(1 << 20), j = BUF_INIT(1 << 20), l = BUF_INIT(1 << 20);
    struct buf t = BUF_INIT(1 << 20);
    assert_int_equal(export1(&c, br, res, "csv", "workers"), 0);
    assert_string_equal(c.data, "index,pod,node,tps,transactionsProcessed,failedTransactions,"
                                "abortedClients,latencyAvgMs,lateSeconds,endSeconds,exitCode,"
                                "complete,message\n0,p0,,10,100,,,,,,,true,ok\n");
    assert_int_equal(export1(&j, br, res, "json", NULL), 0);
    cJSON *e = cJSON_Parse(j.data);
    assert_int_equal(
        util_jnum(cJSON_GetArrayItem(util_jget(e, "workers"), 0), "transactionsProcessed", 0), 100);
    assert_string_equal(util_jstr(cJSON_GetArrayItem(util_jget(e, "statements"), 0), "command"),
                        "SELECT 1;");
    cJSON_Delete(e);
    assert_int_equal(export1(&l, br, NULL, "csv", "workers"), 0);
    assert_string_equal(l.data, "line\n\"0 p0: ok, 10.0 tps\"\n"); /* quoted: a comma */
    assert_int_equal(plugin_result_table(&t, br), 0);
    assert_non_null(strstr(t.data, "\n  worker 0 p0: ok, 10.0 tps\n"));
    buf_free(&c);
    buf_free(&j);
    buf_free(&l);
    buf_free(&t);
    cJSON_Delete(res);
    cJSON_Delete(br);
}

/* --wait's line while the init runs: pgbench -i's step and rows from status.progress */
static void test_progress_line_init(void **state)
{
    (void)state;
    cJSON *br =
        cJSON_Parse("{\"metadata\":{\"name\":\"big\"},\"status\":{\"phase\":\"Initializing\","
                    "\"startTime\":\"2023-11-14T22:13:00Z\",\"progress\":{\"elapsedSeconds\":12,"
                    "\"step\":\"generate (client-side)\",\"rows\":2400000,\"rowsTotal\":5000000,"
                    "\"rowsPerSecond\":200000,\"source\":\"pgbench\",\"workersReporting\":1}}}");
    assert_non_null(br);
    struct buf b = BUF_INIT(0);
    assert_int_equal(plugin_progress_line(&b, br, 1700000000), 0);
    assert_string_equal(b.data, "big Initializing  20s  generate (client-side) 48 %  2,400,000 of "
                                "5,000,000 rows  200,000 rows/s  12 s");
    buf_free(&b);
    cJSON_Delete(br);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentile_curve_matches_sorted_ranks),
        cmocka_unit_test(test_report_per_worker_lines_and_percentiles),
        cmocka_unit_test(test_report_falls_back_to_status),
        cmocka_unit_test(test_report_diagnostics),
        cmocka_unit_test(test_compare_html),
        cmocka_unit_test(test_compare_repeats),
        cmocka_unit_test(test_compare_too_noisy),
        cmocka_unit_test(test_export_full_timeline),
        cmocka_unit_test(test_export_workers_and_statements),
        cmocka_unit_test(test_progress_line_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
