/* Server settings, dataset size, pgbench init detection, replica catch-up. */
#include "pkg/pg/pg_info.h"
#include "pkg/bench/fields.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/pg/pg_conn.h"
#include "pkg/util/log.h"
#include "pkg/util/clock.h"
#include "pkg/util/json.h"

const char *const pg_result_settings[] = {
    "shared_buffers",
    "max_connections",
    "synchronous_commit",
    "fsync",
    "full_page_writes",
    "wal_level",
    "wal_sync_method",
    "wal_compression",
    "effective_io_concurrency",
    "effective_cache_size",
    "work_mem",
    "max_wal_size",
    "checkpoint_timeout",
    "random_page_cost",
    "huge_pages",
    "jit",
    "max_parallel_workers_per_gather",
    "synchronous_standby_names",
    "data_checksums",
    "track_io_timing",
    NULL,
};

static void set_msg(char *msg, size_t n, PGconn *conn)
{
    if (msg && n)
        pg_sanitize_message(msg, n, PQerrorMessage(conn), getenv("PGPASSWORD"));
}

static PGresult *query(PGconn *conn, const char *sql, int nparams, const char *const *params,
                       char *msg, size_t msglen)
{
    PGresult *res = PQexecParams(conn, sql, nparams, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        set_msg(msg, msglen, conn);
        PQclear(res);
        return NULL;
    }
    return res;
}

int pg_database_bytes(PGconn *conn, double *bytes, int *block_size, char *msg, size_t msglen)
{
    PGresult *res = query(conn,
                          "SELECT pg_database_size(current_database()), "
                          "current_setting('block_size')::int",
                          0, NULL, msg, msglen);
    if (!res)
        return -EIO;
    *bytes = strtod(PQgetvalue(res, 0, 0), NULL);
    *block_size = atoi(PQgetvalue(res, 0, 1));
    PQclear(res);
    return 0;
}

int pg_server_info_get(PGconn *conn, struct pg_server_info *out, char *msg, size_t msglen)
{
    memset(out, 0, sizeof(*out));
    PGresult *res = query(conn,
                          "SELECT current_setting('server_version'), "
                          "current_setting('server_version_num')::int, pg_is_in_recovery(), "
                          "pg_size_bytes(current_setting('shared_buffers')), "
                          "pg_database_size(current_database()), current_database()",
                          0, NULL, msg, msglen);
    if (!res)
        return -EIO;
    (void)snprintf(out->version, sizeof(out->version), "%s", PQgetvalue(res, 0, 0));
    char *sp = strchr(out->version, ' ');
    if (sp)
        *sp = '\0';
    out->version_num = atoi(PQgetvalue(res, 0, 1));
    out->in_recovery = PQgetvalue(res, 0, 2)[0] == 't';
    out->shared_buffers_bytes = strtoll(PQgetvalue(res, 0, 3), NULL, 10);
    out->database_bytes = strtoll(PQgetvalue(res, 0, 4), NULL, 10);
    (void)snprintf(out->database, sizeof(out->database), "%s", PQgetvalue(res, 0, 5));
    PQclear(res);

    /* one round trip: names as a text array literal built from our fixed list */
    char arr[1024] = "{";
    for (int i = 0; pg_result_settings[i]; i++) {
        size_t l = strlen(arr);
        (void)snprintf(arr + l, sizeof(arr) - l, "%s%s", i ? "," : "", pg_result_settings[i]);
    }
    strncat(arr, "}", sizeof(arr) - strlen(arr) - 1);
    const char *params[1] = {arr};
    res = query(conn,
                "SELECT n, current_setting(n, true) FROM unnest($1::text[]) WITH ORDINALITY AS "
                "s(n, i) WHERE current_setting(n, true) IS NOT NULL ORDER BY i",
                1, params, msg, msglen);
    if (!res)
        return -EIO;
    for (int i = 0; i < PQntuples(res) && out->nsettings < PG_SETTINGS_MAX; i++) {
        struct pg_setting *s = &out->settings[out->nsettings++];
        (void)snprintf(s->name, sizeof(s->name), "%s", PQgetvalue(res, i, 0));
        (void)snprintf(s->value, sizeof(s->value), "%s", PQgetvalue(res, i, 1));
    }
    PQclear(res);
    return 0;
}

cJSON *pg_server_info_to_json(const struct pg_server_info *s)
{
    cJSON *o = cJSON_CreateObject();
    util_jset_str(o, bench_key(BK_SERVER_VERSION), s->version);
    util_jset_num(o, bench_key(BK_SERVER_VERSION_NUM), s->version_num);
    util_jset(o, bench_key(BK_SERVER_IN_RECOVERY), cJSON_CreateBool(s->in_recovery));
    util_jset_str(o, bench_key(BK_SERVER_DATABASE), s->database);
    util_jset_num(o, bench_key(BK_SERVER_DATABASE_BYTES), (double)s->database_bytes);
    util_jset_num(o, bench_key(BK_SERVER_SHARED_BUFFERS_BYTES), (double)s->shared_buffers_bytes);
    for (int i = 0; i < s->nsettings; i++)
        util_jset_str(o, s->settings[i].name, s->settings[i].value);
    return o;
}

cJSON *pg_replica_wait_to_json(const struct pg_replica_wait *w)
{
    cJSON *o = cJSON_CreateObject();
    util_jset_str(o, bench_key(BK_CHECKS_REPLICA_ROLE), w->standby ? "standby" : "primary");
    util_jset(o, bench_key(BK_CHECKS_REPLICA_CAUGHT_UP), cJSON_CreateBool(w->caught_up));
    util_jset_num(o, bench_key(BK_CHECKS_REPLICA_WAITED_SECONDS), w->waited_s);
    util_jset_str(o, bench_key(BK_CHECKS_REPLICA_TARGET_LSN), w->target_lsn);
    if (!w->standby)
        util_jset_num(o, bench_key(BK_CHECKS_REPLICA_STANDBYS), w->standbys);
    util_jset_str(o, bench_key(BK_CHECKS_REPLICA_MESSAGE), w->message);
    return o;
}

/* The four pgbench tables exist. Returns 1 when they do, 0 with reason when one is missing, or
 * -EIO. */
static int pgbench_tables_exist(PGconn *conn, char *reason, size_t n)
{
    static const char *const names[] = {"pgbench_branches", "pgbench_tellers", "pgbench_accounts",
                                        "pgbench_history"};
    char msg[256] = "";
    PGresult *res = query(conn,
                          "SELECT to_regclass('pgbench_branches') IS NOT NULL, "
                          "to_regclass('pgbench_tellers') IS NOT NULL, "
                          "to_regclass('pgbench_accounts') IS NOT NULL, "
                          "to_regclass('pgbench_history') IS NOT NULL",
                          0, NULL, msg, sizeof(msg));
    if (!res) {
        (void)snprintf(reason, n, "cannot check pgbench tables: %s", msg);
        return -EIO;
    }
    for (int i = 0; i < 4; i++) {
        if (PQgetvalue(res, 0, i)[0] != 't') {
            (void)snprintf(reason, n, "table %s does not exist", names[i]);
            PQclear(res);
            return 0;
        }
    }
    PQclear(res);
    return 1;
}

/* pgbench_accounts has its primary key and the requested partitioning. Returns 1, 0 with reason,
 * or -EIO. */
static int pgbench_accounts_shape(PGconn *conn, int partitions, char *reason, size_t n)
{
    char msg[256] = "";
    PGresult *res =
        query(conn,
              "SELECT c.relkind, "
              "(SELECT count(*) FROM pg_inherits WHERE inhparent = c.oid), "
              "EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = c.oid AND contype = 'p') "
              "FROM pg_class c WHERE c.oid = 'pgbench_accounts'::regclass",
              0, NULL, msg, sizeof(msg));
    if (!res) {
        (void)snprintf(reason, n, "cannot check pgbench_accounts: %s", msg);
        return -EIO;
    }
    char relkind = PQgetvalue(res, 0, 0)[0];
    int nparts = atoi(PQgetvalue(res, 0, 1));
    bool has_pk = PQgetvalue(res, 0, 2)[0] == 't';
    PQclear(res);
    if (!has_pk) {
        (void)snprintf(reason, n,
                       "pgbench_accounts has no primary key (initialization incomplete)");
        return 0;
    }
    if (partitions > 0 && (relkind != 'p' || nparts != partitions)) {
        (void)snprintf(reason, n, "pgbench_accounts has %d partitions, %d requested",
                       relkind == 'p' ? nparts : 0, partitions);
        return 0;
    }
    if (partitions == 0 && relkind == 'p') {
        (void)snprintf(reason, n, "pgbench_accounts is partitioned (%d), unpartitioned requested",
                       nparts);
        return 0;
    }
    return 1;
}

/* The tables hold the rows of this scale. Returns 1 (reason says what they hold), 0 with
 * reason, or -EIO. */
static int pgbench_rows_match(PGconn *conn, int scale, char *reason, size_t n)
{
    char msg[256] = "";
    PGresult *res = query(conn,
                          "SELECT (SELECT count(*) FROM pgbench_branches), "
                          "(SELECT count(*) FROM pgbench_tellers), "
                          "(SELECT coalesce(min(aid), 0) FROM pgbench_accounts), "
                          "(SELECT coalesce(max(aid), 0) FROM pgbench_accounts)",
                          0, NULL, msg, sizeof(msg));
    if (!res) {
        (void)snprintf(reason, n, "cannot count pgbench rows: %s", msg);
        return -EIO;
    }
    long long branches = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    long long tellers = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    long long amin = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
    long long amax = strtoll(PQgetvalue(res, 0, 3), NULL, 10);
    PQclear(res);
    if (branches != scale) {
        (void)snprintf(reason, n, "pgbench_branches holds %lld rows, scale %d requested", branches,
                       scale);
        return 0;
    }
    if (tellers != 10LL * scale) {
        (void)snprintf(reason, n, "pgbench_tellers holds %lld rows, %lld expected for scale %d",
                       tellers, 10LL * scale, scale);
        return 0;
    }
    if (amin != 1 || amax != 100000LL * scale) {
        (void)snprintf(reason, n, "pgbench_accounts spans aid %lld..%lld, 1..%lld expected", amin,
                       amax, 100000LL * scale);
        return 0;
    }
    (void)snprintf(reason, n,
                   "pgbench tables already hold scale %d (%lld branches, %lld tellers, accounts "
                   "1..%lld)",
                   scale, branches, tellers, amax);
    return 1;
}

int pg_pgbench_initialized(PGconn *conn, int scale, int partitions, bool *initialized, char *reason,
                           size_t n)
{
    *initialized = false;
    int rc = pgbench_tables_exist(conn, reason, n);
    if (rc == 1)
        rc = pgbench_accounts_shape(conn, partitions, reason, n);
    if (rc == 1)
        rc = pgbench_rows_match(conn, scale, reason, n);
    if (rc < 0)
        return rc;
    *initialized = rc == 1;
    return 0;
}

int pg_lsn_parse(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return -EINVAL;
    char *end;
    unsigned long long hi = strtoull(s, &end, 16);
    if (*end != '/' || end == s || hi > 0xffffffffULL)
        return -EINVAL;
    const char *lo_s = end + 1;
    unsigned long long lo = strtoull(lo_s, &end, 16);
    if (*end != '\0' || end == lo_s || lo > 0xffffffffULL)
        return -EINVAL;
    *out = ((uint64_t)hi << 32) | (uint64_t)lo;
    return 0;
}

int pg_replica_catchup(PGconn *conn, double timeout_s, const volatile sig_atomic_t *cancel,
                       struct pg_replica_wait *out, char *msg, size_t msglen)
{
    memset(out, 0, sizeof(*out));
    double start = util_mono_s();
    PGresult *res = query(conn,
                          "SELECT pg_is_in_recovery(), CASE WHEN pg_is_in_recovery() THEN "
                          "greatest(pg_last_wal_receive_lsn(), (SELECT latest_end_lsn FROM "
                          "pg_stat_wal_receiver), pg_last_wal_replay_lsn()) ELSE "
                          "pg_current_wal_lsn() END::text",
                          0, NULL, msg, msglen);
    if (!res)
        return -EIO;
    out->standby = PQgetvalue(res, 0, 0)[0] == 't';
    (void)snprintf(out->target_lsn, sizeof(out->target_lsn), "%s", PQgetvalue(res, 0, 1));
    PQclear(res);
    if (!out->target_lsn[0]) {
        out->caught_up = true;
        (void)snprintf(out->message, sizeof(out->message),
                       "standby without WAL position (no recovery)");
        return 0;
    }
    const char *params[1] = {out->target_lsn};
    const char *sql =
        out->standby
            ? "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn, "
              "coalesce((SELECT status FROM pg_stat_wal_receiver), 'no wal receiver'), "
              "pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn())::bigint, 1"
            : "SELECT count(*) FILTER (WHERE replay_lsn IS NULL OR replay_lsn < $1::pg_lsn) = 0, "
              "string_agg(coalesce(application_name, '?') || '=' || coalesce(state, '?'), ', '), "
              "coalesce(max(pg_wal_lsn_diff($1::pg_lsn, replay_lsn)), 0)::bigint, count(*) "
              "FROM pg_stat_replication WHERE state IN ('streaming', 'catchup')";
    double last_log = start;
    for (;;) {
        res = query(conn, sql, 1, params, msg, msglen);
        if (!res)
            return -EIO;
        bool done = PQgetvalue(res, 0, 0)[0] == 't';
        char state[128];
        (void)snprintf(state, sizeof(state), "%s", PQgetvalue(res, 0, 1));
        long long behind = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
        out->standbys = atoi(PQgetvalue(res, 0, 3));
        PQclear(res);
        double now = util_mono_s();
        out->waited_s = now - start;
        if (done) {
            out->caught_up = true;
            if (!out->standby && out->standbys == 0)
                (void)snprintf(out->message, sizeof(out->message),
                               "primary with no standbys attached");
            else
                (void)snprintf(
                    out->message, sizeof(out->message), "%s replayed up to %s after %.1f s",
                    out->standby ? "standby" : "all standbys", out->target_lsn, out->waited_s);
            return 0;
        }
        if (out->waited_s >= timeout_s) {
            (void)snprintf(out->message, sizeof(out->message),
                           "%s not caught up with %s after %.0f s: %lld bytes behind (%s)",
                           out->standby ? "standby" : "standbys", out->target_lsn, out->waited_s,
                           behind, state[0] ? state : "no standbys");
            return 0;
        }
        if (cancel && *cancel) {
            (void)snprintf(out->message, sizeof(out->message),
                           "wait for replay to reach %s cancelled after %.1f s", out->target_lsn,
                           out->waited_s);
            return -ECANCELED;
        }
        if (now - last_log >= 5) {
            log_info("pg", "waiting for replay to reach %s: %lld bytes behind (%s)",
                     out->target_lsn, behind, state);
            last_log = now;
        }
        util_sleep_s(0.2, NULL);
    }
}
