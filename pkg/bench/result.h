/* The runner's result: one versioned JSON object (schemaVersion 1, documented in
 * docs/result-schema.md), a compact form for the Kubernetes termination log, a human summary,
 * and the reader the controller uses on pod logs.
 *
 * Allocation failure aborts (pkg/util/mem.h): the builders below never return NULL for it and the
 * adders return nothing; what they do return is a real error (bad input). */
#ifndef PGBO_BENCH_RESULT_H
#define PGBO_BENCH_RESULT_H

#include "pkg/bench/fields.h"
#include "pkg/bench/fio.h"
#include "pkg/bench/histogram.h"
#include "pkg/bench/pgbench.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define BENCH_RESULT_SCHEMA_VERSION 1
/* The termination log must stay below this (Kubernetes allows 4096 bytes). */
#define BENCH_COMPACT_LIMIT 3072

/* Runner exit codes (design card). */
enum bench_exit {
    BENCH_EXIT_OK = 0,
    BENCH_EXIT_USAGE = 1,
    BENCH_EXIT_PARTIAL = 2,
    BENCH_EXIT_UNREACHABLE = 3,
};

struct bench_result_meta {
    const char *kind;  /* "pgbench" | "pgbench-init" | "fio" */
    int worker;        /* JOB_COMPLETION_INDEX, -1 = standalone (JSON null) */
    double start_time; /* Unix seconds (fractional), 0 = unknown (null) */
    double end_time;
    int exit_code;    /* the runner's exit code (enum bench_exit) */
    int child_exit;   /* pgbench/fio exit status, -1 = did not run / unknown */
    bool complete;    /* the benchmark ran to the end and every client finished */
    const char *user; /* the role it connected as; NULL = never connected (absent) */
};

/* Creates the top-level object: schemaVersion, kind, complete, worker, startTime, endTime
 * (RFC 3339 UTC with milliseconds), exitCode, childExitCode, user (when set), errors: []. */
cJSON *bench_result_new(const struct bench_result_meta *m);

/* The summary rows a latency histogram gives (latencyP50Ms .. latencyP999Ms, latencyMaxMs,
 * latencyMinMs in ms, histogramCount) into summary; null when hist is NULL or empty. */
void bench_result_put_hist(cJSON *summary, const struct bench_hist *hist);

/* Adds "pgbench" (configuration), "summary", "statements", "scripts", "timeline", "histogram"
 * and the parser's error lines (appended to "errors") from a parsed run. hist (may be NULL) gives
 * the percentile fields latencyP50Ms..latencyP999Ms and latencyMaxMs; without it they are null. run
 * (may be NULL) supplies the configured options, used where the console output lacks them. */
void bench_result_add_pgbench(cJSON *result, const struct bench_pgbench_result *pg,
                              const struct bench_hist *hist,
                              const struct bench_pgbench_run_opts *run);
/* Adds what the -l log gives beyond the histogram, after bench_result_add_pgbench: the latency
 * series ("latencySeries", when bench_txlog_start was called) and, with a warm-up cut, "warmup"
 * with the summary rewritten to cover the steady window only: its counts, tps (steady
 * transactions / the window from the cut to the last completion), the latency average (the
 * histogram's mean; stddev and tpsIncludingConnect null) from tl; pgbench's whole-run tps and
 * average move to warmup.runTps and warmup.runLatencyAvgMs. The histogram rows are tl->hist's
 * already (it holds the steady window). warmup_s is the runner's --warmup. */
void bench_result_add_txlog(cJSON *result, const struct bench_txlog *tl, double warmup_s);
/* Adds "fio": bench_fio_result_to_json(fio). */
void bench_result_add_fio(cJSON *result, const struct bench_fio_result *fio);
/* Appends to "errors" what bench_fio_result_errors says of fio's output: failed jobs, jobs
 * without I/O, latencies missing and why. The `fio` and `parse fio` commands both use it. */
void bench_result_add_fio_errors(cJSON *result, const struct bench_fio_result *fio);
/* What an init did, for its result. */
struct bench_init_outcome {
    bool skipped;      /* --skip-if-initialized found the tables: why says so */
    bool complete;     /* pgbench -i ran to its end */
    int scale;         /* -s */
    double duration_s; /* how long pgbench -i ran (or the check, when skipped); < 0 unknown */
    const char *why;   /* what the tables were found like before (may be NULL or "") */
    const char *steps; /* the -I steps run; NULL when skipped */
};
/* Adds "init": {"skipped", "reason", "scale", "steps", "durationSeconds"}. The reason is why when
 * skipped, else "initialized scale 50 in 12.3 s" followed by " (why)" when there is a why, or
 * "initialization of scale 50 failed". */
void bench_result_add_init(cJSON *result, const struct bench_init_outcome *o);
/* Adds "window": the start barrier (Unix seconds; nothing is added when it is 0: no barrier)
 * and when the child really started and ended, as seconds after it; seen (0: not recorded) is
 * when the runner read the barrier (window.seenSeconds). */
void bench_result_add_window(cJSON *result, double barrier, double seen, double start, double end);
/* Appends a message to "errors" (truncated to BENCH_PGBENCH_MAX_ERROR_LEN bytes). */
void bench_result_add_error(cJSON *result, const char *msg);
/* Attaches a diagnostics section at its row of the contract table: BK_WAIT_EVENTS, BK_SERVER,
 * BK_CHECKS_DATASET, BK_CHECKS_LITTLES_LAW or BK_CHECKS_REPLICA (those go under "checks").
 * Takes ownership of value, also on failure; replaces an existing one. Returns 0 or -EINVAL (NULL
 * value or result, or an id without a result path). */
int bench_result_set_diagnostic(cJSON *result, enum bench_field_id id, cJSON *value);

/* True when a pgbench run is complete: exit status 0, the final report was printed, no client
 * aborted and pgbench did not say "Run was aborted". */
bool bench_pgbench_complete(const struct bench_pgbench_result *pg, int exit_status);

/* Little's law, the one computation of it: clients at latency_avg_ms predict clients /
 * (latency_avg_ms / 1000) tps (into *predicted when not NULL); returns how far measured_tps is from
 * that, (measured - predicted) / predicted * 100, or NAN when clients or latency is not above 0
 * or measured_tps is not finite. checks.littlesLaw is written with it, and a reader that has only
 * status (clients, summary.latencyMs.avg, summary.tps) computes the deviation with it too. */
double bench_littles_law(double clients, double latency_avg_ms, double measured_tps,
                         double *predicted);
/* For checks.littlesLaw: predictedTps = clients / (latencyAvgMs / 1000); deviationPct =
 * (measuredTps - predictedTps) / predictedTps * 100. Returns NULL when latency <= 0, clients <= 0
 * or measured_tps is not finite.
 * With -R (throttled) or -C the deviation is expected; "note" says so when throttled is true. */
cJSON *bench_check_littles_law(int clients, double latency_avg_ms, double measured_tps,
                               bool throttled);
/* For checks.dataset: {"databaseBytes","sharedBuffersBytes","fitsInSharedBuffers","ratio",
 * "warning"}; warning set when the database fits in shared_buffers (the run measures memory, not
 * storage). */
cJSON *bench_check_dataset(int64_t database_bytes, int64_t shared_buffers_bytes);

/* The compact summary for the termination log: always valid JSON and strictly shorter than
 * limit bytes (limit >= 256; use BENCH_COMPACT_LIMIT). Keeps schemaVersion, kind, complete,
 * worker, exitCode, the scalar summary fields, per-fio-job iops/p99, and as many (truncated)
 * errors as fit, plus "truncated": true when anything was cut. Works on any object made by
 * bench_result_new (even one with only errors). Caller frees; never NULL. */
char *bench_result_compact(const cJSON *result, size_t limit);

/* Multi-line human-readable summary (for stderr). Caller frees; never NULL. */
char *bench_result_human(const cJSON *result);

/* Reader for the controller. Finds the last non-empty line of a pod log (or a termination
 * message) that parses as a JSON object with schemaVersion 1, and returns it in *out (caller
 * owns). Returns 0, -ENOENT (no result line) or -EPROTO (schemaVersion other than 1; message in
 * err). */
int bench_result_from_log(const char *log, size_t len, cJSON **out, char *err, size_t errlen);
/* Validates a parsed result object: schemaVersion == 1, kind known, complete boolean, summary an
 * object when present, histogram readable when present. Returns 0 or -EINVAL (message in err). */
int bench_result_validate(const cJSON *result, char *err, size_t errlen);

#endif
