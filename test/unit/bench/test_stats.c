/* Mean, stddev and Welch's t-test, against closed forms of Student's t distribution (df 1, 2 and
 * 4), not the incomplete beta function under test. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>

#include "pkg/bench/stats.h"

/* two-sided p of Student's t at df 1 (Cauchy), 2 and 4 */
static double p_df1(double t)
{
    return 1 - 2 / M_PI * atan(fabs(t));
}

static double p_df2(double t)
{
    return 1 - fabs(t) / sqrt(2 + t * t);
}

static double p_df4(double t)
{
    double x = fabs(t), u = 1 + x * x / 4;
    return 2 * (0.5 - 3.0 / 8 * x / sqrt(u) * (1 - x * x / (12 * u)));
}

static void test_ibeta_is_students_t(void **state)
{
    (void)state;
    for (int i = 0; i < 80; i++) {
        double t = i * 0.37;
        assert_true(fabs(bench_ibeta(0.5, 0.5, 1 / (1 + t * t)) - p_df1(t)) < 1e-10);
        assert_true(fabs(bench_ibeta(1, 0.5, 2 / (2 + t * t)) - p_df2(t)) < 1e-10);
        assert_true(fabs(bench_ibeta(2, 0.5, 4 / (4 + t * t)) - p_df4(t)) < 1e-10);
    }
    assert_true(bench_ibeta(2, 3, 0) == 0 && bench_ibeta(2, 3, 1) == 1);
}

static void test_welch(void **state)
{
    (void)state;
    /* 2 % apart, 3 % spread: equal sizes and variances make df 2(n - 1) = 4 */
    const double a[] = {1030, 970, 1000}, b[] = {1010, 950, 980};
    struct bench_welch w;
    assert_int_equal(bench_welch(a, 3, b, 3, &w), 0);
    assert_true(w.mean_a == 1000 && w.mean_b == 980);
    assert_true(fabs(w.sd_a - 30) < 1e-12 && fabs(w.sd_b - 30) < 1e-12);
    assert_true(fabs(w.t - 20 / sqrt(600)) < 1e-12);
    assert_true(fabs(w.df - 4) < 1e-12);
    assert_true(fabs(w.p - p_df4(w.t)) < 1e-10);
    assert_true(w.p > 0.4 && w.p < 0.5); /* within noise */
    /* 20 % apart with the same spread: beyond it */
    const double c[] = {810, 790, 800};
    assert_int_equal(bench_welch(a, 3, c, 3, &w), 0);
    assert_true(w.p < 0.01);
    /* no spread: equal means p 1, else 0; fewer than two values: no test */
    const double d[] = {5, 5}, e[] = {6, 6};
    assert_int_equal(bench_welch(d, 2, d, 2, &w), 0);
    assert_true(w.p == 1);
    assert_int_equal(bench_welch(d, 2, e, 2, &w), 0);
    assert_true(w.p == 0);
    assert_int_equal(bench_welch(a, 1, b, 3, &w), -1);
    double m, sd;
    bench_mean_sd(a, 0, &m, &sd);
    assert_true(isnan(m) && isnan(sd));
    bench_mean_sd(a, 1, &m, &sd);
    assert_true(m == 1030 && isnan(sd)); /* one run: its spread is unknown, not 0 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ibeta_is_students_t),
        cmocka_unit_test(test_welch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
