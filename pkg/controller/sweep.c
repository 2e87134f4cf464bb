/* BenchmarkSweep: spec, step planning, analysis, and its small controller. */
#include "pkg/api/phase.h"
#include "pkg/controller/sweep.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkg/bench/diag.h"
#include "pkg/bench/fields.h"
#include "pkg/bench/stepclass.h"
#include "pkg/bench/usl.h"
#include "pkg/bench/stats.h"
#include "pkg/controller/cache.h"
#include "pkg/controller/events.h"
#include "pkg/controller/executor.h"
#include "pkg/api/manifest.h"
#include "pkg/api/spec.h"
#include "pkg/api/status.h"
#include "pkg/util/log.h"
#include "pkg/util/clock.h"

#define COMP "sweep"

/* ---- merge diff --------------------------------------------------------------------------- */

cJSON *ctrl_merge_diff(const cJSON *old_obj, const cJSON *new_obj)
{
    if (!cJSON_IsObject(old_obj) || !cJSON_IsObject(new_obj))
        return cJSON_Compare(old_obj, new_obj, true) ? NULL
                                                     : util_must(cJSON_Duplicate(new_obj, 1));
    cJSON *patch = util_must(cJSON_CreateObject());
    const cJSON *it;
    cJSON_ArrayForEach(it, new_obj)
    {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(old_obj, it->string);
        cJSON *d;
        if (!o)
            d = util_must(cJSON_Duplicate(it, 1));
        else if (cJSON_IsObject(o) && cJSON_IsObject(it))
            d = ctrl_merge_diff(o, it);
        else
            d = cJSON_Compare(o, it, true) ? NULL : util_must(cJSON_Duplicate(it, 1));
        if (d)
            cJSON_AddItemToObject(patch, it->string, d);
    }
    cJSON_ArrayForEach(it, old_obj)
    {
        if (!cJSON_GetObjectItemCaseSensitive(new_obj, it->string))
            cJSON_AddItemToObject(patch, it->string, util_must(cJSON_CreateNull()));
    }
    if (!patch->child) {
        cJSON_Delete(patch);
        return NULL;
    }
    return patch;
}

/* ---- decide ------------------------------------------------------------------------------- */

static bool str_is(const char *a, const char *b)
{
    return a && strcmp(a, b) == 0;
}

/* s names phase p (NULL names none). */
static bool phase_is(const char *s, enum api_phase p)
{
    return s && api_phase_parse(s) == p;
}

static bool run_finished(const char *phase)
{
    return phase_is(phase, API_PHASE_SUCCEEDED) || phase_is(phase, API_PHASE_FAILED);
}

/* Rounded to a few significant digits, so that status compares equal from one decision to the
 * next and reads well. */
static double round_sig(double v, int digits)
{
    if (v == 0 || !isfinite(v))
        return v;
    double p = pow(10, digits - (int)ceil(log10(fabs(v))));
    return round(v * p) / p;
}

static void put_num(cJSON *o, const char *k, double v, int digits)
{
    if (isfinite(v))
        util_jset_num(o, k, round_sig(v, digits));
}

/* One repeat's entry of status.steps[].runs[] from a finished cached run. */
static cJSON *entry_from_run(const cJSON *run, const char *name)
{
    cJSON *e = util_must(cJSON_CreateObject());
    util_jset_str(e, "name", name);
    const char *phase = util_jstr(run, "status.phase");
    util_jset_str(e, "phase", phase ? phase : api_phase_name(API_PHASE_PENDING));
    const cJSON *st = util_jget(run, "status");
    const cJSON *v;
    if ((v = bench_status_get(st, BK_SUMMARY_TPS)) && cJSON_IsNumber(v))
        put_num(e, "tps", v->valuedouble, 8);
    if ((v = bench_status_get(st, BK_SUMMARY_LATENCY_P99_MS)) && cJSON_IsNumber(v))
        put_num(e, "latencyP99Ms", v->valuedouble, 8);
    if ((v = bench_status_get(st, BK_SUMMARY_TRANSACTIONS_PROCESSED)) && cJSON_IsNumber(v))
        util_jset_num(e, "transactions", v->valuedouble);
    if ((v = bench_status_get(st, BK_SUMMARY_FAILED_TRANSACTIONS)) && cJSON_IsNumber(v))
        util_jset_num(e, "failed", v->valuedouble);
    if (bench_status_get(st, BK_SUMMARY)) { /* a run's summary says summary.aborted only when > 0 */
        v = bench_status_get(st, BK_SUMMARY_ABORTED_CLIENTS);
        util_jset_num(e, "aborted", cJSON_IsNumber(v) ? v->valuedouble : 0);
    }
    put_num(e, "littlesLawDeviationPct", api_status_littles_law_pct(st), 6);
    /* the wait-event shares as the sentence names them (largest first), and the rounds they
     * rest on */
    struct bench_wait_share w[BENCH_DIAG_MAX_WAITS];
    const cJSON *waits = bench_status_get(st, BK_STATUS_DIAGNOSTICS_WAIT_EVENTS);
    int nw = cJSON_IsString(waits)
                 ? bench_diag_wait_parse(waits->valuestring, w, BENCH_DIAG_MAX_WAITS)
                 : 0;
    if (nw > 0) {
        util_jset_str(e, "waitEvent", w[0].event);
        put_num(e, "waitPct", w[0].pct, 6);
        cJSON *m = util_must(cJSON_CreateObject());
        for (int i = 0; i < nw; i++)
            put_num(m, w[i].event, w[i].pct, 6);
        util_jset(e, "waitSharesPct", m);
        int rounds = bench_diag_wait_rounds(waits->valuestring);
        if (rounds >= 0)
            util_jset_num(e, "waitRounds", rounds);
    }
    /* the run's verdict: its class and the evidence of its sentence */
    int cls = bench_verdict_status_class(st);
    const cJSON *vs = bench_status_get(st, BK_STATUS_DIAGNOSTICS_VERDICT);
    char ev[400];
    if (cls >= 0)
        util_jset_str(e, "verdictClass", bench_verdict_classes[cls].name);
    if (cJSON_IsString(vs) && bench_step_verdict_evidence(vs->valuestring, ev, sizeof(ev)))
        util_jset_str(e, "verdictEvidence", ev);
    const char *msg = util_jstr(run, "status.message");
    if (msg && phase_is(phase, API_PHASE_FAILED))
        util_jset_str(e, "message", msg);
    return e;
}

/* The recorded (finished) entry of a run in the old status, or NULL. */
static const cJSON *recorded(const cJSON *old_status, int step, const char *name)
{
    const cJSON *runs = util_jget(cJSON_GetArrayItem(util_jget(old_status, "steps"), step), "runs");
    const cJSON *e;
    cJSON_ArrayForEach(e, runs)
    {
        if (str_is(util_jstr(e, "name"), name) && run_finished(util_jstr(e, "phase")))
            return e;
    }
    return NULL;
}

/* stopWhen against a finished run's entry: writes why into out and returns true. */
static bool stop_check(const struct api_sweep_spec *s, const cJSON *e, char *out, size_t len)
{
    const char *name = util_jstr(e, "name");
    double failed = util_jnum(e, "failed", 0), tx = util_jnum(e, "transactions", 0);
    double aborted = util_jnum(e, "aborted", 0), p99 = util_jnum(e, "latencyP99Ms", NAN);
    if (s->stop_failed && failed > 0) {
        double pct = 100.0 * failed / (tx + failed);
        if (pct > s->stop_failed_pct) {
            (void)snprintf(out, len,
                           "stopWhen.failedPct: run %s failed %.2f %% of transactions (> %g %%)",
                           name, pct, s->stop_failed_pct);
            return true;
        }
    }
    if (s->stop_aborted && aborted >= (double)s->stop_aborted_clients) {
        (void)snprintf(out, len,
                       "stopWhen.abortedClients: run %s had %.0f aborted clients (>= %ld)", name,
                       aborted, s->stop_aborted_clients);
        return true;
    }
    if (s->stop_p99 && p99 > s->stop_p99_ms) {
        (void)snprintf(out, len, "stopWhen.p99Ms: run %s had p99 %.2f ms (> %g ms)", name, p99,
                       s->stop_p99_ms);
        return true;
    }
    return false;
}

/* The class most of a step's succeeded runs' verdicts name (ties: the earlier run's), and one
 * such run's evidence into ev (may stay empty); -1 when no run has a verdict. */
static int runs_class(const cJSON *step, char *ev_out, size_t len)
{
    int count[BENCH_VC__COUNT] = {0}, best = -1;
    const cJSON *e;
    ev_out[0] = '\0';
    cJSON_ArrayForEach(e, util_jget(step, "runs"))
    {
        int c = bench_verdict_class_parse(util_jstr(e, "verdictClass"));
        if (phase_is(util_jstr(e, "phase"), API_PHASE_SUCCEEDED) && c >= 0 &&
            ++count[c] > (best >= 0 ? count[best] : 0))
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
static void step_class(const cJSON *step, struct bench_step_class *out)
{
    struct bench_wait_share w[BENCH_DIAG_MAX_WAITS * API_SWEEP_MAX_REPEATS];
    int nw = 0, runs = 0, rounds = -1;
    char ev[400];
    int cls = runs_class(step, ev, sizeof(ev));
    const cJSON *e, *it;
    cJSON_ArrayForEach(e, util_jget(step, "runs"))
    {
        const cJSON *m = util_jget(e, "waitSharesPct");
        if (!phase_is(util_jstr(e, "phase"), API_PHASE_SUCCEEDED) || !cJSON_IsObject(m))
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
static void step_limit(cJSON *step)
{
    struct bench_step_class c;
    step_class(step, &c);
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
        put_num(l, "sharePct", c.share, 4);
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
            put_num(m, bench_verdict_classes[k].name, c.pct[k], 4);
    if (m->child)
        util_jset(step, "classSharesPct", m);
    else
        cJSON_Delete(m);
}

/* Fills a step's phase, means and spreads from its runs. */
static void step_summarise(cJSON *step)
{
    const cJSON *runs = util_jget(step, "runs");
    double tps[API_SWEEP_MAX_REPEATS], p99[API_SWEEP_MAX_REPEATS], ll[API_SWEEP_MAX_REPEATS];
    int nt = 0, np = 0, nl = 0;
    bool running = false, failed = false;
    const cJSON *e;
    cJSON_ArrayForEach(e, runs)
    {
        const char *ph = util_jstr(e, "phase");
        if (!run_finished(ph))
            running = true;
        else if (phase_is(ph, API_PHASE_FAILED))
            failed = true;
        if (!phase_is(ph, API_PHASE_SUCCEEDED))
            continue;
        double v;
        if ((v = util_jnum(e, "tps", NAN)) > 0 && nt < API_SWEEP_MAX_REPEATS)
            tps[nt++] = v;
        if ((v = util_jnum(e, "latencyP99Ms", NAN)) > 0 && np < API_SWEEP_MAX_REPEATS)
            p99[np++] = v;
        if (isfinite(v = util_jnum(e, "littlesLawDeviationPct", NAN)) && nl < API_SWEEP_MAX_REPEATS)
            ll[nl++] = v;
    }
    util_jset_str(step, "phase",
                  api_phase_name(running  ? API_PHASE_RUNNING
                                 : failed ? API_PHASE_FAILED
                                          : API_PHASE_SUCCEEDED));
    double m, sd;
    if (nt) { /* put_num leaves out the stddev of one run: unknown, not 0 */
        bench_mean_sd(tps, nt, &m, &sd);
        put_num(step, "tpsMean", m, 8);
        put_num(step, "tpsStddev", sd, 6);
    }
    if (np) {
        bench_mean_sd(p99, np, &m, &sd);
        put_num(step, "latencyP99MsMean", m, 8);
        put_num(step, "latencyP99MsStddev", sd, 6);
    }
    if (nl) {
        bench_mean_sd(ll, nl, &m, &sd);
        put_num(step, "littlesLawDeviationPct", m, 6);
    }
    step_limit(step);
}

/* The steps that measured a tps, as indexes sorted by value into order[]; their count, and the
 * peak tps and the value it was measured at. */
static int steps_by_value(const cJSON *steps, int *order, double *peak, double *peak_at)
{
    int n = cJSON_GetArraySize(steps), k = 0;
    *peak = -1;
    *peak_at = NAN;
    for (int i = 0; i < n && i < API_SWEEP_MAX_STEPS; i++) {
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
            if (str_is(util_jstr(o, "waitEvent"), w))
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
static void usl_analysis(cJSON *a, const cJSON *steps, const int *order, int k, char *verdict,
                         size_t len)
{
    struct bench_usl_point pts[API_SWEEP_MAX_STEPS * API_SWEEP_MAX_REPEATS];
    size_t np = 0;
    const cJSON *st, *e;
    cJSON_ArrayForEach(st, steps)
    {
        cJSON_ArrayForEach(e, util_jget(st, "runs"))
        {
            double x = util_jnum(e, "tps", NAN);
            if (phase_is(util_jstr(e, "phase"), API_PHASE_SUCCEEDED) && x > 0 &&
                np < sizeof(pts) / sizeof(pts[0]))
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
        put_num(u, "lambda", fit.lambda, 6);
        put_num(u, "sigma", fit.sigma, 6);
        put_num(u, "kappa", fit.kappa, 6);
        put_num(u, "r2", fit.r2, 6);
        put_num(u, "peakClients", fit.peak_n, 6);
        put_num(u, "peakTps", fit.peak_x, 6);
        put_interval(u, "sigmaInterval", fit.sigma_ci);
        put_interval(u, "kappaInterval", fit.kappa_ci);
        put_interval(u, "peakClientsInterval", fit.peak_ci);
    }
    util_jset(a, "usl", u);
    double n[API_SWEEP_MAX_STEPS], x[API_SWEEP_MAX_STEPS];
    struct bench_step_class cls[API_SWEEP_MAX_STEPS];
    bool any = false;
    for (int i = 0; i < k; i++) {
        const cJSON *s = cJSON_GetArrayItem(steps, order[i]);
        n[i] = util_jnum(s, "value", 0);
        x[i] = util_jnum(s, "tpsMean", NAN);
        step_class(s, &cls[i]);
        any = any || cls[i].cls != BENCH_VC_INCONCLUSIVE || cls[i].evidence[0];
    }
    bench_usl_verdict(&fit, n, x, (size_t)k, any ? cls : NULL, verdict, len);
}

/* status.analysis from status.steps (nothing when no step has a tps yet). */
static void analyse(cJSON *status, enum api_sweep_field field)
{
    const cJSON *steps = util_jget(status, "steps");
    int order[API_SWEEP_MAX_STEPS];
    double peak, peak_at;
    int k = steps_by_value(steps, order, &peak, &peak_at);
    if (k == 0)
        return;
    cJSON *a = util_must(cJSON_CreateObject());
    put_num(a, "peakTps", peak, 8);
    util_jset_num(a, "peakAt", peak_at);
    double tps[API_SWEEP_MAX_STEPS], p99[API_SWEEP_MAX_STEPS];
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
        put_num(a, "dominantWaitPct", wait_pct, 4);
    }

    char verdict[API_MAX_MESSAGE - 64];
    double max_n = util_jnum(last, "value", 0);
    if (field == API_SWEEP_CLIENTS) {
        usl_analysis(a, steps, order, k, verdict, sizeof(verdict));
    } else {
        char why[96] = "";
        if (wait)
            (void)snprintf(why, sizeof(why), "; %s %.0f %% of wait time at %s=%g", wait, wait_pct,
                           api_sweep_field_name(field), max_n);
        (void)snprintf(verdict, sizeof(verdict), "peak %.1f tps at %s=%g%s", peak,
                       api_sweep_field_name(field), peak_at, why);
    }
    util_jset_str(a, "verdict", verdict);
    util_jset(status, "analysis", a);
}

static const cJSON *find_run(const cJSON *const *runs, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (str_is(util_jstr(runs[i], "metadata.name"), name))
            return runs[i];
    return NULL;
}

static void copy_member(cJSON *to, const cJSON *from, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, k);
    if (v)
        util_jset(to, k, util_must(cJSON_Duplicate(v, 1)));
}

/* Where the walk over a sweep's runs stopped. */
struct sweep_walk {
    int current;   /* the run (step * repeats + repeat) not finished yet, -1 = none */
    int last_step; /* the step the walk reached */
    bool stopped;  /* a stopWhen condition held */
    char stop_reason[400];
    char current_name[320];
};

/* status.steps[i], made when the walk first reaches step i. */
static cJSON *step_entry(cJSON *steps, const struct api_sweep_spec *s, int i)
{
    cJSON *step = cJSON_GetArrayItem(steps, i);
    if (!step) {
        step = util_must(cJSON_CreateObject());
        util_jset_num(step, "index", i);
        util_jset_num(step, "value", s->values[i]);
        util_jset(step, "runs", util_must(cJSON_CreateArray()));
        cJSON_AddItemToArray(steps, step);
    }
    return step;
}

/* Runs in order, step by step, into steps: finished ones (from the run, else as recorded in
 * the old status) until the first that is not, which is created when missing, or until a
 * stopWhen condition holds. */
static void walk_runs(const cJSON *sweep, const cJSON *const *runs, int n_runs, const cJSON *old,
                      const struct api_sweep_spec *s, cJSON *steps, struct sweep_walk *w,
                      struct ctrl_sweep_plan *plan)
{
    const char *sname = util_jstr(sweep, "metadata.name");
    int total = s->n_values * s->repeats;
    for (int k = 0; k < total; k++) {
        int i = k / s->repeats, j = k % s->repeats;
        w->last_step = i;
        char name[320];
        api_sweep_run_name(sname, i, j, name, sizeof(name));
        cJSON *list = cJSON_GetObjectItemCaseSensitive(step_entry(steps, s, i), "runs");
        const cJSON *run = find_run(runs, n_runs, name);
        const cJSON *rec = recorded(old, i, name);
        cJSON *e;
        if (run && run_finished(util_jstr(run, "status.phase")))
            e = entry_from_run(run, name);
        else if (rec)
            e = util_must(cJSON_Duplicate(rec, 1));
        else {
            e = util_must(cJSON_CreateObject());
            util_jset_str(e, "name", name);
            const char *ph = util_jstr(run, "status.phase");
            util_jset_str(e, "phase", ph ? ph : api_phase_name(API_PHASE_PENDING));
            cJSON_AddItemToArray(list, e);
            w->current = k;
            (void)snprintf(w->current_name, sizeof(w->current_name), "%s", name);
            if (!run)
                plan->create = api_sweep_run_object(sweep, s, i, j);
            break;
        }
        cJSON_AddItemToArray(list, e);
        if (stop_check(s, e, w->stop_reason, sizeof(w->stop_reason))) {
            w->stopped = true;
            break;
        }
    }
}

/* status.completionTime: kept from the old status, else now. */
static void keep_completion(cJSON *st, const cJSON *old, const char *ts)
{
    copy_member(st, old, "completionTime");
    if (!util_jget(st, "completionTime"))
        util_jset_str(st, "completionTime", ts);
}

/* phase, message and condition from where the walk stopped. */
static void sweep_phase(cJSON *st, const cJSON *old, const struct api_sweep_spec *s,
                        const struct sweep_walk *w, long obs_gen, double now,
                        struct ctrl_sweep_plan *plan)
{
    char msg[API_MAX_MESSAGE], ts[40], text[32];
    util_rfc3339(now, 0, ts, sizeof(ts));
    util_jset_num(st, "currentStep", w->last_step);
    (void)snprintf(text, sizeof(text), "%d/%d", w->last_step + 1, s->n_values);
    util_jset_str(st, "stepText", text);
    const char *verdict = util_jstr(st, "analysis.verdict");
    if (w->stopped) {
        util_jset_str(st, "phase", api_phase_name(API_PHASE_STOPPED));
        util_jset_str(st, "stopReason", w->stop_reason);
        (void)snprintf(msg, sizeof(msg), "stopped at step %d/%d: %s", w->last_step + 1, s->n_values,
                       w->stop_reason);
        util_jset_str(st, "message", msg);
        keep_completion(st, old, ts);
        api_cond_set(st, "Stopped", "True", "StopWhen", w->stop_reason, obs_gen, now);
    } else if (w->current >= 0) {
        util_jset_str(st, "phase", api_phase_name(API_PHASE_RUNNING));
        util_jset_str(st, "currentRun", w->current_name);
        (void)snprintf(msg, sizeof(msg), "step %d/%d: %s=%g, run %s", w->last_step + 1, s->n_values,
                       api_sweep_field_name(s->field), s->values[w->last_step], w->current_name);
        util_jset_str(st, "message", msg);
        if (!util_jget(st, "startTime"))
            util_jset_str(st, "startTime", ts);
        plan->requeue_ms = CTRL_SWEEP_RESYNC_MS;
    } else {
        util_jset_str(st, "phase", api_phase_name(API_PHASE_SUCCEEDED));
        (void)snprintf(msg, sizeof(msg), "%d steps: %s", s->n_values,
                       verdict ? verdict : "no step measured a tps");
        util_jset_str(st, "message", msg);
        keep_completion(st, old, ts);
        api_cond_set(st, "Complete", "True", "AllStepsRun", msg, obs_gen, now);
    }
}

/* A spec that does not parse ends the sweep: Failed, InvalidSpec, with the parser's message. */
static void sweep_invalid(cJSON *st, const cJSON *old, const char *err, long gen, double now,
                          struct ctrl_sweep_plan *plan)
{
    util_jset_str(st, "phase", api_phase_name(API_PHASE_FAILED));
    util_jset_str(st, "message", err);
    char ts[40];
    util_rfc3339(now, 0, ts, sizeof(ts));
    util_jset_str(st, "completionTime", ts);
    api_cond_set(st, "Failed", "True", "InvalidSpec", err, gen, now);
    (void)snprintf(plan->phase, sizeof(plan->phase), "%s", api_phase_name(API_PHASE_FAILED));
    plan->n_events = ctrl_sweep_events(old, st, plan->events, CTRL_SWEEP_MAX_EVENTS);
    plan->status = st;
}

void ctrl_sweep_decide(const cJSON *sweep, const cJSON *const *runs, int n_runs, double now,
                       struct ctrl_sweep_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    const cJSON *old = util_jget(sweep, "status");
    const char *old_phase = util_jstr(old, "phase");
    if (phase_is(old_phase, API_PHASE_SUCCEEDED) || phase_is(old_phase, API_PHASE_STOPPED) ||
        phase_is(old_phase, API_PHASE_FAILED)) {
        (void)snprintf(plan->phase, sizeof(plan->phase), "%s", old_phase);
        return;
    }
    long gen = (long)util_jnum(sweep, "metadata.generation", 0);
    long obs_gen = (long)util_jnum(old, "observedGeneration", (double)gen);
    cJSON *st = util_must(cJSON_CreateObject());
    copy_member(st, old, "conditions");
    copy_member(st, old, "startTime");
    util_jset_num(st, "observedGeneration", (double)obs_gen);

    struct api_sweep_spec s;
    char err[700];
    if (api_sweep_spec_parse(util_jget(sweep, "spec"), &s, err, sizeof(err))) {
        sweep_invalid(st, old, err, gen, now, plan);
        return;
    }
    util_jset_str(st, "field", api_sweep_field_name(s.field));
    cJSON *vals = util_must(cJSON_CreateArray());
    for (int i = 0; i < s.n_values; i++)
        cJSON_AddItemToArray(vals, util_must(cJSON_CreateNumber(s.values[i])));
    util_jset(st, "values", vals);
    util_jset_num(st, "totalSteps", s.n_values);
    cJSON *steps = util_must(cJSON_CreateArray());
    util_jset(st, "steps", steps);

    struct sweep_walk w = {.current = -1};
    walk_runs(sweep, runs, n_runs, old, &s, steps, &w, plan);
    cJSON *step;
    cJSON_ArrayForEach(step, steps) step_summarise(step);
    analyse(st, s.field);
    sweep_phase(st, old, &s, &w, obs_gen, now, plan);
    (void)snprintf(plan->phase, sizeof(plan->phase), "%s", util_jstr(st, "phase"));
    if (old && cJSON_Compare(old, st, true)) {
        cJSON_Delete(st);
        return;
    }
    plan->n_events = ctrl_sweep_events(old, st, plan->events, CTRL_SWEEP_MAX_EVENTS);
    plan->status = st;
}

/* ---- events ------------------------------------------------------------------------------- */

static int add_event(struct ctrl_event *out, int n, int max, bool warning, const char *reason,
                     const char *msg)
{
    if (n >= max)
        return n;
    memset(&out[n], 0, sizeof(out[n]));
    out[n].warning = warning;
    (void)snprintf(out[n].reason, sizeof(out[n].reason), "%s", reason);
    (void)snprintf(out[n].message, sizeof(out[n].message), "%.500s", msg);
    return n + 1;
}

/* "step 3/5 clients=4" */
static void step_label(const cJSON *st, const cJSON *step, char *out, size_t len)
{
    const char *field = util_jstr(st, "field");
    (void)snprintf(out, len, "step %d/%d %s=%g", (int)util_jnum(step, "index", 0) + 1,
                   (int)util_jnum(st, "totalSteps", 0), field ? field : "value",
                   util_jnum(step, "value", 0));
}

/* The events of one step whose phase moved from old_phase (NULL: the step is new). */
static int step_events(const cJSON *st, const cJSON *step, const char *old_phase,
                       struct ctrl_event *out, int n, int max)
{
    char label[96], msg[512];
    const char *phase = util_jstr(step, "phase");
    const cJSON *first = cJSON_GetArrayItem(util_jget(step, "runs"), 0);
    step_label(st, step, label, sizeof(label));
    if (!old_phase) {
        (void)snprintf(msg, sizeof(msg), "%s: run %s", label, util_jstr(first, "name"));
        n = add_event(out, n, max, false, "StepStarted", msg);
    }
    if ((old_phase && str_is(phase, old_phase)) || !run_finished(phase))
        return n;
    int runs = cJSON_GetArraySize(util_jget(step, "runs"));
    if (phase_is(phase, API_PHASE_SUCCEEDED)) {
        (void)snprintf(msg, sizeof(msg), "%s: %.1f tps, p99 %.2f ms%s", label,
                       util_jnum(step, "tpsMean", NAN), util_jnum(step, "latencyP99MsMean", NAN),
                       runs > 1 ? " (means over its runs)" : "");
        return add_event(out, n, max, false, "StepCompleted", msg);
    }
    const char *why = NULL, *name = NULL;
    const cJSON *e;
    cJSON_ArrayForEach(
        e, util_jget(step, "runs")) if (!why && phase_is(util_jstr(e, "phase"), API_PHASE_FAILED))
    {
        name = util_jstr(e, "name");
        why = util_jstr(e, "message");
    }
    (void)snprintf(msg, sizeof(msg), "%s: run %s failed: %.380s", label, name ? name : "?",
                   why ? why : "no message");
    return add_event(out, n, max, true, "StepFailed", msg);
}

int ctrl_sweep_events(const cJSON *old_st, const cJSON *new_st, struct ctrl_event *out, int max)
{
    int n = 0;
    const cJSON *step;
    cJSON_ArrayForEach(step, util_jget(new_st, "steps"))
    {
        int i = (int)util_jnum(step, "index", -1);
        const cJSON *old_step = cJSON_GetArrayItem(util_jget(old_st, "steps"), i);
        const char *old_phase = old_step ? util_jstr(old_step, "phase") : NULL;
        if (old_step && !old_phase)
            old_phase = api_phase_name(API_PHASE_PENDING);
        n = step_events(new_st, step, old_phase, out, n, max);
    }
    const char *phase = util_jstr(new_st, "phase"), *msg = util_jstr(new_st, "message");
    const char *old_phase = util_jstr(old_st, "phase");
    if (old_phase && str_is(phase, old_phase))
        return n;
    if (phase_is(phase, API_PHASE_SUCCEEDED))
        n = add_event(out, n, max, false, "SweepSucceeded", msg ? msg : "");
    else if (phase_is(phase, API_PHASE_STOPPED))
        n = add_event(out, n, max, false, "SweepStopped", msg ? msg : "");
    else if (phase_is(phase, API_PHASE_FAILED))
        n = add_event(out, n, max, true, "SweepFailed", msg ? msg : "");
    return n;
}

void ctrl_sweep_plan_free(struct ctrl_sweep_plan *plan)
{
    cJSON_Delete(plan->status);
    cJSON_Delete(plan->create);
    plan->status = plan->create = NULL;
}

/* ---- the controller ----------------------------------------------------------------------- */

struct sw_rec;

struct ctrl_sweeper {
    uv_loop_t *loop;
    struct kube_client *kc;
    char *ns;
    struct kube_informer *sweeps, *runs;
    struct kube_queue *q;
    struct kube_enqueue own, by_sweep; /* what the informers queue: a sweep's key, its runs' */
    struct sw_rec *recs;               /* in flight */
    struct ctrl_events *ev;            /* the Event sender, or NULL */
};

struct sw_rec {
    struct ctrl_sweeper *s;
    struct sw_rec *next, *prev;
    char key[512], ns[256], name[256];
    struct ctrl_sweep_plan plan;
    cJSON *obj; /* metadata of the sweep (name, namespace, uid), for its Events */
};

/* A deleted sweep: the Events sent about it are forgotten with it. */
static void sweep_deleted(const cJSON *obj, const char *key, void *ud)
{
    struct ctrl_sweeper *s = ud;
    (void)key;
    if (s->ev)
        ctrl_events_forget_object(s->ev, "BenchmarkSweep", util_jstr(obj, "metadata.namespace"),
                                  util_jstr(obj, "metadata.name"));
}

static void rec_free(struct sw_rec *r)
{
    struct ctrl_sweeper *s = r->s;
    if (r->prev)
        r->prev->next = r->next;
    else
        s->recs = r->next;
    if (r->next)
        r->next->prev = r->prev;
    ctrl_sweep_plan_free(&r->plan);
    cJSON_Delete(r->obj);
    free(r);
}

static void rec_finish(struct sw_rec *r, bool error, long requeue_ms)
{
    struct ctrl_sweeper *s = r->s;
    log_debug(COMP, "reconciled %s phase=%s%s", r->key, r->plan.phase, error ? " (retry)" : "");
    kube_queue_finish(s->q, r->key, error, requeue_ms);
    rec_free(r);
}

/* The plan's Events, once the status that records their transitions is written. */
static void send_events(struct sw_rec *r)
{
    for (int i = 0; r->s->ev && i < r->plan.n_events; i++)
        ctrl_events_send(r->s->ev, "BenchmarkSweep", r->obj, &r->plan.events[i]);
    r->plan.n_events = 0;
}

static void on_failed_written(struct kube_result *res, void *ud)
{
    struct sw_rec *r = ud;
    if (!kube_ok(&res->status))
        log_warn(COMP, "%s: status not written: HTTP %d %s", r->key, res->status.http,
                 res->status.message);
    else
        send_events(r);
    rec_finish(r, !kube_ok(&res->status), 0);
}

/* A run the API server will never accept: the sweep fails with the server's words. */
static void fail_sweep(struct sw_rec *r, const char *run, const char *why)
{
    char msg[API_MAX_MESSAGE], ts[40];
    (void)snprintf(msg, sizeof(msg), "creating BenchmarkRun %.300s: %.600s", run, why);
    util_rfc3339(util_wall_s(), 0, ts, sizeof(ts));
    cJSON *patch = util_must(cJSON_CreateObject());
    cJSON *st = util_must(cJSON_AddObjectToObject(patch, "status"));
    util_jset_str(st, "phase", api_phase_name(API_PHASE_FAILED));
    util_jset_str(st, "message", msg);
    util_jset_str(st, "completionTime", ts);
    (void)snprintf(r->plan.phase, sizeof(r->plan.phase), "%s", api_phase_name(API_PHASE_FAILED));
    r->plan.n_events =
        add_event(r->plan.events, 0, CTRL_SWEEP_MAX_EVENTS, true, "SweepFailed", msg);
    struct kube_opts o = {.subresource = "status", .field_validation = "Strict"};
    if (kube_patch(r->s->kc, &API_BENCHMARKSWEEPS, r->ns, r->name, KUBE_PATCH_MERGE, patch, &o,
                   on_failed_written, r) != 0)
        rec_finish(r, true, 0);
    cJSON_Delete(patch);
}

static void on_created(struct kube_result *res, void *ud)
{
    struct sw_rec *r = ud;
    const char *run = util_jstr(r->plan.create, "metadata.name");
    int http = res->status.http;
    if (kube_ok(&res->status) || http == 409) {
        log_info(COMP, "%s: %s BenchmarkRun %s", r->key, http == 409 ? "found existing" : "created",
                 run);
        rec_finish(r, false, r->plan.requeue_ms);
        return;
    }
    log_warn(COMP, "%s: create BenchmarkRun %s: HTTP %d %s: %s", r->key, run, http,
             res->status.reason, res->status.message);
    if (http == 400 || http == 403 || http == 422) {
        fail_sweep(r, run, res->status.message);
        return;
    }
    rec_finish(r, true, 0);
}

static void do_create(struct sw_rec *r)
{
    if (!r->plan.create) {
        rec_finish(r, false, r->plan.requeue_ms);
        return;
    }
    struct kube_opts o = {.field_validation = "Strict"};
    if (kube_create(r->s->kc, &API_BENCHMARKRUNS, r->ns, r->plan.create, &o, on_created, r) != 0)
        rec_finish(r, true, 0);
}

static void on_status_written(struct kube_result *res, void *ud)
{
    struct sw_rec *r = ud;
    if (!kube_ok(&res->status)) {
        if (res->status.http == 409)
            log_debug(COMP, "%s: status conflict; deciding again", r->key);
        else
            log_warn(COMP, "%s: status not written: HTTP %d %s", r->key, res->status.http,
                     res->status.message);
        rec_finish(r, true, 0);
        return;
    }
    log_info(COMP, "%s: phase %s: %s", r->key, r->plan.phase, util_jstr(r->plan.status, "message"));
    send_events(r);
    do_create(r);
}

struct run_list {
    cJSON *items[API_SWEEP_MAX_STEPS * API_SWEEP_MAX_REPEATS];
    int n;
};

static void collect_run(const cJSON *obj, void *ud)
{
    struct run_list *l = ud;
    if (l->n < (int)(sizeof(l->items) / sizeof(l->items[0])))
        l->items[l->n++] = util_must(cJSON_Duplicate(obj, 1));
}

static void process(struct kube_queue *q, const char *key, void *ud)
{
    struct ctrl_sweeper *s = ud;
    (void)q;
    struct sw_rec *r = util_xcalloc(1, sizeof(*r));
    r->s = s;
    (void)snprintf(r->key, sizeof(r->key), "%s", key);
    r->next = s->recs;
    if (s->recs)
        s->recs->prev = r;
    s->recs = r;
    const char *slash = strchr(key, '/');
    if (!slash) {
        rec_finish(r, false, 0);
        return;
    }
    (void)snprintf(r->ns, sizeof(r->ns), "%.*s", (int)(slash - key), key);
    (void)snprintf(r->name, sizeof(r->name), "%s", slash + 1);
    if (!ctrl_sweeper_synced(s)) { /* a partial run cache would look like missing runs */
        rec_finish(r, false, 200);
        return;
    }
    cJSON *sweep = kube_informer_copy(s->sweeps, r->ns, r->name);
    if (!sweep || util_jget(sweep, "metadata.deletionTimestamp")) {
        cJSON_Delete(sweep);
        rec_finish(r, false, 0);
        return;
    }
    struct run_list *l = util_xcalloc(1, sizeof(*l));
    kube_informer_foreach_indexed(s->runs, key, collect_run, l);
    ctrl_sweep_decide(sweep, (const cJSON *const *)l->items, l->n, util_wall_s(), &r->plan);
    for (int i = 0; i < l->n; i++)
        cJSON_Delete(l->items[i]);
    free(l);
    r->obj = util_must(cJSON_CreateObject());
    util_jset(r->obj, "metadata", util_must(cJSON_Duplicate(util_jget(sweep, "metadata"), 1)));
    if (!r->plan.status) {
        cJSON_Delete(sweep);
        do_create(r);
        return;
    }
    cJSON *patch = util_must(cJSON_CreateObject());
    cJSON *md = util_must(cJSON_AddObjectToObject(patch, "metadata"));
    const char *rv = util_jstr(sweep, "metadata.resourceVersion");
    if (rv)
        util_jset_str(md, "resourceVersion", rv); /* the status decided from is the current one */
    cJSON *diff = ctrl_merge_diff(util_jget(sweep, "status"), r->plan.status);
    cJSON_Delete(sweep);
    util_jset(patch, "status", diff ? diff : util_must(cJSON_CreateObject()));
    struct kube_opts o = {.subresource = "status", .field_validation = "Strict"};
    int rc = kube_patch(s->kc, &API_BENCHMARKSWEEPS, r->ns, r->name, KUBE_PATCH_MERGE, patch, &o,
                        on_status_written, r);
    cJSON_Delete(patch);
    if (rc)
        rec_finish(r, true, 0);
}

int ctrl_sweeper_new(uv_loop_t *loop, struct kube_client *kc, const char *ns, int workers,
                     struct ctrl_events *ev, struct ctrl_sweeper **out)
{
    struct ctrl_sweeper *s = util_xcalloc(1, sizeof(*s));
    s->loop = loop;
    s->ev = ev;
    s->kc = kc;
    if (ns && *ns)
        s->ns = util_xstrdup(ns);
    struct kube_queue_opts qo = {.workers = workers > 0 ? workers : 2,
                                 .base_ms = CTRL_QUEUE_BASE_MS,
                                 .max_ms = CTRL_QUEUE_MAX_MS};
    int rc = kube_queue_new(loop, &qo, process, s, &s->q);
    if (rc)
        goto fail;
    s->own = (struct kube_enqueue){.q = s->q, .on_delete = sweep_deleted, .ud = s};
    s->by_sweep = (struct kube_enqueue){.q = s->q, .owner_label = API_LABEL_SWEEP};
    rc = kube_informer_enqueue(kc, &API_BENCHMARKSWEEPS, s->ns, &s->own, ctrl_transform_sweep,
                               false, &s->sweeps);
    /* indexed by sweep: a reconcile reads its own sweep's runs only */
    rc = rc ? rc
            : kube_informer_enqueue(kc, &API_BENCHMARKRUNS, s->ns, &s->by_sweep,
                                    ctrl_transform_sweep_run, true, &s->runs);
    if (rc)
        goto fail;
    *out = s;
    return 0;
fail:
    ctrl_sweeper_free(s);
    return rc;
}

int ctrl_sweeper_start(struct ctrl_sweeper *s)
{
    int rc = kube_informer_start(s->runs);
    if (!rc)
        rc = kube_informer_start(s->sweeps);
    return rc;
}

void ctrl_sweeper_foreach(const struct ctrl_sweeper *s, void (*fn)(const cJSON *sweep, void *ctx),
                          void *ctx)
{
    if (s && s->sweeps)
        kube_informer_foreach(s->sweeps, fn, ctx);
}

bool ctrl_sweeper_synced(const struct ctrl_sweeper *s)
{
    return s && kube_informer_synced(s->sweeps) && kube_informer_synced(s->runs);
}

void ctrl_sweeper_stop(struct ctrl_sweeper *s)
{
    if (s && s->q)
        kube_queue_shutdown(s->q);
}

void ctrl_sweeper_free(struct ctrl_sweeper *s)
{
    if (!s)
        return;
    for (struct sw_rec *r = s->recs, *next; r; r = next) {
        next = r->next;
        kube_queue_done(s->q, r->key);
        rec_free(r);
    }
    kube_informer_free(s->sweeps);
    kube_informer_free(s->runs);
    kube_queue_free(s->q);
    free(s->ns);
    free(s);
}
