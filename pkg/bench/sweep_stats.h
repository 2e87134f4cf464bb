/* pkg/bench/sweep_stats: the numbers of a BenchmarkSweep, from the run entries its status
 * records (status.steps[].runs[]: tps, latencyP99Ms, littlesLawDeviationPct, waitSharesPct,
 * waitRounds, verdictClass, verdictEvidence): each step's means and spreads over its repeats and
 * what limits it, and the analysis over the steps (peak, USL fit, latency knee, dominant wait
 * event, verdict).
 *
 * Pure functions of the JSON they are given; numbers are rounded to a few significant digits so
 * that a status computed twice from the same runs compares equal. Only the runs the caller's ok()
 * accepts (the succeeded ones) count. Must not know the API's phases, the spec or how the runs
 * were made (pkg/api, pkg/controller/sweep*.c). */
#ifndef PGBO_BENCH_SWEEP_STATS_H
#define PGBO_BENCH_SWEEP_STATS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

/* Steps and repeats a sweep has at most (pkg/api/sweep_spec.h's limits are these). */
#define BENCH_SWEEP_MAX_STEPS 32
#define BENCH_SWEEP_MAX_REPEATS 10
/* status.analysis.verdict is at most this long (with its NUL). */
#define BENCH_SWEEP_MAX_VERDICT 960

/* True when the run entry e counts: it succeeded. */
typedef bool (*bench_sweep_ok_fn)(const cJSON *e);

/* o[k] = v rounded to digits significant digits; nothing when v is not finite. */
void bench_sweep_put_num(cJSON *o, const char *k, double v, int digits);

/* Into step (status.steps[i], with its runs): tpsMean, tpsStddev, latencyP99MsMean,
 * latencyP99MsStddev, littlesLawDeviationPct (means over its ok runs; a spread needs two), limit
 * and classSharesPct (what limits the step, from its runs' verdicts and wait-event shares;
 * nothing when no run sampled wait events). */
void bench_sweep_step_stats(cJSON *step, bench_sweep_ok_fn ok);

/* status.analysis from status.steps (each already given bench_sweep_step_stats; nothing when no
 * step has a tps yet): peakTps, peakAt, kneeAt, the dominant wait event at the largest value,
 * and the verdict. usl: the swept field is the clients, and analysis.usl holds the USL fitted to
 * every ok run's (value, tps), which the verdict then reads. field names the swept field in the
 * verdict. */
void bench_sweep_analyse(cJSON *status, const char *field, bool usl, bench_sweep_ok_fn ok);

#endif
