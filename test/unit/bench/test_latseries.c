/* Latency series from the -l log: per-interval histograms, widening, exact merge, warm-up cut.
 * Oracles sort the raw values; never the module's own percentile code. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "pkg/bench/latseries.h"
#include "pkg/bench/pgbench.h"
#include "pkg/util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 INT64_C(1796283787000000)

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest rank of the sorted values v[0..n). */
static int64_t rank_of(int64_t *v, size_t n, double pct)
{
    qsort(v, n, sizeof(*v), cmp_i64);
    size_t r = (size_t)ceil(pct / 100.0 * (double)n);
    return v[r ? r - 1 : 0];
}

static void near(double got_ms, int64_t want_us)
{
    double tol = fmax(0.008 * (double)want_us, 1.0);
    if (fabs(got_ms * 1000 - (double)want_us) > tol)
        fail_msg("%.3f ms, the sorted values say %lld us", got_ms, (long long)want_us);
}

/* latency of transaction i: spread over three decades, deterministic */
static int64_t lat_of(int64_t i)
{
    return 50 + (i * 7919) % 20000 + ((i % 97) == 0 ? 90000 : 0);
}

static const cJSON *point_at(const cJSON *s, double t)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, util_jget(s, "points")) if (util_jnum(p, "t", -1) == t) return p;
    return NULL;
}

/* 300 s of transactions: the width doubles to 4 s (75 points); each point holds exactly its
 * transactions and its percentiles are those of their sorted latencies. */
static void test_widening(void **state)
{
    (void)state;
    struct bench_latseries *s = bench_latseries_new(T0);
    enum { SECS = 300, PER = 40 };
    for (int64_t i = 0; i < (int64_t)SECS * PER; i++)
        bench_latseries_add(s, T0 + (i / PER) * 1000000 + (i % PER) * 20000, lat_of(i));
    assert_int_equal(s->width_s, 4);
    assert_true(s->n <= BENCH_LATSERIES_MAX_POINTS);
    cJSON *j = bench_latseries_to_json(s);
    assert_int_equal((int)util_jnum(j, "intervalSeconds", 0), 4);
    assert_int_equal(cJSON_GetArraySize(util_jget(j, "points")), SECS / 4);
    int64_t v[4 * PER];
    for (int k = 0; k < SECS / 4; k++) {
        size_t n = 0;
        for (int64_t i = (int64_t)k * 4 * PER; i < (int64_t)(k + 1) * 4 * PER; i++)
            v[n++] = lat_of(i);
        const cJSON *p = point_at(j, (k + 1) * 4.0);
        assert_non_null(p);
        assert_int_equal((int)util_jnum(p, "count", 0), (int)n);
        near(util_jnum(p, "p99Ms", NAN), rank_of(v, n, 99));
        near(util_jnum(p, "p50Ms", NAN), rank_of(v, n, 50));
        assert_non_null(util_jget(p, "buckets"));
    }
    cJSON_Delete(j);
    bench_latseries_free(s);
}

/* Two workers, one fast and one slow, at different widths: the merge brings both to the wider
 * one and adds counts, so p99 is that of all their values together, not the mean of two p99s. */
static void test_merge_exact(void **state)
{
    (void)state;
    struct bench_latseries *a = bench_latseries_new(T0), *b = bench_latseries_new(T0 + 3000);
    for (int64_t i = 0; i < INT64_C(100) * 50; i++) /* 100 s: width 1 */
        bench_latseries_add(a, T0 + (i / 50) * 1000000 + 1000, 100 + i % 50);
    for (int64_t i = 0; i < INT64_C(200) * 10; i++) /* 200 s: width 2 */
        bench_latseries_add(b, T0 + 3000 + (i / 10) * 1000000 + 1000, 10000 + (i % 10) * 100);
    assert_int_equal(a->width_s, 1);
    assert_int_equal(b->width_s, 2);
    cJSON *ja = bench_latseries_to_json(a), *jb = bench_latseries_to_json(b);
    const cJSON *in[3] = {ja, NULL, jb};
    cJSON *m = bench_latseries_merge(in, 3, false);
    assert_non_null(m);
    assert_int_equal((int)util_jnum(m, "intervalSeconds", 0), 2);
    assert_int_equal((int64_t)util_jnum(m, "startEpochUs", 0), T0);
    const cJSON *p = point_at(m, 2);
    assert_non_null(p);
    assert_null(util_jget(p, "buckets"));
    int64_t v[200];
    size_t n = 0;
    for (int64_t i = 0; i < 100; i++) /* a's first two seconds */
        v[n++] = 100 + i % 50;
    for (int64_t i = 0; i < 20; i++) /* b's first two seconds */
        v[n++] = 10000 + (i % 10) * 100;
    assert_int_equal((int)util_jnum(p, "count", 0), (int)n);
    near(util_jnum(p, "p99Ms", NAN), rank_of(v, n, 99));
    near(util_jnum(p, "p50Ms", NAN), rank_of(v, n, 50));
    p = point_at(m, 200); /* only b */
    assert_int_equal((int)util_jnum(p, "count", 0), 20);
    cJSON_Delete(m);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    bench_latseries_free(a);
    bench_latseries_free(b);
}

/* The warm-up cut counts from the first transaction's start; what completes before it is out of
 * the histogram and the counts, and in the series. */
static void test_txlog_warmup(void **state)
{
    (void)state;
    struct bench_txlog *l = bench_txlog_new();
    bench_txlog_start(l, 2);
    char line[128];
    int64_t warm = 0, steady = 0;
    for (int64_t i = 0; i < 500; i++) {
        int64_t end = T0 + 1000 + i * 10000; /* 5 s of transactions */
        int64_t lat = 1000;
        (void)snprintf(line, sizeof(line), "%d %lld %lld 0 %lld %lld\n", (int)(i % 4), (long long)i,
                       (long long)lat, (long long)(end / 1000000), (long long)(end % 1000000));
        bench_txlog_feed(l, line, strlen(line));
        if (end < T0 + 2000000) /* t0 = the first transaction's start, T0 */
            warm++;
        else
            steady++;
    }
    bench_txlog_finish(l);
    assert_int_equal(l->series->start_us, T0);
    assert_int_equal(l->cut_epoch_us, T0 + 2000000);
    assert_int_equal((int64_t)l->warm_ok, warm);
    assert_int_equal((int64_t)l->ok, steady);
    assert_int_equal((int64_t)bench_hist_count(l->hist), steady);
    uint64_t in_series = 0;
    for (size_t k = 0; k < l->series->n; k++)
        in_series += l->series->pts[k].count;
    assert_int_equal((int64_t)in_series, warm + steady);
    bench_txlog_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widening),
        cmocka_unit_test(test_merge_exact),
        cmocka_unit_test(test_txlog_warmup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
