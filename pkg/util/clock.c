/* Clocks and RFC 3339 timestamps. */
#include "pkg/util/clock.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double read_clock(clockid_t id)
{
    struct timespec ts;
    (void)clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double util_wall_s(void)
{
    return read_clock(CLOCK_REALTIME);
}

double util_mono_s(void)
{
    return read_clock(CLOCK_MONOTONIC);
}

void util_sleep_s(double s, const volatile sig_atomic_t *cancel)
{
    if (!(s > 0))
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
        if (cancel && *cancel)
            return;
    }
}

void util_rfc3339(double t, int digits, char *out, size_t len)
{
    if (len == 0)
        return;
    /* to whole units of the last digit, rounded: a time parsed from "...14.972Z" is a double a
     * hair below .972, and truncating it would write it back as .971 */
    long long scale = digits == 3 ? 1000 : digits == 6 ? 1000000 : 1;
    long long units = scale == 1 ? (long long)floor(t) : llround(t * (double)scale);
    long long whole = units / scale - (units % scale < 0), frac = units - whole * scale;
    time_t secs = (time_t)whole;
    struct tm tm;
    char date[32];
    if (!gmtime_r(&secs, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm)) {
        out[0] = '\0';
        return;
    }
    if (scale == 1)
        (void)snprintf(out, len, "%sZ", date);
    else
        (void)snprintf(out, len, "%s.%0*lldZ", date, digits, frac);
}

double util_rfc3339_parse(const char *s)
{
    if (!s)
        return -1;
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!p)
        return -1;
    double frac = 0;
    if (*p == '.') {
        char *end;
        frac = strtod(p, &end);
        p = end;
    }
    if (*p != 'Z' && *p != '\0')
        return -1;
    return (double)timegm(&tm) + frac;
}
