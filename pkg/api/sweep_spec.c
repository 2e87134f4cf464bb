/* BenchmarkSweep spec: parsing, validation, and each step's BenchmarkRun. */
#include "pkg/api/sweep_spec.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/api/manifest.h"
#include "pkg/api/spec.h"
#include "pkg/util/err.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

const struct kube_resource API_BENCHMARKSWEEPS = {"pgbench.dev", "v1alpha1", "BenchmarkSweep",
                                                  "benchmarksweeps", true};

static const char *const field_names[] = {"clients", "rate", "workers"};

const char *api_sweep_field_name(enum api_sweep_field f)
{
    return field_names[f];
}

/* ---- spec --------------------------------------------------------------------------------- */

int api_sweep_range(double from, double to, double factor, bool whole, double *out, int max)
{
    int n = 0;
    double v = from;
    for (int guard = 0; v <= to * (1 + 1e-9) && guard < 10000; guard++, v *= factor) {
        double x = whole ? round(v) : v;
        if (n > 0 && x <= out[n - 1])
            continue;
        if (n >= max)
            return -E2BIG;
        out[n++] = x;
    }
    double last = whole ? round(to) : to;
    if (n == 0 || out[n - 1] < last * (1 - 1e-9)) {
        if (n >= max)
            return -E2BIG;
        out[n++] = last;
    }
    return n;
}

static bool is_whole(double v)
{
    return v == floor(v);
}

/* spec.vary.values: 1 to API_SWEEP_MAX_STEPS numbers, whole and >= 1 unless rate. */
static int sweep_values(const cJSON *values, bool whole, struct api_sweep_spec *out, char *err,
                        size_t errlen)
{
    int n = cJSON_GetArraySize(values);
    if (!cJSON_IsArray(values) || n < 1 || n > API_SWEEP_MAX_STEPS) {
        (void)snprintf(err, errlen, "spec.vary.values: 1 to %d numbers", API_SWEEP_MAX_STEPS);
        return -EINVAL;
    }
    for (int i = 0; i < n; i++) {
        const cJSON *v = cJSON_GetArrayItem(values, i);
        if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
            (whole && (v->valuedouble < 1 || !is_whole(v->valuedouble)))) {
            (void)snprintf(err, errlen, "spec.vary.values[%d]: %s", i,
                           whole ? "a whole number >= 1" : "a number >= 0");
            return -EINVAL;
        }
        out->values[i] = v->valuedouble;
    }
    out->n_values = n;
    return 0;
}

/* spec.vary.range: from, to and factor expanded by api_sweep_range. */
static int sweep_range(const cJSON *range, bool whole, struct api_sweep_spec *out, char *err,
                       size_t errlen)
{
    double from = util_jnum(range, "from", NAN), to = util_jnum(range, "to", NAN);
    double factor = util_jnum(range, "factor", 2);
    if (!(from > 0) || !(to >= from) || (whole && from < 1)) {
        (void)snprintf(err, errlen, "spec.vary.range: need 0 < from <= to%s",
                       whole ? " (and from >= 1)" : "");
        return -EINVAL;
    }
    if (!(factor >= 1.1)) {
        (void)snprintf(err, errlen, "spec.vary.range.factor: at least 1.1");
        return -EINVAL;
    }
    int n = api_sweep_range(from, to, factor, whole, out->values, API_SWEEP_MAX_STEPS);
    if (n < 0) {
        (void)snprintf(err, errlen, "spec.vary.range: more than %d steps; raise factor",
                       API_SWEEP_MAX_STEPS);
        return -EINVAL;
    }
    out->n_values = n;
    return 0;
}

/* spec.vary: the field and its values (a list or a range). */
static int sweep_vary(const cJSON *vary, struct api_sweep_spec *out, char *err, size_t errlen)
{
    const char *field = util_jstr(vary, "field");
    int f = -1;
    for (int i = 0; field && i < 3; i++)
        if (strcmp(field, field_names[i]) == 0)
            f = i;
    if (f < 0) {
        (void)snprintf(err, errlen, "spec.vary.field: one of clients, rate, workers");
        return -EINVAL;
    }
    out->field = (enum api_sweep_field)f;
    bool whole = out->field != API_SWEEP_RATE;
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(vary, "values");
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(vary, "range");
    if ((values != NULL) == (range != NULL)) {
        (void)snprintf(err, errlen, "spec.vary: set exactly one of values or range");
        return -EINVAL;
    }
    return values ? sweep_values(values, whole, out, err, errlen)
                  : sweep_range(range, whole, out, err, errlen);
}

/* spec.stopWhen: each condition present is on. */
static int sweep_stop(const cJSON *stop, struct api_sweep_spec *out, char *err, size_t errlen)
{
    if (util_jget(stop, "failedPct")) {
        out->stop_failed = true;
        out->stop_failed_pct = util_jnum(stop, "failedPct", 0);
    }
    if (util_jget(stop, "abortedClients")) {
        out->stop_aborted = true;
        out->stop_aborted_clients = (long)util_jnum(stop, "abortedClients", 1);
        if (out->stop_aborted_clients < 1) {
            (void)snprintf(err, errlen, "spec.stopWhen.abortedClients: at least 1");
            return -EINVAL;
        }
    }
    if (util_jget(stop, "p99Ms")) {
        out->stop_p99 = true;
        out->stop_p99_ms = util_jnum(stop, "p99Ms", 0);
    }
    return 0;
}

/* Every step's run spec, as the BenchmarkRun controller will read it. */
static int sweep_steps_valid(const struct api_sweep_spec *s, char *err, size_t errlen)
{
    for (int i = 0; i < s->n_values; i++) {
        cJSON *rs = api_sweep_run_spec(s, i, i == 0);
        struct api_spec parsed;
        char e[512];
        int rc = api_spec_parse(rs, &parsed, e, sizeof(e));
        cJSON_Delete(rs);
        if (rc) {
            (void)snprintf(err, errlen, "spec.template (step %d, %s=%g): %s", i + 1,
                           field_names[s->field], s->values[i], e);
            return -EINVAL;
        }
        api_spec_free(&parsed);
    }
    return 0;
}

int api_sweep_spec_parse(const cJSON *spec, struct api_sweep_spec *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    const cJSON *tmpl = cJSON_GetObjectItemCaseSensitive(spec, "template");
    if (!cJSON_IsObject(tmpl)) {
        (void)snprintf(err, errlen, "spec.template: required (a BenchmarkRun spec)");
        return -EINVAL;
    }
    out->template = tmpl;
    if (!util_jget(tmpl, "workload.pgbench")) {
        (void)snprintf(err, errlen,
                       "spec.template.workload.pgbench: required (a sweep varies a pgbench run)");
        return -EINVAL;
    }
    int rc = sweep_vary(cJSON_GetObjectItemCaseSensitive(spec, "vary"), out, err, errlen);
    if (rc)
        return rc;
    out->repeats = (int)util_jnum(spec, "repeats", 1);
    if (out->repeats < 1 || out->repeats > API_SWEEP_MAX_REPEATS) {
        (void)snprintf(err, errlen, "spec.repeats: 1 to %d", API_SWEEP_MAX_REPEATS);
        return -EINVAL;
    }
    rc = sweep_stop(cJSON_GetObjectItemCaseSensitive(spec, "stopWhen"), out, err, errlen);
    if (rc)
        return rc;
    return sweep_steps_valid(out, err, errlen);
}

void api_sweep_run_name(const char *sweep, int step, int repeat, char *out, size_t len)
{
    (void)snprintf(out, len, "%s-s%d-r%d", sweep, step, repeat);
}

static cJSON *obj_at(cJSON *o, const char *a, const char *b)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (!cJSON_IsObject(x)) {
        x = cJSON_CreateObject();
        util_jset(o, a, x);
    }
    if (!b)
        return x;
    return obj_at(x, b, NULL);
}

cJSON *api_sweep_run_spec(const struct api_sweep_spec *s, int step, bool first)
{
    cJSON *spec = util_must(cJSON_Duplicate(s->template, 1));
    double v = s->values[step];
    cJSON *pg = obj_at(obj_at(spec, "workload", NULL), "pgbench", NULL);
    switch (s->field) {
    case API_SWEEP_CLIENTS:
        util_jset_num(obj_at(pg, "run", NULL), "clients", v);
        break;
    case API_SWEEP_RATE:
        util_jset_num(obj_at(pg, "run", NULL), "rate", v);
        break;
    case API_SWEEP_WORKERS:
        util_jset_num(spec, "workers", v);
        break;
    }
    if (!first)
        cJSON_DeleteItemFromObjectCaseSensitive(pg, "init");
    return spec;
}

cJSON *api_sweep_run_object(const cJSON *sweep, const struct api_sweep_spec *s, int step,
                            int repeat)
{
    const char *sname = util_jstr(sweep, "metadata.name");
    char name[320], stepv[16];
    api_sweep_run_name(sname, step, repeat, name, sizeof(name));
    (void)snprintf(stepv, sizeof(stepv), "%d", step);
    cJSON *br = cJSON_CreateObject();
    util_jset_str(br, "apiVersion", "pgbench.dev/v1alpha1");
    util_jset_str(br, "kind", "BenchmarkRun");
    cJSON *md = obj_at(br, "metadata", NULL);
    util_jset_str(md, "name", name);
    const char *ns = util_jstr(sweep, "metadata.namespace");
    if (ns)
        util_jset_str(md, "namespace", ns);
    cJSON *labels = obj_at(md, "labels", NULL);
    util_jset_str(labels, API_LABEL_SWEEP, sname);
    util_jset_str(labels, API_LABEL_SWEEP_STEP, stepv);
    cJSON *refs = cJSON_CreateArray();
    cJSON *ref = cJSON_CreateObject();
    util_jset_str(ref, "apiVersion", "pgbench.dev/v1alpha1");
    util_jset_str(ref, "kind", "BenchmarkSweep");
    util_jset_str(ref, "name", sname);
    const char *uid = util_jstr(sweep, "metadata.uid");
    util_jset_str(ref, "uid", uid ? uid : "");
    util_jset(ref, "controller", cJSON_CreateTrue());
    util_jset(ref, "blockOwnerDeletion", cJSON_CreateTrue());
    cJSON_AddItemToArray(refs, ref);
    util_jset(md, "ownerReferences", refs);
    util_jset(br, "spec", api_sweep_run_spec(s, step, step == 0 && repeat == 0));
    return br;
}
