/* Aggregation of worker results into one result (definitions in aggregate.h). */
#include "pkg/bench/aggregate.h"
#include "pkg/util/json.h"
#include "pkg/util/err.h"
#include "pkg/util/mem.h"
#include "pkg/bench/fields.h"
#include "pkg/bench/verdict.h"
#include "pkg/bench/histogram.h"
#include "pkg/bench/latseries.h"
#include "pkg/bench/result.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AGG_MAX_ERRORS 200
#define AGG_MAX_TIMELINE 86400

/* A result key, named by its row in the contract table (fields.def). */
#define KEY(id) bench_key(BK_##id)

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = get(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A non-finite number is written as null. */
static void set_num(cJSON *o, const char *k, double v)
{
    util_jset(o, k, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

/* Adds from's number at key id to o's, either absent counting as nothing (both: null). */
static void add_key(cJSON *o, const cJSON *from, enum bench_field_id id)
{
    double a = num(o, bench_key(id)), b = num(from, bench_key(id));
    set_num(o, bench_key(id), isfinite(a) && isfinite(b) ? a + b : isfinite(a) ? a : b);
}

/* Accumulators where "all absent" stays null. */
struct acc {
    double sum, wsum, max, wsq;
    int n;
};

static void acc_add(struct acc *a, double v)
{
    if (!isfinite(v))
        return;
    if (a->n == 0 || v > a->max)
        a->max = v;
    a->sum += v;
    a->n++;
}
static double acc_sum(const struct acc *a)
{
    return a->n ? a->sum : NAN;
}
static double acc_max(const struct acc *a)
{
    return a->n ? a->max : NAN;
}

/* Weighted mean and pooled stddev from (mean, sd, weight) triples. */
struct pool {
    double w, wm, wm2; /* sum w, sum w*m, sum w*(sd^2 + m^2) */
    int n, sd_missing;
};
static void pool_add(struct pool *p, double mean, double sd, double w)
{
    if (!isfinite(mean) || !(w > 0))
        return;
    if (!isfinite(sd))
        p->sd_missing = 1;
    p->w += w;
    p->wm += w * mean;
    p->wm2 += w * ((isfinite(sd) ? sd * sd : 0) + mean * mean);
    p->n++;
}
static double pool_mean(const struct pool *p)
{
    return p->n ? p->wm / p->w : NAN;
}
static double pool_sd(const struct pool *p)
{
    if (!p->n || p->sd_missing)
        return NAN;
    double m = p->wm / p->w;
    double v = p->wm2 / p->w - m * m;
    return sqrt(v > 0 ? v : 0);
}

/* Merges src into dst by key, objects recursed: a member dst lacks is copied; numbers are summed,
 * or (worst) the max. worst also replaces a null in dst, ANDs booleans and concatenates arrays
 * (capped). */
static void merge_tree(cJSON *dst, const cJSON *src, bool worst)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, src)
    {
        if (!s->string)
            continue;
        cJSON *d = cJSON_GetObjectItemCaseSensitive(dst, s->string);
        if (!d || (worst && cJSON_IsNull(d))) {
            util_jset(dst, s->string, cJSON_Duplicate(s, 1));
        } else if (cJSON_IsNumber(d) && cJSON_IsNumber(s)) {
            if (!worst)
                cJSON_SetNumberValue(d, d->valuedouble + s->valuedouble);
            else if (s->valuedouble > d->valuedouble)
                cJSON_SetNumberValue(d, s->valuedouble);
        } else if (cJSON_IsObject(d) && cJSON_IsObject(s)) {
            merge_tree(d, s, worst);
        } else if (worst && cJSON_IsBool(d) && cJSON_IsBool(s)) {
            if (cJSON_IsTrue(d) && cJSON_IsFalse(s))
                util_jset(dst, s->string, cJSON_CreateFalse());
        } else if (worst && cJSON_IsArray(d) && cJSON_IsArray(s)) {
            const cJSON *x;
            cJSON_ArrayForEach(x, s)
            {
                if (cJSON_GetArraySize(d) >= 100000)
                    break;
                cJSON_AddItemToArray(d, cJSON_Duplicate(x, 1));
            }
        }
    }
}

static void merge_sum(cJSON *dst, const cJSON *src)
{
    merge_tree(dst, src, false);
}

/* Worst-case merge: numbers max, booleans AND, arrays concatenated (capped), objects recursed. */
static void merge_worst(cJSON *dst, const cJSON *src)
{
    merge_tree(dst, src, true);
}

/* A summary row merged by rule m ("summary.x" with that merge rule in the contract table). */
static bool summary_row(size_t id, enum bench_merge m)
{
    const char *sec = bench_fields[BK_SUMMARY].path, *p = bench_fields[id].path;
    size_t n = strlen(sec);
    return bench_fields[id].merge == m && p && strncmp(p, sec, n) == 0 && p[n] == '.';
}

/* What the summary gathers over the workers before it writes the merged section. */
struct sum_acc {
    struct acc sums[BK__COUNT]; /* by field id: the summed counts */
    struct acc init_conn, lag_max;
    struct pool lat, conn, lag;
    int incl_fail, nsum, hist_ok, nhist;
    struct bench_hist *h, *tmp; /* the merged histogram, one worker's */
};

static void summary_add(struct sum_acc *a, const cJSON *r)
{
    const cJSON *ws = get(r, KEY(SUMMARY));
    if (!cJSON_IsObject(ws)) {
        a->hist_ok = 0;
        return;
    }
    a->nsum++;
    for (size_t k = 0; k < BK__COUNT; k++)
        if (summary_row(k, BM_SUM))
            acc_add(&a->sums[k], num(ws, bench_key(k)));
    double tx = num(ws, KEY(SUMMARY_TRANSACTIONS_PROCESSED));
    pool_add(&a->lat, num(ws, KEY(SUMMARY_LATENCY_AVG_MS)), num(ws, KEY(SUMMARY_LATENCY_STDDEV_MS)),
             tx);
    pool_add(&a->conn, num(ws, KEY(SUMMARY_AVERAGE_CONNECTION_MS)), 0, tx);
    pool_add(&a->lag, num(ws, KEY(SUMMARY_RATE_LIMIT_LAG_AVG_MS)), 0, tx);
    acc_add(&a->init_conn, num(ws, KEY(SUMMARY_INITIAL_CONNECTION_MS)));
    acc_add(&a->lag_max, num(ws, KEY(SUMMARY_RATE_LIMIT_LAG_MAX_MS)));
    if (cJSON_IsTrue(get(ws, KEY(SUMMARY_LATENCY_INCLUDES_FAILURES))))
        a->incl_fail = 1;
    const cJSON *hj = get(r, KEY(HISTOGRAM));
    if (cJSON_IsObject(hj) && !bench_hist_from_json(a->tmp, hj)) {
        bench_hist_merge(a->h, a->tmp);
        a->nhist++;
    } else if (tx != 0) {
        a->hist_ok = 0; /* a worker with transactions but no histogram */
    }
}

/* The summed counts, failedPct over them, and the weighted and pooled latencies. */
static void summary_put_sums(cJSON *s, const struct sum_acc *a)
{
    for (size_t k = 0; k < BK__COUNT; k++) {
        if (!summary_row(k, BM_SUM))
            continue;
        /* tpsIncludingConnect only when every worker has it */
        if (k == BK_SUMMARY_TPS_INCLUDING_CONNECT && a->sums[k].n != a->nsum)
            set_num(s, bench_key(k), NAN);
        else
            set_num(s, bench_key(k), acc_sum(&a->sums[k]));
    }
    double processed = acc_sum(&a->sums[BK_SUMMARY_TRANSACTIONS_PROCESSED]);
    double failed = acc_sum(&a->sums[BK_SUMMARY_FAILED_TRANSACTIONS]);
    double skipped = acc_sum(&a->sums[BK_SUMMARY_SKIPPED]);
    double total = processed + failed + (isfinite(skipped) ? skipped : 0);
    set_num(s, KEY(SUMMARY_FAILED_PCT),
            isfinite(failed) && total > 0 ? 100.0 * failed / total : NAN);
    util_must(cJSON_AddBoolToObject(s, KEY(SUMMARY_LATENCY_INCLUDES_FAILURES), a->incl_fail));
    set_num(s, KEY(SUMMARY_LATENCY_AVG_MS), pool_mean(&a->lat));
    set_num(s, KEY(SUMMARY_LATENCY_STDDEV_MS), pool_sd(&a->lat));
    set_num(s, KEY(SUMMARY_INITIAL_CONNECTION_MS), acc_max(&a->init_conn));
    set_num(s, KEY(SUMMARY_AVERAGE_CONNECTION_MS), pool_mean(&a->conn));
    set_num(s, KEY(SUMMARY_RATE_LIMIT_LAG_AVG_MS), pool_mean(&a->lag));
    set_num(s, KEY(SUMMARY_RATE_LIMIT_LAG_MAX_MS), acc_max(&a->lag_max));
}

/* Percentiles, max, min and count from the merged histogram, which goes in the result; all null
 * when a worker with transactions had no histogram. */
static void summary_put_hist(cJSON *out, cJSON *s, const struct sum_acc *a)
{
    const struct bench_hist *h = a->h;
    int have = h && a->hist_ok && a->nhist > 0 && h->count > 0;
    bench_result_put_hist(s, have ? h : NULL);
    util_jset(out, KEY(HISTOGRAM), have ? bench_hist_to_json(h) : cJSON_CreateNull());
}

static void summary_put(cJSON *out, const struct sum_acc *a)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddItemToObject(out, KEY(SUMMARY), s);
    summary_put_sums(s, a);
    summary_put_hist(out, s, a);
}

/* ---- timeline ---- */

struct tpoint {
    long long key;
    double t;
    struct acc tps, failed, lag, skipped, retried, retries;
    struct pool lat;
    int workers;
};

static int cmp_tpoint(const void *a, const void *b)
{
    const struct tpoint *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

struct timeline {
    struct tpoint *pts;
    size_t n, cap;
};

/* The tpoint at key, made when new (NULL when the timeline is full). */
static struct tpoint *timeline_point(struct timeline *tl, long long key)
{
    size_t j;
    for (j = tl->n; j > 0; j--) /* points usually arrive in order: search from the end */
        if (tl->pts[j - 1].key == key)
            return &tl->pts[j - 1];
    if (tl->n >= AGG_MAX_TIMELINE)
        return NULL;
    if (tl->n == tl->cap) {
        tl->cap = tl->cap ? tl->cap * 2 : 64;
        tl->pts = util_xrealloc(tl->pts, tl->cap * sizeof(*tl->pts));
    }
    struct tpoint *tp = &tl->pts[tl->n++];
    memset(tp, 0, sizeof(*tp));
    tp->key = key;
    tp->t = (double)key / 10.0;
    return tp;
}

static void timeline_add(struct timeline *tl, const cJSON *r)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, get(r, KEY(TIMELINE)))
    {
        double t = num(p, KEY(TIMELINE_T));
        if (!isfinite(t) || fabs(t) > 1e12)
            continue;
        struct tpoint *tp = timeline_point(tl, llround(t * 10.0));
        if (!tp)
            continue;
        double tps = num(p, KEY(TIMELINE_TPS));
        acc_add(&tp->tps, tps);
        acc_add(&tp->failed, num(p, KEY(TIMELINE_FAILED)));
        acc_add(&tp->lag, num(p, KEY(TIMELINE_LAG_MS)));
        acc_add(&tp->skipped, num(p, KEY(TIMELINE_SKIPPED)));
        acc_add(&tp->retried, num(p, KEY(TIMELINE_RETRIED)));
        acc_add(&tp->retries, num(p, KEY(TIMELINE_RETRIES)));
        pool_add(&tp->lat, num(p, KEY(TIMELINE_LATENCY_MS)), num(p, KEY(TIMELINE_STDDEV_MS)),
                 tps > 0 ? tps : 1e-9);
        tp->workers++;
    }
}

static void timeline_put(cJSON *out, struct timeline *tl)
{
    struct tpoint *pts = tl->pts;
    if (tl->n)
        qsort(pts, tl->n, sizeof(*pts), cmp_tpoint);
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToObject(out, KEY(TIMELINE), arr);
    for (size_t i = 0; i < tl->n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        set_num(o, KEY(TIMELINE_T), pts[i].t);
        set_num(o, KEY(TIMELINE_TPS), acc_sum(&pts[i].tps));
        set_num(o, KEY(TIMELINE_LATENCY_MS), pool_mean(&pts[i].lat));
        set_num(o, KEY(TIMELINE_STDDEV_MS), pool_sd(&pts[i].lat));
        set_num(o, KEY(TIMELINE_FAILED), acc_sum(&pts[i].failed));
        set_num(o, KEY(TIMELINE_LAG_MS), acc_max(&pts[i].lag));
        set_num(o, KEY(TIMELINE_SKIPPED), acc_sum(&pts[i].skipped));
        set_num(o, KEY(TIMELINE_RETRIED), acc_sum(&pts[i].retried));
        set_num(o, KEY(TIMELINE_RETRIES), acc_sum(&pts[i].retries));
        set_num(o, KEY(TIMELINE_WORKERS), pts[i].workers);
    }
}

/* ---- latency series, warm-up ---- */

/* The warm-up section's rows (a field id per row, FIRST, SUM, MIN, MAX, TXMEAN), gathered. */
struct warm_acc {
    struct acc a;
    struct pool p;
    double first, lo;
};

static bool warmup_row(size_t k)
{
    const char *sec = bench_fields[BK_WARMUP].path, *p = bench_fields[k].path;
    size_t len = strlen(sec);
    return p && strncmp(p, sec, len) == 0 && p[len] == '.';
}

static void warmup_add(struct warm_acc *wa, const cJSON *r)
{
    for (size_t k = 0; k < bench_nfields; k++) {
        if (!warmup_row(k))
            continue;
        double v = num(get(r, KEY(WARMUP)), bench_key(k));
        if (!isfinite(v))
            continue;
        struct warm_acc *x = &wa[k];
        x->first = isfinite(x->first) ? x->first : v;
        x->lo = v < x->lo || !isfinite(x->lo) ? v : x->lo;
        acc_add(&x->a, v);
        pool_add(&x->p, v, 0,
                 num(get(r, KEY(SUMMARY)), KEY(SUMMARY_TRANSACTIONS_PROCESSED)) +
                     num(get(r, KEY(WARMUP)), KEY(WARMUP_TRANSACTIONS)));
    }
}

/* The warm-up section, each row by its merge rule. */
static void warmup_put(cJSON *out, const struct warm_acc *wa)
{
    cJSON *w = NULL;
    for (size_t k = 0; k < bench_nfields; k++) {
        const struct bench_field *f = &bench_fields[k];
        const struct warm_acc *x = &wa[k];
        if (!warmup_row(k) || !x->a.n)
            continue;
        double v = f->merge == BM_SUM      ? acc_sum(&x->a)
                   : f->merge == BM_MAX    ? acc_max(&x->a)
                   : f->merge == BM_MIN    ? x->lo
                   : f->merge == BM_TXMEAN ? pool_mean(&x->p)
                                           : x->first;
        if (!w)
            w = cJSON_CreateObject();
        set_num(w, bench_key(k), v);
    }
    if (w)
        cJSON_AddItemToObject(out, KEY(WARMUP), w);
}

/* ---- statements / scripts ---- */

static cJSON *find_stmt(cJSON *arr, double script, const char *command)
{
    cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        const cJSON *c = get(o, KEY(STATEMENTS_COMMAND));
        if (num(o, KEY(STATEMENTS_SCRIPT)) == script && cJSON_IsString(c) &&
            !strcmp(c->valuestring, command))
            return o;
    }
    return NULL;
}

/* One worker's statements into arr: the union, with weighted sums kept in hidden fields. */
static void statements_add(cJSON *arr, const cJSON *r)
{
    double w = num(get(r, KEY(SUMMARY)), KEY(SUMMARY_TRANSACTIONS_PROCESSED));
    if (!(w > 0))
        w = 1;
    const cJSON *st;
    cJSON_ArrayForEach(st, get(r, KEY(STATEMENTS)))
    {
        const cJSON *cmd = get(st, KEY(STATEMENTS_COMMAND));
        double script = num(st, KEY(STATEMENTS_SCRIPT)), lat = num(st, KEY(STATEMENTS_LATENCY_MS));
        if (!cJSON_IsString(cmd) || !isfinite(script))
            continue;
        cJSON *o = find_stmt(arr, script, cmd->valuestring);
        if (!o) {
            if (cJSON_GetArraySize(arr) >= 4096)
                continue;
            o = cJSON_CreateObject();
            cJSON_AddItemToArray(arr, o);
            set_num(o, KEY(STATEMENTS_SCRIPT), script);
            util_jset_str(o, KEY(STATEMENTS_COMMAND), cmd->valuestring);
            set_num(o, KEY(STATEMENTS_LATENCY_MS), NAN);
            set_num(o, KEY(STATEMENTS_FAILURES), NAN);
            set_num(o, KEY(STATEMENTS_RETRIES), NAN);
            set_num(o, "_w", 0);
            set_num(o, "_wl", 0);
        }
        if (isfinite(lat)) {
            set_num(o, "_w", num(o, "_w") + w);
            set_num(o, "_wl", num(o, "_wl") + w * lat);
        }
        const char *const counts[] = {KEY(STATEMENTS_FAILURES), KEY(STATEMENTS_RETRIES)};
        for (int k = 0; k < 2; k++) {
            double v = num(st, counts[k]);
            if (isfinite(v))
                set_num(o, counts[k], (isfinite(num(o, counts[k])) ? num(o, counts[k]) : 0) + v);
        }
    }
}

/* The statements (or scripts) gathered into out, their latency the weighted mean (takes
 * ownership of arr). */
static void weighted_put(cJSON *out, const char *key, cJSON *arr, const char *lat_key, bool always)
{
    cJSON_AddItemToObject(out, key, arr);
    cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        double w = num(o, "_w");
        if (always)
            set_num(o, lat_key, w > 0 ? num(o, "_wl") / w : NAN);
        else if (w > 0 && isfinite(num(o, "_wl")))
            set_num(o, lat_key, num(o, "_wl") / w);
        cJSON_DeleteItemFromObjectCaseSensitive(o, "_w");
        cJSON_DeleteItemFromObjectCaseSensitive(o, "_wl");
    }
}

static void scripts_add(cJSON *arr, const cJSON *r)
{
    const cJSON *sc;
    cJSON_ArrayForEach(sc, get(r, KEY(SCRIPTS)))
    {
        double idx = num(sc, KEY(SCRIPTS_SCRIPT));
        if (!isfinite(idx))
            continue;
        cJSON *o = NULL, *x;
        cJSON_ArrayForEach(x, arr) if (num(x, KEY(SCRIPTS_SCRIPT)) == idx) o = x;
        double tx = num(sc, KEY(SCRIPTS_TRANSACTIONS_PROCESSED));
        if (!o) {
            if (cJSON_GetArraySize(arr) >= 1024)
                continue;
            o = cJSON_Duplicate(sc, 1);
            cJSON_AddItemToArray(arr, o);
            set_num(o, "_w", tx > 0 ? tx : 0);
            set_num(o, "_wl", tx > 0 ? tx * num(sc, KEY(SCRIPTS_LATENCY_AVG_MS)) : 0);
            continue;
        }
        static const enum bench_field_id sums[] = {BK_SCRIPTS_TRANSACTIONS_PROCESSED,
                                                   BK_SCRIPTS_FAILED_TRANSACTIONS, BK_SCRIPTS_TPS};
        for (size_t k = 0; k < sizeof(sums) / sizeof(sums[0]); k++)
            add_key(o, sc, sums[k]);
        if (tx > 0 && isfinite(num(sc, KEY(SCRIPTS_LATENCY_AVG_MS)))) {
            set_num(o, "_w", num(o, "_w") + tx);
            set_num(o, "_wl", num(o, "_wl") + tx * num(sc, KEY(SCRIPTS_LATENCY_AVG_MS)));
        }
        /* per-script stddev cannot be pooled exactly here */
        set_num(o, KEY(SCRIPTS_LATENCY_STDDEV_MS), NAN);
    }
}

/* ---- fio ---- */

/* Latency statistics (clatUs, latUs, sync): the worst worker's, samples summed. */
static void merge_latency(cJSON *dst, const cJSON *src)
{
    const char *k = KEY(FIO_JOBS_SYNC_SAMPLES);
    double samples = num(dst, k) + num(src, k);
    merge_worst(dst, src);
    set_num(dst, k, samples);
}

/* Adds j's per-second IOPS and bandwidth to o's, point by point matched by t. */
static void merge_fio_series(cJSON *o, const cJSON *j)
{
    static const enum bench_field_id vals[] = {
        BK_FIO_JOBS_SERIES_READ_IOPS, BK_FIO_JOBS_SERIES_WRITE_IOPS,
        BK_FIO_JOBS_SERIES_READ_BW_KI_BS, BK_FIO_JOBS_SERIES_WRITE_BW_KI_BS};
    const char *key = KEY(FIO_JOBS_SERIES), *tk = KEY(FIO_JOBS_SERIES_T);
    const cJSON *js = get(j, key), *p;
    cJSON *os = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(js))
        return;
    if (!cJSON_IsArray(os)) {
        util_jset(o, key, cJSON_Duplicate(js, 1));
        return;
    }
    cJSON_ArrayForEach(p, js)
    {
        cJSON *q = NULL, *it;
        cJSON_ArrayForEach(it, os) if (num(it, tk) == num(p, tk)) q = it;
        if (!q) {
            if (cJSON_GetArraySize(os) < bench_fields[BK_FIO_JOBS_SERIES].max_items)
                cJSON_AddItemToArray(os, cJSON_Duplicate(p, 1));
            continue;
        }
        for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++)
            add_key(q, p, vals[k]);
    }
}

static void merge_fio_job(cJSON *o, const cJSON *j)
{
    merge_fio_series(o, j);
    static const enum bench_field_id dirs[] = {BK_FIO_JOBS_READ, BK_FIO_JOBS_WRITE};
    static const enum bench_field_id sums[2][4] = {
        {BK_FIO_JOBS_READ_IOPS, BK_FIO_JOBS_READ_BW_KI_BS, BK_FIO_JOBS_READ_IO_KI_B,
         BK_FIO_JOBS_READ_TOTAL_IOS},
        {BK_FIO_JOBS_WRITE_IOPS, BK_FIO_JOBS_WRITE_BW_KI_BS, BK_FIO_JOBS_WRITE_IO_KI_B,
         BK_FIO_JOBS_WRITE_TOTAL_IOS},
    };
    static const enum bench_field_id lats[2][2] = {
        {BK_FIO_JOBS_READ_CLAT_US, BK_FIO_JOBS_READ_LAT_US},
        {BK_FIO_JOBS_WRITE_CLAT_US, BK_FIO_JOBS_WRITE_LAT_US},
    };
    for (int d = 0; d < 2; d++) {
        cJSON *od = cJSON_GetObjectItemCaseSensitive(o, bench_key(dirs[d]));
        const cJSON *jd = get(j, bench_key(dirs[d]));
        if (!cJSON_IsObject(jd))
            continue;
        if (!cJSON_IsObject(od)) {
            util_jset(o, bench_key(dirs[d]), cJSON_Duplicate(jd, 1));
            continue;
        }
        for (int k = 0; k < 4; k++)
            set_num(od, bench_key(sums[d][k]),
                    num(od, bench_key(sums[d][k])) + num(jd, bench_key(sums[d][k])));
        for (int k = 0; k < 2; k++) {
            cJSON *ol = cJSON_GetObjectItemCaseSensitive(od, bench_key(lats[d][k]));
            const cJSON *jl = get(jd, bench_key(lats[d][k]));
            if (cJSON_IsObject(ol) && cJSON_IsObject(jl))
                merge_latency(ol, jl);
        }
    }
    const char *sync = KEY(FIO_JOBS_SYNC);
    cJSON *os = cJSON_GetObjectItemCaseSensitive(o, sync);
    if (cJSON_IsObject(os) && cJSON_IsObject(get(j, sync)))
        merge_latency(os, get(j, sync));
    else if (!cJSON_IsObject(os) && cJSON_IsObject(get(j, sync)))
        util_jset(o, sync, cJSON_Duplicate(get(j, sync), 1));
    const char *error = KEY(FIO_JOBS_ERROR);
    double e = num(o, error), je = num(j, error);
    if (!(e != 0) && isfinite(je) && je != 0)
        set_num(o, error, je);
}

/* One worker's fio jobs into *fio (made when first needed): jobs matched by name. */
static void fio_add(cJSON **fio, const cJSON *r)
{
    const char *k_name = KEY(FIO_JOBS_NAME);
    const cJSON *f = get(r, KEY(FIO));
    if (!cJSON_IsObject(f))
        return;
    if (!*fio) {
        *fio = cJSON_CreateObject();
        const cJSON *v = get(f, KEY(FIO_VERSION));
        if (cJSON_IsString(v))
            util_jset_str(*fio, KEY(FIO_VERSION), v->valuestring);
        (void)util_must(cJSON_AddArrayToObject(*fio, KEY(FIO_JOBS)));
    }
    cJSON *jobs = cJSON_GetObjectItemCaseSensitive(*fio, KEY(FIO_JOBS));
    const cJSON *j;
    cJSON_ArrayForEach(j, get(f, KEY(FIO_JOBS)))
    {
        const cJSON *name = get(j, k_name);
        if (!cJSON_IsString(name))
            continue;
        cJSON *o = NULL, *x;
        cJSON_ArrayForEach(x, jobs)
        {
            const cJSON *xn = get(x, k_name);
            if (cJSON_IsString(xn) && !strcmp(xn->valuestring, name->valuestring))
                o = x;
        }
        if (!o) {
            cJSON_AddItemToArray(jobs, cJSON_Duplicate(j, 1));
            continue;
        }
        merge_fio_job(o, j);
    }
}

/* ---- diagnostics ---- */

/* waitEvents.sharesPct: each event's share of all observations of the load's backends. */
static void add_wait_shares(cJSON *wait)
{
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(wait, bench_key(BK_WAIT_EVENTS_EVENTS));
    double n = num(wait, bench_key(BK_WAIT_EVENTS_BACKEND_SAMPLES));
    cJSON *out = cJSON_CreateObject();
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        if (cJSON_IsNumber(e) && n > 0)
            set_num(out, e->string, round(e->valuedouble / n * 100.0 * 10.0) / 10.0);
    }
    util_jset(wait, bench_key(BK_WAIT_EVENTS_SHARES_PCT), out);
}

/* The common window: from the latest start to the earliest end (every worker ran during it),
 * and its share of the whole run, from the first start to the last end. */
struct window_acc {
    struct acc late, end, first_start, last_end, seen;
    cJSON *barrier; /* the first worker's */
};

static void window_add(struct window_acc *a, const cJSON *r)
{
    const cJSON *b = bench_get(r, BK_WINDOW_BARRIER);
    if (!b)
        return;
    if (!a->barrier)
        a->barrier = util_must(cJSON_Duplicate(b, 0));
    double l = bench_num(r, BK_WINDOW_LATE_SECONDS);
    double e = bench_num(r, BK_WINDOW_END_SECONDS);
    acc_add(&a->late, l);
    acc_add(&a->first_start, isfinite(l) ? -l : NAN);
    acc_add(&a->end, isfinite(e) ? -e : NAN);
    acc_add(&a->last_end, e);
    acc_add(&a->seen, bench_num(r, BK_WINDOW_SEEN_SECONDS));
}

static void window_put(cJSON *out, struct window_acc *a)
{
    if (!a->barrier || !a->late.n || !a->end.n)
        return;
    double start = acc_max(&a->late), stop = -acc_max(&a->end);
    double whole = acc_max(&a->last_end) + acc_max(&a->first_start);
    double common = stop > start ? stop - start : 0;
    cJSON *barrier = a->barrier;
    a->barrier = NULL;
    if (bench_put(out, BK_WINDOW_BARRIER, barrier))
        return;
    (void)bench_put(out, BK_WINDOW_LATE_SECONDS, cJSON_CreateNumber(start));
    (void)bench_put(out, BK_WINDOW_END_SECONDS, cJSON_CreateNumber(stop));
    if (a->seen.n)
        (void)bench_put(out, BK_WINDOW_SEEN_SECONDS, cJSON_CreateNumber(acc_max(&a->seen)));
    (void)bench_put(out, BK_WINDOW_SECONDS, cJSON_CreateNumber(round(common * 1e3) / 1e3));
    (void)bench_put(out, BK_WINDOW_COVERAGE_PCT,
                    cJSON_CreateNumber(whole > 0 ? round(common / whole * 1000.0) / 10.0 : 100.0));
}

/* ---- top level ---- */

/* What the workers loop gathers for the top-level fields. */
struct top_acc {
    bool complete;
    double exit_code;
    char *start, *end; /* the earliest start, the latest end */
    size_t nerr, dropped;
};

/* Worker i's entry in "workers" (r may be NULL: no result). */
static void worker_entry(cJSON *w, const cJSON *r, size_t i)
{
    double idx = r ? num(r, KEY(WORKER)) : NAN;
    set_num(w, KEY(WORKERS_INDEX), isfinite(idx) ? idx : (double)i);
    if (!r) {
        util_jset(w, KEY(WORKERS_COMPLETE), cJSON_CreateFalse());
        util_jset_str(w, KEY(WORKERS_MESSAGE), "no result");
        return;
    }
    const cJSON *s = get(r, KEY(SUMMARY));
    util_jset(w, KEY(WORKERS_COMPLETE), cJSON_CreateBool(cJSON_IsTrue(get(r, KEY(COMPLETE)))));
    set_num(w, KEY(WORKERS_EXIT_CODE), num(r, KEY(EXIT_CODE)));
    set_num(w, KEY(WORKERS_TPS), num(s, KEY(SUMMARY_TPS)));
    set_num(w, KEY(WORKERS_TRANSACTIONS_PROCESSED), num(s, KEY(SUMMARY_TRANSACTIONS_PROCESSED)));
    set_num(w, KEY(WORKERS_FAILED_TRANSACTIONS), num(s, KEY(SUMMARY_FAILED_TRANSACTIONS)));
    set_num(w, KEY(WORKERS_ABORTED_CLIENTS), num(s, KEY(SUMMARY_ABORTED_CLIENTS)));
    set_num(w, KEY(WORKERS_LATENCY_AVG_MS), num(s, KEY(SUMMARY_LATENCY_AVG_MS)));
    set_num(w, KEY(WORKERS_LATE_SECONDS), bench_num(r, BK_WINDOW_LATE_SECONDS));
    set_num(w, KEY(WORKERS_END_SECONDS), bench_num(r, BK_WINDOW_END_SECONDS));
}

/* Replaces *have by s when *have is NULL or s sorts before it (later: after). */
static void keep_time(char **have, const cJSON *s, bool later)
{
    if (!cJSON_IsString(s))
        return;
    int c = *have ? strcmp(s->valuestring, *have) : 0;
    if (!*have || (later ? c > 0 : c < 0)) {
        free(*have);
        *have = util_xstrdup(s->valuestring);
    }
}

/* Worker i's result into the top-level fields, its errors prefixed "worker N: " (capped) into
 * errs' errors. */
static void worker_top(cJSON *errs, struct top_acc *t, const cJSON *r, size_t i)
{
    if (!cJSON_IsTrue(get(r, KEY(COMPLETE))))
        t->complete = false;
    double ec = num(r, KEY(EXIT_CODE));
    if (isfinite(ec) && ec > t->exit_code)
        t->exit_code = ec;
    keep_time(&t->start, get(r, KEY(START_TIME)), false);
    keep_time(&t->end, get(r, KEY(END_TIME)), true);
    double idx = num(r, KEY(WORKER));
    const cJSON *e;
    cJSON_ArrayForEach(e, get(r, KEY(ERRORS)))
    {
        if (!cJSON_IsString(e))
            continue;
        if (t->nerr >= AGG_MAX_ERRORS) {
            t->dropped++;
            continue;
        }
        char buf[600];
        (void)snprintf(buf, sizeof(buf), "worker %g: %s", isfinite(idx) ? idx : (double)i,
                       e->valuestring);
        bench_result_add_error(errs, buf);
        t->nerr++;
    }
}

/* "workers" (taking ownership of workers), complete, exitCode, startTime/endTime, workerCount,
 * errors (errs' errors) and dropped.errors. */
static void workers_put(cJSON *out, cJSON *workers, cJSON *errs, const struct top_acc *t, size_t n)
{
    cJSON_AddItemToObject(out, KEY(WORKERS), workers);
    cJSON *e = cJSON_DetachItemFromObjectCaseSensitive(errs, KEY(ERRORS));
    if (e)
        cJSON_ReplaceItemInObjectCaseSensitive(out, KEY(ERRORS), e);
    util_jset(out, KEY(COMPLETE), cJSON_CreateBool(t->complete));
    set_num(out, KEY(EXIT_CODE), t->exit_code);
    if (t->start)
        util_jset(out, KEY(START_TIME), cJSON_CreateString(t->start));
    if (t->end)
        util_jset(out, KEY(END_TIME), cJSON_CreateString(t->end));
    set_num(out, KEY(WORKER_COUNT), (double)n);
    if (t->dropped) {
        cJSON *d = cJSON_CreateObject();
        set_num(d, KEY(DROPPED_ERRORS), (double)t->dropped);
        util_jset(out, KEY(DROPPED), d);
    }
}

/* pgbench configuration: the first worker's (cfg, taken); clients, threads and the rate (each
 * worker's share of the run's) summed. */
struct config_acc {
    struct acc clients, threads, rate;
};

static void config_add(struct config_acc *c, const cJSON *r)
{
    acc_add(&c->clients, num(get(r, KEY(PGBENCH)), KEY(PGBENCH_CLIENTS)));
    acc_add(&c->threads, num(get(r, KEY(PGBENCH)), KEY(PGBENCH_THREADS)));
    acc_add(&c->rate, num(get(r, KEY(PGBENCH)), KEY(PGBENCH_RATE)));
}

static void config_put(cJSON *out, cJSON *cfg, const struct config_acc *a)
{
    if (!cfg)
        return;
    set_num(cfg, KEY(PGBENCH_CLIENTS), acc_sum(&a->clients));
    set_num(cfg, KEY(PGBENCH_THREADS), acc_sum(&a->threads));
    if (get(cfg, KEY(PGBENCH_RATE))) /* shares are whole thousandths of a tps */
        set_num(cfg, KEY(PGBENCH_RATE), round(acc_sum(&a->rate) * 1000) / 1000);
    cJSON_AddItemToObject(out, KEY(PGBENCH), cfg);
}

/* checks: the first worker's dataset check, the replica checks merged worst-case. *checks is
 * made when first needed. */
static void merge_checks(cJSON **checks, const cJSON *ck)
{
    const cJSON *ds = get(ck, KEY(CHECKS_DATASET)), *rep = get(ck, KEY(CHECKS_REPLICA));
    if (!cJSON_IsObject(ds) && !cJSON_IsObject(rep))
        return;
    if (!*checks)
        *checks = cJSON_CreateObject();
    if (cJSON_IsObject(ds) && !get(*checks, KEY(CHECKS_DATASET)))
        util_jset(*checks, KEY(CHECKS_DATASET), cJSON_Duplicate(ds, 1));
    if (!cJSON_IsObject(rep))
        return;
    cJSON *have = cJSON_GetObjectItemCaseSensitive(*checks, KEY(CHECKS_REPLICA));
    if (have)
        merge_worst(have, rep);
    else
        util_jset(*checks, KEY(CHECKS_REPLICA), cJSON_Duplicate(rep, 1));
}

/* Little's law over the merged summary, into *checks (made when needed). */
static void add_littles_law(cJSON **checks, const cJSON *out)
{
    const cJSON *s = get(out, KEY(SUMMARY));
    const cJSON *c = get(out, KEY(PGBENCH));
    if (!cJSON_IsObject(s) || !isfinite(num(c, KEY(PGBENCH_CLIENTS))))
        return;
    cJSON *ll = bench_check_littles_law(
        (int)num(c, KEY(PGBENCH_CLIENTS)), num(s, KEY(SUMMARY_LATENCY_AVG_MS)),
        num(s, KEY(SUMMARY_TPS)), isfinite(num(c, KEY(PGBENCH_RATE))));
    if (!ll)
        return;
    if (!*checks)
        *checks = cJSON_CreateObject();
    util_jset(*checks, KEY(CHECKS_LITTLES_LAW), ll);
}

/* A section merged worst-case over the workers (client, network: the busiest, the slowest) into
 * *m, made when first needed. */
static void section_worst_add(cJSON **m, const cJSON *r, enum bench_field_id id)
{
    const cJSON *x = bench_get(r, id);
    if (!cJSON_IsObject(x))
        return;
    if (!*m)
        *m = util_must(cJSON_Duplicate(x, 1));
    else
        merge_worst(*m, x);
}

/* server and serverStats (the first worker's), waitEvents summed with their shares, the runner's
 * side worst-case, checks. */
struct diag_acc {
    cJSON *client, *network, *server, *stats, *wait, *checks;
};

static void diag_add(struct diag_acc *a, const cJSON *r)
{
    section_worst_add(&a->client, r, BK_CLIENT);
    section_worst_add(&a->network, r, BK_NETWORK);
    if (!a->server && cJSON_IsObject(get(r, KEY(SERVER))))
        a->server = util_must(cJSON_Duplicate(get(r, KEY(SERVER)), 1));
    if (!a->stats && cJSON_IsObject(get(r, KEY(SERVER_STATS))))
        a->stats = util_must(cJSON_Duplicate(get(r, KEY(SERVER_STATS)), 1));
    const cJSON *we = get(r, KEY(WAIT_EVENTS));
    if (cJSON_IsObject(we) && !a->wait)
        a->wait = util_must(cJSON_Duplicate(we, 1));
    else if (cJSON_IsObject(we))
        merge_sum(a->wait, we);
    merge_checks(&a->checks, get(r, KEY(CHECKS)));
}

/* Into out, which takes what a holds (a is emptied). */
static void diag_put(cJSON *out, struct diag_acc *a)
{
    if (a->client)
        (void)bench_put(out, BK_CLIENT, a->client);
    if (a->network)
        (void)bench_put(out, BK_NETWORK, a->network);
    if (a->server)
        util_jset(out, KEY(SERVER), a->server);
    if (a->stats)
        util_jset(out, KEY(SERVER_STATS), a->stats);
    if (a->wait) {
        add_wait_shares(a->wait);
        util_jset(out, KEY(WAIT_EVENTS), a->wait);
    }
    add_littles_law(&a->checks, out);
    if (a->checks)
        util_jset(out, KEY(CHECKS), a->checks);
    memset(a, 0, sizeof(*a));
}

static void diag_free(struct diag_acc *a)
{
    cJSON_Delete(a->client);
    cJSON_Delete(a->network);
    cJSON_Delete(a->server);
    cJSON_Delete(a->stats);
    cJSON_Delete(a->wait);
    cJSON_Delete(a->checks);
}

/* The rows percentiles_from_workers fills: merged from the histogram, shown in status. */
static bool from_workers_row(size_t k)
{
    const struct bench_field *f = &bench_fields[k];
    return f->merge == BM_HIST && f->type == BF_NUM && f->status;
}

/* Percentiles are merged from the workers' histograms, which only their logs hold: when a
 * worker's result is its compact summary, the merge gives none. They are taken from the
 * workers' own values then: exact for one worker; for several the largest, an upper bound of the
 * merged percentile (at that latency every worker, so all of them together, have reached the
 * rank), and for the maximum the exact value. Workers without transactions have none and do not
 * count. Only the rows status shows are filled. Gathered by row: */
struct pct_acc {
    double v;
    int from;
    bool incomplete; /* a worker with transactions lacks the value */
};

static void pct_add(struct pct_acc *pa, const cJSON *r)
{
    if (!(bench_num(r, BK_SUMMARY_TRANSACTIONS_PROCESSED) > 0))
        return;
    for (size_t k = 0; k < bench_nfields; k++) {
        struct pct_acc *p = &pa[k];
        if (!from_workers_row(k) || p->incomplete)
            continue;
        double x = bench_num(r, (enum bench_field_id)k);
        if (!isfinite(x))
            p->incomplete = true;
        else if (!(x <= p->v))
            p->v = x;
        p->from++;
    }
}

static void pct_put(cJSON *out, const struct pct_acc *pa)
{
    if (!bench_get(out, BK_SUMMARY))
        return;
    for (size_t k = 0; k < bench_nfields; k++) {
        enum bench_field_id id = (enum bench_field_id)k;
        if (!from_workers_row(k) || bench_get(out, id))
            continue;
        if (!pa[k].incomplete && pa[k].from > 0)
            (void)bench_put(out, id, cJSON_CreateNumber(pa[k].v));
    }
}

bool bench_aggregate_bounded(const cJSON *agg)
{
    bool filled = false;
    if (bench_get(agg, BK_HISTOGRAM))
        return false; /* merged: exact */
    for (size_t k = 0; k < bench_nfields; k++)
        if (from_workers_row(k) && k != BK_SUMMARY_LATENCY_MAX_MS &&
            bench_get(agg, (enum bench_field_id)k))
            filled = true;
    int with_tx = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, bench_get(agg, BK_WORKERS))
    {
        if (bench_num(w, BK_WORKERS_TRANSACTIONS_PROCESSED) > 0)
            with_tx++;
    }
    return filled && with_tx > 1;
}

/* ---- the fold ---- */

struct bench_agg {
    size_t n;      /* results added: the next one's position */
    char err[256]; /* set: an invalid result, or kinds that differ */
    /* of the first valid result: its kind, pgbench and init sections; the first user */
    char *kind, *user;
    cJSON *cfg, *init;
    cJSON *workers, *errs; /* "workers"; an object holding "errors" */
    struct top_acc top;
    struct config_acc config;
    bool any_summary;
    struct sum_acc sum;
    cJSON *statements, *scripts, *fio;
    struct timeline timeline;
    struct bench_latseries *series;
    struct warm_acc *warm; /* by field id */
    struct pct_acc *pct;   /* by field id */
    struct window_acc window;
    struct diag_acc diag;
};

struct bench_agg *bench_agg_new(void)
{
    struct bench_agg *a = util_xcalloc(1, sizeof(*a));
    a->workers = cJSON_CreateArray();
    a->errs = cJSON_CreateObject();
    a->top.complete = true;
    a->sum.hist_ok = 1;
    a->sum.h = bench_hist_new();
    a->sum.tmp = bench_hist_new();
    a->statements = cJSON_CreateArray();
    a->scripts = cJSON_CreateArray();
    a->warm = util_xcalloc(bench_nfields, sizeof(*a->warm));
    a->pct = util_xcalloc(bench_nfields, sizeof(*a->pct));
    for (size_t k = 0; k < bench_nfields; k++)
        a->warm[k].first = a->warm[k].lo = a->pct[k].v = NAN;
    return a;
}

void bench_agg_free(struct bench_agg *a)
{
    if (!a)
        return;
    free(a->kind);
    free(a->user);
    cJSON_Delete(a->cfg);
    cJSON_Delete(a->init);
    cJSON_Delete(a->workers);
    cJSON_Delete(a->errs);
    free(a->top.start);
    free(a->top.end);
    bench_hist_free(a->sum.h);
    bench_hist_free(a->sum.tmp);
    cJSON_Delete(a->statements);
    cJSON_Delete(a->scripts);
    cJSON_Delete(a->fio);
    free(a->timeline.pts);
    bench_latseries_free(a->series);
    free(a->warm);
    free(a->pct);
    cJSON_Delete(a->window.barrier);
    diag_free(&a->diag);
    free(a);
}

/* A result that fails validation, or of another kind than the first: the aggregate fails. */
static bool agg_refuse(struct bench_agg *a, const cJSON *r, size_t i)
{
    char why[200];
    if (bench_result_validate(r, why, sizeof(why))) {
        (void)util_errf(a->err, sizeof(a->err), "worker result %zu: %s", i, why);
        return true;
    }
    const char *k = get(r, KEY(KIND))->valuestring;
    if (a->kind && strcmp(a->kind, k) != 0) {
        (void)util_errf(a->err, sizeof(a->err), "worker results have different kinds (%s, %s)",
                        a->kind, k);
        return true;
    }
    return false;
}

/* The first valid result's own sections, and the first user. */
static void agg_firsts(struct bench_agg *a, const cJSON *r)
{
    if (!a->kind) {
        a->kind = util_xstrdup(get(r, KEY(KIND))->valuestring);
        if (cJSON_IsObject(get(r, KEY(PGBENCH))))
            a->cfg = util_must(cJSON_Duplicate(get(r, KEY(PGBENCH)), 1));
        if (cJSON_IsObject(get(r, KEY(INIT))))
            a->init = util_must(cJSON_Duplicate(get(r, KEY(INIT)), 1));
    }
    if (!a->user && cJSON_IsString(get(r, KEY(USER))))
        a->user = util_xstrdup(get(r, KEY(USER))->valuestring);
}

void bench_agg_add(struct bench_agg *a, const cJSON *r)
{
    size_t i = a->n++;
    if (a->err[0] || (r && agg_refuse(a, r, i)))
        return;
    cJSON *w = cJSON_CreateObject();
    cJSON_AddItemToArray(a->workers, w);
    worker_entry(w, r, i);
    if (!r) {
        a->top.complete = false;
        return;
    }
    agg_firsts(a, r);
    worker_top(a->errs, &a->top, r, i);
    config_add(&a->config, r);
    if (cJSON_IsObject(get(r, KEY(SUMMARY))))
        a->any_summary = true;
    summary_add(&a->sum, r);
    statements_add(a->statements, r);
    scripts_add(a->scripts, r);
    timeline_add(&a->timeline, r);
    (void)bench_latseries_merge_add(&a->series, get(r, KEY(LATENCY_SERIES)));
    warmup_add(a->warm, r);
    fio_add(&a->fio, r);
    window_add(&a->window, r);
    diag_add(&a->diag, r);
    pct_add(a->pct, r);
}

/* The sections of a pgbench load (only when a worker had a summary). */
static void agg_put_load(cJSON *out, struct bench_agg *a)
{
    if (!a->any_summary)
        return;
    summary_put(out, &a->sum);
    weighted_put(out, KEY(STATEMENTS), a->statements, KEY(STATEMENTS_LATENCY_MS), true);
    weighted_put(out, KEY(SCRIPTS), a->scripts, KEY(SCRIPTS_LATENCY_AVG_MS), false);
    a->statements = a->scripts = NULL;
    timeline_put(out, &a->timeline);
    cJSON *m = bench_latseries_merge_json(a->series, false);
    if (m)
        cJSON_AddItemToObject(out, KEY(LATENCY_SERIES), m);
    warmup_put(out, a->warm);
}

cJSON *bench_agg_finish(struct bench_agg *a, char *err, size_t errlen)
{
    if (a->err[0] || !a->kind) {
        (void)util_errf(err, errlen, "%s", a->err[0] ? a->err : "no worker result to aggregate");
        return NULL;
    }
    struct bench_result_meta m = {
        .kind = a->kind, .user = a->user, .worker = -1, .child_exit = -1, .complete = true};
    cJSON *out = bench_result_new(&m);
    workers_put(out, a->workers, a->errs, &a->top, a->n);
    config_put(out, a->cfg, &a->config);
    a->workers = a->cfg = NULL;
    agg_put_load(out, a);
    if (a->fio)
        cJSON_AddItemToObject(out, KEY(FIO), a->fio);
    a->fio = NULL;
    window_put(out, &a->window);
    if (a->init)
        util_jset(out, KEY(INIT), a->init);
    a->init = NULL;
    diag_put(out, &a->diag);
    pct_put(out, a->pct);
    struct bench_verdict v;
    if (bench_verdict_of(out, &v) == 0)
        (void)bench_put(out, BK_VERDICT, bench_verdict_json(&v));
    (void)util_errf(a->err, sizeof(a->err), "the aggregate was already finished");
    return out;
}

cJSON *bench_aggregate(const cJSON *const *results, size_t n, char *err, size_t errlen)
{
    struct bench_agg *a = bench_agg_new();
    for (size_t i = 0; i < n; i++)
        bench_agg_add(a, results[i]);
    cJSON *out = bench_agg_finish(a, err, errlen);
    bench_agg_free(a);
    return out;
}
