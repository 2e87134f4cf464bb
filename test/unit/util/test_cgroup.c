/* The CPU quota of a cgroup, v2 and v1, from fixture trees laid out like /sys/fs/cgroup
 * (test/fixtures/cgroup): a container's own quota, a parent's smaller one, unlimited, none. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <math.h>
#include <string.h>

#include "pkg/util/cgroup.h"

static void test_parse(void **state)
{
    (void)state;
    assert_true(util_cgroup_parse_cpu_max("max 100000\n") == 0);
    assert_true(util_cgroup_parse_cpu_max("50000 100000\n") == 0.5);
    assert_true(util_cgroup_parse_cpu_max("250000 100000") == 2.5);
    assert_true(isnan(util_cgroup_parse_cpu_max("")));
    assert_true(isnan(util_cgroup_parse_cpu_max("5x 100000")));
    assert_true(isnan(util_cgroup_parse_cpu_max("50000 0")));
    assert_true(util_cgroup_parse_cfs("-1\n", "100000\n") == 0);
    assert_true(util_cgroup_parse_cfs("150000\n", "100000\n") == 1.5);
    assert_true(isnan(util_cgroup_parse_cfs("x", "100000")));
    assert_true(isnan(util_cgroup_parse_cfs("100", "0")));
}

static void expect(const char *root, const char *self, int rc, double cores, const char *version)
{
    double c = -1;
    const char *v = NULL;
    assert_int_equal(util_cgroup_cpu_quota(root, self, &c, &v), rc);
    if (fabs(c - cores) > 1e-9)
        fail_msg("%s %s: %g CPUs, expected %g", root, self, c, cores);
    assert_string_equal(v, version);
}

static void test_v2(void **state)
{
    (void)state;
    const char *root = "test/fixtures/cgroup/v2";
    expect(root, "0::/kubepods/pod1/ctr\n", 0, 0.5, "v2");
    /* the parent's quota is smaller than the child's "max" */
    expect(root, "0::/limited/child\n", 0, 0.2, "v2");
    expect(root, "0::/kubepods\n", 0, 0, "v2");
    expect("test/fixtures/cgroup/none", "0::/\n", -ENOENT, 0, "none");
}

static void test_v1(void **state)
{
    (void)state;
    const char *root = "test/fixtures/cgroup/v1";
    expect(root, "5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n", 0, 1.5, "v1");
    expect(root, "4:cpu,cpuacct:/\n", 0, 0, "v1");
    /* cpuset is not cpu */
    expect(root, "3:cpuset:/docker/abc\n", -ENOENT, 0, "none");
}

static void test_self(void **state)
{
    (void)state;
    double c = -1;
    const char *v = NULL;
    int rc = util_cgroup_self_cpu_quota("/sys/fs/cgroup", &c, &v);
    assert_true(rc == 0 || rc == -ENOENT);
    assert_true(c >= 0);
    assert_true(util_cpus_allowed() >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_v2),
        cmocka_unit_test(test_v1),
        cmocka_unit_test(test_self),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
