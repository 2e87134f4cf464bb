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
 * refusal (ok = false, reason set) instead of numbers. */
#ifndef PGBO_BENCH_USL_H
#define PGBO_BENCH_USL_H

#include <stdbool.h>
#include <stddef.h>

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
};

/* Fits the points (n of them; repeats at the same concurrency are separate points). Needs at
 * least 3 distinct concurrencies and a throughput that changes across them; otherwise ok is
 * false with the reason. Never fails otherwise. */
void bench_usl_fit(const struct bench_usl_point *pts, size_t n, struct bench_usl_fit *out);

/* X(N) for a fit. */
double bench_usl_predict(const struct bench_usl_fit *f, double n);

/* The latency knee of a series of steps ordered by concurrency: the index of the first step whose
 * p99 grows (relative to the step before) by more than twice its relative tps gain, or -1. Steps
 * with a missing value (NAN, <= 0) are skipped. */
int bench_latency_knee(const double *tps, const double *p99, size_t steps);

/* One sentence for a sweep: where it stops scaling and why, e.g. "scales to ~24 clients;
 * beyond, coherency (kappa=0.0012) dominates: IO:WALSync 61 % of wait time". max_n is the
 * largest concurrency measured; wait (may be NULL) the dominant wait event and share its percent
 * of the samples. */
void bench_usl_verdict(const struct bench_usl_fit *f, double max_n, const char *wait, double share,
                       char *out, size_t len);

#endif
