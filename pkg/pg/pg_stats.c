/* Server counters as deltas over the load, and the round-trip probe. */
#include "pkg/pg/pg_stats.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/fields.h"
#include "pkg/pg/pg_conn.h"
#include "pkg/util/clock.h"
#include "pkg/util/json.h"

static PGresult *one_row(PGconn *conn, const char *sql, char *msg, size_t msglen)
{
    PGresult *res = PQexec(conn, sql);
    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
        if (msg && msglen)
            pg_sanitize_message(msg, msglen, PQerrorMessage(conn), getenv("PGPASSWORD"));
        PQclear(res);
        return NULL;
    }
    return res;
}

static int64_t i64(const PGresult *r, int col)
{
    return PQgetisnull(r, 0, col) ? -1 : strtoll(PQgetvalue(r, 0, col), NULL, 10);
}

/* This database's counters (pg_stat_database). */
static int read_database(PGconn *conn, struct pg_stats_snap *out, char *msg, size_t msglen)
{
    PGresult *r = one_row(conn,
                          "SELECT xact_commit, xact_rollback, blks_read, blks_hit, temp_files, "
                          "temp_bytes, deadlocks, conflicts FROM pg_stat_database WHERE datname = "
                          "current_database()",
                          msg, msglen);
    if (!r)
        return -EIO;
    out->commits = i64(r, 0);
    out->rollbacks = i64(r, 1);
    out->blks_read = i64(r, 2);
    out->blks_hit = i64(r, 3);
    out->temp_files = i64(r, 4);
    out->temp_bytes = i64(r, 5);
    out->deadlocks = i64(r, 6);
    out->conflicts = i64(r, 7);
    PQclear(r);
    return 0;
}

/* The server-wide counters: checkpoints, WAL (14+) and the client backends' I/O (16+), from the
 * views this version has. */
static int read_server(PGconn *conn, int version_num, struct pg_stats_snap *out, char *msg,
                       size_t msglen)
{
    PGresult *r = one_row(conn,
                          version_num >= 170000
                              ? "SELECT num_timed + num_requested FROM pg_stat_checkpointer"
                              : "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter",
                          msg, msglen);
    if (!r)
        return -EIO;
    out->checkpoints = i64(r, 0);
    PQclear(r);
    if (version_num >= 140000) {
        /* 18 moved the sync counters to pg_stat_io */
        r = one_row(conn,
                    version_num >= 180000
                        ? "SELECT wal_bytes, NULL, NULL, wal_records, wal_fpi FROM pg_stat_wal"
                        : "SELECT wal_bytes, wal_sync, CASE WHEN "
                          "current_setting('track_wal_io_timing')::bool THEN wal_sync_time END, "
                          "wal_records, wal_fpi FROM pg_stat_wal",
                    msg, msglen);
        if (!r)
            return -EIO;
        out->wal_bytes = i64(r, 0);
        out->wal_syncs = i64(r, 1);
        out->wal_sync_ms = PQgetisnull(r, 0, 2) ? -1 : strtod(PQgetvalue(r, 0, 2), NULL);
        out->wal_records = i64(r, 3);
        out->wal_fpi = i64(r, 4);
        PQclear(r);
    }
    if (version_num >= 160000) {
        /* the load's own I/O: reads that missed shared_buffers, dirty buffers a backend had to
         * write itself (the background writer and checkpointer behind) */
        r = one_row(conn,
                    "SELECT sum(reads), sum(writes) FROM pg_stat_io WHERE backend_type = "
                    "'client backend'",
                    msg, msglen);
        if (!r)
            return -EIO;
        out->io_reads = i64(r, 0);
        out->io_writes = i64(r, 1);
        PQclear(r);
    }
    return 0;
}

/* The statements' CPU from pg_stat_kcache when installed, else why not in out->kcache_error. */
static int read_kcache(PGconn *conn, struct pg_stats_snap *out, char *msg, size_t msglen)
{
    PGresult *r = one_row(
        conn, "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_kcache'", msg, msglen);
    if (!r)
        return -EIO;
    bool kcache = i64(r, 0) > 0;
    PQclear(r);
    if (!kcache) {
        (void)snprintf(out->kcache_error, sizeof(out->kcache_error),
                       "unknown: pg_stat_kcache is not installed in the database");
        return 0;
    }
    char kmsg[96] = "";
    r = one_row(conn, "SELECT sum(exec_user_time + exec_system_time) FROM pg_stat_kcache()", kmsg,
                sizeof(kmsg));
    if (r) {
        out->kcache_cpu_s = PQgetisnull(r, 0, 0) ? 0 : strtod(PQgetvalue(r, 0, 0), NULL);
        PQclear(r);
    } else {
        (void)snprintf(out->kcache_error, sizeof(out->kcache_error), "unknown: pg_stat_kcache: %s",
                       kmsg);
    }
    return 0;
}

int pg_stats_read(PGconn *conn, int version_num, struct pg_stats_snap *out, char *msg,
                  size_t msglen)
{
    memset(out, 0, sizeof(*out));
    out->wal_bytes = out->wal_syncs = out->io_reads = out->io_writes = -1;
    out->wal_records = out->wal_fpi = -1;
    out->wal_sync_ms = out->kcache_cpu_s = -1;
    out->t = util_mono_s();
    if (read_database(conn, out, msg, msglen) || read_server(conn, version_num, out, msg, msglen))
        return -EIO;
    return read_kcache(conn, out, msg, msglen);
}

/* b - a of a counter both readings have, else NULL (JSON null). */
static cJSON *delta(int64_t a, int64_t b)
{
    return a >= 0 && b >= a ? cJSON_CreateNumber((double)(b - a)) : cJSON_CreateNull();
}

static cJSON *num_or_null(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(round(v * 1000.0) / 1000.0) : cJSON_CreateNull();
}

cJSON *pg_stats_delta_json(const struct pg_stats_snap *a, const struct pg_stats_snap *b)
{
    cJSON *o = cJSON_CreateObject();
    double commits = b->commits >= a->commits ? (double)(b->commits - a->commits) : NAN;
    double hit = (double)(b->blks_hit - a->blks_hit), read = (double)(b->blks_read - a->blks_read);
    double wal = a->wal_bytes >= 0 ? (double)(b->wal_bytes - a->wal_bytes) : NAN;
    double sync_ms =
        a->wal_sync_ms >= 0 && b->wal_sync_ms >= 0 ? b->wal_sync_ms - a->wal_sync_ms : NAN;
    util_jset(o, bench_key(BK_SERVER_STATS_SECONDS), num_or_null(b->t - a->t));
    util_jset(o, bench_key(BK_SERVER_STATS_COMMITS), delta(a->commits, b->commits));
    util_jset(o, bench_key(BK_SERVER_STATS_ROLLBACKS), delta(a->rollbacks, b->rollbacks));
    util_jset(o, bench_key(BK_SERVER_STATS_BLKS_READ), delta(a->blks_read, b->blks_read));
    util_jset(o, bench_key(BK_SERVER_STATS_BLKS_HIT), delta(a->blks_hit, b->blks_hit));
    util_jset(o, bench_key(BK_SERVER_STATS_CACHE_HIT_PCT),
              num_or_null(hit + read > 0 ? hit / (hit + read) * 100.0 : NAN));
    util_jset(o, bench_key(BK_SERVER_STATS_TEMP_FILES), delta(a->temp_files, b->temp_files));
    util_jset(o, bench_key(BK_SERVER_STATS_TEMP_BYTES), delta(a->temp_bytes, b->temp_bytes));
    util_jset(o, bench_key(BK_SERVER_STATS_DEADLOCKS), delta(a->deadlocks, b->deadlocks));
    util_jset(o, bench_key(BK_SERVER_STATS_CONFLICTS), delta(a->conflicts, b->conflicts));
    util_jset(o, bench_key(BK_SERVER_STATS_CHECKPOINTS), delta(a->checkpoints, b->checkpoints));
    util_jset(o, bench_key(BK_SERVER_STATS_WAL_BYTES), delta(a->wal_bytes, b->wal_bytes));
    util_jset(o, bench_key(BK_SERVER_STATS_WAL_BYTES_PER_TX),
              num_or_null(commits > 0 ? wal / commits : NAN));
    util_jset(o, bench_key(BK_SERVER_STATS_WAL_FPI), delta(a->wal_fpi, b->wal_fpi));
    double records = a->wal_records >= 0 ? (double)(b->wal_records - a->wal_records) : NAN;
    util_jset(o, bench_key(BK_SERVER_STATS_WAL_FPI_PCT),
              num_or_null(records > 0 && a->wal_fpi >= 0
                              ? (double)(b->wal_fpi - a->wal_fpi) / records * 100.0
                              : NAN));
    util_jset(o, bench_key(BK_SERVER_STATS_WAL_SYNCS), delta(a->wal_syncs, b->wal_syncs));
    util_jset(o, bench_key(BK_SERVER_STATS_WAL_SYNC_MS), num_or_null(sync_ms));
    util_jset(o, bench_key(BK_SERVER_STATS_IO_READS), delta(a->io_reads, b->io_reads));
    util_jset(o, bench_key(BK_SERVER_STATS_IO_BACKEND_WRITES), delta(a->io_writes, b->io_writes));
    util_jset(o, bench_key(BK_SERVER_STATS_WAL_SYNC_MS_PER_COMMIT),
              num_or_null(commits > 0 ? sync_ms / commits : NAN));
    char cpu[160];
    bool kcache = a->kcache_cpu_s >= 0 && b->kcache_cpu_s >= 0;
    util_jset(o, bench_key(BK_SERVER_STATS_SERVER_CPU_SECONDS),
              num_or_null(kcache ? b->kcache_cpu_s - a->kcache_cpu_s : NAN));
    if (kcache)
        (void)snprintf(cpu, sizeof(cpu), "%.3f s of CPU (pg_stat_kcache)",
                       b->kcache_cpu_s - a->kcache_cpu_s);
    else
        (void)snprintf(cpu, sizeof(cpu), "%s", b->kcache_error[0] ? b->kcache_error : "unknown");
    util_jset_str(o, bench_key(BK_SERVER_STATS_SERVER_CPU), cpu);
    return o;
}

static int dbl_cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

double pg_rtt_probe(PGconn *conn, int n, char *msg, size_t msglen)
{
    double ms[64];
    if (n < 1)
        return NAN;
    if (n > 64)
        n = 64;
    for (int i = 0; i < n; i++) {
        double t0 = util_mono_s();
        PGresult *r = one_row(conn, "SELECT 1", msg, msglen);
        if (!r)
            return NAN;
        ms[i] = (util_mono_s() - t0) * 1000.0;
        PQclear(r);
    }
    qsort(ms, (size_t)n, sizeof(ms[0]), dbl_cmp);
    return n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
}

int pg_conn_drain(PGconn *conn, double timeout_s)
{
    double until = util_mono_s() + timeout_s;
    while (PQstatus(conn) == CONNECTION_OK) {
        if (!PQconsumeInput(conn))
            return -EIO;
        if (!PQisBusy(conn)) { /* a result, or none: PQgetResult does not block */
            PGresult *r = PQgetResult(conn);
            if (!r)
                return PQsetnonblocking(conn, 0) == 0 ? 0 : -EIO;
            PQclear(r);
            continue;
        }
        double left = until - util_mono_s();
        if (left <= 0)
            return -ETIMEDOUT;
        struct pollfd p = {.fd = PQsocket(conn), .events = POLLIN};
        (void)poll(&p, 1, left > 0.1 ? 100 : (int)(left * 1000) + 1);
    }
    return -EIO;
}
