/* pkg/api/manifest: the child objects of a BenchmarkRun, built as cJSON trees.
 *
 * Names are deterministic (design card): <br>-init, <br>-run, <br>-fio, <br>-hpa. Every child
 * carries the label pgbench.dev/benchmarkrun=<br> and an ownerReference (controller: true,
 * blockOwnerDeletion: true) to the BenchmarkRun, except a fio PVC with keepVolume. Each builder
 * returns a new tree the caller frees with cJSON_Delete. */
#ifndef PGBO_API_MANIFEST_H
#define PGBO_API_MANIFEST_H

#include <cjson/cJSON.h>

#include "pkg/api/spec.h"
#include "pkg/kube/kube.h"

/* The BenchmarkRun custom resource (pkg/kube knows only built-in kinds). */
extern const struct kube_resource API_BENCHMARKRUNS;

#define API_LABEL_RUN "pgbench.dev/benchmarkrun"
#define API_LABEL_ROLE "pgbench.dev/role"
#define API_CONTAINER "runner"
/* The node label spec.placement spreads and packs the workers over (every node has it). */
#define API_LABEL_HOSTNAME "kubernetes.io/hostname"
#define API_RUNNER_UID 65532
/* Longest BenchmarkRun name whose child names (<br>-init) are still valid label values. */
#define API_MAX_NAME 57
/* The start barrier of a run (RFC 3339 UTC with milliseconds), set by the operator on every worker
 * pod once all of them are ready; the runner reads it from a downwardAPI file
 * (BENCH_START_AT_FILE = API_START_FILE). */
#define API_START_ANNOTATION "pgbench.dev/start-at"
#define API_START_FILE "/etc/pgbench/start/start-at"

/* Operator-wide settings the manifests depend on. */
struct api_config {
    const char *runner_image;   /* default image when spec.image is empty */
    const char *runner_command; /* absolute path of the runner inside the image */
    long start_delay_s;         /* the run's deadline counts from the Running entry + this */
    long deadline_margin_s;     /* default run timeout = expected runtime + this (600) */
    long progress_interval_s;   /* status.progress while a run goes, every this often; 0 = off */
    const char *component;      /* events' reporting component */
    const char *instance;       /* events' reporting instance (pod or host name) */
};

void api_config_defaults(struct api_config *cfg);

enum api_child {
    API_CHILD_INIT,
    API_CHILD_RUN,
    API_CHILD_FIO_PVC,
    API_CHILD_HPA,
    API_CHILD_RESULT /* the result ConfigMap (pkg/api/resultcm.h) */
};
/* Writes "<br>-init" etc. into out. */
void api_child_name(const char *br, enum api_child which, char *out, size_t len);

/* br is the BenchmarkRun (metadata.name, namespace, uid are used). */
cJSON *api_manifest_init_job(const cJSON *br, const struct api_spec *s,
                             const struct api_config *cfg);
/* run_from: where the run's timeout counts from (Unix seconds: the Running entry + the start
 * delay); BENCH_DEADLINE_AT = run_from + api_run_timeout. The start barrier itself comes later,
 * through the pods' API_START_ANNOTATION (BENCH_START_AT_FILE). */
cJSON *api_manifest_run_job(const cJSON *br, const struct api_spec *s, const struct api_config *cfg,
                            long run_from);
cJSON *api_manifest_fio_pvc(const cJSON *br, const struct api_spec *s);
cJSON *api_manifest_hpa(const cJSON *br, const struct api_spec *s);
/* The ConfigMap <br>-result holding value under key (labels and ownerReference as every child,
 * role "result"). */
cJSON *api_manifest_result_configmap(const cJSON *br, const char *key, const char *value);

/* Deadlines: spec.timeoutSeconds, else a generous default per phase. The one source of the
 * operator's own check, the Jobs' activeDeadlineSeconds and the runner's BENCH_DEADLINE_AT. */
#define API_INIT_TIMEOUT_S (6L * 3600)
#define API_TRANSACTIONS_TIMEOUT_S (24L * 3600)
/* Between the runner's deadline and its Job's: time to stop pgbench (SIGTERM, SIGKILL 5 s later)
 * and report what it has, before the Job controller deletes the pod. */
#define API_DEADLINE_REPORT_S 15
/* Seconds the init phase may take from the init Job's creation (its activeDeadlineSeconds):
 * spec.timeoutSeconds, else API_INIT_TIMEOUT_S. */
long api_init_timeout(const struct api_spec *s);
/* Seconds the run may take from the Running entry + the start delay: spec.timeoutSeconds, else
 * the expected runtime (durationSeconds, or the fio jobs' runtimes summed) plus the runner's
 * replica catch-up wait plus cfg->deadline_margin_s; API_TRANSACTIONS_TIMEOUT_S for a
 * transactions run. A pgbench runner stops its load there (BENCH_DEADLINE_AT) and reports a
 * partial result. */
long api_run_timeout(const struct api_spec *s, const struct api_config *cfg);
/* activeDeadlineSeconds of the run Job (counted from the Job's start, at the Running entry):
 * start delay + run timeout + API_DEADLINE_REPORT_S. */
long api_run_deadline(const struct api_spec *s, const struct api_config *cfg);

/* The operator's Lease (pkg/controller/leader) carries this label and its writer's version line
 * in this annotation; `kubectl pgbench version` finds it by them. */
#define API_LEASE_LABEL "app.kubernetes.io/name"
#define API_LEASE_LABEL_VALUE "pgbench-operator"
#define API_ANNOTATION_VERSION "pgbench.dev/version"

#endif
