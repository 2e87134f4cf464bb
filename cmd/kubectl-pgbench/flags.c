/* kubectl-pgbench: the flag tables several commands share (kubectl's; the output and --wait;
 * the pods'; run's target and load) and the one parse every command's flags go through
 * (pkg/util/opt.h: the help text comes from the same rows). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/plugin/build.h"
#include "pkg/util/buf.h"
#include "pkg/util/err.h"
#include "plugin.h"
#include "run.h"

#define FIELD(base, off, type) ((type *)(void *)((char *)(base) + (off)))

/* ---- values ------------------------------------------------------------------------------ */

int flag_duration(void *base, const struct util_opt *o, const char *flag, const char *v, char *err,
                  size_t errlen)
{
    long d = plugin_parse_duration(v);
    if (d < 0 || (double)d < o->min || (double)d > o->max)
        return util_opt_bad(o, flag, v, err, errlen);
    if (o->tag == FLAG_INT)
        *FIELD(base, o->off, int) = (int)d;
    else
        *FIELD(base, o->off, long) = d;
    return 0;
}

/* --wait-timeout: a duration, and --wait. */
static int wait_timeout(void *base, const struct util_opt *o, const char *flag, const char *v,
                        char *err, size_t errlen)
{
    struct act *x = base;
    int rc = flag_duration(base, o, flag, v, err, errlen);
    if (!rc)
        x->wait = true;
    return rc;
}

/* --host, --cnpg, --bitnami, --stackgres, --zalando (the row's tag is the distribution). */
static int target(void *base, const struct util_opt *o, const char *flag, const char *v, char *err,
                  size_t errlen)
{
    (void)flag;
    struct run_cli *r = base;
    char name[sizeof(r->distro_buf)];
    (void)snprintf(name, sizeof(name), "--%s", o->name);
    if (r->distro_flag && strcmp(r->distro_flag, name) != 0)
        return util_errf(err, errlen, "%s and %s: give one target", r->distro_flag, name);
    (void)snprintf(r->distro_buf, sizeof(r->distro_buf), "%s", name);
    r->distro_flag = r->distro_buf;
    r->to.distro = (enum plugin_distro)o->tag;
    r->to.name = v;
    return 0;
}

/* --connect-retry: a duration, and given. */
static int connect_retry(void *base, const struct util_opt *o, const char *flag, const char *v,
                         char *err, size_t errlen)
{
    struct run_cli *r = base;
    int rc = flag_duration(base, o, flag, v, err, errlen);
    if (!rc)
        r->to.connect_retry_set = true;
    return rc;
}

/* --placement: spread or pack; custom has constraints only YAML can carry. */
static int placement(void *base, const struct util_opt *o, const char *flag, const char *v,
                     char *err, size_t errlen)
{
    struct run_cli *r = base;
    if (strcmp(v, "custom") == 0)
        return util_errf(err, errlen,
                         "%s custom: the constraints are YAML-only; write "
                         "spec.placement.mode: custom and spec.placement.topologySpreadConstraints "
                         "(docs/spec.md), e.g. from --dry-run's output",
                         flag);
    if (strcmp(v, "spread") != 0 && strcmp(v, "pack") != 0)
        return util_opt_bad(o, flag, v, err, errlen);
    r->ro.placement = v;
    return 0;
}

/* ---- the tables -------------------------------------------------------------------------- */

#define KF(f) offsetof(struct kc_flags, f)
static const struct util_opt kube_rows[] = {
    {.name = "kubeconfig",
     .type = UTIL_OPT_STR,
     .off = KF(kubeconfig),
     .metavar = "PATH",
     .group = "kubectl",
     .help = "default $KUBECONFIG, else ~/.kube/config"},
    {.name = "context",
     .type = UTIL_OPT_STR,
     .off = KF(context),
     .metavar = "NAME",
     .group = "kubectl",
     .help = "the kubeconfig's context (default: its current-context)"},
    {.name = "namespace",
     .shrt = 'n',
     .type = UTIL_OPT_STR,
     .off = KF(ns),
     .metavar = "NS",
     .group = "kubectl",
     .help = "default: the context's namespace"},
};
struct util_opt_set flag_kube_set(struct kc_flags *kf)
{
    return (struct util_opt_set){kube_rows, UTIL_OPT_N(kube_rows), kf};
}

static const struct util_opt_enum dry_modes[] = {
    {"none", DRY_NONE}, {"client", DRY_CLIENT}, {"server", DRY_SERVER}, {NULL, 0}};
static const char *const outputs[] = {"yaml", "json", "name", NULL};

#define XF(f) offsetof(struct act, f)
static const struct util_opt act_rows[] = {
    {.name = "dry-run",
     .type = UTIL_OPT_ENUM,
     .flags = UTIL_OPT_OPTIONAL,
     .off = XF(dry),
     .enums = dry_modes,
     .implied = "client",
     .metavar = "client|server",
     .group = "output",
     .help = "print what would be created, the children the operator would make too (server: "
             "also validated by the API server); a bare --dry-run is client"},
    {.name = "output",
     .shrt = 'o',
     .type = UTIL_OPT_CHOICE,
     .off = XF(output),
     .choices = outputs,
     .metavar = "yaml|json|name",
     .group = "output",
     .help = "output of --dry-run and of creation (default yaml / name)"},
    {.name = "wait",
     .type = UTIL_OPT_BOOL,
     .off = XF(wait),
     .group = "output",
     .help = "follow it to its end; exit 3 when it fails"},
    {.name = "wait-timeout",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .off = XF(wait_timeout_s),
     .min = 1,
     .max = 1e12,
     .cb = wait_timeout,
     .metavar = "DURATION",
     .expect = "a duration such as 90s, 15m, 2h",
     .group = "output",
     .help = "give up --wait after this long (exit 3)"},
};

static const char *const cleanups[] = {"Keep", "Delete", NULL};

#define CF(f) offsetof(struct plugin_common_opts, f)
static const struct util_opt common_rows[] = {
    {.name = "name",
     .alias = "job-name",
     .type = UTIL_OPT_STR,
     .off = CF(name),
     .metavar = "NAME",
     .group = "pods",
     .help = "the object's name (default <command>-YYYYMMDD-HHMMSS)"},
    {.name = "workers",
     .type = UTIL_OPT_INT,
     .off = CF(workers),
     .min = 1,
     .max = 256,
     .metavar = "N",
     .group = "pods",
     .help = "worker pods that run the load together (spec default 1)"},
    {.name = "node-selector",
     .type = UTIL_OPT_STR,
     .flags = UTIL_OPT_MULTI,
     .off = CF(node_selector),
     .off_n = CF(n_node_selector),
     .max = PLUGIN_MAX_SELECTORS,
     .metavar = "K=V",
     .group = "pods",
     .help = "the pods' nodeSelector"},
    {.name = "ttl",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .off = CF(ttl_s),
     .min = 0,
     .max = 1e12,
     .cb = flag_duration,
     .metavar = "DURATION",
     .expect = "seconds, or a duration such as 90s, 15m, 2h, 1d",
     .group = "pods",
     .help = "the Jobs' ttlSecondsAfterFinished"},
    {.name = "timeout",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .off = CF(timeout_s),
     .min = 1,
     .max = 1e12,
     .cb = flag_duration,
     .metavar = "DURATION",
     .expect = "a duration such as 90s, 15m, 2h",
     .group = "pods",
     .help = "the run's deadline (spec timeoutSeconds)"},
    {.name = "image",
     .type = UTIL_OPT_STR,
     .off = CF(image),
     .metavar = "IMAGE",
     .group = "pods",
     .help = "the runner image (default: the operator's)"},
    {.name = "cleanup",
     .type = UTIL_OPT_CHOICE,
     .off = CF(cleanup),
     .choices = cleanups,
     .metavar = "Keep|Delete",
     .group = "pods",
     .help = "what happens to the Jobs when the run ends"},
};

#define TF(f) offsetof(struct run_cli, f)
static const char *const archs[] = {"standalone", "replication", "ha", NULL};
static const struct util_opt target_rows[] = {
    {.name = "host",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = target,
     .tag = PLUGIN_HOST,
     .metavar = "H",
     .group = "TARGET (one of)",
     .help = "a host or Service name (with --user, --password-secret SECRET[/KEY], --port)"},
    {.name = "cnpg",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = target,
     .tag = PLUGIN_CNPG,
     .metavar = "CLUSTER",
     .group = "TARGET (one of)",
     .help = "a CloudNativePG cluster (host from it; user and password from its <CLUSTER>-app "
             "Secret)"},
    {.name = "bitnami",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = target,
     .tag = PLUGIN_BITNAMI,
     .metavar = "RELEASE",
     .group = "TARGET (one of)",
     .help = "a Bitnami postgresql or postgresql-ha release (--bitnami-arch)"},
    {.name = "stackgres",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = target,
     .tag = PLUGIN_STACKGRES,
     .metavar = "CLUSTER",
     .group = "TARGET (one of)",
     .help = "a StackGres SGCluster"},
    {.name = "zalando",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = target,
     .tag = PLUGIN_ZALANDO,
     .metavar = "CLUSTER",
     .group = "TARGET (one of)",
     .help = "a Zalando postgres-operator cluster"},
    {.name = "user",
     .type = UTIL_OPT_STR,
     .off = TF(to.user),
     .metavar = "U",
     .group = "the target's connection",
     .help = "the role (default: the distribution's)"},
    {.name = "password-secret",
     .type = UTIL_OPT_STR,
     .off = TF(to.password_secret),
     .metavar = "SECRET[/KEY]",
     .group = "the target's connection",
     .help = "the Secret (and key, default password) holding the password"},
    {.name = "port",
     .type = UTIL_OPT_INT,
     .off = TF(to.port),
     .min = 1,
     .max = 65535,
     .metavar = "P",
     .group = "the target's connection",
     .help = "default 5432"},
    {.name = "service",
     .type = UTIL_OPT_STR,
     .off = TF(to.service),
     .metavar = "rw|ro|r",
     .group = "the target's connection",
     .help = "which of the cluster's Services (r: --cnpg's any instance; default rw)"},
    {.name = "bitnami-arch",
     .type = UTIL_OPT_CHOICE,
     .off = TF(arch),
     .choices = archs,
     .metavar = "standalone|replication|ha",
     .group = "the target's connection",
     .help = "the release's architecture (default: from the Services it has)"},
    {.name = "db-name",
     .alias = "database",
     .type = UTIL_OPT_STR,
     .off = TF(to.database),
     .metavar = "NAME",
     .group = "the target's connection",
     .help = "default: the user name, as pgbench; app with --cnpg"},
    {.name = "sslmode",
     .type = UTIL_OPT_STR,
     .off = TF(to.ssl_mode),
     .metavar = "MODE",
     .group = "the target's connection",
     .help = "libpq's sslmode"},
    {.name = "connect-retry",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .off = TF(to.connect_retry_s),
     .min = 0,
     .max = 3600,
     .cb = connect_retry,
     .metavar = "DURATION",
     .expect = "a duration up to 1h such as 30s, 5m (0: try once)",
     .group = "the target's connection",
     .help = "retry a host that does not resolve or refuses this long (default 30s; longer when "
             "its Service comes later)"},
    {.name = "init",
     .shrt = 'i',
     .type = UTIL_OPT_BOOL,
     .off = TF(init),
     .group = "the tables",
     .help = "initialise the tables first (pgbench -i), with -s N"},
    {.name = "scale",
     .shrt = 's',
     .type = UTIL_OPT_INT,
     .off = TF(ro.init_scale),
     .min = 1,
     .max = 100000,
     .metavar = "N",
     .group = "the tables",
     .help = "--init's scale factor (pgbench's own -s for scripts goes after --)"},
    {.name = "foreign-keys",
     .type = UTIL_OPT_BOOL,
     .off = TF(ro.foreign_keys),
     .group = "the tables",
     .help = "--init: with foreign keys"},
    {.name = "partitions",
     .type = UTIL_OPT_INT,
     .off = TF(ro.partitions),
     .min = 0,
     .max = 10000,
     .metavar = "N",
     .group = "the tables",
     .help = "--init: pgbench_accounts in N partitions"},
    {.name = "init-generation",
     .type = UTIL_OPT_STR,
     .off = TF(ro.init_generation),
     .metavar = "server|client",
     .group = "the tables",
     .help = "--init: data made in the server (-I G, the default where the runner's pgbench has "
             "it) or streamed from the init pod (g)"},
    {.name = "init-steps",
     .shrt = 'I',
     .type = UTIL_OPT_STR,
     .off = TF(ro.init_steps),
     .metavar = "STEPS",
     .group = "the tables",
     .help = "--init: pgbench -i's steps (dtgGvpf)"},
    {.name = "fillfactor",
     .shrt = 'F',
     .type = UTIL_OPT_INT,
     .off = TF(ro.fillfactor),
     .min = 10,
     .max = 100,
     .metavar = "PERCENT",
     .group = "the tables",
     .help = "--init: the tables' fill factor"},
    {.name = "unlogged-tables",
     .type = UTIL_OPT_BOOL,
     .off = TF(ro.unlogged_tables),
     .group = "the tables",
     .help = "--init: unlogged tables"},
    {.name = "tablespace",
     .type = UTIL_OPT_STR,
     .off = TF(ro.tablespace),
     .metavar = "NAME",
     .group = "the tables",
     .help = "--init: the tables' tablespace"},
    {.name = "index-tablespace",
     .type = UTIL_OPT_STR,
     .off = TF(ro.index_tablespace),
     .metavar = "NAME",
     .group = "the tables",
     .help = "--init: the indexes' tablespace"},
    {.name = "create-database",
     .type = UTIL_OPT_BOOL,
     .off = TF(ro.create_database),
     .group = "the tables",
     .help = "create the database when it is missing"},
    {.name = "warmup",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .off = TF(ro.warmup_s),
     .min = 0,
     .max = 1e12,
     .cb = flag_duration,
     .metavar = "DURATION",
     .expect = "seconds, or a duration such as 30s or 2m",
     .group = "the tables",
     .help = "leave the first seconds out of the summary and percentiles (spec "
             "run.warmupSeconds; the report shades them)"},
    {.name = "placement",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = placement,
     .metavar = "spread|pack",
     .expect = "spread or pack (custom: YAML only)",
     .group = "pods",
     .help = "spread: the workers over the nodes, one per node where it can (the default); pack: "
             "on as few nodes as the scheduler can. custom (your own topologySpreadConstraints) "
             "is YAML-only: spec.placement"},
};

size_t flag_act_sets(struct act *x, struct plugin_common_opts *c, struct util_opt_set *out)
{
    out[0] = (struct util_opt_set){common_rows, UTIL_OPT_N(common_rows), c};
    out[1] = (struct util_opt_set){act_rows, UTIL_OPT_N(act_rows), x};
    out[2] = flag_kube_set(&x->kf);
    return 3;
}

size_t flag_run_sets(struct run_cli *r, struct util_opt_set *out)
{
    out[0] = (struct util_opt_set){target_rows, UTIL_OPT_N(target_rows), r};
    return 1 + flag_act_sets(r->x, &r->ro.c, out + 1);
}

/* ---- the parse --------------------------------------------------------------------------- */

/* The help: the command's text, its flags by group, the footer. */
static void print_help(const struct cmd_flags *f)
{
    struct buf b = BUF_INIT(0);
    (void)buf_printf(&b, "%s\n", f->usage);
    (void)util_opt_help(&b, f->sets, f->nsets);
    if (f->footer)
        (void)buf_printf(&b, "\n%s\n", f->footer);
    emit(b.data, b.len);
    buf_free(&b);
}

int flags_parse(const struct cmd_flags *f, struct args *a)
{
    for (size_t s = 0; s < f->nsets; s++)
        util_opt_defaults(&f->sets[s], 1);
    struct util_opt_parse p = {
        .sets = f->sets, .nsets = f->nsets, .word = f->word, .before = f->before, .ctx = f->ctx};
    char err[1024];
    int rc = util_opt_parse(&p, a->argc, a->argv, err, sizeof(err));
    if (rc == UTIL_OPT_HELP) {
        print_help(f);
        exit(0);
    }
    if (rc == -ENOENT)
        die_usage(a, "%s (see kubectl pgbench %s --help%s)", err, a->cmd,
                  f->after_dashes ? "; pgbench's own options go after --" : "");
    if (rc)
        die_usage(a, "%s", err);
    if (p.dashes && !f->after_dashes)
        die_usage(a, "unexpected argument \"--\"");
    return p.next;
}
