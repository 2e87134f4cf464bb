/* The BenchmarkRun controller: informers, queue and the Event sender (events.c); the executor
 * (executor.c) carries out the reconciles, the caches keep what cache.c trims them to. */
#include "pkg/controller/controller.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/controller/cache.h"
#include "pkg/controller/events.h"
#include "pkg/controller/loop.h"
#include "pkg/api/phase.h"
#include "pkg/controller/reconcile.h"
#include "pkg/util/clock.h"

struct ctrl_controller {
    uv_loop_t *loop;
    struct kube_client *kc;
    struct ctrl_options opt;
    struct ctrl_loop l; /* namespace, queue, the reconciles (executor.h) */
    struct kube_informer *brs, *jobs, *pods, *events;
    struct kube_enqueue runs, children; /* what the informers queue: a run's key, its owner's */
    struct ctrl_events *ev;             /* the Events of runs and sweeps */
};

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
            kube_queue_add(c->l.q, key);
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
        kube_queue_add(c->l.q, key);
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
    struct ctrl_controller *c = ud;
    ctrl_events_forget(c->ev, key);
}

static bool synced(const void *c)
{
    return ctrl_controller_synced(c);
}

/* The executor's Event sender (ctrl_exec_event_fn). */
static void send_run_event(void *ctx, const char *key, const cJSON *br, const struct ctrl_event *e,
                           bool again)
{
    ctrl_events_post(ctx, key, "BenchmarkRun", br, e, again);
}

struct ctrl_events *ctrl_controller_events(struct ctrl_controller *c)
{
    return c->ev;
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

int ctrl_controller_new(uv_loop_t *loop, struct kube_client *kc, const struct ctrl_options *o,
                        struct ctrl_controller **out)
{
    struct ctrl_controller *c = util_xcalloc(1, sizeof(*c));
    c->loop = loop;
    c->kc = kc;
    c->opt = *o;
    c->ev = ctrl_events_new(loop, kc, &c->opt.cfg);
    int rc = ctrl_loop_init(&c->l, loop, o->namespace, o->workers > 0 ? o->workers : 8, synced, c);
    if (rc)
        goto fail;
    c->runs = (struct kube_enqueue){.q = c->l.q, .on_delete = run_deleted, .ud = c};
    c->children = (struct kube_enqueue){.q = c->l.q, .owner_label = API_LABEL_RUN};
    rc = kube_informer_enqueue(kc, &API_BENCHMARKRUNS, c->l.ns, &c->runs,
                               ctrl_transform_benchmarkrun, false, &c->brs);
    rc = rc ? rc
            : kube_informer_enqueue(kc, &KUBE_JOBS, c->l.ns, &c->children, ctrl_transform_job,
                                    false, &c->jobs);
    /* indexed by run: a reconcile reads its own run's pods only */
    rc = rc ? rc
            : kube_informer_enqueue(kc, &KUBE_PODS, c->l.ns, &c->children, ctrl_transform_pod, true,
                                    &c->pods);
    if (rc)
        goto fail;
    struct kube_informer_handlers he = {.on_add = warning_event,
                                        .on_update = warning_event_update,
                                        .transform = ctrl_transform_event,
                                        .filter = ctrl_event_relevant,
                                        .index = event_key};
    struct kube_informer_opts eo = {.field_selector = "type=Warning"};
    rc = kube_informer_new_opts(kc, &KUBE_EVENTS, c->l.ns, &eo, &he, c, &c->events);
    if (rc)
        goto fail;
    struct ctrl_exec_env env = {.loop = loop,
                                .kc = kc,
                                .resource = &API_BENCHMARKRUNS,
                                .objs = c->brs,
                                .transform = ctrl_transform_benchmarkrun,
                                .jobs = c->jobs,
                                .pods = c->pods,
                                .events = c->events,
                                .cfg = &c->opt.cfg,
                                .status_events = ctrl_status_events,
                                .send_event = send_run_event,
                                .ctx = c->ev};
    ctrl_loop_exec(&c->l, &env);
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
    if (c)
        ctrl_loop_stop(&c->l);
}

void ctrl_controller_free(struct ctrl_controller *c)
{
    if (!c)
        return;
    ctrl_events_free(c->ev);
    kube_informer_free(c->brs);
    kube_informer_free(c->jobs);
    kube_informer_free(c->pods);
    kube_informer_free(c->events);
    ctrl_loop_cleanup(&c->l);
    free(c);
}

static void foreach_run(const void *cache, ctrl_metrics_run_fn fn, void *ctx)
{
    kube_informer_foreach(cache, fn, ctx);
}

void ctrl_controller_metrics_source(const struct ctrl_controller *c,
                                    struct ctrl_metrics_controller *out)
{
    uint64_t sent, errors;
    ctrl_events_counts(c->ev, &sent, &errors);
    ctrl_exec_metrics(c->l.x, out);
    out->events_sent = sent;
    out->write_errors += errors;
    out->cached_runs = kube_informer_count(c->brs);
    out->cached_jobs = kube_informer_count(c->jobs);
    out->cached_pods = kube_informer_count(c->pods);
    out->bytes_runs = kube_informer_bytes(c->brs);
    out->bytes_jobs = kube_informer_bytes(c->jobs);
    out->bytes_pods = kube_informer_bytes(c->pods);
    out->bytes_events = kube_informer_bytes(c->events);
    out->foreach_run = foreach_run;
    out->cache = c->brs;
}
