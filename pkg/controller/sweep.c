/* The controller of BenchmarkSweeps: informers, queue, and the plans carried out. */
#include "pkg/controller/sweep.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/api/manifest.h"
#include "pkg/controller/cache.h"
#include "pkg/controller/events.h"
#include "pkg/controller/executor.h"
#include "pkg/util/clock.h"
#include "pkg/util/log.h"

#define COMP "sweep"

/* ---- merge diff --------------------------------------------------------------------------- */

cJSON *ctrl_merge_diff(const cJSON *old_obj, const cJSON *new_obj)
{
    if (!cJSON_IsObject(old_obj) || !cJSON_IsObject(new_obj))
        return cJSON_Compare(old_obj, new_obj, true) ? NULL
                                                     : util_must(cJSON_Duplicate(new_obj, 1));
    cJSON *patch = util_must(cJSON_CreateObject());
    const cJSON *it;
    cJSON_ArrayForEach(it, new_obj)
    {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(old_obj, it->string);
        cJSON *d;
        if (!o)
            d = util_must(cJSON_Duplicate(it, 1));
        else if (cJSON_IsObject(o) && cJSON_IsObject(it))
            d = ctrl_merge_diff(o, it);
        else
            d = cJSON_Compare(o, it, true) ? NULL : util_must(cJSON_Duplicate(it, 1));
        if (d)
            cJSON_AddItemToObject(patch, it->string, d);
    }
    cJSON_ArrayForEach(it, old_obj)
    {
        if (!cJSON_GetObjectItemCaseSensitive(new_obj, it->string))
            cJSON_AddItemToObject(patch, it->string, util_must(cJSON_CreateNull()));
    }
    if (!patch->child) {
        cJSON_Delete(patch);
        return NULL;
    }
    return patch;
}

/* ---- the controller ----------------------------------------------------------------------- */

struct sw_rec;

struct ctrl_sweeper {
    uv_loop_t *loop;
    struct kube_client *kc;
    char *ns;
    struct kube_informer *sweeps, *runs;
    struct kube_queue *q;
    struct kube_enqueue own, by_sweep; /* what the informers queue: a sweep's key, its runs' */
    struct sw_rec *recs;               /* in flight */
    struct ctrl_events *ev;            /* the Event sender, or NULL */
};

struct sw_rec {
    struct ctrl_sweeper *s;
    struct sw_rec *next, *prev;
    char key[512], ns[256], name[256];
    struct ctrl_sweep_plan plan;
    cJSON *obj; /* metadata of the sweep (name, namespace, uid), for its Events */
};

/* A deleted sweep: the Events sent about it are forgotten with it. */
static void sweep_deleted(const cJSON *obj, const char *key, void *ud)
{
    struct ctrl_sweeper *s = ud;
    (void)key;
    if (s->ev)
        ctrl_events_forget_object(s->ev, "BenchmarkSweep", util_jstr(obj, "metadata.namespace"),
                                  util_jstr(obj, "metadata.name"));
}

static void rec_free(struct sw_rec *r)
{
    struct ctrl_sweeper *s = r->s;
    if (r->prev)
        r->prev->next = r->next;
    else
        s->recs = r->next;
    if (r->next)
        r->next->prev = r->prev;
    ctrl_sweep_plan_free(&r->plan);
    cJSON_Delete(r->obj);
    free(r);
}

static void rec_finish(struct sw_rec *r, bool error, long requeue_ms)
{
    struct ctrl_sweeper *s = r->s;
    log_debug(COMP, "reconciled %s phase=%s%s", r->key, r->plan.phase, error ? " (retry)" : "");
    kube_queue_finish(s->q, r->key, error, requeue_ms);
    rec_free(r);
}

/* The plan's Events, once the status that records their transitions is written. */
static void send_events(struct sw_rec *r)
{
    for (int i = 0; r->s->ev && i < r->plan.n_events; i++)
        ctrl_events_send(r->s->ev, "BenchmarkSweep", r->obj, &r->plan.events[i]);
    r->plan.n_events = 0;
}

static void on_failed_written(struct kube_result *res, void *ud)
{
    struct sw_rec *r = ud;
    if (!kube_ok(&res->status))
        log_warn(COMP, "%s: status not written: HTTP %d %s", r->key, res->status.http,
                 res->status.message);
    else
        send_events(r);
    rec_finish(r, !kube_ok(&res->status), 0);
}

/* A run the API server will never accept: the sweep fails with the server's words. */
static void fail_sweep(struct sw_rec *r, const char *run, const char *why)
{
    ctrl_sweep_refused(run, why, util_wall_s(), &r->plan);
    cJSON *patch = util_must(cJSON_CreateObject());
    cJSON_AddItemReferenceToObject(patch, "status", r->plan.status);
    struct kube_opts o = {.subresource = "status", .field_validation = "Strict"};
    if (kube_patch(r->s->kc, &API_BENCHMARKSWEEPS, r->ns, r->name, KUBE_PATCH_MERGE, patch, &o,
                   on_failed_written, r) != 0)
        rec_finish(r, true, 0);
    cJSON_Delete(patch);
}

static void on_created(struct kube_result *res, void *ud)
{
    struct sw_rec *r = ud;
    const char *run = util_jstr(r->plan.create, "metadata.name");
    int http = res->status.http;
    if (kube_ok(&res->status) || http == 409) {
        log_info(COMP, "%s: %s BenchmarkRun %s", r->key, http == 409 ? "found existing" : "created",
                 run);
        rec_finish(r, false, r->plan.requeue_ms);
        return;
    }
    log_warn(COMP, "%s: create BenchmarkRun %s: HTTP %d %s: %s", r->key, run, http,
             res->status.reason, res->status.message);
    if (http == 400 || http == 403 || http == 422) {
        fail_sweep(r, run, res->status.message);
        return;
    }
    rec_finish(r, true, 0);
}

static void do_create(struct sw_rec *r)
{
    if (!r->plan.create) {
        rec_finish(r, false, r->plan.requeue_ms);
        return;
    }
    struct kube_opts o = {.field_validation = "Strict"};
    if (kube_create(r->s->kc, &API_BENCHMARKRUNS, r->ns, r->plan.create, &o, on_created, r) != 0)
        rec_finish(r, true, 0);
}

static void on_status_written(struct kube_result *res, void *ud)
{
    struct sw_rec *r = ud;
    if (!kube_ok(&res->status)) {
        if (res->status.http == 409)
            log_debug(COMP, "%s: status conflict; deciding again", r->key);
        else
            log_warn(COMP, "%s: status not written: HTTP %d %s", r->key, res->status.http,
                     res->status.message);
        rec_finish(r, true, 0);
        return;
    }
    log_info(COMP, "%s: phase %s: %s", r->key, r->plan.phase, util_jstr(r->plan.status, "message"));
    send_events(r);
    do_create(r);
}

struct run_list {
    cJSON *items[API_SWEEP_MAX_STEPS * API_SWEEP_MAX_REPEATS];
    int n;
};

static void collect_run(const cJSON *obj, void *ud)
{
    struct run_list *l = ud;
    if (l->n < (int)(sizeof(l->items) / sizeof(l->items[0])))
        l->items[l->n++] = util_must(cJSON_Duplicate(obj, 1));
}

static void process(struct kube_queue *q, const char *key, void *ud)
{
    struct ctrl_sweeper *s = ud;
    (void)q;
    struct sw_rec *r = util_xcalloc(1, sizeof(*r));
    r->s = s;
    (void)snprintf(r->key, sizeof(r->key), "%s", key);
    r->next = s->recs;
    if (s->recs)
        s->recs->prev = r;
    s->recs = r;
    const char *slash = strchr(key, '/');
    if (!slash) {
        rec_finish(r, false, 0);
        return;
    }
    (void)snprintf(r->ns, sizeof(r->ns), "%.*s", (int)(slash - key), key);
    (void)snprintf(r->name, sizeof(r->name), "%s", slash + 1);
    if (!ctrl_sweeper_synced(s)) { /* a partial run cache would look like missing runs */
        rec_finish(r, false, 200);
        return;
    }
    cJSON *sweep = kube_informer_copy(s->sweeps, r->ns, r->name);
    if (!sweep || util_jget(sweep, "metadata.deletionTimestamp")) {
        cJSON_Delete(sweep);
        rec_finish(r, false, 0);
        return;
    }
    struct run_list *l = util_xcalloc(1, sizeof(*l));
    kube_informer_foreach_indexed(s->runs, key, collect_run, l);
    ctrl_sweep_decide(sweep, (const cJSON *const *)l->items, l->n, util_wall_s(), &r->plan);
    for (int i = 0; i < l->n; i++)
        cJSON_Delete(l->items[i]);
    free(l);
    r->obj = util_must(cJSON_CreateObject());
    util_jset(r->obj, "metadata", util_must(cJSON_Duplicate(util_jget(sweep, "metadata"), 1)));
    if (!r->plan.status) {
        cJSON_Delete(sweep);
        do_create(r);
        return;
    }
    cJSON *patch = util_must(cJSON_CreateObject());
    cJSON *md = util_must(cJSON_AddObjectToObject(patch, "metadata"));
    const char *rv = util_jstr(sweep, "metadata.resourceVersion");
    if (rv)
        util_jset_str(md, "resourceVersion", rv); /* the status decided from is the current one */
    cJSON *diff = ctrl_merge_diff(util_jget(sweep, "status"), r->plan.status);
    cJSON_Delete(sweep);
    util_jset(patch, "status", diff ? diff : util_must(cJSON_CreateObject()));
    struct kube_opts o = {.subresource = "status", .field_validation = "Strict"};
    int rc = kube_patch(s->kc, &API_BENCHMARKSWEEPS, r->ns, r->name, KUBE_PATCH_MERGE, patch, &o,
                        on_status_written, r);
    cJSON_Delete(patch);
    if (rc)
        rec_finish(r, true, 0);
}

int ctrl_sweeper_new(uv_loop_t *loop, struct kube_client *kc, const char *ns, int workers,
                     struct ctrl_events *ev, struct ctrl_sweeper **out)
{
    struct ctrl_sweeper *s = util_xcalloc(1, sizeof(*s));
    s->loop = loop;
    s->ev = ev;
    s->kc = kc;
    if (ns && *ns)
        s->ns = util_xstrdup(ns);
    struct kube_queue_opts qo = {.workers = workers > 0 ? workers : 2,
                                 .base_ms = CTRL_QUEUE_BASE_MS,
                                 .max_ms = CTRL_QUEUE_MAX_MS};
    int rc = kube_queue_new(loop, &qo, process, s, &s->q);
    if (rc)
        goto fail;
    s->own = (struct kube_enqueue){.q = s->q, .on_delete = sweep_deleted, .ud = s};
    s->by_sweep = (struct kube_enqueue){.q = s->q, .owner_label = API_LABEL_SWEEP};
    rc = kube_informer_enqueue(kc, &API_BENCHMARKSWEEPS, s->ns, &s->own, ctrl_transform_sweep,
                               false, &s->sweeps);
    /* indexed by sweep: a reconcile reads its own sweep's runs only */
    rc = rc ? rc
            : kube_informer_enqueue(kc, &API_BENCHMARKRUNS, s->ns, &s->by_sweep,
                                    ctrl_transform_sweep_run, true, &s->runs);
    if (rc)
        goto fail;
    *out = s;
    return 0;
fail:
    ctrl_sweeper_free(s);
    return rc;
}

int ctrl_sweeper_start(struct ctrl_sweeper *s)
{
    int rc = kube_informer_start(s->runs);
    if (!rc)
        rc = kube_informer_start(s->sweeps);
    return rc;
}

void ctrl_sweeper_foreach(const struct ctrl_sweeper *s, void (*fn)(const cJSON *sweep, void *ctx),
                          void *ctx)
{
    if (s && s->sweeps)
        kube_informer_foreach(s->sweeps, fn, ctx);
}

bool ctrl_sweeper_synced(const struct ctrl_sweeper *s)
{
    return s && kube_informer_synced(s->sweeps) && kube_informer_synced(s->runs);
}

void ctrl_sweeper_stop(struct ctrl_sweeper *s)
{
    if (s && s->q)
        kube_queue_shutdown(s->q);
}

void ctrl_sweeper_free(struct ctrl_sweeper *s)
{
    if (!s)
        return;
    for (struct sw_rec *r = s->recs, *next; r; r = next) {
        next = r->next;
        kube_queue_done(s->q, r->key);
        rec_free(r);
    }
    kube_informer_free(s->sweeps);
    kube_informer_free(s->runs);
    kube_queue_free(s->q);
    free(s->ns);
    free(s);
}
