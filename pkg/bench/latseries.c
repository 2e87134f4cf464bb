/* Latency over time from the -l log, one exact histogram per interval (see latseries.h). */
#include "pkg/bench/latseries.h"
#include "pkg/bench/fields.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KEY(id) bench_key(BK_##id)

struct bench_latseries *bench_latseries_new(int64_t start_us)
{
    struct bench_latseries *s = util_xcalloc(1, sizeof(*s));
    s->start_us = start_us;
    s->width_s = 1;
    return s;
}

static void point_clear(struct bench_latseries_point *p)
{
    free(p->idx);
    free(p->cnt);
    memset(p, 0, sizeof(*p));
}

void bench_latseries_free(struct bench_latseries *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < BENCH_LATSERIES_MAX_POINTS; i++)
        point_clear(&s->pts[i]);
    free(s);
}

/* Adds n to bucket index in p, keeping the buckets sorted. */
static void point_add(struct bench_latseries_point *p, uint32_t index, uint64_t n)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->idx[mid] < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == p->n || p->idx[lo] != index) {
        if (p->n == p->cap) {
            p->cap = p->cap ? p->cap * 2 : 32;
            p->idx = util_xrealloc(p->idx, p->cap * sizeof(*p->idx));
            p->cnt = util_xrealloc(p->cnt, p->cap * sizeof(*p->cnt));
        }
        memmove(p->idx + lo + 1, p->idx + lo, (p->n - lo) * sizeof(*p->idx));
        memmove(p->cnt + lo + 1, p->cnt + lo, (p->n - lo) * sizeof(*p->cnt));
        p->idx[lo] = index;
        p->cnt[lo] = 0;
        p->n++;
    }
    p->cnt[lo] += n;
    p->count += n;
}

/* dst += src; src emptied. */
static void point_merge(struct bench_latseries_point *dst, struct bench_latseries_point *src)
{
    for (size_t i = 0; i < src->n; i++)
        point_add(dst, src->idx[i], src->cnt[i]);
    point_clear(src);
}

/* Doubles the width: intervals 2i and 2i+1 become interval i. */
static void widen(struct bench_latseries *s)
{
    for (size_t i = 0; i < s->n; i++) {
        struct bench_latseries_point *to = &s->pts[i / 2];
        if (to != &s->pts[i])
            point_merge(to, &s->pts[i]);
    }
    s->n = (s->n + 1) / 2;
    s->width_s *= 2;
}

void bench_latseries_add(struct bench_latseries *s, int64_t epoch_us, int64_t latency_us)
{
    int64_t off = epoch_us > s->start_us ? epoch_us - s->start_us : 0;
    int64_t k = off / ((int64_t)s->width_s * 1000000);
    while (k >= BENCH_LATSERIES_MAX_POINTS) {
        widen(s);
        k = off / ((int64_t)s->width_s * 1000000);
    }
    point_add(&s->pts[k], (uint32_t)bench_hist_index(latency_us), 1);
    if ((size_t)k >= s->n)
        s->n = (size_t)k + 1;
}

void bench_latseries_point_hist(const struct bench_latseries_point *p, struct bench_hist *h)
{
    for (size_t i = 0; i < p->n; i++) {
        int ix = (int)p->idx[i];
        int64_t mid = bench_hist_bucket_low(ix) +
                      (bench_hist_bucket_high(ix) - bench_hist_bucket_low(ix)) / 2;
        bench_hist_add_n(h, mid, p->cnt[i]);
    }
}

static cJSON *point_json(const struct bench_latseries_point *p, double t, bool with_buckets,
                         struct bench_hist *h)
{
    cJSON *o = cJSON_CreateObject();
    bench_hist_init(h);
    bench_latseries_point_hist(p, h);
    util_jset_num(o, KEY(LATENCY_SERIES_POINTS_T), t);
    util_jset_num(o, KEY(LATENCY_SERIES_POINTS_COUNT), (double)p->count);
    util_jset_num(o, KEY(LATENCY_SERIES_POINTS_P50_MS), (double)bench_hist_percentile(h, 50) / 1e3);
    util_jset_num(o, KEY(LATENCY_SERIES_POINTS_P99_MS), (double)bench_hist_percentile(h, 99) / 1e3);
    if (with_buckets) {
        cJSON *b = cJSON_CreateArray();
        for (size_t i = 0; i < p->n; i++) {
            cJSON *pair = cJSON_CreateArray();
            cJSON_AddItemToArray(pair, cJSON_CreateNumber(p->idx[i]));
            cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)p->cnt[i]));
            cJSON_AddItemToArray(b, pair);
        }
        util_jset(o, KEY(LATENCY_SERIES_POINTS_BUCKETS), b);
    }
    return o;
}

static cJSON *series_json(const struct bench_latseries *s, bool with_buckets)
{
    if (s->n == 0)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    util_jset_num(o, KEY(LATENCY_SERIES_START_EPOCH_US), (double)s->start_us);
    util_jset_num(o, KEY(LATENCY_SERIES_INTERVAL_SECONDS), s->width_s);
    cJSON *arr = cJSON_CreateArray();
    struct bench_hist *h = bench_hist_new();
    for (size_t i = 0; i < s->n; i++)
        if (s->pts[i].count)
            cJSON_AddItemToArray(arr, point_json(&s->pts[i], (double)((i + 1) * (size_t)s->width_s),
                                                 with_buckets, h));
    bench_hist_free(h);
    util_jset(o, KEY(LATENCY_SERIES_POINTS), arr);
    return o;
}

cJSON *bench_latseries_to_json(const struct bench_latseries *s)
{
    return series_json(s, true);
}

/* Adds one worker's series to s (already at least as wide); -EINVAL when malformed. */
static int add_json(struct bench_latseries *s, const cJSON *j)
{
    double w = util_jnum(j, KEY(LATENCY_SERIES_INTERVAL_SECONDS), NAN);
    const cJSON *pts = util_jget(j, KEY(LATENCY_SERIES_POINTS)), *p;
    if (!(w >= 1 && w <= s->width_s) || !cJSON_IsArray(pts))
        return -EINVAL;
    cJSON_ArrayForEach(p, pts)
    {
        double t = util_jnum(p, KEY(LATENCY_SERIES_POINTS_T), NAN);
        const cJSON *b = util_jget(p, KEY(LATENCY_SERIES_POINTS_BUCKETS)), *pair;
        if (!(t > 0 && t < 1e9) || !cJSON_IsArray(b))
            return -EINVAL;
        /* the interval ending at t starts at t - w: it lies within the wider interval k */
        size_t k = (size_t)((t - w) / s->width_s);
        if (k >= BENCH_LATSERIES_MAX_POINTS)
            return -EINVAL;
        cJSON_ArrayForEach(pair, b)
        {
            double ix =
                cJSON_GetArraySize(pair) == 2 ? cJSON_GetArrayItem(pair, 0)->valuedouble : -1;
            double c =
                cJSON_GetArraySize(pair) == 2 ? cJSON_GetArrayItem(pair, 1)->valuedouble : -1;
            if (!(ix >= 0 && ix < BENCH_HIST_BUCKETS && c >= 0 && c < 1e18))
                return -EINVAL;
            point_add(&s->pts[k], (uint32_t)ix, (uint64_t)c);
        }
        if (k >= s->n)
            s->n = k + 1;
    }
    return 0;
}

int bench_latseries_merge_add(struct bench_latseries **m, const cJSON *series)
{
    double st = util_jnum(series, KEY(LATENCY_SERIES_START_EPOCH_US), NAN);
    double w = util_jnum(series, KEY(LATENCY_SERIES_INTERVAL_SECONDS), NAN);
    if (!isfinite(st) || !(w >= 1 && w <= 1 << 30) || ((int)w & ((int)w - 1)) != 0)
        return -EINVAL;
    if (!*m)
        *m = bench_latseries_new((int64_t)st);
    struct bench_latseries *s = *m;
    if (st < (double)s->start_us)
        s->start_us = (int64_t)st;
    while (s->width_s < (int)w)
        widen(s);
    struct bench_latseries *one = bench_latseries_new(s->start_us);
    one->width_s = s->width_s;
    int rc = add_json(one, series);
    if (rc == 0)
        for (size_t k = 0; k < one->n; k++) {
            point_merge(&s->pts[k], &one->pts[k]);
            if (k >= s->n)
                s->n = k + 1;
        }
    bench_latseries_free(one);
    return rc;
}

cJSON *bench_latseries_merge_json(const struct bench_latseries *m, bool with_buckets)
{
    return m ? series_json(m, with_buckets) : NULL;
}

cJSON *bench_latseries_merge(const cJSON *const *series, size_t n, bool with_buckets)
{
    struct bench_latseries *m = NULL;
    for (size_t i = 0; i < n; i++)
        (void)bench_latseries_merge_add(&m, series[i]);
    cJSON *out = bench_latseries_merge_json(m, with_buckets);
    bench_latseries_free(m);
    return out;
}
