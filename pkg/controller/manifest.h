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

#define CTRL_LABEL_RUN "pgbench.dev/benchmarkrun"
#define CTRL_LABEL_ROLE "pgbench.dev/role"
#define CTRL_CONTAINER "runner"
#define CTRL_RUNNER_UID 65532
/* Longest BenchmarkRun name whose child names (<br>-init) are still valid label values. */
#define CTRL_MAX_NAME 57

/* Operator-wide settings the manifests depend on. */
struct ctrl_config {
    const char *runner_image;   /* default image when spec.image is empty */
    const char *runner_command; /* absolute path of the runner inside the image */
    long start_delay_s;         /* BENCH_START_AT = start + this */
    long deadline_margin_s;     /* activeDeadlineSeconds = expected runtime + this */
    const char *component;      /* events' reporting component */
    const char *instance;       /* events' reporting instance (pod or host name) */
};

void ctrl_config_defaults(struct ctrl_config *cfg);

enum ctrl_child { CTRL_CHILD_INIT, CTRL_CHILD_RUN, CTRL_CHILD_FIO_PVC, CTRL_CHILD_HPA };
/* Writes "<br>-init" etc. into out. */
void ctrl_child_name(const char *br, enum ctrl_child which, char *out, size_t len);

/* br is the BenchmarkRun (metadata.name, namespace, uid are used). */
cJSON *ctrl_manifest_init_job(const cJSON *br, const struct ctrl_spec *s,
                              const struct ctrl_config *cfg);
/* start_at: the start barrier (Unix seconds) passed as BENCH_START_AT. */
cJSON *ctrl_manifest_run_job(const cJSON *br, const struct ctrl_spec *s,
                             const struct ctrl_config *cfg, long start_at);
cJSON *ctrl_manifest_fio_pvc(const cJSON *br, const struct ctrl_spec *s);
cJSON *ctrl_manifest_hpa(const cJSON *br, const struct ctrl_spec *s);

/* activeDeadlineSeconds of the run Job; 0 = none (transactions mode). */
long ctrl_run_deadline(const struct ctrl_spec *s, const struct ctrl_config *cfg);

/* Small JSON helpers shared by the package. */
const char *ctrl_jstr(const cJSON *o, const char *path); /* "a.b.c"; NULL when absent */
double ctrl_jnum(const cJSON *o, const char *path, double def);
const cJSON *ctrl_jget(const cJSON *o, const char *path);
/* A string member whose key may contain dots (labels, annotations); NULL when absent. */
const char *ctrl_jkey(const cJSON *o, const char *key);
/* Returns j; aborts when it is NULL (cJSON's only failure is allocation). */
cJSON *ctrl_must(cJSON *j);
/* Sets member k of o to v (owned), replacing the member when it exists. */
void ctrl_jset(cJSON *o, const char *k, cJSON *v);
void ctrl_jset_str(cJSON *o, const char *k, const char *v);
void ctrl_jset_num(cJSON *o, const char *k, double v);

#endif
