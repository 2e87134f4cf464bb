/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pkg/util/clock.h"

/* Expected texts come from `date -u -d @1796395564` (GNU date), not from this code. */
static void test_rfc3339_digits(void **state)
{
    (void)state;
    char b[UTIL_RFC3339_LEN];
    util_rfc3339(1796395564.0, 0, b, sizeof(b));
    assert_string_equal(b, "2026-12-04T14:46:04Z");
    util_rfc3339(1796395564.25, 3, b, sizeof(b));
    assert_string_equal(b, "2026-12-04T14:46:04.250Z");
    util_rfc3339(1796395564.5, 6, b, sizeof(b));
    assert_string_equal(b, "2026-12-04T14:46:04.500000Z");
    util_rfc3339(0, 3, b, sizeof(b));
    assert_string_equal(b, "1970-01-01T00:00:00.000Z");
    /* a fraction rounds to its last digit, carrying into the next second; whole seconds are
     * truncated, as Kubernetes' Time is */
    util_rfc3339(1796395564.9996, 3, b, sizeof(b));
    assert_string_equal(b, "2026-12-04T14:46:05.000Z");
    util_rfc3339(1796395564.9996, 0, b, sizeof(b));
    assert_string_equal(b, "2026-12-04T14:46:04Z");
    util_rfc3339(-0.25, 3, b, sizeof(b));
    assert_string_equal(b, "1969-12-31T23:59:59.750Z");
    /* a short buffer is cut, still terminated */
    char small[8];
    util_rfc3339(1796395564.0, 0, small, sizeof(small));
    assert_string_equal(small, "2026-12");
}

static void test_rfc3339_parse(void **state)
{
    (void)state;
    assert_true(util_rfc3339_parse("2026-12-04T14:46:04Z") == 1796395564.0);
    assert_true(fabs(util_rfc3339_parse("2026-12-04T14:46:04.250Z") - 1796395564.25) < 1e-6);
    assert_true(fabs(util_rfc3339_parse("2026-12-04T14:46:04.123456Z") - 1796395564.123456) < 1e-6);
    assert_true(util_rfc3339_parse("2026-12-04T14:46:04") == 1796395564.0);
    assert_true(util_rfc3339_parse(NULL) == -1);
    assert_true(util_rfc3339_parse("1796395564") == -1);
    assert_true(util_rfc3339_parse("2026-12-04T14:46:04+01:00") == -1);
    assert_true(util_rfc3339_parse("yesterday") == -1);
    /* round trip */
    char b[UTIL_RFC3339_LEN];
    util_rfc3339(1796395564.125, 3, b, sizeof(b));
    assert_true(fabs(util_rfc3339_parse(b) - 1796395564.125) < 1e-6);
    /* every millisecond and a spread of microseconds of a 2026 second format back to the text
     * they were parsed from (e2e 30 once saw .972Z come back as .971Z) */
    char want[UTIL_RFC3339_LEN];
    for (int ms = 0; ms < 1000; ms++) {
        (void)snprintf(want, sizeof(want), "2026-12-05T07:35:14.%03dZ", ms);
        util_rfc3339(util_rfc3339_parse(want), 3, b, sizeof(b));
        assert_string_equal(b, want);
    }
    for (int us = 0; us < 1000000; us += 997) {
        (void)snprintf(want, sizeof(want), "2026-12-05T07:35:14.%06dZ", us);
        util_rfc3339(util_rfc3339_parse(want), 6, b, sizeof(b));
        assert_string_equal(b, want);
    }
}

static void test_clocks_move(void **state)
{
    (void)state;
    double w = util_wall_s(), m = util_mono_s();
    assert_true(w > 1.7e9); /* after 2023 */
    util_sleep_s(0.02, NULL);
    assert_true(util_mono_s() - m >= 0.019);
    assert_true(util_wall_s() >= w);
    util_sleep_s(-1, NULL); /* returns at once */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc3339_digits),
        cmocka_unit_test(test_rfc3339_parse),
        cmocka_unit_test(test_clocks_move),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
