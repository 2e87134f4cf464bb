/* A tiny HTTP/1.1 server on the test's libuv loop, so the client's real curl path runs against
 * canned responses: Content-Length bodies, chunked streams, dropped connections; and fs_api, the
 * set-up every client-side test (kube client, informer, leader election, executor) starts from:
 * the server, its URL, a kube_config and a kube_client pointed at it. Test-only (fake_server.c,
 * linked into every unit test); it trusts its input. */
#ifndef KUBE_TEST_FAKE_SERVER_H
#define KUBE_TEST_FAKE_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

#include "pkg/kube/kube.h"

struct fake_server;

struct fs_conn {
    uv_tcp_t tcp;
    struct fake_server *s;
    char *in;
    size_t inlen, incap;
    bool closing;
    int id;
    struct fs_conn *next;
};

struct fs_req {
    char method[16];
    char path[4096]; /* with the query */
    char headers[8192];
    char *body;
    size_t body_len;
    int conn_id;
};

/* Called for each complete request; r is valid only during the call. */
typedef void (*fs_handler)(struct fake_server *s, struct fs_conn *c, const struct fs_req *r,
                           void *ud);

struct fake_server {
    uv_loop_t *loop;
    uv_tcp_t listener;
    int port;
    fs_handler handler;
    void *ud;
    int nconns;
    int nreqs;
    struct fs_conn *conns;
};

/* Listens on 127.0.0.1, a free port (s->port); 0 or -1. */
int fs_start(struct fake_server *s, uv_loop_t *loop, fs_handler h, void *ud);
/* Drops every connection and closes the listener; the loop then runs until they are closed. */
void fs_stop(struct fake_server *s);

void fs_write(struct fs_conn *c, const char *data, size_t len);
/* Closes the connection at once (a dropped connection, for the client). */
void fs_drop(struct fs_conn *c);
/* A whole response with Content-Length; extra_headers: "Name: value\r\n" lines or NULL. */
void fs_respond(struct fs_conn *c, int status, const char *content_type, const char *extra_headers,
                const char *body);
void fs_json(struct fs_conn *c, int status, const char *body);
/* A Kubernetes Status body (status Failure) with this code, reason and message. */
void fs_status(struct fs_conn *c, int code, const char *reason, const char *message);
/* A chunked response: begin, any number of chunks (an empty one is skipped), end. */
void fs_stream_begin(struct fs_conn *c, int status);
void fs_stream_chunk(struct fs_conn *c, const char *data, size_t len);
void fs_stream_end(struct fs_conn *c);
/* Header value (case-insensitive name) copied into out; false if absent. */
bool fs_header(const struct fs_req *r, const char *name, char *out, size_t n);

/* The fake server and a client for it. */
struct fs_api {
    struct fake_server srv;
    struct kube_config cfg; /* server = url, the token given to fs_api_start */
    char url[64];           /* http://127.0.0.1:port */
    char token[128];
};

/* Initialises loop, starts the server on it (h answers every request, with ud) and a kube_client
 * for it into *kc, authenticating with token (NULL: none).
 * Fails the test if any of it fails. */
void fs_api_start(struct fs_api *a, uv_loop_t *loop, const char *token, fs_handler h, void *ud,
                  struct kube_client **kc);
/* Frees kc (cancelling what it has in flight), stops the server, runs the loop until every
 * handle is closed and closes it; fails the test if the loop does not close (a leaked handle).
 * Whatever else uses the client is freed first. */
void fs_api_stop(struct fs_api *a, struct kube_client *kc);

#endif
