/* The operator's command line: the flag table and the parser and help text made from it. */
#include "pkg/controller/cmdline.h"

#include <errno.h>
#include <string.h>

#include "pkg/util/buf.h"
#include "pkg/util/err.h"
#include "pkg/util/opt.h"

#define F(f) offsetof(struct ctrl_cmdline, f)
static const char *const log_levels[] = {"debug", "info", "warn", "error", NULL};
static const char *const log_formats[] = {"json", "text", NULL};

static const struct util_opt rows[] = {
    {.name = "kubeconfig",
     .type = UTIL_OPT_STR,
     .off = F(kubeconfig),
     .metavar = "PATH",
     .group = "cluster",
     .help = "kubeconfig (default: in-cluster, else $KUBECONFIG, ~/.kube/config)"},
    {.name = "context",
     .type = UTIL_OPT_STR,
     .off = F(context),
     .metavar = "NAME",
     .group = "cluster",
     .help = "kubeconfig context (default: current-context)"},
    {.name = "namespace",
     .type = UTIL_OPT_STR,
     .off = F(copt.namespace),
     .metavar = "NS",
     .group = "cluster",
     .help = "watch one namespace (default: all namespaces)"},
    {.name = "workers",
     .type = UTIL_OPT_INT,
     .off = F(copt.workers),
     .min = 1,
     .max = 256,
     .def = 8,
     .metavar = "N",
     .group = "cluster",
     .help = "concurrent reconciles"},
    {.name = "runner-image",
     .type = UTIL_OPT_STR,
     .off = F(copt.cfg.runner_image),
     .metavar = "IMAGE",
     .group = "runs",
     .help = "default runner image (default ghcr.io/pgbench-operator/runner:<version>)"},
    {.name = "runner-command",
     .type = UTIL_OPT_STR,
     .off = F(copt.cfg.runner_command),
     .metavar = "PATH",
     .group = "runs",
     .help = "runner path inside the image (default /usr/local/bin/pgbench-runner)"},
    {.name = "start-delay",
     .type = UTIL_OPT_LONG,
     .off = F(copt.cfg.start_delay_s),
     .min = 0,
     .max = 3600,
     .metavar = "S",
     .expect = "0 to 3600 seconds",
     .group = "runs",
     .help = "time the run's pods get to become ready, added to its deadline (default 10)"},
    {.name = "progress-interval",
     .type = UTIL_OPT_LONG,
     .off = F(copt.cfg.progress_interval_s),
     .min = 0,
     .max = 3600,
     .metavar = "S",
     .expect = "0 (off) to 3600 seconds",
     .group = "runs",
     .help = "status.progress while a run goes, every S seconds (default 10; 0 = off)"},
    {.name = "metrics-addr",
     .type = UTIL_OPT_STR,
     .off = F(metrics_addr),
     .def_str = ":8080",
     .metavar = "ADDR",
     .group = "serving",
     .help = "/healthz /readyz /metrics listen address (0 = off)"},
    {.name = "leader-elect",
     .type = UTIL_OPT_BOOL,
     .off = F(leader_elect),
     .group = "serving",
     .help = "elect a leader with a coordination.k8s.io/v1 Lease"},
    {.name = "lease-name",
     .type = UTIL_OPT_STR,
     .off = F(lease_name),
     .def_str = "pgbench-operator",
     .metavar = "NAME",
     .group = "serving",
     .help = "Lease name"},
    {.name = "lease-namespace",
     .type = UTIL_OPT_STR,
     .off = F(lease_ns),
     .metavar = "NS",
     .group = "serving",
     .help = "Lease namespace (default: the kubeconfig's namespace)"},
    {.name = "lease-duration",
     .type = UTIL_OPT_INT,
     .off = F(lease_duration_s),
     .min = 2,
     .max = 3600,
     .def = 15,
     .metavar = "S",
     .expect = "2 to 3600 seconds",
     .group = "serving",
     .help = "Lease duration"},
    {.name = "log-level",
     .type = UTIL_OPT_CHOICE,
     .off = F(log_level),
     .def_str = "info",
     .choices = log_levels,
     .metavar = "LEVEL",
     .group = "logging",
     .help = "the least severe records written"},
    {.name = "log-format",
     .type = UTIL_OPT_CHOICE,
     .off = F(log_format),
     .def_str = "json",
     .choices = log_formats,
     .metavar = "FORMAT",
     .group = "logging",
     .help = "one JSON object per line, or key=value text"},
    {.name = "version",
     .type = UTIL_OPT_BOOL,
     .off = F(version),
     .group = "other",
     .help = "print the version and commit"},
};

static struct util_opt_set set_of(struct ctrl_cmdline *o)
{
    return (struct util_opt_set){rows, UTIL_OPT_N(rows), o};
}

void ctrl_cmdline_defaults(struct ctrl_cmdline *o)
{
    memset(o, 0, sizeof(*o));
    api_config_defaults(&o->copt.cfg); /* the runner image, command, start delay, progress */
    struct util_opt_set set = set_of(o);
    /* the rows' own defaults, the api_config ones kept where a row has none */
    struct api_config cfg = o->copt.cfg;
    util_opt_defaults(&set, 1);
    o->copt.cfg = cfg;
}

int ctrl_cmdline_parse(int argc, char **argv, struct ctrl_cmdline *o, char *err, size_t errlen)
{
    ctrl_cmdline_defaults(o);
    struct util_opt_set set = set_of(o);
    struct util_opt_parse p = {.sets = &set, .nsets = 1, .abbrev = true}; /* as getopt_long */
    int rc = util_opt_parse(&p, argc, argv, err, errlen);
    if (rc == UTIL_OPT_HELP)
        return CTRL_CMDLINE_HELP;
    if (rc)
        return -EINVAL;
    if (p.next < argc)
        return util_errf(err, errlen, "unexpected argument %s", argv[p.next]);
    return o->version ? CTRL_CMDLINE_VERSION : 0;
}

int ctrl_cmdline_usage(struct buf *out)
{
    struct ctrl_cmdline o;
    struct util_opt_set set = set_of(&o);
    int rc = buf_puts(out, "usage: pgbench-operator [flags]\n\n");
    return rc ? rc : util_opt_help(out, &set, 1);
}
