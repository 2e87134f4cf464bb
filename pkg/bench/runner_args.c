/* The runner's command line: the flag tables and everything generated from them (builder,
 * parser, defaults, usage). */
#include "pkg/bench/runner_args.h"
#include "pkg/util/buf.h"
#include "pkg/util/err.h"
#include "pkg/util/mem.h"

#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * The tables: one row per runner flag
 * ------------------------------------------------------------------------------------------- */

/* The flags of every subcommand that connects, spelled once and expanded into the init and run
 * tables (T is the subcommand's struct; both hold a `struct bench_runner_common common`). */
#define COMMON_ROWS(T)                                                                             \
    {.name = "wait-timeout",                                                                       \
     .kind = BENCH_RK_DOUBLE,                                                                      \
     .off = offsetof(T, common.wait_timeout_s),                                                    \
     .lo = 0,                                                                                      \
     .hi = 86400,                                                                                  \
     .dflt = 120,                                                                                  \
     .metavar = "S",                                                                               \
     .expect = "seconds 0..86400",                                                                 \
     .help = "retry refused/DNS/timeout/starting-up connections this long"},                       \
        {.name = "create-database",                                                                \
         .kind = BENCH_RK_FLAG,                                                                    \
         .off = offsetof(T, common.create_database),                                               \
         .help = "create the database when it is missing (connects to \"postgres\")"},             \
        {.name = "host",                                                                           \
         .kind = BENCH_RK_STRING,                                                                  \
         .flags = BENCH_RF_CONN,                                                                   \
         .off = offsetof(T, common.conn.host),                                                     \
         .metavar = "H",                                                                           \
         .help = "server host (PGHOST)"},                                                          \
        {.name = "port",                                                                           \
         .kind = BENCH_RK_STRING,                                                                  \
         .flags = BENCH_RF_CONN,                                                                   \
         .off = offsetof(T, common.conn.port),                                                     \
         .metavar = "P",                                                                           \
         .help = "server port (PGPORT)"},                                                          \
        {.name = "dbname",                                                                         \
         .kind = BENCH_RK_STRING,                                                                  \
         .flags = BENCH_RF_CONN,                                                                   \
         .off = offsetof(T, common.conn.dbname),                                                   \
         .metavar = "D",                                                                           \
         .help = "database (PGDATABASE)"},                                                         \
        {.name = "user",                                                                           \
         .kind = BENCH_RK_STRING,                                                                  \
         .flags = BENCH_RF_CONN,                                                                   \
         .off = offsetof(T, common.conn.user),                                                     \
         .metavar = "U",                                                                           \
         .help = "user (PGUSER); the password only from PGPASSWORD or PGPASSFILE"},                \
        {.name = "sslmode",                                                                        \
         .kind = BENCH_RK_STRING,                                                                  \
         .flags = BENCH_RF_CONN,                                                                   \
         .off = offsetof(T, common.conn.sslmode),                                                  \
         .metavar = "M",                                                                           \
         .help = "TLS mode (PGSSLMODE)"},                                                          \
    {                                                                                              \
        .name = "sslrootcert", .kind = BENCH_RK_STRING, .flags = BENCH_RF_CONN,                    \
        .off = offsetof(T, common.conn.sslrootcert), .metavar = "FILE",                            \
        .help = "CA certificate (PGSSLROOTCERT)"                                                   \
    }

#define INIT_F(f) offsetof(struct bench_runner_init, f)
static const struct bench_runner_opt init_rows[] = {
    {.name = "scale",
     .kind = BENCH_RK_INT,
     .flags = BENCH_RF_REQUIRED,
     .off = INIT_F(pg.scale),
     .lo = 1,
     .hi = 1000000,
     .metavar = "N",
     .help = "scale factor (pgbench -i -s)"},
    {.name = "foreign-keys",
     .kind = BENCH_RK_FLAG,
     .off = INIT_F(pg.foreign_keys),
     .help = "create foreign keys between the tables"},
    {.name = "partitions",
     .kind = BENCH_RK_INT,
     .off = INIT_F(pg.partitions),
     .lo = 0,
     .hi = 100000,
     .metavar = "N",
     .help = "partition pgbench_accounts into N partitions"},
    {.name = "generation",
     .kind = BENCH_RK_STRING,
     .off = INIT_F(pg.generation),
     .metavar = "server|client",
     .help = "generate the data in the server (step G, pgbench >= 13) or in pgbench (g, COPY); "
             "default server where pgbench has it"},
    {.name = "init-steps",
     .kind = BENCH_RK_STRING,
     .off = INIT_F(pg.steps),
     .metavar = "STEPS",
     .help = "pgbench -I: 1 to 32 of d t g G v p f, instead of the generation's default"},
    {.name = "fillfactor",
     .kind = BENCH_RK_INT,
     .off = INIT_F(pg.fillfactor),
     .lo = 10,
     .hi = 100,
     .dflt = 0, /* not given: pgbench's 100 */
     .metavar = "N",
     .help = "fill factor of the tables, 10..100 (pgbench -F)"},
    {.name = "unlogged-tables",
     .kind = BENCH_RK_FLAG,
     .off = INIT_F(pg.unlogged_tables),
     .help = "create the tables unlogged (pgbench --unlogged-tables)"},
    {.name = "tablespace",
     .kind = BENCH_RK_STRING,
     .off = INIT_F(pg.tablespace),
     .metavar = "NAME",
     .help = "tablespace of the tables (pgbench --tablespace)"},
    {.name = "index-tablespace",
     .kind = BENCH_RK_STRING,
     .off = INIT_F(pg.index_tablespace),
     .metavar = "NAME",
     .help = "tablespace of the indexes (pgbench --index-tablespace)"},
    {.name = "skip-if-initialized",
     .kind = BENCH_RK_FLAG,
     .off = INIT_F(skip_if_initialized),
     .help = "skip when the pgbench tables exist complete with this scale and partitions"},
    COMMON_ROWS(struct bench_runner_init),
};

#define RUN_F(f) offsetof(struct bench_runner_run, f)
static const struct bench_runner_opt run_rows[] = {
    {.name = "clients",
     .kind = BENCH_RK_INT,
     .flags = BENCH_RF_REQUIRED,
     .off = RUN_F(pg.clients),
     .lo = 1,
     .hi = 100000,
     .metavar = "N",
     .help = "clients (pgbench -c); BENCH_CLIENTS_BY_INDEX overrides it per worker"},
    {.name = "threads",
     .kind = BENCH_RK_INT,
     .off = RUN_F(pg.threads),
     .lo = 1,
     .hi = 10000,
     .dflt = 1,
     .metavar = "N",
     .help = "threads (pgbench -j), capped at the clients"},
    {.name = "duration",
     .kind = BENCH_RK_INT,
     .flags = BENCH_RF_ONE_OF,
     .off = RUN_F(pg.duration_s),
     .lo = 1,
     .hi = 2592000,
     .metavar = "S",
     .help = "run for S seconds (pgbench -T)"},
    {.name = "transactions",
     .kind = BENCH_RK_INT64,
     .flags = BENCH_RF_ONE_OF,
     .off = RUN_F(pg.transactions),
     .lo = 1,
     .hi = 2000000000,
     .metavar = "N",
     .help = "transactions per client (pgbench -t)"},
    {.name = "builtin",
     .kind = BENCH_RK_WEIGHTED,
     .off = RUN_F(pg.builtin),
     .off2 = RUN_F(pg.builtin_weight),
     .metavar = "NAME[@W]",
     .expect = "tpcb-like|simple-update|select-only[@WEIGHT]",
     .help = "builtin script tpcb-like|simple-update|select-only (pgbench -b); @0 = never "
             "chosen"},
    {.name = "script",
     .kind = BENCH_RK_SCRIPTS,
     .off = RUN_F(pg.scripts),
     .off2 = RUN_F(pg.nscripts),
     .metavar = "FILE[@W]",
     .expect = "FILE[@WEIGHT]",
     .help = "custom script (pgbench -f), repeatable; @0 = never chosen"},
    {.name = "protocol",
     .kind = BENCH_RK_PROTOCOL,
     .off = RUN_F(pg.protocol),
     .metavar = "simple|extended|prepared",
     .expect = "simple|extended|prepared",
     .help = "query protocol (pgbench -M)"},
    {.name = "rate",
     .kind = BENCH_RK_DOUBLE,
     .off = RUN_F(pg.rate),
     .lo = 0,
     .hi = 1e9,
     .metavar = "R",
     .help = "target transactions per second (pgbench -R), 0 = unthrottled"},
    {.name = "latency-limit",
     .kind = BENCH_RK_DOUBLE,
     .off = RUN_F(pg.latency_limit_ms),
     .lo = 0,
     .hi = 1e9,
     .metavar = "MS",
     .help = "count transactions above MS ms, skip late ones with --rate (pgbench -L)"},
    {.name = "no-vacuum",
     .kind = BENCH_RK_FLAG,
     .off = RUN_F(pg.no_vacuum),
     .help = "no vacuum before the run (pgbench -n)"},
    {.name = "connect",
     .kind = BENCH_RK_FLAG,
     .off = RUN_F(pg.connect),
     .help = "a new connection per transaction (pgbench -C)"},
    {.name = "max-tries",
     .kind = BENCH_RK_INT,
     .off = RUN_F(pg.max_tries),
     .lo = 0,
     .hi = 1000000,
     .dflt = BENCH_PGBENCH_UNSET, /* not given: pgbench's default (1) */
     .metavar = "N",
     .help = "tries of serialization/deadlock failures (pgbench >= 15 --max-tries); 0 = "
             "unlimited (needs --duration or --latency-limit); not given = pgbench's 1"},
    {.name = "failures-detailed",
     .kind = BENCH_RK_FLAG,
     .off = RUN_F(pg.failures_detailed),
     .help = "failures by kind (pgbench >= 15 --failures-detailed)"},
    {.name = "per-statement",
     .kind = BENCH_RK_FLAG,
     .off = RUN_F(pg.per_statement),
     .help = "per-statement latencies (pgbench -r)"},
    {.name = "progress",
     .kind = BENCH_RK_INT,
     .off = RUN_F(pg.progress_s),
     .lo = 1,
     .hi = 3600,
     .dflt = 1,
     .metavar = "S",
     .help = "timeline resolution (pgbench -P)"},
    {.name = "wait-events",
     .kind = BENCH_RK_FLAG,
     .off = RUN_F(wait_events),
     .help = "sample the load's wait events every second"},
    {.name = "server-settings",
     .kind = BENCH_RK_FLAG,
     .off = RUN_F(server_settings),
     .help = "report the server's settings"},
    {.name = "replica-lag",
     .kind = BENCH_RK_FLAG,
     .off = RUN_F(replica_lag),
     .help = "wait for the replicas to catch up before the run, sample their lag during it"},
    {.name = "replica-timeout",
     .kind = BENCH_RK_DOUBLE,
     .off = RUN_F(replica_timeout_s),
     .lo = 0,
     .hi = 86400,
     .dflt = 300,
     .metavar = "S",
     .help = "longest wait for the replicas to catch up"},
    {.name = "warmup",
     .kind = BENCH_RK_DOUBLE,
     .off = RUN_F(warmup_s),
     .lo = 0,
     .hi = 86400,
     .metavar = "S",
     .help = "leave the transactions of the first S seconds out of the summary and percentiles "
             "(taken from the -l log then); the timeline keeps them"},
    COMMON_ROWS(struct bench_runner_run),
};

#define FIO_F(f) offsetof(struct bench_runner_fio, f)
#define JOB_F(f) offsetof(struct bench_fio_job_opts, f)
#define FIO_COUNT "a non-negative integer"
static const struct bench_runner_opt fio_rows[] = {
    {.name = "directory",
     .kind = BENCH_RK_STRING,
     .flags = BENCH_RF_REQUIRED,
     .off = FIO_F(fio.directory),
     .metavar = "DIR",
     .help = "directory the jobs write their files in (the volume)"},
    {.name = "job",
     .kind = BENCH_RK_JOB,
     .metavar = "NAME",
     .help = "start another job; the options after it apply to that job"},
    {.name = "name",
     .kind = BENCH_RK_STRING,
     .flags = BENCH_RF_JOB,
     .off = JOB_F(name),
     .metavar = "NAME",
     .help = "name of the current job (default job<index>)"},
    {.name = "rw",
     .kind = BENCH_RK_STRING,
     .flags = BENCH_RF_JOB,
     .off = JOB_F(rw),
     .metavar = "MODE",
     .help = "read|write|randread|randwrite|rw|randrw"},
    {.name = "bs",
     .kind = BENCH_RK_STRING,
     .flags = BENCH_RF_JOB,
     .off = JOB_F(bs),
     .metavar = "B",
     .help = "block size, e.g. 8k"},
    {.name = "iodepth",
     .kind = BENCH_RK_INT,
     .flags = BENCH_RF_JOB,
     .off = JOB_F(iodepth),
     .lo = 0,
     .hi = 100000000,
     .metavar = "N",
     .expect = FIO_COUNT,
     .help = "I/Os in flight"},
    {.name = "numjobs",
     .kind = BENCH_RK_INT,
     .flags = BENCH_RF_JOB,
     .off = JOB_F(numjobs),
     .lo = 0,
     .hi = 100000000,
     .metavar = "N",
     .expect = FIO_COUNT,
     .help = "parallel clones of the job"},
    {.name = "size",
     .kind = BENCH_RK_STRING,
     .flags = BENCH_RF_JOB,
     .off = JOB_F(size),
     .metavar = "S",
     .help = "file size per clone, e.g. 1G"},
    {.name = "runtime",
     .kind = BENCH_RK_INT,
     .flags = BENCH_RF_JOB,
     .off = JOB_F(runtime_s),
     .lo = 0,
     .hi = 100000000,
     .metavar = "S",
     .expect = FIO_COUNT,
     .help = "seconds, time based; 0 = until size is done"},
    {.name = "direct",
     .kind = BENCH_RK_FLAG,
     .flags = BENCH_RF_JOB,
     .off = JOB_F(direct),
     .help = "O_DIRECT"},
    {.name = "ioengine",
     .kind = BENCH_RK_STRING,
     .flags = BENCH_RF_JOB,
     .off = JOB_F(ioengine),
     .metavar = "E",
     .help = "libaio|io_uring|psync|sync|posixaio"},
    {.name = "fsync",
     .kind = BENCH_RK_INT,
     .flags = BENCH_RF_JOB,
     .off = JOB_F(fsync),
     .lo = 0,
     .hi = 100000000,
     .metavar = "N",
     .expect = FIO_COUNT,
     .help = "fsync every N writes"},
    {.name = "fdatasync",
     .kind = BENCH_RK_INT,
     .flags = BENCH_RF_JOB,
     .off = JOB_F(fdatasync),
     .lo = 0,
     .hi = 100000000,
     .metavar = "N",
     .expect = FIO_COUNT,
     .help = "fdatasync every N writes"},
};

struct pstate; /* parser state, below */

struct cmd_desc {
    const char *words; /* "pgbench run" */
    const struct bench_runner_opt *rows;
    size_t nrows;
    size_t size;             /* of the subcommand's struct */
    size_t extra_off;        /* const char *const *extra_args */
    size_t nextra_off;       /* size_t nextra */
    const char *extra_usage; /* synopsis tail */
    const char *extra_what;  /* "unexpected argument X (<extra_what> go after --)" */
    /* message of an unknown or incomplete option */
    void (*unknown)(const struct cmd_desc *d, const char *arg, char *err, size_t errlen);
    /* checks after the options, before the required flags; 0 or -EINVAL */
    int (*finish)(void *args, struct pstate *st, char *err, size_t errlen);
};

static void unknown_pgbench(const struct cmd_desc *d, const char *arg, char *err, size_t errlen);
static void unknown_fio(const struct cmd_desc *d, const char *arg, char *err, size_t errlen);
static int finish_run(void *args, struct pstate *st, char *err, size_t errlen);
static int finish_fio(void *args, struct pstate *st, char *err, size_t errlen);

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
        .unknown = unknown_pgbench,
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
        .unknown = unknown_pgbench,
        .finish = finish_run,
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
        .unknown = unknown_fio,
        .finish = finish_fio,
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

const struct bench_runner_opt *bench_runner_table(enum bench_runner_cmd cmd, size_t *n)
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

static bool job_row(const struct bench_runner_opt *o)
{
    return (o->flags & BENCH_RF_JOB) || o->kind == BENCH_RK_JOB;
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
/* const after the type, so that a pointer type stays whole: CFIELD(b, o, const char *) is a
 * `const char *const *`, not a `const const char **`. */
#define CFIELD(base, off, type) ((type const *)(const void *)((const char *)(base) + (off)))

void bench_runner_defaults(enum bench_runner_cmd cmd, void *args)
{
    const struct cmd_desc *d = desc(cmd);
    memset(args, 0, d->size);
    *(enum bench_runner_cmd *)args = cmd;
    for (size_t i = 0; i < d->nrows; i++) {
        const struct bench_runner_opt *o = &d->rows[i];
        if (job_row(o)) /* per job: zero, which the fio builder reads as fio's default */
            continue;
        switch (o->kind) {
        case BENCH_RK_INT:
            *FIELD(args, o->off, int) = (int)o->dflt;
            break;
        case BENCH_RK_INT64:
            *FIELD(args, o->off, int64_t) = (int64_t)o->dflt;
            break;
        case BENCH_RK_DOUBLE:
            *FIELD(args, o->off, double) = o->dflt;
            break;
        case BENCH_RK_WEIGHTED: /* no name, no @W */
            *FIELD(args, o->off2, int) = BENCH_PGBENCH_UNSET;
            break;
        default: /* false, NULL, BENCH_PROTOCOL_DEFAULT, no scripts */
            break;
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Builder
 * ------------------------------------------------------------------------------------------- */

static void push_flag(struct bench_argv *out, const struct bench_runner_opt *o)
{
    bench_argv_pushf(out, "--%s", o->name);
}

static void push_weighted(struct bench_argv *out, const struct bench_runner_opt *o,
                          const char *name, int weight)
{
    push_flag(out, o);
    if (weight != BENCH_PGBENCH_UNSET)
        bench_argv_pushf(out, "%s@%d", name, weight);
    else
        bench_argv_push(out, name);
}

/* Appends one row's flag (and value) when its field at base differs from the default. */
static void build_row(struct bench_argv *out, const struct bench_runner_opt *o, const void *base)
{
    switch (o->kind) {
    case BENCH_RK_FLAG:
        if (*CFIELD(base, o->off, bool))
            push_flag(out, o);
        break;
    case BENCH_RK_INT: {
        int v = *CFIELD(base, o->off, int);
        if (v != (int)o->dflt) {
            push_flag(out, o);
            bench_argv_pushf(out, "%d", v);
        }
        break;
    }
    case BENCH_RK_INT64: {
        int64_t v = *CFIELD(base, o->off, int64_t);
        if (v != (int64_t)o->dflt) {
            push_flag(out, o);
            bench_argv_pushf(out, "%lld", (long long)v);
        }
        break;
    }
    case BENCH_RK_DOUBLE: {
        double v = *CFIELD(base, o->off, double);
        if (v != o->dflt) {
            push_flag(out, o);
            bench_argv_push_decimal(out, v);
        }
        break;
    }
    case BENCH_RK_STRING: {
        const char *v = *CFIELD(base, o->off, const char *);
        if (v) {
            push_flag(out, o);
            bench_argv_push(out, v);
        }
        break;
    }
    case BENCH_RK_PROTOCOL: {
        enum bench_protocol p = *CFIELD(base, o->off, enum bench_protocol);
        if (p != BENCH_PROTOCOL_DEFAULT) {
            push_flag(out, o);
            bench_argv_push(out, bench_protocol_name(p));
        }
        break;
    }
    case BENCH_RK_WEIGHTED: {
        const char *v = *CFIELD(base, o->off, const char *);
        if (v)
            push_weighted(out, o, v, *CFIELD(base, o->off2, int));
        break;
    }
    case BENCH_RK_SCRIPTS: {
        const struct bench_pgbench_script *s =
            *CFIELD(base, o->off, const struct bench_pgbench_script *);
        size_t n = *CFIELD(base, o->off2, size_t);
        for (size_t i = 0; i < n; i++)
            push_weighted(out, o, s[i].path, s[i].weight);
        break;
    }
    case BENCH_RK_JOB: /* written by the fio builder */
        break;
    }
}

static bool is_job_name_row(const struct bench_runner_opt *o)
{
    return (o->flags & BENCH_RF_JOB) && o->kind == BENCH_RK_STRING && o->off == JOB_F(name);
}

static void build_fio_jobs(const struct cmd_desc *d, const struct bench_runner_fio *f,
                           struct bench_argv *out)
{
    const struct bench_runner_opt *job = NULL;
    for (size_t i = 0; i < d->nrows; i++)
        if (d->rows[i].kind == BENCH_RK_JOB)
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
            const struct bench_runner_opt *o = &d->rows[i];
            if (!(o->flags & BENCH_RF_JOB) || (j > 0 && is_job_name_row(o)))
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

struct pstate {
    int cur; /* fio: the current job, -1 before the first */
    bool touched[BENCH_RUNNER_MAX_FIO_JOBS];
};

static void unknown_pgbench(const struct cmd_desc *d, const char *arg, char *err, size_t errlen)
{
    (void)util_errf(err, errlen, "bad option for %s (see --help): %s", d->words, arg);
}

static void unknown_fio(const struct cmd_desc *d, const char *arg, char *err, size_t errlen)
{
    (void)d;
    const char *name = arg;
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
        (void)util_errf(err, errlen, "unknown or incomplete fio option %s (see --help)", arg);
}

static int bad_value(const struct bench_runner_opt *o, const char *arg, char *err, size_t errlen)
{
    if (o->expect)
        return util_errf(err, errlen, "--%s: expected %s, got %s", o->name, o->expect, arg);
    if (o->kind == BENCH_RK_DOUBLE)
        return util_errf(err, errlen, "--%s: expected a number %g..%g, got %s", o->name, o->lo,
                         o->hi, arg);
    return util_errf(err, errlen, "--%s: expected an integer %lld..%lld, got %s", o->name,
                     (long long)o->lo, (long long)o->hi, arg);
}

static int parse_integer(const struct bench_runner_opt *o, const char *arg, long long *out,
                         char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    if (errno || *end || end == arg || (double)v < o->lo || (double)v > o->hi) {
        (void)bad_value(o, arg, err, errlen);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static char *weighted(const struct bench_runner_opt *o, const char *arg, int *weight, char *err,
                      size_t errlen)
{
    char *name = NULL;
    int w = 0;
    int rc = bench_weighted_parse(arg, &name, &w);
    if (rc) {
        (void)bad_value(o, arg, err, errlen);
        return NULL;
    }
    *weight = strchr(arg, '@') ? w : BENCH_PGBENCH_UNSET; /* @0 is a weight, honoured */
    return name;
}

static int set_value(const struct bench_runner_opt *o, void *base, const char *arg, char *err,
                     size_t errlen)
{
    long long v = 0;
    switch (o->kind) {
    case BENCH_RK_FLAG:
        *FIELD(base, o->off, bool) = true;
        return 0;
    case BENCH_RK_INT:
        if (parse_integer(o, arg, &v, err, errlen))
            return -EINVAL;
        *FIELD(base, o->off, int) = (int)v;
        return 0;
    case BENCH_RK_INT64:
        if (parse_integer(o, arg, &v, err, errlen))
            return -EINVAL;
        *FIELD(base, o->off, int64_t) = v;
        return 0;
    case BENCH_RK_DOUBLE: {
        char *end;
        double d = strtod(arg, &end);
        if (*end || end == arg || !(d >= o->lo) || !(d <= o->hi))
            return bad_value(o, arg, err, errlen);
        *FIELD(base, o->off, double) = d;
        return 0;
    }
    case BENCH_RK_STRING:
        *FIELD(base, o->off, const char *) = arg;
        return 0;
    case BENCH_RK_PROTOCOL:
        if (bench_protocol_parse(arg, FIELD(base, o->off, enum bench_protocol)))
            return bad_value(o, arg, err, errlen);
        return 0;
    default: /* WEIGHTED, SCRIPTS, JOB: owned strings or jobs, see parse_run_row / fio */
        abort();
    }
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

static int parse_run_row(const struct bench_runner_opt *o, struct bench_runner_run *r,
                         const char *arg, char *err, size_t errlen)
{
    int w;
    char *name;
    if (o->kind == BENCH_RK_WEIGHTED) {
        if (!(name = weighted(o, arg, &w, err, errlen)))
            return -EINVAL;
        const char **field = FIELD(r, o->off, const char *);
        own_drop(r, *field); /* a later --builtin replaces an earlier one */
        own_put(r, name);
        *field = name;
        *FIELD(r, o->off2, int) = w;
        return 0;
    }
    /* BENCH_RK_SCRIPTS */
    if (r->pg.nscripts == BENCH_RUNNER_MAX_SCRIPTS)
        return util_errf(err, errlen, "--%s: at most %d scripts", o->name,
                         BENCH_RUNNER_MAX_SCRIPTS);
    if (!(name = weighted(o, arg, &w, err, errlen)))
        return -EINVAL;
    own_put(r, name);
    r->script_buf[r->pg.nscripts].path = name;
    r->script_buf[r->pg.nscripts].weight = w;
    r->pg.nscripts++;
    r->pg.scripts = r->script_buf;
    return 0;
}

/* fio: the job an option applies to, starting a new one on --job or on the first job option
 * (as before the table: --job right after an untouched, unnamed job reuses it). */
static int parse_fio_row(const struct bench_runner_opt *o, struct bench_runner_fio *f,
                         struct pstate *st, const char *arg, char *err, size_t errlen)
{
    bool is_job = o->kind == BENCH_RK_JOB;
    if (is_job || st->cur < 0) {
        if (!(is_job && st->cur >= 0 && !st->touched[st->cur] && !f->job_buf[st->cur].name)) {
            if (st->cur + 1 >= BENCH_RUNNER_MAX_FIO_JOBS)
                return util_errf(err, errlen, "at most %d fio jobs", BENCH_RUNNER_MAX_FIO_JOBS);
            st->cur++;
        }
        if (is_job) {
            f->job_buf[st->cur].name = arg;
            return 0;
        }
    }
    st->touched[st->cur] = true;
    return set_value(o, &f->job_buf[st->cur], arg, err, errlen);
}

static int finish_run(void *args, struct pstate *st, char *err, size_t errlen)
{
    (void)st;
    (void)err;
    (void)errlen;
    struct bench_runner_run *r = args;
    if (r->pg.nscripts)
        r->pg.scripts = r->script_buf;
    return 0;
}

static int finish_fio(void *args, struct pstate *st, char *err, size_t errlen)
{
    struct bench_runner_fio *f = args;
    if (st->cur < 0) {
        /* "no fio job given (--rw, --bs, ...)": the job options from the table */
        struct buf b = BUF_INIT(0);
        const struct cmd_desc *d = desc(BENCH_RUNNER_FIO);
        size_t listed = 0;
        for (size_t i = 0; i < d->nrows && listed < 3; i++) {
            if (!(d->rows[i].flags & BENCH_RF_JOB) || is_job_name_row(&d->rows[i]))
                continue;
            (void)buf_printf(&b, "%s--%s", listed ? ", " : "", d->rows[i].name);
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

#define OPT_BASE 1000
#define OPT_HELP 999

int bench_runner_parse(enum bench_runner_cmd cmd, int argc, char **argv, void *args, char *err,
                       size_t errlen)
{
    const struct cmd_desc *d = desc(cmd);
    bench_runner_defaults(cmd, args);
    struct option *lo = util_xcalloc(d->nrows + 2, sizeof(*lo));
    bool *seen = util_xcalloc(d->nrows + 1, sizeof(*seen));
    for (size_t i = 0; i < d->nrows; i++) {
        lo[i].name = d->rows[i].name;
        lo[i].has_arg = d->rows[i].kind == BENCH_RK_FLAG ? no_argument : required_argument;
        lo[i].val = OPT_BASE + (int)i;
    }
    lo[d->nrows].name = "help";
    lo[d->nrows].val = OPT_HELP;

    struct pstate st = {.cur = -1};
    int rc = 0, c;
    optind = 0; /* glibc: start over, also after an earlier parse stopped early */
    opterr = 0; /* unknown options are explained in err, never printed */
    while ((c = getopt_long(argc, argv, "+:", lo, NULL)) != -1) {
        if (c == OPT_HELP) {
            rc = BENCH_RUNNER_HELP;
            goto out;
        }
        if (c < OPT_BASE || c >= OPT_BASE + (int)d->nrows) { /* '?' or ':' */
            d->unknown(d, argv[optind - 1], err, errlen);
            rc = -ENOENT;
            goto out;
        }
        const struct bench_runner_opt *o = &d->rows[c - OPT_BASE];
        seen[c - OPT_BASE] = true;
        if (cmd == BENCH_RUNNER_FIO && job_row(o))
            rc = parse_fio_row(o, args, &st, optarg, err, errlen);
        else if (o->kind == BENCH_RK_WEIGHTED || o->kind == BENCH_RK_SCRIPTS)
            rc = parse_run_row(o, args, optarg, err, errlen);
        else
            rc = set_value(o, args, optarg, err, errlen);
        if (rc)
            goto out;
    }
    if (optind < argc && strcmp(argv[optind - 1], "--") != 0) {
        rc = util_errf(err, errlen, "unexpected argument %s (%s go after --)", argv[optind],
                       d->extra_what);
        goto out;
    }
    *FIELD(args, d->extra_off, const char *const *) = (const char *const *)(argv + optind);
    *FIELD(args, d->nextra_off, size_t) = (size_t)(argc - optind);
    if (d->finish && (rc = d->finish(args, &st, err, errlen)) != 0)
        goto out;
    for (size_t i = 0; i < d->nrows; i++) {
        if ((d->rows[i].flags & BENCH_RF_REQUIRED) && !seen[i]) {
            rc = util_errf(err, errlen, "--%s is required", d->rows[i].name);
            goto out;
        }
    }
out:
    free(lo);
    free(seen);
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

#define USAGE_WIDTH 100

/* Appends a space and a token to the synopsis, or a new line indented by `indent` and the token
 * when the line would pass USAGE_WIDTH. */
static void token(struct buf *b, size_t *col, size_t indent, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void token(struct buf *b, size_t *col, size_t indent, const char *fmt, ...)
{
    char t[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t, sizeof(t), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    if (n < 0)
        abort();
    if (*col + 1 + (size_t)n > USAGE_WIDTH && *col > indent) {
        (void)buf_printf(b, "\n%*s", (int)indent, "");
        *col = indent;
    } else {
        (void)buf_puts(b, " ");
        (*col)++;
    }
    (void)buf_puts(b, t);
    *col += (size_t)n;
}

static void row_token(struct buf *b, size_t *col, size_t indent, const struct bench_runner_opt *o,
                      bool bracket)
{
    const char *rep = o->kind == BENCH_RK_SCRIPTS ? "..." : "";
    if (o->kind == BENCH_RK_FLAG)
        token(b, col, indent, bracket ? "[--%s]" : "--%s", o->name);
    else
        token(b, col, indent, bracket ? "[--%s %s]%s" : "--%s %s%s", o->name, o->metavar, rep);
}

static void synopsis(struct buf *b, const struct cmd_desc *d, const char *prefix)
{
    (void)buf_printf(b, "%s%s", prefix, d->words);
    size_t indent = strlen(prefix) + strlen(d->words) + 1;
    size_t col = indent - 1; /* just after the words */
    bool conn = false;
    for (size_t i = 0; i < d->nrows; i++) {
        const struct bench_runner_opt *o = &d->rows[i];
        if (o->flags & BENCH_RF_CONN) {
            if (!conn)
                token(b, &col, indent, "[connection flags]");
            conn = true;
            continue;
        }
        if (o->flags & BENCH_RF_ONE_OF) { /* (--a X | --b Y) */
            char alt[256] = "(";
            size_t n = 1;
            for (; i < d->nrows && (d->rows[i].flags & BENCH_RF_ONE_OF); i++)
                n += (size_t)snprintf(alt + n, sizeof(alt) - n, "%s--%s %s", n > 1 ? " | " : "",
                                      d->rows[i].name, d->rows[i].metavar);
            i--;
            token(b, &col, indent, "%s)", alt);
            continue;
        }
        row_token(b, &col, indent, o, !(o->flags & BENCH_RF_REQUIRED));
    }
    token(b, &col, indent, "%s", d->extra_usage);
    (void)buf_puts(b, "\n");
    for (size_t i = 0; i < d->nrows; i++) /* fio: what --job does */
        if (d->rows[i].kind == BENCH_RK_JOB)
            (void)buf_printf(b, "%*s(--%s %s: %s)\n", (int)indent, "", d->rows[i].name,
                             d->rows[i].metavar, d->rows[i].help);
}

static void describe(struct buf *b, const struct bench_runner_opt *o)
{
    char lhs[64];
    if (o->kind == BENCH_RK_FLAG)
        (void)snprintf(lhs, sizeof(lhs), "--%s", o->name);
    else
        (void)snprintf(lhs, sizeof(lhs), "--%s %s", o->name, o->metavar);
    if (strlen(lhs) > 28)
        (void)buf_printf(b, "  %s\n  %-28s %s", lhs, "", o->help);
    else
        (void)buf_printf(b, "  %-28s %s", lhs, o->help);
    if (o->kind == BENCH_RK_INT || o->kind == BENCH_RK_INT64)
        (void)buf_printf(b, " [%lld..%lld", (long long)o->lo, (long long)o->hi);
    else if (o->kind == BENCH_RK_DOUBLE)
        (void)buf_printf(b, " [%.15g..%.15g", o->lo, o->hi);
    /* a default outside the range stands for "not given" (the tool's own default) */
    if (o->kind == BENCH_RK_INT || o->kind == BENCH_RK_INT64 || o->kind == BENCH_RK_DOUBLE) {
        if (o->dflt != 0 && o->dflt >= o->lo && o->dflt <= o->hi)
            (void)buf_printf(b, ", default %.15g]", o->dflt);
        else
            (void)buf_puts(b, "]");
    }
    if (o->flags & BENCH_RF_REQUIRED)
        (void)buf_puts(b, " (required)");
    (void)buf_puts(b, "\n");
}

char *bench_runner_usage(enum bench_runner_cmd cmd, bool detailed)
{
    const struct cmd_desc *d = desc(cmd);
    struct buf b = BUF_INIT(0);
    synopsis(&b, d, detailed ? "usage: pgbench-runner " : "  ");
    if (detailed) {
        (void)buf_puts(&b, "\noptions:\n");
        for (size_t i = 0; i < d->nrows; i++)
            describe(&b, &d->rows[i]);
        (void)buf_printf(&b, "  %-28s %s\n", "--help", "this text");
    }
    return buf_steal(&b);
}

char *bench_runner_conn_usage(void)
{
    const struct cmd_desc *d = desc(BENCH_RUNNER_PGBENCH_RUN);
    struct buf b = BUF_INIT(0);
    for (size_t i = 0; i < d->nrows; i++)
        if (d->rows[i].flags & BENCH_RF_CONN)
            (void)buf_printf(&b, "%s--%s %s", b.len ? " " : "", d->rows[i].name,
                             d->rows[i].metavar);
    return buf_steal(&b);
}
