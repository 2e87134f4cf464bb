/* pkg/bench/usl: Gunther's Universal Scalability Law fitted to throughput measured at several
 * concurrencies, for the analysis of a series of runs (a BenchmarkSweep).
 *
 *     X(N) = lambda * N / (1 + sigma * (N - 1) + kappa * N * (N - 1))
 *
 * lambda: throughput of one client; sigma: contention (the serial share, queueing on a shared
 * resource); kappa: coherency (the cost of keeping shared data consistent, which makes
 * throughput fall past a peak at N* = sqrt((1 - sigma) / kappa)).
 *
 * The fit minimizes the squared error of X itself over every measured point (repeats included),
 * with sigma and kappa kept >= 0: a linearised fit (N/X against N - 1 and N(N - 1)) starts a
 * Levenberg-Marquardt refinement. Data that cannot determine three parameters gets an honest
 * refusal (ok = false, reason set) instead of numbers: three parameters fitted to fewer than
 * BENCH_USL_MIN_DISTINCT concurrencies pass through every point (R² 1) and say nothing.
 *
 * The uncertainty of sigma, kappa and N* is a delete-one-group jackknife: the fit is repeated
 * with each concurrency's points left out in turn (repeats at one concurrency are one group), and
 * the spread of those fits gives a 95 % interval (Student's t with groups - 1 degrees of
 * freedom). */
#ifndef PGBO_BENCH_USL_H
#define PGBO_BENCH_USL_H

#include <stdbool.h>
#include <stddef.h>

/* Distinct concurrencies a fit needs: three parameters and at least two degrees of freedom. */
#define BENCH_USL_MIN_DISTINCT 5
/* Below this R² the fit explains too little of the curve for a verdict drawn from it. */
#define BENCH_USL_MIN_R2 0.5

struct bench_usl_point {
    double n; /* concurrency (clients), > 0 */
    double x; /* measured throughput (tps), > 0 */
};

struct bench_usl_fit {
    bool ok;          /* false: reason says why there is no fit */
    char reason[160]; /* "not enough data: ..." */
    double lambda;    /* tps of one client */
    double sigma;     /* contention, >= 0 */
    double kappa;     /* coherency, >= 0 */
    double r2;        /* coefficient of determination over all points */
    double peak_n;    /* N* = sqrt((1 - sigma) / kappa); INFINITY when kappa is 0 or sigma >= 1 */
    double peak_x;    /* X(N*) (INFINITY with peak_n) */
    int distinct;     /* distinct concurrencies in the data */
    int steps_needed; /* more distinct concurrencies the fit needs (0 when it has enough) */
    /* 95 % jackknife intervals (ok only); peak_ci[1] is INFINITY when some leave-one-out fit
     * has no peak, and then peak_ci[0] is the smallest leave-one-out N* (INFINITY: none has) */
    double sigma_ci[2], kappa_ci[2], peak_ci[2];
};

/* Fits the points (n of them; repeats at the same concurrency are separate points). Needs at
 * least BENCH_USL_MIN_DISTINCT distinct concurrencies (else steps_needed says how many more)
 * and a throughput that changes across them; otherwise ok is false with the reason. Never fails
 * otherwise. */
void bench_usl_fit(const struct bench_usl_point *pts, size_t n, struct bench_usl_fit *out);

/* X(N) for a fit. */
double bench_usl_predict(const struct bench_usl_fit *f, double n);

/* The latency knee of a series of steps ordered by concurrency: the index of the first step whose
 * p99 grows (relative to the step before) by more than twice its relative tps gain, or -1. Steps
 * with a missing value (NAN, <= 0) are skipped. */
int bench_latency_knee(const double *tps, const double *p99, size_t steps);

/* What limits a sweep's steps, for its verdict: per step (ordered by concurrency) the class of
 * the limiting resource (pkg/bench/stepclass.h) with its evidence. */
struct bench_step_class;

/* One sentence for a clients sweep that agrees with the measured curve: steps step means x[] at
 * concurrencies n[] (ascending). When the measured peak is the first step, or the fit says so
 * (sigma >= 1: N* is not a real number; N* below the smallest step), "does not scale past
 * <n[0]> clients"; else where it stops scaling from the fit ("scales to ~24 clients (95 %
 * interval 19-31)", "scales past the largest step ... no peak in sight"), or the measured peak
 * and what the fit still needs (or that it explains too little: R² < BENCH_USL_MIN_R2). Then,
 * with cls (NULL: no evidence, or one per step), what limits it: the class of the largest step
 * with evidence (under the most load the limit shows best), and how its share moved from the
 * first step ("beyond, WAL flush limits it (61 % of database wait time at 32 clients, mostly
 * IO:WALSync, up from 4 % at 4)"); the client side from the first step of the run of steps it
 * limits ("the client side limits it from 16 clients (...); add workers ..."). */
void bench_usl_verdict(const struct bench_usl_fit *f, const double *n, const double *x,
                       size_t steps, const struct bench_step_class *cls, char *out, size_t len);

#endif
