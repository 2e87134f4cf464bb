/* kubectl pgbench version: the plugin's version, the operator's that leads (from the label and
 * annotation its Lease carries, leader.h) and the API versions the CRDs serve. */
#include <stdio.h>
#include <string.h>

#include "pkg/api/manifest.h"
#include "pkg/util/json.h"
#include "pkg/util/version.h"
#include "plugin.h"

static const struct kube_resource crds = {"apiextensions.k8s.io", "v1", "CustomResourceDefinition",
                                          "customresourcedefinitions", false};

/* "operator: pgbench-operator 0.1.0 (commit 648c126) (Lease ns/name, held by h)" for every labelled
 * Lease, all namespaces first, else the current one. Returns how many were printed, or -1 having
 * printed why none could be read. */
static int print_operators(struct kc *k)
{
    struct kube_opts o = {.label_selector = API_LEASE_LABEL "=" API_LEASE_LABEL_VALUE};
    struct kc_reply r;
    char msg[600];
    if (kc_call(k, KC_LIST_ALL, &KUBE_LEASES, NULL, NULL, &o, &r) != 0 || !kube_ok(&r.st)) {
        kc_reply_free(&r); /* not allowed cluster-wide: the current namespace */
        if (kc_call(k, KC_LIST, &KUBE_LEASES, NULL, NULL, &o, &r) != 0 || !kube_ok(&r.st)) {
            kc_describe(&r.st, msg, sizeof(msg));
            (void)printf("operator: unknown (cannot list leases: %s)\n", msg);
            kc_reply_free(&r);
            return -1;
        }
    }
    int n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, util_jget(r.body, "items"))
    {
        const char *v = util_jkey(util_jget(it, "metadata.annotations"), API_ANNOTATION_VERSION);
        const char *holder = util_jstr(it, "spec.holderIdentity");
        (void)printf("operator: %s (Lease %s/%s, %s%s)\n", v ? v : "unknown",
                     util_jstr(it, "metadata.namespace"), util_jstr(it, "metadata.name"),
                     holder && *holder ? "held by " : "not held", holder ? holder : "");
        n++;
    }
    if (!n)
        (void)printf("operator: not found (no Lease labelled %s=%s: the operator is not running, "
                     "or leader election is off)\n",
                     API_LEASE_LABEL, API_LEASE_LABEL_VALUE);
    kc_reply_free(&r);
    return n;
}

/* "CRD benchmarkruns.pgbench.dev: v1alpha1 (served, storage)" */
static int print_crd(struct kc *k, const char *name)
{
    struct kc_reply r;
    char msg[600];
    if (kc_call(k, KC_GET, &crds, name, NULL, NULL, &r) != 0 || !kube_ok(&r.st)) {
        kc_describe(&r.st, msg, sizeof(msg));
        (void)printf("CRD %s: %s\n", name, msg);
        kc_reply_free(&r);
        return -1;
    }
    (void)printf("CRD %s:", name);
    const cJSON *v;
    bool first = true;
    cJSON_ArrayForEach(v, util_jget(r.body, "spec.versions"))
    {
        (void)printf("%s %s (%s%s)", first ? "" : ",", util_jstr(v, "name"),
                     cJSON_IsTrue(cJSON_GetObjectItem(v, "served")) ? "served" : "not served",
                     cJSON_IsTrue(cJSON_GetObjectItem(v, "storage")) ? ", storage" : "");
        first = false;
    }
    (void)printf("\n");
    kc_reply_free(&r);
    return 0;
}

struct version_cli {
    struct kc_flags kf;
    bool client;
};

static const struct util_opt version_rows[] = {
    {.name = "client",
     .type = UTIL_OPT_BOOL,
     .off = offsetof(struct version_cli, client),
     .help = "the plugin's version only"},
};

int cmd_version(int argc, char **argv)
{
    struct args a = {argc, argv, 1, "version"};
    struct version_cli v = {0};
    struct util_opt_set sets[] = {{version_rows, UTIL_OPT_N(version_rows), &v},
                                  flag_kube_set(&v.kf)};
    struct cmd_flags f = {.usage = "usage: kubectl pgbench version [flags]\n\n"
                                   "The plugin's version; the operator's (from its Lease) and "
                                   "the API versions the CRDs\nserve, unless --client.\n",
                          .sets = sets,
                          .nsets = UTIL_OPT_N(sets),
                          .word = NULL};
    (void)flags_parse(&f, &a);
    struct kc_flags kf = v.kf;
    bool client = v.client;
    char line[256];
    (void)printf("plugin: %s\n", util_version_line(line, sizeof(line), "kubectl-pgbench"));
    if (client)
        return 0;
    struct kc k;
    char err[1024];
    if (kc_open(&k, &kf, err, sizeof(err))) {
        (void)fprintf(stderr, "kubectl pgbench version: %s\n", err);
        return EXIT_CLUSTER;
    }
    int rc = print_operators(&k) < 0 ? EXIT_CLUSTER : 0;
    if (print_crd(&k, "benchmarkruns.pgbench.dev") || print_crd(&k, "benchmarksweeps.pgbench.dev"))
        rc = EXIT_CLUSTER;
    kc_close(&k);
    return rc;
}
