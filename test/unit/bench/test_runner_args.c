/* The runner's flag contract: every field survives build -> parse, the walk over the tables
 * covers a new row without a new test, range errors keep their wording, usage names every flag. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "pkg/bench/argv.h"
#include "pkg/bench/runner_args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const enum bench_runner_cmd all_cmds[] = {BENCH_RUNNER_PGBENCH_INIT,
                                                 BENCH_RUNNER_PGBENCH_RUN, BENCH_RUNNER_FIO};

/* Builds args, checks the subcommand words, and parses the vector back into back (which the
 * caller cleans up). Returns the parser's rc; the vector is left in *av for inspection. */
static int round_trip(enum bench_runner_cmd cmd, const void *args, void *back,
                      struct bench_argv *av, char *err, size_t errlen)
{
    bench_runner_build(cmd, args, av);
    size_t words = cmd == BENCH_RUNNER_FIO ? 1 : 2;
    assert_true(av->argc >= words);
    assert_string_equal(av->argv[0], cmd == BENCH_RUNNER_FIO ? "fio" : "pgbench");
    /* the parser's argv[0] is the last subcommand word, as the runner's main passes it */
    return bench_runner_parse(cmd, (int)(av->argc - words + 1), av->argv + words - 1, back, err,
                              errlen);
}

static bool has(const struct bench_argv *av, const char *a, const char *next)
{
    for (size_t i = 0; i < av->argc; i++)
        if (!strcmp(av->argv[i], a) &&
            (!next || (i + 1 < av->argc && !strcmp(av->argv[i + 1], next))))
            return true;
    return false;
}

/* ---------------------------------------------------------------------------------------------
 * Every field by name (an oracle that does not read the table)
 * ------------------------------------------------------------------------------------------- */

static void test_run_every_field(void **state)
{
    (void)state;
    struct bench_runner_run a;
    bench_runner_defaults(BENCH_RUNNER_PGBENCH_RUN, &a);
    struct bench_pgbench_script scripts[] = {
        {"/s/read.sql", 3}, {"/s/w.sql", 0}, {"/s/x.sql", BENCH_PGBENCH_UNSET}};
    const char *extra[] = {"-D", "k=v", "--continue-on-error"};
    a.pg.clients = 7;
    a.pg.threads = 3;
    a.pg.duration_s = 60;
    a.pg.transactions = 2000000000;
    a.pg.builtin = "select-only";
    a.pg.builtin_weight = 5;
    a.pg.scripts = scripts;
    a.pg.nscripts = 3;
    a.pg.protocol = BENCH_PROTOCOL_EXTENDED;
    a.pg.rate = 0.1;
    a.pg.latency_limit_ms = 1234567.891;
    a.pg.no_vacuum = true;
    a.pg.connect = true;
    a.pg.max_tries = 9;
    a.pg.failures_detailed = true;
    a.pg.per_statement = true;
    a.pg.progress_s = 3600;
    a.wait_events = true;
    a.server_settings = true;
    a.replica_lag = true;
    a.replica_timeout_s = 0; /* differs from the default 300: must be written */
    a.common.conn.host = "db";
    a.common.conn.port = "5433";
    a.common.conn.dbname = "app";
    a.common.conn.user = "bench";
    a.common.conn.sslmode = "verify-full";
    a.common.conn.sslrootcert = "/ca.crt";
    a.common.wait_timeout_s = 2.5;
    a.common.create_database = true;
    a.pg.extra_args = extra;
    a.pg.nextra = 3;

    struct bench_runner_run b;
    struct bench_argv av = BENCH_ARGV_INIT;
    char err[256] = "";
    int rc = round_trip(BENCH_RUNNER_PGBENCH_RUN, &a, &b, &av, err, sizeof(err));
    if (rc)
        fail_msg("parse: %s", err);
    assert_int_equal(b.pg.clients, 7);
    assert_int_equal(b.pg.threads, 3);
    assert_int_equal(b.pg.duration_s, 60);
    assert_int_equal(b.pg.transactions, 2000000000);
    assert_string_equal(b.pg.builtin, "select-only");
    assert_int_equal(b.pg.builtin_weight, 5);
    assert_int_equal(b.pg.nscripts, 3);
    assert_string_equal(b.pg.scripts[0].path, "/s/read.sql");
    assert_int_equal(b.pg.scripts[0].weight, 3);
    assert_string_equal(b.pg.scripts[1].path, "/s/w.sql");
    assert_int_equal(b.pg.scripts[1].weight, 0); /* @0 written and read: honoured */
    assert_true(has(&av, "--script", "/s/w.sql@0"));
    assert_string_equal(b.pg.scripts[2].path, "/s/x.sql");
    assert_int_equal(b.pg.scripts[2].weight, BENCH_PGBENCH_UNSET); /* no @W written, none read */
    assert_true(has(&av, "--script", "/s/x.sql"));
    assert_int_equal(b.pg.protocol, BENCH_PROTOCOL_EXTENDED);
    assert_true(b.pg.rate == 0.1);
    assert_true(b.pg.latency_limit_ms == 1234567.891);
    assert_true(b.pg.no_vacuum);
    assert_true(b.pg.connect);
    assert_int_equal(b.pg.max_tries, 9);
    assert_true(b.pg.failures_detailed);
    assert_true(b.pg.per_statement);
    assert_int_equal(b.pg.progress_s, 3600);
    assert_true(b.wait_events);
    assert_true(b.server_settings);
    assert_true(b.replica_lag);
    assert_true(b.replica_timeout_s == 0);
    assert_string_equal(b.common.conn.host, "db");
    assert_string_equal(b.common.conn.port, "5433");
    assert_string_equal(b.common.conn.dbname, "app");
    assert_string_equal(b.common.conn.user, "bench");
    assert_string_equal(b.common.conn.sslmode, "verify-full");
    assert_string_equal(b.common.conn.sslrootcert, "/ca.crt");
    assert_true(b.common.wait_timeout_s == 2.5);
    assert_true(b.common.create_database);
    assert_int_equal(b.pg.nextra, 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(b.pg.extra_args[i], extra[i]);
    /* fields that are no runner flags stay untouched */
    assert_null(b.pg.pgbench_path);
    assert_null(b.pg.log_dir);
    assert_int_equal(b.pg.pgbench_major, 0);
    bench_runner_cleanup(BENCH_RUNNER_PGBENCH_RUN, &b);
    bench_argv_free(&av);
}

static void test_init_every_field(void **state)
{
    (void)state;
    struct bench_runner_init a, b;
    bench_runner_defaults(BENCH_RUNNER_PGBENCH_INIT, &a);
    const char *extra[] = {"--unlogged-tables"};
    a.pg.scale = 1000000;
    a.pg.foreign_keys = true;
    a.pg.partitions = 100000;
    a.skip_if_initialized = true;
    a.common.conn.host = "h";
    a.common.conn.port = "1";
    a.common.conn.dbname = "d";
    a.common.conn.user = "u";
    a.common.conn.sslmode = "require";
    a.common.conn.sslrootcert = "/c";
    a.common.wait_timeout_s = 86400;
    a.common.create_database = true;
    a.pg.extra_args = extra;
    a.pg.nextra = 1;
    struct bench_argv av = BENCH_ARGV_INIT;
    char err[256] = "";
    if (round_trip(BENCH_RUNNER_PGBENCH_INIT, &a, &b, &av, err, sizeof(err)))
        fail_msg("parse: %s", err);
    assert_string_equal(av.argv[1], "init");
    assert_int_equal(b.pg.scale, 1000000);
    assert_true(b.pg.foreign_keys);
    assert_int_equal(b.pg.partitions, 100000);
    assert_true(b.skip_if_initialized);
    assert_string_equal(b.common.conn.host, "h");
    assert_string_equal(b.common.conn.port, "1");
    assert_string_equal(b.common.conn.dbname, "d");
    assert_string_equal(b.common.conn.user, "u");
    assert_string_equal(b.common.conn.sslmode, "require");
    assert_string_equal(b.common.conn.sslrootcert, "/c");
    assert_true(b.common.wait_timeout_s == 86400);
    assert_true(b.common.create_database);
    assert_int_equal(b.pg.nextra, 1);
    assert_string_equal(b.pg.extra_args[0], "--unlogged-tables");
    assert_false(b.pg.quiet); /* not a runner flag */
    bench_runner_cleanup(BENCH_RUNNER_PGBENCH_INIT, &b);
    bench_argv_free(&av);
}

static void test_fio_every_field(void **state)
{
    (void)state;
    struct bench_runner_fio a, b;
    bench_runner_defaults(BENCH_RUNNER_FIO, &a);
    struct bench_fio_job_opts jobs[] = {
        {.name = "wal",
         .rw = "write",
         .bs = "8k",
         .iodepth = 1,
         .numjobs = 2,
         .size = "1G",
         .runtime_s = 30,
         .direct = false,
         .ioengine = "psync",
         .fsync = 0,
         .fdatasync = 1},
        {.name = "rr",
         .rw = "randread",
         .bs = "4k",
         .iodepth = 100000000,
         .numjobs = 3,
         .size = "2G",
         .runtime_s = 20,
         .direct = true,
         .ioengine = "libaio",
         .fsync = 7,
         .fdatasync = 0},
        {.name = "bare", .size = "1M"},
    };
    const char *extra[] = {"--ramp_time=2"};
    a.fio.directory = "/data";
    a.fio.jobs = jobs;
    a.fio.njobs = 3;
    a.fio.extra_args = extra;
    a.fio.nextra = 1;
    struct bench_argv av = BENCH_ARGV_INIT;
    char err[256] = "";
    if (round_trip(BENCH_RUNNER_FIO, &a, &b, &av, err, sizeof(err)))
        fail_msg("parse: %s", err);
    /* job 0 is named with --name, the others start with --job */
    assert_true(has(&av, "--name", "wal"));
    assert_true(has(&av, "--job", "rr"));
    assert_true(has(&av, "--job", "bare"));
    assert_string_equal(b.fio.directory, "/data");
    assert_int_equal(b.fio.njobs, 3);
    for (size_t i = 0; i < 3; i++) {
        const struct bench_fio_job_opts *x = &jobs[i], *y = &b.fio.jobs[i];
        assert_string_equal(y->name, x->name);
#define SAME_STR(f)                                                                                \
    do {                                                                                           \
        if (x->f)                                                                                  \
            assert_string_equal(y->f, x->f);                                                       \
        else                                                                                       \
            assert_null(y->f);                                                                     \
    } while (0)
        SAME_STR(rw);
        SAME_STR(bs);
        SAME_STR(size);
        SAME_STR(ioengine);
#undef SAME_STR
        assert_int_equal(y->iodepth, x->iodepth);
        assert_int_equal(y->numjobs, x->numjobs);
        assert_int_equal(y->runtime_s, x->runtime_s);
        assert_int_equal(y->direct, x->direct);
        assert_int_equal(y->fsync, x->fsync);
        assert_int_equal(y->fdatasync, x->fdatasync);
    }
    assert_int_equal(b.fio.nextra, 1);
    assert_string_equal(b.fio.extra_args[0], "--ramp_time=2");
    assert_null(b.fio.fio_path);
    bench_runner_cleanup(BENCH_RUNNER_FIO, &b);
    bench_argv_free(&av);
}

/* ---------------------------------------------------------------------------------------------
 * The walk over the tables: a new row is covered without touching this file
 * ------------------------------------------------------------------------------------------- */

#define AT(base, off, type) ((type *)(void *)((char *)(base) + (off)))

/* The struct a row's field lives in: the subcommand's, or fio job `job`. */
static void *row_base(enum bench_runner_cmd cmd, void *args, const struct util_opt *o, size_t job)
{
    if (cmd == BENCH_RUNNER_FIO && (o->tag & BENCH_RT_JOB))
        return &((struct bench_runner_fio *)args)->job_buf[job];
    return args;
}

/* A value other than the default, inside the range; `which` picks among a few (weights: 0, a
 * weight, none given). */
static void set_other(const struct util_opt *o, void *base, int which,
                      struct bench_pgbench_script *script)
{
    double pick[] = {o->min, o->max, o->min + (o->max - o->min) / 3};
    double v = pick[which % 3];
    if (v == o->def)
        v = pick[(which + 1) % 3];
    if (o->tag & BENCH_RT_WEIGHTED) {
        *AT(base, o->off, const char *) = "simple-update";
        *AT(base, o->off_n, int) = (int[]){0, 4, BENCH_PGBENCH_UNSET}[which % 3];
        return;
    }
    if (o->tag & BENCH_RT_SCRIPTS) {
        script->path = "/x/y.sql";
        script->weight = (int[]){0, 6, BENCH_PGBENCH_UNSET}[which % 3];
        *AT(base, o->off, const struct bench_pgbench_script *) = script;
        *AT(base, o->off_n, size_t) = 1;
        return;
    }
    if (o->tag & BENCH_RT_NEW_JOB) /* the job's name, set on the job */
        return;
    switch (o->type) {
    case UTIL_OPT_BOOL:
        *AT(base, o->off, bool) = true;
        break;
    case UTIL_OPT_INT:
        *AT(base, o->off, int) = (int)v;
        break;
    case UTIL_OPT_INT64:
        *AT(base, o->off, int64_t) = (int64_t)v;
        break;
    case UTIL_OPT_DOUBLE:
        *AT(base, o->off, double) = v;
        break;
    case UTIL_OPT_STR:
        *AT(base, o->off, const char *) = o->name; /* any string: its own name */
        break;
    case UTIL_OPT_ENUM:
        *AT(base, o->off, enum bench_protocol) = BENCH_PROTOCOL_PREPARED;
        break;
    default:
        fail_msg("--%s: a type the runner's tables did not use", o->name);
    }
}

/* Compares one row's field in two structs. */
static void same(const struct util_opt *o, const void *x, const void *y)
{
    if (o->tag & BENCH_RT_SCRIPTS) {
        size_t n = *AT(x, o->off_n, size_t);
        assert_int_equal(n, *AT(y, o->off_n, size_t));
        const struct bench_pgbench_script *a = *AT(x, o->off, const struct bench_pgbench_script *);
        const struct bench_pgbench_script *b = *AT(y, o->off, const struct bench_pgbench_script *);
        for (size_t i = 0; i < n; i++) {
            assert_string_equal(a[i].path, b[i].path);
            assert_int_equal(a[i].weight, b[i].weight);
        }
        return;
    }
    switch (o->type) {
    case UTIL_OPT_BOOL:
        assert_int_equal(*AT(x, o->off, bool), *AT(y, o->off, bool));
        break;
    case UTIL_OPT_INT:
    case UTIL_OPT_ENUM:
        assert_int_equal(*AT(x, o->off, int), *AT(y, o->off, int));
        break;
    case UTIL_OPT_INT64:
        assert_int_equal(*AT(x, o->off, int64_t), *AT(y, o->off, int64_t));
        break;
    case UTIL_OPT_DOUBLE:
        if (*AT(x, o->off, double) != *AT(y, o->off, double))
            fail_msg("--%s: %.17g != %.17g", o->name, *AT(x, o->off, double),
                     *AT(y, o->off, double));
        break;
    case UTIL_OPT_STR:
    case UTIL_OPT_CALL: { /* CALL: the builtin NAME[@W] */
        const char *a = *AT(x, o->off, const char *), *b = *AT(y, o->off, const char *);
        if (!a || !b)
            assert_ptr_equal(a, b);
        else
            assert_string_equal(a, b);
        if (o->tag & BENCH_RT_WEIGHTED)
            assert_int_equal(*AT(x, o->off_n, int), *AT(y, o->off_n, int));
        break;
    }
    default:
        fail_msg("--%s: a type the runner's tables did not use", o->name);
    }
}

/* A struct the parser accepts: required rows set, fio with `njobs` named jobs. */
static void base_args(enum bench_runner_cmd cmd, void *args, size_t njobs)
{
    bench_runner_defaults(cmd, args);
    size_t n;
    const struct util_opt *t = bench_runner_table(cmd, &n);
    struct bench_pgbench_script unused;
    for (size_t i = 0; i < n; i++)
        if ((t[i].flags & UTIL_OPT_REQUIRED) && !(t[i].tag & BENCH_RT_JOB))
            set_other(&t[i], args, 0, &unused);
    if (cmd == BENCH_RUNNER_FIO) {
        struct bench_runner_fio *f = args;
        static const char *const names[] = {"j0", "j1"};
        for (size_t j = 0; j < njobs; j++)
            f->job_buf[j].name = names[j];
        f->fio.jobs = f->job_buf;
        f->fio.njobs = njobs;
    }
}

static void compare_all(enum bench_runner_cmd cmd, void *x, void *y)
{
    size_t n;
    const struct util_opt *t = bench_runner_table(cmd, &n);
    size_t njobs = cmd == BENCH_RUNNER_FIO ? ((struct bench_runner_fio *)x)->fio.njobs : 1;
    if (cmd == BENCH_RUNNER_FIO)
        assert_int_equal(njobs, ((struct bench_runner_fio *)y)->fio.njobs);
    for (size_t i = 0; i < n; i++) {
        bool job = cmd == BENCH_RUNNER_FIO && (t[i].tag & BENCH_RT_JOB);
        for (size_t j = 0; j < (job ? njobs : 1); j++) {
            const void *a = job ? (const void *)&((struct bench_runner_fio *)x)->fio.jobs[j] : x;
            const void *b = job ? (const void *)&((struct bench_runner_fio *)y)->fio.jobs[j] : y;
            same(&t[i], a, b);
        }
    }
}

static void test_table_walk(void **state)
{
    (void)state;
    union {
        struct bench_runner_init init;
        struct bench_runner_run run;
        struct bench_runner_fio fio;
    } a, b;
    for (size_t c = 0; c < sizeof(all_cmds) / sizeof(all_cmds[0]); c++) {
        enum bench_runner_cmd cmd = all_cmds[c];
        size_t n;
        const struct util_opt *t = bench_runner_table(cmd, &n);
        assert_true(n > 0);
        assert_true(bench_runner_struct_size(cmd) <= sizeof(a));
        for (size_t i = 0; i < n; i++) {
            const struct util_opt *o = &t[i];
            /* each row alone, with each of three values; fio job rows on job 0 and job 1 */
            for (int which = 0; which < 3; which++) {
                size_t njobs = cmd == BENCH_RUNNER_FIO ? 2 : 0;
                for (size_t job = 0; job < (njobs ? njobs : 1); job++) {
                    struct bench_pgbench_script script;
                    base_args(cmd, &a, njobs);
                    set_other(o, row_base(cmd, &a, o, job), which, &script);
                    struct bench_argv av = BENCH_ARGV_INIT;
                    char err[256] = "";
                    int rc = round_trip(cmd, &a, &b, &av, err, sizeof(err));
                    if (rc)
                        fail_msg("%s --%s: %s", bench_runner_words(cmd), o->name, err);
                    /* the row was written (JOB: the second job's --job) */
                    char flag[64];
                    (void)snprintf(flag, sizeof(flag), "--%s", o->name);
                    bool name_of_later_job = o->type == UTIL_OPT_STR && (o->tag & BENCH_RT_JOB) &&
                                             !(o->tag & BENCH_RT_NEW_JOB) && job > 0 &&
                                             o->off == offsetof(struct bench_fio_job_opts, name);
                    if (!name_of_later_job && !has(&av, flag, NULL))
                        fail_msg("%s: --%s not written", bench_runner_words(cmd), o->name);
                    compare_all(cmd, &a, &b);
                    bench_runner_cleanup(cmd, &b);
                    bench_argv_free(&av);
                }
            }
        }
    }
}

/* The numeric bounds are accepted, one past them refused, with the row's flag named. */
static void test_table_ranges(void **state)
{
    (void)state;
    union {
        struct bench_runner_init init;
        struct bench_runner_run run;
        struct bench_runner_fio fio;
    } a;
    for (size_t c = 0; c < sizeof(all_cmds) / sizeof(all_cmds[0]); c++) {
        enum bench_runner_cmd cmd = all_cmds[c];
        size_t n;
        const struct util_opt *t = bench_runner_table(cmd, &n);
        for (size_t i = 0; i < n; i++) {
            const struct util_opt *o = &t[i];
            if (o->type != UTIL_OPT_INT && o->type != UTIL_OPT_INT64 && o->type != UTIL_OPT_DOUBLE)
                continue;
            char v[4][64];
            double step = o->type == UTIL_OPT_DOUBLE ? fmax(1e-6, fabs(o->max) * 1e-9) : 1;
            (void)snprintf(v[0], sizeof(v[0]), "%.17g", o->min);
            (void)snprintf(v[1], sizeof(v[1]), "%.17g", o->max);
            (void)snprintf(v[2], sizeof(v[2]), "%.17g", o->min - step);
            (void)snprintf(v[3], sizeof(v[3]), "%.17g", o->max + step);
            for (int k = 0; k < 4; k++) {
                char flag[64];
                (void)snprintf(flag, sizeof(flag), "--%s", o->name);
                char *argv[] = {
                    (char *)"cmd", (char *)"--directory", (char *)"/d",   (char *)"--clients",
                    (char *)"1",   (char *)"--scale",     (char *)"1",    flag,
                    v[k],          (char *)"--rw",        (char *)"read", NULL};
                /* the base flags each subcommand requires, then the row under test */
                char *args_init[] = {argv[0], argv[5], argv[6], flag, v[k], NULL};
                char *args_run[] = {argv[0], argv[3], argv[4], flag, v[k], NULL};
                char *args_fio[] = {argv[0], argv[1], argv[2], argv[9], argv[10], flag, v[k], NULL};
                char **use = cmd == BENCH_RUNNER_PGBENCH_INIT  ? args_init
                             : cmd == BENCH_RUNNER_PGBENCH_RUN ? args_run
                                                               : args_fio;
                int argc = cmd == BENCH_RUNNER_FIO ? 7 : 5;
                char err[256] = "";
                int rc = bench_runner_parse(cmd, argc, use, &a, err, sizeof(err));
                if (k < 2) {
                    if (rc)
                        fail_msg("%s %s %s refused: %s", bench_runner_words(cmd), flag, v[k], err);
                    bench_runner_cleanup(cmd, &a);
                } else {
                    assert_int_equal(rc, -EINVAL);
                    char want[128];
                    (void)snprintf(want, sizeof(want), "%s \"%s\": expected ", flag, v[k]);
                    if (strncmp(err, want, strlen(want)) != 0)
                        fail_msg("%s %s: '%s'", flag, v[k], err);
                }
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Messages the runner's tests and users rely on (the flag as written, its value, what it takes)
 * ------------------------------------------------------------------------------------------- */

static void expect_error(enum bench_runner_cmd cmd, int rc_want, const char *want, ...)
{
    char *argv[32] = {(char *)"cmd"};
    int argc = 1;
    va_list ap;
    va_start(ap, want);
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL)
        argv[argc++] = (char *)a;
    va_end(ap);
    union {
        struct bench_runner_init init;
        struct bench_runner_run run;
        struct bench_runner_fio fio;
    } x;
    char err[512] = "";
    int rc = bench_runner_parse(cmd, argc, argv, &x, err, sizeof(err));
    if (rc >= 0)
        bench_runner_cleanup(cmd, &x);
    assert_int_equal(rc, rc_want);
    if (strcmp(err, want) != 0)
        fail_msg("got '%s', want '%s'", err, want);
}

static void test_messages(void **state)
{
    (void)state;
    const enum bench_runner_cmd R = BENCH_RUNNER_PGBENCH_RUN, I = BENCH_RUNNER_PGBENCH_INIT,
                                F = BENCH_RUNNER_FIO;
    expect_error(R, -EINVAL, "--clients \"0\": expected an integer 1..100000", "--clients", "0",
                 NULL);
    expect_error(R, -EINVAL, "--clients \"5x\": expected an integer 1..100000", "--clients", "5x",
                 NULL);
    expect_error(R, -EINVAL, "--clients=\"5x\": expected an integer 1..100000", "--clients=5x",
                 NULL);
    expect_error(R, -EINVAL, "--threads \"10001\": expected an integer 1..10000", "--clients", "1",
                 "--threads", "10001", NULL);
    expect_error(R, -EINVAL, "--rate \"-1\": expected a number 0..1e+09", "--rate", "-1", NULL);
    expect_error(R, -EINVAL, "--wait-timeout \"nan\": expected seconds 0..86400", "--wait-timeout",
                 "nan", NULL);
    expect_error(R, -EINVAL, "--replica-timeout \"86401\": expected a number 0..86400",
                 "--replica-timeout", "86401", NULL);
    expect_error(R, -EINVAL,
                 "--builtin \"x@y\": expected tpcb-like|simple-update|select-only[@WEIGHT]",
                 "--builtin", "x@y", NULL);
    expect_error(R, -EINVAL, "--script \"@2\": expected FILE[@WEIGHT]", "--script", "@2", NULL);
    expect_error(R, -EINVAL, "--protocol \"fast\": expected simple|extended|prepared", "--protocol",
                 "fast", NULL);
    expect_error(R, -EINVAL, "--clients is required", "--duration", "5", NULL);
    expect_error(R, -EINVAL, "unexpected argument x (extra pgbench arguments go after --)",
                 "--clients", "1", "x", NULL);
    expect_error(R, -ENOENT, "unknown flag --bogus", "--bogus", NULL);
    expect_error(R, -ENOENT, "unknown flag --clinets (did you mean --clients?)", "--clinets", "1",
                 NULL);
    expect_error(R, -EINVAL, "--clients needs a value (N)", "--clients", NULL);
    expect_error(R, -EINVAL, "--re is ambiguous (--replica-lag, --replica-timeout)", "--re", "1",
                 NULL);
    expect_error(I, -EINVAL, "--scale is required", "--foreign-keys", NULL);
    expect_error(I, -EINVAL, "--scale \"0\": expected an integer 1..1000000", "--scale", "0", NULL);
    expect_error(I, -ENOENT, "unknown flag --clients", "--clients=3", NULL);
    expect_error(F, -EINVAL, "--iodepth \"-1\": expected a non-negative integer", "--iodepth", "-1",
                 NULL);
    expect_error(F, -EINVAL, "no fio job given (--rw, --bs, --iodepth ...)", "--directory", "/d",
                 NULL);
    expect_error(F, -EINVAL, "--directory is required", "--rw", "read", NULL);
    expect_error(F, -EINVAL, "unexpected argument x (extra fio options go after --)", "x", NULL);
    expect_error(F, -ENOENT,
                 "fio option gtod_reduce refused: it disables or reduces latency measurement, so "
                 "the result would report zero latencies",
                 "--gtod_reduce", NULL);
    expect_error(F, -ENOENT, "unknown or incomplete fio option --bogus=1 (see --help)", "--bogus=1",
                 NULL);
    expect_error(F, -EINVAL, "--rw needs a value (MODE)", "--rw", NULL);
}

static void test_parse_details(void **state)
{
    (void)state;
    struct bench_runner_run r;
    char err[256];
    /* --help wins, nothing else is checked */
    char *h[] = {(char *)"run", (char *)"--clients", (char *)"0", (char *)"--help", NULL};
    assert_int_equal(bench_runner_parse(BENCH_RUNNER_PGBENCH_RUN, 4, h, &r, err, sizeof(err)),
                     -EINVAL); /* the bad value comes first */
    char *h2[] = {(char *)"run", (char *)"--help", (char *)"--clients", (char *)"0", NULL};
    assert_int_equal(bench_runner_parse(BENCH_RUNNER_PGBENCH_RUN, 4, h2, &r, err, sizeof(err)),
                     BENCH_RUNNER_HELP);
    bench_runner_cleanup(BENCH_RUNNER_PGBENCH_RUN, &r);
    /* defaults, a later --builtin replaces an earlier one, "=value" form, abbreviations as
     * getopt_long allows them, extra args after -- */
    char *a[] = {(char *)"run",
                 (char *)"--clients=4",
                 (char *)"--builtin",
                 (char *)"tpcb-like",
                 (char *)"--builtin",
                 (char *)"select-only@2",
                 (char *)"--thr",
                 (char *)"2",
                 (char *)"--",
                 (char *)"-Dx=1",
                 NULL};
    assert_int_equal(bench_runner_parse(BENCH_RUNNER_PGBENCH_RUN, 10, a, &r, err, sizeof(err)), 0);
    assert_int_equal(r.pg.clients, 4);
    assert_int_equal(r.pg.threads, 2);
    assert_string_equal(r.pg.builtin, "select-only");
    assert_int_equal(r.pg.builtin_weight, 2);
    assert_int_equal(r.pg.progress_s, 1);
    assert_true(r.replica_timeout_s == 300);
    assert_true(r.common.wait_timeout_s == 120);
    assert_int_equal(r.pg.nextra, 1);
    assert_string_equal(r.pg.extra_args[0], "-Dx=1");
    assert_int_equal(r.pg.max_tries, BENCH_PGBENCH_UNSET); /* not given: pgbench's default */
    bench_runner_cleanup(BENCH_RUNNER_PGBENCH_RUN, &r);
    assert_null(r.pg.builtin);
    assert_int_equal(r.pg.builtin_weight, BENCH_PGBENCH_UNSET);
    /* 0 is a value: a weight pgbench honours, unlimited tries */
    char *z[] = {(char *)"run",         (char *)"--clients",
                 (char *)"1",           (char *)"--builtin",
                 (char *)"select-only", (char *)"--script",
                 (char *)"/s.sql@0",    (char *)"--max-tries",
                 (char *)"0",           NULL};
    assert_int_equal(bench_runner_parse(BENCH_RUNNER_PGBENCH_RUN, 9, z, &r, err, sizeof(err)), 0);
    assert_int_equal(r.pg.builtin_weight, BENCH_PGBENCH_UNSET);
    assert_int_equal(r.pg.scripts[0].weight, 0);
    assert_int_equal(r.pg.max_tries, 0);
    bench_runner_cleanup(BENCH_RUNNER_PGBENCH_RUN, &r);
    char *neg[] = {(char *)"run",         (char *)"--clients", (char *)"1",
                   (char *)"--max-tries", (char *)"-1",        NULL};
    assert_int_equal(bench_runner_parse(BENCH_RUNNER_PGBENCH_RUN, 5, neg, &r, err, sizeof(err)),
                     -EINVAL);
    assert_string_equal(err, "--max-tries \"-1\": expected an integer 0..1000000");

    /* fio: options before any --job make job 0, unnamed jobs get job<i> */
    struct bench_runner_fio f;
    char *b[] = {(char *)"fio", (char *)"--rw",   (char *)"read",    (char *)"--job",
                 (char *)"x",   (char *)"--rw",   (char *)"write",   (char *)"--directory",
                 (char *)"/d",  (char *)"--job",  (char *)"y",       (char *)"--job",
                 (char *)"z",   (char *)"--name", (char *)"renamed", NULL};
    assert_int_equal(bench_runner_parse(BENCH_RUNNER_FIO, 15, b, &f, err, sizeof(err)), 0);
    assert_int_equal(f.fio.njobs, 4);
    assert_string_equal(f.fio.jobs[0].name, "job0");
    assert_string_equal(f.fio.jobs[0].rw, "read");
    assert_string_equal(f.fio.jobs[1].name, "x");
    assert_string_equal(f.fio.jobs[1].rw, "write");
    assert_string_equal(f.fio.jobs[2].name, "y");
    assert_string_equal(f.fio.jobs[3].name, "renamed");
    assert_string_equal(f.fio.directory, "/d");
    bench_runner_cleanup(BENCH_RUNNER_FIO, &f);

    /* too many scripts and jobs */
    char *many[2 * BENCH_RUNNER_MAX_SCRIPTS + 8];
    int n = 0;
    many[n++] = (char *)"run";
    for (int i = 0; i <= BENCH_RUNNER_MAX_SCRIPTS; i++) {
        many[n++] = (char *)"--script";
        many[n++] = (char *)"a.sql";
    }
    many[n] = NULL;
    assert_int_equal(bench_runner_parse(BENCH_RUNNER_PGBENCH_RUN, n, many, &r, err, sizeof(err)),
                     -EINVAL);
    assert_string_equal(err, "--script: at most 64 scripts");
    n = 0;
    many[n++] = (char *)"fio";
    for (int i = 0; i <= BENCH_RUNNER_MAX_FIO_JOBS; i++) {
        many[n++] = (char *)"--job";
        many[n++] = (char *)"j";
    }
    many[n] = NULL;
    assert_int_equal(bench_runner_parse(BENCH_RUNNER_FIO, n, many, &f, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "at most 64 fio jobs");

    /* a flag named from its field */
    assert_string_equal(
        bench_runner_flag(BENCH_RUNNER_PGBENCH_RUN, offsetof(struct bench_runner_run, pg.scripts)),
        "script");
    assert_string_equal(
        bench_runner_flag(BENCH_RUNNER_FIO, offsetof(struct bench_runner_fio, fio.directory)),
        "directory");
}

/* Numbers are written the shortest way that reads back exactly. */
static void test_numbers(void **state)
{
    (void)state;
    struct bench_runner_run a;
    bench_runner_defaults(BENCH_RUNNER_PGBENCH_RUN, &a);
    a.pg.clients = 1;
    a.pg.rate = 1234567;
    a.pg.latency_limit_ms = 0.25;
    a.replica_timeout_s = 1.0 / 3;
    struct bench_argv av = BENCH_ARGV_INIT;
    bench_runner_build(BENCH_RUNNER_PGBENCH_RUN, &a, &av);
    char *s = bench_argv_join(&av);
    assert_string_equal(s, "pgbench run --clients 1 --rate 1234567 --latency-limit 0.25 "
                           "--replica-timeout 0.3333333333333333");
    free(s);
    bench_argv_free(&av);
    /* plain decimals, never an exponent: pgbench -R 1000 is "--rate 1000", not "1e+03" */
    bench_runner_defaults(BENCH_RUNNER_PGBENCH_RUN, &a);
    a.pg.clients = 1;
    a.pg.rate = 1000;
    bench_runner_build(BENCH_RUNNER_PGBENCH_RUN, &a, &av);
    s = bench_argv_join(&av);
    assert_string_equal(s, "pgbench run --clients 1 --rate 1000");
    free(s);
    bench_argv_free(&av);
    static const struct {
        double v;
        const char *want;
    } dec[] = {
        {1000, "1000"},   {250.25, "250.25"},  {0.1, "0.1"},       {1e9, "1000000000"},
        {3.334, "3.334"}, {1e-7, "0.0000001"}, {100000, "100000"}, {1.0 / 3, "0.3333333333333333"}};
    for (size_t i = 0; i < sizeof(dec) / sizeof(dec[0]); i++) {
        char b[400];
        bench_fmt_decimal(b, sizeof(b), dec[i].v);
        assert_string_equal(b, dec[i].want);
        assert_true(strtod(b, NULL) == dec[i].v);
    }
}

static void test_usage(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof(all_cmds) / sizeof(all_cmds[0]); c++) {
        enum bench_runner_cmd cmd = all_cmds[c];
        char *full = bench_runner_usage(cmd, true);
        char *brief = bench_runner_usage(cmd, false);
        assert_non_null(full);
        assert_non_null(brief);
        size_t n;
        const struct util_opt *t = bench_runner_table(cmd, &n);
        for (size_t i = 0; i < n; i++) {
            char flag[64];
            (void)snprintf(flag, sizeof(flag), "--%s ", t[i].name);
            if (t[i].type == UTIL_OPT_BOOL)
                flag[strlen(flag) - 1] = '\0';
            if (!strstr(full, flag))
                fail_msg("usage of %s lacks %s:\n%s", bench_runner_words(cmd), flag, full);
            assert_non_null(t[i].help);
            if (!(t[i].flags & UTIL_OPT_BRIEF) && !strstr(brief, flag))
                fail_msg("synopsis of %s lacks %s", bench_runner_words(cmd), flag);
        }
        /* lines fit (the flag list may run long on its help text, the synopsis may not) */
        for (char *p = brief; *p;) {
            size_t len = strcspn(p, "\n");
            assert_true(len <= 100);
            p += len + (p[len] ? 1 : 0);
        }
        free(full);
        free(brief);
    }
    char *conn = bench_runner_conn_usage();
    assert_string_equal(conn, "--host H --port P --dbname D --user U --sslmode M "
                              "--sslrootcert FILE");
    free(conn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_every_field), cmocka_unit_test(test_init_every_field),
        cmocka_unit_test(test_fio_every_field), cmocka_unit_test(test_table_walk),
        cmocka_unit_test(test_table_ranges),    cmocka_unit_test(test_messages),
        cmocka_unit_test(test_parse_details),   cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
