/* The verdict: each class from fixture results built the way its resource shows (wait-event
 * shares, the runner's CPU, the round trip, the server's counters); each is also built for real
 * in test/e2e (78 network, 79 storage reads, 80 row locks, 81 sync replication, 82 the client,
 * 83 --rate, 102 LWLock, 103 checkpoints; 91 server CPU unknown without pg_stat_kcache), but
 * server CPU measured (no pg_stat_kcache here) and cgroup v2; missing evidence never firing a
 * rule; every pitfall; the sentence whole within its limit; the table itself. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/diag.h"
#include "pkg/bench/verdict.h"
#include "pkg/util/buf.h"

/* A result: a summary (tps 1000, 10 ms, 30000 transactions, -T 30) and a tpcb-like scale-100
 * configuration with 8 clients, merged with extra (JSON members at the top level, replacing). */
static cJSON *result_of(const char *events, const char *extra)
{
    char json[4096];
    (void)snprintf(json, sizeof(json),
                   "{\"summary\":{\"tps\":1000,\"latencyAvgMs\":10,\"transactionsProcessed\":"
                   "30000},\"pgbench\":{\"transactionType\":\"<builtin: TPC-B (sort of)>\","
                   "\"scaleFactor\":100,\"clients\":8,\"threads\":2,\"durationSeconds\":30}%s%s%s}",
                   events ? ",\"waitEvents\":{\"samples\":30,\"backendSamples\":240,\"events\":"
                          : "",
                   events ? events : "", events ? "}" : "");
    cJSON *r = cJSON_Parse(json);
    assert_non_null(r);
    if (extra) {
        cJSON *x = cJSON_Parse(extra), *it;
        assert_non_null(x);
        while ((it = x->child) != NULL) {
            cJSON_DetachItemViaPointer(x, it);
            cJSON_DeleteItemFromObjectCaseSensitive(r, it->string);
            cJSON_AddItemToObject(r, it->string, it);
        }
        cJSON_Delete(x);
    }
    return r;
}

static struct bench_verdict decide(const char *events, const char *extra)
{
    cJSON *r = result_of(events, extra);
    struct bench_verdict v;
    assert_int_equal(bench_verdict_of(r, &v), 0);
    cJSON_Delete(r);
    return v;
}

static void expect_class(const struct bench_verdict *v, enum bench_verdict_class c)
{
    if (v->cls != c) {
        char *s = bench_verdict_sentence(v);
        fail_msg("class %s, expected %s: %s", bench_verdict_classes[v->cls].name,
                 bench_verdict_classes[c].name, s);
    }
}

static void near(double got, double want)
{
    if (!(fabs(got - want) < 0.01))
        fail_msg("evidence %g, expected %g", got, want);
}

static void test_client(void **state)
{
    (void)state;
    /* pgbench at 97 % of half a CPU; the server idle 90 % of the time */
    struct bench_verdict v = decide("{\"Client:ClientRead\":216,\"CPU\":24}",
                                    "{\"client\":{\"cpuBusyPct\":97,\"cpus\":0.5,\"threads\":1,"
                                    "\"clients\":8}}");
    expect_class(&v, BENCH_VC_CLIENT);
    near(v.ev[BENCH_EV_CLIENT_BUSY], 97);
    near(v.ev[BENCH_EV_CLIENT_SHARE], 90);
    assert_true(v.fired[BENCH_LR_CLIENT_CPU] && v.fired[BENCH_LR_CLIENT_SIDE]);
    /* one thread on half a CPU is not too many threads */
    assert_false(v.warned[BENCH_WR_THREADS_ABOVE_CPUS]);
    char *c = bench_verdict_sentence(&v);
    assert_non_null(strstr(c, "of its 0.5-CPU limit"));
    free(c);
    /* the same idle server with the client's CPU not measured: no rule fires on it */
    v = decide("{\"Client:ClientRead\":216,\"CPU\":24}", NULL);
    expect_class(&v, BENCH_VC_INCONCLUSIVE);
    char *s = bench_verdict_sentence(&v);
    assert_non_null(strstr(s, "the runner's CPU use"));
    assert_non_null(strstr(s, "round-trip probe"));
    free(s);
}

/* A runner sharing its node's CPUs: pgbench got a CPU 55 % of the time, under the busy rule's
 * threshold, but was runnable the rest: it never waited for the server, so the client limits. */
static void test_client_run_queue(void **state)
{
    (void)state;
    struct bench_verdict v =
        decide("{\"Client:ClientRead\":216,\"CPU\":24}",
               "{\"client\":{\"cpuBusyPct\":55,\"cpuDemandPct\":98.5,\"cpuWaitPct\":43.5,"
               "\"cpus\":1,\"threads\":1,\"clients\":8}}");
    expect_class(&v, BENCH_VC_CLIENT);
    assert_false(v.fired[BENCH_LR_CLIENT_CPU] || v.fired[BENCH_LR_CLIENT_SIDE]);
    assert_true(v.fired[BENCH_LR_CLIENT_RUN_QUEUE]);
    char *c = bench_verdict_sentence(&v);
    assert_non_null(strstr(c, "on a CPU or waiting for one 98.5 % of theirs (waiting 43.5 %)"));
    free(c);
    /* the same idle server with pgbench mostly blocked: not the client, and not decided */
    v = decide("{\"Client:ClientRead\":216,\"CPU\":24}",
               "{\"client\":{\"cpuBusyPct\":30,\"cpuDemandPct\":35,\"cpuWaitPct\":5,"
               "\"cpus\":1,\"threads\":1,\"clients\":8}}");
    expect_class(&v, BENCH_VC_INCONCLUSIVE);
    assert_false(v.fired[BENCH_LR_CLIENT_RUN_QUEUE]);
}

static void test_network(void **state)
{
    (void)state;
    /* 5 SQL statements of 2 ms round trip in a 12 ms transaction: 83 % on the wire */
    struct bench_verdict v =
        decide("{\"Client:ClientRead\":192,\"CPU\":48}",
               "{\"summary\":{\"tps\":660,\"latencyAvgMs\":12,\"transactionsProcessed\":20000},"
               "\"client\":{\"cpuBusyPct\":12,\"cpus\":2},\"network\":{\"rttMs\":2},"
               "\"statements\":[{\"script\":0,\"command\":\"\\\\set aid random(1, 100)\"},"
               "{\"script\":0,\"command\":\"BEGIN;\"},{\"script\":0,\"command\":\"UPDATE a;\"},"
               "{\"script\":0,\"command\":\"SELECT b;\"},{\"script\":0,\"command\":\"INSERT c;\"},"
               "{\"script\":0,\"command\":\"END;\"}]}");
    expect_class(&v, BENCH_VC_NETWORK);
    near(v.ev[BENCH_EV_STATEMENTS], 5);
    near(v.ev[BENCH_EV_RTT_SHARE], 2.0 * 5 / 12 * 100);
    /* loopback on a loaded machine (e2e 78's control): one statement of 0.228 ms in a 0.254 ms
     * transaction is round-trip bound, but no network is in it: not network */
    v = decide("{\"Client:ClientRead\":216,\"CPU\":24}",
               "{\"summary\":{\"tps\":7638,\"latencyAvgMs\":0.254,\"transactionsProcessed\":"
               "76000},\"client\":{\"cpuBusyPct\":30,\"cpus\":2},\"network\":{\"rttMs\":0.228},"
               "\"statements\":[{\"script\":0,\"command\":\"SELECT 1;\"}]}");
    assert_true(v.ev[BENCH_EV_RTT_SHARE] > 80);
    assert_false(v.fired[BENCH_LR_ROUND_TRIPS]);
    expect_class(&v, BENCH_VC_INCONCLUSIVE);
    /* a fast network with the same idle server and an idle client: inconclusive, and nothing
     * is missing to name: it says what run would decide */
    v = decide("{\"Client:ClientRead\":192,\"CPU\":48}",
               "{\"client\":{\"cpuBusyPct\":12,\"cpus\":2},\"network\":{\"rttMs\":0.03},"
               "\"statements\":[{\"script\":0,\"command\":\"SELECT 1;\"}]}");
    expect_class(&v, BENCH_VC_INCONCLUSIVE);
}

static void test_database_classes(void **state)
{
    (void)state;
    struct {
        const char *events, *extra;
        enum bench_verdict_class want;
        enum bench_evidence_id ev;
        double share; /* of the database's samples */
    } cases[] = {
        {"{\"CPU\":192,\"Lock:tuple\":24,\"Client:ClientRead\":24}",
         "{\"serverStats\":{\"serverCpuSeconds\":55.2}}", BENCH_VC_SERVER_CPU, BENCH_EV_CPU_SHARE,
         192.0 / 216 * 100},
        {"{\"IO:DataFileRead\":144,\"CPU\":72,\"Client:ClientRead\":24}",
         "{\"serverStats\":{\"cacheHitPct\":71.5}}", BENCH_VC_STORAGE_READS, BENCH_EV_STORAGE_SHARE,
         144.0 / 216 * 100},
        {"{\"IO:WALSync\":120,\"LWLock:WALWrite\":48,\"CPU\":48,\"Client:ClientRead\":24}",
         "{\"serverStats\":{\"walSyncMsPerCommit\":9.8,\"walBytesPerTx\":612}}", BENCH_VC_WAL_FLUSH,
         BENCH_EV_WAL_SHARE, 168.0 / 216 * 100},
        {"{\"Lock:transactionid\":90,\"Client:ClientRead\":120,\"CPU\":30}",
         "{\"pgbench\":{\"transactionType\":\"<builtin: TPC-B (sort of)>\",\"scaleFactor\":1,"
         "\"clients\":8,\"threads\":1,\"durationSeconds\":30}}",
         BENCH_VC_ROW_LOCK, BENCH_EV_LOCK_SHARE, 75},
        {"{\"LWLock:LockManager\":120,\"LWLock:BufferContent\":48,\"CPU\":72}", NULL,
         BENCH_VC_LWLOCK, BENCH_EV_LWLOCK_SHARE, 70},
        {"{\"IPC:SyncRep\":168,\"CPU\":72}", NULL, BENCH_VC_SYNC_REP, BENCH_EV_SYNCREP_SHARE, 70},
        {"{\"IO:DataFileWrite\":96,\"IO:DataFileSync\":48,\"CPU\":96}",
         "{\"serverStats\":{\"checkpoints\":4}}", BENCH_VC_CHECKPOINTS, BENCH_EV_CHECKPOINT_SHARE,
         60},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct bench_verdict v = decide(cases[i].events, cases[i].extra);
        expect_class(&v, cases[i].want);
        near(v.ev[cases[i].ev], cases[i].share);
        char *s = bench_verdict_sentence(&v);
        assert_non_null(strstr(s, bench_verdict_classes[cases[i].want].fix));
        assert_true(strlen(s) < BENCH_DIAG_MAX);
        free(s);
    }
}

/* Checkpoints too close together (PostgreSQL's checkpoint_warning, 30 s) whose cost shows as WAL
 * writes and syncs (the full-page images after each one): checkpoints, not the WAL device. */
static void test_frequent_checkpoints(void **state)
{
    (void)state;
    const char *events = "{\"LWLock:WALWrite\":100,\"IO:WALSync\":50,\"IO:DataFileWrite\":10,"
                         "\"CPU\":50,\"Client:ClientRead\":30}";
    struct bench_verdict v = decide(events, "{\"serverStats\":{\"seconds\":12,\"checkpoints\":6,"
                                            "\"walFpiPct\":24.5,\"walBytesPerTx\":13500}}");
    expect_class(&v, BENCH_VC_CHECKPOINTS);
    assert_true(v.fired[BENCH_LR_WAL]);
    near(v.ev[BENCH_EV_CHECKPOINT_INTERVAL], 2);
    near(v.ev[BENCH_EV_WRITE_SHARE], 160.0 / 210 * 100);
    char *s = bench_verdict_sentence(&v);
    assert_non_null(strstr(s, "every 2 s (6 during the run"));
    assert_non_null(strstr(s, "24.5 %"));
    assert_non_null(strstr(s, bench_verdict_classes[BENCH_VC_CHECKPOINTS].fix));
    free(s);
    /* one checkpoint in the run, or checkpoints 40 s apart: the WAL flush it is */
    v = decide(events, "{\"serverStats\":{\"seconds\":12,\"checkpoints\":1}}");
    expect_class(&v, BENCH_VC_WAL_FLUSH);
    v = decide(events, "{\"serverStats\":{\"seconds\":120,\"checkpoints\":3}}");
    expect_class(&v, BENCH_VC_WAL_FLUSH);
    /* frequent checkpoints the load did not wait for: they do not limit it */
    v = decide("{\"Lock:transactionid\":160,\"IO:WALSync\":20,\"CPU\":30,\"Client:ClientRead\":30}",
               "{\"serverStats\":{\"seconds\":12,\"checkpoints\":6}}");
    expect_class(&v, BENCH_VC_ROW_LOCK);
    assert_false(v.fired[BENCH_LR_FREQUENT_CHECKPOINTS]);
    /* no counters: no checkpoint rule */
    v = decide(events, NULL);
    expect_class(&v, BENCH_VC_WAL_FLUSH);
}

/* Server CPU is never guessed: backends on CPU (no wait event) without the server's CPU use
 * (pg_stat_kcache) decide nothing, name what would, and keep a smaller share from deciding. */
static void test_server_cpu_unknown(void **state)
{
    (void)state;
    struct bench_verdict v = decide("{\"CPU\":192,\"Lock:tuple\":24,\"Client:ClientRead\":24}",
                                    "{\"serverStats\":{\"serverCpu\":\"unknown: no "
                                    "pg_stat_kcache\",\"serverCpuSeconds\":null}}");
    expect_class(&v, BENCH_VC_INCONCLUSIVE);
    assert_false(v.fired[BENCH_LR_CPU]);
    char *s = bench_verdict_sentence(&v);
    assert_non_null(strstr(s, "88.9 %"));
    assert_non_null(strstr(s, bench_verdict_evidence[BENCH_EV_SERVER_CPU_SECONDS].how));
    assert_null(strstr(s, bench_verdict_classes[BENCH_VC_SERVER_CPU].label));
    free(s);
    /* CPU 60 %, WAL 40 %: the WAL rule fires, but the larger share is CPU, unconfirmed */
    v = decide("{\"CPU\":144,\"IO:WALSync\":96}", NULL);
    assert_true(v.fired[BENCH_LR_WAL]);
    expect_class(&v, BENCH_VC_INCONCLUSIVE);
    /* ... with the server's CPU measured, CPU decides */
    v = decide("{\"CPU\":144,\"IO:WALSync\":96}", "{\"serverStats\":{\"serverCpuSeconds\":40}}");
    expect_class(&v, BENCH_VC_SERVER_CPU);
    /* a WAL share above the unconfirmed CPU share still decides */
    v = decide("{\"CPU\":72,\"IO:WALSync\":168}", NULL);
    expect_class(&v, BENCH_VC_WAL_FLUSH);
    /* an idle server whose own samples are all CPU: the network still decides (the CPU rule
     * asks for a busy server) */
    v = decide("{\"Client:ClientRead\":216,\"CPU\":24}",
               "{\"summary\":{\"tps\":150,\"latencyAvgMs\":13,\"transactionsProcessed\":2000},"
               "\"network\":{\"rttMs\":12.5},\"statements\":[{\"script\":0,\"command\":"
               "\"SELECT 1;\"}],\"client\":{\"cpuBusyPct\":5,\"cpus\":2}}");
    expect_class(&v, BENCH_VC_NETWORK);
}

static void test_rate_and_inconclusive(void **state)
{
    (void)state;
    /* --rate decides whatever the waits: the run did not measure capacity */
    struct bench_verdict v = decide("{\"Lock:tuple\":200,\"CPU\":40}",
                                    "{\"pgbench\":{\"rate\":100,\"clients\":8,\"threads\":1,"
                                    "\"durationSeconds\":30}}");
    expect_class(&v, BENCH_VC_RATE);
    assert_true(v.fired[BENCH_LR_ROW_LOCKS]);
    cJSON *j = bench_verdict_json(&v);
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rules"), 0)->valuestring,
                        "RATE_SCHEDULE");
    assert_string_equal(cJSON_GetObjectItem(j, "class")->valuestring, "rate-limited");
    assert_true(
        cJSON_GetObjectItem(cJSON_GetObjectItem(j, "evidence"), "ratePerSec")->valuedouble == 100);
    cJSON_Delete(j);

    /* no wait events: inconclusive, naming the sampling */
    v = decide(NULL, NULL);
    expect_class(&v, BENCH_VC_INCONCLUSIVE);
    char *s = bench_verdict_sentence(&v);
    assert_non_null(strstr(s, "spec.diagnostics.waitEvents"));
    free(s);
    /* nothing dominates: inconclusive, naming the largest */
    v = decide("{\"CPU\":48,\"Lock:tuple\":36,\"IO:WALSync\":36,\"LWLock:LockManager\":36,"
               "\"Timeout:PgSleep\":84}",
               NULL);
    expect_class(&v, BENCH_VC_INCONCLUSIVE);
    s = bench_verdict_sentence(&v);
    assert_non_null(strstr(s, "largest server CPU"));
    free(s);
    /* not a pgbench result */
    cJSON *fio = cJSON_Parse("{\"kind\":\"fio\"}");
    assert_int_equal(bench_verdict_of(fio, &v), -ENOENT);
    cJSON_Delete(fio);
}

/* Shares on too few samples decide nothing: 12 database samples among 240 (the server idle, 95 %
 * Client:*) whose third is WAL sync are not a WAL-flush verdict; 10 backend samples in all are
 * not a verdict of anything, and the sentence says how many there were. */
static void test_few_samples(void **state)
{
    (void)state;
    struct bench_verdict v = decide("{\"Client:ClientRead\":228,\"IO:WALSync\":4,\"CPU\":8}", NULL);
    expect_class(&v, BENCH_VC_INCONCLUSIVE);
    assert_false(v.fired[BENCH_LR_WAL]);
    assert_true(isnan(v.ev[BENCH_EV_WAL_SHARE]));
    near(v.ev[BENCH_EV_CLIENT_SHARE], 95);
    char *s = bench_verdict_sentence(&v);
    assert_non_null(strstr(s, "idle 95 %"));
    free(s);

    v = decide(NULL, "{\"waitEvents\":{\"samples\":3,\"backendSamples\":10,\"events\":"
                     "{\"IO:WALSync\":10}}}");
    expect_class(&v, BENCH_VC_INCONCLUSIVE);
    assert_true(isnan(v.ev[BENCH_EV_WAL_SHARE]) && isnan(v.ev[BENCH_EV_CLIENT_SHARE]));
    s = bench_verdict_sentence(&v);
    assert_non_null(strstr(s, "10 backend samples"));
    free(s);
}

static void test_pitfalls(void **state)
{
    (void)state;
    struct {
        const char *extra;
        enum bench_warn_id want;
    } cases[] = {
        {"{\"pgbench\":{\"transactionType\":\"<builtin: simple update>\",\"scaleFactor\":4,"
         "\"clients\":16,\"durationSeconds\":30}}",
         BENCH_WR_SCALE_BELOW_CLIENTS},
        {"{\"client\":{\"threads\":4,\"clients\":2,\"cpus\":8}}", BENCH_WR_THREADS_ABOVE_CLIENTS},
        {"{\"client\":{\"threads\":4,\"clients\":16,\"cpus\":2}}", BENCH_WR_THREADS_ABOVE_CPUS},
        {"{\"pgbench\":{\"scaleFactor\":100,\"clients\":8,\"durationSeconds\":10}}",
         BENCH_WR_SHORT_RUN},
        {"{\"summary\":{\"tps\":10,\"latencyAvgMs\":10,\"transactionsProcessed\":300}}",
         BENCH_WR_FEW_TRANSACTIONS},
        {"{\"pgbench\":{\"connect\":true,\"durationSeconds\":30},\"client\":{\"tls\":true}}",
         BENCH_WR_CONNECT_TLS},
        {"{\"server\":{\"fsync\":\"off\"}}", BENCH_WR_FSYNC_OFF},
        {"{\"server\":{\"synchronous_commit\":\"off\"}}", BENCH_WR_SYNC_COMMIT_OFF},
        {"{\"checks\":{\"dataset\":{\"fitsInSharedBuffers\":true,\"ratio\":0.2}}}",
         BENCH_WR_DATASET_IN_MEMORY},
        {"{\"checks\":{\"replica\":{\"caughtUp\":false}}}", BENCH_WR_REPLICA_BEHIND},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct bench_verdict v = decide("{\"CPU\":240}", cases[i].extra);
        for (int w = 0; w < BENCH_WR__COUNT; w++)
            if (v.warned[w] != (w == (int)cases[i].want))
                fail_msg("case %zu: warning %s is %d", i, bench_verdict_warns[w].id, v.warned[w]);
        char *s = bench_verdict_sentence(&v);
        assert_non_null(strstr(s, bench_verdict_warns[cases[i].want].fix));
        free(s);
    }
    /* the clean baseline has none */
    struct bench_verdict v = decide("{\"CPU\":240}", "{\"server\":{\"fsync\":\"on\"}}");
    for (int w = 0; w < BENCH_WR__COUNT; w++)
        assert_false(v.warned[w]);
}

/* Every warning at once: the sentence stays under the status limit and holds whole warnings
 * only, the rest counted. */
static void test_sentence_whole(void **state)
{
    (void)state;
    struct bench_verdict v = decide("{\"Lock:tuple\":200,\"CPU\":40}", NULL);
    for (int w = 0; w < BENCH_WR__COUNT; w++)
        v.warned[w] = true;
    char *s = bench_verdict_sentence(&v);
    size_t n = strlen(s);
    assert_true(n < BENCH_DIAG_MAX);
    assert_int_equal(s[n - 1], '.');
    int shown = 0;
    for (int w = 0; w < BENCH_WR__COUNT; w++)
        if (strstr(s, bench_verdict_warns[w].fix))
            shown++;
    if (shown < BENCH_WR__COUNT) {
        char more[64];
        (void)snprintf(more, sizeof(more), "%d more in the result's verdict.warnings",
                       BENCH_WR__COUNT - shown);
        assert_non_null(strstr(s, more));
    }
    free(s);
}

static void test_wait_classes(void **state)
{
    (void)state;
    assert_int_equal(bench_verdict_wait_class("LWLock:WALWrite"), BENCH_VC_WAL_FLUSH);
    assert_int_equal(bench_verdict_wait_class("LWLock:LockManager"), BENCH_VC_LWLOCK);
    assert_int_equal(bench_verdict_wait_class("Lock:transactionid"), BENCH_VC_ROW_LOCK);
    assert_int_equal(bench_verdict_wait_class("Client:ClientRead"), BENCH_VC_CLIENT);
    assert_int_equal(bench_verdict_wait_class("CPU"), BENCH_VC_SERVER_CPU);
    assert_int_equal(bench_verdict_wait_class("Activity:WalWriterMain"), -1);
    assert_int_equal(bench_verdict_wait_class("Lockx:y"), -1);
    /* every sample a client's: the database classes are unknown, not 0 */
    double sh[BENCH_VC__COUNT];
    cJSON *m = cJSON_Parse("{\"Client:ClientRead\":3,\"Client:Idle\":1}");
    bench_verdict_class_shares(m, sh);
    near(sh[BENCH_VC_CLIENT], 100);
    assert_true(isnan(sh[BENCH_VC_SERVER_CPU]));
    cJSON_Delete(m);
}

/* The table: names unique and parsed back, every template's keys evidence keys. */
static void test_table(void **state)
{
    (void)state;
    for (int c = 0; c < BENCH_VC__COUNT; c++)
        assert_int_equal(bench_verdict_class_parse(bench_verdict_classes[c].name), c);
    assert_int_equal(bench_verdict_class_parse("nope"), -1);
    double ev[BENCH_EV__COUNT];
    for (int i = 0; i < BENCH_EV__COUNT; i++)
        ev[i] = 1;
    for (int i = 0; i < BENCH_LR__COUNT + BENCH_WR__COUNT; i++) {
        const char *t = i < BENCH_LR__COUNT ? bench_verdict_limits[i].evidence
                                            : bench_verdict_warns[i - BENCH_LR__COUNT].sentence;
        struct buf b = BUF_INIT(0);
        assert_int_equal(bench_verdict_expand(&b, t, ev), 0);
        if (!b.data || strchr(b.data, '{'))
            fail_msg("template %s: %s", t, b.data ? b.data : "(dropped)");
        buf_free(&b);
    }
    /* a part whose number is not measured is left out */
    ev[BENCH_EV_WAL_SYNC_PER_COMMIT] = NAN;
    struct buf b = BUF_INIT(0);
    assert_int_equal(bench_verdict_expand(&b, bench_verdict_limits[BENCH_LR_WAL].evidence, ev), 0);
    assert_null(strstr(b.data, "per commit"));
    assert_non_null(strstr(b.data, "per transaction"));
    buf_free(&b);
}

/* Two runs differing in WAL sync cost (local NVMe against a network volume): compare names WAL
 * flush and the sync time per commit that moved with it; two runs alike explain nothing. */
static void test_explain(void **state)
{
    (void)state;
    cJSON *nvme = result_of("{\"IO:WALSync\":12,\"CPU\":120,\"Client:ClientRead\":40,"
                            "\"Lock:tuple\":68}",
                            "{\"summary\":{\"tps\":16030,\"latencyAvgMs\":4.0,"
                            "\"transactionsProcessed\":480900},\"serverStats\":{"
                            "\"walSyncMsPerCommit\":0.3,\"walBytesPerTx\":600}}");
    cJSON *gp3 = result_of("{\"IO:WALSync\":150,\"CPU\":30,\"Client:ClientRead\":20,"
                           "\"Lock:tuple\":40}",
                           "{\"summary\":{\"tps\":1734,\"latencyAvgMs\":36.9,"
                           "\"transactionsProcessed\":52020},\"serverStats\":{"
                           "\"walSyncMsPerCommit\":9.8,\"walBytesPerTx\":610}}");
    double a[BENCH_EV__COUNT], b[BENCH_EV__COUNT];
    bench_verdict_evidence_of(nvme, a);
    bench_verdict_evidence_of(gp3, b);
    struct buf o = BUF_INIT(0);
    int cls = -2;
    assert_int_equal(bench_verdict_explain(&o, a, b, &cls), 0);
    assert_int_equal(cls, BENCH_VC_WAL_FLUSH);
    assert_non_null(strstr(o.data, "latency 4 -> 36.9 ms"));
    assert_non_null(strstr(o.data, "walSyncMsPerCommit 0.3 -> 9.8 ms"));
    assert_null(strstr(o.data, "walBytesPerTx")); /* 600 -> 610 did not move */
    /* the other way round: the slower run is a, the same class */
    buf_reset(&o);
    assert_int_equal(bench_verdict_explain(&o, b, a, &cls), 0);
    assert_int_equal(cls, BENCH_VC_WAL_FLUSH);
    /* a fast run whose backends were only ever seen waiting for pgbench (its database shares
     * unmeasured) against a slow one: still WAL flush, from 0 % of the backend samples */
    cJSON *idle = result_of("{\"Client:ClientRead\":240}", NULL);
    double c[BENCH_EV__COUNT];
    bench_verdict_evidence_of(idle, c);
    assert_true(isnan(c[BENCH_EV_WAL_SHARE]));
    buf_reset(&o);
    assert_int_equal(bench_verdict_explain(&o, c, b, &cls), 0);
    assert_int_equal(cls, BENCH_VC_WAL_FLUSH);
    assert_non_null(strstr(o.data, "WAL flush 0 % -> 62.5 % of the backend samples"));
    cJSON_Delete(idle);
    /* the same run twice */
    buf_reset(&o);
    assert_int_equal(bench_verdict_explain(&o, a, a, &cls), 0);
    assert_int_equal(cls, -1);
    assert_non_null(strstr(o.data, "does not explain"));
    buf_free(&o);
    cJSON_Delete(nvme);
    cJSON_Delete(gp3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client),
        cmocka_unit_test(test_client_run_queue),
        cmocka_unit_test(test_network),
        cmocka_unit_test(test_database_classes),
        cmocka_unit_test(test_frequent_checkpoints),
        cmocka_unit_test(test_server_cpu_unknown),
        cmocka_unit_test(test_rate_and_inconclusive),
        cmocka_unit_test(test_few_samples),
        cmocka_unit_test(test_pitfalls),
        cmocka_unit_test(test_sentence_whole),
        cmocka_unit_test(test_wait_classes),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_explain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
