/* pkg/plugin/report: BenchmarkRuns as self-contained HTML pages: inline SVG plots (no scripts,
 * no external assets), every value read through the result contract.
 *
 * A run's report: TPS over time with the HPA's replicas on the same time axis, latency over time
 * (both with one line per worker beside the total), the latency percentile curve of the merged
 * histogram (p50, p95, p99 marked), wait-event shares, replica lag samples, fio p99 per job; then
 * the spec and the server settings. Timelines, the workers' lines and the histogram come from the
 * run's full result (the ConfigMap status.resultRef names) when the caller read it; without it
 * the page says so and draws what status holds (its few timeline points, no per-worker lines,
 * no percentile curve). Each plot (chart.h) has axes with units and a legend; tick labels,
 * legend entries and marks are spaced so they do not overlap. */
#ifndef PGBO_PLUGIN_REPORT_H
#define PGBO_PLUGIN_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "pkg/plugin/chart.h"
#include "pkg/plugin/present.h"
#include "pkg/util/buf.h"

/* Percentile curve: points per nine (0.05 nines apart; every whole nine is a point). */
#define PLUGIN_CURVE_STEPS_PER_NINE 20

/* The ConfigMap holding br's full result (status.resultRef.name) and, in *key when key is not
 * NULL, its data key (NULL when status names none); NULL when status has no resultRef. Borrowed
 * from br. */
const char *plugin_result_ref(const cJSON *br, const char **key);

/* br is the whole BenchmarkRun; result its full result (the ConfigMap's JSON,
 * docs/result-schema.md) or NULL, and then note says why in a few words ("status.resultRef is not
 * set"). */
int plugin_report_html(struct buf *out, const cJSON *br, const cJSON *result, const char *note);

/* The compare page of c's runs (2 to PLUGIN_MAX_RUNS): the table of plugin_compare_table as HTML
 * (deltas against the first side; thresholds, verdict and *failed as there), then the runs' TPS
 * and latency over time overlaid on one chart each, and their percentile curves overlaid (runs
 * whose results[i] is NULL or has no histogram have none). -EINVAL for too many runs. */
int plugin_compare_html(struct buf *out, const struct plugin_compare *c, struct buf *verdict,
                        bool *failed);

/* The latency percentile curve of a histogram in the result's JSON form: x[i] in nines,
 * -log10(1 - p/100) (0 is p0, 1 p90, 2 p99, 3 p99.9), y[i] the latency in ms at that percentile
 * (nearest rank, bench_hist_percentile), one point every 1/PLUGIN_CURVE_STEPS_PER_NINE nines from
 * p0 up to log10(count) nines (the highest percentile the count resolves). Returns the number of
 * points (at most max; 0 for an empty histogram) or -EINVAL when hist is absent or not valid. */
int plugin_percentile_curve(const cJSON *hist, double *x, double *y, int max);

/* For the other pages (report_sweep.c): the page's head (title, style, <h1>); their charts and the
 * HTML escape are chart.h's. */
int plugin_page_start(struct buf *o, const char *title);
/* "Spec" heading and the object's spec as YAML in <pre id="spec">; nothing when spec is NULL. */
int plugin_spec_section(struct buf *o, const cJSON *spec);

#endif
