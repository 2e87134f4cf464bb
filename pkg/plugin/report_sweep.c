/* The HTML report of a BenchmarkSweep: TPS and p99 against the varied value, with the USL fit,
 * the knee and N*, drawn with report.c's line chart. */
#include "pkg/api/phase.h"
#include "pkg/plugin/report_sweep.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"
#include "pkg/bench/stepclass.h"
#include "pkg/bench/usl.h"
#include "pkg/api/status.h"
#include "pkg/plugin/present.h"
#include "pkg/plugin/report.h"
#include "pkg/plugin/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXRUNS (API_SWEEP_MAX_STEPS * API_SWEEP_MAX_REPEATS)

/* The measured points of a sweep: every succeeded run (x = its step's value), and each step's
 * mean. */
struct sweep_pts {
    double rx[MAXRUNS], rtps[MAXRUNS], rp99[MAXRUNS];
    int nr;
    double sx[API_SWEEP_MAX_STEPS], stps[API_SWEEP_MAX_STEPS], sp99[API_SWEEP_MAX_STEPS];
    int ns;
    double ux[PLUGIN_SWEEP_CURVE_POINTS], uy[PLUGIN_SWEEP_CURVE_POINTS];
    int nu;
    double ix[PLUGIN_SWEEP_CURVE_POINTS], iy[PLUGIN_SWEEP_CURVE_POINTS]; /* ideal lambda N */
    int ni;
};

static void take_points(const cJSON *st, struct sweep_pts *p)
{
    const cJSON *step, *e;
    cJSON_ArrayForEach(step, util_jget(st, "steps"))
    {
        double v = util_jnum(step, "value", NAN);
        if (p->ns < API_SWEEP_MAX_STEPS && isfinite(util_jnum(step, "tpsMean", NAN))) {
            p->sx[p->ns] = v;
            p->stps[p->ns] = util_jnum(step, "tpsMean", NAN);
            p->sp99[p->ns++] = util_jnum(step, "latencyP99MsMean", NAN);
        }
        cJSON_ArrayForEach(e, util_jget(step, "runs"))
        {
            const char *ph = util_jstr(e, "phase");
            if (p->nr >= MAXRUNS || api_phase_parse(ph) != API_PHASE_SUCCEEDED)
                continue;
            p->rx[p->nr] = v;
            p->rtps[p->nr] = util_jnum(e, "tps", NAN);
            p->rp99[p->nr++] = util_jnum(e, "latencyP99Ms", NAN);
        }
    }
}

/* x[i], max points from lo to hi: evenly, or evenly in log (geometric). */
static void spread(double lo, double hi, bool geometric, double *x, int max)
{
    for (int i = 0; i < max; i++)
        x[i] =
            geometric ? lo * pow(hi / lo, (double)i / (max - 1)) : lo + (hi - lo) * i / (max - 1);
    x[max - 1] = hi;
}

int plugin_sweep_usl_curve(const cJSON *usl, double lo, double hi, bool geometric, double *x,
                           double *y, int max)
{
    if (!cJSON_IsTrue(util_jget(usl, "ok")) || !(hi > lo) || max < 2 || (geometric && !(lo > 0)))
        return 0;
    struct bench_usl_fit f = {.ok = true,
                              .lambda = util_jnum(usl, "lambda", NAN),
                              .sigma = util_jnum(usl, "sigma", NAN),
                              .kappa = util_jnum(usl, "kappa", NAN)};
    if (!isfinite(f.lambda) || !isfinite(f.sigma) || !isfinite(f.kappa))
        return 0;
    spread(lo, hi, geometric, x, max);
    for (int i = 0; i < max; i++)
        y[i] = bench_usl_predict(&f, x[i]);
    return max;
}

bool plugin_sweep_doubling(const double *v, int n)
{
    double lsum = 0;
    for (int i = 0; i < n; i++)
        if (!(v[i] > 0) || (i && !(v[i] >= v[i - 1] * 1.2)))
            return false;
    if (n < 3)
        return false;
    for (int i = 1; i < n; i++)
        lsum += log2(v[i] / v[i - 1]);
    return lsum / (n - 1) >= 0.7; /* about x1.6 or more a step on average */
}

/* Ideal linear scaling, lambda N (the fit's lambda, else the smallest step's tps per client),
 * from the smallest value until it leaves the measured range by a fifth (so that it does not
 * squash the data). */
static void ideal_line(struct sweep_pts *p, const cJSON *usl, double lo, double hi, bool log)
{
    double lambda = cJSON_IsTrue(util_jget(usl, "ok")) ? util_jnum(usl, "lambda", NAN) : NAN;
    double ymax = 0;
    int first = -1;
    for (int i = 0; i < p->ns; i++) {
        ymax = fmax(ymax, p->stps[i]);
        if (first < 0 || p->sx[i] < p->sx[first])
            first = i;
    }
    if (!isfinite(lambda) && first >= 0 && p->sx[first] > 0)
        lambda = p->stps[first] / p->sx[first];
    if (!(lambda > 0) || !(hi > lo) || !(lo > 0))
        return;
    double end = fmin(hi, 1.2 * ymax / lambda);
    if (!(end > lo))
        return;
    p->ni = PLUGIN_SWEEP_CURVE_POINTS;
    spread(lo, end, log, p->ix, p->ni);
    for (int i = 0; i < p->ni; i++)
        p->iy[i] = lambda * p->ix[i];
}

/* The x range the fitted curve is drawn over: from the smallest value measured to the largest,
 * or to N* when it lies not far beyond (so the peak shows). */
static void curve_range(const struct sweep_pts *p, const cJSON *usl, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < p->ns; i++) {
        *lo = fmin(*lo, p->sx[i]);
        *hi = fmax(*hi, p->sx[i]);
    }
    double peak = util_jnum(usl, "peakClients", NAN);
    if (isfinite(peak) && peak > *hi && peak <= 2 * *hi)
        *hi = peak;
}

static int kv(struct buf *o, const char *k, const char *v, const char *cls)
{
    buf_printf(o, "<tr%s%s%s><th>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    buf_put_html(o, k);
    buf_puts(o, "</th><td>");
    buf_put_html(o, v);
    return buf_puts(o, "</td></tr>\n");
}

static int head_table(struct buf *o, const cJSON *sw)
{
    const cJSON *st = util_jget(sw, "status");
    const char *phase = util_jstr(st, "phase");
    char b[160];
    buf_puts(o, "<table class=\"kv\" id=\"sweep\">\n");
    kv(o, "phase", api_phase_shown(phase), NULL);
    (void)snprintf(b, sizeof(b), "%s (%d steps)",
                   util_jstr(st, "field") ? util_jstr(st, "field") : "?",
                   (int)util_jnum(st, "totalSteps", 0));
    kv(o, "varied", b, NULL);
    static const char *const keys[] = {"message", "stopReason", "startTime", "completionTime"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (util_jstr(st, keys[i]))
            kv(o, keys[i], util_jstr(st, keys[i]), NULL);
    const char *verdict = util_jstr(st, "analysis.verdict");
    if (verdict)
        kv(o, "verdict", verdict, "verdict");
    buf_puts(o, "</table>\n<pre id=\"summary\" class=\"wrap\">");
    struct buf sum = BUF_INIT(1 << 16);
    int rc = plugin_sweep_summary(&sum, sw); /* sum's error, not o's */
    if (rc == 0) {
        buf_put_html(o, sum.data);
        rc = buf_puts(o, "</pre>\n");
    }
    buf_free(&sum);
    return rc;
}

/* The mean at value v among the steps' points, or NAN. */
static double mean_at(const double *sx, const double *sy, int n, double v)
{
    for (int i = 0; i < n; i++)
        if (sx[i] == v)
            return sy[i];
    return NAN;
}

static int charts(struct buf *o, const cJSON *sw, struct sweep_pts *p)
{
    const cJSON *st = util_jget(sw, "status"), *usl = util_jget(st, "analysis.usl");
    const char *field = util_jstr(st, "field");
    field = field ? field : "value";
    char xlabel[64], knee[64], nstar[96], title[96];
    (void)snprintf(xlabel, sizeof(xlabel), "%s%s", field,
                   strcmp(field, "rate") == 0 ? " (target tps per worker)" : "");
    double lo, hi, kx = util_jnum(st, "analysis.kneeAt", NAN);
    bool log = plugin_sweep_doubling(p->sx, p->ns);
    curve_range(p, usl, &lo, &hi);
    p->nu = plugin_sweep_usl_curve(usl, lo, hi, log, p->ux, p->uy, PLUGIN_SWEEP_CURVE_POINTS);
    if (strcmp(field, "clients") == 0)
        ideal_line(p, usl, lo, hi, log);
    struct plugin_mark marks[2];
    int nm = 0;
    (void)snprintf(knee, sizeof(knee), "latency knee: %s=%g", field, kx);
    if (isfinite(kx))
        marks[nm++] = (struct plugin_mark){knee, kx, mean_at(p->sx, p->stps, p->ns, kx)};
    double px = util_jnum(usl, "peakClients", NAN), py = util_jnum(usl, "peakTps", NAN);
    (void)snprintf(nstar, sizeof(nstar), "N* = %.1f clients (USL peak %.0f tps)", px, py);
    if (p->nu && isfinite(px) && px <= hi)
        marks[nm++] = (struct plugin_mark){nstar, px, py};
    struct plugin_series ts[4] = {
        {.label = "TPS of each run", .x = p->rx, .y = p->rtps, .n = p->nr, .dots = true},
        {.label = "mean TPS per step", .x = p->sx, .y = p->stps, .n = p->ns, .nodots = true},
        {.label = "ideal linear scaling (λN)", .x = p->ix, .y = p->iy, .n = p->ni, .nodots = true},
        {.label = "USL fit", .x = p->ux, .y = p->uy, .n = p->nu, .nodots = true},
    };
    (void)snprintf(title, sizeof(title), "TPS against %s%s", field, log ? " (log2 scale)" : "");
    struct plugin_chart tc = {.id = "sweep-tps",
                              .title = title,
                              .xlabel = xlabel,
                              .ylabel = "TPS (transactions/s)",
                              .empty = "no step measured a tps yet.",
                              .marks = marks,
                              .nmarks = nm,
                              .log2x = log};
    buf_puts(o, "<h2>Throughput</h2>\n");
    if (!p->ni) /* the fit in the ideal line's place */
        ts[2] = ts[3];
    plugin_line_chart(o, &tc, ts, 2 + (p->ni > 0) + (p->nu > 0));
    if (!p->nu)
        buf_printf(o, "<p class=\"none\">no USL curve: %s</p>\n",
                   usl ? (util_jstr(usl, "reason") ? util_jstr(usl, "reason") : "no fit")
                       : "the USL is fitted to a clients sweep only");
    struct plugin_series ls[2] = {
        {.label = "p99 of each run", .x = p->rx, .y = p->rp99, .n = p->nr, .dots = true},
        {.label = "mean p99 per step", .x = p->sx, .y = p->sp99, .n = p->ns, .nodots = true},
    };
    struct plugin_mark lm = {knee, kx, mean_at(p->sx, p->sp99, p->ns, kx)};
    (void)snprintf(title, sizeof(title), "p99 latency against %s", field);
    struct plugin_chart lc = {.id = "sweep-p99",
                              .title = title,
                              .xlabel = xlabel,
                              .ylabel = "latency p99 (ms)",
                              .empty = "no step measured a p99 yet.",
                              .marks = &lm,
                              .nmarks = isfinite(kx) ? 1 : 0,
                              .log2x = log};
    buf_puts(o, "<h2>Latency</h2>\n");
    return plugin_line_chart(o, &lc, ls, 2);
}

/* How the limiting classes share each step's backend samples (steps[].classSharesPct), a line
 * per class that any step has, and each step's limit under it. */
static int class_chart(struct buf *o, const cJSON *sw, const struct sweep_pts *p)
{
    const cJSON *st = util_jget(sw, "status");
    const char *field = util_jstr(st, "field");
    field = field ? field : "value";
    double x[BENCH_VC__COUNT][API_SWEEP_MAX_STEPS], y[BENCH_VC__COUNT][API_SWEEP_MAX_STEPS];
    int n[BENCH_VC__COUNT] = {0};
    struct plugin_series s[PLUGIN_CHART_SERIES];
    int ns = 0;
    const cJSON *step, *it;
    cJSON_ArrayForEach(step, util_jget(st, "steps"))
    {
        cJSON_ArrayForEach(it, util_jget(step, "classSharesPct"))
        {
            int c = bench_verdict_class_parse(it->string);
            if (c < 0 || n[c] >= API_SWEEP_MAX_STEPS)
                continue;
            x[c][n[c]] = util_jnum(step, "value", NAN);
            y[c][n[c]++] = it->valuedouble;
        }
    }
    buf_puts(o, "<h2>What limits each step</h2>\n");
    for (int c = 0; c < BENCH_VC__COUNT && ns < PLUGIN_CHART_SERIES; c++)
        if (n[c])
            s[ns++] = (struct plugin_series){
                .label = bench_verdict_classes[c].label, .x = x[c], .y = y[c], .n = n[c]};
    char title[96];
    bool log = plugin_sweep_doubling(p->sx, p->ns);
    (void)snprintf(title, sizeof(title), "share of backend samples by class against %s", field);
    struct plugin_chart cc = {.id = "sweep-classes",
                              .title = title,
                              .xlabel = field,
                              .ylabel = "share of backend samples (%)",
                              .empty = "no step sampled wait events (spec.diagnostics.waitEvents).",
                              .log2x = log};
    plugin_line_chart(o, &cc, s, ns);
    return o->err;
}

static bool str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static int steps_table(struct buf *o, const cJSON *sw)
{
    buf_printf(o,
               "<h2>Steps</h2>\n<table id=\"steps\"><tr><th>%s</th><th>phase</th>"
               "<th>runs</th><th>TPS mean</th><th>TPS stddev</th><th>p99 mean "
               "(ms)</th><th>Little's law deviation (%%)</th><th>limit</th></tr>\n",
               util_jstr(sw, "status.field") ? util_jstr(sw, "status.field") : "value");
    const cJSON *step;
    cJSON_ArrayForEach(step, util_jget(sw, "status.steps"))
    {
        static const char *const nums[] = {"tpsMean", "tpsStddev", "latencyP99MsMean",
                                           "littlesLawDeviationPct"};
        char b[48];
        plugin_fmt_num(b, sizeof(b), util_jnum(step, "value", NAN));
        buf_printf(o, "<tr><td>%s</td><td>", b);
        buf_put_html(o, util_jstr(step, "phase"));
        buf_printf(o, "</td><td>%d</td>", cJSON_GetArraySize(util_jget(step, "runs")));
        for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
            plugin_fmt_num(b, sizeof(b), util_jnum(step, nums[i], NAN));
            buf_printf(o, "<td>%s</td>", b);
        }
        buf_puts(o, "<td class=\"limit\">");
        const cJSON *l = util_jget(step, "limit");
        if (l) {
            char lim[700], share[200] = "";
            int c = bench_verdict_class_parse(util_jstr(l, "class"));
            if (util_jstr(l, "evidence"))
                (void)snprintf(share, sizeof(share), "%s; ", util_jstr(l, "evidence"));
            else if (util_jget(l, "sharePct"))
                (void)snprintf(share, sizeof(share), "%s %.0f %% of %s; ",
                               util_jstr(l, "event") ? util_jstr(l, "event") : "?",
                               util_jnum(l, "sharePct", NAN),
                               str_eq(util_jstr(l, "shareOf"), "backendSamples")
                                   ? "backend samples"
                                   : "database wait time");
            (void)snprintf(lim, sizeof(lim), "%s: %s%d rounds%s",
                           c >= 0 ? bench_verdict_classes[c].label : "?", share,
                           (int)util_jnum(l, "rounds", 0),
                           cJSON_IsTrue(util_jget(l, "weak")) ? " (weak)" : "");
            buf_put_html(o, lim);
        }
        buf_puts(o, "</td></tr>\n");
    }
    return buf_puts(o, "</table>\n");
}

int plugin_sweep_report_html(struct buf *o, const cJSON *sw)
{
    char title[320];
    (void)snprintf(title, sizeof(title), "BenchmarkSweep %s", util_jstr(sw, "metadata.name"));
    struct sweep_pts *p = util_xcalloc(1, sizeof(*p));
    take_points(util_jget(sw, "status"), p);
    plugin_page_start(o, title);
    int rc = head_table(o, sw); /* head_table and the spec's YAML have errors of their own */
    charts(o, sw, p);
    class_chart(o, sw, p);
    steps_table(o, sw);
    free(p);
    rc = rc ? rc : plugin_spec_section(o, util_jget(sw, "spec"));
    return rc ? rc : buf_puts(o, "</body></html>\n");
}

int plugin_sweep_compare_html(struct buf *o, const cJSON *const *sws, size_t n, char *err,
                              size_t errlen)
{
    struct buf table = BUF_INIT(1 << 20);
    int rc = plugin_sweep_compare(&table, sws, n, err, errlen);
    if (rc) {
        buf_free(&table);
        return rc;
    }
    if (n > PLUGIN_CHART_SERIES)
        n = PLUGIN_CHART_SERIES;
    struct sweep_pts *p = util_xcalloc(n, sizeof(*p));
    struct plugin_series ts[PLUGIN_CHART_SERIES], ls[PLUGIN_CHART_SERIES];
    for (size_t i = 0; i < n; i++) {
        take_points(util_jget(sws[i], "status"), &p[i]);
        const char *name = util_jstr(sws[i], "metadata.name");
        ts[i] = (struct plugin_series){.label = name, .x = p[i].sx, .y = p[i].stps, .n = p[i].ns};
        ls[i] = (struct plugin_series){.label = name, .x = p[i].sx, .y = p[i].sp99, .n = p[i].ns};
    }
    const char *field = util_jstr(sws[0], "status.field");
    field = field ? field : "value";
    char title[96];
    plugin_page_start(o, "BenchmarkSweeps compared");
    buf_puts(o, "<pre id=\"compare\" class=\"wrap\">");
    buf_put_html(o, table.data);
    buf_puts(o, "</pre>\n<h2>Throughput</h2>\n");
    bool log = true; /* log2 when every sweep is a doubling series */
    for (size_t i = 0; i < n; i++)
        log = log && plugin_sweep_doubling(p[i].sx, p[i].ns);
    const char *scale = log ? " (log2 scale)" : "";
    (void)snprintf(title, sizeof(title), "mean TPS per step against %s%s", field, scale);
    struct plugin_chart tc = {.id = "compare-tps",
                              .title = title,
                              .xlabel = field,
                              .ylabel = "TPS (transactions/s)",
                              .empty = "no sweep measured a tps yet.",
                              .log2x = log};
    plugin_line_chart(o, &tc, ts, (int)n);
    buf_puts(o, "<h2>Latency</h2>\n");
    (void)snprintf(title, sizeof(title), "mean p99 latency per step against %s%s", field, scale);
    struct plugin_chart lc = {.id = "compare-p99",
                              .title = title,
                              .xlabel = field,
                              .ylabel = "latency p99 (ms)",
                              .empty = "no sweep measured a p99 yet.",
                              .log2x = log};
    plugin_line_chart(o, &lc, ls, (int)n);
    free(p);
    buf_free(&table);
    return buf_puts(o, "</body></html>\n");
}
