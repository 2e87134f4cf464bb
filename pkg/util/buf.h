/* A growable byte buffer with a hard cap. Every buffer that holds outside input has one:
 * appends past the cap fail with -E2BIG and leave the buffer unchanged (a real error, returned);
 * running out of memory aborts (mem.h). Knows nothing of what the bytes mean beyond JSON string
 * escaping.
 *
 * The error is sticky (curl's dynbuf): the first failure is kept in err, and every later append
 * does nothing and returns it, so a writer of many pieces appends them all and checks once at
 * the end (`return o->err;`) instead of after each. buf_reset, buf_free and buf_steal clear it. */
#ifndef PGBO_UTIL_BUF_H
#define PGBO_UTIL_BUF_H

#include <stddef.h>

struct buf {
    char *data; /* always NUL-terminated when non-NULL */
    size_t len;
    size_t cap;   /* allocated bytes */
    size_t limit; /* maximum len; 0 = unlimited */
    int err;      /* the first failed append's error (-E2BIG, -EINVAL), or 0 */
};

#define BUF_INIT(lim)                                                                              \
    {                                                                                              \
        .limit = (lim)                                                                             \
    }

/* Each returns 0, or err: the error of this append or of an earlier one (nothing appended). */
int buf_append(struct buf *b, const void *data, size_t len);
int buf_puts(struct buf *b, const char *s);
/* s with <, >, & and " as HTML character references (text and attribute values). */
int buf_put_html(struct buf *b, const char *s);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal, quotes included; nothing of it when it does not fit. */
int buf_json_string(struct buf *b, const char *s);
/* Drops the first n bytes. */
void buf_consume(struct buf *b, size_t n);
/* Empties the buffer (its memory kept) and clears err. */
void buf_reset(struct buf *b);
void buf_free(struct buf *b);
/* Hands the data to the caller (free() it); the buffer is left empty. */
char *buf_steal(struct buf *b);

#endif
