/* Live progress: the records the real runner logs (made here with the same logger and keys),
 * found in a log tail among other lines, summed into status.progress; a worker that still waits
 * for its target is named with its cause and how long it has waited. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pkg/controller/controller.h"
#include "pkg/util/json.h"
#include "pkg/controller/progress.h"

static const char *log0 =
    "{\"ts\":\"x\",\"level\":\"info\",\"component\":\"runner\",\"msg\":\"starting pgbench\"}\n"
    "{\"ts\":\"x\",\"level\":\"info\",\"component\":\"pgbench\",\"msg\":\"progress t=1s\","
    "\"progress\":{\"t\":1,\"tps\":500,\"latencyMs\":2,\"failedTotal\":0,\"durationSeconds\":20}}\n"
    "some pgbench stderr line\n"
    "{\"ts\":\"x\",\"level\":\"info\",\"component\":\"pgbench\",\"msg\":\"progress t=2s\","
    "\"progress\":{\"t\":2,\"tps\":600,\"latencyMs\":4,\"failedTotal\":3,\"durationSeconds\":20}}\n"
    "{\"ts\":\"x\",\"level\":\"info\",\"comp"; /* cut by limitBytes */

static const char *log1 =
    "{\"ts\":\"x\",\"level\":\"info\",\"component\":\"pgbench\",\"msg\":\"progress t=3s\","
    "\"progress\":{\"t\":3,\"tps\":400,\"latencyMs\":1,\"failedTotal\":1,\"durationSeconds\":20}}"
    "\n";

static const char *log_waiting = "{\"ts\":\"x\",\"level\":\"info\",\"component\":\"pg\",\"msg\":"
                                 "\"waiting\",\"wait\":{\"target\":"
                                 "\"pg-rw:5432/app\",\"cause\":\"dns\",\"message\":\"could not "
                                 "translate host name \\\"pg-rw\\\" "
                                 "to address\",\"elapsedSeconds\":5,\"timeoutSeconds\":120}}\n"
                                 "{\"ts\":\"x\",\"level\":\"info\",\"component\":\"pg\",\"msg\":"
                                 "\"waiting\",\"wait\":{\"target\":"
                                 "\"pg-rw:5432/app\",\"cause\":\"dns\",\"message\":\"could not "
                                 "translate host name \\\"pg-rw\\\" "
                                 "to address\",\"elapsedSeconds\":40.2,\"timeoutSeconds\":120}}\n";

static void test_sum_and_wait(void **state)
{
    (void)state;
    struct ctrl_worker_progress w[3];
    assert_true(ctrl_progress_parse(log0, strlen(log0), &w[0]));
    assert_true(w[0].progress && !w[0].waiting);
    assert_true(w[0].t == 2 && w[0].tps == 600 && w[0].failed_total == 3);
    assert_true(ctrl_progress_parse(log1, strlen(log1), &w[1]));
    assert_true(ctrl_progress_parse(log_waiting, strlen(log_waiting), &w[2]));
    assert_false(w[2].progress);
    assert_true(w[2].waiting && w[2].wait_elapsed_s == 40.2);

    cJSON *st = cJSON_CreateObject();
    assert_true(ctrl_progress_set(st, w, 3, 3, 3, 1700000000));
    assert_true(util_jnum(st, "progress.elapsedSeconds", 0) == 3);
    assert_true(util_jnum(st, "progress.remainingSeconds", 0) == 17);
    assert_true(util_jnum(st, "progress.tps", 0) == 1000);
    assert_true(fabs(util_jnum(st, "progress.latencyMs", 0) - 2.8) < 1e-9); /* tps-weighted */
    assert_int_equal(util_jnum(st, "progress.failed", -1), 4);
    assert_int_equal(util_jnum(st, "progress.workersReporting", 0), 2);
    assert_string_equal(util_jstr(st, "progress.time"), "2023-11-14T22:13:20Z");
    /* the RESULT column while it runs: tps spelled as the final one is (grouped) */
    ctrl_progress_display(st);
    assert_string_equal(util_jstr(st, "result"), "1,000 tps now · 3 s of 20 s");
    /* the same numbers later: no change, nothing to write */
    assert_false(ctrl_progress_set(st, w, 3, 3, 3, 1700000010));
    assert_string_equal(util_jstr(st, "progress.time"), "2023-11-14T22:13:20Z");

    char msg[512];
    assert_true(ctrl_progress_waiting(w, 3, msg, sizeof(msg)));
    assert_string_equal(msg, "worker 2 waits for pg-rw:5432/app: could not translate host name "
                             "\"pg-rw\" to address (dns), retrying, 40 s of 120 s");
    assert_false(ctrl_progress_waiting(w, 2, msg, sizeof(msg)));

    /* nobody reports any more: progress goes */
    struct ctrl_worker_progress none[1];
    assert_false(ctrl_progress_parse("plain text\n", 11, &none[0]));
    assert_true(ctrl_progress_set(st, none, 1, 1, 1, 1700000020));
    assert_true(cJSON_IsNull(util_jget(st, "progress")));
    assert_false(ctrl_progress_set(st, none, 1, 1, 1, 1700000030));
    cJSON_Delete(st);
}

/* a wait followed by progress: the worker no longer waits */
static void test_wait_then_progress(void **state)
{
    (void)state;
    char buf[2048];
    (void)snprintf(buf, sizeof(buf), "%s%s", log_waiting, log1);
    struct ctrl_worker_progress w;
    assert_true(ctrl_progress_parse(buf, strlen(buf), &w));
    assert_true(w.progress);
    assert_false(w.waiting);
}

/* An init's records (as the runner logs them while pgbench -i generates server-side): step and
 * rows instead of tps, in status.progress, the RESULT column and the message. */
static const char *log_init =
    "{\"ts\":\"x\",\"level\":\"info\",\"component\":\"pgbench\",\"msg\":\"generating data "
    "(server-side)...\",\"output\":\"stderr\"}\n"
    "{\"ts\":\"x\",\"level\":\"info\",\"component\":\"pgbench\",\"msg\":\"init progress\","
    "\"progress\":{\"t\":12.5,\"step\":\"generate (server-side)\",\"rows\":2400000,"
    "\"rowsTotal\":5000000,\"rowsPerSecond\":650123,\"source\":\"database size\"}}\n";

static void test_init_progress(void **state)
{
    (void)state;
    struct ctrl_worker_progress w;
    assert_true(ctrl_progress_parse(log_init, strlen(log_init), &w));
    assert_string_equal(w.step, "generate (server-side)");
    assert_true(w.rows == 2400000 && w.rows_total == 5000000 && w.rows_per_s == 650123);
    cJSON *st = cJSON_CreateObject();
    assert_true(ctrl_progress_set(st, &w, 1, 1, 1, 1700000000));
    assert_string_equal(util_jstr(st, "progress.step"), "generate (server-side)");
    assert_true(util_jnum(st, "progress.rows", 0) == 2400000);
    assert_true(util_jnum(st, "progress.rowsTotal", 0) == 5000000);
    assert_true(util_jnum(st, "progress.rowsPerSecond", 0) == 650123);
    assert_string_equal(util_jstr(st, "progress.source"), "database size");
    assert_true(util_jnum(st, "progress.elapsedSeconds", 0) == 12.5);
    assert_null(util_jget(st, "progress.tps")); /* an init has no tps */
    ctrl_progress_display(st);
    assert_string_equal(util_jstr(st, "result"),
                        "init: generate (server-side) 48 % · 2,400,000 of 5,000,000 rows · "
                        "650,123 rows/s · estimated from the database size");
    char msg[512];
    assert_true(ctrl_progress_message(st, 1, msg, sizeof(msg)));
    assert_string_equal(msg, "pgbench -i: generate (server-side) 48 %, 2,400,000 of 5,000,000 "
                             "rows, 650,123 rows/s, estimated from the database size, 12 s");
    /* the init ends: its figures go (null: removed by the merge patch) */
    ctrl_progress_end_init(st);
    assert_true(cJSON_IsNull(util_jget(st, "progress")));
    assert_true(cJSON_IsNull(util_jget(st, "result")));
    cJSON_Delete(st);

    /* the init's line also goes when its progress went first (the pod stopped running) */
    st = cJSON_CreateObject();
    util_jset_str(st, "result", "init: vacuum");
    ctrl_progress_end_init(st);
    assert_true(cJSON_IsNull(util_jget(st, "result")));
    cJSON_Delete(st);
}

/* 64 running workers, 8 logs read: the sums scaled to all 64 and marked so; the sample's start
 * moves by 8 each interval and wraps */
static void test_sample_extrapolated(void **state)
{
    (void)state;
    struct ctrl_worker_progress w[64];
    memset(w, 0, sizeof(w));
    for (int i = 8; i < 16; i++) /* the sample read workers 8..15 */
        w[i] = (struct ctrl_worker_progress){.progress = true,
                                             .t = 12,
                                             .tps = 100 + i, /* 108 .. 115: 892 in all */
                                             .latency_ms = 2,
                                             .failed_total = 1,
                                             .duration_s = 30};
    cJSON *st = cJSON_CreateObject();
    assert_true(ctrl_progress_set(st, w, 64, 8, 64, 1700000000));
    assert_true(util_jnum(st, "progress.tps", 0) == 892 * 8); /* 892 x 64 / 8 */
    assert_int_equal(util_jnum(st, "progress.failed", -1), 64);
    assert_true(util_jnum(st, "progress.latencyMs", 0) == 2);
    assert_int_equal(util_jnum(st, "progress.workersReporting", 0), 8);
    assert_int_equal(util_jnum(st, "progress.workersRead", 0), 8);
    assert_true(cJSON_IsTrue(util_jget(st, "progress.extrapolated")));
    ctrl_progress_display(st);
    assert_string_equal(util_jstr(st, "result"), "~7,136 tps now · 12 s of 30 s");
    char msg[256];
    assert_true(ctrl_progress_message(st, 64, msg, sizeof(msg)));
    assert_string_equal(msg, "pgbench runs on 64 workers: 12 s of 30 s, about 7,136 tps now (8 "
                             "of 64 read, extrapolated)");
    /* every worker read: neither scaled nor marked */
    cJSON *all = cJSON_CreateObject();
    assert_true(ctrl_progress_set(all, w, 64, 64, 64, 1700000000));
    assert_true(util_jnum(all, "progress.tps", 0) == 892);
    assert_null(util_jget(all, "progress.workersRead"));
    assert_null(util_jget(all, "progress.extrapolated"));
    cJSON_Delete(all);
    cJSON_Delete(st);

    /* 20 running, read every 10 s: 0-7, 8-15, 16-3, 4-11, ... */
    assert_int_equal(ctrl_progress_sample_start(20, 1000, 10), 0);
    assert_int_equal(ctrl_progress_sample_start(20, 1015, 10), 8);
    assert_int_equal(ctrl_progress_sample_start(20, 1020, 10), 16);
    assert_int_equal(ctrl_progress_sample_start(20, 1030, 10), 4);
    assert_int_equal(ctrl_progress_sample_start(8, 1030, 10), 0); /* one sample holds them all */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sum_and_wait),
        cmocka_unit_test(test_wait_then_progress),
        cmocka_unit_test(test_sample_extrapolated),
        cmocka_unit_test(test_init_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
