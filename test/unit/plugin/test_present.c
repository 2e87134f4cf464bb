/* plugin_condition_news: the condition lines `kubectl pgbench run --wait` prints, each once per
 * cause: waiting conditions and result caveats when True, not again while only their counting
 * numbers change, again after they went False and came back; other conditions never. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <string.h>

#include "pkg/plugin/present.h"

/* A BenchmarkRun whose status has the conditions given as "Type=Status:message" strings. */
static cJSON *run_with(const char *const *conds, int n)
{
    cJSON *br = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(cJSON_AddObjectToObject(br, "status"), "conditions");
    for (int i = 0; i < n; i++) {
        char type[64], st[16];
        const char *msg = strchr(conds[i], ':') + 1;
        assert_int_equal(sscanf(conds[i], "%63[^=]=%15[^:]", type, st), 2);
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "type", type);
        cJSON_AddStringToObject(c, "status", st);
        cJSON_AddStringToObject(c, "message", msg);
        cJSON_AddItemToArray(list, c);
    }
    return br;
}

/* The lines of one --wait poll of a run with those conditions. */
static int poll_news(struct plugin_conds_seen *seen, const char *const *conds, int n, char *out,
                     size_t len)
{
    cJSON *br = run_with(conds, n);
    struct buf b = BUF_INIT(0);
    int lines = plugin_condition_news(&b, br, "r1", seen);
    (void)snprintf(out, len, "%s", b.data ? b.data : "");
    buf_free(&b);
    cJSON_Delete(br);
    return lines;
}

static void test_caveats_and_waits(void **state)
{
    (void)state;
    struct plugin_conds_seen seen = {0};
    char out[2048];
    const char *const first[] = {"Ready=True:ignored",
                                 "TargetUnreachable=True:retrying, 2 s of 30 s",
                                 "WorkersSkewed=False:together"};
    assert_int_equal(poll_news(&seen, first, 3, out, sizeof(out)), 1);
    assert_string_equal(out, "r1: TargetUnreachable: retrying, 2 s of 30 s\n");
    /* the same words with other numbers: no news */
    const char *const counting[] = {"TargetUnreachable=True:retrying, 12 s of 30 s"};
    assert_int_equal(poll_news(&seen, counting, 1, out, sizeof(out)), 0);
    /* the target answers; the workers ended apart and one result is its compact summary */
    const char *const caveats[] = {
        "TargetUnreachable=False:reachable",
        "WorkersSkewed=True:worker 1 started 1.4 s after the barrier",
        "ResultDetailUnavailable=True:worker 2: log unreadable; percentiles are worker 2's own"};
    assert_int_equal(poll_news(&seen, caveats, 3, out, sizeof(out)), 2);
    assert_string_equal(out, "r1: WorkersSkewed: worker 1 started 1.4 s after the barrier\n"
                             "r1: ResultDetailUnavailable: worker 2: log unreadable; "
                             "percentiles are worker 2's own\n");
    /* workers on one node while another was free: a caveat too */
    const char *const shared[] = {
        "WorkersSkewed=True:worker 1 started 1.4 s after the barrier",
        "WorkersShareNode=True:workers 0 and 1 on node-1; node-2 was free"};
    assert_int_equal(poll_news(&seen, shared, 2, out, sizeof(out)), 1);
    assert_string_equal(out, "r1: WorkersShareNode: workers 0 and 1 on node-1; node-2 was free\n");
    /* unreachable again after it cleared: printed again */
    const char *const again[] = {"TargetUnreachable=True:retrying, 1 s of 30 s",
                                 "WorkersSkewed=True:worker 1 started 1.4 s after the barrier"};
    assert_int_equal(poll_news(&seen, again, 2, out, sizeof(out)), 1);
    assert_string_equal(out, "r1: TargetUnreachable: retrying, 1 s of 30 s\n");
    /* a new cause of the same condition is news */
    const char *const cause[] = {"TargetUnreachable=True:could not translate host name, 3 s"};
    assert_int_equal(poll_news(&seen, cause, 1, out, sizeof(out)), 1);
    assert_string_equal(out, "r1: TargetUnreachable: could not translate host name, 3 s\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_caveats_and_waits)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
