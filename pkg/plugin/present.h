/* pkg/plugin/present: BenchmarkRun results as text for people and as JSON/CSV for tools.
 *
 * Every status value is read through the contract (bench_status_get/str with a BK_ id), the
 * controller's own keys (phase, message, target, startTime, conditions) too; only a condition's
 * members are named here. Output is appended to a capped buffer; nothing here prints. */
#ifndef PGBO_PLUGIN_PRESENT_H
#define PGBO_PLUGIN_PRESENT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "pkg/util/buf.h"

/* Most runs one compare page overlays. */
#define PLUGIN_MAX_RUNS 30

/* The result table of one finished (or failed) run: summary, wait events, Little's law, workers,
 * fio jobs. br is the whole BenchmarkRun. */
int plugin_result_table(struct buf *out, const cJSON *br);

/* One progress line while the run goes: phase, seconds since it started, and status.progress (the
 * workers' live tps, latency, seconds of the duration, failures) when status has it. No result
 * numbers: those are plugin_result_table's. No newline. */
int plugin_progress_line(struct buf *out, const cJSON *br, double now);

/* What plugin_condition_news has printed: each condition's type and last message. */
struct plugin_conds_seen {
    struct {
        char type[64];
        char msg[1024];
        bool on;
    } c[8];
};

/* The lines `run --wait` prints about conditions, appended to out: each True condition that says
 * the run waits (api_cond_is_waiting) or qualifies its result (api_cond_is_caveat) as a line of
 * its own, "NAME: TYPE: message\n", when it appears or its words change (a new cause; not its
 * counting seconds). One that goes False and comes back is printed again. seen starts zeroed and
 * is kept between calls. Returns how many lines. */
int plugin_condition_news(struct buf *out, const cJSON *br, const char *name,
                          struct plugin_conds_seen *seen);

/* The comparison of runs grouped in sides: side s is side_n[s] consecutive runs of brs (one
 * setting measured that many times, `compare --repeats N`), nsides >= 2 (at most 15). results[i]
 * is run i's full result (its ConfigMap) or NULL. One column per side:
 *   - settings: target, clients, threads, workers, protocol, scale, duration, script, rate,
 *     server version and every server setting the results carry; a row whose runs do not all
 *     agree is marked ("* " before its label; HTML: class "differs");
 *   - results: TPS, latency avg/p50/p95/p99, failures, Little's law deviation, the verdicts'
 *     classes and wait-event shares; a side of several runs shows mean ± stddev; from the
 *     second side on each cell carries its delta against the first side: a ratio ("(0.93x)"),
 *     or for percentages the difference in percentage points ("(+8.80 pp)");
 * then a line per side explaining its difference from the first (bench_verdict_explain, from the
 * first run of each side: its result, or what status holds when results or its entry is NULL).
 * Thresholds (th, < 0: not checked): a side whose TPS is more than tps_drop_pct below the first's,
 * or whose p99 is more than p99_grow_pct above it, is named in `verdict` (one line each) and
 * *failed is set; when both sides have two runs or more, only if a Welch t-test says the
 * difference is beyond the runs' own spread (p < 0.05). With such sides every side's TPS and
 * p99 difference is written under the table as "within noise" or "beyond noise", with t, df and
 * p. html: the table as an HTML <table id="compare">, the explanations as <pre id="why"> and the
 * noise lines as <pre id="noise">.
 * -EINVAL when the sides do not add up to n. */
struct plugin_thresholds {
    double tps_drop_pct, p99_grow_pct;
};
struct plugin_compare {
    const cJSON *const *brs, *const *results;
    size_t n;
    size_t nsides;
    size_t side_n[16];
    struct plugin_thresholds th;
};
int plugin_compare_table(struct buf *out, const struct plugin_compare *c, bool html,
                         struct buf *verdict, bool *failed);

/* export of n runs (brs[i], results[i] its full result, the ConfigMap status.resultRef names, or
 * NULL): "json" (two-space indent), "yaml" or "csv". Without a table, or with "timeline",
 * "statements", "workers" or "fio": json/yaml one object per run (an array of them for several
 * runs) with name, phase, source, summary and the tables; csv the table given, or every non-empty
 * one separated by a blank line, each with a header row, and with several runs a first column
 * "run". With a result the timeline is the full one with every member of a point (stddevMs,
 * failed, lagMs, ...; status' points have its series only), and workers and statements are the
 * result's rows (its keys); without, status' lines (csv: one column, "line"). Table "summary":
 * one row per run, its name, phase and settings (as compare shows them) and the summary's
 * numbers by their result keys (tps, latencyP99Ms, failedTransactions, ...). Numbers are written
 * at their shortest round-trip precision. -EINVAL on an unknown format or table. */
int plugin_export(struct buf *out, const cJSON *const *brs, const cJSON *const *results, size_t n,
                  const char *format, const char *table);

/* The run's warm-up cut in seconds: the result's (warmup.seconds), else the spec's
 * run.warmupSeconds; 0 without one. result may be NULL. */
double plugin_warmup_s(const cJSON *br, const cJSON *result);

/* What the per-statement latencies (pgbench -r) cover, as a phrase for the report, the export and
 * the text: always the whole run, since pgbench has no time window for -r (and its -l log no
 * per-statement times); with a warm-up cut it says the cut's seconds are in them, unlike the
 * summary and percentiles. */
void plugin_statements_cover(char *out, size_t len, const cJSON *br, const cJSON *result);

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
