/* pkg/controller/cache_keep.h: the status paths the controllers read back from their caches,
 * from the read-back column of pkg/bench/fields.def (util_jkeep_paths keeps them). Generated
 * by scripts/generate.sh (make generate); do not edit. Included by pkg/controller/cache.c. */
#ifndef PGBO_CONTROLLER_CACHE_KEEP_H
#define PGBO_CONTROLLER_CACHE_KEEP_H
/* clang-format off */

/* a BenchmarkRun that has not ended (RB_LIVE) */
static const char *const ctrl_keep_run_live[] = {
    "phase",
    "observedGeneration",
    "startedGeneration",
    "startTime",
    "readyAt",
    "startAt",
    "conditions",
    "hpaTimeline",
    "summary.failed",
    "summary.tps",
    "summary.latencyMs.avg",
    "summary.latencyMs.p50",
    "summary.latencyMs.p90",
    "summary.latencyMs.p95",
    "summary.latencyMs.p99",
    "summary.latencyMs.p999",
    "progress",
    NULL,
};

/* a BenchmarkRun that has ended (RB_DONE) */
static const char *const ctrl_keep_run_done[] = {
    "phase",
    "observedGeneration",
    "startedGeneration",
    "startAt",
    "conditions",
    "summary.failed",
    "summary.tps",
    "summary.latencyMs.avg",
    "summary.latencyMs.p50",
    "summary.latencyMs.p90",
    "summary.latencyMs.p95",
    "summary.latencyMs.p99",
    "summary.latencyMs.p999",
    "diagnostics.verdictClass",
    NULL,
};

/* a BenchmarkRun of a sweep, in the sweep controller's cache (RB_SWEEP) */
static const char *const ctrl_keep_sweep_run[] = {
    "phase",
    "clients",
    "message",
    "summary.transactions",
    "summary.failed",
    "summary.aborted",
    "summary.tps",
    "summary.latencyMs.avg",
    "summary.latencyMs.p50",
    "summary.latencyMs.p99",
    "diagnostics.waitEvents",
    "diagnostics.verdict",
    "diagnostics.verdictClass",
    NULL,
};
/* clang-format on */

#endif
