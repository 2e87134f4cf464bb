/* kubectl pgbench sweep: the varied field's lists and ranges, the BenchmarkSweep built from a
 * BenchmarkRun (refusals naming both flags), the step lines and the comparison of sweeps, and the
 * report's SVG read back through its own tick labels: the USL path follows the formula evaluated
 * here, and every run is a point where its tps is. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/api/manifest.h"
#include "pkg/util/json.h"
#include "pkg/plugin/report.h"
#include "pkg/plugin/report_sweep.h"
#include "pkg/plugin/sweep.h"

static void test_vary_parse(void **state)
{
    (void)state;
    struct plugin_vary v;
    char err[256];
    assert_int_equal(
        plugin_vary_parse("1,2,4,8,16", API_SWEEP_CLIENTS, "--clients", &v, err, sizeof(err)), 0);
    assert_int_equal(v.n, 5);
    assert_false(v.range);
    assert_true(v.values[4] == 16);
    /* a range: 1 2 4 8 16 32 64 */
    assert_int_equal(
        plugin_vary_parse("1..64", API_SWEEP_CLIENTS, "--clients", &v, err, sizeof(err)), 0);
    assert_true(v.range && v.from == 1 && v.to == 64 && v.factor == 0);
    assert_int_equal(v.n, 7);
    /* 2 3 4.5->5 ... with a factor, and the last value added when the series misses it */
    assert_int_equal(
        plugin_vary_parse("2..10x1.5", API_SWEEP_CLIENTS, "--clients", &v, err, sizeof(err)), 0);
    assert_true(v.factor == 1.5);
    assert_true(v.values[v.n - 1] == 10);
    /* rate takes fractions and 0 */
    assert_int_equal(
        plugin_vary_parse("0,12.5,100", API_SWEEP_RATE, "--rate", &v, err, sizeof(err)), 0);
    assert_true(v.values[1] == 12.5);
    static const struct {
        const char *s;
        enum api_sweep_field f;
        const char *want;
    } bad[] = {
        {"1,2.5", API_SWEEP_CLIENTS, "whole numbers >= 1"},
        {"0,1", API_SWEEP_WORKERS, "whole numbers >= 1"},
        {"4,2", API_SWEEP_CLIENTS, "increasing order"},
        {"1,,2", API_SWEEP_CLIENTS, "a list such as"},
        {"8..2", API_SWEEP_CLIENTS, "FROM <= TO"},
        {"1..8x1.01", API_SWEEP_CLIENTS, "FACTOR >= 1.1"},
        {"1..100000x1.1", API_SWEEP_CLIENTS, "more than 32 steps"},
        {"-5,1", API_SWEEP_RATE, "numbers >= 0"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_not_equal(plugin_vary_parse(bad[i].s, bad[i].f, "--x", &v, err, sizeof(err)), 0);
        if (!strstr(err, bad[i].want) || !strstr(err, "--x"))
            fail_msg("%s: \"%s\"", bad[i].s, err);
    }
    assert_true(plugin_vary_is_list("1,2"));
    assert_true(plugin_vary_is_list("1..4"));
    assert_false(plugin_vary_is_list("4"));
}

static cJSON *run_object(const char *spec)
{
    char buf[1024];
    (void)snprintf(buf, sizeof(buf),
                   "{\"apiVersion\":\"pgbench.dev/v1alpha1\",\"kind\":\"BenchmarkRun\","
                   "\"metadata\":{\"name\":\"gp3\",\"namespace\":\"ns\"},\"spec\":%s}",
                   spec);
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    return j;
}

static void test_build_sweep(void **state)
{
    (void)state;
    char err[512];
    cJSON *br =
        run_object("{\"target\":{\"host\":\"db\",\"user\":\"app\"},\"workload\":"
                   "{\"pgbench\":{\"init\":{\"scale\":1},\"run\":{\"durationSeconds\":5}}}}");
    struct plugin_sweep_opts o = {
        .repeats = 2, .stop_failed_pct = 1, .stop_p99_ms = -1, .stop_aborted = 1};
    assert_int_equal(
        plugin_vary_parse("1,2,4", API_SWEEP_CLIENTS, "--clients", &o.vary, err, sizeof(err)), 0);
    cJSON *sw = plugin_build_sweep(br, &o, err, sizeof(err));
    assert_non_null(sw);
    char *got = cJSON_PrintUnformatted(util_jget(sw, "spec"));
    assert_string_equal(got, "{\"template\":{\"target\":{\"host\":\"db\",\"user\":\"app\"},"
                             "\"workload\":{\"pgbench\":{\"init\":{\"scale\":1},\"run\":"
                             "{\"durationSeconds\":5}}}},\"vary\":{\"field\":\"clients\","
                             "\"values\":[1,2,4]},\"repeats\":2,\"stopWhen\":{\"failedPct\":1,"
                             "\"abortedClients\":1}}");
    free(got);
    assert_string_equal(util_jstr(sw, "kind"), "BenchmarkSweep");
    assert_string_equal(util_jstr(sw, "metadata.name"), "gp3");
    cJSON_Delete(sw);
    cJSON_Delete(br);

    /* the template sets the varied field already */
    br = run_object("{\"target\":{\"host\":\"db\",\"user\":\"app\"},\"workload\":{\"pgbench\":"
                    "{\"run\":{\"clients\":8,\"durationSeconds\":5}}}}");
    assert_null(plugin_build_sweep(br, &o, err, sizeof(err)));
    assert_non_null(strstr(err, "pgbench's -c and --clients"));
    /* a step the operator would refuse: 2 workers and 1 client */
    cJSON_Delete(br);
    br = run_object("{\"workers\":2,\"target\":{\"host\":\"db\",\"user\":\"app\"},\"workload\":"
                    "{\"pgbench\":{\"run\":{\"durationSeconds\":5}}}}");
    assert_null(plugin_build_sweep(br, &o, err, sizeof(err)));
    assert_non_null(strstr(err, "step 1, clients=1"));
    /* and without a varied field */
    struct plugin_sweep_opts none = {.stop_failed_pct = -1, .stop_p99_ms = -1};
    assert_null(plugin_build_sweep(br, &none, err, sizeof(err)));
    assert_non_null(strstr(err, "--clients, --rate or --workers"));
    cJSON_Delete(br);
}

/* A finished clients sweep: steps 1, 2, 4, 8 with two runs each (tps and p99 given), the USL fit
 * lambda 100, sigma 0.05, kappa 0.006 (N* = sqrt(0.95 / 0.006) = 12.58, X(N*) = 512.8). */
static const char sweep_json[] =
    "{\"metadata\":{\"name\":\"gp3\"},\"status\":{\"phase\":\"Succeeded\",\"field\":\"clients\","
    "\"totalSteps\":4,\"steps\":["
    "{\"index\":0,\"value\":1,\"phase\":\"Succeeded\",\"tpsMean\":100,\"latencyP99MsMean\":2,"
    "\"runs\":[{\"name\":\"gp3-s0-r0\",\"phase\":\"Succeeded\",\"tps\":98,\"latencyP99Ms\":2},"
    "{\"name\":\"gp3-s0-r1\",\"phase\":\"Succeeded\",\"tps\":102,\"latencyP99Ms\":2}]},"
    "{\"index\":1,\"value\":2,\"phase\":\"Succeeded\",\"tpsMean\":190,\"latencyP99MsMean\":2.5,"
    "\"runs\":[{\"name\":\"gp3-s1-r0\",\"phase\":\"Succeeded\",\"tps\":185,\"latencyP99Ms\":2.4},"
    "{\"name\":\"gp3-s1-r1\",\"phase\":\"Succeeded\",\"tps\":195,\"latencyP99Ms\":2.6}]},"
    "{\"index\":2,\"value\":4,\"phase\":\"Succeeded\",\"tpsMean\":350,\"latencyP99MsMean\":3,"
    "\"runs\":[{\"name\":\"gp3-s2-r0\",\"phase\":\"Succeeded\",\"tps\":340,\"latencyP99Ms\":3},"
    "{\"name\":\"gp3-s2-r1\",\"phase\":\"Succeeded\",\"tps\":360,\"latencyP99Ms\":3}]},"
    "{\"index\":3,\"value\":8,\"phase\":\"Succeeded\",\"tpsMean\":560,\"latencyP99MsMean\":9,"
    "\"runs\":[{\"name\":\"gp3-s3-r0\",\"phase\":\"Succeeded\",\"tps\":550,\"latencyP99Ms\":8},"
    "{\"name\":\"gp3-s3-r1\",\"phase\":\"Failed\",\"message\":\"boom\"}]}],"
    "\"analysis\":{\"peakTps\":560,\"peakAt\":8,\"kneeAt\":8,\"verdict\":\"scales to ~8 "
    "clients\",\"usl\":{\"ok\":true,\"lambda\":100,\"sigma\":0.05,\"kappa\":0.006,\"r2\":0.99,"
    "\"peakClients\":12.58,\"peakTps\":512.8}}}}";

static void test_step_line_and_compare(void **state)
{
    (void)state;
    cJSON *a = cJSON_Parse(sweep_json), *b = cJSON_Parse(sweep_json);
    assert_non_null(a);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItemCaseSensitive(b, "metadata"), "name",
                              cJSON_CreateString("nvme"));
    /* nvme: twice gp3's tps at 4 clients, no step at 8 */
    cJSON *s2 = cJSON_GetArrayItem(util_jget(b, "status.steps"), 2);
    cJSON_ReplaceItemInObject(s2, "tpsMean", cJSON_CreateNumber(700));
    cJSON_DeleteItemFromArray(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(b, "status"), "steps"),
        3);
    struct buf out = BUF_INIT(1 << 20);
    assert_int_equal(
        plugin_sweep_step_line(&out, a, cJSON_GetArrayItem(util_jget(a, "status.steps"), 1)), 0);
    assert_string_equal(out.data, "step 2/4 clients=2: 190 tps p99 2.50 ms (mean of 2 runs)");
    buf_free(&out);
    out = (struct buf)BUF_INIT(1 << 20);
    (void)plugin_sweep_step_line(&out, a, cJSON_GetArrayItem(util_jget(a, "status.steps"), 3));
    assert_non_null(strstr(out.data, "; run gp3-s3-r1 Failed: boom"));
    buf_free(&out);

    const cJSON *sws[2] = {a, b};
    char err[256];
    out = (struct buf)BUF_INIT(1 << 20);
    assert_int_equal(plugin_sweep_compare(&out, sws, 2, err, sizeof(err)), 0);
    /* the row of 4 clients: 700 / 350 = 2.00x */
    const char *row = strstr(out.data, "\n4 ");
    assert_non_null(row);
    assert_non_null(strstr(row, "700 (2.00x)"));
    assert_non_null(strstr(out.data, "USL N* (clients)"));
    assert_non_null(strstr(out.data, "nvme: scales to ~8 clients"));
    buf_free(&out);
    /* -o html: both doubling series, so the x axis is log2 */
    out = (struct buf)BUF_INIT(1 << 20);
    assert_int_equal(plugin_sweep_compare_html(&out, sws, 2, err, sizeof(err)), 0);
    assert_non_null(strstr(out.data, "mean TPS per step against clients (log2 scale)"));
    assert_non_null(strstr(out.data, "<pre id=\"compare\" class=\"wrap\">"));
    buf_free(&out);
    /* different fields are refused */
    cJSON_ReplaceItemInObject(cJSON_GetObjectItemCaseSensitive(b, "status"), "field",
                              cJSON_CreateString("rate"));
    out = (struct buf)BUF_INIT(1 << 20);
    assert_int_not_equal(plugin_sweep_compare(&out, sws, 2, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "vary different fields"));
    buf_free(&out);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* ---- reading the SVG back --------------------------------------------------------------- */

/* The svg element with this id (a copy, caller frees). */
static char *svg_of(const char *html, const char *id)
{
    char key[64];
    (void)snprintf(key, sizeof(key), "<svg id=\"%s\"", id);
    const char *s = strstr(html, key);
    assert_non_null(s);
    const char *e = strstr(s, "</svg>");
    assert_non_null(e);
    return strndup(s, (size_t)(e - s));
}

/* The linear map from pixels to values of an axis, from its first and last tick labels
 * (class cls, the coordinate attribute attr, minus off for the y labels' baseline). */
struct lin {
    double p0, v0, p1, v1;
    bool log; /* the values are linear in pixels in log2 (a log2 axis) */
};

static struct lin axis_of(const char *svg, const char *cls, const char *attr, double off)
{
    char key[64];
    (void)snprintf(key, sizeof(key), "<text class=\"%s\" ", cls);
    struct lin l = {NAN, NAN, NAN, NAN, false};
    for (const char *p = svg; (p = strstr(p, key)) != NULL; p++) {
        const char *a = strstr(p, attr), *gt = strchr(p, '>');
        double pos = strtod(a + strlen(attr), NULL) - off, v = strtod(gt + 1, NULL);
        if (isnan(l.p0))
            l.p0 = pos, l.v0 = v;
        l.p1 = pos, l.v1 = v;
    }
    assert_true(isfinite(l.p0) && l.p1 != l.p0);
    return l;
}

static double value_at(const struct lin *l, double p)
{
    if (l->log)
        return exp2(log2(l->v0) + (p - l->p0) * (log2(l->v1) - log2(l->v0)) / (l->p1 - l->p0));
    return l->v0 + (p - l->p0) * (l->v1 - l->v0) / (l->p1 - l->p0);
}

static double usl(double n)
{
    return 100 * n / (1 + 0.05 * (n - 1) + 0.006 * n * (n - 1));
}

static void test_report_usl_path(void **state)
{
    (void)state;
    cJSON *sw = cJSON_Parse(sweep_json);
    struct buf out = BUF_INIT(8u << 20);
    assert_int_equal(plugin_sweep_report_html(&out, sw), 0);
    assert_null(strstr(out.data, "<script"));
    char *svg = svg_of(out.data, "sweep-tps");
    struct lin lx = axis_of(svg, "xt", "x=\"", 0), ly = axis_of(svg, "yt", "y=\"", 4);
    /* 1, 2, 4, 8 clients (and N* 12.6): a log2 axis, ticks at 1 2 4 8 16 evenly spaced */
    assert_non_null(strstr(svg, "TPS against clients (log2 scale)"));
    assert_true(lx.v0 == 1 && lx.v1 == 16);
    lx.log = true;
    double mid = lx.p0 + (lx.p1 - lx.p0) / 4; /* a quarter of the way: 2 */
    assert_non_null(strstr(svg, ">2</text>"));
    assert_true(fabs(value_at(&lx, mid) - 2) < 1e-9);
    /* the fitted curve: every point on X(N) within a pixel's rounding */
    const char *g = strstr(svg, "data-label=\"USL fit\"");
    assert_non_null(g);
    const char *p = strstr(g, "points=\"") + 8;
    int n = 0;
    double first = NAN, last = NAN;
    while (*p != '"') {
        char *end;
        double X = strtod(p, &end), Y = strtod(end + 1, &end);
        double nv = value_at(&lx, X), tps = value_at(&ly, Y);
        double want = usl(nv), tol = fabs(ly.v1 - ly.v0) / fabs(ly.p1 - ly.p0) * 0.15;
        if (fabs(tps - want) > tol)
            fail_msg("USL point %d: N %.3f tps %.2f, formula %.2f", n, nv, tps, want);
        first = isnan(first) ? nv : first;
        last = nv;
        n++;
        p = end;
        while (*p == ' ')
            p++;
    }
    assert_int_equal(n, PLUGIN_SWEEP_CURVE_POINTS);
    /* drawn from the smallest value to N* (within 2x the largest) */
    assert_true(fabs(first - 1) < 0.05);
    assert_true(fabs(last - 12.58) < 0.05);
    /* the runs: one circle per succeeded run, at (value, tps) */
    g = strstr(svg, "data-label=\"TPS of each run\"");
    assert_non_null(g);
    const char *gend = strstr(g, "</g>");
    static const double want[][2] = {{1, 98},  {1, 102}, {2, 185}, {2, 195},
                                     {4, 340}, {4, 360}, {8, 550}};
    int k = 0;
    for (const char *c = g; (c = strstr(c, "<circle")) != NULL && c < gend; c++, k++) {
        double cx = strtod(strstr(c, "cx=\"") + 4, NULL), cy = strtod(strstr(c, "cy=\"") + 4, NULL);
        assert_true(k < 7);
        assert_true(fabs(value_at(&lx, cx) - want[k][0]) < 0.05);
        assert_true(fabs(value_at(&ly, cy) - want[k][1]) < 2);
    }
    assert_int_equal(k, 7);
    /* the knee and N* are marked, the verdict is on the page */
    assert_non_null(strstr(svg, "latency knee: clients=8"));
    assert_non_null(strstr(svg, "N* = 12.6 clients (USL peak 513 tps)"));
    assert_non_null(strstr(out.data, "scales to ~8 clients"));
    assert_non_null(strstr(out.data, "<svg id=\"sweep-p99\""));
    /* ideal linear scaling: lambda N with the fit's lambda (100), cut once past 1.2 x the
     * largest mean (560) */
    g = strstr(svg, "data-label=\"ideal linear scaling (λN)\"");
    assert_non_null(g);
    p = strstr(g, "points=\"") + 8;
    double ix = NAN, iy = NAN;
    while (*p != '"') {
        char *end;
        double X = strtod(p, &end), Y = strtod(end + 1, &end);
        ix = value_at(&lx, X);
        iy = value_at(&ly, Y);
        assert_true(fabs(iy - 100 * ix) < fabs(ly.v1 - ly.v0) / fabs(ly.p1 - ly.p0) * 0.15);
        p = end;
        while (*p == ' ')
            p++;
    }
    assert_true(fabs(ix - 6.72) < 0.01); /* 1.2 * 560 / 100 */
    /* the marks' labels sit above every point of every line: the y axis leaves their rows free */
    double label_low = 0, point_high = INFINITY;
    int labels = 0;
    for (const char *mk = svg; (mk = strstr(mk, "<text class=\"mkl")) != NULL; mk++, labels++)
        label_low = fmax(label_low, strtod(strstr(mk, " y=\"") + 4, NULL));
    for (const char *c = svg; (c = strstr(c, "<circle class=\"pt\"")) != NULL; c++)
        point_high = fmin(point_high, strtod(strstr(c, "cy=\"") + 4, NULL));
    for (const char *c = svg; (c = strstr(c, "<polyline")) != NULL; c++) {
        const char *q = strstr(c, "points=\"") + 8;
        while (*q != '"') {
            char *end;
            (void)strtod(q, &end);
            point_high = fmin(point_high, strtod(end + 1, &end));
            q = end;
            while (*q == ' ')
                q++;
        }
    }
    assert_int_equal(labels, 2);
    assert_true(label_low + 4 < point_high);
    free(svg);
    /* the class shares have their chart, or say why not */
    assert_non_null(strstr(out.data, "What limits each step"));
    assert_non_null(strstr(out.data, "no step sampled wait events"));
    buf_free(&out);
    cJSON_Delete(sw);
}

/* A line that reaches a round maximum (600: the top tick) with two marks: their labels' rows
 * at the top of the plot stay clear of it (issue 32: labels over the curve). */
static void test_mark_labels_leave_headroom(void **state)
{
    (void)state;
    static const double x[] = {1, 2, 4, 8}, y[] = {150, 300, 600, 450};
    struct plugin_series s = {.label = "tps", .x = x, .y = y, .n = 4};
    struct plugin_mark m[2] = {{"knee", 4, 600}, {"N*", 6, 550}};
    struct plugin_chart c = {.id = "c",
                             .title = "t",
                             .xlabel = "clients",
                             .ylabel = "tps",
                             .marks = m,
                             .nmarks = 2,
                             .log2x = true};
    struct buf out = BUF_INIT(1 << 20);
    assert_int_equal(plugin_line_chart(&out, &c, &s, 1), 0);
    double label_low = 0, point_high = INFINITY;
    for (const char *mk = out.data; (mk = strstr(mk, "<text class=\"mkl")) != NULL; mk++)
        label_low = fmax(label_low, strtod(strstr(mk, " y=\"") + 4, NULL));
    for (const char *p = out.data; (p = strstr(p, "<circle class=\"pt\"")) != NULL; p++)
        point_high = fmin(point_high, strtod(strstr(p, "cy=\"") + 4, NULL));
    assert_true(label_low + 4 < point_high);
    buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vary_parse),
        cmocka_unit_test(test_build_sweep),
        cmocka_unit_test(test_step_line_and_compare),
        cmocka_unit_test(test_report_usl_path),
        cmocka_unit_test(test_mark_labels_leave_headroom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
