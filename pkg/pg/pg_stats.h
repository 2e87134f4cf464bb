/* Server counters read before and after the load, as deltas (pg_stat_database, pg_stat_bgwriter
 * or pg_stat_checkpointer on 17+, pg_stat_wal on 14+, pg_stat_io on 16+), and the round trip of
 * `SELECT 1`: the evidence the verdict (pkg/bench/verdict.def) reads besides the wait events.
 * Blocking calls on a connection the caller owns, made while nothing else uses it. */
#ifndef PGBO_PG_STATS_H
#define PGBO_PG_STATS_H

#include <cjson/cJSON.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One reading. A counter the server does not have (by version) is -1. */
struct pg_stats_snap {
    double t; /* monotonic seconds */
    int64_t commits, rollbacks, blks_read, blks_hit, temp_files, temp_bytes, deadlocks, conflicts;
    int64_t checkpoints;
    int64_t wal_bytes, wal_syncs;
    int64_t wal_records, wal_fpi; /* pg_stat_wal (14+): records, full-page images among them */
    int64_t io_reads, io_writes;  /* pg_stat_io of client backends (16+), else -1 */
    double wal_sync_ms;           /* -1 without track_wal_io_timing or pg_stat_wal's sync columns */
    double kcache_cpu_s;          /* pg_stat_kcache user + system time, -1 when not installed */
    char kcache_error[128];
};

/* Reads the counters of the current database (version_num: server_version_num, picks the views).
 * Returns 0 or -EIO with the server's message in msg. */
int pg_stats_read(PGconn *conn, int version_num, struct pg_stats_snap *out, char *msg,
                  size_t msglen);

/* The result's serverStats section from two readings (b after a). Pure. */
cJSON *pg_stats_delta_json(const struct pg_stats_snap *a, const struct pg_stats_snap *b);

/* The median of n `SELECT 1` round trips in milliseconds; NAN when one failed (msg says why). */
double pg_rtt_probe(PGconn *conn, int n, char *msg, size_t msglen);

/* Makes a connection the sampler used (non-blocking, maybe a cancelled query in flight) usable for
 * blocking queries again: every pending result read, then blocking mode. Waits at most timeout_s
 * for the results (a server gone quiet must not hold the result back). Returns 0, -ETIMEDOUT or
 * -EIO (the connection is not usable). */
int pg_conn_drain(PGconn *conn, double timeout_s);

#endif
