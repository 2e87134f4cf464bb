/* fio command line and JSON parser tests (fixtures recorded with fio 3.33). */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include "pkg/bench/fio.h"
#include "test/unit/bench/fixture.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define near(a, b, tol) (fabs((a) - (b)) <= (tol))

static void test_parse_wal_randrw(void **state)
{
    (void)state;
    size_t len = 0;
    char *text = fixture_read("test/fixtures/fio/fio-3.33-wal-randrw.json", &len);
    assert_non_null(text);
    struct bench_fio_result *r = NULL;
    char err[128];
    assert_int_equal(bench_fio_parse(text, len, &r, err, sizeof(err)), 0);
    assert_string_equal(r->version, "fio-3.33");
    assert_true(r->timestamp > 1700000000);
    assert_int_equal(r->njobs, 2);
    const struct bench_fio_job_result *wal = &r->jobs[0], *rr = &r->jobs[1];
    assert_string_equal(wal->name, "wal");
    assert_int_equal(wal->error, 0);
    assert_false(wal->read.present);
    assert_true(wal->write.present);
    assert_true(near(wal->write.iops, 2793.735422, 1e-6));
    assert_int_equal(wal->write.total_ios, 8384);
    assert_true(wal->write.clat.present);
    assert_true(wal->write.clat.p99_us > 0);
    assert_true(wal->write.clat.p50_us <= wal->write.clat.p99_us);
    /* fdatasync latencies: percentile values from the JSON, ns -> us */
    assert_true(wal->sync.present);
    assert_int_equal(wal->sync.samples, 8384);
    assert_int_equal(wal->sync_total_ios, 8384);
    assert_true(near(wal->sync.p50_us, 257.024, 1e-9));
    assert_true(near(wal->sync.p99_us, 1974.272, 1e-9));
    assert_true(near(wal->sync.p999_us, 5275.648, 1e-9));
    assert_true(near(wal->sync.min_us, 109.364, 1e-9));
    assert_string_equal(rr->name, "randrw");
    assert_true(rr->read.present && rr->write.present);
    assert_true(near(rr->read.iops, 16806.462358, 1e-6));
    assert_true(rr->read.bw_kibs > 0);
    assert_false(rr->sync.present);
    assert_true(rr->write.lat.present);
    assert_true(isnan(rr->write.lat.p99_us)); /* lat_ns has no percentiles by default */

    cJSON *j = bench_fio_result_to_json(r);
    assert_non_null(j);
    cJSON *jobs = cJSON_GetObjectItem(j, "jobs");
    assert_int_equal(cJSON_GetArraySize(jobs), 2);
    cJSON *j0 = cJSON_GetArrayItem(jobs, 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j0, "read")));
    cJSON *sync = cJSON_GetObjectItem(j0, "sync");
    assert_true(near(cJSON_GetObjectItem(sync, "p99")->valuedouble, 1974.272, 1e-9));
    cJSON *w = cJSON_GetObjectItem(j0, "write");
    assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(w, "clatUs"), "p999"));
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(w, "bwKiBs")));
    cJSON_Delete(j);
    bench_fio_result_free(r);
    free(text);
}

static void test_parse_read_fsync_and_prefix(void **state)
{
    (void)state;
    size_t len = 0;
    char *text = fixture_read("test/fixtures/fio/fio-3.33-read-fsync.json", &len);
    assert_non_null(text);
    /* warnings before the JSON object are skipped */
    const char *pre = "note: both iodepth >= 1 and synchronous I/O engine are selected\n";
    size_t plen = strlen(pre);
    char *buf = malloc(plen + len + 1);
    (void)snprintf(buf, plen + len + 1, "%s%s", pre, text);
    struct bench_fio_result *r = NULL;
    assert_int_equal(bench_fio_parse(buf, plen + len, &r, NULL, 0), 0);
    assert_int_equal(r->njobs, 1);
    assert_true(r->jobs[0].read.present);
    assert_false(r->jobs[0].write.present);
    assert_false(r->jobs[0].sync.present); /* fsync on a read job: no syncs */
    bench_fio_result_free(r);
    free(buf);
    free(text);
}

/* recorded with the exact command line bench_fio_argv builds (libaio, direct, fdatasync=1,
 * --lat_percentiles=1): total latency percentiles are present too */
static void test_parse_lat_percentiles(void **state)
{
    (void)state;
    size_t len = 0;
    char *text = fixture_read("test/fixtures/fio/fio-3.33-libaio-fdatasync-latpct.json", &len);
    assert_non_null(text);
    struct bench_fio_result *r = NULL;
    assert_int_equal(bench_fio_parse(text, len, &r, NULL, 0), 0);
    assert_int_equal(r->njobs, 2);
    assert_true(near(r->jobs[0].write.lat.p99_us, 4423.680, 1e-9));
    assert_true(r->jobs[0].sync.present);
    assert_int_equal(r->jobs[0].sync_total_ios, 1299);
    assert_true(near(r->jobs[1].read.lat.p99_us, 5275.648, 1e-9));
    assert_false(r->jobs[1].write.present);
    assert_false(r->jobs[1].sync.present);
    bench_fio_result_free(r);
    free(text);
}

static void test_parse_errors(void **state)
{
    (void)state;
    struct bench_fio_result *r = NULL;
    char err[128];
    const char *cases[] = {"",      "fio: no such file\n",    "{", "{\"jobs\": 3}",
                           "[1,2]", "{\"fio version\":\"x\"}"};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_int_equal(bench_fio_parse(cases[i], strlen(cases[i]), &r, err, sizeof(err)),
                         -EINVAL);
    /* wrong types inside are tolerated (absent numbers), not crashes */
    const char *odd = "{\"jobs\":[{\"jobname\":5,\"read\":{\"iops\":\"x\",\"clat_ns\":[]},"
                      "\"sync\":{\"lat_ns\":{\"N\":-1}}}, 7]}";
    assert_int_equal(bench_fio_parse(odd, strlen(odd), &r, err, sizeof(err)), 0);
    assert_int_equal(r->njobs, 1);
    assert_false(r->jobs[0].read.present);
    assert_false(r->jobs[0].sync.present);
    bench_fio_result_free(r);
}

/* Collects what bench_fio_result_errors hands out. */
struct msgs {
    char *m[16];
    size_t n;
    size_t stop_after; /* return -EINTR on this call (1-based), 0 = never */
};

static int collect(const char *msg, void *ctx)
{
    struct msgs *c = ctx;
    assert_true(c->n < 16);
    c->m[c->n++] = strdup(msg);
    return c->stop_after && c->n == c->stop_after ? -EINTR : 0;
}

static void msgs_free(struct msgs *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->m[i]);
    c->n = 0;
}

static struct bench_fio_result *parse_fixture(const char *path)
{
    size_t len = 0;
    char *text = fixture_read(path, &len);
    assert_non_null(text);
    struct bench_fio_result *r = NULL;
    char err[128] = "";
    if (bench_fio_parse(text, len, &r, err, sizeof(err)))
        fail_msg("%s: %s", path, err);
    free(text);
    return r;
}

static bool json_null(const cJSON *o, const char *key)
{
    return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* Recorded with the real fio and --gtod_reduce=1: iops and bandwidth stay, latencies are null,
 * and each job gets an error naming it and the cause (`parse fio` used to say nothing). */
static void test_gtod_reduce(void **state)
{
    (void)state;
    struct bench_fio_result *r = parse_fixture("test/fixtures/fio/fio-3.33-gtod-reduce.json");
    assert_int_equal(r->njobs, 2);
    const struct bench_fio_job_result *wal = &r->jobs[0], *rr = &r->jobs[1];
    assert_string_equal(wal->name, "wal");
    assert_true(wal->write.present);
    assert_true(near(wal->write.iops, 4329.00649, 1e-9));
    assert_true(near(wal->write.bw_kibs, 34632, 1e-9));
    assert_int_equal(wal->write.total_ios, 8671);
    assert_false(wal->write.clat.present);
    assert_false(wal->write.lat.present);
    assert_false(wal->sync.present);
    assert_true(wal->syncs_requested);
    assert_string_equal(wal->lat_off, "gtod_reduce=1");
    assert_true(near(rr->read.iops, 94263.550472, 1e-9));
    assert_false(rr->syncs_requested);
    assert_true(bench_fio_result_complete(r)); /* fio ran to the end; the errors say what lacks */

    struct msgs c = {0};
    assert_int_equal(bench_fio_result_errors(r, collect, &c), 0);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.m[0], "fio job wal: no latency samples for write, sync (gtod_reduce=1 "
                                "turns off fio's latency measurement); iops and bandwidth are "
                                "kept");
    assert_string_equal(c.m[1], "fio job randread: no latency samples for read (gtod_reduce=1 "
                                "turns off fio's latency measurement); iops and bandwidth are "
                                "kept");
    msgs_free(&c);

    cJSON *j = bench_fio_result_to_json(r);
    cJSON *j0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "jobs"), 0);
    cJSON *w = cJSON_GetObjectItem(j0, "write");
    assert_true(near(cJSON_GetObjectItem(w, "iops")->valuedouble, 4329.00649, 1e-9));
    assert_true(near(cJSON_GetObjectItem(w, "bwKiBs")->valuedouble, 34632, 1e-9));
    assert_true(json_null(w, "clatUs"));
    assert_true(json_null(w, "latUs"));
    assert_true(json_null(j0, "sync"));
    cJSON_Delete(j);
    bench_fio_result_free(r);
}

/* Recorded: a whole job, a job with latency measurement off (disable_*), and a job that never
 * started because fio got SIGTERM during its startdelay. */
static void test_no_samples(void **state)
{
    (void)state;
    struct bench_fio_result *r = parse_fixture("test/fixtures/fio/fio-3.33-no-samples.json");
    assert_int_equal(r->njobs, 3);
    assert_true(r->jobs[0].write.clat.present);
    assert_true(near(r->jobs[1].read.iops, 13050.949051, 1e-9));
    assert_int_equal(r->jobs[1].read.total_ios, 13064);
    assert_false(r->jobs[1].read.clat.present);
    assert_string_equal(r->jobs[1].lat_off, "disable_lat=1 disable_clat=1");
    assert_false(r->jobs[2].read.present || r->jobs[2].write.present);
    struct msgs c = {0};
    assert_int_equal(bench_fio_result_errors(r, collect, &c), 0);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.m[0], "fio job nolat: no latency samples for read (disable_lat=1 "
                                "disable_clat=1 turn off fio's latency measurement); iops and "
                                "bandwidth are kept");
    assert_string_equal(
        c.m[1], "fio job late: did no I/O, so it has no iops, bandwidth or latency samples");
    msgs_free(&c);
    /* the walk stops at the callback's first error */
    c.stop_after = 1;
    assert_int_equal(bench_fio_result_errors(r, collect, &c), -EINTR);
    assert_int_equal(c.n, 1);
    msgs_free(&c);
    c.stop_after = 0;
    bench_fio_result_free(r);

    /* the same job without the options that explain it: the cause is unknown, still reported */
    size_t len = 0;
    char *text = fixture_read("test/fixtures/fio/fio-3.33-no-samples.json", &len);
    for (char *p = text; (p = strstr(p, "\"disable_")); p++)
        p[1] = 'X'; /* "Xisable_lat": not an option fio knows */
    assert_int_equal(bench_fio_parse(text, len, &r, NULL, 0), 0);
    free(text);
    assert_string_equal(r->jobs[1].lat_off, "");
    assert_int_equal(bench_fio_result_errors(r, collect, &c), 0);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.m[0], "fio job nolat: no latency samples for read (fio reported none); "
                                "iops and bandwidth are kept");
    msgs_free(&c);
    bench_fio_result_free(r);
}

/* Whole recordings give no errors (fsync on a read job issues no syncs: nothing is missing). */
static void test_errors_whole_runs(void **state)
{
    (void)state;
    static const char *const files[] = {"test/fixtures/fio/fio-3.33-wal-randrw.json",
                                        "test/fixtures/fio/fio-3.33-read-fsync.json",
                                        "test/fixtures/fio/fio-3.33-libaio-fdatasync-latpct.json"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        struct bench_fio_result *r = parse_fixture(files[i]);
        struct msgs c = {0};
        assert_int_equal(bench_fio_result_errors(r, collect, &c), 0);
        if (c.n)
            fail_msg("%s: unexpected error '%s'", files[i], c.m[0]);
        assert_true(bench_fio_result_complete(r));
        bench_fio_result_free(r);
    }
    /* a failed job; one with only total latency off; options from "global options" */
    const char *text =
        "{\"global options\":{\"disable_lat\":\"1\",\"fdatasync\":\"1\"},\"jobs\":["
        "{\"jobname\":\"full\",\"error\":28},"
        "{\"jobname\":\"half\",\"error\":0,\"write\":{\"iops\":10,\"total_ios\":20,"
        "\"clat_ns\":{\"N\":20,\"min\":1000},\"lat_ns\":{\"N\":0}},"
        "\"sync\":{\"lat_ns\":{\"N\":20}}},"
        "{\"jobname\":\"nosync\",\"error\":0,\"job options\":{\"disable_lat\":\"0\"},"
        "\"write\":{\"iops\":10,\"total_ios\":20,\"clat_ns\":{\"N\":20},\"lat_ns\":{\"N\":20}}}]}";
    struct bench_fio_result *r = NULL;
    assert_int_equal(bench_fio_parse(text, strlen(text), &r, NULL, 0), 0);
    assert_false(bench_fio_result_complete(r));
    struct msgs c = {0};
    assert_int_equal(bench_fio_result_errors(r, collect, &c), 0);
    assert_int_equal(c.n, 3);
    assert_string_equal(c.m[0], "fio job full failed: No space left on device");
    assert_string_equal(c.m[1], "fio job half: no latency samples for write total (latUs) "
                                "(disable_lat=1 turns off fio's latency measurement); iops and "
                                "bandwidth are kept");
    assert_string_equal(c.m[2], "fio job nosync: no latency samples for sync (fio reported none); "
                                "iops and bandwidth are kept");
    msgs_free(&c);
    bench_fio_result_free(r);
    assert_false(bench_fio_result_complete(NULL));
    assert_int_equal(bench_fio_result_errors(NULL, collect, &c), 0);
}

/* fio's own reading of sizes: the file sizes fio 3.33 laid out for --size=<value> (kb_base 1024,
 * its default), recorded with `fio --name=x --directory=D --size=<value> --rw=write --bs=512`. */
static void test_size_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *size;
        uint64_t bytes;
    } recorded[] = {
        {"1k", 1024},
        {"1K", 1024},
        {"1kb", 1024},
        {"1KiB", 1000},
        {"1ki", 1024},
        {"1Ki", 1024},
        {"2m", 2097152},
        {"1MiB", 1000000},
        {"1mb", 1048576},
        {"512", 512},
        {"1g", UINT64_C(1) << 30},
        {"1GiB", 1000000000},
        {"3T", UINT64_C(3) << 40},
    };
    for (size_t i = 0; i < sizeof(recorded) / sizeof(recorded[0]); i++) {
        uint64_t v = 0;
        assert_int_equal(bench_fio_size_bytes(recorded[i].size, &v), 0);
        if (v != recorded[i].bytes)
            fail_msg("%s: %llu, fio reads %llu", recorded[i].size, (unsigned long long)v,
                     (unsigned long long)recorded[i].bytes);
    }
    uint64_t v;
    assert_int_equal(bench_fio_size_bytes("", &v), -EINVAL);
    assert_int_equal(bench_fio_size_bytes("k", &v), -EINVAL);
    assert_int_equal(bench_fio_size_bytes("1.5g", &v), -EINVAL);
    assert_int_equal(bench_fio_size_bytes("1 g", &v), -EINVAL);
    assert_int_equal(bench_fio_size_bytes("8388608t", &v), -EINVAL); /* 2^63 */
    assert_int_equal(bench_fio_size_bytes("8388607t", &v), 0);
    assert_int_equal(bench_fio_size_bytes("99999999999999999999", &v), -EINVAL);
}

static void test_argv(void **state)
{
    (void)state;
    struct bench_fio_job_opts jobs[] = {
        {.name = "wal",
         .rw = "write",
         .bs = "8k",
         .iodepth = 1,
         .numjobs = 1,
         .size = "64M",
         .runtime_s = 3,
         .ioengine = "psync",
         .fdatasync = 1},
        {.name = "randrw",
         .rw = "randrw",
         .bs = "8k",
         .iodepth = 16,
         .numjobs = 2,
         .size = "1G",
         .runtime_s = 0,
         .direct = true,
         .ioengine = "libaio"},
    };
    const char *extra[] = {"--ramp_time=2"};
    struct bench_fio_opts o = {
        .directory = "/data", .jobs = jobs, .njobs = 2, .extra_args = extra, .nextra = 1};
    struct bench_argv a = BENCH_ARGV_INIT;
    char err[200];
    assert_int_equal(bench_fio_argv(&o, &a, err, sizeof(err)), 0);
    char *s = bench_argv_join(&a);
    assert_string_equal(
        s, "fio --output-format=json --directory=/data --group_reporting --lat_percentiles=1 "
           "--ramp_time=2 "
           "--name=wal --stonewall --rw=write --bs=8k --iodepth=1 --numjobs=1 --size=64M "
           "--runtime=3 --time_based --direct=0 --ioengine=psync --fdatasync=1 "
           "--name=randrw --stonewall --rw=randrw --bs=8k --iodepth=16 --numjobs=2 --size=1G "
           "--direct=1 --ioengine=libaio");
    free(s);
    bench_argv_free(&a);

    /* refusals */
    const char *zero[] = {"--gtod_reduce=1"};
    o.extra_args = zero;
    assert_int_equal(bench_fio_argv(&o, &a, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "latency"));
    const char *pct[] = {"--clat_percentiles=0"};
    o.extra_args = pct;
    assert_int_equal(bench_fio_argv(&o, &a, err, sizeof(err)), -EINVAL);
    const char *unknown[] = {"--exec_prerun=rm"};
    o.extra_args = unknown;
    assert_int_equal(bench_fio_argv(&o, &a, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "allow-list"));
    const char *badval[] = {"--rwmixread=7 0"};
    o.extra_args = badval;
    assert_int_equal(bench_fio_argv(&o, &a, err, sizeof(err)), -EINVAL);
    o.nextra = 0;
    o.directory = "relative";
    assert_int_equal(bench_fio_argv(&o, &a, err, sizeof(err)), -EINVAL);
    o.directory = "/data";
    jobs[1].name = "wal";
    assert_int_equal(bench_fio_argv(&o, &a, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "duplicate"));
    jobs[1].name = "x";
    jobs[1].bs = "8 k";
    assert_int_equal(bench_fio_argv(&o, &a, err, sizeof(err)), -EINVAL);
    jobs[1].bs = "8k";
    jobs[1].rw = "trim";
    assert_int_equal(bench_fio_argv(&o, &a, err, sizeof(err)), -EINVAL);
    jobs[1].rw = "read";
    jobs[1].fsync = 1;
    jobs[1].fdatasync = 1;
    assert_int_equal(bench_fio_argv(&o, &a, err, sizeof(err)), -EINVAL);
    assert_null(a.argv);
    assert_true(bench_fio_option_zeroes_latency("--disable_clat=1"));
    assert_true(bench_fio_option_zeroes_latency("gtod_reduce"));
    assert_false(bench_fio_option_zeroes_latency("bs"));
}

/* Every percentile fio printed, keyed as it wrote it ("99.99"), and the per-second IOPS and
 * bandwidth of its logs, the clones summed and second 0 (empty) dropped. */
static void test_percentiles_and_series(void **state)
{
    (void)state;
    struct bench_fio_result *r = parse_fixture("test/fixtures/fio/fio-3.33-wal-randrw.json");
    const struct bench_fio_lat *s = &r->jobs[0].sync;
    assert_int_equal(s->npct, 17);
    assert_true(near(s->pct[16], 99.99, 1e-9) && near(s->pct_us[16], 10813.44, 1e-9));
    char dir[] = "/tmp/test_fio_series.XXXXXX";
    assert_non_null(mkdtemp(dir));
    static const struct {
        const char *file, *text;
    } logs[] = {
        {"wal_iops.1.log", "1004, 250, 1, 0, 0\n2003, 300, 1, 0, 0\n"},
        {"wal_iops.2.log", "1010, 50, 1, 0, 0\n2011, 70, 1, 0, 0\n"},
        {"wal_bw.1.log", "1004, 2000, 1, 0, 0\n"},
        {"randrw_iops.3.log", "999, 10, 0, 0, 0\n1000, 20, 1, 0, 0\nnot a line\n"},
        {"walx_iops.1.log", "1000, 999, 1, 0, 0\n"}, /* another job's prefix */
    };
    char path[256];
    for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
        (void)snprintf(path, sizeof(path), "%s/%s", dir, logs[i].file);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        assert_int_equal(fputs(logs[i].text, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
    }
    assert_int_equal(bench_fio_read_series(r, dir), 0);
    const struct bench_fio_job_result *wal = &r->jobs[0], *rr = &r->jobs[1];
    assert_int_equal(wal->nseries, 2);
    assert_true(near(wal->series[0].t, 1, 0) && near(wal->series[0].iops[1], 300, 0));
    assert_true(near(wal->series[1].t, 2, 0) && near(wal->series[1].iops[1], 370, 0));
    assert_true(near(wal->series[0].bw_kibs[1], 2000, 0) && isnan(wal->series[1].bw_kibs[1]));
    assert_true(isnan(wal->series[0].iops[0]));
    assert_int_equal(rr->nseries, 1);
    assert_true(near(rr->series[0].iops[0], 10, 0) && near(rr->series[0].iops[1], 20, 0));
    cJSON *j = bench_fio_result_to_json(r);
    const cJSON *j0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "jobs"), 0);
    const cJSON *pct = cJSON_GetObjectItem(cJSON_GetObjectItem(j0, "sync"), "percentiles");
    assert_int_equal(cJSON_GetArraySize(pct), 17);
    assert_true(near(cJSON_GetObjectItem(pct, "99.99")->valuedouble, 10813.44, 1e-9));
    assert_true(near(cJSON_GetObjectItem(pct, "1")->valuedouble, 132.096, 1e-9));
    const cJSON *series = cJSON_GetObjectItem(j0, "series");
    assert_int_equal(cJSON_GetArraySize(series), 2);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(series, 0), "readIops")));
    cJSON_Delete(j);
    for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
        (void)snprintf(path, sizeof(path), "%s/%s", dir, logs[i].file);
        (void)unlink(path);
    }
    (void)rmdir(dir);
    bench_fio_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_wal_randrw),
        cmocka_unit_test(test_parse_read_fsync_and_prefix),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_lat_percentiles),
        cmocka_unit_test(test_argv),
        cmocka_unit_test(test_size_bytes),
        cmocka_unit_test(test_gtod_reduce),
        cmocka_unit_test(test_no_samples),
        cmocka_unit_test(test_errors_whole_runs),
        cmocka_unit_test(test_percentiles_and_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
