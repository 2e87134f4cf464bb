/* Argument vectors for child processes (pgbench, fio). Never a shell string: each element is one
 * execve() argument. Secrets (the password) never go into one: pgbench gets PGPASSWORD through the
 * environment the caller sets. */
#ifndef PGBO_BENCH_ARGV_H
#define PGBO_BENCH_ARGV_H

#include <stdarg.h>
#include <stddef.h>

struct bench_argv {
    char **argv; /* NULL-terminated; argv[argc] == NULL; owned by the struct */
    size_t argc;
    size_t cap;
};

#define BENCH_ARGV_INIT                                                                            \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Appends a copy of s. Cannot fail: allocation failure aborts (pkg/util/mem.h). */
void bench_argv_push(struct bench_argv *a, const char *s);
/* Appends a printf-formatted argument (allocation failure aborts). */
void bench_argv_pushf(struct bench_argv *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same with a va_list, for wrappers that take their own arguments first. */
void bench_argv_vpushf(struct bench_argv *a, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* The shortest plain decimal (never an exponent) that strtod reads back as v: "1000", "5.5",
 * "250.25", "0.1". For option values a program parses as a number (pgbench -R, the runner's
 * --rate). out gets at most len - 1 characters; 400 always suffices for a finite v. */
void bench_fmt_decimal(char *out, size_t len, double v);
/* Appends bench_fmt_decimal(v). */
void bench_argv_push_decimal(struct bench_argv *a, double v);
/* Frees every element; the struct is left empty and reusable. bench_argv_free on an empty
 * vector does nothing. */
void bench_argv_free(struct bench_argv *a);
/* Renders the vector for logs: elements joined by spaces, each shell-quoted when needed.
 * Caller frees; never NULL. */
char *bench_argv_join(const struct bench_argv *a);

#endif
