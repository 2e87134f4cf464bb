/* pkg/plugin/build: the BenchmarkRun that `kubectl pgbench run|fio` applies, and the children the
 * operator would create for it, through the operator's own spec parser (api_spec_parse) and
 * manifest builders (api_manifest_*), so --dry-run shows what the operator will do. */
#ifndef PGBO_PLUGIN_BUILD_H
#define PGBO_PLUGIN_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "pkg/util/buf.h"

#include "pkg/api/manifest.h"

#define PLUGIN_MAX_SELECTORS 16

/* Settings shared by both workloads. */
struct plugin_common_opts {
    const char *name;                                /* metadata.name (required) */
    const char *ns;                                  /* metadata.namespace (required) */
    int workers;                                     /* 0: spec default */
    const char *node_selector[PLUGIN_MAX_SELECTORS]; /* "key=value" */
    size_t n_node_selector;
    long ttl_s;          /* -1: spec default */
    long timeout_s;      /* 0: spec default */
    const char *image;   /* NULL: the operator's */
    const char *cleanup; /* NULL, "Keep" or "Delete" */
};

struct plugin_run_opts {
    struct plugin_common_opts c;
    cJSON *target;                   /* spec.target (plugin_target_build); borrowed, duplicated */
    const char *const *pgbench_args; /* after "--" */
    size_t npgbench_args;
    int init_scale; /* > 0: spec.workload.pgbench.init with this scale */
    bool foreign_keys;
    int partitions;
    /* init.generation, steps, fillfactor (0: pgbench's), unloggedTables, tablespace,
     * indexTablespace; NULL/0/false: not set */
    const char *init_generation, *init_steps, *tablespace, *index_tablespace;
    int fillfactor;
    bool unlogged_tables;
    bool create_database;
    long warmup_s;         /* > 0: run.warmupSeconds */
    const char *placement; /* spec.placement.mode: "spread" or "pack"; NULL: the spec's default */
    bool template; /* a sweep's template: not checked alone (the sweep checks each step's spec) */
};

struct plugin_fio_opts {
    struct plugin_common_opts c;
    const char *storage_class; /* NULL: the cluster default */
    const char *size;          /* volumeSize, NULL: 10Gi */
    const char *preset;        /* wal, random-read, random-rw, all (NULL = all) */
    const char *file_size;     /* each job's size, NULL: 1g */
    int runtime_s;             /* each job's, 0: 60 */
    bool keep_volume;
    const char *ioengine; /* NULL: libaio (spec default) */
    bool buffered;        /* direct: false (filesystems without O_DIRECT, such as tmpfs) */
};

/* A new BenchmarkRun (apiVersion, kind, metadata, spec), checked with the operator's spec parser;
 * NULL with the message in err (naming the flag, or the spec field the operator would refuse). */
cJSON *plugin_build_run(const struct plugin_run_opts *o, char *err, size_t errlen);
cJSON *plugin_build_fio(const struct plugin_fio_opts *o, char *err, size_t errlen);

/* The objects the operator creates for br, in its order: HPA, fio PVC, init Job, run Job (those
 * that apply). run_from is where the run Job's deadline counts from (Unix seconds: now + the start
 * delay, as the operator's Running entry would); the start barrier itself is published later, on
 * the pods. A br without metadata.creationTimestamp (not created yet) is taken as created now:
 * the runners' --wait-from (target.connectRetrySeconds counts from the creation). A new array, or
 * NULL with err. */
cJSON *plugin_children(const cJSON *br, const struct api_config *cfg, long run_from, char *err,
                       size_t errlen);

/* For a pgbench run over several workers, what each pod runs of the totals, as YAML comment
 * lines ("# -c 10 -R 1000 are totals over 4 workers, split as one pgbench runs them: ...") for
 * the dry run; nothing otherwise (or when br does not parse). 0 or -E2BIG. */
int plugin_split_note(struct buf *out, const cJSON *br);

/* "30", "90s", "15m", "2h", "1d" -> seconds; -1 when malformed. */
long plugin_parse_duration(const char *s);

#endif
