/* The HTML report: inline SVG plots drawn here (no scripts, no external assets). */
#include "pkg/plugin/report.h"
#include "pkg/bench/diag.h"
#include "pkg/bench/fields.h"
#include "pkg/bench/histogram.h"
#include "pkg/api/phase.h"
#include "pkg/api/status.h"
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

#define W 760 /* plot size in px */
#define H 300
#define ML 70 /* margins: left (y labels), right (second axis), top, bottom (x labels) */
#define MR 70
#define MT 44
#define MB 48
#define LEGEND_ROW 16 /* px per further legend row: the plot grows, the legend never overlaps */
#define MAXPTS 4096   /* points per line; longer timelines are drawn evenly spaced */
#define DOTS_MAX 400  /* a line with more points than this is drawn without a circle per point */
#define MAX_WORKER_LINES 16 /* per-worker lines drawn beside the total */

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                     "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NCOLORS ((int)(sizeof(colors) / sizeof(colors[0])))

static int esc(struct buf *o, const char *s)
{
    return buf_put_html(o, s);
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

/* The percentile at `nines` whole nines: 0 -> "0", 1 -> "90", 2 -> "99", 3 -> "99.9". */
static void nines_label(char *b, size_t n, double nines)
{
    int k = (int)lround(nines);
    (void)snprintf(b, n, "%.*f", k > 2 ? k - 2 : 0, k > 0 ? 100 - 100 * pow(10, -k) : 0.0);
}

struct series {
    const char *label;
    const double *x, *y;
    int n;
    bool right; /* on the second y axis */
    bool step;  /* drawn as steps (replica counts) */
    bool thin;  /* a thinner, dashed line (one worker beside the total) */
};

/* How plugin_line_chart's series differ from a plain one (report.h: dots, nodots). */
enum { STYLE_DOTS = 1, STYLE_NODOTS = 2 };

/* A labelled point on a chart (p50, p95, p99 on the percentile curve). */
struct mark {
    const char *label;
    double x, y;
};

/* What a line chart shows besides its series. */
struct chart {
    const char *id, *title, *xlabel, *ylabel;
    const char *rlabel; /* the second y axis (series with `right`), or NULL */
    const char *empty;  /* said instead of the plot when no series has a point */
    bool nines;         /* x in nines, -log10(1 - p): a tick per whole nine, labelled as the
                         * percentile (0, 90, 99, 99.9 ...) */
    const struct mark *marks;
    int nmarks;
    bool log2x;      /* x on a log2 scale, a tick per power of two (doubling series) */
    double shade_to; /* > 0: x from the axis' start to here is shaded as the warm-up cut */
};

struct axis {
    double lo, hi, step;
    bool log2; /* lo, hi and step are in log2 of the values */
};

/* Where a chart's plot area lies and its axes' ranges. */
struct frame {
    struct axis ax, ay, ar;
    bool has_right;
    double x0, x1, y0, y1; /* plot area: x0 left, y0 bottom (pixels grow downwards) */
    int h;                 /* svg height */
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
    if (a->log2)
        v = v > 0 ? log2(v) : -INFINITY;
    return p0 + (v - a->lo) / (a->hi - a->lo) * (p1 - p0);
}

static bool pt_ok(const struct series *s, int i)
{
    return isfinite(s->x[i]) && isfinite(s->y[i]);
}

/* Legend entries flow left to right over the plot's width and wrap into rows. */
static double legend_w(const char *label)
{
    return 18 + 7.0 * (double)strlen(label) + 22;
}

static int legend_rows(const struct series *s, int ns)
{
    int rows = 1;
    double x = ML + 10;
    for (int k = 0; k < ns; k++) {
        if (x + legend_w(s[k].label) > W - MR && x > ML + 10)
            rows++, x = ML + 10;
        x += legend_w(s[k].label);
    }
    return rows;
}

/* The frame of a chart; returns how many drawable points its series have. */
static int frame_for(const struct chart *c, const struct series *s, int ns, struct frame *f)
{
    double xlo = INFINITY, xhi = -INFINITY, lo[2] = {INFINITY, INFINITY},
           hi[2] = {-INFINITY, -INFINITY};
    int pts = 0;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++) {
            if (!pt_ok(&s[k], i))
                continue;
            pts++;
            xlo = fmin(xlo, s[k].x[i]);
            xhi = fmax(xhi, s[k].x[i]);
            lo[s[k].right] = fmin(lo[s[k].right], s[k].y[i]);
            hi[s[k].right] = fmax(hi[s[k].right], s[k].y[i]);
        }
    if (c->nines) {
        f->ax = (struct axis){0, fmax(1, ceil(xhi - 1e-9)), 1, false};
    } else if (c->log2x && xlo > 0) {
        double l0 = floor(log2(xlo) + 1e-9), l1 = fmax(ceil(log2(xhi) - 1e-9), l0 + 1);
        f->ax = (struct axis){l0, l1, ceil((l1 - l0) / 12), true};
    } else {
        f->ax = axis_for(xlo, xhi, (W - ML - MR) / 70, true);
    }
    /* marks' labels have rows at the top of the plot: the y axis leaves them that headroom, so
     * that no label covers data */
    double top = isfinite(hi[0]) ? hi[0] : 1, bottom = isfinite(lo[0]) ? fmin(lo[0], 0) : 0;
    double plot_h = H - MT - MB, label_h = c->nmarks > 0 ? 8 + 14.0 * c->nmarks : 0;
    if (label_h > 0 && top > bottom)
        top = bottom + (top - bottom) * plot_h / (plot_h - label_h);
    f->ay = axis_for(isfinite(lo[0]) ? lo[0] : 0, top, 6, true);
    f->ar = axis_for(isfinite(lo[1]) ? lo[1] : 0, isfinite(hi[1]) ? hi[1] : 1, 6, true);
    if (f->ar.step < 1 && c->rlabel)
        f->ar = axis_for(0, fmax(1, hi[1]), 6, true), f->ar.step = fmax(1, f->ar.step);
    f->has_right = isfinite(lo[1]);
    int extra = (legend_rows(s, ns) - 1) * LEGEND_ROW;
    f->h = H + extra;
    f->x0 = ML, f->x1 = W - MR, f->y0 = f->h - MB, f->y1 = MT + extra;
    return pts;
}

/* Grid lines and tick labels of the x axis and both y axes. */
static int draw_ticks(struct buf *o, const struct chart *c, const struct frame *f)
{
    char b[64];
    int rc = 0;
    const struct axis *ax = &f->ax, *ay = &f->ay, *ar = &f->ar;
    for (double v = ax->lo; v <= ax->hi + ax->step / 2 && !rc; v += ax->step) {
        double X = px(ax, ax->log2 ? exp2(v) : v, f->x0, f->x1);
        if (c->nines)
            nines_label(b, sizeof(b), v);
        else if (ax->log2)
            tick_label(b, sizeof(b), exp2(v), exp2(v) >= 1 ? 1 : exp2(v));
        else
            tick_label(b, sizeof(b), v, ax->step);
        rc = buf_printf(o,
                        "<line class=\"g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
                        X, f->y0, X, f->y1, X, f->y0 + 16, b);
    }
    for (double v = ay->lo; v <= ay->hi + ay->step / 2 && !rc; v += ay->step) {
        double Y = px(ay, v, f->y0, f->y1);
        tick_label(b, sizeof(b), v, ay->step);
        rc = buf_printf(o,
                        "<line class=\"g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
                        f->x0, Y, f->x1, Y, f->x0 - 6, Y + 4, b);
    }
    for (double v = ar->lo; f->has_right && v <= ar->hi + ar->step / 2 && !rc; v += ar->step) {
        tick_label(b, sizeof(b), v, ar->step);
        rc = buf_printf(o, "<text class=\"rt\" x=\"%.1f\" y=\"%.1f\">%s</text>", f->x1 + 6,
                        px(ar, v, f->y0, f->y1) + 4, b);
    }
    return rc;
}

/* The axis lines and their labels (with units). */
static int draw_axes(struct buf *o, const struct chart *c, const struct frame *f)
{
    int rc = buf_printf(o,
                        "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"xl\" x=\"%.1f\" y=\"%d\">",
                        f->x0, f->y0, f->x1, f->y0, f->x0, f->y0, f->x0, f->y1, (f->x0 + f->x1) / 2,
                        f->h - 8);
    rc = rc ? rc : esc(o, c->xlabel);
    rc = rc ? rc
            : buf_printf(o,
                         "</text><text class=\"yl\" transform=\"translate(16 %.1f) rotate(-90)\">",
                         (f->y0 + f->y1) / 2);
    rc = rc ? rc : esc(o, c->ylabel);
    rc = rc ? rc : buf_puts(o, "</text>");
    if (f->has_right && c->rlabel && !rc) {
        rc = buf_printf(o,
                        "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"yl\" transform=\"translate(%d %.1f) rotate(90)\">",
                        f->x1, f->y0, f->x1, f->y1, W - 12, (f->y0 + f->y1) / 2);
        rc = rc ? rc : esc(o, c->rlabel);
        rc = rc ? rc : buf_puts(o, "</text>");
    }
    return rc;
}

/* One series: a polyline through its points (steps for `step`), a circle (class "pt") per point
 * unless there are more than DOTS_MAX. */
static int draw_series(struct buf *o, const struct frame *f, const struct series *s, const char *c,
                       unsigned style)
{
    const struct axis *ya = s->right ? &f->ar : &f->ay;
    int rc = buf_printf(o, "<g class=\"series\" data-label=\"");
    rc = rc ? rc : esc(o, s->label);
    rc = rc ? rc
            : buf_printf(o,
                         "\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s "
                         "points=\"",
                         style & STYLE_DOTS ? "none" : c, s->thin ? "1.2" : "2",
                         s->thin ? " stroke-dasharray=\"4 2\"" : "");
    double prevY = NAN;
    int n = 0;
    for (int i = 0; i < s->n && !rc; i++) {
        if (!pt_ok(s, i))
            continue;
        double X = px(&f->ax, s->x[i], f->x0, f->x1), Y = px(ya, s->y[i], f->y0, f->y1);
        if (s->step && isfinite(prevY))
            rc = buf_printf(o, "%.1f,%.1f ", X, prevY);
        rc = rc ? rc : buf_printf(o, "%.1f,%.1f ", X, Y);
        prevY = Y;
        n++;
    }
    if (s->step && isfinite(prevY) && !rc) /* the last count holds to the end */
        rc = buf_printf(o, "%.1f,%.1f", f->x1, prevY);
    rc = rc ? rc : buf_puts(o, "\"/>");
    for (int i = 0; i < s->n && n <= DOTS_MAX && !(style & STYLE_NODOTS) && !rc; i++) {
        if (pt_ok(s, i))
            rc =
                buf_printf(o, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"/>",
                           px(&f->ax, s->x[i], f->x0, f->x1), px(ya, s->y[i], f->y0, f->y1),
                           s->thin ? "1.8" : "2.5", c);
    }
    return rc ? rc : buf_puts(o, "</g>");
}

static int draw_legend(struct buf *o, const struct series *s, int ns)
{
    double x = ML + 10;
    int row = 0, rc = 0;
    for (int k = 0; k < ns && !rc; k++) {
        if (x + legend_w(s[k].label) > W - MR && x > ML + 10)
            row++, x = ML + 10;
        int y = MT - 18 + row * LEGEND_ROW;
        rc = buf_printf(o,
                        "<g class=\"legend\"><rect x=\"%.1f\" y=\"%d\" width=\"14\" "
                        "height=\"4\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">",
                        x, y, colors[k % NCOLORS], x + 18, y + 5);
        rc = rc ? rc : esc(o, s[k].label);
        rc = rc ? rc : buf_puts(o, "</text></g>");
        x += legend_w(s[k].label);
    }
    return rc;
}

/* Marks: a dot on the curve, a dashed drop line to the x axis, and the label in its own row at
 * the top of the plot (rows never overlap; near the right edge the label ends at the line). */
static int draw_marks(struct buf *o, const struct chart *c, const struct frame *f)
{
    int rc = 0;
    for (int i = 0; i < c->nmarks && !rc; i++) {
        const struct mark *m = &c->marks[i];
        if (!isfinite(m->x) || !isfinite(m->y))
            continue;
        double X = px(&f->ax, m->x, f->x0, f->x1), Y = px(&f->ay, m->y, f->y0, f->y1);
        bool end = X > f->x1 - 120;
        rc = buf_printf(o,
                        "<g class=\"mark\" data-x=\"%.6g\" data-y=\"%.6g\"><line class=\"mk\" "
                        "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><circle cx=\"%.1f\" "
                        "cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"#222\"/>"
                        "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\">",
                        m->x, m->y, X, f->y0, X, f->y1 + 10 + 14.0 * i, X, Y, end ? "mkl e" : "mkl",
                        end ? X - 4 : X + 4, f->y1 + 14 + 14.0 * i);
        rc = rc ? rc : esc(o, m->label);
        rc = rc ? rc : buf_puts(o, "</text></g>");
    }
    return rc;
}

/* The warm-up cut: a grey band from the start of the x axis to shade_to, labelled at its top. */
static int draw_shade(struct buf *o, const struct chart *c, const struct frame *f)
{
    if (!(c->shade_to > f->ax.lo))
        return 0;
    double X = px(&f->ax, fmin(c->shade_to, f->ax.hi), f->x0, f->x1);
    return buf_printf(o,
                      "<g class=\"warmup\" data-to=\"%.6g\"><rect x=\"%.1f\" y=\"%.1f\" "
                      "width=\"%.1f\" height=\"%.1f\" fill=\"#000\" fill-opacity=\"0.08\"/>"
                      "<text class=\"mkl\" x=\"%.1f\" y=\"%.1f\">warm-up %g s: not in the "
                      "summary</text></g>",
                      c->shade_to, f->x0, f->y1, X - f->x0, f->y0 - f->y1, f->x0 + 4, f->y0 - 6,
                      c->shade_to);
}

/* A chart's figure and svg (W wide, h high) with its title, as a tooltip and written at x. */
static int svg_open(struct buf *o, const char *id, int h, const char *title, int x)
{
    int rc =
        buf_printf(o,
                   "<figure><svg id=\"%s\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" "
                   "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>",
                   id, W, h, W, h);
    rc = rc ? rc : esc(o, title);
    rc = rc ? rc : buf_printf(o, "</title><text class=\"t\" x=\"%d\" y=\"18\">", x);
    rc = rc ? rc : esc(o, title);
    return rc ? rc : buf_puts(o, "</text>");
}

/* A line chart: x axis (xlabel with unit), left y axis for the series that are not `right`, a
 * second y axis for those that are (rlabel), a legend above the plot. */
static int styled_chart(struct buf *o, const struct chart *c, const struct series *s, int ns,
                        const unsigned *style)
{
    struct frame f;
    if (frame_for(c, s, ns, &f) == 0)
        return buf_printf(o, "<p class=\"none\">%s: %s</p>\n", c->title,
                          c->empty ? c->empty : "no data in status.");
    int rc = svg_open(o, c->id, f.h, c->title, ML);
    rc = rc ? rc : draw_shade(o, c, &f);
    rc = rc ? rc : draw_ticks(o, c, &f);
    rc = rc ? rc : draw_axes(o, c, &f);
    for (int k = 0; k < ns && !rc; k++)
        rc = draw_series(o, &f, &s[k], colors[k % NCOLORS], style ? style[k] : 0);
    rc = rc ? rc : draw_marks(o, c, &f);
    rc = rc ? rc : draw_legend(o, s, ns);
    return rc ? rc : buf_puts(o, "</svg></figure>\n");
}

static int line_chart(struct buf *o, const struct chart *c, const struct series *s, int ns)
{
    return styled_chart(o, c, s, ns, NULL);
}

/* A bar chart's geometry: rows of nseries bars, x from x0 to x1 on ax, the x axis at y0. */
struct bars {
    struct axis ax;
    double x0, x1, y0;
    int row, nseries;
};

/* The x axis: grid lines with their tick labels, both axis lines and xlabel under them. */
static int bar_axes(struct buf *o, const struct bars *g, int h, const char *xlabel)
{
    char b[64];
    int rc = 0;
    const struct axis *ax = &g->ax;
    for (double x = ax->lo; x <= ax->hi + ax->step / 2 && !rc; x += ax->step) {
        double X = px(ax, x, g->x0, g->x1);
        tick_label(b, sizeof(b), x, ax->step);
        rc = buf_printf(o,
                        "<line class=\"g\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>"
                        "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
                        X, MT, X, g->y0, X, g->y0 + 16, b);
    }
    rc = rc ? rc
            : buf_printf(o,
                         "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                         "<line class=\"ax\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>"
                         "<text class=\"xl\" x=\"%.1f\" y=\"%d\">",
                         g->x0, g->y0, g->x1, g->y0, g->x0, MT, g->x0, g->y0, (g->x0 + g->x1) / 2,
                         h - 8);
    rc = rc ? rc : esc(o, xlabel);
    return rc ? rc : buf_puts(o, "</text>");
}

/* Row i: its label, then a bar with its value for each series that has one (v[k]). */
static int bar_row(struct buf *o, const struct bars *g, int i, const char *label, const double *v)
{
    double ry = MT + i * g->row + 5;
    int rc = buf_printf(o, "<text class=\"bl\" x=\"%.1f\" y=\"%.1f\">", g->x0 - 6,
                        ry + 7 * g->nseries + 4);
    rc = rc ? rc : esc(o, label);
    rc = rc ? rc : buf_puts(o, "</text>");
    char b[64];
    for (int k = 0; k < g->nseries && !rc; k++) {
        if (!isfinite(v[k]))
            continue;
        double X = px(&g->ax, v[k], g->x0, g->x1);
        plugin_fmt_num(b, sizeof(b), v[k]);
        rc = buf_printf(o,
                        "<rect class=\"pt bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                        "height=\"12\" fill=\"%s\"/><text class=\"bv\" x=\"%.1f\" "
                        "y=\"%.1f\">%s</text>",
                        g->x0, ry + 14 * k, fmax(1, X - g->x0), colors[k % NCOLORS], X + 4,
                        ry + 14 * k + 10, b);
    }
    return rc;
}

static int bar_legend(struct buf *o, const struct bars *g, const char *const *series_names)
{
    int rc = 0;
    for (int k = 0; k < g->nseries && series_names && !rc; k++) {
        double lx = g->x0 + 180 + k * 130;
        rc = buf_printf(o,
                        "<g class=\"legend\"><rect x=\"%.1f\" y=\"%d\" width=\"14\" height=\"4\" "
                        "fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">",
                        lx, 30, colors[k % NCOLORS], lx + 18, 34);
        rc = rc ? rc : esc(o, series_names[k]);
        rc = rc ? rc : buf_puts(o, "</text></g>");
    }
    return rc;
}

/* Horizontal bars: one row per label, values on an x axis with its unit. */
static int bar_chart(struct buf *o, const char *id, const char *title, const char *xlabel,
                     const char *const *labels, const double *v, int n, int nseries,
                     const char *const *series_names)
{
    if (n == 0)
        return buf_printf(o, "<p class=\"none\">%s: no data in status.</p>\n", title);
    const int lm = 190;
    struct bars g = {.row = 14 * nseries + 10, .nseries = nseries, .x0 = lm, .x1 = W - 40};
    int h = MT + n * g.row + MB;
    g.y0 = h - MB;
    double hi = 0;
    for (int i = 0; i < n * nseries; i++)
        if (isfinite(v[i]))
            hi = fmax(hi, v[i]);
    g.ax = axis_for(0, hi > 0 ? hi : 1, (W - lm - 40) / 70, true);
    int rc = svg_open(o, id, h, title, lm);
    rc = rc ? rc : bar_axes(o, &g, h, xlabel);
    for (int i = 0; i < n && !rc; i++)
        rc = bar_row(o, &g, i, labels[i], &v[(size_t)i * (size_t)nseries]);
    rc = rc ? rc : bar_legend(o, &g, series_names);
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
    int rc = buf_puts(o, "<table class=\"kv\">\n");
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && !rc; i++) {
        double v = summary_value(st, result, rows[i].id);
        if (!isfinite(v))
            continue;
        char b[64], c[80];
        plugin_fmt_num(b, sizeof(b), v);
        (void)snprintf(c, sizeof(c), "%s%s", b, rows[i].unit);
        rc = kv_row(o, rows[i].label, c);
    }
    return rc ? rc : buf_puts(o, "</table>\n");
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
                        char (*labels)[32], struct series *s)
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
            s[n] = (struct series){labels[n], p[n].x, p[n].y, np, false, false, true};
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
    int rc =
        buf_puts(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
    rc = rc ? rc : esc(o, title);
    rc = rc ? rc : buf_printf(o, "</title><style>%s</style></head><body>\n<h1>", css);
    rc = rc ? rc : esc(o, title);
    return rc ? rc : buf_puts(o, "</h1>\n");
}

/* The percentile curve of each run's merged histogram (names[i] its legend; hists[i] may be
 * NULL); with one run, p50, p95 and p99 are marked. */
static int percentile_chart(struct buf *o, const char *const *names, const cJSON *const *hists,
                            size_t n, const char *empty)
{
    struct pts *p = util_xcalloc(n, sizeof(*p));
    struct series s[PLUGIN_MAX_RUNS];
    struct mark m[3];
    char lab[3][64];
    int ns = 0, nm = 0;
    for (size_t i = 0; i < n && i < PLUGIN_MAX_RUNS; i++) {
        int np = plugin_percentile_curve(hists[i], p[ns].x, p[ns].y, MAXPTS);
        if (np > 0)
            s[ns] = (struct series){names[i], p[ns].x, p[ns].y, np, false, false, false}, ns++;
    }
    struct bench_hist *h = n == 1 ? hist_of(hists[0]) : NULL;
    static const double pcts[] = {50, 95, 99};
    for (int k = 0; h && bench_hist_count(h) > 0 && k < 3; k++, nm++) {
        double ms = (double)bench_hist_percentile(h, pcts[k]) / 1000.0;
        char v[32];
        plugin_fmt_num(v, sizeof(v), ms);
        (void)snprintf(lab[k], sizeof(lab[k]), "p%g %s ms", pcts[k], v);
        m[k] = (struct mark){lab[k], nines_of(pcts[k]), ms};
    }
    bench_hist_free(h);
    struct chart c = {.id = "percentiles",
                      .title =
                          "Latency by percentile (merged histogram of the summary's transactions)",
                      .xlabel = "percentile (%, log scale: one tick per nine)",
                      .ylabel = "latency (ms)",
                      .empty = empty,
                      .nines = true,
                      .marks = m,
                      .nmarks = nm};
    int rc = line_chart(o, &c, s, ns);
    free(p);
    return rc;
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
    struct series s[2 + MAX_WORKER_LINES];
    char labels[MAX_WORKER_LINES][32];
    int nt = total_line(st, res, BK_TIMELINE_TPS, &p[0]);
    s[0] = (struct series){"TPS, all workers (1/s)", p[0].x, p[0].y, nt, false, false, false};
    int ns = 1 + worker_lines(res, BK_TIMELINE_TPS, &p[1], labels, &s[1]);
    int nh = hpa_points(st, &p[ns]);
    if (nh)
        s[ns] = (struct series){"HPA replicas", p[ns].x, p[ns].y, nh, true, true, false}, ns++;
    struct chart c = {.id = "tps",
                      .title = nh ? "TPS and HPA replicas over time" : "TPS over time",
                      .xlabel = "time since start (s)",
                      .ylabel = "TPS (1/s)",
                      .rlabel = nh ? "replicas" : NULL,
                      .shade_to = warm};
    int rc = buf_puts(o, "<h2>Throughput over time</h2>\n");
    rc = rc ? rc : line_chart(o, &c, s, ns);
    free(p);
    return rc;
}

/* Latency over time: the average of each -P interval (total and per worker) and, from the
 * result's latencySeries, p50 and p99 of each interval of the -l log. */
static int latency_chart(struct buf *o, const cJSON *st, const cJSON *res, double warm)
{
    struct pts *p = util_xcalloc(3 + MAX_WORKER_LINES, sizeof(*p));
    struct series s[3 + MAX_WORKER_LINES];
    char labels[MAX_WORKER_LINES][32], l50[64], l99[64];
    int ns = 0, nt = total_line(st, res, BK_TIMELINE_LATENCY_MS, &p[0]);
    s[ns++] = (struct series){
        "average latency, all workers (ms)", p[0].x, p[0].y, nt, false, false, false};
    const cJSON *pts = bench_get(res, BK_LATENCY_SERIES_POINTS);
    double w = bench_num(res, BK_LATENCY_SERIES_INTERVAL_SECONDS);
    (void)snprintf(l50, sizeof(l50), "p50 per %g s (ms)", isfinite(w) ? w : 1);
    (void)snprintf(l99, sizeof(l99), "p99 per %g s (ms)", isfinite(w) ? w : 1);
    int n50 = take(pts, true, BK_LATENCY_SERIES_POINTS_T, BK_LATENCY_SERIES_POINTS_P50_MS, p[1].x,
                   p[1].y);
    int n99 = take(pts, true, BK_LATENCY_SERIES_POINTS_T, BK_LATENCY_SERIES_POINTS_P99_MS, p[2].x,
                   p[2].y);
    if (n50)
        s[ns++] = (struct series){l50, p[1].x, p[1].y, n50, false, false, false};
    if (n99)
        s[ns++] = (struct series){l99, p[2].x, p[2].y, n99, false, false, false};
    ns += worker_lines(res, BK_TIMELINE_LATENCY_MS, &p[3], labels, &s[ns]);
    struct chart lc = {.id = "latency",
                       .title = n99 ? "Latency over time: average (-P) and p50/p99 (-l log)"
                                    : "Latency over time (average)",
                       .xlabel = "time since start (s)",
                       .ylabel = "latency (ms)",
                       .shade_to = warm};
    int rc = buf_puts(o, "<h2>Latency over time</h2>\n");
    rc = rc ? rc : line_chart(o, &lc, s, ns);
    free(p);
    return rc;
}

/* Per-statement latencies (-r): the result's rows, else status' lines; nothing without -r. */
static int statements_table(struct buf *o, const cJSON *st, const cJSON *res)
{
    const cJSON *rows = bench_get(res, BK_STATEMENTS), *it;
    const cJSON *lines = bench_status_get(st, BK_STATUS_STATEMENTS);
    int rc = 0;
    if (cJSON_GetArraySize(rows) > 0) {
        rc = buf_puts(o, "<h2>Statement latencies</h2>\n<table id=\"statements\">\n<tr><th>script"
                         "</th><th>latency (ms)</th><th>failures</th><th>statement</th></tr>\n");
        cJSON_ArrayForEach(it, rows)
        {
            char sc[32], lat[32], fl[32];
            double f = bench_num(it, BK_STATEMENTS_FAILURES);
            (void)snprintf(sc, sizeof(sc), "%g", bench_num(it, BK_STATEMENTS_SCRIPT));
            (void)snprintf(lat, sizeof(lat), "%.3f", bench_num(it, BK_STATEMENTS_LATENCY_MS));
            (void)snprintf(fl, sizeof(fl), isfinite(f) ? "%g" : "", f);
            const cJSON *cmd = bench_get(it, BK_STATEMENTS_COMMAND);
            rc = rc ? rc
                    : buf_printf(o, "<tr><td>%s</td><td>%s</td><td>%s</td><td><code>", sc, lat, fl);
            rc = rc ? rc : esc(o, cJSON_IsString(cmd) ? cmd->valuestring : "");
            rc = rc ? rc : buf_puts(o, "</code></td></tr>\n");
        }
        return rc ? rc : buf_puts(o, "</table>\n");
    }
    if (cJSON_GetArraySize(lines) == 0)
        return 0;
    rc = buf_puts(o, "<h2>Statement latencies</h2>\n<pre id=\"statements\">");
    cJSON_ArrayForEach(it, lines) if (cJSON_IsString(it) && !rc)
    {
        rc = esc(o, it->valuestring);
        rc = rc ? rc : buf_puts(o, "\n");
    }
    return rc ? rc : buf_puts(o, "</pre>\n");
}

/* The warm-up cut in seconds: the result's, else the spec's; 0 without one. */
static double warmup_of(const cJSON *br, const cJSON *res)
{
    double w = bench_num(res, BK_WARMUP_SECONDS);
    if (isfinite(w))
        return w;
    const cJSON *v = bench_json_at(cJSON_GetObjectItemCaseSensitive(br, "spec"),
                                   "workload.pgbench.run.warmupSeconds");
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
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
    int rc = 0, rows = 0;
    for (size_t i = 0; i < bench_ndiags && !rc; i++) {
        const cJSON *s = bench_status_get(st, bench_diags[i].status);
        if (bench_diags[i].join || !cJSON_IsString(s)) /* a joined one is in its row's */
            continue;
        if (!rows++)
            rc = buf_puts(o, "<h2>Diagnostics</h2>\n<table class=\"kv\" id=\"diagnostics\">\n");
        rc = rc ? rc : kv_row(o, bench_status_key(bench_diags[i].status), s->valuestring);
    }
    return rc || !rows ? rc : buf_puts(o, "</table>\n");
}

static int report_head(struct buf *o, const cJSON *br, const cJSON *res, const char *note)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(br, "status");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(br, "metadata");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "name"));
    const char *phase = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, "phase"));
    char title[320];
    (void)snprintf(title, sizeof(title), "BenchmarkRun %s", name ? name : "");
    int rc = page_start(o, title);
    rc = rc ? rc : buf_puts(o, "<table class=\"kv\">\n");
    rc = rc ? rc : kv_row(o, "phase", api_phase_shown(phase));
    static const char *const keys[] = {"target", "message", "startTime", "completionTime"};
    for (size_t i = 0; i < 4 && !rc; i++) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(st, keys[i]));
        if (v)
            rc = kv_row(o, keys[i], v);
    }
    const cJSON *line = bench_status_get(st, BK_STATUS_RESULT);
    if (cJSON_IsString(line) && !rc)
        rc = kv_row(o, "result", line->valuestring);
    rc = rc ? rc : source_row(o, br, res, note);
    const cJSON *win = bench_status_get(st, BK_STATUS_SUMMARY_WINDOW);
    if (!bench_status_get(st, BK_SUMMARY) && !rc)
        return buf_puts(o, "</table>\n");
    rc = rc ? rc : buf_puts(o, "</table>\n<h2>Summary</h2>\n");
    rc = rc ? rc : summary_table(o, st, res);
    if (!rc)
        rc = buf_printf(o, "<p id=\"window\">The numbers cover %s.</p>\n",
                        cJSON_IsString(win) ? win->valuestring : "the whole run (no warm-up cut)");
    return rc ? rc : diagnostics_table(o, st);
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
    int rc = buf_puts(o, "<h2>Wait events</h2>\n");
    return rc ? rc
              : bar_chart(o, "waits", "Wait-event shares of the load's backends",
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
    struct series rs = {"replay lag (ms)", p->x, p->y, nlag, false, false, false};
    struct chart c = {.id = "lag",
                      .title = "Replica replay lag during the run",
                      .xlabel = "sample (one per tick)",
                      .ylabel = "lag (ms)"};
    int rc = buf_puts(o, "<h2>Replica lag</h2>\n");
    rc = rc ? rc : line_chart(o, &c, &rs, 1);
    free(p);
    return rc;
}

/* fio's IOPS per second (the result's series), one line per job and direction. */
static int fio_iops_chart(struct buf *o, const cJSON *result)
{
    enum { MAXL = 8 };
    struct pts *p = util_xcalloc(MAXL, sizeof(*p));
    struct series s[MAXL];
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
            s[ns] = (struct series){labels[ns], p[ns].x, p[ns].y, n, false, false, false};
            ns++;
        }
    }
    int rc = 0;
    if (ns) {
        struct chart c = {.id = "fio-iops",
                          .title = "fio IOPS per second (fio's own logs)",
                          .xlabel = "time since the job started (s)",
                          .ylabel = "IOPS (1/s)"};
        rc = buf_puts(o, "<h2>fio IOPS over time</h2>\n");
        rc = rc ? rc : line_chart(o, &c, s, ns);
    }
    free(p);
    return rc;
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
    int rc = buf_puts(o, "<h2>fio latency per job</h2>\n");
    return rc ? rc
              : bar_chart(o, "fio", "fio p99 latency per job", "latency p99 (µs)", labels, vals, nl,
                          3, fio_series);
}

/* The server's settings (the result's; without it the sentence status words the server in) and
 * the spec as YAML. */
static int settings(struct buf *o, const cJSON *br, const cJSON *st, const cJSON *result)
{
    const cJSON *srv = bench_get(result, BK_SERVER), *it;
    const cJSON *line = bench_status_get(st, BK_STATUS_DIAGNOSTICS_SERVER);
    int rc = buf_puts(o, "<h2>Server settings</h2>\n");
    if (!cJSON_IsObject(srv) && cJSON_IsString(line) && !rc) {
        rc = buf_puts(o, "<table class=\"kv\" id=\"server\">\n");
        rc = rc ? rc : kv_row(o, "server", line->valuestring);
        rc =
            rc ? rc
               : buf_puts(
                     o,
                     "</table>\n<p class=\"none\">the settings are in the result ConfigMap.</p>\n");
    } else if (cJSON_IsObject(srv) && !rc) {
        rc = buf_puts(o, "<table class=\"kv\" id=\"server\">\n");
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
            rc = rc ? rc : kv_row(o, it->string, v);
        }
        rc = rc ? rc : buf_puts(o, "</table>\n");
    } else if (!rc) {
        rc = buf_puts(o, "<p class=\"none\">not recorded (diagnostics.serverSettings).</p>\n");
    }
    return rc ? rc : plugin_spec_section(o, cJSON_GetObjectItemCaseSensitive(br, "spec"));
}

int plugin_report_html(struct buf *o, const cJSON *br, const cJSON *result, const char *note)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(br, "status");
    int rc = report_head(o, br, result, note);
    /* sections only for what the run has: pgbench's for a run with a summary, fio's for jobs */
    if (bench_status_get(st, BK_SUMMARY)) {
        double warm = warmup_of(br, result);
        rc = rc ? rc : statements_table(o, st, result);
        rc = rc ? rc : tps_chart(o, st, result, warm);
        rc = rc ? rc : latency_chart(o, st, result, warm);
        const cJSON *hist = bench_get(result, BK_HISTOGRAM);
        const char *label =
            warm > 0 ? "latency at percentile, steady window (ms)" : "latency at percentile (ms)";
        rc = rc ? rc : buf_puts(o, "<h2>Latency percentiles</h2>\n");
        rc = rc ? rc
                : percentile_chart(o, &label, &hist, 1,
                                   result
                                       ? "no histogram in the result (pgbench wrote no -l log)."
                                       : "needs the result ConfigMap (status keeps no histogram).");
    }
    rc = rc ? rc : wait_chart(o, st, result);
    rc = rc ? rc : lag_chart(o, result);
    rc = rc ? rc : fio_chart(o, st);
    rc = rc ? rc : fio_iops_chart(o, result);
    rc = rc ? rc : settings(o, br, st, result);
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
static int overlay_chart(struct buf *o, const struct chart *c, const cJSON *const *brs,
                         const cJSON *const *results, size_t n, enum bench_field_id yid)
{
    struct pts *p = util_xcalloc(n, sizeof(*p));
    struct series s[PLUGIN_MAX_RUNS];
    for (size_t i = 0; i < n; i++) {
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(brs[i], "status");
        int np = total_line(st, results[i], yid, &p[i]);
        s[i] = (struct series){run_name(brs[i]), p[i].x, p[i].y, np, false, false, false};
    }
    int rc = line_chart(o, c, s, (int)n);
    free(p);
    return rc;
}

/* Which runs the page read from their result ConfigMap and which from status only. */
static int compare_sources(struct buf *o, const cJSON *const *brs, const cJSON *const *results,
                           size_t n)
{
    int rc = buf_puts(o, "<table class=\"kv\" id=\"runs\">\n");
    for (size_t i = 0; i < n && !rc; i++) {
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
        rc = kv_row(o, run_name(brs[i]), b);
    }
    return rc ? rc : buf_puts(o, "</table>\n");
}

int plugin_compare_html(struct buf *o, const struct plugin_compare *c, struct buf *verdict,
                        bool *failed)
{
    const cJSON *const *brs = c->brs, *const *results = c->results;
    size_t n = c->n;
    if (n > PLUGIN_MAX_RUNS)
        return -EINVAL;
    struct buf table = BUF_INIT(4u << 20);
    int rc = plugin_compare_table(&table, c, true, verdict, failed);
    char title[200];
    (void)snprintf(title, sizeof(title), "Comparison of %zu BenchmarkRuns (deltas against %s)", n,
                   run_name(brs[0]));
    rc = rc ? rc : page_start(o, title);
    rc = rc ? rc : compare_sources(o, brs, results, n);
    rc = rc ? rc : buf_puts(o, "<h2>Settings and results</h2>\n");
    rc = rc ? rc : buf_append(o, table.data, table.len);
    if (*failed && !rc) {
        rc = buf_puts(o, "<pre class=\"verdict\" id=\"verdict\">");
        rc = rc ? rc : esc(o, verdict->data);
        rc = rc ? rc : buf_puts(o, "</pre>\n");
    }
    buf_free(&table);
    struct chart tc = {.id = "tps",
                       .title = "TPS over time",
                       .xlabel = "time since start (s)",
                       .ylabel = "TPS (1/s)"};
    struct chart lc = {.id = "latency",
                       .title = "Average latency over time",
                       .xlabel = "time since start (s)",
                       .ylabel = "latency (ms)"};
    rc = rc ? rc : buf_puts(o, "<h2>Throughput over time</h2>\n");
    rc = rc ? rc : overlay_chart(o, &tc, brs, results, n, BK_TIMELINE_TPS);
    rc = rc ? rc : buf_puts(o, "<h2>Latency over time</h2>\n");
    rc = rc ? rc : overlay_chart(o, &lc, brs, results, n, BK_TIMELINE_LATENCY_MS);
    const char *names[PLUGIN_MAX_RUNS];
    const cJSON *hists[PLUGIN_MAX_RUNS];
    for (size_t i = 0; i < n; i++) {
        names[i] = run_name(brs[i]);
        hists[i] = bench_get(results[i], BK_HISTOGRAM);
    }
    rc = rc ? rc : buf_puts(o, "<h2>Latency percentiles</h2>\n");
    rc = rc ? rc
            : percentile_chart(o, names, hists, n,
                               "no run has a histogram (it is in the result ConfigMap only).");
    return rc ? rc : buf_puts(o, "</body></html>\n");
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
    rc = rc ? rc : buf_puts(o, "<h2>Spec</h2>\n<pre id=\"spec\">");
    rc = rc ? rc : esc(o, y.data);
    rc = rc ? rc : buf_puts(o, "</pre>\n");
    buf_free(&y);
    return rc;
}

int plugin_line_chart(struct buf *o, const struct plugin_chart *pc, const struct plugin_series *ps,
                      int ns)
{
    struct series s[PLUGIN_CHART_SERIES];
    unsigned style[PLUGIN_CHART_SERIES];
    struct mark m[PLUGIN_CHART_MARKS];
    int nm = pc->nmarks < PLUGIN_CHART_MARKS ? pc->nmarks : PLUGIN_CHART_MARKS;
    ns = ns < PLUGIN_CHART_SERIES ? ns : PLUGIN_CHART_SERIES;
    for (int i = 0; i < ns; i++) {
        s[i] = (struct series){.label = ps[i].label, .x = ps[i].x, .y = ps[i].y, .n = ps[i].n};
        style[i] = (ps[i].dots ? STYLE_DOTS : 0) | (ps[i].nodots ? STYLE_NODOTS : 0);
    }
    for (int i = 0; i < nm; i++)
        m[i] = (struct mark){pc->marks[i].label, pc->marks[i].x, pc->marks[i].y};
    struct chart c = {.id = pc->id,
                      .title = pc->title,
                      .xlabel = pc->xlabel,
                      .ylabel = pc->ylabel,
                      .empty = pc->empty,
                      .log2x = pc->log2x,
                      .marks = m,
                      .nmarks = nm};
    return styled_chart(o, &c, s, ns, style);
}
