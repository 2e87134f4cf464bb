/* The result JSON (schemaVersion 1), its compact and human forms, and the reader for pod logs. */
#include "pkg/bench/result.h"
#include "pkg/bench/fields.h"
#include "pkg/util/buf.h"
#include "pkg/util/err.h"
#include "pkg/bench/text.h"
#include "pkg/bench/put.h"
#include "pkg/util/clock.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A result key, named by its row in the contract table (fields.def). */
#define KEY(id) bench_key(BK_##id)

static void put_time(cJSON *o, const char *key, double t)
{
    if (!(t > 0)) {
        bench__put_str(o, key, NULL);
        return;
    }
    char buf[UTIL_RFC3339_LEN];
    util_rfc3339(t, 3, buf, sizeof(buf));
    bench__put_str(o, key, buf);
}

cJSON *bench_result_new(const struct bench_result_meta *m)
{
    cJSON *o = cJSON_CreateObject();
    bench__put_num(o, KEY(SCHEMA_VERSION), BENCH_RESULT_SCHEMA_VERSION);
    bench__put_str(o, KEY(KIND), m->kind ? m->kind : "pgbench");
    bench__put_bool(o, KEY(COMPLETE), m->complete);
    bench__put_count(o, KEY(WORKER), m->worker);
    put_time(o, KEY(START_TIME), m->start_time);
    put_time(o, KEY(END_TIME), m->end_time);
    bench__put_num(o, KEY(EXIT_CODE), m->exit_code);
    bench__put_count(o, KEY(CHILD_EXIT_CODE), m->child_exit);
    if (m->user)
        bench__put_str(o, KEY(USER), m->user);
    bench__put_item(o, KEY(ERRORS), cJSON_CreateArray());
    return o;
}

void bench_result_add_error(cJSON *result, const char *msg)
{
    cJSON *errors = cJSON_GetObjectItemCaseSensitive(result, KEY(ERRORS));
    if (!cJSON_IsArray(errors)) {
        errors = cJSON_CreateArray();
        bench__put_item(result, KEY(ERRORS), errors);
    }
    char *s =
        bench__strndup_message(msg ? msg : "", msg ? strlen(msg) : 0, BENCH_PGBENCH_MAX_ERROR_LEN);
    cJSON_AddItemToArray(errors, util_must(cJSON_CreateString(s)));
    free(s);
}

bool bench_pgbench_complete(const struct bench_pgbench_result *pg, int exit_status)
{
    return pg && exit_status == 0 && pg->summary_seen && !pg->run_aborted &&
           pg->aborted_clients == 0;
}

#define PG_ROW(id, kind, f) BENCH_PUT_ROW(struct bench_pgbench_result, id, kind, f)
#define ST_ROW(id, kind, f) BENCH_PUT_ROW(struct bench_pgbench_statement, id, kind, f)
#define SC_ROW(id, kind, f) BENCH_PUT_ROW(struct bench_pgbench_script_stats, id, kind, f)
#define TL_ROW(id, kind, f) BENCH_PUT_ROW(struct bench_timeline_point, id, kind, f)
#define NROWS BENCH_PUT_NROWS

/* The summary's rows from pgbench's final report (the histogram's are bench_result_put_hist). */
static const struct bench_put_row summary_rows[] = {
    PG_ROW(SUMMARY_TRANSACTIONS_PROCESSED, COUNT, transactions),
    PG_ROW(SUMMARY_TRANSACTIONS_TARGET, COUNT, transactions_target),
    PG_ROW(SUMMARY_FAILED_TRANSACTIONS, COUNT, failed),
    PG_ROW(SUMMARY_FAILED_PCT, NUM, failed_pct),
    PG_ROW(SUMMARY_SERIALIZATION_FAILURES, COUNT, serialization_failures),
    PG_ROW(SUMMARY_DEADLOCK_FAILURES, COUNT, deadlock_failures),
    PG_ROW(SUMMARY_OTHER_FAILURES, COUNT, other_failures),
    PG_ROW(SUMMARY_RETRIED, COUNT, retried),
    PG_ROW(SUMMARY_RETRIES, COUNT, retries),
    PG_ROW(SUMMARY_SKIPPED, COUNT, skipped),
    PG_ROW(SUMMARY_ABOVE_LATENCY_LIMIT, COUNT, above_latency_limit),
    PG_ROW(SUMMARY_ABORTED_CLIENTS, INT, aborted_clients),
    PG_ROW(SUMMARY_TPS, NUM, tps),
    PG_ROW(SUMMARY_TPS_INCLUDING_CONNECT, NUM, tps_including_connect),
    PG_ROW(SUMMARY_LATENCY_INCLUDES_FAILURES, BOOL, latency_includes_failures),
    PG_ROW(SUMMARY_LATENCY_AVG_MS, NUM, latency_avg_ms),
    PG_ROW(SUMMARY_LATENCY_STDDEV_MS, NUM, latency_stddev_ms),
    PG_ROW(SUMMARY_INITIAL_CONNECTION_MS, NUM, initial_connection_ms),
    PG_ROW(SUMMARY_AVERAGE_CONNECTION_MS, NUM, average_connection_ms),
    PG_ROW(SUMMARY_RATE_LIMIT_LAG_AVG_MS, NUM, rate_lag_avg_ms),
    PG_ROW(SUMMARY_RATE_LIMIT_LAG_MAX_MS, NUM, rate_lag_max_ms),
};

static const struct bench_put_row statement_rows[] = {
    ST_ROW(STATEMENTS_SCRIPT, INT, script),         ST_ROW(STATEMENTS_COMMAND, STR, command),
    ST_ROW(STATEMENTS_LATENCY_MS, NUM, latency_ms), ST_ROW(STATEMENTS_FAILURES, COUNT, failures),
    ST_ROW(STATEMENTS_RETRIES, COUNT, retries),
};

static const struct bench_put_row script_rows[] = {
    SC_ROW(SCRIPTS_SCRIPT, INT, script),
    SC_ROW(SCRIPTS_NAME, STR, name),
    SC_ROW(SCRIPTS_WEIGHT, COUNT_INT, weight),
    SC_ROW(SCRIPTS_TRANSACTIONS_PROCESSED, COUNT, transactions),
    SC_ROW(SCRIPTS_FAILED_TRANSACTIONS, COUNT, failed),
    SC_ROW(SCRIPTS_TPS, NUM, tps),
    SC_ROW(SCRIPTS_LATENCY_AVG_MS, NUM, latency_avg_ms),
    SC_ROW(SCRIPTS_LATENCY_STDDEV_MS, NUM, latency_stddev_ms),
};

static const struct bench_put_row timeline_rows[] = {
    TL_ROW(TIMELINE_T, NUM, t),
    TL_ROW(TIMELINE_TPS, NUM, tps),
    TL_ROW(TIMELINE_LATENCY_MS, NUM, latency_ms),
    TL_ROW(TIMELINE_STDDEV_MS, NUM, stddev_ms),
    TL_ROW(TIMELINE_FAILED, COUNT, failed),
    TL_ROW(TIMELINE_LAG_MS, NUM, lag_ms),
    TL_ROW(TIMELINE_SKIPPED, COUNT, skipped),
    TL_ROW(TIMELINE_RETRIED, COUNT, retried),
    TL_ROW(TIMELINE_RETRIES, COUNT, retries),
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

void bench_result_put_hist(cJSON *summary, const struct bench_hist *hist)
{
    int have = hist && hist->count > 0;
    for (size_t i = 0; i < NROWS(hist_rows); i++) {
        double us = NAN;
        if (have && hist_rows[i].pct >= 0)
            us = (double)bench_hist_percentile(hist, hist_rows[i].pct);
        else if (have)
            us = (double)(hist_rows[i].pct == -1 ? bench_hist_max(hist) : bench_hist_min(hist));
        bench__put_num(summary, bench_key(hist_rows[i].id), us / 1000.0);
    }
    bench__put_count(summary, KEY(SUMMARY_HISTOGRAM_COUNT), have ? (int64_t)hist->count : -1);
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
static void put_run_switches(cJSON *c, const struct bench_pgbench_run_opts *run)
{
    bench__put_bool(c, KEY(PGBENCH_CONNECT), run->connect);
    bench__put_bool(c, KEY(PGBENCH_NO_VACUUM), run->no_vacuum);
    bench__put_bool(c, KEY(PGBENCH_FAILURES_DETAILED), run->failures_detailed);
    bench__put_bool(c, KEY(PGBENCH_PER_STATEMENT), run->per_statement);
    bench__put_count(c, KEY(PGBENCH_PROGRESS_SECONDS), run->progress_s > 0 ? run->progress_s : -1);
}

static cJSON *config_json(const struct bench_pgbench_result *pg,
                          const struct bench_pgbench_run_opts *run)
{
    cJSON *c = cJSON_CreateObject();
    struct run_cfg v = run_cfg(run);
    printed_wins(&v, pg);
    bench__put_str(c, KEY(PGBENCH_VERSION), pg->version);
    bench__put_str(c, KEY(PGBENCH_SERVER_VERSION),
                   pg->server_version[0] ? pg->server_version : NULL);
    bench__put_str(c, KEY(PGBENCH_TRANSACTION_TYPE), pg->transaction_type);
    bench__put_count(c, KEY(PGBENCH_SCALE_FACTOR), pg->scale_factor);
    bench__put_str(c, KEY(PGBENCH_PARTITION_METHOD), pg->partition_method);
    bench__put_count(c, KEY(PGBENCH_PARTITIONS), pg->partitions);
    bench__put_str(c, KEY(PGBENCH_QUERY_MODE), v.mode);
    bench__put_count(c, KEY(PGBENCH_CLIENTS), v.clients);
    bench__put_count(c, KEY(PGBENCH_THREADS), v.threads);
    bench__put_count(c, KEY(PGBENCH_DURATION_SECONDS), v.duration);
    bench__put_count(c, KEY(PGBENCH_TRANSACTIONS_PER_CLIENT), v.per_client);
    bench__put_count(c, KEY(PGBENCH_MAX_TRIES), v.max_tries);
    bench__put_num(c, KEY(PGBENCH_RATE), v.rate);
    bench__put_num(c, KEY(PGBENCH_LATENCY_LIMIT_MS), v.latency_limit_ms);
    if (run)
        put_run_switches(c, run);
    return c;
}

/* pgbench's error lines, and what the caps dropped. */
static void put_pgbench_errors(cJSON *result, const struct bench_pgbench_result *pg)
{
    for (size_t i = 0; i < pg->nerrors; i++)
        bench_result_add_error(result, pg->errors[i]);
    if (pg->errors_dropped || pg->statements_dropped || pg->timeline_dropped) {
        cJSON *d = cJSON_CreateObject();
        bench__put_item(result, KEY(DROPPED), d);
        bench__put_num(d, KEY(DROPPED_ERRORS), (double)pg->errors_dropped);
        bench__put_num(d, KEY(DROPPED_STATEMENTS), (double)pg->statements_dropped);
        bench__put_num(d, KEY(DROPPED_TIMELINE), (double)pg->timeline_dropped);
    }
}

void bench_result_add_pgbench(cJSON *result, const struct bench_pgbench_result *pg,
                              const struct bench_hist *hist,
                              const struct bench_pgbench_run_opts *run)
{
    bench__put_item(result, KEY(PGBENCH), config_json(pg, run));
    cJSON *s = cJSON_CreateObject();
    bench__put_item(result, KEY(SUMMARY), s);
    bench__put_rows(s, pg, summary_rows, NROWS(summary_rows));
    bench_result_put_hist(s, hist);
    bench__put_item(result, KEY(STATEMENTS),
                    bench__put_array(pg->statements, pg->nstatements, sizeof(*pg->statements),
                                     statement_rows, NROWS(statement_rows)));
    bench__put_item(result, KEY(SCRIPTS),
                    bench__put_array(pg->scripts, pg->nscripts, sizeof(*pg->scripts), script_rows,
                                     NROWS(script_rows)));
    bench__put_item(result, KEY(TIMELINE),
                    bench__put_array(pg->timeline, pg->ntimeline, sizeof(*pg->timeline),
                                     timeline_rows, NROWS(timeline_rows)));
    if (hist && hist->count > 0)
        bench__put_item(result, KEY(HISTOGRAM), bench_hist_to_json(hist));
    else
        bench__put_item(result, KEY(HISTOGRAM), cJSON_CreateNull());
    put_pgbench_errors(result, pg);
}

/* The summary's counts, tps and average from the steady window; pgbench's own in warmup. */
static void steady_summary(cJSON *summary, cJSON *w, const struct bench_txlog *tl, double steady)
{
    bench__put_num(w, KEY(WARMUP_RUN_TPS), util_jnum(summary, KEY(SUMMARY_TPS), NAN));
    bench__put_num(w, KEY(WARMUP_RUN_LATENCY_AVG_MS),
                   util_jnum(summary, KEY(SUMMARY_LATENCY_AVG_MS), NAN));
    bench__put_count(summary, KEY(SUMMARY_TRANSACTIONS_PROCESSED), (int64_t)tl->ok);
    bench__put_num(summary, KEY(SUMMARY_TRANSACTIONS_TARGET), NAN);
    if (cJSON_IsNumber(util_jget(summary, KEY(SUMMARY_FAILED_TRANSACTIONS))))
        bench__put_count(summary, KEY(SUMMARY_FAILED_TRANSACTIONS), (int64_t)tl->failed);
    if (cJSON_IsNumber(util_jget(summary, KEY(SUMMARY_SKIPPED))))
        bench__put_count(summary, KEY(SUMMARY_SKIPPED), (int64_t)tl->skipped);
    double total = (double)(tl->ok + tl->failed + tl->skipped);
    if (cJSON_IsNumber(util_jget(summary, KEY(SUMMARY_FAILED_PCT))))
        bench__put_num(summary, KEY(SUMMARY_FAILED_PCT),
                       total > 0 ? 100.0 * (double)tl->failed / total : 0);
    bench__put_num(summary, KEY(SUMMARY_TPS), steady > 0 ? (double)tl->ok / steady : NAN);
    bench__put_num(summary, KEY(SUMMARY_TPS_INCLUDING_CONNECT), NAN);
    bench__put_num(summary, KEY(SUMMARY_LATENCY_AVG_MS),
                   tl->ok ? bench_hist_mean(tl->hist) / 1000.0 : NAN);
    bench__put_num(summary, KEY(SUMMARY_LATENCY_STDDEV_MS), NAN);
    bench__put_bool(summary, KEY(SUMMARY_LATENCY_INCLUDES_FAILURES), false);
}

void bench_result_add_txlog(cJSON *result, const struct bench_txlog *tl, double warmup_s)
{
    if (tl->series) {
        cJSON *ls = bench_latseries_to_json(tl->series);
        if (ls)
            bench__put_item(result, KEY(LATENCY_SERIES), ls);
    }
    cJSON *summary = cJSON_GetObjectItemCaseSensitive(result, KEY(SUMMARY));
    if (!(warmup_s > 0) || !tl->cut_epoch_us || !cJSON_IsObject(summary))
        return;
    double steady = tl->last_epoch_us > tl->cut_epoch_us
                        ? (double)(tl->last_epoch_us - tl->cut_epoch_us) / 1e6
                        : NAN;
    cJSON *w = cJSON_CreateObject();
    bench__put_num(w, KEY(WARMUP_SECONDS), warmup_s);
    bench__put_num(w, KEY(WARMUP_CUT_EPOCH_US), (double)tl->cut_epoch_us);
    bench__put_num(w, KEY(WARMUP_STEADY_SECONDS),
                   isfinite(steady) ? round(steady * 1e3) / 1e3 : NAN);
    bench__put_count(w, KEY(WARMUP_TRANSACTIONS), (int64_t)tl->warm_ok);
    bench__put_count(w, KEY(WARMUP_FAILED_TRANSACTIONS), (int64_t)tl->warm_failed);
    steady_summary(summary, w, tl, steady);
    bench__put_item(result, KEY(WARMUP), w);
}

void bench_result_add_fio(cJSON *result, const struct bench_fio_result *fio)
{
    bench__put_item(result, KEY(FIO), bench_fio_result_to_json(fio));
}

static int add_error_cb(const char *msg, void *ctx)
{
    bench_result_add_error(ctx, msg);
    return 0;
}

void bench_result_add_fio_errors(cJSON *result, const struct bench_fio_result *fio)
{
    (void)bench_fio_result_errors(fio, add_error_cb, result); /* add_error_cb goes on always */
}

void bench_result_add_init(cJSON *result, const struct bench_init_outcome *io)
{
    char reason[640];
    bool why = io->why && io->why[0];
    if (io->skipped)
        (void)snprintf(reason, sizeof(reason), "%s", why ? io->why : "");
    else if (io->complete)
        (void)snprintf(reason, sizeof(reason), "initialized scale %d in %.1f s%s%.500s%s",
                       io->scale, io->duration_s, why ? " (" : "", why ? io->why : "",
                       why ? ")" : "");
    else
        (void)snprintf(reason, sizeof(reason), "initialization of scale %d failed", io->scale);
    cJSON *o = cJSON_CreateObject();
    bench__put_item(result, KEY(INIT), o);
    bench__put_bool(o, KEY(INIT_SKIPPED), io->skipped);
    bench__put_str(o, KEY(INIT_REASON), reason[0] ? reason : NULL);
    bench__put_count(o, KEY(INIT_SCALE), io->scale);
    if (io->steps)
        bench__put_str(o, KEY(INIT_STEPS), io->steps);
    bench__put_num(o, KEY(INIT_DURATION_SECONDS), io->duration_s >= 0 ? io->duration_s : NAN);
}

/* Seconds from a to b rounded to ms; null when b is unknown (0), and with ordered also when a is
 * unknown or b before a. */
static cJSON *window_span(double a, double b, bool ordered)
{
    bool known = ordered ? a > 0 && b >= a : b > 0;
    return known ? cJSON_CreateNumber(round((b - a) * 1e3) / 1e3) : cJSON_CreateNull();
}

void bench_result_add_window(cJSON *result, double barrier, double seen, double start, double end)
{
    if (!(barrier > 0))
        return;
    cJSON *w = cJSON_CreateObject();
    bench__put_item(result, KEY(WINDOW), w);
    put_time(w, bench_key(BK_WINDOW_BARRIER), barrier);
    bench__put_item(w, bench_key(BK_WINDOW_LATE_SECONDS), window_span(barrier, start, false));
    bench__put_item(w, bench_key(BK_WINDOW_END_SECONDS), window_span(barrier, end, false));
    if (seen > 0)
        bench__put_item(w, bench_key(BK_WINDOW_SEEN_SECONDS), window_span(barrier, seen, false));
    bench__put_item(w, bench_key(BK_WINDOW_SECONDS), window_span(start, end, true));
}

int bench_result_set_diagnostic(cJSON *result, enum bench_field_id id, cJSON *value)
{
    if (!value || !result) {
        cJSON_Delete(value);
        return -EINVAL;
    }
    return bench_put(result, id, value);
}

double bench_littles_law(double clients, double latency_avg_ms, double measured_tps,
                         double *predicted)
{
    if (!(latency_avg_ms > 0) || !(clients > 0) || !isfinite(clients) || !isfinite(measured_tps))
        return NAN;
    double p = clients / (latency_avg_ms / 1000.0);
    if (predicted)
        *predicted = p;
    return (measured_tps - p) / p * 100.0;
}

cJSON *bench_check_littles_law(int clients, double latency_avg_ms, double measured_tps,
                               bool throttled)
{
    double predicted = NAN;
    double dev = bench_littles_law(clients, latency_avg_ms, measured_tps, &predicted);
    if (!isfinite(dev))
        return NULL;
    cJSON *o = cJSON_CreateObject();
    bench__put_num(o, KEY(CHECKS_LITTLES_LAW_CLIENTS), clients);
    bench__put_num(o, KEY(CHECKS_LITTLES_LAW_LATENCY_AVG_MS), latency_avg_ms);
    bench__put_num(o, KEY(CHECKS_LITTLES_LAW_PREDICTED_TPS), predicted);
    bench__put_num(o, KEY(CHECKS_LITTLES_LAW_MEASURED_TPS), measured_tps);
    bench__put_num(o, KEY(CHECKS_LITTLES_LAW_DEVIATION_PCT), dev);
    bench__put_str(o, KEY(CHECKS_LITTLES_LAW_NOTE),
                   throttled ? "rate-limited run (-R): clients are idle between transactions, "
                               "measured tps is expected below the prediction"
                   : fabs(dev) > 10
                       ? "more than 10% off: time is spent outside transactions (client "
                         "CPU, think time, reconnects) or latency is skewed"
                       : NULL);
    return o;
}

cJSON *bench_check_dataset(int64_t database_bytes, int64_t shared_buffers_bytes)
{
    cJSON *o = cJSON_CreateObject();
    bool known = database_bytes >= 0 && shared_buffers_bytes > 0;
    bool fits = known && database_bytes <= shared_buffers_bytes;
    bench__put_count(o, KEY(CHECKS_DATASET_DATABASE_BYTES), database_bytes);
    bench__put_count(o, KEY(CHECKS_DATASET_SHARED_BUFFERS_BYTES), shared_buffers_bytes);
    if (known)
        bench__put_bool(o, KEY(CHECKS_DATASET_FITS_IN_SHARED_BUFFERS), fits);
    else
        bench__put_str(o, KEY(CHECKS_DATASET_FITS_IN_SHARED_BUFFERS), NULL);
    bench__put_num(o, KEY(CHECKS_DATASET_RATIO),
                   known ? (double)database_bytes / (double)shared_buffers_bytes : NAN);
    bench__put_str(
        o, KEY(CHECKS_DATASET_WARNING),
        fits ? "the database fits in shared_buffers: the run measures memory and CPU, not "
               "storage; raise the scale for a storage test"
             : NULL);
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
            if (!cJSON_IsArray(items))
                continue;
            cJSON *arr = cJSON_CreateArray();
            if (bench_json_put(dst, rel, arr))
                continue;
            cJSON_ArrayForEach(it, items)
            {
                cJSON *o = cJSON_CreateObject();
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
 * printed form in *out, or -E2BIG when even the base does not fit. */
static int compact_fit(cJSON *c, size_t limit, char **out)
{
    size_t di = bench_nfields;
    for (;;) {
        *out = util_must(cJSON_PrintUnformatted(c));
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
        util_jset(c, KEY(TRUNCATED), cJSON_CreateTrue());
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
        cJSON_AddItemToArray(errs, util_must(cJSON_CreateString(msg)));
        free(msg);
        char *next = util_must(cJSON_PrintUnformatted(c));
        if (strlen(next) >= limit - 16) {
            free(next);
            cJSON_DeleteItemFromArray(errs, cJSON_GetArraySize(errs) - 1);
            break;
        }
        free(out);
        out = next;
        added++;
    }
    if (added < total) {
        util_jset(c, KEY(TRUNCATED), cJSON_CreateTrue());
        char *next = util_must(cJSON_PrintUnformatted(c));
        if (strlen(next) < limit) {
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
    cJSON *m = cJSON_CreateObject();
    double ec = bench_num(result, BK_EXIT_CODE);
    bench__put_num(m, KEY(SCHEMA_VERSION), BENCH_RESULT_SCHEMA_VERSION);
    bench__put_bool(m, KEY(COMPLETE), cJSON_IsTrue(bench_get(result, BK_COMPLETE)));
    bench__put_num(m, KEY(EXIT_CODE), isfinite(ec) ? (int)ec : 1);
    bench__put_bool(m, KEY(TRUNCATED), true);
    char *out = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    return out;
}

char *bench_result_compact(const cJSON *result, size_t limit)
{
    if (limit < 256)
        limit = 256;
    cJSON *c = cJSON_CreateObject();
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

/* ---- human summary ----
 * Written into an unbounded buf (BUF_INIT(0)), whose appends fail only for memory, which aborts
 * (mem.h): their results are not checked. */

static void hnum(struct buf *h, const char *label, double v, const char *unit)
{
    if (isfinite(v))
        (void)buf_printf(h, " %s %.3f%s", label, v, unit);
}

/* A number of result, when it is there: before, the number with prec decimals, after. */
static void hopt(struct buf *h, const cJSON *result, const char *before, int prec,
                 enum bench_field_id id, const char *after)
{
    double v = bench_num(result, id);
    if (isfinite(v))
        (void)buf_printf(h, "%s%.*f%s", before, prec, v, after);
}

/* A count of result, 0 when absent. */
static double count_or_0(const cJSON *result, enum bench_field_id id)
{
    double v = bench_num(result, id);
    return isfinite(v) ? v : 0;
}

/* "pgbench 16.4: <builtin: TPC-B (sort of)>, scale 10, 8 clients, 2 threads, 60 s" */
static void human_config(struct buf *h, const cJSON *result)
{
    const cJSON *tt = bench_get(result, BK_PGBENCH_TRANSACTION_TYPE);
    const cJSON *ver = bench_get(result, BK_PGBENCH_VERSION);
    (void)buf_printf(h, "pgbench %s: %s", cJSON_IsString(ver) ? ver->valuestring : "?",
                     cJSON_IsString(tt) ? tt->valuestring : "?");
    hopt(h, result, ", scale ", 0, BK_PGBENCH_SCALE_FACTOR, "");
    hopt(h, result, ", ", 0, BK_PGBENCH_CLIENTS, " clients");
    hopt(h, result, ", ", 0, BK_PGBENCH_THREADS, " threads");
    hopt(h, result, ", ", 0, BK_PGBENCH_DURATION_SECONDS, " s");
    (void)buf_printf(h, "\n");
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
static void human_summary(struct buf *h, const cJSON *result)
{
    (void)buf_printf(h, "transactions %.0f", count_or_0(result, BK_SUMMARY_TRANSACTIONS_PROCESSED));
    if (isfinite(bench_num(result, BK_SUMMARY_FAILED_TRANSACTIONS)))
        hopt(h, result, ", failed ", 0, BK_SUMMARY_FAILED_TRANSACTIONS, "");
    else
        (void)buf_printf(h, ", failed n/a (pgbench < 15)");
    (void)buf_printf(h, ", aborted clients %.0f", count_or_0(result, BK_SUMMARY_ABORTED_CLIENTS));
    hopt(h, result, ", retried ", 0, BK_SUMMARY_RETRIED, "");
    hopt(h, result, ", skipped ", 0, BK_SUMMARY_SKIPPED, "");
    (void)buf_printf(h, "\n");
    hopt(h, result, "tps ", 3, BK_SUMMARY_TPS, "\n");
    (void)buf_printf(h, "latency ms:");
    for (size_t i = 0; i < sizeof(human_latency) / sizeof(human_latency[0]); i++)
        hnum(h, human_latency[i].label, bench_num(result, human_latency[i].id), "");
    (void)buf_printf(h, "\n");
    hopt(h, result, "initial connection time ", 3, BK_SUMMARY_INITIAL_CONNECTION_MS, " ms\n");
}

static void human_init(struct buf *h, const cJSON *result)
{
    const cJSON *reason = bench_get(result, BK_INIT_REASON);
    (void)buf_printf(h, "init: scale %.0f%s\n", bench_num(result, BK_INIT_SCALE),
                     cJSON_IsTrue(bench_get(result, BK_INIT_SKIPPED)) ? ", skipped" : "");
    if (cJSON_IsString(reason))
        (void)buf_printf(h, "  %s\n", reason->valuestring);
}

/* One line per fio job: each direction's iops, bandwidth and clat p99, then sync p99. */
static void human_fio(struct buf *h, const cJSON *result)
{
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
        (void)buf_printf(h, "fio %s:", cJSON_IsString(name) ? name->valuestring : "?");
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
            if (!isfinite(bench_num(j, dirs[i].iops)))
                continue;
            (void)buf_printf(h, " %s", dirs[i].label);
            hnum(h, "iops", bench_num(j, dirs[i].iops), "");
            hnum(h, "bw", bench_num(j, dirs[i].bw), " KiB/s");
            hnum(h, "clat p99", bench_num(j, dirs[i].p99), " us");
            (void)buf_printf(h, ";");
        }
        hnum(h, "sync p99", bench_num(j, BK_FIO_JOBS_SYNC_P99), " us");
        (void)buf_printf(h, "\n");
    }
}

/* The dataset warning, Little's law, the first 10 errors. */
static void human_checks(struct buf *h, const cJSON *result)
{
    const cJSON *warn = bench_get(result, BK_CHECKS_DATASET_WARNING);
    if (cJSON_IsString(warn))
        (void)buf_printf(h, "warning: %s\n", warn->valuestring);
    if (bench_get(result, BK_CHECKS_LITTLES_LAW))
        (void)buf_printf(h, "Little's law: predicted %.1f tps, measured %.1f tps (%+.1f%%)\n",
                         bench_num(result, BK_CHECKS_LITTLES_LAW_PREDICTED_TPS),
                         bench_num(result, BK_CHECKS_LITTLES_LAW_MEASURED_TPS),
                         bench_num(result, BK_CHECKS_LITTLES_LAW_DEVIATION_PCT));
    const cJSON *e;
    int n = 0;
    cJSON_ArrayForEach(e, bench_get(result, BK_ERRORS))
    {
        if (cJSON_IsString(e) && n++ < 10)
            (void)buf_printf(h, "error: %s\n", e->valuestring);
    }
    if (n > 10)
        (void)buf_printf(h, "... %d more errors\n", n - 10);
}

char *bench_result_human(const cJSON *result)
{
    struct buf h = BUF_INIT(0);
    const cJSON *kind = bench_get(result, BK_KIND);
    double ec = bench_num(result, BK_EXIT_CODE);
    (void)buf_printf(&h, "%s: %s (exit code %d)\n",
                     cJSON_IsString(kind) ? kind->valuestring : "result",
                     cJSON_IsTrue(bench_get(result, BK_COMPLETE)) ? "complete" : "INCOMPLETE",
                     isfinite(ec) ? (int)ec : -1);
    if (cJSON_IsObject(bench_get(result, BK_PGBENCH)))
        human_config(&h, result);
    if (cJSON_IsObject(bench_get(result, BK_SUMMARY)))
        human_summary(&h, result);
    if (cJSON_IsObject(bench_get(result, BK_INIT)))
        human_init(&h, result);
    human_fio(&h, result);
    human_checks(&h, result);
    return buf_steal(&h); /* not empty: the first line is there */
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
