/* `fio`: storage probe on a directory (the PVC mount) with the real fio, JSON parsed into the
 * result. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <uv.h>

#include "cmd/runner/child.h"
#include "cmd/runner/runner.h"
#include "pkg/bench/bench.h"
#include "pkg/util/buf.h"
#include "pkg/util/log.h"

#define MAX_JOBS 64

enum {
    F_DIRECTORY = 2000,
    F_JOB,
    F_NAME,
    F_RW,
    F_BS,
    F_IODEPTH,
    F_NUMJOBS,
    F_SIZE,
    F_RUNTIME,
    F_DIRECT,
    F_IOENGINE,
    F_FSYNC,
    F_FDATASYNC,
    F_HELP,
};

struct fio_run {
    uv_loop_t *loop;
    struct child child;
    uv_signal_t sigterm, sigint;
    struct buf out;
    struct buf err;
    int out_error;
    int signal;
    bool done;
};

static void fio_data(struct child *c, int stream, const char *data, size_t len, void *ctx)
{
    (void)c;
    struct fio_run *f = ctx;
    if (stream == 1) {
        if (!f->out_error)
            f->out_error = buf_append(&f->out, data, len);
        return;
    }
    if (f->err.len + len > 16384)
        buf_reset(&f->err);
    (void)buf_append(&f->err, data, len < 16384 ? len : 16384);
}

static void fio_done(struct child *c, void *ctx)
{
    (void)c;
    struct fio_run *f = ctx;
    f->done = true;
    uv_close((uv_handle_t *)&f->sigterm, NULL);
    uv_close((uv_handle_t *)&f->sigint, NULL);
    child_close(&f->child);
}

static void fio_signal(uv_signal_t *s, int signum)
{
    struct fio_run *f = s->data;
    f->signal = signum;
    log_warn("runner", "received signal %d, forwarding it to fio", signum);
    /* fio stops its jobs on SIGINT/SIGTERM and still prints its JSON */
    (void)child_kill(&f->child, signum);
}

static int add_result_error(const char *msg, void *ctx)
{
    return bench_result_add_error(ctx, msg);
}

static const char *const fio_usage =
    "usage: pgbench-runner fio --directory DIR [--job NAME] --rw MODE --bs B --iodepth N "
    "--numjobs N --size S --runtime S [--direct] [--ioengine E] [--fsync N] [--fdatasync N] "
    "[--name N] [-- --fio_option=value]\n"
    "--job NAME starts a new job; the options after it apply to that job.\n";

int runner_cmd_fio(int argc, char **argv)
{
    static const struct option opts[] = {
        {"directory", required_argument, NULL, F_DIRECTORY},
        {"job", required_argument, NULL, F_JOB},
        {"name", required_argument, NULL, F_NAME},
        {"rw", required_argument, NULL, F_RW},
        {"bs", required_argument, NULL, F_BS},
        {"iodepth", required_argument, NULL, F_IODEPTH},
        {"numjobs", required_argument, NULL, F_NUMJOBS},
        {"size", required_argument, NULL, F_SIZE},
        {"runtime", required_argument, NULL, F_RUNTIME},
        {"direct", no_argument, NULL, F_DIRECT},
        {"ioengine", required_argument, NULL, F_IOENGINE},
        {"fsync", required_argument, NULL, F_FSYNC},
        {"fdatasync", required_argument, NULL, F_FDATASYNC},
        {"help", no_argument, NULL, F_HELP},
        {NULL, 0, NULL, 0},
    };
    const char *kind = "fio";
    double start = runner_now();
    struct bench_fio_job_opts jobs[MAX_JOBS];
    bool touched[MAX_JOBS];
    memset(jobs, 0, sizeof(jobs));
    memset(touched, 0, sizeof(touched));
    int cur = -1;
    struct bench_fio_opts fo = {0};
    const char *fio = getenv("FIO");
    fo.fio_path = fio && *fio ? fio : "fio";
    char msg[1024];
    int exit_code;

    optind = 1;
    opterr = 0; /* we explain unknown options ourselves */
    int c;
    while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        if (c == F_DIRECTORY) {
            fo.directory = optarg;
            continue;
        }
        if (c == F_HELP) {
            (void)fputs(fio_usage, stdout);
            return 0;
        }
        if (c == '?' || c == ':') {
            const char *bad = argv[optind - 1];
            const char *name = bad;
            while (*name == '-')
                name++;
            char opt[64];
            (void)snprintf(opt, sizeof(opt), "%.*s", (int)strcspn(name, "="), name);
            if (bench_fio_option_zeroes_latency(opt))
                return runner_fail(kind, BENCH_EXIT_USAGE, start,
                                   "fio option %s refused: it disables or reduces latency "
                                   "measurement, so the result would report zero latencies",
                                   opt);
            return runner_fail(kind, BENCH_EXIT_USAGE, start,
                               "unknown or incomplete fio option %s (see --help)", bad);
        }
        if (c == F_JOB || cur < 0) {
            if (!(c == F_JOB && cur >= 0 && !touched[cur] && !jobs[cur].name)) {
                if (cur + 1 >= MAX_JOBS)
                    return runner_fail(kind, BENCH_EXIT_USAGE, start, "at most %d fio jobs",
                                       MAX_JOBS);
                cur++;
            }
            if (c == F_JOB) {
                jobs[cur].name = optarg;
                continue;
            }
        }
        struct bench_fio_job_opts *j = &jobs[cur];
        touched[cur] = true;
        long v;
        char *end;
        switch (c) {
        case F_NAME:
            j->name = optarg;
            break;
        case F_RW:
            j->rw = optarg;
            break;
        case F_BS:
            j->bs = optarg;
            break;
        case F_SIZE:
            j->size = optarg;
            break;
        case F_IOENGINE:
            j->ioengine = optarg;
            break;
        case F_DIRECT:
            j->direct = true;
            break;
        case F_IODEPTH:
        case F_NUMJOBS:
        case F_RUNTIME:
        case F_FSYNC:
        case F_FDATASYNC:
            errno = 0;
            if (!optarg)
                return runner_fail(kind, BENCH_EXIT_USAGE, start, "missing value");
            v = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || v < 0 || v > 100000000)
                return runner_fail(kind, BENCH_EXIT_USAGE, start,
                                   "--%s: expected a non-negative integer, got %s",
                                   c == F_IODEPTH   ? "iodepth"
                                   : c == F_NUMJOBS ? "numjobs"
                                   : c == F_RUNTIME ? "runtime"
                                   : c == F_FSYNC   ? "fsync"
                                                    : "fdatasync",
                                   optarg);
            if (c == F_IODEPTH)
                j->iodepth = (int)v;
            else if (c == F_NUMJOBS)
                j->numjobs = (int)v;
            else if (c == F_RUNTIME)
                j->runtime_s = (int)v;
            else if (c == F_FSYNC)
                j->fsync = (int)v;
            else
                j->fdatasync = (int)v;
            break;
        default:
            return runner_fail(kind, BENCH_EXIT_USAGE, start, "bad fio option (see --help)");
        }
    }
    if (optind < argc && strcmp(argv[optind - 1], "--") != 0)
        return runner_fail(kind, BENCH_EXIT_USAGE, start,
                           "unexpected argument %s (extra fio options go after --)", argv[optind]);
    if (cur < 0)
        return runner_fail(kind, BENCH_EXIT_USAGE, start, "no fio job given (--rw, --size ...)");
    for (int i = 0; i <= cur; i++) {
        if (!jobs[i].name) {
            static char names[MAX_JOBS][16];
            (void)snprintf(names[i], sizeof(names[i]), "job%d", i);
            jobs[i].name = names[i];
        }
    }
    if (!fo.directory)
        return runner_fail(kind, BENCH_EXIT_USAGE, start, "--directory is required");
    struct stat st;
    if (stat(fo.directory, &st) != 0 || !S_ISDIR(st.st_mode))
        return runner_fail(kind, BENCH_EXIT_USAGE, start, "--directory %s is not a directory",
                           fo.directory);
    fo.jobs = jobs;
    fo.njobs = (size_t)cur + 1;
    fo.extra_args = (const char *const *)(argv + optind);
    fo.nextra = (size_t)(argc - optind);

    struct bench_argv av = BENCH_ARGV_INIT;
    if (bench_fio_argv(&fo, &av, msg, sizeof(msg)) != 0)
        return runner_fail(kind, BENCH_EXIT_USAGE, start, "%s", msg);
    char *cmd = bench_argv_join(&av);
    log_info("runner", "starting %s", cmd ? cmd : fo.fio_path);
    free(cmd);

    struct fio_run f = {
        .loop = uv_default_loop(), .out = BUF_INIT((size_t)64 << 20), .err = BUF_INIT(0)};
    int rc = child_spawn(&f.child, f.loop, av.argv, NULL, fio_data, fio_done, &f);
    if (rc < 0) {
        bench_argv_free(&av);
        return runner_fail(kind, BENCH_EXIT_USAGE, start, "cannot start %s: %s", fo.fio_path,
                           uv_strerror(rc));
    }
    (void)uv_signal_init(f.loop, &f.sigterm);
    (void)uv_signal_init(f.loop, &f.sigint);
    f.sigterm.data = &f;
    f.sigint.data = &f;
    (void)uv_signal_start(&f.sigterm, fio_signal, SIGTERM);
    (void)uv_signal_start(&f.sigint, fio_signal, SIGINT);
    if (runner_stop_signal)
        fio_signal(&f.sigterm, (int)runner_stop_signal);
    (void)uv_run(f.loop, UV_RUN_DEFAULT);
    (void)uv_loop_close(f.loop);
    bench_argv_free(&av);

    int child_exit = f.child.term_signal ? -1 : (int)f.child.exit_status;
    struct bench_fio_result *res = NULL;
    char perr[512] = "";
    int prc = f.out_error ? f.out_error
                          : bench_fio_parse(f.out.data ? f.out.data : "", f.out.len, &res, perr,
                                            sizeof(perr));
    bool complete = prc == 0 && child_exit == 0 && !f.signal && bench_fio_result_complete(res);
    if (complete)
        exit_code = BENCH_EXIT_OK;
    else if (prc != 0 && child_exit != 0 && !f.signal)
        exit_code = BENCH_EXIT_USAGE; /* fio refused its options */
    else
        exit_code = BENCH_EXIT_PARTIAL;

    struct bench_result_meta m = {
        .kind = kind,
        .worker = runner_worker_index(),
        .start_time = start,
        .end_time = runner_now(),
        .exit_code = exit_code,
        .child_exit = child_exit,
        .complete = complete,
    };
    cJSON *r = bench_result_new(&m);
    if (!r)
        abort();
    if (prc == 0 && bench_result_add_fio(r, res))
        abort();
    if (prc != 0) {
        (void)snprintf(msg, sizeof(msg), "cannot parse fio output: %s",
                       perr[0] ? perr : strerror(-prc));
        (void)bench_result_add_error(r, msg);
    }
    if (prc == 0) /* failed jobs, jobs without I/O or latencies: the same as `parse fio` */
        (void)bench_fio_result_errors(res, add_result_error, r);
    if (f.signal) {
        (void)snprintf(msg, sizeof(msg), "terminated by signal %d; forwarded to fio", f.signal);
        (void)bench_result_add_error(r, msg);
    }
    if (!complete && f.err.data) {
        /* fio's own complaints, one error per line (last 10) */
        const char *p = f.err.data;
        int lines = 0;
        for (const char *q = p; *q; q++)
            if (*q == '\n')
                lines++;
        int skip = lines > 10 ? lines - 10 : 0;
        while (p && *p) {
            const char *e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (skip > 0) {
                skip--;
            } else if (len) {
                (void)snprintf(msg, sizeof(msg), "fio: %.*s", (int)(len < 900 ? len : 900), p);
                (void)bench_result_add_error(r, msg);
            }
            p = e ? e + 1 : NULL;
        }
    }
    runner_emit(r);
    cJSON_Delete(r);
    bench_fio_result_free(res);
    buf_free(&f.out);
    buf_free(&f.err);
    return exit_code;
}
