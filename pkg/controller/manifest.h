/* pkg/controller/manifest: the child objects of a BenchmarkRun, built as cJSON trees.
 *
 * Names are deterministic (design card): <br>-init, <br>-run, <br>-fio, <br>-hpa. Every child
 * carries the label pgbench.dev/benchmarkrun=<br> and an ownerReference (controller: true,
 * blockOwnerDeletion: true) to the BenchmarkRun, except a fio PVC with keepVolume. Each builder
 * returns a new tree the caller frees with cJSON_Delete. */
#ifndef PGBO_CONTROLLER_MANIFEST_H
#define PGBO_CONTROLLER_MANIFEST_H

#include <cjson/cJSON.h>

#include "pkg/controller/spec.h"
#include "pkg/kube/kube.h"

/* The BenchmarkRun custom resource (pkg/kube knows only built-in kinds). */
extern const struct kube_resource CTRL_BENCHMARKRUNS;

#define CTRL_LABEL_RUN "pgbench.dev/benchmarkrun"
#define CTRL_LABEL_ROLE "pgbench.dev/role"
#define CTRL_CONTAINER "runner"
#define CTRL_RUNNER_UID 65532
/* Longest BenchmarkRun name whose child names (<br>-init) are still valid label values. */
#define CTRL_MAX_NAME 57
/* The start barrier of a run (RFC 3339 UTC with milliseconds), set by the operator on every worker
 * pod once all of them are ready; the runner reads it from a downwardAPI file
 * (BENCH_START_AT_FILE = CTRL_START_FILE). */
#define CTRL_START_ANNOTATION "pgbench.dev/start-at"
#define CTRL_START_FILE "/etc/pgbench/start/start-at"

/* Operator-wide settings the manifests depend on. */
struct ctrl_config {
    const char *runner_image;   /* default image when spec.image is empty */
    const char *runner_command; /* absolute path of the runner inside the image */
    long start_delay_s;         /* the run's deadline counts from the Running entry + this */
    long deadline_margin_s;     /* default run timeout = expected runtime + this (600) */
    long progress_interval_s;   /* status.progress while a run goes, every this often; 0 = off */
    const char *component;      /* events' reporting component */
    const char *instance;       /* events' reporting instance (pod or host name) */
};

void ctrl_config_defaults(struct ctrl_config *cfg);

enum ctrl_child {
    CTRL_CHILD_INIT,
    CTRL_CHILD_RUN,
    CTRL_CHILD_FIO_PVC,
    CTRL_CHILD_HPA,
    CTRL_CHILD_RESULT /* the result ConfigMap (pkg/controller/resultcm.h) */
};
/* Writes "<br>-init" etc. into out. */
void ctrl_child_name(const char *br, enum ctrl_child which, char *out, size_t len);

/* br is the BenchmarkRun (metadata.name, namespace, uid are used). */
cJSON *ctrl_manifest_init_job(const cJSON *br, const struct ctrl_spec *s,
                              const struct ctrl_config *cfg);
/* run_from: where the run's timeout counts from (Unix seconds: the Running entry + the start
 * delay); BENCH_DEADLINE_AT = run_from + ctrl_run_timeout. The start barrier itself comes later,
 * through the pods' CTRL_START_ANNOTATION (BENCH_START_AT_FILE). */
cJSON *ctrl_manifest_run_job(const cJSON *br, const struct ctrl_spec *s,
                             const struct ctrl_config *cfg, long run_from);
cJSON *ctrl_manifest_fio_pvc(const cJSON *br, const struct ctrl_spec *s);
cJSON *ctrl_manifest_hpa(const cJSON *br, const struct ctrl_spec *s);
/* The ConfigMap <br>-result holding value under key (labels and ownerReference as every child,
 * role "result"). */
cJSON *ctrl_manifest_result_configmap(const cJSON *br, const char *key, const char *value);

/* Deadlines: spec.timeoutSeconds, else a generous default per phase. The one source of the
 * operator's own check, the Jobs' activeDeadlineSeconds and the runner's BENCH_DEADLINE_AT. */
#define CTRL_INIT_TIMEOUT_S (6L * 3600)
#define CTRL_TRANSACTIONS_TIMEOUT_S (24L * 3600)
/* Between the runner's deadline and its Job's: time to stop pgbench (SIGTERM, SIGKILL 5 s later)
 * and report what it has, before the Job controller deletes the pod. */
#define CTRL_DEADLINE_REPORT_S 15
/* Seconds the init phase may take from the init Job's creation (its activeDeadlineSeconds):
 * spec.timeoutSeconds, else CTRL_INIT_TIMEOUT_S. */
long ctrl_init_timeout(const struct ctrl_spec *s);
/* Seconds the run may take from the Running entry + the start delay: spec.timeoutSeconds, else
 * the expected runtime (durationSeconds, or the fio jobs' runtimes summed) plus the runner's
 * replica catch-up wait plus cfg->deadline_margin_s; CTRL_TRANSACTIONS_TIMEOUT_S for a
 * transactions run. A pgbench runner stops its load there (BENCH_DEADLINE_AT) and reports a
 * partial result. */
long ctrl_run_timeout(const struct ctrl_spec *s, const struct ctrl_config *cfg);
/* activeDeadlineSeconds of the run Job (counted from the Job's start, at the Running entry):
 * start delay + run timeout + CTRL_DEADLINE_REPORT_S. */
long ctrl_run_deadline(const struct ctrl_spec *s, const struct ctrl_config *cfg);

#endif
