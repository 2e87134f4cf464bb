/* pkg/controller/cache: what the controllers' informers keep of each object. Every informer trims
 * what it caches to the members its reconciler reads (a transform, kube_informer_enqueue), so
 * memory follows the number of objects, not their size. A member read by a reconciler but not
 * kept here reads as absent: the keep-lists below and the reconcilers' reads change together. */
#ifndef PGBO_CONTROLLER_CACHE_H
#define PGBO_CONTROLLER_CACHE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

/* Trims cached objects to what the controller reads (the BenchmarkRun controller). */
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

/* A BenchmarkSweep: metadata (name, namespace, uid, generation, resourceVersion,
 * deletionTimestamp), spec and status. */
void ctrl_transform_sweep(cJSON *obj, void *ud);
/* Trims a cached run of a sweep to what ctrl_sweep_decide reads (exported for tests). */
void ctrl_transform_sweep_run(cJSON *obj, void *ud);

#endif
