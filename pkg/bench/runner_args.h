/* The runner's command line: the one contract between the operator, which builds it, and
 * pgbench-runner, which parses it.
 *
 * One table per subcommand (pgbench init, pgbench run, fio) names each runner flag once: long
 * name, type and range, default, the struct field it fills and its help text (pkg/util/opt.h
 * rows). Everything else comes from that table: the builder the operator's manifests use
 * (bench_runner_build), the runner's parser (bench_runner_parse, util_opt_parse over the rows),
 * the default values, the usage text, and the range errors ("--clients \"0\": expected an
 * integer 1..100000"). No runner flag is spelled anywhere else.
 *
 * Each subcommand fills its own struct below, which embeds the options of the tool it drives
 * (bench_pgbench_init_opts, bench_pgbench_run_opts, bench_fio_opts), so the parsed flags are the
 * very fields the tool's command line is built from. A struct is always prepared with
 * bench_runner_defaults() (bench_runner_parse does it), which records the subcommand in it;
 * build and parse abort when handed the struct of another subcommand. */
#ifndef PGBO_BENCH_RUNNER_ARGS_H
#define PGBO_BENCH_RUNNER_ARGS_H

#include "pkg/bench/argv.h"
#include "pkg/bench/fio.h"
#include "pkg/bench/pgbench.h"
#include "pkg/bench/conninfo.h"
#include "pkg/util/opt.h"

#include <stdbool.h>
#include <stddef.h>

enum bench_runner_cmd {
    BENCH_RUNNER_PGBENCH_INIT = 1, /* pgbench-runner pgbench init */
    BENCH_RUNNER_PGBENCH_RUN,      /* pgbench-runner pgbench run */
    BENCH_RUNNER_FIO,              /* pgbench-runner fio */
};
#define BENCH_RUNNER_NCMDS 3

/* Flags of every subcommand that connects to PostgreSQL. The connection flags fill conn (its
 * host ... sslrootcert; appname, connect_timeout_s and cancel are not flags), which the runner
 * exports as PGHOST ... so that libpq in the runner and the pgbench child agree; NULL = from the
 * libpq environment. There is no password flag on purpose. */
struct bench_runner_common {
    struct bench_conninfo conn;
    double wait_timeout_s; /* readiness wait; default 120 */
    /* NULL: the wait counts from the runner's start. Else an RFC 3339 time (the BenchmarkRun's
     * creationTimestamp) it counts from by this node's clock, ending BENCH_WAIT_REPORT_S early
     * so that the failure reaches the run's status within the window; the time spent is clamped
     * to 0..wait_timeout_s (a clock behind gives the whole window, one ahead at least one try). */
    const char *wait_from;
    bool create_database; /* create the database when it is missing */
};

/* With --wait-from, how long before the window's end the runner stops retrying: the time its
 * failure takes to become the run's status (pod terminated, result read, status written). */
#define BENCH_WAIT_REPORT_S 2.0

/* How often (ms) a run Job's runner reads BENCH_START_AT_FILE until it holds the start barrier
 * (env BENCH_START_POLL_MS overrides); the operator's start margin counts one such interval. */
#define BENCH_START_POLL_MS 20
#define BENCH_RUNNER_MAX_SCRIPTS 64
#define BENCH_RUNNER_MAX_FIO_JOBS 64

struct bench_runner_init {
    enum bench_runner_cmd cmd;         /* set by bench_runner_defaults */
    struct bench_pgbench_init_opts pg; /* scale, foreign_keys, partitions; extra_args after -- */
    bool skip_if_initialized;
    struct bench_runner_common common;
};

struct bench_runner_run {
    enum bench_runner_cmd cmd;
    /* clients ... progress_s; scripts/nscripts and extra_args (after --). After parsing,
     * pg.scripts points into script_buf and pg.builtin / the script paths are owned copies
     * (bench_runner_cleanup frees them): do not copy a parsed struct and use the copy after
     * the original is gone. pgbench_path, host/port/user/dbname, log_dir and pgbench_major are
     * not runner flags and stay zero. */
    struct bench_pgbench_run_opts pg;
    bool wait_events, server_settings, replica_lag;
    double replica_timeout_s; /* default 300 */
    double warmup_s;          /* warm-up cut in seconds after pgbench started; 0 = none */
    struct bench_runner_common common;
    /* parser storage */
    struct bench_pgbench_script script_buf[BENCH_RUNNER_MAX_SCRIPTS];
    struct {
        char *s[BENCH_RUNNER_MAX_SCRIPTS + 1];
        size_t n;
    } owned;
};

struct bench_runner_fio {
    enum bench_runner_cmd cmd;
    /* directory, jobs/njobs and extra_args (after --). After parsing, fio.jobs points into
     * job_buf; jobs without a name are named job<i> (default_names). fio_path stays NULL. */
    struct bench_fio_opts fio;
    /* parser storage */
    struct bench_fio_job_opts job_buf[BENCH_RUNNER_MAX_FIO_JOBS];
    char default_names[BENCH_RUNNER_MAX_FIO_JOBS][16];
};

/* ---------------------------------------------------------------------------------------------
 * The tables
 * ------------------------------------------------------------------------------------------- */

/* The rows are pkg/util/opt.h's (type, range, default, metavar, help; UTIL_OPT_REQUIRED,
 * UTIL_OPT_ONE_OF, and UTIL_OPT_BRIEF with group "connection" for the connection flags). The
 * runner's own marks are in the rows' tag: */
enum {
    BENCH_RT_JOB = 1 << 0,      /* fio: the field is in the current struct bench_fio_job_opts */
    BENCH_RT_NEW_JOB = 1 << 1,  /* fio --job NAME: starts another job named NAME */
    BENCH_RT_WEIGHTED = 1 << 2, /* NAME[@W] (CALL): const char * field at off (owned copy), int
                                   weight at off_n (BENCH_PGBENCH_UNSET = no @W given; @0 is a
                                   weight) */
    BENCH_RT_SCRIPTS = 1 << 3,  /* FILE[@W], repeatable (CALL): a const struct
                                   bench_pgbench_script * field at off, its size_t count at
                                   off_n */
};

/* The rows of a subcommand, in the order the builder emits them. */
const struct util_opt *bench_runner_table(enum bench_runner_cmd cmd, size_t *n);
/* "pgbench run" */
const char *bench_runner_words(enum bench_runner_cmd cmd);
/* sizeof the subcommand's struct. */
size_t bench_runner_struct_size(enum bench_runner_cmd cmd);
/* "clients" (the long name, without "--"): the flag that fills the field at `off`, an offsetof in
 * the subcommand's struct (not a fio job field). Aborts when no row fills that field (a
 * programming error). For messages that name a flag outside the parser. */
const char *bench_runner_flag(enum bench_runner_cmd cmd, size_t off);

/* ---------------------------------------------------------------------------------------------
 * Builder, parser, usage
 * ------------------------------------------------------------------------------------------- */

/* Zeroes *args (a struct bench_runner_init / _run / _fio matching cmd) and sets every field to
 * its row's default. */
void bench_runner_defaults(enum bench_runner_cmd cmd, void *args);

/* Appends the runner's arguments after the program name: the subcommand words ("pgbench",
 * "run"), then every field that differs from its row's default as "--flag" or "--flag VALUE",
 * in table order, then "--" and the extra arguments when there are any. fio: --directory, then
 * job 0's fields (its name as --name), then for every further job "--job NAME" and its fields.
 * Numbers are written so that they parse back to the same value. The builder does not range-
 * check: the parser does, and the operator's spec validation keeps fields inside the ranges
 * (test_manifest checks that). Cannot fail (allocation failure aborts, pkg/util/mem.h);
 * bench_argv_free out as usual. */
void bench_runner_build(enum bench_runner_cmd cmd, const void *args, struct bench_argv *out);

/* Parses the runner's arguments into *args (defaults first). argv[0] is the last subcommand
 * word ("init", "run", "fio"); options start at argv[1]; the extra arguments follow "--" and are
 * borrowed from argv. Prints nothing.
 * Returns 0; BENCH_RUNNER_HELP when --help is met (the options after it are not read); -EINVAL with
 * the message in err for a value out of range or missing, a missing required flag or a stray
 * argument; -ENOENT for an unknown option (the message names it). On an error the owned strings
 * are already freed; on 0 or HELP call bench_runner_cleanup. */
#define BENCH_RUNNER_HELP 1
int bench_runner_parse(enum bench_runner_cmd cmd, int argc, char **argv, void *args, char *err,
                       size_t errlen);
/* Frees what the parser allocated (builtin name, script paths); the struct is left at its
 * defaults. Safe on a struct from bench_runner_defaults. */
void bench_runner_cleanup(enum bench_runner_cmd cmd, void *args);

/* Usage text, malloc'd (allocation failure aborts). With detailed, the synopsis followed by
 * one line per flag with its help; else only the synopsis (for the program's overview). The
 * connection flags are abbreviated to "[connection flags]"; bench_runner_conn_usage lists them. */
char *bench_runner_usage(enum bench_runner_cmd cmd, bool detailed);
/* "--host H --port P ...": the connection flags of the pgbench subcommands, malloc'd. */
char *bench_runner_conn_usage(void);

#endif
