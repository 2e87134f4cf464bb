/* The CPU quota of a cgroup, v2 and v1, from fixture trees laid out like /sys/fs/cgroup
 * (test/fixtures/cgroup): a container's own quota, a parent's smaller one, unlimited, none; and
 * threads' scheduler times from /proc (fixtures in test/fixtures/proc, and this process). */
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
#include <time.h>
#include <unistd.h>

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

/* schedstat: a fixture process of two threads (test/fixtures/proc), and this process after it
 * spun on a CPU for 0.2 s. */
static void test_sched(void **state)
{
    (void)state;
    double run = 0, wait = 0;
    assert_int_equal(util_sched_parse("1500000000 250000000 812\n", &run, &wait), 0);
    assert_true(run == 1.5 && wait == 0.25);
    assert_int_equal(util_sched_parse("12 x", &run, &wait), -EINVAL);
    struct util_sched s;
    assert_int_equal(util_sched_read("test/fixtures/proc", 4242, &s), 0);
    assert_int_equal(s.tasks, 2);
    assert_true(fabs(s.run_s - 2.0) < 1e-9 && fabs(s.wait_s - 1.0) < 1e-9);
    assert_int_equal(util_sched_read("test/fixtures/proc", 4241, &s), -ENOENT);
    struct timespec t0, t;
    (void)clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        (void)clock_gettime(CLOCK_MONOTONIC, &t);
    while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < 0.2);
    assert_int_equal(util_sched_read("/proc", (int)getpid(), &s), 0);
    assert_true(s.tasks >= 1);
    if (s.run_s + s.wait_s < 0.2 * 0.9)
        fail_msg("spun 0.2 s, schedstat says %.3f s on a CPU and %.3f s waiting", s.run_s,
                 s.wait_s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse), cmocka_unit_test(test_v2),    cmocka_unit_test(test_v1),
        cmocka_unit_test(test_self),  cmocka_unit_test(test_sched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
