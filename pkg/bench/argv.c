/* Argument vectors for child processes. */
#include "pkg/bench/argv.h"
#include "pkg/util/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void argv_take(struct bench_argv *a, char *s)
{
    if (a->argc + 2 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        a->argv = util_xrealloc(a->argv, cap * sizeof(*a->argv));
        a->cap = cap;
    }
    a->argv[a->argc++] = s;
    a->argv[a->argc] = NULL;
}

void bench_argv_push(struct bench_argv *a, const char *s)
{
    argv_take(a, util_xstrdup(s));
}

void bench_argv_vpushf(struct bench_argv *a, const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        util_oom(0); /* vasprintf fails only for memory with these formats */
    argv_take(a, s);
}

void bench_argv_pushf(struct bench_argv *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bench_argv_vpushf(a, fmt, ap);
    va_end(ap);
}

void bench_argv_free(struct bench_argv *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->argc; i++)
        free(a->argv[i]);
    free(a->argv);
    a->argv = NULL;
    a->argc = 0;
    a->cap = 0;
}

static int needs_quote(const char *s)
{
    if (!*s)
        return 1;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (!(c == '-' || c == '_' || c == '.' || c == '/' || c == '=' || c == '@' || c == ':' ||
              c == ',' || c == '+' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
              (c >= 'A' && c <= 'Z')))
            return 1;
    }
    return 0;
}

char *bench_argv_join(const struct bench_argv *a)
{
    size_t len = 1;
    for (size_t i = 0; i < a->argc; i++)
        len += strlen(a->argv[i]) * 4 + 3;
    char *out = util_xmalloc(len);
    char *p = out;
    for (size_t i = 0; i < a->argc; i++) {
        const char *s = a->argv[i];
        if (i)
            *p++ = ' ';
        if (!needs_quote(s)) {
            size_t n = strlen(s);
            memcpy(p, s, n);
            p += n;
            continue;
        }
        *p++ = '\'';
        for (; *s; s++) {
            if (*s == '\'') {
                memcpy(p, "'\\''", 4);
                p += 4;
            } else {
                *p++ = *s;
            }
        }
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}

void bench_fmt_decimal(char *out, size_t len, double v)
{
    char b[400];
    for (int prec = 0; prec <= 340; prec++) {
        (void)snprintf(b, sizeof(b), "%.*f", prec, v);
        if (strtod(b, NULL) == v)
            break;
    }
    (void)snprintf(out, len, "%s", b);
}

void bench_argv_push_decimal(struct bench_argv *a, double v)
{
    char b[400];
    bench_fmt_decimal(b, sizeof(b), v);
    bench_argv_push(a, b);
}
