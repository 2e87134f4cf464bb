/* The numbers of a BenchmarkSweep (see sweep_stats.h). */
#include "pkg/bench/sweep_stats.h"
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

void bench_sweep_put_round(cJSON *o, enum bench_sweep_field_id id, double v, int digits)
{
    if (isfinite(v))
        bench_sweep_set_num(o, id, round_sig(v, digits));
}

void bench_sweep_copy_run(cJSON *entry, const cJSON *run_status)
{
    for (int i = 0; i < BSW__COUNT; i++) {
        const struct bench_field *f = &bench_sweep_fields[i];
        const cJSON *v = f->from >= 0 ? bench_status_get(run_status, f->from) : NULL;
        if (!v)
            continue;
        if (cJSON_IsNumber(v) && f->type == BF_INT)
            bench_sweep_set_num(entry, i, v->valuedouble);
        else if (cJSON_IsNumber(v))
            bench_sweep_put_round(entry, i, v->valuedouble, 8);
        else if (cJSON_IsString(v))
            bench_sweep_set_str(entry, i, v->valuestring);
    }
}

/* The class most of a step's succeeded runs' verdicts name (ties: the earlier run's), and one
 * such run's evidence into ev (may stay empty); -1 when no run has a verdict. */
static int runs_class(const cJSON *step, bench_sweep_ok_fn ok, char *ev_out, size_t len)
{
    int count[BENCH_VC__COUNT] = {0}, best = -1;
    const cJSON *e;
    ev_out[0] = '\0';
    cJSON_ArrayForEach(e, bench_sweep_get(step, BSW_STEPS_RUNS))
    {
        int c = bench_verdict_class_parse(bench_sweep_str(e, BSW_STEPS_RUNS_VERDICT_CLASS));
        if (ok(e) && c >= 0 && ++count[c] > (best >= 0 ? count[best] : 0))
            best = c;
    }
    cJSON_ArrayForEach(e, bench_sweep_get(step, BSW_STEPS_RUNS))
    {
        const char *ev = bench_sweep_str(e, BSW_STEPS_RUNS_VERDICT_EVIDENCE);
        if (best >= 0 && !ev_out[0] && ev &&
            bench_verdict_class_parse(bench_sweep_str(e, BSW_STEPS_RUNS_VERDICT_CLASS)) == best)
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
    cJSON_ArrayForEach(e, bench_sweep_get(step, BSW_STEPS_RUNS))
    {
        const cJSON *m = bench_sweep_get(e, BSW_STEPS_RUNS_WAIT_SHARES_PCT);
        if (!ok(e) || !cJSON_IsObject(m))
            continue;
        runs++;
        int r = (int)bench_sweep_num(e, BSW_STEPS_RUNS_WAIT_ROUNDS, 0);
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
    cJSON *l = cJSON_CreateObject();
    util_jset_str(l, bench_sweep_key(BSW_STEPS_LIMIT_CLASS), bench_verdict_classes[c.cls].name);
    if (c.event[0])
        util_jset_str(l, bench_sweep_key(BSW_STEPS_LIMIT_EVENT), c.event);
    if (isfinite(c.share)) {
        bench_sweep_put_num(l, bench_sweep_key(BSW_STEPS_LIMIT_SHARE_PCT), c.share, 4);
        util_jset_str(l, bench_sweep_key(BSW_STEPS_LIMIT_SHARE_OF),
                      c.cls == BENCH_VC_CLIENT ? "backendSamples" : "databaseWaitTime");
    }
    if (c.evidence[0])
        util_jset_str(l, bench_sweep_key(BSW_STEPS_LIMIT_EVIDENCE), c.evidence);
    util_jset_num(l, bench_sweep_key(BSW_STEPS_LIMIT_ROUNDS), c.rounds);
    util_jset(l, bench_sweep_key(BSW_STEPS_LIMIT_WEAK), cJSON_CreateBool(c.weak));
    (void)bench_sweep_put(step, BSW_STEPS_LIMIT, l);
    cJSON *m = cJSON_CreateObject();
    for (int k = 0; k < BENCH_VC__COUNT; k++)
        if (c.pct[k] > 0)
            bench_sweep_put_num(m, bench_verdict_classes[k].name, c.pct[k], 4);
    if (m->child)
        (void)bench_sweep_put(step, BSW_STEPS_CLASS_SHARES_PCT, m);
    else
        cJSON_Delete(m);
}

void bench_sweep_step_stats(cJSON *step, bench_sweep_ok_fn ok)
{
    const cJSON *runs = bench_sweep_get(step, BSW_STEPS_RUNS);
    double tps[BENCH_SWEEP_MAX_REPEATS], p99[BENCH_SWEEP_MAX_REPEATS], ll[BENCH_SWEEP_MAX_REPEATS];
    int nt = 0, np = 0, nl = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, runs)
    {
        if (!ok(e))
            continue;
        double v;
        if ((v = bench_sweep_num(e, BSW_STEPS_RUNS_TPS, NAN)) > 0 && nt < BENCH_SWEEP_MAX_REPEATS)
            tps[nt++] = v;
        if ((v = bench_sweep_num(e, BSW_STEPS_RUNS_LATENCY_P99, NAN)) > 0 &&
            np < BENCH_SWEEP_MAX_REPEATS)
            p99[np++] = v;
        if (isfinite(v = bench_sweep_num(e, BSW_STEPS_RUNS_LITTLES_LAW_DEVIATION_PCT, NAN)) &&
            nl < BENCH_SWEEP_MAX_REPEATS)
            ll[nl++] = v;
    }
    double m, sd;
    if (nt) { /* bench_sweep_put_num leaves out the stddev of one run: unknown, not 0 */
        bench_mean_sd(tps, nt, &m, &sd);
        bench_sweep_put_round(step, BSW_STEPS_TPS_MEAN, m, 8);
        bench_sweep_put_round(step, BSW_STEPS_TPS_STDDEV, sd, 6);
    }
    if (np) {
        bench_mean_sd(p99, np, &m, &sd);
        bench_sweep_put_round(step, BSW_STEPS_LATENCY_P99_MEAN, m, 8);
        bench_sweep_put_round(step, BSW_STEPS_LATENCY_P99_STDDEV, sd, 6);
    }
    if (nl) {
        bench_mean_sd(ll, nl, &m, &sd);
        bench_sweep_put_round(step, BSW_STEPS_LITTLES_LAW_DEVIATION_PCT, m, 6);
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
        double t = bench_sweep_num(st, BSW_STEPS_TPS_MEAN, NAN);
        if (!(t > 0))
            continue;
        if (t > *peak) {
            *peak = t;
            *peak_at = bench_sweep_num(st, BSW_STEPS_VALUE, NAN);
        }
        /* insertion by value */
        int j = k++;
        while (j > 0 && bench_sweep_num(cJSON_GetArrayItem(steps, order[j - 1]), BSW_STEPS_VALUE,
                                        0) > bench_sweep_num(st, BSW_STEPS_VALUE, 0)) {
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
    cJSON_ArrayForEach(e, bench_sweep_get(step, BSW_STEPS_RUNS))
    {
        const char *w = bench_sweep_str(e, BSW_STEPS_RUNS_WAIT_EVENT);
        if (!w)
            continue;
        double sum = 0;
        int cnt = 0;
        const cJSON *o;
        cJSON_ArrayForEach(o, bench_sweep_get(step, BSW_STEPS_RUNS))
        {
            cnt++;
            if (bench_sweep_str(o, BSW_STEPS_RUNS_WAIT_EVENT) &&
                strcmp(bench_sweep_str(o, BSW_STEPS_RUNS_WAIT_EVENT), w) == 0)
                sum += bench_sweep_num(o, BSW_STEPS_RUNS_WAIT_PCT, 0);
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
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(round_sig(ci[0], 4)));
    /* open above: null */
    cJSON_AddItemToArray(a, isfinite(ci[1]) ? cJSON_CreateNumber(round_sig(ci[1], 4))
                                            : cJSON_CreateNull());
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
        cJSON_ArrayForEach(e, bench_sweep_get(st, BSW_STEPS_RUNS))
        {
            double x = bench_sweep_num(e, BSW_STEPS_RUNS_TPS, NAN);
            if (ok(e) && x > 0 && np < sizeof(pts) / sizeof(pts[0]))
                pts[np++] = (struct bench_usl_point){bench_sweep_num(st, BSW_STEPS_VALUE, 0), x};
        }
    }
    struct bench_usl_fit fit;
    bench_usl_fit(pts, np, &fit);
    cJSON *u = cJSON_CreateObject();
    util_jset(u, bench_sweep_key(BSW_ANALYSIS_USL_OK), cJSON_CreateBool(fit.ok));
    util_jset_num(u, bench_sweep_key(BSW_ANALYSIS_USL_DISTINCT_CLIENTS), fit.distinct);
    if (!fit.ok) {
        util_jset_str(u, bench_sweep_key(BSW_ANALYSIS_USL_REASON), fit.reason);
        if (fit.steps_needed > 0)
            util_jset_num(u, bench_sweep_key(BSW_ANALYSIS_USL_STEPS_NEEDED), fit.steps_needed);
    } else {
        bench_sweep_put_num(u, bench_sweep_key(BSW_ANALYSIS_USL_LAMBDA), fit.lambda, 6);
        bench_sweep_put_num(u, bench_sweep_key(BSW_ANALYSIS_USL_SIGMA), fit.sigma, 6);
        bench_sweep_put_num(u, bench_sweep_key(BSW_ANALYSIS_USL_KAPPA), fit.kappa, 6);
        bench_sweep_put_num(u, bench_sweep_key(BSW_ANALYSIS_USL_R2), fit.r2, 6);
        bench_sweep_put_num(u, bench_sweep_key(BSW_ANALYSIS_USL_PEAK_CLIENTS), fit.peak_n, 6);
        bench_sweep_put_num(u, bench_sweep_key(BSW_ANALYSIS_USL_PEAK_TPS), fit.peak_x, 6);
        put_interval(u, bench_sweep_key(BSW_ANALYSIS_USL_SIGMA_INTERVAL), fit.sigma_ci);
        put_interval(u, bench_sweep_key(BSW_ANALYSIS_USL_KAPPA_INTERVAL), fit.kappa_ci);
        put_interval(u, bench_sweep_key(BSW_ANALYSIS_USL_PEAK_CLIENTS_INTERVAL), fit.peak_ci);
    }
    util_jset(a, bench_sweep_key(BSW_ANALYSIS_USL), u);
    double n[BENCH_SWEEP_MAX_STEPS], x[BENCH_SWEEP_MAX_STEPS];
    struct bench_step_class cls[BENCH_SWEEP_MAX_STEPS];
    bool any = false;
    for (int i = 0; i < k; i++) {
        const cJSON *s = cJSON_GetArrayItem(steps, order[i]);
        n[i] = bench_sweep_num(s, BSW_STEPS_VALUE, 0);
        x[i] = bench_sweep_num(s, BSW_STEPS_TPS_MEAN, NAN);
        step_class(s, ok, &cls[i]);
        any = any || cls[i].cls != BENCH_VC_INCONCLUSIVE || cls[i].evidence[0];
    }
    bench_usl_verdict(&fit, n, x, (size_t)k, any ? cls : NULL, verdict, len);
}

void bench_sweep_analyse(cJSON *status, const char *field, bool usl, bench_sweep_ok_fn ok)
{
    const cJSON *steps = bench_sweep_get(status, BSW_STEPS);
    int order[BENCH_SWEEP_MAX_STEPS];
    double peak, peak_at;
    int k = steps_by_value(steps, order, &peak, &peak_at);
    if (k == 0)
        return;
    cJSON *a = cJSON_CreateObject();
    bench_sweep_put_num(a, bench_sweep_key(BSW_ANALYSIS_PEAK_TPS), peak, 8);
    util_jset_num(a, bench_sweep_key(BSW_ANALYSIS_PEAK_AT), peak_at);
    double tps[BENCH_SWEEP_MAX_STEPS], p99[BENCH_SWEEP_MAX_STEPS];
    for (int i = 0; i < k; i++) {
        const cJSON *st = cJSON_GetArrayItem(steps, order[i]);
        tps[i] = bench_sweep_num(st, BSW_STEPS_TPS_MEAN, NAN);
        p99[i] = bench_sweep_num(st, BSW_STEPS_LATENCY_P99_MEAN, NAN);
    }
    int knee = bench_latency_knee(tps, p99, (size_t)k);
    if (knee >= 0)
        util_jset_num(a, bench_sweep_key(BSW_ANALYSIS_KNEE_AT),
                      bench_sweep_num(cJSON_GetArrayItem(steps, order[knee]), BSW_STEPS_VALUE, 0));

    /* the dominant wait event at the largest value measured: mean share over its runs */
    const cJSON *last = cJSON_GetArrayItem(steps, order[k - 1]);
    double wait_pct;
    const char *wait = dominant_wait(last, &wait_pct);
    if (wait) {
        util_jset_str(a, bench_sweep_key(BSW_ANALYSIS_DOMINANT_WAIT_EVENT), wait);
        bench_sweep_put_num(a, bench_sweep_key(BSW_ANALYSIS_DOMINANT_WAIT_PCT), wait_pct, 4);
    }

    char verdict[BENCH_SWEEP_MAX_VERDICT];
    double max_n = bench_sweep_num(last, BSW_STEPS_VALUE, 0);
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
    util_jset_str(a, bench_sweep_key(BSW_ANALYSIS_VERDICT), verdict);
    (void)bench_sweep_put(status, BSW_ANALYSIS, a);
}
