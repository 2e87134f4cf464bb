/* `fio`: storage probe on a directory (the PVC mount) with the real fio, JSON parsed into the
 * result. The phases of struct run_ctx: options, load (fio through the child driver; no
 * connection, preparation or barrier), collect, report. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <uv.h>

#include "cmd/runner/child.h"
#include "cmd/runner/runner.h"
#include "pkg/util/mem.h"
#include "pkg/bench/bench.h"
#include "pkg/bench/runner_args.h"
#include "pkg/util/buf.h"
#include "pkg/util/log.h"

#define FIO_STDOUT_CAP ((size_t)64 << 20)
#define FIO_STDERR_KEEP ((size_t)16384)

struct fio_ctx {
    struct run_ctx c;
    struct bench_runner_fio ra; /* borrows from argv, owns nothing */
    struct bench_fio_opts fo;   /* its jobs point into ra */
    char logdir[512];           /* fio's IOPS and bandwidth logs; "" when none */
    struct buf out;             /* fio's JSON */
    int out_error;
    struct bench_fio_result *res;
    char perr[512];
    int prc; /* parse of the JSON: 0 or a negative errno */
    bool complete;
};

static int fio_options(struct fio_ctx *f, int argc, char **argv)
{
    if (run_parse_flags(&f->c, argc, argv, &f->ra))
        return -1;
    f->fo = f->ra.fio;
    const char *fio = getenv("FIO");
    f->fo.fio_path = fio && *fio ? fio : "fio";
    struct stat st;
    if (stat(f->fo.directory, &st) != 0 || !S_ISDIR(st.st_mode))
        return run_fail(
            &f->c, BENCH_EXIT_USAGE, "--%s %s is not a directory",
            bench_runner_flag(BENCH_RUNNER_FIO, offsetof(struct bench_runner_fio, fio.directory)),
            f->fo.directory);
    if (runner_temp_dir(f->logdir, sizeof(f->logdir)) == 0)
        f->fo.log_dir = f->logdir;
    else
        log_warn("runner", "no directory for fio's IOPS and bandwidth logs: no series");
    if (bench_fio_argv(&f->fo, &f->c.argv, f->c.msg, sizeof(f->c.msg)) != 0)
        return run_fail(&f->c, BENCH_EXIT_USAGE, "%s", f->c.msg);
    return 0;
}

static void fio_data(struct child_drive *d, int stream, const char *data, size_t len)
{
    struct fio_ctx *f = d->ctx;
    if (stream == 1 && !f->out_error)
        f->out_error = buf_append(&f->out, data, len);
}

/* fio starts at once; it stops its jobs on SIGINT/SIGTERM (forwarded) and still prints its JSON. */
static int fio_load(struct fio_ctx *f)
{
    static const struct child_drive_hooks hooks = {.on_data = fio_data};
    struct child_drive *d = &f->c.drive;
    f->out = (struct buf)BUF_INIT(FIO_STDOUT_CAP);
    child_drive_init(d, uv_default_loop(), f->c.argv.argv, &hooks, f);
    d->err_keep = FIO_STDERR_KEEP;
    int rc = child_drive_start(d);
    if (rc == 0)
        (void)child_drive_early_signal(d);
    child_drive_run(d);
    if (rc < 0)
        return run_fail(&f->c, BENCH_EXIT_USAGE, "cannot start %s: %s", f->fo.fio_path,
                        uv_strerror(rc));
    return 0;
}

static void fio_collect(struct fio_ctx *f)
{
    int child_exit = child_drive_exit(&f->c.drive);
    int signal = f->c.drive.signal;
    f->prc = f->out_error ? f->out_error
                          : bench_fio_parse(f->out.data ? f->out.data : "", f->out.len, &f->res,
                                            f->perr, sizeof(f->perr));
    if (f->prc == 0 && f->logdir[0] && bench_fio_read_series(f->res, f->logdir) != 0)
        log_warn("runner", "cannot read fio's logs in %s", f->logdir);
    f->complete = f->prc == 0 && child_exit == 0 && !signal && bench_fio_result_complete(f->res);
    if (f->complete)
        f->c.exit_code = BENCH_EXIT_OK;
    else if (f->prc != 0 && child_exit != 0 && !signal)
        f->c.exit_code = BENCH_EXIT_USAGE; /* fio refused its options */
    else
        f->c.exit_code = BENCH_EXIT_PARTIAL;
    run_result_new(&f->c, child_exit, f->complete, NULL);
}

static void fio_report(struct fio_ctx *f)
{
    struct run_ctx *c = &f->c;
    if (f->prc == 0)
        bench_result_add_fio(c->result, f->res);
    if (f->prc != 0)
        run_add_error(c, "cannot parse fio output: %s", f->perr[0] ? f->perr : strerror(-f->prc));
    if (f->prc == 0) /* failed jobs, jobs without I/O or latencies: the same as `parse fio` */
        bench_result_add_fio_errors(c->result, f->res);
    if (c->drive.signal)
        run_add_error(c, "terminated by signal %d; forwarded to fio", c->drive.signal);
    if (!f->complete && c->drive.err.data) /* fio's own complaints, one error per line */
        run_add_last_lines(c, c->drive.err.data, 10, "fio: ", 900);
    run_emit(c);
}

int runner_cmd_fio(int argc, char **argv)
{
    struct fio_ctx *f = util_xcalloc(1, sizeof(*f));
    run_ctx_init(&f->c, "fio", BENCH_RUNNER_FIO);
    if (fio_options(f, argc, argv) == 0 && fio_load(f) == 0) {
        fio_collect(f);
        fio_report(f);
    }
    int exit_code = f->c.exit_code;
    run_ctx_free(&f->c);
    if (f->logdir[0])
        runner_remove_dir(f->logdir);
    bench_fio_result_free(f->res);
    buf_free(&f->out);
    free(f);
    return exit_code;
}
