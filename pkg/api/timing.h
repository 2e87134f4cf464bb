/* pkg/api/timing: where a run's wall time went, from apply to the collected result.
 *
 * result.json's "timing" in the result ConfigMap (rows timing.* of pkg/bench/fields.def): one
 * step per moment, each taken from the record that saw it and saying which (its source), with
 * seconds after the apply:
 *   applied            the BenchmarkRun's metadata.creationTimestamp (API server, whole seconds)
 *   initJobCreated     the init Job's creationTimestamp (with an init)
 *   initSucceeded      the init pod's container terminated.finishedAt (kubelet, whole seconds)
 *   jobCreated         the run Job's creationTimestamp
 *   podsScheduled      the latest worker pod's PodScheduled lastTransitionTime (scheduler)
 *   containersStarted  the latest worker container's startedAt (kubelet)
 *   allReady           status.readyAt: the operator saw every worker pod Ready (milliseconds)
 *   barrier            status.startAt: the start barrier it published
 *   barrierSeen        the latest worker's read of the barrier (runner: window.seenSeconds)
 *   pgbenchStarted     the latest worker's pgbench start (runner: window.lateSeconds)
 *   pgbenchEnded       the latest worker's pgbench end (runner: window.endSeconds)
 *   collected          the operator's clock when it had read every worker's result and wrote
 *                      this ConfigMap; the status that ends the run follows it
 * A step whose record is missing is left out. */
#ifndef PGBO_API_TIMING_H
#define PGBO_API_TIMING_H

#include <cjson/cJSON.h>

struct api_timing_in {
    const cJSON *br, *status;        /* the run and its status as it is being written */
    const cJSON *init_job, *run_job; /* NULL when absent */
    const cJSON *const *pods;        /* the run's pods (init and run roles) */
    int n_pods;
    const cJSON *const *results; /* the workers' results by index (entries may be NULL) */
    int n_results;
    double now; /* Unix seconds: collected */
};

/* The "timing" object ({steps: [{step, at, seconds, source}]}); the caller owns it. */
cJSON *api_run_timing(const struct api_timing_in *in);

#endif
