/* Wait-event and replica-lag sampler on the libuv loop, plus Little's law. */
#include "pkg/pg/pg_diag.h"
#include "pkg/bench/fields.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/pg/pg_conn.h"
#include "pkg/util/json.h"
#include "pkg/util/log.h"
#include "pkg/util/mem.h"

const char pg_wait_event_sql[] =
    "SELECT CASE WHEN wait_event IS NOT NULL THEN wait_event_type || ':' || wait_event "
    "WHEN state = 'active' THEN 'CPU' ELSE 'Client:Idle' END, count(*) "
    "FROM pg_stat_activity WHERE application_name = $1 AND backend_type = 'client backend' "
    "AND pid <> pg_backend_pid() GROUP BY 1";

static const char lag_standby_sql[] =
    "SELECT CASE WHEN r.behind > 0 THEN coalesce(extract(epoch FROM clock_timestamp() - "
    "pg_last_xact_replay_timestamp()) * 1000, 0) ELSE 0 END, r.behind, 1 FROM (SELECT "
    "coalesce(pg_wal_lsn_diff(greatest(pg_last_wal_receive_lsn(), (SELECT latest_end_lsn FROM "
    "pg_stat_wal_receiver)), pg_last_wal_replay_lsn()), 0)::bigint AS behind) r";

static const char lag_primary_sql[] =
    "SELECT coalesce(max(extract(epoch FROM replay_lag)) * 1000, 0), "
    "coalesce(max(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)), 0)::bigint, count(*) "
    "FROM pg_stat_replication WHERE state IN ('streaming', 'catchup')";

void pg_wait_tally_add(struct pg_wait_tally *t, const char *name, int64_t count)
{
    t->backend_samples += count;
    for (int i = 0; i < t->n; i++) {
        if (strcmp(t->ev[i].name, name) == 0) {
            t->ev[i].count += count;
            return;
        }
    }
    if (t->n >= PG_WAIT_NAMES_MAX - 1 && strcmp(name, "Other") != 0) {
        pg_wait_tally_add(t, "Other", count);
        t->backend_samples -= count; /* counted once above */
        return;
    }
    (void)snprintf(t->ev[t->n].name, sizeof(t->ev[t->n].name), "%s", name);
    t->ev[t->n].count = count;
    t->n++;
}

int64_t pg_wait_tally_get(const struct pg_wait_tally *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->ev[i].name, name) == 0)
            return t->ev[i].count;
    return 0;
}

static int cmp_ev(const void *a, const void *b)
{
    const struct pg_wait_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->name, y->name);
}

void pg_wait_tally_sort(struct pg_wait_tally *t)
{
    qsort(t->ev, (size_t)t->n, sizeof(t->ev[0]), cmp_ev);
}

void pg_lag_add(struct pg_lag_samples *l, double ms, int64_t bytes)
{
    if (ms < 0)
        ms = 0;
    if (ms > l->ms_max)
        l->ms_max = ms;
    if (bytes > l->bytes_max)
        l->bytes_max = bytes;
    if (l->n < PG_LAG_SAMPLES_MAX)
        l->ms[l->n++] = ms;
}

cJSON *pg_wait_tally_to_json(const struct pg_wait_tally *t)
{
    struct pg_wait_tally sorted = *t;
    pg_wait_tally_sort(&sorted);
    cJSON *o = cJSON_CreateObject();
    util_jset_num(o, bench_key(BK_WAIT_EVENTS_SAMPLES), sorted.samples);
    util_jset_num(o, bench_key(BK_WAIT_EVENTS_BACKEND_SAMPLES), (double)sorted.backend_samples);
    cJSON *ev = cJSON_CreateObject();
    util_jset(o, bench_key(BK_WAIT_EVENTS_EVENTS), ev);
    for (int i = 0; i < sorted.n; i++)
        util_jset_num(ev, sorted.ev[i].name, (double)sorted.ev[i].count);
    return o;
}

enum diag_phase { PHASE_IDLE = 0, PHASE_WAITS, PHASE_LAG };

struct pg_diag {
    uv_loop_t *loop;
    PGconn *conn;
    uv_timer_t timer;
    uv_poll_t poll;
    bool poll_active;
    bool started;
    bool stopped;
    bool broken;
    int closing;
    enum diag_phase phase;
    struct pg_diag_options opt;
    char appname[128];
    int skipped;
    char error[256];
    struct pg_wait_tally waits;
    struct pg_lag_samples lag;
    /* tally of the round in flight; merged when complete */
    struct pg_wait_tally round;
    pg_diag_close_cb close_cb;
    void *close_ctx;
};

static void on_poll(uv_poll_t *h, int status, int events);

static void diag_fail(struct pg_diag *d, const char *what)
{
    char m[200];
    pg_sanitize_message(m, sizeof(m), PQerrorMessage(d->conn), getenv("PGPASSWORD"));
    (void)snprintf(d->error, sizeof(d->error), "%s: %s", what, m);
    log_warn("pg", "diagnostics sampling stopped: %s", d->error);
    d->broken = true;
    d->phase = PHASE_IDLE;
    if (d->poll_active) {
        (void)uv_poll_stop(&d->poll);
        d->poll_active = false;
    }
    (void)uv_timer_stop(&d->timer);
}

static int send_phase(struct pg_diag *d, enum diag_phase phase)
{
    int ok;
    if (phase == PHASE_WAITS) {
        const char *params[1] = {d->appname};
        memset(&d->round, 0, sizeof(d->round));
        ok = PQsendQueryParams(d->conn, pg_wait_event_sql, 1, NULL, params, NULL, NULL, 0);
    } else {
        ok = PQsendQueryParams(d->conn, d->opt.standby ? lag_standby_sql : lag_primary_sql, 0, NULL,
                               NULL, NULL, NULL, 0);
    }
    if (!ok) {
        diag_fail(d, "send");
        return -EIO;
    }
    d->phase = phase;
    int f = PQflush(d->conn);
    if (f < 0) {
        diag_fail(d, "flush");
        return -EIO;
    }
    (void)uv_poll_start(&d->poll, UV_READABLE | (f == 1 ? UV_WRITABLE : 0), on_poll);
    d->poll_active = true;
    return 0;
}

static void handle_result(struct pg_diag *d, PGresult *res)
{
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        char m[200];
        pg_sanitize_message(m, sizeof(m), PQresultErrorMessage(res), getenv("PGPASSWORD"));
        (void)snprintf(d->error, sizeof(d->error), "%s sample: %s",
                       d->phase == PHASE_WAITS ? "wait-event" : "lag", m);
        return;
    }
    if (d->phase == PHASE_WAITS) {
        for (int i = 0; i < PQntuples(res); i++)
            pg_wait_tally_add(&d->round, PQgetvalue(res, i, 0),
                              strtoll(PQgetvalue(res, i, 1), NULL, 10));
        d->round.samples = 1;
    } else if (PQntuples(res) == 1 && atoi(PQgetvalue(res, 0, 2)) > 0) {
        pg_lag_add(&d->lag, strtod(PQgetvalue(res, 0, 0), NULL),
                   strtoll(PQgetvalue(res, 0, 1), NULL, 10));
    }
}

static void phase_done(struct pg_diag *d)
{
    if (d->phase == PHASE_WAITS && d->round.samples) {
        d->waits.samples++;
        for (int i = 0; i < d->round.n; i++)
            pg_wait_tally_add(&d->waits, d->round.ev[i].name, d->round.ev[i].count);
    }
    enum diag_phase next = PHASE_IDLE;
    if (d->phase == PHASE_WAITS && d->opt.replica_lag)
        next = PHASE_LAG;
    d->phase = PHASE_IDLE;
    if (next != PHASE_IDLE && !d->stopped) {
        send_phase(d, next);
        return;
    }
    if (d->poll_active) {
        (void)uv_poll_stop(&d->poll);
        d->poll_active = false;
    }
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    struct pg_diag *d = h->data;
    if (status < 0) {
        (void)snprintf(d->error, sizeof(d->error), "poll: %s", uv_strerror(status));
        diag_fail(d, "poll");
        return;
    }
    if (events & UV_WRITABLE) {
        int f = PQflush(d->conn);
        if (f < 0) {
            diag_fail(d, "flush");
            return;
        }
        if (f == 0)
            (void)uv_poll_start(&d->poll, UV_READABLE, on_poll);
    }
    if (!(events & UV_READABLE))
        return;
    if (!PQconsumeInput(d->conn)) {
        diag_fail(d, "read");
        return;
    }
    while (!PQisBusy(d->conn)) {
        PGresult *res = PQgetResult(d->conn);
        if (!res) {
            phase_done(d);
            return;
        }
        handle_result(d, res);
        PQclear(res);
    }
}

static void on_timer(uv_timer_t *t)
{
    struct pg_diag *d = t->data;
    if (d->broken || d->stopped)
        return;
    if (d->phase != PHASE_IDLE) {
        d->skipped++;
        return;
    }
    if (PQstatus(d->conn) != CONNECTION_OK) {
        diag_fail(d, "connection");
        return;
    }
    send_phase(d, d->opt.wait_events ? PHASE_WAITS : PHASE_LAG);
}

unsigned pg_diag_interval_ms(int duration_s)
{
    if (duration_s <= 0)
        return 1000;
    long ms = (long)duration_s * 1000 / 100;
    return (unsigned)(ms < 100 ? 100 : ms > 1000 ? 1000 : ms);
}

struct pg_diag *pg_diag_new(uv_loop_t *loop, PGconn *conn, const struct pg_diag_options *opt)
{
    if (!conn || PQstatus(conn) != CONNECTION_OK || PQsocket(conn) < 0)
        return NULL;
    struct pg_diag *d = util_xcalloc(1, sizeof(*d));
    d->loop = loop;
    d->conn = conn;
    d->opt = *opt;
    (void)snprintf(d->appname, sizeof(d->appname), "%s", opt->appname ? opt->appname : "");
    d->opt.appname = d->appname;
    if (!d->opt.interval_ms)
        d->opt.interval_ms = 1000;
    if (PQsetnonblocking(conn, 1) != 0) {
        free(d);
        return NULL;
    }
    if (uv_poll_init(loop, &d->poll, PQsocket(conn)) != 0) {
        free(d);
        return NULL;
    }
    d->poll.data = d;
    (void)uv_timer_init(loop, &d->timer);
    d->timer.data = d;
    return d;
}

int pg_diag_start(struct pg_diag *d)
{
    if (!d->opt.wait_events && !d->opt.replica_lag)
        return 0;
    d->started = true;
    /* the first sample half an interval in: at 0 the benchmark's clients are still connecting
     * (nothing to sample yet, and the query would compete with their authentication); later
     * samples fall between pgbench's -P 1 progress reports */
    return uv_timer_start(&d->timer, on_timer, d->opt.interval_ms / 2, d->opt.interval_ms);
}

void pg_diag_stop(struct pg_diag *d)
{
    if (!d || d->stopped)
        return;
    d->stopped = true;
    (void)uv_timer_stop(&d->timer);
    if (d->poll_active) {
        (void)uv_poll_stop(&d->poll);
        d->poll_active = false;
    }
    if (d->phase != PHASE_IDLE) {
        /* abandon the sample in flight; the connection is only used for sampling */
        PGcancel *c = PQgetCancel(d->conn);
        if (c) {
            char buf[64];
            (void)PQcancel(c, buf, sizeof(buf));
            PQfreeCancel(c);
        }
        d->phase = PHASE_IDLE;
    }
}

static void on_closed(uv_handle_t *h)
{
    struct pg_diag *d = h->data;
    if (--d->closing > 0)
        return;
    if (d->close_cb)
        d->close_cb(d, d->close_ctx);
    free(d);
}

void pg_diag_close(struct pg_diag *d, pg_diag_close_cb cb, void *ctx)
{
    if (!d)
        return;
    pg_diag_stop(d);
    d->close_cb = cb;
    d->close_ctx = ctx;
    d->closing = 2;
    uv_close((uv_handle_t *)&d->timer, on_closed);
    uv_close((uv_handle_t *)&d->poll, on_closed);
}

const struct pg_wait_tally *pg_diag_waits(const struct pg_diag *d)
{
    return &d->waits;
}
const struct pg_lag_samples *pg_diag_lag(const struct pg_diag *d)
{
    return &d->lag;
}
int pg_diag_skipped(const struct pg_diag *d)
{
    return d->skipped;
}
const char *pg_diag_error(const struct pg_diag *d)
{
    return d->error[0] ? d->error : NULL;
}
