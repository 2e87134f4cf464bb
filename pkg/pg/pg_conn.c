/* libpq connections: options, readiness wait with classified errors, createdb. */
#include "pkg/pg/pg_conn.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/bench/fields.h"
#include "pkg/util/log.h"
#include "pkg/util/clock.h"
#include "pkg/util/mem.h"
#include "pkg/util/redact.h"

static const char *const class_names[] = {
    [PG_ERR_NONE] = "",
    [PG_ERR_DNS] = "dns",
    [PG_ERR_REFUSED] = "refused",
    [PG_ERR_AUTH] = "auth",
    [PG_ERR_TLS] = "tls",
    [PG_ERR_DATABASE] = "database-missing",
    [PG_ERR_TIMEOUT] = "timeout",
    [PG_ERR_STARTING] = "starting",
    [PG_ERR_TOO_MANY] = "too-many-connections",
    [PG_ERR_OTHER] = "other",
};

const char *pg_error_class_name(enum pg_error_class cls)
{
    if ((unsigned)cls > PG_ERR_OTHER)
        return "other";
    return class_names[cls];
}

/* What a libpq connection failure says, in the order it is checked: the first row whose needle
 * (and second needle, when set) the message holds names the class. A server that asks for a
 * password (needs_password) is an authentication failure unless a row above the first auth row
 * matched. */
static const struct {
    enum pg_error_class cls;
    const char *needle, *also;
} classify_rows[] = {
    {PG_ERR_DNS, "could not translate host name", NULL},
    {PG_ERR_DNS, "Name or service not known", NULL},
    {PG_ERR_DNS, "Temporary failure in name resolution", NULL},
    {PG_ERR_DNS, "nodename nor servname", NULL},
    {PG_ERR_REFUSED, "Connection refused", NULL},
    {PG_ERR_REFUSED, "No such file or directory\n\tIs the server", NULL},
    {PG_ERR_DATABASE, "database \"", "\" does not exist"},
    {PG_ERR_AUTH, "password authentication failed", NULL},
    {PG_ERR_AUTH, "no password supplied", NULL},
    {PG_ERR_AUTH, "no pg_hba.conf entry", NULL},
    {PG_ERR_AUTH, "authentication failed", NULL},
    {PG_ERR_AUTH, "role \"", "does not exist"},
    {PG_ERR_AUTH, "is not permitted to log in", NULL},
    {PG_ERR_AUTH, "pg_hba.conf rejects", NULL},
    {PG_ERR_TLS, "SSL error", NULL},
    {PG_ERR_TLS, "SSL SYSCALL", NULL},
    {PG_ERR_TLS, "does not support SSL", NULL},
    {PG_ERR_TLS, "SSL connection", NULL},
    {PG_ERR_TLS, "certificate", NULL},
    {PG_ERR_TLS, "TLS", NULL},
    {PG_ERR_TLS, "SSL negotiation", NULL},
    {PG_ERR_TLS, "GSSAPI encryption", NULL},
    {PG_ERR_TIMEOUT, "timeout expired", NULL},
    {PG_ERR_TIMEOUT, "timed out", NULL},
    {PG_ERR_TIMEOUT, "No route to host", NULL},
    {PG_ERR_TIMEOUT, "Network is unreachable", NULL},
    {PG_ERR_STARTING, "the database system is starting up", NULL},
    {PG_ERR_STARTING, "the database system is shutting down", NULL},
    {PG_ERR_STARTING, "the database system is in recovery mode", NULL},
    {PG_ERR_STARTING, "not yet accepting connections", NULL},
    {PG_ERR_STARTING, "the database system is not accepting", NULL},
    {PG_ERR_TOO_MANY, "too many clients", NULL},
    {PG_ERR_TOO_MANY, "remaining connection slots are reserved", NULL},
    {PG_ERR_TOO_MANY, "too many connections", NULL},
};

enum pg_error_class pg_classify_error(const char *m, bool needs_password)
{
    if (!m)
        m = "";
    for (size_t i = 0; i < sizeof(classify_rows) / sizeof(classify_rows[0]); i++) {
        if (classify_rows[i].cls == PG_ERR_AUTH && needs_password)
            return PG_ERR_AUTH;
        if (strstr(m, classify_rows[i].needle) &&
            (!classify_rows[i].also || strstr(m, classify_rows[i].also)))
            return classify_rows[i].cls;
    }
    return PG_ERR_OTHER;
}

bool pg_error_retryable(enum pg_error_class cls)
{
    switch (cls) {
    case PG_ERR_DNS:
    case PG_ERR_REFUSED:
    case PG_ERR_TIMEOUT:
    case PG_ERR_STARTING:
    case PG_ERR_TOO_MANY:
    case PG_ERR_OTHER: /* e.g. "server closed the connection unexpectedly" while it starts */
        return true;
    default:
        return false;
    }
}

void pg_sanitize_message(char *dst, size_t n, const char *src, const char *secret)
{
    if (!n)
        return;
    /* redacted whole before it is cut to n, so that no prefix of the secret survives the cut */
    char *text = util_xstrdup(src ? src : "");
    util_redact(text, secret);
    size_t o = 0;
    src = text;
    while (*src && o + 1 < n) {
        if (*src == '\n' || *src == '\r') {
            while (*src == '\n' || *src == '\r' || *src == '\t')
                src++;
            /* drop trailing newline(s); otherwise join lines with "; " */
            if (*src && o > 0) {
                for (const char *r = "; "; *r && o + 1 < n; r++)
                    dst[o++] = *r;
            }
            continue;
        }
        dst[o++] = *src == '\t' ? ' ' : *src;
        src++;
    }
    free(text);
    while (o > 0 && (dst[o - 1] == ' ' || dst[o - 1] == ';'))
        o--;
    dst[o] = '\0';
    /* collapse libpq's double space after "FATAL:" */
    char *p;
    while ((p = strstr(dst, ":  ")) != NULL)
        memmove(p + 1, p + 2, strlen(p + 2) + 1);
}

/* A field of ci, else its PG* variable, else dflt; empty is as unset. */
static const char *pick(const struct bench_conninfo *ci, enum bench_conninfo_field f,
                        const char *dflt)
{
    const char *opt = pg_conninfo_get(ci, f);
    if (opt && *opt)
        return opt;
    const char *e = getenv(bench_conninfo_env(f));
    if (e && *e)
        return e;
    return dflt;
}

void pg_conninfo_target(const struct bench_conninfo *ci, char *dst, size_t n)
{
    const char *user = pick(ci, BENCH_CONNINFO_USER, NULL);
    if (!user)
        user = getenv("USER");
    const char *host = pick(ci, BENCH_CONNINFO_HOST, "localhost");
    const char *port = pick(ci, BENCH_CONNINFO_PORT, "5432");
    const char *db = pick(ci, BENCH_CONNINFO_DBNAME, user ? user : "postgres");
    (void)snprintf(dst, n, "%s:%s/%s", host, port, db);
}

char *pg_quote_ident(const char *ident)
{
    size_t len = strlen(ident);
    char *out = util_xmalloc(len * 2 + 3);
    size_t o = 0;
    out[o++] = '"';
    for (const char *p = ident; *p; p++) {
        if (*p == '"')
            out[o++] = '"';
        out[o++] = *p;
    }
    out[o++] = '"';
    out[o] = '\0';
    return out;
}

static void fill_error(struct pg_error *err, const struct bench_conninfo *ci, const char *dbname,
                       PGconn *conn)
{
    struct bench_conninfo tmp = *ci;
    if (dbname)
        tmp.dbname = dbname;
    pg_conninfo_target(&tmp, err->target, sizeof(err->target));
    const char *msg = PQerrorMessage(conn);
    err->cls = pg_classify_error(msg, PQconnectionNeedsPassword(conn) != 0);
    pg_sanitize_message(err->message, sizeof(err->message), msg, getenv("PGPASSWORD"));
    if (!err->message[0])
        (void)snprintf(err->message, sizeof(err->message), "connection failed");
}

int pg_connect(const struct bench_conninfo *ci, const char *dbname, PGconn **out,
               struct pg_error *err)
{
    const char *keys[12];
    const char *vals[12];
    int k = 0;
    char timeout[16];
    (void)snprintf(timeout, sizeof(timeout), "%d",
                   ci->connect_timeout_s > 0 ? ci->connect_timeout_s : 10);
#define OPT(key, val)                                                                              \
    do {                                                                                           \
        if ((val) && *(val)) {                                                                     \
            keys[k] = (key);                                                                       \
            vals[k] = (val);                                                                       \
            k++;                                                                                   \
        }                                                                                          \
    } while (0)
    OPT("host", ci->host);
    OPT("port", ci->port);
    OPT("dbname", dbname ? dbname : ci->dbname);
    OPT("user", ci->user);
    OPT("sslmode", ci->sslmode);
    OPT("sslrootcert", ci->sslrootcert);
    OPT("application_name", ci->appname);
    keys[k] = "connect_timeout";
    vals[k] = timeout;
    k++;
#undef OPT
    keys[k] = NULL;
    vals[k] = NULL;
    *out = NULL;
    memset(err, 0, sizeof(*err));
    /* NULL only when libpq cannot allocate its PGconn */
    PGconn *conn = util_must(PQconnectdbParams(keys, vals, 0));
    if (PQstatus(conn) == CONNECTION_OK) {
        *out = conn;
        return 0;
    }
    fill_error(err, ci, dbname, conn);
    PQfinish(conn);
    return -ECONNREFUSED;
}

/* "waiting for ..., retrying" with the wait record the operator follows (rows "wait.*" of the
 * result contract): it reports TargetUnreachable from it while the runner retries. */
static void log_wait(const struct pg_error *err, double waited, double timeout_s)
{
    cJSON *o = cJSON_CreateObject(); /* bench_put_key fails only for a non-object */
    (void)bench_put_key(o, BK_WAIT_TARGET, cJSON_CreateString(err->target));
    (void)bench_put_key(o, BK_WAIT_CAUSE, cJSON_CreateString(pg_error_class_name(err->cls)));
    (void)bench_put_key(o, BK_WAIT_MESSAGE, cJSON_CreateString(err->message));
    (void)bench_put_key(o, BK_WAIT_ELAPSED_SECONDS, cJSON_CreateNumber(round(waited * 10) / 10));
    (void)bench_put_key(o, BK_WAIT_TIMEOUT_SECONDS, cJSON_CreateNumber(timeout_s));
    char *rec = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    log_record(LOG_INFO, "pg", bench_key(BK_WAIT), rec, "waiting for %s: %s (%s), retrying",
               err->target, pg_error_class_name(err->cls), err->message);
    free(rec);
}

int pg_wait_ready(const struct bench_conninfo *ci, const struct pg_wait *w, PGconn **out,
                  struct pg_error *err)
{
    double logged = -1; /* when the last wait record was written */
    double timeout_s = w->timeout_s > 0 ? w->timeout_s : 0;
    double spent = w->spent_s > 0 ? w->spent_s : 0;
    double start = util_mono_s() - spent; /* where the window began, on this clock */
    double deadline = start + timeout_s - (w->stop_early_s > 0 ? w->stop_early_s : 0);
    double backoff = 0.25;
    int attempt = 0;
    for (;;) {
        attempt++;
        struct bench_conninfo tmp = *ci;
        double left = deadline - util_mono_s();
        if (tmp.connect_timeout_s <= 0)
            tmp.connect_timeout_s = left > 10 ? 10 : (left > 2 ? (int)left : 2);
        int rc = pg_connect(&tmp, NULL, out, err);
        if (rc == 0) {
            if (attempt > 1) {
                char target[256];
                pg_conninfo_target(ci, target, sizeof(target));
                log_info("pg", "target %s ready after %d attempts (%.1f s)", target, attempt,
                         util_mono_s() - start);
            }
            return 0;
        }
        if (!pg_error_retryable(err->cls)) {
            log_error("pg", "cannot connect to %s: %s error: %s", err->target,
                      pg_error_class_name(err->cls), err->message);
            return -ECONNREFUSED;
        }
        if (ci->cancel && *ci->cancel)
            return -ECANCELED;
        left = deadline - util_mono_s();
        if (left <= 0) {
            log_error("pg", "target %s not ready after %.1f s (%d attempts): %s error: %s",
                      err->target, util_mono_s() - start, attempt, pg_error_class_name(err->cls),
                      err->message);
            return -ETIMEDOUT;
        }
        if (logged < 0 || util_mono_s() - logged >= 5) { /* the first failure, then every 5 s */
            log_wait(err, util_mono_s() - start, timeout_s);
            logged = util_mono_s();
        }
        util_sleep_s(backoff < left ? backoff : left, ci->cancel);
        if (ci->cancel && *ci->cancel)
            return -ECANCELED;
        backoff = backoff * 2 > 2.0 ? 2.0 : backoff * 2;
    }
}

int pg_create_database(const struct bench_conninfo *ci, bool *created, struct pg_error *err)
{
    *created = false;
    const char *user = pick(ci, BENCH_CONNINFO_USER, NULL);
    if (!user)
        user = getenv("USER");
    const char *db = pick(ci, BENCH_CONNINFO_DBNAME, user);
    if (!db || !*db) {
        memset(err, 0, sizeof(*err));
        err->cls = PG_ERR_OTHER;
        (void)snprintf(err->message, sizeof(err->message), "no database name to create");
        return -EINVAL;
    }
    PGconn *conn = NULL;
    int rc = pg_connect(ci, "postgres", &conn, err);
    if (rc)
        return rc;
    const char *params[1] = {db};
    PGresult *res = PQexecParams(conn, "SELECT 1 FROM pg_database WHERE datname = $1", 1, NULL,
                                 params, NULL, NULL, 0);
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        err->cls = PG_ERR_OTHER;
        pg_sanitize_message(err->message, sizeof(err->message), PQerrorMessage(conn),
                            getenv("PGPASSWORD"));
        rc = -EIO;
        goto out;
    }
    if (PQntuples(res) > 0)
        goto out;
    PQclear(res);
    char *q = pg_quote_ident(db);
    size_t qlen = strlen(q) + 32;
    char *sql = util_xmalloc(qlen);
    (void)snprintf(sql, qlen, "CREATE DATABASE %s", q);
    free(q);
    res = PQexec(conn, sql);
    free(sql);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        if (state && strcmp(state, "42P04") == 0) /* duplicate_database: a concurrent worker won */
            goto out;
        err->cls = PG_ERR_OTHER;
        pg_sanitize_message(err->message, sizeof(err->message), PQerrorMessage(conn),
                            getenv("PGPASSWORD"));
        rc = -EIO;
        goto out;
    }
    *created = true;
    log_info("pg", "created database %s", db);
out:
    PQclear(res);
    PQfinish(conn);
    return rc;
}
