/* BenchmarkRun status: conditions and results. Every status key is a row of the contract table
 * (pkg/bench/fields.def), written and read by its id (bench_status_put, bench_status_get); only
 * the members of a Kubernetes condition (type, status, reason, ...) are spelled here. */
#include "pkg/api/status.h"
#include "pkg/api/placement.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/bench/diag.h"
#include "pkg/bench/fields.h"
#include "pkg/bench/result.h"
#include "pkg/api/manifest.h"
#include "pkg/util/buf.h"
#include "pkg/util/clock.h"

bool api_cond_is_waiting(const char *type)
{
    return type && (strcmp(type, API_COND_WORKERS_BLOCKED) == 0 ||
                    strcmp(type, API_COND_TARGET_UNREACHABLE) == 0);
}

bool api_cond_is_caveat(const char *type)
{
    return type && (strcmp(type, API_COND_WORKERS_SKEWED) == 0 ||
                    strcmp(type, API_COND_RESULT_DETAIL_UNAVAILABLE) == 0 ||
                    strcmp(type, API_COND_WORKERS_SHARE_NODE) == 0);
}

const cJSON *api_cond_get(const cJSON *status, const char *type)
{
    const cJSON *conds = bench_status_get(status, BK_STATUS_CONDITIONS);
    const cJSON *c;
    cJSON_ArrayForEach(c, conds)
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "type");
        if (cJSON_IsString(t) && strcmp(t->valuestring, type) == 0)
            return c;
    }
    return NULL;
}

static bool str_eq(const cJSON *o, const char *k, const char *v)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(x) && strcmp(x->valuestring, v) == 0;
}

bool api_cond_set(cJSON *status, const char *type, const char *cstatus, const char *reason,
                  const char *message, long generation, double now)
{
    cJSON *conds = (cJSON *)bench_status_get(status, BK_STATUS_CONDITIONS);
    if (!cJSON_IsArray(conds)) {
        conds = cJSON_CreateArray();
        (void)bench_status_put(status, BK_STATUS_CONDITIONS, conds);
    }
    cJSON *c = (cJSON *)api_cond_get(status, type);
    char msg[API_MAX_MESSAGE];
    (void)snprintf(msg, sizeof(msg), "%s", message ? message : "");
    if (c && str_eq(c, "status", cstatus) && str_eq(c, "reason", reason) &&
        str_eq(c, "message", msg)) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(c, "observedGeneration");
        if (cJSON_IsNumber(g) && (long)g->valuedouble == generation)
            return false;
        util_jset(c, "observedGeneration", cJSON_CreateNumber((double)generation));
        return true;
    }
    bool transition = !c || !str_eq(c, "status", cstatus);
    if (!c) {
        c = cJSON_CreateObject();
        cJSON_AddItemToArray(conds, c);
        util_jset_str(c, "type", type);
    }
    util_jset_str(c, "status", cstatus);
    util_jset_str(c, "reason", reason);
    util_jset_str(c, "message", msg);
    util_jset(c, "observedGeneration", cJSON_CreateNumber((double)generation));
    if (transition || !cJSON_GetObjectItemCaseSensitive(c, "lastTransitionTime")) {
        char ts[40];
        util_rfc3339(now, 0, ts, sizeof(ts));
        util_jset_str(c, "lastTransitionTime", ts);
    }
    return true;
}

/* ---- results ----------------------------------------------------------------------------
 * Everything below copies the aggregate into status through the result contract table
 * (pkg/bench/fields.h): no result key is spelled here. */

/* Numbers go into status at pgbench's own precision (it prints tps with 6 decimals), which
 * also drops the float noise of aggregation (1.4000000000000004 shows as 1.4). */
static double status_precision(double v)
{
    return fabs(v) < 1e9 ? round(v * 1e6) / 1e6 : v;
}

/* The status form of a value, typed as its row says; NULL when the value does not fit the type
 * (a string where a number belongs is dropped rather than written into a typed schema). */
static cJSON *status_value(const struct bench_field *f, const cJSON *v)
{
    switch (f->type) {
    case BF_NUM:
        return cJSON_IsNumber(v) ? cJSON_CreateNumber(status_precision(v->valuedouble)) : NULL;
    case BF_INT:
        return cJSON_IsNumber(v) ? cJSON_CreateNumber(round(v->valuedouble)) : NULL;
    case BF_BOOL:
        return cJSON_IsBool(v) ? cJSON_Duplicate(v, 0) : NULL;
    case BF_STR:
    case BF_TIME: {
        if (!cJSON_IsString(v))
            return NULL;
        char s[API_MAX_MESSAGE];
        (void)snprintf(s, sizeof(s), "%s", v->valuestring);
        return cJSON_CreateString(s);
    }
    case BF_NUMMAP:
    case BF_OBJECT:
    case BF_SECTION:
        return cJSON_IsObject(v) ? cJSON_Duplicate(v, 1) : NULL;
    case BF_NUMLIST:
    case BF_STRLIST:
    case BF_LIST:
        return cJSON_IsArray(v) ? cJSON_Duplicate(v, 1) : NULL;
    case BF_PHASE:
    case BF_INTSTR:
    case BF_CONDITIONS:
    case BF_INTERVAL: /* written by the controllers, never copied from a result */
        return NULL;
    }
    return NULL;
}

/* A row covered by an ancestor that is copied whole (a BF_OBJECT with a status path). */
static bool copied_whole(const struct bench_field *f)
{
    for (size_t i = 0; i < bench_nfields; i++) {
        const struct bench_field *a = &bench_fields[i];
        size_t n = a->status ? strlen(a->status) : 0;
        if (a != f && a->type == BF_OBJECT && n && strncmp(f->status, a->status, n) == 0 &&
            f->status[n] == '.')
            return true;
    }
    return false;
}

/* Copies one item of a list: every row of the list's items. */
static cJSON *project_item(const struct bench_field *list, const cJSON *item)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < bench_nfields; i++) {
        const struct bench_field *f = &bench_fields[i];
        const char *src = f->path ? bench_field_under(f->path, list->path) : NULL;
        const char *dst = f->status ? bench_field_under(f->status, list->status) : NULL;
        const cJSON *v = src && dst ? bench_json_at(item, src) : NULL;
        cJSON *sv = v && !cJSON_IsNull(v) ? status_value(f, v) : NULL;
        if (sv)
            (void)bench_json_put(o, dst, sv);
    }
    return o;
}

/* A list in status: at most max_items, kept from the start or, for downsampled lists (long
 * timelines, replica lag samples), evenly spaced; a list of numbers keeps its numbers. */
static cJSON *project_list(const struct bench_field *list, const cJSON *src)
{
    cJSON *a = cJSON_CreateArray();
    int n = cJSON_GetArraySize(src), max = list->max_items;
    int step = list->downsample ? bench_downsample_step(n, max) : 1;
    for (int i = 0, kept = 0; i < n && kept < max; i += step) {
        const cJSON *item = cJSON_GetArrayItem(src, i);
        if (list->type == BF_NUMLIST && !cJSON_IsNumber(item))
            continue;
        cJSON_AddItemToArray(a, list->type == BF_NUMLIST
                                    ? cJSON_CreateNumber(status_precision(item->valuedouble))
                                    : project_item(list, item));
        kept++;
    }
    return a;
}

/* Copies every result row that has a status path from the aggregate into status. */
static void project(cJSON *status, const cJSON *agg)
{
    for (size_t i = 0; i < bench_nfields; i++) {
        const struct bench_field *f = &bench_fields[i];
        if (!f->path || !f->status || strstr(f->path, "[]") || f->type == BF_SECTION ||
            copied_whole(f))
            continue;
        const cJSON *v = bench_json_at(agg, f->path);
        if (!v || cJSON_IsNull(v))
            continue;
        if (f->type == BF_LIST || (f->type == BF_NUMLIST && f->max_items > 0)) {
            if (cJSON_GetArraySize(v) > 0)
                (void)bench_json_put(status, f->status, project_list(f, v));
            continue;
        }
        if (f->presence == BP_NONZERO && cJSON_IsNumber(v) && v->valuedouble == 0)
            continue;
        cJSON *sv = status_value(f, v);
        if (sv)
            (void)bench_json_put(status, f->status, sv);
    }
}

/* A number at a status path, NAN when absent. */
static double status_num(const cJSON *status, enum bench_field_id id)
{
    const cJSON *v = bench_status_get(status, id);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A number in a list item, NAN when absent. */
static double item_num(const cJSON *item, enum bench_field_id id)
{
    const cJSON *v = bench_status_get(item, id);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The first error line of a result, or NULL. */
static const char *result_error(const cJSON *r)
{
    const cJSON *errs = bench_get(r, BK_ERRORS);
    const cJSON *e = cJSON_GetArrayItem(errs, 0);
    return cJSON_IsString(e) ? e->valuestring : NULL;
}

static bool worker_ok(const struct api_worker *w)
{
    if (!w->result)
        return false;
    const cJSON *c = bench_get(w->result, BK_COMPLETE);
    const cJSON *ec = bench_get(w->result, BK_EXIT_CODE);
    if (!cJSON_IsTrue(c))
        return false;
    if (cJSON_IsNumber(ec) && ec->valuedouble != 0)
        return false;
    return w->exit_code <= 0;
}

/* "ok", or what went wrong; a result that is the compact summary only says so, and why. */
static void worker_message(const struct api_worker *w, char *out, size_t len)
{
    const char *err = w->result ? result_error(w->result) : NULL;
    if (w->result && w->detail_missing) {
        char first[384];
        struct api_worker full = *w;
        full.detail_missing = NULL;
        worker_message(&full, first, sizeof(first));
        const cJSON *kind = bench_get(w->result, BK_KIND);
        bool fio = cJSON_IsString(kind) && strcmp(kind->valuestring, "fio") == 0;
        (void)snprintf(out, len, "%s; summary only, without %s: %s", first,
                       fio ? "fio's latency distributions" : "timeline, statements and histogram",
                       w->detail_missing);
        return;
    }
    if (worker_ok(w))
        (void)snprintf(out, len, "ok");
    else if (!w->pod) /* the reconciler says why when a pod existed, or a Job event says why not */
        (void)snprintf(out, len, "%s",
                       w->error[0] ? w->error : "no pod was created for this worker");
    else if (!w->terminated)
        (void)snprintf(out, len, "pod %s did not finish", w->pod);
    else if (err)
        (void)snprintf(out, len, "exit code %d: %s", w->exit_code, err);
    else if (w->result && !cJSON_IsTrue(bench_get(w->result, BK_COMPLETE)))
        (void)snprintf(out, len, "exit code %d: incomplete result", w->exit_code);
    else if (w->error[0])
        (void)snprintf(out, len, "exit code %d%s%s: %s", w->exit_code, w->reason ? " " : "",
                       w->reason ? w->reason : "", w->error);
    else
        (void)snprintf(out, len, "exit code %d%s%s", w->exit_code, w->reason ? " " : "",
                       w->reason ? w->reason : "");
}

bool api_workers_failure(const struct api_worker *w, int n, char *out, size_t len)
{
    for (int i = 0; i < n; i++) {
        if (worker_ok(&w[i]))
            continue;
        char msg[512];
        worker_message(&w[i], msg, sizeof(msg));
        if (w[i].pod)
            (void)snprintf(out, len, "worker %d (pod %s) failed: %s", w[i].index, w[i].pod, msg);
        else
            (void)snprintf(out, len, "worker %d failed: %s", w[i].index, msg);
        return true;
    }
    if (n == 0) {
        (void)snprintf(out, len, "no worker results");
        return true;
    }
    return false;
}

/* ---- status.result: the result as a person reads it ----------------------------------- */

/* v with thousands separators and no decimals: 2,561. */
static void fmt_grouped(char *out, size_t len, double v)
{
    char digits[32];
    (void)snprintf(digits, sizeof(digits), "%.0f", fabs(v));
    size_t n = strlen(digits), o = 0;
    if (v < 0 && o + 1 < len)
        out[o++] = '-';
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
}

/* Three significant digits (0.412, 1.21, 10.0, 123), grouped above 999. */
static void fmt_sig3(char *out, size_t len, double v)
{
    double a = fabs(v);
    if (a >= 999.5)
        fmt_grouped(out, len, v);
    else
        (void)snprintf(out, len, "%.*f", a >= 99.95 ? 0 : a >= 9.995 ? 1 : a >= 0.9995 ? 2 : 3, v);
}

/* A rate with a k/M suffix: 850, 12.3k, 1.20M. */
static void fmt_rate(char *out, size_t len, double v)
{
    if (v >= 1e6)
        (void)snprintf(out, len, "%.2fM", v / 1e6);
    else if (v >= 1e4)
        (void)snprintf(out, len, "%.1fk", v / 1e3);
    else
        fmt_grouped(out, len, v);
}

void api_status_fmt_tps(char *out, size_t len, double tps)
{
    if (tps >= 99.95)
        fmt_grouped(out, len, tps);
    else
        (void)snprintf(out, len, "%.1f", tps);
}

/* A count as status spells it: grouped (2,400,000). */
static void fmt_count(char *out, size_t len, double v)
{
    if (v >= 100)
        fmt_grouped(out, len, v);
    else
        (void)snprintf(out, len, "%.0f", v);
}

bool api_status_init_progress(const cJSON *status, const char *sep, char *out, size_t len)
{
    const cJSON *step = bench_status_get(status, BK_STATUS_PROGRESS_STEP);
    if (!cJSON_IsString(step))
        return false;
    const cJSON *rows = bench_status_get(status, BK_STATUS_PROGRESS_ROWS);
    const cJSON *total = bench_status_get(status, BK_STATUS_PROGRESS_ROWS_TOTAL);
    const cJSON *rate = bench_status_get(status, BK_STATUS_PROGRESS_ROWS_PER_SECOND);
    const char *src = cJSON_GetStringValue(bench_status_get(status, BK_STATUS_PROGRESS_SOURCE));
    struct buf b = BUF_INIT(len);
    (void)buf_printf(&b, "%s", step->valuestring);
    if (cJSON_IsNumber(rows) && cJSON_IsNumber(total) && total->valuedouble > 0) {
        char r[32], t[32];
        fmt_count(r, sizeof(r), rows->valuedouble);
        fmt_count(t, sizeof(t), total->valuedouble);
        (void)buf_printf(&b, " %.0f %%%s%s of %s rows",
                         floor(rows->valuedouble / total->valuedouble * 100), sep, r, t);
    }
    if (cJSON_IsNumber(rate)) {
        char r[32];
        fmt_count(r, sizeof(r), rate->valuedouble);
        (void)buf_printf(&b, "%s%s rows/s", sep, r);
    }
    if (src && strcmp(src, "database size") == 0)
        (void)buf_printf(&b, "%sestimated from the database size", sep);
    (void)snprintf(out, len, "%s", b.data ? b.data : "");
    buf_free(&b);
    return true;
}

/* "randread 12.3k IOPS · p99 0.41 ms": IOPS of both directions, the sync latency when the job
 * synced (the commit-latency floor a WAL test is for), else the slower direction's clat. */
static int fio_job_line(const cJSON *j, bool named, char *out, size_t len)
{
    char iops[32], lat[32];
    const cJSON *name = bench_status_get(j, BK_FIO_JOBS_NAME);
    double r = item_num(j, BK_FIO_JOBS_READ_IOPS);
    double wr = item_num(j, BK_FIO_JOBS_WRITE_IOPS);
    double sync = item_num(j, BK_FIO_JOBS_SYNC_P99);
    double rl = item_num(j, BK_FIO_JOBS_READ_CLAT_US_P99);
    double wl = item_num(j, BK_FIO_JOBS_WRITE_CLAT_US_P99);
    double clat = isfinite(rl) && (!isfinite(wl) || rl > wl) ? rl : wl;
    fmt_rate(iops, sizeof(iops), (isfinite(r) ? r : 0) + (isfinite(wr) ? wr : 0));
    int n =
        snprintf(out, len, "%s%s%s IOPS", named && cJSON_IsString(name) ? name->valuestring : "",
                 named ? " " : "", iops);
    if (n >= 0 && (size_t)n < len && (isfinite(sync) || isfinite(clat))) {
        fmt_sig3(lat, sizeof(lat), isfinite(sync) ? sync : clat);
        n += snprintf(out + n, len - (size_t)n, " · %sp99 %s µs", isfinite(sync) ? "sync " : "",
                      lat);
    }
    return n;
}

/* status.result (and status.failed) from status.summary or status.fio (already projected). */
static void set_result(cJSON *status)
{
    char line[API_MAX_MESSAGE] = "", a[32], b[32];
    double tps = status_num(status, BK_SUMMARY_TPS);
    double p99 = status_num(status, BK_SUMMARY_LATENCY_P99_MS);
    double failed = status_num(status, BK_SUMMARY_FAILED_TRANSACTIONS);
    double aborted = status_num(status, BK_SUMMARY_ABORTED_CLIENTS);
    const cJSON *jobs = bench_status_get(status, BK_FIO_JOBS);
    if (isfinite(tps)) {
        double bad = (isfinite(failed) ? failed : 0) + (isfinite(aborted) ? aborted : 0);
        util_jset(status, bench_fields[BK_STATUS_FAILED].status, cJSON_CreateNumber(bad));
        api_status_fmt_tps(a, sizeof(a), tps);
        int n = snprintf(line, sizeof(line), "%s tps", a);
        if (isfinite(p99) && n >= 0 && (size_t)n < sizeof(line)) {
            fmt_sig3(b, sizeof(b), p99);
            n += snprintf(line + n, sizeof(line) - (size_t)n, " · p99 %s ms", b);
        }
        if (bad > 0 && n >= 0 && (size_t)n < sizeof(line))
            (void)snprintf(line + n, sizeof(line) - (size_t)n, " · %.0f failed", bad);
    } else if (cJSON_GetArraySize(jobs) > 0) {
        size_t n = 0;
        const cJSON *j;
        cJSON_ArrayForEach(j, jobs)
        {
            if (n && n + 2 < sizeof(line))
                n += (size_t)snprintf(line + n, sizeof(line) - n, "; ");
            int k = fio_job_line(j, cJSON_GetArraySize(jobs) > 1, line + n, sizeof(line) - n);
            if (k < 0 || (size_t)k >= sizeof(line) - n)
                break;
            n += (size_t)k;
        }
    }
    if (line[0])
        util_jset_str(status, bench_fields[BK_STATUS_RESULT].status, line);
}

/* v to the series' decimals without trailing zeros ("1477", "4.6"), "-" when absent. */
static int series_number(char *out, size_t len, const cJSON *v, int decimals)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return snprintf(out, len, "-");
    int n = snprintf(out, len, "%.*f", decimals, v->valuedouble);
    if (n <= 0 || (size_t)n >= len || !strchr(out, '.'))
        return n;
    while (n > 0 && out[n - 1] == '0')
        out[--n] = '\0';
    if (n > 0 && out[n - 1] == '.')
        out[--n] = '\0';
    return n;
}

/* The timeline as series (bench_timeline_series): at most STATUS_TIMELINE's max_items points,
 * evenly spaced, one string per member, so kubectl describe prints a line per member rather than
 * three per point; the result ConfigMap keeps every point. */
static void project_timeline(cJSON *status, const cJSON *agg)
{
    const cJSON *tl = bench_get(agg, BK_TIMELINE);
    int n = cJSON_GetArraySize(tl);
    if (n <= 0)
        return;
    int step = bench_downsample_step(n, bench_fields[BK_STATUS_TIMELINE].max_items);
    for (size_t k = 0; k < bench_ntimeline_series; k++) {
        const struct bench_series *ser = &bench_timeline_series[k];
        char line[1024];
        size_t used = 0;
        for (int i = 0; i < n; i += step) {
            char num[48];
            int m = series_number(num, sizeof(num),
                                  bench_get(cJSON_GetArrayItem(tl, i), ser->result), ser->decimals);
            if (m < 0 || used + (size_t)m + 2 > sizeof(line))
                break;
            used +=
                (size_t)snprintf(line + used, sizeof(line) - used, "%s%s", used ? " " : "", num);
        }
        (void)bench_json_put(status, bench_fields[ser->status].status,
                             util_must(cJSON_CreateString(line)));
    }
}

/* ---- workers and statements: one line each ---------------------------------------------- */

/* The aggregate's row of the worker with that index, or NULL. */
static const cJSON *agg_worker(const cJSON *agg, int index)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, bench_get(agg, BK_WORKERS))
    {
        double idx = bench_num(it, BK_WORKERS_INDEX);
        if (isfinite(idx) && (int)idx == index)
            return it;
    }
    return NULL;
}

/* The run's worker rows: the aggregate's row of each worker (agg may be NULL) with what the
 * controller saw of its pod written over it: the pod, the container's exit code once it
 * terminated, and the verdict (complete, message). */
static cJSON *worker_rows(const cJSON *agg, const struct api_worker *w, int n)
{
    cJSON *rows = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        const cJSON *a = agg_worker(agg, w[i].index);
        cJSON *o = a ? cJSON_Duplicate(a, 1) : cJSON_CreateObject();
        (void)bench_put(o, BK_WORKERS_INDEX, cJSON_CreateNumber(w[i].index));
        if (w[i].pod)
            (void)bench_put(o, BK_WORKERS_POD, util_must(cJSON_CreateString(w[i].pod)));
        if (w[i].node)
            (void)bench_put(o, BK_WORKERS_NODE, util_must(cJSON_CreateString(w[i].node)));
        if (w[i].exit_code >= 0)
            (void)bench_put(o, BK_WORKERS_EXIT_CODE, cJSON_CreateNumber(w[i].exit_code));
        (void)bench_put(o, BK_WORKERS_COMPLETE, cJSON_CreateBool(worker_ok(&w[i])));
        char msg[512];
        worker_message(&w[i], msg, sizeof(msg));
        (void)bench_put(o, BK_WORKERS_MESSAGE, util_must(cJSON_CreateString(msg)));
        cJSON_AddItemToArray(rows, o);
    }
    return rows;
}

/* A count appended as ", N things" ("1 thing") when it is there and not 0. */
static void add_count(struct buf *b, double v, const char *one, const char *many)
{
    if (isfinite(v) && v != 0)
        (void)buf_printf(b, ", %.0f %s", v, v == 1 ? one : many);
}

/* One worker's line in status.workers from its row (worker_rows), rounded as status.result
 * rounds: "0 tpcb-demo-run-0-b546q on node n1: ok, 406.3 tps, 10050 tx, avg 9.82 ms, from
 * +0.016 s to 25.715 s", failed transactions and aborted clients only when not 0. */
static cJSON *worker_line(const cJSON *row)
{
    struct buf b = BUF_INIT(API_MAX_MESSAGE);
    const char *pod = cJSON_GetStringValue(bench_get(row, BK_WORKERS_POD));
    const char *msg = cJSON_GetStringValue(bench_get(row, BK_WORKERS_MESSAGE));
    double tps = bench_num(row, BK_WORKERS_TPS),
           tx = bench_num(row, BK_WORKERS_TRANSACTIONS_PROCESSED);
    double avg = bench_num(row, BK_WORKERS_LATENCY_AVG_MS);
    double late = bench_num(row, BK_WORKERS_LATE_SECONDS),
           end = bench_num(row, BK_WORKERS_END_SECONDS);
    if (late == 0) /* a negative zero (a worker on the barrier) is "+0.000", as JSON writes it */
        late = 0;
    const char *node = cJSON_GetStringValue(bench_get(row, BK_WORKERS_NODE));
    (void)buf_printf(&b, "%.0f%s%s%s%s: %s", bench_num(row, BK_WORKERS_INDEX), pod ? " " : "",
                     pod ? pod : "", node ? " on node " : "", node ? node : "", msg ? msg : "");
    if (isfinite(tps))
        (void)buf_printf(&b, ", %.1f tps", tps);
    if (isfinite(tx))
        (void)buf_printf(&b, ", %.0f tx", tx);
    if (isfinite(avg))
        (void)buf_printf(&b, ", avg %.2f ms", avg);
    if (isfinite(late))
        (void)buf_printf(&b, ", from %+.3f s", late);
    if (isfinite(end))
        (void)buf_printf(&b, "%s %.3f s", isfinite(late) ? " to" : ", to", end);
    add_count(&b, bench_num(row, BK_WORKERS_FAILED_TRANSACTIONS), "failed", "failed");
    add_count(&b, bench_num(row, BK_WORKERS_ABORTED_CLIENTS), "aborted client", "aborted clients");
    cJSON *s = cJSON_CreateString(b.data ? b.data : "");
    buf_free(&b);
    return s;
}

/* One statement's line in status.statements: "0.860 ms  BEGIN;" (pgbench -r's precision),
 * failures and retries only when not 0, "script N: " first when several scripts ran. */
static cJSON *statement_line(const cJSON *st, bool scripts)
{
    struct buf b = BUF_INIT(API_MAX_MESSAGE);
    const char *cmd = cJSON_GetStringValue(bench_get(st, BK_STATEMENTS_COMMAND));
    double lat = bench_num(st, BK_STATEMENTS_LATENCY_MS);
    if (scripts)
        (void)buf_printf(&b, "script %.0f: ", bench_num(st, BK_STATEMENTS_SCRIPT));
    if (isfinite(lat))
        (void)buf_printf(&b, "%.3f ms  ", lat);
    else
        (void)buf_puts(&b, "- ms  ");
    (void)buf_puts(&b, cmd ? cmd : "");
    add_count(&b, bench_num(st, BK_STATEMENTS_FAILURES), "failure", "failures");
    add_count(&b, bench_num(st, BK_STATEMENTS_RETRIES), "retry", "retries");
    cJSON *s = cJSON_CreateString(b.data ? b.data : "");
    buf_free(&b);
    return s;
}

/* Statements status leaves out: those that ran no SQL (meta-commands such as \set). */
static bool meta_command(const cJSON *st)
{
    const cJSON *c = bench_get(st, BK_STATEMENTS_COMMAND);
    return cJSON_IsString(c) && c->valuestring[0] == '\\';
}

/* status.statements: a line per statement that ran SQL, at most the row's max_items. */
static void project_statements(cJSON *status, const cJSON *agg)
{
    const cJSON *list = bench_get(agg, BK_STATEMENTS), *it;
    bool scripts = false;
    cJSON_ArrayForEach(it, list) scripts = scripts || bench_num(it, BK_STATEMENTS_SCRIPT) > 0;
    cJSON *lines = cJSON_CreateArray();
    cJSON_ArrayForEach(it, list)
    {
        if (cJSON_GetArraySize(lines) >= bench_fields[BK_STATUS_STATEMENTS].max_items)
            break;
        if (!meta_command(it))
            cJSON_AddItemToArray(lines, statement_line(it, scripts));
    }
    if (cJSON_GetArraySize(lines) > 0)
        (void)bench_json_put(status, bench_fields[BK_STATUS_STATEMENTS].status, lines);
    else
        cJSON_Delete(lines);
}

/* The diagnostics as sentences, one per diagnostic (pkg/bench/diag.h); the structured sections
 * stay in the result ConfigMap. */
static void put_diagnostic(enum bench_field_id row, const char *sentence, void *ctx)
{
    (void)bench_json_put(ctx, bench_fields[row].status, util_must(cJSON_CreateString(sentence)));
}

static void project_diagnostics(cJSON *status, const cJSON *agg)
{
    bench_diag_rows(agg, put_diagnostic, status);
}

/* status.summary.window: with a warm-up cut, the steady window the summary covers (the result's
 * warmup); absent otherwise, when the numbers cover the whole run (describe stays short). */
static void project_window(cJSON *status, const cJSON *agg)
{
    double cut = bench_num(agg, BK_WARMUP_SECONDS),
           steady = bench_num(agg, BK_WARMUP_STEADY_SECONDS);
    if (!bench_get(agg, BK_SUMMARY) || !(cut > 0))
        return;
    char line[384], tx[32], tps[32];
    fmt_grouped(tx, sizeof(tx), bench_num(agg, BK_WARMUP_TRANSACTIONS));
    fmt_sig3(tps, sizeof(tps), bench_num(agg, BK_WARMUP_RUN_TPS));
    (void)snprintf(line, sizeof(line),
                   "steady window: %g s to %.1f s after pgbench started (warm-up of %g s left out: "
                   "%s transactions; whole run %s tps)%s",
                   cut, cut + (isfinite(steady) ? steady : 0), cut, tx, tps,
                   /* pgbench -r has no window: its averages are the whole run's */
                   cJSON_GetArraySize(bench_get(agg, BK_STATEMENTS)) > 0
                       ? "; statement latencies (pgbench -r): the whole run, warm-up included"
                       : "");
    (void)bench_json_put(status, bench_fields[BK_STATUS_SUMMARY_WINDOW].status,
                         util_must(cJSON_CreateString(line)));
}

void api_status_set_results(cJSON *status, cJSON *agg, const struct api_worker *w, int n)
{
    project(status, agg);
    project_window(status, agg);
    project_timeline(status, agg);
    project_statements(status, agg);
    project_diagnostics(status, agg);
    set_result(status);

    cJSON *rows = worker_rows(agg, w, n), *lines = cJSON_CreateArray(), *it;
    cJSON_ArrayForEach(it, rows)
    {
        if (cJSON_GetArraySize(lines) < bench_fields[BK_STATUS_WORKERS].max_items)
            cJSON_AddItemToArray(lines, worker_line(it));
    }
    util_jset(status, bench_fields[BK_STATUS_WORKERS].status, lines);
    if (agg)
        (void)bench_put(agg, BK_WORKERS, rows);
    else
        cJSON_Delete(rows);
}

void api_status_summary_message(const cJSON *status, int workers, char *out, size_t len)
{
    double tps = status_num(status, BK_SUMMARY_TPS);
    double avg = status_num(status, BK_SUMMARY_LATENCY_AVG_MS);
    double p99 = status_num(status, BK_SUMMARY_LATENCY_P99_MS);
    const cJSON *fio = bench_status_get(status, BK_FIO_JOBS);
    if (isfinite(tps)) {
        int n = snprintf(out, len, "%.1f tps", tps);
        if (isfinite(avg) && n >= 0 && (size_t)n < len)
            n += snprintf(out + n, len - (size_t)n, ", avg %.2f ms", avg);
        if (isfinite(p99) && n >= 0 && (size_t)n < len)
            n += snprintf(out + n, len - (size_t)n, ", p99 %.2f ms", p99);
        if (n >= 0 && (size_t)n < len)
            (void)snprintf(out + n, len - (size_t)n, " (%d worker%s)", workers,
                           workers == 1 ? "" : "s");
    } else if (cJSON_GetArraySize(fio) > 0 &&
               cJSON_IsString(bench_status_get(status, BK_STATUS_RESULT))) {
        (void)snprintf(out, len, "fio %s", bench_status_get(status, BK_STATUS_RESULT)->valuestring);
    } else {
        (void)snprintf(out, len, "finished without a summary");
    }
}

bool api_workers_skewed(const cJSON *agg, double limit_s, char *out, size_t len)
{
    const cJSON *rows = bench_get(agg, BK_WORKERS), *r;
    double last_end = NAN;
    cJSON_ArrayForEach(r, rows)
    {
        double e = bench_num(r, BK_WORKERS_END_SECONDS);
        if (isfinite(e) && !(e <= last_end))
            last_end = e;
    }
    size_t n = 0;
    out[0] = '\0';
    cJSON_ArrayForEach(r, rows)
    {
        double late = bench_num(r, BK_WORKERS_LATE_SECONDS);
        double early = last_end - bench_num(r, BK_WORKERS_END_SECONDS);
        int idx = (int)bench_num(r, BK_WORKERS_INDEX);
        int m = 0;
        if (late > limit_s)
            m = snprintf(out + n, len - n, "%sworker %d started %.1f s after the start barrier",
                         n ? ", " : "", idx, late);
        else if (early > limit_s)
            m = snprintf(out + n, len - n, "%sworker %d ended %.1f s before the last one",
                         n ? ", " : "", idx, early);
        if (m > 0 && (size_t)m < len - n)
            n += (size_t)m;
    }
    if (n == 0)
        return false;
    double cover = bench_num(agg, BK_WINDOW_COVERAGE_PCT);
    double secs = bench_num(agg, BK_WINDOW_SECONDS);
    if (isfinite(cover) && isfinite(secs) && n < len)
        (void)snprintf(out + n, len - n,
                       "; the totals cover the common window of %.1f s, %.1f %% of the run", secs,
                       cover);
    return true;
}

double api_status_littles_law_pct(const cJSON *status)
{
    return bench_littles_law(bench_status_num(status, BK_STATUS_CLIENTS, NAN),
                             status_num(status, BK_SUMMARY_LATENCY_AVG_MS),
                             status_num(status, BK_SUMMARY_TPS), NULL);
}

double api_status_start_at(const cJSON *status)
{
    const cJSON *sa = bench_status_get(status, BK_STATUS_START_AT);
    if (cJSON_IsString(sa))
        return util_rfc3339_parse(sa->valuestring);
    if (cJSON_IsNumber(sa) && sa->valuedouble > 0)
        return sa->valuedouble;
    return -1;
}

bool api_hpa_timeline_record(cJSON *status, int replicas, double now)
{
    cJSON *tl = (cJSON *)bench_status_get(status, BK_STATUS_HPA_TIMELINE);
    if (!cJSON_IsArray(tl)) {
        tl = cJSON_CreateArray();
        (void)bench_status_put(status, BK_STATUS_HPA_TIMELINE, tl);
    }
    int n = cJSON_GetArraySize(tl);
    if (n > 0) {
        const cJSON *last = cJSON_GetArrayItem(tl, n - 1);
        const cJSON *r = bench_status_get(last, BK_STATUS_HPA_TIMELINE_REPLICAS);
        if (cJSON_IsNumber(r) && (int)r->valuedouble == replicas)
            return false;
    }
    if (n >= bench_fields[BK_STATUS_HPA_TIMELINE].max_items)
        cJSON_DeleteItemFromArray(tl, 1); /* keep the first sample */
    cJSON *o = cJSON_CreateObject();
    char ts[40];
    util_rfc3339(now, 0, ts, sizeof(ts));
    bench_status_set_str(o, BK_STATUS_HPA_TIMELINE_TIME, ts);
    bench_status_set_num(o, BK_STATUS_HPA_TIMELINE_REPLICAS, replicas);
    cJSON_AddItemToArray(tl, o);
    return true;
}
