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
#include "pkg/controller/loop.h"
#include "pkg/util/clock.h"

/* ---- merge diff --------------------------------------------------------------------------- */

cJSON *ctrl_merge_diff(const cJSON *old_obj, const cJSON *new_obj)
{
    if (!cJSON_IsObject(old_obj) || !cJSON_IsObject(new_obj))
        return cJSON_Compare(old_obj, new_obj, true) ? NULL
                                                     : util_must(cJSON_Duplicate(new_obj, 1));
    cJSON *patch = cJSON_CreateObject();
    const cJSON *it;
    cJSON_ArrayForEach(it, new_obj)
    {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(old_obj, it->string);
        cJSON *d;
        if (!o)
            d = cJSON_Duplicate(it, 1);
        else if (cJSON_IsObject(o) && cJSON_IsObject(it))
            d = ctrl_merge_diff(o, it);
        else
            d = cJSON_Compare(o, it, true) ? NULL : cJSON_Duplicate(it, 1);
        if (d)
            cJSON_AddItemToObject(patch, it->string, d);
    }
    cJSON_ArrayForEach(it, old_obj)
    {
        if (!cJSON_GetObjectItemCaseSensitive(new_obj, it->string))
            cJSON_AddItemToObject(patch, it->string, cJSON_CreateNull());
    }
    if (!patch->child) {
        cJSON_Delete(patch);
        return NULL;
    }
    return patch;
}

/* ---- the controller ----------------------------------------------------------------------- */

struct ctrl_sweeper {
    uv_loop_t *loop;
    struct kube_client *kc;
    struct ctrl_loop l; /* namespace, queue, the reconciles (executor.h) */
    struct kube_informer *sweeps, *runs;
    struct kube_enqueue own, by_sweep; /* what the informers queue: a sweep's key, its runs' */
    struct ctrl_events *ev;            /* the Event sender, or NULL */
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

/* The sweep's plan as the executor carries it out: the status as a merge patch (the difference
 * from the status decided from: members the decision dropped are nulled), the run to create as
 * an action. */
static void to_exec_plan(const cJSON *old, struct ctrl_sweep_plan *sp, struct ctrl_plan *plan)
{
    plan->status = sp->status ? ctrl_merge_diff(old, sp->status) : NULL;
    if (sp->create) {
        struct ctrl_action *a = &plan->actions[plan->n_actions++];
        a->kind = CTRL_ACT_CREATE;
        a->resource = &API_BENCHMARKRUNS;
        (void)snprintf(a->name, sizeof(a->name), "%s", util_jstr(sp->create, "metadata.name"));
        a->object = sp->create;
        sp->create = NULL;
    }
    for (int i = 0; i < sp->n_events && i < CTRL_PLAN_MAX_EVENTS; i++)
        plan->events[plan->n_events++] = sp->events[i];
    plan->requeue_ms = sp->requeue_ms;
    (void)snprintf(plan->phase, sizeof(plan->phase), "%s", sp->phase);
    ctrl_sweep_plan_free(sp);
}

/* The executor's decide hook (ctrl_exec_decide_fn): ctrl_sweep_decide over the sweep and its
 * cached runs, or, after a create refused for good, ctrl_sweep_refused. */
static int decide(void *ctx, const char *key, const cJSON *sweep, const char *error, double now,
                  struct ctrl_plan *plan)
{
    struct ctrl_sweeper *s = ctx;
    struct ctrl_sweep_plan sp;
    if (util_jget(sweep, "metadata.deletionTimestamp"))
        return 0; /* the garbage collector deletes its runs */
    if (error) {
        ctrl_sweep_refused(sweep, error, now, &sp);
    } else {
        struct run_list *l = util_xcalloc(1, sizeof(*l));
        kube_informer_foreach_indexed(s->runs, key, collect_run, l);
        ctrl_sweep_decide(sweep, (const cJSON *const *)l->items, l->n, now, &sp);
        for (int i = 0; i < l->n; i++)
            cJSON_Delete(l->items[i]);
        free(l);
    }
    to_exec_plan(util_jget(sweep, "status"), &sp, plan);
    return 0;
}

/* The executor's Event sender (ctrl_exec_event_fn). */
static void send_event(void *ctx, const char *key, const cJSON *sweep, const struct ctrl_event *e,
                       bool again)
{
    struct ctrl_sweeper *s = ctx;
    (void)key;
    (void)again;
    if (s->ev)
        ctrl_events_send(s->ev, "BenchmarkSweep", sweep, e);
}

static bool synced(const void *s)
{
    return ctrl_sweeper_synced(s);
}

int ctrl_sweeper_new(uv_loop_t *loop, struct kube_client *kc, const char *ns, int workers,
                     struct ctrl_events *ev, struct ctrl_sweeper **out)
{
    struct ctrl_sweeper *s = util_xcalloc(1, sizeof(*s));
    s->loop = loop;
    s->ev = ev;
    s->kc = kc;
    int rc = ctrl_loop_init(&s->l, loop, ns, workers > 0 ? workers : 2, synced, s);
    if (rc)
        goto fail;
    s->own = (struct kube_enqueue){.q = s->l.q, .on_delete = sweep_deleted, .ud = s};
    s->by_sweep = (struct kube_enqueue){.q = s->l.q, .owner_label = API_LABEL_SWEEP};
    rc = kube_informer_enqueue(kc, &API_BENCHMARKSWEEPS, s->l.ns, &s->own, ctrl_transform_sweep,
                               false, &s->sweeps);
    /* indexed by sweep: a reconcile reads its own sweep's runs only */
    rc = rc ? rc
            : kube_informer_enqueue(kc, &API_BENCHMARKRUNS, s->l.ns, &s->by_sweep,
                                    ctrl_transform_sweep_run, true, &s->runs);
    if (rc)
        goto fail;
    struct ctrl_exec_env env = {.loop = loop,
                                .kc = kc,
                                .resource = &API_BENCHMARKSWEEPS,
                                .objs = s->sweeps,
                                .transform = ctrl_transform_sweep,
                                .decide = decide,
                                .status_events = ctrl_sweep_status_events,
                                .send_event = send_event,
                                .ctx = s};
    ctrl_loop_exec(&s->l, &env);
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

void ctrl_sweeper_metrics_source(const struct ctrl_sweeper *s, struct ctrl_metrics_controller *out)
{
    ctrl_exec_metrics(s->l.x, out);
}

bool ctrl_sweeper_synced(const struct ctrl_sweeper *s)
{
    return s && kube_informer_synced(s->sweeps) && kube_informer_synced(s->runs);
}

void ctrl_sweeper_stop(struct ctrl_sweeper *s)
{
    if (s)
        ctrl_loop_stop(&s->l);
}

void ctrl_sweeper_free(struct ctrl_sweeper *s)
{
    if (!s)
        return;
    kube_informer_free(s->sweeps);
    kube_informer_free(s->runs);
    ctrl_loop_cleanup(&s->l);
    free(s);
}
