/* The result JSON (schemaVersion 1), its compact and human forms, and the reader for pod logs. */
#include "pkg/bench/result.h"
#include "pkg/bench/fields.h"
#include "pkg/util/buf.h"
#include "pkg/util/err.h"
#include "pkg/bench/text.h"
#include "pkg/util/clock.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A result key, named by its row in the contract table (fields.def). */
#define KEY(id) bench_key(BK_##id)

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
    char buf[UTIL_RFC3339_LEN];
    util_rfc3339(t, 3, buf, sizeof(buf));
    return put_str(o, key, buf);
}

cJSON *bench_result_new(const struct bench_result_meta *m)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    int rc = put_num(o, KEY(SCHEMA_VERSION), BENCH_RESULT_SCHEMA_VERSION);
    if (!rc)
        rc = put_str(o, KEY(KIND), m->kind ? m->kind : "pgbench");
    if (!rc)
        rc = put_bool(o, KEY(COMPLETE), m->complete);
    if (!rc)
        rc = put_count(o, KEY(WORKER), m->worker);
    if (!rc)
        rc = put_time(o, KEY(START_TIME), m->start_time);
    if (!rc)
        rc = put_time(o, KEY(END_TIME), m->end_time);
    if (!rc)
        rc = put_num(o, KEY(EXIT_CODE), m->exit_code);
    if (!rc)
        rc = put_count(o, KEY(CHILD_EXIT_CODE), m->child_exit);
    if (!rc && m->user)
        rc = put_str(o, KEY(USER), m->user);
    if (!rc)
        rc = put_item(o, KEY(ERRORS), cJSON_CreateArray());
    if (rc) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int bench_result_add_error(cJSON *result, const char *msg)
{
    cJSON *errors = cJSON_GetObjectItemCaseSensitive(result, KEY(ERRORS));
    if (!cJSON_IsArray(errors)) {
        errors = cJSON_CreateArray();
        if (put_item(result, KEY(ERRORS), errors))
            return -ENOMEM;
    }
    char *s =
        bench__strndup_message(msg ? msg : "", msg ? strlen(msg) : 0, BENCH_PGBENCH_MAX_ERROR_LEN);
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
    rc = rc ? rc : put_count(s, KEY(SUMMARY_TRANSACTIONS_PROCESSED), pg->transactions);
    rc = rc ? rc : put_count(s, KEY(SUMMARY_TRANSACTIONS_TARGET), pg->transactions_target);
    rc = rc ? rc : put_count(s, KEY(SUMMARY_FAILED_TRANSACTIONS), pg->failed);
    rc = rc ? rc : put_num(s, KEY(SUMMARY_FAILED_PCT), pg->failed_pct);
    rc = rc ? rc : put_count(s, KEY(SUMMARY_SERIALIZATION_FAILURES), pg->serialization_failures);
    rc = rc ? rc : put_count(s, KEY(SUMMARY_DEADLOCK_FAILURES), pg->deadlock_failures);
    rc = rc ? rc : put_count(s, KEY(SUMMARY_OTHER_FAILURES), pg->other_failures);
    rc = rc ? rc : put_count(s, KEY(SUMMARY_RETRIED), pg->retried);
    rc = rc ? rc : put_count(s, KEY(SUMMARY_RETRIES), pg->retries);
    rc = rc ? rc : put_count(s, KEY(SUMMARY_SKIPPED), pg->skipped);
    rc = rc ? rc : put_count(s, KEY(SUMMARY_ABOVE_LATENCY_LIMIT), pg->above_latency_limit);
    rc = rc ? rc : put_num(s, KEY(SUMMARY_ABORTED_CLIENTS), pg->aborted_clients);
    rc = rc ? rc : put_num(s, KEY(SUMMARY_TPS), pg->tps);
    rc = rc ? rc : put_num(s, KEY(SUMMARY_TPS_INCLUDING_CONNECT), pg->tps_including_connect);
    rc = rc ? rc
            : put_bool(s, KEY(SUMMARY_LATENCY_INCLUDES_FAILURES), pg->latency_includes_failures);
    rc = rc ? rc : put_num(s, KEY(SUMMARY_LATENCY_AVG_MS), pg->latency_avg_ms);
    rc = rc ? rc : put_num(s, KEY(SUMMARY_LATENCY_STDDEV_MS), pg->latency_stddev_ms);
    rc = rc ? rc : put_num(s, KEY(SUMMARY_INITIAL_CONNECTION_MS), pg->initial_connection_ms);
    rc = rc ? rc : put_num(s, KEY(SUMMARY_AVERAGE_CONNECTION_MS), pg->average_connection_ms);
    rc = rc ? rc : put_num(s, KEY(SUMMARY_RATE_LIMIT_LAG_AVG_MS), pg->rate_lag_avg_ms);
    rc = rc ? rc : put_num(s, KEY(SUMMARY_RATE_LIMIT_LAG_MAX_MS), pg->rate_lag_max_ms);
    int have = hist && hist->count > 0;
    rc = rc ? rc
            : put_num(s, KEY(SUMMARY_LATENCY_P50_MS),
                      have ? us_to_ms(bench_hist_percentile(hist, 50)) : NAN);
    rc = rc ? rc
            : put_num(s, KEY(SUMMARY_LATENCY_P90_MS),
                      have ? us_to_ms(bench_hist_percentile(hist, 90)) : NAN);
    rc = rc ? rc
            : put_num(s, KEY(SUMMARY_LATENCY_P95_MS),
                      have ? us_to_ms(bench_hist_percentile(hist, 95)) : NAN);
    rc = rc ? rc
            : put_num(s, KEY(SUMMARY_LATENCY_P99_MS),
                      have ? us_to_ms(bench_hist_percentile(hist, 99)) : NAN);
    rc = rc ? rc
            : put_num(s, KEY(SUMMARY_LATENCY_P999_MS),
                      have ? us_to_ms(bench_hist_percentile(hist, 99.9)) : NAN);
    rc = rc ? rc
            : put_num(s, KEY(SUMMARY_LATENCY_MAX_MS), have ? us_to_ms(bench_hist_max(hist)) : NAN);
    rc = rc ? rc
            : put_num(s, KEY(SUMMARY_LATENCY_MIN_MS), have ? us_to_ms(bench_hist_min(hist)) : NAN);
    rc = rc ? rc : put_count(s, KEY(SUMMARY_HISTOGRAM_COUNT), have ? (int64_t)hist->count : -1);
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
    /* pgbench prints no "maximum number of tries" for --max-tries=0 (unlimited): 0 from the
     * options then; not given and not printed (pgbench < 15) stays null */
    int64_t max_tries = pg->max_tries >= 0           ? pg->max_tries
                        : run && run->max_tries >= 0 ? run->max_tries
                                                     : -1;
    const char *mode = pg->query_mode[0] ? pg->query_mode
                       : run             ? bench_protocol_name(run->protocol)
                                         : NULL;
    int rc = 0;
    rc = rc ? rc : put_str(c, KEY(PGBENCH_VERSION), pg->version);
    rc = rc ? rc
            : put_str(c, KEY(PGBENCH_SERVER_VERSION),
                      pg->server_version[0] ? pg->server_version : NULL);
    rc = rc ? rc : put_str(c, KEY(PGBENCH_TRANSACTION_TYPE), pg->transaction_type);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_SCALE_FACTOR), pg->scale_factor);
    rc = rc ? rc : put_str(c, KEY(PGBENCH_PARTITION_METHOD), pg->partition_method);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_PARTITIONS), pg->partitions);
    rc = rc ? rc : put_str(c, KEY(PGBENCH_QUERY_MODE), mode);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_CLIENTS), clients);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_THREADS), threads);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_DURATION_SECONDS), duration);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_TRANSACTIONS_PER_CLIENT), per_client);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_MAX_TRIES), max_tries);
    rc = rc ? rc : put_num(c, KEY(PGBENCH_RATE), run && run->rate > 0 ? run->rate : NAN);
    rc = rc ? rc
            : put_num(c, KEY(PGBENCH_LATENCY_LIMIT_MS),
                      isfinite(pg->latency_limit_ms)     ? pg->latency_limit_ms
                      : run && run->latency_limit_ms > 0 ? run->latency_limit_ms
                                                         : NAN);
    if (run) {
        rc = rc ? rc : put_bool(c, KEY(PGBENCH_CONNECT), run->connect);
        rc = rc ? rc : put_bool(c, KEY(PGBENCH_NO_VACUUM), run->no_vacuum);
        rc = rc ? rc : put_bool(c, KEY(PGBENCH_FAILURES_DETAILED), run->failures_detailed);
        rc = rc ? rc : put_bool(c, KEY(PGBENCH_PER_STATEMENT), run->per_statement);
        rc = rc ? rc
                : put_count(c, KEY(PGBENCH_PROGRESS_SECONDS),
                            run->progress_s > 0 ? run->progress_s : -1);
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
    int rc = put_item(result, KEY(PGBENCH), config_json(pg, run));
    if (rc)
        return rc;
    cJSON *s = cJSON_CreateObject();
    if (put_item(result, KEY(SUMMARY), s))
        return -ENOMEM;
    rc = summary_json(s, pg, hist);
    if (rc)
        return rc;

    cJSON *st = cJSON_CreateArray();
    if (put_item(result, KEY(STATEMENTS), st))
        return -ENOMEM;
    for (size_t i = 0; i < pg->nstatements; i++) {
        const struct bench_pgbench_statement *x = &pg->statements[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return -ENOMEM;
        cJSON_AddItemToArray(st, o);
        rc = rc ? rc : put_num(o, KEY(STATEMENTS_SCRIPT), x->script);
        rc = rc ? rc : put_str(o, KEY(STATEMENTS_COMMAND), x->command);
        rc = rc ? rc : put_num(o, KEY(STATEMENTS_LATENCY_MS), x->latency_ms);
        rc = rc ? rc : put_count(o, KEY(STATEMENTS_FAILURES), x->failures);
        rc = rc ? rc : put_count(o, KEY(STATEMENTS_RETRIES), x->retries);
        if (rc)
            return rc;
    }
    cJSON *sc = cJSON_CreateArray();
    if (put_item(result, KEY(SCRIPTS), sc))
        return -ENOMEM;
    for (size_t i = 0; i < pg->nscripts; i++) {
        const struct bench_pgbench_script_stats *x = &pg->scripts[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return -ENOMEM;
        cJSON_AddItemToArray(sc, o);
        rc = rc ? rc : put_num(o, KEY(SCRIPTS_SCRIPT), x->script);
        rc = rc ? rc : put_str(o, KEY(SCRIPTS_NAME), x->name);
        rc = rc ? rc : put_count(o, KEY(SCRIPTS_WEIGHT), x->weight);
        rc = rc ? rc : put_count(o, KEY(SCRIPTS_TRANSACTIONS_PROCESSED), x->transactions);
        rc = rc ? rc : put_count(o, KEY(SCRIPTS_FAILED_TRANSACTIONS), x->failed);
        rc = rc ? rc : put_num(o, KEY(SCRIPTS_TPS), x->tps);
        rc = rc ? rc : put_num(o, KEY(SCRIPTS_LATENCY_AVG_MS), x->latency_avg_ms);
        rc = rc ? rc : put_num(o, KEY(SCRIPTS_LATENCY_STDDEV_MS), x->latency_stddev_ms);
        if (rc)
            return rc;
    }
    cJSON *tl = cJSON_CreateArray();
    if (put_item(result, KEY(TIMELINE), tl))
        return -ENOMEM;
    for (size_t i = 0; i < pg->ntimeline; i++) {
        const struct bench_timeline_point *x = &pg->timeline[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return -ENOMEM;
        cJSON_AddItemToArray(tl, o);
        rc = rc ? rc : put_num(o, KEY(TIMELINE_T), x->t);
        rc = rc ? rc : put_num(o, KEY(TIMELINE_TPS), x->tps);
        rc = rc ? rc : put_num(o, KEY(TIMELINE_LATENCY_MS), x->latency_ms);
        rc = rc ? rc : put_num(o, KEY(TIMELINE_STDDEV_MS), x->stddev_ms);
        rc = rc ? rc : put_count(o, KEY(TIMELINE_FAILED), x->failed);
        rc = rc ? rc : put_num(o, KEY(TIMELINE_LAG_MS), x->lag_ms);
        rc = rc ? rc : put_count(o, KEY(TIMELINE_SKIPPED), x->skipped);
        rc = rc ? rc : put_count(o, KEY(TIMELINE_RETRIED), x->retried);
        rc = rc ? rc : put_count(o, KEY(TIMELINE_RETRIES), x->retries);
        if (rc)
            return rc;
    }
    if (hist && hist->count > 0)
        rc = put_item(result, KEY(HISTOGRAM), bench_hist_to_json(hist));
    else
        rc = put_item(result, KEY(HISTOGRAM), cJSON_CreateNull());
    for (size_t i = 0; !rc && i < pg->nerrors; i++)
        rc = bench_result_add_error(result, pg->errors[i]);
    if (!rc && (pg->errors_dropped || pg->statements_dropped || pg->timeline_dropped)) {
        cJSON *d = cJSON_CreateObject();
        rc = put_item(result, KEY(DROPPED), d);
        rc = rc ? rc : put_num(d, KEY(DROPPED_ERRORS), (double)pg->errors_dropped);
        rc = rc ? rc : put_num(d, KEY(DROPPED_STATEMENTS), (double)pg->statements_dropped);
        rc = rc ? rc : put_num(d, KEY(DROPPED_TIMELINE), (double)pg->timeline_dropped);
    }
    return rc;
}

int bench_result_add_fio(cJSON *result, const struct bench_fio_result *fio)
{
    return put_item(result, KEY(FIO), bench_fio_result_to_json(fio));
}

static int add_error_cb(const char *msg, void *ctx)
{
    return bench_result_add_error(ctx, msg);
}

int bench_result_add_fio_errors(cJSON *result, const struct bench_fio_result *fio)
{
    return bench_fio_result_errors(fio, add_error_cb, result);
}

int bench_result_add_init(cJSON *result, bool skipped, const char *reason, int scale,
                          double duration_s)
{
    cJSON *o = cJSON_CreateObject();
    int rc = put_item(result, KEY(INIT), o);
    rc = rc ? rc : put_bool(o, KEY(INIT_SKIPPED), skipped);
    rc = rc ? rc : put_str(o, KEY(INIT_REASON), reason);
    rc = rc ? rc : put_count(o, KEY(INIT_SCALE), scale);
    rc = rc ? rc : put_num(o, KEY(INIT_DURATION_SECONDS), duration_s >= 0 ? duration_s : NAN);
    return rc;
}

int bench_result_add_window(cJSON *result, double barrier, double start, double end)
{
    if (!(barrier > 0))
        return 0;
    int rc = bench_put(result, BK_WINDOW, cJSON_CreateObject());
    cJSON *w = cJSON_GetObjectItemCaseSensitive(result, bench_key(BK_WINDOW));
    rc = rc ? rc : put_time(w, bench_key(BK_WINDOW_BARRIER), barrier);
    rc = rc ? rc
            : bench_put(result, BK_WINDOW_LATE_SECONDS,
                        start > 0 ? cJSON_CreateNumber(round((start - barrier) * 1e3) / 1e3)
                                  : cJSON_CreateNull());
    rc = rc ? rc
            : bench_put(result, BK_WINDOW_END_SECONDS,
                        end > 0 ? cJSON_CreateNumber(round((end - barrier) * 1e3) / 1e3)
                                : cJSON_CreateNull());
    rc = rc ? rc
            : bench_put(result, BK_WINDOW_SECONDS,
                        start > 0 && end >= start
                            ? cJSON_CreateNumber(round((end - start) * 1e3) / 1e3)
                            : cJSON_CreateNull());
    return rc;
}

int bench_result_set_diagnostic(cJSON *result, enum bench_field_id id, cJSON *value)
{
    if (!value || !result) {
        cJSON_Delete(value);
        return -EINVAL;
    }
    return bench_put(result, id, value);
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
    rc = rc ? rc : put_num(o, KEY(CHECKS_LITTLES_LAW_CLIENTS), clients);
    rc = rc ? rc : put_num(o, KEY(CHECKS_LITTLES_LAW_LATENCY_AVG_MS), latency_avg_ms);
    rc = rc ? rc : put_num(o, KEY(CHECKS_LITTLES_LAW_PREDICTED_TPS), predicted);
    rc = rc ? rc : put_num(o, KEY(CHECKS_LITTLES_LAW_MEASURED_TPS), measured_tps);
    rc = rc ? rc : put_num(o, KEY(CHECKS_LITTLES_LAW_DEVIATION_PCT), dev);
    rc = rc ? rc
            : put_str(o, KEY(CHECKS_LITTLES_LAW_NOTE),
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
    int rc = put_count(o, KEY(CHECKS_DATASET_DATABASE_BYTES), database_bytes);
    rc = rc ? rc : put_count(o, KEY(CHECKS_DATASET_SHARED_BUFFERS_BYTES), shared_buffers_bytes);
    if (known)
        rc = rc ? rc : put_bool(o, KEY(CHECKS_DATASET_FITS_IN_SHARED_BUFFERS), fits);
    else
        rc = rc ? rc : put_str(o, KEY(CHECKS_DATASET_FITS_IN_SHARED_BUFFERS), NULL);
    rc = rc ? rc
            : put_num(o, KEY(CHECKS_DATASET_RATIO),
                      known ? (double)database_bytes / (double)shared_buffers_bytes : NAN);
    rc = rc ? rc
            : put_str(o, KEY(CHECKS_DATASET_WARNING),
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
        const char *rel = list                    ? bench_field_under(f->path, list)
                          : strstr(f->path, "[]") ? NULL
                                                  : f->path;
        if (!rel)
            continue;
        if (f->type == BF_LIST) {
            const cJSON *items = bench_json_at(src, rel), *it;
            cJSON *arr = cJSON_IsArray(items) ? cJSON_CreateArray() : NULL;
            if (!arr || bench_json_put(dst, rel, arr))
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
    cJSON_AddBoolToObject(c, KEY(TRUNCATED), false);
    cJSON *errs = cJSON_AddArrayToObject(c, KEY(ERRORS));

    /* Drop optional sections, the table's last first, until the base fits (only pathological
     * inputs get here). */
    size_t di = bench_nfields;
    for (;;) {
        out = cJSON_PrintUnformatted(c);
        if (!out)
            goto out;
        while (di > 0 &&
               !(bench_fields[di - 1].compact && bench_fields[di - 1].type == BF_SECTION &&
                 !strchr(bench_fields[di - 1].path, '.')))
            di--;
        if (strlen(out) < limit || di == 0)
            break;
        free(out);
        out = NULL;
        cJSON_DeleteItemFromObjectCaseSensitive(c, bench_fields[--di].path);
        cJSON_ReplaceItemInObjectCaseSensitive(c, KEY(TRUNCATED), cJSON_CreateTrue());
    }
    if (strlen(out) >= limit) { /* strings inside still too long: minimal object */
        free(out);
        out = NULL;
        goto minimal;
    }
    /* Add errors (each cut to 240 bytes) while they fit. */
    const cJSON *errors = bench_get(result, BK_ERRORS), *e;
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
        cJSON_ReplaceItemInObjectCaseSensitive(c, KEY(TRUNCATED), cJSON_CreateTrue());
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
        cJSON *m = cJSON_CreateObject();
        double ec = bench_num(result, BK_EXIT_CODE);
        if (m && cJSON_AddNumberToObject(m, KEY(SCHEMA_VERSION), BENCH_RESULT_SCHEMA_VERSION) &&
            cJSON_AddBoolToObject(m, KEY(COMPLETE), cJSON_IsTrue(bench_get(result, BK_COMPLETE))) &&
            cJSON_AddNumberToObject(m, KEY(EXIT_CODE), isfinite(ec) ? (int)ec : 1) &&
            cJSON_AddTrueToObject(m, KEY(TRUNCATED)))
            out = cJSON_PrintUnformatted(m);
        cJSON_Delete(m);
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
    const cJSON *kind = bench_get(result, BK_KIND);
    const cJSON *complete = bench_get(result, BK_COMPLETE);
    const cJSON *cfg = bench_get(result, BK_PGBENCH);
    const cJSON *s = bench_get(result, BK_SUMMARY);
    oom |= buf_printf(
        &h, "%s: %s (exit code %d)\n", cJSON_IsString(kind) ? kind->valuestring : "result",
        cJSON_IsTrue(complete) ? "complete" : "INCOMPLETE",
        isfinite(bench_num(result, BK_EXIT_CODE)) ? (int)bench_num(result, BK_EXIT_CODE) : -1);
    if (cJSON_IsObject(cfg)) {
        const cJSON *tt = bench_get(result, BK_PGBENCH_TRANSACTION_TYPE);
        const cJSON *ver = bench_get(result, BK_PGBENCH_VERSION);
        oom |= buf_printf(&h, "pgbench %s: %s", cJSON_IsString(ver) ? ver->valuestring : "?",
                          cJSON_IsString(tt) ? tt->valuestring : "?");
        if (isfinite(bench_num(result, BK_PGBENCH_SCALE_FACTOR)))
            oom |= buf_printf(&h, ", scale %.0f", bench_num(result, BK_PGBENCH_SCALE_FACTOR));
        if (isfinite(bench_num(result, BK_PGBENCH_CLIENTS)))
            oom |= buf_printf(&h, ", %.0f clients", bench_num(result, BK_PGBENCH_CLIENTS));
        if (isfinite(bench_num(result, BK_PGBENCH_THREADS)))
            oom |= buf_printf(&h, ", %.0f threads", bench_num(result, BK_PGBENCH_THREADS));
        if (isfinite(bench_num(result, BK_PGBENCH_DURATION_SECONDS)))
            oom |= buf_printf(&h, ", %.0f s", bench_num(result, BK_PGBENCH_DURATION_SECONDS));
        oom |= buf_printf(&h, "\n");
    }
    if (cJSON_IsObject(s)) {
        oom |= buf_printf(&h, "transactions %.0f",
                          isfinite(bench_num(result, BK_SUMMARY_TRANSACTIONS_PROCESSED))
                              ? bench_num(result, BK_SUMMARY_TRANSACTIONS_PROCESSED)
                              : 0);
        if (isfinite(bench_num(result, BK_SUMMARY_FAILED_TRANSACTIONS)))
            oom |=
                buf_printf(&h, ", failed %.0f", bench_num(result, BK_SUMMARY_FAILED_TRANSACTIONS));
        else
            oom |= buf_printf(&h, ", failed n/a (pgbench < 15)");
        oom |= buf_printf(&h, ", aborted clients %.0f",
                          isfinite(bench_num(result, BK_SUMMARY_ABORTED_CLIENTS))
                              ? bench_num(result, BK_SUMMARY_ABORTED_CLIENTS)
                              : 0);
        if (isfinite(bench_num(result, BK_SUMMARY_RETRIED)))
            oom |= buf_printf(&h, ", retried %.0f", bench_num(result, BK_SUMMARY_RETRIED));
        if (isfinite(bench_num(result, BK_SUMMARY_SKIPPED)))
            oom |= buf_printf(&h, ", skipped %.0f", bench_num(result, BK_SUMMARY_SKIPPED));
        oom |= buf_printf(&h, "\n");
        if (isfinite(bench_num(result, BK_SUMMARY_TPS)))
            oom |= buf_printf(&h, "tps %.3f\n", bench_num(result, BK_SUMMARY_TPS));
        oom |= buf_printf(&h, "latency ms:");
        oom |= hnum(&h, "avg", bench_num(result, BK_SUMMARY_LATENCY_AVG_MS), "");
        oom |= hnum(&h, "stddev", bench_num(result, BK_SUMMARY_LATENCY_STDDEV_MS), "");
        oom |= hnum(&h, "p50", bench_num(result, BK_SUMMARY_LATENCY_P50_MS), "");
        oom |= hnum(&h, "p90", bench_num(result, BK_SUMMARY_LATENCY_P90_MS), "");
        oom |= hnum(&h, "p95", bench_num(result, BK_SUMMARY_LATENCY_P95_MS), "");
        oom |= hnum(&h, "p99", bench_num(result, BK_SUMMARY_LATENCY_P99_MS), "");
        oom |= hnum(&h, "p99.9", bench_num(result, BK_SUMMARY_LATENCY_P999_MS), "");
        oom |= hnum(&h, "max", bench_num(result, BK_SUMMARY_LATENCY_MAX_MS), "");
        oom |= buf_printf(&h, "\n");
        if (isfinite(bench_num(result, BK_SUMMARY_INITIAL_CONNECTION_MS)))
            oom |= buf_printf(&h, "initial connection time %.3f ms\n",
                              bench_num(result, BK_SUMMARY_INITIAL_CONNECTION_MS));
    }
    const cJSON *init = bench_get(result, BK_INIT);
    if (cJSON_IsObject(init)) {
        const cJSON *reason = bench_get(result, BK_INIT_REASON);
        oom |= buf_printf(&h, "init: scale %.0f%s\n", bench_num(result, BK_INIT_SCALE),
                          cJSON_IsTrue(bench_get(result, BK_INIT_SKIPPED)) ? ", skipped" : "");
        if (cJSON_IsString(reason))
            oom |= buf_printf(&h, "  %s\n", reason->valuestring);
    }
    static const struct {
        const char *label;
        enum bench_field_id iops, bw, p99;
    } dirs[] = {
        {"read", BK_FIO_JOBS_READ_IOPS, BK_FIO_JOBS_READ_BW_KI_BS, BK_FIO_JOBS_READ_CLAT_US_P99},
        {"write", BK_FIO_JOBS_WRITE_IOPS, BK_FIO_JOBS_WRITE_BW_KI_BS,
         BK_FIO_JOBS_WRITE_CLAT_US_P99},
    };
    const cJSON *j;
    cJSON_ArrayForEach(j, bench_get(result, BK_FIO_JOBS))
    {
        const cJSON *name = bench_get(j, BK_FIO_JOBS_NAME);
        oom |= buf_printf(&h, "fio %s:", cJSON_IsString(name) ? name->valuestring : "?");
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
            if (!isfinite(bench_num(j, dirs[i].iops)))
                continue;
            oom |= buf_printf(&h, " %s", dirs[i].label);
            oom |= hnum(&h, "iops", bench_num(j, dirs[i].iops), "");
            oom |= hnum(&h, "bw", bench_num(j, dirs[i].bw), " KiB/s");
            oom |= hnum(&h, "clat p99", bench_num(j, dirs[i].p99), " us");
            oom |= buf_printf(&h, ";");
        }
        oom |= hnum(&h, "sync p99", bench_num(j, BK_FIO_JOBS_SYNC_P99), " us");
        oom |= buf_printf(&h, "\n");
    }
    const cJSON *warn = bench_get(result, BK_CHECKS_DATASET_WARNING);
    if (cJSON_IsString(warn))
        oom |= buf_printf(&h, "warning: %s\n", warn->valuestring);
    if (bench_get(result, BK_CHECKS_LITTLES_LAW))
        oom |= buf_printf(&h, "Little's law: predicted %.1f tps, measured %.1f tps (%+.1f%%)\n",
                          bench_num(result, BK_CHECKS_LITTLES_LAW_PREDICTED_TPS),
                          bench_num(result, BK_CHECKS_LITTLES_LAW_MEASURED_TPS),
                          bench_num(result, BK_CHECKS_LITTLES_LAW_DEVIATION_PCT));
    const cJSON *errors = bench_get(result, BK_ERRORS), *e;
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
    double v = bench_num(r, BK_SCHEMA_VERSION);
    if (v != BENCH_RESULT_SCHEMA_VERSION)
        return util_errf(err, errlen, "unsupported schemaVersion");
    const cJSON *kind = bench_get(r, BK_KIND);
    if (!cJSON_IsString(kind) ||
        (strcmp(kind->valuestring, "pgbench") != 0 &&
         strcmp(kind->valuestring, "pgbench-init") != 0 && strcmp(kind->valuestring, "fio") != 0))
        return util_errf(err, errlen, "result kind must be pgbench, pgbench-init or fio");
    if (!cJSON_IsBool(bench_get(r, BK_COMPLETE)))
        return util_errf(err, errlen, "result has no boolean complete");
    const cJSON *s = bench_get(r, BK_SUMMARY);
    if (s && !cJSON_IsObject(s))
        return util_errf(err, errlen, "summary is not an object");
    const cJSON *h = bench_get(r, BK_HISTOGRAM);
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
            if (o && cJSON_IsObject(o) && bench_get(o, BK_SCHEMA_VERSION)) {
                if (bench_num(o, BK_SCHEMA_VERSION) != BENCH_RESULT_SCHEMA_VERSION) {
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
