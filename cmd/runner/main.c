/* pgbench-runner: the program inside every client pod, also usable on its own against any
 * PostgreSQL. Drives the real pgbench / fio, watches the database through libpq while the load
 * runs, and prints one versioned JSON result as the last line of stdout.
 *
 * This file: global options, dispatch, usage, and the `parse` subcommands. The pgbench
 * subcommands are in pgbench.c, fio in fio.c, output helpers in output.c. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/runner/runner.h"
#include "pkg/bench/bench.h"
#include "pkg/bench/runner_args.h"
#include "pkg/util/log.h"
#include "pkg/util/clock.h"
#include "pkg/util/version.h"

/* The overview: the synopsis of each subcommand comes from the runner's flag table
 * (pkg/bench/runner_args.h); `pgbench-runner <command> --help` lists every flag. */
static void usage(FILE *f)
{
    static const enum bench_runner_cmd cmds[] = {BENCH_RUNNER_PGBENCH_INIT,
                                                 BENCH_RUNNER_PGBENCH_RUN, BENCH_RUNNER_FIO};
    (void)fputs(
        "usage: pgbench-runner [--log-level debug|info|warn|error] [--log-format json|text] "
        "<command>\n       pgbench-runner --version\n\ncommands:\n",
        f);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char *u = bench_runner_usage(cmds[i], false);
        (void)fputs(u, f);
        free(u);
    }
    char *conn = bench_runner_conn_usage();
    (void)fprintf(
        f,
        "  parse pgbench [--log FILE|DIR]... < console-output\n"
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

/* `parse pgbench`'s flags: --log FILE|DIR (repeatable) into logs. Returns -1 to go on, else the
 * exit code (after --help or a usage error). */
static int parse_pgbench_flags(int argc, char **argv, double start, const char **logs, size_t cap,
                               size_t *nlogs)
{
    static const struct option opts[] = {
        {"log", required_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "+l:h", opts, NULL)) != -1) {
        switch (c) {
        case 'l':
            if (*nlogs == cap)
                return runner_fail("pgbench", BENCH_EXIT_USAGE, start, "too many --log files");
            logs[(*nlogs)++] = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return BENCH_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return runner_fail("pgbench", BENCH_EXIT_USAGE, start, "unexpected argument %s",
                           argv[optind]);
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
    const char *logs[256];
    size_t nlogs = 0;
    double start = util_wall_s();
    int rc = parse_pgbench_flags(argc, argv, start, logs, sizeof(logs) / sizeof(logs[0]), &nlogs);
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
        read_txlogs(logs, nlogs, !isnan(pg->rate_lag_avg_ms), logerr, sizeof(logerr));
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
    if (argc > 1) {
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        return runner_fail("fio", BENCH_EXIT_USAGE, start, "unexpected argument %s", argv[1]);
    }
    char *text = NULL;
    size_t len = 0;
    int rc = runner_read_stdin((size_t)64 << 20, &text, &len);
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
    const char *fmt = getenv("BENCH_LOG_FORMAT");
    const char *lvl = getenv("BENCH_LOG_LEVEL");
    for (*i = 1; *i < argc && argv[*i][0] == '-'; *i += 2) {
        const char *a = argv[*i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            char line[256];
            (void)puts(util_version_line(line, sizeof(line), "pgbench-runner"));
            return 0;
        } else if (strcmp(a, "--log-level") == 0 && *i + 1 < argc) {
            lvl = argv[*i + 1];
        } else if (strcmp(a, "--log-format") == 0 && *i + 1 < argc) {
            fmt = argv[*i + 1];
        } else {
            (void)fprintf(stderr, "pgbench-runner: unknown option %s\n", a);
            usage(stderr);
            return BENCH_EXIT_USAGE;
        }
    }
    enum log_level l;
    if (lvl && log_level_parse(lvl, &l) != 0) {
        (void)fprintf(stderr, "pgbench-runner: bad log level %s\n", lvl);
        return BENCH_EXIT_USAGE;
    }
    if (lvl)
        log_set_level(l);
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
