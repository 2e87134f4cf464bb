/* Aggregation of worker results. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "pkg/bench/aggregate.h"
#include "pkg/bench/result.h"
#include "test/unit/bench/fixture.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A worker result as the controller gets it: printed by the runner, read back from its log. */
static cJSON *through_text(cJSON *r)
{
    char *s = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    cJSON *back = NULL;
    assert_int_equal(bench_result_from_log(s, strlen(s), &back, NULL, 0), 0);
    free(s);
    return back;
}

/* A worker result from a console fixture, with a histogram from one -l file. */
static cJSON *worker(int index, const char *fixture, const char *logfile)
{
    size_t len = 0;
    char *text = fixture_read(fixture, &len);
    assert_non_null(text);
    struct bench_pgbench_result *pg = bench_pgbench_parse(text, len);
    free(text);
    struct bench_txlog *l = NULL;
    if (logfile) {
        l = bench_txlog_new();
        assert_int_equal(bench_txlog_read_file(l, logfile), 0);
    }
    struct bench_result_meta m = {.kind = "pgbench",
                                  .worker = index,
                                  .child_exit = 0,
                                  .complete = bench_pgbench_complete(pg, 0)};
    cJSON *r = bench_result_new(&m);
    bench_result_add_pgbench(r, pg, l ? l->hist : NULL, NULL);
    cJSON *we = cJSON_Parse("{\"samples\":10,\"events\":{\"CPU\":7,\"IO:WALSync\":3}}");
    bench_result_set_diagnostic(r, BK_WAIT_EVENTS, we);
    bench_txlog_free(l);
    bench_pgbench_result_free(pg);
    return through_text(r);
}

static void log_files(char paths[2][512])
{
    DIR *d = opendir("test/fixtures/pgbench/log-tpcb");
    assert_non_null(d);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d)))
        if (strncmp(de->d_name, "pgbench_log.", 12) == 0 && n < 2)
            (void)snprintf(paths[n++], 512, "test/fixtures/pgbench/log-tpcb/%s", de->d_name);
    closedir(d);
    assert_int_equal(n, 2);
}

static void test_two_workers(void **state)
{
    (void)state;
    char files[2][512];
    log_files(files);
    cJSON *w[2];
    w[0] = worker(0, "test/fixtures/pgbench/v15-progress.txt", files[0]);
    w[1] = worker(1, "test/fixtures/pgbench/v15-progress-split.stdout", files[1]);
    /* v15-progress-split.stdout has no progress lines (they went to stderr): only w0 timeline */
    char err[200];
    cJSON *a = bench_aggregate((const cJSON *const *)w, 2, err, sizeof(err));
    assert_non_null(a);
    assert_int_equal(bench_result_validate(a, err, sizeof(err)), 0);
    const cJSON *s = cJSON_GetObjectItem(a, "summary");
    const cJSON *s0 = cJSON_GetObjectItem(w[0], "summary"),
                *s1 = cJSON_GetObjectItem(w[1], "summary");
    assert_true(fabs(num(s, "tps") - (num(s0, "tps") + num(s1, "tps"))) < 1e-6);
    assert_int_equal(
        (int64_t)num(s, "transactionsProcessed"),
        (int64_t)(num(s0, "transactionsProcessed") + num(s1, "transactionsProcessed")));
    double n0 = num(s0, "transactionsProcessed"), n1 = num(s1, "transactionsProcessed");
    double wavg = (n0 * num(s0, "latencyAvgMs") + n1 * num(s1, "latencyAvgMs")) / (n0 + n1);
    assert_true(fabs(num(s, "latencyAvgMs") - wavg) < 1e-9);
    assert_true(fabs(num(s, "initialConnectionMs") -
                     fmax(num(s0, "initialConnectionMs"), num(s1, "initialConnectionMs"))) < 1e-9);
    /* merged histogram == histogram of both files read together */
    struct bench_txlog *all = bench_txlog_new();
    assert_int_equal(bench_txlog_read_dir(all, "test/fixtures/pgbench/log-tpcb", NULL, NULL), 0);
    assert_true(fabs(num(s, "latencyP99Ms") - (double)bench_hist_percentile(all->hist, 99) / 1000) <
                1e-9);
    assert_true(fabs(num(s, "latencyP50Ms") - (double)bench_hist_percentile(all->hist, 50) / 1000) <
                1e-9);
    assert_true(fabs(num(s, "latencyMaxMs") - (double)all->hist->max / 1000) < 1e-9);
    assert_int_equal((int)num(cJSON_GetObjectItem(a, "histogram"), "count"), 3000);
    assert_false(bench_aggregate_bounded(a)); /* merged: exact */
    bench_txlog_free(all);
    /* clients summed, workers listed, wait events summed */
    assert_int_equal((int)num(cJSON_GetObjectItem(a, "pgbench"), "clients"), 8);
    const cJSON *ws = cJSON_GetObjectItem(a, "workers");
    assert_int_equal(cJSON_GetArraySize(ws), 2);
    assert_int_equal((int)num(cJSON_GetArrayItem(ws, 1), "index"), 1);
    const cJSON *we = cJSON_GetObjectItem(a, "waitEvents");
    assert_int_equal((int)num(we, "samples"), 20);
    assert_int_equal((int)num(cJSON_GetObjectItem(we, "events"), "CPU"), 14);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(a, "complete")));
    const cJSON *tl = cJSON_GetObjectItem(a, "timeline");
    assert_int_equal(cJSON_GetArraySize(tl), 4);
    assert_int_equal((int)num(cJSON_GetArrayItem(tl, 0), "workers"), 1);
    const cJSON *ll = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "checks"), "littlesLaw");
    assert_non_null(ll);
    char *c = bench_result_compact(a, BENCH_COMPACT_LIMIT);
    assert_true(strlen(c) < BENCH_COMPACT_LIMIT);
    free(c);
    cJSON_Delete(a);
    cJSON_Delete(w[0]);
    cJSON_Delete(w[1]);
}

static void test_timeline_alignment(void **state)
{
    (void)state;
    cJSON *w[3];
    w[0] = worker(0, "test/fixtures/pgbench/v15-progress.txt", NULL);
    w[1] = worker(1, "test/fixtures/pgbench/v15-progress.txt", NULL);
    w[2] = NULL; /* a worker without a result */
    cJSON *a = bench_aggregate((const cJSON *const *)w, 3, NULL, 0);
    assert_non_null(a);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(a, "complete")));
    const cJSON *tl = cJSON_GetObjectItem(a, "timeline");
    const cJSON *t0 = cJSON_GetArrayItem(cJSON_GetObjectItem(w[0], "timeline"), 0);
    assert_int_equal(cJSON_GetArraySize(tl), 4);
    const cJSON *p = cJSON_GetArrayItem(tl, 0);
    assert_true(fabs(num(p, "tps") - 2 * num(t0, "tps")) < 1e-9);
    assert_true(fabs(num(p, "latencyMs") - num(t0, "latencyMs")) < 1e-9);
    assert_true(fabs(num(p, "stddevMs") - num(t0, "stddevMs")) < 1e-9); /* identical workers */
    assert_int_equal((int)num(p, "workers"), 2);
    /* percentiles null: the workers have no histograms */
    assert_true(
        cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "summary"), "latencyP99Ms")));
    const cJSON *ws = cJSON_GetObjectItem(a, "workers");
    assert_int_equal(cJSON_GetArraySize(ws), 3);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(ws, 2), "complete")));
    cJSON_Delete(a);
    cJSON_Delete(w[0]);
    cJSON_Delete(w[1]);
}

static void test_statements_weighted(void **state)
{
    (void)state;
    cJSON *w[2];
    w[0] = worker(0, "test/fixtures/pgbench/v15-failures-detailed-retries.txt", NULL);
    w[1] = worker(1, "test/fixtures/pgbench/v15-failures-no-retry.txt", NULL);
    cJSON *a = bench_aggregate((const cJSON *const *)w, 2, NULL, 0);
    const cJSON *st = cJSON_GetObjectItem(a, "statements");
    assert_int_equal(cJSON_GetArraySize(st), 5);
    const cJSON *upd = cJSON_GetArrayItem(st, 3);
    assert_int_equal((int)num(upd, "failures"), 5988 + 11870);
    assert_int_equal((int)num(upd, "retries"), 17761); /* only w0 has the column */
    double expect = (9060 * 0.169 + 4843 * 0.219) / (9060 + 4843);
    assert_true(fabs(num(upd, "latencyMs") - expect) < 1e-9);
    const cJSON *s = cJSON_GetObjectItem(a, "summary");
    assert_int_equal((int)num(s, "failedTransactions"), 5988 + 11870);
    assert_int_equal((int)num(s, "serializationFailures"), 5988);
    double pct = 100.0 * (5988 + 11870) / (9060 + 4843 + 5988 + 11870);
    assert_true(fabs(num(s, "failedPct") - pct) < 1e-9);
    cJSON_Delete(a);
    cJSON_Delete(w[0]);
    cJSON_Delete(w[1]);
}

static void test_errors(void **state)
{
    (void)state;
    char err[200];
    const cJSON *none[2] = {NULL, NULL};
    assert_null(bench_aggregate(none, 2, err, sizeof(err)));
    assert_non_null(strstr(err, "no worker result"));
    cJSON *pg = cJSON_Parse("{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":true}");
    cJSON *fio = cJSON_Parse("{\"schemaVersion\":1,\"kind\":\"fio\",\"complete\":true}");
    const cJSON *mixed[2] = {pg, fio};
    assert_null(bench_aggregate(mixed, 2, err, sizeof(err)));
    assert_non_null(strstr(err, "different kinds"));
    cJSON *bad = cJSON_Parse("{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":true,"
                             "\"histogram\":{\"unit\":\"ms\"}}");
    const cJSON *b[1] = {bad};
    assert_null(bench_aggregate(b, 1, err, sizeof(err)));
    assert_non_null(strstr(err, "worker result 0"));
    cJSON_Delete(pg);
    cJSON_Delete(fio);
    cJSON_Delete(bad);
}

static void test_fio_aggregate(void **state)
{
    (void)state;
    size_t len = 0;
    char *text = fixture_read("test/fixtures/fio/fio-3.33-wal-randrw.json", &len);
    struct bench_fio_result *f = NULL;
    assert_int_equal(bench_fio_parse(text, len, &f, NULL, 0), 0);
    cJSON *w[2];
    /* per-second series: worker 0 has seconds 1-2, worker 1 seconds 1-3 */
    f->jobs[0].series = calloc(3, sizeof(*f->jobs[0].series));
    assert_non_null(f->jobs[0].series);
    for (int i = 0; i < 2; i++) {
        struct bench_result_meta m = {.kind = "fio", .worker = i, .complete = true};
        f->jobs[0].nseries = 2 + (size_t)i;
        for (int k = 0; k < 3; k++)
            f->jobs[0].series[k] = (struct bench_fio_point){
                k + 1, {NAN, 100.0 * (k + 1) + i}, {NAN, 800.0 * (k + 1) + i}};
        w[i] = bench_result_new(&m);
        bench_result_add_fio(w[i], f);
    }
    cJSON *a = bench_aggregate((const cJSON *const *)w, 2, NULL, 0);
    const cJSON *series =
        cJSON_GetObjectItem(cJSON_GetArrayItem(bench_get(a, BK_FIO_JOBS), 0), "series");
    assert_int_equal(cJSON_GetArraySize(series), 3);
    const cJSON *s1 = cJSON_GetArrayItem(series, 0), *s3 = cJSON_GetArrayItem(series, 2);
    assert_true(num(s1, "t") == 1 && num(s1, "writeIops") == 201 && num(s1, "writeBwKiBs") == 1601);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(s1, "readIops")));
    assert_true(num(s3, "t") == 3 && num(s3, "writeIops") == 301);
    const cJSON *jobs = cJSON_GetObjectItem(cJSON_GetObjectItem(a, "fio"), "jobs");
    assert_int_equal(cJSON_GetArraySize(jobs), 2);
    const cJSON *wal = cJSON_GetArrayItem(jobs, 0);
    assert_true(fabs(num(cJSON_GetObjectItem(wal, "write"), "iops") - 2 * f->jobs[0].write.iops) <
                1e-6);
    assert_true(fabs(num(cJSON_GetObjectItem(wal, "sync"), "p99") - f->jobs[0].sync.p99_us) < 1e-9);
    assert_int_equal((int)num(cJSON_GetObjectItem(wal, "sync"), "samples"), 2 * 8384);
    cJSON_Delete(a);
    cJSON_Delete(w[0]);
    cJSON_Delete(w[1]);
    bench_fio_result_free(f);
    free(text);
}

/* The role a run connected as (issue 15.6): kept from the first worker that connected, in the
 * compact summary too; absent when no worker connected. */
static void test_user(void **state)
{
    (void)state;
    struct bench_result_meta none = {.kind = "pgbench", .worker = 0, .child_exit = -1};
    struct bench_result_meta bench = {.kind = "pgbench", .worker = 1, .user = "bench"};
    cJSON *w[2] = {bench_result_new(&none), bench_result_new(&bench)};
    assert_null(cJSON_GetObjectItemCaseSensitive(w[0], "user"));
    char *compact = bench_result_compact(w[1], 4096);
    assert_non_null(strstr(compact, "\"user\":\"bench\""));
    free(compact);
    const cJSON *const both[3] = {NULL, w[0], w[1]};
    cJSON *a = bench_aggregate(both, 3, NULL, 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(a, "user")->valuestring, "bench");
    cJSON_Delete(a);
    a = bench_aggregate((const cJSON *const *)w, 1, NULL, 0);
    assert_null(cJSON_GetObjectItemCaseSensitive(a, "user"));
    cJSON_Delete(a);
    cJSON_Delete(w[0]);
    cJSON_Delete(w[1]);
}

/* Compact results (no histogram): the aggregate's percentiles are the workers' own, the largest
 * of those with transactions (an upper bound of the merged value), maxima exact; a worker with
 * transactions but without a value leaves that row null. Expected values written by hand. */
static void test_percentiles_from_workers(void **state)
{
    (void)state;
    const char *json[3] = {
        "{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":true,\"summary\":{"
        "\"transactionsProcessed\":100,\"latencyP50Ms\":2.5,\"latencyP90Ms\":4,"
        "\"latencyP99Ms\":10,\"latencyMaxMs\":30,\"latencyMinMs\":0.5}}",
        "{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":true,\"summary\":{"
        "\"transactionsProcessed\":50,\"latencyP50Ms\":3,\"latencyP99Ms\":8,"
        "\"latencyMaxMs\":40,\"latencyMinMs\":0.1}}",
        /* no transactions: its 99 ms does not count */
        "{\"schemaVersion\":1,\"kind\":\"pgbench\",\"complete\":true,\"summary\":{"
        "\"transactionsProcessed\":0,\"latencyP50Ms\":99,\"latencyP99Ms\":99}}",
    };
    cJSON *w[3];
    for (int i = 0; i < 3; i++)
        assert_non_null(w[i] = cJSON_Parse(json[i]));
    char err[200];
    cJSON *a = bench_aggregate((const cJSON *const *)w, 3, err, sizeof(err));
    assert_non_null(a);
    const cJSON *s = cJSON_GetObjectItem(a, "summary");
    assert_true(num(s, "latencyP50Ms") == 3);
    assert_true(num(s, "latencyP99Ms") == 10);
    assert_true(num(s, "latencyMaxMs") == 40);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(s, "latencyP90Ms"))); /* worker 1 lacks it */
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(s, "latencyMinMs"))); /* not in status */
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(a, "histogram")));
    assert_true(bench_aggregate_bounded(a));
    cJSON_Delete(a);
    /* one worker with transactions: its own values, exact */
    const cJSON *one[2] = {w[0], w[2]};
    a = bench_aggregate(one, 2, err, sizeof(err));
    s = cJSON_GetObjectItem(a, "summary");
    assert_true(num(s, "latencyP50Ms") == 2.5);
    assert_true(num(s, "latencyP90Ms") == 4);
    assert_true(num(s, "latencyMaxMs") == 30);
    assert_false(bench_aggregate_bounded(a));
    cJSON_Delete(a);
    for (int i = 0; i < 3; i++)
        cJSON_Delete(w[i]);
}

/* ---- the fold against main's aggregate ----
 * Eight workers as varied as the fixtures allow (a worker without a result, warm-up cuts,
 * failures, retries, a rate limit, weighted statements, errors, windows, wait events, the
 * latency series), aggregated one at a time. The expected output, test/fixtures/aggregate/
 * golden-8.json, was written by bench_aggregate as it was before it folded one worker at a
 * time (main at b954ee4, which held every worker's tree; the verdict, which main's 8250230
 * decides anew from the aggregate, re-recorded then, nothing else changed): every figure must
 * stay identical.
 * PGBO_WRITE_GOLDEN=1 rewrites it. */

#define GOLDEN "test/fixtures/aggregate/golden-8.json"

struct gen_worker {
    const char *console, *log;
    double warmup;
};

static const struct gen_worker GEN[8] = {
    {"test/fixtures/pgbench/v15-progress.txt", "test/fixtures/pgbench/log-tpcb/pgbench_log.14700",
     0},
    {"test/fixtures/pgbench/v15-progress-split.stdout",
     "test/fixtures/pgbench/log-tpcb/pgbench_log.14700.1", 0},
    {"test/fixtures/pgbench/v15-log-tpcb.txt", "test/fixtures/pgbench/log-tpcb/pgbench_log.14700",
     1},
    {NULL, NULL, 0}, /* no result */
    {"test/fixtures/pgbench/v15-log-retries.txt",
     "test/fixtures/pgbench/log-retries/pgbench_log.14705", 0},
    {"test/fixtures/pgbench/v15-log-failed.txt",
     "test/fixtures/pgbench/log-failed/pgbench_log.14800", 0},
    {"test/fixtures/pgbench/v15-log-rate.txt", "test/fixtures/pgbench/log-rate/pgbench_log.14711",
     0.5},
    {"test/fixtures/pgbench/v15-tpcb-r.txt", "test/fixtures/pgbench/log-tpcb/pgbench_log.14700.1",
     0},
};

static cJSON *gen_result(int i)
{
    const struct gen_worker *g = &GEN[i];
    if (!g->console)
        return NULL;
    size_t len = 0;
    char *text = fixture_read(g->console, &len);
    assert_non_null(text);
    struct bench_pgbench_result *pg = bench_pgbench_parse(text, len);
    free(text);
    struct bench_txlog *l = bench_txlog_new();
    bench_txlog_start(l, g->warmup);
    assert_int_equal(bench_txlog_read_file(l, g->log), 0);
    struct bench_result_meta m = {.kind = "pgbench",
                                  .worker = i,
                                  .child_exit = i == 5 ? 2 : 0,
                                  .complete = i != 5 && bench_pgbench_complete(pg, 0)};
    cJSON *r = bench_result_new(&m);
    bench_result_add_pgbench(r, pg, l->hist, NULL);
    bench_result_add_txlog(r, l, g->warmup);
    char we[200];
    (void)snprintf(we, sizeof(we),
                   "{\"samples\":%d,\"backendSamples\":%d,\"events\":{\"CPU\":%d,\"IO:WALSync\":%d,"
                   "\"Lock:tuple\":%d}}",
                   10 + i, 20 + 2 * i, 7 + i, 3, i % 3);
    bench_result_set_diagnostic(r, BK_WAIT_EVENTS, cJSON_Parse(we));
    bench_result_add_window(r, 1700000000.0, 0.25 + 0.01 * i, 0.003 * i, 30.0 + 0.02 * (7 - i));
    if (i == 5) {
        bench_result_add_error(r, "pgbench exited with 2");
        bench_result_add_error(r, "client 3 aborted");
    }
    bench_txlog_free(l);
    bench_pgbench_result_free(pg);
    return through_text(r);
}

static void test_fold_matches_golden(void **state)
{
    (void)state;
    cJSON *w[8];
    for (int i = 0; i < 8; i++)
        w[i] = gen_result(i);
    char err[200] = "";
    cJSON *a = bench_aggregate((const cJSON *const *)w, 8, err, sizeof(err));
    assert_non_null(a);
    char *got = cJSON_PrintUnformatted(a);
    if (getenv("PGBO_WRITE_GOLDEN")) {
        char *pretty = cJSON_Print(a);
        FILE *f = fopen(GOLDEN, "w");
        assert_non_null(f);
        assert_true(fputs(pretty, f) >= 0 && fputc('\n', f) == '\n');
        assert_int_equal(fclose(f), 0);
        free(pretty);
    }
    char *text = fixture_read(GOLDEN, NULL);
    assert_non_null(text);
    cJSON *golden = cJSON_Parse(text);
    free(text);
    assert_non_null(golden);
    char *want = cJSON_PrintUnformatted(golden);
    if (strcmp(got, want) != 0) {
        size_t k = 0;
        while (got[k] && got[k] == want[k])
            k++;
        print_error("aggregate differs from %s at byte %zu:\n got ...%.200s\nwant ...%.200s\n",
                    GOLDEN, k, got + (k > 80 ? k - 80 : 0), want + (k > 80 ? k - 80 : 0));
        fail();
    }
    /* an oracle besides the recording: the counts are the workers' own, summed */
    double tx = 0, hist = 0;
    for (int i = 0; i < 8; i++) {
        tx += w[i] ? num(cJSON_GetObjectItem(w[i], "summary"), "transactionsProcessed") : 0;
        hist += w[i] ? num(cJSON_GetObjectItem(w[i], "histogram"), "count") : 0;
    }
    assert_true(num(cJSON_GetObjectItem(a, "summary"), "transactionsProcessed") == tx);
    assert_true(num(cJSON_GetObjectItem(a, "histogram"), "count") == hist);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(a, "workers")), 8);
    assert_non_null(cJSON_GetObjectItem(a, "latencySeries"));
    cJSON_Delete(golden);
    free(want);
    free(got);
    cJSON_Delete(a);
    for (int i = 0; i < 8; i++)
        cJSON_Delete(w[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_workers),
        cmocka_unit_test(test_timeline_alignment),
        cmocka_unit_test(test_statements_weighted),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_fio_aggregate),
        cmocka_unit_test(test_user),
        cmocka_unit_test(test_percentiles_from_workers),
        cmocka_unit_test(test_fold_matches_golden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
