/* Universal Scalability Law fit (see usl.h). */
#include "pkg/bench/usl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define USL_MAX_ITER 500

double bench_usl_predict(const struct bench_usl_fit *f, double n)
{
    return f->lambda * n / (1.0 + f->sigma * (n - 1.0) + f->kappa * n * (n - 1.0));
}

static double sse(const struct bench_usl_point *p, size_t n, double l, double s, double k)
{
    struct bench_usl_fit f = {.lambda = l, .sigma = s, .kappa = k};
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        double r = p[i].x - bench_usl_predict(&f, p[i].n);
        e += r * r;
    }
    return e;
}

/* Solves the 3x3 system a x = b by Gaussian elimination with partial pivoting; false when
 * singular. */
static bool solve3(double a[3][3], double b[3], double x[3])
{
    for (int c = 0; c < 3; c++) {
        int piv = c;
        for (int r = c + 1; r < 3; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (fabs(a[piv][c]) < 1e-300)
            return false;
        for (int k = 0; k < 3; k++) {
            double t = a[c][k];
            a[c][k] = a[piv][k];
            a[piv][k] = t;
        }
        double t = b[c];
        b[c] = b[piv];
        b[piv] = t;
        for (int r = c + 1; r < 3; r++) {
            double m = a[r][c] / a[c][c];
            for (int k = c; k < 3; k++)
                a[r][k] -= m * a[c][k];
            b[r] -= m * b[c];
        }
    }
    for (int r = 2; r >= 0; r--) {
        double s = b[r];
        for (int k = r + 1; k < 3; k++)
            s -= a[r][k] * x[k];
        x[r] = s / a[r][r];
    }
    return true;
}

/* For a given lambda, sigma and kappa by linear least squares on the linearised model
 * lambda N / X - 1 = sigma (N - 1) + kappa N (N - 1), both kept >= 0. */
static void linear_fit(const struct bench_usl_point *p, size_t n, double l, double *s, double *k)
{
    double saa = 0, sab = 0, sbb = 0, say = 0, sby = 0;
    for (size_t i = 0; i < n; i++) {
        double a = p[i].n - 1.0, b = p[i].n * (p[i].n - 1.0), y = l * p[i].n / p[i].x - 1.0;
        saa += a * a;
        sab += a * b;
        sbb += b * b;
        say += a * y;
        sby += b * y;
    }
    double det = saa * sbb - sab * sab;
    double ss = det != 0 ? (say * sbb - sby * sab) / det : 0;
    double kk = det != 0 ? (saa * sby - sab * say) / det : 0;
    if (ss < 0 || kk < 0) { /* on a bound: the better of the two one-parameter fits */
        double s1 = saa > 0 ? fmax(say / saa, 0) : 0, k1 = sbb > 0 ? fmax(sby / sbb, 0) : 0;
        if (sse(p, n, l, s1, 0) <= sse(p, n, l, 0, k1)) {
            ss = s1;
            kk = 0;
        } else {
            ss = 0;
            kk = k1;
        }
    }
    *s = ss;
    *k = kk;
}

/* Levenberg-Marquardt on the squared error of X, sigma and kappa projected onto >= 0. */
static void refine(const struct bench_usl_point *p, size_t n, double *l, double *s, double *k)
{
    double mu = 1e-3, e = sse(p, n, *l, *s, *k);
    for (int it = 0; it < USL_MAX_ITER; it++) {
        double jtj[3][3] = {{0}}, jtr[3] = {0};
        for (size_t i = 0; i < n; i++) {
            double N = p[i].n, d = 1.0 + *s * (N - 1.0) + *k * N * (N - 1.0);
            double f = *l * N / d, r = p[i].x - f;
            double j[3] = {N / d, -*l * N * (N - 1.0) / (d * d), -*l * N * N * (N - 1.0) / (d * d)};
            for (int a = 0; a < 3; a++) {
                jtr[a] += j[a] * r;
                for (int b = 0; b < 3; b++)
                    jtj[a][b] += j[a] * j[b];
            }
        }
        bool improved = false;
        while (mu < 1e12) {
            double m[3][3], rhs[3], dx[3] = {0};
            for (int a = 0; a < 3; a++) {
                rhs[a] = jtr[a];
                for (int b = 0; b < 3; b++)
                    m[a][b] = jtj[a][b] + (a == b ? mu * (jtj[a][a] > 0 ? jtj[a][a] : 1e-12) : 0);
            }
            if (!solve3(m, rhs, dx)) {
                mu *= 10;
                continue;
            }
            double nl = *l + dx[0], ns = fmax(*s + dx[1], 0), nk = fmax(*k + dx[2], 0);
            double ne = nl > 0 ? sse(p, n, nl, ns, nk) : INFINITY;
            if (ne < e) {
                double gain = (e - ne) / (e > 0 ? e : 1);
                *l = nl;
                *s = ns;
                *k = nk;
                e = ne;
                mu = fmax(mu / 10, 1e-12);
                improved = gain > 1e-14;
                break;
            }
            mu *= 10;
        }
        if (!improved)
            break;
    }
}

void bench_usl_fit(const struct bench_usl_point *pts, size_t n, struct bench_usl_fit *out)
{
    memset(out, 0, sizeof(*out));
    double nmin = INFINITY, xmin = INFINITY, xmax = 0, x_at_nmin = 0;
    int at_nmin = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            if (pts[j].n == pts[i].n)
                seen = true;
        if (!seen)
            out->distinct++;
        if (!(pts[i].n > 0) || !(pts[i].x > 0) || !isfinite(pts[i].n) || !isfinite(pts[i].x)) {
            (void)snprintf(out->reason, sizeof(out->reason),
                           "not enough data: point %zu has no positive concurrency and throughput",
                           i);
            return;
        }
        xmin = fmin(xmin, pts[i].x);
        xmax = fmax(xmax, pts[i].x);
        if (pts[i].n < nmin) {
            nmin = pts[i].n;
            x_at_nmin = 0;
            at_nmin = 0;
        }
        if (pts[i].n == nmin) {
            x_at_nmin += pts[i].x;
            at_nmin++;
        }
    }
    if (out->distinct < 3) {
        (void)snprintf(out->reason, sizeof(out->reason),
                       "not enough data: %d distinct concurrencies, a fit of 3 parameters needs 3 "
                       "or more",
                       out->distinct);
        return;
    }
    if (xmax < xmin * 1.02) {
        (void)snprintf(out->reason, sizeof(out->reason),
                       "not enough data: throughput stays within 2 %% over every concurrency "
                       "(flat); the limit was reached before the first step");
        return;
    }
    /* lambda: X(N)/N at the smallest concurrency is a lower bound (contention only lowers it);
     * search upwards for the best linearised fit, then refine all three together */
    double lo = x_at_nmin / at_nmin / nmin, best_l = lo, best_e = INFINITY;
    for (int i = 0; i <= 200; i++) {
        double l = lo * (1.0 + 3.0 * i / 200.0), s, k;
        linear_fit(pts, n, l, &s, &k);
        double e = sse(pts, n, l, s, k);
        if (e < best_e) {
            best_e = e;
            best_l = l;
        }
    }
    double l = best_l, s, k;
    linear_fit(pts, n, l, &s, &k);
    refine(pts, n, &l, &s, &k);
    out->ok = true;
    out->lambda = l;
    out->sigma = s;
    out->kappa = k;
    double mean = 0, sst = 0;
    for (size_t i = 0; i < n; i++)
        mean += pts[i].x / (double)n;
    for (size_t i = 0; i < n; i++)
        sst += (pts[i].x - mean) * (pts[i].x - mean);
    out->r2 = sst > 0 ? 1.0 - sse(pts, n, l, s, k) / sst : 0;
    if (k > 0 && s < 1) {
        out->peak_n = sqrt((1.0 - s) / k);
        out->peak_x = bench_usl_predict(out, out->peak_n);
    } else {
        out->peak_n = INFINITY;
        out->peak_x = INFINITY;
    }
}

int bench_latency_knee(const double *tps, const double *p99, size_t steps)
{
    int prev = -1;
    for (size_t i = 0; i < steps; i++) {
        if (!(tps[i] > 0) || !(p99[i] > 0))
            continue;
        if (prev >= 0) {
            double gain = tps[i] / tps[prev] - 1.0, growth = p99[i] / p99[prev] - 1.0;
            if (growth > 2.0 * fmax(gain, 0.0) && growth > 0)
                return (int)i;
        }
        prev = (int)i;
    }
    return -1;
}

void bench_usl_verdict(const struct bench_usl_fit *f, double max_n, const char *wait, double share,
                       char *out, size_t len)
{
    char why[96] = "";
    if (wait && *wait && share > 0)
        (void)snprintf(why, sizeof(why), ": %s %.0f %% of wait time", wait, share);
    if (!f->ok) {
        (void)snprintf(out, len, "%s", f->reason);
    } else if (isinf(f->peak_n) || f->peak_n > 4 * max_n) {
        (void)snprintf(out, len,
                       "scales past the largest step (%.0f clients) with no peak in sight; "
                       "contention sigma=%.3g%s",
                       max_n, f->sigma, why);
    } else if (f->kappa * f->peak_n > f->sigma) {
        (void)snprintf(out, len,
                       "scales to ~%.0f clients; beyond, coherency (kappa=%.2g) dominates%s",
                       f->peak_n, f->kappa, why);
    } else {
        (void)snprintf(out, len,
                       "scales to ~%.0f clients; contention (sigma=%.3g) limits it before "
                       "coherency (kappa=%.2g)%s",
                       f->peak_n, f->sigma, f->kappa, why);
    }
}
