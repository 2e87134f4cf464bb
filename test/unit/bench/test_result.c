/* Result JSON assembly, compact summary, human summary and log reader tests. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "pkg/bench/result.h"
#include "test/unit/bench/fixture.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static cJSON *pgbench_result(const char *fixture, const char *logdir, int exit_status)
{
    size_t len = 0;
    char *text = fixture_read(fixture, &len);
    assert_non_null(text);
    struct bench_pgbench_result *pg = bench_pgbench_parse(text, len);
    free(text);
    struct bench_txlog *l = NULL;
    if (logdir) {
        l = bench_txlog_new();
        assert_int_equal(bench_txlog_read_dir(l, logdir, NULL, NULL), 0);
    }
    bool complete = bench_pgbench_complete(pg, exit_status);
    struct bench_result_meta m = {.kind = "pgbench",
                                  .worker = 2,
                                  .start_time = 1796283787.25,
                                  .end_time = 1796283797.5,
                                  .exit_code = complete ? BENCH_EXIT_OK : BENCH_EXIT_PARTIAL,
                                  .child_exit = exit_status,
                                  .complete = complete};
    cJSON *r = bench_result_new(&m);
    bench_result_add_pgbench(r, pg, l ? l->hist : NULL, NULL);
    bench_txlog_free(l);
    bench_pgbench_result_free(pg);
    return r;
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void test_issue_field_names(void **state)
{
    (void)state;
    cJSON *r = pgbench_result("test/fixtures/pgbench/v15-log-tpcb.txt",
                              "test/fixtures/pgbench/log-tpcb", 0);
    assert_int_equal(bench_result_validate(r, NULL, 0), 0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r, "complete")));
    assert_int_equal((int)num(r, "schemaVersion"), 1);
    assert_int_equal((int)num(r, "worker"), 2);
    assert_string_equal(cJSON_GetObjectItem(r, "startTime")->valuestring,
                        "2026-12-03T07:43:07.250Z");
    const cJSON *s = cJSON_GetObjectItem(r, "summary");
    const char *required[] = {"tps",
                              "latencyAvgMs",
                              "latencyStddevMs",
                              "initialConnectionMs",
                              "transactionsProcessed",
                              "failedTransactions",
                              "abortedClients",
                              "latencyP50Ms",
                              "latencyP90Ms",
                              "latencyP95Ms",
                              "latencyP99Ms",
                              "latencyP999Ms",
                              "latencyMaxMs"};
    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
        if (!cJSON_GetObjectItem(s, required[i]))
            fail_msg("summary.%s missing", required[i]);
    assert_int_equal((int)num(s, "transactionsProcessed"), 3000);
    assert_int_equal((int)num(s, "failedTransactions"), 0);
    assert_true(num(s, "latencyP50Ms") > 0);
    assert_true(num(s, "latencyP50Ms") <= num(s, "latencyP99Ms"));
    assert_true(num(s, "latencyP99Ms") <= num(s, "latencyMaxMs"));
    assert_int_equal((int)num(s, "histogramCount"), 3000);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(s, "latencyStddevMs"))); /* not printed */
    const cJSON *cfg = cJSON_GetObjectItem(r, "pgbench");
    assert_int_equal((int)num(cfg, "clients"), 2);
    assert_int_equal((int)num(cfg, "threads"), 2);
    assert_int_equal((int)num(cfg, "scaleFactor"), 2);
    const cJSON *h = cJSON_GetObjectItem(r, "histogram");
    assert_true(cJSON_IsObject(h));
    assert_int_equal((int)num(h, "count"), 3000);
    cJSON_Delete(r);
}

static void test_statements_and_timeline(void **state)
{
    (void)state;
    cJSON *r = pgbench_result("test/fixtures/pgbench/v15-failures-detailed-retries.txt", NULL, 0);
    const cJSON *st = cJSON_GetObjectItem(r, "statements");
    assert_int_equal(cJSON_GetArraySize(st), 5);
    const cJSON *upd = cJSON_GetArrayItem(st, 3);
    assert_int_equal((int)num(upd, "failures"), 5988);
    assert_int_equal((int)num(upd, "retries"), 17761);
    assert_true(fabs(num(upd, "latencyMs") - 0.169) < 1e-9);
    assert_non_null(strstr(cJSON_GetObjectItem(upd, "command")->valuestring, "UPDATE"));
    const cJSON *s = cJSON_GetObjectItem(r, "summary");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(s, "latencyIncludesFailures")));
    assert_int_equal((int)num(s, "serializationFailures"), 5988);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(s, "latencyP99Ms"))); /* no -l log */
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(r, "histogram")));
    cJSON_Delete(r);

    r = pgbench_result("test/fixtures/pgbench/v15-rate-limit-skipped.txt", NULL, 0);
    const cJSON *tl = cJSON_GetObjectItem(r, "timeline");
    assert_int_equal(cJSON_GetArraySize(tl), 3);
    assert_true(fabs(num(cJSON_GetArrayItem(tl, 0), "lagMs") - 0.153) < 1e-9);
    assert_int_equal((int)num(cJSON_GetArrayItem(tl, 0), "skipped"), 152);
    cJSON_Delete(r);
}

static void test_aborted_compact(void **state)
{
    (void)state;
    cJSON *r = pgbench_result("test/fixtures/pgbench/v14-select-only-aborted.txt", NULL, 2);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(r, "complete")));
    assert_int_equal((int)num(r, "exitCode"), BENCH_EXIT_PARTIAL);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "errors")), 6);
    assert_int_equal((int)num(cJSON_GetObjectItem(r, "summary"), "abortedClients"), 5);
    char *c = bench_result_compact(r, BENCH_COMPACT_LIMIT);
    assert_non_null(c);
    assert_true(strlen(c) < BENCH_COMPACT_LIMIT);
    cJSON *p = cJSON_Parse(c);
    assert_non_null(p);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(p, "complete")));
    assert_int_equal((int)num(cJSON_GetObjectItem(p, "summary"), "abortedClients"), 5);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(p, "errors")), 6);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(p, "truncated")));
    cJSON_Delete(p);
    free(c);
    char *human = bench_result_human(r);
    assert_non_null(strstr(human, "INCOMPLETE"));
    assert_non_null(strstr(human, "client 5 aborted"));
    free(human);
    cJSON_Delete(r);
}

static void test_compact_truncates(void **state)
{
    (void)state;
    struct bench_result_meta m = {
        .kind = "pgbench", .worker = -1, .exit_code = 3, .child_exit = -1};
    cJSON *r = bench_result_new(&m);
    char msg[2000];
    memset(msg, 'x', sizeof(msg) - 1);
    msg[sizeof(msg) - 1] = '\0';
    msg[5] = '"'; /* needs escaping */
    for (int i = 0; i < 100; i++)
        bench_result_add_error(r, msg);
    /* error strings are capped on entry */
    assert_true(strlen(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "errors"), 0)->valuestring) <
                BENCH_PGBENCH_MAX_ERROR_LEN);
    for (size_t limit = 256; limit <= 4096; limit += 97) {
        char *c = bench_result_compact(r, limit);
        assert_non_null(c);
        assert_true(strlen(c) < limit);
        cJSON *p = cJSON_Parse(c);
        assert_non_null(p);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p, "truncated")));
        assert_int_equal((int)num(p, "exitCode"), 3);
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(p, "worker")));
        cJSON_Delete(p);
        free(c);
    }
    cJSON_Delete(r);
}

static void test_fio_result(void **state)
{
    (void)state;
    size_t len = 0;
    char *text = fixture_read("test/fixtures/fio/fio-3.33-wal-randrw.json", &len);
    struct bench_fio_result *f = NULL;
    assert_int_equal(bench_fio_parse(text, len, &f, NULL, 0), 0);
    struct bench_result_meta m = {.kind = "fio", .worker = 0, .complete = true};
    cJSON *r = bench_result_new(&m);
    bench_result_add_fio(r, f);
    assert_int_equal(bench_result_validate(r, NULL, 0), 0);
    char *c = bench_result_compact(r, BENCH_COMPACT_LIMIT);
    cJSON *p = cJSON_Parse(c);
    /* the compact form keeps the result's own shape, so it aggregates like a full result */
    const cJSON *jobs = cJSON_GetObjectItem(cJSON_GetObjectItem(p, "fio"), "jobs");
    assert_int_equal(cJSON_GetArraySize(jobs), 2);
    const cJSON *wal = cJSON_GetArrayItem(jobs, 0);
    assert_true(fabs(num(cJSON_GetObjectItem(wal, "sync"), "p99") - 1974.272) < 1e-9);
    assert_null(cJSON_GetObjectItem(wal, "read")); /* the WAL job did no reads */
    assert_true(num(cJSON_GetObjectItem(wal, "write"), "iops") > 0);
    cJSON_Delete(p);
    free(c);
    char *h = bench_result_human(r);
    assert_non_null(strstr(h, "fio wal:"));
    assert_non_null(strstr(h, "sync p99 1974.272 us"));
    free(h);
    cJSON_Delete(r);
    bench_fio_result_free(f);
    free(text);
}

static void test_from_log(void **state)
{
    (void)state;
    const char *log = "starting\n{\"not\":\"a result\"}\n"
                      "{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":true}\n"
                      "pgbench: some stderr after it\n\n";
    cJSON *o = NULL;
    char err[128];
    assert_int_equal(bench_result_from_log(log, strlen(log), &o, err, sizeof(err)), 0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "complete")));
    cJSON_Delete(o);
    const char *v2 = "{\"schemaVersion\":2,\"kind\":\"pgbench\",\"complete\":true}";
    assert_int_equal(bench_result_from_log(v2, strlen(v2), &o, err, sizeof(err)), -EPROTO);
    assert_int_equal(bench_result_from_log("a\nb\n", 4, &o, err, sizeof(err)), -ENOENT);
    assert_int_equal(bench_result_from_log("", 0, &o, err, sizeof(err)), -ENOENT);
    cJSON *bad = cJSON_Parse("{\"schemaVersion\":1,\"kind\":\"x\",\"complete\":true}");
    assert_int_equal(bench_result_validate(bad, err, sizeof(err)), -EINVAL);
    cJSON_Delete(bad);
}

static void test_checks(void **state)
{
    (void)state;
    cJSON *ll = bench_check_littles_law(20, 10.0, 1900, false);
    assert_true(fabs(num(ll, "predictedTps") - 2000) < 1e-9);
    assert_true(fabs(num(ll, "deviationPct") - (-5)) < 1e-9);
    cJSON_Delete(ll);
    assert_null(bench_check_littles_law(20, 0, 100, false));
    cJSON *ds = bench_check_dataset(100 << 20, 128 << 20);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ds, "fitsInSharedBuffers")));
    assert_true(cJSON_IsString(cJSON_GetObjectItem(ds, "warning")));
    struct bench_result_meta m = {.kind = "pgbench", .worker = -1};
    cJSON *r = bench_result_new(&m);
    assert_int_equal(bench_result_set_diagnostic(r, BK_CHECKS_DATASET, ds), 0);
    assert_int_equal(bench_result_set_diagnostic(r, BK_WAIT_EVENTS, cJSON_CreateObject()), 0);
    assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "checks"), "dataset"));
    assert_non_null(cJSON_GetObjectItem(r, "waitEvents"));
    assert_int_equal(bench_result_set_diagnostic(r, BK_SERVER, NULL), -EINVAL);
    char *h = bench_result_human(r);
    assert_non_null(strstr(h, "fits in shared_buffers"));
    free(h);
    cJSON_Delete(r);
    ds = bench_check_dataset(10LL << 30, 128 << 20);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(ds, "fitsInSharedBuffers")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(ds, "warning")));
    cJSON_Delete(ds);
}

/* Regression: the reason of an init that ran after --skip-if-initialized's check lacked its
 * closing parenthesis ("initialized scale 1 in 0.7 s (table pgbench_branches does not exist"). */
static void test_init_reason(void **state)
{
    (void)state;
    cJSON *r = cJSON_CreateObject();
    struct bench_init_outcome o = {.complete = true,
                                   .scale = 1,
                                   .duration_s = 0.72,
                                   .why = "table pgbench_branches does not exist",
                                   .steps = "dtGvp"};
    bench_result_add_init(r, &o);
    assert_string_equal(cJSON_GetStringValue(bench_get(r, BK_INIT_REASON)),
                        "initialized scale 1 in 0.7 s (table pgbench_branches does not exist)");
    assert_string_equal(cJSON_GetStringValue(bench_get(r, BK_INIT_STEPS)), "dtGvp");
    cJSON_Delete(r);

    r = cJSON_CreateObject();
    o.why = NULL;
    bench_result_add_init(r, &o);
    assert_string_equal(cJSON_GetStringValue(bench_get(r, BK_INIT_REASON)),
                        "initialized scale 1 in 0.7 s");
    cJSON_Delete(r);

    r = cJSON_CreateObject();
    o = (struct bench_init_outcome){.skipped = true,
                                    .complete = true,
                                    .scale = 1,
                                    .duration_s = 0.1,
                                    .why = "scale 1 is there"};
    bench_result_add_init(r, &o);
    assert_string_equal(cJSON_GetStringValue(bench_get(r, BK_INIT_REASON)), "scale 1 is there");
    assert_true(cJSON_IsTrue(bench_get(r, BK_INIT_SKIPPED)));
    assert_null(bench_get(r, BK_INIT_STEPS));
    cJSON_Delete(r);

    r = cJSON_CreateObject();
    o = (struct bench_init_outcome){.scale = 2, .duration_s = 1, .steps = "dtgvp"};
    bench_result_add_init(r, &o);
    assert_string_equal(cJSON_GetStringValue(bench_get(r, BK_INIT_REASON)),
                        "initialization of scale 2 failed");
    cJSON_Delete(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_issue_field_names),
        cmocka_unit_test(test_statements_and_timeline),
        cmocka_unit_test(test_aborted_compact),
        cmocka_unit_test(test_compact_truncates),
        cmocka_unit_test(test_fio_result),
        cmocka_unit_test(test_from_log),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_init_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
