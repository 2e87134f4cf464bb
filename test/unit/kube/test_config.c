/* kubeconfig shapes as real tools write them, in-cluster config, and error messages. */
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
#include <unistd.h>

#include "pkg/kube/kube.h"

#define FIX "test/fixtures/kube/"

static struct kube_config *load_ok(const char *path, const char *ctx)
{
    char err[512] = "";
    struct kube_config *cfg = NULL;
    int rc = kube_config_from_file(path, ctx, &cfg, err, sizeof(err));
    if (rc != 0)
        print_error("unexpected error: %s\n", err);
    assert_int_equal(rc, 0);
    assert_non_null(cfg);
    return cfg;
}

static void load_err(const char *path, const char *ctx, int want_rc, const char *want1,
                     const char *want2)
{
    char err[512] = "";
    struct kube_config *cfg = (struct kube_config *)0x1;
    int rc = kube_config_from_file(path, ctx, &cfg, err, sizeof(err));
    assert_int_equal(rc, want_rc);
    assert_null(cfg);
    if (!strstr(err, want1) || (want2 && !strstr(err, want2)))
        fail_msg("error \"%s\" lacks \"%s\" / \"%s\"", err, want1, want2 ? want2 : "");
}

static void test_kind(void **state)
{
    (void)state;
    struct kube_config *cfg = load_ok(FIX "kind.yaml", NULL);
    assert_string_equal(cfg->server, "https://127.0.0.1:41827");
    assert_string_equal(cfg->context, "kind-kind");
    assert_string_equal(cfg->namespace, "default");
    assert_non_null(cfg->ca_data);
    assert_non_null(strstr(cfg->ca_data, "-----BEGIN CERTIFICATE-----"));
    assert_non_null(strstr(cfg->cert_data, "-----BEGIN CERTIFICATE-----"));
    assert_non_null(strstr(cfg->key_data, "PRIVATE KEY-----"));
    assert_null(cfg->token);
    assert_null(cfg->ca_file);
    assert_false(cfg->insecure_skip_tls_verify);
    assert_string_equal(cfg->source, FIX "kind.yaml");
    kube_config_free(cfg);
}

static void test_k3s(void **state)
{
    (void)state;
    struct kube_config *cfg = load_ok(FIX "k3s.yaml", NULL);
    assert_string_equal(cfg->server, "https://127.0.0.1:6443");
    assert_string_equal(cfg->context, "default");
    assert_non_null(cfg->cert_data);
    assert_non_null(cfg->key_data);
    kube_config_free(cfg);
}

static void test_eks_token(void **state)
{
    (void)state;
    struct kube_config *cfg = load_ok(FIX "eks.yaml", NULL);
    /* trailing slash dropped */
    assert_string_equal(cfg->server,
                        "https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com");
    assert_string_equal(cfg->namespace, "benchmarks");
    assert_non_null(cfg->token);
    assert_int_equal(strncmp(cfg->token, "eyJhbGci", 8), 0);
    assert_null(cfg->cert_data);
    kube_config_free(cfg);
}

static void test_gke_contexts(void **state)
{
    (void)state;
    struct kube_config *cfg = load_ok(FIX "gke.yaml", NULL);
    assert_string_equal(cfg->server, "https://34.118.0.10");
    assert_string_equal(cfg->token, "ya29.fake-access-token");
    kube_config_free(cfg);
    cfg = load_ok(FIX "gke.yaml", "lab");
    assert_string_equal(cfg->server, "https://10.0.0.1:443");
    assert_string_equal(cfg->namespace, "pg");
    assert_string_equal(cfg->token, "lab-token");
    assert_true(cfg->insecure_skip_tls_verify);
    assert_null(cfg->ca_data);
    kube_config_free(cfg);
    load_err(FIX "gke.yaml", "nope", -ENOENT, FIX "gke.yaml: contexts", "\"nope\" not found");
}

static void test_relative_paths(void **state)
{
    (void)state;
    struct kube_config *cfg = load_ok(FIX "relative/config", NULL);
    assert_string_equal(cfg->ca_file, FIX "relative/ca.crt");
    assert_string_equal(cfg->cert_file, FIX "relative/certs/client.crt");
    assert_string_equal(cfg->key_file, FIX "relative/certs/client.key");
    assert_string_equal(cfg->namespace, "dev");
    kube_config_free(cfg);
    cfg = load_ok(FIX "relative/config", "token");
    assert_string_equal(cfg->token_file, FIX "relative/token");
    assert_null(cfg->token);
    kube_config_free(cfg);
}

static void test_env_kubeconfig(void **state)
{
    (void)state;
    setenv("KUBECONFIG", FIX "eks.yaml:" FIX "kind.yaml", 1);
    struct kube_config *cfg = load_ok(NULL, NULL);
    assert_string_equal(cfg->source, FIX "eks.yaml");
    kube_config_free(cfg);
    /* kube_config_load prefers the kubeconfig from $KUBECONFIG over in-cluster */
    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    char err[256];
    assert_int_equal(kube_config_load(NULL, NULL, &cfg, err, sizeof(err)), 0);
    assert_string_equal(cfg->source, FIX "eks.yaml");
    kube_config_free(cfg);
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBECONFIG");
    /* ~/.kube/config */
    char home[] = "/tmp/kube-home-XXXXXX";
    assert_non_null(mkdtemp(home));
    char path[256];
    (void)snprintf(path, sizeof(path), "%s/.kube", home);
    assert_int_equal(mkdir(path, 0700), 0);
    (void)snprintf(path, sizeof(path), "%s/.kube/config", home);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    (void)fputs(
        "current-context: c\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:1'}}]\n"
        "contexts: [{name: c, context: {cluster: c}}]\n",
        f);
    (void)fclose(f);
    const char *old_home = getenv("HOME");
    char *saved = old_home ? strdup(old_home) : NULL;
    setenv("HOME", home, 1);
    cfg = load_ok(NULL, NULL);
    assert_string_equal(cfg->server, "http://127.0.0.1:1");
    assert_string_equal(cfg->source, path);
    kube_config_free(cfg);
    if (saved)
        setenv("HOME", saved, 1);
    free(saved);
    unlink(path);
    (void)snprintf(path, sizeof(path), "%s/.kube", home);
    rmdir(path);
    rmdir(home);
}

static void test_errors(void **state)
{
    (void)state;
    load_err(FIX "missing-server.yaml", NULL, -EINVAL,
             FIX "missing-server.yaml: clusters[c].cluster.server", "missing");
    load_err(FIX "missing-cluster.yaml", NULL, -ENOENT,
             FIX "missing-cluster.yaml: contexts[kind].context.cluster", "cluster \"x\" not found");
    load_err(FIX "bad-base64.yaml", NULL, -EINVAL,
             "bad-base64.yaml: clusters[c].cluster.certificate-authority-data", "invalid base64");
    load_err(FIX "missing-file.yaml", NULL, -ENOENT,
             "missing-file.yaml: clusters[c].cluster.certificate-authority",
             FIX "does-not-exist.crt");
    load_err(FIX "exec-only.yaml", NULL, -ENOTSUP, "exec-only.yaml: users[aws].user.exec",
             "not supported");
    load_err(FIX "malformed.yaml", NULL, -EINVAL, "malformed.yaml: line ", NULL);
    load_err(FIX "no-current-context.yaml", NULL, -EINVAL,
             "no-current-context.yaml: current-context", NULL);
    load_err(FIX "absent.yaml", NULL, -ENOENT, FIX "absent.yaml", "No such file");
}

static void test_from_yaml_shapes(void **state)
{
    (void)state;
    char err[256];
    struct kube_config *cfg = NULL;
    static const char cert_without_key[] =
        "current-context: c\n"
        "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
        "contexts: [{name: c, context: {cluster: c, user: u}}]\n"
        "users: [{name: u, user: {client-certificate-data: 'QUJD'}}]\n";
    assert_int_equal(kube_config_from_yaml(cert_without_key, sizeof(cert_without_key) - 1, "mem",
                                           NULL, &cfg, err, sizeof(err)),
                     -EINVAL);
    assert_non_null(strstr(err, "mem: users[u].user.client-key: missing"));
    static const char scalars[] = "current-context: c\n"
                                  "clusters:\n- name: c\n  cluster:\n    server: http://h:80//\n"
                                  "contexts:\n- name: c\n  context:\n    cluster: c\n"
                                  "    namespace: ~\n";
    assert_int_equal(
        kube_config_from_yaml(scalars, sizeof(scalars) - 1, "mem", NULL, &cfg, err, sizeof(err)),
        0);
    assert_string_equal(cfg->server, "http://h:80");
    assert_string_equal(cfg->namespace, "default");
    kube_config_free(cfg);
    static const char bad_type[] =
        "current-context: c\nclusters: {c: 1}\ncontexts: [{name: c, context: {cluster: c}}]\n";
    assert_int_equal(
        kube_config_from_yaml(bad_type, sizeof(bad_type) - 1, "mem", NULL, &cfg, err, sizeof(err)),
        -EINVAL);
    assert_non_null(strstr(err, "mem: clusters: expected a list"));
    static const char empty[] = "";
    assert_int_equal(kube_config_from_yaml(empty, 0, "mem", NULL, &cfg, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "empty document"));
}

static void write_file(const char *dir, const char *name, const char *content)
{
    char p[512];
    (void)snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    (void)fputs(content, f);
    (void)fclose(f);
}

static void rm_file(const char *dir, const char *name)
{
    char p[512];
    (void)snprintf(p, sizeof(p), "%s/%s", dir, name);
    unlink(p);
}

static void test_in_cluster(void **state)
{
    (void)state;
    char dir[] = "/tmp/kube-sa-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char err[512];
    struct kube_config *cfg = NULL;

    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    assert_int_equal(kube_config_in_cluster(dir, &cfg, err, sizeof(err)), -ENOENT);
    assert_non_null(strstr(err, "KUBERNETES_SERVICE_HOST"));

    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    assert_int_equal(kube_config_in_cluster(dir, &cfg, err, sizeof(err)), -ENOENT);
    assert_non_null(strstr(err, "/token"));

    write_file(dir, "token", "sa-token-1\n");
    assert_int_equal(kube_config_in_cluster(dir, &cfg, err, sizeof(err)), -ENOENT);
    assert_non_null(strstr(err, "/ca.crt"));

    write_file(dir, "ca.crt", "-----BEGIN CERTIFICATE-----\n");
    assert_int_equal(kube_config_in_cluster(dir, &cfg, err, sizeof(err)), 0);
    assert_string_equal(cfg->server, "https://10.96.0.1:443");
    assert_string_equal(cfg->token, "sa-token-1");
    assert_non_null(strstr(cfg->token_file, "/token"));
    assert_non_null(strstr(cfg->ca_file, "/ca.crt"));
    assert_string_equal(cfg->namespace, "default");
    assert_string_equal(cfg->source, "in-cluster");
    kube_config_free(cfg);

    write_file(dir, "namespace", "bench\n");
    setenv("KUBERNETES_SERVICE_HOST", "fd00:10:96::1", 1);
    assert_int_equal(kube_config_in_cluster(dir, &cfg, err, sizeof(err)), 0);
    assert_string_equal(cfg->server, "https://[fd00:10:96::1]:443");
    assert_string_equal(cfg->namespace, "bench");
    kube_config_free(cfg);

    setenv("KUBERNETES_SERVICE_PORT", "44x", 1);
    assert_int_equal(kube_config_in_cluster(dir, &cfg, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "KUBERNETES_SERVICE_PORT"));

    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    rm_file(dir, "token");
    rm_file(dir, "ca.crt");
    rm_file(dir, "namespace");
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind),           cmocka_unit_test(test_k3s),
        cmocka_unit_test(test_eks_token),      cmocka_unit_test(test_gke_contexts),
        cmocka_unit_test(test_relative_paths), cmocka_unit_test(test_env_kubeconfig),
        cmocka_unit_test(test_errors),         cmocka_unit_test(test_from_yaml_shapes),
        cmocka_unit_test(test_in_cluster),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
