/* The runner's command line: the flag tables and everything generated from them (builder,
 * parser, defaults, usage). */
#include "pkg/bench/runner_args.h"
#include "pkg/util/buf.h"
#include "pkg/util/err.h"
#include "pkg/util/opt.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * The tables: one row per runner flag
 * ------------------------------------------------------------------------------------------- */

static int parse_weighted(void *base, const struct util_opt *o, const char *flag, const char *v,
                          char *err, size_t errlen);
static int parse_script(void *base, const struct util_opt *o, const char *flag, const char *v,
                        char *err, size_t errlen);

static const struct util_opt_enum protocols[] = {{"simple", BENCH_PROTOCOL_SIMPLE},
                                                 {"extended", BENCH_PROTOCOL_EXTENDED},
                                                 {"prepared", BENCH_PROTOCOL_PREPARED},
                                                 {NULL, 0}};

/* The flags of every subcommand that connects, spelled once and expanded into the init and run
 * tables (T is the subcommand's struct; both hold a `struct bench_runner_common common`). */
#define COMMON_ROWS(T)                                                                             \
    {.name = "wait-timeout",                                                                       \
     .type = UTIL_OPT_DOUBLE,                                                                      \
     .off = offsetof(T, common.wait_timeout_s),                                                    \
     .min = 0,                                                                                     \
     .max = 86400,                                                                                 \
     .def = 120,                                                                                   \
     .metavar = "S",                                                                               \
     .expect = "seconds 0..86400",                                                                 \
     .help = "retry refused/DNS/timeout/starting-up connections this long"},                       \
        {.name = "wait-from",                                                                      \
         .type = UTIL_OPT_STR,                                                                     \
         .off = offsetof(T, common.wait_from),                                                     \
         .metavar = "TIME",                                                                        \
         .help = "count --wait-timeout from TIME (RFC 3339, the run's creation) rather than from " \
                 "the start; the wait then ends 2 s early so the failure is reported in time"},    \
        {.name = "create-database",                                                                \
         .type = UTIL_OPT_BOOL,                                                                    \
         .off = offsetof(T, common.create_database),                                               \
         .help = "create the database when it is missing (connects to \"postgres\")"},             \
        {.name = "host",                                                                           \
         .type = UTIL_OPT_STR,                                                                     \
         .flags = UTIL_OPT_BRIEF,                                                                  \
         .group = "connection",                                                                    \
         .off = offsetof(T, common.conn.host),                                                     \
         .metavar = "H",                                                                           \
         .help = "server host (PGHOST)"},                                                          \
        {.name = "port",                                                                           \
         .type = UTIL_OPT_STR,                                                                     \
         .flags = UTIL_OPT_BRIEF,                                                                  \
         .group = "connection",                                                                    \
         .off = offsetof(T, common.conn.port),                                                     \
         .metavar = "P",                                                                           \
         .help = "server port (PGPORT)"},                                                          \
        {.name = "dbname",                                                                         \
         .type = UTIL_OPT_STR,                                                                     \
         .flags = UTIL_OPT_BRIEF,                                                                  \
         .group = "connection",                                                                    \
         .off = offsetof(T, common.conn.dbname),                                                   \
         .metavar = "D",                                                                           \
         .help = "database (PGDATABASE)"},                                                         \
        {.name = "user",                                                                           \
         .type = UTIL_OPT_STR,                                                                     \
         .flags = UTIL_OPT_BRIEF,                                                                  \
         .group = "connection",                                                                    \
         .off = offsetof(T, common.conn.user),                                                     \
         .metavar = "U",                                                                           \
         .help = "user (PGUSER); the password only from PGPASSWORD or PGPASSFILE"},                \
        {.name = "sslmode",                                                                        \
         .type = UTIL_OPT_STR,                                                                     \
         .flags = UTIL_OPT_BRIEF,                                                                  \
         .group = "connection",                                                                    \
         .off = offsetof(T, common.conn.sslmode),                                                  \
         .metavar = "M",                                                                           \
         .help = "TLS mode (PGSSLMODE)"},                                                          \
    {                                                                                              \
        .name = "sslrootcert", .type = UTIL_OPT_STR, .flags = UTIL_OPT_BRIEF,                      \
        .group = "connection", .off = offsetof(T, common.conn.sslrootcert), .metavar = "FILE",     \
        .help = "CA certificate (PGSSLROOTCERT)"                                                   \
    }

#define INIT_F(f) offsetof(struct bench_runner_init, f)
static const struct util_opt init_rows[] = {
    {.name = "scale",
     .type = UTIL_OPT_INT,
     .flags = UTIL_OPT_REQUIRED,
     .off = INIT_F(pg.scale),
     .min = 1,
     .max = 1000000,
     .metavar = "N",
     .help = "scale factor (pgbench -i -s)"},
    {.name = "foreign-keys",
     .type = UTIL_OPT_BOOL,
     .off = INIT_F(pg.foreign_keys),
     .help = "create foreign keys between the tables"},
    {.name = "partitions",
     .type = UTIL_OPT_INT,
     .off = INIT_F(pg.partitions),
     .min = 0,
     .max = 100000,
     .metavar = "N",
     .help = "partition pgbench_accounts into N partitions"},
    {.name = "generation",
     .type = UTIL_OPT_STR,
     .off = INIT_F(pg.generation),
     .metavar = "server|client",
     .help = "generate the data in the server (step G, pgbench >= 13) or in pgbench (g, COPY); "
             "default server where pgbench has it"},
    {.name = "init-steps",
     .type = UTIL_OPT_STR,
     .off = INIT_F(pg.steps),
     .metavar = "STEPS",
     .help = "pgbench -I: 1 to 32 of d t g G v p f, instead of the generation's default"},
    {.name = "fillfactor",
     .type = UTIL_OPT_INT,
     .off = INIT_F(pg.fillfactor),
     .min = 10,
     .max = 100, /* not given (0, outside the range): pgbench's 100 */
     .metavar = "N",
     .help = "fill factor of the tables, 10..100 (pgbench -F)"},
    {.name = "unlogged-tables",
     .type = UTIL_OPT_BOOL,
     .off = INIT_F(pg.unlogged_tables),
     .help = "create the tables unlogged (pgbench --unlogged-tables)"},
    {.name = "tablespace",
     .type = UTIL_OPT_STR,
     .off = INIT_F(pg.tablespace),
     .metavar = "NAME",
     .help = "tablespace of the tables (pgbench --tablespace)"},
    {.name = "index-tablespace",
     .type = UTIL_OPT_STR,
     .off = INIT_F(pg.index_tablespace),
     .metavar = "NAME",
     .help = "tablespace of the indexes (pgbench --index-tablespace)"},
    {.name = "skip-if-initialized",
     .type = UTIL_OPT_BOOL,
     .off = INIT_F(skip_if_initialized),
     .help = "skip when the pgbench tables exist complete with this scale and partitions"},
    COMMON_ROWS(struct bench_runner_init),
};

#define RUN_F(f) offsetof(struct bench_runner_run, f)
static const struct util_opt run_rows[] = {
    {.name = "clients",
     .type = UTIL_OPT_INT,
     .flags = UTIL_OPT_REQUIRED,
     .off = RUN_F(pg.clients),
     .min = 1,
     .max = 100000,
     .metavar = "N",
     .help = "clients (pgbench -c); BENCH_CLIENTS_BY_INDEX overrides it per worker"},
    {.name = "threads",
     .type = UTIL_OPT_INT,
     .off = RUN_F(pg.threads),
     .min = 1,
     .max = 10000,
     .def = 1,
     .metavar = "N",
     .help = "threads (pgbench -j), capped at the clients"},
    {.name = "duration",
     .type = UTIL_OPT_INT,
     .flags = UTIL_OPT_ONE_OF,
     .off = RUN_F(pg.duration_s),
     .min = 1,
     .max = 2592000,
     .metavar = "S",
     .help = "run for S seconds (pgbench -T)"},
    {.name = "transactions",
     .type = UTIL_OPT_INT64,
     .flags = UTIL_OPT_ONE_OF,
     .off = RUN_F(pg.transactions),
     .min = 1,
     .max = 2000000000,
     .metavar = "N",
     .help = "transactions per client (pgbench -t)"},
    {.name = "builtin",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = parse_weighted,
     .tag = BENCH_RT_WEIGHTED,
     .off = RUN_F(pg.builtin),
     .off_n = RUN_F(pg.builtin_weight),
     .metavar = "NAME[@W]",
     .expect = "tpcb-like|simple-update|select-only[@WEIGHT]",
     .help = "builtin script tpcb-like|simple-update|select-only (pgbench -b); @0 = never "
             "chosen"},
    {.name = "script",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE | UTIL_OPT_MULTI,
     .cb = parse_script,
     .tag = BENCH_RT_SCRIPTS,
     .off = RUN_F(pg.scripts),
     .off_n = RUN_F(pg.nscripts),
     .metavar = "FILE[@W]",
     .expect = "FILE[@WEIGHT]",
     .help = "custom script (pgbench -f); @0 = never chosen"},
    {.name = "protocol",
     .type = UTIL_OPT_ENUM,
     .enums = protocols,
     .off = RUN_F(pg.protocol),
     .metavar = "simple|extended|prepared",
     .expect = "simple|extended|prepared",
     .help = "query protocol (pgbench -M)"},
    {.name = "rate",
     .type = UTIL_OPT_DOUBLE,
     .off = RUN_F(pg.rate),
     .min = 0,
     .max = 1e9,
     .metavar = "R",
     .help = "target transactions per second (pgbench -R), 0 = unthrottled"},
    {.name = "latency-limit",
     .type = UTIL_OPT_DOUBLE,
     .off = RUN_F(pg.latency_limit_ms),
     .min = 0,
     .max = 1e9,
     .metavar = "MS",
     .help = "count transactions above MS ms, skip late ones with --rate (pgbench -L)"},
    {.name = "no-vacuum",
     .type = UTIL_OPT_BOOL,
     .off = RUN_F(pg.no_vacuum),
     .help = "no vacuum before the run (pgbench -n)"},
    {.name = "connect",
     .type = UTIL_OPT_BOOL,
     .off = RUN_F(pg.connect),
     .help = "a new connection per transaction (pgbench -C)"},
    {.name = "max-tries",
     .type = UTIL_OPT_INT,
     .off = RUN_F(pg.max_tries),
     .min = 0,
     .max = 1000000,
     .def = BENCH_PGBENCH_UNSET, /* not given: pgbench's default (1) */
     .metavar = "N",
     .help = "tries of serialization/deadlock failures (pgbench >= 15 --max-tries); 0 = "
             "unlimited (needs --duration or --latency-limit); not given = pgbench's 1"},
    {.name = "failures-detailed",
     .type = UTIL_OPT_BOOL,
     .off = RUN_F(pg.failures_detailed),
     .help = "failures by kind (pgbench >= 15 --failures-detailed)"},
    {.name = "per-statement",
     .type = UTIL_OPT_BOOL,
     .off = RUN_F(pg.per_statement),
     .help = "per-statement latencies (pgbench -r)"},
    {.name = "progress",
     .type = UTIL_OPT_INT,
     .off = RUN_F(pg.progress_s),
     .min = 1,
     .max = 3600,
     .def = 1,
     .metavar = "S",
     .help = "timeline resolution (pgbench -P)"},
    {.name = "wait-events",
     .type = UTIL_OPT_BOOL,
     .off = RUN_F(wait_events),
     .help = "sample the load's wait events every second"},
    {.name = "server-settings",
     .type = UTIL_OPT_BOOL,
     .off = RUN_F(server_settings),
     .help = "report the server's settings"},
    {.name = "replica-lag",
     .type = UTIL_OPT_BOOL,
     .off = RUN_F(replica_lag),
     .help = "wait for the replicas to catch up before the run, sample their lag during it"},
    {.name = "replica-timeout",
     .type = UTIL_OPT_DOUBLE,
     .off = RUN_F(replica_timeout_s),
     .min = 0,
     .max = 86400,
     .def = 300,
     .metavar = "S",
     .help = "longest wait for the replicas to catch up"},
    {.name = "warmup",
     .type = UTIL_OPT_DOUBLE,
     .off = RUN_F(warmup_s),
     .min = 0,
     .max = 86400,
     .metavar = "S",
     .help = "leave the transactions of the first S seconds out of the summary and percentiles "
             "(taken from the -l log then); the timeline keeps them"},
    COMMON_ROWS(struct bench_runner_run),
};

#define FIO_F(f) offsetof(struct bench_runner_fio, f)
#define JOB_F(f) offsetof(struct bench_fio_job_opts, f)
#define FIO_COUNT "a non-negative integer"
static const struct util_opt fio_rows[] = {
    {.name = "directory",
     .type = UTIL_OPT_STR,
     .flags = UTIL_OPT_REQUIRED,
     .off = FIO_F(fio.directory),
     .metavar = "DIR",
     .help = "directory the jobs write their files in (the volume)"},
    {.name = "job",
     .type = UTIL_OPT_STR,
     .off = JOB_F(name),
     .tag = BENCH_RT_JOB | BENCH_RT_NEW_JOB,
     .metavar = "NAME",
     .help = "start another job; the options after it apply to that job"},
    {.name = "name",
     .type = UTIL_OPT_STR,
     .tag = BENCH_RT_JOB,
     .off = JOB_F(name),
     .metavar = "NAME",
     .help = "name of the current job (default job<index>)"},
    {.name = "rw",
     .type = UTIL_OPT_STR,
     .tag = BENCH_RT_JOB,
     .off = JOB_F(rw),
     .metavar = "MODE",
     .help = "read|write|randread|randwrite|rw|randrw"},
    {.name = "bs",
     .type = UTIL_OPT_STR,
     .tag = BENCH_RT_JOB,
     .off = JOB_F(bs),
     .metavar = "B",
     .help = "block size, e.g. 8k"},
    {.name = "iodepth",
     .type = UTIL_OPT_INT,
     .tag = BENCH_RT_JOB,
     .off = JOB_F(iodepth),
     .min = 0,
     .max = 100000000,
     .metavar = "N",
     .expect = FIO_COUNT,
     .help = "I/Os in flight"},
    {.name = "numjobs",
     .type = UTIL_OPT_INT,
     .tag = BENCH_RT_JOB,
     .off = JOB_F(numjobs),
     .min = 0,
     .max = 100000000,
     .metavar = "N",
     .expect = FIO_COUNT,
     .help = "parallel clones of the job"},
    {.name = "size",
     .type = UTIL_OPT_STR,
     .tag = BENCH_RT_JOB,
     .off = JOB_F(size),
     .metavar = "S",
     .help = "file size per clone, e.g. 1G"},
    {.name = "runtime",
     .type = UTIL_OPT_INT,
     .tag = BENCH_RT_JOB,
     .off = JOB_F(runtime_s),
     .min = 0,
     .max = 100000000,
     .metavar = "S",
     .expect = FIO_COUNT,
     .help = "seconds, time based; 0 = until size is done"},
    {.name = "direct",
     .type = UTIL_OPT_BOOL,
     .tag = BENCH_RT_JOB,
     .off = JOB_F(direct),
     .help = "O_DIRECT"},
    {.name = "ioengine",
     .type = UTIL_OPT_STR,
     .tag = BENCH_RT_JOB,
     .off = JOB_F(ioengine),
     .metavar = "E",
     .help = "libaio|io_uring|psync|sync|posixaio"},
    {.name = "fsync",
     .type = UTIL_OPT_INT,
     .tag = BENCH_RT_JOB,
     .off = JOB_F(fsync),
     .min = 0,
     .max = 100000000,
     .metavar = "N",
     .expect = FIO_COUNT,
     .help = "fsync every N writes"},
    {.name = "fdatasync",
     .type = UTIL_OPT_INT,
     .tag = BENCH_RT_JOB,
     .off = JOB_F(fdatasync),
     .min = 0,
     .max = 100000000,
     .metavar = "N",
     .expect = FIO_COUNT,
     .help = "fdatasync every N writes"},
};

struct cmd_desc {
    const char *words; /* "pgbench run" */
    const struct util_opt *rows;
    size_t nrows;
    size_t size;             /* of the subcommand's struct */
    size_t extra_off;        /* const char *const *extra_args */
    size_t nextra_off;       /* size_t nextra */
    const char *extra_usage; /* synopsis tail */
    const char *extra_what;  /* "unexpected argument X (<extra_what> go after --)" */
};

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))
static const struct cmd_desc cmds[BENCH_RUNNER_NCMDS] = {
    {
        .words = "pgbench init",
        .rows = init_rows,
        .nrows = NROWS(init_rows),
        .size = sizeof(struct bench_runner_init),
        .extra_off = INIT_F(pg.extra_args),
        .nextra_off = INIT_F(pg.nextra),
        .extra_usage = "[-- extra pgbench init args]",
        .extra_what = "extra pgbench arguments",
    },
    {
        .words = "pgbench run",
        .rows = run_rows,
        .nrows = NROWS(run_rows),
        .size = sizeof(struct bench_runner_run),
        .extra_off = RUN_F(pg.extra_args),
        .nextra_off = RUN_F(pg.nextra),
        .extra_usage = "[-- extra pgbench args]",
        .extra_what = "extra pgbench arguments",
    },
    {
        .words = "fio",
        .rows = fio_rows,
        .nrows = NROWS(fio_rows),
        .size = sizeof(struct bench_runner_fio),
        .extra_off = FIO_F(fio.extra_args),
        .nextra_off = FIO_F(fio.nextra),
        .extra_usage = "[-- --fio_option=value]",
        .extra_what = "extra fio options",
    },
};

static const struct cmd_desc *desc(enum bench_runner_cmd cmd)
{
    if (cmd < BENCH_RUNNER_PGBENCH_INIT || cmd > BENCH_RUNNER_FIO)
        abort();
    return &cmds[cmd - BENCH_RUNNER_PGBENCH_INIT];
}

/* The struct's recorded subcommand must be cmd (bench_runner_defaults sets it). */
static void check_struct(enum bench_runner_cmd cmd, const void *args)
{
    if (*(const enum bench_runner_cmd *)args != cmd)
        abort();
}

const struct util_opt *bench_runner_table(enum bench_runner_cmd cmd, size_t *n)
{
    const struct cmd_desc *d = desc(cmd);
    *n = d->nrows;
    return d->rows;
}

const char *bench_runner_words(enum bench_runner_cmd cmd)
{
    return desc(cmd)->words;
}

size_t bench_runner_struct_size(enum bench_runner_cmd cmd)
{
    return desc(cmd)->size;
}

static bool job_row(const struct util_opt *o)
{
    return (o->tag & BENCH_RT_JOB) != 0;
}

const char *bench_runner_flag(enum bench_runner_cmd cmd, size_t off)
{
    const struct cmd_desc *d = desc(cmd);
    for (size_t i = 0; i < d->nrows; i++)
        if (!job_row(&d->rows[i]) && d->rows[i].off == off)
            return d->rows[i].name;
    abort();
}

/* ---------------------------------------------------------------------------------------------
 * Field access
 * ------------------------------------------------------------------------------------------- */

#define FIELD(base, off, type) ((type *)(void *)((char *)(base) + (off)))
#define CFIELD(base, off, type) ((type const *)(const void *)((const char *)(base) + (off)))

void bench_runner_defaults(enum bench_runner_cmd cmd, void *args)
{
    const struct cmd_desc *d = desc(cmd);
    memset(args, 0, d->size);
    *(enum bench_runner_cmd *)args = cmd;
    for (size_t i = 0; i < d->nrows; i++) {
        const struct util_opt *o = &d->rows[i];
        if (job_row(o)) /* per job: zero, which the fio builder reads as fio's default */
            continue;
        if (o->tag & BENCH_RT_WEIGHTED) /* no name, no @W */
            *FIELD(args, o->off_n, int) = BENCH_PGBENCH_UNSET;
        struct util_opt_set one = {o, 1, args};
        util_opt_defaults(&one, 1);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Builder
 * ------------------------------------------------------------------------------------------- */

static void push_flag(struct bench_argv *out, const struct util_opt *o)
{
    bench_argv_pushf(out, "--%s", o->name);
}

static void push_weighted(struct bench_argv *out, const struct util_opt *o, const char *name,
                          int weight)
{
    push_flag(out, o);
    if (weight != BENCH_PGBENCH_UNSET)
        bench_argv_pushf(out, "%s@%d", name, weight);
    else
        bench_argv_push(out, name);
}

/* The runner's own rows (CALL): the builtin NAME[@W] and the scripts FILE[@W]. */
static void build_call(struct bench_argv *out, const struct util_opt *o, const void *base)
{
    if (o->tag & BENCH_RT_WEIGHTED) {
        const char *v = *CFIELD(base, o->off, const char *);
        if (v)
            push_weighted(out, o, v, *CFIELD(base, o->off_n, int));
        return;
    }
    const struct bench_pgbench_script *s =
        *CFIELD(base, o->off, const struct bench_pgbench_script *);
    size_t n = *CFIELD(base, o->off_n, size_t);
    for (size_t i = 0; i < n; i++)
        push_weighted(out, o, s[i].path, s[i].weight);
}

static const char *enum_name(const struct util_opt *o, int v)
{
    for (size_t i = 0; o->enums[i].name; i++)
        if (o->enums[i].value == v)
            return o->enums[i].name;
    abort(); /* a value the table does not name */
}

/* Appends one row's flag (and value) when its field at base differs from the default. */
static void build_row(struct bench_argv *out, const struct util_opt *o, const void *base)
{
    switch (o->type) {
    case UTIL_OPT_BOOL:
        if (*CFIELD(base, o->off, bool))
            push_flag(out, o);
        return;
    case UTIL_OPT_INT:
    case UTIL_OPT_ENUM: {
        int v = *CFIELD(base, o->off, int);
        if (v == (int)o->def)
            return;
        push_flag(out, o);
        if (o->type == UTIL_OPT_ENUM)
            bench_argv_push(out, enum_name(o, v));
        else
            bench_argv_pushf(out, "%d", v);
        return;
    }
    case UTIL_OPT_INT64: {
        int64_t v = *CFIELD(base, o->off, int64_t);
        if (v != (int64_t)o->def) {
            push_flag(out, o);
            bench_argv_pushf(out, "%lld", (long long)v);
        }
        return;
    }
    case UTIL_OPT_DOUBLE: {
        double v = *CFIELD(base, o->off, double);
        if (v != o->def) {
            push_flag(out, o);
            bench_argv_push_decimal(out, v);
        }
        return;
    }
    case UTIL_OPT_STR: {
        const char *v = *CFIELD(base, o->off, const char *);
        if (v) {
            push_flag(out, o);
            bench_argv_push(out, v);
        }
        return;
    }
    case UTIL_OPT_CALL:
        build_call(out, o, base);
        return;
    default: /* the tables use no other type */
        abort();
    }
}

static bool is_job_name_row(const struct util_opt *o)
{
    return job_row(o) && !(o->tag & BENCH_RT_NEW_JOB) && o->type == UTIL_OPT_STR &&
           o->off == JOB_F(name);
}

static void build_fio_jobs(const struct cmd_desc *d, const struct bench_runner_fio *f,
                           struct bench_argv *out)
{
    const struct util_opt *job = NULL;
    for (size_t i = 0; i < d->nrows; i++)
        if (d->rows[i].tag & BENCH_RT_NEW_JOB)
            job = &d->rows[i];
    if (!job)
        abort(); /* the fio table has its --job row */
    for (size_t j = 0; j < f->fio.njobs; j++) {
        const struct bench_fio_job_opts *jo = &f->fio.jobs[j];
        if (j > 0) { /* job 0 needs no --job: its first option starts it */
            push_flag(out, job);
            if (jo->name)
                bench_argv_push(out, jo->name);
            else
                bench_argv_pushf(out, "job%zu", j);
        }
        for (size_t i = 0; i < d->nrows; i++) {
            const struct util_opt *o = &d->rows[i];
            if (!job_row(o) || (o->tag & BENCH_RT_NEW_JOB) || (j > 0 && is_job_name_row(o)))
                continue;
            build_row(out, o, jo);
        }
    }
}

void bench_runner_build(enum bench_runner_cmd cmd, const void *args, struct bench_argv *out)
{
    const struct cmd_desc *d = desc(cmd);
    check_struct(cmd, args);
    /* the subcommand words */
    const char *w = d->words;
    while (*w) {
        size_t n = strcspn(w, " ");
        bench_argv_pushf(out, "%.*s", (int)n, w);
        w += n;
        w += strspn(w, " ");
    }
    for (size_t i = 0; i < d->nrows; i++)
        if (!job_row(&d->rows[i]))
            build_row(out, &d->rows[i], args);
    if (cmd == BENCH_RUNNER_FIO)
        build_fio_jobs(d, args, out);
    const char *const *extra = *CFIELD(args, d->extra_off, const char *const *);
    size_t nextra = *CFIELD(args, d->nextra_off, size_t);
    if (nextra > 0)
        bench_argv_push(out, "--");
    for (size_t i = 0; i < nextra; i++)
        bench_argv_push(out, extra[i]);
}

/* ---------------------------------------------------------------------------------------------
 * Parser
 * ------------------------------------------------------------------------------------------- */

/* fio: an option that no row names. The ones that would zero the latencies get their reason. */
static int unknown_fio(void *ctx, char **argv, int argc, int *used, char *err, size_t errlen)
{
    (void)ctx;
    (void)argc;
    (void)used;
    const char *name = argv[0];
    while (*name == '-')
        name++;
    char opt[64];
    (void)snprintf(opt, sizeof(opt), "%.*s", (int)strcspn(name, "="), name);
    if (bench_fio_option_zeroes_latency(opt))
        (void)util_errf(err, errlen,
                        "fio option %s refused: it disables or reduces latency measurement, so "
                        "the result would report zero latencies",
                        opt);
    else
        (void)util_errf(err, errlen, "unknown or incomplete fio option %s (see --help)", argv[0]);
    return -ENOENT;
}

/* NAME[@W] into an owned copy of NAME and *weight (BENCH_PGBENCH_UNSET: no @W; @0 is a weight). */
static char *weighted(const struct util_opt *o, const char *flag, const char *arg, int *weight,
                      char *err, size_t errlen)
{
    char *name = NULL;
    int w = 0;
    if (bench_weighted_parse(arg, &name, &w)) {
        (void)util_opt_bad(o, flag, arg, err, errlen);
        return NULL;
    }
    *weight = strchr(arg, '@') ? w : BENCH_PGBENCH_UNSET;
    return name;
}

/* Owned strings of a run struct (builtin name and script paths). */
static void own_put(struct bench_runner_run *r, char *s)
{
    if (r->owned.n == sizeof(r->owned.s) / sizeof(r->owned.s[0]))
        abort(); /* one builtin plus at most BENCH_RUNNER_MAX_SCRIPTS scripts */
    r->owned.s[r->owned.n++] = s;
}

static void own_drop(struct bench_runner_run *r, const char *s)
{
    for (size_t i = 0; s && i < r->owned.n; i++) {
        if (r->owned.s[i] == s) {
            free(r->owned.s[i]);
            r->owned.s[i] = r->owned.s[--r->owned.n];
            return;
        }
    }
}

/* --builtin NAME[@W]: a later one replaces an earlier one. */
static int parse_weighted(void *base, const struct util_opt *o, const char *flag, const char *v,
                          char *err, size_t errlen)
{
    struct bench_runner_run *r = base;
    int w;
    char *name = weighted(o, flag, v, &w, err, errlen);
    if (!name)
        return -EINVAL;
    const char **field = FIELD(r, o->off, const char *);
    own_drop(r, *field);
    own_put(r, name);
    *field = name;
    *FIELD(r, o->off_n, int) = w;
    return 0;
}

/* --script FILE[@W], repeatable. */
static int parse_script(void *base, const struct util_opt *o, const char *flag, const char *v,
                        char *err, size_t errlen)
{
    struct bench_runner_run *r = base;
    int w;
    if (r->pg.nscripts == BENCH_RUNNER_MAX_SCRIPTS)
        return util_errf(err, errlen, "--%s: at most %d scripts", o->name,
                         BENCH_RUNNER_MAX_SCRIPTS);
    char *name = weighted(o, flag, v, &w, err, errlen);
    if (!name)
        return -EINVAL;
    own_put(r, name);
    r->script_buf[r->pg.nscripts].path = name;
    r->script_buf[r->pg.nscripts].weight = w;
    r->pg.nscripts++;
    r->pg.scripts = r->script_buf;
    return 0;
}

struct pstate {
    const struct cmd_desc *d;
    struct bench_runner_fio *f; /* fio */
    int cur;                    /* fio: the current job, -1 before the first */
    bool touched[BENCH_RUNNER_MAX_FIO_JOBS];
};

/* A word before "--": the extra arguments go after it. */
static int stray_word(void *ctx, const char *word, char *err, size_t errlen)
{
    const struct pstate *st = ctx;
    return util_errf(err, errlen, "unexpected argument %s (%s go after --)", word,
                     st->d->extra_what);
}

/* fio: the job an option applies to, starting a new one on --job or on the first job option
 * (--job right after an untouched, unnamed job reuses it). */
static int fio_job_base(void *ctx, const struct util_opt *o, void **base, char *err, size_t errlen)
{
    struct pstate *st = ctx;
    if (!job_row(o))
        return 0;
    bool is_job = (o->tag & BENCH_RT_NEW_JOB) != 0;
    if (is_job || st->cur < 0) {
        if (!(is_job && st->cur >= 0 && !st->touched[st->cur] && !st->f->job_buf[st->cur].name)) {
            if (st->cur + 1 >= BENCH_RUNNER_MAX_FIO_JOBS)
                return util_errf(err, errlen, "at most %d fio jobs", BENCH_RUNNER_MAX_FIO_JOBS);
            st->cur++;
        }
    }
    if (!is_job)
        st->touched[st->cur] = true;
    *base = &st->f->job_buf[st->cur];
    return 0;
}

/* fio: the jobs given, named job<i> where they have no name. */
static int finish_fio(struct pstate *st, char *err, size_t errlen)
{
    struct bench_runner_fio *f = st->f;
    if (st->cur < 0) {
        /* "no fio job given (--rw, --bs, ...)": the job options from the table */
        struct buf b = BUF_INIT(0);
        const struct cmd_desc *d = desc(BENCH_RUNNER_FIO);
        size_t listed = 0;
        for (size_t i = 0; i < d->nrows && listed < 3; i++) {
            const struct util_opt *o = &d->rows[i];
            if (!job_row(o) || (o->tag & BENCH_RT_NEW_JOB) || is_job_name_row(o))
                continue;
            (void)buf_printf(&b, "%s--%s", listed ? ", " : "", o->name);
            listed++;
        }
        (void)util_errf(err, errlen, "no fio job given (%s ...)", b.data ? b.data : "");
        buf_free(&b);
        return -EINVAL;
    }
    for (int i = 0; i <= st->cur; i++) {
        if (!f->job_buf[i].name) {
            (void)snprintf(f->default_names[i], sizeof(f->default_names[i]), "job%d", i);
            f->job_buf[i].name = f->default_names[i];
        }
    }
    f->fio.jobs = f->job_buf;
    f->fio.njobs = (size_t)st->cur + 1;
    return 0;
}

int bench_runner_parse(enum bench_runner_cmd cmd, int argc, char **argv, void *args, char *err,
                       size_t errlen)
{
    const struct cmd_desc *d = desc(cmd);
    bench_runner_defaults(cmd, args);
    struct util_opt_set set = {d->rows, d->nrows, args};
    struct pstate st = {.d = d, .f = args, .cur = -1};
    struct util_opt_parse p = {
        .sets = &set, .nsets = 1, .abbrev = true, .word = stray_word, .ctx = &st};
    if (cmd == BENCH_RUNNER_FIO) {
        p.unknown = unknown_fio;
        p.before = fio_job_base;
    }
    int rc = util_opt_parse(&p, argc, argv, err, errlen);
    if (rc == UTIL_OPT_HELP)
        return BENCH_RUNNER_HELP;
    if (rc)
        goto out;
    *FIELD(args, d->extra_off, const char *const *) = (const char *const *)(argv + p.next);
    *FIELD(args, d->nextra_off, size_t) = (size_t)(argc - p.next);
    if (cmd == BENCH_RUNNER_FIO)
        rc = finish_fio(&st, err, errlen);
out:
    if (rc < 0)
        bench_runner_cleanup(cmd, args);
    return rc;
}

void bench_runner_cleanup(enum bench_runner_cmd cmd, void *args)
{
    check_struct(cmd, args);
    if (cmd == BENCH_RUNNER_PGBENCH_RUN) {
        struct bench_runner_run *r = args;
        for (size_t i = 0; i < r->owned.n; i++)
            free(r->owned.s[i]);
    }
    bench_runner_defaults(cmd, args);
}

/* ---------------------------------------------------------------------------------------------
 * Usage
 * ------------------------------------------------------------------------------------------- */

char *bench_runner_usage(enum bench_runner_cmd cmd, bool detailed)
{
    const struct cmd_desc *d = desc(cmd);
    struct buf b = BUF_INIT(0);
    char prefix[64];
    (void)snprintf(prefix, sizeof(prefix), "%s%s", detailed ? "usage: pgbench-runner " : "  ",
                   d->words);
    struct util_opt_set set = {d->rows, d->nrows, NULL};
    (void)util_opt_synopsis(&b, prefix, &set, 1, d->extra_usage);
    for (size_t i = 0; i < d->nrows; i++) /* fio: what --job does */
        if (d->rows[i].tag & BENCH_RT_NEW_JOB)
            (void)buf_printf(&b, "%*s(--%s %s: %s)\n", (int)strlen(prefix) + 1, "", d->rows[i].name,
                             d->rows[i].metavar, d->rows[i].help);
    if (detailed) {
        (void)buf_puts(&b, "\n");
        (void)util_opt_help(&b, &set, 1);
    }
    return buf_steal(&b);
}

char *bench_runner_conn_usage(void)
{
    const struct cmd_desc *d = desc(BENCH_RUNNER_PGBENCH_RUN);
    struct buf b = BUF_INIT(0);
    for (size_t i = 0; i < d->nrows; i++)
        if (d->rows[i].flags & UTIL_OPT_BRIEF)
            (void)buf_printf(&b, "%s--%s %s", b.len ? " " : "", d->rows[i].name,
                             d->rows[i].metavar);
    return buf_steal(&b);
}
