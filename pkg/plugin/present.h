/* pkg/plugin/present: BenchmarkRun results as text for people and as JSON/CSV for tools.
 *
 * Every result value is read from status through the contract (bench_status_get with a BK_ id);
 * only the controller's own keys (phase, message, hpaTimeline, startAt) are named here. Output
 * is appended to a capped buffer; nothing here prints. */
#ifndef PGBO_PLUGIN_PRESENT_H
#define PGBO_PLUGIN_PRESENT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "pkg/util/buf.h"

/* The result table of one finished (or failed) run: summary, wait events, Little's law, workers,
 * fio jobs. br is the whole BenchmarkRun. */
int plugin_result_table(struct buf *out, const cJSON *br);

/* One progress line: phase, elapsed seconds, the last timeline point (TPS, latency) and p99 when
 * status has them. No newline. */
int plugin_progress_line(struct buf *out, const cJSON *br, double now);

/* The comparison table of n >= 2 runs: TPS, latency avg/p50/p95/p99, failures, Little's law
 * deviation, each with its ratio against the first run, the verdicts' classes, wait-event shares;
 * then a line per run explaining its difference from the first (bench_verdict_explain) from the
 * runs' results (results, or an entry of it, may be NULL: then from what status holds). Thresholds
 * (< 0: not checked): a run whose TPS is more than tps_drop_pct below the first's, or whose p99 is
 * more than p99_grow_pct above it, is named in `verdict` (one line each) and *failed is set. */
struct plugin_thresholds {
    double tps_drop_pct, p99_grow_pct;
};
int plugin_compare_table(struct buf *out, const cJSON *const *brs, const cJSON *const *results,
                         size_t n, const struct plugin_thresholds *th, struct buf *verdict,
                         bool *failed);

/* export: "json" (one object: name, phase, source, summary, timeline, statements, workers, fio)
 * or "csv" (table "timeline", "statements", "workers" or "fio", or NULL for every non-empty one,
 * separated by a blank line, each with a header row). result is the run's full result (the
 * ConfigMap status.resultRef names) or NULL: with it the timeline is the full one, not the
 * points status keeps (same columns; "source" says "result" or "status"), and workers and
 * statements are the result's rows (its keys); without it they are status' lines (csv: one
 * column, "line"). -EINVAL on an unknown format or table. */
int plugin_export(struct buf *out, const cJSON *br, const cJSON *result, const char *format,
                  const char *table);

/* Formats a number compactly for tables: 16030.4 -> "16,030.4" style grouping off; digits kept
 * to the precision that means something (4 significant, at least 1 decimal for < 100). "-" for
 * NAN. */
void plugin_fmt_num(char *out, size_t len, double v);

/* An aligned text table (at most 16 columns, 400 rows; longer cells are cut), as the tables
 * above are written: plugin_table_set copies s; a column marked right is right-aligned below its
 * header row; plugin_table_ratio writes v with unit and, from column 2 on, "(0.93x)" against
 * base. */
struct plugin_table;
struct plugin_table *plugin_table_new(int ncols);
void plugin_table_set(struct plugin_table *t, int row, int col, const char *s);
void plugin_table_right(struct plugin_table *t, int col);
void plugin_table_ratio(struct plugin_table *t, int row, int col, double v, double base,
                        const char *unit);
int plugin_table_emit(struct buf *out, const struct plugin_table *t, const char *indent);
void plugin_table_free(struct plugin_table *t);

#endif
