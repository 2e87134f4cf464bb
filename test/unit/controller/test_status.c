/* Status building: conditions (transition times), results mapping, caps, HPA timeline, the
 * cache transforms. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/aggregate.h"
#include "pkg/util/json.h"
#include "pkg/bench/fields.h"
#include "pkg/bench/result.h"
#include "pkg/controller/cache.h"
#include "pkg/controller/controller.h"
#include "pkg/api/status.h"
#include "pkg/util/clock.h"
#include "test/unit/bench/status_rows.h"

/* api_status_set_results, and every key it wrote has a row in the contract table */
static void set_results(cJSON *st, cJSON *agg, const struct api_worker *w, int n)
{
    api_status_set_results(st, agg, w, n);
    assert_status_keys_have_rows(st);
}

static void test_conditions(void **state)
{
    (void)state;
    cJSON *st = cJSON_CreateObject();
    assert_true(api_cond_set(st, "Running", "True", "Started", "go", 1, 1000));
    const cJSON *c = api_cond_get(st, "Running");
    assert_string_equal(util_jstr(c, "lastTransitionTime"), "1970-01-01T00:16:40Z");
    /* same values: no change */
    assert_false(api_cond_set(st, "Running", "True", "Started", "go", 1, 2000));
    /* message change without a status change keeps lastTransitionTime */
    assert_true(api_cond_set(st, "Running", "True", "Started", "still going", 1, 3000));
    assert_string_equal(util_jstr(c, "lastTransitionTime"), "1970-01-01T00:16:40Z");
    assert_string_equal(util_jstr(c, "message"), "still going");
    /* a status change moves it */
    assert_true(api_cond_set(st, "Running", "False", "Completed", "done", 1, 4000));
    assert_string_equal(util_jstr(c, "lastTransitionTime"), "1970-01-01T01:06:40Z");
    assert_int_equal(util_jnum(c, "observedGeneration", 0), 1);
    assert_true(api_cond_set(st, "Failed", "True", "X", "y", 2, 4000));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(st, "conditions")), 2);
    /* very long messages are capped */
    char big[5000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    api_cond_set(st, "Failed", "True", "X", big, 2, 4000);
    assert_true(strlen(util_jstr(api_cond_get(st, "Failed"), "message")) < API_MAX_MESSAGE);
    assert_status_keys_have_rows(st);
    cJSON_Delete(st);
}

static void test_time(void **state)
{
    (void)state;
    char b[40];
    util_rfc3339(1700000000.7, 0, b, sizeof(b));
    assert_string_equal(b, "2023-11-14T22:13:20Z");
    assert_true(util_rfc3339_parse("2023-11-14T22:13:20Z") == 1700000000.0);
    assert_true(util_rfc3339_parse("2023-11-14T22:13:20.5Z") == 1700000000.5);
    assert_true(util_rfc3339_parse("garbage") < 0);
}

static void test_results_mapping_and_caps(void **state)
{
    (void)state;
    /* an aggregate with 1000 timeline points and 80 statements */
    cJSON *agg = cJSON_Parse("{\"summary\":{\"tps\":10.5,\"transactionsProcessed\":100,"
                             "\"failedTransactions\":2,\"abortedClients\":1,\"retried\":3,"
                             "\"latencyAvgMs\":1.5000000000000004,\"latencyP99Ms\":9.0,"
                             "\"latencyStddevMs\":1.4},\"workers\":[{"
                             "\"index\":0,\"tps\":10.5,\"transactionsProcessed\":100}]}");
    cJSON *tl = cJSON_AddArrayToObject(agg, "timeline");
    for (int i = 0; i < 1000; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "t", i + 1);
        cJSON_AddNumberToObject(p, "tps", 10);
        cJSON_AddItemToArray(tl, p);
    }
    cJSON *sts = cJSON_AddArrayToObject(agg, "statements");
    for (int i = 0; i < 80; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "script", 0);
        cJSON_AddStringToObject(p, "command", "SELECT 1");
        cJSON_AddNumberToObject(p, "latencyMs", 0.1);
        cJSON_AddNumberToObject(p, "failures", i == 1 ? 2 : 0);
        cJSON_AddItemToArray(sts, p);
    }
    struct api_worker w = {.index = 0, .pod = "b-run-0-x", .terminated = true, .exit_code = 0};
    w.result = cJSON_Parse("{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":true,"
                           "\"exitCode\":0}");
    cJSON *st = cJSON_CreateObject();
    set_results(st, agg, &w, 1);
    assert_true(util_jnum(st, "summary.tps", 0) == 10.5);
    assert_int_equal(util_jnum(st, "summary.transactions", 0), 100);
    assert_int_equal(util_jnum(st, "summary.failed", 0), 2);
    assert_int_equal(util_jnum(st, "summary.aborted", 0), 1);
    assert_null(util_jget(st, "summary.tpsIncludingConnect")); /* pgbench >= 14 without -C */
    assert_null(util_jget(st, "summary.latencyMs.p50"));       /* absent stays absent */
    /* the latencies are one group in status (describe: "Latency Ms:", then avg, p99, ...) */
    assert_true(util_jnum(st, "summary.latencyMs.p99", 0) == 9.0);
    assert_null(util_jget(st, "summary.latencyP99Ms"));
    assert_null(util_jget(st, "summary.latencyAvgMs"));
    /* a count whose 0 says nothing status.failed does not is in status only when not 0 */
    cJSON *none = cJSON_Parse("{\"summary\":{\"tps\":1,\"failedTransactions\":0,"
                              "\"abortedClients\":0}}");
    cJSON *st0 = cJSON_CreateObject();
    set_results(st0, none, NULL, 0);
    assert_int_equal(util_jnum(st0, "summary.failed", -1), 0);
    assert_null(util_jget(st0, "summary.aborted"));
    assert_int_equal(util_jnum(st0, "failed", -1), 0);
    cJSON_Delete(st0);
    cJSON_Delete(none);
    /* a sketch over the whole run: at most 60 evenly spaced points, one string per member
     * (describe prints a line per member), seconds under a key with its unit */
    char el[1024], tps[1024], lat[1024];
    (void)snprintf(el, sizeof(el), "%s", util_jstr(st, "timeline.elapsedSeconds"));
    (void)snprintf(tps, sizeof(tps), "%s", util_jstr(st, "timeline.tps"));
    (void)snprintf(lat, sizeof(lat), "%s", util_jstr(st, "timeline.latencyMs"));
    int ntl = 0;
    long first = -1, last = -1;
    for (char *sv, *t = strtok_r(el, " ", &sv); t; t = strtok_r(NULL, " ", &sv), ntl++) {
        last = strtol(t, NULL, 10);
        first = first < 0 ? last : first;
    }
    int max_tl = bench_fields[BK_STATUS_TIMELINE].max_items;
    assert_int_equal(max_tl, 60);
    assert_true(ntl <= max_tl && ntl >= max_tl / 2);
    assert_int_equal(first, 1);
    assert_true(last > 900);
    int ntps = 0, nlat = 0;
    for (char *sv, *t = strtok_r(tps, " ", &sv); t; t = strtok_r(NULL, " ", &sv), ntps++)
        assert_string_equal(t, "10");
    for (char *sv, *t = strtok_r(lat, " ", &sv); t; t = strtok_r(NULL, " ", &sv), nlat++)
        assert_string_equal(t, "-"); /* the input has t and tps only */
    assert_int_equal(ntps, ntl);
    assert_int_equal(nlat, ntl);
    assert_null(util_jget(st, "timeline.t"));
    assert_int_equal(cJSON_GetArraySize(util_jget(st, "statements")), 50);
    /* a statement line says what says something: no failures of 0, no script 0 of one script */
    const cJSON *lines = util_jget(st, "statements");
    assert_string_equal(cJSON_GetArrayItem(lines, 0)->valuestring, "0.100 ms  SELECT 1");
    assert_string_equal(cJSON_GetArrayItem(lines, 1)->valuestring,
                        "0.100 ms  SELECT 1, 2 failures");
    /* a line per worker in status; its row, with what the controller saw, in the aggregate (the
     * result ConfigMap's) */
    assert_int_equal(cJSON_GetArraySize(util_jget(st, "workers")), 1);
    assert_string_equal(cJSON_GetArrayItem(util_jget(st, "workers"), 0)->valuestring,
                        "0 b-run-0-x: ok, 10.5 tps, 100 tx");
    const cJSON *row = cJSON_GetArrayItem(util_jget(agg, "workers"), 0);
    assert_string_equal(util_jstr(row, "pod"), "b-run-0-x");
    assert_true(cJSON_IsTrue(util_jget(row, "complete")));
    assert_string_equal(util_jstr(row, "message"), "ok");
    assert_int_equal(util_jnum(row, "exitCode", -1), 0);
    assert_true(util_jnum(row, "tps", 0) == 10.5);
    char msg[256];
    assert_false(api_workers_failure(&w, 1, msg, sizeof(msg)));
    api_status_summary_message(st, 1, msg, sizeof(msg));
    assert_string_equal(msg, "10.5 tps, avg 1.50 ms, p99 9.00 ms (1 worker)");
    /* the status stays small enough for etcd */
    char *txt = cJSON_PrintUnformatted(st);
    assert_true(strlen(txt) < (size_t)64 * 1024);
    /* at pgbench's precision, without aggregation's float noise */
    assert_non_null(strstr(txt, "\"latencyMs\":{\"avg\":1.5,"));
    /* the percentiles tell the spread in status; the stddev stays in the result */
    assert_null(strstr(txt, "latencyStddevMs"));
    free(txt);
    cJSON_Delete(w.result);
    cJSON_Delete(st);
    cJSON_Delete(agg);
}

/* The seam that once lost every diagnostic: worker results in the runner's own shape (written by
 * pkg/bench's result functions, waitEvents and server at the top level, dataset and replica under
 * checks), through the real aggregate, into status.diagnostics. */
static void test_diagnostics_from_runner_results(void **state)
{
    (void)state;
    cJSON *rs[2];
    for (int i = 0; i < 2; i++) {
        struct bench_result_meta m = {.kind = "pgbench", .worker = i, .complete = true};
        rs[i] = bench_result_new(&m);
        cJSON *s = cJSON_AddObjectToObject(rs[i], "summary");
        cJSON_AddNumberToObject(s, "tps", 100);
        cJSON_AddNumberToObject(s, "transactionsProcessed", 1000);
        cJSON_AddNumberToObject(s, "latencyAvgMs", 10);
        cJSON *cfg = cJSON_AddObjectToObject(rs[i], "pgbench");
        cJSON_AddNumberToObject(cfg, "clients", 1);
        assert_int_equal(bench_result_set_diagnostic(
                             rs[i], BK_WAIT_EVENTS,
                             cJSON_Parse("{\"samples\":10,\"backendSamples\":10,\"events\":"
                                         "{\"CPU\":6,\"IO:WALSync\":4}}")),
                         0);
        assert_int_equal(
            bench_result_set_diagnostic(rs[i], BK_SERVER,
                                        cJSON_Parse("{\"version\":\"15.18\",\"versionNum\":150018,"
                                                    "\"shared_buffers\":\"128MB\"}")),
            0);
        assert_int_equal(bench_result_set_diagnostic(rs[i], BK_CHECKS_DATASET,
                                                     bench_check_dataset(1 << 20, 128 << 20)),
                         0);
        assert_int_equal(bench_result_set_diagnostic(
                             rs[i], BK_CHECKS_REPLICA,
                             cJSON_Parse("{\"role\":\"primary\",\"caughtUp\":true,\"maxLagMs\":"
                                         "20,\"lagSamplesMs\":[1,2,3,4,5,6,7,8,9,10,11,12,13,"
                                         "14,15,16,17,18,19,20]}")),
                         0);
    }
    char err[256];
    cJSON *agg = bench_aggregate((const cJSON *const *)rs, 2, err, sizeof(err));
    assert_non_null(agg);
    struct api_worker w[2] = {{.index = 0, .exit_code = 0, .terminated = true, .pod = "p0"},
                              {.index = 1, .exit_code = 0, .terminated = true, .pod = "p1"}};
    w[0].result = rs[0];
    w[1].result = rs[1];
    cJSON *st = cJSON_CreateObject();
    set_results(st, agg, w, 2);
    /* status: one sentence per diagnostic, written out here from the workers' numbers */
    assert_string_equal(util_jstr(st, "diagnostics.waitEvents"),
                        "CPU 60 %, IO:WALSync 40 % of 20 backend samples in 20 rounds");
    /* the server's sentence carries the dataset check's sizes where the server has none; its
     * warning is the verdict's */
    /* ... then the replica's (its own row would be one more line of kubectl describe) */
    assert_string_equal(util_jstr(st, "diagnostics.server"),
                        "PostgreSQL 15.18, database 1 MiB, 0.008 of shared_buffers 128 MiB; "
                        "replication: primary: caught up; max lag 20 ms during the run");
    assert_non_null(strstr(util_jstr(st, "diagnostics.verdict"), "fits in shared_buffers"));
    assert_null(util_jget(st, "diagnostics.dataset"));
    /* Little's law from the aggregate (2 clients / 10 ms = 200 tps, measured 200) ends the
     * verdict's row */
    const char *verdict = util_jstr(st, "diagnostics.verdict");
    const char *ll = " Little's law: 2 clients / 10 ms predict 200 tps; measured 200 tps (+0.00 %)";
    assert_true(strlen(verdict) > strlen(ll));
    assert_string_equal(verdict + strlen(verdict) - strlen(ll), ll);
    assert_int_equal(strncmp(verdict, util_jstr(bench_get(agg, BK_VERDICT), "summary"),
                             strlen(util_jstr(bench_get(agg, BK_VERDICT), "summary"))),
                     0);
    /* the verdict: CPU 60 % and IO:WALSync 40 % of the database's samples; the larger share is
     * CPU, which no server counter (pg_stat_kcache) confirms: inconclusive, not WAL flush */
    assert_string_equal(util_jstr(st, "diagnostics.verdictClass"), "inconclusive");
    assert_string_equal(util_jstr(bench_get(agg, BK_VERDICT), "class"), "inconclusive");
    assert_int_equal(cJSON_GetArraySize(util_jget(st, "diagnostics")), 4);
    /* the structured sections stay in the result (ConfigMap), merged */
    assert_int_equal(bench_num(agg, BK_WAIT_EVENTS_SAMPLES), 20);
    assert_true(util_jnum(bench_get(agg, BK_WAIT_EVENTS_SHARES_PCT), "CPU", 0) == 60);
    assert_string_equal(util_jstr(bench_get(agg, BK_SERVER), "shared_buffers"), "128MB");
    assert_true(cJSON_IsTrue(bench_get(agg, BK_CHECKS_DATASET_FITS_IN_SHARED_BUFFERS)));
    assert_int_equal(cJSON_GetArraySize(bench_get(agg, BK_CHECKS_REPLICA_LAG_SAMPLES_MS)), 40);
    assert_true(bench_num(agg, BK_CHECKS_LITTLES_LAW_PREDICTED_TPS) == 200);
    assert_true(bench_num(agg, BK_CHECKS_LITTLES_LAW_DEVIATION_PCT) == 0);
    /* the sweep's and kubectl pgbench's reading of status: the same deviation */
    util_jset_num(st, "clients", 2);
    assert_true(api_status_littles_law_pct(st) == 0);
    assert_int_equal(cJSON_GetArraySize(util_jget(st, "workers")), 2);
    cJSON_Delete(st);
    cJSON_Delete(agg);
    cJSON_Delete(rs[0]);
    cJSON_Delete(rs[1]);
}

/* A worker that started 3.2 s after the barrier: named, with the share of the run the totals
 * cover; workers within a second of each other are not. */
static void test_workers_skewed(void **state)
{
    (void)state;
    const double barrier = 1700000000.0;
    const double starts[2][2] = {{0.05, 0.08}, {0.05, 3.2}}; /* [case][worker] */
    for (int k = 0; k < 2; k++) {
        cJSON *rs[2];
        for (int i = 0; i < 2; i++) {
            struct bench_result_meta m = {.kind = "pgbench", .worker = i, .complete = true};
            rs[i] = bench_result_new(&m);
            bench_result_add_window(rs[i], barrier, 0, barrier + starts[k][i],
                                    barrier + 10.0 + 0.01 * i);
        }
        char err[256], msg[600];
        cJSON *agg = bench_aggregate((const cJSON *const *)rs, 2, err, sizeof(err));
        assert_non_null(agg);
        struct api_worker w[2] = {{.index = 0, .exit_code = 0, .terminated = true},
                                  {.index = 1, .exit_code = 0, .terminated = true}};
        cJSON *st = cJSON_CreateObject();
        set_results(st, agg, w, 2);
        /* not in status (status.startAt is the barrier, each worker's line says when it ran);
         * the result keeps the window and the barrier the workers saw */
        assert_null(util_jget(st, "window"));
        assert_string_equal(cJSON_GetStringValue(bench_get(agg, BK_WINDOW_BARRIER)),
                            "2023-11-14T22:13:20.000Z");
        bool skewed = api_workers_skewed(agg, API_SKEW_LIMIT_S, msg, sizeof(msg));
        if (k == 0) {
            assert_false(skewed);
            assert_true(bench_num(agg, BK_WINDOW_COVERAGE_PCT) > 99);
        } else {
            assert_true(skewed);
            /* common window 3.2 .. 10.0 of 0.05 .. 10.01 */
            assert_true(fabs(bench_num(agg, BK_WINDOW_SECONDS) - 6.8) < 1e-9);
            assert_non_null(
                strstr(cJSON_GetStringValue(cJSON_GetArrayItem(util_jget(st, "workers"), 1)),
                       "from +3.200 s to 10.010 s"));
            assert_string_equal(msg, "worker 1 started 3.2 s after the start barrier; the totals "
                                     "cover the common window of 6.8 s, 68.3 % of the run");
        }
        cJSON_Delete(st);
        cJSON_Delete(agg);
        cJSON_Delete(rs[0]);
        cJSON_Delete(rs[1]);
    }
}

/* What kubectl get prints: one RESULT line for both workloads, FAILED for pgbench; status keeps
 * only the statements that ran SQL. */
static void test_display(void **state)
{
    (void)state;
    cJSON *agg = cJSON_Parse("{\"summary\":{\"tps\":2561.233423,\"latencyAvgMs\":3.1234,"
                             "\"latencyP99Ms\":9.98765,\"failedTransactions\":3,"
                             "\"abortedClients\":1},\"statements\":[{\"script\":0,"
                             "\"command\":\"\\\\set aid random(1, 100000)\",\"latencyMs\":0},"
                             "{\"script\":0,\"command\":\"SELECT 1;\",\"latencyMs\":0.5}]}");
    assert_non_null(agg);
    cJSON *st = cJSON_CreateObject();
    set_results(st, agg, NULL, 0);
    assert_string_equal(util_jstr(st, "result"), "2,561 tps · p99 9.99 ms · 4 failed");
    assert_int_equal(util_jnum(st, "failed", -1), 4); /* 3 failed transactions + 1 aborted */
    assert_null(util_jget(st, "display"));
    assert_true(util_jnum(st, "summary.tps", 0) == 2561.233423); /* full precision stays */
    const cJSON *sts = util_jget(st, "statements");
    assert_int_equal(cJSON_GetArraySize(sts), 1);
    assert_string_equal(cJSON_GetArrayItem(sts, 0)->valuestring, "0.500 ms  SELECT 1;");
    cJSON_Delete(st);
    cJSON_Delete(agg);

    /* fio: every job, the sync p99 of a job that synced (the WAL job's commit floor) */
    agg = cJSON_Parse("{\"fio\":{\"jobs\":[{\"name\":\"randread\",\"read\":{\"iops\":12345.6,"
                      "\"clatUs\":{\"p99\":412.3}}},{\"name\":\"wal\",\"write\":{\"iops\":"
                      "2793.7,\"clatUs\":{\"p99\":300}},\"sync\":{\"p99\":1974.272}}]}}");
    st = cJSON_CreateObject();
    set_results(st, agg, NULL, 0);
    assert_string_equal(util_jstr(st, "result"),
                        "randread 12.3k IOPS · p99 412 µs; wal 2,794 IOPS · sync p99 1,974 µs");
    assert_null(util_jget(st, "failed")); /* a pgbench count */
    char msg[256];
    api_status_summary_message(st, 1, msg, sizeof(msg));
    assert_string_equal(msg,
                        "fio randread 12.3k IOPS · p99 412 µs; wal 2,794 IOPS · sync p99 1,974 µs");
    cJSON_Delete(st);
    cJSON_Delete(agg);
}

static void test_worker_failures(void **state)
{
    (void)state;
    struct api_worker w[3];
    memset(w, 0, sizeof(w));
    for (int i = 0; i < 3; i++) {
        w[i].index = i;
        w[i].exit_code = -1;
    }
    w[0].pod = "p0";
    w[0].terminated = true;
    w[0].exit_code = 0;
    w[0].result = cJSON_Parse("{\"complete\":true,\"exitCode\":0}");
    w[1].pod = "p1";
    w[1].terminated = true;
    w[1].exit_code = 137;
    w[1].reason = "OOMKilled";
    (void)snprintf(w[1].error, sizeof(w[1].error), "no result line in the pod log");
    char msg[512];
    assert_true(api_workers_failure(w, 3, msg, sizeof(msg)));
    assert_string_equal(msg, "worker 1 (pod p1) failed: exit code 137 OOMKilled: no result line "
                             "in the pod log");
    w[1].result = cJSON_Parse("{\"complete\":true,\"exitCode\":0}");
    w[1].exit_code = 0;
    assert_true(api_workers_failure(w, 3, msg, sizeof(msg)));
    assert_string_equal(msg, "worker 2 failed: no pod was created for this worker");
    cJSON_Delete(w[0].result);
    cJSON_Delete(w[1].result);
}

/* status.workers and status.statements: a line each, numbers rounded as status.result rounds
 * them, zero counts left out, the script named only when there are several; the worker rows the
 * lines come from are the aggregate's with the controller's pod, exit code and verdict. */
static void test_worker_and_statement_lines(void **state)
{
    (void)state;
    cJSON *agg = cJSON_Parse(
        "{\"statements\":[{\"script\":0,\"command\":\"\\\\set a 1\",\"latencyMs\":0.002},"
        "{\"script\":0,\"command\":\"BEGIN;\",\"latencyMs\":0.8596,\"failures\":0,\"retries\":0},"
        "{\"script\":1,\"command\":\"SELECT 2;\",\"latencyMs\":1.0004,\"failures\":3,"
        "\"retries\":2}],\"workers\":[{\"index\":0,\"tps\":406.322475,"
        "\"transactionsProcessed\":10050,\"failedTransactions\":0,\"abortedClients\":0,"
        "\"latencyAvgMs\":9.818,\"lateSeconds\":0.016,\"endSeconds\":25.715,\"exitCode\":0,"
        "\"complete\":true},{\"index\":1,\"tps\":12.26,\"transactionsProcessed\":30,"
        "\"failedTransactions\":2,\"abortedClients\":1,\"latencyAvgMs\":3.004,"
        "\"lateSeconds\":0.0004,\"endSeconds\":2.5,\"exitCode\":2,\"complete\":false}]}");
    assert_non_null(agg);
    struct api_worker w[3];
    memset(w, 0, sizeof(w));
    for (int i = 0; i < 3; i++) {
        w[i].index = i;
        w[i].exit_code = -1;
    }
    w[0].pod = "r-0";
    w[0].terminated = true;
    w[0].exit_code = 0;
    w[0].result = cJSON_Parse("{\"complete\":true,\"exitCode\":0}");
    w[1].pod = "r-1";
    w[1].terminated = true;
    w[1].exit_code = 2;
    w[1].result = cJSON_Parse("{\"complete\":false,\"exitCode\":2,\"errors\":[\"client 3 "
                              "aborted\"]}");
    cJSON *st = cJSON_CreateObject();
    set_results(st, agg, w, 3);
    const cJSON *lines = util_jget(st, "workers");
    assert_int_equal(cJSON_GetArraySize(lines), 3);
    assert_string_equal(cJSON_GetArrayItem(lines, 0)->valuestring,
                        "0 r-0: ok, 406.3 tps, 10050 tx, avg 9.82 ms, from +0.016 s to 25.715 s");
    assert_string_equal(cJSON_GetArrayItem(lines, 1)->valuestring,
                        "1 r-1: exit code 2: client 3 aborted, 12.3 tps, 30 tx, avg 3.00 ms, "
                        "from +0.000 s to 2.500 s, 2 failed, 1 aborted client");
    assert_string_equal(cJSON_GetArrayItem(lines, 2)->valuestring,
                        "2: no pod was created for this worker");
    const cJSON *rows = util_jget(agg, "workers");
    assert_int_equal(cJSON_GetArraySize(rows), 3);
    const cJSON *r1 = cJSON_GetArrayItem(rows, 1), *r2 = cJSON_GetArrayItem(rows, 2);
    assert_string_equal(util_jstr(r1, "pod"), "r-1");
    assert_int_equal(util_jnum(r1, "exitCode", -1), 2);
    assert_true(cJSON_IsFalse(util_jget(r1, "complete")));
    assert_true(util_jnum(r1, "tps", 0) == 12.26); /* full precision in the result */
    assert_int_equal(util_jnum(r2, "index", -1), 2);
    assert_null(util_jget(r2, "pod"));
    assert_null(util_jget(r2, "exitCode"));
    assert_true(cJSON_IsFalse(util_jget(r2, "complete")));
    assert_string_equal(util_jstr(r2, "message"), "no pod was created for this worker");
    const cJSON *sts = util_jget(st, "statements");
    assert_int_equal(cJSON_GetArraySize(sts), 2);
    assert_string_equal(cJSON_GetArrayItem(sts, 0)->valuestring, "script 0: 0.860 ms  BEGIN;");
    assert_string_equal(cJSON_GetArrayItem(sts, 1)->valuestring,
                        "script 1: 1.000 ms  SELECT 2;, 3 failures, 2 retries");
    assert_int_equal(cJSON_GetArraySize(util_jget(agg, "statements")), 3); /* the result keeps */
    cJSON_Delete(st);
    cJSON_Delete(agg);
    cJSON_Delete(w[0].result);
    cJSON_Delete(w[1].result);
}

/* A result that is the compact termination summary only: the row says so and why, whatever
 * else it says; the run does not fail for it. */
static void test_worker_summary_only(void **state)
{
    (void)state;
    struct api_worker w[2];
    memset(w, 0, sizeof(w));
    for (int i = 0; i < 2; i++) {
        w[i].index = i;
        w[i].pod = i ? "p1" : "p0";
        w[i].terminated = true;
        w[i].detail_missing = "the pod log could not be read: HTTP 403 forbidden";
    }
    w[0].exit_code = 0;
    w[0].result = cJSON_Parse("{\"kind\":\"pgbench\",\"complete\":true,\"exitCode\":0}");
    w[1].exit_code = 2;
    w[1].result = cJSON_Parse("{\"kind\":\"fio\",\"complete\":false,\"exitCode\":2,"
                              "\"errors\":[\"job wal: error 5\"]}");
    cJSON *st = cJSON_CreateObject(), *agg = cJSON_CreateObject();
    set_results(st, agg, w, 2);
    const cJSON *rows = util_jget(agg, "workers");
    assert_string_equal(util_jstr(cJSON_GetArrayItem(rows, 0), "message"),
                        "ok; summary only, without timeline, statements and histogram: the pod "
                        "log could not be read: HTTP 403 forbidden");
    assert_true(cJSON_IsTrue(util_jget(cJSON_GetArrayItem(rows, 0), "complete")));
    assert_string_equal(util_jstr(cJSON_GetArrayItem(rows, 1), "message"),
                        "exit code 2: job wal: error 5; summary only, without fio's latency "
                        "distributions: the pod log could not be read: HTTP 403 forbidden");
    assert_true(cJSON_IsFalse(util_jget(cJSON_GetArrayItem(rows, 1), "complete")));
    assert_int_equal(util_jnum(cJSON_GetArrayItem(rows, 1), "exitCode", -1), 2);
    assert_string_equal(util_jstr(cJSON_GetArrayItem(rows, 1), "pod"), "p1");
    /* status: the same, a line each */
    const cJSON *lines = util_jget(st, "workers");
    assert_int_equal(cJSON_GetArraySize(lines), 2);
    assert_string_equal(cJSON_GetArrayItem(lines, 1)->valuestring,
                        "1 p1: exit code 2: job wal: error 5; summary only, without fio's latency "
                        "distributions: the pod log could not be read: HTTP 403 forbidden");
    cJSON_Delete(agg);
    char msg[512];
    assert_true(api_workers_failure(w, 2, msg, sizeof(msg)));
    assert_non_null(strstr(msg, "worker 1 (pod p1) failed: exit code 2: job wal: error 5"));
    assert_false(api_workers_failure(w, 1, msg, sizeof(msg)));
    /* without a result the detail note has nothing to qualify */
    cJSON_Delete(w[1].result);
    w[1].result = NULL;
    (void)snprintf(w[1].error, sizeof(w[1].error), "no result line in the pod log");
    assert_true(api_workers_failure(w, 2, msg, sizeof(msg)));
    assert_string_equal(msg,
                        "worker 1 (pod p1) failed: exit code 2: no result line in the pod log");
    cJSON_Delete(w[0].result);
    cJSON_Delete(st);
}

static void test_hpa_timeline(void **state)
{
    (void)state;
    cJSON *st = cJSON_CreateObject();
    assert_true(api_hpa_timeline_record(st, 1, 100));
    assert_false(api_hpa_timeline_record(st, 1, 102));
    assert_true(api_hpa_timeline_record(st, 2, 104));
    for (int i = 0; i < 1000; i++)
        api_hpa_timeline_record(st, 3 + (i % 2), 200 + i);
    const cJSON *tl = util_jget(st, "hpaTimeline");
    assert_int_equal(cJSON_GetArraySize(tl), 200); /* docs/spec.md: at most 200 entries */
    assert_int_equal(util_jnum(cJSON_GetArrayItem(tl, 0), "replicas", 0), 1); /* first kept */
    assert_status_keys_have_rows(st);
    cJSON_Delete(st);
}

/* Runs the transform on `in` and fails, showing the result, unless it equals `want`. */
static void check_transform(void (*transform)(cJSON *, void *), const char *in, const char *want,
                            const char *what)
{
    cJSON *obj = cJSON_Parse(in), *w = cJSON_Parse(want);
    assert_non_null(obj);
    assert_non_null(w);
    transform(obj, NULL);
    char *txt = cJSON_PrintUnformatted(obj);
    if (!cJSON_Compare(obj, w, 1))
        fail_msg("%s: %s", what, txt);
    free(txt);
    cJSON_Delete(w);
    cJSON_Delete(obj);
}

/* A Job keeps when it finished: its pods get a grace to report (CTRL_POD_SETTLE_S). */
static void test_job_transform(void **state)
{
    (void)state;
    check_transform(
        ctrl_transform_job,
        "{\"metadata\":{\"name\":\"b-run\",\"namespace\":\"n\",\"uid\":\"u\","
        "\"creationTimestamp\":\"c\"},\"spec\":{"
        "\"completions\":2,\"parallelism\":2},\"status\":{\"succeeded\":2,\"startTime\":\"t\","
        "\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\",\"reason\":\"Done\","
        "\"message\":\"m\",\"lastProbeTime\":\"x\",\"lastTransitionTime\":"
        "\"2027-01-15T08:00:00Z\"}]}}",
        "{\"metadata\":{\"name\":\"b-run\",\"namespace\":\"n\",\"creationTimestamp\":\"c\"},"
        "\"spec\":{\"completions\":2},"
        "\"status\":{\"succeeded\":2,\"conditions\":[{\"type\":\"Complete\",\"status\":"
        "\"True\",\"reason\":\"Done\",\"message\":\"m\",\"lastTransitionTime\":"
        "\"2027-01-15T08:00:00Z\"}]}}",
        "job");
}

static void test_transforms(void **state)
{
    (void)state;
    check_transform(
        ctrl_transform_pod,
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
        "\"uid\":\"u\",\"resourceVersion\":\"5\",\"labels\":{\"pgbench.dev/benchmarkrun\":\"b\","
        "\"pgbench.dev/role\":\"run\",\"batch.kubernetes.io/job-completion-index\":\"1\","
        "\"job-name\":\"b-run\"},\"annotations\":{\"batch.kubernetes.io/job-completion-index\":"
        "\"1\",\"x\":\"y\",\"pgbench.dev/start-at\":\"2027-01-15T08:00:01.000Z\"},"
        "\"ownerReferences\":[{}]},\"spec\":{\"containers\":[{\"name\":"
        "\"runner\"}],\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Failed\",\"podIP\":\"1.2.3.4\","
        "\"containerStatuses\":[{\"name\":\"runner\",\"image\":\"i\",\"state\":{\"terminated\":{"
        "\"exitCode\":3,\"reason\":\"Error\",\"message\":\"m\",\"startedAt\":\"t\"}}}]}}",
        "{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\",\"resourceVersion\":\"5\","
        "\"labels\":{\"pgbench.dev/benchmarkrun\":\"b\",\"pgbench.dev/role\":\"run\","
        "\"batch.kubernetes.io/job-completion-index\":\"1\"},"
        "\"annotations\":{\"pgbench.dev/start-at\":\"2027-01-15T08:00:01.000Z\"}},"
        "\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":"
        "\"Failed\",\"containerStatuses\":[{\"state\":{\"terminated\":{\"exitCode\":3,"
        "\"reason\":\"Error\",\"message\":\"m\",\"startedAt\":\"t\"}}}]}}",
        "pod");
    /* issue 31.3: the result's timing reads when a pod was scheduled and its container ran, the
     * apply (the run's creationTimestamp, until it ends), the run Job's creation and readyAt */
    check_transform(
        ctrl_transform_pod,
        "{\"metadata\":{\"name\":\"s\"},\"status\":{\"phase\":\"Succeeded\",\"conditions\":["
        "{\"type\":\"PodScheduled\",\"status\":\"True\",\"lastTransitionTime\":\"a\","
        "\"lastProbeTime\":null}],\"containerStatuses\":[{\"state\":{\"terminated\":{"
        "\"exitCode\":0,\"startedAt\":\"b\",\"finishedAt\":\"c\",\"containerID\":\"x\"}}}]}}",
        "{\"metadata\":{\"name\":\"s\"},\"status\":{\"phase\":\"Succeeded\",\"conditions\":["
        "{\"type\":\"PodScheduled\",\"status\":\"True\",\"lastTransitionTime\":\"a\"}],"
        "\"containerStatuses\":[{\"state\":{\"terminated\":{\"exitCode\":0,\"startedAt\":\"b\","
        "\"finishedAt\":\"c\"}}}]}}",
        "scheduled pod");
    check_transform(ctrl_transform_benchmarkrun,
                    "{\"metadata\":{\"name\":\"b\",\"creationTimestamp\":\"c\"},\"status\":{"
                    "\"phase\":\"Running\",\"readyAt\":\"r\",\"startAt\":\"s\",\"x\":1}}",
                    "{\"metadata\":{\"name\":\"b\",\"creationTimestamp\":\"c\"},\"status\":{"
                    "\"phase\":\"Running\",\"readyAt\":\"r\",\"startAt\":\"s\"}}",
                    "running br");
    /* a pod that does not start keeps why: its container's waiting state, an unscheduled pod's
     * PodScheduled condition (and no other condition); without a node, no spec */
    check_transform(
        ctrl_transform_pod,
        "{\"metadata\":{\"name\":\"q\"},\"spec\":{\"containers\":[]},\"status\":{\"phase\":"
        "\"Pending\",\"conditions\":["
        "{\"type\":\"Ready\",\"status\":\"False\",\"reason\":\"ContainersNotReady\"},"
        "{\"type\":\"Initialized\",\"status\":\"True\"},"
        "{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
        "\"message\":\"0/1 nodes\",\"lastProbeTime\":null}],\"containerStatuses\":[{\"name\":"
        "\"runner\",\"state\":{\"waiting\":{\"reason\":\"ErrImagePull\",\"message\":\"no\"}}}]}}",
        "{\"metadata\":{\"name\":\"q\"},\"status\":{\"phase\":\"Pending\",\"conditions\":["
        "{\"type\":\"Ready\",\"status\":\"False\"},"
        "{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
        "\"message\":\"0/1 nodes\"}],\"containerStatuses\":[{\"state\":{\"waiting\":{"
        "\"reason\":\"ErrImagePull\",\"message\":\"no\"}}}]}}",
        "waiting pod");
    check_transform(
        ctrl_transform_benchmarkrun,
        "{\"apiVersion\":\"a\",\"kind\":\"BenchmarkRun\",\"metadata\":{\"name\":\"b\","
        "\"namespace\":\"n\",\"uid\":\"u\",\"generation\":2,\"resourceVersion\":\"9\","
        "\"creationTimestamp\":\"c\",\"annotations\":{\"kubectl.kubernetes.io/"
        "last-applied-configuration\":\"{...}\"}},"
        "\"spec\":{\"workers\":1},\"status\":{\"phase\":\"Succeeded\",\"summary\":{\"tps\":1},"
        "\"timeline\":[],\"conditions\":[],\"startAt\":5,\"observedGeneration\":2}}",
        "{\"metadata\":{\"name\":\"b\",\"namespace\":\"n\",\"uid\":\"u\","
        "\"generation\":2,\"resourceVersion\":\"9\"},\"spec\":{\"workers\":"
        "1},\"status\":{\"phase\":\"Succeeded\",\"summary\":{\"tps\":1},\"conditions\":[],"
        "\"startAt\":5,\"observedGeneration\":2}}",
        "br (the summary's tps stays for /metrics, see test_metrics)");
}

/* A worker exactly on the barrier may carry a negative zero: its line says +0.000, as the result
 * ConfigMap's JSON (0) does (e2e 49 compares the two). */
static void test_worker_line_negative_zero(void **state)
{
    (void)state;
    cJSON *agg = cJSON_Parse("{\"workers\":[{\"index\":0,\"lateSeconds\":-0.0,\"endSeconds\":2}]}");
    assert_non_null(agg);
    struct api_worker w;
    memset(&w, 0, sizeof(w));
    w.exit_code = -1;
    w.pod = "r-0";
    w.node = "n1";
    cJSON *st = cJSON_CreateObject();
    set_results(st, agg, &w, 1);
    assert_string_equal(cJSON_GetArrayItem(util_jget(st, "workers"), 0)->valuestring,
                        "0 r-0 on node n1: pod r-0 did not finish, from +0.000 s to 2.000 s");
    cJSON_Delete(st);
    cJSON_Delete(agg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conditions),
        cmocka_unit_test(test_time),
        cmocka_unit_test(test_results_mapping_and_caps),
        cmocka_unit_test(test_diagnostics_from_runner_results),
        cmocka_unit_test(test_workers_skewed),
        cmocka_unit_test(test_display),
        cmocka_unit_test(test_worker_failures),
        cmocka_unit_test(test_worker_summary_only),
        cmocka_unit_test(test_worker_and_statement_lines),
        cmocka_unit_test(test_job_transform),
        cmocka_unit_test(test_hpa_timeline),
        cmocka_unit_test(test_transforms),
        cmocka_unit_test(test_worker_line_negative_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
