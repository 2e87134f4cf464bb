/* pgbench-runner: the program inside every client pod, also usable on its own against any
 * PostgreSQL. Drives the real pgbench / fio, watches the database through libpq while the load
 * runs, and prints one versioned JSON result as the last line of stdout.
 *
 * This file: global options, dispatch, usage, and the `parse` subcommands. The pgbench
 * subcommands are in pgbench.c, fio in fio.c, output helpers in output.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/runner/runner.h"
#include "pkg/bench/bench.h"
#include "pkg/bench/runner_args.h"
#include "pkg/util/buf.h"
#include "pkg/util/log.h"
#include "pkg/util/opt.h"
#include "pkg/util/clock.h"
#include "pkg/util/version.h"
#include "pkg/util/json.h"

/* The global flags, before the command (the environment's values are their defaults). */
struct globals {
    int level; /* enum log_level; -1: BENCH_LOG_LEVEL, else info */
    const char *format;
    bool version;
};

static const struct util_opt_enum levels[] = {
    {"debug", LOG_DEBUG}, {"info", LOG_INFO}, {"warn", LOG_WARN}, {"error", LOG_ERROR}, {NULL, 0}};
static const char *const formats[] = {"json", "text", NULL};

static const struct util_opt global_rows[] = {
    {.name = "log-level",
     .type = UTIL_OPT_ENUM,
     .off = offsetof(struct globals, level),
     .def = -1,
     .enums = levels,
     .metavar = "debug|info|warn|error",
     .help = "the least severe records logged (default BENCH_LOG_LEVEL, else info)"},
    {.name = "log-format",
     .type = UTIL_OPT_CHOICE,
     .off = offsetof(struct globals, format),
     .choices = formats,
     .metavar = "json|text",
     .help = "records as JSON lines or text (default BENCH_LOG_FORMAT, else json)"},
    {.name = "version",
     .type = UTIL_OPT_BOOL,
     .off = offsetof(struct globals, version),
     .help = "print the version and commit"},
};

/* `parse pgbench`'s flags. */
struct parse_flags {
    const char *logs[256];
    size_t nlogs;
};

static const struct util_opt parse_rows[] = {
    {.name = "log",
     .type = UTIL_OPT_STR,
     .flags = UTIL_OPT_MULTI,
     .off = offsetof(struct parse_flags, logs),
     .off_n = offsetof(struct parse_flags, nlogs),
     .max = 256,
     .metavar = "FILE|DIR",
     .help = "a pgbench -l transaction log, or a directory of them"},
};

/* The overview: the synopsis of the global flags and of each subcommand come from their tables
 * (the subcommands': pkg/bench/runner_args.h); `pgbench-runner <command> --help` lists every
 * flag. */
static void usage(FILE *f)
{
    static const enum bench_runner_cmd cmds[] = {BENCH_RUNNER_PGBENCH_INIT,
                                                 BENCH_RUNNER_PGBENCH_RUN, BENCH_RUNNER_FIO};
    struct buf b = BUF_INIT(0);
    (void)util_opt_synopsis(&b, "usage: pgbench-runner", global_rows, UTIL_OPT_N(global_rows),
                            "<command>");
    (void)buf_puts(&b, "\ncommands:\n");
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char *u = bench_runner_usage(cmds[i], false);
        (void)buf_puts(&b, u);
        free(u);
    }
    (void)util_opt_synopsis(&b, "  parse pgbench", parse_rows, UTIL_OPT_N(parse_rows),
                            "< console-output");
    (void)fputs(b.data, f);
    buf_free(&b);
    char *conn = bench_runner_conn_usage();
    (void)fprintf(
        f,
        "  parse fio < fio.json\n"
        "\n"
        "connection flags (default: the libpq environment PGHOST PGPORT PGDATABASE PGUSER "
        "PGSSLMODE\nPGSSLROOTCERT; the password only ever comes from PGPASSWORD or PGPASSFILE):\n"
        "  %s\n"
        "\n"
        "environment: BENCH_START_AT (Unix time barrier), else BENCH_START_AT_FILE (a file read\n"
        "  every 20 ms until it holds the barrier, RFC 3339 or Unix time), BENCH_DEADLINE_AT\n"
        "  (Unix time: pgbench run stops there, partial result), JOB_COMPLETION_INDEX (worker),\n"
        "  BENCH_TERMINATION_LOG (compact summary path, default /dev/termination-log), PGBENCH, "
        "FIO\n"
        "\n"
        "output: the result JSON (schemaVersion 1) is the last line of stdout; a summary goes to\n"
        "stderr. Exit codes: 0 ok, 1 usage/config error, 2 ran but incomplete, 3 target "
        "unreachable.\n"
        "`pgbench-runner <command> --help` lists the flags of a command.\n",
        conn);
    free(conn);
}

/* The usage on stderr after a refused flag: why, then the overview. */
static int refused(const char *err)
{
    (void)fprintf(stderr, "pgbench-runner: %s\n", err);
    usage(stderr);
    return BENCH_EXIT_USAGE;
}

/* `parse pgbench`'s flags: --log FILE|DIR (repeatable) into *pf. Returns -1 to go on, else the
 * exit code (after --help or a usage error). */
static int parse_pgbench_flags(int argc, char **argv, double start, struct parse_flags *pf)
{
    struct util_opt_set set = {parse_rows, UTIL_OPT_N(parse_rows), pf};
    struct util_opt_parse p = {.sets = &set, .nsets = 1, .abbrev = true};
    char err[512];
    util_opt_defaults(&set, 1);
    int rc = util_opt_parse(&p, argc, argv, err, sizeof(err));
    if (rc == UTIL_OPT_HELP) {
        usage(stdout);
        return 0;
    }
    if (rc == -ENOENT)
        return refused(err);
    if (rc)
        return runner_fail("pgbench", BENCH_EXIT_USAGE, start, "%s", err);
    if (p.next < argc)
        return runner_fail("pgbench", BENCH_EXIT_USAGE, start, "unexpected argument %s",
                           argv[p.next]);
    return -1;
}

/* The transaction logs (files or directories of them) into a histogram; NULL when there are
 * none. A log that cannot be read stops the reading with logerr set. */
static struct bench_txlog *read_txlogs(const char *const *logs, size_t nlogs, bool rate_limited,
                                       char *logerr, size_t n)
{
    if (!nlogs)
        return NULL;
    struct bench_txlog *tl = bench_txlog_new();
    tl->rate_limited = rate_limited; /* -R: the extra column is the lag */
    for (size_t i = 0; i < nlogs; i++) {
        struct stat st;
        int rc;
        if (stat(logs[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc = bench_txlog_read_dir(tl, logs[i], NULL, NULL);
        else
            rc = bench_txlog_read_file(tl, logs[i]);
        if (rc) {
            (void)snprintf(logerr, n, "cannot read transaction log %s: %s", logs[i], strerror(-rc));
            break;
        }
    }
    return tl;
}

static int cmd_parse_pgbench(int argc, char **argv)
{
    struct parse_flags pf;
    double start = util_wall_s();
    int rc = parse_pgbench_flags(argc, argv, start, &pf);
    if (rc >= 0)
        return rc;
    char *text = NULL;
    size_t len = 0;
    rc = runner_read_stdin((size_t)256 << 20, &text, &len);
    if (rc)
        return runner_fail("pgbench", BENCH_EXIT_USAGE, start, "reading stdin: %s", strerror(-rc));
    struct bench_pgbench_result *pg = bench_pgbench_parse(text, len);
    free(text);

    char logerr[512] = "";
    struct bench_txlog *tl =
        read_txlogs(pf.logs, pf.nlogs, !isnan(pg->rate_lag_avg_ms), logerr, sizeof(logerr));
    bool complete = pg->summary_seen && pg->aborted_clients == 0 && !pg->run_aborted;
    int exit_code = logerr[0] ? BENCH_EXIT_USAGE : complete ? BENCH_EXIT_OK : BENCH_EXIT_PARTIAL;
    struct bench_result_meta m = {
        .kind = "pgbench",
        .worker = runner_worker_index(),
        .start_time = 0,
        .end_time = 0,
        .exit_code = exit_code,
        .child_exit = -1,
        .complete = complete && !logerr[0],
    };
    cJSON *r = bench_result_new(&m);
    bench_result_add_pgbench(r, pg, tl && bench_hist_count(tl->hist) ? tl->hist : NULL, NULL);
    if (logerr[0])
        bench_result_add_error(r, logerr);
    runner_emit(r);
    cJSON_Delete(r);
    bench_txlog_free(tl);
    bench_pgbench_result_free(pg);
    return exit_code;
}

static int cmd_parse_fio(int argc, char **argv)
{
    double start = util_wall_s();
    struct util_opt_parse p = {0}; /* no flags but --help */
    char perr[512];
    int rc = util_opt_parse(&p, argc, argv, perr, sizeof(perr));
    if (rc == UTIL_OPT_HELP) {
        usage(stdout);
        return 0;
    }
    if (rc || p.next < argc)
        return runner_fail("fio", BENCH_EXIT_USAGE, start, "%s",
                           rc ? perr : "unexpected argument after --");
    char *text = NULL;
    size_t len = 0;
    rc = runner_read_stdin((size_t)64 << 20, &text, &len);
    if (rc)
        return runner_fail("fio", BENCH_EXIT_USAGE, start, "reading stdin: %s", strerror(-rc));
    struct bench_fio_result *fio = NULL;
    char err[512] = "";
    rc = bench_fio_parse(text, len, &fio, err, sizeof(err));
    free(text);
    if (rc)
        return runner_fail("fio", BENCH_EXIT_USAGE, start, "parse fio: %s",
                           err[0] ? err : strerror(-rc));
    bool complete = bench_fio_result_complete(fio);
    int exit_code = complete ? BENCH_EXIT_OK : BENCH_EXIT_PARTIAL;
    struct bench_result_meta m = {
        .kind = "fio",
        .worker = runner_worker_index(),
        .exit_code = exit_code,
        .child_exit = -1,
        .complete = complete,
    };
    cJSON *r = bench_result_new(&m);
    bench_result_add_fio(r, fio);
    bench_result_add_fio_errors(r, fio);
    runner_emit(r);
    cJSON_Delete(r);
    bench_fio_result_free(fio);
    return exit_code;
}

/* The global options before the command; *i is the index of the command. Returns -1 to go on,
 * else the exit code (after --help or a usage error). */
static int global_options(int argc, char **argv, int *i)
{
    struct globals g;
    struct util_opt_set set = {global_rows, UTIL_OPT_N(global_rows), &g};
    struct util_opt_parse p = {.sets = &set, .nsets = 1, .stop_at_word = true, .abbrev = true};
    char err[512];
    util_opt_defaults(&set, 1);
    int rc = util_opt_parse(&p, argc, argv, err, sizeof(err));
    if (rc == UTIL_OPT_HELP) {
        usage(stdout);
        return 0;
    }
    if (rc)
        return refused(err);
    if (g.version) {
        char line[256];
        (void)puts(util_version_line(line, sizeof(line), "pgbench-runner"));
        return 0;
    }
    *i = p.next;
    enum log_level l = LOG_INFO;
    const char *lvl = getenv("BENCH_LOG_LEVEL"), *fmt = g.format;
    if (g.level >= 0)
        l = (enum log_level)g.level;
    else if (lvl && log_level_parse(lvl, &l) != 0) {
        (void)fprintf(stderr, "pgbench-runner: bad log level %s\n", lvl);
        return BENCH_EXIT_USAGE;
    }
    if (g.level >= 0 || lvl)
        log_set_level(l);
    fmt = fmt ? fmt : getenv("BENCH_LOG_FORMAT");
    if (fmt && strcmp(fmt, "text") == 0) {
        log_set_format(LOG_FORMAT_TEXT);
    } else if (fmt && strcmp(fmt, "json") != 0) {
        (void)fprintf(stderr, "pgbench-runner: bad log format %s\n", fmt);
        return BENCH_EXIT_USAGE;
    }
    return -1;
}

/* The commands: "<cmd> [<sub>]"; sub NULL = any. The command's argv starts at sub when there is
 * one, else at cmd. */
static const struct {
    const char *cmd, *sub;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"pgbench", "init", runner_cmd_pgbench_init},
    {"pgbench", "run", runner_cmd_pgbench_run},
    {"fio", NULL, runner_cmd_fio},
    {"parse", "pgbench", cmd_parse_pgbench},
    {"parse", "fio", cmd_parse_fio},
};

int main(int argc, char **argv)
{
    util_json_init(); /* first: every cJSON call after it is total (json.h) */
    int i;
    int rc = global_options(argc, argv, &i);
    if (rc >= 0)
        return rc;
    if (i >= argc) {
        usage(stderr);
        return BENCH_EXIT_USAGE;
    }
    runner_install_early_signals();
    const char *cmd = argv[i];
    const char *sub = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++) {
        if (strcmp(cmd, commands[k].cmd) != 0)
            continue;
        if (!commands[k].sub)
            return commands[k].run(argc - i, argv + i);
        if (sub && strcmp(sub, commands[k].sub) == 0)
            return commands[k].run(argc - i - 1, argv + i + 1);
    }
    (void)fprintf(stderr, "pgbench-runner: unknown command %s%s%s\n", cmd, sub ? " " : "",
                  sub ? sub : "");
    usage(stderr);
    return BENCH_EXIT_USAGE;
}
