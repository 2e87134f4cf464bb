/* Universal Scalability Law fit (see usl.h). */
#include "pkg/bench/usl.h"
#include "pkg/bench/stepclass.h"
#include "pkg/util/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The fit itself, for 3 or more distinct concurrencies (the jackknife refits subsets). */
static void fit_core(const struct bench_usl_point *pts, size_t n, struct bench_usl_fit *out)
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
                       "not enough data: %d distinct concurrencies, a fit of 3 parameters needs %d "
                       "or more",
                       out->distinct, BENCH_USL_MIN_DISTINCT);
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

/* Student's t at 0.975 for df degrees of freedom (1.96 past the table). */
static double t975(int df)
{
    static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                               2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                               2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                               2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    return df >= 1 && df <= 30 ? t[df - 1] : 1.96;
}

/* The jackknife interval of g leave-one-group-out estimates v[] around the full estimate. */
static void jack_ci(const double *v, int g, double full, double lo_bound, double ci[2])
{
    double mean = 0, ss = 0;
    for (int i = 0; i < g; i++)
        mean += v[i] / g;
    for (int i = 0; i < g; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    double se = sqrt((g - 1.0) / g * ss), h = t975(g - 1) * se;
    ci[0] = fmax(full - h, lo_bound);
    ci[1] = full + h;
}

/* Intervals on sigma, kappa and N* from the fits without each concurrency in turn. */
static void jackknife(const struct bench_usl_point *pts, size_t n, struct bench_usl_fit *f)
{
    double groups[64], sg[64], kg[64], pg[64];
    int g = 0, finite = 0;
    double pmin = INFINITY;
    for (size_t i = 0; i < n && g < 64; i++) {
        bool seen = false;
        for (int j = 0; j < g; j++)
            seen = seen || groups[j] == pts[i].n;
        if (!seen)
            groups[g++] = pts[i].n;
    }
    struct bench_usl_point *sub = util_xcalloc(n, sizeof(*sub));
    int used = 0;
    for (int j = 0; j < g; j++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (pts[i].n != groups[j])
                sub[m++] = pts[i];
        struct bench_usl_fit r;
        fit_core(sub, m, &r);
        if (!r.ok)
            continue;
        sg[used] = r.sigma;
        kg[used] = r.kappa;
        pg[used] = r.peak_n;
        if (isfinite(r.peak_n)) {
            finite++;
            pmin = fmin(pmin, r.peak_n);
        }
        used++;
    }
    free(sub);
    if (used < 2) {
        f->sigma_ci[0] = f->kappa_ci[0] = f->peak_ci[0] = -INFINITY;
        f->sigma_ci[1] = f->kappa_ci[1] = f->peak_ci[1] = INFINITY;
        return;
    }
    jack_ci(sg, used, f->sigma, 0, f->sigma_ci);
    jack_ci(kg, used, f->kappa, 0, f->kappa_ci);
    if (finite == used && isfinite(f->peak_n)) {
        jack_ci(pg, used, f->peak_n, 0, f->peak_ci);
    } else {
        f->peak_ci[0] = pmin;
        f->peak_ci[1] = INFINITY;
    }
}

void bench_usl_fit(const struct bench_usl_point *pts, size_t n, struct bench_usl_fit *out)
{
    fit_core(pts, n, out);
    if (out->distinct < BENCH_USL_MIN_DISTINCT) {
        int have = out->distinct;
        if (out->ok || have < 3) { /* else the reason says what else is wrong (flat, a point) */
            memset(out, 0, sizeof(*out));
            out->distinct = have;
            (void)snprintf(out->reason, sizeof(out->reason),
                           "not enough data: %d distinct concurrenc%s, a fit of 3 parameters "
                           "needs %d or more (%d more step%s)",
                           have, have == 1 ? "y" : "ies", BENCH_USL_MIN_DISTINCT,
                           BENCH_USL_MIN_DISTINCT - have,
                           BENCH_USL_MIN_DISTINCT - have == 1 ? "" : "s");
        }
        out->ok = false;
        out->steps_needed = BENCH_USL_MIN_DISTINCT - have;
        return;
    }
    if (out->ok)
        jackknife(pts, n, out);
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

/* "1 client", "24 clients" */
static const char *clients_s(char *b, size_t n, double v)
{
    (void)snprintf(b, n, "%.0f client%s", v, v == 1 ? "" : "s");
    return b;
}

/* What limits step ref (the largest with evidence), as "<class> limits it (<evidence>)": a class
 * that the load's side explains (the client, network round trips, the --rate schedule) from the
 * first step of the run of steps it limits up to ref, with that step's evidence and the class's
 * fix; a class of the database's own waits at step ref, with its share then and at the first
 * step. */
static void limit_clause(const double *n, const struct bench_step_class *cls, size_t ref, char *out,
                         size_t len)
{
    const struct bench_step_class *c = &cls[ref];
    const struct bench_verdict_class_row *row = &bench_verdict_classes[c->cls];
    char a[48], weak[64] = "", from[96] = "", most[160] = "", ev[480] = "";
    if (c->cls == BENCH_VC_INCONCLUSIVE) {
        (void)snprintf(out, len, "what limits it at %s is inconclusive%s%s",
                       clients_s(a, sizeof(a), n[ref]), c->evidence[0] ? ": " : "", c->evidence);
        return;
    }
    bool load_side =
        c->cls == BENCH_VC_CLIENT || c->cls == BENCH_VC_NETWORK || c->cls == BENCH_VC_RATE;
    size_t at = ref;
    if (load_side)
        while (at > 0 && cls[at - 1].cls == c->cls)
            at--;
    c = &cls[at];
    if (c->weak && isfinite(c->share))
        (void)snprintf(weak, sizeof(weak), "; weak: %d sampling rounds", c->rounds);
    if (load_side || !isfinite(c->share)) {
        if (c->evidence[0])
            (void)snprintf(ev, sizeof(ev), " (%s%s)", c->evidence, weak);
        else if (isfinite(c->share))
            (void)snprintf(ev, sizeof(ev),
                           " (the server waits for pgbench: %s %.0f %% of backend "
                           "samples%s)",
                           c->event, c->share, weak);
        (void)snprintf(out, len, "%s limits it from %s%s; %s", row->label,
                       clients_s(a, sizeof(a), n[at]), ev, row->fix);
        return;
    }
    double s0 = bench_step_db_share(&cls[0], c->cls);
    if (at > 0 && isfinite(s0))
        (void)snprintf(from, sizeof(from), ", %s %.0f %% at %.0f",
                       s0 < c->share - 0.5   ? "up from"
                       : s0 > c->share + 0.5 ? "down from"
                                             : "as",
                       s0, n[0]);
    if (c->cls != BENCH_VC_SERVER_CPU)
        (void)snprintf(most, sizeof(most), ", mostly %s", c->event);
    (void)snprintf(out, len, "%s limits it (%.0f %% of database wait time at %s%s%s%s)", row->label,
                   c->share, clients_s(a, sizeof(a), n[at]), most, from, weak);
}

void bench_usl_verdict(const struct bench_usl_fit *f, const double *n, const double *x,
                       size_t steps, const struct bench_step_class *cls, char *out, size_t len)
{
    char a[48], b[48], lim[900] = "", lim2[910] = "";
    if (steps == 0) {
        (void)snprintf(out, len, "no step measured a tps");
        return;
    }
    size_t peak = 0;
    for (size_t i = 1; i < steps; i++)
        if (x[i] > x[peak])
            peak = i;
    /* the first step's tps is the peak, or within 2 % of it (flat: within noise) */
    bool no_scale = steps > 1 && x[peak] < x[0] * 1.02;
    const char *why = "";
    if (!no_scale && f->ok && f->sigma >= 1) {
        no_scale = true;
        why = " (USL sigma >= 1: adding clients adds no throughput)";
    } else if (!no_scale && f->ok && isfinite(f->peak_n) && f->peak_n < n[0]) {
        no_scale = true;
        why = " (USL peak N* below the smallest step)";
    }
    /* what limits it shows best under the most load: the largest step that has evidence */
    size_t ref = steps - 1;
    while (ref > 0 && cls && cls[ref].cls == BENCH_VC_INCONCLUSIVE && !cls[ref].evidence[0])
        ref--;
    if (cls) {
        limit_clause(n, cls, ref, lim, sizeof(lim));
        (void)snprintf(lim2, sizeof(lim2), "; %s", lim);
    }
    if (no_scale) {
        (void)snprintf(out, len, "does not scale past %s: %.0f tps at %.0f, %.0f tps at %.0f%s%s",
                       clients_s(a, sizeof(a), n[0]), x[0], n[0], x[steps - 1], n[steps - 1], why,
                       lim2);
    } else if (!f->ok) {
        (void)snprintf(out, len, "peak %.0f tps at %s measured of %.0f..%.0f; no USL fit (%s)%s",
                       x[peak], clients_s(a, sizeof(a), n[peak]), n[0], n[steps - 1], f->reason,
                       lim2);
    } else if (f->r2 < BENCH_USL_MIN_R2) {
        (void)snprintf(out, len,
                       "peak %.0f tps at %s measured of %.0f..%.0f; the USL fit explains little "
                       "of the curve (R² %.2f): the steps are noisy, add repeats%s",
                       x[peak], clients_s(a, sizeof(a), n[peak]), n[0], n[steps - 1], f->r2, lim2);
    } else if (!isfinite(f->peak_n) || f->peak_n > 4 * n[steps - 1]) {
        (void)snprintf(out, len,
                       "scales past the largest step (%s) with no peak in sight (USL sigma %.3g, "
                       "kappa %.2g)%s",
                       clients_s(a, sizeof(a), n[steps - 1]), f->sigma, f->kappa, lim2);
    } else {
        char ci[96] = "";
        if (isfinite(f->peak_ci[1]))
            (void)snprintf(ci, sizeof(ci), " (95 %% interval %.0f-%.0f)", f->peak_ci[0],
                           f->peak_ci[1]);
        else if (isfinite(f->peak_ci[0]))
            (void)snprintf(ci, sizeof(ci), " (95 %% interval %.0f or more)", f->peak_ci[0]);
        (void)snprintf(out, len, "scales to ~%s%s (USL sigma %.3g, kappa %.2g); beyond, %s",
                       clients_s(b, sizeof(b), f->peak_n), ci, f->sigma, f->kappa,
                       cls ? lim
                           : "what limits it was not measured (no wait-event samples: "
                             "spec.diagnostics.waitEvents would decide it)");
    }
}
