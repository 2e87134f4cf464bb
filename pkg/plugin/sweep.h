/* pkg/plugin/sweep: the BenchmarkSweep that `kubectl pgbench sweep` applies: the varied field's
 * values from the command line (a list "1,2,4,8" or a geometric range "1..64" / "1..64x1.5"), the
 * template from the BenchmarkRun that `run`'s flags build (plugin_build_run), stopWhen, repeats;
 * checked with the operator's own sweep parser (api_sweep_spec_parse) before anything is sent. */
#ifndef PGBO_PLUGIN_SWEEP_H
#define PGBO_PLUGIN_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "pkg/api/sweep_spec.h"
#include "pkg/util/buf.h"

/* The varied field's values as given. */
struct plugin_vary {
    bool set;
    enum api_sweep_field field;
    bool range; /* from..to[xfactor] */
    double values[API_SWEEP_MAX_STEPS];
    int n;
    double from, to, factor; /* range: factor 0 = the spec's default (2) */
};

/* Parses "1,2,4,8", "1..64" or "1..64x1.5" for field (clients and workers: whole numbers >= 1;
 * rate: numbers >= 0). Returns 0 or -EINVAL with err naming flag. */
int plugin_vary_parse(const char *s, enum api_sweep_field field, const char *flag,
                      struct plugin_vary *out, char *err, size_t errlen);
/* True when s is a list or a range ("," or ".." in it), not one number. */
bool plugin_vary_is_list(const char *s);

struct plugin_sweep_opts {
    struct plugin_vary vary;
    int repeats;            /* 0: the spec default (1) */
    double stop_failed_pct; /* < 0: none */
    double stop_p99_ms;     /* < 0: none */
    long stop_aborted;      /* 0: none; else abortedClients */
};

/* A new BenchmarkSweep from br (a BenchmarkRun from plugin_build_run: its name, namespace, labels
 * and spec as the template); NULL with err when the template already sets the varied field (-c
 * with --clients, -R with --rate, --workers N with a workers list) or the operator would refuse
 * the sweep. */
cJSON *plugin_build_sweep(const cJSON *br, const struct plugin_sweep_opts *o, char *err,
                          size_t errlen);

/* "step 3/5 clients=4: 2345 tps p99 4.10 ms" for one entry of a sweep's status.steps (with
 * repeats: their mean and spread; a failed run's message). No newline. */
int plugin_sweep_step_line(struct buf *out, const cJSON *sw, const cJSON *step);
/* The sweep's phase, peak, knee, USL fit, verdict and stop reason, a few lines. */
int plugin_sweep_summary(struct buf *out, const cJSON *sw);
/* Sweeps side by side (n >= 2, the first 7): one row per value any of them measured, each
 * sweep's mean tps and p99 with ratios to the first sweep's at the same value; then peak, peak
 * at, knee and (clients) the USL's N* and peak, and each verdict. -EINVAL with err when they vary
 * different fields. */
int plugin_sweep_compare(struct buf *out, const cJSON *const *sws, size_t n, char *err,
                         size_t errlen);

#endif
