/* pkg/kube against the simulated API server: requests, Status decoding, watches through faults.
 * Run by test/e2e/15-kube-client-sim.sh with KUBECONFIG pointing at a running sim. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kube/kube.h"
#include "pkg/util/log.h"

static uv_loop_t *loop;
static struct kube_client *client;
static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            (void)fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                  \
            (void)fprintf(stderr, __VA_ARGS__);                                                    \
            (void)fputc('\n', stderr);                                                             \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* ---- synchronous wrappers over the async API, for a readable test ------------------------ */

struct reply {
    bool done;
    struct kube_status status;
    cJSON *body;
    char *warning;
};

static void on_reply(struct kube_result *res, void *ud)
{
    struct reply *r = ud;
    r->status = res->status;
    r->body = res->body;
    res->body = NULL;
    r->warning = res->warning ? strdup(res->warning) : NULL;
    r->done = true;
}

static void tick_noop(uv_timer_t *t)
{
    (void)t;
}

static void run_until(bool *flag, double seconds)
{
    uint64_t deadline = uv_now(loop) + (uint64_t)(seconds * 1000);
    uv_timer_t tick;
    uv_timer_init(loop, &tick);
    while (!*flag && uv_now(loop) < deadline) {
        uv_timer_start(&tick, tick_noop, 50, 0);
        uv_run(loop, UV_RUN_ONCE);
        uv_update_time(loop);
    }
    uv_close((uv_handle_t *)&tick, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
}

static void reply_free(struct reply *r)
{
    cJSON_Delete(r->body);
    free(r->warning);
    memset(r, 0, sizeof(*r));
}

static void wait_reply(struct reply *r, int rc)
{
    CHECK(rc == 0, "request not queued: %d", rc);
    run_until(&r->done, 15);
    CHECK(r->done, "no answer within 15 s");
}

static cJSON *configmap(const char *name, const char *app)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "apiVersion", "v1");
    cJSON_AddStringToObject(o, "kind", "ConfigMap");
    cJSON *md = cJSON_AddObjectToObject(o, "metadata");
    cJSON_AddStringToObject(md, "name", name);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(md, "labels"), "app", app);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "data"), "k", "v");
    return o;
}

static const char *str_at(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsString(x) ? x->valuestring : "";
}

static struct kube_status fault(const char *json)
{
    struct reply r = {0};
    wait_reply(
        &r, kube_request(client, "POST", "/sim/faults", "application/json", json, 0, on_reply, &r));
    struct kube_status st = r.status;
    reply_free(&r);
    return st;
}

/* ---- requests ------------------------------------------------------------------------------ */

static void test_crud(void)
{
    const char *ns = "default";
    cJSON *cm = configmap("kc-one", "kube-sim");
    struct reply r = {0};

    wait_reply(&r, kube_create(client, &KUBE_CONFIGMAPS, ns, cm, NULL, on_reply, &r));
    CHECK(r.status.http == 201, "create: http %d %s", r.status.http, r.status.message);
    char rv[32];
    (void)snprintf(rv, sizeof(rv), "%s", str_at(r.body, "metadata", "resourceVersion"));
    CHECK(rv[0] != '\0', "create returned no resourceVersion");
    reply_free(&r);

    wait_reply(&r, kube_create(client, &KUBE_CONFIGMAPS, ns, cm, NULL, on_reply, &r));
    CHECK(r.status.http == 409 && strcmp(r.status.reason, "AlreadyExists") == 0,
          "second create: http %d reason %s", r.status.http, r.status.reason);
    reply_free(&r);

    wait_reply(&r, kube_get(client, &KUBE_CONFIGMAPS, ns, "kc-missing", NULL, on_reply, &r));
    CHECK(r.status.http == 404 && strcmp(r.status.reason, "NotFound") == 0,
          "get missing: http %d reason %s", r.status.http, r.status.reason);
    CHECK(strstr(r.status.message, "kc-missing") != NULL, "NotFound message: %s", r.status.message);
    reply_free(&r);

    cJSON *patch = cJSON_Parse("{\"data\":{\"k2\":\"v2\"}}");
    wait_reply(&r, kube_patch(client, &KUBE_CONFIGMAPS, ns, "kc-one", KUBE_PATCH_MERGE, patch, NULL,
                              on_reply, &r));
    CHECK(r.status.http == 200, "merge patch: http %d %s", r.status.http, r.status.message);
    CHECK(strcmp(str_at(r.body, "data", "k2"), "v2") == 0, "merge patch did not apply");
    CHECK(strcmp(str_at(r.body, "data", "k"), "v") == 0, "merge patch lost a key");
    reply_free(&r);
    cJSON_Delete(patch);

    /* An update carrying the old resourceVersion conflicts. */
    cJSON_AddStringToObject(cJSON_GetObjectItem(cm, "metadata"), "resourceVersion", rv);
    wait_reply(&r, kube_replace(client, &KUBE_CONFIGMAPS, ns, "kc-one", cm, NULL, on_reply, &r));
    CHECK(r.status.http == 409 && strcmp(r.status.reason, "Conflict") == 0,
          "stale update: http %d reason %s", r.status.http, r.status.reason);
    reply_free(&r);

    /* Strict field validation refuses an unknown field; Warn drops it with a warning. */
    cJSON *bad = configmap("kc-strict", "kube-sim");
    cJSON_AddStringToObject(bad, "spec", "nope");
    struct kube_opts strict = {.field_validation = "Strict"};
    wait_reply(&r, kube_create(client, &KUBE_CONFIGMAPS, ns, bad, &strict, on_reply, &r));
    CHECK(r.status.http == 400 && strstr(r.status.message, "strict decoding error") &&
              strstr(r.status.message, "unknown field \"spec\""),
          "strict: http %d %s", r.status.http, r.status.message);
    reply_free(&r);
    struct kube_opts warn = {.field_validation = "Warn"};
    wait_reply(&r, kube_create(client, &KUBE_CONFIGMAPS, ns, bad, &warn, on_reply, &r));
    CHECK(r.status.http == 201, "warn: http %d %s", r.status.http, r.status.message);
    CHECK(r.warning && strstr(r.warning, "unknown field"), "warn: no Warning header (%s)",
          r.warning ? r.warning : "none");
    CHECK(cJSON_GetObjectItem(r.body, "spec") == NULL, "warn: the unknown field was kept");
    reply_free(&r);
    cJSON_Delete(bad);

    /* Pagination: three objects with one label, pages of one. */
    cJSON *b = configmap("kc-two", "kube-sim");
    wait_reply(&r, kube_create(client, &KUBE_CONFIGMAPS, ns, b, NULL, on_reply, &r));
    reply_free(&r);
    cJSON_Delete(b);
    int seen = 0, pages = 0;
    char cont[512] = "";
    do {
        struct kube_opts o = {
            .label_selector = "app=kube-sim", .limit = 1, .continue_token = cont[0] ? cont : NULL};
        wait_reply(&r, kube_list(client, &KUBE_CONFIGMAPS, ns, &o, on_reply, &r));
        CHECK(r.status.http == 200, "list page: http %d %s", r.status.http, r.status.message);
        seen += cJSON_GetArraySize(cJSON_GetObjectItem(r.body, "items"));
        (void)snprintf(cont, sizeof(cont), "%s", str_at(r.body, "metadata", "continue"));
        pages++;
        reply_free(&r);
    } while (cont[0] && pages < 10);
    CHECK(seen == 3 && pages == 3, "pagination: %d objects in %d pages", seen, pages);

    struct kube_opts bg = {.propagation_policy = "Background"};
    wait_reply(&r, kube_delete(client, &KUBE_CONFIGMAPS, ns, "kc-two", &bg, on_reply, &r));
    CHECK(r.status.http == 200, "delete: http %d %s", r.status.http, r.status.message);
    reply_free(&r);
    cJSON_Delete(cm);
}

static double ms_since(uint64_t t0)
{
    return (double)(uv_hrtime() - t0) / 1e6;
}

static int fail_next_left(const struct reply *r)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(r->body, "failNext");
    return cJSON_IsNumber(n) ? n->valueint : -1;
}

/* A GET answered by the fault switch `n` times with `code` and Retry-After `ra` seconds: the
 * client waits before each retry and the caller sees only the final 200. The sim answers
 * /sim/faults without consuming faults, so polling its failNext every 20 ms tells when each
 * attempt reached the server. */
static void check_retry_after(int n, int code, int ra)
{
    char json[160];
    (void)snprintf(json, sizeof(json),
                   "{\"failNext\":%d,\"code\":%d,\"retryAfter\":%d,\"path\":\"kc-one\"}", n, code,
                   ra);
    CHECK(fault(json).http == 200, "fault switch");
    struct kube_client_stats before, after;
    kube_client_stats(client, &before);
    struct reply r = {0}, poll = {0};
    double seen_at[16];
    int seen = 0, left = n;
    uint64_t t0 = uv_hrtime();
    int rc = kube_get(client, &KUBE_CONFIGMAPS, "default", "kc-one", NULL, on_reply, &r);
    CHECK(rc == 0, "request not queued: %d", rc);
    uv_timer_t tick;
    uv_timer_init(loop, &tick);
    bool polling = false;
    while (!r.done && ms_since(t0) < 15000) {
        if (!polling) {
            polling =
                kube_request(client, "GET", "/sim/faults", NULL, NULL, 0, on_reply, &poll) == 0;
        } else if (poll.done) {
            int now_left = fail_next_left(&poll);
            while (now_left >= 0 && now_left < left && seen < 16) {
                seen_at[seen++] = ms_since(t0);
                left--;
            }
            reply_free(&poll);
            polling = false;
        }
        uv_timer_start(&tick, tick_noop, 20, 0);
        uv_run(loop, UV_RUN_ONCE);
    }
    while (polling && !poll.done)
        uv_run(loop, UV_RUN_ONCE);
    reply_free(&poll);
    uv_close((uv_handle_t *)&tick, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
    double total = ms_since(t0);
    CHECK(r.done && r.status.http == 200, "%d x %d with Retry-After %d: got http %d after %.0f ms",
          n, code, ra, r.status.http, total);
    CHECK(total >= n * ra * 1000.0, "%d waits of %d s took %.0f ms", n, ra, total);
    CHECK(total < n * ra * 1000.0 * 1.2 + 1000.0, "%d waits of %d s took %.0f ms", n, ra, total);
    CHECK(seen == n, "saw %d of the %d faulted attempts", seen, n);
    for (int i = 0; i < seen; i++)
        (void)fprintf(stderr, "  %d x %d, Retry-After %d: attempt %d reached the sim at %.0f ms\n",
                      n, code, ra, i + 1, seen_at[i]);
    for (int i = 1; i < seen; i++) /* polled every 20 ms (plus the poll's own round trip) */
        CHECK(seen_at[i] - seen_at[i - 1] >= ra * 1000.0 - 60.0,
              "attempt %d came %.0f ms after attempt %d (Retry-After %d s)", i + 1,
              seen_at[i] - seen_at[i - 1], i, ra);
    kube_client_stats(client, &after);
    CHECK(after.retries - before.retries == (uint64_t)n, "%llu retries, expected %d",
          (unsigned long long)(after.retries - before.retries), n);
    reply_free(&r);
}

static void test_error_faults(void)
{
    struct reply r = {0};
    struct kube_status st = fault("{\"failNext\":1,\"code\":500}");
    CHECK(st.http == 200, "fault switch: http %d", st.http);
    wait_reply(&r, kube_get(client, &KUBE_CONFIGMAPS, "default", "kc-one", NULL, on_reply, &r));
    CHECK(r.status.http == 500, "injected 500 (no Retry-After: not retried): got %d",
          r.status.http);
    reply_free(&r);

    /* 429 TooManyRequests and 503 with Retry-After: retried, each no sooner than asked */
    check_retry_after(3, 429, 1);
    check_retry_after(1, 503, 1);

    /* without retries the caller gets the 429 as kube-apiserver sends it */
    kube_client_set_max_retries(client, 0);
    fault("{\"failNext\":1,\"code\":429,\"retryAfter\":2}");
    wait_reply(&r, kube_get(client, &KUBE_CONFIGMAPS, "default", "kc-one", NULL, on_reply, &r));
    CHECK(r.status.http == 429 && r.status.retry_after == 2 &&
              strcmp(r.status.reason, "TooManyRequests") == 0,
          "injected 429: %d %s retry %.1f", r.status.http, r.status.reason, r.status.retry_after);
    reply_free(&r);
    kube_client_set_max_retries(client, 10);

    /* asking again at once (as a requeue would) still waits out the 2 s */
    uint64_t t0 = uv_hrtime();
    wait_reply(&r, kube_get(client, &KUBE_CONFIGMAPS, "default", "kc-one", NULL, on_reply, &r));
    CHECK(r.status.http == 200, "after the faults: %d", r.status.http);
    CHECK(ms_since(t0) >= 1900.0,
          "the caller's own retry went out after %.0f ms, within the "
          "server's Retry-After of 2 s",
          ms_since(t0));
    reply_free(&r);
}

/* ---- informer through dropped watches and compaction ---------------------------------------- */

struct seen {
    int adds, updates, deletes, synced;
};

static void on_add(const cJSON *o, void *ud)
{
    (void)o, ((struct seen *)ud)->adds++;
}
static void on_update(const cJSON *a, const cJSON *b, void *ud)
{
    (void)a, (void)b, ((struct seen *)ud)->updates++;
}
static void on_delete(const cJSON *o, void *ud)
{
    (void)o, ((struct seen *)ud)->deletes++;
}
static void on_synced(void *ud)
{
    ((struct seen *)ud)->synced++;
}

static void create_cm(const char *name)
{
    struct reply r = {0};
    cJSON *o = configmap(name, "watched");
    wait_reply(&r, kube_create(client, &KUBE_CONFIGMAPS, "default", o, NULL, on_reply, &r));
    CHECK(r.status.http == 201, "create %s: %d %s", name, r.status.http, r.status.message);
    reply_free(&r);
    cJSON_Delete(o);
}

static bool in_cache(const struct kube_informer *inf, const char *name)
{
    cJSON *o = kube_informer_copy(inf, "default", name);
    bool found = o != NULL;
    cJSON_Delete(o);
    return found;
}

static bool cached(struct kube_informer *inf, const char *name, double seconds)
{
    uint64_t deadline = uv_now(loop) + (uint64_t)(seconds * 1000);
    while (!in_cache(inf, name) && uv_now(loop) < deadline) {
        bool never = false;
        run_until(&never, 0.1);
    }
    return in_cache(inf, name);
}

static void test_informer(void)
{
    struct seen s = {0};
    struct kube_informer_handlers h = {on_add, on_update, on_delete, on_synced, NULL, NULL, NULL};
    struct kube_informer *inf = NULL;
    CHECK(kube_informer_new(client, &KUBE_CONFIGMAPS, "default", "app=watched", &h, &s, &inf) == 0,
          "informer_new");
    create_cm("w-before");
    CHECK(kube_informer_start(inf) == 0, "informer_start");
    CHECK(cached(inf, "w-before", 10), "listed object not cached");
    CHECK(kube_informer_synced(inf), "not synced after the list");

    create_cm("w-during");
    CHECK(cached(inf, "w-during", 10), "watched ADDED not cached");

    struct kube_client_stats before, after;
    kube_client_stats(client, &before);
    fault("{\"dropWatches\":true}");
    create_cm("w-after-drop");
    CHECK(cached(inf, "w-after-drop", 15), "object created after a dropped watch not seen");

    /* Compaction: the informer's resourceVersion becomes too old, the server answers 410 and
     * the informer relists without losing the objects created meanwhile. */
    fault("{\"dropWatches\":true}");
    create_cm("w-before-compact");
    fault("{\"compact\":true}");
    create_cm("w-after-compact");
    CHECK(cached(inf, "w-before-compact", 20), "object created before compaction lost");
    CHECK(cached(inf, "w-after-compact", 20), "object created after compaction lost");

    struct reply r = {0};
    int deletes = s.deletes; /* the event may arrive before the reply */
    wait_reply(&r,
               kube_delete(client, &KUBE_CONFIGMAPS, "default", "w-during", NULL, on_reply, &r));
    reply_free(&r);
    uint64_t deadline = uv_now(loop) + 10000;
    while (s.deletes == deletes && uv_now(loop) < deadline) {
        bool never = false;
        run_until(&never, 0.1);
    }
    CHECK(s.deletes == deletes + 1, "delete not delivered");
    CHECK(!in_cache(inf, "w-during"), "deleted object still cached");
    CHECK(kube_informer_count(inf) == 4, "cache holds %zu objects, want 4",
          kube_informer_count(inf));
    kube_client_stats(client, &after);
    CHECK(after.watch_restarts > before.watch_restarts, "watch restarts not counted");
    CHECK(s.synced >= 1, "on_synced never called");
    kube_informer_free(inf);
}

int main(void)
{
    char err[512];
    struct kube_config *cfg = NULL;
    log_set_format(LOG_FORMAT_TEXT);
    if (!getenv("KUBECONFIG")) {
        (void)fprintf(stderr, "KUBECONFIG must point at the simulated cluster\n");
        return 2;
    }
    if (kube_config_from_file(NULL, NULL, &cfg, err, sizeof(err)) != 0) {
        (void)fprintf(stderr, "kubeconfig: %s\n", err);
        return 2;
    }
    loop = uv_default_loop();
    if (kube_client_new(loop, cfg, &client) != 0) {
        (void)fprintf(stderr, "client_new failed\n");
        return 2;
    }
    test_crud();
    test_error_faults();
    test_informer();
    kube_client_free(client);
    uv_run(loop, UV_RUN_DEFAULT);
    kube_config_free(cfg);
    uv_loop_close(loop);
    printf("kube_sim: %d failures\n", failures);
    return failures ? 1 : 0;
}
