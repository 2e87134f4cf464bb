/* pkg/plugin/report_sweep: a BenchmarkSweep as one self-contained HTML page (inline SVG, no
 * scripts): its phase, analysis and the whole verdict; TPS against the varied value (every run as
 * a point, the step means as a line, ideal linear scaling lambda N, the fitted USL curve, the
 * latency knee and N* marked); p99 against the value (knee marked); how the limiting classes
 * share each step's backend samples; the steps' table (with each step's limit) and the spec. A
 * doubling series (1, 2, 4, 8 ...) has a log2 x axis. Read from status (steps[], analysis). */
#ifndef PGBO_PLUGIN_REPORT_SWEEP_H
#define PGBO_PLUGIN_REPORT_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "pkg/util/buf.h"

/* Points of the drawn USL curve. */
#define PLUGIN_SWEEP_CURVE_POINTS 97

int plugin_sweep_report_html(struct buf *out, const cJSON *sw);

/* The USL curve of status.analysis.usl (lambda, sigma, kappa; ok true) at max points from lo to
 * hi (x[0] = lo, x[max-1] = hi), evenly, or evenly in log when geometric (lo > 0). Returns max,
 * or 0 without a fit. */
int plugin_sweep_usl_curve(const cJSON *usl, double lo, double hi, bool geometric, double *x,
                           double *y, int max);

/* A doubling series, drawn on a log2 axis: n >= 3 values > 0, increasing by 1.2x or more a step
 * and by about 1.6x or more on average (1, 2, 4, 8 and 1..64x2, not 1, 2, 3). */
bool plugin_sweep_doubling(const double *v, int n);

/* Sweeps compared on one page: plugin_sweep_compare's table, then each sweep's mean TPS and
 * mean p99 against the varied value as one line each (the first 8) on a chart each. -EINVAL with
 * err as plugin_sweep_compare. */
int plugin_sweep_compare_html(struct buf *out, const cJSON *const *sws, size_t n, char *err,
                              size_t errlen);

#endif
