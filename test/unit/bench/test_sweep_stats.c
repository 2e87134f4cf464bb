/* bench/sweep_stats: a step's numbers over the runs the caller's ok() accepts, the rounding that
 * makes a status computed twice compare equal, and the analysis over steps given in any order.
 * Expected values are worked out by hand in the comments. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <string.h>

#include "pkg/bench/sweep_stats.h"
#include "pkg/util/json.h"

/* The runs marked "ok": true count; the others (a failed run's numbers) must not. */
static bool marked_ok(const cJSON *e)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "ok"));
}

static cJSON *parse(const char *s)
{
    cJSON *j = cJSON_Parse(s);
    assert_non_null(j);
    return j;
}

/* Means and spreads over the ok runs only: tps 100 and 110 (the failed run's 5000 is left out):
 * mean 105, sample sd sqrt((25 + 25) / 1) = 7.0711 (6 significant digits: 7.07107); p99 4 and 6:
 * mean 5; Little's law -1 and 3: mean 1. */
static void test_step_over_ok_runs(void **state)
{
    (void)state;
    cJSON *step =
        parse("{\"index\":0,\"value\":4,\"runs\":["
              "{\"ok\":true,\"tps\":100,\"latencyP99Ms\":4,\"littlesLawDeviationPct\":-1},"
              "{\"ok\":false,\"tps\":5000,\"latencyP99Ms\":1000},"
              "{\"ok\":true,\"tps\":110,\"latencyP99Ms\":6,\"littlesLawDeviationPct\":3}]}");
    bench_sweep_step_stats(step, marked_ok);
    assert_true(util_jnum(step, "tpsMean", 0) == 105);
    assert_true(util_jnum(step, "tpsStddev", 0) == 7.07107);
    assert_true(util_jnum(step, "latencyP99MsMean", 0) == 5);
    assert_true(util_jnum(step, "littlesLawDeviationPct", 0) == 1);
    assert_null(util_jget(step, "limit")); /* no run sampled wait events */
    cJSON_Delete(step);
}

/* One ok run: its numbers, and no spread (unknown, not 0). */
static void test_one_run_no_spread(void **state)
{
    (void)state;
    cJSON *step = parse("{\"index\":0,\"value\":1,\"runs\":[{\"ok\":true,\"tps\":123.456789012,"
                        "\"latencyP99Ms\":2}]}");
    bench_sweep_step_stats(step, marked_ok);
    assert_true(util_jnum(step, "tpsMean", 0) == 123.45679); /* 8 significant digits */
    assert_null(util_jget(step, "tpsStddev"));
    assert_null(util_jget(step, "latencyP99MsStddev"));
    cJSON_Delete(step);
}

/* The analysis of steps listed out of value order (values 8, 2, 4 with tps 300, 100, 400): peak
 * 400 at 4; not the clients: no USL, the verdict names the field. No step with a tps: none. */
static void test_analysis_peak(void **state)
{
    (void)state;
    cJSON *st = parse("{\"steps\":["
                      "{\"value\":8,\"tpsMean\":300,\"latencyP99MsMean\":30,\"runs\":[]},"
                      "{\"value\":2,\"tpsMean\":100,\"latencyP99MsMean\":2,\"runs\":[]},"
                      "{\"value\":4,\"tpsMean\":400,\"latencyP99MsMean\":3,\"runs\":[]}]}");
    bench_sweep_analyse(st, "rate", false, marked_ok);
    assert_true(util_jnum(st, "analysis.peakTps", 0) == 400);
    assert_true(util_jnum(st, "analysis.peakAt", 0) == 4);
    assert_null(util_jget(st, "analysis.usl"));
    assert_string_equal(util_jstr(st, "analysis.verdict"), "peak 400.0 tps at rate=4");
    cJSON_Delete(st);
    st = parse("{\"steps\":[{\"value\":1,\"runs\":[]}]}");
    bench_sweep_analyse(st, "clients", true, marked_ok);
    assert_null(util_jget(st, "analysis"));
    cJSON_Delete(st);
}

/* Rounding to significant digits, and nothing for a value that is not finite. */
static void test_put_num(void **state)
{
    (void)state;
    cJSON *o = parse("{}");
    bench_sweep_put_num(o, "a", 0.000123456, 3);
    bench_sweep_put_num(o, "b", 98765, 2);
    bench_sweep_put_num(o, "c", NAN, 3);
    assert_true(util_jnum(o, "a", 0) == 0.000123);
    assert_true(util_jnum(o, "b", 0) == 99000);
    assert_null(util_jget(o, "c"));
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_over_ok_runs),
        cmocka_unit_test(test_one_run_no_spread),
        cmocka_unit_test(test_analysis_peak),
        cmocka_unit_test(test_put_num),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
