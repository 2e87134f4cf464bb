/* Placement: which workers share a node, which nodes could have taken one (WorkersShareNode). */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <string.h>

#include "pkg/api/placement.h"

/* A Node named name; extra is appended to its JSON object (spec, status, labels). */
static cJSON *node(const char *name, const char *ready, const char *spec, const char *labels)
{
    char json[1024];
    (void)snprintf(
        json, sizeof(json),
        "{\"metadata\":{\"name\":\"%s\",\"labels\":{\"kubernetes.io/hostname\":\"%s\"%s}},"
        "\"spec\":{%s},\"status\":{\"conditions\":[{\"type\":\"MemoryPressure\","
        "\"status\":\"False\"},{\"type\":\"Ready\",\"status\":\"%s\"}]}}",
        name, name, labels ? labels : "", spec ? spec : "", ready);
    cJSON *n = cJSON_Parse(json);
    assert_non_null(n);
    return n;
}

static void test_workers_placed(void **state)
{
    (void)state;
    char msg[1024];
    bool shared = true;
    const char *unplaced[] = {"a", NULL, "b"};
    assert_false(api_workers_placed(unplaced, 3, &shared, msg, sizeof(msg)));
    const char *empty[] = {"a", ""};
    assert_false(api_workers_placed(empty, 2, &shared, msg, sizeof(msg)));

    const char *apart[] = {"n1", "n2", "n3"};
    assert_true(api_workers_placed(apart, 3, &shared, msg, sizeof(msg)));
    assert_false(shared);
    assert_string_equal(msg, "each of the 3 workers ran on a node of its own: worker 0 on n1, "
                             "worker 1 on n2, worker 2 on n3");

    const char *two[] = {"a", "b", "a", "b", "b", "c"};
    assert_true(api_workers_placed(two, 6, &shared, msg, sizeof(msg)));
    assert_true(shared);
    assert_string_equal(msg, "workers 0 and 2 share node a; workers 1, 3 and 4 share node b");

    /* 20 workers on 20 nodes: 8 named, the rest counted; a short buffer is cut, not overrun */
    const char *many[20];
    char names[20][16];
    for (int i = 0; i < 20; i++) {
        (void)snprintf(names[i], sizeof(names[i]), "n%d", i);
        many[i] = names[i];
    }
    assert_true(api_workers_placed(many, 20, &shared, msg, sizeof(msg)));
    assert_non_null(strstr(msg, "worker 7 on n7 and 12 more"));
    char small[16];
    assert_true(api_workers_placed(many, 20, &shared, small, sizeof(small)));
    assert_true(strlen(small) < sizeof(small));
}

static void test_node_schedulable(void **state)
{
    (void)state;
    char why[160];
    cJSON *tmpl = cJSON_Parse(
        "{\"nodeSelector\":{\"pool\":\"bench\"},\"tolerations\":[{\"key\":\"dedicated\","
        "\"operator\":\"Equal\",\"value\":\"bench\",\"effect\":\"NoSchedule\"},{\"key\":\"spot\","
        "\"operator\":\"Exists\"}]}");
    static const struct {
        const char *ready, *spec, *labels, *why; /* why NULL: schedulable */
    } cases[] = {
        {"True", NULL, ",\"pool\":\"bench\"", NULL},
        {"False", NULL, ",\"pool\":\"bench\"", "not Ready"},
        {"Unknown", NULL, ",\"pool\":\"bench\"", "not Ready"},
        {"True", "\"unschedulable\":true", ",\"pool\":\"bench\"", "cordoned"},
        {"True", NULL, ",\"pool\":\"db\"", "not matching spec.podTemplate's nodeSelector/affinity"},
        {"True", NULL, NULL, "not matching spec.podTemplate's nodeSelector/affinity"},
        {"True", "\"taints\":[{\"key\":\"dedicated\",\"value\":\"db\",\"effect\":\"NoSchedule\"}]",
         ",\"pool\":\"bench\"", "taint dedicated=db:NoSchedule"},
        {"True",
         "\"taints\":[{\"key\":\"dedicated\",\"value\":\"bench\",\"effect\":\"NoSchedule\"},"
         "{\"key\":\"spot\",\"value\":\"yes\",\"effect\":\"NoExecute\"},{\"key\":\"soft\","
         "\"effect\":\"PreferNoSchedule\"}]",
         ",\"pool\":\"bench\"", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cJSON *n = node("n", cases[i].ready, cases[i].spec, cases[i].labels);
        why[0] = '\0';
        bool ok = api_node_schedulable(n, tmpl, why, sizeof(why));
        if (ok != !cases[i].why || (cases[i].why && strcmp(why, cases[i].why) != 0))
            fail_msg("case %zu: %s (%s), want %s", i, ok ? "schedulable" : "not", why,
                     cases[i].why ? cases[i].why : "schedulable");
        cJSON_Delete(n);
    }
    cJSON_Delete(tmpl);

    /* required node affinity: terms ORed, expressions ANDed; no template, any Ready node */
    tmpl = cJSON_Parse("{\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuring"
                       "Execution\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":"
                       "\"kubernetes.io/hostname\",\"operator\":\"NotIn\",\"values\":[\"a\"]},{"
                       "\"key\":\"cpu\",\"operator\":\"Gt\",\"values\":[\"8\"]}]},{"
                       "\"matchExpressions\":[{\"key\":\"gpu\",\"operator\":\"Exists\"}]}]}}}}");
    cJSON *a = node("a", "True", NULL, ",\"cpu\":\"16\"");
    cJSON *b = node("b", "True", NULL, ",\"cpu\":\"16\"");
    cJSON *c = node("c", "True", NULL, ",\"cpu\":\"4\"");
    cJSON *d = node("d", "True", NULL, ",\"cpu\":\"4\",\"gpu\":\"1\"");
    assert_false(api_node_schedulable(a, tmpl, why, sizeof(why)));
    assert_true(api_node_schedulable(b, tmpl, why, sizeof(why)));
    assert_false(api_node_schedulable(c, tmpl, why, sizeof(why)));
    assert_true(api_node_schedulable(d, tmpl, why, sizeof(why)));
    assert_true(api_node_schedulable(c, NULL, why, sizeof(why)));
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
    cJSON_Delete(d);
    cJSON_Delete(tmpl);
}

static void test_sharing_avoidable(void **state)
{
    (void)state;
    const char *nodes[] = {"n1", "n2", "n1", "n2"};
    const char *shared = "workers 0 and 2 share node n1; workers 1 and 3 share node n2";
    char msg[1024];
    cJSON *items = cJSON_CreateArray();
    cJSON_AddItemToArray(items, node("n1", "True", NULL, NULL));
    cJSON_AddItemToArray(items, node("n2", "True", NULL, NULL));
    cJSON_AddItemToArray(items, node("n3", "True", "\"unschedulable\":true", NULL));
    cJSON_AddItemToArray(items, node("n4", "False", NULL, NULL));
    /* every other node is out: not the scheduler's fault */
    assert_false(api_sharing_avoidable(nodes, 4, shared, items, NULL, msg, sizeof(msg)));
    assert_string_equal(msg, "workers 0 and 2 share node n1; workers 1 and 3 share node n2; no "
                             "other node was schedulable (n3: cordoned; n4: not Ready)");
    /* a Ready, uncordoned node ran no worker: the sharing was avoidable */
    cJSON_AddItemToArray(items, node("n5", "True", NULL, NULL));
    cJSON_AddItemToArray(items, node("n6", "True", NULL, NULL));
    assert_true(api_sharing_avoidable(nodes, 4, shared, items, NULL, msg, sizeof(msg)));
    assert_non_null(strstr(msg, "workers 1 and 3 share node n2 while 2 other nodes were "
                                "schedulable (n5, n6): those workers share its CPU and network"));
    assert_non_null(strstr(msg, "whenUnsatisfiable: DoNotSchedule}"));
    /* nodes the workers' nodeSelector excludes do not count */
    cJSON *tmpl = cJSON_Parse("{\"nodeSelector\":{\"kubernetes.io/hostname\":\"n1\"}}");
    assert_false(api_sharing_avoidable(nodes, 4, shared, items, tmpl, msg, sizeof(msg)));
    assert_non_null(strstr(msg, "n5: not matching spec.podTemplate's nodeSelector/affinity"));
    cJSON_Delete(tmpl);
    /* a one-node cluster */
    cJSON *one = cJSON_CreateArray();
    cJSON_AddItemToArray(one, node("n1", "True", NULL, NULL));
    const char *same[] = {"n1", "n1"};
    assert_false(api_sharing_avoidable(same, 2, "workers 0 and 1 share node n1", one, NULL, msg,
                                       sizeof(msg)));
    assert_string_equal(msg, "workers 0 and 1 share node n1; the cluster has no other node");
    cJSON_Delete(one);
    cJSON_Delete(items);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workers_placed),
        cmocka_unit_test(test_node_schedulable),
        cmocka_unit_test(test_sharing_avoidable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
