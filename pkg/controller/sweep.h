/* pkg/controller/sweep: the controller of BenchmarkSweeps, a series of BenchmarkRuns that vary
 * one field, run one at a time, and their analysis (peak, USL fit, latency knee, verdict).
 *
 * What to do is decided by ctrl_sweep_decide (sweep_decide.h, the phases and the runs the sweep
 * owns); the numbers come from pkg/bench/sweep_stats.h; this file reads the caches and carries
 * the plans out. */
#ifndef PGBO_CONTROLLER_SWEEP_H
#define PGBO_CONTROLLER_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "pkg/controller/reconcile.h"
#include "pkg/controller/sweep_decide.h"
#include "pkg/kube/kube.h"

#include "pkg/api/sweep_spec.h"

/* A JSON merge patch (RFC 7386) that turns old into new: changed members, null for removed
 * ones, objects recursively, arrays whole. NULL when they are equal. */
cJSON *ctrl_merge_diff(const cJSON *old_obj, const cJSON *new_obj);

/* The controller of BenchmarkSweeps: its own informers (sweeps; BenchmarkRuns labelled
 * pgbench.dev/sweep), its own queue and its own executor (executor.h: the same write semantics
 * as the runs': status merge patch with the observed resourceVersion, a 409 read again and
 * decided again, the written object put into the cache, create expectations, refusals for good
 * not retried, Events sent and retried by ev, reconciles counted), beside the BenchmarkRun
 * controller. */
struct ctrl_sweeper;
struct ctrl_events;
/* ns NULL or "" = all namespaces. Events go through ev (events.h; NULL: no Events), which must
 * outlive the sweeper. */
int ctrl_sweeper_new(uv_loop_t *loop, struct kube_client *kc, const char *ns, int workers,
                     struct ctrl_events *ev, struct ctrl_sweeper **out);
/* Calls fn(sweep, ctx) for each cached BenchmarkSweep (metadata, spec, status), for /metrics. */
void ctrl_sweeper_foreach(const struct ctrl_sweeper *s, void (*fn)(const cJSON *sweep, void *ctx),
                          void *ctx);
int ctrl_sweeper_start(struct ctrl_sweeper *s);
struct ctrl_metrics_controller;
/* The sweep controller's reconcile counters, queue depth and reconciles in flight, for /metrics
 * (the cache members of out stay empty). */
void ctrl_sweeper_metrics_source(const struct ctrl_sweeper *s, struct ctrl_metrics_controller *out);
bool ctrl_sweeper_synced(const struct ctrl_sweeper *s);
void ctrl_sweeper_stop(struct ctrl_sweeper *s);
/* Requests still in flight must have been cancelled (kube_client_free) or be none. */
void ctrl_sweeper_free(struct ctrl_sweeper *s);

#endif
