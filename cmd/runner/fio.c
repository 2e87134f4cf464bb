/* `fio`: storage probe on a directory (the PVC mount) with the real fio, JSON parsed into the
 * result. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <uv.h>

#include "cmd/runner/child.h"
#include "cmd/runner/runner.h"
#include "pkg/bench/bench.h"
#include "pkg/bench/runner_args.h"
#include "pkg/util/buf.h"
#include "pkg/util/log.h"
#include "pkg/util/clock.h"

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

int runner_cmd_fio(int argc, char **argv)
{
    const char *kind = "fio";
    double start = util_wall_s();
    char msg[1024];
    int exit_code;
    struct bench_runner_fio ra; /* borrows from argv, owns nothing */
    int rc = bench_runner_parse(BENCH_RUNNER_FIO, argc, argv, &ra, msg, sizeof(msg));
    if (rc == BENCH_RUNNER_HELP) {
        char *u = bench_runner_usage(BENCH_RUNNER_FIO, true);
        if (!u)
            abort();
        (void)fputs(u, stdout);
        free(u);
        return 0;
    }
    if (rc)
        return runner_fail(kind, BENCH_EXIT_USAGE, start, "%s", msg);
    struct bench_fio_opts fo = ra.fio; /* its jobs point into ra */
    const char *fio = getenv("FIO");
    fo.fio_path = fio && *fio ? fio : "fio";
    struct stat st;
    if (stat(fo.directory, &st) != 0 || !S_ISDIR(st.st_mode))
        return runner_fail(
            kind, BENCH_EXIT_USAGE, start, "--%s %s is not a directory",
            bench_runner_flag(BENCH_RUNNER_FIO, offsetof(struct bench_runner_fio, fio.directory)),
            fo.directory);

    struct bench_argv av = BENCH_ARGV_INIT;
    if (bench_fio_argv(&fo, &av, msg, sizeof(msg)) != 0)
        return runner_fail(kind, BENCH_EXIT_USAGE, start, "%s", msg);
    char *cmd = bench_argv_join(&av);
    log_info("runner", "starting %s", cmd ? cmd : fo.fio_path);
    free(cmd);

    struct fio_run f = {
        .loop = uv_default_loop(), .out = BUF_INIT((size_t)64 << 20), .err = BUF_INIT(0)};
    rc = child_spawn(&f.child, f.loop, av.argv, NULL, fio_data, fio_done, &f);
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
        .end_time = util_wall_s(),
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
        (void)bench_result_add_fio_errors(r, res);
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
