/* pkg/controller/metrics: everything /metrics shows, named and formatted in one place.
 *
 * Prometheus text format 0.0.4. The numbers are read at scrape time from three sources: a running
 * controller (its counters, work queue and caches, ctrl_controller_metrics_source), the kube
 * client's counters, and the process. The per-run series (pgbench_operator_benchmarkrun_*) are
 * computed from the BenchmarkRun cache at each scrape, so a deleted run's series disappear with
 * it; they read status through the result contract's ids (pkg/bench/fields.h), in base units
 * (seconds, not the status' milliseconds). A value the status lacks (a fio run has no tps, pgbench
 * 14 counts no failures) has no series rather than a 0. The per-sweep series
 * (pgbench_operator_benchmarksweep_*) come the same way from the BenchmarkSweep cache: phase,
 * current step, peak tps, knee and the USL's N* from status.analysis. */
#ifndef PGBO_CONTROLLER_METRICS_H
#define PGBO_CONTROLLER_METRICS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/kube/kube.h"
#include "pkg/util/buf.h"

/* The Content-Type of ctrl_metrics_format's text. */
#define CTRL_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Bounds of the reconcile duration histogram, in metrics.c. */
#define CTRL_METRICS_RECONCILE_BOUNDS 13

/* Reconcile durations: bucket[i] counts durations in (bound[i-1], bound[i]] (not cumulative);
 * the last bucket those above the largest bound. Zero-initialise. */
struct ctrl_metrics_histogram {
    uint64_t bucket[CTRL_METRICS_RECONCILE_BOUNDS + 1];
    double sum;
};
void ctrl_metrics_observe(struct ctrl_metrics_histogram *h, double seconds);

/* fn gets one BenchmarkRun as the informer caches it (ctrl_transform_benchmarkrun), valid only
 * during the call. */
typedef void (*ctrl_metrics_run_fn)(const cJSON *br, void *ctx);

/* A running controller's numbers at one moment (ctrl_controller_metrics_source, or a test). */
struct ctrl_metrics_controller {
    uint64_t reconciles, reconcile_errors; /* reconciles ended, those that ended in an error */
    uint64_t conflicts;                    /* status writes answered 409 and retried */
    uint64_t creates, deletes, status_writes, events_sent, write_errors;
    uint64_t dropped_events, dropped_actions; /* a plan's, past its caps (reconcile.h) */
    struct ctrl_metrics_histogram reconcile_seconds;
    size_t queue_depth;
    int inflight;
    size_t cached_runs, cached_jobs, cached_pods;
    /* the bytes those caches and the Warning events' take (kube_informer_bytes) */
    size_t bytes_runs, bytes_jobs, bytes_pods, bytes_events;
    /* Calls fn(br, ctx) for each cached BenchmarkRun. */
    void (*foreach_run)(const void *cache, ctrl_metrics_run_fn fn, void *ctx);
    const void *cache;
};

struct ctrl_metrics_source {
    const struct ctrl_metrics_controller *ctrl; /* NULL: no controller runs here (a standby) */
    /* Calls fn(sweep, ctx) for each cached BenchmarkSweep; NULL: none (with ctrl NULL, the sweep
     * families are left out too) */
    void (*foreach_sweep)(const void *sweeps, ctrl_metrics_run_fn fn, void *ctx);
    const void *sweeps;
    /* the BenchmarkSweep controller's reconciles (pgbench_operator_sweep_reconcile_total, ...;
     * only its counters, queue and in-flight count are read); NULL: none */
    const struct ctrl_metrics_controller *sweep;
    const struct kube_client_stats *client; /* NULL: no client counters */
    bool leader;                            /* this instance runs the controller */
    long rss_bytes;                         /* < 0: unknown, not shown */
    /* the allocator's heap: in use by the program, and free but still held (fragments between
     * live blocks); 0: unknown, not shown */
    long heap_used_bytes, heap_free_bytes;
};

/* Appends the Prometheus text of src to out. Every family of a running operator is there, with
 * HELP and TYPE; the per-run families only have samples for runs in the cache. */
void ctrl_metrics_format(const struct ctrl_metrics_source *src, struct buf *out);

#endif
