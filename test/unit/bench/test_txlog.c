/* pgbench -l per-transaction log parser tests. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "pkg/bench/pgbench.h"

#include <errno.h>
#include <string.h>

static void test_lines(void **state)
{
    (void)state;
    struct bench_txlog_entry e;
    const char *ok = "0 1 2170 0 1796283787 420319";
    assert_int_equal(bench_txlog_parse_line(ok, strlen(ok), false, &e), 0);
    assert_int_equal(e.client, 0);
    assert_int_equal(e.transaction, 1);
    assert_int_equal(e.status, BENCH_TX_OK);
    assert_int_equal(e.latency_us, 2170);
    assert_int_equal(e.epoch_us, INT64_C(1796283787420319));
    assert_int_equal(e.lag_us, -1);
    assert_int_equal(e.retries, -1);
    const char *lag = "0 1 1348 0 1796283789 391611 76\n";
    assert_int_equal(bench_txlog_parse_line(lag, strlen(lag), true, &e), 0);
    assert_int_equal(e.lag_us, 76);
    assert_int_equal(e.retries, -1);
    assert_int_equal(bench_txlog_parse_line(lag, strlen(lag), false, &e), 0);
    assert_int_equal(e.lag_us, -1);
    assert_int_equal(e.retries, 76);
    const char *both = "3 9 500 1 1796283789 5 12 2";
    assert_int_equal(bench_txlog_parse_line(both, strlen(both), true, &e), 0);
    assert_int_equal(e.lag_us, 12);
    assert_int_equal(e.retries, 2);
    assert_int_equal(e.script, 1);
    const char *skipped = "0 2 skipped 0 1796283789 391631 0";
    assert_int_equal(bench_txlog_parse_line(skipped, strlen(skipped), true, &e), 0);
    assert_int_equal(e.status, BENCH_TX_SKIPPED);
    assert_int_equal(e.latency_us, -1);
    /* "other": pgbench 19 --continue-on-error --failures-detailed (getResultString) */
    const char *failed[] = {"1 5 failed 0 1796283789 1 0", "1 5 serialization 0 1796283789 1 2",
                            "1 5 deadlock 0 1796283789 1 2", "1 5 other 0 1796283789 1 0"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(bench_txlog_parse_line(failed[i], strlen(failed[i]), false, &e), 0);
        assert_int_equal(e.status, BENCH_TX_FAILED);
    }
    const char *bad[] = {"", "x 1 2 0 1 1", "0 1 2 0 1", "0 1 -2 0 1 1", "0 1 2 0 1 1000000",
                         "0 1 2 0 1 1 2 3 4",
                         /* --aggregate-interval format */
                         "1345828501 5601 1815 130 2390 3 1 1 0 0", "0 1 2 0 1 1 x"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (bench_txlog_parse_line(bad[i], strlen(bad[i]), false, &e) != -EINVAL)
            fail_msg("accepted '%s'", bad[i]);
}

static void test_feed_chunks(void **state)
{
    (void)state;
    const char *text = "0 1 100 0 1700000000 5\n"
                       "0 2 failed 0 1700000001 5 3\n"
                       "garbage line\n"
                       "1 1 300 0 1700000000 1 1\n"
                       "0 3 skipped 0 1700000002 7 0\n"
                       "1 2 200 0 1700000003 9"; /* no final newline */
    size_t n = strlen(text);
    /* every split point gives the same result */
    for (size_t cut = 0; cut <= n; cut++) {
        struct bench_txlog *l = bench_txlog_new();
        bench_txlog_feed(l, text, cut);
        bench_txlog_feed(l, text + cut, n - cut);
        bench_txlog_finish(l);
        assert_int_equal(l->ok, 3);
        assert_int_equal(l->failed, 1);
        assert_int_equal(l->skipped, 1);
        assert_int_equal(l->malformed, 1);
        assert_int_equal(l->retries, 4);
        assert_int_equal(l->hist->count, 3);
        assert_int_equal(l->hist->min, 100);
        assert_int_equal(l->hist->max, 300);
        assert_int_equal(l->first_epoch_us, INT64_C(1700000000000001));
        assert_int_equal(l->last_epoch_us, INT64_C(1700000003000009));
        bench_txlog_free(l);
    }
    bench_txlog_free(NULL);
}

static void test_read_dir(void **state)
{
    (void)state;
    struct bench_txlog *l = bench_txlog_new();
    size_t nfiles = 0;
    assert_int_equal(bench_txlog_read_dir(l, "test/fixtures/pgbench/log-tpcb", NULL, &nfiles), 0);
    assert_int_equal(nfiles, 2);   /* pgbench_log.<pid> and pgbench_log.<pid>.1 */
    assert_int_equal(l->ok, 3000); /* -c 2 -t 1500 */
    assert_int_equal(l->malformed, 0);
    assert_int_equal(bench_txlog_read_dir(l, "/nonexistent-dir", NULL, NULL), -ENOENT);
    bench_txlog_free(l);
    l = bench_txlog_new();
    assert_int_equal(bench_txlog_read_dir(l, "test/fixtures/pgbench/log-retries", NULL, NULL), 0);
    /* v15-log-retries.txt: 1269 processed, 331 failed, 1258 retries */
    assert_int_equal(l->ok, 1269);
    assert_int_equal(l->failed, 331);
    assert_int_equal(l->retries, 1258);
    bench_txlog_free(l);
    l = bench_txlog_new();
    l->rate_limited = true;
    assert_int_equal(bench_txlog_read_dir(l, "test/fixtures/pgbench/log-rate", NULL, NULL), 0);
    assert_true(l->skipped > 0);
    assert_int_equal(l->retries, 0);
    assert_int_equal(l->ok + l->skipped, 3000);
    bench_txlog_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_feed_chunks),
        cmocka_unit_test(test_read_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
