/* Histogram tests: bucket layout, percentiles within 1 % of exact ones, merge, JSON round trip. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "pkg/bench/histogram.h"
#include "pkg/bench/pgbench.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pcts[] = {1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100};

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* exact nearest-rank percentile on a sorted array */
static int64_t exact(const int64_t *v, size_t n, double pct)
{
    double r = ceil(pct / 100.0 * (double)n);
    size_t rank = r < 1 ? 1 : (size_t)r;
    if (rank > n)
        rank = n;
    return v[rank - 1];
}

static void check_within_1pct(const struct bench_hist *h, int64_t *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_i64);
    assert_int_equal(bench_hist_count(h), n);
    assert_int_equal(bench_hist_min(h), v[0]);
    assert_int_equal(bench_hist_max(h), v[n - 1]);
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
        int64_t e = exact(v, n, pcts[i]);
        int64_t got = bench_hist_percentile(h, pcts[i]);
        double err = e ? fabs((double)(got - e)) / (double)e : (double)llabs(got);
        if (err > 0.01)
            fail_msg("p%g: histogram %lld exact %lld (error %.4f)", pcts[i], (long long)got,
                     (long long)e, err);
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i];
    assert_true(fabs(bench_hist_mean(h) - sum / (double)n) < 1e-6 * (sum / (double)n + 1));
}

static void test_bucket_layout(void **state)
{
    (void)state;
    for (int64_t v = 0; v < 128; v++)
        assert_int_equal(bench_hist_index(v), v);
    assert_int_equal(bench_hist_index(128), 128);
    assert_int_equal(bench_hist_index(255), 255);
    assert_int_equal(bench_hist_index(256), 256);
    assert_int_equal(bench_hist_index(257), 256);
    assert_int_equal(bench_hist_index(BENCH_HIST_MAX_VALUE), BENCH_HIST_BUCKETS - 1);
    /* every value lies inside its bucket, buckets are contiguous and at most 1/128 wide */
    int prev = -1;
    for (int64_t v = 0; v < (INT64_C(1) << 22); v += 1 + v / 300) {
        int i = bench_hist_index(v);
        assert_true(i >= prev);
        prev = i;
        assert_true(bench_hist_bucket_low(i) <= v && v <= bench_hist_bucket_high(i));
        if (v >= 128)
            assert_true((double)(bench_hist_bucket_high(i) - bench_hist_bucket_low(i) + 1) /
                            (double)bench_hist_bucket_low(i) <=
                        1.0 / 128 + 1e-12);
    }
    for (int i = 1; i < BENCH_HIST_BUCKETS; i++)
        assert_int_equal(bench_hist_bucket_low(i), bench_hist_bucket_high(i - 1) + 1);
}

static uint64_t rng_state = 88172645463325252ull;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static void synthetic(int kind)
{
    size_t n = 200000;
    int64_t *v = malloc(n * sizeof(*v));
    struct bench_hist *h = bench_hist_new();
    for (size_t i = 0; i < n; i++) {
        double x;
        switch (kind) {
        case 0: /* uniform 0..10 s */
            x = urand() * 1e7;
            break;
        case 1: /* exponential, mean 2 ms */
            x = -log(1 - urand()) * 2000;
            break;
        case 2: /* lognormal around 1 ms with a heavy tail */
            x = exp(log(1000) + 1.5 * sqrt(-2 * log(1 - urand())) * cos(2 * M_PI * urand()));
            break;
        default: /* bimodal: 0.3 ms and 40 ms plus rare 5 s stalls */
            x = urand() < 0.7 ? 300 + urand() * 50 : 40000 + urand() * 8000;
            if (urand() < 0.001)
                x = 5e6;
            break;
        }
        v[i] = (int64_t)x;
        bench_hist_add(h, v[i]);
    }
    check_within_1pct(h, v, n);
    free(v);
    bench_hist_free(h);
}

static void test_synthetic(void **state)
{
    (void)state;
    for (int k = 0; k < 4; k++)
        synthetic(k);
}

/* Real pgbench -l logs recorded with pgbench 15.18; latencies read independently with sscanf. */
static void real_log_dir(const char *dir, bool rate_limited)
{
    struct bench_txlog *l = bench_txlog_new();
    l->rate_limited = rate_limited;
    size_t nfiles = 0;
    assert_int_equal(bench_txlog_read_dir(l, dir, NULL, &nfiles), 0);
    assert_true(nfiles >= 1);
    size_t cap = 1 << 16, n = 0;
    int64_t *v = malloc(cap * sizeof(*v));
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, "pgbench_log.", 12) != 0)
            continue;
        char path[512], line[256];
        (void)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        while (fgets(line, sizeof(line), f)) {
            long long c, t, lat;
            if (sscanf(line, "%lld %lld %lld", &c, &t, &lat) == 3) {
                if (n == cap)
                    v = realloc(v, (cap *= 2) * sizeof(*v));
                v[n++] = lat;
            }
        }
        (void)fclose(f);
    }
    closedir(d);
    assert_true(n > 100);
    assert_int_equal(l->ok, n);
    assert_int_equal(l->malformed, 0);
    check_within_1pct(l->hist, v, n);
    free(v);
    bench_txlog_free(l);
}

static void test_real_logs(void **state)
{
    (void)state;
    real_log_dir("test/fixtures/pgbench/log-tpcb", false);
    real_log_dir("test/fixtures/pgbench/log-retries", false);
    real_log_dir("test/fixtures/pgbench/log-rate", true);
    real_log_dir("test/fixtures/pgbench/log-failed", false);
}

static void test_merge_equals_adding(void **state)
{
    (void)state;
    struct bench_hist *a = bench_hist_new(), *b = bench_hist_new(), *all = bench_hist_new();
    for (int i = 0; i < 50000; i++) {
        int64_t x = (int64_t)(-log(1 - urand()) * 5000), y = (int64_t)(urand() * 3e6);
        bench_hist_add(a, x);
        bench_hist_add(b, y);
        bench_hist_add(all, x);
        bench_hist_add(all, y);
    }
    bench_hist_add(b, -5); /* clamped to 0 */
    bench_hist_add(all, -5);
    bench_hist_add(a, BENCH_HIST_MAX_VALUE + 10); /* clamped to max */
    bench_hist_add(all, BENCH_HIST_MAX_VALUE + 10);
    bench_hist_merge(a, b);
    assert_memory_equal(a->counts, all->counts, sizeof(a->counts));
    assert_int_equal(a->count, all->count);
    assert_int_equal(a->min, all->min);
    assert_int_equal(a->max, all->max);
    assert_int_equal(a->clamped, 2);
    assert_true(fabs(a->sum - all->sum) < 1e-3);
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
        assert_int_equal(bench_hist_percentile(a, pcts[i]), bench_hist_percentile(all, pcts[i]));
    /* merging an empty histogram changes nothing; merging into an empty one copies */
    struct bench_hist *empty = bench_hist_new();
    bench_hist_merge(a, empty);
    assert_int_equal(a->count, all->count);
    bench_hist_merge(empty, a);
    assert_memory_equal(empty->counts, all->counts, sizeof(a->counts));
    assert_int_equal(empty->min, all->min);
    bench_hist_free(empty);
    bench_hist_free(a);
    bench_hist_free(b);
    bench_hist_free(all);
}

static void test_json_roundtrip(void **state)
{
    (void)state;
    struct bench_hist *h = bench_hist_new(), *back = bench_hist_new();
    for (int i = 0; i < 10000; i++)
        bench_hist_add(h, (int64_t)(urand() * urand() * 1e6));
    cJSON *j = bench_hist_to_json(h);
    assert_non_null(j);
    char *s = cJSON_PrintUnformatted(j);
    cJSON *parsed = cJSON_Parse(s);
    assert_int_equal(bench_hist_from_json(back, parsed), 0);
    assert_memory_equal(h->counts, back->counts, sizeof(h->counts));
    assert_int_equal(h->count, back->count);
    assert_int_equal(h->min, back->min);
    assert_int_equal(h->max, back->max);
    assert_true(fabs(h->sum - back->sum) < 1);
    assert_string_equal(cJSON_GetObjectItem(j, "unit")->valuestring, "us");
    assert_int_equal(cJSON_GetObjectItem(j, "subBucketBits")->valueint, 7);
    /* corruptions are rejected */
    cJSON_ReplaceItemInObject(parsed, "count", cJSON_CreateNumber(1));
    assert_int_equal(bench_hist_from_json(back, parsed), -EINVAL);
    assert_int_equal(back->count, 0);
    cJSON *bad = cJSON_Parse("{\"unit\":\"us\",\"subBucketBits\":7,\"buckets\":[[999999,1]],"
                             "\"count\":1}");
    assert_int_equal(bench_hist_from_json(back, bad), -EINVAL);
    cJSON_Delete(bad);
    bad = cJSON_Parse("{\"unit\":\"ms\",\"subBucketBits\":7,\"buckets\":[],\"count\":0}");
    assert_int_equal(bench_hist_from_json(back, bad), -EINVAL);
    cJSON_Delete(bad);
    bad = cJSON_Parse("{\"unit\":\"us\",\"subBucketBits\":6,\"buckets\":[],\"count\":0}");
    assert_int_equal(bench_hist_from_json(back, bad), -EINVAL);
    cJSON_Delete(bad);
    free(s);
    cJSON_Delete(j);
    cJSON_Delete(parsed);
    bench_hist_free(h);
    bench_hist_free(back);
}

static void test_empty(void **state)
{
    (void)state;
    struct bench_hist h;
    bench_hist_init(&h);
    assert_int_equal(bench_hist_percentile(&h, 50), 0);
    assert_int_equal(bench_hist_max(&h), 0);
    assert_true(bench_hist_mean(&h) == 0);
    bench_hist_add(&h, 42);
    assert_int_equal(bench_hist_percentile(&h, 0.0001), 42);
    assert_int_equal(bench_hist_percentile(&h, 100), 42);
    bench_hist_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_layout),  cmocka_unit_test(test_synthetic),
        cmocka_unit_test(test_real_logs),      cmocka_unit_test(test_merge_equals_adding),
        cmocka_unit_test(test_json_roundtrip), cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
