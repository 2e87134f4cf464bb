/* The result JSON (schemaVersion 1), its compact and human forms, and the reader for pod logs. */
#include "pkg/bench/result.h"
#include "pkg/bench/fields.h"
#include "pkg/util/buf.h"
#include "pkg/util/err.h"
#include "pkg/bench/text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* All adders return 0 or -ENOMEM. NAN/negative sentinel -> null. */
static int put_num(cJSON *o, const char *key, double v)
{
    cJSON *c = isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
    if (!c)
        return -ENOMEM;
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    cJSON_AddItemToObject(o, key, c);
    return 0;
}

static int put_count(cJSON *o, const char *key, int64_t v)
{
    return put_num(o, key, v < 0 ? NAN : (double)v);
}

static int put_bool(cJSON *o, const char *key, bool v)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    return cJSON_AddBoolToObject(o, key, v) ? 0 : -ENOMEM;
}

static int put_str(cJSON *o, const char *key, const char *s)
{
    cJSON *c = s && *s ? cJSON_CreateString(s) : cJSON_CreateNull();
    if (!c)
        return -ENOMEM;
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    cJSON_AddItemToObject(o, key, c);
    return 0;
}

static int put_item(cJSON *o, const char *key, cJSON *item)
{
    if (!item)
        return -ENOMEM;
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    cJSON_AddItemToObject(o, key, item);
    return 0;
}

static int put_time(cJSON *o, const char *key, double t)
{
    if (!(t > 0))
        return put_str(o, key, NULL);
    char buf[40];
    time_t secs = (time_t)t;
    int ms = (int)((t - (double)secs) * 1000.0);
    if (ms < 0)
        ms = 0;
    if (ms > 999)
        ms = 999;
    struct tm tm;
    if (!gmtime_r(&secs, &tm))
        return put_str(o, key, NULL);
    size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
    (void)snprintf(buf + n, sizeof(buf) - n, ".%03dZ", ms);
    return put_str(o, key, buf);
}

cJSON *bench_result_new(const struct bench_result_meta *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    int rc = put_num(o, "schemaVersion", BENCH_RESULT_SCHEMA_VERSION);
    if (!rc)
        rc = put_str(o, "kind", m->kind ? m->kind : "pgbench");
    if (!rc)
        rc = put_bool(o, "complete", m->complete);
    if (!rc)
        rc = put_count(o, "worker", m->worker);
    if (!rc)
        rc = put_time(o, "startTime", m->start_time);
    if (!rc)
        rc = put_time(o, "endTime", m->end_time);
    if (!rc)
        rc = put_num(o, "exitCode", m->exit_code);
    if (!rc)
        rc = put_count(o, "childExitCode", m->child_exit);
    if (!rc)
        rc = put_item(o, "errors", cJSON_CreateArray());
    if (rc) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int bench_result_add_error(cJSON *result, const char *msg)
{
    cJSON *errors = cJSON_GetObjectItemCaseSensitive(result, "errors");
    if (!cJSON_IsArray(errors)) {
        errors = cJSON_CreateArray();
        if (put_item(result, "errors", errors))
            return -ENOMEM;
    }
    char *s =
        bench__strndup_clean(msg ? msg : "", msg ? strlen(msg) : 0, BENCH_PGBENCH_MAX_ERROR_LEN);
    if (!s)
        return -ENOMEM;
    cJSON *c = cJSON_CreateString(s);
    free(s);
    if (!c)
        return -ENOMEM;
    cJSON_AddItemToArray(errors, c);
    return 0;
}

bool bench_pgbench_complete(const struct bench_pgbench_result *pg, int exit_status)
{
    return pg && exit_status == 0 && pg->summary_seen && !pg->run_aborted &&
           pg->aborted_clients == 0;
}

static double us_to_ms(int64_t us)
{
    return (double)us / 1000.0;
}

static int summary_json(cJSON *s, const struct bench_pgbench_result *pg,
                        const struct bench_hist *hist)
{
    int rc = 0;
    rc = rc ? rc : put_count(s, "transactionsProcessed", pg->transactions);
    rc = rc ? rc : put_count(s, "transactionsTarget", pg->transactions_target);
    rc = rc ? rc : put_count(s, "failedTransactions", pg->failed);
    rc = rc ? rc : put_num(s, "failedPct", pg->failed_pct);
    rc = rc ? rc : put_count(s, "serializationFailures", pg->serialization_failures);
    rc = rc ? rc : put_count(s, "deadlockFailures", pg->deadlock_failures);
    rc = rc ? rc : put_count(s, "otherFailures", pg->other_failures);
    rc = rc ? rc : put_count(s, "retried", pg->retried);
    rc = rc ? rc : put_count(s, "retries", pg->retries);
    rc = rc ? rc : put_count(s, "skipped", pg->skipped);
    rc = rc ? rc : put_count(s, "aboveLatencyLimit", pg->above_latency_limit);
    rc = rc ? rc : put_num(s, "abortedClients", pg->aborted_clients);
    rc = rc ? rc : put_num(s, "tps", pg->tps);
    rc = rc ? rc : put_num(s, "tpsIncludingConnect", pg->tps_including_connect);
    rc = rc ? rc : put_bool(s, "latencyIncludesFailures", pg->latency_includes_failures);
    rc = rc ? rc : put_num(s, "latencyAvgMs", pg->latency_avg_ms);
    rc = rc ? rc : put_num(s, "latencyStddevMs", pg->latency_stddev_ms);
    rc = rc ? rc : put_num(s, "initialConnectionMs", pg->initial_connection_ms);
    rc = rc ? rc : put_num(s, "averageConnectionMs", pg->average_connection_ms);
    rc = rc ? rc : put_num(s, "rateLimitLagAvgMs", pg->rate_lag_avg_ms);
    rc = rc ? rc : put_num(s, "rateLimitLagMaxMs", pg->rate_lag_max_ms);
    int have = hist && hist->count > 0;
    rc = rc ? rc
            : put_num(s, "latencyP50Ms", have ? us_to_ms(bench_hist_percentile(hist, 50)) : NAN);
    rc = rc ? rc
            : put_num(s, "latencyP90Ms", have ? us_to_ms(bench_hist_percentile(hist, 90)) : NAN);
    rc = rc ? rc
            : put_num(s, "latencyP95Ms", have ? us_to_ms(bench_hist_percentile(hist, 95)) : NAN);
    rc = rc ? rc
            : put_num(s, "latencyP99Ms", have ? us_to_ms(bench_hist_percentile(hist, 99)) : NAN);
    rc = rc ? rc
            : put_num(s, "latencyP999Ms", have ? us_to_ms(bench_hist_percentile(hist, 99.9)) : NAN);
    rc = rc ? rc : put_num(s, "latencyMaxMs", have ? us_to_ms(bench_hist_max(hist)) : NAN);
    rc = rc ? rc : put_num(s, "latencyMinMs", have ? us_to_ms(bench_hist_min(hist)) : NAN);
    rc = rc ? rc : put_count(s, "histogramCount", have ? (int64_t)hist->count : -1);
    return rc;
}

static cJSON *config_json(const struct bench_pgbench_result *pg,
                          const struct bench_pgbench_run_opts *run)
{
    cJSON *c = cJSON_CreateObject();
    if (!c)
        return NULL;
    int clients = pg->clients >= 0 ? pg->clients : run ? run->clients : -1;
    int threads = pg->threads >= 0 ? pg->threads
                  : run            ? (run->threads > run->clients ? run->clients : run->threads)
                                   : -1;
    int duration = pg->duration_s >= 0          ? pg->duration_s
                   : run && run->duration_s > 0 ? run->duration_s
                                                : -1;
    int64_t per_client = pg->transactions_per_client >= 0 ? pg->transactions_per_client
                         : run && run->transactions > 0   ? run->transactions
                                                          : -1;
    int64_t max_tries = pg->max_tries >= 0          ? pg->max_tries
                        : run && run->max_tries > 0 ? run->max_tries
                                                    : -1;
    const char *mode = pg->query_mode[0] ? pg->query_mode
                       : run             ? bench_protocol_name(run->protocol)
                                         : NULL;
    int rc = 0;
    rc = rc ? rc : put_str(c, "version", pg->version);
    rc = rc ? rc : put_str(c, "serverVersion", pg->server_version[0] ? pg->server_version : NULL);
    rc = rc ? rc : put_str(c, "transactionType", pg->transaction_type);
    rc = rc ? rc : put_count(c, "scaleFactor", pg->scale_factor);
    rc = rc ? rc : put_str(c, "partitionMethod", pg->partition_method);
    rc = rc ? rc : put_count(c, "partitions", pg->partitions);
    rc = rc ? rc : put_str(c, "queryMode", mode);
    rc = rc ? rc : put_count(c, "clients", clients);
    rc = rc ? rc : put_count(c, "threads", threads);
    rc = rc ? rc : put_count(c, "durationSeconds", duration);
    rc = rc ? rc : put_count(c, "transactionsPerClient", per_client);
    rc = rc ? rc : put_count(c, "maxTries", max_tries);
    rc = rc ? rc : put_num(c, "rate", run && run->rate > 0 ? run->rate : NAN);
    rc = rc ? rc
            : put_num(c, "latencyLimitMs",
                      isfinite(pg->latency_limit_ms)     ? pg->latency_limit_ms
                      : run && run->latency_limit_ms > 0 ? run->latency_limit_ms
                                                         : NAN);
    if (run) {
        rc = rc ? rc : put_bool(c, "connect", run->connect);
        rc = rc ? rc : put_bool(c, "noVacuum", run->no_vacuum);
        rc = rc ? rc : put_bool(c, "failuresDetailed", run->failures_detailed);
        rc = rc ? rc : put_bool(c, "perStatement", run->per_statement);
        rc = rc ? rc : put_count(c, "progressSeconds", run->progress_s > 0 ? run->progress_s : -1);
    }
    if (rc) {
        cJSON_Delete(c);
        return NULL;
    }
    return c;
}

int bench_result_add_pgbench(cJSON *result, const struct bench_pgbench_result *pg,
                             const struct bench_hist *hist,
                             const struct bench_pgbench_run_opts *run)
{
    int rc = put_item(result, "pgbench", config_json(pg, run));
    if (rc)
        return rc;
    cJSON *s = cJSON_CreateObject();
    if (put_item(result, "summary", s))
        return -ENOMEM;
    rc = summary_json(s, pg, hist);
    if (rc)
        return rc;

    cJSON *st = cJSON_CreateArray();
    if (put_item(result, "statements", st))
        return -ENOMEM;
    for (size_t i = 0; i < pg->nstatements; i++) {
        const struct bench_pgbench_statement *x = &pg->statements[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return -ENOMEM;
        cJSON_AddItemToArray(st, o);
        rc = rc ? rc : put_num(o, "script", x->script);
        rc = rc ? rc : put_str(o, "command", x->command);
        rc = rc ? rc : put_num(o, "latencyMs", x->latency_ms);
        rc = rc ? rc : put_count(o, "failures", x->failures);
        rc = rc ? rc : put_count(o, "retries", x->retries);
        if (rc)
            return rc;
    }
    cJSON *sc = cJSON_CreateArray();
    if (put_item(result, "scripts", sc))
        return -ENOMEM;
    for (size_t i = 0; i < pg->nscripts; i++) {
        const struct bench_pgbench_script_stats *x = &pg->scripts[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return -ENOMEM;
        cJSON_AddItemToArray(sc, o);
        rc = rc ? rc : put_num(o, "script", x->script);
        rc = rc ? rc : put_str(o, "name", x->name);
        rc = rc ? rc : put_count(o, "weight", x->weight);
        rc = rc ? rc : put_count(o, "transactionsProcessed", x->transactions);
        rc = rc ? rc : put_count(o, "failedTransactions", x->failed);
        rc = rc ? rc : put_num(o, "tps", x->tps);
        rc = rc ? rc : put_num(o, "latencyAvgMs", x->latency_avg_ms);
        rc = rc ? rc : put_num(o, "latencyStddevMs", x->latency_stddev_ms);
        if (rc)
            return rc;
    }
    cJSON *tl = cJSON_CreateArray();
    if (put_item(result, "timeline", tl))
        return -ENOMEM;
    for (size_t i = 0; i < pg->ntimeline; i++) {
        const struct bench_timeline_point *x = &pg->timeline[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return -ENOMEM;
        cJSON_AddItemToArray(tl, o);
        rc = rc ? rc : put_num(o, "t", x->t);
        rc = rc ? rc : put_num(o, "tps", x->tps);
        rc = rc ? rc : put_num(o, "latencyMs", x->latency_ms);
        rc = rc ? rc : put_num(o, "stddevMs", x->stddev_ms);
        rc = rc ? rc : put_count(o, "failed", x->failed);
        rc = rc ? rc : put_num(o, "lagMs", x->lag_ms);
        rc = rc ? rc : put_count(o, "skipped", x->skipped);
        rc = rc ? rc : put_count(o, "retried", x->retried);
        rc = rc ? rc : put_count(o, "retries", x->retries);
        if (rc)
            return rc;
    }
    if (hist && hist->count > 0)
        rc = put_item(result, "histogram", bench_hist_to_json(hist));
    else
        rc = put_item(result, "histogram", cJSON_CreateNull());
    for (size_t i = 0; !rc && i < pg->nerrors; i++)
        rc = bench_result_add_error(result, pg->errors[i]);
    if (!rc && (pg->errors_dropped || pg->statements_dropped || pg->timeline_dropped)) {
        cJSON *d = cJSON_CreateObject();
        rc = put_item(result, "dropped", d);
        rc = rc ? rc : put_num(d, "errors", (double)pg->errors_dropped);
        rc = rc ? rc : put_num(d, "statements", (double)pg->statements_dropped);
        rc = rc ? rc : put_num(d, "timeline", (double)pg->timeline_dropped);
    }
    return rc;
}

int bench_result_add_fio(cJSON *result, const struct bench_fio_result *fio)
{
    return put_item(result, "fio", bench_fio_result_to_json(fio));
}

int bench_result_add_init(cJSON *result, bool skipped, const char *reason, int scale,
                          double duration_s)
{
    cJSON *o = cJSON_CreateObject();
    int rc = put_item(result, "init", o);
    rc = rc ? rc : put_bool(o, "skipped", skipped);
    rc = rc ? rc : put_str(o, "reason", reason);
    rc = rc ? rc : put_count(o, "scale", scale);
    rc = rc ? rc : put_num(o, "durationSeconds", duration_s >= 0 ? duration_s : NAN);
    return rc;
}

int bench_result_add_window(cJSON *result, double barrier, double start, double end)
{
    if (!(barrier > 0))
        return 0;
    int rc = bench_put(result, "window", cJSON_CreateObject());
    cJSON *w = (cJSON *)bench_json_at(result, "window");
    rc = rc ? rc : put_time(w, bench_field_key("window.barrier"), barrier);
    rc = rc ? rc
            : bench_put(result, "window.lateSeconds",
                        start > 0 ? cJSON_CreateNumber(round((start - barrier) * 1e3) / 1e3)
                                  : cJSON_CreateNull());
    rc = rc ? rc
            : bench_put(result, "window.endSeconds",
                        end > 0 ? cJSON_CreateNumber(round((end - barrier) * 1e3) / 1e3)
                                : cJSON_CreateNull());
    rc = rc ? rc
            : bench_put(result, "window.seconds",
                        start > 0 && end >= start
                            ? cJSON_CreateNumber(round((end - start) * 1e3) / 1e3)
                            : cJSON_CreateNull());
    return rc;
}

int bench_result_set_diagnostic(cJSON *result, const char *key, cJSON *value)
{
    if (!key || !value || !result) {
        cJSON_Delete(value);
        return -EINVAL;
    }
    if (!strcmp(key, "dataset") || !strcmp(key, "littlesLaw") || !strcmp(key, "replica")) {
        cJSON *checks = cJSON_GetObjectItemCaseSensitive(result, "checks");
        if (!cJSON_IsObject(checks)) {
            checks = cJSON_CreateObject();
            if (put_item(result, "checks", checks)) {
                cJSON_Delete(value);
                return -ENOMEM;
            }
        }
        return put_item(checks, key, value);
    }
    return put_item(result, key, value);
}

cJSON *bench_check_littles_law(int clients, double latency_avg_ms, double measured_tps,
                               bool throttled)
{
    if (!(latency_avg_ms > 0) || clients <= 0 || !isfinite(measured_tps))
        return NULL;
    double predicted = (double)clients / (latency_avg_ms / 1000.0);
    double dev = (measured_tps - predicted) / predicted * 100.0;
    cJSON *o = cJSON_CreateObject();
    int rc = o ? 0 : -ENOMEM;
    rc = rc ? rc : put_num(o, "clients", clients);
    rc = rc ? rc : put_num(o, "latencyAvgMs", latency_avg_ms);
    rc = rc ? rc : put_num(o, "predictedTps", predicted);
    rc = rc ? rc : put_num(o, "measuredTps", measured_tps);
    rc = rc ? rc : put_num(o, "deviationPct", dev);
    rc = rc ? rc
            : put_str(o, "note",
                      throttled ? "rate-limited run (-R): clients are idle between transactions, "
                                  "measured tps is expected below the prediction"
                      : fabs(dev) > 10
                          ? "more than 10% off: time is spent outside transactions (client "
                            "CPU, think time, reconnects) or latency is skewed"
                          : NULL);
    if (rc) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *bench_check_dataset(int64_t database_bytes, int64_t shared_buffers_bytes)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool known = database_bytes >= 0 && shared_buffers_bytes > 0;
    bool fits = known && database_bytes <= shared_buffers_bytes;
    int rc = put_count(o, "databaseBytes", database_bytes);
    rc = rc ? rc : put_count(o, "sharedBuffersBytes", shared_buffers_bytes);
    if (known)
        rc = rc ? rc : put_bool(o, "fitsInSharedBuffers", fits);
    else
        rc = rc ? rc : put_str(o, "fitsInSharedBuffers", NULL);
    rc = rc ? rc
            : put_num(o, "ratio",
                      known ? (double)database_bytes / (double)shared_buffers_bytes : NAN);
    rc = rc ? rc
            : put_str(o, "warning",
                      fits ? "the database fits in shared_buffers: the run measures memory and "
                             "CPU, not storage; raise the scale for a storage test"
                           : NULL);
    if (rc) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* ---- compact summary ---- */

static double getnum(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const cJSON *getpath(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

/* The rest of path after "list[].", or NULL when path is not an item field of list. */
static const char *item_field(const char *path, const char *list)
{
    size_t n = strlen(list);
    if (strncmp(path, list, n) != 0 || strncmp(path + n, "[].", 3) != 0)
        return NULL;
    return path + n + 3;
}

static bool scalar(const cJSON *v)
{
    return v && (cJSON_IsNumber(v) || cJSON_IsBool(v) || cJSON_IsNull(v) || cJSON_IsString(v));
}

/* Copies the compact rows below list (NULL: the rows outside every list) from src to dst, at the
 * same paths. */
static void compact_copy(cJSON *dst, const cJSON *src, const char *list)
{
    for (size_t i = 0; i < bench_nfields; i++) {
        const struct bench_field *f = &bench_fields[i];
        if (!f->compact || !f->path || f->type == BF_SECTION || f->type == BF_STRLIST)
            continue;
        const char *rel = list ? item_field(f->path, list) : strstr(f->path, "[]") ? NULL : f->path;
        if (!rel)
            continue;
        if (f->type == BF_LIST) {
            const cJSON *items = bench_json_at(src, rel), *it;
            cJSON *arr = cJSON_CreateArray();
            if (!cJSON_IsArray(items) || !arr || bench_json_put(dst, rel, arr))
                continue;
            cJSON_ArrayForEach(it, items)
            {
                cJSON *o = cJSON_CreateObject();
                if (!o)
                    break;
                cJSON_AddItemToArray(arr, o);
                compact_copy(o, it, f->path);
            }
            continue;
        }
        const cJSON *v = bench_json_at(src, rel);
        if (scalar(v))
            (void)bench_json_put(dst, rel, cJSON_Duplicate(v, 0));
    }
}

char *bench_result_compact(const cJSON *result, size_t limit)
{
    if (limit < 256)
        limit = 256;
    cJSON *c = cJSON_CreateObject();
    char *out = NULL;
    if (!c)
        return NULL;
    compact_copy(c, result, NULL);
    cJSON_AddBoolToObject(c, "truncated", false);
    cJSON *errs = cJSON_AddArrayToObject(c, "errors");

    /* Drop optional sections, the table's last first, until the base fits (only pathological
     * inputs get here). */
    size_t di = bench_nfields;
    for (;;) {
        out = cJSON_PrintUnformatted(c);
        if (!out)
            goto out;
        while (di > 0 && !(bench_fields[di - 1].compact && bench_fields[di - 1].type == BF_SECTION &&
                           !strchr(bench_fields[di - 1].path, '.')))
            di--;
        if (strlen(out) < limit || di == 0)
            break;
        free(out);
        out = NULL;
        cJSON_DeleteItemFromObjectCaseSensitive(c, bench_fields[--di].path);
        cJSON_ReplaceItemInObjectCaseSensitive(c, "truncated", cJSON_CreateTrue());
    }
    if (strlen(out) >= limit) { /* strings inside still too long: minimal object */
        free(out);
        out = NULL;
        goto minimal;
    }
    /* Add errors (each cut to 240 bytes) while they fit. */
    const cJSON *errors = cJSON_GetObjectItemCaseSensitive(result, "errors"), *e;
    int total = cJSON_GetArraySize(errors), added = 0;
    cJSON_ArrayForEach(e, errors)
    {
        if (!cJSON_IsString(e))
            continue;
        char *msg = bench__strndup_clean(e->valuestring, strlen(e->valuestring), 240);
        if (!msg)
            break;
        cJSON *item = cJSON_CreateString(msg);
        free(msg);
        if (!item)
            break;
        cJSON_AddItemToArray(errs, item);
        char *next = cJSON_PrintUnformatted(c);
        if (!next || strlen(next) >= limit - 16) {
            free(next);
            cJSON_DeleteItemFromArray(errs, cJSON_GetArraySize(errs) - 1);
            break;
        }
        free(out);
        out = next;
        added++;
    }
    if (added < total) {
        cJSON_ReplaceItemInObjectCaseSensitive(c, "truncated", cJSON_CreateTrue());
        char *next = cJSON_PrintUnformatted(c);
        if (next && strlen(next) < limit) {
            free(out);
            out = next;
        } else {
            free(next);
        }
    }
    goto out;
minimal:
    cJSON_Delete(c);
    c = NULL;
    {
        const cJSON *complete = cJSON_GetObjectItemCaseSensitive(result, "complete");
        char buf[128];
        (void)snprintf(buf, sizeof(buf),
                       "{\"schemaVersion\":1,\"complete\":%s,\"exitCode\":%d,\"truncated\":true}",
                       cJSON_IsTrue(complete) ? "true" : "false",
                       isfinite(getnum(result, "exitCode")) ? (int)getnum(result, "exitCode") : 1);
        out = strdup(buf);
    }
out:
    cJSON_Delete(c);
    return out;
}

/* ---- human summary ---- */

static int hnum(struct buf *h, const char *label, double v, const char *unit)
{
    if (isfinite(v))
        return buf_printf(h, " %s %.3f%s", label, v, unit);
    return 0;
}

char *bench_result_human(const cJSON *result)
{
    struct buf h = BUF_INIT(0);
    int oom = 0;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(result, "kind");
    const cJSON *complete = cJSON_GetObjectItemCaseSensitive(result, "complete");
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(result, "pgbench");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(result, "summary");
    oom |= buf_printf(&h, "%s: %s (exit code %d)\n",
                      cJSON_IsString(kind) ? kind->valuestring : "result",
                      cJSON_IsTrue(complete) ? "complete" : "INCOMPLETE",
                      isfinite(getnum(result, "exitCode")) ? (int)getnum(result, "exitCode") : -1);
    if (cJSON_IsObject(cfg)) {
        const cJSON *tt = cJSON_GetObjectItemCaseSensitive(cfg, "transactionType");
        const cJSON *ver = cJSON_GetObjectItemCaseSensitive(cfg, "version");
        oom |= buf_printf(&h, "pgbench %s: %s", cJSON_IsString(ver) ? ver->valuestring : "?",
                          cJSON_IsString(tt) ? tt->valuestring : "?");
        if (isfinite(getnum(cfg, "scaleFactor")))
            oom |= buf_printf(&h, ", scale %.0f", getnum(cfg, "scaleFactor"));
        if (isfinite(getnum(cfg, "clients")))
            oom |= buf_printf(&h, ", %.0f clients", getnum(cfg, "clients"));
        if (isfinite(getnum(cfg, "threads")))
            oom |= buf_printf(&h, ", %.0f threads", getnum(cfg, "threads"));
        if (isfinite(getnum(cfg, "durationSeconds")))
            oom |= buf_printf(&h, ", %.0f s", getnum(cfg, "durationSeconds"));
        oom |= buf_printf(&h, "\n");
    }
    if (cJSON_IsObject(s)) {
        oom |= buf_printf(
            &h, "transactions %.0f",
            isfinite(getnum(s, "transactionsProcessed")) ? getnum(s, "transactionsProcessed") : 0);
        if (isfinite(getnum(s, "failedTransactions")))
            oom |= buf_printf(&h, ", failed %.0f", getnum(s, "failedTransactions"));
        else
            oom |= buf_printf(&h, ", failed n/a (pgbench < 15)");
        oom |= buf_printf(&h, ", aborted clients %.0f",
                          isfinite(getnum(s, "abortedClients")) ? getnum(s, "abortedClients") : 0);
        if (isfinite(getnum(s, "retried")))
            oom |= buf_printf(&h, ", retried %.0f", getnum(s, "retried"));
        if (isfinite(getnum(s, "skipped")))
            oom |= buf_printf(&h, ", skipped %.0f", getnum(s, "skipped"));
        oom |= buf_printf(&h, "\n");
        if (isfinite(getnum(s, "tps")))
            oom |= buf_printf(&h, "tps %.3f\n", getnum(s, "tps"));
        oom |= buf_printf(&h, "latency ms:");
        oom |= hnum(&h, "avg", getnum(s, "latencyAvgMs"), "");
        oom |= hnum(&h, "stddev", getnum(s, "latencyStddevMs"), "");
        oom |= hnum(&h, "p50", getnum(s, "latencyP50Ms"), "");
        oom |= hnum(&h, "p90", getnum(s, "latencyP90Ms"), "");
        oom |= hnum(&h, "p95", getnum(s, "latencyP95Ms"), "");
        oom |= hnum(&h, "p99", getnum(s, "latencyP99Ms"), "");
        oom |= hnum(&h, "p99.9", getnum(s, "latencyP999Ms"), "");
        oom |= hnum(&h, "max", getnum(s, "latencyMaxMs"), "");
        oom |= buf_printf(&h, "\n");
        if (isfinite(getnum(s, "initialConnectionMs")))
            oom |= buf_printf(&h, "initial connection time %.3f ms\n",
                              getnum(s, "initialConnectionMs"));
    }
    const cJSON *init = cJSON_GetObjectItemCaseSensitive(result, "init");
    if (cJSON_IsObject(init)) {
        const cJSON *reason = cJSON_GetObjectItemCaseSensitive(init, "reason");
        oom |= buf_printf(
            &h, "init: scale %.0f%s\n", getnum(init, "scale"),
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(init, "skipped")) ? ", skipped" : "");
        if (cJSON_IsString(reason))
            oom |= buf_printf(&h, "  %s\n", reason->valuestring);
    }
    const cJSON *fio = cJSON_GetObjectItemCaseSensitive(result, "fio");
    const cJSON *j;
    cJSON_ArrayForEach(j, cJSON_GetObjectItemCaseSensitive(fio, "jobs"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "name");
        oom |= buf_printf(&h, "fio %s:", cJSON_IsString(name) ? name->valuestring : "?");
        static const char *const dirs[] = {"read", "write"};
        for (int i = 0; i < 2; i++) {
            const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, dirs[i]);
            if (!cJSON_IsObject(d))
                continue;
            oom |= buf_printf(&h, " %s", dirs[i]);
            oom |= hnum(&h, "iops", getnum(d, "iops"), "");
            oom |= hnum(&h, "bw", getnum(d, "bwKiBs"), " KiB/s");
            oom |= hnum(&h, "clat p99", getnum(getpath(d, "clatUs", NULL), "p99"), " us");
            oom |= buf_printf(&h, ";");
        }
        const cJSON *sy = cJSON_GetObjectItemCaseSensitive(j, "sync");
        if (cJSON_IsObject(sy))
            oom |= hnum(&h, "sync p99", getnum(sy, "p99"), " us");
        oom |= buf_printf(&h, "\n");
    }
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(result, "checks");
    const cJSON *ds = cJSON_GetObjectItemCaseSensitive(checks, "dataset");
    const cJSON *warn = cJSON_GetObjectItemCaseSensitive(ds, "warning");
    if (cJSON_IsString(warn))
        oom |= buf_printf(&h, "warning: %s\n", warn->valuestring);
    const cJSON *ll = cJSON_GetObjectItemCaseSensitive(checks, "littlesLaw");
    if (cJSON_IsObject(ll))
        oom |= buf_printf(&h, "Little's law: predicted %.1f tps, measured %.1f tps (%+.1f%%)\n",
                          getnum(ll, "predictedTps"), getnum(ll, "measuredTps"),
                          getnum(ll, "deviationPct"));
    const cJSON *errors = cJSON_GetObjectItemCaseSensitive(result, "errors"), *e;
    int n = 0;
    cJSON_ArrayForEach(e, errors)
    {
        if (cJSON_IsString(e) && n++ < 10)
            oom |= buf_printf(&h, "error: %s\n", e->valuestring);
    }
    if (n > 10)
        oom |= buf_printf(&h, "... %d more errors\n", n - 10);
    if (oom || !h.data) {
        buf_free(&h);
        return NULL;
    }
    return buf_steal(&h);
}

/* ---- reader ---- */

int bench_result_validate(const cJSON *r, char *err, size_t errlen)
{
    if (!cJSON_IsObject(r))
        return util_errf(err, errlen, "result is not a JSON object");
    double v = getnum(r, "schemaVersion");
    if (v != BENCH_RESULT_SCHEMA_VERSION)
        return util_errf(err, errlen, "unsupported schemaVersion");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(r, "kind");
    if (!cJSON_IsString(kind) ||
        (strcmp(kind->valuestring, "pgbench") != 0 &&
         strcmp(kind->valuestring, "pgbench-init") != 0 && strcmp(kind->valuestring, "fio") != 0))
        return util_errf(err, errlen, "result kind must be pgbench, pgbench-init or fio");
    if (!cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(r, "complete")))
        return util_errf(err, errlen, "result has no boolean complete");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "summary");
    if (s && !cJSON_IsObject(s))
        return util_errf(err, errlen, "summary is not an object");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(r, "histogram");
    if (h && !cJSON_IsNull(h)) {
        struct bench_hist *tmp = bench_hist_new();
        if (!tmp)
            return -ENOMEM;
        int rc = bench_hist_from_json(tmp, h);
        bench_hist_free(tmp);
        if (rc)
            return util_errf(err, errlen, "histogram is malformed");
    }
    return 0;
}

int bench_result_from_log(const char *log, size_t len, cJSON **out, char *err, size_t errlen)
{
    size_t end = len;
    while (end > 0) {
        size_t start = end;
        while (start > 0 && log[start - 1] != '\n')
            start--;
        const char *line = log + start;
        size_t n = end - start;
        while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
            n--;
        size_t skip = 0;
        while (skip < n && line[skip] == ' ')
            skip++;
        if (n > skip && line[skip] == '{' && line[n - 1] == '}') {
            cJSON *o = cJSON_ParseWithLength(line + skip, n - skip);
            if (o && cJSON_IsObject(o) && cJSON_GetObjectItemCaseSensitive(o, "schemaVersion")) {
                if (getnum(o, "schemaVersion") != BENCH_RESULT_SCHEMA_VERSION) {
                    cJSON_Delete(o);
                    util_errf(err, errlen, "result line has an unsupported schemaVersion");
                    return -EPROTO;
                }
                *out = o;
                return 0;
            }
            cJSON_Delete(o);
        }
        end = start ? start - 1 : 0;
    }
    util_errf(err, errlen, "no result line (JSON with schemaVersion) in the log");
    return -ENOENT;
}
