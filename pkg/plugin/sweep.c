/* The BenchmarkSweep of `kubectl pgbench sweep`, from a BenchmarkRun built by run's flags. */
#include "pkg/plugin/sweep.h"
#include "pkg/util/mem.h"
#include "pkg/util/json.h"
#include "pkg/api/phase.h"
#include "pkg/api/spec.h"
#include "pkg/bench/fields.h"
#include "pkg/plugin/present.h"
#include "pkg/util/err.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool plugin_vary_is_list(const char *s)
{
    return s && (strchr(s, ',') || strstr(s, ".."));
}

/* One number of a list or range; whole: an integer >= 1. */
static int number(const char *s, size_t len, bool whole, double *out)
{
    char buf[64], *end;
    if (len == 0 || len >= sizeof(buf))
        return -EINVAL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    double v = strtod(buf, &end);
    if (errno || *end || end == buf || !isfinite(v) || v < 0 || (whole && (v < 1 || v != floor(v))))
        return -EINVAL;
    *out = v;
    return 0;
}

static int parse_range(const char *s, const char *dots, bool whole, struct plugin_vary *out)
{
    const char *to = dots + 2, *x = strchr(to, 'x');
    out->range = true;
    if (number(s, (size_t)(dots - s), whole, &out->from) ||
        number(to, x ? (size_t)(x - to) : strlen(to), whole, &out->to))
        return -EINVAL;
    if (x && number(x + 1, strlen(x + 1), false, &out->factor))
        return -EINVAL;
    if (out->to < out->from || (x && out->factor < 1.1))
        return -EINVAL;
    /* the steps, as the operator will expand them */
    int n = api_sweep_range(out->from, out->to, x ? out->factor : 2, whole, out->values,
                            API_SWEEP_MAX_STEPS);
    if (n < 0)
        return -E2BIG;
    out->n = n;
    return 0;
}

int plugin_vary_parse(const char *s, enum api_sweep_field field, const char *flag,
                      struct plugin_vary *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    out->set = true;
    out->field = field;
    bool whole = field != API_SWEEP_RATE;
    const char *kind = whole ? "whole numbers >= 1" : "numbers >= 0";
    const char *dots = strstr(s, "..");
    if (dots) {
        int rc = parse_range(s, dots, whole, out);
        if (rc == -E2BIG)
            return util_errf(err, errlen, "%s \"%s\": more than %d steps; raise the factor (xF)",
                             flag, s, API_SWEEP_MAX_STEPS);
        if (rc)
            return util_errf(err, errlen,
                             "%s \"%s\": a range FROM..TO[xFACTOR] of %s, FROM <= TO, FACTOR >= "
                             "1.1 (default 2)",
                             flag, s, kind);
        return 0;
    }
    for (const char *p = s;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (out->n >= API_SWEEP_MAX_STEPS)
            return util_errf(err, errlen, "%s: at most %d values", flag, API_SWEEP_MAX_STEPS);
        if (number(p, len, whole, &out->values[out->n]))
            return util_errf(err, errlen, "%s \"%s\": a list such as 1,2,4,8 of %s", flag, s, kind);
        if (out->n > 0 && out->values[out->n] <= out->values[out->n - 1])
            return util_errf(err, errlen, "%s \"%s\": values in increasing order", flag, s);
        out->n++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

/* The template's member that the varied field would set, if it sets it already. */
static const char *preset_flag(const cJSON *spec, enum api_sweep_field f)
{
    switch (f) {
    case API_SWEEP_CLIENTS:
        return util_jget(spec, "workload.pgbench.run.clients") ? "pgbench's -c" : NULL;
    case API_SWEEP_RATE:
        return util_jget(spec, "workload.pgbench.run.rate") ? "pgbench's -R" : NULL;
    case API_SWEEP_WORKERS:
        return util_jget(spec, "workers") ? "--workers N" : NULL;
    }
    return NULL;
}

static cJSON *vary_json(const struct plugin_vary *v)
{
    cJSON *vary = cJSON_CreateObject();
    util_must(cJSON_AddStringToObject(vary, "field", api_sweep_field_name(v->field)));
    if (v->range) {
        cJSON *r = cJSON_AddObjectToObject(vary, "range");
        cJSON_AddNumberToObject(r, "from", v->from);
        cJSON_AddNumberToObject(r, "to", v->to);
        if (v->factor > 0)
            cJSON_AddNumberToObject(r, "factor", v->factor);
    } else {
        cJSON *a = cJSON_AddArrayToObject(vary, "values");
        for (int i = 0; i < v->n; i++)
            cJSON_AddItemToArray(a, cJSON_CreateNumber(v->values[i]));
    }
    return vary;
}

static cJSON *stop_json(const struct plugin_sweep_opts *o)
{
    if (o->stop_failed_pct < 0 && o->stop_p99_ms < 0 && o->stop_aborted <= 0)
        return NULL;
    cJSON *st = cJSON_CreateObject();
    if (o->stop_failed_pct >= 0)
        cJSON_AddNumberToObject(st, "failedPct", o->stop_failed_pct);
    if (o->stop_aborted > 0)
        cJSON_AddNumberToObject(st, "abortedClients", (double)o->stop_aborted);
    if (o->stop_p99_ms >= 0)
        cJSON_AddNumberToObject(st, "p99Ms", o->stop_p99_ms);
    return st;
}

cJSON *plugin_build_sweep(const cJSON *br, const struct plugin_sweep_opts *o, char *err,
                          size_t errlen)
{
    const char *name = util_jstr(br, "metadata.name");
    const cJSON *tmpl = util_jget(br, "spec");
    if (!o->vary.set) {
        (void)util_errf(err, errlen,
                        "the varied field is required: --clients, --rate or "
                        "--workers with a list (1,2,4,8) or a range (1..64)");
        return NULL;
    }
    if (name && strlen(name) > API_SWEEP_MAX_NAME) {
        (void)util_errf(err, errlen,
                        "--name \"%s\": at most %d characters, so that the runs' names "
                        "(<name>-s<step>-r<repeat>) stay valid",
                        name, API_SWEEP_MAX_NAME);
        return NULL;
    }
    const char *clash = preset_flag(tmpl, o->vary.field);
    if (clash) {
        (void)util_errf(err, errlen, "%s and --%s: the sweep sets %s at each step; drop %s", clash,
                        api_sweep_field_name(o->vary.field), api_sweep_field_name(o->vary.field),
                        clash);
        return NULL;
    }
    cJSON *sw = cJSON_CreateObject();
    cJSON_AddStringToObject(sw, "apiVersion", "pgbench.dev/v1alpha1");
    cJSON_AddStringToObject(sw, "kind", "BenchmarkSweep");
    cJSON_AddItemToObject(sw, "metadata", util_must(cJSON_Duplicate(util_jget(br, "metadata"), 1)));
    cJSON *spec = cJSON_AddObjectToObject(sw, "spec");
    cJSON_AddItemToObject(spec, "template", util_must(cJSON_Duplicate(tmpl, 1)));
    cJSON_AddItemToObject(spec, "vary", vary_json(&o->vary));
    if (o->repeats > 0)
        cJSON_AddNumberToObject(spec, "repeats", o->repeats);
    cJSON *stop = stop_json(o);
    if (stop)
        cJSON_AddItemToObject(spec, "stopWhen", stop);
    struct api_sweep_spec parsed;
    char why[800];
    if (api_sweep_spec_parse(spec, &parsed, why, sizeof(why))) {
        (void)util_errf(err, errlen, "the operator would refuse this sweep: %s", why);
        cJSON_Delete(sw);
        return NULL;
    }
    return sw;
}

/* ---- text ------------------------------------------------------------------------------- */

static const char *field_of(const cJSON *sw)
{
    const char *f = bench_sweep_str(util_jget(sw, "status"), BSW_FIELD);
    return f ? f : util_jstr(sw, "spec.vary.field");
}

static const char *num(char *b, size_t n, double v)
{
    plugin_fmt_num(b, n, v);
    return b;
}

int plugin_sweep_step_line(struct buf *out, const cJSON *sw, const cJSON *step)
{
    char a[48], b[48], c[48];
    const char *field = field_of(sw), *phase = bench_sweep_str(step, BSW_STEPS_PHASE);
    int rc = buf_printf(
        out, "step %d/%d %s=%s: ", (int)bench_sweep_num(step, BSW_STEPS_INDEX, 0) + 1,
        (int)bench_sweep_num(util_jget(sw, "status"), BSW_TOTAL_STEPS, 0), field ? field : "value",
        num(a, sizeof(a), bench_sweep_num(step, BSW_STEPS_VALUE, NAN)));
    const cJSON *runs = bench_sweep_get(step, BSW_STEPS_RUNS);
    int nruns = cJSON_GetArraySize(runs);
    double tps = bench_sweep_num(step, BSW_STEPS_TPS_MEAN, NAN);
    if (isfinite(tps)) {
        rc = rc ? rc
                : buf_printf(
                      out, "%s tps p99 %s ms", num(a, sizeof(a), tps),
                      num(b, sizeof(b), bench_sweep_num(step, BSW_STEPS_LATENCY_P99_MEAN, NAN)));
        double sd = bench_sweep_num(step, BSW_STEPS_TPS_STDDEV, NAN);
        if (nruns > 1 && !rc)
            rc = isfinite(sd)
                     ? buf_printf(out, " (mean of %d runs, tps ±%s)", nruns, num(c, sizeof(c), sd))
                     : buf_printf(out, " (mean of %d runs)", nruns);
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, runs)
    {
        const char *ph = bench_sweep_str(e, BSW_STEPS_RUNS_PHASE);
        const char *why = bench_sweep_str(e, BSW_STEPS_RUNS_MESSAGE);
        if (!rc && ph && api_phase_parse(ph) == API_PHASE_FAILED)
            rc = buf_printf(out, "%srun %s Failed: %s", isfinite(tps) ? "; " : "",
                            bench_sweep_str(e, BSW_STEPS_RUNS_NAME), why ? why : "no message");
    }
    if (!rc && !isfinite(tps) && phase && api_phase_parse(phase) == API_PHASE_SUCCEEDED)
        rc = buf_puts(out, "no tps measured");
    return rc;
}

/* "0.012..0.031" from [low, high]; "19 or more" when high is null (open); "-" when absent. */
static const char *interval(char *b, size_t n, const cJSON *ci)
{
    char lo[48], hi[48];
    const cJSON *l = cJSON_GetArrayItem(ci, 0), *h = cJSON_GetArrayItem(ci, 1);
    if (!cJSON_IsNumber(l))
        return "-";
    plugin_fmt_num(lo, sizeof(lo), l->valuedouble);
    if (cJSON_IsNumber(h)) {
        plugin_fmt_num(hi, sizeof(hi), h->valuedouble);
        (void)snprintf(b, n, "%s..%s", lo, hi);
    } else {
        (void)snprintf(b, n, "%s or more", lo);
    }
    return b;
}

int plugin_sweep_summary(struct buf *out, const cJSON *sw)
{
    char a[48], b[48], c[48], d[48], e[48], f[48];
    const cJSON *st = util_jget(sw, "status");
    const char *phase = bench_sweep_str(st, BSW_PHASE), *field = field_of(sw);
    field = field ? field : "value";
    int rc =
        buf_printf(out, "benchmarksweep %s: %s (%d of %d steps)\n", util_jstr(sw, "metadata.name"),
                   api_phase_shown(phase), cJSON_GetArraySize(bench_sweep_get(st, BSW_STEPS)),
                   (int)bench_sweep_num(st, BSW_TOTAL_STEPS, 0));
    const cJSON *an = bench_sweep_get(st, BSW_ANALYSIS);
    if (an && !rc) {
        rc = buf_printf(out, "  peak %s tps at %s=%s",
                        num(a, sizeof(a), bench_sweep_num(st, BSW_ANALYSIS_PEAK_TPS, NAN)), field,
                        num(b, sizeof(b), bench_sweep_num(st, BSW_ANALYSIS_PEAK_AT, NAN)));
        if (!rc && bench_sweep_get(st, BSW_ANALYSIS_KNEE_AT))
            rc = buf_printf(out, "   latency knee at %s=%s", field,
                            num(a, sizeof(a), bench_sweep_num(st, BSW_ANALYSIS_KNEE_AT, NAN)));
        rc = rc ? rc : buf_puts(out, "\n");
    }
    const cJSON *usl = bench_sweep_get(st, BSW_ANALYSIS_USL);
    if (usl && !rc) {
        if (cJSON_IsTrue(bench_sweep_get(st, BSW_ANALYSIS_USL_OK)))
            rc = buf_printf(
                out,
                "  USL fit: lambda %s tps/client  sigma %s  kappa %s  R² %s  N* %s "
                "clients (%s tps)\n",
                num(a, sizeof(a), bench_sweep_num(st, BSW_ANALYSIS_USL_LAMBDA, NAN)),
                num(b, sizeof(b), bench_sweep_num(st, BSW_ANALYSIS_USL_SIGMA, NAN)),
                num(c, sizeof(c), bench_sweep_num(st, BSW_ANALYSIS_USL_KAPPA, NAN)),
                num(d, sizeof(d), bench_sweep_num(st, BSW_ANALYSIS_USL_R2, NAN)),
                num(e, sizeof(e), bench_sweep_num(st, BSW_ANALYSIS_USL_PEAK_CLIENTS, NAN)),
                num(f, sizeof(f), bench_sweep_num(st, BSW_ANALYSIS_USL_PEAK_TPS, NAN)));
        else
            rc = buf_printf(out, "  USL fit: none (%s)\n",
                            bench_sweep_str(st, BSW_ANALYSIS_USL_REASON));
        if (!rc && bench_sweep_get(st, BSW_ANALYSIS_USL_SIGMA_INTERVAL))
            rc = buf_printf(
                out, "  95 %% intervals (jackknife): sigma %s  kappa %s  N* %s\n",
                interval(a, sizeof(a), bench_sweep_get(st, BSW_ANALYSIS_USL_SIGMA_INTERVAL)),
                interval(b, sizeof(b), bench_sweep_get(st, BSW_ANALYSIS_USL_KAPPA_INTERVAL)),
                interval(c, sizeof(c),
                         bench_sweep_get(st, BSW_ANALYSIS_USL_PEAK_CLIENTS_INTERVAL)));
    }
    const char *verdict = bench_sweep_str(st, BSW_ANALYSIS_VERDICT);
    const char *stop = bench_sweep_str(st, BSW_STOP_REASON);
    if (verdict && !rc)
        rc = buf_printf(out, "  verdict: %s\n", verdict);
    if (stop && !rc)
        rc = buf_printf(out, "  stopped: %s\n", stop);
    if (!rc && phase && api_phase_parse(phase) == API_PHASE_FAILED)
        rc = buf_printf(out, "  %s\n",
                        bench_sweep_str(st, BSW_MESSAGE) ? bench_sweep_str(st, BSW_MESSAGE) : "");
    return rc;
}

/* ---- compare ---------------------------------------------------------------------------- */

static const cJSON *step_at(const cJSON *sw, double v)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, bench_sweep_get(util_jget(sw, "status"), BSW_STEPS))
    {
        if (bench_sweep_num(s, BSW_STEPS_VALUE, NAN) == v)
            return s;
    }
    return NULL;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The values any sweep measured, sorted, without duplicates. */
static int all_values(const cJSON *const *sws, size_t n, double *out, int max)
{
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        const cJSON *s;
        cJSON_ArrayForEach(s, bench_sweep_get(util_jget(sws[i], "status"), BSW_STEPS))
        {
            double v = bench_sweep_num(s, BSW_STEPS_VALUE, NAN);
            bool dup = false;
            for (int j = 0; j < k && !dup; j++)
                dup = out[j] == v;
            if (!dup && isfinite(v) && k < max)
                out[k++] = v;
        }
    }
    qsort(out, (size_t)k, sizeof(*out), dbl_cmp);
    return k;
}

/* A sweep's status field id (a field of status itself, not of a step), NAN when absent. */
static double status_num(const cJSON *sw, enum bench_sweep_field_id id)
{
    return bench_sweep_num(util_jget(sw, "status"), id, NAN);
}

/* One row of the analysis under the table: every sweep's value of field id (ratio: with its ratio
 * to the first sweep's). */
static void analysis_row(struct plugin_table *t, int row, const char *label,
                         const cJSON *const *sws, size_t n, enum bench_sweep_field_id id,
                         bool ratio)
{
    plugin_table_set(t, row, 0, label);
    double base = ratio ? status_num(sws[0], id) : NAN;
    for (size_t i = 0; i < n; i++)
        plugin_table_ratio(t, row, 1 + 2 * (int)i, status_num(sws[i], id), i ? base : NAN, "");
}

int plugin_sweep_compare(struct buf *out, const cJSON *const *sws, size_t n, char *err,
                         size_t errlen)
{
    const char *field = field_of(sws[0]);
    for (size_t i = 1; i < n; i++)
        if (!field || !field_of(sws[i]) || strcmp(field, field_of(sws[i])) != 0)
            return util_errf(err, errlen,
                             "benchmarksweeps %s and %s vary different fields (%s, %s): "
                             "nothing to compare step by step",
                             util_jstr(sws[0], "metadata.name"), util_jstr(sws[i], "metadata.name"),
                             field ? field : "?", field_of(sws[i]) ? field_of(sws[i]) : "?");
    if (n > 7)
        n = 7; /* 1 + 2 columns each in a table of 16 */
    double vals[API_SWEEP_MAX_STEPS * 7];
    int nv = all_values(sws, n, vals, (int)(sizeof(vals) / sizeof(vals[0])));
    struct plugin_table *t = plugin_table_new(1 + 2 * (int)n);
    char b[160];
    plugin_table_set(t, 0, 0, field);
    for (size_t i = 0; i < n; i++) {
        const char *name = util_jstr(sws[i], "metadata.name");
        (void)snprintf(b, sizeof(b), "%s tps", name);
        plugin_table_set(t, 0, 1 + 2 * (int)i, b);
        (void)snprintf(b, sizeof(b), "%s p99", name);
        plugin_table_set(t, 0, 2 + 2 * (int)i, b);
        plugin_table_right(t, 1 + 2 * (int)i);
        plugin_table_right(t, 2 + 2 * (int)i);
    }
    int row = 1;
    for (int v = 0; v < nv; v++, row++) {
        plugin_fmt_num(b, sizeof(b), vals[v]);
        plugin_table_set(t, row, 0, b);
        const cJSON *s0 = step_at(sws[0], vals[v]);
        for (size_t i = 0; i < n; i++) {
            const cJSON *s = step_at(sws[i], vals[v]);
            plugin_table_ratio(t, row, 1 + 2 * (int)i, bench_sweep_num(s, BSW_STEPS_TPS_MEAN, NAN),
                               i ? bench_sweep_num(s0, BSW_STEPS_TPS_MEAN, NAN) : NAN, "");
            plugin_table_ratio(
                t, row, 2 + 2 * (int)i, bench_sweep_num(s, BSW_STEPS_LATENCY_P99_MEAN, NAN),
                i ? bench_sweep_num(s0, BSW_STEPS_LATENCY_P99_MEAN, NAN) : NAN, " ms");
        }
    }
    row++; /* a blank row */
    analysis_row(t, row++, "peak tps", sws, n, BSW_ANALYSIS_PEAK_TPS, true);
    (void)snprintf(b, sizeof(b), "peak at %s", field);
    analysis_row(t, row++, b, sws, n, BSW_ANALYSIS_PEAK_AT, false);
    (void)snprintf(b, sizeof(b), "knee at %s", field);
    analysis_row(t, row++, b, sws, n, BSW_ANALYSIS_KNEE_AT, false);
    if (strcmp(field, "clients") == 0) {
        analysis_row(t, row++, "USL N* (clients)", sws, n, BSW_ANALYSIS_USL_PEAK_CLIENTS, false);
        analysis_row(t, row++, "USL peak tps", sws, n, BSW_ANALYSIS_USL_PEAK_TPS, true);
    }
    int rc = plugin_table_emit(out, t, "");
    plugin_table_free(t);
    for (size_t i = 0; i < n && !rc; i++) {
        const char *v = bench_sweep_str(util_jget(sws[i], "status"), BSW_ANALYSIS_VERDICT);
        rc = buf_printf(out, "%s: %s\n", util_jstr(sws[i], "metadata.name"),
                        v ? v : "no analysis yet");
    }
    return rc;
}
