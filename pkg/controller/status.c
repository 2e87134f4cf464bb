/* BenchmarkRun status: conditions and results. */
#include "pkg/controller/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/controller/manifest.h"

void ctrl_time_rfc3339(double t, char *out, size_t len)
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    (void)strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

double ctrl_time_parse(const char *s)
{
    if (!s)
        return -1;
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!p)
        return -1;
    double frac = 0;
    if (*p == '.') {
        char *end;
        frac = strtod(p, &end);
        p = end;
    }
    if (*p != 'Z' && *p != '\0')
        return -1;
    return (double)timegm(&tm) + frac;
}

const cJSON *ctrl_cond_get(const cJSON *status, const char *type)
{
    const cJSON *conds = status ? cJSON_GetObjectItemCaseSensitive(status, "conditions") : NULL;
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

bool ctrl_cond_set(cJSON *status, const char *type, const char *cstatus, const char *reason,
                   const char *message, long generation, double now)
{
    cJSON *conds = cJSON_GetObjectItemCaseSensitive(status, "conditions");
    if (!cJSON_IsArray(conds)) {
        conds = ctrl_must(cJSON_CreateArray());
        ctrl_jset(status, "conditions", conds);
    }
    cJSON *c = (cJSON *)ctrl_cond_get(status, type);
    char msg[CTRL_MAX_MESSAGE];
    (void)snprintf(msg, sizeof(msg), "%s", message ? message : "");
    if (c && str_eq(c, "status", cstatus) && str_eq(c, "reason", reason) &&
        str_eq(c, "message", msg)) {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(c, "observedGeneration");
        if (cJSON_IsNumber(g) && (long)g->valuedouble == generation)
            return false;
        ctrl_jset(c, "observedGeneration", cJSON_CreateNumber((double)generation));
        return true;
    }
    bool transition = !c || !str_eq(c, "status", cstatus);
    if (!c) {
        c = ctrl_must(cJSON_CreateObject());
        cJSON_AddItemToArray(conds, c);
        ctrl_jset_str(c, "type", type);
    }
    ctrl_jset_str(c, "status", cstatus);
    ctrl_jset_str(c, "reason", reason);
    ctrl_jset_str(c, "message", msg);
    ctrl_jset(c, "observedGeneration", cJSON_CreateNumber((double)generation));
    if (transition || !cJSON_GetObjectItemCaseSensitive(c, "lastTransitionTime")) {
        char ts[40];
        ctrl_time_rfc3339(now, ts, sizeof(ts));
        ctrl_jset_str(c, "lastTransitionTime", ts);
    }
    return true;
}

/* ---- results ---------------------------------------------------------------------------- */

static const cJSON *field(const cJSON *o, const char *k)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
    return v && !cJSON_IsNull(v) ? v : NULL;
}

/* First present numeric field among names (the runner's names, then the design card's). */
static const cJSON *num2(const cJSON *o, const char *a, const char *b)
{
    const cJSON *v = field(o, a);
    if (!cJSON_IsNumber(v) && b)
        v = field(o, b);
    return cJSON_IsNumber(v) ? v : NULL;
}

/* Numbers go into status at pgbench's own precision (it prints tps with 6 decimals), which
 * also drops the float noise of aggregation (1.4000000000000004 shows as 1.4). */
static double status_precision(double v)
{
    return fabs(v) < 1e9 ? round(v * 1e6) / 1e6 : v;
}

static void copy_num(cJSON *dst, const char *dk, const cJSON *src, const char *a, const char *b)
{
    const cJSON *v = num2(src, a, b);
    if (v)
        ctrl_jset(dst, dk, cJSON_CreateNumber(status_precision(v->valuedouble)));
}

static cJSON *summary_from(const cJSON *s)
{
    cJSON *o = ctrl_must(cJSON_CreateObject());
    copy_num(o, "tps", s, "tps", NULL);
    copy_num(o, "tpsIncludingConnect", s, "tpsIncludingConnect", NULL);
    copy_num(o, "latencyAvgMs", s, "latencyAvgMs", NULL);
    copy_num(o, "latencyStddevMs", s, "latencyStddevMs", NULL);
    copy_num(o, "latencyP50Ms", s, "latencyP50Ms", NULL);
    copy_num(o, "latencyP90Ms", s, "latencyP90Ms", NULL);
    copy_num(o, "latencyP95Ms", s, "latencyP95Ms", NULL);
    copy_num(o, "latencyP99Ms", s, "latencyP99Ms", NULL);
    copy_num(o, "latencyP999Ms", s, "latencyP999Ms", NULL);
    copy_num(o, "latencyMaxMs", s, "latencyMaxMs", NULL);
    copy_num(o, "transactions", s, "transactionsProcessed", "transactions");
    copy_num(o, "failed", s, "failedTransactions", "failed");
    copy_num(o, "aborted", s, "abortedClients", "aborted");
    copy_num(o, "retried", s, "retried", NULL);
    copy_num(o, "skipped", s, "skipped", NULL);
    return o;
}

static cJSON *statements_from(const cJSON *sts)
{
    cJSON *a = ctrl_must(cJSON_CreateArray());
    const cJSON *it;
    int n = 0;
    cJSON_ArrayForEach(it, sts)
    {
        if (n++ >= CTRL_MAX_STATEMENTS)
            break;
        cJSON *o = ctrl_must(cJSON_CreateObject());
        copy_num(o, "script", it, "script", NULL);
        const cJSON *cmd = field(it, "command");
        char c[256];
        (void)snprintf(c, sizeof(c), "%s", cJSON_IsString(cmd) ? cmd->valuestring : "");
        ctrl_jset_str(o, "command", c);
        copy_num(o, "latencyMs", it, "latencyMs", NULL);
        copy_num(o, "failures", it, "failures", NULL);
        copy_num(o, "retries", it, "retries", NULL);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *timeline_from(const cJSON *tl)
{
    cJSON *a = ctrl_must(cJSON_CreateArray());
    int n = cJSON_GetArraySize(tl);
    /* Long runs are downsampled to CTRL_MAX_TIMELINE evenly spaced points. */
    int step = n > CTRL_MAX_TIMELINE ? (n + CTRL_MAX_TIMELINE - 1) / CTRL_MAX_TIMELINE : 1;
    for (int i = 0; i < n; i += step) {
        const cJSON *it = cJSON_GetArrayItem(tl, i);
        cJSON *o = ctrl_must(cJSON_CreateObject());
        copy_num(o, "t", it, "t", NULL);
        copy_num(o, "tps", it, "tps", NULL);
        copy_num(o, "latencyMs", it, "latencyMs", NULL);
        copy_num(o, "stddevMs", it, "stddevMs", NULL);
        copy_num(o, "failed", it, "failed", NULL);
        copy_num(o, "lagMs", it, "lagMs", NULL);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *fio_from(const cJSON *fio)
{
    cJSON *a = ctrl_must(cJSON_CreateArray());
    const cJSON *jobs = field(fio, "jobs");
    const cJSON *j;
    cJSON_ArrayForEach(j, jobs)
    {
        cJSON *o = ctrl_must(cJSON_CreateObject());
        const cJSON *name = field(j, "name");
        ctrl_jset_str(o, "job", cJSON_IsString(name) ? name->valuestring : "");
        const cJSON *r = field(j, "read"), *w = field(j, "write"), *sy = field(j, "sync");
        copy_num(o, "readIops", r, "iops", NULL);
        copy_num(o, "writeIops", w, "iops", NULL);
        copy_num(o, "readBwKiBs", r, "bwKiBs", NULL);
        copy_num(o, "writeBwKiBs", w, "bwKiBs", NULL);
        copy_num(o, "readClatP99Us", field(r, "clatUs"), "p99", NULL);
        copy_num(o, "writeClatP99Us", field(w, "clatUs"), "p99", NULL);
        copy_num(o, "syncP99Us", sy, "p99", NULL);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* The first error line of a result, or NULL. */
static const char *result_error(const cJSON *r)
{
    const cJSON *errs = field(r, "errors");
    const cJSON *e = cJSON_GetArrayItem(errs, 0);
    return cJSON_IsString(e) ? e->valuestring : NULL;
}

static bool worker_ok(const struct ctrl_worker *w)
{
    if (!w->result)
        return false;
    const cJSON *c = field(w->result, "complete");
    const cJSON *ec = field(w->result, "exitCode");
    if (!cJSON_IsTrue(c))
        return false;
    if (cJSON_IsNumber(ec) && ec->valuedouble != 0)
        return false;
    return w->exit_code <= 0;
}

static void worker_message(const struct ctrl_worker *w, char *out, size_t len)
{
    const char *err = w->result ? result_error(w->result) : NULL;
    if (worker_ok(w))
        (void)snprintf(out, len, "ok");
    else if (!w->pod)
        (void)snprintf(out, len, "no pod was created for this worker");
    else if (!w->terminated)
        (void)snprintf(out, len, "pod %s did not finish", w->pod);
    else if (err)
        (void)snprintf(out, len, "exit code %d: %s", w->exit_code, err);
    else if (w->result && !cJSON_IsTrue(field(w->result, "complete")))
        (void)snprintf(out, len, "exit code %d: incomplete result", w->exit_code);
    else if (w->error[0])
        (void)snprintf(out, len, "exit code %d%s%s: %s", w->exit_code, w->reason ? " " : "",
                       w->reason ? w->reason : "", w->error);
    else
        (void)snprintf(out, len, "exit code %d%s%s", w->exit_code, w->reason ? " " : "",
                       w->reason ? w->reason : "");
}

bool ctrl_workers_failure(const struct ctrl_worker *w, int n, char *out, size_t len)
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

void ctrl_status_set_results(cJSON *status, const cJSON *agg, const struct ctrl_worker *w, int n)
{
    const cJSON *summary = field(agg, "summary");
    if (summary)
        ctrl_jset(status, "summary", summary_from(summary));
    const cJSON *sts = field(agg, "statements");
    if (cJSON_IsArray(sts) && cJSON_GetArraySize(sts) > 0)
        ctrl_jset(status, "statements", statements_from(sts));
    const cJSON *tl = field(agg, "timeline");
    if (cJSON_IsArray(tl) && cJSON_GetArraySize(tl) > 0)
        ctrl_jset(status, "timeline", timeline_from(tl));
    const cJSON *fio = field(agg, "fio");
    if (fio)
        ctrl_jset(status, "fio", fio_from(fio));
    const cJSON *diag = field(agg, "diagnostics");
    if (cJSON_IsObject(diag)) {
        cJSON *d = ctrl_must(cJSON_Duplicate(diag, 1));
        /* keep etcd small: replica lag samples are capped */
        cJSON *rep = cJSON_GetObjectItemCaseSensitive(d, "replica");
        cJSON *samples = rep ? cJSON_GetObjectItemCaseSensitive(rep, "lagSamplesMs") : NULL;
        while (cJSON_IsArray(samples) && cJSON_GetArraySize(samples) > CTRL_MAX_TIMELINE)
            cJSON_DeleteItemFromArray(samples, CTRL_MAX_TIMELINE);
        ctrl_jset(status, "diagnostics", d);
    }

    /* Per-worker rows: the aggregate's "workers" list gives numbers, our observation gives the
     * pod, exit code and message. */
    const cJSON *aw = field(agg, "workers");
    cJSON *rows = ctrl_must(cJSON_CreateArray());
    for (int i = 0; i < n && i < CTRL_MAX_WORKER_ROWS; i++) {
        cJSON *o = ctrl_must(cJSON_CreateObject());
        ctrl_jset(o, "index", cJSON_CreateNumber(w[i].index));
        if (w[i].pod)
            ctrl_jset_str(o, "pod", w[i].pod);
        const cJSON *src = NULL, *it;
        cJSON_ArrayForEach(it, aw)
        {
            const cJSON *idx = field(it, "index");
            if (cJSON_IsNumber(idx) && (int)idx->valuedouble == i)
                src = it;
        }
        if (!src && w[i].result)
            src = field(w[i].result, "summary");
        copy_num(o, "tps", src, "tps", NULL);
        copy_num(o, "transactions", src, "transactionsProcessed", "transactions");
        copy_num(o, "failed", src, "failedTransactions", "failed");
        copy_num(o, "aborted", src, "abortedClients", "aborted");
        copy_num(o, "latencyAvgMs", src, "latencyAvgMs", NULL);
        if (w[i].exit_code >= 0)
            ctrl_jset(o, "exitCode", cJSON_CreateNumber(w[i].exit_code));
        ctrl_jset(o, "complete", cJSON_CreateBool(worker_ok(&w[i])));
        char msg[512];
        worker_message(&w[i], msg, sizeof(msg));
        ctrl_jset_str(o, "message", msg);
        cJSON_AddItemToArray(rows, o);
    }
    ctrl_jset(status, "workers", rows);
}

void ctrl_status_summary_message(const cJSON *status, int workers, char *out, size_t len)
{
    const cJSON *s = field(status, "summary");
    const cJSON *tps = field(s, "tps"), *avg = field(s, "latencyAvgMs"),
                *p99 = field(s, "latencyP99Ms");
    const cJSON *fio = field(status, "fio");
    if (cJSON_IsNumber(tps)) {
        int n = snprintf(out, len, "%.1f tps", tps->valuedouble);
        if (cJSON_IsNumber(avg) && n >= 0 && (size_t)n < len)
            n += snprintf(out + n, len - (size_t)n, ", avg %.2f ms", avg->valuedouble);
        if (cJSON_IsNumber(p99) && n >= 0 && (size_t)n < len)
            n += snprintf(out + n, len - (size_t)n, ", p99 %.2f ms", p99->valuedouble);
        if (n >= 0 && (size_t)n < len)
            (void)snprintf(out + n, len - (size_t)n, " (%d worker%s)", workers,
                           workers == 1 ? "" : "s");
    } else if (cJSON_GetArraySize(fio) > 0) {
        const cJSON *j = cJSON_GetArrayItem(fio, 0);
        (void)snprintf(
            out, len, "fio %s: read %.0f IOPS, write %.0f IOPS",
            cJSON_IsString(field(j, "job")) ? field(j, "job")->valuestring : "",
            cJSON_IsNumber(field(j, "readIops")) ? field(j, "readIops")->valuedouble : 0.0,
            cJSON_IsNumber(field(j, "writeIops")) ? field(j, "writeIops")->valuedouble : 0.0);
    } else {
        (void)snprintf(out, len, "finished without a summary");
    }
}

bool ctrl_hpa_timeline_record(cJSON *status, int replicas, double now)
{
    cJSON *tl = cJSON_GetObjectItemCaseSensitive(status, "hpaTimeline");
    if (!cJSON_IsArray(tl)) {
        tl = ctrl_must(cJSON_CreateArray());
        ctrl_jset(status, "hpaTimeline", tl);
    }
    int n = cJSON_GetArraySize(tl);
    if (n > 0) {
        const cJSON *last = cJSON_GetArrayItem(tl, n - 1);
        const cJSON *r = field(last, "replicas");
        if (cJSON_IsNumber(r) && (int)r->valuedouble == replicas)
            return false;
    }
    if (n >= CTRL_MAX_HPA_TIMELINE)
        cJSON_DeleteItemFromArray(tl, 1); /* keep the first sample */
    cJSON *o = ctrl_must(cJSON_CreateObject());
    char ts[40];
    ctrl_time_rfc3339(now, ts, sizeof(ts));
    ctrl_jset_str(o, "time", ts);
    ctrl_jset(o, "replicas", cJSON_CreateNumber(replicas));
    cJSON_AddItemToArray(tl, o);
    return true;
}
