/* Parser tests on recorded pgbench console output (test/fixtures/pgbench). */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "pkg/bench/pgbench.h"
#include "test/unit/bench/fixture.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define FIX "test/fixtures/pgbench/"

static struct bench_pgbench_result *parse_file(const char *path)
{
    size_t len = 0;
    char *text = fixture_read(path, &len);
    assert_non_null(text);
    struct bench_pgbench_result *r = bench_pgbench_parse(text, len);
    free(text);
    return r;
}

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-6)

static void test_v14_tpcb_r(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v14-tpcb-r.txt");
    assert_string_equal(r->version, "14.20");
    assert_string_equal(r->server_version, "17.6");
    assert_string_equal(r->transaction_type, "<builtin: TPC-B (sort of)>");
    assert_int_equal(r->scale_factor, 50);
    assert_string_equal(r->query_mode, "simple");
    assert_int_equal(r->clients, 20);
    assert_int_equal(r->threads, 4);
    assert_int_equal(r->duration_s, 60);
    assert_int_equal(r->transactions, 42595);
    assert_int_equal(r->transactions_target, -1);
    assert_int_equal(r->failed, -1); /* pgbench 14 has no failures line */
    assert_near(r->latency_avg_ms, 28.255);
    assert_true(isnan(r->latency_stddev_ms));
    assert_near(r->initial_connection_ms, 30.840);
    assert_near(r->tps, 707.839182);
    assert_true(isnan(r->tps_including_connect));
    assert_true(r->summary_seen);
    assert_false(r->run_aborted);
    assert_int_equal(r->aborted_clients, 0);
    assert_int_equal(r->nstatements, 11);
    assert_string_equal(r->statements[0].command, "\\set aid random(1, 100000 * :scale)");
    assert_near(r->statements[0].latency_ms, 0.001);
    assert_int_equal(r->statements[0].failures, -1);
    assert_int_equal(r->statements[0].retries, -1);
    assert_string_equal(r->statements[10].command, "END;");
    assert_near(r->statements[10].latency_ms, 12.270);
    assert_int_equal(r->statements[5].script, 0);
    assert_int_equal(r->nerrors, 0);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

static void test_v14_aborted(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v14-select-only-aborted.txt");
    assert_int_equal(r->aborted_clients, 5);
    assert_true(r->run_aborted);
    assert_int_equal(r->nerrors, 6);
    assert_non_null(strstr(r->errors[0], "client 5 aborted in command 1"));
    assert_non_null(strstr(r->errors[5], "Run was aborted"));
    assert_int_equal(r->transactions, 727652);
    assert_int_equal(r->failed, -1);
    assert_near(r->latency_avg_ms, 16.497);
    assert_near(r->tps, 2424.754928);
    assert_int_equal(r->nstatements, 2);
    assert_near(r->statements[1].latency_ms, 14.276);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

static void test_v14_t(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v14-tpcb-t.txt");
    assert_string_equal(r->version, "14.0");
    assert_string_equal(r->server_version, "");
    assert_int_equal(r->scale_factor, 1500);
    assert_int_equal(r->transactions_per_client, 1000);
    assert_int_equal(r->transactions, 10000);
    assert_int_equal(r->transactions_target, 10000);
    assert_int_equal(r->duration_s, -1);
    assert_int_equal(r->failed, -1);
    assert_near(r->latency_avg_ms, 3.688);
    assert_near(r->tps, 2711.554095);
    assert_int_equal(r->nstatements, 0);
    bench_pgbench_result_free(r);
}

static void test_v14_select_only(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v14-select-only-r.txt");
    assert_string_equal(r->transaction_type, "<builtin: select only>");
    assert_int_equal(r->transactions, 39442);
    assert_int_equal(r->failed, -1);
    assert_near(r->latency_avg_ms, 30.454);
    assert_near(r->tps, 656.733215);
    assert_int_equal(r->nstatements, 2);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

static void test_v15_tpcb_r(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v15-tpcb-r.txt");
    assert_string_equal(r->version, "15.18");
    assert_string_equal(r->server_version, "");
    assert_int_equal(r->max_tries, 1);
    assert_int_equal(r->failed, 0);
    assert_near(r->failed_pct, 0);
    assert_int_equal(r->nstatements, 11);
    assert_int_equal(r->statements[4].failures, 0); /* "and failures" column */
    assert_int_equal(r->statements[4].retries, -1);
    assert_string_equal(r->statements[4].command, "BEGIN;");
    assert_false(r->latency_includes_failures);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

static void test_v15_failures_detailed(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v15-failures-detailed-retries.txt");
    assert_int_equal(r->max_tries, 3);
    assert_int_equal(r->transactions, 9060);
    assert_int_equal(r->failed, 5988);
    assert_near(r->failed_pct, 39.793);
    assert_int_equal(r->serialization_failures, 5988);
    assert_int_equal(r->deadlock_failures, 0);
    assert_int_equal(r->retried, 10106);
    assert_int_equal(r->retries, 17757);
    assert_true(r->latency_includes_failures);
    assert_near(r->latency_avg_ms, 2.132);
    assert_near(r->tps, 2259.138665);
    assert_int_equal(r->nstatements, 5);
    assert_int_equal(r->statements[3].failures, 5988);
    assert_int_equal(r->statements[3].retries, 17761);
    assert_string_equal(r->statements[3].command,
                        "UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = :bid;");
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

static void test_v15_failures_no_retry(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v15-failures-no-retry.txt");
    assert_int_equal(r->failed, 11870);
    assert_int_equal(r->serialization_failures, -1);
    assert_int_equal(r->retried, -1);
    assert_true(r->latency_includes_failures);
    assert_int_equal(r->statements[3].failures, 11870);
    assert_int_equal(r->statements[3].retries, -1);
    bench_pgbench_result_free(r);
}

static void test_v15_rate_limit(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v15-rate-limit-skipped.txt");
    assert_int_equal(r->skipped, 364);
    assert_int_equal(r->above_latency_limit, 4707);
    assert_near(r->latency_limit_ms, 0.3);
    assert_near(r->latency_stddev_ms, 0.341);
    assert_near(r->rate_lag_avg_ms, 0.128);
    assert_near(r->rate_lag_max_ms, 6.434);
    assert_int_equal(r->ntimeline, 3);
    assert_near(r->timeline[0].t, 1.0);
    assert_near(r->timeline[0].tps, 2717.7);
    assert_near(r->timeline[0].lag_ms, 0.153);
    assert_int_equal(r->timeline[0].skipped, 152);
    assert_int_equal(r->timeline[0].failed, 0);
    assert_int_equal(r->timeline[2].skipped, 55);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

static void test_v15_weighted_scripts(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v15-weighted-scripts.txt");
    assert_string_equal(r->transaction_type, "multiple scripts");
    assert_int_equal(r->nscripts, 2);
    assert_int_equal(r->scripts[0].script, 0);
    assert_string_equal(r->scripts[0].name, "<builtin: select only>");
    assert_int_equal(r->scripts[0].weight, 3);
    assert_int_equal(r->scripts[0].transactions, 101046);
    assert_int_equal(r->scripts[0].failed, 0);
    assert_near(r->scripts[0].tps, 33694.006298);
    assert_near(r->scripts[0].latency_avg_ms, 0.058);
    assert_near(r->scripts[0].latency_stddev_ms, 0.093);
    assert_string_equal(r->scripts[1].name, "scripts/read.sql");
    assert_int_equal(r->scripts[1].weight, 1);
    assert_int_equal(r->scripts[1].transactions, 33750);
    assert_int_equal(r->nstatements, 5);
    assert_int_equal(r->statements[0].script, 0);
    assert_int_equal(r->statements[1].script, 0);
    assert_int_equal(r->statements[2].script, 1);
    assert_string_equal(r->statements[4].command, "SELECT count(*) FROM pgbench_branches;");
    assert_int_equal(r->statements[4].script, 1);
    assert_int_equal(r->transactions, 134808);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

static void test_v15_connect(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v15-connect.txt");
    assert_near(r->average_connection_ms, 8.461);
    assert_true(isnan(r->initial_connection_ms));
    assert_near(r->tps, 232.051173);
    assert_near(r->tps_including_connect, 232.051173);
    bench_pgbench_result_free(r);
}

static void test_v15_aborted(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v15-aborted.txt");
    assert_int_equal(r->aborted_clients, 3);
    assert_true(r->run_aborted);
    assert_int_equal(r->nerrors, 4);
    assert_non_null(strstr(r->errors[0], "client 0 script 0 aborted in command 1 query 0"));
    assert_int_equal(r->ntimeline, 5);
    assert_int_equal(r->transactions, 250275);
    assert_true(r->summary_seen);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

static void test_v15_progress_retries(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v15-progress-retries.txt");
    assert_int_equal(r->ntimeline, 3);
    assert_int_equal(r->timeline[0].failed, 619);
    assert_int_equal(r->timeline[0].retried, 1414);
    assert_int_equal(r->timeline[0].retries, 2292);
    assert_true(isnan(r->timeline[0].lag_ms));
    assert_int_equal(r->timeline[0].skipped, -1);
    assert_false(r->latency_includes_failures); /* with -P pgbench prints measured stats */
    assert_near(r->latency_stddev_ms, 1.127);
    bench_pgbench_result_free(r);
}

static void test_v15_t(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v15-tpcb-t.txt");
    assert_int_equal(r->transactions, 1200);
    assert_int_equal(r->transactions_target, 1200);
    assert_int_equal(r->transactions_per_client, 300);
    bench_pgbench_result_free(r);
}

/* Feeds a recording made with separate streams, interleaved in small chunks as the runner reads
 * them (lines of the other stream fall between an error and its continuation lines). */
static struct bench_pgbench_result *parse_split(const char *stdout_path, const char *stderr_path)
{
    size_t olen = 0, elen = 0;
    char *out = fixture_read(stdout_path, &olen);
    char *err = fixture_read(stderr_path, &elen);
    assert_non_null(out);
    assert_non_null(err);
    struct bench_pgbench_result *r = bench_pgbench_result_new();
    size_t oi = 0, ei = 0;
    while (oi < olen || ei < elen) {
        if (oi < olen) {
            size_t n = olen - oi < 7 ? olen - oi : 7;
            assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDOUT, out + oi, n), 0);
            oi += n;
        }
        if (ei < elen) {
            size_t n = elen - ei < 5 ? elen - ei : 5;
            assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDERR, err + ei, n), 0);
            ei += n;
        }
    }
    bench_pgbench_finish(r);
    free(out);
    free(err);
    return r;
}

static void test_split_streams(void **state)
{
    (void)state;
    /* interleaved in 7- and 5-byte chunks: lines must still be split per stream */
    struct bench_pgbench_result *r =
        parse_split(FIX "v15-progress-split.stdout", FIX "v15-progress-split.stderr");
    assert_int_equal(r->ntimeline, 3);
    assert_near(r->timeline[1].tps, 3600.3);
    assert_true(r->summary_seen);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

static void assert_no_control_chars(const struct bench_pgbench_result *r)
{
    for (size_t i = 0; i < r->nerrors; i++)
        for (const unsigned char *c = (const unsigned char *)r->errors[i]; *c; c++)
            if (*c < 0x20 || *c == 0x7f)
                fail_msg("error %zu has control character 0x%02x: %s", i, *c, r->errors[i]);
}

/* Recorded (pgbench 15.18, PostgreSQL 15.18): pg_terminate_backend() on backends still
 * authenticating a -C connection. libpq's message goes on in two tab-indented lines; they used to
 * be kept with the tab (the first) or dropped (the second). */
static void test_v15_terminate_connect(void **state)
{
    (void)state;
    static const char closed[] =
        "pgbench: error: connection to server at \"127.0.0.1\", port 38443 failed: server closed "
        "the connection unexpectedly This probably means the server terminated abnormally before "
        "or while processing the request.";
    for (int merged = 0; merged < 2; merged++) {
        struct bench_pgbench_result *r;
        if (merged) { /* the same lines as one stream (2>&1): stderr then stdout */
            size_t olen = 0, elen = 0;
            char *out = fixture_read(FIX "v15-terminate-connect.stdout", &olen);
            char *err = fixture_read(FIX "v15-terminate-connect.stderr", &elen);
            char *all = malloc(olen + elen + 1);
            memcpy(all, err, elen);
            memcpy(all + elen, out, olen);
            r = bench_pgbench_parse(all, olen + elen);
            free(all);
            free(out);
            free(err);
        } else {
            r = parse_split(FIX "v15-terminate-connect.stdout", FIX "v15-terminate-connect.stderr");
        }
        /* 22 stderr lines: 18 messages, 4 continuation lines */
        assert_int_equal(r->nerrors, 18);
        assert_string_equal(r->errors[0],
                            "FATAL:  terminating connection due to administrator command");
        assert_string_equal(r->errors[2], closed);
        assert_string_equal(r->errors[3],
                            "pgbench: error: client 4 aborted while establishing connection");
        assert_string_equal(r->errors[4],
                            "pgbench: error: connection to server at \"127.0.0.1\", port 38443 "
                            "failed: FATAL:  terminating connection due to administrator command");
        assert_string_equal(r->errors[10], closed);
        assert_string_equal(r->errors[11],
                            "pgbench: error: client 1 aborted while establishing connection");
        assert_no_control_chars(r);
        assert_int_equal(r->aborted_clients, 8);
        assert_true(r->run_aborted);
        assert_int_equal(r->transactions, 83);
        assert_near(r->tps, 26.992107);
        assert_near(r->tps_including_connect, 26.992107);
        assert_near(r->average_connection_ms, 56.990);
        assert_int_equal(r->lines_unknown, 0);
        bench_pgbench_result_free(r);
    }
}

/* Continuations keep the error cap, follow a dropped error into the bin, and need an error before
 * them; control characters inside a line become single spaces. */
static void test_error_continuation_edges(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = bench_pgbench_result_new();
    char line[BENCH_PGBENCH_MAX_ERROR_LEN + 64];
    int n =
        snprintf(line, sizeof(line), "pgbench: error: %0*d\n", BENCH_PGBENCH_MAX_ERROR_LEN - 40, 0);
    assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDERR, line, (size_t)n), 0);
    const char *more = "\tThis probably means the server terminated abnormally\n"
                       "\tbefore or while processing the request.\n";
    assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDERR, more, strlen(more)), 0);
    assert_int_equal(r->nerrors, 1);
    assert_int_equal(strlen(r->errors[0]), BENCH_PGBENCH_MAX_ERROR_LEN - 1);
    /* cut at the cap: the first continuation in part, the second not at all */
    assert_string_equal(r->errors[0] + BENCH_PGBENCH_MAX_ERROR_LEN - 1 - 24,
                        "0 This probably means th");
    /* a continuation on the other stream does not join; alone it is an unknown line */
    const char *err = "server closed the connection unexpectedly\n";
    assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDERR, err, strlen(err)), 0);
    assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDOUT, more, strlen(more)), 0);
    assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDOUT, "x\n", 2), 0);
    assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDERR, more, 54), 0);
    assert_string_equal(r->errors[1], "server closed the connection unexpectedly This probably "
                                      "means the server terminated abnormally");
    assert_int_equal(r->lines_unknown, 3);
    /* control characters: one space per run */
    const char *ctl = "pgbench: error: a\x01\x02"
                      "b\tc\r\n";
    assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDERR, ctl, strlen(ctl)), 0);
    assert_string_equal(r->errors[2], "pgbench: error: a b c");
    /* beyond the error cap: the continuation goes with its dropped error */
    for (int i = 0; r->nerrors < BENCH_PGBENCH_MAX_ERRORS; i++)
        assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDERR, "FATAL: x\n", 9), 0);
    size_t unknown = r->lines_unknown;
    assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDERR, err, strlen(err)), 0);
    assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDERR, more, strlen(more)), 0);
    assert_int_equal(r->errors_dropped, 1);
    assert_int_equal(r->lines_unknown, unknown);
    assert_string_equal(r->errors[BENCH_PGBENCH_MAX_ERRORS - 1], "FATAL: x");
    assert_no_control_chars(r);
    bench_pgbench_result_free(r);
}

/* pgbench <= 13 formats (from pgbench 13 sources / published output) */
static void test_v13_format(void **state)
{
    (void)state;
    static const char text[] = "starting vacuum...end.\n"
                               "transaction type: <builtin: TPC-B (sort of)>\n"
                               "scaling factor: 1\n"
                               "query mode: simple\n"
                               "number of clients: 8\n"
                               "number of threads: 1\n"
                               "duration: 600 s\n"
                               "number of transactions actually processed: 451531\n"
                               "latency average = 10.629 ms\n"
                               "latency stddev = 14.724 ms\n"
                               "tps = 752.528022 (including connections establishing)\n"
                               "tps = 752.532201 (excluding connections establishing)\n"
                               "statement latencies in milliseconds:\n"
                               "\t     0.002  \\set aid random(1, 100000 * :scale)\n"
                               "\t     1.234  END;\n";
    struct bench_pgbench_result *r = bench_pgbench_parse(text, sizeof(text) - 1);
    assert_near(r->tps, 752.532201);
    assert_near(r->tps_including_connect, 752.528022);
    assert_true(isnan(r->initial_connection_ms));
    assert_int_equal(r->nstatements, 2);
    assert_near(r->statements[1].latency_ms, 1.234);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

static void test_progress_line(void **state)
{
    (void)state;
    struct bench_timeline_point p;
    const char *l14 = "progress: 10.0 s, 1016.1 tps, lat 48.672 ms stddev 50.000";
    assert_int_equal(bench_pgbench_parse_progress(l14, strlen(l14), &p), 0);
    assert_near(p.t, 10.0);
    assert_near(p.tps, 1016.1);
    assert_near(p.latency_ms, 48.672);
    assert_near(p.stddev_ms, 50.0);
    assert_int_equal(p.failed, -1);
    const char *l14lag =
        "progress: 2.0 s, 99.0 tps, lat 1.000 ms stddev 0.100, lag 0.500 ms, 3 skipped";
    assert_int_equal(bench_pgbench_parse_progress(l14lag, strlen(l14lag), &p), 0);
    assert_near(p.lag_ms, 0.5);
    assert_int_equal(p.skipped, 3);
    const char *nan = "progress: 3.0 s, 0.0 tps, lat NaN ms stddev NaN, 0 failed";
    assert_int_equal(bench_pgbench_parse_progress(nan, strlen(nan), &p), 0);
    assert_true(isnan(p.latency_ms));
    const char *bad[] = {"progress: x s", "progress: 1.0 s, 1 tps", "hello",
                         "progress: 1.0 s, 1.0 tps, lat 1 ms stddev 1, 5 bananas",
                         "progress: 1.0 s, 1.0 tps, lat 1 ms stddev 1 trailing"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(bench_pgbench_parse_progress(bad[i], strlen(bad[i]), &p), -EINVAL);
}

static void test_garbage(void **state)
{
    (void)state;
    /* arbitrary bytes, very long lines, NULs: no crash, everything counted */
    char big[200000];
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (char)(i * 7919 % 251);
    struct bench_pgbench_result *r = bench_pgbench_parse(big, sizeof(big));
    assert_true(r->lines > 0);
    for (size_t i = 0; i < r->nerrors; i++)
        assert_true(strlen(r->errors[i]) < BENCH_PGBENCH_MAX_ERROR_LEN);
    bench_pgbench_result_free(r);
}

static void test_error_cap(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = bench_pgbench_result_new();
    char line[128];
    for (int i = 0; i < 500; i++) {
        int n = snprintf(line, sizeof(line),
                         "pgbench: error: client %d script 0 aborted in command 1 query 0: x\n",
                         i % 300);
        assert_int_equal(bench_pgbench_feed(r, BENCH_STREAM_STDERR, line, (size_t)n), 0);
    }
    assert_int_equal(r->nerrors, BENCH_PGBENCH_MAX_ERRORS);
    assert_int_equal(r->errors_dropped, 500 - BENCH_PGBENCH_MAX_ERRORS);
    assert_int_equal(r->aborted_clients, 300); /* distinct client ids */
    bench_pgbench_result_free(r);
}

static void test_v15_all_flags(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v15-all-flags.txt");
    assert_int_equal(r->nerrors, 0); /* "pgbench: setting random seed" is informational */
    assert_string_equal(r->query_mode, "prepared");
    assert_int_equal(r->skipped, 64);
    assert_int_equal(r->above_latency_limit, 259);
    assert_near(r->latency_limit_ms, 5.5);
    assert_near(r->average_connection_ms, 9.134);
    assert_near(r->tps, 86.650521);
    assert_int_equal(r->retried, 0);
    assert_int_equal(r->retries, 0);
    assert_int_equal(r->ntimeline, 2);
    assert_int_equal(r->timeline[0].retried, 0);
    assert_int_equal(r->timeline[0].skipped, 17);
    assert_near(r->timeline[1].lag_ms, 8.785);
    assert_int_equal(r->nscripts, 2);
    assert_int_equal(r->scripts[1].transactions, 151);
    assert_near(r->scripts[1].latency_avg_ms, 16.390);
    assert_int_equal(r->nstatements, 5);
    assert_int_equal(r->statements[2].script, 1);
    assert_int_equal(r->statements[4].retries, 0);
    assert_near(r->statements[4].latency_ms, 2.214);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

static void test_v15_partitions(void **state)
{
    (void)state;
    struct bench_pgbench_result *r = parse_file(FIX "v15-partitions.txt");
    assert_string_equal(r->partition_method, "hash");
    assert_int_equal(r->partitions, 3);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

/* pgbench 16 to 19 console formats. No pgbench newer than 15 runs here and no recording of one is
 * in shared/fixtures/pgbench (it holds pgbench 14 only), so these texts are written in the formats
 * of each version's printResults/printVersion (numbers are ours, kept consistent). */

/* 16: a banner with a server version in parentheses, -P, backends dying, the run aborted */
static void test_v16_format(void **state)
{
    (void)state;
    static const char text[] =
        "pgbench (16.7 (Ubuntu 16.7-1.pgdg22.04+1), server 16.6 (Ubuntu 16.6-1.pgdg22.04+1))\n"
        "progress: 5.0 s, 4044.1 tps, lat 2.390 ms stddev 1.251, 0 failed\n"
        "pgbench: error: client 8 aborted in command 1 (SQL) of script 0; perhaps the backend "
        "died while processing\n"
        "pgbench: error: client 6 aborted in command 1 (SQL) of script 0; perhaps the backend "
        "died while processing\n"
        "progress: 10.0 s, 2133.6 tps, lat 4.417 ms stddev 107.172, 0 failed\n"
        "transaction type: <builtin: select only>\n"
        "scaling factor: 10\n"
        "query mode: simple\n"
        "number of clients: 10\n"
        "number of threads: 2\n"
        "maximum number of tries: 1\n"
        "duration: 10 s\n"
        "number of transactions actually processed: 31000\n"
        "number of failed transactions: 0 (0.000%)\n"
        "latency average = 2.900 ms\n"
        "latency stddev = 75.800 ms\n"
        "initial connection time = 20.506 ms\n"
        "tps = 3100.000000 (without initial connection time)\n"
        "pgbench: error: Run was aborted; the above results are incomplete.\n";
    struct bench_pgbench_result *r = bench_pgbench_parse(text, sizeof(text) - 1);
    assert_string_equal(r->version, "16.7");
    assert_string_equal(r->server_version, "16.6");
    assert_int_equal(r->transactions, 31000);
    assert_int_equal(r->failed, 0);
    assert_near(r->latency_avg_ms, 2.900);
    assert_near(r->latency_stddev_ms, 75.800);
    assert_near(r->tps, 3100.0);
    assert_int_equal(r->aborted_clients, 2);
    assert_true(r->run_aborted);
    assert_int_equal(r->nerrors, 3);
    assert_int_equal(r->ntimeline, 2);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

/* 17: TPC-B with -r against a newer server; statement lines with two spaces before the text */
static void test_v17_format(void **state)
{
    (void)state;
    static const char text[] =
        "pgbench (17.6, server 17.5 (Debian 17.5-1.pgdg110+1))\n"
        "starting vacuum...end.\n"
        "transaction type: <builtin: TPC-B (sort of)>\n"
        "scaling factor: 1\n"
        "query mode: simple\n"
        "number of clients: 10\n"
        "number of threads: 2\n"
        "maximum number of tries: 1\n"
        "duration: 300 s\n"
        "number of transactions actually processed: 120000\n"
        "number of failed transactions: 0 (0.000%)\n"
        "latency average = 25.000 ms\n"
        "initial connection time = 55.140 ms\n"
        "tps = 400.000000 (without initial connection time)\n"
        "statement latencies in milliseconds and failures:\n"
        "         0.002           0  \\set aid random(1, 100000 * :scale)\n"
        "         0.001           0  \\set bid random(1, 1 * :scale)\n"
        "         0.001           0  \\set tid random(1, 10 * :scale)\n"
        "         0.001           0  \\set delta random(-5000, 5000)\n"
        "         0.412           0  BEGIN;\n"
        "         0.903           0  UPDATE pgbench_accounts SET abalance = abalance + :delta "
        "WHERE aid = :aid;\n"
        "         0.620           0  SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
        "        15.002           0  UPDATE pgbench_tellers SET tbalance = tbalance + :delta "
        "WHERE tid = :tid;\n"
        "         4.328           0  UPDATE pgbench_branches SET bbalance = bbalance + :delta "
        "WHERE bid = :bid;\n"
        "         0.847           0  INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) "
        "VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);\n"
        "         2.880           0  END;\n";
    struct bench_pgbench_result *r = bench_pgbench_parse(text, sizeof(text) - 1);
    assert_string_equal(r->version, "17.6");
    assert_string_equal(r->server_version, "17.5");
    assert_int_equal(r->transactions, 120000);
    assert_int_equal(r->failed, 0);
    assert_near(r->latency_avg_ms, 25.0);
    assert_near(r->tps, 400.0);
    assert_int_equal(r->nstatements, 11);
    assert_near(r->statements[7].latency_ms, 15.002);
    assert_int_equal(r->statements[7].failures, 0);
    assert_string_equal(r->statements[10].command, "END;");
    assert_int_equal(r->nerrors, 0);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

/* 18: per-script blocks with " - number of transactions actually processed: N (tps = X)" after
 * " - N transactions (x% of total)" (which counts failed ones too), one space before a
 * statement's text */
static void test_v18_per_script(void **state)
{
    (void)state;
    static const char text[] =
        "pgbench (18.4)\n"
        "transaction type: multiple scripts\n"
        "scaling factor: 10\n"
        "query mode: simple\n"
        "number of clients: 4\n"
        "number of threads: 2\n"
        "maximum number of tries: 1\n"
        "duration: 10 s\n"
        "number of transactions actually processed: 99990\n"
        "number of failed transactions: 10 (0.010%)\n"
        "latency average = 0.400 ms (including failures)\n"
        "initial connection time = 4.882 ms\n"
        "tps = 9999.000000 (without initial connection time)\n"
        "SQL script 1: ro.sql\n"
        " - weight: 9 (targets 90.0% of total)\n"
        " - 90000 transactions (90.0% of total)\n"
        " - number of transactions actually processed: 90000 (tps = 9000.000000)\n"
        " - number of failed transactions: 0 (0.000%)\n"
        " - latency average = 0.156 ms\n"
        " - latency stddev = 0.091 ms\n"
        " - statement latencies in milliseconds and failures:\n"
        "         0.001           0 \\set aid random(1, 100000 * :scale)\n"
        "         0.156           0 SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
        "SQL script 2: rw.sql\n"
        " - weight: 1 (targets 10.0% of total)\n"
        " - 10000 transactions (10.0% of total)\n"
        " - number of transactions actually processed: 9990 (tps = 999.000000)\n"
        " - number of failed transactions: 10 (0.100%)\n"
        " - latency average = 1.646 ms\n"
        " - latency stddev = 2.083 ms\n"
        " - statement latencies in milliseconds and failures:\n"
        "         0.001           0 \\set aid random(1, 100000 * :scale)\n"
        "         0.089           0 BEGIN;\n"
        "         0.184          10 UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE "
        "aid = :aid;\n"
        "         1.228           0 END;\n";
    struct bench_pgbench_result *r = bench_pgbench_parse(text, sizeof(text) - 1);
    assert_string_equal(r->version, "18.4");
    assert_int_equal(r->transactions, 99990);
    assert_int_equal(r->failed, 10);
    assert_near(r->failed_pct, 0.010);
    assert_near(r->latency_avg_ms, 0.400);
    assert_true(r->latency_includes_failures);
    assert_near(r->tps, 9999.0);
    assert_int_equal(r->nscripts, 2);
    assert_string_equal(r->scripts[0].name, "ro.sql");
    assert_int_equal(r->scripts[0].weight, 9);
    assert_int_equal(r->scripts[0].transactions, 90000);
    assert_near(r->scripts[0].tps, 9000.0);
    assert_int_equal(r->scripts[0].failed, 0);
    assert_near(r->scripts[0].latency_avg_ms, 0.156);
    assert_int_equal(r->scripts[1].transactions, 9990); /* successful, not the 10000 tried */
    assert_near(r->scripts[1].tps, 999.0);
    assert_int_equal(r->scripts[1].failed, 10);
    assert_near(r->scripts[1].latency_stddev_ms, 2.083);
    assert_int_equal(r->nstatements, 6);
    assert_int_equal(r->statements[1].script, 0);
    assert_int_equal(r->statements[4].script, 1);
    assert_int_equal(r->statements[4].failures, 10);
    assert_string_equal(r->statements[1].command,
                        "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;");
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

/* 19 (release candidate banner): --continue-on-error --failures-detailed -r: failures other than
 * serialization/deadlock are counted in "number of other failures" */
static void test_v19_other_failures(void **state)
{
    (void)state;
    static const char text[] = "pgbench (19rc1)\n"
                               "transaction type: upsert.sql\n"
                               "scaling factor: 1\n"
                               "query mode: simple\n"
                               "number of clients: 4\n"
                               "number of threads: 2\n"
                               "maximum number of tries: 1\n"
                               "duration: 10 s\n"
                               "number of transactions actually processed: 9876\n"
                               "number of failed transactions: 124 (1.240%)\n"
                               "number of serialization failures: 0 (0.000%)\n"
                               "number of deadlock failures: 0 (0.000%)\n"
                               "number of other failures: 124 (1.240%)\n"
                               "latency average = 4.000 ms (including failures)\n"
                               "initial connection time = 3.210 ms\n"
                               "tps = 987.600000 (without initial connection time)\n"
                               "statement latencies in milliseconds and failures:\n"
                               "         0.002           0 \\set id random(1, 1000)\n"
                               "         3.950         124 INSERT INTO t VALUES (:id);\n";
    struct bench_pgbench_result *r = bench_pgbench_parse(text, sizeof(text) - 1);
    assert_string_equal(r->version, "19rc1");
    assert_string_equal(r->server_version, "");
    assert_int_equal(r->transactions, 9876);
    assert_int_equal(r->failed, 124);
    assert_near(r->failed_pct, 1.240);
    assert_int_equal(r->serialization_failures, 0);
    assert_int_equal(r->deadlock_failures, 0);
    assert_int_equal(r->other_failures, 124);
    assert_near(r->latency_avg_ms, 4.0);
    assert_true(r->latency_includes_failures);
    assert_near(r->initial_connection_ms, 3.210);
    assert_near(r->tps, 987.6);
    assert_int_equal(r->nstatements, 2);
    assert_int_equal(r->statements[1].failures, 124);
    assert_int_equal(r->nerrors, 0);
    assert_int_equal(r->lines_unknown, 0);
    assert_true(bench_pgbench_version_major("pgbench (PostgreSQL) 19rc1") == 19);
    bench_pgbench_result_free(r);
}

/* format of pgbench newer than 17 (development sources, printResults): other failures, per-script
 * "actually processed" */
static void test_v18_format(void **state)
{
    (void)state;
    static const char text[] =
        "pgbench (18.1 (Debian 18.1-1))\n"
        "transaction type: multiple scripts\n"
        "scaling factor: 1\n"
        "query mode: simple\n"
        "number of clients: 2\n"
        "number of threads: 1\n"
        "maximum number of tries: 1\n"
        "duration: 3 s\n"
        "number of transactions actually processed: 90\n"
        "number of failed transactions: 10 (10.000%)\n"
        "number of serialization failures: 4 (4.000%)\n"
        "number of deadlock failures: 1 (1.000%)\n"
        "number of other failures: 5 (5.000%)\n"
        "latency average = 1.000 ms (including failures)\n"
        "initial connection time = 2.000 ms\n"
        "tps = 30.000000 (without initial connection time)\n"
        "SQL script 1: a.sql\n"
        " - weight: 1 (targets 50.0% of total)\n"
        " - 55 transactions (55.0% of total)\n"
        " - number of transactions actually processed: 45 (tps = 15.000000)\n"
        " - number of failed transactions: 10 (18.182%)\n"
        " - number of serialization failures: 4 (7.273%)\n"
        " - number of deadlock failures: 1 (1.818%)\n"
        " - number of other failures: 5 (9.091%)\n"
        " - latency average = 1.100 ms\n"
        " - latency stddev = 0.200 ms\n"
        " - statement latencies in milliseconds and failures:\n"
        "         0.500           10 SELECT 1;\n"
        "pgbench: error: Run was aborted due to an error in thread 0\n";
    struct bench_pgbench_result *r = bench_pgbench_parse(text, sizeof(text) - 1);
    assert_string_equal(r->version, "18.1");
    assert_int_equal(r->other_failures, 5);
    assert_int_equal(r->failed, 10);
    assert_int_equal(r->nscripts, 1);
    assert_int_equal(r->scripts[0].transactions, 45);
    assert_near(r->scripts[0].tps, 15.0);
    assert_int_equal(r->scripts[0].failed, 10);
    assert_int_equal(r->nstatements, 1);
    assert_string_equal(r->statements[0].command, "SELECT 1;");
    assert_int_equal(r->statements[0].failures, 10);
    assert_true(r->run_aborted);
    assert_int_equal(r->lines_unknown, 0);
    bench_pgbench_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v14_tpcb_r),
        cmocka_unit_test(test_v14_aborted),
        cmocka_unit_test(test_v14_t),
        cmocka_unit_test(test_v14_select_only),
        cmocka_unit_test(test_v15_tpcb_r),
        cmocka_unit_test(test_v15_failures_detailed),
        cmocka_unit_test(test_v15_failures_no_retry),
        cmocka_unit_test(test_v15_rate_limit),
        cmocka_unit_test(test_v15_weighted_scripts),
        cmocka_unit_test(test_v15_connect),
        cmocka_unit_test(test_v15_aborted),
        cmocka_unit_test(test_v15_progress_retries),
        cmocka_unit_test(test_v15_t),
        cmocka_unit_test(test_split_streams),
        cmocka_unit_test(test_v13_format),
        cmocka_unit_test(test_progress_line),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_error_cap),
        cmocka_unit_test(test_v15_all_flags),
        cmocka_unit_test(test_v15_partitions),
        cmocka_unit_test(test_v18_format),
        cmocka_unit_test(test_v16_format),
        cmocka_unit_test(test_v17_format),
        cmocka_unit_test(test_v18_per_script),
        cmocka_unit_test(test_v19_other_failures),
        cmocka_unit_test(test_v15_terminate_connect),
        cmocka_unit_test(test_error_continuation_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
