/* The start barrier's margin (margin.h): the default before enough runs were measured (from the
 * API server's answers to the writes), the slowest notice of the recent runs after, its bounds,
 * and the windows that forget old runs and old writes. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>

#include "pkg/controller/margin.h"

/* 2 s before any run was measured and any write answered */
static void test_default(void **state)
{
    (void)state;
    struct ctrl_margin m = {0};
    assert_int_equal(ctrl_margin_ms(NULL), 2000);
    assert_int_equal(ctrl_margin_ms(&m), 2000);
    ctrl_margin_record(&m, 0); /* not a measurement */
    ctrl_margin_record(&m, -0.5);
    ctrl_margin_record(&m, NAN);
    ctrl_margin_record_write(&m, -1);
    ctrl_margin_record_write(&m, INFINITY);
    assert_int_equal(m.n, 0);
    assert_int_equal(m.n_writes, 0);
    assert_int_equal(ctrl_margin_ms(&m), 2000);
}

/* Issue 31.3: an operator's first run, its writes answered: the real node's slowest refresh
 * (1.17 s) + twice the slowest of the last writes (the status, then the pod patches; at least
 * 40 ms) + 80 ms; under 1.5 s with an API server that answers in 10 ms, longer with a slow one,
 * and a slow write is forgotten after CTRL_MARGIN_WRITES others */
static void test_first_run(void **state)
{
    (void)state;
    struct ctrl_margin m = {0};
    ctrl_margin_record_write(&m, 0.002);
    ctrl_margin_record_write(&m, 0.010);
    assert_int_equal(ctrl_margin_ms(&m), 1170 + 80 + 80);
    assert_true(ctrl_margin_ms(&m) < 1500);
    ctrl_margin_record_write(&m, 0.060);
    assert_int_equal(ctrl_margin_ms(&m), 1170 + 120 + 80);
    ctrl_margin_record_write(&m, 0.3);
    assert_int_equal(ctrl_margin_ms(&m), 1170 + 600 + 80);
    ctrl_margin_record_write(&m, 0.4); /* at most the 2 s of before */
    assert_int_equal(ctrl_margin_ms(&m), CTRL_START_MARGIN_COLD_MS);
    for (int i = 0; i < CTRL_MARGIN_WRITES - 1; i++)
        ctrl_margin_record_write(&m, 0.005);
    assert_int_equal(ctrl_margin_ms(&m), CTRL_START_MARGIN_COLD_MS);
    ctrl_margin_record_write(&m, 0.005);
    assert_int_equal(ctrl_margin_ms(&m), 1170 + 80 + 80);
    ctrl_margin_record_write(&m, 30);
    assert_int_equal(ctrl_margin_ms(&m), CTRL_START_MARGIN_COLD_MS);
}

/* a slower kubelet than assumed lengthens the margin at once; a fast one shortens it to 1.25 s
 * (the real node's slowest refresh and two 40 ms writes) + 80 ms after one run, below that only
 * after CTRL_MARGIN_TRUST_RUNS runs, and never below the minimum */
static void test_learned(void **state)
{
    (void)state;
    struct ctrl_margin m = {0};
    ctrl_margin_record(&m, 2.0);
    assert_int_equal(ctrl_margin_ms(&m), 2080);
    m = (struct ctrl_margin){0};
    ctrl_margin_record_write(&m, 0.3); /* the first run's writes; its notice holds them */
    ctrl_margin_record(&m, 0.4);
    assert_int_equal(ctrl_margin_ms(&m), 1330);
    for (int i = 1; i < CTRL_MARGIN_TRUST_RUNS - 1; i++)
        ctrl_margin_record(&m, 0.4);
    assert_int_equal(ctrl_margin_ms(&m), 1330);
    ctrl_margin_record(&m, 0.4);
    assert_int_equal(ctrl_margin_ms(&m), 480);
    m = (struct ctrl_margin){0};
    for (int i = 0; i < CTRL_MARGIN_TRUST_RUNS; i++)
        ctrl_margin_record(&m, 0.01);
    assert_int_equal(ctrl_margin_ms(&m), CTRL_START_MARGIN_MIN_MS);
    ctrl_margin_record(&m, 60);
    assert_int_equal(ctrl_margin_ms(&m), CTRL_START_MARGIN_MAX_MS);
}

/* a slow run is forgotten after CTRL_MARGIN_WINDOW later ones */
static void test_window(void **state)
{
    (void)state;
    struct ctrl_margin m = {0};
    ctrl_margin_record(&m, 1.9);
    for (int i = 0; i < CTRL_MARGIN_WINDOW - 1; i++)
        ctrl_margin_record(&m, 0.5);
    assert_int_equal(ctrl_margin_ms(&m), 1980);
    ctrl_margin_record(&m, 0.5);
    assert_int_equal(ctrl_margin_ms(&m), 580);
    assert_int_equal(m.n, CTRL_MARGIN_WINDOW);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default),
        cmocka_unit_test(test_first_run),
        cmocka_unit_test(test_learned),
        cmocka_unit_test(test_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
