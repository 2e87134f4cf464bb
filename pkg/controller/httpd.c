/* Minimal HTTP server for probes and metrics. */
#include "pkg/controller/httpd.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/util/list.h"
#include "pkg/util/log.h"
#include "pkg/util/mem.h"

#define MAX_REQUEST 8192

struct conn;

struct ctrl_httpd {
    uv_tcp_t server;
    ctrl_http_handler h;
    void *ud;
    struct conn *conns;
    int n_conns;
    bool closing, server_closed;
};

static void maybe_free(struct ctrl_httpd *s)
{
    if (s->server_closed && s->n_conns == 0)
        free(s);
}

struct conn {
    uv_tcp_t tcp;
    struct ctrl_httpd *s;
    struct conn *next, *prev;
    struct buf in;
    char *out;
    uv_write_t wr;
    bool responded, closing;
};

static void conn_closed(uv_handle_t *h)
{
    struct conn *c = h->data;
    struct ctrl_httpd *s = c->s;
    UTIL_LIST_UNLINK(s->conns, c);
    buf_free(&c->in);
    free(c->out);
    free(c);
    s->n_conns--;
    maybe_free(s);
}

static void conn_close(struct conn *c)
{
    if (c->closing)
        return;
    c->closing = true;
    uv_close((uv_handle_t *)&c->tcp, conn_closed);
}

static void on_written(uv_write_t *req, int status)
{
    struct conn *c = req->data;
    (void)status;
    conn_close(c);
}

static const char *status_text(int code)
{
    switch (code) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Payload Too Large";
    case 503:
        return "Service Unavailable";
    default:
        return "Error";
    }
}

static void respond(struct conn *c, int code, const char *ctype, const char *body, size_t len)
{
    struct buf out = BUF_INIT(0);
    buf_printf(&out,
               "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
               "Connection: close\r\n\r\n",
               code, status_text(code), ctype, len);
    buf_append(&out, body, len);
    c->out = buf_steal(&out);
    if (!c->out) {
        conn_close(c);
        return;
    }
    c->responded = true;
    uv_buf_t b = uv_buf_init(c->out, (unsigned)strlen(c->out));
    b.len = strlen(c->out); /* body is text */
    c->wr.data = c;
    if (uv_write(&c->wr, (uv_stream_t *)&c->tcp, &b, 1, on_written))
        conn_close(c);
}

static void handle(struct conn *c)
{
    char method[16], path[1024];
    if (sscanf(c->in.data, "%15s %1023s", method, path) != 2) {
        respond(c, 400, "text/plain", "bad request\n", 12);
        return;
    }
    char *q = strchr(path, '?');
    if (q)
        *q = '\0';
    struct buf body = BUF_INIT(0);
    int code = 200;
    const char *ctype = "text/plain; charset=utf-8";
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        code = 405;
        buf_puts(&body, "method not allowed\n");
    } else {
        c->s->h(method, path, &body, &code, &ctype, c->s->ud);
    }
    respond(c, code, ctype, body.data ? body.data : "", strcmp(method, "HEAD") ? body.len : 0);
    buf_free(&body);
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    (void)h;
    (void)suggested;
    static char slab[4096];
    *b = uv_buf_init(slab, sizeof(slab));
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    struct conn *c = st->data;
    if (n < 0) {
        conn_close(c);
        return;
    }
    if (n == 0 || c->responded)
        return;
    if (buf_append(&c->in, b->base, (size_t)n)) {
        uv_read_stop(st);
        respond(c, 413, "text/plain", "request too large\n", 18);
        return;
    }
    if (strstr(c->in.data, "\r\n\r\n") || strstr(c->in.data, "\n\n")) {
        uv_read_stop(st);
        handle(c);
    }
}

static void on_connection(uv_stream_t *server, int status)
{
    struct ctrl_httpd *s = server->data;
    if (status < 0 || s->closing)
        return;
    struct conn *c = util_xcalloc(1, sizeof(*c));
    c->s = s;
    c->in = (struct buf)BUF_INIT(MAX_REQUEST);
    uv_tcp_init(server->loop, &c->tcp);
    c->tcp.data = c;
    UTIL_LIST_PUSH(s->conns, c);
    s->n_conns++;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) ||
        uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, on_read))
        conn_close(c);
}

static void server_closed(uv_handle_t *h);

int ctrl_httpd_start(uv_loop_t *loop, const char *addr, ctrl_http_handler h, void *ud,
                     struct ctrl_httpd **out)
{
    char host[128] = "0.0.0.0";
    const char *colon = strrchr(addr, ':');
    const char *port_s = colon ? colon + 1 : addr;
    if (colon && colon != addr)
        (void)snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
    char *end;
    long port = strtol(port_s, &end, 10);
    if (*end || port < 0 || port > 65535)
        return -EINVAL;
    struct sockaddr_storage sa;
    int rc = uv_ip4_addr(host, (int)port, (struct sockaddr_in *)&sa);
    if (rc)
        rc = uv_ip6_addr(host, (int)port, (struct sockaddr_in6 *)&sa);
    if (rc)
        return -EINVAL;
    struct ctrl_httpd *s = util_xcalloc(1, sizeof(*s));
    s->h = h;
    s->ud = ud;
    uv_tcp_init(loop, &s->server);
    s->server.data = s;
    rc = uv_tcp_bind(&s->server, (const struct sockaddr *)&sa, 0);
    if (!rc)
        rc = uv_listen((uv_stream_t *)&s->server, 128, on_connection);
    if (rc) {
        s->closing = true;
        uv_close((uv_handle_t *)&s->server, server_closed);
        return rc;
    }
    *out = s;
    return 0;
}

int ctrl_httpd_port(const struct ctrl_httpd *s)
{
    struct sockaddr_storage sa;
    int len = sizeof(sa);
    if (uv_tcp_getsockname(&s->server, (struct sockaddr *)&sa, &len))
        return -1;
    if (sa.ss_family == AF_INET)
        return ntohs(((struct sockaddr_in *)&sa)->sin_port);
    return ntohs(((struct sockaddr_in6 *)&sa)->sin6_port);
}

static void server_closed(uv_handle_t *h)
{
    struct ctrl_httpd *s = h->data;
    s->server_closed = true;
    maybe_free(s);
}

void ctrl_httpd_close(struct ctrl_httpd *s)
{
    if (!s)
        return;
    s->closing = true;
    for (struct conn *c = s->conns; c; c = c->next)
        conn_close(c);
    uv_close((uv_handle_t *)&s->server, server_closed);
}
