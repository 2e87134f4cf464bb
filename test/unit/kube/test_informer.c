/* The list+watch engine and the informer against a scripted API server on the same loop:
 * paginated list, watch from the list's resourceVersion, a dropped connection, bookmarks, 410
 * as an ERROR event and as the HTTP status, stale events, clean stream ends, backoff. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kube/kube.h"
#include "test/unit/kube/fake_server.h"

struct ctx {
    uv_loop_t loop;
    struct fs_api api;
    struct kube_client *c;
    char reqs[32][512]; /* request paths in order */
    uint64_t req_at[32];
    int nreq;
    char log[64][96]; /* informer callbacks */
    int nlog;
    int scenario;
    bool stop;
    struct kube_informer *inf;
};

static char *pod_uid(const char *name, int rv, int gen)
{
    static char buf[4][512];
    static int i;
    char *b = buf[i++ % 4];
    (void)snprintf(b, 512,
                   "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"%s\","
                   "\"namespace\":\"bench\",\"uid\":\"%s-%d\",\"resourceVersion\":\"%d\","
                   "\"labels\":{\"app\":\"pg\"},"
                   "\"managedFields\":[{\"manager\":\"kubectl\"}]},\"spec\":{\"big\":\"x\"}}",
                   name, name, gen, rv);
    return b;
}

static char *pod(const char *name, int rv)
{
    return pod_uid(name, rv, 1);
}

static void event(struct fs_conn *c, const char *type, const char *obj, size_t split)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "{\"type\":\"%s\",\"object\":%s}\n", type, obj);
    /* write a line in odd pieces so events straddle chunks */
    size_t at = split && split < (size_t)n ? split : (size_t)n;
    fs_stream_chunk(c, line, at);
    fs_stream_chunk(c, line + at, (size_t)n - at);
}

static void list_page(struct fs_conn *c, const char *rv, const char *cont, const char *a,
                      const char *b)
{
    char body[2048];
    (void)snprintf(
        body, sizeof(body),
        "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"%s\""
        "%s%s%s},\"items\":[%s%s%s]}",
        rv, cont ? ",\"continue\":\"" : "", cont ? cont : "", cont ? "\"" : "", a ? a : "",
        a && b ? "," : "", b ? b : "");
    fs_json(c, 200, body);
}

/* The main scenario, one step per request. */
static void script_main(struct ctx *x, struct fs_conn *c, int n)
{
    switch (n) {
    case 0:
        list_page(c, "20", "c1", pod("a", 10), NULL);
        break;
    case 1:
        list_page(c, "20", NULL, pod("b", 11), NULL);
        break;
    case 2:
        fs_stream_begin(c, 200);
        event(c, "ADDED", pod("c", 21), 7);
        event(c, "MODIFIED", pod("a", 22), 100);
        event(c, "BOOKMARK",
              "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"30\"}}",
              0);
        fs_stream_chunk(c, "{\"type\":\"MODIF", 15); /* half an event, then the line drops */
        fs_drop(c);
        break;
    case 3:
        fs_stream_begin(c, 200);
        event(c, "ERROR",
              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":"
              "\"too old resource version: 30 (35)\",\"reason\":\"Expired\",\"code\":410}",
              40);
        event(c, "MODIFIED", pod("a", 99), 0); /* after the ERROR: must be ignored */
        break;
    case 4:
        list_page(c, "40", NULL, pod("a", 22), pod("c", 21));
        break;
    case 5:
        fs_status(c, 410, "Expired", "too old resource version: 40 (45)");
        break;
    case 6: /* c was deleted and re-created meanwhile */
        list_page(c, "50", NULL, pod("a", 45), pod_uid("c", 46, 2));
        break;
    case 7:
        fs_stream_begin(c, 200);
        event(c, "MODIFIED", pod("a", 44), 3); /* stale: older than the cached 45 */
        event(c, "MODIFIED", pod_uid("c", 51, 2), 0);
        event(c, "DELETED", pod_uid("c", 52, 2), 0);
        event(c, "ADDED", pod("d", 53), 0);
        fs_stream_end(c); /* timeoutSeconds elapsed */
        break;
    default:
        fs_stream_begin(c, 200); /* stays open */
        x->stop = true;
        break;
    }
}

/* Watches fail with 500 three times; the reconnects back off. */
static void script_backoff(struct ctx *x, struct fs_conn *c, int n)
{
    if (n == 0) {
        list_page(c, "5", NULL, pod("a", 5), NULL);
    } else if (n <= 3) {
        fs_status(c, 500, "InternalError", "etcd unavailable");
    } else {
        fs_stream_begin(c, 200);
        x->stop = true;
    }
}

/* The continue token expires between pages: the list starts over. */
static void script_expired_continue(struct ctx *x, struct fs_conn *c, int n)
{
    if (n == 0)
        list_page(c, "5", "c1", pod("a", 5), NULL);
    else if (n == 1)
        fs_status(c, 410, "Expired", "The provided continue parameter is too old");
    else if (n == 2)
        list_page(c, "9", "c2", pod("a", 6), NULL);
    else if (n == 3)
        list_page(c, "9", NULL, pod("b", 7), NULL);
    else {
        fs_stream_begin(c, 200);
        x->stop = true;
    }
}

/* A 429 with Retry-After on the list, then a watch stream with a malformed line (skipped), an
 * ERROR 500 (reconnect from the same RV), and a line over the cap (reconnect). */
static void script_stream_errors(struct ctx *x, struct fs_conn *c, int n)
{
    char big[2100];
    switch (n) {
    case 0:
        fs_respond(c, 429, "application/json", "Retry-After: 1\r\n",
                   "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                   "\"reason\":\"TooManyRequests\",\"code\":429}");
        break;
    case 1:
        list_page(c, "5", NULL, pod("a", 5), NULL);
        break;
    case 2:
        fs_stream_begin(c, 200);
        fs_stream_chunk(c, "this is not json\n", 17);
        event(c, "ADDED", pod("b", 6), 0);
        event(c, "ERROR",
              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
              "\"reason\":\"InternalError\",\"code\":500}",
              0);
        break;
    case 3:
        fs_stream_begin(c, 200);
        memset(big, 'x', sizeof(big));
        memcpy(big, "{\"type\":\"ADDED\",\"object\":{\"pad\":\"", 32);
        fs_stream_chunk(c, big, sizeof(big));
        break;
    default:
        fs_stream_begin(c, 200);
        event(c, "ADDED", pod("c", 7), 0);
        x->stop = true;
        break;
    }
}

static const char *rv_of(const cJSON *o);

static bool cached(const struct kube_informer *inf, const char *ns, const char *name)
{
    cJSON *o = kube_informer_copy(inf, ns, name);
    bool found = o != NULL;
    cJSON_Delete(o);
    return found;
}

static int assume(struct ctx *x, const char *obj, const char *prev_rv)
{
    return kube_informer_assume(x->inf, cJSON_Parse(obj), prev_rv);
}

/* The controller's own write is put into the cache before its watch event arrives. */
static void script_assume(struct ctx *x, struct fs_conn *c, int n)
{
    if (n == 0) { /* a listed twice: the later one is cached and added, once */
        list_page(c, "5", NULL, pod("a", 4), pod("a", 5));
        return;
    }
    if (n == 2) { /* the watch again, after the first stream ended */
        fs_stream_begin(c, 200);
        x->stop = true;
        return;
    }
    /* the list is cached; our write answered a at 7 */
    assert_int_equal(assume(x, pod("a", 7), "6"), -ESTALE);  /* precondition not what is cached */
    assert_int_equal(assume(x, pod("zz", 7), "5"), -ESTALE); /* never cached */
    assert_int_equal(assume(x, pod("a", 5), "5"), -ESTALE);  /* not a newer object */
    assert_int_equal(assume(x, pod("a", 7), "5"), 0);
    cJSON *a = kube_informer_copy(x->inf, "bench", "a");
    assert_string_equal(rv_of(a), "7");
    assert_null(cJSON_GetObjectItem(a, "spec")); /* transformed like listed objects */
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(a, "metadata"), "managedFields"));
    cJSON_Delete(a);
    assert_int_equal(assume(x, pod("a", 8), "5"), -ESTALE); /* the cache has moved on */
    fs_stream_begin(c, 200);
    event(c, "MODIFIED", pod("a", 7), 0); /* our own write: already cached, dropped */
    event(c, "MODIFIED", pod("a", 9), 0);
    fs_stream_end(c);
}

/* A pod whose "app" label (none when app is NULL) is its index value. */
static char *pod_app(const char *name, int rv, const char *app)
{
    static char buf[4][512];
    static int i;
    char *b = buf[i++ % 4];
    char labels[64] = "";
    if (app)
        (void)snprintf(labels, sizeof(labels), ",\"labels\":{\"app\":\"%s\"}", app);
    (void)snprintf(b, 512,
                   "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"%s\","
                   "\"namespace\":\"bench\",\"uid\":\"%s\",\"resourceVersion\":\"%d\"%s}}",
                   name, name, rv, labels);
    return b;
}

static bool index_app(const cJSON *o, char *buf, size_t n, void *ud)
{
    (void)ud;
    const cJSON *app = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metadata"), "labels"), "app");
    if (!cJSON_IsString(app))
        return false;
    (void)snprintf(buf, n, "%s", app->valuestring);
    return true;
}

static void add_name(const cJSON *o, void *ud)
{
    char *names = ud;
    const char *name = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metadata"), "name")->valuestring;
    assert_int_equal(strlen(name), 1);
    names[strlen(names)] = name[0];
}

static int cmp_char(const void *a, const void *b)
{
    return *(const char *)a - *(const char *)b;
}

/* The one-letter names of the pods under an index value, sorted: "ac". */
static const char *indexed(const struct kube_informer *inf, const char *value)
{
    static char names[32];
    memset(names, 0, sizeof(names));
    kube_informer_foreach_indexed(inf, value, add_name, names);
    qsort(names, strlen(names), 1, cmp_char);
    return names;
}

/* The index follows the list, an assumed write, events and a relist after a 410. */
static void script_index(struct ctx *x, struct fs_conn *c, int n)
{
    switch (n) {
    case 0:
        list_page(c, "5", NULL, pod_app("a", 4, "x"), pod_app("b", 5, "y"));
        break;
    case 1:
        assert_string_equal(indexed(x->inf, "x"), "a");
        assert_string_equal(indexed(x->inf, "y"), "b");
        assert_string_equal(indexed(x->inf, "z"), "");
        assert_int_equal(kube_informer_assume(x->inf, cJSON_Parse(pod_app("a", 6, "y")), "4"), 0);
        assert_string_equal(indexed(x->inf, "x"), "");
        assert_string_equal(indexed(x->inf, "y"), "ab");
        fs_stream_begin(c, 200);
        event(c, "ADDED", pod_app("c", 7, "x"), 0);
        event(c, "MODIFIED", pod_app("b", 8, NULL), 0); /* leaves the index */
        event(c, "DELETED", pod_app("a", 9, "y"), 0);
        fs_stream_end(c);
        break;
    case 2:
        assert_string_equal(indexed(x->inf, "x"), "c");
        assert_string_equal(indexed(x->inf, "y"), "");
        fs_status(c, 410, "Expired", "too old resource version: 9 (12)");
        break;
    case 3: /* while we were away: c moved to y, e was created in x */
        list_page(c, "12", NULL, pod_app("c", 10, "y"), pod_app("e", 11, "x"));
        break;
    default:
        assert_string_equal(indexed(x->inf, "x"), "e");
        assert_string_equal(indexed(x->inf, "y"), "c");
        fs_stream_begin(c, 200);
        x->stop = true;
        break;
    }
}

/* Pods labelled app=keep pass the filter; the selectors go with the list and the watch. */
static bool filter_keep(const cJSON *o, void *ud)
{
    (void)ud;
    const cJSON *app = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metadata"), "labels"), "app");
    return cJSON_IsString(app) && strcmp(app->valuestring, "keep") == 0;
}

static void script_filter(struct ctx *x, struct fs_conn *c, int n)
{
    switch (n) {
    case 0:
        list_page(c, "5", NULL, pod_app("a", 4, "keep"), pod_app("b", 5, "drop"));
        break;
    case 1:
        assert_int_equal(kube_informer_count(x->inf), 1);
        fs_stream_begin(c, 200);
        event(c, "ADDED", pod_app("c", 6, "drop"), 0);    /* never cached */
        event(c, "ADDED", pod_app("d", 7, "keep"), 0);    /* cached */
        event(c, "MODIFIED", pod_app("a", 8, "drop"), 0); /* leaves: a delete */
        event(c, "MODIFIED", pod_app("b", 9, "keep"), 0); /* enters: an add */
        event(c, "DELETED", pod_app("c", 10, "drop"), 0); /* not cached: nothing */
        fs_stream_end(c);
        break;
    default:
        fs_stream_begin(c, 200);
        x->stop = true;
        break;
    }
}

/* 80 pods in 40 pages of 2 (pods p00..p79, resourceVersion 100 + i), then a watch that modifies
 * p07 and deletes p31: past the 64 objects at which the cache takes its dictionary again. */
#define MANY 80
static void script_many_pages(struct ctx *x, struct fs_conn *c, int n)
{
    char a[8], b[8], cont[16];
    if (n < MANY / 2) {
        (void)snprintf(a, sizeof(a), "p%02d", 2 * n);
        (void)snprintf(b, sizeof(b), "p%02d", 2 * n + 1);
        (void)snprintf(cont, sizeof(cont), "t%d", n + 1);
        char pa[512];
        (void)snprintf(pa, sizeof(pa), "%s", pod(a, 100 + 2 * n));
        list_page(c, "300", n + 1 < MANY / 2 ? cont : NULL, pa, pod(b, 101 + 2 * n));
    } else if (n == MANY / 2) {
        fs_stream_begin(c, 200);
        event(c, "MODIFIED", pod("p07", 301), 0);
        event(c, "DELETED", pod("p31", 302), 0);
        fs_stream_end(c);
    } else {
        fs_stream_begin(c, 200);
        x->stop = true;
    }
}

static void handler(struct fake_server *s, struct fs_conn *c, const struct fs_req *r, void *ud)
{
    (void)s;
    struct ctx *x = ud;
    int n = x->nreq;
    if (n < 32) {
        (void)snprintf(x->reqs[n], sizeof(x->reqs[0]), "%.500s", r->path);
        x->req_at[n] = uv_now(&x->loop);
    }
    x->nreq++;
    if (x->scenario == 0)
        script_main(x, c, n);
    else if (x->scenario == 1)
        script_backoff(x, c, n);
    else if (x->scenario == 3)
        script_stream_errors(x, c, n);
    else if (x->scenario == 4)
        script_assume(x, c, n);
    else if (x->scenario == 5)
        script_index(x, c, n);
    else if (x->scenario == 6)
        script_filter(x, c, n);
    else if (x->scenario == 7)
        script_many_pages(x, c, n);
    else
        script_expired_continue(x, c, n);
}

static void logf_(struct ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(struct ctx *x, const char *fmt, ...)
{
    if (x->nlog >= 64)
        return;
    va_list ap;
    va_start(ap, fmt);
    /* analyzer false positive: va_start is right above */
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    (void)vsnprintf(x->log[x->nlog++], sizeof(x->log[0]), fmt, ap);
    va_end(ap);
}

static const char *name_of(const cJSON *o)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metadata"), "name")->valuestring;
}

static const char *rv_of(const cJSON *o)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metadata"), "resourceVersion")->valuestring;
}

static void on_add(const cJSON *o, void *ud)
{
    logf_(ud, "add %s %s", name_of(o), rv_of(o));
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metadata"), "managedFields"));
    assert_null(cJSON_GetObjectItem(o, "spec")); /* the transform ran */
}

static void on_add_plain(const cJSON *o, void *ud)
{
    logf_(ud, "add %s %s", name_of(o), rv_of(o));
}

static void on_update(const cJSON *a, const cJSON *b, void *ud)
{
    logf_(ud, "update %s %s->%s", name_of(b), rv_of(a), rv_of(b));
}

static void on_delete(const cJSON *o, void *ud)
{
    logf_(ud, "delete %s %s", name_of(o), rv_of(o));
}
static void on_synced(void *ud)
{
    logf_(ud, "synced");
}
static void transform(cJSON *o, void *ud)
{
    (void)ud;
    cJSON_DeleteItemFromObject(o, "spec");
}

static struct ctx *ctx_new(int scenario)
{
    struct ctx *x = calloc(1, sizeof(*x));
    x->scenario = scenario;
    fs_api_start(&x->api, &x->loop, NULL, handler, x, &x->c);
    return x;
}

static void run_until_stop(struct ctx *x, int max_ms)
{
    uint64_t start = uv_now(&x->loop);
    while (!x->stop && uv_now(&x->loop) - start < (uint64_t)max_ms)
        uv_run(&x->loop, UV_RUN_ONCE);
    for (int i = 0; i < 5; i++)
        uv_run(&x->loop, UV_RUN_NOWAIT);
    assert_true(x->stop);
}

static void ctx_free(struct ctx *x)
{
    fs_api_stop(&x->api, x->c);
    free(x);
}

static const char *query_param(const char *path, const char *key, char *out, size_t n)
{
    char k[64];
    (void)snprintf(k, sizeof(k), "%s=", key);
    const char *p = strstr(path, k);
    if (!p)
        return NULL;
    p += strlen(k);
    size_t l = strcspn(p, "&");
    (void)snprintf(out, n, "%.*s", (int)l, p);
    return out;
}

static void test_informer_through_410s(void **state)
{
    (void)state;
    struct ctx *x = ctx_new(0);
    struct kube_informer_handlers h = {on_add,    on_update, on_delete, on_synced,
                                       transform, NULL,      NULL};
    struct kube_informer *inf;
    assert_int_equal(kube_informer_new(x->c, &KUBE_PODS, "bench", "app=pg", &h, x, &inf), 0);
    assert_false(kube_informer_synced(inf));
    assert_int_equal(kube_informer_start(inf), 0);
    run_until_stop(x, 10000);

    const char *want[] = {
        "add a 10",        "add b 11",        "synced",   /* paginated list */
        "add c 21",        "update a 10->22",             /* watch; then dropped */
        "delete b 11",     "synced",                      /* ERROR 410 -> relist */
        "update a 22->45", "delete c 21",     "add c 46", /* HTTP 410 -> relist; c re-created */
        "synced",          "update c 46->51",             /* stale a@44 dropped */
        "delete c 52",     "add d 53",
    };
    size_t nwant = sizeof(want) / sizeof(want[0]);
    for (int i = 0; i < x->nlog; i++)
        print_message("  %s\n", x->log[i]);
    assert_int_equal(x->nlog, (int)nwant);
    for (size_t i = 0; i < nwant; i++)
        assert_string_equal(x->log[i], want[i]);

    /* the requests: pages, then watches from the right resourceVersions */
    char v[64];
    assert_int_equal(x->nreq, 9);
    assert_string_equal(x->reqs[0],
                        "/api/v1/namespaces/bench/pods?labelSelector=app%3Dpg&limit=500");
    assert_string_equal(
        x->reqs[1], "/api/v1/namespaces/bench/pods?labelSelector=app%3Dpg&limit=500&continue=c1");
    const int watches[] = {2, 3, 5, 7, 8};
    const char *rvs[] = {"20", "30", "40", "50", "53"};
    for (int i = 0; i < 5; i++) {
        const char *p = x->reqs[watches[i]];
        assert_non_null(strstr(p, "/api/v1/namespaces/bench/pods?labelSelector=app%3Dpg&watch=1"));
        assert_string_equal(query_param(p, "resourceVersion", v, sizeof(v)), rvs[i]);
        assert_string_equal(query_param(p, "allowWatchBookmarks", v, sizeof(v)), "true");
        long t = atol(query_param(p, "timeoutSeconds", v, sizeof(v)));
        assert_true(t >= 300 && t <= 600);
    }
    assert_null(strstr(x->reqs[4], "watch=1"));
    assert_null(strstr(x->reqs[6], "watch=1"));
    /* the drop was followed by a jittered backoff of 100..200 ms */
    uint64_t gap = x->req_at[3] - x->req_at[2];
    assert_true(gap >= 90 && gap <= 700);

    assert_true(kube_informer_synced(inf));
    assert_int_equal(kube_informer_count(inf), 2);
    cJSON *a = kube_informer_copy(inf, "bench", "a");
    assert_non_null(a);
    assert_string_equal(rv_of(a), "45");
    assert_null(cJSON_GetObjectItem(a, "spec")); /* cached as transformed */
    cJSON_Delete(a);
    assert_true(cached(inf, "bench", "d"));
    assert_false(cached(inf, "bench", "c"));
    assert_false(cached(inf, "other", "a"));

    struct kube_client_stats st;
    kube_client_stats(x->c, &st);
    assert_int_equal(st.relists, 2);
    assert_int_equal(st.watch_restarts, 2);
    kube_informer_free(inf);
    ctx_free(x);
}

static void count_list(cJSON *items, const char *rv, void *ud)
{
    struct ctx *x = ud;
    logf_(x, "list %d rv=%s", cJSON_GetArraySize(items), rv);
    cJSON_Delete(items);
}

static void count_event(enum kube_event_type t, cJSON *obj, void *ud)
{
    const cJSON *md = cJSON_GetObjectItem(obj, "metadata");
    const cJSON *name = cJSON_GetObjectItem(md, "name");
    logf_(ud, "event %d %s", (int)t, cJSON_IsString(name) ? name->valuestring : "?");
    cJSON_Delete(obj);
}

static void test_watch_backoff(void **state)
{
    (void)state;
    struct ctx *x = ctx_new(1);
    struct kube_watch_opts o = {.backoff_min_ms = 40, .backoff_max_ms = 1000, .timeout_seconds = 5};
    struct kube_watch_handlers h = {count_list, count_event};
    struct kube_watch *w;
    assert_int_equal(kube_watch_new(x->c, &KUBE_PODS, NULL, &o, &h, x, &w), 0);
    assert_string_equal(kube_watch_resource_version(w), "");
    assert_int_equal(kube_watch_start(w), 0);
    run_until_stop(x, 10000);
    assert_int_equal(x->nreq, 5);
    assert_string_equal(x->reqs[0], "/api/v1/pods?limit=500");
    /* attempts n=0,1,2 wait in [d/2, d] for d = 40, 80, 160 */
    for (int i = 0; i < 3; i++) {
        uint64_t gap = x->req_at[i + 2] - x->req_at[i + 1];
        uint64_t d = 40u << i;
        if (gap + 2 < d / 2 || gap > d + 200)
            fail_msg("retry %d after %llu ms, want %llu..%llu", i, (unsigned long long)gap,
                     (unsigned long long)d / 2, (unsigned long long)d);
        char v[64];
        assert_string_equal(query_param(x->reqs[i + 2], "resourceVersion", v, sizeof(v)), "5");
        long t = atol(query_param(x->reqs[i + 2], "timeoutSeconds", v, sizeof(v)));
        assert_true(t >= 5 && t <= 10);
    }
    assert_string_equal(kube_watch_resource_version(w), "5");
    assert_int_equal(x->nlog, 1);
    assert_string_equal(x->log[0], "list 1 rv=5");
    kube_watch_free(w);
    ctx_free(x);
}

static void test_expired_continue(void **state)
{
    (void)state;
    struct ctx *x = ctx_new(2);
    struct kube_watch_handlers h = {count_list, count_event};
    struct kube_watch *w;
    assert_int_equal(kube_watch_new(x->c, &KUBE_JOBS, "ns1", NULL, &h, x, &w), 0);
    assert_int_equal(kube_watch_start(w), 0);
    run_until_stop(x, 5000);
    assert_int_equal(x->nreq, 5);
    assert_string_equal(x->reqs[2], "/apis/batch/v1/namespaces/ns1/jobs?limit=500");
    assert_string_equal(x->reqs[3], "/apis/batch/v1/namespaces/ns1/jobs?limit=500&continue=c2");
    /* only the complete second list is delivered, with both pages */
    assert_int_equal(x->nlog, 1);
    assert_string_equal(x->log[0], "list 2 rv=9");
    kube_watch_free(w);
    ctx_free(x);
}

static void test_stream_errors(void **state)
{
    (void)state;
    struct ctx *x = ctx_new(3);
    struct kube_watch_opts o = {.backoff_min_ms = 20, .max_line = 1024};
    struct kube_watch_handlers h = {count_list, count_event};
    struct kube_watch *w;
    assert_int_equal(kube_watch_new(x->c, &KUBE_PODS, "bench", &o, &h, x, &w), 0);
    assert_int_equal(kube_watch_start(w), 0);
    run_until_stop(x, 10000);
    assert_int_equal(x->nreq, 5);
    /* Retry-After: 1 on the list outweighs the 20 ms backoff */
    assert_true(x->req_at[1] - x->req_at[0] >= 990);
    char v[64];
    assert_string_equal(query_param(x->reqs[2], "resourceVersion", v, sizeof(v)), "5");
    assert_string_equal(query_param(x->reqs[3], "resourceVersion", v, sizeof(v)), "6");
    assert_string_equal(query_param(x->reqs[4], "resourceVersion", v, sizeof(v)), "6");
    const char *want[] = {"list 1 rv=5", "event 0 b", "event 0 c"};
    assert_int_equal(x->nlog, 3);
    for (int i = 0; i < 3; i++)
        assert_string_equal(x->log[i], want[i]);
    struct kube_client_stats st;
    kube_client_stats(x->c, &st);
    assert_int_equal(st.relists, 0);
    assert_int_equal(st.watch_restarts, 2);
    kube_watch_free(w);
    ctx_free(x);
}

static void test_assume(void **state)
{
    (void)state;
    struct ctx *x = ctx_new(4);
    struct kube_informer_handlers h = {on_add,    on_update, on_delete, on_synced,
                                       transform, NULL,      NULL};
    assert_int_equal(kube_informer_new(x->c, &KUBE_PODS, "bench", NULL, &h, x, &x->inf), 0);
    assert_int_equal(kube_informer_start(x->inf), 0);
    run_until_stop(x, 5000);
    const char *want[] = {"add a 5", "synced", "update a 7->9"};
    assert_int_equal(x->nlog, 3);
    for (int i = 0; i < 3; i++)
        assert_string_equal(x->log[i], want[i]);
    kube_informer_free(x->inf);
    ctx_free(x);
}

static void test_index(void **state)
{
    (void)state;
    struct ctx *x = ctx_new(5);
    struct kube_informer_handlers h = {.index = index_app};
    assert_int_equal(kube_informer_new(x->c, &KUBE_PODS, "bench", NULL, &h, x, &x->inf), 0);
    assert_int_equal(kube_informer_start(x->inf), 0);
    run_until_stop(x, 5000);
    assert_int_equal(x->nreq, 5);
    assert_string_equal(indexed(x->inf, ""), ""); /* not an index value */
    kube_informer_free(x->inf);
    ctx_free(x);
}

static void test_filter_and_field_selector(void **state)
{
    (void)state;
    struct ctx *x = ctx_new(6);
    struct kube_informer_handlers h = {.on_add = on_add_plain,
                                       .on_update = on_update,
                                       .on_delete = on_delete,
                                       .filter = filter_keep};
    struct kube_informer_opts o = {.label_selector = "tier", .field_selector = "type=Warning"};
    assert_int_equal(kube_informer_new_opts(x->c, &KUBE_PODS, "bench", &o, &h, x, &x->inf), 0);
    assert_int_equal(kube_informer_start(x->inf), 0);
    run_until_stop(x, 5000);
    const char *want[] = {"add a 4", "add d 7", "delete a 4", "add b 9"};
    for (int i = 0; i < x->nlog; i++)
        print_message("  %s\n", x->log[i]);
    assert_int_equal(x->nlog, 4);
    for (int i = 0; i < 4; i++)
        assert_string_equal(x->log[i], want[i]);
    assert_int_equal(kube_informer_count(x->inf), 2);
    assert_string_equal(x->reqs[0], "/api/v1/namespaces/bench/pods?labelSelector=tier&"
                                    "fieldSelector=type%3DWarning&limit=500");
    assert_non_null(strstr(x->reqs[1], "labelSelector=tier&fieldSelector=type%3DWarning&watch=1"));
    kube_informer_free(x->inf);
    ctx_free(x);
}

/* Many objects over many pages: each page asked for with the last page's token, every object
 * cached (deflated, the dictionary taken again on the way) and read back as it was sent (less what
 * the transform drops), in fewer bytes than their text. */
static void test_many_pages(void **state)
{
    (void)state;
    struct ctx *x = ctx_new(7);
    struct kube_informer_handlers h = {.transform = transform};
    assert_int_equal(kube_informer_new(x->c, &KUBE_PODS, "bench", NULL, &h, x, &x->inf), 0);
    assert_int_equal(kube_informer_start(x->inf), 0);
    run_until_stop(x, 10000);
    assert_int_equal(x->nreq, MANY / 2 + 2);
    assert_string_equal(x->reqs[0], "/api/v1/namespaces/bench/pods?limit=500");
    char want[128], v[64];
    for (int i = 1; i < MANY / 2 && i < 32; i++) { /* the first 32 requests are recorded */
        (void)snprintf(want, sizeof(want), "t%d", i);
        assert_string_equal(query_param(x->reqs[i], "continue", v, sizeof(v)), want);
    }
    assert_int_equal(kube_informer_count(x->inf), MANY - 1);
    size_t text = 0;
    for (int i = 0; i < MANY; i++) {
        char name[8];
        (void)snprintf(name, sizeof(name), "p%02d", i);
        cJSON *o = kube_informer_copy(x->inf, "bench", name);
        if (i == 31) {
            assert_null(o);
            continue;
        }
        assert_non_null(o);
        /* what was sent, transformed as the informer does (managedFields and spec dropped) */
        cJSON *sent = cJSON_Parse(pod(name, i == 7 ? 301 : 100 + i));
        cJSON_DeleteItemFromObject(cJSON_GetObjectItem(sent, "metadata"), "managedFields");
        transform(sent, x);
        assert_true(cJSON_Compare(o, sent, true));
        char *t = cJSON_PrintUnformatted(o);
        text += strlen(t);
        free(t);
        cJSON_Delete(sent);
        cJSON_Delete(o);
    }
    size_t bytes = kube_informer_bytes(x->inf);
    print_message("  %d objects: %zu bytes of text, %zu cached\n", MANY - 1, text, bytes);
    assert_true(bytes < text);
    kube_informer_free(x->inf);
    ctx_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_informer_through_410s),
        cmocka_unit_test(test_watch_backoff),
        cmocka_unit_test(test_expired_continue),
        cmocka_unit_test(test_stream_errors),
        cmocka_unit_test(test_assume),
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_filter_and_field_selector),
        cmocka_unit_test(test_many_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
