/* Diagnostics sampled while the load runs, on one libpq connection driven by the libuv loop
 * (non-blocking queries, uv_poll on the socket): wait events of the benchmark's own backends and
 * replica lag, once per interval.
 *
 * Wait-event classes, per backend and sample (pg_stat_activity rows whose application_name is the
 * benchmark's PGAPPNAME):
 *   "CPU"                 state = 'active' and no wait event: running on a CPU (or in a wait
 *                         PostgreSQL does not instrument).
 *   "Type:Event"          the wait event, e.g. "IO:DataFileRead", "IO:WALSync", "Lock:tuple",
 *                         "LWLock:WALWrite", whatever the state.
 *   "Client:ClientRead"   idle or idle in transaction waiting for the next command: the time is
 *                         spent on the client side (pgbench, network), not in the server. It is
 *                         reported separately so that "CPU" means server CPU only.
 *   "Client:Idle"         not active and no wait event (rare transitional state).
 * Our own sampling connection uses a different application_name and is never counted. */
#ifndef PGBO_PG_DIAG_H
#define PGBO_PG_DIAG_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include <uv.h>

#define PG_WAIT_NAMES_MAX 64
#define PG_LAG_SAMPLES_MAX 7200

struct pg_wait_count {
    char name[96];
    int64_t count;
};

/* A tally of wait-event names (bounded: names past PG_WAIT_NAMES_MAX go to "Other"). */
struct pg_wait_tally {
    int samples;             /* sampling rounds that completed */
    int64_t backend_samples; /* sum of counts */
    int n;
    struct pg_wait_count ev[PG_WAIT_NAMES_MAX];
};

void pg_wait_tally_add(struct pg_wait_tally *t, const char *name, int64_t count);
/* Sorts by count, descending (ties by name). */
void pg_wait_tally_sort(struct pg_wait_tally *t);
int64_t pg_wait_tally_get(const struct pg_wait_tally *t, const char *name);

/* {"samples":N,"backendSamples":M,"events":{"CPU":n,...}} sorted by count. */
cJSON *pg_wait_tally_to_json(const struct pg_wait_tally *t);

/* SQL of one wait-event sample; $1 = application_name. Exposed for the docs and tests. */
extern const char pg_wait_event_sql[];

struct pg_lag_samples {
    int n;
    double ms[PG_LAG_SAMPLES_MAX];
    int64_t bytes_max;
    double ms_max;
};

void pg_lag_add(struct pg_lag_samples *l, double ms, int64_t bytes);

/* The sampler. The caller owns conn until pg_diag_close's callback ran, then PQfinish()es it. */
struct pg_diag;
typedef void (*pg_diag_close_cb)(struct pg_diag *d, void *ctx);

struct pg_diag_options {
    const char *appname;  /* application_name of the benchmark's backends (copied) */
    bool wait_events;     /* sample pg_stat_activity */
    bool replica_lag;     /* sample lag */
    bool standby;         /* target is a standby (lag from replay position) else primary */
    unsigned interval_ms; /* 0 = 1000 */
};

/* The sampling interval for a run of duration_s seconds (0: unknown, -t runs): a hundredth of
 * the run, so that even a short sweep step has about 100 rounds, between 100 ms (at most 10
 * queries a second on pg_stat_activity, whatever the run) and 1 s. */
unsigned pg_diag_interval_ms(int duration_s);

/* Returns NULL on a bad connection. Does not start sampling. */
struct pg_diag *pg_diag_new(uv_loop_t *loop, PGconn *conn, const struct pg_diag_options *opt);
/* Takes the first sample half an interval from now, then one every interval. Returns 0 or a
 * negative errno. */
int pg_diag_start(struct pg_diag *d);
/* Stops the timer (a query in flight is abandoned). Safe to call twice. */
void pg_diag_stop(struct pg_diag *d);
/* Stops and closes the handles; cb (may be NULL) runs once they are closed, then d is freed. */
void pg_diag_close(struct pg_diag *d, pg_diag_close_cb cb, void *ctx);

const struct pg_wait_tally *pg_diag_waits(const struct pg_diag *d);
const struct pg_lag_samples *pg_diag_lag(const struct pg_diag *d);
/* Number of ticks skipped because the previous sample was still running; last error or NULL. */
int pg_diag_skipped(const struct pg_diag *d);
const char *pg_diag_error(const struct pg_diag *d);

#endif
