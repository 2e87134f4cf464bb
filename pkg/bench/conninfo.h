/* pkg/bench/conninfo.h: the connection parameters of a PostgreSQL target, once for the whole tree.
 *
 * Owns struct bench_conninfo and the libpq environment variable of each of its fields (PGHOST ...).
 * The runner's flags fill it (bench_runner_common.conn), the runner exports it as PG* so that
 * libpq in the runner and the pgbench child agree, pkg/pg connects with it, and the operator's
 * manifests (pkg/api/manifest.c) write the pods' PG* env from it.
 *
 * Must not know libpq (this header is all the operator and the plugin include of pkg/pg; they do
 * not link it) nor any password: there is no password field on purpose, libpq reads PGPASSWORD
 * or PGPASSFILE from the environment itself. */
#ifndef PGBO_BENCH_CONNINFO_H
#define PGBO_BENCH_CONNINFO_H

#include <signal.h>
#include <stddef.h>

/* Connection parameters. NULL fields fall back to libpq's own defaults (PGHOST, PGPORT, ...). */
struct bench_conninfo {
    const char *host;
    const char *port;
    const char *dbname;
    const char *user;
    const char *sslmode;
    const char *sslrootcert;
    const char *appname;
    int connect_timeout_s; /* per attempt; 0 = 10 */
    /* When non-NULL and set (e.g. by a SIGTERM handler), pg_wait_ready stops retrying and
     * returns -ECANCELED. */
    const volatile sig_atomic_t *cancel;
};

/* The string fields, in the order the PG* variables are written. */
enum bench_conninfo_field {
    BENCH_CONNINFO_HOST,
    BENCH_CONNINFO_PORT,
    BENCH_CONNINFO_DBNAME,
    BENCH_CONNINFO_USER,
    BENCH_CONNINFO_SSLMODE,
    BENCH_CONNINFO_SSLROOTCERT,
    BENCH_CONNINFO_APPNAME,
    BENCH_CONNINFO_NFIELDS
};

/* The libpq environment variable of a field: "PGHOST", "PGPORT", "PGDATABASE", "PGUSER",
 * "PGSSLMODE", "PGSSLROOTCERT", "PGAPPNAME". */
static inline const char *bench_conninfo_env(enum bench_conninfo_field f)
{
    static const char *const names[BENCH_CONNINFO_NFIELDS] = {
        [BENCH_CONNINFO_HOST] = "PGHOST",       [BENCH_CONNINFO_PORT] = "PGPORT",
        [BENCH_CONNINFO_DBNAME] = "PGDATABASE", [BENCH_CONNINFO_USER] = "PGUSER",
        [BENCH_CONNINFO_SSLMODE] = "PGSSLMODE", [BENCH_CONNINFO_SSLROOTCERT] = "PGSSLROOTCERT",
        [BENCH_CONNINFO_APPNAME] = "PGAPPNAME",
    };
    return names[f];
}

/* The value of a field (NULL when unset). */
static inline const char *pg_conninfo_get(const struct bench_conninfo *ci,
                                          enum bench_conninfo_field f)
{
    const char *const v[BENCH_CONNINFO_NFIELDS] = {
        ci->host, ci->port, ci->dbname, ci->user, ci->sslmode, ci->sslrootcert, ci->appname,
    };
    return v[f];
}

#endif
