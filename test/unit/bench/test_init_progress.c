/* pgbench -i's progress: its step and rows lines (real pgbench 15 recordings), and the row
 * estimate of the server-side generation against sizes PostgreSQL reported. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "pkg/bench/init_progress.h"
#include "test/unit/bench/fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEEN 16

/* Feeds a recording line by line (at most MAX_SEEN of each kept); rows_seen gets each rows line's
 * count in order. */
static struct bench_init_progress feed(const char *path, long long *rows_seen, int *nrows,
                                       enum bench_init_step *steps, int *nsteps)
{
    size_t len = 0;
    char *text = fixture_read(path, &len);
    assert_non_null(text);
    struct bench_init_progress p = {0};
    *nrows = *nsteps = 0;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        enum bench_init_step before = p.step;
        long long rows_before = p.rows;
        if (bench_init_progress_line(&p, line, n)) {
            if (p.step != before && *nsteps < MAX_SEEN)
                steps[(*nsteps)++] = p.step;
            else if ((p.rows != rows_before || p.rows_total) && *nrows < MAX_SEEN)
                rows_seen[(*nrows)++] = p.rows;
        }
        line = nl ? nl + 1 : line + n;
    }
    free(text);
    return p;
}

static void test_client_side(void **state)
{
    (void)state;
    long long rows[MAX_SEEN] = {0};
    enum bench_init_step steps[MAX_SEEN] = {0};
    int nrows, nsteps;
    struct bench_init_progress p =
        feed("test/fixtures/pgbench/v15-init-client.txt", rows, &nrows, steps, &nsteps);
    assert_int_equal(nrows, 3);
    assert_int_equal(rows[0], 100000);
    assert_int_equal(rows[1], 200000);
    assert_int_equal(rows[2], 300000);
    assert_int_equal(p.rows_total, 300000);
    assert_true(fabs(p.elapsed_s - 0.47) < 1e-9);
    static const enum bench_init_step want[] = {
        BENCH_INIT_STEP_DROP,   BENCH_INIT_STEP_CREATE,       BENCH_INIT_STEP_GENERATE_CLIENT,
        BENCH_INIT_STEP_VACUUM, BENCH_INIT_STEP_PRIMARY_KEYS, BENCH_INIT_STEP_DONE};
    assert_int_equal(nsteps, 6);
    for (int i = 0; i < nsteps; i++)
        assert_int_equal(steps[i], want[i]);
    assert_string_equal(bench_init_step_name(steps[2]), "generate (client-side)");
}

static void test_quiet_foreign_keys(void **state)
{
    (void)state;
    long long rows[MAX_SEEN] = {0};
    enum bench_init_step steps[MAX_SEEN] = {0};
    int nrows, nsteps;
    struct bench_init_progress p =
        feed("test/fixtures/pgbench/v15-init-client-quiet.txt", rows, &nrows, steps, &nsteps);
    assert_int_equal(nrows, 1);
    assert_int_equal(rows[0], 1200000);
    assert_int_equal(p.rows_total, 1200000);
    assert_int_equal(nsteps, 7);
    assert_int_equal(steps[5], BENCH_INIT_STEP_FOREIGN_KEYS);
    assert_string_equal(bench_init_step_name(steps[5]), "foreign keys");
}

/* Server-side generation prints its steps and no rows. */
static void test_server_side(void **state)
{
    (void)state;
    long long rows[MAX_SEEN] = {0};
    enum bench_init_step steps[MAX_SEEN] = {0};
    int nrows, nsteps;
    struct bench_init_progress p =
        feed("test/fixtures/pgbench/v15-init-server.txt", rows, &nrows, steps, &nsteps);
    assert_int_equal(nrows, 0);
    assert_int_equal(p.rows_total, 0);
    assert_int_equal(nsteps, 6);
    assert_int_equal(steps[2], BENCH_INIT_STEP_GENERATE_SERVER);
    assert_string_equal(bench_init_step_name(steps[2]), "generate (server-side)");
    assert_int_equal(p.step, BENCH_INIT_STEP_DONE);
}

/* pgbench 16+ names the table (and prints rows lines of the small tables too, with -q at their
 * end); pgbench 12 says "generating data..." and "done.". Lines written from pgbench's format
 * strings, as no recording of those versions is here. */
static void test_other_versions(void **state)
{
    (void)state;
    struct bench_init_progress p = {0};
    const char *l1 = "50 of 50 tuples (100%) of pgbench_branches done (elapsed 0.00 s, remaining "
                     "0.00 s)";
    assert_false(bench_init_progress_line(&p, l1, strlen(l1)));
    const char *l2 = "2400000 of 5000000 tuples (48%) of pgbench_accounts done (elapsed 3.21 s, "
                     "remaining 3.48 s)";
    assert_true(bench_init_progress_line(&p, l2, strlen(l2)));
    assert_int_equal(p.rows, 2400000);
    assert_int_equal(p.rows_total, 5000000);
    assert_true(fabs(p.elapsed_s - 3.21) < 1e-9);
    const char *l3 = "generating data...";
    assert_true(bench_init_progress_line(&p, l3, strlen(l3)));
    assert_int_equal(p.step, BENCH_INIT_STEP_GENERATE_CLIENT);
    const char *junk[] = {"NOTICE:  table \"pgbench_accounts\" does not exist, skipping",
                          "12 of x tuples", "100 of 200 tuples (50%) done", ""};
    for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
        assert_false(bench_init_progress_line(&p, junk[i], strlen(junk[i])));
    assert_int_equal(p.rows, 2400000);
}

/* Oracle: pg_relation_size('pgbench_accounts') after pgbench -i of pgbench 15 / PostgreSQL 15
 * (8 KiB blocks): scale 20 at fill factor 100 was 268,591,104 bytes, scale 3 at -F 90 was
 * 44,687,360. The estimate must give those rows back to within one page's rows. */
static void test_rows_from_bytes(void **state)
{
    (void)state;
    double r = bench_init_rows_from_bytes(268591104.0, 0, 8192);
    assert_true(fabs(r - 2000000) <= 61);
    r = bench_init_rows_from_bytes(268591104.0, 100, 8192);
    assert_true(fabs(r - 2000000) <= 61);
    r = bench_init_rows_from_bytes(44687360.0, 90, 8192);
    assert_true(fabs(r - 300000) <= 55);
    assert_true(bench_init_rows_from_bytes(0, 100, 8192) == 0);
    assert_true(bench_init_rows_from_bytes(-8192, 100, 8192) == 0);
    assert_int_equal(bench_init_accounts_rows(50), 5000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client_side),     cmocka_unit_test(test_quiet_foreign_keys),
        cmocka_unit_test(test_server_side),     cmocka_unit_test(test_other_versions),
        cmocka_unit_test(test_rows_from_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
