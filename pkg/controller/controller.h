/* pkg/controller: the operator's controllers of BenchmarkRun and BenchmarkSweep over pkg/kube.
 *
 *   controller.c  the run controller: informers, work queue (this header)
 *   reconcile.c   ctrl_decide, the run's state machine as a pure function: observed -> plan
 *   sweep_decide.c  ctrl_sweep_decide, the sweep's, as pure (an enum, a paragraph per phase)
 *   executor.c    a plan carried out against the API server, one state at a time
 *   sweep.c       the BenchmarkSweep controller
 *   loop.c        what both run their keys with: namespace, queue, executor, the sync gate
 *   cache.c       what the informers keep of each object; events.c: the Event sender
 *   progress.c    live progress from the workers' log records
 *   metrics.c     /metrics' families and format; httpd.c: the probes server; leader.c: the Lease
 *   margin.c      the start barrier's margin, learned from when the workers read it
 *   cmdline.c     the operator's flags
 *
 * Owns when and why the operator writes: reconciles, phases and conditions decided, Events,
 * creates and deletes, retries. The objects themselves (specs, manifests, status pieces, the
 * result ConfigMap) are pkg/api's. Must not know how the API server is spoken to (pkg/kube:
 * requests, watches, caches, queues), what pgbench or fio print or how worker results merge
 * (pkg/bench; result fields are read and written by the contract's ids, never by key), nor libpq.
 * Nothing here prints (pkg/util/log.h) or exits; ctrl_decide and ctrl_sweep_decide send no
 * requests.
 *
 * controller.c: the BenchmarkRun controller's informers and work queue.
 *
 * Watches BenchmarkRuns (one namespace or all), and Jobs and Pods carrying the label
 * pgbench.dev/benchmarkrun; every event enqueues the owning BenchmarkRun's key. It also watches
 * Warning Events (field selector type=Warning), keeping only the few that say why a worker cannot
 * start (ctrl_event_relevant: FailedMount of a run's pod, ProvisioningFailed of a fio claim,
 * FailedCreate of a run's Job), trimmed to a few fields. Each key the queue hands out, once the
 * caches have synced, is reconciled by the executor (executor.h: ctrl_decide's plan carried out,
 * result ConfigMap and status first, then creates and deletes, the start barrier's annotations,
 * then Events); the Events it and the sweep controller
 * send go through events.h's sender (named per transition, retried, not sent twice). It must not
 * know what to decide (reconcile.c) or how a plan is carried out (executor.c). All writes use
 * fieldValidation=Strict. */
#ifndef PGBO_CONTROLLER_CONTROLLER_H
#define PGBO_CONTROLLER_CONTROLLER_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "pkg/api/manifest.h"
#include "pkg/controller/metrics.h"
#include "pkg/kube/kube.h"
#include "pkg/util/buf.h"

struct ctrl_options {
    const char *namespace; /* NULL or "" = all namespaces */
    int workers;           /* concurrent reconciles (queue workers) */
    struct api_config cfg;
};

struct ctrl_controller;

int ctrl_controller_new(uv_loop_t *loop, struct kube_client *kc, const struct ctrl_options *o,
                        struct ctrl_controller **out);
/* Starts the informers and the queue. */
int ctrl_controller_start(struct ctrl_controller *c);
/* Every informer has completed its first list. */
bool ctrl_controller_synced(const struct ctrl_controller *c);
/* Stops dispatching new reconciles; in-flight ones finish. */
void ctrl_controller_stop(struct ctrl_controller *c);
/* Frees everything; requests still in flight must have been cancelled (kube_client_free). */
void ctrl_controller_free(struct ctrl_controller *c);

struct ctrl_events;
/* The controller's Event sender (events.h), for the sweep controller's Events; valid while c is. */
struct ctrl_events *ctrl_controller_events(struct ctrl_controller *c);

/* The controller's numbers for /metrics (pkg/controller/metrics.h); out->cache is c's
 * BenchmarkRun informer, valid while c is. */
void ctrl_controller_metrics_source(const struct ctrl_controller *c,
                                    struct ctrl_metrics_controller *out);

#endif
