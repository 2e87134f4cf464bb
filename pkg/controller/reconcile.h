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
 *   Initializing  The init Job <br>-init runs once. Complete, or its pod Succeeded (before the
 *                 Job controller says so) -> Running; Failed -> Failed with the init pod's error.
 *   Running       On entry the HPA, the fio PVC and the Indexed run Job are created (a create
 *                 that finds the object already there is fine). Once every worker index has a
 *                 Ready pod, readyAt = now and the start barrier startAt = now + the margin
 *                 (margin.h: learned from what the runners saw) are stored in status, then
 *                 startAt is set on every run pod as annotation pgbench.dev/start-at (plan.
 *                 annotate), which the runners read from a downwardAPI file; a published barrier
 *                 is never replaced, pods lacking it get the same value. The run's deadline and
 *                 WorkersBlocked count from the Running entry (+ the start delay for the
 *                 deadline), not from the barrier. With an HPA the target's replicas are sampled
 *                 into status.hpaTimeline every few seconds. Every progress interval the
 *                 running workers' log tails are read (CTRL_NEED_PROGRESS): status.progress and,
 *                 while a worker retries its target, condition TargetUnreachable (also during
 *                 Initializing, for the init pod). The run Job finished -> Collecting. Every
 *                 worker index has a Succeeded pod (the Job controller marks the Job Complete
 *                 later): the results are read and the run ends in this reconcile, as
 *                 Collecting would (its Event sent, its status never written). A worker whose
 *                 pod Succeeded while others run has its result read at once
 *                 (CTRL_NEED_EARLY_RESULTS), so the collection reads only the last ones.
 *   Collecting    The caches may disagree: a Job watch can be ahead of the pod watch. So when a
 *                 worker's cached pod has not terminated (or is missing), its pods are read from
 *                 the API server first; a pod still running is waited for (requeue), up to
 *                 CTRL_POD_SETTLE_S after the Job finished. A worker fails only on its pod's own
 *                 terminated state. Each worker's result is read (the pod log's result line,
 *                 else the termination message's compact summary: then condition
 *                 ResultDetailUnavailable says whose detail is missing and why), aggregated, and
 *                 written to status -> Succeeded, or Failed naming the failed worker's pod and
 *                 error (partial results are kept). The HPA is deleted unless kept;
 *                 cleanupPolicy Delete removes the Jobs and the PVC.
 *   Succeeded, Failed  Terminal. Cleanup is re-applied idempotently.
 */
#ifndef PGBO_CONTROLLER_RECONCILE_H
#define PGBO_CONTROLLER_RECONCILE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "pkg/api/manifest.h"
#include "pkg/controller/progress.h"
#include "pkg/api/resultcm.h"
#include "pkg/api/status.h"
#include "pkg/controller/margin.h"
#include "pkg/kube/kube.h"

#define CTRL_MAX_PODS 600
/* Warning events read by one decision (FailedMount, ProvisioningFailed, FailedCreate of the run's
 * pods, fio claim and Jobs); more are ignored. */
#define CTRL_MAX_EVENTS 32
#define CTRL_HPA_POLL_MS 2000
#define CTRL_RESYNC_MS 60000
/* Workers not started this long after their phase began are reported, with the reason
 * (condition WorkersBlocked). */
#define CTRL_BLOCKED_GRACE_S 30
/* A phase whose Job has not ended this long after its deadline (and activeDeadlineSeconds) is
 * failed by the operator itself, and the Job deleted (a Job made before deadlines existed). */
#define CTRL_DEADLINE_GRACE_S 60
#define CTRL_SPEC_ANNOTATION "pgbench.dev/spec"
/* A worker pod still running after its Job finished is waited for this long (the Job controller
 * deletes the active pods of a failed Job; the kubelet stops them within their grace period),
 * looked at again every CTRL_POD_RECHECK_MS. */
#define CTRL_POD_SETTLE_S 300
#define CTRL_POD_RECHECK_MS 2000
/* The status of a run in Collecting while its results are read (also its Event's message). */
#define CTRL_COLLECTING_MESSAGE "the run Job finished; collecting worker results"
/* Events a status implies are sent again (idempotently) while their transition is this recent:
 * the API server's default event TTL. */
#define CTRL_EVENT_RESEND_S 3600

/* The spec snapshot annotated on child Jobs at start (immutability after the start). */

/* How much of a worker's result could be read (ctrl_observed.result_detail). */
enum ctrl_detail {
    CTRL_DETAIL_FULL = 0,        /* the result line of the pod log */
    CTRL_DETAIL_LOG_UNAVAILABLE, /* the log could not be read: the compact termination summary */
    CTRL_DETAIL_LOG_TRUNCATED,   /* the log's result line was cut: likewise */
};

enum ctrl_fetch_state {
    CTRL_FETCH_NONE = 0,
    CTRL_FETCH_OK,
    CTRL_FETCH_NOT_FOUND,
    CTRL_FETCH_ERROR
};

struct ctrl_kept_result; /* collect.h */

struct ctrl_observed {
    const cJSON *br;                  /* the BenchmarkRun */
    const cJSON *init_job;            /* cached <br>-init or NULL */
    const cJSON *run_job;             /* cached <br>-run or NULL */
    const cJSON *pods[CTRL_MAX_PODS]; /* cached pods labelled with this run */
    int n_pods;
    /* Cached Warning events about those pods, the fio claim and the Jobs, as
     * ctrl_transform_event leaves them: {metadata, involvedObject: {kind, name}, reason, message,
     * time}. They say why a pod waits where its status does not (a volume that cannot be mounted,
     * a claim that cannot be provisioned, pods the API server refused). */
    const cJSON *events[CTRL_MAX_EVENTS];
    int n_events;
    double now; /* Unix seconds */
    const struct api_config *cfg;
    /* How long after the last worker pod is seen Ready the start barrier is (margin.h: learned
     * from the runners' records); 0: ctrl_margin_ms(NULL), the default. */
    long start_margin_ms;

    /* Filled by the executor when the plan asked for them (plan.needs). */
    enum ctrl_fetch_state scale_target; /* GET of the HPA's scale target */
    char scale_target_error[256];
    enum ctrl_fetch_state scale; /* GET .../scale of the target during Running */
    int scale_replicas;
    /* pods[] were read from the API server just now (CTRL_NEED_PODS), not from the cache */
    bool pods_fresh;
    bool results_fetched; /* worker results below are complete */
    /* The reads of CTRL_NEED_EARLY_RESULTS were done: the executor keeps what they read until
     * the run is collected (results[] stays empty for them). */
    bool early_fetched;
    /* by worker index, owned by the executor: what the reconciler reads of each result, slim
     * where kept[i] holds the whole one (pkg/controller/collect.h), else the whole result */
    cJSON *results[API_MAX_WORKERS];
    struct ctrl_kept_result *kept[API_MAX_WORKERS];
    char *result_errors[API_MAX_WORKERS]; /* why a result, or (detail not FULL) its detail, is
                                              missing; owned likewise */
    enum ctrl_detail result_detail[API_MAX_WORKERS];
    /* With CTRL_NEED_PROGRESS: what each worker's log tail said (by worker index; n_progress
     * entries, owned by the executor). */
    bool progress_fetched;
    struct ctrl_worker_progress *progress;
    int n_progress;
    /* With CTRL_NEED_NODES: the cluster's Nodes (a NodeList's items, owned by the executor), or
     * why they could not be read (condition WorkersShareNode, pkg/api/placement.h). */
    enum ctrl_fetch_state nodes;
    const cJSON *node_items;
    char nodes_error[256];
    /* A create/delete the executor could not do (terminal API error): reason + message. */
    const char *error_reason;
    const char *error_message;
};

#define CTRL_NEED_SCALE_TARGET 0x1
#define CTRL_NEED_SCALE 0x2
#define CTRL_NEED_RESULTS 0x4
#define CTRL_NEED_PODS 0x8      /* the run's pods from the API server, not the cache */
#define CTRL_NEED_PROGRESS 0x10 /* the tails of the running workers' logs (plan.progress) */
#define CTRL_NEED_NODES 0x20    /* the cluster's Nodes (two workers share one) */
/* The results of the workers whose pod Succeeded while others still run (plan.logs), read as
 * each pod ends and kept by the executor (not in obs.results) until CTRL_NEED_RESULTS asks for
 * them at the collection, where only the last workers' logs are left to read. */
#define CTRL_NEED_EARLY_RESULTS 0x40
/* A progress read asks for the last records of a log (the runner logs about one a second; the
 * kubelet counts them as tailLines), at most this many bytes. */
#define CTRL_PROGRESS_TAIL_LINES 64
#define CTRL_PROGRESS_MAX_BYTES 65536

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
    double time; /* when the transition happened; 0 = now */
};

struct ctrl_fetch_log {
    int index;
    char pod[256];
};

#define CTRL_PLAN_MAX_ACTIONS 8
#define CTRL_PLAN_MAX_EVENTS 8
struct ctrl_plan {
    unsigned needs;              /* fetch these, fill the observed fields, decide again */
    struct ctrl_fetch_log *logs; /* with CTRL_NEED_RESULTS or CTRL_NEED_EARLY_RESULTS: pods to
                                    read (n_logs of them) */
    int n_logs;
    struct ctrl_fetch_log *progress; /* with CTRL_NEED_PROGRESS: running pods whose log tail to
                                        read (n_progress of them) */
    int n_progress;
    char scale_kind[32]; /* StatefulSet or Deployment, with NEED_SCALE* */
    char scale_name[256];
    cJSON *status; /* the new status; NULL = nothing to write */
    /* The creates go before the status write (a run entering Initializing or Running): its Job
     * is made one round trip after the decision, as a Job created directly would be. Safe under
     * level-triggered reconciling: the names are deterministic, 409 AlreadyExists is success, the
     * ownerReference ties them to the run, and a decision that finds the status unwritten (a
     * restart, a 409 on the write) takes the same one again. */
    bool create_first;
    /* The result ConfigMap (pkg/api/resultcm.h), written before the status: created, or on
     * 409 AlreadyExists replaced when its data differ (left when identical). A refusal for good
     * (403, 422, ...) ends the run without it: status.resultRef is dropped, a Warning Event
     * says why; anything else retries the reconcile with nothing written. */
    cJSON *result_cm;
    struct ctrl_action actions[CTRL_PLAN_MAX_ACTIONS];
    int n_actions;
    struct ctrl_event events[CTRL_PLAN_MAX_EVENTS];
    int n_events;
    /* Actions and Events past the caps, not in the plan: the executor logs and counts them. */
    int dropped_actions, dropped_events;
    long requeue_ms; /* > 0: look again after this long */
    bool retry;      /* a transient problem: requeue with backoff */
    char phase[16];  /* phase after this plan (for logs/metrics) */
    /* After the status write and the actions: the run pods to annotate with API_START_ANNOTATION
     * = start_at (n_annotate of them; a pod gone meanwhile is fine). */
    struct ctrl_fetch_log *annotate;
    int n_annotate;
    char start_at[40];
    /* A run collected: the slowest worker's notice delay, status.readyAt to its read of the
     * barrier (seconds; 0 = unknown), for the margin's learning (margin.h) once the status is
     * written. */
    double start_notice_s;
};

/* Decides; the caller frees the plan with ctrl_plan_free. Returns 0 or -errno. */
int ctrl_decide(const struct ctrl_observed *obs, struct ctrl_plan *plan);
void ctrl_plan_free(struct ctrl_plan *plan);
/* Adds an Event (reason, printf message) to plan; past CTRL_PLAN_MAX_EVENTS it is counted in
 * plan->dropped_events instead and false is returned. */
bool ctrl_plan_event(struct ctrl_plan *plan, bool warning, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The Events the status of br records transitions for, into out (at most max; returns how many):
 * the phase's own (reason = the phase, message = its condition's, as ctrl_decide emitted it; a
 * Succeeded run's Collecting too, whose message is fixed) and one per condition that comes with a
 * Warning (WorkersBlocked, SpecLocked, WorkersSkewed, ResultDetailUnavailable while True), each
 * only while its transition is younger than CTRL_EVENT_RESEND_S. With ctrl_event_name the executor
 * re-sends them after a restart: one that was sent already is answered 409 AlreadyExists. */
int ctrl_status_events(const cJSON *br, double now, struct ctrl_event *out, int max);
/* The Event's name: "<run>.<16 hex digits>", a hash of the run's uid, the Event's type, reason
 * and message. The same transition always gets the same name, so sending it twice creates it
 * once. */
void ctrl_event_name(const cJSON *br, const struct ctrl_event *e, char *out, size_t len);
/* The core/v1 Event recording e about obj (kind of pgbench.dev/v1alpha1; obj's metadata name,
 * namespace and uid), named name (ctrl_event_name), from cfg's component and instance, stamped
 * e->time (0: now), count 1. NULL when obj has no name or namespace; else the caller's. */
cJSON *ctrl_event_object(const char *kind, const cJSON *obj, const struct ctrl_event *e,
                         const char *name, const struct api_config *cfg);

/* Worker index of a pod of an Indexed Job (annotation or label
 * batch.kubernetes.io/job-completion-index), -1 if none. */
int ctrl_pod_index(const cJSON *pod);
/* "Complete", "Failed" or NULL from a Job's conditions. */
const char *ctrl_job_finished(const cJSON *job);

#endif
