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
    return phase_is(bench_sweep_str(e, BSW_STEPS_RUNS_PHASE), API_PHASE_SUCCEEDED);
}

/* A step's phase from its runs': Running while one has not finished, else Failed when one
 * failed, else Succeeded. */
static void step_phase(cJSON *step)
{
    bool running = false, failed = false;
    const cJSON *e;
    cJSON_ArrayForEach(e, bench_sweep_get(step, BSW_STEPS_RUNS))
    {
        const char *ph = bench_sweep_str(e, BSW_STEPS_RUNS_PHASE);
        if (!run_finished(ph))
            running = true;
        else if (phase_is(ph, API_PHASE_FAILED))
            failed = true;
    }
    bench_sweep_set_str(step, BSW_STEPS_PHASE,
                        api_phase_name(running  ? API_PHASE_RUNNING
                                       : failed ? API_PHASE_FAILED
                                                : API_PHASE_SUCCEEDED));
}

/* One repeat's entry of status.steps[].runs[] from a finished cached run. */
static cJSON *entry_from_run(const cJSON *run, const char *name)
{
    cJSON *e = cJSON_CreateObject();
    bench_sweep_set_str(e, BSW_STEPS_RUNS_NAME, name);
    const cJSON *st = util_jget(run, "status");
    const char *phase = bench_status_str(st, BK_STATUS_PHASE);
    bench_sweep_set_str(e, BSW_STEPS_RUNS_PHASE, phase ? phase : api_phase_name(API_PHASE_PENDING));
    const cJSON *v;
    bench_sweep_copy_run(e, st);            /* tps, latencyMs.p99, transactions, failed, ... */
    if (bench_status_get(st, BK_SUMMARY)) { /* a run's summary says summary.aborted only when > 0 */
        v = bench_status_get(st, BK_SUMMARY_ABORTED_CLIENTS);
        bench_sweep_set_num(e, BSW_STEPS_RUNS_ABORTED, cJSON_IsNumber(v) ? v->valuedouble : 0);
    }
    bench_sweep_put_round(e, BSW_STEPS_RUNS_LITTLES_LAW_DEVIATION_PCT,
                          api_status_littles_law_pct(st), 6);
    /* the wait-event shares as the sentence names them (largest first), and the rounds they
     * rest on */
    struct bench_wait_share w[BENCH_DIAG_MAX_WAITS];
    const cJSON *waits = bench_status_get(st, BK_STATUS_DIAGNOSTICS_WAIT_EVENTS);
    int nw = cJSON_IsString(waits)
                 ? bench_diag_wait_parse(waits->valuestring, w, BENCH_DIAG_MAX_WAITS)
                 : 0;
    if (nw > 0) {
        bench_sweep_set_str(e, BSW_STEPS_RUNS_WAIT_EVENT, w[0].event);
        bench_sweep_put_round(e, BSW_STEPS_RUNS_WAIT_PCT, w[0].pct, 6);
        cJSON *m = cJSON_CreateObject();
        for (int i = 0; i < nw; i++)
            bench_sweep_put_num(m, w[i].event, w[i].pct, 6);
        (void)bench_sweep_put(e, BSW_STEPS_RUNS_WAIT_SHARES_PCT, m);
        int rounds = bench_diag_wait_rounds(waits->valuestring);
        if (rounds >= 0)
            bench_sweep_set_num(e, BSW_STEPS_RUNS_WAIT_ROUNDS, rounds);
    }
    /* the run's verdict: its class and the evidence of its sentence */
    int cls = bench_verdict_status_class(st);
    const cJSON *vs = bench_status_get(st, BK_STATUS_DIAGNOSTICS_VERDICT);
    char ev[400];
    if (cls >= 0)
        bench_sweep_set_str(e, BSW_STEPS_RUNS_VERDICT_CLASS, bench_verdict_classes[cls].name);
    if (cJSON_IsString(vs) && bench_step_verdict_evidence(vs->valuestring, ev, sizeof(ev)))
        bench_sweep_set_str(e, BSW_STEPS_RUNS_VERDICT_EVIDENCE, ev);
    const char *msg = bench_status_str(st, BK_STATUS_MESSAGE);
    if (msg && phase_is(phase, API_PHASE_FAILED))
        bench_sweep_set_str(e, BSW_STEPS_RUNS_MESSAGE, msg);
    return e;
}

/* The recorded (finished) entry of a run in the old status, or NULL. */
static const cJSON *recorded(const cJSON *old_status, int step, const char *name)
{
    const cJSON *runs = bench_sweep_get(
        cJSON_GetArrayItem(bench_sweep_get(old_status, BSW_STEPS), step), BSW_STEPS_RUNS);
    const cJSON *e;
    cJSON_ArrayForEach(e, runs)
    {
        if (str_is(bench_sweep_str(e, BSW_STEPS_RUNS_NAME), name) &&
            run_finished(bench_sweep_str(e, BSW_STEPS_RUNS_PHASE)))
            return e;
    }
    return NULL;
}

/* stopWhen against a finished run's entry: writes why into out and returns true. */
static bool stop_check(const struct api_sweep_spec *s, const cJSON *e, char *out, size_t len)
{
    const char *name = bench_sweep_str(e, BSW_STEPS_RUNS_NAME);
    double failed = bench_sweep_num(e, BSW_STEPS_RUNS_FAILED, 0);
    double tx = bench_sweep_num(e, BSW_STEPS_RUNS_TRANSACTIONS, 0);
    double aborted = bench_sweep_num(e, BSW_STEPS_RUNS_ABORTED, 0);
    double p99 = bench_sweep_num(e, BSW_STEPS_RUNS_LATENCY_P99, NAN);
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

static void copy_member(cJSON *to, const cJSON *from, enum bench_sweep_field_id id)
{
    const cJSON *v = bench_sweep_get(from, id);
    if (v)
        (void)bench_sweep_put(to, id, util_must(cJSON_Duplicate(v, 1)));
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
        step = cJSON_CreateObject();
        bench_sweep_set_num(step, BSW_STEPS_INDEX, i);
        bench_sweep_set_num(step, BSW_STEPS_VALUE, s->values[i]);
        (void)bench_sweep_put(step, BSW_STEPS_RUNS, cJSON_CreateArray());
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
        cJSON *list = cJSON_GetObjectItemCaseSensitive(step_entry(steps, s, i),
                                                       bench_sweep_key(BSW_STEPS_RUNS));
        const cJSON *run = find_run(runs, n_runs, name);
        const cJSON *rec = recorded(old, i, name);
        cJSON *e;
        const char *ph = bench_status_str(util_jget(run, "status"), BK_STATUS_PHASE);
        if (run && run_finished(ph))
            e = entry_from_run(run, name);
        else if (rec)
            e = util_must(cJSON_Duplicate(rec, 1));
        else {
            e = cJSON_CreateObject();
            bench_sweep_set_str(e, BSW_STEPS_RUNS_NAME, name);
            bench_sweep_set_str(e, BSW_STEPS_RUNS_PHASE,
                                ph ? ph : api_phase_name(API_PHASE_PENDING));
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
    copy_member(st, old, BSW_COMPLETION_TIME);
    if (!bench_sweep_get(st, BSW_COMPLETION_TIME))
        bench_sweep_set_str(st, BSW_COMPLETION_TIME, ts);
}

/* phase, message and condition from where the walk stopped. */
static void sweep_phase(cJSON *st, const cJSON *old, const struct api_sweep_spec *s,
                        const struct sweep_walk *w, long obs_gen, double now,
                        struct ctrl_sweep_plan *plan)
{
    char msg[API_MAX_MESSAGE], ts[40], text[32];
    util_rfc3339(now, 0, ts, sizeof(ts));
    bench_sweep_set_num(st, BSW_CURRENT_STEP, w->last_step);
    (void)snprintf(text, sizeof(text), "%d/%d", w->last_step + 1, s->n_values);
    bench_sweep_set_str(st, BSW_STEP_TEXT, text);
    const char *verdict = bench_sweep_str(st, BSW_ANALYSIS_VERDICT);
    if (w->stopped) {
        bench_sweep_set_str(st, BSW_PHASE, api_phase_name(API_PHASE_STOPPED));
        bench_sweep_set_str(st, BSW_STOP_REASON, w->stop_reason);
        (void)snprintf(msg, sizeof(msg), "stopped at step %d/%d: %s", w->last_step + 1, s->n_values,
                       w->stop_reason);
        bench_sweep_set_str(st, BSW_MESSAGE, msg);
        keep_completion(st, old, ts);
        api_cond_set(st, "Stopped", "True", "StopWhen", w->stop_reason, obs_gen, now);
    } else if (w->current >= 0) {
        bench_sweep_set_str(st, BSW_PHASE, api_phase_name(API_PHASE_RUNNING));
        bench_sweep_set_str(st, BSW_CURRENT_RUN, w->current_name);
        (void)snprintf(msg, sizeof(msg), "step %d/%d: %s=%g, run %s", w->last_step + 1, s->n_values,
                       api_sweep_field_name(s->field), s->values[w->last_step], w->current_name);
        bench_sweep_set_str(st, BSW_MESSAGE, msg);
        if (!bench_sweep_get(st, BSW_START_TIME))
            bench_sweep_set_str(st, BSW_START_TIME, ts);
        plan->requeue_ms = CTRL_SWEEP_RESYNC_MS;
    } else {
        bench_sweep_set_str(st, BSW_PHASE, api_phase_name(API_PHASE_SUCCEEDED));
        (void)snprintf(msg, sizeof(msg), "%d steps: %s", s->n_values,
                       verdict ? verdict : "no step measured a tps");
        bench_sweep_set_str(st, BSW_MESSAGE, msg);
        keep_completion(st, old, ts);
        api_cond_set(st, "Complete", "True", "AllStepsRun", msg, obs_gen, now);
    }
}

/* A spec that does not parse ends the sweep: Failed, InvalidSpec, with the parser's message. */
static void sweep_invalid(cJSON *st, const cJSON *old, const char *err, long gen, double now,
                          struct ctrl_sweep_plan *plan)
{
    bench_sweep_set_str(st, BSW_PHASE, api_phase_name(API_PHASE_FAILED));
    bench_sweep_set_str(st, BSW_MESSAGE, err);
    char ts[40];
    util_rfc3339(now, 0, ts, sizeof(ts));
    bench_sweep_set_str(st, BSW_COMPLETION_TIME, ts);
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
    long obs_gen = (long)bench_sweep_num(old, BSW_OBSERVED_GENERATION, (double)gen);
    cJSON *st = cJSON_CreateObject();
    copy_member(st, old, BSW_CONDITIONS);
    copy_member(st, old, BSW_START_TIME);
    bench_sweep_set_num(st, BSW_OBSERVED_GENERATION, (double)obs_gen);

    struct api_sweep_spec s;
    char err[700];
    if (api_sweep_spec_parse(util_jget(sweep, "spec"), &s, err, sizeof(err))) {
        sweep_invalid(st, old, err, gen, now, plan);
        return;
    }
    bench_sweep_set_str(st, BSW_FIELD, api_sweep_field_name(s.field));
    cJSON *vals = cJSON_CreateArray();
    for (int i = 0; i < s.n_values; i++)
        cJSON_AddItemToArray(vals, cJSON_CreateNumber(s.values[i]));
    (void)bench_sweep_put(st, BSW_VALUES, vals);
    bench_sweep_set_num(st, BSW_TOTAL_STEPS, s.n_values);
    cJSON *steps = cJSON_CreateArray();
    (void)bench_sweep_put(st, BSW_STEPS, steps);

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
    (void)snprintf(plan->phase, sizeof(plan->phase), "%s", bench_sweep_str(st, BSW_PHASE));
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
    enum api_phase phase = api_phase_parse(bench_sweep_str(util_jget(sweep, "status"), BSW_PHASE));
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
    enum api_phase phase = api_phase_parse(bench_sweep_str(old, BSW_PHASE));
    if (api_phase_done(phase)) {
        (void)snprintf(plan->phase, sizeof(plan->phase), "%s", api_phase_name(phase));
        return;
    }
    cJSON *st = cJSON_IsObject(old) ? util_must(cJSON_Duplicate(old, 1)) : cJSON_CreateObject();
    char ts[40];
    util_rfc3339(now, 0, ts, sizeof(ts));
    bench_sweep_set_str(st, BSW_PHASE, api_phase_name(API_PHASE_FAILED));
    bench_sweep_set_str(st, BSW_MESSAGE, why);
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
    const char *field = bench_sweep_str(st, BSW_FIELD);
    (void)snprintf(out, len, "step %d/%d %s=%g", (int)bench_sweep_num(step, BSW_STEPS_INDEX, 0) + 1,
                   (int)bench_sweep_num(st, BSW_TOTAL_STEPS, 0), field ? field : "value",
                   bench_sweep_num(step, BSW_STEPS_VALUE, 0));
}

/* The events of one step whose phase moved from old_phase (NULL: the step is new). */
static int step_events(const cJSON *st, const cJSON *step, const char *old_phase,
                       struct ctrl_event *out, int n, int max)
{
    char label[96], msg[512];
    const char *phase = bench_sweep_str(step, BSW_STEPS_PHASE);
    const cJSON *first = cJSON_GetArrayItem(bench_sweep_get(step, BSW_STEPS_RUNS), 0);
    step_label(st, step, label, sizeof(label));
    if (!old_phase) {
        (void)snprintf(msg, sizeof(msg), "%s: run %s", label,
                       bench_sweep_str(first, BSW_STEPS_RUNS_NAME));
        n = add_event(out, n, max, false, "StepStarted", msg);
    }
    if ((old_phase && str_is(phase, old_phase)) || !run_finished(phase))
        return n;
    int runs = cJSON_GetArraySize(bench_sweep_get(step, BSW_STEPS_RUNS));
    if (phase_is(phase, API_PHASE_SUCCEEDED)) {
        (void)snprintf(msg, sizeof(msg), "%s: %.1f tps, p99 %.2f ms%s", label,
                       bench_sweep_num(step, BSW_STEPS_TPS_MEAN, NAN),
                       bench_sweep_num(step, BSW_STEPS_LATENCY_P99_MEAN, NAN),
                       runs > 1 ? " (means over its runs)" : "");
        return add_event(out, n, max, false, "StepCompleted", msg);
    }
    const char *why = NULL, *name = NULL;
    const cJSON *e;
    cJSON_ArrayForEach(
        e, bench_sweep_get(
               step, BSW_STEPS_RUNS)) if (!why && phase_is(bench_sweep_str(e, BSW_STEPS_RUNS_PHASE),
                                                           API_PHASE_FAILED))
    {
        name = bench_sweep_str(e, BSW_STEPS_RUNS_NAME);
        why = bench_sweep_str(e, BSW_STEPS_RUNS_MESSAGE);
    }
    (void)snprintf(msg, sizeof(msg), "%s: run %s failed: %.380s", label, name ? name : "?",
                   why ? why : "no message");
    return add_event(out, n, max, true, "StepFailed", msg);
}

int ctrl_sweep_events(const cJSON *old_st, const cJSON *new_st, struct ctrl_event *out, int max)
{
    int n = 0;
    const cJSON *step;
    cJSON_ArrayForEach(step, bench_sweep_get(new_st, BSW_STEPS))
    {
        int i = (int)bench_sweep_num(step, BSW_STEPS_INDEX, -1);
        const cJSON *old_step = cJSON_GetArrayItem(bench_sweep_get(old_st, BSW_STEPS), i);
        const char *old_phase = old_step ? bench_sweep_str(old_step, BSW_STEPS_PHASE) : NULL;
        if (old_step && !old_phase)
            old_phase = api_phase_name(API_PHASE_PENDING);
        n = step_events(new_st, step, old_phase, out, n, max);
    }
    const char *phase = bench_sweep_str(new_st, BSW_PHASE),
               *msg = bench_sweep_str(new_st, BSW_MESSAGE);
    const char *old_phase = bench_sweep_str(old_st, BSW_PHASE);
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
    const char *done = bench_sweep_str(st, BSW_COMPLETION_TIME);
    double at = done ? util_rfc3339_parse(done) : -1;
    if (!api_phase_done(api_phase_parse(bench_sweep_str(st, BSW_PHASE))) || !(at > 0) ||
        now - at > CTRL_EVENT_RESEND_S)
        return 0;
    /* the transition into the terminal phase: from the same status still Running at its step */
    cJSON *before = util_must(cJSON_Duplicate(st, 1));
    bench_sweep_set_str(before, BSW_PHASE, api_phase_name(API_PHASE_RUNNING));
    cJSON *step = cJSON_GetArrayItem(bench_sweep_get(before, BSW_STEPS),
                                     (int)bench_sweep_num(st, BSW_CURRENT_STEP, 0));
    if (step)
        bench_sweep_set_str(step, BSW_STEPS_PHASE, api_phase_name(API_PHASE_RUNNING));
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
