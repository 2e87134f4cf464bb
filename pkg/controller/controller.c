/* The controller: caches, queue, and the asynchronous executor of ctrl_decide() plans. */
#include "pkg/controller/controller.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/bench/fields.h"
#include "pkg/bench/result.h"
#include "pkg/controller/reconcile.h"
#include "pkg/controller/status.h"
#include "pkg/util/log.h"
#include "pkg/util/clock.h"

#define COMP "controller"
#define MAX_CONFLICT_RETRIES 5
/* A worker's result is the last line of its log. The runtime stores a line longer than 16 KiB
 * as several records and tailLines counts records (the kubelet joins them again in its answer),
 * so the last lines can hold the end of a long result line only: then the log is read from its
 * start, up to LOG_MAX_BYTES (86400 timeline points take about 11 MiB). */
#define LOG_TAIL_LINES 64
#define LOG_MAX_BYTES (32L * 1024 * 1024)
#define LOG_TIMEOUT_MS 60000
#define LOG_PARALLEL 4 /* logs read at once by one reconcile */
/* A transient answer (no answer, 429, 5xx) to a log read or an Event: tried this often in all,
 * after RETRY_BASE_MS, twice that, ... (jittered). */
#define LOG_TRIES 4
#define EVENT_TRIES 4
#define RETRY_BASE_MS 500
/* Until every cache has synced a key waits this long, undecided. */
#define SYNC_WAIT_MS 200
/* Events this process knows exist, per run (see sent_*). */
#define SENT_BUCKETS 256
#define SENT_KEEP 8

struct rec;

/* Creates this process made recently, so that a reconcile triggered before the informer has
 * seen the new object does not POST it again (client-go "expectations"). Memory only: after a
 * restart the create is simply sent and answered 409 AlreadyExists. */
#define EXPECT_MAX 2048
#define EXPECT_TTL_MS 10000
struct expectation {
    char key[300]; /* resource/ns/name */
    uint64_t at;
};

/* The Events of a run this process has sent (or found already there: 409), by their name's
 * hash: an Event the run's status implies (ctrl_status_events) but that is not here is sent
 * again, so a kill between the status write and the Event loses nothing. Memory only: after a
 * restart every implied Event is sent once more, and is answered 409 AlreadyExists when it
 * exists. */
struct sent_entry {
    struct sent_entry *next;
    uint64_t h[SENT_KEEP]; /* ring */
    int n;
    char key[]; /* namespace/name */
};

/* One Event on its way: retried after a transient failure. */
struct ev_send {
    struct ctrl_controller *c;
    struct ev_send *next, *prev;
    cJSON *ev;
    char key[512];
    uint64_t h;
    int attempt;
    uv_timer_t timer;
};

struct ctrl_controller {
    uv_loop_t *loop;
    struct kube_client *kc;
    struct ctrl_options opt;
    char *ns;
    struct kube_informer *brs, *jobs, *pods, *events;
    struct kube_queue *q;
    struct rec *recs;    /* in flight, for free() */
    struct ev_send *evs; /* Events in flight or waiting to be retried */
    struct sent_entry *sent[SENT_BUCKETS];
    uint64_t rng;               /* retry jitter */
    struct expectation *expect; /* grows with a burst of creates, freed once all expired */
    int n_expect, cap_expect;
    int inflight;
    /* metrics */
    uint64_t reconciles, reconcile_errors, conflicts, creates, deletes, status_writes, events_sent,
        api_write_errors;
    struct ctrl_metrics_histogram lat;
};

struct log_fetch;
static void sent_forget(struct ctrl_controller *c, const char *key);

struct rec {
    struct ctrl_controller *c;
    struct rec *next, *prev;
    char key[512], ns[256], name[256];
    uint64_t t0;
    cJSON *br, *init_job, *run_job;
    cJSON *pods[CTRL_MAX_PODS];
    int n_pods;
    cJSON *events[CTRL_MAX_EVENTS];
    int n_events;
    struct ctrl_observed obs;
    struct ctrl_plan plan;
    int pending;           /* fetches in flight */
    bool fetch_failed;     /* one of them failed: retry the reconcile */
    struct log_fetch *lfs; /* log reads of this reconcile (in flight or waiting) */
    int log_next;          /* next plan.logs entry to read */
    int conflicts;         /* status write retries */
    struct progress_fetch {
        struct rec *r;
        int index;
    } pf[CTRL_MAX_WORKERS]; /* progress reads in flight, by plan.progress entry */
    int step;               /* next action */
    int ann_step;           /* next plan.annotate pod, once the actions are done */
    bool error_set;
    char error_message[600];
};

/* ---- transforms --------------------------------------------------------------------------- */

static void keep_keys(cJSON *o, const char *const *keys)
{
    if (!cJSON_IsObject(o))
        return;
    cJSON *it = o->child;
    while (it) {
        cJSON *next = it->next;
        bool keep = false;
        for (const char *const *k = keys; *k; k++)
            if (it->string && strcmp(it->string, *k) == 0)
                keep = true;
        if (!keep)
            cJSON_Delete(cJSON_DetachItemViaPointer(o, it));
        it = next;
    }
}

static const char *const meta_keys[] = {
    "name", "namespace", "resourceVersion", "labels", "annotations", "deletionTimestamp", NULL};

void ctrl_transform_benchmarkrun(cJSON *obj, void *ud)
{
    (void)ud;
    static const char *const top[] = {"metadata", "spec", "status", NULL};
    static const char *const meta[] = {
        "name", "namespace", "uid", "generation", "resourceVersion", "deletionTimestamp", NULL};
    keep_keys(obj, top);
    keep_keys(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), meta);
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    const char *phase = ctrl_jstr(st, "phase");
    if (phase && (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0)) {
        /* results are never read again by the controller; status writes are merge patches */
        static const char *const keep[] = {
            "phase", "observedGeneration", "conditions", "startAt", "summary", NULL};
        keep_keys(st, keep);
    } else {
        /* the rest is written once at a transition, never read back by a decision; the live
         * progress is read back (when it was last read, whether it changed) */
        static const char *const keep[] = {"phase",   "observedGeneration", "conditions",
                                           "startAt", "startTime",          "hpaTimeline",
                                           "summary", "progress",           NULL};
        keep_keys(st, keep);
    }
    /* of the results, only the few numbers /metrics shows per run */
    ctrl_metrics_trim_status(st);
}

static void keep_label_keys(cJSON *o, const char *const *keys)
{
    if (o)
        keep_keys(o, keys);
}

void ctrl_transform_job(cJSON *obj, void *ud)
{
    (void)ud;
    static const char *const top[] = {"metadata", "spec", "status", NULL};
    keep_keys(obj, top);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    keep_keys(md, meta_keys);
    static const char *const labels[] = {CTRL_LABEL_RUN, CTRL_LABEL_ROLE, NULL};
    static const char *const ann[] = {CTRL_SPEC_ANNOTATION, NULL};
    keep_label_keys(cJSON_GetObjectItemCaseSensitive(md, "labels"), labels);
    keep_label_keys(cJSON_GetObjectItemCaseSensitive(md, "annotations"), ann);
    static const char *const spec[] = {"completions", NULL};
    keep_keys(cJSON_GetObjectItemCaseSensitive(obj, "spec"), spec);
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    static const char *const status[] = {"conditions", "succeeded", "failed", "active", NULL};
    keep_keys(st, status);
    /* lastTransitionTime: how long ago the Job finished (its pods' grace, CTRL_POD_SETTLE_S) */
    static const char *const cond[] = {"type", "status", "reason", "message", "lastTransitionTime",
                                       NULL};
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(st, "conditions")) keep_keys(c, cond);
}

void ctrl_transform_pod(cJSON *obj, void *ud)
{
    (void)ud;
    static const char *const top[] = {"metadata", "status", NULL};
    keep_keys(obj, top);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    keep_keys(md, meta_keys);
    static const char *const labels[] = {CTRL_LABEL_RUN, CTRL_LABEL_ROLE,
                                         "batch.kubernetes.io/job-completion-index", NULL};
    static const char *const ann[] = {CTRL_START_ANNOTATION,
                                      "batch.kubernetes.io/job-completion-index", NULL};
    static const char *const ann_start[] = {CTRL_START_ANNOTATION, NULL};
    cJSON *lab = cJSON_GetObjectItemCaseSensitive(md, "labels");
    keep_label_keys(lab, labels);
    /* the index: the label suffices when there is one; the start barrier published on the pod */
    keep_label_keys(cJSON_GetObjectItemCaseSensitive(md, "annotations"),
                    ctrl_jkey(lab, "batch.kubernetes.io/job-completion-index") ? ann_start : ann);
    cJSON *annotations = cJSON_GetObjectItemCaseSensitive(md, "annotations");
    if (annotations && !annotations->child)
        cJSON_DeleteItemFromObjectCaseSensitive(md, "annotations");
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    static const char *const status[] = {"phase", "containerStatuses", "conditions", NULL};
    keep_keys(st, status);
    static const char *const cs_keys[] = {"state", NULL};
    static const char *const state_keys[] = {"terminated", "waiting", NULL};
    static const char *const term_keys[] = {"exitCode", "reason", "message", NULL};
    static const char *const why_keys[] = {"reason", "message", NULL};
    cJSON *cs;
    cJSON_ArrayForEach(cs, cJSON_GetObjectItemCaseSensitive(st, "containerStatuses"))
    {
        keep_keys(cs, cs_keys);
        cJSON *state = cJSON_GetObjectItemCaseSensitive(cs, "state");
        keep_keys(state, state_keys);
        keep_keys(cJSON_GetObjectItemCaseSensitive(state, "terminated"), term_keys);
        keep_keys(cJSON_GetObjectItemCaseSensitive(state, "waiting"), why_keys);
    }
    /* of the conditions only an unscheduled pod's PodScheduled says why a worker does not start,
     * and Ready when the workers start together (its type and status) */
    cJSON *conds = cJSON_GetObjectItemCaseSensitive(st, "conditions");
    static const char *const cond_keys[] = {"type", "status", "reason", "message", NULL};
    static const char *const ready_keys[] = {"type", "status", NULL};
    for (int i = cJSON_GetArraySize(conds) - 1; i >= 0; i--) {
        cJSON *c = cJSON_GetArrayItem(conds, i);
        const char *type = ctrl_jstr(c, "type"), *cstatus = ctrl_jstr(c, "status");
        if (type && strcmp(type, "PodScheduled") == 0 && cstatus && strcmp(cstatus, "False") == 0)
            keep_keys(c, cond_keys);
        else if (type && strcmp(type, "Ready") == 0)
            keep_keys(c, ready_keys);
        else
            cJSON_DeleteItemFromArray(conds, i);
    }
    if (conds && cJSON_GetArraySize(conds) == 0)
        cJSON_DeleteItemFromObjectCaseSensitive(st, "conditions");
}

/* Warning events say why a worker waits where its status does not. Only three matter, each about
 * a child whose name the run decides, so a cluster's other Warnings cost a parse and are dropped:
 * the kubelet's FailedMount of a worker pod (<br>-init-..., <br>-run-...), the pv controller's
 * ProvisioningFailed of the fio claim (<br>-fio), the Job controller's FailedCreate of a run's Job
 * (<br>-init, <br>-run). */
struct event_kind {
    const char *reason, *kind;
};
static const struct event_kind EVENT_KINDS[] = {{"FailedMount", "Pod"},
                                                {"ProvisioningFailed", "PersistentVolumeClaim"},
                                                {"FailedCreate", "Job"},
                                                {NULL, NULL}};

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n > m && strcmp(s + n - m, suf) == 0;
}

void ctrl_transform_event(cJSON *obj, void *ud)
{
    (void)ud;
    /* the last time it was seen: core/v1 lastTimestamp, else what events.k8s.io/v1 writers set */
    const char *when = ctrl_jstr(obj, "lastTimestamp");
    if (!when)
        when = ctrl_jstr(obj, "series.lastObservedTime");
    if (!when)
        when = ctrl_jstr(obj, "eventTime");
    if (!when)
        when = ctrl_jstr(obj, "firstTimestamp");
    if (!when)
        when = ctrl_jstr(obj, "metadata.creationTimestamp");
    cJSON *t = when ? ctrl_must(cJSON_CreateString(when)) : NULL;
    static const char *const top[] = {"metadata", "involvedObject", "reason", "message", NULL};
    keep_keys(obj, top);
    static const char *const meta[] = {"name", "namespace", "resourceVersion", NULL};
    keep_keys(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), meta);
    static const char *const inv[] = {"kind", "name", NULL};
    keep_keys(cJSON_GetObjectItemCaseSensitive(obj, "involvedObject"), inv);
    cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, "message");
    if (cJSON_IsString(m) && strlen(m->valuestring) > CTRL_EVENT_MESSAGE_MAX) {
        /* cut on a UTF-8 character boundary: the text may end up in status */
        size_t n = CTRL_EVENT_MESSAGE_MAX;
        while (n > 0 && ((unsigned char)m->valuestring[n] & 0xC0) == 0x80)
            n--;
        char cut[CTRL_EVENT_MESSAGE_MAX + 1];
        memcpy(cut, m->valuestring, n);
        cut[n] = '\0';
        ctrl_jset_str(obj, "message", cut);
    }
    if (t)
        ctrl_jset(obj, "time", t);
}

bool ctrl_event_relevant(const cJSON *obj, void *ud)
{
    (void)ud;
    const char *reason = ctrl_jstr(obj, "reason");
    const char *kind = ctrl_jstr(obj, "involvedObject.kind");
    const char *name = ctrl_jstr(obj, "involvedObject.name");
    if (!reason || !kind || !name || !ctrl_jstr(obj, "metadata.namespace"))
        return false;
    const struct event_kind *k = EVENT_KINDS;
    while (k->reason && (strcmp(k->reason, reason) != 0 || strcmp(k->kind, kind) != 0))
        k++;
    if (!k->reason)
        return false;
    if (strcmp(kind, "Pod") == 0)
        return strstr(name, "-init-") || strstr(name, "-run-");
    if (strcmp(kind, "Job") == 0)
        return has_suffix(name, "-init") || has_suffix(name, "-run");
    return has_suffix(name, "-fio");
}

/* "ns/Kind/name" of the object an event is about: the events cache's index. */
static bool event_key(const cJSON *ev, char *buf, size_t n, void *ud)
{
    (void)ud;
    const char *ns = ctrl_jstr(ev, "metadata.namespace");
    const char *kind = ctrl_jstr(ev, "involvedObject.kind");
    const char *name = ctrl_jstr(ev, "involvedObject.name");
    if (!ns || !kind || !name)
        return false;
    int len = snprintf(buf, n, "%s/%s/%s", ns, kind, name);
    return len > 0 && (size_t)len < n;
}

/* ---- event handlers ----------------------------------------------------------------------- */

static void enqueue_key(struct ctrl_controller *c, const char *ns, const char *name)
{
    if (!ns || !name)
        return;
    char key[512];
    (void)snprintf(key, sizeof(key), "%s/%s", ns, name);
    kube_queue_add(c->q, key);
}

static void br_add(const cJSON *obj, void *ud)
{
    enqueue_key(ud, ctrl_jstr(obj, "metadata.namespace"), ctrl_jstr(obj, "metadata.name"));
}

static void br_update(const cJSON *old_obj, const cJSON *new_obj, void *ud)
{
    (void)old_obj;
    br_add(new_obj, ud);
}

/* The key ("namespace/name") of the BenchmarkRun a Job or Pod belongs to, by its run label;
 * also the pod cache's index, so that a reconcile reads its own run's pods only. */
static bool owner_key(const cJSON *child, char *buf, size_t n, void *ud)
{
    (void)ud;
    const char *ns = ctrl_jstr(child, "metadata.namespace");
    const char *owner = ctrl_jkey(ctrl_jget(child, "metadata.labels"), CTRL_LABEL_RUN);
    if (!ns || !owner)
        return false;
    int len = snprintf(buf, n, "%s/%s", ns, owner);
    return len > 0 && (size_t)len < n;
}

static void child_event(const cJSON *obj, void *ud)
{
    struct ctrl_controller *c = ud;
    char key[512];
    if (owner_key(obj, key, sizeof(key), NULL))
        kube_queue_add(c->q, key);
}

static void child_update(const cJSON *old_obj, const cJSON *new_obj, void *ud)
{
    (void)old_obj;
    child_event(new_obj, ud);
}

/* A Warning event: the run of the pod (through the pod cache), or of the Job or claim (their
 * names are the run's name plus a suffix, and the run must be cached). */
static void warning_event(const cJSON *ev, void *ud)
{
    struct ctrl_controller *c = ud;
    const char *ns = ctrl_jstr(ev, "metadata.namespace");
    const char *kind = ctrl_jstr(ev, "involvedObject.kind");
    const char *name = ctrl_jstr(ev, "involvedObject.name");
    if (!ns || !kind || !name)
        return;
    char key[512];
    if (strcmp(kind, "Pod") == 0) {
        cJSON *pod = kube_informer_copy(c->pods, ns, name);
        bool ok = pod && owner_key(pod, key, sizeof(key), NULL);
        cJSON_Delete(pod);
        if (ok)
            kube_queue_add(c->q, key);
        return;
    }
    char br[300];
    (void)snprintf(br, sizeof(br), "%s", name);
    char *dash = strrchr(br, '-');
    if (!dash)
        return;
    *dash = '\0';
    cJSON *run = kube_informer_copy(c->brs, ns, br);
    if (run)
        enqueue_key(c, ns, br);
    cJSON_Delete(run);
}

static void warning_event_update(const cJSON *old_obj, const cJSON *new_obj, void *ud)
{
    (void)old_obj;
    warning_event(new_obj, ud);
}

static void br_delete(const cJSON *obj, void *ud)
{
    struct ctrl_controller *c = ud;
    char key[512];
    (void)snprintf(key, sizeof(key), "%s/%s", ctrl_jstr(obj, "metadata.namespace"),
                   ctrl_jstr(obj, "metadata.name"));
    kube_queue_forget(c->q, key);
    sent_forget(c, key);
}

/* ---- reconcile ---------------------------------------------------------------------------- */

static void rec_decide(struct rec *r);
static void rec_execute(struct rec *r);
static void rec_next_action(struct rec *r);
static void lf_free(struct log_fetch *lf);

static void rec_free(struct rec *r)
{
    struct ctrl_controller *c = r->c;
    if (r->prev)
        r->prev->next = r->next;
    else
        c->recs = r->next;
    if (r->next)
        r->next->prev = r->prev;
    c->inflight--;
    while (r->lfs) /* only at ctrl_controller_free: their requests are cancelled */
        lf_free(r->lfs);
    cJSON_Delete(r->br);
    cJSON_Delete(r->init_job);
    cJSON_Delete(r->run_job);
    for (int i = 0; i < r->n_pods; i++)
        cJSON_Delete(r->pods[i]);
    for (int i = 0; i < r->n_events; i++)
        cJSON_Delete(r->events[i]);
    for (int i = 0; i < CTRL_MAX_WORKERS; i++) {
        cJSON_Delete(r->obs.results[i]);
        free(r->obs.result_errors[i]);
    }
    free(r->obs.progress);
    ctrl_plan_free(&r->plan);
    free(r);
}

static void rec_finish(struct rec *r, bool error)
{
    struct ctrl_controller *c = r->c;
    double dt = (double)(uv_hrtime() - r->t0) / 1e9;
    ctrl_metrics_observe(&c->lat, dt);
    c->reconciles++;
    if (error) {
        c->reconcile_errors++;
        kube_queue_add_rate_limited(c->q, r->key);
    } else {
        kube_queue_forget(c->q, r->key);
        if (r->plan.requeue_ms > 0)
            kube_queue_add_after(c->q, r->key, r->plan.requeue_ms);
    }
    log_debug(COMP, "reconciled %s phase=%s in %.1f ms%s, again in %ld ms", r->key, r->plan.phase,
              dt * 1000, error ? " (retry)" : "", error ? -1 : r->plan.requeue_ms);
    kube_queue_done(c->q, r->key);
    rec_free(r);
}

static void collect_pod(const cJSON *pod, void *ud)
{
    struct rec *r = ud;
    if (r->n_pods >= CTRL_MAX_PODS)
        return;
    r->pods[r->n_pods] = cJSON_Duplicate(pod, 1);
    if (!r->pods[r->n_pods])
        abort();
    r->n_pods++;
}

static void collect_event(const cJSON *ev, void *ud)
{
    struct rec *r = ud;
    if (r->n_events >= CTRL_MAX_EVENTS)
        return;
    r->events[r->n_events] = ctrl_must(cJSON_Duplicate(ev, 1));
    r->n_events++;
}

/* The cached Warning events about the run's pods, fio claim and Jobs. */
static void collect_events(struct rec *r)
{
    struct ctrl_controller *c = r->c;
    for (int i = 0; i < r->n_events; i++)
        cJSON_Delete(r->events[i]);
    r->n_events = 0;
    char k[700], n[300];
    for (int i = 0; i < r->n_pods; i++) {
        (void)snprintf(k, sizeof(k), "%s/Pod/%s", r->ns, ctrl_jstr(r->pods[i], "metadata.name"));
        kube_informer_foreach_indexed(c->events, k, collect_event, r);
    }
    const enum ctrl_child children[] = {CTRL_CHILD_INIT, CTRL_CHILD_RUN, CTRL_CHILD_FIO_PVC};
    for (size_t i = 0; i < sizeof(children) / sizeof(children[0]); i++) {
        ctrl_child_name(r->name, children[i], n, sizeof(n));
        (void)snprintf(k, sizeof(k), "%s/%s/%s", r->ns,
                       children[i] == CTRL_CHILD_FIO_PVC ? "PersistentVolumeClaim" : "Job", n);
        kube_informer_foreach_indexed(c->events, k, collect_event, r);
    }
    for (int i = 0; i < r->n_events; i++)
        r->obs.events[i] = r->events[i];
    r->obs.n_events = r->n_events;
}

/* (Re)loads the observed state from the caches; br_fresh (owned) replaces the cached object. */
static void rec_observe(struct rec *r, cJSON *br_fresh)
{
    struct ctrl_controller *c = r->c;
    cJSON_Delete(r->br);
    r->br = br_fresh;
    char n[300];
    ctrl_child_name(r->name, CTRL_CHILD_INIT, n, sizeof(n));
    cJSON_Delete(r->init_job);
    r->init_job = kube_informer_copy(c->jobs, r->ns, n);
    ctrl_child_name(r->name, CTRL_CHILD_RUN, n, sizeof(n));
    cJSON_Delete(r->run_job);
    r->run_job = kube_informer_copy(c->jobs, r->ns, n);
    const char *phase = ctrl_jstr(r->br, "status.phase");
    if (!r->obs.pods_fresh) { /* pods read from the API server stay: the cache may lag them */
        for (int i = 0; i < r->n_pods; i++)
            cJSON_Delete(r->pods[i]);
        r->n_pods = 0;
        if (phase && (strcmp(phase, "Initializing") == 0 || strcmp(phase, "Running") == 0 ||
                      strcmp(phase, "Collecting") == 0))
            kube_informer_foreach_indexed(c->pods, r->key, collect_pod, r);
    }
    r->obs.br = r->br;
    r->obs.init_job = r->init_job;
    r->obs.run_job = r->run_job;
    for (int i = 0; i < r->n_pods; i++)
        r->obs.pods[i] = r->pods[i];
    r->obs.n_pods = r->n_pods;
    collect_events(r);
}

static void process(struct kube_queue *q, const char *key, void *ud)
{
    struct ctrl_controller *c = ud;
    (void)q;
    const char *slash = strchr(key, '/');
    if (!slash || strlen(key) >= 500) {
        kube_queue_done(c->q, key);
        return;
    }
    if (!ctrl_controller_synced(c)) {
        /* nothing is decided from a cache that has not listed yet */
        log_debug(COMP, "%s: caches not synced yet; again in %d ms", key, SYNC_WAIT_MS);
        kube_queue_add_after(c->q, key, SYNC_WAIT_MS);
        kube_queue_done(c->q, key);
        return;
    }
    struct rec *r = calloc(1, sizeof(*r));
    if (!r)
        abort();
    r->c = c;
    r->t0 = uv_hrtime();
    (void)snprintf(r->key, sizeof(r->key), "%s", key);
    (void)snprintf(r->ns, sizeof(r->ns), "%.*s", (int)(slash - key), key);
    (void)snprintf(r->name, sizeof(r->name), "%s", slash + 1);
    r->next = c->recs;
    if (c->recs)
        c->recs->prev = r;
    c->recs = r;
    c->inflight++;
    cJSON *br = kube_informer_copy(c->brs, r->ns, r->name);
    if (!br) { /* deleted: nothing to do, children go with ownerReferences */
        kube_queue_forget(c->q, key);
        kube_queue_done(c->q, key);
        rec_free(r);
        return;
    }
    r->obs.cfg = &c->opt.cfg;
    rec_observe(r, br);
    rec_decide(r);
}

/* -- fetches -- */

static void rec_finish(struct rec *r, bool error);

static void fetch_done(struct rec *r)
{
    if (--r->pending > 0)
        return;
    if (r->fetch_failed) {
        rec_finish(r, true);
        return;
    }
    rec_decide(r);
}

static void on_scale_target(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    if (kube_ok(&res->status)) {
        r->obs.scale_target = CTRL_FETCH_OK;
    } else if (res->status.http == 404) {
        r->obs.scale_target = CTRL_FETCH_NOT_FOUND;
    } else {
        r->obs.scale_target = CTRL_FETCH_ERROR;
        (void)snprintf(r->obs.scale_target_error, sizeof(r->obs.scale_target_error), "%.200s",
                       res->status.message);
        log_warn(COMP, "%s: reading the HPA scale target: HTTP %d %s", r->key, res->status.http,
                 res->status.message);
    }
    fetch_done(r);
}

static void on_scale(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    if (kube_ok(&res->status)) {
        double v = ctrl_jnum(res->body, "status.replicas", -1);
        if (v < 0)
            v = ctrl_jnum(res->body, "spec.replicas", -1);
        r->obs.scale = v >= 0 ? CTRL_FETCH_OK : CTRL_FETCH_ERROR;
        r->obs.scale_replicas = (int)v;
    } else {
        r->obs.scale = res->status.http == 404 ? CTRL_FETCH_NOT_FOUND : CTRL_FETCH_ERROR;
    }
    fetch_done(r);
}

/* A worker's log tail for its progress: a missed sample is no error (the next interval reads
 * again), so there is no retry. */
static void on_progress_log(struct kube_result *res, void *ud)
{
    struct progress_fetch *pf = ud;
    struct rec *r = pf->r;
    if (kube_ok(&res->status) && res->text && pf->index >= 0 && pf->index < r->obs.n_progress)
        (void)ctrl_progress_parse(res->text, res->text_len, &r->obs.progress[pf->index]);
    fetch_done(r);
}

static void start_progress_reads(struct rec *r)
{
    struct ctrl_controller *c = r->c;
    struct ctrl_plan *p = &r->plan;
    char q[160];
    (void)snprintf(q, sizeof(q), "container=%s&tailLines=%d&limitBytes=%d", CTRL_CONTAINER,
                   CTRL_PROGRESS_TAIL_LINES, CTRL_PROGRESS_MAX_BYTES);
    int workers = 0;
    for (int k = 0; k < p->n_progress; k++)
        if (p->progress[k].index + 1 > workers)
            workers = p->progress[k].index + 1;
    free(r->obs.progress);
    r->obs.progress = calloc((size_t)(workers > 0 ? workers : 1), sizeof(*r->obs.progress));
    if (!r->obs.progress)
        abort();
    r->obs.n_progress = workers;
    r->obs.progress_fetched = true;
    for (int k = 0; k < p->n_progress && k < CTRL_MAX_WORKERS; k++) {
        struct kube_opts o = {.subresource = "log", .query = q};
        r->pf[k] = (struct progress_fetch){.r = r, .index = p->progress[k].index};
        r->pending++;
        if (kube_get(c->kc, &KUBE_PODS, r->ns, p->progress[k].pod, &o, on_progress_log, &r->pf[k]))
            r->pending--;
    }
}

static const struct kube_resource *scale_resource(const char *kind)
{
    return kind && strcmp(kind, "Deployment") == 0 ? &KUBE_DEPLOYMENTS : &KUBE_STATEFULSETS;
}

/* Jitter: d scaled into [d/2, d] (xorshift64, as the watch's backoff). */
static uint64_t jittered(struct ctrl_controller *c, uint64_t d)
{
    if (!c->rng)
        c->rng = (uv_hrtime() ^ (uint64_t)(uintptr_t)c ^ 0x9e3779b97f4a7c15ull) | 1;
    c->rng ^= c->rng << 13;
    c->rng ^= c->rng >> 7;
    c->rng ^= c->rng << 17;
    return d / 2 + c->rng % (d / 2 + 1);
}

/* An answer worth trying again: none (timeout, connection), 429, or a 5xx. */
static bool transient(const struct kube_status *st)
{
    if (st->http == 0)
        return strcmp(st->reason, "TooLarge") != 0;
    return st->http == 429 || st->http >= 500;
}

/* One worker's log read: the last LOG_TAIL_LINES records first, then (no whole result line
 * there) the log from its start up to LOG_MAX_BYTES; each retried after a transient error. */
struct log_fetch {
    struct rec *r;
    struct log_fetch *next, *prev;
    int index;
    const char *pod; /* the plan's */
    bool whole;      /* reading the log from its start */
    int attempt;
    bool timer_on;
    uv_timer_t timer;
};

static const char *pod_term_message(const struct rec *r, const char *pod)
{
    for (int i = 0; i < r->n_pods; i++) {
        if (strcmp(ctrl_jstr(r->pods[i], "metadata.name"), pod) != 0)
            continue;
        const cJSON *cs;
        cJSON_ArrayForEach(cs, ctrl_jget(r->pods[i], "status.containerStatuses"))
        {
            const char *m = ctrl_jstr(cs, "state.terminated.message");
            if (m)
                return m;
        }
    }
    return NULL;
}

/* A result in a text (a termination message: the compact summary, or a log's last lines). */
static cJSON *result_from_text(const char *text)
{
    if (!text)
        return NULL;
    cJSON *res = NULL;
    char err[128];
    if (bench_result_from_log(text, strlen(text), &res, err, sizeof(err)) != 0)
        return NULL;
    return res;
}

static void set_result_error(struct rec *r, int i, const char *why)
{
    free(r->obs.result_errors[i]);
    r->obs.result_errors[i] = strdup(why);
    if (!r->obs.result_errors[i])
        abort();
}

static void lf_closed(uv_handle_t *h)
{
    free(h->data);
}

/* Unlinks and frees a log read (its timer, if it has one, closes first). */
static void lf_free(struct log_fetch *lf)
{
    struct rec *r = lf->r;
    if (lf->prev)
        lf->prev->next = lf->next;
    else
        r->lfs = lf->next;
    if (lf->next)
        lf->next->prev = lf->prev;
    if (lf->timer_on) {
        lf->timer.data = lf;
        uv_close((uv_handle_t *)&lf->timer, lf_closed);
    } else {
        free(lf);
    }
}

static void log_request(struct log_fetch *lf);
static void start_log_reads(struct rec *r);

/* The log gave no (whole) result: the termination message's compact summary stands in for it,
 * and the worker's detail is reported missing (why). */
static void log_fallback(struct log_fetch *lf, enum ctrl_detail detail, const char *why)
{
    struct rec *r = lf->r;
    int i = lf->index;
    cJSON *result = result_from_text(pod_term_message(r, lf->pod));
    cJSON_Delete(r->obs.results[i]);
    r->obs.results[i] = result;
    if (result) {
        r->obs.result_detail[i] = detail;
        set_result_error(r, i, why);
        log_warn(COMP, "%s: worker %d (pod %s): %s; using the summary of its termination message",
                 r->key, i, lf->pod, why);
    } else {
        /* no result anywhere: the termination message's first line says what happened */
        const char *tm = pod_term_message(r, lf->pod);
        char msg[600];
        if (tm && *tm)
            (void)snprintf(msg, sizeof(msg), "%s; termination message: %.*s", why,
                           (int)(strcspn(tm, "\n") < 300 ? strcspn(tm, "\n") : 300), tm);
        else
            (void)snprintf(msg, sizeof(msg), "%s, and the pod has no termination message", why);
        set_result_error(r, i, msg);
    }
}

static void log_done(struct log_fetch *lf)
{
    struct rec *r = lf->r;
    lf_free(lf);
    start_log_reads(r);
    fetch_done(r);
}

static void on_log_timer(uv_timer_t *t)
{
    struct log_fetch *lf = t->data;
    log_request(lf);
}

static void on_log(struct kube_result *res, void *ud)
{
    struct log_fetch *lf = ud;
    struct rec *r = lf->r;
    int i = lf->index;
    char why[400];
    if (kube_ok(&res->status) && res->text) {
        cJSON *result = NULL;
        char err[128] = "";
        int rc = bench_result_from_log(res->text, res->text_len, &result, err, sizeof(err));
        if (rc == 0) {
            cJSON_Delete(r->obs.results[i]);
            r->obs.results[i] = result;
            r->obs.result_detail[i] = CTRL_DETAIL_FULL;
            log_done(lf);
            return;
        }
        if (rc == -ENOENT && !lf->whole) {
            /* maybe the end of a long line only: the whole log */
            lf->whole = true;
            lf->attempt = 0;
            log_request(lf);
            return;
        }
        if (rc == -ENOENT && res->text_len >= (size_t)LOG_MAX_BYTES) {
            (void)snprintf(why, sizeof(why),
                           "the pod log is longer than %ld MiB and its result line lies beyond "
                           "that",
                           LOG_MAX_BYTES >> 20);
            log_fallback(lf, CTRL_DETAIL_LOG_TRUNCATED, why);
        } else {
            (void)snprintf(why, sizeof(why), "%s",
                           rc == -ENOENT ? "no result line in the pod log" : err);
            log_fallback(lf, CTRL_DETAIL_LOG_UNAVAILABLE, why);
        }
        log_done(lf);
        return;
    }
    if (transient(&res->status) && lf->attempt + 1 < LOG_TRIES) {
        uint64_t d = jittered(r->c, (uint64_t)RETRY_BASE_MS << lf->attempt);
        lf->attempt++;
        log_info(COMP, "%s: reading the log of pod %s: HTTP %d %s; again in %llu ms", r->key,
                 lf->pod, res->status.http, res->status.message, (unsigned long long)d);
        if (!lf->timer_on) {
            uv_timer_init(r->c->loop, &lf->timer);
            lf->timer.data = lf;
            lf->timer_on = true;
        }
        uv_timer_start(&lf->timer, on_log_timer, d, 0);
        return;
    }
    if (strcmp(res->status.reason, "TooLarge") == 0) {
        (void)snprintf(why, sizeof(why), "the pod log's result line was cut: %.200s",
                       res->status.message);
        log_fallback(lf, CTRL_DETAIL_LOG_TRUNCATED, why);
    } else {
        (void)snprintf(why, sizeof(why), "the pod log could not be read: HTTP %d %.300s%s",
                       res->status.http,
                       res->status.message[0] ? res->status.message : res->status.reason,
                       lf->attempt ? " (after retries)" : "");
        log_fallback(lf, CTRL_DETAIL_LOG_UNAVAILABLE, why);
    }
    log_done(lf);
}

static void log_request(struct log_fetch *lf)
{
    struct rec *r = lf->r;
    char q[128];
    if (lf->whole)
        (void)snprintf(q, sizeof(q), "container=%s&limitBytes=%ld", CTRL_CONTAINER, LOG_MAX_BYTES);
    else
        (void)snprintf(q, sizeof(q), "container=%s&tailLines=%d", CTRL_CONTAINER, LOG_TAIL_LINES);
    struct kube_opts o = {.subresource = "log", .query = q, .timeout_ms = LOG_TIMEOUT_MS};
    log_debug(COMP, "%s: reading the log of pod %s (%s)", r->key, lf->pod,
              lf->whole ? "from its start: no whole result line in its last lines" : "last lines");
    if (kube_get(r->c->kc, &KUBE_PODS, r->ns, lf->pod, &o, on_log, lf) == 0)
        return;
    log_fallback(lf, CTRL_DETAIL_LOG_UNAVAILABLE, "the pod log could not be requested");
    log_done(lf);
}

/* Starts log reads of the plan until LOG_PARALLEL are under way. */
static void start_log_reads(struct rec *r)
{
    int running = 0;
    for (struct log_fetch *lf = r->lfs; lf; lf = lf->next)
        running++;
    while (running < LOG_PARALLEL && r->log_next < r->plan.n_logs) {
        const struct ctrl_fetch_log *l = &r->plan.logs[r->log_next++];
        struct log_fetch *lf = calloc(1, sizeof(*lf));
        if (!lf)
            abort();
        lf->r = r;
        lf->index = l->index;
        lf->pod = l->pod;
        lf->next = r->lfs;
        if (r->lfs)
            r->lfs->prev = lf;
        r->lfs = lf;
        running++;
        log_request(lf);
    }
}

/* The run's pods as the API server has them now (CTRL_NEED_PODS), in place of the cache's. */
static void on_pods(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(res->body, "items");
    if (!kube_ok(&res->status) || !cJSON_IsArray(items)) {
        log_warn(COMP, "%s: reading the run's pods: HTTP %d %s", r->key, res->status.http,
                 res->status.message);
        r->fetch_failed = true;
        fetch_done(r);
        return;
    }
    for (int i = 0; i < r->n_pods; i++)
        cJSON_Delete(r->pods[i]);
    r->n_pods = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, items)
    {
        if (r->n_pods >= CTRL_MAX_PODS)
            break;
        cJSON *pod = ctrl_must(cJSON_Duplicate(it, 1));
        ctrl_transform_pod(pod, NULL);
        r->pods[r->n_pods] = pod;
        r->obs.pods[r->n_pods] = pod;
        r->n_pods++;
    }
    r->obs.n_pods = r->n_pods;
    r->obs.pods_fresh = true;
    log_debug(COMP, "%s: read %d pods from the API server", r->key, r->n_pods);
    fetch_done(r);
}

static void start_fetches(struct rec *r)
{
    struct ctrl_controller *c = r->c;
    struct ctrl_plan *p = &r->plan;
    unsigned needs = p->needs;
    r->pending = 1; /* guard until every request is queued */
    if (needs & CTRL_NEED_SCALE_TARGET) {
        r->pending++;
        if (kube_get(c->kc, scale_resource(p->scale_kind), r->ns, p->scale_name, NULL,
                     on_scale_target, r)) {
            r->pending--;
            r->obs.scale_target = CTRL_FETCH_ERROR;
        }
    }
    if (needs & CTRL_NEED_SCALE) {
        struct kube_opts o = {.subresource = "scale"};
        r->pending++;
        if (kube_get(c->kc, scale_resource(p->scale_kind), r->ns, p->scale_name, &o, on_scale, r)) {
            r->pending--;
            r->obs.scale = CTRL_FETCH_ERROR;
        }
    }
    if (needs & CTRL_NEED_PODS) {
        char sel[400];
        (void)snprintf(sel, sizeof(sel), "%s=%s", CTRL_LABEL_RUN, r->name);
        struct kube_opts o = {.label_selector = sel};
        r->pending++;
        if (kube_list(c->kc, &KUBE_PODS, r->ns, &o, on_pods, r)) {
            r->pending--;
            r->fetch_failed = true;
        }
    }
    if (needs & CTRL_NEED_PROGRESS)
        start_progress_reads(r);
    if (needs & CTRL_NEED_RESULTS) {
        r->obs.results_fetched = true;
        r->log_next = 0;
        for (int k = 0; k < p->n_logs; k++) {
            int i = p->logs[k].index;
            if (i < 0 || i >= CTRL_MAX_WORKERS) {
                p->logs[k].index = -1;
                continue;
            }
            /* A termination message with the full result (a histogram) needs no log. */
            cJSON *res = result_from_text(pod_term_message(r, p->logs[k].pod));
            if (res && cJSON_GetObjectItemCaseSensitive(res, "histogram")) {
                cJSON_Delete(r->obs.results[i]);
                r->obs.results[i] = res;
                r->obs.result_detail[i] = CTRL_DETAIL_FULL;
                p->logs[k].index = -1;
                continue;
            }
            cJSON_Delete(res);
            r->pending++; /* one per log read, released by log_done */
        }
        /* entries answered by their termination message are skipped */
        int kept = 0;
        for (int k = 0; k < p->n_logs; k++)
            if (p->logs[k].index >= 0)
                p->logs[kept++] = p->logs[k];
        p->n_logs = kept;
        start_log_reads(r);
    }
    fetch_done(r);
}

static void rec_decide(struct rec *r)
{
    ctrl_plan_free(&r->plan);
    r->obs.now = util_wall_s();
    if (r->error_set) {
        r->obs.error_reason = "CreateFailed";
        r->obs.error_message = r->error_message;
    }
    if (ctrl_decide(&r->obs, &r->plan) != 0) {
        log_warn(COMP, "%s: cannot reconcile: object without name or namespace", r->key);
        rec_finish(r, false);
        return;
    }
    if (r->plan.retry) {
        rec_finish(r, true);
        return;
    }
    if (r->plan.needs) {
        start_fetches(r);
        return;
    }
    rec_execute(r);
}

/* -- writes -- */

static void on_status_written(struct kube_result *res, void *ud);

static void on_fresh_br(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    if (res->status.http == 404) {
        rec_finish(r, false);
        return;
    }
    if (!kube_ok(&res->status) || !res->body) {
        r->c->api_write_errors++;
        rec_finish(r, true);
        return;
    }
    cJSON *fresh = res->body;
    res->body = NULL;
    ctrl_transform_benchmarkrun(fresh, NULL);
    rec_observe(r, fresh);
    rec_decide(r);
}

static void write_status(struct rec *r)
{
    struct ctrl_controller *c = r->c;
    cJSON *patch = cJSON_CreateObject();
    cJSON *md = cJSON_AddObjectToObject(patch, "metadata");
    const char *rv = ctrl_jstr(r->br, "metadata.resourceVersion");
    if (!patch || !md)
        abort();
    if (rv)
        cJSON_AddStringToObject(md, "resourceVersion", rv);
    cJSON_AddItemReferenceToObject(patch, "status", r->plan.status);
    struct kube_opts o = {.subresource = "status", .field_validation = "Strict"};
    int rc = kube_patch(c->kc, &KUBE_BENCHMARKRUNS, r->ns, r->name, KUBE_PATCH_MERGE, patch, &o,
                        on_status_written, r);
    cJSON_Delete(patch);
    if (rc) {
        log_warn(COMP, "%s: status write not sent: %s", r->key, strerror(-rc));
        rec_finish(r, true);
    }
}

static void on_status_written(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    struct ctrl_controller *c = r->c;
    if (kube_ok(&res->status)) {
        c->status_writes++;
        log_info(COMP, "%s: phase %s", r->key, r->plan.phase);
        /* The cache learns of this write from the watch, maybe only after the next reconcile
         * of the key has read the old object and written again into a 409. The answer is that
         * object already; the key is queued again as its watch event would have done. */
        const char *rv = ctrl_jstr(r->br, "metadata.resourceVersion");
        if (res->body && rv) {
            cJSON *written = res->body;
            res->body = NULL;
            if (kube_informer_assume(c->brs, written, rv) == 0)
                kube_queue_add(c->q, r->key);
        }
        rec_next_action(r);
        return;
    }
    if (res->status.http == 404) {
        rec_finish(r, false);
        return;
    }
    if (res->status.http == 409 && r->conflicts < MAX_CONFLICT_RETRIES) {
        /* someone wrote in between: read the object again and decide again */
        c->conflicts++;
        r->conflicts++;
        if (kube_get(c->kc, &KUBE_BENCHMARKRUNS, r->ns, r->name, NULL, on_fresh_br, r) == 0)
            return;
    }
    c->api_write_errors++;
    log_warn(COMP, "%s: status write failed: HTTP %d %s: %s", r->key, res->status.http,
             res->status.reason, res->status.message);
    rec_finish(r, true);
}

static void send_events(struct rec *r);
static void annotate_pod(struct rec *r);
static void expect_key(const struct rec *r, const struct ctrl_action *a, char *out, size_t len);
static void expect_add(struct ctrl_controller *c, const char *key);

static void on_action(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    struct ctrl_controller *c = r->c;
    struct ctrl_action *a = &r->plan.actions[r->step];
    int http = res->status.http;
    bool ok = kube_ok(&res->status) ||
              (a->kind == CTRL_ACT_CREATE && http == 409) || /* AlreadyExists: idempotent */
              (a->kind == CTRL_ACT_DELETE && http == 404);   /* NotFound: already gone */
    if (ok) {
        if (kube_ok(&res->status)) {
            if (a->kind == CTRL_ACT_CREATE) {
                char ek[300];
                expect_key(r, a, ek, sizeof(ek));
                expect_add(c, ek);
                c->creates++;
            } else {
                c->deletes++;
            }
            log_info(COMP, "%s: %s %s %s", r->key,
                     a->kind == CTRL_ACT_CREATE ? "created" : "deleted", a->resource->kind,
                     a->name);
        }
        r->step++;
        rec_next_action(r);
        return;
    }
    c->api_write_errors++;
    log_warn(COMP, "%s: %s %s %s: HTTP %d %s: %s", r->key,
             a->kind == CTRL_ACT_CREATE ? "create" : "delete", a->resource->kind, a->name, http,
             res->status.reason, res->status.message);
    bool permanent = http == 400 || http == 403 || http == 404 || http == 422;
    if (a->kind == CTRL_ACT_CREATE && permanent && !r->error_set) {
        /* the object will never be accepted: fail the run with the server's words */
        r->error_set = true;
        (void)snprintf(r->error_message, sizeof(r->error_message), "creating %s %.200s: %.300s",
                       a->resource->kind, a->name, res->status.message);
        rec_observe(r, cJSON_Duplicate(r->br, 1));
        rec_decide(r);
        return;
    }
    send_events(r);
    rec_finish(r, true);
}

static void expect_key(const struct rec *r, const struct ctrl_action *a, char *out, size_t len)
{
    (void)snprintf(out, len, "%s/%.100s/%.150s", a->resource->plural, r->ns, a->name);
}

/* True when this create was sent successfully less than EXPECT_TTL_MS ago. */
static bool expected(struct ctrl_controller *c, const char *key)
{
    uint64_t now = uv_now(c->loop);
    int j = 0;
    bool found = false;
    for (int i = 0; i < c->n_expect; i++) {
        if (now - c->expect[i].at > EXPECT_TTL_MS)
            continue; /* expired: dropped */
        if (strcmp(c->expect[i].key, key) == 0)
            found = true;
        if (i != j)
            c->expect[j] = c->expect[i];
        j++;
    }
    c->n_expect = j;
    if (j == 0) {
        free(c->expect);
        c->expect = NULL;
        c->cap_expect = 0;
    }
    return found;
}

static void expect_add(struct ctrl_controller *c, const char *key)
{
    if (c->n_expect >= c->cap_expect)
        (void)expected(c, ""); /* purge expired */
    if (c->n_expect >= c->cap_expect) {
        if (c->cap_expect >= EXPECT_MAX)
            return;
        int cap = c->cap_expect ? c->cap_expect * 2 : 16;
        struct expectation *e = realloc(c->expect, (size_t)cap * sizeof(*e));
        if (!e)
            return;
        c->expect = e;
        c->cap_expect = cap;
    }
    (void)snprintf(c->expect[c->n_expect].key, sizeof(c->expect[0].key), "%s", key);
    c->expect[c->n_expect].at = uv_now(c->loop);
    c->n_expect++;
}

static void rec_next_action(struct rec *r)
{
    struct ctrl_controller *c = r->c;
    while (r->step < r->plan.n_actions) {
        struct ctrl_action *a = &r->plan.actions[r->step];
        int rc;
        char ek[300];
        if (a->kind == CTRL_ACT_CREATE) {
            expect_key(r, a, ek, sizeof(ek));
            if (expected(c, ek)) { /* created moments ago, the cache is behind */
                r->step++;
                continue;
            }
        }
        if (a->kind == CTRL_ACT_CREATE) {
            struct kube_opts o = {.field_validation = "Strict"};
            rc = kube_create(c->kc, a->resource, r->ns, a->object, &o, on_action, r);
        } else {
            struct kube_opts o = {.propagation_policy = "Background"};
            rc = kube_delete(c->kc, a->resource, r->ns, a->name, &o, on_action, r);
        }
        if (rc == 0)
            return;
        log_warn(COMP, "%s: request not sent: %s", r->key, strerror(-rc));
        rec_finish(r, true);
        return;
    }
    if (r->ann_step < r->plan.n_annotate) {
        annotate_pod(r);
        return;
    }
    send_events(r);
    rec_finish(r, false);
}

static void on_annotated(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    struct ctrl_controller *c = r->c;
    const char *pod = r->plan.annotate[r->ann_step].pod;
    if (kube_ok(&res->status) || res->status.http == 404) { /* a pod gone needs no start */
        if (kube_ok(&res->status))
            log_info(COMP, "%s: pod %s starts at %s", r->key, pod, r->plan.start_at);
        r->ann_step++;
        rec_next_action(r);
        return;
    }
    c->api_write_errors++;
    log_warn(COMP, "%s: annotating pod %s: HTTP %d %s: %s", r->key, pod, res->status.http,
             res->status.reason, res->status.message);
    send_events(r);
    rec_finish(r, true);
}

/* Publishes the start barrier on the next pod of plan.annotate: a merge patch of its
 * CTRL_START_ANNOTATION (the same value for every pod of the run). */
static void annotate_pod(struct rec *r)
{
    cJSON *patch = ctrl_must(cJSON_CreateObject());
    cJSON *ann = ctrl_must(cJSON_CreateObject());
    ctrl_jset_str(ann, CTRL_START_ANNOTATION, r->plan.start_at);
    ctrl_jset(ctrl_must(cJSON_AddObjectToObject(patch, "metadata")), "annotations", ann);
    struct kube_opts o = {.field_validation = "Strict"};
    int rc = kube_patch(r->c->kc, &KUBE_PODS, r->ns, r->plan.annotate[r->ann_step].pod,
                        KUBE_PATCH_MERGE, patch, &o, on_annotated, r);
    cJSON_Delete(patch);
    if (rc) {
        log_warn(COMP, "%s: request not sent: %s", r->key, strerror(-rc));
        rec_finish(r, true);
    }
}

/* ---- events ------------------------------------------------------------------------------ */

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static struct sent_entry **sent_slot(struct ctrl_controller *c, const char *key)
{
    struct sent_entry **e = &c->sent[hash_str(14695981039346656037ULL, key) % SENT_BUCKETS];
    while (*e && strcmp((*e)->key, key) != 0)
        e = &(*e)->next;
    return e;
}

static bool sent_has(struct ctrl_controller *c, const char *key, uint64_t h)
{
    const struct sent_entry *e = *sent_slot(c, key);
    for (int i = 0; e && i < e->n && i < SENT_KEEP; i++)
        if (e->h[i] == h)
            return true;
    return false;
}

static void sent_add(struct ctrl_controller *c, const char *key, uint64_t h)
{
    struct sent_entry **slot = sent_slot(c, key);
    if (!*slot) {
        size_t n = strlen(key) + 1;
        *slot = calloc(1, sizeof(**slot) + n);
        if (!*slot)
            abort();
        memcpy((*slot)->key, key, n);
    }
    if (!sent_has(c, key, h)) {
        struct sent_entry *e = *slot;
        e->h[e->n % SENT_KEEP] = h;
        e->n++;
    }
}

static void sent_remove(struct ctrl_controller *c, const char *key, uint64_t h)
{
    struct sent_entry *e = *sent_slot(c, key);
    for (int i = 0; e && i < e->n && i < SENT_KEEP; i++)
        if (e->h[i] == h)
            e->h[i] = 0;
}

static void sent_forget(struct ctrl_controller *c, const char *key)
{
    struct sent_entry **slot = sent_slot(c, key);
    struct sent_entry *e = *slot;
    if (e) {
        *slot = e->next;
        free(e);
    }
}

static void ev_closed(uv_handle_t *h)
{
    struct ev_send *s = h->data;
    cJSON_Delete(s->ev);
    free(s);
}

static void ev_free(struct ev_send *s)
{
    struct ctrl_controller *c = s->c;
    if (s->prev)
        s->prev->next = s->next;
    else
        c->evs = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->timer.data = s;
    uv_close((uv_handle_t *)&s->timer, ev_closed);
}

static void ev_post(struct ev_send *s);

static void on_ev_timer(uv_timer_t *t)
{
    ev_post(t->data);
}

/* 201: recorded. 409 AlreadyExists: recorded before (the name is the transition's). A transient
 * failure is tried again EVENT_TRIES times in all, with backoff; then, or at a refusal, the Event
 * is given up with a warning, and a later reconcile of the run sends it again if its status
 * implies it. */
static void on_event_sent(struct kube_result *res, void *ud)
{
    struct ev_send *s = ud;
    struct ctrl_controller *c = s->c;
    const char *name = ctrl_jstr(s->ev, "metadata.name");
    if (kube_ok(&res->status) || res->status.http == 409) {
        if (kube_ok(&res->status))
            c->events_sent++;
        else
            log_debug(COMP, "%s: event %s exists already", s->key, name);
        ev_free(s);
        return;
    }
    if (transient(&res->status) && s->attempt + 1 < EVENT_TRIES) {
        uint64_t d = jittered(c, (uint64_t)RETRY_BASE_MS << s->attempt);
        s->attempt++;
        log_info(COMP, "%s: event %s %s not recorded: HTTP %d %s; again in %llu ms", s->key,
                 ctrl_jstr(s->ev, "reason"), name, res->status.http, res->status.message,
                 (unsigned long long)d);
        uv_timer_start(&s->timer, on_ev_timer, d, 0);
        return;
    }
    c->api_write_errors++;
    log_warn(COMP, "%s: event %s %s not recorded after %d tries: HTTP %d %s", s->key,
             ctrl_jstr(s->ev, "reason"), name, s->attempt + 1, res->status.http,
             res->status.message);
    sent_remove(c, s->key, s->h);
    ev_free(s);
}

static void ev_post(struct ev_send *s)
{
    struct kube_opts o = {.field_validation = "Strict"};
    if (kube_create(s->c->kc, &KUBE_EVENTS, ctrl_jstr(s->ev, "metadata.namespace"), s->ev, &o,
                    on_event_sent, s) == 0)
        return;
    log_warn(COMP, "%s: event %s not sent", s->key, ctrl_jstr(s->ev, "metadata.name"));
    sent_remove(s->c, s->key, s->h);
    ev_free(s);
}

/* Sends one Event about obj (a kind of pgbench.dev/v1alpha1) under its deterministic name unless
 * this process knows it exists; key groups what was sent (forgotten with the object). */
static void post_event(struct ctrl_controller *c, const char *key, const char *kind,
                       const cJSON *obj, const struct ctrl_event *e, bool again)
{
    const char *ns = ctrl_jstr(obj, "metadata.namespace"), *oname = ctrl_jstr(obj, "metadata.name");
    char name[400];
    ctrl_event_name(obj, e, name, sizeof(name));
    uint64_t h = hash_str(14695981039346656037ULL, name);
    if (!ns || !oname || sent_has(c, key, h))
        return;
    sent_add(c, key, h); /* also while in flight: not sent twice by the next reconcile */
    char ts[40];
    util_rfc3339(e->time > 0 ? e->time : util_wall_s(), 0, ts, sizeof(ts));
    cJSON *ev = ctrl_must(cJSON_CreateObject());
    cJSON *md = ctrl_must(cJSON_AddObjectToObject(ev, "metadata"));
    cJSON_AddStringToObject(md, "name", name);
    cJSON_AddStringToObject(md, "namespace", ns);
    cJSON *inv = ctrl_must(cJSON_AddObjectToObject(ev, "involvedObject"));
    cJSON_AddStringToObject(inv, "apiVersion", "pgbench.dev/v1alpha1");
    cJSON_AddStringToObject(inv, "kind", kind);
    cJSON_AddStringToObject(inv, "name", oname);
    cJSON_AddStringToObject(inv, "namespace", ns);
    const char *uid = ctrl_jstr(obj, "metadata.uid");
    if (uid)
        cJSON_AddStringToObject(inv, "uid", uid);
    cJSON_AddStringToObject(ev, "reason", e->reason);
    cJSON_AddStringToObject(ev, "message", e->message);
    cJSON_AddStringToObject(ev, "type", e->warning ? "Warning" : "Normal");
    cJSON *src = ctrl_must(cJSON_AddObjectToObject(ev, "source"));
    cJSON_AddStringToObject(src, "component", c->opt.cfg.component);
    cJSON_AddStringToObject(ev, "firstTimestamp", ts);
    cJSON_AddStringToObject(ev, "lastTimestamp", ts);
    cJSON_AddNumberToObject(ev, "count", 1);
    cJSON_AddStringToObject(ev, "reportingComponent", c->opt.cfg.component);
    cJSON_AddStringToObject(ev, "reportingInstance", c->opt.cfg.instance);
    struct ev_send *s = calloc(1, sizeof(*s));
    if (!s)
        abort();
    s->c = c;
    s->ev = ev;
    s->h = h;
    (void)snprintf(s->key, sizeof(s->key), "%s", key);
    uv_timer_init(c->loop, &s->timer);
    s->timer.data = s;
    s->next = c->evs;
    if (c->evs)
        c->evs->prev = s;
    c->evs = s;
    log_info(COMP, "%s: event %s %s%s: %s", key, e->warning ? "Warning" : "Normal", e->reason,
             again ? " (sent again: its status records it)" : "", e->message);
    ev_post(s);
}

static void send_event(struct rec *r, const struct ctrl_event *e, bool again)
{
    post_event(r->c, r->key, "BenchmarkRun", r->br, e, again);
}

/* The sent-set key of an object of another kind than BenchmarkRun. */
static void kind_key(const char *kind, const char *ns, const char *name, char *out, size_t len)
{
    (void)snprintf(out, len, "%s:%s/%s", kind, ns ? ns : "", name ? name : "");
}

void ctrl_controller_event(struct ctrl_controller *c, const char *kind, const cJSON *obj,
                           const struct ctrl_event *e)
{
    char key[512];
    kind_key(kind, ctrl_jstr(obj, "metadata.namespace"), ctrl_jstr(obj, "metadata.name"), key,
             sizeof(key));
    post_event(c, key, kind, obj, e, false);
}

void ctrl_controller_event_forget(struct ctrl_controller *c, const char *kind, const char *ns,
                                  const char *name)
{
    char key[512];
    kind_key(kind, ns, name, key, sizeof(key));
    sent_forget(c, key);
}

/* The plan's Events, and before them those the observed status records but this process has
 * not seen sent (a kill between a status write and its Event, or an Event given up). */
static void send_events(struct rec *r)
{
    struct ctrl_event implied[8];
    int n = ctrl_status_events(r->br, util_wall_s(), implied, 8);
    for (int i = 0; i < n; i++)
        send_event(r, &implied[i], true);
    for (int i = 0; i < r->plan.n_events; i++)
        send_event(r, &r->plan.events[i], false);
    r->plan.n_events = 0;
}

/* -- the result ConfigMap, written before the status that ends the run -- */

static void after_result_cm(struct rec *r)
{
    if (r->plan.status)
        write_status(r);
    else
        rec_next_action(r);
}

/* Refused for good: the run ends without it (no status.resultRef), a Warning Event says why. */
static void result_cm_refused(struct rec *r, const char *why)
{
    struct ctrl_plan *p = &r->plan;
    const char *name = ctrl_jstr(p->result_cm, "metadata.name");
    log_warn(COMP, "%s: result ConfigMap %s not written: %s", r->key, name, why);
    cJSON_DeleteItemFromObjectCaseSensitive(p->status, bench_status_key(BK_STATUS_RESULT_REF));
    if (p->n_events < (int)(sizeof(p->events) / sizeof(p->events[0]))) {
        struct ctrl_event *e = &p->events[p->n_events++];
        memset(e, 0, sizeof(*e));
        e->warning = true;
        (void)snprintf(e->reason, sizeof(e->reason), "ResultConfigMapFailed");
        (void)snprintf(e->message, sizeof(e->message),
                       "the result ConfigMap %.120s is not written (status keeps the summary): "
                       "%.300s",
                       name, why);
    }
    after_result_cm(r);
}

/* An answer that is not a success: refused for good, or try the whole reconcile again. */
static void result_cm_error(struct rec *r, const char *verb, const struct kube_status *st)
{
    char why[700];
    (void)snprintf(why, sizeof(why), "%s: HTTP %d %s: %s", verb, st->http, st->reason, st->message);
    r->c->api_write_errors++;
    int h = st->http;
    if (h == 400 || h == 403 || h == 404 || h == 413 || h == 422) {
        result_cm_refused(r, why);
        return;
    }
    log_warn(COMP, "%s: result ConfigMap: %s; trying again", r->key, why);
    rec_finish(r, true);
}

static void on_result_cm_replaced(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    if (!kube_ok(&res->status)) {
        result_cm_error(r, "update", &res->status);
        return;
    }
    log_info(COMP, "%s: updated ConfigMap %s", r->key,
             ctrl_jstr(r->plan.result_cm, "metadata.name"));
    after_result_cm(r);
}

/* The ConfigMap exists (409 on create): left when it holds the same, replaced when it is an
 * earlier one of a run of this name (the operator's label), refused when it is someone else's. */
static void on_result_cm_got(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    cJSON *mine = r->plan.result_cm;
    if (!kube_ok(&res->status) || !res->body) {
        result_cm_error(r, "get", &res->status);
        return;
    }
    const cJSON *old = res->body;
    const char *run = ctrl_jkey(ctrl_jget(old, "metadata.labels"), CTRL_LABEL_RUN);
    if (!run || strcmp(run, r->name) != 0) {
        result_cm_refused(
            r, "a ConfigMap of that name exists and is not this run's (no label " CTRL_LABEL_RUN
               "=<run>)");
        return;
    }
    if (cJSON_Compare(ctrl_jget(old, "data"), ctrl_jget(mine, "data"), 1) &&
        cJSON_Compare(ctrl_jget(old, "metadata.ownerReferences"),
                      ctrl_jget(mine, "metadata.ownerReferences"), 1)) {
        after_result_cm(r);
        return;
    }
    const char *rv = ctrl_jstr(old, "metadata.resourceVersion");
    cJSON *md = cJSON_GetObjectItemCaseSensitive(mine, "metadata");
    ctrl_jset_str(md, "resourceVersion", rv ? rv : "");
    struct kube_opts o = {.field_validation = "Strict"};
    if (kube_replace(r->c->kc, &KUBE_CONFIGMAPS, r->ns, ctrl_jstr(mine, "metadata.name"), mine, &o,
                     on_result_cm_replaced, r) != 0)
        rec_finish(r, true);
}

static void on_result_cm_created(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    const char *name = ctrl_jstr(r->plan.result_cm, "metadata.name");
    if (kube_ok(&res->status)) {
        r->c->creates++;
        log_info(COMP, "%s: created ConfigMap %s", r->key, name);
        after_result_cm(r);
        return;
    }
    if (res->status.http != 409) {
        result_cm_error(r, "create", &res->status);
        return;
    }
    if (kube_get(r->c->kc, &KUBE_CONFIGMAPS, r->ns, name, NULL, on_result_cm_got, r) != 0)
        rec_finish(r, true);
}

static void rec_execute(struct rec *r)
{
    r->step = 0;
    r->ann_step = 0;
    if (r->plan.result_cm) {
        struct kube_opts o = {.field_validation = "Strict"};
        if (kube_create(r->c->kc, &KUBE_CONFIGMAPS, r->ns, r->plan.result_cm, &o,
                        on_result_cm_created, r) != 0)
            rec_finish(r, true);
        return;
    }
    after_result_cm(r);
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

int ctrl_controller_new(uv_loop_t *loop, struct kube_client *kc, const struct ctrl_options *o,
                        struct ctrl_controller **out)
{
    struct ctrl_controller *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->loop = loop;
    c->kc = kc;
    c->opt = *o;
    if (o->namespace && *o->namespace)
        c->ns = strdup(o->namespace);
    int rc;
    struct kube_queue_opts qo = {
        .workers = o->workers > 0 ? o->workers : 8, .base_ms = 50, .max_ms = 60000};
    rc = kube_queue_new(loop, &qo, process, c, &c->q);
    if (rc)
        goto fail;
    struct kube_informer_handlers hb = {.on_add = br_add,
                                        .on_update = br_update,
                                        .on_delete = br_delete,
                                        .transform = ctrl_transform_benchmarkrun};
    rc = kube_informer_new(kc, &KUBE_BENCHMARKRUNS, c->ns, NULL, &hb, c, &c->brs);
    if (rc)
        goto fail;
    struct kube_informer_handlers hj = {.on_add = child_event,
                                        .on_update = child_update,
                                        .on_delete = child_event,
                                        .transform = ctrl_transform_job};
    rc = kube_informer_new(kc, &KUBE_JOBS, c->ns, CTRL_LABEL_RUN, &hj, c, &c->jobs);
    if (rc)
        goto fail;
    struct kube_informer_handlers hp = {.on_add = child_event,
                                        .on_update = child_update,
                                        .on_delete = child_event,
                                        .transform = ctrl_transform_pod,
                                        .index = owner_key};
    rc = kube_informer_new(kc, &KUBE_PODS, c->ns, CTRL_LABEL_RUN, &hp, c, &c->pods);
    if (rc)
        goto fail;
    struct kube_informer_handlers he = {.on_add = warning_event,
                                        .on_update = warning_event_update,
                                        .transform = ctrl_transform_event,
                                        .filter = ctrl_event_relevant,
                                        .index = event_key};
    struct kube_informer_opts eo = {.field_selector = "type=Warning"};
    rc = kube_informer_new_opts(kc, &KUBE_EVENTS, c->ns, &eo, &he, c, &c->events);
    if (rc)
        goto fail;
    *out = c;
    return 0;
fail:
    ctrl_controller_free(c);
    return rc;
}

int ctrl_controller_start(struct ctrl_controller *c)
{
    int rc = kube_informer_start(c->jobs);
    if (!rc)
        rc = kube_informer_start(c->pods);
    if (!rc) /* advisory: readiness (ctrl_controller_synced) does not wait for it */
        rc = kube_informer_start(c->events);
    if (!rc)
        rc = kube_informer_start(c->brs);
    return rc;
}

bool ctrl_controller_synced(const struct ctrl_controller *c)
{
    return c && kube_informer_synced(c->brs) && kube_informer_synced(c->jobs) &&
           kube_informer_synced(c->pods);
}

void ctrl_controller_stop(struct ctrl_controller *c)
{
    if (c && c->q)
        kube_queue_shutdown(c->q);
}

int ctrl_controller_inflight(const struct ctrl_controller *c)
{
    return c ? c->inflight : 0;
}

void ctrl_controller_free(struct ctrl_controller *c)
{
    if (!c)
        return;
    while (c->recs) {
        struct rec *r = c->recs;
        kube_queue_done(c->q, r->key);
        rec_free(r);
    }
    while (c->evs) { /* their requests are cancelled with the client */
        log_warn(COMP, "%s: event %s not recorded: shutting down", c->evs->key,
                 ctrl_jstr(c->evs->ev, "metadata.name"));
        ev_free(c->evs);
    }
    for (int i = 0; i < SENT_BUCKETS; i++)
        while (c->sent[i]) {
            struct sent_entry *e = c->sent[i];
            c->sent[i] = e->next;
            free(e);
        }
    kube_informer_free(c->brs);
    kube_informer_free(c->jobs);
    kube_informer_free(c->pods);
    kube_informer_free(c->events);
    kube_queue_free(c->q);
    free(c->expect);
    free(c->ns);
    free(c);
}

static void foreach_run(const void *cache, ctrl_metrics_run_fn fn, void *ctx)
{
    kube_informer_foreach(cache, fn, ctx);
}

void ctrl_controller_metrics_source(const struct ctrl_controller *c,
                                    struct ctrl_metrics_controller *out)
{
    *out = (struct ctrl_metrics_controller){
        .reconciles = c->reconciles,
        .reconcile_errors = c->reconcile_errors,
        .conflicts = c->conflicts,
        .creates = c->creates,
        .deletes = c->deletes,
        .status_writes = c->status_writes,
        .events_sent = c->events_sent,
        .write_errors = c->api_write_errors,
        .reconcile_seconds = c->lat,
        .queue_depth = kube_queue_len(c->q),
        .inflight = c->inflight,
        .cached_runs = kube_informer_count(c->brs),
        .cached_jobs = kube_informer_count(c->jobs),
        .cached_pods = kube_informer_count(c->pods),
        .foreach_run = foreach_run,
        .cache = c->brs,
    };
}
