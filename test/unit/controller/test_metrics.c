/* /metrics formatted from a fake BenchmarkRun cache: per-run series in base units, phases, runs
 * without values, the operator's own families (names kept), a standby, the reconcile histogram,
 * the cache transform keeping what the per-run series read, and `promtool check metrics` on the
 * text when promtool is installed. */
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
#include <sys/wait.h>
#include <unistd.h>

#include "pkg/bench/fields.h"
#include "pkg/controller/cache.h"
#include "pkg/controller/controller.h"
#include "pkg/controller/metrics.h"

/* The fake cache: a JSON array of BenchmarkRuns as the informer keeps them. */
static void foreach_item(const void *cache, ctrl_metrics_run_fn fn, void *ctx)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, (const cJSON *)cache) fn(it, ctx);
}

static const char runs_json[] =
    "["
    /* a finished pgbench run (pgbench >= 15: failures counted) */
    "{\"metadata\":{\"name\":\"tpcb\",\"namespace\":\"team-b\"},\"spec\":{},"
    "\"status\":{\"phase\":\"Succeeded\",\"summary\":{\"tps\":1234.5678901234,"
    "\"latencyMs\":{\"avg\":3.2,\"p50\":2.5,\"p90\":4.75,\"p95\":6,\"p99\":12.5,"
    "\"p999\":40.125},\"failed\":3}}},"
    /* running: no results yet */
    "{\"metadata\":{\"name\":\"live\",\"namespace\":\"team-a\"},"
    "\"status\":{\"phase\":\"Running\"}},"
    /* just created: no status at all counts as Pending */
    "{\"metadata\":{\"name\":\"new\",\"namespace\":\"team-a\"},\"spec\":{}},"
    /* pgbench 14: no failure count, no percentiles without a log */
    "{\"metadata\":{\"name\":\"old-pg\",\"namespace\":\"team-b\"},"
    "\"status\":{\"phase\":\"Failed\",\"summary\":{\"tps\":10,\"latencyMs\":{\"avg\":100,"
    "\"p99\":null}}}}"
    "]";

static char *format(const struct ctrl_metrics_source *src)
{
    struct buf out = BUF_INIT(0);
    ctrl_metrics_format(src, &out);
    char *s = buf_steal(&out);
    assert_non_null(s);
    return s;
}

static void assert_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p += n)
        if ((p == text || p[-1] == '\n') && p[n] == '\n')
            return;
    fail_msg("line missing: %s\n---\n%s", line, text);
}

static void assert_no_line_starting(const char *text, const char *prefix)
{
    for (const char *p = text; (p = strstr(p, prefix)) != NULL; p++)
        if (p == text || p[-1] == '\n')
            fail_msg("unexpected line starting %s\n---\n%s", prefix, text);
}

static size_t count_lines_starting(const char *text, const char *prefix)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, prefix)) != NULL; p++)
        if (p == text || p[-1] == '\n')
            n++;
    return n;
}

/* Every sample belongs to a family declared before it by one HELP and one TYPE line; a summary's
 * samples carry the family name itself, a histogram's _bucket/_sum/_count. */
static void check_structure(const char *text)
{
    char family[200] = "", type[32] = "";
    char *copy = strdup(text), *save = NULL;
    assert_non_null(copy);
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char name[200], t[32];
        if (sscanf(l, "# TYPE %199s %31s", name, t) == 2) {
            assert_string_equal(name, family); /* HELP came first */
            (void)snprintf(type, sizeof(type), "%s", t);
            assert_int_equal(count_lines_starting(text, l), 1);
            continue;
        }
        if (sscanf(l, "# HELP %199s", name) == 1) {
            (void)snprintf(family, sizeof(family), "%s", name);
            type[0] = '\0';
            const char *help = l + strlen("# HELP ") + strlen(name);
            assert_true(strlen(help) > 10);
            continue;
        }
        assert_true(type[0] != '\0');
        size_t n = strcspn(l, "{ ");
        char sample[200];
        assert_true(n < sizeof(sample));
        memcpy(sample, l, n);
        sample[n] = '\0';
        if (strcmp(type, "histogram") == 0) {
            size_t fl = strlen(family);
            assert_memory_equal(sample, family, fl);
            const char *suffix = sample + fl;
            assert_true(strcmp(suffix, "_bucket") == 0 || strcmp(suffix, "_sum") == 0 ||
                        strcmp(suffix, "_count") == 0);
        } else {
            assert_string_equal(sample, family);
        }
        /* the value parses whole */
        const char *v = strrchr(l, ' ');
        assert_non_null(v);
        char *end = NULL;
        double d = strtod(v + 1, &end);
        (void)d;
        assert_true(end && *end == '\0');
    }
    free(copy);
}

/* The real tool as the oracle, when it is installed. */
static void promtool_check(const char *text)
{
    if (system("command -v promtool >/dev/null 2>&1") != 0) {
        print_message("promtool not installed: `promtool check metrics` skipped "
                      "(scripts/deps.sh installs Debian's prometheus)\n");
        return;
    }
    char path[] = "/tmp/test_metrics_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t len = strlen(text);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
    char cmd[300];
    (void)snprintf(cmd, sizeof(cmd), "promtool check metrics <%s 2>&1", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char msg[4096];
    size_t n = fread(msg, 1, sizeof(msg) - 1, p);
    msg[n] = '\0';
    int rc = pclose(p);
    (void)unlink(path);
    if (rc != 0 || n != 0)
        fail_msg("promtool check metrics (exit %d): %s", WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, msg);
}

static struct ctrl_metrics_controller fake_controller(cJSON *cache)
{
    struct ctrl_metrics_controller c = {
        .reconciles = 10,
        .reconcile_errors = 2,
        .conflicts = 1,
        .creates = 4,
        .deletes = 1,
        .status_writes = 7,
        .events_sent = 5,
        .write_errors = 3,
        .dropped_events = 6,
        .dropped_actions = 9,
        .queue_depth = 2,
        .inflight = 1,
        .cached_runs = (size_t)cJSON_GetArraySize(cache),
        .cached_jobs = 3,
        .cached_pods = 4,
        .foreach_run = foreach_item,
        .cache = cache,
    };
    ctrl_metrics_observe(&c.reconcile_seconds, 0.002);
    return c;
}

static void test_run_series(void **state)
{
    (void)state;
    cJSON *cache = cJSON_Parse(runs_json);
    assert_non_null(cache);
    struct ctrl_metrics_controller c = fake_controller(cache);
    struct kube_client_stats st = {.requests = 100, .errors = 4, .retries = 2};
    struct ctrl_metrics_source src = {.ctrl = &c, .client = &st, .leader = true, .rss_bytes = 4096};
    char *t = format(&src);

    /* base units: the status' milliseconds / 1000, numbers written to read back exactly */
    assert_line(t, "pgbench_operator_benchmarkrun_tps{namespace=\"team-b\",name=\"tpcb\"} "
                   "1234.5678901234");
    const char *q[][2] = {{"0.5", "0.0025"},
                          {"0.9", "0.00475"},
                          {"0.95", "0.006"},
                          {"0.99", "0.0125"},
                          {"0.999", "0.040125"}};
    for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
        char line[200];
        (void)snprintf(line, sizeof(line),
                       "pgbench_operator_benchmarkrun_latency_seconds{namespace=\"team-b\","
                       "name=\"tpcb\",quantile=\"%s\"} %s",
                       q[i][0], q[i][1]);
        assert_line(t, line);
    }
    assert_line(t, "pgbench_operator_benchmarkrun_latency_average_seconds{namespace=\"team-b\","
                   "name=\"tpcb\"} 0.0032");
    assert_line(t, "pgbench_operator_benchmarkrun_failed_transactions{namespace=\"team-b\","
                   "name=\"tpcb\"} 3");
    /* values the status lacks have no series, not a 0 */
    assert_line(t, "pgbench_operator_benchmarkrun_tps{namespace=\"team-b\",name=\"old-pg\"} 10");
    assert_line(t, "pgbench_operator_benchmarkrun_latency_average_seconds{namespace=\"team-b\","
                   "name=\"old-pg\"} 0.1");
    assert_no_line_starting(t, "pgbench_operator_benchmarkrun_latency_seconds{namespace=\"team-b\","
                               "name=\"old-pg\"");
    assert_no_line_starting(t, "pgbench_operator_benchmarkrun_failed_transactions{namespace="
                               "\"team-b\",name=\"old-pg\"");
    assert_no_line_starting(t, "pgbench_operator_benchmarkrun_tps{namespace=\"team-a\"");
    assert_no_line_starting(t,
                            "pgbench_operator_benchmarkrun_latency_seconds{namespace=\"team-a\"");

    /* phase: 1 for the current one, 0 for the five others, for every run */
    const char *phases[] = {"Pending",    "Initializing", "Running",
                            "Collecting", "Succeeded",    "Failed"};
    const char *runs[][3] = {{"team-a", "live", "Running"},
                             {"team-a", "new", "Pending"},
                             {"team-b", "old-pg", "Failed"},
                             {"team-b", "tpcb", "Succeeded"}};
    for (size_t r = 0; r < 4; r++)
        for (size_t p = 0; p < 6; p++) {
            char line[200];
            (void)snprintf(line, sizeof(line),
                           "pgbench_operator_benchmarkrun_phase{namespace=\"%s\",name=\"%s\","
                           "phase=\"%s\"} %d",
                           runs[r][0], runs[r][1], phases[p], strcmp(phases[p], runs[r][2]) == 0);
            assert_line(t, line);
        }
    assert_int_equal(count_lines_starting(t, "pgbench_operator_benchmarkrun_phase{"), 24);
    /* sorted by namespace, then name: the output does not depend on the cache's order */
    const char *a = strstr(t, "benchmarkrun_phase{namespace=\"team-a\",name=\"live\"");
    const char *b = strstr(t, "benchmarkrun_phase{namespace=\"team-a\",name=\"new\"");
    const char *cc = strstr(t, "benchmarkrun_phase{namespace=\"team-b\",name=\"old-pg\"");
    assert_true(a && b && cc && a < b && b < cc);

    /* the totals by phase agree */
    assert_line(t, "pgbench_operator_benchmarkruns{phase=\"Pending\"} 1");
    assert_line(t, "pgbench_operator_benchmarkruns{phase=\"Running\"} 1");
    assert_line(t, "pgbench_operator_benchmarkruns{phase=\"Succeeded\"} 1");
    assert_line(t, "pgbench_operator_benchmarkruns{phase=\"Failed\"} 1");
    assert_line(t, "pgbench_operator_benchmarkruns{phase=\"Collecting\"} 0");

    /* the help says which status fields a family reads */
    assert_line(t, "# HELP pgbench_operator_benchmarkrun_latency_seconds Transaction latency of "
                   "the run by quantile, from the merged latency histogram of its successful "
                   "transactions (status.summary.latencyMs.p50, p90, p95, p99, p999 / 1000).");
    assert_line(t, "# TYPE pgbench_operator_benchmarkrun_latency_seconds summary");

    /* the client's retries */
    assert_line(t, "pgbench_operator_api_retries_total 2");
    assert_line(t, "# TYPE pgbench_operator_api_retries_total counter");
    assert_line(t, "pgbench_operator_leader 1");
    assert_line(t, "process_resident_memory_bytes 4096");

    check_structure(t);
    promtool_check(t);
    free(t);
    cJSON_Delete(cache);
}

/* Every family the operator had before metrics.c, with its meaning (e2e 40 and 45 grep them). */
static void test_operator_families_kept(void **state)
{
    (void)state;
    cJSON *cache = cJSON_Parse(runs_json);
    struct ctrl_metrics_controller c = fake_controller(cache);
    struct kube_client_stats st = {.requests = 100, .errors = 4, .watch_restarts = 6, .relists = 8};
    struct ctrl_metrics_source src = {.ctrl = &c,
                                      .client = &st,
                                      .leader = true,
                                      .rss_bytes = 1,
                                      .heap_used_bytes = 3000,
                                      .heap_free_bytes = 700};
    char *t = format(&src);
    assert_line(t, "pgbench_operator_heap_bytes{state=\"used\"} 3000");
    assert_line(t, "pgbench_operator_heap_bytes{state=\"free\"} 700");
    const char *types[][2] = {
        {"pgbench_operator_benchmarkruns", "gauge"},
        {"pgbench_operator_reconcile_duration_seconds", "histogram"},
        {"pgbench_operator_reconcile_total", "counter"},
        {"pgbench_operator_writes_total", "counter"},
        {"pgbench_operator_status_conflicts_total", "counter"},
        {"pgbench_operator_write_errors_total", "counter"},
        {"pgbench_operator_plan_dropped_total", "counter"},
        {"pgbench_operator_queue_depth", "gauge"},
        {"pgbench_operator_reconciles_in_flight", "gauge"},
        {"pgbench_operator_cached_objects", "gauge"},
        {"pgbench_operator_api_requests_total", "counter"},
        {"pgbench_operator_api_errors_total", "counter"},
        {"pgbench_operator_watch_restarts_total", "counter"},
        {"pgbench_operator_relists_total", "counter"},
        {"pgbench_operator_leader", "gauge"},
        {"process_resident_memory_bytes", "gauge"},
        {"pgbench_operator_heap_bytes", "gauge"},
    };
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        char line[200];
        (void)snprintf(line, sizeof(line), "# TYPE %s %s", types[i][0], types[i][1]);
        assert_line(t, line);
    }
    assert_line(t, "pgbench_operator_reconcile_total{result=\"success\"} 8");
    assert_line(t, "pgbench_operator_reconcile_total{result=\"error\"} 2");
    assert_line(t, "pgbench_operator_writes_total{kind=\"create\"} 4");
    assert_line(t, "pgbench_operator_writes_total{kind=\"delete\"} 1");
    assert_line(t, "pgbench_operator_writes_total{kind=\"status\"} 7");
    assert_line(t, "pgbench_operator_writes_total{kind=\"event\"} 5");
    assert_line(t, "pgbench_operator_status_conflicts_total 1");
    assert_line(t, "pgbench_operator_write_errors_total 3");
    assert_line(t, "pgbench_operator_plan_dropped_total{kind=\"event\"} 6");
    assert_line(t, "pgbench_operator_plan_dropped_total{kind=\"action\"} 9");
    assert_line(t, "pgbench_operator_queue_depth 2");
    assert_line(t, "pgbench_operator_reconciles_in_flight 1");
    assert_line(t, "pgbench_operator_cached_objects{resource=\"benchmarkruns\"} 4");
    assert_line(t, "pgbench_operator_cached_objects{resource=\"jobs\"} 3");
    assert_line(t, "pgbench_operator_cached_objects{resource=\"pods\"} 4");
    assert_line(t, "pgbench_operator_api_requests_total 100");
    assert_line(t, "pgbench_operator_api_errors_total 4");
    assert_line(t, "pgbench_operator_watch_restarts_total 6");
    assert_line(t, "pgbench_operator_relists_total 8");
    free(t);
    cJSON_Delete(cache);
}

/* Buckets are cumulative and a duration on a bound falls in that bound's bucket (le = <=). */
static void test_reconcile_histogram(void **state)
{
    (void)state;
    struct ctrl_metrics_controller c = {0};
    double obs[] = {0.0005, 0.001, 0.0011, 0.3, 10, 11};
    double sum = 0;
    for (size_t i = 0; i < sizeof(obs) / sizeof(obs[0]); i++) {
        ctrl_metrics_observe(&c.reconcile_seconds, obs[i]);
        sum += obs[i];
    }
    c.reconciles = 6;
    struct ctrl_metrics_source src = {.ctrl = &c, .rss_bytes = -1};
    char *t = format(&src);
    assert_line(t, "pgbench_operator_reconcile_duration_seconds_bucket{le=\"0.001\"} 2");
    assert_line(t, "pgbench_operator_reconcile_duration_seconds_bucket{le=\"0.0025\"} 3");
    assert_line(t, "pgbench_operator_reconcile_duration_seconds_bucket{le=\"0.25\"} 3");
    assert_line(t, "pgbench_operator_reconcile_duration_seconds_bucket{le=\"0.5\"} 4");
    assert_line(t, "pgbench_operator_reconcile_duration_seconds_bucket{le=\"10\"} 5");
    assert_line(t, "pgbench_operator_reconcile_duration_seconds_bucket{le=\"+Inf\"} 6");
    assert_line(t, "pgbench_operator_reconcile_duration_seconds_count 6");
    char line[100];
    (void)snprintf(line, sizeof(line), "pgbench_operator_reconcile_duration_seconds_sum %.6f", sum);
    assert_line(t, line);
    /* no cache walker: no runs, the families still declared; no RSS when unknown */
    assert_line(t, "# TYPE pgbench_operator_benchmarkrun_phase gauge");
    assert_no_line_starting(t, "pgbench_operator_benchmarkrun_phase{");
    assert_no_line_starting(t, "process_resident_memory_bytes");
    check_structure(t);
    promtool_check(t);
    free(t);
}

/* A standby runs no controller: runs by phase are zeros, no per-run or controller series. */
static void test_standby(void **state)
{
    (void)state;
    struct kube_client_stats st = {.requests = 3};
    struct ctrl_metrics_source src = {.client = &st, .leader = false, .rss_bytes = 8192};
    char *t = format(&src);
    assert_line(t, "pgbench_operator_benchmarkruns{phase=\"Succeeded\"} 0");
    assert_line(t, "pgbench_operator_leader 0");
    assert_line(t, "pgbench_operator_api_requests_total 3");
    assert_no_line_starting(t, "# TYPE pgbench_operator_benchmarkrun_");
    assert_no_line_starting(t, "# TYPE pgbench_operator_reconcile_total");
    check_structure(t);
    promtool_check(t);
    free(t);
}

/* The informer's transform keeps, of a finished run's results, the numbers the series read. */
static void test_transform_keeps_metric_fields(void **state)
{
    (void)state;
    cJSON *br = cJSON_Parse(
        "{\"metadata\":{\"name\":\"b\",\"namespace\":\"n\",\"resourceVersion\":\"9\"},"
        "\"status\":{\"phase\":\"Succeeded\",\"observedGeneration\":1,\"conditions\":[],"
        "\"timeline\":[{\"t\":1}],\"workers\":[{\"index\":0}],"
        "\"summary\":{\"tps\":100.5,\"tpsIncludingConnect\":99,\"latencyMs\":{\"avg\":1.5,"
        "\"p50\":1,\"p90\":2,\"p95\":3,\"p99\":4,\"p999\":5,\"max\":9},\"transactions\":1000,"
        "\"failed\":2,\"aborted\":0,\"timeline\":{\"tps\":\"1 2\"}},\"diagnostics\":{"
        "\"verdict\":\"WAL flush limits the run: ...\",\"verdictClass\":\"wal-flush\","
        "\"waitEvents\":\"IO:WALSync 60 %\"}}}");
    assert_non_null(br);
    ctrl_transform_benchmarkrun(br, NULL);
    cJSON *want = cJSON_Parse(
        "{\"metadata\":{\"name\":\"b\",\"namespace\":\"n\",\"resourceVersion\":\"9\"},"
        "\"status\":{\"phase\":\"Succeeded\",\"observedGeneration\":1,\"conditions\":[],"
        "\"summary\":{\"tps\":100.5,\"latencyMs\":{\"avg\":1.5,\"p50\":1,\"p90\":2,\"p95\":3,"
        "\"p99\":4,\"p999\":5},\"failed\":2},\"diagnostics\":{\"verdictClass\":\"wal-flush\"}}}");
    if (!cJSON_Compare(br, want, 1)) {
        char *s = cJSON_PrintUnformatted(br);
        fail_msg("transformed: %s", s);
    }
    /* what was kept is what the series show */
    struct ctrl_metrics_controller c = {.foreach_run = foreach_item};
    cJSON *cache = cJSON_CreateArray();
    cJSON_AddItemToArray(cache, br);
    c.cache = cache;
    struct ctrl_metrics_source src = {.ctrl = &c, .rss_bytes = -1};
    char *t = format(&src);
    /* with the verdict's class as a label of every value */
    assert_line(t, "pgbench_operator_benchmarkrun_tps{namespace=\"n\",name=\"b\",verdict=\"wal-"
                   "flush\"} 100.5");
    assert_line(t, "pgbench_operator_benchmarkrun_latency_seconds{namespace=\"n\",name=\"b\","
                   "verdict=\"wal-flush\",quantile=\"0.999\"} 0.005");
    assert_line(t, "pgbench_operator_benchmarkrun_failed_transactions{namespace=\"n\",name=\"b\","
                   "verdict=\"wal-flush\"} 2");
    /* the phase gauge keeps its series through the run: no verdict label */
    assert_line(t, "pgbench_operator_benchmarkrun_phase{namespace=\"n\",name=\"b\",phase="
                   "\"Succeeded\"} 1");
    free(t);
    cJSON_Delete(cache);
    cJSON_Delete(want);
    /* a run that has not ended keeps the same numbers, and its live progress */
    br = cJSON_Parse("{\"metadata\":{\"name\":\"b\"},\"status\":{\"phase\":\"Running\","
                     "\"progress\":{\"tps\":90},\"summary\":{\"tps\":100.5,\"transactions\":1000,"
                     "\"latencyMs\":{\"avg\":1.5,\"p99\":4,\"max\":9},\"failed\":2},"
                     "\"diagnostics\":{\"verdictClass\":\"wal-flush\"}}}");
    assert_non_null(br);
    ctrl_transform_benchmarkrun(br, NULL);
    want = cJSON_Parse("{\"metadata\":{\"name\":\"b\"},\"status\":{\"phase\":\"Running\","
                       "\"progress\":{\"tps\":90},\"summary\":{\"tps\":100.5,"
                       "\"latencyMs\":{\"avg\":1.5,\"p99\":4},\"failed\":2}}}");
    if (!cJSON_Compare(br, want, 1)) {
        char *s = cJSON_PrintUnformatted(br);
        fail_msg("transformed: %s", s);
    }
    cJSON_Delete(br);
    cJSON_Delete(want);
}

/* Label values are escaped as the text format wants. */
static void test_label_escaping(void **state)
{
    (void)state;
    cJSON *cache = cJSON_Parse("[{\"metadata\":{\"name\":\"a\\\"b\\\\c\\nd\",\"namespace\":\"n\"},"
                               "\"status\":{\"phase\":\"Weird\"}}]");
    assert_non_null(cache);
    struct ctrl_metrics_controller c = {.foreach_run = foreach_item, .cache = cache};
    struct ctrl_metrics_source src = {.ctrl = &c, .rss_bytes = -1};
    char *t = format(&src);
    /* a phase not in the list: every phase 0, counted in none */
    assert_line(t, "pgbench_operator_benchmarkrun_phase{namespace=\"n\",name=\"a\\\"b\\\\c\\nd\","
                   "phase=\"Running\"} 0");
    assert_line(t, "pgbench_operator_benchmarkruns{phase=\"Pending\"} 0");
    promtool_check(t);
    free(t);
    cJSON_Delete(cache);
}

/* Per-sweep series from a fake BenchmarkSweep cache: phase, step from 1, analysis values with
 * the varied field as a label; a sweep without analysis has no value series. */
static void test_sweep_series(void **state)
{
    (void)state;
    cJSON *runs = cJSON_Parse("[]");
    cJSON *sweeps = cJSON_Parse(
        "[{\"metadata\":{\"name\":\"s1\",\"namespace\":\"n\"},\"status\":{\"phase\":"
        "\"Succeeded\",\"field\":\"clients\",\"currentStep\":4,\"totalSteps\":5,\"analysis\":"
        "{\"peakTps\":2345.5,\"peakAt\":8,\"kneeAt\":4,\"usl\":{\"ok\":true,\"peakClients\":"
        "11.5}}}},"
        "{\"metadata\":{\"name\":\"s0\",\"namespace\":\"n\"},\"spec\":{}}]");
    assert_non_null(sweeps);
    struct ctrl_metrics_controller c = {.foreach_run = foreach_item, .cache = runs};
    struct ctrl_metrics_source src = {
        .ctrl = &c, .foreach_sweep = foreach_item, .sweeps = sweeps, .rss_bytes = -1};
    char *t = format(&src);
    assert_line(t, "pgbench_operator_benchmarksweep_phase{namespace=\"n\",name=\"s1\","
                   "phase=\"Succeeded\"} 1");
    assert_line(t, "pgbench_operator_benchmarksweep_phase{namespace=\"n\",name=\"s1\","
                   "phase=\"Running\"} 0");
    assert_line(t, "pgbench_operator_benchmarksweep_phase{namespace=\"n\",name=\"s0\","
                   "phase=\"Pending\"} 1");
    assert_line(t, "pgbench_operator_benchmarksweep_step{namespace=\"n\",name=\"s1\"} 5");
    assert_line(t, "pgbench_operator_benchmarksweep_steps{namespace=\"n\",name=\"s1\"} 5");
    assert_line(t, "pgbench_operator_benchmarksweep_peak_tps{namespace=\"n\",name=\"s1\"} "
                   "2345.5");
    assert_line(t, "pgbench_operator_benchmarksweep_knee{namespace=\"n\",name=\"s1\","
                   "field=\"clients\"} 4");
    assert_line(t, "pgbench_operator_benchmarksweep_usl_peak_clients{namespace=\"n\",name=\"s1\"} "
                   "11.5");
    assert_no_line_starting(t, "pgbench_operator_benchmarksweep_step{namespace=\"n\",name=\"s0\"");
    /* the phase series of s0 come before s1's (sorted) */
    assert_true(strstr(t, "name=\"s0\"") < strstr(t, "name=\"s1\""));
    promtool_check(t);
    free(t);
    cJSON_Delete(sweeps);
    cJSON_Delete(runs);
}

/* The sweep controller's reconciles: families of their own (pgbench_operator_sweep_*), with the
 * counters handed in; no Event writes (the run controller's sender counts them), no cache gauges;
 * left out when no sweep controller runs. */
static void test_sweep_controller_counters(void **state)
{
    (void)state;
    cJSON *cache = cJSON_Parse(runs_json);
    struct ctrl_metrics_controller c = fake_controller(cache);
    struct ctrl_metrics_controller sw = {.reconciles = 9,
                                         .reconcile_errors = 3,
                                         .conflicts = 2,
                                         .creates = 4,
                                         .status_writes = 6,
                                         .write_errors = 5,
                                         .queue_depth = 1,
                                         .inflight = 1};
    ctrl_metrics_observe(&sw.reconcile_seconds, 0.02);
    struct ctrl_metrics_source src = {.ctrl = &c, .sweep = &sw, .rss_bytes = -1};
    char *t = format(&src);
    assert_line(t, "# TYPE pgbench_operator_sweep_reconcile_total counter");
    assert_line(t, "pgbench_operator_sweep_reconcile_total{result=\"success\"} 6");
    assert_line(t, "pgbench_operator_sweep_reconcile_total{result=\"error\"} 3");
    assert_line(t, "pgbench_operator_sweep_writes_total{kind=\"create\"} 4");
    assert_line(t, "pgbench_operator_sweep_writes_total{kind=\"status\"} 6");
    assert_line(t, "pgbench_operator_sweep_status_conflicts_total 2");
    assert_line(t, "pgbench_operator_sweep_write_errors_total 5");
    assert_line(t, "pgbench_operator_sweep_queue_depth 1");
    assert_line(t, "pgbench_operator_sweep_reconciles_in_flight 1");
    assert_line(t, "pgbench_operator_sweep_reconcile_duration_seconds_count 1");
    assert_no_line_starting(t, "pgbench_operator_sweep_writes_total{kind=\"event\"}");
    assert_no_line_starting(t, "pgbench_operator_sweep_cached_objects");
    /* the run controller's stay as they were */
    assert_line(t, "pgbench_operator_reconcile_total{result=\"success\"} 8");
    assert_line(t, "pgbench_operator_writes_total{kind=\"event\"} 5");
    check_structure(t);
    promtool_check(t);
    free(t);
    src.sweep = NULL;
    t = format(&src);
    assert_no_line_starting(t, "# TYPE pgbench_operator_sweep_");
    free(t);
    cJSON_Delete(cache);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_series),
        cmocka_unit_test(test_sweep_series),
        cmocka_unit_test(test_sweep_controller_counters),
        cmocka_unit_test(test_operator_families_kept),
        cmocka_unit_test(test_reconcile_histogram),
        cmocka_unit_test(test_standby),
        cmocka_unit_test(test_transform_keeps_metric_fields),
        cmocka_unit_test(test_label_escaping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
