/* pkg/controller/sweep: BenchmarkSweep, a series of BenchmarkRuns that vary one field, run one at
 * a time, and their analysis (peak, USL fit, latency knee, verdict).
 *
 * The sweep owns one BenchmarkRun per step and repeat, named <sweep>-s<i>-r<j>, labelled
 * pgbench.dev/sweep=<sweep> and with an ownerReference (controller: true) to the sweep, so the
 * garbage collector deletes them with it. ctrl_sweep_decide() is a pure function of the sweep (its
 * spec and status) and its runs as cached: it walks the steps in order, takes each finished run's
 * numbers (from the run, else from what status recorded before: a run deleted later is not run
 * again), and stops at the first run that has not finished (wait for it) or does not exist (create
 * it). So two runs never go at once, and an operator restarted mid-sweep resumes at the right step;
 * a create that races the cache is answered 409 AlreadyExists, which is fine.
 *
 * Phases (status.phase): Pending (nothing created yet) -> Running -> Succeeded (every step ran),
 * Stopped (a finished run crossed spec.stopWhen: status.stopReason), or Failed (a refused spec,
 * condition Failed/InvalidSpec, or a run the API server refused). A failed run is recorded in its
 * step and the sweep goes on. Terminal phases are not left again.
 *
 * Only the first run keeps spec.template.workload.pgbench.init (init runs once). */
#ifndef PGBO_CONTROLLER_SWEEP_H
#define PGBO_CONTROLLER_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "pkg/controller/reconcile.h"
#include "pkg/kube/kube.h"

#include "pkg/api/sweep_spec.h"

/* A running sweep is looked at again this often even without an event. */
#define CTRL_SWEEP_RESYNC_MS 30000

#define CTRL_SWEEP_MAX_EVENTS 8

struct ctrl_sweep_plan {
    cJSON *status;   /* the new status; NULL = unchanged */
    cJSON *create;   /* a BenchmarkRun to create (owned), or NULL */
    long requeue_ms; /* > 0: look again after this long */
    char phase[16];  /* phase after this plan */
    /* sent once the status is written (ctrl_sweep_events) */
    struct ctrl_event events[CTRL_SWEEP_MAX_EVENTS];
    int n_events;
};

/* Decides; runs are the sweep's BenchmarkRuns as cached (any order, n_runs of them). now is Unix
 * seconds (used only for transition times). Free the plan with ctrl_sweep_plan_free. */
void ctrl_sweep_decide(const cJSON *sweep, const cJSON *const *runs, int n_runs, double now,
                       struct ctrl_sweep_plan *plan);
void ctrl_sweep_plan_free(struct ctrl_sweep_plan *plan);

/* The Events of the transition from the status old_st to new_st (either may be NULL), at most max
 * into out; returns how many. Normal StepStarted (a step got its first run), StepCompleted (a
 * step's runs all finished, one or more Succeeded: mean tps and p99), Warning StepFailed (every
 * run of a step Failed: the first run's message), and at a terminal phase Normal SweepSucceeded
 * or SweepStopped, Warning SweepFailed, each with status.message. Sent under ctrl_event_name's
 * deterministic name, so a repeated transition creates its Event once. */
int ctrl_sweep_events(const cJSON *old_st, const cJSON *new_st, struct ctrl_event *out, int max);

/* A JSON merge patch (RFC 7386) that turns old into new: changed members, null for removed
 * ones, objects recursively, arrays whole. NULL when they are equal. */
cJSON *ctrl_merge_diff(const cJSON *old_obj, const cJSON *new_obj);

/* The controller of BenchmarkSweeps: its own informers (sweeps; BenchmarkRuns labelled
 * pgbench.dev/sweep) and its own queue, beside the BenchmarkRun controller. Status first (merge
 * patch with the observed resourceVersion; 409 -> again), then the create. */
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
bool ctrl_sweeper_synced(const struct ctrl_sweeper *s);
void ctrl_sweeper_stop(struct ctrl_sweeper *s);
/* Requests still in flight must have been cancelled (kube_client_free) or be none. */
void ctrl_sweeper_free(struct ctrl_sweeper *s);

#endif
