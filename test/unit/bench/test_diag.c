/* The diagnostics as status' sentences: each formatter against a sentence written out by hand
 * from the numbers of docs/transcript.md's run, the variants (skipped rounds, a stopped sampler,
 * no backend seen, a not caught-up standby, a throttled run), and the wait-event sentence read
 * back: every share of a map written and parsed again, in the order a sort of the map gives. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/diag.h"
#include "pkg/bench/result.h"

/* A result holding the section JSON at the section's path. */
static cJSON *result_with(enum bench_field_id section, const char *json)
{
    cJSON *r = cJSON_CreateObject(), *v = cJSON_Parse(json);
    assert_non_null(v);
    assert_int_equal(bench_put(r, section, v), 0);
    return r;
}

static const struct bench_diag *diag_of(enum bench_field_id status, enum bench_field_id section)
{
    for (size_t i = 0; i < bench_ndiags; i++)
        if (bench_diags[i].status == status && bench_diags[i].section == section)
            return &bench_diags[i];
    fail_msg("no diagnostic for row %d", (int)status);
    return NULL;
}

/* The sentence of status row `status` from a result with `json` at `section`. */
static void expect(enum bench_field_id status, enum bench_field_id section, const char *json,
                   const char *want)
{
    cJSON *r = result_with(section, json);
    char *got = bench_diag_sentence(diag_of(status, section), r);
    if (!want)
        assert_null(got);
    else
        assert_string_equal(got ? got : "(none)", want);
    free(got);
    cJSON_Delete(r);
}

#define WAITS BK_STATUS_DIAGNOSTICS_WAIT_EVENTS, BK_WAIT_EVENTS
static const char *const TRANSCRIPT_SHARES =
    "\"sharesPct\":{\"CPU\":2,\"Client:ClientRead\":55.7,\"Client:Idle\":4,\"IO:WALWrite\":0.5,"
    "\"Lock:transactionid\":30.8,\"Lock:tuple\":7}";

static void test_wait_events(void **state)
{
    (void)state;
    char j[1024];
    (void)snprintf(j, sizeof(j), "{\"samples\":52,\"backendSamples\":201,%s,\"skippedTicks\":0}",
                   TRANSCRIPT_SHARES);
    expect(WAITS, j,
           "Client:ClientRead 55.7 %, Lock:transactionid 30.8 %, Lock:tuple 7 %, Client:Idle 4 %, "
           "CPU 2 %, IO:WALWrite 0.5 % of 201 backend samples in 52 rounds");
    (void)snprintf(j, sizeof(j),
                   "{\"samples\":1,\"backendSamples\":1,\"sharesPct\":{\"CPU\":100},"
                   "\"skippedTicks\":3,\"error\":\"connection lost\"}");
    expect(WAITS, j,
           "CPU 100 % of 1 backend sample in 1 round; 3 rounds skipped; sampling stopped: "
           "connection lost");
    /* equal shares by name, whatever the map's order */
    expect(WAITS, "{\"samples\":4,\"backendSamples\":8,\"sharesPct\":{\"b\":50,\"a\":50}}",
           "a 50 %, b 50 % of 8 backend samples in 4 rounds");
    expect(WAITS, "{\"samples\":5,\"backendSamples\":0,\"sharesPct\":{}}",
           "no backend of the load seen in 5 rounds");
    /* no section: no sentence */
    cJSON *none = cJSON_CreateObject();
    assert_null(bench_diag_sentence(diag_of(WAITS), none));
    cJSON_Delete(none);
}

/* More events than the sentence names: the rest counted with their summed share. */
static void test_wait_events_many(void **state)
{
    (void)state;
    char j[2048];
    size_t n = (size_t)snprintf(j, sizeof(j),
                                "{\"samples\":100,\"backendSamples\":1000,"
                                "\"sharesPct\":{");
    for (int i = 0; i < 15; i++) /* e00 15 %, e01 14 %, ... e14 1 % */
        n += (size_t)snprintf(j + n, sizeof(j) - n, "%s\"e%02d\":%d", i ? "," : "", i, 15 - i);
    (void)snprintf(j + n, sizeof(j) - n, "}}");
    cJSON *r = result_with(BK_WAIT_EVENTS, j);
    char *s = bench_diag_sentence(diag_of(WAITS), r);
    assert_non_null(s);
    assert_non_null(strstr(s, "e00 15 %, e01 14 %, "));
    assert_non_null(strstr(s, ", e11 4 % and 3 more (6 %) of 1000 backend samples in 100 rounds"));
    struct bench_wait_share w[20];
    assert_int_equal(bench_diag_wait_parse(s, w, 20), BENCH_DIAG_MAX_WAITS);
    assert_string_equal(w[11].event, "e11");
    assert_true(w[11].pct == 4);
    free(s);
    cJSON_Delete(r);
}

/* Every share written is read back, in the order of the map sorted here (largest first, then by
 * name), with names that hold spaces, colons and digits. */
static void test_wait_round_trip(void **state)
{
    (void)state;
    static const struct {
        const char *event;
        double pct;
    } in[] = {{"IO:DataFileRead", 12.3},    {"CPU", 40},
              {"Extension:my wait 2", 0.1}, {"Lock:tuple", 12.3},
              {"LWLock:WALWrite", 0},       {"Client:ClientRead", 35.3}};
    enum { N = sizeof(in) / sizeof(in[0]) };
    cJSON *r = cJSON_CreateObject(), *we = cJSON_CreateObject(), *sh = cJSON_CreateObject();
    for (int i = 0; i < N; i++)
        cJSON_AddNumberToObject(sh, in[i].event, in[i].pct);
    cJSON_AddNumberToObject(we, "samples", 10);
    cJSON_AddNumberToObject(we, "backendSamples", 100);
    cJSON_AddItemToObject(we, "sharesPct", sh);
    assert_int_equal(bench_put(r, BK_WAIT_EVENTS, we), 0);
    char *s = bench_diag_sentence(diag_of(WAITS), r);
    assert_non_null(s);
    /* the oracle: a selection sort of the input */
    int order[N], used[N] = {0};
    for (int k = 0; k < N; k++) {
        int best = -1;
        for (int i = 0; i < N; i++)
            if (!used[i] &&
                (best < 0 || in[i].pct > in[best].pct ||
                 (in[i].pct == in[best].pct && strcmp(in[i].event, in[best].event) < 0)))
                best = i;
        used[best] = 1;
        order[k] = best;
    }
    struct bench_wait_share w[N + 1];
    assert_int_equal(bench_diag_wait_parse(s, w, N + 1), N);
    for (int k = 0; k < N; k++) {
        assert_string_equal(w[k].event, in[order[k]].event);
        assert_true(fabs(w[k].pct - in[order[k]].pct) < 1e-9);
    }
    /* max caps what is read: the largest first */
    assert_int_equal(bench_diag_wait_parse(s, w, 1), 1);
    assert_string_equal(w[0].event, "CPU");
    free(s);
    cJSON_Delete(r);
}

static void test_wait_parse_refuses(void **state)
{
    (void)state;
    struct bench_wait_share w[4];
    assert_int_equal(bench_diag_wait_parse(NULL, w, 4), 0);
    assert_int_equal(bench_diag_wait_parse("", w, 4), 0);
    assert_int_equal(bench_diag_wait_parse("no backend of the load seen in 5 rounds; sampling "
                                           "stopped: disk 95 % full",
                                           w, 4),
                     0);
    assert_int_equal(bench_diag_wait_parse("CPU 5 % then", w, 4), 0);
    assert_int_equal(bench_diag_wait_parse("CPU x % of 4 backend samples", w, 4), 0);
    assert_int_equal(bench_diag_wait_parse("5 % of 4 backend samples", w, 4), 0);
    assert_int_equal(bench_diag_wait_parse("CPU 5 %; 2 rounds skipped", w, 4), 1);
}

/* The server's sentence carries the dataset check: the ratio before shared_buffers, the warning
 * last. */
static void server_with_dataset(long long db, long long sb, const char *want)
{
    char server[256];
    (void)snprintf(server, sizeof(server),
                   "{\"version\":\"15.18\",\"inRecovery\":false,\"database\":\"bench\","
                   "\"databaseBytes\":%lld,\"sharedBuffersBytes\":%lld}",
                   db, sb);
    cJSON *r = result_with(BK_SERVER, server);
    assert_int_equal(bench_put(r, BK_CHECKS_DATASET, bench_check_dataset(db, sb)), 0);
    char *got = bench_diag_sentence(diag_of(BK_STATUS_DIAGNOSTICS_SERVER, BK_SERVER), r);
    assert_string_equal(got ? got : "(none)", want);
    free(got);
    cJSON_Delete(r);
}

static void test_server_and_dataset(void **state)
{
    (void)state;
    expect(BK_STATUS_DIAGNOSTICS_SERVER, BK_SERVER,
           "{\"version\":\"15.18\",\"versionNum\":150018,\"inRecovery\":false,\"database\":"
           "\"bench\",\"databaseBytes\":39181671,\"sharedBuffersBytes\":134217728,"
           "\"shared_buffers\":\"128MB\"}",
           "PostgreSQL 15.18, primary, database bench 37.4 MiB, shared_buffers 128 MiB");
    expect(BK_STATUS_DIAGNOSTICS_SERVER, BK_SERVER,
           "{\"version\":\"16.2\",\"inRecovery\":true,\"databaseBytes\":1610612736}",
           "PostgreSQL 16.2, standby, database 1.5 GiB");
    expect(BK_STATUS_DIAGNOSTICS_SERVER, BK_SERVER, "{\"sharedBuffersBytes\":134217728}",
           "shared_buffers 128 MiB");
    expect(BK_STATUS_DIAGNOSTICS_SERVER, BK_SERVER, "{\"shared_buffers\":\"128MB\"}", NULL);

    /* 39181671 / 134217728 = 0.2919..., 12 GiB / 128 MiB = 96 */
    server_with_dataset(39181671, 134217728,
                        "PostgreSQL 15.18, primary, database bench 37.4 MiB, 0.292 of "
                        "shared_buffers 128 MiB");
    server_with_dataset(12LL << 30, 128 << 20,
                        "PostgreSQL 15.18, primary, database bench 12 GiB, 96 of shared_buffers "
                        "128 MiB");
    /* no dataset check: the diagnostics table has no sentence of its own for it */
    for (size_t i = 0; i < bench_ndiags; i++)
        assert_int_not_equal(bench_diags[i].section, BK_CHECKS_DATASET);
}

static void test_replica(void **state)
{
    (void)state;
    expect(BK_STATUS_DIAGNOSTICS_SERVER, BK_CHECKS_REPLICA,
           "{\"role\":\"primary\",\"caughtUp\":true,\"waitedSeconds\":0,\"message\":\"all "
           "standbys replayed up to 0/48CCEA8 after 0.0 s\",\"lagSamplesMs\":[1,152.846],"
           "\"maxLagMs\":152.846,\"maxLagBytes\":8192}",
           "primary: caught up: all standbys replayed up to 0/48CCEA8 after 0.0 s; max lag 152.8 "
           "ms during the run");
    expect(BK_STATUS_DIAGNOSTICS_SERVER, BK_CHECKS_REPLICA,
           "{\"role\":\"standby\",\"caughtUp\":false,\"message\":\"replay at 0/3000 of 0/5000 "
           "after 300 s\",\"maxLagMs\":null}",
           "standby: not caught up: replay at 0/3000 of 0/5000 after 300 s; no lag sampled during "
           "the run");
    expect(BK_STATUS_DIAGNOSTICS_SERVER, BK_CHECKS_REPLICA, "{\"lagSamplesMs\":[3],\"maxLagMs\":3}",
           "no catch-up wait; max lag 3 ms during the run");
}

static void test_littles_law(void **state)
{
    (void)state;
    /* 8 / 0.010 s = 800 tps predicted; 820 measured is 2.5 % above */
    double predicted = 0;
    assert_true(fabs(bench_littles_law(8, 10, 820, &predicted) - 2.5) < 1e-9);
    assert_true(fabs(predicted - 800) < 1e-9);
    assert_true(isnan(bench_littles_law(0, 10, 820, NULL)));
    assert_true(isnan(bench_littles_law(8, 0, 820, NULL)));
    assert_true(isnan(bench_littles_law(8, 10, NAN, NULL)));

    cJSON *ll = bench_check_littles_law(8, 9.715961, 821.384413, false);
    char *j = cJSON_PrintUnformatted(ll);
    expect(BK_STATUS_DIAGNOSTICS_VERDICT, BK_CHECKS_LITTLES_LAW, j,
           "8 clients / 9.72 ms predict 823.4 tps; measured 821.4 tps (-0.24 %)");
    free(j);
    cJSON_Delete(ll);
    ll = bench_check_littles_law(1, 10, 50, true);
    j = cJSON_PrintUnformatted(ll);
    expect(BK_STATUS_DIAGNOSTICS_VERDICT, BK_CHECKS_LITTLES_LAW, j,
           "1 client / 10 ms predict 100 tps; measured 50 tps (-50.00 %); rate-limited run (-R): "
           "clients are idle between transactions, measured tps is expected below the "
           "prediction");
    free(j);
    cJSON_Delete(ll);
    expect(BK_STATUS_DIAGNOSTICS_VERDICT, BK_CHECKS_LITTLES_LAW, "{\"clients\":8}", NULL);
}

static void put_row(enum bench_field_id row, const char *sentence, void *ctx)
{
    (void)bench_json_put(ctx, bench_fields[row].status, cJSON_CreateString(sentence));
}

/* The rows: a joined diagnostic adds its sentence to its row's, after "; " or ". "; alone it is
 * the row's sentence with its label. */
static void test_rows(void **state)
{
    (void)state;
    cJSON *r = result_with(BK_CHECKS_REPLICA, "{\"role\":\"primary\",\"caughtUp\":true}");
    assert_int_equal(bench_put(r, BK_SERVER, cJSON_Parse("{\"version\":\"15.18\"}")), 0);
    assert_int_equal(bench_put(r, BK_VERDICT, cJSON_Parse("{\"summary\":\"Server CPU limits.\"}")),
                     0);
    assert_int_equal(bench_put(r, BK_CHECKS_LITTLES_LAW,
                               cJSON_Parse("{\"clients\":2,\"latencyAvgMs\":10,\"predictedTps\":"
                                           "200,\"measuredTps\":200,\"deviationPct\":0}")),
                     0);
    cJSON *st = cJSON_CreateObject();
    bench_diag_rows(r, put_row, st);
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(st, "diagnostics"), "server")->valuestring,
        "PostgreSQL 15.18; replication: primary: caught up; no lag sampled during "
        "the run");
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(st, "diagnostics"), "verdict")->valuestring,
        "Server CPU limits. Little's law: 2 clients / 10 ms predict 200 tps; "
        "measured 200 tps (+0.00 %)");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(st, "diagnostics")), 2);
    cJSON_Delete(st);
    /* the replica alone: its label starts the row */
    cJSON_DeleteItemFromObject(r, "server");
    st = cJSON_CreateObject();
    bench_diag_rows(r, put_row, st);
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(st, "diagnostics"), "server")->valuestring,
        "replication: primary: caught up; no lag sampled during the run");
    cJSON_Delete(st);
    cJSON_Delete(r);
}

/* Each diagnostic names a status row that is a string in status and a result section. */
static void test_table(void **state)
{
    (void)state;
    /* wait events, server (with the dataset), replica (joins the server's row), the verdict,
     * Little's law (joins the verdict's row) */
    assert_int_equal(bench_ndiags, 5);
    for (size_t i = 0; i < bench_ndiags; i++) {
        const struct bench_field *st = &bench_fields[bench_diags[i].status];
        const struct bench_field *sec = &bench_fields[bench_diags[i].section];
        assert_int_equal(st->type, BF_STR);
        assert_null(st->path);
        assert_non_null(st->status);
        assert_int_equal(strncmp(st->status, "diagnostics.", 12), 0);
        assert_non_null(sec->path);
        assert_null(sec->status);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait_events),
        cmocka_unit_test(test_wait_events_many),
        cmocka_unit_test(test_wait_round_trip),
        cmocka_unit_test(test_wait_parse_refuses),
        cmocka_unit_test(test_server_and_dataset),
        cmocka_unit_test(test_replica),
        cmocka_unit_test(test_littles_law),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
