/* Child processes on the libuv loop and the drive of one child to its end (see child.h). */
#include "cmd/runner/child.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/argv.h"
#include "pkg/bench/fields.h"
#include "pkg/util/clock.h"
#include "pkg/util/log.h"
#include "pkg/util/mem.h"

static void maybe_done(struct child *c)
{
    if (--c->pending == 0) {
        c->running = false;
        if (c->on_done)
            c->on_done(c, c->ctx);
    }
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    (void)h;
    (void)suggested;
    static char slab[65536]; /* one loop thread; data is consumed in on_read before the next */
    b->base = slab;
    b->len = sizeof(slab);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    struct child *c = s->data;
    int stream = s == (uv_stream_t *)&c->out ? 1 : 2;
    if (n > 0) {
        if (c->on_data)
            c->on_data(c, stream, b->base, (size_t)n, c->ctx);
        return;
    }
    if (n == 0)
        return;
    /* EOF or error: stop reading this stream */
    (void)uv_read_stop(s);
    maybe_done(c);
}

static void on_exit_cb(uv_process_t *p, int64_t status, int signum)
{
    struct child *c = p->data;
    c->exited = true;
    c->exit_status = status;
    c->term_signal = signum;
    maybe_done(c);
}

int child_spawn(struct child *c, uv_loop_t *loop, char *const *argv, char **env,
                child_data_cb on_data, child_done_cb on_done, void *ctx)
{
    memset(c, 0, sizeof(*c));
    c->loop = loop;
    c->on_data = on_data;
    c->on_done = on_done;
    c->ctx = ctx;
    (void)uv_pipe_init(loop, &c->out, 0);
    (void)uv_pipe_init(loop, &c->err, 0);
    c->out.data = c;
    c->err.data = c;
    c->proc.data = c;

    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_IGNORE;
    stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[1].data.stream = (uv_stream_t *)&c->out;
    stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[2].data.stream = (uv_stream_t *)&c->err;

    uv_process_options_t o;
    memset(&o, 0, sizeof(o));
    o.file = argv[0];
    o.args = (char **)argv;
    o.env = env;
    o.exit_cb = on_exit_cb;
    o.stdio_count = 3;
    o.stdio = stdio;
    int rc = uv_spawn(loop, &c->proc, &o);
    if (rc < 0) {
        /* the pipes (and, per libuv, the process handle) still have to be closed */
        uv_close((uv_handle_t *)&c->proc, NULL);
        uv_close((uv_handle_t *)&c->out, NULL);
        uv_close((uv_handle_t *)&c->err, NULL);
        (void)uv_run(loop, UV_RUN_NOWAIT);
        return rc;
    }
    c->pid = c->proc.pid;
    c->running = true;
    c->pending = 3;
    (void)uv_read_start((uv_stream_t *)&c->out, on_alloc, on_read);
    (void)uv_read_start((uv_stream_t *)&c->err, on_alloc, on_read);
    return 0;
}

int child_kill(struct child *c, int signum)
{
    if (!c->running || c->exited)
        return UV_ESRCH;
    return uv_process_kill(&c->proc, signum);
}

void child_close(struct child *c)
{
    uv_close((uv_handle_t *)&c->proc, NULL);
    uv_close((uv_handle_t *)&c->out, NULL);
    uv_close((uv_handle_t *)&c->err, NULL);
}

struct capture {
    struct buf out;
    int err;
};

static void cap_data(struct child *c, int stream, const char *data, size_t len, void *ctx)
{
    (void)c;
    struct capture *cap = ctx;
    if (stream != 1 || cap->err)
        return;
    int rc = buf_append(&cap->out, data, len);
    if (rc)
        cap->err = rc;
}

int child_run_capture(char *const *argv, size_t cap_bytes, char **out, int *status)
{
    *out = NULL;
    *status = -1;
    uv_loop_t loop;
    int rc = uv_loop_init(&loop);
    if (rc < 0)
        return rc;
    struct capture cap = {BUF_INIT(cap_bytes), 0};
    struct child c;
    rc = child_spawn(&c, &loop, argv, NULL, cap_data, NULL, &cap);
    if (rc == 0) {
        (void)uv_run(&loop, UV_RUN_DEFAULT);
        child_close(&c);
        (void)uv_run(&loop, UV_RUN_DEFAULT);
        *status = c.term_signal ? -1 : (int)c.exit_status;
        rc = cap.err;
    }
    if (uv_loop_close(&loop) != 0)
        (void)uv_run(&loop, UV_RUN_DEFAULT);
    if (rc == 0) {
        *out = buf_steal(&cap.out);
        if (!*out)
            *out = util_xstrdup("");
    }
    buf_free(&cap.out);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * The drive
 * ------------------------------------------------------------------------------------------- */

int child_drive_exit(const struct child_drive *d)
{
    if (!d->started || d->child.term_signal)
        return -1;
    return (int)d->child.exit_status;
}

/* echo: the line of stream k (0 stdout, 1 stderr) as an "output" record, then to on_line; the
 * buffer emptied. */
static void echo_flush(struct child_drive *d, int k)
{
    if (!d->line_len[k])
        return;
    log_record(LOG_INFO, "pgbench", bench_key(BK_OUTPUT), k ? "\"stderr\"" : "\"stdout\"", "%.*s",
               (int)d->line_len[k], d->line[k]);
    if (d->hooks->on_line)
        d->hooks->on_line(d, k + 1, d->line[k], d->line_len[k]);
    d->line_len[k] = 0;
}

void child_drive_end(struct child_drive *d)
{
    if (d->ended)
        return;
    d->ended = true;
    if (d->echo) {
        echo_flush(d, 0);
        echo_flush(d, 1);
    }
    if (d->hooks->on_end)
        d->hooks->on_end(d);
    uv_close((uv_handle_t *)&d->sigterm, NULL);
    uv_close((uv_handle_t *)&d->sigint, NULL);
    uv_close((uv_handle_t *)&d->watchdog, NULL);
    if (d->started)
        child_close(&d->child);
}

/* Keeps the last err_keep bytes of stderr. */
static void keep_err(struct child_drive *d, const char *data, size_t len)
{
    if (len >= d->err_keep) {
        buf_reset(&d->err);
        data += len - d->err_keep;
        len = d->err_keep;
    } else if (d->err.len + len > d->err_keep) {
        buf_consume(&d->err, d->err.len + len - d->err_keep);
    }
    (void)buf_append(&d->err, data, len);
}

/* echo: data split into lines (one longer than the buffer in pieces). */
static void echo_data(struct child_drive *d, int k, const char *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '\n') {
            if (!d->line_len[k]) /* an empty line is a line of the report too */
                d->line[k][d->line_len[k]++] = ' ';
            echo_flush(d, k);
            continue;
        }
        if (d->line_len[k] == sizeof(d->line[k]))
            echo_flush(d, k);
        d->line[k][d->line_len[k]++] = data[i];
    }
}

static void drive_data(struct child *c, int stream, const char *data, size_t len, void *ctx)
{
    (void)c;
    struct child_drive *d = ctx;
    if (stream == 2 && d->err_keep)
        keep_err(d, data, len);
    if (d->echo && (stream == 1 || stream == 2))
        echo_data(d, stream - 1, data, len);
    if (d->hooks->on_data)
        d->hooks->on_data(d, stream, data, len);
}

static void drive_done(struct child *c, void *ctx)
{
    struct child_drive *d = ctx;
    d->end = util_wall_s();
    if (c->term_signal)
        log_warn("runner", "%s killed by signal %d", d->argv[0], c->term_signal);
    else
        log_info("runner", "%s exited with status %lld", d->argv[0], (long long)c->exit_status);
    child_drive_end(d);
}

static void on_watchdog(uv_timer_t *t)
{
    struct child_drive *d = t->data;
    if (!d->started || d->child.exited)
        return;
    d->watchdog_fired++;
    const char *sig = d->watchdog_fired == 1 ? "SIGTERM" : "SIGKILL";
    if (d->deadline_armed)
        log_error("runner",
                  "%s still running at the run's deadline (BENCH_DEADLINE_AT): sending %s",
                  d->argv[0], sig);
    else
        log_error("runner", "%s still running %.0f s after it started (limit %.0f s): sending %s",
                  d->argv[0], util_wall_s() - d->start, d->watchdog_s, sig);
    (void)child_kill(&d->child, d->watchdog_fired == 1 ? SIGTERM : SIGKILL);
    if (d->watchdog_fired == 1)
        (void)uv_timer_start(&d->watchdog, on_watchdog, 5000, 0);
}

/* The watchdog limit, or the time left to the deadline when that comes first. */
static void arm_watchdog(struct child_drive *d)
{
    double limit = d->watchdog_s;
    if (d->deadline_at > 0) {
        /* the run's deadline: stop the load there and report what it has */
        double left = d->deadline_at - d->start;
        if (limit <= 0 || left < limit) {
            limit = left > 0.001 ? left : 0.001;
            d->deadline_armed = true;
        }
    }
    if (limit > 0)
        (void)uv_timer_start(&d->watchdog, on_watchdog, (uint64_t)(limit * 1000.0), 0);
}

int child_drive_start(struct child_drive *d)
{
    if (d->ended)
        return 0;
    size_t argc = 0;
    while (d->argv[argc])
        argc++;
    struct bench_argv view = {(char **)d->argv, argc, argc};
    char *cmd = bench_argv_join(&view);
    log_info("runner", "starting %s", cmd ? cmd : d->argv[0]);
    free(cmd);
    d->start = util_wall_s();
    int rc = child_spawn(&d->child, d->loop, d->argv, NULL, drive_data, drive_done, d);
    if (rc < 0) {
        d->spawn_error = rc;
        log_error("runner", "cannot start %s: %s", d->argv[0], uv_strerror(rc));
        child_drive_end(d);
        return rc;
    }
    d->started = true;
    if (d->hooks->on_start)
        d->hooks->on_start(d);
    arm_watchdog(d);
    return 0;
}

static void on_signal(uv_signal_t *s, int signum)
{
    struct child_drive *d = s->data;
    d->signal = signum;
    if (d->started) {
        /* the result follows once the child and its pipes are done */
        if (!d->child.exited) {
            log_warn("runner", "received signal %d, forwarding it to %s (pid %d)", signum,
                     d->argv[0], (int)d->child.pid);
            (void)child_kill(&d->child, signum);
        }
        return;
    }
    log_warn("runner", "received signal %d before the load started", signum);
    child_drive_end(d);
}

void child_drive_init(struct child_drive *d, uv_loop_t *loop, char *const *argv,
                      const struct child_drive_hooks *hooks, void *ctx)
{
    d->loop = loop;
    d->argv = argv;
    d->hooks = hooks;
    d->ctx = ctx;
    d->err = (struct buf)BUF_INIT(0);
    (void)uv_signal_init(loop, &d->sigterm);
    (void)uv_signal_init(loop, &d->sigint);
    (void)uv_timer_init(loop, &d->watchdog);
    d->sigterm.data = d;
    d->sigint.data = d;
    d->watchdog.data = d;
    (void)uv_signal_start(&d->sigterm, on_signal, SIGTERM);
    (void)uv_signal_start(&d->sigint, on_signal, SIGINT);
}

bool child_drive_early_signal(struct child_drive *d)
{
    if (!runner_stop_signal)
        return false;
    on_signal(&d->sigterm, (int)runner_stop_signal);
    return true;
}

void child_drive_run(struct child_drive *d)
{
    (void)uv_run(d->loop, UV_RUN_DEFAULT);
    (void)uv_loop_close(d->loop);
}

void child_drive_free(struct child_drive *d)
{
    buf_free(&d->err);
}
