/* Leader election against an in-process API server holding one Lease: the Lease written with an
 * ownerReference to the operator's pod (so the garbage collector removes it with the pod), a
 * clean release, and a release refused with 403 (the Role deleted first at `helm uninstall`)
 * reported at warn level with the server's reason. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/controller/leader.h"
#include "pkg/util/log.h"
#include "test/unit/kube/fake_server.h"

#define LEASE_PATH "/apis/coordination.k8s.io/v1/namespaces/ops/leases/op-lease"

struct ctx {
    uv_loop_t loop;
    struct fs_api api;
    struct kube_client *kc;
    struct ctrl_leader *l;
    /* the server's Lease: NULL until created */
    cJSON *lease;
    int rv;
    int writes;
    bool forbid_get, forbid_put; /* answer 403 Forbidden as kube-apiserver's RBAC does */
    int started, stopped, released;
    /* stderr captured while the test runs */
    int saved_stderr;
    char log_path[64];
};

static void forbidden(struct fs_conn *c, const char *verb)
{
    char body[768];
    (void)snprintf(body, sizeof(body),
                   "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                   "\"Failure\",\"message\":\"leases.coordination.k8s.io \\\"op-lease\\\" is "
                   "forbidden: User \\\"system:serviceaccount:ops:op\\\" cannot %s resource "
                   "\\\"leases\\\" in API group \\\"coordination.k8s.io\\\" in the namespace "
                   "\\\"ops\\\"\",\"reason\":\"Forbidden\",\"details\":{\"name\":\"op-lease\","
                   "\"group\":\"coordination.k8s.io\",\"kind\":\"leases\"},\"code\":403}",
                   verb);
    fs_json(c, 403, body);
}

static void store_lease(struct ctx *x, struct fs_conn *c, const char *body, int code)
{
    cJSON_Delete(x->lease);
    x->lease = cJSON_Parse(body);
    assert_non_null(x->lease);
    char rv[16];
    (void)snprintf(rv, sizeof(rv), "%d", ++x->rv);
    cJSON *md = cJSON_GetObjectItem(x->lease, "metadata");
    cJSON_DeleteItemFromObject(md, "resourceVersion");
    cJSON_AddStringToObject(md, "resourceVersion", rv);
    x->writes++;
    char *out = cJSON_PrintUnformatted(x->lease);
    fs_json(c, code, out);
    free(out);
}

static void handler(struct fake_server *s, struct fs_conn *c, const struct fs_req *r, void *ud)
{
    (void)s;
    struct ctx *x = ud;
    if (!strcmp(r->method, "GET") && !strcmp(r->path, LEASE_PATH)) {
        if (x->forbid_get) {
            forbidden(c, "get");
        } else if (!x->lease) {
            fs_status(c, 404, "NotFound", "leases.coordination.k8s.io \\\"op-lease\\\" not found");
        } else {
            char *out = cJSON_PrintUnformatted(x->lease);
            fs_json(c, 200, out);
            free(out);
        }
    } else if (!strcmp(r->method, "POST") &&
               !strncmp(r->path, "/apis/coordination.k8s.io/v1/namespaces/ops/leases?", 51)) {
        store_lease(x, c, r->body, 201);
    } else if (!strcmp(r->method, "PUT") &&
               !strncmp(r->path, LEASE_PATH "?", strlen(LEASE_PATH) + 1)) {
        if (x->forbid_put) {
            forbidden(c, "update");
            return;
        }
        cJSON *in = cJSON_Parse(r->body);
        const cJSON *rv =
            cJSON_GetObjectItem(cJSON_GetObjectItem(in, "metadata"), "resourceVersion");
        char want[16];
        (void)snprintf(want, sizeof(want), "%d", x->rv);
        bool ok = cJSON_IsString(rv) && !strcmp(rv->valuestring, want);
        cJSON_Delete(in);
        if (!ok)
            fs_status(c, 409, "Conflict", "the object has been modified");
        else
            store_lease(x, c, r->body, 200);
    } else {
        fs_status(c, 404, "NotFound", "not found");
    }
}

static void on_started(void *ud)
{
    ((struct ctx *)ud)->started++;
}

static void on_stopped(void *ud)
{
    ((struct ctx *)ud)->stopped++;
}

static void on_released(void *ud)
{
    ((struct ctx *)ud)->released++;
}

static void capture_stderr(struct ctx *x)
{
    (void)snprintf(x->log_path, sizeof(x->log_path), "/tmp/test_leader.%d.log", (int)getpid());
    (void)fflush(stderr);
    x->saved_stderr = dup(2);
    int fd = open(x->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(dup2(fd, 2), 2);
    close(fd);
}

/* What was logged since capture_stderr (the caller frees it). */
static char *captured(struct ctx *x)
{
    (void)fflush(stderr);
    FILE *f = fopen(x->log_path, "r");
    assert_non_null(f);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    (void)fclose(f);
    return strdup(buf);
}

static void new_leader(struct ctx *x, bool owner)
{
    struct ctrl_leader_opts o = {
        .name = "op-lease",
        .namespace = "ops",
        .identity = "op-7d9f-abcde_42",
        .lease_duration_s = 4,
        .renew_deadline_s = 2,
        .retry_period_s = 1,
        .owner_pod_name = owner ? "op-7d9f-abcde" : NULL,
        .owner_pod_uid = owner ? "4f1c2f4e-1d2b-4b8e-9a51-0c5c3f1a7e11" : NULL,
        .on_started = on_started,
        .on_stopped = on_stopped,
        .ud = x,
    };
    x->l = ctrl_leader_new(&x->loop, x->kc, &o);
    assert_int_equal(ctrl_leader_start(x->l), 0);
}

static int setup(void **state)
{
    struct ctx *x = calloc(1, sizeof(*x));
    fs_api_start(&x->api, &x->loop, "t", handler, x, &x->kc);
    log_set_format(LOG_FORMAT_TEXT);
    log_set_level(LOG_INFO);
    capture_stderr(x);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    struct ctx *x = *state;
    (void)fflush(stderr);
    dup2(x->saved_stderr, 2);
    close(x->saved_stderr);
    unlink(x->log_path);
    ctrl_leader_free(x->l);
    fs_api_stop(&x->api, x->kc);
    cJSON_Delete(x->lease);
    free(x);
    return 0;
}

static void run_until(struct ctx *x, const int *counter, int want)
{
    for (int i = 0; i < 100000 && *counter < want; i++)
        uv_run(&x->loop, UV_RUN_ONCE);
    assert_true(*counter >= want);
}

static const char *owner_field(const struct ctx *x, const char *field)
{
    const cJSON *refs =
        cJSON_GetObjectItem(cJSON_GetObjectItem(x->lease, "metadata"), "ownerReferences");
    if (cJSON_GetArraySize(refs) != 1)
        return NULL;
    const cJSON *v = cJSON_GetObjectItem(cJSON_GetArrayItem(refs, 0), field);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *holder(const struct ctx *x)
{
    const cJSON *h = cJSON_GetObjectItem(cJSON_GetObjectItem(x->lease, "spec"), "holderIdentity");
    return cJSON_IsString(h) ? h->valuestring : NULL;
}

/* Every write, the create and the renewals, names the pod as the Lease's owner. */
static void test_lease_owned_by_pod(void **state)
{
    struct ctx *x = *state;
    new_leader(x, true);
    run_until(x, &x->started, 1);
    assert_int_equal(x->writes, 1);
    assert_string_equal(holder(x), "op-7d9f-abcde_42");
    assert_string_equal(owner_field(x, "apiVersion"), "v1");
    assert_string_equal(owner_field(x, "kind"), "Pod");
    assert_string_equal(owner_field(x, "name"), "op-7d9f-abcde");
    assert_string_equal(owner_field(x, "uid"), "4f1c2f4e-1d2b-4b8e-9a51-0c5c3f1a7e11");
    /* not a controller reference, and nothing that needs the pods/finalizers permission */
    const cJSON *ref = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(x->lease, "metadata"), "ownerReferences"), 0);
    assert_null(cJSON_GetObjectItem(ref, "controller"));
    assert_null(cJSON_GetObjectItem(ref, "blockOwnerDeletion"));
    run_until(x, &x->writes, 2); /* a renewal replaces the whole object: the owner stays */
    assert_string_equal(owner_field(x, "name"), "op-7d9f-abcde");

    ctrl_leader_release(x->l, on_released, x);
    run_until(x, &x->released, 1);
    assert_string_equal(holder(x), ""); /* released, and still owned: it goes with the pod */
    assert_string_equal(owner_field(x, "name"), "op-7d9f-abcde");
    char *log = captured(x);
    assert_non_null(strstr(log, "released lease ops/op-lease"));
    assert_null(strstr(log, "not released"));
    free(log);
    assert_int_equal(x->stopped, 0);
}

/* Out of a cluster (no pod identity): no ownerReference. */
static void test_lease_without_pod(void **state)
{
    struct ctx *x = *state;
    new_leader(x, false);
    run_until(x, &x->started, 1);
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(x->lease, "metadata"), "ownerReferences"));
}

/* Regression (issue "Real clusters, hostile input, long waits"): `helm uninstall` deletes the
 * Role before the operator's pod ends; the release got 403 and nothing was said at info level.
 * Now the refusal is a warning naming the step, the HTTP status, the reason and the server's
 * message, and the shutdown still completes. */
static void test_release_forbidden(void **state)
{
    struct ctx *x = *state;
    new_leader(x, true);
    run_until(x, &x->started, 1);
    x->forbid_get = true;
    ctrl_leader_release(x->l, on_released, x);
    run_until(x, &x->released, 1);
    assert_string_equal(holder(x), "op-7d9f-abcde_42"); /* never written */
    char *log = captured(x);
    const char *w = strstr(log, "lease ops/op-lease not released: reading it: HTTP 403 Forbidden: "
                                "leases.coordination.k8s.io \"op-lease\" is forbidden");
    assert_non_null(w);
    assert_non_null(strstr(w, "the garbage collector deletes it with pod op-7d9f-abcde"));
    /* issue 33: an owned Lease whose RBAC is gone (helm uninstall) is not a warning: nothing
     * waits for it and the garbage collector deletes it with the pod */
    const char *line = w;
    while (line > log && line[-1] != '\n')
        line--;
    assert_non_null(strstr(line, "info"));
    assert_null(strstr(line, "warn"));
    assert_non_null(strstr(w, "the RBAC went first (helm uninstall)"));
    free(log);
}

/* Without an owner pod the same 403 is a warning: the Lease stays until it expires. */
static void test_release_forbidden_unowned(void **state)
{
    struct ctx *x = *state;
    new_leader(x, false);
    run_until(x, &x->started, 1);
    x->forbid_get = true;
    ctrl_leader_release(x->l, on_released, x);
    run_until(x, &x->released, 1);
    char *log = captured(x);
    const char *w = strstr(log, "lease ops/op-lease not released: reading it: HTTP 403 Forbidden");
    assert_non_null(w);
    const char *line = w;
    while (line > log && line[-1] != '\n')
        line--;
    assert_non_null(strstr(line, "warn"));
    assert_non_null(strstr(w, "a successor waits until it expires"));
    free(log);
}

/* The read allowed, the write refused. */
static void test_release_write_forbidden(void **state)
{
    struct ctx *x = *state;
    new_leader(x, true);
    run_until(x, &x->started, 1);
    x->forbid_put = true;
    ctrl_leader_release(x->l, on_released, x);
    run_until(x, &x->released, 1);
    char *log = captured(x);
    assert_non_null(strstr(log, "lease ops/op-lease not released: writing it: HTTP 403 Forbidden: "
                                "leases.coordination.k8s.io \"op-lease\" is forbidden: User "
                                "\"system:serviceaccount:ops:op\" cannot update resource"));
    assert_null(strstr(log, "released lease"));
    free(log);
}

/* A Lease another candidate holds is taken over only once that holder has not renewed for its
 * leaseDurationSeconds on our clock: then with leaseTransitions + 1 and our identity. */
static void test_takeover_after_expiry(void **state)
{
    struct ctx *x = *state;
    x->lease = cJSON_Parse("{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
                           "\"metadata\":{\"name\":\"op-lease\",\"namespace\":\"ops\","
                           "\"resourceVersion\":\"1\"},\"spec\":{\"holderIdentity\":"
                           "\"other_1\",\"leaseDurationSeconds\":3,\"leaseTransitions\":4,"
                           "\"acquireTime\":\"2026-01-01T00:00:00.000000Z\",\"renewTime\":"
                           "\"2026-01-01T00:00:00.000000Z\"}}");
    assert_non_null(x->lease);
    x->rv = 1;
    uv_update_time(&x->loop);
    uint64_t t0 = uv_now(&x->loop);
    new_leader(x, false);
    run_until(x, &x->started, 1);
    /* the old renewTime says nothing (another clock): the wait is measured here */
    assert_true(uv_now(&x->loop) - t0 >= 3000);
    assert_int_equal(x->writes, 1);
    assert_string_equal(holder(x), "op-7d9f-abcde_42");
    const cJSON *tr =
        cJSON_GetObjectItem(cJSON_GetObjectItem(x->lease, "spec"), "leaseTransitions");
    assert_true(cJSON_IsNumber(tr));
    assert_int_equal(tr->valueint, 5);
    assert_true(ctrl_leader_is_leader(x->l));
}

/* A leader whose renewals fail past renew_deadline stops leading. */
static void test_stops_when_renewals_fail(void **state)
{
    struct ctx *x = *state;
    new_leader(x, false);
    run_until(x, &x->started, 1);
    x->forbid_put = true;
    run_until(x, &x->stopped, 1);
    assert_false(ctrl_leader_is_leader(x->l));
    assert_int_equal(x->writes, 1); /* the create only: no renewal got through */
}

/* Regression (issue 33, the real node): the identity was hostname_pid, inside a container always
 * "<pod>_1", so a restarted pod of the same name took its predecessor's identity. Now the suffix
 * is 16 random hex digits, different for every process start; a long host is cut, not the
 * suffix. */
static void test_identity_random(void **state)
{
    (void)state;
    char a[300], b[300];
    ctrl_leader_identity(a, sizeof(a), "pgbench-operator-7d9f-x2k4p");
    ctrl_leader_identity(b, sizeof(b), "pgbench-operator-7d9f-x2k4p");
    const char *pre = "pgbench-operator-7d9f-x2k4p_";
    assert_int_equal(strlen(a), strlen(pre) + 16);
    assert_memory_equal(a, pre, strlen(pre));
    assert_int_equal(strspn(a + strlen(pre), "0123456789abcdef"), 16);
    assert_string_not_equal(a, b);
    assert_string_not_equal(a + strlen(pre), "1");

    char small[24];
    ctrl_leader_identity(small, sizeof(small), "a-very-long-host-name-indeed");
    assert_int_equal(strlen(small), sizeof(small) - 1);
    assert_memory_equal(small, "a-very_", 7);
    assert_int_equal(strspn(small + 7, "0123456789abcdef"), 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_random),
        cmocka_unit_test_setup_teardown(test_lease_owned_by_pod, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lease_without_pod, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_forbidden, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_forbidden_unowned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_release_write_forbidden, setup, teardown),
        cmocka_unit_test_setup_teardown(test_takeover_after_expiry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stops_when_renewals_fail, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
