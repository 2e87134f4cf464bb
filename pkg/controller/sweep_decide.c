/* The BenchmarkSweep's decisions, as a pure function (see sweep_decide.h for the phases). */
#include "pkg/controller/sweep_decide.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pkg/api/manifest.h"
#include "pkg/api/phase.h"
#include "pkg/api/spec.h"
#include "pkg/api/status.h"
#include "pkg/bench/diag.h"
#include "pkg/bench/fields.h"
#include "pkg/bench/stepclass.h"
#include "pkg/bench/sweep_stats.h"
#include "pkg/util/clock.h"

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

/* The run entry e succeeded (the runs bench_sweep_step_stats counts). */
static bool succeeded(const cJSON *e)
{
    return phase_is(util_jstr(e, "phase"), API_PHASE_SUCCEEDED);
}

/* A step's phase from its runs': Running while one has not finished, else Failed when one
 * failed, else Succeeded. */
static void step_phase(cJSON *step)
{
    bool running = false, failed = false;
    const cJSON *e;
    cJSON_ArrayForEach(e, util_jget(step, "runs"))
    {
        const char *ph = util_jstr(e, "phase");
        if (!run_finished(ph))
            running = true;
        else if (phase_is(ph, API_PHASE_FAILED))
            failed = true;
    }
    util_jset_str(step, "phase",
                  api_phase_name(running  ? API_PHASE_RUNNING
                                 : failed ? API_PHASE_FAILED
                                          : API_PHASE_SUCCEEDED));
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
        bench_sweep_put_num(e, "tps", v->valuedouble, 8);
    if ((v = bench_status_get(st, BK_SUMMARY_LATENCY_P99_MS)) && cJSON_IsNumber(v))
        bench_sweep_put_num(e, "latencyP99Ms", v->valuedouble, 8);
    if ((v = bench_status_get(st, BK_SUMMARY_TRANSACTIONS_PROCESSED)) && cJSON_IsNumber(v))
        util_jset_num(e, "transactions", v->valuedouble);
    if ((v = bench_status_get(st, BK_SUMMARY_FAILED_TRANSACTIONS)) && cJSON_IsNumber(v))
        util_jset_num(e, "failed", v->valuedouble);
    if (bench_status_get(st, BK_SUMMARY)) { /* a run's summary says summary.aborted only when > 0 */
        v = bench_status_get(st, BK_SUMMARY_ABORTED_CLIENTS);
        util_jset_num(e, "aborted", cJSON_IsNumber(v) ? v->valuedouble : 0);
    }
    bench_sweep_put_num(e, "littlesLawDeviationPct", api_status_littles_law_pct(st), 6);
    /* the wait-event shares as the sentence names them (largest first), and the rounds they
     * rest on */
    struct bench_wait_share w[BENCH_DIAG_MAX_WAITS];
    const cJSON *waits = bench_status_get(st, BK_STATUS_DIAGNOSTICS_WAIT_EVENTS);
    int nw = cJSON_IsString(waits)
                 ? bench_diag_wait_parse(waits->valuestring, w, BENCH_DIAG_MAX_WAITS)
                 : 0;
    if (nw > 0) {
        util_jset_str(e, "waitEvent", w[0].event);
        bench_sweep_put_num(e, "waitPct", w[0].pct, 6);
        cJSON *m = util_must(cJSON_CreateObject());
        for (int i = 0; i < nw; i++)
            bench_sweep_put_num(m, w[i].event, w[i].pct, 6);
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

/* Pending, Running: the status made again from the spec and the runs (see sweep_decide.h). */
static void decide_walk(const cJSON *sweep, const cJSON *const *runs, int n_runs, double now,
                        struct ctrl_sweep_plan *plan)
{
    const cJSON *old = util_jget(sweep, "status");
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
    cJSON_ArrayForEach(step, steps)
    {
        step_phase(step);
        bench_sweep_step_stats(step, succeeded);
    }
    bench_sweep_analyse(st, api_sweep_field_name(s.field), s.field == API_SWEEP_CLIENTS, succeeded);
    sweep_phase(st, old, &s, &w, obs_gen, now, plan);
    (void)snprintf(plan->phase, sizeof(plan->phase), "%s", util_jstr(st, "phase"));
    if (old && cJSON_Compare(old, st, true)) {
        cJSON_Delete(st);
        return;
    }
    plan->n_events = ctrl_sweep_events(old, st, plan->events, CTRL_SWEEP_MAX_EVENTS);
    plan->status = st;
}

void ctrl_sweep_decide(const cJSON *sweep, const cJSON *const *runs, int n_runs, double now,
                       struct ctrl_sweep_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    enum api_phase phase = api_phase_parse(util_jstr(sweep, "status.phase"));
    switch (phase) {
    case API_PHASE_SUCCEEDED:
    case API_PHASE_STOPPED:
    case API_PHASE_FAILED:
        /* terminal: never left again */
        (void)snprintf(plan->phase, sizeof(plan->phase), "%s", api_phase_name(phase));
        return;
    case API_PHASE_PENDING:
    case API_PHASE_RUNNING:
    default: /* a phase no sweep has (someone else wrote it): made again like Running */
        decide_walk(sweep, runs, n_runs, now, plan);
        return;
    }
}

/* A run the API server will never accept ends the sweep (see sweep_decide.h). */
void ctrl_sweep_refused(const cJSON *sweep, const char *why, double now,
                        struct ctrl_sweep_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    const cJSON *old = util_jget(sweep, "status");
    enum api_phase phase = api_phase_parse(util_jstr(old, "phase"));
    if (api_phase_done(phase)) {
        (void)snprintf(plan->phase, sizeof(plan->phase), "%s", api_phase_name(phase));
        return;
    }
    cJSON *st =
        cJSON_IsObject(old) ? util_must(cJSON_Duplicate(old, 1)) : util_must(cJSON_CreateObject());
    char ts[40];
    util_rfc3339(now, 0, ts, sizeof(ts));
    util_jset_str(st, "phase", api_phase_name(API_PHASE_FAILED));
    util_jset_str(st, "message", why);
    keep_completion(st, old, ts);
    api_cond_set(st, "Failed", "True", "CreateFailed", why,
                 (long)util_jnum(sweep, "metadata.generation", 0), now);
    (void)snprintf(plan->phase, sizeof(plan->phase), "%s", api_phase_name(API_PHASE_FAILED));
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

int ctrl_sweep_status_events(const cJSON *sweep, double now, struct ctrl_event *out, int max)
{
    const cJSON *st = util_jget(sweep, "status");
    const char *done = util_jstr(st, "completionTime");
    double at = done ? util_rfc3339_parse(done) : -1;
    if (!api_phase_done(api_phase_parse(util_jstr(st, "phase"))) || !(at > 0) ||
        now - at > CTRL_EVENT_RESEND_S)
        return 0;
    /* the transition into the terminal phase: from the same status still Running at its step */
    cJSON *before = util_must(cJSON_Duplicate(st, 1));
    util_jset_str(before, "phase", api_phase_name(API_PHASE_RUNNING));
    cJSON *step =
        cJSON_GetArrayItem(util_jget(before, "steps"), (int)util_jnum(st, "currentStep", 0));
    if (step)
        util_jset_str(step, "phase", api_phase_name(API_PHASE_RUNNING));
    int n = ctrl_sweep_events(before, st, out, max);
    cJSON_Delete(before);
    return n;
}

void ctrl_sweep_plan_free(struct ctrl_sweep_plan *plan)
{
    cJSON_Delete(plan->status);
    cJSON_Delete(plan->create);
    plan->status = plan->create = NULL;
}
