/* The HTML report: inline SVG plots drawn here (no scripts, no external assets). */
#include "pkg/plugin/report.h"
#include "pkg/bench/fields.h"
#include "pkg/controller/status.h"
#include "pkg/plugin/present.h"
#include "pkg/plugin/yaml.h"
#include "pkg/util/clock.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 760 /* plot size in px */
#define H 300
#define ML 70 /* margins: left (y labels), right (second axis), top, bottom (x labels) */
#define MR 70
#define MT 44
#define MB 48
#define MAXPTS 4096

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"};

static int esc(struct buf *o, const char *s)
{
    int rc = 0;
    for (; s && *s && !rc; s++) {
        switch (*s) {
        case '<':
            rc = buf_puts(o, "&lt;");
            break;
        case '>':
            rc = buf_puts(o, "&gt;");
            break;
        case '&':
            rc = buf_puts(o, "&amp;");
            break;
        case '"':
            rc = buf_puts(o, "&quot;");
            break;
        default:
            rc = buf_append(o, s, 1);
        }
    }
    return rc;
}

/* A "nice" tick step (1, 2, 5 x 10^k) giving at most max_ticks ticks over span. */
static double nice_step(double span, int max_ticks)
{
    if (!(span > 0))
        return 1;
    double raw = span / (max_ticks > 1 ? max_ticks : 1);
    double p = pow(10, floor(log10(raw)));
    static const double m[] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (m[i] * p >= raw)
            return m[i] * p;
    return 10 * p;
}

static void tick_label(char *b, size_t n, double v, double step)
{
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step));
    if (dec > 6)
        dec = 6;
    (void)snprintf(b, n, "%.*f", dec, v);
}

struct series {
    const char *label;
    const double *x, *y;
    int n;
    bool right; /* on the second y axis */
    bool step;  /* drawn as steps (replica counts) */
};

struct axis {
    double lo, hi, step;
};

static struct axis axis_for(double lo, double hi, int max_ticks, bool from_zero)
{
    if (from_zero && lo > 0)
        lo = 0;
    if (!(hi > lo))
        hi = lo + 1;
    struct axis a;
    a.step = nice_step(hi - lo, max_ticks);
    a.lo = floor(lo / a.step) * a.step;
    a.hi = ceil(hi / a.step) * a.step;
    if (a.hi <= a.lo)
        a.hi = a.lo + a.step;
    return a;
}

static double px(const struct axis *a, double v, double p0, double p1)
{
    return p0 + (v - a->lo) / (a->hi - a->lo) * (p1 - p0);
}

/* A line chart: x axis (xlabel with unit), left y axis for the series that are not `right`, a
 * second y axis for those that are (rlabel). Each point is also a small circle (class "pt"). */
static int line_chart(struct buf *o, const char *id, const char *title, const char *xlabel,
                      const char *ylabel, const char *rlabel, const struct series *s, int ns)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY, rlo = INFINITY,
           rhi = -INFINITY;
    int pts = 0;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++) {
            if (!isfinite(s[k].x[i]) || !isfinite(s[k].y[i]))
                continue;
            pts++;
            xlo = fmin(xlo, s[k].x[i]);
            xhi = fmax(xhi, s[k].x[i]);
            if (s[k].right) {
                rlo = fmin(rlo, s[k].y[i]);
                rhi = fmax(rhi, s[k].y[i]);
            } else {
                ylo = fmin(ylo, s[k].y[i]);
                yhi = fmax(yhi, s[k].y[i]);
            }
        }
    if (pts == 0)
        return buf_printf(o, "<p class=\"none\">%s: no data in status.</p>\n", title);
    struct axis ax = axis_for(xlo, xhi, (W - ML - MR) / 70, true);
    struct axis ay = axis_for(isfinite(ylo) ? ylo : 0, isfinite(yhi) ? yhi : 1, 6, true);
    struct axis ar = axis_for(isfinite(rlo) ? rlo : 0, isfinite(rhi) ? rhi : 1, 6, true);
    if (ar.step < 1 && rlabel)
        ar = axis_for(0, fmax(1, rhi), 6, true), ar.step = fmax(1, ar.step);
    double x0 = ML, x1 = W - MR, y0 = H - MB, y1 = MT;
    int rc =
        buf_printf(o,
                   "<figure><svg id=\"%s\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" "
                   "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">"
                   "<title>",
                   id, W, H, W, H);
    rc = rc ? rc : esc(o, title);
    rc = rc ? rc : buf_printf(o, "</title><text class=\"t\" x=\"%d\" y=\"18\">", ML);
    rc = rc ? rc : esc(o, title);
    rc = rc ? rc : buf_puts(o, "</text>");
    char b[64];
    /* grid and tick labels */
    for (double v = ax.lo; v <= ax.hi + ax.step / 2 && !rc; v += ax.step) {
        double X = px(&ax, v, x0, x1);
        tick_label(b, sizeof(b), v, ax.step);
        rc = buf_printf(o,
                        "<line class=\"g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
                        X, y0, X, y1, X, y0 + 16, b);
    }
    for (double v = ay.lo; v <= ay.hi + ay.step / 2 && !rc; v += ay.step) {
        double Y = px(&ay, v, y0, y1);
        tick_label(b, sizeof(b), v, ay.step);
        rc = buf_printf(o,
                        "<line class=\"g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
                        x0, Y, x1, Y, x0 - 6, Y + 4, b);
    }
    bool has_right = isfinite(rlo);
    for (double v = ar.lo; has_right && v <= ar.hi + ar.step / 2 && !rc; v += ar.step) {
        tick_label(b, sizeof(b), v, ar.step);
        rc = buf_printf(o, "<text class=\"rt\" x=\"%.1f\" y=\"%.1f\">%s</text>", x1 + 6,
                        px(&ar, v, y0, y1) + 4, b);
    }
    /* axes and their labels */
    rc = rc ? rc
            : buf_printf(o,
                         "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                         "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                         "<text class=\"xl\" x=\"%.1f\" y=\"%d\">",
                         x0, y0, x1, y0, x0, y0, x0, y1, (x0 + x1) / 2, H - 8);
    rc = rc ? rc : esc(o, xlabel);
    rc = rc ? rc
            : buf_printf(o,
                         "</text><text class=\"yl\" transform=\"translate(16 %.1f) rotate(-90)\">",
                         (y0 + y1) / 2);
    rc = rc ? rc : esc(o, ylabel);
    rc = rc ? rc : buf_puts(o, "</text>");
    if (has_right && rlabel && !rc) {
        rc = buf_printf(o,
                        "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"yl\" transform=\"translate(%d %.1f) rotate(90)\">",
                        x1, y0, x1, y1, W - 12, (y0 + y1) / 2);
        rc = rc ? rc : esc(o, rlabel);
        rc = rc ? rc : buf_puts(o, "</text>");
    }
    /* series and legend */
    for (int k = 0; k < ns && !rc; k++) {
        const char *c = colors[k % 5];
        const struct axis *ya = s[k].right ? &ar : &ay;
        rc = buf_printf(o, "<g class=\"series\" data-label=\"");
        rc = rc ? rc : esc(o, s[k].label);
        rc =
            rc ? rc
               : buf_printf(
                     o, "\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
        double prevY = NAN;
        for (int i = 0; i < s[k].n && !rc; i++) {
            if (!isfinite(s[k].x[i]) || !isfinite(s[k].y[i]))
                continue;
            double X = px(&ax, s[k].x[i], x0, x1), Y = px(ya, s[k].y[i], y0, y1);
            if (s[k].step && isfinite(prevY))
                rc = buf_printf(o, "%.1f,%.1f ", X, prevY);
            rc = rc ? rc : buf_printf(o, "%.1f,%.1f ", X, Y);
            prevY = Y;
        }
        if (s[k].step && isfinite(prevY) && !rc) /* the last count holds to the end */
            rc = buf_printf(o, "%.1f,%.1f", x1, prevY);
        rc = rc ? rc : buf_puts(o, "\"/>");
        for (int i = 0; i < s[k].n && !rc; i++) {
            if (!isfinite(s[k].x[i]) || !isfinite(s[k].y[i]))
                continue;
            rc = buf_printf(o,
                            "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>",
                            px(&ax, s[k].x[i], x0, x1), px(ya, s[k].y[i], y0, y1), c);
        }
        rc = rc ? rc : buf_puts(o, "</g>");
        double lx = x0 + 10 + k * 190;
        rc = rc ? rc
                : buf_printf(o,
                             "<g class=\"legend\"><rect x=\"%.1f\" y=\"%d\" width=\"14\" "
                             "height=\"4\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">",
                             lx, MT - 18, c, lx + 18, MT - 13);
        rc = rc ? rc : esc(o, s[k].label);
        rc = rc ? rc : buf_puts(o, "</text></g>");
    }
    return rc ? rc : buf_puts(o, "</svg></figure>\n");
}

/* Horizontal bars: one row per label, values on an x axis with its unit. */
static int bar_chart(struct buf *o, const char *id, const char *title, const char *xlabel,
                     const char *const *labels, const double *v, int n, int nseries,
                     const char *const *series_names)
{
    if (n == 0)
        return buf_printf(o, "<p class=\"none\">%s: no data in status.</p>\n", title);
    int row = 14 * nseries + 10, lm = 190;
    int h = MT + n * row + MB;
    double hi = 0;
    for (int i = 0; i < n * nseries; i++)
        if (isfinite(v[i]))
            hi = fmax(hi, v[i]);
    struct axis ax = axis_for(0, hi > 0 ? hi : 1, (W - lm - 40) / 70, true);
    double x0 = lm, x1 = W - 40;
    int rc =
        buf_printf(o,
                   "<figure><svg id=\"%s\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" "
                   "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>",
                   id, W, h, W, h);
    rc = rc ? rc : esc(o, title);
    rc = rc ? rc : buf_printf(o, "</title><text class=\"t\" x=\"%d\" y=\"18\">", lm);
    rc = rc ? rc : esc(o, title);
    rc = rc ? rc : buf_puts(o, "</text>");
    char b[64];
    double y0 = h - MB;
    for (double x = ax.lo; x <= ax.hi + ax.step / 2 && !rc; x += ax.step) {
        double X = px(&ax, x, x0, x1);
        tick_label(b, sizeof(b), x, ax.step);
        rc = buf_printf(o,
                        "<line class=\"g\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
                        X, MT, X, y0, X, y0 + 16, b);
    }
    rc = rc ? rc
            : buf_printf(o,
                         "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                         "<line class=\"ax\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>"
                         "<text class=\"xl\" x=\"%.1f\" y=\"%d\">",
                         x0, y0, x1, y0, x0, MT, x0, y0, (x0 + x1) / 2, h - 8);
    rc = rc ? rc : esc(o, xlabel);
    rc = rc ? rc : buf_puts(o, "</text>");
    for (int i = 0; i < n && !rc; i++) {
        double ry = MT + i * row + 5;
        rc = buf_printf(o, "<text class=\"bl\" x=\"%.1f\" y=\"%.1f\">", x0 - 6,
                        ry + 7 * nseries + 4);
        rc = rc ? rc : esc(o, labels[i]);
        rc = rc ? rc : buf_puts(o, "</text>");
        for (int k = 0; k < nseries && !rc; k++) {
            double x = v[i * nseries + k];
            if (!isfinite(x))
                continue;
            plugin_fmt_num(b, sizeof(b), x);
            rc = buf_printf(o,
                            "<rect class=\"pt bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                            "height=\"12\" fill=\"%s\"/><text class=\"bv\" x=\"%.1f\" "
                            "y=\"%.1f\">%s</text>",
                            x0, ry + 14 * k, fmax(1, px(&ax, x, x0, x1) - x0), colors[k % 5],
                            px(&ax, x, x0, x1) + 4, ry + 14 * k + 10, b);
        }
    }
    for (int k = 0; k < nseries && series_names && !rc; k++) {
        double lx = x0 + 180 + k * 130;
        rc = buf_printf(o,
                        "<g class=\"legend\"><rect x=\"%.1f\" y=\"%d\" width=\"14\" height=\"4\" "
                        "fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">",
                        lx, 14, colors[k % 5], lx + 18, 18);
        rc = rc ? rc : esc(o, series_names[k]);
        rc = rc ? rc : buf_puts(o, "</text></g>");
    }
    return rc ? rc : buf_puts(o, "</svg></figure>\n");
}

static double num_at(const cJSON *o, enum bench_field_id id)
{
    const cJSON *v = bench_status_get(o, id);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int kv_row(struct buf *o, const char *k, const char *v)
{
    int rc = buf_puts(o, "<tr><th>");
    rc = rc ? rc : esc(o, k);
    rc = rc ? rc : buf_puts(o, "</th><td>");
    rc = rc ? rc : esc(o, v);
    return rc ? rc : buf_puts(o, "</td></tr>\n");
}

static int summary_table(struct buf *o, const cJSON *st)
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
    int rc = buf_puts(o, "<table class=\"kv\">\n");
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && !rc; i++) {
        double v = num_at(st, rows[i].id);
        if (!isfinite(v))
            continue;
        char b[64], c[80];
        plugin_fmt_num(b, sizeof(b), v);
        (void)snprintf(c, sizeof(c), "%s%s", b, rows[i].unit);
        rc = kv_row(o, rows[i].label, c);
    }
    return rc ? rc : buf_puts(o, "</table>\n");
}

/* x/y arrays from a status list. */
static int take(const cJSON *list, enum bench_field_id xid, enum bench_field_id yid, double *x,
                double *y)
{
    int n = 0;
    const cJSON *it;
    if (cJSON_IsArray(list))
        cJSON_ArrayForEach(it, list)
        {
            if (n >= MAXPTS)
                break;
            x[n] = num_at(it, xid);
            y[n] = num_at(it, yid);
            n++;
        }
    return n;
}

static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:900px}"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px}"
    "table{border-collapse:collapse}th,td{padding:2px 10px;text-align:left;border-bottom:1px "
    "solid #eee}td{font-variant-numeric:tabular-nums}"
    "pre{background:#f6f6f6;padding:10px;overflow:auto;font-size:12px}"
    "svg text{font:12px sans-serif;fill:#222}.t{font-weight:bold;font-size:13px}"
    ".xt{text-anchor:middle}.yt{text-anchor:end}.rt{text-anchor:start}.bl{text-anchor:end}"
    ".xl,.yl{text-anchor:middle;font-style:italic}.g{stroke:#e4e4e4}.ax{stroke:#444}"
    "figure{margin:8px 0}.none{color:#888}";

int plugin_report_html(struct buf *o, const cJSON *br)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(br, "status");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(br, "metadata");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "name"));
    const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "phase"));
    double *x = calloc(4 * MAXPTS, sizeof(double));
    if (!x)
        abort();
    double *y = x + MAXPTS, *hx = x + 2 * MAXPTS, *hy = x + 3 * MAXPTS;
    int rc = buf_puts(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                         "<title>BenchmarkRun ");
    rc = rc ? rc : esc(o, name);
    rc = rc ? rc : buf_printf(o, "</title><style>%s</style></head><body>\n<h1>BenchmarkRun ", css);
    rc = rc ? rc : esc(o, name);
    rc = rc ? rc : buf_puts(o, "</h1>\n<table class=\"kv\">\n");
    rc = rc ? rc : kv_row(o, "phase", phase ? phase : "Pending");
    static const char *const keys[] = {"target", "message", "startTime", "completionTime"};
    for (size_t i = 0; i < 4 && !rc; i++) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, keys[i]));
        if (v)
            rc = kv_row(o, keys[i], v);
    }
    const cJSON *disp = bench_status_get(st, BK_STATUS_DISPLAY_RESULT);
    if (cJSON_IsString(disp) && !rc)
        rc = kv_row(o, "result", disp->valuestring);
    rc = rc ? rc : buf_puts(o, "</table>\n<h2>Summary</h2>\n");
    rc = rc ? rc : summary_table(o, st);

    /* TPS over time, with the HPA's replicas on the same time axis */
    const cJSON *tl = bench_status_get(st, BK_TIMELINE);
    int n = take(tl, BK_TIMELINE_T, BK_TIMELINE_TPS, x, y);
    int nh = 0;
    const cJSON *hpa = cJSON_GetObjectItemCaseSensitive(st, "hpaTimeline");
    const cJSON *sa = cJSON_GetObjectItemCaseSensitive(st, "startAt");
    double start = cJSON_IsNumber(sa) ? sa->valuedouble : NAN;
    const cJSON *it;
    if (cJSON_IsArray(hpa) && isfinite(start))
        cJSON_ArrayForEach(it, hpa)
        {
            const cJSON *r = cJSON_GetObjectItemCaseSensitive(it, "replicas");
            double t = util_rfc3339_parse(
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "time")));
            if (nh < MAXPTS && cJSON_IsNumber(r) && isfinite(t)) {
                hx[nh] = fmax(0, t - start);
                hy[nh++] = r->valuedouble;
            }
        }
    struct series s[2] = {{"TPS (transactions/s)", x, y, n, false, false},
                          {"HPA replicas", hx, hy, nh, true, true}};
    rc = rc ? rc : buf_puts(o, "<h2>Throughput over time</h2>\n");
    rc = rc ? rc
            : line_chart(o, "tps", "TPS and HPA replicas over time", "time since start (s)",
                         "TPS (1/s)", nh ? "replicas" : NULL, s, nh ? 2 : 1);
    n = take(tl, BK_TIMELINE_T, BK_TIMELINE_LATENCY_MS, x, y);
    struct series ls = {"average latency per interval (ms)", x, y, n, false, false};
    rc = rc ? rc : buf_puts(o, "<h2>Latency over time</h2>\n");
    rc = rc ? rc
            : line_chart(o, "latency", "Latency over time", "time since start (s)", "latency (ms)",
                         NULL, &ls, 1);

    /* wait events */
    const cJSON *sh = bench_status_get(st, BK_WAIT_EVENTS_SHARES_PCT);
    const char *labels[64];
    double vals[64 * 3];
    int nl = 0;
    if (cJSON_IsObject(sh))
        cJSON_ArrayForEach(it, sh) if (nl < 64 && cJSON_IsNumber(it))
        {
            labels[nl] = it->string;
            vals[nl++] = it->valuedouble;
        }
    rc = rc ? rc : buf_puts(o, "<h2>Wait events</h2>\n");
    rc = rc ? rc
            : bar_chart(o, "waits", "Wait-event shares of the load's backends",
                        "share of backend samples (%)", labels, vals, nl, 1, NULL);

    /* replica lag */
    const cJSON *lag = bench_status_get(st, BK_CHECKS_REPLICA_LAG_SAMPLES_MS);
    int nlag = 0;
    if (cJSON_IsArray(lag))
        cJSON_ArrayForEach(it, lag) if (nlag < MAXPTS)
        {
            x[nlag] = nlag + 1;
            y[nlag++] = cJSON_IsNumber(it) ? it->valuedouble : NAN;
        }
    struct series rs = {"replay lag (ms)", x, y, nlag, false, false};
    rc = rc ? rc : buf_puts(o, "<h2>Replica lag</h2>\n");
    rc = rc ? rc
            : line_chart(o, "lag", "Replica replay lag during the run", "sample (one per tick)",
                         "lag (ms)", NULL, &rs, 1);

    /* fio */
    const cJSON *fio = bench_status_get(st, BK_FIO_JOBS);
    nl = 0;
    if (cJSON_IsArray(fio))
        cJSON_ArrayForEach(it, fio) if (nl < 64)
        {
            const cJSON *jn = bench_status_get(it, BK_FIO_JOBS_NAME);
            labels[nl] = cJSON_IsString(jn) ? jn->valuestring : "?";
            vals[nl * 3] = num_at(it, BK_FIO_JOBS_READ_CLAT_US_P99);
            vals[nl * 3 + 1] = num_at(it, BK_FIO_JOBS_WRITE_CLAT_US_P99);
            vals[nl * 3 + 2] = num_at(it, BK_FIO_JOBS_SYNC_P99);
            nl++;
        }
    static const char *const fio_series[] = {"read p99", "write p99", "sync p99"};
    rc = rc ? rc : buf_puts(o, "<h2>fio latency per job</h2>\n");
    rc = rc ? rc
            : bar_chart(o, "fio", "fio 99th percentile latency per job", "latency p99 (µs)", labels,
                        vals, nl, 3, fio_series);

    /* the server and the spec */
    const cJSON *srv = bench_status_get(st, BK_SERVER);
    rc = rc ? rc : buf_puts(o, "<h2>Server settings</h2>\n");
    if (cJSON_IsObject(srv) && !rc) {
        rc = buf_puts(o, "<table class=\"kv\" id=\"server\">\n");
        cJSON_ArrayForEach(it, srv)
        {
            char b[128];
            const char *v = b;
            if (cJSON_IsString(it))
                v = it->valuestring;
            else if (cJSON_IsNumber(it))
                (void)snprintf(b, sizeof(b), "%.17g", it->valuedouble);
            else if (cJSON_IsBool(it))
                v = cJSON_IsTrue(it) ? "true" : "false";
            else
                continue;
            rc = rc ? rc : kv_row(o, it->string, v);
        }
        rc = rc ? rc : buf_puts(o, "</table>\n");
    } else if (!rc) {
        rc = buf_puts(o, "<p class=\"none\">not recorded (diagnostics.serverSettings).</p>\n");
    }
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(br, "spec");
    if (spec && !rc) {
        struct buf y2 = BUF_INIT(8u << 20);
        rc = plugin_yaml_append(&y2, spec, 0);
        rc = rc ? rc : buf_puts(o, "<h2>Spec</h2>\n<pre id=\"spec\">");
        rc = rc ? rc : esc(o, y2.data);
        rc = rc ? rc : buf_puts(o, "</pre>\n");
        buf_free(&y2);
    }
    rc = rc ? rc : buf_puts(o, "</body></html>\n");
    free(x);
    return rc;
}
