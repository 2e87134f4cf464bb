/* fio command lines and the fio 3.x JSON parser. */
#include "pkg/bench/fio.h"
#include "pkg/bench/fields.h"
#include "pkg/util/err.h"
#include "pkg/util/mem.h"
#include "pkg/bench/text.h"
#include "pkg/bench/put.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FIO_MAX_INPUT (64u << 20)
#define FIO_MAX_JOBS 64

static const char *const zeroing[] = {
    "gtod_reduce", "disable_lat", "disable_clat", "disable_slat", "disable_bw_measurement",
    "disable_bw"};

bool bench_fio_option_zeroes_latency(const char *name)
{
    if (!name)
        return false;
    while (*name == '-')
        name++;
    size_t n = strcspn(name, "=");
    for (size_t i = 0; i < sizeof(zeroing) / sizeof(zeroing[0]); i++)
        if (strlen(zeroing[i]) == n && !strncmp(zeroing[i], name, n))
            return true;
    return false;
}

/* allowed passthrough options; value syntax checked by safe_value */
static const char *const fio_allowed[] = {
    "ramp_time",
    "randrepeat",
    "norandommap",
    "refill_buffers",
    "buffer_compress_percentage",
    "rwmixread",
    "rwmixwrite",
    "rate_iops",
    "rate",
    "thinktime",
    "invalidate",
    "end_fsync",
    "nrfiles",
    "fallocate",
    "random_distribution",
    "percentile_list",
    "file_service_type",
    "iodepth_batch_submit",
    "iodepth_batch_complete_min",
    "sync",
    "create_on_open",
    "random_generator",
    "lat_percentiles",
    "clat_percentiles",
    "overwrite",
    "fsync_on_close",
    "zero_buffers",
    "scramble_buffers",
    "unlink",
    "loops",
    "offset",
    "startdelay",
};

static int safe_value(const char *v)
{
    if (!*v || strlen(v) > 256)
        return 0;
    for (; *v; v++)
        if (!(isalnum((unsigned char)*v) || strchr("_.:%,-", *v)))
            return 0;
    return 1;
}

int bench_fio_check_extra(const char *arg, char *err, size_t errlen)
{
    if (!arg || strncmp(arg, "--", 2) != 0)
        return util_errf(err, errlen, "fio extra args: '%.64s' must be --name=value",
                         arg ? arg : "");
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    if (!eq)
        return util_errf(err, errlen, "fio extra args: '%.64s' must be --name=value", arg);
    size_t n = (size_t)(eq - name);
    char opt[64];
    if (n == 0 || n >= sizeof(opt))
        return util_errf(err, errlen, "fio extra args: invalid option '%.64s'", arg);
    memcpy(opt, name, n);
    opt[n] = '\0';
    if (bench_fio_option_zeroes_latency(opt))
        return util_errf(err, errlen, "fio option %s is refused: it disables latency measurement",
                         opt);
    if ((!strcmp(opt, "lat_percentiles") || !strcmp(opt, "clat_percentiles")) &&
        strcmp(eq + 1, "1") != 0)
        return util_errf(err, errlen, "fio option %s=%.16s is refused: percentiles are required",
                         opt, eq + 1);
    int ok = 0;
    for (size_t i = 0; i < sizeof(fio_allowed) / sizeof(fio_allowed[0]); i++)
        if (!strcmp(fio_allowed[i], opt))
            ok = 1;
    if (!ok)
        return util_errf(err, errlen, "fio option %s is not in the passthrough allow-list", opt);
    if (!safe_value(eq + 1))
        return util_errf(err, errlen, "fio option %s: invalid value", opt);
    return 0;
}

int bench_fio_size_bytes(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -EINVAL;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        if (v > (UINT64_C(1) << 62) / 10)
            return -EINVAL;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    char unit[4] = "";
    size_t n = strlen(s);
    if (n > 3)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (!isalpha((unsigned char)s[i]))
            return -EINVAL;
        unit[i] = (char)tolower((unsigned char)s[i]);
    }
    /* fio's __get_mult_bytes: "kib" .. "pib" first (powers of 1000 under kb_base=1024), then
     * the first letter k m g t p (powers of 1024); anything else multiplies by 1 */
    static const char prefixes[] = "kmgtp";
    const char *at = unit[0] ? strchr(prefixes, unit[0]) : NULL;
    uint64_t mult = 1;
    if (at) {
        uint64_t base = unit[1] == 'i' && unit[2] == 'b' ? 1000 : 1024;
        for (ptrdiff_t i = 0; i <= at - prefixes; i++)
            mult *= base;
    }
    if (v > (UINT64_MAX >> 1) / mult)
        return -EINVAL;
    *out = v * mult;
    return 0;
}

static int valid_size(const char *s)
{
    /* digits with optional k/m/g/t suffix and optional i/b: 8k, 1G, 4KiB, 1048576 */
    if (!s || !isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s))
        s++;
    if (*s && strchr("kKmMgGtT", *s)) {
        s++;
        if (*s == 'i')
            s++;
        if (*s == 'b' || *s == 'B')
            s++;
    }
    return *s == '\0';
}

static int valid_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 63)
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-'))
            return 0;
    return 1;
}

static int one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return 1;
    return 0;
}

static int check_directory(const char *dir, char *err, size_t errlen)
{
    if (!dir || dir[0] != '/' || strchr(dir, ':') || strlen(dir) > 1024)
        return util_errf(err, errlen, "fio directory must be an absolute path without ':'");
    for (const char *c = dir; *c; c++)
        if ((unsigned char)*c < 0x20)
            return util_errf(err, errlen, "fio directory has control characters");
    return 0;
}

/* Job i's options, one by one; its name must differ from the jobs before it. */
static int check_job(const struct bench_fio_opts *o, size_t i, char *err, size_t errlen)
{
    static const char *const rws[] = {"read", "write",  "randread",  "randwrite",
                                      "rw",   "randrw", "readwrite", NULL};
    static const char *const engines[] = {"libaio",   "io_uring", "psync",   "sync",
                                          "posixaio", "pvsync",   "pvsync2", NULL};
    const struct bench_fio_job_opts *j = &o->jobs[i];
    if (!valid_name(j->name))
        return util_errf(err, errlen, "fio job %zu: name must match [A-Za-z0-9_.-]{1,63}", i);
    for (size_t k = 0; k < i; k++)
        if (!strcmp(o->jobs[k].name, j->name))
            return util_errf(err, errlen, "fio job %zu: duplicate name %s", i, j->name);
    if (j->rw && !one_of(j->rw, rws))
        return util_errf(err, errlen,
                         "fio job %s: rw must be read|write|randread|randwrite|rw|randrw", j->name);
    if (j->bs && !valid_size(j->bs))
        return util_errf(err, errlen, "fio job %s: invalid bs '%.32s'", j->name, j->bs);
    if (!j->size || !valid_size(j->size))
        return util_errf(err, errlen, "fio job %s: size is required (e.g. 1G)", j->name);
    if (j->iodepth < 0 || j->iodepth > 65536)
        return util_errf(err, errlen, "fio job %s: iodepth must be 1..65536", j->name);
    if (j->numjobs < 0 || j->numjobs > 1024)
        return util_errf(err, errlen, "fio job %s: numjobs must be 1..1024", j->name);
    if (j->runtime_s < 0)
        return util_errf(err, errlen, "fio job %s: runtime must be >= 0", j->name);
    if (j->ioengine && !one_of(j->ioengine, engines))
        return util_errf(
            err, errlen,
            "fio job %s: ioengine must be libaio|io_uring|psync|sync|posixaio|pvsync|pvsync2",
            j->name);
    if (j->fsync < 0 || j->fdatasync < 0)
        return util_errf(err, errlen, "fio job %s: fsync/fdatasync must be >= 0", j->name);
    if (j->fsync > 0 && j->fdatasync > 0)
        return util_errf(err, errlen, "fio job %s: fsync and fdatasync are exclusive", j->name);
    return 0;
}

/* One job's section: --name=J --stonewall and its options, defaults filled in; with log_dir its
 * IOPS and bandwidth logs, averaged per second. */
static void push_job(struct bench_argv *a, const struct bench_fio_job_opts *j, const char *log_dir)
{
    bench_argv_pushf(a, "--name=%s", j->name);
    bench_argv_push(a, "--stonewall");
    bench_argv_pushf(a, "--rw=%s", j->rw ? j->rw : "randrw");
    bench_argv_pushf(a, "--bs=%s", j->bs ? j->bs : "4k");
    bench_argv_pushf(a, "--iodepth=%d", j->iodepth > 0 ? j->iodepth : 1);
    bench_argv_pushf(a, "--numjobs=%d", j->numjobs > 0 ? j->numjobs : 1);
    bench_argv_pushf(a, "--size=%s", j->size);
    if (j->runtime_s > 0) {
        bench_argv_pushf(a, "--runtime=%d", j->runtime_s);
        bench_argv_push(a, "--time_based");
    }
    bench_argv_pushf(a, "--direct=%d", j->direct ? 1 : 0);
    bench_argv_pushf(a, "--ioengine=%s", j->ioengine ? j->ioengine : "psync");
    if (j->fsync > 0)
        bench_argv_pushf(a, "--fsync=%d", j->fsync);
    if (j->fdatasync > 0)
        bench_argv_pushf(a, "--fdatasync=%d", j->fdatasync);
    if (log_dir) {
        bench_argv_pushf(a, "--write_iops_log=%s/%s", log_dir, j->name);
        bench_argv_pushf(a, "--write_bw_log=%s/%s", log_dir, j->name);
        bench_argv_push(a, "--log_avg_msec=1000");
    }
}

int bench_fio_argv(const struct bench_fio_opts *o, struct bench_argv *out, char *err, size_t errlen)
{
    struct bench_argv a = BENCH_ARGV_INIT;
    int rc = check_directory(o->directory, err, errlen);
    if (!rc && o->log_dir)
        rc = check_directory(o->log_dir, err, errlen);
    if (rc)
        return rc;
    if (o->njobs < 1 || o->njobs > FIO_MAX_JOBS)
        return util_errf(err, errlen, "fio needs 1..%d jobs", FIO_MAX_JOBS);
    for (size_t i = 0; !rc && i < o->njobs; i++)
        rc = check_job(o, i, err, errlen);
    for (size_t i = 0; !rc && i < o->nextra; i++)
        rc = bench_fio_check_extra(o->extra_args[i], err, errlen);
    if (rc)
        return rc;
    bench_argv_push(&a, o->fio_path ? o->fio_path : "fio");
    bench_argv_push(&a, "--output-format=json");
    bench_argv_pushf(&a, "--directory=%s", o->directory);
    bench_argv_push(&a, "--group_reporting");
    /* total latency percentiles too, not only completion latency */
    bench_argv_push(&a, "--lat_percentiles=1");
    for (size_t i = 0; i < o->nextra; i++)
        bench_argv_push(&a, o->extra_args[i]);
    for (size_t i = 0; i < o->njobs; i++)
        push_job(&a, &o->jobs[i], o->log_dir);
    *out = a;
    return 0;
}

/* ---- JSON parser ---- */

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static uint64_t unum(const cJSON *o, const char *key)
{
    double d = num(o, key);
    return d >= 0 && d < 1.8e19 ? (uint64_t)d : 0;
}

static double pct(const cJSON *percentile, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(percentile, key);
    return cJSON_IsNumber(v) ? v->valuedouble / 1000.0 : NAN;
}

static void parse_lat(const cJSON *o, struct bench_fio_lat *l)
{
    l->present = false;
    l->min_us = l->max_us = l->mean_us = l->stddev_us = NAN;
    l->p50_us = l->p90_us = l->p95_us = l->p99_us = l->p999_us = NAN;
    l->samples = 0;
    if (!cJSON_IsObject(o))
        return;
    l->samples = unum(o, "N");
    l->present = l->samples > 0;
    l->min_us = num(o, "min") / 1000.0;
    l->max_us = num(o, "max") / 1000.0;
    l->mean_us = num(o, "mean") / 1000.0;
    l->stddev_us = num(o, "stddev") / 1000.0;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "percentile"), *it;
    l->npct = 0;
    cJSON_ArrayForEach(it, p)
    {
        char *end;
        double q = it->string ? strtod(it->string, &end) : NAN;
        if (l->npct < BENCH_FIO_MAX_PCT && it->string && !*end && q > 0 && q < 100 &&
            cJSON_IsNumber(it)) {
            l->pct[l->npct] = q;
            l->pct_us[l->npct++] = it->valuedouble / 1000.0;
        }
    }
    if (cJSON_IsObject(p)) {
        l->p50_us = pct(p, "50.000000");
        l->p90_us = pct(p, "90.000000");
        l->p95_us = pct(p, "95.000000");
        l->p99_us = pct(p, "99.000000");
        l->p999_us = pct(p, "99.900000");
    }
}

static void parse_dir(const cJSON *o, struct bench_fio_dir *d)
{
    memset(d, 0, sizeof(*d));
    d->iops = d->bw_kibs = d->runtime_ms = NAN;
    parse_lat(NULL, &d->clat);
    parse_lat(NULL, &d->lat);
    parse_lat(NULL, &d->slat);
    if (!cJSON_IsObject(o))
        return;
    d->iops = num(o, "iops");
    d->bw_kibs = num(o, "bw");
    d->io_kbytes = unum(o, "io_kbytes");
    d->total_ios = unum(o, "total_ios");
    d->runtime_ms = num(o, "runtime");
    d->present = d->total_ios > 0 || d->io_kbytes > 0;
    parse_lat(cJSON_GetObjectItemCaseSensitive(o, "clat_ns"), &d->clat);
    parse_lat(cJSON_GetObjectItemCaseSensitive(o, "lat_ns"), &d->lat);
    parse_lat(cJSON_GetObjectItemCaseSensitive(o, "slat_ns"), &d->slat);
}

/* The value of option name for a job: its "job options", else fio's "global options". */
static const char *job_option(const cJSON *job, const cJSON *root, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(job, "job options"), name);
    if (!v)
        v = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(root, "global options"), name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* fio's boolean options: set unless 0/false/off/no (fio prints the value as it was given) */
static bool option_on(const char *v)
{
    static const char *const off[] = {"0", "false", "off", "no"};
    if (!v)
        return false;
    for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
        if (!strcasecmp(v, off[i]))
            return false;
    return true;
}

/* options that stop fio from timing I/Os (disable_slat only drops slat, which we do not report) */
static const char *const lat_off_options[] = {"gtod_reduce", "disable_lat", "disable_clat"};

static void parse_job_options(const cJSON *job, const cJSON *root, struct bench_fio_job_result *j)
{
    size_t o = 0;
    for (size_t i = 0; i < sizeof(lat_off_options) / sizeof(lat_off_options[0]); i++) {
        const char *v = job_option(job, root, lat_off_options[i]);
        if (!option_on(v))
            continue;
        int n = snprintf(j->lat_off + o, sizeof(j->lat_off) - o, "%s%s=%.8s", o ? " " : "",
                         lat_off_options[i], v);
        if (n < 0 || (size_t)n >= sizeof(j->lat_off) - o)
            break;
        o += (size_t)n;
    }
    static const char *const syncs[] = {"fsync", "fdatasync"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = job_option(job, root, syncs[i]);
        if (v && strtol(v, NULL, 10) > 0)
            j->syncs_requested = true;
    }
}

/* The offset of the first line that starts a JSON object (fio may print lines before it), or
 * len when there is none. */
static size_t json_start(const char *text, size_t len)
{
    size_t off = 0;
    while (off < len && text[off] != '{') {
        const char *nl = memchr(text + off, '\n', len - off);
        if (!nl)
            return len;
        off = (size_t)(nl - text) + 1;
    }
    return off;
}

/* One entry of fio's "jobs" array. */
static void parse_job(const cJSON *job, const cJSON *root, struct bench_fio_job_result *j)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(job, "jobname");
    if (cJSON_IsString(name))
        bench__copy_clean(j->name, sizeof(j->name), name->valuestring, strlen(name->valuestring));
    double e = num(job, "error");
    j->error = e >= INT32_MIN && e <= INT32_MAX ? (int)e : 0;
    parse_dir(cJSON_GetObjectItemCaseSensitive(job, "read"), &j->read);
    parse_dir(cJSON_GetObjectItemCaseSensitive(job, "write"), &j->write);
    parse_dir(cJSON_GetObjectItemCaseSensitive(job, "trim"), &j->trim);
    const cJSON *sync = cJSON_GetObjectItemCaseSensitive(job, "sync");
    parse_lat(cJSON_GetObjectItemCaseSensitive(sync, "lat_ns"), &j->sync);
    /* fio 3.x leaves sync.total_ios at 0; the latency sample count is the real number */
    j->sync_total_ios = unum(sync, "total_ios");
    if (j->sync.samples > j->sync_total_ios)
        j->sync_total_ios = j->sync.samples;
    parse_job_options(job, root, j);
}

int bench_fio_parse(const char *text, size_t len, struct bench_fio_result **out, char *err,
                    size_t errlen)
{
    if (len > FIO_MAX_INPUT)
        return util_errf(err, errlen, "fio output larger than %u bytes", FIO_MAX_INPUT);
    size_t off = json_start(text, len);
    if (off >= len)
        return util_errf(err, errlen, "no JSON object in fio output");
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text + off, len - off, &end, 0);
    if (!root)
        return util_errf(err, errlen, "fio output is not valid JSON");
    struct bench_fio_result *r = NULL;
    int rc = 0;
    const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(root, "jobs");
    if (!cJSON_IsObject(root) || !cJSON_IsArray(jobs)) {
        rc = util_errf(err, errlen, "fio JSON has no jobs array");
        goto out;
    }
    r = util_xcalloc(1, sizeof(*r));
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "fio version");
    if (cJSON_IsString(ver))
        bench__copy_clean(r->version, sizeof(r->version), ver->valuestring,
                          strlen(ver->valuestring));
    double ts = num(root, "timestamp");
    r->timestamp = ts >= 0 && ts < 1e15 ? (int64_t)ts : -1;
    int n = cJSON_GetArraySize(jobs);
    if (n > 4096) {
        rc = util_errf(err, errlen, "fio JSON has too many jobs");
        goto out;
    }
    if (n > 0)
        r->jobs = util_xcalloc((size_t)n, sizeof(*r->jobs));
    const cJSON *job;
    cJSON_ArrayForEach(job, jobs)
    {
        if (!cJSON_IsObject(job) || !r->jobs || r->njobs >= (size_t)n)
            continue;
        parse_job(job, root, &r->jobs[r->njobs++]);
    }
out:
    cJSON_Delete(root);
    if (rc) {
        bench_fio_result_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

void bench_fio_result_free(struct bench_fio_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->njobs; i++)
        free(r->jobs[i].series);
    free(r->jobs);
    free(r);
}

/* The point at second t of j's series, made (NAN values) when new; NULL past the cap. */
static struct bench_fio_point *series_at(struct bench_fio_job_result *j, long t)
{
    if (t < 0 || t >= BENCH_FIO_MAX_SERIES)
        return NULL;
    if ((size_t)t >= j->nseries) {
        j->series = util_xrealloc(j->series, (size_t)(t + 1) * sizeof(*j->series));
        for (size_t k = j->nseries; k <= (size_t)t; k++)
            j->series[k] = (struct bench_fio_point){(double)k, {NAN, NAN}, {NAN, NAN}};
        j->nseries = (size_t)t + 1;
    }
    return &j->series[t];
}

/* Adds one log file (bw true: bandwidth, else IOPS) to j's series. */
static int read_log(struct bench_fio_job_result *j, const char *path, bool bw)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    char line[256];
    while (fgets(line, sizeof(line), f)) {
        long long ms, dir;
        double v;
        if (sscanf(line, "%lld, %lf, %lld", &ms, &v, &dir) != 3 || ms < 0 || dir < 0 || dir > 1)
            continue;
        struct bench_fio_point *p = series_at(j, (long)llround((double)ms / 1000.0));
        if (!p)
            continue;
        double *slot = bw ? &p->bw_kibs[dir] : &p->iops[dir];
        *slot = isfinite(*slot) ? *slot + v : v;
    }
    (void)fclose(f);
    return 0;
}

int bench_fio_read_series(struct bench_fio_result *r, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        for (size_t i = 0; i < r->njobs; i++) {
            struct bench_fio_job_result *j = &r->jobs[i];
            size_t n = strlen(j->name);
            const char *rest = e->d_name + n;
            if (strncmp(e->d_name, j->name, n) != 0)
                continue;
            bool bw = strncmp(rest, "_bw.", 4) == 0, iops = strncmp(rest, "_iops.", 6) == 0;
            size_t len = strlen(e->d_name);
            if ((!bw && !iops) || len < 4 || strcmp(e->d_name + len - 4, ".log") != 0)
                continue;
            char path[4096];
            if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
                (void)read_log(j, path, bw);
        }
    }
    closedir(d);
    for (size_t i = 0; i < r->njobs; i++) /* second 0 holds nothing: fio logs from 1 s on */
        if (r->jobs[i].nseries > 0 && !isfinite(r->jobs[i].series[0].iops[0]) &&
            !isfinite(r->jobs[i].series[0].iops[1]) && !isfinite(r->jobs[i].series[0].bw_kibs[0]) &&
            !isfinite(r->jobs[i].series[0].bw_kibs[1])) {
            memmove(r->jobs[i].series, r->jobs[i].series + 1,
                    (r->jobs[i].nseries - 1) * sizeof(*r->jobs[i].series));
            r->jobs[i].nseries--;
        }
    return 0;
}

bool bench_fio_result_complete(const struct bench_fio_result *r)
{
    if (!r || r->njobs == 0)
        return false;
    for (size_t i = 0; i < r->njobs; i++)
        if (r->jobs[i].error)
            return false;
    return true;
}

/* Appends ", what" (or "what" first) to list; returns false when it does not fit. */
static bool list_add(char *list, size_t cap, const char *what)
{
    size_t o = strlen(list);
    int n = snprintf(list + o, cap - o, "%s%s", o ? ", " : "", what);
    return n >= 0 && (size_t)n < cap - o;
}

/* Names the missing latencies of a direction that did I/O. */
static void dir_missing(char *list, size_t cap, const char *dir, const struct bench_fio_dir *d)
{
    char what[64];
    if (!d->present)
        return;
    if (!d->clat.present && !d->lat.present)
        (void)snprintf(what, sizeof(what), "%s", dir);
    else if (!d->clat.present)
        (void)snprintf(what, sizeof(what), "%s completion (clatUs)", dir);
    else if (!d->lat.present)
        (void)snprintf(what, sizeof(what), "%s total (latUs)", dir);
    else
        return;
    (void)list_add(list, cap, what);
}

int bench_fio_result_errors(const struct bench_fio_result *r, bench_fio_error_fn fn, void *ctx)
{
    char msg[1024], missing[256];
    for (size_t i = 0; r && i < r->njobs; i++) {
        const struct bench_fio_job_result *j = &r->jobs[i];
        missing[0] = '\0';
        if (j->error) {
            (void)snprintf(msg, sizeof(msg), "fio job %s failed: %s", j->name, strerror(j->error));
        } else if (!j->read.present && !j->write.present && !j->trim.present) {
            (void)snprintf(msg, sizeof(msg),
                           "fio job %s: did no I/O, so it has no iops, bandwidth or latency "
                           "samples",
                           j->name);
        } else {
            dir_missing(missing, sizeof(missing), "read", &j->read);
            dir_missing(missing, sizeof(missing), "write", &j->write);
            if (j->syncs_requested && j->write.present && !j->sync.present)
                (void)list_add(missing, sizeof(missing), "sync");
            if (!missing[0])
                continue;
            if (j->lat_off[0])
                (void)snprintf(msg, sizeof(msg),
                               "fio job %s: no latency samples for %s (%s %s off fio's latency "
                               "measurement); iops and bandwidth are kept",
                               j->name, missing, j->lat_off,
                               strchr(j->lat_off, ' ') ? "turn" : "turns");
            else
                (void)snprintf(msg, sizeof(msg),
                               "fio job %s: no latency samples for %s (fio reported none); iops "
                               "and bandwidth are kept",
                               j->name, missing);
        }
        int rc = fn(msg, ctx);
        if (rc)
            return rc;
    }
    return 0;
}

/* A result key, named by its row in the contract table (fields.def). Every latency statistics
 * object (clatUs, latUs, sync) has the keys of the sync rows. */
#define KEY(id) bench_key(BK_##id)

#define LAT_ROW(id, kind, f) BENCH_PUT_ROW(struct bench_fio_lat, FIO_JOBS_SYNC_##id, kind, f)
static const struct bench_put_row lat_rows[] = {
    LAT_ROW(MIN, NUM, min_us),       LAT_ROW(MAX, NUM, max_us), LAT_ROW(MEAN, NUM, mean_us),
    LAT_ROW(STDDEV, NUM, stddev_us), LAT_ROW(P50, NUM, p50_us), LAT_ROW(P90, NUM, p90_us),
    LAT_ROW(P95, NUM, p95_us),       LAT_ROW(P99, NUM, p99_us), LAT_ROW(P999, NUM, p999_us),
    LAT_ROW(SAMPLES, U64, samples),
};

static cJSON *lat_json(const struct bench_fio_lat *l)
{
    if (!l->present)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    bench__put_rows(o, l, lat_rows, BENCH_PUT_NROWS(lat_rows));
    if (l->npct > 0) {
        cJSON *all = cJSON_AddObjectToObject(o, KEY(FIO_JOBS_SYNC_PERCENTILES));
        for (int i = 0; i < l->npct; i++) {
            char k[32];
            (void)snprintf(k, sizeof(k), "%g", l->pct[i]);
            bench__put_num(all, k, l->pct_us[i]);
        }
    }
    return o;
}

#define SERIES_ROW(id, f) BENCH_PUT_ROW(struct bench_fio_point, FIO_JOBS_SERIES_##id, NUM, f)
static const struct bench_put_row series_rows[] = {
    SERIES_ROW(T, t),
    SERIES_ROW(READ_IOPS, iops[0]),
    SERIES_ROW(WRITE_IOPS, iops[1]),
    SERIES_ROW(READ_BW_KI_BS, bw_kibs[0]),
    SERIES_ROW(WRITE_BW_KI_BS, bw_kibs[1]),
};

/* The rows of one direction of a job. */
static const struct dir_rows {
    enum bench_field_id dir, iops, bw, io, total, runtime, clat, lat;
} dir_rows[2] = {
    {BK_FIO_JOBS_READ, BK_FIO_JOBS_READ_IOPS, BK_FIO_JOBS_READ_BW_KI_BS, BK_FIO_JOBS_READ_IO_KI_B,
     BK_FIO_JOBS_READ_TOTAL_IOS, BK_FIO_JOBS_READ_RUNTIME_MS, BK_FIO_JOBS_READ_CLAT_US,
     BK_FIO_JOBS_READ_LAT_US},
    {BK_FIO_JOBS_WRITE, BK_FIO_JOBS_WRITE_IOPS, BK_FIO_JOBS_WRITE_BW_KI_BS,
     BK_FIO_JOBS_WRITE_IO_KI_B, BK_FIO_JOBS_WRITE_TOTAL_IOS, BK_FIO_JOBS_WRITE_RUNTIME_MS,
     BK_FIO_JOBS_WRITE_CLAT_US, BK_FIO_JOBS_WRITE_LAT_US},
};

static cJSON *dir_json(const struct bench_fio_dir *d, const struct dir_rows *k)
{
    if (!d->present)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    bench__put_num(o, bench_key(k->iops), d->iops);
    bench__put_num(o, bench_key(k->bw), d->bw_kibs);
    cJSON_AddNumberToObject(o, bench_key(k->io), (double)d->io_kbytes);
    cJSON_AddNumberToObject(o, bench_key(k->total), (double)d->total_ios);
    bench__put_num(o, bench_key(k->runtime), d->runtime_ms);
    cJSON_AddItemToObject(o, bench_key(k->clat), lat_json(&d->clat));
    cJSON_AddItemToObject(o, bench_key(k->lat), lat_json(&d->lat));
    return o;
}

cJSON *bench_fio_result_to_json(const struct bench_fio_result *r)
{
    cJSON *o = cJSON_CreateObject();
    util_must(cJSON_AddStringToObject(o, KEY(FIO_VERSION), r->version));
    cJSON *jobs = cJSON_AddArrayToObject(o, KEY(FIO_JOBS));
    for (size_t i = 0; i < r->njobs; i++) {
        const struct bench_fio_job_result *j = &r->jobs[i];
        cJSON *jo = cJSON_CreateObject();
        cJSON_AddItemToArray(jobs, jo);
        util_must(cJSON_AddStringToObject(jo, KEY(FIO_JOBS_NAME), j->name));
        cJSON_AddNumberToObject(jo, KEY(FIO_JOBS_ERROR), j->error);
        cJSON_AddItemToObject(jo, KEY(FIO_JOBS_READ), dir_json(&j->read, &dir_rows[0]));
        cJSON_AddItemToObject(jo, KEY(FIO_JOBS_WRITE), dir_json(&j->write, &dir_rows[1]));
        cJSON_AddItemToObject(jo, KEY(FIO_JOBS_SYNC), lat_json(&j->sync));
        if (j->nseries > 0)
            cJSON_AddItemToObject(jo, KEY(FIO_JOBS_SERIES),
                                  bench__put_array(j->series, j->nseries, sizeof(*j->series),
                                                   series_rows, BENCH_PUT_NROWS(series_rows)));
    }
    return o;
}
