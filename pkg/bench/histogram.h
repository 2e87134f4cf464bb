/* HDR-style latency histogram: log-bucketed, fixed size, mergeable by adding counts.
 *
 * Values are non-negative integers in microseconds. Values below 2^BENCH_HIST_SUB_BITS (128) are
 * kept exactly; above that each power of two [2^e, 2^(e+1)) is split into 128 equal sub-buckets,
 * so a bucket's width is at most 1/128 of its lower bound (relative error < 0.8 %, and < 0.4 %
 * for the bucket midpoint that percentile queries return). Values above BENCH_HIST_MAX_VALUE
 * (2^40 - 1 us, ~12.7 days) are clamped to it and counted in `clamped`. Negative values are
 * clamped to 0.
 *
 * Bucket index of value v (v < 128: index = v; else e = floor(log2 v), shift = e - 7):
 *     index = 128 + (e - 7) * 128 + ((v >> shift) - 128)
 * and the bucket covers [((index % 128) + 128) << shift, that + (1 << shift) - 1] for index >= 128.
 * The JSON form (see docs/result-schema.md) lists the non-empty buckets as [index, count] pairs. */
#ifndef PGBO_BENCH_HISTOGRAM_H
#define PGBO_BENCH_HISTOGRAM_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#define BENCH_HIST_SUB_BITS 7
#define BENCH_HIST_SUB_COUNT (1 << BENCH_HIST_SUB_BITS) /* 128 */
#define BENCH_HIST_MAX_EXP 40
#define BENCH_HIST_MAX_VALUE ((INT64_C(1) << BENCH_HIST_MAX_EXP) - 1)
/* 128 exact buckets + 128 per power of two from 2^7 to 2^39 */
#define BENCH_HIST_BUCKETS                                                                         \
    (BENCH_HIST_SUB_COUNT + (BENCH_HIST_MAX_EXP - BENCH_HIST_SUB_BITS) * BENCH_HIST_SUB_COUNT)

/* Fixed-size (~34 KiB); may be embedded or allocated with bench_hist_new. */
struct bench_hist {
    uint64_t counts[BENCH_HIST_BUCKETS];
    uint64_t count;   /* number of recorded values */
    uint64_t clamped; /* values that were > BENCH_HIST_MAX_VALUE or < 0 */
    int64_t min;      /* exact smallest recorded value (after clamping); 0 when empty */
    int64_t max;      /* exact largest recorded value (after clamping); 0 when empty */
    double sum;       /* exact sum of recorded values (us), for the mean */
};

void bench_hist_init(struct bench_hist *h);
/* Allocates an empty histogram; never NULL (allocation failure aborts, pkg/util/mem.h).
 * bench_hist_free(NULL) is a no-op. */
struct bench_hist *bench_hist_new(void);
void bench_hist_free(struct bench_hist *h);

/* Records one value (n times for add_n). */
void bench_hist_add(struct bench_hist *h, int64_t value_us);
void bench_hist_add_n(struct bench_hist *h, int64_t value_us, uint64_t n);
/* dst += src. Exact: merging equals adding all of src's values to dst (up to bucket precision;
 * count, min, max and sum stay exact). */
void bench_hist_merge(struct bench_hist *dst, const struct bench_hist *src);

/* Value at percentile pct (0 < pct < 100) by the nearest-rank definition: the smallest recorded
 * value v such that at least rank = ceil(pct/100 * count) values are <= v, reported as the
 * midpoint of v's bucket clamped to [min, max]. The rank is computed exactly: pct is read as the
 * decimal it was written as (its 15-significant-digit form, so 99.9 is 999/1000 and the rank of
 * p99.9 of 3000 values is 2997, not the 2998 that ceil(99.9 / 100.0 * 3000) gives in floating
 * point), and ceil(num * count / den) is taken in integers. pct <= 0 (or NaN) gives min,
 * pct >= 100 gives max. Returns 0 for an empty histogram. */
int64_t bench_hist_percentile(const struct bench_hist *h, double pct);
/* The same for the quantile num/den (den > 0): rank = ceil(num * count / den) in exact integer
 * arithmetic; num = 0 gives min, num >= den gives max. */
int64_t bench_hist_quantile(const struct bench_hist *h, uint64_t num, uint64_t den);
/* The value of the rank-th smallest recorded value (1 <= rank <= count; clamped into that range),
 * as the midpoint of its bucket clamped to [min, max]. 0 for an empty histogram. */
int64_t bench_hist_value_at_rank(const struct bench_hist *h, uint64_t rank);
uint64_t bench_hist_count(const struct bench_hist *h);
int64_t bench_hist_min(const struct bench_hist *h);
int64_t bench_hist_max(const struct bench_hist *h);
/* Arithmetic mean in us; 0 when empty. */
double bench_hist_mean(const struct bench_hist *h);

/* Bucket arithmetic (exposed for tests and for readers of the JSON form). */
int bench_hist_index(int64_t value_us);
int64_t bench_hist_bucket_low(int index);
int64_t bench_hist_bucket_high(int index); /* inclusive */

/* The histogram in HdrHistogram's standard "V2 compressed" encoding, base64: what
 * HdrHistogram.decodeFromCompressedByteBuffer (Java), hdr_decode_compressed (C) and
 * decodeFromCompressedBase64 (hdr-histogram-js) read. The layouts are the same: this histogram's
 * bucket index is HdrHistogram's counts index for lowestDiscernibleValue 1 and 2 significant
 * digits (256 sub-buckets, unit 1 us), so the counts are written as they are; highestTrackableValue
 * is BENCH_HIST_MAX_VALUE. Caller frees; never NULL (allocation failure, zlib's too, aborts). */
char *bench_hist_to_hdr_base64(const struct bench_hist *h);

/* {"unit":"us","subBucketBits":7,"buckets":[[index,count],...],"count":N,"min":..,"max":..,
 *  "sum":..,"clamped":N}. Caller owns the result; never NULL. */
cJSON *bench_hist_to_json(const struct bench_hist *h);
/* Replaces h with the histogram in json (the form above). Validates unit, subBucketBits, index
 * ranges and that the bucket counts add up to "count". Returns 0 or -EINVAL (h is then empty). */
int bench_hist_from_json(struct bench_hist *h, const cJSON *json);

#endif
