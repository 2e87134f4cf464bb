/* BenchmarkSweep planning: the spec (values, ranges, validation through the BenchmarkRun parser),
 * the runs it creates (names, init once, ownerReference), the step walk (one run at a time,
 * resuming from status after a restart, failed steps recorded, stopWhen), the numbers of status
 * (means and spreads computed here by hand) and the merge patch of a status change. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/api/manifest.h"
#include "pkg/util/json.h"
#include "pkg/controller/cache.h"
#include "pkg/controller/sweep.h"
#include "test/unit/bench/status_rows.h"

#define NOW 1800000000.0

static const char *TEMPLATE =
    "{\"target\":{\"host\":\"db\",\"user\":\"app\"},"
    "\"workload\":{\"pgbench\":{\"init\":{\"scale\":1},\"run\":{\"clients\":1,"
    "\"durationSeconds\":2}}}}";

/* A sweep named "sw" with vary/stopWhen/repeats from extra (JSON members, no braces). */
static cJSON *make_sweep(const char *extra, const char *status)
{
    char buf[4096];
    (void)snprintf(buf, sizeof(buf),
                   "{\"metadata\":{\"name\":\"sw\",\"namespace\":\"ns\",\"uid\":\"u-1\","
                   "\"generation\":1,\"resourceVersion\":\"5\"},"
                   "\"spec\":{\"template\":%s,%s}%s%s}",
                   TEMPLATE, extra, status ? ",\"status\":" : "", status ? status : "");
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    return j;
}

static cJSON *make_run(const char *name, const char *phase, double tps, double p99, long failed,
                       long aborted)
{
    char buf[1024], ab[32] = ""; /* status has summary.aborted only when not 0 */
    if (aborted)
        (void)snprintf(ab, sizeof(ab), ",\"aborted\":%ld", aborted);
    (void)snprintf(buf, sizeof(buf),
                   "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns\",\"labels\":"
                   "{\"pgbench.dev/sweep\":\"sw\"}},\"status\":{\"phase\":\"%s\","
                   "\"message\":\"m-%s\",\"clients\":1,\"summary\":{\"tps\":%g,"
                   "\"latencyMs\":{\"avg\":10.15,\"p50\":3.25,\"p90\":3.5,\"p99\":%g},"
                   "\"transactions\":1000,\"failed\":%ld%s},"
                   "\"diagnostics\":{\"littlesLaw\":\"1 client / 10.15 ms predict 98.5 tps\","
                   "\"waitEvents\":\"IO:WALSync 61 %%, CPU 30 %% of 10 backend samples in 10 "
                   "rounds\"}}}",
                   name, phase, name, tps, p99, failed, ab);
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    return j;
}

/* The sweep's run cache keeps what the entries copy and the statistics read, and drops the rest. */
static void test_run_cache_keeps_what_entries_read(void **state)
{
    (void)state;
    cJSON *run = make_run("sw-s0-r0", "Succeeded", 100, 4, 2, 1);
    ctrl_transform_sweep_run(run, NULL);
    assert_true(util_jnum(run, "status.summary.latencyMs.p50", 0) == 3.25);
    assert_true(util_jnum(run, "status.summary.latencyMs.p99", 0) == 4);
    assert_true(util_jnum(run, "status.summary.aborted", 0) == 1);
    assert_non_null(util_jget(run, "status.diagnostics.waitEvents"));
    assert_null(util_jget(run, "status.summary.latencyMs.p90"));  /* nobody reads it */
    assert_null(util_jget(run, "status.diagnostics.littlesLaw")); /* computed again */
    cJSON_Delete(run);
}

static void test_range(void **state)
{
    (void)state;
    double v[API_SWEEP_MAX_STEPS];
    assert_int_equal(api_sweep_range(1, 64, 2, true, v, API_SWEEP_MAX_STEPS), 7);
    assert_true(v[0] == 1 && v[3] == 8 && v[6] == 64);
    /* the last value is always `to` */
    assert_int_equal(api_sweep_range(1, 10, 2, true, v, API_SWEEP_MAX_STEPS), 5);
    assert_true(v[3] == 8 && v[4] == 10);
    /* rounding to whole numbers drops duplicates: 1, 1.5->2, 2.25->2, 3.375->3, then 5 */
    assert_int_equal(api_sweep_range(1, 5, 1.5, true, v, API_SWEEP_MAX_STEPS), 4);
    assert_true(v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == 5);
    /* rate: not rounded */
    assert_int_equal(api_sweep_range(100, 250, 1.5, false, v, API_SWEEP_MAX_STEPS), 4);
    assert_true(v[1] == 150 && v[2] == 225 && v[3] == 250);
    assert_int_equal(api_sweep_range(1, 1e9, 1.1, true, v, API_SWEEP_MAX_STEPS), -E2BIG);
}

static void expect_refused(const char *extra, const char *needle)
{
    cJSON *sw = make_sweep(extra, NULL);
    struct api_sweep_spec s;
    char err[700] = "";
    assert_int_equal(api_sweep_spec_parse(util_jget(sw, "spec"), &s, err, sizeof(err)), -EINVAL);
    if (!strstr(err, needle))
        fail_msg("%s: error \"%s\" lacks \"%s\"", extra, err, needle);
    cJSON_Delete(sw);
}

static void test_spec(void **state)
{
    (void)state;
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"clients\",\"range\":{\"from\":1,\"to\":8}},"
                           "\"repeats\":2,\"stopWhen\":{\"p99Ms\":50,\"abortedClients\":1}",
                           NULL);
    struct api_sweep_spec s;
    char err[700] = "";
    assert_int_equal(api_sweep_spec_parse(util_jget(sw, "spec"), &s, err, sizeof(err)), 0);
    assert_int_equal(s.field, API_SWEEP_CLIENTS);
    assert_int_equal(s.n_values, 4); /* factor defaults to 2 */
    assert_true(s.values[3] == 8);
    assert_int_equal(s.repeats, 2);
    assert_true(s.stop_p99 && s.stop_p99_ms == 50 && s.stop_aborted && !s.stop_failed);
    cJSON_Delete(sw);

    expect_refused("\"vary\":{\"field\":\"clients\",\"values\":[1,2],\"range\":{\"from\":1,"
                   "\"to\":2}}",
                   "exactly one of values or range");
    expect_refused("\"vary\":{\"field\":\"threads\",\"values\":[1]}", "spec.vary.field");
    expect_refused("\"vary\":{\"field\":\"clients\",\"values\":[1,2.5]}",
                   "spec.vary.values[1]: a whole number");
    expect_refused("\"vary\":{\"field\":\"clients\",\"values\":[1]},\"repeats\":11",
                   "spec.repeats");
}

static void test_step_spec_checked_by_run_parser(void **state)
{
    (void)state;
    /* workers 3 with 2 clients: refused by api_spec_parse, named with the step */
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"workers\",\"values\":[1,3]}", NULL);
    struct api_sweep_spec s;
    char err[700] = "";
    assert_int_equal(api_sweep_spec_parse(util_jget(sw, "spec"), &s, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "spec.template (step 2, workers=3)"));
    cJSON_Delete(sw);
}

static void test_run_object(void **state)
{
    (void)state;
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[2,4]},\"repeats\":2", NULL);
    struct api_sweep_spec s;
    char err[700];
    assert_int_equal(api_sweep_spec_parse(util_jget(sw, "spec"), &s, err, sizeof(err)), 0);
    cJSON *r0 = api_sweep_run_object(sw, &s, 0, 0);
    assert_string_equal(util_jstr(r0, "metadata.name"), "sw-s0-r0");
    assert_string_equal(util_jstr(r0, "metadata.namespace"), "ns");
    assert_string_equal(util_jkey(util_jget(r0, "metadata.labels"), API_LABEL_SWEEP), "sw");
    assert_true(util_jnum(r0, "spec.workload.pgbench.run.clients", 0) == 2);
    assert_non_null(util_jget(r0, "spec.workload.pgbench.init")); /* init runs once: first run */
    const cJSON *ref = cJSON_GetArrayItem(util_jget(r0, "metadata.ownerReferences"), 0);
    assert_string_equal(util_jstr(ref, "kind"), "BenchmarkSweep");
    assert_string_equal(util_jstr(ref, "uid"), "u-1");
    assert_true(cJSON_IsTrue(util_jget(ref, "controller")));
    cJSON *r1 = api_sweep_run_object(sw, &s, 0, 1);
    assert_string_equal(util_jstr(r1, "metadata.name"), "sw-s0-r1");
    assert_null(util_jget(r1, "spec.workload.pgbench.init"));
    cJSON *r2 = api_sweep_run_object(sw, &s, 1, 0);
    assert_string_equal(util_jstr(r2, "metadata.name"), "sw-s1-r0");
    assert_true(util_jnum(r2, "spec.workload.pgbench.run.clients", 0) == 4);
    assert_null(util_jget(r2, "spec.workload.pgbench.init"));
    /* the template itself is untouched */
    assert_true(util_jnum(sw, "spec.template.workload.pgbench.run.clients", 0) == 1);
    cJSON_Delete(r0);
    cJSON_Delete(r1);
    cJSON_Delete(r2);
    cJSON_Delete(sw);
}

/* Decides with runs, applies the status to the sweep (as the API server would), returns the
 * name of the run the plan creates ("" when none) in out. */
static void step(cJSON *sw, cJSON **runs, int n, struct ctrl_sweep_plan *p)
{
    ctrl_sweep_decide(sw, (const cJSON *const *)runs, n, NOW, p);
    if (p->status) {
        assert_sweep_status_keys_have_rows(p->status);
        util_jset(sw, "status", cJSON_Duplicate(p->status, 1));
    }
}

static const char *created(const struct ctrl_sweep_plan *p)
{
    return p->create ? util_jstr(p->create, "metadata.name") : "";
}

static void test_walk_one_at_a_time(void **state)
{
    (void)state;
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[1,2,4]}", NULL);
    cJSON *runs[3] = {0};
    struct ctrl_sweep_plan p;

    step(sw, runs, 0, &p);
    assert_string_equal(created(&p), "sw-s0-r0");
    assert_string_equal(p.phase, "Running");
    assert_string_equal(util_jstr(sw, "status.stepText"), "1/3");
    assert_string_equal(util_jstr(sw, "status.currentRun"), "sw-s0-r0");
    assert_true(p.requeue_ms > 0);
    ctrl_sweep_plan_free(&p);

    /* the cache has not seen the create yet: the same run again (409 is fine), never the next */
    step(sw, runs, 0, &p);
    assert_string_equal(created(&p), "sw-s0-r0");
    assert_null(p.status); /* nothing changed */
    ctrl_sweep_plan_free(&p);

    runs[0] = make_run("sw-s0-r0", "Running", 0, 0, 0, 0);
    step(sw, runs, 1, &p);
    assert_string_equal(created(&p), "");
    ctrl_sweep_plan_free(&p);

    cJSON_Delete(runs[0]);
    runs[0] = make_run("sw-s0-r0", "Succeeded", 100, 5, 0, 0);
    step(sw, runs, 1, &p);
    assert_string_equal(created(&p), "sw-s1-r0");
    assert_null(util_jget(p.create, "spec.workload.pgbench.init"));
    assert_string_equal(util_jstr(sw, "status.stepText"), "2/3");
    const cJSON *s0 = cJSON_GetArrayItem(util_jget(sw, "status.steps"), 0);
    assert_string_equal(util_jstr(s0, "phase"), "Succeeded");
    assert_true(util_jnum(s0, "tpsMean", 0) == 100);
    /* 1 client at 10.15 ms predicts 98.522 tps: 100 measured is 1.5 % above */
    assert_true(util_jnum(s0, "littlesLawDeviationPct", 0) == 1.5);
    const cJSON *e0 = cJSON_GetArrayItem(util_jget(s0, "runs"), 0);
    assert_string_equal(util_jstr(e0, "waitEvent"), "IO:WALSync");
    assert_true(util_jnum(e0, "waitPct", 0) == 61);
    ctrl_sweep_plan_free(&p);

    /* a failed step is recorded and the sweep goes on */
    runs[1] = make_run("sw-s1-r0", "Failed", 0, 0, 0, 2);
    step(sw, runs, 2, &p);
    assert_string_equal(created(&p), "sw-s2-r0");
    const cJSON *s1 = cJSON_GetArrayItem(util_jget(sw, "status.steps"), 1);
    assert_string_equal(util_jstr(s1, "phase"), "Failed");
    assert_string_equal(util_jstr(cJSON_GetArrayItem(util_jget(s1, "runs"), 0), "message"),
                        "m-sw-s1-r0");
    ctrl_sweep_plan_free(&p);

    runs[2] = make_run("sw-s2-r0", "Succeeded", 300, 9, 0, 0);
    step(sw, runs, 3, &p);
    assert_string_equal(created(&p), "");
    assert_string_equal(p.phase, "Succeeded");
    assert_null(util_jget(sw, "status.currentRun"));
    assert_non_null(util_jget(sw, "status.completionTime"));
    assert_true(util_jnum(sw, "status.analysis.peakTps", 0) == 300);
    assert_true(util_jnum(sw, "status.analysis.peakAt", 0) == 4);
    ctrl_sweep_plan_free(&p);

    /* terminal: nothing more, whatever happens to the runs */
    step(sw, runs, 0, &p);
    assert_null(p.status);
    assert_null(p.create);
    ctrl_sweep_plan_free(&p);
    for (int i = 0; i < 3; i++)
        cJSON_Delete(runs[i]);
    cJSON_Delete(sw);
}

static void test_restart_resumes_from_status(void **state)
{
    (void)state;
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[1,2,4]}", NULL);
    cJSON *runs[2] = {make_run("sw-s0-r0", "Succeeded", 100, 5, 0, 0), NULL};
    struct ctrl_sweep_plan p;
    step(sw, runs, 1, &p);
    assert_string_equal(created(&p), "sw-s1-r0");
    ctrl_sweep_plan_free(&p);
    /* a new process: the first run has been deleted since (its numbers are in status), the second
     * is running: no run is created again, the recorded numbers stay */
    cJSON_Delete(runs[0]);
    runs[0] = make_run("sw-s1-r0", "Running", 0, 0, 0, 0);
    step(sw, runs, 1, &p);
    assert_string_equal(created(&p), "");
    assert_string_equal(p.phase, "Running");
    assert_string_equal(util_jstr(sw, "status.currentRun"), "sw-s1-r0");
    const cJSON *s0 = cJSON_GetArrayItem(util_jget(sw, "status.steps"), 0);
    assert_true(util_jnum(s0, "tpsMean", 0) == 100);
    ctrl_sweep_plan_free(&p);
    cJSON_Delete(runs[0]);
    cJSON_Delete(sw);
}

static void test_repeats_mean_and_spread(void **state)
{
    (void)state;
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[1,2]},\"repeats\":2", NULL);
    cJSON *runs[4] = {make_run("sw-s0-r0", "Succeeded", 100, 4, 0, 0),
                      make_run("sw-s0-r1", "Succeeded", 110, 6, 0, 0), NULL, NULL};
    struct ctrl_sweep_plan p;
    step(sw, runs, 2, &p);
    assert_string_equal(created(&p), "sw-s1-r0");
    assert_null(util_jget(p.create, "spec.workload.pgbench.init"));
    const cJSON *s0 = cJSON_GetArrayItem(util_jget(sw, "status.steps"), 0);
    /* mean 105, sample standard deviation sqrt(((-5)^2 + 5^2) / 1) = 7.0711 */
    assert_true(util_jnum(s0, "tpsMean", 0) == 105);
    assert_true(fabs(util_jnum(s0, "tpsStddev", 0) - 7.0711) < 1e-3);
    assert_true(util_jnum(s0, "latencyMs.p99Mean", 0) == 5);
    assert_int_equal(cJSON_GetArraySize(util_jget(s0, "runs")), 2);
    /* the run's median, copied into its entry (sweep_fields.def's from column) */
    assert_true(util_jnum(cJSON_GetArrayItem(util_jget(s0, "runs"), 0), "latencyMs.p50", 0) ==
                3.25);
    /* no client aborted: the run's status leaves summary.aborted out, the step's entry says 0 */
    assert_int_equal(util_jnum(cJSON_GetArrayItem(util_jget(s0, "runs"), 0), "aborted", -1), 0);
    ctrl_sweep_plan_free(&p);
    for (int i = 0; i < 4; i++)
        cJSON_Delete(runs[i]);
    cJSON_Delete(sw);
}

static void test_stop_when(void **state)
{
    (void)state;
    static const struct {
        const char *stop;
        double p99;
        long failed, aborted;
        const char *want;
    } cases[] = {
        {"{\"p99Ms\":20}", 25, 0, 0, "stopWhen.p99Ms: run sw-s1-r0 had p99 25.00 ms"},
        {"{\"failedPct\":1}", 5, 20, 0, "stopWhen.failedPct: run sw-s1-r0 failed 1.96 %"},
        {"{\"abortedClients\":2}", 5, 0, 2, "stopWhen.abortedClients: run sw-s1-r0 had 2"},
        {"{\"p99Ms\":20,\"failedPct\":5,\"abortedClients\":3}", 5, 20, 2, NULL},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        char extra[256];
        (void)snprintf(extra, sizeof(extra),
                       "\"vary\":{\"field\":\"clients\",\"values\":[1,2,4]},\"stopWhen\":%s",
                       cases[c].stop);
        cJSON *sw = make_sweep(extra, NULL);
        cJSON *runs[2] = {make_run("sw-s0-r0", "Succeeded", 100, 5, 0, 0),
                          make_run("sw-s1-r0", cases[c].aborted ? "Failed" : "Succeeded", 150,
                                   cases[c].p99, cases[c].failed, cases[c].aborted)};
        struct ctrl_sweep_plan p;
        step(sw, runs, 2, &p);
        if (cases[c].want) {
            assert_string_equal(p.phase, "Stopped");
            assert_string_equal(created(&p), "");
            const char *why = util_jstr(sw, "status.stopReason");
            if (!why || !strstr(why, cases[c].want))
                fail_msg("case %zu: stopReason \"%s\"", c, why ? why : "(none)");
            assert_string_equal(util_jstr(sw, "status.stepText"), "2/3");
        } else {
            assert_string_equal(p.phase, "Running");
            assert_string_equal(created(&p), "sw-s2-r0");
        }
        ctrl_sweep_plan_free(&p);
        cJSON_Delete(runs[0]);
        cJSON_Delete(runs[1]);
        cJSON_Delete(sw);
    }
}

/* X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1)) at N = 1 .. 64 */
static double usl(double n)
{
    return 1000 * n / (1 + 0.05 * (n - 1) + 0.002 * n * (n - 1));
}

static void test_analysis(void **state)
{
    (void)state;
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[1,2,4,8,16,32,64]}", NULL);
    cJSON *runs[7];
    static const double p99[7] = {2, 2.1, 2.3, 2.6, 3, 20, 80};
    for (int i = 0; i < 7; i++) {
        char name[32];
        (void)snprintf(name, sizeof(name), "sw-s%d-r0", i);
        runs[i] = make_run(name, "Succeeded", usl(1 << i), p99[i], 0, 0);
    }
    struct ctrl_sweep_plan p;
    step(sw, runs, 7, &p);
    assert_string_equal(p.phase, "Succeeded");
    const cJSON *a = util_jget(sw, "status.analysis");
    /* the peak measured: the largest of the seven values, found by scanning them here */
    double best = 0, at = 0;
    for (int i = 0; i < 7; i++)
        if (usl(1 << i) > best) {
            best = usl(1 << i);
            at = 1 << i;
        }
    assert_true(fabs(util_jnum(a, "peakTps", 0) - best) < best * 1e-5); /* %g in make_run */
    assert_true(util_jnum(a, "peakAt", 0) == at);
    assert_true(cJSON_IsTrue(util_jget(a, "usl.ok")));
    assert_true(fabs(util_jnum(a, "usl.lambda", 0) - 1000) < 20);
    assert_true(fabs(util_jnum(a, "usl.kappa", 0) - 0.002) < 0.0001);
    /* N* = sqrt((1 - 0.05) / 0.002) = 21.79 */
    assert_true(fabs(util_jnum(a, "usl.peakClients", 0) - 21.79) < 0.5);
    /* p99 2.6 -> 3 at 16 is +15 % for +(usl16/usl8 - 1) tps; 3 -> 20 at 32 is the knee */
    assert_true(util_jnum(a, "kneeAt", 0) == 32);
    assert_string_equal(util_jstr(a, "dominantWaitEvent"), "IO:WALSync");
    const char *verdict = util_jstr(a, "verdict");
    assert_non_null(verdict);
    assert_non_null(strstr(verdict, "scales to ~22 clients"));
    /* the largest step: IO:WALSync 61 of the 91 % that are the database's own waits */
    assert_non_null(strstr(verdict, "WAL flush limits it (67 % of database wait time at 64 "
                                    "clients, mostly IO:WALSync"));
    assert_int_equal(cJSON_GetArraySize(util_jget(a, "usl.sigmaInterval")), 2);
    assert_int_equal(cJSON_GetArraySize(util_jget(a, "usl.kappaInterval")), 2);
    const cJSON *pci = util_jget(a, "usl.peakClientsInterval");
    assert_int_equal(cJSON_GetArraySize(pci), 2);
    assert_true(cJSON_GetArrayItem(pci, 0)->valuedouble <= 21.79 + 0.5);
    /* each step: what limits it, the class shares, and no stddev from one run */
    const cJSON *s5 = cJSON_GetArrayItem(util_jget(sw, "status.steps"), 5);
    assert_string_equal(util_jstr(s5, "limit.class"), "wal-flush");
    assert_string_equal(util_jstr(s5, "limit.event"), "IO:WALSync");
    assert_int_equal((int)util_jnum(s5, "limit.rounds", 0), 10);
    assert_true(cJSON_IsTrue(util_jget(s5, "limit.weak")));
    assert_true(util_jnum(s5, "classSharesPct.wal-flush", 0) == 61);
    assert_true(util_jnum(s5, "classSharesPct.server-cpu", 0) == 30);
    assert_null(util_jget(s5, "tpsStddev"));
    assert_null(util_jget(s5, "latencyMs.p99Stddev"));
    assert_non_null(strstr(util_jstr(sw, "status.message"), "7 steps: scales to"));
    ctrl_sweep_plan_free(&p);
    for (int i = 0; i < 7; i++)
        cJSON_Delete(runs[i]);
    cJSON_Delete(sw);
}

static void test_two_points_no_fit(void **state)
{
    (void)state;
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[1,2]}", NULL);
    cJSON *runs[2] = {make_run("sw-s0-r0", "Succeeded", 100, 5, 0, 0),
                      make_run("sw-s1-r0", "Succeeded", 180, 6, 0, 0)};
    struct ctrl_sweep_plan p;
    step(sw, runs, 2, &p);
    assert_string_equal(p.phase, "Succeeded");
    assert_false(cJSON_IsTrue(util_jget(sw, "status.analysis.usl.ok")));
    assert_non_null(strstr(util_jstr(sw, "status.analysis.usl.reason"), "not enough data"));
    assert_non_null(strstr(util_jstr(sw, "status.analysis.verdict"), "not enough data"));
    ctrl_sweep_plan_free(&p);
    cJSON_Delete(runs[0]);
    cJSON_Delete(runs[1]);
    cJSON_Delete(sw);
}

/* Three steps falling: no fit (two more steps needed), and a verdict that says what the curve
 * shows; two repeats give a spread. */
static void test_three_falling_steps(void **state)
{
    (void)state;
    cJSON *sw =
        make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[1,2,4]},\"repeats\":2", NULL);
    static const double tps[3][2] = {{1575, 1590}, {1273, 1260}, {1069, 1080}};
    cJSON *runs[6];
    for (int i = 0; i < 6; i++) {
        char name[32];
        (void)snprintf(name, sizeof(name), "sw-s%d-r%d", i / 2, i % 2);
        runs[i] = make_run(name, "Succeeded", tps[i / 2][i % 2], 3, 0, 0);
    }
    struct ctrl_sweep_plan p;
    step(sw, runs, 6, &p);
    assert_string_equal(p.phase, "Succeeded");
    const cJSON *a = util_jget(sw, "status.analysis");
    assert_false(cJSON_IsTrue(util_jget(a, "usl.ok")));
    assert_int_equal((int)util_jnum(a, "usl.stepsNeeded", 0), 2);
    assert_int_equal((int)util_jnum(a, "usl.distinctClients", 0), 3);
    assert_non_null(strstr(util_jstr(a, "verdict"), "does not scale past 1 client"));
    /* sample stddev of 1575 and 1590: 15 / sqrt(2) */
    const cJSON *s0 = cJSON_GetArrayItem(util_jget(sw, "status.steps"), 0);
    assert_true(fabs(util_jnum(s0, "tpsStddev", NAN) - 15 / sqrt(2)) < 1e-3);
    ctrl_sweep_plan_free(&p);
    for (int i = 0; i < 6; i++)
        cJSON_Delete(runs[i]);
    cJSON_Delete(sw);
}

/* Runs that carry the per-run verdict (diagnostics.verdictClass and the sentence): the step's
 * limit is their class with their evidence, the transform keeps both, and the sweep's verdict
 * quotes the evidence. */
static void test_runs_verdict_class(void **state)
{
    (void)state;
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[1,2,4,8,16]}", NULL);
    cJSON *runs[5];
    static const double tps[5] = {900, 1000, 1010, 1005, 1008};
    for (int i = 0; i < 5; i++) {
        char name[32], sentence[200];
        (void)snprintf(name, sizeof(name), "sw-s%d-r0", i);
        runs[i] = make_run(name, "Succeeded", tps[i], 3, 0, 0);
        cJSON *d = (cJSON *)util_jget(runs[i], "status.diagnostics");
        util_jset_str(d, "verdictClass", i ? "client" : "server-cpu");
        (void)snprintf(sentence, sizeof(sentence),
                       "the client (load generator) limits the run: pgbench at %d %% of its "
                       "1-CPU limit; next: more CPU.",
                       90 + i);
        util_jset_str(d, "verdict", sentence);
        ctrl_transform_sweep_run(runs[i], NULL); /* as the informer keeps it */
        assert_non_null(util_jget(runs[i], "status.diagnostics.verdictClass"));
    }
    struct ctrl_sweep_plan p;
    step(sw, runs, 5, &p);
    const cJSON *s1 = cJSON_GetArrayItem(util_jget(sw, "status.steps"), 1);
    assert_string_equal(util_jstr(s1, "limit.class"), "client");
    assert_string_equal(util_jstr(s1, "limit.evidence"), "pgbench at 91 % of its 1-CPU limit");
    assert_string_equal(util_jstr(cJSON_GetArrayItem(util_jget(s1, "runs"), 0), "verdictClass"),
                        "client");
    const char *v = util_jstr(sw, "status.analysis.verdict");
    assert_non_null(strstr(v, "the client (load generator) limits it from 2 clients (pgbench at "
                              "91 % of its 1-CPU limit)"));
    ctrl_sweep_plan_free(&p);
    for (int i = 0; i < 5; i++)
        cJSON_Delete(runs[i]);
    cJSON_Delete(sw);
}

static void test_invalid_spec_fails(void **state)
{
    (void)state;
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[0]}", NULL);
    struct ctrl_sweep_plan p;
    step(sw, NULL, 0, &p);
    assert_string_equal(p.phase, "Failed");
    assert_null(p.create);
    const cJSON *c = cJSON_GetArrayItem(util_jget(sw, "status.conditions"), 0);
    assert_string_equal(util_jstr(c, "type"), "Failed");
    assert_string_equal(util_jstr(c, "reason"), "InvalidSpec");
    assert_non_null(strstr(util_jstr(sw, "status.message"), "spec.vary.values[0]"));
    ctrl_sweep_plan_free(&p);
    cJSON_Delete(sw);
}

/* A run the API server refuses for good fails a running sweep: its status kept, phase Failed with
 * the server's words, condition Failed/CreateFailed, the Warning Event SweepFailed; a sweep that
 * has ended is left as it is. */
static void test_refused_create_fails(void **state)
{
    (void)state;
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[1,2]}", NULL);
    struct ctrl_sweep_plan p;
    step(sw, NULL, 0, &p);
    assert_string_equal(created(&p), "sw-s0-r0");
    ctrl_sweep_plan_free(&p);
    const char *why = "creating BenchmarkRun sw-s0-r0: admission webhook denied the request";
    ctrl_sweep_refused(sw, why, NOW, &p);
    assert_string_equal(p.phase, "Failed");
    assert_null(p.create);
    assert_string_equal(util_jstr(p.status, "message"), why);
    assert_true(util_jnum(p.status, "totalSteps", 0) == 2); /* the rest of the status stays */
    const cJSON *c, *failed = NULL;
    cJSON_ArrayForEach(c, util_jget(p.status, "conditions"))
    {
        if (strcmp(util_jstr(c, "type"), "Failed") == 0)
            failed = c;
    }
    assert_non_null(failed);
    assert_string_equal(util_jstr(failed, "reason"), "CreateFailed");
    assert_int_equal(p.n_events, 1);
    assert_true(p.events[0].warning);
    assert_string_equal(p.events[0].reason, "SweepFailed");
    assert_string_equal(p.events[0].message, why);
    util_jset(sw, "status", cJSON_Duplicate(p.status, 1));
    ctrl_sweep_plan_free(&p);
    ctrl_sweep_refused(sw, "again", NOW + 5, &p); /* ended: nothing more */
    assert_null(p.status);
    assert_string_equal(p.phase, "Failed");
    ctrl_sweep_plan_free(&p);
    cJSON_Delete(sw);
}

static void test_merge_diff(void **state)
{
    (void)state;
    cJSON *a = cJSON_Parse("{\"x\":1,\"gone\":2,\"o\":{\"k\":1,\"q\":[1]},\"l\":[1,2]}");
    cJSON *b = cJSON_Parse("{\"x\":1,\"o\":{\"k\":2,\"q\":[1]},\"l\":[1,3],\"new\":\"n\"}");
    cJSON *d = ctrl_merge_diff(a, b);
    char *s = cJSON_PrintUnformatted(d);
    assert_string_equal(s, "{\"o\":{\"k\":2},\"l\":[1,3],\"new\":\"n\",\"gone\":null}");
    free(s);
    cJSON_Delete(d);
    assert_null(ctrl_merge_diff(a, a));
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void test_transform(void **state)
{
    (void)state;
    cJSON *r = make_run("sw-s0-r0", "Succeeded", 1, 1, 0, 0);
    cJSON *st = cJSON_GetObjectItemCaseSensitive(r, "status");
    cJSON_AddItemToObject(st, "timeline", cJSON_CreateArray());
    cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(st, "diagnostics"), "server",
                          cJSON_CreateObject());
    cJSON_AddItemToObject(r, "spec", cJSON_CreateObject());
    ctrl_transform_sweep_run(r, NULL);
    assert_null(util_jget(r, "spec"));
    assert_null(util_jget(r, "status.timeline"));
    assert_null(util_jget(r, "status.diagnostics.server"));
    assert_null(util_jget(r, "status.diagnostics.littlesLaw")); /* from summary and clients */
    assert_non_null(util_jstr(r, "status.diagnostics.waitEvents"));
    assert_non_null(util_jget(r, "status.summary.tps"));
    assert_true(util_jnum(r, "status.clients", 0) == 1);
    cJSON_Delete(r);
}

/* "Reason: message" of the plan's Events, one per line. */
static void events_text(const struct ctrl_sweep_plan *p, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < p->n_events && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%s %s: %s\n",
                              p->events[i].warning ? "Warning" : "Normal", p->events[i].reason,
                              p->events[i].message);
}

/* The Events of a walk: each transition once, in order (texts written out by hand). */
static void test_events(void **state)
{
    (void)state;
    cJSON *sw = make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[1,2,4]}", NULL);
    cJSON *runs[3] = {0};
    struct ctrl_sweep_plan p;
    char got[4096];

    step(sw, runs, 0, &p);
    events_text(&p, got, sizeof(got));
    assert_string_equal(got, "Normal StepStarted: step 1/3 clients=1: run sw-s0-r0\n");
    ctrl_sweep_plan_free(&p);

    runs[0] = make_run("sw-s0-r0", "Running", 0, 0, 0, 0);
    step(sw, runs, 1, &p);
    assert_int_equal(p.n_events, 0);
    ctrl_sweep_plan_free(&p);

    cJSON_Delete(runs[0]);
    runs[0] = make_run("sw-s0-r0", "Succeeded", 100, 5, 0, 0);
    step(sw, runs, 1, &p);
    events_text(&p, got, sizeof(got));
    assert_string_equal(got, "Normal StepCompleted: step 1/3 clients=1: 100.0 tps, p99 5.00 ms\n"
                             "Normal StepStarted: step 2/3 clients=2: run sw-s1-r0\n");
    ctrl_sweep_plan_free(&p);

    runs[1] = make_run("sw-s1-r0", "Failed", 0, 0, 0, 2);
    step(sw, runs, 2, &p);
    events_text(&p, got, sizeof(got));
    assert_string_equal(got, "Warning StepFailed: step 2/3 clients=2: run sw-s1-r0 failed: "
                             "m-sw-s1-r0\n"
                             "Normal StepStarted: step 3/3 clients=4: run sw-s2-r0\n");
    ctrl_sweep_plan_free(&p);

    /* still running: its status implies no Event to send again */
    struct ctrl_event implied[CTRL_SWEEP_MAX_EVENTS];
    assert_int_equal(ctrl_sweep_status_events(sw, NOW, implied, CTRL_SWEEP_MAX_EVENTS), 0);

    runs[2] = make_run("sw-s2-r0", "Succeeded", 300, 9, 0, 0);
    step(sw, runs, 3, &p);
    events_text(&p, got, sizeof(got));
    assert_non_null(strstr(got, "Normal StepCompleted: step 3/3 clients=4: 300.0 tps, p99 9.00 "
                                "ms\nNormal SweepSucceeded: 3 steps: "));
    /* the status that ends the sweep implies the same Events (same names: sent once), for an hour
     */
    int n = ctrl_sweep_status_events(sw, NOW + 10, implied, CTRL_SWEEP_MAX_EVENTS);
    assert_int_equal(n, p.n_events);
    for (int i = 0; i < n; i++) {
        assert_int_equal(implied[i].warning, p.events[i].warning);
        assert_string_equal(implied[i].reason, p.events[i].reason);
        assert_string_equal(implied[i].message, p.events[i].message);
    }
    assert_int_equal(ctrl_sweep_status_events(sw, NOW + CTRL_EVENT_RESEND_S + 10, implied,
                                              CTRL_SWEEP_MAX_EVENTS),
                     0);
    ctrl_sweep_plan_free(&p);

    /* nothing changes any more: no Event twice */
    step(sw, runs, 3, &p);
    assert_int_equal(p.n_events, 0);
    ctrl_sweep_plan_free(&p);
    for (int i = 0; i < 3; i++)
        cJSON_Delete(runs[i]);
    cJSON_Delete(sw);

    /* stopped, and an invalid spec */
    sw = make_sweep("\"vary\":{\"field\":\"clients\",\"values\":[1,2]},"
                    "\"stopWhen\":{\"p99Ms\":1}",
                    NULL);
    runs[0] = make_run("sw-s0-r0", "Succeeded", 100, 5, 0, 0);
    step(sw, runs, 1, &p);
    events_text(&p, got, sizeof(got));
    assert_non_null(strstr(got, "Normal SweepStopped: stopped at step 1/2: stopWhen.p99Ms"));
    ctrl_sweep_plan_free(&p);
    cJSON_Delete(runs[0]);
    cJSON_Delete(sw);
    sw = make_sweep("\"vary\":{\"field\":\"nope\",\"values\":[1]}", NULL);
    step(sw, runs, 0, &p);
    events_text(&p, got, sizeof(got));
    assert_string_equal(got,
                        "Warning SweepFailed: spec.vary.field: one of clients, rate, workers\n");
    ctrl_sweep_plan_free(&p);
    cJSON_Delete(sw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_run_cache_keeps_what_entries_read),
        cmocka_unit_test(test_spec),
        cmocka_unit_test(test_step_spec_checked_by_run_parser),
        cmocka_unit_test(test_run_object),
        cmocka_unit_test(test_walk_one_at_a_time),
        cmocka_unit_test(test_restart_resumes_from_status),
        cmocka_unit_test(test_repeats_mean_and_spread),
        cmocka_unit_test(test_stop_when),
        cmocka_unit_test(test_analysis),
        cmocka_unit_test(test_two_points_no_fit),
        cmocka_unit_test(test_three_falling_steps),
        cmocka_unit_test(test_runs_verdict_class),
        cmocka_unit_test(test_invalid_spec_fails),
        cmocka_unit_test(test_refused_create_fails),
        cmocka_unit_test(test_merge_diff),
        cmocka_unit_test(test_transform),
        cmocka_unit_test(test_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
