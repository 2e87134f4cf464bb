/* pkg/pg/conninfo.h: the connection parameters of a PostgreSQL target, once for the whole tree.
 *
 * Owns struct pg_conninfo and the libpq environment variable of each of its fields (PGHOST ...).
 * The runner's flags fill it (bench_runner_common.conn), the runner exports it as PG* so that
 * libpq in the runner and the pgbench child agree, pkg/pg connects with it, and the operator's
 * manifests (pkg/controller/manifest.c) write the pods' PG* env from it.
 *
 * Must not know libpq (this header is all the operator and the plugin include of pkg/pg; they do
 * not link it) nor any password: there is no password field on purpose, libpq reads PGPASSWORD
 * or PGPASSFILE from the environment itself. */
#ifndef PGBO_PG_CONNINFO_H
#define PGBO_PG_CONNINFO_H

#include <signal.h>
#include <stddef.h>

/* Connection parameters. NULL fields fall back to libpq's own defaults (PGHOST, PGPORT, ...). */
struct pg_conninfo {
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
enum pg_conninfo_field {
    PG_CONNINFO_HOST,
    PG_CONNINFO_PORT,
    PG_CONNINFO_DBNAME,
    PG_CONNINFO_USER,
    PG_CONNINFO_SSLMODE,
    PG_CONNINFO_SSLROOTCERT,
    PG_CONNINFO_APPNAME,
    PG_CONNINFO_NFIELDS
};

/* The libpq environment variable of a field: "PGHOST", "PGPORT", "PGDATABASE", "PGUSER",
 * "PGSSLMODE", "PGSSLROOTCERT", "PGAPPNAME". */
static inline const char *pg_conninfo_env(enum pg_conninfo_field f)
{
    static const char *const names[PG_CONNINFO_NFIELDS] = {
        [PG_CONNINFO_HOST] = "PGHOST",       [PG_CONNINFO_PORT] = "PGPORT",
        [PG_CONNINFO_DBNAME] = "PGDATABASE", [PG_CONNINFO_USER] = "PGUSER",
        [PG_CONNINFO_SSLMODE] = "PGSSLMODE", [PG_CONNINFO_SSLROOTCERT] = "PGSSLROOTCERT",
        [PG_CONNINFO_APPNAME] = "PGAPPNAME",
    };
    return names[f];
}

/* The value of a field (NULL when unset). */
static inline const char *pg_conninfo_get(const struct pg_conninfo *ci, enum pg_conninfo_field f)
{
    const char *const v[PG_CONNINFO_NFIELDS] = {
        ci->host, ci->port, ci->dbname, ci->user, ci->sslmode, ci->sslrootcert, ci->appname,
    };
    return v[f];
}

#endif
