/* Mean, standard deviation and Welch's t-test (stats.h). */
#include "pkg/bench/stats.h"

#include <math.h>

void bench_mean_sd(const double *x, int n, double *mean, double *sd)
{
    double m = 0, q = 0;
    for (int i = 0; i < n; i++)
        m += x[i];
    m = n ? m / n : NAN;
    for (int i = 0; i < n; i++)
        q += (x[i] - m) * (x[i] - m);
    *mean = m;
    *sd = n > 1 ? sqrt(q / (n - 1)) : NAN; /* one value has no spread to measure */
}

/* The continued fraction of the incomplete beta function (modified Lentz's method). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = 1 / (fabs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + num * d;
        c = 1 + num / c;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + num * d;
        c = 1 + num / c;
        d = 1 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15)
            break;
    }
    return h;
}

double bench_ibeta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2))
        return exp(lbt) * beta_cf(a, b, x) / a;
    return 1 - exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

int bench_welch(const double *a, int na, const double *b, int nb, struct bench_welch *out)
{
    if (na < 2 || nb < 2)
        return -1;
    bench_mean_sd(a, na, &out->mean_a, &out->sd_a);
    bench_mean_sd(b, nb, &out->mean_b, &out->sd_b);
    double va = out->sd_a * out->sd_a / na, vb = out->sd_b * out->sd_b / nb;
    double diff = out->mean_a - out->mean_b;
    if (va + vb == 0) {
        out->t = diff == 0 ? 0 : copysign(INFINITY, diff);
        out->df = na + nb - 2;
        out->p = diff == 0 ? 1 : 0;
        return 0;
    }
    out->t = diff / sqrt(va + vb);
    out->df = (va + vb) * (va + vb) /
              ((va > 0 ? va * va / (na - 1) : 0) + (vb > 0 ? vb * vb / (nb - 1) : 0));
    out->p = bench_ibeta(out->df / 2, 0.5, out->df / (out->df + out->t * out->t));
    return 0;
}
