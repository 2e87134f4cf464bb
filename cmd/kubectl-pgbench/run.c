/* kubectl pgbench run / fio: build the BenchmarkRun, print it (--dry-run=client), have the API
 * server check it (--dry-run=server), or create it and follow it (--wait). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pkg/api/phase.h"
#include "pkg/api/manifest.h"
#include "pkg/util/json.h"
#include "pkg/api/status.h"
#include "pkg/api/sweep_spec.h"
#include "pkg/plugin/build.h"
#include "pkg/plugin/present.h"
#include "pkg/plugin/target.h"
#include "pkg/plugin/yaml.h"
#include "plugin.h"
#include "run.h"
#include "pkg/util/clock.h"
#include "pkg/util/err.h"

#define OUT_CAP (64u << 20)

static const struct kube_resource services = {"", "v1", "Service", "services", true};

static const char run_usage[] =
    "usage: kubectl pgbench run TARGET [flags] -- [PGBENCH-ARGS] [DBNAME]\n"
    "\n"
    "A BenchmarkRun of pgbench against TARGET, created, or printed with --dry-run.\n"
    "PGBENCH-ARGS, pgbench's own options, become spec fields: -c -j -T -t -M -b -S -N\n"
    "  -f CONFIGMAP:KEY[@W] -R -L -n -C -r -P --max-tries --failures-detailed; -D, -s,\n"
    "  --random-seed, -v, --verbose-errors, --exit-on-abort pass through extraArgs; anything\n"
    "  else is refused, naming the option. -c and -R are totals, split over --workers as one\n"
    "  pgbench would run them.\n";

static const char fio_usage[] =
    "usage: kubectl pgbench fio NAME --storage-class SC [--size 10Gi] [flags]\n"
    "\n"
    "A BenchmarkRun of fio on a new volume of the StorageClass.\n";

static void default_name(struct plugin_common_opts *c, char *buf, size_t len, const char *prefix)
{
    if (c->name)
        return;
    time_t now = (time_t)util_wall_s();
    struct tm tm;
    (void)gmtime_r(&now, &tm);
    (void)snprintf(buf, len, "%s-", prefix);
    size_t n = strlen(buf);
    (void)strftime(buf + n, len - n, "%Y%m%d-%H%M%S", &tm);
    c->name = buf;
}

/* ---- printing --------------------------------------------------------------------------- */

void act_print(struct act *x, cJSON *objs)
{
    struct buf out = BUF_INIT(OUT_CAP);
    const char *o = x->output ? x->output : "yaml";
    int rc = 0;
    if (strcmp(o, "json") == 0) {
        cJSON *list = cJSON_CreateObject();
        cJSON_AddStringToObject(list, "apiVersion", "v1");
        cJSON_AddStringToObject(list, "kind", "List");
        cJSON_AddItemReferenceToObject(list, "items", objs);
        rc = util_json_print(&out, list);
        cJSON_Delete(list);
    } else if (strcmp(o, "name") == 0) {
        const cJSON *it;
        cJSON_ArrayForEach(it, objs)
        {
            const char *kind = util_jstr(it, "kind");
            rc = buf_printf(&out, "%s/%s\n",
                            strcmp(kind, "BenchmarkRun") == 0     ? "benchmarkrun.pgbench.dev"
                            : strcmp(kind, "BenchmarkSweep") == 0 ? "benchmarksweep.pgbench.dev"
                            : strcmp(kind, "Job") == 0            ? "job.batch"
                            : strcmp(kind, "PersistentVolumeClaim") == 0
                                ? "persistentvolumeclaim"
                                : "horizontalpodautoscaler.autoscaling",
                            util_jstr(it, "metadata.name"));
        }
    } else {
        int first = 1;
        const cJSON *it;
        /* a dry run says what each pod runs of the totals (YAML comments: it applies as is) */
        if (x->dry != DRY_NONE && cJSON_GetArraySize(objs) > 0)
            rc = plugin_split_note(&out, cJSON_GetArrayItem(objs, 0));
        cJSON_ArrayForEach(it, objs)
        {
            rc = rc ? rc : plugin_yaml_append(&out, it, !first);
            first = 0;
        }
    }
    if (rc) {
        (void)fprintf(stderr, "kubectl pgbench: %s\n",
                      rc == -E2BIG ? "output too large" : "a string is not UTF-8");
        exit(EXIT_CLUSTER);
    }
    emit(out.data, out.len);
    buf_free(&out);
}

/* ---- checks against the cluster --------------------------------------------------------- */

static bool exists(struct kc *k, const struct kube_resource *r, const char *name, cJSON **body,
                   int *code)
{
    struct kc_reply rep;
    if (kc_call(k, KC_GET, r, name, NULL, NULL, &rep) != 0) {
        *code = EXIT_CLUSTER;
        return false;
    }
    bool ok = kube_ok(&rep.st);
    if (!ok && rep.st.http != 404) {
        char msg[600];
        kc_describe(&rep.st, msg, sizeof(msg));
        (void)fprintf(stderr, "kubectl pgbench: %s %s: %s\n", r->plural, name, msg);
        *code = EXIT_CLUSTER;
    }
    if (body && ok) {
        *body = rep.body;
        rep.body = NULL;
    }
    kc_reply_free(&rep);
    return ok;
}

/* The Service and Secret (and its key) the target mapping expects; the password is not read. */
static int check_expect(struct kc *k, const char *flag, const struct plugin_target_expect *e)
{
    int code = 0;
    if (e->service[0] && !exists(k, &services, e->service, NULL, &code)) {
        if (!code)
            (void)fprintf(stderr,
                          "kubectl pgbench run: %s expects Service %s in namespace %s, and it "
                          "does not exist (kubectl get svc -n %s; the mapping is docs/spec.md's "
                          "distribution table)\n",
                          flag, e->service, k->ns, k->ns);
        return code ? code : EXIT_USAGE;
    }
    cJSON *sec = NULL;
    if (e->secret[0]) {
        if (!exists(k, &KUBE_SECRETS, e->secret, &sec, &code)) {
            if (!code)
                (void)fprintf(stderr,
                              "kubectl pgbench run: %s expects Secret %s in namespace %s, and "
                              "it does not exist (the password Secret must be in the run's "
                              "namespace)\n",
                              flag, e->secret, k->ns);
            return code ? code : EXIT_USAGE;
        }
        const cJSON *data = util_jget(sec, "data");
        bool has = data && cJSON_GetObjectItemCaseSensitive(data, e->key);
        bool has_user =
            !e->user_key[0] || (data && cJSON_GetObjectItemCaseSensitive(data, e->user_key));
        cJSON_Delete(sec); /* only the keys' presence was looked at */
        if (!has) {
            (void)fprintf(stderr,
                          "kubectl pgbench run: Secret %s has no key \"%s\" (give "
                          "another with --password-secret %s/KEY)\n",
                          e->secret, e->key, e->secret);
            return EXIT_USAGE;
        }
        if (!has_user) {
            (void)fprintf(stderr,
                          "kubectl pgbench run: Secret %s has no key \"%s\" (the role to "
                          "connect as; give it with --user)\n",
                          e->secret, e->user_key);
            return EXIT_USAGE;
        }
    }
    return 0;
}

/* ---- create, dry-run, wait -------------------------------------------------------------- */

static const struct kube_resource *resource_of(const cJSON *o)
{
    const char *kind = util_jstr(o, "kind");
    if (strcmp(kind, "Job") == 0)
        return &KUBE_JOBS;
    if (strcmp(kind, "PersistentVolumeClaim") == 0)
        return &KUBE_PVCS;
    if (strcmp(kind, "HorizontalPodAutoscaler") == 0)
        return &KUBE_HPAS;
    if (strcmp(kind, "BenchmarkSweep") == 0)
        return &API_BENCHMARKSWEEPS;
    return &API_BENCHMARKRUNS;
}

int act_create(struct kc *k, const cJSON *obj, bool dry, cJSON **out)
{
    struct kube_opts o = {.field_manager = "kubectl-pgbench",
                          .field_validation = "Strict",
                          .query = dry ? "dryRun=All" : NULL};
    struct kc_reply r;
    if (kc_call(k, KC_CREATE, resource_of(obj), NULL, obj, &o, &r) != 0)
        return EXIT_CLUSTER;
    if (!kube_ok(&r.st)) {
        char msg[600];
        kc_describe(&r.st, msg, sizeof(msg));
        (void)fprintf(stderr, "kubectl pgbench: %s%s %s: %s\n", dry ? "(server dry run) " : "",
                      util_jstr(obj, "kind"), util_jstr(obj, "metadata.name"), msg);
        kc_reply_free(&r);
        return r.st.reason[0] && strcmp(r.st.reason, "Invalid") == 0 ? EXIT_USAGE : EXIT_CLUSTER;
    }
    *out = r.body;
    r.body = NULL;
    kc_reply_free(&r);
    return 0;
}

/* --wait: a progress line per change (live status.progress; on a TTY rewritten in place), each
 * waiting or caveat condition as it appears with its message (plugin_condition_news), then the
 * result table, the one summary. */
static int follow(struct act *x, struct kc *k, const char *name)
{
    bool tty = isatty(STDOUT_FILENO);
    double start = util_wall_s();
    char last[512] = "";
    struct plugin_conds_seen seen = {0};
    cJSON *br = NULL;
    int rc;
    for (;;) {
        cJSON_Delete(br);
        rc = get_run(k, name, &br);
        if (rc)
            return rc;
        const char *phase = util_jstr(br, "status.phase");
        bool done = phase && api_phase_done(api_phase_parse(phase));
        struct buf line = BUF_INIT(4096);
        bool waits = plugin_condition_news(&line, br, name, &seen) > 0;
        if (waits) { /* on a TTY, each over the progress line */
            for (const char *p = line.data, *nl; p && (nl = strchr(p, '\n')); p = nl + 1)
                (void)printf("%s%.*s\n", tty ? "\r\033[K" : "", (int)(nl - p), p);
            buf_reset(&line);
        }
        (void)plugin_progress_line(&line, br, util_wall_s());
        if (!done && line.data && (waits || strcmp(line.data, last) != 0)) {
            if (tty)
                (void)printf("\r\033[K%s", line.data);
            else
                (void)printf("%s\n", line.data);
            (void)snprintf(last, sizeof(last), "%s", line.data);
        }
        (void)fflush(stdout);
        buf_free(&line);
        if (done)
            break;
        if (x->wait_timeout_s > 0 && util_wall_s() - start > (double)x->wait_timeout_s) {
            if (tty)
                (void)printf("\n");
            (void)fprintf(stderr,
                          "kubectl pgbench: benchmarkrun %s still %s after --wait-timeout "
                          "%lds\n",
                          name, api_phase_shown(phase), x->wait_timeout_s);
            cJSON_Delete(br);
            return EXIT_RUN_FAILED;
        }
        kc_sleep(k, x->poll_ms);
    }
    if (tty) /* the progress line goes: the table's summary is the one final line of numbers */
        (void)printf("\r\033[K");
    struct buf out = BUF_INIT(OUT_CAP);
    (void)plugin_result_table(&out, br);
    emit(out.data, out.len);
    buf_free(&out);
    rc =
        api_phase_parse(util_jstr(br, "status.phase")) == API_PHASE_SUCCEEDED ? 0 : EXIT_RUN_FAILED;
    cJSON_Delete(br);
    return rc;
}

/* After the BenchmarkRun is built: print, validate or create it. k is open unless DRY_CLIENT. */
static int act(struct act *x, struct kc *k, cJSON *br)
{
    struct api_config cfg;
    api_config_defaults(&cfg);
    char err[1024];
    int rc = 0;
    cJSON *objs = cJSON_CreateArray();
    if (x->dry == DRY_CLIENT) {
        cJSON *kids =
            plugin_children(br, &cfg, (long)util_wall_s() + cfg.start_delay_s, err, sizeof(err));
        if (!kids)
            die_usage(x->a, "%s", err);
        cJSON_AddItemToArray(objs, cJSON_Duplicate(br, 1));
        while (cJSON_GetArraySize(kids)) {
            /* the owner's uid exists only once the server has created the BenchmarkRun, and an
             * ownerReference without one is invalid: the printed children carry none, so that
             * the output applies as it is (the operator's own children are owned) */
            cJSON *kid = cJSON_DetachItemFromArray(kids, 0);
            cJSON_DeleteItemFromObjectCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(kid, "metadata"), "ownerReferences");
            cJSON_AddItemToArray(objs, kid);
        }
        cJSON_Delete(kids);
        act_print(x, objs);
        goto out;
    }
    cJSON *created = NULL;
    rc = act_create(k, br, x->dry == DRY_SERVER, &created);
    if (rc)
        goto out;
    cJSON_AddItemToArray(objs, created);
    if (x->dry == DRY_SERVER) {
        /* the children from the object as the server returned it (defaults, uid), each checked */
        cJSON *kids = plugin_children(created, &cfg, (long)util_wall_s() + cfg.start_delay_s, err,
                                      sizeof(err));
        if (!kids)
            die_usage(x->a, "%s", err);
        const cJSON *it;
        cJSON_ArrayForEach(it, kids)
        {
            cJSON *got = NULL;
            rc = act_create(k, it, true, &got);
            if (rc)
                break;
            cJSON_AddItemToArray(objs, got);
        }
        cJSON_Delete(kids);
        if (!rc)
            act_print(x, objs);
        goto out;
    }
    const char *name = util_jstr(created, "metadata.name");
    if (x->output && strcmp(x->output, "name") != 0)
        act_print(x, objs);
    else
        (void)printf("benchmarkrun.pgbench.dev/%s created\n", name);
    (void)fflush(stdout);
    if (x->wait)
        rc = follow(x, k, name);
out:
    cJSON_Delete(objs);
    return rc;
}

static void check_output(struct act *x)
{
    if (x->wait && x->dry != DRY_NONE)
        die_usage(x->a, "--wait and --dry-run: a dry run creates nothing to wait for");
}

static void init_act(struct act *x, struct args *a)
{
    memset(x, 0, sizeof(*x));
    x->a = a;
    const char *p = getenv("KUBECTL_PGBENCH_POLL_MS");
    x->poll_ms = p ? atol(p) : 1000;
    if (x->poll_ms < 50)
        x->poll_ms = 50;
}

/* ---- run -------------------------------------------------------------------------------- */

void run_cli_init(struct run_cli *r, struct act *x, struct args *a)
{
    init_act(x, a);
    memset(r, 0, sizeof(*r));
    r->x = x;
    r->ro.c.ttl_s = -1;
}

int run_cli_word(void *ctx, const char *word, char *err, size_t errlen)
{
    (void)ctx;
    return util_errf(err, errlen,
                     "unexpected argument \"%s\" (pgbench's options and DBNAME go after --)", word);
}

void run_cli_pgbench_args(struct run_cli *r, int from)
{
    struct args *a = r->x->a;
    r->ro.pgbench_args = (const char *const *)a->argv + from;
    r->ro.npgbench_args = (size_t)(a->argc - from);
}

/* Combinations of flags, checked once all are read. */
static void run_cli_check(struct run_cli *r)
{
    struct args *a = r->x->a;
    check_output(r->x);
    if (!r->distro_flag)
        die_usage(a,
                  "a target is required: --host, --cnpg, --bitnami, --stackgres or "
                  "--zalando (kubectl pgbench %s --help)",
                  a->cmd);
    if (r->init && !r->ro.init_scale)
        die_usage(a, "--init needs -s N (the scale factor)");
    if (!r->init && r->ro.init_scale)
        die_usage(a,
                  "-s %d without --init: pgbench's own -s (for custom scripts' :scale) goes "
                  "after --",
                  r->ro.init_scale);
    if ((r->ro.foreign_keys || r->ro.partitions || r->ro.init_generation || r->ro.init_steps ||
         r->ro.fillfactor || r->ro.unlogged_tables || r->ro.tablespace || r->ro.index_tablespace) &&
        !r->init)
        die_usage(a, "--foreign-keys, --partitions and pgbench -i's options (--init-generation, "
                     "-I, -F, --unlogged-tables, --tablespace, --index-tablespace) need --init");
    if (r->arch && r->to.distro != PLUGIN_BITNAMI)
        die_usage(a, "--bitnami-arch goes with --bitnami");
    if (r->to.service && r->to.distro == PLUGIN_HOST)
        die_usage(a, "--service goes with --cnpg, --bitnami, --stackgres or --zalando (with "
                     "--host, name the Service itself)");
}

/* Which Bitnami chart and architecture: --bitnami-arch, else the Services the release has. */
static void bitnami_arch(struct run_cli *r, struct kc *k)
{
    struct plugin_target_opts *to = &r->to;
    const char *arch = r->arch;
    if (arch && strcmp(arch, "ha") == 0)
        to->distro = PLUGIN_BITNAMI_HA;
    else if (arch && strcmp(arch, "replication") == 0)
        to->replication = true;
    else if (!arch && k) {
        char svc[300];
        int code = 0;
        (void)snprintf(svc, sizeof(svc), "%s-postgresql-ha-pgpool", to->name);
        if (exists(k, &services, svc, NULL, &code))
            to->distro = PLUGIN_BITNAMI_HA;
        (void)snprintf(svc, sizeof(svc), "%s-postgresql-primary", to->name);
        if (to->distro == PLUGIN_BITNAMI && exists(k, &services, svc, NULL, &code))
            to->replication = true;
    }
}

int run_cli_build(struct run_cli *r, const char *name_prefix, cJSON **out)
{
    struct act *x = r->x;
    const char *cmd = x->a->cmd;
    char err[1024];
    *out = NULL;
    run_cli_check(r);
    if (x->dry == DRY_CLIENT) {
        kc_namespace(&x->kf, r->ns, sizeof(r->ns));
    } else {
        if (kc_open(&r->k, &x->kf, err, sizeof(err))) {
            (void)fprintf(stderr, "kubectl pgbench %s: %s\n", cmd, err);
            return EXIT_CLUSTER;
        }
        r->open = true;
        (void)snprintf(r->ns, sizeof(r->ns), "%s", r->k.ns);
    }
    r->ro.c.ns = r->ns;
    default_name(&r->ro.c, r->name, sizeof(r->name), name_prefix);
    if (r->to.distro == PLUGIN_BITNAMI)
        bitnami_arch(r, r->open ? &r->k : NULL);
    struct plugin_target_expect expect;
    r->ro.target = plugin_target_build(&r->to, &expect, err, sizeof(err));
    if (!r->ro.target) {
        (void)fprintf(stderr, "kubectl pgbench %s: %s\n", cmd, err);
        return EXIT_USAGE;
    }
    cJSON *br = plugin_build_run(&r->ro, err, sizeof(err));
    if (!br) {
        (void)fprintf(stderr, "kubectl pgbench %s: %s\n", cmd, err);
        return EXIT_USAGE;
    }
    int rc = r->open ? check_expect(&r->k, r->distro_flag, &expect) : 0;
    if (rc)
        cJSON_Delete(br);
    else
        *out = br;
    return rc;
}

void run_cli_free(struct run_cli *r)
{
    cJSON_Delete(r->ro.target);
    r->ro.target = NULL;
    if (r->open)
        kc_close(&r->k);
    r->open = false;
}

int cmd_run(int argc, char **argv)
{
    struct args a = {argc, argv, 1, "run"};
    struct act x;
    struct run_cli r;
    run_cli_init(&r, &x, &a);
    struct util_opt_set sets[4];
    struct cmd_flags f = {.usage = run_usage,
                          .sets = sets,
                          .nsets = flag_run_sets(&r, sets),
                          .word = run_cli_word,
                          .after_dashes = true};
    run_cli_pgbench_args(&r, flags_parse(&f, &a));
    cJSON *br = NULL;
    int rc = run_cli_build(&r, "pgbench", &br);
    if (!rc)
        rc = act(&x, r.open ? &r.k : NULL, br);
    cJSON_Delete(br);
    run_cli_free(&r);
    return rc;
}

/* ---- fio -------------------------------------------------------------------------------- */

/* fio's one NAME. */
static int fio_word(void *ctx, const char *word, char *err, size_t errlen)
{
    struct plugin_fio_opts *fo = ctx;
    if (fo->c.name)
        return util_errf(err, errlen, "unexpected argument \"%s\" (one NAME)", word);
    fo->c.name = word;
    return 0;
}

#define FF(f) offsetof(struct plugin_fio_opts, f)
static const struct util_opt fio_rows[] = {
    {.name = "storage-class",
     .type = UTIL_OPT_STR,
     .flags = UTIL_OPT_REQUIRED,
     .off = FF(storage_class),
     .metavar = "SC",
     .group = "fio",
     .help = "the volume's StorageClass (\"\" for the cluster default)"},
    {.name = "size",
     .type = UTIL_OPT_STR,
     .off = FF(size),
     .metavar = "SIZE",
     .group = "fio",
     .help = "the volume's size (default 10Gi)"},
    {.name = "preset",
     .type = UTIL_OPT_STR, /* the presets are pkg/plugin/build.c's, which checks the name */
     .off = FF(preset),
     .metavar = "wal|random-read|random-rw|all",
     .group = "fio",
     .help = "the jobs (default all). wal: buffered sequential 8k writes, fdatasync after each, "
             "one job, sync engine, as PostgreSQL writes WAL with wal_sync_method=fdatasync: its "
             "sync p99 is the commit-latency floor; random-*: 8k, iodepth 32, libaio, O_DIRECT"},
    {.name = "file-size",
     .type = UTIL_OPT_STR,
     .off = FF(file_size),
     .metavar = "SIZE",
     .group = "fio",
     .help = "each job's file (default 1g)"},
    {.name = "runtime",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .off = FF(runtime_s),
     .min = 1,
     .max = 86400,
     .cb = flag_duration,
     .tag = FLAG_INT,
     .metavar = "DURATION",
     .expect = "a duration of 1s to 24h",
     .group = "fio",
     .help = "each job's (default 60s)"},
    {.name = "ioengine",
     .type = UTIL_OPT_STR,
     .off = FF(ioengine),
     .metavar = "E",
     .group = "fio",
     .help = "libaio|io_uring|psync|sync|posixaio (default libaio)"},
    {.name = "buffered",
     .type = UTIL_OPT_BOOL,
     .off = FF(buffered),
     .group = "fio",
     .help = "direct: false (filesystems without O_DIRECT, such as tmpfs)"},
    {.name = "keep-volume",
     .type = UTIL_OPT_BOOL,
     .off = FF(keep_volume),
     .group = "fio",
     .help = "keep the volume after the run"},
};

int cmd_fio(int argc, char **argv)
{
    struct args a = {argc, argv, 1, "fio"};
    struct act x;
    init_act(&x, &a);
    struct plugin_fio_opts fo = {.c = {.ttl_s = -1}};
    struct util_opt_set sets[4] = {{fio_rows, UTIL_OPT_N(fio_rows), &fo}};
    struct cmd_flags f = {.usage = fio_usage,
                          .sets = sets,
                          .nsets = 1 + flag_act_sets(&x, &fo.c, sets + 1),
                          .word = fio_word,
                          .ctx = &fo};
    (void)flags_parse(&f, &a);
    check_output(&x);
    if (!fo.c.name)
        die_usage(&a, "a NAME is required: kubectl pgbench fio NAME --storage-class SC");
    char nsbuf[254], err[1024];
    struct kc k = {0};
    bool open = false;
    if (x.dry == DRY_CLIENT) {
        kc_namespace(&x.kf, nsbuf, sizeof(nsbuf));
    } else {
        if (kc_open(&k, &x.kf, err, sizeof(err))) {
            (void)fprintf(stderr, "kubectl pgbench fio: %s\n", err);
            return EXIT_CLUSTER;
        }
        open = true;
        (void)snprintf(nsbuf, sizeof(nsbuf), "%s", k.ns);
    }
    fo.c.ns = nsbuf;
    int rc;
    cJSON *br = plugin_build_fio(&fo, err, sizeof(err));
    if (!br) {
        (void)fprintf(stderr, "kubectl pgbench fio: %s\n", err);
        rc = EXIT_USAGE;
    } else {
        rc = act(&x, open ? &k : NULL, br);
    }
    cJSON_Delete(br);
    if (open)
        kc_close(&k);
    return rc;
}
