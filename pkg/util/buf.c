/* Capped byte buffers (buf.h). */
#include "pkg/util/buf.h"
#include "pkg/util/mem.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keeps the first error. */
static int fail(struct buf *b, int err)
{
    if (!b->err)
        b->err = err;
    return b->err;
}

static int buf_reserve(struct buf *b, size_t extra)
{
    if (b->err)
        return b->err;
    if (b->limit && (extra > b->limit || b->len > b->limit - extra))
        return fail(b, -E2BIG);
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    b->data = util_xrealloc(b->data, cap);
    b->cap = cap;
    return 0;
}

int buf_append(struct buf *b, const void *data, size_t len)
{
    int rc = buf_reserve(b, len);
    if (rc < 0)
        return rc;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

int buf_puts(struct buf *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

/* clang-analyzer 14 reports every va_list passed to vsnprintf here as uninitialized, although
 * each is started right before; a known false positive of its valist checker. */
// NOLINTBEGIN(clang-analyzer-valist.Uninitialized)
int buf_printf(struct buf *b, const char *fmt, ...)
{
    if (b->err)
        return b->err;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return fail(b, -EINVAL);
    int rc = buf_reserve(b, (size_t)n);
    if (rc < 0)
        return rc;
    va_start(ap, fmt);
    (void)vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}
// NOLINTEND(clang-analyzer-valist.Uninitialized)

int buf_json_string(struct buf *b, const char *s)
{
    size_t start = b->len;
    int rc = buf_append(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; rc == 0 && *p; p++) {
        switch (*p) {
        case '"':
            rc = buf_append(b, "\\\"", 2);
            break;
        case '\\':
            rc = buf_append(b, "\\\\", 2);
            break;
        case '\n':
            rc = buf_append(b, "\\n", 2);
            break;
        case '\r':
            rc = buf_append(b, "\\r", 2);
            break;
        case '\t':
            rc = buf_append(b, "\\t", 2);
            break;
        default:
            if (*p < 0x20)
                rc = buf_printf(b, "\\u%04x", *p);
            else
                rc = buf_append(b, p, 1);
        }
    }
    if (rc == 0)
        rc = buf_append(b, "\"", 1);
    if (rc < 0 && b->data) {
        b->len = start;
        b->data[start] = '\0';
    }
    return rc;
}

void buf_consume(struct buf *b, size_t n)
{
    if (n >= b->len) {
        buf_reset(b);
        return;
    }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
    b->data[b->len] = '\0';
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    b->err = 0;
    if (b->data)
        b->data[0] = '\0';
}

void buf_free(struct buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->err = 0;
}

char *buf_steal(struct buf *b)
{
    char *d = b->data;
    if (!d)
        d = util_xcalloc(1, 1);
    b->data = NULL;
    b->len = b->cap = 0;
    b->err = 0;
    return d;
}

int buf_put_html(struct buf *b, const char *s)
{
    for (; s && *s && !b->err; s++) {
        switch (*s) {
        case '<':
            buf_puts(b, "&lt;");
            break;
        case '>':
            buf_puts(b, "&gt;");
            break;
        case '&':
            buf_puts(b, "&amp;");
            break;
        case '"':
            buf_puts(b, "&quot;");
            break;
        default:
            buf_append(b, s, 1);
        }
    }
    return b->err;
}
