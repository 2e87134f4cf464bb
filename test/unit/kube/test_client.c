/* The request client against an in-process HTTP server on the same loop: the real curl
 * multi-socket path, Status decoding, headers, content types, caps, timeouts, reuse. */
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pkg/kube/kube.h"
#include "test/unit/kube/fake_server.h"

/* a custom resource: pkg/kube knows none of its own, a caller names it */
static const struct kube_resource CUSTOM = {"pgbench.dev", "v1alpha1", "BenchmarkRun",
                                            "benchmarkruns", true};

struct ctx {
    uv_loop_t loop;
    struct fs_api api;
    struct kube_client *c;
    /* last request seen by the server */
    char method[16], path[4096], headers[8192], body[8192];
    /* results seen by the client */
    int calls;
    struct kube_status st;
    char text[8192];
    char warning[512];
    bool had_body;
    char body_kind[64];
    int pending;
    /* "/throttled" paths (or bodies naming "throttled"): the next throttle_left answers are
     * throttle_code with Retry-After throttle_ra ("" = no header), then success; every request's
     * arrival is recorded */
    int throttle_left, throttle_code;
    char throttle_ra[16];
    int narr;
    struct arrival {
        double ms; /* uv_hrtime, in ms */
        char path[160];
        char body[160];
    } arr[64];
};

static void handler(struct fake_server *s, struct fs_conn *c, const struct fs_req *r, void *ud)
{
    (void)s;
    struct ctx *x = ud;
    (void)snprintf(x->method, sizeof(x->method), "%s", r->method);
    (void)snprintf(x->path, sizeof(x->path), "%s", r->path);
    (void)snprintf(x->headers, sizeof(x->headers), "%s", r->headers);
    (void)snprintf(x->body, sizeof(x->body), "%s", r->body);
    if (x->narr < (int)(sizeof(x->arr) / sizeof(x->arr[0]))) {
        struct arrival *a = &x->arr[x->narr++];
        a->ms = (double)uv_hrtime() / 1e6;
        (void)snprintf(a->path, sizeof(a->path), "%.159s", r->path);
        (void)snprintf(a->body, sizeof(a->body), "%.159s", r->body ? r->body : "");
    }
    const char *p = r->path;
    bool throttled = strstr(p, "/throttled") || (r->body && strstr(r->body, "\"throttled\""));
    if (throttled && x->throttle_left > 0) {
        x->throttle_left--;
        char hdr[64] = "", body[512];
        if (x->throttle_ra[0])
            (void)snprintf(hdr, sizeof(hdr), "Retry-After: %s\r\n", x->throttle_ra);
        bool tmr = x->throttle_code == 429;
        (void)snprintf(body, sizeof(body),
                       "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                       "\"reason\":\"%s\",\"message\":\"%s\",\"code\":%d}",
                       tmr ? "TooManyRequests" : "ServiceUnavailable",
                       tmr ? "Too many requests, please try again later." : "unavailable",
                       x->throttle_code);
        fs_respond(c, x->throttle_code, "application/json", hdr, body);
    } else if (strstr(p, "/pods/missing"))
        fs_status(c, 404, "NotFound", "pods \\\"missing\\\" not found");
    else if (!strcmp(r->method, "POST") && r->body && strstr(r->body, "\"already\""))
        fs_status(c, 409, "AlreadyExists", "events \\\"already\\\" already exists");
    else if (strstr(p, "/conflict") ||
             (!strcmp(r->method, "POST") && r->body && strstr(r->body, "\"conflict\"")))
        fs_status(c, 409, "Conflict", "the object has been modified");
    else if (strstr(p, "/busy"))
        fs_respond(c, 429, "application/json", "Retry-After: 3\r\n",
                   "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                   "\"reason\":\"TooManyRequests\",\"message\":\"slow down\",\"code\":429,"
                   "\"details\":{\"retryAfterSeconds\":2}}");
    else if (strstr(p, "/html-error"))
        fs_respond(c, 502, "text/html", NULL, "<html>bad\ngateway</html>");
    else if (strstr(p, "/big"))
        fs_respond(
            c, 200, "application/json", NULL,
            "{\"kind\":\"Pod\",\"padding\":\""
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
            "\"}");
    else if (strstr(p, "/hang"))
        ; /* never answers */
    else if (strstr(p, "/log"))
        fs_respond(c, 200, "text/plain", NULL, "line one\n{\"schemaVersion\":1}\n");
    else if (strstr(p, "/warn"))
        fs_respond(c, 200, "application/json",
                   "Warning: 299 - \"unknown field \\\"spec.foo\\\"\"\r\n"
                   "Warning: 299 - \"second\"\r\n",
                   "{\"kind\":\"BenchmarkRun\",\"metadata\":{\"name\":\"warn\"}}");
    else if (!strcmp(r->method, "DELETE"))
        fs_json(c, 200, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Success\"}");
    else if (!strcmp(r->method, "POST"))
        fs_json(c, 201, r->body);
    else if (strstr(p, "/pods?") || (strlen(p) >= 5 && !strcmp(p + strlen(p) - 5, "/pods")))
        fs_json(c, 200,
                "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"7\"},"
                "\"items\":[]}");
    else
        fs_json(c, 200,
                "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"resourceVersion\":\"5\"}}");
}

static int setup(void **state)
{
    struct ctx *x = calloc(1, sizeof(*x));
    fs_api_start(&x->api, &x->loop, "test-token-123", handler, x, &x->c);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    struct ctx *x = *state;
    fs_api_stop(&x->api, x->c);
    free(x);
    return 0;
}

static void on_result(struct kube_result *res, void *ud)
{
    struct ctx *x = ud;
    x->calls++;
    x->pending--;
    x->st = res->status;
    (void)snprintf(x->text, sizeof(x->text), "%.*s", (int)res->text_len, res->text);
    (void)snprintf(x->warning, sizeof(x->warning), "%s", res->warning ? res->warning : "");
    x->had_body = res->body != NULL;
    const cJSON *kind = cJSON_GetObjectItem(res->body, "kind");
    (void)snprintf(x->body_kind, sizeof(x->body_kind), "%s",
                   cJSON_IsString(kind) ? kind->valuestring : "");
}

static void wait_done(struct ctx *x)
{
    for (int i = 0; i < 100000 && x->pending > 0; i++)
        uv_run(&x->loop, UV_RUN_ONCE);
    assert_int_equal(x->pending, 0);
}

static void get(struct ctx *x, const struct kube_resource *r, const char *ns, const char *name,
                const struct kube_opts *o)
{
    x->pending++;
    assert_int_equal(kube_get(x->c, r, ns, name, o, on_result, x), 0);
    wait_done(x);
}

static void test_get_ok(void **state)
{
    struct ctx *x = *state;
    get(x, &KUBE_PODS, "bench", "p", NULL);
    assert_int_equal(x->calls, 1);
    assert_int_equal(x->st.http, 200);
    assert_true(kube_ok(&x->st));
    assert_string_equal(x->method, "GET");
    assert_string_equal(x->path, "/api/v1/namespaces/bench/pods/p");
    assert_string_equal(x->body_kind, "Pod");
    assert_non_null(strstr(x->headers, "Authorization: Bearer test-token-123"));
    assert_non_null(strstr(x->headers, "Accept: application/json"));
    /* group resources, cluster-scoped resources ignore ns, escaping of names */
    get(x, &CUSTOM, "bench", "my run", &(struct kube_opts){.subresource = "status"});
    assert_string_equal(x->path, "/apis/pgbench.dev/v1alpha1/namespaces/bench/benchmarkruns/"
                                 "my%20run/status");
    get(x, &KUBE_NAMESPACES, "ignored", "bench", NULL);
    assert_string_equal(x->path, "/api/v1/namespaces/bench");
    get(x, &KUBE_HPAS, "db", "pg-hpa", NULL);
    assert_string_equal(x->path,
                        "/apis/autoscaling/v2/namespaces/db/horizontalpodautoscalers/pg-hpa");
}

static void test_status_errors(void **state)
{
    struct ctx *x = *state;
    get(x, &KUBE_PODS, "bench", "missing", NULL);
    assert_int_equal(x->st.http, 404);
    assert_false(kube_ok(&x->st));
    assert_string_equal(x->st.reason, "NotFound");
    assert_string_equal(x->st.message, "pods \"missing\" not found");
    assert_int_equal(x->st.curl, 0);

    get(x, &KUBE_JOBS, "bench", "conflict", NULL);
    assert_int_equal(x->st.http, 409);
    assert_string_equal(x->st.reason, "Conflict");

    /* a Retry-After longer than the request's timeout: answered at once (no retry) */
    get(x, &KUBE_PODS, "bench", "busy", &(struct kube_opts){.timeout_ms = 2000});
    assert_int_equal(x->st.http, 429);
    assert_string_equal(x->st.reason, "TooManyRequests");
    /* the Retry-After header wins over details.retryAfterSeconds */
    assert_true(x->st.retry_after > 2.99 && x->st.retry_after < 3.01);

    get(x, &KUBE_PODS, "bench", "html-error", NULL);
    assert_int_equal(x->st.http, 502);
    assert_string_equal(x->st.reason, "");
    assert_string_equal(x->st.message, "HTTP 502: <html>bad gateway</html>");
    assert_false(x->had_body);

    struct kube_client_stats s;
    kube_client_stats(x->c, &s);
    assert_int_equal(s.requests, 4);
    assert_int_equal(s.errors, 3); /* the 404 to a GET is an answer, not an error */
}

/* Regression (issue 33, the real node): after an operator restart the Events sent again were
 * answered 409 AlreadyExists and the new pod's GET of its garbage-collected Lease 404, and both
 * were counted in pgbench_operator_api_errors_total. They are expected answers: 404 to GET and
 * DELETE, 409 AlreadyExists to POST. A 409 Conflict, or a 404 to a write, still counts. */
static void test_expected_answers_not_errors(void **state)
{
    struct ctx *x = *state;
    get(x, &KUBE_PODS, "bench", "missing", NULL);
    assert_int_equal(x->st.http, 404);
    x->pending++;
    assert_int_equal(kube_delete(x->c, &KUBE_PODS, "bench", "missing", NULL, on_result, x), 0);
    wait_done(x);
    assert_int_equal(x->st.http, 404);
    cJSON *ev = cJSON_Parse("{\"kind\":\"Event\",\"metadata\":{\"name\":\"already\"}}");
    x->pending++;
    assert_int_equal(kube_create(x->c, &KUBE_EVENTS, "bench", ev, NULL, on_result, x), 0);
    wait_done(x);
    cJSON_Delete(ev);
    assert_int_equal(x->st.http, 409);
    assert_string_equal(x->st.reason, "AlreadyExists");
    struct kube_client_stats s;
    kube_client_stats(x->c, &s);
    assert_int_equal(s.requests, 3);
    assert_int_equal(s.errors, 0);

    /* still errors: 409 Conflict to a POST, 404 to a PUT */
    cJSON *job = cJSON_Parse("{\"kind\":\"Job\",\"metadata\":{\"name\":\"conflict\"}}");
    x->pending++;
    assert_int_equal(kube_create(x->c, &KUBE_JOBS, "bench", job, NULL, on_result, x), 0);
    wait_done(x);
    cJSON_Delete(job);
    assert_int_equal(x->st.http, 409);
    cJSON *pod = cJSON_Parse("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"missing\"}}");
    x->pending++;
    assert_int_equal(kube_replace(x->c, &KUBE_PODS, "bench", "missing", pod, NULL, on_result, x),
                     0);
    wait_done(x);
    cJSON_Delete(pod);
    assert_int_equal(x->st.http, 404);
    kube_client_stats(x->c, &s);
    assert_int_equal(s.requests, 5);
    assert_int_equal(s.errors, 2);
}

static void test_text_and_warning(void **state)
{
    struct ctx *x = *state;
    get(x, &KUBE_PODS, "bench", "p",
        &(struct kube_opts){.subresource = "log", .query = "container=runner&tailLines=5"});
    assert_string_equal(x->path,
                        "/api/v1/namespaces/bench/pods/p/log?container=runner&tailLines=5");
    assert_string_equal(x->text, "line one\n{\"schemaVersion\":1}\n");
    assert_false(x->had_body);
    get(x, &CUSTOM, "bench", "warn", NULL);
    assert_string_equal(x->warning, "299 - \"unknown field \\\"spec.foo\\\"\"");
}

static void test_list_query(void **state)
{
    struct ctx *x = *state;
    struct kube_opts o = {.label_selector = "app=pg,tier in (a,b)",
                          .field_selector = "status.phase!=Running",
                          .limit = 50,
                          .continue_token = "eyJ2Ijoi+/="};
    x->pending++;
    assert_int_equal(kube_list(x->c, &KUBE_PODS, "bench", &o, on_result, x), 0);
    wait_done(x);
    assert_string_equal(x->path, "/api/v1/namespaces/bench/pods"
                                 "?labelSelector=app%3Dpg%2Ctier%20in%20%28a%2Cb%29"
                                 "&fieldSelector=status.phase%21%3DRunning&limit=50"
                                 "&continue=eyJ2Ijoi%2B%2F%3D");
    assert_int_equal(x->st.http, 200);
    x->pending++;
    assert_int_equal(kube_list(x->c, &KUBE_PODS, NULL, NULL, on_result, x), 0);
    wait_done(x);
    assert_string_equal(x->path, "/api/v1/pods");
}

static void test_writes(void **state)
{
    struct ctx *x = *state;
    cJSON *obj = cJSON_Parse("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\","
                             "\"metadata\":{\"name\":\"j\"}}");
    x->pending++;
    assert_int_equal(kube_create(x->c, &KUBE_JOBS, "bench", obj, NULL, on_result, x), 0);
    wait_done(x);
    assert_string_equal(x->method, "POST");
    assert_string_equal(x->path,
                        "/apis/batch/v1/namespaces/bench/jobs?fieldManager=pgbench-operator");
    assert_non_null(strstr(x->headers, "Content-Type: application/json\r\n"));
    assert_string_equal(x->body, "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\","
                                 "\"metadata\":{\"name\":\"j\"}}");
    assert_int_equal(x->st.http, 201);

    static const struct {
        enum kube_patch_type t;
        const char *ct;
    } types[] = {{KUBE_PATCH_MERGE, "application/merge-patch+json"},
                 {KUBE_PATCH_STRATEGIC, "application/strategic-merge-patch+json"},
                 {KUBE_PATCH_APPLY, "application/apply-patch+yaml"}};
    for (size_t i = 0; i < 3; i++) {
        x->pending++;
        struct kube_opts o = {.field_manager = "bench-ctl",
                              .force = true,
                              .subresource = "status",
                              .field_validation = "Strict"};
        assert_int_equal(kube_patch(x->c, &CUSTOM, "bench", "r", types[i].t, obj, &o, on_result, x),
                         0);
        wait_done(x);
        assert_string_equal(x->method, "PATCH");
        char want[256];
        (void)snprintf(want, sizeof(want), "Content-Type: %s\r\n", types[i].ct);
        assert_non_null(strstr(x->headers, want));
        if (types[i].t == KUBE_PATCH_APPLY)
            assert_string_equal(x->path,
                                "/apis/pgbench.dev/v1alpha1/namespaces/bench/benchmarkruns/r/"
                                "status?fieldManager=bench-ctl&fieldValidation=Strict&force=true");
        else
            assert_string_equal(x->path,
                                "/apis/pgbench.dev/v1alpha1/namespaces/bench/benchmarkruns/r/"
                                "status?fieldManager=bench-ctl&fieldValidation=Strict");
    }
    /* JSON patch needs an array */
    assert_int_equal(
        kube_patch(x->c, &KUBE_PODS, "bench", "p", KUBE_PATCH_JSON, obj, NULL, on_result, x),
        -EINVAL);
    cJSON *ops = cJSON_Parse("[{\"op\":\"remove\",\"path\":\"/metadata/finalizers/0\"}]");
    x->pending++;
    assert_int_equal(
        kube_patch(x->c, &KUBE_PODS, "bench", "p", KUBE_PATCH_JSON, ops, NULL, on_result, x), 0);
    wait_done(x);
    assert_non_null(strstr(x->headers, "Content-Type: application/json-patch+json\r\n"));
    cJSON_Delete(ops);

    x->pending++;
    assert_int_equal(kube_replace(x->c, &CUSTOM, "bench", "r", obj,
                                  &(struct kube_opts){.subresource = "status"}, on_result, x),
                     0);
    wait_done(x);
    assert_string_equal(x->method, "PUT");
    assert_string_equal(x->path, "/apis/pgbench.dev/v1alpha1/namespaces/bench/benchmarkruns/r/"
                                 "status?fieldManager=pgbench-operator");
    cJSON_Delete(obj);

    x->pending++;
    assert_int_equal(kube_delete(x->c, &KUBE_JOBS, "bench", "j",
                                 &(struct kube_opts){.propagation_policy = "Background"}, on_result,
                                 x),
                     0);
    wait_done(x);
    assert_string_equal(x->method, "DELETE");
    assert_string_equal(x->path,
                        "/apis/batch/v1/namespaces/bench/jobs/j?propagationPolicy=Background");
    assert_non_null(strstr(x->body, "\"propagationPolicy\":\"Background\""));
    assert_string_equal(x->body_kind, "Status");
    assert_true(kube_ok(&x->st));
}

static void test_size_cap(void **state)
{
    struct ctx *x = *state;
    kube_client_set_max_body(x->c, 64);
    get(x, &KUBE_PODS, "bench", "big", NULL);
    assert_int_equal(x->st.http, 0);
    assert_false(kube_ok(&x->st));
    assert_string_equal(x->st.reason, "TooLarge");
    assert_non_null(strstr(x->st.message, "exceeds 64 bytes"));
    kube_client_set_max_body(x->c, 0);
    get(x, &KUBE_PODS, "bench", "big", NULL);
    assert_int_equal(x->st.http, 200);
}

static void test_timeout_and_refused(void **state)
{
    struct ctx *x = *state;
    get(x, &KUBE_PODS, "bench", "hang", &(struct kube_opts){.timeout_ms = 200});
    assert_int_equal(x->st.http, 0);
    assert_int_equal(x->st.curl, 28); /* CURLE_OPERATION_TIMEDOUT */
    assert_string_equal(x->st.reason, "Timeout");

    /* a port nobody listens on */
    uv_tcp_t probe;
    uv_tcp_init(&x->loop, &probe);
    struct sockaddr_in a;
    uv_ip4_addr("127.0.0.1", 0, &a);
    uv_tcp_bind(&probe, (const struct sockaddr *)&a, 0);
    struct sockaddr_in got;
    int len = sizeof(got);
    uv_tcp_getsockname(&probe, (struct sockaddr *)&got, &len);
    uv_close((uv_handle_t *)&probe, NULL);
    uv_run(&x->loop, UV_RUN_NOWAIT);
    char server[64];
    (void)snprintf(server, sizeof(server), "http://127.0.0.1:%d", ntohs(got.sin_port));
    struct kube_config cfg = {.server = server};
    struct kube_client *c2;
    assert_int_equal(kube_client_new(&x->loop, &cfg, &c2), 0);
    x->pending++;
    assert_int_equal(kube_get(c2, &KUBE_PODS, "a", "b", NULL, on_result, x), 0);
    wait_done(x);
    assert_int_equal(x->st.http, 0);
    assert_int_equal(x->st.curl, 7); /* CURLE_COULDNT_CONNECT */
    assert_true(x->st.message[0] != '\0');
    kube_client_free(c2);
}

static void test_connection_reuse(void **state)
{
    struct ctx *x = *state;
    for (int i = 0; i < 5; i++)
        get(x, &KUBE_PODS, "bench", "p", NULL);
    assert_int_equal(x->api.srv.nconns, 1);
    /* concurrent requests: at most as many connections as requests, all answered once */
    x->calls = 0;
    for (int i = 0; i < 8; i++) {
        x->pending++;
        assert_int_equal(kube_get(x->c, &KUBE_PODS, "bench", "p", NULL, on_result, x), 0);
    }
    wait_done(x);
    assert_int_equal(x->calls, 8);
    assert_true(x->api.srv.nconns <= 9);
}

static void test_token_file_rotation(void **state)
{
    struct ctx *x = *state;
    char path[] = "/tmp/kube-token-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "first-token\n", 12), 12);
    close(fd);
    struct kube_config cfg = {.server = x->api.url, .token = "ignored", .token_file = path};
    struct kube_client *c2;
    assert_int_equal(kube_client_new(&x->loop, &cfg, &c2), 0);
    x->pending++;
    assert_int_equal(kube_get(c2, &KUBE_PODS, "a", "b", NULL, on_result, x), 0);
    wait_done(x);
    assert_non_null(strstr(x->headers, "Authorization: Bearer first-token\r\n"));
    FILE *f = fopen(path, "w");
    (void)fputs("second-token", f);
    (void)fclose(f);
    struct timespec ts[2] = {{.tv_sec = time(NULL) + 10}, {.tv_sec = time(NULL) + 10}};
    utimensat(AT_FDCWD, path, ts, 0);
    x->pending++;
    assert_int_equal(kube_get(c2, &KUBE_PODS, "a", "b", NULL, on_result, x), 0);
    wait_done(x);
    assert_non_null(strstr(x->headers, "Authorization: Bearer second-token\r\n"));
    kube_client_free(c2);
    unlink(path);
}

static int never_called;
static void must_not_run(struct kube_result *res, void *ud)
{
    (void)res;
    (void)ud;
    never_called++;
}

static void test_free_cancels(void **state)
{
    struct ctx *x = *state;
    struct kube_client *c2;
    assert_int_equal(kube_client_new(&x->loop, &x->api.cfg, &c2), 0);
    assert_int_equal(kube_get(c2, &KUBE_PODS, "a", "hang", NULL, must_not_run, NULL), 0);
    assert_int_equal(kube_get(c2, &KUBE_PODS, "b", "hang", NULL, must_not_run, NULL), 0);
    for (int i = 0; i < 5; i++)
        uv_run(&x->loop, UV_RUN_NOWAIT);
    kube_client_free(c2);
    for (int i = 0; i < 20; i++)
        uv_run(&x->loop, UV_RUN_NOWAIT);
    assert_int_equal(never_called, 0);
    /* bad arguments fail synchronously and never call back */
    assert_int_equal(kube_get(x->c, &KUBE_PODS, "a", "", NULL, must_not_run, NULL), -EINVAL);
    assert_int_equal(kube_request(x->c, "GET", "no-slash", NULL, NULL, 0, must_not_run, NULL),
                     -EINVAL);
    assert_int_equal(never_called, 0);
}

/* a callback that starts another request and frees the client from inside a callback */
struct chain {
    struct ctx *x;
    int step;
};

static void chain_cb(struct kube_result *res, void *ud)
{
    struct chain *ch = ud;
    assert_true(kube_ok(&res->status));
    ch->step++;
    if (ch->step < 3) {
        assert_int_equal(kube_get(ch->x->c, &KUBE_PODS, "a", "p", NULL, chain_cb, ch), 0);
        return;
    }
    ch->x->pending--;
}

static void test_callback_starts_request(void **state)
{
    struct ctx *x = *state;
    struct chain ch = {x, 0};
    x->pending++;
    assert_int_equal(kube_get(x->c, &KUBE_PODS, "a", "p", NULL, chain_cb, &ch), 0);
    wait_done(x);
    assert_int_equal(ch.step, 3);
}

/* freeing the client from inside a callback: the other in-flight request is never answered */
struct freeing {
    struct kube_client *c;
    int calls;
};

static void free_in_cb(struct kube_result *res, void *ud)
{
    (void)res;
    struct freeing *f = ud;
    f->calls++;
    kube_client_free(f->c);
}

static void test_free_inside_callback(void **state)
{
    struct ctx *x = *state;
    struct freeing f = {0};
    assert_int_equal(kube_client_new(&x->loop, &x->api.cfg, &f.c), 0);
    assert_int_equal(kube_get(f.c, &KUBE_PODS, "a", "p", NULL, free_in_cb, &f), 0);
    assert_int_equal(kube_get(f.c, &KUBE_PODS, "a", "hang", NULL, must_not_run, NULL), 0);
    for (int i = 0; i < 1000 && !f.calls; i++)
        uv_run(&x->loop, UV_RUN_ONCE);
    assert_int_equal(f.calls, 1);
    for (int i = 0; i < 20; i++)
        uv_run(&x->loop, UV_RUN_NOWAIT);
    assert_int_equal(f.calls, 1);
    assert_int_equal(never_called, 0);
}

/* ---- Retry-After ---------------------------------------------------------------------------- */

static void throttle(struct ctx *x, int times, int code, const char *retry_after)
{
    x->throttle_left = times;
    x->throttle_code = code;
    (void)snprintf(x->throttle_ra, sizeof(x->throttle_ra), "%s", retry_after);
    x->narr = 0;
}

/* ms between the server's answer to arrival i - 1 and arrival i (answers are written when the
 * request arrives, so the arrival time is the answer's time) */
static double gap(const struct ctx *x, int i)
{
    return x->arr[i].ms - x->arr[i - 1].ms;
}

/* Regression (issue "Real clusters, hostile input, long waits"): every retry after a 429 with
 * Retry-After came sooner than asked. Now each comes no sooner, and at most 20 % later. */
static void test_retry_after_429(void **state)
{
    struct ctx *x = *state;
    throttle(x, 2, 429, "1");
    get(x, &KUBE_PODS, "bench", "throttled", NULL);
    assert_int_equal(x->calls, 1); /* the 429s never reach the caller */
    assert_int_equal(x->st.http, 200);
    assert_int_equal(x->narr, 3);
    for (int i = 1; i < 3; i++) {
        assert_true(gap(x, i) >= 1000.0);
        assert_true(gap(x, i) < 1200.0 + 150.0); /* jitter + scheduling slack */
        assert_string_equal(x->arr[i].path, x->arr[0].path);
    }
    struct kube_client_stats s;
    kube_client_stats(x->c, &s);
    assert_int_equal(s.requests, 3);
    assert_int_equal(s.retries, 2);
    assert_int_equal(s.errors, 2);
}

/* 503 with Retry-After (fractional seconds, which servers do not send, keep the test short); a
 * write is sent again with the same body; the jitter spreads the waits. */
static void test_retry_after_503_write(void **state)
{
    struct ctx *x = *state;
    throttle(x, 4, 503, "0.2");
    cJSON *obj = cJSON_Parse("{\"kind\":\"Job\",\"metadata\":{\"name\":\"throttled\"}}");
    x->pending++;
    assert_int_equal(kube_create(x->c, &KUBE_JOBS, "bench", obj, NULL, on_result, x), 0);
    wait_done(x);
    cJSON_Delete(obj);
    assert_int_equal(x->st.http, 201);
    assert_int_equal(x->narr, 5);
    bool spread = false;
    for (int i = 1; i < 5; i++) {
        assert_true(gap(x, i) >= 200.0);
        assert_true(gap(x, i) < 240.0 + 150.0);
        assert_string_equal(x->arr[i].body, x->arr[0].body);
        if (i > 1 && (gap(x, i) - gap(x, i - 1) > 1.0 || gap(x, i - 1) - gap(x, i) > 1.0))
            spread = true;
    }
    assert_non_null(strstr(x->arr[0].body, "\"name\":\"throttled\""));
    assert_true(spread);
}

/* No Retry-After, or a status that does not ask for a wait: the answer goes to the caller. */
static void test_no_retry_without_retry_after(void **state)
{
    struct ctx *x = *state;
    throttle(x, 1, 429, "");
    get(x, &KUBE_PODS, "bench", "throttled", NULL);
    assert_int_equal(x->st.http, 429);
    assert_int_equal(x->narr, 1);
    throttle(x, 1, 503, "");
    get(x, &KUBE_PODS, "bench", "throttled", NULL);
    assert_int_equal(x->st.http, 503);
    assert_int_equal(x->narr, 1);
    throttle(x, 0, 0, "");
    get(x, &KUBE_PODS, "bench", "conflict", NULL); /* 409 */
    assert_int_equal(x->narr, 1);
    struct kube_client_stats s;
    kube_client_stats(x->c, &s);
    assert_int_equal(s.retries, 0);
}

/* After max_retries the 429 goes to the caller; a new request for the same path (the caller
 * retrying by itself, as a work queue does) still waits out the Retry-After; another path does
 * not. */
static void test_retry_limit_and_hold(void **state)
{
    struct ctx *x = *state;
    kube_client_set_max_retries(x->c, 2);
    throttle(x, 10, 429, "0.3");
    get(x, &KUBE_PODS, "bench", "throttled", NULL);
    assert_int_equal(x->st.http, 429);
    assert_string_equal(x->st.reason, "TooManyRequests");
    assert_true(x->st.retry_after > 0.29 && x->st.retry_after < 0.31);
    assert_int_equal(x->narr, 3);

    /* the caller tries again at once, and reads another object meanwhile */
    x->throttle_left = 0;
    x->pending += 2;
    assert_int_equal(kube_get(x->c, &KUBE_PODS, "bench", "throttled", NULL, on_result, x), 0);
    assert_int_equal(kube_get(x->c, &KUBE_PODS, "bench", "p", NULL, on_result, x), 0);
    wait_done(x);
    assert_int_equal(x->narr, 5);
    assert_string_equal(x->arr[3].path, "/api/v1/namespaces/bench/pods/p");
    assert_true(x->arr[3].ms - x->arr[2].ms < 200.0);
    assert_string_equal(x->arr[4].path, "/api/v1/namespaces/bench/pods/throttled");
    assert_true(x->arr[4].ms - x->arr[2].ms >= 300.0);
    assert_true(x->arr[4].ms - x->arr[2].ms < 360.0 + 150.0);

    /* once the wait is over, nothing is held back */
    x->narr = 0;
    get(x, &KUBE_PODS, "bench", "throttled", NULL);
    assert_int_equal(x->st.http, 200);
    assert_int_equal(x->narr, 1);

    /* 0 retries: every answer goes to the caller */
    kube_client_set_max_retries(x->c, 0);
    throttle(x, 1, 429, "0.1");
    get(x, &KUBE_PODS, "bench", "throttled", NULL);
    assert_int_equal(x->st.http, 429);
    assert_int_equal(x->narr, 1);
}

/* The timeout covers every attempt: a retry whose wait would end past it is not made. */
static void test_retry_within_timeout(void **state)
{
    struct ctx *x = *state;
    throttle(x, 10, 429, "0.3");
    get(x, &KUBE_PODS, "bench", "throttled", &(struct kube_opts){.timeout_ms = 1000});
    assert_int_equal(x->st.http, 429);
    /* 0 ms, >= 300, >= 600; a fourth would go out at >= 900 + jitter, too close to 1000 */
    assert_true(x->narr >= 3 && x->narr <= 4);
    assert_true(x->arr[x->narr - 1].ms - x->arr[0].ms < 1000.0);
}

static void count_cb(struct kube_result *res, void *ud)
{
    (void)res;
    ((struct freeing *)ud)->calls++;
}

/* Freeing the client while a request waits for its retry: no callback, nothing leaks. */
static void test_free_while_waiting(void **state)
{
    struct ctx *x = *state;
    struct kube_client *c2;
    assert_int_equal(kube_client_new(&x->loop, &x->api.cfg, &c2), 0);
    throttle(x, 10, 429, "5");
    assert_int_equal(kube_get(c2, &KUBE_PODS, "a", "throttled", NULL, must_not_run, NULL), 0);
    for (int i = 0; i < 1000 && x->narr < 1; i++)
        uv_run(&x->loop, UV_RUN_ONCE);
    for (int i = 0; i < 20; i++)
        uv_run(&x->loop, UV_RUN_NOWAIT);
    assert_int_equal(x->narr, 1);
    kube_client_free(c2);
    for (int i = 0; i < 20; i++)
        uv_run(&x->loop, UV_RUN_NOWAIT);
    assert_int_equal(never_called, 0);
    /* a request held back by the client's Retry-After for its path, freed before it goes out */
    assert_int_equal(kube_client_new(&x->loop, &x->api.cfg, &c2), 0);
    kube_client_set_max_retries(c2, 0);
    throttle(x, 1, 429, "5");
    struct freeing first = {0};
    assert_int_equal(kube_get(c2, &KUBE_PODS, "a", "throttled", NULL, count_cb, &first), 0);
    for (int i = 0; i < 1000 && !first.calls; i++)
        uv_run(&x->loop, UV_RUN_ONCE);
    assert_int_equal(first.calls, 1);
    assert_int_equal(kube_get(c2, &KUBE_PODS, "a", "throttled", NULL, must_not_run, NULL), 0);
    for (int i = 0; i < 20; i++)
        uv_run(&x->loop, UV_RUN_NOWAIT);
    assert_int_equal(x->narr, 1); /* held back */
    kube_client_free(c2);
    for (int i = 0; i < 20; i++)
        uv_run(&x->loop, UV_RUN_NOWAIT);
    assert_int_equal(never_called, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_get_ok, setup, teardown),
        cmocka_unit_test_setup_teardown(test_status_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expected_answers_not_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_and_warning, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_query, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_cap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_and_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connection_reuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_file_rotation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_cancels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_callback_starts_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_inside_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retry_after_429, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retry_after_503_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_retry_without_retry_after, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retry_limit_and_hold, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retry_within_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_while_waiting, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
