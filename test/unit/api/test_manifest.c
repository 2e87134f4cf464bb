/* Manifests: golden checks of the fields that matter (names, owner, security, env, Job shape). */
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

#include "pkg/bench/runner_args.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"
#include "pkg/api/manifest.h"

static const char *br_json =
    "{\"apiVersion\":\"pgbench.dev/v1alpha1\",\"kind\":\"BenchmarkRun\",\"metadata\":{\"name\":"
    "\"b1\",\"namespace\":\"ns\",\"uid\":\"u-1\",\"generation\":1},\"spec\":{}}";

static struct api_spec spec_of(const char *json)
{
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    struct api_spec s;
    char err[512];
    int rc = api_spec_parse(j, &s, err, sizeof(err));
    if (rc)
        (void)fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    cJSON_Delete(j);
    return s;
}

static const char *str_at(const cJSON *o, const char *path)
{
    const char *s = util_jstr(o, path);
    if (!s)
        (void)fprintf(stderr, "missing %s\n", path);
    assert_non_null(s);
    return s;
}

static const cJSON *env_var(const cJSON *container, const char *name)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(container, "env"))
    {
        if (strcmp(util_jstr(e, "name"), name) == 0)
            return e;
    }
    return NULL;
}

static bool has_arg(const cJSON *args, const char *a, const char *next)
{
    int n = cJSON_GetArraySize(args);
    for (int i = 0; i < n; i++) {
        if (strcmp(cJSON_GetArrayItem(args, i)->valuestring, a) != 0)
            continue;
        if (!next)
            return true;
        const cJSON *v = cJSON_GetArrayItem(args, i + 1);
        if (v && strcmp(v->valuestring, next) == 0)
            return true;
    }
    return false;
}

static void test_run_job(void **state)
{
    (void)state;
    cJSON *br = cJSON_Parse(br_json);
    struct api_spec s = spec_of(
        "{\"target\":{\"host\":\"pg-rw\",\"port\":5433,\"database\":\"app\",\"user\":\"app\","
        "\"passwordSecretRef\":{\"name\":\"pg-app\",\"key\":\"pw\"}},\"workers\":3,\"workload\":"
        "{\"pgbench\":{\"run\":{\"clients\":7,\"threads\":4,\"durationSeconds\":60,\"scripts\":[{"
        "\"configMapRef\":{\"name\":\"cm\",\"key\":\"r.sql\"},\"weight\":2}]}}},"
        "\"ttlSecondsAfterFinished\":600,\"podTemplate\":{\"nodeSelector\":{\"pool\":\"bench\"},"
        "\"resources\":{\"limits\":{\"cpu\":\"1\"}}}}");
    struct api_config cfg;
    api_config_defaults(&cfg);
    cJSON *job = api_manifest_run_job(br, &s, &cfg, 1700000000);

    assert_string_equal(str_at(job, "apiVersion"), "batch/v1");
    assert_string_equal(str_at(job, "metadata.name"), "b1-run");
    assert_string_equal(str_at(job, "metadata.namespace"), "ns");
    const cJSON *labels = util_jget(job, "metadata.labels");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(labels, API_LABEL_RUN)->valuestring, "b1");
    const cJSON *own = cJSON_GetArrayItem(util_jget(job, "metadata.ownerReferences"), 0);
    assert_string_equal(str_at(own, "kind"), "BenchmarkRun");
    assert_string_equal(str_at(own, "uid"), "u-1");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(own, "controller")));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(own, "blockOwnerDeletion")));

    assert_string_equal(str_at(job, "spec.completionMode"), "Indexed");
    assert_int_equal(util_jnum(job, "spec.completions", 0), 3);
    assert_int_equal(util_jnum(job, "spec.parallelism", 0), 3);
    assert_int_equal(util_jnum(job, "spec.backoffLimit", -1), 0);
    assert_int_equal(util_jnum(job, "spec.ttlSecondsAfterFinished", 0), 600);
    /* replicaLag is on by default: the runner may wait that long for replay to catch up */
    assert_true(s.replica_lag);
    /* the run's timeout from the barrier: 60 s + 300 s catch-up + 10 min = 960 s; the Job's
     * deadline counts from its start, 10 s earlier, and leaves the runner 15 s to report */
    assert_int_equal(api_run_timeout(&s, &cfg), 960);
    assert_int_equal(util_jnum(job, "spec.activeDeadlineSeconds", 0), 10 + 960 + 15);
    const cJSON *c0 = cJSON_GetArrayItem(util_jget(job, "spec.template.spec.containers"), 0);
    assert_string_equal(util_jstr(env_var(c0, "BENCH_DEADLINE_AT"), "value"), "1700000960");

    const cJSON *pod = util_jget(job, "spec.template.spec");
    const cJSON *tl = util_jget(job, "spec.template.metadata.labels");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(tl, API_LABEL_RUN)->valuestring, "b1");
    assert_string_equal(str_at(pod, "restartPolicy"), "Never");
    assert_true(cJSON_IsTrue(util_jget(pod, "securityContext.runAsNonRoot")));
    assert_int_equal(util_jnum(pod, "securityContext.runAsUser", 0), API_RUNNER_UID);
    assert_string_equal(str_at(pod, "securityContext.seccompProfile.type"), "RuntimeDefault");
    assert_string_equal(str_at(pod, "nodeSelector.pool"), "bench");
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pod, "containers"), 0);
    assert_string_equal(str_at(c, "name"), "runner");
    assert_string_equal(str_at(c, "image"), cfg.runner_image);
    assert_string_equal(cJSON_GetArrayItem(util_jget(c, "command"), 0)->valuestring,
                        "/usr/local/bin/pgbench-runner");
    assert_true(cJSON_IsFalse(util_jget(c, "securityContext.allowPrivilegeEscalation")));
    assert_true(cJSON_IsTrue(util_jget(c, "securityContext.readOnlyRootFilesystem")));
    assert_string_equal(
        cJSON_GetArrayItem(util_jget(c, "securityContext.capabilities.drop"), 0)->valuestring,
        "ALL");
    assert_string_equal(str_at(c, "terminationMessagePolicy"), "FallbackToLogsOnError");
    assert_string_equal(str_at(c, "resources.limits.cpu"), "1");

    /* connection env: plain values, password only through secretKeyRef */
    assert_string_equal(str_at(env_var(c, "PGHOST"), "value"), "pg-rw");
    assert_string_equal(str_at(env_var(c, "PGPORT"), "value"), "5433");
    assert_string_equal(str_at(env_var(c, "PGDATABASE"), "value"), "app");
    assert_string_equal(str_at(env_var(c, "PGUSER"), "value"), "app");
    assert_string_equal(str_at(env_var(c, "PGSSLMODE"), "value"), "prefer");
    const cJSON *pw = env_var(c, "PGPASSWORD");
    assert_null(cJSON_GetObjectItemCaseSensitive(pw, "value"));
    assert_string_equal(str_at(pw, "valueFrom.secretKeyRef.name"), "pg-app");
    assert_string_equal(str_at(pw, "valueFrom.secretKeyRef.key"), "pw");
    /* the start barrier comes later, in a downwardAPI file of the pod's annotation */
    assert_null(env_var(c, "BENCH_START_AT"));
    assert_string_equal(str_at(env_var(c, "BENCH_START_AT_FILE"), "value"),
                        "/etc/pgbench/start/start-at");
    assert_string_equal(str_at(env_var(c, "BENCH_CLIENTS_BY_INDEX"), "value"), "3,2,2");

    const cJSON *args = util_jget(c, "args");
    assert_string_equal(cJSON_GetArrayItem(args, 0)->valuestring, "pgbench");
    assert_string_equal(cJSON_GetArrayItem(args, 1)->valuestring, "run");
    assert_true(has_arg(args, "--clients", "3"));
    assert_true(has_arg(args, "--threads", "3"));
    assert_true(has_arg(args, "--duration", "60"));
    assert_true(has_arg(args, "--script", "/etc/pgbench/scripts/0/r.sql@2"));
    assert_false(has_arg(args, "--builtin", NULL));  /* scripts only */
    assert_false(has_arg(args, "--progress", NULL)); /* the default, left to the runner */
    assert_true(has_arg(args, "--wait-events", NULL));

    /* /tmp is an emptyDir (read-only root), the script ConfigMap is mounted */
    bool tmp = false, script = false;
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(pod, "volumes"))
    {
        if (strcmp(str_at(v, "name"), "tmp") == 0 && util_jget(v, "emptyDir"))
            tmp = true;
        if (util_jstr(v, "configMap.name") && strcmp(util_jstr(v, "configMap.name"), "cm") == 0)
            script = true;
    }
    assert_true(tmp);
    assert_true(script);
    /* the start barrier's file: a downwardAPI volume of the annotation, mounted read-only */
    char *vt = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(pod, "volumes"));
    assert_non_null(strstr(vt, "{\"name\":\"start\",\"downwardAPI\":{\"items\":[{\"path\":"
                               "\"start-at\",\"fieldRef\":{\"fieldPath\":\"metadata.annotations["
                               "'pgbench.dev/start-at']\"}}]}}"));
    free(vt);
    vt = cJSON_PrintUnformatted(util_jget(c, "volumeMounts"));
    assert_non_null(strstr(vt, "{\"name\":\"start\",\"mountPath\":\"/etc/pgbench/start\","
                               "\"readOnly\":true}"));
    free(vt);
    /* no secret value anywhere in the manifest */
    char *txt = cJSON_PrintUnformatted(job);
    assert_null(strstr(txt, "\"value\":\"secret"));
    free(txt);

    cJSON_Delete(job);
    api_spec_free(&s);
    cJSON_Delete(br);
}

/* The env var's secretKeyRef as "secret/key"; fails when it also has a literal value. */
static const char *secret_key_of(const cJSON *container, const char *name, char *out, size_t n)
{
    const cJSON *e = env_var(container, name);
    assert_non_null(e);
    assert_null(cJSON_GetObjectItemCaseSensitive(e, "value"));
    (void)snprintf(out, n, "%s/%s", str_at(e, "valueFrom.secretKeyRef.name"),
                   str_at(e, "valueFrom.secretKeyRef.key"));
    return out;
}

/* Issue 15.6: with target.cnpg the role is the Secret's username (a Cluster bootstrapped with
 * another owner), never a literal app/postgres; the operator never reads the Secret. */
static void test_cnpg_user_from_secret(void **state)
{
    (void)state;
    cJSON *br = cJSON_Parse(br_json);
    struct api_config cfg;
    api_config_defaults(&cfg);
    static const struct {
        const char *target, *user_ref, *password_ref, *user;
    } cases[] = {
        {"{\"cnpg\":{\"clusterName\":\"pg\"}}", "pg-app/username", "pg-app/password", NULL},
        {"{\"cnpg\":{\"clusterName\":\"pg\",\"secret\":\"superuser\"}}", "pg-superuser/username",
         "pg-superuser/password", NULL},
        {"{\"cnpg\":{\"clusterName\":\"pg\"},\"user\":\"bench\"}", NULL, "pg-app/password",
         "bench"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char json[512], ref[600];
        (void)snprintf(json, sizeof(json),
                       "{\"target\":%s,\"workload\":{\"pgbench\":{\"init\":{\"scale\":1},"
                       "\"run\":{\"durationSeconds\":5}}}}",
                       cases[i].target);
        struct api_spec s = spec_of(json);
        cJSON *jobs[] = {api_manifest_init_job(br, &s, &cfg),
                         api_manifest_run_job(br, &s, &cfg, 1700000000)};
        for (size_t j = 0; j < 2; j++) {
            const cJSON *c =
                cJSON_GetArrayItem(util_jget(jobs[j], "spec.template.spec.containers"), 0);
            if (cases[i].user_ref)
                assert_string_equal(secret_key_of(c, "PGUSER", ref, sizeof(ref)),
                                    cases[i].user_ref);
            else
                assert_string_equal(str_at(env_var(c, "PGUSER"), "value"), cases[i].user);
            assert_string_equal(secret_key_of(c, "PGPASSWORD", ref, sizeof(ref)),
                                cases[i].password_ref);
            assert_string_equal(str_at(env_var(c, "PGDATABASE"), "value"), "app");
            assert_false(has_arg(util_jget(c, "args"), "--user", NULL));
            char *text = cJSON_PrintUnformatted(jobs[j]);
            assert_null(strstr(text, "\"value\":\"postgres\"")); /* no guessed role */
            free(text);
            cJSON_Delete(jobs[j]);
        }
        api_spec_free(&s);
    }
    cJSON_Delete(br);
}

static void test_init_job_and_transactions(void **state)
{
    (void)state;
    cJSON *br = cJSON_Parse(br_json);
    struct api_spec s =
        spec_of("{\"target\":{\"host\":\"pg\",\"user\":\"u\",\"createDatabase\":true},"
                "\"workload\":{\"pgbench\":{\"init\":{\"scale\":20,\"foreignKeys\":true},"
                "\"run\":{\"transactions\":100}}}}");
    struct api_config cfg;
    api_config_defaults(&cfg);
    cJSON *job = api_manifest_init_job(br, &s, &cfg);
    assert_string_equal(str_at(job, "metadata.name"), "b1-init");
    assert_int_equal(util_jnum(job, "spec.completions", 0), 1);
    assert_int_equal(util_jnum(job, "spec.activeDeadlineSeconds", 0), 6 * 3600); /* default */
    assert_int_equal(util_jnum(job, "spec.backoffLimit", -1), 0);
    const cJSON *c = cJSON_GetArrayItem(util_jget(job, "spec.template.spec.containers"), 0);
    const cJSON *args = util_jget(c, "args");
    assert_true(has_arg(args, "init", NULL));
    assert_true(has_arg(args, "--scale", "20"));
    assert_true(has_arg(args, "--foreign-keys", NULL));
    assert_true(has_arg(args, "--skip-if-initialized", NULL));
    assert_true(has_arg(args, "--create-database", NULL));
    assert_null(env_var(c, "PGPASSWORD")); /* no Secret given */
    cJSON_Delete(job);

    job = api_manifest_run_job(br, &s, &cfg, 5);
    /* a transactions run has no expected end: 24 h from the barrier (5) */
    assert_int_equal(util_jnum(job, "spec.activeDeadlineSeconds", 0), 10 + 86400 + 15);
    c = cJSON_GetArrayItem(util_jget(job, "spec.template.spec.containers"), 0);
    assert_string_equal(util_jstr(env_var(c, "BENCH_DEADLINE_AT"), "value"), "86405");
    assert_true(has_arg(util_jget(c, "args"), "--transactions", "100"));
    assert_true(has_arg(util_jget(c, "args"), "--builtin", "tpcb-like"));
    assert_null(env_var(c, "BENCH_CLIENTS_BY_INDEX"));
    cJSON_Delete(job);
    api_spec_free(&s);
    cJSON_Delete(br);
}

/* target.connectRetrySeconds counts from the run's creation: the first Job that connects (the
 * init's, else the run's) gets --wait-from creationTimestamp; a run Job after an init, which
 * reached the target, counts from its own start; an object not created yet has none. */
static void test_wait_from_creation(void **state)
{
    (void)state;
    const char *created = "2026-12-07T23:00:00Z";
    cJSON *br = cJSON_Parse(br_json);
    util_jset_str(util_must(cJSON_GetObjectItemCaseSensitive(br, "metadata")), "creationTimestamp",
                  created);
    struct api_config cfg;
    api_config_defaults(&cfg);
    struct api_spec init =
        spec_of("{\"target\":{\"host\":\"pg\",\"user\":\"u\",\"connectRetrySeconds\":45},"
                "\"workload\":{\"pgbench\":{\"init\":{\"scale\":1},"
                "\"run\":{\"transactions\":10}}}}");
    struct api_spec plain = spec_of("{\"target\":{\"host\":\"pg\",\"user\":\"u\"},"
                                    "\"workload\":{\"pgbench\":{\"run\":{\"transactions\":10}}}}");
    cJSON *jobs[] = {api_manifest_init_job(br, &init, &cfg),
                     api_manifest_run_job(br, &init, &cfg, 5),
                     api_manifest_run_job(br, &plain, &cfg, 5)};
    const bool want[] = {true, false, true};
    const char *timeout[] = {"45", "45", "30"};
    for (int i = 0; i < 3; i++) {
        const cJSON *c = cJSON_GetArrayItem(util_jget(jobs[i], "spec.template.spec.containers"), 0);
        const cJSON *args = util_jget(c, "args");
        assert_true(has_arg(args, "--wait-timeout", timeout[i]));
        assert_int_equal(has_arg(args, "--wait-from", created), want[i]);
        assert_int_equal(has_arg(args, "--wait-from", NULL), want[i]);
        cJSON_Delete(jobs[i]);
    }
    /* not created yet (the plugin's dry run): the runner's own start */
    cJSON_DeleteItemFromObjectCaseSensitive(
        util_must(cJSON_GetObjectItemCaseSensitive(br, "metadata")), "creationTimestamp");
    cJSON *job = api_manifest_run_job(br, &plain, &cfg, 5);
    const cJSON *c = cJSON_GetArrayItem(util_jget(job, "spec.template.spec.containers"), 0);
    assert_false(has_arg(util_jget(c, "args"), "--wait-from", NULL));
    cJSON_Delete(job);
    api_spec_free(&init);
    api_spec_free(&plain);
    cJSON_Delete(br);
}

/* the rate is a total like clients: each pod gets its share, as a plain decimal */
static void test_run_job_rate_split(void **state)
{
    (void)state;
    cJSON *br = cJSON_Parse(br_json);
    struct api_config cfg;
    api_config_defaults(&cfg);
    struct api_spec s =
        spec_of("{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workers\":4,\"workload\":{"
                "\"pgbench\":{\"run\":{\"clients\":10,\"durationSeconds\":5,\"rate\":1000}}}}");
    cJSON *job = api_manifest_run_job(br, &s, &cfg, 5);
    const cJSON *c = cJSON_GetArrayItem(util_jget(job, "spec.template.spec.containers"), 0);
    assert_true(has_arg(util_jget(c, "args"), "--rate", "250")); /* not "1e+03", not 1000 */
    assert_string_equal(str_at(env_var(c, "BENCH_RATE_BY_INDEX"), "value"), "250,250,250,250");
    assert_string_equal(str_at(env_var(c, "BENCH_CLIENTS_BY_INDEX"), "value"), "3,3,2,2");
    cJSON_Delete(job);
    api_spec_free(&s);
    s = spec_of("{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workers\":3,\"workload\":{"
                "\"pgbench\":{\"run\":{\"clients\":3,\"durationSeconds\":5,\"rate\":10}}}}");
    job = api_manifest_run_job(br, &s, &cfg, 5);
    c = cJSON_GetArrayItem(util_jget(job, "spec.template.spec.containers"), 0);
    assert_true(has_arg(util_jget(c, "args"), "--rate", "3.334"));
    assert_string_equal(str_at(env_var(c, "BENCH_RATE_BY_INDEX"), "value"), "3.334,3.333,3.333");
    cJSON_Delete(job);
    api_spec_free(&s);
    cJSON_Delete(br);
}

/* spec.placement on the run Job's pods; the init Job's pod is not a worker and gets none. */
static void test_run_job_placement(void **state)
{
    (void)state;
    cJSON *br = cJSON_Parse(br_json);
    struct api_config cfg;
    api_config_defaults(&cfg);
    static const char *const target =
        "{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workers\":4,\"workload\":{\"pgbench\":{"
        "\"init\":{\"scale\":1},\"run\":{\"clients\":4,\"durationSeconds\":5}}}";
    static const char *const workers =
        "{\"matchLabels\":{\"pgbench.dev/benchmarkrun\":\"b1\",\"pgbench.dev/role\":\"run\"}}";
    static const struct {
        const char *placement, *tsc, *affinity;
    } cases[] = {
        {"", /* the default: spread */
         "[{\"maxSkew\":1,\"topologyKey\":\"kubernetes.io/hostname\",\"whenUnsatisfiable\":"
         "\"ScheduleAnyway\",\"labelSelector\":@W}]",
         NULL},
        {",\"placement\":{\"mode\":\"spread\"}",
         "[{\"maxSkew\":1,\"topologyKey\":\"kubernetes.io/hostname\",\"whenUnsatisfiable\":"
         "\"ScheduleAnyway\",\"labelSelector\":@W}]",
         NULL},
        /* pack: added to the podTemplate's own affinity, which stays */
        {",\"placement\":{\"mode\":\"pack\"},\"podTemplate\":{\"affinity\":{\"nodeAffinity\":{"
         "\"preferredDuringSchedulingIgnoredDuringExecution\":[]}}}",
         NULL,
         "{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[]},"
         "\"podAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":100,"
         "\"podAffinityTerm\":{\"labelSelector\":@W,\"topologyKey\":\"kubernetes.io/hostname\"}}]}"
         "}"},
        /* custom: as written; a constraint without labelSelector counts the run's workers */
        {",\"placement\":{\"mode\":\"custom\",\"topologySpreadConstraints\":[{\"maxSkew\":2,"
         "\"topologyKey\":\"topology.kubernetes.io/zone\",\"whenUnsatisfiable\":\"DoNotSchedule\","
         "\"minDomains\":3},{\"maxSkew\":1,\"topologyKey\":\"kubernetes.io/hostname\","
         "\"whenUnsatisfiable\":\"ScheduleAnyway\",\"labelSelector\":{\"matchLabels\":{\"app\":"
         "\"x\"}}}]}",
         "[{\"maxSkew\":2,\"topologyKey\":\"topology.kubernetes.io/zone\",\"whenUnsatisfiable\":"
         "\"DoNotSchedule\",\"minDomains\":3,\"labelSelector\":@W},{\"maxSkew\":1,\"topologyKey\":"
         "\"kubernetes.io/hostname\",\"whenUnsatisfiable\":\"ScheduleAnyway\",\"labelSelector\":"
         "{\"matchLabels\":{\"app\":\"x\"}}}]",
         NULL},
        {",\"placement\":{\"mode\":\"custom\"}", NULL, NULL}, /* none at all */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char json[2048], want[2048];
        (void)snprintf(json, sizeof(json), "%s%s}", target, cases[i].placement);
        struct api_spec s = spec_of(json);
        cJSON *job = api_manifest_run_job(br, &s, &cfg, 5);
        const cJSON *ps = util_jget(job, "spec.template.spec");
        const cJSON *tsc = cJSON_GetObjectItemCaseSensitive(ps, "topologySpreadConstraints");
        const cJSON *aff = cJSON_GetObjectItemCaseSensitive(ps, "affinity");
        const struct {
            const char *fmt; /* the JSON wanted, @W standing for the worker selector */
            const cJSON *got;
        } parts[] = {{cases[i].tsc, tsc}, {cases[i].affinity, aff}};
        for (size_t k = 0; k < 2; k++) {
            if (!parts[k].fmt) {
                assert_null(parts[k].got);
                continue;
            }
            const char *at = strstr(parts[k].fmt, "@W"); /* the run's worker selector */
            (void)snprintf(want, sizeof(want), "%.*s%s%s", (int)(at - parts[k].fmt), parts[k].fmt,
                           workers, at + 2);
            cJSON *w = cJSON_Parse(want);
            assert_non_null(w);
            char *got = cJSON_PrintUnformatted(parts[k].got);
            if (!cJSON_Compare(w, parts[k].got, 1))
                fail_msg("case %zu part %zu: %s\n  want %s", i, k, got ? got : "(none)", want);
            free(got);
            cJSON_Delete(w);
        }
        cJSON *init = api_manifest_init_job(br, &s, &cfg);
        assert_null(util_jget(init, "spec.template.spec.topologySpreadConstraints"));
        assert_null(util_jget(init, "spec.template.spec.affinity.podAffinity"));
        cJSON_Delete(init);
        cJSON_Delete(job);
        api_spec_free(&s);
    }
    cJSON_Delete(br);
}

/* spec.timeoutSeconds replaces every phase's default */
static void test_timeout_seconds(void **state)
{
    (void)state;
    cJSON *br = cJSON_Parse(br_json);
    struct api_spec s = spec_of("{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"timeoutSeconds\":"
                                "90,\"workload\":{\"pgbench\":{\"init\":{\"scale\":1},"
                                "\"run\":{\"transactions\":100000000}}}}");
    struct api_config cfg;
    api_config_defaults(&cfg);
    assert_int_equal(s.timeout_s, 90);
    cJSON *job = api_manifest_init_job(br, &s, &cfg);
    assert_int_equal(util_jnum(job, "spec.activeDeadlineSeconds", 0), 90);
    cJSON_Delete(job);
    job = api_manifest_run_job(br, &s, &cfg, 1000);
    assert_int_equal(util_jnum(job, "spec.activeDeadlineSeconds", 0), 10 + 90 + 15);
    const cJSON *c = cJSON_GetArrayItem(util_jget(job, "spec.template.spec.containers"), 0);
    assert_string_equal(util_jstr(env_var(c, "BENCH_DEADLINE_AT"), "value"), "1090");
    cJSON_Delete(job);
    api_spec_free(&s);
    cJSON_Delete(br);
}

static void test_fio_and_hpa(void **state)
{
    (void)state;
    cJSON *br = cJSON_Parse(br_json);
    struct api_spec s = spec_of(
        "{\"workload\":{\"fio\":{\"storageClassName\":\"fast\",\"volumeSize\":\"5Gi\",\"jobs\":[{"
        "\"name\":\"wal\",\"rw\":\"write\",\"bs\":\"8k\",\"fdatasync\":1,\"runtimeSeconds\":30},"
        "{\"name\":\"rr\",\"rw\":\"randread\",\"runtimeSeconds\":20}]}}}");
    struct api_config cfg;
    api_config_defaults(&cfg);
    cJSON *pvc = api_manifest_fio_pvc(br, &s);
    assert_string_equal(str_at(pvc, "metadata.name"), "b1-fio");
    assert_string_equal(str_at(pvc, "spec.storageClassName"), "fast");
    assert_string_equal(str_at(pvc, "spec.resources.requests.storage"), "5Gi");
    assert_non_null(util_jget(pvc, "metadata.ownerReferences"));
    cJSON_Delete(pvc);
    cJSON *job = api_manifest_run_job(br, &s, &cfg, 5);
    /* the fio jobs' 30 + 20 s + 10 min, no replica wait; fio stops by itself (no deadline env) */
    assert_int_equal(util_jnum(job, "spec.activeDeadlineSeconds", 0), 10 + 650 + 15);
    const cJSON *c = cJSON_GetArrayItem(util_jget(job, "spec.template.spec.containers"), 0);
    assert_null(env_var(c, "BENCH_DEADLINE_AT"));
    const cJSON *args = util_jget(c, "args");
    assert_true(has_arg(args, "fio", NULL));
    assert_true(has_arg(args, "--directory", "/data"));
    assert_true(has_arg(args, "--name", "wal"));
    assert_true(has_arg(args, "--job", "rr"));
    assert_true(has_arg(args, "--fdatasync", "1"));
    assert_null(env_var(c, "PGHOST"));
    cJSON_Delete(job);
    api_spec_free(&s);

    s = spec_of("{\"workload\":{\"fio\":{\"keepVolume\":true,\"jobs\":[{\"name\":\"a\"}]}}}");
    pvc = api_manifest_fio_pvc(br, &s);
    assert_null(util_jget(pvc, "metadata.ownerReferences")); /* kept after the run */
    assert_null(util_jget(pvc, "spec.storageClassName"));    /* cluster default */
    cJSON_Delete(pvc);
    api_spec_free(&s);

    s = spec_of("{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workload\":{\"pgbench\":{\"run\":"
                "{\"durationSeconds\":5}}},\"hpa\":{\"scaleTargetRef\":{\"apiVersion\":"
                "\"apps/v1\",\"kind\":\"StatefulSet\",\"name\":\"pg-replicas\"},\"minReplicas\":"
                "1,\"maxReplicas\":4,\"targetCPUUtilizationPercentage\":60,\"behavior\":{"
                "\"scaleUp\":{\"stabilizationWindowSeconds\":0}}}}");
    cJSON *h = api_manifest_hpa(br, &s);
    assert_string_equal(str_at(h, "apiVersion"), "autoscaling/v2");
    assert_string_equal(str_at(h, "metadata.name"), "b1-hpa");
    assert_string_equal(str_at(h, "spec.scaleTargetRef.kind"), "StatefulSet");
    assert_string_equal(str_at(h, "spec.scaleTargetRef.name"), "pg-replicas");
    assert_int_equal(util_jnum(h, "spec.maxReplicas", 0), 4);
    const cJSON *m = cJSON_GetArrayItem(util_jget(h, "spec.metrics"), 0);
    assert_string_equal(str_at(m, "resource.name"), "cpu");
    assert_int_equal(util_jnum(m, "resource.target.averageUtilization", 0), 60);
    assert_int_equal(util_jnum(h, "spec.behavior.scaleUp.stabilizationWindowSeconds", -1), 0);
    cJSON_Delete(h);
    api_spec_free(&s);
    cJSON_Delete(br);
}

static void test_user_security_context_cannot_escalate(void **state)
{
    (void)state;
    cJSON *br = cJSON_Parse(br_json);
    struct api_spec s =
        spec_of("{\"target\":{\"host\":\"pg\",\"user\":\"u\"},\"workload\":{\"pgbench\":{\"run\":{"
                "\"durationSeconds\":5}}},\"podTemplate\":{\"securityContext\":{\"runAsUser\":1000,"
                "\"fsGroup\":2000}}}");
    struct api_config cfg;
    api_config_defaults(&cfg);
    cJSON *job = api_manifest_run_job(br, &s, &cfg, 5);
    const cJSON *psc = util_jget(job, "spec.template.spec.securityContext");
    assert_int_equal(util_jnum(psc, "runAsUser", 0), 1000);
    assert_int_equal(util_jnum(psc, "fsGroup", 0), 2000);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(psc, "runAsNonRoot")));
    assert_string_equal(str_at(psc, "seccompProfile.type"), "RuntimeDefault");
    cJSON_Delete(job);
    api_spec_free(&s);
    cJSON_Delete(br);
}

/* ---------------------------------------------------------------------------------------------
 * The manifests' runner command lines, read back by the runner's own parser: every spec field
 * arrives, and specs at the edges of the spec's ranges stay inside the runner's (the spec
 * validation is what keeps the infallible builder's input valid).
 * ------------------------------------------------------------------------------------------- */

/* The container's args as an argv for bench_runner_parse (argv[0] = the last subcommand word).
 * The strings are borrowed from job. */
static int runner_argv(const cJSON *job, enum bench_runner_cmd cmd, char **argv, int cap)
{
    const cJSON *c = cJSON_GetArrayItem(util_jget(job, "spec.template.spec.containers"), 0);
    const cJSON *args = util_jget(c, "args");
    int skip = cmd == BENCH_RUNNER_FIO ? 0 : 1; /* "pgbench" before "run"/"init" */
    int n = 0;
    for (int i = skip; i < cJSON_GetArraySize(args) && n < cap - 1; i++)
        argv[n++] = cJSON_GetArrayItem(args, i)->valuestring;
    argv[n] = NULL;
    return n;
}

static void parse_back(const cJSON *job, enum bench_runner_cmd cmd, void *out)
{
    char *argv[256];
    int argc = runner_argv(job, cmd, argv, 256);
    char err[512] = "";
    int rc = bench_runner_parse(cmd, argc, argv, out, err, sizeof(err));
    if (rc)
        fail_msg("the runner refuses the manifest's args: %s", err);
}

static void check_run_args(const char *json)
{
    cJSON *br = cJSON_Parse(br_json);
    struct api_spec s = spec_of(json);
    struct api_config cfg;
    api_config_defaults(&cfg);
    cJSON *job = api_manifest_run_job(br, &s, &cfg, 5);
    struct bench_runner_run r;
    parse_back(job, BENCH_RUNNER_PGBENCH_RUN, &r);
    assert_int_equal(r.pg.clients, api_worker_clients(s.clients, s.workers, 0));
    assert_int_equal(r.pg.threads, api_worker_threads(s.threads, s.clients, s.workers, 0));
    assert_int_equal(r.pg.duration_s, s.duration_s);
    assert_int_equal(r.pg.transactions, s.transactions);
    if (s.builtin)
        assert_string_equal(r.pg.builtin, s.builtin);
    else
        assert_null(r.pg.builtin);
    /* weights as given, 0 included; the builtin's only beside scripts */
    assert_int_equal(r.pg.builtin_weight,
                     s.builtin && s.n_scripts > 0 ? s.builtin_weight : BENCH_PGBENCH_UNSET);
    assert_int_equal(r.pg.nscripts, s.n_scripts);
    for (int i = 0; i < s.n_scripts; i++) {
        char path[320];
        (void)snprintf(path, sizeof(path), "/etc/pgbench/scripts/%d/%s", i, s.scripts[i].key);
        assert_string_equal(r.pg.scripts[i].path, path);
        assert_int_equal(r.pg.scripts[i].weight, s.scripts[i].weight);
    }
    assert_string_equal(bench_protocol_name(r.pg.protocol), s.protocol);
    assert_true(r.pg.rate == api_worker_rate(s.rate, s.workers, 0));
    assert_true(r.pg.latency_limit_ms == s.latency_limit_ms);
    assert_int_equal(r.pg.no_vacuum, s.no_vacuum);
    assert_int_equal(r.pg.connect, s.connect);
    /* 1 is pgbench's default and not passed (images with pgbench < 15 have no --max-tries);
     * 0 (unlimited) is */
    assert_int_equal(r.pg.max_tries, s.max_tries == 1 ? BENCH_PGBENCH_UNSET : s.max_tries);
    assert_int_equal(r.pg.failures_detailed, s.failures_detailed);
    assert_int_equal(r.pg.per_statement, s.per_statement);
    assert_int_equal(r.pg.progress_s, s.progress_s);
    assert_int_equal(r.wait_events, s.wait_events);
    assert_int_equal(r.server_settings, s.server_settings);
    assert_int_equal(r.replica_lag, s.replica_lag);
    if (s.replica_lag)
        assert_true(r.replica_timeout_s == s.replica_timeout_s);
    assert_int_equal(r.pg.nextra, s.n_extra_args);
    for (int i = 0; i < s.n_extra_args; i++)
        assert_string_equal(r.pg.extra_args[i], s.extra_args[i]);
    bench_runner_cleanup(BENCH_RUNNER_PGBENCH_RUN, &r);
    cJSON_Delete(job);

    if (s.init) {
        job = api_manifest_init_job(br, &s, &cfg);
        struct bench_runner_init in;
        parse_back(job, BENCH_RUNNER_PGBENCH_INIT, &in);
        assert_int_equal(in.pg.scale, s.scale);
        assert_int_equal(in.pg.partitions, s.partitions);
        assert_int_equal(in.pg.foreign_keys, s.foreign_keys);
        assert_int_equal(in.skip_if_initialized, s.skip_if_initialized);
        assert_int_equal(in.common.create_database, s.create_database);
        assert_true(!s.init_generation == !in.pg.generation);
        if (s.init_generation && in.pg.generation)
            assert_string_equal(in.pg.generation, s.init_generation);
        assert_true(!s.init_steps == !in.pg.steps);
        if (s.init_steps && in.pg.steps)
            assert_string_equal(in.pg.steps, s.init_steps);
        assert_int_equal(in.pg.fillfactor, s.init_fillfactor);
        assert_int_equal(in.pg.unlogged_tables, s.init_unlogged);
        assert_true(!s.init_tablespace == !in.pg.tablespace);
        assert_true(!s.init_index_tablespace == !in.pg.index_tablespace);
        assert_int_equal(in.pg.nextra, 0);
        bench_runner_cleanup(BENCH_RUNNER_PGBENCH_INIT, &in);
        cJSON_Delete(job);
    }
    api_spec_free(&s);
    cJSON_Delete(br);
}

#define TGT "\"target\":{\"host\":\"pg\",\"user\":\"u\",\"createDatabase\":true}"

static void test_run_args_parse_back(void **state)
{
    (void)state;
    /* every field at the top of its spec range */
    char json[8192];
    int n = snprintf(json, sizeof(json),
                     "{" TGT ",\"diagnostics\":{\"replicaLag\":true,\"waitEvents\":true,"
                     "\"serverSettings\":true,\"replicaCatchUpTimeoutSeconds\":86400},"
                     "\"workload\":{\"pgbench\":{\"init\":{\"scale\":100000,\"partitions\":10000,"
                     "\"foreignKeys\":true,\"skipIfInitialized\":true,\"generation\":\"client\","
                     "\"steps\":\"dtgvpf\",\"fillfactor\":100,\"unloggedTables\":true,"
                     "\"tablespace\":\"ts1\",\"indexTablespace\":\"ts2\"},\"run\":{\"clients\":"
                     "100000,\"threads\":1024,\"durationSeconds\":604800,\"builtin\":"
                     "\"select-only\",\"builtinWeight\":1000,\"protocol\":\"prepared\",\"rate\":"
                     "1e9,\"latencyLimitMs\":3.6e6,\"noVacuum\":true,\"connect\":true,"
                     "\"maxTries\":1000000,\"failuresDetailed\":true,\"perStatementLatencies\":"
                     "true,\"progressSeconds\":3600,\"scripts\":[");
    for (int i = 0; i < API_MAX_SCRIPTS; i++)
        n += snprintf(json + n, sizeof(json) - (size_t)n,
                      "%s{\"configMapRef\":{\"name\":\"cm\",\"key\":\"s%d.sql\"},\"weight\":1000}",
                      i ? "," : "", i);
    n += snprintf(json + n, sizeof(json) - (size_t)n, "],\"extraArgs\":[");
    for (int i = 0; i < API_MAX_EXTRA_ARGS; i++)
        n += snprintf(json + n, sizeof(json) - (size_t)n, "%s\"-Dv%d=%d\"", i ? "," : "", i, i);
    (void)snprintf(json + n, sizeof(json) - (size_t)n, "]}}}}");
    check_run_args(json);

    /* transactions at the top, odd numbers, several workers */
    check_run_args("{" TGT ",\"workers\":3,\"workload\":{\"pgbench\":{\"run\":{\"clients\":7,"
                   "\"threads\":5,\"transactions\":1000000000,\"rate\":0.1,\"latencyLimitMs\":"
                   "2.75,\"protocol\":\"extended\",\"builtin\":\"simple-update\",\"extraArgs\":["
                   "\"--define\",\"a=b\",\"--continue-on-error\",\"-s\",\"10\"]}}}}");

    /* every field at the bottom of its range (or off) */
    check_run_args(
        "{" TGT ",\"diagnostics\":{\"replicaLag\":true,\"waitEvents\":false,"
        "\"serverSettings\":false,\"replicaCatchUpTimeoutSeconds\":0},\"workload\":{\"pgbench\":"
        "{\"init\":{\"scale\":1,\"partitions\":0,\"fillfactor\":10,\"generation\":\"server\"},"
        "\"run\":{\"clients\":1,\"threads\":1,"
        "\"durationSeconds\":1,\"builtin\":\"tpcb-like\",\"builtinWeight\":0,\"maxTries\":0,"
        "\"progressSeconds\":1,\"scripts\":[{\"configMapRef\":{\"name\":\"cm\",\"key\":\"k\"},"
        "\"weight\":0},{\"configMapRef\":{\"name\":\"cm\",\"key\":\"l\"},\"weight\":1}]}}}}");
}

static void test_fio_args_parse_back(void **state)
{
    (void)state;
    char json[4096];
    int n = snprintf(json, sizeof(json), "{\"workload\":{\"fio\":{\"jobs\":[");
    for (int i = 0; i < API_MAX_FIO_JOBS; i++)
        n += snprintf(json + n, sizeof(json) - (size_t)n,
                      "%s{\"name\":\"j%d\",\"rw\":\"%s\",\"bs\":\"%dk\",\"size\":\"%dM\","
                      "\"ioengine\":\"%s\",\"iodepth\":%d,\"numjobs\":%d,\"runtimeSeconds\":%d,"
                      "\"fsync\":%d,\"fdatasync\":%d,\"direct\":%s}",
                      i ? "," : "", i, i % 2 ? "randwrite" : "randrw", 4 << (i % 3), i + 1,
                      i % 2 ? "io_uring" : "psync", i % 2 ? 4096 : 1, i % 2 ? 256 : 1,
                      i % 2 ? 86400 : 1, i % 2 ? 1000000 : 0, i % 2 ? 0 : 1000000,
                      i % 2 ? "true" : "false");
    (void)snprintf(json + n, sizeof(json) - (size_t)n, "]}}}");
    cJSON *br = cJSON_Parse(br_json);
    struct api_spec s = spec_of(json);
    struct api_config cfg;
    api_config_defaults(&cfg);
    cJSON *job = api_manifest_run_job(br, &s, &cfg, 5);
    struct bench_runner_fio f;
    parse_back(job, BENCH_RUNNER_FIO, &f);
    assert_string_equal(f.fio.directory, "/data");
    assert_int_equal(f.fio.njobs, s.n_fio_jobs);
    for (int i = 0; i < s.n_fio_jobs; i++) {
        const struct api_fio_job *x = &s.fio_jobs[i];
        const struct bench_fio_job_opts *y = &f.fio.jobs[i];
        assert_string_equal(y->name, x->name);
        assert_string_equal(y->rw, x->rw);
        assert_string_equal(y->bs, x->bs);
        assert_string_equal(y->size, x->size);
        assert_string_equal(y->ioengine, x->ioengine);
        assert_int_equal(y->iodepth, x->iodepth);
        assert_int_equal(y->numjobs, x->numjobs);
        assert_int_equal(y->runtime_s, x->runtime_s);
        assert_int_equal(y->fsync, x->fsync);
        assert_int_equal(y->fdatasync, x->fdatasync);
        assert_int_equal(y->direct, x->direct);
    }
    bench_runner_cleanup(BENCH_RUNNER_FIO, &f);
    cJSON_Delete(job);
    api_spec_free(&s);
    cJSON_Delete(br);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_job),
        cmocka_unit_test(test_run_job_rate_split),
        cmocka_unit_test(test_run_job_placement),
        cmocka_unit_test(test_init_job_and_transactions),
        cmocka_unit_test(test_wait_from_creation),
        cmocka_unit_test(test_cnpg_user_from_secret),
        cmocka_unit_test(test_timeout_seconds),
        cmocka_unit_test(test_fio_and_hpa),
        cmocka_unit_test(test_user_security_context_cannot_escalate),
        cmocka_unit_test(test_run_args_parse_back),
        cmocka_unit_test(test_fio_args_parse_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
