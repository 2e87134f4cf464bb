/* The state machine on synthetic observed state: every transition, restarts, idempotence,
 * immutability after the start, failures naming the pod. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "pkg/controller/cache.h"
#include "pkg/controller/controller.h"
#include "pkg/util/json.h"
#include "pkg/controller/reconcile.h"
#include "pkg/api/placement.h"
#include "pkg/util/clock.h"
#include "test/unit/bench/status_rows.h"

#define NOW 1800000000.0

static struct api_config cfg;

static cJSON *br_new(const char *spec, const char *status, int generation)
{
    char buf[8192];
    (void)snprintf(
        buf, sizeof(buf),
        "{\"apiVersion\":\"pgbench.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"
        "\"name\":\"b1\",\"namespace\":\"ns\",\"uid\":\"u1\",\"generation\":%d,"
        "\"resourceVersion\":\"7\"},\"spec\":%s%s%s}",
        generation, spec, status ? ",\"status\":" : "", status ? status : "");
    cJSON *j = cJSON_Parse(buf);
    if (!j)
        (void)fprintf(stderr, "bad json: %s\n", buf);
    assert_non_null(j);
    return j;
}

#define SPEC_BASIC                                                                                 \
    "{\"target\":{\"host\":\"pg\",\"user\":\"u\",\"passwordSecretRef\":{\"name\":\"pw\"}},"        \
    "\"workers\":2,\"workload\":{\"pgbench\":{\"run\":{\"clients\":4,\"durationSeconds\":30}}}}"
#define SPEC_INIT                                                                                  \
    "{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workload\":{\"pgbench\":{\"init\":{"           \
    "\"scale\":5},\"run\":{\"durationSeconds\":30}}}}"
#define SPEC_HPA                                                                                   \
    "{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workload\":{\"pgbench\":{\"run\":{"            \
    "\"durationSeconds\":30}}},\"hpa\":{\"scaleTargetRef\":{\"kind\":\"StatefulSet\",\"name\":"    \
    "\"reps\"},\"maxReplicas\":3}}"

static void obs_init(struct ctrl_observed *o, const cJSON *br)
{
    memset(o, 0, sizeof(*o));
    o->br = br;
    o->now = NOW;
    o->cfg = &cfg;
}

static const char *phase(const struct ctrl_plan *p)
{
    return util_jstr(p->status, "phase");
}

static const cJSON *cond(const struct ctrl_plan *p, const char *type)
{
    return api_cond_get(p->status, type);
}

/* ctrl_decide, and every key of the status it writes has a row in the contract table */
static int decide(const struct ctrl_observed *o, struct ctrl_plan *p)
{
    int rc = ctrl_decide(o, p);
    if (p->status)
        assert_status_keys_have_rows(p->status);
    return rc;
}

static int setup(void **state)
{
    (void)state;
    api_config_defaults(&cfg);
    cfg.start_delay_s = 5;
    cfg.progress_interval_s = 0; /* test_live_progress turns it on */
    return 0;
}

/* Pending -> Running: status first (the Running condition, whose lastTransitionTime the run's
 * deadline counts from), then the run Job; no barrier yet (it comes when the pods are ready). */
static void test_pending_to_running(void **state)
{
    (void)state;
    cJSON *br = br_new(SPEC_BASIC, NULL, 1);
    struct ctrl_observed o;
    obs_init(&o, br);
    struct ctrl_plan p;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, 0);
    assert_non_null(p.status);
    assert_string_equal(phase(&p), "Running");
    assert_true(p.create_first); /* issue 31.4: the Job, then the status */
    assert_null(util_jget(p.status, "startAt"));
    assert_int_equal(util_jnum(p.status, "observedGeneration", 0), 1);
    assert_int_equal(util_jnum(p.status, "clients", 0), 4);
    assert_string_equal(util_jstr(p.status, "target"), "pg:5432/u");
    assert_string_equal(util_jstr(cond(&p, "Running"), "status"), "True");
    assert_int_equal(util_jnum(p.status, "startedGeneration", 0), 1);
    assert_null(cond(&p, "SpecLocked")); /* only once a spec change is ignored */
    assert_int_equal(p.n_actions, 1);
    assert_int_equal(p.actions[0].kind, CTRL_ACT_CREATE);
    assert_ptr_equal(p.actions[0].resource, &KUBE_JOBS);
    assert_string_equal(p.actions[0].name, "b1-run");
    const cJSON *env = util_jget(
        cJSON_GetArrayItem(util_jget(p.actions[0].object, "spec.template.spec.containers"), 0),
        "env");
    bool found = false;
    const cJSON *e;
    cJSON_ArrayForEach(e, env)
    {
        assert_string_not_equal(util_jstr(e, "name"), "BENCH_START_AT");
        if (strcmp(util_jstr(e, "name"), "BENCH_DEADLINE_AT") == 0) {
            /* the Running entry + start delay 5 + run timeout (30 + 600 + replica catch-up 300) */
            assert_string_equal(util_jstr(e, "value"), "1800000935");
            found = true;
        }
    }
    assert_true(found);
    /* the spec snapshot travels with the Job */
    assert_non_null(
        util_jkey(util_jget(p.actions[0].object, "metadata.annotations"), CTRL_SPEC_ANNOTATION));
    assert_int_equal(p.n_events, 1);
    assert_string_equal(p.events[0].reason, "Running");
    assert_false(p.events[0].warning);
    assert_true(p.requeue_ms > 0);

    /* Level-triggered: the same decision on the written status changes nothing but recreates
     * the (missing in cache) Job with the SAME deadline, e.g. after an operator restart. */
    char *st1 = cJSON_PrintUnformatted(p.status);
    cJSON *br2 = br_new(SPEC_BASIC, st1, 1);
    free(st1);
    ctrl_plan_free(&p);
    obs_init(&o, br2);
    o.now = NOW + 100; /* later: the stored barrier must be reused */
    assert_int_equal(decide(&o, &p), 0);
    assert_null(p.status);
    assert_int_equal(p.n_events, 0);
    assert_int_equal(p.n_actions, 1);
    char *txt = cJSON_PrintUnformatted(p.actions[0].object);
    assert_non_null(strstr(txt, "\"BENCH_DEADLINE_AT\",\"value\":\"1800000935\""));
    free(txt);
    ctrl_plan_free(&p);
    /* the same once the barrier is published: the Running condition (the Running Event's name)
     * keeps its words, so the Event the status records is not sent a second time */
    cJSON *st2 = cJSON_Duplicate(cJSON_GetObjectItem(br2, "status"), 1);
    cJSON_AddStringToObject(st2, "startAt", "2027-01-15T08:00:07.000Z");
    char *st2s = cJSON_PrintUnformatted(st2);
    cJSON *br3 = br_new(SPEC_BASIC, st2s, 1);
    obs_init(&o, br3);
    assert_int_equal(decide(&o, &p), 0);
    assert_null(p.status);
    assert_int_equal(p.n_actions, 1);
    ctrl_plan_free(&p);
    cJSON_Delete(br3);
    free(st2s);
    cJSON_Delete(st2);
    cJSON_Delete(br);
    cJSON_Delete(br2);
}

static cJSON *job_with(const char *name, const char *cond_type, const char *reason, int completions,
                       const char *snapshot)
{
    char buf[4096];
    (void)snprintf(buf, sizeof(buf),
                   "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns\",\"labels\":{"
                   "\"pgbench.dev/benchmarkrun\":\"b1\"}%s%s%s},\"spec\":{\"completions\":%d},"
                   "\"status\":{\"conditions\":[%s%s%s%s%s]}}",
                   name, snapshot ? ",\"annotations\":{\"pgbench.dev/spec\":" : "",
                   snapshot ? snapshot : "", snapshot ? "}" : "", completions,
                   cond_type ? "{\"type\":\"" : "", cond_type ? cond_type : "",
                   cond_type ? "\",\"status\":\"True\",\"reason\":\"" : "", cond_type ? reason : "",
                   cond_type ? "\"}" : "");
    cJSON *j = cJSON_Parse(buf);
    if (!j)
        (void)fprintf(stderr, "bad: %s\n", buf);
    assert_non_null(j);
    return j;
}

static char *status_running(void)
{
    return strdup(
        "{\"phase\":\"Running\",\"startAt\":\"2027-01-15T08:00:05.000Z\",\"observedGeneration\":1,"
        "\"startedGeneration\":1,\"conditions\":[{\"type\":\"Running\","
        "\"status\":\"True\",\"reason\":\"Started\",\"message\":\"m\","
        "\"observedGeneration\":1,\"lastTransitionTime\":\"2027-01-15T08:00:00Z\"}]}");
}

/* The same run as an operator before status.startedGeneration wrote it: the generation it started
 * with is condition SpecLocked's (False, Started), set at the start. */
static char *status_running_old(void)
{
    return strdup(
        "{\"phase\":\"Running\",\"startAt\":\"2027-01-15T08:00:05.000Z\",\"observedGeneration\":1,"
        "\"conditions\":[{\"type\":\"SpecLocked\",\"status\":\"False\",\"reason\":"
        "\"Started\",\"message\":\"m\",\"observedGeneration\":1,"
        "\"lastTransitionTime\":\"2027-01-15T08:00:00Z\"},{\"type\":\"Running\","
        "\"status\":\"True\",\"reason\":\"Started\",\"message\":\"m\","
        "\"observedGeneration\":1,\"lastTransitionTime\":\"2027-01-15T08:00:00Z\"}]}");
}

static void test_running_states(void **state)
{
    (void)state;
    char *st = status_running();
    cJSON *br = br_new(SPEC_BASIC, st, 1);
    cJSON *job = job_with("b1-run", NULL, NULL, 2, NULL);
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    o.run_job = job;
    assert_int_equal(decide(&o, &p), 0);
    assert_null(p.status); /* nothing changed */
    assert_int_equal(p.n_actions, 0);
    assert_true(p.requeue_ms > 0);
    ctrl_plan_free(&p);
    cJSON_Delete(job);

    /* the Job finished -> Collecting */
    job = job_with("b1-run", "Complete", "CompletionsReached", 2, NULL);
    o.run_job = job;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Collecting");
    assert_int_equal(p.n_events, 1);
    assert_string_equal(p.events[0].reason, "Collecting");
    ctrl_plan_free(&p);
    cJSON_Delete(job);
    cJSON_Delete(br);
    free(st);
}

static cJSON *pod_with(const char *name, int index, int exit_code, const char *msg)
{
    cJSON *p = cJSON_CreateObject();
    cJSON *md = cJSON_AddObjectToObject(p, "metadata");
    cJSON_AddStringToObject(md, "name", name);
    cJSON_AddStringToObject(md, "namespace", "ns");
    cJSON *l = cJSON_AddObjectToObject(md, "labels");
    cJSON_AddStringToObject(l, "pgbench.dev/benchmarkrun", "b1");
    cJSON_AddStringToObject(l, "pgbench.dev/role", index >= 0 ? "run" : "init");
    cJSON *a = cJSON_AddObjectToObject(md, "annotations");
    char idx[16];
    (void)snprintf(idx, sizeof(idx), "%d", index < 0 ? 0 : index);
    cJSON_AddStringToObject(a, "batch.kubernetes.io/job-completion-index", idx);
    cJSON *s = cJSON_AddObjectToObject(p, "status");
    cJSON_AddStringToObject(s, "phase", exit_code == 0 ? "Succeeded" : "Failed");
    cJSON *cs = cJSON_AddArrayToObject(s, "containerStatuses");
    cJSON *c = cJSON_CreateObject();
    cJSON_AddItemToArray(cs, c);
    cJSON_AddStringToObject(c, "name", "runner");
    cJSON *t = cJSON_AddObjectToObject(cJSON_AddObjectToObject(c, "state"), "terminated");
    cJSON_AddNumberToObject(t, "exitCode", exit_code);
    cJSON_AddStringToObject(t, "reason", exit_code == 0 ? "Completed" : "Error");
    if (msg)
        cJSON_AddStringToObject(t, "message", msg);
    return p;
}

static cJSON *result(int worker, double tps, long tx, bool complete, int exit_code,
                     const char *error)
{
    char buf[2048];
    (void)snprintf(buf, sizeof(buf),
                   "{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":%s,\"worker\":%d,"
                   "\"exitCode\":%d,\"errors\":[%s%s%s],\"summary\":{\"transactionsProcessed\":%ld,"
                   "\"failedTransactions\":0,\"abortedClients\":%d,\"tps\":%g,\"latencyAvgMs\":2.0,"
                   "\"latencyStddevMs\":0.5},\"timeline\":[{\"t\":1,\"tps\":%g,\"latencyMs\":2.0,"
                   "\"stddevMs\":0.5,\"failed\":0}],\"statements\":[]}",
                   complete ? "true" : "false", worker, exit_code, error ? "\"" : "",
                   error ? error : "", error ? "\"" : "", tx, complete ? 0 : 1, tps, tps);
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    return j;
}

static const char *status_collecting_str(void)
{
    return "{\"phase\":\"Collecting\",\"startAt\":\"2027-01-15T08:00:05.000Z\","
           "\"observedGeneration\":1,\"startedGeneration\":1,"
           "\"conditions\":[{\"type\":\"Running\","
           "\"status\":\"True\",\"reason\":\"Started\",\"message\":\"m\","
           "\"observedGeneration\":1,\"lastTransitionTime\":\"2027-01-15T08:00:00Z\"}]}";
}

static char *status_collecting(void)
{
    return strdup(status_collecting_str());
}

/* The plan ending a run carries the result ConfigMap b1-result, owned by the run, and status
 * names it; its result.json holds the aggregate (summary.tps) and every worker's result in order.
 */
/* Worker i's row in the plan's result ConfigMap (result.json's workers[]: the aggregate's numbers
 * and what the controller saw of the pod); the caller frees it. */
static cJSON *cm_worker(const struct ctrl_plan *p, int i)
{
    assert_non_null(p->result_cm);
    cJSON *doc = cJSON_Parse(util_jkey(util_jget(p->result_cm, "data"), "result.json"));
    assert_non_null(doc);
    cJSON *row = cJSON_DetachItemFromArray(cJSON_GetObjectItemCaseSensitive(doc, "workers"), i);
    cJSON_Delete(doc);
    assert_non_null(row);
    return row;
}

/* Worker i's line in status.workers. */
static const char *status_worker(const struct ctrl_plan *p, int i)
{
    const cJSON *l = cJSON_GetArrayItem(util_jget(p->status, "workers"), i);
    assert_true(cJSON_IsString(l));
    return l->valuestring;
}

static void check_result_cm(const struct ctrl_plan *p, int workers, double tps)
{
    const cJSON *cm = p->result_cm;
    assert_non_null(cm);
    assert_string_equal(util_jstr(cm, "kind"), "ConfigMap");
    assert_string_equal(util_jstr(cm, "metadata.name"), "b1-result");
    assert_string_equal(util_jstr(cm, "metadata.namespace"), "ns");
    assert_string_equal(util_jkey(util_jget(cm, "metadata.labels"), "pgbench.dev/benchmarkrun"),
                        "b1");
    const cJSON *ref = cJSON_GetArrayItem(util_jget(cm, "metadata.ownerReferences"), 0);
    assert_string_equal(util_jstr(ref, "uid"), "u1");
    assert_string_equal(util_jstr(ref, "kind"), "BenchmarkRun");
    assert_true(cJSON_IsTrue(util_jget(ref, "controller")));
    assert_true(cJSON_IsTrue(util_jget(ref, "blockOwnerDeletion")));
    assert_string_equal(util_jstr(p->status, "resultRef.name"), "b1-result");
    assert_string_equal(util_jstr(p->status, "resultRef.key"), "result.json");
    cJSON *doc = cJSON_Parse(util_jkey(util_jget(cm, "data"), "result.json"));
    assert_non_null(doc);
    assert_float_equal(util_jnum(doc, "summary.tps", 0), tps, 1e-9);
    const cJSON *wr = util_jget(doc, "workerResults");
    assert_int_equal(cJSON_GetArraySize(wr), workers);
    for (int i = 0; i < workers; i++)
        assert_float_equal(util_jnum(cJSON_GetArrayItem(wr, i), "worker", -1), i, 0);
    assert_null(util_jget(doc, "downsampled"));
    cJSON_Delete(doc);
}

static void test_collecting_success(void **state)
{
    (void)state;
    char *st = status_collecting();
    const char *spec = "{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workers\":2,"
                       "\"cleanupPolicy\":\"Delete\",\"workload\":{\"pgbench\":{\"run\":{"
                       "\"clients\":4,\"durationSeconds\":30}}}}";
    cJSON *br = br_new(spec, st, 1);
    cJSON *job = job_with("b1-run", "Complete", "CompletionsReached", 2, NULL);
    cJSON *p0 = pod_with("b1-run-0-abc", 0, 0, "{\"schemaVersion\":1}");
    cJSON *p1 = pod_with("b1-run-1-def", 1, 0, NULL);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(p1, "spec"), "nodeName", "n2");
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    o.run_job = job;
    o.pods[0] = p0;
    o.pods[1] = p1;
    o.n_pods = 2;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, CTRL_NEED_RESULTS);
    assert_null(p.status);
    assert_null(p.result_cm);
    assert_int_equal(p.n_logs, 2);
    assert_string_equal(p.logs[0].pod, "b1-run-0-abc");
    assert_int_equal(p.logs[1].index, 1);
    ctrl_plan_free(&p);

    o.results_fetched = true;
    o.results[0] = result(0, 100.5, 3015, true, 0, NULL);
    o.results[1] = result(1, 99.5, 2985, true, 0, NULL);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Succeeded");
    assert_float_equal(util_jnum(p.status, "summary.tps", 0), 200.0, 1e-9);
    assert_float_equal(util_jnum(p.status, "summary.transactions", 0), 6000, 1e-9);
    assert_null(util_jget(p.status, "summary.aborted")); /* in status only when not 0 */
    assert_int_equal(cJSON_GetArraySize(util_jget(p.status, "workers")), 2);
    assert_non_null(strstr(status_worker(&p, 0), "0 b1-run-0-abc: ok, 100.5 tps")); /* no node */
    assert_non_null(strstr(status_worker(&p, 1), "1 b1-run-1-def on node n2: ok, 99.5 tps"));
    cJSON *r0 = cm_worker(&p, 0), *r1 = cm_worker(&p, 1);
    assert_string_equal(util_jstr(r1, "pod"), "b1-run-1-def");
    assert_string_equal(util_jstr(r1, "node"), "n2");
    assert_null(util_jget(r0, "node"));
    assert_float_equal(util_jnum(r1, "tps", 0), 99.5, 1e-9);
    assert_true(cJSON_IsTrue(util_jget(r0, "complete")));
    cJSON_Delete(r0);
    cJSON_Delete(r1);
    assert_string_equal(util_jstr(p.status, "timeline.tps"), "200"); /* the workers' 1-point sum */
    assert_string_equal(util_jstr(cond(&p, "Complete"), "status"), "True");
    assert_string_equal(util_jstr(cond(&p, "Running"), "status"), "False");
    assert_non_null(util_jstr(p.status, "completionTime"));
    assert_non_null(strstr(util_jstr(p.status, "message"), "200.0 tps"));
    /* cleanupPolicy Delete: the run Job goes after the status is written */
    assert_int_equal(p.n_actions, 1);
    assert_int_equal(p.actions[0].kind, CTRL_ACT_DELETE);
    assert_string_equal(p.actions[0].name, "b1-run");
    assert_int_equal(p.n_events, 1);
    assert_string_equal(p.events[0].reason, "Succeeded");
    check_result_cm(&p, 2, 200.0);
    ctrl_plan_free(&p);
    for (int i = 0; i < 2; i++)
        cJSON_Delete(o.results[i]);
    cJSON_Delete(p0);
    cJSON_Delete(p1);
    cJSON_Delete(job);
    cJSON_Delete(br);
    free(st);
}

/* Issue 31.3: every worker's pod Succeeded while the Job controller has not yet marked the Job
 * Complete: the results are read and the run ends at once. A failed worker pod waits for the
 * Job's verdict. A worker whose pod Succeeded while another runs has its result read at once
 * (CTRL_NEED_EARLY_RESULTS, kept by the executor), once per reconcile. */
static void test_running_pods_succeeded(void **state)
{
    (void)state;
    char *st = status_running();
    cJSON *br = br_new(SPEC_BASIC, st, 1);
    cJSON *job = job_with("b1-run", NULL, NULL, 2, NULL);
    cJSON *p0 = pod_with("b1-run-0-abc", 0, 0, NULL);
    cJSON *p1 = pod_with("b1-run-1-def", 1, 2, NULL);
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    o.run_job = job;
    o.pods[0] = p0;
    o.pods[1] = p1;
    o.n_pods = 2;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, CTRL_NEED_EARLY_RESULTS);
    assert_int_equal(p.n_logs, 1); /* the Succeeded one; the failed one waits for the Job */
    assert_int_equal(p.logs[0].index, 0);
    assert_string_equal(p.logs[0].pod, "b1-run-0-abc");
    assert_null(p.status);
    assert_false(p.create_first);
    ctrl_plan_free(&p);
    o.early_fetched = true;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs & CTRL_NEED_EARLY_RESULTS, 0);
    assert_true(!p.status || strcmp(phase(&p), "Running") == 0);
    ctrl_plan_free(&p);
    o.early_fetched = false;
    o.n_pods = 1; /* worker 1's pod not seen yet */
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, CTRL_NEED_EARLY_RESULTS);
    ctrl_plan_free(&p);
    cJSON_Delete(p1);
    p1 = pod_with("b1-run-1-def", 1, 0, NULL);
    o.pods[1] = p1;
    o.n_pods = 2;
    /* the results are read at once, then the run ends in the same reconcile: Running ->
     * Succeeded, with the Collecting Event a Succeeded status implies */
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, CTRL_NEED_RESULTS);
    assert_int_equal(p.n_logs, 2);
    assert_null(p.status);
    ctrl_plan_free(&p);
    o.results_fetched = true;
    o.results[0] = result(0, 100.5, 3015, true, 0, NULL);
    o.results[1] = result(1, 99.5, 2985, true, 0, NULL);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Succeeded");
    assert_non_null(p.result_cm);
    assert_int_equal(p.n_events, 2);
    assert_string_equal(p.events[0].reason, "Collecting");
    assert_string_equal(p.events[0].message, CTRL_COLLECTING_MESSAGE);
    assert_string_equal(p.events[1].reason, "Succeeded");
    ctrl_plan_free(&p);
    for (int i = 0; i < 2; i++)
        cJSON_Delete(o.results[i]);
    cJSON_Delete(p0);
    cJSON_Delete(p1);
    cJSON_Delete(job);
    cJSON_Delete(br);
    free(st);
}

/* Sets a container's startedAt/finishedAt and the PodScheduled condition on a terminated pod. */
static void pod_times(cJSON *pod, const char *scheduled, const char *started, const char *finished)
{
    cJSON *t = (cJSON *)util_jget(cJSON_GetArrayItem(util_jget(pod, "status.containerStatuses"), 0),
                                  "state.terminated");
    cJSON_AddStringToObject(t, "startedAt", started);
    cJSON_AddStringToObject(t, "finishedAt", finished);
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", "PodScheduled");
    cJSON_AddStringToObject(c, "status", "True");
    cJSON_AddStringToObject(c, "lastTransitionTime", scheduled);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(cJSON_GetObjectItem(pod, "status"), "conditions"),
                         c);
}

/* The step of the result ConfigMap's timing named name: its seconds after the apply and its
 * source's first word; -1 when absent. */
static double timing_step(const cJSON *doc, const char *name, char *src, size_t len)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, util_jget(doc, "timing.steps"))
    {
        if (strcmp(util_jstr(s, "step"), name) == 0) {
            (void)snprintf(src, len, "%s", util_jstr(s, "source"));
            return util_jnum(s, "seconds", -1);
        }
    }
    return -1;
}

/* Issue 31.3: the result ConfigMap says where the run's time went, each step from its record:
 * object timestamps, pod conditions and container states, status.readyAt/startAt, the runners'
 * windows; and the slowest worker's notice delay (readyAt to its read of the barrier) goes to the
 * margin's learning. */
static void test_collecting_timing(void **state)
{
    (void)state;
    cJSON *stj = cJSON_Parse(status_collecting_str());
    cJSON_AddStringToObject(stj, "readyAt", "2027-01-15T08:00:03.670Z");
    char *st = cJSON_PrintUnformatted(stj);
    cJSON_Delete(stj);
    cJSON *br = br_new(SPEC_BASIC, st, 1);
    cJSON_AddStringToObject(cJSON_GetObjectItem(br, "metadata"), "creationTimestamp",
                            "2027-01-15T07:59:59Z");
    cJSON *job = job_with("b1-run", NULL, NULL, 2, NULL);
    cJSON_AddStringToObject(cJSON_GetObjectItem(job, "metadata"), "creationTimestamp",
                            "2027-01-15T08:00:00Z");
    cJSON *pods[2] = {pod_with("b1-run-0-abc", 0, 0, NULL), pod_with("b1-run-1-def", 1, 0, NULL)};
    pod_times(pods[0], "2027-01-15T08:00:01Z", "2027-01-15T08:00:02Z", "2027-01-15T08:00:15Z");
    pod_times(pods[1], "2027-01-15T08:00:00Z", "2027-01-15T08:00:03Z", "2027-01-15T08:00:15Z");
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    o.now = NOW + 15.4;
    o.run_job = job;
    o.pods[0] = pods[0];
    o.pods[1] = pods[1];
    o.n_pods = 2;
    o.results_fetched = true;
    /* the barrier 08:00:05.000; worker 0 read it at 04.100 and started at 05.003, worker 1 read it
     * 04.900 and started 05.004; both ended about 15.0 */
    const double seen[2] = {-0.9, -0.1}, late[2] = {0.003, 0.004}, end[2] = {10.01, 10.02};
    for (int i = 0; i < 2; i++) {
        o.results[i] = result(i, 100, 1000, true, 0, NULL);
        cJSON *w = cJSON_AddObjectToObject(o.results[i], "window");
        cJSON_AddStringToObject(w, "barrier", "2027-01-15T08:00:05.000Z");
        cJSON_AddNumberToObject(w, "lateSeconds", late[i]);
        cJSON_AddNumberToObject(w, "endSeconds", end[i]);
        cJSON_AddNumberToObject(w, "seenSeconds", seen[i]);
        cJSON_AddStringToObject(o.results[i], "startTime", "2027-01-15T08:00:02.500Z");
    }
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Succeeded");
    /* 05.000 - 0.1 - 03.670: the slower worker's notice */
    assert_float_equal(p.start_notice_s, 1.23, 1e-6);
    cJSON *doc = cJSON_Parse(util_jkey(util_jget(p.result_cm, "data"), "result.json"));
    assert_non_null(doc);
    char src[200];
    const char *names[] = {"applied",      "jobCreated", "podsScheduled", "containersStarted",
                           "allReady",     "barrier",    "barrierSeen",   "pgbenchStarted",
                           "pgbenchEnded", "collected"};
    const double want[] = {0, 1, 2, 4, 4.67, 6, 5.9, 6.004, 16.02, 16.4};
    const char *from[] = {"BenchmarkRun",
                          "run Job",
                          "latest worker pod's PodScheduled",
                          "latest worker container's",
                          "status.readyAt",
                          "status.startAt",
                          "latest worker's read",
                          "latest worker's pgbench start",
                          "latest worker's pgbench end",
                          "every worker's result"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        assert_float_equal(timing_step(doc, names[i], src, sizeof(src)), want[i], 1e-6);
        assert_non_null(strstr(src, from[i]));
    }
    /* in that order, and no init steps without an init */
    assert_int_equal(cJSON_GetArraySize(util_jget(doc, "timing.steps")), 10);
    assert_string_equal(util_jstr(cJSON_GetArrayItem(util_jget(doc, "timing.steps"), 4), "step"),
                        "allReady");
    assert_float_equal(timing_step(doc, "initSucceeded", src, sizeof(src)), -1, 0);
    assert_null(util_jget(p.status, "timing")); /* the ConfigMap's only */
    /* readyAt goes with the run's end (null: the merge patch removes it), kept in the timing */
    assert_true(cJSON_IsNull(util_jget(p.status, "readyAt")));
    cJSON_Delete(doc);
    ctrl_plan_free(&p);
    /* worker 1's runner started after readyAt (a replaced pod): its file held the barrier from
     * the start, which says nothing of the kubelet's refresh; worker 0's read counts */
    cJSON_ReplaceItemInObject(o.results[1], "startTime",
                              cJSON_CreateString("2027-01-15T08:00:04.000Z"));
    assert_int_equal(decide(&o, &p), 0);
    assert_float_equal(p.start_notice_s, 0.43, 1e-6);
    ctrl_plan_free(&p);
    for (int i = 0; i < 2; i++) {
        cJSON_Delete(o.results[i]);
        cJSON_Delete(pods[i]);
    }
    cJSON_Delete(job);
    cJSON_Delete(br);
    free(st);
}

static void test_collecting_worker_failed(void **state)
{
    (void)state;
    char *st = status_collecting();
    cJSON *br = br_new(SPEC_BASIC, st, 1);
    cJSON *job = job_with("b1-run", "Failed", "BackoffLimitExceeded", 2, NULL);
    cJSON *p0 = pod_with("b1-run-0-abc", 0, 0, NULL);
    cJSON *p1 = pod_with("b1-run-1-def", 1, 3, NULL);
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    o.run_job = job;
    o.pods[0] = p0;
    o.pods[1] = p1;
    o.n_pods = 2;
    o.results_fetched = true;
    o.results[0] = result(0, 100, 3000, true, 0, NULL);
    o.results[1] = result(1, 0, 0, false, 3, "connection to server at pg failed: refused");
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Failed");
    const char *msg = util_jstr(cond(&p, "Failed"), "message");
    assert_non_null(strstr(msg, "worker 1 (pod b1-run-1-def) failed"));
    assert_non_null(strstr(msg, "exit code 3"));
    assert_non_null(strstr(msg, "refused"));
    assert_string_equal(util_jstr(cond(&p, "Failed"), "reason"), "WorkerFailed");
    /* partial results are kept */
    cJSON *r0 = cm_worker(&p, 0), *r1 = cm_worker(&p, 1);
    assert_float_equal(util_jnum(r0, "tps", 0), 100, 1e-9);
    assert_true(cJSON_IsFalse(util_jget(r1, "complete")));
    assert_int_equal(util_jnum(r1, "exitCode", -1), 3);
    cJSON_Delete(r0);
    cJSON_Delete(r1);
    assert_non_null(strstr(status_worker(&p, 0), "0 b1-run-0-abc: ok, 100.0 tps"));
    assert_non_null(strstr(status_worker(&p, 1), "1 b1-run-1-def: exit code 3: "));
    assert_true(p.events[0].warning);
    ctrl_plan_free(&p);
    for (int i = 0; i < 2; i++)
        cJSON_Delete(o.results[i]);

    /* a worker whose result could not be read at all */
    o.results[0] = result(0, 100, 3000, true, 0, NULL);
    o.results[1] = NULL;
    char why[] = "no result line in the pod log";
    o.result_errors[1] = why;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Failed");
    assert_non_null(strstr(util_jstr(p.status, "message"), "b1-run-1-def"));
    ctrl_plan_free(&p);
    cJSON_Delete(o.results[0]);
    cJSON_Delete(p0);
    cJSON_Delete(p1);
    cJSON_Delete(job);
    cJSON_Delete(br);
    free(st);
}

static void test_invalid_spec_and_fix(void **state)
{
    (void)state;
    const char *bad = "{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workload\":{\"pgbench\":{"
                      "\"run\":{\"durationSeconds\":5,\"transactions\":5}}}}";
    cJSON *br = br_new(bad, NULL, 1);
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Failed");
    assert_string_equal(util_jstr(cond(&p, "Failed"), "reason"), "InvalidSpec");
    assert_string_equal(
        util_jstr(cond(&p, "Failed"), "message"),
        "spec.workload.pgbench.run: set exactly one of durationSeconds or transactions");
    assert_int_equal(p.n_actions, 0);
    assert_true(p.events[0].warning);
    char *st = cJSON_PrintUnformatted(p.status);
    ctrl_plan_free(&p);
    cJSON_Delete(br);

    /* unchanged: stays Failed, nothing written */
    br = br_new(bad, st, 1);
    obs_init(&o, br);
    assert_int_equal(decide(&o, &p), 0);
    assert_null(p.status);
    ctrl_plan_free(&p);
    cJSON_Delete(br);

    /* the user fixes the spec (generation 2): evaluated again, the run starts */
    br = br_new(SPEC_BASIC, st, 2);
    obs_init(&o, br);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Running");
    assert_string_equal(util_jstr(cond(&p, "Failed"), "status"), "False");
    assert_int_equal(util_jnum(p.status, "startedGeneration", 0), 2);
    assert_null(cond(&p, "SpecLocked"));
    ctrl_plan_free(&p);
    cJSON_Delete(br);
    free(st);

    /* a name too long for child names */
    char spec[2048];
    (void)snprintf(spec, sizeof(spec), "%s", SPEC_BASIC);
    br = br_new(spec, NULL, 1);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(br, "metadata"), "name",
                              cJSON_CreateString("a-very-long-benchmark-run-name-that-goes-"
                                                 "beyond-the-label-limit"));
    obs_init(&o, br);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Failed");
    assert_non_null(strstr(util_jstr(p.status, "message"), "metadata.name: at most 57"));
    ctrl_plan_free(&p);
    cJSON_Delete(br);
}

static void test_hpa(void **state)
{
    (void)state;
    cJSON *br = br_new(SPEC_HPA, NULL, 1);
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, CTRL_NEED_SCALE_TARGET);
    assert_string_equal(p.scale_kind, "StatefulSet");
    assert_string_equal(p.scale_name, "reps");
    assert_null(p.status);
    assert_int_equal(p.n_actions, 0);
    ctrl_plan_free(&p);

    o.scale_target = CTRL_FETCH_NOT_FOUND;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Failed");
    assert_string_equal(util_jstr(cond(&p, "Failed"), "reason"), "ScaleTargetNotFound");
    assert_non_null(strstr(util_jstr(cond(&p, "Failed"), "message"),
                           "spec.hpa.scaleTargetRef: StatefulSet \"reps\" not found"));
    ctrl_plan_free(&p);

    o.scale_target = CTRL_FETCH_ERROR;
    assert_int_equal(decide(&o, &p), 0);
    assert_true(p.retry);
    assert_null(p.status);
    ctrl_plan_free(&p);

    o.scale_target = CTRL_FETCH_OK;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Running");
    assert_int_equal(p.n_actions, 2); /* the HPA before the load */
    assert_ptr_equal(p.actions[0].resource, &KUBE_HPAS);
    assert_string_equal(p.actions[0].name, "b1-hpa");
    assert_ptr_equal(p.actions[1].resource, &KUBE_JOBS);
    char *st = cJSON_PrintUnformatted(p.status);
    ctrl_plan_free(&p);
    cJSON_Delete(br);

    /* Running: sample replicas into hpaTimeline, only on change */
    br = br_new(SPEC_HPA, st, 1);
    cJSON *job = job_with("b1-run", NULL, NULL, 1, NULL);
    obs_init(&o, br);
    o.run_job = job;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, CTRL_NEED_SCALE);
    ctrl_plan_free(&p);
    o.scale = CTRL_FETCH_OK;
    o.scale_replicas = 1;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(cJSON_GetArraySize(util_jget(p.status, "hpaTimeline")), 1);
    assert_int_equal(p.requeue_ms, CTRL_HPA_POLL_MS);
    free(st);
    st = cJSON_PrintUnformatted(p.status);
    ctrl_plan_free(&p);
    cJSON_Delete(br);
    br = br_new(SPEC_HPA, st, 1);
    o.br = br;
    assert_int_equal(decide(&o, &p), 0);
    assert_null(p.status); /* same replicas: nothing new */
    ctrl_plan_free(&p);
    o.scale_replicas = 3;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(cJSON_GetArraySize(util_jget(p.status, "hpaTimeline")), 2);
    assert_int_equal(
        util_jnum(cJSON_GetArrayItem(util_jget(p.status, "hpaTimeline"), 1), "replicas", 0), 3);
    ctrl_plan_free(&p);
    cJSON_Delete(job);

    /* Collecting -> Succeeded deletes the HPA (keep is false) */
    cJSON *st2 = cJSON_Parse(st);
    cJSON_ReplaceItemInObject(st2, "phase", cJSON_CreateString("Collecting"));
    char *s2 = cJSON_PrintUnformatted(st2);
    cJSON_Delete(st2);
    cJSON_Delete(br);
    br = br_new(SPEC_HPA, s2, 1);
    job = job_with("b1-run", "Complete", "CompletionsReached", 1, NULL);
    cJSON *p0 = pod_with("b1-run-0-x", 0, 0, NULL);
    obs_init(&o, br);
    o.run_job = job;
    o.pods[0] = p0;
    o.n_pods = 1;
    o.results_fetched = true;
    o.results[0] = result(0, 10, 300, true, 0, NULL);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Succeeded");
    assert_int_equal(p.n_actions, 1);
    assert_int_equal(p.actions[0].kind, CTRL_ACT_DELETE);
    assert_string_equal(p.actions[0].name, "b1-hpa");
    assert_int_equal(cJSON_GetArraySize(util_jget(p.status, "hpaTimeline")), 1);
    ctrl_plan_free(&p);
    cJSON_Delete(o.results[0]);
    cJSON_Delete(p0);
    cJSON_Delete(job);
    cJSON_Delete(br);
    free(s2);
    free(st);
}

static void test_init_flow(void **state)
{
    (void)state;
    cJSON *br = br_new(SPEC_INIT, NULL, 1);
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Initializing");
    assert_int_equal(p.n_actions, 1);
    assert_string_equal(p.actions[0].name, "b1-init");
    assert_null(util_jget(p.status, "startAt")); /* the barrier is set when the load starts */
    char *st = cJSON_PrintUnformatted(p.status);
    ctrl_plan_free(&p);
    cJSON_Delete(br);

    br = br_new(SPEC_INIT, st, 1);
    cJSON *ij = job_with("b1-init", NULL, NULL, 1, NULL);
    obs_init(&o, br);
    o.init_job = ij;
    assert_int_equal(decide(&o, &p), 0);
    assert_null(p.status);
    assert_int_equal(p.n_actions, 0);
    ctrl_plan_free(&p);
    cJSON_Delete(ij);

    /* issue 31.3: the init pod Succeeded, the Job controller has not said Complete yet: the run
     * Job comes at once; an init pod that failed waits for the Job's verdict (its retries) */
    ij = job_with("b1-init", NULL, NULL, 1, NULL);
    cJSON *ipod = pod_with("b1-init-ok", -1, 1, NULL);
    o.init_job = ij;
    o.pods[0] = ipod;
    o.n_pods = 1;
    assert_int_equal(decide(&o, &p), 0);
    assert_null(p.status);
    assert_int_equal(p.n_actions, 0);
    ctrl_plan_free(&p);
    cJSON_Delete(ipod);
    ipod = pod_with("b1-init-ok", -1, 0, NULL);
    o.pods[0] = ipod;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Running");
    assert_string_equal(util_jstr(cond(&p, "Initialized"), "status"), "True");
    assert_int_equal(p.n_actions, 1);
    assert_string_equal(p.actions[0].name, "b1-run");
    ctrl_plan_free(&p);
    o.n_pods = 0;
    cJSON_Delete(ipod);
    cJSON_Delete(ij);

    ij = job_with("b1-init", "Complete", "CompletionsReached", 1, NULL);
    o.init_job = ij;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Running");
    assert_string_equal(util_jstr(cond(&p, "Initialized"), "status"), "True");
    assert_null(util_jget(p.status, "startAt")); /* once the run's pods are ready */
    /* the init's live RESULT line goes with the init (the cache keeps no status.result) */
    assert_true(cJSON_IsNull(util_jget(p.status, "result")));
    assert_int_equal(p.n_actions, 1);
    assert_string_equal(p.actions[0].name, "b1-run");
    ctrl_plan_free(&p);
    cJSON_Delete(ij);

    ij = job_with("b1-init", "Failed", "BackoffLimitExceeded", 1, NULL);
    cJSON *pod = pod_with("b1-init-xyz", -1, 3,
                          "{\"schemaVersion\":1,\"kind\":\"pgbench-init\",\"complete\":false,"
                          "\"errors\":[\"password authentication failed for user \\\"u\\\"\"]}");
    o.init_job = ij;
    o.pods[0] = pod;
    o.n_pods = 1;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Failed");
    const char *msg = util_jstr(cond(&p, "Failed"), "message");
    assert_non_null(strstr(msg, "pod b1-init-xyz exit code 3"));
    assert_non_null(strstr(msg, "password authentication failed"));
    ctrl_plan_free(&p);
    cJSON_Delete(pod);
    cJSON_Delete(ij);
    cJSON_Delete(br);
    free(st);
}

/* A spec change after the start of a run whose status is st: ignored, said once. */
static void spec_locked_from(char *st)
{
    /* the user changed workers to 5 (generation 2) after the start */
    const char *changed = "{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workers\":5,"
                          "\"workload\":{\"pgbench\":{\"run\":{\"clients\":5,"
                          "\"durationSeconds\":30}}}}";
    cJSON *br = br_new(changed, st, 2);
    cJSON *ij = NULL;
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    /* the run Job is gone from the cache (restart): re-created from the snapshot of gen 1 */
    (void)ij;
    cJSON *snapjob = job_with("b1-init", "Complete", "CompletionsReached", 1,
                              "\"{\\\"target\\\":{\\\"host\\\":\\\"pg\\\",\\\"user\\\":\\\"u\\\"},"
                              "\\\"workers\\\":2,\\\"workload\\\":{\\\"pgbench\\\":{\\\"run\\\":{"
                              "\\\"clients\\\":4,\\\"durationSeconds\\\":30}}}}\"");
    o.init_job = snapjob;
    assert_int_equal(decide(&o, &p), 0);
    const cJSON *c = cond(&p, "SpecLocked");
    assert_string_equal(util_jstr(c, "status"), "True");
    assert_string_equal(util_jstr(c, "reason"), "SpecChangedAfterStart");
    assert_non_null(strstr(util_jstr(c, "message"), "the change is ignored"));
    assert_int_equal(util_jnum(c, "observedGeneration", 0), 1); /* the generation it runs */
    assert_int_equal(util_jnum(p.status, "observedGeneration", 0), 2);
    assert_int_equal(p.n_events, 1);
    assert_string_equal(p.events[0].reason, "SpecLocked");
    assert_true(p.events[0].warning);
    assert_int_equal(p.n_actions, 1);
    assert_int_equal(util_jnum(p.actions[0].object, "spec.completions", 0), 2); /* not 5 */
    char *st2 = cJSON_PrintUnformatted(p.status);
    ctrl_plan_free(&p);
    cJSON_Delete(br);

    /* once reported, no new event */
    br = br_new(changed, st2, 2);
    o.br = br;
    assert_int_equal(decide(&o, &p), 0);
    assert_null(p.status);
    assert_int_equal(p.n_events, 0);
    ctrl_plan_free(&p);
    cJSON_Delete(br);
    cJSON_Delete(snapjob);
    free(st2);
    free(st);
}

static void test_spec_locked(void **state)
{
    (void)state;
    spec_locked_from(status_running());
}

/* Runs started by an operator before status.startedGeneration (SpecLocked False from the start)
 * go on as started: unchanged, a later spec change ignored, a run that failed after its start not
 * evaluated again. */
static void test_started_by_older_operator(void **state)
{
    (void)state;
    char *st = status_running_old();
    cJSON *br = br_new(SPEC_BASIC, st, 1);
    cJSON *job = job_with("b1-run", NULL, NULL, 2, NULL);
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    o.run_job = job;
    assert_int_equal(decide(&o, &p), 0);
    assert_null(p.status); /* nothing changed: running, as started */
    assert_int_equal(p.n_actions, 0);
    ctrl_plan_free(&p);
    cJSON_Delete(job);
    cJSON_Delete(br);
    free(st);

    spec_locked_from(status_running_old());

    const char *failed =
        "{\"phase\":\"Failed\",\"observedGeneration\":1,\"conditions\":[{\"type\":"
        "\"SpecLocked\",\"status\":\"False\",\"reason\":\"Started\",\"message\":\"m\","
        "\"observedGeneration\":1},{\"type\":\"Failed\",\"status\":\"True\",\"reason\":"
        "\"DeadlineExceeded\",\"message\":\"m\",\"observedGeneration\":1}]}";
    br = br_new(SPEC_BASIC, failed, 2);
    obs_init(&o, br);
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.n_actions, 0); /* no Job: not started again */
    if (p.status) {
        assert_string_equal(phase(&p), "Failed");
        assert_null(util_jget(p.status, "startedGeneration"));
    }
    ctrl_plan_free(&p);
    cJSON_Delete(br);
}

static void test_create_refused(void **state)
{
    (void)state;
    char *st = status_running();
    cJSON *br = br_new(SPEC_BASIC, st, 1);
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    o.error_reason = "CreateFailed";
    o.error_message = "creating Job b1-run: Job.batch \"b1-run\" is invalid: spec.x";
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Failed");
    assert_string_equal(util_jstr(cond(&p, "Failed"), "reason"), "CreateFailed");
    assert_int_equal(p.n_actions, 0);
    ctrl_plan_free(&p);
    cJSON_Delete(br);
    free(st);
}

static void test_deleting_does_nothing(void **state)
{
    (void)state;
    cJSON *br = br_new(SPEC_BASIC, NULL, 1);
    cJSON_AddStringToObject(cJSON_GetObjectItem(br, "metadata"), "deletionTimestamp",
                            "2027-01-01T00:00:00Z");
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    assert_int_equal(decide(&o, &p), 0);
    assert_null(p.status);
    assert_int_equal(p.n_actions, 0);
    ctrl_plan_free(&p);
    cJSON_Delete(br);
}

/* A worker pod of the given role that is not running, with a container waiting for `reason` or
 * (reason NULL) unscheduled with `msg`. */
static cJSON *stuck_pod(const char *name, const char *role, const char *reason, const char *msg)
{
    char buf[1024];
    if (reason)
        (void)snprintf(buf, sizeof(buf),
                       "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns\",\"labels\":{"
                       "\"pgbench.dev/benchmarkrun\":\"b1\",\"pgbench.dev/role\":\"%s\"}},"
                       "\"status\":{\"phase\":\"Pending\",\"containerStatuses\":[{\"state\":"
                       "{\"waiting\":{\"reason\":\"%s\",\"message\":\"%s\"}}}]}}",
                       name, role, reason, msg);
    else
        (void)snprintf(buf, sizeof(buf),
                       "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns\",\"labels\":{"
                       "\"pgbench.dev/benchmarkrun\":\"b1\",\"pgbench.dev/role\":\"%s\"}},"
                       "\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":"
                       "\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
                       "\"message\":\"%s\"}]}}",
                       name, role, msg);
    cJSON *p = cJSON_Parse(buf);
    assert_non_null(p);
    return p;
}

/* Decides with one pod (may be NULL) and returns the plan's status as text (caller frees). */
static char *decide_with(const char *spec, const char *st, cJSON *init_job, cJSON *run_job,
                         cJSON *pod, double now, struct ctrl_plan *p)
{
    cJSON *br = br_new(spec, st, 1);
    struct ctrl_observed o;
    obs_init(&o, br);
    o.now = now;
    o.init_job = init_job;
    o.run_job = run_job;
    if (pod) {
        o.pods[0] = pod;
        o.n_pods = 1;
    }
    assert_int_equal(decide(&o, p), 0);
    char *out = p->status ? cJSON_PrintUnformatted(p->status) : strdup(st ? st : "{}");
    cJSON_Delete(br);
    return out;
}

static void test_workers_blocked(void **state)
{
    (void)state;
    struct ctrl_plan p;
    char *st = decide_with(SPEC_INIT, NULL, NULL, NULL, NULL, NOW, &p);
    assert_string_equal(phase(&p), "Initializing");
    const char *usual = "initializing pgbench tables at scale 5";
    assert_string_equal(util_jstr(p.status, "message"), usual);
    ctrl_plan_free(&p);

    /* the password Secret is missing: nothing said within the grace (it may be on its way), but
     * the run is looked at again when the grace ends */
    cJSON *ij = job_with("b1-init", NULL, NULL, 1, NULL);
    cJSON *pod = stuck_pod("b1-init-x", "init", "CreateContainerConfigError",
                           "secret \\\"pg-app\\\" not found");
    char *st2 = decide_with(SPEC_INIT, st, ij, NULL, pod, NOW + 5, &p);
    assert_null(cond(&p, "WorkersBlocked"));
    assert_int_equal(p.n_events, 0);
    assert_true(p.requeue_ms > 24000 && p.requeue_ms <= 25500);
    ctrl_plan_free(&p);
    free(st2);
    /* after it: said once, with the kubelet's words; nothing fails */
    st2 = decide_with(SPEC_INIT, st, ij, NULL, pod, NOW + 35, &p);
    assert_string_equal(phase(&p), "Initializing");
    const char *want =
        "init pod b1-init-x cannot start: CreateContainerConfigError: secret \"pg-app\" not found";
    assert_string_equal(util_jstr(p.status, "message"), want);
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "status"), "True");
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "reason"),
                        "CreateContainerConfigError");
    assert_int_equal(p.n_events, 1);
    assert_true(p.events[0].warning);
    assert_string_equal(p.events[0].reason, "WorkersBlocked");
    assert_string_equal(p.events[0].message, want);
    ctrl_plan_free(&p);
    char *st3 = decide_with(SPEC_INIT, st2, ij, NULL, pod, NOW + 36, &p);
    assert_int_equal(p.n_events, 0); /* the same cause is not announced twice */
    assert_null(p.status);           /* nor written again */
    ctrl_plan_free(&p);
    free(st3);
    cJSON_Delete(pod);

    /* the Secret was created: the pod runs, the condition clears, the message is the usual one */
    pod = pod_with("b1-init-x", -1, 0, NULL);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(pod, "status"), "phase",
                              cJSON_CreateString("Running"));
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(pod, "status"), "containerStatuses");
    st3 = decide_with(SPEC_INIT, st2, ij, NULL, pod, NOW + 37, &p);
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "status"), "False");
    assert_string_equal(util_jstr(p.status, "message"), usual);
    ctrl_plan_free(&p);
    free(st3);
    free(st2);
    cJSON_Delete(pod);
    cJSON_Delete(ij);
    free(st);

    /* Running: no pod yet within the grace (looked at again when it ends), none after it */
    st = decide_with(SPEC_BASIC, NULL, NULL, NULL, NULL, NOW, &p);
    assert_string_equal(phase(&p), "Running");
    ctrl_plan_free(&p);
    cJSON *rj = job_with("b1-run", NULL, NULL, 1, NULL);
    st2 = decide_with(SPEC_BASIC, st, NULL, rj, NULL, NOW + 10, &p);
    assert_null(cond(&p, "WorkersBlocked"));
    assert_true(p.requeue_ms > 0 && p.requeue_ms <= 20500);
    ctrl_plan_free(&p);
    free(st2);
    st2 = decide_with(SPEC_BASIC, st, NULL, rj, NULL, NOW + 31, &p);
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "reason"), "NoPods");
    assert_non_null(strstr(util_jstr(p.status, "message"), "kubectl describe job b1-run"));
    ctrl_plan_free(&p);
    free(st2);
    pod = stuck_pod("b1-run-0-x", "run", NULL, "0/3 nodes are available: 3 Insufficient cpu.");
    st2 = decide_with(SPEC_BASIC, st, NULL, rj, pod, NOW + 31, &p);
    assert_string_equal(util_jstr(p.status, "message"),
                        "run pod b1-run-0-x cannot be scheduled: 0/3 nodes are available: 3 "
                        "Insufficient cpu.");
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(pod);
    /* an image absent from the node with imagePullPolicy Never: the kubelet never pulls it, the
     * worker waits until someone loads the image or changes the policy */
    pod = stuck_pod("b1-run-0-x", "run", "ErrImageNeverPull",
                    "Container image \\\"r:1\\\" is not present with pull policy of Never");
    st2 = decide_with(SPEC_BASIC, st, NULL, rj, pod, NOW + 31, &p);
    assert_non_null(cond(&p, "WorkersBlocked"));
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "reason"), "ErrImageNeverPull");
    assert_string_equal(util_jstr(p.status, "message"),
                        "run pod b1-run-0-x cannot start: ErrImageNeverPull: Container image "
                        "\"r:1\" is not present with pull policy of Never");
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(pod);
    /* a reason that heals by itself (ContainerCreating) is not reported */
    pod = stuck_pod("b1-run-0-x", "run", "ContainerCreating", "");
    st2 = decide_with(SPEC_BASIC, st, NULL, rj, pod, NOW + 31, &p);
    assert_null(cond(&p, "WorkersBlocked"));
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(pod);
    cJSON_Delete(rj);
    free(st);
}

/* A pod of the run that has not terminated (as a lagging pod cache still has it). */
static cJSON *running_pod(const char *name, int index)
{
    cJSON *p = pod_with(name, index, 0, NULL);
    cJSON *st = cJSON_GetObjectItem(p, "status");
    cJSON_ReplaceItemInObject(st, "phase", cJSON_CreateString("Running"));
    cJSON_DeleteItemFromObject(st, "containerStatuses");
    return p;
}

/* A running worker pod, Ready or not, with the start barrier annotation when start_at. */
static cJSON *worker_pod(const char *name, int index, bool ready, const char *start_at)
{
    cJSON *p = running_pod(name, index);
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "type", "Ready");
    cJSON_AddStringToObject(c, "status", ready ? "True" : "False");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(cJSON_GetObjectItem(p, "status"), "conditions"), c);
    if (start_at)
        cJSON_AddStringToObject(
            cJSON_GetObjectItem(cJSON_GetObjectItem(p, "metadata"), "annotations"),
            API_START_ANNOTATION, start_at);
    return p;
}

#define STATUS_RUNNING_NO_BARRIER                                                                  \
    "{\"phase\":\"Running\",\"observedGeneration\":1,\"startedGeneration\":1,\"conditions\":[{"    \
    "\"type\":\"Running\",\"status\":\"True\","                                                    \
    "\"reason\":\"Started\",\"message\":\"m\",\"observedGeneration\":1,\"lastTransitionTime\":"    \
    "\"2027-01-15T08:00:00Z\"}]}"

/* Decides Running for b1 (2 workers) with these pods at `now` and a start margin learned so far
 * (0: the default); returns the plan in p. */
static void decide_pods_margin(const char *status, cJSON **pods, int n, double now, long margin_ms,
                               struct ctrl_plan *p)
{
    cJSON *br = br_new(SPEC_BASIC, status, 1);
    cJSON *job = job_with("b1-run", NULL, NULL, 2, NULL);
    struct ctrl_observed o;
    obs_init(&o, br);
    o.now = now;
    o.run_job = job;
    o.start_margin_ms = margin_ms;
    for (int i = 0; i < n; i++)
        o.pods[i] = pods[i];
    o.n_pods = n;
    assert_int_equal(decide(&o, p), 0);
    cJSON_Delete(job);
    cJSON_Delete(br);
}

static void decide_pods(const char *status, cJSON **pods, int n, double now, struct ctrl_plan *p)
{
    decide_pods_margin(status, pods, n, now, 0, p);
}

/* Issue 31.3: the margin learned from earlier runs (obs.start_margin_ms) sets the barrier; a
 * barrier published with another margin stays. */
static void test_start_margin_learned(void **state)
{
    (void)state;
    struct ctrl_plan p;
    cJSON *pods[2] = {worker_pod("b1-run-0-a", 0, true, NULL),
                      worker_pod("b1-run-1-b", 1, true, NULL)};
    decide_pods_margin(STATUS_RUNNING_NO_BARRIER, pods, 2, NOW + 20.25, 500, &p);
    assert_string_equal(util_jstr(p.status, "readyAt"), "2027-01-15T08:00:20.250Z");
    assert_string_equal(util_jstr(p.status, "startAt"), "2027-01-15T08:00:20.750Z");
    assert_non_null(strstr(util_jstr(p.status, "message"), ", 0.500 s after the last pod"));
    assert_int_equal(p.n_annotate, 2);
    char *st = cJSON_PrintUnformatted(p.status);
    ctrl_plan_free(&p);
    /* decided again with a longer margin learned meanwhile: the published barrier holds */
    decide_pods_margin(st, pods, 2, NOW + 20.5, 3000, &p);
    assert_null(p.status);
    assert_string_equal(p.start_at, "2027-01-15T08:00:20.750Z");
    ctrl_plan_free(&p);
    /* with live progress on, the barrier goes out without the progress reads first; they come
     * with the next decision */
    cfg.progress_interval_s = 10;
    decide_pods_margin(STATUS_RUNNING_NO_BARRIER, pods, 2, NOW + 20.25, 500, &p);
    assert_int_equal(p.needs, 0);
    assert_string_equal(util_jstr(p.status, "startAt"), "2027-01-15T08:00:20.750Z");
    assert_int_equal(p.n_annotate, 2);
    ctrl_plan_free(&p);
    decide_pods_margin(st, pods, 2, NOW + 20.5, 500, &p);
    assert_int_equal(p.needs, CTRL_NEED_PROGRESS);
    ctrl_plan_free(&p);
    cfg.progress_interval_s = 0;
    free(st);
    cJSON_Delete(pods[0]);
    cJSON_Delete(pods[1]);
}

/* Issue 18.6: the workers start together once every worker pod is Ready: readyAt = the moment
 * the last one is seen ready, startAt = readyAt + the margin (issue 31.3: 2 s before the
 * operator measured a run, then learned from the runners; RFC 3339, ms) in status,
 * then as an annotation on every pod.
 * Level-triggered: a published barrier is never replaced, pods lacking it get the same one. */
static void test_start_barrier(void **state)
{
    (void)state;
    struct ctrl_plan p;
    cJSON *pods[3];
    pods[0] = worker_pod("b1-run-0-a", 0, true, NULL);
    pods[1] = worker_pod("b1-run-1-b", 1, false, NULL);
    decide_pods(STATUS_RUNNING_NO_BARRIER, pods, 2, NOW + 20, &p);
    assert_null(p.status); /* one worker is not ready: no barrier */
    assert_int_equal(p.n_annotate, 0);
    ctrl_plan_free(&p);
    /* a second ready pod of index 0 does not stand for index 1 */
    pods[2] = worker_pod("b1-run-0-c", 0, true, NULL);
    decide_pods(STATUS_RUNNING_NO_BARRIER, pods, 3, NOW + 20, &p);
    assert_null(p.status);
    assert_int_equal(p.n_annotate, 0);
    ctrl_plan_free(&p);
    cJSON_Delete(pods[2]);

    /* both ready at NOW + 20.25: the barrier is 2 s later, in status and on both pods */
    cJSON_Delete(pods[1]);
    pods[1] = worker_pod("b1-run-1-b", 1, true, NULL);
    decide_pods(STATUS_RUNNING_NO_BARRIER, pods, 2, NOW + 20.25, &p);
    assert_non_null(p.status);
    assert_string_equal(util_jstr(p.status, "readyAt"), "2027-01-15T08:00:20.250Z");
    assert_string_equal(util_jstr(p.status, "startAt"), "2027-01-15T08:00:22.250Z");
    assert_true(fabs(api_status_start_at(p.status) - (NOW + 22.25)) < 1e-6);
    assert_string_equal(p.start_at, "2027-01-15T08:00:22.250Z");
    assert_int_equal(p.n_annotate, 2);
    assert_string_equal(p.annotate[0].pod, "b1-run-0-a");
    assert_string_equal(p.annotate[1].pod, "b1-run-1-b");
    const cJSON *rc = cond(&p, "Running");
    assert_string_equal(util_jstr(p.status, "message"),
                        "2 workers start together at 2027-01-15T08:00:22.250Z, 2.000 s after the "
                        "last pod was ready");
    assert_string_equal(util_jstr(rc, "message"), "m"); /* the Running Event's, unchanged */
    /* the run's deadline keeps counting from the Running entry */
    assert_string_equal(util_jstr(rc, "lastTransitionTime"), "2027-01-15T08:00:00Z");
    char *st = cJSON_PrintUnformatted(p.status);
    ctrl_plan_free(&p);

    /* decided again later (a restart) with one pod annotated: the same value for the other */
    cJSON_Delete(pods[0]);
    pods[0] = worker_pod("b1-run-0-a", 0, true, "2027-01-15T08:00:22.250Z");
    decide_pods(st, pods, 2, NOW + 30, &p);
    assert_null(p.status);
    assert_int_equal(p.n_annotate, 1);
    assert_string_equal(p.annotate[0].pod, "b1-run-1-b");
    assert_string_equal(p.start_at, "2027-01-15T08:00:22.250Z");
    ctrl_plan_free(&p);
    free(st);

    /* a status without the barrier while a pod has it (restored from a backup): that value */
    decide_pods(STATUS_RUNNING_NO_BARRIER, pods, 2, NOW + 40, &p);
    assert_string_equal(util_jstr(p.status, "startAt"), "2027-01-15T08:00:22.250Z");
    assert_int_equal(p.n_annotate, 1);
    assert_string_equal(p.start_at, "2027-01-15T08:00:22.250Z");
    ctrl_plan_free(&p);

    /* a startAt in Unix seconds (an operator before issue 18): the same time, now RFC 3339 */
    cJSON *old = cJSON_Parse(STATUS_RUNNING_NO_BARRIER);
    cJSON_AddNumberToObject(old, "startAt", NOW + 5);
    char *ost = cJSON_PrintUnformatted(old);
    cJSON_Delete(old);
    decide_pods(ost, pods, 2, NOW + 50, &p);
    assert_string_equal(util_jstr(p.status, "startAt"), "2027-01-15T08:00:05.000Z");
    assert_string_equal(p.start_at, "2027-01-15T08:00:05.000Z");
    assert_int_equal(p.n_annotate, 1); /* the pod annotated keeps its own value */
    ctrl_plan_free(&p);
    free(ost);
    cJSON_Delete(pods[0]);
    cJSON_Delete(pods[1]);

    /* a worker that never becomes ready: no barrier, and WorkersBlocked after the grace counted
     * from the Running entry */
    pods[0] = worker_pod("b1-run-0-a", 0, true, NULL);
    pods[1] = stuck_pod("b1-run-1-b", "run", "ErrImagePull", "pull access denied");
    cJSON_AddStringToObject(cJSON_GetObjectItem(cJSON_GetObjectItem(pods[1], "metadata"), "labels"),
                            "batch.kubernetes.io/job-completion-index", "1");
    decide_pods(STATUS_RUNNING_NO_BARRIER, pods, 2, NOW + CTRL_BLOCKED_GRACE_S + 1, &p);
    assert_null(util_jget(p.status, "startAt"));
    assert_int_equal(p.n_annotate, 0);
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "status"), "True");
    ctrl_plan_free(&p);
    cJSON_Delete(pods[0]);
    cJSON_Delete(pods[1]);
}

/* Decides Running for b1 (2 workers of spec) with pods on these nodes (worker 1's Ready as
 * ready1), the Nodes read as `nodes` says (CTRL_FETCH_NONE: not read); returns the plan in p. */
static void decide_placed(const char *spec, const char *status, const char *n0, const char *n1,
                          bool ready1, enum ctrl_fetch_state nodes, const char *items,
                          struct ctrl_plan *p)
{
    cJSON *br = br_new(spec, status, 1);
    cJSON *job = job_with("b1-run", NULL, NULL, 2, NULL);
    cJSON *pods[2] = {worker_pod("b1-run-0-a", 0, true, NULL),
                      worker_pod("b1-run-1-b", 1, ready1, NULL)};
    const char *on[2] = {n0, n1};
    for (int i = 0; i < 2; i++)
        if (on[i])
            cJSON_AddStringToObject(cJSON_AddObjectToObject(pods[i], "spec"), "nodeName", on[i]);
    cJSON *list = items ? cJSON_Parse(items) : NULL;
    struct ctrl_observed o;
    obs_init(&o, br);
    o.now = NOW + 20;
    o.run_job = job;
    o.pods[0] = pods[0];
    o.pods[1] = pods[1];
    o.n_pods = 2;
    o.nodes = nodes;
    o.node_items = list;
    (void)snprintf(o.nodes_error, sizeof(o.nodes_error), "HTTP 403 nodes is forbidden");
    assert_int_equal(decide(&o, p), 0);
    cJSON_Delete(list);
    cJSON_Delete(pods[0]);
    cJSON_Delete(pods[1]);
    cJSON_Delete(job);
    cJSON_Delete(br);
}

#define NODE_ITEM(name, extra)                                                                     \
    "{\"metadata\":{\"name\":\"" name "\"},\"spec\":{" extra "},\"status\":{\"conditions\":[{"     \
    "\"type\":\"Ready\",\"status\":\"True\"}]}}"

/* Issue 31.2: condition WorkersShareNode with the start barrier: False (OnePerNode) when
 * each has its own, else judged from the Nodes, read then and only then: True (a Warning Event)
 * while another node was schedulable, False when none was or the Nodes cannot be read. Set once;
 * not with placement pack. */
static void test_workers_share_node(void **state)
{
    (void)state;
    struct ctrl_plan p;
    decide_placed(SPEC_BASIC, STATUS_RUNNING_NO_BARRIER, "n1", NULL, true, CTRL_FETCH_NONE, NULL,
                  &p);
    assert_null(cond(&p, API_COND_WORKERS_SHARE_NODE)); /* worker 1 not placed yet */
    assert_false(p.needs & CTRL_NEED_NODES);
    ctrl_plan_free(&p);
    /* placed but not ready: judged with the start barrier, the nodes as the load starts */
    decide_placed(SPEC_BASIC, STATUS_RUNNING_NO_BARRIER, "n1", "n1", false, CTRL_FETCH_NONE, NULL,
                  &p);
    assert_null(p.status);
    assert_false(p.needs & CTRL_NEED_NODES);
    ctrl_plan_free(&p);

    decide_placed(SPEC_BASIC, STATUS_RUNNING_NO_BARRIER, "n1", "n2", true, CTRL_FETCH_NONE, NULL,
                  &p);
    const cJSON *c = cond(&p, API_COND_WORKERS_SHARE_NODE);
    assert_string_equal(util_jstr(c, "status"), "False");
    assert_string_equal(util_jstr(c, "reason"), API_PLACEMENT_ONE_PER_NODE);
    assert_string_equal(util_jstr(c, "message"),
                        "each of the 2 workers ran on a node of its own: worker 0 on n1, worker 1 "
                        "on n2");
    assert_false(p.needs & CTRL_NEED_NODES); /* no Nodes read for that */
    ctrl_plan_free(&p);

    /* both on n1: the Nodes are read first */
    decide_placed(SPEC_BASIC, STATUS_RUNNING_NO_BARRIER, "n1", "n1", true, CTRL_FETCH_NONE, NULL,
                  &p);
    assert_true(p.needs & CTRL_NEED_NODES);
    ctrl_plan_free(&p);
    static const char *const free_node = "[" NODE_ITEM("n1", "") "," NODE_ITEM(
        "n2", "") "," NODE_ITEM("n3", "\"unschedulable\":true") "]";
    decide_placed(SPEC_BASIC, STATUS_RUNNING_NO_BARRIER, "n1", "n1", true, CTRL_FETCH_OK, free_node,
                  &p);
    assert_false(p.needs & CTRL_NEED_NODES);
    c = cond(&p, API_COND_WORKERS_SHARE_NODE);
    assert_string_equal(util_jstr(c, "status"), "True");
    assert_string_equal(util_jstr(c, "reason"), API_PLACEMENT_SHARED);
    assert_non_null(
        strstr(util_jstr(c, "message"),
               "workers 0 and 1 share node n1 while 1 other node was schedulable (n2)"));
    /* its Warning Event, from the status as written */
    cJSON *br = br_new(SPEC_BASIC, "{}", 1);
    cJSON_ReplaceItemInObject(br, "status", cJSON_Duplicate(p.status, 1));
    struct ctrl_event ev[8];
    int n = ctrl_status_events(br, NOW + 21, ev, 8), found = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(ev[i].reason, API_COND_WORKERS_SHARE_NODE) == 0) {
            found++;
            assert_true(ev[i].warning);
            assert_non_null(strstr(ev[i].message, "share node n1"));
        }
    assert_int_equal(found, 1);
    cJSON_Delete(br);
    /* decided again with the condition in status: neither read nor changed */
    char *st = cJSON_PrintUnformatted(p.status);
    ctrl_plan_free(&p);
    decide_placed(SPEC_BASIC, st, "n1", "n1", true, CTRL_FETCH_NONE, NULL, &p);
    assert_false(p.needs & CTRL_NEED_NODES);
    assert_null(p.status); /* nothing to write: the barrier and the condition are there */
    ctrl_plan_free(&p);
    free(st);

    /* no other node was schedulable: False, saying why */
    static const char *const none =
        "[" NODE_ITEM("n1", "") "," NODE_ITEM("n3", "\"unschedulable\":true") "]";
    decide_placed(SPEC_BASIC, STATUS_RUNNING_NO_BARRIER, "n1", "n1", true, CTRL_FETCH_OK, none, &p);
    c = cond(&p, API_COND_WORKERS_SHARE_NODE);
    assert_string_equal(util_jstr(c, "status"), "False");
    assert_string_equal(util_jstr(c, "reason"), API_PLACEMENT_NO_OTHER_NODE);
    assert_string_equal(util_jstr(c, "message"), "workers 0 and 1 share node n1; no other node "
                                                 "was schedulable (n3: cordoned)");
    ctrl_plan_free(&p);

    /* the Nodes could not be read (no RBAC on nodes) */
    decide_placed(SPEC_BASIC, STATUS_RUNNING_NO_BARRIER, "n1", "n1", true, CTRL_FETCH_ERROR, NULL,
                  &p);
    c = cond(&p, API_COND_WORKERS_SHARE_NODE);
    assert_string_equal(util_jstr(c, "status"), "False");
    assert_string_equal(util_jstr(c, "reason"), API_PLACEMENT_NODES_UNKNOWN);
    assert_non_null(strstr(util_jstr(c, "message"), "(HTTP 403 nodes is forbidden)"));
    ctrl_plan_free(&p);

    /* packed on purpose: nothing to say */
    static const char *const pack =
        "{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workers\":2,\"placement\":{\"mode\":"
        "\"pack\"},\"workload\":{\"pgbench\":{\"run\":{\"clients\":4,\"durationSeconds\":30}}}}";
    decide_placed(pack, STATUS_RUNNING_NO_BARRIER, "n1", "n1", true, CTRL_FETCH_NONE, NULL, &p);
    assert_null(cond(&p, API_COND_WORKERS_SHARE_NODE));
    assert_false(p.needs & CTRL_NEED_NODES);
    ctrl_plan_free(&p);
}

/* The run Job finished at `at` (its condition's lastTransitionTime). */
static cJSON *job_finished_at(const char *type, double at)
{
    cJSON *j = job_with("b1-run", type,
                        type[0] == 'C' ? "CompletionsReached" : "BackoffLimitExceeded", 2, NULL);
    char ts[40];
    util_rfc3339(at, 0, ts, sizeof(ts));
    cJSON_AddStringToObject(cJSON_GetArrayItem(util_jget(j, "status.conditions"), 0),
                            "lastTransitionTime", ts);
    return j;
}

/* Regression (fault scenario, 5 of 30 runs): the Job watch was ahead of the pod watch after a
 * watch restart, and a run whose pods had Succeeded ended Failed with "pod ... did not finish".
 * A cached pod that has not terminated, or is missing, is read from the API server first; one
 * still running is waited for; a worker fails only on its pod's own terminated state. */
static void test_collecting_stale_pod_cache(void **state)
{
    (void)state;
    char *st = status_collecting();
    cJSON *br = br_new(SPEC_BASIC, st, 1);
    cJSON *job = job_finished_at("Complete", NOW - 5);
    cJSON *p0 = pod_with("b1-run-0-abc", 0, 0, NULL);
    cJSON *p1 = running_pod("b1-run-1-def", 1);
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    o.run_job = job;
    o.pods[0] = p0;
    o.pods[1] = p1;
    o.n_pods = 2;
    /* the cache says running: ask the API server, decide nothing yet */
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, CTRL_NEED_PODS);
    assert_null(p.status);
    assert_int_equal(p.n_events, 0);
    ctrl_plan_free(&p);
    /* a pod missing from the cache likewise */
    o.n_pods = 1;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, CTRL_NEED_PODS);
    ctrl_plan_free(&p);

    /* the API server has it running too: looked at again soon, nothing written */
    o.n_pods = 2;
    o.pods_fresh = true;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, 0);
    assert_null(p.status);
    assert_int_equal(p.requeue_ms, CTRL_POD_RECHECK_MS);
    assert_int_equal(p.n_events, 0);
    ctrl_plan_free(&p);

    /* the API server has it terminated: its result is read */
    cJSON *p1done = pod_with("b1-run-1-def", 1, 0, NULL);
    o.pods[1] = p1done;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, CTRL_NEED_RESULTS);
    assert_int_equal(p.n_logs, 2);
    ctrl_plan_free(&p);
    o.results_fetched = true;
    o.results[0] = result(0, 100, 3000, true, 0, NULL);
    o.results[1] = result(1, 100, 3000, true, 0, NULL);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Succeeded");
    ctrl_plan_free(&p);
    for (int i = 0; i < 2; i++) {
        cJSON_Delete(o.results[i]);
        o.results[i] = NULL;
    }

    /* still running long after the Job ended (a node lost with it): reported, not waited for */
    o.results_fetched = false;
    o.pods[1] = p1;
    o.now = NOW - 5 + CTRL_POD_SETTLE_S + 1;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, CTRL_NEED_RESULTS);
    assert_int_equal(p.n_logs, 1); /* the terminated one only */
    ctrl_plan_free(&p);
    o.results_fetched = true;
    o.results[0] = result(0, 100, 3000, true, 0, NULL);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Failed");
    assert_non_null(strstr(util_jstr(p.status, "message"), "pod b1-run-1-def did not finish"));
    ctrl_plan_free(&p);
    cJSON_Delete(o.results[0]);
    o.results[0] = NULL;
    cJSON_Delete(p1done);
    cJSON_Delete(p0);
    cJSON_Delete(p1);
    cJSON_Delete(job);
    cJSON_Delete(br);
    free(st);

    /* a failed init Job whose pod the cache still has running: read before the message */
    char *ist = strdup("{\"phase\":\"Initializing\",\"observedGeneration\":1,"
                       "\"startedGeneration\":1,\"conditions\":[]}");
    br = br_new(SPEC_INIT, ist, 1);
    cJSON *ij = job_with("b1-init", "Failed", "BackoffLimitExceeded", 1, NULL);
    cJSON *ip = running_pod("b1-init-x", -1);
    obs_init(&o, br);
    o.init_job = ij;
    o.pods[0] = ip;
    o.n_pods = 1;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, CTRL_NEED_PODS);
    assert_null(p.status);
    ctrl_plan_free(&p);
    o.pods_fresh = true; /* the API server agrees: fail with what there is */
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Failed");
    ctrl_plan_free(&p);
    cJSON_Delete(ip);
    cJSON_Delete(ij);
    cJSON_Delete(br);
    free(ist);
}

/* A worker's compact termination summary, as bench_result_compact keeps it: the summary with its
 * percentiles, no histogram, timeline or statements. */
static cJSON *compact_result(int worker, double tps, long tx, double p99)
{
    char buf[1024];
    (void)snprintf(buf, sizeof(buf),
                   "{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":true,\"worker\":%d,"
                   "\"exitCode\":0,\"summary\":{\"transactionsProcessed\":%ld,"
                   "\"failedTransactions\":0,\"abortedClients\":0,\"tps\":%g,\"latencyAvgMs\":2.0,"
                   "\"latencyP50Ms\":1.5,\"latencyP90Ms\":%g,\"latencyP95Ms\":%g,"
                   "\"latencyP99Ms\":%g,\"latencyP999Ms\":%g,\"latencyMaxMs\":%g},"
                   "\"pgbench\":{\"clients\":2,\"threads\":1},\"truncated\":false,\"errors\":[]}",
                   worker, tx, tps, p99 - 2, p99 - 1, p99, p99 + 1, p99 + 5);
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    return j;
}

/* Results that are the termination message's compact summary (pods/log denied or failing, or a
 * result line the log cut): status gets the summary and its percentiles, condition
 * ResultDetailUnavailable says whose detail is missing and why, worker rows say so. */
static void test_collecting_summary_only(void **state)
{
    (void)state;
    char *st = status_collecting();
    cJSON *br = br_new(SPEC_BASIC, st, 1);
    cJSON *job = job_with("b1-run", "Complete", "CompletionsReached", 2, NULL);
    cJSON *p0 = pod_with("b1-run-0-abc", 0, 0, NULL);
    cJSON *p1 = pod_with("b1-run-1-def", 1, 0, NULL);
    struct ctrl_observed o;
    struct ctrl_plan p;
    obs_init(&o, br);
    o.run_job = job;
    o.pods[0] = p0;
    o.pods[1] = p1;
    o.n_pods = 2;
    o.results_fetched = true;
    o.results[0] = compact_result(0, 100, 3000, 5.0);
    o.results[1] = compact_result(1, 80, 2400, 7.0);
    char why0[] = "the pod log could not be read: HTTP 403 pods \"b1-run-0-abc\" is forbidden";
    char why1[] = "the pod log could not be read: HTTP 500 injected fault (after retries)";
    o.result_errors[0] = why0;
    o.result_errors[1] = why1;
    o.result_detail[0] = CTRL_DETAIL_LOG_UNAVAILABLE;
    o.result_detail[1] = CTRL_DETAIL_LOG_UNAVAILABLE;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Succeeded");
    assert_float_equal(util_jnum(p.status, "summary.tps", 0), 180.0, 1e-9);
    /* two workers without histograms: the slowest worker's p99, an upper bound */
    assert_float_equal(util_jnum(p.status, "summary.latencyMs.p99", 0), 7.0, 1e-9);
    assert_float_equal(util_jnum(p.status, "summary.latencyMs.max", 0), 12.0, 1e-9);
    const cJSON *c = cond(&p, "ResultDetailUnavailable");
    assert_string_equal(util_jstr(c, "status"), "True");
    assert_string_equal(util_jstr(c, "reason"), "LogUnavailable");
    const char *m = util_jstr(c, "message");
    assert_non_null(
        strstr(m, "worker 0 (pod b1-run-0-abc): the pod log could not be read: HTTP 403"));
    assert_non_null(strstr(m, "worker 1 (pod b1-run-1-def)"));
    assert_non_null(strstr(m, "not the timeline, the per-statement latencies"));
    assert_non_null(strstr(m, "upper bound"));
    assert_non_null(strstr(util_jstr(p.status, "message"), "summary only"));
    cJSON *row = cm_worker(&p, 1);
    assert_true(cJSON_IsTrue(util_jget(row, "complete")));
    assert_string_equal(util_jstr(row, "message"),
                        "ok; summary only, without timeline, statements and histogram: the pod "
                        "log could not be read: HTTP 500 injected fault (after retries)");
    cJSON_Delete(row);
    assert_non_null(strstr(status_worker(&p, 1),
                           "1 b1-run-1-def: ok; summary only, without timeline, statements and "
                           "histogram: the pod log could not be read: HTTP 500 injected fault "
                           "(after retries), "));
    bool warned = false;
    for (int i = 0; i < p.n_events; i++)
        if (strcmp(p.events[i].reason, "ResultDetailUnavailable") == 0) {
            warned = p.events[i].warning;
            assert_string_equal(p.events[i].message, m);
        }
    assert_true(warned);
    ctrl_plan_free(&p);

    /* one worker: its own percentiles, exact; a cut result line is LogTruncated */
    cJSON_Delete(o.results[1]);
    o.results[1] = result(1, 80, 2400, true, 0, NULL); /* from its log: complete detail */
    o.result_errors[1] = NULL;
    o.result_detail[1] = CTRL_DETAIL_FULL;
    o.result_detail[0] = CTRL_DETAIL_LOG_TRUNCATED;
    char cut[] = "the pod log is longer than 32 MiB and its result line lies beyond that";
    o.result_errors[0] = cut;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(util_jstr(cond(&p, "ResultDetailUnavailable"), "reason"), "LogTruncated");
    assert_null(strstr(util_jstr(cond(&p, "ResultDetailUnavailable"), "message"), "worker 1"));
    row = cm_worker(&p, 1);
    assert_true(cJSON_IsTrue(util_jget(row, "complete")));
    assert_string_equal(util_jstr(row, "message"), "ok");
    cJSON_Delete(row);
    ctrl_plan_free(&p);
    for (int i = 0; i < 2; i++) {
        cJSON_Delete(o.results[i]);
        o.results[i] = NULL;
    }
    cJSON_Delete(p0);
    cJSON_Delete(p1);
    cJSON_Delete(job);
    cJSON_Delete(br);

    /* a single worker: exact percentiles, no "upper bound" */
    const char *one = "{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workers\":1,\"workload\":{"
                      "\"pgbench\":{\"run\":{\"clients\":2,\"durationSeconds\":30}}}}";
    br = br_new(one, st, 1);
    job = job_with("b1-run", "Complete", "CompletionsReached", 1, NULL);
    p0 = pod_with("b1-run-0-abc", 0, 0, NULL);
    obs_init(&o, br);
    o.run_job = job;
    o.pods[0] = p0;
    o.n_pods = 1;
    o.results_fetched = true;
    o.results[0] = compact_result(0, 100, 3000, 5.0);
    o.result_errors[0] = why0;
    o.result_detail[0] = CTRL_DETAIL_LOG_UNAVAILABLE;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Succeeded");
    assert_float_equal(util_jnum(p.status, "summary.latencyMs.p99", 0), 5.0, 1e-9);
    assert_float_equal(util_jnum(p.status, "summary.latencyMs.p50", 0), 1.5, 1e-9);
    assert_null(strstr(util_jstr(cond(&p, "ResultDetailUnavailable"), "message"), "upper bound"));
    assert_non_null(strstr(util_jstr(p.status, "message"), "p99 5.00 ms"));
    ctrl_plan_free(&p);
    cJSON_Delete(o.results[0]);
    cJSON_Delete(p0);
    cJSON_Delete(job);
    cJSON_Delete(br);

    /* fio: the compact summary keeps every job's status figures */
    const char *fio = "{\"workers\":1,\"workload\":{\"fio\":{\"jobs\":[{\"name\":\"wal\",\"rw\":"
                      "\"write\",\"bs\":\"8k\",\"size\":\"1M\",\"runtimeSeconds\":5}]}}}";
    br = br_new(fio, st, 1);
    job = job_with("b1-run", "Complete", "CompletionsReached", 1, NULL);
    p0 = pod_with("b1-run-0-abc", 0, 0, NULL);
    obs_init(&o, br);
    o.run_job = job;
    o.pods[0] = p0;
    o.n_pods = 1;
    o.results_fetched = true;
    o.results[0] = cJSON_Parse(
        "{\"schemaVersion\":1,\"kind\":\"fio\",\"complete\":true,\"worker\":0,\"exitCode\":0,"
        "\"fio\":{\"jobs\":[{\"name\":\"wal\",\"write\":{\"iops\":2793.7,\"bwKiBs\":22349,"
        "\"clatUs\":{\"p99\":38.6}},\"sync\":{\"p99\":1974.2}}]},\"truncated\":false,"
        "\"errors\":[]}");
    o.result_errors[0] = why0;
    o.result_detail[0] = CTRL_DETAIL_LOG_UNAVAILABLE;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Succeeded");
    const cJSON *j0 = cJSON_GetArrayItem(util_jget(p.status, "fio"), 0);
    assert_string_equal(util_jstr(j0, "job"), "wal");
    assert_float_equal(util_jnum(j0, "writeIops", 0), 2793.7, 1e-9);
    assert_float_equal(util_jnum(j0, "syncUs.p99", 0), 1974.2, 1e-9);
    /* the bug: "finished without a summary" although the termination message had one */
    assert_null(strstr(util_jstr(p.status, "message"), "without a summary"));
    assert_non_null(strstr(util_jstr(cond(&p, "ResultDetailUnavailable"), "message"),
                           "status.fio is complete"));
    cJSON *w0 = cm_worker(&p, 0);
    assert_non_null(
        strstr(util_jstr(w0, "message"), "ok; summary only, without fio's latency distributions"));
    cJSON_Delete(w0);
    assert_non_null(strstr(status_worker(&p, 0), ": ok; summary only, without fio's latency "
                                                 "distributions"));
    ctrl_plan_free(&p);
    cJSON_Delete(o.results[0]);
    cJSON_Delete(p0);
    cJSON_Delete(job);
    cJSON_Delete(br);
    free(st);
}

/* The Event names of the plan's events, and of the events its status implies, into two sets
 * of names; returns how many of the plan's are among the implied. */
static int implied_matches(const struct ctrl_plan *p, const char *uid)
{
    char *txt = cJSON_PrintUnformatted(p->status);
    char meta[256];
    (void)snprintf(meta, sizeof(meta), "{\"name\":\"b1\",\"namespace\":\"ns\",\"uid\":\"%s\"}",
                   uid);
    cJSON *br = cJSON_CreateObject();
    cJSON_AddItemToObject(br, "metadata", cJSON_Parse(meta));
    cJSON_AddItemToObject(br, "status", cJSON_Parse(txt));
    free(txt);
    struct ctrl_event ev[8];
    int n = ctrl_status_events(br, NOW + 1, ev, 8), found = 0;
    for (int i = 0; i < p->n_events; i++) {
        char want[400];
        ctrl_event_name(br, &p->events[i], want, sizeof(want));
        for (int k = 0; k < n; k++) {
            char got[400];
            ctrl_event_name(br, &ev[k], got, sizeof(got));
            if (strcmp(got, want) == 0)
                found++;
        }
    }
    cJSON_Delete(br);
    return found;
}

/* Events survive a kill between the status write and the Event: the status records every
 * transition's Event exactly (same type, reason and message, hence the same deterministic
 * name), so the executor can send them again and a duplicate is refused as AlreadyExists. */
static void test_status_events(void **state)
{
    (void)state;
    struct ctrl_plan p;
    /* -> Running */
    char *st = decide_with(SPEC_BASIC, NULL, NULL, NULL, NULL, NOW, &p);
    assert_int_equal(p.n_events, 1);
    assert_int_equal(implied_matches(&p, "u1"), 1);
    ctrl_plan_free(&p);
    /* -> Collecting */
    cJSON *rj = job_with("b1-run", "Complete", "CompletionsReached", 2, NULL);
    char *st2 = decide_with(SPEC_BASIC, st, NULL, rj, NULL, NOW + 40, &p);
    assert_string_equal(phase(&p), "Collecting");
    assert_int_equal(implied_matches(&p, "u1"), 1);
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(rj);
    /* -> WorkersBlocked (Warning, with the phase's Running Event still implied) */
    rj = job_with("b1-run", NULL, NULL, 2, NULL);
    st2 = decide_with(SPEC_BASIC, st, NULL, rj, NULL, NOW + 31, &p);
    assert_int_equal(p.n_events, 1);
    assert_string_equal(p.events[0].reason, "WorkersBlocked");
    assert_int_equal(implied_matches(&p, "u1"), 1);
    ctrl_plan_free(&p);
    cJSON_Delete(rj);
    free(st2);
    /* -> Failed (Warning) */
    st2 = decide_with("{\"target\":{\"host\":\"pg\"}}", NULL, NULL, NULL, NULL, NOW, &p);
    assert_string_equal(phase(&p), "Failed");
    assert_true(p.events[0].warning);
    assert_int_equal(implied_matches(&p, "u1"), 1);
    ctrl_plan_free(&p);
    free(st2);
    free(st);
    /* Collecting -> Succeeded */
    st = status_collecting();
    cJSON *br0 = br_new(SPEC_BASIC, st, 1);
    rj = job_with("b1-run", "Complete", "CompletionsReached", 2, NULL);
    cJSON *p0 = pod_with("b1-run-0-abc", 0, 0, NULL), *p1 = pod_with("b1-run-1-def", 1, 0, NULL);
    struct ctrl_observed o;
    obs_init(&o, br0);
    o.run_job = rj;
    o.pods[0] = p0;
    o.pods[1] = p1;
    o.n_pods = 2;
    o.results_fetched = true;
    o.results[0] = result(0, 100, 3000, true, 0, NULL);
    o.results[1] = result(1, 100, 3000, true, 0, NULL);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Succeeded");
    assert_int_equal(p.n_events, 1);
    assert_int_equal(implied_matches(&p, "u1"), 1);
    ctrl_plan_free(&p);
    for (int i = 0; i < 2; i++)
        cJSON_Delete(o.results[i]);
    cJSON_Delete(p0);
    cJSON_Delete(p1);
    cJSON_Delete(rj);
    cJSON_Delete(br0);
    free(st);

    /* names: deterministic, per run (uid) and per content, valid as object names */
    cJSON *br = br_new(SPEC_BASIC,
                       "{\"phase\":\"Succeeded\",\"conditions\":[{\"type\":"
                       "\"Complete\",\"status\":\"True\",\"reason\":\"Succeeded\","
                       "\"message\":\"12.0 tps\",\"lastTransitionTime\":"
                       "\"2027-01-15T08:00:00Z\"},{\"type\":\"WorkersSkewed\","
                       "\"status\":\"True\",\"reason\":\"WorkersNotTogether\","
                       "\"message\":\"worker 1 started late\",\"lastTransitionTime\":"
                       "\"2027-01-15T08:00:00Z\"},{\"type\":\"WorkersBlocked\","
                       "\"status\":\"False\",\"reason\":\"Started\",\"message\":\"x\","
                       "\"lastTransitionTime\":\"2027-01-15T08:00:00Z\"}]}",
                       1);
    double t = util_rfc3339_parse("2027-01-15T08:00:00Z");
    struct ctrl_event ev[8];
    int n = ctrl_status_events(br, t + 60, ev, 8);
    /* Collecting (every Succeeded run passed it), Succeeded and WorkersSkewed; not WorkersBlocked,
     * which is False */
    assert_int_equal(n, 3);
    assert_string_equal(ev[0].reason, "Collecting");
    assert_string_equal(ev[0].message, CTRL_COLLECTING_MESSAGE);
    assert_string_equal(ev[1].reason, "Succeeded");
    assert_false(ev[1].warning);
    assert_string_equal(ev[1].message, "12.0 tps");
    assert_true(ev[1].time == t);
    assert_string_equal(ev[2].reason, "WorkersSkewed");
    assert_true(ev[2].warning);
    char a[400], b[400];
    ctrl_event_name(br, &ev[1], a, sizeof(a));
    ctrl_event_name(br, &ev[1], b, sizeof(b));
    assert_string_equal(a, b);
    assert_int_equal(strlen(a), strlen("b1.") + 16);
    assert_memory_equal(a, "b1.", 3);
    ctrl_event_name(br, &ev[2], b, sizeof(b));
    assert_string_not_equal(a, b);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(br, "metadata"), "uid", cJSON_CreateString("u2"));
    ctrl_event_name(br, &ev[1], b, sizeof(b));
    assert_string_not_equal(a, b); /* a new run of the same name */
    /* older than the event TTL: not sent again */
    assert_int_equal(ctrl_status_events(br, t + CTRL_EVENT_RESEND_S + 1, ev, 8), 0);
    assert_int_equal(ctrl_status_events(br, t + 60, ev, 1), 1);
    cJSON_Delete(br);
}

/* A Warning event as ctrl_transform_event leaves it. */
static cJSON *warning(const char *kind, const char *name, const char *reason, const char *msg,
                      double when)
{
    char ts[40], buf[2048];
    util_rfc3339(when, 0, ts, sizeof(ts));
    cJSON *j = cJSON_CreateObject();
    cJSON *md = cJSON_AddObjectToObject(j, "metadata");
    (void)snprintf(buf, sizeof(buf), "%s.%s", name, reason);
    cJSON_AddStringToObject(md, "name", buf);
    cJSON_AddStringToObject(md, "namespace", "ns");
    cJSON *inv = cJSON_AddObjectToObject(j, "involvedObject");
    cJSON_AddStringToObject(inv, "kind", kind);
    cJSON_AddStringToObject(inv, "name", name);
    cJSON_AddStringToObject(j, "reason", reason);
    cJSON_AddStringToObject(j, "message", msg);
    cJSON_AddStringToObject(j, "time", ts);
    return j;
}

/* Decides with pods and events; returns the plan's status as text (caller frees). */
static char *decide_ev(const char *spec, const char *st, cJSON *init_job, cJSON *run_job,
                       cJSON *pod, cJSON *const *events, int n_events, double now,
                       struct ctrl_plan *p)
{
    cJSON *br = br_new(spec, st, 1);
    struct ctrl_observed o;
    obs_init(&o, br);
    o.now = now;
    o.init_job = init_job;
    o.run_job = run_job;
    if (pod) {
        o.pods[0] = pod;
        o.n_pods = 1;
    }
    for (int i = 0; i < n_events; i++)
        o.events[i] = events[i];
    o.n_events = n_events;
    o.pods_fresh = true; /* as read from the API server */
    o.results_fetched = true;
    assert_int_equal(decide(&o, p), 0);
    char *out = p->status ? cJSON_PrintUnformatted(p->status) : strdup(st ? st : "{}");
    cJSON_Delete(br);
    return out;
}

#define SPEC_SCRIPTS                                                                               \
    "{\"target\":{\"host\":\"pg\",\"user\":\"u\",\"caSecretRef\":{\"name\":\"pg-ca\"}},"           \
    "\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":30,\"scripts\":[{\"configMapRef\":"   \
    "{\"name\":\"my-scripts\",\"key\":\"read.sql\"}}]}}}}"
#define SPEC_FIO                                                                                   \
    "{\"workload\":{\"fio\":{\"storageClassName\":\"nope\",\"jobs\":[{\"name\":\"a\","             \
    "\"runtimeSeconds\":10}]}}}"
#define UNBOUND                                                                                    \
    "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 "  \
    "nodes are available: 1 Preemption is not helpful for scheduling."

/* What only events say: a volume the kubelet cannot mount, a claim that cannot be provisioned, pods
 * the API server refuses. Events of an earlier run of the same name are not read. */
static void test_blocked_by_events(void **state)
{
    (void)state;
    struct ctrl_plan p;
    char *st = decide_ev(SPEC_SCRIPTS, NULL, NULL, NULL, NULL, NULL, 0, NOW, &p);
    assert_string_equal(phase(&p), "Running");
    ctrl_plan_free(&p);
    cJSON *rj = job_with("b1-run", NULL, NULL, 1, NULL);
    cJSON *pod = stuck_pod("b1-run-0-x", "run", "ContainerCreating", "");
    cJSON *ev[2];
    ev[0] = warning("Pod", "b1-run-0-x", "FailedMount",
                    "MountVolume.SetUp failed for volume \"script-0\" : configmap \"my-scripts\" "
                    "not found",
                    NOW + 8);
    char *st2 = decide_ev(SPEC_SCRIPTS, st, NULL, rj, pod, ev, 1, NOW + 31, &p);
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "status"), "True");
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "reason"), "FailedMount");
    assert_string_equal(util_jstr(p.status, "message"),
                        "run pod b1-run-0-x cannot start: FailedMount: MountVolume.SetUp failed "
                        "for volume \"script-0\" : configmap \"my-scripts\" not found "
                        "(spec.workload.pgbench.run.scripts[0].configMapRef)");
    assert_int_equal(p.n_events, 1);
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(ev[0]);

    /* the CA Secret */
    ev[0] =
        warning("Pod", "b1-run-0-x", "FailedMount",
                "MountVolume.SetUp failed for volume \"ca\" : secret \"pg-ca\" not found", NOW + 8);
    st2 = decide_ev(SPEC_SCRIPTS, st, NULL, rj, pod, ev, 1, NOW + 31, &p);
    assert_non_null(strstr(util_jstr(p.status, "message"),
                           "secret \"pg-ca\" not found (spec.target.caSecretRef)"));
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(ev[0]);

    /* an event of an earlier run named b1 (before this phase began): ContainerCreating heals */
    ev[0] = warning("Pod", "b1-run-0-x", "FailedMount", "MountVolume.SetUp failed", NOW - 100);
    st2 = decide_ev(SPEC_SCRIPTS, st, NULL, rj, pod, ev, 1, NOW + 31, &p);
    assert_null(cond(&p, "WorkersBlocked"));
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(ev[0]);
    cJSON_Delete(pod);

    /* no pod: the Job's FailedCreate says why */
    ev[0] = warning("Job", "b1-run", "FailedCreate",
                    "Error creating: pods \"b1-run-0-\" is forbidden: error looking up service "
                    "account ns/bench: serviceaccount \"bench\" not found",
                    NOW + 1);
    st2 = decide_ev(SPEC_SCRIPTS, st, NULL, rj, NULL, ev, 1, NOW + 31, &p);
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "reason"), "FailedCreate");
    assert_string_equal(util_jstr(p.status, "message"),
                        "no run pod exists 31 s after the run Job was created: the API server "
                        "refuses them: Error creating: pods \"b1-run-0-\" is forbidden: error "
                        "looking up service account ns/bench: serviceaccount \"bench\" not found "
                        "(spec.podTemplate.serviceAccountName)");
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(ev[0]);
    cJSON_Delete(rj);
    free(st);

    /* fio: the claim's StorageClass does not exist */
    st = decide_ev(SPEC_FIO, NULL, NULL, NULL, NULL, NULL, 0, NOW, &p);
    ctrl_plan_free(&p);
    rj = job_with("b1-run", NULL, NULL, 1, NULL);
    pod = stuck_pod("b1-run-0-x", "run", NULL, UNBOUND);
    ev[0] = warning("PersistentVolumeClaim", "b1-fio", "ProvisioningFailed",
                    "storageclass.storage.k8s.io \"nope\" not found", NOW + 1);
    ev[1] = warning("Pod", "b1-run-0-x", "FailedScheduling", UNBOUND, NOW + 1); /* not read */
    st2 = decide_ev(SPEC_FIO, st, NULL, rj, pod, ev, 2, NOW + 31, &p);
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "reason"), "ProvisioningFailed");
    assert_string_equal(util_jstr(p.status, "message"),
                        "run pod b1-run-0-x cannot be scheduled: PersistentVolumeClaim b1-fio is "
                        "not bound: StorageClass \"nope\" does not exist "
                        "(spec.workload.fio.storageClassName; kubectl get storageclass)");
    ctrl_plan_free(&p);
    free(st2);
    /* without the event: the scheduler's words */
    st2 = decide_ev(SPEC_FIO, st, NULL, rj, pod, ev + 1, 1, NOW + 31, &p);
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "reason"), "Unschedulable");
    assert_string_equal(util_jstr(p.status, "message"),
                        "run pod b1-run-0-x cannot be scheduled: " UNBOUND);
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(ev[0]);
    cJSON_Delete(ev[1]);
    cJSON_Delete(pod);
    cJSON_Delete(rj);
    free(st);
}

/* A run Job as the cache keeps it: counts and the terminal condition with its message. */
static cJSON *job_status(const char *cond_type, const char *reason, const char *msg, int failed)
{
    char buf[1024];
    (void)snprintf(buf, sizeof(buf),
                   "{\"metadata\":{\"name\":\"b1-run\",\"namespace\":\"ns\",\"labels\":{"
                   "\"pgbench.dev/benchmarkrun\":\"b1\"}},\"spec\":{\"completions\":1},"
                   "\"status\":{\"failed\":%d,\"conditions\":[{\"type\":\"%s\",\"status\":"
                   "\"True\",\"reason\":\"%s\",\"message\":\"%s\"}]}}",
                   failed, cond_type, reason, msg);
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    return j;
}

/* Every run has a deadline: a Job that hit its activeDeadlineSeconds, workers their runner stopped
 * at BENCH_DEADLINE_AT, a Job that did not end (the operator's own check). WorkersBlocked is
 * cleared when the run ends, and a failure says what the workers were blocked on. Workers without
 * a pod say why. */
static void test_deadlines(void **state)
{
    (void)state;
    struct ctrl_plan p;
    /* fio blocked on its claim until the Job's deadline deleted the pod */
    char *st = decide_ev(SPEC_FIO, NULL, NULL, NULL, NULL, NULL, 0, NOW, &p);
    ctrl_plan_free(&p);
    cJSON *rj = job_with("b1-run", NULL, NULL, 1, NULL);
    cJSON *pod = stuck_pod("b1-run-0-x", "run", NULL, UNBOUND);
    cJSON *ev = warning("PersistentVolumeClaim", "b1-fio", "ProvisioningFailed",
                        "storageclass.storage.k8s.io \"nope\" not found", NOW + 1);
    char *st2 = decide_ev(SPEC_FIO, st, NULL, rj, pod, &ev, 1, NOW + 31, &p);
    ctrl_plan_free(&p);
    cJSON_Delete(rj);
    cJSON_Delete(pod);
    rj = job_status("Failed", "DeadlineExceeded", "Job was active longer than specified deadline",
                    1);
    char *st3 = decide_ev(SPEC_FIO, st2, NULL, rj, NULL, &ev, 1, NOW + 640, &p);
    assert_string_equal(phase(&p), "Collecting");
    ctrl_plan_free(&p);
    char *st4 = decide_ev(SPEC_FIO, st3, NULL, rj, NULL, &ev, 1, NOW + 641, &p);
    assert_string_equal(phase(&p), "Failed");
    assert_string_equal(util_jstr(cond(&p, "Failed"), "reason"), "DeadlineExceeded");
    const char *m = util_jstr(cond(&p, "Failed"), "message");
    assert_non_null(strstr(m, "the run exceeded its deadline (the default 610 s, the expected "
                              "runtime + 600 s; set spec.timeoutSeconds, from the run's start)"));
    assert_non_null(strstr(m, "worker 0 failed: no pod of this worker is left to read: the run Job "
                              "made 1 pod, then failed: DeadlineExceeded: Job was active longer "
                              "than specified deadline"));
    assert_non_null(strstr(m, "; the workers were blocked: run pod b1-run-0-x cannot be "
                              "scheduled: PersistentVolumeClaim b1-fio is not bound: StorageClass "
                              "\"nope\" does not exist"));
    assert_string_equal(util_jstr(p.status, "message"), m);
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "status"), "False");
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "reason"), "RunFailed");
    assert_non_null(strstr(util_jstr(cond(&p, "WorkersBlocked"), "message"),
                           "the run ended (Failed) while the workers were blocked: run pod"));
    ctrl_plan_free(&p);
    /* a Failed run read again: nothing changes */
    char *st5 = decide_ev(SPEC_FIO, st4, NULL, rj, NULL, &ev, 1, NOW + 700, &p);
    assert_null(p.status);
    ctrl_plan_free(&p);
    free(st5);
    free(st4);
    free(st3);
    free(st2);
    cJSON_Delete(rj);
    cJSON_Delete(ev);
    free(st);

    /* a worker the Job never made a pod for: said so, with the Job's FailedCreate when there is */
    const char *coll =
        "{\"phase\":\"Collecting\",\"startAt\":\"2027-01-15T08:00:05.000Z\",\"startedGeneration\":"
        "1,"
        "\"conditions\":[{\"type\":\"Running\",\"status\":\"True\",\"reason\":"
        "\"Started\",\"message\":\"m\",\"lastTransitionTime\":\"2027-01-15T08:00:00Z\"}]}";
    rj = job_status("Failed", "DeadlineExceeded", "Job was active longer than specified deadline",
                    0);
    st2 = decide_ev(SPEC_FIO, coll, NULL, rj, NULL, NULL, 0, NOW + 700, &p);
    assert_non_null(strstr(util_jstr(p.status, "message"),
                           "worker 0 failed: no pod was created for this worker"));
    ctrl_plan_free(&p);
    free(st2);
    ev = warning("Job", "b1-run", "FailedCreate", "Error creating: pods \"b1-run-0-\" is forbidden",
                 NOW + 2);
    st2 = decide_ev(SPEC_FIO, coll, NULL, rj, NULL, &ev, 1, NOW + 700, &p);
    assert_non_null(strstr(util_jstr(p.status, "message"),
                           "worker 0 failed: no pod was created for this worker: Error creating: "
                           "pods \"b1-run-0-\" is forbidden"));
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(ev);
    cJSON_Delete(rj);

    /* a transactions run its runner stopped at BENCH_DEADLINE_AT: partial results kept */
    const char *spec_tx = "{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"timeoutSeconds\":20,"
                          "\"workload\":{\"pgbench\":{\"run\":{\"transactions\":100000000}}}}";
    rj = job_status("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit",
                    1);
    pod = pod_with("b1-run-0-x", 0, 2, NULL);
    cJSON *br = br_new(spec_tx, coll, 1);
    struct ctrl_observed o;
    obs_init(&o, br);
    o.now = NOW + 40;
    o.run_job = rj;
    o.pods[0] = pod;
    o.n_pods = 1;
    o.pods_fresh = true; /* as read from the API server */
    o.results_fetched = true;
    o.results[0] = result(0, 50, 1000, false, 2,
                          "deadline: pgbench was still running at the run's deadline, 20 s after "
                          "it started, and was stopped; the result is partial");
    char ts[40];
    util_rfc3339(NOW + 5 + 20, 0, ts, sizeof(ts));
    cJSON_AddStringToObject(o.results[0], "endTime", ts);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Failed");
    assert_string_equal(util_jstr(cond(&p, "Failed"), "reason"), "DeadlineExceeded");
    assert_non_null(strstr(util_jstr(cond(&p, "Failed"), "message"),
                           "the run exceeded its deadline (spec.timeoutSeconds 20 s, from the "
                           "run's start): worker 0 (pod b1-run-0-x) failed: exit code 2: "
                           "deadline: pgbench was still running"));
    assert_int_equal(util_jnum(p.status, "summary.transactions", 0), 1000);
    ctrl_plan_free(&p);
    /* the same failure well before the deadline is the worker's */
    util_rfc3339(NOW + 5 + 3, 0, ts, sizeof(ts));
    cJSON_ReplaceItemInObject(o.results[0], "endTime", cJSON_CreateString(ts));
    o.now = NOW + 10;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(util_jstr(cond(&p, "Failed"), "reason"), "WorkerFailed");
    ctrl_plan_free(&p);
    cJSON_Delete(o.results[0]);
    cJSON_Delete(br);
    cJSON_Delete(pod);
    cJSON_Delete(rj);

    /* the operator's own check: a run Job that outlives its deadline (made without one) */
    st = decide_ev(spec_tx, NULL, NULL, NULL, NULL, NULL, 0, NOW, &p);
    ctrl_plan_free(&p);
    rj = job_with("b1-run", NULL, NULL, 1, NULL);
    st2 = decide_ev(spec_tx, st, NULL, rj, NULL, NULL, 0, NOW + 50, &p);
    /* barrier NOW+5, + 20 s + 15 s + 60 s grace = NOW+100: looked at again by then */
    assert_true(p.requeue_ms > 0 && p.requeue_ms <= 50100);
    ctrl_plan_free(&p);
    free(st2);
    st2 = decide_ev(spec_tx, st, NULL, rj, NULL, NULL, 0, NOW + 101, &p);
    assert_string_equal(phase(&p), "Failed");
    assert_string_equal(util_jstr(cond(&p, "Failed"), "reason"), "DeadlineExceeded");
    assert_non_null(strstr(util_jstr(cond(&p, "Failed"), "message"),
                           "Job b1-run did not end at its activeDeadlineSeconds"));
    bool deleted = false;
    for (int i = 0; i < p.n_actions; i++)
        deleted |= p.actions[i].kind == CTRL_ACT_DELETE && strcmp(p.actions[i].name, "b1-run") == 0;
    assert_true(deleted);
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(rj);
    free(st);

    /* init: its Job's deadline */
    st = decide_ev(SPEC_INIT, NULL, NULL, NULL, NULL, NULL, 0, NOW, &p);
    ctrl_plan_free(&p);
    cJSON *ij = job_with("b1-init", "Failed", "DeadlineExceeded", 1, NULL);
    st2 = decide_ev(SPEC_INIT, st, ij, NULL, NULL, NULL, 0, NOW + 21700, &p);
    assert_string_equal(util_jstr(cond(&p, "Failed"), "reason"), "DeadlineExceeded");
    assert_string_equal(util_jstr(cond(&p, "Initialized"), "reason"), "DeadlineExceeded");
    assert_non_null(strstr(util_jstr(cond(&p, "Failed"), "message"),
                           "the init phase exceeded its deadline (the default 21600 s of an init; "
                           "set spec.timeoutSeconds)"));
    ctrl_plan_free(&p);
    free(st2);
    cJSON_Delete(ij);
    free(st);
}

/* The events cache keeps a few fields of the few events the reconciler reads. */
static void test_event_transform_and_filter(void **state)
{
    (void)state;
    cJSON *e = cJSON_Parse(
        "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"b1-run-0-x.17\","
        "\"namespace\":\"ns\",\"uid\":\"u\",\"resourceVersion\":\"9\",\"creationTimestamp\":"
        "\"2027-01-15T08:00:00Z\",\"managedFields\":[]},\"involvedObject\":{\"apiVersion\":\"v1\","
        "\"kind\":\"Pod\",\"name\":\"b1-run-0-x\",\"namespace\":\"ns\",\"uid\":\"p\","
        "\"resourceVersion\":\"3\"},\"reason\":\"FailedMount\",\"message\":\"MountVolume.SetUp "
        "failed\",\"type\":\"Warning\",\"source\":{\"component\":\"kubelet\",\"host\":\"n1\"},"
        "\"firstTimestamp\":\"2027-01-15T08:00:01Z\",\"lastTimestamp\":\"2027-01-15T08:00:09Z\","
        "\"count\":4,\"reportingComponent\":\"kubelet\",\"reportingInstance\":\"n1\"}");
    assert_non_null(e);
    ctrl_transform_event(e, NULL);
    cJSON *want = cJSON_Parse(
        "{\"metadata\":{\"name\":\"b1-run-0-x.17\",\"namespace\":\"ns\",\"resourceVersion\":\"9\"},"
        "\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"b1-run-0-x\"},\"reason\":\"FailedMount\","
        "\"message\":\"MountVolume.SetUp failed\",\"time\":\"2027-01-15T08:00:09Z\"}");
    assert_true(cJSON_Compare(e, want, 1));
    assert_true(ctrl_event_relevant(e, NULL));
    cJSON_Delete(want);
    cJSON_Delete(e);

    /* an events.k8s.io writer: eventTime / series; a long message is cut */
    char big[2000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    char buf[3000];
    (void)snprintf(buf, sizeof(buf),
                   "{\"metadata\":{\"name\":\"e\",\"namespace\":\"ns\"},\"involvedObject\":{"
                   "\"kind\":\"PersistentVolumeClaim\",\"name\":\"b1-fio\"},\"reason\":"
                   "\"ProvisioningFailed\",\"message\":\"%s\",\"eventTime\":"
                   "\"2027-01-15T08:00:00.000001Z\",\"series\":{\"count\":2,\"lastObservedTime\":"
                   "\"2027-01-15T08:05:00.000001Z\"}}",
                   big);
    e = cJSON_Parse(buf);
    ctrl_transform_event(e, NULL);
    assert_string_equal(util_jstr(e, "time"), "2027-01-15T08:05:00.000001Z");
    assert_int_equal(strlen(util_jstr(e, "message")), CTRL_EVENT_MESSAGE_MAX);
    assert_true(ctrl_event_relevant(e, NULL));
    cJSON_Delete(e);

    /* only the three that matter, about children named like ours */
    const char *cases[][3] = {
        {"Pod", "b1-init-abcde", "FailedMount"},
        {"Job", "b1-run", "FailedCreate"},
        {"Job", "b1-init", "FailedCreate"},
        {"Pod", "web-7d9f", "FailedMount"},
        {"Pod", "b1-run-0-x", "BackOff"},
        {"Pod", "b1-run-0-x", "FailedScheduling"},
        {"Job", "nightly", "FailedCreate"},
        {"PersistentVolumeClaim", "data", "ProvisioningFailed"},
        {"Job", "b1-run", "FailedMount"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        (void)snprintf(buf, sizeof(buf),
                       "{\"metadata\":{\"name\":\"e\",\"namespace\":\"ns\"},\"involvedObject\":{"
                       "\"kind\":\"%s\",\"name\":\"%s\"},\"reason\":\"%s\"}",
                       cases[i][0], cases[i][1], cases[i][2]);
        e = cJSON_Parse(buf);
        assert_int_equal(ctrl_event_relevant(e, NULL), i < 3);
        cJSON_Delete(e);
    }
}

/* A run that succeeds after its workers were blocked ends with WorkersBlocked False. */
static void test_blocked_then_succeeded(void **state)
{
    (void)state;
    const char *st =
        "{\"phase\":\"Running\",\"startAt\":\"2027-01-15T08:00:05.000Z\",\"startedGeneration\":1,"
        "\"conditions\":[{\"type\":\"WorkersBlocked\",\"status\":\"True\","
        "\"reason\":\"FailedMount\",\"message\":\"run pod x cannot start\","
        "\"observedGeneration\":1}]}";
    const char *spec = "{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workload\":{\"pgbench\":{"
                       "\"run\":{\"durationSeconds\":30}}}}";
    cJSON *rj = job_with("b1-run", "Complete", "CompletionsReached", 1, NULL);
    struct ctrl_plan p;
    char *st2 = decide_ev(spec, st, NULL, rj, NULL, NULL, 0, NOW + 60, &p);
    assert_string_equal(phase(&p), "Collecting");
    ctrl_plan_free(&p);
    cJSON *br = br_new(spec, st2, 1);
    cJSON *pod = pod_with("b1-run-0-x", 0, 0, NULL);
    struct ctrl_observed o;
    obs_init(&o, br);
    o.now = NOW + 61;
    o.run_job = rj;
    o.pods[0] = pod;
    o.n_pods = 1;
    o.pods_fresh = true; /* as read from the API server */
    o.results_fetched = true;
    o.results[0] = result(0, 100, 3000, true, 0, NULL);
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Succeeded");
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "status"), "False");
    assert_string_equal(util_jstr(cond(&p, "WorkersBlocked"), "reason"), "RunSucceeded");
    ctrl_plan_free(&p);
    cJSON_Delete(o.results[0]);
    cJSON_Delete(pod);
    cJSON_Delete(br);
    cJSON_Delete(rj);
    free(st2);
}

/* While Running: the running workers' log tails are asked for, their records become
 * status.progress and, while one retries its target, TargetUnreachable; both go when the run
 * leaves Running. */
static void test_live_progress(void **state)
{
    (void)state;
    cfg.progress_interval_s = 10;
    struct ctrl_plan p;
    char *st = decide_with(SPEC_BASIC, NULL, NULL, NULL, NULL, NOW, &p);
    ctrl_plan_free(&p);
    cJSON *rj = job_with("b1-run", NULL, NULL, 2, NULL);
    cJSON *pod = running_pod("b1-run-0-x", 0);
    /* 1: the log tail of the running worker is asked for */
    cJSON *br = br_new(SPEC_BASIC, st, 1);
    struct ctrl_observed o;
    obs_init(&o, br);
    o.now = NOW + 20;
    o.run_job = rj;
    o.pods[0] = pod;
    o.n_pods = 1;
    assert_int_equal(decide(&o, &p), 0);
    assert_true(p.needs & CTRL_NEED_PROGRESS);
    assert_int_equal(p.n_progress, 1);
    assert_int_equal(p.progress[0].index, 0);
    assert_string_equal(p.progress[0].pod, "b1-run-0-x");
    ctrl_plan_free(&p);
    /* 2: what it said: progress summed, and worker 1 is not running (no record) */
    struct ctrl_worker_progress wp[2] = {{.progress = true,
                                          .t = 12,
                                          .tps = 800,
                                          .latency_ms = 5,
                                          .failed_total = 0,
                                          .duration_s = 30},
                                         {0}};
    o.progress_fetched = true;
    o.progress = wp;
    o.n_progress = 2;
    assert_int_equal(decide(&o, &p), 0);
    assert_int_equal(p.needs, 0);
    assert_true(util_jnum(p.status, "progress.tps", 0) == 800);
    assert_true(util_jnum(p.status, "progress.remainingSeconds", 0) == 18);
    assert_null(cond(&p, "TargetUnreachable"));
    /* the message is the current state, not the start barrier's */
    assert_string_equal(util_jstr(p.status, "message"),
                        "pgbench runs on 1 of 2 workers: 12 s of 30 s, 800 tps now");
    assert_true(p.requeue_ms > 0 && p.requeue_ms <= 10000);
    char *st2 = cJSON_PrintUnformatted(p.status);
    ctrl_plan_free(&p);
    /* 3: a worker that retries its target: the condition, with one Warning event */
    wp[1] =
        (struct ctrl_worker_progress){.waiting = true, .wait_elapsed_s = 40, .wait_timeout_s = 120};
    (void)snprintf(wp[1].wait_target, sizeof(wp[1].wait_target), "pg:5432/postgres");
    (void)snprintf(wp[1].wait_cause, sizeof(wp[1].wait_cause), "dns");
    (void)snprintf(wp[1].wait_message, sizeof(wp[1].wait_message), "could not translate host name");
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(util_jstr(cond(&p, "TargetUnreachable"), "status"), "True");
    assert_string_equal(util_jstr(cond(&p, "TargetUnreachable"), "message"),
                        "worker 1 waits for pg:5432/postgres: could not translate host name (dns), "
                        "retrying, 40 s of 120 s");
    assert_int_equal(p.n_events, 1);
    assert_string_equal(p.events[0].reason, "TargetUnreachable");
    assert_string_equal(util_jstr(p.status, "message"),
                        util_jstr(cond(&p, "TargetUnreachable"), "message"));
    char *st3 = cJSON_PrintUnformatted(p.status);
    ctrl_plan_free(&p);
    cJSON_Delete(br);
    /* 4: the run Job finished: Collecting, no progress, the condition False */
    cJSON_Delete(rj);
    rj = job_with("b1-run", "Complete", NULL, 2, NULL);
    br = br_new(SPEC_BASIC, st3, 1);
    obs_init(&o, br);
    o.now = NOW + 40;
    o.run_job = rj;
    assert_int_equal(decide(&o, &p), 0);
    assert_string_equal(phase(&p), "Collecting");
    assert_true(cJSON_IsNull(util_jget(p.status, "progress"))); /* removed by the merge patch */
    assert_string_equal(util_jstr(cond(&p, "TargetUnreachable"), "status"), "False");
    ctrl_plan_free(&p);
    cJSON_Delete(br);
    cJSON_Delete(rj);
    cJSON_Delete(pod);
    free(st);
    free(st2);
    free(st3);
    cfg.progress_interval_s = 0;
}

/* A plan holds CTRL_PLAN_MAX_EVENTS Events; those past it are counted, not kept (the executor
 * logs and counts them). */
static void test_plan_event_cap(void **state)
{
    (void)state;
    struct ctrl_plan p;
    memset(&p, 0, sizeof(p));
    for (int i = 0; i < CTRL_PLAN_MAX_EVENTS; i++)
        assert_true(ctrl_plan_event(&p, i % 2 == 0, "R", "event %d", i));
    assert_false(ctrl_plan_event(&p, true, "Late", "one too many"));
    assert_false(ctrl_plan_event(&p, true, "Later", "two too many"));
    assert_int_equal(p.n_events, 8);
    assert_int_equal(p.dropped_events, 2);
    assert_string_equal(p.events[7].message, "event 7");
    assert_false(p.events[7].warning);
    assert_true(p.events[6].warning);
    ctrl_plan_free(&p);
}

/* The Event object sent for a transition: about the run (uid included), named as given, from the
 * operator's component and instance, at the transition's time. */
static void test_event_object(void **state)
{
    (void)state;
    cJSON *br = br_new(SPEC_BASIC, NULL, 1);
    struct ctrl_event e = {.warning = true, .time = 1800000000.0};
    (void)snprintf(e.reason, sizeof(e.reason), "Failed");
    (void)snprintf(e.message, sizeof(e.message), "it broke");
    struct api_config c = cfg;
    c.component = "pgbench-operator";
    c.instance = "op-1";
    cJSON *ev = ctrl_event_object("BenchmarkRun", br, &e, "b1.0123456789abcdef", &c);
    assert_non_null(ev);
    assert_string_equal(util_jstr(ev, "metadata.name"), "b1.0123456789abcdef");
    assert_string_equal(util_jstr(ev, "metadata.namespace"), "ns");
    assert_string_equal(util_jstr(ev, "involvedObject.apiVersion"), "pgbench.dev/v1alpha1");
    assert_string_equal(util_jstr(ev, "involvedObject.kind"), "BenchmarkRun");
    assert_string_equal(util_jstr(ev, "involvedObject.name"), "b1");
    assert_string_equal(util_jstr(ev, "involvedObject.uid"), "u1");
    assert_string_equal(util_jstr(ev, "type"), "Warning");
    assert_string_equal(util_jstr(ev, "reason"), "Failed");
    assert_string_equal(util_jstr(ev, "message"), "it broke");
    assert_string_equal(util_jstr(ev, "source.component"), "pgbench-operator");
    assert_string_equal(util_jstr(ev, "reportingInstance"), "op-1");
    assert_string_equal(util_jstr(ev, "firstTimestamp"), "2027-01-15T08:00:00Z");
    assert_string_equal(util_jstr(ev, "lastTimestamp"), "2027-01-15T08:00:00Z");
    assert_int_equal(util_jnum(ev, "count", 0), 1);
    cJSON_Delete(ev);
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(br, "metadata"), "namespace");
    assert_null(ctrl_event_object("BenchmarkRun", br, &e, "x", &c));
    cJSON_Delete(br);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pending_to_running),
        cmocka_unit_test(test_plan_event_cap),
        cmocka_unit_test(test_event_object),
        cmocka_unit_test(test_running_states),
        cmocka_unit_test(test_collecting_success),
        cmocka_unit_test(test_collecting_worker_failed),
        cmocka_unit_test(test_invalid_spec_and_fix),
        cmocka_unit_test(test_hpa),
        cmocka_unit_test(test_init_flow),
        cmocka_unit_test(test_spec_locked),
        cmocka_unit_test(test_started_by_older_operator),
        cmocka_unit_test(test_create_refused),
        cmocka_unit_test(test_deleting_does_nothing),
        cmocka_unit_test(test_workers_blocked),
        cmocka_unit_test(test_collecting_stale_pod_cache),
        cmocka_unit_test(test_start_barrier),
        cmocka_unit_test(test_workers_share_node),
        cmocka_unit_test(test_start_margin_learned),
        cmocka_unit_test(test_running_pods_succeeded),
        cmocka_unit_test(test_collecting_timing),
        cmocka_unit_test(test_collecting_summary_only),
        cmocka_unit_test(test_status_events),
        cmocka_unit_test(test_live_progress),
        cmocka_unit_test(test_blocked_by_events),
        cmocka_unit_test(test_deadlines),
        cmocka_unit_test(test_blocked_then_succeeded),
        cmocka_unit_test(test_event_transform_and_filter),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
