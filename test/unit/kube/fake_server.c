/* The fake API server of fake_server.h: a tiny HTTP/1.1 server on a libuv loop, and the
 * client-side tests' common set-up around it (fs_api). Test-only; it trusts its input. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "test/unit/kube/fake_server.h"

struct fs_write {
    uv_write_t w;
    char *data;
};

static void fs_on_written(uv_write_t *w, int status)
{
    (void)status;
    struct fs_write *fw = (struct fs_write *)w;
    free(fw->data);
    free(fw);
}

void fs_write(struct fs_conn *c, const char *data, size_t len)
{
    if (c->closing)
        return;
    struct fs_write *fw = calloc(1, sizeof(*fw));
    fw->data = malloc(len ? len : 1);
    memcpy(fw->data, data, len);
    uv_buf_t b = uv_buf_init(fw->data, (unsigned)len);
    if (uv_write(&fw->w, (uv_stream_t *)&c->tcp, &b, 1, fs_on_written) != 0) {
        free(fw->data);
        free(fw);
    }
}

static void fs_on_conn_closed(uv_handle_t *h)
{
    struct fs_conn *c = h->data;
    struct fake_server *s = c->s;
    for (struct fs_conn **pp = &s->conns; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    free(c->in);
    free(c);
}

void fs_drop(struct fs_conn *c)
{
    if (c->closing)
        return;
    c->closing = true;
    uv_read_stop((uv_stream_t *)&c->tcp);
    uv_close((uv_handle_t *)&c->tcp, fs_on_conn_closed);
}

void fs_respond(struct fs_conn *c, int status, const char *content_type, const char *extra_headers,
                const char *body)
{
    size_t blen = body ? strlen(body) : 0;
    size_t n = blen + 1024 + (extra_headers ? strlen(extra_headers) : 0);
    char *out = malloc(n);
    int h = snprintf(out, n, "HTTP/1.1 %d X\r\nContent-Length: %zu\r\n%s%s%s%s\r\n", status, blen,
                     content_type ? "Content-Type: " : "", content_type ? content_type : "",
                     content_type ? "\r\n" : "", extra_headers ? extra_headers : "");
    memcpy(out + h, body ? body : "", blen);
    fs_write(c, out, (size_t)h + blen);
    free(out);
}

void fs_json(struct fs_conn *c, int status, const char *body)
{
    fs_respond(c, status, "application/json", NULL, body);
}

void fs_status(struct fs_conn *c, int code, const char *reason, const char *message)
{
    char body[1024];
    (void)snprintf(
        body, sizeof(body),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
        "\"message\":\"%s\",\"reason\":\"%s\",\"code\":%d}",
        message, reason, code);
    fs_json(c, code, body);
}

void fs_stream_begin(struct fs_conn *c, int status)
{
    char h[256];
    int n = snprintf(h, sizeof(h),
                     "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n",
                     status);
    fs_write(c, h, (size_t)n);
}

void fs_stream_chunk(struct fs_conn *c, const char *data, size_t len)
{
    if (!len)
        return;
    char h[32];
    int n = snprintf(h, sizeof(h), "%zx\r\n", len);
    fs_write(c, h, (size_t)n);
    fs_write(c, data, len);
    fs_write(c, "\r\n", 2);
}

void fs_stream_end(struct fs_conn *c)
{
    fs_write(c, "0\r\n\r\n", 5);
}

bool fs_header(const struct fs_req *r, const char *name, char *out, size_t n)
{
    size_t nl = strlen(name);
    const char *p = r->headers;
    while (p && *p) {
        if (!strncasecmp(p, name, nl) && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (*v == ' ')
                v++;
            const char *e = strstr(v, "\r\n");
            size_t l = e ? (size_t)(e - v) : strlen(v);
            if (l >= n)
                l = n - 1;
            memcpy(out, v, l);
            out[l] = '\0';
            return true;
        }
        p = strstr(p, "\r\n");
        if (p)
            p += 2;
    }
    return false;
}

static void fs_alloc(uv_handle_t *h, size_t sz, uv_buf_t *b)
{
    (void)h;
    b->base = malloc(sz);
    b->len = sz;
}

static void fs_parse(struct fs_conn *c)
{
    for (;;) {
        if (c->closing)
            return;
        char *end = c->inlen ? memmem(c->in, c->inlen, "\r\n\r\n", 4) : NULL;
        if (!end)
            return;
        size_t hlen = (size_t)(end - c->in) + 4;
        struct fs_req r;
        memset(&r, 0, sizeof(r));
        const char *le = memmem(c->in, hlen, "\r\n", 2);
        char line[4200];
        size_t ll =
            (size_t)(le - c->in) < sizeof(line) - 1 ? (size_t)(le - c->in) : sizeof(line) - 1;
        memcpy(line, c->in, ll);
        line[ll] = '\0';
        (void)sscanf(line, "%15s %4095s", r.method, r.path); /* a bad line leaves them empty */
        size_t hl = hlen - ll - 2 < sizeof(r.headers) - 1 ? hlen - ll - 2 : sizeof(r.headers) - 1;
        memcpy(r.headers, le + 2, hl);
        r.headers[hl] = '\0';
        char cl[32];
        size_t blen = fs_header(&r, "Content-Length", cl, sizeof(cl)) ? strtoul(cl, NULL, 10) : 0;
        if (c->inlen < hlen + blen)
            return;
        r.body = malloc(blen + 1);
        memcpy(r.body, c->in + hlen, blen);
        r.body[blen] = '\0';
        r.body_len = blen;
        r.conn_id = c->id;
        memmove(c->in, c->in + hlen + blen, c->inlen - hlen - blen);
        c->inlen -= hlen + blen;
        c->s->nreqs++;
        c->s->handler(c->s, c, &r, c->s->ud);
        free(r.body);
    }
}

static void fs_on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    struct fs_conn *c = st->data;
    if (n < 0) {
        free(b->base);
        fs_drop(c);
        return;
    }
    if (n > 0) {
        if (c->inlen + (size_t)n > c->incap) {
            c->incap = (c->inlen + (size_t)n) * 2;
            c->in = realloc(c->in, c->incap);
        }
        memcpy(c->in + c->inlen, b->base, (size_t)n);
        c->inlen += (size_t)n;
    }
    free(b->base);
    fs_parse(c);
}

static void fs_on_connection(uv_stream_t *l, int status)
{
    struct fake_server *s = l->data;
    if (status < 0)
        return;
    struct fs_conn *c = calloc(1, sizeof(*c));
    c->s = s;
    c->id = ++s->nconns;
    uv_tcp_init(s->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(l, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, fs_on_conn_closed);
        return;
    }
    c->next = s->conns;
    s->conns = c;
    uv_read_start((uv_stream_t *)&c->tcp, fs_alloc, fs_on_read);
}

int fs_start(struct fake_server *s, uv_loop_t *loop, fs_handler h, void *ud)
{
    memset(s, 0, sizeof(*s));
    s->loop = loop;
    s->handler = h;
    s->ud = ud;
    uv_tcp_init(loop, &s->listener);
    s->listener.data = s;
    struct sockaddr_in a;
    uv_ip4_addr("127.0.0.1", 0, &a);
    if (uv_tcp_bind(&s->listener, (const struct sockaddr *)&a, 0) != 0)
        return -1;
    if (uv_listen((uv_stream_t *)&s->listener, 64, fs_on_connection) != 0)
        return -1;
    struct sockaddr_in got;
    int len = sizeof(got);
    uv_tcp_getsockname(&s->listener, (struct sockaddr *)&got, &len);
    s->port = ntohs(got.sin_port);
    return 0;
}

void fs_stop(struct fake_server *s)
{
    while (s->conns) {
        struct fs_conn *c = s->conns;
        if (!c->closing)
            fs_drop(c);
        /* fs_on_conn_closed unlinks; move on meanwhile */
        s->conns = c->next;
        c->next = NULL;
    }
    uv_close((uv_handle_t *)&s->listener, NULL);
}

void fs_api_start(struct fs_api *a, uv_loop_t *loop, const char *token, fs_handler h, void *ud,
                  struct kube_client **kc)
{
    memset(a, 0, sizeof(*a));
    assert_int_equal(uv_loop_init(loop), 0);
    assert_int_equal(fs_start(&a->srv, loop, h, ud), 0);
    (void)snprintf(a->url, sizeof(a->url), "http://127.0.0.1:%d", a->srv.port);
    a->cfg.server = a->url;
    if (token) {
        (void)snprintf(a->token, sizeof(a->token), "%s", token);
        a->cfg.token = a->token;
    }
    assert_int_equal(kube_client_new(loop, &a->cfg, kc), 0);
}

void fs_api_stop(struct fs_api *a, struct kube_client *kc)
{
    uv_loop_t *loop = a->srv.loop;
    kube_client_free(kc);
    fs_stop(&a->srv);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(loop), 0);
}
