/* The operator's command line (pkg/controller/cmdline.c): defaults, every flag in both spellings,
 * and refusals that name the flag (unknown, missing value, out of range, stray argument). */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pkg/controller/cmdline.h"
#include "pkg/util/buf.h"
#include "pkg/util/version.h"

static int parse(char **argv, struct ctrl_cmdline *o, char *err, size_t errlen)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return ctrl_cmdline_parse(argc, argv, o, err, errlen);
}

static void test_defaults(void **state)
{
    (void)state;
    char *argv[] = {"pgbench-operator", NULL};
    struct ctrl_cmdline o;
    char err[256];
    assert_int_equal(parse(argv, &o, err, sizeof(err)), 0);
    assert_null(o.kubeconfig);
    assert_null(o.context);
    assert_null(o.lease_ns);
    assert_null(o.copt.namespace);
    assert_string_equal(o.metrics_addr, ":8080");
    assert_string_equal(o.lease_name, "pgbench-operator");
    assert_int_equal(o.lease_duration_s, 15);
    assert_false(o.leader_elect);
    assert_string_equal(o.log_level, "info");
    assert_string_equal(o.log_format, "json");
    assert_int_equal(o.copt.workers, 8);
    assert_int_equal(o.copt.cfg.start_delay_s, 10);
    assert_int_equal(o.copt.cfg.progress_interval_s, 10);
    /* the image of this version, as scripts/images.sh tags it and the chart defaults to */
    char want[256];
    (void)snprintf(want, sizeof(want), "ghcr.io/pgbench-operator/runner:%s", util_version());
    assert_string_equal(o.copt.cfg.runner_image, want);
    assert_string_equal(o.copt.cfg.runner_command, "/usr/local/bin/pgbench-runner");
}

static void test_every_flag(void **state)
{
    (void)state;
    char *argv[] = {"pgbench-operator",
                    "--kubeconfig",
                    "/k",
                    "--context",
                    "ctx",
                    "--namespace",
                    "ns1",
                    "--runner-image",
                    "img:1",
                    "--runner-command",
                    "/bin/r",
                    "--start-delay",
                    "0",
                    "--progress-interval",
                    "3600",
                    "--metrics-addr",
                    "127.0.0.1:9",
                    "--leader-elect",
                    "--lease-name",
                    "ln",
                    "--lease-namespace",
                    "lns",
                    "--lease-duration",
                    "2",
                    "--log-level",
                    "debug",
                    "--log-format",
                    "text",
                    "--workers",
                    "256",
                    NULL};
    struct ctrl_cmdline o;
    char err[256];
    assert_int_equal(parse(argv, &o, err, sizeof(err)), 0);
    assert_string_equal(o.kubeconfig, "/k");
    assert_string_equal(o.context, "ctx");
    assert_string_equal(o.copt.namespace, "ns1");
    assert_string_equal(o.copt.cfg.runner_image, "img:1");
    assert_string_equal(o.copt.cfg.runner_command, "/bin/r");
    assert_int_equal(o.copt.cfg.start_delay_s, 0);
    assert_int_equal(o.copt.cfg.progress_interval_s, 3600);
    assert_string_equal(o.metrics_addr, "127.0.0.1:9");
    assert_true(o.leader_elect);
    assert_string_equal(o.lease_name, "ln");
    assert_string_equal(o.lease_ns, "lns");
    assert_int_equal(o.lease_duration_s, 2);
    assert_string_equal(o.log_level, "debug");
    assert_string_equal(o.log_format, "text");
    assert_int_equal(o.copt.workers, 256);
}

/* The arguments the Helm chart's Deployment passes (charts/pgbench-operator/templates/
 * deployment.yaml, --flag=value), and the last of a repeated flag wins. */
static void test_chart_args(void **state)
{
    (void)state;
    char *argv[] = {"pgbench-operator",
                    "--metrics-addr=:8080",
                    "--runner-image=r:2",
                    "--log-level=warn",
                    "--workers=4",
                    "--namespace=a",
                    "--leader-elect",
                    "--lease-name=pgbench-operator-leader",
                    "--lease-namespace=sys",
                    "--workers",
                    "5",
                    NULL};
    struct ctrl_cmdline o;
    char err[256];
    assert_int_equal(parse(argv, &o, err, sizeof(err)), 0);
    assert_string_equal(o.metrics_addr, ":8080");
    assert_string_equal(o.copt.cfg.runner_image, "r:2");
    assert_string_equal(o.log_level, "warn");
    assert_string_equal(o.copt.namespace, "a");
    assert_string_equal(o.lease_name, "pgbench-operator-leader");
    assert_string_equal(o.lease_ns, "sys");
    assert_int_equal(o.copt.workers, 5);
}

static void test_refusals_name_the_flag(void **state)
{
    (void)state;
    static const struct {
        const char *flag, *value, *want;
    } cases[] = {
        {"--start-delay", "3601", "--start-delay \"3601\": expected 0 to 3600 seconds"},
        {"--start-delay", "-1", "--start-delay \"-1\": expected 0 to 3600 seconds"},
        {"--start-delay", "5s", "--start-delay \"5s\": expected 0 to 3600 seconds"},
        {"--progress-interval", "", "--progress-interval \"\": expected 0 (off) to 3600 seconds"},
        {"--lease-duration", "1", "--lease-duration \"1\": expected 2 to 3600 seconds"},
        {"--workers", "0", "--workers \"0\": expected an integer 1..256"},
        {"--workers", "257", "--workers \"257\": expected an integer 1..256"},
        {"--workers", "99999999999999999999", "--workers \"99999999999999999999\": expected"},
        {"--log-level", "verbose",
         "--log-level \"verbose\": expected one of debug, info, warn, error"},
        {"--log-format", "xml", "--log-format \"xml\": expected one of json, text"},
        {"--bogus", "1", "unknown flag --bogus"},
        {"--wrokers", "1", "unknown flag --wrokers (did you mean --workers?)"},
        {"-x", "1", "unknown flag -x"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *argv[] = {"pgbench-operator",     "--workers", "3", (char *)cases[i].flag,
                        (char *)cases[i].value, NULL};
        struct ctrl_cmdline o;
        char err[256];
        assert_int_equal(parse(argv, &o, err, sizeof(err)), -EINVAL);
        if (strncmp(err, cases[i].want, strlen(cases[i].want)) != 0)
            fail_msg("%s %s: '%s', want '%s'", cases[i].flag, cases[i].value, err, cases[i].want);
    }
}

static void test_missing_value_and_stray_argument(void **state)
{
    (void)state;
    struct ctrl_cmdline o;
    char err[256];
    char *last[] = {"pgbench-operator", "--leader-elect", "--workers", NULL};
    assert_int_equal(parse(last, &o, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--workers needs a value (N)");
    char *stray[] = {"pgbench-operator", "--workers", "2", "extra", NULL};
    assert_int_equal(parse(stray, &o, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "unexpected argument extra");
    /* a flag without an argument takes none */
    char *flag[] = {"pgbench-operator", "--leader-elect=yes", NULL};
    assert_int_equal(parse(flag, &o, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--leader-elect takes no value");
    char *unknown[] = {"pgbench-operator", "--no-such=1", NULL};
    assert_int_equal(parse(unknown, &o, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "unknown flag --no-such");
}

static void test_help(void **state)
{
    (void)state;
    struct ctrl_cmdline o;
    char err[256];
    char *longh[] = {"pgbench-operator", "--workers", "2", "--help", "--bogus", NULL};
    assert_int_equal(parse(longh, &o, err, sizeof(err)), CTRL_CMDLINE_HELP);
    char *shorth[] = {"pgbench-operator", "-h", NULL};
    assert_int_equal(parse(shorth, &o, err, sizeof(err)), CTRL_CMDLINE_HELP);
    char *version[] = {"pgbench-operator", "--version", NULL};
    assert_int_equal(parse(version, &o, err, sizeof(err)), CTRL_CMDLINE_VERSION);

    struct buf b = BUF_INIT(0);
    assert_int_equal(ctrl_cmdline_usage(&b), 0);
    assert_true(strncmp(b.data, "usage: pgbench-operator [flags]\n", 32) == 0);
    /* every flag of test_every_flag, with its argument where it takes one */
    static const char *const lines[] = {"  --kubeconfig PATH ",
                                        "  --context NAME ",
                                        "  --namespace NS ",
                                        "  --runner-image IMAGE ",
                                        "  --runner-command PATH ",
                                        "  --start-delay S ",
                                        "  --progress-interval S ",
                                        "  --metrics-addr ADDR ",
                                        "  --leader-elect ",
                                        "  --lease-name NAME ",
                                        "  --lease-namespace NS ",
                                        "  --lease-duration S ",
                                        "  --log-level LEVEL ",
                                        "  --log-format FORMAT ",
                                        "  --workers N ",
                                        "  --version ",
                                        "  -h, --help "};
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        if (!strstr(b.data, lines[i]))
            fail_msg("no line '%s' in:\n%s", lines[i], b.data);
    /* ranges and defaults from the rows */
    assert_non_null(strstr(b.data, "Lease duration [2..3600, default 15]\n"));
    assert_non_null(strstr(b.data, "concurrent reconciles [1..256, default 8]\n"));
    assert_non_null(strstr(b.data, "Lease name [default pgbench-operator]\n"));
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_flag),
        cmocka_unit_test(test_chart_args),
        cmocka_unit_test(test_refusals_name_the_flag),
        cmocka_unit_test(test_missing_value_and_stray_argument),
        cmocka_unit_test(test_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
