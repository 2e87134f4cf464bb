/* pkg/controller/reconcile: the BenchmarkRun state machine, as a pure function.
 *
 * ctrl_decide() looks at what is observed (the BenchmarkRun, its cached Jobs and Pods, and a few
 * values fetched on demand) and returns a plan: the new status, the children to create or delete,
 * the Events to emit and when to look again. It keeps no memory between calls, so a restarted
 * operator takes the same decisions: everything it needs is in the BenchmarkRun's status (phase,
 * startAt, conditions) or in the children, whose names are deterministic.
 *
 * States (status.phase):
 *
 *   Pending       The spec is validated (a refused spec -> Failed, condition Failed/InvalidSpec;
 *                 editing the spec of a run that never started re-evaluates it). With an HPA the
 *                 scale target must exist (else Failed/ScaleTargetNotFound). Then Initializing
 *                 (init requested) or Running. The generation at this moment is the run's spec:
 *                 later spec changes are ignored and reported by condition SpecLocked.
 *   Initializing  The init Job <br>-init runs once. Complete -> Running; Failed -> Failed with the
 *                 init pod's error.
 *   Running       On entry the start barrier startAt = now + delay is stored in status, then the
 *                 HPA, the fio PVC and the Indexed run Job are created (a create that finds the
 *                 object already there is fine). With an HPA the target's replicas are sampled
 *                 into status.hpaTimeline every few seconds. The run Job finished -> Collecting.
 *   Collecting    Each worker's result is read (termination message, else the pod log's last
 *                 line), aggregated, and written to status -> Succeeded, or Failed naming the
 *                 failed worker's pod and error (partial results are kept). The HPA is deleted
 *                 unless kept; cleanupPolicy Delete removes the Jobs and the PVC.
 *   Succeeded, Failed  Terminal. Cleanup is re-applied idempotently.
 */
#ifndef PGBO_CONTROLLER_RECONCILE_H
#define PGBO_CONTROLLER_RECONCILE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "pkg/controller/manifest.h"
#include "pkg/controller/status.h"
#include "pkg/kube/kube.h"

#define CTRL_MAX_PODS 600
#define CTRL_HPA_POLL_MS 2000
#define CTRL_RESYNC_MS 60000
/* Workers not started this long after their phase began are reported, with the reason
 * (condition WorkersBlocked). */
#define CTRL_BLOCKED_GRACE_S 30
#define CTRL_SPEC_ANNOTATION "pgbench.dev/spec"

/* The spec snapshot annotated on child Jobs at start (immutability after the start). */

enum ctrl_fetch_state {
    CTRL_FETCH_NONE = 0,
    CTRL_FETCH_OK,
    CTRL_FETCH_NOT_FOUND,
    CTRL_FETCH_ERROR
};

struct ctrl_observed {
    const cJSON *br;                  /* the BenchmarkRun */
    const cJSON *init_job;            /* cached <br>-init or NULL */
    const cJSON *run_job;             /* cached <br>-run or NULL */
    const cJSON *pods[CTRL_MAX_PODS]; /* cached pods labelled with this run */
    int n_pods;
    double now; /* Unix seconds */
    const struct ctrl_config *cfg;

    /* Filled by the executor when the plan asked for them (plan.needs). */
    enum ctrl_fetch_state scale_target; /* GET of the HPA's scale target */
    char scale_target_error[256];
    enum ctrl_fetch_state scale; /* GET .../scale of the target during Running */
    int scale_replicas;
    bool results_fetched;                  /* worker results below are complete */
    cJSON *results[CTRL_MAX_WORKERS];      /* by worker index, owned by the executor */
    char *result_errors[CTRL_MAX_WORKERS]; /* why a result is missing; owned likewise */
    /* A create/delete the executor could not do (terminal API error): reason + message. */
    const char *error_reason;
    const char *error_message;
};

#define CTRL_NEED_SCALE_TARGET 0x1
#define CTRL_NEED_SCALE 0x2
#define CTRL_NEED_RESULTS 0x4

enum ctrl_action_kind { CTRL_ACT_CREATE, CTRL_ACT_DELETE };

struct ctrl_action {
    enum ctrl_action_kind kind;
    const struct kube_resource *resource;
    char name[320];
    cJSON *object; /* create: owned by the plan */
};

struct ctrl_event {
    bool warning;
    char reason[64];
    char message[512];
};

struct ctrl_fetch_log {
    int index;
    char pod[256];
};

struct ctrl_plan {
    unsigned needs;              /* fetch these, fill the observed fields, decide again */
    struct ctrl_fetch_log *logs; /* with CTRL_NEED_RESULTS: pods to read (n_logs of them) */
    int n_logs;
    char scale_kind[32]; /* StatefulSet or Deployment, with NEED_SCALE* */
    char scale_name[256];
    cJSON *status; /* the new status; NULL = nothing to write */
    struct ctrl_action actions[8];
    int n_actions;
    struct ctrl_event events[4];
    int n_events;
    long requeue_ms; /* > 0: look again after this long */
    bool retry;      /* a transient problem: requeue with backoff */
    char phase[16];  /* phase after this plan (for logs/metrics) */
};

/* Decides; the caller frees the plan with ctrl_plan_free. Returns 0 or -errno. */
int ctrl_decide(const struct ctrl_observed *obs, struct ctrl_plan *plan);
void ctrl_plan_free(struct ctrl_plan *plan);

/* Worker index of a pod of an Indexed Job (annotation or label
 * batch.kubernetes.io/job-completion-index), -1 if none. */
int ctrl_pod_index(const cJSON *pod);
/* "Complete", "Failed" or NULL from a Job's conditions. */
const char *ctrl_job_finished(const cJSON *job);

#endif
