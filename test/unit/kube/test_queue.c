/* Work-queue semantics (controller-runtime / client-go workqueue). */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kube/kube.h"

struct t {
    uv_loop_t loop;
    struct kube_queue *q;
    char log[64][32];
    uint64_t at[64];
    int n;
    int in_flight, max_in_flight;
    char held[16][32]; /* keys whose done() is deferred */
    int nheld;
    bool hold;       /* defer done() */
    bool readd_once; /* process() re-adds the key once, synchronously */
    uint64_t start;
};

static void process(struct kube_queue *q, const char *key, void *ud)
{
    struct t *t = ud;
    for (int i = 0; i < t->nheld; i++)
        if (!strcmp(t->held[i], key))
            fail_msg("key %s processed twice at once", key);
    if (t->n < 64) {
        (void)snprintf(t->log[t->n], sizeof(t->log[0]), "%s", key);
        t->at[t->n] = uv_now(&t->loop) - t->start;
    }
    t->n++;
    t->in_flight++;
    if (t->in_flight > t->max_in_flight)
        t->max_in_flight = t->in_flight;
    if (t->hold) {
        assert_true(t->nheld < 16);
        (void)snprintf(t->held[t->nheld++], sizeof(t->held[0]), "%s", key);
        return;
    }
    if (t->readd_once) {
        t->readd_once = false;
        kube_queue_add(q, key); /* while processing: must come back after done */
    }
    t->in_flight--;
    kube_queue_done(q, key);
}

static void release_all(struct t *t)
{
    int n = t->nheld;
    t->nheld = 0;
    char keys[16][32];
    memcpy(keys, t->held, sizeof(keys));
    for (int i = 0; i < n; i++) {
        t->in_flight--;
        kube_queue_done(t->q, keys[i]);
    }
}

static struct t *setup_t(int workers, long base, long max)
{
    struct t *t = calloc(1, sizeof(*t));
    uv_loop_init(&t->loop);
    struct kube_queue_opts o = {workers, base, max};
    assert_int_equal(kube_queue_new(&t->loop, &o, process, t, &t->q), 0);
    uv_update_time(&t->loop);
    t->start = uv_now(&t->loop);
    return t;
}

static void teardown_t(struct t *t)
{
    kube_queue_free(t->q);
    uv_run(&t->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&t->loop), 0);
    free(t);
}

static void run_nowait(struct t *t)
{
    for (int i = 0; i < 5; i++)
        uv_run(&t->loop, UV_RUN_NOWAIT);
}

static void on_stop(uv_timer_t *h)
{
    uv_stop(h->loop);
}

static void run_for(struct t *t, uint64_t ms)
{
    uv_timer_t tm;
    uv_timer_init(&t->loop, &tm);
    uv_timer_start(&tm, on_stop, ms, 0);
    uv_run(&t->loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&tm, NULL);
    uv_run(&t->loop, UV_RUN_NOWAIT);
}

static void test_dedupe(void **state)
{
    (void)state;
    struct t *t = setup_t(1, 5, 1000);
    kube_queue_add(t->q, "ns/a");
    kube_queue_add(t->q, "ns/b");
    kube_queue_add(t->q, "ns/a");
    kube_queue_add(t->q, "ns/a");
    assert_int_equal(kube_queue_len(t->q), 2);
    assert_int_equal(t->n, 0); /* nothing runs on the caller's stack */
    run_nowait(t);
    assert_int_equal(t->n, 2);
    assert_string_equal(t->log[0], "ns/a");
    assert_string_equal(t->log[1], "ns/b");
    assert_int_equal(kube_queue_len(t->q), 0);
    teardown_t(t);
}

static void test_no_concurrent_same_key(void **state)
{
    (void)state;
    struct t *t = setup_t(4, 5, 1000);
    t->hold = true;
    kube_queue_add(t->q, "ns/a");
    run_nowait(t);
    assert_int_equal(t->n, 1);
    /* re-added while processing: not dispatched again until done */
    kube_queue_add(t->q, "ns/a");
    kube_queue_add(t->q, "ns/a");
    run_nowait(t);
    assert_int_equal(t->n, 1);
    assert_int_equal(kube_queue_len(t->q), 0);
    t->hold = false;
    release_all(t);
    assert_int_equal(kube_queue_len(t->q), 1);
    run_nowait(t);
    assert_int_equal(t->n, 2); /* exactly once more */
    run_nowait(t);
    assert_int_equal(t->n, 2);
    teardown_t(t);
}

static void test_readd_while_processing(void **state)
{
    (void)state;
    struct t *t = setup_t(2, 5, 1000);
    t->readd_once = true;
    kube_queue_add(t->q, "ns/x");
    run_nowait(t);
    assert_int_equal(t->n, 2);
    assert_string_equal(t->log[1], "ns/x");
    teardown_t(t);
}

static void test_workers_limit(void **state)
{
    (void)state;
    struct t *t = setup_t(2, 5, 1000);
    t->hold = true;
    const char *keys[] = {"a/1", "a/2", "a/3", "a/4", "a/5"};
    for (int i = 0; i < 5; i++)
        kube_queue_add(t->q, keys[i]);
    run_nowait(t);
    assert_int_equal(t->n, 2);
    assert_int_equal(kube_queue_len(t->q), 3);
    release_all(t);
    run_nowait(t);
    assert_int_equal(t->n, 4);
    t->hold = false;
    release_all(t);
    run_nowait(t);
    assert_int_equal(t->n, 5);
    assert_int_equal(t->max_in_flight, 2);
    teardown_t(t);
}

static void test_add_after(void **state)
{
    (void)state;
    struct t *t = setup_t(1, 5, 1000);
    kube_queue_add_after(t->q, "ns/late", 500);
    kube_queue_add_after(t->q, "ns/early", 40);
    kube_queue_add_after(t->q, "ns/early", 800); /* a later add does not delay an earlier one */
    kube_queue_add_after(t->q, "ns/late", 80);   /* an earlier add replaces a later one */
    run_nowait(t);
    assert_int_equal(t->n, 0);
    run_for(t, 1000);
    assert_int_equal(t->n, 2); /* each key once: the superseded timers did not fire again */
    assert_string_equal(t->log[0], "ns/early");
    assert_string_equal(t->log[1], "ns/late");
    /* never sooner than asked; how much later is the machine's business (no wall-clock upper
     * bounds in unit tests: they fail under ASan on a loaded machine, not on a bug) */
    assert_true(t->at[0] >= 40);
    assert_true(t->at[1] >= 80);
    /* add_after(0) is an add */
    kube_queue_add_after(t->q, "ns/now", 0);
    assert_int_equal(kube_queue_len(t->q), 1);
    run_nowait(t);
    assert_int_equal(t->n, 3);
    teardown_t(t);
}

static void test_backoff_and_forget(void **state)
{
    (void)state;
    struct t *t = setup_t(1, 10, 160);
    assert_int_equal(kube_queue_failures(t->q, "ns/f"), 0);
    uint64_t want[] = {10, 20, 40, 80, 160, 160};
    for (int i = 0; i < 6; i++) {
        uv_update_time(&t->loop);
        t->start = uv_now(&t->loop);
        int before = t->n;
        kube_queue_add_rate_limited(t->q, "ns/f");
        assert_int_equal(kube_queue_failures(t->q, "ns/f"), i + 1);
        run_for(t, want[i] + 250);
        assert_int_equal(t->n, before + 1);
        if (t->at[before] < want[i])
            fail_msg("failure %d: processed after %llu ms, want at least %llu", i + 1,
                     (unsigned long long)t->at[before], (unsigned long long)want[i]);
    }
    kube_queue_forget(t->q, "ns/f");
    assert_int_equal(kube_queue_failures(t->q, "ns/f"), 0);
    uv_update_time(&t->loop);
    t->start = uv_now(&t->loop);
    kube_queue_add_rate_limited(t->q, "ns/f");
    /* the backoff starts again at the first step (10 ms, not 160): the key has one failure */
    assert_int_equal(kube_queue_failures(t->q, "ns/f"), 1);
    run_for(t, 250);
    assert_int_equal(t->n, 7);
    assert_true(t->at[6] >= 10);
    /* backoff is per key */
    assert_int_equal(kube_queue_failures(t->q, "ns/other"), 0);
    teardown_t(t);
}

/* kube_queue_finish reads a reconcile's result: error -> backoff; else forget, requeue_ms -> again
 * after that; done in every case. */
static void test_finish(void **state)
{
    (void)state;
    struct t *t = setup_t(1, 20, 1000);
    t->hold = true;
    kube_queue_add(t->q, "ns/e");
    run_nowait(t);
    assert_int_equal(t->n, 1);
    t->nheld = 0;
    kube_queue_finish(t->q, "ns/e", true, 0);
    t->in_flight--;
    assert_int_equal(kube_queue_failures(t->q, "ns/e"), 1);
    run_nowait(t);
    assert_int_equal(t->n, 1); /* not before its backoff */
    run_for(t, 300);
    assert_int_equal(t->n, 2);
    /* success: the backoff is reset and, without requeue_ms, the key does not come back */
    t->nheld = 0;
    kube_queue_finish(t->q, "ns/e", false, 0);
    t->in_flight--;
    assert_int_equal(kube_queue_failures(t->q, "ns/e"), 0);
    run_for(t, 100);
    assert_int_equal(t->n, 2);
    assert_int_equal(kube_queue_len(t->q), 0);
    /* success with requeue_ms: back after it */
    kube_queue_add(t->q, "ns/r");
    run_nowait(t);
    assert_int_equal(t->n, 3);
    t->nheld = 0;
    uv_update_time(&t->loop);
    t->start = uv_now(&t->loop);
    kube_queue_finish(t->q, "ns/r", false, 60);
    t->in_flight--;
    run_nowait(t);
    assert_int_equal(t->n, 3);
    run_for(t, 400);
    assert_int_equal(t->n, 4);
    assert_string_equal(t->log[3], "ns/r");
    assert_true(t->at[3] >= 60);
    t->hold = false;
    release_all(t);
    teardown_t(t);
}

static void test_shutdown(void **state)
{
    (void)state;
    struct t *t = setup_t(1, 5, 1000);
    t->hold = true;
    kube_queue_add(t->q, "ns/a");
    kube_queue_add(t->q, "ns/b");
    run_nowait(t);
    assert_int_equal(t->n, 1);
    kube_queue_shutdown(t->q);
    kube_queue_add(t->q, "ns/c");
    kube_queue_add_after(t->q, "ns/d", 10);
    t->hold = false;
    release_all(t); /* done() still works */
    run_for(t, 30);
    assert_int_equal(t->n, 1);
    teardown_t(t);
}

static void test_many_keys(void **state)
{
    (void)state;
    struct t *t = setup_t(8, 5, 1000);
    char key[32];
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 20000; i++) {
            (void)snprintf(key, sizeof(key), "ns/k%d", i);
            kube_queue_add(t->q, key);
        }
    assert_int_equal(kube_queue_len(t->q), 20000);
    uv_run(&t->loop, UV_RUN_DEFAULT);
    assert_int_equal(t->n, 20000);
    assert_int_equal(kube_queue_len(t->q), 0);
    teardown_t(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dedupe),
        cmocka_unit_test(test_no_concurrent_same_key),
        cmocka_unit_test(test_readd_while_processing),
        cmocka_unit_test(test_workers_limit),
        cmocka_unit_test(test_add_after),
        cmocka_unit_test(test_backoff_and_forget),
        cmocka_unit_test(test_finish),
        cmocka_unit_test(test_shutdown),
        cmocka_unit_test(test_many_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
