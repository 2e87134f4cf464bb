/* pgbench command-line builder and passthrough allow-list tests. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "pkg/bench/pgbench.h"

#include <errno.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

static char *joined(const struct bench_pgbench_run_opts *o, int *rc, char *err, size_t errlen)
{
    struct bench_argv a = BENCH_ARGV_INIT;
    *rc = bench_pgbench_run_argv(o, &a, err, errlen);
    if (*rc)
        return NULL;
    assert_null(a.argv[a.argc]);
    char *s = bench_argv_join(&a);
    bench_argv_free(&a);
    return s;
}

static void test_full_run(void **state)
{
    (void)state;
    struct bench_pgbench_script scripts[] = {
        {"/scripts/read.sql", 3}, {"/scripts/w.sql", 0}, {"/scripts/x.sql", BENCH_PGBENCH_UNSET}};
    const char *extra[] = {"-D", "k=v", "--random-seed=42", "--verbose-errors"};
    struct bench_pgbench_run_opts o = {.clients = 4,
                                       .threads = 8,
                                       .duration_s = 60,
                                       .builtin = "select-only",
                                       .builtin_weight = 2,
                                       .scripts = scripts,
                                       .nscripts = 3,
                                       .protocol = BENCH_PROTOCOL_PREPARED,
                                       .rate = 100,
                                       .latency_limit_ms = 5.5,
                                       .no_vacuum = true,
                                       .connect = true,
                                       .max_tries = 3,
                                       .failures_detailed = true,
                                       .per_statement = true,
                                       .progress_s = 1,
                                       .log_dir = "/tmp/logs",
                                       .extra_args = extra,
                                       .nextra = 4,
                                       .dbname = "app",
                                       .host = "db",
                                       .port = "5433",
                                       .user = "bench"};
    int rc;
    char err[256];
    char *s = joined(&o, &rc, err, sizeof(err));
    assert_int_equal(rc, 0);
    /* weight 0 is passed as pgbench honours it; a weight not given is left to pgbench (1) */
    assert_string_equal(s, "pgbench -h db -p 5433 -U bench -c 4 -j 4 -T 60 -b select-only@2 "
                           "-f /scripts/read.sql@3 -f /scripts/w.sql@0 -f /scripts/x.sql "
                           "-M prepared -R 100 -L 5.5 "
                           "-n -C --max-tries=3 --failures-detailed -r -P 1 -l "
                           "--log-prefix=/tmp/logs/pgbench_log -D k=v --random-seed=42 "
                           "--verbose-errors app");
    free(s);
}

static void test_defaults(void **state)
{
    (void)state;
    struct bench_pgbench_run_opts o = BENCH_PGBENCH_RUN_OPTS_INIT;
    o.clients = 1;
    o.threads = 1;
    o.transactions = 10;
    int rc;
    char *s = joined(&o, &rc, NULL, 0);
    assert_int_equal(rc, 0);
    assert_string_equal(s, "pgbench -c 1 -j 1 -t 10 -b tpcb-like");
    free(s);
    /* large rates and fractional limits are printed exactly, never in exponent form */
    o.rate = 1234567;
    o.latency_limit_ms = 0.25;
    s = joined(&o, &rc, NULL, 0);
    assert_string_equal(s, "pgbench -c 1 -j 1 -t 10 -b tpcb-like -R 1234567 -L 0.25");
    free(s);
    o.rate = 0;
    o.latency_limit_ms = 0;
    /* scripts only: no builtin */
    struct bench_pgbench_script sc[] = {{"x.sql", BENCH_PGBENCH_UNSET}, {"y.sql", 0}};
    o.scripts = sc;
    o.nscripts = 1;
    s = joined(&o, &rc, NULL, 0);
    assert_string_equal(s, "pgbench -c 1 -j 1 -t 10 -f x.sql");
    free(s);
    /* weight 0 beside a weight not given (1): honoured, the total is 1 */
    o.nscripts = 2;
    s = joined(&o, &rc, NULL, 0);
    assert_string_equal(s, "pgbench -c 1 -j 1 -t 10 -f x.sql -f y.sql@0");
    free(s);
    /* a builtin of weight 0 beside a script */
    o.builtin = "select-only";
    o.builtin_weight = 0;
    o.nscripts = 1;
    s = joined(&o, &rc, NULL, 0);
    assert_string_equal(s, "pgbench -c 1 -j 1 -t 10 -b select-only@0 -f x.sql");
    free(s);
    /* --max-tries: 0 (unlimited, with -T) and 1 are passed; not given is not */
    struct bench_pgbench_run_opts t = BENCH_PGBENCH_RUN_OPTS_INIT;
    t.clients = 1;
    t.threads = 1;
    t.duration_s = 5;
    t.max_tries = 0;
    s = joined(&t, &rc, NULL, 0);
    assert_string_equal(s, "pgbench -c 1 -j 1 -T 5 -b tpcb-like --max-tries=0");
    free(s);
    t.max_tries = 1;
    s = joined(&t, &rc, NULL, 0);
    assert_string_equal(s, "pgbench -c 1 -j 1 -T 5 -b tpcb-like --max-tries=1");
    free(s);
    /* unlimited tries with -t need -L (pgbench: with -R) */
    t.duration_s = 0;
    t.transactions = 3;
    t.max_tries = 0;
    t.rate = 10;
    t.latency_limit_ms = 50;
    s = joined(&t, &rc, NULL, 0);
    assert_string_equal(s, "pgbench -c 1 -j 1 -t 3 -b tpcb-like -R 10 -L 50 --max-tries=0");
    free(s);
}

static void expect_invalid(const struct bench_pgbench_run_opts *o, const char *needle)
{
    int rc;
    char err[256] = "";
    char *s = joined(o, &rc, err, sizeof(err));
    assert_null(s);
    assert_int_equal(rc, -EINVAL);
    if (!strstr(err, needle))
        fail_msg("error '%s' lacks '%s'", err, needle);
}

static void test_invalid(void **state)
{
    (void)state;
    struct bench_pgbench_run_opts base = BENCH_PGBENCH_RUN_OPTS_INIT;
    base.clients = 2;
    base.threads = 1;
    base.duration_s = 10;
    struct bench_pgbench_run_opts o;
    o = base;
    o.clients = 0;
    expect_invalid(&o, "-c");
    o = base;
    o.transactions = 5;
    expect_invalid(&o, "exactly one of duration (-T) and transactions (-t)");
    o = base;
    o.duration_s = 0;
    expect_invalid(&o, "exactly one");
    o = base;
    o.builtin = "tpcb";
    expect_invalid(&o, "builtin");
    o = base;
    o.pgbench_major = 14;
    o.max_tries = 2;
    expect_invalid(&o, "pgbench >= 15");
    o.max_tries = 0;
    expect_invalid(&o, "pgbench >= 15");
    /* pgbench's own checks, with its words: the weights must not all be 0 ... */
    o = base;
    o.builtin = "select-only";
    o.builtin_weight = 0;
    expect_invalid(&o, "total script weight must not be zero");
    struct bench_pgbench_script zero[] = {{"a.sql", 0}, {"b.sql", 0}};
    o.scripts = zero;
    o.nscripts = 2;
    expect_invalid(&o, "total script weight must not be zero");
    o.builtin = NULL;
    o.builtin_weight = BENCH_PGBENCH_UNSET;
    expect_invalid(&o, "total script weight must not be zero");
    o.builtin_weight = 0; /* a weight for no builtin */
    expect_invalid(&o, "builtin weight given without builtin");
    /* ... and unlimited tries need -T or -L */
    o = base;
    o.duration_s = 0;
    o.transactions = 10;
    o.max_tries = 0;
    expect_invalid(&o, "--max-tries=0 (unlimited tries) needs a duration (-T) or a latency limit");
    o.max_tries = -2;
    expect_invalid(&o, "--max-tries must be >= 0");
    o = base;
    o.progress_s = 20;
    expect_invalid(&o, "-P 20");
    o = base;
    struct bench_pgbench_script bad[] = {{"a@b.sql", 1}};
    o.scripts = bad;
    o.nscripts = 1;
    expect_invalid(&o, "-f");
    o = base;
    o.rate = -1;
    expect_invalid(&o, "-R");
    const char *ex1[] = {"-f", "/etc/passwd"};
    o = base;
    o.extra_args = ex1;
    o.nextra = 2;
    expect_invalid(&o, "not allowed");
    const char *ex2[] = {"--aggregate-interval=5"};
    o.extra_args = ex2;
    o.nextra = 1;
    expect_invalid(&o, "not allowed");
    const char *ex3[] = {"-D", "1x=2"};
    o.extra_args = ex3;
    o.nextra = 2;
    expect_invalid(&o, "invalid value");
    const char *ex4[] = {"-D"};
    o.extra_args = ex4;
    o.nextra = 1;
    expect_invalid(&o, "needs a value");
    const char *ex5[] = {"--progress-timestamp"};
    o.extra_args = ex5;
    expect_invalid(&o, "not allowed");
    const char *ex6[] = {"app; rm -rf /"};
    o.extra_args = ex6;
    expect_invalid(&o, "not an option");
    const char *ex7[] = {"--unlogged-tables"}; /* init-only */
    o.extra_args = ex7;
    expect_invalid(&o, "not allowed");
    const char *ex8[] = {"-Dx=a\nb"};
    o.extra_args = ex8;
    expect_invalid(&o, "control");
}

static void test_extra_forms(void **state)
{
    (void)state;
    size_t used = 0;
    const char *a1[] = {"-Dx=1"};
    assert_int_equal(bench_pgbench_check_extra(false, a1, 1, &used, NULL, 0), 0);
    assert_int_equal(used, 1);
    const char *a2[] = {"--define", "x=1"};
    assert_int_equal(bench_pgbench_check_extra(false, a2, 2, &used, NULL, 0), 0);
    assert_int_equal(used, 2);
    const char *a3[] = {"--random-seed=rand"};
    assert_int_equal(bench_pgbench_check_extra(false, a3, 1, &used, NULL, 0), 0);
    const char *a4[] = {"--random-seed=banana"};
    assert_int_equal(bench_pgbench_check_extra(false, a4, 1, &used, NULL, 0), -EINVAL);
    /* the init's table options have fields of their own (bench_pgbench_init_opts) */
    const char *a5[] = {"-I", "dtGvp"};
    assert_int_equal(bench_pgbench_check_extra(true, a5, 2, &used, NULL, 0), -EINVAL);
    char flag[32];
    assert_true(bench_pgbench_extra_managed(true, "-IdtGvp", flag, sizeof(flag)));
    assert_string_equal(flag, "-I");
    const char *a7[] = {"--fillfactor=90"};
    assert_int_equal(bench_pgbench_check_extra(true, a7, 1, &used, NULL, 0), -EINVAL);
    assert_true(bench_pgbench_extra_managed(true, "--unlogged-tables", flag, sizeof(flag)));
    assert_true(bench_pgbench_extra_managed(true, "--tablespace=fast_ts", flag, sizeof(flag)));
    assert_string_equal(flag, "--tablespace");
    const char *a8[] = {"--partition-method=range"};
    assert_int_equal(bench_pgbench_check_extra(true, a8, 1, &used, NULL, 0), 0);
    const char *a9[] = {"--vacuum-all=1"};
    assert_int_equal(bench_pgbench_check_extra(false, a9, 1, &used, NULL, 0), -EINVAL);
}

static void test_init(void **state)
{
    (void)state;
    const char *extra[] = {"--partition-method=hash"};
    struct bench_pgbench_init_opts o = {.scale = 50,
                                        .foreign_keys = true,
                                        .partitions = 4,
                                        .quiet = true,
                                        .unlogged_tables = true,
                                        .extra_args = extra,
                                        .nextra = 1};
    struct bench_argv a = BENCH_ARGV_INIT;
    assert_int_equal(bench_pgbench_init_argv(&o, &a, NULL, 0), 0);
    char *s = bench_argv_join(&a);
    assert_string_equal(s, "pgbench -i -s 50 -I dtGvpf -q --foreign-keys --partitions=4 "
                           "--unlogged-tables --partition-method=hash");
    free(s);
    bench_argv_free(&a);
    o.partitions = 0;
    char err[128];
    assert_int_equal(bench_pgbench_init_argv(&o, &a, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "--partition-method"));
    o.scale = 0;
    assert_int_equal(bench_pgbench_init_argv(&o, &a, err, sizeof(err)), -EINVAL);
    assert_null(a.argv);
}

/* The init's generation: server-side by default where pgbench has it (13+), client-side before;
 * the table options as pgbench spells them. */
static void test_init_generation(void **state)
{
    (void)state;
    struct bench_pgbench_init_opts o = {.scale = 100, .pgbench_major = 15};
    char steps[48];
    bench_pgbench_init_steps(&o, steps, sizeof(steps));
    assert_string_equal(steps, "dtGvp");
    o.pgbench_major = 12;
    bench_pgbench_init_steps(&o, steps, sizeof(steps));
    assert_string_equal(steps, "dtgvp");
    o.pgbench_major = 0; /* unknown: assumed recent */
    bench_pgbench_init_steps(&o, steps, sizeof(steps));
    assert_string_equal(steps, "dtGvp");
    o.generation = "client";
    bench_pgbench_init_steps(&o, steps, sizeof(steps));
    assert_string_equal(steps, "dtgvp");
    o.generation = NULL;
    o.steps = "dtGvpf";
    o.foreign_keys = true; /* f already there: not twice */
    bench_pgbench_init_steps(&o, steps, sizeof(steps));
    assert_string_equal(steps, "dtGvpf");

    struct bench_pgbench_init_opts t = {.scale = 1,
                                        .generation = "client",
                                        .fillfactor = 90,
                                        .tablespace = "fast_ts",
                                        .index_tablespace = "idx"};
    struct bench_argv a = BENCH_ARGV_INIT;
    assert_int_equal(bench_pgbench_init_argv(&t, &a, NULL, 0), 0);
    char *s = bench_argv_join(&a);
    assert_string_equal(s, "pgbench -i -s 1 -I dtgvp -F 90 --tablespace=fast_ts "
                           "--index-tablespace=idx");
    free(s);
    bench_argv_free(&a);
}

/* Each refusal names the option (field) and says the fix. */
static void test_init_check(void **state)
{
    (void)state;
    static const struct {
        struct bench_pgbench_init_opts o;
        enum bench_init_field field;
        const char *says;
    } cases[] = {
        {{.scale = 1, .generation = "gpu"}, BENCH_INIT_F_GENERATION, "not server or client"},
        {{.scale = 1, .generation = "server", .pgbench_major = 12},
         BENCH_INIT_F_GENERATION,
         "needs pgbench >= 13 (have 12): use client"},
        {{.scale = 1, .steps = "dtxvp"}, BENCH_INIT_F_STEPS, "g (client-side data), G"},
        {{.scale = 1, .steps = ""}, BENCH_INIT_F_STEPS, "use 1 to 32"},
        {{.scale = 1, .steps = "dtgGvp"}, BENCH_INIT_F_STEPS, "both g and G: keep one"},
        {{.scale = 1, .steps = "dtgvp", .generation = "server"},
         BENCH_INIT_F_STEPS,
         "put G in the steps"},
        {{.scale = 1, .steps = "dtGvp", .pgbench_major = 12},
         BENCH_INIT_F_STEPS,
         "needs pgbench >= 13 (have 12): use g"},
        {{.scale = 1, .fillfactor = 5}, BENCH_INIT_F_FILLFACTOR, "use 10 to 100"},
        {{.scale = 1, .fillfactor = 101}, BENCH_INIT_F_FILLFACTOR, "use 10 to 100"},
        {{.scale = 1, .tablespace = "x;drop"}, BENCH_INIT_F_TABLESPACE, "not a tablespace name"},
        {{.scale = 1, .index_tablespace = "9x"},
         BENCH_INIT_F_INDEX_TABLESPACE,
         "not a tablespace name"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        enum bench_init_field f = BENCH_INIT_F_NONE;
        char err[512] = "";
        assert_int_equal(bench_pgbench_init_check(&cases[i].o, &f, err, sizeof(err)), -EINVAL);
        assert_int_equal(f, cases[i].field);
        if (!strstr(err, cases[i].says))
            fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err, cases[i].says);
    }
    struct bench_pgbench_init_opts ok = {
        .scale = 1, .generation = "server", .steps = "dtGvpf", .fillfactor = 10};
    assert_int_equal(bench_pgbench_init_check(&ok, NULL, NULL, 0), 0);
    struct bench_argv a = BENCH_ARGV_INIT;
    char err[512];
    assert_int_equal(bench_pgbench_init_argv(&cases[2].o, &a, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "-I \"dtxvp\""));
    assert_null(a.argv);
}

static void test_helpers(void **state)
{
    (void)state;
    char *name;
    int w;
    assert_int_equal(bench_weighted_parse("select-only@5", &name, &w), 0);
    assert_string_equal(name, "select-only");
    assert_int_equal(w, 5);
    free(name);
    assert_int_equal(bench_weighted_parse("/a/b.sql", &name, &w), 0);
    assert_int_equal(w, 1);
    free(name);
    assert_int_equal(bench_weighted_parse("x@", &name, &w), -EINVAL);
    assert_int_equal(bench_weighted_parse("@3", &name, &w), -EINVAL);
    assert_int_equal(bench_weighted_parse("x@-1", &name, &w), -EINVAL);
    enum bench_protocol p;
    assert_int_equal(bench_protocol_parse("extended", &p), 0);
    assert_int_equal(p, BENCH_PROTOCOL_EXTENDED);
    assert_int_equal(bench_protocol_parse("fast", &p), -EINVAL);
    assert_int_equal(
        bench_pgbench_version_major("pgbench (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n"), 15);
    assert_int_equal(bench_pgbench_version_major("pgbench (14.20 (Debian), server 17.6)"), 14);
    assert_int_equal(bench_pgbench_version_major("pgbench (PostgreSQL) 9.6.24"), 9);
    assert_int_equal(bench_pgbench_version_major("psql (PostgreSQL) 15"), -EINVAL);
    struct bench_argv a = BENCH_ARGV_INIT;
    bench_argv_push(&a, "x y");
    bench_argv_push(&a, "it's");
    bench_argv_push(&a, "");
    char *s = bench_argv_join(&a);
    assert_string_equal(s, "'x y' 'it'\\''s' ''");
    free(s);
    bench_argv_free(&a);
    bench_argv_free(&a);
}

/* libpq itself decides what it expands: a value given as dbname with expand_dbname, as pgbench
 * gives its database, is expanded when the connection ends up with another dbname (or none, or
 * refuses the value as a connection string). The values name no host, so nothing resolves. */
static bool libpq_expands(const char *value)
{
    const char *keys[] = {"host", "dbname", NULL};
    const char *vals[] = {"/nonexistent-pgbo-socket-dir", value, NULL};
    PGconn *c = PQconnectStartParams(keys, vals, 1);
    if (!c)
        return true;
    bool expanded = true;
    PQconninfoOption *opts = PQconninfo(c);
    for (PQconninfoOption *o = opts; o && o->keyword; o++)
        if (!strcmp(o->keyword, "dbname"))
            expanded = !o->val || strcmp(o->val, value) != 0;
    if (!opts && strstr(PQerrorMessage(c), "invalid"))
        expanded = true;
    PQconninfoFree(opts);
    PQfinish(c);
    return expanded;
}

static void test_conn_names(void **state)
{
    (void)state;
    static const char *const values[] = {"app",
                                         "my db",
                                         "Über",
                                         "it's \"quoted\"",
                                         "a;b",
                                         "postgres",
                                         "postgresql",
                                         "postgres:",
                                         "postgres:/",
                                         "postgresql:/x",
                                         "Postgres://x",
                                         "POSTGRESQL://x",
                                         "x://y",
                                         "dbname=x",
                                         "dbname=x sslmode=disable",
                                         "app application_name=x",
                                         "x=",
                                         "a=b",
                                         " =",
                                         "postgres:///x",
                                         "postgresql:///x?sslmode=disable",
                                         "postgres://",
                                         "postgresql://",
                                         "x\\=y"};
    char err[256];
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        bool libpq = libpq_expands(values[i]);
        if (bench_conn_expands(values[i]) != libpq)
            fail_msg("'%s': libpq %s it", values[i], libpq ? "expands" : "does not expand");
        assert_int_equal(bench_conn_check_name(values[i], err, sizeof(err)), libpq ? -EINVAL : 0);
        if (libpq && !strstr(err, "connection string"))
            fail_msg("'%s': %s", values[i], err);
    }
    /* NAMEDATALEN - 1 bytes, not characters */
    char name[80];
    memset(name, 'a', 63);
    name[63] = '\0';
    assert_int_equal(bench_conn_check_name(name, err, sizeof(err)), 0);
    name[63] = 'a';
    name[64] = '\0';
    assert_int_equal(bench_conn_check_name(name, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "is 64 bytes; PostgreSQL names are at most 63 bytes"));
    for (int i = 0; i < 32; i++) /* 32 characters, 64 bytes */
        memcpy(name + (size_t)i * 2, "\xc3\xa9", 2);
    name[64] = '\0';
    assert_int_equal(bench_conn_check_name(name, err, sizeof(err)), -EINVAL);
    assert_int_equal(bench_conn_check_name("", err, sizeof(err)), -EINVAL);

    static const char *const hosts_ok[] = {"pg",  "pg-rw.db.svc", "pg-rw.db.svc.", "10.0.0.1",
                                           "::1", "fe80::1:2",    "db_1.local",    "a.b-c.d"};
    for (size_t i = 0; i < sizeof(hosts_ok) / sizeof(hosts_ok[0]); i++)
        if (bench_conn_check_host(hosts_ok[i], false, err, sizeof(err)))
            fail_msg("host '%s' refused: %s", hosts_ok[i], err);
    static const struct {
        const char *host, *why;
    } hosts_bad[] = {{"a,b", "list of hosts"},
                     {"[::1]", "without brackets"},
                     {"pg:5432", "not a DNS name or IP address"},
                     {"host=x", "not a DNS name"},
                     {"-pg", "not a DNS name"},
                     {"a..b", "not a DNS name"},
                     {"@abstract", "not a DNS name"},
                     {"/var/run/postgresql", "Unix-socket directory"},
                     {"", "empty"}};
    for (size_t i = 0; i < sizeof(hosts_bad) / sizeof(hosts_bad[0]); i++) {
        assert_int_equal(bench_conn_check_host(hosts_bad[i].host, false, err, sizeof(err)),
                         -EINVAL);
        if (!strstr(err, hosts_bad[i].why))
            fail_msg("host '%s': '%s' lacks '%s'", hosts_bad[i].host, err, hosts_bad[i].why);
    }
    /* the runner also takes a socket directory, as libpq does */
    assert_int_equal(bench_conn_check_host("/var/run/postgresql", true, err, sizeof(err)), 0);
    assert_int_equal(bench_conn_check_host("/a,/b", true, err, sizeof(err)), -EINVAL);
    char longhost[300];
    memset(longhost, 'a', 63);
    longhost[63] = '\0';
    assert_int_equal(bench_conn_check_host(longhost, false, err, sizeof(err)), 0);
    longhost[63] = 'a';
    longhost[64] = '\0';
    assert_int_equal(bench_conn_check_host(longhost, false, err, sizeof(err)), -EINVAL);
}

/* pgbench 19's --continue-on-error passes; options newer than the binary are refused by the run
 * builder, which knows the version (the operator does not). */
static void test_extra_versions(void **state)
{
    (void)state;
    const char *coe[] = {"--continue-on-error"};
    size_t used = 0;
    assert_int_equal(bench_pgbench_check_extra(false, coe, 1, &used, NULL, 0), 0);
    assert_int_equal(bench_pgbench_check_extra(true, coe, 1, &used, NULL, 0), -EINVAL);
    const char *coe_val[] = {"--continue-on-error=1"};
    assert_int_equal(bench_pgbench_check_extra(false, coe_val, 1, &used, NULL, 0), -EINVAL);
    struct bench_pgbench_run_opts o = BENCH_PGBENCH_RUN_OPTS_INIT;
    o.clients = 1;
    o.threads = 1;
    o.duration_s = 5;
    o.extra_args = coe;
    o.nextra = 1;
    int rc;
    char err[256] = "";
    o.pgbench_major = 19;
    char *s = joined(&o, &rc, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_non_null(strstr(s, " --continue-on-error"));
    free(s);
    o.pgbench_major = 0; /* unknown: pgbench itself decides */
    s = joined(&o, &rc, err, sizeof(err));
    assert_int_equal(rc, 0);
    free(s);
    o.pgbench_major = 15;
    expect_invalid(&o, "extra args: '--continue-on-error' needs pgbench >= 19 (have 15)");
    const char *ver[] = {"--verbose-errors", "--exit-on-abort"};
    o.extra_args = ver;
    o.nextra = 2;
    o.pgbench_major = 16;
    s = joined(&o, &rc, err, sizeof(err));
    assert_int_equal(rc, 0);
    free(s);
    o.pgbench_major = 14;
    expect_invalid(&o, "'--verbose-errors' needs pgbench >= 15");
    o.extra_args = ver + 1;
    o.nextra = 1;
    o.pgbench_major = 15;
    expect_invalid(&o, "'--exit-on-abort' needs pgbench >= 16");
}

/* Every option the builders pass to pgbench themselves is "managed" and refused as an extra
 * argument: read off the builders' own output, not off the list. */
static void test_extra_managed(void **state)
{
    (void)state;
    struct bench_pgbench_script scripts[] = {{"/s.sql", 2}};
    struct bench_pgbench_run_opts o = {.clients = 4,
                                       .threads = 2,
                                       .duration_s = 60,
                                       .builtin = "select-only",
                                       .builtin_weight = 2,
                                       .scripts = scripts,
                                       .nscripts = 1,
                                       .protocol = BENCH_PROTOCOL_PREPARED,
                                       .rate = 100,
                                       .latency_limit_ms = 5,
                                       .no_vacuum = true,
                                       .connect = true,
                                       .max_tries = 3,
                                       .failures_detailed = true,
                                       .per_statement = true,
                                       .progress_s = 1,
                                       .log_dir = "/l",
                                       .host = "h",
                                       .port = "1",
                                       .user = "u"};
    struct bench_pgbench_init_opts io = {.scale = 5,
                                         .foreign_keys = true,
                                         .partitions = 2,
                                         .quiet = true,
                                         .host = "h",
                                         .port = "1",
                                         .user = "u"};
    struct bench_argv run = BENCH_ARGV_INIT, init = BENCH_ARGV_INIT;
    assert_int_equal(bench_pgbench_run_argv(&o, &run, NULL, 0), 0);
    assert_int_equal(bench_pgbench_init_argv(&io, &init, NULL, 0), 0);
    /* -t instead of -T */
    o.duration_s = 0;
    o.transactions = 10;
    struct bench_argv run_t = BENCH_ARGV_INIT;
    assert_int_equal(bench_pgbench_run_argv(&o, &run_t, NULL, 0), 0);
    const struct {
        struct bench_argv *a;
        bool init;
    } vs[] = {{&run, false}, {&run_t, false}, {&init, true}};
    size_t checked = 0;
    for (size_t v = 0; v < sizeof(vs) / sizeof(vs[0]); v++) {
        for (size_t i = 1; i < vs[v].a->argc; i++) {
            const char *a = vs[v].a->argv[i];
            if (a[0] != '-')
                continue;
            char flag[64] = "";
            if (!bench_pgbench_extra_managed(vs[v].init, a, flag, sizeof(flag)))
                fail_msg("%s is passed by the builder but not managed", a);
            assert_int_equal(strncmp(a, flag, strlen(flag)), 0);
            const char *one[] = {a, "1"};
            if (bench_pgbench_check_extra(vs[v].init, one, 2, NULL, NULL, 0) == 0)
                fail_msg("%s is passed by the builder and also allowed as an extra", a);
            checked++;
        }
    }
    assert_true(checked >= 25);
    /* as written by a user */
    char flag[64];
    assert_true(bench_pgbench_extra_managed(false, "--client=5", flag, sizeof(flag)));
    assert_string_equal(flag, "--client");
    assert_true(bench_pgbench_extra_managed(false, "-c10", flag, sizeof(flag)));
    assert_string_equal(flag, "-c");
    assert_false(bench_pgbench_extra_managed(false, "-s", flag, sizeof(flag))); /* run: allowed */
    assert_true(bench_pgbench_extra_managed(true, "-s", flag, sizeof(flag)));
    assert_false(bench_pgbench_extra_managed(false, "--progress-timestamp", flag, sizeof(flag)));
    assert_false(bench_pgbench_extra_managed(false, "app", flag, sizeof(flag)));
    bench_argv_free(&run);
    bench_argv_free(&run_t);
    bench_argv_free(&init);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_run),       cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_invalid),        cmocka_unit_test(test_extra_forms),
        cmocka_unit_test(test_init),           cmocka_unit_test(test_init_generation),
        cmocka_unit_test(test_init_check),     cmocka_unit_test(test_helpers),
        cmocka_unit_test(test_extra_versions), cmocka_unit_test(test_extra_managed),
        cmocka_unit_test(test_conn_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
