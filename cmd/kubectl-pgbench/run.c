/* kubectl pgbench run / fio: build the BenchmarkRun, print it (--dry-run=client), have the API
 * server check it (--dry-run=server), or create it and follow it (--wait). */
#include <ctype.h>
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

#define OUT_CAP (64u << 20)

static const struct kube_resource services = {"", "v1", "Service", "services", true};

static const char run_help[] =
    "usage: kubectl pgbench run TARGET [flags] -- [PGBENCH-ARGS] [DBNAME]\n"
    "\n"
    "TARGET (one of):\n"
    "  --host H --user U [--password-secret SECRET[/KEY]] [--port P]\n"
    "  --cnpg CLUSTER [--service rw|ro|r] [--user U]  CloudNativePG (host from it; user and\n"
    "                                            password from its <CLUSTER>-app Secret)\n"
    "  --bitnami RELEASE [--bitnami-arch standalone|replication|ha] [--user U] [--service rw|ro]\n"
    "  --stackgres CLUSTER [--service rw|ro]\n"
    "  --zalando CLUSTER [--user U] [--service rw|ro]\n"
    "  also: --db-name NAME (default: the user name, as pgbench; app with --cnpg),\n"
    "        --sslmode MODE, --create-database,\n"
    "        --connect-retry DURATION   retry a host that does not resolve or refuses this long\n"
    "                                   (default 30s; longer when its Service comes later)\n"
    "\n"
    "PGBENCH-ARGS, pgbench's own options, become spec fields: -c -j -T -t -M -b -S -N\n"
    "  -f CONFIGMAP:KEY[@W] -R -L -n -C -r -P --max-tries --failures-detailed; -D, -s,\n"
    "  --random-seed, -v, --verbose-errors, --exit-on-abort pass through extraArgs; anything\n"
    "  else is refused, naming the option. -c and -R are totals, split over --workers as one\n"
    "  pgbench would run them.\n"
    "\n"
    "flags:\n"
    "  --name NAME (alias --job-name)   the BenchmarkRun (default pgbench-YYYYMMDD-HHMMSS)\n"
    "  --init -s N [--foreign-keys] [--partitions N]   initialise the tables first (pgbench -i)\n"
    "      [--init-generation server|client]   data made in the server (-I G, default where\n"
    "                                          the runner's pgbench has it) or streamed (g)\n"
    "      [-I STEPS] [-F FILLFACTOR] [--unlogged-tables] [--tablespace NAME]\n"
    "      [--index-tablespace NAME]           pgbench -i's own options\n"
    "  --warmup DURATION   leave the first seconds out of the summary and percentiles\n"
    "                      (spec run.warmupSeconds; the report shades them)\n"
    "  --workers N  --node-selector K=V (repeatable)  --ttl DURATION  --timeout DURATION\n"
    "  --image IMAGE  --cleanup Keep|Delete\n"
    "  --dry-run=client|server   print the BenchmarkRun and the Jobs/PVC/HPA the operator would\n"
    "                            create (server: also validated by the API server)\n"
    "  -o yaml|json|name         output of --dry-run and of creation (default yaml / name)\n"
    "  --wait [--wait-timeout DURATION]   follow the run; exit 3 when it fails\n";

static const char fio_help[] =
    "usage: kubectl pgbench fio NAME --storage-class SC [--size 10Gi] [flags]\n"
    "  --preset wal|random-read|random-rw|all   (default all; wal: buffered sequential 8k writes,\n"
    "      fdatasync after each, one job, sync engine, as PostgreSQL writes WAL with\n"
    "      wal_sync_method=fdatasync: its sync p99 is the commit-latency floor; random-*: 8k,\n"
    "      iodepth 32, libaio, O_DIRECT)\n"
    "  --file-size SIZE (each job's file, default 1g)  --runtime DURATION (each job, default 60s)\n"
    "  --ioengine libaio|io_uring|psync|sync|posixaio  --buffered (direct: false)\n"
    "  --keep-volume  --node-selector K=V  --ttl DURATION  --timeout DURATION  --image IMAGE\n"
    "  --cleanup Keep|Delete  --dry-run=client|server  -o yaml|json|name  --wait\n";

/* --ttl, --timeout, --wait-timeout: a duration (plugin_parse_duration), refused below min. */
static bool duration_flag(struct act *x, struct plugin_common_opts *c)
{
    const struct {
        const char *flag;
        long *out;
        long min;
        const char *what;
    } flags[] = {
        {"--ttl", &c->ttl_s, 0, "seconds, or a duration such as 90s, 15m, 2h, 1d"},
        {"--timeout", &c->timeout_s, 1, "a duration such as 90s, 15m, 2h"},
        {"--wait-timeout", &x->wait_timeout_s, 1, "a duration such as 90s, 15m, 2h"},
    };
    const char *v;
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        if (!arg_value(x->a, flags[i].flag, NULL, &v))
            continue;
        if ((*flags[i].out = plugin_parse_duration(v)) < flags[i].min)
            die_usage(x->a, "%s \"%s\": %s", flags[i].flag, v, flags[i].what);
        if (flags[i].out == &x->wait_timeout_s)
            x->wait = true;
        return true;
    }
    return false;
}

/* --dry-run[=client|server|none]; kubectl: a bare --dry-run is client. */
static bool dry_run_flag(struct act *x)
{
    struct args *a = x->a;
    const char *s = a->argv[a->i];
    if (strncmp(s, "--dry-run", 9) != 0 || (s[9] != '\0' && s[9] != '='))
        return false;
    static const struct {
        const char *name;
        enum dry dry;
    } modes[] = {{"client", DRY_CLIENT}, {"server", DRY_SERVER}, {"none", DRY_NONE}};
    const char *m = s[9] == '=' ? s + 10 : "client";
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
        if (strcmp(m, modes[i].name) == 0) {
            x->dry = modes[i].dry;
            a->i++;
            return true;
        }
    die_usage(a, "--dry-run=\"%s\": one of none, client, server", m);
}

/* --cleanup, --workers, --node-selector: checked values. */
static bool checked_flag(struct args *a, struct plugin_common_opts *c)
{
    const char *v;
    if (arg_value(a, "--cleanup", NULL, &c->cleanup)) {
        if (strcmp(c->cleanup, "Keep") != 0 && strcmp(c->cleanup, "Delete") != 0)
            die_usage(a, "--cleanup \"%s\": Keep or Delete", c->cleanup);
        return true;
    }
    if (arg_value(a, "--workers", NULL, &v)) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || n < 1 || n > 256)
            die_usage(a, "--workers \"%s\": an integer 1-256", v);
        c->workers = (int)n;
        return true;
    }
    if (arg_value(a, "--node-selector", NULL, &v)) {
        if (c->n_node_selector >= PLUGIN_MAX_SELECTORS)
            die_usage(a, "--node-selector: at most %d", PLUGIN_MAX_SELECTORS);
        c->node_selector[c->n_node_selector++] = v;
        return true;
    }
    return false;
}

/* Flags both commands take; true when argv[i] was one. */
static bool common_flag(struct act *x, struct plugin_common_opts *c)
{
    struct args *a = x->a;
    if (arg_kube(a, &x->kf))
        return true;
    if (arg_value(a, "--name", NULL, &c->name) || arg_value(a, "--job-name", NULL, &c->name) ||
        arg_value(a, "--image", NULL, &c->image) || arg_value(a, "--output", "-o", &x->output))
        return true;
    if (checked_flag(a, c) || duration_flag(x, c) || dry_run_flag(x))
        return true;
    if (arg_flag(a, "--wait", NULL)) {
        x->wait = true;
        return true;
    }
    return false;
}

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

/* What follow() has printed of the conditions that say the run waits: type and last message. */
struct waits_seen {
    struct {
        char type[64];
        char msg[API_MAX_MESSAGE];
        bool on;
    } c[8];
};

/* a and b alike but for their numbers ("retrying, 12 s of 30 s" is no news after "6 s of 30 s") */
static bool same_words(const char *a, const char *b)
{
    for (;;) {
        bool da = isdigit((unsigned char)*a), db = isdigit((unsigned char)*b);
        if (da != db)
            return false;
        if (da) {
            while (isdigit((unsigned char)*a))
                a++;
            while (isdigit((unsigned char)*b))
                b++;
            continue;
        }
        if (*a != *b)
            return false;
        if (!*a)
            return true;
        a++;
        b++;
    }
}

/* Each True waiting condition (api_cond_is_waiting) as a line of its own when it appears or its
 * words change (a new cause; not its counting seconds): "NAME: TargetUnreachable: worker 0 waits
 * for ...". One that goes False and comes back is printed again. Returns how many lines. */
static int print_waits(const cJSON *br, const char *name, struct waits_seen *seen, bool tty)
{
    int n = 0;
    for (size_t i = 0; i < sizeof(seen->c) / sizeof(seen->c[0]); i++)
        seen->c[i].on = false;
    const cJSON *c;
    cJSON_ArrayForEach(c, util_jget(br, "status.conditions"))
    {
        const char *type = util_jstr(c, "type"), *cs = util_jstr(c, "status");
        const char *m = util_jstr(c, "message");
        if (!api_cond_is_waiting(type) || !cs || strcmp(cs, "True") != 0)
            continue;
        size_t k = 0, nk = sizeof(seen->c) / sizeof(seen->c[0]);
        while (k < nk && seen->c[k].type[0] && strcmp(seen->c[k].type, type) != 0)
            k++;
        if (k == nk)
            continue;
        seen->c[k].on = true;
        if (seen->c[k].type[0] && seen->c[k].msg[0] && same_words(seen->c[k].msg, m ? m : ""))
            continue;
        (void)snprintf(seen->c[k].type, sizeof(seen->c[k].type), "%s", type);
        (void)snprintf(seen->c[k].msg, sizeof(seen->c[k].msg), "%s", m ? m : "");
        (void)printf("%s%s: %s: %s\n", tty ? "\r\033[K" : "", name, type, m ? m : "");
        n++;
    }
    for (size_t i = 0; i < sizeof(seen->c) / sizeof(seen->c[0]); i++)
        if (!seen->c[i].on)
            seen->c[i].msg[0] = '\0'; /* printed again when it comes back */
    return n;
}

/* --wait: a progress line per change (live status.progress; on a TTY rewritten in place), each
 * waiting condition as it appears with its message, then the result table, the one summary. */
static int follow(struct act *x, struct kc *k, const char *name)
{
    bool tty = isatty(STDOUT_FILENO);
    double start = util_wall_s();
    char last[512] = "";
    struct waits_seen seen = {0};
    cJSON *br = NULL;
    int rc;
    for (;;) {
        cJSON_Delete(br);
        rc = get_run(k, name, &br);
        if (rc)
            return rc;
        const char *phase = util_jstr(br, "status.phase");
        bool done = phase && api_phase_done(api_phase_parse(phase));
        bool waits = print_waits(br, name, &seen, tty) > 0;
        struct buf line = BUF_INIT(4096);
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
    if (x->output && strcmp(x->output, "yaml") != 0 && strcmp(x->output, "json") != 0 &&
        strcmp(x->output, "name") != 0)
        die_usage(x->a, "-o \"%s\": one of yaml, json, name", x->output);
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

/* The TARGET flags; true when argv[i] was one. */
static bool target_flag(struct run_cli *r)
{
    struct args *a = r->x->a;
    struct plugin_target_opts *to = &r->to;
    static const struct {
        const char *flag;
        enum plugin_distro d;
    } distros[] = {{"--host", PLUGIN_HOST},
                   {"--cnpg", PLUGIN_CNPG},
                   {"--bitnami", PLUGIN_BITNAMI},
                   {"--stackgres", PLUGIN_STACKGRES},
                   {"--zalando", PLUGIN_ZALANDO}};
    for (size_t d = 0; d < sizeof(distros) / sizeof(distros[0]); d++)
        if (arg_value(a, distros[d].flag, NULL, &to->name)) {
            to->distro = distros[d].d;
            if (r->ndistro++ && strcmp(r->distro_flag, distros[d].flag) != 0)
                die_usage(a, "%s and %s: give one target", r->distro_flag, distros[d].flag);
            r->distro_flag = distros[d].flag;
            return true;
        }
    if (arg_value(a, "--user", NULL, &to->user) ||
        arg_value(a, "--password-secret", NULL, &to->password_secret) ||
        arg_value(a, "--db-name", NULL, &to->database) ||
        arg_value(a, "--database", NULL, &to->database) ||
        arg_value(a, "--sslmode", NULL, &to->ssl_mode) ||
        arg_value(a, "--service", NULL, &to->service) ||
        arg_value(a, "--bitnami-arch", NULL, &r->arch))
        return true;
    const char *v;
    if (arg_value(a, "--connect-retry", NULL, &v)) {
        to->connect_retry_s = plugin_parse_duration(v);
        if (to->connect_retry_s < 0 || to->connect_retry_s > 3600)
            die_usage(
                a, "--connect-retry \"%s\": a duration up to 1h such as 30s, 5m (0: try once)", v);
        to->connect_retry_set = true;
        return true;
    }
    if (arg_value(a, "--port", NULL, &v)) {
        char *end;
        long p = strtol(v, &end, 10);
        if (*end || p < 1 || p > 65535)
            die_usage(a, "--port \"%s\": 1-65535", v);
        to->port = (int)p;
        return true;
    }
    return false;
}

static int parse_fillfactor(struct args *a, const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < 10 || n > 100)
        die_usage(a, "-F \"%s\": the fill factor is an integer 10-100 (percent)", v);
    return (int)n;
}

/* pgbench -i's options beside -s: into spec.workload.pgbench.init (checked there). */
static bool init_option(struct run_cli *r)
{
    struct args *a = r->x->a;
    const char *v;
    if (arg_value(a, "--init-generation", NULL, &v))
        r->ro.init_generation = v;
    else if (arg_value(a, "--init-steps", "-I", &v))
        r->ro.init_steps = v;
    else if (arg_value(a, "--tablespace", NULL, &v))
        r->ro.tablespace = v;
    else if (arg_value(a, "--index-tablespace", NULL, &v))
        r->ro.index_tablespace = v;
    else if (arg_flag(a, "--unlogged-tables", NULL))
        r->ro.unlogged_tables = true;
    else if (arg_value(a, "--fillfactor", "-F", &v))
        r->ro.fillfactor = parse_fillfactor(a, v);
    else
        return false;
    r->init_opts = true;
    return true;
}

bool run_cli_flag(struct run_cli *r)
{
    struct args *a = r->x->a;
    const char *s = a->argv[a->i], *v;
    if (strcmp(s, "--") == 0) {
        a->i++;
        r->ro.pgbench_args = (const char *const *)a->argv + a->i;
        r->ro.npgbench_args = (size_t)(a->argc - a->i);
        a->i = a->argc;
        return true;
    }
    if (common_flag(r->x, &r->ro.c) || target_flag(r))
        return true;
    if (arg_value(a, "--scale", "-s", &v)) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || n < 1 || n > 100000)
            die_usage(a, "-s \"%s\": the scale is an integer 1-100000", v);
        r->ro.init_scale = (int)n;
        return true;
    }
    if (arg_value(a, "--partitions", NULL, &v)) {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || n < 0 || n > 10000)
            die_usage(a, "--partitions \"%s\": an integer 0-10000", v);
        r->ro.partitions = (int)n;
        return true;
    }
    if (init_option(r))
        return true;
    if (arg_value(a, "--warmup", NULL, &v)) {
        if ((r->ro.warmup_s = plugin_parse_duration(v)) < 0)
            die_usage(a, "--warmup \"%s\": seconds, or a duration such as 30s or 2m", v);
        return true;
    }
    if (arg_flag(a, "--init", "-i"))
        return r->init = true;
    if (arg_flag(a, "--foreign-keys", NULL))
        return r->ro.foreign_keys = true;
    if (arg_flag(a, "--create-database", NULL))
        return r->ro.create_database = true;
    if (s[0] != '-')
        die_usage(a, "unexpected argument \"%s\" (pgbench's options and DBNAME go after --)", s);
    return false;
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
    if ((r->ro.foreign_keys || r->ro.partitions) && !r->init)
        die_usage(a, "--foreign-keys and --partitions need --init");
    if (r->init_opts && !r->init)
        die_usage(a, "--init-generation, -I, -F, --unlogged-tables and the tablespaces need "
                     "--init");
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
    else if (arch && strcmp(arch, "standalone") != 0)
        die_usage(r->x->a, "--bitnami-arch \"%s\": standalone, replication or ha", arch);
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
    while (a.i < a.argc) {
        const char *s = a.argv[a.i];
        if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
            (void)fputs(run_help, stdout);
            return 0;
        }
        if (!run_cli_flag(&r))
            die_unknown(&a);
    }
    cJSON *br = NULL;
    int rc = run_cli_build(&r, "pgbench", &br);
    if (!rc)
        rc = act(&x, r.open ? &r.k : NULL, br);
    cJSON_Delete(br);
    run_cli_free(&r);
    return rc;
}

/* ---- fio -------------------------------------------------------------------------------- */

int cmd_fio(int argc, char **argv)
{
    struct args a = {argc, argv, 1, "fio"};
    struct act x;
    init_act(&x, &a);
    struct plugin_fio_opts fo = {.c = {.ttl_s = -1}};
    const char *v;
    while (a.i < a.argc) {
        const char *s = a.argv[a.i];
        if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
            (void)fputs(fio_help, stdout);
            return 0;
        }
        if (common_flag(&x, &fo.c))
            continue;
        if (arg_value(&a, "--storage-class", NULL, &fo.storage_class) ||
            arg_value(&a, "--size", NULL, &fo.size) ||
            arg_value(&a, "--preset", NULL, &fo.preset) ||
            arg_value(&a, "--file-size", NULL, &fo.file_size) ||
            arg_value(&a, "--ioengine", NULL, &fo.ioengine))
            continue;
        if (arg_flag(&a, "--buffered", NULL)) {
            fo.buffered = true;
            continue;
        }
        if (arg_value(&a, "--runtime", NULL, &v)) {
            long t = plugin_parse_duration(v);
            if (t < 1 || t > 86400)
                die_usage(&a, "--runtime \"%s\": a duration of 1s to 24h", v);
            fo.runtime_s = (int)t;
            continue;
        }
        if (arg_flag(&a, "--keep-volume", NULL)) {
            fo.keep_volume = true;
            continue;
        }
        if (s[0] != '-' && !fo.c.name) {
            fo.c.name = s;
            a.i++;
            continue;
        }
        if (s[0] != '-')
            die_usage(&a, "unexpected argument \"%s\" (one NAME)", s);
        die_unknown(&a);
    }
    check_output(&x);
    if (!fo.c.name)
        die_usage(&a, "a NAME is required: kubectl pgbench fio NAME --storage-class SC");
    if (!fo.storage_class)
        die_usage(&a, "--storage-class is required (--storage-class \"\" for the cluster "
                      "default)");
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
