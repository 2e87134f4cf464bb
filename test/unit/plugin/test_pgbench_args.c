/* pgbench's command line -> spec.workload.pgbench.run: every mapped option in each of its forms,
 * passthrough through the operator's extraArgs allow-list, refusals naming the option, and the
 * target table of docs/spec.md. */
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

#include "pkg/api/manifest.h"
#include "pkg/util/json.h"
#include "pkg/plugin/build.h"
#include "pkg/plugin/pgbench_args.h"
#include "pkg/plugin/target.h"

/* Splits a command line on spaces (the tests use no quoting). */
static size_t split(char *line, const char **argv, size_t max)
{
    size_t n = 0;
    for (char *t = strtok(line, " "); t && n < max; t = strtok(NULL, " "))
        argv[n++] = t;
    return n;
}

/* Maps args and returns run as compact JSON (caller frees), or NULL with err. */
static char *map(const char *cmdline, const char **db, char *err, size_t errlen)
{
    char line[512];
    const char *argv[64];
    (void)snprintf(line, sizeof(line), "%s", cmdline);
    size_t n = split(line, argv, 64);
    cJSON *run = cJSON_CreateObject();
    const char *dbname = NULL;
    int rc = plugin_pgbench_args(run, argv, n, &dbname, err, errlen);
    char *out = NULL;
    if (rc == 0) {
        out = cJSON_PrintUnformatted(run);
        if (db)
            *db = dbname ? "set" : NULL;
    }
    cJSON_Delete(run);
    return out;
}

static void expect_json(const char *cmdline, const char *want)
{
    char err[512] = "";
    char *got = map(cmdline, NULL, err, sizeof(err));
    if (!got)
        fail_msg("%s: %s", cmdline, err);
    /* compare as trees: key order is the order of the options */
    cJSON *a = cJSON_Parse(got), *b = cJSON_Parse(want);
    assert_non_null(b);
    if (!cJSON_Compare(a, b, 1))
        fail_msg("%s:\n got  %s\n want %s", cmdline, got, want);
    cJSON_Delete(a);
    cJSON_Delete(b);
    free(got);
}

static void expect_refused(const char *cmdline, const char *needle)
{
    char err[512] = "";
    char *got = map(cmdline, NULL, err, sizeof(err));
    if (got)
        fail_msg("%s: accepted as %s", cmdline, got);
    if (!strstr(err, needle))
        fail_msg("%s: message \"%s\" does not contain \"%s\"", cmdline, err, needle);
}

static void test_fields(void **state)
{
    (void)state;
    expect_json("-c 10 -j 2 -T 60 -M prepared -b select-only -R 500 -P 5 --max-tries 3 -r -n -C",
                "{\"clients\":10,\"threads\":2,\"durationSeconds\":60,\"protocol\":\"prepared\","
                "\"builtin\":\"select-only\",\"rate\":500,\"progressSeconds\":5,\"maxTries\":3,"
                "\"perStatementLatencies\":true,\"noVacuum\":true,\"connect\":true}");
    expect_json("-t 1000 -L 12.5 --failures-detailed",
                "{\"transactions\":1000,\"latencyLimitMs\":12.5,\"failuresDetailed\":true}");
    expect_json("-f scripts:read.sql@3 -f scripts:write.sql -b tpcb@1",
                "{\"scripts\":[{\"configMapRef\":{\"name\":\"scripts\",\"key\":\"read.sql\"},"
                "\"weight\":3},{\"configMapRef\":{\"name\":\"scripts\",\"key\":\"write.sql\"}}],"
                "\"builtin\":\"tpcb-like\",\"builtinWeight\":1}");
    expect_json("-S", "{\"builtin\":\"select-only\"}");
    expect_json("-N", "{\"builtin\":\"simple-update\"}");
    expect_json("--report-latencies", "{\"perStatementLatencies\":true}");
}

/* Every form getopt_long takes gives the same spec. */
static void test_forms(void **state)
{
    (void)state;
    const char *forms[] = {"-c 8 -T 30", "-c8 -T30", "--client=8 --time=30", "--client 8 --time 30",
                           "-c 8 --time=30"};
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
        expect_json(forms[i], "{\"clients\":8,\"durationSeconds\":30}");
    expect_json("-nrC", "{\"noVacuum\":true,\"perStatementLatencies\":true,\"connect\":true}");
    expect_json("-nc4", "{\"noVacuum\":true,\"clients\":4}");
    expect_json("-b select", "{\"builtin\":\"select-only\"}");
}

static void test_passthrough(void **state)
{
    (void)state;
    expect_json("-T 10 -D scale2=5 --random-seed=7 -s 20 --verbose-errors",
                "{\"durationSeconds\":10,\"extraArgs\":[\"-D\",\"scale2=5\",\"--random-seed=7\","
                "\"-s\",\"20\",\"--verbose-errors\"]}");
    const char *db = NULL;
    char err[256];
    char *got = map("-c 2 mydb", &db, err, sizeof(err));
    assert_non_null(got);
    assert_non_null(db);
    free(got);
}

static void test_refused(void **state)
{
    (void)state;
    expect_refused("-c 0", "-c \"0\": must be an integer >= 1");
    expect_refused("-T x", "-T \"x\"");
    expect_refused("--time", "--time needs a value");
    expect_refused("-M fast", "-M \"fast\"");
    expect_refused("-b nosuch", "-b \"nosuch\"");
    expect_refused("-b s", "-b \"s\""); /* ambiguous prefix */
    expect_refused("-f read.sql", "CONFIGMAP:KEY");
    expect_refused("-l", "pgbench option -l");
    expect_refused("-i", "--init -s N");
    expect_refused("-h db", "--host");
    expect_refused("-U app", "--user");
    expect_refused("--aggregate-interval=5", "pgbench option --aggregate-interval has no "
                                             "BenchmarkRun field");
    expect_refused("--progress-timestamp", "--progress-timestamp");
    expect_refused("--log-prefix=x", "--log-prefix");
    expect_refused("-d", "pgbench option -d");
    expect_refused("-nl", "-l");
    expect_refused("a b", "second");
    expect_refused("--no-vacuum=1", "takes no value");
}

static const char *tstr(const cJSON *t, const char *path)
{
    return util_jstr(t, path);
}

/* docs/spec.md, "Expressing other PostgreSQL distributions", for a release/cluster "pg". */
static void test_targets(void **state)
{
    (void)state;
    static const struct {
        struct plugin_target_opts o;
        const char *host, *secret, *key, *user;
    } cases[] = {
        {{.distro = PLUGIN_BITNAMI, .name = "pg"},
         "pg-postgresql",
         "pg-postgresql",
         "postgres-password",
         "postgres"},
        {{.distro = PLUGIN_BITNAMI, .name = "pg", .user = "app"},
         "pg-postgresql",
         "pg-postgresql",
         "password",
         "app"},
        {{.distro = PLUGIN_BITNAMI, .name = "pg", .replication = true},
         "pg-postgresql-primary",
         "pg-postgresql",
         "postgres-password",
         "postgres"},
        {{.distro = PLUGIN_BITNAMI, .name = "pg", .replication = true, .service = "ro"},
         "pg-postgresql-read",
         "pg-postgresql",
         "postgres-password",
         "postgres"},
        {{.distro = PLUGIN_BITNAMI_HA, .name = "pg"},
         "pg-postgresql-ha-pgpool",
         "pg-postgresql-ha-postgresql",
         "password",
         "postgres"},
        {{.distro = PLUGIN_STACKGRES, .name = "pg"}, "pg", "pg", "superuser-password", "postgres"},
        {{.distro = PLUGIN_STACKGRES, .name = "pg", .service = "ro"},
         "pg-replicas",
         "pg",
         "superuser-password",
         "postgres"},
        {{.distro = PLUGIN_ZALANDO, .name = "pg"},
         "pg",
         "postgres.pg.credentials.postgresql.acid.zalan.do",
         "password",
         "postgres"},
        {{.distro = PLUGIN_ZALANDO, .name = "pg", .user = "app_user", .service = "ro"},
         "pg-repl",
         "app-user.pg.credentials.postgresql.acid.zalan.do",
         "password",
         "app_user"},
        {{.distro = PLUGIN_HOST, .name = "db", .user = "app", .password_secret = "pg-app/pw"},
         "db",
         "pg-app",
         "pw",
         "app"},
        {{.distro = PLUGIN_HOST, .name = "db", .user = "app", .password_secret = "pg-app"},
         "db",
         "pg-app",
         "password",
         "app"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct plugin_target_expect e;
        char err[256];
        cJSON *t = plugin_target_build(&cases[i].o, &e, err, sizeof(err));
        if (!t)
            fail_msg("case %zu: %s", i, err);
        assert_string_equal(tstr(t, "host"), cases[i].host);
        assert_string_equal(tstr(t, "user"), cases[i].user);
        assert_string_equal(tstr(t, "passwordSecretRef.name"), cases[i].secret);
        assert_string_equal(tstr(t, "passwordSecretRef.key"), cases[i].key);
        assert_string_equal(e.secret, cases[i].secret);
        assert_string_equal(e.key, cases[i].key);
        cJSON_Delete(t);
    }
    struct plugin_target_expect e;
    char err[256];
    struct plugin_target_opts cn = {.distro = PLUGIN_CNPG, .name = "pg", .service = "ro"};
    cJSON *t = plugin_target_build(&cn, &e, err, sizeof(err));
    assert_non_null(t);
    assert_string_equal(tstr(t, "cnpg.clusterName"), "pg");
    assert_string_equal(tstr(t, "cnpg.service"), "ro");
    assert_string_equal(e.service, "pg-ro");
    /* the role comes from the Secret's username (no user in the spec), checked before creating */
    assert_null(cJSON_GetObjectItemCaseSensitive(t, "user"));
    assert_string_equal(e.secret, "pg-app");
    assert_string_equal(e.user_key, "username");
    cJSON_Delete(t);
    cn.user = "bench"; /* --user with --cnpg: an override of the Secret's username */
    t = plugin_target_build(&cn, &e, err, sizeof(err));
    assert_non_null(t);
    assert_string_equal(tstr(t, "user"), "bench");
    assert_string_equal(e.user_key, "");
    cJSON_Delete(t);
    struct plugin_target_opts bad[] = {
        {.distro = PLUGIN_CNPG, .name = "pg", .password_secret = "x"},
        {.distro = PLUGIN_HOST, .name = "db"},
        {.distro = PLUGIN_BITNAMI, .name = "pg", .service = "ro"},
        {.distro = PLUGIN_STACKGRES, .name = "pg", .service = "r"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_null(plugin_target_build(&bad[i], &e, err, sizeof(err)));
        assert_true(err[0] != '\0');
    }
}

/* The BenchmarkRun passes the operator's spec parser, and the children are its manifests. */
static void test_build(void **state)
{
    (void)state;
    struct plugin_target_opts to = {
        .distro = PLUGIN_HOST, .name = "db", .user = "app", .password_secret = "pg-app"};
    struct plugin_target_expect e;
    char err[512];
    cJSON *target = plugin_target_build(&to, &e, err, sizeof(err));
    const char *args[] = {"-c", "8", "-j", "2", "-T", "30", "-M", "prepared", "-b", "select-only"};
    struct plugin_run_opts ro = {.c = {.name = "x",
                                       .ns = "default",
                                       .workers = 2,
                                       .ttl_s = 60,
                                       .node_selector = {"disk=ssd"},
                                       .n_node_selector = 1},
                                 .target = target,
                                 .pgbench_args = args,
                                 .npgbench_args = 10,
                                 .init_scale = 5};
    cJSON *br = plugin_build_run(&ro, err, sizeof(err));
    if (!br)
        fail_msg("%s", err);
    assert_int_equal((int)util_jnum(br, "spec.workload.pgbench.init.scale", 0), 5);
    assert_string_equal(util_jstr(br, "spec.podTemplate.nodeSelector.disk"), "ssd");
    struct api_config cfg;
    api_config_defaults(&cfg);
    cJSON *kids = plugin_children(br, &cfg, 1000, err, sizeof(err));
    assert_non_null(kids);
    assert_int_equal(cJSON_GetArraySize(kids), 2);
    assert_string_equal(util_jstr(cJSON_GetArrayItem(kids, 0), "metadata.name"), "x-init");
    cJSON *run = cJSON_GetArrayItem(kids, 1);
    assert_string_equal(util_jstr(run, "metadata.name"), "x-run");
    assert_int_equal((int)util_jnum(run, "spec.parallelism", 0), 2);
    assert_int_equal((int)util_jnum(run, "spec.ttlSecondsAfterFinished", 0), 60);
    cJSON_Delete(kids);
    cJSON_Delete(br);

    /* a combination the operator refuses is refused here, naming the spec field */
    const char *bad[] = {"-c", "1"};
    ro.pgbench_args = bad;
    ro.npgbench_args = 2;
    assert_null(plugin_build_run(&ro, err, sizeof(err)));
    assert_non_null(strstr(err, "workers"));
    cJSON_Delete(target);

    struct plugin_fio_opts fo = {
        .c = {.name = "f", .ns = "default", .ttl_s = -1}, .storage_class = "fast", .preset = "wal"};
    br = plugin_build_fio(&fo, err, sizeof(err));
    if (!br)
        fail_msg("%s", err);
    const cJSON *job = cJSON_GetArrayItem(util_jget(br, "spec.workload.fio.jobs"), 0);
    assert_string_equal(util_jstr(job, "rw"), "write");
    assert_string_equal(util_jstr(job, "bs"), "8k");
    assert_int_equal((int)util_jnum(job, "fdatasync", 0), 1);
    assert_int_equal((int)util_jnum(job, "numjobs", 0), 1);
    assert_true(cJSON_IsFalse(util_jget(job, "direct"))); /* WAL goes through the page cache */
    assert_string_equal(util_jstr(job, "ioengine"), "sync");
    kids = plugin_children(br, &cfg, 1000, err, sizeof(err));
    assert_string_equal(util_jstr(cJSON_GetArrayItem(kids, 0), "kind"), "PersistentVolumeClaim");
    cJSON_Delete(kids);
    cJSON_Delete(br);
    fo.preset = "seq";
    assert_null(plugin_build_fio(&fo, err, sizeof(err)));
    assert_non_null(strstr(err, "--preset"));

    assert_int_equal(plugin_parse_duration("90"), 90);
    assert_int_equal(plugin_parse_duration("15m"), 900);
    assert_int_equal(plugin_parse_duration("2h"), 7200);
    assert_int_equal(plugin_parse_duration("1x"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),      cmocka_unit_test(test_forms),
        cmocka_unit_test(test_passthrough), cmocka_unit_test(test_refused),
        cmocka_unit_test(test_targets),     cmocka_unit_test(test_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
