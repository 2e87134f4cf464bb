/* The start barrier's margin (margin.h): the default before enough runs were measured, the
 * slowest notice of the recent runs after, its bounds, and the window that forgets old runs. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>

#include "pkg/controller/margin.h"

/* 1.25 s (the real node's slowest refresh and the writes) + 80 ms until runs were measured */
static void test_default(void **state)
{
    (void)state;
    struct ctrl_margin m = {0};
    assert_int_equal(ctrl_margin_ms(NULL), 1330);
    assert_int_equal(ctrl_margin_ms(&m), 1330);
    ctrl_margin_record(&m, 0); /* not a measurement */
    ctrl_margin_record(&m, -0.5);
    ctrl_margin_record(&m, NAN);
    assert_int_equal(m.n, 0);
}

/* a slower kubelet than assumed lengthens the margin at once; a fast one shortens it only after
 * CTRL_MARGIN_TRUST_RUNS runs, and never below the minimum */
static void test_learned(void **state)
{
    (void)state;
    struct ctrl_margin m = {0};
    ctrl_margin_record(&m, 2.0);
    assert_int_equal(ctrl_margin_ms(&m), 2080);
    m = (struct ctrl_margin){0};
    for (int i = 0; i < CTRL_MARGIN_TRUST_RUNS - 1; i++)
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
        cmocka_unit_test(test_learned),
        cmocka_unit_test(test_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
