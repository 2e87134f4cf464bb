/* Server counters as deltas: the result's serverStats from two readings (cache hit ratio, WAL
 * per transaction, sync time per commit), null where a counter is missing (pg_stat_wal before 14,
 * track_wal_io_timing off), server CPU unknown without pg_stat_kcache. */
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

#include "pkg/bench/fields.h"
#include "pkg/pg/pg_stats.h"

static struct pg_stats_snap snap(double t, int64_t commits, int64_t read, int64_t hit, int64_t wal,
                                 double sync_ms)
{
    struct pg_stats_snap s = {.t = t,
                              .commits = commits,
                              .blks_read = read,
                              .blks_hit = hit,
                              .checkpoints = 3,
                              .wal_bytes = wal,
                              .wal_syncs = wal >= 0 ? commits : -1,
                              .wal_records = wal >= 0 ? 0 : -1,
                              .wal_fpi = wal >= 0 ? 0 : -1,
                              .wal_sync_ms = sync_ms,
                              .io_reads = -1,
                              .io_writes = -1,
                              .kcache_cpu_s = -1};
    (void)snprintf(s.kcache_error, sizeof(s.kcache_error), "unknown: no pg_stat_kcache");
    return s;
}

static void test_delta(void **state)
{
    (void)state;
    struct pg_stats_snap a = snap(10, 1000, 50, 950, 1 << 20, 100);
    struct pg_stats_snap b = snap(40, 3000, 150, 10850, (1 << 20) + 2000 * 500, 4100);
    b.checkpoints = 5;
    a.wal_records = 1000; /* 4000 records during the load, 1000 of them full-page images */
    a.wal_fpi = 100;
    b.wal_records = 5000;
    b.wal_fpi = 1100;
    a.io_reads = 7; /* PostgreSQL 16: pg_stat_io */
    a.io_writes = 2;
    b.io_reads = 107;
    b.io_writes = 42;
    cJSON *o = pg_stats_delta_json(&a, &b);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "serverStats", o);
    assert_true(bench_num(r, BK_SERVER_STATS_SECONDS) == 30);
    assert_true(bench_num(r, BK_SERVER_STATS_COMMITS) == 2000);
    /* 9900 hits of 10000 accesses */
    assert_true(fabs(bench_num(r, BK_SERVER_STATS_CACHE_HIT_PCT) - 99) < 1e-9);
    assert_true(bench_num(r, BK_SERVER_STATS_CHECKPOINTS) == 2);
    assert_true(bench_num(r, BK_SERVER_STATS_IO_READS) == 100);
    assert_true(bench_num(r, BK_SERVER_STATS_IO_BACKEND_WRITES) == 40);
    assert_true(bench_num(r, BK_SERVER_STATS_WAL_BYTES_PER_TX) == 500);
    assert_true(bench_num(r, BK_SERVER_STATS_WAL_FPI) == 1000);
    assert_true(bench_num(r, BK_SERVER_STATS_WAL_FPI_PCT) == 25);
    /* 4000 ms of sync over 2000 commits */
    assert_true(bench_num(r, BK_SERVER_STATS_WAL_SYNC_MS_PER_COMMIT) == 2);
    assert_string_equal(bench_get(r, BK_SERVER_STATS_SERVER_CPU)->valuestring,
                        "unknown: no pg_stat_kcache");
    assert_true(isnan(bench_num(r, BK_SERVER_STATS_SERVER_CPU_SECONDS))); /* never guessed */
    cJSON_Delete(r);

    /* PostgreSQL 13 (no pg_stat_wal), no block accesses: nulls, not zeros */
    a = snap(0, 10, 0, 0, -1, -1);
    b = snap(1, 20, 0, 0, -1, -1);
    r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "serverStats", pg_stats_delta_json(&a, &b));
    assert_true(
        cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "serverStats"), "walBytes")));
    assert_true(isnan(bench_num(r, BK_SERVER_STATS_WAL_BYTES_PER_TX)));
    assert_true(isnan(bench_num(r, BK_SERVER_STATS_WAL_FPI_PCT)));
    assert_true(isnan(bench_num(r, BK_SERVER_STATS_CACHE_HIT_PCT)));
    assert_true(isnan(bench_num(r, BK_SERVER_STATS_WAL_SYNC_MS_PER_COMMIT)));
    assert_true(isnan(bench_num(r, BK_SERVER_STATS_IO_READS))); /* before 16 */
    cJSON_Delete(r);

    /* pg_stat_kcache: the CPU time the server spent */
    a = snap(0, 10, 0, 0, 0, -1);
    b = snap(1, 20, 0, 0, 0, -1);
    a.kcache_cpu_s = 1.5;
    b.kcache_cpu_s = 4;
    r = cJSON_CreateObject();
    cJSON_AddItemToObject(r, "serverStats", pg_stats_delta_json(&a, &b));
    assert_string_equal(bench_get(r, BK_SERVER_STATS_SERVER_CPU)->valuestring,
                        "2.500 s of CPU (pg_stat_kcache)");
    assert_true(bench_num(r, BK_SERVER_STATS_SERVER_CPU_SECONDS) == 2.5);
    cJSON_Delete(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_delta)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
