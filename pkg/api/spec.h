/* pkg/api/spec: the BenchmarkRun spec, parsed, defaulted and validated.
 *
 * api_spec_parse() reads `spec` of a BenchmarkRun into a flat struct with every default applied.
 * The struct owns a private copy of the JSON: every `const char *` in it points into that copy
 * and lives until api_spec_free(). Validation errors name the field and say how to fix it, e.g.
 * "spec.workload.pgbench.run: set exactly one of durationSeconds or transactions". */
#ifndef PGBO_API_SPEC_H
#define PGBO_API_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define API_MAX_WORKERS 256
#define API_MAX_SCRIPTS 16
#define API_MAX_EXTRA_ARGS 32
#define API_MAX_FIO_JOBS 8
/* spec.timeoutSeconds at most (the CRD's maximum too) */
#define API_MAX_TIMEOUT_S (30L * 86400)

enum api_workload { API_WL_PGBENCH, API_WL_FIO };

/* spec.placement.mode: spread the workers over nodes (a topologySpreadConstraint on
 * kubernetes.io/hostname, maxSkew 1, ScheduleAnyway), pack them on one (a preferred podAffinity
 * to each other), or only the user's constraints. */
enum api_placement { API_PLACE_SPREAD, API_PLACE_PACK, API_PLACE_CUSTOM };
#define API_MAX_SPREAD_CONSTRAINTS 8

struct api_script {
    const char *configmap; /* ConfigMap name */
    const char *key;       /* key inside it, also the file name */
    int weight;
};

struct api_fio_job {
    const char *name, *rw, *bs, *size, *ioengine;
    int iodepth, numjobs, runtime_s, fsync, fdatasync;
    bool direct;
};

/* target.connectRetrySeconds' default: how long the runners retry a target that does not
 * resolve, refuses or is starting up before the run fails (a Service may appear later). */
#define API_CONNECT_RETRY_S 30

struct api_spec {
    cJSON *json; /* owned copy of spec */

    /* target: resolved (the CNPG shortcut is expanded into host/user/secret) */
    bool cnpg;
    const char *cnpg_cluster;
    char host[256];
    int port;
    char database[64];
    char user[64];             /* "" when the pods read it from a Secret (user_key) */
    const char *user_key;      /* cnpg without target.user: PGUSER from password_secret's key
                                * "username" (a secretKeyRef); NULL: user above */
    char password_secret[256]; /* "" = no password */
    const char *password_key;
    const char *ssl_mode;
    const char *ca_secret; /* NULL = none */
    const char *ca_key;
    bool create_database;
    long connect_retry_s; /* target.connectRetrySeconds: the runners' --wait-timeout */

    enum api_workload workload;

    /* pgbench */
    bool init;
    int scale, partitions;
    bool foreign_keys, skip_if_initialized;
    /* init.generation ("server"|"client", NULL = the runner's default: server where its pgbench
     * has it), init.steps (-I, NULL = the generation's), init.fillfactor (0 = pgbench's 100),
     * init.unloggedTables, init.tablespace, init.indexTablespace (NULL = the default) */
    const char *init_generation, *init_steps, *init_tablespace, *init_index_tablespace;
    int init_fillfactor;
    bool init_unlogged;
    int clients, threads;
    long duration_s;     /* 0 when transactions is set */
    long transactions;   /* 0 when durationSeconds is set */
    const char *builtin; /* NULL when only scripts */
    int builtin_weight;
    struct api_script scripts[API_MAX_SCRIPTS];
    int n_scripts;
    const char *protocol;
    double rate, latency_limit_ms;
    bool no_vacuum, connect, failures_detailed, per_statement;
    int max_tries, progress_s;
    int warmup_s; /* run.warmupSeconds: the warm-up cut, 0 = none */
    const char *extra_args[API_MAX_EXTRA_ARGS];
    int n_extra_args;

    /* fio */
    const char *storage_class; /* NULL or "" = cluster default */
    const char *volume_size;
    bool keep_volume;
    struct api_fio_job fio_jobs[API_MAX_FIO_JOBS];
    int n_fio_jobs;

    int workers;

    /* hpa */
    bool hpa;
    const char *hpa_api_version, *hpa_kind, *hpa_name;
    int hpa_min, hpa_max, hpa_cpu;
    const cJSON *hpa_behavior; /* NULL or an object, passed through */
    bool hpa_keep;

    /* diagnostics */
    bool wait_events, server_settings, replica_lag;
    int replica_timeout_s;

    /* spec.placement (docs/spec.md): where the run Job's worker pods go */
    enum api_placement placement;
    const cJSON *spread_constraints; /* with API_PLACE_CUSTOM: NULL or the user's
                                        topologySpreadConstraints (an array, checked) */

    const char *image; /* NULL = the operator's --runner-image */
    const char *pull_policy;
    const cJSON *pod_template; /* NULL or object: resources, nodeSelector, ... */
    long ttl_s;
    long timeout_s; /* spec.timeoutSeconds; 0 = each phase's default (manifest.h) */
    bool cleanup_delete;
};

/* Parses and validates spec (the BenchmarkRun's .spec, may be NULL). Returns 0, or -EINVAL with
 * a message in err naming the field and the fix. On error the struct is freed already. */
int api_spec_parse(const cJSON *spec, struct api_spec *out, char *err, size_t errlen);
void api_spec_free(struct api_spec *s);

/* Worker `index`'s share when `total` is split across `workers`: the remainder goes to the
 * lowest indexes (7 over 3 -> 3, 2, 2). Every total the workers share (clients, rate) is split by
 * this one rule, so that the workers together run what one pgbench would. */
long api_worker_share(long total, int workers, int index);
/* Clients of worker `index`: api_worker_share of the clients. */
int api_worker_clients(int clients, int workers, int index);
/* The rate (pgbench -R, tps) is a total like clients: worker `index` gets api_worker_share of it
 * counted in 1/API_RATE_UNITS tps (1001 over 4 -> 250.25 each; 10 over 3 -> 3.334, 3.333,
 * 3.333), so the shares add up to the rate exactly. The spec parser refuses a rate below
 * 1/API_RATE_UNITS per worker. */
#define API_RATE_UNITS 1000
double api_worker_rate(double rate, int workers, int index);
/* Threads of that worker: the requested threads capped at its clients. */
int api_worker_threads(int threads, int clients, int workers, int index);

/* "host:port/database", for status.target. */
void api_spec_target_string(const struct api_spec *s, char *out, size_t len);

/* The role for status.targetUser before a result names it: the user, or "from Secret <name>"
 * when the pods read it from a Secret (the operator never does). */
void api_spec_user_string(const struct api_spec *s, char *out, size_t len);

/* Sets the init options of o (pkg/bench) the spec names (workload.pgbench.init, scale,
 * foreignKeys, ...); the others are left. Strings are borrowed from s. */
struct bench_pgbench_init_opts;
void api_spec_init_opts(const struct api_spec *s, struct bench_pgbench_init_opts *o);

/* Seconds the run is expected to take at most (duration or fio runtimes), 0 when unknown
 * (transactions mode). */
long api_spec_expected_seconds(const struct api_spec *s);

#endif
