/* pkg/controller/httpd: a tiny HTTP/1.1 server on the libuv loop for /healthz, /readyz and
 * /metrics. One request per connection (Connection: close); requests over 8 KiB are refused. */
#ifndef PGBO_CONTROLLER_HTTPD_H
#define PGBO_CONTROLLER_HTTPD_H

#include <uv.h>

#include "pkg/util/buf.h"

/* Fills body, *code (default 200) and *content_type (default text/plain) for path. */
typedef void (*ctrl_http_handler)(const char *method, const char *path, struct buf *body, int *code,
                                  const char **content_type, void *ud);

struct ctrl_httpd;

/* addr: ":8080" (all interfaces), "127.0.0.1:8080", or "0" port for any free port. */
int ctrl_httpd_start(uv_loop_t *loop, const char *addr, ctrl_http_handler h, void *ud,
                     struct ctrl_httpd **out);
/* The bound port (useful with port 0). */
int ctrl_httpd_port(const struct ctrl_httpd *s);
/* Closes the listener and open connections; memory is freed in close callbacks. */
void ctrl_httpd_close(struct ctrl_httpd *s);

#endif
