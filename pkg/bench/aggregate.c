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

static void aggregate_summary(cJSON *out, const cJSON *const *rs, size_t n)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddItemToObject(out, KEY(SUMMARY), s);
    struct sum_acc a;
    memset(&a, 0, sizeof(a));
    a.hist_ok = 1;
    a.h = bench_hist_new();
    a.tmp = bench_hist_new();
    for (size_t i = 0; i < n; i++)
        if (rs[i])
            summary_add(&a, rs[i]);
    summary_put_sums(s, &a);
    summary_put_hist(out, s, &a);
    bench_hist_free(a.h);
    bench_hist_free(a.tmp);
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

static void aggregate_timeline(cJSON *out, const cJSON *const *rs, size_t n)
{
    struct tpoint *pts = NULL;
    size_t npts = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        const cJSON *p;
        cJSON_ArrayForEach(p, get(rs[i], KEY(TIMELINE)))
        {
            double t = num(p, KEY(TIMELINE_T));
            if (!isfinite(t) || fabs(t) > 1e12)
                continue;
            long long key = llround(t * 10.0);
            size_t j;
            for (j = npts; j > 0; j--) /* points usually arrive in order: search from the end */
                if (pts[j - 1].key == key)
                    break;
            struct tpoint *tp;
            if (j > 0) {
                tp = &pts[j - 1];
            } else {
                if (npts >= AGG_MAX_TIMELINE)
                    continue;
                if (npts == cap) {
                    cap = cap ? cap * 2 : 64;
                    pts = util_xrealloc(pts, cap * sizeof(*pts));
                }
                tp = &pts[npts++];
                memset(tp, 0, sizeof(*tp));
                tp->key = key;
                tp->t = (double)key / 10.0;
            }
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
    if (npts)
        qsort(pts, npts, sizeof(*pts), cmp_tpoint);
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToObject(out, KEY(TIMELINE), arr);
    for (size_t i = 0; i < npts; i++) {
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
    free(pts);
}

/* ---- latency series, warm-up ---- */

/* The workers' per-interval histograms merged exactly (latseries.h); the aggregate keeps their
 * percentiles, not the buckets (the workers' results keep those). */
static void aggregate_latseries(cJSON *out, const cJSON *const *rs, size_t n)
{
    const cJSON **ser = util_xcalloc(n ? n : 1, sizeof(const cJSON *));
    for (size_t i = 0; i < n; i++)
        ser[i] = get(rs[i], KEY(LATENCY_SERIES));
    cJSON *m = bench_latseries_merge(ser, n, false);
    free(ser);
    if (m)
        cJSON_AddItemToObject(out, KEY(LATENCY_SERIES), m);
}

/* The warm-up section, each row by its merge rule (FIRST, SUM, MIN, MAX, TXMEAN). */
static void aggregate_warmup(cJSON *out, const cJSON *const *rs, size_t n)
{
    const char *sec = bench_fields[BK_WARMUP].path;
    size_t len = strlen(sec);
    cJSON *w = NULL;
    for (size_t k = 0; k < bench_nfields; k++) {
        const struct bench_field *f = &bench_fields[k];
        if (!f->path || strncmp(f->path, sec, len) != 0 || f->path[len] != '.')
            continue;
        struct acc a = {0};
        struct pool p = {0};
        double first = NAN, lo = NAN;
        for (size_t i = 0; i < n; i++) {
            double v = num(get(rs[i], KEY(WARMUP)), bench_key(k));
            if (!isfinite(v))
                continue;
            first = isfinite(first) ? first : v;
            lo = v < lo || !isfinite(lo) ? v : lo;
            acc_add(&a, v);
            pool_add(&p, v, 0,
                     num(get(rs[i], KEY(SUMMARY)), KEY(SUMMARY_TRANSACTIONS_PROCESSED)) +
                         num(get(rs[i], KEY(WARMUP)), KEY(WARMUP_TRANSACTIONS)));
        }
        if (!a.n)
            continue;
        double v = f->merge == BM_SUM      ? acc_sum(&a)
                   : f->merge == BM_MAX    ? acc_max(&a)
                   : f->merge == BM_MIN    ? lo
                   : f->merge == BM_TXMEAN ? pool_mean(&p)
                                           : first;
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

static void aggregate_statements(cJSON *out, const cJSON *const *rs, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToObject(out, KEY(STATEMENTS), arr);
    /* pass 1: union of statements with weighted sums kept in hidden fields */
    for (size_t i = 0; i < n; i++) {
        double w = num(get(rs[i], KEY(SUMMARY)), KEY(SUMMARY_TRANSACTIONS_PROCESSED));
        if (!(w > 0))
            w = 1;
        const cJSON *st;
        cJSON_ArrayForEach(st, get(rs[i], KEY(STATEMENTS)))
        {
            const cJSON *cmd = get(st, KEY(STATEMENTS_COMMAND));
            double script = num(st, KEY(STATEMENTS_SCRIPT)),
                   lat = num(st, KEY(STATEMENTS_LATENCY_MS));
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
                    set_num(o, counts[k],
                            (isfinite(num(o, counts[k])) ? num(o, counts[k]) : 0) + v);
            }
        }
    }
    cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        double w = num(o, "_w");
        set_num(o, KEY(STATEMENTS_LATENCY_MS), w > 0 ? num(o, "_wl") / w : NAN);
        cJSON_DeleteItemFromObjectCaseSensitive(o, "_w");
        cJSON_DeleteItemFromObjectCaseSensitive(o, "_wl");
    }
}

static void aggregate_scripts(cJSON *out, const cJSON *const *rs, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToObject(out, KEY(SCRIPTS), arr);
    for (size_t i = 0; i < n; i++) {
        const cJSON *sc;
        cJSON_ArrayForEach(sc, get(rs[i], KEY(SCRIPTS)))
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
            static const enum bench_field_id sums[] = {
                BK_SCRIPTS_TRANSACTIONS_PROCESSED, BK_SCRIPTS_FAILED_TRANSACTIONS, BK_SCRIPTS_TPS};
            for (size_t k = 0; k < sizeof(sums) / sizeof(sums[0]); k++)
                add_key(o, sc, sums[k]);
            if (tx > 0 && isfinite(num(sc, KEY(SCRIPTS_LATENCY_AVG_MS)))) {
                set_num(o, "_w", num(o, "_w") + tx);
                set_num(o, "_wl", num(o, "_wl") + tx * num(sc, KEY(SCRIPTS_LATENCY_AVG_MS)));
            }
            set_num(o, KEY(SCRIPTS_LATENCY_STDDEV_MS),
                    NAN); /* per-script stddev cannot be pooled exactly here */
        }
    }
    cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        double w = num(o, "_w");
        if (w > 0 && isfinite(num(o, "_wl")))
            set_num(o, KEY(SCRIPTS_LATENCY_AVG_MS), num(o, "_wl") / w);
        cJSON_DeleteItemFromObjectCaseSensitive(o, "_w");
        cJSON_DeleteItemFromObjectCaseSensitive(o, "_wl");
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

static void aggregate_fio(cJSON *out, const cJSON *const *rs, size_t n)
{
    cJSON *fio = NULL, *jobs = NULL;
    const char *k_name = KEY(FIO_JOBS_NAME);
    for (size_t i = 0; i < n; i++) {
        const cJSON *f = get(rs[i], KEY(FIO));
        if (!cJSON_IsObject(f))
            continue;
        if (!fio) {
            fio = cJSON_CreateObject();
            cJSON_AddItemToObject(out, KEY(FIO), fio);
            const cJSON *v = get(f, KEY(FIO_VERSION));
            if (cJSON_IsString(v))
                util_jset_str(fio, KEY(FIO_VERSION), v->valuestring);
            jobs = cJSON_AddArrayToObject(fio, KEY(FIO_JOBS));
        }
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
static void aggregate_window(cJSON *out, const cJSON *const *rs, size_t n)
{
    struct acc late = {0}, end = {0}, first_start = {0}, last_end = {0}, seen = {0};
    const cJSON *barrier = NULL;
    for (size_t i = 0; i < n; i++) {
        const cJSON *b = bench_get(rs[i], BK_WINDOW_BARRIER);
        if (!b)
            continue;
        if (!barrier)
            barrier = b;
        double l = bench_num(rs[i], BK_WINDOW_LATE_SECONDS);
        double e = bench_num(rs[i], BK_WINDOW_END_SECONDS);
        acc_add(&late, l);
        acc_add(&first_start, isfinite(l) ? -l : NAN);
        acc_add(&end, isfinite(e) ? -e : NAN);
        acc_add(&last_end, e);
        acc_add(&seen, bench_num(rs[i], BK_WINDOW_SEEN_SECONDS));
    }
    if (!barrier || !late.n || !end.n)
        return;
    double start = acc_max(&late), stop = -acc_max(&end);
    double whole = acc_max(&last_end) + acc_max(&first_start);
    double common = stop > start ? stop - start : 0;
    if (bench_put(out, BK_WINDOW_BARRIER, cJSON_Duplicate(barrier, 0)))
        return;
    (void)bench_put(out, BK_WINDOW_LATE_SECONDS, cJSON_CreateNumber(start));
    (void)bench_put(out, BK_WINDOW_END_SECONDS, cJSON_CreateNumber(stop));
    if (seen.n)
        (void)bench_put(out, BK_WINDOW_SEEN_SECONDS, cJSON_CreateNumber(acc_max(&seen)));
    (void)bench_put(out, BK_WINDOW_SECONDS, cJSON_CreateNumber(round(common * 1e3) / 1e3));
    (void)bench_put(out, BK_WINDOW_COVERAGE_PCT,
                    cJSON_CreateNumber(whole > 0 ? round(common / whole * 1000.0) / 10.0 : 100.0));
}

/* ---- top level ---- */

/* The first valid result, or NULL with err filled: a result that fails validation, kinds that
 * differ, or none at all. */
static const cJSON *check_inputs(const cJSON *const *results, size_t n, char *err, size_t errlen)
{
    const cJSON *first = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!results[i])
            continue;
        if (bench_result_validate(results[i], err, errlen)) {
            char inner[200];
            (void)snprintf(inner, sizeof(inner), "%s", err ? err : "invalid");
            util_errf(err, errlen, "worker result %zu: %s", i, inner);
            return NULL;
        }
        const char *k0 = first ? get(first, KEY(KIND))->valuestring : NULL;
        const char *k = get(results[i], KEY(KIND))->valuestring;
        if (!first) {
            first = results[i];
        } else if (strcmp(k0, k) != 0) {
            util_errf(err, errlen, "worker results have different kinds (%s, %s)", k0, k);
            return NULL;
        }
    }
    if (!first)
        util_errf(err, errlen, "no worker result to aggregate");
    return first;
}

/* What the workers loop gathers for the top-level fields. */
struct top_acc {
    bool complete;
    double exit_code;
    const char *start, *end; /* borrowed from the inputs */
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

/* Worker i's result into the top-level fields, its errors prefixed "worker N: " (capped). */
static void worker_top(cJSON *out, struct top_acc *t, const cJSON *r, size_t i)
{
    if (!cJSON_IsTrue(get(r, KEY(COMPLETE))))
        t->complete = false;
    double ec = num(r, KEY(EXIT_CODE));
    if (isfinite(ec) && ec > t->exit_code)
        t->exit_code = ec;
    const cJSON *st = get(r, KEY(START_TIME)), *et = get(r, KEY(END_TIME));
    if (cJSON_IsString(st) && (!t->start || strcmp(st->valuestring, t->start) < 0))
        t->start = st->valuestring;
    if (cJSON_IsString(et) && (!t->end || strcmp(et->valuestring, t->end) > 0))
        t->end = et->valuestring;
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
        bench_result_add_error(out, buf);
        t->nerr++;
    }
}

/* "workers", complete, exitCode, startTime/endTime, workerCount, errors and dropped.errors. */
static void aggregate_workers(cJSON *out, const cJSON *const *results, size_t n)
{
    struct top_acc t = {.complete = true};
    cJSON *workers = cJSON_CreateArray();
    cJSON_AddItemToObject(out, KEY(WORKERS), workers);
    for (size_t i = 0; i < n; i++) {
        cJSON *w = cJSON_CreateObject();
        cJSON_AddItemToArray(workers, w);
        worker_entry(w, results[i], i);
        if (results[i])
            worker_top(out, &t, results[i], i);
        else
            t.complete = false;
    }
    util_jset(out, KEY(COMPLETE), cJSON_CreateBool(t.complete));
    set_num(out, KEY(EXIT_CODE), t.exit_code);
    if (t.start)
        util_jset(out, KEY(START_TIME), cJSON_CreateString(t.start));
    if (t.end)
        util_jset(out, KEY(END_TIME), cJSON_CreateString(t.end));
    set_num(out, KEY(WORKER_COUNT), (double)n);
    if (t.dropped) {
        cJSON *d = cJSON_CreateObject();
        set_num(d, KEY(DROPPED_ERRORS), (double)t.dropped);
        util_jset(out, KEY(DROPPED), d);
    }
}

/* pgbench configuration: the first worker's; clients, threads and the rate (each worker's share of
 * the run's) summed. */
static void aggregate_config(cJSON *out, const cJSON *first, const cJSON *const *rs, size_t n)
{
    const cJSON *cfg = get(first, KEY(PGBENCH));
    if (!cJSON_IsObject(cfg))
        return;
    cJSON *c = util_must(cJSON_Duplicate(cfg, 1));
    struct acc clients = {0}, threads = {0}, rate = {0};
    for (size_t i = 0; i < n; i++) {
        acc_add(&clients, num(get(rs[i], KEY(PGBENCH)), KEY(PGBENCH_CLIENTS)));
        acc_add(&threads, num(get(rs[i], KEY(PGBENCH)), KEY(PGBENCH_THREADS)));
        acc_add(&rate, num(get(rs[i], KEY(PGBENCH)), KEY(PGBENCH_RATE)));
    }
    set_num(c, KEY(PGBENCH_CLIENTS), acc_sum(&clients));
    set_num(c, KEY(PGBENCH_THREADS), acc_sum(&threads));
    if (get(cfg, KEY(PGBENCH_RATE))) /* shares are whole thousandths of a tps */
        set_num(c, KEY(PGBENCH_RATE), round(acc_sum(&rate) * 1000) / 1000);
    cJSON_AddItemToObject(out, KEY(PGBENCH), c);
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

/* A section merged worst-case over the workers (client, network: the busiest, the slowest). */
static void merge_section_worst(cJSON *out, const cJSON *const *rs, size_t n,
                                enum bench_field_id id)
{
    cJSON *m = NULL;
    for (size_t i = 0; i < n; i++) {
        const cJSON *x = rs[i] ? bench_get(rs[i], id) : NULL;
        if (!cJSON_IsObject(x))
            continue;
        if (!m)
            m = util_must(cJSON_Duplicate(x, 1));
        else
            merge_worst(m, x);
    }
    if (m)
        (void)bench_put(out, id, m);
}

/* server and serverStats (the first worker's), waitEvents summed with their shares, the runner's
 * side worst-case, checks. */
static void aggregate_diagnostics(cJSON *out, const cJSON *const *rs, size_t n)
{
    const cJSON *server = NULL, *stats = NULL;
    cJSON *wait = NULL, *checks = NULL;
    merge_section_worst(out, rs, n, BK_CLIENT);
    merge_section_worst(out, rs, n, BK_NETWORK);
    for (size_t i = 0; i < n; i++) {
        if (!rs[i])
            continue;
        if (!server && cJSON_IsObject(get(rs[i], KEY(SERVER))))
            server = get(rs[i], KEY(SERVER));
        if (!stats && cJSON_IsObject(get(rs[i], KEY(SERVER_STATS))))
            stats = get(rs[i], KEY(SERVER_STATS));
        const cJSON *we = get(rs[i], KEY(WAIT_EVENTS));
        if (cJSON_IsObject(we) && !wait)
            wait = util_must(cJSON_Duplicate(we, 1));
        else if (cJSON_IsObject(we))
            merge_sum(wait, we);
        merge_checks(&checks, get(rs[i], KEY(CHECKS)));
    }
    if (server)
        util_jset(out, KEY(SERVER), cJSON_Duplicate(server, 1));
    if (stats)
        util_jset(out, KEY(SERVER_STATS), cJSON_Duplicate(stats, 1));
    if (wait) {
        add_wait_shares(wait);
        util_jset(out, KEY(WAIT_EVENTS), wait);
    }
    add_littles_law(&checks, out);
    if (checks)
        util_jset(out, KEY(CHECKS), checks);
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
 * count. Only the rows status shows are filled. */
static void percentiles_from_workers(cJSON *out, const cJSON *const *rs, size_t n)
{
    if (!bench_get(out, BK_SUMMARY))
        return;
    for (size_t k = 0; k < bench_nfields; k++) {
        enum bench_field_id id = (enum bench_field_id)k;
        if (!from_workers_row(k) || bench_get(out, id))
            continue;
        double v = NAN;
        int from = 0;
        bool complete = true;
        for (size_t i = 0; i < n && complete; i++) {
            if (!rs[i] || !(bench_num(rs[i], BK_SUMMARY_TRANSACTIONS_PROCESSED) > 0))
                continue;
            double x = bench_num(rs[i], id);
            if (!isfinite(x))
                complete = false;
            else if (!(x <= v))
                v = x;
            from++;
        }
        if (complete && from > 0)
            (void)bench_put(out, id, cJSON_CreateNumber(v));
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

cJSON *bench_aggregate(const cJSON *const *results, size_t n, char *err, size_t errlen)
{
    const cJSON *first = check_inputs(results, n, err, errlen);
    if (!first)
        return NULL;
    struct bench_result_meta m = {.kind = get(first, KEY(KIND))->valuestring,
                                  .worker = -1,
                                  .child_exit = -1,
                                  .complete = true};
    for (size_t i = 0; i < n && !m.user; i++) /* the first worker that connected */
        if (results[i] && cJSON_IsString(get(results[i], KEY(USER))))
            m.user = get(results[i], KEY(USER))->valuestring;
    cJSON *out = bench_result_new(&m);
    aggregate_workers(out, results, n);
    aggregate_config(out, first, results, n);
    bool any_summary = false;
    for (size_t i = 0; i < n; i++)
        if (cJSON_IsObject(get(results[i], KEY(SUMMARY))))
            any_summary = true;
    if (any_summary) {
        aggregate_summary(out, results, n);
        aggregate_statements(out, results, n);
        aggregate_scripts(out, results, n);
        aggregate_timeline(out, results, n);
        aggregate_latseries(out, results, n);
        aggregate_warmup(out, results, n);
    }
    aggregate_fio(out, results, n);
    aggregate_window(out, results, n);
    const cJSON *init = get(first, KEY(INIT));
    if (cJSON_IsObject(init))
        util_jset(out, KEY(INIT), cJSON_Duplicate(init, 1));
    aggregate_diagnostics(out, results, n);
    percentiles_from_workers(out, results, n);
    struct bench_verdict v;
    if (bench_verdict_of(out, &v) == 0)
        (void)bench_put(out, BK_VERDICT, bench_verdict_json(&v));
    return out;
}
