/* Line and bar charts as inline SVG (chart.h). */
#include "pkg/plugin/chart.h"
#include "pkg/plugin/present.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define W 760 /* plot size in px */
#define H 300
#define ML 70 /* margins: left (y labels), right (second axis), top, bottom (x labels) */
#define MR 70
#define MT 44
#define MB 48
#define LEGEND_ROW 16   /* px per further legend row: the plot grows, the legend never overlaps */
#define MAX_TICKS 10000 /* an axis with more is no chart (axes ask for at most about 12) */
#define DOTS_MAX 400    /* a line with more points than this is drawn without a circle per point */

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                     "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NCOLORS ((int)(sizeof(colors) / sizeof(colors[0])))

/* A vertical grid line at x from y1 to y2, and the tick label under the x axis at axis_y. */
static void x_tick(struct buf *o, double x, double y1, double y2, double axis_y, const char *label)
{
    buf_printf(o,
               "<line class=\"g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
               "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
               x, y1, x, y2, x, axis_y + 16, label);
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

/* How many ticks an axis has: lo, then a step at a time up to hi and half a step beyond (a log2
 * axis' hi need not be a whole number of steps from lo). Counted, so that no floating-point
 * counter decides how often a loop runs. */
static int ticks(const struct axis *a)
{
    double n = floor((a->hi - a->lo) / a->step + 0.5 + 1e-9);
    return n >= 0 && n < MAX_TICKS ? (int)n + 1 : 0; /* not NaN; a sane number */
}

static double px(const struct axis *a, double v, double p0, double p1)
{
    if (a->log2)
        v = v > 0 ? log2(v) : -INFINITY;
    return p0 + (v - a->lo) / (a->hi - a->lo) * (p1 - p0);
}

static bool pt_ok(const struct plugin_series *s, int i)
{
    return isfinite(s->x[i]) && isfinite(s->y[i]);
}

/* Legend entries flow left to right over the plot's width and wrap into rows. */
static double legend_w(const char *label)
{
    return 18 + 7.0 * (double)strlen(label) + 22;
}

static int legend_rows(const struct plugin_series *s, int ns)
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
static int frame_for(const struct plugin_chart *c, const struct plugin_series *s, int ns,
                     struct frame *f)
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
static void draw_ticks(struct buf *o, const struct plugin_chart *c, const struct frame *f)
{
    char b[64];
    const struct axis *ax = &f->ax, *ay = &f->ay, *ar = &f->ar;
    double v = ax->lo;
    for (int k = 0, n = ticks(ax); k < n; k++, v += ax->step) {
        double X = px(ax, ax->log2 ? exp2(v) : v, f->x0, f->x1);
        if (c->nines)
            nines_label(b, sizeof(b), v);
        else if (ax->log2)
            tick_label(b, sizeof(b), exp2(v), exp2(v) >= 1 ? 1 : exp2(v));
        else
            tick_label(b, sizeof(b), v, ax->step);
        x_tick(o, X, f->y0, f->y1, f->y0, b);
    }
    v = ay->lo;
    for (int k = 0, n = ticks(ay); k < n; k++, v += ay->step) {
        double Y = px(ay, v, f->y0, f->y1);
        tick_label(b, sizeof(b), v, ay->step);
        buf_printf(o,
                   "<line class=\"g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                   "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
                   f->x0, Y, f->x1, Y, f->x0 - 6, Y + 4, b);
    }
    v = ar->lo;
    for (int k = 0, n = f->has_right ? ticks(ar) : 0; k < n; k++, v += ar->step) {
        tick_label(b, sizeof(b), v, ar->step);
        buf_printf(o, "<text class=\"rt\" x=\"%.1f\" y=\"%.1f\">%s</text>", f->x1 + 6,
                   px(ar, v, f->y0, f->y1) + 4, b);
    }
}

/* The axis lines and their labels (with units). */
static void draw_axes(struct buf *o, const struct plugin_chart *c, const struct frame *f)
{
    buf_printf(o,
               "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
               "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
               "<text class=\"xl\" x=\"%.1f\" y=\"%d\">",
               f->x0, f->y0, f->x1, f->y0, f->x0, f->y0, f->x0, f->y1, (f->x0 + f->x1) / 2,
               f->h - 8);
    buf_put_html(o, c->xlabel);
    buf_printf(o, "</text><text class=\"yl\" transform=\"translate(16 %.1f) rotate(-90)\">",
               (f->y0 + f->y1) / 2);
    buf_put_html(o, c->ylabel);
    buf_puts(o, "</text>");
    if (f->has_right && c->rlabel) {
        buf_printf(o,
                   "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                   "<text class=\"yl\" transform=\"translate(%d %.1f) rotate(90)\">",
                   f->x1, f->y0, f->x1, f->y1, W - 12, (f->y0 + f->y1) / 2);
        buf_put_html(o, c->rlabel);
        buf_puts(o, "</text>");
    }
}

/* One series: a polyline through its points (steps for `step`; no stroke for `dots`), a circle
 * (class "pt") per point unless `nodots` or there are more than DOTS_MAX. */
static void draw_series(struct buf *o, const struct frame *f, const struct plugin_series *s,
                        const char *c)
{
    const struct axis *ya = s->right ? &f->ar : &f->ay;
    buf_printf(o, "<g class=\"series\" data-label=\"");
    buf_put_html(o, s->label);
    buf_printf(o,
               "\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s "
               "points=\"",
               s->dots ? "none" : c, s->thin ? "1.2" : "2",
               s->thin ? " stroke-dasharray=\"4 2\"" : "");
    double prevY = NAN;
    int n = 0;
    for (int i = 0; i < s->n && !o->err; i++) {
        if (!pt_ok(s, i))
            continue;
        double X = px(&f->ax, s->x[i], f->x0, f->x1), Y = px(ya, s->y[i], f->y0, f->y1);
        if (s->step && isfinite(prevY))
            buf_printf(o, "%.1f,%.1f ", X, prevY);
        buf_printf(o, "%.1f,%.1f ", X, Y);
        prevY = Y;
        n++;
    }
    if (s->step && isfinite(prevY)) /* the last count holds to the end */
        buf_printf(o, "%.1f,%.1f", f->x1, prevY);
    buf_puts(o, "\"/>");
    for (int i = 0; i < s->n && n <= DOTS_MAX && !s->nodots && !o->err; i++) {
        if (pt_ok(s, i))
            buf_printf(o, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"/>",
                       px(&f->ax, s->x[i], f->x0, f->x1), px(ya, s->y[i], f->y0, f->y1),
                       s->thin ? "1.8" : "2.5", c);
    }
    buf_puts(o, "</g>");
}

static void draw_legend(struct buf *o, const struct plugin_series *s, int ns)
{
    double x = ML + 10;
    int row = 0;
    for (int k = 0; k < ns; k++) {
        if (x + legend_w(s[k].label) > W - MR && x > ML + 10)
            row++, x = ML + 10;
        int y = MT - 18 + row * LEGEND_ROW;
        buf_printf(o,
                   "<g class=\"legend\"><rect x=\"%.1f\" y=\"%d\" width=\"14\" "
                   "height=\"4\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">",
                   x, y, colors[k % NCOLORS], x + 18, y + 5);
        buf_put_html(o, s[k].label);
        buf_puts(o, "</text></g>");
        x += legend_w(s[k].label);
    }
}

/* Marks: a dot on the curve, a dashed drop line to the x axis, and the label in its own row at
 * the top of the plot (rows never overlap; near the right edge the label ends at the line). */
static void draw_marks(struct buf *o, const struct plugin_chart *c, const struct frame *f)
{
    for (int i = 0; i < c->nmarks; i++) {
        const struct plugin_mark *m = &c->marks[i];
        if (!isfinite(m->x) || !isfinite(m->y))
            continue;
        double X = px(&f->ax, m->x, f->x0, f->x1), Y = px(&f->ay, m->y, f->y0, f->y1);
        bool end = X > f->x1 - 120;
        buf_printf(o,
                   "<g class=\"mark\" data-x=\"%.6g\" data-y=\"%.6g\"><line class=\"mk\" "
                   "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><circle cx=\"%.1f\" "
                   "cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"#222\"/>"
                   "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\">",
                   m->x, m->y, X, f->y0, X, f->y1 + 10 + 14.0 * i, X, Y, end ? "mkl e" : "mkl",
                   end ? X - 4 : X + 4, f->y1 + 14 + 14.0 * i);
        buf_put_html(o, m->label);
        buf_puts(o, "</text></g>");
    }
}

/* The warm-up cut: a grey band from the start of the x axis to shade_to, labelled at its top. */
static void draw_shade(struct buf *o, const struct plugin_chart *c, const struct frame *f)
{
    if (!(c->shade_to > f->ax.lo))
        return;
    double X = px(&f->ax, fmin(c->shade_to, f->ax.hi), f->x0, f->x1);
    buf_printf(o,
               "<g class=\"warmup\" data-to=\"%.6g\"><rect x=\"%.1f\" y=\"%.1f\" "
               "width=\"%.1f\" height=\"%.1f\" fill=\"#000\" fill-opacity=\"0.08\"/>"
               "<text class=\"mkl\" x=\"%.1f\" y=\"%.1f\">warm-up %g s: not in the "
               "summary</text></g>",
               c->shade_to, f->x0, f->y1, X - f->x0, f->y0 - f->y1, f->x0 + 4, f->y0 - 6,
               c->shade_to);
}

/* A chart's figure and svg (W wide, h high) with its title, as a tooltip and written at x. */
static void svg_open(struct buf *o, const char *id, int h, const char *title, int x)
{
    buf_printf(o,
               "<figure><svg id=\"%s\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" "
               "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>",
               id, W, h, W, h);
    buf_put_html(o, title);
    buf_printf(o, "</title><text class=\"t\" x=\"%d\" y=\"18\">", x);
    buf_put_html(o, title);
    buf_puts(o, "</text>");
}

int plugin_line_chart(struct buf *o, const struct plugin_chart *c, const struct plugin_series *s,
                      int ns)
{
    struct frame f;
    if (frame_for(c, s, ns, &f) == 0)
        return buf_printf(o, "<p class=\"none\">%s: %s</p>\n", c->title,
                          c->empty ? c->empty : "no data in status.");
    svg_open(o, c->id, f.h, c->title, ML);
    draw_shade(o, c, &f);
    draw_ticks(o, c, &f);
    draw_axes(o, c, &f);
    for (int k = 0; k < ns; k++)
        draw_series(o, &f, &s[k], colors[k % NCOLORS]);
    draw_marks(o, c, &f);
    draw_legend(o, s, ns);
    return buf_puts(o, "</svg></figure>\n");
}

/* A bar chart's geometry: rows of nseries bars, x from x0 to x1 on ax, the x axis at y0. */
struct bars {
    struct axis ax;
    double x0, x1, y0;
    int row, nseries;
};

/* The x axis: grid lines with their tick labels, both axis lines and xlabel under them. */
static void bar_axes(struct buf *o, const struct bars *g, int h, const char *xlabel)
{
    char b[64];
    const struct axis *ax = &g->ax;
    double x = ax->lo;
    for (int k = 0, n = ticks(ax); k < n; k++, x += ax->step) {
        double X = px(ax, x, g->x0, g->x1);
        tick_label(b, sizeof(b), x, ax->step);
        x_tick(o, X, MT, g->y0, g->y0, b);
    }
    buf_printf(o,
               "<line class=\"ax\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
               "<line class=\"ax\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>"
               "<text class=\"xl\" x=\"%.1f\" y=\"%d\">",
               g->x0, g->y0, g->x1, g->y0, g->x0, MT, g->x0, g->y0, (g->x0 + g->x1) / 2, h - 8);
    buf_put_html(o, xlabel);
    buf_puts(o, "</text>");
}

/* Row i: its label, then a bar with its value for each series that has one (v[k]). */
static void bar_row(struct buf *o, const struct bars *g, int i, const char *label, const double *v)
{
    double ry = MT + i * g->row + 5;
    buf_printf(o, "<text class=\"bl\" x=\"%.1f\" y=\"%.1f\">", g->x0 - 6, ry + 7 * g->nseries + 4);
    buf_put_html(o, label);
    buf_puts(o, "</text>");
    char b[64];
    for (int k = 0; k < g->nseries; k++) {
        if (!isfinite(v[k]))
            continue;
        double X = px(&g->ax, v[k], g->x0, g->x1);
        plugin_fmt_num(b, sizeof(b), v[k]);
        buf_printf(o,
                   "<rect class=\"pt bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"12\" fill=\"%s\"/><text class=\"bv\" x=\"%.1f\" "
                   "y=\"%.1f\">%s</text>",
                   g->x0, ry + 14 * k, fmax(1, X - g->x0), colors[k % NCOLORS], X + 4,
                   ry + 14 * k + 10, b);
    }
}

static void bar_legend(struct buf *o, const struct bars *g, const char *const *series_names)
{
    for (int k = 0; k < g->nseries && series_names; k++) {
        double lx = g->x0 + 180 + k * 130;
        buf_printf(o,
                   "<g class=\"legend\"><rect x=\"%.1f\" y=\"%d\" width=\"14\" height=\"4\" "
                   "fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">",
                   lx, 30, colors[k % NCOLORS], lx + 18, 34);
        buf_put_html(o, series_names[k]);
        buf_puts(o, "</text></g>");
    }
}

int plugin_bar_chart(struct buf *o, const char *id, const char *title, const char *xlabel,
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
    svg_open(o, id, h, title, lm);
    bar_axes(o, &g, h, xlabel);
    for (int i = 0; i < n; i++)
        bar_row(o, &g, i, labels[i], &v[(size_t)i * (size_t)nseries]);
    bar_legend(o, &g, series_names);
    return buf_puts(o, "</svg></figure>\n");
}
