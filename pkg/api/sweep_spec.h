/* pkg/api/sweep_spec: the BenchmarkSweep spec, parsed and validated, and the BenchmarkRun of each
 * of its steps (name, spec, object). The sweep controller (pkg/controller/sweep) and the plugin's
 * `sweep` command both build and check sweeps with it. */
#ifndef PGBO_API_SWEEP_SPEC_H
#define PGBO_API_SWEEP_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "pkg/bench/sweep_stats.h"
#include "pkg/kube/kube.h"

#define API_LABEL_SWEEP "pgbench.dev/sweep"
#define API_LABEL_SWEEP_STEP "pgbench.dev/sweep-step"
#define API_SWEEP_MAX_STEPS BENCH_SWEEP_MAX_STEPS
#define API_SWEEP_MAX_REPEATS BENCH_SWEEP_MAX_REPEATS
/* Longest sweep name whose runs' names (<sweep>-s31-r10) are valid BenchmarkRun names. */
#define API_SWEEP_MAX_NAME 49

extern const struct kube_resource API_BENCHMARKSWEEPS;

enum api_sweep_field { API_SWEEP_CLIENTS, API_SWEEP_RATE, API_SWEEP_WORKERS };

struct api_sweep_spec {
    enum api_sweep_field field;
    double values[API_SWEEP_MAX_STEPS];
    int n_values;
    int repeats;
    bool stop_failed, stop_aborted, stop_p99;
    double stop_failed_pct, stop_p99_ms;
    long stop_aborted_clients;
    const cJSON *template; /* borrowed from the parsed spec */
};

/* Parses and validates a sweep's spec (values expanded from a range, every step's run spec checked
 * with api_spec_parse). Returns 0, or -EINVAL with a message in err naming the field. out borrows
 * from spec. */
int api_sweep_spec_parse(const cJSON *spec, struct api_sweep_spec *out, char *err, size_t errlen);
/* The values of a geometric range: from, from*factor, ... while <= to, and to as the last value
 * when the series does not land on it; whole rounds each value (duplicates dropped). Returns how
 * many, or -E2BIG when more than max. */
int api_sweep_range(double from, double to, double factor, bool whole, double *out, int max);
const char *api_sweep_field_name(enum api_sweep_field f);
/* "<sweep>-s<step>-r<repeat>". */
void api_sweep_run_name(const char *sweep, int step, int repeat, char *out, size_t len);
/* The spec of a step's run: the template with the field set; init dropped unless first is true.
 * The caller frees it. */
cJSON *api_sweep_run_spec(const struct api_sweep_spec *s, int step, bool first);
/* The whole BenchmarkRun of step/repeat of sweep (metadata.name, namespace, uid are used). */
cJSON *api_sweep_run_object(const cJSON *sweep, const struct api_sweep_spec *s, int step,
                            int repeat);

#endif
