/* The BenchmarkRun state machine (see reconcile.h for the states and transitions). */
#include "pkg/controller/reconcile.h"
#include "pkg/controller/collect.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/aggregate.h"
#include "pkg/bench/fields.h"
#include "pkg/bench/result.h"
#include "pkg/api/phase.h"
#include "pkg/api/placement.h"
#include "pkg/api/spec.h"
#include "pkg/api/timing.h"
#include "pkg/util/clock.h"

int ctrl_pod_index(const cJSON *pod)
{
    const char *s = util_jkey(util_jget(pod, "metadata.annotations"),
                              "batch.kubernetes.io/job-completion-index");
    if (!s)
        s = util_jkey(util_jget(pod, "metadata.labels"),
                      "batch.kubernetes.io/job-completion-index");
    if (!s)
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    return (*end || v < 0 || v > 100000) ? -1 : (int)v;
}

const char *ctrl_job_finished(const cJSON *job)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, util_jget(job, "status.conditions"))
    {
        const char *type = util_jstr(c, "type"), *st = util_jstr(c, "status");
        if (!type || !st || strcmp(st, "True") != 0)
            continue;
        if (strcmp(type, "Complete") == 0)
            return "Complete";
        if (strcmp(type, "Failed") == 0)
            return "Failed";
    }
    return NULL;
}

static const cJSON *job_condition(const cJSON *job, const char *type)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, util_jget(job, "status.conditions"))
    {
        const char *t = util_jstr(c, "type");
        if (t && strcmp(t, type) == 0)
            return c;
    }
    return NULL;
}

void ctrl_plan_free(struct ctrl_plan *plan)
{
    if (!plan)
        return;
    cJSON_Delete(plan->status);
    cJSON_Delete(plan->result_cm);
    for (int i = 0; i < plan->n_actions; i++)
        cJSON_Delete(plan->actions[i].object);
    free(plan->logs);
    free(plan->progress);
    free(plan->annotate);
    memset(plan, 0, sizeof(*plan));
}

/* ---- decision context ---------------------------------------------------------------------- */

struct dctx {
    const struct ctrl_observed *obs;
    struct ctrl_plan *plan;
    const char *name, *ns;
    long gen;
    cJSON *st;
    enum api_phase old_phase;
    struct api_spec spec;
    bool have_spec;
};

static bool plan_event_v(struct ctrl_plan *p, bool warning, const char *reason, const char *fmt,
                         va_list ap) __attribute__((format(printf, 4, 0)));

static bool plan_event_v(struct ctrl_plan *p, bool warning, const char *reason, const char *fmt,
                         va_list ap)
{
    if (p->n_events >= CTRL_PLAN_MAX_EVENTS) {
        p->dropped_events++;
        return false;
    }
    struct ctrl_event *e = &p->events[p->n_events++];
    memset(e, 0, sizeof(*e));
    e->warning = warning;
    (void)snprintf(e->reason, sizeof(e->reason), "%s", reason);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    (void)vsnprintf(e->message, sizeof(e->message), fmt, ap);
    return true;
}

bool ctrl_plan_event(struct ctrl_plan *plan, bool warning, const char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = plan_event_v(plan, warning, reason, fmt, ap);
    va_end(ap);
    return ok;
}

static void event(struct dctx *d, bool warning, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void event(struct dctx *d, bool warning, const char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)plan_event_v(d->plan, warning, reason, fmt, ap);
    va_end(ap);
}

static void action(struct dctx *d, enum ctrl_action_kind kind, const struct kube_resource *r,
                   const char *name, cJSON *obj)
{
    struct ctrl_plan *p = d->plan;
    if (p->n_actions >= CTRL_PLAN_MAX_ACTIONS) {
        p->dropped_actions++;
        cJSON_Delete(obj);
        return;
    }
    struct ctrl_action *a = &p->actions[p->n_actions++];
    a->kind = kind;
    a->resource = r;
    (void)snprintf(a->name, sizeof(a->name), "%s", name);
    a->object = obj;
}

static enum api_phase phase_of(const cJSON *st)
{
    return api_phase_parse(bench_status_str(st, BK_STATUS_PHASE));
}

static void cond(struct dctx *d, const char *type, const char *status, const char *reason,
                 const char *message);

/* Live progress belongs to a phase whose pods run: it goes when the run leaves them (null: the
 * status is written as a merge patch, where only null removes a member). */
static void end_progress(struct dctx *d)
{
    bench_status_clear(d->st, BK_STATUS_PROGRESS);
    const cJSON *c = api_cond_get(d->st, API_COND_TARGET_UNREACHABLE);
    const char *st = c ? util_jstr(c, "status") : NULL;
    if (st && strcmp(st, "True") == 0)
        cond(d, API_COND_TARGET_UNREACHABLE, "False", "WaitEnded", "the workers no longer wait");
}

static void set_phase(struct dctx *d, enum api_phase phase)
{
    if (d->old_phase == API_PHASE_INITIALIZING && phase != API_PHASE_INITIALIZING)
        ctrl_progress_end_init(d->st);
    if (phase != API_PHASE_INITIALIZING && phase != API_PHASE_RUNNING)
        end_progress(d);
    /* readyAt serves the run while it goes (the margin's learning, the result's timing, which
     * keeps it as allReady); an ended run's describe stays as short as before */
    if (phase == API_PHASE_SUCCEEDED || phase == API_PHASE_FAILED)
        bench_status_clear(d->st, BK_STATUS_READY_AT);
    bench_status_set_str(d->st, BK_STATUS_PHASE, api_phase_name(phase));
    (void)snprintf(d->plan->phase, sizeof(d->plan->phase), "%s", api_phase_name(phase));
}

static void set_message(struct dctx *d, const char *msg)
{
    char m[API_MAX_MESSAGE];
    (void)snprintf(m, sizeof(m), "%s", msg);
    bench_status_set_str(d->st, BK_STATUS_MESSAGE, m);
}

static void set_time(struct dctx *d, enum bench_field_id key)
{
    char ts[40];
    util_rfc3339(d->obs->now, 0, ts, sizeof(ts));
    bench_status_set_str(d->st, key, ts);
}

/* The generation the run started with (status.startedGeneration), 0 if not started. A run
 * started by an earlier operator (before issue 15.3) has none: its SpecLocked condition (False,
 * Started, set at the start) holds that generation as its observedGeneration. */
static long start_generation(const cJSON *st)
{
    const cJSON *g = bench_status_get(st, BK_STATUS_STARTED_GENERATION);
    if (!cJSON_IsNumber(g)) {
        const cJSON *c = api_cond_get(st, "SpecLocked");
        g = c ? cJSON_GetObjectItemCaseSensitive(c, "observedGeneration") : NULL;
    }
    return cJSON_IsNumber(g) ? (long)cJSON_GetNumberValue(g) : 0;
}

static void cond(struct dctx *d, const char *type, const char *status, const char *reason,
                 const char *msg)
{
    long g = start_generation(d->st);
    api_cond_set(d->st, type, status, reason, msg, g ? g : d->gen, d->obs->now);
}

static void add_cleanup(struct dctx *d, bool final)
{
    const struct api_spec *s = &d->spec;
    char n[300];
    if (!d->have_spec)
        return;
    if (s->hpa && !s->hpa_keep && final) {
        api_child_name(d->name, API_CHILD_HPA, n, sizeof(n));
        action(d, CTRL_ACT_DELETE, &KUBE_HPAS, n, NULL);
    }
    if (!s->cleanup_delete)
        return;
    if (d->obs->init_job || final) {
        api_child_name(d->name, API_CHILD_INIT, n, sizeof(n));
        if (d->obs->init_job || s->init)
            action(d, CTRL_ACT_DELETE, &KUBE_JOBS, n, NULL);
    }
    if (d->obs->run_job) {
        api_child_name(d->name, API_CHILD_RUN, n, sizeof(n));
        action(d, CTRL_ACT_DELETE, &KUBE_JOBS, n, NULL);
    }
    if (final && s->workload == API_WL_FIO && !s->keep_volume) {
        api_child_name(d->name, API_CHILD_FIO_PVC, n, sizeof(n));
        action(d, CTRL_ACT_DELETE, &KUBE_PVCS, n, NULL);
    }
}

static void fail(struct dctx *d, const char *reason, const char *msg, bool started)
{
    set_phase(d, API_PHASE_FAILED);
    cond(d, "Failed", "True", reason, msg);
    if (api_cond_get(d->st, "Running"))
        cond(d, "Running", "False", reason, msg);
    if (api_cond_get(d->st, "Complete"))
        cond(d, "Complete", "False", reason, msg);
    set_message(d, msg);
    set_time(d, BK_STATUS_COMPLETION_TIME);
    if (started)
        add_cleanup(d, true);
}

/* Adds the spec snapshot annotation to a child Job. */
static void annotate_spec(cJSON *job, const struct api_spec *s)
{
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(job, "metadata");
    cJSON *ann = cJSON_GetObjectItemCaseSensitive(meta, "annotations");
    if (!ann) {
        ann = cJSON_CreateObject();
        cJSON_AddItemToObject(meta, "annotations", ann);
    }
    char *txt = util_must(cJSON_PrintUnformatted(s->json));
    util_jset_str(ann, CTRL_SPEC_ANNOTATION, txt);
    free(txt);
}

static void create_init_job(struct dctx *d)
{
    cJSON *job = api_manifest_init_job(d->obs->br, &d->spec, d->obs->cfg);
    annotate_spec(job, &d->spec);
    action(d, CTRL_ACT_CREATE, &KUBE_JOBS, util_jstr(job, "metadata.name"), job);
}

/* Where the run's timeout counts from (Unix seconds): the Running entry (the Running condition's
 * lastTransitionTime) plus the start delay, the time the workers are given to become ready. The
 * run Job's BENCH_DEADLINE_AT and the operator's own deadline check count from here, so a worker
 * that never becomes ready cannot hold the run past its deadline. 0 before Running. */
static double run_from(const struct dctx *d)
{
    const cJSON *c = api_cond_get(d->st, "Running");
    double t = util_rfc3339_parse(util_jstr(c, "lastTransitionTime"));
    return t > 0 ? t + (double)d->obs->cfg->start_delay_s : 0;
}

/* Enters (or re-enters after a restart) Running: HPA, PVC, run Job. The start barrier comes once
 * the run Job's pods are ready (publish_start). */
static void start_running(struct dctx *d)
{
    const struct api_spec *s = &d->spec;
    set_phase(d, API_PHASE_RUNNING);
    /* the same words on a re-entry (a restart, a Job missing from the cache): the Running Event
     * is named after them */
    char msg[256];
    (void)snprintf(msg, sizeof(msg), "%d worker%s start together once %s ready", s->workers,
                   s->workers == 1 ? "" : "s",
                   s->workers == 1 ? "its pod is" : "all their pods are");
    cond(d, "Running", "True", "Started", msg);
    if (api_status_start_at(d->st) <= 0)
        set_message(d, msg);
    if (s->hpa)
        action(d, CTRL_ACT_CREATE, &KUBE_HPAS, "", api_manifest_hpa(d->obs->br, s));
    if (s->workload == API_WL_FIO)
        action(d, CTRL_ACT_CREATE, &KUBE_PVCS, "", api_manifest_fio_pvc(d->obs->br, s));
    cJSON *job = api_manifest_run_job(d->obs->br, s, d->obs->cfg, (long)run_from(d));
    annotate_spec(job, s);
    action(d, CTRL_ACT_CREATE, &KUBE_JOBS, "", job);
    /* entering Running: the Job first (the fio claim and the HPA before it, in order: a pod
     * whose claim does not exist yet waits for the scheduler's backoff), the status after */
    d->plan->create_first = d->old_phase != API_PHASE_RUNNING;
    for (int i = 0; i < d->plan->n_actions; i++)
        if (d->plan->actions[i].object && !d->plan->actions[i].name[0])
            (void)snprintf(d->plan->actions[i].name, sizeof(d->plan->actions[i].name), "%s",
                           util_jstr(d->plan->actions[i].object, "metadata.name"));
    d->plan->requeue_ms = s->hpa ? CTRL_HPA_POLL_MS : CTRL_RESYNC_MS;
}

/* The spec in force: the snapshot on the run (or init) Job once started, else the object's. */
static int load_spec(struct dctx *d, bool started, char *err, size_t errlen)
{
    const cJSON *src = NULL;
    cJSON *snap = NULL;
    if (started) {
        const cJSON *jobs[2] = {d->obs->run_job, d->obs->init_job};
        for (int i = 0; i < 2 && !snap; i++) {
            const char *a =
                util_jkey(util_jget(jobs[i], "metadata.annotations"), CTRL_SPEC_ANNOTATION);
            if (a)
                snap = cJSON_Parse(a);
        }
    }
    src = snap ? snap : cJSON_GetObjectItemCaseSensitive(d->obs->br, "spec");
    int rc = api_spec_parse(src, &d->spec, err, errlen);
    cJSON_Delete(snap);
    d->have_spec = rc == 0;
    return rc;
}

/* Pod of the given role and index (a terminated one preferred). */
static const cJSON *find_pod(const struct ctrl_observed *obs, const char *role, int index)
{
    const cJSON *best = NULL;
    for (int i = 0; i < obs->n_pods; i++) {
        const cJSON *p = obs->pods[i];
        const char *r = util_jkey(util_jget(p, "metadata.labels"), API_LABEL_ROLE);
        if (!r || strcmp(r, role) != 0)
            continue;
        if (index >= 0 && ctrl_pod_index(p) != index)
            continue;
        const char *ph = util_jstr(p, "status.phase");
        bool done = ph && (strcmp(ph, "Succeeded") == 0 || strcmp(ph, "Failed") == 0);
        if (!best || done)
            best = p;
    }
    return best;
}

static const cJSON *terminated_state(const cJSON *pod)
{
    const cJSON *cs;
    cJSON_ArrayForEach(cs, util_jget(pod, "status.containerStatuses"))
    {
        const cJSON *t = util_jget(cs, "state.terminated");
        if (t)
            return t;
    }
    return NULL;
}

/* True when every index below n (-1 with n = 1: any pod of the role) has a pod of role that
 * Succeeded (every container exited 0): its Job is complete, whether or not the Job controller has
 * said so yet (its status update follows the pod's). */
static bool pods_succeeded(const struct ctrl_observed *obs, const char *role, int n)
{
    for (int i = 0; i < n; i++) {
        const char *ph = util_jstr(find_pod(obs, role, n > 1 ? i : -1), "status.phase");
        if (!ph || strcmp(ph, "Succeeded") != 0)
            return false;
    }
    return n > 0;
}

static void fill_worker(struct api_worker *w, int index, const cJSON *pod)
{
    memset(w, 0, sizeof(*w));
    w->index = index;
    w->exit_code = -1;
    if (!pod)
        return;
    w->pod = util_jstr(pod, "metadata.name");
    w->node = util_jstr(pod, "spec.nodeName");
    const cJSON *t = terminated_state(pod);
    if (t) {
        w->terminated = true;
        w->exit_code = (int)util_jnum(t, "exitCode", -1);
        w->reason = util_jstr(t, "reason");
        w->term_msg = util_jstr(t, "message");
    }
}

/* Waiting reasons of a container that does not start until someone changes something: a missing
 * Secret or ConfigMap, an image that cannot be pulled (or is absent with imagePullPolicy Never),
 * a crash loop. The kubelet keeps retrying. */
static const char *const BLOCKED_REASONS[] = {
    "CreateContainerConfigError", "CreateContainerError", "ErrImagePull",
    "ImagePullBackOff",           "ErrImageNeverPull",    "InvalidImageName",
    "CrashLoopBackOff",           "RunContainerError",    NULL};

static bool blocked_reason(const char *reason)
{
    for (int i = 0; reason && BLOCKED_REASONS[i]; i++)
        if (strcmp(reason, BLOCKED_REASONS[i]) == 0)
            return true;
    return false;
}

/* The newest cached Warning event with this reason about kind/name. Events outlive their objects
 * (an hour by default), so one last seen more than a second before `since` (the phase's start) is
 * about an earlier run of the same name and is ignored. */
static const cJSON *find_event(const struct ctrl_observed *obs, const char *reason,
                               const char *kind, const char *name, double since)
{
    const cJSON *best = NULL;
    double best_t = -1;
    for (int i = 0; i < obs->n_events; i++) {
        const cJSON *e = obs->events[i];
        const char *r = util_jstr(e, "reason"), *k = util_jstr(e, "involvedObject.kind");
        const char *n = util_jstr(e, "involvedObject.name");
        if (!r || !k || !n || strcmp(r, reason) != 0 || strcmp(k, kind) != 0 ||
            strcmp(n, name) != 0)
            continue;
        double t = util_rfc3339_parse(util_jstr(e, "time"));
        if (since > 0 && t >= 0 && t < since - 1)
            continue;
        if (!best || t > best_t) {
            best = e;
            best_t = t;
        }
    }
    return best;
}

/* The spec field behind a volume the kubelet cannot mount (the names manifest.c gives them). */
static const char *volume_field(const char *msg, char *buf, size_t len)
{
    const char *v = msg ? strstr(msg, "for volume \"") : NULL;
    if (!v)
        return NULL;
    v += strlen("for volume \"");
    int idx;
    if (sscanf(v, "script-%d\"", &idx) == 1) {
        (void)snprintf(buf, len, "spec.workload.pgbench.run.scripts[%d].configMapRef", idx);
        return buf;
    }
    if (strncmp(v, "ca\"", 3) == 0)
        return "spec.target.caSecretRef";
    return NULL;
}

/* A fio claim that is not bound: the pv controller's ProvisioningFailed on it, in the user's
 * words when it is the usual one (a StorageClass that does not exist). */
static bool claim_unbound(const struct dctx *d, double since, char *out, size_t len)
{
    if (!d->have_spec || d->spec.workload != API_WL_FIO)
        return false;
    char claim[300];
    api_child_name(d->name, API_CHILD_FIO_PVC, claim, sizeof(claim));
    const cJSON *e =
        find_event(d->obs, "ProvisioningFailed", "PersistentVolumeClaim", claim, since);
    const char *m = util_jstr(e, "message");
    if (!m)
        return false;
    char sc[256];
    if (sscanf(m, "storageclass.storage.k8s.io \"%255[^\"]\" not found", sc) == 1)
        (void)snprintf(out, len,
                       "PersistentVolumeClaim %s is not bound: StorageClass \"%s\" does not exist "
                       "(spec.workload.fio.storageClassName; kubectl get storageclass)",
                       claim, sc);
    else
        (void)snprintf(
            out, len,
            "PersistentVolumeClaim %s is not bound: ProvisioningFailed: %s (StorageClass "
            "\"%s\")",
            claim, m,
            d->spec.storage_class && *d->spec.storage_class ? d->spec.storage_class
                                                            : "(cluster default)");
    return true;
}

/* Why the workers of a role (init or run) have not started CTRL_BLOCKED_GRACE_S after the phase
 * began, into reason/why ("" when they have, or it is too early to say): a container waiting for
 * one of the reasons above; a pod waiting for a volume the kubelet cannot mount (its FailedMount
 * event: a ConfigMap, key or Secret that does not exist); a pod the scheduler cannot place (for a
 * fio claim that is not bound, the claim's ProvisioningFailed event names the StorageClass); or
 * no pod at all (the API server refused them; the Job's FailedCreate event says why: a missing
 * ServiceAccount, Pod Security, a ResourceQuota). The grace keeps quiet what mends itself: a
 * Secret another controller is about to create, a node the cluster autoscaler is adding. */
/* The reason and words of a blocked role, filled by the checks below. */
struct blocked {
    char *reason, *why;
    size_t rlen, wlen;
};

/* A container of pod p waiting for one of blocked_reason's reasons. */
static bool container_blocked(const char *role, const cJSON *p, const struct blocked *b)
{
    const char *pod = util_jstr(p, "metadata.name");
    const cJSON *cs;
    cJSON_ArrayForEach(cs, util_jget(p, "status.containerStatuses"))
    {
        const char *wr = util_jstr(cs, "state.waiting.reason");
        if (blocked_reason(wr)) {
            const char *wm = util_jstr(cs, "state.waiting.message");
            (void)snprintf(b->reason, b->rlen, "%s", wr);
            (void)snprintf(b->why, b->wlen, "%s pod %s cannot start: %s%s%s", role, pod, wr,
                           wm ? ": " : "", wm ? wm : "");
            return true;
        }
    }
    return false;
}

/* Pod p the scheduler cannot place (for a fio claim not bound, its ProvisioningFailed event). */
static bool pod_unschedulable(const struct dctx *d, const char *role, double since, const cJSON *p,
                              const struct blocked *b)
{
    const char *pod = util_jstr(p, "metadata.name");
    const cJSON *c = cJSON_GetArrayItem(util_jget(p, "status.conditions"), 0);
    const char *cr = util_jstr(c, "reason");
    if (!cr || strcmp(cr, "Unschedulable") != 0)
        return false;
    const char *cm = util_jstr(c, "message");
    char claim[700];
    if (claim_unbound(d, since, claim, sizeof(claim))) {
        (void)snprintf(b->reason, b->rlen, "ProvisioningFailed");
        (void)snprintf(b->why, b->wlen, "%s pod %s cannot be scheduled: %s", role, pod, claim);
    } else {
        (void)snprintf(b->reason, b->rlen, "Unschedulable");
        (void)snprintf(b->why, b->wlen, "%s pod %s cannot be scheduled%s%s", role, pod,
                       cm ? ": " : "", cm ? cm : "");
    }
    return true;
}

/* Pod p scheduled but not started: a volume the kubelet cannot mount says so only in events. */
static bool pod_mount_failed(const struct dctx *d, const char *role, double since, const cJSON *p,
                             const struct blocked *b)
{
    const char *pod = util_jstr(p, "metadata.name");
    const char *phase = util_jstr(p, "status.phase");
    const char *wr = util_jstr(cJSON_GetArrayItem(util_jget(p, "status.containerStatuses"), 0),
                               "state.waiting.reason");
    const cJSON *fm = find_event(d->obs, "FailedMount", "Pod", pod, since);
    if (!fm || !phase || strcmp(phase, "Pending") != 0 ||
        (wr && strcmp(wr, "ContainerCreating") != 0))
        return false;
    char fb[96];
    const char *fm_msg = util_jstr(fm, "message");
    const char *field = volume_field(fm_msg, fb, sizeof(fb));
    (void)snprintf(b->reason, b->rlen, "FailedMount");
    (void)snprintf(b->why, b->wlen, "%s pod %s cannot start: FailedMount: %s%s%s%s", role, pod,
                   fm_msg ? fm_msg : "", field ? " (" : "", field ? field : "", field ? ")" : "");
    return true;
}

/* No pod of the role at all: the Job's FailedCreate event says why, when there is one. */
static void no_pods(const struct dctx *d, const char *role, double since, const struct blocked *b)
{
    char job[300];
    api_child_name(d->name, strcmp(role, "init") == 0 ? API_CHILD_INIT : API_CHILD_RUN, job,
                   sizeof(job));
    const char *fc = util_jstr(find_event(d->obs, "FailedCreate", "Job", job, since), "message");
    if (fc) {
        bool sa = strstr(fc, "error looking up service account") != NULL;
        (void)snprintf(b->reason, b->rlen, "FailedCreate");
        (void)snprintf(b->why, b->wlen,
                       "no %s pod exists %.0f s after the %s Job was created: the API server "
                       "refuses them: %s%s",
                       role, d->obs->now - since, role, fc,
                       sa ? " (spec.podTemplate.serviceAccountName)" : "");
        return;
    }
    (void)snprintf(b->reason, b->rlen, "NoPods");
    (void)snprintf(b->why, b->wlen,
                   "no %s pod exists %.0f s after the %s Job was created: the API server "
                   "refused them (ResourceQuota, Pod Security, ServiceAccount); see the "
                   "FailedCreate events of kubectl describe job %s-%s",
                   role, d->obs->now - since, role, d->name, role);
}

static void workers_blocked(const struct dctx *d, const char *role, double since, char *reason,
                            size_t rlen, char *why, size_t wlen)
{
    reason[0] = why[0] = '\0';
    if (since <= 0 || d->obs->now - since < CTRL_BLOCKED_GRACE_S)
        return;
    const struct blocked b = {.reason = reason, .why = why, .rlen = rlen, .wlen = wlen};
    bool any = false;
    for (int i = 0; i < d->obs->n_pods; i++) {
        const cJSON *p = d->obs->pods[i];
        const char *r = util_jkey(util_jget(p, "metadata.labels"), API_LABEL_ROLE);
        if (!r || strcmp(r, role) != 0)
            continue;
        any = true;
        if (container_blocked(role, p, &b) || pod_unschedulable(d, role, since, p, &b) ||
            pod_mount_failed(d, role, since, p, &b))
            return;
    }
    if (!any)
        no_pods(d, role, since, &b);
}

/* The deadline in force, in words for a message. */
static void deadline_words(const struct dctx *d, bool init, char *out, size_t len)
{
    const struct api_spec *s = &d->spec;
    if (s->timeout_s > 0)
        (void)snprintf(out, len, "spec.timeoutSeconds %ld s", s->timeout_s);
    else if (init)
        (void)snprintf(out, len, "the default %ld s of an init; set spec.timeoutSeconds",
                       API_INIT_TIMEOUT_S);
    else if (api_spec_expected_seconds(s) <= 0)
        (void)snprintf(out, len, "the default %ld s of a transactions run; set spec.timeoutSeconds",
                       API_TRANSACTIONS_TIMEOUT_S);
    else
        (void)snprintf(out, len,
                       "the default %ld s, the expected runtime + %ld s; set spec.timeoutSeconds",
                       api_run_timeout(s, d->obs->cfg), d->obs->cfg->deadline_margin_s);
}

/* The operator's own check of a phase's deadline, behind the Job's activeDeadlineSeconds (which a
 * Job made by an operator before deadlines existed does not have): CTRL_DEADLINE_GRACE_S after
 * the Job should have ended, the run fails DeadlineExceeded and the Job is deleted so that its
 * pods stop loading the database. Before that, asks to look again by then. `since` is where the
 * timeout counts from (init: startTime; run: run_from, the Running entry + the start delay). */
static bool past_deadline(struct dctx *d, double since, long timeout, bool init)
{
    if (since <= 0)
        return false;
    double at = since + (double)timeout + API_DEADLINE_REPORT_S + CTRL_DEADLINE_GRACE_S;
    if (d->obs->now < at) {
        long ms = (long)((at - d->obs->now) * 1000) + 100;
        if (!d->plan->requeue_ms || ms < d->plan->requeue_ms)
            d->plan->requeue_ms = ms;
        return false;
    }
    char words[200], msg[700], job[300];
    deadline_words(d, init, words, sizeof(words));
    api_child_name(d->name, init ? API_CHILD_INIT : API_CHILD_RUN, job, sizeof(job));
    (void)snprintf(msg, sizeof(msg),
                   "the %s phase exceeded its deadline (%s) and Job %s did not end at its "
                   "activeDeadlineSeconds; the Job was deleted",
                   init ? "init" : "run", words, job);
    if (init)
        cond(d, "Initialized", "False", "DeadlineExceeded", msg);
    fail(d, "DeadlineExceeded", msg, true);
    action(d, CTRL_ACT_DELETE, &KUBE_JOBS, job, NULL);
    return true;
}

/* Reports workers that cannot start as condition WorkersBlocked, the message and one Warning
 * event per new cause, and clears it once they start (the message goes back to that of the
 * phase's condition, `phase_cond`). The
 * run does not fail for it: the kubelet and the Job controller keep trying, so creating the
 * missing Secret lets the run go on. Within the grace the next look comes no later than its end,
 * events or not. */
static void check_blocked(struct dctx *d, const char *role, double since, const char *phase_cond)
{
    char reason[64], why[API_MAX_MESSAGE];
    workers_blocked(d, role, since, reason, sizeof(reason), why, sizeof(why));
    const cJSON *c = api_cond_get(d->st, API_COND_WORKERS_BLOCKED);
    const char *cs = util_jstr(c, "status"), *cm = util_jstr(c, "message");
    bool was = cs && strcmp(cs, "True") == 0;
    if (why[0]) {
        /* written at a change only: the cached status does not keep the message */
        if (!was || !cm || strcmp(cm, why) != 0) {
            cond(d, API_COND_WORKERS_BLOCKED, "True", reason, why);
            set_message(d, why);
            event(d, true, API_COND_WORKERS_BLOCKED, "%s", why);
        }
    } else {
        if (was) {
            const char *usual = util_jstr(api_cond_get(d->st, phase_cond), "message");
            cond(d, API_COND_WORKERS_BLOCKED, "False", "Started", "the worker pods have started");
            set_message(d, usual ? usual : "");
        }
        long left_ms = (long)((since + CTRL_BLOCKED_GRACE_S - d->obs->now) * 1000) + 100;
        if (since > 0 && left_ms > 100 && (!d->plan->requeue_ms || left_ms < d->plan->requeue_ms))
            d->plan->requeue_ms = left_ms;
    }
}

/* First error of a result text (termination message or log), else the text's start. */
static void text_error(const char *text, char *out, size_t len)
{
    out[0] = '\0';
    if (!text || !*text)
        return;
    cJSON *r = NULL;
    char err[64];
    if (bench_result_from_log(text, strlen(text), &r, err, sizeof(err)) == 0) {
        const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "errors"), 0);
        if (cJSON_IsString(e))
            (void)snprintf(out, len, "%s", e->valuestring);
        cJSON_Delete(r);
        if (out[0])
            return;
    }
    /* last non-empty line of the text */
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    size_t b = n;
    while (b > 0 && text[b - 1] != '\n')
        b--;
    (void)snprintf(out, len, "%.*s", (int)(n - b), text + b);
}

/* ---- states -------------------------------------------------------------------------------- */

static void decide_pending(struct dctx *d)
{
    char err[512];
    if (strlen(d->name) > API_MAX_NAME) {
        (void)snprintf(
            err, sizeof(err),
            "metadata.name: at most %d characters, so that child names (<name>-init) are "
            "valid label values; use a shorter name",
            API_MAX_NAME);
        fail(d, "InvalidSpec", err, false);
        return;
    }
    if (load_spec(d, false, err, sizeof(err))) {
        fail(d, "InvalidSpec", err, false);
        return;
    }
    const struct api_spec *s = &d->spec;
    if (s->hpa) {
        const struct ctrl_observed *o = d->obs;
        if (o->scale_target == CTRL_FETCH_NONE) {
            d->plan->needs |= CTRL_NEED_SCALE_TARGET;
            (void)snprintf(d->plan->scale_kind, sizeof(d->plan->scale_kind), "%s", s->hpa_kind);
            (void)snprintf(d->plan->scale_name, sizeof(d->plan->scale_name), "%s", s->hpa_name);
            return;
        }
        if (o->scale_target == CTRL_FETCH_NOT_FOUND) {
            (void)snprintf(
                err, sizeof(err),
                "spec.hpa.scaleTargetRef: %s \"%s\" not found in namespace %s; create it "
                "first or fix the name",
                s->hpa_kind, s->hpa_name, d->ns);
            fail(d, "ScaleTargetNotFound", err, false);
            return;
        }
        if (o->scale_target == CTRL_FETCH_ERROR) {
            d->plan->retry = true;
            return;
        }
    }
    /* The run starts now, with this generation of the spec; later changes are ignored. */
    char msg[256];
    bench_status_set_num(d->st, BK_STATUS_STARTED_GENERATION, (double)d->gen);
    bench_status_clear(d->st, BK_STATUS_COMPLETION_TIME); /* null: removed by the merge patch */
    if (api_cond_get(d->st, "Failed"))
        cond(d, "Failed", "False", "Retrying", "the spec was changed; evaluating it again");
    set_time(d, BK_STATUS_START_TIME);
    char target[400];
    api_spec_target_string(s, target, sizeof(target));
    if (s->workload == API_WL_FIO && !s->host[0]) /* what a storage probe measures */
        (void)snprintf(target, sizeof(target), "storageclass/%s",
                       s->storage_class && *s->storage_class ? s->storage_class : "(default)");
    bench_status_set_str(d->st, BK_STATUS_TARGET, target);
    if (s->host[0]) { /* the role; a result that names it replaces this */
        char user[300];
        api_spec_user_string(s, user, sizeof(user));
        bench_status_set_str(d->st, BK_USER, user);
    }
    if (s->workload == API_WL_PGBENCH)
        bench_status_set_num(d->st, BK_STATUS_CLIENTS, s->clients);
    if (s->init && s->workload == API_WL_PGBENCH) {
        set_phase(d, API_PHASE_INITIALIZING);
        (void)snprintf(msg, sizeof(msg), "initializing pgbench tables at scale %d", s->scale);
        cond(d, "Initialized", "False", "InitRunning", msg);
        set_message(d, msg);
        create_init_job(d);
        d->plan->create_first = true;
        d->plan->requeue_ms = CTRL_RESYNC_MS;
        return;
    }
    start_running(d);
}

static void check_spec_locked(struct dctx *d)
{
    long sg = start_generation(d->st);
    if (sg <= 0 || d->gen <= sg)
        return;
    char msg[300];
    (void)snprintf(msg, sizeof(msg),
                   "spec changed (generation %ld) after the run started with generation %ld; the "
                   "change is ignored: create a new BenchmarkRun to run a different benchmark",
                   d->gen, sg);
    const cJSON *c = api_cond_get(d->st, "SpecLocked");
    bool was = c && util_jstr(c, "status") && strcmp(util_jstr(c, "status"), "True") == 0 &&
               util_jstr(c, "message") && strcmp(util_jstr(c, "message"), msg) == 0;
    api_cond_set(d->st, "SpecLocked", "True", "SpecChangedAfterStart", msg, sg, d->obs->now);
    if (!was)
        event(d, true, "SpecLocked", "%s", msg);
}

static void follow_progress(struct dctx *d, const char *role, int workers);

static void decide_initializing(struct dctx *d)
{
    const cJSON *job = d->obs->init_job;
    if (!job) {
        create_init_job(d);
        d->plan->requeue_ms = CTRL_RESYNC_MS;
        return;
    }
    const char *fin = ctrl_job_finished(job);
    if (!fin && pods_succeeded(d->obs, "init", 1))
        fin = "Complete"; /* the pod's success: no need to wait for the Job controller's */
    if (!fin) {
        double since = util_rfc3339_parse(bench_status_str(d->st, BK_STATUS_START_TIME));
        d->plan->requeue_ms = CTRL_RESYNC_MS;
        if (past_deadline(d, since, api_init_timeout(&d->spec), true))
            return;
        follow_progress(d, "init", 1);
        if (d->plan->needs)
            return;
        check_blocked(d, "init", since, "Initialized");
        return;
    }
    if (strcmp(fin, "Complete") == 0) {
        cond(d, "Initialized", "True", "InitSucceeded", "pgbench tables are ready");
        start_running(d);
        return;
    }
    const cJSON *pod = find_pod(d->obs, "init", -1);
    if (!terminated_state(pod) && !d->obs->pods_fresh) {
        /* the pod watch may be behind the Job's: its exit code and error from the API server */
        d->plan->needs |= CTRL_NEED_PODS;
        return;
    }
    struct api_worker w;
    fill_worker(&w, 0, pod);
    char why[400], msg[700];
    text_error(w.term_msg, why, sizeof(why));
    if (!why[0]) {
        const cJSON *c = job_condition(job, "Failed");
        (void)snprintf(why, sizeof(why), "%s",
                       util_jstr(c, "message") ? util_jstr(c, "message") : "");
    }
    if (w.pod)
        (void)snprintf(msg, sizeof(msg), "init Job %s-init failed: pod %s exit code %d: %s",
                       d->name, w.pod, w.exit_code, why);
    else
        (void)snprintf(msg, sizeof(msg), "init Job %s-init failed: %s", d->name, why);
    const char *jr = util_jstr(job_condition(job, "Failed"), "reason");
    if (jr && strcmp(jr, "DeadlineExceeded") == 0) {
        char words[200], m2[API_MAX_MESSAGE];
        deadline_words(d, true, words, sizeof(words));
        (void)snprintf(m2, sizeof(m2), "the init phase exceeded its deadline (%s): %s", words, msg);
        cond(d, "Initialized", "False", "DeadlineExceeded", m2);
        fail(d, "DeadlineExceeded", m2, true);
        return;
    }
    cond(d, "Initialized", "False", "InitFailed", msg);
    fail(d, "InitFailed", msg, true);
}

/* True when the pod runs and its Ready condition is True. */
static bool pod_ready(const cJSON *pod)
{
    const char *ph = util_jstr(pod, "status.phase");
    if (!ph || strcmp(ph, "Running") != 0 || util_jget(pod, "metadata.deletionTimestamp"))
        return false;
    const cJSON *c;
    cJSON_ArrayForEach(c, util_jget(pod, "status.conditions"))
    {
        const char *t = util_jstr(c, "type"), *st = util_jstr(c, "status");
        if (t && st && strcmp(t, "Ready") == 0)
            return strcmp(st, "True") == 0;
    }
    return false;
}

/* The start barrier already published: status.startAt, else (a restart that lost the status
 * write cannot, as status goes first; a pod annotated by hand or an older status) the first run
 * pod that carries it. NULL when there is none. */
static const char *published_start(const struct dctx *d)
{
    const cJSON *sa = bench_status_get(d->st, BK_STATUS_START_AT);
    if (cJSON_IsString(sa) && util_rfc3339_parse(sa->valuestring) > 0)
        return sa->valuestring;
    for (int i = 0; i < d->obs->n_pods; i++) {
        const cJSON *p = d->obs->pods[i];
        const char *r = util_jkey(util_jget(p, "metadata.labels"), API_LABEL_ROLE);
        const char *a = util_jkey(util_jget(p, "metadata.annotations"), API_START_ANNOTATION);
        if (r && strcmp(r, "run") == 0 && a && util_rfc3339_parse(a) > 0)
            return a;
    }
    return NULL;
}

/* True when every worker index of the run has a ready pod. */
static bool workers_ready(const struct dctx *d)
{
    bool ready[API_MAX_WORKERS] = {false};
    int n = 0;
    for (int i = 0; i < d->obs->n_pods; i++) {
        const cJSON *p = d->obs->pods[i];
        const char *r = util_jkey(util_jget(p, "metadata.labels"), API_LABEL_ROLE);
        int idx = d->spec.workers > 1 ? ctrl_pod_index(p) : 0;
        if (!r || strcmp(r, "run") != 0 || idx < 0 || idx >= d->spec.workers || ready[idx] ||
            !pod_ready(p))
            continue;
        ready[idx] = true;
        n++;
    }
    return n == d->spec.workers;
}

/* The start barrier (level-triggered): once every worker index has a Ready pod, readyAt = now
 * and startAt = now + the margin (obs.start_margin_ms, learned by margin.h; RFC 3339,
 * milliseconds) go into status, and (after the status write, plan.annotate) startAt onto every
 * run pod as API_START_ANNOTATION, which the runners read through their downwardAPI file. A
 * published time is never replaced: pods without it (the rest after a restart, a replacement
 * pod) get the same value; a pod that has one keeps it. True when this plan sets the barrier. */
static bool publish_start(struct dctx *d)
{
    char at[40], ready[40];
    const char *pub = published_start(d);
    bool fresh = !pub;
    if (!pub) {
        if (!workers_ready(d))
            return false; /* a pod that becomes ready brings the run back (its watch event) */
        long margin = d->obs->start_margin_ms > 0 ? d->obs->start_margin_ms : ctrl_margin_ms(NULL);
        util_rfc3339(d->obs->now + (double)margin / 1000.0, 3, at, sizeof(at));
        util_rfc3339(d->obs->now, 3, ready, sizeof(ready));
        bench_status_set_str(d->st, BK_STATUS_READY_AT, ready);
        pub = at;
    }
    (void)snprintf(d->plan->start_at, sizeof(d->plan->start_at), "%s", pub);
    const char *cur = bench_status_str(d->st, BK_STATUS_START_AT);
    if (!cur || strcmp(cur, d->plan->start_at) != 0) {
        char msg[256];
        bench_status_set_str(d->st, BK_STATUS_START_AT, d->plan->start_at);
        double margin = util_rfc3339_parse(d->plan->start_at) -
                        util_rfc3339_parse(bench_status_str(d->st, BK_STATUS_READY_AT));
        size_t l =
            (size_t)snprintf(msg, sizeof(msg), "%d worker%s start together at %s", d->spec.workers,
                             d->spec.workers == 1 ? "" : "s", d->plan->start_at);
        if (margin > 0 && margin < 3600 && l < sizeof(msg))
            (void)snprintf(msg + l, sizeof(msg) - l, ", %.3f s after the last pod was ready",
                           margin);
        /* the Running condition keeps its message: the Running Event is named after it */
        set_message(d, msg);
    }
    struct ctrl_fetch_log *pods = util_xcalloc((size_t)d->obs->n_pods + 1, sizeof(*pods));
    int n = 0;
    for (int i = 0; i < d->obs->n_pods; i++) {
        const cJSON *p = d->obs->pods[i];
        const char *r = util_jkey(util_jget(p, "metadata.labels"), API_LABEL_ROLE);
        const char *ph = util_jstr(p, "status.phase"), *name = util_jstr(p, "metadata.name");
        if (!r || strcmp(r, "run") != 0 || !name || util_jget(p, "metadata.deletionTimestamp") ||
            (ph && (strcmp(ph, "Succeeded") == 0 || strcmp(ph, "Failed") == 0)) ||
            util_jkey(util_jget(p, "metadata.annotations"), API_START_ANNOTATION))
            continue;
        pods[n].index = ctrl_pod_index(p);
        (void)snprintf(pods[n].pod, sizeof(pods[n].pod), "%s", name);
        n++;
    }
    free(d->plan->annotate);
    d->plan->annotate = pods;
    d->plan->n_annotate = n;
    return fresh;
}

/* Condition WorkersShareNode (pkg/api/placement.h), set once with the start barrier (every
 * worker's pod Ready, so on a node; the nodes as the load starts): one worker per node, or two
 * sharing one, then judged against the cluster's Nodes (CTRL_NEED_NODES): a Warning when
 * another node was schedulable. Not with one worker, nor when the workers were packed on
 * purpose. */
static void check_placement(struct dctx *d)
{
    const struct api_spec *s = &d->spec;
    if (s->workers < 2 || s->placement == API_PLACE_PACK || !d->plan->start_at[0] ||
        api_cond_get(d->st, API_COND_WORKERS_SHARE_NODE))
        return;
    const char *nodes[API_MAX_WORKERS];
    for (int i = 0; i < s->workers; i++)
        nodes[i] = util_jstr(find_pod(d->obs, "run", i), "spec.nodeName");
    bool shared;
    char msg[API_MAX_MESSAGE], full[API_MAX_MESSAGE];
    if (!api_workers_placed(nodes, s->workers, &shared, msg, sizeof(msg)))
        return;
    if (!shared) {
        cond(d, API_COND_WORKERS_SHARE_NODE, "False", API_PLACEMENT_ONE_PER_NODE, msg);
        return;
    }
    if (d->obs->nodes == CTRL_FETCH_NONE) {
        d->plan->needs |= CTRL_NEED_NODES;
        return;
    }
    if (d->obs->nodes != CTRL_FETCH_OK) {
        (void)snprintf(full, sizeof(full),
                       "%.600s; whether another node was schedulable is unknown: the nodes could "
                       "not be read (%.200s); the operator needs list on nodes",
                       msg, d->obs->nodes_error);
        cond(d, API_COND_WORKERS_SHARE_NODE, "False", API_PLACEMENT_NODES_UNKNOWN, full);
        return;
    }
    bool avoidable = api_sharing_avoidable(nodes, s->workers, msg, d->obs->node_items,
                                           s->pod_template, full, sizeof(full));
    cond(d, API_COND_WORKERS_SHARE_NODE, avoidable ? "True" : "False",
         avoidable ? API_PLACEMENT_SHARED : API_PLACEMENT_NO_OTHER_NODE, full);
}

static void decide_collecting(struct dctx *d);

/* The workers whose pod Succeeded while others still run: their results are read now (the
 * executor keeps them), not all at the end. True when the plan reads first. */
static bool plan_early_results(struct dctx *d, int workers)
{
    if (d->obs->early_fetched)
        return false;
    struct ctrl_fetch_log *logs = NULL;
    int n = 0;
    for (int i = 0; i < workers && i < API_MAX_WORKERS; i++) {
        const cJSON *pod = find_pod(d->obs, "run", i);
        const char *ph = util_jstr(pod, "status.phase"), *name = util_jstr(pod, "metadata.name");
        if (!ph || !name || strcmp(ph, "Succeeded") != 0)
            continue;
        if (!logs)
            logs = util_xcalloc((size_t)workers, sizeof(*logs));
        logs[n].index = i;
        (void)snprintf(logs[n].pod, sizeof(logs[n].pod), "%s", name);
        n++;
    }
    if (n == 0)
        return false;
    free(d->plan->logs);
    d->plan->logs = logs;
    d->plan->n_logs = n;
    d->plan->needs |= CTRL_NEED_EARLY_RESULTS;
    return true;
}

static void decide_running(struct dctx *d)
{
    const struct api_spec *s = &d->spec;
    const cJSON *job = d->obs->run_job;
    if (!job) {
        start_running(d); /* restart after status was written but before the Job was */
        return;
    }
    if (pods_succeeded(d->obs, "run", s->workers)) {
        /* every worker's pod Succeeded: their results are read now, in this reconcile, without
         * waiting for the Job controller's Complete or writing Collecting first (its Event is
         * the one a Succeeded status implies) */
        set_phase(d, API_PHASE_COLLECTING);
        set_message(d, CTRL_COLLECTING_MESSAGE);
        event(d, false, api_phase_name(API_PHASE_COLLECTING), "%s", CTRL_COLLECTING_MESSAGE);
        decide_collecting(d);
        return;
    }
    if (ctrl_job_finished(job)) {
        set_phase(d, API_PHASE_COLLECTING);
        set_message(d, CTRL_COLLECTING_MESSAGE);
        d->plan->requeue_ms = 1; /* at once */
        return;
    }
    if (plan_early_results(d, s->workers))
        return; /* decided again once they are read */
    /* a barrier set now goes out at once: the HPA's scale and the workers' progress, reads
     * before a decision, wait for the next reconcile (the pod patches bring it); the Nodes that
     * WorkersShareNode reads when two workers share one are read first (one list) */
    bool fresh = publish_start(d);
    check_placement(d);
    if (s->hpa && !fresh) {
        if (d->obs->scale == CTRL_FETCH_NONE) {
            d->plan->needs |= CTRL_NEED_SCALE;
            (void)snprintf(d->plan->scale_kind, sizeof(d->plan->scale_kind), "%s", s->hpa_kind);
            (void)snprintf(d->plan->scale_name, sizeof(d->plan->scale_name), "%s", s->hpa_name);
            return;
        }
        if (d->obs->scale == CTRL_FETCH_OK)
            api_hpa_timeline_record(d->st, d->obs->scale_replicas, d->obs->now);
        d->plan->requeue_ms = CTRL_HPA_POLL_MS;
    } else {
        d->plan->requeue_ms = s->hpa ? CTRL_HPA_POLL_MS : CTRL_RESYNC_MS;
    }
    if (past_deadline(d, run_from(d), api_run_timeout(s, d->obs->cfg), false) || fresh)
        return;
    follow_progress(d, "run", s->workers);
    if (d->plan->needs)
        return; /* decided again with the workers' progress */
    check_blocked(d, "run", run_from(d) - (double)d->obs->cfg->start_delay_s, "Running");
}

static void requeue_within(struct dctx *d, long ms)
{
    if (d->plan->requeue_ms <= 0 || d->plan->requeue_ms > ms)
        d->plan->requeue_ms = ms;
}

/* The workers' progress records just fetched: status.progress, condition TargetUnreachable
 * while a worker retries its target, and status.message. */
static int running_workers(const struct dctx *d, const char *role, int workers,
                           struct ctrl_fetch_log *out);

static void progress_apply(struct dctx *d, const char *role, int workers)
{
    int running = running_workers(d, role, workers, NULL);
    int read = running < CTRL_PROGRESS_SAMPLE ? running : CTRL_PROGRESS_SAMPLE;
    if (ctrl_progress_set(d->st, d->obs->progress, d->obs->n_progress, read, running, d->obs->now))
        ctrl_progress_display(d->st);
    char msg[900];
    const cJSON *c = api_cond_get(d->st, API_COND_TARGET_UNREACHABLE);
    const char *st = c ? util_jstr(c, "status") : NULL;
    /* status.message is the current state: why the workers wait, else how far they are
     * (a WorkersBlocked message stands until check_blocked clears it) */
    const char *blocked = util_jstr(api_cond_get(d->st, API_COND_WORKERS_BLOCKED), "status");
    bool may_say = !blocked || strcmp(blocked, "True") != 0;
    if (ctrl_progress_waiting(d->obs->progress, d->obs->n_progress, msg, sizeof(msg))) {
        if (!st || strcmp(st, "True") != 0)
            event(d, true, API_COND_TARGET_UNREACHABLE, "%s", msg);
        cond(d, API_COND_TARGET_UNREACHABLE, "True", "Retrying", msg);
        if (may_say)
            set_message(d, msg);
        return;
    }
    bool reached = st && strcmp(st, "True") == 0;
    if (reached)
        cond(d, API_COND_TARGET_UNREACHABLE, "False", "Reached", "the workers reached the target");
    if (may_say && ctrl_progress_message(d->st, workers, msg, sizeof(msg))) {
        set_message(d, msg);
    } else if (may_say && reached) {
        const char *usual = util_jstr(
            api_cond_get(d->st, strcmp(role, "run") == 0 ? "Running" : "Initialized"), "message");
        set_message(d, usual ? usual : "");
    }
}

/* The running pods of the phase, in worker order, into out (NULL: only counted). */
static int running_workers(const struct dctx *d, const char *role, int workers,
                           struct ctrl_fetch_log *out)
{
    int n = 0;
    for (int i = 0; i < workers; i++) {
        const cJSON *pod = find_pod(d->obs, role, workers > 1 || strcmp(role, "run") == 0 ? i : -1);
        const char *ph = pod ? util_jstr(pod, "status.phase") : NULL;
        const char *name = pod ? util_jstr(pod, "metadata.name") : NULL;
        if (!ph || !name || strcmp(ph, "Running") != 0)
            continue;
        if (out) {
            out[n].index = i;
            (void)snprintf(out[n].pod, sizeof(out[n].pod), "%s", name);
        }
        n++;
    }
    return n;
}

/* The log tails to fetch into the plan: the running pods of the phase, at most
 * CTRL_PROGRESS_SAMPLE of them, a block that rotates with the interval (none when no pod runs
 * yet). */
static void progress_plan(struct dctx *d, const char *role, int workers)
{
    struct ctrl_fetch_log *running = util_xcalloc((size_t)workers, sizeof(*running));
    int n = running_workers(d, role, workers, running);
    if (n == 0) { /* a pod that starts running brings the run back (its watch event) */
        free(running);
        return;
    }
    int take = n < CTRL_PROGRESS_SAMPLE ? n : CTRL_PROGRESS_SAMPLE;
    int from = ctrl_progress_sample_start(n, d->obs->now, d->obs->cfg->progress_interval_s);
    struct ctrl_fetch_log *logs = util_xcalloc((size_t)take, sizeof(*logs));
    for (int k = 0; k < take; k++)
        logs[k] = running[(from + k) % n];
    free(running);
    free(d->plan->progress);
    d->plan->progress = logs;
    d->plan->n_progress = take;
    d->plan->needs |= CTRL_NEED_PROGRESS;
}

/* While the pods of a phase run, every progress interval: the tails of their logs give
 * status.progress (the workers' last progress records, summed) and condition TargetUnreachable
 * while a worker retries its target (its wait records). A log tail is read at most once per
 * worker per interval, bounded by tailLines and limitBytes, and only of running pods; at most
 * CTRL_PROGRESS_SAMPLE of them per interval (a rotating sample, extrapolated). */
static void follow_progress(struct dctx *d, const char *role, int workers)
{
    long every = d->obs->cfg->progress_interval_s;
    if (every <= 0)
        return;
    if (d->obs->progress_fetched) {
        progress_apply(d, role, workers);
        requeue_within(d, every * 1000);
        return;
    }
    const cJSON *t = bench_status_get(d->st, BK_STATUS_PROGRESS_TIME);
    double last = cJSON_IsString(t) ? util_rfc3339_parse(t->valuestring) : -1;
    if (last >= 0 && d->obs->now - last < (double)every) {
        requeue_within(d, (long)((last + (double)every - d->obs->now) * 1000) + 1);
        return;
    }
    progress_plan(d, role, workers);
}

/* Workers stopped by their runner at the run's deadline (BENCH_DEADLINE_AT = run_from + run
 * timeout): a result that ended there, or none to tell and the deadline has passed. */
static bool stopped_at_deadline(const struct dctx *d, const struct api_worker *w, int n)
{
    double from = run_from(d);
    if (from <= 0)
        return false;
    double at = from + (double)api_run_timeout(&d->spec, d->obs->cfg);
    for (int i = 0; i < n; i++) {
        const cJSON *end = w[i].result ? bench_get(w[i].result, BK_END_TIME) : NULL;
        const char *e = cJSON_GetStringValue(end);
        double t = e ? util_rfc3339_parse(e) : -1;
        if (t >= 0 ? t >= at - 2 : d->obs->now >= at)
            return true;
    }
    return false;
}

/* Why a worker has no pod when its results are collected, into out; "" when the run Job never
 * made one and no event says why (worker_message's "no pod was created for this worker"). */
static void missing_pod(const struct dctx *d, char *out, size_t len)
{
    const cJSON *job = d->obs->run_job;
    double made = util_jnum(job, "status.succeeded", 0) + util_jnum(job, "status.failed", 0) +
                  util_jnum(job, "status.active", 0);
    if (made > 0) {
        const cJSON *jf = job_condition(job, "Failed");
        const char *jr = util_jstr(jf, "reason"), *jm = util_jstr(jf, "message");
        (void)snprintf(out, len,
                       "no pod of this worker is left to read: the run Job made %.0f pod%s%s%s%s%s",
                       made, made == 1 ? "" : "s", jr ? ", then failed: " : "", jr ? jr : "",
                       jr && jm ? ": " : "", jr && jm ? jm : "");
        return;
    }
    char name[300];
    api_child_name(d->name, API_CHILD_RUN, name, sizeof(name));
    double since = run_from(d) - (double)d->obs->cfg->start_delay_s;
    const char *fc = util_jstr(find_event(d->obs, "FailedCreate", "Job", name, since), "message");
    if (fc)
        (void)snprintf(out, len, "no pod was created for this worker: %s", fc);
}

/* Workers that did not run together: the summed tps then covers only their common window. */
static void check_skew(struct dctx *d, const cJSON *agg)
{
    char msg[600];
    const cJSON *c = api_cond_get(d->st, API_COND_WORKERS_SKEWED);
    if (api_workers_skewed(agg, API_SKEW_LIMIT_S, msg, sizeof(msg))) {
        bool was = c && util_jstr(c, "message") && strcmp(util_jstr(c, "message"), msg) == 0;
        cond(d, API_COND_WORKERS_SKEWED, "True", "WorkersNotTogether", msg);
        if (!was)
            event(d, true, API_COND_WORKERS_SKEWED, "%s", msg);
    } else if (c) {
        cond(d, API_COND_WORKERS_SKEWED, "False", "WorkersTogether",
             "every worker ran within a second of the common window");
    }
}

/* When the run Job finished (its Complete or Failed condition's lastTransitionTime), or -1. */
static double job_finished_at(const cJSON *job)
{
    const char *fin = ctrl_job_finished(job);
    return fin ? util_rfc3339_parse(util_jstr(job_condition(job, fin), "lastTransitionTime")) : -1;
}

/* Appends printf text to msg at len while there is room; returns the new length (as snprintf
 * counts it: past size when cut). */
static size_t msg_addf(char *msg, size_t size, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t msg_addf(char *msg, size_t size, size_t len, const char *fmt, ...)
{
    if (len >= size)
        return len;
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    int m = vsnprintf(msg + len, size - len, fmt, ap);
    va_end(ap);
    return m > 0 ? len + (size_t)m : len;
}

/* The workers without their log's detail, the first three named in msg. */
struct detail_missing {
    int missing, listed;
    const char *reason; /* the first one's: LogTruncated or LogUnavailable */
    bool fio;
    size_t len;
};

static void list_detail_missing(const struct dctx *d, const struct api_worker *w, int n, char *msg,
                                size_t size, struct detail_missing *dm)
{
    for (int i = 0; i < n; i++) {
        if (!w[i].result || !w[i].detail_missing)
            continue;
        dm->missing++;
        const cJSON *kind = bench_get(w[i].result, BK_KIND);
        dm->fio = dm->fio || (cJSON_IsString(kind) && strcmp(kind->valuestring, "fio") == 0);
        if (!dm->reason)
            dm->reason = d->obs->result_detail[w[i].index] == CTRL_DETAIL_LOG_TRUNCATED
                             ? "LogTruncated"
                             : "LogUnavailable";
        if (dm->listed < 3 && dm->len < size) {
            dm->len =
                msg_addf(msg, size, dm->len, "%sworker %d (pod %s): %.200s", dm->listed ? "; " : "",
                         w[i].index, w[i].pod ? w[i].pod : "?", w[i].detail_missing);
            dm->listed++;
        }
    }
}

/* Workers whose result is their compact termination summary (their log could not be read, or
 * its result line was cut): condition ResultDetailUnavailable names them and why, with a Warning
 * event; status then lacks what only the log holds. Returns true when there are any. */
static bool check_detail(struct dctx *d, const struct api_worker *w, int n, bool bounded)
{
    char msg[API_MAX_MESSAGE] = "";
    struct detail_missing dm = {0};
    list_detail_missing(d, w, n, msg, sizeof(msg), &dm);
    const cJSON *c = api_cond_get(d->st, API_COND_RESULT_DETAIL_UNAVAILABLE);
    if (!dm.missing) {
        if (c)
            cond(d, API_COND_RESULT_DETAIL_UNAVAILABLE, "False", "LogRead",
                 "every worker's result was read from its log");
        return false;
    }
    size_t len = dm.len;
    if (dm.missing > dm.listed)
        len = msg_addf(msg, sizeof(msg), len, "; and %d more worker%s", dm.missing - dm.listed,
                       dm.missing - dm.listed == 1 ? "" : "s");
    len = msg_addf(msg, sizeof(msg), len, "%s",
                   dm.fio ? ". Their results come from the termination message, which keeps "
                            "each fio job's iops, bandwidth and p99 latencies (status.fio is "
                            "complete), not fio's full latency distributions"
                          : ". Their results come from the termination message, which keeps "
                            "the summary and its percentiles, not the timeline, the "
                            "per-statement latencies, the histogram or the diagnostics");
    if (bounded)
        (void)msg_addf(msg, sizeof(msg), len, "%s",
                       "; the latency percentiles are the slowest worker's, an upper bound "
                       "(merging them needs every worker's histogram)");
    bool was = c && util_jstr(c, "message") && strcmp(util_jstr(c, "message"), msg) == 0;
    cond(d, API_COND_RESULT_DETAIL_UNAVAILABLE, "True", dm.reason, msg);
    if (!was)
        event(d, true, API_COND_RESULT_DETAIL_UNAVAILABLE, "%s", msg);
    return true;
}

/* The whole result in the ConfigMap <run>-result, written before this status (plan.result_cm),
 * named by status.resultRef. Not made again once the run has ended: the logs it comes from may be
 * gone by then, and status holds only the trimmed form (docs/spec.md, status.resultRef). */
static void result_configmap(struct dctx *d, const cJSON *agg, int n)
{
    char err[256];
    cJSON *cm = ctrl_collect_configmap(d->obs->br, agg, d->obs->results, d->obs->kept, n,
                                       API_RESULT_MAX_BYTES, err, sizeof(err));
    if (!cm) {
        if (agg)
            event(d, true, "ResultConfigMapFailed", "the result ConfigMap is not written: %s", err);
        return;
    }
    cJSON *ref = cJSON_CreateObject();
    util_jset_str(ref, bench_status_key(BK_STATUS_RESULT_REF_NAME), util_jstr(cm, "metadata.name"));
    util_jset_str(ref, bench_status_key(BK_STATUS_RESULT_REF_KEY), API_RESULT_KEY);
    util_jset(d->st, bench_status_key(BK_STATUS_RESULT_REF), ref);
    cJSON_Delete(d->plan->result_cm);
    d->plan->result_cm = cm;
}

/* The Job's watch can be ahead of the pods': nothing is concluded from a cached pod that has not
 * terminated, or is missing, before the API server was asked (a fresh list; the two caches'
 * resourceVersions say nothing about each other). A pod it still has running is waited for.
 * True when the plan waits (it needs the pods, or looks again soon). */
static bool collect_waits(struct dctx *d, const struct api_worker *w, int n)
{
    const struct ctrl_observed *o = d->obs;
    int running = -1;
    for (int i = 0; i < n && running < 0; i++)
        if (!w[i].terminated)
            running = i;
    if (running >= 0 && o->run_job && !o->pods_fresh) {
        d->plan->needs |= CTRL_NEED_PODS;
        return true;
    }
    if (running >= 0 && o->run_job && w[running].pod) {
        double since = job_finished_at(o->run_job);
        if (since > 0 && o->now - since < CTRL_POD_SETTLE_S) {
            d->plan->requeue_ms = CTRL_POD_RECHECK_MS;
            return true;
        }
    }
    return false;
}

/* The logs to read: every terminated worker's. */
static void plan_result_logs(struct dctx *d, const struct api_worker *w, int n)
{
    d->plan->needs |= CTRL_NEED_RESULTS;
    d->plan->logs = util_xcalloc((size_t)n, sizeof(*d->plan->logs));
    for (int i = 0; i < n; i++) {
        if (!w[i].pod || !w[i].terminated)
            continue;
        struct ctrl_fetch_log *l = &d->plan->logs[d->plan->n_logs++];
        l->index = i;
        (void)snprintf(l->pod, sizeof(l->pod), "%s", w[i].pod);
    }
}

/* Every worker ended well: Succeeded, with what the summary and the checks say. */
static void succeed(struct dctx *d, int n, const cJSON *agg, bool detail_missing)
{
    const struct api_spec *s = &d->spec;
    char msg[700];
    set_phase(d, API_PHASE_SUCCEEDED);
    api_status_summary_message(d->st, n, msg, sizeof(msg));
    /* the workers report how many clients they really ran */
    const cJSON *clients = bench_get(agg, BK_PGBENCH_CLIENTS);
    double ran = cJSON_IsNumber(clients) ? clients->valuedouble : 0;
    if (s->workload == API_WL_PGBENCH && ran > 0 && (int)ran != s->clients) {
        size_t l = strlen(msg);
        (void)snprintf(msg + l, sizeof(msg) - l,
                       "; warning: the workers ran %d clients in total, the spec asked for %d",
                       (int)ran, s->clients);
        event(d, true, "ClientsMismatch",
              "the workers ran %d clients in total, the spec asked for %d "
              "(is the runner image older than the operator?)",
              (int)ran, s->clients);
    }
    if (detail_missing) {
        size_t l = strlen(msg);
        (void)snprintf(msg + l, sizeof(msg) - l,
                       "; summary only: a worker's log could not be read whole (condition "
                       "ResultDetailUnavailable)");
    }
    cond(d, "Complete", "True", "Succeeded", msg);
    cond(d, "Running", "False", "Completed", "every worker finished");
    set_message(d, msg);
    set_time(d, BK_STATUS_COMPLETION_TIME);
    add_cleanup(d, true);
}

/* How the collected run ends: failed (its Job gone, a worker failed, the deadline, the Job
 * failed) or succeeded. */
static void end_collecting(struct dctx *d, struct api_worker *w, int n, const cJSON *agg,
                           bool detail_missing)
{
    const struct ctrl_observed *o = d->obs;
    char msg[700];
    const cJSON *jf = job_condition(o->run_job, "Failed");
    const char *jreason = util_jstr(jf, "reason");
    bool job_failed = o->run_job && ctrl_job_finished(o->run_job) &&
                      strcmp(ctrl_job_finished(o->run_job), "Failed") == 0;
    if (!o->run_job) {
        fail(d, "ResultsLost", "the run Job disappeared before its results were collected", true);
    } else if (api_workers_failure(w, n, msg, sizeof(msg))) {
        if ((job_failed && jreason && strcmp(jreason, "DeadlineExceeded") == 0) ||
            stopped_at_deadline(d, w, n)) {
            char words[200], m2[API_MAX_MESSAGE];
            deadline_words(d, false, words, sizeof(words));
            (void)snprintf(m2, sizeof(m2),
                           "the run exceeded its deadline (%s, from the run's start): %s", words,
                           msg);
            fail(d, "DeadlineExceeded", m2, true);
        } else {
            fail(d, "WorkerFailed", msg, true);
        }
    } else if (job_failed) {
        (void)snprintf(msg, sizeof(msg), "run Job failed: %s",
                       util_jstr(jf, "message") ? util_jstr(jf, "message") : "unknown reason");
        fail(d, jreason ? jreason : "JobFailed", msg, true);
    } else {
        succeed(d, n, agg, detail_missing);
    }
}

/* The result ConfigMap's "timing" (pkg/api/timing.h) in agg, and the slowest worker's notice
 * delay, status.readyAt to its read of the barrier, for the margin's learning (margin.h): of the
 * workers whose runner was waiting when the barrier was published. */
static void add_timing(struct dctx *d, cJSON *agg, const cJSON *const *results, int n)
{
    const struct ctrl_observed *o = d->obs;
    if (!agg)
        return;
    struct api_timing_in in = {
        .br = o->br,
        .status = d->st,
        .init_job = o->init_job,
        .run_job = o->run_job,
        .pods = o->pods,
        .n_pods = o->n_pods,
        .results = results,
        .n_results = n,
        .now = o->now,
    };
    (void)bench_put(agg, BK_TIMING, api_run_timing(&in));
    /* a runner that started after readyAt (a replaced pod) found the barrier in its file's first
     * contents: its read says nothing of the kubelet's refresh */
    double ready = util_rfc3339_parse(bench_status_str(d->st, BK_STATUS_READY_AT));
    double barrier = api_status_start_at(d->st);
    for (int i = 0; i < n && ready > 0 && barrier > 0; i++) {
        double seen = bench_num(results[i], BK_WINDOW_SEEN_SECONDS);
        const char *started = cJSON_GetStringValue(bench_get(results[i], BK_START_TIME));
        double t0 = util_rfc3339_parse(started);
        if (isfinite(seen) && t0 > 0 && t0 < ready)
            d->plan->start_notice_s = fmax(d->plan->start_notice_s, barrier + seen - ready);
    }
}

/* The results read: the status gets the aggregate, the result ConfigMap is planned, the checks
 * run, and the run ends. */
static void conclude(struct dctx *d, struct api_worker *w, int n)
{
    const struct ctrl_observed *o = d->obs;
    const cJSON **results = util_xcalloc((size_t)n, sizeof(const cJSON *));
    for (int i = 0; i < n; i++) {
        w[i].result = o->results[i];
        results[i] = o->results[i];
        const char *why = o->result_errors[i];
        if (o->results[i] && o->result_detail[i] != CTRL_DETAIL_FULL)
            w[i].detail_missing = why ? why : "the pod log was not read";
        else
            (void)snprintf(w[i].error, sizeof(w[i].error), "%s", why ? why : "");
    }
    for (int i = 0; i < n; i++)
        if (!w[i].pod)
            missing_pod(d, w[i].error, sizeof(w[i].error));
    char err[256];
    cJSON *agg = ctrl_collect_aggregate(o->results, o->kept, n, err, sizeof(err));
    bool bounded = bench_aggregate_bounded(agg);
    api_status_set_results(d->st, agg, w, n);
    add_timing(d, agg, results, n);
    result_configmap(d, agg, n);
    check_skew(d, agg);
    bool detail_missing = check_detail(d, w, n, bounded);
    end_collecting(d, w, n, agg, detail_missing);
    cJSON_Delete(agg);
    free(results);
}

static void decide_collecting(struct dctx *d)
{
    const struct ctrl_observed *o = d->obs;
    int n = (int)util_jnum(o->run_job, "spec.completions", d->spec.workers);
    if (n < 1 || n > API_MAX_WORKERS)
        n = d->spec.workers;
    struct api_worker *w = util_xcalloc((size_t)n, sizeof(*w));
    for (int i = 0; i < n; i++)
        fill_worker(&w[i], i, find_pod(o, "run", i));
    if (collect_waits(d, w, n))
        ; /* the pods first */
    else if (!o->results_fetched)
        plan_result_logs(d, w, n);
    else
        conclude(d, w, n);
    free(w);
}

static void decide_terminal(struct dctx *d)
{
    /* Cleanup is idempotent: Jobs still in the cache are deleted again (cleanupPolicy Delete). */
    if (d->spec.cleanup_delete && (d->obs->init_job || d->obs->run_job)) {
        const struct api_spec *s = &d->spec;
        char n[300];
        if (d->obs->init_job) {
            api_child_name(d->name, API_CHILD_INIT, n, sizeof(n));
            action(d, CTRL_ACT_DELETE, &KUBE_JOBS, n, NULL);
        }
        if (d->obs->run_job) {
            api_child_name(d->name, API_CHILD_RUN, n, sizeof(n));
            action(d, CTRL_ACT_DELETE, &KUBE_JOBS, n, NULL);
        }
        (void)s;
    }
}

/* Appends s (NULL = nothing) to out[0..at), cut to fit on a UTF-8 character boundary; returns the
 * new length. Messages are joined with it where a format would warn of the (wanted) cut. */
static size_t append_cut(char *out, size_t len, size_t at, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (at >= len)
        return at;
    if (n > len - 1 - at) {
        n = len - 1 - at; /* < strlen(s): s[n] is a byte of the string */
        // NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult)
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    if (n)
        memcpy(out + at, s, n);
    out[at + n] = '\0';
    return at + n;
}

/* A run that ended while its workers were blocked: WorkersBlocked turns False (the workers will
 * never start now), and a run that fails now says what it waited on. */
static void end_blocked(struct dctx *d)
{
    enum api_phase np = phase_of(d->st);
    bool failed = np == API_PHASE_FAILED;
    if (!failed && np != API_PHASE_SUCCEEDED)
        return;
    const cJSON *c = api_cond_get(d->st, API_COND_WORKERS_BLOCKED);
    const char *cs = util_jstr(c, "status");
    if (!cs || strcmp(cs, "True") != 0)
        return;
    char was[API_MAX_MESSAGE], msg[API_MAX_MESSAGE];
    size_t n = 0;
    (void)append_cut(was, sizeof(was), 0, util_jstr(c, "message"));
    if (failed && d->old_phase != API_PHASE_FAILED) {
        const cJSON *f = api_cond_get(d->st, "Failed");
        char reason[64];
        (void)append_cut(reason, sizeof(reason), 0,
                         util_jstr(f, "reason") ? util_jstr(f, "reason") : "Failed");
        n = append_cut(msg, sizeof(msg), 0, bench_status_str(d->st, BK_STATUS_MESSAGE));
        n = append_cut(msg, sizeof(msg), n, "; the workers were blocked: ");
        (void)append_cut(msg, sizeof(msg), n, was);
        cond(d, "Failed", "True", reason, msg);
        set_message(d, msg);
    }
    n = append_cut(msg, sizeof(msg), 0, "the run ended (");
    n = append_cut(msg, sizeof(msg), n, api_phase_name(np));
    n = append_cut(msg, sizeof(msg), n, ") while the workers were blocked: ");
    (void)append_cut(msg, sizeof(msg), n, was);
    cond(d, API_COND_WORKERS_BLOCKED, "False", failed ? "RunFailed" : "RunSucceeded", msg);
}

/* The phase's decision: what to do from here (phase: the observed one, or Pending again for a
 * refused run whose spec changed). */
static void decide_phase(struct dctx *d, enum api_phase phase, bool started)
{
    const struct ctrl_observed *obs = d->obs;
    char err[512];
    if (obs->error_reason) {
        /* a child the API server refuses for good (e.g. 422 Invalid) fails the run; the spec,
         * when it can be read, tells fail()'s cleanup which children to delete (have_spec) */
        (void)load_spec(d, started, err, sizeof(err));
        /* a create-first plan (plan.create_first) may have made children of a run whose status
         * does not say it started yet: they are cleaned up as a started run's */
        fail(d, obs->error_reason, obs->error_message ? obs->error_message : "", true);
    } else if (phase == API_PHASE_PENDING) {
        decide_pending(d);
    } else if (load_spec(d, started, err, sizeof(err)) != 0) {
        /* only reachable when the snapshot and the object are both unreadable */
        if (phase != API_PHASE_SUCCEEDED && phase != API_PHASE_FAILED)
            fail(d, "InvalidSpec", err, false);
    } else {
        check_spec_locked(d);
        if (phase == API_PHASE_INITIALIZING)
            decide_initializing(d);
        else if (phase == API_PHASE_RUNNING)
            decide_running(d);
        else if (phase == API_PHASE_COLLECTING)
            decide_collecting(d);
        else
            decide_terminal(d);
    }
}

/* A plan that fetches first (or retries) writes nothing yet: its writes and Events go. */
static void plan_drop_writes(struct ctrl_plan *plan)
{
    for (int i = 0; i < plan->n_actions; i++)
        cJSON_Delete(plan->actions[i].object);
    plan->n_actions = 0;
    plan->n_events = 0;
    plan->dropped_actions = plan->dropped_events = 0;
    free(plan->annotate);
    plan->annotate = NULL;
    plan->n_annotate = 0;
    cJSON_Delete(plan->result_cm);
    plan->result_cm = NULL;
}

/* The status as it is observed, normalised: a copy (d->st), startAt as RFC 3339, a phase. */
static void load_status(struct dctx *d, const cJSON *old)
{
    d->st = old && cJSON_IsObject(old) ? util_must(cJSON_Duplicate(old, 1)) : cJSON_CreateObject();
    d->old_phase = phase_of(old);
    (void)snprintf(d->plan->phase, sizeof(d->plan->phase), "%s", api_phase_name(d->old_phase));
    const cJSON *sa = bench_status_get(d->st, BK_STATUS_START_AT);
    if (cJSON_IsNumber(sa)) { /* Unix seconds, as an operator before issue 18 wrote it */
        char ts[40];
        util_rfc3339(sa->valuedouble, 3, ts, sizeof(ts));
        bench_status_set_str(d->st, BK_STATUS_START_AT, ts);
    }
    if (!bench_status_str(d->st, BK_STATUS_PHASE))
        set_phase(d, API_PHASE_PENDING);
}

int ctrl_decide(const struct ctrl_observed *obs, struct ctrl_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    const cJSON *br = obs->br;
    struct dctx d = {.obs = obs, .plan = plan};
    d.name = util_jstr(br, "metadata.name");
    d.ns = util_jstr(br, "metadata.namespace");
    if (!d.name || !d.ns)
        return -EINVAL;
    d.gen = (long)util_jnum(br, "metadata.generation", 1);
    if (util_jget(br, "metadata.deletionTimestamp"))
        return 0; /* garbage collection removes the children */

    const cJSON *old = cJSON_GetObjectItemCaseSensitive(br, "status");
    load_status(&d, old);
    enum api_phase phase = d.old_phase;
    bool started = start_generation(d.st) > 0;
    /* A run refused before it started is evaluated again when its spec changes. */
    if (phase == API_PHASE_FAILED && !started) {
        const cJSON *og = bench_status_get(d.st, BK_STATUS_OBSERVED_GENERATION);
        if (cJSON_IsNumber(og) && (long)og->valuedouble < d.gen)
            phase = API_PHASE_PENDING;
    }
    decide_phase(&d, phase, started);

    if (plan->needs || plan->retry) {
        /* fetch first, then decide again: nothing is written yet */
        plan_drop_writes(plan);
        cJSON_Delete(d.st);
        api_spec_free(&d.spec);
        return 0;
    }

    end_blocked(&d);
    bench_status_set_num(d.st, BK_STATUS_OBSERVED_GENERATION, (double)d.gen);
    enum api_phase np = phase_of(d.st);
    if (np != d.old_phase || !old) {
        const char *name = api_phase_name(np), *m = bench_status_str(d.st, BK_STATUS_MESSAGE);
        event(&d, np == API_PHASE_FAILED, name, "%s", m ? m : name);
    }
    if (old && cJSON_Compare(d.st, old, 1))
        cJSON_Delete(d.st);
    else
        plan->status = d.st;
    api_spec_free(&d.spec);
    return 0;
}

/* ---- the Events a status records --------------------------------------------------------- */

/* The condition whose message a phase's Event carries (NULL: Collecting, a fixed message). */
static const struct {
    enum api_phase phase;
    const char *cond;
} PHASE_EVENTS[] = {{API_PHASE_INITIALIZING, "Initialized"},
                    {API_PHASE_RUNNING, "Running"},
                    {API_PHASE_COLLECTING, NULL},
                    {API_PHASE_SUCCEEDED, "Complete"},
                    {API_PHASE_FAILED, "Failed"}};
/* Conditions announced by a Warning Event of their own name while True. */
static const char *const WARNING_CONDITIONS[] = {
    API_COND_WORKERS_BLOCKED,    "SpecLocked",
    API_COND_WORKERS_SKEWED,     API_COND_RESULT_DETAIL_UNAVAILABLE,
    API_COND_WORKERS_SHARE_NODE, NULL};

static bool implied(struct ctrl_event *e, bool warning, const char *reason, const char *message,
                    double at, double now)
{
    if (at > 0 && now - at > CTRL_EVENT_RESEND_S)
        return false;
    memset(e, 0, sizeof(*e));
    e->warning = warning;
    (void)snprintf(e->reason, sizeof(e->reason), "%s", reason);
    (void)snprintf(e->message, sizeof(e->message), "%s", message);
    e->time = at > 0 ? at : 0;
    return true;
}

int ctrl_status_events(const cJSON *br, double now, struct ctrl_event *out, int max)
{
    const cJSON *st = util_jget(br, "status");
    enum api_phase ph = bench_status_str(st, BK_STATUS_PHASE) ? phase_of(st) : API_PHASE_UNKNOWN;
    const char *phase = api_phase_name(ph);
    int n = 0;
    for (size_t i = 0; i < sizeof(PHASE_EVENTS) / sizeof(PHASE_EVENTS[0]); i++) {
        if (ph != PHASE_EVENTS[i].phase || n >= max)
            continue;
        if (!PHASE_EVENTS[i].cond) {
            n += implied(&out[n], false, phase, CTRL_COLLECTING_MESSAGE, 0, now);
            continue;
        }
        const cJSON *c = api_cond_get(st, PHASE_EVENTS[i].cond);
        const char *m = util_jstr(c, "message");
        double at = util_rfc3339_parse(util_jstr(c, "lastTransitionTime"));
        /* a run that Succeeded went through Collecting just before */
        if (m && ph == API_PHASE_SUCCEEDED && n < max)
            n += implied(&out[n], false, api_phase_name(API_PHASE_COLLECTING),
                         CTRL_COLLECTING_MESSAGE, at, now);
        if (m && n < max)
            n += implied(&out[n], ph == API_PHASE_FAILED, phase, m, at, now);
    }
    for (int i = 0; WARNING_CONDITIONS[i] && n < max; i++) {
        const cJSON *c = api_cond_get(st, WARNING_CONDITIONS[i]);
        const char *cs = util_jstr(c, "status"), *m = util_jstr(c, "message");
        if (cs && strcmp(cs, "True") == 0 && m)
            n += implied(&out[n], true, WARNING_CONDITIONS[i], m,
                         util_rfc3339_parse(util_jstr(c, "lastTransitionTime")), now);
    }
    return n;
}

void ctrl_event_name(const cJSON *br, const struct ctrl_event *e, char *out, size_t len)
{
    /* FNV-1a (64 bits) of uid, type, reason and message, each ended by a NUL */
    uint64_t h = 14695981039346656037ULL;
    const char *parts[] = {util_jstr(br, "metadata.uid"), e->warning ? "Warning" : "Normal",
                           e->reason, e->message};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        const char *p = parts[i] ? parts[i] : "";
        do {
            h ^= (unsigned char)*p;
            h *= 1099511628211ULL;
        } while (*p++);
    }
    const char *name = util_jstr(br, "metadata.name");
    (void)snprintf(out, len, "%.200s.%016llx", name ? name : "", (unsigned long long)h);
}

cJSON *ctrl_event_object(const char *kind, const cJSON *obj, const struct ctrl_event *e,
                         const char *name, const struct api_config *cfg)
{
    const char *ns = util_jstr(obj, "metadata.namespace"), *oname = util_jstr(obj, "metadata.name");
    if (!ns || !oname)
        return NULL;
    char ts[40];
    util_rfc3339(e->time > 0 ? e->time : util_wall_s(), 0, ts, sizeof(ts));
    cJSON *ev = cJSON_CreateObject();
    cJSON *md = cJSON_AddObjectToObject(ev, "metadata");
    cJSON_AddStringToObject(md, "name", name);
    cJSON_AddStringToObject(md, "namespace", ns);
    cJSON *inv = cJSON_AddObjectToObject(ev, "involvedObject");
    cJSON_AddStringToObject(inv, "apiVersion", "pgbench.dev/v1alpha1");
    cJSON_AddStringToObject(inv, "kind", kind);
    cJSON_AddStringToObject(inv, "name", oname);
    cJSON_AddStringToObject(inv, "namespace", ns);
    const char *uid = util_jstr(obj, "metadata.uid");
    if (uid)
        cJSON_AddStringToObject(inv, "uid", uid);
    cJSON_AddStringToObject(ev, "reason", e->reason);
    cJSON_AddStringToObject(ev, "message", e->message);
    cJSON_AddStringToObject(ev, "type", e->warning ? "Warning" : "Normal");
    cJSON *src = cJSON_AddObjectToObject(ev, "source");
    cJSON_AddStringToObject(src, "component", cfg->component);
    cJSON_AddStringToObject(ev, "firstTimestamp", ts);
    cJSON_AddStringToObject(ev, "lastTimestamp", ts);
    cJSON_AddNumberToObject(ev, "count", 1);
    cJSON_AddStringToObject(ev, "reportingComponent", cfg->component);
    cJSON_AddStringToObject(ev, "reportingInstance", cfg->instance);
    return ev;
}
