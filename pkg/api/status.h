/* pkg/api/status: BenchmarkRun status pieces: conditions, times, and the result fields
 * (summary, statements, timeline, workers, diagnostics, fio) built from aggregated results.
 * Status is stored in etcd, so every list here is capped (max_items of its row in
 * pkg/bench/fields.c). */
#ifndef PGBO_API_STATUS_H
#define PGBO_API_STATUS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define API_MAX_MESSAGE 1024
/* A worker that starts or ends this much apart from the others is reported (WorkersSkewed). */
#define API_SKEW_LIMIT_S 1.0

/* The conditions whose True status says the run waits for something outside it, retrying:
 * pods that cannot start, a target that does not answer. The run goes on once it clears (or
 * fails at its deadline / connectRetrySeconds); clients show them as they appear. */
#define API_COND_WORKERS_BLOCKED "WorkersBlocked"
#define API_COND_TARGET_UNREACHABLE "TargetUnreachable"
bool api_cond_is_waiting(const char *type);
/* The conditions whose True status qualifies the result without stopping the run: workers that
 * did not start or end together, a worker's result read from its compact summary only, workers
 * sharing a node while another could have taken one (API_COND_WORKERS_SHARE_NODE, placement.h). */
#define API_COND_WORKERS_SKEWED "WorkersSkewed"
#define API_COND_RESULT_DETAIL_UNAVAILABLE "ResultDetailUnavailable"
bool api_cond_is_caveat(const char *type);

const cJSON *api_cond_get(const cJSON *status, const char *type);
/* Sets or updates a condition; lastTransitionTime changes only when status changes. Returns true
 * when anything changed. */
bool api_cond_set(cJSON *status, const char *type, const char *cstatus, const char *reason,
                  const char *message, long generation, double now);

/* What the controller knows about one worker of the run Job. */
struct api_worker {
    /* The result is the compact termination summary only: why the log's was not read (the log
     * could not be read, or its result line was cut); NULL when it is the log's full result. */
    const char *detail_missing;
    int index;
    const char *pod;      /* NULL when no pod was seen */
    const char *node;     /* its spec.nodeName; NULL when not scheduled */
    bool terminated;      /* container terminated */
    int exit_code;        /* -1 unknown */
    const char *reason;   /* terminated.reason (Error, OOMKilled, DeadlineExceeded...) */
    const char *term_msg; /* terminated.message (compact result, or log tail) */
    cJSON *result;        /* parsed full result, owned by whoever filled it; NULL if none */
    char error[256];      /* why no result (log fetch failed, unparseable...); without a pod: why
                           * there is none ("" = the Job never made one) */
};

/* Writes summary, statements, timeline, workers, diagnostics and fio from agg (the aggregate of
 * every worker, may be NULL) and the workers. agg's workers[] rows get what the controller saw of
 * each worker (pod; exitCode, complete and message as status.workers' lines say them), so the
 * result ConfigMap written from agg afterwards holds them. */
void api_status_set_results(cJSON *status, cJSON *agg, const struct api_worker *w, int n);

/* One line naming the first failed worker, its pod and its error into out; returns false when
 * every worker succeeded with a complete result. */
bool api_workers_failure(const struct api_worker *w, int n, char *out, size_t len);

/* Human summary of a finished run, e.g. "1234.5 tps, avg 3.21 ms, p99 9.80 ms (2 workers)". */
void api_status_summary_message(const cJSON *status, int workers, char *out, size_t len);

/* One line naming the workers whose pgbench started more than limit_s after the start barrier or
 * ended more than limit_s before the last one, with the share of the run the totals cover (from
 * the aggregate's workers[] and window; NULL: none). False when the workers ran together. */
bool api_workers_skewed(const cJSON *agg, double limit_s, char *out, size_t len);

/* The run's start barrier (Unix seconds) from status.startAt: an RFC 3339 string, or the Unix
 * seconds an operator before issue 18 wrote; -1 when absent (not published yet) or unreadable. */
double api_status_start_at(const cJSON *status);

/* tps as status.result spells it, at the end and live: grouped, without decimals from 100
 * (2,561), one decimal below (45.3). */
void api_status_fmt_tps(char *out, size_t len, double tps);

/* An init's status.progress in words, its parts joined by sep: with " · " "generate (server-side)
 * 48 % · 2,400,000 of 5,000,000 rows · 650,123 rows/s · estimated from the database size" (the
 * RESULT column's, after "init: "); the operator's message and the plugin's --wait line take it
 * with their own sep. False (out untouched) without an init's progress (no step). */
bool api_status_init_progress(const cJSON *status, const char *sep, char *out, size_t len);

/* Little's law's deviation of a run from its status (clients, summary.latencyMs.avg and
 * summary.tps) by bench_littles_law, the computation of the result's checks.littlesLaw, for the
 * readers that have the status only (the sweep, kubectl pgbench); NAN when status lacks one. */
double api_status_littles_law_pct(const cJSON *status);

/* Appends {time, replicas} to status.hpaTimeline when replicas differ from the last entry.
 * Returns true when appended. */
bool api_hpa_timeline_record(cJSON *status, int replicas, double now);

#endif
