/* The controller: caches, queue, and the Events it sends; the executor (executor.c) carries out
 * the reconciles. */
#include "pkg/controller/controller.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/controller/executor.h"
#include "pkg/api/phase.h"
#include "pkg/controller/reconcile.h"
#include "pkg/util/clock.h"
#include "pkg/util/log.h"

#define COMP "controller"
/* A transient answer to an Event: tried this often in all (ctrl_jittered backoff). */
#define EVENT_TRIES 4
/* Until every cache has synced a key waits this long, undecided. */
#define SYNC_WAIT_MS 200
/* Events this process knows exist, per run (see sent_*). */
#define SENT_BUCKETS 256
#define SENT_KEEP 8

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
    struct kube_enqueue runs, children; /* what the informers queue: a run's key, its owner's */
    struct ctrl_exec *x;                /* the reconciles */
    struct ev_send *evs;                /* Events in flight or waiting to be retried */
    struct sent_entry *sent[SENT_BUCKETS];
    uint64_t rng; /* retry jitter */
    /* metrics */
    uint64_t events_sent, event_errors;
};

static void sent_forget(struct ctrl_controller *c, const char *key);

/* ---- transforms --------------------------------------------------------------------------- */

static const char *const meta_keys[] = {
    "name", "namespace", "resourceVersion", "labels", "annotations", "deletionTimestamp", NULL};

void ctrl_transform_benchmarkrun(cJSON *obj, void *ud)
{
    (void)ud;
    static const char *const top[] = {"metadata", "spec", "status", NULL};
    static const char *const meta[] = {
        "name", "namespace", "uid", "generation", "resourceVersion", "deletionTimestamp", NULL};
    util_jkeep_keys(obj, top);
    util_jkeep_keys(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), meta);
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    enum api_phase phase = api_phase_parse(util_jstr(st, "phase"));
    if (phase == API_PHASE_SUCCEEDED || phase == API_PHASE_FAILED) {
        /* results are never read again by the controller; status writes are merge patches */
        static const char *const keep[] = {"phase",
                                           "observedGeneration",
                                           "startedGeneration",
                                           "conditions",
                                           "startAt",
                                           "summary",
                                           "diagnostics",
                                           NULL};
        util_jkeep_keys(st, keep);
    } else {
        /* the rest is written once at a transition, never read back by a decision; the live
         * progress is read back (when it was last read, whether it changed) */
        static const char *const keep[] = {
            "phase",     "observedGeneration", "startedGeneration", "conditions", "startAt",
            "startTime", "hpaTimeline",        "summary",           "progress",   NULL};
        util_jkeep_keys(st, keep);
    }
    /* of the results, only the few numbers /metrics shows per run, and the verdict's class */
    ctrl_metrics_trim_status(st);
}

static void keep_label_keys(cJSON *o, const char *const *keys)
{
    if (o)
        util_jkeep_keys(o, keys);
}

void ctrl_transform_job(cJSON *obj, void *ud)
{
    (void)ud;
    static const char *const top[] = {"metadata", "spec", "status", NULL};
    util_jkeep_keys(obj, top);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    util_jkeep_keys(md, meta_keys);
    static const char *const labels[] = {API_LABEL_RUN, API_LABEL_ROLE, NULL};
    static const char *const ann[] = {CTRL_SPEC_ANNOTATION, NULL};
    keep_label_keys(cJSON_GetObjectItemCaseSensitive(md, "labels"), labels);
    keep_label_keys(cJSON_GetObjectItemCaseSensitive(md, "annotations"), ann);
    static const char *const spec[] = {"completions", NULL};
    util_jkeep_keys(cJSON_GetObjectItemCaseSensitive(obj, "spec"), spec);
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    static const char *const status[] = {"conditions", "succeeded", "failed", "active", NULL};
    util_jkeep_keys(st, status);
    /* lastTransitionTime: how long ago the Job finished (its pods' grace, CTRL_POD_SETTLE_S) */
    static const char *const cond[] = {"type", "status", "reason", "message", "lastTransitionTime",
                                       NULL};
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(st, "conditions"))
    {
        util_jkeep_keys(c, cond);
    }
}

void ctrl_transform_pod(cJSON *obj, void *ud)
{
    (void)ud;
    static const char *const top[] = {"metadata", "status", NULL};
    util_jkeep_keys(obj, top);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    util_jkeep_keys(md, meta_keys);
    static const char *const labels[] = {API_LABEL_RUN, API_LABEL_ROLE,
                                         "batch.kubernetes.io/job-completion-index", NULL};
    static const char *const ann[] = {API_START_ANNOTATION,
                                      "batch.kubernetes.io/job-completion-index", NULL};
    static const char *const ann_start[] = {API_START_ANNOTATION, NULL};
    cJSON *lab = cJSON_GetObjectItemCaseSensitive(md, "labels");
    keep_label_keys(lab, labels);
    /* the index: the label suffices when there is one; the start barrier published on the pod */
    keep_label_keys(cJSON_GetObjectItemCaseSensitive(md, "annotations"),
                    util_jkey(lab, "batch.kubernetes.io/job-completion-index") ? ann_start : ann);
    cJSON *annotations = cJSON_GetObjectItemCaseSensitive(md, "annotations");
    if (annotations && !annotations->child)
        cJSON_DeleteItemFromObjectCaseSensitive(md, "annotations");
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    static const char *const status[] = {"phase", "containerStatuses", "conditions", NULL};
    util_jkeep_keys(st, status);
    static const char *const cs_keys[] = {"state", NULL};
    static const char *const state_keys[] = {"terminated", "waiting", NULL};
    static const char *const term_keys[] = {"exitCode", "reason", "message", NULL};
    static const char *const why_keys[] = {"reason", "message", NULL};
    cJSON *cs;
    cJSON_ArrayForEach(cs, cJSON_GetObjectItemCaseSensitive(st, "containerStatuses"))
    {
        util_jkeep_keys(cs, cs_keys);
        cJSON *state = cJSON_GetObjectItemCaseSensitive(cs, "state");
        util_jkeep_keys(state, state_keys);
        util_jkeep_keys(cJSON_GetObjectItemCaseSensitive(state, "terminated"), term_keys);
        util_jkeep_keys(cJSON_GetObjectItemCaseSensitive(state, "waiting"), why_keys);
    }
    /* of the conditions only an unscheduled pod's PodScheduled says why a worker does not start,
     * and Ready when the workers start together (its type and status) */
    cJSON *conds = cJSON_GetObjectItemCaseSensitive(st, "conditions");
    static const char *const cond_keys[] = {"type", "status", "reason", "message", NULL};
    static const char *const ready_keys[] = {"type", "status", NULL};
    for (int i = cJSON_GetArraySize(conds) - 1; i >= 0; i--) {
        cJSON *c = cJSON_GetArrayItem(conds, i);
        const char *type = util_jstr(c, "type"), *cstatus = util_jstr(c, "status");
        if (type && strcmp(type, "PodScheduled") == 0 && cstatus && strcmp(cstatus, "False") == 0)
            util_jkeep_keys(c, cond_keys);
        else if (type && strcmp(type, "Ready") == 0)
            util_jkeep_keys(c, ready_keys);
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
    const char *when = util_jstr(obj, "lastTimestamp");
    if (!when)
        when = util_jstr(obj, "series.lastObservedTime");
    if (!when)
        when = util_jstr(obj, "eventTime");
    if (!when)
        when = util_jstr(obj, "firstTimestamp");
    if (!when)
        when = util_jstr(obj, "metadata.creationTimestamp");
    cJSON *t = when ? util_must(cJSON_CreateString(when)) : NULL;
    static const char *const top[] = {"metadata", "involvedObject", "reason", "message", NULL};
    util_jkeep_keys(obj, top);
    static const char *const meta[] = {"name", "namespace", "resourceVersion", NULL};
    util_jkeep_keys(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), meta);
    static const char *const inv[] = {"kind", "name", NULL};
    util_jkeep_keys(cJSON_GetObjectItemCaseSensitive(obj, "involvedObject"), inv);
    cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, "message");
    if (cJSON_IsString(m) && strlen(m->valuestring) > CTRL_EVENT_MESSAGE_MAX) {
        /* cut on a UTF-8 character boundary: the text may end up in status */
        size_t n = CTRL_EVENT_MESSAGE_MAX;
        while (n > 0 && ((unsigned char)m->valuestring[n] & 0xC0) == 0x80)
            n--;
        char cut[CTRL_EVENT_MESSAGE_MAX + 1];
        memcpy(cut, m->valuestring, n);
        cut[n] = '\0';
        util_jset_str(obj, "message", cut);
    }
    if (t)
        util_jset(obj, "time", t);
}

bool ctrl_event_relevant(const cJSON *obj, void *ud)
{
    (void)ud;
    const char *reason = util_jstr(obj, "reason");
    const char *kind = util_jstr(obj, "involvedObject.kind");
    const char *name = util_jstr(obj, "involvedObject.name");
    if (!reason || !kind || !name || !util_jstr(obj, "metadata.namespace"))
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
    const char *ns = util_jstr(ev, "metadata.namespace");
    const char *kind = util_jstr(ev, "involvedObject.kind");
    const char *name = util_jstr(ev, "involvedObject.name");
    if (!ns || !kind || !name)
        return false;
    int len = snprintf(buf, n, "%s/%s/%s", ns, kind, name);
    return len > 0 && (size_t)len < n;
}

/* ---- event handlers ----------------------------------------------------------------------- */

/* A Warning event: the run of the pod (through the pod cache), or of the Job or claim (their
 * names are the run's name plus a suffix, and the run must be cached). */
static void warning_event(const cJSON *ev, void *ud)
{
    struct ctrl_controller *c = ud;
    const char *ns = util_jstr(ev, "metadata.namespace");
    const char *kind = util_jstr(ev, "involvedObject.kind");
    const char *name = util_jstr(ev, "involvedObject.name");
    if (!ns || !kind || !name)
        return;
    char key[512];
    if (strcmp(kind, "Pod") == 0) {
        cJSON *pod = kube_informer_copy(c->pods, ns, name);
        bool ok = pod && kube_label_key(pod, API_LABEL_RUN, key, sizeof(key));
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
    if (run && kube_enqueue_index(run, key, sizeof(key), &c->runs))
        kube_queue_add(c->q, key);
    cJSON_Delete(run);
}

static void warning_event_update(const cJSON *old_obj, const cJSON *new_obj, void *ud)
{
    (void)old_obj;
    warning_event(new_obj, ud);
}

/* A deleted run: the Events sent about it are forgotten with it. */
static void run_deleted(const cJSON *obj, const char *key, void *ud)
{
    (void)obj;
    sent_forget(ud, key);
}

/* A key the queue hands out: reconciled by the executor once every cache has synced. */
static void process(struct kube_queue *q, const char *key, void *ud)
{
    struct ctrl_controller *c = ud;
    (void)q;
    if (!ctrl_controller_synced(c)) {
        /* nothing is decided from a cache that has not listed yet */
        log_debug(COMP, "%s: caches not synced yet; again in %d ms", key, SYNC_WAIT_MS);
        kube_queue_add_after(c->q, key, SYNC_WAIT_MS);
        kube_queue_done(c->q, key);
        return;
    }
    ctrl_exec_run(c->x, key);
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
        *slot = util_xcalloc(1, sizeof(**slot) + n);
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
    const char *name = util_jstr(s->ev, "metadata.name");
    if (kube_ok(&res->status) || res->status.http == 409) {
        if (kube_ok(&res->status))
            c->events_sent++;
        else
            log_debug(COMP, "%s: event %s exists already", s->key, name);
        ev_free(s);
        return;
    }
    if (ctrl_transient(&res->status) && s->attempt + 1 < EVENT_TRIES) {
        uint64_t d = ctrl_jittered(&c->rng, (uint64_t)CTRL_RETRY_BASE_MS << s->attempt);
        s->attempt++;
        log_info(COMP, "%s: event %s %s not recorded: HTTP %d %s; again in %llu ms", s->key,
                 util_jstr(s->ev, "reason"), name, res->status.http, res->status.message,
                 (unsigned long long)d);
        uv_timer_start(&s->timer, on_ev_timer, d, 0);
        return;
    }
    c->event_errors++;
    log_warn(COMP, "%s: event %s %s not recorded after %d tries: HTTP %d %s", s->key,
             util_jstr(s->ev, "reason"), name, s->attempt + 1, res->status.http,
             res->status.message);
    sent_remove(c, s->key, s->h);
    ev_free(s);
}

static void ev_post(struct ev_send *s)
{
    struct kube_opts o = {.field_validation = "Strict"};
    if (kube_create(s->c->kc, &KUBE_EVENTS, util_jstr(s->ev, "metadata.namespace"), s->ev, &o,
                    on_event_sent, s) == 0)
        return;
    log_warn(COMP, "%s: event %s not sent", s->key, util_jstr(s->ev, "metadata.name"));
    sent_remove(s->c, s->key, s->h);
    ev_free(s);
}

/* Sends one Event about obj (a kind of pgbench.dev/v1alpha1) under its deterministic name unless
 * this process knows it exists; key groups what was sent (forgotten with the object). */
static void post_event(struct ctrl_controller *c, const char *key, const char *kind,
                       const cJSON *obj, const struct ctrl_event *e, bool again)
{
    const char *ns = util_jstr(obj, "metadata.namespace"), *oname = util_jstr(obj, "metadata.name");
    char name[400];
    ctrl_event_name(obj, e, name, sizeof(name));
    uint64_t h = hash_str(14695981039346656037ULL, name);
    if (!ns || !oname || sent_has(c, key, h))
        return;
    sent_add(c, key, h); /* also while in flight: not sent twice by the next reconcile */
    cJSON *ev = ctrl_event_object(kind, obj, e, name, &c->opt.cfg);
    struct ev_send *s = util_xcalloc(1, sizeof(*s));
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

/* The executor's Event sender (ctrl_exec_event_fn). */
static void send_run_event(void *ctx, const char *key, const cJSON *br, const struct ctrl_event *e,
                           bool again)
{
    post_event(ctx, key, "BenchmarkRun", br, e, again);
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
    kind_key(kind, util_jstr(obj, "metadata.namespace"), util_jstr(obj, "metadata.name"), key,
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
/* ---- lifecycle ---------------------------------------------------------------------------- */

int ctrl_controller_new(uv_loop_t *loop, struct kube_client *kc, const struct ctrl_options *o,
                        struct ctrl_controller **out)
{
    struct ctrl_controller *c = util_xcalloc(1, sizeof(*c));
    c->loop = loop;
    c->kc = kc;
    c->opt = *o;
    if (o->namespace && *o->namespace)
        c->ns = util_xstrdup(o->namespace);
    int rc;
    struct kube_queue_opts qo = {.workers = o->workers > 0 ? o->workers : 8,
                                 .base_ms = CTRL_QUEUE_BASE_MS,
                                 .max_ms = CTRL_QUEUE_MAX_MS};
    rc = kube_queue_new(loop, &qo, process, c, &c->q);
    if (rc)
        goto fail;
    c->runs = (struct kube_enqueue){.q = c->q, .on_delete = run_deleted, .ud = c};
    c->children = (struct kube_enqueue){.q = c->q, .owner_label = API_LABEL_RUN};
    rc = kube_informer_enqueue(kc, &API_BENCHMARKRUNS, c->ns, &c->runs, ctrl_transform_benchmarkrun,
                               false, &c->brs);
    rc = rc ? rc
            : kube_informer_enqueue(kc, &KUBE_JOBS, c->ns, &c->children, ctrl_transform_job, false,
                                    &c->jobs);
    /* indexed by run: a reconcile reads its own run's pods only */
    rc = rc ? rc
            : kube_informer_enqueue(kc, &KUBE_PODS, c->ns, &c->children, ctrl_transform_pod, true,
                                    &c->pods);
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
    struct ctrl_exec_env env = {.loop = loop,
                                .kc = kc,
                                .q = c->q,
                                .brs = c->brs,
                                .jobs = c->jobs,
                                .pods = c->pods,
                                .events = c->events,
                                .cfg = &c->opt.cfg,
                                .send_event = send_run_event,
                                .ctx = c};
    c->x = ctrl_exec_new(&env);
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
    return c ? ctrl_exec_inflight(c->x) : 0;
}

void ctrl_controller_free(struct ctrl_controller *c)
{
    if (!c)
        return;
    ctrl_exec_free(c->x);
    while (c->evs) { /* their requests are cancelled with the client */
        log_warn(COMP, "%s: event %s not recorded: shutting down", c->evs->key,
                 util_jstr(c->evs->ev, "metadata.name"));
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
    const struct ctrl_exec_stats *st = ctrl_exec_stats(c->x);
    *out = (struct ctrl_metrics_controller){
        .reconciles = st->reconciles,
        .reconcile_errors = st->reconcile_errors,
        .conflicts = st->conflicts,
        .creates = st->creates,
        .deletes = st->deletes,
        .status_writes = st->status_writes,
        .events_sent = c->events_sent,
        .write_errors = st->write_errors + c->event_errors,
        .dropped_events = st->dropped_events,
        .dropped_actions = st->dropped_actions,
        .reconcile_seconds = st->lat,
        .queue_depth = kube_queue_len(c->q),
        .inflight = ctrl_exec_inflight(c->x),
        .cached_runs = kube_informer_count(c->brs),
        .cached_jobs = kube_informer_count(c->jobs),
        .cached_pods = kube_informer_count(c->pods),
        .bytes_runs = kube_informer_bytes(c->brs),
        .bytes_jobs = kube_informer_bytes(c->jobs),
        .bytes_pods = kube_informer_bytes(c->pods),
        .bytes_events = kube_informer_bytes(c->events),
        .foreach_run = foreach_run,
        .cache = c->brs,
    };
}
