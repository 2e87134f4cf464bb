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
#include <stddef.h>
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

/* How a row's value sits in a C struct: put_rows writes it at its key, null for NAN/negative. */
enum put_kind {
    PUT_NUM,       /* double */
    PUT_INT,       /* int, as is */
    PUT_COUNT,     /* int64_t, negative: null */
    PUT_COUNT_INT, /* int, negative: null */
    PUT_BOOL,      /* bool */
    PUT_STR,       /* char *, NULL or empty: null */
};

struct put_row {
    enum bench_field_id id;
    enum put_kind kind;
    size_t off; /* in the struct */
};

#define PG_ROW(id, kind, f)                                                                        \
    {                                                                                              \
        BK_##id, kind, offsetof(struct bench_pgbench_result, f)                                    \
    }
#define ST_ROW(id, kind, f)                                                                        \
    {                                                                                              \
        BK_##id, kind, offsetof(struct bench_pgbench_statement, f)                                 \
    }
#define SC_ROW(id, kind, f)                                                                        \
    {                                                                                              \
        BK_##id, kind, offsetof(struct bench_pgbench_script_stats, f)                              \
    }
#define TL_ROW(id, kind, f)                                                                        \
    {                                                                                              \
        BK_##id, kind, offsetof(struct bench_timeline_point, f)                                    \
    }
#define NROWS(rows) (sizeof(rows) / sizeof(rows[0]))

static int put_rows(cJSON *o, const void *src, const struct put_row *rows, size_t n)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        const char *f = (const char *)src + rows[i].off;
        const char *k = bench_key(rows[i].id);
        switch (rows[i].kind) {
        case PUT_NUM:
            rc = put_num(o, k, *(const double *)(const void *)f);
            break;
        case PUT_INT:
            rc = put_num(o, k, *(const int *)(const void *)f);
            break;
        case PUT_COUNT:
            rc = put_count(o, k, *(const int64_t *)(const void *)f);
            break;
        case PUT_COUNT_INT:
            rc = put_count(o, k, *(const int *)(const void *)f);
            break;
        case PUT_BOOL:
            rc = put_bool(o, k, *(const bool *)(const void *)f);
            break;
        case PUT_STR:
            rc = put_str(o, k, *(char *const *)(const void *)f);
            break;
        }
    }
    return rc;
}

/* The array key of result: one object per item of items (n of size bytes), rows from each. */
static int put_list(cJSON *result, const char *key, const void *items, size_t n, size_t size,
                    const struct put_row *rows, size_t nrows)
{
    cJSON *arr = cJSON_CreateArray();
    if (put_item(result, key, arr))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            return -ENOMEM;
        cJSON_AddItemToArray(arr, o);
        int rc = put_rows(o, (const char *)items + i * size, rows, nrows);
        if (rc)
            return rc;
    }
    return 0;
}

/* The summary's rows from pgbench's final report (the histogram's are bench_result_put_hist). */
static const struct put_row summary_rows[] = {
    PG_ROW(SUMMARY_TRANSACTIONS_PROCESSED, PUT_COUNT, transactions),
    PG_ROW(SUMMARY_TRANSACTIONS_TARGET, PUT_COUNT, transactions_target),
    PG_ROW(SUMMARY_FAILED_TRANSACTIONS, PUT_COUNT, failed),
    PG_ROW(SUMMARY_FAILED_PCT, PUT_NUM, failed_pct),
    PG_ROW(SUMMARY_SERIALIZATION_FAILURES, PUT_COUNT, serialization_failures),
    PG_ROW(SUMMARY_DEADLOCK_FAILURES, PUT_COUNT, deadlock_failures),
    PG_ROW(SUMMARY_OTHER_FAILURES, PUT_COUNT, other_failures),
    PG_ROW(SUMMARY_RETRIED, PUT_COUNT, retried),
    PG_ROW(SUMMARY_RETRIES, PUT_COUNT, retries),
    PG_ROW(SUMMARY_SKIPPED, PUT_COUNT, skipped),
    PG_ROW(SUMMARY_ABOVE_LATENCY_LIMIT, PUT_COUNT, above_latency_limit),
    PG_ROW(SUMMARY_ABORTED_CLIENTS, PUT_INT, aborted_clients),
    PG_ROW(SUMMARY_TPS, PUT_NUM, tps),
    PG_ROW(SUMMARY_TPS_INCLUDING_CONNECT, PUT_NUM, tps_including_connect),
    PG_ROW(SUMMARY_LATENCY_INCLUDES_FAILURES, PUT_BOOL, latency_includes_failures),
    PG_ROW(SUMMARY_LATENCY_AVG_MS, PUT_NUM, latency_avg_ms),
    PG_ROW(SUMMARY_LATENCY_STDDEV_MS, PUT_NUM, latency_stddev_ms),
    PG_ROW(SUMMARY_INITIAL_CONNECTION_MS, PUT_NUM, initial_connection_ms),
    PG_ROW(SUMMARY_AVERAGE_CONNECTION_MS, PUT_NUM, average_connection_ms),
    PG_ROW(SUMMARY_RATE_LIMIT_LAG_AVG_MS, PUT_NUM, rate_lag_avg_ms),
    PG_ROW(SUMMARY_RATE_LIMIT_LAG_MAX_MS, PUT_NUM, rate_lag_max_ms),
};

static const struct put_row statement_rows[] = {
    ST_ROW(STATEMENTS_SCRIPT, PUT_INT, script),
    ST_ROW(STATEMENTS_COMMAND, PUT_STR, command),
    ST_ROW(STATEMENTS_LATENCY_MS, PUT_NUM, latency_ms),
    ST_ROW(STATEMENTS_FAILURES, PUT_COUNT, failures),
    ST_ROW(STATEMENTS_RETRIES, PUT_COUNT, retries),
};

static const struct put_row script_rows[] = {
    SC_ROW(SCRIPTS_SCRIPT, PUT_INT, script),
    SC_ROW(SCRIPTS_NAME, PUT_STR, name),
    SC_ROW(SCRIPTS_WEIGHT, PUT_COUNT_INT, weight),
    SC_ROW(SCRIPTS_TRANSACTIONS_PROCESSED, PUT_COUNT, transactions),
    SC_ROW(SCRIPTS_FAILED_TRANSACTIONS, PUT_COUNT, failed),
    SC_ROW(SCRIPTS_TPS, PUT_NUM, tps),
    SC_ROW(SCRIPTS_LATENCY_AVG_MS, PUT_NUM, latency_avg_ms),
    SC_ROW(SCRIPTS_LATENCY_STDDEV_MS, PUT_NUM, latency_stddev_ms),
};

static const struct put_row timeline_rows[] = {
    TL_ROW(TIMELINE_T, PUT_NUM, t),
    TL_ROW(TIMELINE_TPS, PUT_NUM, tps),
    TL_ROW(TIMELINE_LATENCY_MS, PUT_NUM, latency_ms),
    TL_ROW(TIMELINE_STDDEV_MS, PUT_NUM, stddev_ms),
    TL_ROW(TIMELINE_FAILED, PUT_COUNT, failed),
    TL_ROW(TIMELINE_LAG_MS, PUT_NUM, lag_ms),
    TL_ROW(TIMELINE_SKIPPED, PUT_COUNT, skipped),
    TL_ROW(TIMELINE_RETRIED, PUT_COUNT, retried),
    TL_ROW(TIMELINE_RETRIES, PUT_COUNT, retries),
};

/* The summary rows read from a latency histogram: a percentile, or (pct < 0) its max/min. */
static const struct {
    enum bench_field_id id;
    double pct;
} hist_rows[] = {
    {BK_SUMMARY_LATENCY_P50_MS, 50},    {BK_SUMMARY_LATENCY_P90_MS, 90},
    {BK_SUMMARY_LATENCY_P95_MS, 95},    {BK_SUMMARY_LATENCY_P99_MS, 99},
    {BK_SUMMARY_LATENCY_P999_MS, 99.9}, {BK_SUMMARY_LATENCY_MAX_MS, -1},
    {BK_SUMMARY_LATENCY_MIN_MS, -2},
};

int bench_result_put_hist(cJSON *summary, const struct bench_hist *hist)
{
    int have = hist && hist->count > 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < NROWS(hist_rows); i++) {
        double us = NAN;
        if (have && hist_rows[i].pct >= 0)
            us = (double)bench_hist_percentile(hist, hist_rows[i].pct);
        else if (have)
            us = (double)(hist_rows[i].pct == -1 ? bench_hist_max(hist) : bench_hist_min(hist));
        rc = put_num(summary, bench_key(hist_rows[i].id), us / 1000.0);
    }
    return rc ? rc
              : put_count(summary, KEY(SUMMARY_HISTOGRAM_COUNT), have ? (int64_t)hist->count : -1);
}

/* What the run's options say, for the config fields pgbench's report does not print: -1, NULL or
 * NAN when unknown (no options). */
struct run_cfg {
    int clients, threads, duration;
    int64_t per_client, max_tries;
    const char *mode;
    double rate, latency_limit_ms;
};

static struct run_cfg run_cfg(const struct bench_pgbench_run_opts *run)
{
    struct run_cfg d = {-1, -1, -1, -1, -1, NULL, NAN, NAN};
    if (!run)
        return d;
    d.clients = run->clients;
    d.threads = run->threads > run->clients ? run->clients : run->threads;
    d.duration = run->duration_s > 0 ? run->duration_s : -1;
    d.per_client = run->transactions > 0 ? run->transactions : -1;
    /* pgbench prints no "maximum number of tries" for --max-tries=0 (unlimited): 0 from the
     * options then; not given and not printed (pgbench < 15) stays null */
    d.max_tries = run->max_tries >= 0 ? run->max_tries : -1;
    d.mode = bench_protocol_name(run->protocol);
    d.rate = run->rate > 0 ? run->rate : NAN;
    d.latency_limit_ms = run->latency_limit_ms > 0 ? run->latency_limit_ms : NAN;
    return d;
}

/* What pgbench printed wins over the options. */
static void printed_wins(struct run_cfg *d, const struct bench_pgbench_result *pg)
{
    if (pg->clients >= 0)
        d->clients = pg->clients;
    if (pg->threads >= 0)
        d->threads = pg->threads;
    if (pg->duration_s >= 0)
        d->duration = pg->duration_s;
    if (pg->transactions_per_client >= 0)
        d->per_client = pg->transactions_per_client;
    if (pg->max_tries >= 0)
        d->max_tries = pg->max_tries;
    if (pg->query_mode[0])
        d->mode = pg->query_mode;
    if (isfinite(pg->latency_limit_ms))
        d->latency_limit_ms = pg->latency_limit_ms;
}

/* The switches only the options know. */
static int put_run_switches(cJSON *c, const struct bench_pgbench_run_opts *run)
{
    int rc = put_bool(c, KEY(PGBENCH_CONNECT), run->connect);
    rc = rc ? rc : put_bool(c, KEY(PGBENCH_NO_VACUUM), run->no_vacuum);
    rc = rc ? rc : put_bool(c, KEY(PGBENCH_FAILURES_DETAILED), run->failures_detailed);
    rc = rc ? rc : put_bool(c, KEY(PGBENCH_PER_STATEMENT), run->per_statement);
    rc = rc ? rc
            : put_count(c, KEY(PGBENCH_PROGRESS_SECONDS),
                        run->progress_s > 0 ? run->progress_s : -1);
    return rc;
}

static cJSON *config_json(const struct bench_pgbench_result *pg,
                          const struct bench_pgbench_run_opts *run)
{
    cJSON *c = cJSON_CreateObject();
    if (!c)
        return NULL;
    struct run_cfg v = run_cfg(run);
    printed_wins(&v, pg);
    int rc = put_str(c, KEY(PGBENCH_VERSION), pg->version);
    rc = rc ? rc
            : put_str(c, KEY(PGBENCH_SERVER_VERSION),
                      pg->server_version[0] ? pg->server_version : NULL);
    rc = rc ? rc : put_str(c, KEY(PGBENCH_TRANSACTION_TYPE), pg->transaction_type);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_SCALE_FACTOR), pg->scale_factor);
    rc = rc ? rc : put_str(c, KEY(PGBENCH_PARTITION_METHOD), pg->partition_method);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_PARTITIONS), pg->partitions);
    rc = rc ? rc : put_str(c, KEY(PGBENCH_QUERY_MODE), v.mode);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_CLIENTS), v.clients);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_THREADS), v.threads);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_DURATION_SECONDS), v.duration);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_TRANSACTIONS_PER_CLIENT), v.per_client);
    rc = rc ? rc : put_count(c, KEY(PGBENCH_MAX_TRIES), v.max_tries);
    rc = rc ? rc : put_num(c, KEY(PGBENCH_RATE), v.rate);
    rc = rc ? rc : put_num(c, KEY(PGBENCH_LATENCY_LIMIT_MS), v.latency_limit_ms);
    if (run && !rc)
        rc = put_run_switches(c, run);
    if (rc) {
        cJSON_Delete(c);
        return NULL;
    }
    return c;
}

/* pgbench's error lines, and what the caps dropped. */
static int put_pgbench_errors(cJSON *result, const struct bench_pgbench_result *pg)
{
    int rc = 0;
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
    rc = put_rows(s, pg, summary_rows, NROWS(summary_rows));
    rc = rc ? rc : bench_result_put_hist(s, hist);
    rc = rc ? rc
            : put_list(result, KEY(STATEMENTS), pg->statements, pg->nstatements,
                       sizeof(*pg->statements), statement_rows, NROWS(statement_rows));
    rc = rc ? rc
            : put_list(result, KEY(SCRIPTS), pg->scripts, pg->nscripts, sizeof(*pg->scripts),
                       script_rows, NROWS(script_rows));
    rc = rc ? rc
            : put_list(result, KEY(TIMELINE), pg->timeline, pg->ntimeline, sizeof(*pg->timeline),
                       timeline_rows, NROWS(timeline_rows));
    if (rc)
        return rc;
    if (hist && hist->count > 0)
        rc = put_item(result, KEY(HISTOGRAM), bench_hist_to_json(hist));
    else
        rc = put_item(result, KEY(HISTOGRAM), cJSON_CreateNull());
    return rc ? rc : put_pgbench_errors(result, pg);
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

/* The optional top-level sections of the compact rows, the table's last first, dropped from c
 * until it prints shorter than limit (only pathological inputs need this). Returns 0 with the
 * printed form in *out, -E2BIG when even the base does not fit, or -ENOMEM. */
static int compact_fit(cJSON *c, size_t limit, char **out)
{
    size_t di = bench_nfields;
    for (;;) {
        *out = cJSON_PrintUnformatted(c);
        if (!*out)
            return -ENOMEM;
        while (di > 0 &&
               !(bench_fields[di - 1].compact && bench_fields[di - 1].type == BF_SECTION &&
                 !strchr(bench_fields[di - 1].path, '.')))
            di--;
        if (strlen(*out) < limit)
            return 0;
        free(*out);
        *out = NULL;
        if (di == 0)
            return -E2BIG; /* strings inside still too long */
        cJSON_DeleteItemFromObjectCaseSensitive(c, bench_fields[--di].path);
        cJSON_ReplaceItemInObjectCaseSensitive(c, KEY(TRUNCATED), cJSON_CreateTrue());
    }
}

/* Adds result's errors (each cut to 240 bytes) to c's errs while c prints shorter than limit;
 * truncated when some did not fit. Returns the printed form (out, or a newer one). */
static char *compact_errors(cJSON *c, cJSON *errs, const cJSON *result, char *out, size_t limit)
{
    const cJSON *errors = bench_get(result, BK_ERRORS), *e;
    int total = cJSON_GetArraySize(errors), added = 0;
    cJSON_ArrayForEach(e, errors)
    {
        if (!cJSON_IsString(e))
            continue;
        char *msg = bench__strndup_clean(e->valuestring, strlen(e->valuestring), 240);
        cJSON *item = msg ? cJSON_CreateString(msg) : NULL;
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
    return out;
}

/* When nothing else fits: schemaVersion, complete, exitCode, truncated. */
static char *compact_minimal(const cJSON *result)
{
    char *out = NULL;
    cJSON *m = cJSON_CreateObject();
    double ec = bench_num(result, BK_EXIT_CODE);
    if (m && cJSON_AddNumberToObject(m, KEY(SCHEMA_VERSION), BENCH_RESULT_SCHEMA_VERSION) &&
        cJSON_AddBoolToObject(m, KEY(COMPLETE), cJSON_IsTrue(bench_get(result, BK_COMPLETE))) &&
        cJSON_AddNumberToObject(m, KEY(EXIT_CODE), isfinite(ec) ? (int)ec : 1) &&
        cJSON_AddTrueToObject(m, KEY(TRUNCATED)))
        out = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    return out;
}

char *bench_result_compact(const cJSON *result, size_t limit)
{
    if (limit < 256)
        limit = 256;
    cJSON *c = cJSON_CreateObject();
    if (!c)
        return NULL;
    compact_copy(c, result, NULL);
    cJSON_AddBoolToObject(c, KEY(TRUNCATED), false);
    cJSON *errs = cJSON_AddArrayToObject(c, KEY(ERRORS));
    char *out = NULL;
    int rc = compact_fit(c, limit, &out);
    if (!rc)
        out = compact_errors(c, errs, result, out, limit);
    cJSON_Delete(c);
    return rc == -E2BIG ? compact_minimal(result) : out;
}

/* ---- human summary ---- */

static int hnum(struct buf *h, const char *label, double v, const char *unit)
{
    if (isfinite(v))
        return buf_printf(h, " %s %.3f%s", label, v, unit);
    return 0;
}

/* A number of result, when it is there: before, the number with prec decimals, after. */
static int hopt(struct buf *h, const cJSON *result, const char *before, int prec,
                enum bench_field_id id, const char *after)
{
    double v = bench_num(result, id);
    return isfinite(v) ? buf_printf(h, "%s%.*f%s", before, prec, v, after) : 0;
}

/* A count of result, 0 when absent. */
static double count_or_0(const cJSON *result, enum bench_field_id id)
{
    double v = bench_num(result, id);
    return isfinite(v) ? v : 0;
}

/* "pgbench 16.4: <builtin: TPC-B (sort of)>, scale 10, 8 clients, 2 threads, 60 s" */
static int human_config(struct buf *h, const cJSON *result)
{
    const cJSON *tt = bench_get(result, BK_PGBENCH_TRANSACTION_TYPE);
    const cJSON *ver = bench_get(result, BK_PGBENCH_VERSION);
    int oom = buf_printf(h, "pgbench %s: %s", cJSON_IsString(ver) ? ver->valuestring : "?",
                         cJSON_IsString(tt) ? tt->valuestring : "?");
    oom |= hopt(h, result, ", scale ", 0, BK_PGBENCH_SCALE_FACTOR, "");
    oom |= hopt(h, result, ", ", 0, BK_PGBENCH_CLIENTS, " clients");
    oom |= hopt(h, result, ", ", 0, BK_PGBENCH_THREADS, " threads");
    oom |= hopt(h, result, ", ", 0, BK_PGBENCH_DURATION_SECONDS, " s");
    return oom | buf_printf(h, "\n");
}

/* The latency line's fields, in order. */
static const struct {
    const char *label;
    enum bench_field_id id;
} human_latency[] = {
    {"avg", BK_SUMMARY_LATENCY_AVG_MS},    {"stddev", BK_SUMMARY_LATENCY_STDDEV_MS},
    {"p50", BK_SUMMARY_LATENCY_P50_MS},    {"p90", BK_SUMMARY_LATENCY_P90_MS},
    {"p95", BK_SUMMARY_LATENCY_P95_MS},    {"p99", BK_SUMMARY_LATENCY_P99_MS},
    {"p99.9", BK_SUMMARY_LATENCY_P999_MS}, {"max", BK_SUMMARY_LATENCY_MAX_MS},
};

/* Transactions and failures, tps, the latency line, the initial connection time. */
static int human_summary(struct buf *h, const cJSON *result)
{
    int oom =
        buf_printf(h, "transactions %.0f", count_or_0(result, BK_SUMMARY_TRANSACTIONS_PROCESSED));
    if (isfinite(bench_num(result, BK_SUMMARY_FAILED_TRANSACTIONS)))
        oom |= hopt(h, result, ", failed ", 0, BK_SUMMARY_FAILED_TRANSACTIONS, "");
    else
        oom |= buf_printf(h, ", failed n/a (pgbench < 15)");
    oom |= buf_printf(h, ", aborted clients %.0f", count_or_0(result, BK_SUMMARY_ABORTED_CLIENTS));
    oom |= hopt(h, result, ", retried ", 0, BK_SUMMARY_RETRIED, "");
    oom |= hopt(h, result, ", skipped ", 0, BK_SUMMARY_SKIPPED, "");
    oom |= buf_printf(h, "\n");
    oom |= hopt(h, result, "tps ", 3, BK_SUMMARY_TPS, "\n");
    oom |= buf_printf(h, "latency ms:");
    for (size_t i = 0; i < sizeof(human_latency) / sizeof(human_latency[0]); i++)
        oom |= hnum(h, human_latency[i].label, bench_num(result, human_latency[i].id), "");
    oom |= buf_printf(h, "\n");
    oom |=
        hopt(h, result, "initial connection time ", 3, BK_SUMMARY_INITIAL_CONNECTION_MS, " ms\n");
    return oom;
}

static int human_init(struct buf *h, const cJSON *result)
{
    const cJSON *reason = bench_get(result, BK_INIT_REASON);
    int oom = buf_printf(h, "init: scale %.0f%s\n", bench_num(result, BK_INIT_SCALE),
                         cJSON_IsTrue(bench_get(result, BK_INIT_SKIPPED)) ? ", skipped" : "");
    if (cJSON_IsString(reason))
        oom |= buf_printf(h, "  %s\n", reason->valuestring);
    return oom;
}

/* One line per fio job: each direction's iops, bandwidth and clat p99, then sync p99. */
static int human_fio(struct buf *h, const cJSON *result)
{
    static const struct {
        const char *label;
        enum bench_field_id iops, bw, p99;
    } dirs[] = {
        {"read", BK_FIO_JOBS_READ_IOPS, BK_FIO_JOBS_READ_BW_KI_BS, BK_FIO_JOBS_READ_CLAT_US_P99},
        {"write", BK_FIO_JOBS_WRITE_IOPS, BK_FIO_JOBS_WRITE_BW_KI_BS,
         BK_FIO_JOBS_WRITE_CLAT_US_P99},
    };
    int oom = 0;
    const cJSON *j;
    cJSON_ArrayForEach(j, bench_get(result, BK_FIO_JOBS))
    {
        const cJSON *name = bench_get(j, BK_FIO_JOBS_NAME);
        oom |= buf_printf(h, "fio %s:", cJSON_IsString(name) ? name->valuestring : "?");
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
            if (!isfinite(bench_num(j, dirs[i].iops)))
                continue;
            oom |= buf_printf(h, " %s", dirs[i].label);
            oom |= hnum(h, "iops", bench_num(j, dirs[i].iops), "");
            oom |= hnum(h, "bw", bench_num(j, dirs[i].bw), " KiB/s");
            oom |= hnum(h, "clat p99", bench_num(j, dirs[i].p99), " us");
            oom |= buf_printf(h, ";");
        }
        oom |= hnum(h, "sync p99", bench_num(j, BK_FIO_JOBS_SYNC_P99), " us");
        oom |= buf_printf(h, "\n");
    }
    return oom;
}

/* The dataset warning, Little's law, the first 10 errors. */
static int human_checks(struct buf *h, const cJSON *result)
{
    int oom = 0;
    const cJSON *warn = bench_get(result, BK_CHECKS_DATASET_WARNING);
    if (cJSON_IsString(warn))
        oom |= buf_printf(h, "warning: %s\n", warn->valuestring);
    if (bench_get(result, BK_CHECKS_LITTLES_LAW))
        oom |= buf_printf(h, "Little's law: predicted %.1f tps, measured %.1f tps (%+.1f%%)\n",
                          bench_num(result, BK_CHECKS_LITTLES_LAW_PREDICTED_TPS),
                          bench_num(result, BK_CHECKS_LITTLES_LAW_MEASURED_TPS),
                          bench_num(result, BK_CHECKS_LITTLES_LAW_DEVIATION_PCT));
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, bench_get(result, BK_ERRORS))
    {
        if (cJSON_IsString(e) && n++ < 10)
            oom |= buf_printf(h, "error: %s\n", e->valuestring);
    }
    if (n > 10)
        oom |= buf_printf(h, "... %d more errors\n", n - 10);
    return oom;
}

char *bench_result_human(const cJSON *result)
{
    struct buf h = BUF_INIT(0);
    const cJSON *kind = bench_get(result, BK_KIND);
    double ec = bench_num(result, BK_EXIT_CODE);
    int oom = buf_printf(&h, "%s: %s (exit code %d)\n",
                         cJSON_IsString(kind) ? kind->valuestring : "result",
                         cJSON_IsTrue(bench_get(result, BK_COMPLETE)) ? "complete" : "INCOMPLETE",
                         isfinite(ec) ? (int)ec : -1);
    if (cJSON_IsObject(bench_get(result, BK_PGBENCH)))
        oom |= human_config(&h, result);
    if (cJSON_IsObject(bench_get(result, BK_SUMMARY)))
        oom |= human_summary(&h, result);
    if (cJSON_IsObject(bench_get(result, BK_INIT)))
        oom |= human_init(&h, result);
    oom |= human_fio(&h, result);
    oom |= human_checks(&h, result);
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
