/* The numbers of a BenchmarkSweep (see sweep_stats.h). */
#include "pkg/bench/sweep_stats.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pkg/bench/diag.h"
#include "pkg/bench/stats.h"
#include "pkg/bench/stepclass.h"
#include "pkg/bench/usl.h"

/* Rounded to a few significant digits, so that status compares equal from one decision to the
 * next and reads well. */
static double round_sig(double v, int digits)
{
    if (v == 0 || !isfinite(v))
        return v;
    double p = pow(10, digits - (int)ceil(log10(fabs(v))));
    return round(v * p) / p;
}

void bench_sweep_put_num(cJSON *o, const char *k, double v, int digits)
{
    if (isfinite(v))
        util_jset_num(o, k, round_sig(v, digits));
}

/* The class most of a step's succeeded runs' verdicts name (ties: the earlier run's), and one
 * such run's evidence into ev (may stay empty); -1 when no run has a verdict. */
static int runs_class(const cJSON *step, bench_sweep_ok_fn ok, char *ev_out, size_t len)
{
    int count[BENCH_VC__COUNT] = {0}, best = -1;
    const cJSON *e;
    ev_out[0] = '\0';
    cJSON_ArrayForEach(e, util_jget(step, "runs"))
    {
        int c = bench_verdict_class_parse(util_jstr(e, "verdictClass"));
        if (ok(e) && c >= 0 && ++count[c] > (best >= 0 ? count[best] : 0))
            best = c;
    }
    cJSON_ArrayForEach(e, util_jget(step, "runs"))
    {
        const char *ev = util_jstr(e, "verdictEvidence");
        if (best >= 0 && !ev_out[0] && ev &&
            bench_verdict_class_parse(util_jstr(e, "verdictClass")) == best)
            (void)snprintf(ev_out, len, "%s", ev);
    }
    return best;
}

/* The limiting class of a step: its runs' verdicts, with their succeeded runs' wait-event shares
 * (each event's mean share over the runs that sampled, the fewest rounds among them). */
static void step_class(const cJSON *step, bench_sweep_ok_fn ok, struct bench_step_class *out)
{
    struct bench_wait_share w[BENCH_DIAG_MAX_WAITS * BENCH_SWEEP_MAX_REPEATS];
    int nw = 0, runs = 0, rounds = -1;
    char ev[400];
    int cls = runs_class(step, ok, ev, sizeof(ev));
    const cJSON *e, *it;
    cJSON_ArrayForEach(e, util_jget(step, "runs"))
    {
        const cJSON *m = util_jget(e, "waitSharesPct");
        if (!ok(e) || !cJSON_IsObject(m))
            continue;
        runs++;
        int r = (int)util_jnum(e, "waitRounds", 0);
        rounds = rounds < 0 || r < rounds ? r : rounds;
        cJSON_ArrayForEach(it, m)
        {
            int k = 0;
            while (k < nw && strcmp(w[k].event, it->string) != 0)
                k++;
            if (k == nw) {
                if (nw == (int)(sizeof(w) / sizeof(w[0])))
                    continue;
                (void)snprintf(w[nw].event, sizeof(w[nw].event), "%s", it->string);
                w[nw++].pct = 0;
            }
            w[k].pct += it->valuedouble;
        }
    }
    for (int k = 0; k < nw; k++)
        w[k].pct /= runs;
    bench_step_classify(w, nw, rounds < 0 ? 0 : rounds, cls, ev, out);
}

/* status.steps[].limit and classSharesPct: what limits the step and how the classes share its
 * backend samples (nothing when no run sampled wait events). */
static void step_limit(cJSON *step, bench_sweep_ok_fn ok)
{
    struct bench_step_class c;
    step_class(step, ok, &c);
    double any = 0;
    for (int k = 0; k < BENCH_VC__COUNT; k++)
        any += c.pct[k];
    if (c.cls == BENCH_VC_INCONCLUSIVE && !(any > 0) && !c.evidence[0] && !c.rounds)
        return; /* nothing measured */
    cJSON *l = util_must(cJSON_CreateObject());
    util_jset_str(l, "class", bench_verdict_classes[c.cls].name);
    if (c.event[0])
        util_jset_str(l, "event", c.event);
    if (isfinite(c.share)) {
        bench_sweep_put_num(l, "sharePct", c.share, 4);
        util_jset_str(l, "shareOf",
                      c.cls == BENCH_VC_CLIENT ? "backendSamples" : "databaseWaitTime");
    }
    if (c.evidence[0])
        util_jset_str(l, "evidence", c.evidence);
    util_jset_num(l, "rounds", c.rounds);
    util_jset(l, "weak", cJSON_CreateBool(c.weak));
    util_jset(step, "limit", l);
    cJSON *m = util_must(cJSON_CreateObject());
    for (int k = 0; k < BENCH_VC__COUNT; k++)
        if (c.pct[k] > 0)
            bench_sweep_put_num(m, bench_verdict_classes[k].name, c.pct[k], 4);
    if (m->child)
        util_jset(step, "classSharesPct", m);
    else
        cJSON_Delete(m);
}

void bench_sweep_step_stats(cJSON *step, bench_sweep_ok_fn ok)
{
    const cJSON *runs = util_jget(step, "runs");
    double tps[BENCH_SWEEP_MAX_REPEATS], p99[BENCH_SWEEP_MAX_REPEATS], ll[BENCH_SWEEP_MAX_REPEATS];
    int nt = 0, np = 0, nl = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, runs)
    {
        if (!ok(e))
            continue;
        double v;
        if ((v = util_jnum(e, "tps", NAN)) > 0 && nt < BENCH_SWEEP_MAX_REPEATS)
            tps[nt++] = v;
        if ((v = util_jnum(e, "latencyP99Ms", NAN)) > 0 && np < BENCH_SWEEP_MAX_REPEATS)
            p99[np++] = v;
        if (isfinite(v = util_jnum(e, "littlesLawDeviationPct", NAN)) &&
            nl < BENCH_SWEEP_MAX_REPEATS)
            ll[nl++] = v;
    }
    double m, sd;
    if (nt) { /* bench_sweep_put_num leaves out the stddev of one run: unknown, not 0 */
        bench_mean_sd(tps, nt, &m, &sd);
        bench_sweep_put_num(step, "tpsMean", m, 8);
        bench_sweep_put_num(step, "tpsStddev", sd, 6);
    }
    if (np) {
        bench_mean_sd(p99, np, &m, &sd);
        bench_sweep_put_num(step, "latencyP99MsMean", m, 8);
        bench_sweep_put_num(step, "latencyP99MsStddev", sd, 6);
    }
    if (nl) {
        bench_mean_sd(ll, nl, &m, &sd);
        bench_sweep_put_num(step, "littlesLawDeviationPct", m, 6);
    }
    step_limit(step, ok);
}

/* The steps that measured a tps, as indexes sorted by value into order[]; their count, and the
 * peak tps and the value it was measured at. */
static int steps_by_value(const cJSON *steps, int *order, double *peak, double *peak_at)
{
    int n = cJSON_GetArraySize(steps), k = 0;
    *peak = -1;
    *peak_at = NAN;
    for (int i = 0; i < n && i < BENCH_SWEEP_MAX_STEPS; i++) {
        const cJSON *st = cJSON_GetArrayItem(steps, i);
        double t = util_jnum(st, "tpsMean", NAN);
        if (!(t > 0))
            continue;
        if (t > *peak) {
            *peak = t;
            *peak_at = util_jnum(st, "value", NAN);
        }
        /* insertion by value */
        int j = k++;
        while (j > 0 && util_jnum(cJSON_GetArrayItem(steps, order[j - 1]), "value", 0) >
                            util_jnum(st, "value", 0)) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    return k;
}

/* The dominant wait event of a step: the one with the largest mean share over its runs (NULL
 * when no run names one). */
static const char *dominant_wait(const cJSON *step, double *wait_pct)
{
    const char *wait = NULL;
    *wait_pct = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, util_jget(step, "runs"))
    {
        const char *w = util_jstr(e, "waitEvent");
        if (!w)
            continue;
        double sum = 0;
        int cnt = 0;
        const cJSON *o;
        cJSON_ArrayForEach(o, util_jget(step, "runs"))
        {
            cnt++;
            if (util_jstr(o, "waitEvent") && strcmp(util_jstr(o, "waitEvent"), w) == 0)
                sum += util_jnum(o, "waitPct", 0);
        }
        if (cnt && sum / cnt > *wait_pct) {
            *wait_pct = sum / cnt;
            wait = w;
        }
    }
    return wait;
}

static void put_interval(cJSON *o, const char *k, const double ci[2])
{
    if (!isfinite(ci[0]))
        return;
    cJSON *a = util_must(cJSON_CreateArray());
    cJSON_AddItemToArray(a, util_must(cJSON_CreateNumber(round_sig(ci[0], 4))));
    /* open above: null */
    cJSON_AddItemToArray(a, isfinite(ci[1]) ? util_must(cJSON_CreateNumber(round_sig(ci[1], 4)))
                                            : util_must(cJSON_CreateNull()));
    util_jset(o, k, a);
}

/* analysis.usl: the USL fitted to every succeeded run's (clients, tps); the verdict from it, the
 * steps' means (k of them, by value: order[]) and their classes. */
static void usl_analysis(cJSON *a, const cJSON *steps, const int *order, int k,
                         bench_sweep_ok_fn ok, char *verdict, size_t len)
{
    struct bench_usl_point pts[BENCH_SWEEP_MAX_STEPS * BENCH_SWEEP_MAX_REPEATS];
    size_t np = 0;
    const cJSON *st, *e;
    cJSON_ArrayForEach(st, steps)
    {
        cJSON_ArrayForEach(e, util_jget(st, "runs"))
        {
            double x = util_jnum(e, "tps", NAN);
            if (ok(e) && x > 0 && np < sizeof(pts) / sizeof(pts[0]))
                pts[np++] = (struct bench_usl_point){util_jnum(st, "value", 0), x};
        }
    }
    struct bench_usl_fit fit;
    bench_usl_fit(pts, np, &fit);
    cJSON *u = util_must(cJSON_CreateObject());
    util_jset(u, "ok", cJSON_CreateBool(fit.ok));
    util_jset_num(u, "distinctClients", fit.distinct);
    if (!fit.ok) {
        util_jset_str(u, "reason", fit.reason);
        if (fit.steps_needed > 0)
            util_jset_num(u, "stepsNeeded", fit.steps_needed);
    } else {
        bench_sweep_put_num(u, "lambda", fit.lambda, 6);
        bench_sweep_put_num(u, "sigma", fit.sigma, 6);
        bench_sweep_put_num(u, "kappa", fit.kappa, 6);
        bench_sweep_put_num(u, "r2", fit.r2, 6);
        bench_sweep_put_num(u, "peakClients", fit.peak_n, 6);
        bench_sweep_put_num(u, "peakTps", fit.peak_x, 6);
        put_interval(u, "sigmaInterval", fit.sigma_ci);
        put_interval(u, "kappaInterval", fit.kappa_ci);
        put_interval(u, "peakClientsInterval", fit.peak_ci);
    }
    util_jset(a, "usl", u);
    double n[BENCH_SWEEP_MAX_STEPS], x[BENCH_SWEEP_MAX_STEPS];
    struct bench_step_class cls[BENCH_SWEEP_MAX_STEPS];
    bool any = false;
    for (int i = 0; i < k; i++) {
        const cJSON *s = cJSON_GetArrayItem(steps, order[i]);
        n[i] = util_jnum(s, "value", 0);
        x[i] = util_jnum(s, "tpsMean", NAN);
        step_class(s, ok, &cls[i]);
        any = any || cls[i].cls != BENCH_VC_INCONCLUSIVE || cls[i].evidence[0];
    }
    bench_usl_verdict(&fit, n, x, (size_t)k, any ? cls : NULL, verdict, len);
}

void bench_sweep_analyse(cJSON *status, const char *field, bool usl, bench_sweep_ok_fn ok)
{
    const cJSON *steps = util_jget(status, "steps");
    int order[BENCH_SWEEP_MAX_STEPS];
    double peak, peak_at;
    int k = steps_by_value(steps, order, &peak, &peak_at);
    if (k == 0)
        return;
    cJSON *a = util_must(cJSON_CreateObject());
    bench_sweep_put_num(a, "peakTps", peak, 8);
    util_jset_num(a, "peakAt", peak_at);
    double tps[BENCH_SWEEP_MAX_STEPS], p99[BENCH_SWEEP_MAX_STEPS];
    for (int i = 0; i < k; i++) {
        const cJSON *st = cJSON_GetArrayItem(steps, order[i]);
        tps[i] = util_jnum(st, "tpsMean", NAN);
        p99[i] = util_jnum(st, "latencyP99MsMean", NAN);
    }
    int knee = bench_latency_knee(tps, p99, (size_t)k);
    if (knee >= 0)
        util_jset_num(a, "kneeAt", util_jnum(cJSON_GetArrayItem(steps, order[knee]), "value", 0));

    /* the dominant wait event at the largest value measured: mean share over its runs */
    const cJSON *last = cJSON_GetArrayItem(steps, order[k - 1]);
    double wait_pct;
    const char *wait = dominant_wait(last, &wait_pct);
    if (wait) {
        util_jset_str(a, "dominantWaitEvent", wait);
        bench_sweep_put_num(a, "dominantWaitPct", wait_pct, 4);
    }

    char verdict[BENCH_SWEEP_MAX_VERDICT];
    double max_n = util_jnum(last, "value", 0);
    if (usl) {
        usl_analysis(a, steps, order, k, ok, verdict, sizeof(verdict));
    } else {
        char why[96] = "";
        if (wait)
            (void)snprintf(why, sizeof(why), "; %s %.0f %% of wait time at %s=%g", wait, wait_pct,
                           field, max_n);
        (void)snprintf(verdict, sizeof(verdict), "peak %.1f tps at %s=%g%s", peak, field, peak_at,
                       why);
    }
    util_jset_str(a, "verdict", verdict);
    util_jset(status, "analysis", a);
}
