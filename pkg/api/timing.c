/* Where a run's wall time went, each step from its own record (timing.h). */
#include "pkg/api/timing.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "pkg/api/manifest.h"
#include "pkg/api/status.h"
#include "pkg/bench/fields.h"
#include "pkg/util/clock.h"
#include "pkg/util/json.h"

#define KEY(id) bench_key(BK_##id)

static void step(cJSON *steps, double applied, const char *name, double at, const char *source)
{
    if (!(at > 0) || !isfinite(at))
        return;
    char ts[UTIL_RFC3339_LEN];
    util_rfc3339(at, 3, ts, sizeof(ts));
    cJSON *s = cJSON_CreateObject();
    util_jset_str(s, KEY(TIMING_STEPS_STEP), name);
    util_jset_str(s, KEY(TIMING_STEPS_AT), ts);
    if (applied > 0)
        util_jset_num(s, KEY(TIMING_STEPS_SECONDS), round((at - applied) * 1e3) / 1e3);
    util_jset_str(s, KEY(TIMING_STEPS_SOURCE), source);
    cJSON_AddItemToArray(steps, s);
}

static double created(const cJSON *obj)
{
    return util_rfc3339_parse(util_jstr(obj, "metadata.creationTimestamp"));
}

static bool has_role(const cJSON *pod, const char *role)
{
    const char *r = util_jkey(util_jget(pod, "metadata.labels"), API_LABEL_ROLE);
    return r && strcmp(r, role) == 0;
}

/* The latest of the pods of role: their PodScheduled=True lastTransitionTime (which = 0), their
 * first container's startedAt (1) or finishedAt (2). */
static double latest(const struct api_timing_in *in, const char *role, int which)
{
    double t = 0;
    for (int i = 0; i < in->n_pods; i++) {
        const cJSON *p = in->pods[i], *cs = util_jget(p, "status.containerStatuses");
        if (!has_role(p, role))
            continue;
        double v = 0;
        if (which == 0) {
            const cJSON *c = api_cond_get(util_jget(p, "status"), "PodScheduled");
            const char *st = util_jstr(c, "status");
            if (st && strcmp(st, "True") == 0)
                v = util_rfc3339_parse(util_jstr(c, "lastTransitionTime"));
        } else {
            const cJSON *c0 = cJSON_GetArrayItem(cs, 0);
            const char *run = which == 1 ? "state.running.startedAt" : NULL;
            const char *term =
                which == 1 ? "state.terminated.startedAt" : "state.terminated.finishedAt";
            const char *s = run ? util_jstr(c0, run) : NULL;
            v = util_rfc3339_parse(s ? s : util_jstr(c0, term));
        }
        t = fmax(t, v);
    }
    return t;
}

/* The latest worker's barrier + window.<id> (a runner's record), 0 when none has it. */
static double runners(const struct api_timing_in *in, enum bench_field_id id)
{
    double t = 0;
    for (int i = 0; i < in->n_results; i++) {
        double b =
            util_rfc3339_parse(cJSON_GetStringValue(bench_get(in->results[i], BK_WINDOW_BARRIER)));
        double s = bench_num(in->results[i], id);
        if (b > 0 && isfinite(s))
            t = fmax(t, b + s);
    }
    return t;
}

cJSON *api_run_timing(const struct api_timing_in *in)
{
    cJSON *timing = cJSON_CreateObject();
    cJSON *steps = cJSON_CreateArray();
    double applied = created(in->br);
    step(steps, applied, "applied", applied, "BenchmarkRun creationTimestamp (API server, 1 s)");
    if (in->init_job) {
        step(steps, applied, "initJobCreated", created(in->init_job),
             "init Job creationTimestamp (API server, 1 s)");
        step(steps, applied, "initSucceeded", latest(in, "init", 2),
             "init pod's container finishedAt (kubelet, 1 s)");
    }
    step(steps, applied, "jobCreated", created(in->run_job),
         "run Job creationTimestamp (API server, 1 s)");
    step(steps, applied, "podsScheduled", latest(in, "run", 0),
         "latest worker pod's PodScheduled lastTransitionTime (scheduler, 1 s)");
    step(steps, applied, "containersStarted", latest(in, "run", 1),
         "latest worker container's startedAt (kubelet, 1 s)");
    step(steps, applied, "allReady",
         util_rfc3339_parse(bench_status_str(in->status, BK_STATUS_READY_AT)),
         "status.readyAt: the operator saw every worker pod Ready (operator, 1 ms)");
    step(steps, applied, "barrier", api_status_start_at(in->status),
         "status.startAt: the start barrier published (operator, 1 ms)");
    step(steps, applied, "barrierSeen", runners(in, BK_WINDOW_SEEN_SECONDS),
         "latest worker's read of its downwardAPI file (runner, 1 ms)");
    step(steps, applied, "pgbenchStarted", runners(in, BK_WINDOW_LATE_SECONDS),
         "latest worker's pgbench start (runner, 1 ms)");
    step(steps, applied, "pgbenchEnded", runners(in, BK_WINDOW_END_SECONDS),
         "latest worker's pgbench end (runner, 1 ms)");
    step(steps, applied, "collected", in->now,
         "every worker's result read, this ConfigMap written next (operator, 1 ms)");
    util_jset(timing, KEY(TIMING_STEPS), steps);
    return timing;
}
