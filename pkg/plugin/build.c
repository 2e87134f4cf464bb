/* BenchmarkRun objects from the plugin's flags; children from the operator's manifest code. */
#include "pkg/plugin/build.h"
#include "pkg/util/mem.h"
#include "pkg/api/spec.h"
#include "pkg/bench/argv.h"
#include "pkg/plugin/pgbench_args.h"
#include "pkg/util/clock.h"
#include "pkg/util/err.h"
#include "pkg/util/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *add_obj(cJSON *o, const char *k)
{
    return util_must(cJSON_AddObjectToObject(o, k));
}

long plugin_parse_duration(const char *s)
{
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || v < 0)
        return -1;
    long mul = 1;
    if (*end == 's')
        end++;
    else if (*end == 'm')
        mul = 60, end++;
    else if (*end == 'h')
        mul = 3600, end++;
    else if (*end == 'd')
        mul = 86400, end++;
    if (*end || v > 100L * 365 * 86400 / mul)
        return -1;
    return v * mul;
}

static cJSON *skeleton(const struct plugin_common_opts *c, cJSON **spec, char *err, size_t errlen)
{
    if (!c->name || !*c->name) {
        (void)util_errf(err, errlen, "a name is required (--name)");
        return NULL;
    }
    if (strlen(c->name) > API_MAX_NAME) {
        (void)util_errf(err, errlen,
                        "--name \"%s\": at most %d characters, so that <name>-init and the other "
                        "children stay valid label values",
                        c->name, API_MAX_NAME);
        return NULL;
    }
    cJSON *br = cJSON_CreateObject();
    cJSON_AddStringToObject(br, "apiVersion", "pgbench.dev/v1alpha1");
    cJSON_AddStringToObject(br, "kind", "BenchmarkRun");
    cJSON *meta = add_obj(br, "metadata");
    util_must(cJSON_AddStringToObject(meta, "name", c->name));
    util_must(cJSON_AddStringToObject(meta, "namespace", c->ns));
    cJSON *labels = add_obj(meta, "labels");
    util_must(cJSON_AddStringToObject(labels, "app.kubernetes.io/created-by", "kubectl-pgbench"));
    *spec = add_obj(br, "spec");
    return br;
}

static int common_fields(cJSON *spec, const struct plugin_common_opts *c, char *err, size_t errlen)
{
    if (c->workers > 0)
        util_must(cJSON_AddNumberToObject(spec, "workers", c->workers));
    if (c->n_node_selector > 0) {
        cJSON *ns = add_obj(add_obj(spec, "podTemplate"), "nodeSelector");
        for (size_t i = 0; i < c->n_node_selector; i++) {
            const char *kv = c->node_selector[i], *eq = strchr(kv, '=');
            if (!eq || eq == kv)
                return util_errf(err, errlen, "--node-selector \"%s\": expected KEY=VALUE", kv);
            char key[256];
            (void)snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
            cJSON_DeleteItemFromObjectCaseSensitive(ns, key);
            util_must(cJSON_AddStringToObject(ns, key, eq + 1));
        }
    }
    if (c->ttl_s >= 0)
        util_must(cJSON_AddNumberToObject(spec, "ttlSecondsAfterFinished", (double)c->ttl_s));
    if (c->timeout_s > 0)
        util_must(cJSON_AddNumberToObject(spec, "timeoutSeconds", (double)c->timeout_s));
    if (c->image)
        util_must(cJSON_AddStringToObject(spec, "image", c->image));
    if (c->cleanup)
        util_must(cJSON_AddStringToObject(spec, "cleanupPolicy", c->cleanup));
    return 0;
}

/* The operator's own validation, so a refused spec never reaches the cluster. */
static int check_spec(const cJSON *br, char *err, size_t errlen)
{
    struct api_spec s;
    char why[512];
    if (api_spec_parse(cJSON_GetObjectItemCaseSensitive(br, "spec"), &s, why, sizeof(why)))
        return util_errf(err, errlen, "the operator would refuse this run: %s", why);
    api_spec_free(&s);
    return 0;
}

/* --init-generation, -I, -F, --unlogged-tables, --tablespace, --index-tablespace: as given (the
 * spec parser checks them). */
static void add_init_options(cJSON *init, const struct plugin_run_opts *o)
{
    if (o->init_generation)
        util_must(cJSON_AddStringToObject(init, "generation", o->init_generation));
    if (o->init_steps)
        util_must(cJSON_AddStringToObject(init, "steps", o->init_steps));
    if (o->fillfactor > 0)
        util_must(cJSON_AddNumberToObject(init, "fillfactor", o->fillfactor));
    if (o->unlogged_tables)
        util_must(cJSON_AddTrueToObject(init, "unloggedTables"));
    if (o->tablespace)
        util_must(cJSON_AddStringToObject(init, "tablespace", o->tablespace));
    if (o->index_tablespace)
        util_must(cJSON_AddStringToObject(init, "indexTablespace", o->index_tablespace));
}

cJSON *plugin_build_run(const struct plugin_run_opts *o, char *err, size_t errlen)
{
    cJSON *spec;
    cJSON *br = skeleton(&o->c, &spec, err, errlen);
    if (!br)
        return NULL;
    cJSON *target = util_must(cJSON_Duplicate(o->target, 1));
    cJSON_AddItemToObject(spec, "target", target);
    cJSON *pg = add_obj(add_obj(spec, "workload"), "pgbench");
    if (o->init_scale > 0) {
        cJSON *init = add_obj(pg, "init");
        util_must(cJSON_AddNumberToObject(init, "scale", o->init_scale));
        if (o->foreign_keys)
            util_must(cJSON_AddTrueToObject(init, "foreignKeys"));
        if (o->partitions > 0)
            util_must(cJSON_AddNumberToObject(init, "partitions", o->partitions));
        add_init_options(init, o);
    }
    cJSON *run = add_obj(pg, "run");
    const char *dbname = NULL;
    if (plugin_pgbench_args(run, o->pgbench_args, o->npgbench_args, &dbname, err, errlen))
        goto fail;
    if (dbname) {
        if (cJSON_GetObjectItemCaseSensitive(target, "database")) {
            (void)util_errf(err, errlen,
                            "the database is given twice: --db-name and pgbench's DBNAME \"%s\"",
                            dbname);
            goto fail;
        }
        util_must(cJSON_AddStringToObject(target, "database", dbname));
    }
    if (o->create_database)
        util_must(cJSON_AddTrueToObject(target, "createDatabase"));
    if (o->warmup_s > 0)
        util_must(cJSON_AddNumberToObject(run, "warmupSeconds", (double)o->warmup_s));
    if (o->placement)
        util_must(cJSON_AddStringToObject(add_obj(spec, "placement"), "mode", o->placement));
    /* pgbench's own default: 10 transactions per client */
    if (!cJSON_GetObjectItemCaseSensitive(run, "durationSeconds") &&
        !cJSON_GetObjectItemCaseSensitive(run, "transactions"))
        util_must(cJSON_AddNumberToObject(run, "transactions", 10));
    if (cJSON_GetObjectItemCaseSensitive(run, "durationSeconds") &&
        cJSON_GetObjectItemCaseSensitive(run, "transactions")) {
        (void)util_errf(err, errlen, "pgbench options -T and -t: give one of them");
        goto fail;
    }
    if (common_fields(spec, &o->c, err, errlen) || (!o->template && check_spec(br, err, errlen)))
        goto fail;
    return br;
fail:
    cJSON_Delete(br);
    return NULL;
}

struct preset {
    const char *name, *rw, *bs;
    int iodepth, numjobs, fdatasync;
    bool buffered;        /* direct: false */
    const char *ioengine; /* NULL: the spec's default (libaio) */
};
/* wal: PostgreSQL's commit path with wal_sync_method=fdatasync (the Linux default): one process
 * writing 8 KiB WAL pages sequentially through the page cache (write(2), no O_DIRECT), then
 * fdatasync; one job, iodepth 1, the sync engine, as examples/07. Its sync p99 is the
 * commit-latency floor of the storage. The random presets are the data files' 8 KiB pages under
 * concurrency: iodepth 32 needs an asynchronous engine (fio: "increasing iodepth beyond 1 will not
 * affect synchronous ioengines") and libaio is asynchronous only with direct=1 (fio: "buffered
 * I/O is not async on that OS"), so they keep the spec's defaults, libaio and direct. */
static const struct preset presets[] = {
    {"wal", "write", "8k", 1, 1, 1, true, "sync"},
    {"random-read", "randread", "8k", 32, 1, 0, false, NULL},
    {"random-rw", "randrw", "8k", 32, 1, 0, false, NULL},
};

cJSON *plugin_build_fio(const struct plugin_fio_opts *o, char *err, size_t errlen)
{
    const char *preset = o->preset ? o->preset : "all";
    bool known = strcmp(preset, "all") == 0;
    for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
        known = known || strcmp(preset, presets[i].name) == 0;
    if (!known) {
        (void)util_errf(err, errlen, "--preset \"%s\": one of wal, random-read, random-rw, all",
                        preset);
        return NULL;
    }
    cJSON *spec;
    cJSON *br = skeleton(&o->c, &spec, err, errlen);
    if (!br)
        return NULL;
    cJSON *fio = add_obj(add_obj(spec, "workload"), "fio");
    if (o->storage_class)
        util_must(cJSON_AddStringToObject(fio, "storageClassName", o->storage_class));
    util_must(cJSON_AddStringToObject(fio, "volumeSize", o->size ? o->size : "10Gi"));
    if (o->keep_volume)
        util_must(cJSON_AddTrueToObject(fio, "keepVolume"));
    cJSON *jobs = util_must(cJSON_AddArrayToObject(fio, "jobs"));
    for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
        const struct preset *p = &presets[i];
        if (strcmp(preset, "all") != 0 && strcmp(preset, p->name) != 0)
            continue;
        cJSON *j = cJSON_CreateObject();
        util_must(cJSON_AddStringToObject(j, "name", p->name));
        util_must(cJSON_AddStringToObject(j, "rw", p->rw));
        util_must(cJSON_AddStringToObject(j, "bs", p->bs));
        cJSON_AddNumberToObject(j, "iodepth", p->iodepth);
        cJSON_AddNumberToObject(j, "numjobs", p->numjobs);
        if (p->fdatasync)
            cJSON_AddNumberToObject(j, "fdatasync", p->fdatasync);
        if (o->file_size)
            util_must(cJSON_AddStringToObject(j, "size", o->file_size));
        if (o->runtime_s > 0)
            cJSON_AddNumberToObject(j, "runtimeSeconds", o->runtime_s);
        if (o->ioengine || p->ioengine)
            util_must(
                cJSON_AddStringToObject(j, "ioengine", o->ioengine ? o->ioengine : p->ioengine));
        if (o->buffered || p->buffered)
            cJSON_AddFalseToObject(j, "direct");
        cJSON_AddItemToArray(jobs, j);
    }
    if (common_fields(spec, &o->c, err, errlen) || check_spec(br, err, errlen)) {
        cJSON_Delete(br);
        return NULL;
    }
    return br;
}

cJSON *plugin_children(const cJSON *br, const struct api_config *cfg, long run_from, char *err,
                       size_t errlen)
{
    struct api_spec s;
    char why[512];
    if (api_spec_parse(cJSON_GetObjectItemCaseSensitive(br, "spec"), &s, why, sizeof(why))) {
        (void)util_errf(err, errlen, "the operator would refuse this run: %s", why);
        return NULL;
    }
    /* not created yet: its connect window will count from its creationTimestamp, about now */
    cJSON *created = NULL;
    if (!util_jstr(br, "metadata.creationTimestamp")) {
        char now[UTIL_RFC3339_LEN];
        util_rfc3339(util_wall_s(), 0, now, sizeof(now));
        created = util_must(cJSON_Duplicate(br, 1));
        cJSON *md = cJSON_GetObjectItemCaseSensitive(created, "metadata");
        if (cJSON_IsObject(md))
            util_jset_str(md, "creationTimestamp", now);
        br = created;
    }
    cJSON *out = cJSON_CreateArray();
    if (s.hpa)
        cJSON_AddItemToArray(out, api_manifest_hpa(br, &s));
    if (s.workload == API_WL_FIO)
        cJSON_AddItemToArray(out, api_manifest_fio_pvc(br, &s));
    if (s.workload == API_WL_PGBENCH && s.init)
        cJSON_AddItemToArray(out, api_manifest_init_job(br, &s, cfg));
    cJSON_AddItemToArray(out, api_manifest_run_job(br, &s, cfg, run_from));
    api_spec_free(&s);
    cJSON_Delete(created);
    return out;
}

int plugin_split_note(struct buf *out, const cJSON *br)
{
    struct api_spec s;
    char why[512];
    if (api_spec_parse(cJSON_GetObjectItemCaseSensitive(br, "spec"), &s, why, sizeof(why)))
        return 0;
    int rc = 0;
    if (s.workload != API_WL_PGBENCH || s.workers < 2)
        goto out;
    char rate[400];
    bench_fmt_decimal(rate, sizeof(rate), s.rate);
    rc =
        buf_printf(out, "# -c %d%s%s are totals over %d workers, split as one pgbench runs them:\n",
                   s.clients, s.rate > 0 ? " -R " : "", s.rate > 0 ? rate : "", s.workers);
    rc = rc ? rc : buf_puts(out, "#   clients");
    for (int i = 0; !rc && i < s.workers; i++)
        rc = buf_printf(out, "%s%d", i ? "," : " ", api_worker_clients(s.clients, s.workers, i));
    for (int i = 0; !rc && s.rate > 0 && i < s.workers; i++) {
        bench_fmt_decimal(rate, sizeof(rate), api_worker_rate(s.rate, s.workers, i));
        rc = buf_printf(out, "%s%s", i ? "," : "; rate (tps) ", rate);
    }
    rc = rc ? rc : buf_puts(out, " (worker 0, 1, ...)\n");
out:
    api_spec_free(&s);
    return rc;
}
