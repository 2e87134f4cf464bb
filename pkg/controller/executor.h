/* pkg/controller/executor: carries out the reconciles of a controller's keys, one plan at a time:
 * the BenchmarkRun controller's (ctrl_decide's plans) and the BenchmarkSweep controller's (its
 * decide hook, env.decide: sweep.c), so both share one write semantics.
 *
 * Owns the reconciles in flight: what each one observed (copies from the caches, then what it
 * fetched), its plan (ctrl_decide, reconcile.h) and the requests that carry it out, the retries
 * of its log reads, and the create expectations. It must not know what to decide (reconcile.c),
 * how the caches are filled (controller.c's informers) or how an Event is named and sent (the
 * controller's sender, env.send_event).
 *
 * A reconcile goes through these states (enum ctrl_exec_state), in this order, skipping those
 * its plan does not need:
 *
 * CTRL_EXEC_DECIDE: the observed state is loaded from the caches (or from the API server's
 *   answers) and ctrl_decide() gives a plan. A plan that needs reads goes to FETCH; one that
 *   says retry, or an object without name, ends the reconcile (DONE); any other goes to
 *   RESULT_CM when it has a result ConfigMap, else to STATUS when it has a status, else to
 *   ACTIONS; a create-first plan (plan.create_first: a run entering Initializing or Running)
 *   goes to ACTIONS, then STATUS, then ANNOTATE.
 *
 * CTRL_EXEC_FETCH: the reads the plan asked for (scale target, scale, the run's pods, progress
 *   log tails, result logs at most LOG_PARALLEL at a time) are in flight; `pending` counts them.
 *   When the last one answers the reconcile decides again (DECIDE) with what they returned; a
 *   failed pod list ends it with an error (DONE, requeued with backoff).
 *
 * CTRL_EXEC_RESULT_CM: the result ConfigMap is created; on 409 it is read back, left when
 *   identical, replaced when it is an earlier run's, refused when it is someone else's. Refused
 *   for good (400, 403, 404, 413, 422) the run ends without it and a Warning Event says why; any
 *   other failure ends the reconcile with an error and nothing written. Then STATUS or ACTIONS.
 *
 * CTRL_EXEC_STATUS: the status is merge-patched on /status with the observed resourceVersion.
 *   409 Conflict (at most MAX_CONFLICT_RETRIES times) re-reads the object and decides again
 *   (DECIDE); 404 ends the reconcile (the object is gone); refused for good (400, 403, 422:
 *   ctrl_terminal) ends it as an error that is not retried with backoff (the key comes back with
 *   its next watch event or plan.requeue_ms); any other failure ends it with an error. Written,
 *   the answer (the object as written) goes into the cache (kube_informer_assume) and the key is
 *   queued again, as its watch event would have done; then ACTIONS.
 *
 * CTRL_EXEC_ACTIONS: the plan's creates and deletes, one at a time (`action` is the next one).
 *   A create this process made moments ago (an expectation) is skipped. AlreadyExists on create
 *   and NotFound on delete are success. A create refused for good fails the run: the reconcile
 *   decides again with the server's words as the error (DECIDE); any other failure sends the
 *   Events and ends with an error. Then ANNOTATE (STATUS for a create-first plan whose status is
 *   not written yet).
 *
 * CTRL_EXEC_ANNOTATE: the start barrier is merge-patched onto the plan's pods, all at once (the
 *   workers start at the last one's kubelet refresh; `ann` counts those not answered); a pod
 *   gone is fine, one refused ends the reconcile with an error after the others answered. Then
 *   EVENTS.
 *
 * CTRL_EXEC_EVENTS: the Events the observed status implies (env.status_events) but this process
 *   has not seen sent, then the plan's own, are handed to env.send_event (which sends and retries
 * them on its own); the reconcile ends (DONE).
 *
 * CTRL_EXEC_DONE: the key is handed back to the queue (requeued after plan.requeue_ms, or with
 *   backoff after an error) and the reconcile is freed. */
#ifndef PGBO_CONTROLLER_EXECUTOR_H
#define PGBO_CONTROLLER_EXECUTOR_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "pkg/api/manifest.h"
#include "pkg/controller/metrics.h"
#include "pkg/controller/reconcile.h"
#include "pkg/kube/kube.h"

enum ctrl_exec_state {
    CTRL_EXEC_DECIDE,
    CTRL_EXEC_FETCH,
    CTRL_EXEC_RESULT_CM,
    CTRL_EXEC_STATUS,
    CTRL_EXEC_ACTIONS,
    CTRL_EXEC_ANNOTATE,
    CTRL_EXEC_EVENTS,
    CTRL_EXEC_DONE,
};
/* "decide", "fetch", ... (for logs); "?" for a value outside the enum. */
const char *ctrl_exec_state_name(enum ctrl_exec_state s);

/* Sends one Event about the object br (valid during the call) whose queue key is key; again: the
 * observed status implies it, it is not the plan's. */
typedef void (*ctrl_exec_event_fn)(void *ctx, const char *key, const cJSON *br,
                                   const struct ctrl_event *e, bool again);

/* The plan for the object obj (as cached or as just read again; valid during the call) whose
 * queue key is key, of a controller other than the BenchmarkRun's. error: a create of the last
 * plan was refused for good (the server's words: the plan should fail the object), else NULL. now
 * is Unix seconds. Fills plan as ctrl_decide would: status (a JSON merge patch for /status, NULL:
 * nothing to write), actions, events, requeue_ms, phase; needs, result_cm and annotate stay
 * empty. Returns 0, or -errno when nothing can be decided (the reconcile ends). */
typedef int (*ctrl_exec_decide_fn)(void *ctx, const char *key, const cJSON *obj, const char *error,
                                   double now, struct ctrl_plan *plan);

/* What the executor reads and writes through; borrowed, they outlive the executor. */
struct ctrl_exec_env {
    uv_loop_t *loop;
    struct kube_client *kc;
    struct kube_queue *q; /* the keys' queue: ctrl_exec_run ends every key with kube_queue_done */
    const struct kube_resource *resource; /* the keys' objects, whose status is written */
    struct kube_informer *objs;           /* their cache */
    /* objs' transform, for an object read from the API server after a 409 */
    void (*transform)(cJSON *obj, void *ud);
    /* NULL: the BenchmarkRun's ctrl_decide over the run, its Jobs, pods and Warning events (from
     * the three caches below), with its fetches */
    ctrl_exec_decide_fn decide;
    /* The Events the object's status records (ctrl_status_events, ctrl_sweep_status_events),
     * sent before the plan's: those a process killed after the status write did not send. NULL:
     * none. */
    int (*status_events)(const cJSON *obj, double now, struct ctrl_event *out, int max);
    struct kube_informer *jobs, *pods, *events;
    const struct api_config *cfg;
    ctrl_exec_event_fn send_event;
    void *ctx;
};

/* The executor's counters for /metrics. */
struct ctrl_exec_stats {
    uint64_t reconciles, reconcile_errors, conflicts, creates, deletes, status_writes;
    uint64_t write_errors;
    /* a plan's Events and actions past their caps (reconcile.h), dropped: counted and logged */
    uint64_t dropped_events, dropped_actions;
    struct ctrl_metrics_histogram lat;
};

struct ctrl_exec;

/* Never fails (out of memory aborts). */
struct ctrl_exec *ctrl_exec_new(const struct ctrl_exec_env *env);
/* Reconciles key ("namespace/name", handed out by env.q): from the caches, which must have
 * synced. Ends with kube_queue_done(env.q, key), possibly after this returns. */
void ctrl_exec_run(struct ctrl_exec *x, const char *key);
/* Reconciles in flight. */
int ctrl_exec_inflight(const struct ctrl_exec *x);
const struct ctrl_exec_stats *ctrl_exec_stats(const struct ctrl_exec *x);
/* Fills out with the counters, the latencies, env.q's depth and the reconciles in flight; the
 * rest (Events, caches) zero, for the controller to add. */
void ctrl_exec_metrics(const struct ctrl_exec *x, struct ctrl_metrics_controller *out);
/* Frees the reconciles in flight (their keys are handed back to env.q as done) and x; their
 * requests must have been cancelled (kube_client_free). NULL: nothing. */
void ctrl_exec_free(struct ctrl_exec *x);

/* The backoff of a key whose reconcile failed, for the run and the sweep controllers' queues:
 * CTRL_QUEUE_BASE_MS * 2^failures, at most CTRL_QUEUE_MAX_MS. */
#define CTRL_QUEUE_BASE_MS 50
#define CTRL_QUEUE_MAX_MS 60000
/* Until every cache of a controller has synced, a key waits this long, undecided (a partial cache
 * would look like missing objects). */
#define CTRL_SYNC_WAIT_MS 200

/* Retries of a transient answer (log reads, Events): after CTRL_RETRY_BASE_MS, twice that, ...,
 * each jittered into [d/2, d]. */
#define CTRL_RETRY_BASE_MS 500
/* An answer worth trying again: none (timeout, connection; not a reply cut as TooLarge), 429,
 * or a 5xx. */
bool ctrl_transient(const struct kube_status *st);
/* An answer that will not change by trying again: 400, 403, 404, 422. */
bool ctrl_terminal(const struct kube_status *st);
/* d scaled into [d/2, d] with the xorshift64 state *rng (seeded when 0). */
uint64_t ctrl_jittered(uint64_t *rng, uint64_t d);

#endif
