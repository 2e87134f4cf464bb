/* pkg/controller/progress: a run's live progress, from the records its workers log.
 *
 * While pgbench runs, the runner logs one "progress" record per -P line and, while it waits for
 * its target, one "wait" record per retry (rows progress.* and wait.* of the result contract,
 * pkg/bench/fields.def). The operator reads the tail of each running worker's log once per
 * progress interval (a bounded request: sinceSeconds and limitBytes) and keeps the last record of
 * each kind. This module turns those into status.progress and into the message of condition
 * TargetUnreachable; it does no I/O. */
#ifndef PGBO_CONTROLLER_PROGRESS_H
#define PGBO_CONTROLLER_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* At most this many worker logs are read per progress interval. A run with more running workers
 * reads a sample of them that rotates from one interval to the next (ctrl_progress_sample_start),
 * and status.progress extrapolates the sample to every running worker and says so. At 256 workers
 * and a 10 s interval that is 0.8 log requests a second, not 25. */
#define CTRL_PROGRESS_SAMPLE 8

/* What one worker's log tail said. */
struct ctrl_worker_progress {
    bool progress; /* a progress record was found */
    double t, tps, latency_ms;
    double failed_total; /* NAN when pgbench does not count failures */
    double duration_s;   /* NAN for a -t run */
    /* an init's record (pgbench -i): its step ("" for a run's record), the pgbench_accounts rows
     * so far, of the total, per second (NAN when absent) and what counted them */
    char step[32];
    char source[32];
    double rows, rows_total, rows_per_s;
    bool waiting; /* the last record is a wait record: the worker still waits */
    char wait_target[256];
    char wait_cause[32];
    char wait_message[512];
    double wait_elapsed_s, wait_timeout_s;
};

/* Reads the last progress and wait records of a log (JSON lines; anything else is skipped, so
 * are lines cut by limitBytes). A wait record after the last progress record means the worker is
 * still waiting. Returns true when any record was found. */
bool ctrl_progress_parse(const char *log, size_t len, struct ctrl_worker_progress *out);

/* The first of the sample to read among `running` workers (by position in worker order) at time
 * now with reads every `every` seconds: interval k reads positions k*CTRL_PROGRESS_SAMPLE onwards,
 * wrapping, so every worker is read within ceil(running / CTRL_PROGRESS_SAMPLE) intervals. 0 when
 * every running worker fits in one sample. */
int ctrl_progress_sample_start(int running, double now, long every);

/* status.progress from the workers that reported (n entries, any of which may have found
 * nothing): elapsed and remaining seconds, tps summed, latency weighted by tps, failures so far,
 * how many reported, and when (RFC 3339 of now); for an init's record (the init pod, n = 1) its
 * step, rows, rowsTotal, rowsPerSecond and source instead of the tps. `read` logs were read of
 * `running` workers: when read < running (a sample), tps and failed are the sums scaled by
 * running / read, and workersRead and extrapolated: true say so. Sets status.progress to null
 * (removed by the merge patch that writes status) when nobody reported a progress record. Returns
 * true when status changed. */
bool ctrl_progress_set(cJSON *status, const struct ctrl_worker_progress *w, int n, int read,
                       int running, double now);

/* status.result while the run goes, from status.progress: "2,480 tps now · 12 s of 30 s"
 * (kubectl get br -w shows it move; "~2,480 tps now" when extrapolated); the final result
 * replaces it. While an init goes: "init:
 * generate (server-side) 48 % · 2,400,000 of 5,000,000 rows · 650,000 rows/s · estimated from the
 * database size". */
void ctrl_progress_display(cJSON *status);

/* The init's progress ends with the init: call it when the run leaves Initializing. The init's
 * status.progress (it has a step) and status.result (the init's live line, the only result an init
 * writes) are set to null (removed by the merge patch), so that a run does not show the init's
 * last figures until its own come. */
void ctrl_progress_end_init(cJSON *status);

/* status.message while the run goes, from status.progress: the current state, "pgbench runs on 2
 * of 2 workers: 12 s of 30 s, 2,480 tps now" (kubectl get -o wide shows it), with a sample
 * "pgbench runs on 64 workers: 12 s of 30 s, about 2,480 tps now (8 of 64 read, extrapolated)",
 * or for an init
 * "pgbench -i: generate (server-side), 2,400,000 of 5,000,000 rows (48 %, estimated from the
 * database size), 650,000 rows/s, 12 s"; false (out untouched) when status has no progress. */
bool ctrl_progress_message(const cJSON *status, int workers, char *out, size_t len);

/* One line for condition TargetUnreachable when a worker still waits for its target, e.g.
 * "worker 1: could not translate host name "pg-rw" ... (dns), retrying, 40 s of 120 s"; false when
 * none waits. */
bool ctrl_progress_waiting(const struct ctrl_worker_progress *w, int n, char *out, size_t len);

#endif
