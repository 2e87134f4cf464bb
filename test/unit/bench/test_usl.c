/* The USL fit: known parameters recovered from synthetic measurements (with noise and repeats),
 * and an honest refusal for data that cannot determine three parameters. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pkg/bench/usl.h"

static double usl(double l, double s, double k, double n)
{
    return l * n / (1 + s * (n - 1) + k * n * (n - 1));
}

/* deterministic noise in [-amp, amp] (a linear congruential generator, not the code under test) */
static double noise(uint32_t *seed, double amp)
{
    *seed = *seed * 1664525u + 1013904223u;
    return amp * (2.0 * (*seed >> 8) / (double)(1u << 24) - 1.0);
}

static void near(double got, double want, double rel, const char *what)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("%s: got %g, want %g within %.1f %%", what, got, want, rel * 100);
}

static void check_recovery(double l, double s, double k, const double *ns, size_t nn, int repeats,
                           double amp)
{
    struct bench_usl_point pts[128];
    size_t n = 0;
    uint32_t seed = 42;
    for (int r = 0; r < repeats; r++)
        for (size_t i = 0; i < nn; i++) {
            pts[n].n = ns[i];
            pts[n].x = usl(l, s, k, ns[i]) * (1 + noise(&seed, amp));
            n++;
        }
    struct bench_usl_fit f;
    bench_usl_fit(pts, n, &f);
    assert_true(f.ok);
    near(f.lambda, l, 0.02, "lambda");
    near(f.sigma, s, 0.02, "sigma");
    near(f.kappa, k, 0.02, "kappa");
    near(f.peak_n, sqrt((1 - s) / k), 0.02, "N*");
    assert_true(f.r2 > 0.99);
}

static void test_recovers_known_parameters(void **state)
{
    (void)state;
    static const double doubling[] = {1, 2, 4, 8, 16, 32, 64, 128};
    /* exact data, and 0.3 % noise with 3 repeats per step */
    check_recovery(1000, 0.05, 0.001, doubling, 8, 1, 0);
    check_recovery(1000, 0.05, 0.001, doubling, 8, 3, 0.003);
    /* a database that peaks early: strong coherency, no N = 1 measured */
    static const double sweep[] = {2, 4, 6, 8, 12, 16, 24, 32, 48};
    check_recovery(2500, 0.12, 0.004, sweep, 9, 2, 0.002);
    /* mostly contention */
    check_recovery(300, 0.3, 0.0002, doubling, 8, 1, 0);
}

static void test_not_enough_data(void **state)
{
    (void)state;
    struct bench_usl_fit f;
    /* two points */
    struct bench_usl_point two[] = {{1, 100}, {2, 190}};
    bench_usl_fit(two, 2, &f);
    assert_false(f.ok);
    assert_non_null(strstr(f.reason, "not enough data"));
    /* repeats of two concurrencies are still two */
    struct bench_usl_point rep[] = {{1, 100}, {1, 101}, {4, 350}, {4, 352}};
    bench_usl_fit(rep, 4, &f);
    assert_false(f.ok);
    assert_int_equal(f.distinct, 2);
    /* flat: the limit was reached before the first step */
    struct bench_usl_point flat[] = {{4, 1000}, {8, 1004}, {16, 998}, {32, 1001}};
    bench_usl_fit(flat, 4, &f);
    assert_false(f.ok);
    assert_non_null(strstr(f.reason, "flat"));
    /* nonsense input */
    struct bench_usl_point bad[] = {{1, 100}, {2, 0}, {4, 300}};
    bench_usl_fit(bad, 3, &f);
    assert_false(f.ok);
}

static void test_monotonic_has_no_peak(void **state)
{
    (void)state;
    /* linear scaling: no coherency to see, so no peak is predicted (not an invented one) */
    struct bench_usl_point lin[] = {{1, 100}, {2, 200}, {4, 400}, {8, 800}, {16, 1600}};
    struct bench_usl_fit f;
    bench_usl_fit(lin, 5, &f);
    assert_true(f.ok);
    assert_true(f.kappa < 1e-9);
    assert_true(isinf(f.peak_n));
    near(f.lambda, 100, 0.001, "lambda");
}

static void test_knee_and_verdict(void **state)
{
    (void)state;
    /* tps +90 %, +40 %, +5 % while p99 +10 %, +30 %, +60 %: the knee is the third step */
    static const double tps[] = {1000, 1900, 2660, 2793};
    static const double p99[] = {2.0, 2.2, 2.86, 4.58};
    assert_int_equal(bench_latency_knee(tps, p99, 4), 3);
    static const double flat_p99[] = {2.0, 2.0, 2.0, 2.0};
    assert_int_equal(bench_latency_knee(tps, flat_p99, 4), -1);
    static const double gap[] = {1000, NAN, 1100, 1110};
    static const double gap99[] = {2.0, NAN, 2.1, 9.0};
    assert_int_equal(bench_latency_knee(gap, gap99, 4), 3);

    struct bench_usl_fit f = {.ok = true, .lambda = 1000, .sigma = 0.02, .kappa = 0.0012};
    f.peak_n = sqrt((1 - f.sigma) / f.kappa);
    char v[200];
    bench_usl_verdict(&f, 64, "IO:WALSync", 61, v, sizeof(v));
    assert_string_equal(v, "scales to ~29 clients; beyond, coherency (kappa=0.0012) dominates: "
                           "IO:WALSync 61 % of wait time");
    struct bench_usl_fit lin = {.ok = true, .lambda = 100, .sigma = 0.01, .peak_n = INFINITY};
    bench_usl_verdict(&lin, 16, NULL, 0, v, sizeof(v));
    assert_non_null(strstr(v, "no peak in sight"));
    struct bench_usl_fit none = {.ok = false};
    (void)snprintf(none.reason, sizeof(none.reason), "not enough data: 2 distinct concurrencies");
    bench_usl_verdict(&none, 2, NULL, 0, v, sizeof(v));
    assert_string_equal(v, "not enough data: 2 distinct concurrencies");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovers_known_parameters),
        cmocka_unit_test(test_not_enough_data),
        cmocka_unit_test(test_monotonic_has_no_peak),
        cmocka_unit_test(test_knee_and_verdict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
