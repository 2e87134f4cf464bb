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
#include <zlib.h>

/* The percentiles under test, each also as an exact fraction: ppm = parts per million of the
 * count. The oracle never goes through floating point: ceil(99.9 / 100.0 * 3000) is 2998 in
 * doubles, the nearest rank is 2997. */
static const struct {
    double pct;
    uint64_t ppm;
} qs[] = {{1, 10000},   {10, 100000}, {25, 250000},   {50, 500000},    {75, 750000},  {90, 900000},
          {95, 950000}, {99, 990000}, {99.9, 999000}, {99.99, 999900}, {100, 1000000}};
#define NQS (sizeof(qs) / sizeof(qs[0]))

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* nearest rank in integers: the smallest r with r / n >= ppm / 10^6, i.e. ceil(ppm * n / 10^6) */
static size_t exact_rank(uint64_t ppm, size_t n)
{
    uint64_t r = (ppm * (uint64_t)n + 999999) / 1000000;
    return r < 1 ? 1 : r > n ? n : (size_t)r;
}

/* The histogram's percentile must lie in the bucket of the exact nearest-rank element of the
 * sorted raw values (so within the documented < 0.8 % of it). */
static void check_exact_bucket(const struct bench_hist *h, const int64_t *sorted, size_t n,
                               double pct, uint64_t ppm)
{
    size_t rank = exact_rank(ppm, n);
    int64_t e = sorted[rank - 1];
    int64_t got = bench_hist_percentile(h, pct);
    int bi = bench_hist_index(e);
    if (got < bench_hist_bucket_low(bi) || got > bench_hist_bucket_high(bi))
        fail_msg("n=%zu p%g: histogram %lld is not in the bucket [%lld, %lld] of the exact value "
                 "%lld (rank %zu)",
                 n, pct, (long long)got, (long long)bench_hist_bucket_low(bi),
                 (long long)bench_hist_bucket_high(bi), (long long)e, rank);
    double err = e ? fabs((double)(got - e)) / (double)e : (double)llabs(got);
    if (err > 1.0 / 128)
        fail_msg("n=%zu p%g: histogram %lld exact %lld (error %.4f)", n, pct, (long long)got,
                 (long long)e, err);
    if (ppm < 1000000) /* the same quantile as an exact fraction */
        assert_int_equal(bench_hist_quantile(h, ppm, 1000000), got);
}

static void check_within_1pct(const struct bench_hist *h, int64_t *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_i64);
    assert_int_equal(bench_hist_count(h), n);
    assert_int_equal(bench_hist_min(h), v[0]);
    assert_int_equal(bench_hist_max(h), v[n - 1]);
    for (size_t i = 0; i < NQS; i++)
        check_exact_bucket(h, v, n, qs[i].pct, qs[i].ppm);
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

/* The sizes and quantiles: n a multiple of 1,000, where the floating-point rank of p99.9
 * used to be one too high. Raw latencies from three shapes (the tail is sparse, so neighbouring
 * ranks fall into different buckets), sorted, compared at the integer nearest rank. */
static void test_exact_rank_sizes(void **state)
{
    (void)state;
    static const size_t sizes[] = {1000, 2000, 3000, 100000};
    static const size_t wanted[] = {4, 5, 6, 7, 8, 9}; /* p50 .. p99.99 in qs[] */
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        for (int kind = 0; kind < 3; kind++) {
            size_t n = sizes[si];
            int64_t *v = malloc(n * sizeof(*v));
            struct bench_hist *h = bench_hist_new();
            for (size_t i = 0; i < n; i++) {
                double x;
                if (kind == 0) /* lognormal around 1 ms, heavy tail */
                    x = exp(log(1000) +
                            1.5 * sqrt(-2 * log(1 - urand())) * cos(2 * M_PI * urand()));
                else if (kind == 1) /* pareto, alpha 1.2, from 200 us */
                    x = 200 / pow(1 - urand(), 1 / 1.2);
                else /* exponential, mean 3 ms */
                    x = -log(1 - urand()) * 3000;
                v[i] = (int64_t)x;
                bench_hist_add(h, v[i]);
            }
            qsort(v, n, sizeof(*v), cmp_i64);
            for (size_t k = 0; k < sizeof(wanted) / sizeof(wanted[0]); k++)
                check_exact_bucket(h, v, n, qs[wanted[k] - 1].pct, qs[wanted[k] - 1].ppm);
            free(v);
            bench_hist_free(h);
        }
    }
}

/* Regression (issue "One result contract"): p99.9 of 3,000 values is the 2,997th, not the 2,998th
 * (+20.8 % on a -c 4 -t 500 run). Here every value of the top 0.2 % has a bucket of its own, so
 * any rank off by one shows, at every size that is a multiple of 1,000. */
static void test_p999_rank_multiple_of_1000(void **state)
{
    (void)state;
    static const size_t sizes[] = {1000, 2000, 3000, 100000};
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si], top = n / 500;
        int64_t *v = malloc(n * sizeof(*v));
        struct bench_hist *h = bench_hist_new();
        for (size_t i = 0; i < n; i++) {
            /* ascending: n - top values of 100 us, then 1 ms growing by 5 % per value */
            v[i] = i < n - top ? 100 : (int64_t)(1000 * pow(1.05, (double)(i - (n - top))));
            bench_hist_add(h, v[i]);
        }
        for (size_t k = 0; k < NQS; k++)
            check_exact_bucket(h, v, n, qs[k].pct, qs[k].ppm);
        /* the rank itself, written out: 999, 1998, 2997, 99900 */
        int64_t expect = v[n - n / 1000 - 1];
        assert_true(bench_hist_index(bench_hist_percentile(h, 99.9)) == bench_hist_index(expect));
        assert_true(bench_hist_index(bench_hist_value_at_rank(h, n - n / 1000 + 1)) !=
                    bench_hist_index(expect));
        free(v);
        bench_hist_free(h);
    }
}

/* pct is read as the decimal it is written as, also for tiny, long and huge-count cases */
static void test_percentile_decimal(void **state)
{
    (void)state;
    struct bench_hist h;
    bench_hist_init(&h);
    bench_hist_add_n(&h, 10, 999999);                            /* ranks 1 .. 999999 */
    bench_hist_add(&h, 5000);                                    /* rank 1000000 */
    assert_int_equal(bench_hist_percentile(&h, 99.9999), 10);    /* rank 999999 */
    assert_int_equal(bench_hist_percentile(&h, 99.99991), 5000); /* rank 1000000 */
    assert_int_equal(bench_hist_percentile(&h, 1e-300), 10);
    assert_int_equal(bench_hist_percentile(&h, NAN), 10);
    assert_int_equal(bench_hist_quantile(&h, 999999, 1000000), 10);
    assert_int_equal(bench_hist_quantile(&h, 9999991, 10000000), 5000);
    assert_int_equal(bench_hist_quantile(&h, 1, 0), 0);
    assert_int_equal(bench_hist_value_at_rank(&h, 0), 10);
    assert_int_equal(bench_hist_value_at_rank(&h, 999999), 10);
    assert_int_equal(bench_hist_value_at_rank(&h, 1000000), 5000);
    assert_int_equal(bench_hist_value_at_rank(&h, UINT64_MAX), 5000);
    /* counts near 2^64: ceil(num * count / den) must not overflow */
    bench_hist_init(&h);
    bench_hist_add_n(&h, 10, UINT64_C(1) << 62);
    bench_hist_add_n(&h, 2000, UINT64_C(1) << 62);
    assert_int_equal(bench_hist_percentile(&h, 50), 10);
    assert_int_equal(bench_hist_percentile(&h, 50.0000000001), bench_hist_quantile(&h, 3, 4));
    assert_int_equal(bench_hist_quantile(&h, UINT64_MAX / 2, UINT64_MAX - 1), 10);
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
    for (size_t i = 0; i < NQS; i++)
        assert_int_equal(bench_hist_percentile(a, qs[i].pct),
                         bench_hist_percentile(all, qs[i].pct));
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

/* ---- the HdrHistogram V2 encoding, read back by the format's definition ---- */

static size_t unbase64(const char *in, uint8_t *out)
{
    static const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (; *in && *in != '='; in++) {
        acc = acc << 6 | (uint32_t)(strchr(a, *in) - a);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    return n;
}

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static void test_hdr_encoding(void **state)
{
    (void)state;
    struct bench_hist *h = bench_hist_new();
    uint64_t want[BENCH_HIST_BUCKETS] = {0};
    static const int64_t values[] = {0, 3, 127, 128, 255, 256, 1000, 1001, 50000, 12345678};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        bench_hist_add_n(h, values[i], i + 1);
        want[bench_hist_index(values[i])] += i + 1;
    }
    char *enc = bench_hist_to_hdr_base64(h);
    assert_non_null(enc);
    uint8_t *z = malloc(strlen(enc));
    size_t zn = unbase64(enc, z);
    assert_int_equal(be(z, 4), 0x1c849314); /* V2 compressed cookie */
    assert_int_equal(be(z + 4, 4), zn - 8);
    uLongf rn = 1 << 20;
    uint8_t *raw = malloc(rn);
    assert_int_equal(uncompress(raw, &rn, z + 8, (uLong)(zn - 8)), Z_OK);
    assert_int_equal(be(raw, 4), 0x1c849313);  /* V2 cookie */
    assert_int_equal(be(raw + 4, 4), rn - 40); /* payload length */
    assert_int_equal(be(raw + 8, 4), 0);       /* normalizing index offset */
    assert_int_equal(be(raw + 12, 4), 2);      /* significant digits */
    assert_int_equal(be(raw + 16, 8), 1);      /* lowest discernible value */
    assert_int_equal(be(raw + 24, 8), BENCH_HIST_MAX_VALUE);
    /* counts: ZigZag LEB128, a run of zeros as its negated length */
    uint64_t got[BENCH_HIST_BUCKETS] = {0};
    size_t idx = 0;
    for (const uint8_t *p = raw + 40; p < raw + rn;) {
        uint64_t u = 0;
        for (int shift = 0;; shift += 7) {
            uint8_t b = *p++;
            u |= (uint64_t)(b & 0x7f) << shift;
            if (!(b & 0x80))
                break;
        }
        int64_t v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
        if (v < 0)
            idx += (size_t)-v;
        else
            got[idx++] = (uint64_t)v;
    }
    assert_int_equal(idx, bench_hist_index(12345678) + 1); /* up to the max's bucket */
    assert_memory_equal(got, want, sizeof(got));
    free(raw);
    free(z);
    free(enc);
    bench_hist_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_layout),
        cmocka_unit_test(test_synthetic),
        cmocka_unit_test(test_exact_rank_sizes),
        cmocka_unit_test(test_p999_rank_multiple_of_1000),
        cmocka_unit_test(test_percentile_decimal),
        cmocka_unit_test(test_real_logs),
        cmocka_unit_test(test_merge_equals_adding),
        cmocka_unit_test(test_hdr_encoding),
        cmocka_unit_test(test_json_roundtrip),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
