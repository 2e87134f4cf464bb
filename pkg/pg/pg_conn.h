/* libpq connections for the runner: options over the standard PG* environment, readiness wait with
 * a classified error, and CREATE DATABASE when missing.
 *
 * The password is never an option here: libpq reads PGPASSWORD (or PGPASSFILE) from the
 * environment itself, so it never passes through our argv, logs or results. Error messages are
 * still redacted against $PGPASSWORD before they are stored, in case a server echoes it. */
#ifndef PGBO_PG_CONN_H
#define PGBO_PG_CONN_H

#include <libpq-fe.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "pkg/bench/conninfo.h"

/* What went wrong when connecting. */
enum pg_error_class {
    PG_ERR_NONE = 0,
    PG_ERR_DNS,      /* host name does not resolve */
    PG_ERR_REFUSED,  /* nothing listens on host:port */
    PG_ERR_AUTH,     /* password/role/pg_hba refused */
    PG_ERR_TLS,      /* SSL negotiation or certificate */
    PG_ERR_DATABASE, /* database does not exist */
    PG_ERR_TIMEOUT,  /* connect timeout, no route */
    PG_ERR_STARTING, /* server starting up / shutting down / recovering */
    PG_ERR_TOO_MANY, /* too many clients */
    PG_ERR_OTHER,
};

struct pg_error {
    enum pg_error_class cls;
    char target[256];  /* "host:port/db" */
    char message[768]; /* libpq's message, one line, redacted */
};

/* Short stable name: "dns", "refused", "auth", "tls", "database-missing", "timeout", "starting",
 * "too-many-connections", "other" ("" for PG_ERR_NONE). */
const char *pg_error_class_name(enum pg_error_class cls);

/* Classifies a libpq connection failure from its message (pure; needs_password is
 * PQconnectionNeedsPassword()). */
enum pg_error_class pg_classify_error(const char *message, bool needs_password);

/* True when retrying the connection can help (refused, dns, timeout, starting, too many). */
bool pg_error_retryable(enum pg_error_class cls);

/* Copies src into dst (size n) as one line: newlines become "; ", trailing blanks dropped, and
 * every occurrence of secret (when non-empty) replaced as util_redact does. */
void pg_sanitize_message(char *dst, size_t n, const char *src, const char *secret);

/* Writes "host:port/db" for these options (resolving NULLs through PG* env and libpq defaults). */
void pg_conninfo_target(const struct bench_conninfo *ci, char *dst, size_t n);

/* Quotes an SQL identifier like quote_ident(): always double-quoted, inner quotes doubled.
 * Returns a malloc'd string. */
char *pg_quote_ident(const char *ident);

/* One connection attempt. dbname overrides ci->dbname when non-NULL. On success *out is the open
 * connection (caller PQfinish()es it) and returns 0; on failure fills err and returns -ECONNREFUSED
 * (allocation failure aborts, pkg/util/mem.h). */
int pg_connect(const struct bench_conninfo *ci, const char *dbname, PGconn **out,
               struct pg_error *err);

/* A readiness wait's window: timeout_s long, of which spent_s passed before the call (the wait
 * counts from an earlier moment, e.g. the run's creation; 0: from the call), ending stop_early_s
 * before its end (time left to report the failure). The wait records say "waited spent + x s of
 * timeout_s". */
struct pg_wait {
    double timeout_s, spent_s, stop_early_s;
};

/* Connects, retrying retryable failures with backoff until w's window has passed (at least one
 * attempt, also when it passed before the call). Returns 0 with *out set, or -ETIMEDOUT (gave up
 * on a retryable error) / -ECONNREFUSED (permanent error: auth, TLS, database missing) with err
 * filled, or -ECANCELED when ci->cancel was set. Logs each failed attempt (target and class, no
 * password). */
int pg_wait_ready(const struct bench_conninfo *ci, const struct pg_wait *w, PGconn **out,
                  struct pg_error *err);

/* Creates database ci->dbname (or $PGDATABASE / the user name) when it does not exist, connecting
 * to "postgres" with the same options. *created tells whether it did. Returns 0 or a negative
 * errno with err filled. */
int pg_create_database(const struct bench_conninfo *ci, bool *created, struct pg_error *err);

#endif
