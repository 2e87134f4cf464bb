/* pkg/bench/stats: the spread of repeated runs and whether two sets of runs differ beyond it.
 * Pure functions over arrays of numbers. */
#ifndef PGBO_BENCH_STATS_H
#define PGBO_BENCH_STATS_H

/* Mean and sample standard deviation (n - 1) of x[0..n); sd NAN for one value (no spread to
 * measure), mean NAN for none. */
void bench_mean_sd(const double *x, int n, double *mean, double *sd);

/* Welch's unequal-variances t-test of two samples (each n >= 2): t (a's mean minus b's over the
 * standard error), the Welch-Satterthwaite degrees of freedom and the two-sided p-value. Samples
 * without spread: p is 1 when the means are equal, else 0. Returns 0, or -1 when a sample has
 * fewer than 2 values. */
struct bench_welch {
    double mean_a, sd_a, mean_b, sd_b;
    double t, df, p;
};
int bench_welch(const double *a, int na, const double *b, int nb, struct bench_welch *out);

/* The regularized incomplete beta function I_x(a, b) (0 <= x <= 1, a, b > 0): Student's t
 * distribution's tail is I_{df/(df+t^2)}(df/2, 1/2). */
double bench_ibeta(double a, double b, double x);

#endif
