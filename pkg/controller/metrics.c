/* /metrics: every metric's name, type and help, and the text format (see metrics.h). */
#include "pkg/api/phase.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"
#include "pkg/controller/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/bench/fields.h"
#include "pkg/bench/verdict.h"
#include "pkg/api/manifest.h"

#define PREFIX "pgbench_operator_"

static const double reconcile_bounds[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                          0.25,  0.5,    1,     2.5,  5,     10};
_Static_assert(sizeof(reconcile_bounds) / sizeof(reconcile_bounds[0]) ==
                   CTRL_METRICS_RECONCILE_BOUNDS,
               "CTRL_METRICS_RECONCILE_BOUNDS is the number of bounds");

void ctrl_metrics_observe(struct ctrl_metrics_histogram *h, double seconds)
{
    size_t b = 0;
    while (b < CTRL_METRICS_RECONCILE_BOUNDS && seconds > reconcile_bounds[b])
        b++;
    h->bucket[b]++;
    h->sum += seconds;
}

/* A run's phases, in the order of their lifecycle (pkg/api/phase.h). A run without a phase
 * yet counts as Pending. */
#define N_PHASES API_RUN_NPHASES

/* The per-run values: one row per sample of a run, rows of one family next to each other (the
 * first carries the family's type and help). The value is the status field `id`, converted from
 * its contract unit to the base unit (ms -> s); the help names the status fields it comes from.
 * The informers keep these fields because their rows are read back (RB_LIVE | RB_DONE in
 * pkg/bench/fields.def, the generated cache_keep.h): a row added here is marked there too. */
static const struct run_value {
    const char *family;
    const char *type; /* NULL: same family as the row above */
    const char *help;
    enum bench_field_id id;
    const char *quantile; /* summary rows: the quantile label */
} run_values[] = {
    {PREFIX "benchmarkrun_tps", "gauge",
     "Transactions per second of the run, summed over its workers", BK_SUMMARY_TPS, NULL},
    {PREFIX "benchmarkrun_latency_seconds", "summary",
     "Transaction latency of the run by quantile, from the merged latency histogram of its "
     "successful transactions",
     BK_SUMMARY_LATENCY_P50_MS, "0.5"},
    {PREFIX "benchmarkrun_latency_seconds", NULL, NULL, BK_SUMMARY_LATENCY_P90_MS, "0.9"},
    {PREFIX "benchmarkrun_latency_seconds", NULL, NULL, BK_SUMMARY_LATENCY_P95_MS, "0.95"},
    {PREFIX "benchmarkrun_latency_seconds", NULL, NULL, BK_SUMMARY_LATENCY_P99_MS, "0.99"},
    {PREFIX "benchmarkrun_latency_seconds", NULL, NULL, BK_SUMMARY_LATENCY_P999_MS, "0.999"},
    {PREFIX "benchmarkrun_latency_average_seconds", "gauge",
     "Average transaction latency of the run, as pgbench reports it", BK_SUMMARY_LATENCY_AVG_MS,
     NULL},
    {PREFIX "benchmarkrun_failed_transactions", "gauge",
     "Failed transactions of the run; pgbench 15 and newer count them",
     BK_SUMMARY_FAILED_TRANSACTIONS, NULL},
};
#define N_RUN_VALUES (sizeof(run_values) / sizeof(run_values[0]))

/* What a status value is divided by to be in base units: the contract's unit says. */
static double unit_divisor(enum bench_field_id id)
{
    const char *u = bench_fields[id].unit;
    if (u && strcmp(u, "ms") == 0)
        return 1000;
    if (u && strcmp(u, "us") == 0)
        return 1000000;
    return 1;
}

/* ---- the BenchmarkRun cache, walked once per scrape ----------------------------------------- */

struct run_row {
    char *ns, *name; /* one allocation: ns, then name */
    int phase;       /* index in api_run_phases[]; -1: a phase not listed */
    int verdict;     /* enum bench_verdict_class of status.diagnostics.verdictClass, or -1 */
    double v[N_RUN_VALUES];
};

struct run_rows {
    struct run_row *row;
    size_t n, cap;
};

static int phase_index(const char *p)
{
    if (!p || !*p)
        return 0;
    for (size_t i = 0; i < N_PHASES; i++)
        if (api_phase_parse(p) == api_run_phases[i])
            return (int)i;
    return -1;
}

static void collect_run(const cJSON *br, void *ctx)
{
    struct run_rows *rr = ctx;
    const char *ns = util_jstr(br, "metadata.namespace"), *name = util_jstr(br, "metadata.name");
    if (!name)
        return;
    if (!ns)
        ns = "";
    if (rr->n == rr->cap) {
        rr->cap = rr->cap ? rr->cap * 2 : 16;
        rr->row = util_xrealloc(rr->row, rr->cap * sizeof(*rr->row));
    }
    struct run_row *r = &rr->row[rr->n++];
    size_t lns = strlen(ns), lname = strlen(name);
    r->ns = util_xmalloc(lns + lname + 2);
    memcpy(r->ns, ns, lns + 1);
    r->name = r->ns + lns + 1;
    memcpy(r->name, name, lname + 1);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(br, "status");
    r->phase = phase_index(bench_status_str(st, BK_STATUS_PHASE));
    r->verdict = bench_verdict_status_class(st);
    for (size_t i = 0; i < N_RUN_VALUES; i++) {
        const cJSON *v = st ? bench_status_get(st, run_values[i].id) : NULL;
        r->v[i] = cJSON_GetNumberValue(v) / unit_divisor(run_values[i].id); /* NAN: none */
    }
}

static int row_cmp(const void *a, const void *b)
{
    const struct run_row *x = a, *y = b;
    int c = strcmp(x->ns, y->ns);
    return c ? c : strcmp(x->name, y->name);
}

static void rows_free(struct run_rows *rr)
{
    for (size_t i = 0; i < rr->n; i++)
        free(rr->row[i].ns);
    free(rr->row);
}

/* ---- text format ------------------------------------------------------------------------------
 */

/* v with 15 significant digits, or more if needed to read back as v (as cJSON prints numbers). */
static void put_num(struct buf *out, double v)
{
    if (isnan(v)) {
        buf_puts(out, "NaN");
        return;
    }
    if (isinf(v)) {
        buf_puts(out, v > 0 ? "+Inf" : "-Inf");
        return;
    }
    char s[40];
    for (int prec = 15; prec <= 17; prec++) {
        (void)snprintf(s, sizeof(s), "%.*g", prec, v);
        if (strtod(s, NULL) == v)
            break;
    }
    buf_puts(out, s);
}

/* A label value: backslash, double quote and newline escaped. */
static void put_label_value(struct buf *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            buf_puts(out, "\\\\");
        else if (*s == '"')
            buf_puts(out, "\\\"");
        else if (*s == '\n')
            buf_puts(out, "\\n");
        else
            buf_append(out, s, 1);
    }
}

/* The labels every run and sweep line starts with; the caller closes the brace. */
static void put_labels(struct buf *out, const char *ns, const char *name)
{
    buf_puts(out, "{namespace=\"");
    put_label_value(out, ns);
    buf_puts(out, "\",name=\"");
    put_label_value(out, name);
    buf_puts(out, "\"");
}

/* HELP and TYPE of the phase gauge of the kind ("run", "sweep"). */
static void put_phase_help(struct buf *out, const char *kind)
{
    buf_printf(out,
               "# HELP " PREFIX "benchmark%s_phase 1 for the %s's current phase (status.phase), 0 "
               "for the others.\n# TYPE " PREFIX "benchmark%s_phase gauge\n",
               kind, kind, kind);
}

/* The phase gauge's lines of one object: one a phase of phases, 1 for phases[phase]. */
static void put_phases(struct buf *out, const char *kind, const char *ns, const char *name,
                       int phase, const enum api_phase *phases, size_t nphases)
{
    for (size_t p = 0; p < nphases; p++) {
        buf_printf(out, PREFIX "benchmark%s_phase", kind);
        put_labels(out, ns, name);
        buf_printf(out, ",phase=\"%s\"} %d\n", api_phase_name(phases[p]), phase == (int)p);
    }
}

/* HELP and TYPE of run_values[first]'s family: its help, then the status fields it reads. */
static void put_run_family(struct buf *out, size_t first)
{
    const struct run_value *f = &run_values[first];
    buf_printf(out, "# HELP %s %s (status.%s", f->family, f->help, bench_fields[f->id].status);
    for (size_t i = first + 1; i < N_RUN_VALUES && !run_values[i].type; i++)
        buf_printf(out, ", %s", bench_status_key(run_values[i].id));
    double d = unit_divisor(f->id);
    if (d != 1)
        buf_printf(out, " / %g", d);
    buf_printf(out, ").\n# TYPE %s %s\n", f->family, f->type);
}

static void put_runs(struct buf *out, const struct run_rows *rr)
{
    put_phase_help(out, "run");
    for (size_t i = 0; i < rr->n; i++)
        put_phases(out, "run", rr->row[i].ns, rr->row[i].name, rr->row[i].phase, api_run_phases,
                   N_PHASES);
    for (size_t v = 0; v < N_RUN_VALUES; v++) {
        if (run_values[v].type)
            put_run_family(out, v);
        for (size_t i = 0; i < rr->n; i++) {
            const struct run_row *r = &rr->row[i];
            if (isnan(r->v[v]))
                continue;
            buf_puts(out, run_values[v].family);
            put_labels(out, r->ns, r->name);
            if (r->verdict >= 0)
                buf_printf(out, ",verdict=\"%s\"", bench_verdict_classes[r->verdict].name);
            if (run_values[v].quantile)
                buf_printf(out, ",quantile=\"%s\"", run_values[v].quantile);
            buf_puts(out, "} ");
            put_num(out, r->v[v]);
            buf_puts(out, "\n");
        }
    }
}

/* ---- BenchmarkSweeps ------------------------------------------------------------------------ */

#define N_SWEEP_PHASES API_SWEEP_NPHASES

/* One gauge per row, from a status field (its help names the field, from the sweep's status
 * table); the field label (the varied field) where it says. */
static const struct sweep_value {
    const char *family, *help;
    enum bench_sweep_field_id id;
    bool field_label;
} sweep_values[] = {
    {PREFIX "benchmarksweep_step", "Step the sweep runs (or ran last), from 1", BSW_CURRENT_STEP,
     false},
    {PREFIX "benchmarksweep_steps", "Steps the sweep has in all", BSW_TOTAL_STEPS, false},
    {PREFIX "benchmarksweep_peak_tps", "Highest mean tps of a step", BSW_ANALYSIS_PEAK_TPS, false},
    {PREFIX "benchmarksweep_peak_at", "Value of the varied field at the highest mean tps",
     BSW_ANALYSIS_PEAK_AT, true},
    {PREFIX "benchmarksweep_knee", "Value of the varied field at the latency knee",
     BSW_ANALYSIS_KNEE_AT, true},
    {PREFIX "benchmarksweep_usl_peak_clients", "Clients N* at which the fitted USL curve peaks",
     BSW_ANALYSIS_USL_PEAK_CLIENTS, false},
};
#define N_SWEEP_VALUES (sizeof(sweep_values) / sizeof(sweep_values[0]))

struct sweep_row {
    char *ns, *name, *field; /* one allocation */
    int phase;               /* index in api_sweep_phases[], -1: not listed */
    double v[N_SWEEP_VALUES];
};

struct sweep_rows {
    struct sweep_row *row;
    size_t n, cap;
};

static void collect_sweep(const cJSON *sw, void *ctx)
{
    struct sweep_rows *rr = ctx;
    const char *ns = util_jstr(sw, "metadata.namespace"), *name = util_jstr(sw, "metadata.name");
    const cJSON *st = util_jget(sw, "status");
    const char *field = bench_sweep_str(st, BSW_FIELD), *phase = bench_sweep_str(st, BSW_PHASE);
    if (!name)
        return;
    if (rr->n == rr->cap) {
        rr->cap = rr->cap ? rr->cap * 2 : 8;
        rr->row = util_xrealloc(rr->row, rr->cap * sizeof(*rr->row));
    }
    struct sweep_row *r = &rr->row[rr->n++];
    ns = ns ? ns : "";
    field = field ? field : "";
    size_t a = strlen(ns) + 1, b = strlen(name) + 1, c = strlen(field) + 1;
    r->ns = util_xmalloc(a + b + c);
    r->name = r->ns + a;
    r->field = r->name + b;
    memcpy(r->ns, ns, a);
    memcpy(r->name, name, b);
    memcpy(r->field, field, c);
    r->phase = phase ? -1 : 0;
    for (size_t p = 0; phase && p < N_SWEEP_PHASES; p++)
        if (api_phase_parse(phase) == api_sweep_phases[p])
            r->phase = (int)p;
    for (size_t i = 0; i < N_SWEEP_VALUES; i++)
        r->v[i] = bench_sweep_num(st, sweep_values[i].id, NAN);
    if (isfinite(r->v[0]))
        r->v[0] += 1; /* currentStep counts from 0 */
}

static int sweep_cmp(const void *a, const void *b)
{
    const struct sweep_row *x = a, *y = b;
    int c = strcmp(x->ns, y->ns);
    return c ? c : strcmp(x->name, y->name);
}

static void put_sweeps(struct buf *out, const struct sweep_rows *rr)
{
    put_phase_help(out, "sweep");
    for (size_t i = 0; i < rr->n; i++)
        put_phases(out, "sweep", rr->row[i].ns, rr->row[i].name, rr->row[i].phase, api_sweep_phases,
                   N_SWEEP_PHASES);
    for (size_t v = 0; v < N_SWEEP_VALUES; v++) {
        const struct sweep_value *f = &sweep_values[v];
        buf_printf(out, "# HELP %s %s (status.%s%s).\n# TYPE %s gauge\n", f->family, f->help,
                   bench_sweep_fields[f->id].status, v == 0 ? " + 1" : "", f->family);
        for (size_t i = 0; i < rr->n; i++) {
            const struct sweep_row *r = &rr->row[i];
            if (isnan(r->v[v]))
                continue;
            buf_puts(out, f->family);
            put_labels(out, r->ns, r->name);
            if (f->field_label) {
                buf_puts(out, ",field=\"");
                put_label_value(out, r->field);
                buf_puts(out, "\"");
            }
            buf_puts(out, "} ");
            put_num(out, r->v[v]);
            buf_puts(out, "\n");
        }
    }
}

static void format_sweeps(const struct ctrl_metrics_source *src, struct buf *out)
{
    struct sweep_rows rr = {0};
    if (src->foreach_sweep)
        src->foreach_sweep(src->sweeps, collect_sweep, &rr);
    if (rr.n > 1)
        qsort(rr.row, rr.n, sizeof(*rr.row), sweep_cmp);
    put_sweeps(out, &rr);
    for (size_t i = 0; i < rr.n; i++)
        free(rr.row[i].ns);
    free(rr.row);
}

/* The reconcile families of one controller, named p + "reconcile_total" and so on (p: PREFIX for
 * the BenchmarkRun controller's, PREFIX "sweep_" for the BenchmarkSweep controller's); what is
 * counted: ctrl_exec_stats (executor.h). events: writes_total has the Events sent (by the one
 * sender both controllers share, so only the BenchmarkRun controller's shows them). */
static void put_reconciles(struct buf *out, const char *p, const char *what, bool events,
                           const struct ctrl_metrics_controller *c)
{
    buf_printf(out,
               "# HELP %sreconcile_duration_seconds Time of one reconcile of a %s, including its "
               "API requests.\n# TYPE %sreconcile_duration_seconds histogram\n",
               p, what, p);
    uint64_t cum = 0;
    for (size_t i = 0; i < CTRL_METRICS_RECONCILE_BOUNDS; i++) {
        cum += c->reconcile_seconds.bucket[i];
        buf_printf(out, "%sreconcile_duration_seconds_bucket{le=\"%g\"} %llu\n", p,
                   reconcile_bounds[i], (unsigned long long)cum);
    }
    cum += c->reconcile_seconds.bucket[CTRL_METRICS_RECONCILE_BOUNDS];
    buf_printf(out,
               "%sreconcile_duration_seconds_bucket{le=\"+Inf\"} %llu\n"
               "%sreconcile_duration_seconds_sum %.6f\n%sreconcile_duration_seconds_count %llu\n",
               p, (unsigned long long)cum, p, c->reconcile_seconds.sum, p, (unsigned long long)cum);
    buf_printf(out,
               "# HELP %sreconcile_total Reconciles of a %s by result.\n"
               "# TYPE %sreconcile_total counter\n%sreconcile_total{result=\"success\"} %llu\n"
               "%sreconcile_total{result=\"error\"} %llu\n",
               p, what, p, p, (unsigned long long)(c->reconciles - c->reconcile_errors), p,
               (unsigned long long)c->reconcile_errors);
    buf_printf(out,
               "# HELP %swrites_total Successful writes of the %s controller by kind.\n"
               "# TYPE %swrites_total counter\n%swrites_total{kind=\"create\"} %llu\n"
               "%swrites_total{kind=\"delete\"} %llu\n%swrites_total{kind=\"status\"} %llu\n",
               p, what, p, p, (unsigned long long)c->creates, p, (unsigned long long)c->deletes, p,
               (unsigned long long)c->status_writes);
    if (events) /* one sender records the Events of both controllers */
        buf_printf(out, "%swrites_total{kind=\"event\"} %llu\n", p,
                   (unsigned long long)c->events_sent);
    buf_printf(out,
               "# HELP %sstatus_conflicts_total Status writes of a %s that met a 409 Conflict and "
               "were retried.\n# TYPE %sstatus_conflicts_total counter\n"
               "%sstatus_conflicts_total %llu\n"
               "# HELP %swrite_errors_total Writes of the %s controller refused or failed.\n"
               "# TYPE %swrite_errors_total counter\n%swrite_errors_total %llu\n",
               p, what, p, p, (unsigned long long)c->conflicts, p, what, p, p,
               (unsigned long long)c->write_errors);
    buf_printf(out,
               "# HELP %squeue_depth Keys waiting in the %s work queue.\n"
               "# TYPE %squeue_depth gauge\n%squeue_depth %zu\n"
               "# HELP %sreconciles_in_flight Reconciles of a %s in progress.\n"
               "# TYPE %sreconciles_in_flight gauge\n%sreconciles_in_flight %d\n",
               p, what, p, p, c->queue_depth, p, what, p, p, c->inflight);
}

static void put_controller(struct buf *out, const struct ctrl_metrics_controller *c)
{
    put_reconciles(out, PREFIX, "BenchmarkRun", true, c);
    buf_printf(out,
               "# HELP " PREFIX "cached_objects Objects in the informer caches.\n"
               "# TYPE " PREFIX "cached_objects gauge\n" PREFIX
               "cached_objects{resource=\"benchmarkruns\"} %zu\n" PREFIX
               "cached_objects{resource=\"jobs\"} %zu\n" PREFIX
               "cached_objects{resource=\"pods\"} %zu\n",
               c->cached_runs, c->cached_jobs, c->cached_pods);
    buf_printf(out,
               "# HELP " PREFIX "cached_bytes Bytes the informer caches hold (objects as trimmed "
               "JSON text).\n"
               "# TYPE " PREFIX "cached_bytes gauge\n" PREFIX
               "cached_bytes{resource=\"benchmarkruns\"} %zu\n" PREFIX
               "cached_bytes{resource=\"jobs\"} %zu\n" PREFIX
               "cached_bytes{resource=\"pods\"} %zu\n" PREFIX
               "cached_bytes{resource=\"events\"} %zu\n",
               c->bytes_runs, c->bytes_jobs, c->bytes_pods, c->bytes_events);
    buf_printf(out,
               "# HELP " PREFIX "plan_dropped_total Events and actions a reconcile plan had no "
               "room for (past its caps), dropped.\n"
               "# TYPE " PREFIX "plan_dropped_total counter\n" PREFIX
               "plan_dropped_total{kind=\"event\"} %llu\n" PREFIX
               "plan_dropped_total{kind=\"action\"} %llu\n",
               (unsigned long long)c->dropped_events, (unsigned long long)c->dropped_actions);
}

static void put_client(struct buf *out, const struct kube_client_stats *st)
{
    buf_printf(out,
               "# HELP " PREFIX "api_requests_total Kubernetes API requests sent.\n"
               "# TYPE " PREFIX "api_requests_total counter\n" PREFIX "api_requests_total %llu\n"
               "# HELP " PREFIX "api_errors_total Kubernetes API requests that failed "
               "(transport errors and HTTP >= 400).\n"
               "# TYPE " PREFIX "api_errors_total counter\n" PREFIX "api_errors_total %llu\n"
               "# HELP " PREFIX "api_retries_total Kubernetes API requests sent again after a "
               "429 or 5xx answer with Retry-After.\n"
               "# TYPE " PREFIX "api_retries_total counter\n" PREFIX "api_retries_total %llu\n"
               "# HELP " PREFIX "watch_restarts_total Watch streams restarted.\n"
               "# TYPE " PREFIX "watch_restarts_total counter\n" PREFIX
               "watch_restarts_total %llu\n"
               "# HELP " PREFIX "relists_total Full relists (e.g. after 410 Gone).\n"
               "# TYPE " PREFIX "relists_total counter\n" PREFIX "relists_total %llu\n",
               (unsigned long long)st->requests, (unsigned long long)st->errors,
               (unsigned long long)st->retries, (unsigned long long)st->watch_restarts,
               (unsigned long long)st->relists);
}

void ctrl_metrics_format(const struct ctrl_metrics_source *src, struct buf *out)
{
    const struct ctrl_metrics_controller *c = src->ctrl;
    struct run_rows rr = {0};
    if (c && c->foreach_run)
        c->foreach_run(c->cache, collect_run, &rr);
    if (rr.n > 1)
        qsort(rr.row, rr.n, sizeof(*rr.row), row_cmp);

    uint64_t by_phase[N_PHASES] = {0};
    for (size_t i = 0; i < rr.n; i++)
        if (rr.row[i].phase >= 0)
            by_phase[rr.row[i].phase]++;
    buf_puts(out, "# HELP " PREFIX "benchmarkruns BenchmarkRuns in the cache by phase.\n"
                  "# TYPE " PREFIX "benchmarkruns gauge\n");
    for (size_t p = 0; p < N_PHASES; p++)
        buf_printf(out, PREFIX "benchmarkruns{phase=\"%s\"} %llu\n",
                   api_phase_name(api_run_phases[p]), (unsigned long long)by_phase[p]);
    if (c) {
        put_runs(out, &rr);
        format_sweeps(src, out);
        put_controller(out, c);
        if (src->sweep)
            put_reconciles(out, PREFIX "sweep_", "BenchmarkSweep", false, src->sweep);
    }
    rows_free(&rr);
    if (src->client)
        put_client(out, src->client);
    buf_printf(out,
               "# HELP " PREFIX "leader 1 when this instance leads.\n"
               "# TYPE " PREFIX "leader gauge\n" PREFIX "leader %d\n",
               src->leader ? 1 : 0);
    if (src->rss_bytes >= 0)
        buf_printf(out,
                   "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
                   "# TYPE process_resident_memory_bytes gauge\n"
                   "process_resident_memory_bytes %ld\n",
                   src->rss_bytes);
    if (src->heap_used_bytes > 0)
        buf_printf(out,
                   "# HELP " PREFIX "heap_bytes The allocator's heap: in use, and free but held "
                   "(not given back to the system).\n"
                   "# TYPE " PREFIX "heap_bytes gauge\n" PREFIX
                   "heap_bytes{state=\"used\"} %ld\n" PREFIX "heap_bytes{state=\"free\"} %ld\n",
                   src->heap_used_bytes, src->heap_free_bytes);
}
