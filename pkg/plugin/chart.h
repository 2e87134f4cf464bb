/* pkg/plugin/chart: the charts of every HTML page (report.c, report_sweep.c) as inline SVG: line
 * charts with axes and units, 1/2/5 ticks (or powers of two, or nines), a second y axis, a
 * legend that wraps, marks with a drop line and a label in their own row above the data, a
 * shaded warm-up; horizontal bar charts (HTML text is escaped by buf_put_html).
 *
 * Owns the drawing and its one set of types. Knows nothing of BenchmarkRuns, results or status:
 * a caller hands it numbers and words. Every function appends to o and returns o->err (buf.h's
 * sticky error: 0, or -E2BIG once o is full). */
#ifndef PGBO_PLUGIN_CHART_H
#define PGBO_PLUGIN_CHART_H

#include <stdbool.h>

#include "pkg/util/buf.h"

/* The most series the sweep pages draw on one chart. */
#define PLUGIN_CHART_SERIES 8

/* A line through its points with a circle per point (none beyond 400 points). */
struct plugin_series {
    const char *label; /* its legend entry */
    const double *x, *y;
    int n;
    bool dots;   /* the circles only */
    bool nodots; /* the line only */
    bool right;  /* on the second y axis (plugin_chart.rlabel) */
    bool step;   /* drawn as steps: each value holds until the next (replica counts) */
    bool thin;   /* thinner and dashed (one worker beside the total) */
};

/* A labelled point (p50 on a percentile curve, a sweep's knee). */
struct plugin_mark {
    const char *label;
    double x, y;
};

/* What a line chart shows besides its series. */
struct plugin_chart {
    const char *id, *title, *xlabel, *ylabel;
    const char *empty; /* said instead of the plot when no series has a point */
    const struct plugin_mark *marks;
    int nmarks;
    bool log2x;         /* x on a log2 scale, a tick per power of two (values > 0) */
    const char *rlabel; /* the second y axis (series with `right`), or NULL */
    bool nines;         /* x in nines, -log10(1 - p): a tick per whole nine, labelled as the
                         * percentile (0, 90, 99, 99.9 ...) */
    double shade_to;    /* > 0: x from the axis' start to here is shaded as the warm-up cut */
};

/* A line chart in a <figure>: the x axis (xlabel with its unit), the left y axis for the series
 * that are not `right`, a second one for those that are, the legend above the plot; "<p
 * class="none">title: empty</p>" when no series has a point. */
int plugin_line_chart(struct buf *o, const struct plugin_chart *c, const struct plugin_series *s,
                      int ns);
/* Horizontal bars in a <figure>: a row per labels[i] with a bar per series (v[i * nseries + k],
 * none where not finite), values on an x axis labelled xlabel; series_names (NULL for one
 * series) in a legend. "no data in status." when n is 0. */
int plugin_bar_chart(struct buf *o, const char *id, const char *title, const char *xlabel,
                     const char *const *labels, const double *v, int n, int nseries,
                     const char *const *series_names);

#endif
