/* fio: command lines for storage probes and the parser of fio 3.x JSON output.
 *
 * Each job of bench_fio_opts becomes one fio job on the command line, run one after the other
 * (--stonewall) in its own reporting group (--group_reporting merges a job's numjobs clones),
 * with --output-format=json. Options that make fio stop measuring latencies (gtod_reduce,
 * disable_lat, disable_clat, disable_slat, clat_percentiles=0, lat_percentiles=0 ...) are refused.
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

/* Latency distribution in microseconds (fio reports ns; converted). NAN when absent. */
struct bench_fio_lat {
    bool present;
    double min_us, max_us, mean_us, stddev_us;
    double p50_us, p90_us, p95_us, p99_us, p999_us;
    uint64_t samples; /* "N" */
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
};

struct bench_fio_result {
    char version[32];  /* "fio-3.33" */
    int64_t timestamp; /* Unix seconds of the run, -1 when absent */
    struct bench_fio_job_result *jobs;
    size_t njobs;
};

/* Parses fio --output-format=json output. Leading non-JSON text (warnings fio prints before the
 * object) is skipped: parsing starts at the first line beginning with '{'. Input is capped at
 * 64 MiB. Returns 0, -EINVAL (not fio JSON; message in err) or -ENOMEM. */
int bench_fio_parse(const char *text, size_t len, struct bench_fio_result **out, char *err,
                    size_t errlen);
void bench_fio_result_free(struct bench_fio_result *r);

/* {"version":..,"jobs":[{"name","error","read":{iops,bwKiBs,ioKiB,totalIos,clatUs:{min,max,mean,
 * stddev,p50,p90,p95,p99,p99.9},latUs:{...}},"write":{...},"sync":{...}|null}]}.
 * Directions without I/O are null. Caller owns; NULL on allocation failure. */
cJSON *bench_fio_result_to_json(const struct bench_fio_result *r);

#endif
