/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <string.h>

#include "pkg/util/version.h"

/* The oracle is the VERSION file itself (the tests start in the source tree), read here, not the
 * macro the Makefile derived from it. */
static void read_version_file(char *out, size_t n)
{
    FILE *f = fopen("VERSION", "r");
    assert_non_null(f);
    assert_non_null(fgets(out, (int)n, f));
    (void)fclose(f);
    out[strcspn(out, "\r\n")] = '\0';
}

static void test_version_is_the_file(void **state)
{
    (void)state;
    char want[64];
    read_version_file(want, sizeof(want));
    assert_string_equal(util_version(), want);
    char image[128];
    (void)snprintf(image, sizeof(image), "ghcr.io/pgbench-operator/runner:%s", want);
    assert_string_equal(util_runner_image(), image);
    /* a commit from git (7 hex digits, maybe -dirty), or unknown outside a checkout */
    const char *c = util_commit();
    assert_true(strcmp(c, "unknown") == 0 || strspn(c, "0123456789abcdef") >= 7);
}

static void test_version_line(void **state)
{
    (void)state;
    char want[64], line[256], exp[256];
    read_version_file(want, sizeof(want));
    (void)snprintf(exp, sizeof(exp), "kubectl-pgbench %s (commit %s)", want, util_commit());
    assert_ptr_equal(util_version_line(line, sizeof(line), "kubectl-pgbench"), line);
    assert_string_equal(line, exp);
    /* a short buffer truncates and stays terminated */
    char tiny[8];
    util_version_line(tiny, sizeof(tiny), "pgbench-operator");
    assert_string_equal(tiny, "pgbench");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_is_the_file),
        cmocka_unit_test(test_version_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
