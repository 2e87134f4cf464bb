/* The controller's caches keep what the reconcilers read and nothing else (cache.h). */
#include "pkg/controller/cache.h"

#include <stdbool.h>
#include <string.h>

#include "pkg/api/manifest.h"
#include "pkg/api/phase.h"
#include "pkg/controller/cache_keep.h"
#include "pkg/controller/reconcile.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

static const char *const meta_keys[] = {
    "name", "namespace", "resourceVersion", "labels", "annotations", "deletionTimestamp", NULL};

void ctrl_transform_benchmarkrun(cJSON *obj, void *ud)
{
    (void)ud;
    static const char *const top[] = {"metadata", "spec", "status", NULL};
    /* creationTimestamp: the apply, the first step of the result's timing (pkg/api/timing.h),
     * until the run ends */
    static const char *const meta[] = {"name",
                                       "namespace",
                                       "uid",
                                       "generation",
                                       "resourceVersion",
                                       "deletionTimestamp",
                                       "creationTimestamp",
                                       NULL};
    util_jkeep_keys(obj, top);
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    util_jkeep_keys(md, meta);
    cJSON *st = cJSON_GetObjectItemCaseSensitive(obj, "status");
    /* what the run controller and /metrics read back (the read-back column of fields.def: of the
     * results only the few numbers /metrics shows per run, and the verdict's class): the rest is
     * written once at a transition and never read by a decision; status writes are merge
     * patches */
    enum api_phase phase = api_phase_parse(util_jstr(st, "phase"));
    bool ended = phase == API_PHASE_SUCCEEDED || phase == API_PHASE_FAILED;
    if (ended)
        cJSON_DeleteItemFromObjectCaseSensitive(md, "creationTimestamp");
    util_jkeep_paths(st, ended ? ctrl_keep_run_done : ctrl_keep_run_live);
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
    static const char *const job_meta[] = {
        "name",        "namespace",         "resourceVersion",   "labels",
        "annotations", "deletionTimestamp", "creationTimestamp", /* the result's timing */
        NULL};
    util_jkeep_keys(md, job_meta);
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
    static const char *const top[] = {"metadata", "spec", "status", NULL};
    util_jkeep_keys(obj, top);
    /* the node each worker ran on (the result, condition WorkersShareNode) */
    static const char *const spec[] = {"nodeName", NULL};
    cJSON *sp = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    util_jkeep_keys(sp, spec);
    if (sp && !sp->child)
        cJSON_DeleteItemFromObjectCaseSensitive(obj, "spec");
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
    /* startedAt, finishedAt: the result's timing (pkg/api/timing.h) */
    static const char *const term_keys[] = {"exitCode",  "reason",     "message",
                                            "startedAt", "finishedAt", NULL};
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
     * a scheduled one's when (the result's timing), and Ready when the workers start together
     * (its type and status) */
    cJSON *conds = cJSON_GetObjectItemCaseSensitive(st, "conditions");
    static const char *const cond_keys[] = {"type", "status", "reason", "message", NULL};
    static const char *const sched_keys[] = {"type", "status", "lastTransitionTime", NULL};
    static const char *const ready_keys[] = {"type", "status", NULL};
    for (int i = cJSON_GetArraySize(conds) - 1; i >= 0; i--) {
        cJSON *c = cJSON_GetArrayItem(conds, i);
        const char *type = util_jstr(c, "type"), *cstatus = util_jstr(c, "status");
        bool sched = type && strcmp(type, "PodScheduled") == 0;
        if (sched && cstatus && strcmp(cstatus, "False") == 0)
            util_jkeep_keys(c, cond_keys);
        else if (sched && cstatus && strcmp(cstatus, "True") == 0)
            util_jkeep_keys(c, sched_keys);
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

void ctrl_transform_sweep_run(cJSON *obj, void *ud)
{
    (void)ud;
    static const char *const top[] = {"metadata", "status", NULL};
    static const char *const meta[] = {"name", "namespace", "labels", "resourceVersion", NULL};
    util_jkeep_keys(obj, top);
    util_jkeep_keys(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), meta);
    util_jkeep_paths(cJSON_GetObjectItemCaseSensitive(obj, "status"), ctrl_keep_sweep_run);
}

/* A sweep keeps its whole status: the controller diffs the status it decides against the cached
 * one (a trimmed cache would rewrite what it left out at every reconcile). */
void ctrl_transform_sweep(cJSON *obj, void *ud)
{
    (void)ud;
    static const char *const top[] = {"metadata", "spec", "status", NULL};
    static const char *const meta[] = {
        "name", "namespace", "uid", "generation", "resourceVersion", "deletionTimestamp", NULL};
    util_jkeep_keys(obj, top);
    util_jkeep_keys(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), meta);
}
