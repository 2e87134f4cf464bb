/* pgbench -l per-transaction log parser feeding the latency histogram. */
#include "pkg/bench/pgbench.h"
#include "pkg/bench/text.h"
#include "pkg/util/mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TXLOG_MAX_LINE 4096

struct bench_txlog_line {
    char data[TXLOG_MAX_LINE];
    size_t len;
    int overflow;
};

/* One integer within lo..hi at *p, after a space when spaced. */
static bool take_int(const char **p, bool spaced, int64_t lo, int64_t hi, int64_t *v)
{
    if (spaced && !bench__take(p, " "))
        return false;
    return !bench__int64(p, v) && *v >= lo && *v <= hi;
}

/* The third column: "skipped", a failure word, or the latency in microseconds. */
static int take_status(const char **p, struct bench_txlog_entry *e)
{
    if (bench__take(p, "skipped")) {
        e->status = BENCH_TX_SKIPPED;
    } else if (bench__take(p, "failed") || bench__take(p, "serialization") ||
               bench__take(p, "deadlock") || bench__take(p, "other")) {
        e->status = BENCH_TX_FAILED;
    } else {
        if (bench__int64(p, &e->latency_us) || e->latency_us < 0)
            return -EINVAL;
        e->status = BENCH_TX_OK;
    }
    return 0;
}

/* The optional last columns: schedule lag (with -R) then retries (with --max-tries != 1); one
 * alone is the lag when rate_limited. */
static int take_extras(const char *p, bool rate_limited, struct bench_txlog_entry *e)
{
    int64_t extra[2];
    int nextra = 0;
    while (*p == ' ' && nextra < 2) {
        p++;
        if (!take_int(&p, false, 0, INT64_MAX, &extra[nextra]))
            return -EINVAL;
        nextra++;
    }
    if (*p)
        return -EINVAL;
    if (nextra == 2) {
        e->lag_us = extra[0];
        e->retries = extra[1];
    } else if (nextra == 1 && rate_limited) {
        e->lag_us = extra[0];
    } else if (nextra == 1) {
        e->retries = extra[0];
    }
    return 0;
}

int bench_txlog_parse_line(const char *line, size_t len, bool rate_limited,
                           struct bench_txlog_entry *out)
{
    char buf[256];
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (len == 0 || len >= sizeof(buf))
        return -EINVAL;
    memcpy(buf, line, len);
    buf[len] = '\0';
    const char *p = buf;
    struct bench_txlog_entry e = {0};
    int64_t client, tx, script, epoch, us;
    e.latency_us = -1;
    e.lag_us = -1;
    e.retries = -1;
    if (!take_int(&p, false, 0, INT32_MAX, &client) || !take_int(&p, true, 0, INT64_MAX, &tx) ||
        !bench__take(&p, " ") || take_status(&p, &e))
        return -EINVAL;
    if (!take_int(&p, true, 0, INT32_MAX, &script) ||
        !take_int(&p, true, 0, INT64_MAX / 1000000 - 1, &epoch) ||
        !take_int(&p, true, 0, 999999, &us) || take_extras(p, rate_limited, &e))
        return -EINVAL;
    e.client = (int)client;
    e.transaction = tx;
    e.script = (int)script;
    e.epoch_us = epoch * 1000000 + us;
    *out = e;
    return 0;
}

struct bench_txlog *bench_txlog_new(void)
{
    struct bench_txlog *l = util_xcalloc(1, sizeof(*l));
    l->hist = bench_hist_new();
    l->priv = util_xcalloc(1, sizeof(*l->priv));
    l->first_epoch_us = l->last_epoch_us = -1;
    return l;
}

void bench_txlog_free(struct bench_txlog *l)
{
    if (!l)
        return;
    bench_hist_free(l->hist);
    bench_latseries_free(l->series);
    free(l->priv);
    free(l);
}

/* t = 0 from the first transaction: its start, where it has a latency, else its end. */
static void series_begin(struct bench_txlog *l, const struct bench_txlog_entry *e)
{
    int64_t t0 = e->epoch_us - (e->status == BENCH_TX_OK ? e->latency_us : 0);
    l->series = bench_latseries_new(t0);
    if (l->warmup_us > 0)
        l->cut_epoch_us = t0 + l->warmup_us;
}

static void txlog_line(struct bench_txlog *l, const char *s, size_t n)
{
    struct bench_txlog_entry e;
    while (n && (s[n - 1] == '\r'))
        n--;
    if (n == 0)
        return;
    if (bench_txlog_parse_line(s, n, l->rate_limited, &e)) {
        l->malformed++;
        return;
    }
    if (l->keep_series && !l->series)
        series_begin(l, &e);
    if (l->series && e.status == BENCH_TX_OK)
        bench_latseries_add(l->series, e.epoch_us, e.latency_us);
    if (e.epoch_us < l->cut_epoch_us) {
        l->warm_ok += e.status == BENCH_TX_OK;
        l->warm_failed += e.status == BENCH_TX_FAILED;
        return;
    }
    switch (e.status) {
    case BENCH_TX_OK:
        l->ok++;
        bench_hist_add(l->hist, e.latency_us);
        break;
    case BENCH_TX_FAILED:
        l->failed++;
        break;
    case BENCH_TX_SKIPPED:
        l->skipped++;
        break;
    }
    if (e.retries > 0)
        l->retries += (uint64_t)e.retries;
    if (l->first_epoch_us < 0 || e.epoch_us < l->first_epoch_us)
        l->first_epoch_us = e.epoch_us;
    if (e.epoch_us > l->last_epoch_us)
        l->last_epoch_us = e.epoch_us;
}

void bench_txlog_start(struct bench_txlog *l, double warmup_s)
{
    l->keep_series = true;
    l->warmup_us = warmup_s > 0 ? (int64_t)llround(warmup_s * 1e6) : 0;
}

void bench_txlog_feed(struct bench_txlog *l, const char *data, size_t len)
{
    struct bench_txlog_line *lb = l->priv;
    while (len) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        if (lb->len == 0 && nl && !lb->overflow) {
            txlog_line(l, data, n); /* fast path: whole line in the chunk */
        } else {
            if (lb->len + n < TXLOG_MAX_LINE) {
                memcpy(lb->data + lb->len, data, n);
                lb->len += n;
            } else {
                lb->overflow = 1;
            }
            if (nl) {
                if (lb->overflow)
                    l->malformed++;
                else
                    txlog_line(l, lb->data, lb->len);
                lb->len = 0;
                lb->overflow = 0;
            }
        }
        if (nl)
            n++;
        data += n;
        len -= n;
    }
}

void bench_txlog_finish(struct bench_txlog *l)
{
    struct bench_txlog_line *lb = l->priv;
    if (lb->overflow)
        l->malformed++;
    else if (lb->len)
        txlog_line(l, lb->data, lb->len);
    lb->len = 0;
    lb->overflow = 0;
}

int bench_txlog_read_file(struct bench_txlog *l, const char *path)
{
    char chunk[65536];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        if (n == 0)
            break;
        bench_txlog_feed(l, chunk, (size_t)n);
    }
    close(fd);
    if (!rc)
        bench_txlog_finish(l);
    return rc;
}

int bench_txlog_read_dir(struct bench_txlog *l, const char *dir, const char *prefix, size_t *nfiles)
{
    if (!prefix)
        prefix = BENCH_PGBENCH_LOG_PREFIX;
    size_t plen = strlen(prefix);
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    int rc = 0;
    size_t count = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, plen) != 0 || de->d_name[plen] != '.')
            continue;
        char path[4096];
        int n = snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (n < 0 || (size_t)n >= sizeof(path)) {
            rc = -ENAMETOOLONG;
            break;
        }
        struct stat sb;
        if (stat(path, &sb) || !S_ISREG(sb.st_mode))
            continue;
        rc = bench_txlog_read_file(l, path);
        if (rc)
            break;
        count++;
    }
    closedir(d);
    if (nfiles)
        *nfiles = count;
    return rc;
}
