/* fio: command lines for storage probes and the parser of fio 3.x JSON output.
 *
 * Each job of bench_fio_opts becomes one fio job on the command line, run one after the other
 * (--stonewall) in its own reporting group (--group_reporting merges a job's numjobs clones),
 * with --output-format=json. Options that make fio stop measuring latencies (gtod_reduce,
 * disable_lat, disable_clat, disable_slat, clat_percentiles=0, lat_percentiles=0 ...) are refused.
 * The parser reads any fio JSON, also one made with such options: latencies fio did not measure
 * are null, and bench_fio_result_errors says which job lacks them and why.
 */
#ifndef PGBO_BENCH_FIO_H
#define PGBO_BENCH_FIO_H

#include "pkg/bench/argv.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bench_fio_job_opts {
    const char *name;     /* [A-Za-z0-9_.-]{1,63} */
    const char *rw;       /* read|write|randread|randwrite|rw|randrw|readwrite (default randrw) */
    const char *bs;       /* size with optional k/m/g suffix, e.g. "8k" (default "4k") */
    int iodepth;          /* >= 1 (default 1) */
    int numjobs;          /* >= 1 (default 1) */
    const char *size;     /* per-clone file size, e.g. "1G" (required) */
    int runtime_s;        /* > 0: --runtime=N --time_based; 0: until size is done */
    bool direct;          /* --direct=1 */
    const char *ioengine; /* libaio|io_uring|psync|sync|posixaio|pvsync|pvsync2 (default psync) */
    int fsync;            /* --fsync=N when > 0 */
    int fdatasync;        /* --fdatasync=N when > 0 */
};

struct bench_fio_opts {
    const char *fio_path;  /* default "fio" */
    const char *directory; /* required; absolute path, no ':' (fio's separator) */
    const struct bench_fio_job_opts *jobs;
    size_t njobs;                  /* 1..64 */
    const char *const *extra_args; /* "--name=value" only; see bench_fio_check_extra */
    size_t nextra;
    /* NULL, or a directory for fio's IOPS and bandwidth logs: each job gets
     * --write_iops_log=DIR/<job> --write_bw_log=DIR/<job> --log_avg_msec=1000, which
     * bench_fio_read_series reads back */
    const char *log_dir;
};

/* Builds: fio --output-format=json --directory=DIR --group_reporting --lat_percentiles=1 [extra]
 *         --name=J1 --stonewall --rw=.. --bs=.. --iodepth=.. --numjobs=.. --size=..
 *         [--runtime=N --time_based] [--direct=1] --ioengine=.. [--fsync=N] [--fdatasync=N] ...
 * Returns 0 or -EINVAL (message in err). */
int bench_fio_argv(const struct bench_fio_opts *o, struct bench_argv *out, char *err,
                   size_t errlen);

/* Returns true when a fio option name (without leading dashes or "=value") must be refused
 * because it disables or reduces latency measurement: gtod_reduce, disable_lat, disable_clat,
 * disable_slat, disable_bw_measurement, clat_percentiles/lat_percentiles/percentile_list set to
 * off are handled by bench_fio_check_extra. */
bool bench_fio_option_zeroes_latency(const char *name);
/* Validates one passthrough argument "--opt=value": allowed are a small set (e.g.
 * --ramp_time, --random_generator, --randrepeat, --norandommap, --refill_buffers,
 * --buffer_compress_percentage, --rwmixread, --rate_iops, --thinktime, --invalidate,
 * --end_fsync, --file_service_type, --nrfiles, --fallocate); latency-zeroing options, output
 * options, --filename/--directory/--exec* and unknown names are refused. Returns 0 or -EINVAL. */
int bench_fio_check_extra(const char *arg, char *err, size_t errlen);

/* The bytes of a fio size (bs, size) as fio reads it with its default kb_base=1024: decimal
 * digits, then an optional unit, case-insensitive: k m g t p, alone or with b ("8k", "1GB") or i
 * ("1Gi"), are powers of 1024; kib mib gib tib pib are powers of 1000 (fio's compatibility mode
 * gives the IEC names the SI values: 1GiB is 10^9 bytes); no unit, or another letter, counts
 * bytes. Returns 0 with *out, or -EINVAL for anything else or a value of 2^63 or more. */
int bench_fio_size_bytes(const char *s, uint64_t *out);

#define BENCH_FIO_MAX_PCT 32
/* Latency distribution in microseconds (fio reports ns; converted). NAN when absent. */
struct bench_fio_lat {
    bool present;
    double min_us, max_us, mean_us, stddev_us;
    double p50_us, p90_us, p95_us, p99_us, p999_us;
    uint64_t samples; /* "N" */
    /* every percentile fio reported (its percentile_list), in its order */
    int npct;
    double pct[BENCH_FIO_MAX_PCT], pct_us[BENCH_FIO_MAX_PCT];
};

/* One second of a job's IOPS and bandwidth log: [0] read, [1] write; NAN where the log has none. */
#define BENCH_FIO_MAX_SERIES 3600
struct bench_fio_point {
    double t; /* seconds since the job started: the end of the second */
    double iops[2], bw_kibs[2];
};

struct bench_fio_dir {
    bool present; /* the direction did I/O (total_ios > 0 or io_kbytes > 0) */
    double iops;
    double bw_kibs; /* "bw" is KiB/s in fio JSON */
    uint64_t io_kbytes;
    uint64_t total_ios;
    double runtime_ms;
    struct bench_fio_lat clat, lat, slat;
};

struct bench_fio_job_result {
    char name[128];
    int error; /* fio's per-job "error" (errno) */
    struct bench_fio_dir read, write, trim;
    struct bench_fio_lat sync; /* fsync/fdatasync latency ("sync" -> "lat_ns") */
    uint64_t sync_total_ios;   /* max(sync.total_ios, sync latency samples) */
    /* Options in effect for the job ("job options", else fio's "global options") that turn
     * latency measurement off, as "gtod_reduce=1" or "disable_lat=1 disable_clat=1"; "" when
     * none. */
    char lat_off[96];
    bool syncs_requested;           /* fsync or fdatasync > 0 in the job's options */
    struct bench_fio_point *series; /* bench_fio_read_series; owned, by t */
    size_t nseries;
};

struct bench_fio_result {
    char version[32];  /* "fio-3.33" */
    int64_t timestamp; /* Unix seconds of the run, -1 when absent */
    struct bench_fio_job_result *jobs;
    size_t njobs;
};

/* Parses fio --output-format=json output. Leading non-JSON text (warnings fio prints before the
 * object) is skipped: parsing starts at the first line beginning with '{'. Input is capped at
 * 64 MiB. Returns 0 or -EINVAL (not fio JSON; message in err); allocation failure aborts
 * (pkg/util/mem.h). */
int bench_fio_parse(const char *text, size_t len, struct bench_fio_result **out, char *err,
                    size_t errlen);
void bench_fio_result_free(struct bench_fio_result *r);
/* Reads the logs bench_fio_argv asked for with log_dir = dir into each job's series: the lines
 * "time_ms, value, direction, bs, offset[, prio]" of <job>_iops.*.log and <job>_bw.*.log (one
 * file per clone, summed), averaged over 1 s by fio (log_avg_msec=1000), each point at t =
 * round(time_ms / 1000) s; at most BENCH_FIO_MAX_SERIES points per job (later ones dropped).
 * Jobs without logs keep no series. Returns 0 or -errno (dir unreadable). */
int bench_fio_read_series(struct bench_fio_result *r, const char *dir);

/* True when fio ran every job to the end as far as its JSON tells: at least one job and every
 * job's error is 0. (The runner also requires fio's exit status 0 and no signal.) Missing
 * latencies do not make a result incomplete; bench_fio_result_errors reports them. */
bool bench_fio_result_complete(const struct bench_fio_result *r);

/* Receives one message for the result's errors[] (valid during the call). Returns 0 to go on, or
 * a negative errno, which stops the walk. */
typedef int (*bench_fio_error_fn)(const char *msg, void *ctx);
/* The one place that decides which fio problems go into errors[] (`fio` and `parse fio` both
 * call it), one message per job, in job order, each naming the job:
 *   "fio job NAME failed: <strerror(error)>"                         (error != 0)
 *   "fio job NAME: did no I/O, so it has no iops, bandwidth or latency samples"
 *   "fio job NAME: no latency samples for write, sync (gtod_reduce=1 turns off fio's latency
 *    measurement); iops and bandwidth are kept"     (a direction that did I/O without clat/lat
 *    samples, named "read completion (clatUs)" / "read total (latUs)" when only one is missing;
 *    "sync" when the job asked for fsync/fdatasync and wrote but has no sync samples; the cause
 *    is lat_off, or "fio reported none")
 * Those latencies are null in bench_fio_result_to_json. Returns 0 or the first non-zero return
 * of fn. */
int bench_fio_result_errors(const struct bench_fio_result *r, bench_fio_error_fn fn, void *ctx);

/* {"version":..,"jobs":[{"name","error","read":{iops,bwKiBs,ioKiB,totalIos,clatUs:{min,max,mean,
 * stddev,p50,p90,p95,p99,p99.9,percentiles:{"1":..,..,"99.99":..}},latUs:{...}},"write":{...},
 * "sync":{...}|null,"series":[{t,readIops,writeIops,readBwKiBs,writeBwKiBs}]}]}.
 * Directions without I/O are null. Caller owns; never NULL (allocation failure aborts). */
cJSON *bench_fio_result_to_json(const struct bench_fio_result *r);

#endif
