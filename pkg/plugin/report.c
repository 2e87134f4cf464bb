/* The HTML report: its sections and the charts (chart.h) that draw its data (no scripts, no
 * external assets). */
#include "pkg/plugin/report.h"
#include "pkg/bench/diag.h"
#include "pkg/bench/fields.h"
#include "pkg/bench/histogram.h"
#include "pkg/api/phase.h"
#include "pkg/api/status.h"
#include "pkg/plugin/chart.h"
#include "pkg/plugin/present.h"
#include "pkg/plugin/yaml.h"
#include "pkg/util/clock.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXPTS 4096         /* points per line; longer timelines are drawn evenly spaced */
#define MAX_WORKER_LINES 16 /* per-worker lines drawn beside the total */

static double num_at(const cJSON *o, enum bench_field_id id)
{
    const cJSON *v = bench_status_get(o, id);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int kv_row(struct buf *o, const char *k, const char *v)
{
    buf_puts(o, "<tr><th>");
    buf_put_html(o, k);
    buf_puts(o, "</th><td>");
    buf_put_html(o, v);
    return buf_puts(o, "</td></tr>\n");
}

/* A summary row's number: status' field, or one status words in a sentence (its row has no
 * status path) from the result; without the result Little's law's deviation is computed from
 * status as the result's is. */
static double summary_value(const cJSON *st, const cJSON *result, enum bench_field_id id)
{
    if (bench_fields[id].status)
        return num_at(st, id);
    if (result)
        return bench_num(result, id);
    return id == BK_CHECKS_LITTLES_LAW_DEVIATION_PCT ? api_status_littles_law_pct(st) : NAN;
}

static int summary_table(struct buf *o, const cJSON *st, const cJSON *result)
{
    static const struct {
        const char *label, *unit;
        enum bench_field_id id;
    } rows[] = {
        {"TPS", "", BK_SUMMARY_TPS},
        {"latency average", " ms", BK_SUMMARY_LATENCY_AVG_MS},
        {"latency p50", " ms", BK_SUMMARY_LATENCY_P50_MS},
        {"latency p95", " ms", BK_SUMMARY_LATENCY_P95_MS},
        {"latency p99", " ms", BK_SUMMARY_LATENCY_P99_MS},
        {"latency p99.9", " ms", BK_SUMMARY_LATENCY_P999_MS},
        {"latency max", " ms", BK_SUMMARY_LATENCY_MAX_MS},
        {"transactions", "", BK_SUMMARY_TRANSACTIONS_PROCESSED},
        {"failed transactions", "", BK_SUMMARY_FAILED_TRANSACTIONS},
        {"aborted clients", "", BK_SUMMARY_ABORTED_CLIENTS},
        {"Little's law deviation", " %", BK_CHECKS_LITTLES_LAW_DEVIATION_PCT},
        {"replica lag max", " ms", BK_CHECKS_REPLICA_MAX_LAG_MS},
    };
    buf_puts(o, "<table class=\"kv\">\n");
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        double v = summary_value(st, result, rows[i].id);
        if (!isfinite(v))
            continue;
        char b[64], c[80];
        plugin_fmt_num(b, sizeof(b), v);
        (void)snprintf(c, sizeof(c), "%s%s", b, rows[i].unit);
        kv_row(o, rows[i].label, c);
    }
    return buf_puts(o, "</table>\n");
}

/* Points of one timeline metric from a list in status form (result false) or in the result's
 * (true); evenly spaced when the list is longer than MAXPTS. */
static int take(const cJSON *list, bool result, enum bench_field_id xid, enum bench_field_id yid,
                double *x, double *y)
{
    int len = cJSON_GetArraySize(list), step = len > MAXPTS ? (len + MAXPTS - 1) / MAXPTS : 1;
    int n = 0, i = 0;
    const cJSON *it;
    if (cJSON_IsArray(list))
        cJSON_ArrayForEach(it, list)
        {
            if (i++ % step || n >= MAXPTS)
                continue;
            x[n] = result ? bench_num(it, xid) : num_at(it, xid);
            y[n] = result ? bench_num(it, yid) : num_at(it, yid);
            n++;
        }
    return n;
}

struct pts {
    double x[MAXPTS], y[MAXPTS];
};

/* The aggregate's timeline: the result's full one when there is a result, else status'. */
static int total_line(const cJSON *st, const cJSON *res, enum bench_field_id yid, struct pts *p)
{
    if (res)
        return take(bench_get(res, BK_TIMELINE), true, BK_TIMELINE_T, yid, p->x, p->y);
    cJSON *tl = bench_series_timeline(st); /* status' series, in the result's shape */
    int n = take(tl, true, BK_TIMELINE_T, yid, p->x, p->y);
    cJSON_Delete(tl);
    return n;
}

/* One line per worker of the result (at most MAX_WORKER_LINES), thin, labelled "worker N" (N its
 * index; a worker that left no result has a legend entry and no line), into s, p and labels.
 * Returns the number of lines. */
static int worker_lines(const cJSON *res, enum bench_field_id yid, struct pts *p,
                        char (*labels)[32], struct plugin_series *s)
{
    const cJSON *wr, *ws = bench_get(res, BK_WORKER_RESULTS);
    int n = 0;
    if (cJSON_IsArray(ws))
        cJSON_ArrayForEach(wr, ws)
        {
            if (n >= MAX_WORKER_LINES)
                break;
            double idx = bench_num(wr, BK_WORKER);
            (void)snprintf(labels[n], sizeof(labels[n]), "worker %d",
                           isfinite(idx) && idx >= 0 && idx < 1e6 ? (int)idx : n);
            int np = take(bench_get(wr, BK_TIMELINE), true, BK_TIMELINE_T, yid, p[n].x, p[n].y);
            s[n] = (struct plugin_series){
                .label = labels[n], .x = p[n].x, .y = p[n].y, .n = np, .thin = true};
            n++;
        }
    return n;
}

/* Decodes a result histogram; NULL when it is absent or not valid. */
static struct bench_hist *hist_of(const cJSON *json)
{
    if (!json)
        return NULL;
    struct bench_hist *h = bench_hist_new();
    if (bench_hist_from_json(h, json) != 0) {
        bench_hist_free(h);
        return NULL;
    }
    return h;
}

int plugin_percentile_curve(const cJSON *hist, double *x, double *y, int max)
{
    struct bench_hist *h = hist_of(hist);
    if (!h)
        return -EINVAL;
    uint64_t count = bench_hist_count(h);
    double top = count > 0 ? log10((double)count) + 1e-9 : -1;
    int n = 0;
    for (int k = 0; n < max && (double)k / PLUGIN_CURVE_STEPS_PER_NINE <= top; k++) {
        double nines = (double)k / PLUGIN_CURVE_STEPS_PER_NINE;
        x[n] = nines;
        y[n++] = (double)bench_hist_percentile(h, 100 - 100 * pow(10, -nines)) / 1000.0;
    }
    bench_hist_free(h);
    return n;
}

static double nines_of(double pct)
{
    return -log10(1 - pct / 100);
}

static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:900px}"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px}"
    "table{border-collapse:collapse}th,td{padding:2px 10px;text-align:left;border-bottom:1px "
    "solid #eee}td{font-variant-numeric:tabular-nums}"
    "pre{background:#f6f6f6;padding:10px;overflow:auto;font-size:12px}pre.wrap{white-space:"
    "pre-wrap}"
    "svg text{font:12px sans-serif;fill:#222}.t{font-weight:bold;font-size:13px}"
    ".xt{text-anchor:middle}.yt{text-anchor:end}.rt{text-anchor:start}.bl{text-anchor:end}"
    ".xl,.yl{text-anchor:middle;font-style:italic}.g{stroke:#e4e4e4}.ax{stroke:#444}"
    ".mk{stroke:#444;stroke-dasharray:3 3}svg text.mkl{font-size:11px;paint-order:stroke;"
    "stroke:#fff;stroke-width:3px}svg text.e{text-anchor:end}.verdict{color:#b00}"
    "figure{margin:8px 0}.none{color:#888}"
    ".cmp th,.cmp td{white-space:nowrap}.cmp .n{text-align:right}.cmp tr.sec th{padding-top:10px;"
    "border-bottom:1px solid #999}.cmp tr.differs{background:#fff3c4}";

static int page_start(struct buf *o, const char *title)
{
    buf_puts(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
    buf_put_html(o, title);
    buf_printf(o, "</title><style>%s</style></head><body>\n<h1>", css);
    buf_put_html(o, title);
    return buf_puts(o, "</h1>\n");
}

/* The percentile curve of each run's merged histogram (names[i] its legend; hists[i] may be
 * NULL); with one run, p50, p95 and p99 are marked. */
static int percentile_chart(struct buf *o, const char *const *names, const cJSON *const *hists,
                            size_t n, const char *empty)
{
    struct pts *p = util_xcalloc(n, sizeof(*p));
    struct plugin_series s[PLUGIN_MAX_RUNS];
    struct plugin_mark m[3];
    char lab[3][64];
    int ns = 0, nm = 0;
    for (size_t i = 0; i < n && i < PLUGIN_MAX_RUNS; i++) {
        int np = plugin_percentile_curve(hists[i], p[ns].x, p[ns].y, MAXPTS);
        if (np > 0)
            s[ns] = (struct plugin_series){.label = names[i], .x = p[ns].x, .y = p[ns].y, .n = np},
            ns++;
    }
    struct bench_hist *h = n == 1 ? hist_of(hists[0]) : NULL;
    static const double pcts[] = {50, 95, 99};
    for (int k = 0; h && bench_hist_count(h) > 0 && k < 3; k++, nm++) {
        double ms = (double)bench_hist_percentile(h, pcts[k]) / 1000.0;
        char v[32];
        plugin_fmt_num(v, sizeof(v), ms);
        (void)snprintf(lab[k], sizeof(lab[k]), "p%g %s ms", pcts[k], v);
        m[k] = (struct plugin_mark){lab[k], nines_of(pcts[k]), ms};
    }
    bench_hist_free(h);
    struct plugin_chart c = {
        .id = "percentiles",
        .title = "Latency by percentile (merged histogram of the summary's transactions)",
        .xlabel = "percentile (%, log scale: one tick per nine)",
        .ylabel = "latency (ms)",
        .empty = empty,
        .nines = true,
        .marks = m,
        .nmarks = nm};
    plugin_line_chart(o, &c, s, ns);
    free(p);
    return o->err;
}

/* The HPA's replica counts over the run (status.hpaTimeline) into p; how many. */
static int hpa_points(const cJSON *st, struct pts *p)
{
    const cJSON *hpa = cJSON_GetObjectItemCaseSensitive(st, "hpaTimeline"), *it;
    double start = api_status_start_at(st);
    int nh = 0;
    if (!cJSON_IsArray(hpa) || !(start > 0))
        return 0;
    cJSON_ArrayForEach(it, hpa)
    {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(it, "replicas");
        double t =
            util_rfc3339_parse(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "time")));
        if (nh < MAXPTS && cJSON_IsNumber(r) && t >= 0) {
            p->x[nh] = fmax(0, t - start);
            p->y[nh++] = r->valuedouble;
        }
    }
    return nh;
}

/* TPS over time (with the HPA's replicas on the same time axis when the run had one): the total
 * and one line per worker of the result. */
static int tps_chart(struct buf *o, const cJSON *st, const cJSON *res, double warm)
{
    struct pts *p = util_xcalloc(2 + MAX_WORKER_LINES, sizeof(*p));
    struct plugin_series s[2 + MAX_WORKER_LINES];
    char labels[MAX_WORKER_LINES][32];
    int nt = total_line(st, res, BK_TIMELINE_TPS, &p[0]);
    s[0] = (struct plugin_series){
        .label = "TPS, all workers (1/s)", .x = p[0].x, .y = p[0].y, .n = nt};
    int ns = 1 + worker_lines(res, BK_TIMELINE_TPS, &p[1], labels, &s[1]);
    int nh = hpa_points(st, &p[ns]);
    if (nh)
        s[ns] = (struct plugin_series){.label = "HPA replicas",
                                       .x = p[ns].x,
                                       .y = p[ns].y,
                                       .n = nh,
                                       .right = true,
                                       .step = true},
        ns++;
    struct plugin_chart c = {.id = "tps",
                             .title = nh ? "TPS and HPA replicas over time" : "TPS over time",
                             .xlabel = "time since start (s)",
                             .ylabel = "TPS (1/s)",
                             .rlabel = nh ? "replicas" : NULL,
                             .shade_to = warm};
    buf_puts(o, "<h2>Throughput over time</h2>\n");
    plugin_line_chart(o, &c, s, ns);
    free(p);
    return o->err;
}

/* Latency over time: the average of each -P interval (total and per worker) and, from the
 * result's latencySeries, p50 and p99 of each interval of the -l log. */
static int latency_chart(struct buf *o, const cJSON *st, const cJSON *res, double warm)
{
    struct pts *p = util_xcalloc(3 + MAX_WORKER_LINES, sizeof(*p));
    struct plugin_series s[3 + MAX_WORKER_LINES];
    char labels[MAX_WORKER_LINES][32], l50[64], l99[64];
    int ns = 0, nt = total_line(st, res, BK_TIMELINE_LATENCY_MS, &p[0]);
    s[ns++] = (struct plugin_series){
        .label = "average latency, all workers (ms)", .x = p[0].x, .y = p[0].y, .n = nt};
    const cJSON *pts = bench_get(res, BK_LATENCY_SERIES_POINTS);
    double w = bench_num(res, BK_LATENCY_SERIES_INTERVAL_SECONDS);
    (void)snprintf(l50, sizeof(l50), "p50 per %g s (ms)", isfinite(w) ? w : 1);
    (void)snprintf(l99, sizeof(l99), "p99 per %g s (ms)", isfinite(w) ? w : 1);
    int n50 = take(pts, true, BK_LATENCY_SERIES_POINTS_T, BK_LATENCY_SERIES_POINTS_P50_MS, p[1].x,
                   p[1].y);
    int n99 = take(pts, true, BK_LATENCY_SERIES_POINTS_T, BK_LATENCY_SERIES_POINTS_P99_MS, p[2].x,
                   p[2].y);
    if (n50)
        s[ns++] = (struct plugin_series){.label = l50, .x = p[1].x, .y = p[1].y, .n = n50};
    if (n99)
        s[ns++] = (struct plugin_series){.label = l99, .x = p[2].x, .y = p[2].y, .n = n99};
    ns += worker_lines(res, BK_TIMELINE_LATENCY_MS, &p[3], labels, &s[ns]);
    struct plugin_chart lc = {.id = "latency",
                              .title = n99 ? "Latency over time: average (-P) and p50/p99 (-l log)"
                                           : "Latency over time (average)",
                              .xlabel = "time since start (s)",
                              .ylabel = "latency (ms)",
                              .shade_to = warm};
    buf_puts(o, "<h2>Latency over time</h2>\n");
    plugin_line_chart(o, &lc, s, ns);
    free(p);
    return o->err;
}

/* The heading of the statement latencies and what they cover (a warm-up cut is in them). */
static void statements_heading(struct buf *o, const cJSON *br, const cJSON *res)
{
    char cover[256];
    plugin_statements_cover(cover, sizeof(cover), br, res);
    buf_puts(o, "<h2>Statement latencies</h2>\n<p id=\"statements-cover\">Averages over ");
    buf_put_html(o, cover);
    buf_puts(o, ".</p>\n");
}

/* Per-statement latencies (-r): the result's rows, else status' lines; nothing without -r. */
static int statements_table(struct buf *o, const cJSON *br, const cJSON *st, const cJSON *res)
{
    const cJSON *rows = bench_get(res, BK_STATEMENTS), *it;
    const cJSON *lines = bench_status_get(st, BK_STATUS_STATEMENTS);
    if (cJSON_GetArraySize(rows) > 0) {
        statements_heading(o, br, res);
        buf_puts(o, "<table id=\"statements\">\n<tr><th>script"
                    "</th><th>latency (ms)</th><th>failures</th><th>statement</th></tr>\n");
        cJSON_ArrayForEach(it, rows)
        {
            char sc[32], lat[32], fl[32];
            double f = bench_num(it, BK_STATEMENTS_FAILURES);
            (void)snprintf(sc, sizeof(sc), "%g", bench_num(it, BK_STATEMENTS_SCRIPT));
            (void)snprintf(lat, sizeof(lat), "%.3f", bench_num(it, BK_STATEMENTS_LATENCY_MS));
            (void)snprintf(fl, sizeof(fl), isfinite(f) ? "%g" : "", f);
            const cJSON *cmd = bench_get(it, BK_STATEMENTS_COMMAND);
            buf_printf(o, "<tr><td>%s</td><td>%s</td><td>%s</td><td><code>", sc, lat, fl);
            buf_put_html(o, cJSON_IsString(cmd) ? cmd->valuestring : "");
            buf_puts(o, "</code></td></tr>\n");
        }
        return buf_puts(o, "</table>\n");
    }
    if (cJSON_GetArraySize(lines) == 0)
        return 0;
    statements_heading(o, br, res);
    buf_puts(o, "<pre id=\"statements\">");
    cJSON_ArrayForEach(it, lines) if (cJSON_IsString(it))
    {
        buf_put_html(o, it->valuestring);
        buf_puts(o, "\n");
    }
    return buf_puts(o, "</pre>\n");
}

const char *plugin_result_ref(const cJSON *br, const char **key)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(br, "status");
    const cJSON *name = bench_status_get(st, BK_STATUS_RESULT_REF_NAME);
    const cJSON *k = bench_status_get(st, BK_STATUS_RESULT_REF_KEY);
    if (key)
        *key = cJSON_IsString(k) && k->valuestring[0] ? k->valuestring : NULL;
    return cJSON_IsString(name) && name->valuestring[0] ? name->valuestring : NULL;
}

/* Which data the page shows: the full result (how many points, workers, what was reduced) or
 * status only, and why. */
static int source_row(struct buf *o, const cJSON *br, const cJSON *res, const char *note)
{
    char b[600];
    if (res) {
        const char *cm = plugin_result_ref(br, NULL);
        (void)snprintf(b, sizeof(b),
                       "the full result, ConfigMap %s: %d timeline points, %d worker "
                       "results%s",
                       cm ? cm : "?", cJSON_GetArraySize(bench_get(res, BK_TIMELINE)),
                       cJSON_GetArraySize(bench_get(res, BK_WORKER_RESULTS)),
                       bench_get(res, BK_DOWNSAMPLED)
                           ? " (the operator reduced it to fit the ConfigMap: see downsampled)"
                           : "");
    } else {
        (void)snprintf(b, sizeof(b),
                       "status only (%s): at most %d timeline points, no per-worker "
                       "lines, no percentile curve",
                       note ? note : "no result ConfigMap",
                       bench_fields[BK_STATUS_TIMELINE].max_items);
    }
    return kv_row(o, "data", b);
}

/* The diagnostics as status words them, one row per sentence (pkg/bench/diag.h). */
static int diagnostics_table(struct buf *o, const cJSON *st)
{
    int rows = 0;
    for (size_t i = 0; i < bench_ndiags; i++) {
        const cJSON *s = bench_status_get(st, bench_diags[i].status);
        if (bench_diags[i].join || !cJSON_IsString(s)) /* a joined one is in its row's */
            continue;
        if (!rows++)
            buf_puts(o, "<h2>Diagnostics</h2>\n<table class=\"kv\" id=\"diagnostics\">\n");
        kv_row(o, bench_status_key(bench_diags[i].status), s->valuestring);
    }
    return rows ? buf_puts(o, "</table>\n") : o->err;
}

static int report_head(struct buf *o, const cJSON *br, const cJSON *res, const char *note)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(br, "status");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(br, "metadata");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "name"));
    const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "phase"));
    char title[320];
    (void)snprintf(title, sizeof(title), "BenchmarkRun %s", name ? name : "");
    page_start(o, title);
    buf_puts(o, "<table class=\"kv\">\n");
    kv_row(o, "phase", api_phase_shown(phase));
    static const char *const keys[] = {"target", "message", "startTime", "completionTime"};
    for (size_t i = 0; i < 4; i++) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, keys[i]));
        if (v)
            kv_row(o, keys[i], v);
    }
    const cJSON *line = bench_status_get(st, BK_STATUS_RESULT);
    if (cJSON_IsString(line))
        kv_row(o, "result", line->valuestring);
    source_row(o, br, res, note);
    const cJSON *win = bench_status_get(st, BK_STATUS_SUMMARY_WINDOW);
    if (!bench_status_get(st, BK_SUMMARY))
        return buf_puts(o, "</table>\n");
    buf_puts(o, "</table>\n<h2>Summary</h2>\n");
    summary_table(o, st, res);
    buf_printf(o, "<p id=\"window\">The numbers cover %s.</p>\n",
               cJSON_IsString(win) ? win->valuestring : "the whole run (no warm-up cut)");
    return diagnostics_table(o, st);
}

/* The wait-event shares into w (at most max): the result's, else those status' sentence names
 * (its largest). Returns how many. */
static int wait_shares(const cJSON *st, const cJSON *result, struct bench_wait_share *w, int max)
{
    const cJSON *sh = bench_get(result, BK_WAIT_EVENTS_SHARES_PCT), *it;
    const cJSON *line = bench_status_get(st, BK_STATUS_DIAGNOSTICS_WAIT_EVENTS);
    int n = 0;
    if (!cJSON_IsObject(sh))
        return cJSON_IsString(line) ? bench_diag_wait_parse(line->valuestring, w, max) : 0;
    cJSON_ArrayForEach(it, sh) if (n < max && cJSON_IsNumber(it))
    {
        (void)snprintf(w[n].event, sizeof(w[n].event), "%s", it->string);
        w[n++].pct = it->valuedouble;
    }
    return n;
}

/* Wait-event shares (wait_shares); nothing when the run sampled none. */
static int wait_chart(struct buf *o, const cJSON *st, const cJSON *result)
{
    struct bench_wait_share w[64];
    const char *labels[64];
    double vals[64];
    int nl = wait_shares(st, result, w, 64);
    for (int i = 0; i < nl; i++) {
        labels[i] = w[i].event;
        vals[i] = w[i].pct;
    }
    if (nl == 0)
        return 0;
    buf_puts(o, "<h2>Wait events</h2>\n");
    return plugin_bar_chart(o, "waits", "Wait-event shares of the load's backends",
                            "share of backend samples (%)", labels, vals, nl, 1, NULL);
}

/* Replica lag samples from the result (status words only their maximum); nothing without. */
static int lag_chart(struct buf *o, const cJSON *result)
{
    const cJSON *lag = bench_get(result, BK_CHECKS_REPLICA_LAG_SAMPLES_MS), *it;
    if (cJSON_GetArraySize(lag) == 0)
        return 0;
    struct pts *p = util_xcalloc(1, sizeof(*p));
    int nlag = 0;
    cJSON_ArrayForEach(it, lag) if (nlag < MAXPTS)
    {
        p->x[nlag] = nlag + 1;
        p->y[nlag++] = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    }
    struct plugin_series rs = {.label = "replay lag (ms)", .x = p->x, .y = p->y, .n = nlag};
    struct plugin_chart c = {.id = "lag",
                             .title = "Replica replay lag during the run",
                             .xlabel = "sample (one per tick)",
                             .ylabel = "lag (ms)"};
    buf_puts(o, "<h2>Replica lag</h2>\n");
    plugin_line_chart(o, &c, &rs, 1);
    free(p);
    return o->err;
}

/* fio's IOPS per second (the result's series), one line per job and direction. */
static int fio_iops_chart(struct buf *o, const cJSON *result)
{
    enum { MAXL = 8 };
    struct pts *p = util_xcalloc(MAXL, sizeof(*p));
    struct plugin_series s[MAXL];
    char labels[MAXL][96];
    static const enum bench_field_id dirs[2] = {BK_FIO_JOBS_SERIES_READ_IOPS,
                                                BK_FIO_JOBS_SERIES_WRITE_IOPS};
    int ns = 0;
    const cJSON *j;
    cJSON_ArrayForEach(j, bench_get(result, BK_FIO_JOBS))
    {
        const cJSON *name = bench_get(j, BK_FIO_JOBS_NAME);
        for (int d = 0; d < 2 && ns < MAXL; d++) {
            int n = take(bench_get(j, BK_FIO_JOBS_SERIES), true, BK_FIO_JOBS_SERIES_T, dirs[d],
                         p[ns].x, p[ns].y);
            bool any = false;
            for (int i = 0; i < n; i++)
                any = any || isfinite(p[ns].y[i]);
            if (!any)
                continue;
            (void)snprintf(labels[ns], sizeof(labels[ns]), "%s %s IOPS",
                           cJSON_IsString(name) ? name->valuestring : "?", d ? "write" : "read");
            s[ns] = (struct plugin_series){.label = labels[ns], .x = p[ns].x, .y = p[ns].y, .n = n};
            ns++;
        }
    }
    if (ns) {
        struct plugin_chart c = {.id = "fio-iops",
                                 .title = "fio IOPS per second (fio's own logs)",
                                 .xlabel = "time since the job started (s)",
                                 .ylabel = "IOPS (1/s)"};
        buf_puts(o, "<h2>fio IOPS over time</h2>\n");
        plugin_line_chart(o, &c, s, ns);
    }
    free(p);
    return o->err;
}

/* fio's p99 per job from status, in µs like status and the result; nothing for pgbench runs. */
static int fio_chart(struct buf *o, const cJSON *st)
{
    const cJSON *fio = bench_status_get(st, BK_FIO_JOBS), *it;
    const char *labels[64];
    double vals[64 * 3];
    int nl = 0;
    if (cJSON_GetArraySize(fio) == 0)
        return 0;
    cJSON_ArrayForEach(it, fio) if (nl < 64)
    {
        const cJSON *jn = bench_status_get(it, BK_FIO_JOBS_NAME);
        labels[nl] = cJSON_IsString(jn) ? jn->valuestring : "?";
        double *v = &vals[(size_t)nl * 3];
        v[0] = num_at(it, BK_FIO_JOBS_READ_CLAT_US_P99);
        v[1] = num_at(it, BK_FIO_JOBS_WRITE_CLAT_US_P99);
        v[2] = num_at(it, BK_FIO_JOBS_SYNC_P99);
        nl++;
    }
    static const char *const fio_series[] = {"read clat p99", "write clat p99", "sync p99"};
    buf_puts(o, "<h2>fio latency per job</h2>\n");
    return plugin_bar_chart(o, "fio", "fio p99 latency per job", "latency p99 (µs)", labels, vals,
                            nl, 3, fio_series);
}

/* The server's settings (the result's; without it the sentence status words the server in) and
 * the spec as YAML. */
static int settings(struct buf *o, const cJSON *br, const cJSON *st, const cJSON *result)
{
    const cJSON *srv = bench_get(result, BK_SERVER), *it;
    const cJSON *line = bench_status_get(st, BK_STATUS_DIAGNOSTICS_SERVER);
    buf_puts(o, "<h2>Server settings</h2>\n");
    if (!cJSON_IsObject(srv) && cJSON_IsString(line)) {
        buf_puts(o, "<table class=\"kv\" id=\"server\">\n");
        kv_row(o, "server", line->valuestring);
        buf_puts(o, "</table>\n<p class=\"none\">the settings are in the result ConfigMap.</p>\n");
    } else if (cJSON_IsObject(srv)) {
        buf_puts(o, "<table class=\"kv\" id=\"server\">\n");
        cJSON_ArrayForEach(it, srv)
        {
            char b[128];
            const char *v = b;
            if (cJSON_IsString(it))
                v = it->valuestring;
            else if (cJSON_IsNumber(it))
                util_fmt_double(b, sizeof(b), it->valuedouble);
            else if (cJSON_IsBool(it))
                v = cJSON_IsTrue(it) ? "true" : "false";
            else
                continue;
            kv_row(o, it->string, v);
        }
        buf_puts(o, "</table>\n");
    } else {
        buf_puts(o, "<p class=\"none\">not recorded (diagnostics.serverSettings).</p>\n");
    }
    return plugin_spec_section(o, cJSON_GetObjectItemCaseSensitive(br, "spec"));
}

int plugin_report_html(struct buf *o, const cJSON *br, const cJSON *result, const char *note)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(br, "status");
    report_head(o, br, result, note);
    /* sections only for what the run has: pgbench's for a run with a summary, fio's for jobs */
    if (bench_status_get(st, BK_SUMMARY)) {
        double warm = plugin_warmup_s(br, result);
        statements_table(o, br, st, result);
        tps_chart(o, st, result, warm);
        latency_chart(o, st, result, warm);
        const cJSON *hist = bench_get(result, BK_HISTOGRAM);
        const char *label =
            warm > 0 ? "latency at percentile, steady window (ms)" : "latency at percentile (ms)";
        buf_puts(o, "<h2>Latency percentiles</h2>\n");
        percentile_chart(o, &label, &hist, 1,
                         result ? "no histogram in the result (pgbench wrote no -l log)."
                                : "needs the result ConfigMap (status keeps no histogram).");
    }
    wait_chart(o, st, result);
    lag_chart(o, result);
    fio_chart(o, st);
    fio_iops_chart(o, result);
    int rc = settings(o, br, st, result); /* also the spec's YAML: an error of its own */
    return rc ? rc : buf_puts(o, "</body></html>\n");
}

/* ---- compare ---------------------------------------------------------------------------- */

static const char *run_name(const cJSON *br)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(br, "metadata");
    const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "name"));
    return n ? n : "?";
}

/* One timeline metric of every run on one chart, one line per run. */
static int overlay_chart(struct buf *o, const struct plugin_chart *c, const cJSON *const *brs,
                         const cJSON *const *results, size_t n, enum bench_field_id yid)
{
    struct pts *p = util_xcalloc(n, sizeof(*p));
    struct plugin_series s[PLUGIN_MAX_RUNS];
    for (size_t i = 0; i < n; i++) {
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(brs[i], "status");
        int np = total_line(st, results[i], yid, &p[i]);
        s[i] = (struct plugin_series){.label = run_name(brs[i]), .x = p[i].x, .y = p[i].y, .n = np};
    }
    plugin_line_chart(o, c, s, (int)n);
    free(p);
    return o->err;
}

/* Which runs the page read from their result ConfigMap and which from status only. */
static int compare_sources(struct buf *o, const cJSON *const *brs, const cJSON *const *results,
                           size_t n)
{
    buf_puts(o, "<table class=\"kv\" id=\"runs\">\n");
    for (size_t i = 0; i < n; i++) {
        char b[400];
        const char *cm = plugin_result_ref(brs[i], NULL);
        if (results[i])
            (void)snprintf(b, sizeof(b), "full result (ConfigMap %s, %d timeline points)",
                           cm ? cm : "?", cJSON_GetArraySize(bench_get(results[i], BK_TIMELINE)));
        else
            (void)snprintf(b, sizeof(b),
                           "status only (at most %d timeline points, no percentile "
                           "curve)",
                           bench_fields[BK_STATUS_TIMELINE].max_items);
        kv_row(o, run_name(brs[i]), b);
    }
    return buf_puts(o, "</table>\n");
}

int plugin_compare_html(struct buf *o, const struct plugin_compare *c, struct buf *verdict,
                        bool *failed)
{
    const cJSON *const *brs = c->brs, *const *results = c->results;
    size_t n = c->n;
    if (n > PLUGIN_MAX_RUNS)
        return -EINVAL;
    struct buf table = BUF_INIT(4u << 20);
    int rc = plugin_compare_table(&table, c, true, verdict, failed); /* not only o's errors */
    if (rc) {
        buf_free(&table);
        return rc;
    }
    char title[200];
    (void)snprintf(title, sizeof(title), "Comparison of %zu BenchmarkRuns (deltas against %s)", n,
                   run_name(brs[0]));
    page_start(o, title);
    compare_sources(o, brs, results, n);
    buf_puts(o, "<h2>Settings and results</h2>\n");
    buf_append(o, table.data, table.len);
    if (*failed) {
        buf_puts(o, "<pre class=\"verdict\" id=\"verdict\">");
        buf_put_html(o, verdict->data);
        buf_puts(o, "</pre>\n");
    }
    buf_free(&table);
    struct plugin_chart tc = {.id = "tps",
                              .title = "TPS over time",
                              .xlabel = "time since start (s)",
                              .ylabel = "TPS (1/s)"};
    struct plugin_chart lc = {.id = "latency",
                              .title = "Average latency over time",
                              .xlabel = "time since start (s)",
                              .ylabel = "latency (ms)"};
    buf_puts(o, "<h2>Throughput over time</h2>\n");
    overlay_chart(o, &tc, brs, results, n, BK_TIMELINE_TPS);
    buf_puts(o, "<h2>Latency over time</h2>\n");
    overlay_chart(o, &lc, brs, results, n, BK_TIMELINE_LATENCY_MS);
    const char *names[PLUGIN_MAX_RUNS];
    const cJSON *hists[PLUGIN_MAX_RUNS];
    for (size_t i = 0; i < n; i++) {
        names[i] = run_name(brs[i]);
        hists[i] = bench_get(results[i], BK_HISTOGRAM);
    }
    buf_puts(o, "<h2>Latency percentiles</h2>\n");
    percentile_chart(o, names, hists, n,
                     "no run has a histogram (it is in the result ConfigMap only).");
    return buf_puts(o, "</body></html>\n");
}

/* ---- for the other pages (report.h) ----------------------------------------------------- */

int plugin_page_start(struct buf *o, const char *title)
{
    return page_start(o, title);
}

int plugin_spec_section(struct buf *o, const cJSON *spec)
{
    if (!spec)
        return 0;
    struct buf y = BUF_INIT(8u << 20);
    int rc = plugin_yaml_append(&y, spec, 0);
    if (rc == 0) {
        buf_puts(o, "<h2>Spec</h2>\n<pre id=\"spec\">");
        buf_put_html(o, y.data);
        rc = buf_puts(o, "</pre>\n");
    }
    buf_free(&y);
    return rc;
}
