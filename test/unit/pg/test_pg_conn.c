/* Unit tests for pkg/pg/pg_conn.c: error classification, message sanitizing, quoting; and
 * pkg/bench/conninfo.h's PG* table. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/pg/pg_conn.h"
#include "pkg/util/clock.h"

/* Messages as libpq 15 prints them. */
static void test_classify_libpq_messages(void **state)
{
    (void)state;
    static const struct {
        const char *msg;
        bool needs_password;
        enum pg_error_class want;
    } cases[] = {
        {"could not translate host name \"pg-rw.db.svc\" to address: Name or service not known\n",
         false, PG_ERR_DNS},
        {"could not translate host name \"x\" to address: Temporary failure in name resolution\n",
         false, PG_ERR_DNS},
        {"connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n\tIs the "
         "server running on that host and accepting TCP/IP connections?\n",
         false, PG_ERR_REFUSED},
        {"connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or "
         "directory\n\tIs the server running locally and accepting connections on that socket?\n",
         false, PG_ERR_REFUSED},
        {"connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  password "
         "authentication failed for user \"bench\"\n",
         false, PG_ERR_AUTH},
        {"connection to server at \"127.0.0.1\", port 5432 failed: fe_sendauth: no password "
         "supplied\n",
         true, PG_ERR_AUTH},
        {"connection to server at \"10.0.0.1\", port 5432 failed: FATAL:  no pg_hba.conf entry "
         "for host \"10.0.0.2\", user \"app\", database \"app\", SSL encryption\n",
         false, PG_ERR_AUTH},
        {"connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  role \"nobody\" does "
         "not exist\n",
         false, PG_ERR_AUTH},
        {"connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  database \"nope\" does "
         "not exist\n",
         false, PG_ERR_DATABASE},
        {"connection to server at \"127.0.0.1\", port 5432 failed: server does not support SSL, "
         "but SSL was required\n",
         false, PG_ERR_TLS},
        {"connection to server at \"pg\", port 5432 failed: SSL error: certificate verify failed\n",
         false, PG_ERR_TLS},
        {"connection to server at \"pg\", port 5432 failed: root certificate file "
         "\"/ca/ca.crt\" does not exist\nEither provide the file or change sslmode to disable "
         "server certificate verification.\n",
         false, PG_ERR_TLS},
        {"connection to server at \"10.1.2.3\", port 5432 failed: timeout expired\n", false,
         PG_ERR_TIMEOUT},
        {"connection to server at \"10.1.2.3\", port 5432 failed: No route to host\n", false,
         PG_ERR_TIMEOUT},
        {"connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  the database system "
         "is starting up\n",
         false, PG_ERR_STARTING},
        {"connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  sorry, too many "
         "clients already\n",
         false, PG_ERR_TOO_MANY},
        {"server closed the connection unexpectedly\n", false, PG_ERR_OTHER},
        {NULL, false, PG_ERR_OTHER},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        enum pg_error_class got = pg_classify_error(cases[i].msg, cases[i].needs_password);
        if (got != cases[i].want)
            fail_msg("case %zu (%s): got %s want %s", i, cases[i].msg ? cases[i].msg : "NULL",
                     pg_error_class_name(got), pg_error_class_name(cases[i].want));
    }
}

static void test_class_names_and_retry(void **state)
{
    (void)state;
    assert_string_equal(pg_error_class_name(PG_ERR_REFUSED), "refused");
    assert_string_equal(pg_error_class_name(PG_ERR_AUTH), "auth");
    assert_string_equal(pg_error_class_name(PG_ERR_TLS), "tls");
    assert_string_equal(pg_error_class_name(PG_ERR_DNS), "dns");
    assert_string_equal(pg_error_class_name(PG_ERR_DATABASE), "database-missing");
    assert_string_equal(pg_error_class_name((enum pg_error_class)99), "other");
    assert_true(pg_error_retryable(PG_ERR_REFUSED));
    assert_true(pg_error_retryable(PG_ERR_DNS));
    assert_true(pg_error_retryable(PG_ERR_STARTING));
    assert_false(pg_error_retryable(PG_ERR_AUTH));
    assert_false(pg_error_retryable(PG_ERR_TLS));
    assert_false(pg_error_retryable(PG_ERR_DATABASE));
}

static void test_sanitize(void **state)
{
    (void)state;
    char out[256];
    pg_sanitize_message(out, sizeof(out),
                        "connection to server at \"h\", port 1 failed: Connection refused\n\tIs "
                        "the server running?\n",
                        NULL);
    assert_string_equal(out, "connection to server at \"h\", port 1 failed: Connection refused; "
                             "Is the server running?");
    pg_sanitize_message(out, sizeof(out), "FATAL:  password s3cr3t-pw wrong s3cr3t-pw\n",
                        "s3cr3t-pw");
    assert_string_equal(out, "FATAL: password *** wrong ***");
    assert_null(strstr(out, "s3cr3t"));
    /* truncation keeps a terminated string */
    char small[8];
    pg_sanitize_message(small, sizeof(small), "0123456789", "");
    assert_string_equal(small, "0123456");
    /* a secret cut by the size limit leaves no prefix of itself behind */
    pg_sanitize_message(small, sizeof(small), "pw: s3cr3t-pw", "s3cr3t-pw");
    assert_string_equal(small, "pw: ***");
    pg_sanitize_message(small, 6, "pw: s3cr3t-pw", "s3cr3t-pw");
    assert_string_equal(small, "pw: *");
    pg_sanitize_message(out, sizeof(out), NULL, NULL);
    assert_string_equal(out, "");
}

static void test_quote_ident(void **state)
{
    (void)state;
    char *q = pg_quote_ident("bench");
    assert_string_equal(q, "\"bench\"");
    free(q);
    q = pg_quote_ident("we\"ird; DROP");
    assert_string_equal(q, "\"we\"\"ird; DROP\"");
    free(q);
    q = pg_quote_ident("");
    assert_string_equal(q, "\"\"");
    free(q);
}

static void test_target(void **state)
{
    (void)state;
    char t[256];
    struct bench_conninfo ci = {.host = "db.example", .port = "6432", .dbname = "app"};
    pg_conninfo_target(&ci, t, sizeof(t));
    assert_string_equal(t, "db.example:6432/app");
    (void)setenv("PGHOST", "envhost", 1);
    (void)setenv("PGPORT", "5433", 1);
    (void)setenv("PGDATABASE", "envdb", 1);
    struct bench_conninfo empty = {0};
    pg_conninfo_target(&empty, t, sizeof(t));
    assert_string_equal(t, "envhost:5433/envdb");
    (void)unsetenv("PGHOST");
    (void)unsetenv("PGPORT");
    (void)unsetenv("PGDATABASE");
    (void)setenv("PGUSER", "u1", 1);
    pg_conninfo_target(&empty, t, sizeof(t));
    assert_string_equal(t, "localhost:5432/u1");
    (void)unsetenv("PGUSER");
}

/* A refused connection is classified and the password never appears in the message. */
static void test_connect_refused(void **state)
{
    (void)state;
    (void)setenv("PGPASSWORD", "very-secret-pw", 1);
    struct bench_conninfo ci = {.host = "127.0.0.1", .port = "1", .dbname = "x", .user = "u"};
    PGconn *c = NULL;
    struct pg_error err;
    int rc = pg_connect(&ci, NULL, &c, &err);
    assert_int_not_equal(rc, 0);
    assert_null(c);
    assert_int_equal(err.cls, PG_ERR_REFUSED);
    assert_string_equal(err.target, "127.0.0.1:1/x");
    assert_null(strstr(err.message, "very-secret-pw"));
    /* the wait gives up after the timeout on a retryable error */
    rc = pg_wait_ready(&ci, &(struct pg_wait){.timeout_s = 0.3}, &c, &err);
    assert_int_equal(rc, -ETIMEDOUT);
    (void)unsetenv("PGPASSWORD");
}

/* A set cancel flag stops the retries at once (SIGTERM while waiting for the target). */
static void test_wait_cancelled(void **state)
{
    (void)state;
    static volatile sig_atomic_t stop = 1;
    struct bench_conninfo ci = {.host = "127.0.0.1", .port = "1", .dbname = "x", .cancel = &stop};
    PGconn *c = NULL;
    struct pg_error err;
    time_t t0 = time(NULL);
    assert_int_equal(pg_wait_ready(&ci, &(struct pg_wait){.timeout_s = 60}, &c, &err), -ECANCELED);
    assert_null(c);
    assert_int_equal(err.cls, PG_ERR_REFUSED);
    assert_true(time(NULL) - t0 < 30); /* returned on the cancel flag, not the 60 s deadline */
}

/* A window counted from earlier (the run's creation): what was spent before the call and the
 * early stop shorten the wait; a window already over still gets its one attempt. */
static void test_wait_counts_spent(void **state)
{
    (void)state;
    struct bench_conninfo ci = {.host = "127.0.0.1", .port = "1", .dbname = "x", .user = "u"};
    PGconn *c = NULL;
    struct pg_error err;
    double t0 = util_mono_s();
    /* 60 s, 58.5 spent, 1 s kept to report: 0.5 s of retries */
    assert_int_equal(pg_wait_ready(&ci, &(struct pg_wait){60, 58.5, 1}, &c, &err), -ETIMEDOUT);
    double took = util_mono_s() - t0;
    assert_true(took >= 0.45 && took < 5);
    t0 = util_mono_s();
    assert_int_equal(pg_wait_ready(&ci, &(struct pg_wait){30, 30, 2}, &c, &err), -ETIMEDOUT);
    assert_int_equal(err.cls, PG_ERR_REFUSED); /* it tried */
    assert_true(util_mono_s() - t0 < 2);
    assert_null(c);
}

/* Each bench_conninfo field's variable is the one libpq itself reads for that option (the oracle:
 * PQconndefaults()' envvar of the keyword), and a field reads back what was set. */
static void test_conninfo_env_is_libpq(void **state)
{
    (void)state;
    static const char *const keyword[BENCH_CONNINFO_NFIELDS] = {
        [BENCH_CONNINFO_HOST] = "host",
        [BENCH_CONNINFO_PORT] = "port",
        [BENCH_CONNINFO_DBNAME] = "dbname",
        [BENCH_CONNINFO_USER] = "user",
        [BENCH_CONNINFO_SSLMODE] = "sslmode",
        [BENCH_CONNINFO_SSLROOTCERT] = "sslrootcert",
        [BENCH_CONNINFO_APPNAME] = "application_name",
    };
    PQconninfoOption *defs = PQconndefaults();
    assert_non_null(defs);
    for (int f = 0; f < BENCH_CONNINFO_NFIELDS; f++) {
        const PQconninfoOption *o = defs;
        while (o->keyword && strcmp(o->keyword, keyword[f]) != 0)
            o++;
        assert_non_null(o->keyword);
        assert_non_null(o->envvar);
        assert_string_equal(bench_conninfo_env((enum bench_conninfo_field)f), o->envvar);
    }
    PQconninfoFree(defs);
    struct bench_conninfo ci = {"h", "p", "d", "u", "s", "r", "a", 0, NULL};
    const char *want[BENCH_CONNINFO_NFIELDS] = {"h", "p", "d", "u", "s", "r", "a"};
    for (int f = 0; f < BENCH_CONNINFO_NFIELDS; f++)
        assert_string_equal(pg_conninfo_get(&ci, (enum bench_conninfo_field)f), want[f]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_libpq_messages),
        cmocka_unit_test(test_class_names_and_retry),
        cmocka_unit_test(test_sanitize),
        cmocka_unit_test(test_quote_ident),
        cmocka_unit_test(test_target),
        cmocka_unit_test(test_connect_refused),
        cmocka_unit_test(test_wait_cancelled),
        cmocka_unit_test(test_wait_counts_spent),
        cmocka_unit_test(test_conninfo_env_is_libpq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
