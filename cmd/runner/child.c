/* Child processes on the libuv loop (see child.h). */
#include "cmd/runner/child.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/util/buf.h"

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
            *out = strdup("");
    }
    buf_free(&cap.out);
    return rc;
}
