/* pkg/controller: the operator's controllers of BenchmarkRun and BenchmarkSweep over pkg/kube.
 *
 *   controller.c  the run controller: informers, work queue, the Event sender (this header)
 *   reconcile.c   ctrl_decide, the run's state machine as a pure function: observed -> plan
 *   executor.c    a plan carried out against the API server, one state at a time
 *   spec.c        the run's spec parsed, defaulted and validated
 *   manifest.c    the children (Jobs, PVC, HPA) and the BenchmarkRun resource
 *   status.c      conditions and the result projected into status (through pkg/bench/fields.h)
 *   resultcm.c    the result ConfigMap; progress.c: live progress from the workers' log records
 *   phase.c       the phases and their names; sweep.c: the BenchmarkSweep controller
 *   metrics.c     /metrics; httpd.c: the probes server; leader.c: the Lease
 *   cmdline.c     the operator's flags
 *
 * Owns what the operator decides and writes: phases, conditions, Events, the children, their
 * names and the runners' environment, and status outside the result contract's rows. Must not
 * know how the API server is spoken to (pkg/kube: requests, watches, caches, queues), what
 * pgbench or fio print or how worker results merge (pkg/bench; result fields are read and
 * written by the contract's ids, never by key), nor libpq (of pkg/pg only conninfo.h's struct).
 * Nothing here prints (pkg/util/log.h) or exits. The parsers, ctrl_decide, ctrl_sweep_decide and
 * the manifest builders send no requests, which is how the plugin (pkg/plugin) reuses them.
 *
 * controller.c: the BenchmarkRun controller's informers, work queue and Events.
 *
 * Watches BenchmarkRuns (one namespace or all), and Jobs and Pods carrying the label
 * pgbench.dev/benchmarkrun; every event enqueues the owning BenchmarkRun's key. It also watches
 * Warning Events (field selector type=Warning), keeping only the few that say why a worker cannot
 * start (ctrl_event_relevant: FailedMount of a run's pod, ProvisioningFailed of a fio claim,
 * FailedCreate of a run's Job), trimmed to a few fields. Each key the queue hands out, once the
 * caches have synced, is reconciled by the executor (executor.h: ctrl_decide's plan carried out,
 * result ConfigMap and status first, then creates and deletes, the start barrier's annotations,
 * then Events); the Events it and the sweep controller
 * send go through this file's sender (named per transition, retried, not sent twice). It must not
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

/* The backoff of a key whose reconcile failed, for the run and the sweep controllers' queues:
 * CTRL_QUEUE_BASE_MS * 2^failures, at most CTRL_QUEUE_MAX_MS. */
#define CTRL_QUEUE_BASE_MS 50
#define CTRL_QUEUE_MAX_MS 60000

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

struct ctrl_event;
/* Sends an Event about obj (kind, e.g. "BenchmarkSweep", of pgbench.dev/v1alpha1; its metadata
 * name, namespace and uid) as the controller sends its runs' Events: named by ctrl_event_name (a
 * transition sent twice is created once), not sent again by this process, retried with backoff
 * after a transient failure. */
void ctrl_controller_event(struct ctrl_controller *c, const char *kind, const cJSON *obj,
                           const struct ctrl_event *e);
/* Forgets what was sent about an object (it was deleted). */
void ctrl_controller_event_forget(struct ctrl_controller *c, const char *kind, const char *ns,
                                  const char *name);

/* The controller's numbers for /metrics (pkg/controller/metrics.h); out->cache is c's
 * BenchmarkRun informer, valid while c is. */
void ctrl_controller_metrics_source(const struct ctrl_controller *c,
                                    struct ctrl_metrics_controller *out);

/* Trims cached objects to what the controller reads (exported for tests). */
void ctrl_transform_benchmarkrun(cJSON *obj, void *ud);
void ctrl_transform_job(cJSON *obj, void *ud);
void ctrl_transform_pod(cJSON *obj, void *ud);
/* Events: {metadata: {name, namespace, resourceVersion}, involvedObject: {kind, name}, reason,
 * message (at most CTRL_EVENT_MESSAGE_MAX bytes), time (the last time it was seen)}. */
void ctrl_transform_event(cJSON *obj, void *ud);
/* A (transformed) event the reconciler reads: FailedMount of a pod named like a worker
 * (<br>-init-..., <br>-run-...), ProvisioningFailed of a claim <br>-fio, FailedCreate of a Job
 * <br>-init or <br>-run. */
bool ctrl_event_relevant(const cJSON *obj, void *ud);
#define CTRL_EVENT_MESSAGE_MAX 512

#endif
