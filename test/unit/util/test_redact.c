/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include <string.h>

#include "pkg/util/redact.h"

static void test_redact_every_occurrence(void **state)
{
    (void)state;
    char s[] = "password=hunter22 again hunter22hunter22.";
    util_redact(s, "hunter22");
    assert_string_equal(s, "password=*** again ******.");
}

static void test_redact_short_and_empty_secrets(void **state)
{
    (void)state;
    char s[] = "a-ab-abc";
    util_redact(s, "ab"); /* shorter than "***": as many stars as bytes, s never grows */
    assert_string_equal(s, "a-**-**c");
    char t[] = "unchanged";
    util_redact(t, "");
    util_redact(t, NULL);
    util_redact(NULL, "x");
    assert_string_equal(t, "unchanged");
}

static void test_redact_overlapping_text(void **state)
{
    (void)state;
    char s[] = "aaaa"; /* secret "aa": two occurrences, left to right */
    util_redact(s, "aa");
    assert_string_equal(s, "****");
    assert_null(strstr(s, "aa"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redact_every_occurrence),
        cmocka_unit_test(test_redact_short_and_empty_secrets),
        cmocka_unit_test(test_redact_overlapping_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
