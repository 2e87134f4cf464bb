/* Informer events -> queue keys (pkg/kube/enqueue.c): the keys a controller's queue gets. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <string.h>

#include "pkg/kube/kube.h"

struct t {
    uv_loop_t loop;
    struct kube_queue *q;
    char seen[8][64]; /* keys processed, in order */
    int n;
    char deleted[64]; /* on_delete's key */
    const cJSON *deleted_obj;
};

static void process(struct kube_queue *q, const char *key, void *ud)
{
    struct t *t = ud;
    if (t->n < 8)
        (void)snprintf(t->seen[t->n], sizeof(t->seen[0]), "%s", key);
    t->n++;
    kube_queue_done(q, key);
}

static void on_delete(const cJSON *obj, const char *key, void *ud)
{
    struct t *t = ud;
    (void)snprintf(t->deleted, sizeof(t->deleted), "%s", key);
    t->deleted_obj = obj;
}

static void setup(struct t *t)
{
    memset(t, 0, sizeof(*t));
    assert_int_equal(uv_loop_init(&t->loop), 0);
    struct kube_queue_opts o = {1, 1000, 1000};
    assert_int_equal(kube_queue_new(&t->loop, &o, process, t, &t->q), 0);
}

static void drain(struct t *t)
{
    for (int i = 0; i < 5; i++)
        uv_run(&t->loop, UV_RUN_NOWAIT);
}

static void teardown(struct t *t)
{
    kube_queue_free(t->q);
    uv_run(&t->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&t->loop), 0);
}

static cJSON *obj(const char *json)
{
    cJSON *o = cJSON_Parse(json);
    assert_non_null(o);
    return o;
}

/* An own object: add and update queue "namespace/name"; delete resets its backoff and hands the
 * key to on_delete without queueing it. */
static void test_own(void **state)
{
    (void)state;
    struct t t;
    setup(&t);
    struct kube_enqueue e = {.q = t.q, .on_delete = on_delete, .ud = &t};
    struct kube_informer_handlers h = {0};
    kube_enqueue_handlers(&h);
    cJSON *a = obj("{\"metadata\":{\"name\":\"r1\",\"namespace\":\"ns\"}}");
    cJSON *b = obj("{\"metadata\":{\"name\":\"r2\",\"namespace\":\"other\"}}");
    h.on_add(a, &e);
    h.on_update(a, b, &e); /* the new object counts */
    drain(&t);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.seen[0], "ns/r1");
    assert_string_equal(t.seen[1], "other/r2");
    kube_queue_add_rate_limited(t.q, "ns/r1");
    assert_int_equal(kube_queue_failures(t.q, "ns/r1"), 1);
    h.on_delete(a, &e);
    assert_int_equal(kube_queue_failures(t.q, "ns/r1"), 0);
    assert_string_equal(t.deleted, "ns/r1");
    assert_ptr_equal(t.deleted_obj, a);
    char key[64];
    assert_true(kube_enqueue_index(b, key, sizeof(key), &e));
    assert_string_equal(key, "other/r2");
    cJSON_Delete(a);
    cJSON_Delete(b);
    teardown(&t);
}

/* An owned object: every event queues its owner's key, by the label; no label, no key. */
static void test_owner_label(void **state)
{
    (void)state;
    struct t t;
    setup(&t);
    struct kube_enqueue e = {
        .q = t.q, .owner_label = "pgbench.dev/run", .on_delete = on_delete, .ud = &t};
    struct kube_informer_handlers h = {0};
    kube_enqueue_handlers(&h);
    cJSON *pod = obj("{\"metadata\":{\"name\":\"r1-run-0-abc\",\"namespace\":\"ns\","
                     "\"labels\":{\"pgbench.dev/run\":\"r1\"}}}");
    cJSON *stray = obj("{\"metadata\":{\"name\":\"x\",\"namespace\":\"ns\",\"labels\":{}}}");
    h.on_add(stray, &e);
    h.on_add(pod, &e);
    drain(&t);
    assert_int_equal(t.n, 1);
    assert_string_equal(t.seen[0], "ns/r1");
    h.on_delete(pod, &e); /* the owner is told, on_delete is for own objects */
    drain(&t);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.seen[1], "ns/r1");
    assert_string_equal(t.deleted, "");
    char key[64];
    assert_true(kube_enqueue_index(pod, key, sizeof(key), &e));
    assert_string_equal(key, "ns/r1");
    assert_false(kube_enqueue_index(stray, key, sizeof(key), &e));
    assert_false(kube_label_key(pod, "pgbench.dev/run", key, 5)); /* does not fit */
    assert_true(kube_label_key(pod, "pgbench.dev/run", key, 6));
    assert_string_equal(key, "ns/r1");
    cJSON_Delete(pod);
    cJSON_Delete(stray);
    teardown(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own),
        cmocka_unit_test(test_owner_label),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
