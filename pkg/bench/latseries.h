/* Latency over time from the -l log: one exact histogram per interval, bounded in size.
 *
 * Each interval keeps the non-empty buckets of the histogram of its successful transactions
 * (pkg/bench/histogram.h's buckets, by the time each one completed), so series of several workers
 * merge exactly by adding counts, as the whole-run histogram does; percentiles are never averaged.
 * Interval k covers completion times [start + k*w, start + (k+1)*w) and is reported at
 * t = (k+1)*w seconds, the convention of pgbench -P (its point at 1 s covers the first second).
 * The width w starts at 1 s and doubles (adjacent intervals merged, still exact) whenever the run
 * would need more than BENCH_LATSERIES_MAX_POINTS intervals, so a series never holds more. */
#ifndef PGBO_BENCH_LATSERIES_H
#define PGBO_BENCH_LATSERIES_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "pkg/bench/histogram.h"

#define BENCH_LATSERIES_MAX_POINTS 120

/* The non-empty buckets of one interval, sorted by index. */
struct bench_latseries_point {
    uint32_t *idx;
    uint64_t *cnt;
    size_t n, cap;
    uint64_t count;
};

struct bench_latseries {
    int64_t start_us; /* epoch of t = 0 (bench_txlog_start says which) */
    int width_s;      /* interval width, a power of two */
    size_t n;         /* intervals in use */
    struct bench_latseries_point pts[BENCH_LATSERIES_MAX_POINTS];
};

/* An empty series starting at start_us (epoch microseconds). Never NULL; free(NULL)-safe free. */
struct bench_latseries *bench_latseries_new(int64_t start_us);
void bench_latseries_free(struct bench_latseries *s);
/* Records a successful transaction that completed at epoch_us with latency_us; one before the
 * start counts in the first interval. */
void bench_latseries_add(struct bench_latseries *s, int64_t epoch_us, int64_t latency_us);
/* Adds the point's buckets to h (each value at its bucket's midpoint). */
void bench_latseries_point_hist(const struct bench_latseries_point *p, struct bench_hist *h);

/* {"startEpochUs":..,"intervalSeconds":w,"points":[{"t","count","p50Ms","p99Ms","buckets":
 * [[index,count],...]},...]} (keys from the result contract); NULL when empty. */
cJSON *bench_latseries_to_json(const struct bench_latseries *s);
/* The workers' series merged: points matched by t after bringing every series to the widest
 * interval (exact: counts added per bucket), p50/p99 from the merged buckets. with_buckets false
 * leaves the buckets out (the aggregate keeps the percentiles; the workers keep the buckets).
 * NULL when no input has a series; inputs without one (or with a malformed one) are skipped. */
cJSON *bench_latseries_merge(const cJSON *const *series, size_t n, bool with_buckets);
/* The same merge one series at a time, so no more than one worker's series need be held: *m
 * starts NULL and is made by the first valid series; a wider series widens what *m holds first
 * (adjacent intervals merged: exact, widths are powers of two); startEpochUs is the earliest.
 * Returns 0, or -EINVAL for a malformed series: without a start or a width that is a power of
 * two it is left out; with a bad point its points are (its start and width still count, as in
 * bench_latseries_merge). Free *m with bench_latseries_free. */
int bench_latseries_merge_add(struct bench_latseries **m, const cJSON *series);
/* The merge as JSON (NULL when m is NULL or has no point). */
cJSON *bench_latseries_merge_json(const struct bench_latseries *m, bool with_buckets);

#endif
