/* The executor of the controllers' plans: one asynchronous reconcile per key (see executor.h for
 * its states). */
#include "pkg/controller/executor.h"
#include "pkg/controller/collect.h"
#include "pkg/util/list.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/fields.h"
#include "pkg/bench/result.h"
#include "pkg/controller/cache.h"
#include "pkg/api/phase.h"
#include "pkg/api/status.h"
#include "pkg/util/clock.h"
#include "pkg/util/log.h"

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
/* A transient answer to a log read: tried this often in all (ctrl_jittered backoff). */
#define LOG_TRIES 4

/* Creates this process made recently, so that a reconcile triggered before the informer has
 * seen the new object does not POST it again (client-go "expectations"). Memory only: after a
 * restart the create is simply sent and answered 409 AlreadyExists. */
#define EXPECT_MAX 2048
#define EXPECT_TTL_MS 10000
struct expectation {
    char key[300]; /* resource/ns/name */
    uint64_t at;
};

/* Results of workers whose pod Succeeded while the run went on (CTRL_NEED_EARLY_RESULTS), kept
 * until its collection takes them (or the run ends otherwise, or goes): by run key and pod name.
 * Only whole results (the log's result line, or a termination message with the histogram); a
 * read that fails is left to the collection. At most EARLY_MAX of them: past that, the
 * collection reads the rest as before. */
#define EARLY_MAX 4096
struct early_result {
    struct early_result *next;
    char key[512], pod[256];
    struct ctrl_kept_result *result; /* packed (collect.h): 64 parsed results took 100 MiB */
};

struct ctrl_exec {
    struct ctrl_exec_env env;
    struct early_result *early; /* a list, newest first */
    int n_early;
    struct rec *recs; /* in flight, for ctrl_exec_free */
    int inflight;
    uint64_t rng;               /* retry jitter */
    struct expectation *expect; /* grows with a burst of creates, freed once all expired */
    int n_expect, cap_expect;
    struct ctrl_exec_stats stats;
    struct ctrl_margin margin; /* the start barrier's, learned from the collected runs */
};

struct log_fetch;

/* One reconcile of a key. */
struct rec {
    struct ctrl_exec *x;
    struct rec *next, *prev;
    char key[512], ns[256], name[256];
    uint64_t t0;
    uint64_t write_t0; /* STATUS, ANNOTATE: when the write was sent (the margin learns it) */
    enum ctrl_exec_state state;
    cJSON *br, *init_job, *run_job;
    cJSON *pods[CTRL_MAX_PODS];
    int n_pods;
    cJSON *events[CTRL_MAX_EVENTS];
    int n_events;
    cJSON *node_list; /* FETCH: the NodeList of CTRL_NEED_NODES (obs.node_items) */
    struct ctrl_observed obs;
    struct ctrl_plan plan;
    int pending;           /* FETCH: reads in flight */
    bool fetch_failed;     /* FETCH: one of them failed: retry the reconcile */
    struct log_fetch *lfs; /* FETCH: log reads of this reconcile (in flight or waiting) */
    int log_next;          /* FETCH: next plan.logs entry to read */
    int conflicts;         /* STATUS: write retries */
    struct progress_fetch {
        struct rec *r;
        int index;
    } pf[API_MAX_WORKERS]; /* FETCH: progress reads in flight, by plan.progress entry */
    int action;            /* ACTIONS: next plan.actions entry */
    int ann;               /* ANNOTATE: patches not answered yet */
    bool ann_failed;       /* ANNOTATE: one was refused or not sent: the reconcile ends in error */
    struct ann_req {
        struct rec *r;
        int i;
    } * anns; /* ANNOTATE: one per plan.annotate pod, the context of its patch */
    bool error_set;
    bool status_written; /* STATUS: this plan's status is written (plan.create_first) */
    char error_message[600];
};

static const char *const STATE_NAMES[] = {
    [CTRL_EXEC_DECIDE] = "decide",
    [CTRL_EXEC_FETCH] = "fetch",
    [CTRL_EXEC_RESULT_CM] = "resultConfigMap",
    [CTRL_EXEC_STATUS] = "status",
    [CTRL_EXEC_ACTIONS] = "actions",
    [CTRL_EXEC_ANNOTATE] = "annotate",
    [CTRL_EXEC_EVENTS] = "events",
    [CTRL_EXEC_DONE] = "done",
};

const char *ctrl_exec_state_name(enum ctrl_exec_state s)
{
    if ((unsigned)s >= sizeof(STATE_NAMES) / sizeof(STATE_NAMES[0]) || !STATE_NAMES[s])
        return "?";
    return STATE_NAMES[s];
}

static void set_state(struct rec *r, enum ctrl_exec_state s)
{
    if (r->state == s)
        return;
    log_debug(COMP, "%s: %s -> %s", r->key, ctrl_exec_state_name(r->state),
              ctrl_exec_state_name(s));
    r->state = s;
}

static void rec_decide(struct rec *r);
static void rec_execute(struct rec *r);
static void rec_next_action(struct rec *r);
static void start_actions(struct rec *r);
static void start_annotations(struct rec *r);
static void lf_free_all(struct rec *r);
static void early_drop(struct ctrl_exec *x, const char *key);

static void rec_free(struct rec *r)
{
    struct ctrl_exec *x = r->x;
    UTIL_LIST_UNLINK(x->recs, r);
    x->inflight--;
    lf_free_all(r); /* only at ctrl_exec_free: their requests are cancelled */
    cJSON_Delete(r->br);
    cJSON_Delete(r->init_job);
    cJSON_Delete(r->run_job);
    for (int i = 0; i < r->n_pods; i++)
        cJSON_Delete(r->pods[i]);
    for (int i = 0; i < r->n_events; i++)
        cJSON_Delete(r->events[i]);
    for (int i = 0; i < API_MAX_WORKERS; i++) {
        ctrl_result_drop(&r->obs.results[i], &r->obs.kept[i]);
        free(r->obs.result_errors[i]);
    }
    free(r->obs.progress);
    cJSON_Delete(r->node_list);
    free(r->anns);
    ctrl_plan_free(&r->plan);
    free(r);
}

/* DONE: counted (error: as an error), and the key handed back; retry: requeued with backoff,
 * else after plan.requeue_ms when set. */
static void rec_end(struct rec *r, bool error, bool retry)
{
    struct ctrl_exec *x = r->x;
    set_state(r, CTRL_EXEC_DONE);
    double dt = (double)(uv_hrtime() - r->t0) / 1e9;
    ctrl_metrics_observe(&x->stats.lat, dt);
    x->stats.reconciles++;
    if (error)
        x->stats.reconcile_errors++;
    log_debug(COMP, "reconciled %s phase=%s in %.1f ms%s, again in %ld ms", r->key, r->plan.phase,
              dt * 1000,
              retry   ? " (retry)"
              : error ? " (refused)"
                      : "",
              retry ? -1 : r->plan.requeue_ms);
    kube_queue_finish(x->env.q, r->key, retry, r->plan.requeue_ms);
    rec_free(r);
}

static void rec_finish(struct rec *r, bool error)
{
    rec_end(r, error, error);
}

/* A write refused for good: an error, but trying again at once would only be refused again. */
static void rec_finish_terminal(struct rec *r)
{
    rec_end(r, true, false);
}

static void collect_pod(const cJSON *pod, void *ud)
{
    struct rec *r = ud;
    if (r->n_pods >= CTRL_MAX_PODS)
        return;
    r->pods[r->n_pods] = util_must(cJSON_Duplicate(pod, 1));
    r->n_pods++;
}

static void collect_event(const cJSON *ev, void *ud)
{
    struct rec *r = ud;
    if (r->n_events >= CTRL_MAX_EVENTS)
        return;
    r->events[r->n_events] = util_must(cJSON_Duplicate(ev, 1));
    r->n_events++;
}

/* The cached Warning events about the run's pods, fio claim and Jobs. */
static void collect_events(struct rec *r)
{
    struct ctrl_exec *x = r->x;
    for (int i = 0; i < r->n_events; i++)
        cJSON_Delete(r->events[i]);
    r->n_events = 0;
    char k[700], n[300];
    for (int i = 0; i < r->n_pods; i++) {
        (void)snprintf(k, sizeof(k), "%s/Pod/%s", r->ns, util_jstr(r->pods[i], "metadata.name"));
        kube_informer_foreach_indexed(x->env.events, k, collect_event, r);
    }
    const enum api_child children[] = {API_CHILD_INIT, API_CHILD_RUN, API_CHILD_FIO_PVC};
    for (size_t i = 0; i < sizeof(children) / sizeof(children[0]); i++) {
        api_child_name(r->name, children[i], n, sizeof(n));
        (void)snprintf(k, sizeof(k), "%s/%s/%s", r->ns,
                       children[i] == API_CHILD_FIO_PVC ? "PersistentVolumeClaim" : "Job", n);
        kube_informer_foreach_indexed(x->env.events, k, collect_event, r);
    }
    for (int i = 0; i < r->n_events; i++)
        r->obs.events[i] = r->events[i];
    r->obs.n_events = r->n_events;
}

/* (Re)loads the observed state from the caches; br_fresh (owned) replaces the cached object. */
static void rec_observe(struct rec *r, cJSON *br_fresh)
{
    struct ctrl_exec *x = r->x;
    cJSON_Delete(r->br);
    r->br = br_fresh;
    if (x->env.decide)
        return; /* the hook reads its own caches */
    char n[300];
    api_child_name(r->name, API_CHILD_INIT, n, sizeof(n));
    cJSON_Delete(r->init_job);
    r->init_job = kube_informer_copy(x->env.jobs, r->ns, n);
    api_child_name(r->name, API_CHILD_RUN, n, sizeof(n));
    cJSON_Delete(r->run_job);
    r->run_job = kube_informer_copy(x->env.jobs, r->ns, n);
    enum api_phase phase = api_phase_parse(util_jstr(r->br, "status.phase"));
    if (!r->obs.pods_fresh) { /* pods read from the API server stay: the cache may lag them */
        for (int i = 0; i < r->n_pods; i++)
            cJSON_Delete(r->pods[i]);
        r->n_pods = 0;
        if (phase == API_PHASE_INITIALIZING || phase == API_PHASE_RUNNING ||
            phase == API_PHASE_COLLECTING)
            kube_informer_foreach_indexed(x->env.pods, r->key, collect_pod, r);
    }
    r->obs.br = r->br;
    r->obs.init_job = r->init_job;
    r->obs.run_job = r->run_job;
    for (int i = 0; i < r->n_pods; i++)
        r->obs.pods[i] = r->pods[i];
    r->obs.n_pods = r->n_pods;
    collect_events(r);
}

void ctrl_exec_run(struct ctrl_exec *x, const char *key)
{
    const char *slash = strchr(key, '/');
    if (!slash || strlen(key) >= 500) {
        kube_queue_done(x->env.q, key);
        return;
    }
    struct rec *r = util_xcalloc(1, sizeof(*r));
    r->x = x;
    r->t0 = uv_hrtime();
    (void)snprintf(r->key, sizeof(r->key), "%s", key);
    (void)snprintf(r->ns, sizeof(r->ns), "%.*s", (int)(slash - key), key);
    (void)snprintf(r->name, sizeof(r->name), "%s", slash + 1);
    UTIL_LIST_PUSH(x->recs, r);
    x->inflight++;
    cJSON *br = kube_informer_copy(x->env.objs, r->ns, r->name);
    if (!br) { /* deleted: nothing to do, children go with ownerReferences */
        early_drop(x, key);
        kube_queue_forget(x->env.q, key);
        kube_queue_done(x->env.q, key);
        rec_free(r);
        return;
    }
    r->obs.cfg = x->env.cfg;
    rec_observe(r, br);
    rec_decide(r);
}

/* -- fetches -- */

static void rec_finish(struct rec *r, bool error);

static void early_store(struct rec *r);

static void fetch_done(struct rec *r)
{
    if (--r->pending > 0)
        return;
    if (r->plan.needs & CTRL_NEED_EARLY_RESULTS)
        early_store(r);
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
        double v = util_jnum(res->body, "status.replicas", -1);
        if (v < 0)
            v = util_jnum(res->body, "spec.replicas", -1);
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
    struct ctrl_exec *x = r->x;
    struct ctrl_plan *p = &r->plan;
    char q[160];
    (void)snprintf(q, sizeof(q), "container=%s&tailLines=%d&limitBytes=%d", API_CONTAINER,
                   CTRL_PROGRESS_TAIL_LINES, CTRL_PROGRESS_MAX_BYTES);
    int workers = 0;
    for (int k = 0; k < p->n_progress; k++)
        if (p->progress[k].index + 1 > workers)
            workers = p->progress[k].index + 1;
    free(r->obs.progress);
    r->obs.progress = util_xcalloc((size_t)(workers > 0 ? workers : 1), sizeof(*r->obs.progress));
    r->obs.n_progress = workers;
    r->obs.progress_fetched = true;
    for (int k = 0; k < p->n_progress && k < API_MAX_WORKERS; k++) {
        struct kube_opts o = {.subresource = "log", .query = q};
        r->pf[k] = (struct progress_fetch){.r = r, .index = p->progress[k].index};
        r->pending++;
        if (kube_get(x->env.kc, &KUBE_PODS, r->ns, p->progress[k].pod, &o, on_progress_log,
                     &r->pf[k]))
            r->pending--;
    }
}

static const struct kube_resource *scale_resource(const char *kind)
{
    return kind && strcmp(kind, "Deployment") == 0 ? &KUBE_DEPLOYMENTS : &KUBE_STATEFULSETS;
}

uint64_t ctrl_jittered(uint64_t *rng, uint64_t d)
{
    if (!*rng)
        *rng = (uv_hrtime() ^ (uint64_t)(uintptr_t)rng ^ 0x9e3779b97f4a7c15ull) | 1;
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return d / 2 + *rng % (d / 2 + 1);
}

bool ctrl_terminal(const struct kube_status *st)
{
    int h = st->http;
    return h == 400 || h == 403 || h == 404 || h == 422;
}

bool ctrl_transient(const struct kube_status *st)
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
        if (strcmp(util_jstr(r->pods[i], "metadata.name"), pod) != 0)
            continue;
        const cJSON *cs;
        cJSON_ArrayForEach(cs, util_jget(r->pods[i], "status.containerStatuses"))
        {
            const char *m = util_jstr(cs, "state.terminated.message");
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
    r->obs.result_errors[i] = util_xstrdup(why);
}

static void lf_closed(uv_handle_t *h)
{
    free(h->data);
}

/* Unlinks and frees a log read (its timer, if it has one, closes first). */
static void lf_free(struct log_fetch *lf)
{
    struct rec *r = lf->r;
    UTIL_LIST_UNLINK(r->lfs, lf);
    if (lf->timer_on) {
        lf->timer.data = lf;
        uv_close((uv_handle_t *)&lf->timer, lf_closed);
    } else {
        free(lf);
    }
}

/* Frees every log read of r. */
static void lf_free_all(struct rec *r)
{
    for (struct log_fetch *lf = r->lfs, *next; lf; lf = next) {
        next = lf->next;
        lf_free(lf);
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
    ctrl_result_keep(&r->obs.results[i], &r->obs.kept[i], result);
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
            ctrl_result_keep(&r->obs.results[i], &r->obs.kept[i], result);
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
    if (ctrl_transient(&res->status) && lf->attempt + 1 < LOG_TRIES) {
        uint64_t d = ctrl_jittered(&r->x->rng, (uint64_t)CTRL_RETRY_BASE_MS << lf->attempt);
        lf->attempt++;
        log_info(COMP, "%s: reading the log of pod %s: HTTP %d %s; again in %llu ms", r->key,
                 lf->pod, res->status.http, res->status.message, (unsigned long long)d);
        if (!lf->timer_on) {
            uv_timer_init(r->x->env.loop, &lf->timer);
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
        (void)snprintf(q, sizeof(q), "container=%s&limitBytes=%ld", API_CONTAINER, LOG_MAX_BYTES);
    else
        (void)snprintf(q, sizeof(q), "container=%s&tailLines=%d", API_CONTAINER, LOG_TAIL_LINES);
    struct kube_opts o = {.subresource = "log", .query = q, .timeout_ms = LOG_TIMEOUT_MS};
    log_debug(COMP, "%s: reading the log of pod %s (%s)", r->key, lf->pod,
              lf->whole ? "from its start: no whole result line in its last lines" : "last lines");
    if (kube_get(r->x->env.kc, &KUBE_PODS, r->ns, lf->pod, &o, on_log, lf) == 0)
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
        struct log_fetch *lf = util_xcalloc(1, sizeof(*lf));
        lf->r = r;
        lf->index = l->index;
        lf->pod = l->pod;
        UTIL_LIST_PUSH(r->lfs, lf);
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
        cJSON *pod = cJSON_Duplicate(it, 1);
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

/* The cluster's Nodes (CTRL_NEED_NODES): two workers share one; was another schedulable? A
 * refusal (no RBAC on nodes) is an answer too: the condition says the nodes are unknown. */
static void on_nodes(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(res->body, "items");
    cJSON_Delete(r->node_list);
    r->node_list = NULL;
    r->obs.node_items = NULL;
    if (!kube_ok(&res->status) || !cJSON_IsArray(items)) {
        log_warn(COMP, "%s: reading the nodes: HTTP %d %s", r->key, res->status.http,
                 res->status.message);
        r->obs.nodes = CTRL_FETCH_ERROR;
        (void)snprintf(r->obs.nodes_error, sizeof(r->obs.nodes_error), "HTTP %d %.200s",
                       res->status.http,
                       res->status.message[0] ? res->status.message : res->status.reason);
    } else {
        r->node_list = util_must(cJSON_Duplicate(items, 1));
        r->obs.node_items = r->node_list;
        r->obs.nodes = CTRL_FETCH_OK;
    }
    fetch_done(r);
}

/* -- early results -- */

static struct early_result **early_find(struct ctrl_exec *x, const char *key, const char *pod)
{
    for (struct early_result **e = &x->early; *e; e = &(*e)->next)
        if (strcmp((*e)->key, key) == 0 && strcmp((*e)->pod, pod) == 0)
            return e;
    return NULL;
}

/* Keeps result (packed, takes ownership) as pod's, a worker of the run key. */
static void early_keep(struct ctrl_exec *x, const char *key, const char *pod,
                       struct ctrl_kept_result *result)
{
    if (!result || x->n_early >= EARLY_MAX || early_find(x, key, pod)) {
        free(result);
        return;
    }
    struct early_result *e = util_xcalloc(1, sizeof(*e));
    (void)snprintf(e->key, sizeof(e->key), "%s", key);
    (void)snprintf(e->pod, sizeof(e->pod), "%s", pod);
    e->result = result;
    e->next = x->early;
    x->early = e;
    x->n_early++;
    log_debug(COMP, "%s: the result of pod %s is read and kept until the run is collected", key,
              pod);
}

/* The kept result of pod, packed (the caller's), or NULL. */
static struct ctrl_kept_result *early_take(struct ctrl_exec *x, const char *key, const char *pod)
{
    struct early_result **p = early_find(x, key, pod);
    if (!p)
        return NULL;
    struct early_result *e = *p;
    struct ctrl_kept_result *result = e->result;
    *p = e->next;
    free(e);
    x->n_early--;
    return result;
}

/* Forgets what is kept for the run key (NULL: everything). */
static void early_drop(struct ctrl_exec *x, const char *key)
{
    for (struct early_result **p = &x->early; *p;) {
        struct early_result *e = *p;
        if (key && strcmp(e->key, key) != 0) {
            p = &e->next;
            continue;
        }
        *p = e->next;
        free(e->result);
        free(e);
        x->n_early--;
    }
}

/* CTRL_NEED_EARLY_RESULTS read: whole results are kept, the rest left to the collection. */
static void early_store(struct rec *r)
{
    for (int k = 0; k < r->plan.n_logs; k++) {
        int i = r->plan.logs[k].index;
        if (i < 0 || i >= API_MAX_WORKERS)
            continue;
        if (r->obs.results[i] && r->obs.result_detail[i] == CTRL_DETAIL_FULL)
            early_keep(r->x, r->key, r->plan.logs[k].pod,
                       ctrl_result_take(&r->obs.results[i], &r->obs.kept[i]));
        ctrl_result_drop(&r->obs.results[i], &r->obs.kept[i]);
        free(r->obs.result_errors[i]);
        r->obs.result_errors[i] = NULL;
    }
    r->obs.early_fetched = true;
}

/* The result logs of plan.logs to read (CTRL_NEED_RESULTS, CTRL_NEED_EARLY_RESULTS), after those
 * answered without a read: kept from an early read, or a termination message with the full
 * result (a histogram). */
static void start_result_reads(struct rec *r, bool early)
{
    struct ctrl_plan *p = &r->plan;
    r->log_next = 0;
    for (int k = 0; k < p->n_logs; k++) {
        int i = p->logs[k].index;
        if (i < 0 || i >= API_MAX_WORKERS) {
            p->logs[k].index = -1;
            continue;
        }
        struct ctrl_kept_result *taken = early ? NULL : early_take(r->x, r->key, p->logs[k].pod);
        if (!taken && early && early_find(r->x, r->key, p->logs[k].pod)) {
            p->logs[k].index = -1; /* kept already */
            continue;
        }
        cJSON *res = NULL;
        if (!taken) {
            res = result_from_text(pod_term_message(r, p->logs[k].pod));
            if (res && !cJSON_GetObjectItemCaseSensitive(res, "histogram")) {
                cJSON_Delete(res);
                res = NULL;
            }
        }
        bool answered = res || taken;
        if (res && early) {
            early_keep(r->x, r->key, p->logs[k].pod, ctrl_result_pack(res));
            cJSON_Delete(res);
        } else if (answered) {
            if (taken)
                ctrl_result_keep_packed(&r->obs.results[i], &r->obs.kept[i], taken);
            else
                ctrl_result_keep(&r->obs.results[i], &r->obs.kept[i], res);
            r->obs.result_detail[i] = CTRL_DETAIL_FULL;
        }
        if (answered) {
            p->logs[k].index = -1;
            continue;
        }
        r->pending++; /* one per log read, released by log_done */
    }
    /* entries answered without a read are skipped */
    int kept = 0;
    for (int k = 0; k < p->n_logs; k++)
        if (p->logs[k].index >= 0)
            p->logs[kept++] = p->logs[k];
    p->n_logs = kept;
    start_log_reads(r);
}

static void start_fetches(struct rec *r)
{
    struct ctrl_exec *x = r->x;
    struct ctrl_plan *p = &r->plan;
    unsigned needs = p->needs;
    set_state(r, CTRL_EXEC_FETCH);
    r->pending = 1; /* guard until every request is queued */
    if (needs & CTRL_NEED_SCALE_TARGET) {
        r->pending++;
        if (kube_get(x->env.kc, scale_resource(p->scale_kind), r->ns, p->scale_name, NULL,
                     on_scale_target, r)) {
            r->pending--;
            r->obs.scale_target = CTRL_FETCH_ERROR;
        }
    }
    if (needs & CTRL_NEED_SCALE) {
        struct kube_opts o = {.subresource = "scale"};
        r->pending++;
        if (kube_get(x->env.kc, scale_resource(p->scale_kind), r->ns, p->scale_name, &o, on_scale,
                     r)) {
            r->pending--;
            r->obs.scale = CTRL_FETCH_ERROR;
        }
    }
    if (needs & CTRL_NEED_PODS) {
        char sel[400];
        (void)snprintf(sel, sizeof(sel), "%s=%s", API_LABEL_RUN, r->name);
        struct kube_opts o = {.label_selector = sel};
        r->pending++;
        if (kube_list(x->env.kc, &KUBE_PODS, r->ns, &o, on_pods, r)) {
            r->pending--;
            r->fetch_failed = true;
        }
    }
    if (needs & CTRL_NEED_NODES) {
        r->pending++;
        if (kube_list(x->env.kc, &KUBE_NODES, NULL, NULL, on_nodes, r)) {
            r->pending--;
            r->obs.nodes = CTRL_FETCH_ERROR;
            (void)snprintf(r->obs.nodes_error, sizeof(r->obs.nodes_error), "not requested");
        }
    }
    if (needs & CTRL_NEED_PROGRESS)
        start_progress_reads(r);
    if (needs & CTRL_NEED_RESULTS) {
        r->obs.results_fetched = true;
        start_result_reads(r, false);
    } else if (needs & CTRL_NEED_EARLY_RESULTS) {
        start_result_reads(r, true);
    }
    fetch_done(r);
}

static void rec_decide(struct rec *r)
{
    set_state(r, CTRL_EXEC_DECIDE);
    ctrl_plan_free(&r->plan);
    memset(&r->plan, 0, sizeof(r->plan));
    r->obs.now = util_wall_s();
    r->obs.start_margin_ms = ctrl_margin_ms(&r->x->margin);
    if (r->error_set) {
        r->obs.error_reason = "CreateFailed";
        r->obs.error_message = r->error_message;
    }
    const struct ctrl_exec_env *env = &r->x->env;
    int rc = env->decide ? env->decide(env->ctx, r->key, r->br,
                                       r->error_set ? r->error_message : NULL, r->obs.now, &r->plan)
                         : ctrl_decide(&r->obs, &r->plan);
    if (rc != 0) {
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
        r->x->stats.write_errors++;
        rec_finish(r, true);
        return;
    }
    cJSON *fresh = res->body;
    res->body = NULL;
    if (r->x->env.transform)
        r->x->env.transform(fresh, NULL);
    rec_observe(r, fresh);
    rec_decide(r);
}

static void write_status(struct rec *r)
{
    struct ctrl_exec *x = r->x;
    set_state(r, CTRL_EXEC_STATUS);
    cJSON *patch = cJSON_CreateObject();
    cJSON *md = cJSON_AddObjectToObject(patch, "metadata");
    const char *rv = util_jstr(r->br, "metadata.resourceVersion");
    if (rv)
        cJSON_AddStringToObject(md, "resourceVersion", rv);
    cJSON_AddItemReferenceToObject(patch, "status", r->plan.status);
    struct kube_opts o = {.subresource = "status", .field_validation = "Strict"};
    r->write_t0 = uv_hrtime();
    int rc = kube_patch(x->env.kc, x->env.resource, r->ns, r->name, KUBE_PATCH_MERGE, patch, &o,
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
    struct ctrl_exec *x = r->x;
    if (kube_ok(&res->status)) {
        x->stats.status_writes++;
        log_info(COMP, "%s: phase %s", r->key, r->plan.phase);
        const char *ready = bench_status_str(r->plan.status, BK_STATUS_READY_AT);
        if (ready && !bench_status_str(util_jget(r->br, "status"), BK_STATUS_READY_AT)) {
            char why[160]; /* as it was decided: before this write is learned */
            ctrl_margin_describe(&x->margin, why, sizeof(why));
            log_info(COMP, "%s: start barrier %s, start margin %ld ms (%s)", r->key,
                     r->plan.start_at, r->obs.start_margin_ms, why);
        }
        ctrl_margin_record_write(&x->margin, (double)(uv_hrtime() - r->write_t0) / 1e9);
        enum api_phase ph = api_phase_parse(r->plan.phase);
        if (ph == API_PHASE_SUCCEEDED || ph == API_PHASE_FAILED)
            early_drop(x, r->key); /* what the collection did not take */
        if (r->plan.start_notice_s > 0) {
            ctrl_margin_record(&x->margin, r->plan.start_notice_s);
            log_info(COMP,
                     "%s: the workers read the barrier %.3f s after the pods were ready; "
                     "start margin now %ld ms",
                     r->key, r->plan.start_notice_s, ctrl_margin_ms(&x->margin));
        }
        /* The cache learns of this write from the watch, maybe only after the next reconcile
         * of the key has read the old object and written again into a 409. The answer is that
         * object already; the key is queued again as its watch event would have done. */
        const char *rv = util_jstr(r->br, "metadata.resourceVersion");
        if (res->body && rv) {
            cJSON *written = res->body;
            res->body = NULL;
            if (kube_informer_assume(x->env.objs, written, rv) == 0)
                kube_queue_add(x->env.q, r->key);
        }
        r->status_written = true;
        start_actions(r); /* a create-first plan's are done: ANNOTATE */
        return;
    }
    if (res->status.http == 404) {
        rec_finish(r, false);
        return;
    }
    if (res->status.http == 409 && r->conflicts < MAX_CONFLICT_RETRIES) {
        /* someone wrote in between: read the object again and decide again */
        x->stats.conflicts++;
        r->conflicts++;
        if (kube_get(x->env.kc, x->env.resource, r->ns, r->name, NULL, on_fresh_br, r) == 0)
            return;
    }
    x->stats.write_errors++;
    log_warn(COMP, "%s: status write failed: HTTP %d %s: %s", r->key, res->status.http,
             res->status.reason, res->status.message);
    if (ctrl_terminal(&res->status)) {
        rec_finish_terminal(r);
        return;
    }
    rec_finish(r, true);
}

static void send_events(struct rec *r);
static void expect_key(const struct rec *r, const struct ctrl_action *a, char *out, size_t len);
static void expect_add(struct ctrl_exec *x, const char *key);

static void on_action(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    struct ctrl_exec *x = r->x;
    struct ctrl_action *a = &r->plan.actions[r->action];
    int http = res->status.http;
    bool ok = kube_ok(&res->status) ||
              (a->kind == CTRL_ACT_CREATE && http == 409) || /* AlreadyExists: idempotent */
              (a->kind == CTRL_ACT_DELETE && http == 404);   /* NotFound: already gone */
    if (ok) {
        if (kube_ok(&res->status)) {
            if (a->kind == CTRL_ACT_CREATE) {
                char ek[300];
                expect_key(r, a, ek, sizeof(ek));
                expect_add(x, ek);
                x->stats.creates++;
            } else {
                x->stats.deletes++;
            }
            log_info(COMP, "%s: %s %s %s", r->key,
                     a->kind == CTRL_ACT_CREATE ? "created" : "deleted", a->resource->kind,
                     a->name);
        }
        r->action++;
        rec_next_action(r);
        return;
    }
    x->stats.write_errors++;
    log_warn(COMP, "%s: %s %s %s: HTTP %d %s: %s", r->key,
             a->kind == CTRL_ACT_CREATE ? "create" : "delete", a->resource->kind, a->name, http,
             res->status.reason, res->status.message);
    if (a->kind == CTRL_ACT_CREATE && ctrl_terminal(&res->status) && !r->error_set) {
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
static bool expected(struct ctrl_exec *x, const char *key)
{
    uint64_t now = uv_now(x->env.loop);
    int j = 0;
    bool found = false;
    for (int i = 0; i < x->n_expect; i++) {
        if (now - x->expect[i].at > EXPECT_TTL_MS)
            continue; /* expired: dropped */
        if (strcmp(x->expect[i].key, key) == 0)
            found = true;
        if (i != j)
            x->expect[j] = x->expect[i];
        j++;
    }
    x->n_expect = j;
    if (j == 0) {
        free(x->expect);
        x->expect = NULL;
        x->cap_expect = 0;
    }
    return found;
}

static void expect_add(struct ctrl_exec *x, const char *key)
{
    if (x->n_expect >= x->cap_expect)
        (void)expected(x, ""); /* purge expired */
    if (x->n_expect >= x->cap_expect) {
        if (x->cap_expect >= EXPECT_MAX)
            return;
        int cap = x->cap_expect ? x->cap_expect * 2 : 16;
        x->expect = util_xrealloc(x->expect, (size_t)cap * sizeof(*x->expect));
        x->cap_expect = cap;
    }
    (void)snprintf(x->expect[x->n_expect].key, sizeof(x->expect[0].key), "%s", key);
    x->expect[x->n_expect].at = uv_now(x->env.loop);
    x->n_expect++;
}

static void rec_next_action(struct rec *r)
{
    struct ctrl_exec *x = r->x;
    while (r->action < r->plan.n_actions) {
        struct ctrl_action *a = &r->plan.actions[r->action];
        int rc;
        char ek[300];
        if (a->kind == CTRL_ACT_CREATE) {
            expect_key(r, a, ek, sizeof(ek));
            if (expected(x, ek)) { /* created moments ago, the cache is behind */
                r->action++;
                continue;
            }
        }
        if (a->kind == CTRL_ACT_CREATE) {
            struct kube_opts o = {.field_validation = "Strict"};
            rc = kube_create(x->env.kc, a->resource, r->ns, a->object, &o, on_action, r);
        } else {
            struct kube_opts o = {.propagation_policy = "Background"};
            rc = kube_delete(x->env.kc, a->resource, r->ns, a->name, &o, on_action, r);
        }
        if (rc == 0)
            return;
        log_warn(COMP, "%s: request not sent: %s", r->key, strerror(-rc));
        rec_finish(r, true);
        return;
    }
    if (r->plan.create_first && r->plan.status && !r->status_written)
        write_status(r); /* the creates came first */
    else
        start_annotations(r);
}

/* STATUS is done (or there was none): the plan's creates and deletes. */
static void start_actions(struct rec *r)
{
    set_state(r, CTRL_EXEC_ACTIONS);
    rec_next_action(r);
}

/* One pod of plan.annotate answered (or its patch was not sent); after the last, EVENTS and
 * DONE (with an error when one failed). */
static void annotation_done(struct rec *r)
{
    if (--r->ann > 0)
        return;
    send_events(r);
    rec_finish(r, r->ann_failed);
}

static void on_annotated(struct kube_result *res, void *ud)
{
    struct ann_req *a = ud;
    struct rec *r = a->r;
    const char *pod = r->plan.annotate[a->i].pod;
    if (kube_ok(&res->status)) {
        ctrl_margin_record_write(&r->x->margin, (double)(uv_hrtime() - r->write_t0) / 1e9);
        log_info(COMP, "%s: pod %s starts at %s", r->key, pod, r->plan.start_at);
    } else if (res->status.http != 404) { /* a pod gone needs no start */
        r->x->stats.write_errors++;
        r->ann_failed = true;
        log_warn(COMP, "%s: annotating pod %s: HTTP %d %s: %s", r->key, pod, res->status.http,
                 res->status.reason, res->status.message);
    }
    annotation_done(r);
}

/* Publishes the start barrier on every pod of plan.annotate at once, the last one's kubelet
 * refresh being what the workers wait for: a merge patch of its API_START_ANNOTATION (the same
 * value for every pod of the run). */
static void start_annotations(struct rec *r)
{
    set_state(r, CTRL_EXEC_ANNOTATE);
    int n = r->plan.n_annotate;
    free(r->anns);
    r->anns = util_xcalloc((size_t)(n > 0 ? n : 1), sizeof(*r->anns));
    r->ann = 1; /* guard until every patch is sent */
    r->ann_failed = false;
    cJSON *patch = cJSON_CreateObject();
    cJSON *ann = cJSON_CreateObject();
    util_jset_str(ann, API_START_ANNOTATION, r->plan.start_at);
    util_jset(cJSON_AddObjectToObject(patch, "metadata"), "annotations", ann);
    struct kube_opts o = {.field_validation = "Strict"};
    r->write_t0 = uv_hrtime();
    for (int i = 0; i < n; i++) {
        r->anns[i] = (struct ann_req){.r = r, .i = i};
        int rc = kube_patch(r->x->env.kc, &KUBE_PODS, r->ns, r->plan.annotate[i].pod,
                            KUBE_PATCH_MERGE, patch, &o, on_annotated, &r->anns[i]);
        if (rc) {
            log_warn(COMP, "%s: request not sent: %s", r->key, strerror(-rc));
            r->ann_failed = true;
        } else {
            r->ann++;
        }
    }
    cJSON_Delete(patch);
    annotation_done(r);
}

/* The plan's Events, and before them those the observed status records but this process has
 * not seen sent (a kill between a status write and its Event, or an Event given up). */
static void send_events(struct rec *r)
{
    const struct ctrl_exec_env *env = &r->x->env;
    set_state(r, CTRL_EXEC_EVENTS);
    struct ctrl_event implied[8];
    int n = env->status_events ? env->status_events(r->br, util_wall_s(), implied, 8) : 0;
    for (int i = 0; env->send_event && i < n; i++)
        env->send_event(env->ctx, r->key, r->br, &implied[i], true);
    for (int i = 0; env->send_event && i < r->plan.n_events; i++)
        env->send_event(env->ctx, r->key, r->br, &r->plan.events[i], false);
    r->plan.n_events = 0;
}

/* -- the result ConfigMap, written before the status that ends the run -- */

static void after_result_cm(struct rec *r)
{
    if (r->plan.status && !r->plan.create_first)
        write_status(r);
    else
        start_actions(r);
}

/* Refused for good: the run ends without it (no status.resultRef), a Warning Event says why. */
static void result_cm_refused(struct rec *r, const char *why)
{
    struct ctrl_plan *p = &r->plan;
    const char *name = util_jstr(p->result_cm, "metadata.name");
    log_warn(COMP, "%s: result ConfigMap %s not written: %s", r->key, name, why);
    cJSON_DeleteItemFromObjectCaseSensitive(p->status, bench_status_key(BK_STATUS_RESULT_REF));
    if (!ctrl_plan_event(p, true, "ResultConfigMapFailed",
                         "the result ConfigMap %.120s is not written (status keeps the summary): "
                         "%.300s",
                         name, why)) {
        log_warn(COMP, "%s: Event ResultConfigMapFailed dropped (at most %d per plan)", r->key,
                 CTRL_PLAN_MAX_EVENTS);
        r->x->stats.dropped_events++;
    }
    after_result_cm(r);
}

/* An answer that is not a success: refused for good, or try the whole reconcile again. */
static void result_cm_error(struct rec *r, const char *verb, const struct kube_status *st)
{
    char why[700];
    (void)snprintf(why, sizeof(why), "%s: HTTP %d %s: %s", verb, st->http, st->reason, st->message);
    r->x->stats.write_errors++;
    if (ctrl_terminal(st) || st->http == 413) {
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
             util_jstr(r->plan.result_cm, "metadata.name"));
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
    const char *run = util_jkey(util_jget(old, "metadata.labels"), API_LABEL_RUN);
    if (!run || strcmp(run, r->name) != 0) {
        result_cm_refused(
            r, "a ConfigMap of that name exists and is not this run's (no label " API_LABEL_RUN
               "=<run>)");
        return;
    }
    if (cJSON_Compare(util_jget(old, "data"), util_jget(mine, "data"), 1) &&
        cJSON_Compare(util_jget(old, "metadata.ownerReferences"),
                      util_jget(mine, "metadata.ownerReferences"), 1)) {
        after_result_cm(r);
        return;
    }
    const char *rv = util_jstr(old, "metadata.resourceVersion");
    cJSON *md = cJSON_GetObjectItemCaseSensitive(mine, "metadata");
    util_jset_str(md, "resourceVersion", rv ? rv : "");
    struct kube_opts o = {.field_validation = "Strict"};
    if (kube_replace(r->x->env.kc, &KUBE_CONFIGMAPS, r->ns, util_jstr(mine, "metadata.name"), mine,
                     &o, on_result_cm_replaced, r) != 0)
        rec_finish(r, true);
}

static void on_result_cm_created(struct kube_result *res, void *ud)
{
    struct rec *r = ud;
    const char *name = util_jstr(r->plan.result_cm, "metadata.name");
    if (kube_ok(&res->status)) {
        r->x->stats.creates++;
        log_info(COMP, "%s: created ConfigMap %s", r->key, name);
        after_result_cm(r);
        return;
    }
    if (res->status.http != 409) {
        result_cm_error(r, "create", &res->status);
        return;
    }
    if (kube_get(r->x->env.kc, &KUBE_CONFIGMAPS, r->ns, name, NULL, on_result_cm_got, r) != 0)
        rec_finish(r, true);
}

/* A plan's Events and actions past their caps were dropped by ctrl_decide: said and counted. */
static void count_dropped(struct rec *r)
{
    const struct ctrl_plan *p = &r->plan;
    if (p->dropped_events)
        log_warn(COMP, "%s: %d Events of the plan dropped (at most %d per plan)", r->key,
                 p->dropped_events, CTRL_PLAN_MAX_EVENTS);
    if (p->dropped_actions)
        log_warn(COMP, "%s: %d actions of the plan dropped (at most %d per plan)", r->key,
                 p->dropped_actions, CTRL_PLAN_MAX_ACTIONS);
    r->x->stats.dropped_events += (uint64_t)p->dropped_events;
    r->x->stats.dropped_actions += (uint64_t)p->dropped_actions;
}

static void rec_execute(struct rec *r)
{
    r->action = 0;
    r->status_written = false;
    count_dropped(r);
    if (r->plan.result_cm) {
        set_state(r, CTRL_EXEC_RESULT_CM);
        struct kube_opts o = {.field_validation = "Strict"};
        if (kube_create(r->x->env.kc, &KUBE_CONFIGMAPS, r->ns, r->plan.result_cm, &o,
                        on_result_cm_created, r) != 0)
            rec_finish(r, true);
        return;
    }
    after_result_cm(r);
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

struct ctrl_exec *ctrl_exec_new(const struct ctrl_exec_env *env)
{
    struct ctrl_exec *x = util_xcalloc(1, sizeof(*x));
    x->env = *env;
    return x;
}

int ctrl_exec_inflight(const struct ctrl_exec *x)
{
    return x ? x->inflight : 0;
}

const struct ctrl_exec_stats *ctrl_exec_stats(const struct ctrl_exec *x)
{
    return &x->stats;
}

void ctrl_exec_metrics(const struct ctrl_exec *x, struct ctrl_metrics_controller *out)
{
    const struct ctrl_exec_stats *st = &x->stats;
    *out = (struct ctrl_metrics_controller){
        .reconciles = st->reconciles,
        .reconcile_errors = st->reconcile_errors,
        .conflicts = st->conflicts,
        .creates = st->creates,
        .deletes = st->deletes,
        .status_writes = st->status_writes,
        .write_errors = st->write_errors,
        .dropped_events = st->dropped_events,
        .dropped_actions = st->dropped_actions,
        .reconcile_seconds = st->lat,
        .queue_depth = kube_queue_len(x->env.q),
        .inflight = x->inflight,
    };
}

void ctrl_exec_free(struct ctrl_exec *x)
{
    if (!x)
        return;
    while (x->recs) {
        struct rec *r = x->recs;
        kube_queue_done(x->env.q, r->key);
        rec_free(r);
    }
    early_drop(x, NULL);
    free(x->expect);
    free(x);
}
