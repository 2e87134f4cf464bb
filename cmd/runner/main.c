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

/* The overview: the synopsis of each subcommand comes from the runner's flag table
 * (pkg/bench/runner_args.h); `pgbench-runner <command> --help` lists every flag. */
static void usage(FILE *f)
{
    static const enum bench_runner_cmd cmds[] = {BENCH_RUNNER_PGBENCH_INIT,
                                                 BENCH_RUNNER_PGBENCH_RUN, BENCH_RUNNER_FIO};
    (void)fputs(
        "usage: pgbench-runner [--log-level debug|info|warn|error] [--log-format json|text] "
        "<command>\n\ncommands:\n",
        f);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char *u = bench_runner_usage(cmds[i], false);
        if (!u)
            abort();
        (void)fputs(u, f);
        free(u);
    }
    char *conn = bench_runner_conn_usage();
    if (!conn)
        abort();
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
        "  every 100 ms until it holds the barrier, RFC 3339 or Unix time), BENCH_DEADLINE_AT\n"
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

static int cmd_parse_pgbench(int argc, char **argv)
{
    static const struct option opts[] = {
        {"log", required_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *logs[256];
    size_t nlogs = 0;
    double start = util_wall_s();
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "+l:h", opts, NULL)) != -1) {
        switch (c) {
        case 'l':
            if (nlogs == sizeof(logs) / sizeof(logs[0]))
                return runner_fail("pgbench", BENCH_EXIT_USAGE, start, "too many --log files");
            logs[nlogs++] = optarg;
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
    char *text = NULL;
    size_t len = 0;
    int rc = runner_read_stdin((size_t)256 << 20, &text, &len);
    if (rc)
        return runner_fail("pgbench", BENCH_EXIT_USAGE, start, "reading stdin: %s", strerror(-rc));
    struct bench_pgbench_result *pg = NULL;
    rc = bench_pgbench_parse(text, len, &pg);
    free(text);
    if (rc)
        return runner_fail("pgbench", BENCH_EXIT_USAGE, start, "parse: %s", strerror(-rc));

    struct bench_txlog *tl = NULL;
    char logerr[512] = "";
    if (nlogs) {
        tl = bench_txlog_new();
        if (!tl)
            abort();
        tl->rate_limited = !isnan(pg->rate_lag_avg_ms); /* -R: the extra column is the lag */
        for (size_t i = 0; i < nlogs; i++) {
            struct stat st;
            if (stat(logs[i], &st) == 0 && S_ISDIR(st.st_mode))
                rc = bench_txlog_read_dir(tl, logs[i], NULL, NULL);
            else
                rc = bench_txlog_read_file(tl, logs[i]);
            if (rc) {
                (void)snprintf(logerr, sizeof(logerr), "cannot read transaction log %s: %s",
                               logs[i], strerror(-rc));
                break;
            }
        }
    }
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
    if (!r)
        abort();
    if (bench_result_add_pgbench(r, pg, tl && bench_hist_count(tl->hist) ? tl->hist : NULL, NULL))
        abort();
    if (logerr[0])
        (void)bench_result_add_error(r, logerr);
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
    if (!r || bench_result_add_fio(r, fio) || bench_result_add_fio_errors(r, fio))
        abort();
    runner_emit(r);
    cJSON_Delete(r);
    bench_fio_result_free(fio);
    return exit_code;
}

int main(int argc, char **argv)
{
    int i = 1;
    const char *fmt = getenv("BENCH_LOG_FORMAT");
    const char *lvl = getenv("BENCH_LOG_LEVEL");
    while (i < argc && argv[i][0] == '-') {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--log-level") == 0 && i + 1 < argc) {
            lvl = argv[i + 1];
            i += 2;
        } else if (strcmp(argv[i], "--log-format") == 0 && i + 1 < argc) {
            fmt = argv[i + 1];
            i += 2;
        } else {
            (void)fprintf(stderr, "pgbench-runner: unknown option %s\n", argv[i]);
            usage(stderr);
            return BENCH_EXIT_USAGE;
        }
    }
    if (lvl) {
        enum log_level l;
        if (log_level_parse(lvl, &l) != 0) {
            (void)fprintf(stderr, "pgbench-runner: bad log level %s\n", lvl);
            return BENCH_EXIT_USAGE;
        }
        log_set_level(l);
    }
    if (fmt) {
        if (strcmp(fmt, "text") == 0) {
            log_set_format(LOG_FORMAT_TEXT);
        } else if (strcmp(fmt, "json") != 0) {
            (void)fprintf(stderr, "pgbench-runner: bad log format %s\n", fmt);
            return BENCH_EXIT_USAGE;
        }
    }
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
    if (strcmp(cmd, "pgbench") == 0 && sub && strcmp(sub, "init") == 0)
        return runner_cmd_pgbench_init(argc - i - 1, argv + i + 1);
    if (strcmp(cmd, "pgbench") == 0 && sub && strcmp(sub, "run") == 0)
        return runner_cmd_pgbench_run(argc - i - 1, argv + i + 1);
    if (strcmp(cmd, "fio") == 0)
        return runner_cmd_fio(argc - i, argv + i);
    if (strcmp(cmd, "parse") == 0 && sub && strcmp(sub, "pgbench") == 0)
        return cmd_parse_pgbench(argc - i - 1, argv + i + 1);
    if (strcmp(cmd, "parse") == 0 && sub && strcmp(sub, "fio") == 0)
        return cmd_parse_fio(argc - i - 1, argv + i + 1);
    (void)fprintf(stderr, "pgbench-runner: unknown command %s%s%s\n", cmd, sub ? " " : "",
                  sub ? sub : "");
    usage(stderr);
    return BENCH_EXIT_USAGE;
}
