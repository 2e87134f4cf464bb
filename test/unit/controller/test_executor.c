/* The reconcile executor against an in-process API server: informers list a BenchmarkRun (and no
 * Jobs, Pods or Events), a work queue hands its key to ctrl_exec_run, and the server records
 * every write. The oracle is the server's request log: what was written, in which order, with
 * which body, and the Events handed to the sender afterwards. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/controller/cache.h"
#include "pkg/controller/executor.h"
#include "pkg/util/json.h"
#include "pkg/util/log.h"
#include "test/unit/kube/fake_server.h"

#define BR_PATH "/apis/pgbench.dev/v1alpha1/namespaces/ns/benchmarkruns/b1"
#define JOBS_PATH "/apis/batch/v1/namespaces/ns/jobs"

/* A Pending run that starts right away: the decision creates the run Job, writes status Running
 * and sends the Running Event. */
#define BR_JSON                                                                                    \
    "{\"apiVersion\":\"pgbench.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"            \
    "\"name\":\"b1\",\"namespace\":\"ns\",\"uid\":\"u1\",\"generation\":1,"                        \
    "\"resourceVersion\":\"7\"},\"spec\":{\"target\":{\"host\":\"pg\",\"user\":\"u\","             \
    "\"passwordSecretRef\":{\"name\":\"pw\"}},\"workers\":2,\"workload\":{\"pgbench\":{\"run\":{"  \
    "\"clients\":4,\"durationSeconds\":30}}}}}"

/* The same run Running, its Job made and both worker pods Ready: the decision publishes the start
 * barrier (status, then an annotation on each pod). */
#define BR_RUNNING_JSON                                                                            \
    "{\"apiVersion\":\"pgbench.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"            \
    "\"name\":\"b1\",\"namespace\":\"ns\",\"uid\":\"u1\",\"generation\":1,"                        \
    "\"resourceVersion\":\"7\"},\"spec\":{\"target\":{\"host\":\"pg\",\"user\":\"u\","             \
    "\"passwordSecretRef\":{\"name\":\"pw\"}},\"workers\":2,\"workload\":{\"pgbench\":{\"run\":{"  \
    "\"clients\":4,\"durationSeconds\":30}}}},\"status\":{\"phase\":\"Running\","                  \
    "\"observedGeneration\":1,\"startedGeneration\":1,\"conditions\":[{\"type\":\"Running\","      \
    "\"status\":\"True\",\"reason\":\"Started\",\"message\":\"m\",\"observedGeneration\":1,"       \
    "\"lastTransitionTime\":\"2027-01-15T08:00:00Z\"}]}}"
#define RUN_JOB_JSON                                                                               \
    "{\"metadata\":{\"name\":\"b1-run\",\"namespace\":\"ns\",\"resourceVersion\":\"5\","           \
    "\"labels\":{"                                                                                 \
    "\"pgbench.dev/benchmarkrun\":\"b1\",\"pgbench.dev/role\":\"run\"}},\"spec\":{"                \
    "\"completions\":2},\"status\":{\"active\":2}}"
#define READY_POD_JSON(i)                                                                          \
    "{\"metadata\":{\"name\":\"b1-run-" #i "\",\"namespace\":\"ns\",\"resourceVersion\":\"6\","    \
    "\"labels\":{\"pgbench.dev/benchmarkrun\":\"b1\",\"pgbench.dev/role\":\"run\","                \
    "\"batch.kubernetes.io/job-completion-index\":\"" #i "\"}},\"status\":{\"phase\":\"Running\"," \
    "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}"

/* Issue 31.3: the same run with its barrier published, worker 0's pod Succeeded, worker 1's still
 * running (then Succeeded, a watch event later). */
#define BR_STARTED_JSON                                                                            \
    "{\"apiVersion\":\"pgbench.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{"            \
    "\"name\":\"b1\",\"namespace\":\"ns\",\"uid\":\"u1\",\"generation\":1,"                        \
    "\"resourceVersion\":\"7\"},\"spec\":{\"target\":{\"host\":\"pg\",\"user\":\"u\","             \
    "\"passwordSecretRef\":{\"name\":\"pw\"}},\"workers\":2,\"workload\":{\"pgbench\":{\"run\":{"  \
    "\"clients\":4,\"durationSeconds\":30}}}},\"status\":{\"phase\":\"Running\","                  \
    "\"observedGeneration\":1,\"startedGeneration\":1,\"readyAt\":\"2027-01-15T08:00:01.000Z\","   \
    "\"startAt\":\"2027-01-15T08:00:03.000Z\",\"conditions\":[{\"type\":\"Running\","              \
    "\"status\":\"True\",\"reason\":\"Started\",\"message\":\"m\",\"observedGeneration\":1,"       \
    "\"lastTransitionTime\":\"2027-01-15T08:00:00Z\"}]}}"
#define DONE_POD_JSON(i, rv)                                                                       \
    "{\"metadata\":{\"name\":\"b1-run-" #i "\",\"namespace\":\"ns\",\"resourceVersion\":\"" rv     \
    "\",\"labels\":{\"pgbench.dev/benchmarkrun\":\"b1\",\"pgbench.dev/role\":\"run\","             \
    "\"batch.kubernetes.io/job-completion-index\":\"" #i "\"},\"annotations\":{"                   \
    "\"pgbench.dev/start-at\":\"2027-01-15T08:00:03.000Z\"}},\"status\":{\"phase\":\"Succeeded\"," \
    "\"containerStatuses\":[{\"name\":\"runner\",\"state\":{\"terminated\":{\"exitCode\":0,"       \
    "\"reason\":\"Completed\"}}}]}}"
#define STARTED_POD_JSON(i)                                                                        \
    "{\"metadata\":{\"name\":\"b1-run-" #i "\",\"namespace\":\"ns\",\"resourceVersion\":\"6\","    \
    "\"labels\":{\"pgbench.dev/benchmarkrun\":\"b1\",\"pgbench.dev/role\":\"run\","                \
    "\"batch.kubernetes.io/job-completion-index\":\"" #i "\"},\"annotations\":{"                   \
    "\"pgbench.dev/start-at\":\"2027-01-15T08:00:03.000Z\"}},\"status\":{\"phase\":\"Running\","   \
    "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}"
/* A worker's log: a record, then its result line. */
#define RESULT_LOG(i)                                                                              \
    "{\"msg\":\"pgbench done\"}\n{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":true,"     \
    "\"worker\":" #i ",\"exitCode\":0,\"errors\":[],\"summary\":{\"transactionsProcessed\":100,"   \
    "\"failedTransactions\":0,\"abortedClients\":0,\"tps\":10,\"latencyAvgMs\":2.0,"               \
    "\"latencyStddevMs\":0.5},\"statements\":[]}\n"

#define MAX_LOG 32
#define MAX_HELD 4

struct ctx {
    uv_loop_t loop;
    struct fs_api api;
    struct kube_client *kc;
    struct kube_queue *q;
    struct kube_informer *brs, *jobs, *pods, *events;
    struct kube_enqueue children;
    struct api_config ccfg;
    struct ctrl_exec *x;
    /* the server's side */
    int conflicts; /* status writes still to answer 409 */
    bool refuse_job;
    bool running;                   /* the run is Running with its Job and two Ready pods */
    bool one_done;                  /* ... its barrier published, worker 0's pod Succeeded */
    struct fs_conn *pod_watch;      /* with one_done: the pods' watch, for the test's event */
    bool second_done;               /* with one_done: worker 1's pod Succeeded (the event sent) */
    int result_reads[2];            /* with one_done: reads of each worker's result (its log) */
    struct fs_conn *held[MAX_HELD]; /* pod patches not answered yet */
    int n_held;
    bool refuse_status; /* status writes answer 422 */
    /* the decide hook's side (env.decide, when a test sets it) */
    int decisions;
    char hook_error[200];   /* the error the last decision was given, "" for none */
    char log[MAX_LOG][160]; /* "METHOD path" of every write and every GET of the run */
    int n_log;
    cJSON *patches[4]; /* the status patches, in order */
    int n_patches;
    /* the sender's side */
    char sent[8][160]; /* "reason|Warning|again" */
    int n_events;
    int log_at_event; /* n_log when the first Event was handed over: the first reconcile's
                         writes (the status write queues the key again, as its watch event would
                         have; what that reconcile does is not looked at) */
};

static void add_log(struct ctx *c, const char *method, const char *path)
{
    if (c->n_log < MAX_LOG)
        (void)snprintf(c->log[c->n_log++], sizeof(c->log[0]), "%s %.*s", method,
                       (int)strcspn(path, "?"), path);
}

/* Lists: the run, or nothing; watches: held open without an event. */
static bool list_or_watch(struct ctx *c, struct fs_conn *conn, const struct fs_req *r)
{
    static const char *const lists[] = {"/apis/pgbench.dev/v1alpha1/benchmarkruns?",
                                        "/apis/batch/v1/jobs?", "/api/v1/pods?", "/api/v1/events?",
                                        NULL};
    for (int i = 0; lists[i]; i++) {
        if (strncmp(r->path, lists[i], strlen(lists[i])) != 0)
            continue;
        if (strstr(r->path, "watch=")) {
            fs_stream_begin(conn, 200);
            if (c->one_done && i == 2)
                c->pod_watch = conn;
            return true;
        }
        const char *items[] = {c->one_done  ? BR_STARTED_JSON
                               : c->running ? BR_RUNNING_JSON
                                            : BR_JSON,
                               c->running || c->one_done ? RUN_JOB_JSON : "",
                               c->one_done  ? DONE_POD_JSON(0, "6") "," STARTED_POD_JSON(1)
                               : c->running ? READY_POD_JSON(0) "," READY_POD_JSON(1)
                                            : "",
                               ""};
        char body[8192];
        (void)snprintf(body, sizeof(body),
                       "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{"
                       "\"resourceVersion\":\"7\"},\"items\":[%s]}",
                       items[i]);
        fs_json(conn, 200, body);
        return true;
    }
    return false;
}

static void handler(struct fake_server *s, struct fs_conn *conn, const struct fs_req *r, void *ud)
{
    (void)s;
    struct ctx *c = ud;
    if (!strcmp(r->method, "GET") && list_or_watch(c, conn, r))
        return;
    add_log(c, r->method, r->path);
    if (c->one_done && !strcmp(r->method, "GET") &&
        !strncmp(r->path, "/api/v1/namespaces/ns/pods/b1-run-", 34) && strstr(r->path, "/log?")) {
        int i = r->path[34] - '0';
        if (i == 0 || c->second_done) { /* worker 1 runs until its event */
            c->result_reads[i]++;
            fs_respond(conn, 200, "text/plain", NULL, i == 0 ? RESULT_LOG(0) : RESULT_LOG(1));
        } else {
            fs_respond(conn, 200, "text/plain", NULL, "{\"msg\":\"running\"}\n");
        }
        return;
    }
    if (!strcmp(r->method, "PATCH") && !strncmp(r->path, "/api/v1/namespaces/ns/pods/", 27) &&
        c->n_held < MAX_HELD) {
        c->held[c->n_held++] = conn; /* answered by the test */
        return;
    }
    if (!strcmp(r->method, "GET") && !strncmp(r->path, BR_PATH, strlen(BR_PATH))) {
        fs_json(conn, 200, BR_JSON);
    } else if (!strcmp(r->method, "PATCH") &&
               !strncmp(r->path, BR_PATH "/status?", strlen(BR_PATH "/status?"))) {
        if (c->n_patches < 4)
            c->patches[c->n_patches++] = cJSON_Parse(r->body);
        if (c->conflicts > 0) {
            c->conflicts--;
            fs_status(conn, 409, "Conflict", "the object has been modified");
        } else if (c->refuse_status) {
            fs_status(conn, 422, "Invalid", "status.phase: Unsupported value");
        } else {
            fs_json(conn, 200, BR_JSON);
        }
    } else if (!strcmp(r->method, "POST") &&
               !strncmp(r->path, JOBS_PATH "?", strlen(JOBS_PATH "?"))) {
        if (c->refuse_job)
            fs_status(conn, 422, "Invalid", "Job.batch \\\"b1-run\\\" is invalid: spec: Required");
        else
            fs_json(conn, 201, r->body);
    } else {
        fs_status(conn, 404, "NotFound", "not found");
    }
}

static void send_event(void *ctx, const char *key, const cJSON *br, const struct ctrl_event *e,
                       bool again)
{
    struct ctx *c = ctx;
    assert_string_equal(key, "ns/b1");
    assert_string_equal(util_jstr(br, "metadata.name"), "b1");
    if (c->n_events == 0)
        c->log_at_event = c->n_log;
    if (c->n_events < 8)
        (void)snprintf(c->sent[c->n_events++], sizeof(c->sent[0]), "%s|%s|%s", e->reason,
                       e->warning ? "Warning" : "Normal", again ? "again" : "plan");
}

static void process(struct kube_queue *q, const char *key, void *ud)
{
    (void)q;
    struct ctx *c = ud;
    ctrl_exec_run(c->x, key);
}

/* The decide hook of a controller other than the BenchmarkRun's (ctrl_exec_decide_fn): status
 * phase "Hooked" as a merge patch and the Job b1-run to create; after a refused create, phase
 * "Refused" and nothing to create. */
static int hook_decide(void *ctx, const char *key, const cJSON *obj, const char *error, double now,
                       struct ctrl_plan *plan)
{
    struct ctx *c = ctx;
    (void)now;
    assert_string_equal(key, "ns/b1");
    assert_string_equal(util_jstr(obj, "metadata.name"), "b1");
    c->decisions++;
    (void)snprintf(c->hook_error, sizeof(c->hook_error), "%s", error ? error : "");
    plan->status = cJSON_CreateObject();
    util_jset_str(plan->status, "phase", error ? "Refused" : "Hooked");
    (void)snprintf(plan->phase, sizeof(plan->phase), "%s", error ? "Refused" : "Hooked");
    if (!error) {
        struct ctrl_action *a = &plan->actions[plan->n_actions++];
        a->kind = CTRL_ACT_CREATE;
        a->resource = &KUBE_JOBS;
        (void)snprintf(a->name, sizeof(a->name), "b1-run");
        a->object = cJSON_Parse("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":"
                                "{\"name\":\"b1-run\"}}");
    }
    (void)ctrl_plan_event(plan, false, "Hooked", "decided %d", c->decisions);
    return 0;
}

/* The executor over the fake API server; base_ms: the queue's backoff; hook: env.decide. */
static int setup_with(void **state, long base_ms, bool hook)
{
    struct ctx *c = calloc(1, sizeof(*c));
    assert_non_null(c);
    fs_api_start(&c->api, &c->loop, "t", handler, c, &c->kc);
    log_set_level(LOG_ERROR);
    api_config_defaults(&c->ccfg);
    struct kube_queue_opts qo = {.workers = 1, .base_ms = base_ms, .max_ms = base_ms};
    assert_int_equal(kube_queue_new(&c->loop, &qo, process, c, &c->q), 0);
    struct kube_informer_handlers h = {0};
    assert_int_equal(kube_informer_new(c->kc, &API_BENCHMARKRUNS, NULL, NULL, &h, c, &c->brs), 0);
    assert_int_equal(kube_informer_new(c->kc, &KUBE_JOBS, NULL, NULL, &h, c, &c->jobs), 0);
    /* pods indexed by their run, as the controller keeps them (a reconcile reads its own) */
    c->children = (struct kube_enqueue){.q = c->q, .owner_label = API_LABEL_RUN};
    assert_int_equal(kube_informer_enqueue(c->kc, &KUBE_PODS, NULL, &c->children,
                                           ctrl_transform_pod, true, &c->pods),
                     0);
    assert_int_equal(kube_informer_new(c->kc, &KUBE_EVENTS, NULL, NULL, &h, c, &c->events), 0);
    struct ctrl_exec_env env = {.loop = &c->loop,
                                .kc = c->kc,
                                .q = c->q,
                                .resource = &API_BENCHMARKRUNS,
                                .objs = c->brs,
                                .transform = NULL,
                                .decide = hook ? hook_decide : NULL,
                                .jobs = c->jobs,
                                .pods = c->pods,
                                .events = c->events,
                                .cfg = &c->ccfg,
                                .status_events = hook ? NULL : ctrl_status_events,
                                .send_event = send_event,
                                .ctx = c};
    c->x = ctrl_exec_new(&env);
    *state = c;
    return 0;
}

static int setup(void **state)
{
    return setup_with(state, 60000, false);
}

/* A queue whose backoff is 10 ms: a reconcile retried with backoff comes back at once. */
static int setup_fast_backoff(void **state)
{
    return setup_with(state, 10, false);
}

static int setup_hook(void **state)
{
    return setup_with(state, 60000, true);
}

static int teardown(void **state)
{
    struct ctx *c = *state;
    /* as the operator does: the controller's parts, then the client (cancelling what is left) */
    kube_queue_shutdown(c->q);
    ctrl_exec_free(c->x);
    kube_informer_free(c->brs);
    kube_informer_free(c->jobs);
    kube_informer_free(c->pods);
    kube_informer_free(c->events);
    kube_queue_free(c->q);
    fs_api_stop(&c->api, c->kc);
    for (int i = 0; i < c->n_patches; i++)
        cJSON_Delete(c->patches[i]);
    free(c);
    return 0;
}

/* Runs the loop until cond(c) holds (at most about 5 s). */
static void run_until(struct ctx *c, bool (*cond)(const struct ctx *))
{
    for (int i = 0; i < 5000 && !cond(c); i++) {
        uv_run(&c->loop, UV_RUN_NOWAIT);
        uv_sleep(1);
    }
    assert_true(cond(c));
}

static bool synced(const struct ctx *c)
{
    return kube_informer_synced(c->brs) && kube_informer_synced(c->jobs) &&
           kube_informer_synced(c->pods) && kube_informer_synced(c->events);
}

static bool evented(const struct ctx *c)
{
    return c->n_events > 0;
}

/* The four caches started and synced. */
static void start_synced(struct ctx *c)
{
    assert_int_equal(kube_informer_start(c->brs), 0);
    assert_int_equal(kube_informer_start(c->jobs), 0);
    assert_int_equal(kube_informer_start(c->pods), 0);
    assert_int_equal(kube_informer_start(c->events), 0);
    run_until(c, synced);
}

static void start_and_reconcile(struct ctx *c)
{
    start_synced(c);
    kube_queue_add(c->q, "ns/b1");
    run_until(c, evented);
}

/* Issue 31.4: a run entering Running creates its Job first (one round trip after the decision,
 * as a Job created directly), then STATUS, then EVENTS: the status patch carries the observed
 * resourceVersion, and the Event is handed over last. */
static void test_create_first_then_status_then_events(void **state)
{
    struct ctx *c = *state;
    start_and_reconcile(c);
    assert_int_equal(c->log_at_event, 2);
    assert_string_equal(c->log[0], "POST " JOBS_PATH);
    assert_string_equal(c->log[1], "PATCH " BR_PATH "/status");
    assert_string_equal(util_jstr(c->patches[0], "metadata.resourceVersion"), "7");
    assert_string_equal(util_jstr(c->patches[0], "status.phase"), "Running");
    assert_string_equal(c->sent[0], "Running|Normal|plan");
    const struct ctrl_exec_stats *st = ctrl_exec_stats(c->x);
    assert_true(st->reconciles >= 1);
    assert_int_equal(st->reconcile_errors, 0);
    assert_true(st->status_writes >= 1);
    assert_int_equal(st->creates, 1);
    assert_int_equal(st->conflicts, 0);
    assert_int_equal(st->dropped_events + st->dropped_actions, 0);
}

/* A 409 on the status write after the Job was created: the run is read again from the API server
 * and decided again (the same start), then written; the Job is not created twice (the create made
 * moments ago is expected, not sent again). */
static void test_conflict_reads_again(void **state)
{
    struct ctx *c = *state;
    c->conflicts = 1;
    start_and_reconcile(c);
    assert_int_equal(c->log_at_event, 4);
    assert_string_equal(c->log[0], "POST " JOBS_PATH);
    assert_string_equal(c->log[1], "PATCH " BR_PATH "/status");
    assert_string_equal(c->log[2], "GET " BR_PATH);
    assert_string_equal(c->log[3], "PATCH " BR_PATH "/status");
    const struct ctrl_exec_stats *st = ctrl_exec_stats(c->x);
    assert_int_equal(st->creates, 1);
    assert_int_equal(st->conflicts, 1);
    assert_int_equal(st->reconcile_errors, 0);
    assert_string_equal(c->sent[0], "Running|Normal|plan");
}

/* A create refused for good (422) fails the run with the server's words: the next decision
 * writes phase Failed, reason CreateFailed (the Running status of the refused start is never
 * written), and sends a Warning Event. */
static void test_refused_create_fails_the_run(void **state)
{
    struct ctx *c = *state;
    c->refuse_job = true;
    start_and_reconcile(c);
    assert_int_equal(c->log_at_event, 2);
    assert_string_equal(c->log[0], "POST " JOBS_PATH);
    assert_string_equal(c->log[1], "PATCH " BR_PATH "/status");
    assert_true(c->n_patches >= 1);
    assert_string_equal(util_jstr(c->patches[0], "status.phase"), "Failed");
    const cJSON *cond;
    const char *reason = NULL, *message = NULL;
    cJSON_ArrayForEach(cond, util_jget(c->patches[0], "status.conditions"))
    {
        if (strcmp(util_jstr(cond, "type"), "Failed") == 0) {
            reason = util_jstr(cond, "reason");
            message = util_jstr(cond, "message");
        }
    }
    assert_non_null(reason);
    assert_string_equal(reason, "CreateFailed");
    assert_true(message && strstr(message, "b1-run"));
    assert_true(message && strstr(message, "spec: Required"));
    assert_string_equal(c->sent[0], "Failed|Warning|plan");
    assert_true(ctrl_exec_stats(c->x)->write_errors >= 1);
}

/* A status write refused for good (422) ends the reconcile as an error that is not retried with
 * backoff: with a 10 ms backoff, no second write follows the Job's create (made first) and the
 * refused write in 300 ms. */
static void test_refused_status_not_retried(void **state)
{
    struct ctx *c = *state;
    c->refuse_status = true;
    start_synced(c);
    kube_queue_add(c->q, "ns/b1");
    for (int i = 0; i < 300; i++) {
        uv_run(&c->loop, UV_RUN_NOWAIT);
        uv_sleep(1);
    }
    const struct ctrl_exec_stats *st = ctrl_exec_stats(c->x);
    assert_int_equal(st->reconciles, 1);
    assert_int_equal(st->reconcile_errors, 1);
    assert_int_equal(st->write_errors, 1);
    assert_int_equal(c->n_log, 2);
    assert_string_equal(c->log[0], "POST " JOBS_PATH);
    assert_string_equal(c->log[1], "PATCH " BR_PATH "/status");
    assert_int_equal(c->n_events, 0);
}

/* The same write semantics for a controller with its own decide hook: its status patch goes to
 * /status with the observed resourceVersion, a 409 reads the object again and asks the hook again
 * (not only requeues), the create follows the write, then the plan's Event. */
static void test_hook_conflict_decides_again(void **state)
{
    struct ctx *c = *state;
    c->conflicts = 1;
    start_and_reconcile(c);
    assert_int_equal(c->log_at_event, 4);
    assert_string_equal(c->log[0], "PATCH " BR_PATH "/status");
    assert_string_equal(c->log[1], "GET " BR_PATH);
    assert_string_equal(c->log[2], "PATCH " BR_PATH "/status");
    assert_string_equal(c->log[3], "POST " JOBS_PATH);
    assert_int_equal(c->decisions, 2);
    assert_string_equal(util_jstr(c->patches[1], "metadata.resourceVersion"), "7");
    assert_string_equal(util_jstr(c->patches[1], "status.phase"), "Hooked");
    assert_string_equal(c->sent[0], "Hooked|Normal|plan"); /* no Events implied by a run status */
    assert_int_equal(ctrl_exec_stats(c->x)->conflicts, 1);
}

/* A create refused for good is handed to the hook as the error, in the server's words. */
static void test_hook_refused_create(void **state)
{
    struct ctx *c = *state;
    c->refuse_job = true;
    start_and_reconcile(c);
    assert_int_equal(c->decisions, 2);
    assert_non_null(strstr(c->hook_error, "creating Job b1-run: "));
    assert_non_null(strstr(c->hook_error, "spec: Required"));
    assert_true(c->n_patches >= 2);
    assert_string_equal(util_jstr(c->patches[1], "status.phase"), "Refused");
}

static bool two_held(const struct ctx *c)
{
    return c->n_held == 2;
}

/* Issue 31.3: the start barrier goes onto every worker pod at once (the workers start at the last
 * pod's kubelet refresh), after the status that holds it: both patches are in flight before
 * either is answered; a pod gone (404) is fine. */
static void test_barrier_patches_in_parallel(void **state)
{
    struct ctx *c = *state;
    c->running = true;
    start_synced(c);
    kube_queue_add(c->q, "ns/b1");
    run_until(c, two_held);
    /* the writes, after the progress reads of the workers' logs (404 here) */
    char w[3][160] = {"", "", ""};
    int n = 0;
    for (int i = 0; i < c->n_log; i++)
        if (strncmp(c->log[i], "GET ", 4) != 0 && n++ < 3)
            (void)snprintf(w[n - 1], sizeof(w[0]), "%s", c->log[i]);
    assert_int_equal(n, 3);
    assert_string_equal(w[0], "PATCH " BR_PATH "/status");
    assert_non_null(util_jstr(c->patches[0], "status.readyAt"));
    assert_non_null(util_jstr(c->patches[0], "status.startAt"));
    /* in either order: they are in flight together */
    bool first0 = strcmp(w[1], "PATCH /api/v1/namespaces/ns/pods/b1-run-0") == 0;
    assert_string_equal(w[first0 ? 1 : 2], "PATCH /api/v1/namespaces/ns/pods/b1-run-0");
    assert_string_equal(w[first0 ? 2 : 1], "PATCH /api/v1/namespaces/ns/pods/b1-run-1");
    assert_int_equal(ctrl_exec_inflight(c->x), 1);
    fs_status(c->held[1], 404, "NotFound", "pods \"b1-run-1\" not found");
    for (int i = 0; i < 50; i++) {
        uv_run(&c->loop, UV_RUN_NOWAIT);
        uv_sleep(1);
    }
    assert_int_equal(ctrl_exec_inflight(c->x), 1); /* the other patch is still out */
    fs_json(c->held[0], 200, READY_POD_JSON(0));
    for (int i = 0; i < 5000 && ctrl_exec_inflight(c->x) > 0; i++) {
        uv_run(&c->loop, UV_RUN_NOWAIT);
        uv_sleep(1);
    }
    assert_int_equal(ctrl_exec_inflight(c->x), 0);
    const struct ctrl_exec_stats *st = ctrl_exec_stats(c->x);
    assert_int_equal(st->write_errors, 0);
    assert_int_equal(st->reconcile_errors, 0);
}

static bool first_result_read(const struct ctx *c)
{
    return c->result_reads[0] == 1 && ctrl_exec_inflight(c->x) == 0;
}

static bool ended(const struct ctx *c)
{
    for (int i = 0; i < c->n_patches; i++)
        if (!strcmp(util_jstr(c->patches[i], "status.phase"), "Succeeded"))
            return ctrl_exec_inflight(c->x) == 0;
    return false;
}

/* Issue 31.3: a worker's result is read as soon as its pod Succeeded, while the other runs, and
 * kept; when the last pod Succeeded only its log is read, and the run ends with both results. */
static void test_result_read_when_pod_ends(void **state)
{
    struct ctx *c = *state;
    c->one_done = true;
    start_synced(c);
    kube_queue_add(c->q, "ns/b1");
    run_until(c, first_result_read);
    assert_int_equal(c->result_reads[1], 0);
    for (int i = 0; i < c->n_patches; i++) /* progress at most: still Running */
        assert_string_equal(util_jstr(c->patches[i], "status.phase"), "Running");
    assert_non_null(c->pod_watch);
    c->second_done = true;
    const char *ev = "{\"type\":\"MODIFIED\",\"object\":" DONE_POD_JSON(1, "9") "}\n";
    fs_stream_chunk(c->pod_watch, ev, strlen(ev));
    run_until(c, ended);
    assert_int_equal(c->result_reads[0], 1); /* kept, not read again */
    assert_int_equal(c->result_reads[1], 1);
    const cJSON *last = c->patches[c->n_patches - 1];
    assert_string_equal(util_jstr(last, "status.phase"), "Succeeded");
    assert_int_equal(util_jnum(last, "status.summary.transactions", 0), 200);
    assert_int_equal(ctrl_exec_stats(c->x)->reconcile_errors, 0);
}

static void test_state_names(void **state)
{
    (void)state;
    assert_string_equal(ctrl_exec_state_name(CTRL_EXEC_DECIDE), "decide");
    assert_string_equal(ctrl_exec_state_name(CTRL_EXEC_STATUS), "status");
    assert_string_equal(ctrl_exec_state_name(CTRL_EXEC_DONE), "done");
    assert_string_equal(ctrl_exec_state_name((enum ctrl_exec_state)99), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_first_then_status_then_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_barrier_patches_in_parallel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conflict_reads_again, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_create_fails_the_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_status_not_retried, setup_fast_backoff,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_hook_conflict_decides_again, setup_hook, teardown),
        cmocka_unit_test_setup_teardown(test_hook_refused_create, setup_hook, teardown),
        cmocka_unit_test_setup_teardown(test_result_read_when_pod_ends, setup, teardown),
        cmocka_unit_test(test_state_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
