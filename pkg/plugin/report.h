/* pkg/plugin/report: one BenchmarkRun as a self-contained HTML page: inline SVG plots (no scripts,
 * no external assets), every value read from status through the result contract.
 *
 * Plots: TPS over time with the HPA's replicas on the same time axis, latency over time, wait-event
 * shares, replica lag samples, fio p99 per job; then the spec and the server settings. Each plot
 * has axes with units and a legend; tick labels are spaced so they do not overlap. */
#ifndef PGBO_PLUGIN_REPORT_H
#define PGBO_PLUGIN_REPORT_H

#include <cjson/cJSON.h>

#include "pkg/util/buf.h"

int plugin_report_html(struct buf *out, const cJSON *br);

#endif
