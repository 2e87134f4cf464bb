/* pkg/controller/sweep_decide: the BenchmarkSweep's decisions, as a pure function.
 *
 * The sweep owns one BenchmarkRun per step and repeat, named <sweep>-s<i>-r<j>, labelled
 * pgbench.dev/sweep=<sweep> and with an ownerReference (controller: true) to the sweep, so the
 * garbage collector deletes them with it. ctrl_sweep_decide() looks at the sweep (its spec and
 * status) and its runs as cached and returns a plan: the new status, the run to create, the
 * Events and when to look again. It keeps no memory between calls: a restarted operator takes the
 * same decisions, since a finished run's numbers are in the sweep's status and the runs' names
 * are deterministic. Only the first run keeps spec.template.workload.pgbench.init (init runs
 * once). The numbers come from pkg/bench/sweep_stats.h; it must not know how a plan is carried
 * out (the executor) or how Events are sent (events.h).
 *
 * Phases (status.phase, enum api_phase):
 *
 *   Pending    Nothing created yet. The spec is parsed; a refused spec -> Failed (condition
 *              Failed/InvalidSpec, the parser's message). Otherwise as Running: the walk creates
 *              the first run.
 *   Running    The status is made again from the spec and the runs: the steps are walked in
 *              order, each finished run's numbers taken from the run, else from what the status
 *              recorded before (a run deleted later is not run again), up to the first run that
 *              has not finished (waited for; looked at again every CTRL_SWEEP_RESYNC_MS) or does
 *              not exist (created: plan.create). So two runs never go at once. A failed run is
 *              recorded in its step and the sweep goes on. A finished run crossing spec.stopWhen
 *              -> Stopped (status.stopReason, condition Stopped/StopWhen); every step run ->
 *              Succeeded (condition Complete/AllStepsRun, the analysis's verdict). A run the API
 *              server refuses for good -> Failed (ctrl_sweep_refused: condition
 *              Failed/CreateFailed).
 *   Succeeded, Stopped, Failed  Terminal: never left again, nothing written.
 *
 * Any other phase (one no sweep has) is made again like Running. */
#ifndef PGBO_CONTROLLER_SWEEP_DECIDE_H
#define PGBO_CONTROLLER_SWEEP_DECIDE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "pkg/api/sweep_spec.h"
#include "pkg/controller/reconcile.h"

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
/* The plan after the API server refused the create of one of the sweep's runs for good (why:
 * what it said, naming the run): unless the sweep has ended, its status becomes phase Failed with
 * why as the message and condition Failed/CreateFailed, and the Warning Event SweepFailed. */
void ctrl_sweep_refused(const cJSON *sweep, const char *why, double now,
                        struct ctrl_sweep_plan *plan);
void ctrl_sweep_plan_free(struct ctrl_sweep_plan *plan);

/* The Events of the transition from the status old_st to new_st (either may be NULL), at most max
 * into out; returns how many. Normal StepStarted (a step got its first run), StepCompleted (a
 * step's runs all finished, one or more Succeeded: mean tps and p99), Warning StepFailed (every
 * run of a step Failed: the first run's message), and at a terminal phase Normal SweepSucceeded
 * or SweepStopped, Warning SweepFailed, each with status.message. Sent under ctrl_event_name's
 * deterministic name, so a repeated transition creates its Event once. */
int ctrl_sweep_events(const cJSON *old_st, const cJSON *new_st, struct ctrl_event *out, int max);
/* The Events of the transition the status of sweep ended with (at most max into out; returns how
 * many), as ctrl_sweep_events gave them then: at a terminal phase reached less than
 * CTRL_EVENT_RESEND_S ago, the last step's StepCompleted or StepFailed and SweepSucceeded,
 * SweepStopped or SweepFailed; else none. The executor sends them again after a restart (an
 * operator killed between the status write and its Events); one sent already is answered 409
 * AlreadyExists under its ctrl_event_name. */
int ctrl_sweep_status_events(const cJSON *sweep, double now, struct ctrl_event *out, int max);

#endif
