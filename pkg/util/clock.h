/* Clocks and RFC 3339 timestamps: the one place that reads the clock, sleeps, or formats and
 * parses a time. Times are doubles in seconds (wall: since the Unix epoch, UTC). Knows nothing of
 * JSON, Kubernetes or pgbench; callers that live on a libuv loop use uv_now() for timers instead.
 */
#ifndef PGBO_UTIL_CLOCK_H
#define PGBO_UTIL_CLOCK_H

#include <signal.h>
#include <stddef.h>

/* CLOCK_REALTIME: for timestamps that others read (status, results, logs, Leases). */
double util_wall_s(void);
/* CLOCK_MONOTONIC: for durations and deadlines inside one process. */
double util_mono_s(void);
/* Sleeps s seconds (nothing when s <= 0); a signal resumes the sleep unless *cancel became set. */
void util_sleep_s(double s, const volatile sig_atomic_t *cancel);

/* Longest text util_rfc3339 writes, NUL included ("YYYY-MM-DDTHH:MM:SS.ffffffZ" + slack). */
#define UTIL_RFC3339_LEN 40
/* Formats t as RFC 3339 UTC with `digits` fraction digits: 0 ("2026-12-05T04:55:53Z", Kubernetes
 * Time, truncated to the second), 3 (milliseconds, results and logs) or 6 (Kubernetes
 * MicroTime), rounded to the last digit so that a parsed time formats back to the same text. */
void util_rfc3339(double t, int digits, char *out, size_t len);
/* Parses RFC 3339 UTC ("...Z", any fraction, or no zone); -1 when s is NULL or not such a time. */
double util_rfc3339_parse(const char *s);

#endif
