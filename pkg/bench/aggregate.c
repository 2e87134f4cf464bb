/* Aggregation of worker results into one result (definitions in aggregate.h). */
#include "pkg/bench/aggregate.h"
#include "pkg/util/err.h"
#include "pkg/bench/fields.h"
#include "pkg/bench/histogram.h"
#include "pkg/bench/result.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AGG_MAX_ERRORS 200
#define AGG_MAX_TIMELINE 86400

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = get(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void set_num(cJSON *o, const char *k, double v)
{
    cJSON *c = isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
    if (!c)
        return;
    if (get(o, k))
        cJSON_ReplaceItemInObjectCaseSensitive(o, k, c);
    else
        cJSON_AddItemToObject(o, k, c);
}

static void set_item(cJSON *o, const char *k, cJSON *c)
{
    if (!c)
        return;
    if (get(o, k))
        cJSON_ReplaceItemInObjectCaseSensitive(o, k, c);
    else
        cJSON_AddItemToObject(o, k, c);
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

/* Recursively sums numbers of src into dst (objects merged by key). */
static void merge_sum(cJSON *dst, const cJSON *src)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, src)
    {
        if (!s->string)
            continue;
        cJSON *d = cJSON_GetObjectItemCaseSensitive(dst, s->string);
        if (!d) {
            cJSON *c = cJSON_Duplicate(s, 1);
            if (c)
                cJSON_AddItemToObject(dst, s->string, c);
        } else if (cJSON_IsNumber(d) && cJSON_IsNumber(s)) {
            cJSON_SetNumberValue(d, d->valuedouble + s->valuedouble);
        } else if (cJSON_IsObject(d) && cJSON_IsObject(s)) {
            merge_sum(d, s);
        }
    }
}

/* Worst-case merge: numbers max, booleans AND, arrays concatenated (capped), objects recursed. */
static void merge_worst(cJSON *dst, const cJSON *src)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, src)
    {
        if (!s->string)
            continue;
        cJSON *d = cJSON_GetObjectItemCaseSensitive(dst, s->string);
        if (!d || cJSON_IsNull(d)) {
            cJSON *c = cJSON_Duplicate(s, 1);
            if (c)
                set_item(dst, s->string, c);
        } else if (cJSON_IsNumber(d) && cJSON_IsNumber(s)) {
            if (s->valuedouble > d->valuedouble)
                cJSON_SetNumberValue(d, s->valuedouble);
        } else if (cJSON_IsBool(d) && cJSON_IsBool(s)) {
            if (cJSON_IsTrue(d) && cJSON_IsFalse(s))
                set_item(dst, s->string, cJSON_CreateFalse());
        } else if (cJSON_IsArray(d) && cJSON_IsArray(s)) {
            const cJSON *x;
            cJSON_ArrayForEach(x, s)
            {
                if (cJSON_GetArraySize(d) >= 100000)
                    break;
                cJSON *c = cJSON_Duplicate(x, 1);
                if (c)
                    cJSON_AddItemToArray(d, c);
            }
        } else if (cJSON_IsObject(d) && cJSON_IsObject(s)) {
            merge_worst(d, s);
        }
    }
}

static const char *const sum_keys[] = {
    "transactionsProcessed",
    "transactionsTarget",
    "failedTransactions",
    "serializationFailures",
    "deadlockFailures",
    "retried",
    "retries",
    "skipped",
    "aboveLatencyLimit",
    "abortedClients",
    "tps",
    "tpsIncludingConnect",
    "otherFailures",
};

static void aggregate_summary(cJSON *out, const cJSON *const *rs, size_t n)
{
    cJSON *s = cJSON_CreateObject();
    if (!s)
        return;
    cJSON_AddItemToObject(out, "summary", s);
    struct acc sums[sizeof(sum_keys) / sizeof(sum_keys[0])];
    memset(sums, 0, sizeof(sums));
    struct acc init_conn = {0}, lag_max = {0};
    struct pool lat = {0}, conn = {0}, lag = {0};
    int incl_fail = 0, nsum = 0, hist_ok = 1, nhist = 0;
    size_t tips = 0;
    struct bench_hist *h = bench_hist_new(), *tmp = bench_hist_new();
    for (size_t i = 0; i < n; i++) {
        const cJSON *ws = get(rs[i], "summary");
        if (!rs[i])
            continue;
        if (!cJSON_IsObject(ws)) {
            hist_ok = 0;
            continue;
        }
        nsum++;
        for (size_t k = 0; k < sizeof(sum_keys) / sizeof(sum_keys[0]); k++)
            acc_add(&sums[k], num(ws, sum_keys[k]));
        double tx = num(ws, "transactionsProcessed");
        pool_add(&lat, num(ws, "latencyAvgMs"), num(ws, "latencyStddevMs"), tx);
        pool_add(&conn, num(ws, "averageConnectionMs"), 0, tx);
        pool_add(&lag, num(ws, "rateLimitLagAvgMs"), 0, tx);
        acc_add(&init_conn, num(ws, "initialConnectionMs"));
        acc_add(&lag_max, num(ws, "rateLimitLagMaxMs"));
        if (cJSON_IsTrue(get(ws, "latencyIncludesFailures")))
            incl_fail = 1;
        const cJSON *hj = get(rs[i], "histogram");
        if (h && tmp && cJSON_IsObject(hj) && !bench_hist_from_json(tmp, hj)) {
            bench_hist_merge(h, tmp);
            nhist++;
        } else if (!(cJSON_IsObject(ws) && num(ws, "transactionsProcessed") == 0)) {
            hist_ok = 0; /* a worker with transactions but no histogram */
        }
        tips++;
    }
    (void)tips;
    for (size_t k = 0; k < sizeof(sum_keys) / sizeof(sum_keys[0]); k++) {
        /* tpsIncludingConnect only when every worker has it */
        if (!strcmp(sum_keys[k], "tpsIncludingConnect") && sums[k].n != nsum)
            set_num(s, sum_keys[k], NAN);
        else
            set_num(s, sum_keys[k], acc_sum(&sums[k]));
    }
    double processed = acc_sum(&sums[0]), failed = acc_sum(&sums[2]), skipped = acc_sum(&sums[7]);
    double total = processed + failed + (isfinite(skipped) ? skipped : 0);
    set_num(s, "failedPct", isfinite(failed) && total > 0 ? 100.0 * failed / total : NAN);
    cJSON_AddBoolToObject(s, "latencyIncludesFailures", incl_fail);
    set_num(s, "latencyAvgMs", pool_mean(&lat));
    set_num(s, "latencyStddevMs", pool_sd(&lat));
    set_num(s, "initialConnectionMs", acc_max(&init_conn));
    set_num(s, "averageConnectionMs", pool_mean(&conn));
    set_num(s, "rateLimitLagAvgMs", pool_mean(&lag));
    set_num(s, "rateLimitLagMaxMs", acc_max(&lag_max));
    int have = h && hist_ok && nhist > 0 && h->count > 0;
    set_num(s, "latencyP50Ms", have ? (double)bench_hist_percentile(h, 50) / 1000.0 : NAN);
    set_num(s, "latencyP90Ms", have ? (double)bench_hist_percentile(h, 90) / 1000.0 : NAN);
    set_num(s, "latencyP95Ms", have ? (double)bench_hist_percentile(h, 95) / 1000.0 : NAN);
    set_num(s, "latencyP99Ms", have ? (double)bench_hist_percentile(h, 99) / 1000.0 : NAN);
    set_num(s, "latencyP999Ms", have ? (double)bench_hist_percentile(h, 99.9) / 1000.0 : NAN);
    set_num(s, "latencyMaxMs", have ? (double)bench_hist_max(h) / 1000.0 : NAN);
    set_num(s, "latencyMinMs", have ? (double)bench_hist_min(h) / 1000.0 : NAN);
    set_num(s, "histogramCount", have ? (double)h->count : NAN);
    set_item(out, "histogram", have ? bench_hist_to_json(h) : cJSON_CreateNull());
    bench_hist_free(h);
    bench_hist_free(tmp);
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
        cJSON_ArrayForEach(p, get(rs[i], "timeline"))
        {
            double t = num(p, "t");
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
                    size_t nc = cap ? cap * 2 : 64;
                    struct tpoint *np = realloc(pts, nc * sizeof(*np));
                    if (!np)
                        goto out;
                    pts = np;
                    cap = nc;
                }
                tp = &pts[npts++];
                memset(tp, 0, sizeof(*tp));
                tp->key = key;
                tp->t = (double)key / 10.0;
            }
            double tps = num(p, "tps");
            acc_add(&tp->tps, tps);
            acc_add(&tp->failed, num(p, "failed"));
            acc_add(&tp->lag, num(p, "lagMs"));
            acc_add(&tp->skipped, num(p, "skipped"));
            acc_add(&tp->retried, num(p, "retried"));
            acc_add(&tp->retries, num(p, "retries"));
            pool_add(&tp->lat, num(p, "latencyMs"), num(p, "stddevMs"), tps > 0 ? tps : 1e-9);
            tp->workers++;
        }
    }
    if (npts)
        qsort(pts, npts, sizeof(*pts), cmp_tpoint);
out:;
    cJSON *arr = cJSON_CreateArray();
    if (!arr) {
        free(pts);
        return;
    }
    cJSON_AddItemToObject(out, "timeline", arr);
    for (size_t i = 0; i < npts; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToArray(arr, o);
        set_num(o, "t", pts[i].t);
        set_num(o, "tps", acc_sum(&pts[i].tps));
        set_num(o, "latencyMs", pool_mean(&pts[i].lat));
        set_num(o, "stddevMs", pool_sd(&pts[i].lat));
        set_num(o, "failed", acc_sum(&pts[i].failed));
        set_num(o, "lagMs", acc_max(&pts[i].lag));
        set_num(o, "skipped", acc_sum(&pts[i].skipped));
        set_num(o, "retried", acc_sum(&pts[i].retried));
        set_num(o, "retries", acc_sum(&pts[i].retries));
        set_num(o, "workers", pts[i].workers);
    }
    free(pts);
}

/* ---- statements / scripts ---- */

static cJSON *find_stmt(cJSON *arr, double script, const char *command)
{
    cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        const cJSON *c = get(o, "command");
        if (num(o, "script") == script && cJSON_IsString(c) && !strcmp(c->valuestring, command))
            return o;
    }
    return NULL;
}

static void aggregate_statements(cJSON *out, const cJSON *const *rs, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return;
    cJSON_AddItemToObject(out, "statements", arr);
    /* pass 1: union of statements with weighted sums kept in hidden fields */
    for (size_t i = 0; i < n; i++) {
        double w = num(get(rs[i], "summary"), "transactionsProcessed");
        if (!(w > 0))
            w = 1;
        const cJSON *st;
        cJSON_ArrayForEach(st, get(rs[i], "statements"))
        {
            const cJSON *cmd = get(st, "command");
            double script = num(st, "script"), lat = num(st, "latencyMs");
            if (!cJSON_IsString(cmd) || !isfinite(script))
                continue;
            cJSON *o = find_stmt(arr, script, cmd->valuestring);
            if (!o) {
                if (cJSON_GetArraySize(arr) >= 4096)
                    continue;
                o = cJSON_CreateObject();
                if (!o)
                    return;
                cJSON_AddItemToArray(arr, o);
                set_num(o, "script", script);
                cJSON_AddStringToObject(o, "command", cmd->valuestring);
                set_num(o, "latencyMs", NAN);
                set_num(o, "failures", NAN);
                set_num(o, "retries", NAN);
                set_num(o, "_w", 0);
                set_num(o, "_wl", 0);
            }
            if (isfinite(lat)) {
                set_num(o, "_w", num(o, "_w") + w);
                set_num(o, "_wl", num(o, "_wl") + w * lat);
            }
            static const char *const counts[] = {"failures", "retries"};
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
        set_num(o, "latencyMs", w > 0 ? num(o, "_wl") / w : NAN);
        cJSON_DeleteItemFromObjectCaseSensitive(o, "_w");
        cJSON_DeleteItemFromObjectCaseSensitive(o, "_wl");
    }
}

static void aggregate_scripts(cJSON *out, const cJSON *const *rs, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        return;
    cJSON_AddItemToObject(out, "scripts", arr);
    for (size_t i = 0; i < n; i++) {
        const cJSON *sc;
        cJSON_ArrayForEach(sc, get(rs[i], "scripts"))
        {
            double idx = num(sc, "script");
            if (!isfinite(idx))
                continue;
            cJSON *o = NULL, *x;
            cJSON_ArrayForEach(x, arr) if (num(x, "script") == idx) o = x;
            double tx = num(sc, "transactionsProcessed");
            if (!o) {
                if (cJSON_GetArraySize(arr) >= 1024)
                    continue;
                o = cJSON_Duplicate(sc, 1);
                if (!o)
                    return;
                cJSON_AddItemToArray(arr, o);
                set_num(o, "_w", tx > 0 ? tx : 0);
                set_num(o, "_wl", tx > 0 ? tx * num(sc, "latencyAvgMs") : 0);
                continue;
            }
            static const char *const sums[] = {"transactionsProcessed", "failedTransactions",
                                               "tps"};
            for (int k = 0; k < 3; k++) {
                double a = num(o, sums[k]), b = num(sc, sums[k]);
                set_num(o, sums[k], isfinite(a) && isfinite(b) ? a + b : isfinite(a) ? a : b);
            }
            if (tx > 0 && isfinite(num(sc, "latencyAvgMs"))) {
                set_num(o, "_w", num(o, "_w") + tx);
                set_num(o, "_wl", num(o, "_wl") + tx * num(sc, "latencyAvgMs"));
            }
            set_num(o, "latencyStddevMs",
                    NAN); /* per-script stddev cannot be pooled exactly here */
        }
    }
    cJSON *o;
    cJSON_ArrayForEach(o, arr)
    {
        double w = num(o, "_w");
        if (w > 0 && isfinite(num(o, "_wl")))
            set_num(o, "latencyAvgMs", num(o, "_wl") / w);
        cJSON_DeleteItemFromObjectCaseSensitive(o, "_w");
        cJSON_DeleteItemFromObjectCaseSensitive(o, "_wl");
    }
}

/* ---- fio ---- */

static void aggregate_fio(cJSON *out, const cJSON *const *rs, size_t n)
{
    cJSON *fio = NULL, *jobs = NULL;
    for (size_t i = 0; i < n; i++) {
        const cJSON *f = get(rs[i], "fio");
        if (!cJSON_IsObject(f))
            continue;
        if (!fio) {
            fio = cJSON_CreateObject();
            if (!fio)
                return;
            cJSON_AddItemToObject(out, "fio", fio);
            const cJSON *v = get(f, "version");
            if (cJSON_IsString(v))
                cJSON_AddStringToObject(fio, "version", v->valuestring);
            jobs = cJSON_AddArrayToObject(fio, "jobs");
            if (!jobs)
                return;
        }
        const cJSON *j;
        cJSON_ArrayForEach(j, get(f, "jobs"))
        {
            const cJSON *name = get(j, "name");
            if (!cJSON_IsString(name))
                continue;
            cJSON *o = NULL, *x;
            cJSON_ArrayForEach(x, jobs)
            {
                const cJSON *xn = get(x, "name");
                if (cJSON_IsString(xn) && !strcmp(xn->valuestring, name->valuestring))
                    o = x;
            }
            if (!o) {
                o = cJSON_Duplicate(j, 1);
                if (o)
                    cJSON_AddItemToArray(jobs, o);
                continue;
            }
            static const char *const dirs[] = {"read", "write"};
            for (int d = 0; d < 2; d++) {
                cJSON *od = cJSON_GetObjectItemCaseSensitive(o, dirs[d]);
                const cJSON *jd = get(j, dirs[d]);
                if (!cJSON_IsObject(jd))
                    continue;
                if (!cJSON_IsObject(od)) {
                    set_item(o, dirs[d], cJSON_Duplicate(jd, 1));
                    continue;
                }
                static const char *const sums[] = {"iops", "bwKiBs", "ioKiB", "totalIos"};
                for (int k = 0; k < 4; k++)
                    set_num(od, sums[k], num(od, sums[k]) + num(jd, sums[k]));
                static const char *const lats[] = {"clatUs", "latUs"};
                for (int k = 0; k < 2; k++) {
                    cJSON *ol = cJSON_GetObjectItemCaseSensitive(od, lats[k]);
                    if (cJSON_IsObject(ol) && cJSON_IsObject(get(jd, lats[k]))) {
                        double samples = num(ol, "samples") + num(get(jd, lats[k]), "samples");
                        merge_worst(ol, get(jd, lats[k]));
                        set_num(ol, "samples", samples);
                    }
                }
            }
            cJSON *os = cJSON_GetObjectItemCaseSensitive(o, "sync");
            if (cJSON_IsObject(os) && cJSON_IsObject(get(j, "sync"))) {
                double samples = num(os, "samples") + num(get(j, "sync"), "samples");
                merge_worst(os, get(j, "sync"));
                set_num(os, "samples", samples);
            } else if (!cJSON_IsObject(os) && cJSON_IsObject(get(j, "sync"))) {
                set_item(o, "sync", cJSON_Duplicate(get(j, "sync"), 1));
            }
            double e = num(o, "error"), je = num(j, "error");
            if (!(e != 0) && isfinite(je) && je != 0)
                set_num(o, "error", je);
        }
    }
}

/* ---- diagnostics ---- */

/* waitEvents.sharesPct: each event's share of all observations of the load's backends. */
static void add_wait_shares(cJSON *wait)
{
    const struct bench_field *ev = bench_field_find("waitEvents.events", false);
    const struct bench_field *total = bench_field_find("waitEvents.backendSamples", false);
    const struct bench_field *shares = bench_field_find("waitEvents.sharesPct", false);
    const cJSON *events = bench_json_at(wait, bench_field_key(ev->path));
    double n = num(wait, bench_field_key(total->path));
    cJSON *out = cJSON_CreateObject();
    if (!out)
        return;
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        if (cJSON_IsNumber(e) && n > 0)
            set_num(out, e->string, round(e->valuedouble / n * 100.0 * 10.0) / 10.0);
    }
    set_item(wait, bench_field_key(shares->path), out);
}

/* The common window: from the latest start to the earliest end (every worker ran during it),
 * and its share of the whole run, from the first start to the last end. */
static void aggregate_window(cJSON *out, const cJSON *const *rs, size_t n)
{
    struct acc late = {0}, end = {0}, first_start = {0}, last_end = {0};
    const cJSON *barrier = NULL;
    for (size_t i = 0; i < n; i++) {
        const cJSON *b = bench_get(rs[i], "window.barrier");
        if (!b)
            continue;
        if (!barrier)
            barrier = b;
        double l = num(bench_get(rs[i], "window"), bench_field_key("window.lateSeconds"));
        double e = num(bench_get(rs[i], "window"), bench_field_key("window.endSeconds"));
        acc_add(&late, l);
        acc_add(&first_start, isfinite(l) ? -l : NAN);
        acc_add(&end, isfinite(e) ? -e : NAN);
        acc_add(&last_end, e);
    }
    if (!barrier || !late.n || !end.n)
        return;
    double start = acc_max(&late), stop = -acc_max(&end);
    double whole = acc_max(&last_end) + acc_max(&first_start);
    double common = stop > start ? stop - start : 0;
    if (bench_put(out, "window.barrier", cJSON_Duplicate(barrier, 0)))
        return;
    (void)bench_put(out, "window.lateSeconds", cJSON_CreateNumber(start));
    (void)bench_put(out, "window.endSeconds", cJSON_CreateNumber(stop));
    (void)bench_put(out, "window.seconds", cJSON_CreateNumber(round(common * 1e3) / 1e3));
    (void)bench_put(out, "window.coveragePct",
                    cJSON_CreateNumber(whole > 0 ? round(common / whole * 1000.0) / 10.0 : 100.0));
}

/* ---- top level ---- */

cJSON *bench_aggregate(const cJSON *const *results, size_t n, char *err, size_t errlen)
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
        if (!first)
            first = results[i];
        else if (strcmp(get(first, "kind")->valuestring, get(results[i], "kind")->valuestring) !=
                 0) {
            util_errf(err, errlen, "worker results have different kinds (%s, %s)",
                      get(first, "kind")->valuestring, get(results[i], "kind")->valuestring);
            return NULL;
        }
    }
    if (!first) {
        util_errf(err, errlen, "no worker result to aggregate");
        return NULL;
    }
    struct bench_result_meta m = {
        .kind = get(first, "kind")->valuestring, .worker = -1, .child_exit = -1, .complete = true};
    cJSON *out = bench_result_new(&m);
    if (!out) {
        util_errf(err, errlen, "out of memory");
        return NULL;
    }
    bool complete = true;
    double exit_code = 0;
    const char *start = NULL, *end = NULL;
    cJSON *workers = cJSON_CreateArray();
    if (workers)
        cJSON_AddItemToObject(out, "workers", workers);
    size_t nerr = 0, dropped = 0;
    for (size_t i = 0; i < n; i++) {
        const cJSON *r = results[i];
        cJSON *w = cJSON_CreateObject();
        if (w && workers)
            cJSON_AddItemToArray(workers, w);
        else
            cJSON_Delete(w);
        double idx = r ? num(r, "worker") : NAN;
        if (w)
            set_num(w, "index", isfinite(idx) ? idx : (double)i);
        if (!r) {
            complete = false;
            if (w) {
                cJSON_AddBoolToObject(w, "complete", false);
                cJSON_AddStringToObject(w, "message", "no result");
            }
            continue;
        }
        if (!cJSON_IsTrue(get(r, "complete")))
            complete = false;
        double ec = num(r, "exitCode");
        if (isfinite(ec) && ec > exit_code)
            exit_code = ec;
        const cJSON *st = get(r, "startTime"), *et = get(r, "endTime");
        if (cJSON_IsString(st) && (!start || strcmp(st->valuestring, start) < 0))
            start = st->valuestring;
        if (cJSON_IsString(et) && (!end || strcmp(et->valuestring, end) > 0))
            end = et->valuestring;
        const cJSON *s = get(r, "summary");
        if (w) {
            cJSON_AddBoolToObject(w, "complete", cJSON_IsTrue(get(r, "complete")));
            set_num(w, "exitCode", ec);
            set_num(w, "tps", num(s, "tps"));
            set_num(w, "transactionsProcessed", num(s, "transactionsProcessed"));
            set_num(w, "failedTransactions", num(s, "failedTransactions"));
            set_num(w, "abortedClients", num(s, "abortedClients"));
            set_num(w, "latencyAvgMs", num(s, "latencyAvgMs"));
            const cJSON *win = bench_get(r, "window");
            set_num(w, bench_field_key("workers[].lateSeconds"),
                    num(win, bench_field_key("window.lateSeconds")));
            set_num(w, bench_field_key("workers[].endSeconds"),
                    num(win, bench_field_key("window.endSeconds")));
        }
        const cJSON *e;
        cJSON_ArrayForEach(e, get(r, "errors"))
        {
            if (!cJSON_IsString(e))
                continue;
            if (nerr >= AGG_MAX_ERRORS) {
                dropped++;
                continue;
            }
            char buf[600];
            (void)snprintf(buf, sizeof(buf), "worker %g: %s", isfinite(idx) ? idx : (double)i,
                           e->valuestring);
            bench_result_add_error(out, buf);
            nerr++;
        }
    }
    set_item(out, "complete", cJSON_CreateBool(complete));
    set_num(out, "exitCode", exit_code);
    if (start)
        set_item(out, "startTime", cJSON_CreateString(start));
    if (end)
        set_item(out, "endTime", cJSON_CreateString(end));
    set_num(out, "workerCount", (double)n);
    if (dropped) {
        cJSON *d = cJSON_CreateObject();
        if (d) {
            set_num(d, "errors", (double)dropped);
            set_item(out, "dropped", d);
        }
    }

    /* pgbench configuration: first worker's, clients and threads summed */
    const cJSON *cfg = get(first, "pgbench");
    if (cJSON_IsObject(cfg)) {
        cJSON *c = cJSON_Duplicate(cfg, 1);
        struct acc clients = {0}, threads = {0};
        for (size_t i = 0; i < n; i++) {
            acc_add(&clients, num(get(results[i], "pgbench"), "clients"));
            acc_add(&threads, num(get(results[i], "pgbench"), "threads"));
        }
        if (c) {
            set_num(c, "clients", acc_sum(&clients));
            set_num(c, "threads", acc_sum(&threads));
            cJSON_AddItemToObject(out, "pgbench", c);
        }
    }
    bool any_summary = false;
    for (size_t i = 0; i < n; i++)
        if (cJSON_IsObject(get(results[i], "summary")))
            any_summary = true;
    if (any_summary) {
        aggregate_summary(out, results, n);
        aggregate_statements(out, results, n);
        aggregate_scripts(out, results, n);
        aggregate_timeline(out, results, n);
    }
    aggregate_fio(out, results, n);
    aggregate_window(out, results, n);
    const cJSON *init = get(first, "init");
    if (cJSON_IsObject(init))
        set_item(out, "init", cJSON_Duplicate(init, 1));
    const cJSON *server = NULL;
    cJSON *wait = NULL;
    cJSON *checks = NULL;
    for (size_t i = 0; i < n; i++) {
        const cJSON *r = results[i];
        if (!r)
            continue;
        if (!server && cJSON_IsObject(get(r, "server")))
            server = get(r, "server");
        if (cJSON_IsObject(get(r, "waitEvents"))) {
            if (!wait)
                wait = cJSON_Duplicate(get(r, "waitEvents"), 1);
            else
                merge_sum(wait, get(r, "waitEvents"));
        }
        const cJSON *ck = get(r, "checks");
        if (cJSON_IsObject(get(ck, "dataset")) && (!checks || !get(checks, "dataset"))) {
            if (!checks)
                checks = cJSON_CreateObject();
            if (checks)
                set_item(checks, "dataset", cJSON_Duplicate(get(ck, "dataset"), 1));
        }
        if (cJSON_IsObject(get(ck, "replica"))) {
            if (!checks)
                checks = cJSON_CreateObject();
            cJSON *rep = checks ? cJSON_GetObjectItemCaseSensitive(checks, "replica") : NULL;
            if (checks && !rep)
                set_item(checks, "replica", cJSON_Duplicate(get(ck, "replica"), 1));
            else if (rep)
                merge_worst(rep, get(ck, "replica"));
        }
    }
    if (server)
        set_item(out, "server", cJSON_Duplicate(server, 1));
    if (wait) {
        add_wait_shares(wait);
        set_item(out, "waitEvents", wait);
    }
    const cJSON *s = get(out, "summary");
    const cJSON *c = get(out, "pgbench");
    if (cJSON_IsObject(s) && isfinite(num(c, "clients"))) {
        cJSON *ll = bench_check_littles_law((int)num(c, "clients"), num(s, "latencyAvgMs"),
                                            num(s, "tps"), isfinite(num(c, "rate")));
        if (ll) {
            if (!checks)
                checks = cJSON_CreateObject();
            if (checks)
                set_item(checks, "littlesLaw", ll);
            else
                cJSON_Delete(ll);
        }
    }
    if (checks)
        set_item(out, "checks", checks);
    return out;
}
