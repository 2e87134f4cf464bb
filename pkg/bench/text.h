/* Small text helpers shared by the bench parsers (package-internal). */
#ifndef PGBO_BENCH_TEXT_H
#define PGBO_BENCH_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Copies at most max-1 bytes of s[0..n) into a new string, cut at a UTF-8 character boundary,
 * with invalid UTF-8 bytes and control characters (other than tab) replaced by '?'. Caller frees;
 * never NULL (allocation failure aborts, pkg/util/mem.h). */
char *bench__strndup_clean(const char *s, size_t n, size_t max);
/* In-place variant into a fixed buffer of size cap. */
void bench__copy_clean(char *dst, size_t cap, const char *s, size_t n);
/* The same for one-line messages (errors[]): every run of control characters (tab, newline,
 * CR, ...) becomes a single space instead of '?', so no control character is left. */
char *bench__strndup_message(const char *s, size_t n, size_t max);
void bench__copy_message(char *dst, size_t cap, const char *s, size_t n);
/* If *p starts with prefix, advances past it and returns 1. */
int bench__take(const char **p, const char *prefix);
void bench__skip_spaces(const char **p);
/* Parses a decimal integer / floating number (accepting nan/inf for doubles); advances *p. */
int bench__int64(const char **p, int64_t *out);
/* A non-negative integer that fits an int (clients, threads, weights, seconds). */
int bench__count(const char **p, int *out);
int bench__double(const char **p, double *out);

#endif
