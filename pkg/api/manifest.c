/* Child manifests of a BenchmarkRun: init Job, Indexed run Job, fio PVC, HPA. */
#include "pkg/api/manifest.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"
#include "pkg/util/version.h"
#include "pkg/bench/argv.h"
#include "pkg/bench/runner_args.h"
#include "pkg/bench/conninfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct kube_resource API_BENCHMARKRUNS = {"pgbench.dev", "v1alpha1", "BenchmarkRun",
                                                "benchmarkruns", true};

#define SCRIPTS_DIR "/etc/pgbench/scripts"
#define CA_DIR "/etc/pgbench/ca"
#define FIO_DIR "/data"

void api_config_defaults(struct api_config *cfg)
{
    cfg->runner_image = util_runner_image();
    cfg->runner_command = "/usr/local/bin/pgbench-runner";
    cfg->start_delay_s = 10;
    cfg->deadline_margin_s = 600;
    cfg->progress_interval_s = 10;
    cfg->component = "pgbench-operator";
    cfg->instance = "pgbench-operator";
}

/* A run's children: the suffix of the name (also their role label), and what they are. */
static const struct {
    const char *suffix, *api_version, *kind;
} children[] = {
    [API_CHILD_INIT] = {"init", "batch/v1", "Job"},
    [API_CHILD_RUN] = {"run", "batch/v1", "Job"},
    [API_CHILD_FIO_PVC] = {"fio", "v1", "PersistentVolumeClaim"},
    [API_CHILD_HPA] = {"hpa", "autoscaling/v2", "HorizontalPodAutoscaler"},
    [API_CHILD_RESULT] = {"result", "v1", "ConfigMap"},
};

void api_child_name(const char *br, enum api_child which, char *out, size_t len)
{
    (void)snprintf(out, len, "%s-%s", br, children[which].suffix);
}

static cJSON *obj(void)
{
    return cJSON_CreateObject();
}
static cJSON *arr(void)
{
    return cJSON_CreateArray();
}

static cJSON *put(cJSON *o, const char *k, cJSON *v)
{
    cJSON_AddItemToObject(o, k, util_must(v));
    return v;
}

static void put_str(cJSON *o, const char *k, const char *v)
{
    put(o, k, cJSON_CreateString(v));
}
static void put_num(cJSON *o, const char *k, double v)
{
    put(o, k, cJSON_CreateNumber(v));
}
static void put_bool(cJSON *o, const char *k, bool v)
{
    put(o, k, cJSON_CreateBool(v));
}
static void push_str(cJSON *a, const char *v)
{
    cJSON_AddItemToArray(a, util_must(cJSON_CreateString(v)));
}

/* Appends the runner's command line built from the flag table (pkg/bench/runner_args.h). */
static void push_runner_args(cJSON *args, enum bench_runner_cmd cmd, const void *ra)
{
    struct bench_argv av = BENCH_ARGV_INIT;
    bench_runner_build(cmd, ra, &av);
    for (size_t i = 0; i < av.argc; i++)
        push_str(args, av.argv[i]);
    bench_argv_free(&av);
}

static cJSON *labels_for(const char *br, const char *role)
{
    cJSON *l = obj();
    put_str(l, API_LABEL_RUN, br);
    if (role)
        put_str(l, API_LABEL_ROLE, role);
    put_str(l, "app.kubernetes.io/managed-by", "pgbench-operator");
    return l;
}

static cJSON *metadata_for(const cJSON *br, const char *name, const char *role, bool owned)
{
    const char *brname = util_jstr(br, "metadata.name");
    cJSON *m = obj();
    put_str(m, "name", name);
    put_str(m, "namespace", util_jstr(br, "metadata.namespace"));
    put(m, "labels", labels_for(brname, role));
    if (owned) {
        cJSON *refs = put(m, "ownerReferences", arr());
        cJSON *r = obj();
        put_str(r, "apiVersion", "pgbench.dev/v1alpha1");
        put_str(r, "kind", "BenchmarkRun");
        put_str(r, "name", brname);
        put_str(r, "uid", util_jstr(br, "metadata.uid") ? util_jstr(br, "metadata.uid") : "");
        put_bool(r, "controller", true);
        put_bool(r, "blockOwnerDeletion", true);
        cJSON_AddItemToArray(refs, r);
    }
    return m;
}

/* A new child of the run br: its apiVersion, kind and metadata (owned: br is its controller, the
 * garbage collector deletes it with br). */
static cJSON *child_object(const cJSON *br, enum api_child which, bool owned)
{
    char name[300];
    api_child_name(util_jstr(br, "metadata.name"), which, name, sizeof(name));
    cJSON *o = obj();
    put_str(o, "apiVersion", children[which].api_version);
    put_str(o, "kind", children[which].kind);
    put(o, "metadata", metadata_for(br, name, children[which].suffix, owned));
    return o;
}

static void env_value(cJSON *env, const char *name, const char *value)
{
    cJSON *e = obj();
    put_str(e, "name", name);
    put_str(e, "value", value);
    cJSON_AddItemToArray(env, e);
}

static void env_num(cJSON *env, const char *name, long v)
{
    char b[32];
    (void)snprintf(b, sizeof(b), "%ld", v);
    env_value(env, name, b);
}

/* An env var the kubelet fills from a Secret's key: the operator never reads the Secret. */
static void env_secret(cJSON *env, const char *name, const char *secret, const char *key)
{
    cJSON *e = obj();
    put_str(e, "name", name);
    cJSON *ref = put(put(e, "valueFrom", obj()), "secretKeyRef", obj());
    put_str(ref, "name", secret);
    put_str(ref, "key", key);
    cJSON_AddItemToArray(env, e);
}

/* The target's PG* variables, written from one bench_conninfo in its field order: the role from the
 * CloudNativePG Secret's key when there is one (as `kubectl cnpg pgbench` does), the password
 * only ever as a secretKeyRef, before PGAPPNAME. */
static void target_env(cJSON *env, const struct api_spec *s)
{
    char port[16];
    (void)snprintf(port, sizeof(port), "%d", s->port);
    const struct bench_conninfo ci = {
        .host = s->host,
        .port = port,
        .dbname = s->database,
        .user = s->user,
        .sslmode = s->ssl_mode,
        .sslrootcert = s->ca_secret ? CA_DIR "/ca.crt" : NULL,
        .appname = "pgbench-runner",
    };
    for (int i = 0; i < BENCH_CONNINFO_NFIELDS; i++) {
        enum bench_conninfo_field f = (enum bench_conninfo_field)i;
        if (f == BENCH_CONNINFO_APPNAME && s->password_secret[0])
            env_secret(env, "PGPASSWORD", s->password_secret, s->password_key);
        if (f == BENCH_CONNINFO_USER && s->user_key)
            env_secret(env, bench_conninfo_env(f), s->password_secret, s->user_key);
        else if (pg_conninfo_get(&ci, f))
            env_value(env, bench_conninfo_env(f), pg_conninfo_get(&ci, f));
    }
}

static cJSON *connection_env(const struct api_spec *s)
{
    cJSON *env = arr();
    if (s->host[0]) /* fio without a database target has none */
        target_env(env, s);
    env_value(env, "HOME", "/tmp");
    env_value(env, "BENCH_TERMINATION_LOG", "/dev/termination-log");
    return env;
}

static void volume_mount(cJSON *mounts, const char *name, const char *path, bool ro)
{
    cJSON *m = obj();
    put_str(m, "name", name);
    put_str(m, "mountPath", path);
    if (ro)
        put_bool(m, "readOnly", true);
    cJSON_AddItemToArray(mounts, m);
}

/* Copies key from the pod template (if present) into dst. */
static void copy_key(cJSON *dst, const cJSON *tmpl, const char *key)
{
    const cJSON *v = tmpl ? cJSON_GetObjectItemCaseSensitive(tmpl, key) : NULL;
    if (v && !cJSON_IsNull(v))
        put(dst, key, cJSON_Duplicate(v, 1));
}

/* The pod's labels (the template's own, never pgbench.dev/ ones, then ours) and annotations. */
static void pod_metadata(cJSON *tmpl, const char *brname, const char *role, const cJSON *pt)
{
    cJSON *meta = put(tmpl, "metadata", obj());
    cJSON *labels = put(meta, "labels", obj());
    const cJSON *ul = pt ? cJSON_GetObjectItemCaseSensitive(pt, "labels") : NULL;
    const cJSON *it;
    if (cJSON_IsObject(ul))
        cJSON_ArrayForEach(it, ul) if (cJSON_IsString(it) &&
                                       strncmp(it->string, "pgbench.dev/", 12) != 0)
            put_str(labels, it->string, it->valuestring);
    put_str(labels, API_LABEL_RUN, brname);
    put_str(labels, API_LABEL_ROLE, role);
    put_str(labels, "app.kubernetes.io/managed-by", "pgbench-operator");
    copy_key(meta, pt, "annotations");
}

/* Restricted pod security: the user's securityContext is merged over these defaults, and
 * runAsNonRoot/seccomp stay enforced (the spec parser refuses root). */
static cJSON *pod_security(const cJSON *pt)
{
    cJSON *psc = obj();
    put_bool(psc, "runAsNonRoot", true);
    put_num(psc, "runAsUser", API_RUNNER_UID);
    put_num(psc, "runAsGroup", API_RUNNER_UID);
    put_num(psc, "fsGroup", API_RUNNER_UID);
    cJSON *sp = put(psc, "seccompProfile", obj());
    put_str(sp, "type", "RuntimeDefault");
    const cJSON *usc = pt ? cJSON_GetObjectItemCaseSensitive(pt, "securityContext") : NULL;
    const cJSON *it;
    if (cJSON_IsObject(usc)) {
        cJSON_ArrayForEach(it, usc)
        {
            if (strcmp(it->string, "runAsNonRoot") == 0)
                continue;
            cJSON_DeleteItemFromObjectCaseSensitive(psc, it->string);
            put(psc, it->string, cJSON_Duplicate(it, 1));
        }
    }
    return psc;
}

/* The runner container: image, command, connection env, resources, a locked-down
 * securityContext and /tmp mounted (its volumeMounts come back in *mounts). */
static cJSON *runner_container(const struct api_spec *s, const struct api_config *cfg,
                               const cJSON *pt, cJSON **mounts)
{
    cJSON *c = obj();
    put_str(c, "name", API_CONTAINER);
    put_str(c, "image", s->image && *s->image ? s->image : cfg->runner_image);
    put_str(c, "imagePullPolicy", s->pull_policy);
    cJSON *cmd = put(c, "command", arr());
    push_str(cmd, cfg->runner_command);
    put(c, "args", arr());
    put(c, "env", connection_env(s));
    copy_key(c, pt, "resources");
    cJSON *csc = put(c, "securityContext", obj());
    put_bool(csc, "allowPrivilegeEscalation", false);
    put_bool(csc, "readOnlyRootFilesystem", true);
    put_bool(csc, "runAsNonRoot", true);
    put_bool(csc, "privileged", false);
    cJSON *caps = put(csc, "capabilities", obj());
    push_str(put(caps, "drop", arr()), "ALL");
    put_str(c, "terminationMessagePath", "/dev/termination-log");
    put_str(c, "terminationMessagePolicy", "FallbackToLogsOnError");
    *mounts = put(c, "volumeMounts", arr());
    volume_mount(*mounts, "tmp", "/tmp", false);
    return c;
}

/* /tmp as an emptyDir, and the CA Secret's key as ca.crt under CA_DIR when there is one. */
static void pod_volumes(cJSON *spec, const struct api_spec *s, cJSON *mounts)
{
    cJSON *vols = put(spec, "volumes", arr());
    cJSON *tmp = obj();
    put_str(tmp, "name", "tmp");
    put(tmp, "emptyDir", obj());
    cJSON_AddItemToArray(vols, tmp);
    if (s->ca_secret) {
        cJSON *v = obj();
        put_str(v, "name", "ca");
        cJSON *sec = put(v, "secret", obj());
        put_str(sec, "secretName", s->ca_secret);
        cJSON *item = obj();
        put_str(item, "key", s->ca_key);
        put_str(item, "path", "ca.crt");
        cJSON_AddItemToArray(put(sec, "items", arr()), item);
        cJSON_AddItemToArray(vols, v);
        volume_mount(mounts, "ca", CA_DIR, true);
    }
}

/* The pod template shared by init and run Jobs; args/env/volumes/mounts are added by callers. */
static cJSON *pod_template(const cJSON *br, const struct api_spec *s, const struct api_config *cfg,
                           const char *role, cJSON **container)
{
    const char *brname = util_jstr(br, "metadata.name");
    const cJSON *pt = s->pod_template;
    cJSON *tmpl = obj();
    pod_metadata(tmpl, brname, role, pt);

    cJSON *spec = put(tmpl, "spec", obj());
    put_str(spec, "restartPolicy", "Never");
    put_bool(spec, "automountServiceAccountToken", false);
    put_num(spec, "terminationGracePeriodSeconds", 10);
    put_bool(spec, "enableServiceLinks", false);
    copy_key(spec, pt, "serviceAccountName");
    copy_key(spec, pt, "nodeSelector");
    copy_key(spec, pt, "tolerations");
    copy_key(spec, pt, "affinity");
    copy_key(spec, pt, "imagePullSecrets");
    copy_key(spec, pt, "priorityClassName");
    put(spec, "securityContext", pod_security(pt));

    cJSON *mounts;
    cJSON *c = runner_container(s, cfg, pt, &mounts);
    cJSON_AddItemToArray(put(spec, "containers", arr()), c);
    pod_volumes(spec, s, mounts);
    *container = c;
    return tmpl;
}

static cJSON *job_skeleton(const cJSON *br, enum api_child which, cJSON *tmpl,
                           const struct api_spec *s)
{
    cJSON *job = child_object(br, which, true);
    cJSON *spec = put(job, "spec", obj());
    put_num(spec, "backoffLimit", 0);
    put_num(spec, "ttlSecondsAfterFinished", (double)s->ttl_s);
    put(spec, "template", tmpl);
    return job;
}

long api_init_timeout(const struct api_spec *s)
{
    return s->timeout_s > 0 ? s->timeout_s : API_INIT_TIMEOUT_S;
}

long api_run_timeout(const struct api_spec *s, const struct api_config *cfg)
{
    if (s->timeout_s > 0)
        return s->timeout_s;
    long expected = api_spec_expected_seconds(s);
    if (expected <= 0)
        return API_TRANSACTIONS_TIMEOUT_S;
    long t = expected + cfg->deadline_margin_s;
    if (s->workload == API_WL_PGBENCH && s->replica_lag) /* the runner's catch-up wait */
        t += s->replica_timeout_s;
    return t;
}

long api_run_deadline(const struct api_spec *s, const struct api_config *cfg)
{
    return cfg->start_delay_s + api_run_timeout(s, cfg) + API_DEADLINE_REPORT_S;
}

cJSON *api_manifest_init_job(const cJSON *br, const struct api_spec *s,
                             const struct api_config *cfg)
{
    cJSON *c;
    cJSON *tmpl = pod_template(br, s, cfg, "init", &c);
    struct bench_runner_init ra;
    bench_runner_defaults(BENCH_RUNNER_PGBENCH_INIT, &ra);
    api_spec_init_opts(s, &ra.pg);
    ra.skip_if_initialized = s->skip_if_initialized;
    ra.common.create_database = s->create_database;
    ra.common.wait_timeout_s = (double)s->connect_retry_s;
    ra.common.wait_from = util_jstr(br, "metadata.creationTimestamp");
    push_runner_args(cJSON_GetObjectItemCaseSensitive(c, "args"), BENCH_RUNNER_PGBENCH_INIT, &ra);
    cJSON *job = job_skeleton(br, API_CHILD_INIT, tmpl, s);
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
    put_num(spec, "completions", 1);
    put_num(spec, "parallelism", 1);
    put_num(spec, "activeDeadlineSeconds", (double)api_init_timeout(s));
    return job;
}

/* wait_from: where target.connectRetrySeconds counts from (the run's creationTimestamp), NULL
 * for the runner's own start (after an init, which reached the target). */
static void pgbench_args(cJSON *args, cJSON *vols, cJSON *mounts, const struct api_spec *s,
                         const char *wait_from)
{
    struct bench_runner_run ra;
    bench_runner_defaults(BENCH_RUNNER_PGBENCH_RUN, &ra);
    /* clients/threads are those of worker 0 (the largest share); BENCH_CLIENTS_BY_INDEX tells
     * each worker its own share when clients do not divide evenly. */
    ra.pg.clients = api_worker_clients(s->clients, s->workers, 0);
    ra.pg.threads = api_worker_threads(s->threads, s->clients, s->workers, 0);
    ra.pg.duration_s = (int)s->duration_s;
    ra.pg.transactions = s->transactions;
    ra.pg.builtin = s->builtin;
    /* the builtin's weight applies beside scripts only; 0 is passed on as @0 */
    ra.pg.builtin_weight = s->builtin && s->n_scripts > 0 ? s->builtin_weight : BENCH_PGBENCH_UNSET;
    struct bench_pgbench_script scripts[API_MAX_SCRIPTS];
    char paths[API_MAX_SCRIPTS][320];
    for (int i = 0; i < s->n_scripts; i++) {
        char vname[32], dir[96];
        (void)snprintf(vname, sizeof(vname), "script-%d", i);
        (void)snprintf(dir, sizeof(dir), SCRIPTS_DIR "/%d", i);
        (void)snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, s->scripts[i].key);
        scripts[i].path = paths[i];
        scripts[i].weight = s->scripts[i].weight;
        cJSON *v = obj();
        put_str(v, "name", vname);
        cJSON *cm = put(v, "configMap", obj());
        put_str(cm, "name", s->scripts[i].configmap);
        cJSON *item = obj();
        put_str(item, "key", s->scripts[i].key);
        put_str(item, "path", s->scripts[i].key);
        cJSON_AddItemToArray(put(cm, "items", arr()), item);
        cJSON_AddItemToArray(vols, v);
        volume_mount(mounts, vname, dir, true);
    }
    ra.pg.scripts = scripts;
    ra.pg.nscripts = (size_t)s->n_scripts;
    if (bench_protocol_parse(s->protocol, &ra.pg.protocol) != 0)
        ra.pg.protocol = BENCH_PROTOCOL_DEFAULT; /* the spec parser allows only the three */
    ra.pg.rate = api_worker_rate(s->rate, s->workers, 0); /* worker 0's, as clients */
    ra.pg.latency_limit_ms = s->latency_limit_ms;
    ra.pg.no_vacuum = s->no_vacuum;
    ra.pg.connect = s->connect;
    /* 1 is pgbench's default and the CRD's: not written, so that an image whose pgbench is
     * older than 15 (no --max-tries, one try) still runs; 0 (unlimited) and the others are */
    ra.pg.max_tries = s->max_tries != 1 ? s->max_tries : BENCH_PGBENCH_UNSET;
    ra.pg.failures_detailed = s->failures_detailed;
    ra.pg.per_statement = s->per_statement;
    ra.pg.progress_s = s->progress_s;
    ra.warmup_s = s->warmup_s;
    ra.wait_events = s->wait_events;
    ra.server_settings = s->server_settings;
    ra.replica_lag = s->replica_lag;
    if (s->replica_lag)
        ra.replica_timeout_s = s->replica_timeout_s;
    ra.common.wait_timeout_s = (double)s->connect_retry_s;
    ra.common.wait_from = wait_from;
    ra.pg.extra_args = s->extra_args;
    ra.pg.nextra = (size_t)s->n_extra_args;
    push_runner_args(args, BENCH_RUNNER_PGBENCH_RUN, &ra);
}

static void fio_args(cJSON *args, cJSON *vols, cJSON *mounts, const cJSON *br,
                     const struct api_spec *s)
{
    struct bench_runner_fio ra;
    bench_runner_defaults(BENCH_RUNNER_FIO, &ra);
    struct bench_fio_job_opts jobs[API_MAX_FIO_JOBS];
    for (int i = 0; i < s->n_fio_jobs; i++) {
        const struct api_fio_job *j = &s->fio_jobs[i];
        jobs[i] = (struct bench_fio_job_opts){
            .name = j->name,
            .rw = j->rw,
            .bs = j->bs,
            .iodepth = j->iodepth,
            .numjobs = j->numjobs,
            .size = j->size,
            .runtime_s = j->runtime_s,
            .direct = j->direct,
            .ioengine = j->ioengine,
            .fsync = j->fsync,
            .fdatasync = j->fdatasync,
        };
    }
    ra.fio.directory = FIO_DIR;
    ra.fio.jobs = jobs;
    ra.fio.njobs = (size_t)s->n_fio_jobs;
    push_runner_args(args, BENCH_RUNNER_FIO, &ra);
    char pvc[300];
    api_child_name(util_jstr(br, "metadata.name"), API_CHILD_FIO_PVC, pvc, sizeof(pvc));
    cJSON *v = obj();
    put_str(v, "name", "data");
    put_str(put(v, "persistentVolumeClaim", obj()), "claimName", pvc);
    cJSON_AddItemToArray(vols, v);
    volume_mount(mounts, "data", FIO_DIR, false);
}

/* The start barrier's file: a downwardAPI volume of the pod's API_START_ANNOTATION (empty until
 * the operator sets it; the kubelet rewrites the volume when the pod's annotations change). */
static void start_file(cJSON *env, cJSON *vols, cJSON *mounts)
{
    char dir[sizeof(API_START_FILE)];
    (void)snprintf(dir, sizeof(dir), "%s", API_START_FILE);
    *strrchr(dir, '/') = '\0';
    cJSON *v = obj();
    put_str(v, "name", "start");
    cJSON *item = obj();
    put_str(item, "path", strrchr(API_START_FILE, '/') + 1);
    put_str(put(item, "fieldRef", obj()), "fieldPath",
            "metadata.annotations['" API_START_ANNOTATION "']");
    cJSON_AddItemToArray(put(put(v, "downwardAPI", obj()), "items", arr()), item);
    cJSON_AddItemToArray(vols, v);
    volume_mount(mounts, "start", dir, true);
    env_value(env, "BENCH_START_AT_FILE", API_START_FILE);
}

/* NAME=each worker's share (clients, or rate when `rate`) in worker order, as plain decimals
 * ("3,2,2", "250.25,250.25"): BENCH_CLIENTS_BY_INDEX, BENCH_RATE_BY_INDEX. */
static void shares_env(cJSON *env, const char *name, const struct api_spec *s, bool rate)
{
    char list[24 * API_MAX_WORKERS] = "";
    size_t n = 0;
    for (int i = 0; i < s->workers && n + 24 < sizeof(list); i++) {
        char v[400];
        bench_fmt_decimal(v, sizeof(v),
                          rate ? api_worker_rate(s->rate, s->workers, i)
                               : api_worker_clients(s->clients, s->workers, i));
        n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? "," : "", v);
    }
    env_value(env, name, list);
}

/* The run's worker pods: {matchLabels: {API_LABEL_RUN: br, API_LABEL_ROLE: run}}. */
static cJSON *worker_selector(const char *brname)
{
    cJSON *sel = obj();
    cJSON *ml = put(sel, "matchLabels", obj());
    put_str(ml, API_LABEL_RUN, brname);
    put_str(ml, API_LABEL_ROLE, "run");
    return sel;
}

/* spec.placement on the worker pods' spec: spread (a topologySpreadConstraint on the hostname,
 * maxSkew 1, ScheduleAnyway), pack (a preferred podAffinity to each other on the hostname, added
 * to the podTemplate's affinity) or the user's constraints, those without labelSelector selecting
 * the run's workers. */
static void placement(cJSON *pod_spec, const struct api_spec *s, const char *brname)
{
    if (s->placement == API_PLACE_PACK) {
        cJSON *aff = cJSON_GetObjectItemCaseSensitive(pod_spec, "affinity");
        if (!aff)
            aff = put(pod_spec, "affinity", obj());
        cJSON *pa = cJSON_GetObjectItemCaseSensitive(aff, "podAffinity");
        if (!pa)
            pa = put(aff, "podAffinity", obj());
        const char *k = "preferredDuringSchedulingIgnoredDuringExecution";
        cJSON *pref = cJSON_GetObjectItemCaseSensitive(pa, k);
        if (!pref)
            pref = put(pa, k, arr());
        cJSON *w = obj();
        put_num(w, "weight", 100);
        cJSON *term = put(w, "podAffinityTerm", obj());
        put(term, "labelSelector", worker_selector(brname));
        put_str(term, "topologyKey", API_LABEL_HOSTNAME);
        cJSON_AddItemToArray(pref, w);
        return;
    }
    if (s->placement == API_PLACE_CUSTOM) {
        if (!s->spread_constraints)
            return;
        cJSON *tsc =
            put(pod_spec, "topologySpreadConstraints", cJSON_Duplicate(s->spread_constraints, 1));
        cJSON *c;
        cJSON_ArrayForEach(c, tsc) if (!cJSON_GetObjectItemCaseSensitive(c, "labelSelector"))
            put(c, "labelSelector", worker_selector(brname));
        return;
    }
    cJSON *c = obj();
    put_num(c, "maxSkew", 1);
    put_str(c, "topologyKey", API_LABEL_HOSTNAME);
    put_str(c, "whenUnsatisfiable", "ScheduleAnyway");
    put(c, "labelSelector", worker_selector(brname));
    cJSON_AddItemToArray(put(pod_spec, "topologySpreadConstraints", arr()), c);
}

cJSON *api_manifest_run_job(const cJSON *br, const struct api_spec *s, const struct api_config *cfg,
                            long run_from)
{
    cJSON *c;
    cJSON *tmpl = pod_template(br, s, cfg, "run", &c);
    cJSON *args = cJSON_GetObjectItemCaseSensitive(c, "args");
    cJSON *env = cJSON_GetObjectItemCaseSensitive(c, "env");
    cJSON *mounts = cJSON_GetObjectItemCaseSensitive(c, "volumeMounts");
    cJSON *vols = (cJSON *)util_jget(tmpl, "spec.volumes");
    start_file(env, vols, mounts);
    placement(cJSON_GetObjectItemCaseSensitive(tmpl, "spec"), s, util_jstr(br, "metadata.name"));
    if (s->workload == API_WL_PGBENCH) /* the runner stops its load there and reports */
        env_num(env, "BENCH_DEADLINE_AT", run_from + api_run_timeout(s, cfg));
    if (s->workload == API_WL_PGBENCH) {
        pgbench_args(args, vols, mounts, s,
                     s->init ? NULL : util_jstr(br, "metadata.creationTimestamp"));
        if (s->workers > 1) {
            shares_env(env, "BENCH_CLIENTS_BY_INDEX", s, false);
            if (s->rate > 0)
                shares_env(env, "BENCH_RATE_BY_INDEX", s, true);
        }
    } else {
        fio_args(args, vols, mounts, br, s);
    }
    cJSON *job = job_skeleton(br, API_CHILD_RUN, tmpl, s);
    cJSON *spec = cJSON_GetObjectItemCaseSensitive(job, "spec");
    put_str(spec, "completionMode", "Indexed");
    put_num(spec, "completions", s->workers);
    put_num(spec, "parallelism", s->workers);
    put_num(spec, "activeDeadlineSeconds", (double)api_run_deadline(s, cfg));
    return job;
}

cJSON *api_manifest_fio_pvc(const cJSON *br, const struct api_spec *s)
{
    cJSON *pvc = child_object(br, API_CHILD_FIO_PVC, !s->keep_volume);
    cJSON *spec = put(pvc, "spec", obj());
    push_str(put(spec, "accessModes", arr()), "ReadWriteOnce");
    if (s->storage_class && *s->storage_class)
        put_str(spec, "storageClassName", s->storage_class);
    put_str(put(put(spec, "resources", obj()), "requests", obj()), "storage", s->volume_size);
    return pvc;
}

cJSON *api_manifest_hpa(const cJSON *br, const struct api_spec *s)
{
    cJSON *h = child_object(br, API_CHILD_HPA, true);
    cJSON *spec = put(h, "spec", obj());
    cJSON *ref = put(spec, "scaleTargetRef", obj());
    put_str(ref, "apiVersion", s->hpa_api_version);
    put_str(ref, "kind", s->hpa_kind);
    put_str(ref, "name", s->hpa_name);
    put_num(spec, "minReplicas", s->hpa_min);
    put_num(spec, "maxReplicas", s->hpa_max);
    cJSON *m = obj();
    put_str(m, "type", "Resource");
    cJSON *res = put(m, "resource", obj());
    put_str(res, "name", "cpu");
    cJSON *target = put(res, "target", obj());
    put_str(target, "type", "Utilization");
    put_num(target, "averageUtilization", s->hpa_cpu);
    cJSON_AddItemToArray(put(spec, "metrics", arr()), m);
    if (s->hpa_behavior && cJSON_GetArraySize(s->hpa_behavior) > 0)
        put(spec, "behavior", cJSON_Duplicate(s->hpa_behavior, 1));
    return h;
}

cJSON *api_manifest_result_configmap(const cJSON *br, const char *key, const char *value)
{
    cJSON *cm = child_object(br, API_CHILD_RESULT, true);
    put_str(put(cm, "data", obj()), key, value);
    return cm;
}
