/* The probe/metrics HTTP server over a real socket: a client thread with blocking POSIX sockets
 * writes raw bytes and reads the whole answer (the server closes the connection), while the test
 * runs the server's libuv loop. The oracle is the bytes on the wire, parsed here by hand. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pkg/controller/httpd.h"

struct ctx {
    uv_loop_t loop;
    struct ctrl_httpd *srv;
    uv_async_t done;
    /* what the handler saw and answers */
    int calls;
    char method[16], path[256];
    int code;                 /* 0: leave the default */
    const char *content_type; /* NULL: leave the default */
    const char *body;
    /* the client's request, in pieces sent apart, and the answer */
    const char *pieces[4];
    size_t repeat; /* > 0: send pieces[0] this many times (a request too large) */
    char answer[65536];
    size_t answer_len;
};

static void handler(const char *method, const char *path, struct buf *body, int *code,
                    const char **content_type, void *ud)
{
    struct ctx *c = ud;
    c->calls++;
    (void)snprintf(c->method, sizeof(c->method), "%s", method);
    (void)snprintf(c->path, sizeof(c->path), "%s", path);
    if (c->code)
        *code = c->code;
    if (c->content_type)
        *content_type = c->content_type;
    buf_puts(body, c->body ? c->body : "ok\n");
}

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void send_all(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w <= 0)
            return; /* the server may close early (413) */
        s += w;
        n -= (size_t)w;
    }
}

static void *client(void *arg)
{
    struct ctx *c = arg;
    int fd = connect_to(ctrl_httpd_port(c->srv));
    if (fd >= 0) {
        if (c->repeat) {
            for (size_t i = 0; i < c->repeat; i++)
                send_all(fd, c->pieces[0]);
        } else {
            for (int i = 0; i < 4 && c->pieces[i]; i++) {
                if (i > 0) /* apart: the server sees them in separate reads */
                    nanosleep(&(struct timespec){.tv_nsec = 50L * 1000 * 1000}, NULL);
                send_all(fd, c->pieces[i]);
            }
        }
        ssize_t r;
        while (c->answer_len + 1 < sizeof(c->answer) &&
               (r = recv(fd, c->answer + c->answer_len, sizeof(c->answer) - 1 - c->answer_len, 0)) >
                   0)
            c->answer_len += (size_t)r;
        c->answer[c->answer_len] = '\0';
        close(fd);
    }
    uv_async_send(&c->done);
    return NULL;
}

static void on_done(uv_async_t *a)
{
    struct ctx *c = a->data;
    ctrl_httpd_close(c->srv);
    uv_close((uv_handle_t *)&c->done, NULL);
}

/* Serves one exchange: the client thread sends c->pieces, the loop runs until it has read the
 * answer and every handle is closed. */
static void exchange(struct ctx *c)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, client, c), 0);
    assert_int_equal(uv_run(&c->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
}

static int setup(void **state)
{
    struct ctx *c = calloc(1, sizeof(*c));
    assert_non_null(c);
    assert_int_equal(uv_loop_init(&c->loop), 0);
    assert_int_equal(ctrl_httpd_start(&c->loop, "127.0.0.1:0", handler, c, &c->srv), 0);
    assert_int_equal(uv_async_init(&c->loop, &c->done, on_done), 0);
    c->done.data = c;
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    struct ctx *c = *state;
    assert_int_equal(uv_loop_close(&c->loop), 0); /* no handle left behind */
    free(c);
    return 0;
}

/* The status line, a header's value (NULL when absent) and the body of c->answer. */
static int status_code(const struct ctx *c)
{
    int code = 0;
    if (sscanf(c->answer, "HTTP/1.1 %d ", &code) != 1)
        return -1;
    return code;
}

static const char *header(const struct ctx *c, const char *name, char *out, size_t len)
{
    const char *end = strstr(c->answer, "\r\n\r\n");
    for (const char *p = strstr(c->answer, "\r\n"); p && p < end; p = strstr(p + 2, "\r\n")) {
        size_t n = strlen(name);
        if (strncasecmp(p + 2, name, n) == 0 && p[2 + n] == ':') {
            const char *v = p + 2 + n + 1;
            while (*v == ' ')
                v++;
            (void)snprintf(out, len, "%.*s", (int)strcspn(v, "\r"), v);
            return out;
        }
    }
    return NULL;
}

static const char *body_of(const struct ctx *c)
{
    const char *end = strstr(c->answer, "\r\n\r\n");
    return end ? end + 4 : NULL;
}

static void test_get(void **state)
{
    struct ctx *c = *state;
    c->body = "alive\n";
    c->pieces[0] = "GET /healthz?verbose=1 HTTP/1.1\r\nHost: x\r\n\r\n";
    exchange(c);
    assert_int_equal(c->calls, 1);
    assert_string_equal(c->method, "GET");
    assert_string_equal(c->path, "/healthz"); /* the query is not the path */
    assert_int_equal(status_code(c), 200);
    assert_non_null(strstr(c->answer, "HTTP/1.1 200 OK\r\n"));
    char v[128];
    assert_string_equal(header(c, "Content-Length", v, sizeof(v)), "6");
    assert_string_equal(header(c, "Connection", v, sizeof(v)), "close");
    assert_string_equal(header(c, "Content-Type", v, sizeof(v)), "text/plain; charset=utf-8");
    assert_string_equal(body_of(c), "alive\n");
}

/* The handler's code and content type; a request arriving in pieces (bare \n line ends). */
static void test_handler_code_and_pieces(void **state)
{
    struct ctx *c = *state;
    c->code = 503;
    c->content_type = "text/plain; version=0.0.4";
    c->body = "not ready\n";
    c->pieces[0] = "GET /rea";
    c->pieces[1] = "dyz HTTP/1.0\n";
    c->pieces[2] = "\n";
    exchange(c);
    assert_int_equal(c->calls, 1);
    assert_string_equal(c->path, "/readyz");
    assert_non_null(strstr(c->answer, "HTTP/1.1 503 Service Unavailable\r\n"));
    char v[128];
    assert_string_equal(header(c, "Content-Type", v, sizeof(v)), "text/plain; version=0.0.4");
    assert_string_equal(header(c, "Content-Length", v, sizeof(v)), "10");
    assert_string_equal(body_of(c), "not ready\n");
}

static void test_head_has_no_body(void **state)
{
    struct ctx *c = *state;
    c->body = "# HELP x y\n";
    c->pieces[0] = "HEAD /metrics HTTP/1.1\r\n\r\n";
    exchange(c);
    assert_int_equal(c->calls, 1);
    assert_string_equal(c->method, "HEAD");
    assert_int_equal(status_code(c), 200);
    assert_string_equal(body_of(c), "");
}

static void test_post_refused(void **state)
{
    struct ctx *c = *state;
    c->pieces[0] = "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n";
    exchange(c);
    assert_int_equal(c->calls, 0); /* the handler never sees it */
    assert_non_null(strstr(c->answer, "HTTP/1.1 405 Method Not Allowed\r\n"));
}

static void test_garbage_is_bad_request(void **state)
{
    struct ctx *c = *state;
    c->pieces[0] = "NOPE\r\n\r\n";
    exchange(c);
    assert_int_equal(c->calls, 0);
    assert_int_equal(status_code(c), 400);
}

/* A request that grows past 8 KiB without ending is answered 413 and closed. */
static void test_request_too_large(void **state)
{
    struct ctx *c = *state;
    /* 64 bytes a line, no empty line: just past the cap, all of it read by the server before it
     * answers (unread bytes at its close would reset the connection under the answer) */
    c->pieces[0] = "X-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n";
    assert_int_equal(strlen(c->pieces[0]), 64);
    c->repeat = 8192 / 64 + 1;
    exchange(c);
    assert_int_equal(c->calls, 0);
    assert_non_null(strstr(c->answer, "HTTP/1.1 413 Payload Too Large\r\n"));
}

static void test_addresses(void **state)
{
    (void)state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    struct ctrl_httpd *s = NULL;
    assert_int_equal(ctrl_httpd_start(&loop, ":99999", handler, NULL, &s), -EINVAL);
    assert_int_equal(ctrl_httpd_start(&loop, "127.0.0.1:80x", handler, NULL, &s), -EINVAL);
    assert_int_equal(ctrl_httpd_start(&loop, "not-an-address:0", handler, NULL, &s), -EINVAL);
    assert_null(s);
    assert_int_equal(ctrl_httpd_start(&loop, ":0", handler, NULL, &s), 0);
    int port = ctrl_httpd_port(s);
    assert_true(port > 0 && port <= 65535);
    ctrl_httpd_close(s);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_get, setup, teardown),
        cmocka_unit_test_setup_teardown(test_handler_code_and_pieces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_head_has_no_body, setup, teardown),
        cmocka_unit_test_setup_teardown(test_post_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_garbage_is_bad_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_request_too_large, setup, teardown),
        cmocka_unit_test(test_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
