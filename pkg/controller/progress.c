/* A run's live progress from its workers' log records (see progress.h). */
#include "pkg/controller/progress.h"
#include "pkg/util/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pkg/bench/fields.h"
#include "pkg/api/manifest.h"
#include "pkg/api/status.h"
#include "pkg/util/buf.h"
#include "pkg/util/clock.h"

static double num_or_nan(const cJSON *o, enum bench_field_id id)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, bench_key(id));
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void copy_str(char *dst, size_t len, const cJSON *o, enum bench_field_id id)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, bench_key(id));
    (void)snprintf(dst, len, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

bool ctrl_progress_parse(const char *log, size_t len, struct ctrl_worker_progress *out)
{
    memset(out, 0, sizeof(*out));
    bool wait_seen = false;
    size_t end = len;
    while (end > 0 && !out->progress) {
        size_t start = end;
        while (start > 0 && log[start - 1] != '\n')
            start--;
        const char *line = log + start;
        size_t n = end - start;
        end = start ? start - 1 : 0;
        if (n < 2 || line[0] != '{')
            continue;
        cJSON *o = cJSON_ParseWithLength(line, n);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, bench_key(BK_PROGRESS));
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, bench_key(BK_WAIT));
        if (cJSON_IsObject(p)) {
            out->progress = true;
            out->t = num_or_nan(p, BK_PROGRESS_T);
            out->tps = num_or_nan(p, BK_PROGRESS_TPS);
            out->latency_ms = num_or_nan(p, BK_PROGRESS_LATENCY_MS);
            out->failed_total = num_or_nan(p, BK_PROGRESS_FAILED_TOTAL);
            out->duration_s = num_or_nan(p, BK_PROGRESS_DURATION_SECONDS);
            copy_str(out->step, sizeof(out->step), p, BK_PROGRESS_STEP);
            copy_str(out->source, sizeof(out->source), p, BK_PROGRESS_SOURCE);
            out->rows = num_or_nan(p, BK_PROGRESS_ROWS);
            out->rows_total = num_or_nan(p, BK_PROGRESS_ROWS_TOTAL);
            out->rows_per_s = num_or_nan(p, BK_PROGRESS_ROWS_PER_SECOND);
        } else if (cJSON_IsObject(w) && !wait_seen) {
            wait_seen = true;
            out->waiting = true; /* no progress after it (we read from the end) */
            copy_str(out->wait_target, sizeof(out->wait_target), w, BK_WAIT_TARGET);
            copy_str(out->wait_cause, sizeof(out->wait_cause), w, BK_WAIT_CAUSE);
            copy_str(out->wait_message, sizeof(out->wait_message), w, BK_WAIT_MESSAGE);
            out->wait_elapsed_s = num_or_nan(w, BK_WAIT_ELAPSED_SECONDS);
            out->wait_timeout_s = num_or_nan(w, BK_WAIT_TIMEOUT_SECONDS);
        }
        cJSON_Delete(o);
    }
    return out->progress || wait_seen;
}

/* An init's progress (its one pod): pgbench -i's step and rows, no tps. */
static void put_init_progress(cJSON *p, const struct ctrl_worker_progress *w)
{
    util_jset_str(p, bench_status_key(BK_STATUS_PROGRESS_STEP), w->step);
    if (isfinite(w->rows))
        util_jset_num(p, bench_status_key(BK_STATUS_PROGRESS_ROWS), w->rows);
    if (isfinite(w->rows_total))
        util_jset_num(p, bench_status_key(BK_STATUS_PROGRESS_ROWS_TOTAL), w->rows_total);
    if (isfinite(w->rows_per_s))
        util_jset_num(p, bench_status_key(BK_STATUS_PROGRESS_ROWS_PER_SECOND), w->rows_per_s);
    if (w->source[0])
        util_jset_str(p, bench_status_key(BK_STATUS_PROGRESS_SOURCE), w->source);
}

/* The init's record among the workers' (n = 1 while Initializing), else NULL. */
static const struct ctrl_worker_progress *init_record(const struct ctrl_worker_progress *w, int n)
{
    for (int i = 0; i < n; i++)
        if (w[i].progress && w[i].step[0])
            return &w[i];
    return NULL;
}

int ctrl_progress_sample_start(int running, double now, long every)
{
    if (running <= CTRL_PROGRESS_SAMPLE || every <= 0 || !(now >= 0))
        return 0;
    double k = floor(now / (double)every);
    return (int)fmod(k * CTRL_PROGRESS_SAMPLE, (double)running);
}

/* The workers' sums: tps, latency weighted by tps (wlat / tps), failed (NAN: nobody counts). A
 * sample (read of running) stands for every running worker: its sums scaled (the latency is an
 * average), and said so. */
static void put_run_progress(cJSON *p, double tps, double wlat, double failed, int read,
                             int running)
{
    bool sampled = read > 0 && read < running;
    double scale = sampled ? (double)running / read : 1;
    util_jset_num(p, bench_status_key(BK_STATUS_PROGRESS_TPS), round(tps * scale * 10) / 10);
    if (tps > 0)
        util_jset_num(p, bench_status_key(BK_STATUS_PROGRESS_LATENCY_MS),
                      round(wlat / tps * 1000) / 1000);
    if (isfinite(failed))
        util_jset_num(p, bench_status_key(BK_STATUS_PROGRESS_FAILED), round(failed * scale));
    if (sampled) {
        util_jset_num(p, bench_status_key(BK_STATUS_PROGRESS_WORKERS_READ), read);
        util_jset(p, bench_status_key(BK_STATUS_PROGRESS_EXTRAPOLATED), cJSON_CreateTrue());
    }
}

bool ctrl_progress_set(cJSON *status, const struct ctrl_worker_progress *w, int n, int read,
                       int running, double now)
{
    double elapsed = NAN, duration = NAN, tps = 0, wlat = 0, failed = 0;
    int reporting = 0, failed_known = 0;
    for (int i = 0; i < n; i++) {
        if (!w[i].progress)
            continue;
        reporting++;
        if (isfinite(w[i].t) && !(w[i].t <= elapsed))
            elapsed = w[i].t;
        if (isfinite(w[i].duration_s))
            duration = w[i].duration_s;
        if (isfinite(w[i].tps)) {
            tps += w[i].tps;
            if (isfinite(w[i].latency_ms))
                wlat += w[i].tps * w[i].latency_ms;
        }
        if (isfinite(w[i].failed_total)) {
            failed += w[i].failed_total;
            failed_known++;
        }
    }
    const char *key = bench_fields[BK_STATUS_PROGRESS].status;
    if (reporting == 0) { /* null: status is written as a merge patch */
        const cJSON *had = cJSON_GetObjectItemCaseSensitive(status, key);
        if (!had || cJSON_IsNull(had))
            return false;
        util_jset(status, key, cJSON_CreateNull());
        return true;
    }
    cJSON *p = cJSON_CreateObject();
    if (isfinite(elapsed))
        util_jset_num(p, bench_status_key(BK_STATUS_PROGRESS_ELAPSED_SECONDS), elapsed);
    if (isfinite(elapsed) && isfinite(duration))
        util_jset_num(p, bench_status_key(BK_STATUS_PROGRESS_REMAINING_SECONDS),
                      duration > elapsed ? duration - elapsed : 0);
    const struct ctrl_worker_progress *init = init_record(w, n);
    if (init) {
        put_init_progress(p, init);
    } else {
        put_run_progress(p, tps, wlat, failed_known ? failed : NAN, read, running);
    }
    util_jset_num(p, bench_status_key(BK_STATUS_PROGRESS_WORKERS_REPORTING), reporting);
    /* nothing new, nothing written: the time alone is no change */
    cJSON *old = cJSON_GetObjectItemCaseSensitive(status, key);
    cJSON *old_copy = old ? cJSON_Duplicate(old, 1) : NULL;
    if (old_copy)
        cJSON_DeleteItemFromObjectCaseSensitive(old_copy,
                                                bench_status_key(BK_STATUS_PROGRESS_TIME));
    bool same = old_copy && cJSON_Compare(old_copy, p, true);
    cJSON_Delete(old_copy);
    if (same) {
        cJSON_Delete(p);
        return false;
    }
    char ts[40];
    util_rfc3339(now, 0, ts, sizeof(ts));
    util_jset_str(p, bench_status_key(BK_STATUS_PROGRESS_TIME), ts);
    util_jset(status, key, p);
    return true;
}

#define INIT_RESULT_PREFIX "init: "

void ctrl_progress_end_init(cJSON *status)
{
    if (cJSON_IsString(bench_status_get(status, BK_STATUS_PROGRESS_STEP)))
        util_jset(status, bench_fields[BK_STATUS_PROGRESS].status, cJSON_CreateNull());
    /* the operator's cache keeps no status.result (it never reads it back): the init's live line
     * is the only result an init writes, so it goes without looking */
    util_jset(status, bench_fields[BK_STATUS_RESULT].status, cJSON_CreateNull());
}

void ctrl_progress_display(cJSON *status)
{
    char words[256], init_line[300];
    if (api_status_init_progress(status, " · ", words, sizeof(words))) {
        (void)snprintf(init_line, sizeof(init_line), INIT_RESULT_PREFIX "%s", words);
        util_jset_str(status, bench_fields[BK_STATUS_RESULT].status, init_line);
        return;
    }
    const cJSON *tps = bench_status_get(status, BK_STATUS_PROGRESS_TPS);
    const cJSON *el = bench_status_get(status, BK_STATUS_PROGRESS_ELAPSED_SECONDS);
    const cJSON *rem = bench_status_get(status, BK_STATUS_PROGRESS_REMAINING_SECONDS);
    if (!cJSON_IsNumber(tps))
        return;
    char line[128], t[32];
    api_status_fmt_tps(t, sizeof(t), tps->valuedouble);
    bool about = cJSON_IsTrue(bench_status_get(status, BK_STATUS_PROGRESS_EXTRAPOLATED));
    int n = snprintf(line, sizeof(line), "%s%s tps now", about ? "~" : "", t);
    if (cJSON_IsNumber(el) && n > 0 && (size_t)n < sizeof(line)) {
        if (cJSON_IsNumber(rem))
            (void)snprintf(line + n, sizeof(line) - (size_t)n, " · %.0f s of %.0f s",
                           el->valuedouble, el->valuedouble + rem->valuedouble);
        else
            (void)snprintf(line + n, sizeof(line) - (size_t)n, " · %.0f s", el->valuedouble);
    }
    util_jset_str(status, bench_fields[BK_STATUS_RESULT].status, line);
}

bool ctrl_progress_message(const cJSON *status, int workers, char *out, size_t len)
{
    char words[256];
    if (api_status_init_progress(status, ", ", words, sizeof(words))) {
        const cJSON *el = bench_status_get(status, BK_STATUS_PROGRESS_ELAPSED_SECONDS);
        (void)snprintf(out, len, "pgbench -i: %s, %.0f s", words,
                       cJSON_IsNumber(el) ? el->valuedouble : 0);
        return true;
    }
    const cJSON *tps = bench_status_get(status, BK_STATUS_PROGRESS_TPS);
    const cJSON *el = bench_status_get(status, BK_STATUS_PROGRESS_ELAPSED_SECONDS);
    const cJSON *rem = bench_status_get(status, BK_STATUS_PROGRESS_REMAINING_SECONDS);
    const cJSON *rep = bench_status_get(status, BK_STATUS_PROGRESS_WORKERS_REPORTING);
    if (!cJSON_IsNumber(tps) || !cJSON_IsNumber(rep))
        return false;
    char t[32], when[64] = "";
    api_status_fmt_tps(t, sizeof(t), tps->valuedouble);
    if (cJSON_IsNumber(el) && cJSON_IsNumber(rem))
        (void)snprintf(when, sizeof(when), "%.0f s of %.0f s, ", el->valuedouble,
                       el->valuedouble + rem->valuedouble);
    else if (cJSON_IsNumber(el))
        (void)snprintf(when, sizeof(when), "%.0f s, ", el->valuedouble);
    const cJSON *read = bench_status_get(status, BK_STATUS_PROGRESS_WORKERS_READ);
    if (cJSON_IsTrue(bench_status_get(status, BK_STATUS_PROGRESS_EXTRAPOLATED)) &&
        cJSON_IsNumber(read)) {
        (void)snprintf(out, len,
                       "pgbench runs on %d workers: %sabout %s tps now (%.0f of %d read, "
                       "extrapolated)",
                       workers, when, t, read->valuedouble, workers);
        return true;
    }
    (void)snprintf(out, len, "pgbench runs on %.0f of %d worker%s: %s%s tps now", rep->valuedouble,
                   workers, workers == 1 ? "" : "s", when, t);
    return true;
}

bool ctrl_progress_waiting(const struct ctrl_worker_progress *w, int n, char *out, size_t len)
{
    for (int i = 0; i < n; i++) {
        if (!w[i].waiting)
            continue;
        (void)snprintf(out, len, "worker %d waits for %s: %s (%s), retrying, %.0f s of %.0f s", i,
                       w[i].wait_target, w[i].wait_message, w[i].wait_cause,
                       isfinite(w[i].wait_elapsed_s) ? w[i].wait_elapsed_s : 0,
                       isfinite(w[i].wait_timeout_s) ? w[i].wait_timeout_s : 0);
        return true;
    }
    return false;
}
