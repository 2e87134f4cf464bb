/* Spec parsing: defaults, the validation table (each refused spec names its field), worker split.
 */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <math.h>
#include <string.h>

#include "pkg/bench/pgbench.h"
#include "pkg/api/spec.h"

static cJSON *parse(const char *json)
{
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    return j;
}

#define TARGET                                                                                     \
    "\"target\":{\"host\":\"pg\",\"user\":\"app\",\"passwordSecretRef\":{\"name\":\"pw\"}}"
#define RUN "\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":10}}}"

static void test_defaults(void **state)
{
    (void)state;
    cJSON *j = parse("{" TARGET "," RUN "}");
    struct api_spec s;
    char err[512];
    assert_int_equal(api_spec_parse(j, &s, err, sizeof(err)), 0);
    assert_string_equal(s.host, "pg");
    assert_int_equal(s.port, 5432);
    assert_string_equal(s.database, "app"); /* libpq's default: the user name */
    assert_string_equal(s.user, "app");
    assert_string_equal(s.password_secret, "pw");
    assert_int_equal(s.placement, API_PLACE_SPREAD); /* spec.placement's default */
    assert_null(s.spread_constraints);
    assert_string_equal(s.password_key, "password");
    assert_string_equal(s.ssl_mode, "prefer");
    assert_int_equal(s.workers, 1);
    assert_int_equal(s.clients, 1);
    assert_int_equal(s.threads, 1);
    assert_int_equal(s.duration_s, 10);
    assert_int_equal(s.transactions, 0);
    assert_string_equal(s.builtin, "tpcb-like");
    assert_string_equal(s.protocol, "simple");
    assert_false(s.init);
    assert_false(s.hpa);
    assert_int_equal(s.max_tries, 1);
    /* the CRD sets no default for these: absent is the operator's (and pgbench's) default */
    assert_true(s.wait_events);
    assert_true(s.server_settings);
    assert_true(s.replica_lag);
    assert_int_equal(s.replica_timeout_s, 300);
    assert_int_equal(s.ttl_s, 3600);
    assert_int_equal(s.timeout_s, 0); /* each phase's default */
    assert_false(s.cleanup_delete);
    assert_string_equal(s.pull_policy, "IfNotPresent");
    assert_null(s.image);
    char t[300];
    api_spec_target_string(&s, t, sizeof(t));
    assert_string_equal(t, "pg:5432/app");
    api_spec_free(&s);
    cJSON_Delete(j);
}

static void test_cnpg(void **state)
{
    (void)state;
    cJSON *j = parse("{\"target\":{\"cnpg\":{\"clusterName\":\"pg\",\"service\":\"ro\","
                     "\"secret\":\"superuser\"}}," RUN "}");
    struct api_spec s;
    char err[512];
    assert_int_equal(api_spec_parse(j, &s, err, sizeof(err)), 0);
    assert_true(s.cnpg);
    assert_string_equal(s.host, "pg-ro");
    assert_string_equal(s.database, "app");
    /* the role is the Secret's username, read by the pods: the operator does not guess it */
    assert_string_equal(s.user, "");
    assert_string_equal(s.user_key, "username");
    assert_string_equal(s.password_secret, "pg-superuser");
    char u[300];
    api_spec_user_string(&s, u, sizeof(u));
    assert_string_equal(u, "from Secret pg-superuser");
    api_spec_free(&s);
    cJSON_Delete(j);

    j = parse("{\"target\":{\"cnpg\":{\"clusterName\":\"db\"},\"database\":\"bench\"}," RUN "}");
    assert_int_equal(api_spec_parse(j, &s, err, sizeof(err)), 0);
    assert_string_equal(s.host, "db-rw");
    assert_string_equal(s.database, "bench");
    assert_string_equal(s.user_key, "username");
    assert_string_equal(s.password_secret, "db-app");
    assert_string_equal(s.password_key, "password");
    api_spec_free(&s);
    cJSON_Delete(j);

    /* target.user beside cnpg: an override that wins over the Secret's username */
    j = parse("{\"target\":{\"cnpg\":{\"clusterName\":\"db\"},\"user\":\"bench\"}," RUN "}");
    assert_int_equal(api_spec_parse(j, &s, err, sizeof(err)), 0);
    assert_string_equal(s.user, "bench");
    assert_null(s.user_key);
    assert_string_equal(s.password_secret, "db-app");
    api_spec_user_string(&s, u, sizeof(u));
    assert_string_equal(u, "bench");
    api_spec_free(&s);
    cJSON_Delete(j);
}

struct bad {
    const char *spec;
    const char *message; /* expected substring */
};

static const struct bad bad_specs[] = {
    {"{" RUN "}", "spec.target: required"},
    {"{\"target\":{\"host\":\"pg\",\"user\":\"u\",\"cnpg\":{\"clusterName\":\"x\"}}," RUN "}",
     "spec.target: set exactly one of host or cnpg"},
    {"{\"target\":{\"host\":\"pg\"}," RUN "}", "spec.target.user: required"},
    {"{\"target\":{\"host\":\"pg\",\"user\":\"u\",\"port\":70000}," RUN "}",
     "spec.target.port: must be between 1 and 65535"},
    {"{\"target\":{\"host\":\"pg\",\"user\":\"u\",\"sslMode\":\"on\"}," RUN "}",
     "spec.target.sslMode: \"on\" is not one of"},
    {"{\"target\":{\"host\":\"pg\",\"user\":\"u\",\"sslMode\":\"verify-full\"}," RUN "}",
     "spec.target.caSecretRef: required with sslMode verify-full"},
    {"{\"target\":{\"host\":\"pg\",\"user\":\"u\",\"passwordSecretRef\":{}}," RUN "}",
     "spec.target.passwordSecretRef.name: required"},
    {"{\"target\":{\"cnpg\":{}}," RUN "}", "spec.target.cnpg.clusterName: required"},
    {"{\"target\":{\"cnpg\":{\"clusterName\":\"pg\",\"service\":\"x\"}}," RUN "}",
     "spec.target.cnpg.service"},
    {"{\"target\":{\"cnpg\":{\"clusterName\":\"pg\"},\"passwordSecretRef\":{\"name\":\"s\"}}," RUN
     "}",
     "spec.target.passwordSecretRef: the password comes from the CloudNativePG Secret pg-app"},
    {"{\"target\":{\"cnpg\":{\"clusterName\":\"pg\"},\"user\":\"\"}," RUN "}",
     "spec.target.user: must not be empty"},
    {"{\"target\":{\"cnpg\":{\"clusterName\":\"pg\"},\"user\":\"a=b\"}," RUN "}",
     "spec.target.user \"a=b\""},
    /* names, never connection strings (test_no_connection_strings has more) */
    {"{\"target\":{\"host\":\"pg\",\"user\":\"u\",\"database\":\"\"}," RUN "}",
     "spec.target.database \"\": must not be empty"},
    {"{\"target\":{\"host\":\"pg:5432\",\"user\":\"u\"}," RUN "}",
     "spec.target.host \"pg:5432\": is not a DNS name or IP address (the port goes in its own "
     "setting)"},
    {"{\"target\":{\"host\":\"/var/run/postgresql\",\"user\":\"u\"}," RUN "}",
     "spec.target.host \"/var/run/postgresql\": is a Unix-socket directory"},
    {"{" TARGET "}", "spec.workload: set exactly one of pgbench or fio"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{}}}", "spec.workload.pgbench.run: required"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{}}}}",
     "spec.workload.pgbench.run: set exactly one of durationSeconds or transactions"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"transactions\":5}}}}",
     "spec.workload.pgbench.run: set exactly one of durationSeconds or transactions"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":\"5\"}}}}",
     "spec.workload.pgbench.run.durationSeconds: must be an integer"},
    {"{" TARGET
     ",\"workload\":{\"pgbench\":{\"init\":{\"scale\":0},\"run\":{\"durationSeconds\":5}}}}",
     "spec.workload.pgbench.init.scale: must be between 1"},
#define INIT(x)                                                                                    \
    "{" TARGET ",\"workload\":{\"pgbench\":{\"init\":{\"scale\":1," x                              \
    "},\"run\":{\"durationSeconds\":5}}}}"
    {INIT("\"generation\":\"gpu\""),
     "spec.workload.pgbench.init.generation: \"gpu\" is not one of server, client"},
    {INIT("\"steps\":\"dtxvp\""),
     "spec.workload.pgbench.init.steps: \"dtxvp\": use 1 to 32 of pgbench's step letters d "
     "(drop)"},
    {INIT("\"steps\":\"dtgGvp\""), "spec.workload.pgbench.init.steps: \"dtgGvp\" has both g and G"},
    {INIT("\"steps\":\"dtgvp\",\"generation\":\"server\""),
     "spec.workload.pgbench.init.steps: \"dtgvp\" does not generate the data server-side: put G"},
    {INIT("\"fillfactor\":5"), "spec.workload.pgbench.init.fillfactor: must be between 10 and 100"},
    {INIT("\"unloggedTables\":1"),
     "spec.workload.pgbench.init.unloggedTables: must be true or false"},
    {INIT("\"tablespace\":\"fast ts\""),
     "spec.workload.pgbench.init.tablespace: \"fast ts\" is not a tablespace name"},
    {INIT("\"indexTablespace\":\"x-y\""),
     "spec.workload.pgbench.init.indexTablespace: \"x-y\" is not a tablespace name"},
    {"{" TARGET
     ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"builtin\":\"tpcc\"}}}}",
     "spec.workload.pgbench.run.builtin: \"tpcc\" is not one of tpcb-like"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"protocol\":\"x\"}}}}",
     "spec.workload.pgbench.run.protocol"},
    {"{" TARGET
     ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"latencyLimitMs\":5}}}}",
     "spec.workload.pgbench.run.latencyLimitMs: only allowed with rate"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"scripts\":[{}]}}}}",
     "spec.workload.pgbench.run.scripts[0].configMapRef.name: required"},
    /* weights are honoured as given: pgbench's own refusal comes first, from the operator */
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"builtin\":"
     "\"select-only\",\"builtinWeight\":0,\"scripts\":[{\"configMapRef\":{\"name\":\"cm\","
     "\"key\":\"a.sql\"},\"weight\":0}]}}}}",
     "spec.workload.pgbench.run: total script weight must not be zero (pgbench refuses to run): "
     "every script and the builtin have weight 0"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"scripts\":[{"
     "\"configMapRef\":{\"name\":\"cm\",\"key\":\"a.sql\"},\"weight\":0},{\"configMapRef\":{"
     "\"name\":\"cm\",\"key\":\"b.sql\"},\"weight\":0}]}}}}",
     "spec.workload.pgbench.run: total script weight must not be zero"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"builtinWeight\":0"
     "}}}}",
     "spec.workload.pgbench.run.builtinWeight: the weight of run.builtin beside run.scripts"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"builtinWeight\":2,"
     "\"scripts\":[{\"configMapRef\":{\"name\":\"cm\",\"key\":\"a.sql\"}}]}}}}",
     "spec.workload.pgbench.run.builtinWeight: the weight of run.builtin beside run.scripts"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"transactions\":5,\"maxTries\":0}}}}",
     "spec.workload.pgbench.run.maxTries: 0 (unlimited) needs durationSeconds or latencyLimitMs"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"scripts\":[{"
     "\"configMapRef\":{\"name\":\"cm\"}}]}}}}",
     "spec.workload.pgbench.run.scripts[0].configMapRef.key: required"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"extraArgs\":[\"-c\","
     "\"5\"]}}}}",
     "spec.workload.pgbench.run.extraArgs[0]: -c is set by the operator"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"extraArgs\":["
     "\"--client=5\"]}}}}",
     "--client is set by the operator"},
    /* refused by the runner's allow-list, so refused here before anything runs */
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"extraArgs\":["
     "\"-Dx=1\",\"--progress-timestamp\"]}}}}",
     "spec.workload.pgbench.run.extraArgs[1]: '--progress-timestamp' is not allowed for pgbench "
     "run (allowed: -D/--define --random-seed"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"extraArgs\":["
     "\"--random-seed\",\"banana\"]}}}}",
     "spec.workload.pgbench.run.extraArgs[0]: invalid value for '--random-seed'"},
    {"{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,\"extraArgs\":["
     "\"-D\"]}}}}",
     "spec.workload.pgbench.run.extraArgs[0]: '-D' needs a value"},
    {"{" TARGET ",\"workers\":4,\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,"
     "\"clients\":3}}}}",
     "spec.workload.pgbench.run.clients: 3 clients cannot be split over 4 workers"},
    {"{" TARGET ",\"workers\":4,\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,"
     "\"clients\":4,\"rate\":0.003}}}}",
     "spec.workload.pgbench.run.rate: 0.003 tps cannot be split over 4 workers"},
    {"{" TARGET ",\"workers\":0," RUN "}", "spec.workers: must be between 1 and 256"},
    {"{" TARGET ",\"workload\":{\"fio\":{\"jobs\":[]}}}", "spec.workload.fio.jobs: required"},
    {"{\"workload\":{\"fio\":{\"volumeSize\":\"ten\",\"jobs\":[{\"name\":\"a\"}]}}}",
     "spec.workload.fio.volumeSize: \"ten\" is not a quantity"},
    {"{\"workload\":{\"fio\":{\"jobs\":[{\"name\":\"a\",\"rw\":\"trim\"}]}}}",
     "spec.workload.fio.jobs[0].rw: \"trim\" is not one of"},
    {"{\"workload\":{\"fio\":{\"jobs\":[{\"name\":\"a\",\"rw\":\"read\",\"fdatasync\":1}]}}}",
     "fsync/fdatasync only apply to jobs that write"},
    {"{\"workers\":2,\"workload\":{\"fio\":{\"jobs\":[{\"name\":\"a\"}]}}}",
     "spec.workers: a fio workload runs in one pod"},
    {"{" TARGET "," RUN ",\"hpa\":{\"maxReplicas\":3}}", "spec.hpa.scaleTargetRef: required"},
    {"{" TARGET "," RUN ",\"hpa\":{\"scaleTargetRef\":{\"kind\":\"StatefulSet\",\"name\":\"r\"}}}",
     "spec.hpa.maxReplicas: required"},
    {"{" TARGET "," RUN ",\"hpa\":{\"scaleTargetRef\":{\"kind\":\"StatefulSet\",\"name\":\"r\"},"
     "\"minReplicas\":4,\"maxReplicas\":3}}",
     "spec.hpa.maxReplicas: must be >= minReplicas (4)"},
    {"{" TARGET "," RUN ",\"hpa\":{\"scaleTargetRef\":{\"kind\":\"ReplicaSet\",\"name\":\"r\"},"
     "\"maxReplicas\":3}}",
     "spec.hpa.scaleTargetRef.kind: \"ReplicaSet\" is not one of StatefulSet, Deployment"},
    {"{" TARGET "," RUN ",\"cleanupPolicy\":\"Always\"}", "spec.cleanupPolicy: \"Always\""},
    {"{" TARGET "," RUN ",\"imagePullPolicy\":\"Sometimes\"}", "spec.imagePullPolicy"},
    {"{" TARGET "," RUN ",\"ttlSecondsAfterFinished\":-1}", "spec.ttlSecondsAfterFinished"},
    {"{" TARGET "," RUN ",\"timeoutSeconds\":0}",
     "spec.timeoutSeconds: must be between 1 and 2592000 (got 0)"},
    {"{" TARGET "," RUN ",\"timeoutSeconds\":2592001}", "spec.timeoutSeconds: must be between"},
    {"{" TARGET "," RUN ",\"timeoutSeconds\":1.5}", "spec.timeoutSeconds: must be an integer"},
    {"{" TARGET "," RUN ",\"podTemplate\":{\"hostNetwork\":true}}",
     "spec.podTemplate.hostNetwork: unknown field"},
    {"{" TARGET "," RUN ",\"podTemplate\":{\"securityContext\":{\"runAsUser\":0}}}",
     "spec.podTemplate.securityContext: runner pods must not run as root"},
    {"{" TARGET "," RUN ",\"diagnostics\":{\"waitEvents\":\"yes\"}}",
     "spec.diagnostics.waitEvents: must be true or false"},
    {"{" TARGET "," RUN ",\"placement\":{\"mode\":\"scatter\"}}",
     "spec.placement.mode: \"scatter\" is not one of"},
    {"{" TARGET "," RUN ",\"placement\":{\"topologySpreadConstraints\":[]}}",
     "spec.placement.topologySpreadConstraints: only with mode custom"},
    {"{" TARGET "," RUN ",\"placement\":{\"mode\":\"custom\",\"topologySpreadConstraints\":"
     "[{\"maxSkew\":1,\"topologyKey\":\"z\"}]}}",
     "spec.placement.topologySpreadConstraints[0]: maxSkew, topologyKey and whenUnsatisfiable "
     "are required"},
    {"{" TARGET "," RUN ",\"placement\":{\"mode\":\"custom\",\"topologySpreadConstraints\":"
     "[{\"maxSkew\":0,\"topologyKey\":\"z\",\"whenUnsatisfiable\":\"DoNotSchedule\"}]}}",
     "spec.placement.topologySpreadConstraints[0].maxSkew: must be between 1 and"},
    {"{" TARGET "," RUN ",\"placement\":{\"mode\":\"custom\",\"topologySpreadConstraints\":"
     "[{\"maxSkew\":1,\"topologyKey\":\"z\",\"whenUnsatisfiable\":\"ScheduleAnyway\","
     "\"minDomains\":2}]}}",
     "spec.placement.topologySpreadConstraints[0].minDomains: only with whenUnsatisfiable "
     "DoNotSchedule"},
    {"{" TARGET "," RUN ",\"placement\":{\"mode\":\"custom\",\"topologySpreadConstraints\":"
     "[{\"maxSkew\":1,\"topologyKey\":\"z\",\"whenUnsatisfiable\":\"Maybe\"}]}}",
     "spec.placement.topologySpreadConstraints[0].whenUnsatisfiable: \"Maybe\" is not one of"},
    {"{" TARGET "," RUN ",\"placement\":{\"mode\":\"custom\",\"topologySpreadConstraints\":"
     "[{\"maxSkew\":1,\"topologyKey\":\"z\",\"whenUnsatisfiable\":\"DoNotSchedule\","
     "\"nodeAffinityPolicy\":\"Honor\"}]}}",
     "spec.placement.topologySpreadConstraints[0].nodeAffinityPolicy: unknown field"},
    {"{" TARGET "," RUN ",\"placement\":{\"mode\":\"custom\",\"topologySpreadConstraints\":"
     "[{\"maxSkew\":1,\"topologyKey\":\"z\",\"whenUnsatisfiable\":\"DoNotSchedule\"},"
     "{\"maxSkew\":2,\"topologyKey\":\"z\",\"whenUnsatisfiable\":\"DoNotSchedule\"}]}}",
     "spec.placement.topologySpreadConstraints[1]: the same topologyKey z and "
     "whenUnsatisfiable DoNotSchedule as [0]"},
    {"null", "spec: required"},
};

static void test_validation_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_specs) / sizeof(bad_specs[0]); i++) {
        cJSON *j = parse(bad_specs[i].spec);
        struct api_spec s;
        char err[512];
        int rc = api_spec_parse(cJSON_IsNull(j) ? NULL : j, &s, err, sizeof(err));
        if (rc != -22 || !strstr(err, bad_specs[i].message)) {
            (void)fprintf(stderr, "case %zu: %s\n  rc=%d err=%s\n  want: %s\n", i,
                          bad_specs[i].spec, rc, err, bad_specs[i].message);
            fail();
        }
        assert_null(s.json); /* freed on error */
        cJSON_Delete(j);
    }
}

static void test_full_pgbench(void **state)
{
    (void)state;
    cJSON *j =
        parse("{" TARGET ",\"workers\":3,\"workload\":{\"pgbench\":{\"init\":{\"scale\":50,"
              "\"foreignKeys\":true,\"partitions\":4},\"run\":{\"clients\":8,\"threads\":4,"
              "\"transactions\":1000,\"builtin\":\"select-only\",\"builtinWeight\":2,\"scripts\":[{"
              "\"configMapRef\":{\"name\":\"cm\",\"key\":\"read.sql\"},\"weight\":3}],\"protocol\":"
              "\"prepared\",\"rate\":100,\"latencyLimitMs\":50,\"noVacuum\":true,\"connect\":true,"
              "\"maxTries\":3,\"failuresDetailed\":true,\"perStatementLatencies\":true,"
              "\"progressSeconds\":2,\"extraArgs\":[\"--random-seed=7\"]}}}}");
    struct api_spec s;
    char err[512];
    assert_int_equal(api_spec_parse(j, &s, err, sizeof(err)), 0);
    assert_true(s.init);
    assert_int_equal(s.scale, 50);
    assert_true(s.foreign_keys);
    assert_true(s.skip_if_initialized);
    assert_int_equal(s.partitions, 4);
    assert_null(s.init_generation); /* the runner's default: server where pgbench has it */
    assert_null(s.init_steps);
    assert_int_equal(s.init_fillfactor, 0);
    assert_false(s.init_unlogged);
    assert_int_equal(s.clients, 8);
    assert_int_equal(s.transactions, 1000);
    assert_int_equal(s.n_scripts, 1);
    assert_string_equal(s.scripts[0].configmap, "cm");
    assert_string_equal(s.scripts[0].key, "read.sql");
    assert_int_equal(s.scripts[0].weight, 3);
    assert_int_equal(s.n_extra_args, 1);
    assert_string_equal(s.extra_args[0], "--random-seed=7");
    assert_int_equal(s.max_tries, 3);
    assert_int_equal(api_spec_expected_seconds(&s), 0);
    api_spec_free(&s);
    cJSON_Delete(j);
}

/* init's table options as given, into the init Job's runner flags */
static void test_init_options(void **state)
{
    (void)state;
    cJSON *j = parse(INIT("\"generation\":\"client\",\"steps\":\"dtgvpf\",\"fillfactor\":90,"
                          "\"unloggedTables\":true,\"tablespace\":\"fast_ts\","
                          "\"indexTablespace\":\"idx_ts\""));
    struct api_spec s;
    char err[512];
    assert_int_equal(api_spec_parse(j, &s, err, sizeof(err)), 0);
    assert_string_equal(s.init_generation, "client");
    assert_string_equal(s.init_steps, "dtgvpf");
    assert_int_equal(s.init_fillfactor, 90);
    assert_true(s.init_unlogged);
    assert_string_equal(s.init_tablespace, "fast_ts");
    assert_string_equal(s.init_index_tablespace, "idx_ts");
    api_spec_free(&s);
    cJSON_Delete(j);
}

static void test_worker_split(void **state)
{
    (void)state;
    /* 7 clients over 3 workers: remainder to the lowest indexes */
    assert_int_equal(api_worker_clients(7, 3, 0), 3);
    assert_int_equal(api_worker_clients(7, 3, 1), 2);
    assert_int_equal(api_worker_clients(7, 3, 2), 2);
    assert_int_equal(api_worker_clients(8, 3, 0), 3);
    assert_int_equal(api_worker_clients(8, 3, 1), 3);
    assert_int_equal(api_worker_clients(8, 3, 2), 2);
    assert_int_equal(api_worker_clients(6, 3, 2), 2);
    assert_int_equal(api_worker_clients(6, 3, 3), 0);
    for (int c = 1; c < 50; c++)
        for (int w = 1; w <= c; w++) {
            int sum = 0;
            for (int i = 0; i < w; i++) {
                int n = api_worker_clients(c, w, i);
                assert_true(n >= 1);
                if (i > 0)
                    assert_true(n <= api_worker_clients(c, w, i - 1));
                sum += n;
            }
            assert_int_equal(sum, c);
        }
    /* the rate is split by the same rule, in thousandths of a tps: the shares add up to it */
    assert_true(api_worker_rate(1001, 4, 0) == 250.25 && api_worker_rate(1001, 4, 3) == 250.25);
    assert_true(api_worker_rate(10, 3, 0) == 3.334 && api_worker_rate(10, 3, 1) == 3.333);
    assert_true(api_worker_rate(1000, 4, 2) == 250 && api_worker_rate(0, 4, 1) == 0);
    static const double rates[] = {1, 7, 10, 99.5, 1000, 1001, 12345.678};
    for (size_t k = 0; k < sizeof(rates) / sizeof(rates[0]); k++)
        for (int w = 1; w <= 8; w++) {
            long milli = 0;
            for (int i = 0; i < w; i++)
                milli += lround(api_worker_rate(rates[k], w, i) * 1000);
            assert_int_equal(milli, lround(rates[k] * 1000));
        }
    /* threads are capped by the worker's clients */
    assert_int_equal(api_worker_threads(4, 7, 3, 0), 3);
    assert_int_equal(api_worker_threads(2, 7, 3, 2), 2);
    assert_int_equal(api_worker_threads(1, 7, 3, 0), 1);
}

/* The operator and the runner agree on every extra argument, because both ask the one list in
 * pkg/bench: spec validation accepts exactly what the runner's pgbench command-line builder
 * accepts. The candidates are pgbench's own options (pgbench 15-19 --help, written out here, not
 * read from the list under test) in every form a user may write them. */
static const char *const pgbench_options[] = {
    /* initialization */
    "i",
    "initialize",
    "I",
    "init-steps",
    "F",
    "fillfactor",
    "n",
    "no-vacuum",
    "q",
    "quiet",
    "s",
    "scale",
    "foreign-keys",
    "index-tablespace",
    "partition-method",
    "partitions",
    "tablespace",
    "unlogged-tables",
    /* benchmarking */
    "b",
    "builtin",
    "f",
    "file",
    "N",
    "skip-some-updates",
    "S",
    "select-only",
    "c",
    "client",
    "C",
    "connect",
    "D",
    "define",
    "j",
    "jobs",
    "l",
    "log",
    "L",
    "latency-limit",
    "M",
    "protocol",
    "P",
    "progress",
    "r",
    "report-per-command",
    "report-latencies",
    "R",
    "rate",
    "t",
    "transactions",
    "T",
    "time",
    "v",
    "vacuum-all",
    "aggregate-interval",
    "continue-on-error",
    "exit-on-abort",
    "failures-detailed",
    "log-prefix",
    "max-tries",
    "progress-timestamp",
    "random-seed",
    "sampling-rate",
    "show-script",
    "verbose-errors",
    /* common */
    "d",
    "debug",
    "h",
    "host",
    "p",
    "port",
    "U",
    "username",
    "V",
    "version",
    "?",
    "help",
    /* not pgbench options */
    "x",
    "clients",
    "threads",
};

/* Returns 0 when spec validation accepts extraArgs = args; err names the refusal. */
static int spec_verdict(const char *const *args, size_t n, char *err, size_t errlen)
{
    char json[1024];
    int len = snprintf(json, sizeof(json),
                       "{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,"
                       "\"extraArgs\":[");
    for (size_t i = 0; i < n; i++)
        len += snprintf(json + len, sizeof(json) - (size_t)len, "%s\"%s\"", i ? "," : "", args[i]);
    (void)snprintf(json + len, sizeof(json) - (size_t)len, "]}}}}");
    cJSON *j = parse(json);
    struct api_spec s;
    int rc = api_spec_parse(j, &s, err, errlen);
    if (rc == 0)
        api_spec_free(&s);
    cJSON_Delete(j);
    return rc;
}

/* No input is trusted: pgbench expands its database as a libpq connection string, so a database
 * or user that is one would override what the spec says (sslMode: require) for pgbench alone. */
static void test_no_connection_strings(void **state)
{
    (void)state;
    static const struct {
        const char *target, *message;
    } cases[] = {
        {"\"host\":\"pg\",\"user\":\"app\",\"sslMode\":\"require\",\"database\":\"postgres "
         "sslmode=disable\"",
         "spec.target.database \"postgres sslmode=disable\": libpq would read it as a connection "
         "string (it contains '='), whose settings would override the connection's (sslmode, "
         "host, application_name): give the name alone"},
        {"\"host\":\"pg\",\"user\":\"app\",\"database\":\"dbname=postgres application_name=x\"",
         "spec.target.database \"dbname=postgres application_name=x\": libpq would read it"},
        {"\"host\":\"pg\",\"user\":\"app\",\"database\":\"postgresql://evil/db?sslmode=disable\"",
         "spec.target.database \"postgresql://evil/db?sslmode=disable\": libpq would read it as a "
         "connection string (it contains '=')"},
        {"\"host\":\"pg\",\"user\":\"app\",\"database\":\"postgres://evil/db\"",
         "(it starts with a postgres:// URI)"},
        {"\"host\":\"pg\",\"user\":\"app sslmode=disable\"",
         "spec.target.user \"app sslmode=disable\": libpq would read it as a connection string"},
        {"\"cnpg\":{\"clusterName\":\"pg\"},\"sslMode\":\"require\",\"database\":\"app "
         "sslmode=disable\"",
         "spec.target.database \"app sslmode=disable\": libpq would read it"},
        {"\"host\":\"pg host=evil\",\"user\":\"app\"",
         "spec.target.host \"pg host=evil\": is not a DNS name or IP address"},
        /* 32 characters, 64 bytes: the CRD's maxLength counts characters, PostgreSQL bytes */
        {"\"host\":\"pg\",\"user\":\"app\",\"database\":"
         "\"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
         "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
         "\u00e9\u00e9\u00e9\u00e9\"",
         "is 64 bytes; PostgreSQL names are at most 63 bytes (NAMEDATALEN - 1)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char json[1024];
        (void)snprintf(json, sizeof(json), "{\"target\":{%s}," RUN "}", cases[i].target);
        cJSON *j = parse(json);
        struct api_spec s;
        char err[512] = "";
        int rc = api_spec_parse(j, &s, err, sizeof(err));
        if (rc != -22 || !strstr(err, cases[i].message))
            fail_msg("case %zu: rc=%d err=%s\n  want: %s", i, rc, err, cases[i].message);
        cJSON_Delete(j);
    }
    /* names that need quoting, at most 63 bytes, are PostgreSQL's to take: they pass as they are,
     * and sslMode stays what the spec says */
    cJSON *j = parse("{\"target\":{\"host\":\"10.0.0.7\",\"user\":\"bench user\",\"sslMode\":"
                     "\"require\",\"database\":\"my \\\"db\\\"; postgres:/x\"}," RUN "}");
    struct api_spec s;
    char err[512];
    assert_int_equal(api_spec_parse(j, &s, err, sizeof(err)), 0);
    assert_string_equal(s.database, "my \"db\"; postgres:/x");
    assert_string_equal(s.user, "bench user");
    assert_string_equal(s.ssl_mode, "require");
    api_spec_free(&s);
    cJSON_Delete(j);
}

/* Weight 0 and maxTries 0 are values, kept as given; not given is the documented default. */
static void test_zero_is_a_value(void **state)
{
    (void)state;
    cJSON *j = parse("{" TARGET ",\"workload\":{\"pgbench\":{\"run\":{\"durationSeconds\":5,"
                     "\"builtin\":\"select-only\",\"builtinWeight\":0,\"maxTries\":0,\"scripts\":[{"
                     "\"configMapRef\":{\"name\":\"cm\",\"key\":\"a.sql\"},\"weight\":0},{"
                     "\"configMapRef\":{\"name\":\"cm\",\"key\":\"b.sql\"}}]}}}}");
    struct api_spec s;
    char err[512];
    assert_int_equal(api_spec_parse(j, &s, err, sizeof(err)), 0);
    assert_int_equal(s.builtin_weight, 0);
    assert_int_equal(s.max_tries, 0);
    assert_int_equal(s.scripts[0].weight, 0);
    assert_int_equal(s.scripts[1].weight, 1); /* not given: pgbench's and the CRD's 1 */
    api_spec_free(&s);
    cJSON_Delete(j);
}

/* fio's files must fit the volume: every job's clones keep a file of `size` there (fio units,
 * base 1024), with 10 % + 32 MiB of the volume left to the filesystem. Expected values worked
 * out by hand: 10Gi = 10240 MiB holds 10240 * 0.9 - 32 = 9184 MiB of files. */
static void test_fio_volume_fits(void **state)
{
    (void)state;
    static const struct {
        const char *fio;
        const char *message; /* NULL = fits */
    } cases[] = {
        {"\"jobs\":[{\"name\":\"a\",\"size\":\"9184m\"}]", NULL},
        {"\"jobs\":[{\"name\":\"a\",\"size\":\"9185m\"}]",
         "spec.workload.fio.jobs[0] (a): size 9185m x numjobs 1 = 8.97 GiB does not fit "
         "volumeSize 10Gi: 8.97 GiB of it are usable after the filesystem's headroom of 10 % + "
         "32 MiB"},
        {"\"jobs\":[{\"name\":\"a\",\"size\":\"2296m\",\"numjobs\":4}]", NULL},
        {"\"jobs\":[{\"name\":\"a\",\"size\":\"2297m\",\"numjobs\":4}]",
         "spec.workload.fio.jobs[0] (a): size 2297m x numjobs 4 = 8.97 GiB does not fit"},
        {"\"jobs\":[{\"name\":\"a\",\"size\":\"4592m\"},{\"name\":\"b\",\"size\":\"4592m\"}]",
         NULL},
        {"\"jobs\":[{\"name\":\"a\",\"size\":\"4592m\"},{\"name\":\"b\",\"size\":\"4593m\"}]",
         "spec.workload.fio.jobs[1] (b): size 4593m x numjobs 1 = 4.49 GiB, 8.97 GiB with the "
         "jobs before it, does not fit volumeSize 10Gi"},
        /* fio reads 9GiB as 9 * 10^9 bytes (8583 MiB) and 9G as 9 * 2^30 */
        {"\"jobs\":[{\"name\":\"a\",\"size\":\"9GiB\"}]", NULL},
        {"\"jobs\":[{\"name\":\"a\",\"size\":\"9G\"}]", "Raise volumeSize to 11Gi or lower size"},
        /* decimal and fractional quantities: 10G = 9536.7 MiB holds 8551.1 MiB */
        {"\"volumeSize\":\"10G\",\"jobs\":[{\"name\":\"a\",\"size\":\"8551m\"}]", NULL},
        {"\"volumeSize\":\"10G\",\"jobs\":[{\"name\":\"a\",\"size\":\"8552m\"}]",
         "does not fit volumeSize 10G"},
        {"\"volumeSize\":\"1.5Gi\",\"jobs\":[{\"name\":\"a\",\"size\":\"1350m\"}]", NULL},
        {"\"volumeSize\":\"1.5Gi\",\"jobs\":[{\"name\":\"a\",\"size\":\"1351m\"}]",
         "Raise volumeSize to 2Gi"},
        /* small volumes: the suggestion in Mi */
        {"\"volumeSize\":\"100Mi\",\"jobs\":[{\"name\":\"a\",\"size\":\"64m\"}]",
         "64 MiB does not fit volumeSize 100Mi: 58 MiB of it are usable"},
        {"\"volumeSize\":\"100Mi\",\"jobs\":[{\"name\":\"a\",\"size\":\"64m\"}]",
         "Raise volumeSize to 107Mi"},
        {"\"volumeSize\":\"1.2.3Gi\",\"jobs\":[{\"name\":\"a\"}]", "is not a quantity"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char json[512];
        (void)snprintf(json, sizeof(json), "{\"workload\":{\"fio\":{%s}}}", cases[i].fio);
        cJSON *j = parse(json);
        struct api_spec s;
        char err[1024] = "";
        int rc = api_spec_parse(j, &s, err, sizeof(err));
        if (!cases[i].message && rc != 0)
            fail_msg("case %zu refused: %s", i, err);
        if (cases[i].message && (rc != -22 || !strstr(err, cases[i].message)))
            fail_msg("case %zu: rc=%d err=%s\n  want: %s", i, rc, err, cases[i].message);
        if (rc == 0)
            api_spec_free(&s);
        cJSON_Delete(j);
    }
}

/* Returns 0 when the runner accepts them: what it does with the arguments after "--". */
static int runner_verdict(const char *const *args, size_t n)
{
    struct bench_pgbench_run_opts o = BENCH_PGBENCH_RUN_OPTS_INIT;
    o.clients = 1;
    o.threads = 1;
    o.duration_s = 5;
    o.extra_args = args;
    o.nextra = n;
    struct bench_argv a = BENCH_ARGV_INIT;
    int rc = bench_pgbench_run_argv(&o, &a, NULL, 0);
    bench_argv_free(&a);
    return rc;
}

static void test_extra_args_agree_with_runner(void **state)
{
    (void)state;
    size_t accepted = 0, refused = 0;
    for (size_t i = 0; i < sizeof(pgbench_options) / sizeof(pgbench_options[0]); i++) {
        const char *o = pgbench_options[i];
        char forms[3][64];
        if (strlen(o) == 1) {
            (void)snprintf(forms[0], sizeof(forms[0]), "-%s", o);
            (void)snprintf(forms[1], sizeof(forms[1]), "-%s1", o);
            (void)snprintf(forms[2], sizeof(forms[2]), "-%sx=1", o);
        } else {
            (void)snprintf(forms[0], sizeof(forms[0]), "--%s", o);
            (void)snprintf(forms[1], sizeof(forms[1]), "--%s=1", o);
            (void)snprintf(forms[2], sizeof(forms[2]), "--%s=x=1", o);
        }
        static const char *const values[] = {NULL, "1", "x=1", "range"};
        for (int f = 0; f < 3; f++) {
            for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
                const char *args[2] = {forms[f], values[v]};
                size_t n = values[v] ? 2 : 1;
                char err[1024] = "";
                int spec = spec_verdict(args, n, err, sizeof(err));
                int runner = runner_verdict(args, n);
                if ((spec == 0) != (runner == 0))
                    fail_msg("extraArgs [%s%s%s]: spec %s, runner %s (%s)", args[0],
                             n > 1 ? ", " : "", n > 1 ? args[1] : "", spec ? "refuses" : "accepts",
                             runner ? "refuses" : "accepts", err);
                if (spec) {
                    refused++;
                    /* the message names the refused element */
                    const char *at = strstr(err, "extraArgs[");
                    int k = -1;
                    if (!at || sscanf(at, "extraArgs[%d]", &k) != 1 || k < 0 || (size_t)k >= n)
                        fail_msg("refusal without the element's index: %s", err);
                    const char *e = args[k];
                    char opt[64];
                    (void)snprintf(opt, sizeof(opt), "%.*s",
                                   (int)(e[0] != '-'   ? strlen(e)
                                         : e[1] == '-' ? strcspn(e, "=")
                                                       : 2),
                                   e);
                    if (!strstr(err, opt))
                        fail_msg("'%s' refused without naming it: %s", e, err);
                } else {
                    accepted++;
                }
            }
        }
    }
    /* the corpus reaches both sides of the list */
    assert_true(accepted >= 10);
    assert_true(refused >= 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_cnpg),
        cmocka_unit_test(test_validation_table),
        cmocka_unit_test(test_full_pgbench),
        cmocka_unit_test(test_init_options),
        cmocka_unit_test(test_worker_split),
        cmocka_unit_test(test_extra_args_agree_with_runner),
        cmocka_unit_test(test_no_connection_strings),
        cmocka_unit_test(test_zero_is_a_value),
        cmocka_unit_test(test_fio_volume_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
